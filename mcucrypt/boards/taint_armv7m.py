# SPDX-License-Identifier: MIT
"""Taint tracking for the armv7m board: Thumb-2 as the board executes it (capstone decodes it), with the
four APSR flags tracked one by one.

Two hooks apply the rules below: a code hook before every instruction (register and flag propagation,
and every check that depends only on registers), and a memory hook on every data access (the bytes a load
reads and a store writes, so no addressing mode has to be re-implemented). ``_plan`` decides, once per
address and loaded firmware, what an instruction does to the shadow state; the engine is kept per loaded
firmware (``reset`` between calls). Two engines run the same plans (the last paragraph): Python closures
(the reference) and C (the default).

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

Two engines run these rules. ``Armv7mTaint`` (Python closures, the reference: its rules are the
specification) and the default, ``NativeArmv7mTaint``: a native Unicorn code hook and memory hook in C
(taint_native.c, ``taint_armv7m_on_code``/``_on_mem``). The C hook meets an address without a plan once per
loaded firmware and calls ``Armv7mTaint._plan`` there, which records beside each of its decisions the
fields of the C plan (``_nat``: which rule, which registers, masks, the known-ones/bounds update); from
then on no Python runs for that instruction. The C hook pushes findings (pc, kind, labels, and the
registers or flags the detail names) into a buffer and Python writes them out after the call, with the
detail text the Python engine writes. MCUCRYPT_TAINT_ENGINE=python (``ct --engine python``) selects the
reference, and a call with more than ``MAX_NATIVE_LABELS`` (32) secret labels uses it too (the C masks are
32-bit); tests/test_taint_engines.py compares the two (whole shadow state, findings, coverage). Speed:
a tainted call with the C hooks runs about as fast as an untainted call on this board (the board's
timing model, a Python block hook, sets the pace); on top of that each distinct address costs about
0.1 ms of planning (capstone decoding, Python) the first time it runs. docs/constant-time.md has the
measured figures.
"""
from __future__ import annotations

import ctypes
from typing import Callable

import capstone
from capstone import arm_const as A
from unicorn import UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE
from unicorn import arm_const as U

from .base import (DECLASSIFY_SYMBOL, TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP,
                   TAINT_VARIABLE_LATENCY, BoardError, TaintFinding, TaintSpec)
from .taint_common import (TAINT_CONDITIONAL, TAINT_IO, ShadowMemory, TaintCollector, engine_choice,
                           native_library)

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


def _bit_params(insn, imm_ops: list[int]) -> tuple[int, int, int] | None:
    """For ``op d, n{, #imm}`` / ``op d, n, #a, #b``: which bits of d can carry taint, from n's tainted
    bits b, as (r, l, m) for ``((b >> r) << l) & m`` (None: every bit, the default for anything not
    listed). One decision for both engines (the C one runs the same formula)."""
    iid = insn.id
    if iid == A.ARM_INS_MOV and not imm_ops:
        return 0, 0, _ALL_ONES
    if iid in (A.ARM_INS_UXTB, A.ARM_INS_UXTH) and not imm_ops:
        return 0, 0, 0xFF if iid == A.ARM_INS_UXTB else 0xFFFF
    if len(imm_ops) == 1:
        k = imm_ops[0]
        if iid == A.ARM_INS_LSR and k < 32:
            return k, 0, _ALL_ONES
        if iid == A.ARM_INS_LSL and k < 32:
            return 0, k, _ALL_ONES
        if iid == A.ARM_INS_AND:
            return 0, 0, k
        if iid in (A.ARM_INS_BIC, A.ARM_INS_ORR):
            return 0, 0, ~k & _ALL_ONES
        if iid == A.ARM_INS_EOR:
            return 0, 0, _ALL_ONES
    if iid == A.ARM_INS_UBFX and len(imm_ops) == 2:
        lsb, width = imm_ops
        return lsb, 0, (1 << width) - 1
    return None


