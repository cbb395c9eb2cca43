// SPDX-License-Identifier: MIT
/* AES-128 key schedule of the fixsliced implementation rv32-bitsliced (aes_bitsliced.S), constant time.
 *
 *   void mcu_aes128_rv32_bitsliced_keyschedule(uint8_t *rk, const uint8_t *key)
 *
 * 1. FIPS-197 key expansion; SubWord goes through the bitsliced Boyar-Peralta circuit (aes_bs_sbox.h,
 *    generated from the same gate list as the rounds), so no table is indexed by key bytes.
 * 2. Round key i is put in the form the fixsliced rounds add it: ShiftRows^-(i mod 4) of it (the rounds
 *    never compute ShiftRows, so after round i the state lacks i mod 4 of them), XOR 0x63 in every byte
 *    for i >= 1 (the NOTs the S-box circuit leaves out), packed into eight slices as two equal blocks.
 * 3. A slice of a round key has 16 distinct bits (both blocks carry the same key), at the even positions
 *    and again at the odd ones: slices 2j and 2j+1 share stored word j (even bits from 2j, odd from 2j+1),
 *    so the 11 keys take 176 bytes, the size of the standard schedule. The rounds expand them once per call.
 * Every loop bound and index is public (the round number), every operation on key material is a logical
 * or shift: constant time. Little-endian byte access throughout, so rk and key may have any alignment. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "aes_bs_sbox.h"

void MCU_FN(aes128, keyschedule)(uint8_t *rk, const uint8_t *key);

/* t = ((a >> n) ^ b) & mask; b ^= t; a ^= t << n: exchange b's bits under mask with a's n places up. */
static void swapmove(uint32_t *a, uint32_t *b, uint32_t mask, unsigned n)
{
    uint32_t t = ((*a >> n) ^ *b) & mask;
    *b ^= t;
    *a ^= t << n;
}

/* The 8x8 bit transposition inside every byte lane between words (q[2c+b] = column c of block b) and
 * slices (q[i] = bit i of every byte, byte (row r, column c) of block b at bit 8r + 2c + b). It is its own
 * inverse; the assembly uses the same network. */
static void transpose(uint32_t q[8])
{
    for (unsigned w = 0; w < 8; w += 2) {
        swapmove(&q[w], &q[w + 1], 0x55555555u, 1);
    }
    for (unsigned w = 0; w < 8; w++) {
        if ((w & 2) == 0) {
            swapmove(&q[w], &q[w + 2], 0x33333333u, 2);
        }
    }
    for (unsigned w = 0; w < 4; w++) {
        swapmove(&q[w], &q[w + 4], 0x0f0f0f0fu, 4);
    }
}

/* SubWord: the word as every column of both blocks, through the circuit, back out of column 0. */
static uint32_t sub_word(uint32_t w)
{
    uint32_t q[8];
    for (unsigned i = 0; i < 8; i++) {
        q[i] = w;
    }
    transpose(q);
    aes_bs_sbox(q);
    transpose(q);
    return q[0];
}

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void store32_le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

void MCU_FN(aes128, keyschedule)(uint8_t *rk, const uint8_t *key)
{
    uint32_t w[44];
    uint32_t rcon = 1;
    for (unsigned i = 0; i < 4; i++) {
        w[i] = load32_le(key + 4 * i);
    }
    for (unsigned i = 4; i < 44; i++) {
        uint32_t t = w[i - 1];
        if ((i & 3) == 0) { /* the position decides, not the key */
            t = sub_word((t >> 8) | (t << 24)) ^ rcon; /* RotWord on a little-endian word */
            rcon = ((rcon << 1) ^ (0x1bu & (0u - (rcon >> 7)))) & 0xffu;
        }
        w[i] = w[i - 4] ^ t;
    }
    for (unsigned r = 0; r < 11; r++) {
        uint32_t q[8];
        unsigned k = r & 3;
        for (unsigned c = 0; c < 4; c++) {
            uint32_t v = 0;
            for (unsigned row = 0; row < 4; row++) { /* ShiftRows^-k: P(row, c) = L(row, c - row*k) */
                v |= w[4 * r + ((c + 4 * 4 - row * k) & 3)] & (0xffu << (8 * row));
            }
            if (r != 0) {
                v ^= 0x63636363u;
            }
            q[2 * c] = v;
            q[2 * c + 1] = v;
        }
        transpose(q);
        for (unsigned j = 0; j < 4; j++) {
            store32_le(rk + 16 * r + 4 * j, (q[2 * j] & 0x55555555u) | (q[2 * j + 1] & 0xaaaaaaaau));
        }
    }
}
