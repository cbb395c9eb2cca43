// SPDX-License-Identifier: MIT
/* cm3-fast: the assembly pieces the Karatsuba driver (fast.c) calls, and the public API it exports.
 * Limbs are little-endian 32-bit words; see fast_k8.S and fast_kara.S for the contracts. */
#ifndef MPMUL_CM3_FAST_H
#define MPMUL_CM3_FAST_H
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

/* r[0..16) = a[0..8) * b[0..8), constant time (fast_k8.S; also mcu_mpmul256_cm3_fast_mul). */
void mpmul_cm3_fast_k8(uint32_t *r, const uint32_t *a, const uint32_t *b);
/* The 256-bit kernel the Karatsuba levels call, set by META.yml (cm3-fast: mpmul_cm3_fast_k8). */
#ifndef MPMUL_CM3_K8
#error "MPMUL_CM3_K8 must name the 256-bit kernel (META.yml: mpmul_cm3_fast_k8)"
#endif
/* d = |x - y| over `words` words (a multiple of 4); returns all ones if x < y, else 0. */
uint32_t mpmul_cm3_fast_absdiff(uint32_t *d, const uint32_t *x, const uint32_t *y, size_t words);
/* r = z0 + (z0 + z2 + (m ? -z1 : z1)) * W^h + z2 * W^2h, with z0 = r[0..2h), z2 = r[2h..4h). */
void mpmul_cm3_fast_combine(uint32_t *r, uint32_t *z1, size_t h, uint32_t m);

void MCU_FN(mpmul256, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul512, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);

#endif
