// SPDX-License-Identifier: MIT
/* TinyJAMBU keyed permutation, "optimized" form (paper 004's O): 128 steps per iteration as four 32-step
 * updates done in place, so the state words never move; word j is updated from words j+1, j+2, j+3
 * (indices mod 4), which after the earlier updates of the iteration hold exactly what the moving form
 * (perm_normal.c) would have in words 1, 2, 3. Written from the specification.
 *
 * TJ_UPDATE(a, b, c, d, k) does the 32 steps whose feedback lands in word a:
 *   a ^= ((b >> 15) | (c << 17)) ^ ~(((c >> 6) | (d << 26)) & ((c >> 21) | (d << 11)))
 *        ^ ((c >> 27) | (d << 5)) ^ k
 * Constant time: only shifts by constants, AND, XOR; the loop bounds are public. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "tinyjambu_perm.h"

static uint32_t key_word(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#define TJ_UPDATE(a, b, c, d, k)                                                                         \
    (a) ^= (((b) >> 15) | ((c) << 17)) ^ ~((((c) >> 6) | ((d) << 26)) & (((c) >> 21) | ((d) << 11))) ^ \
           (((c) >> 27) | ((d) << 5)) ^ (k)

static void tj_perm_opt(uint32_t *state, const uint8_t *key, uint8_t key_words, uint16_t steps)
{
    uint32_t s0 = state[0], s1 = state[1], s2 = state[2], s3 = state[3];
    const uint8_t *kp = key;                      /* next key word */
    const uint8_t *kend = key + 4u * key_words;   /* wraps back to key here */
    for (uint16_t i = 0; i < steps / 128u; i++) {
        uint32_t k[4];
        for (unsigned j = 0; j < 4; j++) {        /* the four key words of these 128 steps */
            k[j] = key_word(kp);
            kp += 4;
            if (kp == kend) {
                kp = key;
            }
        }
        TJ_UPDATE(s0, s1, s2, s3, k[0]);
        TJ_UPDATE(s1, s2, s3, s0, k[1]);
        TJ_UPDATE(s2, s3, s0, s1, k[2]);
        TJ_UPDATE(s3, s0, s1, s2, k[3]);
    }
    state[0] = s0;
    state[1] = s1;
    state[2] = s2;
    state[3] = s3;
}

/* One entry per key size (tinyjambu_perm.h): the key of tinyjambu128/192/256 has 4/6/8 words. */
void MCU_FN(tinyjambu128, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_opt(state, key, 4, steps);
}

void MCU_FN(tinyjambu192, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_opt(state, key, 6, steps);
}

void MCU_FN(tinyjambu256, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_opt(state, key, 8, steps);
}
