/* TinyJAMBU keyed permutation for 8-bit AVR (ATmega128), our fastest form (avr-fast).
 *
 * C prototypes (crypto/tinyjambu/ref/tinyjambu_perm.h), one pair per key size N = 128, 192, 256:
 *   void mcu_tinyjambuN_avr_fast_perm(uint32_t *state, const uint8_t *key, uint16_t steps);
 *       state complemented (the representation the shared mode keeps with TJ_COMPLEMENTED_STATE=1)
 *   void mcu_tinyjambuN_avr_fast_perm_std(uint32_t *state, const uint8_t *key, uint16_t steps);
 *       the same on the specification state (the public permute op): complements on load and store
 *   steps: a multiple of 128 (640, 1024, 1152, 1280); steps < 128 leaves the state unchanged.
 *
 * What it builds on, and what it adds to paper 004 (Kwon et al., reverse shift, 3594 cycles for P_640):
 *  1. The paper O form: 128 steps per iteration as four 32-step word updates in place, unrolled so that
 *     the state words never move and no instruction is spent on renaming (the register of state byte i
 *     in update j is a constant of the macro expansion).
 *  2. The whole 16-byte state lives in registers for the entire permutation: loaded once, stored once.
 *  3. Byte offsets for free, and one shift chain shared by the four taps. Relative to the word being
 *     updated (bytes 0..3), the taps s_47, s_70, s_85, s_91 are the 32-bit windows at bytes 6..9, 9..12,
 *     11..14, 12..15 of the state shifted LEFT by 1, 2, 3 and 5 bits (47 = 48 - 1, 70 = 72 - 2,
 *     85 = 88 - 3, 91 = 96 - 5). A copy C of bytes 6..15 is shifted left one bit at a time and each tap
 *     is taken from it as soon as it reaches its shift: 1 bit over bytes 6..15, then 8..15, 10..15, and
 *     2 bits over 11..15, 34 shifts per update where four independent shifts would need 55 (the paper
 *     counts 23 shift steps on 32-bit words, i.e. about 80 register shifts).
 *  4. The bit entering byte 6 (bit 7 of state byte 5) is put in the carry by CP against 0x7F, so byte 5
 *     is neither copied nor shifted.
 *  5. Complemented state: with every state bit stored inverted, fb' = x0 ^ x47 ^ (x70 | x85) ^ x91 ^ k
 *     (the three linear complements cancel against the one of the new bit, and ~a & ~b = ~(a | b)), so
 *     the NAND costs one OR per byte and no COM.
 *  6. Key bytes are read once per 32 steps with LDD at constant offsets; the 192- and 256-bit loops are
 *     unrolled over 3 and 2 chunks of 128 steps so that every offset is a constant and no pointer wraps.
 * Cost: 70 cycles per 32 steps (listed in TJ_WORD), 1400 for the 20 updates of P_640, plus about 150 of
 * call, push/pop, load and store.
 *
 * Register map
 *   r2..r17   state bytes: byte i of the state (bits 8i..8i+7) in r(2+i); SB(j, r) below names the
 *             register of byte r of the state seen from word j (byte 4j+r mod 16)
 *   r18..r27  C6..C15: the shift chain, C(r) = r(12 + r) holds state byte r (relative) shifted left;
 *             C6..C8 are reused for the T2 bytes that stage 3 would overwrite, and C6 for key bytes
 *   r28:r29   Y: the state pointer (saved, restored)
 *   r30:r31   Z: the key pointer
 *   r0        chunk counter (steps / 128)
 *   r1        the constant 0x7F (cleared to the ABI zero before returning)
 *   T flag    set by the _std entry: complement on load and store
 * Constant time: no branch or address depends on the state or the key; only on steps (public).
 */
#include "mcucrypt/ns.h"

#define SB(j, r) ((((j) * 4 + (r)) & 15) + 2)
#define C(r) ((r) + 12)
#define SEVENTYF 1
#define COUNTER 0

/* Load (and, with T set, complement) the state from Y into r2..r17. */
.macro TJ_LOAD_STATE name
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    ldd \i + 2, Y + \i
    .endr
    brtc .L\name\()_loaded
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    com \i + 2
    .endr
.L\name\()_loaded:
.endm

.macro TJ_STORE_STATE name
    brtc .L\name\()_uncomplemented
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    com \i + 2
    .endr
.L\name\()_uncomplemented:
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    std Y + \i, \i + 2
    .endr
.endm

/* 32 steps: the feedback word lands in state word j (bytes 4j..4j+3); the key word is at Z+koff.
 * 70 cycles. Relative byte r of the state is SB(j, r); C(r) is its shifted copy. */
