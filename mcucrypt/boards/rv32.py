# SPDX-License-Identifier: MIT
"""The rv32 virtual board: a HiFive1 Rev B (FE310-G002, SiFive E31 core, RV32IMAC) that counts cycles.

Unicorn (QEMU's RISC-V CPU) executes the firmware; ``e31_model.E31Model`` counts its cycles; the
extension instructions Unicorn lacks (Zbb, Zbkb, Zbkc, custom ``x*`` extensions from ``rv32_isa``) are
emulated when the firmware's declared ISA allows them and fault when it does not, as on the real core.

Memory map (boards/rv32/link.ld): SPI flash at 0x2000_0000 (4 MiB, read/execute; code at 0x2001_0000) and
the 16 KiB DTIM at 0x8000_0000 (.rodata/.data/.bss, the buffers and the stack). Nothing else is mapped:
any other access faults.

Why part of the board is C. Two things must happen on every executed block or memory access: telling the
timing model which block ran, and checking the access is aligned (Unicorn silently performs misaligned
loads and stores that trap on the E31). A Python hook costs about 1 us per block and 2 us per access,
which caps the board below a million instructions a second. So a 220-line C recorder (``_RECORDER_C``,
compiled once with the host compiler into build/, cached by content) is registered directly with
Unicorn: it appends (address, size) of every block and (pc, rs1, rs2) of every divide to buffers,
counts loads from the flash window, and stops the emulation on a misaligned access. The board runs
Unicorn in chunks of at most ``_CHUNK`` instructions, and after each chunk the model consumes the
buffers. The recorder also takes Unicorn's illegal-instruction trap (``rv32_on_intr``): the built-in
Zbb/Zbkb/Zbkc instructions and the xmul64 instructions, found and ISA-checked by the load-time sweep
(``_emu_entry``), execute there (~0.4 us instead of 7-37 us through Python). Everything else that traps
goes on to ``_on_trap`` in Python: custom instructions with Python semantics, instructions outside the
declared ISA, faults. Also in Python: counter CSR reads (a code hook on each, found by the sweep), faults
and tracing.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import unicorn
from unicorn import (UC_ARCH_RISCV, UC_HOOK_BLOCK, UC_HOOK_CODE, UC_HOOK_INTR, UC_HOOK_MEM_INVALID,
                     UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MODE_RISCV32, UC_PROT_ALL, UC_PROT_EXEC,
                     UC_PROT_READ, Uc, UcError)
from unicorn import riscv_const as rc
from unicorn.unicorn_const import (UC_MEM_FETCH_PROT, UC_MEM_FETCH_UNMAPPED, UC_MEM_READ_PROT,
                                   UC_MEM_READ_UNMAPPED, UC_MEM_WRITE, UC_MEM_WRITE_PROT,
                                   UC_MEM_WRITE_UNMAPPED)

from unicorn.unicorn_py3.unicorn import HOOK_INTR_CFUNC, uccallback

from ..build import BUILD_DIR
from ..targets import get_target
from . import rv32_isa, taint_rv32
from .base import (DEFAULT_MAX_INSTRUCTIONS, Arg, Board, BoardError, BoardFault, CallResult, MemAccess,
                   TaintSpec, Trace)
from .common import (STACK_PAINT, ElfImage, buffer_image, check_canaries, marshal_riscv_ilp32,
                     place_buffers, stack_high_water, stack_left)
from .e31_model import E31Model, E31Params, describe
from .rv32_isa import Instr

FLASH_BASE, FLASH_SIZE = 0x2000_0000, 4 << 20
DTIM_BASE, DTIM_SIZE = 0x8000_0000, 16 << 10
# The callee returns here. It is the flash window's first byte, inside the board's boot loader area
# (link.ld starts code at 0x2001_0000), so no firmware function lives at it.
SENTINEL = FLASH_BASE
# Stack left below __mcu_stack_top when buffers are placed: a call whose buffers leave less fails with a
# BoardError rather than overflowing into them (the canaries would catch it, later and less clearly).
MIN_STACK = 1024
EM_RISCV = "EM_RISCV"
_CHUNK = 1 << 18           # instructions per emu_start; bounds the recorder's buffers

_XREG = [rc.UC_RISCV_REG_X0 + n for n in range(32)]

# ---------------------------------------------------------------------------------------------------
# The C recorder

_RECORDER_C = r"""
#include <stdint.h>
#include <unicorn/unicorn.h>

typedef uc_err (*reg_read_fn)(uc_engine *, int, void *);
typedef uc_err (*mem_read_fn)(uc_engine *, uint64_t, void *, uint64_t);
typedef uc_err (*emu_stop_fn)(uc_engine *);
typedef uc_err (*reg_write_fn)(uc_engine *, int, const void *);
typedef void (*intr_fn)(uc_engine *, uint32_t, void *);

