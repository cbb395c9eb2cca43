/* SPDX-License-Identifier: MIT */
/* PIPO-64/128 and PIPO-64/256 after paper 002 (Kwak, Kim, Seo), Sect. 5.3 and Table 5: RV32I only,
 * the eight state bytes in eight registers, bitsliced S-layer, R-layer rotations built from masks and
 * shifts, and the key schedule fused into encryption (the master key stays in registers and round key i
 * is formed on the fly as K[i mod 2] with i, held in s10, xored into row 0).
 *
 *   void mcu_<id>_rv32_paper_keyschedule(uint32_t *rk, const uint8_t *key)  rk = a copy of the key
 *   void mcu_<id>_rv32_paper_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_rv32_paper_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *
 * Register map (the paper's Table 5, with our API's three pointers):
 *   a0 = out, a1 = in, a2 = rk (the master key), a3 = round count at which the loop stops
 *   s2..s9    rows P[0..7], one byte each (bits 8..31 hold garbage, see below)
 *   s10       Rcon: the round number i
 *   a4 a5     K0 (key bytes 0..3, 4..7)   a6 a7  K1 (bytes 8..15)
 *   t0 t1     K2, t2 a1  K3 (PIPO-64/256 only; a1 once the block is loaded)
 *   t3 t4 t5  scratch
 * s2..s10 are callee-saved: saved on entry (48 bytes of stack), restored on exit.
 *
 * Row j's key byte is byte j mod 4 of a key word, taken with one srli (none for byte 0) and xored in
 * without masking: the bits above 7 of a row are garbage that no instruction ever moves down (the
 * S-layer is bitwise, the masked rotation keeps only bits 0..7, sb stores only bits 0..7).
 * The masked rotation (the paper's example: ROTL3 of 10011111 = ((x & 0xE0) >> 5) | ((x & 0x1F) << 3))
 * takes 5 instructions; its last instruction, or the key xor of row 0 (which is not rotated), writes
 * each row back to its home register, so the S-layer's output permutation costs nothing and a loop
 * pass (two rounds, K1 then K0; four for PIPO-64/256) ends with every row where it started.
 * A round: 34 (S-layer) + 35 (R-layer) + 15 (key) + 1 (Rcon) = 85 instructions.
 * Bitsliced, no table, no secret-dependent branch or address: constant time on every core.
 */
#include "mcucrypt/ns.h"
#include "pipo_rv32.inc"

#define P0 s2
#define P1 s3
#define P2 s4
#define P3 s5
#define P4 s6
#define P5 s7
#define P6 s8
#define P7 s9
#define RCON s10
#define TA t3
#define TB t4
#define TC t5

/* Split row src for a rotation left by r: hi = (src & top r bits) >> (8 - r) in hi,
 * lo = (src & low 8 - r bits) << r in lo (lo may be src). */
.macro ROT_PARTS hi, lo, src, r
    andi    \hi, \src, ((0xff << (8 - (\r))) & 0xff)
    andi    \lo, \src, (0xff >> (\r))
    srli    \hi, \hi, (8 - (\r))
    slli    \lo, \lo, \r
.endm

/* dst = src rotated left by r within its byte (src clobbered; dst may be src). */
.macro ROT_MASKED dst, src, r, tmp
    ROT_PARTS \tmp, \src, \src, \r
    or      \dst, \src, \tmp
.endm

/* dst = src ^ (byte b of key word w) (garbage above bit 7). */
.macro XKEY dst, src, w, b, tmp
  .if \b == 0
    xor     \dst, \src, \w
  .else
    srli    \tmp, \w, (8 * (\b))
    xor     \dst, \src, \tmp
  .endif
.endm

.macro SAVE_PAPER
    addi    sp, sp, -48
    sw      s2, 0(sp)
    sw      s3, 4(sp)
    sw      s4, 8(sp)
    sw      s5, 12(sp)
    sw      s6, 16(sp)
    sw      s7, 20(sp)
    sw      s8, 24(sp)
    sw      s9, 28(sp)
    sw      s10, 32(sp)
.endm

.macro RESTORE_PAPER
    lw      s2, 0(sp)
    lw      s3, 4(sp)
    lw      s4, 8(sp)
    lw      s5, 12(sp)
    lw      s6, 16(sp)
    lw      s7, 20(sp)
    lw      s8, 24(sp)
    lw      s9, 28(sp)
    lw      s10, 32(sp)
    addi    sp, sp, 48
    ret
.endm

/* Whitening (round key 0 = K0, no round constant) on rows in r0..r7. */
.macro WHITEN r0, r1, r2, r3, r4, r5, r6, r7
    XKEY    \r0, \r0, a4, 0, TA
    XKEY    \r1, \r1, a4, 1, TA
    XKEY    \r2, \r2, a4, 2, TA
    XKEY    \r3, \r3, a4, 3, TA
    XKEY    \r4, \r4, a5, 0, TA
    XKEY    \r5, \r5, a5, 1, TA
    XKEY    \r6, \r6, a5, 2, TA
    XKEY    \r7, \r7, a5, 3, TA
