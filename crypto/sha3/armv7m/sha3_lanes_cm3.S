/* SPDX-License-Identifier: MIT */
/* SHA-3 on the Cortex-M3: absorbing into and squeezing from the bit-interleaved state of armv7m-fast's
 * and armv7m-compact's Keccak-f[1600] (crypto/keccak/armv7m/keccak_cm3.h: word i holds the even bits of
 * lane i, word 25 + i its odd bits), one lane at a time, so the sponge never converts the whole state.
 *
 * Trick: interleaving a 64-bit lane (lo, hi) sends lane bit b5 b4 b3 b2 b1 b0 (b5: which word) to word b0,
 * bit b5 b4 b3 b2 b1: a rotation of the six index bits, written as five transpositions that all involve
 * b5 (b5<->b4, b5<->b3, b5<->b2, b5<->b1, b5<->b0). A transposition with b5 exchanges bits between the
 * two words: t = ((lo >> d) ^ hi) & m; hi ^= t; lo ^= t << d (d = 2^j, m = the bits whose bit j of the
 * index is 0), four instructions with the shifts as barrel-shifter operands and the masks as Thumb-2
 * immediates; b5<->b4 is two BFI and a shift. 19 instructions per lane, against 36 for unzipping each word
 * by four delta swaps and then regrouping the halves. De-interleaving runs the five in reverse order.
 *
 * No branch but the lane count (public), fixed addresses: constant time. Unaligned LDR/STR (allowed on
 * the M3 for single-word transfers) let the data have any alignment; the state is word-aligned.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
    .text

/* t = ((lo >> d) ^ hi) & m; hi ^= t; lo ^= t << d: the index bits b5 and log2(d) exchanged. */
.macro XCHG lo, hi, t, d, m
    eor \t, \hi, \lo, lsr #\d
    and \t, \t, #\m
    eor \hi, \hi, \t
    eor \lo, \lo, \t, lsl #\d
.endm

/* b5 <-> b4: the upper half of lo and the lower half of hi exchanged. */
.macro XCHG16 lo, hi, t
    lsr \t, \lo, #16
    bfi \lo, \hi, #16, #16
    bfi \hi, \t, #0, #16
.endm

/* One lane: the input's two words at in + 8k, the state's at s + 4k and s + 100 + 4k, interleaved and XORed.
 * Immediate offsets, not write-back: the M3 pipelines the four loads (5 cycles) only when no base register
 * was written by the instruction before (a write-back base costs +1, TRM 3.3.2). */
.macro XOR_LANE k
    ldr r3, [r1, #8 * \k]
    ldr r12, [r1, #8 * \k + 4]
    ldr r5, [r0, #4 * \k]
    ldr r6, [r0, #100 + 4 * \k]
    XCHG16 r3, r12, r4
    XCHG r3, r12, r4, 8, 0x00FF00FF
    XCHG r3, r12, r4, 4, 0x0F0F0F0F
    XCHG r3, r12, r4, 2, 0x33333333
    XCHG r3, r12, r4, 1, 0x55555555
    eor r5, r5, r3
    eor r6, r6, r12
    str r6, [r0, #100 + 4 * \k]
    str r5, [r0, #4 * \k]
.endm

/* void mcu_sha3_<impl>_xor_lanes(uint8_t *s, const uint8_t *in, unsigned nlanes);
 *   s: the interleaved state from the first lane to absorb into (word 0 the even bits, word 25 the odd
 *   bits); in: 8 * nlanes bytes, any alignment.
 * Two lanes per iteration (the loop's branch costs 3 cycles), then an odd last lane.
 * Registers: r0 s (advances one word per lane), r1 in, r2 lanes left, r3 lo -> even bits, r12 hi -> odd
 *   bits, r4 temporary, r5 / r6 the state's even / odd word. */
    .p2align 2
    .global MCU_FN(sha3, xor_lanes)
    .type MCU_FN(sha3, xor_lanes), %function
    .thumb_func
MCU_FN(sha3, xor_lanes):
    push {r4-r6}
    subs r2, r2, #2
    blo 2f
1:
    XOR_LANE 0
    XOR_LANE 1
    adds r1, r1, #16
    adds r0, r0, #8
    subs r2, r2, #2
    bhs 1b
2:
    lsls r2, r2, #31    /* Z clear: one lane left (r2 = -1) */
    beq 3f
    XOR_LANE 0
3:
    pop {r4-r6}
    bx lr
    .size MCU_FN(sha3, xor_lanes), . - MCU_FN(sha3, xor_lanes)

/* One lane back to FIPS 202 order: the state's words at s + 4k and s + 100 + 4k, the output at out + 8k. */
.macro EXTRACT_LANE k
    ldr r3, [r1, #4 * \k]
    ldr r12, [r1, #100 + 4 * \k]
    XCHG r3, r12, r4, 1, 0x55555555
    XCHG r3, r12, r4, 2, 0x33333333
    XCHG r3, r12, r4, 4, 0x0F0F0F0F
    XCHG r3, r12, r4, 8, 0x00FF00FF
    XCHG16 r3, r12, r4
    str r3, [r0, #8 * \k]
    str r12, [r0, #8 * \k + 4]
.endm

/* void mcu_sha3_<impl>_extract_lanes(uint8_t *out, const uint8_t *s, unsigned nlanes);
 *   out: 8 * nlanes bytes, any alignment, the lanes in FIPS 202 byte order; s: as for xor_lanes.
 * Two lanes per iteration with immediate offsets, like xor_lanes; then an odd last lane.
 * Registers: r0 out, r1 s, r2 lanes left, r3 even bits -> lo, r12 odd bits -> hi, r4 temporary. */
    .p2align 2
    .global MCU_FN(sha3, extract_lanes)
    .type MCU_FN(sha3, extract_lanes), %function
    .thumb_func
MCU_FN(sha3, extract_lanes):
    push {r4}
    subs r2, r2, #2
    blo 2f
1:
    EXTRACT_LANE 0
    EXTRACT_LANE 1
    adds r0, r0, #16
    adds r1, r1, #8
    subs r2, r2, #2
    bhs 1b
2:
    lsls r2, r2, #31    /* Z clear: one lane left (r2 = -1) */
    beq 3f
    EXTRACT_LANE 0
3:
    pop {r4}
    bx lr
    .size MCU_FN(sha3, extract_lanes), . - MCU_FN(sha3, extract_lanes)
