/* SPDX-License-Identifier: MIT */
/* LEA key schedules (KS X 3246) in RV32 assembly, shared by rv32-paper, rv32-fast and rv32-zbb.
 *
 *   void mcu_<id>_<impl>_keyschedule(uint32_t *rk, const uint8_t *key)
 *
 * Round i (0 <= i < R) updates key words T[j] = ROL(T[j] + ROL(delta[i mod n], i + j), s_j), with
 * s = 1, 3, 6, 11, 13, 17 and n = 4, 6, 8 key words (LEA-128/192/256; LEA-256 updates words
 * (6i + j) mod 8), and emits six of them as the round key. The key words live in registers for the whole
 * schedule; the round constants ROL(delta[i mod n], i) are assembled into a table of R words at build
 * time (the LEA_CONSTANTS macro below computes them from the eight published deltas), so a round loads
 * one word and derives ROL(., i + j) for j = 1..5 by successive 1-bit rotations.
 *
 * Round-key layout: six words per round (rk[6i + j]); with LEA_RK_COMPACT=1 (rv32-fast, rv32-zbb) LEA-128
 * keeps only its four distinct words per round (T0, T1, T2, T3; the standard layout repeats T1 as words 3
 * and 5), which the unrolled rounds read. Rotations: one rori with Zbb, sll/srl/or on RV32I (ROTL_IMM).
 * Constant time: no secret-dependent branch or address.
 *
 * Registers (all caller-saved; a0 = rk, a1 = key):
 *   LEA-128: T0..T3 = t0..t3, c = a2 (round constant), u = a3 (scratch), p/pend = a4/a5 (table)
 *   LEA-192: T0..T5 = t0..t3, a2, a3, c = a4, u = a5, p/pend = a6/a7
 *   LEA-256: T0..T7 = t0..t3, a2..a5, c = a6, u = a7, p/pend = t4/t5 (four rounds per loop pass:
 *            the words a round updates repeat with period four rounds)
 */
#include "mcucrypt/ns.h"
#include "lea_rv32.inc"

/* .word ROL(delta[m], r) for the eight published constants delta[0..7]. */
.macro LEA_CONSTANT m, r
    .if (\m) == 0
        .set .Lks_d, 0xc3efe9db
    .elseif (\m) == 1
        .set .Lks_d, 0x44626b02
    .elseif (\m) == 2
        .set .Lks_d, 0x79e27c8a
    .elseif (\m) == 3
        .set .Lks_d, 0x78df30ec
    .elseif (\m) == 4
        .set .Lks_d, 0x715ea49e
    .elseif (\m) == 5
        .set .Lks_d, 0xc785da0a
    .elseif (\m) == 6
        .set .Lks_d, 0xe04ef22a
    .else
        .set .Lks_d, 0xe5c40957
    .endif
    .if ((\r) % 32) == 0
        .word .Lks_d
    .else
        .word ((.Lks_d << ((\r) % 32)) | (.Lks_d >> (32 - ((\r) % 32)))) & 0xffffffff
    .endif
.endm

/* The table of round constants ROL(delta[i mod n], i), i = 0..rounds-1. */
.macro LEA_CONSTANTS label, n, rounds
    .section .rodata.\label, "a", @progbits
    .p2align 2
\label:
    .set .Lks_i, 0
    .rept \rounds
        LEA_CONSTANT (.Lks_i % \n), .Lks_i
        .set .Lks_i, .Lks_i + 1
    .endr
.endm

/* Load key word w (little-endian, any alignment) into rd; u, v, x scratch. The four LBU come first
 * so no LBU result (latency 3) is waited for. */
.macro KEYWORD rd, w, u, v, x
    lbu     \rd, (4 * (\w))(a1)
    lbu     \u, (4 * (\w) + 1)(a1)
    lbu     \v, (4 * (\w) + 2)(a1)
    lbu     \x, (4 * (\w) + 3)(a1)
    slli    \u, \u, 8
    or      \rd, \rd, \u
    slli    \v, \v, 16
    or      \rd, \rd, \v
    slli    \x, \x, 24
    or      \rd, \rd, \x
.endm

/* ------------------------------------------------------------------------------------------------ */
LEA_CONSTANTS .Llea128_ks_const, 4, 24

FUNC MCU_FN(lea128, keyschedule)
    KEYWORD t0, 0, a3, a4, a5
    KEYWORD t1, 1, a3, a4, a5
    KEYWORD t2, 2, a3, a4, a5
    KEYWORD t3, 3, a3, a4, a5
    la      a4, .Llea128_ks_const
    addi    a5, a4, 4 * 24
