# SPDX-License-Identifier: MIT
"""Taint tracking for the armv7m board: Thumb-2 as the board executes it (capstone decodes it), with the
four APSR flags tracked one by one.

Two Python hooks: a code hook before every instruction (register and flag propagation, and every check
that depends only on registers), and a memory hook on every data access (the bytes a load reads and a
store writes, so no addressing mode has to be re-implemented). ``_plan`` builds one closure per address;
the engine is kept per loaded firmware (``reset`` between calls), so an address is planned once.

* data processing: the written registers take the union of the read registers' taints (capstone's
  ``regs_access``); ADC/SBC/RRX also read C. Precision: EOR/SUB of a register with itself is an
  untainted zero, SBC of a register with itself is -(!C) (C's taint only), MOV/MOVW of an immediate is
  untainted;
* flags: an arithmetic instruction that sets flags (ADDS, ADCS, SUBS, SBCS, RSBS, CMP, CMN) gives N, Z, C,
  V its sources' taint; a logical one (ANDS, ORRS, EORS, BICS, MVNS, MOVS, TST, TEQ, MULS) gives N and Z,
  and C too when a shifter produced it (a shift instruction or a shifted register operand); V is kept;
* conditional execution (IT blocks): the instruction reads its condition's flags. A one-cycle
  instruction under a tainted condition is data flow (its destination keeps the old value or takes the
  new one, in one cycle either way on the Cortex-M3: a failed conditional instruction takes one cycle);
  a load, store, BL/BX/BLX, MLA/MLS, long multiply or divide under a tainted condition is a
  ``conditional-execution`` finding (its time depends on whether it executes), B<c> a ``branch``.
  Unicorn calls no code hook for an IT-block instruction that fails its condition: the IT's plan arms
  ``it_pending`` and the next hook first runs the plans of the ones skipped (``_skipped_before``);
* constants: AND #0, BIC r, n, n, ORR #0xffffffff / ORN #0, LSR #32 and LSL/LSR by a public register
  holding 32 or more give an untainted result (a flag-setting shift's C keeps the source's taint).
  Tainted bits per register (``bits``): LDRB/LDRH taint only the bytes read that are tainted, the
  immediate forms of LSR/LSL/AND/BIC/ORR/EOR, UXTB/UXTH, UBFX and MOV map them (``_bit_rule``), anything
  else taints the word; a store taints only the bytes holding tainted bits;
* MRS Rd, APSR: Rd takes N, Z, C, V and Q's taint; MSR APSR_nzcvq, Rn gives them Rn's; SSAT/USAT add
  their operand's taint to Q (sticky); a secret into another special register is ``secret-to-io``;
* loads/stores: a tainted base or index register is an ``address`` finding; a load's destination takes
  the taint of the bytes read (and of the address registers), a store's bytes take the source register's
  taint; LDM/STM/PUSH/POP/LDRD/STRD map their registers to the word accesses in ascending order. A load
  into PC of a tainted word (POP {pc}) is an ``indirect-jump`` finding;
* B<cond>/CBZ/CBNZ on tainted flags/register: ``branch``; BX/BLX/TBB/TBH/MOV pc through a tainted
  register: ``indirect-jump``; UMULL/UMLAL/SMULL/SMLAL/UDIV/SDIV (operand-dependent latency on the
  Cortex-M3) with a tainted multiplicand/divisor operand: ``variable-latency``. MUL/MLA/MLS are
  single-cycle on the Cortex-M3 (data flow only);
* the entry of ``mcu_declassify``: r0's taint is cleared (the only declassification).

Known ones (what lets a forced-class UMULL/UMLAL pass): per register, the bits that are 1 in every
execution. MOV/MOVW of an immediate sets them; ORR keeps its first source's and adds an immediate's or an
unshifted second register's; BFI keeps those outside the inserted field; every other write clears them.
An aligned word store records the stored register's known ones for that word and any other store clears
the bytes it writes; an aligned word load restores them (cm3-umlal-ct keeps its offset limbs in memory).

Known bounds (the same purpose, for offsets added rather than ORed): per register an interval [lo, hi]
that holds in every execution, or none. MOV/MOVW/MVN of an immediate, UBFX (its width), LSR by an
immediate, BFI into a register known to be below the field's top, ADD of two bounded operands (a register
shifted left or right by an immediate, or an immediate) whose upper bounds cannot wrap, and ORR of two
bounded operands; every other write forgets them, and aligned word stores/loads carry them like known
ones. An operand whose lower bound is at least 2^16 cannot shorten UMULL/UMLAL either.
"""
from __future__ import annotations

from typing import Callable

import capstone
from capstone import arm_const as A
from unicorn import UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE
from unicorn import arm_const as U

from .base import (DECLASSIFY_SYMBOL, TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP,
                   TAINT_VARIABLE_LATENCY)
from .taint_common import TAINT_CONDITIONAL, TAINT_IO, ShadowMemory, TaintCollector

