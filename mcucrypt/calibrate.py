# SPDX-License-Identifier: MIT
"""`mcucrypt calibrate --peer-dir DIR`: peers' published silicon figures against the virtual boards.

Each row names a peer repository (checked out by the user under DIR/<name>, never copied into this
tree), the peer routine, what the peer counted, the figure the peer (or a paper citing it) published from
real silicon, and its source. The command builds the peer's own assembly with a wrapper we generate at
run time into a temporary directory, runs it on our board as the peer's harness ran it on silicon (warm
where the published harness is warm), and prints the table docs/calibration.md holds.

rv32 wrapper: `calib_measure(args)` reads mcycle with the privileged spec's mcycleh/mcycle/mcycleh loop
(a function, like the peers' `getcycles`), calls the routine, reads it again and returns the difference;
the board's counter reads return the model's issue cycle. The call is repeated as the peer's driver does
(its warm-up calls, branch predictor kept: `Rv32Board.warm_predictor`), the last one is the figure.

armv7m: the board maps no DWT, so the figure is the routine's own cycles (first instruction through its
return) on a board without carried-over state (the Cortex-M3 has no branch predictor or cache to warm).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .boards.base import Buf, Int

# ------------------------------------------------------------------------------------------ peers

PEERS: dict[str, str] = {
    "riscvcrypto": "Ko-/riscvcrypto",
    "aes": "aadomn/aes",
    "aes-armcortexm": "Ko-/aes-armcortexm",
}

SOURCES: dict[str, str] = {
    "S19": "K. Stoffelen, Efficient cryptography on the RISC-V architecture, LATINCRYPT 2019 (HiFive1, "
           "FE310-G000); the c/B figures as cited by paper 002 Table 7 (/work/shared/papers/002)",
    "S19t": "K. Stoffelen, LATINCRYPT 2019: T-table key schedule 342 cycles (paper 002 §2 rounds it to 340)",
    "AP21": "A. Adomnicai, T. Peyrin, Fixslicing AES-like ciphers, TCHES 2021(1); aadomn/aes README, table "
            "'E31 RISC-V core' (HiFive1)",
    "SS16": "P. Schwabe, K. Stoffelen, All the AES you need on Cortex-M3 and M4, SAC 2016; Ko-/aes-armcortexm "
            "README, table 'Speed M3' (STM32L100C at 16 MHz, 0 wait states, tables in flash)",
    "AP21m": "A. Adomnicai, T. Peyrin, Fixslicing AES-like ciphers, TCHES 2021(1); aadomn/aes README, table "
             "'ARM Cortex-M3' column (non-unrolled code; the README does not name the part)",
    "I14": "independent re-measurement on a HiFive1 Rev B (FE310-G002), reported in issue 14",
    "S19+I14": "S19 (68.9 c/B x 200 B = 13 780) and I14 (13 731)",
}
_STOFFELEN19, _ADOMNICAI21, _SS16, _ISSUE14 = "S19", "AP21", "SS16", "I14"


@dataclass(frozen=True)
class Row:
    key: str
    target: str                 # rv32 / armv7m
    peer: str                   # key of PEERS (the directory name under --peer-dir)
    sources: tuple[str, ...]    # peer files, relative to the checkout
    symbol: str
    params: str                 # C parameter list of the routine (for the generated wrapper prototype)
    args: Callable[[], list]    # our arguments (Buf/Int), placed by the board
    what: str
    silicon: tuple[float, float]  # published figure (low, high) in `unit`
    unit: str                   # "cycles" or "c/B"
    nbytes: int                 # bytes processed, for c/B
    source: str
    warmups: int = 6            # calls before the measured one (the peer's driver)


def _rnd(n: int, seed: int) -> bytes:
    """Fixed pseudo-random inputs (every routine here runs in data-independent time on these boards)."""
    r = random.Random(seed)
    return bytes(r.randrange(256) for _ in range(n))


def _ctr_param(rk_bytes: int) -> bytes:
    """The CTR routines' parameter block: 16 bytes of nonce and counter (riscvcrypto: nonce[12], ctr[4];
    aes-armcortexm: ctr, nonce[12]) followed by the round keys."""
    return _rnd(16 + rk_bytes, 7)


ROWS: tuple[Row, ...] = (
    # ---- rv32: Ko-/riscvcrypto (driver: main() of each directory)
    Row("rv-ttable-enc", "rv32", "riscvcrypto", ("aes128tables/aes_asm.S",), "AES_128_encrypt",
        "const void *rk, const void *in, void *out",
        lambda: [Buf(_rnd(176, 1)), Buf(_rnd(16, 2)), Buf(size=16, out=True)],
        "AES-128 T-table, one block, round keys precomputed, warm (6 warm-up calls)",
        (903, 903), "cycles", 16, _ISSUE14),
    Row("rv-ttable-ks", "rv32", "riscvcrypto", ("aes128tables/aes_asm.S",), "AES_128_keyschedule",
        "const void *key, void *rk",
        lambda: [Buf(_rnd(16, 3)), Buf(size=160, out=True)],
        "AES-128 T-table key schedule, warm (4 warm-up calls)", (342, 342), "cycles", 0, "S19t", warmups=4),
    Row("rv-keccak", "rv32", "riscvcrypto", ("keccakf1600/keccakf1600_asm.S",), "keccakf1600",
        "void *state", lambda: [Buf(_rnd(200, 4), out=True)],
        "Keccak-f[1600], one permutation, warm (6 warm-up calls)", (13731, 13780), "cycles", 0, "S19+I14"),
    Row("rv-bsctr-4096", "rv32", "riscvcrypto", ("aes128ctrbs/aes_asm.S",), "AES_128_encrypt_ctr",
        "const void *p, const void *in, void *out, unsigned len",
        lambda: [Buf(_ctr_param(352)), Buf(_rnd(4096, 5)), Buf(size=4096, out=True), Int(4096)],
        "bitsliced AES-128-CTR, 4096 B incl. counter, warm (4 warm-up calls)", (124.4, 124.4), "c/B", 4096,
        _STOFFELEN19, warmups=4),
    Row("rv-bsctr-2048", "rv32", "riscvcrypto", ("aes128ctrbs/aes_asm.S",), "AES_128_encrypt_ctr",
        "const void *p, const void *in, void *out, unsigned len",
        lambda: [Buf(_ctr_param(352)), Buf(_rnd(2048, 5)), Buf(size=2048, out=True), Int(2048)],
        "bitsliced AES-128-CTR, 2048 B, warm (4 warm-up calls)", (260695, 260695), "cycles", 2048,
        _ISSUE14, warmups=4),
    Row("rv-chacha20", "rv32", "riscvcrypto", ("chacha20/chacha20_asm.S",), "chacha20",
        "void *out, const void *in, unsigned inlen, const void *key, const void *nonce, unsigned ctr",
        lambda: [Buf(size=4096, out=True), Buf(_rnd(4096, 6)), Int(4096), Buf(_rnd(32, 7)),
                 Buf(_rnd(12, 8)), Int(1)],
        "ChaCha20, 4096 B, warm (6 warm-up calls)", (27.9, 27.9), "c/B", 4096, _STOFFELEN19),
    # ---- rv32: aadomn/aes (2 blocks for fixsliced, 8 for barrel-shiftrows)
    *(Row(f"rv-{name}", "rv32", "aes", (f"riscv/{d}/aes_encrypt.S",), sym,
          "void *c0, void *c1, const void *p0, const void *p1, const void *rk",
          (lambda n=nrk: [Buf(size=16, out=True), Buf(size=16, out=True), Buf(_rnd(16, 9)),
                          Buf(_rnd(16, 10)), Buf(_rnd(4 * n, 11))]),
          f"{label}, 2 blocks, warm", (fig, fig), "c/B", 32, _ADOMNICAI21)
      for name, d, sym, nrk, label, fig in (
          ("ffs128", "fixslicing", "aes128_encrypt_ffs", 88, "AES-128 fully fixsliced", 89.3),
          ("sfs128", "fixslicing", "aes128_encrypt_sfs", 88, "AES-128 semi-fixsliced", 93.4),
          ("ffs256", "fixslicing", "aes256_encrypt_ffs", 120, "AES-256 fully fixsliced", 122.4),
          ("sfs256", "fixslicing", "aes256_encrypt_sfs", 120, "AES-256 semi-fixsliced", 128.4))),
    *(Row(f"rv-{name}", "rv32", "aes", ("riscv/barrel_shiftrows/aes_encrypt.S",), sym,
          "void *out, const void *in, const void *rk",
          (lambda n=nrk: [Buf(size=128, out=True), Buf(_rnd(128, 12)), Buf(_rnd(4 * n, 13))]),
          f"{label}, 8 blocks, warm", (fig, fig), "c/B", 128, _ADOMNICAI21)
      for name, sym, nrk, label, fig in (
          ("bsr128", "aes128_encrypt", 352, "AES-128 barrel-shiftrows", 78.9),
          ("bsr256", "aes256_encrypt", 480, "AES-256 barrel-shiftrows", 105.7))),
    # ---- armv7m: Ko-/aes-armcortexm (tables in flash, .text)
    Row("m3-ks128", "armv7m", "aes-armcortexm", ("aes128/aes.s",), "AES_128_keyschedule",
        "", lambda: [Buf(_rnd(16, 3)), Buf(size=160, out=True)],
        "AES-128 key expansion", (249.8, 249.8), "cycles", 0, _SS16),
    Row("m3-enc128", "armv7m", "aes-armcortexm", ("aes128/aes.s",), "AES_128_encrypt",
        "", lambda: [Buf(_rnd(176, 1)), Buf(_rnd(16, 2)), Buf(size=16, out=True)],
        "AES-128 one block", (637.5, 637.5), "cycles", 0, _SS16),
    *(Row(f"m3-ctr{bits}", "armv7m", "aes-armcortexm", (f"aes{bits}ctr/aes_{bits}_ctr.s",),
          f"AES_{bits}_encrypt_ctr", "",
          (lambda n=nrk: [Buf(_ctr_param(n)), Buf(_rnd(4096, 5)), Buf(size=4096, out=True), Int(4096)]),
          f"AES-{bits}-CTR, 4096 B, cycles per 16-byte block", (fig, fig), "c/block", 4096, _SS16)
      for bits, nrk, fig in ((128, 176, 531.8), (192, 208, 651.0), (256, 240, 767.0))),
    Row("m3-bsctr128", "armv7m", "aes-armcortexm", ("aes128ctrbs/aes_128_ctr_bs.s",), "AES_128_encrypt_ctr",
        "", lambda: [Buf(_ctr_param(352)), Buf(_rnd(4096, 5)), Buf(size=4096, out=True), Int(4096)],
        "bitsliced AES-128-CTR, 4096 B, cycles per 16-byte block", (1618.6, 1618.6), "c/block", 4096, _SS16),
    Row("m3-bsks128", "armv7m", "aes-armcortexm", ("aes128ctrbs/aes_128_ctr_bs.s",), "AES_128_keyschedule",
        "", lambda: [Buf(_rnd(16, 3)), Buf(size=352, out=True)],
        "AES-128 key expansion to bitsliced state", (1024.8, 1024.8), "cycles", 0, _SS16),
    # ---- armv7m: aadomn/aes (no tables: the fixsliced and barrel-shiftrows code reads only SRAM)
    *(Row(f"m3-{name}", "armv7m", "aes", ("armcortexm/fixslicing/aes_encrypt.s",), sym, "",
          (lambda n=nrk: [Buf(size=16, out=True), Buf(size=16, out=True), Buf(_rnd(16, 9)),
                          Buf(_rnd(16, 10)), Buf(_rnd(4 * n, 11))]),
          f"{label}, 2 blocks", (fig, fig), "c/B", 32, "AP21m")
      for name, sym, nrk, label, fig in (
          ("ffs128", "aes128_encrypt_ffs", 88, "AES-128 fully fixsliced", 84.3),
          ("sfs128", "aes128_encrypt_sfs", 88, "AES-128 semi-fixsliced", 87.1),
          ("ffs256", "aes256_encrypt_ffs", 120, "AES-256 fully fixsliced", 115.6),
          ("sfs256", "aes256_encrypt_sfs", 120, "AES-256 semi-fixsliced", 119.9))),
    *(Row(f"m3-{name}", "armv7m", "aes", ("armcortexm/barrel_shiftrows/aes_encrypt.s",), sym, "",
          (lambda n=nrk: [Buf(size=128, out=True), Buf(_rnd(4 * n, 13)), Buf(_rnd(128, 12))]),
          f"{label}, 8 blocks", (fig, fig), "c/B", 128, "AP21m")
      for name, sym, nrk, label, fig in (
          ("bsr128", "aes128_encrypt", 352, "AES-128 barrel-shiftrows", 94.8),
          ("bsr256", "aes256_encrypt", 480, "AES-256 barrel-shiftrows", 127.9))),
)


# -------------------------------------------------------------------------------------- harness

_GETCYCLES_RV32 = """\
    .option arch, +zicsr
    .text
    .align 2
    .globl calib_getcycles
