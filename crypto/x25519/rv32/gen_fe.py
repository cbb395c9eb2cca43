#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates fe_rv32.S, the X25519 field multiplication and squaring of rv32-fast; run from anywhere:

    python3 crypto/x25519/rv32/gen_fe.py           # rewrites fe_rv32.S beside this script
    python3 crypto/x25519/rv32/gen_fe.py --check   # exit 1 if fe_rv32.S is out of date

Built on the project's own multiplication (crypto/mpmul/rv32): the product is gen_fast.comba, the
straight-line product scanning of rv32-fast (paper 000's column-wise method, fully unrolled, each
32x32->64 product a mul/mulhu pair with a three-word column accumulator), and gen_sched.py list-schedules
the whole routine (product, squaring, reduction) for the E31 so that the additions, loads and stores
run in the shadow of the 5-cycle multiplications. Added here:

- the squaring: the 28 cross products a_i a_j (i < j) by the same product scanning, the 512-bit sum
  doubled by a shift chain, the 8 squares a_i^2 added in the same carry chain: 36 products, not 64;
- the reduction mod p = 2^255 - 19: r = t_lo + 38 t_hi word by word (38 t_(8+j) by a mul/mulhu pair,
  a constant multiplier, fixed time; by shifts for the words in ALU38), then the bits at and above 2^255 (at most 6 + 1 bits) folded back
  as 19 times themselves into a value below 2^255 + 2^11 < 2^256 - one pass, no second fold.
Both routines keep the single-assignment description runnable in Python (gen_sched.interpret), which
tests/test_x25519.py uses to check the arithmetic apart from the scheduler.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
MPMUL = HERE.parent.parent / "mpmul" / "rv32"
sys.path.insert(0, str(MPMUL))
from gen_fast import comba, loader  # noqa: E402
from gen_sched import Program, schedule  # noqa: E402

M32 = 0xFFFFFFFF


def shift(p: Program, mnem: str, a: str, n: int, comment: str = "", hint: str = "v") -> str:
    d = p.new(hint)
    f = (lambda x: (x << n) & M32) if mnem == "slli" else (lambda x: x >> n)
    p.emit(f"{mnem} {{d0}}, {{s0}}, {n}", "alu", (d,), (a,), comment, interp=lambda x: (f(x),))
    return d


def andi(p: Program, a: str, imm: int, comment: str = "", hint: str = "v") -> str:
    d = p.new(hint)
    p.emit(f"andi {{d0}}, {{s0}}, {imm}", "alu", (d,), (a,), comment, interp=lambda x: (x & imm & M32,))
    return d


def add_with_carry(p: Program, x: str, y: str, comment: str) -> tuple[str, str]:
    s = p.alu("add", x, y, comment, hint="s")
    return s, p.alu("sltu", s, y, "carry", hint="k")


def times38(p: Program, x: str, what: str) -> tuple[str, str]:
    """(lo, hi) of 38 x by shifts and additions (38 = 32 + 4 + 2), 14 ALU instructions that can run in
    the multiplier's shadow where a mul/mulhu pair would occupy the multiplier for 10 cycles."""
    a5, a2, a1 = (shift(p, "slli", x, n, f"{what} << {n}", hint="d") for n in (5, 2, 1))
    s, c1 = add_with_carry(p, a5, a2, f"lo 38 {what}")
    lo, c2 = add_with_carry(p, s, a1, "")
    h5, h2, h1 = (shift(p, "srli", x, 32 - n, f"{what} >> {32 - n}", hint="d") for n in (5, 2, 1))
    hi = p.alu("add", h5, h2, f"hi 38 {what}", hint="hi")
    hi = p.alu("add", hi, h1, "", hint="hi")
    hi = p.alu("add", hi, c1, "", hint="hi")
    return lo, p.alu("add", hi, c2, "", hint="hi")


