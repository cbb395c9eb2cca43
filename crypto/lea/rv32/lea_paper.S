/* SPDX-License-Identifier: MIT */
/* LEA encryption and decryption after paper 002 (Kwak, Kim, Seo), Sect. 5.2 and Table 4: RV32I only,
 * the four state words and the six round-key words of a round in registers, rotations from sll/srl/or
 * (the paper's Fig. 5). rv32-paper reproduces that method; lea_unrolled.S (rv32-fast, rv32-zbb) goes
 * further.
 *
 *   void mcu_<id>_rv32_paper_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_rv32_paper_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *
 * Register map (the paper's Table 4, with our API's three pointers):
 *   a0 = out, a1 = in, a2 = rk (advanced by four rounds per loop pass), a3 = loop end
 *   s2..s5   state words X[0..3]      s6..s11  round keys RK[0..5] of the round
 *   t3, t4   scratch (the paper's t3..t6)
 * s2..s11 are callee-saved: saved on entry, restored on exit (the paper's register choice costs those
 * 20 loads and stores; rv32-fast avoids them with caller-saved registers).
 *
 * A round loads its six round-key words (standard layout, rk[6i + j]) in the order they are used, so
 * no load result is waited for, then computes the three new words last-first: each overwrites a word
 * no longer needed, so the state moves (X0,X1,X2,X3) -> (X1,X2,X3,X0) and a loop pass of four rounds
 * (24, 28 and 32 are multiples of 4) needs no register moves. One round: 6 loads, 6 xor, 3 add and
 * 3 rotations of 3 instructions: 24 instructions. ARX only: constant time on every core.
 */
#include "mcucrypt/ns.h"
#include "lea_rv32.inc"

#if LEA_RK_COMPACT != 0
#error "lea_paper.S reads six round-key words a round: build it with LEA_RK_COMPACT=0"
#endif

.macro PAPER_PROLOGUE
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
    sw      s11, 36(sp)
.endm

.macro PAPER_EPILOGUE
    lw      s2, 0(sp)
    lw      s3, 4(sp)
    lw      s4, 8(sp)
    lw      s5, 12(sp)
    lw      s6, 16(sp)
    lw      s7, 20(sp)
    lw      s8, 24(sp)
    lw      s9, 28(sp)
    lw      s10, 32(sp)
    lw      s11, 36(sp)
    addi    sp, sp, 48
    ret
.endm

/* Encryption round with keys at off(a2): X1' = ROL9((X0^RK0) + (X1^RK1)),
 * X2' = ROR5((X1^RK2) + (X2^RK3)), X3' = ROR3((X2^RK4) + (X3^RK5)), X0'... = X0 (now the last word). */
.macro PAPER_ENC_ROUND x0, x1, x2, x3, off
    lw      s10, (\off + 16)(a2)
    lw      s11, (\off + 20)(a2)
    lw      s8, (\off + 8)(a2)
    lw      s9, (\off + 12)(a2)
    lw      s6, (\off + 0)(a2)
    lw      s7, (\off + 4)(a2)
    xor     t3, \x2, s10
    xor     \x3, \x3, s11
    add     t3, t3, \x3
    ROTR_IMM \x3, t3, 3, t4
    xor     t3, \x1, s8
    xor     t4, \x2, s9
    add     t3, t3, t4
    ROTR_IMM \x2, t3, 5, t4
    xor     t3, \x0, s6
    xor     t4, \x1, s7
    add     t3, t3, t4
    ROTL_IMM \x1, t3, 9, t4
.endm

/* Decryption round with keys at off(a2): X0' = X3,
 * X1' = (ROR9(X0) - (X0'^RK0)) ^ RK1, X2' = (ROL5(X1) - (X1'^RK2)) ^ RK3,
 * X3' = (ROL3(X2) - (X2'^RK4)) ^ RK5; the state moves (X0,X1,X2,X3) -> (X3,X0,X1,X2). */
.macro PAPER_DEC_ROUND x0, x1, x2, x3, off
    lw      s6, (\off + 0)(a2)
    lw      s7, (\off + 4)(a2)
    lw      s8, (\off + 8)(a2)
    lw      s9, (\off + 12)(a2)
    lw      s10, (\off + 16)(a2)
    lw      s11, (\off + 20)(a2)
    ROTR_IMM \x0, \x0, 9, t3
    xor     t3, \x3, s6
    sub     \x0, \x0, t3
    xor     \x0, \x0, s7
    ROTL_IMM \x1, \x1, 5, t3
    xor     t3, \x0, s8
    sub     \x1, \x1, t3
    xor     \x1, \x1, s9
    ROTL_IMM \x2, \x2, 3, t3
    xor     t3, \x1, s10
    sub     \x2, \x2, t3
    xor     \x2, \x2, s11
.endm

.macro PAPER_ENCRYPT name, rounds
    PAPER_PROLOGUE
    LOAD_BLOCK \name, a1, s2, s3, s4, s5, t3
    addi    a3, a2, 24 * \rounds
.L\name\()_pass:
    PAPER_ENC_ROUND s2, s3, s4, s5, 0
    PAPER_ENC_ROUND s3, s4, s5, s2, 24
    PAPER_ENC_ROUND s4, s5, s2, s3, 48
    PAPER_ENC_ROUND s5, s2, s3, s4, 72
    addi    a2, a2, 96
    bne     a2, a3, .L\name\()_pass
    STORE_BLOCK \name, a0, s2, s3, s4, s5, t3
    PAPER_EPILOGUE
.endm

/* Rounds are undone last to first: a2 starts at the last pass's keys and walks down to rk. */
.macro PAPER_DECRYPT name, rounds
    PAPER_PROLOGUE
    LOAD_BLOCK \name, a1, s2, s3, s4, s5, t3
    addi    a3, a2, -96
    addi    a2, a2, 24 * (\rounds - 4)
.L\name\()_pass:
    PAPER_DEC_ROUND s2, s3, s4, s5, 72
    PAPER_DEC_ROUND s5, s2, s3, s4, 48
    PAPER_DEC_ROUND s4, s5, s2, s3, 24
    PAPER_DEC_ROUND s3, s4, s5, s2, 0
    addi    a2, a2, -96
    bne     a2, a3, .L\name\()_pass
    STORE_BLOCK \name, a0, s2, s3, s4, s5, t3
    PAPER_EPILOGUE
.endm

FUNC MCU_FN(lea128, encrypt)
    PAPER_ENCRYPT lea128_enc, 24
ENDFUNC MCU_FN(lea128, encrypt)

FUNC MCU_FN(lea192, encrypt)
    PAPER_ENCRYPT lea192_enc, 28
ENDFUNC MCU_FN(lea192, encrypt)

FUNC MCU_FN(lea256, encrypt)
    PAPER_ENCRYPT lea256_enc, 32
ENDFUNC MCU_FN(lea256, encrypt)

FUNC MCU_FN(lea128, decrypt)
    PAPER_DECRYPT lea128_dec, 24
ENDFUNC MCU_FN(lea128, decrypt)

FUNC MCU_FN(lea192, decrypt)
    PAPER_DECRYPT lea192_dec, 28
ENDFUNC MCU_FN(lea192, decrypt)

FUNC MCU_FN(lea256, decrypt)
    PAPER_DECRYPT lea256_dec, 32
ENDFUNC MCU_FN(lea256, decrypt)