calib_getcycles:            /* privileged spec: read the 64-bit counter consistently */
    csrr a1, mcycleh
    csrr a0, mcycle
    csrr a2, mcycleh
    bne  a1, a2, calib_getcycles
    ret
"""


def _wrapper_rv32(row: Row) -> str:
    names = [p.strip().split()[-1].lstrip("*") for p in row.params.split(",")]
    return ("// SPDX-License-Identifier: MIT\n// generated by mcucrypt calibrate\n#include <stdint.h>\n"
            "extern uint64_t calib_getcycles(void);\n"
            f"extern void {row.symbol}({row.params});\n"
            f"uint32_t calib_measure({row.params});\n"
            f"uint32_t calib_measure({row.params})\n{{\n"
            "    uint64_t t0 = calib_getcycles();\n"
            f"    {row.symbol}({', '.join(names)});\n"
            "    return (uint32_t)(calib_getcycles() - t0);\n}\n")


@dataclass
class Result:
    row: Row
    commit: str
    board: float                # in the row's unit
    board_cycles: int
    ratio: float
    note: str = ""


def _commit(checkout: Path) -> str:
    """The checkout's commit ("unknown" when it is not a git work tree)."""
    try:
        out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out or "unknown"


def _to_unit(row: Row, cycles: int) -> float:
    if row.unit == "c/B":
        return cycles / row.nbytes
    if row.unit == "c/block":
        return cycles / (row.nbytes / 16)
    return float(cycles)


