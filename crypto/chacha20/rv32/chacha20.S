/* SPDX-License-Identifier: MIT */
/* ChaCha20 (RFC 8439) for RV32: rv32-fast (RV32IMAC, rotations from slli/srli/or) and rv32-zbb (one rori
 * per rotation), assembled from this one source.
 *
 *   void mcu_chacha20_<impl>_block(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter)
 *   int mcu_chacha20_<impl>_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key,
 *                               const uint8_t *nonce, uint32_t counter)
 *     returns 0, or -1 with nothing written when the block counter would wrap: (len - 1) / 64 above
 *     2^32 - 1 - counter (ref/chacha20.h, chacha20_counter_wraps)
 *
 * Register map (both functions, after their set-up):
 *   a0 = out, a1 = in (xor), a2 = len (xor), a3 = block counter
 *   a4..a7        state words x0..x3          s0..s11   state words x4..x15
 *   t0            link register of the two internal subroutines (jal t0 / jr t0: the E31's return-address
 *                 stack treats t0 like ra, so both the call and the return are predicted)
 *   t1            rotation scratch (RV32I only)       t2   double-round counter
 *   t3..t6        scratch (feed-forward, pointers)
 * Stack frame (FRAME bytes): s0..s11 saved at 0; the initial state init[16] at INIT (init[12], the counter,
 * stays in a3); PRE, the twelve words of columns 1..3 after the first column round; P = x0 + x4; a 64-byte
 * key-stream buffer at KS for a message tail and for unaligned buffers.
 *
 * Techniques. The whole 16-word state lives in registers for all 20 rounds (no load or store inside the
 * rounds; the E31 issues one ALU instruction a cycle with no interlock between them, so a quarter round is
 * exactly its 20 instructions on RV32I, 12 with Zbb). Across the blocks of one call only word 12 (the
 * counter) changes, and in the first column round only the quarter round of column 0 reads it: the three
 * other column quarter rounds, and the first addition of column 0, are computed once per call (in
 * chacha20_setup) and reloaded per block - 61 instructions a block saved, about 1 cycle/byte. Ten double
 * rounds are a loop of nine (column + diagonal) after a first diagonal round, so no jump enters the loop
 * body. The feed-forward is fused with the message XOR and the store, loads paired so that no loaded value
 * is used by the next instruction (LW latency 2). Keeping the whole state in registers is the usual RV32
 * approach (there are enough of them); the per-call precomputation of the counter-independent column
 * quarter rounds is ours.
 * Only lengths and pointer alignment (public) steer branches: constant time.
 */
#include "mcucrypt/ns.h"

#define INIT    48
#define PRE     112
#define P       160
#define KS      176
#define FRAME   240

/* rd = rotl(rd, n). */
.macro ROTL rd, n
#ifdef __riscv_zbb
    rori    \rd, \rd, (32 - (\n))
#else
    slli    t1, \rd, \n
    srli    \rd, \rd, (32 - (\n))
    or      \rd, \rd, t1
#endif
.endm

/* The ChaCha quarter round on a, b, c, d (RFC 8439 2.1). */
.macro QR a, b, c, d
    add     \a, \a, \b
    xor     \d, \d, \a
    ROTL    \d, 16
    add     \c, \c, \d
    xor     \b, \b, \c
    ROTL    \b, 12
    add     \a, \a, \b
    xor     \d, \d, \a
    ROTL    \d, 8
    add     \c, \c, \d
    xor     \b, \b, \c
    ROTL    \b, 7
.endm

.macro COLUMN_ROUND
    QR      a4, s0, s4, s8
    QR      a5, s1, s5, s9
    QR      a6, s2, s6, s10
    QR      a7, s3, s7, s11
.endm

.macro DIAGONAL_ROUND
    QR      a4, s1, s6, s11
    QR      a5, s2, s7, s8
    QR      a6, s3, s4, s9
    QR      a7, s0, s5, s10
.endm

