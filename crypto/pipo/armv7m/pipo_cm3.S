// SPDX-License-Identifier: MIT
/* PIPO-64/128 and PIPO-64/256 on the Cortex-M3 (cm3-fast): one block, and four blocks bitsliced.
 *
 *   void mcu_<id>_cm3_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_cm3_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_cm3_fast_encrypt_blocks(uint8_t *out, const uint8_t *in, size_t nblocks,
 *                                         const uint32_t *rk)
 *
 * rk: pipo_cm3_ks.c, round keys in the nibble form (bit c of a row fills bits 4c..4c+3).
 *
 * Technique. The state is eight rows r0..r7 (row j = byte j), one per register, in the nibble form:
 * bit 4c + b of row j is column c of block b. Four blocks fill a word (encrypt_blocks); one block uses
 * lane b = 0 only (the other lanes carry harmless garbage: every instruction is bitwise and every
 * rotation moves by whole nibbles). Then:
 * - the S-layer is the 34-instruction Unbalanced-Bridge circuit of the E31 code (pipo_rv32.inc) on
 *   whole registers (AND/ORR/EOR/MVN, three-operand Thumb-2);
 * - the R-layer costs nothing: rotating a row by r columns is ROR #(32 - 4r) of the word, folded as
 *   the shifted operand of the key addition that follows it (EOR row, key, row, ROR #s);
 * - the eight key rows of a round come in with two LDM (five and three words);
 * - decryption adds R^-1(k) to R^-1(x): the key schedule stores rows 1..7 of R^-1(K[q]), so the
 *   inverse rotation folds into the key addition too;
 * - rows are renamed round to round (the S-layer leaves its outputs permuted), never moved; all
 *   rounds are unrolled in one core per key size shared by encrypt and encrypt_blocks;
 * - encrypt_blocks converts four blocks (eight words) to and from the nibble form with five
 *   SWAPMOVE stages over four pairs of words (barrel-shifted EOR operands: 4 instructions each, UXTH
 *   for the 16-bit one): 80 instructions each way; one block is spread with shifts and masks.
 * A round is 34 (S-layer) + 8 (key EOR, rotations folded) + 10 (LDM of 5 and 3 words) = 52 cycles, for one block
 * or four.
 * No IT block, no bit-banding, no table: every address is public and no branch depends on data.
 *
 * Register map of the cores: rows r0..r7; S-layer scratch r8, r9, r10; r11 = rk (advanced by the
 * LDMs); key rows r8, r9, r10, r12, lr.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

.macro FUNC sym
    .section .text.\sym, "ax", %progbits
    .globl  \sym
    .type   \sym, %function
    .thumb_func
    .balign 4
\sym:
.endm

.macro LFUNC sym
    .section .text.\sym, "ax", %progbits
    .type   \sym, %function
    .thumb_func
    .balign 4
\sym:
.endm

.macro ENDFUNC sym
    .size   \sym, . - \sym
.endm

/* S-layer (pipo_rv32.inc's circuit). In: rows x0..x7 in r0..r7. Out: y0 in r7, y1 in r0, y2 in r2,
 * y3 in r6, y4 in r5, y5 in r4, y6 in r3, y7 in r1. a, b, c: scratch. */
.macro SBOX_FWD r0, r1, r2, r3, r4, r5, r6, r7, a, b, c
    and     \a, \r7, \r6
    eor     \r5, \r5, \a            /* S5_1: x5 ^= x7 & x6 */
    and     \a, \r3, \r5
    eor     \r4, \r4, \a            /* x4 ^= x3 & x5 */
    eor     \r7, \r7, \r4           /* x7 ^= x4 */
    eor     \r6, \r6, \r3           /* x6 ^= x3 */
    orr     \a, \r4, \r5
    eor     \r3, \r3, \a            /* x3 ^= x4 | x5 */
    eor     \r5, \r5, \r7           /* x5 ^= x7 */
    and     \a, \r5, \r6
    eor     \r4, \r4, \a            /* x4 ^= x5 & x6 */
    and     \a, \r1, \r0
    eor     \r2, \r2, \a            /* S3: x2 ^= x1 & x0 */
    orr     \a, \r2, \r1
    eor     \r0, \r0, \a            /* x0 ^= x2 | x1 */
    orr     \a, \r2, \r0
    eor     \r1, \r1, \a            /* x1 ^= x2 | x0 */
    eor     \r7, \r7, \r1           /* bridge: x7 ^= x1 */
    mvn     \r2, \r2                /* x2 = ~x2 (S3's complement) */
    eor     \r3, \r3, \r2           /* x3 ^= x2 */
    eor     \r4, \r4, \r0           /* x4 ^= x0 */
    and     \a, \r7, \r5
    eor     \r6, \r6, \a            /* S5_2: x6 ^= x7 & x5 */
    eor     \b, \r7, \r6            /* t0 = x7 ^ x6 */
    orr     \a, \r4, \r3
    eor     \r6, \r6, \a            /* x6 ^= x4 | x3 */
    eor     \c, \r3, \r5            /* t1 = x3 ^ x5 */
    orr     \a, \r6, \r4
    eor     \r5, \r5, \a            /* x5 ^= x6 | x4 */
    and     \a, \c, \b              /* u = t1 & t0 */
    eor     \r0, \r0, \c            /* y1 = x0 ^ t1 */
    eor     \r2, \r2, \b            /* y2 = x2 ^ t0 */
    eor     \r1, \r1, \r4
    eor     \r1, \r1, \a            /* y7 = x1 ^ x4 ^ u */
