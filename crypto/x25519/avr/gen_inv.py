#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates inv_avr.S, avr-fast's constant-time inversion mod p = 2^255 - 19 (ATmega128); run from anywhere:

    python3 crypto/x25519/avr/gen_inv.py           # rewrites inv_avr.S beside this script
    python3 crypto/x25519/avr/gen_inv.py --check   # exit 1 if inv_avr.S is out of date

The method is Bernstein and Yang's safegcd ("Fast constant-time gcd computation and modular
inversion", ePrint 2019/266) in its half-delta form ("hddivsteps", delta starting at 1/2), written
from the papers; the algorithm, its bound and its cost are in the header the script writes (HEADER
below) and in docs/x25519.md. The only branch is the batch loop's counter (public: 42 batches of
14 divsteps, then one of 2); every data-dependent choice is a mask, every address fixed: constant
time on the AVR, whose MUL, MULS and MULSU take 2 cycles for every operand and whose SRAM has no
cache.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_fe import SPH, SPL, SREG, Asm  # noqa: E402  (the field generator beside it: one cycle table, one emitter)

HERE = Path(__file__).resolve().parent
P = 2**255 - 19
STEPS = 14          # divsteps per batch: the update factors stay within [-2^14, 2^14] (16-bit signed)
BATCHES = 42        # 42 x 14 = 588 steps, then a last batch of TAIL = 2 that updates d only:
TAIL = 2            # 590 hddivsteps, the bound proven (in Coq) for 0 <= g <= f < 2^256, f odd
SCALE = pow(2, -(STEPS * BATCHES + TAIL), P)   # d ends as 2^590 / z: one product by 2^-590 at the end
# d, e start at 0, 1 and grow by at most 14 bits a batch: |d|, |e| <= 2^(14 i) after batch i, so the
# first batches update them on fewer bytes, without a fold: (batches, bytes) while 14 i <= 8 bytes - 2,
# then (batches, None): 32 bytes, each result folded below 2^255
TIERS = ((9, 16), (4, 24), (5, 32), (24, None))
assert sum(t[0] for t in TIERS) == BATCHES

CALL_FE_MUL = 4     # the call of fe_mul is counted; its own cycles (board: about 5,580) are not

# registers of the batch (see the register map in HEADER)
FL = ("r2", "r3", "r4", "r5")            # low bytes of u, v, q, r
FH = ("r16", "r17", "r18", "r19")        # high (signed) bytes of u, v, q, r: MULSU needs r16..r23
SLOT_A = ("r20", "r21")                  # bytes of f (d): column i in SLOT_A[i % 2], i - 1 in the other
SLOT_B = ("r22", "r23")                  # bytes of g (e)
ACC_X = ("r6", "r7", "r8")               # rotating 3-byte column sum of u f + v g (u d + v e)
ACC_Y = ("r9", "r10", "r11")             # ... of q f + r g (q d + r e)
ZERO, SGN, FOUR, PREV_X, PREV_Y = "r12", "r13", "r14", "r15", "r24"


def sext(a: Asm, dst: str, src: str) -> None:
    """dst = 0x00 or 0xff, the sign of src (3 cycles, no branch)."""
    a(f"mov {dst}, {src}")
    a(f"lsl {dst}")
    a(f"sbc {dst}, {dst}")