def _bit_rule(insn, imm_ops: list[int]) -> Callable[[int], int] | None:
    params = _bit_params(insn, imm_ops)
    if params is None:
        return None
    r, left, m = params
    return lambda b: ((b >> r) << left) & m


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
        # address -> the fields of the C engine's plan (``_AmPlan``), for the instructions it runs itself
        self.native_fields: dict[int, tuple[int, ...]] = {}
        self._nat: dict = {}
        # address -> (mnemonic, condition flags[, load/store, address registers]): the C engine's findings'
        # detail text is written from these
        self._meta: dict[int, tuple] = {}
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

    def executed_addresses(self) -> frozenset[int]:
        """This call's instructions, run or skipped (coverage)."""
        return frozenset(self.executed)

    def detach(self) -> None:
        """The call is over (the board deletes the hooks ``hook`` returned)."""

    def result(self) -> list[TaintFinding]:
        return self.collector.result()

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
        # The C engine's plan of this address (``_AmPlan``'s fields), recorded beside each decision below
        nat = self._nat = {"op": AM_NOP, "flags": AP_DECLASSIFY if declassify else 0}
        self.native_fields[pc] = nat
        if insn is None:
            return declassify_r0 if declassify else (lambda: None)
        iid = insn.id
        cond = self.conditions.get(pc, insn.cc)
        cond_flags = _COND_FLAGS.get(cond, ())
        nat["cond"] = _ARM_COND.get(cond, 0)
        nat["cond_flags"] = sum(1 << f for f in cond_flags)
        self._meta[pc] = (insn.mnemonic, tuple(cond_flags))
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
        nat["written"] = _mask(written)
        imm = next((o.imm for o in ops if o.type == A.ARM_OP_IMM), None)
        regs_in = [_GPR[o.reg] for o in ops if o.type == A.ARM_OP_REG and o.reg in _GPR]
        if iid in (A.ARM_INS_MOV, A.ARM_INS_MOVW) and imm is not None and len(written) == 1 and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            d, value = written[0], imm & 0xFFFF_FFFF
            post = lambda: known.__setitem__(d, value)   # noqa: E731
            nat["known"] = (AK_SET, d, 0, 0, value)
        elif iid == A.ARM_INS_ORR and imm is not None and len(written) == 1 and len(regs_in) in (1, 2) and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            d, src, value = written[0], regs_in[-1], imm & 0xFFFF_FFFF
            post = lambda: known.__setitem__(d, known[src] | value)   # noqa: E731
            nat["known"] = (AK_ORR_IMM, d, src, 0, value)
        elif iid == A.ARM_INS_ORR and imm is None and len(written) == 1 and len(regs_in) in (2, 3) and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            # ORR d, n, m{, shift}: the result has every 1 of n, and of m when m is not shifted.
            reg_ops = [o for o in ops if o.type == A.ARM_OP_REG]
            d, n = written[0], _GPR[reg_ops[-2].reg]
            m = _GPR[reg_ops[-1].reg] if not reg_ops[-1].shift.type else None
            post = lambda: known.__setitem__(d, known[n] | (known[m] if m is not None else 0))   # noqa: E731
            nat["known"] = (AK_ORR_REG, d, n, 0 if m is None else m + 1, 0)
        elif iid == A.ARM_INS_BFI and len(written) == 1 and len(ops) == 4 and \
                self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID):
            # BFI d, n, #lsb, #width: the bits of d outside the field are unchanged.
            d, field = written[0], ((1 << ops[3].imm) - 1) << ops[2].imm
            post = lambda: known.__setitem__(d, known[d] & ~field)   # noqa: E731
            nat["known"] = (AK_BFI, d, 0, 0, field & _ALL_ONES)
        elif written:
            def post() -> None:
                for r in written:
                    known[r] = 0
            nat["known"] = (AK_FORGET, 0, 0, 0, 0)
        else:
            post = None
            nat["known"] = (AK_NONE, 0, 0, 0, 0)

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
            nat.update(op=AM_MEM, sources=_mask(addr_regs), data=tuple(data_regs), status=_mask(status),
                       flags=nat["flags"] | (AP_WRITEBACK if insn.writeback else 0)
                       | (AP_LOAD if is_load else 0) | (AP_SIGNED if signed else 0))
            self._meta[pc] += (kind, tuple(addr_regs))

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
                nat.update(op=AM_CBZ, reg=r)

                def branch() -> None:
                    if regs[r]:
                        report(TAINT_BRANCH, pc, regs[r], f"condition on {_NAMES[r]}")
            elif iid in (A.ARM_INS_TBB, A.ARM_INS_TBH):
                idx = _GPR.get(ops[0].mem.index, 15)
                nat.update(op=AM_TBB, reg=idx)

                def branch() -> None:
                    if idx != 15 and regs[idx]:
                        report(TAINT_INDIRECT_JUMP, pc, regs[idx], f"table index {_NAMES[idx]}")
            elif iid in _INDIRECT:
                r = _GPR[ops[0].reg]
                nat.update(op=AM_BX, reg=r, flags=nat["flags"] | (AP_BLX if iid == A.ARM_INS_BLX else 0))

                def branch() -> None:
                    if regs[r]:
                        report(TAINT_INDIRECT_JUMP, pc, regs[r], f"target from {_NAMES[r]}")
                    if iid == A.ARM_INS_BLX:
                        regs[14] = 0
            else:
                nat["op"] = AM_B

                def branch() -> None:
                    c = cond_taint()
                    if c:
                        report(TAINT_BRANCH, pc, c, "condition flags "
                               + "".join("NZCV"[f] for f in cond_flags if flags[f]))
            steps.append(branch)
            if iid in (A.ARM_INS_CBZ, A.ARM_INS_CBNZ, A.ARM_INS_TBB, A.ARM_INS_TBH) or iid in _INDIRECT:
                steps.append(self._conditional_check(pc, cond_taint, "branch"))
        elif iid == A.ARM_INS_BL:
            nat["op"] = AM_BL
            steps.append(self._conditional_check(pc, cond_taint, "call"))
            steps.append(lambda: regs.__setitem__(14, 0))
        elif iid in (A.ARM_INS_MRS, A.ARM_INS_MSR):
            steps.append(self._special_register(pc, insn, cond_taint))
        elif writes or insn.update_flags or iid in _COMPARE:
            steps.append(self._data_processing(pc, insn, reads, writes, cond_taint, text))
        elif iid != A.ARM_INS_IT:       # IT's own condition field is its block's, not a condition on IT
            nat["op"] = AM_OTHER
            steps.append(self._conditional_check(pc, cond_taint, "instruction"))
        else:                           # the block's instructions, to run the skipped ones' plans
            block = tuple(self.it_blocks.get(pc, ()))
            nat.update(op=AM_IT, data=tuple((a - pc) >> 1 for a in block))
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
            self._nat["bounds"] = _bounds_fields(AB_NONE)
            return None
        iid, ops = insn.id, insn.operands
        unconditional = self.conditions.get(pc, insn.cc) in (A.ARM_CC_AL, A.ARM_CC_INVALID)
        if len(written) != 1 or not unconditional or iid in _LOADS:
            self._nat["bounds"] = _bounds_fields(AB_FORGET)

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

        def operand_spec(o) -> tuple[int, int, int, int]:
            r, kind, amount = _GPR[o.reg], o.shift.type, o.shift.value
            if not kind:
                return (AO_REG, r, 0, 0)
            if kind in (A.ARM_SFT_LSR, A.ARM_SFT_LSL):
                return (AO_LSR if kind == A.ARM_SFT_LSR else AO_LSL, r, amount, 0)
            return (AO_UNKNOWN, 0, 0, 0)

        spec = _bounds_fields(AB_FORGET, d=d)
        rule: Callable[[], tuple[int, int] | None] | None = None
        if iid in (A.ARM_INS_MOV, A.ARM_INS_MOVW) and imm is not None and len(regs) == 1:
            v = imm & full
            rule = lambda: (v, v)                                       # noqa: E731
            spec = _bounds_fields(AB_SET, d=d, lo=v, hi=v)
        elif iid == A.ARM_INS_MVN and imm is not None and len(regs) == 1:
            v = ~imm & full
            rule = lambda: (v, v)                                       # noqa: E731
            spec = _bounds_fields(AB_SET, d=d, lo=v, hi=v)
        elif iid == A.ARM_INS_UBFX and len(ops) == 4:
            top = (1 << ops[3].imm) - 1
            rule = lambda: (0, top)                                     # noqa: E731
            spec = _bounds_fields(AB_SET, d=d, lo=0, hi=top)
        elif iid == A.ARM_INS_LSR and imm is not None and len(regs) == 2:
            s, src = imm, _GPR[regs[1].reg]
            rule = lambda: (b[0] >> s, b[1] >> s) if (b := bounds[src]) else (0, full >> s)   # noqa: E731
            spec = _bounds_fields(AB_LSR, d=d, src=src, amount=s)
        elif iid == A.ARM_INS_BFI and len(ops) == 4:
            top = (1 << (ops[2].imm + ops[3].imm)) - 1
            rule = lambda: (0, top) if (b := bounds[d]) and b[1] <= top else None          # noqa: E731
            spec = _bounds_fields(AB_BFI, d=d, hi=top)
        elif iid in (A.ARM_INS_ADD, A.ARM_INS_ORR) and len(regs) in (2, 3) and \
                not (imm is not None and len(regs) == 3):
            # d, n, m{shift} / d, n, #imm / the two-operand d, m (d = d + m)
            first = operand(regs[1]) if len(regs) == 3 or imm is not None else (lambda: bounds[d])
            x_spec = operand_spec(regs[1]) if len(regs) == 3 or imm is not None else (AO_REG, d, 0, 0)
            if imm is not None:
                v = imm & full
                second: Callable[[], tuple[int, int] | None] = lambda: (v, v)  # noqa: E731
                y_spec = (AO_IMM, 0, 0, v)
            else:
                second = operand(regs[-1])
                y_spec = operand_spec(regs[-1])
            spec = _bounds_fields(AB_ADD if iid == A.ARM_INS_ADD else AB_ORR, d=d, x=x_spec, y=y_spec)
            add = iid == A.ARM_INS_ADD

            def rule() -> tuple[int, int] | None:
                x, y = first(), second()
                if x is None or y is None:
                    return None
                if add:
                    return (x[0] + y[0], x[1] + y[1]) if x[1] + y[1] <= full else None
                return max(x[0], y[0]), (1 << max(x[1], y[1]).bit_length()) - 1
        self._nat["bounds"] = spec
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
        self._nat.update(op=AM_MRS if insn.id == A.ARM_INS_MRS else AM_MSR, reg=reg,
                         flags=self._nat["flags"] | (AP_PSR if (is_psr if insn.id == A.ARM_INS_MRS
                                                                else writes_nzcvq) else 0))
        self._meta[pc] += (special,)
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
        params = _bit_params(insn, imm_ops) if bit_rule is not None else (0, 0, 0)
        self._nat.update(
            op=AM_DP, sources=_mask(sources), dests=_mask(dests), variable=_mask(variable),
            dp=(AF_CARRY_IN if carry_in else 0) | (AF_CARRY_ONLY if carry_only else 0)
            | (AF_SETS_FLAGS if sets_flags else 0) | (AF_ARITH if arith else 0)
            | (AF_SHIFTER if shifter else 0) | (AF_BITS if bit_rule is not None else 0)
            | (AF_FIXED_SIZE if fixed_size else 0) | (AF_MULTI_CYCLE if multi_cycle else 0)
            | (AF_PC_WRITTEN if pc_written else 0) | (AF_SATURATES if saturates else 0)
            | (AF_SHIFT_BY if amount_reg is not None else 0),
            reg=shift_by if amount_reg is not None else 0, reg2=shifted, bit_src=bit_src, bit_rule=params)

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


