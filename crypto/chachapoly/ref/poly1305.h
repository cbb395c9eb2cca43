// SPDX-License-Identifier: MIT
/* Poly1305 (RFC 8439, section 2.5) and ChaCha20-Poly1305 (section 2.8): the contract between the modes
 * (poly1305.c, chacha20poly1305.c: portable C, shared by every implementation) and the block function,
 * which each implementation brings in its own source (ref/poly1305_blocks.c is the portable one).
 *
 * The accumulator h travels between calls as a 17-byte little-endian integer, not necessarily reduced
 * modulo p = 2^130 - 5 but below 2^131 (every block function leaves it so, and accepts any 17 bytes
 * without overflowing: a context filled with random bytes is processed in constant time, if to no
 * meaningful tag). So the representation inside a block function (radix 2^8, 2^26, 2^32, ...) is its own
 * business and a context is the same bytes on every core.
 *
 * Incremental context (POLY1305_CTX_BYTES, byte offsets; no alignment needed):
 *   0  r[16]    the clamped first half of the key
 *   16 s[16]    the second half of the key, added at the end
 *   32 h[17]    the accumulator
 *   49 buf[16]  a partial block
 *   65 used     bytes in buf, 0..15 (public: it depends on the lengths only) */
#ifndef CHACHAPOLY_POLY1305_H
#define CHACHAPOLY_POLY1305_H
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

/* crypto/chacha20's sources, compiled into this family, take its names (mcu_chachapoly_chacha20_<impl>_*):
 * an export holding both families then links. META.yml passes the define to every source; the
 * ChaCha20 sources do not include this header, so the modes check it here. */
#ifndef chacha20
#error "chacha20 must be defined as chachapoly_chacha20: crypto/chacha20's symbols in this family's namespace"
#endif

#define POLY1305_KEY_BYTES 32
#define POLY1305_TAG_BYTES 16
#define POLY1305_BLOCK_BYTES 16
#define POLY1305_CTX_BYTES 66
#define POLY1305_CTX_R 0
#define POLY1305_CTX_S 16
#define POLY1305_CTX_H 32
#define POLY1305_CTX_BUF 49
#define POLY1305_CTX_USED 65

/* h = (h + block + hibit * 2^128) * r, for each of nblocks 16-byte blocks at in; r clamped (16 bytes,
 * little-endian). hibit is 1 for a whole message block, 0 for a final partial one the caller has padded
 * with 0x01 and zeros. */
void MCU_FN(poly1305, blocks)(uint8_t h[17], const uint8_t r[16], const uint8_t *in, size_t nblocks,
                              uint8_t hibit);

/* tag = ((h mod p) + s) mod 2^128. */
void MCU_FN(poly1305, finish)(uint8_t tag[16], const uint8_t h[17], const uint8_t s[16]);

/* r = the first 16 key bytes with RFC 8439's clamp (bits the multiplication's bounds rely on cleared). */
void MCU_FN(poly1305, clamp)(uint8_t r[16], const uint8_t key[16]);

/* Public API (META.yml `functions`). */
void MCU_FN(poly1305, mac)(uint8_t *out, const uint8_t *key, const uint8_t *in, size_t inlen);
void MCU_FN(poly1305, mac_init)(uint8_t *ctx, const uint8_t *key);
void MCU_FN(poly1305, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen);
void MCU_FN(poly1305, mac_final)(uint8_t *ctx, uint8_t *out);
int MCU_FN(poly1305, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, const uint8_t *in,
                             size_t inlen);
#endif
