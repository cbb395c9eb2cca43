/* SPDX-License-Identifier: MIT */
/* ARIA one-block encryption/decryption, the method of paper 002 (Kwak, Kim, Seo: "Benchmarking Korean
 * Block Ciphers on 32-Bit RISC-V Processor", section 5.1 and Table 3), reproduced in RV32I only.
 *
 *   void mcu_ariaN_rv32_paper_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_ariaN_rv32_paper_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *
 * rk: the n+1 round keys as 16-byte strings in specification order (the reference key schedule,
 * ref/aria.c built with ARIA_KEYSCHEDULE_ONLY); decrypt runs the same rounds over the decryption keys.
 *
 * The paper's method, step by step:
 *  - the 16 state bytes live in 16 registers, one byte each, s2..s11 and t0..t5 (paper Table 3);
 *    t6, a5..a7 are the temporaries;
 *  - AddRoundKey and SubstLayer work on each register's low byte in place; the S-boxes are byte tables
 *    (SB1..SB4, 1 KiB together, one base register with the table chosen by the lbu immediate);
 *  - DiffLayer: every register is first shifted left by one byte (paper Fig. 4), so the old byte waits in
 *    bits 8..15 while the new byte is built in bits 0..7: new byte i is (XOR of the seven registers that
 *    A names for it) >> 8, the low bytes of registers already updated falling off the shift; once all
 *    sixteen are done the old bytes are masked away.
 * Each output byte costs 6 XORs, a shift and an OR, as in the paper; the rounds are a loop over an
 * odd/even pair (the paper's code size, 8192 bytes, rules out full unrolling at ~900 bytes a round).
 * What differs from the paper: arguments follow our API (out, in, rk) and the byte loads are lbu, not
 * lb, so no sign bits reach the table index.
 *
 * The S-box look-ups use secret-dependent addresses: timing-constant on the E31 (no data cache) only.
 *
 * Register map:
 *   a0 out   a1 in   a2 rk (advances 32 bytes per round pair)   a3 S-box table base   a4 end pointer
 *   s2..s11, t0..t5  state bytes P0..P15        t6, a5, a6, a7  temporaries
 * s2..s11 are callee-saved: the prologue stores them (40 bytes of stack).
 */
#include "mcucrypt/ns.h"
#include "aria_sbox.h"

#if !defined(ARIA_KEYSCHEDULE_ONLY) || ARIA_KEYSCHEDULE_ONLY != 1
#error "aria_paper.S takes ref/aria.c's key schedule only: build both with ARIA_KEYSCHEDULE_ONLY=1"
#endif

#define OUT a0
#define IN  a1
#define RK  a2
#define TB  a3
#define END a4
#define P0  s2
#define P1  s3
#define P2  s4
#define P3  s5
#define P4  s6
#define P5  s7
#define P6  s8
#define P7  s9
#define P8  s10
#define P9  s11
#define P10 t0
#define P11 t1
#define P12 t2
#define P13 t3
#define P14 t4
#define P15 t5
#define U0  t6
#define U1  a5
#define U2  a6
#define U3  a7

/* Offsets of the byte tables from TB. */
#define SB1 0
#define SB2 256
#define SB3 512
#define SB4 768

/* Four state bytes (key offset off): x ^= rk byte, then x = S(x) for the four S-boxes s0..s3. The key
 * bytes are loaded four at a time so that lbu's 3-cycle latency never stalls the XOR that uses them. */
.macro KEYSUB4 x0, x1, x2, x3, off, s0, s1, s2, s3
    lbu   U0, \off+0(RK)
    lbu   U1, \off+1(RK)
    lbu   U2, \off+2(RK)
    lbu   U3, \off+3(RK)
    xor   \x0, \x0, U0
    xor   \x1, \x1, U1
    xor   \x2, \x2, U2
    xor   \x3, \x3, U3
    add   U0, \x0, TB
    add   U1, \x1, TB
    add   U2, \x2, TB
    add   U3, \x3, TB
    lbu   \x0, \s0(U0)
    lbu   \x1, \s1(U1)
    lbu   \x2, \s2(U2)
    lbu   \x3, \s3(U3)
.endm

