/* SPDX-License-Identifier: MIT */
/* TinyJAMBU keyed permutation for 8-bit AVR (ATmega128) with the reverse-shift technique of paper 004
 * (Kwon, Eum, Sim, Yang, Seo, 2023, section 3.2 and Table 5): the paper "R" implementation (avr-revshift).
 *
 * C prototype (crypto/tinyjambu/ref/tinyjambu_perm.h), one per key size N = 128, 192, 256:
 *   void mcu_tinyjambuN_avr_revshift_perm(uint32_t *state, const uint8_t *key, uint16_t steps);
 *   state: the specification state, four little-endian 32-bit words in SRAM; steps: a multiple of 128.
 *
 * Structure, as the paper builds on the designers optimized code: 128 steps per iteration as four
 * 32-step word updates in place (words never move), the state kept in SRAM and read with LDD / written
 * with STD around each update, key bytes read once per 32 steps. Each update computes the four taps as
 * 32-bit values, t1 = (s1 >> 15) | (s2 << 17), t2 = (s2 >> 6) | (s3 << 26), t3 = (s2 >> 21) | (s3 << 11),
 * t4 = (s2 >> 27) | (s3 << 5), then s0 ^= t1 ^ ~(t2 & t3) ^ t4 ^ k, with the reverse-shift trick:
 *   s2 >> 6   six right shifts of the four bytes of s2                                  (Table 5: 6)
 *   s2 >> 21  = ((s2 >> 6) >> 16) << 1: bytes 2..3 of the previous value, ONE left shift (Table 5: 1)
 *   s2 >> 27  = ((s2 >> 21) >> 8) << 2: byte 1 of the previous value, TWO left shifts     (Table 5: 2)
 *   s3 << 5   five left shifts of the four bytes of s3                                  (Table 5: 5)
 *   s3 << 11  = ((s3 << 5) << 8) >> 2: the previous value one byte up, TWO right shifts    (Table 5: 2)
 *   s3 << 26  = ((s3 << 11) << 16) >> 1: its bytes 1..2 two bytes up, ONE right shift     (Table 5: 1)
 *   s1 >> 15 | s2 << 17  = bytes 1..3 of s1 and 0..1 of s2, ONE left shift       (Table 5: 1 and 1)
 * so a value needing a long shift is made from the previous one by a byte move and a short shift in
 * the opposite direction; only the registers that still carry bits are shifted (4, then 3, then 2).
 * About 150 cycles per 32 steps (the paper reports 3594 cycles for P_640, 180 per 32 steps).
 *
 * Register map (per 32-step update of word j; sN = word j+N mod 4 of the state in SRAM)
 *   r18..r21  A: the new word, s0 ^ t1 ^ k ^ t4 ^ ~(t2 & t3), LSB first
 *   r22..r26  the 40-bit window s1[1..3] s2[0..1] for t1; r22 also carries key bytes
 *   r2..r5    P = s2 >> 6, later t2 = P | (s3 << 26), then t2 & t3
 *   r6..r7    Q = s2 >> 21 (11 bits)       r8  R = s2 >> 27 (5 bits)      r9  carry scratch
 *   r10..r13  U = s3 << 5, then shifted right twice into s3 << 11 (bytes 1..3 are r10..r12)
 *   r14..r15  s3 << 26 scratch (r14 ends as its top byte)
 *   r27       chunk counter (steps / 128)
 *   Y r28:r29 state pointer       Z r30:r31 key pointer
 * Constant time: no branch or address depends on the state or the key; only on steps (public).
 */
#include "mcucrypt/ns.h"
#include "../ref/tinyjambu_perm.h"

#if TJ_COMPLEMENTED_STATE != 0 || TJ_ASM_BLOCKS != 0
#error "avr-revshift keeps the specification's state and has no block loop: TJ_COMPLEMENTED_STATE=0, TJ_ASM_BLOCKS=0"
#endif

/* SRAM offset of byte b of word (j + n) mod 4 */
#define WB(j, n, b) (4 * (((j) + (n)) & 3) + (b))