def reduce(p: Program, t: list[str], rbuf: str = "m", alu38: tuple[int, ...] = ()) -> None:
    """Store r = t mod p (partially: r < 2^256) for the 16-word t, as described in the module text.

    Word j: u_j = t_j + lo(38 t_(8+j)) + hi(38 t_(7+j)) + c_(j-1), where hi < 38 and the carry c counts
    the wrap-arounds (at most 2). The top, T = hi(38 t_15) + c_7 (< 41), and bit 255 of u_7 are the
    part at and above 2^255: T' = 2 T + bit255, folded as 19 T' (< 2^11) into u with bit 255 cleared."""
    c38 = p.li(38, "the reduction constant: 2^256 = 38 (mod p)", hint="m")
    u: list[str] = []
    carry: str | None = None
    hi_prev: str | None = None
    for j in range(8):
        x = t[8 + j]
        if j in alu38:
            lo, hi = times38(p, x, f"t[{8 + j}]")
        else:
            lo = p.mul("mul", x, c38, f"lo 38 t[{8 + j}]", hint="lo")
            hi = p.mul("mulhu", x, c38, f"hi 38 t[{8 + j}] (< 38)", hint="hi")
        s, c = add_with_carry(p, t[j], lo, f"u[{j}] = t[{j}] + lo 38 t[{8 + j}]")
        # the small terms: hi of the previous word (< 38) plus its carries (<= 2); their sum < 41
        if hi_prev is not None:
            small = p.alu("add", hi_prev, carry, "hi(prev) + carries") if carry is not None else hi_prev
            s, c2 = add_with_carry(p, s, small, f"u[{j}] += hi(prev) + carry")
            c = p.alu("add", c, c2, "carries", hint="k")
        u.append(s)
        carry, hi_prev = c, hi
    top = p.alu("add", hi_prev, carry, "T: the value of the bits above 2^256 (< 41)", hint="k")
    b255 = shift(p, "srli", u[7], 31, "bit 255", hint="k")
    top2 = shift(p, "slli", top, 1, "2 T", hint="k")
    top2 = p.alu("or", top2, b255, "T' = 2 T + bit 255: the multiple of 2^255", hint="k")
    f = shift(p, "slli", top2, 4, "16 T'", hint="k")
    g = shift(p, "slli", top2, 1, "2 T'", hint="k")
    f = p.alu("add", f, g, "18 T'", hint="k")
    f = p.alu("add", f, top2, "19 T' (2^255 = 19 mod p)", hint="k")
    u7 = shift(p, "slli", u[7], 1, "clear bit 255", hint="s")
    u[7] = shift(p, "srli", u7, 1, "", hint="s")
    c = f
    for j in range(8):   # u < 2^255 and 19 T' < 2^11: the sum stays below 2^256
        s = p.alu("add", u[j], c, f"r[{j}] = u[{j}] + carry", hint="s")
        if j < 7:
            c = p.alu("sltu", s, c, "carry", hint="k")
        p.sw(s, "%r", rbuf, 4 * j, f"r[{j}]")


# Which reduction words take 38 t by shifts instead of a mul/mulhu pair, and the scheduler window: the
# lowest predicted count over every prefix/suffix of the words and windows 48, 96, 128 (the multiplier
# is the bound in fe_mul, the ALU nearly so in fe_sqr, so only one word each gains from the shifts).
ALU38 = {"fe_mul": (7,), "fe_sqr": (0,)}
PARAMS = {"window": 128}


