/* SPDX-License-Identifier: MIT */
/* TinyJAMBU for 8-bit AVR (ATmega128), our fastest form (avr-fast): the keyed permutation and the
 * block loop of the mode, in assembly; the rest of the mode is the shared C (ref/tinyjambu.c).
 *
 * C prototypes (crypto/tinyjambu/ref/tinyjambu_perm.h), one set per key size N = 128, 192, 256:
 *   void mcu_tinyjambuN_avr_fast_perm(uint32_t *state, const uint8_t *key, uint16_t steps);
 *       state complemented (the representation the shared mode keeps with TJ_COMPLEMENTED_STATE=1)
 *   void mcu_tinyjambuN_avr_fast_perm_std(uint32_t *state, const uint8_t *key, uint16_t steps);
 *       the same on the specification state (the public permute op): complements on load and store
 *   void mcu_tinyjambuN_avr_fast_blocks(uint32_t *state, const uint8_t *key, uint16_t steps,
 *       uint8_t frame, const uint8_t *in, uint8_t *out, uint16_t nblocks, uint8_t mode);
 *       nblocks >= 1 whole blocks of nonce, associated data or message, state complemented
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
 *     2 bits over 11..15: 34 register shifts per update, where four independent shifts of 5-byte windows
 *     would need 55 and the reverse-shift form of tinyjambu_revshift.S does 66 (paper Table 5 counts 19
 *     shift steps, each on up to four registers).
 *  4. The bit entering byte 6 (bit 7 of state byte 5) is put in the carry by CP against 0x7F, so byte 5
 *     is neither copied nor shifted.
 *  5. Complemented state: with every state bit stored inverted, fb' = x0 ^ x47 ^ (x70 | x85) ^ x91 ^ k
 *     (the three linear complements cancel against the one of the new bit, and ~a & ~b = ~(a | b)), so
 *     the NAND costs one OR per byte and no COM.
 *  6. Key bytes are read once per 32 steps with LDD at constant offsets; the 192- and 256-bit loops are
 *     unrolled over 3 and 2 chunks of 128 steps so that every offset is a constant and no pointer wraps.
 *  7. The mode loop over whole blocks (TJ_BLOCKS) keeps the state in registers from block to block, so
 *     a 128-byte message pays one load, one store and one push/pop of the state, not 32.
 * Cost: 70 cycles per 32 steps (listed in TJ_WORD), 1400 for the 20 updates of P_640, plus about 160 of
 * call, push/pop, load and store per permutation call, or about 70 per block inside TJ_BLOCKS.
 *
 * Register map
 *   r2..r17   state bytes: byte i of the state (bits 8i..8i+7) in r(2+i); SB(j, r) below names the
 *             register of byte r of the state seen from word j (byte 4j+r mod 16)
 *   r18..r27  C6..C15: the shift chain, C(r) = r(12 + r) holds state byte r (relative) shifted left;
 *             C6..C8 are reused for the T2 bytes that stage 3 would overwrite, and C6 for key bytes
 *   r28:r29   Y: the state pointer (perm) or the argument frame (blocks); saved, restored
 *   r30:r31   Z: the key pointer (in blocks, between permutations: the output pointer, X the input)
 *   r0        chunk counter (steps / 128)
 *   r1        the constant 0x7F (cleared to the ABI zero before returning)
 *   T flag    set by the _std entry: complement on load and store
 * Constant time: no branch or address depends on the state or the key; only on steps (public).
 */
#include "mcucrypt/ns.h"
#include "../ref/tinyjambu_perm.h"

#if TJ_COMPLEMENTED_STATE != 1 || TJ_ASM_BLOCKS != 1
#error "avr-fast keeps the state complemented and supplies the block loop: TJ_COMPLEMENTED_STATE=1, TJ_ASM_BLOCKS=1"
#endif

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

/* After a chunk: count it, return when it was the last. */
.macro TJ_NEXT core
    dec COUNTER
    brne .L\core\()_more\@
    ret
