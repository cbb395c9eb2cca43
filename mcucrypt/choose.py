# SPDX-License-Identifier: MIT
"""Which implementation to use when none is named: the fastest one that passes its official vectors and
runs on the core (`mcucrypt run` without `--impl`, `mcucrypt export`).

Verdicts and cycle figures come from the virtual board and are cached beside each image (its file name is
the hash of every input, and cycle counts are deterministic), so only the first choice on a machine runs
the vectors and the benchmark operations.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import bench as bench_mod
from .catalog import Implementation, load_catalog
from .cores import Core, get_core
from .firmware import Firmware
from .kinds.base import driver_for


class ChoiceError(ValueError):
    pass


@dataclass
class Choice:
    prim_id: str
    target: str
    core: Core
    impl: Implementation
    cycles: int | None                 # of the main operation on the board (None on the host)
    op: str | None
    excluded: dict[str, str] = field(default_factory=dict)   # impl -> why it was not a candidate
    ct_fallback: bool = False          # constant time preferred, but no candidate claims it
    code_bytes: int | None = None      # the implementation's code in the image (None on the host)
    stack_bytes: int | None = None     # the main operation's stack on the board

    def firmware(self) -> Firmware:
        return Firmware(self.impl, self.prim_id, self.target, core=self.core)


def runnable(prim_id: str, target: str, core: Core) -> tuple[list[Implementation], dict[str, str]]:
    """Implementations of ``prim_id`` that run on ``core``, and the others with the reason."""
    ok, excluded = [], {}
    for impl in load_catalog().implementations(prim_id, target):
        why = core.why_not(impl)
        if why:
            excluded[impl.name] = why
        else:
            ok.append(impl)
    return ok, excluded


def main_op(fw: Firmware) -> tuple[str, int, int]:
    """(operation, cycles, stack bytes) of the primitive's main operation (bench.main_op) on the board,
    cached."""
    driver = driver_for(fw.impl.primitive.kind)
    src = Path(__import__(type(driver).__module__, fromlist=["_"]).__file__)
    key = hashlib.sha256(src.read_bytes() + fw.prim_id.encode()).hexdigest()[:16]
    cache = fw.image.path.with_name(f"{fw.image.path.stem}.main-{fw.prim_id}-{key}")
    if cache.is_file():
        fields = cache.read_text().split()
        if len(fields) == 3:            # (an older cache without the stack figure is measured again)
            return fields[0], int(fields[1]), int(fields[2])
    ops = driver.bench(fw)
    name = bench_mod.main_op((o.op, o.bytes) for o in ops)
    main = next((o for o in ops if o.op == name), ops[0])
    cache.write_text(f"{main.op} {main.result.cycles} {main.result.stack_bytes}\n")
    return main.op, main.result.cycles, main.result.stack_bytes


def main_op_cycles(fw: Firmware) -> tuple[str, int]:
    """(operation, cycles) of the primitive's main operation on the board, cached."""
    op, cycles, _ = main_op(fw)
    return op, cycles


OPTIMIZE = ("speed", "size", "balanced")


def _score(optimize: str, cycles: int, code: int, best_cycles: int, best_code: int) -> tuple:
    """Lower is better: speed (cycles, then code), size (code, then cycles), balanced (the product of
    each figure's ratio to the best candidate's: twice as slow weighs as much as twice as large)."""
    if optimize == "speed":
        return (cycles, code)
    if optimize == "size":
        return (code, cycles)
    return ((cycles / best_cycles) * (code / best_code), cycles)


def choose(prim_id: str, target: str, core: str | Core | None = None, *, prefer_ct: bool = False,
           reentrant_only: bool = False, optimize: str = "speed",
           progress: Callable[[str], None] | None = None) -> Choice:
    """The fastest verified implementation of ``prim_id`` that runs on ``core`` (default: the target's real
    part); with ``optimize`` "size" the smallest (code bytes in the image), "balanced" the best product
    of the two ratios to the best candidate's. ``progress`` hears a line before each candidate is built,
    checked and timed (the first choice on a machine runs every candidate's vectors: minutes). With
    ``prefer_ct`` only implementations claiming constant time compete, unless there are none (then
    ``ct_fallback`` is set and every candidate competes); with ``reentrant_only`` none that keeps state in
    static RAM (META.yml `reentrant: false`). An implementation with a state layout of its own (it exports
    `interleave`: permute takes bit-interleaved lanes) is never chosen: its generic permute would not take
    the specification's layout."""
    c = core if isinstance(core, Core) else get_core(target, core)
    cands, excluded = runnable(prim_id, target, c)
    for i in cands:
        if "interleave" in i.functions:
            excluded[i.name] = "own state layout (interleave/deinterleave): only by name"
    cands = [i for i in cands if "interleave" not in i.functions]
    if reentrant_only:
        for i in cands:
            if not i.reentrant:
                excluded[i.name] = "not reentrant (state in static RAM)"
        cands = [i for i in cands if i.reentrant]
    if not cands:
        raise ChoiceError(f"no implementation of {prim_id} runs on {c.name}"
                          + (f" ({'; '.join(f'{k}: {v}' for k, v in excluded.items())})" if excluded else ""))
    fallback = False
    if prefer_ct:
        ct = [i for i in cands if i.constant_time]
        fallback = not ct
        for i in cands:
            if ct and not i.constant_time:
                excluded[i.name] = "not constant time"
        cands = ct or cands
    if target == "host":
        return Choice(prim_id, target, c, cands[0], None, None, excluded, fallback)
    if optimize not in OPTIMIZE:
        raise ChoiceError(f"optimize for {' | '.join(OPTIMIZE)}, not {optimize!r}")
    measured: list[Choice] = []
    for n, impl in enumerate(cands, 1):
        if progress:
            progress(f"{prim_id}: {impl.name} ({n} of {len(cands)}): vectors, cycles and size on {c.name}")
        fw = Firmware(impl, prim_id, target, core=c)     # on the core's part (avr: its -mmcu)
        if bench_mod.kat_status(fw) == "fail":
            excluded[impl.name] = "fails its vectors"
            continue
        op, cycles, stack = main_op(fw)
        measured.append(Choice(prim_id, target, c, impl, cycles, op, excluded, fallback, fw.code_bytes, stack))
    if not measured:
        raise ChoiceError(f"no implementation of {prim_id} on {c.name} passes its vectors")
    fast = min(m.cycles or 1 for m in measured)
    small = min(m.code_bytes or 1 for m in measured)
    return min(measured, key=lambda m: _score(optimize, m.cycles or 0, m.code_bytes or 0, fast, small))
