// SPDX-License-Identifier: MIT
/* Ascon-p on the Cortex-M3 (armv7m-fast): 64-bit lanes as register pairs, all ten state words in
 * registers, the twelve rounds unrolled.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 * and the block loops absorb16, encrypt16, decrypt16, absorb8 (prototypes in ref/ascon.h, below)
 *
 * Register map: x0 = (r1 low, r2 high), x1 = (r3, r4), x2 = (r5, r6), x3 = (r7, r8), x4 = (r9, r10);
 *   temporaries r0, r11, r12, lr (the state pointer waits on the stack).
 *
 * Tricks:
 * - the barrel shifter: every shift of the linear layer is the free shifted operand of an EOR;
 * - Si ^ (Si >>> a) ^ (Si >>> b) = Si ^ ((Y) >>> a) with Y = Si ^ (Si >>> (b - a)): both halves of Y
 *   go to two temporaries (4 EORs), then Si ^ (Y >>> a) to the lane's home pair (4 EORs). Eight EORs
 *   a lane; a rotation by 32 + m swaps the halves and shifts by m;
 * - the S-box in 15 instructions a 32-bit slice with ORN and BIC; its outputs land in other
 *   registers, and the linear layer writes each lane back to its own pair (no moves);
 * - rounds unrolled with the constant as an immediate: Ascon-p[8] enters at round 4.
 * 71 instructions (71 cycles) a round, none with data-dependent timing: constant time. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

/* One 32-bit slice of the S-box in 15 instructions (OR/ORN/BIC form, docs/ascon.md): with
 * t1 = x0^x4, t2 = x3^x4, t0 = x1^x2 the outputs are y0 = ((x2^t1) | x1) ^ t2,
 * y1 = ((x3^x1) | t0) ^ t1, y2 = (x3 | ~x4) ^ t0, y3 = (x0 | t2) ^ t0, y4 = (x1 & ~t1) ^ t2.
 * They land in x2, x3, x4, t0, x1; x0, t1, t2 end free. */
.macro SBOX x0, x1, x2, x3, x4, t0, t1, t2
    eor     \t1, \x0, \x4
    eor     \t2, \x3, \x4
    eor     \t0, \x1, \x2
    orn     \x4, \x3, \x4
    eor     \x4, \x4, \t0               @ y2
    eor     \x3, \x3, \x1
    orr     \x3, \x3, \t0
    eor     \x3, \x3, \t1               @ y1
    eor     \x2, \x2, \t1
    orr     \x2, \x2, \x1
    eor     \x2, \x2, \t2               @ y0
    orr     \x0, \x0, \t2
    eor     \t0, \t0, \x0               @ y3
    bic     \x1, \x1, \t1
    eor     \x1, \x1, \t2               @ y4
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

/* (dl, dh) = (l, h) ^ ((yl, yh) >>> n), 0 < n < 64, n != 32; (dl, dh) free registers. */
.macro ROTX dl, dh, l, h, yl, yh, n
.if \n < 32
    eor     \dl, \l, \yl, lsr #\n
    eor     \dl, \dl, \yh, lsl #(32 - \n)
    eor     \dh, \h, \yh, lsr #\n
    eor     \dh, \dh, \yl, lsl #(32 - \n)
.else
    eor     \dl, \l, \yh, lsr #(\n - 32)
    eor     \dl, \dl, \yl, lsl #(64 - \n)
    eor     \dh, \h, \yl, lsr #(\n - 32)
    eor     \dh, \dh, \yh, lsl #(64 - \n)
.endif
.endm

/* Lane now in (l, h) to its home (dl, dh): x ^= (x >>> a) ^ (x >>> b) as
 * x ^= (x ^ (x >>> (b - a))) >>> a, with Y in r11, r12. */
.macro LINEAR dl, dh, l, h, a, d
    XROT    r11, r12, \l, \h, \d
    ROTX    \dl, \dh, \l, \h, r11, r12, \a
.endm