.L\core\()_more\@:
.endm

/* The permutation proper, a subroutine shared by both entries below: P_(128 * r0) on the state in
 * r2..r17 (complemented), key at Z, r1 = 0x7F. Clobbers r0, r18..r27. The loop body is nchunks chunks
 * of 128 steps (1, 3 or 2: whole cycles of the kw key words), so every key offset is a constant. */
.macro TJ_CORE core, kw, nchunks
    .section .text.\core, "ax", @progbits
    .type \core, @function
\core:
    tst COUNTER
    brne .L\core\()_loop
    ret
.L\core\()_loop:
    TJ_CHUNK 0, \kw
    .if \nchunks > 1
    TJ_NEXT \core
    TJ_CHUNK 1, \kw
    .endif
    .if \nchunks > 2
    TJ_NEXT \core
    TJ_CHUNK 2, \kw
    .endif
    dec COUNTER
    breq .L\core\()_return
    rjmp .L\core\()_loop
.L\core\()_return:
    ret
    .size \core, . - \core
.endm

/* perm (complemented state, T clear) and std (specification state, T set): load, permute, store. */
.macro TJ_PERMUTATION core, perm, std
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
    rcall \core
    TJ_STORE_STATE \perm
    clr r1
    .irp r, 29,28,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2
    pop \r
    .endr
    ret
    .size \perm, . - \perm
.endm

/* void blocks(uint32_t *state, const uint8_t *key, uint16_t steps, uint8_t frame, const uint8_t *in,
 *             uint8_t *out, uint16_t nblocks, uint8_t mode)            (tinyjambu_perm.h; nblocks >= 1)
 * The mode of operation over whole 4-byte blocks with the state in registers from the first block to
 * the last: per block, frame bits into state byte 4 (bits 36..38), the permutation, then absorb the
 * input word into state bytes 12..15 (mode 0), or also write it masked with the keystream (1, encrypt),
 * or unmask it and absorb the result (2, decrypt); the keystream, state bytes 8..11, is the complement
 * of the registers. Arguments arrive in r24.. r10 per the avr-gcc ABI; after the 18 pushes of the
 * call-saved registers they are pushed again, as a frame of working variables that Y points to (SP after
 * the last push), because the permutation needs every other register:
 *   Y+1 chunks  Y+2 frame  Y+3:4 key (hi:lo)  Y+5:6 state  Y+7:8 in  Y+9:10 out  Y+11:12 nblocks
 *   Y+13 mode
 * in, out and nblocks advance in this frame, never in the saved copies of r12..r17 above it: the caller
 * may keep an argument in its register after the call (call-saved registers stay call-saved when they
 * carry arguments), which GCC does once LTO inlines the mode into a caller that reuses `in` or `out`.
 * (The first version advanced the saved copies and so returned with r12..r17 changed: with -flto the
 * caller then computed the tail of the message and the tag from an `out` already moved past the blocks,
 * wrong ciphertext and a store past the buffer; docs/tinyjambu.md.)
 * Between permutations r18..r27 are free: X walks the input, Z the output, r19 carries a byte. */
#define FP_CHUNKS 1
#define FP_FRAME 2
#define FP_KEY_H 3
#define FP_KEY_L 4
#define FP_STATE_H 5
#define FP_STATE_L 6
#define FP_IN_H 7
#define FP_IN_L 8
#define FP_OUT_H 9
#define FP_OUT_L 10
#define FP_N_H 11
#define FP_N_L 12
#define FP_MODE 13
#define FP_BYTES 13
#define IO_SPL 0x3d
#define IO_SPH 0x3e
#define TJ_ENCRYPT 1
#define TJ_DECRYPT 2

.macro TJ_BLOCKS core, blocks
    .section .text.\blocks, "ax", @progbits
    .global \blocks
    .type \blocks, @function
