/* SPDX-License-Identifier: MIT */
/* Paper 000's column-wise method (rv32-comba64, comba64.S) with the instruction-set extensions the
 * paper proposes in section 4.2, as implemented by the rv32 board's custom extension xmul64
 * (docs/board-rv32.md; build with -march=rv32imac, run with isa rv32imac_xmul64):
 *
 *   mulu64 rd, rs1, rs2        {rd+1, rd} = rs1 * rs2              one multiplier pass (5 cycles)
 *   addc   rd, rs1, rs2        rd = rs1 + rs2, rd+1 = carry        1 cycle (add + sltu fused)
 *   maddu  rd, rs1, rs2, rs3   {rd+1, rd} = rs1 * rs2 + rs3 + rd   one multiplier pass (5 cycles)
 *
 * (rd even: the pair rd, rd+1). One source, four kernels, chosen by COMBA64X (the build's -D):
 *   1  proposal (a): mulu64 replaces every mul/mulhu pair
 *   2  proposal (b): addc replaces every add/sltu pair of the accumulation
 *   3  proposal (c): maddu, multiply-accumulate into a double word
 *   4  all three: maddu in the blocks, addc for the remaining additions, mulu64 for the first product
 *
 *   void mcu_<id>_<impl>_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 *   void mcu_<id>_<impl>_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * Everything else is comba64.S's algorithm: 64-bit (2x2-word) blocks A_I * B_J summed per 64-bit column
 * into a 128-bit accumulator c0..c3 with lazily collected carries, an inner loop over a column's blocks
 * and an outer loop over columns, pointer counters and bne, one code for every even nwords (2..64);
 * see comba64.S for the column ranges and the outer loop. Each variant's block is rescheduled for what
 * its instructions make the bottleneck (the multiplier in (b); issue slots in (a); in (c) and 4 the
 * multiplier again, at one pass per product).
 *
 * Block products: p00 = a_lo b_lo (weight 0), p01 = a_lo b_hi and p10 = a_hi b_lo (weight 1),
 * p11 = a_hi b_hi (weight 2); weights in words above c0.
 *
 * Constant time: as comba64 (no branch or address depends on operand values; the multiplier and the
 * custom instructions have fixed latencies).
 */
#include "mcucrypt/ns.h"

#ifndef COMBA64X
#error "COMBA64X must be 1 (mulu64), 2 (addc), 3 (maddu) or 4 (all)"
#endif

#define MULU64(rd, rs1, rs2)        .insn r CUSTOM_0, 0, 0, rd, rs1, rs2
#define ADDC(rd, rs1, rs2)          .insn r CUSTOM_0, 1, 0, rd, rs1, rs2
#define MADDU(rd, rs1, rs2, rs3)    .insn r4 CUSTOM_1, 0, 0, rd, rs1, rs2, rs3

/* Registers every variant shares (see comba64.S). */
#define rp   a0
#define colA a1
#define colB a2
#define colE a3
#define pa   t0
#define pb   t1
#define aEnd t2
#define alo  a4
#define ahi  a5
#define blo  a6
#define bhi  a7
#define u    t5
#define v    t6

#if COMBA64X == 1
/* (a) mulu64. Register map: products in the pairs P = t3:t4 and Q = s10:s11 (lo:hi), accumulator
 * c0..c3 = s0..s3 (c0:c1 and c2:c3 are pairs too, for the initial block), lazy carries e1..e4 =
 * s4..s7, u = t5 the carry bit just produced. */
#define c0 s0
#define c1 s1
#define c2 s2
#define c3 s3
#define e1 s4
#define e2 s5
#define e3 s6
#define e4 s7
#define plo t3
#define phi t4
#define qlo s10
#define qhi s11
#define SAVED 12
#elif COMBA64X == 2
/* (b) addc. Every accumulator word lives in an even register whose odd partner receives addc's carry:
 * c0 = s0 (carry s1), c1 = s2 (s3), c2 = s4 (s5), c3 = s6 (s7); e1..e4 = s8..s11; x, y = t3, t4 the
 * product words; pl, ph = t5, t6 the previous block's L11, H11 (as in comba64). */
