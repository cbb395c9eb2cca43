/* SPDX-License-Identifier: MIT */
/* cm3-umlal-ct, the Karatsuba glue: sums of halves and the additive recombination.
 *
 * umlal.c builds 512..2048-bit products from the 256-bit kernels of umlal_ct.S by *additive* Karatsuba,
 * one level per doubling. With A = A1*W^h + A0, B = B1*W^h + B0 (W = 2^32, h words each):
 *     A*B = z0 + (z1 - z0 - z2)*W^h + z2*W^2h,   z0 = A0*B0, z2 = A1*B1, z1 = (A0 + A1)*(B0 + B1).
 * The sums carry one more bit per level; the kernel's nine 29-bit limbs hold 261 bits, so a leaf takes
 * an 8-word operand plus a small top word (mpmul_cm3_umlal_k8x) and no sign, mask or absolute value is
 * needed anywhere (the subtractive form's |A0 - A1| costs a second pass and a conditional negation).
 * Both routines are branch-free in the data: loops run a number of times fixed by h, the one branch
 * tests e (whether the operands carry a top word), which is fixed by the length.
 * The loops move four words per step with LDM/STM (1+N cycles instead of 2 per word) and keep their
 * carry chains across iterations: the loop test is TEQ, which leaves C alone. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

/* void mpmul_cm3_umlal_sum(uint32_t *s, const uint32_t *x, const uint32_t *y, size_t h, uint32_t ytop);
 *   s[0..h] = x[0..h) + y[0..h) + ytop*W^h: h words and a top word (carry + ytop). h: a multiple of 4.
 * Register map: r0 s, r1 x, r2 y (walking), r12 end of x, r4-r7 x block, r8-r10, lr y block. */
    .section .text.mpmul_cm3_umlal_sum, "ax", %progbits
    .balign 4
    .global mpmul_cm3_umlal_sum
    .thumb_func
    .type mpmul_cm3_umlal_sum, %function
