// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439): the API every implementation exports under its MCU_IMPL namespace, and the
 * counter rule the stream functions share.
 *   block(out, key, nonce, counter)          one 64-byte key-stream block
 *   xor(out, in, len, key, nonce, counter)   out = in ^ the key stream from block `counter` on. Returns 0,
 *                                            or -1 with nothing written when the 32-bit block counter
 *                                            would wrap (chacha20_counter_wraps)
 *   permute(out, in)                         the 20 rounds alone (benchmarks) */
#ifndef MCUCRYPT_CHACHA20_H
#define MCUCRYPT_CHACHA20_H
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter);
int MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                          uint32_t counter);
void MCU_FN(chacha20, permute)(uint32_t *out, const uint32_t *in);

/* 1 when len bytes from block `counter` on need a block number of 2^32 or more: the 32-bit counter
 * would wrap to block 0 and reuse its key stream (RFC 8439 2.4 allows 2^32 blocks per nonce; its
 * counter is 32 bits). The last block is counter + ceil(len / 64) - 1 = counter + (len - 1) / 64 (no
 * overflow of len + 63); compared with 2^32 - 1 - counter in the wider of size_t and uint32_t (16-bit
 * size_t on AVR). Public values only (lengths, the counter). */
static inline int chacha20_counter_wraps(size_t len, uint32_t counter)
{
    return len != 0 && (len - 1u) / 64u > 0xffffffffu - counter;
}

#endif
