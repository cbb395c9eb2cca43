// SPDX-License-Identifier: MIT
/* Poly1305 block function for the ATmega128 (avr-fast): radix 2^8 on the AVR's 8x8->16 MUL (the
 * contract: ref/poly1305.h).
 *
 * Why: the AVR multiplies a byte by a byte in 2 cycles (MUL, fixed time); anything wider is a libgcc
 * routine of several MULs. So h and r stay 17 byte limbs, and h is carried back to bytes after adding
 * each block (h_0..h_15 below 2^8, h_16 at most 5), which makes every product h_j r_k a single MUL
 * (the portable reference skips that carry and pays 16x16 products instead). A column sums at most 17
 * direct products (below 2^20.1) and 16 that land at limb 17 + i, folded back x320 (2^136 = 2^6 x 2^130
 * = 320 mod p) after the column is summed: both sums fit the AVR's 24-bit integers (__uint24); the
 * column itself (below 2^28.4) is 32-bit. Two carry passes afterwards, as in the reference.
 * Branches and indices depend on the block count only: constant time (mcucrypt ct checks the binary). */
#include "../ref/poly1305.h"

typedef __uint24 u24;

static inline uint16_t mul8(uint8_t a, uint8_t b)
{
    return (uint16_t)((uint16_t)a * b);   /* avr-gcc: one MUL */
}

void MCU_FN(poly1305, blocks)(uint8_t hb[17], const uint8_t r[16], const uint8_t *in, size_t nblocks,
                              uint8_t hibit)
{
    uint8_t h[17];
    uint32_t x[17];
    for (uint8_t i = 0; i < 17; i++) {
        h[i] = hb[i];
    }
    for (; nblocks > 0; nblocks--, in += 16) {
        /* h + block, carried to bytes (h_16 takes the carry and the pad bit: at most 4 + 1 + 1) */
        uint16_t c = 0;
        for (uint8_t i = 0; i < 16; i++) {
            c += (uint16_t)h[i] + in[i];
            h[i] = (uint8_t)c;
            c >>= 8;
        }
        h[16] = (uint8_t)(h[16] + c + hibit);
        for (uint8_t i = 0; i < 17; i++) {
            u24 direct = 0, folded = 0;
            for (uint8_t j = i > 15 ? i - 15 : 0; j <= i; j++) {
                direct += mul8(h[j], r[i - j]);
            }
            for (uint8_t j = i + 2; j < 17; j++) {
                folded += mul8(h[j], r[17 + i - j]);
            }
            x[i] = (uint32_t)direct + ((uint32_t)folded << 8) + ((uint32_t)folded << 6);
        }
        for (uint8_t pass = 0; pass < 2; pass++) {
            for (uint8_t i = 0; i < 16; i++) {
                x[i + 1] += x[i] >> 8;
                x[i] &= 0xffu;
            }
            uint32_t top = x[16] >> 2;   /* 2^130 = 5 (mod p) */
            x[16] &= 3u;
            x[0] += top + (top << 2);
        }
        /* after the second pass x[0] may exceed a byte (by at most 5 x 1): one more carry step keeps
         * every limb a byte; h_16 gets at most 4 */
        for (uint8_t i = 0; i < 16; i++) {
            x[i + 1] += x[i] >> 8;
            h[i] = (uint8_t)x[i];
        }
        h[16] = (uint8_t)x[16];
    }
    for (uint8_t i = 0; i < 17; i++) {
        hb[i] = h[i];
    }
}
