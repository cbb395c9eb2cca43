# SPDX-License-Identifier: MIT
"""Cycle model of the SiFive E31 core (FE310-G002, HiFive1 Rev B), table-driven and fast.

The model is an in-order, single-issue scoreboard: an instruction issues (enters execute) in the first
cycle in which (1) the previous instruction has issued, (2) every source register's result is ready
(full bypass: ALU results are ready the next cycle), (3) for MUL/DIV, the iterative multiply/divide unit
is free, and (4) a pending write to its destination register would not complete after its own (the
manual's write-after-write interlock). Control-flow instructions add a misprediction penalty decided by a
simulated branch predictor (BTB, BHT, RAS). The callee's cycle count is the cycle after its final
instruction (the ``ret``) issues, plus that ``ret``'s misprediction penalty if any.

Speed. Unicorn executes translation blocks (straight-line code ending at a control transfer); the board
hands the model, in order, the address and size of every executed block. The model decodes a block once,
and memoizes (block, entry state) -> (cycles, exit state), where the state is what earlier instructions
still hold: the registers whose results are not ready yet (with the cycles left) and the cycles until the
multiplier is free. Straight-line code reaches a handful of states, so after warm-up each block costs one
dictionary look-up. Branch prediction is resolved between blocks: the next block's address says whether
the previous block's final branch was taken and where an indirect jump went. DIV/REM latency depends on
the operands, so the board records their operand values (in C, see rv32.py) and the memo key of a block
with a divide includes the divide's latency.

Every parameter is a field of ``E31Params`` with its source; docs/board-rv32.md discusses them and
compares the model with published measurements.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, fields
from typing import Callable, Iterator

from . import rv32_isa as isa
from .rv32_isa import Instr

M32 = 0xFFFF_FFFF

_SRC_G000 = "FE310-G000 Manual v2p1 §3.2-3.3"
_SRC_E31 = "E31 Core Complex Manual v2p0 §3.1-3.3"


def _param(default: int, source: str):
    return field(default=default, metadata={"source": source})


@dataclass(frozen=True)
class E31Params:
    """Every number the model uses. ``describe()`` lists them with their sources."""

    alu_latency: int = _param(1, f"{_SRC_E31}: fully bypassed, most results in 1 cycle")
    lw_latency: int = _param(2, f"{_SRC_E31}: 'LW has a two-cycle result latency'")
    lbh_latency: int = _param(3, f"{_SRC_E31}: 'LH, LHU, LB, and LBU have a three-cycle result latency'")
    amo_latency: int = _param(2, "assumption: LR/SC/AMO results return like LW from the DTIM (the "
                                 "manuals give no AMO latency; crypto code does not use them)")
    csr_read_latency: int = _param(3, f"{_SRC_E31}: 'CSR reads have a three-cycle result latency'")
    mul_latency: int = _param(5, f"{_SRC_E31}: 'MUL, MULH, MULHU, and MULHSU have a 5-cycle result "
                                 "latency'; 8 bits/cycle: 4 iterations + writeback")
    div_base_cycles: int = _param(2, f"{_SRC_E31}: DIV/REM latency 2..33 cycles; the 2 is the latency "
                                     "with no quotient bit left to compute after Rocket's early-out")
    div_sign_fixup_cycles: int = _param(1, "rocket-chip MulDiv (Multiplier.scala, the E31's open ancestor: "
                                           "sifive/freedom E300 uses WithFastMulDiv = mulUnroll 8, "
                                           "divEarlyOut): one cycle to negate negative signed inputs "
                                           "(s_neg_inputs), one to negate the result (s_neg_output)")
    mispredict_penalty: int = _param(3, f"{_SRC_E31} and {_SRC_G000}: 'Mispredicted control-flow "
                                        "instructions incur a three-cycle penalty'")
    btb_entries: int = _param(28, f"{_SRC_E31} (G000 manual: 40); fully associative, LRU (Rocket: "
                                  "pseudo-LRU)")
    bht_entries: int = _param(512, f"{_SRC_E31} (G000 manual: 128); 2-bit counters indexed by pc/4")
    bht_initial_counter: int = _param(0, "rocket-chip BTB.scala: the BHT resets every counter to 0 "
                                         "(strongly not taken)")
    ras_entries: int = _param(6, f"{_SRC_E31} (G000 manual: 2)")
    ext_alu_latency: int = _param(1, "Zbb/Zbkb/Zbkc are not on the E31; rocket-chip implements them in "
                                     "its single-cycle ALU (ABLU.scala) and combinational clmul "
                                     "(BitManipCrypto.scala), so a hypothetical E31 with them: 1 cycle")
    flash_load_penalty: int = _param(170, "ESTIMATE, no published figure: extra cycles of a load from the "
                                          "SPI-flash window (no data cache). Scaled from the ~770-cycle "
                                          "I-cache line fill measured on a HiFive1 (forums.sifive.com "
                                          "t/1781) by SPI clocks: 288 for a 32-byte line vs 64 for a word "
                                          "with the single-lane 0x03 read command")

    def describe(self) -> dict[str, dict[str, object]]:
        return {f.name: {"value": getattr(self, f.name), "source": f.metadata["source"]}
                for f in fields(self)}


# ---------------------------------------------------------------------------------------------------
# Divide latency

def divide_cycles(p: E31Params, mnemonic: str, a: int, b: int) -> int:
    """Result latency of DIV/DIVU/REM/REMU with dividend ``a`` and divisor ``b`` (unsigned 32-bit values).

    Rocket's MulDiv with divUnroll=1 and divEarlyOut (the configuration sifive/freedom's E300 built the
    FE310-G000 from) computes one quotient bit per cycle and, in its first cycle, skips the bits that
    cannot be set: it shifts the dividend by eOutPos = ~(msb(|a|) - msb(|b|)) (5-bit wrap-around
    arithmetic), when eOutPos >= 1 and b != 0; the remaining 31 - eOutPos bits take a cycle each. We map
    that onto the manual's 2..33: latency = 2 + bits left, i.e. 2 when msb(|a|) == msb(|b|), 33 when
    nothing is skipped (division by zero, msb(|a|) - msb(|b|) = 31 or -1). A quirk kept from the RTL:
    a dividend far below the divisor skips only msb(|b|) - msb(|a|) - 1 bits. Signed forms spend one more
    cycle when an input is negative and one when the result must be negated (Rocket's s_neg_inputs and
    s_neg_output states); the manual's 2..33 range describes the unsigned path."""
    signed = mnemonic in ("div", "rem")
    is_rem = mnemonic in ("rem", "remu")
    fixups = 0
    neg_a = neg_b = False
    if signed:
        neg_a, neg_b = bool(a >> 31), bool(b >> 31)
        if neg_a:
            a = -a & M32
        if neg_b:
            b = -b & M32
        if neg_a or neg_b:
            fixups += 1
    if b == 0:
        remaining = 31
        negate_result = neg_a if is_rem else False      # Rocket: divby0 && !isHi clears neg_out
    else:
        dividend_msb = max(a.bit_length() - 1, 0)
        divisor_msb = b.bit_length() - 1
        e_out_pos = 31 - ((dividend_msb - divisor_msb) % 32)
        remaining = 31 - e_out_pos if e_out_pos >= 1 else 31
        negate_result = neg_a if is_rem else neg_a != neg_b
    if signed and negate_result:
        fixups += 1
    return p.div_base_cycles + remaining + fixups * p.div_sign_fixup_cycles


