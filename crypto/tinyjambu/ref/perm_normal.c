// SPDX-License-Identifier: MIT
/* TinyJAMBU keyed permutation, "normal" form (paper 004's N): 32 steps per iteration, then the state
 * words move down by one and the new word enters at the top, exactly as the specification's bit shift
 * register does 32 times. Written from the specification.
 *
 * One step: fb = s_0 ^ s_47 ^ ~(s_70 & s_85) ^ s_91 ^ k_(i mod klen), then s <- (s >> 1) | fb << 127.
 * 32 steps at once are valid because every tap lies at least 47 positions above bit 0, so the 32 new
 * feedback bits depend only on bits of the state before the iteration: with the state as four 32-bit
 * words, the taps are the 32-bit windows starting at bits 47 (= 32 + 15), 70 (= 64 + 6), 85 (= 64 + 21)
 * and 91 (= 64 + 27). Constant time: only shifts by constants, AND, XOR; the loop bounds are public. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "tinyjambu_perm.h"

static uint32_t key_word(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void tj_perm_normal(uint32_t *state, const uint8_t *key, uint8_t key_words, uint16_t steps)
{
    uint8_t ki = 0; /* key word index, i mod key_words, kept by wrapping instead of dividing */
    for (uint16_t i = 0; i < steps / 32u; i++) {
        uint32_t t1 = (state[1] >> 15) | (state[2] << 17); /* s_47 .. s_78 */
        uint32_t t2 = (state[2] >> 6) | (state[3] << 26);  /* s_70 .. s_101 */
        uint32_t t3 = (state[2] >> 21) | (state[3] << 11); /* s_85 .. s_116 */
        uint32_t t4 = (state[2] >> 27) | (state[3] << 5);  /* s_91 .. s_122 */
        uint32_t fb = state[0] ^ t1 ^ ~(t2 & t3) ^ t4 ^ key_word(key + 4u * ki);
        state[0] = state[1];
        state[1] = state[2];
        state[2] = state[3];
        state[3] = fb;
        if (++ki == key_words) {
            ki = 0;
        }
    }
}

/* One entry per key size (tinyjambu_perm.h): the key of tinyjambu128/192/256 has 4/6/8 words. */
void MCU_FN(tinyjambu128, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_normal(state, key, 4, steps);
}

void MCU_FN(tinyjambu192, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_normal(state, key, 6, steps);
}

void MCU_FN(tinyjambu256, perm)(uint32_t *state, const uint8_t *key, uint16_t steps)
{
    tj_perm_normal(state, key, 8, steps);
}