/* rd = the little-endian word at off(base), byte by byte (any alignment). */
.macro LOADW_BYTES rd, off, base
    lbu     \rd, (\off)(\base)
    lbu     t5, (\off + 1)(\base)
    slli    t5, t5, 8
    or      \rd, \rd, t5
    lbu     t5, (\off + 2)(\base)
    slli    t5, t5, 16
    or      \rd, \rd, t5
    lbu     t5, (\off + 3)(\base)
    slli    t5, t5, 24
    or      \rd, \rd, t5
.endm

/* Feed-forward of two words: x_i += init_i, x_j += init_j, then (xor only) ^= in, and store at base.
 * Loads come first so that each loaded value is used at least two instructions later. */
.macro FF2 xi, i, xj, j, base, mode
    lw      t3, (INIT + 4 * \i)(sp)
  .if \mode
    lw      t4, (4 * \i)(a1)
  .endif
    lw      t5, (INIT + 4 * \j)(sp)
  .if \mode
    lw      t6, (4 * \j)(a1)
  .endif
    add     \xi, \xi, t3
  .if \mode
    xor     \xi, \xi, t4
  .endif
    sw      \xi, (4 * \i)(\base)
    add     \xj, \xj, t5
  .if \mode
    xor     \xj, \xj, t6
  .endif
    sw      \xj, (4 * \j)(\base)
.endm

/* The whole feed-forward; mode 1: XOR with the 64 bytes at a1. Word 12's initial value is a3. */
.macro FEED_FORWARD base, mode
    FF2     a4, 0, a5, 1, \base, \mode
    FF2     a6, 2, a7, 3, \base, \mode
    FF2     s0, 4, s1, 5, \base, \mode
    FF2     s2, 6, s3, 7, \base, \mode
    FF2     s4, 8, s5, 9, \base, \mode
    FF2     s6, 10, s7, 11, \base, \mode
    FF2     s9, 13, s10, 14, \base, \mode
    lw      t3, (INIT + 4 * 15)(sp)
  .if \mode
    lw      t4, (4 * 15)(a1)
    lw      t6, (4 * 12)(a1)
  .endif
    add     s8, s8, a3
    add     s11, s11, t3
  .if \mode
    xor     s11, s11, t4
    xor     s8, s8, t6
  .endif
    sw      s11, (4 * 15)(\base)
    sw      s8, (4 * 12)(\base)
.endm

.macro SAVE_S
    addi    sp, sp, -FRAME
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

.macro RESTORE_S_RET
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
    addi    sp, sp, FRAME
    ret
.endm

    /* Both functions and their two subroutines share one section: an image links them together. */
    .section .text.MCU_FN(chacha20, xor), "ax", @progbits

/* ---- int xor(out, in, len, key, nonce, counter) ------------------------------------------------------- */
    .globl  MCU_FN(chacha20, xor)
    .type   MCU_FN(chacha20, xor), @function
    .p2align 2
MCU_FN(chacha20, xor):
    beqz    a2, .Lchacha20_xor_empty
    addi    t5, a2, -1              /* the last block's offset from counter: (len - 1) / 64 */
    srli    t5, t5, 6
    not     t6, a5                  /* the blocks left after counter: 2^32 - 1 - counter */
    bltu    t6, t5, .Lchacha20_xor_wraps
    SAVE_S
    mv      t3, a3                  /* key */
    mv      t4, a4                  /* nonce */
    mv      a3, a5                  /* counter */
    jal     t0, .Lchacha20_setup
    /* Whole blocks go straight from in to out when both are word aligned (the E31 traps on a misaligned
     * lw/sw); otherwise every block goes through the key-stream buffer. */
    or      t5, a0, a1
    andi    t5, t5, 3
    bnez    t5, .Lchacha20_xor_slow
    sltiu   t5, a2, 64
    bnez    t5, .Lchacha20_xor_slow
