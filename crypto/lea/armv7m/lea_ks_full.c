// SPDX-License-Identifier: MIT
/* LEA-192/256 key schedules for cm3-fast: six words per round, the reference layout (rk[6i + j]).
 * Written for the compiler: T_j = ROL(T_j + ROL(delta, i + j), s_j) with the rotation amounts as
 * constants, which GCC turns into ADD with a shifted operand and ROR on the Cortex-M3. No table indexed
 * by secrets, no secret-dependent branch. (LEA-128's schedule is in lea_cm3.S.) */
#include <stdint.h>
#include <string.h>

#include "mcucrypt/ns.h"
#include "../ref/lea.h"

static const uint32_t LEA_DELTA[8] = {
    0xc3efe9dbu, 0x44626b02u, 0x79e27c8au, 0x78df30ecu,
    0x715ea49eu, 0xc785da0au, 0xe04ef22au, 0xe5c40957u,
};
static inline uint32_t rol32(uint32_t x, unsigned r)
{
    r &= 31u;
    return r ? (x << r) | (x >> (32u - r)) : x;
}

/* One key word: t = ROL(t + c, s); then c = ROL(delta, i + j + 1) for the next word. */
static inline uint32_t ks_word(uint32_t *t, unsigned s, uint32_t *c)
{
    *t = rol32(*t + *c, s);
    *c = rol32(*c, 1);
    return *t;
}

/* LEA-192: six words, word j of every round is T_j. */
static void lea192_ks(uint32_t *rk, const uint8_t *key)
{
    uint32_t t[6];
    memcpy(t, key, sizeof t);                /* the M3 is little-endian, as LEA's words are */
    for (unsigned i = 0; i < 28; i++, rk += 6) {
        uint32_t c = rol32(LEA_DELTA[i % 6u], i);
        rk[0] = ks_word(&t[0], 1, &c);
        rk[1] = ks_word(&t[1], 3, &c);
        rk[2] = ks_word(&t[2], 6, &c);
        rk[3] = ks_word(&t[3], 11, &c);
        rk[4] = ks_word(&t[4], 13, &c);
        rk[5] = ks_word(&t[5], 17, &c);
    }
}

/* LEA-256: eight words, word j of round i is T_{(6i + j) mod 8}; the start (6i mod 8) cycles 0, 6, 4, 2. */
static void lea256_ks(uint32_t *rk, const uint8_t *key)
{
    uint32_t t[8];
    memcpy(t, key, sizeof t);
    for (unsigned i = 0; i < 32; i++, rk += 6) {
        uint32_t c = rol32(LEA_DELTA[i % 8u], i);
        unsigned b = (6u * i) & 7u;
        rk[0] = ks_word(&t[b], 1, &c);
        rk[1] = ks_word(&t[(b + 1) & 7u], 3, &c);
        rk[2] = ks_word(&t[(b + 2) & 7u], 6, &c);
        rk[3] = ks_word(&t[(b + 3) & 7u], 11, &c);
        rk[4] = ks_word(&t[(b + 4) & 7u], 13, &c);
        rk[5] = ks_word(&t[(b + 5) & 7u], 17, &c);
    }
}

void MCU_FN(lea192, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    lea192_ks(rk, key);
}

void MCU_FN(lea256, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    lea256_ks(rk, key);
}