def divstep(a: Asm, wide_window: bool = True, wide_factors: bool = True) -> None:
    """One hddivstep on the windows f = r6(:r7), g = r8(:r9) with the factors (u, v) = (r2(:r16),
    r3(:r17)) of f and (q, r) = (r4(:r18), r5(:r19)) of g; eta = -2 delta (odd, never 0) in r26:r27.
    With m0 = -(g odd) and m1 = m0 & -(delta > 0), for each pair (x, y) of (f, g), (u, q), (v, r):
    y += ((x ^ m1) - m1) & m0 (g - f, g + f or g), x ^= (x ^ y_old) & m1 (x <- y_old when m1):
    9 cycles a byte pair, no swap and negation in two passes. Narrow (8-bit) windows suffice from
    step 6 on (the windows stay exact mod 2^(16 - j) after j steps and step j needs 14 - j bits), narrow
    (8-bit) factors for steps 0..5 (|u| + |v| <= 2^(j + 1) <= 64)."""
    a("mov r20, r8", "m0 = -(g & 1)")
    a("lsr r20")
    a("sbc r20, r20")
    a("mov r21, r27", "m1 = m0 & -(eta < 0)")
    a("lsl r21")
    a("sbc r21, r21")
    a("and r21, r20")
    pairs = [(("r6", "r7"), ("r8", "r9"), wide_window), (("r2", "r16"), ("r4", "r18"), wide_factors),
             (("r3", "r17"), ("r5", "r19"), wide_factors)]
    for (xl, xh), (yl, yh), wide in pairs:
        a(f"mov r10, {xl}", "t = (x ^ y) & m1")
        a(f"eor r10, {yl}")
        a("and r10, r21")
        if wide:
            a(f"mov r11, {xh}")
            a(f"eor r11, {yh}")
            a("and r11, r21")
        a(f"mov r13, {xl}", "s = ((x ^ m1) - m1) & m0")
        a("eor r13, r21")
        if wide:
            a(f"mov r15, {xh}")
            a("eor r15, r21")
        a("sub r13, r21")
        if wide:
            a("sbc r15, r21")
        a("and r13, r20")
        if wide:
            a("and r15, r20")
        a(f"add {yl}, r13", "y += s")
        if wide:
            a(f"adc {yh}, r15")
        a(f"eor {xl}, r10", "x ^= t")
        if wide:
            a(f"eor {xh}, r11")
    a("eor r26, r21", "eta = (m1 ? -eta : eta) - 2")
    a("eor r27, r21")
    a("sub r26, r21")
    a("sbc r27, r21")
    a("sbiw r26, 2")
    if wide_window:
        a("lsr r9", "g /= 2: (u, v) *= 2 instead")
        a("ror r8")
    else:
        a("lsr r8", "g /= 2: (u, v) *= 2 instead")
    a("lsl r2")
    if wide_factors:
        a("rol r16")
    a("lsl r3")
    if wide_factors:
        a("rol r17")


def batch_steps(a: Asm, steps: int) -> None:
    """The steps of a batch, straight-line: (u, v, q, r) = (1, 0, 0, 1); steps 0..5 with 8-bit factors,
    then their high bytes by sign extension; from step 6 on 8-bit windows."""
    a("clr r2", "(u, v, q, r) = (1, 0, 0, 1), low bytes")
    a("inc r2")
    a("clr r3")
    a("clr r4")
    a("clr r5")
    a("inc r5")
    narrow = min(6, steps)
    for j in range(narrow):
        divstep(a, wide_window=True, wide_factors=False)
    for lo, hi in (("r2", "r16"), ("r3", "r17"), ("r4", "r18"), ("r5", "r19")):
        sext(a, hi, lo)
    for j in range(narrow, steps):
        divstep(a, wide_window=False, wide_factors=True)