#define c0 s0
#define k0 s1
#define c1 s2
#define k1 s3
#define c2 s4
#define k2 s5
#define c3 s6
#define k3 s7
#define e1 s8
#define e2 s9
#define e3 s10
#define e4 s11
#define x  t3
#define y  t4
#define pl t5
#define ph t6
#define SAVED 12
#else
/* (c) maddu, and 4 (all). maddu adds a product into a word pair and keeps every carry in the high
 * word, so the block is four chained multiply-accumulates:
 *   #1 {h,  c0} = a_lo b_lo + c0          #2 {h2, c1} = a_lo b_hi + c1 + h
 *   #3 {h4, c2} = a_hi b_hi + c2 + h2     #4 {h3, c1} = a_hi b_lo + c1
 * leaving h3 (weight 2) and h4 (weight 3) to add - the only additions with a carry, lazily collected in
 * e3 (into c3) and e4 (above c3). They are done during the next block's multiplications (before #2 and
 * #3 overwrite h3 and h4), or in the column's tail.
 * Register map: c0 = s0 with h = s1, c1 = s2 with h2/h3 = s3, c2 = s4 with h4 = s5, c3 = s6 (variant 4:
 * with addc's carry in s7), e3 = s8, e4 = s9. */
#define c0 s0
#define h  s1
#define c1 s2
#define h3 s3
#define c2 s4
#define h4 s5
#define c3 s6
#define k3 s7
#define e3 s8
#define e4 s9
#define SAVED 10
#endif

#define COMBA64X_MUL(id, words)                                 \
    .section .text.MCU_FN(id, mul), "ax", @progbits;            \
    .globl MCU_FN(id, mul);                                     \
    .type MCU_FN(id, mul), @function;                           \
    .p2align 1;                                                 \
MCU_FN(id, mul):                                                \
    li      a3, words;                                          \
    j       mpmul_rv32_comba64x_mul_n;                          \
    .size MCU_FN(id, mul), . - MCU_FN(id, mul)

#define COMBA64X_MUL_N_LABEL(id)                                \
    .globl MCU_FN(id, mul_n);                                   \
    .type MCU_FN(id, mul_n), @function;                         \
MCU_FN(id, mul_n):

COMBA64X_MUL(mpmul256, 8)
COMBA64X_MUL(mpmul512, 16)
COMBA64X_MUL(mpmul1024, 32)
COMBA64X_MUL(mpmul2048, 64)

    .section .text.mpmul_rv32_comba64x_mul_n, "ax", @progbits
    .p2align 2
COMBA64X_MUL_N_LABEL(mpmul256)
COMBA64X_MUL_N_LABEL(mpmul512)
COMBA64X_MUL_N_LABEL(mpmul1024)
COMBA64X_MUL_N_LABEL(mpmul2048)
mpmul_rv32_comba64x_mul_n:
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
#if SAVED == 12
    sw      s10, 40(sp)
    sw      s11, 44(sp)
#endif
    slli    aEnd, a3, 2
    add     aEnd, a1, aEnd          /* aEnd = a + 4n */
    addi    colE, a1, 8             /* column 0 has the single block A_0*B_0 */
    lw      alo, 0(colA)
    lw      blo, 0(colB)
    lw      ahi, 4(colA)
    lw      bhi, 4(colB)

    /* ---- Initial block (paper Table 5): column 0, nothing accumulated yet ---- */
#if COMBA64X == 1
    MULU64(c0, alo, blo)            /* c1:c0 = p00 */
    MULU64(c2, ahi, bhi)            /* c3:c2 = p11 */
    MULU64(plo, alo, bhi)           /* P = p01 */
    MULU64(qlo, ahi, blo)           /* Q = p10 */
    add     c1, c1, plo
    sltu    e2, c1, plo
    add     c2, c2, phi
    sltu    e3, c2, phi
    li      e1, 0
    li      e4, 0
    add     c1, c1, qlo
    sltu    u, c1, qlo
    add     e2, e2, u
    add     c2, c2, qhi
    sltu    u, c2, qhi
    add     e3, e3, u
    j       .Lmpmul_comba64x_tail
#elif COMBA64X == 2
    mul     c0, alo, blo            /* c0 = L00 */
    li      e1, 0
    li      e4, 0
    li      pl, 0
    li      ph, 0
    mulhu   c1, alo, blo            /* c1 = H00 */
    mul     x, alo, bhi             /* L01 */
    mulhu   c2, alo, bhi            /* c2 = H01 */
    ADDC(c1, c1, x)                 /* c1 += L01, its carry is the first into c2 */
    mv      e2, k1
    mul     x, ahi, blo             /* L10 */
    mulhu   y, ahi, blo             /* H10 */
    ADDC(c1, c1, x)
    add     e2, e2, k1
    mul     x, ahi, bhi             /* L11 */
    ADDC(c2, c2, y)                 /* c2 += H10 */
    mv      e3, k2
    mulhu   c3, ahi, bhi            /* c3 = H11 */
    ADDC(c2, c2, x)                 /* c2 += L11 */
    add     e3, e3, k2
    j       .Lmpmul_comba64x_tail
