// SPDX-License-Identifier: MIT
/* GHASH (NIST SP 800-38D 6.4) as crypto/aesgcm's modes use it: one implementation a core, linked by
 * META.yml `sources` (ghash_ctmul.c: constant time, 32x32->32 MUL). The key form holds H's nine
 * Karatsuba operands and their bit reversals (72 bytes). */
#ifndef MCUCRYPT_AESGCM_GHASH_H
#define MCUCRYPT_AESGCM_GHASH_H

#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

typedef struct {
    uint32_t k[9];
    uint32_t kr[9];
} ghash_key;

/* local to the implementation's link unit, but namespaced: an export holds every implementation */
#define ghash_key_init MCU_FN(aesgcm, ghash_key_init)
#define ghash_blocks MCU_FN(aesgcm, ghash_blocks)

/* hk from H = E_K(0^128) */
void ghash_key_init(ghash_key *hk, const uint8_t h[16]);
/* y = (...((y ^ x_0) H ^ x_1) H ...) H over nblocks whole 16-byte blocks */
void ghash_blocks(uint8_t y[16], const ghash_key *hk, const uint8_t *x, size_t nblocks);

#endif