def column_pass(a: Asm, base: str, shift: bool, only_x: bool = False) -> None:
    """(x, y) <- (u x + v y, q x + r y) over x at base+0..31, y at base+32..63 (signed, two's complement),
    product scanning over 34 columns (x, y sign-extended by two bytes). shift: the results divided
    by 2^14 (exact), written over x and y as they go (f, g); else the 34-byte results' low 32 bytes
    written as they go and bytes 32, 33 left in r24/r15 and the accumulators (d, e). only_x: x alone."""
    ul, vl, ql, rl = FL
    uh, vh, qh, rh = FH
    accs = (ACC_X,) if only_x else (ACC_X, ACC_Y)
    for acc in accs:
        for r in acc:
            a(f"clr {r}")
    for i in range(34):
        fc, fp = SLOT_A[i % 2], SLOT_A[(i - 1) % 2]
        gc, gp = SLOT_B[i % 2], SLOT_B[(i - 1) % 2]
        if i < 32:
            a(f"ldd {fc}, {base}+{i}")
            a(f"ldd {gc}, {base}+{32 + i}")
        elif i == 32:
            sext(a, fc, fp)
            sext(a, gc, gp)
        else:
            fc, gc = fp, gp       # column 33: both bytes are the sign bytes of column 32
        for acc, (lo_f, lo_g, hi_f, hi_g) in zip(accs, ((ul, vl, uh, vh), (ql, rl, qh, rh))):
            c0, c1, c2 = acc[i % 3], acc[(i + 1) % 3], acc[(i + 2) % 3]
            for lo, hi, cur, prev in ((lo_f, hi_f, fc, fp), (lo_g, hi_g, gc, gp)):
                a(f"mul {lo}, {cur}")
                a(f"add {c0}, r0")
                a(f"adc {c1}, r1")
                a(f"adc {c2}, {ZERO}")
                if i > 0:
                    a(f"mulsu {hi}, {prev}", "signed x unsigned: C = the sign of the product")
                    a(f"sbc {SGN}, {SGN}")
                    a(f"add {c0}, r0")
                    a(f"adc {c1}, r1")
                    a(f"adc {c2}, {SGN}")
        for acc, off, prev in zip(accs, (0, 32), (PREV_X, PREV_Y)):
            c0, c1, c2 = acc[i % 3], acc[(i + 1) % 3], acc[(i + 2) % 3]
            if shift:
                if i >= 1:
                    a(f"mul {c0}, {FOUR}", "out = (byte i << 2) | (byte i-1 >> 6)")
                    if i >= 2:
                        a(f"or r0, {prev}")
                        a(f"std {base}+{off + i - 2}, r0")
                    if i < 33:
                        a(f"mov {prev}, r1")
            elif i < 32:
                a(f"std {base}+{off + i}, {c0}")
            elif i == 32:
                a(f"mov {PREV_Y if off == 0 else PREV_X}, {c0}", "byte 32 kept for the fold")
            if i < 33:
                sext(a, c0, c2)   # the column's low byte is done: its register becomes the new top


def short_pass(a: Asm, n: int) -> None:
    """(d, e) <- (u d + v e, q d + r e) on n bytes (d at Z+0.., e at Z+32..): the results fit n bytes
    (signed), so n columns suffice and nothing is folded."""
    ul, vl, ql, rl = FL
    uh, vh, qh, rh = FH
    for acc in (ACC_X, ACC_Y):
        for r in acc:
            a(f"clr {r}")
    for i in range(n):
        fc, fp = SLOT_A[i % 2], SLOT_A[(i - 1) % 2]
        gc, gp = SLOT_B[i % 2], SLOT_B[(i - 1) % 2]
        a(f"ldd {fc}, Z+{i}")
        a(f"ldd {gc}, Z+{32 + i}")
        for acc, (lo_f, lo_g, hi_f, hi_g) in zip((ACC_X, ACC_Y), ((ul, vl, uh, vh), (ql, rl, qh, rh))):
            c0, c1, c2 = acc[i % 3], acc[(i + 1) % 3], acc[(i + 2) % 3]
            last = i == n - 1          # the last column: its low byte alone
            for lo, hi, cur, prev in ((lo_f, hi_f, fc, fp), (lo_g, hi_g, gc, gp)):
                a(f"mul {lo}, {cur}")
                a(f"add {c0}, r0")
                if not last:
                    a(f"adc {c1}, r1")
                    a(f"adc {c2}, {ZERO}")
                if i > 0:
                    a(f"mulsu {hi}, {prev}")
                    if not last:
                        a(f"sbc {SGN}, {SGN}")
                    a(f"add {c0}, r0")
                    if not last:
                        a(f"adc {c1}, r1")
                        a(f"adc {c2}, {SGN}")
        for acc, off in ((ACC_X, 0), (ACC_Y, 32)):
            c0, c2 = acc[i % 3], acc[(i + 2) % 3]
            a(f"std Z+{off + i}, {c0}")
            if i < n - 1:
                sext(a, c0, c2)


def widen(a: Asm, n: int, m: int) -> None:
    """d and e sign-extended from n to m bytes."""
    for off in (0, 32):
        a(f"ldd r20, Z+{off + n - 1}")
        sext(a, "r20", "r20")
        for i in range(n, m):
            a(f"std Z+{off + i}, r20")