def attach(board, spec, args, placed, sp: int) -> tuple[Armv7mTaint | NativeArmv7mTaint, list[int]]:
    """Seed the shadow state of a call about to start on ``board`` (registers and buffers already
    written) and start the engine ``engine_choice()`` names (the Python one when the call has more labels
    than the C engine's masks hold). Returns the engine and the Python hook handles to delete after the
    call (none for the C engine, whose hook stays installed, disabled between calls); after the call:
    ``detach()``, then ``result()``, ``collector.declassified`` and ``executed_addresses()``."""
    from .common import marshal_aapcs
    from .taint_common import seed

    collector = TaintCollector(board, spec)
    regs = [0] * 16
    memory = ShadowMemory()
    seed(collector, args, placed, marshal_aapcs, sp, memory, regs)
    if engine_choice() == "c" and len(collector.labels) <= MAX_NATIVE_LABELS:
        return NativeArmv7mTaint(board, collector, regs, memory), []
    drop_native_hook(board)
    engine = getattr(board, "_taint_engine", None)
    if engine is None or engine.uc is not board._uc or engine.image is not board._image:
        engine = board._taint_engine = Armv7mTaint(board, collector, regs, memory)
    else:
        engine.reset(collector, regs, memory)
    board._uc.ctl_flush_tb()          # hooks are compiled into translated blocks
    return engine, engine.hook(board._uc)


