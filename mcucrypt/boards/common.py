# SPDX-License-Identifier: MIT
"""Pieces every board shares: the ELF image, symbol look-up, placing buffers with canaries, stack paint,
and marshalling typed arguments into registers and stack per each target's C ABI."""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from .base import Arg, BoardError, BoardFault, Buf, Int

CANARY = bytes([0xA5, 0x5A, 0xC3, 0x3C]) * 4     # 16 bytes before and after every buffer
STACK_PAINT = 0xCD


@dataclass(frozen=True)
class Segment:
    address: int
    data: bytes          # file contents; memsz beyond it is zero (bss)
    memsz: int
    executable: bool
    load_address: int = 0    # p_paddr: where the contents sit in the image (AVR: .data initialisers in flash)


class ElfImage:
    """Loadable segments and function/object symbols of one firmware ELF."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        if not self.path.is_file():
            raise BoardError(f"no such ELF: {self.path}")
        # A file that is not an ELF, or one cut short, is bad input, not a crash: pyelftools raises
        # ELFError for a bad header and struct.error or short reads for a truncated file.
        try:
            with open(self.path, "rb") as f:
                self._parse(f)
        except (ELFError, struct.error, ValueError, EOFError, OSError) as e:
            raise BoardError(f"{self.path.name} is not a valid ELF file ({e or type(e).__name__})") from None

    def _parse(self, f) -> None:  # noqa: ANN001 - a binary file object
        elf = ELFFile(f)
        self.machine = elf["e_machine"]
        self.entry = elf["e_entry"]
        self.segments: list[Segment] = []
        for seg in elf.iter_segments():
            if seg["p_type"] != "PT_LOAD" or seg["p_memsz"] == 0:
                continue
            data = seg.data()
            if len(data) != seg["p_filesz"]:
                raise EOFError(f"truncated: a segment of {seg['p_filesz']} bytes at file offset "
                               f"0x{seg['p_offset']:x} has only {len(data)}")
            # Load at the run (virtual) address: the harness plays the part of crt0's .data copy.
            self.segments.append(Segment(seg["p_vaddr"], data, seg["p_memsz"], bool(seg["p_flags"] & 1),
                                         seg["p_paddr"]))
        self.symbols: dict[str, int] = {}
        self.sizes: dict[str, int] = {}
        # Entries of the functions others call by name (global or weak STT_FUNC): the ones that must keep
        # the C ABI. Local labels of an assembly file may have private conventions.
        self.global_functions: set[int] = set()
        funcs: list[tuple[int, str]] = []
        for sec in elf.iter_sections():
            if not isinstance(sec, SymbolTableSection):
                continue
            for sym in sec.iter_symbols():
                if not sym.name or sym["st_info"]["type"] in ("STT_SECTION", "STT_FILE"):
                    continue
                value = sym["st_value"]
                self.symbols.setdefault(sym.name, value)
                self.sizes.setdefault(sym.name, sym["st_size"])
                if sym["st_info"]["type"] == "STT_FUNC" and sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK") \
                        and sym["st_shndx"] != "SHN_UNDEF":
                    self.global_functions.add(value & ~1)
                # Linker-script symbols (__mcu_free_start, __global_pointer$) mark memory, not code:
                # naming a fault after them would mislead.
                # Absolute symbols (region lengths, __stack) are numbers, not places.
                if sym["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE", "STT_OBJECT") and \
                        sym["st_shndx"] != "SHN_ABS" and \
                        not sym.name.startswith(("$", ".L", "__mcu_", "__global_pointer")):
                    funcs.append((value & ~1 if sym["st_info"]["type"] == "STT_FUNC" else value,
                                  sym.name))
        funcs.sort()
        self._sym_addrs = [a for a, _ in funcs]
        self._sym_names = [n for _, n in funcs]

    def address_of(self, name: str) -> int:
        try:
            return self.symbols[name]
        except KeyError:
            raise BoardError(f"symbol {name!r} not found in {self.path.name}") from None

    def symbol_at(self, address: int) -> str:
        """'name+0xoff' for an address, or '?' when no symbol precedes it."""
        i = bisect.bisect_right(self._sym_addrs, address) - 1
        if i < 0:
            return "?"
        off = address - self._sym_addrs[i]
        return self._sym_names[i] + (f"+0x{off:x}" if off else "")


@dataclass
class PlacedBuf:
    index: int          # position in the argument list
    address: int
    buf: Buf


def place_buffers(args: Sequence[Arg], free_start: int, free_end: int) -> tuple[list[int | Int], list[PlacedBuf], int]:
    """Assign every Buf an address in [free_start, free_end), each with a canary on both sides.

    Returns the scalar argument list (pointers replaced by addresses), the placements, and the first
    address above the last canary (everything from there up to the stack is stack space)."""
    cursor = free_start
    scalars: list[int | Int] = []
    placed: list[PlacedBuf] = []
    for i, a in enumerate(args):
        if isinstance(a, Buf):
            cursor += len(CANARY)
            cursor = (cursor + a.align - 1) // a.align * a.align + a.misalign
            placed.append(PlacedBuf(i, cursor, a))
            scalars.append(cursor)
            cursor += a.length + len(CANARY)
        elif isinstance(a, (int, Int)):
            scalars.append(a)
        else:
            raise BoardError(f"argument {i}: expected int, Int or Buf, got {type(a).__name__}")
    if cursor > free_end:
        raise BoardError(f"buffers need {cursor - free_start} bytes of RAM, only {free_end - free_start} free")
    return scalars, placed, cursor


def buffer_image(p: PlacedBuf) -> tuple[int, bytes]:
    """(address, bytes) to write for a placed buffer: canary, contents (zero-padded), canary."""
    body = p.buf.data.ljust(p.buf.length, b"\0")[: p.buf.length]
    return p.address - len(CANARY), CANARY + body + CANARY


def check_canaries(p: PlacedBuf, image: bytes, symbol: str) -> None:
    """``image`` is what memory holds now over buffer_image's range."""
    n = len(CANARY)
    if image[:n] != CANARY or image[-n:] != CANARY:
        side = "before" if image[:n] != CANARY else "after"
        raise BoardFault(f"canary {side} argument {p.index} (buffer of {p.buf.length} bytes at "
                         f"0x{p.address:x}) overwritten by {symbol}")


