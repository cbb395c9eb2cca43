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
 * column with its carry (below 2^29) is 32-bit. The first carry pass runs along the columns, the second
 * after folding the part at 2^130 and above back x5.
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
    uint8_t h[17], n[17];
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
        /* the 17 columns, unrolled by gen_poly1305_r8.py: every index a constant, each product an LDD
         * pair, one MUL and a 24-bit addition; the first carry pass runs along (n[] the new limbs) */
        u24 direct, folded;
        uint32_t f8;
        uint32_t carry = 0;
#include "poly1305_columns_r8.inc"
        /* carry is now limb 16 (below 2^29): its part at 2^130 and above folds x5 into limb 0 */
        uint32_t top = carry >> 2;
        n[16] = (uint8_t)(carry & 3u);
        uint32_t f = top + (top << 2);
        for (uint8_t i = 0; i < 16; i++) {
            f += n[i];
            h[i] = (uint8_t)f;
            f >>= 8;
        }
        h[16] = (uint8_t)(n[16] + f);   /* at most 3 + 1 */
    }
    for (uint8_t i = 0; i < 17; i++) {
        hb[i] = h[i];
    }
}
