// SPDX-License-Identifier: MIT
/* LEA on the Cortex-M3 (cm3-fast): encryption and decryption for every key size, LEA-128 key schedule.
 *
 *   void mcu_<id>_cm3_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_<id>_cm3_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)
 *   void mcu_lea128_cm3_fast_keyschedule(uint32_t *rk, const uint8_t *key)
 *
 * Round-key layout (fixed for this implementation, no define): LEA-128 stores the four distinct words
 * T0..T3 of each round (K = T0,T1,T2,T1,T3,T1), 16 bytes a round, 384 bytes in all; LEA-192/256 store the
 * six words K0..K5 of each round (672 / 768 bytes), as the reference does (lea_ks_full.c).
 *
 * Techniques (the M3's barrel shifter and LDM):
 * - Lazy rotations: a round's three new words are left unrotated (ROL9 / ROR5 / ROR3 still owed); the
 *   owed rotation is applied for free as the shifted second operand of the EOR that next reads the word
 *   (EOR Rd, Rk, Rx, ROR #n costs one cycle like a plain EOR). Only the final store rotates explicitly.
 *   A round is then 6 EOR + 3 ADD for encryption; decryption folds ROR9/ROL5/ROL3 into RSB the same way.
 * - Each new word overwrites a register the round no longer needs, and the state's registers rotate
 *   (x0,x1,x2,x3) -> (x1,x2,x3,x0): four unrolled rounds bring them back, no MOVs.
 * - LEA-128 loads two rounds' keys with one LDM of 8 registers (1+8 cycles instead of 2x(1+4)).
 * ARX only, no table and no branch: constant time on every core.
 *
 * Register map (encryption; decryption the same with the state moving (x0,x1,x2,x3) -> (x3,x0,x1,x2)):
 *   r0 = out, r2 = rk (advanced by LDM), r3/r12/lr/r1 = the state words (r1 once `in` is read),
 *   r4-r7 = the keys of an even round, r8-r11 = those of the odd round (LEA-128);
 *   r4-r9 = K0..K5 (LEA-192/256). Key registers double as scratch once used.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

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

/* d = k ^ ROR(x, rot): rot is the rotation still owed on x (0: none). */
.macro EORR d, k, x, rot
  .if \rot
    eor     \d, \k, \x, ror #\rot
  .else
    eor     \d, \k, \x
  .endif
.endm

/* One encryption round. x0..x3 hold the state with owed right-rotations r0..r3; k0..k5 the round keys
 * (LEA-128: k1 = k3 = k5 = T1). New x0' = ROL9(s0) lands in x1 (owes ROR 23), x1' = ROR5(s1) in x2
 * (owes 5), x2' = ROR3(s2) in x3 (owes 3), and x3' = x0 stays where it is. k0, k2, k4 are clobbered. */
.macro ENC_ROUND x0, x1, x2, x3, r0, r1, r2, r3, k0, k1, k2, k3, k4, k5
    EORR    \k4, \k4, \x2, \r2          // x2 ^ K4
    EORR    \x3, \k5, \x3, \r3          // x3 ^ K5 (x3's last use)
    add     \x3, \k4, \x3               // s2
    EORR    \k2, \k2, \x1, \r1          // x1 ^ K2
    EORR    \x2, \k3, \x2, \r2          // x2 ^ K3 (x2's last use)
    add     \x2, \k2, \x2               // s1
    EORR    \k0, \k0, \x0, \r0          // x0 ^ K0 (x0 lives on as x3')
    EORR    \x1, \k1, \x1, \r1          // x1 ^ K1 (x1's last use)
    add     \x1, \k0, \x1               // s0
.endm

/* One decryption round, state unrotated: p0 = x3, p1 = (ROR9(x0) - (p0^K0)) ^ K1 into x0,
 * p2 = (ROL5(x1) - (p1^K2)) ^ K3 into x1, p3 = (ROL3(x2) - (p2^K4)) ^ K5 into x2. */
.macro DEC_ROUND x0, x1, x2, x3, k0, k1, k2, k3, k4, k5
    eor     \k0, \k0, \x3
    rsb     \x0, \k0, \x0, ror #9
    eor     \x0, \x0, \k1
    eor     \k2, \k2, \x0
    rsb     \x1, \k2, \x1, ror #27
    eor     \x1, \x1, \k3
    eor     \k4, \k4, \x1
    rsb     \x2, \k4, \x2, ror #29
    eor     \x2, \x2, \k5
.endm

