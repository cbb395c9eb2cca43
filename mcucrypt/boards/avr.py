# SPDX-License-Identifier: MIT
"""The `avr` virtual board: an AVR part simulated by simavr (libsimavr), cycle-exact. The ATmega128 by
default; the ATmega1284P and ATmega2560 (mcucrypt/cores.py: `--core atmega1284p|atmega2560`) on request.

simavr charges every instruction the cycles of the AVR Instruction Set Manual (docs/board-avr.md); the
board adds what simavr lacks for a benchmark harness: a C run loop with an instruction budget, faults
instead of log lines for invalid opcodes and out-of-range accesses, canaries that trap on the faulting
store, and an instruction/memory trace. The C side is simavr_shim.c, compiled on first use into
build/shim/ and loaded with ctypes.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import shutil
import subprocess
import weakref
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from ..targets import ROOT
from .base import (DECLASSIFY_SYMBOL, DEFAULT_MAX_INSTRUCTIONS, TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP,
                   Arg, Board, BoardError, BoardFault, Buf, CallResult, Declassified, Int, MemAccess, TaintFinding, TaintSpec,
                   Trace)
from .common import (CANARY, STACK_PAINT, ElfImage, PlacedBuf, buffer_image, check_canaries, marshal_avr,
                     place_buffers, stack_high_water, stack_left)
from .taint_common import TAINT_IO

SHIM_SOURCE = Path(__file__).with_name("simavr_shim.c")
SHIM_DIR = ROOT / "build" / "shim"
SHIM_CFLAGS = ("-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror")

MCU = "atmega128"                 # the default part (the seeds' ATmega128)
# The parts the board models, by avr-gcc's -mmcu name (simavr's name too): what differs for a call.
# SRAM begins above the I/O space: 0x100 after 64 I/O and 160 extended I/O registers, 0x200 on the 2560
# (416 extended I/O). The 2560's program counter is 17 bits (word address), so CALL/RET move 3 bytes.
PARTS = {"atmega128": "ATmega128 (128 KiB flash, 4 KiB SRAM, 2-byte return addresses)",
         "atmega1284p": "ATmega1284P (128 KiB flash, 16 KiB SRAM, 2-byte return addresses)",
         "atmega2560": "ATmega2560 (256 KiB flash, 8 KiB SRAM, 3-byte return addresses, EIND)"}
SPL = 0x5D                        # data address of SPL; SPH follows
DATA_SPACE_BASE = 0x800000        # avr-binutils place data memory at this offset in ELF addresses
DATA_SPACE_END = 0x810000         # EEPROM (0x810000), fuses, lock bits and signature lie above
# Symbols that mark the first free byte of SRAM, best first: avr-libc's heap start (only PROVIDEd when
# referenced), then the linker script's end of .noinit/.bss/.data.
FREE_RAM_SYMBOLS = ("__heap_start", "_end", "__bss_end", "__data_end")
ACC_SIZE_MASK, ACC_FLASH, ACC_WRITE = 0x03, 0x40, 0x80    # shim_trace.acc_info bits
# avr-gcc's ABI (https://gcc.gnu.org/wiki/avr-gcc, "Register Layout"): a callee must return with these
# as it found them (arguments passed in r8..r17 included: the caller may keep using them after the call)
# and with r1 (__zero_reg__) zero. The board gives the call-saved registers the arguments leave free a
# pattern and checks all of them after each call, and the shim checks every return from a global
# function inside it: an assembly routine that forgets one faults on every call, not only under the
# inlining (LTO) that would make a caller rely on it (docs/board-avr.md, "The ABI monitor").
CALL_SAVED = (*range(2, 18), 28, 29)
ZERO_REG = 1


def register_pattern(r: int) -> int:
    """The value the board gives call-saved register r when no argument uses it: distinct, never 0."""
    return 0xA0 ^ (r * 0x1D & 0xFF) or 0x5A


class Status(IntEnum):
    """Why shim_run_until returned (SHIM_* in simavr_shim.c)."""
    STOPPED = 0
    BUDGET = 1
    TRACE_FULL = 2
    INVALID_OPCODE = 3
    BAD_DATA = 4
    BAD_FLASH = 5
    PROTECTED = 6
    STACK_OVERFLOW = 7
    OUTSIDE_CODE = 8
    UNSUPPORTED = 9
    SLEEP = 10
    SIM_ERROR = 11
    ABI = 12


class _ShimTrace(ctypes.Structure):
    _fields_ = [("pcs", ctypes.POINTER(ctypes.c_uint32)), ("pcs_cap", ctypes.c_uint32),
                ("n_pcs", ctypes.c_uint32),
                ("acc_pc", ctypes.POINTER(ctypes.c_uint32)), ("acc_addr", ctypes.POINTER(ctypes.c_uint32)),
                ("acc_info", ctypes.POINTER(ctypes.c_uint8)), ("acc_cap", ctypes.c_uint32),
                ("n_acc", ctypes.c_uint32)]


class _ShimFinding(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint32), ("kind", ctypes.c_uint8), ("labels", ctypes.c_uint8),
                ("detail", ctypes.c_char * 46)]


class _ShimDeclassified(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint32), ("caller", ctypes.c_uint32), ("labels", ctypes.c_uint8)]


_TAINT_KINDS = (TAINT_BRANCH, TAINT_INDIRECT_JUMP, TAINT_ADDRESS, TAINT_IO)    # SHIM_TAINT_* in simavr_shim.c
MAX_LABELS = 8                    # the shim's shadow bytes are 8-bit label masks


class _ShimResult(ctypes.Structure):
    _fields_ = [("cycles", ctypes.c_uint64), ("instructions", ctypes.c_uint64),
                ("pc", ctypes.c_uint32), ("address", ctypes.c_uint32)]


def _simavr_flags() -> list[str]:
    """Compile and link flags for libsimavr: pkg-config's when it knows simavr, else Debian's paths."""
    if shutil.which("pkg-config"):
        proc = subprocess.run(["pkg-config", "--cflags", "--libs", "simavr"], capture_output=True, text=True)
        if proc.returncode == 0:
            return shlex.split(proc.stdout)
    return ["-I/usr/include/simavr", "-lsimavr"]


@lru_cache(maxsize=None)
def shim_library() -> tuple[ctypes.CDLL, str]:
    """The compiled shim and the hash it is cached under (source, compiler, flags). Compiled once per
    machine into build/shim/; a parallel compile never exposes a half-written library (atomic rename)."""
    simavr = _simavr_flags()
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        raise BoardError(f"{cc} not found: the avr board compiles its simavr shim on first use")
    version = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True).stdout
    h = hashlib.sha256(SHIM_SOURCE.read_bytes())
    for part in (version.splitlines()[0], *SHIM_CFLAGS, *simavr):
        h.update(part.encode() + b"\0")
    key = h.hexdigest()[:16]
    lib_path = SHIM_DIR / f"simavr_shim-{key}.so"
    if not lib_path.is_file():
        SHIM_DIR.mkdir(parents=True, exist_ok=True)
        tmp = lib_path.with_name(f"{lib_path.name}.tmp{os.getpid()}")
        proc = subprocess.run([cc, *SHIM_CFLAGS, str(SHIM_SOURCE), "-o", str(tmp), *simavr],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BoardError(f"compiling {SHIM_SOURCE.name} failed (is libsimavr-dev installed?):\n"
                             f"{proc.stderr.strip()}")
        os.replace(tmp, lib_path)
    lib = ctypes.CDLL(str(lib_path))
    p, u16, u32, u64 = ctypes.c_void_p, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64
    buf = ctypes.c_char_p
    for name, res, args in (
            ("shim_version", ctypes.c_char_p, []), ("shim_create", p, [ctypes.c_char_p]),
            ("shim_destroy", None, [p]), ("shim_sram_start", u32, [p]),
            ("shim_ramend", u32, [p]), ("shim_flashend", u32, [p]), ("shim_frequency", u32, [p]),
            ("shim_pc_bytes", u32, [p]), ("shim_message", ctypes.c_char_p, [p]), ("shim_reset", None, [p]),
            ("shim_load_flash", ctypes.c_int, [p, u32, buf, u32]),
            ("shim_write_data", ctypes.c_int, [p, u32, buf, u32]),
            ("shim_read_data", ctypes.c_int, [p, u32, buf, u32]),
            ("shim_set_pc", None, [p, u32]), ("shim_abi_entry", ctypes.c_int, [p, u32, ctypes.c_int]),
            ("shim_set_code_end", ctypes.c_int, [p, u32]), ("shim_set_stack_floor", None, [p, u16]),
            ("shim_protect", ctypes.c_int, [p, u32, u32]),
            ("shim_taint_enable", ctypes.c_int, [p, ctypes.c_int, u32]),
            ("shim_taint_set", ctypes.c_int, [p, u32, u32, ctypes.c_uint8]),
            ("shim_taint_get", ctypes.c_int, [p, u32, buf, u32, buf]),
            ("shim_taint_count", u32, [p]),
            ("shim_taint_finding", ctypes.c_int, [p, u32, ctypes.POINTER(_ShimFinding)]),
            ("shim_taint_declassified_count", u32, [p]),
            ("shim_taint_executed", ctypes.c_int, [p, buf, u32]),
            ("shim_taint_declassified", ctypes.c_int, [p, u32, ctypes.POINTER(_ShimDeclassified)]),
            ("shim_run_until", ctypes.c_int,
             [p, u32, u16, u64, ctypes.POINTER(_ShimTrace), ctypes.POINTER(_ShimResult)])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib, key


class _Sim:
    """One simavr instance of ``mcu`` behind the shim, freed with its owner."""

    def __init__(self, mcu: str) -> None:
        if mcu not in PARTS:
            raise BoardError(f"the avr board models {', '.join(PARTS)}, not {mcu!r}")
        self.lib, self.shim_key = shim_library()
        self.handle = self.lib.shim_create(mcu.encode())
        if not self.handle:
            raise BoardError(f"simavr could not create an {mcu}")
        self._finalizer = weakref.finalize(self, self.lib.shim_destroy, self.handle)
        self.mcu = mcu
        self.sram_start: int = self.lib.shim_sram_start(self.handle)
        self.ramend: int = self.lib.shim_ramend(self.handle)
        self.flashend: int = self.lib.shim_flashend(self.handle)
        self.pc_bytes: int = self.lib.shim_pc_bytes(self.handle)

    def write(self, address: int, data: bytes) -> None:
        if self.lib.shim_write_data(self.handle, address, data, len(data)) != 0:
            raise BoardError(f"{len(data)} bytes at 0x{address:x} do not fit in the data space")

    def protect(self, start: int, end: int) -> None:
        """Make a store to [start, end) a fault."""
        if self.lib.shim_protect(self.handle, start, end) != 0:
            raise BoardError(f"cannot protect 0x{start:x}..0x{end:x}: outside the data space")

    def read(self, address: int, size: int) -> bytes:
        out = ctypes.create_string_buffer(size)
        if self.lib.shim_read_data(self.handle, address, out, size) != 0:
            raise BoardError(f"{size} bytes at 0x{address:x} are outside the data space")
        return out.raw


@dataclass(frozen=True)
class _Image:
    """What load() derives from the ELF, reused by every call."""
    elf: ElfImage
    flash: list[tuple[int, bytes]]   # (program-memory byte address, contents)
    sram: bytes                      # initial SRAM (.data, zeroed .bss) from the SRAM start to RAMEND
    code_end: int                    # byte address just above the last executable segment
    free_start: int                  # first free SRAM byte (after .data/.bss/.noinit)


class AvrBoard(Board):
    """An AVR part on simavr: the ATmega128 (AVRe+, 16-bit PC, 4 KiB SRAM, 128 KiB flash) unless ``mcu``
    names another of PARTS (the ELF must be built with the same -mmcu).

    Every call starts from the image's initial RAM (.data as linked, .bss zero, peripherals reset): calls
    do not see each other's globals. The callee's return address points at the last word of flash, which
    no program occupies; the run stops when the PC gets there."""

    target = "avr"
    native_int_size = 2
    supports_taint = True
    # 50M instructions: 0.4 s plain, 0.7 s with taint for a one-instruction loop; a whole X25519 scalar
    # multiplication (~12.5M cycles) still fits.
    default_max_instructions = 50_000_000

    def __init__(self, *, mcu: str = MCU, trace_chunk: int = 1 << 20, check_abi: bool = True) -> None:
        """``trace_chunk``: entries the C loop records before handing the trace back to Python.
        ``check_abi``: fault when a global function returns with a call-saved register changed or r1 not
        zero (CALL_SAVED); off only for raw instruction sequences that are not C functions (the taint
        engine's random programs)."""
        self.check_abi = check_abi
        self._sim = _Sim(mcu)
        self.mcu = mcu
        self._stop_pc = self._sim.flashend + 1 - 2
        self._image: _Image | None = None
        self._disasm: dict[int, str] | None = None
        self._trace_chunk = trace_chunk
        self._trace_buffers: tuple[ctypes.Array, ctypes.Array, ctypes.Array, ctypes.Array] | None = None
        self._taint_names: list[str] | None = None     # labels of the last call with taint, bit i = names[i]

    # ------------------------------------------------------------------------------------------- load
    def load(self, elf: Path | str) -> None:
        image = ElfImage(elf)
        if image.machine != "EM_AVR":
            raise BoardError(f"{image.path.name} is an {image.machine} ELF, not AVR")
        sim, ramend, sram_start = self._sim, self._sim.ramend, self._sim.sram_start
        self._image = self._disasm = None
        stack = image.symbols.get("__stack")
        if stack is not None and stack & 0xFFFF != ramend:
            raise BoardError(f"{image.path.name} was linked for a part with RAMEND 0x{stack & 0xFFFF:x}, "
                             f"not the {self.mcu} (0x{ramend:x})")
        flash: list[tuple[int, bytes]] = []
        sram = bytearray(ramend + 1 - sram_start)
        code_end = 0
        for seg in image.segments:
            vaddr, paddr, data = seg.address, seg.load_address, seg.data
            if vaddr < DATA_SPACE_BASE:
                flash.append((vaddr, data))
                if seg.executable:
                    code_end = max(code_end, vaddr + len(data))
            elif vaddr < DATA_SPACE_END:
                # .data/.bss: placed at their run address (the harness plays crt0's copy and clear);
                # the initialisers also sit in flash at the load address, as on the real part.
                start = vaddr - DATA_SPACE_BASE
                if start < sram_start or start + seg.memsz > ramend + 1:
                    raise BoardError(f"data segment 0x{start:x}+{seg.memsz} outside the {self.mcu}'s "
                                     f"SRAM 0x{sram_start:x}..0x{ramend:x}")
                sram[start - sram_start:start - sram_start + len(data)] = data
                if data and paddr < DATA_SPACE_BASE:
                    flash.append((paddr, data))
            # EEPROM, fuses, lock bits and signature (0x810000 and up) are not loaded.
        for address, data in flash:
            if address + len(data) > self._stop_pc:
                raise BoardError(f"{image.path.name} reaches flash byte 0x{address + len(data):x}; the board "
                                 f"needs the last flash word (0x{self._stop_pc:x}) free as its return sentinel")
        if code_end == 0:
            raise BoardError(f"{image.path.name} has no executable segment")
        free = next((image.symbols[s] for s in FREE_RAM_SYMBOLS if s in image.symbols), None)
        free_start = free - DATA_SPACE_BASE if free is not None else sram_start
        erased = b"\xff" * (sim.flashend + 1)
        sim.lib.shim_load_flash(sim.handle, 0, erased, len(erased))
        for address, data in flash:
            if sim.lib.shim_load_flash(sim.handle, address, data, len(data)) != 0:
                raise BoardError(f"flash segment 0x{address:x}+{len(data)} outside the {self.mcu}'s flash")
        if sim.lib.shim_set_code_end(sim.handle, code_end) != 0:
            raise BoardError(f"code ends at 0x{code_end:x}, beyond the {self.mcu}'s flash")
        sim.lib.shim_abi_entry(sim.handle, 0xFFFFFFFF, 0)
        for entry in image.global_functions if self.check_abi else ():
            if entry < code_end:
                sim.lib.shim_abi_entry(sim.handle, entry, 1)
        self._image = _Image(image, flash, bytes(sram), code_end, free_start)

    # ------------------------------------------------------------------------------------------- call
    def call(self, symbol: str, args: Sequence[Arg] = (), *, trace: bool = False,
             max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, ret_size: int = 0,
             taint: TaintSpec | None = None) -> CallResult:
        img = self._image
        if img is None:
            raise BoardError("no ELF loaded: call load() first")
        entry = img.elf.address_of(symbol)
        if entry >= img.code_end or entry & 1:
            raise BoardError(f"{symbol} (0x{entry:x}) is not a function in flash")
        ret_size = ret_size or self.native_int_size
        if ret_size not in (1, 2, 4, 8):
            raise BoardError(f"unsupported return width {ret_size}")
        max_instructions = self.instruction_budget(max_instructions)
        sim, lib, h = self._sim, self._sim.lib, self._sim.handle
        ramend, pc_bytes = sim.ramend, sim.pc_bytes

        # RAM from the top: stack arguments, then the return address (2 bytes, 3 on the ATmega2560), then
        # the free stack down to the last buffer's canary. avr-gcc's callee finds its first stack argument
        # at SP+1+pc_bytes.
        scalars, placed, buffers_end = place_buffers(args, img.free_start, ramend + 1)
        m = marshal_avr(scalars)
        ret_base = ramend + 1 - len(m.stack) - pc_bytes
        if buffers_end > ret_base:
            raise BoardError(f"buffers, stack arguments and return address need "
                             f"{buffers_end - img.free_start + len(m.stack) + pc_bytes} bytes of RAM, only "
                             f"{ramend + 1 - img.free_start} free")
        lib.shim_reset(h)                        # registers, SREG and RAM zero: r1 (__zero_reg__) = 0
        sim.write(sim.sram_start, img.sram)
        for p in placed:
            sim.write(*buffer_image(p))
            sim.protect(p.address - len(CANARY), p.address)
            sim.protect(p.address + p.buf.length, p.address + p.buf.length + len(CANARY))
        sim.write(buffers_end, bytes([STACK_PAINT]) * (ret_base - buffers_end))
        ret_word = self._stop_pc >> 1            # the stack holds the word address, high byte first
        sim.write(ret_base, ret_word.to_bytes(pc_bytes, "big") + m.stack)
        # Call-saved registers the arguments leave free get a pattern (caught if the callee returns
        # without restoring them); the others start at zero as after reset.
        regs = bytearray(register_pattern(r) if r in CALL_SAVED else 0 for r in range(32))
        for r, v in m.registers.items():
            regs[r] = v
        sim.write(0, bytes(regs))
        sim.write(SPL, (ret_base - 1).to_bytes(2, "little"))    # SP points below the return address
        lib.shim_set_stack_floor(h, buffers_end)
        lib.shim_set_pc(h, entry)
        if taint is not None:
            self._taint_start(taint, args, scalars, placed, ret_base + pc_bytes)
        else:
            lib.shim_taint_enable(h, 0, 0)
            self._taint_names = None

        # The callee's RET pops the sentinel and leaves SP where a caller had it before the CALL.
        status, cycles, instructions, res, tr = self._run(max_instructions, trace, ret_base + pc_bytes - 1)
        if status != Status.STOPPED:
            raise self._fault(status, res, max_instructions, placed, buffers_end, symbol)

        outputs: list[bytes] = []
        for p in placed:
            lo, image = buffer_image(p)
            now = sim.read(lo, len(image))
            check_canaries(p, now, symbol)      # the shim faulted on any store to them; the contract's re-check
            if p.buf.out:
                outputs.append(now[len(CANARY):len(CANARY) + p.buf.length])
        regs_after = sim.read(0, 32)
        if self.check_abi:
            self._check_abi(symbol, regs, regs_after)
        first = 26 - (ret_size + (ret_size & 1))
        return_value = int.from_bytes(regs_after[first:first + ret_size], "little")
        top = ret_base + pc_bytes                # the return address counts as stack
        painted = sim.read(buffers_end, top - buffers_end)
        # stack_high_water scans byte by byte in Python; skip the paint nobody touched at C speed first.
        untouched = len(painted) - len(painted.lstrip(bytes([STACK_PAINT])))
        stack_bytes = stack_high_water(painted[untouched:], buffers_end + untouched, top)
        return CallResult(outputs, return_value, cycles, instructions, stack_bytes, tr,
                          self._taint_findings() if taint is not None else None,
                          declassified=self._taint_declassified() if taint is not None else None,
                          executed=self._taint_executed() if taint is not None else None,
                          stack_left=stack_left(painted[:ret_base - buffers_end]))

    def _check_abi(self, symbol: str, before: bytes, after: bytes) -> None:
        """A BoardFault when the callee returned with a call-saved register changed or r1 not zero."""
        changed = [r for r in CALL_SAVED if before[r] != after[r]]
        problems = [f"r{r} 0x{before[r]:02x} -> 0x{after[r]:02x}" for r in changed]
        if after[ZERO_REG]:
            problems.append(f"r1 (__zero_reg__) 0x{after[ZERO_REG]:02x}, not 0")
        if problems:
            raise BoardFault(f"ABI violation: {symbol} returned with {', '.join(problems)} (avr-gcc: r2..r17 "
                             f"and r28..r29 are call-saved, argument registers included, and r1 must be 0)",
                             None)

    # ------------------------------------------------------------------------------------------ taint
    def _taint_start(self, spec: TaintSpec, args: Sequence[Arg], scalars: list[int | Int],
                     placed: list[PlacedBuf], stack_args: int) -> None:
        """Turn taint on for this call and label the secret arguments: every byte of a Buf's contents, the
        register(s) or stack bytes of a scalar. ``stack_args``: data address of the first stack argument."""
        assert self._image is not None
        lib, h = self._sim.lib, self._sim.handle
        names = list(dict.fromkeys(spec.secret_args.values()))
        if len(names) > MAX_LABELS:
            raise BoardError(f"{len(names)} distinct taint labels; the avr board tracks at most {MAX_LABELS}")
        declassify = self._image.elf.symbols.get(DECLASSIFY_SYMBOL)
        if lib.shim_taint_enable(h, 1, 0xFFFFFFFF if declassify is None else declassify) != 0:
            raise BoardError("out of memory for the taint shadow state")
        self._taint_names = names
        by_index = {p.index: p for p in placed}
        for index, label in spec.secret_args.items():
            if not 0 <= index < len(args):
                raise BoardError(f"secret argument {index} ({label}): the call has {len(args)} arguments")
            bit = 1 << names.index(label)
            if isinstance(args[index], Buf):
                p = by_index[index]
                for start, end in spec.secret_ranges(index, p.buf.length):
                    lib.shim_taint_set(h, p.address + start, end - start, bit)
                continue
            # Where the ABI put this scalar: what marshalling it adds to the arguments before it.
            before, upto = marshal_avr(scalars[:index]), marshal_avr(scalars[:index + 1])
            for r in set(upto.registers) - set(before.registers):
                lib.shim_taint_set(h, r, 1, bit)
            if len(upto.stack) > len(before.stack):
                lib.shim_taint_set(h, stack_args + len(before.stack), len(upto.stack) - len(before.stack), bit)

    def _label_names(self, mask: int) -> tuple[str, ...]:
        return tuple(n for i, n in enumerate(self._taint_names or ()) if mask >> i & 1)

    def _taint_executed(self) -> frozenset[int]:
        """The byte addresses of the instructions the tainted call executed (words of the program only)."""
        assert self._image is not None
        words = (self._image.code_end + 1) // 2
        out = ctypes.create_string_buffer(words)
        if self._sim.lib.shim_taint_executed(self._sim.handle, out, words) != 0:
            raise BoardError("the shim has no taint state to read the executed addresses from")
        raw = out.raw
        return frozenset(2 * i for i in range(words) if raw[i])

    def _taint_declassified(self) -> list[Declassified]:
        lib, h = self._sim.lib, self._sim.handle
        d = _ShimDeclassified()
        out = []
        for i in range(lib.shim_taint_declassified_count(h)):    # the shim keeps the first 256 (more fail anyway)
            if lib.shim_taint_declassified(h, i, ctypes.byref(d)) != 0:
                break
            out.append(Declassified(d.value, self._label_names(d.labels), d.caller))
        return out

    def _taint_findings(self) -> list[TaintFinding]:
        lib, h = self._sim.lib, self._sim.handle
        f = _ShimFinding()
        out = []
        for i in range(lib.shim_taint_count(h)):
            lib.shim_taint_finding(h, i, ctypes.byref(f))
            out.append(TaintFinding(_TAINT_KINDS[f.kind], f.pc, self.symbol_at(f.pc), self.disassemble(f.pc),
                                    self._label_names(f.labels), f.detail.decode()))
        return out

    def taint_of(self, address: int, size: int = 1) -> list[tuple[str, ...]]:
        """After a call with taint: the labels each data-space byte [address, address + size) carries now
        (registers are data addresses 0..31). For tests and diagnostics."""
        if self._taint_names is None:
            raise BoardError("the last call did not track taint")
        out, flags = ctypes.create_string_buffer(size), ctypes.create_string_buffer(8)
        if self._sim.lib.shim_taint_get(self._sim.handle, address, out, size, flags) != 0:
            raise BoardError(f"{size} bytes at 0x{address:x} are outside the data space")
        return [self._label_names(b) for b in out.raw]

    def taint_of_flags(self) -> dict[str, tuple[str, ...]]:
        """After a call with taint: the labels each SREG flag carries now."""
        if self._taint_names is None:
            raise BoardError("the last call did not track taint")
        out, flags = ctypes.create_string_buffer(1), ctypes.create_string_buffer(8)
        self._sim.lib.shim_taint_get(self._sim.handle, 0, out, 1, flags)
        return {name: self._label_names(b) for name, b in zip("CZNVSHTI", flags.raw)}

    def _run(self, max_instructions: int, trace: bool,
             stop_sp: int) -> tuple[Status, int, int, _ShimResult, Trace | None]:
        """Run to the return sentinel, draining the trace buffers whenever the C loop fills them."""
        lib, h = self._sim.lib, self._sim.handle
        res = _ShimResult()
        st: _ShimTrace | None = None
        tr: Trace | None = None
        if trace:
            if self._trace_buffers is None:
                n = self._trace_chunk
                self._trace_buffers = ((ctypes.c_uint32 * n)(), (ctypes.c_uint32 * n)(),
                                       (ctypes.c_uint32 * n)(), (ctypes.c_uint8 * n)())
            pcs, acc_pc, acc_addr, acc_info = self._trace_buffers
            st = _ShimTrace(pcs, len(pcs), 0, acc_pc, acc_addr, acc_info, len(acc_pc), 0)
            tr = Trace()
        cycles = instructions = 0
        while True:
            status = Status(lib.shim_run_until(h, self._stop_pc, stop_sp, max_instructions - instructions,
                                               ctypes.byref(st) if st is not None else None,
                                               ctypes.byref(res)))
            cycles += res.cycles
            instructions += res.instructions
            if st is not None and tr is not None:
                tr.pcs += pcs[:st.n_pcs]
                tr.accesses += (MemAccess(pc, a if info & ACC_FLASH else DATA_SPACE_BASE + a, info & ACC_SIZE_MASK,
                                          bool(info & ACC_WRITE))
                                for pc, a, info in zip(acc_pc[:st.n_acc], acc_addr[:st.n_acc], acc_info[:st.n_acc]))
                st.n_pcs = st.n_acc = 0
            if status != Status.TRACE_FULL:
                return status, cycles, instructions, res, tr

    # ------------------------------------------------------------------------------------------ faults
    def _fault(self, status: Status, res: _ShimResult, max_instructions: int, placed: list[PlacedBuf],
               stack_floor: int, symbol: str) -> BoardFault:
        a, ramend = res.address, self._sim.ramend
        if status == Status.BUDGET:
            reason = (f"instruction budget of {max_instructions} exhausted before {symbol} returned "
                      f"(runaway loop?)")
        elif status == Status.INVALID_OPCODE:
            reason = f"invalid opcode (reserved, or not implemented by the {self.mcu})"
        elif status == Status.BAD_DATA:
            reason = f"data access at 0x{a:04x}, outside the {self.mcu}'s data space 0x0000..0x{ramend:04x}"
        elif status == Status.BAD_FLASH:
            reason = (f"program-memory read at 0x{a:x}, beyond the {self.mcu}'s flash "
                      f"(0x0..0x{self._sim.flashend:x})")
        elif status == Status.PROTECTED:
            reason = f"store to 0x{a:04x}, {self._canary_owner(a, placed)}"
        elif status == Status.STACK_OVERFLOW:
            reason = (f"stack overflow: push or call writing 0x{a:04x}, below the stack floor "
                      f"0x{stack_floor:04x} (the end of the argument buffers)")
        elif status == Status.OUTSIDE_CODE:
            assert self._image is not None
            reason = f"jump to 0x{a:x}, outside the program (code ends at 0x{self._image.code_end:x})"
        elif status == Status.UNSUPPORTED:
            reason = "SPM (self-programming) is outside the model"
        elif status == Status.ABI:
            callee = self.symbol_at(a)
            reason = (f"ABI violation: {callee} returns with "
                      f"{self._sim.lib.shim_message(self._sim.handle).decode(errors='replace')} (avr-gcc: r2..r17 "
                      f"and r28..r29 are call-saved, argument registers included, and r1 must be 0)")
        elif status == Status.SLEEP:
            reason = "SLEEP: the core waits for an interrupt, and the board delivers none"
        else:
            reason = f"simavr: {self._sim.lib.shim_message(self._sim.handle).decode(errors='replace').strip()}"
        return self._fault_at(reason, res.pc)

    def _fault_at(self, reason: str, pc: int) -> BoardFault:
        """A BoardFault naming ``pc``'s symbol+offset and its disassembly."""
        return BoardFault(reason, pc, self.symbol_at(pc), self.disassemble(pc))

    @staticmethod
    def _canary_owner(address: int, placed: list[PlacedBuf]) -> str:
        for p in placed:
            if p.address - len(CANARY) <= address < p.address:
                side = "before"
            elif p.address + p.buf.length <= address < p.address + p.buf.length + len(CANARY):
                side = "after"
            else:
                continue
            return f"the canary {side} argument {p.index} (buffer of {p.buf.length} bytes at 0x{p.address:x})"
        return "a protected byte"

    def symbol_at(self, address: int) -> str:
        """'name+0xoff' for a program address, or for a data address given as in traces (0x800000 + n)."""
        assert self._image is not None
        return self._image.elf.symbol_at(address)

    def disassemble(self, pc: int) -> str:
        """avr-objdump's text for the instruction at ``pc`` (objdump runs once per loaded ELF, on demand:
        only faults need it), or the raw word when no instruction of the program is there."""
        assert self._image is not None
        if self._disasm is None:
            self._disasm = _objdump(self._image.elf.path)
        if pc in self._disasm:
            return self._disasm[pc]
        for address, data in self._image.flash:
            if address <= pc < address + len(data) - 1:
                return f".word 0x{int.from_bytes(data[pc - address:pc - address + 2], 'little'):04x}"
        return ".word 0xffff (erased flash)"

    # ------------------------------------------------------------------------------------- provenance
    def describe_model(self) -> dict:
        sim = self._sim
        return {
            "target": self.target,
            "simulator": "simavr (libsimavr) through mcucrypt/boards/simavr_shim.c",
            "simavr_version": sim.lib.shim_version().decode(),
            "shim": sim.shim_key,
            "mcu": self.mcu,
            "flash_bytes": sim.flashend + 1,
            "sram": f"0x{sim.sram_start:04x}..0x{sim.ramend:04x}",
            "pc_bytes": sim.lib.shim_pc_bytes(sim.handle),
            "simavr_frequency_hz": sim.lib.shim_frequency(sim.handle),
            "interrupts": "never delivered (the core is stepped with avr_run_one)",
            "timing": "AVR Instruction Set Manual cycles per instruction as charged by simavr's avr_run_one; "
                      "cycle counts do not depend on the clock frequency",
        }


def _objdump(elf: Path) -> dict[int, str]:
    """Instruction text by address from ``avr-objdump -d``; empty when the tool is missing."""
    if shutil.which("avr-objdump") is None:
        return {}
    out = subprocess.run(["avr-objdump", "-d", "--no-show-raw-insn", str(elf)], capture_output=True,
                         text=True).stdout
    table: dict[int, str] = {}
    for line in out.splitlines():
        head, sep, rest = line.partition(":\t")
        if sep and head.strip() and all(c in "0123456789abcdef" for c in head.strip()):
            table[int(head, 16)] = " ".join(rest.split())
    return table
