/* SPDX-License-Identifier: MIT */
/* PIPO-64/128 and PIPO-64/256, one block: rv32-fast (RV32IMAC, byte form) and rv32-zbb (Zbb+Zbkb,
 * nibble form), assembled from this one source (the row form is chosen in pipo_rv32.inc).
 *
 *   void mcu_<id>_<impl>_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_<impl>_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *
 * rk is written by pipo_ks.S in the row form: PIPO-64/128: words 0..13 row 0 of round keys 0..13
 * (K[i mod 2] row 0 xor i), words 14..20 rows 1..7 of K0, words 21..27 rows 1..7 of K1;
 * PIPO-64/256: words 8q..8q+7 rows 0..7 of K[q], the round constant being added here.
 *
 * Paper 002 (Sect. 5.3) keeps the eight state bytes in registers and builds each row rotation from
 * masks and shifts (5 instructions). Here a row is a 32-bit word with period 8 (pipo_rv32.inc), so the
 * R-layer is seven plain word rotations: 21 instructions a round on RV32I, 7 with Zbb. The S-layer is
 * the 34-instruction circuit of pipo_rv32.inc (33 with Zbb), all rounds are unrolled, and the rows are
 * renamed round to round instead of moved (the ENC/DEC macros recurse with the permuted register
 * list). PIPO-64/128 keeps the fourteen key rows 1..7 in registers for the whole block and loads only
 * row 0 of each round key (which carries the round constant): a round is 34 + 21 + 8 + 1 = 64
 * instructions on RV32I (49 with Zbb). Bitsliced, no table, no secret-dependent branch or address:
 * constant time on every core.
 *
 * Register map, PIPO-64/128:
 *   a0 = out, a2 = rk, a1 = in (then row 7)
 *   rows      t0 t1 t2 t3 t4 t5 t6 a1 (at entry; renamed every round)
 *   K0 rows 1..7  a3 a4 a5 a6 a7 s0 s1        K1 rows 1..7  s2 s3 s4 s5 s6 s7 s8
 *   scratch   s9 s10 s11 (S-layer), s10 also holds the row-0 round key
 *   s0..s11 are saved on the stack (48 bytes).
 * PIPO-64/256: rows as above, key rows loaded each round into a3..a7 (no callee-saved register).
 */
#include "mcucrypt/ns.h"
#include "pipo_rv32.inc"

#define K0_1 a3
#define K0_2 a4
#define K0_3 a5
#define K0_4 a6
#define K0_5 a7
#define K0_6 s0
#define K0_7 s1
#define K1_1 s2
#define K1_2 s3
#define K1_3 s4
#define K1_4 s5
#define K1_5 s6
#define K1_6 s7
#define K1_7 s8
#define SA s9
#define SB s10
#define SC s11

/* rk word offsets (PIPO-64/128) */
#define RK128_ROW0(i) (4 * (i))
#define RK128_K0 (4 * 14 - 4)           /* K0 row j at RK128_K0 + 4j, j = 1..7 */
#define RK128_K1 (4 * 21 - 4)

.macro SAVE_S
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
    sw      s10, 40(sp)
    sw      s11, 44(sp)
.endm

.macro RESTORE_S
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
    lw      s10, 40(sp)
    lw      s11, 44(sp)
    addi    sp, sp, 48
.endm

/* Load the 14 key rows 1..7 of K0 and K1 (PIPO-64/128). */
.macro LOAD_KEYS128
    lw      K0_1, (RK128_K0 + 4)(a2)
    lw      K0_2, (RK128_K0 + 8)(a2)
    lw      K0_3, (RK128_K0 + 12)(a2)
    lw      K0_4, (RK128_K0 + 16)(a2)
    lw      K0_5, (RK128_K0 + 20)(a2)
    lw      K0_6, (RK128_K0 + 24)(a2)
    lw      K0_7, (RK128_K0 + 28)(a2)
    lw      K1_1, (RK128_K1 + 4)(a2)
    lw      K1_2, (RK128_K1 + 8)(a2)
    lw      K1_3, (RK128_K1 + 12)(a2)
    lw      K1_4, (RK128_K1 + 16)(a2)
    lw      K1_5, (RK128_K1 + 20)(a2)
    lw      K1_6, (RK128_K1 + 24)(a2)
    lw      K1_7, (RK128_K1 + 28)(a2)
.endm