/* AddRoundKey and SubstLayer for all 16 bytes: SL1 (odd rounds) uses SB1 SB2 SB3 SB4, SL2 (even rounds
 * and the last round) SB3 SB4 SB1 SB2. */
.macro KEYSUB off, s0, s1, s2, s3
    KEYSUB4 P0, P1, P2, P3, \off+0, \s0, \s1, \s2, \s3
    KEYSUB4 P4, P5, P6, P7, \off+4, \s0, \s1, \s2, \s3
    KEYSUB4 P8, P9, P10, P11, \off+8, \s0, \s1, \s2, \s3
    KEYSUB4 P12, P13, P14, P15, \off+12, \s0, \s1, \s2, \s3
.endm

/* New byte y = XOR of the old bytes (bits 8..15) of the seven registers a..g, into y's low byte. */
.macro DIFF1 y, a, b, c, d, e, f, g
    xor   U0, \a, \b
    xor   U1, \c, \d
    xor   U2, \e, \f
    xor   U0, U0, \g
    xor   U1, U1, U2
    xor   U0, U0, U1
    srli  U0, U0, 8
    or    \y, \y, U0
.endm

/* DiffLayer A (RFC 5794, section 2.4.3) with the paper's one-byte shift. */
.macro DIFFLAYER
    slli  P0, P0, 8
    slli  P1, P1, 8
    slli  P2, P2, 8
    slli  P3, P3, 8
    slli  P4, P4, 8
    slli  P5, P5, 8
    slli  P6, P6, 8
    slli  P7, P7, 8
    slli  P8, P8, 8
    slli  P9, P9, 8
    slli  P10, P10, 8
    slli  P11, P11, 8
    slli  P12, P12, 8
    slli  P13, P13, 8
    slli  P14, P14, 8
    slli  P15, P15, 8
    DIFF1 P0, P3, P4, P6, P8, P9, P13, P14
    DIFF1 P1, P2, P5, P7, P8, P9, P12, P15
    DIFF1 P2, P1, P4, P6, P10, P11, P12, P15
    DIFF1 P3, P0, P5, P7, P10, P11, P13, P14
    DIFF1 P4, P0, P2, P5, P8, P11, P14, P15
    DIFF1 P5, P1, P3, P4, P9, P10, P14, P15
    DIFF1 P6, P0, P2, P7, P9, P10, P12, P13
    DIFF1 P7, P1, P3, P6, P8, P11, P12, P13
    DIFF1 P8, P0, P1, P4, P7, P10, P13, P15
    DIFF1 P9, P0, P1, P5, P6, P11, P12, P14
    DIFF1 P10, P2, P3, P5, P6, P8, P13, P15
    DIFF1 P11, P2, P3, P4, P7, P9, P12, P14
    DIFF1 P12, P1, P2, P6, P7, P9, P11, P12
    DIFF1 P13, P0, P3, P6, P7, P8, P10, P13
    DIFF1 P14, P0, P3, P4, P5, P9, P11, P14
    DIFF1 P15, P1, P2, P4, P5, P8, P10, P15
    andi  P0, P0, 0xff
    andi  P1, P1, 0xff
    andi  P2, P2, 0xff
    andi  P3, P3, 0xff
    andi  P4, P4, 0xff
    andi  P5, P5, 0xff
    andi  P6, P6, 0xff
    andi  P7, P7, 0xff
    andi  P8, P8, 0xff
    andi  P9, P9, 0xff
    andi  P10, P10, 0xff
    andi  P11, P11, 0xff
    andi  P12, P12, 0xff
    andi  P13, P13, 0xff
    andi  P14, P14, 0xff
    andi  P15, P15, 0xff
.endm

/* Byte i of a block at base+off: load into a state register, or store from one. */
.macro LOAD16 base
    lbu   P0, 0(\base)
    lbu   P1, 1(\base)
    lbu   P2, 2(\base)
    lbu   P3, 3(\base)
    lbu   P4, 4(\base)
    lbu   P5, 5(\base)
    lbu   P6, 6(\base)
    lbu   P7, 7(\base)
    lbu   P8, 8(\base)
    lbu   P9, 9(\base)
    lbu   P10, 10(\base)
    lbu   P11, 11(\base)
    lbu   P12, 12(\base)
    lbu   P13, 13(\base)
    lbu   P14, 14(\base)
    lbu   P15, 15(\base)
