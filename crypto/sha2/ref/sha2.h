// SPDX-License-Identifier: MIT
/* SHA-2 (FIPS 180-4), HMAC (FIPS 198-1) and HKDF (RFC 5869): what every implementation shares.
 *
 * The modes (padding, init/update/final, HMAC, HKDF) are portable C in sha2.c; the compression
 * ("block") functions are either the C ones in sha2.c or an implementation's assembly, chosen per
 * implementation by SHA2_ASM_256 and SHA2_ASM_512 (META.yml `defines`). Their contract, which the
 * assembly keeps exactly:
 *
 *   MCU_FN(sha256, blocks)(state, in, nblocks): state H0..H7 as native-endian 32-bit words; in:
 *     nblocks * 64 message bytes (big-endian words), any alignment; nblocks may be 0.
 *   MCU_FN(sha512, blocks)(state, in, nblocks): H0..H7 as native-endian 64-bit words (on 32-bit cores
 *     low word first, as C stores a uint64_t); in: nblocks * 128 bytes, big-endian; any alignment.
 *
 * Every input and every state word is secret: no branch, address or variable-latency instruction may
 * depend on them (lengths are public).
 *
 * With SHA2_ASM_HMAC256=1 the implementation also brings HMAC-SHA256's one-block entries, so that the
 * modes build no pad buffer and no byte-order round trip (each compresses exactly one block):
 *   MCU_FN(sha256, block_ipad)(state, k0) / MCU_FN(sha256, block_opad)(state, k0): the block
 *     k0 ^ 0x3636..36 / k0 ^ 0x5c5c..5c, k0 64 bytes (the key padded with zeros), any alignment;
 *   MCU_FN(sha256, block_words)(state, w): the block whose message words W[0..15] are w[0..15] as
 *     native 32-bit words (word aligned): big-endian bytes already decoded.
 *
 * Public API, per primitive id (prototypes in META.yml; symbols mcu_<id>_<impl>_<op>):
 *   sha224, sha256, sha384, sha512: hash (one-shot, returns 0), init, update, final
 *   hmacsha256, hmacsha512:         mac, mac_init, mac_update, mac_final, verify (0 or -1)
 *   hkdfsha256:                     extract, expand (0, or -1 when okmlen > 255 * 32), hkdf
 * Contexts are opaque byte buffers of CTX_BYTES (4-byte aligned) laid out as the structs below: the
 * chaining state, one block and the message length in bytes (HMAC: the inner hash's context and the
 * outer chaining state after the key block). `final` and `mac_final` wipe the context. */
#ifndef MCU_SHA2_H
#define MCU_SHA2_H

#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

/* Which block functions come from the implementation's assembly: no default (docs/adding-an-
 * implementation.md, "Layout defines"): a missing one would silently build the C function instead. */
#ifndef SHA2_ASM_256
#error "SHA2_ASM_256 must be defined: 1 where the implementation supplies MCU_FN(sha256, blocks) in assembly, else 0"
#endif
#ifndef SHA2_ASM_512
#error "SHA2_ASM_512 must be defined: 1 where the implementation supplies MCU_FN(sha512, blocks) in assembly, else 0"
#endif

#ifndef SHA2_ASM_HMAC256
#error "SHA2_ASM_HMAC256 must be defined: 1 where the implementation supplies HMAC-SHA256's one-block entries (block_ipad, block_opad, block_words), else 0"
#endif

#define SHA256_BLOCK_BYTES 64
#define SHA512_BLOCK_BYTES 128

/* SHA-224/256 context, 104 bytes: h at 0, block at 32, count (bytes hashed so far, little-endian on
 * every target here; count % 64 bytes of block are filled) at 96. */
typedef struct {
    uint32_t h[8];
    union {                                   /* words: padding and key pads a word at a time */
        uint8_t b[SHA256_BLOCK_BYTES];
        uint32_t w[SHA256_BLOCK_BYTES / 4];
    } block;
    uint64_t count;
} sha256_ctx_t;

/* SHA-384/512 context, 200 bytes: h at 0, block at 64, count at 192. */
typedef struct {
    uint64_t h[8];
    union {
        uint8_t b[SHA512_BLOCK_BYTES];
        uint32_t w[SHA512_BLOCK_BYTES / 4];
    } block;
    uint64_t count;
} sha512_ctx_t;

/* HMAC contexts: the inner hash (its count at 96 / 192) and the outer chaining state, H(K0 ^ opad)
 * after its one block. 136 and 264 bytes. */
typedef struct {
    sha256_ctx_t inner;
    uint32_t outer[8];
} hmacsha256_ctx_t;

typedef struct {
    sha512_ctx_t inner;
    uint64_t outer[8];
} hmacsha512_ctx_t;

void MCU_FN(sha256, blocks)(uint32_t state[8], const uint8_t *in, size_t nblocks);
void MCU_FN(sha512, blocks)(uint64_t state[8], const uint8_t *in, size_t nblocks);
#if SHA2_ASM_HMAC256
void MCU_FN(sha256, block_ipad)(uint32_t state[8], const uint8_t k0[SHA256_BLOCK_BYTES]);
void MCU_FN(sha256, block_opad)(uint32_t state[8], const uint8_t k0[SHA256_BLOCK_BYTES]);
void MCU_FN(sha256, block_words)(uint32_t state[8], const uint32_t w[SHA256_BLOCK_BYTES / 4]);
#endif

/* The public API (the catalog's prototypes, crypto/sha2/META.yml). */
#define SHA2_HASH_DECL(id)                                                                             \
    int MCU_FN(id, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen);      \
    void MCU_FN(id, init)(uint8_t *ctx);                                                              \
    void MCU_FN(id, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);                     \
    void MCU_FN(id, final)(uint8_t *ctx, unsigned char *out);
SHA2_HASH_DECL(sha224)
SHA2_HASH_DECL(sha256)
SHA2_HASH_DECL(sha384)
SHA2_HASH_DECL(sha512)

#define SHA2_MAC_DECL(id)                                                                              \
    void MCU_FN(id, mac)(uint8_t *out, const uint8_t *key, size_t keylen, const uint8_t *in, size_t inlen); \
    void MCU_FN(id, mac_init)(uint8_t *ctx, const uint8_t *key, size_t keylen);                       \
    void MCU_FN(id, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen);                       \
    void MCU_FN(id, mac_final)(uint8_t *ctx, uint8_t *out);                                           \
    int MCU_FN(id, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, size_t keylen,      \
                           const uint8_t *in, size_t inlen);
SHA2_MAC_DECL(hmacsha256)
SHA2_MAC_DECL(hmacsha512)

void MCU_FN(hkdfsha256, extract)(uint8_t *prk, const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
                                 size_t ikmlen);
int MCU_FN(hkdfsha256, expand)(uint8_t *okm, size_t okmlen, const uint8_t *prk, const uint8_t *info,
                               size_t infolen);
int MCU_FN(hkdfsha256, hkdf)(uint8_t *okm, size_t okmlen, const uint8_t *salt, size_t saltlen,
                             const uint8_t *ikm, size_t ikmlen, const uint8_t *info, size_t infolen);

#endif