# ---------------------------------------------------------------------------------------------------
# Per-instruction timing records

# kinds of the final instruction of a block, for the predictor
CF_BRANCH, CF_JAL, CF_JALR = 1, 2, 3
_LINK = (1, 5)   # ra and t0: the RISC-V spec's link registers for return-address-stack hints


@dataclass(frozen=True, slots=True)
class Op:
    """What the scoreboard needs of one instruction. ``unit`` is the multiplier occupancy in cycles
    (0: does not use it; -1: a divide whose latency comes from its operands)."""

    reads: tuple[int, ...]
    writes: tuple[tuple[int, int], ...]
    unit: int
    issue_cycles: int


def op_of(ins: Instr, p: E31Params) -> Op:
    """The scoreboard record of ``ins`` (x0 is neither a source nor a destination)."""
    cls = ins.cls
    reads: list[int] = [ins.rs1, ins.rs2]
    unit = 0
    issue = 1
    if cls == isa.CUSTOM:
        ci = ins.custom
        assert ci is not None
        reads += [ins.rs3] + ([ins.rd] if ci.reads_rd else [])
        latency = ci.latency
        unit = ci.latency if ci.uses_multiplier else 0
        issue = ci.issue_cycles
        dests = [ins.rd, ins.rd2] if ci.pair else [ins.rd]
    else:
        dests = [ins.rd]
        if cls == isa.LOAD_W:
            latency = p.lw_latency
        elif cls == isa.LOAD_BH:
            latency = p.lbh_latency
        elif cls == isa.AMO:
            latency = p.amo_latency
        elif cls == isa.CSR:
            latency = p.csr_read_latency
        elif cls == isa.MUL:
            latency = unit = p.mul_latency
        elif cls == isa.DIV:
            latency, unit = 0, -1
        elif "i" not in ins.exts and cls == isa.ALU:
            latency = p.ext_alu_latency
        else:
            latency = p.alu_latency
    return Op(tuple(r for r in reads if r), tuple((r, latency) for r in dests if r), unit, issue)