# -- the C engine (taint_native.c's armv7m part) -----------------------------------------------------
# ``Armv7mTaint._plan`` records, beside each of its decisions, the C plan's fields (``_nat``); the C
# hooks only execute them. The differential test (tests/test_taint_engines.py) compares the engines.

MAX_NATIVE_LABELS = 32          # the C engine's masks are 32-bit
AM_NOP, AM_DP, AM_MEM, AM_B, AM_CBZ, AM_TBB, AM_BX, AM_BL, AM_MRS, AM_MSR, AM_OTHER, AM_IT = range(1, 13)
AP_DECLASSIFY, AP_WRITEBACK, AP_LOAD, AP_SIGNED, AP_BLX, AP_PSR = (1 << k for k in range(6))
(AF_CARRY_IN, AF_CARRY_ONLY, AF_SETS_FLAGS, AF_ARITH, AF_SHIFTER, AF_BITS, AF_FIXED_SIZE, AF_MULTI_CYCLE,
 AF_PC_WRITTEN, AF_SATURATES, AF_SHIFT_BY) = (1 << k for k in range(11))
AK_NONE, AK_FORGET, AK_SET, AK_ORR_IMM, AK_ORR_REG, AK_BFI = range(6)
AB_NONE, AB_FORGET, AB_SET, AB_LSR, AB_BFI, AB_ADD, AB_ORR = range(7)
AO_REG, AO_LSR, AO_LSL, AO_UNKNOWN, AO_IMM = range(5)
_KINDS = (TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP, TAINT_VARIABLE_LATENCY, TAINT_CONDITIONAL, TAINT_IO)
# capstone's condition codes -> the ARM encoding + 1 (0: always)
_ARM_COND = {cc: k + 1 for k, cc in enumerate((
    A.ARM_CC_EQ, A.ARM_CC_NE, A.ARM_CC_HS, A.ARM_CC_LO, A.ARM_CC_MI, A.ARM_CC_PL, A.ARM_CC_VS, A.ARM_CC_VC,
    A.ARM_CC_HI, A.ARM_CC_LS, A.ARM_CC_GE, A.ARM_CC_LT, A.ARM_CC_GT, A.ARM_CC_LE))}