/* After the two S-box slices S0 is in (r5, r6), S1 in (r7, r8), S2 in (r9, r10), S3 in (r0, lr),
 * S4 in (r3, r4); r1, r2 are free, and the lanes go home in the order S0, S2, S4, S1, S3, each into
 * the registers the previous one left. */
.macro ROUND c
    eor     r5, r5, #\c                 @ round constant into S2 (low byte)
    SBOX    r1, r3, r5, r7, r9, r0, r11, r12
    SBOX    r2, r4, r6, r8, r10, lr, r11, r12
    LINEAR  r1, r2, r5, r6, 19, 9       @ S0: 19, 28
    LINEAR  r5, r6, r9, r10, 1, 5       @ S2: 1, 6
    LINEAR  r9, r10, r3, r4, 7, 34      @ S4: 7, 41
    LINEAR  r3, r4, r7, r8, 39, 22      @ S1: 61, 39
    LINEAR  r7, r8, r0, lr, 10, 7       @ S3: 10, 17
.endm

/* The rounds on r1..r10, called with BL: Ascon-p[12] at .Lascon_p12, Ascon-p[8] at .Lascon_p8;
 * r0, r11, r12, lr clobbered (the return address waits on the stack). */
    .section .text.ascon_permute_armv7m, "ax", %progbits
    .align 2
