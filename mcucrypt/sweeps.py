# SPDX-License-Identifier: MIT
"""The catalog sweeps besides `bench`: the vector sweep (`mcucrypt test`) and the constant-time checker
over the catalog (`mcucrypt ct --all`).

Each job is a module-level function of one bench.Job returning plain data, so mcucrypt/runner.py can run
it in a local process or on a Dask cluster and the result is the same: nothing in it depends on where or
when it ran (fixed seeds; the checker's wall-clock time is left out).
"""
from __future__ import annotations

import random
from functools import partial
from typing import Callable

from . import ct, runner
from .bench import Job, job_key
from .boards.base import BoardError
from .build import BuildError
from .catalog import CatalogError, load_catalog
from .firmware import Firmware
from .kinds.base import Mismatch, driver_for
from .resultfile import Journal

CT_SWEEP_SCHEMA = 1       # version of a `ct --all` results file and of each of its records


def job_label(job: Job) -> str:
    return f"{job.prim} {job.impl} {job.target}" + (f" ({job.core})" if job.core else "")


def vectors_job(job: Job, random_cases: int) -> tuple[bool, str]:
    """`mcucrypt test` for one job: the official vectors, ``random_cases`` differential cases against the
    independent model (seeded by the job's name), and the constant-time checker where the implementation
    claims constant time. (passed, what was checked or why it failed)."""
    impl = load_catalog().implementation(job.prim, job.impl)
    driver = driver_for(impl.primitive.kind)
    try:
        fw = Firmware(impl, job.prim, job.target, core=job.core)
        count = driver.check_vectors(fw)
        n = driver.differential(fw, random.Random(f"test/{job_label(job)}"), random_cases)
        detail = f"{count} vectors, {n} random cases"
        if impl.constant_time and job.target != "host":
            rep = ct.check(fw, trials=ct.TRIALS_IN_TEST)
            if rep.verdict != "pass":
                raise Mismatch(rep.summary())
            detail += f", constant time ({rep.mode} mode)"
        return True, detail
    except (Mismatch, BoardError, BuildError, CatalogError) as e:
        return False, str(e)


def ct_job(job: Job, trials: int, seed: int, mode: str | None) -> dict:
    """The constant-time checker on one job, as a record: the checker's report (ct.CtReport.to_json, less
    its wall-clock seconds) with the job's core, whether META.yml claims constant time, and ``error`` when
    the job could not be checked (a build or board error: the other jobs' records still count)."""
    base = {"schema_version": CT_SWEEP_SCHEMA, "prim": job.prim, "impl": job.impl, "target": job.target,
            "core": job.core}
    try:
        impl = load_catalog().implementation(job.prim, job.impl)
        fw = Firmware(impl, job.prim, job.target, core=job.core)
        if mode == "taint" and not fw.board.supports_taint:
            raise CatalogError(f"the {job.target} board has no taint tracking: use --mode trace")
        report = ct.check(fw, trials=trials, seed=seed, mode=mode).to_json()
    except Exception as e:   # one broken implementation must not hide the others' verdicts
        return {**base, "verdict": "error", "claimed": None, "error": f"{type(e).__name__}: {e}"}
    report.pop("seconds", None)
    return {**base, **report, "claimed": impl.constant_time, "error": None}


def run_ct_sweep(jobs: list[Job], *, trials: int, seed: int, mode: str | None, workers: int | None = None,
                 scheduler: object = None, progress: Callable[[Job, list[dict]], None] | None = None,
                 journal: Journal | None = None) -> list[dict]:
    """ct_job on every job, in the order of ``jobs``: in local processes or on a Dask cluster
    (runner.run_jobs); with a ``journal``, the jobs it holds are not run again and each finished job is
    appended to it at once."""
    done: dict[tuple, list[dict]] = dict(journal.done) if journal is not None else {}

    def finished(job: Job, record: dict) -> None:
        done[job_key(job)] = [record]
        if journal is not None:
            journal.add(job_key(job), [record])
        if progress:
            progress(job, [record])

    todo = [j for j in jobs if job_key(j) not in done]
    runner.run_jobs(partial(ct_job, trials=trials, seed=seed, mode=mode), todo, workers=workers,
                    scheduler=scheduler, on_done=finished)   # type: ignore[arg-type]
    return [r for j in jobs for r in done[job_key(j)]]
