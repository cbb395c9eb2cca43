#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates inv_update_rv32.S, the matrix updates of rv32-fast's safegcd inversion (inv_rv32.c); run from
anywhere:

    python3 crypto/x25519/rv32/gen_inv.py           # rewrites inv_update_rv32.S beside this script
    python3 crypto/x25519/rv32/gen_inv.py --check   # exit 1 if inv_update_rv32.S is out of date

A batch of 30 divsteps (in C) gives the matrix (u v; q r); the update applies it to f, g (signed, 9
limbs of 30 bits, exact division by 2^30) and to d, e mod p (md p, me p added to make the division
exact; p = -19 + 2^15 2^240 in 30-bit limbs, so only limbs 0 and 8 see them). Each limb pair is 8
signed products (mul/mulh) into a two-word accumulator shifted by 30 per limb. GCC clusters those
multiplications; gen_sched.py (crypto/mpmul/rv32) list-schedules the whole straight-line update for
the E31 so that the additions, shifts, loads and stores run in the 5-cycle shadow of the multiplier.
Every routine's single-assignment description runs in Python too (gen_sched.interpret; --selftest
checks it against integer arithmetic on random matrices and values).
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import function_lines, write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "mpmul" / "rv32"))
import gen_sched  # noqa: E402
from gen_sched import Program, schedule  # noqa: E402

M32 = 0xFFFFFFFF
M30 = (1 << 30) - 1
NL = 9
P_INV30 = pow(2**255 - 19, -1, 1 << 30)
OFF = {"f": 0, "g": 36, "d": 72, "e": 108}    # byte offsets of f, g, d, e in st


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def shift(p: Program, mnem: str, a: str, n: int, comment: str = "") -> str:
    d = p.new("v")
    fn = {"slli": lambda x: (x << n) & M32, "srli": lambda x: x >> n, "srai": lambda x: s32(x) >> n}[mnem]
    p.emit(f"{mnem} {{d0}}, {{s0}}, {n}", "alu", (d,), (a,), comment, interp=lambda x: (fn(x) & M32,))
    return d


def mulh(p: Program, a: str, b: str, comment: str = "") -> str:
    d = p.new("p")
    p.emit("mulh {d0}, {s0}, {s1}", "mul", (d,), (a, b), comment,
           interp=lambda x, y: (((s32(x) * s32(y)) >> 32) & M32,))
    return d


def add64(p: Program, x: tuple[str, str], y: tuple[str, str], what: str) -> tuple[str, str]:
    lo = p.alu("add", x[0], y[0], what)
    c = p.alu("sltu", lo, y[0], "carry")
    hi = p.alu("add", x[1], y[1], what + " hi")
    return lo, p.alu("add", hi, c, what + " hi + carry")


def prod(p: Program, a: str, b: str, what: str, lo: str | None = None) -> tuple[str, str]:
    """The signed 64-bit product a b (lo given when already computed)."""
    return (lo or p.mul("mul", a, b, what)), mulh(p, a, b, what + " hi")


def rows(p: Program, x: str, y: str, mats: list, out, lazy, m30: str, extra=None) -> None:
    """For each (name, (m0, m1)) of mats: out(name, limb, value) for (m0 x + m1 y + extra(name, limb)) /
    2^30, exact, limb by limb, the rows interleaved (every row reads the old limbs of x and y, loaded
    once by lazy(x, i), before any row stores over them). extra(name, i): a 64-bit addend or None;
    first(name): the low words of m0 x0, m1 y0 when already computed."""
    acc: dict = {}
    for i in range(NL):
        xi, yi = lazy(x, i), lazy(y, i)
        for name, (a, b), first in mats:
            col = add64(p, prod(p, a, xi, f"{name} {i}", first[0] if i == 0 and first else None),
                        prod(p, b, yi, f"{name} {i}'", first[1] if i == 0 and first else None), f"{name}[{i}]")
            e = extra(name, i) if extra else None
            if e is not None:
                col = add64(p, col, e, f"{name}[{i}] + m p")
            if name in acc:
                col = add64(p, col, acc[name], f"{name}[{i}] + carry")
                out(name, i - 1, p.alu("and", col[0], m30, f"{name}'[{i - 1}]"))
            lo = p.alu("or", shift(p, "srli", col[0], 30), shift(p, "slli", col[1], 2), f"{name} >> 30")
            if i == NL - 1:
                out(name, NL - 1, lo)
            else:
                acc[name] = (lo, shift(p, "srai", col[1], 30, f"{name} >> 30 hi"))