def measure(row: Row, checkout: Path, *, rv32_params=None, cm3_params=None) -> Result:
    """Build ``row``'s peer code with our wrapper and time it on the board."""
    from .build import build
    srcs = []
    for s in row.sources:
        p = checkout / s
        if not p.is_file():
            raise CalibrationError(f"{row.key}: {p} not found (is {PEERS[row.peer]} checked out as "
                                   f"{checkout}?)")
        srcs.append(p)
    # A fixed directory per row: the build cache keys on source paths, so a fresh name would rebuild
    with tempfile.TemporaryDirectory(prefix="mcucrypt-calib-") as tmp:
        t = Path(tmp).parent / "mcucrypt-calib" / row.key
        t.mkdir(parents=True, exist_ok=True)
        if row.target == "rv32":
            from .boards.rv32 import Rv32Board
            (t / "calib_wrap.c").write_text(_wrapper_rv32(row))
            (t / "calib_getcycles.S").write_text(_GETCYCLES_RV32)
            image = build("rv32", [*srcs, t / "calib_wrap.c", t / "calib_getcycles.S"],
                          name=f"calib-{row.key}", keep=["calib_measure"],
                          extra_cflags=["-Wno-error"])
            board = Rv32Board(rv32_params) if rv32_params is not None else Rv32Board()
            board.load(image.path)
            board.warm_predictor = True
            r = None
            for _ in range(row.warmups + 1):
                r = board.call("calib_measure", row.args())
            assert r is not None
            cycles = r.return_value
        else:
            from .boards.armv7m import Armv7mBoard
            image = build("armv7m", srcs, name=f"calib-{row.key}", keep=[row.symbol],
                          extra_cflags=["-Wno-error"])
            board = Armv7mBoard(cm3_params) if cm3_params is not None else Armv7mBoard()
            board.load(image.path)
            cycles = board.call(row.symbol, row.args()).cycles
    value = _to_unit(row, cycles)
    mid = (row.silicon[0] + row.silicon[1]) / 2
    return Result(row, _commit(checkout), value, cycles, value / mid)


