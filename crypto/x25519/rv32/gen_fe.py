#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates fe_rv32.S, the X25519 field arithmetic of rv32-fast (fe_mul, fe_sqr and the ladder step's
routines); run from anywhere:

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
  as 19 times themselves into a value below 2^255 + 2^11 < 2^256 - one pass, no second fold;
- the ladder step's routines (glue_rv32.S's ladder loop, ladder_steps32, calls them): fe_prep (the swap on
  load and the top-first additions and subtractions A, B, C, D), fe_sqr2_mul2 (two squarings and two
  products in one program, each part starting in the previous one's reduction tail; its last product
  left unfolded for the next routine's chains), fe_mul_ef_sd (E, F with a24, S, Dd, then x2 = AA BB);
  scheduled with s0..s11 as scratch (ladder_steps32 saves them once per call); and fe_double, the
  doubling alone for the scalar's fixed bits (C calling convention: ladder.c calls it).
  (fe_mul2 and fe_sqr2, two products or squarings in one program, stay as descriptions the tests run.)
Every routine keeps its single-assignment description runnable in Python (gen_sched.interpret), which
tests/test_x25519.py uses to check the arithmetic apart from the scheduler.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import function_lines, write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
MPMUL = HERE.parent.parent / "mpmul" / "rv32"
sys.path.insert(0, str(MPMUL))
from gen_fast import comba, loader  # noqa: E402
import gen_sched  # noqa: E402
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


def reduce(p: Program, t: list[str], out, alu38: tuple[int, ...] = (), top_out=None) -> None:
    """r = t mod p (partially: r < 2^256) for the 16-word t, as described in the module text; each word
    r[j] goes to ``out(j, vreg)`` (store_to: a store).

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
    u7 = shift(p, "slli", u[7], 1, "clear bit 255", hint="s")
    u[7] = shift(p, "srli", u7, 1, "", hint="s")
    if top_out is not None:   # left unfolded: r = u + 19 T', the consumer adds 19 T' in its own chain
        for j in range(8):
            out(j, u[j])
        top_out(top2)
        return
    f = shift(p, "slli", top2, 4, "16 T'", hint="k")
    g = shift(p, "slli", top2, 1, "2 T'", hint="k")
    f = p.alu("add", f, g, "18 T'", hint="k")
    f = p.alu("add", f, top2, "19 T' (2^255 = 19 mod p)", hint="k")
    c = f
    for j in range(8):   # u < 2^255 and 19 T' < 2^11: the sum stays below 2^256
        s = p.alu("add", u[j], c, f"r[{j}] = u[{j}] + carry", hint="s")
        if j < 7:
            c = p.alu("sltu", s, c, "carry", hint="k")
        out(j, s)


def store_to(p: Program, base: str, buf: str, offset: int = 0, name: str = "r"):
    """An ``out`` callback for reduce: word j stored at byte offset + 4 j of ``buf`` (at ``base``)."""
    return lambda j, v: p.sw(v, base, buf, offset + 4 * j, f"{name}[{j}]")


# Which reduction words take 38 t by shifts instead of a mul/mulhu pair, and the scheduler window: the
# lowest predicted count over every prefix/suffix of the words and windows 48, 96, 128 (the multiplier
# is the bound in fe_mul, so one word gains from the shifts; with the squaring's words formed as its
# cross words complete, none does there).
ALU38 = {"fe_mul": (7,), "fe_sqr": ()}
PARAMS = {"window": 128}
# fe_mul_ef_sd, fe_double: operand loads ahead of the serial chains on ties (gen_sched's feed_first), so
# that their products start in the chains' shadow; window: the best predicted of 48..128
ROUTINE_PARAMS = {"fe_mul_ef_sd": {"window": 64, "feed_first": True}, "fe_double": {"window": 64, "feed_first": True}}


def fe_mul(bufs: tuple[str, str, str] = ("m", "m", "m")) -> Program:
    """r = a * b mod p: comba (rv32-fast's 256-bit product scanning) into registers, then reduce.
    ``bufs``: the buffer names of r, a, b (distinct names only for gen_sched.interpret)."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%zero": "zero"})
    t: dict[int, str] = {}
    # a, b and r share the buffer name "m": r may be the same array as a or b, so the scheduler must
    # keep each store after every load of the same word (it orders accesses to one (buffer, offset)).
    comba(p, loader(p, "%a", bufs[1], 8, "a"), loader(p, "%b", bufs[2], 8, "b"), lambda k, v: t.__setitem__(k, v))
    reduce(p, [t[k] for k in range(16)], store_to(p, "%r", bufs[0]), ALU38["fe_mul"])
    return p