/* Load the block into rows t0..t6, a1 in row form (a1 = in is the last one loaded). */
.macro LOAD_ROWS tmp
    lbu     t0, 0(a1)
    lbu     t1, 1(a1)
    lbu     t2, 2(a1)
    lbu     t3, 3(a1)
    lbu     t4, 4(a1)
    lbu     t5, 5(a1)
    lbu     t6, 6(a1)
    lbu     a1, 7(a1)
    ROW_SPREAD t0, \tmp
    ROW_SPREAD t1, \tmp
    ROW_SPREAD t2, \tmp
    ROW_SPREAD t3, \tmp
    ROW_SPREAD t4, \tmp
    ROW_SPREAD t5, \tmp
    ROW_SPREAD t6, \tmp
    ROW_SPREAD a1, \tmp
.endm

.macro STORE_ROWS r0, r1, r2, r3, r4, r5, r6, r7
    ROW_STORE \r0, 0, a0
    ROW_STORE \r1, 1, a0
    ROW_STORE \r2, 2, a0
    ROW_STORE \r3, 3, a0
    ROW_STORE \r4, 4, a0
    ROW_STORE \r5, 5, a0
    ROW_STORE \r6, 6, a0
    ROW_STORE \r7, 7, a0
.endm

/* Rows 1..7 ^= rows 1..7 of K[q] (PIPO-64/128: q = 0 or 1, from registers). */
.macro XOR_KEY128 q, r1, r2, r3, r4, r5, r6, r7
  .if \q == 0
    xor     \r1, \r1, K0_1
    xor     \r2, \r2, K0_2
    xor     \r3, \r3, K0_3
    xor     \r4, \r4, K0_4
    xor     \r5, \r5, K0_5
    xor     \r6, \r6, K0_6
    xor     \r7, \r7, K0_7
  .else
    xor     \r1, \r1, K1_1
    xor     \r2, \r2, K1_2
    xor     \r3, \r3, K1_3
    xor     \r4, \r4, K1_4
    xor     \r5, \r5, K1_5
    xor     \r6, \r6, K1_6
    xor     \r7, \r7, K1_7
  .endif
.endm

/* Rows 0..7 ^= round key i of PIPO-64/256 (K[i mod 4] from rk, round constant into row 0);
 * k1..k3 scratch, loaded three ahead so no load result is waited for. */
.macro XOR_KEY256 i, r0, r1, r2, r3, r4, r5, r6, r7, k1, k2, k3
    .set .Lq, 32 * ((\i) % 4)
    lw      \k1, (.Lq + 0)(a2)
    lw      \k2, (.Lq + 4)(a2)
    lw      \k3, (.Lq + 8)(a2)
    xor     \r0, \r0, \k1
    lw      \k1, (.Lq + 12)(a2)
    xor     \r1, \r1, \k2
    lw      \k2, (.Lq + 16)(a2)
    xor     \r2, \r2, \k3
    lw      \k3, (.Lq + 20)(a2)
    xor     \r3, \r3, \k1
    lw      \k1, (.Lq + 24)(a2)
    xor     \r4, \r4, \k2
    lw      \k2, (.Lq + 28)(a2)
    xor     \r5, \r5, \k3
  .if (\i) != 0
    li      \k3, PIPO_RC(\i)
    xor     \r0, \r0, \k3
  .endif
    xor     \r6, \r6, \k1
    xor     \r7, \r7, \k2
.endm

/* The R-layer on the S-layer's output registers: y1 r0 (rot 7), y2 r2 (4), y3 r6 (3), y4 r5 (6),
 * y5 r4 (5), y6 r3 (1), y7 r1 (2); y0 r7 is not rotated. */
.macro RLAYER r0, r1, r2, r3, r4, r5, r6, tmp
    ROW_ROTL \r0, 7, \tmp
    ROW_ROTL \r2, 4, \tmp
    ROW_ROTL \r6, 3, \tmp
    ROW_ROTL \r5, 6, \tmp
    ROW_ROTL \r4, 5, \tmp
    ROW_ROTL \r3, 1, \tmp
    ROW_ROTL \r1, 2, \tmp
.endm

/* Inverse R-layer on rows x1..x7 in place. */
.macro RLAYER_INV x1, x2, x3, x4, x5, x6, x7, tmp
    ROW_ROTL \x1, 1, \tmp
    ROW_ROTL \x2, 4, \tmp
    ROW_ROTL \x3, 5, \tmp
    ROW_ROTL \x4, 2, \tmp
    ROW_ROTL \x5, 3, \tmp
    ROW_ROTL \x6, 7, \tmp
    ROW_ROTL \x7, 6, \tmp
