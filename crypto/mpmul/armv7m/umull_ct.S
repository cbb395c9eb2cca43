/* SPDX-License-Identifier: MIT */
/* cm3-umull-ct: product scanning with UMULL made constant time by operand fixing (paper 003, Table 3).
 *
 * void mcu_<id>_cm3_umull_ct_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 * void mcu_<id>_cm3_umull_ct_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * Table 3's wrapper: when an operand's top byte is clear, set bit 24 (EOREQ R1, R1, #0x01000000) so
 * that UMULL always sees a large operand and runs its full 5 cycles, then subtract the partial
 * product the extra bit added (SUBEQ/SUBEQS/SBC of R0 shifted by 24). Two changes, both forced:
 *
 * 1. Both operands are fixed. Table 3 fixes R1 only, which is enough under BearSSL's description of
 *    the early termination (short only when both operands are below 2^16) but not under Table 2's,
 *    which our armv7m board models: with one operand below 2^16 UMULL takes 4 cycles, with a zero
 *    operand 3. Fixing x and y gives xf*yf with xf, yf >= 2^24: always 5 cycles.
 * 2. The fix is unconditional and the correction multiplied by a 0/1 flag instead of predicated
 *    (Thumb-2 would need IT blocks, and a second fix needs a second set of flags that the first
 *    correction's SUBS destroys). xf = x | 2^24 = x + ex*2^24 where ex = 1 iff bit 24 of x is clear;
 *    likewise yf. Then  xf*yf = x*y + ex*2^24*y + ey*2^24*xf,  both correction terms are exact
 *    32x1-bit MULs (1 cycle, fixed time) and are subtracted from the column accumulator shifted by
 *    24 bits. The accumulator may dip below zero in between; it is exact modulo 2^96 and ends right.
 *
 * MAC register map (the loop's map is in ps_loop.inc): r9 = a[i] -> xf -> product low,
 * r10 = b[j] -> yf -> product high, r11 = ex, ey and the correction terms.
 * 20 instructions, 25 cycles, the same for every operand value. */
#include "mcucrypt/ns.h"
#include "ps_loop.inc"

.macro MAC
    ldr     r9, [r4], #4                @ x = a[i]
    ldr     r10, [r5], #-4              @ y = b[j]
    ubfx    r11, r9, #24, #1
    eor     r11, r11, #1                @ ex: 1 iff bit 24 of x is clear
    orr     r9, r9, #0x01000000         @ xf = x + ex*2^24 >= 2^24
    mul     r11, r11, r10               @ ex*y (exact)
    subs    r6, r6, r11, lsl #24        @ (c2:c1:c0) -= ex*y*2^24
    sbcs    r7, r7, r11, lsr #8
    sbc     r8, r8, #0
    ubfx    r11, r10, #24, #1
    eor     r11, r11, #1                @ ey
    orr     r10, r10, #0x01000000       @ yf = y + ey*2^24 >= 2^24
    mul     r11, r11, r9                @ ey*xf (exact)
    subs    r6, r6, r11, lsl #24        @ (c2:c1:c0) -= ey*xf*2^24
    sbcs    r7, r7, r11, lsr #8
    sbc     r8, r8, #0
    umull   r9, r10, r9, r10            @ xf*yf: both operands >= 2^16, always 5 cycles
    adds    r6, r6, r9
    adcs    r7, r7, r10
    adc     r8, r8, #0
.endm

MPMUL_PS_CORE mpmul_cm3_umull_ct_core

MPMUL_PS_ENTRIES(mpmul256, 8, mpmul_cm3_umull_ct_core)
MPMUL_PS_ENTRIES(mpmul512, 16, mpmul_cm3_umull_ct_core)
MPMUL_PS_ENTRIES(mpmul1024, 32, mpmul_cm3_umull_ct_core)
MPMUL_PS_ENTRIES(mpmul2048, 64, mpmul_cm3_umull_ct_core)
