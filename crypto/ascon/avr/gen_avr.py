#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates permutation.S (avr-fast): Ascon-p for the AVR (ATmega128).

Run `python3 crypto/ascon/avr/gen_avr.py > crypto/ascon/avr/permutation.S`; a test checks that the
committed file is this script's output.

The state (40 bytes, lane i at bytes 8i..8i+7, little-endian) stays in SRAM behind Y; each round
makes two passes over it:
- S-box: eight byte columns, each loads the five lanes' bytes j (LDD Y+q), runs the 15-operation OR
  form of the S-box (20 AVR instructions: the AVR has two-operand instructions and no ORN/ANDN) and
  stores the outputs (STD); one MOVW makes two of its three copies;
- linear layer: per lane, load the 8 bytes, make two bit-rotated copies, XOR them in at byte offsets
  (a rotation by 8k bits is only an index change), store. Each rotation is split into k bytes and r
  bits, and r bits go right (10 cycles a bit) or 8 - r left (9 a bit) with one more byte, whichever is
  cheaper; a lane uses x ^ (x >>> a) ^ (x >>> b) or x ^ ((x ^ (x >>> (b - a))) >>> a), whichever
  needs fewer bit shifts.
No branch but the round loop (public), no secret-indexed access: constant time.
"""
from __future__ import annotations

ROT = {0: (19, 28), 1: (61, 39), 2: (1, 6), 3: (10, 17), 4: (7, 41)}
A = [f"r{i}" for i in range(2, 10)]      # the lane
B = [f"r{i}" for i in range(10, 18)]     # a rotated copy
C = [f"r{i}" for i in range(18, 26)]     # the other rotated copy / Y of the two-step form


def rot_plan(n: int) -> tuple[int, str, int, int]:
    """ror by n as (cost, direction, bits, byte offset): result byte i = rotated-copy byte (i + off)."""
    k, r = divmod(n % 64, 8)
    right = (10 * r, "r", r, k)
    left = (9 * (8 - r), "l", 8 - r, (k + 1) % 8) if r else right
    return min(right, left)


def rotate(regs: list[str], direction: str, bits: int) -> list[str]:
    out = []
    for _ in range(bits):
        if direction == "r":
            out += [f"bst     {regs[0]}, 0", f"lsr     {regs[7]}"] + [f"ror     {regs[i]}" for i in range(6, -1, -1)]
            out += [f"bld     {regs[7]}, 7"]
        else:
            out += [f"lsl     {regs[0]}"] + [f"rol     {regs[i]}" for i in range(1, 8)] + [f"adc     {regs[0]}, r1"]
    return out


def copy(dst: list[str], src: list[str]) -> list[str]:
    return [f"movw    {dst[i]}, {src[i]}" for i in range(0, 8, 2)]


def xor_in(dst: list[str], src: list[str], off: int) -> list[str]:
    return [f"eor     {dst[i]}, {src[(i + off) % 8]}" for i in range(8)]


def bit_cost(delta: int) -> int:
    """Cycles to rotate 8 registers by delta bits (right if positive, left if negative)."""
    return 10 * delta if delta >= 0 else 9 * -delta


def shift(regs: list[str], delta: int) -> list[str]:
    return rotate(regs, "r", delta) if delta >= 0 else rotate(regs, "l", -delta)


def incremental_plan(a: int, b: int) -> tuple[int, list[tuple[int, int]]]:
    """One copy B of the lane, bit-rotated to rho1 then on to rho2 (cumulative, right positive), XORed
    in after each step at the byte offset that completes the rotation: (cost, [(rho, n), ...])."""
    best = None
    for n1, n2 in ((a, b), (b, a)):
        for r1 in (n1 % 8, n1 % 8 - 8):
            for r2 in (n2 % 8, n2 % 8 - 8):
                cost = bit_cost(r1) + bit_cost(r2 - r1)
                if best is None or cost < best[0]:
                    best = (cost, [(r1, n1), (r2, n2)])
    return best


def lane_linear(lane: int) -> list[str]:
    a, b = ROT[lane]
    lo, hi = sorted((a, b))
    direct = 8 + rot_plan(a)[0] + rot_plan(b)[0] + 16
    two = 8 + rot_plan(hi - lo)[0] + rot_plan(lo)[0] + 16
    inc_cost, steps = incremental_plan(a, b)
    inc = 4 + inc_cost + 16
    out = [f"; S{lane} ^= (S{lane} >>> {a}) ^ (S{lane} >>> {b})"]
    out += [f"ldd     {A[i]}, Y+{8 * lane + i}" for i in range(8)]
    if inc <= min(direct, two):
        out += [f"; one copy, rotated on: x ^= (x >>> {steps[0][1]}), then x ^= (x >>> {steps[1][1]})"]
        out += copy(B, A)
        rho = 0
        for r, n in steps:
            out += shift(B, r - rho)
            rho = r
            out += xor_in(A, B, ((n - r) // 8) % 8)
    elif direct <= two:
        _, d1, n1, o1 = rot_plan(a)
        _, d2, n2, o2 = rot_plan(b)
        out += [f"; direct: x ^ (x >>> {a}) ^ (x >>> {b})"]
        out += copy(B, A) + rotate(B, d1, n1) + copy(C, A) + rotate(C, d2, n2)
        out += xor_in(A, B, o1) + xor_in(A, C, o2)
    else:
        _, dd, nd, od = rot_plan(hi - lo)
        _, da, na, oa = rot_plan(lo)
        out += [f"; two-step: x ^ ((x ^ (x >>> {hi - lo})) >>> {lo})"]
        out += copy(B, A) + rotate(B, dd, nd) + copy(C, A) + xor_in(C, B, od)
        out += rotate(C, da, na) + xor_in(A, C, oa)
    out += [f"std     Y+{8 * lane + i}, {A[i]}" for i in range(8)]
    return out


def sbox_column(j: int) -> list[str]:
    # t1:t0 = r24:r25 is a register pair, so one MOVW copies x0:x1 (r18:r19) into both.
    x0, x1, x2, x3, x4, t2, t1, t0 = C
    out = [f"; column {j}"] + [f"ldd     {x}, Y+{8 * i + j}" for i, x in enumerate((x0, x1, x2, x3, x4))]
    if j == 0:
        out.append(f"eor     {x2}, r26                 ; round constant into byte 0 of S2")
    out += [
        f"movw    {t1}, {x0}",                                    # t1 = x0, t0 = x1
        f"eor     {t1}, {x4}",                                    # t1 = x0 ^ x4
        f"mov     {t2}, {x3}", f"eor     {t2}, {x4}",             # t2 = x3 ^ x4
        f"eor     {t0}, {x2}",                                    # t0 = x1 ^ x2
        f"com     {x4}", f"or      {x4}, {x3}", f"eor     {x4}, {t0}",   # y2 = (x3 | ~x4) ^ t0
        f"eor     {x3}, {x1}", f"or      {x3}, {t0}", f"eor     {x3}, {t1}",   # y1
        f"eor     {x2}, {t1}", f"or      {x2}, {x1}", f"eor     {x2}, {t2}",   # y0
        f"or      {x0}, {t2}", f"eor     {t0}, {x0}",             # y3 = (x0 | t2) ^ t0
        f"com     {t1}", f"and     {x1}, {t1}", f"eor     {x1}, {t2}",   # y4 = (x1 & ~t1) ^ t2
    ]
    for i, y in enumerate((x2, x3, x4, t0, x1)):
        out.append(f"std     Y+{8 * i + j}, {y}")
    return out


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_avr.py (edit the generator, not this file).
 *
 * Ascon-p on the AVR (avr-fast).
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 *
 * Register map: Y (r28:r29) the state; r26 the round constant (0xf0, 0xe1, ... as in SP 800-232);
 *   S-box: r18-r22 a column's five bytes, r23-r25 temporaries; linear layer: r2-r9 the lane, r10-r17
 *   and r18-r25 its rotated copies; r1 stays zero (ADC of the left rotations).
 * Per round: S-box 8 x 40 cycles (LDD/STD and 20 operations a column), linear layer ~56 cycles a
 * lane plus its bit shifts. Branches only on the round count: constant time. */
#include "mcucrypt/ns.h"
"""


