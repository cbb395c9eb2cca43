/* SPDX-License-Identifier: MIT */
/* Multi-precision multiplication on RV32IM (SiFive E31): the row-wise (operand-scanning, schoolbook)
 * method, the baseline paper 000 compares with (K. Stoffelen, "Efficient cryptography on the RISC-V
 * architecture", LATINCRYPT 2019), written from the method's definition, as well as it allows.
 *
 *   void mcu_<id>_rv32_rowwise_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 *   void mcu_<id>_rv32_rowwise_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * r = a * b, little-endian 32-bit limbs; nwords even, 2..64 (the fixed-size entries pass 8/16/32/64).
 *
 * Method: row i adds a[i] * b to r[i .. i+n], one 32x32->64 product a[i]*b[j] at a time:
 *     (hi, lo) = a[i]*b[j];  lo += r[i+j] (carry k1);  lo += cy (carry k2);  r[i+j] = lo;
 *     cy = hi + k1 + k2      (cannot overflow: hi <= 2^32 - 2)
 * with every carry taken by sltu, as RV32 has no carry flag. Row 0 writes instead of adding. Each
 * product costs two loads, one store and six ALU instructions besides its mul/mulhu pair: that load and
 * store of the partial result in every product is the method's inherent cost, which column-wise
 * methods avoid.
 * Written as well as the method allows: the inner loop takes four words per iteration, entered in its
 * second half when the length is 2 mod 4 words (every length is a multiple of 64 bits), and is
 * software-pipelined so that one product's additions run while the E31's iterative multiplier (5 cycles,
 * one multiplication at a time) computes the next: the second product of a pair is finished in the next
 * pair, and the next pair's first operand is loaded in a multiplier shadow. 47 single-issue
 * instructions per four products and no stall: the issue bound, 11.75 cycles per product.
 *
 * Constant time: loop bounds depend on nwords only; no branch or address depends on operand values;
 * mul/mulhu have a fixed latency on the E31.
 *
 * Register map:
 *   a0  r + 4i: start of row i in r                 a1  pa: &a[i] (outer loop counter)
 *   a2  b                                           a3  a + 4n (outer loop limit)
 *   a4  b + 4n (inner loop limit)                   a5  ai = a[i]
 *   a6  cy: the carry word running along the row
 *   t0  pb: &b[j] (inner loop counter)              t1  pr: &r[i+j]
 *   a7, t2  b0, b1 = b[j], b[j+1]
 *   t3, t4  lo0, hi0: a[i]*b[j]                     t5, t6  lo1, hi1: a[i]*b[j+1]
 *   s0, s1  r0, r1 = r[i+j], r[i+j+1], then the carries k1 of their additions (row 0: s0 = k)
 */
#include "mcucrypt/ns.h"

#define rrow a0
#define pa   a1
#define bb   a2
#define aEnd a3
#define bEnd a4
#define ai   a5
#define cy   a6
#define pb   t0
#define pr   t1
#define b0   a7
#define b1   t2
#define lo0  t3
#define hi0  t4
#define lo1  t5
#define hi1  t6
#define r0   s0
#define r1   s1

/* One pair step of row 0 at byte offset OFF from pb and pr: r[j] = lo0 + cy, r[j+1] = lo1 + cy'; the
 * previous pair's last carry (cy = hi1 + k) is completed first. */
.macro ROW0_PAIR off
    lw      b0, \off(pb)
    lw      b1, \off+4(pb)
    add     cy, hi1, r0             /* previous pair: cy = hi1 + k */
    mul     lo0, ai, b0
    mulhu   hi0, ai, b0
    add     lo0, lo0, cy
    sltu    r0, lo0, cy
    sw      lo0, \off(pr)
    mul     lo1, ai, b1
    add     cy, hi0, r0
    mulhu   hi1, ai, b1
    add     lo1, lo1, cy
    sltu    r0, lo1, cy
    sw      lo1, \off+4(pr)
.endm

/* One pair step of rows 1.. at byte offset OFF: finishes the previous pair's second product (stored
 * to OFF-4), then adds a[i]*b[j], a[i]*b[j+1] into r[i+j], r[i+j+1] (the second one finished by the
 * next step). b0 is loaded beforehand. In the shadow after the third multiplication, FIRST = 1 loads
 * the next step's b0 (the loop's second half, always in range); FIRST = 0 advances pb instead. */
.macro PAIR off, first
    lw      b1, \off+4(pb)
    add     lo1, lo1, r1            /* previous pair, second product: lo1 += r[i+j-1] */
    mul     lo0, ai, b0             /* a[i]*b[j] starts while the previous pair is finished */
    sltu    r1, lo1, r1
    add     lo1, lo1, cy
    sltu    cy, lo1, cy
    sw      lo1, \off-4(pr)
    mulhu   hi0, ai, b0
    add     hi1, hi1, r1
    add     cy, hi1, cy             /* cy = hi1 + k1 + k2 */
    lw      r0, \off(pr)
.if \first
    lw      b0, \off+8(pb)
.else
    addi    pb, pb, 16
