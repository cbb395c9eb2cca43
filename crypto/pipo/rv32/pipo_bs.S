/* SPDX-License-Identifier: MIT */
/* PIPO-64/128 and PIPO-64/256, four blocks at a time (ECB; the entry point for CTR and other
 * throughput modes): rv32-fast (RV32IMAC, byte-sliced) and rv32-zbb (Zbb+Zbkb, bit-interleaved),
 * assembled from this one source.
 *
 *   void mcu_<id>_<impl>_encrypt_blocks(uint8_t *out, const uint8_t *in, size_t nblocks,
 *                                       const uint32_t *rk)
 *
 * Four blocks share every instruction: row j of the four blocks sits in one register,
 *   rv32-fast: byte b = row j of block b (a 4x4 byte transpose of the loaded words); the R-layer
 *              rotates each byte by the row's amount: x = v ^ ((u ^ v) & M_r) with u = x << r,
 *              v = x >> (8 - r) and M_r the bits >= r of every byte (5 instructions, the seven masks
 *              live in s2..s8 for the whole call);
 *   rv32-zbb:  bit 4c + b = column c of block b (the byte transpose, then two zips per row), so a row
 *              rotation is one rori by 4r: the nibble form of pipo_rv32.inc, whose single-block
 *              routines use the same round keys.
 * The round keys are those of pipo_ks.S (the byte/nibble row forms replicate a key row over the four
 * lanes). The S-layer is the 34-instruction circuit (33 with Zbb) of pipo_rv32.inc; rounds are unrolled
 * and rows renamed. Key rows kept in registers are xored directly, the others are loaded three ahead.
 * A PIPO-64/128 round for four blocks: rv32-fast 34 + 35 + 9 (K1 rounds) or 16 (K0 rounds, loaded)
 * instructions, rv32-zbb 33 + 7 + 9 = 49; PIPO-64/256 loads its eight key rows every round (+7).
 *
 * Whole groups of four aligned blocks are processed in place between in and out; a last partial
 * group, or blocks at an address that is not word aligned, go through a 32-byte stack buffer (wiped
 * afterwards). Those branches depend only on nblocks and the pointers (public).
 * Bitsliced, no table, no secret-dependent branch or address: constant time on every core.
 *
 * Register map:
 *   a3 = rk; a4/a5 = source/destination of the group routine (a4 becomes row 7 once loaded);
 *   out, in and the blocks left live in the stack frame (the registers hold round keys)
 *   rows      t0 t1 t2 t3 t4 t5 t6 a4 (renamed every round)
 *   scratch   a7 s0 s1 (S-layer, R-layer, round-key loads, transposes)
 *   rv32-zbb, PIPO-64/128: rows 1..7 of K0 in s2..s8, of K1 in s9 s10 s11 a0 a1 a2 a6, loaded once
 *              per call (only row 0, which carries the round constant, is loaded each round)
 *   rv32-fast: masks M_1..M_7 in s2..s8; PIPO-64/128: rows 1..7 of K1 in s9 s10 s11 a0 a1 a2 a6
 *   stack     0..31 the partial-group buffer, 32.. ra, s0..s11, out, in, blocks left, tail bytes
 */
#include "mcucrypt/ns.h"
#include "pipo_rv32.inc"

#define SA a7
#define SB s0
#define SC s1

/* ---- row rotations ------------------------------------------------------------------------------ */
#if PIPO_NIBBLE_FORM
.macro BS_ROTL x, r
    rori    \x, \x, (32 - 4 * (\r))
.endm
#else
#define M1 s2
#define M2 s3
#define M3 s4
#define M4 s5
#define M5 s6
#define M6 s7
#define M7 s8
/* x = every byte of x rotated left by r (1..7); mask = M_r. */
.macro BS_ROTL_M x, r, mask
    slli    SA, \x, \r                      /* u */
    srli    \x, \x, (8 - (\r))              /* v */
    xor     SA, SA, \x
    and     SA, SA, \mask
    xor     \x, \x, SA                      /* v ^ ((u ^ v) & M_r) */
.endm
.macro BS_ROTL x, r
  .if \r == 1
    BS_ROTL_M \x, 1, M1
  .elseif \r == 2
    BS_ROTL_M \x, 2, M2
  .elseif \r == 3
    BS_ROTL_M \x, 3, M3
  .elseif \r == 4
    BS_ROTL_M \x, 4, M4
  .elseif \r == 5
    BS_ROTL_M \x, 5, M5
  .elseif \r == 6
    BS_ROTL_M \x, 6, M6
  .else
    BS_ROTL_M \x, 7, M7
  .endif