def update(need_ge: bool) -> Program:
    """inv_update(st, m) (need_ge) or inv_update_fd(st, m): st = f | g | d | e, m = u, v, q, r."""
    p = Program({"%st": "a0", "%m": "a1", "%zero": "zero"})
    u, v, q, r = (p.lw("%m", "m", 4 * k, n) for k, n in enumerate("uvqr"))
    m30 = p.li(M30, "2^30 - 1")
    loaded: dict = {}

    def lazy(x: str, i: int) -> str:
        if (x, i) not in loaded:
            loaded[x, i] = p.lw("%st", "st", OFF[x] + 4 * i, f"{x}[{i}]")
        return loaded[x, i]

    def out(x: str, i: int, val: str) -> None:
        p.sw(val, "%st", "st", OFF[x] + 4 * i, f"{x}[{i}]")

    # d, e first (md, me from the low limbs and the signs), then f, g
    sd = shift(p, "srai", lazy("d", 8), 31, "d < 0")
    se = shift(p, "srai", lazy("e", 8), 31, "e < 0")
    pinv = p.li(s32(P_INV30), "p^-1 mod 2^30")
    m19 = p.li(-19, "p mod 2^30")
    mats, fix = [], {}
    for name, (a, b) in ([("d", (u, v)), ("e", (q, r))] if need_ge else [("d", (u, v))]):
        ad, be = p.mul("mul", a, lazy("d", 0), f"{name}: m0 d0"), p.mul("mul", b, lazy("e", 0), f"{name}: m1 e0")
        md = p.alu("add", p.alu("and", a, sd), p.alu("and", b, se), f"m{name}: m0 (d < 0) + m1 (e < 0)")
        low = p.alu("add", p.mul("mul", pinv, p.alu("add", ad, be), "p^-1 (m0 d0 + m1 e0)"), md)
        md = p.alu("sub", md, p.alu("and", low, m30), f"m{name}: m0 d + m1 e + m{name} p = 0 mod 2^30")
        fix[name] = {0: (p.mul("mul", md, m19, f"m{name} p0"), mulh(p, md, m19, f"m{name} p0 hi")),
                     NL - 1: (shift(p, "slli", md, 15, f"m{name} 2^15"), shift(p, "srai", md, 17, f"m{name} 2^15 hi"))}
        mats.append((name, (a, b), (ad, be)))
    rows(p, "d", "e", mats, out, lazy, m30, lambda name, i: fix[name].get(i))
    rows(p, "f", "g", [("f", (u, v), None)] + ([("g", (q, r), None)] if need_ge else []), out, lazy, m30)
    return p


def model(st: list[int], m: list[int], need_ge: bool) -> list[int]:
    """The update on Python integers (limb values as in inv_rv32.c)."""
    u, v, q, r = m
    val = {x: sum(st[k * NL + i] << (30 * i) for i in range(NL)) for k, x in enumerate("fgde")}
    p = 2**255 - 19
    sd, se = -(val["d"] < 0), -(val["e"] < 0)
    out = list(st)
    for k, (x, (a, b), y, z) in enumerate([("f", (u, v), "f", "g"), ("g", (q, r), "f", "g"),
                                           ("d", (u, v), "d", "e"), ("e", (q, r), "d", "e")]):
        if not need_ge and x in "ge":
            continue
        t = a * val[y] + b * val[z]
        if x in "de":
            mm = (a & sd) + (b & se)
            mm -= (P_INV30 * (t & M32) + mm) & M30   # the low 32 bits suffice for the low 30
            t += mm * p
        assert t % (1 << 30) == 0
        t >>= 30
        idx = "fgde".index(x)
        for i in range(NL - 1):
            out[idx * NL + i] = (t >> (30 * i)) & M30
        out[idx * NL + NL - 1] = s32(t >> 240)
    return out


