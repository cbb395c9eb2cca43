#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the straight-line kernels of rv32-fast (fast256.S, fast512.S) and rv32-fast-x (fast256x.S,
fast512x.S, for the xmul64 extension); run from anywhere:

    python3 crypto/mpmul/rv32/gen_fast.py           # rewrites the generated .S files beside this script
    python3 crypto/mpmul/rv32/gen_fast.py --check   # exit 1 if a generated file is out of date
    python3 crypto/mpmul/rv32/gen_fast.py --search  # the best schedule parameters for each kernel

Each kernel is first written here as a sequential single-assignment description (comba, rows_x,
rows_x_memory, kernel512), then list-scheduled for the E31 by gen_sched.py so that each product's
additions, the loads and the stores run in the shadow of the next multiplication (the E31's multiplier
takes 5 cycles and runs one multiplication at a time; ALU work proceeds meanwhile). The descriptions can
be run in Python (gen_sched.interpret), which tests/test_mpmul.py does.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_sched import Program, schedule  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)


def comba(p: Program, a: list, b: list, store, *, after_word=None) -> None:
    """Product scanning of two n-word operands given as lists of callables returning their vregs
    (loading on first use). ``store(k, vreg)`` receives every result word k = 0 .. 2n-1 in order, and
    ``after_word(k)`` (optional) is called after it, to place other work in the program order.

    Column k sums lo(a_i*b_j) into acc[k] and hi(a_i*b_j) into acc[k+1] (i + j = k), carries into
    acc[k+2]. The carry of the low addition is folded into hi before hi is added (hi + 1 cannot
    overflow, as a 32x32 product's high word is at most 2^32 - 2): six ALU operations per product."""
    n = len(a)
    acc: dict[int, str] = {}
    for k in range(2 * n - 1):
        for i in range(max(0, k - n + 1), min(k, n - 1) + 1):
            ai, bj = a[i](), b[k - i]()
            what = f"a[{i}]*b[{k - i}]"
            lo = p.mul("mul", ai, bj, f"lo {what}", hint="lo")
            hi = p.mul("mulhu", ai, bj, f"hi {what}", hint="hi")
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
                if k + 2 == 2 * n:
                    continue           # the product has 2n words: no carry out of the top one
                c = p.alu("sltu", s, hi, "carry", hint="k")
                if k + 2 not in acc:
                    acc[k + 2] = c
                else:
                    acc[k + 2] = p.alu("add", acc[k + 2], c, f"column {k + 2} += carry", hint="c")
        store(k, acc.pop(k))
        if after_word is not None:
            after_word(k)
    store(2 * n - 1, acc.pop(2 * n - 1))


# --- the xmul64 custom instructions (paper 000 section 4.2; docs/board-rv32.md) -----------------------

def maddu(p: Program, a: str, b: str, add: str, acc: str, comment: str) -> tuple[str, str]:
    """{hi, lo} = a * b + add + acc, acc's register becoming lo (acc must die here)."""
    lo, hi = p.new("c"), p.new("hi")
    p.emit(".insn r4 CUSTOM_1, 0, 0, {d0}, {s0}, {s1}, {s2}", "mul", (lo, hi), (a, b, add, acc), "maddu " + comment,
           pair=True, tied=acc,
           interp=lambda x, y, z, w: ((x * y + z + w) & 0xFFFFFFFF, (x * y + z + w) >> 32))
    return lo, hi