#else
    li      c1, 0
    li      c2, 0
    li      c3, 0
    li      h3, 0                   /* no previous block: its h3, h4 are zero */
    li      h4, 0
    li      e3, 0
    li      e4, 0
#if COMBA64X == 4
    MULU64(c0, alo, blo)            /* #1 with c0 = 0: a plain 64-bit product */
#else
    li      c0, 0
    MADDU(c0, alo, blo, zero)       /* #1 */
#endif
    MADDU(c1, alo, bhi, h)          /* #2 */
    MADDU(c2, ahi, bhi, h3)         /* #3: h3 holds h2 here */
    MADDU(c1, ahi, blo, zero)       /* #4 */
    j       .Lmpmul_comba64x_tail
#endif

    /* ---- Outer loop: one iteration per column K >= 1 ---- */
.Lmpmul_comba64x_column:
    mv      pa, colA
    mv      pb, colB
#if COMBA64X == 2
    li      pl, 0                   /* no previous block in this column */
    li      ph, 0
#endif

    /* ---- Inner loop: middle blocks (paper Table 6) ---- */
.Lmpmul_comba64x_block:
    lw      alo, 0(pa)
    lw      blo, 0(pb)
#if COMBA64X == 1
    /* Issue-bound: 35 instructions for 20 multiplier cycles; each product's six accumulation
     * instructions run while the next mulu64 computes. */
    lw      bhi, 4(pb)
    MULU64(plo, alo, blo)           /* P = p00 */
    lw      ahi, 4(pa)
    addi    pa, pa, 8
    addi    pb, pb, -8
    MULU64(qlo, alo, bhi)           /* Q = p01 */
    add     c0, c0, plo             /* L00 -> c0 */
    sltu    u, c0, plo
    add     e1, e1, u
    add     c1, c1, phi             /* H00 -> c1 */
    sltu    u, c1, phi
    add     e2, e2, u
    MULU64(plo, ahi, blo)           /* P = p10 */
    add     c1, c1, qlo             /* L01 -> c1 */
    sltu    u, c1, qlo
    add     e2, e2, u
    add     c2, c2, qhi             /* H01 -> c2 */
    sltu    u, c2, qhi
    add     e3, e3, u
    MULU64(qlo, ahi, bhi)           /* Q = p11 */
    add     c1, c1, plo             /* L10 -> c1 */
    sltu    u, c1, plo
    add     e2, e2, u
    add     c2, c2, phi             /* H10 -> c2 */
    sltu    u, c2, phi
    add     e3, e3, u
    add     c2, c2, qlo             /* L11 -> c2 */
    sltu    u, c2, qlo
    add     e3, e3, u
    add     c3, c3, qhi             /* H11 -> c3 */
    sltu    u, c3, qhi
    add     e4, e4, u
#elif COMBA64X == 2
    /* comba64's schedule with every add/sltu pair fused: the multiplier (8 passes, 40 cycles) stays
     * the bottleneck, so only the column tail gains. */
    mul     x, alo, blo             /* L00 */
    lw      ahi, 4(pa)
    lw      bhi, 4(pb)
    ADDC(c2, c2, pl)                /* previous block's L11 */
    add     e3, e3, k2
    mulhu   y, alo, blo             /* H00 */
    ADDC(c0, c0, x)                 /* L00 -> c0 */
    add     e1, e1, k0
    ADDC(c3, c3, ph)                /* previous block's H11 */
    add     e4, e4, k3
    mul     x, alo, bhi             /* L01 */
    ADDC(c1, c1, y)                 /* H00 -> c1 */
    add     e2, e2, k1
    mulhu   y, alo, bhi             /* H01 */
    ADDC(c1, c1, x)                 /* L01 -> c1 */
    add     e2, e2, k1
    mul     x, ahi, blo             /* L10 */
    ADDC(c2, c2, y)                 /* H01 -> c2 */
    add     e3, e3, k2
    mulhu   y, ahi, blo             /* H10 */
    ADDC(c1, c1, x)                 /* L10 -> c1 */
    add     e2, e2, k1
    addi    pa, pa, 8
    mul     pl, ahi, bhi            /* L11: accumulated in the next block or the tail */
    ADDC(c2, c2, y)                 /* H10 -> c2 */
    add     e3, e3, k2
    addi    pb, pb, -8
    mulhu   ph, ahi, bhi            /* H11: likewise */
#else
    /* Multiplier-bound: four passes, 20 cycles a block. The previous block's h3 and h4 are added
     * between them: h3 before #2 overwrites it, h4 before #3 does (and before c2 is read by #3). */
