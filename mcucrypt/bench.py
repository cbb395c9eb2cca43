# SPDX-License-Identifier: MIT
"""Benchmark: every selected (primitive id, implementation, target) measured on its virtual board.

One job per (id, implementation, target): build, load, run the official vectors (the `kat` field), run
the constant-time checker (the `constant_time` field), then every operation of the kind driver once on
fixed inputs (the cycle figures). Jobs run in parallel processes; every figure is deterministic.
"""
from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable

from . import ct, runner
from .build import compiler_version
from .catalog import Catalog, Goal, load_catalog
from .firmware import Firmware
from .kinds.base import Mismatch, driver_for
from .resultfile import Journal, atomic_write_text
from .records import SCHEMA_VERSION, read_results  # noqa: F401  (read_results: bench.read_results callers)
from .targets import ROOT, TARGETS

BOARD_TARGETS = ("rv32", "armv7m", "avr")
CT_TRIALS_IN_BENCH = ct.TRIALS_IN_TEST   # trace mode only (boards without taint tracking)
# SCHEMA_VERSION: the results file's version (mcucrypt/records.py, which reads and checks results files)
DEFAULT_RESULTS = ROOT / "results" / "bench.json"


@dataclass(frozen=True)
class Job:
    prim: str
    impl: str
    target: str
    core: str | None = None    # a part other than the target's default (avr: atmega1284p, atmega2560)


@dataclass
class BenchRecord:
    prim: str
    impl: str
    target: str
    op: str
    bytes: int
    cycles: int
    cycles_per_byte: float | None
    instructions: int
    code_bytes: int
    stack_bytes: int
    kat: str                   # pass | fail | n/a
    constant_time: str         # pass | fail | n/a
    constant_time_claimed: bool
    isa: str | None
    error: str | None = None
    goal: str | None = None        # e.g. "encrypt <= 36 cycles/byte: met" (META.yml goals)
    cycles_warm: int | None = None # rv32: after one identical call trained the branch predictor
    flash_data_reads: int | None = None  # armv7m: data reads from flash (tables, literals): data placement
    constant_time_mode: str = "n/a"  # taint | trace | n/a: which mode of the checker (ct.py) decided
    core: str | None = None        # measured on this part instead of the target's default (bench --core)
    static_ram_bytes: int | None = None  # the implementation's .data and .bss in the image (build.static_ram_size)
    ram_bytes: int | None = None   # stack_bytes + static_ram_bytes: what the call needs of the part's RAM


def select_jobs(catalog: Catalog, prims: Iterable[str] = (), impls: Iterable[str] = (),
                targets: Iterable[str] = (), core: str | None = None) -> list[Job]:
    """Jobs of the selection; with ``core`` (a part of one target, mcucrypt/cores.py) only that target's
    implementations that run on the part, each built for and run on it."""
    prims, impls, targets = list(prims), list(impls), list(targets) or list(BOARD_TARGETS)
    for p in prims:
        catalog.by_id(p)   # raises on an unknown id
    for t in targets:
        if t not in TARGETS:
            raise KeyError(f"unknown target {t!r} (known: {', '.join(TARGETS)})")
    known_impls = {i.name for p in catalog.primitives.values() for i in p.implementations.values()}
    for i in impls:
        if i not in known_impls:
            raise KeyError(f"unknown implementation {i!r} (known: {', '.join(sorted(known_impls))})")
    part = None
    if core is not None:
        from .cores import CORES
        part = CORES[core]
        targets = [t for t in targets if t == part.target]
    jobs = []
    for prim_id in prims or catalog.all_ids():
        for impl in catalog.implementations(prim_id):
            if impls and impl.name not in impls:
                continue
            if part is not None and part.why_not(impl):
                continue
            for target in impl.targets:
                if target in targets:
                    jobs.append(Job(prim_id, impl.name, target, core))
    return jobs


