// SPDX-License-Identifier: MIT
/* Poly1305 block function for the Cortex-M3 (cm3-fast): radix 2^13, ten limbs, MUL and MLA only (the
 * contract: ref/poly1305.h).
 *
 * Why this radix on the M3: MUL (1 cycle) and MLA (2 cycles) take the same time whatever the operands;
 * UMULL/UMLAL, which a radix-2^26 or 2^32 Poly1305 lives on, finish early on operands below 2^16
 * (docs/constant-time.md), so on secret limbs they leak. With 13-bit limbs every product fits 32 bits
 * and a column of ten sums without overflow: h limbs below 2^13 + 5 (carried before each product),
 * r limbs below 2^13, folded limbs 5 r_i below 2^15.33: at most 9 x (2^13 + 5) x 5 x 2^13 + 2^26 <
 * 2^31.6. 130 = 10 x 13, so the fold of limb 10 + i into limb i is exactly x5 (2^130 = 5 mod p).
 * Each block: add the block's ten 13-bit pieces, carry (so the bound above holds), 100 products into
 * ten 32-bit columns, carry again (the top's excess times 5 into limb 0). gcc compiles the 32-bit
 * products to MUL/MLA. No branch on data, no table: constant time (mcucrypt ct checks the binary). */
#include "../ref/poly1305.h"

#define M13 0x1fffu

/* 13 bits of the 136-bit little-endian value at p, from bit `bit` on. */
static inline uint32_t bits13(const uint8_t *p, unsigned bit)
{
    unsigned byte = bit >> 3, shift = bit & 7;
    uint32_t w = (uint32_t)p[byte] | ((uint32_t)p[byte + 1] << 8) | ((byte + 2 < 17 ? (uint32_t)p[byte + 2] : 0u) << 16);
    return (w >> shift) & M13;
}

/* h_i < 2^13 for i < 9, then limb 9's excess (the part at 2^130 and above) folded x5 into limb 0. */
static inline void carry10(uint32_t h[10])
{
#pragma GCC unroll 9
    for (unsigned i = 0; i < 9; i++) {
        h[i + 1] += h[i] >> 13;
        h[i] &= M13;
    }
    uint32_t c = h[9] >> 13;
    h[9] &= M13;
    h[0] += c * 5;
}

void MCU_FN(poly1305, blocks)(uint8_t hb[17], const uint8_t r[16], const uint8_t *in, size_t nblocks,
                              uint8_t hibit)
{
    uint32_t rr[10], ss[10], h[10];
    uint8_t rx[17];
    for (unsigned i = 0; i < 16; i++) {
        rx[i] = r[i];
    }
    rx[16] = 0;
#pragma GCC unroll 10
    for (unsigned i = 0; i < 10; i++) {
        rr[i] = bits13(rx, 13 * i);
        ss[i] = 5 * rr[i];
        h[i] = i < 9 ? bits13(hb, 13 * i) : ((uint32_t)hb[14] >> 5) | ((uint32_t)hb[15] << 3) | ((uint32_t)hb[16] << 11);
    }
    for (; nblocks > 0; nblocks--, in += 16) {
        /* the block's 128 bits as limbs 0..8 and 11 bits of limb 9, the pad bit at 2^128 = bit 11 of limb 9 */
#pragma GCC unroll 9
        for (unsigned i = 0; i < 9; i++) {
            unsigned bit = 13 * i, byte = bit >> 3;
            uint32_t w = (uint32_t)in[byte] | ((uint32_t)in[byte + 1] << 8) | ((byte + 2 < 16 ? (uint32_t)in[byte + 2] : 0u) << 16);
            h[i] += (w >> (bit & 7)) & M13;
        }
        h[9] += ((uint32_t)in[14] >> 5) | ((uint32_t)in[15] << 3) | ((uint32_t)hibit << 11);
        carry10(h);
        uint32_t d[10];
        /* unrolled (the indices become constants, h, rr and ss registers or fixed stack slots) */
#pragma GCC unroll 10
        for (unsigned i = 0; i < 10; i++) {
            uint32_t acc = 0;
#pragma GCC unroll 10
            for (unsigned j = 0; j <= i; j++) {
                acc += h[j] * rr[i - j];
            }
#pragma GCC unroll 10
            for (unsigned j = i + 1; j < 10; j++) {
                acc += h[j] * ss[10 + i - j];
            }
            d[i] = acc;
        }
        carry10(d);
#pragma GCC unroll 10
        for (unsigned i = 0; i < 10; i++) {
            h[i] = d[i];
        }
    }
    /* fully carried (limb 9 keeps the bits at 2^130 and above), packed into 17 bytes */
#pragma GCC unroll 9
    for (unsigned i = 0; i < 9; i++) {
        h[i + 1] += h[i] >> 13;
        h[i] &= M13;
    }
    /* limb i sits at bit 13 i: four little-endian words and the top byte */
    const uint32_t w[4] = {h[0] | (h[1] << 13) | (h[2] << 26), (h[2] >> 6) | (h[3] << 7) | (h[4] << 20),
                           (h[4] >> 12) | (h[5] << 1) | (h[6] << 14) | (h[7] << 27),
                           (h[7] >> 5) | (h[8] << 8) | (h[9] << 21)};
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; i++) {
        hb[4 * i] = (uint8_t)w[i];
        hb[4 * i + 1] = (uint8_t)(w[i] >> 8);
        hb[4 * i + 2] = (uint8_t)(w[i] >> 16);
        hb[4 * i + 3] = (uint8_t)(w[i] >> 24);
    }
    hb[16] = (uint8_t)(h[9] >> 11);   /* the bits at 2^128 and above */
}
