/* LEA public API: every implementation exports these under its own MCU_IMPL namespace.
 * rk holds 6 words per round (24/28/32 rounds): 576, 672 or 768 bytes, 4-byte aligned. */
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
