// SPDX-License-Identifier: MIT
/* LEA key schedules for avr-fast (KS X 3246), C: T_j = ROL(T_j + ROL(delta, i + j), s_j).
 * Layouts (what lea_avr.S reads): LEA-128 the compact one, the four distinct words T0..T3 of every
 * round (rk[4i + j], 384 bytes: round keys 1, 3 and 5 are all T1); LEA-192/256 the standard six words a
 * round (rk[6i + j]). No table indexed by secrets, no secret-dependent branch. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "../ref/lea.h"

#ifndef LEA_RK_COMPACT
#error "LEA_RK_COMPACT must be defined: avr-fast writes LEA-128's compact layout (LEA_RK_COMPACT=1)"
#endif
#if LEA_RK_COMPACT != 1
#error "avr-fast's LEA-128 rounds read 4 words a round: build it with LEA_RK_COMPACT=1"
#endif

static const uint32_t LEA_DELTA[8] = {
    0xc3efe9dbu, 0x44626b02u, 0x79e27c8au, 0x78df30ecu,
    0x715ea49eu, 0xc785da0au, 0xe04ef22au, 0xe5c40957u,
};
static const uint8_t LEA_KS_ROT[6] = {1, 3, 6, 11, 13, 17};

static uint32_t rol32(uint32_t x, unsigned r)
{
    r &= 31u;
    return r ? (x << r) | (x >> (32u - r)) : x;
}

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void lea_avr_ks(uint32_t *rk, const uint8_t *key, unsigned key_words)
{
    uint32_t t[8];
    unsigned rounds = 16u + 2u * key_words;
    for (unsigned i = 0; i < key_words; i++) {
        t[i] = load32_le(key + 4 * i);
    }
    for (unsigned i = 0; i < rounds; i++) {
        uint32_t c = rol32(LEA_DELTA[i % key_words], i);       /* ROL(delta, i + j), j = 0 */
        if (key_words == 4) {
            for (unsigned j = 0; j < 4; j++, c = rol32(c, 1)) {
                t[j] = rol32(t[j] + c, LEA_KS_ROT[j]);
                *rk++ = t[j];
            }
        } else {
            for (unsigned j = 0; j < 6; j++, c = rol32(c, 1)) {
                unsigned w = key_words == 6 ? j : (6 * i + j) % 8;
                t[w] = rol32(t[w] + c, LEA_KS_ROT[j]);
                *rk++ = t[w];
            }
        }
    }
}

void MCU_FN(lea128, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    lea_avr_ks(rk, key, 4);
}

void MCU_FN(lea192, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    lea_avr_ks(rk, key, 6);
}

void MCU_FN(lea256, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    lea_avr_ks(rk, key, 8);
}
