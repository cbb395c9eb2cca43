// SPDX-License-Identifier: MIT
/* X25519 on the Cortex-M3 (cm3-fast): the ladder step in assembly (ref/ladder.c calls it when
 * X25519_GLUE_ASM = 3) with the additions, subtractions and conditional swap inline, and the swap
 * the C ladder applies after its last step. GCC's code for the C additions spends an ADC per word to
 * move the carry between 64-bit halves; here each is one ADDS/ADCS (or SUBS/SBCS) chain over the
 * eight words held in registers, with LDM/STM (1 + N cycles).
 *
 *   FE_ADD_BODY (r0 = r, r1 = a, r2 = b): r = a + b mod p (< 2^256): the carry out of the top word
 *       is 2^256 = 38 (mod p), added back; a second carry is only possible when the sum wrapped below
 *       38, so 38 more into r[0] is final
 *   FE_SUB_BODY (the same registers): r = a - b mod p: a borrow means 2^256 = 38 too much, taken off,
 *       twice at most (as ref/ladder.c)
 *   void mcu_x25519_<impl>_fe_cswap2(uint32_t x[16], uint32_t y[16], uint32_t swap);
 *       swap the 16 words of x and y (two field elements each: the ladder's (x2, z2) and (x3, z3))
 *       when swap = 1 (mask = -swap; t = (x ^ y) & mask; x ^= t; y ^= t)
 *   void mcu_x25519_<impl>_ladder_step(uint32_t st[40], uint32_t swap);   see below
 * Register map of the bodies: r0 = r (or x), r1 = a (or y), r2 = b (or swap); r3..r10 the eight
 * words of a (or x); r1, r11, r12, lr four words of b at a time (or of y); r12 also the 38 * carry.
 * Constant time: straight-line, fixed addresses; the carries become values through ADC/SBC and MUL
 * (1 cycle on the M3 for every operand), never branches. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

/* The bodies, as macros: fe_cswap2 wraps its body in a push/pop, the ladder step below uses them
 * inline. In: r0 = r (or x), r1 = a (or y), r2 = b (or swap); clobber r0-r12 and lr
 * (cswap advances r0 and r1 by 64). */
.macro FE_ADD_BODY
    ldm     r1, {r3-r10}                @ a
    ldm     r2!, {r1, r11, r12, lr}     @ b[0..3] (LDM leaves the flags alone)
    adds    r3, r3, r1
    adcs    r4, r4, r11
    adcs    r5, r5, r12
    adcs    r6, r6, lr
    ldm     r2, {r1, r11, r12, lr}      @ b[4..7]
    adcs    r7, r7, r1
    adcs    r8, r8, r11
    adcs    r9, r9, r12
    adcs    r10, r10, lr
    mov     r11, #38
    mov     r12, #0
    adc     r12, r12, #0                @ the carry out of 2^256 ...
    mul     r12, r12, r11               @ ... is worth 38
    adds    r3, r3, r12
    adcs    r4, r4, #0
    adcs    r5, r5, #0
    adcs    r6, r6, #0
    adcs    r7, r7, #0
    adcs    r8, r8, #0
    adcs    r9, r9, #0
    adcs    r10, r10, #0
    mov     r12, #0
    adc     r12, r12, #0                @ only when the sum wrapped below 38
    mul     r12, r12, r11
    add     r3, r3, r12                 @ r[0] < 38 + 38 here: no further carry
    stm     r0, {r3-r10}
.endm

.macro FE_SUB_BODY
    ldm     r1, {r3-r10}                @ a
    ldm     r2!, {r1, r11, r12, lr}     @ b[0..3]
    subs    r3, r3, r1
    sbcs    r4, r4, r11
    sbcs    r5, r5, r12
    sbcs    r6, r6, lr
    ldm     r2, {r1, r11, r12, lr}      @ b[4..7]
    sbcs    r7, r7, r1
    sbcs    r8, r8, r11
    sbcs    r9, r9, r12
    sbcs    r10, r10, lr
    sbc     r12, r12, r12               @ -borrow: 0 or all ones (C clear = borrow)
    and     r12, r12, #38               @ 38 * borrow
    subs    r3, r3, r12
    sbcs    r4, r4, #0
    sbcs    r5, r5, #0
    sbcs    r6, r6, #0
    sbcs    r7, r7, #0
    sbcs    r8, r8, #0
    sbcs    r9, r9, #0
    sbcs    r10, r10, #0
    sbc     r12, r12, r12               @ a second borrow: r >= 2^256 - 38 now, so r[0] cannot borrow again
    and     r12, r12, #38
    sub     r3, r3, r12
    stm     r0, {r3-r10}
.endm

.macro FE_CSWAP2_BODY
    rsb     r2, r2, #0                  @ mask = -swap
    .irp quarter, 0, 1, 2, 3
    ldm     r0, {r3-r6}                 @ x[4q .. 4q+3]
    ldm     r1, {r7-r10}                @ y[4q .. 4q+3]
    eor     r11, r3, r7
    and     r11, r11, r2
    eor     r3, r3, r11
    eor     r7, r7, r11
    eor     r11, r4, r8
    and     r11, r11, r2
    eor     r4, r4, r11
    eor     r8, r8, r11
    eor     r11, r5, r9
    and     r11, r11, r2
    eor     r5, r5, r11
    eor     r9, r9, r11
    eor     r11, r6, r10
    and     r11, r11, r2
    eor     r6, r6, r11
    eor     r10, r10, r11
    stm     r0!, {r3-r6}
    stm     r1!, {r7-r10}
    .endr