class Block:
    """A translation block: its instructions, their scoreboard records, and the memo of its cost."""

    __slots__ = ("addr", "size", "instrs", "pcs", "ops", "n", "cf", "divs", "memo")

    def __init__(self, addr: int, size: int, instrs: list[tuple[int, Instr]], p: E31Params):
        self.addr, self.size = addr, size
        self.pcs = tuple(pc for pc, _ in instrs)
        self.instrs = tuple(i for _, i in instrs)
        self.ops = tuple(op_of(i, p) for i in self.instrs)
        self.n = len(instrs)
        self.divs = tuple(k for k, i in enumerate(self.instrs) if i.cls == isa.DIV)
        self.memo: dict = {}
        # The predictor event this block ends with: (kind, pc, static target, return address, rd, rs1)
        self.cf: tuple[int, int, int, int, int, int] | None = None
        if instrs:
            pc, last = instrs[-1]
            after = (pc + last.length) & M32
            if last.cls == isa.BRANCH:
                self.cf = (CF_BRANCH, pc, (pc + last.imm) & M32, after, 0, 0)
            elif last.cls == isa.JAL:
                self.cf = (CF_JAL, pc, (pc + last.imm) & M32, after, last.rd, 0)
            elif last.cls == isa.JALR:
                self.cf = (CF_JALR, pc, 0, after, last.rd, last.rs1)


State = tuple  # (multiplier cycles left, (reg, cycles left, from multiplier), ...) with regs ascending


def _run(ops: tuple[Op, ...], state: State, div_latencies: tuple[int, ...]) -> tuple[int, State]:
    """Issue ``ops`` in order from ``state``; return the cycles until the next instruction may issue and
    the state then. Times are relative to the block's first issue opportunity.

    Write-after-write: results of the pipeline (ALU, loads, CSR reads) complete in order, so only a
    pending result of the iterative multiplier/divider, which writes back on its own port when done, can
    be overtaken; like Rocket's scoreboard (which holds only those destinations), an instruction writing
    such a register waits until the result is written, as a reader would."""
    unit_free = state[0]
    ready: dict[int, int] = {}
    from_unit: set[int] = set()
    for r, x, u in state[1:]:
        ready[r] = x
        if u:
            from_unit.add(r)
    t = 0
    d = 0
    for op in ops:
        issue = t
        for r in op.reads:
            x = ready.get(r, 0)
            if x > issue:
                issue = x
        unit = op.unit
        writes = op.writes
        if unit:
            if unit < 0:
                unit = div_latencies[d]
                d += 1
                writes = tuple((r, unit) for r, _ in writes)
            if unit_free > issue:
                issue = unit_free
        for r, _ in writes:
            if r in from_unit and ready[r] > issue:
                issue = ready[r]
        for r, lat in writes:
            ready[r] = issue + lat
            if unit:
                from_unit.add(r)
            else:
                from_unit.discard(r)
        if unit:
            unit_free = issue + unit
        t = issue + op.issue_cycles
    pending = tuple(sorted((r, x - t, r in from_unit) for r, x in ready.items() if x > t))
    return t, (max(unit_free - t, 0),) + pending


def _shift(state: State, cycles: int) -> State:
    """The state ``cycles`` later with nothing issued (a misprediction bubble)."""
    return (max(state[0] - cycles, 0),) + tuple((r, x - cycles, u) for r, x, u in state[1:] if x > cycles)


EMPTY_STATE: State = (0,)


# ---------------------------------------------------------------------------------------------------
# Branch prediction

