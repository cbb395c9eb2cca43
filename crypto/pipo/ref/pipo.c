// SPDX-License-Identifier: MIT
/* PIPO-64/128 and PIPO-64/256 (Kim et al., ICISC 2020): portable C99 reference, written from the
 * specification.
 *
 * State: eight rows x[0..7] of eight bits, row i = byte i of the block. A round is
 *   S-layer  the 8-bit S-box on each of the eight columns (bit j of a column = row j), computed
 *            bitsliced: every operation below acts on one bit of all eight columns at once;
 *   R-layer  row i rotated left by 0, 7, 4, 3, 6, 5, 1, 2 (i = 0..7) within its byte;
 *   AddRoundKey.
 * Round key i (i = 0..R, key 0 is whitening) is 64-bit key word K[i mod 2] (128-bit key) or K[i mod 4]
 * (256-bit key) with i xored into row 0. R = 13 or 17.
 *
 * The S-box is the designers' Unbalanced-Bridge construction: a 5-bit S-box S5_1 on rows 3..7, a 3-bit
 * S3 on rows 0..2, three bridging XORs, a second 5-bit layer S5_2 and a final row permutation; 11
 * nonlinear gates, 34 operations in all. Its inverse undoes the steps in reverse order. No table and
 * no secret-dependent branch: constant time on every core.
 *
 * Round keys: rk holds the R+1 round keys, 8 bytes each (112 or 144 bytes). */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "pipo.h"

static uint8_t rol8(uint8_t x, unsigned r)
{
    return (uint8_t)((x << r) | (x >> ((8u - r) & 7u)));
}

/* Rotation of row i in the R-layer. */
static const uint8_t PIPO_ROT[8] = {0, 7, 4, 3, 6, 5, 1, 2};

static void pipo_slayer(uint8_t x[8])
{
    uint8_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
    uint8_t t0, t1, u;
    /* S5_1 on (x7, x6, x5, x4, x3) */
    x5 ^= x7 & x6;
    x4 ^= x3 & x5;
    x7 ^= x4;
    x6 ^= x3;
    x3 ^= x4 | x5;
    x5 ^= x7;
    x4 ^= x5 & x6;
    /* S3 on (x2, x1, x0) */
    x2 ^= x1 & x0;
    x0 ^= x2 | x1;
    x1 ^= x2 | x0;
    x2 = (uint8_t)~x2;
    /* bridge: the S3 outputs enter the second 5-bit layer */
    x7 ^= x1;
    x3 ^= x2;
    x4 ^= x0;
    /* S5_2; x7, x4 and x3 leave it unchanged (they are outputs as they are) */
    x6 ^= x7 & x5;
    t0 = x7 ^ x6;
    x6 ^= x4 | x3;
    t1 = x3 ^ x5;
    x5 ^= x6 | x4;
    u = t1 & t0;
    /* truncation XORs back into the S3 rows, and the output permutation */
    x[0] = x7;
    x[1] = x0 ^ t1;
    x[2] = x2 ^ t0;
    x[3] = x6;
    x[4] = x5;
    x[5] = x4;
    x[6] = x3;
    x[7] = x1 ^ x4 ^ u;
}

static void pipo_inv_slayer(uint8_t y[8])
{
    uint8_t x0, x1, x2, x3, x4, x5, x6, x7, t0, t1, u;
    /* undo S5_2: y0 = x7, y5 = x4, y6 = x3 came through unchanged */
    x5 = y[4] ^ (y[3] | y[5]);
    x6 = y[3] ^ (y[5] | y[6]);  /* x6 after its first update */
    t0 = y[0] ^ x6;
    x6 ^= y[0] & x5;
    t1 = y[6] ^ x5;
    u = t1 & t0;
    x1 = y[7] ^ y[5] ^ u;
    x2 = y[2] ^ t0;
    x0 = y[1] ^ t1;
    /* undo the bridge */
    x7 = y[0] ^ x1;
    x3 = y[6] ^ x2;
    x4 = y[5] ^ x0;
    /* undo S3 */
    x2 = (uint8_t)~x2;
    x1 ^= x2 | x0;
    x0 ^= x2 | x1;
    x2 ^= x1 & x0;
    /* undo S5_1 */
    x4 ^= x5 & x6;
    x5 ^= x7;
    x3 ^= x4 | x5;
    x6 ^= x3;
    x7 ^= x4;
    x4 ^= x3 & x5;
    x5 ^= x7 & x6;
    y[0] = x0;
    y[1] = x1;
    y[2] = x2;
    y[3] = x3;
    y[4] = x4;
    y[5] = x5;
    y[6] = x6;
    y[7] = x7;
}

static void pipo_keyschedule(uint8_t *rk, const uint8_t *key, unsigned key_words, unsigned rounds)
{
    for (unsigned i = 0; i <= rounds; i++) {
        const uint8_t *k = key + 8 * (i % key_words);
        for (unsigned j = 0; j < 8; j++) {
            rk[8 * i + j] = k[j];
        }
        rk[8 * i] ^= (uint8_t)i;
    }
}

static void pipo_encrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk, unsigned rounds)
{
    uint8_t x[8];
    for (unsigned j = 0; j < 8; j++) {
        x[j] = in[j] ^ rk[j];
    }
    for (unsigned i = 1; i <= rounds; i++) {
        pipo_slayer(x);
        for (unsigned j = 0; j < 8; j++) {
            x[j] = rol8(x[j], PIPO_ROT[j]) ^ rk[8 * i + j];
        }
    }
    for (unsigned j = 0; j < 8; j++) {
        out[j] = x[j];
    }
}

static void pipo_decrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk, unsigned rounds)
{
    uint8_t x[8];
    for (unsigned j = 0; j < 8; j++) {
        x[j] = in[j];
    }
    for (unsigned i = rounds; i >= 1; i--) {
        for (unsigned j = 0; j < 8; j++) {
            x[j] = rol8(x[j] ^ rk[8 * i + j], (8u - PIPO_ROT[j]) & 7u);
        }
        pipo_inv_slayer(x);
    }
    for (unsigned j = 0; j < 8; j++) {
        out[j] = x[j] ^ rk[j];
    }
}

#define PIPO_API(id, key_words, rounds)                                                          \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key)                               \
    {                                                                                            \
        pipo_keyschedule((uint8_t *)rk, key, key_words, rounds);                                 \
    }                                                                                            \
    void MCU_FN(id, encrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk)                \
    {                                                                                            \
        pipo_encrypt(out, in, (const uint8_t *)rk, rounds);                                      \
    }                                                                                            \
    void MCU_FN(id, decrypt)(uint8_t *out, const uint8_t *in, const uint32_t *rk)                \
    {                                                                                            \
        pipo_decrypt(out, in, (const uint8_t *)rk, rounds);                                      \
    }                                                                                            \
    void MCU_FN(id, encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks,             \
                                    const uint32_t *rk)                                          \
    {                                                                                            \
        for (size_t b = 0; b < nblocks; b++) {                                                   \
            pipo_encrypt(out + 8 * b, in + 8 * b, (const uint8_t *)rk, rounds);                  \
        }                                                                                        \
    }

PIPO_API(pipo64_128, 2, 13)
PIPO_API(pipo64_256, 4, 17)