.endm

/* The last round's final key: out byte = state byte ^ key byte, four at a time as in KEYSUB4. */
.macro FINAL4 x0, x1, x2, x3, off
    lbu   U0, \off+0(RK)
    lbu   U1, \off+1(RK)
    lbu   U2, \off+2(RK)
    lbu   U3, \off+3(RK)
    xor   U0, \x0, U0
    xor   U1, \x1, U1
    xor   U2, \x2, U2
    xor   U3, \x3, U3
    sb    U0, \off-32+0(OUT)
    sb    U1, \off-32+1(OUT)
    sb    U2, \off-32+2(OUT)
    sb    U3, \off-32+3(OUT)
.endm

    .section .rodata.aria_paper_sbox, "a"
/* SB1, SB2, SB3, SB4, 256 bytes each, in that order. */
aria_paper_sbox:
    .byte ARIA_SB1_BYTES
    .byte ARIA_SB2_BYTES
    .byte ARIA_SB3_BYTES
    .byte ARIA_SB4_BYTES
    .size aria_paper_sbox, 1024

    .section .text.aria_paper_core, "ax"
    .balign 4
/* aria_paper_core: a0 out, a1 in, a2 rk, a4 = rk + 16*(n-2), where ek(n-1), the key of the last odd round, is.
 * Internal entry, reached by a tail jump from the exported functions below. */
    .type aria_paper_core, @function
aria_paper_core:
    addi  sp, sp, -48
    sw    s2, 44(sp)
    sw    s3, 40(sp)
    sw    s4, 36(sp)
    sw    s5, 32(sp)
    sw    s6, 28(sp)
    sw    s7, 24(sp)
    sw    s8, 20(sp)
    sw    s9, 16(sp)
    sw    s10, 12(sp)
    sw    s11, 8(sp)
    la    TB, aria_paper_sbox
    LOAD16 IN
.Laria_paper_loop:
    /* Odd round r: key ek(r) at 0(RK), SL1, A. */
    KEYSUB 0, SB1, SB2, SB3, SB4
    DIFFLAYER
    /* After round n-1 (odd) only the last round is left. */
    beq   RK, END, .Laria_paper_last
    /* Even round r+1: key ek(r+1) at 16(RK), SL2, A. */
    KEYSUB 16, SB3, SB4, SB1, SB2
    DIFFLAYER
    addi  RK, RK, 32
    j     .Laria_paper_loop
.Laria_paper_last:
    /* Round n: ek(n), SL2, no diffusion; then ek(n+1) and the store. */
    KEYSUB 16, SB3, SB4, SB1, SB2
    FINAL4 P0, P1, P2, P3, 32
    FINAL4 P4, P5, P6, P7, 36
    FINAL4 P8, P9, P10, P11, 40
    FINAL4 P12, P13, P14, P15, 44
    lw    s2, 44(sp)
    lw    s3, 40(sp)
    lw    s4, 36(sp)
    lw    s5, 32(sp)
    lw    s6, 28(sp)
    lw    s7, 24(sp)
    lw    s8, 20(sp)
    lw    s9, 16(sp)
    lw    s10, 12(sp)
    lw    s11, 8(sp)
    addi  sp, sp, 48
    ret
    .size aria_paper_core, . - aria_paper_core

/* Exported entry points: END = rk + 16*(n-1), then the shared core (it returns to our caller). */
#define ARIA_ENTRY(id, op, rounds)                                  \
    .section .text.MCU_FN(id, op), "ax";                            \
    .balign 4;                                                      \
    .globl MCU_FN(id, op);                                          \
    .type MCU_FN(id, op), @function;                                \
MCU_FN(id, op):                                                     \
    addi  END, RK, 16 * (rounds - 2);                               \
    j     aria_paper_core;                                          \
    .size MCU_FN(id, op), . - MCU_FN(id, op)

ARIA_ENTRY(aria128, encrypt, 12)
ARIA_ENTRY(aria128, decrypt, 12)
ARIA_ENTRY(aria192, encrypt, 14)
ARIA_ENTRY(aria192, decrypt, 14)
ARIA_ENTRY(aria256, encrypt, 16)
ARIA_ENTRY(aria256, decrypt, 16)
