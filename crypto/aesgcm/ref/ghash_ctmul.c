// SPDX-License-Identifier: MIT
/* GHASH (NIST SP 800-38D 6.4) in constant time with 32x32->32 multiplications only: carry-less products
 * by "multiplication with holes", the high halves by bit reversal, Karatsuba over 32-bit words, the
 * reduction by shifts. No table, no branch, no UMULL (operand-dependent on the Cortex-M3): the MUL of
 * RV32 (fixed on the E31), the M3's one-cycle MUL, avr-gcc's __mulsi3 (8x8 MULs, fixed) all qualify.
 *
 *   void ghash_key_init(ghash_key *hk, const uint8_t h[16])
 *   void ghash_blocks(uint8_t y[16], const ghash_key *hk, const uint8_t *x, size_t nblocks)  y = (y ^ x_i) H
 *
 * Carry-less 32x32 (bmul32, the low 32 bits): x and y split into four classes of bits 4 apart
 * (x & 0x11111111, ...); an integer product of two classes has at most 8 one-bit terms at each of its
 * class positions, a sum below 16, so its carries stay in the three holes above and bit 0 of every class
 * position is the parity, the carry-less bit; four products per output class, XORed, then masked.
 * The high 32 bits: hi(x * y) = rev(lo(rev(x) * rev(y))) >> 1 (bit reversal maps the 63-bit product onto
 * itself reversed). H's nine Karatsuba operands and their reversals are computed once per key.
 *
 * Field elements: the block as a 128-bit big-endian integer (x^0 is the first byte's top bit, GCM's
 * reflected order), words w[3] = bytes 0..3 ... w[0] = bytes 12..15. The integer carry-less product P of
 * two such values holds x^k at bit 254 - k; P << 1 splits into Hi (x^0..x^127) and Lo (x^128..x^255,
 * reflected the same way), and x^128 = 1 + x + x^2 + x^7 folds Lo into Hi: Lo ^ Lo>>1 ^ Lo>>2 ^ Lo>>7,
 * the bits shifted out (degrees 128..134) folded once more from the top word. */
#include <stddef.h>
#include <stdint.h>

#include "ghash.h"
#include "mcucrypt/top_bit.h"

static uint32_t bmul32(uint32_t x, uint32_t y)
{
    uint32_t x0 = x & 0x11111111u, x1 = x & 0x22222222u, x2 = x & 0x44444444u, x3 = x & 0x88888888u;
    uint32_t y0 = y & 0x11111111u, y1 = y & 0x22222222u, y2 = y & 0x44444444u, y3 = y & 0x88888888u;
    uint32_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    uint32_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    uint32_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    uint32_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    return (z0 & 0x11111111u) | (z1 & 0x22222222u) | (z2 & 0x44444444u) | (z3 & 0x88888888u);
}

static uint32_t rev32(uint32_t x)
{
    x = ((x & 0x55555555u) << 1) | ((x >> 1) & 0x55555555u);
    x = ((x & 0x33333333u) << 2) | ((x >> 2) & 0x33333333u);
    x = ((x & 0x0F0F0F0Fu) << 4) | ((x >> 4) & 0x0F0F0F0Fu);
    x = ((x & 0x00FF00FFu) << 8) | ((x >> 8) & 0x00FF00FFu);
    return (x << 16) | (x >> 16);
}

static uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The nine Karatsuba operands of w[0..3]: 0, 1, 0^1 | 2, 3, 2^3 | 0^2, 1^3, 0^1^2^3 */
static void karatsuba_operands(uint32_t k[9], const uint32_t w[4])
{
    k[0] = w[0];
    k[1] = w[1];
    k[2] = w[0] ^ w[1];
    k[3] = w[2];
    k[4] = w[3];
    k[5] = w[2] ^ w[3];
    k[6] = w[0] ^ w[2];
    k[7] = w[1] ^ w[3];
    k[8] = k[6] ^ k[7];
}

void ghash_key_init(ghash_key *hk, const uint8_t h[16])
{
    uint32_t w[4];
    for (unsigned i = 0; i < 4; i++) {
        w[i] = load_be32(h + 12 - 4 * i);
    }
    karatsuba_operands(hk->k, w);
    for (unsigned i = 0; i < 9; i++) {
        hk->kr[i] = rev32(hk->k[i]);
    }
}