.endm
#endif

/* ---- 4x4 byte transpose (an involution): words x, y, z, w (block b's four bytes in word b)
 *      <-> (row 0..3 of the four blocks in x, y, z, w). SA scratch, SB = 0x00ff00ff. ------------- */
.macro SWAP8 x, y
    srli    SA, \x, 8
    xor     SA, SA, \y
    and     SA, SA, SB
    xor     \y, \y, SA
    slli    SA, SA, 8
    xor     \x, \x, SA                      /* x = (x0 y0 x2 y2), y = (x1 y1 x3 y3) */
.endm
.macro SWAP16 x, z
#ifdef __riscv_zbkb
    srli    SA, \x, 16
    pack    \x, \x, \z
    srli    \z, \z, 16
    pack    \z, SA, \z                      /* x = (x.lo z.lo), z = (x.hi z.hi) */
#else
    srli    SA, \x, 16
    xor     SA, SA, \z
    slli    SA, SA, 16
    xor     \x, \x, SA
    srli    SA, SA, 16
    xor     \z, \z, SA
#endif
.endm
.macro TRANSPOSE4 x, y, z, w
    SWAP8   \x, \y
    SWAP8   \z, \w
    SWAP16  \x, \z
    SWAP16  \y, \w
.endm

/* ---- round keys --------------------------------------------------------------------------------- */
/* .Lrk_off = rk offset of row j of round key i (pipo_ks.S layout). */
.macro BS_RK_OFFSET bits, i, j
  .if \bits == 256
    .set .Lrk_off, 32 * ((\i) % 4) + 4 * (\j)
  .elseif (\j) == 0
    .set .Lrk_off, 4 * (\i)                  /* row 0 of round key i */
  .elseif ((\i) % 2) == 0
    .set .Lrk_off, 4 * (13 + (\j))           /* K0 row j */
  .else
    .set .Lrk_off, 4 * (20 + (\j))           /* K1 row j */
  .endif
.endm

/* Key rows held in registers for a whole call (PIPO-64/128). */
#define BK1_1 s9
#define BK1_2 s10
#define BK1_3 s11
#define BK1_4 a0
#define BK1_5 a1
#define BK1_6 a2
#define BK1_7 a6
#if PIPO_NIBBLE_FORM
#define BK0_1 s2
#define BK0_2 s3
#define BK0_3 s4
#define BK0_4 s5
#define BK0_5 s6
#define BK0_6 s7
#define BK0_7 s8
#define BS_K0_IN_REGS 1
#else
#define BS_K0_IN_REGS 0
#endif

/* rows r0..r7 ^= round key i. Rows held in registers are xored directly (row 0 of PIPO-64/128 is
 * loaded: it carries the round constant); the others are loaded through SA, SB, SC three ahead, and
 * PIPO-64/256 also xors its round constant into row 0. */
.macro BS_XOR_RK bits, i, r0, r1, r2, r3, r4, r5, r6, r7
  .if (\bits == 128) && ((((\i) % 2) == 1) || BS_K0_IN_REGS)
    lw      SA, (4 * (\i))(a3)
    .if ((\i) % 2) == 1
        xor     \r1, \r1, BK1_1
        xor     \r2, \r2, BK1_2
        xor     \r3, \r3, BK1_3
        xor     \r4, \r4, BK1_4
        xor     \r5, \r5, BK1_5
        xor     \r6, \r6, BK1_6
        xor     \r7, \r7, BK1_7
    .else
#if BS_K0_IN_REGS
        xor     \r1, \r1, BK0_1
        xor     \r2, \r2, BK0_2
        xor     \r3, \r3, BK0_3
        xor     \r4, \r4, BK0_4
        xor     \r5, \r5, BK0_5
        xor     \r6, \r6, BK0_6
        xor     \r7, \r7, BK0_7
#endif
    .endif
    xor     \r0, \r0, SA
  .else
    BS_RK_OFFSET \bits, \i, 0
    lw      SA, .Lrk_off(a3)
    BS_RK_OFFSET \bits, \i, 1
    lw      SB, .Lrk_off(a3)
    BS_RK_OFFSET \bits, \i, 2
    lw      SC, .Lrk_off(a3)
    xor     \r0, \r0, SA
    BS_RK_OFFSET \bits, \i, 3
    lw      SA, .Lrk_off(a3)
    xor     \r1, \r1, SB
    BS_RK_OFFSET \bits, \i, 4
    lw      SB, .Lrk_off(a3)
    xor     \r2, \r2, SC
    BS_RK_OFFSET \bits, \i, 5
    lw      SC, .Lrk_off(a3)
    xor     \r3, \r3, SA
    BS_RK_OFFSET \bits, \i, 6
    lw      SA, .Lrk_off(a3)
    xor     \r4, \r4, SB
    BS_RK_OFFSET \bits, \i, 7
    lw      SB, .Lrk_off(a3)
    xor     \r5, \r5, SC
    .if (\bits == 256) && (\i != 0)
        li      SC, PIPO_RC(\i)
        xor     \r0, \r0, SC
    .endif
    xor     \r6, \r6, SA
    xor     \r7, \r7, SB
  .endif
