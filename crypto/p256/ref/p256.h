// SPDX-License-Identifier: MIT
/* ECDSA (FIPS 186-5, SHA-256) and ECDH (SP 800-56A ECC CDH) on NIST P-256: public API, exported by
 * every implementation under its MCU_IMPL namespace (crypto/p256/META.yml, docs/p256.md).
 *   keys: sk = d, 32 bytes big-endian, 1 <= d < n; pk = 04 || X || Y (65 bytes); verify and ecdh also
 *         take the compressed form 02/03 || X (33 bytes); both validated (on the curve, coordinates < p)
 *   signatures: r || s, 64 bytes big-endian; the message is hashed inside with SHA-256
 *   every function returns 0, or -1 for a refused input (nothing released: outputs zeroed) */
#ifndef MCUCRYPT_P256_H
#define MCUCRYPT_P256_H
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

#define P256_SK_BYTES 32
#define P256_PK_BYTES 65
#define P256_PK_COMPRESSED_BYTES 33
#define P256_SIG_BYTES 64

int MCU_FN(p256, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed);
/* rnd: the nonce k (32 bytes big-endian, FIPS 186-5 A.3.2: refused with -1 if 0 or >= n, draw again);
 * 32 zero bytes (or NULL): k by RFC 6979 (deterministic) */
int MCU_FN(p256, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk, const uint8_t *rnd);
int MCU_FN(p256, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk,
                         size_t pklen);
/* shared = the x-coordinate of d * Q (32 bytes big-endian) */
int MCU_FN(p256, ecdh)(uint8_t *shared, const uint8_t *sk, const uint8_t *pk, size_t pklen);

/* the field and scalar arithmetic, exported for the differential test, the bench and the checker:
 * 8 little-endian 32-bit limbs; fe_mul inputs any value < 2^256, result < 2^256 and = a b mod p */
void MCU_FN(p256, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
/* r = d * (x, y) in affine coordinates (constant time in d: the scalar multiplication of keygen, sign and
 * ecdh); the point must be on the curve and 1 <= d < n (not checked here) */
void MCU_FN(p256, scalarmult)(uint32_t *r, const uint32_t *d, const uint32_t *point);

#endif
