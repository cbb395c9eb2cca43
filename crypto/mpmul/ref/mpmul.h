// SPDX-License-Identifier: MIT
/* Multi-precision multiplication, public API: every implementation exports these under its own
 * MCU_IMPL namespace. Limbs are little-endian 32-bit words; r has 2*n words, a and b n words each
 * (n = bits/32). r must not overlap a or b. mul_n (scalable implementations only) takes the operand
 * length in words: any even number from 2 to 64. */
#ifndef MCUCRYPT_MPMUL_H
#define MCUCRYPT_MPMUL_H
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

#define MPMUL_DECLARE(id)                                                                         \
    void MCU_FN(id, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);                       \
    void MCU_FN(id, mul_n)(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);

MPMUL_DECLARE(mpmul256)
MPMUL_DECLARE(mpmul512)
MPMUL_DECLARE(mpmul1024)
MPMUL_DECLARE(mpmul2048)

#endif
