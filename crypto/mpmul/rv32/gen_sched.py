# SPDX-License-Identifier: MIT
"""A small list scheduler and register allocator for straight-line RV32 code on the SiFive E31.

Used by gen_fast.py to turn a sequential description of a fully unrolled multiplication (single
assignment: every result is a new virtual register) into an instruction order and a register
assignment that keep the E31's iterative multiplier busy. The timing rules are those of the E31 (and
of the board's model, mcucrypt/boards/e31_model.py): single issue, in order; a result is ready
``latency`` cycles after issue (ALU 1, LW 2, MUL* 5); a multiplication waits until the multiplier is
free (it is busy for 5 cycles); write-after-write interlock.

The scheduler is greedy, cycle by cycle: among the operations whose inputs have been produced (within a
window of the program order, which bounds register pressure), it emits the one that can issue
earliest, multiplications first on a tie (the multiplier is the bottleneck), then the earliest in
program order. Registers are assigned when an operation is emitted and freed after the last read.
Callee-saved registers are saved before their first use and restored at the end, the restores placed
as early as the registers retire.

Register pairs (the xmul64 custom instructions write rd and rd+1, rd even): a pair operation takes an
even register and its odd partner; one tied to an accumulator (maddu, which also reads rd) writes over
that accumulator's register, which must then be even with a free partner. The allocator keeps the odd
partners of live pair-bound accumulators free where it can (and may put plain values in odd registers
first), and on a deadlock moves the value that blocks a pair to a free register (a live-range split:
one `mv`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

ABI = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
       "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6")
NUM = {n: i for i, n in enumerate(ABI)}
CALLEE_SAVED = ("ra", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11")
# Allocation preference: caller-saved first (no save/restore), then callee-saved.
ALLOCATABLE = ("t0", "t1", "t2", "t3", "t4", "t5", "t6", "a3", "a4", "a5", "a6", "a7", "a1", "a2", "a0",
               "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "ra")

LAT = {"alu": 1, "lw": 2, "sw": 1, "mul": 5}


@dataclass
class Op:
    fmt: str                    # e.g. "add {d0}, {s0}, {s1}"; registers by position
    kind: str                   # alu | lw | sw | mul
    dsts: tuple[str, ...]       # virtual registers written
    srcs: tuple[str, ...]       # virtual registers read
    comment: str = ""
    mem: tuple[str, int] | None = None   # (buffer name, byte offset) for loads/stores
    pair: bool = False          # dsts are an (even, odd) register pair
    tied: str | None = None     # a source that must share the first destination's register
    interp: object = None       # for gen_sched.interpret: f(*sources) -> destination values
    even: bool = False          # the (single) destination must be an even register (a future pair)
    index: int = 0
    preds: set[int] = field(default_factory=set)


class Program:
    """Sequential single-assignment code. Virtual registers are strings; ``pinned`` ones (the
    arguments) start in a fixed register."""

    def __init__(self, pinned: dict[str, str]):
        self.ops: list[Op] = []
        self.pinned = dict(pinned)
        self._n = 0

    def new(self, hint: str = "v") -> str:
        self._n += 1
        return f"%{hint}{self._n}"

    def emit(self, fmt: str, kind: str, dsts=(), srcs=(), comment: str = "", mem=None, pair=False,
             tied=None, interp=None, even=False) -> Op:
        op = Op(fmt, kind, tuple(dsts), tuple(srcs), comment, mem, pair, tied, interp, even)
        op.index = len(self.ops)
        self.ops.append(op)
        return op

    # conveniences ---------------------------------------------------------------------------------
    def alu(self, mnem: str, a: str, b: str, comment: str = "", hint: str = "v") -> str:
        d = self.new(hint)
        self.emit(f"{mnem} {{d0}}, {{s0}}, {{s1}}", "alu", (d,), (a, b), comment)
        return d

    def alui(self, mnem: str, a: str, imm: int, comment: str = "", hint: str = "v") -> str:
        d = self.new(hint)
        self.emit(f"{mnem} {{d0}}, {{s0}}, {imm}", "alu", (d,), (a,), comment)
        return d

    def li(self, imm: int, comment: str = "", hint: str = "v") -> str:
        d = self.new(hint)
        self.emit(f"li {{d0}}, {imm}", "alu", (d,), (), comment)
        return d

    def neg(self, a: str, comment: str = "", hint: str = "v") -> str:
        d = self.new(hint)
        self.emit("neg {d0}, {s0}", "alu", (d,), (a,), comment)
        return d

    def mul(self, mnem: str, a: str, b: str, comment: str = "", hint: str = "p") -> str:
        d = self.new(hint)
        self.emit(f"{mnem} {{d0}}, {{s0}}, {{s1}}", "mul", (d,), (a, b), comment)
        return d

    def lw(self, base: str, buf: str, off: int, comment: str = "", hint: str = "x") -> str:
        d = self.new(hint)
        self.emit(f"lw {{d0}}, {off}({{s0}})", "lw", (d,), (base,), comment, mem=(buf, off))
        return d

    def sw(self, val: str, base: str, buf: str, off: int, comment: str = "") -> None:
        self.emit(f"sw {{s0}}, {off}({{s1}})", "sw", (), (val, base), comment, mem=(buf, off))


@dataclass
class Schedule:
    lines: list[str]
    cycles: int                 # issue cycle after the last instruction (the ret included)
    used_callee: list[str]
    frame: int
    times: list = field(default_factory=list)


def _deps(ops: list[Op]) -> None:
    writer: dict[str, int] = {}
    last_store: dict[tuple[str, int], int] = {}
    loads_since: dict[tuple[str, int], list[int]] = {}
    for op in ops:
        for s in op.srcs:
            if s in writer:
                op.preds.add(writer[s])
        if op.mem is not None:
            if op.kind == "lw":
                if op.mem in last_store:
                    op.preds.add(last_store[op.mem])
                loads_since.setdefault(op.mem, []).append(op.index)
            else:
                if op.mem in last_store:
                    op.preds.add(last_store[op.mem])
                op.preds.update(loads_since.get(op.mem, []))
                last_store[op.mem] = op.index
                loads_since[op.mem] = []
        for d in op.dsts:
            if d in writer:
                raise ValueError(f"{d} written twice (the program must be single-assignment)")
            writer[d] = op.index


def schedule(prog: Program, *, window: int = 48, retire_after: int | None = None,
             stack_reserve: int = 0, reserve: int = 0, prefer_odd: bool = True,
             feed_first: bool = False) -> Schedule:
    """Order and register-allocate ``prog``; return the assembly lines of the function body
    (prologue and epilogue included) and the predicted cycle count.

    ``retire_after``: once this many operations are emitted, a callee-saved register that becomes
    free is restored right away instead of being reused. ``stack_reserve``: bytes of stack the program
    uses itself (at sp + 0 ..), the saved registers go above them. ``reserve``: an operation taken
    ahead of program order may not leave fewer free registers than this (so the operations in program
    order can always proceed)."""
    ops = prog.ops
    _deps(ops)
    # feed_first: on a tie in issue time, an operation whose result a multiplication reads (an operand
    # load) goes before other ALU work, so that a serial tail in program order cannot starve the unit
    feeds: set[int] = set()
    if feed_first:
        made = {d: op.index for op in ops for d in op.dsts}
        feeds = {made[x] for op in ops if op.kind == "mul" for x in op.srcs if x in made}
    uses: dict[str, int] = {}
    for op in ops:
        for s in op.srcs:
            uses[s] = uses.get(s, 0) + 1
    n = len(ops)
    done = [False] * n
    phys: dict[str, str] = {}           # vreg -> register
    owner: dict[str, str | None] = {r: None for r in ABI}
    for v, r in prog.pinned.items():
        phys[v] = r
        owner[r] = v
    free = [r for r in ALLOCATABLE if owner[r] is None]
    saved: set[str] = set()             # callee-saved registers whose old value is on the stack
    retired: set[str] = set()
    ready: dict[str, int] = {}          # register -> cycle its pending value is ready
    unit_free = 0
    t = 0
    lines: list[str] = []
    # frame: every callee-saved register we might use gets a slot (trimmed at the end)
    slots = {r: stack_reserve + 4 * k for k, r in enumerate(CALLEE_SAVED)}
    frame_lines_at = len(lines)
    times: list[tuple[int, int]] = []     # (issue cycle, op index) of every op, for analysis
    emitted = 0
    first = 0                           # lowest index not yet emitted

    pairish: set[str] = {d for op in ops for d in op.dsts[:1] if op.pair or op.even}

    def reserved_partner() -> set[str]:
        out = set()
        for v, r in phys.items():
            if v in pairish and owner.get(r) == v and NUM[r] % 2 == 0 and NUM[r]:
                out.add(ABI[NUM[r] + 1])
        return out

    def make_room(lo: int, hi: int):
        """On a deadlock, the first operation in the window (in program order) that waits only for a
        register pair or an even register, and a move that frees one: ("evict", from, to, vreg)."""
        for i in range(lo, hi):
            op = ops[i]
            if done[i] or not (op.pair or op.even) or any(not done[q] for q in op.preds):
                continue
            dying = {phys[x] for x in op.srcs if uses[x] == 1}
            pool = [r for r in free if r not in retired and (r not in CALLEE_SAVED or r in saved)]

            def movable(r: str) -> bool:
                v = owner.get(r)
                return v is not None and v not in prog.pinned and r not in dying

            def target(avoid: set[str], v: str) -> str | None:
                want_even = v in pairish
                for r in pool:
                    if r in avoid or (want_even and NUM[r] % 2):
                        continue
                    return r
                return None
            if op.tied is not None:
                r0 = phys[op.tied]
                if NUM[r0] % 2:
                    continue
                blockers = [ABI[NUM[r0] + 1]]
            else:
                blockers = None
                for r0 in ALLOCATABLE:
                    k = NUM[r0]
                    if k % 2 or r0 in retired:
                        continue
                    pair = [r0, ABI[k + 1]] if op.pair else [r0]
                    if any(r in retired or (r in CALLEE_SAVED and r not in saved) for r in pair):
                        continue
                    occ = [r for r in pair if not (r in pool or r in dying)]
                    if len(occ) == 1 and movable(occ[0]):
                        blockers = occ
                        break
                if blockers is None:
                    continue
            r1 = blockers[0]
            if not movable(r1):
                continue
            f = target({r1} | set(dying), owner[r1])
            if f is None:
                continue
            return ("evict", r1, f, owner[r1])
        return None

    def issue_time(op: Op, dregs: list[str]) -> int:
        x = t
        for s in op.srcs:
            x = max(x, ready.get(phys[s], 0))
        if op.kind == "mul":
            x = max(x, unit_free)
        lat = LAT[op.kind]
        for r in dregs:
            x = max(x, ready.get(r, 0) - lat)     # write-after-write interlock
        return x

    def pick_regs(op: Op, ahead: bool) -> list[str] | None:
        """Registers for op's destinations, or None when none are free. A source that dies here may
        give its register to the destination."""
        dying = [phys[s] for s in op.srcs if uses[s] == 1 and phys[s] in ALLOCATABLE]
        pool = [r for r in free if r not in retired]
        if ahead and len(pool) - len(op.dsts) + len(set(dying)) < reserve:
            return None
        if op.tied is not None:
            r0 = phys[op.tied]
            if uses[op.tied] != 1:
                raise ValueError(f"tied operand {op.tied} must die at its op")
            if not op.pair:
                return [r0]
            r1 = ABI[NUM[r0] + 1] if NUM[r0] % 2 == 0 else None
            if r1 is None or not (r1 in pool or r1 in dying):
                return None
            return [r0, r1]
        if not op.dsts:
            return []
        # keep the odd partner of a live even-register accumulator free for as long as possible: it
        # is where the pair instruction that consumes the accumulator will write its high word
        busy = reserved_partner()
        if prefer_odd and pairish and not (op.pair or op.even):
            # plain values go to odd registers first: the even ones are wanted for pairs
            pool = sorted(pool, key=lambda r: (r in busy, NUM[r] % 2 == 0))
        else:
            pool = sorted(pool, key=lambda r: r in busy)
        cand = dying + pool
        if op.pair:
            for r0 in cand:
                k = NUM[r0]
                if k % 2 or k == 0:
                    continue
                r1 = ABI[k + 1]
                if r1 in cand and r1 != r0:
                    return [r0, r1]
            return None
        out = []
        for r in cand:
            if op.even and (NUM[r] % 2 or NUM[r] == 0):
                continue
            if r not in out:
                out.append(r)
            if len(out) == len(op.dsts):
                return out
        return None

    while first < n:
        best = None
        limit = min(n, first + window)
        for i in range(first, limit):
            op = ops[i]
            if done[i] or any(not done[p] for p in op.preds):
                continue
            regs = pick_regs(op, i != first)
            if regs is None:
                continue
            unsaved = [r for r in regs if r in CALLEE_SAVED and r not in saved]
            if unsaved:
                # save the callee-saved register first (an ordinary store, schedulable now)
                key = (t, 1, 1, i)
                if best is None or key < best[0]:
                    best = (key, ("save", unsaved[0]))
                continue
            x = issue_time(op, regs)
            key = (x, 0 if op.kind == "mul" else 1, 0 if i in feeds else 1, i)
            if best is None or key < best[0]:
                best = (key, ("op", i, regs))
        if best is None:
            # Deadlock: a pair instruction tied to an accumulator needs the accumulator's odd partner,
            # which holds another live value. Move that value to a free register (live-range split).
            ev = make_room(first, limit)
            if ev is None:
                raise RuntimeError(f"scheduler deadlock at op {first}: {ops[first].fmt} (no free register?)")
            best = (None, ev)
        what = best[1]
        if what[0] == "evict":
            _, r1, f, v = what
            x = max(t, ready.get(r1, 0))
            lines.append(f"    mv      {f}, {r1}" + " " * 20 + f"/* frees {r1} for a register pair */")
            times.append((x, -1))
            free.remove(f)
            phys[v] = f
            owner[f] = v
            owner[r1] = None
            free.append(r1)
            ready[f] = x + 1
            t = x + 1
            continue
        if what[0] == "save":
            r = what[1]
            lines.append(f"    sw      {r}, {slots[r]}(sp)")
            saved.add(r)
            t += 1
            continue
        _, i, regs = what
        op = ops[i]
        x = issue_time(op, regs)
        srcs = [phys[s] for s in op.srcs]
        # sources die
        for s in op.srcs:
            uses[s] -= 1
            if uses[s] == 0:
                r = phys[s]
                owner[r] = None
                if r in ALLOCATABLE and r not in free:
                    free.append(r)
        for v, r in zip(op.dsts, regs):
            if r in free:
                free.remove(r)
            phys[v] = r
            owner[r] = v
            ready[r] = x + LAT[op.kind]
            if uses.get(v, 0) == 0:          # never read: free at once
                owner[r] = None
                free.append(r)
        if op.kind == "mul":
            unit_free = x + LAT["mul"]
        fields = {f"d{k}": r for k, r in enumerate(regs)}
        fields.update({f"s{k}": r for k, r in enumerate(srcs)})
        text = op.fmt.format(**fields)
        mn, _, rest = text.partition(" ")
        text = f"{mn:<8}{rest}"
        pad = max(1, 40 - len(text) - 4)
        lines.append(f"    {text}" + (f"{' ' * pad}/* {op.comment} */" if op.comment else ""))
        times.append((x, i))
        done[i] = True
        emitted += 1
        t = x + 1
        while first < n and done[first]:
            first += 1
        # retire callee-saved registers in the endgame
        if retire_after is not None and emitted >= retire_after:
            for r in list(free):
                if r in CALLEE_SAVED and r in saved and r not in retired:
                    retired.add(r)
                    free.remove(r)
                    # its restore waits for a pending write to land (WAW on a load is harmless
                    # but keep the value order obvious)
                    x2 = max(t, ready.get(r, 0) - LAT["lw"])
                    lines.append(f"    lw      {r}, {slots[r]}(sp)")
                    ready[r] = x2 + LAT["lw"]
                    t = x2 + 1
    # restore what is left, then return
    for r in CALLEE_SAVED:
        if r in saved and r not in retired:
            lines.append(f"    lw      {r}, {slots[r]}(sp)")
            t += 1
    used = [r for r in CALLEE_SAVED if r in saved]
    frame = 0
    if used or stack_reserve:
        frame = (stack_reserve + 4 * len(CALLEE_SAVED) + 15) & ~15
        lines.insert(frame_lines_at, f"    addi    sp, sp, -{frame}")
        lines.append(f"    addi    sp, sp, {frame}")
        t += 2
    lines.append("    ret")
    t += 1
    return Schedule(lines, t, used, frame, times)


def interpret(prog: Program, memory: dict[str, dict[int, int]], regs: dict[str, int]) -> None:
    """Run ``prog`` in program order on Python integers (a check of the generator's arithmetic that
    does not involve the scheduler). ``memory`` maps a buffer name to {byte offset: word}."""
    M = 0xFFFFFFFF
    val = dict(regs)
    val.setdefault("%zero", 0)
    for op in prog.ops:
        mnem = op.fmt.split()[0]
        s = [val[x] for x in op.srcs]
        if op.kind == "lw":
            r = [memory[op.mem[0]][op.mem[1]]]
        elif op.kind == "sw":
            memory[op.mem[0]][op.mem[1]] = s[0]
            continue
        elif mnem == "add":
            r = [(s[0] + s[1]) & M]
        elif mnem == "sub":
            r = [(s[0] - s[1]) & M]
        elif mnem == "sltu":
            r = [int(s[0] < s[1])]
        elif mnem == "xor":
            r = [s[0] ^ s[1]]
        elif mnem == "xori":
            r = [s[0] ^ (int(op.fmt.split()[-1]) & M)]
        elif mnem == "or":
            r = [s[0] | s[1]]
        elif mnem == "and":
            r = [s[0] & s[1]]
        elif mnem == "mv":
            r = [s[0]]
        elif mnem == "neg":
            r = [(-s[0]) & M]
        elif mnem == "li":
            r = [int(op.fmt.split()[-1]) & M]
        elif mnem == "mul":
            r = [(s[0] * s[1]) & M]
        elif mnem == "mulhu":
            r = [(s[0] * s[1]) >> 32]
        elif op.interp is not None:
            r = list(op.interp(*s))
        else:
            raise ValueError(f"cannot interpret {op.fmt}")
        for d, v in zip(op.dsts, r):
            val[d] = v & M
