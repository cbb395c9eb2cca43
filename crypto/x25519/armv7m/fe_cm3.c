// SPDX-License-Identifier: MIT
/* X25519 field multiplication and squaring for the Cortex-M3 (cm3-fast): the product is mpmul's
 * cm3-fast 256-bit kernel (crypto/mpmul/armv7m/fast_k8.S: product scanning from 16x16-bit MULs, two
 * products per carry chain; docs/mpmul-cm3.md), constant time because MUL is 1 cycle for every
 * operand on the M3 while UMULL terminates early (paper 003). The reduction by 38 is shifts and adds
 * (fe_reduce.h). fe_sqr is the same kernel on (a, a): no dedicated squaring yet (docs/x25519.md). */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "../ref/x25519.h"
#include "../ref/fe_reduce.h"

void MCU_FN(mpmul256, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);

void MCU_FN(x25519, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[16];
    MCU_FN(mpmul256, mul)(t, a, b);
    fe_reduce(r, t);
}

void MCU_FN(x25519, fe_sqr)(uint32_t *r, const uint32_t *a)
{
    uint32_t t[16];
    MCU_FN(mpmul256, mul)(t, a, a);
    fe_reduce(r, t);
}