N, Z, C, V, Q = range(5)       # Q: the sticky saturation flag (SSAT/USAT set it; MRS/MSR move it)
_GPR = {**{A.ARM_REG_R0 + i: i for i in range(13)}, A.ARM_REG_SP: 13, A.ARM_REG_LR: 14, A.ARM_REG_PC: 15}
_NAMES = [f"r{i}" for i in range(13)] + ["sp", "lr", "pc"]
_UC_GPR = [getattr(U, f"UC_ARM_REG_R{i}") for i in range(13)]
# The flags each condition code reads (ARM_CC_*)
_COND_FLAGS = {A.ARM_CC_EQ: (Z,), A.ARM_CC_NE: (Z,), A.ARM_CC_HS: (C,), A.ARM_CC_LO: (C,), A.ARM_CC_MI: (N,),
               A.ARM_CC_PL: (N,), A.ARM_CC_VS: (V,), A.ARM_CC_VC: (V,), A.ARM_CC_HI: (C, Z),
               A.ARM_CC_LS: (C, Z), A.ARM_CC_GE: (N, V), A.ARM_CC_LT: (N, V), A.ARM_CC_GT: (Z, N, V),
               A.ARM_CC_LE: (Z, N, V)}
_ARITH = {A.ARM_INS_ADD, A.ARM_INS_ADC, A.ARM_INS_SUB, A.ARM_INS_SBC, A.ARM_INS_RSB, A.ARM_INS_CMP,
          A.ARM_INS_CMN, A.ARM_INS_ADDW, A.ARM_INS_SUBW}
_COMPARE = {A.ARM_INS_CMP, A.ARM_INS_CMN, A.ARM_INS_TST, A.ARM_INS_TEQ}
_SHIFTS = {A.ARM_INS_LSL, A.ARM_INS_LSR, A.ARM_INS_ASR, A.ARM_INS_ROR, A.ARM_INS_RRX}
_READS_CARRY = {A.ARM_INS_ADC, A.ARM_INS_SBC, A.ARM_INS_RRX}
_SELF_ZERO = {A.ARM_INS_EOR, A.ARM_INS_SUB}
_LOADS = {A.ARM_INS_LDR, A.ARM_INS_LDRB, A.ARM_INS_LDRH, A.ARM_INS_LDRSB, A.ARM_INS_LDRSH, A.ARM_INS_LDRD,
          A.ARM_INS_LDREX, A.ARM_INS_LDREXB, A.ARM_INS_LDREXH, A.ARM_INS_LDRT, A.ARM_INS_LDRBT,
          A.ARM_INS_LDRHT, A.ARM_INS_LDRSBT, A.ARM_INS_LDRSHT, A.ARM_INS_LDM, A.ARM_INS_LDMDB, A.ARM_INS_POP}
_STORES = {A.ARM_INS_STR, A.ARM_INS_STRB, A.ARM_INS_STRH, A.ARM_INS_STRD, A.ARM_INS_STREX,
           A.ARM_INS_STREXB, A.ARM_INS_STREXH, A.ARM_INS_STRT, A.ARM_INS_STRBT, A.ARM_INS_STRHT,
           A.ARM_INS_STM, A.ARM_INS_STMDB, A.ARM_INS_PUSH}
_MULTI = {A.ARM_INS_LDM, A.ARM_INS_LDMDB, A.ARM_INS_POP, A.ARM_INS_STM, A.ARM_INS_STMDB, A.ARM_INS_PUSH,
          A.ARM_INS_LDRD, A.ARM_INS_STRD}
_BASE_FIRST = {A.ARM_INS_LDM, A.ARM_INS_LDMDB, A.ARM_INS_STM, A.ARM_INS_STMDB}   # operand 0 is the base
# Operand-dependent latency on the Cortex-M3: the operand indices whose values set it
_VARIABLE = {A.ARM_INS_UMULL: (2, 3), A.ARM_INS_UMLAL: (2, 3), A.ARM_INS_SMULL: (2, 3),
             A.ARM_INS_SMLAL: (2, 3), A.ARM_INS_UDIV: (1, 2), A.ARM_INS_SDIV: (1, 2)}
_INDIRECT = {A.ARM_INS_BX, A.ARM_INS_BLX}
# Data processing that takes more than one cycle when executed (TRM Table 3-1: MLA/MLS 2, long multiplies
# 3..7, divides 2..12) while a failed conditional instruction takes one: under secret IT flags, a finding.
_MULTI_CYCLE = {A.ARM_INS_MLA, A.ARM_INS_MLS, *_VARIABLE}
_ALL_ONES = 0xFFFF_FFFF
_CONDITION_TEST = {
    A.ARM_CC_EQ: lambda n, z, c, v: z, A.ARM_CC_NE: lambda n, z, c, v: not z,
    A.ARM_CC_HS: lambda n, z, c, v: c, A.ARM_CC_LO: lambda n, z, c, v: not c,
    A.ARM_CC_MI: lambda n, z, c, v: n, A.ARM_CC_PL: lambda n, z, c, v: not n,
    A.ARM_CC_VS: lambda n, z, c, v: v, A.ARM_CC_VC: lambda n, z, c, v: not v,
    A.ARM_CC_HI: lambda n, z, c, v: c and not z, A.ARM_CC_LS: lambda n, z, c, v: not c or z,
    A.ARM_CC_GE: lambda n, z, c, v: n == v, A.ARM_CC_LT: lambda n, z, c, v: n != v,
    A.ARM_CC_GT: lambda n, z, c, v: not z and n == v, A.ARM_CC_LE: lambda n, z, c, v: z or n != v}