def rows_x(p: Program, a: list, b: list, store, *, after_word=None) -> None:
    """Operand scanning with maddu: row i adds a_i * b to the result words r_i .. r_(i+n), one maddu per
    product, {hi, r_(i+j)} = a_i b_j + hi_prev + r_(i+j): the carry of every addition stays in the high
    word, which the next product takes as its addend, so a row is a chain of maddu and nothing else
    (the chain costs nothing: the multiplier runs one pass at a time anyway). The n result words a row
    works on live in even registers (maddu writes a pair); a word is stored as soon as it is final,
    in increasing order like comba's. Row 0 adds into zeroed registers."""
    n = len(a)
    r: dict[int, str] = {}

    def done(k: int) -> None:
        store(k, r.pop(k))
        if after_word is not None:
            after_word(k)
    for i in range(n):
        ai = a[i]()
        carry = "%zero"
        for j in range(n):
            bj = b[j]()
            k = i + j
            if k not in r:
                r[k] = p.li(0, f"r[{k}] starts at zero", hint="c")
                p.ops[-1].even = True
            lo, hi = maddu(p, ai, bj, carry, r[k], f"{{hi, r[{k}]}} += a[{i}]*b[{j}] + carry")
            r[k] = lo
            carry = hi
        done(i)
        top = p.new("c")
        p.emit("mv {d0}, {s0}", "alu", (top,), (carry,), f"r[{i + n}] = the row's carry, in an even register",
               even=True)
        r[i + n] = top
    for k in range(n, 2 * n):
        done(k)


def rows_x_memory(p: Program, n: int) -> None:
    """Operand scanning with maddu through memory, for operands too long for the register file: per
    product load b_j and the partial result r_(i+j), one maddu {hi, r_(i+j)} = a_i b_j + hi_prev +
    r_(i+j), store r_(i+j) - four instructions in the five cycles of the multiplier pass. Row 0 adds
    into zeroed registers; each row's last carry is the word r_(i+n)."""
    for i in range(n):
        ai = p.lw("%a", "a", 4 * i, f"a[{i}]", hint="a")
        carry = "%zero"
        for j in range(n):
            k = i + j
            bj = p.lw("%b", "b", 4 * j, f"b[{j}]", hint="b")
            if i == 0:
                rk = p.li(0, f"r[{k}] starts at zero", hint="c")
            else:
                rk = p.lw("%r", "r", 4 * k, f"r[{k}]", hint="c")
            p.ops[-1].even = True
            lo, hi = maddu(p, ai, bj, carry, rk, f"{{hi, r[{k}]}} += a[{i}]*b[{j}] + carry")
            p.sw(lo, "%r", "r", 4 * k, f"r[{k}]")
            carry = hi
        p.sw(carry, "%r", "r", 4 * (i + n), f"r[{i + n}]")


def loader(p: Program, base: str, buf: str, n: int, name: str, offset: int = 0) -> list:
    """Callables that load word offset + i of ``buf`` (at ``base``) the first time they are called."""
    cache: dict[int, str] = {}

    def get(i: int):
        def f() -> str:
            if i not in cache:
                cache[i] = p.lw(base, buf, 4 * (offset + i), f"{name}[{offset + i}]", hint=name)
            return cache[i]
        return f
    return [get(i) for i in range(n)]


def add_chain(p: Program, terms: list, carry: str | None, comment: str) -> tuple[str, str | None]:
    """sum = terms[0] + terms[1] + ... + carry (32-bit words); returns (sum, carry out) where the carry
    out is the count of wrap-arounds (every addition's carry by sltu, summed)."""
    s = terms[0]
    carries = []
    for t in terms[1:] + ([carry] if carry is not None else []):
        s2 = p.alu("add", s, t, comment, hint="s")
        carries.append(p.alu("sltu", s2, t, "carry", hint="k"))
        s = s2
    c = carries[0] if carries else None
    for k in carries[1:]:
        c = p.alu("add", c, k, "carries", hint="k")
    return s, c


