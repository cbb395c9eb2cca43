// SPDX-License-Identifier: MIT
/* Declarations shared by the rv32 ARIA sources: the public API (the same as ref/aria.h, repeated here so
 * that every header these sources include lives beside them), the 32-bit T-tables of aria_t32.S and
 * the key-schedule back ends of aria_ks.S and the constant-time core of aria_ct.S. */
#ifndef MCUCRYPT_ARIA_RV32_H
#define MCUCRYPT_ARIA_RV32_H
#include <stdint.h>
#include "mcucrypt/ns.h"

#define ARIA_DECLARE(id)                                                                 \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key);                      \
    void MCU_FN(id, keyschedule_dec)(uint32_t *rk, const uint8_t *key);                  \
    void MCU_FN(id, encrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);       \
    void MCU_FN(id, decrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);

ARIA_DECLARE(aria128)
ARIA_DECLARE(aria192)
ARIA_DECLARE(aria256)

/* T0..T3 (256 words each, in this order): Tj[v] holds S(v) in the three bytes other than byte j, with
 * S = SB1, SB2, SB3, SB4 for j = 0..3 (see aria_t32.S). */
extern const uint32_t MCU_FN(aria, t32)[1024];

/* The constant-time core of aria_ct.S: `rounds` rounds from in to out (16-byte blocks, any alignment)
 * with round keys rk in the folded-constant form of aria_ct_ks.c. ctl = rounds | ARIA_CT_EVEN (first
 * round is SL2) | ARIA_CT_CIPHER (last round without diffusion, then the final key rk[rounds]). */
/* aria_ks.S: rk[0..rounds] from W0..W3 (w: 16 words), and encryption keys to decryption keys in place. */
void MCU_FN(aria, expand)(uint32_t *rk, const uint32_t *w, uint32_t rounds);
void MCU_FN(aria, reverse)(uint32_t *rk, uint32_t rounds);

/* rv32-ct-multi (ARIA_CT_KS_COMPACT): aria_ct_ks.c's schedules under these names write the compact keys. */
#ifdef ARIA_CT_KS_COMPACT
#define ARIA_CT_KS_DECLARE(id)                                                           \
    void MCU_FN(id, keyschedule_compact)(uint32_t *rk, const uint8_t *key);              \
    void MCU_FN(id, keyschedule_dec_compact)(uint32_t *rk, const uint8_t *key);
ARIA_CT_KS_DECLARE(aria128)
ARIA_CT_KS_DECLARE(aria192)
ARIA_CT_KS_DECLARE(aria256)
#endif

#define ARIA_CT_EVEN 0x100u
#define ARIA_CT_CIPHER 0x200u
void MCU_FN(aria, ct_core)(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t ctl);

#endif
