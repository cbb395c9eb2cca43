# SPDX-License-Identifier: MIT
"""Generate umlal_ct.S: cm3-umlal-ct's 256-bit kernel (constant-time UMLAL, radix 2^29 offset limbs).

    python3 crypto/mpmul/armv7m/gen_umlal_ct.py > crypto/mpmul/armv7m/umlal_ct.S

The technique (docs/mpmul-cm3.md, "cm3-umlal-ct"): UMLAL terminates early when an operand is below
2^16 (paper 003, Table 2), so every multiplier operand is put in [2^29, 2^30): the 256-bit operands are
cut into 9 limbs u_i of 29 bits and each limb is sent as u_i + 2^29 (an ORR, no carry). Every UMLAL then
takes the constant worst case, 6 cycles. With x = 2^29 and R = 1 + x + ... + x^8,
    A*B = (A + xR)(B + xR) - xR * (A + B + xR),
and the correction term is linear: its digit at column k+1 is the window sum W_k of
s_i = u_i + v_i + 2^29 over the pairs (i, j) of column k, i.e. a running sum (add s_k in the first nine
columns, subtract s_(k-9) after). It is folded into the accumulation: the column accumulator starts as
the previous column's carry minus W_k, so the UMLALs of column k+1 land on the corrected value.

A column's 9 products of 30-bit operands stay below 2^63.2 with the corrected value below 2^61.2, so
one 64-bit UMLAL accumulator (RdLo, RdHi) holds a column with no carry handling; the 29-bit digit is
stored, the accumulator shifted right by 29 (three instructions) is the next column's start.
"""
from __future__ import annotations

import sys

X = 29                      # radix bits
N = 9                       # limbs of 256 bits (9 * 29 = 261)
C = 1 << X                  # offset: every multiplier operand is in [2^29, 2^30)

# Frame (sp-relative, after push {r4-r11, lr}).
B_OFF = 0                   # b'_0..b'_8
S_OFF = B_OFF + 4 * N       # s_0..s_8, s_i = u_i + v_i + 2^29
A8_OFF = S_OFF + 4 * N      # a'_8 (not kept in a register)
D_OFF = A8_OFF + 4          # digits 0..17 (raw words: 29-bit digit below junk for k <= 16)
RP_OFF = D_OFF + 4 * 18     # result pointer
FRAME = RP_OFF + 4          # 152

LO, HI, WL, WH = "r8", "r9", "r10", "r11"
TEMPS = ["r12", "lr"]


def limb_code(dst: str, words: list[str], i: int) -> list[str]:
    """dst = bits [29i, 29i + 29) of the 8-word number in `words` (little endian), plus 2^29."""
    p = X * i
    w, s = divmod(p, 32)
    out = []
    if s + X <= 32:
        out.append(f"ubfx {dst}, {words[w]}, #{s}, #{X}")
    else:
        out.append(f"lsr {dst}, {words[w]}, #{s}")
        if w + 1 < 8:
            out.append(f"bfi {dst}, {words[w + 1]}, #{32 - s}, #{s + X - 32}")
    out.append(f"orr {dst}, {dst}, #0x{C:x}")
    return out