.endm

/* One encryption round with round key (lo, hi) ^ RCON, rows in P0..P7 before and after. */
.macro ROUND_ENC lo, hi
    SBOX_FWD P0, P1, P2, P3, P4, P5, P6, P7, TA, TB, TC
    /* y0 P7, y1 P0, y2 P2, y3 P6, y4 P5, y5 P4, y6 P3, y7 P1: rotate, key, move home */
    ROT_MASKED P2, P2, 4, TA                /* row 2 */
    XKEY    P2, P2, \lo, 2, TB
    ROT_MASKED TA, P6, 3, TB                /* row 3 (from P6) */
    ROT_MASKED P6, P3, 1, TB                /* row 6 (from P3) */
    XKEY    P3, TA, \lo, 3, TB
    XKEY    P6, P6, \hi, 2, TB
    ROT_MASKED TA, P5, 6, TB                /* row 4 (from P5) */
    ROT_MASKED P5, P4, 5, TB                /* row 5 (from P4) */
    XKEY    P4, TA, \hi, 0, TB
    XKEY    P5, P5, \hi, 1, TB
    ROT_MASKED TA, P1, 2, TB                /* row 7 (from P1) */
    ROT_MASKED P1, P0, 7, TB                /* row 1 (from P0) */
    XKEY    P1, P1, \lo, 1, TB
    xor     P0, P7, \lo                     /* row 0 (from P7), key byte 0 */
    xor     P0, P0, RCON                    /* and the round constant */
    XKEY    P7, TA, \hi, 3, TB
.endm

/* One decryption round with round key (lo, hi) ^ RCON. Rows before: x0 P1, x1 P7, x2 P2, x3 P6,
 * x4 P5, x5 P4, x6 P3, x7 P0 (where the inverse S-layer leaves them); after: the same. */
.macro ROUND_DEC lo, hi
    XKEY    P7, P7, \lo, 1, TA              /* key, rows 1..7 in place */
    XKEY    P2, P2, \lo, 2, TA
    XKEY    P6, P6, \lo, 3, TA
    XKEY    P5, P5, \hi, 0, TA
    XKEY    P4, P4, \hi, 1, TA
    XKEY    P3, P3, \hi, 2, TA
    XKEY    P0, P0, \hi, 3, TA
    /* inverse R-layer (rotations by 8 - r), each row to its home register */
    ROT_MASKED P2, P2, 4, TA                /* row 2 */
    ROT_PARTS TA, TB, P6, 5                 /* row 3 (from P6) */
    ROT_MASKED P6, P3, 7, TC                /* row 6 (from P3) */
    or      P3, TA, TB
    ROT_PARTS TA, TB, P5, 2                 /* row 4 (from P5) */
    ROT_MASKED P5, P4, 3, TC                /* row 5 (from P4) */
    or      P4, TA, TB
    ROT_PARTS TA, TB, P0, 6                 /* row 7 (from P0) */
    xor     P0, P1, \lo                     /* row 0 (from P1), key byte 0 */
    xor     P0, P0, RCON
    ROT_MASKED P1, P7, 1, TC                /* row 1 (from P7) */
    or      P7, TA, TB
    SBOX_INV P0, P1, P2, P3, P4, P5, P6, P7, TA, TB, TC
.endm

/* Load the block: byte j into register rj. */
.macro LOAD_BYTES r0, r1, r2, r3, r4, r5, r6, r7
    lbu     \r0, 0(a1)
    lbu     \r1, 1(a1)
    lbu     \r2, 2(a1)
    lbu     \r3, 3(a1)
    lbu     \r4, 4(a1)
    lbu     \r5, 5(a1)
    lbu     \r6, 6(a1)
    lbu     \r7, 7(a1)
.endm

.macro STORE_BYTES r0, r1, r2, r3, r4, r5, r6, r7
    sb      \r0, 0(a0)
    sb      \r1, 1(a0)
    sb      \r2, 2(a0)
    sb      \r3, 3(a0)
    sb      \r4, 4(a0)
    sb      \r5, 5(a0)
    sb      \r6, 6(a0)
    sb      \r7, 7(a0)
.endm

/* The key words (rk holds the key, word aligned). */
.macro LOAD_KEY128
    lw      a4, 0(a2)
    lw      a5, 4(a2)
    lw      a6, 8(a2)
    lw      a7, 12(a2)
.endm

.macro LOAD_KEY256
    LOAD_KEY128
    lw      t0, 16(a2)
    lw      t1, 20(a2)
    lw      t2, 24(a2)
    lw      a1, 28(a2)
.endm

/* ---- key schedule: the round keys are formed during encryption, so rk is the key itself -------- */