.macro TJ_WORD j, koff
    /* copy bytes 6..15 (words j+1 upper half, j+2, j+3): 5 cycles */
    movw C(6), SB(\j, 6)
    movw C(8), SB(\j, 8)
    movw C(10), SB(\j, 10)
    movw C(12), SB(\j, 12)
    movw C(14), SB(\j, 14)
    /* stage 1, bytes 6..15 << 1, carry-in = bit 7 of byte 5 (0x7F < byte 5 exactly when it is set): 11 */
    cp SEVENTYF, SB(\j, 5)
    rol C(6)
    rol C(7)
    rol C(8)
    rol C(9)
    rol C(10)
    rol C(11)
    rol C(12)
    rol C(13)
    rol C(14)
    rol C(15)
    /* tap s_47..s_78 = C6..C9 at shift 1: 4 */
    eor SB(\j, 0), C(6)
    eor SB(\j, 1), C(7)
    eor SB(\j, 2), C(8)
    eor SB(\j, 3), C(9)
    /* stage 2, bytes 8..15 at shift 2 (byte 8 only feeds the carry): 8 */
    lsl C(8)
    rol C(9)
    rol C(10)
    rol C(11)
    rol C(12)
    rol C(13)
    rol C(14)
    rol C(15)
    /* tap s_70..s_101 = C9..C12 at shift 2; C9 stays, C10..C12 go to the dead C6..C8: 2 */
    movw C(6), C(10)
    mov C(8), C(12)
    /* stage 3, bytes 10..15 at shift 3: tap s_85..s_116 = C11..C14: 6 */
    lsl C(10)
    rol C(11)
    rol C(12)
    rol C(13)
    rol C(14)
    rol C(15)
    /* ~(s70 & s85) on the complemented state is x70 | x85: 4, then into the word: 4 */
    or C(9), C(11)
    or C(6), C(12)
    or C(7), C(13)
    or C(8), C(14)
    eor SB(\j, 0), C(9)
    eor SB(\j, 1), C(6)
    eor SB(\j, 2), C(7)
    eor SB(\j, 3), C(8)
    /* stage 4, bytes 12..15 at shift 5 (byte 11 feeds the carry): tap s_91..s_122 = C12..C15: 10 + 4 */
    lsl C(11)
    rol C(12)
    rol C(13)
    rol C(14)
    rol C(15)
    lsl C(11)
    rol C(12)
    rol C(13)
    rol C(14)
    rol C(15)
    eor SB(\j, 0), C(12)
    eor SB(\j, 1), C(13)
    eor SB(\j, 2), C(14)
    eor SB(\j, 3), C(15)
    /* key word, loaded once: 12 */
    ldd C(6), Z + \koff
    eor SB(\j, 0), C(6)
    ldd C(6), Z + \koff + 1
    eor SB(\j, 1), C(6)
    ldd C(6), Z + \koff + 2
    eor SB(\j, 2), C(6)
    ldd C(6), Z + \koff + 3
    eor SB(\j, 3), C(6)
.endm

/* 128 steps: chunk c of a key with kw words uses key words (4c + j) mod kw, j = 0..3. */
.macro TJ_CHUNK c, kw
    TJ_WORD 0, 4 * ((4 * \c + 0) % \kw)
    TJ_WORD 1, 4 * ((4 * \c + 1) % \kw)
    TJ_WORD 2, 4 * ((4 * \c + 2) % \kw)
    TJ_WORD 3, 4 * ((4 * \c + 3) % \kw)
.endm

/* After a chunk: count it, leave when it was the last (the chunks are too long for a short branch). */
.macro TJ_NEXT name
    dec COUNTER
    brne 1f
    rjmp .L\name\()_done
1:
.endm

/* One permutation: entries perm (complemented state, T clear) and std (specification state, T set);
 * the loop body is nchunks chunks of 128 steps (1, 3 or 2: whole cycles of the kw key words). */
.macro TJ_PERMUTATION perm, std, kw, nchunks
    .section .text.\std, "ax", @progbits
    .global \std
    .type \std, @function
\std:
    set
    rjmp .L\perm\()_common
    .size \std, . - \std

    .section .text.\perm, "ax", @progbits
    .global \perm
    .type \perm, @function
\perm:
    clt
.L\perm\()_common:
    .irp r, 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,28,29
    push \r
    .endr
    movw r28, r24                   /* Y = state */
    movw r30, r22                   /* Z = key */
    lsl r20                         /* chunks = steps >> 7 (steps < 32768) */
    rol r21
    mov COUNTER, r21
    ldi r18, 0x7F
    mov SEVENTYF, r18
    TJ_LOAD_STATE \perm
    tst COUNTER
    brne .L\perm\()_loop
    rjmp .L\perm\()_done
.L\perm\()_loop:
    TJ_CHUNK 0, \kw
    .if \nchunks > 1
    TJ_NEXT \perm
    TJ_CHUNK 1, \kw
    .endif
    .if \nchunks > 2
    TJ_NEXT \perm
    TJ_CHUNK 2, \kw
    .endif
    dec COUNTER
    breq .L\perm\()_done
    rjmp .L\perm\()_loop
.L\perm\()_done:
    TJ_STORE_STATE \perm
    clr r1
    .irp r, 29,28,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2
    pop \r
    .endr
    ret
    .size \perm, . - \perm
.endm

TJ_PERMUTATION MCU_FN(tinyjambu128, perm), MCU_FN(tinyjambu128, perm_std), 4, 1
TJ_PERMUTATION MCU_FN(tinyjambu192, perm), MCU_FN(tinyjambu192, perm_std), 6, 3
TJ_PERMUTATION MCU_FN(tinyjambu256, perm), MCU_FN(tinyjambu256, perm_std), 8, 2
