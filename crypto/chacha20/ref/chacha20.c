// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439): portable C99 reference, written from the RFC.
 * The block function (20 rounds over the 16-word state, then the feed-forward) and a stream API that
 * XORs a message of any length with the key stream from block `counter` on. ARX only: constant time. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "chacha20.h"

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32u - n));
}

#define QUARTER(a, b, c, d)                \
    do {                                   \
        a += b; d = rotl32(d ^ a, 16);     \
        c += d; b = rotl32(b ^ c, 12);     \
        a += b; d = rotl32(d ^ a, 8);      \
        c += d; b = rotl32(b ^ c, 7);      \
    } while (0)

/* The 20 rounds (10 double rounds: columns, then diagonals) in place. */
static void rounds(uint32_t x[16])
{
    for (int i = 0; i < 10; i++) {
        QUARTER(x[0], x[4], x[8], x[12]);
        QUARTER(x[1], x[5], x[9], x[13]);
        QUARTER(x[2], x[6], x[10], x[14]);
        QUARTER(x[3], x[7], x[11], x[15]);
        QUARTER(x[0], x[5], x[10], x[15]);
        QUARTER(x[1], x[6], x[11], x[12]);
        QUARTER(x[2], x[7], x[8], x[13]);
        QUARTER(x[3], x[4], x[9], x[14]);
    }
}

/* The permutation alone (no feed-forward), on native 32-bit words. */
void MCU_FN(chacha20, permute)(uint32_t *out, const uint32_t *in)
{
    uint32_t x[16];
    for (int i = 0; i < 16; i++) {
        x[i] = in[i];
    }
    rounds(x);
    for (int i = 0; i < 16; i++) {
        out[i] = x[i];
    }
}

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    uint32_t init[16], x[16];
    init[0] = 0x61707865u; /* "expand 32-byte k" */
    init[1] = 0x3320646eu;
    init[2] = 0x79622d32u;
    init[3] = 0x6b206574u;
    for (int i = 0; i < 8; i++) {
        init[4 + i] = load32_le(key + 4 * i);
    }
    init[12] = counter;
    for (int i = 0; i < 3; i++) {
        init[13 + i] = load32_le(nonce + 4 * i);
    }
    for (int i = 0; i < 16; i++) {
        x[i] = init[i];
    }
    rounds(x);
    for (int i = 0; i < 16; i++) {
        uint32_t v = x[i] + init[i];
        out[4 * i] = (uint8_t)v;
        out[4 * i + 1] = (uint8_t)(v >> 8);
        out[4 * i + 2] = (uint8_t)(v >> 16);
        out[4 * i + 3] = (uint8_t)(v >> 24);
    }
}

int MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                          uint32_t counter)
{
    uint8_t ks[64];
    if (chacha20_counter_wraps(len, counter))
        return -1;                              /* nothing written: the key stream would repeat */
    while (len > 0) {
        size_t n = len < 64 ? len : 64;
        MCU_FN(chacha20, block)(ks, key, nonce, counter++);
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint8_t)(in[i] ^ ks[i]);
        }
        out += n;
        in += n;
        len -= n;
    }
    return 0;
}
