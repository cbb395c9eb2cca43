# SPDX-License-Identifier: MIT
"""RV32 instruction decoder, the semantics of the extensions Unicorn lacks, and custom instructions.

One decoder serves three users, which is why it is ours and not capstone's (capstone 5 stops at the first
Zb*/Zk* opcode): the E31 timing model (which registers an instruction reads and writes, which unit it
uses), the fault messages (``Instr.text``), and the emulation of instructions Unicorn's riscv32 CPU does not
execute (Zbb, Zbkb, Zbkc and the custom instructions declared below), which ``execute`` computes.

Coverage: RV32I, M, A, C (every RV32C encoding), Zicsr, Zifencei, Zbb, Zbkb, Zbkc. Encodings of the F/D
extensions are recognised only so that a fault can name them: the E31 has no FPU. Everything else decodes
as ``illegal``.

Custom instructions: ``CustomInstruction`` describes one (encoding, semantics, timing); ``register``
adds it to ``CUSTOM_INSTRUCTIONS`` under an ISA-extension name that firmware declares in its ISA string
(``rv32imac_xmul64``). The shipped extension ``xmul64`` implements the three instructions paper 000 §4.2
proposes for multi-precision multiplication; see docs/board-rv32.md for encodings, timing and an example.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

MASK32 = 0xFFFF_FFFF

ABI_NAMES = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
             "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
             "t5", "t6")

# Timing classes: what the E31 model needs to know about an instruction beyond its registers.
ALU = "alu"            # 1-cycle result (also LUI, AUIPC, Zbb/Zbkb/Zbkc)
LOAD_W = "load_w"      # LW
LOAD_BH = "load_bh"    # LB, LBU, LH, LHU
STORE = "store"
MUL = "mul"            # MUL, MULH, MULHSU, MULHU: the iterative multiplier
DIV = "div"            # DIV, DIVU, REM, REMU: the iterative divider (same unit), operand-dependent
BRANCH = "branch"      # conditional branch
JAL = "jal"
JALR = "jalr"
CSR = "csr"            # Zicsr
AMO = "amo"            # LR/SC/AMO*: a load whose result comes back like LW's
SYSTEM = "system"      # ECALL, EBREAK, MRET, WFI: the board faults on them
FENCE = "fence"
CUSTOM = "custom"      # a registered CustomInstruction; timing comes from its record
ILLEGAL = "illegal"

# Extensions Unicorn's riscv32 CPU executes by itself; any other instruction raises an illegal-instruction
# exception in Unicorn, which the board emulates (if the declared ISA allows it) or reports.
NATIVE_EXTENSIONS = frozenset({"i", "m", "a", "c", "zicsr", "zifencei", "f", "d"})
STANDARD_EXTENSIONS = frozenset({"i", "m", "a", "c", "zicsr", "zifencei", "zbb", "zbkb", "zbkc"})

COUNTER_CSRS = {0xB00: "mcycle", 0xB80: "mcycleh", 0xB02: "minstret", 0xB82: "minstreth",
                0xC00: "cycle", 0xC80: "cycleh", 0xC02: "instret", 0xC82: "instreth"}
_CSR_NAMES = {**COUNTER_CSRS, 0x300: "mstatus", 0x301: "misa", 0x304: "mie", 0x305: "mtvec",
              0x340: "mscratch", 0x341: "mepc", 0x342: "mcause", 0x343: "mtval", 0x344: "mip",
              0xF11: "mvendorid", 0xF12: "marchid", 0xF13: "mimpid", 0xF14: "mhartid"}


@dataclass(frozen=True, slots=True)
class Instr:
    """One decoded instruction.

    ``rd``/``rs1``/``rs2``/``rs3`` are register numbers (0 when the field is unused; x0 is never a real
    dependency). ``rd2`` is a second destination (custom instructions that write a register pair), 0 when
    none. ``imm`` is the sign-extended immediate (branch/jump offsets relative to the instruction),
    ``csr`` the CSR number for Zicsr instructions. ``exts``: the ISA extensions any one of which makes the
    instruction legal (``andn`` is in both Zbb and Zbkb); a compressed instruction needs ``c`` as well."""

    mnemonic: str
    cls: str
    length: int
    raw: int
    exts: frozenset[str]
    rd: int = 0
    rs1: int = 0
    rs2: int = 0
    rs3: int = 0
    rd2: int = 0
    imm: int = 0
    csr: int = -1
    custom: "CustomInstruction | None" = None

    @property
    def compressed(self) -> bool:
        return self.length == 2

    def allowed(self, isa: frozenset[str]) -> bool:
        """Legal on a core implementing the extensions ``isa``?"""
        if self.cls == ILLEGAL:
            return False
        if self.compressed and "c" not in isa:
            return False
        return not self.exts.isdisjoint(isa)

    def text(self, pc: int | None = None) -> str:
        """Assembly text in objdump's no-aliases style (branch targets absolute when ``pc`` is given)."""
        return _format(self, pc)