#if COMBA64X == 4
    ADDC(c3, c3, h4)                /* previous h4 -> c3, carry in k3 */
    MADDU(c0, alo, blo, zero)       /* #1 {h, c0} = p00 + c0 */
    lw      bhi, 4(pb)
    lw      ahi, 4(pa)
    ADDC(c2, c2, h3)                /* previous h3 -> c2; its carry lands in h4, consumed above */
    add     e3, e3, h4
    MADDU(c1, alo, bhi, h)          /* #2 {h2, c1} = p01 + c1 + h */
    add     e4, e4, k3
    addi    pa, pa, 8
    addi    pb, pb, -8
#else
    add     c2, c2, h3              /* previous h3 -> c2 */
    MADDU(c0, alo, blo, zero)       /* #1 {h, c0} = p00 + c0 */
    lw      bhi, 4(pb)
    lw      ahi, 4(pa)
    sltu    u, c2, h3
    add     c3, c3, h4              /* previous h4 -> c3 */
    MADDU(c1, alo, bhi, h)          /* #2 {h2, c1} = p01 + c1 + h */
    add     e3, e3, u
    sltu    v, c3, h4
    add     e4, e4, v
    addi    pa, pa, 8
#endif
    MADDU(c2, ahi, bhi, h3)         /* #3 {h4, c2} = p11 + c2 + h2 */
#if COMBA64X != 4
    addi    pb, pb, -8
#endif
    MADDU(c1, ahi, blo, zero)       /* #4 {h3, c1} = p10 + c1 */
#endif
    bne     pa, colE, .Lmpmul_comba64x_block

    /* ---- End of a column: pending words, lazy carries folded, r[2K], r[2K+1] written, the
     * accumulator shifted down by 64 bits ---- */
.Lmpmul_comba64x_tail:
#if COMBA64X == 1
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
#elif COMBA64X == 2
    ADDC(c2, c2, pl)                /* the last block's L11 and H11 */
    add     e3, e3, k2
    ADDC(c3, c3, ph)
    add     e4, e4, k3
    ADDC(c1, c1, e1)                /* carries into c1 */
    add     e2, e2, k1
    sw      c0, 0(rp)
    sw      c1, 4(rp)
    ADDC(c0, c2, e2)                /* new c0 = c2 + carries into c2 */
    add     e3, e3, k0
    ADDC(c1, c3, e3)                /* new c1 = c3 + carries into c3 */
    add     c2, e4, k1              /* new c2 = everything above 128 bits */
    li      c3, 0
    li      e1, 0
    li      e2, 0
    li      e3, 0
    li      e4, 0
#elif COMBA64X == 3
    add     c2, c2, h3              /* the last block's h3 and h4 */
    sltu    u, c2, h3
    add     e3, e3, u
    add     c3, c3, h4
    sltu    v, c3, h4
    add     e4, e4, v
    sw      c0, 0(rp)               /* c0 and c1 have no pending carry: maddu kept them */
    sw      c1, 4(rp)
    mv      c0, c2                  /* new c0 = c2 */
    add     c1, c3, e3              /* new c1 = c3 + carries into c3 */
    sltu    u, c1, e3
    add     c2, e4, u               /* new c2 = everything above 128 bits */
    li      c3, 0
    li      h3, 0
    li      h4, 0
    li      e3, 0
    li      e4, 0
#else
    ADDC(c3, c3, h4)                /* the last block's h4, then h3 */
    add     e4, e4, k3
    ADDC(c2, c2, h3)
    add     e3, e3, h4
    sw      c0, 0(rp)               /* c0 and c1 have no pending carry: maddu kept them */
    sw      c1, 4(rp)
    mv      c0, c2                  /* new c0 = c2 */
    ADDC(c1, c3, e3)                /* new c1 = c3 + carries into c3 (carry in h3) */
    add     c2, e4, h3              /* new c2 = everything above 128 bits */
    li      c3, 0
    li      h3, 0
    li      h4, 0
    li      e3, 0
    li      e4, 0
#endif
    addi    rp, rp, 8
    /* Next column: the lower half grows its block range at the top, the upper half shrinks it at the
     * bottom (comba64.S). The branch depends on the length only. */
    beq     colE, aEnd, .Lmpmul_comba64x_upper
    addi    colB, colB, 8
    addi    colE, colE, 8
    j       .Lmpmul_comba64x_column
.Lmpmul_comba64x_upper:
    addi    colA, colA, 8
    bne     colA, aEnd, .Lmpmul_comba64x_column

    sw      c0, 0(rp)               /* column 2N-1: the accumulator's remaining 64 bits */
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
#if SAVED == 12
    lw      s10, 40(sp)
    lw      s11, 44(sp)
#endif
    addi    sp, sp, 48
    ret
    .size mpmul_rv32_comba64x_mul_n, . - mpmul_rv32_comba64x_mul_n
