"""mcucrypt command line: a thin layer over the library (catalog, firmware, kinds, bench, ct, report).

Every bad input ends with a one-line `mcucrypt: error: ...` and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Sequence

from . import bench as bench_mod
from . import ct as ct_mod
from .boards import make_board
from .boards.base import BoardError, BoardFault, Int
from .build import BuildError
from .catalog import CatalogError, load_catalog
from .firmware import Firmware
from .kinds.base import Mismatch, UsageError, driver_for
from .targets import ROOT, TARGETS

EXIT_USAGE = 2           # bad input: unknown name, wrong length, malformed hex, failed authentication
EXIT_FIRMWARE_FAULT = 3  # the firmware faulted or ran away on its board


class CliError(Exception):
    pass


def _target(name: str) -> str:
    if name not in TARGETS:
        raise CliError(f"unknown target {name!r} (known: {', '.join(TARGETS)})")
    return name


# --------------------------------------------------------------------------------------------- list

def cmd_list(opts: argparse.Namespace) -> int:
    cat = load_catalog()
    rows = []
    for prim in cat.primitives.values():
        for impl in prim.implementations.values():
            for prim_id in impl.ids:
                rows.append({"prim": prim_id, "kind": prim.kind, "impl": impl.name,
                             "targets": list(impl.targets), "isa": impl.isa,
                             "constant_time": impl.constant_time,
                             "secret_dependent_addresses": impl.secret_dependent_addresses,
                             "ops": list(impl.functions), "description": impl.description,
                             "secret": {op: list(impl.secret_params(op)) for op in impl.functions}})
    rows.sort(key=lambda r: r["prim"])   # stable: implementations keep their META.yml order
    if opts.json:
        print(json.dumps(rows, indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table
    table = Table(title="mcucrypt implementations")
    for col in ("prim", "impl", "targets", "isa", "constant time"):
        table.add_column(col)
    for r in rows:
        ct_text = "yes" if r["constant_time"] else ("no (secret-indexed tables)"
                                                    if r["secret_dependent_addresses"] else "no")
        table.add_row(r["prim"], r["impl"], " ".join(r["targets"]), r["isa"] or "", ct_text)
    Console(width=max(Console().width, 110)).print(table)
    return 0


# ---------------------------------------------------------------------------------------------- run

def fastest_verified(prim_id: str, target: str) -> Firmware:
    """Among the implementations of ``prim_id`` for ``target``, the one with the fewest cycles in its
    main operation that also passes the official vectors (verdicts are cached per image, so only the
    first choice on a machine runs them). On the host, which has no cycle model, the first one."""
    cat = load_catalog()
    candidates = cat.implementations(prim_id, target)
    if not candidates:
        raise CliError(f"no implementation of {prim_id} runs on {target}")
    if len(candidates) == 1 or target == "host":
        return Firmware(candidates[0], prim_id, target)
    best: tuple[int, Firmware] | None = None
    for impl in candidates:
        fw = Firmware(impl, prim_id, target)
        if bench_mod.kat_status(fw) == "fail":
            continue
        ops = driver_for(impl.primitive.kind).bench(fw)
        name = bench_mod.main_op((o.op, o.bytes) for o in ops)
        main = next((o for o in ops if o.op == name), ops[0])
        if best is None or main.result.cycles < best[0]:
            best = (main.result.cycles, fw)
    if best is None:
        raise CliError(f"no implementation of {prim_id} on {target} passes its vectors")
    return best[1]


def _firmware(prim_id: str, impl: str | None, target: str) -> Firmware:
    """The named implementation, or the fastest verified one."""
    if impl is None:
        return fastest_verified(prim_id, target)
    return Firmware(load_catalog().implementation(prim_id, impl), prim_id, target)


def cmd_run(opts: argparse.Namespace) -> int:
    target = _target(opts.target)
    prim = load_catalog().by_id(opts.prim)
    fw = _firmware(opts.prim, opts.impl, target)
    output, res = driver_for(prim.kind).run(fw, opts)
    doc = {"prim": opts.prim, "impl": fw.impl.name, "target": target, "output": output.hex(),
           "cycles": res.cycles, "instructions": res.instructions, "stack_bytes": res.stack_bytes}
    if opts.json:
        print(json.dumps(doc))
    else:
        for k, v in doc.items():
            print(f"{k:>12}: {v}")
    return 0


# --------------------------------------------------------------------------------------------- call

def cmd_call(opts: argparse.Namespace) -> int:
    target = _target(opts.target)
    board = make_board(target)
    if target == "rv32":
        board.load(opts.elf, isa=opts.isa)  # type: ignore[call-arg]
    else:
        board.load(opts.elf)
    args = []
    for a in opts.args:
        try:
            args.append(Int(int(a, 0), 0))
        except ValueError:
            raise CliError(f"argument {a!r} is not an integer") from None
    res = board.call(opts.symbol, args, max_instructions=opts.max_instructions)
    doc = {"target": target, "symbol": opts.symbol, "cycles": res.cycles, "instructions": res.instructions,
           "return_value": res.return_value, "stack_bytes": res.stack_bytes}
    print(json.dumps(doc) if opts.json else "\n".join(f"{k:>12}: {v}" for k, v in doc.items()))
    return 0


# -------------------------------------------------------------------------------------------- bench

def cmd_bench(opts: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    cat = load_catalog()
    if "host" in (opts.target or ()):
        raise CliError("the host has no cycle model: bench runs on the boards "
                       f"({', '.join(bench_mod.BOARD_TARGETS)})")
    try:
        jobs = bench_mod.select_jobs(cat, opts.prim or (), opts.impl or (), opts.target or ())
    except KeyError as e:
        raise CliError(e.args[0]) from None
    if not jobs:
        raise CliError("nothing to benchmark for that selection")
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        task = progress.add_task("bench", total=len(jobs))

        def advance(job: bench_mod.Job, recs: list[bench_mod.BenchRecord]) -> None:
            progress.update(task, advance=1, description=f"{job.prim} {job.impl} {job.target}")
            for r in recs:
                if r.error:
                    console.print(f"[red]{job.prim} {job.impl} {job.target}: {r.error}")

        records = bench_mod.run_bench(jobs, workers=opts.jobs, progress=advance)
    out = Path(opts.json_file) if opts.json_file else ROOT / "results" / "bench.json"
    bench_mod.write_results(records, out)
    print_bench_table(records)
    goals = [r for r in records if r.goal]
    for r in goals:
        print(f"goal {r.prim} {r.impl} {r.target}: {r.goal}")
    missed = bench_mod.goals_missed(records)
    print(f"results: {out}")
    failed = [r for r in records if r.error or r.kat == "fail" or
              (r.constant_time_claimed and r.constant_time == "fail")]
    if goals:
        print(f"{len(goals) - len(missed)} of {len(goals)} goals met")
    return 1 if failed or missed else 0


def print_bench_table(records: list[bench_mod.BenchRecord]) -> None:
    from rich.console import Console
    from rich.table import Table
    table = Table(title="mcucrypt bench (cycles on the virtual boards)")
    for col, just in (("prim", "left"), ("impl", "left"), ("target", "left"), ("op", "left"),
                      ("bytes", "right"), ("cycles", "right"), ("c/B", "right"), ("code B", "right"),
                      ("stack B", "right"), ("kat", "left"), ("ct", "left")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in records:
        if r.error:
            table.add_row(r.prim, r.impl, r.target, "[red]error", "", "", "", "", "", "fail", "")
            continue
        ct_text = r.constant_time + ("" if r.constant_time_claimed or r.constant_time == "n/a" else " (not claimed)")
        table.add_row(r.prim, r.impl, r.target, r.op, str(r.bytes or ""), f"{r.cycles:,}",
                      f"{r.cycles_per_byte:.2f}" if r.cycles_per_byte is not None else "",
                      f"{r.code_bytes:,}", str(r.stack_bytes), r.kat, ct_text)
    Console(width=160).print(table)


# --------------------------------------------------------------------------------------------- test

def cmd_test(opts: argparse.Namespace) -> int:
    """Every implementation against its vectors (and the model, and the constant-time checker where it
    claims constant time) on every target it supports."""
    cat = load_catalog()
    targets = opts.target or list(TARGETS)
    try:
        jobs = bench_mod.select_jobs(cat, opts.prim or (), opts.impl or (), targets)
    except KeyError as e:
        raise CliError(e.args[0]) from None
    passed = failed = 0
    for job in jobs:
        impl = cat.implementation(job.prim, job.impl)
        driver = driver_for(impl.primitive.kind)
        label = f"{job.prim} {job.impl} {job.target}"
        try:
            fw = Firmware(impl, job.prim, job.target)
            count = driver.check_vectors(fw)
            n = driver.differential(fw, random.Random(f"test/{label}"), opts.random)
            detail = f"{count} vectors, {n} random cases"
            if impl.constant_time and job.target != "host":
                rep = ct_mod.check(fw, trials=4)
                if rep.verdict != "pass":
                    raise Mismatch(rep.summary())
                detail += ", constant time"
            print(f"PASS {label}: {detail}")
            passed += 1
        except (Mismatch, BoardError, BuildError, CatalogError) as e:
            print(f"FAIL {label}: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# ----------------------------------------------------------------------------------------------- ct

def cmd_ct(opts: argparse.Namespace) -> int:
    target = _target(opts.target)
    if target == "host":
        raise CliError("the constant-time check runs on a virtual board (rv32, armv7m, avr), not on host")
    report = ct_mod.check(_firmware(opts.prim, opts.impl, target), trials=opts.trials)
    print(json.dumps(report.to_json(), indent=1) if opts.json else report.summary())
    return 0 if report.verdict == "pass" else 1


# ------------------------------------------------------------------------------------ report, compare

def cmd_report(opts: argparse.Namespace) -> int:
    from . import report
    results = Path(opts.results)
    if not results.is_file():
        raise CliError(f"no results file {results}: run `mcucrypt bench` first")
    try:
        md, page = report.write_report(results, Path(opts.out))
    except (ValueError, KeyError) as e:
        raise CliError(f"{results}: {e}") from None
    print(f"report: {md}\nreport: {page}")
    return 0


def cmd_compare(opts: argparse.Namespace) -> int:
    from . import report
    for f in (opts.old, opts.new):
        if not Path(f).is_file():
            raise CliError(f"no results file {f}")
    try:
        changes, gone, added = report.compare(Path(opts.old), Path(opts.new))
    except (ValueError, KeyError, json.JSONDecodeError) as e:
        raise CliError(str(e)) from None
    regressions = [c for c in changes if c.ratio > 1 + opts.threshold / 100]
    for c in sorted(changes, key=lambda c: c.key):
        if c.old != c.new:
            flag = "REGRESSION" if c in regressions else ("improved" if c.new < c.old else "slower")
            print(f"{' '.join(c.key):60} {c.old:>10,} -> {c.new:>10,} ({(c.ratio - 1) * 100:+.1f}%) {flag}")
    for k in gone:
        print(f"{' '.join(k):60} only in {opts.old}")
    for k in added:
        print(f"{' '.join(k):60} only in {opts.new}")
    same = sum(1 for c in changes if c.old == c.new)
    print(f"{len(changes)} rows compared: {same} unchanged, {len(regressions)} regressions beyond "
          f"{opts.threshold}%")
    return 1 if regressions else 0


# ---------------------------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mcucrypt", description="Verified, measured cryptography for "
                                "RV32 (SiFive E31), Cortex-M3 and AVR, on cycle-accurate virtual boards.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="implementations in the catalog")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("run", help="run one primitive once on a board")
    s.add_argument("prim")
    s.add_argument("--target", required=True)
    s.add_argument("--impl")
    for name in ("key", "nonce", "ad", "input", "a", "b"):
        s.add_argument(f"--{name}", help=f"{name} as hex")
    s.add_argument("--counter", type=int, default=0, help="stream ciphers: the first block counter")
    s.add_argument("--decrypt", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("call", help="time any function of an ELF built for a board")
    s.add_argument("--target", required=True)
    s.add_argument("--isa", default=None, help="rv32 only: the ISA the firmware may use (default rv32imac)")
    s.add_argument("--max-instructions", type=int, default=50_000_000)
    s.add_argument("elf")
    s.add_argument("symbol")
    s.add_argument("args", nargs="*", help="integer arguments (decimal or 0x hex)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_call)

    s = sub.add_parser("bench", help="benchmark the catalog on the virtual boards")
    s.add_argument("--target", action="append")
    s.add_argument("--prim", action="append")
    s.add_argument("--impl", action="append")
    s.add_argument("--json", dest="json_file", metavar="FILE", help="results file (default results/bench.json)")
    s.add_argument("--jobs", type=int, default=None, help="parallel processes (default: one per core)")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("test", help="every implementation against its vectors on every target")
    s.add_argument("--target", action="append")
    s.add_argument("--prim", action="append")
    s.add_argument("--impl", action="append")
    s.add_argument("--random", type=int, default=20, help="random differential cases per implementation")
    s.set_defaults(func=cmd_test)

    s = sub.add_parser("ct", help="constant-time check of one implementation on its board")
    s.add_argument("prim")
    s.add_argument("--target", required=True)
    s.add_argument("--impl")
    s.add_argument("--trials", type=int, default=8)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_ct)

    s = sub.add_parser("report", help="tables, plots and provenance from a results file")
    s.add_argument("--results", default=str(ROOT / "results" / "bench.json"))
    s.add_argument("--out", default=str(ROOT / "results"))
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("compare", help="per-row cycle changes between two results files")
    s.add_argument("old")
    s.add_argument("new")
    s.add_argument("--threshold", type=float, default=1.0, help="percent slower that counts as a regression")
    s.set_defaults(func=cmd_compare)

    from .silicon.cli import register as register_silicon   # firmware, ingest (real boards)
    register_silicon(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        return opts.func(opts)
    except BoardFault as e:
        print(f"mcucrypt: firmware fault: {e}", file=sys.stderr)
        return EXIT_FIRMWARE_FAULT
    except (CliError, CatalogError, UsageError, BoardError, BuildError) as e:
        msg = str(e).splitlines()[0] if not isinstance(e, (BuildError, BoardError)) else str(e)
        print(f"mcucrypt: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