def _sext(value: int, bits: int) -> int:
    sign = 1 << (bits - 1)
    return (value & (sign - 1)) - (value & sign)


def _bits(word: int, hi: int, lo: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


_I = frozenset({"i"})
_M = frozenset({"m"})
_A = frozenset({"a"})
_ZICSR = frozenset({"zicsr"})
_ZIFENCEI = frozenset({"zifencei"})
_ZBB = frozenset({"zbb"})
_ZBB_ZBKB = frozenset({"zbb", "zbkb"})
_ZBKB = frozenset({"zbkb"})
_ZBKC = frozenset({"zbkc"})
_FD = frozenset({"f", "d"})


def _illegal(raw: int, length: int) -> Instr:
    return Instr("illegal", ILLEGAL, length, raw, frozenset())


def decode(word: int) -> Instr:
    """Decode the instruction whose first bytes, little-endian, are ``word`` (at least 16 bits; 32 bits
    are read when the low two bits say the instruction is not compressed)."""
    if word & 3 != 3:
        return _decode16(word & 0xFFFF)
    return _decode32(word & MASK32)


# ---------------------------------------------------------------------------------------------------
# 32-bit encodings

_BRANCHES = {0: "beq", 1: "bne", 4: "blt", 5: "bge", 6: "bltu", 7: "bgeu"}
_LOADS = {0: ("lb", LOAD_BH), 1: ("lh", LOAD_BH), 2: ("lw", LOAD_W), 4: ("lbu", LOAD_BH),
          5: ("lhu", LOAD_BH)}
_STORES = {0: "sb", 1: "sh", 2: "sw"}
_OP_IMM = {0: "addi", 2: "slti", 3: "sltiu", 4: "xori", 6: "ori", 7: "andi"}
# OP (0x33) keyed by (funct7, funct3): (mnemonic, class, extensions)
_OP: dict[tuple[int, int], tuple[str, str, frozenset[str]]] = {
    (0x00, 0): ("add", ALU, _I), (0x20, 0): ("sub", ALU, _I), (0x00, 1): ("sll", ALU, _I),
    (0x00, 2): ("slt", ALU, _I), (0x00, 3): ("sltu", ALU, _I), (0x00, 4): ("xor", ALU, _I),
    (0x00, 5): ("srl", ALU, _I), (0x20, 5): ("sra", ALU, _I), (0x00, 6): ("or", ALU, _I),
    (0x00, 7): ("and", ALU, _I),
    (0x01, 0): ("mul", MUL, _M), (0x01, 1): ("mulh", MUL, _M), (0x01, 2): ("mulhsu", MUL, _M),
    (0x01, 3): ("mulhu", MUL, _M), (0x01, 4): ("div", DIV, _M), (0x01, 5): ("divu", DIV, _M),
    (0x01, 6): ("rem", DIV, _M), (0x01, 7): ("remu", DIV, _M),
    (0x20, 7): ("andn", ALU, _ZBB_ZBKB), (0x20, 6): ("orn", ALU, _ZBB_ZBKB),
    (0x20, 4): ("xnor", ALU, _ZBB_ZBKB),
    (0x30, 1): ("rol", ALU, _ZBB_ZBKB), (0x30, 5): ("ror", ALU, _ZBB_ZBKB),
    (0x05, 4): ("min", ALU, _ZBB), (0x05, 5): ("minu", ALU, _ZBB), (0x05, 6): ("max", ALU, _ZBB),
    (0x05, 7): ("maxu", ALU, _ZBB),
    (0x04, 4): ("pack", ALU, _ZBKB), (0x04, 7): ("packh", ALU, _ZBKB),
    (0x05, 1): ("clmul", ALU, _ZBKC), (0x05, 3): ("clmulh", ALU, _ZBKC),
}
# OP-IMM unary bit-manipulation instructions keyed by (funct3, imm[11:0])
_OP_IMM_UNARY = {
    (1, 0x600): ("clz", _ZBB), (1, 0x601): ("ctz", _ZBB), (1, 0x602): ("cpop", _ZBB),
    (1, 0x604): ("sext.b", _ZBB), (1, 0x605): ("sext.h", _ZBB), (1, 0x08F): ("zip", _ZBKB),
    (5, 0x287): ("orc.b", _ZBB), (5, 0x698): ("rev8", _ZBB_ZBKB), (5, 0x687): ("brev8", _ZBKB),
    (5, 0x08F): ("unzip", _ZBKB),
}
_AMO = {0x00: "amoadd.w", 0x01: "amoswap.w", 0x04: "amoxor.w", 0x08: "amoor.w", 0x0C: "amoand.w",
        0x10: "amomin.w", 0x14: "amomax.w", 0x18: "amominu.w", 0x1C: "amomaxu.w"}
_CSR_OPS = {1: "csrrw", 2: "csrrs", 3: "csrrc", 5: "csrrwi", 6: "csrrsi", 7: "csrrci"}
_FP_OPCODES = {0x07: "flw/fld", 0x27: "fsw/fsd", 0x43: "fmadd", 0x47: "fmsub", 0x4B: "fnmsub",
               0x4F: "fnmadd", 0x53: "op-fp"}


def _decode32(w: int) -> Instr:
    op = w & 0x7F
    rd, f3, rs1, rs2, f7 = _bits(w, 11, 7), _bits(w, 14, 12), _bits(w, 19, 15), _bits(w, 24, 20), w >> 25
    imm_i = _sext(w >> 20, 12)
    if op == 0x37:
        return Instr("lui", ALU, 4, w, _I, rd=rd, imm=w & 0xFFFFF000)
    if op == 0x17:
        return Instr("auipc", ALU, 4, w, _I, rd=rd, imm=w & 0xFFFFF000)
    if op == 0x6F:
        off = (_bits(w, 31, 31) << 20) | (_bits(w, 19, 12) << 12) | (_bits(w, 20, 20) << 11) | \
              (_bits(w, 30, 21) << 1)
        return Instr("jal", JAL, 4, w, _I, rd=rd, imm=_sext(off, 21))
    if op == 0x67 and f3 == 0:
        return Instr("jalr", JALR, 4, w, _I, rd=rd, rs1=rs1, imm=imm_i)
    if op == 0x63 and f3 in _BRANCHES:
        off = (_bits(w, 31, 31) << 12) | (_bits(w, 7, 7) << 11) | (_bits(w, 30, 25) << 5) | \
              (_bits(w, 11, 8) << 1)
        return Instr(_BRANCHES[f3], BRANCH, 4, w, _I, rs1=rs1, rs2=rs2, imm=_sext(off, 13))
    if op == 0x03 and f3 in _LOADS:
        name, cls = _LOADS[f3]
        return Instr(name, cls, 4, w, _I, rd=rd, rs1=rs1, imm=imm_i)
    if op == 0x23 and f3 in _STORES:
        imm = _sext((f7 << 5) | rd, 12)
        return Instr(_STORES[f3], STORE, 4, w, _I, rs1=rs1, rs2=rs2, imm=imm)
    if op == 0x13:
        if f3 in _OP_IMM:
            return Instr(_OP_IMM[f3], ALU, 4, w, _I, rd=rd, rs1=rs1, imm=imm_i)
        if f3 == 1 and f7 == 0:
            return Instr("slli", ALU, 4, w, _I, rd=rd, rs1=rs1, imm=rs2)
        if f3 == 5 and f7 in (0x00, 0x20, 0x30):
            name, exts = {0x00: ("srli", _I), 0x20: ("srai", _I), 0x30: ("rori", _ZBB_ZBKB)}[f7]
            return Instr(name, ALU, 4, w, exts, rd=rd, rs1=rs1, imm=rs2)
        unary = _OP_IMM_UNARY.get((f3, w >> 20))
        if unary:
            return Instr(unary[0], ALU, 4, w, unary[1], rd=rd, rs1=rs1)
        return _illegal(w, 4)
    if op == 0x33:
        entry = _OP.get((f7, f3))
        if entry is None:
            return _illegal(w, 4)
        name, cls, exts = entry
        if name == "pack" and rs2 == 0:
            # Zbb's zext.h (RV32) is the encoding of Zbkb's pack rd, rs1, zero: legal under either.
            return Instr("zext.h", ALU, 4, w, _ZBB_ZBKB, rd=rd, rs1=rs1)
        return Instr(name, cls, 4, w, exts, rd=rd, rs1=rs1, rs2=rs2)
    if op == 0x0F:
        if f3 == 0:
            return Instr("fence", FENCE, 4, w, _I)
        if f3 == 1:
            return Instr("fence.i", FENCE, 4, w, _ZIFENCEI)
        return _illegal(w, 4)
    if op == 0x73:
        if f3 == 0:
            name = {0x00000073: "ecall", 0x00100073: "ebreak", 0x30200073: "mret",
                    0x10500073: "wfi"}.get(w)
            return Instr(name, SYSTEM, 4, w, _I) if name else _illegal(w, 4)
        if f3 in _CSR_OPS:
            # rs1 holds the register (csrrw/s/c) or the 5-bit immediate (csrr*i) field
            imm_form = f3 >= 5
            return Instr(_CSR_OPS[f3], CSR, 4, w, _ZICSR, rd=rd, rs1=0 if imm_form else rs1,
                         imm=rs1 if imm_form else 0, csr=w >> 20)
        return _illegal(w, 4)
    if op == 0x2F and f3 == 2:
        f5 = w >> 27
        if f5 == 0x02 and rs2 == 0:
            return Instr("lr.w", AMO, 4, w, _A, rd=rd, rs1=rs1)
        if f5 == 0x03:
            return Instr("sc.w", AMO, 4, w, _A, rd=rd, rs1=rs1, rs2=rs2)
        if f5 in _AMO:
            return Instr(_AMO[f5], AMO, 4, w, _A, rd=rd, rs1=rs1, rs2=rs2)
        return _illegal(w, 4)
    if op in _FP_OPCODES:
        return Instr(_FP_OPCODES[op], ILLEGAL, 4, w, _FD)
    if op in _CUSTOM_OPCODES:
        return _decode_custom(w)
    return _illegal(w, 4)


# ---------------------------------------------------------------------------------------------------
# 16-bit encodings (RV32C)

_C = frozenset({"c"})  # compressed: the expanded instruction's extension is implied (all in I)


def _cr(n: int) -> int:
    """Register of a 3-bit compressed field (x8..x15)."""
    return 8 + n


def _cj_offset(h: int) -> int:
    off = (_bits(h, 12, 12) << 11) | (_bits(h, 11, 11) << 4) | (_bits(h, 10, 9) << 8) | \
          (_bits(h, 8, 8) << 10) | (_bits(h, 7, 7) << 6) | (_bits(h, 6, 6) << 7) | \
          (_bits(h, 5, 3) << 1) | (_bits(h, 2, 2) << 5)
    return _sext(off, 12)


def _decode16(h: int) -> Instr:
    quadrant, f3 = h & 3, _bits(h, 15, 13)
    rd_full, rs2_full = _bits(h, 11, 7), _bits(h, 6, 2)
    imm6 = _sext((_bits(h, 12, 12) << 5) | _bits(h, 6, 2), 6)
    I = _I
    if quadrant == 0:
        rdp, rs1p = _cr(_bits(h, 4, 2)), _cr(_bits(h, 9, 7))
        if f3 == 0:
            nzuimm = (_bits(h, 12, 11) << 4) | (_bits(h, 10, 7) << 6) | (_bits(h, 6, 6) << 2) | \
                     (_bits(h, 5, 5) << 3)
            if nzuimm == 0:
                return _illegal(h, 2)
            return Instr("c.addi4spn", ALU, 2, h, I, rd=rdp, rs1=2, imm=nzuimm)
        uimm_w = (_bits(h, 12, 10) << 3) | (_bits(h, 6, 6) << 2) | (_bits(h, 5, 5) << 6)
        if f3 == 2:
            return Instr("c.lw", LOAD_W, 2, h, I, rd=rdp, rs1=rs1p, imm=uimm_w)
        if f3 == 6:
            return Instr("c.sw", STORE, 2, h, I, rs1=rs1p, rs2=rdp, imm=uimm_w)
        if f3 in (1, 3, 5, 7):
            return Instr({1: "c.fld", 3: "c.flw", 5: "c.fsd", 7: "c.fsw"}[f3], ILLEGAL, 2, h, _FD)
        return _illegal(h, 2)
    if quadrant == 1:
        if f3 == 0:
            return Instr("c.nop" if rd_full == 0 else "c.addi", ALU, 2, h, I, rd=rd_full, rs1=rd_full,
                         imm=imm6)
        if f3 == 1:
            return Instr("c.jal", JAL, 2, h, I, rd=1, imm=_cj_offset(h))
        if f3 == 2:
            return Instr("c.li", ALU, 2, h, I, rd=rd_full, imm=imm6)
        if f3 == 3:
            if rd_full == 2:
                nz = (_bits(h, 12, 12) << 9) | (_bits(h, 6, 6) << 4) | (_bits(h, 5, 5) << 6) | \
                     (_bits(h, 4, 3) << 7) | (_bits(h, 2, 2) << 5)
                if nz == 0:
                    return _illegal(h, 2)
                return Instr("c.addi16sp", ALU, 2, h, I, rd=2, rs1=2, imm=_sext(nz, 10))
            if imm6 == 0:
                return _illegal(h, 2)
            return Instr("c.lui", ALU, 2, h, I, rd=rd_full, imm=(imm6 << 12) & MASK32)
        if f3 == 4:
            rdp, rs2p = _cr(_bits(h, 9, 7)), _cr(_bits(h, 4, 2))
            f2 = _bits(h, 11, 10)
            if f2 in (0, 1):
                if _bits(h, 12, 12):
                    return _illegal(h, 2)   # shamt[5] = 1 is reserved on RV32
                return Instr("c.srli" if f2 == 0 else "c.srai", ALU, 2, h, I, rd=rdp, rs1=rdp,
                             imm=_bits(h, 6, 2))
            if f2 == 2:
                return Instr("c.andi", ALU, 2, h, I, rd=rdp, rs1=rdp, imm=imm6)
            if _bits(h, 12, 12):
                return _illegal(h, 2)       # c.subw/c.addw are RV64-only
            name = ("c.sub", "c.xor", "c.or", "c.and")[_bits(h, 6, 5)]
            return Instr(name, ALU, 2, h, I, rd=rdp, rs1=rdp, rs2=rs2p)
        if f3 == 5:
            return Instr("c.j", JAL, 2, h, I, rd=0, imm=_cj_offset(h))
        off = (_bits(h, 12, 12) << 8) | (_bits(h, 11, 10) << 3) | (_bits(h, 6, 5) << 6) | \
              (_bits(h, 4, 3) << 1) | (_bits(h, 2, 2) << 5)
        return Instr("c.beqz" if f3 == 6 else "c.bnez", BRANCH, 2, h, I, rs1=_cr(_bits(h, 9, 7)),
                     imm=_sext(off, 9))
    if quadrant == 2:
        if f3 == 0:
            if _bits(h, 12, 12):
                return _illegal(h, 2)
            return Instr("c.slli", ALU, 2, h, I, rd=rd_full, rs1=rd_full, imm=_bits(h, 6, 2))
        if f3 == 2:
            if rd_full == 0:
                return _illegal(h, 2)
            uimm = (_bits(h, 12, 12) << 5) | (_bits(h, 6, 4) << 2) | (_bits(h, 3, 2) << 6)
            return Instr("c.lwsp", LOAD_W, 2, h, I, rd=rd_full, rs1=2, imm=uimm)
        if f3 == 4:
            if not _bits(h, 12, 12):
                if rs2_full == 0:
                    if rd_full == 0:
                        return _illegal(h, 2)
                    return Instr("c.jr", JALR, 2, h, I, rd=0, rs1=rd_full)
                return Instr("c.mv", ALU, 2, h, I, rd=rd_full, rs2=rs2_full)
            if rs2_full == 0:
                if rd_full == 0:
                    return Instr("c.ebreak", SYSTEM, 2, h, I)
                return Instr("c.jalr", JALR, 2, h, I, rd=1, rs1=rd_full)
            return Instr("c.add", ALU, 2, h, I, rd=rd_full, rs1=rd_full, rs2=rs2_full)
        if f3 == 6:
            uimm = (_bits(h, 12, 9) << 2) | (_bits(h, 8, 7) << 6)
            return Instr("c.swsp", STORE, 2, h, I, rs1=2, rs2=rs2_full, imm=uimm)
        if f3 in (1, 3, 5, 7):
            return Instr({1: "c.fldsp", 3: "c.flwsp", 5: "c.fsdsp", 7: "c.fswsp"}[f3], ILLEGAL, 2, h, _FD)
    return _illegal(h, 2)


# ---------------------------------------------------------------------------------------------------
# Assembly text (for fault messages and the decoder's round-trip test against objdump)

def _r(n: int) -> str:
    return ABI_NAMES[n]


def _format(i: Instr, pc: int | None) -> str:
    m, c = i.mnemonic, i.cls
    if c == ILLEGAL:
        width = "2byte" if i.compressed else "4byte"
        note = f"  # {m} (F/D extension)" if i.exts else ""
        return f".{width} 0x{i.raw:0{2 * i.length}x}{note}"

    def target() -> str:
        return f"0x{(pc + i.imm) & MASK32:x}" if pc is not None else f"{i.imm:+d}"

    if c == CUSTOM:
        assert i.custom is not None
        ops = [_r(i.rd), _r(i.rs1), _r(i.rs2)] + ([_r(i.rs3)] if i.custom.fmt == "r4" else [])
        return f"{m} {','.join(ops)}"
    if c in (LOAD_W, LOAD_BH):
        return f"{m} {_r(i.rd)},{i.imm}({_r(i.rs1)})"
    if c == STORE:
        return f"{m} {_r(i.rs2)},{i.imm}({_r(i.rs1)})"
    if c == AMO:
        if m == "lr.w":
            return f"{m} {_r(i.rd)},({_r(i.rs1)})"
        return f"{m} {_r(i.rd)},{_r(i.rs2)},({_r(i.rs1)})"
    if c == BRANCH:
        if m in ("c.beqz", "c.bnez"):
            return f"{m} {_r(i.rs1)},{target()}"
        return f"{m} {_r(i.rs1)},{_r(i.rs2)},{target()}"
    if c == JAL:
        if m in ("c.j", "c.jal"):
            return f"{m} {target()}"
        return f"{m} {_r(i.rd)},{target()}"
    if c == JALR:
        if m in ("c.jr", "c.jalr"):
            return f"{m} {_r(i.rs1)}"
        return f"{m} {_r(i.rd)},{i.imm}({_r(i.rs1)})"
    if c == CSR:
        csr = _CSR_NAMES.get(i.csr, f"0x{i.csr:x}")
        src = str(i.imm) if m.endswith("i") else _r(i.rs1)
        return f"{m} {_r(i.rd)},{csr},{src}"
    if c in (SYSTEM, FENCE):
        return m if m != "fence" else "fence"
    # ALU / MUL / DIV and their compressed forms
    if m in ("lui", "auipc", "c.lui"):
        return f"{m} {_r(i.rd)},0x{i.imm >> 12:x}"
    if m == "c.nop":
        return m
    if m == "c.li":
        return f"{m} {_r(i.rd)},{i.imm}"
    if m == "c.mv":
        return f"{m} {_r(i.rd)},{_r(i.rs2)}"
    if m in ("c.add", "c.sub", "c.xor", "c.or", "c.and"):
        return f"{m} {_r(i.rd)},{_r(i.rs2)}"
    if m in ("c.addi", "c.andi", "c.slli", "c.srli", "c.srai", "c.addi16sp"):
        return f"{m} {_r(i.rd)},{i.imm}"
    if m == "c.addi4spn":
        return f"{m} {_r(i.rd)},sp,{i.imm}"
    if m in _UNARY_NAMES:
        return f"{m} {_r(i.rd)},{_r(i.rs1)}"
    if i.rs2 or m in _R_TYPE_NAMES:
        return f"{m} {_r(i.rd)},{_r(i.rs1)},{_r(i.rs2)}"
    return f"{m} {_r(i.rd)},{_r(i.rs1)},{i.imm}"


_UNARY_NAMES = frozenset(name for name, _ in _OP_IMM_UNARY.values()) | {"zext.h"}
_R_TYPE_NAMES = frozenset(name for name, _, _ in _OP.values())


# ---------------------------------------------------------------------------------------------------
# Semantics of the standard extensions Unicorn does not execute (Zbb, Zbkb, Zbkc)

def _rol(a: int, s: int) -> int:
    s &= 31
    return ((a << s) | (a >> (32 - s))) & MASK32 if s else a


def _bytes_map(a: int, f: Callable[[int], int]) -> int:
    return sum(f((a >> (8 * k)) & 0xFF) << (8 * k) for k in range(4))


def _clmul64(a: int, b: int) -> int:
    r = 0
    for k in range(32):
        if (b >> k) & 1:
            r ^= a << k
    return r


def _signed(a: int) -> int:
    return a - (1 << 32) if a & 0x8000_0000 else a


def _zip(a: int) -> int:
    return sum((((a >> k) & 1) << (2 * k)) | (((a >> (k + 16)) & 1) << (2 * k + 1)) for k in range(16))


def _unzip(a: int) -> int:
    return sum((((a >> (2 * k)) & 1) << k) | (((a >> (2 * k + 1)) & 1) << (k + 16)) for k in range(16))


# name -> f(rs1 value, rs2 value or shift amount) -> rd value; all operands and results unsigned 32-bit
_EXT_SEMANTICS: dict[str, Callable[[int, int], int]] = {
    "andn": lambda a, b: a & ~b & MASK32,
    "orn": lambda a, b: (a | ~b) & MASK32,
    "xnor": lambda a, b: ~(a ^ b) & MASK32,
    "clz": lambda a, _: 32 - a.bit_length(),
    "ctz": lambda a, _: ((a & -a).bit_length() - 1) if a else 32,
    "cpop": lambda a, _: a.bit_count(),
    "sext.b": lambda a, _: _sext(a, 8) & MASK32,
    "sext.h": lambda a, _: _sext(a, 16) & MASK32,
    "zext.h": lambda a, _: a & 0xFFFF,
    "min": lambda a, b: a if _signed(a) < _signed(b) else b,
    "max": lambda a, b: a if _signed(a) > _signed(b) else b,
    "minu": min,
    "maxu": max,
    "rol": _rol,
    "ror": lambda a, s: _rol(a, 32 - (s & 31)),
    "rori": lambda a, s: _rol(a, 32 - (s & 31)),
    "orc.b": lambda a, _: _bytes_map(a, lambda x: 0xFF if x else 0),
    "rev8": lambda a, _: int.from_bytes(a.to_bytes(4, "little"), "big"),
    "brev8": lambda a, _: _bytes_map(a, lambda x: int(f"{x:08b}"[::-1], 2)),
    "pack": lambda a, b: (a & 0xFFFF) | ((b & 0xFFFF) << 16),
    "packh": lambda a, b: (a & 0xFF) | ((b & 0xFF) << 8),
    "zip": lambda a, _: _zip(a),
    "unzip": lambda a, _: _unzip(a),
    "clmul": lambda a, b: _clmul64(a, b) & MASK32,
    "clmulh": lambda a, b: _clmul64(a, b) >> 32,
}


def execute(instr: Instr, regs: Callable[[int], int]) -> list[tuple[int, int]]:
    """Results of an instruction the board emulates, as (register, value) writes.

    ``regs(n)`` returns the current value of xn. Only instructions outside NATIVE_EXTENSIONS reach here:
    Zbb/Zbkb/Zbkc and registered custom instructions."""
    if instr.cls == CUSTOM:
        ci = instr.custom
        assert ci is not None
        values = ci.semantics(regs(instr.rs1), regs(instr.rs2), regs(instr.rs3) if ci.fmt == "r4" else 0,
                              regs(instr.rd))
        if len(values) != len(ci.destinations):
            raise ValueError(f"{ci.name}: semantics returned {len(values)} values for "
                             f"{len(ci.destinations)} destinations")
        dests = (instr.rd, instr.rd2)[: len(values)]
        return [(r, v & MASK32) for r, v in zip(dests, values)]
    fn = _EXT_SEMANTICS[instr.mnemonic]
    second = instr.imm if instr.mnemonic == "rori" else regs(instr.rs2)
    return [(instr.rd, fn(regs(instr.rs1), second))]


# ---------------------------------------------------------------------------------------------------
# Custom instructions

CUSTOM_0, CUSTOM_1, CUSTOM_2, CUSTOM_3 = 0x0B, 0x2B, 0x5B, 0x7B
_CUSTOM_OPCODES = frozenset({CUSTOM_0, CUSTOM_1, CUSTOM_2, CUSTOM_3})

Semantics = Callable[[int, int, int, int], tuple[int, ...]]


@dataclass(frozen=True)
class CustomInstruction:
    """A custom instruction: its encoding, what it computes, and what it costs on the E31 pipeline.

    Encoding (``fmt``): ``"r"`` is the R-type of ``.insn r OPCODE, funct3, funct7, rd, rs1, rs2``;
    ``"r4"`` the R4-type of ``.insn r4 OPCODE, funct3, funct2, rd, rs1, rs2, rs3`` (``funct`` holds
    funct7 or funct2). ``opcode`` is one of CUSTOM_0..CUSTOM_3.

    ``semantics(rs1, rs2, rs3, rd)`` receives the unsigned 32-bit values of the source registers (rs3 is 0
    for R-type; ``rd`` is the destination's value before the instruction, for accumulating instructions)
    and returns one value per destination: ``(rd,)`` or ``(rd, rd+1)``. ``pair`` instructions write the
    register pair rd, rd+1 and require an even rd other than x0 (as RV32 Zdinx does for its pairs).

    Timing on the E31 model: ``latency`` is the result latency of every destination (cycles from issue to
    the first instruction that can use it; 1 = like an ALU op); ``uses_multiplier`` makes it occupy the
    E31's iterative multiplier for ``latency`` cycles (a following MUL/DIV or multiplier custom
    instruction waits, independent ALU work proceeds); ``reads_rd`` adds rd to its sources (a RAW
    dependency). ``issue_cycles`` is how many issue slots it holds (1 unless the extension is modelled
    without the register-file ports it needs; see docs/board-rv32.md)."""

    name: str
    fmt: str
    opcode: int
    funct3: int
    funct: int
    semantics: Semantics
    latency: int
    uses_multiplier: bool
    pair: bool
    reads_rd: bool = False
    issue_cycles: int = 1
    doc: str = ""
    destinations: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if self.fmt not in ("r", "r4"):
            raise ValueError(f"{self.name}: fmt must be 'r' or 'r4'")
        if self.opcode not in _CUSTOM_OPCODES:
            raise ValueError(f"{self.name}: opcode 0x{self.opcode:x} is not one of CUSTOM_0..CUSTOM_3")
        if not 0 <= self.funct3 < 8 or not 0 <= self.funct < (128 if self.fmt == "r" else 4):
            raise ValueError(f"{self.name}: funct3/funct out of range for {self.fmt}-type")
        if self.latency < 1 or self.issue_cycles < 1:
            raise ValueError(f"{self.name}: latency and issue_cycles must be at least 1")
        object.__setattr__(self, "destinations", ("rd", "rd+1") if self.pair else ("rd",))

    @property
    def key(self) -> tuple[int, int, int, str]:
        return (self.opcode, self.funct3, self.funct, self.fmt)


CUSTOM_INSTRUCTIONS: dict[str, CustomInstruction] = {}
CUSTOM_EXTENSIONS: dict[str, tuple[str, ...]] = {}     # ISA token ('xmul64') -> instruction names
_CUSTOM_BY_ENCODING: dict[tuple[int, int, int, str], tuple[str, CustomInstruction]] = {}


def register(extension: str, *instructions: CustomInstruction) -> None:
    """Declare the custom ISA extension ``extension`` (an ISA-string token starting with 'x') made of
    ``instructions``. Encodings must not collide with an already registered instruction."""
    if not extension.startswith("x") or not extension.isalnum() or extension != extension.lower():
        raise ValueError(f"custom extension name {extension!r} must be lower-case alphanumerics "
                         "starting with 'x'")
    if extension in CUSTOM_EXTENSIONS:
        raise ValueError(f"custom extension {extension!r} already registered")
    table = dict(_CUSTOM_BY_ENCODING)
    for ci in instructions:
        if ci.name in CUSTOM_INSTRUCTIONS or sum(c.name == ci.name for c in instructions) > 1:
            raise ValueError(f"custom instruction {ci.name!r} already registered")
        other = table.get(ci.key) or _overlap(ci, table)
        if other:
            raise ValueError(f"{ci.name}: encoding collides with {other[1].name}")
        table[ci.key] = (extension, ci)
    _CUSTOM_BY_ENCODING.update(table)
    CUSTOM_INSTRUCTIONS.update((ci.name, ci) for ci in instructions)
    CUSTOM_EXTENSIONS[extension] = tuple(ci.name for ci in instructions)


def _overlap(ci: CustomInstruction, table: dict) -> tuple[str, CustomInstruction] | None:
    """An R4 encoding with funct2 f covers the R-type funct7 values whose low two bits are f."""
    for ext, other in table.values():
        if other.opcode != ci.opcode or other.funct3 != ci.funct3 or other.fmt == ci.fmt:
            continue
        r, r4 = (ci, other) if ci.fmt == "r" else (other, ci)
        if r.funct & 3 == r4.funct:
            return ext, other
    return None


def _decode_custom(w: int) -> Instr:
    op, rd, f3 = w & 0x7F, _bits(w, 11, 7), _bits(w, 14, 12)
    rs1, rs2 = _bits(w, 19, 15), _bits(w, 24, 20)
    found = _CUSTOM_BY_ENCODING.get((op, f3, w >> 25, "r")) or \
        _CUSTOM_BY_ENCODING.get((op, f3, _bits(w, 26, 25), "r4"))
    if found is None:
        return _illegal(w, 4)
    ext, ci = found
    if ci.pair and (rd == 0 or rd & 1):
        return _illegal(w, 4)    # reserved: a pair destination must be an even register other than x0
    return Instr(ci.name, CUSTOM, 4, w, frozenset({ext}), rd=rd, rs1=rs1, rs2=rs2,
                 rs3=w >> 27 if ci.fmt == "r4" else 0, rd2=rd + 1 if ci.pair else 0, custom=ci)


# The E31 multiplier retires 8 bits of the multiplier operand per cycle: 32/8 = 4 iteration cycles plus
# one to write back = the manual's 5-cycle MUL latency. Rocket's MulDiv (the E31's open ancestor) keeps the
# whole 2x32-bit product in its remainder register after those iterations (io.resp.full_data), so the
# 64-bit product costs the same 5 cycles; the accumulate of MADDU folds into the adder the iterations
# already use (the multiplier adds a partial product to an accumulator every cycle).
E31_MULTIPLIER_LATENCY = 5


def _mulu64(a: int, b: int, _c: int, _d: int) -> tuple[int, int]:
    p = a * b
    return p & MASK32, p >> 32


def _addc(a: int, b: int, _c: int, _d: int) -> tuple[int, int]:
    s = a + b
    return s & MASK32, s >> 32


def _maddu(a: int, b: int, c: int, d: int) -> tuple[int, int]:
    p = a * b + c + d          # <= (2^32-1)^2 + 2(2^32-1) = 2^64 - 1: never overflows
    return p & MASK32, p >> 32


XMUL64 = (
    CustomInstruction(
        "mulu64", "r", CUSTOM_0, 0b000, 0b0000000, _mulu64, latency=E31_MULTIPLIER_LATENCY,
        uses_multiplier=True, pair=True,
        doc="{rd+1, rd} = rs1 * rs2 (unsigned 32x32->64): MUL and MULHU in one multiplier pass"),
    CustomInstruction(
        "addc", "r", CUSTOM_0, 0b001, 0b0000000, _addc, latency=1, uses_multiplier=False, pair=True,
        doc="rd = (rs1 + rs2) mod 2^32, rd+1 = carry out (0 or 1): ADD and SLTU fused"),
    CustomInstruction(
        "maddu", "r4", CUSTOM_1, 0b000, 0b00, _maddu, latency=E31_MULTIPLIER_LATENCY,
        uses_multiplier=True, pair=True, reads_rd=True,
        doc="{rd+1, rd} = rs1 * rs2 + rs3 + rd (unsigned; cannot overflow 64 bits): multiply-accumulate "
            "into a double word, the carry-out of the low word landing in rd+1"),
)
register("xmul64", *XMUL64)
