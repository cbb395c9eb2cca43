/* SPDX-License-Identifier: MIT */
/* ARIA 32-bit T-tables for rv32-fast and rv32-zbb (4 KiB of .rodata, which the rv32 linker script puts in
 * the E31's 16 KiB DTIM: one-cycle loads, no flash wait).
 *
 * Word layout: the 16-byte state is four little-endian words, word w holding bytes 4w..4w+3 with byte 4w
 * in bits 0..7. The diffusion A factors as A = M . P . M . D (derived and checked in docs/aria.md):
 * D maps each byte of a word to the XOR of the word's three other bytes, M is a word-level XOR network and
 * P permutes bytes inside words. D is folded into the tables: table Tj, used for the byte in position j of
 * a word, holds S(v) in the three byte positions other than j:
 *   T0 = SB1(v) * 0x01010100    T1 = SB2(v) * 0x01010001
 *   T2 = SB3(v) * 0x01000101    T3 = SB4(v) * 0x00010101
 * Odd rounds (SL1 = SB1 SB2 SB3 SB4) use Tj for position j. Even rounds (SL2 = SB3 SB4 SB1 SB2) use
 * T(j+2 mod 4) for position j: that spreads S(v) over the bytes other than j+2, i.e. D followed by the
 * half-word swap r16, which commutes with M and is absorbed into the even rounds' P. Four tables serve
 * both round types, and byte j of the entry T(j+2 mod 4)[v] is the bare SL2 output the last round needs.
 *
 * The tables are generated here by the assembler from the S-box byte lists: no precomputed words. */
#include "mcucrypt/ns.h"
#include "aria_sbox.h"

    .section .rodata.aria_t32, "a"
    .balign 4
    .globl MCU_FN(aria, t32)
    .type MCU_FN(aria, t32), @object
MCU_FN(aria, t32):
    .irp v, ARIA_SB1_BYTES
    .word (\v) * 0x01010100
    .endr
    .irp v, ARIA_SB2_BYTES
    .word (\v) * 0x01010001
    .endr
    .irp v, ARIA_SB3_BYTES
    .word (\v) * 0x01000101
    .endr
    .irp v, ARIA_SB4_BYTES
    .word (\v) * 0x00010101
    .endr
    .size MCU_FN(aria, t32), 4096