class Predictor:
    """BTB (fully associative, LRU), BHT of 2-bit saturating counters, return-address stack.

    Rules (E31/Rocket, see module docs of BTB.scala and docs/board-rv32.md):
    - conditional branch: predicted taken iff the BTB holds it and its BHT counter is >= 2; the BTB is
      written only when a branch is taken and was not predicted so (Rocket updates it on mispredicts);
    - JAL: no penalty when the BTB holds its target, otherwise a misprediction that installs it;
    - JALR: a return (rs1 is a link register, rd is not, per the spec's RAS hints) is predicted from the
      RAS when it is not empty; every other JALR from the BTB; a wrong or missing target is a
      misprediction that installs the target;
    - calls (JAL/JALR with rd a link register) push the return address; the RAS overwrites its oldest
      entry when full."""

    def __init__(self, p: E31Params):
        self.p = p
        self.btb: OrderedDict[int, int] = OrderedDict()
        self.bht = [p.bht_initial_counter] * p.bht_entries
        self.ras: list[int] = []
        self.mispredictions = 0

    def reset(self, return_address: int) -> None:
        """Cold predictor, with the caller's return address on the RAS (the harness's call)."""
        self.btb.clear()
        self.bht = [self.p.bht_initial_counter] * self.p.bht_entries
        self.ras = [return_address]
        self.mispredictions = 0

    def _install(self, pc: int, target: int) -> None:
        self.btb[pc] = target
        self.btb.move_to_end(pc)
        if len(self.btb) > self.p.btb_entries:
            self.btb.popitem(last=False)

    def _push(self, address: int) -> None:
        self.ras.append(address)
        if len(self.ras) > self.p.ras_entries:
            del self.ras[0]

    def resolve(self, cf: tuple[int, int, int, int, int, int], next_pc: int) -> bool:
        """Train on the control transfer ``cf`` that went to ``next_pc``; True if it was mispredicted."""
        kind, pc, target, after, rd, rs1 = cf
        btb = self.btb
        if kind == CF_BRANCH:
            taken = next_pc != after
            i = (pc >> 2) % self.p.bht_entries
            counter = self.bht[i]
            predicted = pc in btb and counter >= 2
            self.bht[i] = min(counter + 1, 3) if taken else max(counter - 1, 0)
            wrong = predicted != taken
            if taken:
                if wrong:
                    self._install(pc, target)
                else:
                    btb.move_to_end(pc)
        elif kind == CF_JAL:
            wrong = btb.get(pc) != target
            if wrong:
                self._install(pc, target)
            else:
                btb.move_to_end(pc)
            if rd in _LINK:
                self._push(after)
        else:
            rd_link, rs1_link = rd in _LINK, rs1 in _LINK
            pops = rs1_link and (not rd_link or rd != rs1)
            if pops and self.ras:
                guess = self.ras.pop()
                wrong = guess != next_pc
            else:
                wrong = btb.get(pc) != next_pc
                if wrong:
                    self._install(pc, next_pc)
                else:
                    btb.move_to_end(pc)
            if rd_link:
                self._push(after)
        if wrong:
            self.mispredictions += 1
        return wrong


# ---------------------------------------------------------------------------------------------------
# The model

VariableLatency = tuple[int, str, tuple[int, ...], int]