/* Shared with Python (ctypes Structure _Recorder): keep the two layouts identical. */
struct recorder {
    uint32_t *blocks;            /* (address, size) of every executed translation block, in order */
    uint32_t n_blocks, cap_blocks;
    uint32_t *divs;              /* (pc, rs1 value, rs2 value) of every executed divide, in order */
    uint32_t n_divs, cap_divs;
    const uint8_t *div_map;      /* bit k: a divide starts at div_base + 2k */
    uint32_t div_base, div_span;
    uint32_t flash_loads;        /* loads from [FLASH_BASE, FLASH_BASE + FLASH_SIZE) */
    uint32_t fault;              /* 0 none, 1 misaligned access, 2 buffer full */
    uint32_t fault_pc, fault_addr, fault_size, fault_write;
    uint32_t flash_base, flash_size;
    int reg_x0, reg_pc;
    reg_read_fn reg_read;
    mem_read_fn mem_read;
    emu_stop_fn emu_stop;
    /* Extension instructions executed here (rv32_on_intr) instead of in Python */
    const uint32_t *emu_map;     /* per halfword from emu_base: 0, or op | rd << 8 | rs1 << 13 |
                                    rs2-or-shamt << 18 | rs3 << 23 (see _EMU_OPS) */
    uint32_t emu_base, emu_span;
    uint32_t emulated;           /* instructions executed by rv32_on_intr (statistics) */
    reg_write_fn reg_write;
    intr_fn fallback;            /* the Python trap handler: everything rv32_on_intr does not do */
};

void rv32_on_block(uc_engine *uc, uint64_t address, uint32_t size, struct recorder *r)
{
    if (r->n_blocks == r->cap_blocks) {
        r->fault = 2;
        r->emu_stop(uc);
        return;
    }
    r->blocks[2 * r->n_blocks] = (uint32_t)address;
    r->blocks[2 * r->n_blocks + 1] = size;
    r->n_blocks++;
}

void rv32_on_code(uc_engine *uc, uint64_t address, uint32_t size, struct recorder *r)
{
    uint32_t half = ((uint32_t)address - r->div_base) >> 1;
    uint32_t insn;
    uint64_t a = 0, b = 0;
    (void)size;
    if (half >= r->div_span || !(r->div_map[half >> 3] & (1u << (half & 7))))
        return;
    if (r->n_divs == r->cap_divs) {
        r->fault = 2;
        r->emu_stop(uc);
        return;
    }
    r->mem_read(uc, address, &insn, 4);
    r->reg_read(uc, r->reg_x0 + (int)((insn >> 15) & 31), &a);
    r->reg_read(uc, r->reg_x0 + (int)((insn >> 20) & 31), &b);
    r->divs[3 * r->n_divs] = (uint32_t)address;
    r->divs[3 * r->n_divs + 1] = (uint32_t)a;
    r->divs[3 * r->n_divs + 2] = (uint32_t)b;
    r->n_divs++;
}

void rv32_on_mem(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value,
                 struct recorder *r)
{
    uint64_t pc = 0;
    (void)value;
    if (address & (uint64_t)(size - 1)) {
        if (r->fault == 0) {
            r->reg_read(uc, r->reg_pc, &pc);
            r->fault = 1;
            r->fault_pc = (uint32_t)pc;
            r->fault_addr = (uint32_t)address;
            r->fault_size = (uint32_t)size;
            r->fault_write = type == UC_MEM_WRITE;
        }
        r->emu_stop(uc);
    } else if (type == UC_MEM_READ && address - r->flash_base < r->flash_size) {
        r->flash_loads++;
    }
}

enum { ANDN = 1, ORN, XNOR, CLZ, CTZ, CPOP, SEXT_B, SEXT_H, ZEXT_H, MIN, MINU, MAX, MAXU, ROL, ROR, RORI,
       ORC_B, REV8, BREV8, PACK, PACKH, ZIP, UNZIP, CLMUL, CLMULH, MULU64, ADDC, MADDU };

static uint32_t rol32(uint32_t a, uint32_t s)
{
    s &= 31;
    return s ? (a << s) | (a >> (32 - s)) : a;
}

static uint64_t clmul64(uint32_t a, uint32_t b)
{
    uint64_t p = 0;
    for (int k = 0; k < 32; k++)
        if ((b >> k) & 1)
            p ^= (uint64_t)a << k;
    return p;
}

static uint32_t xreg(uc_engine *uc, const struct recorder *r, uint32_t n)
{
    uint64_t v = 0;
    if (n)
        r->reg_read(uc, r->reg_x0 + (int)n, &v);
    return (uint32_t)v;
}

static void set_xreg(uc_engine *uc, const struct recorder *r, uint32_t n, uint32_t v)
{
    if (n)
        r->reg_write(uc, r->reg_x0 + (int)n, &v);
}

/* The instruction that raised the trap: the last one of the last recorded block (QEMU ends a block at an
   instruction that traps). Same walk as Rv32Board._trapping_instruction; 0 when there is no block. */
static uint32_t trapping_pc(uc_engine *uc, const struct recorder *r)
{
    uint8_t code[4096 + 4];
    uint32_t addr, size, off = 0;
    if (r->n_blocks == 0)
        return 0;
    addr = r->blocks[2 * r->n_blocks - 2];
    size = r->blocks[2 * r->n_blocks - 1];
    if (size == 0 || size > 4096 || r->mem_read(uc, addr, code, size) != UC_ERR_OK)
        return 0;
    for (;;) {
        uint32_t next = off + ((code[off] & 3) == 3 ? 4 : 2);
        if (next >= size)
            return addr + off;
        off = next;
    }
}

/* Unicorn raised exception intno. An illegal-instruction trap (2) at an instruction the board swept at
   load time and found to be an extension instruction the declared ISA allows is executed here: read the
   sources, write the destination(s), continue after it, exactly as Rv32Board._on_trap would. Anything
   else goes to the Python handler. */
