/* SPDX-License-Identifier: MIT */
/* LEA encryption and decryption, fully unrolled: rv32-fast (RV32IMAC, rotations from slli/srli/or) and
 * rv32-zbb (the same schedule with one rori per rotation), assembled from this one source.
 *
 *   void mcu_<id>_<impl>_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_<impl>_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *
 * Register map (caller-saved registers only, so nothing is saved or restored):
 *   a0 = out, a1 = in, a2 = rk (never advanced: every round-key offset is an immediate)
 *   t0..t3        the four state words; a round leaves its three new words where the words it no longer
 *                 needs were, so the state moves round to round as (x0,x1,x2,x3) -> (x1,x2,x3,x0)
 *                 (decryption: -> (x3,x0,x1,x2)) and four unrolled rounds bring it back: no moves
 *   a3..a7, t4    round-key words K0..K5 of the current round (LEA-128 with the compact layout of
 *                 lea_ks.S: a3..a6 = T0..T3, T1 serving as K1, K3 and K5)
 *   t5, t6        scratch
 * Paper 002 (Sect. 5.2) keeps the four state words and six round-key words in registers and builds
 * rotations from sll/srl/or; this goes further: every round is unrolled (no loop counter, no pointer
 * update), LEA-128 loads four round-key words instead of six, and the next round's keys are loaded as
 * soon as the current round has used a register, so no load result is waited for (LW latency 2 on the
 * E31). Per round: LEA-128 22 instructions (16 with Zbb), LEA-192/256 24 (18).
 * ARX only: constant time on every core.
 */
#include "mcucrypt/ns.h"
#include "lea_rv32.inc"

#if LEA_RK_COMPACT != 1
#error "lea_unrolled.S reads the compact LEA-128 round keys: build it with LEA_RK_COMPACT=1"
#endif

/* ---- encryption --------------------------------------------------------------------------------- */

/* LEA-128 round, compact keys T0..T3 in a3..a6: new x1 = ROL9((x0^T0) + (x1^T1)),
 * new x2 = ROR5((x1^T2) + (x2^T1)), new x3 = ROR3((x2^T3) + (x3^T1)); computed last word first so each
 * result can overwrite a word no longer needed. nx = offset of the next round's keys, load = 0 in the
 * last round. */
.macro ENC128_ROUND x0, x1, x2, x3, nx, load
    xor     t5, \x2, a6
    xor     \x3, \x3, a4
  .if \load
    lw      a6, (\nx + 12)(a2)
  .endif
    add     t5, t5, \x3
    ROTR_IMM    \x3, t5, 3, t6
    xor     t5, \x1, a5
    xor     t6, \x2, a4
  .if \load
    lw      a5, (\nx + 8)(a2)
  .endif
    add     t5, t5, t6
    ROTR_IMM    \x2, t5, 5, t6
    xor     t5, \x0, a3
    xor     t6, \x1, a4
  .if \load
    lw      a3, (\nx)(a2)
    lw      a4, (\nx + 4)(a2)
  .endif
    add     t5, t5, t6
    ROTL_IMM    \x1, t5, 9, t6
.endm

/* LEA-192/256 round, keys K0..K5 in a3..a7, t4. */
.macro ENC_ROUND x0, x1, x2, x3, nx, load
    xor     t5, \x2, a7
    xor     \x3, \x3, t4
  .if \load
    lw      a7, (\nx + 16)(a2)
    lw      t4, (\nx + 20)(a2)
  .endif
    add     t5, t5, \x3
    ROTR_IMM    \x3, t5, 3, t6
    xor     t5, \x1, a5
    xor     t6, \x2, a6
  .if \load
    lw      a5, (\nx + 8)(a2)
    lw      a6, (\nx + 12)(a2)
  .endif
    add     t5, t5, t6
    ROTR_IMM    \x2, t5, 5, t6
    xor     t5, \x0, a3
    xor     t6, \x1, a4
  .if \load
    lw      a3, (\nx)(a2)
    lw      a4, (\nx + 4)(a2)
  .endif
    add     t5, t5, t6
    ROTL_IMM    \x1, t5, 9, t6
.endm

/* Four rounds starting with the keys at off (already in registers); stride = bytes of keys per round;
 * last = 1 when these are the final four rounds (nothing more to load). */
.macro ENC4 round, off, stride, last
    \round  t0, t1, t2, t3, (\off + 1 * \stride), 1
    \round  t1, t2, t3, t0, (\off + 2 * \stride), 1
    \round  t2, t3, t0, t1, (\off + 3 * \stride), 1
    \round  t3, t0, t1, t2, (\off + 4 * \stride), !\last
.endm

/* A whole encryption of `rounds` rounds (a multiple of 4). */
.macro ENCRYPT name, round, stride, rounds
    LOAD_BLOCK \name, a1, t0, t1, t2, t3, t5
    lw      a3, 0(a2)
    lw      a4, 4(a2)
    lw      a5, 8(a2)
    lw      a6, 12(a2)
  .if \stride == 24
    lw      a7, 16(a2)
    lw      t4, 20(a2)
  .endif
    .set .Lenc_off, 0
    .rept (\rounds / 4) - 1
        ENC4 \round, .Lenc_off, \stride, 0
        .set .Lenc_off, .Lenc_off + 4 * \stride
    .endr
    ENC4 \round, .Lenc_off, \stride, 1
    STORE_BLOCK \name, a0, t0, t1, t2, t3, t5
    ret
