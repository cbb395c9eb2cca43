// SPDX-License-Identifier: MIT
/* Poly1305's block function in portable C99, written from RFC 8439 section 2.5:
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