_NO_OPERAND = (0, 0, 0, 0)
_FINDINGS_CAP = 1 << 16
_DECLASSIFIED_CAP = 1024     # tainted mcu_declassify calls recorded per call (a kind allows one)


def _mask(regs) -> int:
    m = 0
    for r in regs:
        m |= 1 << r
    return m


def _bounds_fields(kind: int, d: int = 0, src: int = 0, amount: int = 0, lo: int = 0, hi: int = 0,
                   x: tuple = _NO_OPERAND, y: tuple = _NO_OPERAND) -> tuple:
    return (kind, d, src, amount, lo, hi, x, y)


_U8, _U16, _U32 = ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32
_P32 = ctypes.POINTER(_U32)


class _AmOperand(ctypes.Structure):
    _fields_ = [("kind", _U8), ("reg", _U8), ("amount", _U8), ("pad", _U8), ("value", _U32)]


class _AmPlan(ctypes.Structure):
    _fields_ = [("op", _U8), ("flags", _U8), ("cond", _U8), ("cond_flags", _U8),
                ("written", _U16), ("sources", _U16), ("dests", _U16), ("variable", _U16),
                ("dp", _U16), ("status", _U16),
                ("reg", _U8), ("reg2", _U8), ("bit_src", _U8), ("rshift", _U8),
                ("lshift", _U8), ("n_data", _U8), ("known_kind", _U8), ("known_a", _U8),
                ("known_b", _U8), ("known_c", _U8), ("bounds_kind", _U8), ("bounds_d", _U8),
                ("bounds_src", _U8), ("bounds_amount", _U8), ("pad0", _U8), ("pad1", _U8),
                ("bit_mask", _U32), ("known_value", _U32), ("bounds_lo", _U32), ("bounds_hi", _U32),
                ("x", _AmOperand), ("y", _AmOperand), ("data", _U8 * 16)]


