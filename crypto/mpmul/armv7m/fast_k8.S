/* SPDX-License-Identifier: MIT */
/* cm3-fast, the 256-bit kernel: 8x8-word product scanning from 16x16-bit MULs, fully unrolled.
 *
 * void mpmul_cm3_fast_k8(uint32_t r[16], const uint32_t a[8], const uint32_t b[8]);
 *   (also exported as mcu_mpmul256_cm3_fast_mul; the Karatsuba levels in fast.c call it)
 *
 * Why MUL: on the Cortex-M3, MUL (32x32->32) is 1 cycle for every operand value while UMULL takes
 * 3..5 depending on the operands (paper 003, Table 2). Four MULs on 16-bit halves cost 4 cycles
 * and are constant time; the price is paid in additions, which is what this kernel economizes.
 *
 * The split. With x = xl + xh*2^16 and y = yl + yh*2^16 (16-bit halves), a word product is
 *     x*y = (xl*yl + xh*yh*2^32)  +  (xl*yh + xh*yl)*2^16,
 * each of the four products below 2^32. Paper 003's Table 5 adds all four into the column
 * accumulator, the two middle ones shifted (3 ADDS/ADCS/ADC each, 9 per word product). Here the
 * products at weight 2^(32k) go into one accumulator, C = (c2:c1:c0) at the column's weight
 * 2^(32w), and those at weight 2^(32k+16) into a second, M = (m2:m1:m0) at weight 2^(32w+16), and
 * every addition chain carries TWO products 2^32 apart, so one ADDS/ADCS/ADC triple adds two
 * products (6 additions per word product instead of 9):
 *     C += xl*yl + xh*yh*2^32                          (a[i], b[j], i + j = w)
 *     M += a_l[i]*b_h[j] + a_h[i]*b_l[j+1]*2^32        (the second term is column w+1's middle
 *                                                       product of the pair (i, j+1))
 * Column w+1's middle products a_h[i]*b_l[w+1-i] are thereby all done in column w, except
 * a_h[w+1]*b_l[0] (no pair (w+1, -1)), which column w adds to m1 on its own (and column 0, with no
 * column before it, adds its own a_h[0]*b_l[0] to m0). At the end of a column
 * M's low word is folded into C (C += m0*2^16: ADDS with LSL #16, ADCS with LSR #16), C's low word
 * is the product word r[w], and both accumulators shift down one word: lazy carries, folded once per
 * column, as in the column-wise method of paper 000.
 *
 * Operands are read as 16-bit halves with LDRH straight from a[] and b[] (4 or 5 per pair, issued
 * back to back so they pipeline: 1 cycle each after the first), so no UXTH/LSR splitting is needed.
 * Per word product: 4 LDRH (5 cycles), 4 MUL, 6 additions = 15 cycles.
 *
 * Register map
 *   r1 pa = a, r2 pb = b (fixed; every offset is an immediate: the code is unrolled)
 *   r3, r4, r5   C = (c0, c1, c2), renamed each column (c0 is stored, the register becomes c2)
 *   r6, r7, r8   M = (m0, m1, m2), renamed each column the same way
 *   r9 XL = a_l[i], r10 XH = a_h[i], r11 YH = b_h[j]
 *   r12, lr      BL = b_l[j] and P = b_l[j+1], alternating: a pair's BL is the next pair's P
 *   r0 T         product temporary, and the result pointer reloaded from [sp] to store r[w]
 *   [sp]         r (pushed with the callee-saved registers)
 * Stack: 40 bytes. Constant time: straight-line code, fixed addresses, MUL/LDRH/ADDS only. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

pa  .req r1
pb  .req r2
T   .req r0
XL  .req r9
XH  .req r10
YH  .req r11

/* The carry word of an accumulator (c2 or m2) at the end of a pair's addition chain. The register
 * still holds the word stored or folded last column, and zeroing it would cost a MOV per column; so
 * the column's first pair sets it to carry - 1 (SBC x, x, x), later pairs add their carry, and the
 * last pair adds carry + 1, which makes it exact again before anything reads it. In between it may
 * wrap below zero; it is only ever added to, so the arithmetic stays exact modulo 2^32. A column
 * with one pair (column 14) zeroes the register instead. */
