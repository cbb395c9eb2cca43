# SPDX-License-Identifier: MIT
"""`mcucrypt firmware --calib`: an image of calibration microbenchmarks instead of the catalog.

The kernels are hand-written assembly in ``boards/real/calib/<target>.S``; each isolates one timing
mechanism that decides an open calibration row (docs/calibration.md, "Settling the open rows on
silicon"). Every kernel is ``uint32_t calib_<name>(uint32_t n, ...)`` (``uint16_t`` on AVR) and returns a
checksum. The image is the benchmark image (runner.c, image.py's tables): each kernel variant is one
recorded call, made first on the virtual board (its result is what the part must return, its
instruction count goes into the record), then timed by the runner like a bench operation. Records are
``{"prim":"calib","impl":<kernel>,"op":<variant>,...}``, so `mcucrypt compare` lines the virtual board's
run of the image (``results/calib-<board>.json``) up with the part's.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..boards import make_board
from ..boards.base import Int
from ..build import build
from ..catalog import Param, parse_prototype
from ..targets import ROOT
from .boards import REAL_DIR, RealBoard
from .image import DEFAULT_RUNS, ImageError, Outputs, Plan, Recorded, build_image, clock_flags

CALIB_DIR = REAL_DIR / "calib"
PRIM = "calib"


@dataclass(frozen=True)
class Kernel:
    name: str                                  # the record's impl
    proto: str                                 # C prototype
    variants: tuple[tuple[str, tuple[int, ...]], ...]   # (op, arguments)
    isolates: str                              # what it measures
    decides: str                               # which open row / model parameter it settles

    @property
    def symbol(self) -> str:
        return parse_prototype(self.proto).name_template


def _n(n: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return (("once", (1,)), (f"loop{n}", (n,)))


_QR = "straight-line ChaCha20 quarter-rounds (t/1781), no stall, no taken branch"
KERNELS: dict[str, tuple[Kernel, ...]] = {
    "rv32": (
        *(Kernel(f"qr-{size}", f"uint32_t calib_qr_{size.replace('.', '')}(uint32_t n)", _n(8),
                 f"{_QR}: {nbytes} bytes, once and as a loop body",
                 "rv32 pattern (c): ChaCha20 / bitsliced AES-CTR 4-6% slower on silicon")
          for size, nbytes in (("0k7", 720), ("4k", 4104), ("8k", 8208), ("12k", 12312), ("16k", 16344))),
        Kernel("jumps16", "uint32_t calib_jumps16(uint32_t n)", (("loop32", (32,)),),
               "16 taken JALs at distinct addresses per iteration (fit the BTB)",
               "BTB size (28 vs 40 entries) and the cost of a BTB-missed JAL (pattern (a))"),
        Kernel("jumps32", "uint32_t calib_jumps32(uint32_t n)", (("loop32", (32,)),),
               "32 taken JALs at distinct addresses per iteration (fit 40 BTB entries, not 28)",
               "BTB size: 28 entries (rocket-chip default, the model) or 40 (FE310-G000 manual)"),
        Kernel("jumps48", "uint32_t calib_jumps48(uint32_t n)", (("loop32", (32,)),),
               "48 taken JALs at distinct addresses per iteration (thrash the BTB)",
               "BTB size and the predecoder bubble of a BTB-missed JAL (pattern (a))"),
        Kernel("calls32", "uint32_t calib_calls32(uint32_t n)", (("loop16", (16,)),),
               "32 call sites to one leaf per iteration: JALs and returns beyond the BTB",
               "pattern (a): fixsliced AES rows (29-37 call sites)"),
        Kernel("alternate", "uint32_t calib_alternate(uint32_t n)", (("loop256", (256,)),),
               "a branch alternating taken / not taken",
               "pattern (b): 1-bit vs 2-bit BHT counters, history"),
        Kernel("loaduse", "uint32_t calib_loaduse(uint32_t n)", (("loop16", (16,)),),
               "32 dependent loads per iteration (pointer chase in the DTIM)",
               "load-to-use latency (the stalls Keccak's loop body has and ChaCha20's lacks)"),
        Kernel("loadfree", "uint32_t calib_loadfree(uint32_t n)", (("loop16", (16,)),),
               "32 independent loads per iteration", "baseline of loaduse"),
        Kernel("mul-dep", "uint32_t calib_mul_dep(uint32_t n)", (("loop16", (16,)),),
               "32 dependent MULs per iteration", "multiplier latency (uncalibrated)"),
        Kernel("mul-free", "uint32_t calib_mul_free(uint32_t n)", (("loop16", (16,)),),
               "32 independent MULs per iteration", "multiplier issue rate (uncalibrated)"),
        Kernel("divu", "uint32_t calib_divu(uint32_t n, uint32_t a, uint32_t b)",
               (("small", (8, 100, 7)), ("large", (8, 0xFFFF_FFFF, 3))),
               "16 DIVUs per iteration, small and large operands", "divider latency (uncalibrated)"),
    ),
    "armv7m": (
        Kernel("tload-flash", "uint32_t calib_tload_flash(uint32_t n)", (("loop64", (64,)),),
               "8 T-table-style loads per iteration from a table in flash",
               "armv7m tables in flash (Ko-/aes-armcortexm, board 2.2-4.7% fast)"),
        Kernel("tload-sram", "uint32_t calib_tload_sram(uint32_t n)", (("loop64", (64,)),),
               "the same loads from a table in SRAM", "baseline of tload-flash"),
        Kernel("tload-mix", "uint32_t calib_tload_mix(uint32_t n)", (("loop64", (64,)),),
               "loads alternating flash and SRAM tables (8 flash-to-SRAM switches per iteration)",
               "the one-cycle-per-switch regularity of the flash-table rows"),
        Kernel("bl-aligned", "uint32_t calib_bl_aligned(uint32_t n)", (("loop32", (32,)),),
               "8 BL + BX LR per iteration, returns to word-aligned 32-bit instructions",
               "baseline of bl-unaligned"),
        Kernel("bl-unaligned", "uint32_t calib_bl_unaligned(uint32_t n)", (("loop32", (32,)),),
               "8 BL + BX LR per iteration, returns to 32-bit instructions at 2 mod 4",
               "refill_wide_unaligned: table-free aadomn/aes rows (board 1.3-2.5% slow)"),
        Kernel("b-aligned", "uint32_t calib_b_aligned(uint32_t n)", (("loop32", (32,)),),
               "8 taken B.W per iteration to word-aligned 32-bit instructions", "baseline of b-unaligned"),
        Kernel("b-unaligned", "uint32_t calib_b_unaligned(uint32_t n)", (("loop32", (32,)),),
               "8 taken B.W per iteration to 32-bit instructions at 2 mod 4",
               "refill_wide_unaligned for plain branches"),
        Kernel("ldr-dep", "uint32_t calib_ldr_dep(uint32_t n)", (("loop32", (32,)),),
               "16 LDRs per iteration, each address the previous result",
               "load_address_after_load / address_dependency"),
        Kernel("ldr-free", "uint32_t calib_ldr_free(uint32_t n)", (("loop32", (32,)),),
               "16 independent LDRs per iteration", "baseline of ldr-dep (pipelined LDRs)"),
        Kernel("umull", "uint32_t calib_umull(uint32_t n, uint32_t a, uint32_t b)",
               (("small", (8, 0x12, 0x34)), ("large", (8, 0xFFFF_FFFF, 0xFFFF_FFFF))),
               "16 UMULLs per iteration, small and large operands", "UMULL early termination"),
        Kernel("udiv", "uint32_t calib_udiv(uint32_t n, uint32_t a, uint32_t b)",
               (("small", (8, 100, 7)), ("large", (8, 0xFFFF_FFFF, 3))),
               "16 UDIVs per iteration, small and large operands", "UDIV latency by operand size"),
    ),
    "avr": (
        Kernel("avr-mix", "uint16_t calib_avr_mix(uint16_t n)", (("loop16", (16,)),),
               "8 x (LPM, LD, MUL, ADD) per iteration", "sanity: harness and counter (simavr is the datasheet)"),
    ),
}


def kernels_for(board: RealBoard, names: Sequence[str] = ()) -> list[Kernel]:
    known = KERNELS[board.target]
    for n in names:
        if n not in {k.name for k in known}:
            raise ImageError(f"unknown calibration kernel {n!r} for {board.name} "
                             f"(known: {', '.join(k.name for k in known)})")
    return [k for k in known if not names or k.name in names]


def source(board: RealBoard) -> Path:
    return CALIB_DIR / f"{board.target}.S"


def _symbol_sizes(elf: Path) -> dict[str, int]:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection
    out: dict[str, int] = {}
    with open(elf, "rb") as f:
        for sec in ELFFile(f).iter_sections():
            if isinstance(sec, SymbolTableSection):
                for s in sec.iter_symbols():
                    if s["st_info"]["type"] == "STT_FUNC":
                        out[s.name] = s["st_size"]
    return out


def plan_calib(board: RealBoard, names: Sequence[str] = (), *, runs: int) -> Plan:
    """Run every selected kernel variant on the virtual board (a training call, then the recorded one, as
    the image times it) and record it as a timed operation."""
    kernels = kernels_for(board, names)
    src = source(board)
    isa = "rv32imac" if board.target == "rv32" else None
    image = build(board.target, [src.relative_to(ROOT)], name=f"calib-{board.target}", isa=isa,
                  keep=[k.symbol for k in kernels])
    vboard = make_board(board.target)
    if board.target == "rv32":
        vboard.warm_predictor = True            # type: ignore[attr-defined]  # warm, as the image times it
        vboard.load(image.path, isa=isa)        # type: ignore[call-arg]
    else:
        vboard.load(image.path)
    sizes = _symbol_sizes(image.path)
    pl = Plan(board, runs=runs, kind="calib", sources=[src])
    for k in kernels:
        proto = parse_prototype(k.proto)
        ret_size = Param(proto.ret, "ret").scalar_size(vboard.native_int_size)
        calls = []
        for _op, values in k.variants:
            args = [Int(v, p.scalar_size(vboard.native_int_size)) for v, p in zip(values, proto.params)]
            vboard.call(k.symbol, args, ret_size=ret_size)     # the training call the image makes too
            result = vboard.call(k.symbol, args, ret_size=ret_size)
            calls.append(Recorded(k.symbol, proto, args, result))
        check = len(pl.checks)
        pl.checks.append({"prim": PRIM, "impl": k.name, "first": len(pl.calls), "ncalls": len(calls),
                          "vectors": len(calls), "total": len(calls)})
        for (op, _values), c in zip(k.variants, calls):
            fixed = {"prim": PRIM, "impl": k.name, "target": board.target, "op": op, "bytes": 0,
                     "instructions": c.result.instructions, "code_bytes": sizes.get(k.symbol),
                     "constant_time": "n/a", "constant_time_claimed": None,
                     "isa": isa, "goal": None}
            pl.ops.append({"call": len(pl.calls), "check": check, "bytes": 0,
                           "json": json.dumps(fixed, separators=(",", ":"))[:-1] + ","})
            pl.calls.append(c)
    return pl


def describe(board: RealBoard) -> list[str]:
    """One line per kernel: name, variants, what it isolates, what it decides."""
    return [f"{k.name:13} {', '.join(op for op, _ in k.variants):12} {k.isolates}; decides: {k.decides}"
            for k in KERNELS[board.target]]


def make_calib_image(board: RealBoard, names: Sequence[str], out_dir: Path, *, runs: int = DEFAULT_RUNS,
                     qemu: bool = False, clock: int | None = None) -> Outputs:
    if not 1 <= runs <= 31:
        raise ImageError("--runs must be between 1 and 31")
    clock_flags(board, clock)
    return build_image(board, plan_calib(board, names, runs=runs), out_dir, qemu=qemu, clock=clock)


def default_results(board: RealBoard) -> Path:
    """Where `firmware --calib --run virtual` writes the virtual board's records."""
    return ROOT / "results" / f"calib-{board.name}.json"