def fold(a: Asm, off: int, b32: str, b33: str) -> None:
    """x = D (34 bytes: low 32 at Z+off, bytes 32, 33 in registers) -> D - p h with h = (D + 2^254) >> 255:
    x = (D mod 2^255, centred on 0) + 19 h, |x| < 2^254 + 2^19, one carry chain."""
    a(f"ldd r16, Z+{off + 31}")
    a(f"mov r17, {b32}")
    a(f"mov r18, {b33}")
    a("subi r16, 0xc0", "+ 2^254 (SUBI/SBCI with inverted carry: + 0x40, + carry)")
    a("sbci r17, 0xff")
    a("sbci r18, 0xff")
    a("lsl r16", "h = r18:r17 (|h| < 2^14)")
    a("rol r17")
    a("rol r18")
    a("mov r19, r17", "r19 = (h & 1) << 7: byte 31 of D - 2^255 h is byte 31 of D ^ r19")
    a("lsr r19")
    a("clr r19")
    a("ror r19")
    a("ldi r20, 19")
    a("mul r17, r20", "T = 19 h in r2, r3, r4 (signed), r5 its sign extension")
    a("movw r2, r0")
    a("muls r18, r20")
    a("add r3, r0")
    a(f"adc r1, {ZERO}")
    a("mov r4, r1")
    sext(a, "r5", "r4")
    for i in range(32):
        a(f"ldd r21, Z+{off + i}")
        if i == 31:
            a("eor r21, r19")
        a(f"{'add' if i == 0 else 'adc'} r21, {('r2', 'r3', 'r4')[i] if i < 3 else 'r5'}")
        a(f"std Z+{off + i}, r21")