.macro K8_CARRY x
    .if cnt == 1
    adc     \x, \x, #0
    .elseif t == 0
    sbc     \x, \x, \x                          @ carry - 1
    .elseif t == cnt - 1
    adc     \x, \x, #1                          @ + carry + 1: exact again
    .else
    adc     \x, \x, #0
    .endif
.endm

/* One word product a[i]*b[j] of column w (i, j, t = pair index in the column, cnt = pairs in the
 * column are assembler symbols set by K8_COLUMN). P holds b_l[j+1] (loaded here for the column's
 * first pair), BL receives b_l[j]. */
.macro K8_PAIR w, c0, c1, c2, m0, m1, m2, P, BL
    .set has_p, (j < 7)                         /* b_l[j+1] exists */
    .set extra, 0
    .if (t == cnt - 1) && (\w < 7)
    .set extra, 1                               /* last pair of a lower column: add a_h[w+1]*b_l[0] */
    .endif
    .if t == 0
    ldr     T, [sp]                             @ r, to store the previous column's word below
    .endif
    ldrh    XL, [pa, #(4*i)]                    @ a_l[i]
    ldrh    XH, [pa, #(4*i+2)]                  @ a_h[i]
    ldrh    YH, [pb, #(4*j+2)]                  @ b_h[j]
    ldrh    \BL, [pb, #(4*j)]                   @ b_l[j]
    .if (t == 0) && has_p
    ldrh    \P, [pb, #(4*j+4)]                  @ b_l[j+1]: the previous pair did not load it
    .endif
    .if extra
    ldrh    T, [pa, #(4*\w+6)]                  @ a_h[w+1]
    .endif
    .if t == 0
    str     \c2, [T, #(4*\w-4)]                 @ r[w-1]: the register was c0 last column
    .if cnt == 1
    mov     \c2, #0
    mov     \m2, #0
    .endif
    .endif
    .if extra
    mul     T, T, \BL                           @ a_h[w+1]*b_l[0]: column w+1's last middle product
    adds    \m1, \m1, T
    adc     \m2, \m2, #0
    .endif
    mul     T, XL, YH                           @ a_l[i]*b_h[j]       weight 2^(32w+16)
    .if has_p
    mul     \P, XH, \P                          @ a_h[i]*b_l[j+1]     weight 2^(32w+48)
    adds    \m0, \m0, T
    adcs    \m1, \m1, \P
    .else
    adds    \m0, \m0, T
    adcs    \m1, \m1, #0
    .endif
    K8_CARRY \m2
    mul     XL, XL, \BL                         @ a_l[i]*b_l[j]       weight 2^(32w)
    mul     XH, XH, YH                          @ a_h[i]*b_h[j]       weight 2^(32w+32)
    adds    \c0, \c0, XL
    adcs    \c1, \c1, XH
    K8_CARRY \c2
.endm

/* Column w (1 <= w <= 14): every pair (i, w-i), then fold m0 into C. */
.macro K8_COLUMN w, c0, c1, c2, m0, m1, m2
    .if \w < 8
    .set i, 0
    .set cnt, \w + 1
    .else
    .set i, \w - 7
    .set cnt, 15 - \w
    .endif
    .set t, 0
    .rept cnt
    .set j, \w - i
    .if (t % 2) == 0
    K8_PAIR \w, \c0, \c1, \c2, \m0, \m1, \m2, r12, lr
    .else
    K8_PAIR \w, \c0, \c1, \c2, \m0, \m1, \m2, lr, r12
    .endif
    .set i, i + 1
    .set t, t + 1
    .endr
    adds    \c0, \c0, \m0, lsl #16              @ C += m0*2^16: the middle lane's low word
    adcs    \c1, \c1, \m0, lsr #16
    adc     \c2, \c2, #0                        @ c0 is now r[w]; stored at the next column
.endm

    .section .text.mpmul_cm3_fast_k8, "ax", %progbits
    .align 2
    .global mpmul_cm3_fast_k8
    .global MCU_FN(mpmul256, mul)
    .thumb_func
    .type mpmul_cm3_fast_k8, %function
    .type MCU_FN(mpmul256, mul), %function
mpmul_cm3_fast_k8:
MCU_FN(mpmul256, mul):
    push    {r0, r4-r11, lr}                    @ [sp] = r
    /* Column 0 has the single pair (0, 0) and no column before it to have added its second middle
     * product a_h[0]*b_l[0]: write the products instead of adding them, and add that one here. */
    ldrh    XL, [pa, #0]                        @ a_l[0]
    ldrh    XH, [pa, #2]                        @ a_h[0]
    ldrh    YH, [pb, #2]                        @ b_h[0]
    ldrh    lr, [pb, #0]                        @ b_l[0]
    ldrh    r12, [pb, #4]                       @ b_l[1]
    ldrh    r3, [pa, #6]                        @ a_h[1]
    mov     r8, #0                              @ m2
    mul     r6, XL, YH                          @ m0 = a_l[0]*b_h[0] ...
    mul     T, XH, lr                           @         + a_h[0]*b_l[0]
    mul     r7, XH, r12                         @ m1 = a_h[0]*b_l[1] ...
    mul     r3, r3, lr                          @         + a_h[1]*b_l[0]
    adds    r6, r6, T
    adcs    r7, r7, r3
    adc     r8, r8, #0
    mul     r3, XL, lr                          @ c0 = a_l[0]*b_l[0]
    mul     r4, XH, YH                          @ c1 = a_h[0]*b_h[0]
    mov     r5, #0                              @ c2
    adds    r3, r3, r6, lsl #16
    adcs    r4, r4, r6, lsr #16
    adc     r5, r5, #0
    /* Columns 1..14, the accumulators renamed round-robin (C: r3 r4 r5, M: r6 r7 r8). */
    K8_COLUMN  1, r4, r5, r3, r7, r8, r6
    K8_COLUMN  2, r5, r3, r4, r8, r6, r7
    K8_COLUMN  3, r3, r4, r5, r6, r7, r8
    K8_COLUMN  4, r4, r5, r3, r7, r8, r6
    K8_COLUMN  5, r5, r3, r4, r8, r6, r7
    K8_COLUMN  6, r3, r4, r5, r6, r7, r8
    K8_COLUMN  7, r4, r5, r3, r7, r8, r6
    K8_COLUMN  8, r5, r3, r4, r8, r6, r7
    K8_COLUMN  9, r3, r4, r5, r6, r7, r8
    K8_COLUMN 10, r4, r5, r3, r7, r8, r6
    K8_COLUMN 11, r5, r3, r4, r8, r6, r7
    K8_COLUMN 12, r3, r4, r5, r6, r7, r8
    K8_COLUMN 13, r4, r5, r3, r7, r8, r6
    K8_COLUMN 14, r5, r3, r4, r8, r6, r7
    /* Column 14 used c0 = r5, c1 = r3, m1 = r6: r[14] = r5 and r[15] = c1 + m1*2^16 (all higher
     * words are zero because the product has 16 words). */
    add     r3, r3, r6, lsl #16
    ldr     T, [sp]
    strd    r5, r3, [T, #56]
    pop     {r0, r4-r11, pc}
    .size mpmul_cm3_fast_k8, . - mpmul_cm3_fast_k8
    .size MCU_FN(mpmul256, mul), . - MCU_FN(mpmul256, mul)
