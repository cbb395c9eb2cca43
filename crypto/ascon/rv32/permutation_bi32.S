// SPDX-License-Identifier: MIT
/* Ascon-p on RV32 with Zbb/Zbkb (rv32-zbkb): bit-interleaved lanes, all ten words in registers,
 * twelve rounds unrolled.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 * uint64_t mcu_ascon_<impl>_to_bi(uint64_t x);      lane -> (even bits, odd bits)
 * uint64_t mcu_ascon_<impl>_from_bi(uint64_t x);    and back
 *
 * Representation (ASCON_INTERLEAVED in ascon.h): lane i is two words, e = its 32 even bits (low word
 * of s->x[i]) and o = its 32 odd bits. A 64-bit rotation by 2k rotates e and o by k; by 2k + 1 it gives
 * e' = o >>> k, o' = e >>> (k + 1). So Si ^= (Si >>> a) ^ (Si >>> b) costs four RORIs and four XORs a
 * lane (the four rotations first into temporaries, then XORed in place: no copies).
 * Zbkb's UNZIP/ZIP separate and merge the even and odd bits of a word in one instruction each, so a
 * lane converts in six instructions (to_bi / from_bi, called by the C modes per absorbed lane).
 *
 * Register map: S0 = (s0 e, s1 o), S1 = (s2, s3), S2 = (s4, s5), S3 = (s6, s7), S4 = (s8, s9);
 *   temporaries t0-t6, a4 (the rounds clobber them); a0 state pointer.
 * S-box: 15 instructions a 32-bit slice (ORN, ANDN). Round: 30 + 39 + 2 (constant: its even and odd
 * bits go to S2's two words) = 71 instructions, all fixed-latency: constant time. */
#include "mcucrypt/ns.h"

/* One 32-bit slice of the S-box in 15 instructions (OR/ORN/ANDN form, docs/ascon.md): with
 * t1 = x0^x4, t2 = x3^x4, t0 = x1^x2 the outputs are y0 = ((x2^t1) | x1) ^ t2,
 * y1 = ((x3^x1) | t0) ^ t1, y2 = (x3 | ~x4) ^ t0, y3 = (x0 | t2) ^ t0, y4 = (x1 & ~t1) ^ t2.
 * They land in x2, x3, x4, t0, x1 (x0, t1, t2 end free); the linear layer writes every lane back to
 * its own registers. */
.macro SBOX x0, x1, x2, x3, x4, t0, t1, t2
    xor     \t1, \x0, \x4
    xor     \t2, \x3, \x4
    xor     \t0, \x1, \x2
    orn     \x4, \x3, \x4
    xor     \x4, \x4, \t0                # y2
    xor     \x3, \x3, \x1
    or      \x3, \x3, \t0
    xor     \x3, \x3, \t1                # y1
    xor     \x2, \x2, \t1
    or      \x2, \x2, \x1
    xor     \x2, \x2, \t2                # y0
    or      \x0, \x0, \t2
    xor     \t0, \t0, \x0                # y3
    andn    \x1, \x1, \t1
    xor     \x1, \x1, \t2                # y4
.endm

/* Lane now in (e, o), back into (de, do): de = e ^ se1>>>re1 ^ se2>>>re2, do = o ^ so1>>>ro1 ^ so2>>>ro2
 * (the sources are e or o; the four rotations first, so de and do may be any free registers). */
.macro LIN de, do, e, o, se1, re1, se2, re2, so1, ro1, so2, ro2
    rori    t0, \se1, \re1
    rori    t1, \se2, \re2
    rori    t2, \so1, \ro1
    rori    t3, \so2, \ro2
    xor     \de, \e, t0
    xor     \de, \de, t1
    xor     \do, \o, t2
    xor     \do, \do, t3
.endm

/* Round constant c: bits 0, 2, 4, 6 into S2's even word, bits 1, 3, 5, 7 into its odd word.
 * After the S-boxes S0 is in (s4, s5), S1 in (s6, s7), S2 in (s8, s9), S3 in (t6, a4), S4 in (s2, s3);
 * s0, s1 are free, and the lanes go home in the order S0, S2, S4, S1, S3, each into the registers
 * the previous one left. */