mpmul_cm3_umlal_sum:
    push    {r4-r10, lr}                @ 32 bytes: ytop at [sp, #32]
    add     r12, r1, r3, lsl #2         @ end of x
    cmn     r0, #0                      @ C = 0: r0 + 0 never carries
    .balign 4
.Lmpmul_cm3_umlal_sum_loop:
    ldm     r1!, {r4-r7}
    ldm     r2!, {r8-r10, lr}
    adcs    r4, r4, r8
    adcs    r5, r5, r9
    adcs    r6, r6, r10
    adcs    r7, r7, lr
    stm     r0!, {r4-r7}
    teq     r1, r12                     @ Z only: the carry in C survives
    bne     .Lmpmul_cm3_umlal_sum_loop
    ldr     r4, [sp, #32]
    adc     r4, r4, #0
    str     r4, [r0]
    pop     {r4-r10, pc}
    .size mpmul_cm3_umlal_sum, . - mpmul_cm3_umlal_sum

/* void mpmul_cm3_umlal_combine(uint32_t *r, uint32_t *z1, size_t h, uint32_t e);
 *   On entry r[0..2h) = z0, r[2h..4h+e) = z2 (e = 1: the operands had top words, z2 has 2h+1 words),
 *   z1[0..2h] = (A0 + A1)(B0 + B1). On exit r[0..4h+e) = z0 + (z1 - z0 - z2)*W^h + z2*W^2h; z1 is
 *   overwritten. h: a multiple of 4, >= 4.
 *   Pass 1: z1 -= z0 and z1 -= z2 in one loop, two borrow chains: each is saved as 0/-1 with
 *           SBC x,x,x and restored into C with RSBS x,x,#0. M = z1 - z0 - z2 = A0*B1 + A1*B0 >= 0,
 *           so its 2h+1 words are exact modulo W^(2h+1).
 *   Pass 2: r[h..3h) += M[0..2h); r[3h..4h) += M[2h] + carry, run through every word (fixed length);
 *           e: r[4h] += carry.
 *   z0 is read in pass 1 only, so pass 2 may write over it.
 * Register map: r0 r (walking), r1 z1 (walking), r2 z2 (walking), r3 / lr borrow of chain z0 / z2,
 *   then r3 M[2h]; r4-r7 z1 block, r8-r11 z0 then z2 block; r12 end pointer; [sp] h, [sp+4] e. */
    .section .text.mpmul_cm3_umlal_combine, "ax", %progbits
    .balign 4
    .global mpmul_cm3_umlal_combine
    .thumb_func
    .type mpmul_cm3_umlal_combine, %function
mpmul_cm3_umlal_combine:
    push    {r0, r2, r3, r4-r11, lr}    @ [sp] r, [sp+4] h, [sp+8] e
    add     r12, r1, r2, lsl #3         @ end of z1's low 2h words
    add     r2, r0, r2, lsl #3          @ z2 = r + 2h words
    movs    r3, #0                      @ no borrow yet, in either chain
    mov     lr, #0
    .balign 4
.Lmpmul_cm3_umlal_combine_p1:
    ldm     r1, {r4-r7}                 @ z1
    ldm     r0!, {r8-r11}               @ z0
    rsbs    r3, r3, #0                  @ C = no borrow of chain z0
    sbcs    r4, r4, r8
    sbcs    r5, r5, r9
    sbcs    r6, r6, r10
    sbcs    r7, r7, r11
    sbc     r3, r3, r3                  @ 0, or -1 after a borrow
    ldm     r2!, {r8-r11}               @ z2
    rsbs    lr, lr, #0                  @ C = no borrow of chain z2
    sbcs    r4, r4, r8
    sbcs    r5, r5, r9
    sbcs    r6, r6, r10
    sbcs    r7, r7, r11
    sbc     lr, lr, lr
    stm     r1!, {r4-r7}
    teq     r1, r12
    bne     .Lmpmul_cm3_umlal_combine_p1
    @ M[2h] = z1[2h] - borrows - z2[2h] (the last only when e), at r1; r2 = r + 4h words.
    ldr     r4, [r1]
    add     r3, r3, lr
    add     r3, r3, r4
    ldr     r4, [sp, #8]
    cbz     r4, 1f                      @ e: a property of the length, not of the data
    ldr     r4, [r2]
    sub     r3, r3, r4
1:
    ldr     r0, [sp]
    ldr     r2, [sp, #4]
    add     r0, r0, r2, lsl #2          @ r + h words
    sub     r1, r1, r2, lsl #3          @ z1
    cmn     r0, #0                      @ C = 0
    .balign 4
.Lmpmul_cm3_umlal_combine_p2:
    ldm     r0, {r4-r7}                 @ r[h + k]
    ldm     r1!, {r8-r11}               @ M[k]
    adcs    r4, r4, r8
    adcs    r5, r5, r9
    adcs    r6, r6, r10
    adcs    r7, r7, r11
    stm     r0!, {r4-r7}
    teq     r1, r12
    bne     .Lmpmul_cm3_umlal_combine_p2
    @ r0 = r + 3h words; the carry of pass 2 is in C. End of the carry run: r + 4h words.
    add     r12, r0, r2, lsl #2
    .balign 4
.Lmpmul_cm3_umlal_combine_p3:
    ldm     r0, {r4-r7}
    adcs    r4, r4, r3                  @ M[2h] + carry on the first step, then the carry alone
    adcs    r5, r5, #0
    adcs    r6, r6, #0
    adcs    r7, r7, #0
    mov     r3, #0                      @ MOV without S: C survives
    stm     r0!, {r4-r7}
    teq     r0, r12
    bne     .Lmpmul_cm3_umlal_combine_p3
    ldr     r4, [sp, #8]
    cbz     r4, 2f                      @ e (LDR and CBZ leave C alone)
    ldr     r4, [r0]
    adc     r4, r4, #0
    str     r4, [r0]
2:
    add     sp, sp, #12
    pop     {r4-r11, pc}
    .size mpmul_cm3_umlal_combine, . - mpmul_cm3_umlal_combine