.macro COPY_KEY name, bytes
    addi    t0, a1, \bytes
.L\name\()_copy:
    lbu     t1, 0(a1)
    addi    a1, a1, 1
    sb      t1, 0(a0)
    addi    a0, a0, 1
    bne     a1, t0, .L\name\()_copy
    ret
.endm

FUNC MCU_FN(pipo64_128, keyschedule)
    COPY_KEY pipo128_ks, 16
ENDFUNC MCU_FN(pipo64_128, keyschedule)

FUNC MCU_FN(pipo64_256, keyschedule)
    COPY_KEY pipo256_ks, 32
ENDFUNC MCU_FN(pipo64_256, keyschedule)

/* ---- PIPO-64/128 ------------------------------------------------------------------------------- */

FUNC MCU_FN(pipo64_128, encrypt)
    SAVE_PAPER
    LOAD_BYTES P0, P1, P2, P3, P4, P5, P6, P7
    LOAD_KEY128
    WHITEN  P0, P1, P2, P3, P4, P5, P6, P7
    li      RCON, 1
    li      a3, 13
.Lpipo128_enc_pass:                         /* rounds RCON (K1) and RCON + 1 (K0) */
    ROUND_ENC a6, a7
    addi    RCON, RCON, 1
    ROUND_ENC a4, a5
    addi    RCON, RCON, 1
    bne     RCON, a3, .Lpipo128_enc_pass
    ROUND_ENC a6, a7                        /* round 13 */
    STORE_BYTES P0, P1, P2, P3, P4, P5, P6, P7
    RESTORE_PAPER
ENDFUNC MCU_FN(pipo64_128, encrypt)

FUNC MCU_FN(pipo64_128, decrypt)
    SAVE_PAPER
    LOAD_BYTES P1, P7, P2, P6, P5, P4, P3, P0
    LOAD_KEY128
    li      RCON, 13
    ROUND_DEC a6, a7                        /* round 13 */
    addi    RCON, RCON, -1
.Lpipo128_dec_pass:                         /* rounds RCON (K0) and RCON - 1 (K1) */
    ROUND_DEC a4, a5
    addi    RCON, RCON, -1
    ROUND_DEC a6, a7
    addi    RCON, RCON, -1
    bnez    RCON, .Lpipo128_dec_pass
    WHITEN  P1, P7, P2, P6, P5, P4, P3, P0
    STORE_BYTES P1, P7, P2, P6, P5, P4, P3, P0
    RESTORE_PAPER
ENDFUNC MCU_FN(pipo64_128, decrypt)

/* ---- PIPO-64/256: K0 a4 a5, K1 a6 a7, K2 t0 t1, K3 t2 a1 ---------------------------------------- */

FUNC MCU_FN(pipo64_256, encrypt)
    SAVE_PAPER
    LOAD_BYTES P0, P1, P2, P3, P4, P5, P6, P7
    LOAD_KEY256
    WHITEN  P0, P1, P2, P3, P4, P5, P6, P7
    li      RCON, 1
    li      a3, 17
.Lpipo256_enc_pass:                         /* rounds RCON .. RCON + 3: K1 K2 K3 K0 */
    ROUND_ENC a6, a7
    addi    RCON, RCON, 1
    ROUND_ENC t0, t1
    addi    RCON, RCON, 1
    ROUND_ENC t2, a1
    addi    RCON, RCON, 1
    ROUND_ENC a4, a5
    addi    RCON, RCON, 1
    bne     RCON, a3, .Lpipo256_enc_pass
    ROUND_ENC a6, a7                        /* round 17 */
    STORE_BYTES P0, P1, P2, P3, P4, P5, P6, P7
    RESTORE_PAPER
ENDFUNC MCU_FN(pipo64_256, encrypt)

FUNC MCU_FN(pipo64_256, decrypt)
    SAVE_PAPER
    LOAD_BYTES P1, P7, P2, P6, P5, P4, P3, P0
    LOAD_KEY256
    li      RCON, 17
    ROUND_DEC a6, a7                        /* round 17 */
    addi    RCON, RCON, -1
.Lpipo256_dec_pass:                         /* rounds RCON .. RCON - 3: K0 K3 K2 K1 */
    ROUND_DEC a4, a5
    addi    RCON, RCON, -1
    ROUND_DEC t2, a1
    addi    RCON, RCON, -1
    ROUND_DEC t0, t1
    addi    RCON, RCON, -1
    ROUND_DEC a6, a7
    addi    RCON, RCON, -1
    bnez    RCON, .Lpipo256_dec_pass
    WHITEN  P1, P7, P2, P6, P5, P4, P3, P0
    STORE_BYTES P1, P7, P2, P6, P5, P4, P3, P0
    RESTORE_PAPER
ENDFUNC MCU_FN(pipo64_256, decrypt)
