/* SPDX-License-Identifier: MIT */
/* Multi-precision multiplication on RV32IM (SiFive E31): the column-wise method of paper 000
 * (Seo et al., "Optimized Implementation of Scalable Multi-Precision Multiplication Method on RISC-V
 * Processor", JKIISC 2021), written from its description: one loop-based code for every length.
 *
 *   void mcu_<id>_rv32_comba64_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 *   void mcu_<id>_rv32_comba64_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * r = a * b, little-endian 32-bit limbs; nwords even, 2..64 (the fixed-size entries pass 8/16/32/64).
 *
 * Paper tricks implemented:
 *  - 64-bit multiplication blocks (section 3.1): the operands are read as double words A_I = a[2I..2I+1]
 *    and B_J = b[2J..2J+1]; one block multiplies A_I by B_J with four 32x32->64 products (mul/mulhu
 *    pairs) and adds the 128-bit result into a four-word column accumulator c0..c3.
 *  - an initial block (paper Table 5, macro_mul_64_init) for the very first product, where nothing is
 *    accumulated yet, and a middle block (Table 6, macro_mul_64_mid) that accumulates;
 *  - lazy carries (section 3.1): RV32 has no carry flag, so every accumulation is add + sltu, and the
 *    carry bits are summed in separate registers e1..e4 (one per word position above c0) instead of
 *    being propagated; they cannot overflow (at most 3 per block, 32 blocks per column at 2048 bits)
 *    and are folded into the accumulator once per column;
 *  - column-wise scheduling (section 3.2, Fig. 1) with an inner loop over the blocks of a column and
 *    an outer loop over the columns; the loop counters are the operand and result pointers themselves
 *    compared with bne (section 3.3); one code for every length (scalable).
 * Scheduling for the E31: its iterative multiplier takes 5 cycles and runs one multiplication at a
 * time, but the pipeline keeps issuing independent instructions meanwhile; the middle block therefore
 * interleaves the accumulation of each product with the next multiplication, and the last product of a
 * block (L11, H11) is accumulated during the next block's multiplications (registers pl, ph).
 *
 * Constant time: no branch depends on operand values (all loop bounds come from nwords); no address
 * depends on them; mul/mulhu have a fixed latency on the E31.
 *
 * Column K (weight 2^(64K)) sums the blocks A_I*B_J with I+J = K. With N = nwords/2 double words:
 *   K = 0 .. N-1 ("lower" columns):   I = 0 .. K,      J = K - I  (pb starts at B_K and walks down)
 *   K = N .. 2N-2 ("upper" columns):  I = K-N+1 .. N-1, J = K - I (pb starts at B_(N-1))
 *
 * Register map:
 *   a0  rp: result pointer, r + 8K (advanced once per column: the outer loop counter)
 *   a1  first A block of the column, a + 8*Imin      a2  first B block of the column, b + 8*(K-Imin)
 *   a3  end of the column's A blocks, a + 8*(Imax+1) t2  a + 4*nwords (end of a; outer loop limit)
 *   t0  pa: inner loop A pointer (the inner loop counter, compared with a3)    t1  pb: B pointer
 *   a4, a5  a_lo, a_hi (A_I)                        a6, a7  b_lo, b_hi (B_J)
 *   t3  x: low product word                         t4  y: high product word
 *   t5, t6  carry bits just produced by sltu
 *   s0..s3  c0..c3: the 128-bit column accumulator
 *   s4..s7  e1..e4: lazily collected carries into c1, c2, c3 and beyond c3
 *   s8, s9  pl, ph: the previous block's L11 and H11, accumulated inside the next block
 */
#include "mcucrypt/ns.h"

#define rp  a0
#define colA a1
#define colB a2
#define colE a3
#define pa  t0
#define pb  t1
#define aEnd t2
#define alo a4
#define ahi a5
#define blo a6
#define bhi a7
#define x   t3
#define y   t4
#define u   t5
#define v   t6
#define c0  s0
#define c1  s1
#define c2  s2
#define c3  s3
#define e1  s4
#define e2  s5
#define e3  s6
#define e4  s7
#define pl  s8
#define ph  s9

/* Every fixed-size entry loads its length and jumps to the shared code. */
#define COMBA64_MUL(id, words)                                  \
    .section .text.MCU_FN(id, mul), "ax", @progbits;            \
    .globl MCU_FN(id, mul);                                     \
    .type MCU_FN(id, mul), @function;                           \
    .p2align 1;                                                 \
MCU_FN(id, mul):                                                \
    li      a3, words;                                          \
    j       mpmul_rv32_comba64_mul_n;                           \
    .size MCU_FN(id, mul), . - MCU_FN(id, mul)

#define COMBA64_MUL_N_LABEL(id)                                 \
    .globl MCU_FN(id, mul_n);                                   \
    .type MCU_FN(id, mul_n), @function;                         \
MCU_FN(id, mul_n):

COMBA64_MUL(mpmul256, 8)
COMBA64_MUL(mpmul512, 16)
COMBA64_MUL(mpmul1024, 32)
COMBA64_MUL(mpmul2048, 64)

    .section .text.mpmul_rv32_comba64_mul_n, "ax", @progbits
    .p2align 2