.endm

/* Rounds i..last on rows x0..x7 in r0..r7, then the transpose back and the store to a5. */
.macro BS_ROUNDS bits, i, last, r0, r1, r2, r3, r4, r5, r6, r7
    SBOX_FWD \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, SA, SB, SC
    /* y0 r7, y1 r0, y2 r2, y3 r6, y4 r5, y5 r4, y6 r3, y7 r1 */
    BS_ROTL \r0, 7
    BS_ROTL \r2, 4
    BS_ROTL \r6, 3
    BS_ROTL \r5, 6
    BS_ROTL \r4, 5
    BS_ROTL \r3, 1
    BS_ROTL \r1, 2
    BS_XOR_RK \bits, \i, \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .if \i < \last
    BS_ROUNDS \bits, (\i + 1), \last, \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .else
    BS_STORE \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .endif
.endm

/* Rows (x0..x7 in r0..r7) back to four blocks at a5. */
.macro BS_STORE r0, r1, r2, r3, r4, r5, r6, r7
#if PIPO_NIBBLE_FORM
    .irp r, \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7
        unzip   \r, \r
        unzip   \r, \r
    .endr
#endif
    li      SB, 0x00ff00ff
    TRANSPOSE4 \r0, \r1, \r2, \r3
    TRANSPOSE4 \r4, \r5, \r6, \r7
    sw      \r0, 0(a5)
    sw      \r4, 4(a5)
    sw      \r1, 8(a5)
    sw      \r5, 12(a5)
    sw      \r2, 16(a5)
    sw      \r6, 20(a5)
    sw      \r3, 24(a5)
    sw      \r7, 28(a5)
.endm

/* The group routine: four blocks from a4 (word aligned) encrypted to a5 (word aligned). */
.macro BS_GROUP bits, rounds
    lw      t0, 0(a4)                       /* block 0 bytes 0..3 */
    lw      t1, 8(a4)                       /* block 1 bytes 0..3 */
    lw      t2, 16(a4)
    lw      t3, 24(a4)
    lw      t5, 12(a4)                      /* block 1 bytes 4..7 */
    lw      t6, 20(a4)
    lw      t4, 4(a4)                       /* block 0 bytes 4..7 */
    lw      a4, 28(a4)                      /* block 3 bytes 4..7 (the source pointer is done) */
    li      SB, 0x00ff00ff
    TRANSPOSE4 t0, t1, t2, t3               /* rows 0..3 */
    TRANSPOSE4 t4, t5, t6, a4               /* rows 4..7 */
#if PIPO_NIBBLE_FORM
    .irp r, t0, t1, t2, t3, t4, t5, t6, a4
        zip     \r, \r
        zip     \r, \r
    .endr
#endif
    BS_XOR_RK \bits, 0, t0, t1, t2, t3, t4, t5, t6, a4
    BS_ROUNDS \bits, 1, \rounds, t0, t1, t2, t3, t4, t5, t6, a4
    ret
.endm

/* Stack frame of the driver. */
#define FR_RA 32
#define FR_S0 36                            /* s0..s11 at 36..80 */
#define FR_OUT 84
#define FR_IN 88
#define FR_N 92
#define FR_TAIL 96                          /* bytes in the partial group */
#define FR_SIZE 112

/* Load the key rows kept in registers (PIPO-64/128). */
.macro BS_LOAD_KEY_REGS
    lw      BK1_1, (4 * 21)(a3)
    lw      BK1_2, (4 * 22)(a3)
    lw      BK1_3, (4 * 23)(a3)
    lw      BK1_4, (4 * 24)(a3)
    lw      BK1_5, (4 * 25)(a3)
    lw      BK1_6, (4 * 26)(a3)
    lw      BK1_7, (4 * 27)(a3)
#if BS_K0_IN_REGS
    lw      BK0_1, (4 * 14)(a3)
    lw      BK0_2, (4 * 15)(a3)
    lw      BK0_3, (4 * 16)(a3)
    lw      BK0_4, (4 * 17)(a3)
    lw      BK0_5, (4 * 18)(a3)
    lw      BK0_6, (4 * 19)(a3)
    lw      BK0_7, (4 * 20)(a3)