.endm

FUNC MCU_FN(lea128, encrypt)
    ENCRYPT lea128_enc, ENC128_ROUND, 16, 24
ENDFUNC MCU_FN(lea128, encrypt)

FUNC MCU_FN(lea192, encrypt)
    ENCRYPT lea192_enc, ENC_ROUND, 24, 28
ENDFUNC MCU_FN(lea192, encrypt)

FUNC MCU_FN(lea256, encrypt)
    ENCRYPT lea256_enc, ENC_ROUND, 24, 32
ENDFUNC MCU_FN(lea256, encrypt)

/* ---- decryption --------------------------------------------------------------------------------- */

/* LEA-128 inverse round (compact keys T0..T3 in a3..a6): with p0 = x3,
 * p1 = (ROR9(x0) - (p0^T0)) ^ T1, p2 = (ROL5(x1) - (p1^T2)) ^ T1, p3 = (ROL3(x2) - (p2^T3)) ^ T1,
 * each p overwriting the word it came from; the state becomes (x3,x0,x1,x2). nx = offset of the keys
 * of the round decrypted next (the previous encryption round). T1 is needed to the end, so it is
 * reloaded last. */
.macro DEC128_ROUND x0, x1, x2, x3, nx, load
    ROTR_IMM    \x0, \x0, 9, t5
    xor     t5, \x3, a3
    sub     \x0, \x0, t5
    xor     \x0, \x0, a4
  .if \load
    lw      a3, (\nx)(a2)
  .endif
    ROTL_IMM    \x1, \x1, 5, t5
    xor     t5, \x0, a5
    sub     \x1, \x1, t5
    xor     \x1, \x1, a4
  .if \load
    lw      a5, (\nx + 8)(a2)
  .endif
    ROTL_IMM    \x2, \x2, 3, t5
    xor     t5, \x1, a6
    sub     \x2, \x2, t5
    xor     \x2, \x2, a4
  .if \load
    lw      a6, (\nx + 12)(a2)
    lw      a4, (\nx + 4)(a2)
  .endif
.endm

/* LEA-192/256 inverse round, keys K0..K5 in a3..a7, t4. */
.macro DEC_ROUND x0, x1, x2, x3, nx, load
    ROTR_IMM    \x0, \x0, 9, t5
    xor     t5, \x3, a3
    sub     \x0, \x0, t5
    xor     \x0, \x0, a4
  .if \load
    lw      a3, (\nx)(a2)
    lw      a4, (\nx + 4)(a2)
  .endif
    ROTL_IMM    \x1, \x1, 5, t5
    xor     t5, \x0, a5
    sub     \x1, \x1, t5
    xor     \x1, \x1, a6
  .if \load
    lw      a5, (\nx + 8)(a2)
    lw      a6, (\nx + 12)(a2)
  .endif
    ROTL_IMM    \x2, \x2, 3, t5
    xor     t5, \x1, a7
    sub     \x2, \x2, t5
    xor     \x2, \x2, t4
  .if \load
    lw      a7, (\nx + 16)(a2)
    lw      t4, (\nx + 20)(a2)
  .endif
.endm

/* Four inverse rounds starting with the keys at off (in registers), going down by stride. */
.macro DEC4 round, off, stride, last
    \round  t0, t1, t2, t3, (\off - 1 * \stride), 1
    \round  t3, t0, t1, t2, (\off - 2 * \stride), 1
    \round  t2, t3, t0, t1, (\off - 3 * \stride), 1
    \round  t1, t2, t3, t0, (\off - 4 * \stride), !\last
.endm

.macro DECRYPT name, round, stride, rounds
    LOAD_BLOCK \name, a1, t0, t1, t2, t3, t5
    .set .Ldec_off, (\rounds - 1) * \stride
    lw      a3, (.Ldec_off + 0)(a2)
    lw      a4, (.Ldec_off + 4)(a2)
    lw      a5, (.Ldec_off + 8)(a2)
    lw      a6, (.Ldec_off + 12)(a2)
  .if \stride == 24
    lw      a7, (.Ldec_off + 16)(a2)
    lw      t4, (.Ldec_off + 20)(a2)
  .endif
    .rept (\rounds / 4) - 1
        DEC4 \round, .Ldec_off, \stride, 0
        .set .Ldec_off, .Ldec_off - 4 * \stride
    .endr
    DEC4 \round, .Ldec_off, \stride, 1
    STORE_BLOCK \name, a0, t0, t1, t2, t3, t5
    ret
.endm

FUNC MCU_FN(lea128, decrypt)
    DECRYPT lea128_dec, DEC128_ROUND, 16, 24
ENDFUNC MCU_FN(lea128, decrypt)

FUNC MCU_FN(lea192, decrypt)
    DECRYPT lea192_dec, DEC_ROUND, 24, 28
ENDFUNC MCU_FN(lea192, decrypt)

FUNC MCU_FN(lea256, decrypt)
    DECRYPT lea256_dec, DEC_ROUND, 24, 32
ENDFUNC MCU_FN(lea256, decrypt)