void rv32_on_intr(uc_engine *uc, uint32_t intno, struct recorder *r)
{
    uint32_t pc, half, e, op, rd, a, b, c, d, v = 0, v2 = 0;
    uint64_t p;
    if (intno != 2 || r->emu_map == 0 || (pc = trapping_pc(uc, r)) == 0)
        goto python;
    half = (pc - r->emu_base) >> 1;
    if ((pc & 1) || half >= r->emu_span || (e = r->emu_map[half]) == 0)
        goto python;
    op = e & 0xFF;
    rd = (e >> 8) & 31;
    a = xreg(uc, r, (e >> 13) & 31);
    b = op == RORI ? (e >> 18) & 31 : xreg(uc, r, (e >> 18) & 31);
    switch (op) {
    case ANDN: v = a & ~b; break;
    case ORN: v = a | ~b; break;
    case XNOR: v = ~(a ^ b); break;
    case CLZ: v = a ? (uint32_t)__builtin_clz(a) : 32; break;
    case CTZ: v = a ? (uint32_t)__builtin_ctz(a) : 32; break;
    case CPOP: v = (uint32_t)__builtin_popcount(a); break;
    case SEXT_B: v = (uint32_t)(int32_t)(int8_t)(uint8_t)a; break;
    case SEXT_H: v = (uint32_t)(int32_t)(int16_t)(uint16_t)a; break;
    case ZEXT_H: v = a & 0xFFFF; break;
    case MIN: v = (int32_t)a < (int32_t)b ? a : b; break;
    case MAX: v = (int32_t)a > (int32_t)b ? a : b; break;
    case MINU: v = a < b ? a : b; break;
    case MAXU: v = a > b ? a : b; break;
    case ROL: v = rol32(a, b); break;
    case ROR: case RORI: v = rol32(a, 32 - (b & 31)); break;
    case ORC_B:
        for (int k = 0; k < 32; k += 8)
            if ((a >> k) & 0xFF)
                v |= 0xFFu << k;
        break;
    case REV8: v = __builtin_bswap32(a); break;
    case BREV8:
        for (int k = 0; k < 32; k++)
            if ((a >> k) & 1)
                v |= 1u << ((k & ~7) | (7 - (k & 7)));
        break;
    case PACK: v = (a & 0xFFFF) | (b << 16); break;
    case PACKH: v = (a & 0xFF) | ((b & 0xFF) << 8); break;
    case ZIP:
        for (int k = 0; k < 16; k++)
            v |= ((a >> k) & 1) << (2 * k) | ((a >> (k + 16)) & 1) << (2 * k + 1);
        break;
    case UNZIP:
        for (int k = 0; k < 16; k++)
            v |= ((a >> (2 * k)) & 1) << k | ((a >> (2 * k + 1)) & 1) << (k + 16);
        break;
    case CLMUL: v = (uint32_t)clmul64(a, b); break;
    case CLMULH: v = (uint32_t)(clmul64(a, b) >> 32); break;
    case MULU64: case ADDC: case MADDU:
        c = xreg(uc, r, (e >> 23) & 31);
        d = xreg(uc, r, rd);
        p = op == MULU64 ? (uint64_t)a * b : op == ADDC ? (uint64_t)a + b : (uint64_t)a * b + c + d;
        v = (uint32_t)p;
        v2 = (uint32_t)(p >> 32);
        break;
    default:
        goto python;
    }
    set_xreg(uc, r, rd, v);
    if (op >= MULU64)
        set_xreg(uc, r, rd + 1, v2);
    pc += 4;
    r->reg_write(uc, r->reg_pc, &pc);
    r->emulated++;
    return;
python:
    r->fallback(uc, intno, 0);
}
"""

_P32 = ctypes.POINTER(ctypes.c_uint32)


class _Recorder(ctypes.Structure):
    _fields_ = [("blocks", _P32), ("n_blocks", ctypes.c_uint32), ("cap_blocks", ctypes.c_uint32),
                ("divs", _P32), ("n_divs", ctypes.c_uint32), ("cap_divs", ctypes.c_uint32),
                ("div_map", ctypes.c_void_p), ("div_base", ctypes.c_uint32), ("div_span", ctypes.c_uint32),
                ("flash_loads", ctypes.c_uint32), ("fault", ctypes.c_uint32),
                ("fault_pc", ctypes.c_uint32), ("fault_addr", ctypes.c_uint32),
                ("fault_size", ctypes.c_uint32), ("fault_write", ctypes.c_uint32),
                ("flash_base", ctypes.c_uint32), ("flash_size", ctypes.c_uint32),
                ("reg_x0", ctypes.c_int), ("reg_pc", ctypes.c_int),
                ("reg_read", ctypes.c_void_p), ("mem_read", ctypes.c_void_p), ("emu_stop", ctypes.c_void_p),
                ("emu_map", _P32), ("emu_base", ctypes.c_uint32), ("emu_span", ctypes.c_uint32),
                ("emulated", ctypes.c_uint32), ("reg_write", ctypes.c_void_p), ("fallback", ctypes.c_void_p)]

# rv32_on_intr's operation numbers (the C enum): mnemonic -> op. The xmul64 instructions are matched by
# their semantics function, so only the shipped ones (or registrations reusing exactly those functions,
# with the same register-pair shape) run in C; any other custom instruction keeps its Python semantics.
_EMU_OPS = {name: k + 1 for k, name in enumerate(
    "andn orn xnor clz ctz cpop sext.b sext.h zext.h min minu max maxu rol ror rori orc.b rev8 brev8 pack "
    "packh zip unzip clmul clmulh".split())}
_EMU_CUSTOM = {ci.semantics: len(_EMU_OPS) + 1 + ("mulu64", "addc", "maddu").index(ci.name)
               for ci in rv32_isa.XMUL64}


def _unicorn_lib() -> ctypes.CDLL:
    from unicorn.unicorn_py3.unicorn import uclib
    return uclib


@lru_cache(maxsize=None)
def _recorder_lib() -> ctypes.CDLL:
    """Compile the C recorder with the host compiler (once per source and compiler; cached in build/)."""
    cc = get_target("host").cc
    include = Path(unicorn.__file__).parent / "include"
    key = hashlib.sha256(_RECORDER_C.encode() + str(include).encode() + cc.encode()).hexdigest()[:16]
    out = BUILD_DIR / "host" / f"rv32-recorder-{key}.so"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        src = out.with_suffix(".c")
        src.write_text(_RECORDER_C)
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                               f"-I{include}", str(src), "-o", str(tmp)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise BoardError(f"compiling the rv32 board's recorder failed:\n{proc.stderr.strip()}")
        os.replace(tmp, out)
    return ctypes.CDLL(str(out))


def _emu_entry(ins: Instr, isa: frozenset[str]) -> int:
    """rv32_on_intr's table entry for an instruction the board emulates (0: leave it to Python): only
    instructions the declared ISA allows, so an instruction outside it still faults in _on_trap."""
    if ins.length != 4 or ins.cls not in (rv32_isa.ALU, rv32_isa.CUSTOM) or not ins.allowed(isa):
        return 0
    if ins.cls == rv32_isa.CUSTOM:
        ci = ins.custom
        op = _EMU_CUSTOM.get(ci.semantics) if ci is not None and ci.pair else None
        second = ins.rs2
    else:
        op = _EMU_OPS.get(ins.mnemonic)
        second = ins.imm if ins.mnemonic == "rori" else ins.rs2
    if op is None:
        return 0
    return op | ins.rd << 8 | ins.rs1 << 13 | (second & 31) << 18 | ins.rs3 << 23


class _Registers:
    """x0..x31 and pc through libunicorn directly. The binding's Uc.reg_read/reg_write cost about 5 us
    each (generic register classes), which made emulating one instruction cost ~40 us."""

    def __init__(self, uc: Uc):
        self._handle = uc._uch
        self._lib = _unicorn_lib()
        self._value = ctypes.c_uint32()
        self._ref = ctypes.byref(self._value)

    def read(self, regid: int) -> int:
        if self._lib.uc_reg_read(self._handle, regid, self._ref):
            raise BoardError(f"uc_reg_read({regid}) failed")
        return self._value.value

    def write(self, regid: int, value: int) -> None:
        self._value.value = value & 0xFFFF_FFFF
        if self._lib.uc_reg_write(self._handle, regid, self._ref):
            raise BoardError(f"uc_reg_write({regid}) failed")


# ---------------------------------------------------------------------------------------------------
# ISA strings

def parse_isa(isa_string: str | None) -> frozenset[str]:
    """'rv32imac_zbb_xmul64' -> {'i','m','a','c','zicsr','zifencei','zbb','xmul64'}.

    Zicsr and Zifencei are always present (the E31 has them; GCC 12 merely wants them spelled out to
    assemble CSR instructions). F and D are refused: the E31 has no FPU."""
    s = (isa_string or "rv32imac").lower()
    if not s.startswith("rv32"):
        raise BoardError(f"ISA {isa_string!r}: the rv32 board runs RV32 code only")
    tokens = s[4:].split("_")
    base = tokens[0]
    if not base or base[0] not in "ie" or not set(base) <= set("imacfdge"):
        raise BoardError(f"ISA {isa_string!r}: base must start with 'i' followed by single-letter "
                         "extensions")
    if "e" in base:
        raise BoardError(f"ISA {isa_string!r}: the E31 implements RV32I, not RV32E")
    exts = set(base.replace("g", "imafd")) | {"zicsr", "zifencei"}
    for tok in tokens[1:]:
        if tok in rv32_isa.STANDARD_EXTENSIONS or tok in rv32_isa.CUSTOM_EXTENSIONS:
            exts.add(tok)
        else:
            known = sorted((rv32_isa.STANDARD_EXTENSIONS - {"i", "m", "a", "c"}) | set(rv32_isa.CUSTOM_EXTENSIONS))
            raise BoardError(f"ISA {isa_string!r}: unknown extension {tok!r} (known: {', '.join(known)})")
    if exts & {"f", "d"}:
        raise BoardError(f"ISA {isa_string!r}: the E31 has no floating-point unit")
    return frozenset(exts)


# ---------------------------------------------------------------------------------------------------
# The board

class Rv32Board(Board):
    """HiFive1 Rev B: Unicorn RV32 + the E31 timing model + extension emulation."""

    target = "rv32"
    supports_taint = True
    native_int_size = 4
    # a one-instruction loop runs ~0.7M instructions/s of CPU through the E31 timing model: ~2 s
    default_max_instructions = 1_500_000

    def __init__(self, params: E31Params | None = None):
        self.params = params or E31Params()
        # False: every call starts with a cold BTB/BHT (the default: a count depends on nothing but the
        # call). True: the BTB/BHT keep what earlier calls on this board trained, as in a benchmark loop
        # on the real board (Firmware(warm=True) makes one training call before the measured one).
        self.warm_predictor = False
        self.image: ElfImage | None = None
        self._isa: frozenset[str] = parse_isa(None)
        self._code: dict[int, Instr] = {}
        self._segments: list[tuple[int, bytes]] = []

    # -- loading -----------------------------------------------------------------------------------

    def load(self, elf: Path | str, isa: str | None = None) -> None:
        """Load an rv32 ELF; ``isa`` is the ISA the firmware was built for (default 'rv32imac')."""
        image = ElfImage(elf)
        if image.machine != EM_RISCV:
            raise BoardError(f"{image.path.name} is a {image.machine} ELF, not RISC-V")
        self._isa = parse_isa(isa)
        self.image = image
        for name in ("__mcu_free_start", "__mcu_stack_top"):    # linked with boards/rv32/link.ld?
            image.address_of(name)
        self._segments = []
        uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
        uc.mem_map(FLASH_BASE, FLASH_SIZE, UC_PROT_READ | UC_PROT_EXEC)
        uc.mem_map(DTIM_BASE, DTIM_SIZE, UC_PROT_ALL)
        dtim = bytearray(DTIM_SIZE)
        for seg in image.segments:
            data = seg.data.ljust(seg.memsz, b"\0")
            if FLASH_BASE <= seg.address and seg.address + seg.memsz <= FLASH_BASE + FLASH_SIZE:
                uc.mem_write(seg.address, data)
                if seg.executable:
                    self._segments.append((seg.address, data))
            elif DTIM_BASE <= seg.address and seg.address + seg.memsz <= DTIM_BASE + DTIM_SIZE:
                dtim[seg.address - DTIM_BASE: seg.address - DTIM_BASE + seg.memsz] = data
            else:
                raise BoardError(f"{image.path.name}: segment at 0x{seg.address:x} ({seg.memsz} bytes) is "
                                 "outside the HiFive1's flash and DTIM")
        self._dtim_image = bytes(dtim)
        # link.ld defines __mcu_free_start as the location counter after .bss; when the firmware has no
        # .rodata/.data/.bss at all, that counter is still in FLASH. Free RAM then starts at the DTIM.
        free = image.address_of("__mcu_free_start")
        dtim_ends = [s.address + s.memsz for s in image.segments if s.address >= DTIM_BASE]
        self._free_start = free if DTIM_BASE <= free < DTIM_BASE + DTIM_SIZE else \
            (max(dtim_ends, default=DTIM_BASE) + 15) & ~15
        self._uc = uc
        self._regs = _Registers(uc)
        self._code = {}
        self._sweep_text()
        self.model = E31Model(self.params, self._decode_at)
        self._install_hooks()

    def _decode_at(self, pc: int) -> Instr:
        ins = self._code.get(pc)
        if ins is None:
            ins = self._code[pc] = rv32_isa.decode(int.from_bytes(self._uc.mem_read(pc, 4), "little"))
        return ins

    def _sweep_text(self) -> None:
        """Decode the executable segments linearly; find divides, counter reads and instructions the
        declared ISA forbids but Unicorn would execute (F/D, M without 'm', C without 'c', ...)."""
        self._divs: list[int] = []
        self._counter_reads: list[int] = []
        self._forbidden: list[int] = []
        self._emulated: dict[int, int] = {}      # pc -> rv32_on_intr's table entry
        for base, data in self._segments:
            off = 0
            while off + 2 <= len(data):
                word = int.from_bytes(data[off: off + 4].ljust(4, b"\0"), "little")
                ins = rv32_isa.decode(word)
                pc = base + off
                self._code[pc] = ins
                if ins.cls == rv32_isa.DIV:
                    self._divs.append(pc)
                elif ins.cls == rv32_isa.CSR and ins.csr in rv32_isa.COUNTER_CSRS:
                    self._counter_reads.append(pc)
                unicorn_runs_it = ins.exts and ins.exts <= rv32_isa.NATIVE_EXTENSIONS
                if unicorn_runs_it and not ins.allowed(self._isa):
                    self._forbidden.append(pc)
                entry = _emu_entry(ins, self._isa) if not unicorn_runs_it else 0
                if entry:
                    self._emulated[pc] = entry
                off += ins.length

    def _install_hooks(self) -> None:
        uc = self._uc
        lib = _recorder_lib()
        uclib = _unicorn_lib()
        rec = _Recorder()
        self._block_buf = (ctypes.c_uint32 * (2 * (_CHUNK + 64)))()
        self._div_buf = (ctypes.c_uint32 * (3 * (_CHUNK + 64)))()
        rec.blocks = ctypes.cast(self._block_buf, _P32)
        rec.cap_blocks = _CHUNK + 64
        rec.divs = ctypes.cast(self._div_buf, _P32)
        rec.cap_divs = _CHUNK + 64
        if self._divs:
            base, last = min(self._divs), max(self._divs)
            span = (last - base) // 2 + 1
            bitmap = bytearray((span + 7) // 8)
            for pc in self._divs:
                k = (pc - base) // 2
                bitmap[k >> 3] |= 1 << (k & 7)
            self._div_map = (ctypes.c_uint8 * len(bitmap)).from_buffer_copy(bitmap)
            rec.div_map = ctypes.cast(self._div_map, ctypes.c_void_p)
            rec.div_base, rec.div_span = base, span
        rec.flash_base, rec.flash_size = FLASH_BASE, FLASH_SIZE
        rec.reg_x0, rec.reg_pc = rc.UC_RISCV_REG_X0, rc.UC_RISCV_REG_PC
        rec.reg_read = ctypes.cast(uclib.uc_reg_read, ctypes.c_void_p)
        rec.mem_read = ctypes.cast(uclib.uc_mem_read, ctypes.c_void_p)
        rec.emu_stop = ctypes.cast(uclib.uc_emu_stop, ctypes.c_void_p)
        rec.reg_write = ctypes.cast(uclib.uc_reg_write, ctypes.c_void_p)
        if self._emulated:
            base = min(self._emulated)
            span = (max(self._emulated) - base) // 2 + 1
            self._emu_map = (ctypes.c_uint32 * span)()
            for pc, entry in self._emulated.items():
                self._emu_map[(pc - base) // 2] = entry
            rec.emu_map = ctypes.cast(self._emu_map, _P32)
            rec.emu_base, rec.emu_span = base, span
        # Every trap enters rv32_on_intr; what it does not execute itself goes to _on_trap, wrapped as
        # the binding wraps hooks (an exception is kept, stops the emulation and is re-raised by emu_start)
        self._trap_cb = uccallback(uc, HOOK_INTR_CFUNC)(lambda uc_, cause, _key: self._on_trap(uc_, cause, None))
        rec.fallback = ctypes.cast(self._trap_cb, ctypes.c_void_p)
        self._rec = rec

        def native(htype: int, fn_name: str, begin: int = 1, end: int = 0) -> None:
            handle = ctypes.c_size_t()
            fn = ctypes.cast(getattr(lib, fn_name), ctypes.c_void_p)
            status = uclib.uc_hook_add(uc._uch, ctypes.byref(handle), htype, fn,
                                       ctypes.cast(ctypes.pointer(rec), ctypes.c_void_p), begin, end)
            if status != 0:
                raise BoardError(f"uc_hook_add({fn_name}) failed: {UcError(status)}")

        native(UC_HOOK_BLOCK, "rv32_on_block")
        native(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, "rv32_on_mem")
        if self._divs:
            native(UC_HOOK_CODE, "rv32_on_code", min(self._divs), max(self._divs))
        native(UC_HOOK_INTR, "rv32_on_intr")
        uc.hook_add(UC_HOOK_MEM_INVALID, self._on_bad_access)
        for pc in self._counter_reads:
            uc.hook_add(UC_HOOK_CODE, self._on_counter_read, begin=pc, end=pc)
        for pc in self._forbidden:
            uc.hook_add(UC_HOOK_CODE, self._on_forbidden, begin=pc, end=pc)

    # -- calling -----------------------------------------------------------------------------------

    def call(self, symbol: str, args: Sequence[Arg] = (), *, trace: bool = False,
             max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, ret_size: int = 0,
             taint: TaintSpec | None = None) -> CallResult:
        if self.image is None:
            raise BoardError("no firmware loaded")
        image, uc = self.image, self._uc
        entry = image.address_of(symbol) & ~1
        if not FLASH_BASE <= entry < FLASH_BASE + FLASH_SIZE:
            raise BoardError(f"{symbol} at 0x{entry:x} is not in the flash window")
        ret_size = ret_size or 4
        if ret_size not in (1, 2, 4, 8):
            raise BoardError(f"unsupported return size {ret_size}")
        free_start = self._free_start
        stack_top = image.address_of("__mcu_stack_top")
        scalars, placed, stack_floor = place_buffers(args, free_start, stack_top - MIN_STACK)
        marshalled = marshal_riscv_ilp32(scalars)

        # Memory: the DTIM as loaded (so every call starts from the same state), then the buffers,
        # then the painted stack with the stack-passed arguments at sp (16-byte aligned, ilp32).
        uc.mem_write(DTIM_BASE, self._dtim_image)
        for p in placed:
            addr, data = buffer_image(p)
            uc.mem_write(addr, data)
        sp = (stack_top - len(marshalled.stack)) & ~15
        paint_base = (stack_floor + 3) & ~3
        if paint_base >= sp:
            raise BoardError("no stack left after placing the buffers")
        uc.mem_write(paint_base, bytes([STACK_PAINT]) * (sp - paint_base))
        uc.mem_write(sp, marshalled.stack)

        regs = {n: 0 for n in range(1, 32)}
        regs.update(marshalled.registers)
        regs[1], regs[2] = SENTINEL, sp
        if "__global_pointer$" in image.symbols:
            regs[3] = image.symbols["__global_pointer$"]
        for n, v in regs.items():
            self._regs.write(_XREG[n], v)

        model = self.model
        model.reset(SENTINEL, keep_predictor=self.warm_predictor)
        tr = Trace() if trace else None
        model.variable_latency = tr.variable_latency if tr is not None else None
        hooks = self._add_trace_hooks(tr) if tr is not None else []
        tainter = None
        if taint is not None:       # the taint engine (taint_rv32.py): a hook before every instruction
            tainter = taint_rv32.attach(self, taint, args, placed, sp, [(DTIM_BASE, DTIM_SIZE)])
        else:
            taint_rv32.drop_native_hook(self)
        self._stop: BoardFault | None = None
        try:
            self._run(entry, max_instructions)
        finally:
            for h in hooks:
                uc.hook_del(h)
            if tainter is not None:
                tainter.detach()
            if hooks or (tainter is not None and tainter.needs_flush):
                uc.ctl_flush_tb()
        model.finish(SENTINEL)

        for p in placed:
            addr, data = buffer_image(p)
            check_canaries(p, bytes(uc.mem_read(addr, len(data))), symbol)
        painted = bytes(uc.mem_read(paint_base, sp - paint_base))
        a0, a1 = self._regs.read(_XREG[10]), self._regs.read(_XREG[11])
        value = (a0 | a1 << 32) if ret_size == 8 else a0 & ((1 << (8 * ret_size)) - 1)
        return CallResult(
            outputs=[bytes(uc.mem_read(p.address, p.buf.length)) for p in placed if p.buf.out],
            return_value=value, cycles=model.cycles, instructions=model.instructions,
            stack_bytes=stack_high_water(painted, paint_base, sp), trace=tr,
            taint=tainter.result() if tainter is not None else None,
            declassified=tainter.collector.declassified if tainter is not None else None,
            executed=tainter.executed() if tainter is not None else None,
            stack_left=stack_left(painted))

    def _run(self, entry: int, max_instructions: int) -> None:
        """Run from ``entry`` until the callee returns to SENTINEL, in chunks, feeding the model."""
        uc, model = self._uc, self.model
        max_instructions = self.instruction_budget(max_instructions)
        pc = entry
        while True:
            budget = max_instructions - model.instructions
            if budget <= 0:
                raise self._fault(f"runaway: no return after {max_instructions} instructions", pc)
            self._reset_recorder()
            try:
                uc.emu_start(pc, SENTINEL, count=min(budget, _CHUNK))
            except UcError as e:
                pc = self._regs.read(rc.UC_RISCV_REG_PC)
                self._drain(pc)
                if self._stop is not None:
                    raise self._stop from None
                ins = self._decode_at(pc)
                # Unicorn reports EBREAK (and C.EBREAK) as an invalid instruction of its own
                reason = "ebreak" if ins.mnemonic in ("ebreak", "c.ebreak") else f"emulation error: {e}"
                raise self._fault(reason, pc) from None
            pc = self._regs.read(rc.UC_RISCV_REG_PC)
            self._drain(pc)
            if self._stop is not None:
                raise self._stop
            if pc == SENTINEL:
                return

    def _reset_recorder(self) -> None:
        rec = self._rec
        rec.n_blocks = rec.n_divs = rec.flash_loads = 0

    def _drain(self, stop_pc: int) -> None:
        """Feed the model what the recorder saw; ``stop_pc`` is where execution stopped (the last block
        may have been cut short there by the instruction budget or a hook)."""
        rec = self._rec
        if rec.fault == 1:
            kind = "store to" if rec.fault_write else "load from"
            self._set_stop(self._fault(f"misaligned {rec.fault_size}-byte {kind} 0x{rec.fault_addr:x}",
                                       rec.fault_pc))
            rec.fault = 0
        elif rec.fault == 2:
            rec.fault = 0
            raise BoardError("rv32 recorder buffer overflow (chunk larger than its buffers)")
        n = rec.n_blocks
        blocks = self._block_buf[: 2 * n]
        if n:
            addr, size = blocks[-2], blocks[-1]
            if addr <= stop_pc < addr + size:
                blocks[-1] = stop_pc - addr
                if stop_pc == addr:
                    del blocks[-2:]
        # The model takes one record per divide in the blocks it is fed; a record left over belongs to a
        # divide at stop_pc whose hook ran before the budget stopped it, and is dropped.
        self.model.feed(blocks, iter(self._div_buf[: 3 * rec.n_divs]))
        if rec.flash_loads:
            self.model.stall(rec.flash_loads * self.params.flash_load_penalty)
        rec.n_blocks = rec.n_divs = rec.flash_loads = 0

    # -- hooks (rare events) ------------------------------------------------------------------------

    def _set_stop(self, fault: BoardFault) -> None:
        if self._stop is None:
            self._stop = fault

    def _fault(self, reason: str, pc: int) -> BoardFault:
        return BoardFault(reason, pc=pc, symbol=self.symbol_at(pc), instruction=self.disassemble(pc))

    def _trapping_instruction(self) -> int | None:
        """QEMU ends a translation block at an instruction that traps (illegal, ecall, ebreak), so the
        trapping instruction is the last one of the last recorded block."""
        rec = self._rec
        if rec.n_blocks == 0:
            return None
        addr, size = self._block_buf[2 * rec.n_blocks - 2], self._block_buf[2 * rec.n_blocks - 1]
        pc = addr
        while True:
            nxt = pc + self._decode_at(pc).length
            if nxt >= addr + size:
                return pc
            pc = nxt

    def _on_trap(self, uc: Uc, cause: int, _user: object) -> None:
        """Unicorn raised exception ``cause`` (mcause numbering). The only one the board handles is an
        illegal instruction (2) that the declared ISA allows: emulate it and continue after it. Called
        from the recorder's rv32_on_intr for the traps it does not execute itself (it runs the swept
        Zbb/Zbkb/Zbkc/xmul64 instructions the same way, in C)."""
        regs = self._regs
        pc = self._trapping_instruction()
        if pc is None:
            pc = regs.read(rc.UC_RISCV_REG_PC)
        ins = self._decode_at(pc)
        if cause == 2 and ins.cls in (rv32_isa.ALU, rv32_isa.CUSTOM) and ins.allowed(self._isa):
            for reg, value in rv32_isa.execute(ins, lambda n: regs.read(_XREG[n]) if n else 0):
                if reg:
                    regs.write(_XREG[reg], value)
            regs.write(rc.UC_RISCV_REG_PC, pc + ins.length)
            return
        reasons = {0: "misaligned instruction fetch", 2: "illegal instruction", 3: "ebreak",
                   8: "ecall", 11: "ecall"}
        reason = reasons.get(cause, f"exception (mcause {cause})")
        if cause == 2 and ins.cls != rv32_isa.ILLEGAL:
            reason += f" (outside the declared ISA {self._isa_text()})"
        self._set_stop(self._fault(reason, pc))
        uc.emu_stop()

    def _on_forbidden(self, uc: Uc, address: int, _size: int, _user: object) -> None:
        """An instruction the declared ISA forbids but Unicorn would execute is about to run."""
        self._set_stop(self._fault(f"illegal instruction (outside the declared ISA {self._isa_text()})",
                                   address))
        uc.emu_stop()

    def _isa_text(self) -> str:
        single = "".join(c for c in "imac" if c in self._isa)
        multi = sorted(e for e in self._isa if len(e) > 1 and e not in ("zicsr", "zifencei"))
        return "_".join(["rv32" + single, *multi])

    def _on_counter_read(self, uc: Uc, address: int, _size: int, _user: object) -> None:
        """Emulate a read of mcycle/minstret (and their user aliases) with the model's counts: bring the
        model up to this instruction, issue it there, write the value, skip the instruction."""
        ins = self._decode_at(address)
        writes = ins.mnemonic in ("csrrw", "csrrwi") or (ins.rs1 if ins.mnemonic in ("csrrs", "csrrc")
                                                           else ins.imm) != 0
        if writes:
            self._set_stop(self._fault("write to a performance counter (not modelled)", address))
            uc.emu_stop()
            return
        self._drain(address)
        issue = self.model.issue_single(address, ins)
        name = rv32_isa.COUNTER_CSRS[ins.csr]
        count = issue if "cycle" in name else self.model.instructions - 1
        value = count >> 32 if name.endswith("h") else count & 0xFFFF_FFFF
        if ins.rd:
            self._regs.write(_XREG[ins.rd], value)
        self._regs.write(rc.UC_RISCV_REG_PC, address + ins.length)

    def _on_bad_access(self, uc: Uc, access: int, address: int, size: int, _value: int,
                       _user: object) -> bool:
        kinds = {UC_MEM_READ_UNMAPPED: "load from unmapped", UC_MEM_WRITE_UNMAPPED: "store to unmapped",
                 UC_MEM_FETCH_UNMAPPED: "fetch from unmapped", UC_MEM_WRITE_PROT: "store to read-only",
                 UC_MEM_READ_PROT: "load from protected", UC_MEM_FETCH_PROT: "fetch from non-executable"}
        pc = self._regs.read(rc.UC_RISCV_REG_PC)
        region = " (flash)" if FLASH_BASE <= address < FLASH_BASE + FLASH_SIZE else ""
        if access in (UC_MEM_FETCH_UNMAPPED, UC_MEM_FETCH_PROT):
            # pc is the bad target itself; name the jump that went there (it ended the last block)
            src = self._trapping_instruction()
            came = f" (jumped to by 0x{src:x} {self.image.symbol_at(src)})" if src is not None else ""
            self._set_stop(self._fault(f"{kinds[access]} address 0x{address:x}{came}", pc))
        else:
            what = kinds.get(access, f"bad access ({access}) to")
            self._set_stop(self._fault(f"{size}-byte {what} address 0x{address:x}{region}", pc))
        return False

    def _add_trace_hooks(self, tr: Trace) -> list[int]:
        """Per-instruction and per-access hooks. Unicorn compiles hook calls into translated blocks, so
        the translation cache is flushed when they are added (and removed, by the caller)."""
        uc = self._uc
        uc.ctl_flush_tb()
        pcs, accesses = tr.pcs, tr.accesses

        def on_code(_uc: Uc, address: int, _size: int, _user: object) -> None:
            pcs.append(address)

        def on_mem(uc_: Uc, access: int, address: int, size: int, _value: int, _user: object) -> None:
            accesses.append(MemAccess(self._regs.read(rc.UC_RISCV_REG_PC), address, size,
                                      access == UC_MEM_WRITE))

        return [uc.hook_add(UC_HOOK_CODE, on_code),
                uc.hook_add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, on_mem)]

    def symbol_at(self, address: int) -> str:
        """'name+0xoff' for an address of the loaded firmware (used by the constant-time checker)."""
        assert self.image is not None
        return self.image.symbol_at(address)

    def disassemble(self, pc: int) -> str:
        """Our decoder's text for the instruction at ``pc`` (Zb*, Zk* and custom instructions included)."""
        try:
            return self._decode_at(pc).text(pc)
        except UcError:
            return "<no instruction: address not mapped>"

    def describe_model(self) -> dict:
        return {"target": self.target,
                "simulator": f"unicorn {unicorn.__version__} (riscv32) + mcucrypt E31 model",
                "isa": self._isa_text(),
                "memory": {"flash": [FLASH_BASE, FLASH_SIZE], "dtim": [DTIM_BASE, DTIM_SIZE]},
                "emulated_extensions": sorted(e for e in self._isa if e not in rv32_isa.NATIVE_EXTENSIONS),
                "custom_instructions": {name: {"latency": ci.latency, "uses_multiplier": ci.uses_multiplier,
                                               "issue_cycles": ci.issue_cycles, "doc": ci.doc}
                                        for ext in sorted(self._isa & set(rv32_isa.CUSTOM_EXTENSIONS))
                                        for name, ci in ((n, rv32_isa.CUSTOM_INSTRUCTIONS[n])
                                                         for n in rv32_isa.CUSTOM_EXTENSIONS[ext])},
                **describe(self.params)}
