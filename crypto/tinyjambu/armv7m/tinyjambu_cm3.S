// SPDX-License-Identifier: MIT
/* TinyJAMBU keyed permutation and block loop for the Cortex-M3 (cm3-fast), every key size.
 *
 *   void mcu_<id>_cm3_fast_perm(uint32_t *state, const uint8_t *key, uint16_t steps)
 *   void mcu_<id>_cm3_fast_blocks(uint32_t *state, const uint8_t *key, uint16_t steps, uint8_t frame,
 *                                 const uint8_t *in, uint8_t *out, uint16_t nblocks, uint8_t mode)
 * (tinyjambu_perm.h; the state is the specification's, steps a multiple of 128; blocks with
 * TJ_ASM_BLOCKS=1: nblocks whole 4-byte blocks, each frame -> P_steps -> absorb/encrypt/decrypt.)
 *
 * 32 steps whose feedback lands in word a (b, c, d the next three words) cost 10 one-cycle instructions:
 *   a ^= (b>>15 | c<<17) ^ ~(t2 & t3) ^ (c>>27 | d<<5) ^ k,  t2 = c>>6 | d<<26,  t3 = c>>21 | d<<11.
 * - With X = d:c as a 64-bit value, t2 & t3 = low32(((X & (X >> 15)) >> 6)): Y_lo = c & F, Y_hi =
 *   d & (d >> 15), with F = c>>15 | d<<17 = low32(X >> 15), and t2 & t3 = Y_lo>>6 | Y_hi<<26. F is
 *   exactly the first term (b>>15 | c<<17) of the NEXT 32 steps (which update b from c, d, a), so it is
 *   computed once and used twice: the feedback needs no separate t2, t3 and no AND of two funnel shifts.
 * - The NOT of the NAND is folded into the key: a ^ ~x ^ k = a ^ x ^ ~k, and ~k is formed once per call.
 * - Every shifted term is the barrel-shifted operand of an EOR/AND (free on the M3).
 * - The state words never move (paper 004's "O" form); four updates are 128 steps.
 * Shifts by constants, AND, EOR only; loop bounds and `mode` are public: constant time.
 *
 * Register map: S0-S3 = r3-r6 state words, F = r12, T = lr (scratch), K0.. = ~key words:
 *   128: K0-K3 = r7-r10, count r2            192: K0-K5 = r7-r11, r1, count r2
 *   256: K0-K7 = r7-r11, r1, r0, r2, count in a stack slot
 * The state pointer and, in `blocks`, the loop's other arguments live in the frame (see FRAME below).
 */
#include "mcucrypt/ns.h"
#include "../ref/tinyjambu_perm.h"

#if TJ_COMPLEMENTED_STATE != 0 || TJ_ASM_BLOCKS != 1
#error "cm3-fast works on the specification's state and supplies the block loop: TJ_COMPLEMENTED_STATE=0, TJ_ASM_BLOCKS=1"
#endif

    .syntax unified
    .thumb

#define S0 r3
#define S1 r4
#define S2 r5
#define S3 r6
#define F r12
#define T lr

/* Frame after `push {r0-r11, lr}` (52 bytes) and `sub sp, #12` (64 in all, 8-byte aligned):
 * [sp+0] chunks left in this permutation, [sp+4] chunks per permutation (steps / 128), [sp+8] r2 kept
 * across the loop path,
 * [sp+12] state pointer (saved r0), [sp+24] frame (saved r3); the caller's stack arguments of `blocks`
 * follow the 13 saved registers: in, out, nblocks, mode at [sp+64..76]. */
#define CNT_SLOT    [sp, #0]
#define STEPS_SLOT  [sp, #4]
#define SPARE_SLOT  [sp, #8]
#define STATE_SLOT  [sp, #12]
#define FRAME_SLOT  [sp, #24]
#define IN_OFF      64
#define OUT_OFF     68
#define NBLK_OFF    72
#define MODE_OFF    76

.macro FUNC name
    .section .text.\name, "ax", %progbits
    .global \name
    .align 2
    .thumb_func
    .type \name, %function
\name:
.endm

.macro ENDFUNC name
    .size \name, . - \name
.endm

/* 32 steps into word a; on entry F = b>>15 | c<<17, on exit F = c>>15 | d<<17 (the next update's). */
.macro BLK a, b, c, d, k
    eor     \a, \a, F
    lsr     F, \c, #15
    orr     F, F, \d, lsl #17
    and     T, \c, F
    eor     \a, \a, T, lsr #6
    and     T, \d, \d, lsr #15
    eor     \a, \a, T, lsl #26
    eor     \a, \a, \c, lsr #27
    eor     \a, \a, \d, lsl #5
    eor     \a, \a, \k
.endm

/* 128 steps with the key words k0..k3. */
.macro CHUNK k0, k1, k2, k3
    BLK     S0, S1, S2, S3, \k0
    BLK     S1, S2, S3, S0, \k1
    BLK     S2, S3, S0, S1, \k2
    BLK     S3, S0, S1, S2, \k3