.Lascon_p8:
    str     lr, [sp, #-4]!
    b       .Lascon_round4
.Lascon_p12:
    str     lr, [sp, #-4]!
    ROUND   0xf0
    ROUND   0xe1
    ROUND   0xd2
    ROUND   0xc3
.Lascon_round4:
    ROUND   0xb4
    ROUND   0xa5
    ROUND   0x96
    ROUND   0x87
    ROUND   0x78
    ROUND   0x69
    ROUND   0x5a
    ROUND   0x4b
    ldr     pc, [sp], #4

    .global MCU_FN(ascon, permute)
    .thumb_func
    .type MCU_FN(ascon, permute), %function
MCU_FN(ascon, permute):
    push    {r0, r4-r11, lr}
    mov     r12, r1
    ldm     r0, {r1-r10}
    cmp     r12, #8
    beq     1f
    bl      .Lascon_p12
    b       2f
1:  bl      .Lascon_p8
2:  ldr     r0, [sp], #4
    stm     r0, {r1-r10}
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)

/* Whole blocks with the state in registers (ascon.c calls these for any alignment: LDR/STR of
 * words take unaligned addresses on the Cortex-M3). nblocks >= 1; the pointers and the count wait
 * on the stack while the rounds use every register.
 * void absorb16(ascon_state_t *s, const uint8_t *in, size_t nblocks);        AD: S0, S1 ^= block; p8
 * void encrypt16(ascon_state_t *s, uint8_t *out, const uint8_t *in, size_t nblocks);
 * void decrypt16(ascon_state_t *s, uint8_t *out, const uint8_t *in, size_t nblocks);
 * void absorb8(ascon_state_t *s, const uint8_t *in, size_t nblocks);         hash: S0 ^= block; p12 */
    .global MCU_FN(ascon, absorb16)
    .thumb_func
    .type MCU_FN(ascon, absorb16), %function
MCU_FN(ascon, absorb16):
    push    {r0-r2, r4-r11, lr}         @ [sp] s, [sp+4] in, [sp+8] blocks left
    ldm     r0, {r1-r10}
1:  ldr     r12, [sp, #4]
    ldr     r0, [r12]
    ldr     r11, [r12, #4]
    eor     r1, r1, r0
    eor     r2, r2, r11
    ldr     r0, [r12, #8]
    ldr     r11, [r12, #12]
    eor     r3, r3, r0
    eor     r4, r4, r11
    add     r12, r12, #16
    str     r12, [sp, #4]
    bl      .Lascon_p8
    ldr     r12, [sp, #8]
    subs    r12, r12, #1
    str     r12, [sp, #8]
    bne     1b
    ldr     r0, [sp]
    stm     r0, {r1-r10}
    add     sp, sp, #12
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, absorb16), . - MCU_FN(ascon, absorb16)

    .global MCU_FN(ascon, encrypt16)
    .thumb_func
    .type MCU_FN(ascon, encrypt16), %function
MCU_FN(ascon, encrypt16):
    push    {r0-r3, r4-r11, lr}         @ [sp] s, [sp+4] out, [sp+8] in, [sp+12] blocks left
    ldm     r0, {r1-r10}
1:  ldr     r12, [sp, #8]
    ldr     r0, [r12]
    ldr     r11, [r12, #4]
    eor     r1, r1, r0
    eor     r2, r2, r11
    ldr     r0, [r12, #8]
    ldr     r11, [r12, #12]
    eor     r3, r3, r0
    eor     r4, r4, r11
    add     r12, r12, #16
    str     r12, [sp, #8]
    ldr     r12, [sp, #4]
    str     r1, [r12]                   @ ciphertext = the rate after the xor
    str     r2, [r12, #4]
    str     r3, [r12, #8]
    str     r4, [r12, #12]
    add     r12, r12, #16
    str     r12, [sp, #4]
    bl      .Lascon_p8
    ldr     r12, [sp, #12]
    subs    r12, r12, #1
    str     r12, [sp, #12]
    bne     1b
    ldr     r0, [sp]
    stm     r0, {r1-r10}
    add     sp, sp, #16
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, encrypt16), . - MCU_FN(ascon, encrypt16)

    .global MCU_FN(ascon, decrypt16)
    .thumb_func
    .type MCU_FN(ascon, decrypt16), %function
MCU_FN(ascon, decrypt16):
    push    {r0-r3, r4-r11, lr}         @ [sp] s, [sp+4] out, [sp+8] in, [sp+12] blocks left
    ldm     r0, {r1-r10}
1:  ldr     r12, [sp, #8]
    ldr     lr, [sp, #4]
    ldr     r0, [r12]                   @ ciphertext word
    ldr     r11, [r12, #4]
    eor     r1, r1, r0                  @ plaintext = rate ^ ciphertext ...
    eor     r2, r2, r11
    str     r1, [lr]
    str     r2, [lr, #4]
    mov     r1, r0                      @ ... and the rate takes the ciphertext
    mov     r2, r11
    ldr     r0, [r12, #8]
    ldr     r11, [r12, #12]
    eor     r3, r3, r0
    eor     r4, r4, r11
    str     r3, [lr, #8]
    str     r4, [lr, #12]
    mov     r3, r0
    mov     r4, r11
    add     r12, r12, #16
    str     r12, [sp, #8]
    add     lr, lr, #16
    str     lr, [sp, #4]
    bl      .Lascon_p8
    ldr     r12, [sp, #12]
    subs    r12, r12, #1
    str     r12, [sp, #12]
    bne     1b
    ldr     r0, [sp]
    stm     r0, {r1-r10}
    add     sp, sp, #16
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, decrypt16), . - MCU_FN(ascon, decrypt16)

    .global MCU_FN(ascon, absorb8)
    .thumb_func
    .type MCU_FN(ascon, absorb8), %function
MCU_FN(ascon, absorb8):
    push    {r0-r2, r4-r11, lr}         @ [sp] s, [sp+4] in, [sp+8] blocks left
    ldm     r0, {r1-r10}
1:  ldr     r12, [sp, #4]
    ldr     r0, [r12]
    ldr     r11, [r12, #4]
    eor     r1, r1, r0
    eor     r2, r2, r11
    add     r12, r12, #8
    str     r12, [sp, #4]
    bl      .Lascon_p12
    ldr     r12, [sp, #8]
    subs    r12, r12, #1
    str     r12, [sp, #8]
    bne     1b
    ldr     r0, [sp]
    stm     r0, {r1-r10}
    add     sp, sp, #12
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, absorb8), . - MCU_FN(ascon, absorb8)
