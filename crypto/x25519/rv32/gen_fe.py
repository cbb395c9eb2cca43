#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates fe_rv32.S, the X25519 field multiplication and squaring and the whole ladder step of
rv32-fast; run from anywhere:

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
- the ladder step (ladder_step, X25519_GLUE_ASM = 2): one straight-line routine of about 5,400
  instructions, the step's five multiplications and four squarings (the bodies above), the swap
  applied as the words are loaded, a24 by mul/mulhu, and additions and subtractions that take the
  multiple of 2^255 from the top words first (one carry chain, no fold pass: add_top_first,
  sub_top_first), scheduled as a whole so that each part's start overlaps the previous part's tail.
  The C ladder loop calls it once per scalar bit; the inversion calls fe_mul and fe_sqr.
The routines keep the single-assignment description runnable in Python (gen_sched.interpret), which
tests/test_x25519.py uses to check the arithmetic apart from the scheduler.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

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


def reduce(p: Program, t: list[str], out, alu38: tuple[int, ...] = ()) -> None:
    """r = t mod p (partially: r < 2^256) for the 16-word t, as described in the module text; each word
    r[j] goes to ``out(j, vreg)`` (a store, or the next operation's input).

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
        out(j, s)


# Which reduction words take 38 t by shifts instead of a mul/mulhu pair, and the scheduler window: the
# lowest predicted count over every prefix/suffix of the words and windows 48, 96, 128 (the multiplier
# is the bound in fe_mul, the ALU nearly so in fe_sqr, so only one word each gains from the shifts).
ALU38 = {"fe_mul": (7,), "fe_sqr": (0,)}
PARAMS = {"window": 128}


def store_to(p: Program, base: str, buf: str, offset: int = 0, name: str = "r"):
    """An ``out`` callback for reduce: word j stored at byte offset + 4 j of ``buf`` (at ``base``)."""
    return lambda j, v: p.sw(v, base, buf, offset + 4 * j, f"{name}[{j}]")


def mul_body(p: Program, a: list, b: list, out, alu38: tuple[int, ...]) -> None:
    """r = a * b mod p: comba (rv32-fast's 256-bit product scanning) into registers, then reduce. ``a``
    and ``b``: callables giving each word's vreg (gen_fast.loader, or values already in registers)."""
    t: dict[int, str] = {}
    comba(p, a, b, lambda k, v: t.__setitem__(k, v))
    reduce(p, [t[k] for k in range(16)], out, alu38)


def fe_mul(bufs: tuple[str, str, str] = ("m", "m", "m")) -> Program:
    """r = a * b mod p. ``bufs``: the buffer names of r, a, b (distinct names only for
    gen_sched.interpret)."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%zero": "zero"})
    # a, b and r share the buffer name "m": r may be the same array as a or b, so the scheduler must
    # keep each store after every load of the same word (it orders accesses to one (buffer, offset)).
    mul_body(p, loader(p, "%a", bufs[1], 8, "a"), loader(p, "%b", bufs[2], 8, "b"), store_to(p, "%r", bufs[0]),
             ALU38["fe_mul"])
    return p


def fe_sqr(bufs: tuple[str, str] = ("m", "m")) -> Program:
    """r = a^2 mod p (``bufs``: the buffer names of r and a)."""
    p = Program({"%r": "a0", "%a": "a1", "%zero": "zero"})
    sqr_body(p, loader(p, "%a", bufs[1], 8, "a"), store_to(p, "%r", bufs[0]), ALU38["fe_sqr"])
    return p


def sqr_body(p: Program, a: list, out, alu38: tuple[int, ...]) -> None:
    """r = a^2 mod p: the cross products by product scanning, doubled, plus the squares, reduced."""
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
    reduce(p, t, out, alu38)


# --- the whole ladder step (X25519_GLUE_ASM = 2) -----------------------------------------------------

A24 = 121665
STEP_TMP = ("A", "B", "C", "D", "AA", "BB", "DA", "CB")       # the frame: 32 bytes each at sp
# later values reuse the slots of dead ones (the scheduler keeps every access to one slot in program
# order, so a reuse only constrains the order, never the result)
SLOT = {"S": "A", "Dd": "B", "E": "D", "F": "C", "T": "DA"}
ST = {"x1": 0, "x2": 32, "z2": 64, "x3": 96, "z3": 128}                           # byte offsets in st


def times19(p: Program, t: str, what: str) -> str:
    """19 t by shifts (t small)."""
    f = p.alu("add", shift(p, "slli", t, 4, "", hint="k"), shift(p, "slli", t, 1, "", hint="k"), "", hint="k")
    return p.alu("add", f, t, f"19 {what}", hint="k")


def add_top_first(p: Program, a: list, b: list, name: str, out):
    """r = a + b (mod p) in one carry chain, a generator that yields after each word (so that several
    chains can be interleaved word by word). The multiple of 2^255 is taken from the top words
    first: T = (a7 + b7) >> 31 (0..3), r = a + b - T (2^255 - 19): word 7 keeps (a7 + b7) mod 2^31 plus
    the carry from below (at most 2: 19 T, up to 57, and a word sum can both carry), 19 T enters at
    word 0. r < 2^255 + 2^225 (no fold pass, no second carry). ``a``, ``b``: callables per word; ``out(i, vreg)`` takes word i."""
    h = p.alu("add", a[7](), b[7](), f"{name}: a7 + b7 first", hint="h")
    c7 = p.alu("sltu", h, b[7](), "its carry", hint="k")
    t = p.alu("add", shift(p, "srli", h, 31, "", hint="k"), shift(p, "slli", c7, 1, "", hint="k"),
              "T = (a7 + b7) >> 31", hint="k")
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


def sub_top_first(p: Program, a: list, b: list, name: str, out, bit31: str):
    """r = a - b (mod p) in one borrow chain (a generator, as add_top_first). From the top words: h =
    a7 - b7 mod 2^32 and n = (a7 < b7); a - b + 2^256 has the multiple T = (h >> 31) + 2 (1 - n) of
    2^255, so r = a - b + 2^256 - T 2^255 + 19 T - 38 + p keeps word 7 = (h mod 2^31) + 2^31 minus the
    borrow from below and takes 57 - 19 T = 19 g, g = 1 - (h >> 31) + 2 n, off word 0: r is below
    2^256 and at least 2^255 - 2^224 - 57 (never negative). ``bit31``: a vreg holding 2^31."""
    h = p.alu("sub", a[7](), b[7](), f"{name}: a7 - b7 first", hint="h")
    n = p.alu("sltu", a[7](), b[7](), "a7 < b7", hint="k")
    g = p.alui("xori", shift(p, "srli", h, 31, "", hint="k"), 1, "", hint="k")
    g = p.alu("add", g, shift(p, "slli", n, 1, "", hint="k"), "g = 1 - bit 31 + 2 (a7 < b7)", hint="k")
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


# The order of the step's parts (each group's parts merged into one stream in proportion to their
# length: independent parts only), the multiplications' and squarings' ALU38 words and the scheduler
# window: the lowest predicted count we found, 6,199 cycles (squarings and multiplications alternate,
# so that each boundary overlaps issue-bound with multiplier-bound code). Tried and worse: other
# orders; any reduction word by shifts in the step; windows 64 and 96 (160 runs out of registers);
# merged groups such as [DA, E] or [x2, S, Dd], with or without the product's low words spilled to
# memory, which run the scheduler out of registers (a multiplication holds up to 16 operand words).
STEP_PLAN = [["swap, A, B, C, D"], ["AA"], ["DA"], ["BB"], ["CB"], ["E"], ["F"], ["x2"], ["S, Dd"], ["x3"],
             ["z2"], ["T"], ["z3"]]
STEP_ALU38 = {"mul": (), "sqr": ()}
STEP_PARAMS = {"window": 128}


def ladder_step(bufs: tuple[str, str] = ("st", "tmp"), plan=None) -> Program:
    """One step of the Montgomery ladder on st = x1|x2|z2|x3|z3 in place (a0 = st, a1 = swap, 0 or 1): (x2, z2) <-> (x3, z3) selected by the mask as the words are loaded, then
    A = x2 + z2, B = x2 - z2, C = x3 + z3, D = x3 - z3, AA = A^2, BB = B^2, DA = D A, CB = C B,
    E = AA - BB, F = AA + a24 E, x2 = AA BB, z2 = E F, x3 = (DA + CB)^2, z3 = x1 (DA - CB)^2. The
    temporaries live in the frame (STEP_TMP at sp). ``bufs``: the buffer names of st and the frame."""
    p = Program({"%st": "a0", "%swap": "a1", "%sp": "sp", "%zero": "zero"})
    st, tmp = bufs
    off = {n: 32 * i for i, n in enumerate(STEP_TMP)}
    off.update({n: off[slot] for n, slot in SLOT.items()})

    def get(n: str) -> list:
        return loader(p, "%sp", tmp, 8, n, off[n] // 4)

    def put(n: str):
        return store_to(p, "%sp", tmp, off[n], n)
    parts: dict[str, list] = {}

    def part(name: str, build) -> None:
        start = len(p.ops)
        build()
        parts[name] = p.ops[start:]

    def first() -> None:
        p.emit("neg {d0}, {s0}", "alu", ("%mask",), ("%swap",), "the swap mask: 0 or all ones")
        bit31 = p.li(-0x80000000, "2^31", hint="m")
        words: dict[int, dict[str, str]] = {}

        def word(i: int) -> dict[str, str]:
            if i not in words:
                v = {n: p.lw("%st", st, ST[n] + 4 * i, f"{n}[{i}]", hint="x") for n in ("x2", "x3", "z2", "z3")}
                for u, w in (("x2", "x3"), ("z2", "z3")):     # the conditional swap: t = (u ^ w) & mask
                    t = p.alu("and", p.alu("xor", v[u], v[w], "swap", hint="w"), "%mask", "", hint="w")
                    v[u] = p.alu("xor", v[u], t, "", hint="x")
                    v[w] = p.alu("xor", v[w], t, "", hint="x")
                words[i] = v
            return words[i]

        def w(n: str) -> list:
            return [lambda i=i: word(i)[n] for i in range(8)]
        together(add_top_first(p, w("x2"), w("z2"), "A", put("A")),
                 sub_top_first(p, w("x2"), w("z2"), "B", put("B"), bit31),
                 add_top_first(p, w("x3"), w("z3"), "C", put("C")),
                 sub_top_first(p, w("x3"), w("z3"), "D", put("D"), bit31))

    def sums() -> None:
        bit31 = p.li(-0x80000000, "2^31", hint="m")
        da, cb = get("DA"), get("CB")
        together(add_top_first(p, da, cb, "S", put("S")), sub_top_first(p, da, cb, "Dd", put("Dd"), bit31))

    def e() -> None:
        bit31 = p.li(-0x80000000, "2^31", hint="m")
        together(sub_top_first(p, get("AA"), get("BB"), "E", put("E"), bit31))
    m, q = STEP_ALU38["mul"], STEP_ALU38["sqr"]
    part("swap, A, B, C, D", first)
    part("AA", lambda: sqr_body(p, get("A"), put("AA"), q))
    part("BB", lambda: sqr_body(p, get("B"), put("BB"), q))
    part("DA", lambda: mul_body(p, get("D"), get("A"), put("DA"), m))
    part("CB", lambda: mul_body(p, get("C"), get("B"), put("CB"), m))
    part("E", e)
    part("F", lambda: add_a24(p, get("AA"), get("E"), "F", put("F")))
    part("S, Dd", sums)
    part("x2", lambda: mul_body(p, get("AA"), get("BB"), store_to(p, "%st", st, ST["x2"], "x2"), m))
    part("z2", lambda: mul_body(p, get("E"), get("F"), store_to(p, "%st", st, ST["z2"], "z2"), m))
    part("x3", lambda: sqr_body(p, get("S"), store_to(p, "%st", st, ST["x3"], "x3"), q))
    part("T", lambda: sqr_body(p, get("Dd"), put("T"), q))
    part("z3", lambda: mul_body(p, get("T"), loader(p, "%st", st, 8, "x1", ST["x1"] // 4),
                                store_to(p, "%st", st, ST["z3"], "z3"), m))
    order = []
    for group in plan or STEP_PLAN:
        keyed = [((k + 0.5) / len(parts[n]), g, k, op) for g, n in enumerate(group) for k, op in enumerate(parts[n])]
        order += [x[3] for x in sorted(keyed, key=lambda x: x[:3])]
    assert len(order) == len(p.ops) and len(set(map(id, order))) == len(order)
    for i, op in enumerate(order):
        op.index = i
    p.ops[:] = order
    return p


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_fe.py -- edit the generator, not this file
 * (python3 crypto/x25519/rv32/gen_fe.py rewrites it; --check verifies it is up to date).
 *
 *   void mcu_x25519_<impl>_fe_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);   r = a b mod p
 *   void mcu_x25519_<impl>_fe_sqr(uint32_t *r, const uint32_t *a);                      r = a^2 mod p
 *   void mcu_x25519_<impl>_ladder_step(uint32_t st[40], uint32_t swap);   one ladder step in place
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
 * ladder_step: st = x1|x2|z2|x3|z3; (x2, z2) <-> (x3, z3) when swap = 1, as the words are loaded, then
 * RFC 7748's formulas (the parts: gen_fe.ladder_step); additions and subtractions take the multiple of
 * 2^255 from the top words first (one chain, no fold); temporaries in a 256-byte frame at sp.
 * Scheduling: gen_sched.py (crypto/mpmul/rv32) list-schedules each routine for the E31, the additions,
 * loads and stores in the shadow of the 5-cycle multiplications; its own counts: fe_mul {mul_cycles},
 * fe_sqr {sqr_cycles}, ladder_step {step_cycles} cycles.
 * Constant time: straight-line code; no address depends on a secret; mul/mulhu take a fixed 5 cycles.
 * Register map: a0 = r, a1 = a, a2 = b on entry (ladder_step: a0 = st, a1 = swap); every other register
 * is allocated by the scheduler and the comment on each line names the value it computes.
 */
#include "mcucrypt/ns.h"
"""

def render() -> tuple[str, dict[str, int]]:
    parts, cycles = [], {}
    for name, build, params in (("fe_mul", fe_mul, PARAMS), ("fe_sqr", fe_sqr, PARAMS),
                                ("ladder_step", ladder_step, dict(STEP_PARAMS, stack_reserve=32 * len(STEP_TMP)))):
        sched = schedule(build(), **params)
        cycles[name] = sched.cycles
        symbol = f"MCU_FN(x25519, {name})"
        parts += ["", f'    .section .text.{symbol}, "ax", @progbits', f"    .globl {symbol}",
                  f"    .type {symbol}, @function", "    .p2align 2", f"{symbol}:", *sched.lines,
                  f"    .size {symbol}, . - {symbol}"]
    text = HEADER.format(mul_cycles=cycles["fe_mul"], sqr_cycles=cycles["fe_sqr"],
                         step_cycles=cycles["ladder_step"]) + "\n".join(parts) + "\n"
    return text, cycles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if fe_rv32.S is out of date")
    args = ap.parse_args()
    text, cycles = render()
    path = HERE / "fe_rv32.S"
    if args.check:
        if not path.is_file() or path.read_text() != text:
            print("out of date: fe_rv32.S - run python3 crypto/x25519/rv32/gen_fe.py")
            return 1
        return 0
    path.write_text(text)
    print(f"fe_rv32.S: predicted fe_mul {cycles['fe_mul']}, fe_sqr {cycles['fe_sqr']}, "
          f"ladder_step {cycles['ladder_step']} cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