#endif
.endm

/* The ECB driver around the group routine \group. Between groups it works in t0..t6 (out t1, in t2,
 * blocks left t3), which the group routine uses as rows. */
.macro BS_ENCRYPT_BLOCKS name, group, bits
    addi    sp, sp, -FR_SIZE
    sw      ra, FR_RA(sp)
    .set .Lreg, 0
    .irp r, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11
        sw      \r, (FR_S0 + 4 * .Lreg)(sp)
        .set .Lreg, .Lreg + 1
    .endr
    sw      a0, FR_OUT(sp)
    sw      a1, FR_IN(sp)
    sw      a2, FR_N(sp)
  .if \bits == 128
    BS_LOAD_KEY_REGS
  .endif
#if !PIPO_NIBBLE_FORM
    li      M1, 0xfefefefe
    li      M2, 0xfcfcfcfc
    li      M3, 0xf8f8f8f8
    li      M4, 0xf0f0f0f0
    li      M5, 0xe0e0e0e0
    li      M6, 0xc0c0c0c0
    li      M7, 0x80808080
#endif
.L\name\()_next:
    lw      t3, FR_N(sp)
    beqz    t3, .L\name\()_done
    lw      t1, FR_OUT(sp)
    lw      t2, FR_IN(sp)
    or      t4, t1, t2
    andi    t4, t4, 3
    bnez    t4, .L\name\()_partial         /* unaligned: through the buffer */
    sltiu   t4, t3, 4
    bnez    t4, .L\name\()_partial         /* fewer than four blocks left */
    mv      a4, t2
    mv      a5, t1
    addi    t1, t1, 32
    addi    t2, t2, 32
    addi    t3, t3, -4
    sw      t1, FR_OUT(sp)
    sw      t2, FR_IN(sp)
    sw      t3, FR_N(sp)
    jal     ra, \group
    j       .L\name\()_next
.L\name\()_partial:
    /* k = min(blocks left, 4) blocks through the buffer at sp */
    li      t5, 4
    bltu    t3, t5, .L\name\()_k
    mv      t3, t5
.L\name\()_k:
    slli    t5, t3, 3                       /* tail bytes */
    sw      t5, FR_TAIL(sp)
    lw      t4, FR_N(sp)
    sub     t4, t4, t3
    sw      t4, FR_N(sp)
    mv      a4, t2
    mv      a5, sp
    add     t6, t2, t5
.L\name\()_copy_in:
    lbu     t0, 0(a4)
    sb      t0, 0(a5)
    addi    a4, a4, 1
    addi    a5, a5, 1
    bne     a4, t6, .L\name\()_copy_in
    sw      t6, FR_IN(sp)
    mv      a4, sp
    mv      a5, sp
    jal     ra, \group
    lw      t5, FR_TAIL(sp)
    lw      t1, FR_OUT(sp)
    mv      a4, sp
    add     t6, sp, t5
.L\name\()_copy_out:
    lbu     t0, 0(a4)
    sb      t0, 0(t1)
    addi    a4, a4, 1
    addi    t1, t1, 1
    bne     a4, t6, .L\name\()_copy_out
    sw      t1, FR_OUT(sp)
    sw      zero, 0(sp)                     /* wipe the buffer */
    sw      zero, 4(sp)
    sw      zero, 8(sp)
    sw      zero, 12(sp)
    sw      zero, 16(sp)
    sw      zero, 20(sp)
    sw      zero, 24(sp)
    sw      zero, 28(sp)
    j       .L\name\()_next
.L\name\()_done:
    lw      ra, FR_RA(sp)
    .set .Lreg, 0
    .irp r, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11
        lw      \r, (FR_S0 + 4 * .Lreg)(sp)
        .set .Lreg, .Lreg + 1
    .endr
    addi    sp, sp, FR_SIZE
    ret
.endm

FUNC MCU_FN(pipo64_128, encrypt_blocks)
    BS_ENCRYPT_BLOCKS pipo128_bs, .Lpipo128_bs_group, 128
.Lpipo128_bs_group:
    BS_GROUP 128, 13
ENDFUNC MCU_FN(pipo64_128, encrypt_blocks)

FUNC MCU_FN(pipo64_256, encrypt_blocks)
    BS_ENCRYPT_BLOCKS pipo256_bs, .Lpipo256_bs_group, 256
.Lpipo256_bs_group:
    BS_GROUP 256, 17
ENDFUNC MCU_FN(pipo64_256, encrypt_blocks)