def kernel256(x: bool = False) -> Program:
    """256 bits: comba over registers (RV32IM), or rows_x (xmul64)."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%zero": "zero"})
    product = rows_x if x else comba
    product(p, loader(p, "%a", "a", 8, "a"), loader(p, "%b", "b", 8, "b"),
            lambda k, v: p.sw(v, "%r", "r", 4 * k, f"r[{k}]"))
    return p


def _diffs(p: Program, la: list, lb: list) -> tuple[list, list, str, str]:
    """|a0 - a1| and |b0 - b1| (8 words each, in registers) and the sign handling (1 - s, mask)."""
    diffs = []
    for name, words_of in (("a", la), ("b", lb)):
        borrow = None
        words = []
        for i in range(8):
            x, y = words_of[i](), words_of[8 + i]()
            d = p.alu("sub", x, y, f"{name}0 - {name}1, word {i}", hint="d")
            bo = p.alu("sltu", x, y, "borrow", hint="k")
            if borrow is not None:
                d2 = p.alu("sub", d, borrow, "borrow in", hint="d")
                b2 = p.alu("sltu", d, borrow, "borrow", hint="k")
                bo = p.alu("or", bo, b2, "borrow out (only one can be set)", hint="k")
                d = d2
            borrow = bo
            words.append(d)
        # conditional negation: (d xor m) + (m & 1), m = -borrow
        m = p.neg(borrow, f"mask: {name}0 < {name}1", hint="m")
        c = borrow
        out = []
        for i, d in enumerate(words):
            v = p.alu("xor", d, m, f"|{name}0 - {name}1| word {i}", hint="d")
            s = p.alu("add", v, c, "", hint="d")
            if i < 7:
                c = p.alu("sltu", s, c, "carry", hint="k")
            out.append(s)
        diffs.append((out, borrow))
    (da, sa), (db, sb) = diffs
    sgn = p.alu("xor", sa, sb, "s: 1 when (a0-a1)(b0-b1) < 0", hint="m")
    sgn = p.alui("xori", sgn, 1, "1 when M is subtracted", hint="m")
    mask = p.neg(sgn, "mask: all ones when M is subtracted", hint="m")
    return da, db, sgn, mask


def kernel512x() -> Program:
    """512 bits with xmul64: schoolbook rows through memory (rows_x_memory). At one multiplier pass per
    product, Karatsuba's additions no longer pay for the 64 products it saves at this size."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2", "%zero": "zero"})
    rows_x_memory(p, 16)
    return p


def kernel512(split: int = 11) -> Program:
    """One level of subtractive Karatsuba over 256-bit product scanning (comba), straight-line.

    With X = 2^256, a = a0 + X a1, b = b0 + X b1: L = a0 b0, H = a1 b1, M = |a0 - a1| |b0 - b1| and
    (a0 - a1)(b0 - b1) = (-1)^s M:  a b = L + X (L + H - (-1)^s M) + X^2 H.  Written with T = L1 + H0
    (Bernstein's refinement, one addition saved) and N = -(-1)^s M:
        r = L0 + X (L0 + T + N0) + X^2 (T + H1 + N1) + X^3 H1            (halves of 8 words)
    N is formed without a branch: when M is subtracted (s = 0), -M = (M xor ~0) + 1 - 2^512, so every M
    word is xored with mask = -(1 - s), 1 - s is added at word 8, and mask is added to every word from
    24 up (the -2^512 sign-extended; the carry out of the top word is discarded).

    Order L, H, M: L goes to r; T = L1 + H0 is formed as H's low words appear (T parked in r[16..23],
    H1 in r[24..31]); |a0 - a1| and |b0 - b1| are computed once H's word ``split`` is out (its operands
    then start to retire and free registers); M's words go straight into the final sum from word 8 up."""
    p = Program({"%r": "a0", "%a": "a1", "%b": "a2"})
    product = comba
    r = lambda k, v, c: p.sw(v, "%r", "r", 4 * k, c)   # noqa: E731
    la, lb = loader(p, "%a", "a", 16, "a"), loader(p, "%b", "b", 16, "b")
    # L = a0 b0 into r[0..15] (r[8..15] hold L1 until it is consumed)
    product(p, la[:8], lb[:8], lambda k, v: r(k, v, f"L[{k}]"))
    cT = [None]
    d = {}

    def h_word(k: int, v: str) -> None:
        if k < 8:
            l1 = p.lw("%r", "r", 4 * (8 + k), f"L1[{k}]", hint="x")
            t, cT[0] = add_chain(p, [l1, v], cT[0], f"T[{k}] = L1 + H0")
            r(16 + k, t, f"T[{k}] parked")
        else:
            r(24 + k - 8, v, f"H1[{k - 8}] parked")

    def after(k: int) -> None:
        if k == split:
            d["v"] = _diffs(p, loader(p, "%a", "a", 16, "a"), loader(p, "%b", "b", 16, "b"))
    product(p, la[8:], lb[8:], h_word, after_word=after)
    da, db, sgn, mask = d["v"]
    c = [None]

    def m_word(k: int, v: str) -> None:
        xm = p.alu("xor", v, mask, f"M[{k}] with the sign applied", hint="s")
        if k < 8:
            l0 = p.lw("%r", "r", 4 * k, f"L0[{k}]", hint="x")
            t = p.lw("%r", "r", 4 * (16 + k), f"T[{k}]", hint="x")
            terms = [l0, t, xm] + ([sgn] if k == 0 else [])
            w, c[0] = add_chain(p, terms, c[0], f"r[{8 + k}]")
            r(8 + k, w, f"r[{8 + k}] final")
        else:
            j = k - 8
            t = p.lw("%r", "r", 4 * (16 + j), f"T[{j}]", hint="x")
            h1 = p.lw("%r", "r", 4 * (24 + j), f"H1[{j}]", hint="x")
            terms = [t, h1, xm] + ([cT[0]] if j == 0 else [])
            w, c[0] = add_chain(p, terms, c[0], f"r[{16 + j}]")
            r(16 + j, w, f"r[{16 + j}] final")
    product(p, [lambda v=v: v for v in da], [lambda v=v: v for v in db], m_word)
    # words 24..31: H1 + mask (the sign extension of N) + cT + the carry
    for j in range(8):
        h1 = p.lw("%r", "r", 4 * (24 + j), f"H1[{j}]", hint="x")
        terms = [h1, mask] + ([cT[0]] if j == 0 else [])
        if j == 7:   # the top word: its carry out is the discarded 2^1024
            w = h1
            for t in terms[1:] + [c[0]]:
                w = p.alu("add", w, t, "r[31]", hint="s")
        else:
            w, c[0] = add_chain(p, terms, c[0], f"r[{24 + j}]")
        r(24 + j, w, f"r[{24 + j}] final")
    return p


