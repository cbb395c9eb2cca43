// SPDX-License-Identifier: MIT
/* Poly1305's block function and final reduction in portable C99, written from RFC 8439 section 2.5:
 * the reference, and the block function of every implementation without its own.
 *
 * Radix 2^8: h and r as 17 byte-sized limbs, each product of two limbs below 2^17, so every sum of
 * products fits a 32-bit word and only 32-bit multiplications appear (16x16->32 ones: avr-gcc calls its
 * fixed-time __umulhisi3; RV32 MUL, Cortex-M3 MUL, both fixed time). No 64-bit product, hence no UMULL on
 * the M3 (operand-dependent time) and no __muldi3 on the AVR. Slow (289 products a block) but
 * obviously right; the per-core block functions are the fast ones.
 *
 * Limb k has weight 2^(8k); 2^136 = 2^6 * 2^130 = 320 (mod p), so a product landing at limb 17 + i folds
 * back into limb i times 320. Bounds (h limbs below 2^9 after adding a block, r limbs below 2^8):
 * the direct terms of a limb sum to below 17 * 2^17, the folded ones to below 16 * 2^17 * 320 < 2^29.4.
 * Two carry passes (the second after folding the bits at and above 2^130 back times 5) leave limbs
 * 0..15 below 2^8 and limb 16 at most 4: h below 2^131, 17 bytes. Every branch and index depends on
 * lengths only: constant time. */
#include "poly1305.h"

static uint32_t mul16(uint16_t a, uint16_t b)
{
    return (uint32_t)a * b;
}

/* Limbs 0..15 to 8 bits, the carries moving up into limb 16. */
static void carry(uint32_t x[17])
{
    for (unsigned i = 0; i < 16; i++) {
        x[i + 1] += x[i] >> 8;
        x[i] &= 0xffu;
    }
}

void MCU_FN(poly1305, blocks)(uint8_t hb[17], const uint8_t r[16], const uint8_t *in, size_t nblocks,
                              uint8_t hibit)
{
    uint16_t h[17];
    uint32_t x[17];
    for (unsigned i = 0; i < 17; i++) {
        h[i] = hb[i];
    }
    for (; nblocks > 0; nblocks--, in += 16) {
        for (unsigned i = 0; i < 16; i++) {
            h[i] = (uint16_t)(h[i] + in[i]);
        }
        h[16] = (uint16_t)(h[16] + hibit);
        for (unsigned i = 0; i < 17; i++) {
            uint32_t direct = 0, folded = 0;
            /* h[j] * r[i - j] (r has no limb 16: r < 2^128) */
            for (unsigned j = i > 15 ? i - 15 : 0; j <= i; j++) {
                direct += mul16(h[j], r[i - j]);
            }
            /* h[j] * r[17 + i - j] lands at limb 17 + i: times 320 into limb i */
            for (unsigned j = i + 2; j < 17; j++) {
                folded += mul16(h[j], r[17 + i - j]);
            }
            x[i] = direct + (folded << 8) + (folded << 6);
        }
        carry(x);
        uint32_t top = x[16] >> 2;  /* the part at and above 2^130: 2^130 = 5 (mod p) */
        x[16] &= 3u;
        x[0] += top + (top << 2);
        carry(x);
        for (unsigned i = 0; i < 17; i++) {
            h[i] = (uint16_t)x[i];
        }
    }
    for (unsigned i = 0; i < 17; i++) {
        hb[i] = (uint8_t)h[i];
    }
}

void MCU_FN(poly1305, finish)(uint8_t tag[16], const uint8_t hb[17], const uint8_t s[16])
{
    uint32_t h[17], g[17];
    for (unsigned i = 0; i < 17; i++) {
        h[i] = hb[i];
    }
    /* h < 2^136 (any 17 bytes): fold twice, then h < 2^130 + 5 * 2^3 with limbs below 2^8 */
    for (unsigned pass = 0; pass < 2; pass++) {
        uint32_t top = h[16] >> 2;
        h[16] &= 3u;
        h[0] += top + (top << 2);
        carry(h);
    }
    /* h mod p: h - p = h + 5 - 2^130 when h + 5 reaches 2^130 (at most once: h < 2p) */
    uint32_t c = 5;
    for (unsigned i = 0; i < 17; i++) {
        c += h[i];
        g[i] = c & 0xffu;
        c >>= 8;
    }
    uint32_t use_g = 0u - ((g[16] >> 2) & 1u);   /* all ones when h + 5 >= 2^130 */
    /* + s mod 2^128 (bits 128, 129 of the reduced h drop out) */
    c = 0;
    for (unsigned i = 0; i < 16; i++) {
        uint32_t v = (h[i] & ~use_g) | (g[i] & use_g);
        c += v + s[i];
        tag[i] = (uint8_t)c;
        c >>= 8;
    }
}

void MCU_FN(poly1305, clamp)(uint8_t r[16], const uint8_t key[16])
{
    for (unsigned i = 0; i < 16; i++) {
        r[i] = key[i];
    }
    r[3] &= 15;
    r[7] &= 15;
    r[11] &= 15;
    r[15] &= 15;
    r[4] &= 252;
    r[8] &= 252;
    r[12] &= 252;
}