class E31Model:
    """Cycle accounting for one call. ``decode_at(pc)`` returns the instruction at ``pc``."""

    def __init__(self, params: E31Params, decode_at: Callable[[int], Instr]):
        self.p = params
        self.decode_at = decode_at
        self.predictor = Predictor(params)
        self._blocks: dict[int, Block] = {}
        self._shifts: dict[tuple[State, int], State] = {}
        self.reset(0)

    def reset(self, return_address: int, *, keep_predictor: bool = False) -> None:
        """A new call. ``keep_predictor`` keeps the BTB and BHT trained by the previous calls (a warm
        benchmark loop); the RAS always starts with the harness's return address."""
        self.cycles = 0
        self.instructions = 0
        self.state: State = EMPTY_STATE
        self.pending_cf: tuple[int, int, int, int, int, int] | None = None
        if keep_predictor:
            self.predictor.ras = [return_address]
            self.predictor.mispredictions = 0
        else:
            self.predictor.reset(return_address)
        self.variable_latency: list[VariableLatency] | None = None

    def block(self, addr: int, size: int) -> Block:
        key = addr << 16 | size
        blk = self._blocks.get(key)
        if blk is None:
            instrs = []
            pc = addr
            while pc < addr + size:
                ins = self.decode_at(pc)
                instrs.append((pc, ins))
                pc += ins.length
            blk = self._blocks[key] = Block(addr, size, instrs, self.p)
        return blk

    def stall(self, cycles: int) -> None:
        """Nothing issues for ``cycles`` cycles (a misprediction bubble, a blocking flash load)."""
        self.cycles += cycles
        key = (self.state, cycles)
        shifted = self._shifts.get(key)
        if shifted is None:
            shifted = self._shifts[key] = _shift(self.state, cycles)
        self.state = shifted

    def _resolve_pending(self, next_pc: int) -> None:
        cf = self.pending_cf
        if cf is not None:
            self.pending_cf = None
            if self.predictor.resolve(cf, next_pc):
                self.stall(self.p.mispredict_penalty)

    def feed(self, blocks: list[int], divs: Iterator[int]) -> None:
        """Account for executed blocks, ``blocks`` = [address, size, address, size, ...] in order;
        ``divs`` yields (pc, dividend, divisor) of the executed divides in order, flattened."""
        blocks_get = self._blocks.get
        resolve = self.predictor.resolve
        shifts = self._shifts
        penalty = self.p.mispredict_penalty
        cycles, instructions, state, pending = self.cycles, self.instructions, self.state, self.pending_cf
        for k in range(0, len(blocks), 2):
            addr, size = blocks[k], blocks[k + 1]
            if pending is not None:
                if resolve(pending, addr):
                    cycles += penalty
                    shifted = shifts.get((state, penalty))
                    if shifted is None:
                        shifted = shifts[(state, penalty)] = _shift(state, penalty)
                    state = shifted
                pending = None
            blk = blocks_get(addr << 16 | size) or self.block(addr, size)
            if blk.divs:
                lats = self._divide_latencies(blk, divs)
                key = (state, lats)
                r = blk.memo.get(key)
                if r is None:
                    r = blk.memo[key] = _run(blk.ops, state, lats)
            else:
                r = blk.memo.get(state)
                if r is None:
                    r = blk.memo[state] = _run(blk.ops, state, ())
            cycles += r[0]
            state = r[1]
            instructions += blk.n
            pending = blk.cf
        self.cycles, self.instructions, self.state, self.pending_cf = cycles, instructions, state, pending

    def _divide_latencies(self, blk: Block, divs: Iterator[int]) -> tuple[int, ...]:
        lats = []
        for k in blk.divs:
            try:
                pc, a, b = next(divs), next(divs), next(divs)
            except StopIteration:
                raise RuntimeError(f"no operand record for the divide at 0x{blk.pcs[k]:x}") from None
            ins = blk.instrs[k]
            if pc != blk.pcs[k]:
                raise RuntimeError(f"divide record for 0x{pc:x} does not match block at 0x{blk.addr:x}")
            lat = divide_cycles(self.p, ins.mnemonic, a, b)
            lats.append(lat)
            if self.variable_latency is not None:
                self.variable_latency.append((pc, ins.mnemonic, (a, b), lat))
        return tuple(lats)

    def issue_single(self, pc: int, ins: Instr) -> int:
        """Account for one instruction executed outside a recorded block (an emulated counter read);
        return the cycle at which it issues, counted from the callee's first instruction."""
        self._resolve_pending(pc)
        op = op_of(ins, self.p)
        t, state = _run((op,), self.state, ())
        issue = self.cycles + t - op.issue_cycles
        self.cycles += t
        self.state = state
        self.instructions += 1
        return issue

    def finish(self, return_pc: int) -> None:
        """The callee has returned to ``return_pc``: resolve its final control transfer."""
        self._resolve_pending(return_pc)


def describe(params: E31Params) -> dict[str, object]:
    """The model and every parameter with its value and source (for the provenance of results)."""
    return {"model": "SiFive E31 (FE310-G002): in-order scoreboard + BTB/BHT/RAS predictor",
            "cycle_count": "from the callee's first instruction to the cycle after its final ret issues",
            "predictor_state": "reset at every call (cold BTB/BHT, RAS holding the return address); bench's "
                               "cycles_warm: BTB/BHT trained by one identical call just before",
            "instruction_cache": "warm: every fetch hits (no miss penalty modelled)",
            "parameters": params.describe()}