.endm

    .section .text.MCU_FN(x25519, fe_cswap2), "ax", %progbits
    .align 2
    .global MCU_FN(x25519, fe_cswap2)
    .thumb_func
    .type MCU_FN(x25519, fe_cswap2), %function
MCU_FN(x25519, fe_cswap2):
    push    {r4-r11, lr}
    FE_CSWAP2_BODY
    pop     {r4-r11, pc}
    .size MCU_FN(x25519, fe_cswap2), . - MCU_FN(x25519, fe_cswap2)

/* void mcu_x25519_<impl>_ladder_step(uint32_t st[40], uint32_t swap);
 *   One step of the Montgomery ladder of ref/ladder.c (X25519_GLUE_ASM = 3), st = x1|x2|z2|x3|z3:
 *   (x2, z2) <-> (x3, z3) when swap = 1, then the RFC 7748 formulas, results in place. The point of
 *   doing it here: the registers are saved once per step instead of once per field operation (nine
 *   products through the _core entries of fe_cm3.S, the additions and subtractions inline).
 * Frame: tA, tB, tC, tD, tAA, tBB (32 bytes each) at sp + 0 .. 191, st at sp + 192.
 * Every field operation takes r0 = r, r1 = a, r2 = b and clobbers r0-r12 (and lr: the bodies use it). */
    .section .text.MCU_FN(x25519, ladder_step), "ax", %progbits
    .align 2
    .global MCU_FN(x25519, ladder_step)
    .thumb_func
    .type MCU_FN(x25519, ladder_step), %function
MCU_FN(x25519, ladder_step):
    push    {r4-r11, lr}
    sub     sp, sp, #196
    str     r0, [sp, #192]
    mov     r2, r1                      @ swap
    add     r1, r0, #96                 @ (x3, z3)
    add     r0, r0, #32                 @ (x2, z2)
    FE_CSWAP2_BODY
    /* A = x2 + z2, B = x2 - z2, C = x3 + z3, D = x3 - z3 */
    ldr     r3, [sp, #192]
    mov     r0, sp
    add     r1, r3, #32
    add     r2, r3, #64
    FE_ADD_BODY                         @ tA
    ldr     r3, [sp, #192]
    add     r0, sp, #32
    add     r1, r3, #32
    add     r2, r3, #64
    FE_SUB_BODY                         @ tB
    ldr     r3, [sp, #192]
    add     r0, sp, #64
    add     r1, r3, #96
    add     r2, r3, #128
    FE_ADD_BODY                         @ tC
    ldr     r3, [sp, #192]
    add     r0, sp, #96
    add     r1, r3, #96
    add     r2, r3, #128
    FE_SUB_BODY                         @ tD
    /* AA = A^2, BB = B^2, DA = D A, CB = C B */
    add     r0, sp, #128
    mov     r1, sp
    bl      MCU_FN(x25519, fe_sqr_core) @ tAA
    add     r0, sp, #160
    add     r1, sp, #32
    bl      MCU_FN(x25519, fe_sqr_core) @ tBB
    add     r0, sp, #96
    add     r1, sp, #96
    mov     r2, sp
    bl      MCU_FN(x25519, fe_mul_core) @ tD = DA
    add     r0, sp, #64
    add     r1, sp, #64
    add     r2, sp, #32
    bl      MCU_FN(x25519, fe_mul_core) @ tC = CB
    /* x3 = (DA + CB)^2, z3 = x1 (DA - CB)^2 */
    ldr     r3, [sp, #192]
    add     r0, r3, #96
    add     r1, sp, #96
    add     r2, sp, #64
    FE_ADD_BODY                         @ x3 = DA + CB
    ldr     r3, [sp, #192]
    add     r0, r3, #128
    add     r1, sp, #96
    add     r2, sp, #64
    FE_SUB_BODY                         @ z3 = DA - CB
    ldr     r3, [sp, #192]
    add     r0, r3, #96
    mov     r1, r0
    bl      MCU_FN(x25519, fe_sqr_core)
    ldr     r3, [sp, #192]
    add     r0, r3, #128
    mov     r1, r0
    bl      MCU_FN(x25519, fe_sqr_core)
    ldr     r2, [sp, #192]              @ x1
    add     r0, r2, #128
    mov     r1, r0
    bl      MCU_FN(x25519, fe_mul_core)
    /* x2 = AA BB, E = AA - BB, z2 = E (AA + a24 E) */
    ldr     r3, [sp, #192]
    add     r0, r3, #32
    add     r1, sp, #128
    add     r2, sp, #160
    bl      MCU_FN(x25519, fe_mul_core) @ x2
    add     r0, sp, #160
    add     r1, sp, #128
    add     r2, sp, #160
    FE_SUB_BODY                         @ tBB = E
    add     r0, sp, #128
    add     r1, sp, #128
    add     r2, sp, #160
    bl      MCU_FN(x25519, fe_add_a24)  @ tAA = AA + a24 E (C, ref/ladder.c)
    ldr     r3, [sp, #192]
    add     r0, r3, #64
    add     r1, sp, #160
    add     r2, sp, #128
    bl      MCU_FN(x25519, fe_mul_core) @ z2
    add     sp, sp, #196
    pop     {r4-r11, pc}
    .size MCU_FN(x25519, ladder_step), . - MCU_FN(x25519, ladder_step)