def stack_high_water(painted: bytes, painted_base: int, stack_top: int) -> int:
    """Bytes of stack used: from the lowest byte no longer holding the paint up to the stack top."""
    untouched = len(painted) - len(painted.lstrip(bytes([STACK_PAINT])))
    return 0 if untouched == len(painted) else stack_top - (painted_base + untouched)


# ---------------------------------------------------------------------------------------------------
# C ABI argument marshalling

@dataclass
class Marshalled:
    registers: dict[int, int]   # register number -> value (AVR: r-number -> byte; others: word)
    stack: bytes                # bytes to place at the stack pointer (lowest address first)


def _value_and_size(a: int | Int, native: int) -> tuple[int, int]:
    if isinstance(a, Int):
        size = a.size or native
        value = a.value
    else:
        size, value = native, a
    if value < 0:
        value &= (1 << (8 * size)) - 1
    if value >= 1 << (8 * size):
        raise BoardError(f"argument value 0x{value:x} does not fit in {size} bytes")
    return value, size


def marshal_riscv_ilp32(args: Sequence[int | Int]) -> Marshalled:
    """RISC-V ilp32 integer calling convention: a0..a7 (x10..x17); a 2xXLEN scalar takes the next two
    registers (low half first, not necessarily an even pair for named arguments), split register/stack
    when only one register is left; then the stack, each slot XLEN-aligned (8-aligned for 2xXLEN)."""
    regs: dict[int, int] = {}
    stack = bytearray()
    nxt = 10
    for a in args:
        v, size = _value_and_size(a, 4)
        if size <= 4:
            if nxt <= 17:
                regs[nxt] = v
                nxt += 1
            else:
                stack += v.to_bytes(4, "little")
            continue
        lo, hi = v & 0xFFFFFFFF, v >> 32
        if nxt <= 16:
            regs[nxt], regs[nxt + 1] = lo, hi
            nxt += 2
        elif nxt == 17:
            regs[17] = lo
            stack += hi.to_bytes(4, "little")
            nxt = 18
        else:
            if len(stack) % 8:
                stack += bytes(4)
            stack += v.to_bytes(8, "little")
    return Marshalled(regs, bytes(stack))


def marshal_aapcs(args: Sequence[int | Int]) -> Marshalled:
    """AAPCS (ARM, base procedure call standard): r0..r3, 64-bit values in an even/odd register pair;
    once an argument goes to the stack all later ones do; stack slots 4-aligned (8 for 64-bit)."""
    regs: dict[int, int] = {}
    stack = bytearray()
    nxt = 0
    for a in args:
        v, size = _value_and_size(a, 4)
        if size <= 4:
            if nxt <= 3:
                regs[nxt] = v
                nxt += 1
            else:
                stack += v.to_bytes(4, "little")
        else:
            if nxt % 2:
                nxt += 1
            if nxt <= 2:
                regs[nxt], regs[nxt + 1] = v & 0xFFFFFFFF, v >> 32
                nxt += 2
            else:
                nxt = 4
                if len(stack) % 8:
                    stack += bytes(4)
                stack += v.to_bytes(8, "little")
    return Marshalled(regs, bytes(stack))


def marshal_avr(args: Sequence[int | Int]) -> Marshalled:
    """avr-gcc ABI: each argument's size is rounded up to even; registers are handed out from r26
    downwards (an argument of n bytes occupies r[k]..r[k+n-1], least significant byte in r[k]) while
    k >= 8; the first argument that does not fit and every later one go on the stack, in order, least
    significant byte first (avr-gcc passes them without rounding their size)."""
    regs: dict[int, int] = {}
    stack = bytearray()
    nxt = 26
    on_stack = False
    for a in args:
        v, size = _value_and_size(a, 2)
        rounded = size + (size & 1)
        if not on_stack and nxt - rounded >= 8:
            nxt -= rounded
            for i in range(size):
                regs[nxt + i] = (v >> (8 * i)) & 0xFF
        else:
            on_stack = True
            stack += v.to_bytes(size, "little")
    return Marshalled(regs, bytes(stack))