.endm

/* Inverse S-layer. In: rows y0..y7 in r0..r7. Out: x0 in r1, x1 in r7, x2 in r2, x3 in r6, x4 in r5,
 * x5 in r4, x6 in r3, x7 in r0. */
.macro SBOX_INV r0, r1, r2, r3, r4, r5, r6, r7, a, b, c
    orr     \a, \r3, \r5
    eor     \r4, \r4, \a            /* x5 = y4 ^ (y3 | y5) */
    orr     \a, \r5, \r6
    eor     \r3, \r3, \a            /* x6' = y3 ^ (y5 | y6) */
    eor     \b, \r0, \r3            /* t0 = x7 ^ x6' */
    and     \a, \r0, \r4
    eor     \r3, \r3, \a            /* x6 = x6' ^ (x7 & x5) */
    eor     \c, \r6, \r4            /* t1 = x3 ^ x5 */
    and     \a, \c, \b              /* u = t1 & t0 */
    eor     \r7, \r7, \r5
    eor     \r7, \r7, \a            /* x1 = y7 ^ x4 ^ u */
    eor     \r2, \r2, \b            /* x2 (complemented) = y2 ^ t0 */
    eor     \r1, \r1, \c            /* x0 = y1 ^ t1 */
    eor     \r0, \r0, \r7           /* undo the bridge: x7 ^= x1 */
    eor     \r6, \r6, \r2           /* x3 ^= x2 (complemented) */
    eor     \r5, \r5, \r1           /* x4 ^= x0 */
    mvn     \r2, \r2                /* undo S3: x2 = ~x2c */
    orr     \a, \r2, \r1
    eor     \r7, \r7, \a            /* x1 ^= x2 | x0 */
    orr     \a, \r2, \r7
    eor     \r1, \r1, \a            /* x0 ^= x2 | x1 */
    and     \a, \r7, \r1
    eor     \r2, \r2, \a            /* x2 ^= x1 & x0 */
    and     \a, \r4, \r3
    eor     \r5, \r5, \a            /* undo S5_1: x4 ^= x5 & x6 */
    eor     \r4, \r4, \r0           /* x5 ^= x7 */
    orr     \a, \r5, \r4
    eor     \r6, \r6, \a            /* x3 ^= x4 | x5 */
    eor     \r3, \r3, \r6           /* x6 ^= x3 */
    eor     \r0, \r0, \r5           /* x7 ^= x4 */
    and     \a, \r6, \r4
    eor     \r5, \r5, \a            /* x4 ^= x3 & x5 */
    and     \a, \r0, \r3
    eor     \r4, \r4, \a            /* x5 ^= x7 & x6 */
.endm

/* Whitening: rows r0..r7 ^= the next round key (eight words at r11, advanced). */
.macro ADDKEY r0, r1, r2, r3, r4, r5, r6, r7
    ldmia   r11!, {r8, r9, r10, r12, lr}
    eor     \r0, \r0, r8
    eor     \r1, \r1, r9
    eor     \r2, \r2, r10
    eor     \r3, \r3, r12
    eor     \r4, \r4, lr
    ldmia   r11!, {r8, r9, r10}
    eor     \r5, \r5, r8
    eor     \r6, \r6, r9
    eor     \r7, \r7, r10
.endm

/* Rounds i..n of encryption on rows x0..x7 in r0..r7: S-layer, then each row j of the S-layer's
 * output is rotated left by PIPO's R-layer amount (0 7 4 3 6 5 1 2) = ROR #(32 - 4r) as the shifted
 * operand of its key addition. Recurses with the renamed rows. */
