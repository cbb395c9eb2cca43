/* SPDX-License-Identifier: MIT */
/* cm3-fast, the Karatsuba glue: constant-time absolute difference and recombination.
 *
 * fast.c builds 512..2048-bit products from the 256-bit kernel (fast_k8.S) by subtractive
 * Karatsuba, one level per doubling. With A = A1*W^h + A0, B = B1*W^h + B0 (W = 2^32, h words each):
 *     A*B = z0 + (z0 + z2 + (A0 - A1)*(B1 - B0))*W^h + z2*W^2h,   z0 = A0*B0, z2 = A1*B1,
 * and (A0 - A1)*(B1 - B0) = (-1)^s * |A0 - A1| * |B1 - B0| with s the XOR of the two signs.
 * Both routines here are branch-free in the data: every loop runs a number of times fixed by h, the
 * signs travel as all-ones/all-zero masks, and conditional negation is (x XOR m) - m.
 *
 * The loops move four words per step with LDM/STM (1+N cycles instead of 2 per word) and keep
 * their carry chains alive across iterations: the loop test is TEQ, which leaves C alone. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

/* uint32_t mpmul_cm3_fast_absdiff(uint32_t *d, const uint32_t *x, const uint32_t *y, size_t words);
 *   d = |x - y|, returns 0xFFFFFFFF if x < y else 0. words: a multiple of 4, >= 4.
 *   Pass 1: d = x - y (SBCS chain), the final borrow becomes the mask m.
 *   Pass 2: d = (d XOR m) + (m & 1): two's-complement negation when m is all ones, identity else.
 * Register map: r0 d (walking), r1 x (walking), r2 y (walking; pass 2: d walking), r3 m,
 *   r4-r7 x block / d block, r8-r10, r3 y block, r12 end of x, lr start of d. */
    .section .text.mpmul_cm3_fast_absdiff, "ax", %progbits
    .align 2
    .global mpmul_cm3_fast_absdiff
    .thumb_func
    .type mpmul_cm3_fast_absdiff, %function
mpmul_cm3_fast_absdiff:
    push    {r4-r10, lr}
    add     r12, r1, r3, lsl #2         @ end of x
    mov     lr, r0                      @ d, for pass 2
    cmp     r0, r0                      @ C = 1: no borrow into the first word
.Lmpmul_cm3_fast_absdiff_sub:
    ldm     r1!, {r4-r7}
    ldm     r2!, {r3, r8-r10}
    sbcs    r4, r4, r3
    sbcs    r5, r5, r8
    sbcs    r6, r6, r9
    sbcs    r7, r7, r10
    stm     r0!, {r4-r7}
    teq     r1, r12                     @ Z only: the borrow in C survives
    bne     .Lmpmul_cm3_fast_absdiff_sub
    sbc     r3, r3, r3                  @ m = -(borrow): all ones iff x < y
    lsls    r12, r3, #1                 @ C = m & 1, the +1 of the negation
    mov     r2, lr
    .balign 4                           @ the loop head is a 32-bit LDM: keep it word aligned (refill)
.Lmpmul_cm3_fast_absdiff_neg:
    ldm     r2, {r4-r7}
    eor     r4, r4, r3
    adcs    r4, r4, #0
    eor     r5, r5, r3
    adcs    r5, r5, #0
    eor     r6, r6, r3
    adcs    r6, r6, #0
    eor     r7, r7, r3
    adcs    r7, r7, #0
    stm     r2!, {r4-r7}
    teq     r2, r0
    bne     .Lmpmul_cm3_fast_absdiff_neg
    mov     r0, r3
    pop     {r4-r10, pc}
    .size mpmul_cm3_fast_absdiff, . - mpmul_cm3_fast_absdiff