def main_op(ops: Iterable[tuple[str, int]]) -> str | None:
    """Of (op name, bytes) pairs, the operation that stands for a primitive in comparisons: one-block
    encryption, the multiplication, or the longest plain encryption; never a key schedule."""
    with_bytes = [(name, n) for name, n in ops if n]
    for wanted in ("encrypt", "mul"):
        if any(name == wanted for name, _ in with_bytes):
            return wanted
    plain = [(name, n) for name, n in with_bytes if name.startswith("encrypt") and "+" not in name]
    pool = plain or with_bytes
    return max(pool, key=lambda p: p[1])[0] if pool else None


def kat_status(fw: Firmware) -> str:
    """pass / fail / n/a of the official vectors on this image. The verdict is cached beside the image,
    keyed by the image (whose name is the hash of every input) and the vector files' contents, so
    `mcucrypt run` can pick the fastest verified implementation without re-running thousands of vectors."""
    driver = driver_for(fw.impl.primitive.kind)
    vectors = driver.kat_vectors(fw)
    if not vectors:
        return "n/a"
    files = sorted({v.file for v in vectors})
    # The selection can depend on the environment (X25519 on the boards: a documented subset unless
    # MCUCRYPT_FULL is set, kinds/dh.py), so the selection's size is part of the key.
    key = hashlib.sha256(b"".join(f.read_bytes() for f in files) + fw.prim_id.encode()
                         + str(len(vectors)).encode()).hexdigest()[:16]
    cache = fw.image.path.with_name(f"{fw.image.path.stem}.kat-{fw.prim_id}-{key}")
    if cache.is_file():
        return cache.read_text().strip()
    try:
        driver.check_vectors(fw, vectors)
        verdict = "pass"
    except Mismatch:
        verdict = "fail"
    atomic_write_text(cache, verdict + "\n")   # a worker killed mid-write leaves no empty verdict
    return verdict


def run_job(job: Job) -> list[BenchRecord]:
    catalog = load_catalog()
    impl = catalog.implementation(job.prim, job.impl)
    fw = Firmware(impl, job.prim, job.target, core=job.core)
    driver = driver_for(impl.primitive.kind)
    kat = kat_status(fw)
    ct_report = None if job.target == "host" else ct.check(fw, CT_TRIALS_IN_BENCH, seed=0)   # reproducible
    ct_status = "n/a" if ct_report is None else ct_report.verdict
    isa = impl.isa if job.target == "rv32" else None
    warm: dict[str, int] = {}
    if job.target == "rv32":   # the only board whose state (the branch predictor) carries over
        warm = {o.op: o.result.cycles for o in driver.bench(Firmware(impl, job.prim, job.target, warm=True))}
    flash_reads: dict[int, int] = {}    # id(CallResult) -> the board's flash data reads in that call
    if hasattr(fw.board, "last_flash_data_reads"):
        board_call = fw.board.call

        def counted_call(*args, **kwargs):  # type: ignore[no-untyped-def]
            result = board_call(*args, **kwargs)
            flash_reads[id(result)] = fw.board.last_flash_data_reads  # type: ignore[attr-defined]
            return result
        fw.board.call = counted_call        # type: ignore[method-assign]
    records = []
    for op in driver.bench(fw):
        r = op.result
        records.append(BenchRecord(
            prim=job.prim, impl=job.impl, target=job.target, op=op.op, bytes=op.bytes, cycles=r.cycles,
            cycles_per_byte=round(r.cycles / op.bytes, 2) if op.bytes else None,
            instructions=r.instructions, code_bytes=fw.code_bytes, stack_bytes=r.stack_bytes,
            kat=kat, constant_time=ct_status, constant_time_claimed=impl.constant_time, isa=isa,
            cycles_warm=warm.get(op.op), flash_data_reads=flash_reads.get(id(r)),
            constant_time_mode="n/a" if ct_report is None else ct_report.mode, core=job.core,
            static_ram_bytes=fw.static_ram_bytes, ram_bytes=r.stack_bytes + fw.static_ram_bytes))
    if job.core is None:    # META.yml goals speak of the target's default part
        _check_goals(impl.primitive.goals, records)
    return records