HEADER = """/* SPDX-License-Identifier: MIT */
/* GENERATED by gen_fast.py -- edit the generator, not this file
 * (python3 crypto/mpmul/rv32/gen_fast.py rewrites it; --check verifies it is up to date).
 *
 *   void {symbol}(uint32_t *r, const uint32_t *a, const uint32_t *b);
 *
{method}
 *
 * Scheduling: the sequential description in gen_fast.py is list-scheduled for the E31 by gen_sched.py
 * (window {window}, reserve {reserve}). The E31's iterative multiplier takes 5 cycles per pass and runs
 * one at a time while independent instructions keep issuing, so the additions, loads and stores issue
 * in the shadow of later multiplications (the "multiplier shadow"). The scheduler's own count, {cycles}
 * cycles, is the E31 model's rules applied to this order.
 * Constant time: straight-line code; no address depends on a secret; the multiplier instructions have a
 * fixed latency on the E31 (and the xmul64 ones on the board's model of them).
 *
 * Register map: a0 = r, a1 = a, a2 = b on entry; every other register is allocated by the scheduler
 * and the comment on each line names the value it computes. Callee-saved registers used (saved in
 * the frame, restored as they retire): {saved}.
 */
"""

METHOD_256 = """ * rv32-fast, 256 bits: product scanning (Comba) fully unrolled, every operand word loaded once into a
 * register. Each 32x32->64 product is a mul/mulhu pair; the column accumulator is three words, and the
 * carry of the low addition is folded into the high word before it is added (hi + 1 cannot overflow):
 * six ALU instructions per product, which fit in the 8 issue slots the two 5-cycle multiplications
 * leave. The multiplier is the bound: about 10 cycles per product."""

