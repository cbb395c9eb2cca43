// SPDX-License-Identifier: MIT
/* TinyJAMBU v2 (NIST LWC final round) public API: every implementation exports these under its own
 * MCU_IMPL namespace, for each of tinyjambu128, tinyjambu192 and tinyjambu256.
 *
 * aead_encrypt / aead_decrypt: the NIST LWC API (crypto_aead_encrypt / crypto_aead_decrypt). 12-byte
 *   nonce npub, 16/24/32-byte key k, 8-byte tag appended to the ciphertext; nsec is unused. Decryption
 *   returns 0 and the plaintext when the tag verifies, and -1 otherwise; on failure the output buffer
 *   holds zeros (plaintext computed on the way is wiped before returning, with no branch on the result),
 *   *mlen is 0, and the tag is compared in constant time.
 *
 * permute: the keyed permutation P_steps on a 128-bit state (four little-endian 32-bit words, word i
 *   holding the specification's bits s_32i .. s_32i+31). steps must be a multiple of 128; TinyJAMBU uses
 *   640 and 1024 / 1152 / 1280 (128 / 192 / 256-bit key).
 *
 * fixednonce_*: the "initialization skip" of paper 004 (Kwon et al., 2023), for a device that uses ONE
 *   fixed key and ONE fixed nonce. fixednonce_init_state runs key setup and nonce setup once and stores
 *   the resulting 128-bit state; fixednonce_encrypt_from_state / fixednonce_decrypt_from_state then
 *   process messages from a copy of it (the stored state is not modified).
 *   CAVEAT: every message encrypted from the same stored state is encrypted under the same (key, nonce).
 *   TinyJAMBU's security requires a nonce never to repeat under one key: two messages from one stored
 *   state share their keystream (c1 ^ c2 = m1 ^ m2 over the common blocks) and lose the forgery bound.
 *   Use these functions only where the fixed-key-and-fixed-nonce setting is acceptable (e.g. one message
 *   per key and nonce, precomputed ahead of time), or to measure the paper's "+I" figures. */
#ifndef MCUCRYPT_TINYJAMBU_H
#define MCUCRYPT_TINYJAMBU_H
#include <stdint.h>
#include "mcucrypt/ns.h"

#define TINYJAMBU_NONCE_BYTES 12
#define TINYJAMBU_TAG_BYTES 8
#define TINYJAMBU_STATE_BYTES 16

#define TINYJAMBU_DECLARE(id)                                                                          \
    int MCU_FN(id, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,   \
                                 unsigned long long mlen, const unsigned char *ad,                    \
                                 unsigned long long adlen, const unsigned char *nsec,                 \
                                 const unsigned char *npub, const unsigned char *k);                  \
    int MCU_FN(id, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,      \
                                 const unsigned char *c, unsigned long long clen,                     \
                                 const unsigned char *ad, unsigned long long adlen,                   \
                                 const unsigned char *npub, const unsigned char *k);                  \
    void MCU_FN(id, permute)(uint32_t *state, const uint8_t *key, uint16_t steps);                    \
    void MCU_FN(id, fixednonce_init_state)(uint32_t *state, const unsigned char *npub,                 \
                                           const unsigned char *k);                                   \
    int MCU_FN(id, fixednonce_encrypt_from_state)(unsigned char *c, unsigned long long *clen,          \
                                                  const unsigned char *m, unsigned long long mlen,     \
                                                  const unsigned char *ad, unsigned long long adlen,   \
                                                  const uint32_t *state, const unsigned char *k);      \
    int MCU_FN(id, fixednonce_decrypt_from_state)(unsigned char *m, unsigned long long *mlen,          \
                                                  const unsigned char *c, unsigned long long clen,     \
                                                  const unsigned char *ad, unsigned long long adlen,   \
                                                  const uint32_t *state, const unsigned char *k);

TINYJAMBU_DECLARE(tinyjambu128)
TINYJAMBU_DECLARE(tinyjambu192)
TINYJAMBU_DECLARE(tinyjambu256)

#endif