def fe_mul2(bufs: tuple[str, ...] = ("m1", "m1", "m1", "m2", "m2", "m2")) -> Program:
    """r1 = a1 b1, r2 = a2 b2 mod p in one routine (a0..a2 = r1, a1, b1; a3..a5 = r2, a2, b2): the
    second product's loads and first products overlap the first one's reduction tail. Either r may
    be its own a or b, but the two triples must not overlap each other."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%arg:r2": "a3", "%arg:a2": "a4", "%arg:b2": "a5",
                 "%sp": "sp", "%zero": "zero"})
    for k, v in enumerate(("%arg:r2", "%arg:a2", "%arg:b2")):   # the second triple waits in the frame
        p.sw(v, "%sp", "frame", 4 * k, "for the second product")
    t: dict[int, str] = {}
    comba(p, loader(p, "%a", bufs[1], 8, "a"), loader(p, "%b", bufs[2], 8, "b"), lambda k, v: t.__setitem__(k, v))
    reduce(p, [t[k] for k in range(16)], store_to(p, "%r", bufs[0]), ALU38["fe_mul"])
    r2, a2, b2 = (p.lw("%sp", "frame", 4 * k, n, hint="p") for k, n in enumerate(("r2", "a2", "b2")))
    t = {}
    comba(p, loader(p, a2, bufs[4], 8, "c"), loader(p, b2, bufs[5], 8, "d"), lambda k, v: t.__setitem__(k, v))
    reduce(p, [t[k] for k in range(16)], store_to(p, r2, bufs[3]), ALU38["fe_mul"])
    return p


def fe_sqr(bufs: tuple[str, str] = ("m", "m")) -> Program:
    """r = a^2 mod p (``bufs``: the buffer names of r and a)."""
    p = Program({"%r": "a0", "%a": "a1", "%zero": "zero"})
    sqr_body(p, loader(p, "%a", bufs[1], 8, "a"), store_to(p, "%r", bufs[0]))
    return p


def fe_sqr2(bufs: tuple[str, str, str, str] = ("m1", "m1", "m2", "m2")) -> Program:
    """r1 = a1^2, r2 = a2^2 mod p in one routine (a0 = r1, a1 = a1, a2 = r2, a3 = a2): the second
    squaring's loads and first products overlap the first one's reduction tail. r1 may be a1 and r2 may
    be a2, but neither pair may overlap the other (the scheduler keeps memory order only within a pair)."""
    # (argument names that no generated value name can take: those are % + hint + number)
    p = Program({"%r": "a0", "%a": "a1", "%arg:r2": "a2", "%arg:a2": "a3", "%sp": "sp", "%zero": "zero"})
    # the second pair's pointers wait in the frame: the first squaring needs every register
    p.sw("%arg:r2", "%sp", "frame", 0, "r2, for later")
    p.sw("%arg:a2", "%sp", "frame", 4, "a2, for later")
    sqr_body(p, loader(p, "%a", bufs[1], 8, "a"), store_to(p, "%r", bufs[0]))
    r2, a2 = p.lw("%sp", "frame", 0, "r2", hint="p"), p.lw("%sp", "frame", 4, "a2", hint="p")
    sqr_body(p, loader(p, a2, bufs[3], 8, "b"), store_to(p, r2, bufs[2]))
    return p


TCB, TZ3 = 48, 49   # t's words holding T' of CB and of z3 (fe_sqr2_mul2's last products, left unfolded)
SQR2_MUL2_ORDER, SQR2_MUL2_ALU38 = "DSEZ", "fe_mul"   # the parts in program order: best predicted


def fe_sqr2_mul2(bufs: tuple[str, ...] = ("q1", "q1", "q2", "q3", "m3", "m3", "m3", "q2", "q2", "m4")) -> Program:
    """r1 = a1^2, r2 = a2^2, r3 = a3 b3, r4 = a4 b4 mod p in one routine (a0..a7 = r1, a1, r2, a2, r3, a3,
    b3, r4; t0 = a4, t1 = b4, t2 = tp), in that order, each part starting in the previous one's reduction
    tail. r4 is left unfolded: its words, below 2^255, plus 19 T' with T' < 83 stored at tp (the fold's
    serial carry chain would run with the multiplier idle at the routine's end; the consumers, fe_mul_ef_sd
    and fe_prep, add 19 T' in the word-0 constant of their own top-first chains instead, for free).
    The ladder calls it twice a step: AA, BB, DA, CB (four independent results) and x3 = S^2,
    z3 = Dd^2, z2 = E F, z3 = z3 x1 (a4 = r4 = r2: the last product reads the second square). So the
    buffers (``bufs``: the names of r1, a1, r2, a2, r3, a3, b3, r4, a4, b4, which order the accesses)
    put r2, a4 and r4 in one: a4's loads wait for r2's stores. r1 may be a1; no other overlap between
    the parts, and no output may overlap a later part's input other than that one."""
    names = ("r2", "a2", "r3", "a3", "b3", "r4", "a4", "b4", "tp")
    p = Program({"%r": "a0", "%a": "a1", "%arg:r2": "a2", "%arg:a2": "a3", "%arg:r3": "a4", "%arg:a3": "a5",
                 "%arg:b3": "a6", "%arg:r4": "a7", "%arg:a4": "t0", "%arg:b4": "t1", "%arg:tp": "t2",
                 "%sp": "sp", "%zero": "zero"})
    for k, n in enumerate(names):   # the later parts' pointers wait in the frame
        p.sw(f"%arg:{n}", "%sp", "frame", 4 * k, f"{n}, for later")

    def ptr(n: str) -> str:
        return p.lw("%sp", "frame", 4 * names.index(n), n, hint="p")
    def sqr(k: int) -> None:
        rp, ap = ("%r", "%a") if k == 0 else (ptr("r2"), ptr("a2"))
        sqr_body(p, loader(p, ap, bufs[1 + 2 * k], 8, "ab"[k]), store_to(p, rp, bufs[2 * k]))

    def mul(k: int) -> None:
        rp, ap, bp = (ptr(n + "34"[k]) for n in "rab")
        t: dict[int, str] = {}
        comba(p, loader(p, ap, bufs[5 + 3 * k], 8, "c"), loader(p, bp, bufs[6 + 3 * k], 8, "d"),
              lambda j, v: t.__setitem__(j, v))
        top = None
        if k == 1:   # the last product unfolded: its tail would run with the multiplier idle
            def top(v: str) -> None:
                p.sw(v, ptr("tp"), "tp", 0, "T' of the last product: r4 = stored words + 19 T'")
        reduce(p, [t[j] for j in range(16)], store_to(p, rp, bufs[4 + 3 * k]), ALU38[SQR2_MUL2_ALU38], top)
    for part in SQR2_MUL2_ORDER:   # the second square before the last product (which may read it)
        {"S": lambda: sqr(0), "D": lambda: sqr(1), "E": lambda: mul(0), "Z": lambda: mul(1)}[part]()
    return p


def sqr_body(p: Program, a: list, out) -> None:
    """r = a^2 mod p: the cross products by product scanning, doubled, plus the squares, reduced.

    Word k of t = 2 cross + sum a_i^2 2^(64 i) is formed as soon as cross word k is final (the doubling
    shift, the square's word and the carry chain), not in a pass after all cross products: the cross
    products keep the multiplier busy with few additions, the doubling and squares need many additions
    and few products, so in program order they interleave within the scheduler's window."""
    acc: dict[int, str] = {}
    cross: dict[int, str] = {}
    t: list[str] = []
    sq: dict[int, str] = {}
    carry: str | None = None

    def word(k: int) -> None:
        nonlocal carry
        if k % 2 == 0:
            ai = a[k // 2]()
            sq[k] = p.mul("mul", ai, ai, f"lo a[{k // 2}]^2", hint="lo")
            sq[k + 1] = p.mul("mulhu", ai, ai, f"hi a[{k // 2}]^2", hint="hi")
        if k == 0:
            t.append(sq[0])                        # cross has no word 0
            return
        w = shift(p, "slli", cross[k], 1, f"2 cross[{k}]", hint="d") if k in cross else None
        if k - 1 in cross:
            top = shift(p, "srli", cross[k - 1], 31, f"bit 31 of cross[{k - 1}]", hint="d")
            w = p.alu("or", w, top, "", hint="d") if w is not None else top
        if k == 15:                                # t < 2^512: no carry out of the top word
            s = p.alu("add", w, sq[k], "t[15] = 2 cross[15] + square word", hint="s")
            t.append(p.alu("add", s, carry, "+ carry", hint="s"))
            return
        s, c = add_with_carry(p, w, sq[k], f"t[{k}] = 2 cross[{k}] + square word")
        if carry is not None:
            s, c2 = add_with_carry(p, s, carry, "+ carry")
            c = p.alu("add", c, c2, "carries", hint="k")
        t.append(s)
        carry = c
    word(0)
    # the cross products: column k sums a_i a_(k-i) for i < k - i (k = 1 .. 13), as comba does
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
        word(k)
    cross[14], cross[15] = acc.pop(14), acc.pop(15)    # the cross sum: words 1 .. 15, below 2^511
    word(14)
    word(15)
    reduce(p, t, out, ALU38["fe_sqr"])


# --- the ladder step's cheap parts (X25519_GLUE_ASM = 5: glue_rv32.S's ladder_steps32 calls the routines
# built on them; every routine here is a leaf, straight-line, list-scheduled like the products) --------

A24 = 121665


def times19(p: Program, t: str, what: str) -> str:
    """19 t by shifts (t small)."""
    f = p.alu("add", shift(p, "slli", t, 4, "", hint="k"), shift(p, "slli", t, 1, "", hint="k"), "", hint="k")
    return p.alu("add", f, t, f"19 {what}", hint="k")


def add_top_first(p: Program, a: list, b: list, name: str, out, extra: str | None = None):
    """r = a + b (mod p) in one carry chain, a generator that yields after each word (so that several
    chains can be interleaved word by word). The multiple of 2^255 is taken from the top words
    first: T = (a7 + b7) >> 31 (0..3), r = a + b - T (2^255 - 19): word 7 keeps (a7 + b7) mod 2^31 plus
    the carry from below (at most 2: 19 T, up to 57, and a word sum can both carry), 19 T enters at
    word 0. r < 2^255 + 2^225 (no fold pass, no second carry). ``a``, ``b``: callables per word; ``out(i, vreg)`` takes word i.
    ``extra``: b's multiple of 2^255 left unfolded (T' < 83, b's true value is its words + 19 T'): word 0
    then takes 19 (T + T') < 2^11, and every later carry is still at most 2."""
    h = p.alu("add", a[7](), b[7](), f"{name}: a7 + b7 first", hint="h")
    c7 = p.alu("sltu", h, b[7](), "its carry", hint="k")
    t = p.alu("add", shift(p, "srli", h, 31, "", hint="k"), shift(p, "slli", c7, 1, "", hint="k"),
              "T = (a7 + b7) >> 31", hint="k")
    if extra is not None:   # b = its words + 19 extra (an unfolded product): 19 (T + extra) at word 0
        t = p.alu("add", t, extra, "T + b's unfolded multiple of 2^255", hint="k")
    c = times19(p, t, "T")
    yield
    for i in range(7):
        x = p.alu("add", a[i](), b[i](), f"{name}[{i}] = a + b", hint="s")
        k = p.alu("sltu", x, b[i](), "carry", hint="k")
        x2 = p.alu("add", x, c, "+ carry (19 T at word 0)", hint="s")
        k2 = p.alu("sltu", x2, c, "carry", hint="k")
        c = p.alu("add", k, k2, "carries (0..2: word 0 adds up to 57)", hint="k")
        out(i, x2)
        yield
    h = shift(p, "srli", shift(p, "slli", h, 1, "", hint="h"), 1, "(a7 + b7) mod 2^31", hint="h")
    out(7, p.alu("add", h, c, f"{name}[7] (below 2^31 + 2)", hint="s"))


def sub_top_first(p: Program, a: list, b: list, name: str, out, bit31: str, extra: str | None = None):
    """r = a - b (mod p) in one borrow chain (a generator, as add_top_first). From the top words: h =
    a7 - b7 mod 2^32 and n = (a7 < b7); a - b + 2^256 has the multiple T = (h >> 31) + 2 (1 - n) of
    2^255, so r = a - b + 2^256 - T 2^255 + 19 T - 38 + p keeps word 7 = (h mod 2^31) + 2^31 minus the
    borrow from below and takes 57 - 19 T = 19 g, g = 1 - (h >> 31) + 2 n, off word 0: r is below
    2^256 and at least 2^255 - 2^224 - 57 (never negative). ``bit31``: a vreg holding 2^31.
    ``extra``: b's unfolded multiple of 2^255 (T' < 83, as in add_top_first): 19 (g + T') off word 0, so
    r >= 2^255 - 2^224 - 1,615 (still never negative: b is always the subtrahend, so this stays a borrow)."""
    h = p.alu("sub", a[7](), b[7](), f"{name}: a7 - b7 first", hint="h")
    n = p.alu("sltu", a[7](), b[7](), "a7 < b7", hint="k")
    g = p.alui("xori", shift(p, "srli", h, 31, "", hint="k"), 1, "", hint="k")
    g = p.alu("add", g, shift(p, "slli", n, 1, "", hint="k"), "g = 1 - bit 31 + 2 (a7 < b7)", hint="k")
    if extra is not None:   # b = its words + 19 extra (an unfolded product): 19 (g + extra) off word 0
        g = p.alu("add", g, extra, "g + b's unfolded multiple of 2^255", hint="k")
    c = times19(p, g, "g")
    yield
    for i in range(7):
        x, y = a[i](), b[i]()
        k = p.alu("sltu", x, y, "borrow", hint="k")
        d = p.alu("sub", x, y, f"{name}[{i}] = a - b", hint="s")
        k2 = p.alu("sltu", d, c, "borrow", hint="k")
        d = p.alu("sub", d, c, "- borrow (19 g at word 0)", hint="s")
        c = p.alu("add", k, k2, "borrows (0..2: word 0 takes up to 57)", hint="k")
        out(i, d)
        yield
    h = p.alu("or", h, bit31, "+ 2^31 (bit 31 of h mod 2^31 is clear)", hint="h")
    out(7, p.alu("sub", h, c, f"{name}[7] (at least 2^31 - 2)", hint="s"))


def together(*chains) -> None:
    """Emit word-by-word generators (add_top_first, sub_top_first) interleaved, round robin."""
    live = list(chains)
    while live:
        for g in list(live):
            try:
                next(g)
            except StopIteration:
                live.remove(g)


def add_a24(p: Program, aa: list, e: list, name: str, out) -> None:
    """r = aa + 121665 e (mod p): a mul/mulhu pair per word by the constant (fixed time), the high
    words (< 2^17) added one word up, then the part at and above 2^255 folded as 19 times itself
    (as reduce): r < 2^255 + 2^24."""
    kk = p.li(A24, "a24 = 121665", hint="m")
    u: list[str] = []
    c = hp = None
    for i in range(8):
        x = e[i]()
        lo = p.mul("mul", x, kk, f"lo a24 E[{i}]", hint="lo")
        hi = p.mul("mulhu", x, kk, f"hi a24 E[{i}] (< 2^17)", hint="hi")
        s, k = add_with_carry(p, aa[i](), lo, f"{name}[{i}] = AA + lo")
        if hp is not None:
            small = p.alu("add", hp, c, "hi(prev) + carries", hint="k")
            s, k2 = add_with_carry(p, s, small, "")
            k = p.alu("add", k, k2, "carries", hint="k")
        u.append(s)
        c, hp = k, hi
    top = p.alu("add", hp, c, "the value above 2^256 (< 2^18)", hint="k")
    t = p.alu("or", shift(p, "slli", top, 1, "", hint="k"), shift(p, "srli", u[7], 31, "", hint="k"),
              "T' = the multiple of 2^255", hint="k")
    f = times19(p, t, "T'")
    u[7] = shift(p, "srli", shift(p, "slli", u[7], 1, "", hint="s"), 1, "clear bit 255", hint="s")
    for j in range(8):
        s = p.alu("add", u[j], f, f"{name}[{j}] += carry", hint="s")
        if j < 7:
            f = p.alu("sltu", s, f, "carry", hint="k")
        out(j, s)



def ef_body(p: Program, aa: list, bb: list, store_e, store_f) -> None:
    """E = AA - BB (top first) and F = AA + a24 E, the doubling's cheap half (fe_mul_ef_sd, fe_double):
    each word of E goes to ``store_e`` and is used from its register for F, which goes to ``store_f``."""
    bit31 = p.li(-0x80000000, "2^31", hint="m")
    e: dict[int, str] = {}

    def out(j: int, v: str) -> None:
        e[j] = v
        store_e(j, v)
    together(sub_top_first(p, aa, bb, "E", out, bit31))
    add_a24(p, aa, [lambda i=i: e[i] for i in range(8)], "F", store_f)


def prep_body(p: Program, st: str, tb: str) -> None:
    """The start of a ladder step: (x2, z2) <-> (x3, z3) when swap = 1 (a mask applied to the words as
    they are loaded from st; the swapped values are not stored back: the step overwrites all four),
    then A = x2 + z2, B = x2 - z2, C = x3 + z3, D = x3 - z3 into t[0..31] (top first, no fold pass).
    z3 is the previous step's last product, unfolded: its words plus 19 T'z3 (t[TZ3]); the swap
    takes T'z3 along (a mask, like the words), and each chain adds its z's share at word 0."""
    p.emit("neg {d0}, {s0}", "alu", ("%mask",), ("%swap",), "the swap mask: 0 or all ones")
    bit31 = p.li(-0x80000000, "2^31", hint="m")
    words: dict[int, dict[str, str]] = {}
    off = {"x2": 32, "z2": 64, "x3": 96, "z3": 128}

    def word(i: int) -> dict[str, str]:
        if i not in words:
            v = {n: p.lw("%st", st, off[n] + 4 * i, f"{n}[{i}]", hint="x") for n in ("x2", "x3", "z2", "z3")}
            for u, w in (("x2", "x3"), ("z2", "z3")):     # the conditional swap: t = (u ^ w) & mask
                t = p.alu("and", p.alu("xor", v[u], v[w], "swap", hint="w"), "%mask", "", hint="w")
                v[u] = p.alu("xor", v[u], t, "", hint="x")
                v[w] = p.alu("xor", v[w], t, "", hint="x")
            words[i] = v
        return words[i]

    def w(n: str) -> list:
        return [lambda i=i: word(i)[n] for i in range(8)]

    def out(name: str, off: int):
        return store_to(p, "%t", tb, off, name)
    # z3 = its words + 19 T'z3 (the previous step's last product, left unfolded; T'z3 at t[49]): the
    # swap takes T'z3 along, to z2's side when swap = 1
    tz = p.lw("%t", tb, 4 * TZ3, "T'z3", hint="k")
    tz2 = p.alu("and", tz, "%mask", "z2's share of T'z3 (after the swap)", hint="k")
    tz3 = p.alu("xor", tz, tz2, "z3's share", hint="k")
    together(add_top_first(p, w("x2"), w("z2"), "A", out("A", 0), tz2),
             sub_top_first(p, w("x2"), w("z2"), "B", out("B", 32), bit31, tz2),
             add_top_first(p, w("x3"), w("z3"), "C", out("C", 64), tz3),
             sub_top_first(p, w("x3"), w("z3"), "D", out("D", 96), bit31, tz3))


def fe_prep(bufs: tuple[str, str] = ("st", "t")) -> Program:
    """prep_body as a routine: a0 = st, a1 = swap, a2 = t."""
    p = Program({"%st": "a0", "%swap": "a1", "%t": "a2", "%zero": "zero"})
    prep_body(p, *bufs)
    return p


def fe_double(bufs: tuple[str, str] = ("x", "z")) -> Program:
    """(x2, z2) = 2 (x, z), the doubling half of a ladder step as one program (the ladder's first bit and
    its last three, which clamping fixes): A, B = x + z, x - z; AA, BB = A^2, B^2; E = AA - BB,
    F = AA + a24 E; x2 = AA BB, z2 = E F. a0 = x2, a1 = z2, a2 = x, a3 = z (x2 may be x, z2 may be z:
    ``bufs`` names the two pairs' buffers). A, B, AA, BB, E, F wait in the frame (t[0..47])."""
    p = Program({"%x2": "a0", "%z2": "a1", "%x": "a2", "%z": "a3", "%sp": "sp", "%zero": "zero"})
    bx, bz = bufs
    for k, v in enumerate(("%x2", "%z2")):   # the outputs' pointers wait in the frame
        p.sw(v, "%sp", "frame", 4 * (48 + k), "for the products")
    x, z = loader(p, "%x", bx, 8, "x"), loader(p, "%z", bz, 8, "z")
    bit31 = p.li(-0x80000000, "2^31", hint="m")
    together(add_top_first(p, x, z, "A", store_to(p, "%sp", "frame", 0, "A")),
             sub_top_first(p, x, z, "B", store_to(p, "%sp", "frame", 32, "B"), bit31))
    sqr_body(p, loader(p, "%sp", "frame", 8, "b", 8), store_to(p, "%sp", "frame", 96, "BB"))
    sqr_body(p, loader(p, "%sp", "frame", 8, "a", 0), store_to(p, "%sp", "frame", 64, "AA"))
    ef_body(p, loader(p, "%sp", "frame", 8, "AA", 16), loader(p, "%sp", "frame", 8, "BB", 24),
            store_to(p, "%sp", "frame", 128, "E"), store_to(p, "%sp", "frame", 160, "F"))
    for k, (a, b, name) in enumerate(((16, 24, "x2"), (32, 40, "z2"))):
        t: dict[int, str] = {}
        comba(p, loader(p, "%sp", "frame", 8, "c", a), loader(p, "%sp", "frame", 8, "d", b),
              lambda j, v: t.__setitem__(j, v))
        r = p.lw("%sp", "frame", 4 * (48 + k), name, hint="p")
        reduce(p, [t[j] for j in range(16)], store_to(p, r, (bx, bz)[k]), ALU38["fe_mul"])
    return p


def fe_mul_ef_sd(bufs: tuple[str, str] = ("st", "t"), order: str = "SEM") -> Program:
    """E, F = AA - BB, AA + a24 E; S, Dd = DA + CB, DA - CB; and x2 = AA BB, in one routine (the parts
    overlap at their boundaries). a0 = st (x2 = DA, z2 = CB on entry; x2 = AA BB on return), a1 = t:
    AA, BB at t[32..47], E, F written to t[16..31], S, Dd to t[0..15]; CB unfolded (its words plus
    19 T'cb, t[TCB]: fe_sqr2_mul2's last product), added in S's and Dd's chains. ``order``: of the parts in the
    program (S, Dd first, then E, F, then the product: the best predicted; the product before either
    of the others runs the scheduler out of registers)."""
    p = Program({"%st": "a0", "%t": "a1", "%zero": "zero"})
    st, tb = bufs

    def ef() -> None:
        ef_body(p, loader(p, "%t", tb, 8, "AA", 32), loader(p, "%t", tb, 8, "BB", 40),
                store_to(p, "%t", tb, 64, "E"), store_to(p, "%t", tb, 96, "F"))

    def sd() -> None:
        da, cb = loader(p, "%st", st, 8, "DA", 8), loader(p, "%st", st, 8, "CB", 16)
        bit31 = p.li(-0x80000000, "2^31", hint="m")
        tcb = p.lw("%t", tb, 4 * TCB, "T'cb: CB = its words + 19 T'cb (left unfolded)", hint="k")
        together(add_top_first(p, da, cb, "S", store_to(p, "%t", tb, 0, "S"), tcb),
                 sub_top_first(p, da, cb, "Dd", store_to(p, "%t", tb, 32, "Dd"), bit31, tcb))

    def mul() -> None:
        t: dict[int, str] = {}
        comba(p, loader(p, "%t", tb, 8, "AA", 32), loader(p, "%t", tb, 8, "BB", 40), lambda k, v: t.__setitem__(k, v))
        reduce(p, [t[k] for k in range(16)], store_to(p, "%st", st, 32, "x2"), ALU38["fe_mul"])
    for part in order:
        {"E": ef, "S": sd, "M": mul}[part]()
    return p


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_fe.py -- edit the generator, not this file
 * (python3 crypto/x25519/rv32/gen_fe.py rewrites it; --check verifies it is up to date).
 *
 *   void mcu_x25519_<impl>_fe_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);   r = a b mod p
 *   void mcu_x25519_<impl>_fe_sqr(uint32_t *r, const uint32_t *a);                      r = a^2 mod p
 * and the ladder step's routines (glue_rv32.S's ladder_steps32 calls them; they clobber every register but
 * sp, s0..s11 included, which ladder_steps32 saves once per call):
 *   void mcu_x25519_<impl>_fe_prep(const uint32_t st[40], uint32_t swap, uint32_t t[50]);
 *       (x2, z2) <-> (x3, z3) of st = x1|x2|z2|x3|z3 if swap (a mask on the loaded words; the swapped
 *       values are not stored), t = A | B | C | D = x2 + z2 | x2 - z2 | x3 + z3 | x3 - z3
 *       (z3 = its words + 19 t[49]: the last product of the previous step, left unfolded)
 *   void mcu_x25519_<impl>_fe_sqr2_mul2(r1, a1, r2, a2, r3, a3, b3, r4 in a0..a7; a4 in t0, b4 in t1,
 *                                       tp in t2);
 *       r1 = a1^2, r2 = a2^2, r3 = a3 b3, r4 = a4 b4 in that order (r1 may be a1; a4 and r4 may be r2:
 *       the last product then reads the second square; no other overlap); r4 unfolded: its words (below
 *       2^255) + 19 *tp (< 83), which its consumer adds in its own chains
 *   void mcu_x25519_<impl>_fe_mul_ef_sd(uint32_t st[40], uint32_t t[50]);
 *       with AA | BB in t[32..47], DA in x2 and CB in z2 (+ 19 t[48], unfolded): t[16..31] = E | F =
 *       AA - BB | AA + 121665 E, t[0..15] = S | Dd = DA + CB | DA - CB, then x2 = AA BB
 * and the ladder's doublings (the clamped scalar's fixed bits; C calling convention, ladder.c calls it):
 *   void mcu_x25519_<impl>_fe_double(uint32_t *x2, uint32_t *z2, const uint32_t *x, const uint32_t *z);
 *       (x2, z2) = 2 (x, z): A, B, AA, BB, E, F, then x2 = AA BB, z2 = E F (x2 may be x, z2 may be z)
 *
 * p = 2^255 - 19; 8 little-endian 32-bit limbs, inputs any value below 2^256, r below 2^256 and
 * congruent mod p; fe_mul's and fe_sqr's r may be the same array as a or b.
 * Additions and subtractions take the multiple of 2^255 from the top words first (a + b - T (2^255 - 19),
 * T = (a7 + b7) >> 31; a - b + 2^256 - 38 + p likewise), so one carry chain and no fold pass; a24 by a
 * mul/mulhu pair per word and the part at and above 2^255 folded as 19 times itself.
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
 * loads and stores in the shadow of the 5-cycle multiplications; its own counts: fe_mul {fe_mul_cycles},
 * fe_sqr {fe_sqr_cycles}, fe_prep {fe_prep_cycles}, fe_sqr2_mul2 {fe_sqr2_mul2_cycles},
 * fe_mul_ef_sd {fe_mul_ef_sd_cycles}, fe_double {fe_double_cycles} cycles.
 * Constant time: straight-line code; no address depends on a secret; mul/mulhu take a fixed 5 cycles.
 * Register map: a0, a1, a2 = the arguments on entry; every other register is allocated by the scheduler and
 * the comment on each line names the value it computes.
 */
