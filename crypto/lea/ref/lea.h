// SPDX-License-Identifier: MIT
/* LEA public API: every implementation exports these under its own MCU_IMPL namespace.
 * rk is 4-byte aligned and holds the round keys in the implementation's layout: ref and rv32-paper write
 * 6 words per round (24/28/32 rounds: 576, 672 or 768 bytes); rv32-fast and rv32-zbb keep LEA-128 in the
 * compact layout of 4 words per round (LEA_RK_COMPACT=1: 384 bytes) and LEA-192/256 in 6 (672, 768).
 * Round keys are only meaningful to the implementation that wrote them. Sizes per implementation:
 * the exported headers' MCU_<ID>_<IMPL>_RK_BYTES, docs/api.md. */
#ifndef MCUCRYPT_LEA_H
#define MCUCRYPT_LEA_H
#include <stdint.h>
#include "mcucrypt/ns.h"

#define LEA_DECLARE(id)                                                                  \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key);                      \
    void MCU_FN(id, encrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);       \
    void MCU_FN(id, decrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk);

LEA_DECLARE(lea128)
LEA_DECLARE(lea192)
LEA_DECLARE(lea256)

#endif