def fe_invert() -> tuple[list[str], int, int, int]:
    a = Asm()
    name = "MCU_FN(x25519, fe_invert)"
    a.lines += ["    .section .text.fe_invert, \"ax\", @progbits", f"    .global {name}",
                f"    .type {name}, @function", f"{name}:"]
    for r in ("r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
              "r16", "r17", "r28", "r29", "r24", "r25"):
        a(f"push {r}", "r saved at frame + 128" if r == "r24" else "")
    a.note("frame: f, g at Y+0..63, d, e at Z+0..63 (Z = Y + 64)")
    a(f"in r28, {SPL}")
    a(f"in r29, {SPH}")
    a("subi r28, 128")
    a("sbci r29, 0")
    a(f"in r0, {SREG}")
    a("cli")
    a(f"out {SPH}, r29")
    a(f"out {SREG}, r0")
    a(f"out {SPL}, r28")
    a("adiw r28, 1")
    a("movw r30, r28")
    a("subi r30, 0xc0", "Z = Y + 64")
    a("sbci r31, 0xff")
    a("clr r12")
    a.note("g = z mod p (canonical): t = (z mod 2^255) + 19 (z >> 255) into g, t + 19 into d, then")
    a.note("g = t + 19 - 2^255 where that is >= 0 (t >= p), by mask")
    a("movw r26, r22")
    a("ldi r17, 19")
    a("adiw r26, 31")
    a("ld r16, X")
    a("sbiw r26, 31")
    a("lsl r16")
    a("sbc r16, r16")
    a("and r16, r17", "19 (z >> 255)")
    for i in range(32):
        a("ld r18, X+")
        if i == 31:
            a("andi r18, 0x7f")
        a(f"{'add' if i == 0 else 'adc'} r18, {'r16' if i == 0 else 'r12'}")
        a(f"std Y+{32 + i}, r18")
    for i in range(32):
        a(f"ldd r18, Y+{32 + i}")
        a(f"{'add' if i == 0 else 'adc'} r18, {'r17' if i == 0 else 'r12'}")
        a(f"std Z+{i}, r18")
    a("mov r16, r18", "m = -(bit 255 of t + 19)")
    a("lsl r16")
    a("sbc r16, r16")
    for i in range(32):
        a(f"ldd r18, Y+{32 + i}")
        a(f"ldd r19, Z+{i}")
        if i == 31:
            a("andi r19, 0x7f")
        a("eor r19, r18")
        a("and r19, r16")
        a("eor r18, r19")
        a(f"std Y+{32 + i}, r18")
    a.note("f = p, d = 0, e = 1, eta = -2 delta = -1")
    pb = P.to_bytes(32, "little")
    for i in range(32):
        a(f"ldi r18, 0x{pb[i]:02x}")
        a(f"std Y+{i}, r18")
        a(f"std Z+{i}, r12")
        if i:
            a(f"std Z+{32 + i}, r12")
    a("ldi r18, 1")
    a("std Z+32, r18")
    a("ldi r26, 0xff", "eta = -2 delta = -1")
    a("ldi r27, 0xff")
    a("ldi r18, 4")
    a(f"mov {FOUR}, r18")
    setup = a.cycles
    a("jmp .Linv_tiers")
    a.label(".Linv_core")
    a.note("a batch's steps and its f, g update (called by every batch)")
    c0 = a.cycles
    a("ldd r6, Y+0", "the low 16 bits of f and g")
    a("ldd r7, Y+1")
    a("ldd r8, Y+32")
    a("ldd r9, Y+33")
    c1 = a.cycles
    batch_steps(a, STEPS)
    step = a.cycles - c1
    c2 = a.cycles
    a.note("(f, g) <- ((u f + v g) / 2^14, (q f + r g) / 2^14)")
    column_pass(a, "Y", True)
    fg = a.cycles - c2
    a("ret")
    core = a.cycles - c0 + 4           # with the CALL
    a.label(".Linv_tiers")
    total = setup + 3
    width = 16
    for k, (count, n) in enumerate(TIERS):
        if n is not None and n > width:
            c = a.cycles
            a.note(f"d, e sign-extended from {width} to {n} bytes")
            widen(a, width, n)
            width = n
            total += a.cycles - c
        c = a.cycles
        a(f"ldi r25, {count}", "batch counter, pushed below the frame")
        a("push r25")
        total += a.cycles - c
        a.label(f".Linv_tier{k}")
        c = a.cycles
        a("call .Linv_core")
        c3 = a.cycles
        if n is None:
            a.note("(d, e) <- (u d + v e, q d + r e) mod p, then each folded below 2^255 in magnitude")
            column_pass(a, "Z", False)
            fold(a, 0, PREV_Y, ACC_X[33 % 3])
            fold(a, 32, PREV_X, ACC_Y[33 % 3])
            de = a.cycles - c3
        else:
            a.note(f"(d, e) <- (u d + v e, q d + r e) on {n} bytes (|d|, |e| <= 2^(14 i) after batch i)")
            short_pass(a, n)
        a("pop r25")
        a("dec r25")
        a("push r25")
        a("breq 1f")
        a(f"jmp .Linv_tier{k}")
        body = a.cycles - c - 4 + core   # the CALL counted in core
        a.label("1")
        a("pop r25")
        # the last batch's BREQ is taken (2) and skips the JMP (3); then the POP
        total += count * body - 2 + 2
    c4 = a.cycles
    a.note(f"the last {TAIL} steps: d <- u d + v e only; f = +-1 by then, its sign from bit 1 of its window")
    a("ldd r6, Y+0")
    a("ldd r7, Y+1")
    a("ldd r8, Y+32")
    a("ldd r9, Y+33")
    batch_steps(a, TAIL)
    a("mov r25, r6", "mf = -(f < 0): f = 1 or -1 (or p for z = 0, then d = 0)")
    a("lsr r25")
    a("lsr r25")
    a("sbc r25, r25")
    a("push r25")
    column_pass(a, "Z", False, only_x=True)
    fold(a, 0, PREV_Y, ACC_X[33 % 3])
    a("pop r16")
    a.note("r = sign(f) d mod p, below 2^256: (d ^ mf) + c with c = (mf & 1) - (n & 38), n the sign of")
    a.note("sign(f) d: subtracting 38 from a negative value's two's complement adds 2p - 2^256")
    a("ldd r17, Z+31")
    a("lsl r17")
    a("sbc r17, r17")
    a("eor r17, r16", "n")
    a("mov r18, r16")
    a("andi r18, 1")
    a("mov r19, r17")
    a("andi r19, 38")
    a("sub r18, r19", "c")
    a("movw r26, r28")
    a("subi r26, 0x80", "X = Y + 128: the saved r")
    a("sbci r27, 0xff")
    a("ld r25, X+")
    a("ld r24, X")
    a("movw r26, r24")
    for i in range(32):
        a(f"ldd r20, Z+{i}")
        a("eor r20, r16")
        a(f"{'add' if i == 0 else 'adc'} r20, {'r18' if i == 0 else 'r17'}")
        a("st X+, r20")
    a.note("r = r 2^-590 mod p: fe_mul(r, r, 2^-590), the constant in e's place (the top of the frame),")
    a.note("f, g, d released first (SP = Z + 31): fe_mul's frame goes where they were")
    sb = SCALE.to_bytes(32, "little")
    for i in range(32):
        a(f"ldi r18, 0x{sb[i]:02x}")
        a(f"std Z+{32 + i}, r18")
    a("movw r22, r24")
    a("movw r20, r30")
    a("subi r20, 0xe0", "Z + 32")
    a("sbci r21, 0xff")
    a("adiw r30, 31")
    a(f"in r0, {SREG}")
    a("cli")
    a(f"out {SPH}, r31")
    a(f"out {SREG}, r0")
    a(f"out {SPL}, r30")
    a("call MCU_FN(x25519, fe_mul)", "keeps r2..r17, Y")
    a.note("release the frame and r, restore")
    a("subi r28, 0x7f", "SP = Y + 129")
    a("sbci r29, 0xff")
    a(f"in r0, {SREG}")
    a("cli")
    a(f"out {SPH}, r29")
    a(f"out {SREG}, r0")
    a(f"out {SPL}, r28")
    for r in ("r29", "r28", "r17", "r16", "r15", "r14", "r13", "r12", "r11", "r10", "r9", "r8", "r7", "r6",
              "r5", "r4", "r3", "r2"):
        a(f"pop {r}")
    a("clr r1")
    a("ret")
    a.lines.append(f"    .size {name}, . - {name}")
    # the last batch's BREQ is taken (2) and skips the JMP (3)
    total += a.cycles - c4 - CALL_FE_MUL
    return a.lines, total, step, fg + de


