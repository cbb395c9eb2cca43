// SPDX-License-Identifier: MIT
/* LEA block cipher (KS X 3246, TTAS.KO-12.0223): portable C99 reference, written from the specification.
 *
 * 128-bit block as four little-endian 32-bit words; 24/28/32 rounds for 128/192/256-bit keys; each
 * round uses six 32-bit round keys. Only additions, rotations and XORs: constant time on every core.
 * Round keys are stored as rk[6*round + j], j = 0..5, for encryption and decryption alike. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "lea.h"

static const uint32_t LEA_DELTA[8] = {
    0xc3efe9dbu, 0x44626b02u, 0x79e27c8au, 0x78df30ecu,
    0x715ea49eu, 0xc785da0au, 0xe04ef22au, 0xe5c40957u,
};

static uint32_t rol32(uint32_t x, unsigned r)
{
    r &= 31u;
    return r ? (x << r) | (x >> (32u - r)) : x;
}

static uint32_t ror32(uint32_t x, unsigned r)
{
    return rol32(x, 32u - (r & 31u));
}

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void store32_le(uint8_t *p, uint32_t x)
{
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
    p[2] = (uint8_t)(x >> 16);
    p[3] = (uint8_t)(x >> 24);
}

/* The rotation amounts applied to the six updated key words of every round. */
static const uint8_t LEA_KS_ROT[6] = {1, 3, 6, 11, 13, 17};

static void lea_keyschedule(uint32_t *rk, const uint8_t *key, unsigned key_words)
{
    uint32_t t[8];
    unsigned rounds = 16u + 2u * key_words; /* 24, 28, 32 */
    for (unsigned i = 0; i < key_words; i++) {
        t[i] = load32_le(key + 4 * i);
    }
    for (unsigned i = 0; i < rounds; i++) {
        uint32_t *out = rk + 6 * i;
        if (key_words == 4) {
            uint32_t d = LEA_DELTA[i % 4];
            for (unsigned j = 0; j < 4; j++) {
                t[j] = rol32(t[j] + rol32(d, i + j), LEA_KS_ROT[j]);
            }
            out[0] = t[0];
            out[1] = t[1];
            out[2] = t[2];
            out[3] = t[1];
            out[4] = t[3];
            out[5] = t[1];
        } else if (key_words == 6) {
            uint32_t d = LEA_DELTA[i % 6];
            for (unsigned j = 0; j < 6; j++) {
                t[j] = rol32(t[j] + rol32(d, i + j), LEA_KS_ROT[j]);
                out[j] = t[j];
            }
        } else {
            uint32_t d = LEA_DELTA[i % 8];
            for (unsigned j = 0; j < 6; j++) {
                unsigned w = (6 * i + j) % 8;
                t[w] = rol32(t[w] + rol32(d, i + j), LEA_KS_ROT[j]);
                out[j] = t[w];
            }
        }
    }
}

static void lea_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk, unsigned rounds)
{
    uint32_t x0 = load32_le(in), x1 = load32_le(in + 4), x2 = load32_le(in + 8), x3 = load32_le(in + 12);
    for (unsigned i = 0; i < rounds; i++, rk += 6) {
        uint32_t n0 = rol32((x0 ^ rk[0]) + (x1 ^ rk[1]), 9);
        uint32_t n1 = ror32((x1 ^ rk[2]) + (x2 ^ rk[3]), 5);
        uint32_t n2 = ror32((x2 ^ rk[4]) + (x3 ^ rk[5]), 3);
        x3 = x0;
        x0 = n0;
        x1 = n1;
        x2 = n2;
    }
    store32_le(out, x0);
    store32_le(out + 4, x1);
    store32_le(out + 8, x2);
    store32_le(out + 12, x3);
}

static void lea_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk, unsigned rounds)
{
    uint32_t x0 = load32_le(in), x1 = load32_le(in + 4), x2 = load32_le(in + 8), x3 = load32_le(in + 12);
    for (unsigned i = rounds; i-- > 0;) {
        const uint32_t *k = rk + 6 * i;
        uint32_t p0 = x3;
        uint32_t p1 = (ror32(x0, 9) - (p0 ^ k[0])) ^ k[1];
        uint32_t p2 = (rol32(x1, 5) - (p1 ^ k[2])) ^ k[3];
        uint32_t p3 = (rol32(x2, 3) - (p2 ^ k[4])) ^ k[5];
        x0 = p0;
        x1 = p1;
        x2 = p2;
        x3 = p3;
    }
    store32_le(out, x0);
    store32_le(out + 4, x1);
    store32_le(out + 8, x2);
    store32_le(out + 12, x3);
}

#define LEA_API(id, key_words)                                                                  \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key)                              \
    {                                                                                           \
        lea_keyschedule(rk, key, key_words);                                                    \
    }                                                                                           \
    void MCU_FN(id, encrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk)               \
    {                                                                                           \
        lea_encrypt(out, in, rk, 16u + 2u * (key_words));                                       \
    }                                                                                           \
    void MCU_FN(id, decrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk)               \
    {                                                                                           \
        lea_decrypt(out, in, rk, 16u + 2u * (key_words));                                       \
    }

LEA_API(lea128, 4)
LEA_API(lea192, 6)
LEA_API(lea256, 8)
