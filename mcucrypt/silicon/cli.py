# SPDX-License-Identifier: MIT
"""The `firmware` and `ingest` subcommands (registered by mcucrypt/cli.py through ``register``)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..cli import int_at_least
from ..records import check_out_dir, check_out_file
from ..targets import ROOT
from .boards import REAL_BOARDS, get_board
from .image import DEFAULT_RUNS, ImageError, default_out_dir, make_image


def _board(name: str):
    try:
        return get_board(name)
    except KeyError as e:
        raise ImageError(e.args[0]) from None


def cmd_firmware(opts: argparse.Namespace) -> int:
    if opts.calib or opts.kernel or opts.results or opts.list:
        return _calib_firmware(opts)
    from .virtual import run_image, run_qemu
    board = _board(opts.board)
    out = check_out_dir(opts.out if opts.out else default_out_dir(board.name))   # before the build
    built = make_image(board, opts.prim or [], opts.impl or [], out, runs=opts.runs,
                       max_vectors=opts.max_vectors, qemu=opts.qemu or opts.run == "qemu", clock=opts.clock)
    pl = built.plan
    vectors = sum(c["vectors"] for c in pl.checks)
    total = sum(c["total"] for c in pl.checks)
    print(f"{board.name}: {len(pl.checks)} implementations, {vectors} of {total} official vectors embedded, "
          f"{len(pl.ops)} bench operations x {pl.runs} runs", file=sys.stderr)
    if built.fit is not None:
        from ..cores import get_core
        part = get_core(board.target, board.mcu)
        print(f"{board.name}: SRAM {built.fit.static_ram} static + {built.fit.stack} stack of {part.sram_bytes} "
              f"bytes, flash {built.fit.flash} of {part.flash_bytes}", file=sys.stderr)
    for path in (built.elf, built.bin, built.hex):
        print(path, file=sys.stderr if opts.run else sys.stdout)   # with --run, stdout is the UART log
    if opts.run:
        run = run_image(board, built.elf) if opts.run == "virtual" else run_qemu(board, built.elf)
        sys.stdout.write(run.log)
        if not run.finished:
            print(f"mcucrypt: the image did not reach its summary line on {opts.run}", file=sys.stderr)
            return 1
        return 0 if '"summary":"pass"' in run.log else 1
    return 0


def _calib_firmware(opts: argparse.Namespace) -> int:
    """`firmware --calib`: the calibration microbenchmarks (calib.py, docs/calibration.md)."""
    from .calib import default_results, describe, make_calib_image
    from .virtual import run_image, run_qemu
    board = _board(opts.board)
    if not opts.calib:
        raise ImageError("--kernel, --list and --results go with --calib")
    if opts.prim or opts.impl or opts.max_vectors is not None:
        raise ImageError("--calib builds the calibration kernels: --prim, --impl and --max-vectors do not apply")
    if opts.results and opts.run != "virtual":
        raise ImageError("--results is where `--calib --run virtual` writes the virtual board's records")
    if opts.list:
        print("\n".join(describe(board)))
        return 0
    out = check_out_dir(opts.out if opts.out else default_out_dir(board.name + "-calib"))
    if opts.results:
        check_out_file(opts.results, "--results")
    built = make_calib_image(board, opts.kernel or [], out, runs=opts.runs, qemu=opts.qemu or opts.run == "qemu",
                             clock=opts.clock)
    print(f"{board.name}: {len(built.plan.checks)} calibration kernels, {len(built.plan.ops)} timed variants "
          f"x {built.plan.runs} runs", file=sys.stderr)
    for path in (built.elf, built.bin, built.hex):
        print(path, file=sys.stderr if opts.run else sys.stdout)
    if not opts.run:
        return 0
    run = run_image(board, built.elf) if opts.run == "virtual" else run_qemu(board, built.elf)
    sys.stdout.write(run.log)
    if not run.finished:
        print(f"mcucrypt: the image did not reach its summary line on {opts.run}", file=sys.stderr)
        return 1
    if opts.run == "virtual":
        from .ingest import ingest, write
        log = out / f"calib-{board.name}-virtual.log"
        log.write_text(run.log)
        doc, _got = ingest(log, board.name, "virtual")
        results = Path(opts.results) if opts.results else default_results(board)
        write(doc, results)
        print(f"virtual board's records -> {results}", file=sys.stderr)
    return 0 if '"summary":"pass"' in run.log else 1


def cmd_ingest(opts: argparse.Namespace) -> int:
    from .ingest import IngestError, ingest, write
    try:
        _board(opts.board)
    except ImageError as e:
        raise IngestError(str(e)) from None
    if opts.out:
        check_out_file(opts.out)        # before reading the log: a folder or /proc is an error now
    doc, got = ingest(Path(opts.log), opts.board, opts.source)
    calib = "-calib" if got.header.get("kind") == "calib" else ""    # a `firmware --calib` image's log
    out = check_out_file(opts.out or ROOT / "results" / f"silicon{calib}-{opts.board}.json")
    write(doc, out)
    checks = len(got.checks)
    failed = got.failed_checks
    print(f"{opts.board} at {got.header.get('clock_hz')} Hz, {got.header.get('wait_states')} wait states: "
          f"{checks - len(failed)}/{checks} vector checks passed, {len(got.records)} records"
          + (f", {got.skipped} other lines skipped" if got.skipped else "") + f" -> {out}")
    for c in failed:
        print(f"  FAILED vectors: {c.get('prim')} {c.get('impl')} (call {c.get('failed_call')})")
    bad = [r for r in got.records if r.get("error")]
    for r in bad:
        print(f"  {r['prim']} {r['impl']} {r['op']}: {r['error']}")
    return 1 if failed or bad or got.summary.get("summary") != "pass" else 0


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def register(sub) -> None:
    s = sub.add_parser(
        "firmware", help="build a flashable benchmark image for a real board",
        description="Build an image (ELF, .bin, Intel .hex) for a real board that checks the selected "
                    "implementations' official vectors and times every bench operation with the part's cycle "
                    "counter, printing one JSON record per line on the UART (docs/silicon.md).",
        epilog=_examples("mcucrypt firmware --board stm32f103 --prim aes128 --run virtual",
                         "mcucrypt firmware --board hifive1-revb --prim chacha20 --impl rv32-fast --out img",
                         "mcucrypt firmware --board hifive1-revb --calib --run virtual   # calibration kernels"))
    s.add_argument("--board", required=True, choices=list(REAL_BOARDS), help="the real board")
    s.add_argument("--prim", action="append", metavar="PRIM", help="primitive id (repeatable; default: every id)")
    s.add_argument("--impl", action="append", metavar="IMPL",
                   help="implementation (repeatable; default: every one the board runs)")
    s.add_argument("--out", metavar="DIR", help="output directory (default build/silicon/BOARD)")
    s.add_argument("--runs", type=int_at_least(1), default=DEFAULT_RUNS, metavar="N",
                   help=f"timed runs per operation, 1-31; the median is reported (default {DEFAULT_RUNS})")
    s.add_argument("--max-vectors", type=int_at_least(1), default=None, metavar="K",
                   help="official vectors per implementation (default: as many as the board's data budget holds)")
    s.add_argument("--clock", type=int_at_least(1), default=None, metavar="HZ",
                   help="core clock: stm32f103 8/24/32/40/48/56/64/72 MHz (default 24 MHz, 0 wait states; "
                        "the wait states follow), AVR the board's crystal (default 16 MHz)")
    s.add_argument("--qemu", action="store_true",
                   help="link for the QEMU machine's memory (stm32vldiscovery: 8 KiB of SRAM)")
    s.add_argument("--run", choices=("virtual", "qemu"), help="also run the image there and print its log")
    s.add_argument("--calib", action="store_true",
                   help="build the calibration microbenchmarks instead (boards/real/calib/, docs/calibration.md); "
                        "with --run virtual the records go to results/calib-BOARD.json")
    s.add_argument("--kernel", action="append", metavar="NAME",
                   help="with --calib: only this kernel (repeatable; --list names them)")
    s.add_argument("--list", action="store_true", help="with --calib: list the board's kernels and exit")
    s.add_argument("--results", metavar="FILE",
                   help="with --calib --run virtual: results file (default results/calib-BOARD.json)")
    s.set_defaults(func=cmd_firmware)

    s = sub.add_parser(
        "ingest", help="turn a benchmark image's serial log into a bench results file",
        description="Read a log captured from a benchmark image's UART and write its records as a results "
                    "file that `mcucrypt compare` and `mcucrypt report` read.",
        epilog=_examples("mcucrypt ingest stm32f103.log --board stm32f103",
                         "mcucrypt compare results/bench.json results/silicon-stm32f103.json"))
    s.add_argument("log", metavar="FILE", help="the captured log")
    s.add_argument("--board", required=True, choices=list(REAL_BOARDS), help="the board it came from")
    s.add_argument("--out", metavar="FILE", help="results file (default results/silicon-BOARD.json)")
    s.add_argument("--source", default="silicon", choices=("silicon", "qemu", "virtual"),
                   help="where the log came from (recorded in the provenance)")
    s.set_defaults(func=cmd_ingest)
