# SPDX-License-Identifier: MIT
"""A list scheduler for straight-line RV32 code on the SiFive E31, shared by the AES generators here.

The E31 issues one instruction a cycle in order and interlocks only on operands that are not ready:
ALU results are ready the next cycle, LW two cycles after issue, LB/LBU/LH/LHU three (docs/board-rv32.md).
A block of straight-line code is reordered so that no instruction waits, keeping every register and memory
dependency: read-after-write, write-after-read, write-after-write, and loads/stores through the same base
register in program order (different base registers are different buffers in the code we generate).
Priority: the longest latency-weighted path to the end of the block (critical path first), then program
order. The result is checked by re-simulating it (`stalls`)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

LOAD_LATENCY = {"lw": 2, "lb": 3, "lbu": 3, "lh": 3, "lhu": 3}
STORES = ("sw", "sh", "sb")
SIZE = {"lw": 4, "sw": 4, "lh": 2, "lhu": 2, "sh": 2, "lb": 1, "lbu": 1, "sb": 1}
_MEM = re.compile(r"^(-?\w+|-?\d+|%lo\(.*\)|\(.*\))?\((\w+)\)$")


@dataclass
class Insn:
    text: str                      # "op a, b, c" (a comment after '#' is kept)
    defs: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    mem: str | None = None         # base register of a load/store
    offset: int | None = None      # its offset when a plain number
    size: int = 4
    store: bool = False
    latency: int = 1
    succ: list[int] = field(default_factory=list)
    npred: int = 0


def parse(text: str) -> Insn:
    code = text.split("#")[0].strip()
    op, _, rest = code.partition(" ")
    args = [a.strip() for a in rest.split(",")] if rest.strip() else []
    regs = lambda xs: tuple(x for x in xs if re.fullmatch(r"(zero|ra|sp|gp|tp|[ast]\d+|x\d+)", x) and x != "zero")
    if op in LOAD_LATENCY or op in STORES:
        m = _MEM.match(args[1])
        base, off = m.group(2), m.group(1) or "0"
        off = int(off) if re.fullmatch(r"-?\d+", off) else None
        if op in STORES:
            return Insn(text, uses=regs([args[0], base]), mem=base, offset=off, size=SIZE[op], store=True)
        return Insn(text, defs=regs([args[0]]), uses=(base,), mem=base, offset=off, size=SIZE[op],
                    latency=LOAD_LATENCY[op])
    if not args:
        return Insn(text)
    return Insn(text, defs=regs(args[:1]), uses=regs(args[1:]))


def _overlap(a: Insn, b: Insn) -> bool:
    if a.offset is None or b.offset is None:
        return True
    return a.offset < b.offset + b.size and b.offset < a.offset + a.size


def schedule(lines: list[str], disambiguate: bool = False) -> list[str]:
    """disambiguate: accesses through the same base register at plain-number offsets whose bytes do not
    overlap are independent (a change of the base register between them is ordered by its own register
    dependencies)."""
    insns = [parse(t) for t in lines]
    last_def: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    mem_last: dict[str, list[int]] = {}     # base -> accesses since the last store, and that store
    edges: set[tuple[int, int]] = set()
    for i, ins in enumerate(insns):
        for r in ins.uses:
            if r in last_def:
                edges.add((last_def[r], i))
        for r in ins.defs:
            for j in readers.get(r, []):
                if j != i:
                    edges.add((j, i))
            if r in last_def:
                edges.add((last_def[r], i))
        if ins.mem is not None:
            prev = mem_last.setdefault(ins.mem, [])
            for j in prev:
                if (ins.store or insns[j].store) and (not disambiguate or _overlap(ins, insns[j])):
                    edges.add((j, i))
            prev.append(i)
        for r in ins.uses:
            readers.setdefault(r, []).append(i)
        for r in ins.defs:
            last_def[r] = i
            readers[r] = []
    for a, b in edges:
        insns[a].succ.append(b)
        insns[b].npred += 1
    # critical path heights
    height = [0] * len(insns)
    for i in range(len(insns) - 1, -1, -1):
        h = 0
        for s in insns[i].succ:
            h = max(h, height[s])
        height[i] = h + insns[i].latency
    ready_at: dict[str, int] = {}
    npred = [ins.npred for ins in insns]
    avail = [i for i in range(len(insns)) if npred[i] == 0]
    out: list[str] = []
    cycle = 0
    while avail:
        def start(i: int) -> int:
            return max([cycle] + [ready_at.get(r, 0) for r in insns[i].uses])
        best = min(avail, key=lambda i: (start(i), -height[i], i))
        cycle = start(best)
        ins = insns[best]
        for r in ins.defs:
            ready_at[r] = cycle + ins.latency
        cycle += 1
        out.append(ins.text)
        avail.remove(best)
        for s in ins.succ:
            npred[s] -= 1
            if npred[s] == 0:
                avail.append(s)
    assert len(out) == len(insns), "dependency cycle"
    return out


def stalls(lines: list[str]) -> int:
    """Cycles lost to operand interlocks if ``lines`` run from a cold start (no pending results)."""
    ready_at: dict[str, int] = {}
    cycle = 0
    lost = 0
    for t in lines:
        ins = parse(t)
        start = max([cycle] + [ready_at.get(r, 0) for r in ins.uses])
        lost += start - cycle
        for r in ins.defs:
            ready_at[r] = start + ins.latency
        cycle = start + 1
    return lost