.endm

/* F for the first update of a permutation: b>>15 | c<<17 with b = S1, c = S2. */
.macro F_START
    lsr     F, S1, #15
    orr     F, F, S2, lsl #17
.endm

/* ~key words into registers (LDR takes any alignment on the M3). */
.macro LOAD_NOT_KEY reg, off
    ldr     \reg, [r1, #\off]
    mvn     \reg, \reg
.endm

/* The permutation loops: `chunks` (a register, or the stack slot for 256) counts 128-step chunks. A
 * chunk boundary exits when the count reaches zero; the key pattern repeats every 1, 3 or 2 chunks. */
.macro LOOP128 done
1:  CHUNK   r7, r8, r9, r10
    subs    r2, r2, #1
    beq     \done
    CHUNK   r7, r8, r9, r10
    subs    r2, r2, #1
    bne     1b
.endm

.macro LOOP192 done
1:  CHUNK   r7, r8, r9, r10
    subs    r2, r2, #1
    beq     \done
    CHUNK   r11, r1, r7, r8
    subs    r2, r2, #1
    beq     \done
    CHUNK   r9, r10, r11, r1
    subs    r2, r2, #1
    bne     1b
.endm

.macro COUNT_DOWN_SLOT
    ldr     T, CNT_SLOT
    subs    T, T, #1
    str     T, CNT_SLOT
.endm

.macro LOOP256 done
1:  CHUNK   r7, r8, r9, r10
    COUNT_DOWN_SLOT
    beq     \done
    CHUNK   r11, r1, r0, r2
    COUNT_DOWN_SLOT
    bne     1b
.endm

/* Key set-up per size: ~key into the K registers; r2 (steps) becomes the chunk count (128/192) or the
 * count goes to the stack slot (256, where r2 holds a key word). KEY128 leaves r1 alone. */
.macro KEY128
    LOAD_NOT_KEY r7, 0
    LOAD_NOT_KEY r8, 4
    LOAD_NOT_KEY r9, 8
    LOAD_NOT_KEY r10, 12
.endm

.macro KEY192
    KEY128
    LOAD_NOT_KEY r11, 16
    LOAD_NOT_KEY r1, 20                 // r1 (key pointer) last
.endm

.macro KEY256
    LOAD_NOT_KEY r11, 16
    LOAD_NOT_KEY r0, 24
    LOAD_NOT_KEY r2, 28
    KEY128
    LOAD_NOT_KEY r1, 20
.endm

.macro LOAD_STATE
    ldr     T, STATE_SLOT
    ldr     S0, [T]
    ldr     S1, [T, #4]
    ldr     S2, [T, #8]
    ldr     S3, [T, #12]
.endm

.macro STORE_STATE
    ldr     T, STATE_SLOT
    str     S0, [T]
    str     S1, [T, #4]
    str     S2, [T, #8]
    str     S3, [T, #12]
.endm

/* chunks = steps / 128, kept in STEPS_SLOT; the loop path copies it into its counter (RELOAD_COUNT). */
.macro SET_STEPS size
    lsr     r2, r2, #7
    str     r2, STEPS_SLOT
.endm

.macro RELOAD_COUNT size
  .if \size == 256
    ldr     T, STEPS_SLOT
    str     T, CNT_SLOT
  .else
    ldr     r2, STEPS_SLOT
  .endif
.endm

/* The fast path for the two permutations the mode uses, P_640 (5 chunks) and P_large (8, 9 or 10
 * chunks): every chunk unrolled, no counter. The flags of `cmp chunks, #5`, set before the first chunk,
 * survive the chunks (no instruction in them sets flags), so one BEQ after the fifth chunk ends P_640.
 * Any other multiple of 128 steps takes the loop. */
.macro UNROLLED size, done
    CHUNK   r7, r8, r9, r10
  .if \size == 128
    CHUNK   r7, r8, r9, r10
    CHUNK   r7, r8, r9, r10
    CHUNK   r7, r8, r9, r10
    CHUNK   r7, r8, r9, r10
    beq     \done
    CHUNK   r7, r8, r9, r10
    CHUNK   r7, r8, r9, r10
    CHUNK   r7, r8, r9, r10
  .elseif \size == 192
    CHUNK   r11, r1, r7, r8
    CHUNK   r9, r10, r11, r1
    CHUNK   r7, r8, r9, r10
    CHUNK   r11, r1, r7, r8
    beq     \done
    CHUNK   r9, r10, r11, r1
    CHUNK   r7, r8, r9, r10
    CHUNK   r11, r1, r7, r8
    CHUNK   r9, r10, r11, r1
  .else
    CHUNK   r11, r1, r0, r2
    CHUNK   r7, r8, r9, r10
    CHUNK   r11, r1, r0, r2
    CHUNK   r7, r8, r9, r10
    beq     \done
    CHUNK   r11, r1, r0, r2
    CHUNK   r7, r8, r9, r10
    CHUNK   r11, r1, r0, r2
    CHUNK   r7, r8, r9, r10
    CHUNK   r11, r1, r0, r2
  .endif
.endm

/* Chunks of a permutation: fast path when the count (in STEPS_SLOT) is 5 or the id's large count, the
 * loop otherwise; the fast path falls through into `done`. Uses T; the loop path also r2, which it
 * saves in SPARE_SLOT for `blocks` of TinyJAMBU-192 (where r2 holds the output pointer). */
.macro PERM_CHUNKS size, done
    ldr     T, STEPS_SLOT
  .if \size == 128
    cmp     T, #8
  .elseif \size == 192
    cmp     T, #9
  .else
    cmp     T, #10
  .endif
    beq     5f
    cmp     T, #5
    beq     5f
    cmp     T, #0                       // P_0: nothing to do
    beq     \done
  .if \size == 192
    str     r2, SPARE_SLOT
  .endif
    RELOAD_COUNT \size
    LOOP\size 6f
6:
  .if \size == 192
    ldr     r2, SPARE_SLOT
  .endif
    b       \done
5:  cmp     T, #5
    UNROLLED \size, \done
.endm

.macro PERM size
    push    {r0-r11, lr}
    sub     sp, sp, #12
    SET_STEPS \size
    LOAD_STATE
    KEY\size
    F_START
    PERM_CHUNKS \size, 9f
9:  STORE_STATE
    add     sp, sp, #(12 + 16)          // the frame and the saved r0-r3
    pop     {r4-r11, pc}
.endm

/* blocks: per block  s1 ^= frame (state bits 36..38), P_steps, then by mode (public):
 * absorb s3 ^= w; encrypt s3 ^= w, out = w ^ s2; decrypt out = w ^ s2, s3 ^= out.
 * Where registers are free the loop's pointers live in them: TinyJAMBU-128 in = r1, out = r11,
 * count = r0; TinyJAMBU-192 in = r0, out = r2 (the count stays in the caller's slot); TinyJAMBU-256
 * uses the caller's argument slots for all three. Encryption is the fall-through path. */
.macro BLOCKS size
    push    {r0-r11, lr}
    sub     sp, sp, #12
    SET_STEPS \size
    LOAD_STATE
    KEY\size
  .if \size == 128
    ldr     r11, [sp, #OUT_OFF]
    ldrh    r0, [sp, #NBLK_OFF]
    ldr     r1, [sp, #IN_OFF]
  .elseif \size == 192
    ldr     r0, [sp, #IN_OFF]
    ldr     r2, [sp, #OUT_OFF]
  .endif
8:  ldrb    T, FRAME_SLOT
    eor     S1, S1, T
    F_START
    PERM_CHUNKS \size, 9f
9:
  .if \size == 128
    ldr     T, [r1], #4                 // the block's input word, any alignment
  .elseif \size == 192
    ldr     T, [r0], #4
  .else
    ldr     F, [sp, #IN_OFF]
    ldr     T, [F], #4
    str     F, [sp, #IN_OFF]
  .endif
    ldrb    F, [sp, #MODE_OFF]
    cmp     F, #1
    bne     1f
    eor     S3, S3, T                   // encrypt
    eor     T, T, S2
4:
  .if \size == 128
    str     T, [r11], #4
  .elseif \size == 192
    str     T, [r2], #4
  .else
    ldr     F, [sp, #OUT_OFF]
    str     T, [F], #4
    str     F, [sp, #OUT_OFF]
  .endif
3:
  .if \size == 128
    subs    r0, r0, #1
  .else
    ldrh    T, [sp, #NBLK_OFF]
    subs    T, T, #1
    strh    T, [sp, #NBLK_OFF]          // the caller's argument slot: ours to use (AAPCS)
  .endif
    bne     8b
    STORE_STATE
    add     sp, sp, #(12 + 16)
    pop     {r4-r11, pc}
1:  bhi     2f
    eor     S3, S3, T                   // absorb
    b       3b
2:  eor     T, T, S2                    // decrypt
    eor     S3, S3, T
    b       4b
.endm

FUNC MCU_FN(tinyjambu128, perm)
    PERM 128
ENDFUNC MCU_FN(tinyjambu128, perm)

FUNC MCU_FN(tinyjambu192, perm)
    PERM 192
ENDFUNC MCU_FN(tinyjambu192, perm)

FUNC MCU_FN(tinyjambu256, perm)
    PERM 256
ENDFUNC MCU_FN(tinyjambu256, perm)

FUNC MCU_FN(tinyjambu128, blocks)
    BLOCKS 128
ENDFUNC MCU_FN(tinyjambu128, blocks)

FUNC MCU_FN(tinyjambu192, blocks)
    BLOCKS 192
ENDFUNC MCU_FN(tinyjambu192, blocks)

FUNC MCU_FN(tinyjambu256, blocks)
    BLOCKS 256
ENDFUNC MCU_FN(tinyjambu256, blocks)