GOAL_SEPARATOR = "; "      # between the goals of one record


def _check_goals(goals: Iterable[Goal], records: list[BenchRecord]) -> None:
    """Mark every record that goals of META.yml speak of with each goal and its outcome: 'met', 'MISSED',
    or 'OPEN' (an open goal not met: an issue's target out of reach or still ahead, as its source says).
    Several goals on one record are joined by GOAL_SEPARATOR."""
    by_op = {r.op: r for r in records}
    for g in goals:
        if not records or (g.id, g.impl, g.target) != (records[0].prim, records[0].impl, records[0].target):
            continue
        rec = by_op.get(g.op)
        if rec is None:
            raise KeyError(f"goal on {g.id} {g.impl} {g.target}: no bench op {g.op!r} "
                           f"(ops: {', '.join(by_op)})")
        if g.relative_to:
            value = rec.cycles / by_op[g.relative_to].cycles
        else:
            value = getattr(rec, g.metric)
        met = value is not None and value <= g.max
        verdict = "met" if met else ("OPEN, not met" if g.open else "MISSED")
        shown = f"{int(value):,}" if float(value).is_integer() else f"{value:,.2f}"
        part = f"{g.describe()}: {verdict} ({shown})"
        rec.goal = part if not rec.goal else rec.goal + GOAL_SEPARATOR + part


def goal_parts(goal: str | None) -> list[str]:
    """The goals of one record ('<goal>: <outcome> (<measured>)' each)."""
    return goal.split(GOAL_SEPARATOR) if goal else []


def _goals_with(records: Iterable[BenchRecord], outcome: str) -> list[str]:
    return [p for r in records for p in goal_parts(r.goal) if p.split(": ")[1].startswith(outcome)]


def goals_missed(records: Iterable[BenchRecord]) -> list[str]:
    """The goals that failed (open goals not met are not failures)."""
    return _goals_with(records, "MISSED")


def goals_open(records: Iterable[BenchRecord]) -> list[str]:
    """Open goals (issue targets recorded with `open: true`) not met."""
    return _goals_with(records, "OPEN")


def _job_safely(job: Job) -> list[BenchRecord]:
    try:
        return run_job(job)
    except Exception as e:  # one broken implementation must not hide the others' figures
        return [BenchRecord(job.prim, job.impl, job.target, "error", 0, 0, None, 0, 0, 0, "fail", "fail",
                            False, None, error=f"{type(e).__name__}: {e}", core=job.core)]


def job_key(job: Job) -> tuple:
    """A job as the journal and the results name it."""
    return (job.prim, job.impl, job.target, job.core)


def record_from_dict(d: dict) -> BenchRecord:
    """A record as written by ``asdict`` (a journal line, a results file of this schema) back as a BenchRecord."""
    return BenchRecord(**{k: v for k, v in d.items() if k != "schema_version"})


def run_bench(jobs: list[Job], *, workers: int | None = None, scheduler: str | runner.DaskCluster | None = None,
              progress: Callable[[Job, list[BenchRecord]], None] | None = None,
              journal: Journal | None = None) -> list[BenchRecord]:
    """Every job's records, in the order of ``jobs``. Jobs run in ``workers`` local processes, or on the
    Dask cluster at ``scheduler`` (mcucrypt/runner.py). With a ``journal``, the jobs it already holds are
    not run again (their records come from it) and each job that finishes is appended to it at once."""
    done: dict[tuple, list[BenchRecord]] = {}
    if journal is not None:
        done = {k: [record_from_dict(r) for r in recs] for k, recs in journal.done.items()}

    def finished(job: Job, recs: list[BenchRecord]) -> None:
        done[job_key(job)] = recs
        if journal is not None:
            journal.add(job_key(job), [asdict(r) for r in recs])
        if progress:
            progress(job, recs)

    todo = [j for j in jobs if job_key(j) not in done]
    runner.run_jobs(_job_safely, todo, workers=workers, scheduler=scheduler, on_done=finished)
    return [r for j in jobs for r in done[job_key(j)]]