\blocks:
    .irp r, 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,28,29
    push \r
    .endr
    lsl r20                         /* chunks = steps >> 7 */
    rol r21
    .irp r, 10,12,13,14,15,16,17    /* working copies: mode, nblocks, out, in */
    push \r
    .endr
    push r24
    push r25
    push r22
    push r23
    push r18
    push r21
    in r28, IO_SPL                  /* Y = SP: the frame above */
    in r29, IO_SPH
    movw r30, r24
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    ldd \i + 2, Z + \i
    .endr
    ldi r18, 0x7F
    mov SEVENTYF, r18
.L\blocks\()_block:
    ldd r18, Y + FP_FRAME
    eor SB(0, 4), r18               /* frame bits: state byte 4 */
    ldd r30, Y + FP_KEY_L
    ldd r31, Y + FP_KEY_H
    ldd COUNTER, Y + FP_CHUNKS
    rcall \core
    ldd r26, Y + FP_IN_L
    ldd r27, Y + FP_IN_H
    ldd r30, Y + FP_OUT_L
    ldd r31, Y + FP_OUT_H
    ldd r18, Y + FP_MODE
    cpi r18, TJ_ENCRYPT
    breq .L\blocks\()_encrypt
    cpi r18, TJ_DECRYPT
    breq .L\blocks\()_decrypt
    .irp i, 0,1,2,3                 /* absorb: s3 ^= in */
    ld r19, X+
    eor SB(0, 12 + \i), r19
    .endr
    rjmp .L\blocks\()_next
.L\blocks\()_encrypt:
    .irp i, 0,1,2,3                 /* s3 ^= m; c = m ^ s2 = ~(m ^ x2) */
    ld r19, X+
    eor SB(0, 12 + \i), r19
    eor r19, SB(0, 8 + \i)
    com r19
    st Z+, r19
    .endr
    rjmp .L\blocks\()_next
.L\blocks\()_decrypt:
    .irp i, 0,1,2,3                 /* m = c ^ s2 = ~(c ^ x2); s3 ^= m */
    ld r19, X+
    eor r19, SB(0, 8 + \i)
    com r19
    st Z+, r19
    eor SB(0, 12 + \i), r19
    .endr
.L\blocks\()_next:
    std Y + FP_IN_L, r26
    std Y + FP_IN_H, r27
    std Y + FP_OUT_L, r30
    std Y + FP_OUT_H, r31
    ldd r24, Y + FP_N_L
    ldd r25, Y + FP_N_H
    sbiw r24, 1
    std Y + FP_N_L, r24
    std Y + FP_N_H, r25
    breq .L\blocks\()_store
    rjmp .L\blocks\()_block
.L\blocks\()_store:
    ldd r30, Y + FP_STATE_L
    ldd r31, Y + FP_STATE_H
    .irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    std Z + \i, \i + 2
    .endr
    clr r1
    .rept FP_BYTES                  /* drop the frame */
    pop r18
    .endr
    .irp r, 29,28,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2
    pop \r
    .endr
    ret
    .size \blocks, . - \blocks
.endm

TJ_CORE MCU_FN(tinyjambu128, core), 4, 1
TJ_CORE MCU_FN(tinyjambu192, core), 6, 3
TJ_CORE MCU_FN(tinyjambu256, core), 8, 2
TJ_PERMUTATION MCU_FN(tinyjambu128, core), MCU_FN(tinyjambu128, perm), MCU_FN(tinyjambu128, perm_std)
TJ_PERMUTATION MCU_FN(tinyjambu192, core), MCU_FN(tinyjambu192, perm), MCU_FN(tinyjambu192, perm_std)
TJ_PERMUTATION MCU_FN(tinyjambu256, core), MCU_FN(tinyjambu256, perm), MCU_FN(tinyjambu256, perm_std)
TJ_BLOCKS MCU_FN(tinyjambu128, core), MCU_FN(tinyjambu128, blocks)
TJ_BLOCKS MCU_FN(tinyjambu192, core), MCU_FN(tinyjambu192, blocks)
TJ_BLOCKS MCU_FN(tinyjambu256, core), MCU_FN(tinyjambu256, blocks)
