# SPDX-License-Identifier: MIT
"""Differential fuzzer: random inputs (random lengths for AEAD, random sizes for multiplication, as each
kind driver draws them) across every implementation of every primitive on every target, each compared
with the independent model (so with each other too), until a time budget runs out.

`make fuzz` runs it; it reports what it ran and exits non-zero on the first disagreement, printing the
seed that reproduces it (`python -m mcucrypt.fuzz --seed S --budget ...`).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from .bench import select_jobs
from .catalog import load_catalog
from .firmware import Firmware
from .kinds.base import Mismatch, driver_for
from .targets import TARGETS


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="mcucrypt-fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=300, help="seconds (default 300)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--target", action="append")
    p.add_argument("--prim", action="append")
    opts = p.parse_args(argv)
    seed = opts.seed if opts.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    cat = load_catalog()
    jobs = select_jobs(cat, opts.prim or (), (), opts.target or list(TARGETS))
    firmware: dict = {}
    ran: Counter = Counter()
    deadline = time.monotonic() + opts.budget
    print(f"fuzz: seed {seed}, {len(jobs)} (primitive, implementation, target) combinations, "
          f"budget {opts.budget:.0f} s")
    while time.monotonic() < deadline:
        job = rng.choice(jobs)
        if job not in firmware:
            firmware[job] = Firmware(cat.implementation(job.prim, job.impl), job.prim, job.target)
        fw = firmware[job]
        case_seed = rng.randrange(2**32)
        try:
            driver_for(fw.impl.primitive.kind).differential(fw, random.Random(case_seed), 1)
        except Mismatch as e:
            print(f"fuzz: MISMATCH {job.prim} {job.impl} on {job.target} (case seed {case_seed}): {e}")
            return 1
        ran[job] += 1
    for job, n in sorted(ran.items(), key=lambda kv: (kv[0].prim, kv[0].impl, kv[0].target)):
        print(f"  {job.prim:12} {job.impl:16} {job.target:7} {n:6} cases")
    print(f"fuzz: {sum(ran.values())} random cases over {len(ran)} combinations agreed with the models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