.Lchacha20_xor_fast:
    jal     t0, .Lchacha20_core
    FEED_FORWARD a0, 1
    addi    a3, a3, 1
    addi    a0, a0, 64
    addi    a1, a1, 64
    addi    a2, a2, -64
    sltiu   t5, a2, 64
    beqz    t5, .Lchacha20_xor_fast
    beqz    a2, .Lchacha20_xor_done
    /* A tail of 1..63 bytes, or any block with an unaligned buffer: key stream to KS, then byte XOR. */
.Lchacha20_xor_slow:
    jal     t0, .Lchacha20_core
    addi    t2, sp, KS              /* t2, the round counter, is free after the core */
    FEED_FORWARD t2, 0
    mv      t5, a2                  /* n = min(len, 64) */
    li      t6, 64
    bleu    t5, t6, .Lchacha20_xor_n
    mv      t5, t6
.Lchacha20_xor_n:
    addi    t1, sp, KS
    sub     a2, a2, t5
.Lchacha20_xor_bytes:
    lbu     t2, 0(a1)
    lbu     t6, 0(t1)
    addi    a1, a1, 1
    addi    t1, t1, 1
    xor     t2, t2, t6
    sb      t2, 0(a0)
    addi    a0, a0, 1
    addi    t5, t5, -1
    bnez    t5, .Lchacha20_xor_bytes
    addi    a3, a3, 1
    bnez    a2, .Lchacha20_xor_slow
.Lchacha20_xor_done:
    li      a0, 0
    RESTORE_S_RET
.Lchacha20_xor_empty:
    li      a0, 0
    ret
.Lchacha20_xor_wraps:               /* the counter would wrap: nothing written */
    li      a0, -1
    ret
    .size   MCU_FN(chacha20, xor), . - MCU_FN(chacha20, xor)

/* ---- void block(out, key, nonce, counter) ------------------------------------------------------------- */
    .globl  MCU_FN(chacha20, block)
    .type   MCU_FN(chacha20, block), @function
    .p2align 2
MCU_FN(chacha20, block):
    SAVE_S
    mv      t3, a1                  /* key */
    mv      t4, a2                  /* nonce */
    jal     t0, .Lchacha20_setup
    jal     t0, .Lchacha20_core
    andi    t5, a0, 3
    bnez    t5, .Lchacha20_block_bytes
    FEED_FORWARD a0, 0
    RESTORE_S_RET
.Lchacha20_block_bytes:
    addi    t2, sp, KS              /* t2, the round counter, is free after the core */
    FEED_FORWARD t2, 0
    addi    t1, sp, KS
    li      t5, 64
.Lchacha20_block_copy:
    lbu     t6, 0(t1)
    addi    t1, t1, 1
    addi    t5, t5, -1
    sb      t6, 0(a0)
    addi    a0, a0, 1
    bnez    t5, .Lchacha20_block_copy
    RESTORE_S_RET
    .size   MCU_FN(chacha20, block), . - MCU_FN(chacha20, block)

/* ---- setup: t3 = key, t4 = nonce; writes INIT, PRE and P. Returns through t0. ------------------------
 * Clobbers a4..a7, s0..s11, t1, t5, t6. */
    .p2align 2
.Lchacha20_setup:
    li      a4, 0x61707865          /* "expand 32-byte k" */
    li      a5, 0x3320646e
    li      a6, 0x79622d32
    li      a7, 0x6b206574
    sw      a4, (INIT + 0)(sp)
    sw      a5, (INIT + 4)(sp)
    sw      a6, (INIT + 8)(sp)
    sw      a7, (INIT + 12)(sp)
    or      t5, t3, t4
    andi    t5, t5, 3
    bnez    t5, .Lchacha20_setup_bytes
    lw      s0, 0(t3)
    lw      s1, 4(t3)
    lw      s2, 8(t3)
    lw      s3, 12(t3)
    lw      s4, 16(t3)
    lw      s5, 20(t3)
    lw      s6, 24(t3)
    lw      s7, 28(t3)
    lw      s9, 0(t4)
    lw      s10, 4(t4)
    lw      s11, 8(t4)