/* void mpmul_cm3_fast_combine(uint32_t *r, uint32_t *z1, size_t h, uint32_t m);
 *   On entry r[0..2h) = z0, r[2h..4h) = z2, z1[0..2h) = |A0 - A1| * |B1 - B0|, m = all ones when
 *   that product is to be subtracted. On exit r = z0 + (z0 + z2 +- z1)*W^h + z2*W^2h; z1 is
 *   overwritten. h: a multiple of 4, >= 4.
 *   Pass 1: z1 = z0 + (z1 XOR m) + (m & 1)      (+-z1 in two's complement, 2h words)
 *   Pass 2: z1 = z1 + z2                          (the middle term M, its top word kept in r3:
 *           top = m + carry1 + carry2 mod 2^32, which is 0 or 1 because M < 2*W^2h)
 *   Pass 3: r[h..3h) += M[0..2h)
 *   Pass 4: r[3h..4h) += top + carry3, the carry run through every word (fixed length).
 *   z0 is read in pass 1 and z2 in pass 2, both before pass 3 writes over them.
 * Register map: r0, r1, r2 walking pointers, r3 m then top, r4-r11 two 4-word blocks,
 *   r12 end pointer, lr scratch; [sp] r, [sp+4] z1. */
    .section .text.mpmul_cm3_fast_combine, "ax", %progbits
    .align 2
    .global mpmul_cm3_fast_combine
    .thumb_func
    .type mpmul_cm3_fast_combine, %function
mpmul_cm3_fast_combine:
    push    {r0, r1, r4-r11, lr}        @ [sp] = r, [sp+4] = z1
    add     r12, r1, r2, lsl #3         @ end of z1 (2h words)
    lsls    lr, r3, #1                  @ C = m & 1
.Lmpmul_cm3_fast_combine_p1:
    ldm     r0!, {r4-r7}                @ z0
    ldm     r1, {r8-r11}                @ z1
    eor     r8, r8, r3
    adcs    r4, r4, r8
    eor     r9, r9, r3
    adcs    r5, r5, r9
    eor     r10, r10, r3
    adcs    r6, r6, r10
    eor     r11, r11, r3
    adcs    r7, r7, r11
    stm     r1!, {r4-r7}
    teq     r1, r12
    bne     .Lmpmul_cm3_fast_combine_p1
    adc     r3, r3, #0                  @ top = m + carry1 (m is -1 or 0)
    @ r0 now points at z2 = r + 8h
    ldr     r1, [sp, #4]                @ z1
    adds    lr, r1, #0                  @ C = 0 (r1 + 0 never carries)
.Lmpmul_cm3_fast_combine_p2:
    ldm     r0!, {r4-r7}                @ z2
    ldm     r1, {r8-r11}
    adcs    r8, r8, r4
    adcs    r9, r9, r5
    adcs    r10, r10, r6
    adcs    r11, r11, r7
    stm     r1!, {r8-r11}
    teq     r1, r12
    bne     .Lmpmul_cm3_fast_combine_p2
    adc     r3, r3, #0                  @ top += carry2
    ldr     r0, [sp]
    add     r0, r0, r2, lsl #2          @ r + 4h
    ldr     r1, [sp, #4]
    adds    lr, r1, #0                  @ C = 0
    .balign 4                           @ 32-bit LDM at the loop head: keep it word aligned
.Lmpmul_cm3_fast_combine_p3:
    ldm     r0, {r4-r7}                 @ r[h + k]
    ldm     r1!, {r8-r11}               @ M[k]
    adcs    r4, r4, r8
    adcs    r5, r5, r9
    adcs    r6, r6, r10
    adcs    r7, r7, r11
    stm     r0!, {r4-r7}
    teq     r1, r12
    bne     .Lmpmul_cm3_fast_combine_p3
    @ r0 = r + 12h; the carry of pass 3 is in C. End of r: r0 + 4h.
    add     r12, r0, r2, lsl #2
    .balign 4
.Lmpmul_cm3_fast_combine_p4:
    ldm     r0, {r4-r7}
    adcs    r4, r4, r3                  @ top + carry on the first step, then the carry alone
    adcs    r5, r5, #0
    adcs    r6, r6, #0
    adcs    r7, r7, #0
    mov     r3, #0                      @ MOV without S: C survives
    stm     r0!, {r4-r7}
    teq     r0, r12
    bne     .Lmpmul_cm3_fast_combine_p4
    add     sp, sp, #8
    pop     {r4-r11, pc}
    .size mpmul_cm3_fast_combine, . - mpmul_cm3_fast_combine
