// SPDX-License-Identifier: MIT
/* ARIA public API: every implementation exports these under its own MCU_IMPL namespace.
 *
 * rk holds the n+1 round keys of n = 12/14/16 rounds (128/192/256-bit keys): 208, 240 or 272 bytes,
 * 4-byte aligned. Its layout belongs to the implementation that wrote it (plain spec byte order for ref,
 * rv32-paper, rv32-fast and rv32-zbb; bitsliced for rv32-ct). keyschedule writes the encryption keys,
 * keyschedule_dec the decryption keys; ARIA is an involution-based SPN, so decrypt runs the encryption
 * rounds over the decryption keys. */
#ifndef MCUCRYPT_ARIA_H
#define MCUCRYPT_ARIA_H
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

#endif
