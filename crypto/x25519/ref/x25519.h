// SPDX-License-Identifier: MIT
/* X25519 (RFC 7748), public API and the field interface the shared ladder is built on.
 *
 * Every implementation exports, under its own MCU_IMPL namespace:
 *   x25519(shared, scalar, point)   shared = X25519(scalar, point): clamping, the top bit of the point's
 *                                   last byte masked, u >= p accepted. Returns 0, or -1 when shared is
 *                                   all zeros (a small-order point, RFC 7748 section 6.1: the peer's key is
 *                                   refused, as TLS 1.3 and libsodium do); the check is constant time
 *   x25519_unchecked(shared, scalar, point)
 *                                   the same X25519 function without the check (RFC 7748 section 5 as
 *                                   written: all zeros for a small-order point, silently). Only for
 *                                   protocols that check, or need the raw value, themselves
 *   x25519_base(public_key, scalar) public_key = X25519(scalar, 9) (never zero: no check needed)
 *   fe_mul(r, a, b), fe_sqr(r, a)   r = a*b, a^2 mod 2^255-19 (exported so their cost is measured)
 *   ladder(st, k, bits)             the ladder x25519 runs, over the low `bits` bits of k, bits 2 .. 0
 *                                   taken as 0 (exported for the constant-time checker, which traces a
 *                                   few steps on AVR)
 * Byte arguments may sit at any address. Field elements are 8 little-endian 32-bit limbs holding any
 * value below 2^256; results are below 2^256 and congruent mod p = 2^255-19, not necessarily < p.
 * r may be the same array as a or b. Secrets: the scalar, and every field element derived from it. */
#ifndef MCUCRYPT_X25519_H
#define MCUCRYPT_X25519_H
#include <stdint.h>
#include "mcucrypt/ns.h"

int MCU_FN(x25519, x25519)(uint8_t *shared, const uint8_t *scalar, const uint8_t *point);
void MCU_FN(x25519, x25519_unchecked)(uint8_t *shared, const uint8_t *scalar, const uint8_t *point);
void MCU_FN(x25519, x25519_base)(uint8_t *public_key, const uint8_t *scalar);
void MCU_FN(x25519, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(x25519, fe_sqr)(uint32_t *r, const uint32_t *a);
/* st = x1 | x2 | z2 | x3 | z3 (40 words), k a clamped scalar: the ladder over its bits bits-1 .. 0 (the
 * last three, 0 in a clamped scalar and not read, as doublings of x2, z2 alone: ref/ladder.c) */
void MCU_FN(x25519, ladder)(uint32_t *st, const uint8_t *k, uint16_t bits);

#endif
