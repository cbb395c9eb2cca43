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

/* The 19 interleaving instructions of one lane: (lo, hi) -> (even bits, odd bits). */
.macro INTERLEAVE lo, hi, t
    XCHG16 \lo, \hi, \t
    XCHG \lo, \hi, \t, 8, 0x00FF00FF
    XCHG \lo, \hi, \t, 4, 0x0F0F0F0F
    XCHG \lo, \hi, \t, 2, 0x33333333
    XCHG \lo, \hi, \t, 1, 0x55555555
.endm

/* Lane k's state words loaded, the interleaved lane (ev, od) XORed in and stored. */
.macro XOR_INTO_STATE k, ev, od
    eor r5, r5, \ev
    eor r6, r6, \od
    str r5, [r0, #4 * \k]
    str r6, [r0, #100 + 4 * \k]
.endm

/* One lane on its own: the input's two words at in + 8k, the state's at s + 4k and s + 100 + 4k.
 * Immediate offsets, not write-back: the M3 pipelines the four loads (5 cycles) only when no base register
 * was written by the instruction before (a write-back base costs +1, TRM 3.3.2). */
.macro XOR_LANE k
    ldr r3, [r1, #8 * \k]
    ldr r12, [r1, #8 * \k + 4]
    ldr r5, [r0, #4 * \k]
    ldr r6, [r0, #100 + 4 * \k]
    INTERLEAVE r3, r12, r4
    XOR_INTO_STATE \k, r3, r12
.endm

/* void mcu_sha3_<impl>_xor_lanes(uint8_t *s, const uint8_t *in, unsigned nlanes);
 *   s: the interleaved state from the first lane to absorb into (word 0 the even bits, word 25 the odd
 *   bits); in: 8 * nlanes bytes, any alignment.
 * Four lanes per iteration (the loop's bookkeeping, 5 cycles, spread over four), software-pipelined: the
 * next lane's input is loaded together with this lane's state words (five cycles for four loads), and no
 * load follows a store directly (a store then a load costs a cycle more on the M3). Then 0..3 lanes one by
 * one. Per lane: 19 + 2 ALU, 4 loads in 5 cycles, 2 stores, so 28 cycles plus 1.25 of the loop.
 * Registers: r0 s (advances one word per lane), r1 in, r2 lanes left, r3/r12 and r7/r8 two lanes' lo ->
 *   even bits and hi -> odd bits, r4 temporary, r5 / r6 the state's even / odd word. */
    .p2align 2
    .global MCU_FN(sha3, xor_lanes)
    .type MCU_FN(sha3, xor_lanes), %function
    .thumb_func
MCU_FN(sha3, xor_lanes):
    push {r4-r8}
    subs r2, r2, #4
    blo 2f
1:
    ldr r3, [r1, #0]
    ldr r12, [r1, #4]
    INTERLEAVE r3, r12, r4
    ldr r7, [r1, #8]
    ldr r8, [r1, #12]
    ldr r5, [r0, #0]
    ldr r6, [r0, #100]
    XOR_INTO_STATE 0, r3, r12
    INTERLEAVE r7, r8, r4
    ldr r3, [r1, #16]
    ldr r12, [r1, #20]
    ldr r5, [r0, #4]
    ldr r6, [r0, #104]
    XOR_INTO_STATE 1, r7, r8
    INTERLEAVE r3, r12, r4
    ldr r7, [r1, #24]
    ldr r8, [r1, #28]
    ldr r5, [r0, #8]
    ldr r6, [r0, #108]
    XOR_INTO_STATE 2, r3, r12
    INTERLEAVE r7, r8, r4
    ldr r5, [r0, #12]
    ldr r6, [r0, #112]
    XOR_INTO_STATE 3, r7, r8
    adds r1, r1, #32
    adds r0, r0, #16
    subs r2, r2, #4
    bhs 1b
2:
    adds r2, r2, #4     /* 0..3 lanes left */
    beq 4f
3:
    XOR_LANE 0
    adds r1, r1, #8
    adds r0, r0, #4
    subs r2, r2, #1
    bne 3b
4:
    pop {r4-r8}
    bx lr
    .size MCU_FN(sha3, xor_lanes), . - MCU_FN(sha3, xor_lanes)

/* The 19 de-interleaving instructions of one lane: (even bits, odd bits) -> (lo, hi). */
.macro DEINTERLEAVE ev, od, t
    XCHG \ev, \od, \t, 1, 0x55555555
    XCHG \ev, \od, \t, 2, 0x33333333
    XCHG \ev, \od, \t, 4, 0x0F0F0F0F
    XCHG \ev, \od, \t, 8, 0x00FF00FF
    XCHG16 \ev, \od, \t
.endm

/* One lane on its own, back to FIPS 202 order: the state's words at s + 4k and s + 100 + 4k, the output
 * at out + 8k. */
.macro EXTRACT_LANE k
    ldr r3, [r1, #4 * \k]
    ldr r12, [r1, #100 + 4 * \k]
    DEINTERLEAVE r3, r12, r4
    str r3, [r0, #8 * \k]
    str r12, [r0, #8 * \k + 4]
.endm

/* void mcu_sha3_<impl>_extract_lanes(uint8_t *out, const uint8_t *s, unsigned nlanes);
 *   out: 8 * nlanes bytes, any alignment, the lanes in FIPS 202 byte order; s: as for xor_lanes.
 * Four lanes per iteration, software-pipelined like xor_lanes (the next lane's words are loaded before
 * this lane's are stored: no load right after a store); then 0..3 lanes one by one.
 * Registers: r0 out, r1 s, r2 lanes left, r3/r12 and r5/r6 two lanes' even bits -> lo and odd bits -> hi,
 *   r4 temporary. */
    .p2align 2
    .global MCU_FN(sha3, extract_lanes)
    .type MCU_FN(sha3, extract_lanes), %function
    .thumb_func
MCU_FN(sha3, extract_lanes):
    push {r4-r6}
    subs r2, r2, #4
    blo 2f
1:
    ldr r3, [r1, #0]
    ldr r12, [r1, #100]
    DEINTERLEAVE r3, r12, r4
    ldr r5, [r1, #4]
    ldr r6, [r1, #104]
    str r3, [r0, #0]
    str r12, [r0, #4]
    DEINTERLEAVE r5, r6, r4
    ldr r3, [r1, #8]
    ldr r12, [r1, #108]
    str r5, [r0, #8]
    str r6, [r0, #12]
    DEINTERLEAVE r3, r12, r4
    ldr r5, [r1, #12]
    ldr r6, [r1, #112]
    str r3, [r0, #16]
    str r12, [r0, #20]
    DEINTERLEAVE r5, r6, r4
    str r5, [r0, #24]
    str r6, [r0, #28]
    adds r0, r0, #32
    adds r1, r1, #16
    subs r2, r2, #4
    bhs 1b
2:
    adds r2, r2, #4     /* 0..3 lanes left */
    beq 4f
3:
    EXTRACT_LANE 0
    adds r0, r0, #8
    adds r1, r1, #4
    subs r2, r2, #1
    bne 3b
4:
    pop {r4-r6}
    bx lr
    .size MCU_FN(sha3, extract_lanes), . - MCU_FN(sha3, extract_lanes)

/* void mcu_sha3_<impl>_zero_state(uint8_t *s);
 *   s: the 200-byte state, word-aligned. Zeroes it (the sponge's start, and the one-shot's wipe of the
 *   message's last blocks): six STM of eight zero registers and one of two, 59 cycles, where the C loop
 *   (compiled to a memset call, or a volatile word loop for the wipe) took several times that. An
 *   external call, so the wipe cannot be optimised away.
 * Registers: r0 s (advances), r1-r3, r12 and r4-r7 (saved) zero. */
    .p2align 2
    .global MCU_FN(sha3, zero_state)
    .type MCU_FN(sha3, zero_state), %function
    .thumb_func
MCU_FN(sha3, zero_state):
    push {r4-r7}
    movs r1, #0
    movs r2, #0
    movs r3, #0
    mov r12, #0
    movs r4, #0
    movs r5, #0
    movs r6, #0
    movs r7, #0
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1-r7, r12}
    stmia r0!, {r1, r2}
    pop {r4-r7}
    bx lr
    .size MCU_FN(sha3, zero_state), . - MCU_FN(sha3, zero_state)
