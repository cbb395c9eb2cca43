// SPDX-License-Identifier: MIT
/* Poly1305 block function for RV32IM (rv32-fast): radix 2^26, five limbs (the contract: ref/poly1305.h).
 *
 * Why this radix: a 26x26-bit product is one MUL (low word) and one MULHU (high word), both fixed time
 * on the E31, five of them sum without overflow in a 64-bit (two-register) column (an SLTU per addition:
 * RV32 has no carry flag), and the radix's headroom makes the carry pass between limbs a few shifts and
 * masks. Its cost is 50 multiplications a block on the E31's serial 5-cycle multiplier; radix 2^32 needs
 * 36 (docs/chachapoly.md). 2^130 = 5 (mod p), so a product landing at limb 5 + i folds
 * into limb i times 5: the folded r limbs (5 r_i) are computed once per call. Bounds: limbs below
 * 2^26 (h4 below 2^27 with the added block; any 17 input bytes keep every sum below 2^64), r limbs
 * below 2^26, 5 r_i below 2^28.4. One carry pass per block (d0 -> d4, d4's top times 5 back into h0,
 * one more step into h1) keeps h below 2^130 + 2^26.
 * The 17-byte accumulator is unpacked at the call's start and packed at its end (fully carried).
 * gcc compiles the 64-bit products to MUL/MULHU and the sums to ADD/SLTU: no branch, no table, no
 * division; constant time (mcucrypt ct checks it on the binary). */
#include "../ref/poly1305.h"

#define M26 0x3ffffffu

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

void MCU_FN(poly1305, blocks)(uint8_t hb[17], const uint8_t r[16], const uint8_t *in, size_t nblocks,
                              uint8_t hibit)
{
    uint32_t t0 = le32(r), t1 = le32(r + 4), t2 = le32(r + 8), t3 = le32(r + 12);
    const uint32_t r0 = t0 & M26, r1 = ((t0 >> 26) | (t1 << 6)) & M26, r2 = ((t1 >> 20) | (t2 << 12)) & M26,
                   r3 = ((t2 >> 14) | (t3 << 18)) & M26, r4 = t3 >> 8;
    const uint32_t s1 = 5 * r1, s2 = 5 * r2, s3 = 5 * r3, s4 = 5 * r4;
    t0 = le32(hb), t1 = le32(hb + 4), t2 = le32(hb + 8), t3 = le32(hb + 12);
    uint32_t h0 = t0 & M26, h1 = ((t0 >> 26) | (t1 << 6)) & M26, h2 = ((t1 >> 20) | (t2 << 12)) & M26,
             h3 = ((t2 >> 14) | (t3 << 18)) & M26, h4 = (t3 >> 8) | ((uint32_t)hb[16] << 24);
    const uint32_t top = (uint32_t)hibit << 24;
    for (; nblocks > 0; nblocks--, in += 16) {
        h0 += le32(in) & M26;
        h1 += (le32(in + 3) >> 2) & M26;
        h2 += (le32(in + 6) >> 4) & M26;
        h3 += (le32(in + 9) >> 6) & M26;
        h4 += (le32(in + 12) >> 8) | top;
        uint64_t d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 + (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        uint64_t d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 + (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        uint64_t d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        uint64_t d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
        uint64_t d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 + (uint64_t)h3 * r1 + (uint64_t)h4 * r0;
        uint32_t c;
        c = (uint32_t)(d0 >> 26); h0 = (uint32_t)d0 & M26;
        d1 += c; c = (uint32_t)(d1 >> 26); h1 = (uint32_t)d1 & M26;
        d2 += c; c = (uint32_t)(d2 >> 26); h2 = (uint32_t)d2 & M26;
        d3 += c; c = (uint32_t)(d3 >> 26); h3 = (uint32_t)d3 & M26;
        d4 += c; c = (uint32_t)(d4 >> 26); h4 = (uint32_t)d4 & M26;
        h0 += c * 5; c = h0 >> 26; h0 &= M26;
        h1 += c;
    }
    /* carried to 26-bit limbs (h4 keeps bits 130..), packed into 17 bytes */
    uint32_t c = h1 >> 26; h1 &= M26;
    h2 += c; c = h2 >> 26; h2 &= M26;
    h3 += c; c = h3 >> 26; h3 &= M26;
    h4 += c;
    put32(hb, h0 | (h1 << 26));
    put32(hb + 4, (h1 >> 6) | (h2 << 20));
    put32(hb + 8, (h2 >> 12) | (h3 << 14));
    put32(hb + 12, (h3 >> 18) | (h4 << 8));
    hb[16] = (uint8_t)(h4 >> 24);
}