class _AmTaint(ctypes.Structure):
    _fields_ = [("plans", ctypes.POINTER(_AmPlan)), ("plan_base", _U32), ("plan_span", _U32),
                ("reported", ctypes.POINTER(_U8)), ("executed", ctypes.POINTER(_U8)),
                ("regs", _U32 * 16), ("flags", _U32 * 5), ("bits", _U32 * 16), ("known", _U32 * 16),
                ("lo", _U32 * 16), ("hi", _U32 * 16), ("bounded", _U32 * 16),
                ("shadow", _P32), ("known_mem", _P32), ("lo_mem", _P32), ("hi_mem", _P32),
                ("bounded_mem", _P32), ("shadow_base", _U32), ("shadow_size", _U32),
                ("findings", _P32), ("n_findings", _U32), ("cap_findings", _U32), ("overflow", _U32),
                ("declassified", _P32), ("n_declassified", _U32), ("cap_declassified", _U32),
                ("instructions", ctypes.c_uint64), ("reg_ids", ctypes.c_int * 16), ("reg_xpsr", ctypes.c_int),
                ("reg_read", ctypes.c_void_p), ("emu_stop", ctypes.c_void_p), ("plan", ctypes.c_void_p),
                ("enabled", _U32), ("pending", ctypes.c_void_p), ("pending_pc", _U32),
                ("pending_extra", _U32), ("pending_counter", _U32), ("it_addr", _U32 * 4), ("it_n", _U32),
                ("it_i", _U32)]


_PLAN_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32)


def _fill(p: _AmPlan, nat: dict) -> None:
    """Copy the decisions ``Armv7mTaint._plan`` recorded into the C plan ``p`` (op last: the C hook
    reads a plan as present once its op is set)."""
    p.flags = nat["flags"]
    p.cond, p.cond_flags = nat.get("cond", 0), nat.get("cond_flags", 0)
    p.written = nat.get("written", 0)
    p.sources, p.dests, p.variable = nat.get("sources", 0), nat.get("dests", 0), nat.get("variable", 0)
    p.dp, p.status = nat.get("dp", 0), nat.get("status", 0)
    p.reg, p.reg2, p.bit_src = nat.get("reg", 0), nat.get("reg2", 0), nat.get("bit_src", 0)
    p.rshift, p.lshift, p.bit_mask = nat.get("bit_rule", (0, 0, 0))
    data = nat.get("data", ())
    if len(data) > 16:
        raise BoardError(f"C taint engine: {len(data)} data registers in one instruction")
    p.n_data = len(data)
    for i, r in enumerate(data):
        p.data[i] = r
    p.known_kind, p.known_a, p.known_b, p.known_c, p.known_value = nat.get("known", (AK_NONE, 0, 0, 0, 0))
    kind, d, src, amount, lo, hi, x, y = nat.get("bounds", _bounds_fields(AB_NONE))
    p.bounds_kind, p.bounds_d, p.bounds_src, p.bounds_amount, p.bounds_lo, p.bounds_hi = kind, d, src, amount, lo, hi
    p.x.kind, p.x.reg, p.x.amount, p.x.value = x
    p.y.kind, p.y.reg, p.y.amount, p.y.value = y
    p.op = nat["op"]


