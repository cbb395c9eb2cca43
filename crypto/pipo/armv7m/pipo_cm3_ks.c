// SPDX-License-Identifier: MIT
/* PIPO key schedule for cm3-fast: the round keys in the nibble form of pipo_cm3.S.
 *
 *   void mcu_<id>_cm3_fast_keyschedule(uint32_t *rk, const uint8_t *key)
 *
 * Nibble form: bit c of a row byte fills bits 4c..4c+3 of a word, so rotating a row by r columns is
 * rotating the word by 4r (one barrel-shifter operand on the M3) and one word holds column c of four
 * blocks side by side (encrypt_blocks). Layout, R = 13 (PIPO-64/128) or 17 (PIPO-64/256), Q = 2 or 4
 * key halves K[q] (key bytes 8q..8q+7):
 *   words 8i .. 8i+7      (i = 0..R)      rows 0..7 of round key i = K[i mod Q] with i in row 0;
 *   words 8(R+1) + 7q + j-1 (j = 1..7)    row j of K[q] rotated right by its R-layer amount: decryption
 *                                          adds R^-1(K) to R^-1(x) and so folds R^-1 into the key XOR.
 * 504 bytes (PIPO-64/128), 688 bytes (PIPO-64/256). No branch or address depends on the key.
 */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "../ref/pipo.h"

static const uint8_t PIPO_ROT[8] = {0, 7, 4, 3, 6, 5, 1, 2};

static uint32_t nibble_form(uint32_t b)
{
    b = (b | (b << 12)) & 0x000F000Fu;           /* bits 4..7 -> 16..19 */
    b = (b | (b << 6)) & 0x03030303u;            /* bits 2c, 2c+1 -> bytes */
    b = (b | (b << 3)) & 0x11111111u;            /* bit c -> bit 4c */
    return b * 15u;                              /* fill the nibble (no carries) */
}

static uint32_t ror32(uint32_t x, unsigned n)
{
    return n == 0u ? x : (x >> n) | (x << (32u - n));
}

static inline void pipo_cm3_ks(uint32_t *rk, const uint8_t *key, unsigned halves, unsigned rounds)
{
    uint32_t *dk = rk + 8u * (rounds + 1u);
    for (unsigned q = 0; q < halves; q++) {
        uint32_t k[8];
        for (unsigned j = 0; j < 8; j++) {
            k[j] = nibble_form(key[8u * q + j]);
        }
        /* round keys q, q + halves, ...: K[q] with i in row 0 (the form is linear) */
        for (unsigned i = q; i <= rounds; i += halves) {
            uint32_t *r = rk + 8u * i;
            r[0] = k[0] ^ nibble_form(i);
            r[1] = k[1];
            r[2] = k[2];
            r[3] = k[3];
            r[4] = k[4];
            r[5] = k[5];
            r[6] = k[6];
            r[7] = k[7];
        }
        for (unsigned j = 1; j < 8; j++) {
            dk[7u * q + j - 1u] = ror32(k[j], 4u * PIPO_ROT[j]);
        }
    }
}

void MCU_FN(pipo64_128, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    pipo_cm3_ks(rk, key, 2u, 13u);
}

void MCU_FN(pipo64_256, keyschedule)(uint32_t *rk, const uint8_t *key)
{
    pipo_cm3_ks(rk, key, 4u, 17u);
}