def main() -> None:
    print(HEADER)
    body = []
    for j in range(8):
        body += sbox_column(j)
    for lane in range(5):
        body += lane_linear(lane)
    print("    .section .text.ascon_permute_avr, \"ax\", @progbits")
    print("    .global MCU_FN(ascon, permute)")
    print("    .type MCU_FN(ascon, permute), @function")
    print("MCU_FN(ascon, permute):")
    for r in list(range(2, 18)) + [28, 29]:
        print(f"    push    r{r}")
    print("    movw    r28, r24                    ; Y = state")
    print("    ldi     r26, 0xf0                   ; p12 starts at round constant 0xf0 ...")
    print("    cpi     r22, 8")
    print("    brne    1f")
    print("    ldi     r26, 0xb4                   ; ... p8 at 0xb4")
    print("1:")
    for line in body:
        print("    " + line if not line.startswith(";") else "    " + line)
    print("    subi    r26, 0x0f                   ; next constant; 0x3c after the last round")
    print("    cpi     r26, 0x3c")
    print("    breq    2f")
    print("    rjmp    1b")
    print("2:")
    for r in [29, 28] + list(range(17, 1, -1)):
        print(f"    pop     r{r}")
    print("    ret")
    print("    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)")


if __name__ == "__main__":
    main()