METHOD_512 = """ * rv32-fast, 512 bits: one level of subtractive Karatsuba over 256-bit product scanning, straight-line:
 * three 8x8-word products (L = a0 b0, H = a1 b1, M = |a0 - a1| |b0 - b1|: 192 products instead of 256)
 * with the combination r = L0 + X (L0 + T + N0) + X^2 (T + H1 + N1) + X^3 H1, T = L1 + H0 (Bernstein's
 * refinement), N = -(-1)^s M formed with a mask instead of a branch. Order: L (to r), H (T = L1 + H0
 * formed as H's words appear, parked in r[16..23]; H1 parked in r[24..31]); |a0 - a1| and |b0 - b1|
 * computed in H's late columns as its operands retire; M last, each of its words going straight into
 * the final sum. See kernel512 in gen_fast.py for the sign handling."""

METHOD_256X = """ * rv32-fast-x, 256 bits, for an E31 with the xmul64 extension of paper 000 section 4.2 (board extension
 * xmul64, docs/board-rv32.md; hardware assumptions there: a second register-file write port, two more
 * read ports): operand scanning in registers with maddu, {rd+1, rd} = rs1 * rs2 + rs3 + rd. Row i adds
 * a_i * b to r_i .. r_(i+8) as a chain of eight maddu, each taking the previous one's high word (the
 * carry) as its addend: no carry is ever detected by an instruction, so a product costs one
 * instruction and one 5-cycle multiplier pass. The eight result words a row works on stay in even
 * registers (maddu writes the pair rd, rd+1); b stays in registers."""

METHOD_512X = """ * rv32-fast-x, 512 bits, xmul64 (see fast256x.S): schoolbook operand scanning through memory, per
 * product a load of b_j and of r_(i+j), one maddu and a store - four instructions in the five cycles of
 * the multiplier pass, so the multiplier stays the bound (256 passes). Karatsuba would save 64 passes
 * (320 cycles) but its additions and the sign handling cost more than that here."""

# (file, symbol id, builder, schedule parameters, method text). The parameters were chosen with
# --search (the lowest predicted cycle count over windows 16..128, reserves 0..2, and for 512 the
# column of H after which the differences are computed).
OUTPUTS = [
    ("fast256.S", "mpmul256", lambda: kernel256(), {"window": 96, "retire_after": 340}, METHOD_256),
    ("fast512.S", "mpmul512", lambda: kernel512(split=11), {"window": 96}, METHOD_512),
    ("fast256x.S", "mpmul256", lambda: kernel256(x=True), {"window": 8, "prefer_odd": False}, METHOD_256X),
    ("fast512x.S", "mpmul512", kernel512x, {"window": 32, "prefer_odd": False}, METHOD_512X),
]


def render(prim_id: str, prog: Program, method: str, params: dict) -> tuple[str, int]:
    sched = schedule(prog, **params)
    symbol = f"MCU_FN({prim_id}, mul)"
    text = HEADER.format(symbol=f"mcu_{prim_id}_<impl>_mul", method=method,
                         window=params.get("window", 48), reserve=params.get("reserve", 0),
                         cycles=sched.cycles, saved=", ".join(sched.used_callee) or "none")
    body = [text, '#include "mcucrypt/ns.h"', "",
            f'    .section .text.{symbol}, "ax", @progbits',
            f"    .globl {symbol}",
            f"    .type {symbol}, @function",
            "    .p2align 2",
            f"{symbol}:",
            *sched.lines,
            f"    .size {symbol}, . - {symbol}", ""]
    return "\n".join(body), sched.cycles


def search(build) -> None:
    best = None
    for window in (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128):
        for reserve in (0, 1, 2):
            for prefer_odd in (False, True):
                try:
                    s = schedule(build(), window=window, reserve=reserve, prefer_odd=prefer_odd)
                except RuntimeError:
                    continue
                if best is None or s.cycles < best[0]:
                    best = (s.cycles, window, reserve, prefer_odd)
    print("best (cycles, window, reserve, prefer_odd):", best)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated file is out of date")
    ap.add_argument("--search", action="store_true", help="print the best schedule parameters")
    args = ap.parse_args()
    outputs = {}
    for name, prim_id, build, params, method in OUTPUTS:
        if args.search:
            print(name, end=": ")
            search(build)
            continue
        text, cycles = render(prim_id, build(), method, params)
        outputs[HERE / name] = text
        if not args.check:
            print(f"{name}: {cycles} cycles predicted")
    return write_or_check(outputs, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())