.endif
    mul     lo1, ai, b1
    add     lo0, lo0, r0            /* first product: lo0 += r[i+j] */
    sltu    r0, lo0, r0
    add     lo0, lo0, cy
    sltu    cy, lo0, cy
    mulhu   hi1, ai, b1
    sw      lo0, \off(pr)
    add     hi0, hi0, r0
    add     cy, hi0, cy
    lw      r1, \off+4(pr)
.endm

#define ROWWISE_MUL(id, words)                                  \
    .section .text.MCU_FN(id, mul), "ax", @progbits;            \
    .globl MCU_FN(id, mul);                                     \
    .type MCU_FN(id, mul), @function;                           \
    .p2align 1;                                                 \
MCU_FN(id, mul):                                                \
    li      a3, words;                                          \
    j       mpmul_rv32_rowwise_mul_n;                           \
    .size MCU_FN(id, mul), . - MCU_FN(id, mul)

#define ROWWISE_MUL_N_LABEL(id)                                 \
    .globl MCU_FN(id, mul_n);                                   \
    .type MCU_FN(id, mul_n), @function;                         \
MCU_FN(id, mul_n):

ROWWISE_MUL(mpmul256, 8)
ROWWISE_MUL(mpmul512, 16)
ROWWISE_MUL(mpmul1024, 32)
ROWWISE_MUL(mpmul2048, 64)

    .section .text.mpmul_rv32_rowwise_mul_n, "ax", @progbits
    .p2align 2
ROWWISE_MUL_N_LABEL(mpmul256)
ROWWISE_MUL_N_LABEL(mpmul512)
ROWWISE_MUL_N_LABEL(mpmul1024)
ROWWISE_MUL_N_LABEL(mpmul2048)
mpmul_rv32_rowwise_mul_n:
    addi    sp, sp, -8
    sw      s0, 0(sp)
    sw      s1, 4(sp)
    slli    a3, a3, 2               /* 4n */
    add     bEnd, bb, a3
    add     aEnd, pa, a3

    /* Row 0: r[j] = lo + cy, cy = hi + carry. Two products per pair step, two steps per iteration;
     * the carry word of a pair's second product is completed at the top of the next step. */
    lw      ai, 0(pa)
    mv      pb, bb
    mv      pr, rrow
    li      cy, 0
    li      hi1, 0
    li      r0, 0
    sub     lo0, bEnd, bb           /* 4n: enter the loop's second half when n is 2 mod 4 */
    andi    lo0, lo0, 8
    beqz    lo0, .Lmpmul_rowwise_row0
    addi    pb, pb, -8
    addi    pr, pr, -8
    j       .Lmpmul_rowwise_row0_b
.Lmpmul_rowwise_row0:
    ROW0_PAIR 0
.Lmpmul_rowwise_row0_b:
    ROW0_PAIR 8
    addi    pb, pb, 16
    addi    pr, pr, 16
    bne     pb, bEnd, .Lmpmul_rowwise_row0
    add     cy, hi1, r0
    sw      cy, 0(pr)               /* r[n] */

    /* Rows 1 .. n-1. */
.Lmpmul_rowwise_row:
    addi    pa, pa, 4
    beq     pa, aEnd, .Lmpmul_rowwise_done
    addi    rrow, rrow, 4
    lw      ai, 0(pa)
    mv      pb, bb
    mv      pr, rrow
    /* The pipelined loop first finishes "the previous pair's second product", storing it to
     * r[i-1]. Prime it so that this is a no-op: lo1 = hi1 = cy = 0 and r1 = r[i-1], which is stored
     * back unchanged with no carry. */
    lw      r1, -4(pr)
    li      lo1, 0
    li      hi1, 0
    li      cy, 0
    sub     lo0, bEnd, bb
    andi    lo0, lo0, 8
    beqz    lo0, .Lmpmul_rowwise_quad
    addi    pb, pb, -8              /* n = 2 mod 4: start with the second half, b0 preloaded */
    addi    pr, pr, -8
    lw      b0, 8(pb)
    j       .Lmpmul_rowwise_quad_b
.Lmpmul_rowwise_quad:
    lw      b0, 0(pb)
    PAIR    0, 1                    /* also loads the second half's b0 */
.Lmpmul_rowwise_quad_b:
    PAIR    8, 0
    addi    pr, pr, 16
    bne     pb, bEnd, .Lmpmul_rowwise_quad
    /* The last pair's second product, then the row's carry word r[i+n]. */
    add     lo1, lo1, r1
    sltu    r1, lo1, r1
    add     lo1, lo1, cy
    sltu    cy, lo1, cy
    sw      lo1, -4(pr)
    add     hi1, hi1, r1
    add     cy, hi1, cy
    sw      cy, 0(pr)
    j       .Lmpmul_rowwise_row

.Lmpmul_rowwise_done:
    lw      s0, 0(sp)
    lw      s1, 4(sp)
    addi    sp, sp, 8
    ret
    .size mpmul_rv32_rowwise_mul_n, . - mpmul_rv32_rowwise_mul_n