class CalibrationError(Exception):
    pass


def run(peer_dir: Path, *, targets: Sequence[str] = ("rv32", "armv7m"), keys: Sequence[str] = (),
        rv32_params=None, cm3_params=None) -> list[Result]:
    results = []
    for row in ROWS:
        if row.target not in targets or (keys and row.key not in keys):
            continue
        checkout = peer_dir / row.peer
        if not checkout.is_dir():
            raise CalibrationError(f"{checkout} does not exist: check out {PEERS[row.peer]} there")
        results.append(measure(row, checkout, rv32_params=rv32_params, cm3_params=cm3_params))
    return results


def _fmt(v: float, unit: str) -> str:
    if unit != "cycles":
        return f"{v:.2f}"
    return f"{v:,.0f}" if v == int(v) else f"{v:,.1f}"     # published averages keep their decimal


def table(results: Sequence[Result]) -> str:
    lines = ["| target | peer @ commit | routine (file) | what is counted | silicon | source | board "
             "| ratio |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        row = r.row
        lo, hi = row.silicon
        sil = _fmt(lo, row.unit) if lo == hi else f"{_fmt(lo, row.unit)}–{_fmt(hi, row.unit)}"
        unit = "" if row.unit == "cycles" else f" {row.unit}"
        flag = "" if abs(r.ratio - 1) <= 0.015 else " **(outside ±1.5%)**"
        routine = f"`{row.symbol}` ({', '.join(row.sources)})"
        lines.append(f"| {row.target} | {PEERS[row.peer]} @ {r.commit[:7]} | {routine} "
                     f"| {row.what} | {sil}{unit} | {row.source} | {_fmt(r.board, row.unit)}{unit} "
                     f"({r.board_cycles:,} cycles) | {r.ratio:.3f}{flag} |")
    used = sorted({r.row.source for r in results})
    lines += [""] + [f"- {k}: {SOURCES[k]}" for k in used]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ CLI

def register(subparsers: argparse._SubParsersAction) -> None:
    s = subparsers.add_parser(
        "calibrate", help="peers' published silicon figures against the boards",
        description="Build each peer routine from the checkouts in DIR with a wrapper generated here, time it on "
                    "its board and print the published silicon figure, the board figure and their ratio "
                    "(docs/calibration.md is this command's output). The avr board (simavr) is cycle-exact by "
                    "construction and has no rows.",
        epilog="examples:\n"
               "  mcucrypt calibrate --peer-dir ~/peers\n"
               "  mcucrypt calibrate --peer-dir ~/peers --target armv7m --json")
    s.add_argument("--peer-dir", required=True, metavar="DIR",
                   help="directory holding the peer checkouts by name: " + ", ".join(
                       f"{k} ({v})" for k, v in PEERS.items()))
    s.add_argument("--target", action="append", choices=("rv32", "armv7m"),
                   help="only this board's rows (repeatable; default both)")
    s.add_argument("--row", action="append", help="only these rows (keys: " +
                   ", ".join(r.key for r in ROWS) + ")")
    s.add_argument("--json", action="store_true", help="the table as JSON")
    s.set_defaults(func=cmd_calibrate)


def cmd_calibrate(opts: argparse.Namespace) -> int:
    peer_dir = Path(opts.peer_dir)
    if not peer_dir.is_dir():
        print(f"mcucrypt: error: --peer-dir {peer_dir} is not a directory", file=sys.stderr)
        return 2
    unknown = set(opts.row or ()) - {r.key for r in ROWS}
    if unknown:
        print(f"mcucrypt: error: unknown row {sorted(unknown)[0]}", file=sys.stderr)
        return 2
    try:
        results = run(peer_dir, targets=opts.target or ("rv32", "armv7m"), keys=opts.row or ())
    except CalibrationError as e:
        print(f"mcucrypt: error: {e}", file=sys.stderr)
        return 2
    if opts.json:
        print(json.dumps([{"key": r.row.key, "target": r.row.target, "repository": PEERS[r.row.peer],
                           "commit": r.commit, "symbol": r.row.symbol, "what": r.row.what,
                           "silicon": r.row.silicon, "unit": r.row.unit, "source": r.row.source,
                           "board": r.board, "board_cycles": r.board_cycles, "ratio": r.ratio}
                          for r in results], indent=1))
    else:
        print(table(results))
    outside = [r for r in results if abs(r.ratio - 1) > 0.015]
    print(f"{len(results) - len(outside)} of {len(results)} rows within ±1.5%", file=sys.stderr)
    return 1 if outside else 0