.Llea128_ks_round:
    lw      a2, 0(a4)               /* c = ROL(delta[i mod 4], i) */
    addi    a4, a4, 4
    add     t0, t0, a2
    ROTL_IMM    t0, t0, 1, a3
    ROTL_IMM    a2, a2, 1, a3           /* ROL(delta, i + 1) */
    add     t1, t1, a2
    ROTL_IMM    t1, t1, 3, a3
    ROTL_IMM    a2, a2, 1, a3
    add     t2, t2, a2
    ROTL_IMM    t2, t2, 6, a3
    ROTL_IMM    a2, a2, 1, a3
    add     t3, t3, a2
    ROTL_IMM    t3, t3, 11, a3
    sw      t0, 0(a0)
    sw      t1, 4(a0)
    sw      t2, 8(a0)
#if LEA_RK_COMPACT
    sw      t3, 12(a0)
    addi    a0, a0, 16
#else
    sw      t1, 12(a0)
    sw      t3, 16(a0)
    sw      t1, 20(a0)
    addi    a0, a0, 24
#endif
    bne     a4, a5, .Llea128_ks_round
    ret
ENDFUNC MCU_FN(lea128, keyschedule)

/* ------------------------------------------------------------------------------------------------ */
LEA_CONSTANTS .Llea192_ks_const, 6, 28

/* One update of LEA-192/256: t = ROL(t + c, s), store at off(a0), then c = ROL(c, 1) unless last. */
.macro KS_STEP t, s, off, c, u, last=0
    add     \t, \t, \c
    ROTL_IMM    \t, \t, \s, \u
    sw      \t, \off(a0)
  .if !\last
    ROTL_IMM    \c, \c, 1, \u
  .endif
.endm

FUNC MCU_FN(lea192, keyschedule)
    KEYWORD t0, 0, a5, a6, a7
    KEYWORD t1, 1, a5, a6, a7
    KEYWORD t2, 2, a5, a6, a7
    KEYWORD t3, 3, a5, a6, a7
    KEYWORD a2, 4, a5, a6, a7
    KEYWORD a3, 5, a5, a6, a7
    la      a6, .Llea192_ks_const
    addi    a7, a6, 4 * 28
.Llea192_ks_round:
    lw      a4, 0(a6)
    addi    a6, a6, 4
    KS_STEP t0, 1, 0, a4, a5
    KS_STEP t1, 3, 4, a4, a5
    KS_STEP t2, 6, 8, a4, a5
    KS_STEP t3, 11, 12, a4, a5
    KS_STEP a2, 13, 16, a4, a5
    KS_STEP a3, 17, 20, a4, a5, 1
    addi    a0, a0, 24
    bne     a6, a7, .Llea192_ks_round
    ret
ENDFUNC MCU_FN(lea192, keyschedule)

/* ------------------------------------------------------------------------------------------------ */
LEA_CONSTANTS .Llea256_ks_const, 8, 32

/* Round q (0..3) of a four-round pass of LEA-256: words (6q + j) mod 8, j = 0..5, given in order. */
.macro KS256_ROUND q, w0, w1, w2, w3, w4, w5
    lw      a6, (4 * \q)(t4)
    KS_STEP \w0, 1, (24 * \q + 0), a6, a7
    KS_STEP \w1, 3, (24 * \q + 4), a6, a7
    KS_STEP \w2, 6, (24 * \q + 8), a6, a7
    KS_STEP \w3, 11, (24 * \q + 12), a6, a7
    KS_STEP \w4, 13, (24 * \q + 16), a6, a7
    KS_STEP \w5, 17, (24 * \q + 20), a6, a7, 1
.endm

FUNC MCU_FN(lea256, keyschedule)
    KEYWORD t0, 0, a7, t4, t5
    KEYWORD t1, 1, a7, t4, t5
    KEYWORD t2, 2, a7, t4, t5
    KEYWORD t3, 3, a7, t4, t5
    KEYWORD a2, 4, a7, t4, t5
    KEYWORD a3, 5, a7, t4, t5
    KEYWORD a4, 6, a7, t4, t5
    KEYWORD a5, 7, a7, t4, t5
    la      t4, .Llea256_ks_const
    addi    t5, t4, 4 * 32
.Llea256_ks_pass:
    /* T0..T7 = t0 t1 t2 t3 a2 a3 a4 a5 */
    KS256_ROUND 0, t0, t1, t2, t3, a2, a3
    KS256_ROUND 1, a4, a5, t0, t1, t2, t3
    KS256_ROUND 2, a2, a3, a4, a5, t0, t1
    KS256_ROUND 3, t2, t3, a2, a3, a4, a5
    addi    t4, t4, 16
    addi    a0, a0, 96
    bne     t4, t5, .Llea256_ks_pass
    ret
ENDFUNC MCU_FN(lea256, keyschedule)