def _detail(kind: str, nat: dict, meta: tuple, aux: int) -> str:
    """The text the Python engine writes beside a finding of ``kind`` at an instruction of plan ``nat``."""
    op = nat["op"]
    mnemonic, cond_flags = meta[0], meta[1]
    if kind == TAINT_ADDRESS:
        what, addr_regs = meta[2], meta[3]
        return f"{what} address from " + ", ".join(_NAMES[r] for r in addr_regs if aux >> r & 1)
    if kind == TAINT_CONDITIONAL:
        if op == AM_MEM:
            return f"conditional {meta[2]} on secret flags (executed: {meta[2]} cycles, skipped: 1)"
        if op == AM_DP:
            return "conditional multi-cycle instruction on secret flags (a failed one takes one cycle)"
        what = {AM_CBZ: "branch", AM_TBB: "branch", AM_BX: "branch", AM_BL: "call"}.get(op, "instruction")
        return f"conditional {what} on secret flags"
    if kind == TAINT_BRANCH:
        if op == AM_CBZ:
            return f"condition on {_NAMES[nat['reg']]}"
        return "condition flags " + "".join("NZCV"[f] for f in cond_flags if aux >> f & 1)
    if kind == TAINT_INDIRECT_JUMP:
        if op == AM_MEM:
            return "jump target loaded from tainted memory"
        if op == AM_TBB:
            return f"table index {_NAMES[nat['reg']]}"
        if op == AM_BX:
            return f"target from {_NAMES[nat['reg']]}"
        return "pc written from a tainted value"
    if kind == TAINT_VARIABLE_LATENCY:
        return f"{mnemonic} operand (operand-dependent latency on the Cortex-M3)"
    return f"secret written to the special register {meta[2]}"      # TAINT_IO (MSR)