.Lchacha20_setup_loaded:
    sw      s0, (INIT + 16)(sp)
    sw      s1, (INIT + 20)(sp)
    sw      s2, (INIT + 24)(sp)
    sw      s3, (INIT + 28)(sp)
    sw      s4, (INIT + 32)(sp)
    sw      s5, (INIT + 36)(sp)
    sw      s6, (INIT + 40)(sp)
    sw      s7, (INIT + 44)(sp)
    sw      s9, (INIT + 52)(sp)
    sw      s10, (INIT + 56)(sp)
    sw      s11, (INIT + 60)(sp)
    /* The counter-independent part of the first column round. */
    add     a4, a4, s0
    sw      a4, P(sp)
    QR      a5, s1, s5, s9
    QR      a6, s2, s6, s10
    QR      a7, s3, s7, s11
    sw      a5, (PRE + 0)(sp)
    sw      s1, (PRE + 4)(sp)
    sw      s5, (PRE + 8)(sp)
    sw      s9, (PRE + 12)(sp)
    sw      a6, (PRE + 16)(sp)
    sw      s2, (PRE + 20)(sp)
    sw      s6, (PRE + 24)(sp)
    sw      s10, (PRE + 28)(sp)
    sw      a7, (PRE + 32)(sp)
    sw      s3, (PRE + 36)(sp)
    sw      s7, (PRE + 40)(sp)
    sw      s11, (PRE + 44)(sp)
    jr      t0
.Lchacha20_setup_bytes:
    LOADW_BYTES s0, 0, t3
    LOADW_BYTES s1, 4, t3
    LOADW_BYTES s2, 8, t3
    LOADW_BYTES s3, 12, t3
    LOADW_BYTES s4, 16, t3
    LOADW_BYTES s5, 20, t3
    LOADW_BYTES s6, 24, t3
    LOADW_BYTES s7, 28, t3
    LOADW_BYTES s9, 0, t4
    LOADW_BYTES s10, 4, t4
    LOADW_BYTES s11, 8, t4
    j       .Lchacha20_setup_loaded

/* ---- core: the 20 rounds of block a3 (no feed-forward) into a4..a7, s0..s11. Returns through t0. ------
 * Clobbers t1, t2. */
    .p2align 2
.Lchacha20_core:
    lw      a4, P(sp)               /* x0 + x4, the first addition of column 0 */
    lw      s0, (INIT + 16)(sp)     /* x4 */
    lw      s4, (INIT + 32)(sp)     /* x8 */
    lw      s1, (PRE + 4)(sp)       /* columns 1..3 after the first column round; the first diagonal */
    lw      s6, (PRE + 24)(sp)      /* quarter round's words first, so none is used right after its load */
    lw      s11, (PRE + 44)(sp)
    xor     s8, a3, a4              /* rest of column 0's quarter round: d = x12 ^ a */
    ROTL    s8, 16
    add     s4, s4, s8
    xor     s0, s0, s4
    ROTL    s0, 12
    add     a4, a4, s0
    xor     s8, s8, a4
    ROTL    s8, 8
    add     s4, s4, s8
    xor     s0, s0, s4
    ROTL    s0, 7
    lw      a5, (PRE + 0)(sp)
    lw      s5, (PRE + 8)(sp)
    lw      s9, (PRE + 12)(sp)
    lw      a6, (PRE + 16)(sp)
    lw      s2, (PRE + 20)(sp)
    lw      s10, (PRE + 28)(sp)
    lw      a7, (PRE + 32)(sp)
    lw      s3, (PRE + 36)(sp)
    lw      s7, (PRE + 40)(sp)
    DIAGONAL_ROUND
    li      t2, 9
.Lchacha20_core_loop:
    COLUMN_ROUND
    DIAGONAL_ROUND
    addi    t2, t2, -1
    bnez    t2, .Lchacha20_core_loop
    jr      t0
