// SPDX-License-Identifier: MIT
/* Ed25519 (RFC 8032, section 5.1): key generation, signing and verification.
 *
 * Every implementation exports, under its own MCU_IMPL namespace (prototypes in META.yml):
 *   keygen(pk, sk, seed)              seed: the RFC's 32-byte private key. pk: the 32-byte public key;
 *                                     sk: 64 bytes, seed || pk (the form sign takes). Returns 0
 *   sign(sig, msg, msglen, sk)        the 64-byte signature R || S of msg under sk = seed || pk (the pk
 *                                     half is trusted, as in libsodium: keep sk whole). Returns 0
 *   verify(sig, siglen, msg, msglen, pk)
 *                                     0 when sig is a valid signature of msg under pk, else -1: siglen
 *                                     not 64, S >= L, A or R not a canonical encoding of a point, A of
 *                                     small order, or [S]B != R + [k]A (cofactorless; docs/ed25519.md)
 * Byte arguments may sit at any address. Secrets: the seed, sk's seed half, and everything derived
 * from them in keygen and sign (constant time there); verify handles public data only.
 *
 * The field arithmetic is the x25519 implementation's: MCU_FN(x25519, fe_mul) / fe_sqr on 8
 * little-endian 32-bit limbs (any value < 2^256, results < 2^256 and congruent mod 2^255 - 19), from
 * crypto/x25519 by path (META.yml sources); SHA-512 is crypto/sha2's (its block function the core's
 * assembly where the implementation names it). */
#ifndef MCUCRYPT_ED25519_H
#define MCUCRYPT_ED25519_H
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

int MCU_FN(ed25519, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed);
int MCU_FN(ed25519, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk);
int MCU_FN(ed25519, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,
                            const uint8_t *pk);

#endif