HEADER = """\
// SPDX-License-Identifier: MIT
/* GENERATED by crypto/x25519/avr/gen_inv.py - do not edit (python3 crypto/x25519/avr/gen_inv.py rewrites
 * it; --check verifies it is current). avr-fast's inversion mod p = 2^255 - 19 on the ATmega128
 * (X25519_GLUE_ASM=4: ref/ladder.c calls it instead of its Fermat chain).
 *
 *   void mcu_x25519_<impl>_fe_invert(uint32_t *r, const uint32_t *z);
 *     r = 1/z mod p for any z < 2^256 (0 for z = 0 mod p); r < 2^256, congruent mod p, not necessarily
 *     canonical (as every avr-fast result). r may equal z. {total} cycles by the generator's count,
 *     plus one fe_mul.
 *
 * Method: Bernstein-Yang safegcd (ePrint 2019/266) with half-delta divsteps ("hddivsteps": delta
 * starts at 1/2; kept here as eta = -2 delta, an odd 16-bit integer): with f odd,
 *     delta > 0 and g odd:  (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *     g odd otherwise:      (delta, f, g) <- (1 + delta, f, (g + f) / 2)
 *     g even:               (delta, f, g) <- (1 + delta, f, g / 2).
 * From f = p, g = z mod p, g reaches 0 with f = +-1 within 590 steps: the bound proven (in Coq, in
 * P. Wuille's safegcd-bounds, cited in docs/x25519.md) for f odd, 0 <= g <= f < 2^256 (the hull
 * formula gives 588 for f = p). We run {batches} batches of {steps} and a last one of {tail} for every z.
 * A batch: 14 divsteps on the low 16 bits of f and g (the decisions depend only on them), tracking
 * the update factors (u, v; q, r) with 2^14 (f', g') = (u f + v g, q f + r g) (g halved: u, v doubled
 * instead, so they stay integers, |u| + |v| <= 2^14 and |q| + |r| <= 2^14: 16-bit signed); then the full
 * f, g (signed 256-bit, |f|, |g| <= p) and d, e (signed, |d|, |e| < 2^255, with f = d z 2^-14i and
 * g = e z 2^-14i mod p after batch i) updated by those 2x2 matrices: product scanning over 34 columns
 * of 8x8 MULs (low factor bytes) and MULSUs (high, signed factor bytes, the product's sign from C by
 * SBC into the 3-byte column sum), f' and g' shifted by 14 as they are written (MUL by 4), d' and e'
 * folded to |x| < 2^254 + 2^19 by one pass: x = (D mod 2^255 centred) + 19 h, h = (D + 2^254) >> 255.
 * d, e start at 0, 1 and grow by at most 14 bits a batch, so batches 1..9 update them on 16 bytes,
 * 10..13 on 24 and 14..18 on 32, without a fold (|d|, |e| <= 2^(14 i) < 2^(8 n - 1)); the 24 others
 * on 34 columns with the fold. d ends as +-2^590/z: r = sign(f) d, made non-negative by subtracting
 * 38 from a negative two's complement (mod 2^256: + 2p), then r = fe_mul(r, 2^-590 mod p) (with f, g
 * and d released: the stack peaks at 182 bytes, not 277). The last
 * batch updates d alone and takes the sign of f = +-1 from its 16-bit window.
 * Per batch (generator's count): the 14 divsteps {step} cycles (steps 0..5 with 8-bit factors, at most
 * 64 in magnitude, then sign-extended; steps 6..13 on 8-bit windows: step j needs 14 - j exact bits),
 * the f, g and d, e passes with the folds {passes}.
 *
 * Register map. Divsteps: r6:r7 f, r8:r9 g (16-bit windows), r2:r16 u, r3:r17 v, r4:r18 q, r5:r19 r,
 * r26:r27 eta, r20 m0 = -(g odd), r21 m1 = m0 & -(eta < 0), r10, r11, r13, r15 temporaries (t, s),
 * for each pair (x, y) of f-side and g-side values,
 * y += ((x ^ m1) - m1) & m0 and x ^= (x ^ y_old) & m1.
 * Passes: r2..r5 the factors' low bytes, r16..r19 their high bytes (MULSU takes r16..r23), r20/r21 and
 * r22/r23 the bytes of f (d) and g (e) of the column and of the one before, r6..r8 and r9..r11 the two
 * rotating 3-byte column sums (a finished byte's register becomes the new sign-extended top),
 * r12 zero, r13 a product's sign, r14 the constant 4, r15 and r24 the shifted-out bits of the previous
 * byte (then byte 32 of d', e'), r0:r1 MUL; Y = f | g, Z = d | e (the frame), the batch count pushed
 * below the frame, r (the result pointer) above it.
 * Constant time: the batch loop runs 42 times for every z (the rest is straight-line); every choice
 * is a mask (SBC r, r; AND), no skip, every address fixed; MUL, MULS, MULSU take 2 cycles for every
 * operand.
 */
#include "mcucrypt/ns.h"

"""


def render() -> tuple[str, dict[str, int]]:
    lines, total, step, passes = fe_invert()
    text = HEADER.format(total=f"{total:,}", batches=BATCHES, steps=STEPS, tail=TAIL, step=step,
                         passes=f"{passes:,}")
    return text + "\n".join(lines) + "\n", {"fe_invert": total, "a batch's 14 steps": step, "passes": passes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if inv_avr.S is out of date")
    args = ap.parse_args()
    text, cycles = render()
    if not args.check:
        print("inv_avr.S: predicted cycles (call excluded): "
              + ", ".join(f"{k} {v:,}" for k, v in cycles.items()))
    return write_or_check({HERE / "inv_avr.S": text}, args.check, __file__)


if __name__ == "__main__":
    sys.exit(main())
