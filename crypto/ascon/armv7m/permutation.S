// SPDX-License-Identifier: MIT
/* Ascon-p on the Cortex-M3 (armv7m-fast): 64-bit lanes as register pairs, all ten state words in
 * registers, the twelve rounds unrolled.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 *
 * Register map: x0 = (r1 low, r2 high), x1 = (r3, r4), x2 = (r5, r6), x3 = (r7, r8), x4 = (r9, r10);
 *   temporaries r0, r11, r12, lr (the state pointer waits on the stack).
 *
 * Tricks:
 * - the barrel shifter: every shift of the linear layer is the free shifted operand of an EOR;
 * - Si ^ (Si >>> a) ^ (Si >>> b) = Si ^ ((Y) >>> a) with Y = Si ^ (Si >>> (b - a)): both halves of Y
 *   go to two temporaries (4 EORs), then Si's halves take (Y >>> a) in place (4 EORs). Eight EORs a
 *   lane and no moves; a rotation by 32 + m swaps the halves and shifts by m;
 * - the S-box in 17 instructions a 32-bit slice with BIC (x & ~y in one instruction) and three
 *   temporaries, in the order that needs no copy of the inputs;
 * - rounds unrolled with the constant as an immediate: Ascon-p[8] enters at round 4.
 * 75 instructions (75 cycles) a round, none with data-dependent timing: constant time. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

/* One 32-bit slice of the S-box (SP 800-232 §3.3), in place; t0, t4, tt clobbered. */
.macro SBOX x0, x1, x2, x3, x4, t0, t4, tt
    eor     \x0, \x0, \x4
    eor     \x4, \x4, \x3
    eor     \x2, \x2, \x1
    bic     \t0, \x1, \x0               @ t0 = ~x0 & x1
    bic     \t4, \x0, \x4               @ t4 = ~x4 & x0
    bic     \tt, \x2, \x1               @ t1 = ~x1 & x2
    eor     \x0, \x0, \tt
    bic     \tt, \x3, \x2               @ t2 = ~x2 & x3
    eor     \x1, \x1, \tt
    bic     \tt, \x4, \x3               @ t3 = ~x3 & x4
    eor     \x2, \x2, \tt
    eor     \x3, \x3, \t4
    eor     \x4, \x4, \t0
    eor     \x1, \x1, \x0
    eor     \x0, \x0, \x4
    eor     \x3, \x3, \x2
    mvn     \x2, \x2
.endm

/* (yl, yh) = (l, h) ^ ((l, h) >>> n), 0 < n < 64, n != 32. */
.macro XROT yl, yh, l, h, n
.if \n < 32
    eor     \yl, \l, \l, lsr #\n
    eor     \yl, \yl, \h, lsl #(32 - \n)
    eor     \yh, \h, \h, lsr #\n
    eor     \yh, \yh, \l, lsl #(32 - \n)
.else
    eor     \yl, \l, \h, lsr #(\n - 32)
    eor     \yl, \yl, \l, lsl #(64 - \n)
    eor     \yh, \h, \l, lsr #(\n - 32)
    eor     \yh, \yh, \h, lsl #(64 - \n)
.endif
.endm

/* (l, h) ^= (yl, yh) >>> n, 0 < n < 64, n != 32. */
.macro ROTX l, h, yl, yh, n
.if \n < 32
    eor     \l, \l, \yl, lsr #\n
    eor     \l, \l, \yh, lsl #(32 - \n)
    eor     \h, \h, \yh, lsr #\n
    eor     \h, \h, \yl, lsl #(32 - \n)
.else
    eor     \l, \l, \yh, lsr #(\n - 32)
    eor     \l, \l, \yl, lsl #(64 - \n)
    eor     \h, \h, \yl, lsr #(\n - 32)
    eor     \h, \h, \yh, lsl #(64 - \n)
.endif
.endm

/* x ^= (x >>> a) ^ (x >>> b) as x ^= (x ^ (x >>> (b - a))) >>> a. */
.macro LINEAR l, h, a, d
    XROT    r0, r11, \l, \h, \d
    ROTX    \l, \h, r0, r11, \a
.endm

.macro ROUND c
    eor     r5, r5, #\c                 @ round constant into S2 (low byte)
    SBOX    r1, r3, r5, r7, r9, r0, r11, r12
    SBOX    r2, r4, r6, r8, r10, r0, r11, r12
    LINEAR  r1, r2, 19, 9               @ S0: 19, 28
    LINEAR  r3, r4, 39, 22              @ S1: 61, 39
    LINEAR  r5, r6, 1, 5                @ S2: 1, 6
    LINEAR  r7, r8, 10, 7               @ S3: 10, 17
    LINEAR  r9, r10, 7, 34              @ S4: 7, 41
.endm

    .section .text.ascon_permute_armv7m, "ax", %progbits
    .align 2
    .global MCU_FN(ascon, permute)
    .thumb_func
    .type MCU_FN(ascon, permute), %function
MCU_FN(ascon, permute):
    push    {r0, r4-r11, lr}
    mov     r12, r1
    ldm     r0, {r1-r10}
    cmp     r12, #8
    beq     .Lascon_p8
    ROUND   0xf0
    ROUND   0xe1
    ROUND   0xd2
    ROUND   0xc3
.Lascon_p8:
    ROUND   0xb4
    ROUND   0xa5
    ROUND   0x96
    ROUND   0x87
    ROUND   0x78
    ROUND   0x69
    ROUND   0x5a
    ROUND   0x4b
    ldr     r0, [sp], #4
    stm     r0, {r1-r10}
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)
