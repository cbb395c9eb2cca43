// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439) for the 8-bit AVR (avr-fast): the state set-up, feed-forward and stream loop in C
 * around the generated assembly permutation (chacha20_avr.S: 20 rounds, no feed-forward).
 *
 * block: the initial state in out itself (the permutation runs in place), then out += initial state.
 * xor: one initial state for the whole call, the counter word incremented per block; the key stream of
 * each block is XORed into out. The AVR is little-endian like ChaCha's words, so key, nonce and the
 * state are plain byte copies. Branches depend on the length only: constant time. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

void MCU_FN(chacha20, permute)(uint32_t *out, const uint32_t *in);
void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter);
void MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                           uint32_t counter);

static void setup(uint32_t init[16], const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    init[0] = 0x61707865u; /* "expand 32-byte k" */
    init[1] = 0x3320646eu;
    init[2] = 0x79622d32u;
    init[3] = 0x6b206574u;
    __builtin_memcpy(&init[4], key, 32);
    init[12] = counter;
    __builtin_memcpy(&init[13], nonce, 12);
}

/* ks = permute(init) + init, word by word */
static void keystream(uint32_t ks[16], const uint32_t init[16])
{
    MCU_FN(chacha20, permute)(ks, init);
    for (uint8_t i = 0; i < 16; i++) {
        ks[i] += init[i];
    }
}

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    uint32_t init[16], ks[16];
    setup(init, key, nonce, counter);
    keystream(ks, init);
    __builtin_memcpy(out, ks, 64);
}

void MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                           uint32_t counter)
{
    uint32_t init[16], ks[16];
    setup(init, key, nonce, counter);
    while (len > 0) {
        keystream(ks, init);
        size_t n = len < 64 ? len : 64;
        const uint8_t *k = (const uint8_t *)ks;
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint8_t)(in[i] ^ k[i]);
        }
        init[12]++;
        in += n;
        out += n;
        len -= n;
    }
}