.macro ENC i, n, r0, r1, r2, r3, r4, r5, r6, r7
    SBOX_FWD \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, r8, r9, r10
    ldmia   r11!, {r8, r9, r10, r12, lr}
    eor     \r7, \r7, r8                    /* row 0 = y0 */
    eor     \r0, r9, \r0, ror #4            /* row 1 = rotl(y1, 7) */
    eor     \r2, r10, \r2, ror #16          /* row 2 = rotl(y2, 4) */
    eor     \r6, r12, \r6, ror #20          /* row 3 = rotl(y3, 3) */
    eor     \r5, lr, \r5, ror #8            /* row 4 = rotl(y4, 6) */
    ldmia   r11!, {r8, r9, r10}
    eor     \r4, r8, \r4, ror #12           /* row 5 = rotl(y5, 5) */
    eor     \r3, r9, \r3, ror #28           /* row 6 = rotl(y6, 1) */
    eor     \r1, r10, \r1, ror #24          /* row 7 = rotl(y7, 2) */
  .if \i < \n
    ENC     (\i + 1), \n, \r7, \r0, \r2, \r6, \r5, \r4, \r3, \r1
  .endif
.endm

/* The encryption cores: rows in r0..r7 (nibble form), r11 = rk; out: rows 0..7 in
 * OUT128 = r7 r0 r2 r6 r5 r4 r3 r1 (the S-layer's renaming has order 6: 13 rounds = 1 renaming) and
 * OUT256 = r1 r7 r2 r6 r5 r4 r3 r0 (17 rounds = 5 renamings). r8-r12 and lr clobbered. */
LFUNC pipo_cm3_core128
    push    {lr}
    ADDKEY  r0, r1, r2, r3, r4, r5, r6, r7
    ENC     1, 13, r0, r1, r2, r3, r4, r5, r6, r7
    pop     {pc}
ENDFUNC pipo_cm3_core128

LFUNC pipo_cm3_core256
    push    {lr}
    ADDKEY  r0, r1, r2, r3, r4, r5, r6, r7
    ENC     1, 17, r0, r1, r2, r3, r4, r5, r6, r7
    pop     {pc}
ENDFUNC pipo_cm3_core256

/* ---- one block ------------------------------------------------------------------------------- */

/* x = byte x in lane 0 of the nibble form: bit c -> bit 4c (the last step's OR leaves garbage only in
 * lanes 1..3). */
.macro SPREAD x
    orr     \x, \x, \x, lsl #12
    and     \x, \x, #0x000F000F
    orr     \x, \x, \x, lsl #6
    and     \x, \x, #0x03030303
    orr     \x, \x, \x, lsl #3
.endm

