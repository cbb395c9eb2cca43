/* SPDX-License-Identifier: MIT */
/* PIPO key schedules for rv32-fast (byte form) and rv32-zbb (nibble form): the round keys in the row
 * form their encrypt/decrypt use (pipo_rv32.inc, pipo_fast.S, pipo_bs.S).
 *
 *   void mcu_<id>_<impl>_keyschedule(uint32_t *rk, const uint8_t *key)
 *
 * PIPO's round key i is K[i mod 2] (K[i mod 4] for a 256-bit key) with i xored into row 0. Both row
 * forms are linear in the byte, so row 0 of round key i is form(K row 0) xor form(i), form(i) being an
 * assembly-time constant (PIPO_RC). Layout:
 *   PIPO-64/128 (28 words, 112 bytes): words 0..13 row 0 of round keys 0..13, words 14..20 rows 1..7
 *               of K0, words 21..27 rows 1..7 of K1;
 *   PIPO-64/256 (32 words, 128 bytes): words 8q..8q+7 rows 0..7 of K[q] (round constants added by the
 *               cipher).
 * Registers: a0 = rk, a1 = key (any alignment: bytes are loaded one by one), t0..t2 scratch.
 * No secret-dependent branch or address.
 */
#include "mcucrypt/ns.h"
#include "pipo_rv32.inc"

/* rk word w = form(key byte b). The byte for the next call is loaded here too (into the other of
 * t0/t2, given as nxt, from key byte nb) so that no LBU result (latency 3) is waited for. */
.macro KS_ROW w, cur, nxt, nb
  .if \nb >= 0
    lbu     \nxt, \nb(a1)
  .endif
    ROW_SPREAD \cur, t1
    sw      \cur, (4 * (\w))(a0)
.endm

FUNC MCU_FN(pipo64_128, keyschedule)
    lbu     t0, 1(a1)
    KS_ROW  14, t0, t2, 9                   /* K0 row 1 (word 14), then K1 row 1 (word 21) ... */
    KS_ROW  21, t2, t0, 2
    KS_ROW  15, t0, t2, 10
    KS_ROW  22, t2, t0, 3
    KS_ROW  16, t0, t2, 11
    KS_ROW  23, t2, t0, 4
    KS_ROW  17, t0, t2, 12
    KS_ROW  24, t2, t0, 5
    KS_ROW  18, t0, t2, 13
    KS_ROW  25, t2, t0, 6
    KS_ROW  19, t0, t2, 14
    KS_ROW  26, t2, t0, 7
    KS_ROW  20, t0, t2, 15
    KS_ROW  27, t2, t0, -1
    lbu     t0, 0(a1)
    lbu     t2, 8(a1)
    ROW_SPREAD t0, t1                   /* form(K0 row 0) */
    ROW_SPREAD t2, t1                   /* form(K1 row 0) */
    .set .Li, 0
    .rept 14
      .if .Li == 0
        sw      t0, 0(a0)
      .else
        li      t1, PIPO_RC(.Li)
        .if (.Li % 2) == 0
            xor     t1, t1, t0
        .else
            xor     t1, t1, t2
        .endif
        sw      t1, (4 * .Li)(a0)
      .endif
        .set .Li, .Li + 1
    .endr
    ret
ENDFUNC MCU_FN(pipo64_128, keyschedule)

FUNC MCU_FN(pipo64_256, keyschedule)
    lbu     t0, 0(a1)
    .set .Lj, 0
    .rept 16
        KS_ROW  .Lj, t0, t2, (.Lj + 1)
        .if .Lj == 30
            KS_ROW  (.Lj + 1), t2, t0, -1
        .else
            KS_ROW  (.Lj + 1), t2, t0, (.Lj + 2)
        .endif
        .set .Lj, .Lj + 2
    .endr
    ret
ENDFUNC MCU_FN(pipo64_256, keyschedule)