#include "mcucrypt/ns.h"
"""

# The routines and whether they follow the C calling convention (fe_mul, fe_sqr: exported, and the
# inversion's, fe_double: ladder.c's) or clobber s0..s11 too (the ladder step's: ladder_steps32 saves those once instead
# of every routine saving and restoring up to 12 of them, about 26 instructions a call).
ROUTINES = (("fe_mul", "fe_mul", False), ("fe_sqr", "fe_sqr", False), ("fe_prep", "fe_prep", True),
            ("fe_sqr2_mul2", "fe_sqr2_mul2", True), ("fe_mul_ef_sd", "fe_mul_ef_sd", True),
            ("fe_double", "fe_double", False))
FRAME = {"fe_sqr2": 8, "fe_mul2": 12, "fe_sqr2_mul2": 36, "fe_double": 200}   # bytes of a routine's own frame (the second pointers wait there)


def scheduled(build, clobber: bool, frame: int = 0):
    """schedule(build(), **PARAMS, or the routine's ROUTINE_PARAMS); with ``clobber``, s0..s11 are
    scratch (only ra is saved, if used)."""
    saved = gen_sched.CALLEE_SAVED
    if clobber:
        gen_sched.CALLEE_SAVED = ("ra",)
    try:
        return schedule(build(), **ROUTINE_PARAMS.get(build.__name__, PARAMS), stack_reserve=frame)
    finally:
        gen_sched.CALLEE_SAVED = saved


def render() -> tuple[str, dict[str, int]]:
    parts, cycles = [], {}
    for name, builder, clobber in ROUTINES:
        sched = scheduled(globals()[builder], clobber, FRAME.get(name, 0))
        cycles[name] = sched.cycles
        parts += function_lines(f"MCU_FN(x25519, {name})", sched.lines)
    text = HEADER.format(**{f"{k}_cycles": v for k, v in cycles.items()}) + "\n".join(parts) + "\n"
    return text, cycles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if fe_rv32.S is out of date")
    args = ap.parse_args()
    text, cycles = render()
    if not args.check:
        print("fe_rv32.S: predicted " + ", ".join(f"{k} {v}" for k, v in cycles.items()) + " cycles")
    return write_or_check({HERE / "fe_rv32.S": text}, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())
