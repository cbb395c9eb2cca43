# SPDX-License-Identifier: MIT
"""mcucrypt command line: a thin layer over the library (catalog, firmware, kinds, bench, ct, report).

Every bad input ends with a one-line `mcucrypt: error: ...` and exit status 2, never a traceback.

Subcommands that belong to another module register themselves: the module defines
``register(subparsers)`` (adding its parser with ``set_defaults(func=...)``) and gets one line in
``SUBCOMMAND_MODULES`` below. Help, completion and the one-line errors then cover it like the others.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Callable, Sequence

from . import bench as bench_mod
from . import ct as ct_mod
from . import runner
from .boards import make_board
from .boards.base import DEFAULT_MAX_INSTRUCTIONS, Arg, BoardError, BoardFault, Buf, Int
from .boards.taint_common import ENGINE_ENV, ENGINES
from .build import BuildError
from .catalog import CatalogError, load_catalog
from .firmware import Firmware
from .kinds.base import HEX_RULE, UsageError, driver_for, parse_hex
from .records import OutputPathError, RecordsError, check_out_dir, read_results
from .resultfile import Journal, ResultsFileError, ResultsLock, atomic_write_text, check_output_file
from .targets import ROOT, TARGETS

EXIT_USAGE = 2           # bad input: unknown name, wrong length, malformed hex, failed authentication
EXIT_FIRMWARE_FAULT = 3  # the firmware faulted or ran away on its board
EXIT_BROKEN_PIPE = 141   # the reader of the output went away (128 + SIGPIPE, as a shell reports it)

# Modules (under mcucrypt/) that add subcommands through register(subparsers); one line each.
SUBCOMMAND_MODULES: list[str] = [
    "export",       # mcucrypt/export.py: export
    "calibrate",    # mcucrypt/calibrate.py: calibrate --peer-dir DIR
    "silicon.cli",  # mcucrypt/silicon/cli.py: firmware, ingest (benchmark images for real boards)
]

CT_MIN_TRIALS = len(ct_mod.SecretRandom.PATTERNS)   # trace mode: at least one trial per secret-draw pattern


class CliError(Exception):
    pass


def _target(name: str) -> str:
    if name not in TARGETS:
        raise CliError(f"unknown target {name!r} (known: {', '.join(TARGETS)})")
    return name


# Argument types: a value out of range is a one-line error (exit 2), never a traceback or a silent clamp.

def _target_arg(name: str) -> str:
    if name not in TARGETS:
        raise argparse.ArgumentTypeError(f"unknown target {name!r} (known: {', '.join(TARGETS)})")
    return name


def int_at_least(low: int, what: str = "") -> Callable[[str], int]:
    """An argparse type: an integer >= low (a negative count is a one-line error, not a silent no-op);
    shared by the subcommand modules."""
    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below the minimum of {low}{what}")
        return value
    parse.__name__ = f"integer >= {low}"
    return parse


def _u32_arg(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= 0xFFFF_FFFF:
        raise argparse.ArgumentTypeError(f"{value} is not a 32-bit unsigned value (0 .. 4294967295)")
    return value


def _percent_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a percentage >= 0")
    return value


def _catalog_names() -> tuple[list[str], list[str]]:
    """Primitive ids and implementation names for help texts and completion ([] if the catalog is broken:
    the command that needs it reports why)."""
    try:
        cat = load_catalog()
    except CatalogError:
        return [], []
    return cat.all_ids(), sorted({i.name for p in cat.primitives.values() for i in p.implementations.values()})


def version() -> str:
    """The package version: pyproject.toml of the checkout this code is in, else the installed metadata."""
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M) if pyproject.is_file() else None
    if m:
        return m.group(1)
    from importlib.metadata import PackageNotFoundError, version as dist_version
    try:
        return dist_version("mcucrypt")
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------------------------- list

def cmd_list(opts: argparse.Namespace) -> int:
    from .cores import CORES, DEFAULT_CORE, get_core
    cat = load_catalog()
    rows = []
    only = get_core(CORES[opts.core].target, opts.core) if opts.core else None
    for prim in cat.primitives.values():
        for impl in prim.implementations.values():
            if only is not None and only.why_not(impl):
                continue
            for prim_id in impl.ids:
                parts = {t: get_core(t).why_not(impl) for t in impl.targets}
                rows.append({"prim": prim_id, "kind": prim.kind, "impl": impl.name,
                             "cores": [c.name for c in CORES.values() if c.why_not(impl) is None],
                             "real_part": {DEFAULT_CORE[t]: why or "runs" for t, why in parts.items()},
                             "targets": list(impl.targets), "isa": impl.isa,
                             "constant_time": impl.constant_time,
                             "constant_time_claim": impl.ct_claim,
                             "secret_dependent_addresses": impl.secret_dependent_addresses,
                             "reentrant": impl.reentrant,
                             "ops": list(impl.functions), "description": impl.description,
                             "secret": {op: list(impl.secret_params(op)) for op in impl.functions}})
    rows.sort(key=lambda r: r["prim"])   # stable: implementations keep their META.yml order
    if opts.json:
        print(json.dumps(rows, indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table
    table = Table(title="mcucrypt implementations")
    for col in ("prim", "impl", "targets", "isa", "constant time", "real part"):
        table.add_column(col)
    for r in rows:
        ct_text = {"strict": "yes", "cacheless": "on cacheless cores (secret-indexed tables)"}.get(
            r["constant_time_claim"], "no (secret-indexed tables)" if r["secret_dependent_addresses"] else "no")
        notes = [why for why in r["real_part"].values() if why != "runs"]
        table.add_row(r["prim"], r["impl"], " ".join(r["targets"]), r["isa"] or "", ct_text,
                      "; ".join(notes) if notes else "yes")
    Console(width=max(Console().width, 150)).print(table)
    print(f"root: {_root_text()}")
    return 0


def _root_text() -> str:
    how = "from MCUCRYPT_ROOT" if os.environ.get("MCUCRYPT_ROOT") else "the checkout this mcucrypt runs from"
    return f"{ROOT} ({how})"


# ---------------------------------------------------------------------------------------------- run

def fastest_verified(prim_id: str, target: str, core: str | None = None) -> Firmware:
    """Among the implementations of ``prim_id`` for ``target`` that run on ``core`` (default: the
    target's real part, mcucrypt/cores.py), the one with the fewest cycles in its main operation that
    also passes the official vectors (mcucrypt/choose.py). On the host, which has no cycle model, the
    first one."""
    from .choose import ChoiceError, choose
    from .cores import CoreError
    try:
        return choose(prim_id, target, core).firmware()
    except (ChoiceError, CoreError) as e:
        raise CliError(str(e)) from None


def _firmware(prim_id: str, impl: str | None, target: str, core: str | None = None) -> Firmware:
    """The named implementation, or the fastest verified one that runs on the core; built for and run on
    the core's part (avr: --core atmega2560 builds with -mmcu=atmega2560 and runs on a simulated 2560)."""
    if impl is None:
        return fastest_verified(prim_id, target, core)
    return Firmware(load_catalog().implementation(prim_id, impl), prim_id, target, core=core)


RUN_INPUTS = ("key", "nonce", "ad", "input", "a", "b", "counter", "outlen", "z", "decrypt", "tag", "salt", "info")


# Largest buffer `call` places (out:N) and `run --input @FILE / -` reads: 16 MiB, far above any board's
# RAM (the boards refuse what does not fit in theirs) and small enough that the host allocates it at once.
MAX_BUFFER_BYTES = 16 << 20


def read_input_bytes(spec: str) -> bytes:
    """`--input @FILE`: the bytes of FILE, as they are (not hex); `--input -`: those of standard input."""
    if spec == "-":
        data = sys.stdin.buffer.read(MAX_BUFFER_BYTES + 1)
        where = "standard input"
    else:
        name = spec[1:]
        if not name:
            raise CliError("--input @FILE: name the file after @ (--input @message.bin)")
        try:
            with open(name, "rb") as f:
                data = f.read(MAX_BUFFER_BYTES + 1)
        except OSError as e:
            raise CliError(f"--input {spec}: cannot read {name} ({e.strerror or e})") from None
        where = name
    if len(data) > MAX_BUFFER_BYTES:
        raise CliError(f"--input {spec}: {where} holds more than {MAX_BUFFER_BYTES} bytes (16 MiB), the most "
                       "run takes")
    return data


def cmd_run(opts: argparse.Namespace) -> int:
    from .cores import CoreError, get_core
    target = _target(opts.target)
    prim = load_catalog().by_id(opts.prim)
    kind = prim.instances[opts.prim].get("kind", prim.kind)   # a suite's ids name their own kind
    driver = driver_for(kind)
    given = [n for n in RUN_INPUTS if getattr(opts, n) not in (None, False)]
    extra = [n for n in given if n not in driver.run_options]
    if extra:
        takes = ", ".join(f"--{n}" for n in driver.run_options)
        raise CliError(f"{opts.prim} ({kind}) takes no --{extra[0]} (it takes {takes})")
    if opts.counter is None:
        opts.counter = 0
    if opts.input is not None and (opts.input == "-" or opts.input.startswith("@")):
        opts.input = read_input_bytes(opts.input).hex()
    try:
        core = get_core(target, opts.core)
    except CoreError as e:
        raise CliError(str(e)) from None
    fw = _firmware(opts.prim, opts.impl, target, opts.core)
    output, res = driver.run(fw, opts)
    doc = {"prim": opts.prim, "impl": fw.impl.name, "target": target, "output": output.hex(),
           "cycles": res.cycles, "instructions": res.instructions, "stack_bytes": res.stack_bytes}
    doc["core"] = core.name
    if core.why_not(fw.impl):
        doc["not_on_core"] = core.why_not(fw.impl)
    if opts.json:
        print(json.dumps(doc))
    else:
        for k, v in doc.items():
            print(f"{k:>12}: {v}")
    return 0


# --------------------------------------------------------------------------------------------- call

# C `int` (a plain integer argument, and the default return type) per target: avr-gcc's int is 16 bits.
C_INT_BYTES = {"avr": 2, "rv32": 4, "armv7m": 4, "host": 4}
# Typed scalars: name -> (bytes, signed). uint8_t .. uint64_t and int8_t .. int64_t of the target's C ABI.
SCALAR_TYPES = {f"{s}{8 * n}": (n, s == "i") for s in "ui" for n in (1, 2, 4, 8)}
BUF_MODES = ("in", "out", "inout")


def _int_in_range(text: str, nbytes: int, signed: bool | None, what: str) -> int:
    """``text`` as an integer of ``nbytes`` bytes (signed, unsigned, or either when ``signed`` is None),
    in two's complement; out of range is an error, never a silent wrap."""
    try:
        value = int(text, 0)
    except ValueError:
        raise CliError(f"{what}: {text!r} is not an integer (decimal or 0x hex)") from None
    bits = 8 * nbytes
    low = -(1 << (bits - 1)) if signed in (True, None) else 0
    high = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if not low <= value <= high:
        raise CliError(f"{what}: {value} does not fit in {bits} bits ({low} .. {high})")
    return value & ((1 << bits) - 1)


def parse_call_arg(n: int, text: str, target: str) -> tuple[Arg, str | None]:
    """One C argument of `mcucrypt call` and, for out/inout buffers, its mode (printed after the call)."""
    what = f"argument {n} ({text!r})"
    mode, sep, rest = text.partition(":")
    if sep and mode in BUF_MODES:
        if mode == "out":
            size = _int_in_range(rest, 4, False, what)
            if size > MAX_BUFFER_BYTES:
                raise CliError(f"{what}: {size} bytes is over the {MAX_BUFFER_BYTES}-byte (16 MiB) cap on a "
                               "buffer")
            return Buf(size=size, out=True), mode
        data = parse_hex("buf", rest, label=what)
        return Buf(data, out=mode == "inout"), (mode if mode == "inout" else None)
    if sep and mode in SCALAR_TYPES:
        size, signed = SCALAR_TYPES[mode]
        return Int(_int_in_range(rest, size, signed, what), size), None
    if sep:
        raise CliError(f"{what}: unknown type {mode!r} (integers: {', '.join(SCALAR_TYPES)}; "
                       f"buffers: {', '.join(BUF_MODES)})")
    size = C_INT_BYTES[target]
    if target == "avr":
        what += " is a C int, 16 bits on avr (write u32:/u64: for wider types)"
    return Int(_int_in_range(text, size, None, what), 0), None


def _part(target: str, core: str | None) -> str | None:
    """The -mmcu part a --core names on avr (None: the target's default part). A core of another target,
    or a part on a target with only one board, is an error."""
    from .cores import CoreError, get_core
    if core is None:
        return None
    try:
        c = get_core(target, core)
    except CoreError as e:
        raise CliError(str(e)) from None
    return c.mcu if c.mcu != get_core(target).mcu else None


def cmd_call(opts: argparse.Namespace) -> int:
    target = _target(opts.target)
    if opts.isa is not None and target != "rv32":
        raise CliError(f"--isa applies to rv32 only, not {target} (its instruction set is fixed)")
    mcu = _part(target, opts.core)
    parsed = [parse_call_arg(n, a, target) for n, a in enumerate(opts.args, 1)]
    args = [a for a, _ in parsed]
    ret = opts.ret
    ret_size, ret_signed = (C_INT_BYTES[target], True) if ret in ("int", "void") else SCALAR_TYPES[ret]
    board = make_board(target, mcu)
    if target == "rv32":
        board.load(opts.elf, isa=opts.isa)  # type: ignore[call-arg]
    else:
        board.load(opts.elf)
    size_arg = 0 if ret in ("int", "void") else ret_size
    if opts.warm:   # one identical training call: rv32 keeps its predictor's state, other boards keep none
        if hasattr(board, "warm_predictor"):
            board.warm_predictor = True  # type: ignore[attr-defined]
        board.call(opts.symbol, args, max_instructions=opts.max_instructions, ret_size=size_arg)
    res = board.call(opts.symbol, args, max_instructions=opts.max_instructions, ret_size=size_arg)
    value: int | None = res.return_value & ((1 << (8 * ret_size)) - 1)
    if ret_signed and value is not None and value >> (8 * ret_size - 1):
        value -= 1 << (8 * ret_size)
    if ret == "void":
        value = None
    doc: dict = {"target": target, "symbol": opts.symbol, "cycles": res.cycles, "instructions": res.instructions,
                 "return_value": value, "stack_bytes": res.stack_bytes, "warm": opts.warm}
    if opts.core:
        doc["core"] = opts.core
    outs = iter(res.outputs)
    buffers = [{"arg": n, "mode": mode, "hex": next(outs).hex()}
               for n, (arg, mode) in enumerate(parsed, 1) if isinstance(arg, Buf) and arg.out]
    if opts.json:
        print(json.dumps({**doc, "buffers": buffers}))
        return 0
    for k, v in doc.items():
        print(f"{k:>12}: {'(void)' if v is None else v}")
    for b in buffers:
        print(f"{'arg ' + str(b['arg']):>12}: {b['hex']} ({b['mode']})")
    return 0


# -------------------------------------------------------------------------------------------- bench

def cmd_bench(opts: argparse.Namespace) -> int:
    cat = load_catalog()
    if "host" in (opts.target or ()):
        raise CliError("the host has no cycle model: bench runs on the boards "
                       f"({', '.join(bench_mod.BOARD_TARGETS)})")
    targets = _core_targets(opts.core, opts.target)
    if opts.core and opts.merge:
        raise CliError(f"--merge keeps the default parts' figures in {bench_mod.DEFAULT_RESULTS.name}; "
                       f"--core {opts.core} writes a results file of its own")
    try:
        jobs = bench_mod.select_jobs(cat, opts.prim or (), opts.impl or (), targets, core=opts.core)
    except KeyError as e:
        raise CliError(e.args[0]) from None
    if not jobs:
        raise CliError("nothing to benchmark for that selection")
    out = _bench_results_path(opts)

    def merge_target_readable() -> None:
        if opts.merge and out.is_file():
            read_results(out)   # a file --merge cannot take is refused now, before the run, not after it

    held = 0

    def write(records: list[bench_mod.BenchRecord]) -> None:
        nonlocal held
        try:
            held = bench_mod.write_results(records, out, merge=opts.merge)
        except ValueError as e:
            raise CliError(f"--merge: {e} (this run's records are kept in {out.name}.journal: "
                           f"fix the file and run again with --resume)") from None

    records = _safe_sweep(opts, jobs, out, "--json" if opts.json_file else "results file",
                          lambda journal, cluster, progress: bench_mod.run_bench(
                              jobs, workers=opts.jobs, scheduler=cluster, progress=progress, journal=journal),
                          write, before=merge_target_readable)
    print_bench_table(records)
    goals = [(r, part) for r in records for part in bench_mod.goal_parts(r.goal)]
    for r, part in goals:
        print(f"goal {r.prim} {r.impl} {r.target}: {part}")
    missed = bench_mod.goals_missed(records)
    still_open = bench_mod.goals_open(records)
    print(f"results: {out}" + (f" ({len(records)} records merged, {held} in the file)" if opts.merge else ""))
    failed = [r for r in records if r.error or r.kat == "fail" or
              (r.constant_time_claimed and r.constant_time == "fail")]
    if goals:
        print(f"{len(goals) - len(missed) - len(still_open)} of {len(goals)} goals met"
              + (f", {len(still_open)} open (issue targets not met: each goal's source says why)" if still_open else ""))
    return 1 if failed or missed else 0


def _safe_sweep(opts: argparse.Namespace, jobs: list[bench_mod.Job], out: Path, out_label: str,
                run: Callable, write: Callable[[list], None], *, before: Callable[[], None] | None = None,
                settings: str = "") -> list:
    """A sweep whose results file loses nothing (mcucrypt/resultfile.py): ``out`` checked (and ``before``
    run) before the first job, locked for the run, every finished job appended to the journal beside it
    (resumed from it with --resume), ``write`` called under the lock once every job is in, then the
    journal removed. ``run(journal, cluster, progress)`` runs the jobs: locally, or on the Dask cluster
    of --scheduler, connected and checked before the journal starts. ``settings`` (the sweep's options
    that change its figures) must match for a --resume. An interrupt or a dead worker stops the run with
    the journal kept and says how to resume."""
    from .runner import DaskCluster, RunnerError
    lock = ResultsLock(out)
    try:
        check_output_file(out, out_label)
        if before:
            before()
        lock.acquire()
    except ResultsFileError as e:
        raise CliError(str(e)) from None
    cluster = None
    try:
        if opts.scheduler:
            try:
                cluster = DaskCluster(opts.scheduler)
            except RunnerError as e:
                raise CliError(str(e)) from None
        results = _journaled(opts, jobs, out, run, cluster, settings)
        write(results)
        Journal(out).remove()
        return results
    finally:
        if cluster is not None:
            cluster.close()
        lock.release()


def _journaled(opts: argparse.Namespace, jobs: list[bench_mod.Job], out: Path, run: Callable,
               cluster: object, settings: str) -> list:
    """The body of _safe_sweep: the journal opened (or resumed), the jobs run with a progress bar."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from .resultfile import code_identity
    from .runner import RunnerError
    journal = Journal(out)
    keys = [bench_mod.job_key(j) for j in jobs]
    identity = code_identity(ROOT) + (f" ({settings})" if settings else "")
    try:
        if opts.resume and journal.exists():
            journal.load(keys, identity)
        elif journal.exists():
            raise CliError(f"{journal.path} holds the finished jobs of an interrupted run: add --resume to "
                           f"continue it, or remove it to start over")
        journal.open(keys, identity, resume=opts.resume)
    except ResultsFileError as e:
        raise CliError(str(e)) from None
    console = Console(stderr=True)
    resumed = len(journal.done)
    if opts.resume:
        console.print(f"resuming: {resumed} of {len(jobs)} jobs from {journal.path}" if resumed else
                      f"--resume: no journal {journal.path.name}: running every job")
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=False) as progress:
            task = progress.add_task(opts.command, total=len(jobs), completed=resumed)

            def advance(job: bench_mod.Job, recs: list) -> None:
                progress.update(task, advance=1, description=f"{job.prim} {job.impl} {job.target}")
                for r in recs:
                    error = r.get("error") if isinstance(r, dict) else r.error
                    if error:
                        console.print(f"[red]{job.prim} {job.impl} {job.target}: {error}")

            return run(journal, cluster, advance)
    except KeyboardInterrupt:
        print(f"mcucrypt: interrupted: {_journal_kept(journal, len(jobs))}", file=sys.stderr)
        raise
    except RunnerError as e:
        raise CliError(f"{e} ({_journal_kept(journal, len(jobs))})") from None
    finally:
        journal.close()


def _journal_kept(journal: Journal, total: int) -> str:
    """What an interrupted run kept: the journal and how to resume, or (no job finished) nothing."""
    if not journal.done:
        journal.remove()
        return f"no job of {total} had finished"
    return (f"{len(journal.done)} of {total} jobs saved in {journal.path}: run the same command with --resume "
            f"to finish")


def _bench_results_path(opts: argparse.Namespace) -> Path:
    if opts.json_file:
        return Path(opts.json_file)
    if opts.merge:
        return bench_mod.DEFAULT_RESULTS
    return bench_mod.results_path(opts.prim or (), opts.impl or (), opts.target or (), opts.core)


def print_bench_table(records: list[bench_mod.BenchRecord]) -> None:
    from rich.console import Console
    from rich.table import Table
    table = Table(title="mcucrypt bench (cycles on the virtual boards)")
    for col, just in (("prim", "left"), ("impl", "left"), ("target", "left"), ("op", "left"),
                      ("bytes", "right"), ("cycles", "right"), ("c/B", "right"), ("code B", "right"),
                      ("stack B", "right"), ("static B", "right"), ("kat", "left"), ("ct", "left")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in records:
        if r.error:
            table.add_row(r.prim, r.impl, r.target, "[red]error", "", "", "", "", "", "", "fail", "")
            continue
        ct_text = r.constant_time + ("" if r.constant_time == "n/a" else f" ({r.constant_time_mode})") + \
            ("" if r.constant_time_claimed or r.constant_time == "n/a" else " (not claimed)")
        table.add_row(r.prim, r.impl, r.target + (f" ({r.core})" if r.core else ""), r.op, str(r.bytes or ""),
                      f"{r.cycles:,}",
                      f"{r.cycles_per_byte:.2f}" if r.cycles_per_byte is not None else "",
                      f"{r.code_bytes:,}", str(r.stack_bytes),
                      "" if r.static_ram_bytes is None else f"{r.static_ram_bytes:,}", r.kat, ct_text)
    Console(width=160).print(table)


def _core_targets(core: str | None, targets: list[str] | None) -> list[str]:
    """The targets a --core run covers: the core's own (a --target of another one is an error)."""
    from .cores import CORES
    if core is None:
        return list(targets or ())
    t = CORES[core].target
    if targets and any(x != t for x in targets):
        raise CliError(f"--core {core} is a {t} part; --target {', '.join(x for x in targets if x != t)} "
                       f"does not go with it")
    return [t]


# --------------------------------------------------------------------------------------------- test

def cmd_test(opts: argparse.Namespace) -> int:
    """Every implementation against its vectors (and the model, and the constant-time checker where it
    claims constant time) on every target it supports."""
    cat = load_catalog()
    targets = _core_targets(opts.core, opts.target) or list(TARGETS)
    try:
        jobs = bench_mod.select_jobs(cat, opts.prim or (), opts.impl or (), targets, core=opts.core)
    except KeyError as e:
        raise CliError(e.args[0]) from None
    from functools import partial
    from .runner import RunnerError
    from .sweeps import job_label, vectors_job
    outcome = {"passed": 0, "failed": 0}

    def report(job: bench_mod.Job, result: tuple[bool, str]) -> None:
        ok, detail = result
        outcome["passed" if ok else "failed"] += 1
        print(f"{'PASS' if ok else 'FAIL'} {job_label(job)}: {detail}", flush=True)

    try:     # one job per (id, implementation, target): local processes, or the Dask cluster of --scheduler
        runner.run_jobs(partial(vectors_job, random_cases=opts.random), jobs, workers=opts.jobs,
                        scheduler=opts.scheduler, on_done=report)
    except RunnerError as e:
        raise CliError(str(e)) from None
    passed, failed = outcome["passed"], outcome["failed"]
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# ----------------------------------------------------------------------------------------------- ct

def cmd_ct(opts: argparse.Namespace) -> int:
    target = _target(opts.target)
    if target == "host":
        raise CliError("the constant-time check runs on a virtual board (rv32, armv7m, avr), not on host")
    if opts.engine:
        os.environ[ENGINE_ENV] = opts.engine     # the boards read it when a tainted call starts
    if opts.all:
        return _ct_sweep(opts, target)
    for name in ("out", "scheduler", "jobs"):
        if getattr(opts, name) is not None or opts.resume:
            raise CliError(f"--{'resume' if opts.resume else name} goes with --all (the sweep over the catalog)")
    if opts.elf is not None:
        return _ct_elf(opts, target)
    for name in ("symbol", "isa", "max_instructions", "core"):
        if getattr(opts, name) is not None:
            raise CliError(f"--{name.replace('_', '-')} goes with --elf FILE --symbol F (a catalog PRIM "
                           "brings its own functions, build and budget)")
    if opts.prim is None:
        raise CliError("ct needs PRIM (a catalog id), --all for every implementation on the target, or "
                       "--elf FILE --symbol F ARG... for your own function")
    if opts.args:
        raise CliError(f"unexpected argument {opts.args[0]!r}: function arguments go with --elf FILE --symbol F")
    fw = _firmware(opts.prim, opts.impl, target)
    if opts.mode == "taint" and not fw.board.supports_taint:
        raise CliError(f"the {target} board has no taint tracking: use --mode trace")
    report = ct_mod.check(fw, trials=opts.trials, seed=opts.seed, mode=opts.mode)
    print(json.dumps(report.to_json(), indent=1) if opts.json else report.summary())
    return 0 if report.verdict == "pass" else 1


def _ct_sweep(opts: argparse.Namespace, target: str) -> int:
    """`ct --all`: the checker on every implementation of the selection on ``target`` (all of the catalog,
    or PRIM's, or --impl's), claimed constant-time or not, into a results file (default
    results/ct-<target>.json) that loses nothing: checked first, locked, journaled, --resume, --scheduler."""
    from . import sweeps
    if opts.json:
        raise CliError("ct --all writes its records to a file (--out FILE); --json is for one check")
    if opts.mode == "taint" and not make_board(target).supports_taint:
        raise CliError(f"the {target} board has no taint tracking: use --mode trace")
    try:
        jobs = bench_mod.select_jobs(load_catalog(), [opts.prim] if opts.prim else [],
                                     [opts.impl] if opts.impl else [], [target])
    except KeyError as e:
        raise CliError(e.args[0]) from None
    if not jobs:
        raise CliError(f"nothing to check on {target} for that selection")
    out = Path(opts.out) if opts.out else ROOT / "results" / f"ct-{target}.json"
    seed = 0 if opts.seed is None else opts.seed      # a sweep is reproducible: the same draws everywhere
    settings = f"mode {opts.mode or 'default'}, trials {opts.trials}, seed {seed}"

    def write(records: list[dict]) -> None:
        doc = {"schema_version": sweeps.CT_SWEEP_SCHEMA, "provenance": bench_mod.provenance(),
               "target": target, "mode": opts.mode or "default", "trials": opts.trials, "seed": seed,
               "records": records}
        atomic_write_text(out, json.dumps(doc, indent=1) + "\n")

    records = _safe_sweep(opts, jobs, out, "--out" if opts.out else "results file",
                          lambda journal, cluster, progress: sweeps.run_ct_sweep(
                              jobs, trials=opts.trials, seed=seed, mode=opts.mode, workers=opts.jobs,
                              scheduler=cluster, progress=progress, journal=journal),
                          write, settings=settings)
    broken = 0
    for r in records:
        if r["verdict"] == "error":
            print(f"ERROR {r['prim']} {r['impl']} {r['target']}: {r['error']}")
        else:
            print(f"{r['verdict'].upper():5} {r['prim']} {r['impl']} {r['target']} ({r['mode']} mode, claim "
                  f"{r['claim']}{', findings allowed by the claim' if r['verdict'] == 'pass' and r['findings'] else ''})")
        broken += r["verdict"] == "error" or (bool(r["claimed"]) and r["verdict"] != "pass")
    print(f"results: {out}\n{len(records)} checked, {broken} claimed constant time and failed or could not be "
          f"checked")
    return 1 if broken else 0


SECRET_PREFIX = "secret:"


def parse_ct_arg(n: int, text: str, target: str) -> tuple[Arg, bool]:
    """One argument of `mcucrypt ct --elf`: `call`'s syntax, with `secret:` in front of a secret one."""
    secret = text.startswith(SECRET_PREFIX)
    arg, _ = parse_call_arg(n, text.removeprefix(SECRET_PREFIX), target)
    if secret and isinstance(arg, Buf) and not arg.data and arg.out:
        raise CliError(f"argument {n} ({text!r}): an out: buffer holds no input to keep secret "
                       "(mark the in: or inout: buffer that holds the secret)")
    return arg, secret


def _ct_elf(opts: argparse.Namespace, target: str) -> int:
    """`mcucrypt ct --elf FILE --symbol F ARG...`: the checker on a user's own function."""
    if opts.impl is not None:
        raise CliError("--impl names a catalog implementation; with --elf, give the function with --symbol")
    if opts.symbol is None:
        raise CliError("--elf needs --symbol F, the function to check")
    if opts.isa is not None and target != "rv32":
        raise CliError(f"--isa applies to rv32 only, not {target} (its instruction set is fixed)")
    texts = ([opts.prim] if opts.prim is not None else []) + list(opts.args)
    parsed = [parse_ct_arg(n, t, target) for n, t in enumerate(texts, 1)]
    args = [a for a, _ in parsed]
    secret = {i: f"arg{i + 1}" for i, (_, is_secret) in enumerate(parsed) if is_secret}
    if not secret:
        raise CliError("no argument is marked secret: write secret: in front of each secret one "
                       "(secret:in:HEX, secret:inout:HEX, secret:u32:N, secret:5)")
    widths = {i: (a.size or C_INT_BYTES[target]) if isinstance(a, Int) else 0 for i, a in enumerate(args)}
    board = make_board(target, _part(target, opts.core))
    if opts.mode == "taint" and not board.supports_taint:
        raise CliError(f"the {target} board has no taint tracking: use --mode trace")
    if target == "rv32":
        board.load(opts.elf, isa=opts.isa)  # type: ignore[call-arg]
    else:
        board.load(opts.elf)
    report = ct_mod.check_function(board, Path(opts.elf).name, opts.symbol, args, secret, arg_bytes=widths,
                                   trials=opts.trials, seed=opts.seed, mode=opts.mode,
                                   max_instructions=opts.max_instructions)
    if opts.json:
        doc = report.to_json()
        doc["elf"], doc["symbol"] = opts.elf, opts.symbol
        doc["secret_args"] = {secret[i]: texts[i] for i in sorted(secret)}
        print(json.dumps(doc, indent=1))
    else:
        print(report.summary())
    return 0 if report.verdict == "pass" else 1


# ------------------------------------------------------------------------------------ report, compare

def cmd_report(opts: argparse.Namespace) -> int:
    from . import report
    results = Path(opts.results)
    if not results.exists():
        raise CliError(f"no results file {results}: run `mcucrypt bench` first")
    read_results(results)               # the file, checked: every error names it
    if opts.show:                       # one group of tables in the terminal, no files written
        report.print_tables(results, opts.show)
        return 0
    out = check_out_dir(opts.out)       # before the work: a file or /proc is an error now
    try:
        md, page = report.write_report(results, out)
    except (ValueError, KeyError) as e:
        raise CliError(f"{results}: {e}") from None
    print(f"report: {md}\nreport: {page}")
    return 0


def cmd_compare(opts: argparse.Namespace) -> int:
    from . import report
    if (opts.impl is None) != (opts.against is None):
        raise CliError("--impl and --against go together: compare FILE --impl A --against B")
    if opts.new is None and opts.impl is None:
        raise CliError("compare needs two results files, or one with --impl A --against B")
    files = [opts.old] + ([opts.new] if opts.new else [])
    for f in files:
        if not Path(f).exists():
            raise CliError(f"no results file {f}")
        read_results(f)     # every record checked; the error names the file and the record
    thresholds = {"cycles": opts.threshold, "code_bytes": opts.code_threshold, "stack_bytes": opts.stack_threshold}
    try:
        if opts.impl is not None:
            # B (the baseline) from the first file, A from the second file or the same one
            res = report.compare(Path(opts.old), Path(opts.new or opts.old), old_impl=opts.against,
                                 new_impl=opts.impl)
            old_name, new_name = f"{opts.against} ({opts.old})", f"{opts.impl} ({opts.new or opts.old})"
        else:
            res = report.compare(Path(opts.old), Path(opts.new))
            old_name, new_name = opts.old, opts.new
    except (ValueError, KeyError) as e:
        raise CliError(str(e)) from None
    if not res.changes:
        raise CliError(f"no rows in common between {old_name} and {new_name}")
    print(f"old: {old_name}\nnew: {new_name}")
    regressions = 0
    for c in sorted(res.changes, key=lambda c: (c.key, report.COMPARED_METRICS.index(c.metric))):
        if c.old == c.new:
            continue
        worse = c.ratio > 1 + thresholds[c.metric] / 100
        regressions += worse
        flag = "REGRESSION" if worse else ("better" if c.new < c.old else "worse, within threshold")
        print(f"{' '.join(c.key):52} {report.METRIC_LABEL[c.metric]:>11} {c.old:>10,} -> {c.new:>10,} "
              f"({(c.ratio - 1) * 100:+.1f}%) {flag}")
    if not opts.common_only:     # one line per job (all but the op), not per row
        for rows_only, name in ((res.only_old, old_name), (res.only_new, new_name)):
            jobs: dict[tuple[str, ...], list[str]] = {}
            for k in rows_only:
                jobs.setdefault(k[:-1], []).append(k[-1])
            for job, ops in jobs.items():
                print(f"{' '.join(job):40} only in {name}: {', '.join(ops)}")
    rows = len({c.key for c in res.changes if c.metric != "code_bytes"})
    same = sum(1 for c in res.changes if c.old == c.new)
    limits = ", ".join(f"{report.METRIC_LABEL[m]} > +{t:g}%" for m, t in thresholds.items())
    print(f"{rows} rows compared ({len(res.changes)} figures): {same} figures unchanged, {regressions} "
          f"regression{'' if regressions == 1 else 's'} ({limits})")
    if opts.common_only and (res.only_old or res.only_new):
        print(f"not listed (--common-only): {len(res.only_old)} rows only in {old_name}, "
              f"{len(res.only_new)} only in {new_name}")
    return 1 if regressions else 0


# ------------------------------------------------------------------------------------- completion

def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _words(parser: argparse.ArgumentParser) -> tuple[list[str], dict[str, str], str]:
    """A subcommand's option strings, the completion words of each option that takes a value ('' for a
    file name, '-' for free text) and of its positionals."""
    prims, impls = _catalog_names()
    options: list[str] = []
    values: dict[str, str] = {}
    positional = ""
    for a in parser._actions:
        if a.option_strings:
            options += [o for o in a.option_strings if o.startswith("--")]
            if a.nargs == 0:
                continue
            if a.choices:
                words = " ".join(map(str, a.choices))
            elif a.metavar == "PRIM":
                words = " ".join(prims)
            elif a.metavar in ("IMPL", "A", "B"):
                words = " ".join(impls)
            elif a.metavar in ("FILE", "DIR"):
                words = ""
            else:
                words = "-"
            for o in a.option_strings:
                values[o] = words
        elif not positional:
            if a.choices:
                positional = " ".join(map(str, a.choices))
            elif a.metavar == "PRIM":
                positional = " ".join(prims)
    return options, values, positional


def completion_script(shell: str) -> str:
    """A bash completion function for this parser (zsh loads it through bashcompinit): subcommands,
    options, option values with choices, primitive ids and implementation names, file names."""
    parser = build_parser()
    subs = _subparsers(parser)
    cases, value_cases = [], []
    for name, sp in subs.items():
        options, values, positional = _words(sp)
        cases.append(f'    {name}) opts="{" ".join(options + ["--help"])}"; pos="{positional}";;')
        for opt, words in values.items():
            value_cases.append(f'    "{name} {opt}") words="{words}";;')
    script = f"""# mcucrypt completion ({shell}); generated by `mcucrypt completion {shell}` from this catalog
_mcucrypt() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" cmd="" i opts pos words
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i]}}" in -*) ;; *) cmd="${{COMP_WORDS[i]}}"; break;; esac
  done
  if [ -z "$cmd" ]; then
    COMPREPLY=($(compgen -W "{' '.join(subs)} --help --version" -- "$cur")); return
  fi
  words="?"
  case "$cmd $prev" in
{chr(10).join(value_cases)}
  esac
  if [ "$words" = "-" ]; then COMPREPLY=(); return; fi
  if [ "$words" != "?" ]; then
    if [ -z "$words" ]; then COMPREPLY=($(compgen -f -- "$cur")); else COMPREPLY=($(compgen -W "$words" -- "$cur")); fi
    return
  fi
  case "$cmd" in
{chr(10).join(cases)}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [ -n "$pos" ]; then COMPREPLY=($(compgen -W "$pos" -- "$cur"))
  else COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
"""
    if shell == "zsh":
        return "autoload -U +X bashcompinit && bashcompinit\n" + script + "complete -o default -F _mcucrypt mcucrypt\n"
    return script + "complete -o default -F _mcucrypt mcucrypt\n"


def cmd_completion(opts: argparse.Namespace) -> int:
    print(completion_script(opts.shell), end="")
    return 0


# ---------------------------------------------------------------------------------------------- main

class _Formatter(argparse.HelpFormatter):
    """Descriptions and epilogs: prose lines are wrapped, indented lines (examples, tables) kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap
        return "\n".join(line if line.startswith(" ") or not line else
                         textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent)
                         for line in text.splitlines())


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error convention (one line, exit 2) and examples kept as written."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        sys.exit(report_error(f"{message} (see `{self.prog} --help`)"))


# Under a command's --json flag, errors go to stderr as one JSON object too (main sets this before parsing).
_json_errors = False


def report_error(message: str, status: int = EXIT_USAGE, kind: str = "error") -> int:
    """Print an error the CLI's way and return its exit status: one line `mcucrypt: KIND: MESSAGE`
    (kind "error", or "firmware fault" for status 3), or under --json the object
    {"error": MESSAGE, "kind": KIND, "exit_status": STATUS} on one line of stderr."""
    if _json_errors:
        print(json.dumps({"error": message, "kind": kind, "exit_status": status}), file=sys.stderr)
    else:
        print(f"mcucrypt: {kind}: {message}", file=sys.stderr)
    return status


def _wants_json_errors(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    """Whether argv runs a command whose --json is a flag (list, run, call, ct; not bench's --json FILE)
    with that flag given."""
    command = next((a for a in argv if not a.startswith("-")), None)
    sub = _subparsers(parser).get(command or "")
    if sub is None or "--json" not in argv[argv.index(command) + 1:]:
        return False
    return any("--json" in a.option_strings and a.nargs == 0 for a in sub._actions)


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def _core_names() -> list[str]:
    from .cores import CORES
    return list(CORES)


def build_parser() -> argparse.ArgumentParser:
    prims, impls = _catalog_names()
    prim_help = "primitive id: " + (", ".join(prims) if prims else "see `mcucrypt list`")
    impl_help = "implementation name (see `mcucrypt list`): " + ", ".join(impls)
    target_choices = list(TARGETS)
    hex_help = "as hex (the rule above)"
    p = _Parser(prog="mcucrypt", description="Verified, measured cryptography for "
                "RV32 (SiFive E31), Cortex-M3 and AVR, on cycle-accurate virtual boards.",
                epilog=_examples(
                    "mcucrypt list",
                    "mcucrypt run lea128 --target rv32 --key 0f1e2d3c4b5a69788796a5b4c3d2e1f0 "
                    "--input 101112131415161718191a1b1c1d1e1f",
                    "mcucrypt bench --prim lea128 --target avr",
                    "mcucrypt ct mpmul256 --target armv7m --impl cm3-fast",
                    "mcucrypt completion bash > ~/.local/share/bash-completion/completions/mcucrypt") +
                "\n\nexit status: 0 success, 1 a check failed, 2 bad input, 3 firmware fault on its board."
                f"\nroot: {_root_text()}")
    p.add_argument("--version", action="version", version=f"mcucrypt {version()} (root: {ROOT})",
                   help="print the version and the checkout whose catalog is used, then exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="implementations in the catalog",
                       description="Every implementation in the catalog: primitive, targets, ISA, constant time; "
                       "then the root whose catalog this is.",
                       epilog=_examples("mcucrypt list", "mcucrypt list --json | jq '.[] | select(.prim==\"lea128\")'"))
    s.add_argument("--json", action="store_true", help="one JSON object per implementation and id, for tools")
    s.add_argument("--core", choices=_core_names(), help="only implementations that run on this core")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("run", help="run one primitive once on a board",
                       description="Run one primitive once on a board and print its output and cost. Each kind "
                       "takes its own inputs: block ciphers --key --input [--decrypt]; AEAD --key --nonce [--ad] "
                       "--input [--decrypt]; stream ciphers --key --nonce --input [--counter]; permutations "
                       "--input; multiplication --a --b (big-endian integers); hashes --input [--outlen] [--z]; "
                       "MACs --key --input [--tag: verify]; key derivation --input (IKM) [--salt] [--info] "
                       "[--outlen]. Other inputs are refused. "
                       f"Hex inputs: {HEX_RULE} (0f1e... or 0x0F1E..., not \"0f 1e\").",
                       epilog=_examples(
                           "mcucrypt run lea128 --target avr --key 0f1e2d3c4b5a69788796a5b4c3d2e1f0 "
                           "--input 101112131415161718191a1b1c1d1e1f --json",
                           "mcucrypt run chacha20 --target rv32 --key "
                           "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f "
                           "--nonce 000000090000004a00000000 --counter 1 --input 00000000",
                           "mcucrypt run mpmul256 --target armv7m --impl cm3-fast --a 0x1234 --b ffff",
                           "mcucrypt run sha256 --target rv32 --input @message.bin",
                           "head -c 4096 /dev/urandom | mcucrypt run sha256 --target avr --input - --json"))
    s.add_argument("prim", metavar="PRIM", help=prim_help)
    s.add_argument("--target", required=True, type=_target_arg, choices=target_choices,
                   help="the board to run on")
    s.add_argument("--impl", metavar="IMPL", help=impl_help + " (default: the fastest that passes its vectors "
                   "and runs on the core)")
    s.add_argument("--core", choices=_core_names(), help="without --impl, choose among the implementations "
                   "that run on this core (default: the target's real part: e31, cortex-m3, atmega128); on avr "
                   "also the part built for and simulated (atmega1284p, atmega2560)")
    for name, what in (("key", "the key"), ("nonce", "the nonce"), ("ad", "AEAD associated data (default empty)"),
                       ("input", "plaintext, ciphertext (with tag, for AEAD decryption), state, message or (key derivation) IKM"),
                       ("a", "multiplication: first operand, a big-endian integer (odd digit count allowed)"),
                       ("b", "multiplication: second operand")):
        s.add_argument(f"--{name}", metavar="HEX", help=f"{what}, {hex_help}" + (
            "; or @FILE, the bytes of FILE as they are (not hex), or -, those of standard input (at most 16 MiB)"
            if name == "input" else ""))
    for name, what in (("tag", "MACs: a tag to verify (exit 2 when it does not)"),
                       ("salt", "key derivation: the salt (default empty)"),
                       ("info", "key derivation: the context and application info (default empty)")):
        s.add_argument(f"--{name}", metavar="HEX", help=f"{what}, {hex_help}")
    s.add_argument("--counter", type=_u32_arg, default=None, metavar="N",
                   help="stream ciphers: the first block counter, 0 .. 2**32-1 (default 0)")
    s.add_argument("--outlen", type=int_at_least(0), default=None, metavar="N",
                   help="XOFs and key derivation: output bytes (default: the instance's out_bytes or hash_bytes)")
    s.add_argument("--z", metavar="HEX", help=f"customizable XOFs (CXOF): the customization string, {hex_help}")
    s.add_argument("--decrypt", action="store_true", help="block ciphers and AEAD: decrypt instead of encrypt")
    s.add_argument("--json", action="store_true", help="one JSON object instead of aligned text")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("call", help="time any function of an ELF built for a board",
                       description="Call SYMBOL of ELF on a board with the target's C ABI and print cycles, "
                       "instructions, stack and the return value. ARG, in the C parameter order:\n"
                       "  5, 0x10, -3      a C int: 32 bits on rv32/armv7m, 16 bits on avr (avr-gcc's int)\n"
                       "  u8:N u16:N u32:N u64:N, i8:N .. i64:N\n"
                       "                   uint8_t .. uint64_t, int8_t .. int64_t (out of range is an error)\n"
                       "  in:HEX           pointer to a buffer holding these bytes\n"
                       "  out:N            pointer to N zero bytes, printed after the call\n"
                       "  inout:HEX        pointer to a buffer holding these bytes, printed after the call\n"
                       "--buf SPEC is the same as SPEC in its place among the ARGs. Buffers lie in free RAM "
                       f"between canaries, 4-byte aligned, at most {MAX_BUFFER_BYTES} bytes (16 MiB) each "
                       f"(the boards refuse what does not fit in their RAM). Hex: {HEX_RULE}.",
                       epilog=_examples(
                           "riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -O2 -nostdlib "
                           "-T boards/rv32/link.ld popcount.c -o popcount.elf",
                           "mcucrypt call --target rv32 popcount.elf popcount 0xF0F0",
                           "mcucrypt call --target avr fw.elf sum16 --buf in:0102030405 u16:5 --ret u16",
                           "mcucrypt call --target armv7m fw.elf xor_into --buf inout:00ff00ff in:0f0f0f0f u32:4 "
                           "--warm --json"))
    s.add_argument("--target", required=True, type=_target_arg, choices=target_choices,
                   help="the board whose linker script ELF was built with")
    s.add_argument("--isa", default=None, metavar="ISA",
                   help="rv32 only: the ISA the firmware may use, e.g. rv32imac (default), rv32i, "
                   "rv32imac_zbb_zbkb, rv32imac_xmul64; an error on other targets")
    s.add_argument("--max-instructions", type=int_at_least(1), default=DEFAULT_MAX_INSTRUCTIONS, metavar="N",
                   help="instruction budget before the call counts as a runaway (default: the board's own, "
                   "which stops a runaway loop within 5 s)")
    s.add_argument("--ret", default="int", choices=["int", "void", *SCALAR_TYPES],
                   help="the C return type (default int: 16 bits on avr, 32 elsewhere; signed types print signed)")
    s.add_argument("--warm", action="store_true",
                   help="make one identical training call first (rv32: the branch predictor keeps what it "
                   "learnt; the other boards keep no state between calls)")
    s.add_argument("elf", metavar="ELF", help="firmware built for the target's board (boards/<target>/link.ld)")
    s.add_argument("symbol", metavar="SYMBOL", help="the function to call")
    s.add_argument("args", nargs="*", metavar="ARG", help="the arguments in C order (see above)")
    s.add_argument("--buf", metavar="SPEC", action="append",
                   help="a buffer argument in:HEX, out:N or inout:HEX, taken in its place among the ARGs")
    s.add_argument("--json", action="store_true", help="one JSON object (buffers under 'buffers')")
    s.add_argument("--core", choices=_core_names(), help="avr: the part ELF was built for and the board "
                   "simulates (atmega128, the default; atmega1284p; atmega2560: build with the same -mmcu)")
    s.set_defaults(func=cmd_call)

    s = sub.add_parser("bench", help="benchmark the catalog on the virtual boards",
                       description="Build, check (vectors, constant time) and time every selected implementation "
                       "on its boards. The whole catalog writes results/bench.json; a partial run (any --prim, "
                       "--impl or --target) writes a file of its own (results/bench-<selection>.json) unless "
                       "--merge merges it into results/bench.json, or --json names the file.",
                       epilog=_examples("mcucrypt bench", "mcucrypt bench --prim lea128 --target rv32 --target avr",
                                        "mcucrypt bench --prim lea128 --impl rv32-fast --merge",
                                        "mcucrypt bench --target avr --json /tmp/avr.json --jobs 1"))
    s.add_argument("--target", action="append", type=_target_arg, choices=target_choices,
                   help="a board to run on (repeatable; default rv32, armv7m and avr)")
    s.add_argument("--prim", action="append", metavar="PRIM", help=prim_help + " (repeatable; default all)")
    s.add_argument("--impl", action="append", metavar="IMPL", help=impl_help + " (repeatable; default all)")
    s.add_argument("--json", dest="json_file", metavar="FILE",
                   help="results file (default results/bench.json, or results/bench-<selection>.json for a "
                   "partial run)")
    s.add_argument("--merge", action="store_true",
                   help="merge into the results file (default results/bench.json): the measured jobs' records "
                   "replace theirs, every other record stays")
    s.add_argument("--jobs", type=int_at_least(1), default=None, metavar="N",
                   help="parallel processes (default: one per core)")
    s.add_argument("--core", choices=_core_names(), help="build for and run on this part (avr: atmega1284p, "
                   "atmega2560; the default is each target's own part); its own results file, no goals")
    s.add_argument("--resume", action="store_true",
                   help="continue an interrupted or failed run: the jobs in the journal beside the results file "
                   "(FILE.journal, one line per finished job) are kept, only the others run")
    s.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the jobs on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786; "
                   "workers started from the same checkout and commit; docs/cluster.md) instead of local processes")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("test", help="every implementation against its vectors on every target",
                       description="Every selected implementation against its official vectors and the "
                       "independent model on random inputs, and the constant-time checker where it claims "
                       "constant time, on every target it supports.",
                       epilog=_examples("mcucrypt test --prim lea128", "mcucrypt test --target avr --random 0"))
    s.add_argument("--target", action="append", type=_target_arg, choices=target_choices,
                   help="a target (repeatable; default all four)")
    s.add_argument("--prim", action="append", metavar="PRIM", help=prim_help + " (repeatable; default all)")
    s.add_argument("--impl", action="append", metavar="IMPL", help=impl_help + " (repeatable; default all)")
    s.add_argument("--random", type=int_at_least(0), default=20, metavar="N",
                   help="random differential cases per implementation (default 20; 0: vectors only)")
    s.add_argument("--core", choices=_core_names(), help="build for and run on this part (avr: atmega1284p, "
                   "atmega2560; the default is each target's own part)")
    s.add_argument("--jobs", type=int_at_least(1), default=1, metavar="N",
                   help="parallel processes (default 1; each job is one implementation on one target)")
    s.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the jobs on the Dask cluster whose scheduler is at ADDRESS (docs/cluster.md)")
    s.set_defaults(func=cmd_test)

    s = sub.add_parser("ct", help="constant-time check of one implementation on its board",
                       description="Check that the implementation's secrets reach no branch, memory address or "
                       "variable-latency operand on its board. taint mode (the default where the board tracks "
                       "taint: rv32, armv7m, avr) marks the META.yml secret parameters and follows them through "
                       "registers, flags and memory; trace mode runs the calls with different secret draws and "
                       "the same public inputs and compares executed addresses, data addresses and latencies. "
                       "FAIL names the instruction and the secret it came from. With --elf FILE --symbol F "
                       "it checks a function of your own ELF instead, called with the ARGs (secret: marks the "
                       "secret ones; docs/constant-time.md has a worked example).",
                       epilog=_examples("mcucrypt ct mpmul256 --target armv7m --impl cm3-umull",
                                        "mcucrypt ct lea128 --target avr --impl ref --json",
                                        "mcucrypt ct --target rv32 --elf fw.elf --symbol mac_equal "
                                        "secret:in:00112233 in:00112233 u32:4",
                                        "mcucrypt ct --target avr --elf fw.elf --symbol sbox_layer "
                                        "secret:inout:0123456789abcdef u8:8 --mode trace --seed 1",
                                        "mcucrypt ct aes128 --target rv32 --impl rv32-bitsliced --mode trace "
                                        "--trials 128 --seed 7",
                                        "mcucrypt ct --all --target avr --out /tmp/ct-avr.json --jobs 2"))
    s.add_argument("prim", metavar="PRIM", nargs="?", help=prim_help + " (with --all: only its implementations; "
                   "or --elf FILE --symbol F ARG...)")
    s.add_argument("args", nargs="*", metavar="ARG",
                   help="with --elf: the function's arguments in C order, `mcucrypt call`'s syntax (5, u32:N, "
                   "in:HEX, out:N, inout:HEX), secret: in front of each secret one (secret:in:HEX, secret:u8:7)")
    s.add_argument("--elf", metavar="FILE", help="check a function of your own ELF, built for the target's "
                   "board (boards/<target>/link.ld, as for `mcucrypt call`), instead of a catalog entry")
    s.add_argument("--symbol", metavar="F", help="with --elf: the function to check")
    s.add_argument("--isa", default=None, metavar="ISA", help="with --elf, rv32 only: the ISA the ELF may use "
                   "(default rv32imac), as for `mcucrypt call`")
    s.add_argument("--max-instructions", type=int_at_least(1), default=None, metavar="N",
                   help="with --elf: instruction budget of one call before it counts as a runaway "
                   "(default: the board's own)")
    s.add_argument("--core", choices=_core_names(), help="with --elf, avr: the part ELF was built for "
                   "(atmega128, the default; atmega1284p; atmega2560)")
    s.add_argument("--target", required=True, type=_target_arg, choices=target_choices,
                   help="the board (rv32, armv7m or avr; the host has no trace)")
    s.add_argument("--impl", metavar="IMPL", help=impl_help + " (default: the fastest that passes its vectors)")
    s.add_argument("--mode", choices=ct_mod.MODES,
                   help="taint (default where the board tracks taint) or trace (secret draws compared)")
    s.add_argument("--trials", type=int_at_least(CT_MIN_TRIALS, ": one per secret-draw pattern"),
                   default=ct_mod.DEFAULT_TRIALS, metavar="N",
                   help=f"trace mode: secret draws (default {ct_mod.DEFAULT_TRIALS}, at least {CT_MIN_TRIALS})")
    s.add_argument("--seed", type=int_at_least(0, ""), metavar="N",
                   help="trace mode: seed of the secret draws (default: a fresh one, printed)")
    s.add_argument("--json", action="store_true", help="the report as JSON (mode, seed, trials, findings)")
    s.add_argument("--all", action="store_true",
                   help="check every implementation on the target (claimed constant-time or not; PRIM or --impl "
                   "narrow it), one record each, into --out (seed 0 unless --seed)")
    s.add_argument("--out", metavar="FILE", help="--all: the results file (default results/ct-<target>.json)")
    s.add_argument("--jobs", type=int_at_least(1), default=None, metavar="N",
                   help="--all: parallel processes (default: one per core)")
    s.add_argument("--resume", action="store_true",
                   help="--all: continue an interrupted run from the journal beside the results file")
    s.add_argument("--scheduler", metavar="ADDRESS",
                   help="--all: run the checks on the Dask cluster whose scheduler is at ADDRESS (docs/cluster.md)")
    s.add_argument("--engine", choices=ENGINES,
                   help="taint mode's engine on rv32: c (native, the default) or python (the reference); "
                   f"the default comes from {ENGINE_ENV} when set")
    s.set_defaults(func=cmd_ct)

    s = sub.add_parser("report", help="tables, plots and provenance from a results file",
                       description="Write report.md, a self-contained report.html and the plots (PNG) from a "
                       "results file: the papers' tables with our figures beside theirs, goals, the cross-target "
                       "table, every measurement and the provenance.",
                       epilog=_examples("mcucrypt report", "mcucrypt report --results /tmp/avr.json --out /tmp/r",
                                        "mcucrypt report --show signatures"))
    s.add_argument("--results", default=str(ROOT / "results" / "bench.json"), metavar="FILE",
                   help="results file (default results/bench.json)")
    s.add_argument("--out", default=str(ROOT / "results"), metavar="DIR", help="output folder (default results/)")
    s.add_argument("--show", choices=("glance", "signatures", "modes", "goals"),
                   help="print one group of tables in the terminal instead of writing files: the best "
                   "constant-time implementation per job and core, the bootloader's signature table, AEAD "
                   "modes and MACs beside the peers, the goals")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("compare", help="per-row changes in cycles, code and stack between results",
                       description="Compare cycles, code bytes and stack bytes row by row (prim, impl, target, "
                       "op) between two results files, or two implementations (--impl A --against B, A measured "
                       "against the baseline B) in one file or two. Exit status 1 when a figure grew beyond its "
                       "threshold.",
                       epilog=_examples("mcucrypt compare results/bench.json /tmp/new.json --common-only",
                                        "mcucrypt compare OLD.json NEW.json --threshold 2 --code-threshold 1",
                                        "mcucrypt compare results/bench.json --impl rv32-fast --against ref"))
    s.add_argument("old", metavar="OLD", help="the baseline results file")
    s.add_argument("new", metavar="NEW", nargs="?",
                   help="the new results file (default: OLD itself, with --impl/--against)")
    s.add_argument("--impl", metavar="A", help="compare implementation A (from NEW, or OLD) ...")
    s.add_argument("--against", metavar="B", help="... against implementation B (from OLD), by (prim, target, op)")
    s.add_argument("--threshold", type=_percent_arg, default=1.0, metavar="PCT",
                   help="percent more cycles that counts as a regression (default 1)")
    s.add_argument("--code-threshold", type=_percent_arg, default=0.0, metavar="PCT",
                   help="percent more code bytes that counts as a regression (default 0: any growth)")
    s.add_argument("--stack-threshold", type=_percent_arg, default=0.0, metavar="PCT",
                   help="percent more stack bytes that counts as a regression (default 0: any growth)")
    s.add_argument("--common-only", action="store_true",
                   help="list only rows present on both sides (the others are counted, not listed)")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("completion", help="print a shell completion script",
                       description="Print a completion script for bash or zsh (subcommands, options, targets, "
                       "primitive ids and implementation names of this catalog).",
                       epilog=_examples("mcucrypt completion bash > ~/.local/share/bash-completion/completions/mcucrypt",
                                        "source <(mcucrypt completion zsh)   # in ~/.zshrc"))
    s.add_argument("shell", choices=["bash", "zsh"], help="the shell")
    s.set_defaults(func=cmd_completion)

    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"mcucrypt.{name}").register(sub)
    return p


def _buf_in_place(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`call`: each `--buf SPEC` becomes SPEC in its place among the positional ARGs, so buffers and
    integers keep their C order whichever way they are written (argparse alone would collect them apart)."""
    command = next((n for n, a in enumerate(argv) if not a.startswith("-")), None)
    if command is not None and argv[command] == "ct":
        return _positionals_last(_subparsers(parser)["ct"], argv, command)
    if command is None or argv[command] != "call":
        return argv
    call = _subparsers(parser)["call"]
    takes_value = {o for a in call._actions if a.option_strings and a.nargs != 0 for o in a.option_strings}
    out, positionals, i = argv[:command + 1], 0, command + 1
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            out += argv[i:]
            break
        name, eq, value = tok.partition("=")
        if name == "--buf":
            if not eq:
                if i + 1 >= len(argv):
                    call.error("argument --buf: expected one argument")
                value, i = argv[i + 1], i + 1
            if positionals < 2:
                call.error("--buf goes after ELF and SYMBOL, in its place among the arguments")
            out.append(value)
            positionals += 1
        elif tok.startswith("-") and not re.fullmatch(r"-\d.*", tok):
            out.append(tok)
            if tok in takes_value and i + 1 < len(argv):
                out.append(argv[i + 1])
                i += 1
        else:
            out.append(tok)
            positionals += 1
        i += 1
    return out


def _positionals_last(sub: argparse.ArgumentParser, argv: list[str], command: int) -> list[str]:
    """`ct`: PRIM and the ARGs of --elf wherever they are written among the options (argparse alone takes
    positionals only in one run), after `--` so that a negative integer ARG is not read as an option."""
    takes_value = {o for a in sub._actions if a.option_strings and a.nargs != 0 for o in a.option_strings}
    options, positionals, i = argv[:command + 1], [], command + 1
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            positionals += argv[i + 1:]
            break
        if tok.startswith("-") and not re.fullmatch(r"-\d.*", tok):
            options.append(tok)
            if tok in takes_value and i + 1 < len(argv):
                options.append(argv[i + 1])
                i += 1
        else:
            positionals.append(tok)
        i += 1
    return options + (["--", *positionals] if positionals else [])


def _other_checkout_note() -> None:
    """Say so when the working directory is inside another mcucrypt checkout than the one in use."""
    if os.environ.get("MCUCRYPT_ROOT"):
        return
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "crypto").is_dir() and (d / "mcucrypt" / "cli.py").is_file():
            if d != ROOT:
                print(f"mcucrypt: note: using the catalog of {ROOT}, not of the checkout you are in ({d}): "
                      f"run {d}/.venv/bin/mcucrypt, or set MCUCRYPT_ROOT", file=sys.stderr)
            return


def main(argv: Sequence[str] | None = None) -> int:
    global _json_errors
    parser = build_parser()
    args = list(sys.argv[1:] if argv is None else argv)
    _json_errors = _wants_json_errors(parser, args)
    opts = parser.parse_args(_buf_in_place(parser, args))
    try:
        if not (ROOT / "crypto").is_dir():
            raise CliError(f"{ROOT} is not an mcucrypt checkout (no crypto/ folder)"
                           + (": check MCUCRYPT_ROOT" if os.environ.get("MCUCRYPT_ROOT") else ""))
        if opts.command != "completion":
            _other_checkout_note()
        status = opts.func(opts)
        sys.stdout.flush()      # inside the try: a reader that went away (| head) is seen here, not at exit
        return status
    except BrokenPipeError:
        # The reader of our output closed it (`mcucrypt list --json | head`): stop quietly, as a command
        # killed by SIGPIPE would. Point stdout at /dev/null so the interpreter's own flush at exit does
        # not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except BoardFault as e:
        return report_error(str(e), EXIT_FIRMWARE_FAULT, "firmware fault")
    except (CliError, CatalogError, UsageError, BoardError, BuildError, RecordsError, OutputPathError) as e:
        msg = str(e).splitlines()[0] if not isinstance(e, (BuildError, BoardError)) else str(e)
        return report_error(msg)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