def provenance(cores: Iterable[str] = ()) -> dict:
    """Everything a figure depends on: commit, toolchains, flags, simulators and their timing models."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"
    from .boards import make_board
    boards = {}
    for t in BOARD_TARGETS:
        try:
            boards[t] = make_board(t).describe_model()
        except Exception as e:   # a board that cannot start is itself a fact worth recording
            boards[t] = {"error": str(e)}
    from .cores import CORES
    for c in cores:              # records measured on another part (bench --core): that part's board too
        try:
            boards[f"{CORES[c].target}:{c}"] = make_board(CORES[c].target, CORES[c].mcu).describe_model()
        except Exception as e:
            boards[f"{CORES[c].target}:{c}"] = {"error": str(e)}
    toolchains = {}
    for name, t in TARGETS.items():
        try:
            toolchains[name] = {"cc": compiler_version(t.cc), "cflags": list(t.cflags)}
        except Exception as e:
            toolchains[name] = {"error": str(e)}
    return {
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": platform.platform(),
        "python": platform.python_version(),
        "toolchains": toolchains,
        "boards": boards,
    }


def results_path(prims: Iterable[str] = (), impls: Iterable[str] = (), targets: Iterable[str] = (),
                 core: str | None = None) -> Path:
    """Where a run's results go when no file is named: the whole catalog to results/bench.json (what
    `mcucrypt report` reads); a partial run (any --prim/--impl/--target) to a file of its own named after
    the selection, so it never replaces the full results (`--merge` merges instead)."""
    parts = [*prims, *impls, *targets, *([core] if core else [])]
    if not parts:
        return DEFAULT_RESULTS
    slug = "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", p) for p in parts)
    if len(slug) > 80:
        slug = slug[:60] + "-" + hashlib.sha256(slug.encode()).hexdigest()[:8]
    return ROOT / "results" / f"bench-{slug}.json"


def write_results(records: list[BenchRecord], path: Path, *, merge: bool = False) -> int:
    """Write ``records`` to ``path``; return how many records the file holds.

    With ``merge``, an existing file keeps every record of the (prim, impl, target) jobs this run did not
    measure; the jobs it did measure are replaced as a whole (so an operation that no longer exists does
    not linger), in place, and new jobs are appended. The file's provenance is this run's; what was kept
    from earlier runs is listed under ``earlier_runs``."""
    new = [{"schema_version": SCHEMA_VERSION, **asdict(r)} for r in records]
    doc: dict = {"schema_version": SCHEMA_VERSION,
                 "provenance": provenance(sorted({r.core for r in records if r.core})), "records": new}
    if merge and path.is_file():
        old = read_results(path)
        fresh: dict[tuple, list[dict]] = {}
        for r in new:
            fresh.setdefault((r["prim"], r["impl"], r["target"]), []).append(r)
        measured = set(fresh)
        merged: list[dict] = []
        kept = 0
        for r in old["records"]:
            job = (r["prim"], r["impl"], r["target"])
            if job in fresh:
                merged += fresh.pop(job)     # the new records of a job take the place of its old ones
            elif job not in measured:
                merged.append(r)
                kept += 1
        merged += [r for recs in fresh.values() for r in recs]
        earlier = list(old.get("earlier_runs", []))
        if kept:
            prov = old["provenance"]
            earlier.append({"git_commit": prov.get("git_commit"), "date": prov.get("date"),
                            "records_kept": kept})
        doc["records"], doc["earlier_runs"] = merged, earlier
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")
    return len(doc["records"])
