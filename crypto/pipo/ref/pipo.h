// SPDX-License-Identifier: MIT
/* PIPO public API: every implementation exports these under its own MCU_IMPL namespace.
 *
 * Blocks are 8 bytes, byte i being row i of the cipher's 8x8 bit state. The round-key buffer is
 * implementation-defined (each implementation's keyschedule writes what its own encrypt and decrypt
 * read) and at most rk_bytes long (META.yml: 504 bytes for PIPO-64/128, 688 for PIPO-64/256, the size of cm3-fast's),
 * 4-byte aligned. encrypt_blocks is ECB over nblocks consecutive blocks (in and out may be equal). */
#ifndef MCUCRYPT_PIPO_H
#define MCUCRYPT_PIPO_H
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

#define PIPO_DECLARE(id)                                                                         \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key);                              \
    void MCU_FN(id, encrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);               \
    void MCU_FN(id, decrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);               \
    void MCU_FN(id, encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks, const uint32_t *rk);

PIPO_DECLARE(pipo64_128)
PIPO_DECLARE(pipo64_256)

#endif