/* z (256 bits, z[0] least significant) = clmul of the 64-bit values (lo pair i, i + 1 and their sum i + 2)
 * of the Karatsuba operands at a[i..i+2] and the key's at i..i+2: Karatsuba at the 32-bit level. */
static void clmul64(uint32_t z[4], const uint32_t *a, const uint32_t *ar, const uint32_t *h, const uint32_t *hr)
{
    uint32_t l0 = bmul32(a[0], h[0]), l1 = rev32(bmul32(ar[0], hr[0])) >> 1;    /* a0 h0 */
    uint32_t h0 = bmul32(a[1], h[1]), h1 = rev32(bmul32(ar[1], hr[1])) >> 1;    /* a1 h1 */
    uint32_t m0 = bmul32(a[2], h[2]), m1 = rev32(bmul32(ar[2], hr[2])) >> 1;    /* (a0^a1)(h0^h1) */
    m0 ^= l0 ^ h0;
    m1 ^= l1 ^ h1;
    z[0] = l0;
    z[1] = l1 ^ m0;
    z[2] = h0 ^ m1;
    z[3] = h1;
}

static void gf128_mul(uint32_t y[4], const ghash_key *hk)
{
    uint32_t a[9], ar[9], lo[4], hi[4], mid[4], p[8];
    karatsuba_operands(a, y);
    for (unsigned i = 0; i < 9; i++) {
        ar[i] = rev32(a[i]);
    }
    clmul64(lo, a, ar, hk->k, hk->kr);                  /* (y1:y0)(h1:h0) */
    clmul64(hi, a + 3, ar + 3, hk->k + 3, hk->kr + 3);  /* (y3:y2)(h3:h2) */
    clmul64(mid, a + 6, ar + 6, hk->k + 6, hk->kr + 6); /* sums */
    for (unsigned i = 0; i < 4; i++) {
        mid[i] ^= lo[i] ^ hi[i];
    }
    p[0] = lo[0];
    p[1] = lo[1];
    p[2] = lo[2] ^ mid[0];
    p[3] = lo[3] ^ mid[1];
    p[4] = hi[0] ^ mid[2];
    p[5] = hi[1] ^ mid[3];
    p[6] = hi[2];
    p[7] = hi[3];
    /* P << 1 (P has 255 bits: nothing leaves the top) */
    for (unsigned i = 7; i > 0; i--) {
        p[i] = (p[i] << 1) | mcu_top_bit(p[i - 1]);
    }
    p[0] <<= 1;
    /* Lo = p[0..3] (x^128..x^255), Hi = p[4..7]: Hi ^ Lo (1 + x + x^2 + x^7), reflected = right shifts */
    for (unsigned i = 0; i < 3; i++) {
        y[i] = p[4 + i] ^ p[i] ^ (p[i] >> 1) ^ (p[i + 1] << 31) ^ (p[i] >> 2) ^ (p[i + 1] << 30) ^
               (p[i] >> 7) ^ (p[i + 1] << 25);
    }
    uint32_t over = (p[0] << 31) ^ (p[0] << 30) ^ (p[0] << 25);     /* degrees 128..134, reflected */
    y[3] = p[7] ^ p[3] ^ (p[3] >> 1) ^ (p[3] >> 2) ^ (p[3] >> 7) ^ over ^ (over >> 1) ^ (over >> 2) ^ (over >> 7);
}

void ghash_blocks(uint8_t y[16], const ghash_key *hk, const uint8_t *x, size_t nblocks)
{
    uint32_t w[4];
    for (unsigned i = 0; i < 4; i++) {
        w[i] = load_be32(y + 12 - 4 * i);
    }
    while (nblocks-- > 0) {
        for (unsigned i = 0; i < 4; i++) {
            w[i] ^= load_be32(x + 12 - 4 * i);
        }
        gf128_mul(w, hk);
        x += 16;
    }
    for (unsigned i = 0; i < 4; i++) {
        store_be32(y + 12 - 4 * i, w[i]);
        w[i] = 0;
    }
}