COMBA64_MUL_N_LABEL(mpmul256)
COMBA64_MUL_N_LABEL(mpmul512)
COMBA64_MUL_N_LABEL(mpmul1024)
COMBA64_MUL_N_LABEL(mpmul2048)
mpmul_rv32_comba64_mul_n:
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
    slli    aEnd, a3, 2
    add     aEnd, a1, aEnd          /* aEnd = a + 4n */
    addi    colE, a1, 8             /* column 0 has the single block A_0*B_0 */

    /* Initial block (Table 5): column 0, A_0*B_0 into an empty accumulator, so the products are
     * written rather than added wherever the position is still empty. */
    lw      alo, 0(colA)
    lw      blo, 0(colB)
    lw      ahi, 4(colA)
    lw      bhi, 4(colB)
    mul     c0, alo, blo            /* c0 = L00 */
    li      e1, 0                   /* the multiplier is busy: clear the carry registers meanwhile */
    li      e4, 0
    li      pl, 0
    mulhu   c1, alo, blo            /* c1 = H00 */
    li      ph, 0
    mul     x, alo, bhi             /* L01 */
    mulhu   c2, alo, bhi            /* c2 = H01 */
    add     c1, c1, x               /* c1 += L01 */
    sltu    e2, c1, x               /* its carry is the first into c2 */
    mul     x, ahi, blo             /* L10 */
    mulhu   y, ahi, blo             /* H10 */
    add     c1, c1, x               /* c1 += L10 */
    sltu    u, c1, x
    add     e2, e2, u
    mul     x, ahi, bhi             /* L11 */
    add     c2, c2, y               /* c2 += H10 */
    sltu    e3, c2, y
    mulhu   c3, ahi, bhi            /* c3 = H11 */
    add     c2, c2, x               /* c2 += L11 */
    sltu    u, c2, x
    add     e3, e3, u
    j       .Lmpmul_comba64_tail

    /* Outer loop: one iteration per column K >= 1. */
.Lmpmul_comba64_column:
    mv      pa, colA
    mv      pb, colB
    li      pl, 0                   /* no previous block in this column */
    li      ph, 0

    /* Inner loop: middle blocks (Table 6), A_I*B_J accumulated into c0..c3 with lazy carries.
     * Each product's accumulation runs while the multiplier computes the next one; the loads at the
     * top run while the multiplier still computes the previous block's H11. */
.Lmpmul_comba64_block:
    lw      alo, 0(pa)
    lw      blo, 0(pb)
    mul     x, alo, blo             /* L00 */
    lw      ahi, 4(pa)
    lw      bhi, 4(pb)
    add     c2, c2, pl              /* previous block's L11 */
    sltu    u, c2, pl
    mulhu   y, alo, blo             /* H00 */
    add     e3, e3, u
    add     c0, c0, x               /* L00 -> c0 */
    sltu    u, c0, x
    add     e1, e1, u
    mul     x, alo, bhi             /* L01 */
    add     c1, c1, y               /* H00 -> c1 */
    sltu    u, c1, y
    add     e2, e2, u
    add     c3, c3, ph              /* previous block's H11 */
    mulhu   y, alo, bhi             /* H01 */
    add     c1, c1, x               /* L01 -> c1 */
    sltu    u, c1, x
    add     e2, e2, u
    sltu    v, c3, ph
    mul     x, ahi, blo             /* L10 */
    add     c2, c2, y               /* H01 -> c2 */
    sltu    u, c2, y
    add     e3, e3, u
    add     e4, e4, v
    mulhu   y, ahi, blo             /* H10 */
    add     c1, c1, x               /* L10 -> c1 */
    sltu    u, c1, x
    add     e2, e2, u
    addi    pa, pa, 8               /* next A block (up) */
    mul     pl, ahi, bhi            /* L11: accumulated in the next block or after the loop */
    add     c2, c2, y               /* H10 -> c2 */
    sltu    u, c2, y
    add     e3, e3, u
    addi    pb, pb, -8              /* next B block (down) */
    mulhu   ph, ahi, bhi            /* H11: likewise */
    bne     pa, colE, .Lmpmul_comba64_block

    /* End of a column: add the last block's L11/H11, fold the lazy carries, write r[2K], r[2K+1],
     * and shift the accumulator down by 64 bits. */
.Lmpmul_comba64_tail:
    add     c2, c2, pl
    sltu    u, c2, pl
    add     e3, e3, u
    add     c3, c3, ph
    sltu    v, c3, ph
    add     e4, e4, v
    add     c1, c1, e1              /* carries into c1 */
    sltu    u, c1, e1
    add     e2, e2, u
    sw      c0, 0(rp)
    sw      c1, 4(rp)
    add     c0, c2, e2              /* new c0 = c2 + carries into c2 */
    sltu    u, c0, e2
    add     e3, e3, u
    add     c1, c3, e3              /* new c1 = c3 + carries into c3 */
    sltu    u, c1, e3
    add     c2, e4, u               /* new c2 = everything above 128 bits */
    li      c3, 0
    li      e1, 0
    li      e2, 0
    li      e3, 0
    li      e4, 0
    addi    rp, rp, 8
    /* Next column: in the lower half the block range grows by one at the top (B_K, end A_(K+1));
     * in the upper half it shrinks at the bottom. The branch depends on the length only. */
    beq     colE, aEnd, .Lmpmul_comba64_upper
    addi    colB, colB, 8
    addi    colE, colE, 8
    j       .Lmpmul_comba64_column
.Lmpmul_comba64_upper:
    addi    colA, colA, 8
    bne     colA, aEnd, .Lmpmul_comba64_column

    /* Column 2N-1 has no block: it is the accumulator's remaining 64 bits. */
    sw      c0, 0(rp)
    sw      c1, 4(rp)
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
    addi    sp, sp, 48
    ret
    .size mpmul_rv32_comba64_mul_n, . - mpmul_rv32_comba64_mul_n