def fe_mul(bufs: tuple[str, str, str] = ("m", "m", "m")) -> Program:
    """r = a * b mod p: comba (rv32-fast's 256-bit product scanning) into registers, then reduce.
    ``bufs``: the buffer names of r, a, b (distinct names only for gen_sched.interpret)."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%zero": "zero"})
    t: dict[int, str] = {}
    # a, b and r share the buffer name "m": r may be the same array as a or b, so the scheduler must
    # keep each store after every load of the same word (it orders accesses to one (buffer, offset)).
    comba(p, loader(p, "%a", bufs[1], 8, "a"), loader(p, "%b", bufs[2], 8, "b"), lambda k, v: t.__setitem__(k, v))
    reduce(p, [t[k] for k in range(16)], bufs[0], ALU38["fe_mul"])
    return p


def fe_sqr(bufs: tuple[str, str] = ("m", "m")) -> Program:
    """r = a^2 mod p: the cross products by product scanning, doubled, plus the squares, reduced."""
    p = Program({"%r": "a0", "%a": "a1", "%zero": "zero"})
    a = loader(p, "%a", bufs[1], 8, "a")
    # the cross products: column k sums a_i a_(k-i) for i < k - i (k = 1 .. 13), as comba does
    acc: dict[int, str] = {}
    cross: dict[int, str] = {}
    for k in range(1, 14):
        for i in range(max(0, k - 7), (k + 1) // 2):
            ai, aj = a[i](), a[k - i]()
            lo = p.mul("mul", ai, aj, f"lo a[{i}]*a[{k - i}]", hint="lo")
            hi = p.mul("mulhu", ai, aj, f"hi a[{i}]*a[{k - i}]", hint="hi")
            if k not in acc:
                acc[k] = lo
            else:
                s = p.alu("add", acc[k], lo, f"column {k} += lo", hint="c")
                c = p.alu("sltu", s, lo, "carry", hint="k")
                acc[k] = s
                hi = p.alu("add", hi, c, "hi + carry: no overflow", hint="hi")
            if k + 1 not in acc:
                acc[k + 1] = hi
            else:
                s = p.alu("add", acc[k + 1], hi, f"column {k + 1} += hi", hint="c")
                acc[k + 1] = s
                c = p.alu("sltu", s, hi, "carry", hint="k")
                acc[k + 2] = p.alu("add", acc[k + 2], c, f"column {k + 2} += carry", hint="c") \
                    if k + 2 in acc else c
        cross[k] = acc.pop(k)
    cross[14], cross[15] = acc.pop(14), acc.pop(15)    # the cross sum: words 1 .. 15, below 2^511
    # t = 2 cross + sum a_i^2 2^(64 i): the doubling shift chain and the squares in one carry chain
    t: list[str] = []
    carry: str | None = None
    for i in range(8):
        ai = a[i]()
        sq_lo = p.mul("mul", ai, ai, f"lo a[{i}]^2", hint="lo")
        sq_hi = p.mul("mulhu", ai, ai, f"hi a[{i}]^2", hint="hi")
        for k, sq in ((2 * i, sq_lo), (2 * i + 1, sq_hi)):
            if k == 0:
                t.append(sq)                       # cross has no word 0
                continue
            w = shift(p, "slli", cross[k], 1, f"2 cross[{k}]", hint="d") if k in cross else None
            if k - 1 in cross:
                top = shift(p, "srli", cross[k - 1], 31, f"bit 31 of cross[{k - 1}]", hint="d")
                w = p.alu("or", w, top, "", hint="d") if w is not None else top
            if k == 15:                            # t < 2^512: no carry out of the top word
                s = p.alu("add", w, sq, "t[15] = 2 cross[15] + square word", hint="s")
                t.append(p.alu("add", s, carry, "+ carry", hint="s"))
                continue
            s, c = add_with_carry(p, w, sq, f"t[{k}] = 2 cross[{k}] + square word")
            if carry is not None:
                s, c2 = add_with_carry(p, s, carry, "+ carry")
                c = p.alu("add", c, c2, "carries", hint="k")
            t.append(s)
            carry = c
    reduce(p, t, bufs[0], ALU38["fe_sqr"])
    return p


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_fe.py -- edit the generator, not this file
 * (python3 crypto/x25519/rv32/gen_fe.py rewrites it; --check verifies it is up to date).
 *
 *   void mcu_x25519_<impl>_fe_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);   r = a b mod p
 *   void mcu_x25519_<impl>_fe_sqr(uint32_t *r, const uint32_t *a);                      r = a^2 mod p
 *
 * p = 2^255 - 19; 8 little-endian 32-bit limbs, inputs any value below 2^256, r below 2^256 and
 * congruent mod p; r may be the same array as a or b.
 *
 * fe_mul: rv32-fast's 256-bit product scanning (crypto/mpmul/rv32/gen_fast.py, paper 000's column-wise
 * method, unrolled: a mul/mulhu pair per product, three-word column accumulator), 64 products.
 * fe_sqr: the 28 cross products by the same product scanning, doubled by a shift chain, plus the
 * 8 squares in one carry chain: 36 products.
 * Reduction (both): r = t_lo + 38 t_hi (a mul/mulhu pair by the constant 38 per word, shifts for one
 * word where that schedules better), then the part
 * at and above 2^255 folded back as 19 times itself, into a value below 2^256, in one pass.
 *
 * Scheduling: gen_sched.py (crypto/mpmul/rv32) list-schedules each routine for the E31, the additions,
 * loads and stores in the shadow of the 5-cycle multiplications; its own counts: fe_mul {mul_cycles},
 * fe_sqr {sqr_cycles} cycles.
 * Constant time: straight-line code; no address depends on a secret; mul/mulhu take a fixed 5 cycles.
 * Register map: a0 = r, a1 = a, a2 = b on entry; every other register is allocated by the scheduler and
 * the comment on each line names the value it computes.
 */
#include "mcucrypt/ns.h"
"""

def render() -> tuple[str, dict[str, int]]:
    parts, cycles = [], {}
    for name, build in (("fe_mul", fe_mul), ("fe_sqr", fe_sqr)):
        sched = schedule(build(), **PARAMS)
        cycles[name] = sched.cycles
        symbol = f"MCU_FN(x25519, {name})"
        parts += ["", f'    .section .text.{symbol}, "ax", @progbits', f"    .globl {symbol}",
                  f"    .type {symbol}, @function", "    .p2align 2", f"{symbol}:", *sched.lines,
                  f"    .size {symbol}, . - {symbol}"]
    text = HEADER.format(mul_cycles=cycles["fe_mul"], sqr_cycles=cycles["fe_sqr"]) + "\n".join(parts) + "\n"
    return text, cycles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if fe_rv32.S is out of date")
    args = ap.parse_args()
    text, cycles = render()
    if not args.check:
        print(f"fe_rv32.S: predicted fe_mul {cycles['fe_mul']}, fe_sqr {cycles['fe_sqr']} cycles")
    return write_or_check({HERE / "fe_rv32.S": text}, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())