.endm

/* ---- PIPO-64/128 ------------------------------------------------------------------------------- */

/* Rounds i..13 of encryption, state rows x0..x7 in r0..r7; recurses with the renamed rows. */
.macro ENC128 i, r0, r1, r2, r3, r4, r5, r6, r7
    SBOX_FWD \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, SA, SB, SC
    lw      SB, RK128_ROW0(\i)(a2)
    RLAYER  \r0, \r1, \r2, \r3, \r4, \r5, \r6, SA
    /* new rows 0..7 are r7 r0 r2 r6 r5 r4 r3 r1 */
    xor     \r7, \r7, SB
    XOR_KEY128 (\i % 2), \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .if \i < 13
    ENC128  (\i + 1), \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .else
    STORE_ROWS \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .endif
.endm

FUNC MCU_FN(pipo64_128, encrypt)
    SAVE_S
    LOAD_KEYS128
    LOAD_ROWS SA
    lw      SB, RK128_ROW0(0)(a2)
    xor     t0, t0, SB
    XOR_KEY128 0, t1, t2, t3, t4, t5, t6, a1
    ENC128  1, t0, t1, t2, t3, t4, t5, t6, a1
    RESTORE_S
    ret
ENDFUNC MCU_FN(pipo64_128, encrypt)

/* Rounds i..1 of decryption, rows x0..x7 in r0..r7; then the whitening key and the store. */
.macro DEC128 i, r0, r1, r2, r3, r4, r5, r6, r7
    lw      SB, RK128_ROW0(\i)(a2)
    XOR_KEY128 (\i % 2), \r1, \r2, \r3, \r4, \r5, \r6, \r7
    xor     \r0, \r0, SB
    RLAYER_INV \r1, \r2, \r3, \r4, \r5, \r6, \r7, SA
    SBOX_INV \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, SA, SB, SC
    /* rows 0..7 are now r1 r7 r2 r6 r5 r4 r3 r0 */
  .if \i > 1
    DEC128  (\i - 1), \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .else
    lw      SB, RK128_ROW0(0)(a2)
    xor     \r1, \r1, SB
    XOR_KEY128 0, \r7, \r2, \r6, \r5, \r4, \r3, \r0
    STORE_ROWS \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .endif
.endm

FUNC MCU_FN(pipo64_128, decrypt)
    SAVE_S
    LOAD_KEYS128
    LOAD_ROWS SA
    DEC128  13, t0, t1, t2, t3, t4, t5, t6, a1
    RESTORE_S
    ret
ENDFUNC MCU_FN(pipo64_128, decrypt)

/* ---- PIPO-64/256 ------------------------------------------------------------------------------- */
/* rows t0..t6, a1; S-layer scratch a3 a4 a5; key scratch a5 a6 a7 (after the S-layer). */

.macro ENC256 i, r0, r1, r2, r3, r4, r5, r6, r7
    SBOX_FWD \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, a3, a4, a5
    RLAYER  \r0, \r1, \r2, \r3, \r4, \r5, \r6, a3
    XOR_KEY256 \i, \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1, a5, a6, a7
  .if \i < 17
    ENC256  (\i + 1), \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .else
    STORE_ROWS \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .endif
.endm

FUNC MCU_FN(pipo64_256, encrypt)
    LOAD_ROWS a3
    XOR_KEY256 0, t0, t1, t2, t3, t4, t5, t6, a1, a5, a6, a7
    ENC256  1, t0, t1, t2, t3, t4, t5, t6, a1
    ret
ENDFUNC MCU_FN(pipo64_256, encrypt)

.macro DEC256 i, r0, r1, r2, r3, r4, r5, r6, r7
    XOR_KEY256 \i, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, a5, a6, a7
    RLAYER_INV \r1, \r2, \r3, \r4, \r5, \r6, \r7, a3
    SBOX_INV \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, a3, a4, a5
  .if \i > 1
    DEC256  (\i - 1), \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .else
    XOR_KEY256 0, \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0, a5, a6, a7
    STORE_ROWS \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .endif
.endm

FUNC MCU_FN(pipo64_256, decrypt)
    LOAD_ROWS a3
    DEC256  17, t0, t1, t2, t3, t4, t5, t6, a1
    ret
ENDFUNC MCU_FN(pipo64_256, decrypt)
