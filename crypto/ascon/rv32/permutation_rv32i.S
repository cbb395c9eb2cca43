// SPDX-License-Identifier: MIT
/* Ascon-p on RV32I (rv32-fast): 64-bit lanes as (low, high) register pairs, all ten words in
 * registers, twelve rounds unrolled, block loops with the state in registers. Base ISA only (no
 * rotate, no ANDN): the E31's RV32IMAC without extensions.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 * and the block loops absorb16, encrypt16, decrypt16, absorb8 (ref/ascon.h; 4-byte-aligned buffers,
 * which ascon.c checks: LW/SW only).
 *
 * Register map: S0 = (s0 low, s1 high), S1 = (s2, s3), S2 = (s4, s5), S3 = (s6, s7), S4 = (s8, s9);
 *   the rounds clobber t0-t2, t4-t6, a4; a0 state pointer.
 * S-box: the 15-operation OR form (docs/ascon.md), 17 instructions a 32-bit word here (ORN and ANDN
 * are a NOT and an OR/AND); its outputs land in other registers and the linear layer writes every lane
 * back home. Linear layer: x ^= (x ^ (x >>> (b - a))) >>> a; every 64-bit rotation-and-XOR is two
 * shifts and two XORs a half: 16 instructions a lane. Round: 1 + 34 + 80 = 115 instructions, all
 * single-cycle on the E31 and none data-dependent: constant time. */
#include "mcucrypt/ns.h"

.macro SBOX x0, x1, x2, x3, x4, t0, t1, t2
    xor     \t1, \x0, \x4
    xor     \t2, \x3, \x4
    xor     \t0, \x1, \x2
    not     \x4, \x4
    or      \x4, \x4, \x3
    xor     \x4, \x4, \t0                # y2 = (x3 | ~x4) ^ t0
    xor     \x3, \x3, \x1
    or      \x3, \x3, \t0
    xor     \x3, \x3, \t1                # y1 = ((x3 ^ x1) | t0) ^ t1
    xor     \x2, \x2, \t1
    or      \x2, \x2, \x1
    xor     \x2, \x2, \t2                # y0 = ((x2 ^ t1) | x1) ^ t2
    or      \x0, \x0, \t2
    xor     \t0, \t0, \x0                # y3 = (x0 | t2) ^ t0
    not     \t1, \t1
    and     \x1, \x1, \t1
    xor     \x1, \x1, \t2                # y4 = (x1 & ~t1) ^ t2
.endm

/* (yl, yh) = (l, h) ^ ((l, h) >>> n), 0 < n < 64, n != 32; t2 scratch. */
.macro XROT yl, yh, l, h, n
.if \n < 32
    srli    t2, \l, \n
    xor     \yl, \l, t2
    slli    t2, \h, 32 - \n
    xor     \yl, \yl, t2
    srli    t2, \h, \n
    xor     \yh, \h, t2
    slli    t2, \l, 32 - \n
    xor     \yh, \yh, t2
.else
    srli    t2, \h, \n - 32
    xor     \yl, \l, t2
    slli    t2, \l, 64 - \n
    xor     \yl, \yl, t2
    srli    t2, \l, \n - 32
    xor     \yh, \h, t2
    slli    t2, \h, 64 - \n
    xor     \yh, \yh, t2
.endif
.endm

/* (dl, dh) = (l, h) ^ ((yl, yh) >>> n), 0 < n < 64, n != 32; (dl, dh) free registers; t2 scratch. */
.macro ROTX dl, dh, l, h, yl, yh, n
.if \n < 32
    srli    t2, \yl, \n
    xor     \dl, \l, t2
    slli    t2, \yh, 32 - \n
    xor     \dl, \dl, t2
    srli    t2, \yh, \n
    xor     \dh, \h, t2
    slli    t2, \yl, 32 - \n
    xor     \dh, \dh, t2
.else
    srli    t2, \yh, \n - 32
    xor     \dl, \l, t2
    slli    t2, \yl, 64 - \n
    xor     \dl, \dl, t2
    srli    t2, \yl, \n - 32
    xor     \dh, \h, t2
    slli    t2, \yh, 64 - \n
    xor     \dh, \dh, t2
.endif
.endm

.macro LINEAR dl, dh, l, h, a, d
    XROT    t0, t1, \l, \h, \d
    ROTX    \dl, \dh, \l, \h, t0, t1, \a
.endm

/* After the S-boxes S0 is in (s4, s5), S1 in (s6, s7), S2 in (s8, s9), S3 in (t6, a4), S4 in (s2, s3);
 * s0, s1 are free; the lanes go home in the order S0, S2, S4, S1, S3. */
.macro ROUND c
    xori    s4, s4, \c
    SBOX    s0, s2, s4, s6, s8, t6, t4, t5
    SBOX    s1, s3, s5, s7, s9, a4, t4, t5
    LINEAR  s0, s1, s4, s5, 19, 9       # S0: 19, 28
    LINEAR  s4, s5, s8, s9, 1, 5        # S2: 1, 6
    LINEAR  s8, s9, s2, s3, 7, 34       # S4: 7, 41
    LINEAR  s2, s3, s6, s7, 39, 22      # S1: 61, 39
    LINEAR  s6, s7, t6, a4, 10, 7       # S3: 10, 17
.endm