def _bit_rule(insn, imm_ops: list[int]) -> Callable[[int], int] | None:
    """For ``op d, n{, #imm}`` / ``op d, n, #a, #b``: which bits of d can carry taint, from n's tainted
    bits (None: every bit, the default for anything not listed)."""
    iid, ops = insn.id, insn.operands
    if iid == A.ARM_INS_MOV and not imm_ops:
        return lambda b: b
    if iid in (A.ARM_INS_UXTB, A.ARM_INS_UXTH) and not imm_ops:
        m = 0xFF if iid == A.ARM_INS_UXTB else 0xFFFF
        return lambda b: b & m
    if len(imm_ops) == 1:
        k = imm_ops[0]
        if iid == A.ARM_INS_LSR and k < 32:
            return lambda b: b >> k
        if iid == A.ARM_INS_LSL and k < 32:
            return lambda b: (b << k) & _ALL_ONES
        if iid == A.ARM_INS_AND:
            return lambda b: b & k
        if iid == A.ARM_INS_BIC:
            return lambda b: b & ~k & _ALL_ONES
        if iid == A.ARM_INS_ORR:
            return lambda b: b & ~k & _ALL_ONES
        if iid == A.ARM_INS_EOR:
            return lambda b: b
    if iid == A.ARM_INS_UBFX and len(imm_ops) == 2:
        lsb, width = imm_ops
        return lambda b: (b >> lsb) & ((1 << width) - 1)
    return None