/* Store lane 0 of row x (nibble form) as the byte at [base, #off]; x clobbered. */
.macro GATHER x, off, base
    and     \x, \x, #0x11111111
    orr     \x, \x, \x, lsr #3
    and     \x, \x, #0x03030303
    orr     \x, \x, \x, lsr #6
    and     \x, \x, #0x000F000F
    orr     \x, \x, \x, lsr #12
    strb    \x, [\base, #\off]
.endm

/* Load the block at r1 into rows r0..r7 (r1 last); r8 holds in. */
.macro LOAD_BLOCK
    mov     r8, r1
    ldrb    r0, [r8, #0]
    ldrb    r1, [r8, #1]
    ldrb    r2, [r8, #2]
    ldrb    r3, [r8, #3]
    ldrb    r4, [r8, #4]
    ldrb    r5, [r8, #5]
    ldrb    r6, [r8, #6]
    ldrb    r7, [r8, #7]
    SPREAD  r0
    SPREAD  r1
    SPREAD  r2
    SPREAD  r3
    SPREAD  r4
    SPREAD  r5
    SPREAD  r6
    SPREAD  r7
.endm

.macro STORE_BLOCK base, r0, r1, r2, r3, r4, r5, r6, r7
    GATHER  \r0, 0, \base
    GATHER  \r1, 1, \base
    GATHER  \r2, 2, \base
    GATHER  \r3, 3, \base
    GATHER  \r4, 4, \base
    GATHER  \r5, 5, \base
    GATHER  \r6, 6, \base
    GATHER  \r7, 7, \base
.endm

/* Frame of the one-block routines: push {r0, r4-r11, lr} (out at [sp]). */
FUNC MCU_FN(pipo64_128, encrypt)
    push    {r0, r4-r11, lr}
    mov     r11, r2
    LOAD_BLOCK
    bl      pipo_cm3_core128
    ldr     r8, [sp]
    STORE_BLOCK r8, r7, r0, r2, r6, r5, r4, r3, r1
    pop     {r0, r4-r11, pc}
ENDFUNC MCU_FN(pipo64_128, encrypt)

FUNC MCU_FN(pipo64_256, encrypt)
    push    {r0, r4-r11, lr}
    mov     r11, r2
    LOAD_BLOCK
    bl      pipo_cm3_core256
    ldr     r8, [sp]
    STORE_BLOCK r8, r1, r7, r2, r6, r5, r4, r3, r0
    pop     {r0, r4-r11, pc}
ENDFUNC MCU_FN(pipo64_256, encrypt)

/* Rounds i..1 of decryption on rows x0..x7 in r0..r7: row j ^= key i, rotated right by the R-layer
 * amount: rotr(x ^ k) = ROR(x) ^ rotr(k), with rotr(k) rows 1..7 from the table at DK + 28 (i mod q)
 * and row 0 (the one holding the round constant, never rotated) from round key i. Then the inverse
 * S-layer; recurses with the renamed rows, ends with the whitening key and the store. */
.macro DEC i, q, r0, r1, r2, r3, r4, r5, r6, r7
    ldr     r8, [r11, #(32 * \i)]
    eor     \r0, \r0, r8
    add     r12, r11, #(DK + 28 * ((\i) % \q))
    ldmia   r12!, {r8, r9, r10}
    eor     \r1, r8, \r1, ror #28           /* rotr 7 */
    eor     \r2, r9, \r2, ror #16           /* rotr 4 */
    eor     \r3, r10, \r3, ror #12          /* rotr 3 */
    ldmia   r12, {r8, r9, r10, lr}
    eor     \r4, r8, \r4, ror #24           /* rotr 6 */
    eor     \r5, r9, \r5, ror #20           /* rotr 5 */
    eor     \r6, r10, \r6, ror #4           /* rotr 1 */
    eor     \r7, lr, \r7, ror #8            /* rotr 2 */
    SBOX_INV \r0, \r1, \r2, \r3, \r4, \r5, \r6, \r7, r8, r9, r10
  .if \i > 1
    DEC     (\i - 1), \q, \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .else
    ADDKEY  \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
    ldr     r8, [sp]
    STORE_BLOCK r8, \r1, \r7, \r2, \r6, \r5, \r4, \r3, \r0
  .endif
.endm

FUNC MCU_FN(pipo64_128, decrypt)
    push    {r0, r4-r11, lr}
    mov     r11, r2
    LOAD_BLOCK
    .set    DK, 32 * 14
    DEC     13, 2, r0, r1, r2, r3, r4, r5, r6, r7
    pop     {r0, r4-r11, pc}
ENDFUNC MCU_FN(pipo64_128, decrypt)

FUNC MCU_FN(pipo64_256, decrypt)
    push    {r0, r4-r11, lr}
    mov     r11, r2
    LOAD_BLOCK
    .set    DK, 32 * 18
    DEC     17, 4, r0, r1, r2, r3, r4, r5, r6, r7
    pop     {r0, r4-r11, pc}
ENDFUNC MCU_FN(pipo64_256, decrypt)

/* ---- four blocks bitsliced ----------------------------------------------------------------------
 * Eight words, word index (b1 b0 k) = block b, half k (rows 4k..4k+3), bit index (j1 j0 c2 c1 c0).
 * The nibble form wants word index (j2 j1 j0) = row j and bit index (c2 c1 c0 b1 b0). Five index-bit
 * transpositions, each a SWAPMOVE between the words that differ in one word-index bit:
 *   b1 <-> c1 (pairs differing in b1, n = 2), then that bit <-> j0 (n = 8); b0 <-> c0 (pairs differing
 *   in b0, n = 1), then <-> c2 (n = 4), then <-> j1 (n = 16); left: word index (j0 j1 j2), a renaming.
 * The words are loaded into the registers that make that renaming the identity: word index w goes to
 * register bitrev(w), so row j ends in rj. Arguments: the registers of word indices 0..7. */

/* SWAPMOVE(hi, lo): exchanges the bits of lo under mask m with the bits of hi under m << n, i.e.
 * transposes a word-index bit (hi has it 0, lo 1) with a bit-index bit. */
.macro SWAPMOVE hi, lo, m, n, t
    eor     \t, \lo, \hi, lsr #\n
  .if \n == 16
    uxth    \t, \t
  .else
    and     \t, \t, #\m
  .endif
    eor     \lo, \lo, \t
    eor     \hi, \hi, \t, lsl #\n
.endm

.macro TSTAGE_B1 m, n, t, w0, w1, w2, w3, w4, w5, w6, w7
    SWAPMOVE \w0, \w4, \m, \n, \t
    SWAPMOVE \w1, \w5, \m, \n, \t
    SWAPMOVE \w2, \w6, \m, \n, \t
    SWAPMOVE \w3, \w7, \m, \n, \t
.endm

.macro TSTAGE_B0 m, n, t, w0, w1, w2, w3, w4, w5, w6, w7
    SWAPMOVE \w0, \w2, \m, \n, \t
    SWAPMOVE \w1, \w3, \m, \n, \t
    SWAPMOVE \w4, \w6, \m, \n, \t
    SWAPMOVE \w5, \w7, \m, \n, \t
.endm

.macro TO_NIBBLES t, w0, w1, w2, w3, w4, w5, w6, w7
    TSTAGE_B1 0x33333333, 2, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B1 0x00FF00FF, 8, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B0 0x55555555, 1, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B0 0x0F0F0F0F, 4, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B0 0x0000FFFF, 16, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
.endm

.macro FROM_NIBBLES t, w0, w1, w2, w3, w4, w5, w6, w7
    TSTAGE_B0 0x0000FFFF, 16, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B0 0x0F0F0F0F, 4, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B0 0x55555555, 1, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B1 0x00FF00FF, 8, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
    TSTAGE_B1 0x33333333, 2, \t, \w0, \w1, \w2, \w3, \w4, \w5, \w6, \w7
.endm

/* Frame: [sp] out, [sp, #4] in, [sp, #8] nblocks, [sp, #12] rk; then r4-r11, lr. Groups of four
 * blocks through the core; the remaining one to three blocks one at a time through encrypt. The block
 * count and the pointers are public. Word loads and stores (unaligned allowed on the M3). */
.macro ENCRYPT_BLOCKS sym, single, core, o0, o1, o2, o3, o4, o5, o6, o7
FUNC \sym
    push    {r4-r11, lr}
    sub     sp, sp, #16
    str     r0, [sp]
    str     r1, [sp, #4]
    str     r2, [sp, #8]
    str     r3, [sp, #12]
1:
    ldr     r9, [sp, #8]
    cmp     r9, #4
    blo     2f
    subs    r9, r9, #4
    str     r9, [sp, #8]
    ldr     r8, [sp, #4]
    ldr     r0, [r8, #0]
    ldr     r4, [r8, #4]
    ldr     r2, [r8, #8]
    ldr     r6, [r8, #12]
    ldr     r1, [r8, #16]
    ldr     r5, [r8, #20]
    ldr     r3, [r8, #24]
    ldr     r7, [r8, #28]
    adds    r8, r8, #32
    str     r8, [sp, #4]
    TO_NIBBLES r9, r0, r4, r2, r6, r1, r5, r3, r7
    ldr     r11, [sp, #12]
    bl      \core
    /* rows 0..7 in o0..o7; word index w holds row bitrev(w) */
    FROM_NIBBLES r9, \o0, \o4, \o2, \o6, \o1, \o5, \o3, \o7
    ldr     r8, [sp]
    str     \o0, [r8, #0]
    str     \o4, [r8, #4]
    str     \o2, [r8, #8]
    str     \o6, [r8, #12]
    str     \o1, [r8, #16]
    str     \o5, [r8, #20]
    str     \o3, [r8, #24]
    str     \o7, [r8, #28]
    adds    r8, r8, #32
    str     r8, [sp]
    b       1b
2:
    cmp     r9, #0
    beq     3f
    subs    r9, r9, #1
    str     r9, [sp, #8]
    ldr     r0, [sp]
    ldr     r1, [sp, #4]
    ldr     r2, [sp, #12]
    adds    r3, r0, #8
    str     r3, [sp]
    adds    r3, r1, #8
    str     r3, [sp, #4]
    bl      \single
    ldr     r9, [sp, #8]
    b       2b
3:
    add     sp, sp, #16
    pop     {r4-r11, pc}
ENDFUNC \sym
.endm

ENCRYPT_BLOCKS MCU_FN(pipo64_128, encrypt_blocks), MCU_FN(pipo64_128, encrypt), pipo_cm3_core128, r7, r0, r2, r6, r5, r4, r3, r1
ENCRYPT_BLOCKS MCU_FN(pipo64_256, encrypt_blocks), MCU_FN(pipo64_256, encrypt), pipo_cm3_core256, r1, r7, r2, r6, r5, r4, r3, r0