.macro PROLOGUE
    addi    sp, sp, -48
    sw      s0, 0(sp)
    sw      s1, 4(sp)
    sw      s2, 8(sp)
    sw      s3, 12(sp)
    sw      s4, 16(sp)
    sw      s5, 20(sp)
    sw      s6, 24(sp)
    sw      s7, 28(sp)
    sw      s8, 32(sp)
    sw      s9, 36(sp)
    sw      ra, 40(sp)
    lw      s0, 0(a0)
    lw      s1, 4(a0)
    lw      s2, 8(a0)
    lw      s3, 12(a0)
    lw      s4, 16(a0)
    lw      s5, 20(a0)
    lw      s6, 24(a0)
    lw      s7, 28(a0)
    lw      s8, 32(a0)
    lw      s9, 36(a0)
.endm

.macro EPILOGUE
    sw      s0, 0(a0)
    sw      s1, 4(a0)
    sw      s2, 8(a0)
    sw      s3, 12(a0)
    sw      s4, 16(a0)
    sw      s5, 20(a0)
    sw      s6, 24(a0)
    sw      s7, 28(a0)
    sw      s8, 32(a0)
    sw      s9, 36(a0)
    lw      s0, 0(sp)
    lw      s1, 4(sp)
    lw      s2, 8(sp)
    lw      s3, 12(sp)
    lw      s4, 16(sp)
    lw      s5, 20(sp)
    lw      s6, 24(sp)
    lw      s7, 28(sp)
    lw      s8, 32(sp)
    lw      s9, 36(sp)
    lw      ra, 40(sp)
    addi    sp, sp, 48
    ret
.endm

/* The rounds on s0..s9, called with JAL ra: Ascon-p[12] at .Lascon_i_r12, Ascon-p[8] at .Lascon_i_r8. */
    .section .text.ascon_rounds_rv32i, "ax", @progbits
    .align 2
.Lascon_i_r12:
    ROUND   0xf0
    ROUND   0xe1
    ROUND   0xd2
    ROUND   0xc3
.Lascon_i_r8:
    ROUND   0xb4
    ROUND   0xa5
    ROUND   0x96
    ROUND   0x87
    ROUND   0x78
    ROUND   0x69
    ROUND   0x5a
    ROUND   0x4b
    ret

    .globl MCU_FN(ascon, permute)
    .type MCU_FN(ascon, permute), @function
MCU_FN(ascon, permute):
    PROLOGUE
    li      t0, 8
    beq     a1, t0, 1f
    jal     ra, .Lascon_i_r12
    j       2f
1:  jal     ra, .Lascon_i_r8
2:  EPILOGUE
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)

/* Block loops (nblocks >= 1, 4-byte-aligned buffers); a4-a7, t4, t5 carry words (dead during rounds). */
    .globl MCU_FN(ascon, absorb16)
    .type MCU_FN(ascon, absorb16), @function
MCU_FN(ascon, absorb16):
    PROLOGUE
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    lw      a6, 8(a1)
    lw      a7, 12(a1)
    xor     s0, s0, a4
    xor     s1, s1, a5
    xor     s2, s2, a6
    xor     s3, s3, a7
    jal     ra, .Lascon_i_r8
    addi    a1, a1, 16
    addi    a2, a2, -1
    bnez    a2, 1b
    EPILOGUE
    .size MCU_FN(ascon, absorb16), . - MCU_FN(ascon, absorb16)

    .globl MCU_FN(ascon, encrypt16)
    .type MCU_FN(ascon, encrypt16), @function
MCU_FN(ascon, encrypt16):
    PROLOGUE
1:  lw      a4, 0(a2)
    lw      a5, 4(a2)
    lw      a6, 8(a2)
    lw      a7, 12(a2)
    xor     s0, s0, a4
    xor     s1, s1, a5
    xor     s2, s2, a6
    xor     s3, s3, a7
    sw      s0, 0(a1)                   # ciphertext = the rate after the xor
    sw      s1, 4(a1)
    sw      s2, 8(a1)
    sw      s3, 12(a1)
    jal     ra, .Lascon_i_r8
    addi    a1, a1, 16
    addi    a2, a2, 16
    addi    a3, a3, -1
    bnez    a3, 1b
    EPILOGUE
    .size MCU_FN(ascon, encrypt16), . - MCU_FN(ascon, encrypt16)

    .globl MCU_FN(ascon, decrypt16)
    .type MCU_FN(ascon, decrypt16), @function
MCU_FN(ascon, decrypt16):
    PROLOGUE
1:  lw      a4, 0(a2)                   # ciphertext words
    lw      a5, 4(a2)
    lw      a6, 8(a2)
    lw      a7, 12(a2)
    xor     s0, s0, a4                  # plaintext = rate ^ ciphertext ...
    xor     s1, s1, a5
    xor     s2, s2, a6
    xor     s3, s3, a7
    sw      s0, 0(a1)
    sw      s1, 4(a1)
    sw      s2, 8(a1)
    sw      s3, 12(a1)
    mv      s0, a4                      # ... and the rate takes the ciphertext
    mv      s1, a5
    mv      s2, a6
    mv      s3, a7
    jal     ra, .Lascon_i_r8
    addi    a1, a1, 16
    addi    a2, a2, 16
    addi    a3, a3, -1
    bnez    a3, 1b
    EPILOGUE
    .size MCU_FN(ascon, decrypt16), . - MCU_FN(ascon, decrypt16)

    .globl MCU_FN(ascon, absorb8)
    .type MCU_FN(ascon, absorb8), @function
MCU_FN(ascon, absorb8):
    PROLOGUE
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    xor     s0, s0, a4
    xor     s1, s1, a5
    jal     ra, .Lascon_i_r12
    addi    a1, a1, 8
    addi    a2, a2, -1
    bnez    a2, 1b
    EPILOGUE
    .size MCU_FN(ascon, absorb8), . - MCU_FN(ascon, absorb8)
