/* SPDX-License-Identifier: MIT */
/* cm3-mac16: product scanning with the 16x16 MUL-based multiply-accumulate of paper 003, Table 5.
 *
 * void mcu_<id>_cm3_mac16_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 * void mcu_<id>_cm3_mac16_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * The Cortex-M3's MUL (32x32->32) takes 1 cycle whatever the operands, so four of them on 16-bit
 * halves give a fixed-time 32x32->64 product. Table 5 (the paper's proposal) improves on Micro-ECC's
 * Thumb-1 sequence of Table 4 by using Thumb-2: three-register MUL (no MOV copies), LDR from any
 * base register, ADCS with an immediate, and above all additions with a shifted operand
 * (ADDS R3, R3, R6, LSL #16 / ADCS R4, R4, R6, LSR #16) that add the two middle products at
 * weight 2^16 without separate LSL/LSR instructions. Lines 1-19 of Table 5 map one to one onto MAC
 * below (the paper's R1, R2, R6, R7, R0 are r9, r10, r11, r12, lr here; R3, R4, R5 are r6, r7, r8;
 * its fixed offsets from R8, R9 are our walking pointers r4, r5).
 *
 * Built with -DMPMUL_CM3_TABLE4 the file instead uses Table 4's sequence (Micro-ECC, Thumb-1 style:
 * MOV copies, separate shifts, a zero register for the carries): not a catalog implementation, only
 * there so that docs/mpmul-cm3.md can measure Table 4 against Table 5 in the same loop.
 *
 * Constant time: MUL, UXTH, LSR, ADDS/ADCS are all fixed-latency; no UMULL.
 * 19 instructions, 3 (two pipelined LDRs) + 16 = 19 cycles per multiply-accumulate. */
#include "mcucrypt/ns.h"
#include "ps_loop.inc"

#ifndef MPMUL_CM3_TABLE4
.macro MAC
    ldr     r9, [r4], #4                @  1: x = a[i]
    ldr     r10, [r5], #-4              @  2: y = b[j]
    uxth    r11, r9                     @  3: xl
    uxth    r12, r10                    @  4: yl
    lsr     r9, r9, #16                 @  5: xh
    lsr     r10, r10, #16               @  6: yh
    mul     lr, r11, r12                @  7: xl*yl, weight 2^0
    mul     r11, r11, r10               @  8: xl*yh, weight 2^16
    mul     r10, r10, r9                @  9: xh*yh, weight 2^32
    mul     r9, r9, r12                 @ 10: xh*yl, weight 2^16
    adds    r6, r6, lr                  @ 11-13: xl*yl + xh*yh*2^32 as one 64-bit addition
    adcs    r7, r7, r10
    adc     r8, r8, #0
    adds    r6, r6, r11, lsl #16        @ 14-16: xl*yh at weight 2^16, shifted operands
    adcs    r7, r7, r11, lsr #16
    adc     r8, r8, #0
    adds    r6, r6, r9, lsl #16         @ 17-19: xh*yl at weight 2^16
    adcs    r7, r7, r9, lsr #16
    adc     r8, r8, #0
.endm
#else
/* Table 4 (Micro-ECC, Thumb-1): the loads go through copies of the pointers (Thumb-1 LDR cannot
 * use a high base register), MUL is two-operand (Rd = Rd * Rm, so a MOV copy first), shifts are
 * separate instructions, and a zeroed register feeds the carry additions. Table 4 reaches its
 * operands at fixed offsets; the walking pointers here cost two extra instructions (adds/subs),
 * which the table-5 MAC gets for free from post-indexed loads; docs/mpmul-cm3.md accounts for them. */
.macro MAC
    mov     r9, r4                      @  1: MOV R1, R8
    ldr     r9, [r9]                    @  2: LDR R1, [R1, #offset1]
    mov     r10, r5                     @  3: MOV R2, R9
    ldr     r10, [r10]                  @  4: LDR R2, [R2, #offset2]
    adds    r4, r4, #4                  @     (pointer walk, see above)
    subs    r5, r5, #4
    uxth    r11, r9                     @  5: UXTH R6, R1
    uxth    r12, r10                    @  6: UXTH R7, R2
    lsrs    r9, r9, #16                 @  7: LSR R1, R1, #16
    lsrs    r10, r10, #16               @  8: LSR R2, R2, #16
    mov     lr, r11                     @  9: MOV R0, R6
    mul     lr, lr, r12                 @ 10: MUL R0, R0, R7
    mul     r11, r11, r10               @ 11: MUL R6, R6, R2
    mul     r10, r10, r9                @ 12: MUL R2, R2, R1
    mul     r9, r9, r12                 @ 13: MUL R1, R1, R7
    movs    r12, #0                     @ 14: MOV R7, #0
    adds    r6, r6, lr                  @ 15: ADDS R3, R3, R0
    adcs    r7, r7, r10                 @ 16: ADCS R4, R4, R2
    adcs    r8, r8, r12                 @ 17: ADCS R5, R5, R7
    lsls    lr, r11, #16                @ 18: LSL R0, R6, #16
    lsrs    r10, r11, #16               @ 19: LSR R2, R6, #16
    adds    r6, r6, lr                  @ 20: ADDS R3, R3, R0
    adcs    r7, r7, r10                 @ 21: ADCS R4, R4, R2
    adcs    r8, r8, r12                 @ 22: ADCS R5, R5, R7
    lsls    lr, r9, #16                 @ 23: LSL R0, R1, #16
    lsrs    r10, r9, #16                @ 24: LSR R2, R1, #16
    adds    r6, r6, lr                  @ 25: ADDS R3, R3, R0
    adcs    r7, r7, r10                 @ 26: ADCS R4, R4, R2
    adcs    r8, r8, r12                 @ 27: ADCS R5, R5, R7
.endm
#endif

MPMUL_PS_CORE mpmul_cm3_mac16_core

MPMUL_PS_ENTRIES(mpmul256, 8, mpmul_cm3_mac16_core)
MPMUL_PS_ENTRIES(mpmul512, 16, mpmul_cm3_mac16_core)
MPMUL_PS_ENTRIES(mpmul1024, 32, mpmul_cm3_mac16_core)
MPMUL_PS_ENTRIES(mpmul2048, 64, mpmul_cm3_mac16_core)
