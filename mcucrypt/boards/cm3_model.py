# SPDX-License-Identifier: MIT
"""Cycle model of the ARM Cortex-M3 (r2p1) executing from zero-wait-state memory.

Everything the model charges is in one table of parameters, ``Cm3Params``, each field carrying the source
it comes from (``describe()`` lists them). The model has three parts:

* ``decode``: one capstone Thumb instruction -> an ``Op`` record: its timing class, the registers its address
  is computed from, the registers it writes, whether it writes the PC and how (which sets the refill P), and
  whether it is outside the ARMv7-M base instruction set (Unicorn's Cortex-M3 CPU model accepts some DSP
  instructions, e.g. SXTAB; the board faults on them from here).
* ``Cm3Model.step``: the cost of one instruction given ``State``, the little the pipeline remembers of the
  instruction before it (was it a load that a following load can pipeline with, a store whose data phase is
  still on the bus, which registers did it write, was it 16 bits wide). Costs are static given that state, so
  the board computes a basic block's cost once per (block, entry state) and memoizes it.
* the data-dependent parts, charged by the board when they happen: the refill P of a taken branch (depends on
  where it lands), long multiplies and divides (depend on operand values), unaligned accesses (depend on the
  address).

Sources (cited by short name in the parameter table):
  [TRM]      ARM Cortex-M3 Technical Reference Manual r2p1 (ARM DDI 0337I / 100165_0201), Table 3-1 and §3.3.2
             "Load/store timings"; the same text is reproduced in TI SWCU192 (CC13xx/CC26xx TRM).
  [TRM-r1p1] Cortex-M3 TRM r1p1 (DDI 0337E) §18.2 as quoted on the mbed forum (topic 520): "Multiply with 64-bit
             result: 3-7 cycles ... ABS(inputs) < 64K terminates early ... MLAL versions take four to seven
             cycles and MULL versions take three to five cycles. For MLAL, the signed version is one cycle
             longer than the unsigned."
  [P003]     shared/papers/003, Table 2 (citing ARM): UMULL 3 cycles if either operand is zero or both are
             below 2^16, 4 if exactly one is below 2^16, 5 if both are at or above 2^16.
  [JNK]      jnk0le, "pipeline cycle test", doc/cortex_m3m4.md (DWT.CYCCNT measurements on an STM32F103,
             Cortex-M3): taken bne.w = 2 cycles; immediate-offset stores execute in 1 cycle; a store followed by
             a load costs one more cycle; base/offset registers must be ready one cycle earlier than ALU
             operands; on the M3 a pre/post-indexed load never pipelines behind another load, and a
             pre/post-indexed store takes 1 cycle only when the previous instruction is not a load.
  [CMP]      "Cortex-M4 compendium", compendium.i-0.nl (DWT measurements on a Cortex-M4, whose TRM documents the
             same divider, fetch unit and P as the M3's): division formula; taken branches 2 cycles, 3 when the
             target is a 32-bit instruction that is not word aligned.
  [ARMv7-M]  ARMv7-M Architecture Reference Manual (DDI 0403E) A3.2.1: which accesses may be unaligned.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import NamedTuple

from capstone import CsInsn
from capstone import arm_const as A


def _p(value: int, source: str) -> int:
    return field(default=value, metadata={"source": source})


@dataclass(frozen=True)
class Cm3Params:
    """Every number the model charges. Defaults are the documented Cortex-M3 values; see the module
    docstring for the sources, ``docs/board-armv7m.md`` for the discussion of each choice."""

    # Table 3-1: the base cost of each class (N = registers transferred, P = pipeline refill).
    alu: int = _p(1, "TRM Table 3-1: MOV/ADD/logical/shift/extend/bit-field/REV/CLZ/SSAT = 1")
    mul: int = _p(1, "TRM Table 3-1: MUL = 1")
    mla: int = _p(2, "TRM Table 3-1: MLA, MLS = 2")
    load: int = _p(2, "TRM Table 3-1: LDR/LDRH/LDRB/LDRSH/LDRSB/LDRT/LDREX = 2")
    store_register_offset: int = _p(2, "TRM Table 3-1 STR = 2; JNK: register-offset store executes in 2 cycles")
    store_immediate: int = _p(1, "TRM §3.3.2: 'STR Rx,[Ry,#imm] is always one cycle'; JNK measured 1")
    multiple: int = _p(1, "TRM Table 3-1: LDM/STM/PUSH/POP/LDRD/STRD = 1+N (this is the 1)")
    branch: int = _p(1, "TRM Table 3-1: B/BL/BX/BLX, MOV/ADD pc = 1+P; B<c>/CBZ/CBNZ 1 untaken, 1+P taken")
    load_pc: int = _p(2, "TRM Table 3-1: LDR pc = 2+P")
    table_branch: int = _p(2, "TRM Table 3-1: TBB/TBH = 2+P (§3.3.2 counts one more cycle: see docs)")
    it: int = _p(1, "TRM Table 3-1: IT = 1")
    it_folded: int = _p(0, "TRM Table 3-1 note: IT folds onto a preceding 16-bit instruction, 0 cycles")
    it_failed: int = _p(1, "TRM (cited by issue 33): an instruction of an IT block that fails its condition "
                           "takes one cycle, whatever it would take executed (Table 3-1's counts are for "
                           "executed instructions)")
    system: int = _p(1, "TRM Table 3-1: MRS/MSR/CPSIE/CPSID '1 or 2': the minimum is charged")
    barrier: int = _p(1, "TRM Table 3-1: DMB/DSB = 1+B, B >= 0 (no outstanding transfers: B = 0); ISB = 1+P")
    hint: int = _p(1, "TRM Table 3-1: NOP/SEV/YIELD/CLREX = 1; PLD/PLI (not listed) charged as hints")
    # §3.3.2 pipelining of neighbouring loads and stores.
    load_pipelined: int = _p(1, "TRM §3.3.2: a load after a load whose result it does not use for its "
                                "address costs one cycle less (LDR;LDR = 3, LDR;LDR;LDR = 4)")
    store_register_offset_after_load: int = _p(1, "TRM §3.3.2 example: LDR R0,[R1,R2]; STR R1,[R3,R2] = 3")
    store_writeback_after_load: int = _p(2, "JNK (M3): pre/post-indexed store is 1 cycle only when the "
                                            "previous instruction is not a load")
    store_then_load: int = _p(1, "JNK: a store cannot pipeline with a following load (LDR, LDRD, LDM): +1; "
                                 "TRM §3.3.2: the store's data phase overlaps the next instruction")
    address_dependency: int = _p(1, "TRM §3.3.2: a load/store whose address depends on the preceding "
                                    "instruction's result stalls one cycle (no forwarding path); JNK: base "
                                    "and offset must be ready one cycle earlier")
    load_address_after_load: int = _p(1, "the address-dependency stall of a load whose address register "
                                          "the immediately preceding load wrote (issue 14 suggests 0)")
    flash_wait_states: int = _p(0, "flash data path: cycles added to every data read from flash over the "
                                    "D-code bus (tables and literal pools in flash), the flash wait states "
                                    "(instruction fetch is hidden by the prefetch buffer: not charged). "
                                    "Default 0: the STM32L100C at 16 MHz the peers measured (Ko-/aes-"
                                    "armcortexm common/stm32l1_wrapper.c: flash_waitstates = 0, 64-bit "
                                    "access, prefetch on) and an STM32F1 at 24 MHz (RM0008 §3.3.3: 0 WS up "
                                    "to 24 MHz). CM3_BOARDS lists other parts")
    literal_load: int = _p(0, "TRM §3.3.2: LDR Rx,[PC,#imm] 'might' add a cycle (fetch contention): not "
                              "charged, no measurement says when")
    unaligned_halfword_split: int = _p(1, "TRM §3.3.2: byte-aligned halfword or halfword-aligned word +1")
    unaligned_byte_split: int = _p(2, "TRM §3.3.2: byte-aligned word +2 (byte, halfword, byte)")
    # P: pipeline refill after a taken branch, 1..3 (TRM Table 3-1 footnote).
    refill_speculated: int = _p(1, "JNK: taken bne.w = 2 = 1+P; CMP: taken branch 2; LLVM ARMScheduleM3: "
                                   "'best case branch taken cost' 2. Used for B, B<c>, BL, CBZ/CBNZ, BX, BLX, "
                                   "MOV/ADD pc (target known at decode)")
    refill_loaded: int = _p(3, "TRM §3.3.2: LDR PC and TBB/TBH need 'three cycles for the pipeline reload' "
                               "(target comes from memory, cannot be speculated); also POP/LDM with pc")
    refill_wide_unaligned: int = _p(1, "TRM: P depends on alignment and width of the target; CMP: +1 when "
                                       "the target is a 32-bit instruction at an address = 2 mod 4")
    refill_max: int = _p(3, "TRM Table 3-1: P ranges from 1 to 3")
    # UMULL/SMULL 3..5, UMLAL/SMLAL 4..7: early termination on operand size.
    mull_short: int = _p(3, "P003 Table 2: either operand zero, or both below 2^16: 3")
    mull_mixed: int = _p(4, "P003 Table 2: one operand below 2^16, the other not: 4")
    mull_long: int = _p(5, "P003 Table 2: both operands at or above 2^16: 5")
    short_operand_bits: int = _p(16, "P003 Table 2 (2^16); TRM-r1p1: 'ABS(inputs) < 64K terminates early' "
                                     "(signed operands: magnitude)")
    umlal_extra: int = _p(1, "TRM-r1p1: MLAL 4..7 vs MULL 3..5; UMLAL = UMULL + 1 (4..6)")
    smlal_extra: int = _p(2, "TRM-r1p1: 'for MLAL, the signed version is one cycle longer' (SMLAL 5..7)")
    # UDIV/SDIV 2..12: early termination on the operands' significant bits.
    divide_trivial: int = _p(2, "CMP: either operand zero: 2 (TRM Table 3-1 minimum)")
    divide_quotient_zero: int = _p(3, "CMP: dividend has fewer significant bits than the divisor: 3")
    divide_base: int = _p(5, "CMP: otherwise 5 + floor((bits(dividend) - bits(divisor)) / 4) "
                             "(max 12 = TRM Table 3-1 maximum)")
    divide_bits_per_cycle: int = _p(4, "CMP: the divider retires 4 quotient bits per cycle")

    def describe(self) -> dict[str, dict[str, object]]:
        """Every parameter with its value and its source, for the provenance of every result."""
        return {f.name: {"value": getattr(self, f.name), "source": f.metadata["source"]} for f in fields(self)}


# Flash wait states per board (the parts' reference manuals); Armv7mBoard(CM3_BOARDS["stm32f1-72mhz"]).
CM3_BOARDS: dict[str, "Cm3Params"] = {}


class Cls(enum.IntEnum):
    """Timing class of an instruction (what Table 3-1 row and §3.3.2 rule apply)."""

    ALU = enum.auto()
    MUL = enum.auto()
    MLA = enum.auto()
    LONG_MULTIPLY = enum.auto()     # UMULL/SMULL/UMLAL/SMLAL: charged from operand values
    DIVIDE = enum.auto()            # UDIV/SDIV: charged from operand values
    LOAD = enum.auto()              # single load (also STREX, which the TRM says pipelines like LDR)
    STORE = enum.auto()             # single store
    LOAD_DOUBLE = enum.auto()       # LDRD
    STORE_DOUBLE = enum.auto()      # STRD
    LOAD_MULTIPLE = enum.auto()     # LDM, LDMDB, POP
    STORE_MULTIPLE = enum.auto()    # STM, STMDB, PUSH
    BRANCH = enum.auto()            # B, B<c>, BL, BX, BLX, CBZ, CBNZ, MOV/ADD pc
    TABLE_BRANCH = enum.auto()      # TBB, TBH
    IT = enum.auto()
    SYSTEM = enum.auto()            # MRS, MSR, CPS
    BARRIER = enum.auto()           # DMB, DSB
    ISB = enum.auto()
    HINT = enum.auto()              # NOP, YIELD, SEV, DBG, CLREX, PLD, PLI
    FAULT = enum.auto()             # the board stops with ``Op.fault`` as the reason


class Refill(enum.IntEnum):
    """How early the fetch unit learns a branch target, which sets the refill P."""

    SPECULATED = 1      # target known at decode: immediate offset or register
    LOADED = 2          # target read from memory: LDR pc, POP/LDM {..pc}, TBB/TBH


_ALU_IDS = {A.ARM_INS_ADC, A.ARM_INS_ADD, A.ARM_INS_ADDW, A.ARM_INS_ADR, A.ARM_INS_AND, A.ARM_INS_ASR,
            A.ARM_INS_BFC, A.ARM_INS_BFI, A.ARM_INS_BIC, A.ARM_INS_CLZ, A.ARM_INS_CMN, A.ARM_INS_CMP,
            A.ARM_INS_EOR, A.ARM_INS_LSL, A.ARM_INS_LSR, A.ARM_INS_MOV, A.ARM_INS_MOVS, A.ARM_INS_MOVT,
            A.ARM_INS_MOVW, A.ARM_INS_MVN, A.ARM_INS_NEG, A.ARM_INS_ORN, A.ARM_INS_ORR, A.ARM_INS_RBIT,
            A.ARM_INS_REV, A.ARM_INS_REV16, A.ARM_INS_REVSH, A.ARM_INS_ROR, A.ARM_INS_RRX, A.ARM_INS_RSB,
            A.ARM_INS_SBC, A.ARM_INS_SBFX, A.ARM_INS_SSAT, A.ARM_INS_SUB, A.ARM_INS_SUBS, A.ARM_INS_SUBW,
            A.ARM_INS_SXTB, A.ARM_INS_SXTH, A.ARM_INS_TEQ, A.ARM_INS_TST, A.ARM_INS_UBFX, A.ARM_INS_USAT,
            A.ARM_INS_UXTB, A.ARM_INS_UXTH}
_LOAD_IDS = {A.ARM_INS_LDR, A.ARM_INS_LDRB, A.ARM_INS_LDRH, A.ARM_INS_LDRSB, A.ARM_INS_LDRSH, A.ARM_INS_LDRT,
             A.ARM_INS_LDRBT, A.ARM_INS_LDRHT, A.ARM_INS_LDRSBT, A.ARM_INS_LDRSHT,
             A.ARM_INS_LDREX, A.ARM_INS_LDREXB, A.ARM_INS_LDREXH,
             A.ARM_INS_STREX, A.ARM_INS_STREXB, A.ARM_INS_STREXH}
_STORE_IDS = {A.ARM_INS_STR, A.ARM_INS_STRB, A.ARM_INS_STRH, A.ARM_INS_STRT, A.ARM_INS_STRBT, A.ARM_INS_STRHT}
_EXCLUSIVE_IDS = {A.ARM_INS_LDREX, A.ARM_INS_LDREXB, A.ARM_INS_LDREXH,
                  A.ARM_INS_STREX, A.ARM_INS_STREXB, A.ARM_INS_STREXH}
_TABLE: dict[int, Cls] = {
    **{i: Cls.ALU for i in _ALU_IDS},
    **{i: Cls.LOAD for i in _LOAD_IDS},
    **{i: Cls.STORE for i in _STORE_IDS},
    A.ARM_INS_MUL: Cls.MUL, A.ARM_INS_MLA: Cls.MLA, A.ARM_INS_MLS: Cls.MLA,
    A.ARM_INS_UMULL: Cls.LONG_MULTIPLY, A.ARM_INS_SMULL: Cls.LONG_MULTIPLY,
    A.ARM_INS_UMLAL: Cls.LONG_MULTIPLY, A.ARM_INS_SMLAL: Cls.LONG_MULTIPLY,
    A.ARM_INS_UDIV: Cls.DIVIDE, A.ARM_INS_SDIV: Cls.DIVIDE,
    A.ARM_INS_LDRD: Cls.LOAD_DOUBLE, A.ARM_INS_STRD: Cls.STORE_DOUBLE,
    A.ARM_INS_LDM: Cls.LOAD_MULTIPLE, A.ARM_INS_LDMDB: Cls.LOAD_MULTIPLE, A.ARM_INS_POP: Cls.LOAD_MULTIPLE,
    A.ARM_INS_STM: Cls.STORE_MULTIPLE, A.ARM_INS_STMDB: Cls.STORE_MULTIPLE, A.ARM_INS_PUSH: Cls.STORE_MULTIPLE,
    A.ARM_INS_B: Cls.BRANCH, A.ARM_INS_BL: Cls.BRANCH, A.ARM_INS_BX: Cls.BRANCH, A.ARM_INS_BLX: Cls.BRANCH,
    A.ARM_INS_CBZ: Cls.BRANCH, A.ARM_INS_CBNZ: Cls.BRANCH,
    A.ARM_INS_TBB: Cls.TABLE_BRANCH, A.ARM_INS_TBH: Cls.TABLE_BRANCH,
    A.ARM_INS_IT: Cls.IT,
    A.ARM_INS_MRS: Cls.SYSTEM, A.ARM_INS_MSR: Cls.SYSTEM, A.ARM_INS_CPS: Cls.SYSTEM,
    A.ARM_INS_DMB: Cls.BARRIER, A.ARM_INS_DSB: Cls.BARRIER, A.ARM_INS_ISB: Cls.ISB,
    A.ARM_INS_HINT: Cls.HINT, A.ARM_INS_NOP: Cls.HINT, A.ARM_INS_YIELD: Cls.HINT, A.ARM_INS_SEV: Cls.HINT,
    A.ARM_INS_DBG: Cls.HINT, A.ARM_INS_CLREX: Cls.HINT, A.ARM_INS_PLD: Cls.HINT, A.ARM_INS_PLI: Cls.HINT,
}
# ARMv7-M instructions a call on this board cannot survive, with the reason the board gives.
_FAULTS: dict[int, str] = {
    A.ARM_INS_SVC: "supervisor call: this board has no exception handlers",
    A.ARM_INS_BKPT: "breakpoint instruction",
    A.ARM_INS_UDF: "permanently undefined instruction",
    A.ARM_INS_WFI: "wait for interrupt: this board has no interrupt sources, the core would sleep forever",
    A.ARM_INS_WFE: "wait for event: this board has no event sources, the core would sleep forever",
    **{i: "coprocessor instruction: the Cortex-M3 has no coprocessor (NOCP UsageFault)"
       for i in (A.ARM_INS_CDP, A.ARM_INS_CDP2, A.ARM_INS_LDC, A.ARM_INS_LDC2, A.ARM_INS_LDC2L, A.ARM_INS_LDCL,
                 A.ARM_INS_MCR, A.ARM_INS_MCR2, A.ARM_INS_MCRR, A.ARM_INS_MCRR2, A.ARM_INS_MRC, A.ARM_INS_MRC2,
                 A.ARM_INS_MRRC, A.ARM_INS_MRRC2, A.ARM_INS_STC, A.ARM_INS_STC2, A.ARM_INS_STC2L,
                 A.ARM_INS_STCL)},
}
# Capstone decodes every hint (NOP, YIELD, WFE, WFI, SEV) as ARM_INS_HINT: these two are told by mnemonic.
_HINT_FAULTS = {"wfi": _FAULTS[A.ARM_INS_WFI], "wfe": _FAULTS[A.ARM_INS_WFE]}
_NOT_V7M = "not in the ARMv7-M base instruction set (the Cortex-M3 has no DSP or floating-point extension)"
_VARIABLE_NAMES = {A.ARM_INS_UMULL: "umull", A.ARM_INS_SMULL: "smull", A.ARM_INS_UMLAL: "umlal",
                   A.ARM_INS_SMLAL: "smlal", A.ARM_INS_UDIV: "udiv", A.ARM_INS_SDIV: "sdiv"}
_REG_NUMBER = {**{getattr(A, f"ARM_REG_R{i}"): i for i in range(13)},
               A.ARM_REG_SP: 13, A.ARM_REG_LR: 14, A.ARM_REG_PC: 15}
PC = 15
_PC_BIT = 1 << PC
_SP_BIT = 1 << 13


class Op(NamedTuple):
    """One decoded instruction, reduced to what the timing model and the board need."""

    address: int
    size: int                   # 2 or 4 bytes
    text: str                   # "umull r0, r1, r2, r3", for messages and traces
    cls: Cls
    count: int                  # registers transferred (LDM/STM/PUSH/POP, LDRD/STRD = 2), IT: its block's
    #                             instructions, else 0
    address_regs: int           # bit mask of the registers the address is computed from (PC excluded)
    written: int                # bit mask of r0..r14 written (results, loaded registers, base writeback)
    writeback: bool             # base register updated (pre/post-indexed, LDM/STM with !)
    register_offset: bool       # [Rn, Rm{, LSL #n}] addressing
    literal: bool               # PC-relative load
    must_align: bool            # an unaligned address is a UsageFault (ARMv7-M A3.2.1)
    refill: Refill | None       # set when the instruction may write the PC
    conditional: bool           # B<c>, CBZ/CBNZ, or a PC-writer inside an IT block
    cc: int                     # capstone ARM_CC_* condition of a conditional PC-writer other than CBZ/CBNZ
    zero_test: tuple[int, bool] | None  # CBZ/CBNZ: (register tested, branches when zero)
    target: int | None          # static branch target (B, BL, CBZ/CBNZ), else None
    variable: str | None        # "umull"/"smull"/"umlal"/"smlal"/"udiv"/"sdiv": charged from operand values
    operands: tuple[int, int]   # register numbers whose values set a variable latency (Rn, Rm)
    fault: str | None           # why the board must stop before executing this instruction


def decode(insn: CsInsn) -> Op:
    """Reduce a capstone instruction (Thumb, ``detail`` on) to an ``Op``."""
    iid = insn.id
    text = f"{insn.mnemonic} {insn.op_str}".strip()
    cls = _TABLE.get(iid)
    fault = None
    if cls is None:
        cls, fault = Cls.FAULT, _FAULTS.get(iid, _NOT_V7M)
    elif iid == A.ARM_INS_HINT and insn.mnemonic.split(".")[0] in _HINT_FAULTS:
        cls, fault = Cls.FAULT, _HINT_FAULTS[insn.mnemonic.split(".")[0]]
    _, regs_written = insn.regs_access()
    written = 0
    for r in regs_written:
        n = _REG_NUMBER.get(r)
        if n is not None:
            written |= 1 << n
    ops = insn.operands
    address_regs = 0
    register_offset = literal = False
    count = 0
    for o in ops:
        if o.type == A.ARM_OP_MEM:
            address_regs |= 1 << _REG_NUMBER[o.mem.base]
            literal = o.mem.base == A.ARM_REG_PC
            if o.mem.index:
                address_regs |= 1 << _REG_NUMBER[o.mem.index]
                register_offset = True
    if cls in (Cls.LOAD_MULTIPLE, Cls.STORE_MULTIPLE):
        if iid in (A.ARM_INS_PUSH, A.ARM_INS_POP):
            address_regs, count = _SP_BIT, len(ops)
        else:
            address_regs, count = 1 << _REG_NUMBER[ops[0].reg], len(ops) - 1
    elif cls in (Cls.LOAD_DOUBLE, Cls.STORE_DOUBLE):
        count = 2
    elif cls is Cls.IT:
        count = len(insn.mnemonic) - 1          # it, itt, ite, ittee...: the instructions of its block
    refill = None
    target = None
    writes_pc = bool(written & _PC_BIT)
    if cls in (Cls.BRANCH, Cls.ALU) and (writes_pc or cls is Cls.BRANCH):
        cls, refill = Cls.BRANCH, Refill.SPECULATED
        if iid in (A.ARM_INS_B, A.ARM_INS_BL, A.ARM_INS_CBZ, A.ARM_INS_CBNZ):
            target = ops[-1].imm
    elif cls is Cls.TABLE_BRANCH or (writes_pc and cls in (Cls.LOAD, Cls.LOAD_MULTIPLE)):
        refill = Refill.LOADED
    elif writes_pc and cls is not Cls.FAULT:
        cls, fault = Cls.FAULT, "writes the PC in a way the ARMv7-M architecture makes UNPREDICTABLE"
    zero_test = None
    if iid in (A.ARM_INS_CBZ, A.ARM_INS_CBNZ):
        zero_test = (_REG_NUMBER[ops[0].reg], iid == A.ARM_INS_CBZ)
    conditional = refill is not None and (
        zero_test is not None or insn.cc not in (A.ARM_CC_AL, A.ARM_CC_INVALID))
    variable = _VARIABLE_NAMES.get(iid)
    if variable is None:
        operands = (0, 0)
    elif cls is Cls.LONG_MULTIPLY:      # RdLo, RdHi, Rn, Rm
        operands = (_REG_NUMBER[ops[2].reg], _REG_NUMBER[ops[3].reg])
    else:                               # Rd, Rn, Rm
        operands = (_REG_NUMBER[ops[1].reg], _REG_NUMBER[ops[2].reg])
    must_align = cls in (Cls.LOAD_DOUBLE, Cls.STORE_DOUBLE, Cls.LOAD_MULTIPLE, Cls.STORE_MULTIPLE) or \
        iid in _EXCLUSIVE_IDS
    return Op(insn.address, insn.size, text, cls, count, address_regs & ~_PC_BIT, written & ~_PC_BIT,
              bool(insn.writeback), register_offset, literal, must_align, refill, conditional, insn.cc,
              zero_test, target, variable, operands, fault)


# What the pipeline remembers of the previous instruction.
PREV_OTHER = 0      # nothing that interacts with the next instruction's timing
PREV_LOAD = 1       # a single load: a following independent single load pipelines with it
PREV_STORE = 2      # a single store finished in one cycle: its data phase still occupies the bus


class State(NamedTuple):
    prev: int           # PREV_OTHER / PREV_LOAD / PREV_STORE
    written: int        # registers the previous instruction wrote (address-dependency stall)
    narrow: bool        # the previous instruction was 16 bits wide (IT folding)


# After a taken branch: the refill separates the target from everything before it.
AFTER_REFILL = State(PREV_OTHER, 0, False)


class Cm3Model:
    """The Cortex-M3 timing rules over one parameter set."""

    def __init__(self, params: Cm3Params | None = None):
        self.params = p = params or Cm3Params()
        self._fixed = {Cls.ALU: p.alu, Cls.MUL: p.mul, Cls.MLA: p.mla, Cls.BRANCH: p.branch,
                       Cls.SYSTEM: p.system, Cls.BARRIER: p.barrier, Cls.ISB: p.barrier + p.refill_speculated,
                       Cls.HINT: p.hint, Cls.FAULT: 0}
        self._accumulate_extra = {"umlal": p.umlal_extra, "smlal": p.smlal_extra}

    def step(self, op: Op, s: State) -> tuple[int, State]:
        """Cycles of ``op`` after an instruction that left state ``s``, and the state ``op`` leaves.

        Excluded here, charged by the board when they happen: the refill P of a taken branch, the whole
        cost of long multiplies and divides, unaligned-access penalties."""
        p = self.params
        cls = op.cls
        if cls is Cls.IT:
            if s.narrow:
                return p.it_folded, s       # folded: executes in the shadow of the previous instruction
            return p.it, State(PREV_OTHER, 0, True)
        dependent = op.address_regs & s.written
        stall = 0
        if dependent:
            stall = p.load_address_after_load if cls is Cls.LOAD and s.prev == PREV_LOAD else \
                p.address_dependency
        after_store = p.store_then_load if s.prev == PREV_STORE else 0
        prev = PREV_OTHER
        if cls is Cls.LOAD:
            if op.refill is not None:
                cycles = p.load_pc
            elif s.prev == PREV_LOAD and not dependent and not op.writeback:
                cycles = p.load_pipelined
            else:
                cycles = p.load
            cycles += stall + after_store + (p.literal_load if op.literal else 0)
            prev = PREV_OTHER if op.refill is not None else PREV_LOAD
        elif cls is Cls.STORE:
            # A store that completes in its address cycle leaves its data phase on the bus (PREV_STORE).
            if op.register_offset:
                data_phase_pending = s.prev == PREV_LOAD
                cycles = p.store_register_offset_after_load if data_phase_pending else p.store_register_offset
            elif op.writeback and s.prev == PREV_LOAD:
                data_phase_pending, cycles = False, p.store_writeback_after_load
            else:
                data_phase_pending, cycles = True, p.store_immediate
            prev = PREV_STORE if data_phase_pending else PREV_OTHER
            cycles += stall
        elif cls in (Cls.LOAD_MULTIPLE, Cls.LOAD_DOUBLE, Cls.TABLE_BRANCH):
            base = p.table_branch if cls is Cls.TABLE_BRANCH else p.multiple + op.count
            cycles = base + stall + after_store
        elif cls in (Cls.STORE_MULTIPLE, Cls.STORE_DOUBLE):
            cycles = p.multiple + op.count + stall
        elif cls in (Cls.LONG_MULTIPLY, Cls.DIVIDE):
            cycles = 0                      # charged in full from the operand values
        else:
            cycles = self._fixed[cls]
        return cycles, State(prev, op.written, op.size == 2)

    def skipped(self, op: Op, s: State) -> tuple[int, State]:
        """An IT-block instruction that failed its condition: one cycle, and the pipeline sees a NOP (no
        load to pipeline with, no register written, no store data phase)."""
        return self.params.it_failed, State(PREV_OTHER, 0, op.size == 2)

    def block(self, ops: tuple[Op, ...], entry: State, skipped: frozenset[int] = frozenset()) \
            -> tuple[int, State]:
        """Static cycles of a straight-line run of instructions entered in ``entry``, and the exit state
        (as if a branch at its end were not taken). ``skipped``: indices of IT-block instructions that fail
        their condition (charged by ``skipped``; a long multiply or divide that executes is charged from
        its operands by the board, 0 here)."""
        cycles = 0
        s = entry
        for i, op in enumerate(ops):
            c, s = self.skipped(op, s) if i in skipped else self.step(op, s)
            cycles += c
        return cycles, s

    def refill(self, kind: Refill, target_wide_unaligned: bool) -> int:
        """P for a taken branch of ``kind`` landing on an instruction that is (or not) 32 bits wide at an
        address = 2 mod 4."""
        p = self.params
        base = p.refill_speculated if kind is Refill.SPECULATED else p.refill_loaded
        return min(p.refill_max, base + (p.refill_wide_unaligned if target_wide_unaligned else 0))

    def variable_cycles(self, name: str, a: int, b: int) -> int:
        """Cycles of a long multiply (``a``, ``b`` = Rn, Rm) or divide (``a`` = dividend, ``b`` = divisor)."""
        p = self.params
        signed = name[0] == "s"
        if signed:
            a, b = abs(_signed32(a)), abs(_signed32(b))
        if name.endswith("div"):
            if a == 0 or b == 0:
                return p.divide_trivial
            na, nb = a.bit_length(), b.bit_length()
            if na < nb:
                return p.divide_quotient_zero
            return p.divide_base + (na - nb) // p.divide_bits_per_cycle
        limit = 1 << p.short_operand_bits
        if a == 0 or b == 0:
            cycles = p.mull_short
        else:
            cycles = (p.mull_long, p.mull_mixed, p.mull_short)[(a < limit) + (b < limit)]
        return cycles + self._accumulate_extra.get(name, 0)

    def unaligned_penalty(self, address: int, size: int) -> int:
        """Extra cycles of a single load/store of ``size`` bytes at ``address`` (0 when aligned)."""
        if size == 4:
            if address & 1:
                return self.params.unaligned_byte_split
            return self.params.unaligned_halfword_split if address & 2 else 0
        if size == 2 and address & 1:
            return self.params.unaligned_halfword_split
        return 0


CM3_BOARDS.update({
    "stm32l100c-16mhz": Cm3Params(flash_wait_states=0),   # the peers' board (Ko-/aes-armcortexm)
    "stm32l1-32mhz": Cm3Params(flash_wait_states=1),      # RM0038 Table 13: 1 WS above 16 MHz (range 1)
    "stm32f1-24mhz": Cm3Params(flash_wait_states=0),      # RM0008 §3.3.3: 0 WS for SYSCLK <= 24 MHz
    "stm32f1-72mhz": Cm3Params(flash_wait_states=2),      # RM0008 §3.3.3: 2 WS for 48 < SYSCLK <= 72 MHz
})


def _signed32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v