/* The state registers of round i (i mod 4): encryption moves (a,b,c,d) -> (b,c,d,a). */
#define S0 r3
#define S1 r12
#define S2 lr
#define S3 r1

/* Owed rotations: round 0 none, round 1 (23,5,3,0), from round 2 on (23,5,3,23). */
.macro ENC4_128 first
  .if \first
    ldmia   r2!, {r4-r11}
    ENC_ROUND S0, S1, S2, S3, 0, 0, 0, 0,    r4, r5, r6, r5, r7, r5
    ENC_ROUND S1, S2, S3, S0, 23, 5, 3, 0,   r8, r9, r10, r9, r11, r9
  .else
    ldmia   r2!, {r4-r11}
    ENC_ROUND S0, S1, S2, S3, 23, 5, 3, 23,  r4, r5, r6, r5, r7, r5
    ENC_ROUND S1, S2, S3, S0, 23, 5, 3, 23,  r8, r9, r10, r9, r11, r9
  .endif
    ldmia   r2!, {r4-r11}
    ENC_ROUND S2, S3, S0, S1, 23, 5, 3, 23,  r4, r5, r6, r5, r7, r5
    ENC_ROUND S3, S0, S1, S2, 23, 5, 3, 23,  r8, r9, r10, r9, r11, r9
.endm

.macro ENC4_FULL first
  .if \first
    ldmia   r2!, {r4-r9}
    ENC_ROUND S0, S1, S2, S3, 0, 0, 0, 0,    r4, r5, r6, r7, r8, r9
    ldmia   r2!, {r4-r9}
    ENC_ROUND S1, S2, S3, S0, 23, 5, 3, 0,   r4, r5, r6, r7, r8, r9
  .else
    ldmia   r2!, {r4-r9}
    ENC_ROUND S0, S1, S2, S3, 23, 5, 3, 23,  r4, r5, r6, r7, r8, r9
    ldmia   r2!, {r4-r9}
    ENC_ROUND S1, S2, S3, S0, 23, 5, 3, 23,  r4, r5, r6, r7, r8, r9
  .endif
    ldmia   r2!, {r4-r9}
    ENC_ROUND S2, S3, S0, S1, 23, 5, 3, 23,  r4, r5, r6, r7, r8, r9
    ldmia   r2!, {r4-r9}
    ENC_ROUND S3, S0, S1, S2, 23, 5, 3, 23,  r4, r5, r6, r7, r8, r9
.endm

/* Load the block (LDR takes any alignment on the M3), run `rounds` rounds, rotate what is owed, store.
 * After a multiple of four rounds the state is back in S0..S3, owing (23,5,3,23). The epilogue restores
 * the saved registers between the stores: S2 (= lr) is stored first, then one ROR separates that store
 * from the POP (a load-multiple right after a store costs one more cycle), and the return is a BX. */