def gen() -> str:
    L: list[str] = []
    e = L.append

    # ---- Conversion of b: b'_i to the frame.
    bw = ["r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"]
    e("push {r4-r11, lr}")
    e(f"sub sp, sp, #{FRAME}")
    e(f"str r0, [sp, #{RP_OFF}]")
    e("ldm r2, {r3-r10}")
    for i in range(N):
        t = "r11" if i % 2 == 0 else "r12"
        L.extend(limb_code(t, bw, i))
        e(f"str {t}, [sp, #{B_OFF + 4 * i}]")
    # ---- Conversion of a: a'_0..a'_7 into r0..r7 (in place over the words), a'_8 to the frame;
    # s_i = a'_i + b'_i - 2^29 to the frame.
    aw = ["r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12"]
    e("ldm r1, {r5-r12}")
    for i in range(N):
        dst = f"r{i}" if i < 8 else "lr"
        L.extend(limb_code(dst, aw, i))
    e(f"str lr, [sp, #{A8_OFF}]")
    for i in range(N):
        ai = f"r{i}" if i < 8 else "lr"
        e(f"ldr r12, [sp, #{B_OFF + 4 * i}]")
        e(f"add r12, r12, {ai}")
        e(f"sub r12, r12, #0x{C:x}")
        e(f"str r12, [sp, #{S_OFF + 4 * i}]")

    # ---- Columns.
    for k in range(2 * N - 1):
        pairs = [(i, k - i) for i in range(max(0, k - N + 1), min(N - 1, k) + 1)]
        # Chunks of loads into the two temporaries; a pair with i = 8 needs both (a'_8 and b'_j).
        chunks: list[list[tuple[int, int]]] = []
        cur: list[tuple[int, int]] = []
        used = 0
        for (i, j) in pairs:
            need = 2 if i == N - 1 else 1
            if used + need > 2:
                chunks.append(cur)
                cur, used = [], 0
            cur.append((i, j))
            used += need
        if cur:
            chunks.append(cur)
        first = True
        for ch in chunks:
            regs = list(TEMPS)
            ops = []
            for (i, j) in ch:
                rb = regs.pop(0)
                e(f"ldr {rb}, [sp, #{B_OFF + 4 * j}]")
                if i == N - 1:
                    ra = regs.pop(0)
                    e(f"ldr {ra}, [sp, #{A8_OFF}]")
                else:
                    ra = f"r{i}"
                ops.append((ra, rb))
            for ra, rb in ops:
                if first and k == 0:
                    e(f"umull {LO}, {HI}, {ra}, {rb}")
                else:
                    e(f"umlal {LO}, {HI}, {ra}, {rb}")
                first = False
        # Digit k (raw: bits 29..31 are junk), then carry = acc >> 29, minus W_k.
        e(f"str {LO}, [sp, #{D_OFF + 4 * k}]")
        e(f"lsr {LO}, {LO}, #{X}")
        e(f"orr {LO}, {LO}, {HI}, lsl #{32 - X}")
        e(f"lsr {HI}, {HI}, #{X}")
        if k == 0:
            e(f"ldr {WL}, [sp, #{S_OFF}]")
            e(f"mov {WH}, #0")
        elif k < N:
            e(f"ldr r12, [sp, #{S_OFF + 4 * k}]")
            e(f"adds {WL}, {WL}, r12")
            e(f"adc {WH}, {WH}, #0")
        else:
            e(f"ldr r12, [sp, #{S_OFF + 4 * (k - N)}]")
            e(f"subs {WL}, {WL}, r12")
            e(f"sbc {WH}, {WH}, #0")
        e(f"subs {LO}, {LO}, {WL}")
        e(f"sbc {HI}, {HI}, {WH}")
    e(f"str {LO}, [sp, #{D_OFF + 4 * 17}]")     # digit 17 (below 2^19: the product is < 2^512)

    # ---- Pack digits 0..17 into the 16 result words.
    e(f"ldr r0, [sp, #{RP_OFF}]")
    dregs = {}
    for half, ks in enumerate((range(0, 9), range(9, 18))):
        e(f"add r12, sp, #{D_OFF + 4 * ks[0]}")
        regs = [f"r{n}" for n in range(1, 10)]
        e("ldm r12, {" + ", ".join(regs) + "}")
        for k, r in zip(ks, regs):
            dregs[k] = r
        for k in ks:
            d = dregs[k]
            bit = X * k
            end = min(X * k + X, 512)
            while bit < end:
                w, f = divmod(bit, 32)
                n = min(end - bit, 32 - f)
                off = bit - X * k
                o = "r10" if w % 2 == 0 else "r11"
                if f == 0:
                    e(f"ubfx {o}, {d}, #{off}, #{n}")
                else:
                    e(f"bfi {o}, {d}, #{f}, #{n}")
                if f + n == 32 or bit + n == 512:
                    e(f"str {o}, [r0, #{4 * w}]")
                bit += n
    e(f"add sp, sp, #{FRAME}")
    e("pop {r4-r11, pc}")
    return "\n".join("    " + x for x in L)


HEADER = """/* SPDX-License-Identifier: MIT */
/* GENERATED by gen_umlal_ct.py (python3 crypto/mpmul/armv7m/gen_umlal_ct.py > umlal_ct.S): do not edit.
 *
 * cm3-umlal-ct, the 256-bit kernel: constant-time UMLAL product scanning on offset radix-2^29 limbs.
 *
 * void mpmul_cm3_umlal_k8(uint32_t r[16], const uint32_t a[8], const uint32_t b[8]);
 *   (also exported as mcu_mpmul256_cm3_umlal_ct_mul; fast.c's Karatsuba levels call it)
 *
 * Trick: UMLAL takes 4..6 cycles by operand size (paper 003 Table 2: an operand that is zero or below
 * 2^16 terminates early). Every multiplier operand here is a 29-bit limb plus 2^29, in [2^29, 2^30), so
 * every UMLAL takes the worst case, 6 cycles, whatever the data. The offsets are removed exactly by
 *     A*B = (A + xR)(B + xR) - xR (A + B + xR),  x = 2^29, R = 1 + x + ... + x^8,
 * whose correction at column k+1 is W_k, the sum of s_i = u_i + v_i + 2^29 over column k's pairs,
 * kept as a running 64-bit sum and subtracted from the carry that starts the next column.
 *
 * Phases: (1) b and a cut into 9 limbs (UBFX or LSR+BFI, ORR 2^29); b'_i, s_i and a'_8 to the frame,
 * a'_0..a'_7 stay in r0..r7. (2) 17 columns, fully unrolled: b'_j (and a'_8) loaded in pairs, UMLAL
 * into (r8, r9), the raw digit stored, (r8, r9) >>= 29, minus W_k. (3) digits packed into 32-bit words.
 *
 * Register map (phase 2)
 *   r0-r7    a'_0..a'_7 (fixed)          r8, r9   column accumulator (lo, hi)
 *   r10, r11 W_k (lo, hi)                r12, lr  b'_j / a'_8 / s_k loads
 * Frame: b'[9] at sp+0, s[9] at sp+36, a'_8 at sp+72, digits[18] at sp+76, r at sp+148.
 * Constant time: straight-line code, sp-relative addresses, every UMLAL/UMULL operand in [2^29, 2^30). */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

    .section .text.mpmul_cm3_umlal_k8, "ax", %progbits
    .balign 4
    .global mpmul_cm3_umlal_k8
    .global MCU_FN(mpmul256, mul)
    .thumb_func
    .type mpmul_cm3_umlal_k8, %function
    .type MCU_FN(mpmul256, mul), %function
mpmul_cm3_umlal_k8:
MCU_FN(mpmul256, mul):
"""

FOOTER = """
    .size mpmul_cm3_umlal_k8, . - mpmul_cm3_umlal_k8
    .size MCU_FN(mpmul256, mul), . - MCU_FN(mpmul256, mul)
"""

if __name__ == "__main__":
    sys.stdout.write(HEADER + gen() + FOOTER)
