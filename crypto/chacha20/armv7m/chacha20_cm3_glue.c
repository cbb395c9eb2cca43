// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439) for the Cortex-M3 (cm3-fast): the state set-up and the stream loop in C around the
 * generated assembly core (chacha20_cm3.S: 20 rounds and the feed-forward of one block).
 *
 * block: init[] on the stack, one core call writing straight to out (the core stores with STR, which
 * takes any alignment on the M3). xor: one init[] for the whole call, the counter word incremented per
 * block; each block's key stream goes to a stack buffer and is XORed into out a word at a time (LDR/STR
 * take any alignment), the tail a byte at a time. permute: the core's mode 1. Branches depend on the
 * length only: constant time. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mcucrypt/ns.h"
#include "../ref/chacha20.h"

void MCU_FN(chacha20, core)(uint8_t *out, const uint32_t init[16], uint32_t mode);

/* A little-endian word from any address: the M3 is little-endian, as ChaCha's words are, and a 4-byte
 * copy compiles to one LDR (which takes any alignment). */
static inline uint32_t word(const uint8_t *p)
{
    uint32_t w;
    __builtin_memcpy(&w, p, 4);  /* a builtin even under -ffreestanding */
    return w;
}

/* Written out word by word: a loop here would be turned back into a call of the byte-wise memcpy. */
static void setup(uint32_t init[16], const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    init[0] = 0x61707865u; /* "expand 32-byte k" */
    init[1] = 0x3320646eu;
    init[2] = 0x79622d32u;
    init[3] = 0x6b206574u;
    init[4] = word(key);
    init[5] = word(key + 4);
    init[6] = word(key + 8);
    init[7] = word(key + 12);
    init[8] = word(key + 16);
    init[9] = word(key + 20);
    init[10] = word(key + 24);
    init[11] = word(key + 28);
    init[12] = counter;
    init[13] = word(nonce);
    init[14] = word(nonce + 4);
    init[15] = word(nonce + 8);
}

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    uint32_t init[16];
    setup(init, key, nonce, counter);
    MCU_FN(chacha20, core)(out, init, 0);
}

int MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                          uint32_t counter)
{
    uint32_t init[16], ks[16];
    if (chacha20_counter_wraps(len, counter))
        return -1;                              /* nothing written: the key stream would repeat */
    setup(init, key, nonce, counter);
    while (len >= 64) {
        MCU_FN(chacha20, core)((uint8_t *)ks, init, 0);
        for (unsigned i = 0; i < 16; i++) {
            uint32_t w = word(in + 4 * i) ^ ks[i];
            __builtin_memcpy(out + 4 * i, &w, 4);
        }
        init[12]++;
        in += 64;
        out += 64;
        len -= 64;
    }
    if (len > 0) {
        MCU_FN(chacha20, core)((uint8_t *)ks, init, 0);
        for (size_t i = 0; i < len; i++) {
            out[i] = (uint8_t)(in[i] ^ ((const uint8_t *)ks)[i]);
        }
    }
    return 0;
}

/* The permutation alone (20 rounds, no feed-forward): the figure published permutation code counts. */
void MCU_FN(chacha20, permute)(uint32_t *out, const uint32_t *in)
{
    MCU_FN(chacha20, core)((uint8_t *)out, in, 1);
}