.macro ENCRYPT rounds, round4, saved
    push    {\saved, lr}
    ldr     S0, [r1]
    ldr     S2, [r1, #8]
    ldr     S1, [r1, #4]
    ldr     S3, [r1, #12]               // r1 = in is no longer needed
    \round4 1
  .rept (\rounds / 4) - 1
    \round4 0
  .endr
    ror     S2, S2, #3
    ror     S0, S0, #23
    str     S2, [r0, #8]
    ror     S1, S1, #5
    pop     {\saved, lr}
    ror     S3, S3, #23
    str     S0, [r0]
    str     S1, [r0, #4]
    str     S3, [r0, #12]
    bx      lr
.endm

FUNC MCU_FN(lea128, encrypt)
    ENCRYPT 24, ENC4_128, r4-r11
ENDFUNC MCU_FN(lea128, encrypt)

FUNC MCU_FN(lea192, encrypt)
    ENCRYPT 28, ENC4_FULL, r4-r9
ENDFUNC MCU_FN(lea192, encrypt)

FUNC MCU_FN(lea256, encrypt)
    ENCRYPT 32, ENC4_FULL, r4-r9
ENDFUNC MCU_FN(lea256, encrypt)

/* Decryption walks the keys downwards (LDMDB); the state moves (a,b,c,d) -> (d,a,b,c). */
.macro DEC4_128
    ldmdb   r2!, {r4-r11}               // r8-r11: the later round, r4-r7: the earlier one
    DEC_ROUND S0, S1, S2, S3,  r8, r9, r10, r9, r11, r9
    DEC_ROUND S3, S0, S1, S2,  r4, r5, r6, r5, r7, r5
    ldmdb   r2!, {r4-r11}
    DEC_ROUND S2, S3, S0, S1,  r8, r9, r10, r9, r11, r9
    DEC_ROUND S1, S2, S3, S0,  r4, r5, r6, r5, r7, r5
.endm

.macro DEC4_FULL
    ldmdb   r2!, {r4-r9}
    DEC_ROUND S0, S1, S2, S3,  r4, r5, r6, r7, r8, r9
    ldmdb   r2!, {r4-r9}
    DEC_ROUND S3, S0, S1, S2,  r4, r5, r6, r7, r8, r9
    ldmdb   r2!, {r4-r9}
    DEC_ROUND S2, S3, S0, S1,  r4, r5, r6, r7, r8, r9
    ldmdb   r2!, {r4-r9}
    DEC_ROUND S1, S2, S3, S0,  r4, r5, r6, r7, r8, r9
.endm

.macro DECRYPT rounds, rk_bytes, round4
    ldr     S0, [r1]
    ldr     S1, [r1, #4]
    ldr     S2, [r1, #8]
    ldr     S3, [r1, #12]
    add     r2, r2, #\rk_bytes          // one past the last round's keys
  .rept \rounds / 4
    \round4
  .endr
    str     S0, [r0]
    str     S1, [r0, #4]
    str     S2, [r0, #8]
    str     S3, [r0, #12]
.endm

FUNC MCU_FN(lea128, decrypt)
    push    {r4-r11, lr}
    DECRYPT 24, 384, DEC4_128
    pop     {r4-r11, pc}
ENDFUNC MCU_FN(lea128, decrypt)

FUNC MCU_FN(lea192, decrypt)
    push    {r4-r9, lr}
    DECRYPT 28, 672, DEC4_FULL
    pop     {r4-r9, pc}
ENDFUNC MCU_FN(lea192, decrypt)

FUNC MCU_FN(lea256, decrypt)
    push    {r4-r9, lr}
    DECRYPT 32, 768, DEC4_FULL
    pop     {r4-r9, pc}
ENDFUNC MCU_FN(lea256, decrypt)

/* ---- LEA-128 key schedule -------------------------------------------------------------------------
 * Round i: T_j = ROL(T_j + ROL(delta[i mod 4], i + j), (1, 3, 6, 11)[j]), then T0..T3 are stored.
 * The constant's rotation ROL(delta, i + j) is the shifted operand of the ADD (free): one ADD, one ROR
 * and a quarter of an STM per word. Register map: r0 = rk (advanced by STM), r4-r7 = T0..T3,
 * r1/r2/r3/r12 = delta[0..3]. */

/* ROR amount equal to ROL by n (n mod 32; 0 = no rotation). */
#define ROLAMT(n) ((32 - ((n) % 32)) % 32)

.macro KS_ADD t, d, n
  .if ROLAMT(\n)
    add     \t, \t, \d, ror #ROLAMT(\n)
  .else
    add     \t, \t, \d
  .endif
.endm

.macro KS128_ROUND i, d
    KS_ADD  r4, \d, (\i)
    ror     r4, r4, #31                 // ROL 1
    KS_ADD  r5, \d, (\i + 1)
    ror     r5, r5, #29                 // ROL 3
    KS_ADD  r6, \d, (\i + 2)
    ror     r6, r6, #26                 // ROL 6
    KS_ADD  r7, \d, (\i + 3)
    ror     r7, r7, #21                 // ROL 11
    stmia   r0!, {r4-r7}
.endm

    .section .rodata.lea_cm3_delta, "a", %progbits
    .align 2
.Llea_cm3_delta:
    .word   0xc3efe9db, 0x44626b02, 0x79e27c8a, 0x78df30ec

FUNC MCU_FN(lea128, keyschedule)
    push    {r4-r7}
    ldr     r4, [r1]
    ldr     r5, [r1, #4]
    ldr     r6, [r1, #8]
    ldr     r7, [r1, #12]
    ldr     r12, =.Llea_cm3_delta
    ldmia   r12, {r1, r2, r3, r12}
    .set .Lks_i, 0
  .rept 6
    KS128_ROUND (.Lks_i + 0), r1
    KS128_ROUND (.Lks_i + 1), r2
    KS128_ROUND (.Lks_i + 2), r3
    KS128_ROUND (.Lks_i + 3), r12
    .set .Lks_i, .Lks_i + 4
  .endr
    pop     {r4-r7}
    bx      lr
    .ltorg
ENDFUNC MCU_FN(lea128, keyschedule)