class _NativeEngine:
    """The C engine of one loaded firmware: its plan table over the image's flash code (filled on first
    execution of each address, by ``Armv7mTaint._plan`` run as the planner), the shadow buffers, and the
    hooks. The hooks stay installed from one tainted call to the next, disabled in between (Unicorn
    compiles hooks into its translated blocks: adding or removing one means translating the code again);
    a call without the C engine removes them first (``drop_native_hook``)."""

    def __init__(self, board):
        from unicorn.unicorn_py3.unicorn import uccallback, uclib

        from .armv7m import SRAM_BASE, SRAM_SIZE

        self.board, self.uc, self.image, self.uclib = board, board._uc, board._image, uclib
        code = [(seg.address, seg.address + seg.memsz) for seg in self.image.segments if seg.address < SRAM_BASE]
        base = min((a for a, _ in code), default=0) & ~1
        span = max(1, (max((e for _, e in code), default=0) - base + 1) // 2)
        self.plans = (_AmPlan * span)()
        self.reported = (_U8 * span)()
        self.executed = (_U8 * span)()
        self.shadow = (_U32 * SRAM_SIZE)()
        self.word_buffers = [(_U32 * (SRAM_SIZE // 4))() for _ in range(4)]
        self.findings = (_U32 * (4 * _FINDINGS_CAP))()
        self.declassified = (_U32 * (3 * _DECLASSIFIED_CAP))()
        st = self.state = _AmTaint()
        st.plans, st.plan_base, st.plan_span = self.plans, base, span
        st.reported, st.executed = self.reported, self.executed
        st.shadow, st.shadow_base, st.shadow_size = self.shadow, SRAM_BASE, SRAM_SIZE
        st.known_mem, st.lo_mem, st.hi_mem, st.bounded_mem = self.word_buffers
        st.findings, st.cap_findings = self.findings, _FINDINGS_CAP
        st.declassified, st.cap_declassified = self.declassified, _DECLASSIFIED_CAP
        for i, reg in enumerate([*_UC_GPR, U.UC_ARM_REG_SP, U.UC_ARM_REG_LR, U.UC_ARM_REG_PC]):
            st.reg_ids[i] = reg
        st.reg_xpsr = U.UC_ARM_REG_XPSR
        st.reg_read = ctypes.cast(uclib.uc_reg_read, ctypes.c_void_p)
        st.emu_stop = ctypes.cast(uclib.uc_emu_stop, ctypes.c_void_p)
        self._plan_cb = uccallback(self.uc, _PLAN_CFUNC)(self._plan)
        st.plan = ctypes.cast(self._plan_cb, ctypes.c_void_p)
        # The reference engine, used as the planner only (its closures are built, never run here)
        self.planner = Armv7mTaint(board, TaintCollector(board, TaintSpec({})), [0] * 16, ShadowMemory())
        self.hooks: list[ctypes.c_size_t] = []

    def _plan(self, _uc, pc: int) -> None:
        """The C hook met an address without a plan: decode it and fill the table."""
        st = self.state
        half = (pc - st.plan_base) >> 1
        if pc & 1 or not 0 <= half < st.plan_span:
            raise BoardError(f"the C taint engine covers the image's flash code; an instruction ran at "
                             f"0x{pc:x} (use the Python engine: ct --engine python)")
        if pc not in self.planner.native_fields:
            self.planner._plan(pc)
        _fill(self.plans[half], self.planner.native_fields[pc])

    def start(self, regs: list[int], memory: ShadowMemory) -> None:
        """Reset the shadow state to a call's seed and enable the hooks (installing them if needed)."""
        from .armv7m import SRAM_BASE

        st = self.state
        st.regs[:] = regs
        st.flags[:] = [0] * 5
        st.bits[:] = [_ALL_ONES] * 16
        for name in ("known", "lo", "hi", "bounded"):
            getattr(st, name)[:] = [0] * 16
        for buf in (self.reported, self.executed, self.shadow, *self.word_buffers):
            ctypes.memset(buf, 0, ctypes.sizeof(buf))
        st.n_findings = st.overflow = st.instructions = st.n_declassified = 0
        st.pending, st.it_n, st.it_i = None, 0, 0
        for address, mask in memory.bytes.items():
            if not 0 <= address - SRAM_BASE < st.shadow_size:
                raise BoardError(f"secret byte at 0x{address:x} outside the board's SRAM")
            self.shadow[address - SRAM_BASE] = mask
        if not self.hooks:
            lib = native_library()
            for kind, fn in ((UC_HOOK_CODE, lib.taint_armv7m_on_code),
                             (UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, lib.taint_armv7m_on_mem)):
                handle = ctypes.c_size_t()
                status = self.uclib.uc_hook_add(self.uc._uch, ctypes.byref(handle), kind,
                                                ctypes.cast(fn, ctypes.c_void_p),
                                                ctypes.cast(ctypes.pointer(st), ctypes.c_void_p), 1, 0)
                if status != 0:
                    raise BoardError(f"uc_hook_add(taint_armv7m) failed: status {status}")
                self.hooks.append(handle)
            self.uc.ctl_flush_tb()
        st.enabled = 1

    def remove(self) -> None:
        if self.hooks:
            for handle in self.hooks:
                self.uclib.uc_hook_del(self.uc._uch, handle)
            self.hooks = []
            self.uc.ctl_flush_tb()


def drop_native_hook(board) -> None:
    """Remove the C engine's hooks before a call that does not use it (no-op when none is installed)."""
    engine = getattr(board, "_native_taint", None)
    if engine is not None and engine.uc is board._uc:
        engine.remove()


class NativeArmv7mTaint:
    """One call on the C engine: its labels and findings (the shadow state is the ``_NativeEngine``'s)."""

    def __init__(self, board, collector: TaintCollector, regs: list[int], memory: ShadowMemory):
        engine = getattr(board, "_native_taint", None)
        if engine is None or engine.uc is not board._uc or engine.image is not board._image:
            engine = board._native_taint = _NativeEngine(board)
        self.board, self.collector, self.engine = board, collector, engine
        self.state = engine.state
        engine.start(regs, memory)

    @property
    def instructions(self) -> int:
        return self.state.instructions

    def detach(self) -> None:
        self.state.enabled = 0

    def result(self) -> list[TaintFinding]:
        st, planner = self.state, self.engine.planner
        if st.overflow:
            raise BoardError("the C taint engine's findings buffer filled up")
        findings = self.engine.findings
        for i in range(st.n_findings):
            pc, kind, mask, aux = findings[4 * i: 4 * i + 4]
            kind = _KINDS[kind]
            self.collector.report(kind, pc, mask, _detail(kind, planner.native_fields[pc], planner._meta[pc], aux))
        if st.n_declassified > st.cap_declassified:
            raise BoardError(f"the C taint engine's declassification buffer filled up "
                             f"({st.n_declassified} tainted mcu_declassify calls in one call)")
        records = self.engine.declassified
        for i in range(st.n_declassified):
            value, mask, caller = records[3 * i: 3 * i + 3]
            self.collector.declassify(mask, value, caller)
        return self.collector.result()

    def executed_addresses(self) -> frozenset[int]:
        """This call's instructions, run or skipped (coverage)."""
        base = self.state.plan_base
        return frozenset(base + 2 * i for i, ran in enumerate(bytes(self.engine.executed)) if ran)