class Armv7mTaint:
    """Shadow state of one call on an ``Armv7mBoard`` (created by ``Armv7mBoard.call(..., taint=...)``)."""

    def __init__(self, board, collector: TaintCollector, regs: list[int], memory: ShadowMemory):
        self.board = board
        self.collector = collector
        self.regs = regs                  # r0..r12, sp, lr, pc: label masks (pc stays 0)
        self.flags = [0, 0, 0, 0, 0]      # N, Z, C, V, Q
        # Bits known to be 1 in every execution (ORR/MOV of an immediate): UMULL's latency depends only on
        # whether each operand is below 2^16, so an operand with a known 1 at or above bit 16 cannot
        # shorten it, whatever its tainted bits (operand fixing, as cm3-umull-ct does).
        self.known_ones = [0] * 16
        # Per register, the bits that can carry its taint (meaningful while tainted): LDRB taints bits
        # 0..7 only, so LSR #8, AND #0xff00 or ORR #0xff of it is a constant; see _BIT_RULES.
        self.bits = [_ALL_ONES] * 16
        self.known_mem: dict[int, int] = {}   # aligned word address -> known ones of the word stored there
        # Known bounds: (lo, hi) with lo <= value <= hi in every execution, or None (any 32-bit value).
        self.bounds: list[tuple[int, int] | None] = [None] * 16
        self.bounds_mem: dict[int, tuple[int, int]] = {}
        self.mem = memory
        self.plans: dict[int, Callable[[], None]] = {}
        self.executed: set[int] = set()           # this call's instructions, run or skipped (coverage)
        self.conditions: dict[int, int] = {}      # address -> condition of an instruction in an IT block
        self.it_blocks: dict[int, list[int]] = {}  # IT address -> the addresses of its block
        self.it_pending: list[int] = []           # the rest of the IT block now executing
        self.pending: tuple | None = None         # the memory instruction now executing
        self.cs = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
        self.cs.detail = True
        self.declassify = board._image.symbols.get(DECLASSIFY_SYMBOL, -1) & ~1
        self.instructions = 0
        self.uc, self.image = board._uc, board._image

    def reset(self, collector: TaintCollector, regs: list[int], memory: ShadowMemory) -> None:
        """Start another call on the same firmware: the plans (closures over the state lists, which are
        reset in place) and the decoded IT blocks are kept, so each address is decoded and planned once
        per loaded firmware rather than once per call (for unrolled code, nearly all of a call's time)."""
        self.collector = collector
        self.regs[:] = regs
        self.flags[:] = [0] * 5
        self.known_ones[:] = [0] * 16
        self.bits[:] = [_ALL_ONES] * 16
        self.known_mem.clear()
        self.bounds[:] = [None] * 16
        self.bounds_mem.clear()
        self.mem = memory
        self.it_pending = []
        self.pending = None
        self.instructions = 0
        self.executed = set()

    def _report(self, kind: str, pc: int, mask: int, detail: str = "") -> None:
        self.collector.report(kind, pc, mask, detail)

    def hook(self, uc) -> list[int]:
        return [uc.hook_add(UC_HOOK_CODE, self._on_code),
                uc.hook_add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, self._on_mem)]

    def _on_code(self, _uc, address: int, _size: int, _user) -> None:
        self.pending = None
        if self.it_pending:
            self._skipped_before(address)
        plan = self.plans.get(address)
        if plan is None:
            plan = self.plans[address] = self._plan(address)
        self.instructions += 1
        self.executed.add(address)
        plan()

    def _skipped_before(self, address: int) -> None:
        """Run the plans of the IT-block instructions that failed their condition before ``address``.

        Unicorn calls no code hook for an instruction of an IT block whose condition fails: the next hook
        is at the next instruction that executes. Each skipped one still runs its plan here, on the flags
        it was skipped on (only skipped instructions lie between), so a conditional select leaves its
        destination with the flags' taint and a skipped call, load or multiply is reported."""
        pending = self.it_pending
        while pending:
            skipped = pending.pop(0)
            if skipped == address:
                return
            plan = self.plans.get(skipped)
            if plan is None:
                plan = self.plans[skipped] = self._plan(skipped)
            self.executed.add(skipped)
            plan()
            self.pending = None

    def _on_mem(self, _uc, access: int, address: int, size: int, _value: int, _user) -> None:
        p = self.pending
        if p is None:
            if access == UC_MEM_WRITE:
                self._forget_known(address, size)
            return
        op, pc, regs_list, extra, counter, signed = p
        if size == 8 and len(regs_list) > 1:      # a doubleword access: one word per register
            self._on_mem(_uc, access, address, 4, 0, _user)
            self._on_mem(_uc, access, address + 4, 4, 0, _user)
            return
        if len(regs_list) > 1:
            reg = regs_list[min(counter[0], len(regs_list) - 1)]
            counter[0] += 1
        else:
            reg = regs_list[0] if regs_list else -1
        if access == UC_MEM_WRITE:
            if op == "store":
                data = self.regs[reg] if reg >= 0 else 0
                b = self.bits[reg] if reg >= 0 else _ALL_ONES
                if extra or not data or b == _ALL_ONES:
                    self.mem.set(address, size, data | extra)
                else:                   # only the bytes that hold tainted bits
                    for i in range(size):
                        self.mem.set(address + i, 1, data if b >> 8 * i & 0xFF else 0)
            self._forget_known(address, size)
            if op == "store" and reg >= 0 and size == 4 and not address & 3 and self.known_ones[reg]:
                self.known_mem[address] = self.known_ones[reg]
            if op == "store" and reg >= 0 and size == 4 and not address & 3 and self.bounds[reg]:
                self.bounds_mem[address] = self.bounds[reg]
            return
        if op != "load" or reg < 0:
            return
        if reg != 15:
            whole = size == 4 and not address & 3 and (len(regs_list) > 1 or counter[0] == 0)
            self.known_ones[reg] = self.known_mem.get(address, 0) if whole else 0
            self.bounds[reg] = self.bounds_mem.get(address) if whole else None
        t = self.mem.get(address, size) | extra
        if reg == 15:
            if t:
                self.collector.report(TAINT_INDIRECT_JUMP, pc, t, "jump target loaded from tainted memory")
            return
        if len(regs_list) > 1 or counter[0] == 0:
            self.regs[reg] = t
            b = 0
            if t and not extra and not signed:
                for i in range(size):
                    if self.mem.get(address + i, 1):
                        b |= 0xFF << 8 * i
            self.bits[reg] = b if b else _ALL_ONES
            if len(regs_list) == 1:
                counter[0] = 1
        else:                           # a single load split into several accesses
            self.regs[reg] |= t
            self.bits[reg] = _ALL_ONES

    def _forget_known(self, address: int, size: int) -> None:
        if self.known_mem or self.bounds_mem:
            for word in range(address & ~3, address + size, 4):
                self.known_mem.pop(word, None)
                self.bounds_mem.pop(word, None)

    # -- decoding ----------------------------------------------------------------------------------

    def _decode(self, pc: int):
        code = bytes(self.board._uc.mem_read(pc, 4))
        for insn in self.cs.disasm(code, pc, 1):
            if insn.id == A.ARM_INS_IT:       # decode the block with it: capstone gives each its condition
                block = bytes(self.board._uc.mem_read(pc, 2 + 4 * 4))
                inside = []
                for k, inner in enumerate(self.cs.disasm(block, pc, 1 + len(insn.mnemonic) - 1)):
                    if k:
                        self.conditions[inner.address] = inner.cc
                        inside.append(inner.address)
                self.it_blocks[pc] = inside
            return insn
        return None

    # -- one closure per instruction address -------------------------------------------------------

    def _plan(self, pc: int) -> Callable[[], None]:
        insn = self._decode(pc)
        regs, flags, report = self.regs, self.flags, self._report
        bits = self.bits
        declassify = pc == self.declassify

        def declassify_r0() -> None:
            uc = self.board._uc
            self.collector.declassify(regs[0], uc.reg_read(U.UC_ARM_REG_R0), uc.reg_read(U.UC_ARM_REG_LR) & ~1)
            regs[0] = 0
        if insn is None:
            return declassify_r0 if declassify else (lambda: None)
        iid = insn.id
        cond = self.conditions.get(pc, insn.cc)
        cond_flags = _COND_FLAGS.get(cond, ())
        ops = insn.operands
        read_ids, write_ids = insn.regs_access()
        reads = [_GPR[r] for r in read_ids if r in _GPR and _GPR[r] != 15]
        writes = [_GPR[r] for r in write_ids if r in _GPR]
        text = f"{insn.mnemonic} {insn.op_str}"

        def cond_taint() -> int:
            t = 0
            for f in cond_flags:
                t |= flags[f]
            return t

        steps: list[Callable[[], None]] = []
        if declassify:
            steps.append(declassify_r0)
        known = self.known_ones
        written = [r for r in writes if r != 15]
        imm = next((o.imm for o in ops if o.type == A.ARM_OP_IMM), None)
        regs_in = [_GPR[o.reg] for o in ops if o.type == A.ARM_OP_REG and o.reg in _GPR]
        if iid in (A.ARM_INS_MOV, A.ARM_INS_MOVW) and imm is not None and len(written) == 1 and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            d, value = written[0], imm & 0xFFFF_FFFF
            post = lambda: known.__setitem__(d, value)   # noqa: E731
        elif iid == A.ARM_INS_ORR and imm is not None and len(written) == 1 and len(regs_in) in (1, 2) and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            d, src, value = written[0], regs_in[-1], imm & 0xFFFF_FFFF
            post = lambda: known.__setitem__(d, known[src] | value)   # noqa: E731
        elif iid == A.ARM_INS_ORR and imm is None and len(written) == 1 and len(regs_in) in (2, 3) and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            # ORR d, n, m{, shift}: the result has every 1 of n, and of m when m is not shifted.
            reg_ops = [o for o in ops if o.type == A.ARM_OP_REG]
            d, n = written[0], _GPR[reg_ops[-2].reg]
            m = _GPR[reg_ops[-1].reg] if not reg_ops[-1].shift.type else None
            post = lambda: known.__setitem__(d, known[n] | (known[m] if m is not None else 0))   # noqa: E731
        elif iid == A.ARM_INS_BFI and len(written) == 1 and len(ops) == 4 and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            # BFI d, n, #lsb, #width: the bits of d outside the field are unchanged.
            d, field = written[0], ((1 << ops[3].imm) - 1) << ops[2].imm
            post = lambda: known.__setitem__(d, known[d] & ~field)   # noqa: E731
        elif written:
            def post() -> None:
                for r in written:
                    known[r] = 0
        else:
            post = None

        bounds_post = self._bounds_rule(pc, insn, written, imm)
        if bounds_post is not None:
            known_post = post

            def post() -> None:
                if known_post is not None:
                    known_post()
                bounds_post()

        if iid in _LOADS or iid in _STORES:
            mem_op = next((o for o in ops if o.type == A.ARM_OP_MEM), None)
            if mem_op is not None:
                addr_regs = [_GPR[r] for r in (mem_op.mem.base, mem_op.mem.index) if r in _GPR]
            elif iid in (A.ARM_INS_PUSH, A.ARM_INS_POP):
                addr_regs = [13]
            else:
                addr_regs = [_GPR[ops[0].reg]]
            addr_regs = [r for r in addr_regs if r != 15]
            reg_ops = [o for o in ops if o.type == A.ARM_OP_REG]
            if iid in _BASE_FIRST:
                reg_ops = reg_ops[1:]
            is_load = iid in _LOADS
            if is_load:
                data_regs = [_GPR[o.reg] for o in reg_ops if o.access & capstone.CS_AC_WRITE]
                status: list[int] = []
            else:
                status = [_GPR[o.reg] for o in reg_ops if iid in (A.ARM_INS_STREX, A.ARM_INS_STREXB,
                                                                   A.ARM_INS_STREXH) and o is reg_ops[0]]
                data_regs = [_GPR[o.reg] for o in reg_ops if o.access & capstone.CS_AC_READ
                             and _GPR[o.reg] not in status]
            kind = "load" if is_load else "store"
            signed = iid in (A.ARM_INS_LDRSB, A.ARM_INS_LDRSH, A.ARM_INS_LDRSBT, A.ARM_INS_LDRSHT)
            mem_holds = self._condition_holds(self.conditions.get(pc, insn.cc))

            def memory() -> None:
                t = 0
                for r in addr_regs:
                    t |= regs[r]
                if t:
                    report(TAINT_ADDRESS, pc, t, f"{kind} address from "
                           + ", ".join(_NAMES[r] for r in addr_regs if regs[r]))
                c = cond_taint()
                if c:
                    report(TAINT_CONDITIONAL, pc, c, f"conditional {kind} on secret flags (executed: "
                           f"{kind} cycles, skipped: 1)")
                    if not mem_holds():     # skipped: its registers would have been written otherwise
                        for r in data_regs + (addr_regs if insn.writeback else []):
                            regs[r] |= c
                            bits[r] = _ALL_ONES
                for r in status:
                    regs[r] = 0
                self.pending = (kind, pc, data_regs, t, [0], signed)
            steps.append(memory)
        elif iid == A.ARM_INS_B or iid in (A.ARM_INS_CBZ, A.ARM_INS_CBNZ) or \
                (iid in _INDIRECT and ops and ops[0].type == A.ARM_OP_REG) or iid in (A.ARM_INS_TBB,
                                                                                       A.ARM_INS_TBH):
            if iid in (A.ARM_INS_CBZ, A.ARM_INS_CBNZ):
                r = _GPR[ops[0].reg]

                def branch() -> None:
                    if regs[r]:
                        report(TAINT_BRANCH, pc, regs[r], f"condition on {_NAMES[r]}")
            elif iid in (A.ARM_INS_TBB, A.ARM_INS_TBH):
                idx = _GPR.get(ops[0].mem.index, 15)

                def branch() -> None:
                    if idx != 15 and regs[idx]:
                        report(TAINT_INDIRECT_JUMP, pc, regs[idx], f"table index {_NAMES[idx]}")
            elif iid in _INDIRECT:
                r = _GPR[ops[0].reg]

                def branch() -> None:
                    if regs[r]:
                        report(TAINT_INDIRECT_JUMP, pc, regs[r], f"target from {_NAMES[r]}")
                    if iid == A.ARM_INS_BLX:
                        regs[14] = 0
            else:
                def branch() -> None:
                    c = cond_taint()
                    if c:
                        report(TAINT_BRANCH, pc, c, "condition flags "
                               + "".join("NZCV"[f] for f in cond_flags if flags[f]))
            steps.append(branch)
            if iid in (A.ARM_INS_CBZ, A.ARM_INS_CBNZ, A.ARM_INS_TBB, A.ARM_INS_TBH) or iid in _INDIRECT:
                steps.append(self._conditional_check(pc, cond_taint, "branch"))
        elif iid == A.ARM_INS_BL:
            steps.append(self._conditional_check(pc, cond_taint, "call"))
            steps.append(lambda: regs.__setitem__(14, 0))
        elif iid in (A.ARM_INS_MRS, A.ARM_INS_MSR):
            steps.append(self._special_register(pc, insn, cond_taint))
        elif writes or insn.update_flags or iid in _COMPARE:
            steps.append(self._data_processing(pc, insn, reads, writes, cond_taint, text))
        elif iid != A.ARM_INS_IT:       # IT's own condition field is its block's, not a condition on IT
            steps.append(self._conditional_check(pc, cond_taint, "instruction"))
        else:                           # the block's instructions, to run the skipped ones' plans
            block = tuple(self.it_blocks.get(pc, ()))
            steps.append(lambda: setattr(self, "it_pending", list(block)))

        if post is not None:
            steps.append(post)
        if not steps:
            return lambda: None
        if len(steps) == 1:
            return steps[0]
        if len(steps) == 2:
            first, second = steps

            def both() -> None:
                first()
                second()
            return both

        def each() -> None:
            for step in steps:
                step()
        return each

    def _bounds_rule(self, pc: int, insn, written: list[int], imm: int | None) -> Callable[[], None] | None:
        """The closure that updates the written registers' known bounds (see the module docstring)."""
        bounds = self.bounds
        if not written:
            return None
        iid, ops = insn.id, insn.operands
        unconditional = self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID)
        if len(written) != 1 or not unconditional or iid in _LOADS:
            def forget() -> None:
                for r in written:
                    bounds[r] = None
            return forget
        d = written[0]
        full = 0xFFFF_FFFF
        regs = [o for o in ops if o.type == A.ARM_OP_REG and o.reg in _GPR]

        def operand(o) -> Callable[[], tuple[int, int] | None]:
            """The bounds of a register operand after its immediate shift (None: unknown)."""
            r, kind, amount = _GPR[o.reg], o.shift.type, o.shift.value
            if not kind:
                return lambda: bounds[r]
            if kind == A.ARM_SFT_LSR:
                return lambda: (b[0] >> amount, b[1] >> amount) if (b := bounds[r]) else (0, full >> amount)
            if kind == A.ARM_SFT_LSL:
                return lambda: (b[0] << amount, b[1] << amount) if (b := bounds[r]) and \
                    b[1] << amount <= full else None
            return lambda: None

        rule: Callable[[], tuple[int, int] | None] | None = None
        if iid in (A.ARM_INS_MOV, A.ARM_INS_MOVW) and imm is not None and len(regs) == 1:
            v = imm & full
            rule = lambda: (v, v)                                       # noqa: E731
        elif iid == A.ARM_INS_MVN and imm is not None and len(regs) == 1:
            v = ~imm & full
            rule = lambda: (v, v)                                       # noqa: E731
        elif iid == A.ARM_INS_UBFX and len(ops) == 4:
            top = (1 << ops[3].imm) - 1
            rule = lambda: (0, top)                                     # noqa: E731
        elif iid == A.ARM_INS_LSR and imm is not None and len(regs) == 2:
            s, src = imm, _GPR[regs[1].reg]
            rule = lambda: (b[0] >> s, b[1] >> s) if (b := bounds[src]) else (0, full >> s)   # noqa: E731
        elif iid == A.ARM_INS_BFI and len(ops) == 4:
            top = (1 << (ops[2].imm + ops[3].imm)) - 1
            rule = lambda: (0, top) if (b := bounds[d]) and b[1] <= top else None          # noqa: E731
        elif iid in (A.ARM_INS_ADD, A.ARM_INS_ORR) and len(regs) in (2, 3) and \
                not (imm is not None and len(regs) == 3):
            # d, n, m{shift} / d, n, #imm / the two-operand d, m (d = d + m)
            first = operand(regs[1]) if len(regs) == 3 or imm is not None else (lambda: bounds[d])
            if imm is not None:
                v = imm & full
                second: Callable[[], tuple[int, int] | None] = lambda: (v, v)  # noqa: E731
            else:
                second = operand(regs[-1])
            add = iid == A.ARM_INS_ADD

            def rule() -> tuple[int, int] | None:
                x, y = first(), second()
                if x is None or y is None:
                    return None
                if add:
                    return (x[0] + y[0], x[1] + y[1]) if x[1] + y[1] <= full else None
                return max(x[0], y[0]), (1 << max(x[1], y[1]).bit_length()) - 1
        if rule is None:
            return lambda: bounds.__setitem__(d, None)
        return lambda: bounds.__setitem__(d, rule())

    def _special_register(self, pc: int, insn, cond_taint: Callable[[], int]) -> Callable[[], None]:
        """MRS Rd, <psr> reads the flags (N, Z, C, V and the sticky Q) into a register: Rd takes their
        taint. MSR <psr>, Rn writes them back: the flags take Rn's. A secret written to any other special
        register (PRIMASK, BASEPRI, FAULTMASK, CONTROL, MSP, PSP) is a ``secret-to-io`` finding."""
        regs, flags, report = self.regs, self.flags, self._report
        ops = insn.operands
        reg = next((_GPR[o.reg] for o in ops if o.type == A.ARM_OP_REG and o.reg in _GPR), None)
        special = insn.op_str.split(",")[1 if insn.id == A.ARM_INS_MRS else 0].strip().lower()
        is_psr = "psr" in special
        writes_nzcvq = is_psr and ("nzcvq" in special or special in ("apsr", "xpsr", "iapsr", "eapsr"))
        if reg is None:
            return lambda: None
        if insn.id == A.ARM_INS_MRS:
            def mrs() -> None:
                t = (flags[N] | flags[Z] | flags[C] | flags[V] | flags[Q]) if is_psr else 0
                regs[reg] = t | cond_taint()
                self.bits[reg] = _ALL_ONES
            return mrs

        def msr() -> None:
            t = regs[reg]
            if writes_nzcvq:
                for f in range(5):
                    flags[f] = t | cond_taint()
            elif t:
                report(TAINT_IO, pc, t, f"secret written to the special register {special}")
        return msr

    def _condition_holds(self, cond: int) -> Callable[[], bool]:
        """Whether ``cond`` holds on the live APSR (read only for conditional instructions)."""
        uc = self.board._uc
        test = _CONDITION_TEST.get(cond)
        if test is None:
            return lambda: True

        def holds() -> bool:
            psr = uc.reg_read(U.UC_ARM_REG_XPSR)
            return bool(test(psr >> 31 & 1, psr >> 30 & 1, psr >> 29 & 1, psr >> 28 & 1))
        return holds

    def _conditional_check(self, pc: int, cond_taint: Callable[[], int], what: str) -> Callable[[], None]:
        def check() -> None:
            c = cond_taint()
            if c:
                self.collector.report(TAINT_CONDITIONAL, pc, c, f"conditional {what} on secret flags")
        return check

    def _data_processing(self, pc: int, insn, reads: list[int], writes: list[int],
                         cond_taint: Callable[[], int], text: str) -> Callable[[], None]:
        regs, flags, report = self.regs, self.flags, self._report
        uc = self.board._uc
        iid = insn.id
        reg_sources = [_GPR[o.reg] for o in insn.operands
                       if o.type == A.ARM_OP_REG and o.access & capstone.CS_AC_READ and o.reg in _GPR]
        carry_in = iid in _READS_CARRY
        constant = False
        if iid in _SELF_ZERO and len(reg_sources) == 2 and reg_sources[0] == reg_sources[1] and \
                not any(o.shift.type for o in insn.operands if o.type == A.ARM_OP_REG):
            constant = True
        if iid == A.ARM_INS_SBC and len(reg_sources) == 2 and reg_sources[0] == reg_sources[1] and \
                not any(o.shift.type for o in insn.operands if o.type == A.ARM_OP_REG):
            constant = True           # r - r - !C: only the carry remains
        reg_ops = [o for o in insn.operands if o.type == A.ARM_OP_REG]
        imm_ops = [o.imm & _ALL_ONES for o in insn.operands if o.type == A.ARM_OP_IMM]
        unshifted = not any(o.shift.type for o in reg_ops)
        # Values that become constant whatever the secret (see the module docstring)
        if iid == A.ARM_INS_AND and imm_ops == [0] and unshifted:
            constant = True           # x & 0
        if iid == A.ARM_INS_BIC and len(reg_sources) == 2 and reg_sources[0] == reg_sources[1] and unshifted:
            constant = True           # x & ~x
        if (iid == A.ARM_INS_ORR and imm_ops == [_ALL_ONES] or iid == A.ARM_INS_ORN and imm_ops == [0]) \
                and unshifted:
            constant = True           # x | ~0
        carry_only = False            # a flag-setting shift out of the whole word: C keeps the last bit out
        if iid in (A.ARM_INS_LSL, A.ARM_INS_LSR) and imm_ops == [32] and len(reg_ops) == 2:
            carry_only = True
        shift_by: int | None = None
        amount_reg: int | None = None
        shifted = 0
        if iid in (A.ARM_INS_LSL, A.ARM_INS_LSR) and not imm_ops and len(reg_ops) >= 2 and unshifted:
            shift_by = _GPR[reg_ops[-1].reg]          # a shift by a register: constant from 32 on, if public
            shifted = _GPR[reg_ops[-2].reg]
            amount_reg = _UC_GPR[shift_by] if shift_by < 13 else None
        if iid in (A.ARM_INS_SSAT, A.ARM_INS_USAT):       # capstone lists no read for them
            reads = reads + [_GPR[reg_ops[-1].reg]]
        if iid in (A.ARM_INS_UMLAL, A.ARM_INS_SMLAL):     # capstone omits the accumulators' reads
            reads = reads + [_GPR[insn.operands[0].reg], _GPR[insn.operands[1].reg]]
        sources = [] if constant else reads
        bit_rule = None
        if not constant and len(reg_ops) == 2 and _GPR.get(reg_ops[1].reg, 15) < 15 and \
                not reg_ops[1].shift.type and not (_READS_CARRY & {iid}):
            bit_rule = _bit_rule(insn, imm_ops)
        bit_src = _GPR[reg_ops[1].reg] if bit_rule is not None else 0
        bits = self.bits
        dests = [r for r in writes if r != 15]
        pc_written = 15 in writes
        sets_flags = insn.update_flags or iid in _COMPARE
        arith = iid in _ARITH
        shifter = iid in _SHIFTS or any(o.type == A.ARM_OP_REG and o.shift.type for o in insn.operands)
        variable = [_GPR[insn.operands[i].reg] for i in _VARIABLE.get(iid, ())]
        conditional = bool(_COND_FLAGS.get(self.conditions.get(pc, insn.cc)))
        multi_cycle = iid in _MULTI_CYCLE
        saturates = iid in (A.ARM_INS_SSAT, A.ARM_INS_USAT)
        fixed_size = iid in (A.ARM_INS_UMULL, A.ARM_INS_UMLAL)     # unsigned: magnitude = value
        known, bounds = self.known_ones, self.bounds
        holds = self._condition_holds(self.conditions.get(pc, insn.cc))

        def compute() -> None:
            t = 0
            for r in sources:
                t |= regs[r]
            if carry_in:
                t |= flags[C]
            carry = t
            if carry_only:
                carry, t = t, 0
            elif shift_by is not None and amount_reg is not None and not regs[shift_by] and \
                    uc.reg_read(amount_reg) & 0xFF >= 32:
                carry, t = regs[shifted], 0
            if variable:
                v = 0
                for r in variable:
                    v |= regs[r]
                if v and not (fixed_size and all(known[r] >> 16 or ((b := bounds[r]) and b[0] >> 16)
                                                 for r in variable)):
                    report(TAINT_VARIABLE_LATENCY, pc, v, f"{text.split()[0]} operand (operand-dependent "
                                                          f"latency on the Cortex-M3)")
            if conditional:
                c = cond_taint()
                if c and (multi_cycle or pc_written):
                    report(TAINT_CONDITIONAL, pc, c, "conditional multi-cycle instruction on secret flags "
                                                     "(a failed one takes one cycle)")
                if not holds():
                    if c:                   # had the secret flags been otherwise, it would have run
                        for r in dests:
                            regs[r] |= t | c
                            bits[r] = _ALL_ONES
                        if sets_flags:
                            for f in range(4):
                                flags[f] |= t | c
                    return
                if c:
                    for r in dests:
                        regs[r] |= t | c
                        bits[r] = _ALL_ONES
                    if sets_flags:
                        for f in range(4):
                            flags[f] |= t | c
                    return
            if pc_written and t:
                report(TAINT_INDIRECT_JUMP, pc, t, "pc written from a tainted value")
            result = t
            b = _ALL_ONES
            if bit_rule is not None and t:
                b = bit_rule(bits[bit_src])
                if not b:
                    result = 0
            for r in dests:
                regs[r] = result
                bits[r] = b
            if sets_flags:
                flags[N] = flags[Z] = t
                if arith:
                    flags[C] = flags[V] = t
                elif shifter:
                    flags[C] = carry
            if saturates:
                flags[Q] |= t         # sticky: set when the (secret) operand saturates
        return compute


def attach(board, spec, args, placed, sp: int) -> tuple[Armv7mTaint, list[int]]:
    """Seed the shadow state of a call about to start on ``board`` (registers and buffers already
    written) and add its hooks; returns the engine and the hook handles to delete after the call."""
    from .common import marshal_aapcs
    from .taint_common import seed

    collector = TaintCollector(board, spec)
    regs = [0] * 16
    memory = ShadowMemory()
    seed(collector, args, placed, marshal_aapcs, sp, memory, regs)
    engine = getattr(board, "_taint_engine", None)
    if engine is None or engine.uc is not board._uc or engine.image is not board._image:
        engine = board._taint_engine = Armv7mTaint(board, collector, regs, memory)
    else:
        engine.reset(collector, regs, memory)
    board._uc.ctl_flush_tb()          # hooks are compiled into translated blocks
    return engine, engine.hook(board._uc)