def selftest(n: int = 300) -> None:
    rng = random.Random("gen_inv")
    p = 2**255 - 19
    for need_ge in (True, False):
        prog = update(need_ge)
        for _ in range(n):
            j = rng.randrange(31)   # a matrix of j divsteps scaled to 2^30: |u| + |v| <= 2^30
            a, b = rng.randrange(-(1 << j), (1 << j) + 1), 0
            b = rng.choice((-1, 1)) * rng.randrange((1 << j) - abs(a) + 1)
            c = rng.randrange(-(1 << j), (1 << j) + 1)
            dd = rng.choice((-1, 1)) * rng.randrange((1 << j) - abs(c) + 1)
            m = [x << (30 - j) for x in (a, b, c, dd)]
            vals = [rng.randrange(-p, p), rng.randrange(-p, p), rng.randrange(-2 * p + 1, p),
                    rng.randrange(-2 * p + 1, p)]
            # f, g: make u f + v g and q f + r g divisible by 2^30 as the divsteps guarantee
            st = []
            for x in vals:
                st += [(x >> (30 * i)) & M30 for i in range(NL - 1)] + [x >> 240]
            for k in range(2):   # f, g: multiples of 2^30, so that the division is exact (as the divsteps make it)
                x = vals[k] >> 30 << 30
                st[k * NL:(k + 1) * NL] = [(x >> (30 * i)) & M30 for i in range(NL - 1)] + [x >> 240]
            want = model(st, m, need_ge)
            mem = {"st": {4 * i: w & M32 for i, w in enumerate(st)}, "m": {4 * k: x & M32 for k, x in enumerate(m)}}
            gen_sched.interpret(prog, mem, {"%st": 0, "%m": 0})
            got = [s32(mem["st"][4 * i]) for i in range(4 * NL)]
            if [s32(x) for x in want] != got:
                raise AssertionError(f"update({need_ge}) differs from the model")


HEADER = """// SPDX-License-Identifier: MIT
/* Generated by gen_inv.py: do not edit (python3 crypto/x25519/rv32/gen_inv.py regenerates it).
 *
 * The matrix updates of rv32-fast's safegcd inversion (inv_rv32.c calls them once per batch):
 *   void mcu_x25519_<impl>_inv_update(int32_t st[36], const int32_t m[4]);
 *       st = f | g | d | e (9 limbs of 30 bits each, limbs 0..7 in [0, 2^30), limb 8 signed),
 *       m = u, v, q, r: (f, g) = ((u f + v g) / 2^30, (q f + r g) / 2^30), exact, and
 *       (d, e) = ((u d + v e + md p) / 2^30, (q d + r e + me p) / 2^30) with md, me making the division
 *       exact (md = (u if d < 0) + (v if e < 0) - ((p^-1 (u d0 + v e0) + that) mod 2^30)), d, e in (-2p, p);
 *   void mcu_x25519_<impl>_inv_update_fd(int32_t st[36], const int32_t m[4]);
 *       the same for f and d alone (the last batch).
 * Each limb pair: 8 signed products, mul/mulh (p = -19 + 2^15 2^240: md p at limbs 0 and 8 only).
 * Scheduling: gen_sched.py (crypto/mpmul/rv32) list-schedules each routine for the E31, the additions,
 * shifts, loads and stores in the shadow of the 5-cycle multiplications; its own counts:
 * inv_update {inv_update_cycles}, inv_update_fd {inv_update_fd_cycles} cycles.
 * Constant time: straight-line code; no address depends on a secret; mul/mulh take a fixed 5 cycles.
 * Register map: a0 = st, a1 = m on entry; every other register is allocated by the scheduler and the
 * comment on each line names the value it computes.
 */
#include "mcucrypt/ns.h"
"""

PARAMS = {"window": 96}


def render() -> tuple[str, dict[str, int]]:
    parts, cycles = [], {}
    for name, need in (("inv_update", True), ("inv_update_fd", False)):
        sched = schedule(update(need), **PARAMS)
        cycles[name] = sched.cycles
        parts += function_lines(f"MCU_FN(x25519, {name})", sched.lines)
    text = HEADER.format(**{f"{k}_cycles": v for k, v in cycles.items()}) + "\n".join(parts) + "\n"
    return text, cycles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if inv_update_rv32.S is out of date")
    ap.add_argument("--selftest", action="store_true", help="check the arithmetic against integers")
    args = ap.parse_args()
    if args.selftest:
        selftest()
        print("gen_inv: arithmetic matches the model")
        return 0
    text, cycles = render()
    if not args.check:
        print("inv_update_rv32.S: predicted " + ", ".join(f"{k} {v}" for k, v in cycles.items()) + " cycles")
    return write_or_check({HERE / "inv_update_rv32.S": text}, args.check, __file__)


if __name__ == "__main__":
    sys.exit(main())