.macro ROUND ce, co
    xori    s4, s4, \ce
    xori    s5, s5, \co
    SBOX    s0, s2, s4, s6, s8, t6, t4, t5
    SBOX    s1, s3, s5, s7, s9, a4, t4, t5
    /* S0 (19 = 2*9+1, 28 = 2*14): e ^= o>>>9 ^ e>>>14; o ^= e>>>10 ^ o>>>14 */
    LIN     s0, s1, s4, s5, s5, 9, s4, 14, s4, 10, s5, 14
    /* S2 (1 = 2*0+1, 6 = 2*3): e ^= o ^ e>>>3; o ^= e>>>1 ^ o>>>3 (o>>>0 is o: no rotation) */
    rori    t0, s8, 3
    rori    t2, s8, 1
    rori    t3, s9, 3
    xor     s4, s8, s9
    xor     s4, s4, t0
    xor     s5, s9, t2
    xor     s5, s5, t3
    /* S4 (7 = 2*3+1, 41 = 2*20+1): e ^= o>>>3 ^ o>>>20; o ^= e>>>4 ^ e>>>21 */
    LIN     s8, s9, s2, s3, s3, 3, s3, 20, s2, 4, s2, 21
    /* S1 (61 = 2*30+1, 39 = 2*19+1): e ^= o>>>30 ^ o>>>19; o ^= e>>>31 ^ e>>>20 */
    LIN     s2, s3, s6, s7, s7, 30, s7, 19, s6, 31, s6, 20
    /* S3 (10 = 2*5, 17 = 2*8+1): e ^= e>>>5 ^ o>>>8; o ^= o>>>5 ^ e>>>9 */
    LIN     s6, s7, t6, a4, t6, 5, a4, 8, a4, 5, t6, 9
.endm

/* Even and odd bits of the round constants 0xf0, 0xe1, ..., 0x4b. */
#define EVEN(c) (((c) & 1) | (((c) >> 1) & 2) | (((c) >> 2) & 4) | (((c) >> 3) & 8))
#define ODD(c) EVEN((c) >> 1)
#define RC(c) ROUND EVEN(c), ODD(c)

.macro PROLOGUE
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
    sw      ra, 40(sp)
    lw      s0, 0(a0)
    lw      s1, 4(a0)
    lw      s2, 8(a0)
    lw      s3, 12(a0)
    lw      s4, 16(a0)
    lw      s5, 20(a0)
    lw      s6, 24(a0)
    lw      s7, 28(a0)
    lw      s8, 32(a0)
    lw      s9, 36(a0)
.endm

.macro EPILOGUE
    sw      s0, 0(a0)
    sw      s1, 4(a0)
    sw      s2, 8(a0)
    sw      s3, 12(a0)
    sw      s4, 16(a0)
    sw      s5, 20(a0)
    sw      s6, 24(a0)
    sw      s7, 28(a0)
    sw      s8, 32(a0)
    sw      s9, 36(a0)
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
    lw      ra, 40(sp)
    addi    sp, sp, 48
    ret
.endm

/* lane (lo, hi) -> (e, o); lo and hi clobbered. UNZIP puts a word's even bits in its low half and its
 * odd bits in its high half; PACK joins two low halves. */
.macro TOBI lo, hi, e, o
    unzip   \lo, \lo
    unzip   \hi, \hi
    pack    \e, \lo, \hi
    srli    \lo, \lo, 16
    srli    \hi, \hi, 16
    pack    \o, \lo, \hi
.endm

/* (e, o) -> lane (lo, hi); e and o kept; t4, t5 clobbered. */
.macro FROMBI e, o, lo, hi
    pack    \lo, \e, \o
    srli    t4, \e, 16
    srli    t5, \o, 16
    pack    \hi, t4, t5
    zip     \lo, \lo
    zip     \hi, \hi
.endm

/* The rounds on s0..s9, called with JAL ra: Ascon-p[12] at .Lascon_bi_r12, Ascon-p[8] at
 * .Lascon_bi_r8; t0-t6 and a4 clobbered. */
    .section .text.ascon_rounds_rv32_bi32, "ax", @progbits
    .align 2
.Lascon_bi_r12:
    RC(0xf0)
    RC(0xe1)
    RC(0xd2)
    RC(0xc3)
.Lascon_bi_r8:
    RC(0xb4)
    RC(0xa5)
    RC(0x96)
    RC(0x87)
    RC(0x78)
    RC(0x69)
    RC(0x5a)
    RC(0x4b)
    ret

    .globl MCU_FN(ascon, permute)
    .type MCU_FN(ascon, permute), @function
MCU_FN(ascon, permute):
    PROLOGUE
    li      t0, 8
    beq     a1, t0, 1f
    jal     ra, .Lascon_bi_r12
    j       2f
1:  jal     ra, .Lascon_bi_r8
2:  EPILOGUE
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)

/* Whole blocks with the state kept in registers (called by ascon.c for 4-byte-aligned buffers):
 * void absorb16(ascon_state_t *s, const uint8_t *in, size_t nblocks);   AD: S0, S1 ^= block; p8
 * void encrypt16(ascon_state_t *s, uint8_t *out, const uint8_t *in, size_t nblocks);
 * void decrypt16(ascon_state_t *s, uint8_t *out, const uint8_t *in, size_t nblocks);
 * void absorb8(ascon_state_t *s, const uint8_t *in, size_t nblocks);    hash: S0 ^= block; p12
 * nblocks >= 1. a4-a7, t4, t5 carry the words in and out (dead while the rounds run). */
    .globl MCU_FN(ascon, absorb16)
    .type MCU_FN(ascon, absorb16), @function