.macro TJR_WORD j, koff
    /* A = s0 */
    ldd r18, Y + WB(\j, 0, 0)
    ldd r19, Y + WB(\j, 0, 1)
    ldd r20, Y + WB(\j, 0, 2)
    ldd r21, Y + WB(\j, 0, 3)
    /* t1 = s1 >> 15 | s2 << 17: bytes s1[1..3] s2[0..1] shifted left once, top four taken */
    ldd r22, Y + WB(\j, 1, 1)
    ldd r23, Y + WB(\j, 1, 2)
    ldd r24, Y + WB(\j, 1, 3)
    ldd r25, Y + WB(\j, 2, 0)
    ldd r26, Y + WB(\j, 2, 1)
    lsl r22
    rol r23
    rol r24
    rol r25
    rol r26
    eor r18, r23
    eor r19, r24
    eor r20, r25
    eor r21, r26
    /* the key word */
    ldd r22, Z + \koff
    eor r18, r22
    ldd r22, Z + \koff + 1
    eor r19, r22
    ldd r22, Z + \koff + 2
    eor r20, r22
    ldd r22, Z + \koff + 3
    eor r21, r22
    /* P = s2 >> 6: six right shifts of four bytes */
    ldd r2, Y + WB(\j, 2, 0)
    ldd r3, Y + WB(\j, 2, 1)
    ldd r4, Y + WB(\j, 2, 2)
    ldd r5, Y + WB(\j, 2, 3)
    .rept 6
    lsr r5
    ror r4
    ror r3
    ror r2
    .endr
    /* reverse shift: Q = s2 >> 21 = (P >> 15) = bytes 2..3 of P shifted LEFT once, bit 15 of P
     * (bit 7 of byte 1) entering from below: three registers, one shift */
    movw r6, r4
    mov r9, r3
    lsl r9
    rol r6
    rol r7
    /* reverse shift: R = s2 >> 27 = (Q >> 6) = byte 1 of Q shifted LEFT twice, from byte 0 */
    mov r8, r7
    mov r9, r6
    lsl r9
    rol r8
    lsl r9
    rol r8
    /* U = s3 << 5: five left shifts of four bytes */
    ldd r10, Y + WB(\j, 3, 0)
    ldd r11, Y + WB(\j, 3, 1)
    ldd r12, Y + WB(\j, 3, 2)
    ldd r13, Y + WB(\j, 3, 3)
    .rept 5
    lsl r10
    rol r11
    rol r12
    rol r13
    .endr
    /* t4 = R | U (disjoint bits: R is bits 0..4, U has bits 0..4 clear) goes straight into A */
    eor r18, r8
    eor r18, r10
    eor r19, r11
    eor r20, r12
    eor r21, r13
    /* reverse shift: s3 << 11 = (U << 8) >> 2: U shifted RIGHT twice, read one byte up, so its bytes 1..3
     * are r10..r12 (byte 0 is zero; the bits shifted out of r10 are U bits 0..1, zero) */
    .rept 2
    lsr r13
    ror r12
    ror r11
    ror r10
    .endr
    /* reverse shift: s3 << 26 = ((s3 << 11) << 16) >> 1: its bytes 1..2 shifted RIGHT once give byte 3 */
    movw r14, r10
    lsr r15
    ror r14
    /* t2 = P | s3 << 26 (only byte 3 overlaps), t3 = Q | s3 << 11 = [Q0, Q1 | r10, r11, r12] */
    or r5, r14
    or r7, r10
    /* A ^= ~(t2 & t3) */
    and r2, r6
    and r3, r7
    and r4, r11
    and r5, r12
    com r2
    com r3
    com r4
    com r5
    eor r18, r2
    eor r19, r3
    eor r20, r4
    eor r21, r5
    std Y + WB(\j, 0, 0), r18
    std Y + WB(\j, 0, 1), r19
    std Y + WB(\j, 0, 2), r20
    std Y + WB(\j, 0, 3), r21
.endm

/* 128 steps: chunk c of a key with kw words uses key words (4c + j) mod kw, j = 0..3. */
.macro TJR_CHUNK c, kw
    TJR_WORD 0, 4 * ((4 * \c + 0) % \kw)
    TJR_WORD 1, 4 * ((4 * \c + 1) % \kw)
    TJR_WORD 2, 4 * ((4 * \c + 2) % \kw)
    TJR_WORD 3, 4 * ((4 * \c + 3) % \kw)
.endm

.macro TJR_NEXT name
    dec r27
    brne .L\name\()_more\@
    rjmp .L\name\()_done
.L\name\()_more\@:
.endm

/* One permutation; the loop body is nchunks chunks of 128 steps (1, 3 or 2: whole cycles of the key). */
.macro TJR_PERMUTATION perm, kw, nchunks
    .section .text.\perm, "ax", @progbits
    .global \perm
    .type \perm, @function
\perm:
    .irp r, 2,3,4,5,6,7,8,9,10,11,12,13,14,15,28,29
    push \r
    .endr
    movw r28, r24                   /* Y = state */
    movw r30, r22                   /* Z = key */
    lsl r20                         /* chunks = steps >> 7 (steps < 32768) */
    rol r21
    mov r27, r21
    tst r27
    brne .L\perm\()_loop
    rjmp .L\perm\()_done
.L\perm\()_loop:
    TJR_CHUNK 0, \kw
    .if \nchunks > 1
    TJR_NEXT \perm
    TJR_CHUNK 1, \kw
    .endif
    .if \nchunks > 2
    TJR_NEXT \perm
    TJR_CHUNK 2, \kw
    .endif
    dec r27
    breq .L\perm\()_done
    rjmp .L\perm\()_loop
.L\perm\()_done:
    .irp r, 29,28,15,14,13,12,11,10,9,8,7,6,5,4,3,2
    pop \r
    .endr
    ret
    .size \perm, . - \perm
.endm

TJR_PERMUTATION MCU_FN(tinyjambu128, perm), 4, 1
TJR_PERMUTATION MCU_FN(tinyjambu192, perm), 6, 3
TJR_PERMUTATION MCU_FN(tinyjambu256, perm), 8, 2