MCU_FN(ascon, absorb16):
    PROLOGUE
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    TOBI    a4, a5, a6, a7
    xor     s0, s0, a6
    xor     s1, s1, a7
    lw      a4, 8(a1)
    lw      a5, 12(a1)
    TOBI    a4, a5, a6, a7
    xor     s2, s2, a6
    xor     s3, s3, a7
    jal     ra, .Lascon_bi_r8
    addi    a1, a1, 16
    addi    a2, a2, -1
    bnez    a2, 1b
    EPILOGUE
    .size MCU_FN(ascon, absorb16), . - MCU_FN(ascon, absorb16)

    .globl MCU_FN(ascon, encrypt16)
    .type MCU_FN(ascon, encrypt16), @function
MCU_FN(ascon, encrypt16):
    PROLOGUE
1:  lw      a4, 0(a2)
    lw      a5, 4(a2)
    TOBI    a4, a5, a6, a7
    xor     s0, s0, a6
    xor     s1, s1, a7
    lw      a4, 8(a2)
    lw      a5, 12(a2)
    TOBI    a4, a5, a6, a7
    xor     s2, s2, a6
    xor     s3, s3, a7
    FROMBI  s0, s1, a4, a5
    sw      a4, 0(a1)
    sw      a5, 4(a1)
    FROMBI  s2, s3, a4, a5
    sw      a4, 8(a1)
    sw      a5, 12(a1)
    jal     ra, .Lascon_bi_r8
    addi    a1, a1, 16
    addi    a2, a2, 16
    addi    a3, a3, -1
    bnez    a3, 1b
    EPILOGUE
    .size MCU_FN(ascon, encrypt16), . - MCU_FN(ascon, encrypt16)

    .globl MCU_FN(ascon, decrypt16)
    .type MCU_FN(ascon, decrypt16), @function
MCU_FN(ascon, decrypt16):
    PROLOGUE
1:  lw      a4, 0(a2)
    lw      a5, 4(a2)
    TOBI    a4, a5, a6, a7              # ciphertext lane 0, interleaved
    xor     s0, s0, a6                  # plaintext = S ^ c ...
    xor     s1, s1, a7
    FROMBI  s0, s1, a4, a5
    sw      a4, 0(a1)
    sw      a5, 4(a1)
    mv      s0, a6                      # ... and S takes c
    mv      s1, a7
    lw      a4, 8(a2)
    lw      a5, 12(a2)
    TOBI    a4, a5, a6, a7
    xor     s2, s2, a6
    xor     s3, s3, a7
    FROMBI  s2, s3, a4, a5
    sw      a4, 8(a1)
    sw      a5, 12(a1)
    mv      s2, a6
    mv      s3, a7
    jal     ra, .Lascon_bi_r8
    addi    a1, a1, 16
    addi    a2, a2, 16
    addi    a3, a3, -1
    bnez    a3, 1b
    EPILOGUE
    .size MCU_FN(ascon, decrypt16), . - MCU_FN(ascon, decrypt16)

    .globl MCU_FN(ascon, absorb8)
    .type MCU_FN(ascon, absorb8), @function
MCU_FN(ascon, absorb8):
    PROLOGUE
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    TOBI    a4, a5, a6, a7
    xor     s0, s0, a6
    xor     s1, s1, a7
    jal     ra, .Lascon_bi_r12
    addi    a1, a1, 8
    addi    a2, a2, -1
    bnez    a2, 1b
    EPILOGUE
    .size MCU_FN(ascon, absorb8), . - MCU_FN(ascon, absorb8)

/* (a0 = low, a1 = high) -> (a0 = even bits, a1 = odd bits). UNZIP puts a word's even bits in its low
 * half and its odd bits in its high half; PACK joins two low halves. */
    .section .text.ascon_to_bi_rv32, "ax", @progbits
    .align 2
    .globl MCU_FN(ascon, to_bi)
    .type MCU_FN(ascon, to_bi), @function
MCU_FN(ascon, to_bi):
    unzip   a0, a0
    unzip   a1, a1
    pack    t0, a0, a1                  # even: low halves
    srli    a0, a0, 16
    srli    a1, a1, 16
    pack    a1, a0, a1                  # odd: high halves
    mv      a0, t0
    ret
    .size MCU_FN(ascon, to_bi), . - MCU_FN(ascon, to_bi)

/* (a0 = even bits, a1 = odd bits) -> (a0 = low, a1 = high): the inverse, with ZIP. */
    .section .text.ascon_from_bi_rv32, "ax", @progbits
    .align 2
    .globl MCU_FN(ascon, from_bi)
    .type MCU_FN(ascon, from_bi), @function
MCU_FN(ascon, from_bi):
    pack    t0, a0, a1                  # low 16 even bits | low 16 odd bits << 16
    srli    a0, a0, 16
    srli    a1, a1, 16
    pack    a1, a0, a1
    zip     a0, t0
    zip     a1, a1
    ret
    .size MCU_FN(ascon, from_bi), . - MCU_FN(ascon, from_bi)
