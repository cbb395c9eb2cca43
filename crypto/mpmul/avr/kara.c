// SPDX-License-Identifier: MIT
/* avr-kara, 512 to 2048 bits: subtractive Karatsuba levels in C over the generated 256-bit assembly
 * kernel (mpmul_avr.S, itself two Karatsuba levels over a 64x64-bit register kernel).
 *
 * Limbs are little-endian 32-bit words, so on the little-endian AVR every operand is a plain
 * little-endian byte string; this file works on bytes (uint8_t *) throughout.
 *
 * Constant time: the recursion, every loop bound and every address depend on the (public) length
 * only; the difference signs are masks (0 or 0xff) that the assembly applies with XOR and addition:
 * no operand-dependent branch (checked with `mcucrypt ct` on the board).
 *
 * Scratch: a level at n bytes uses 2n bytes of t (|aH - aL|, |bH - bL| and their product) and hands
 * the rest to the level below: 128, 384 and 896 bytes at 512, 1024 and 2048 bits, on the stack. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

void MCU_FN(mpmul256, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul512, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);

/* The looped assembly helpers in mpmul_avr.S (contracts there): d = |x - y| over h bytes, returning
 * the sign mask; and the recombination r = L + B^h (L + H -/+ z1) + B^2h H for the mask n. */
uint8_t mpmul_avr_kara_absdiff(uint8_t *d, const uint8_t *x, const uint8_t *y, uint16_t h);
void mpmul_avr_kara_combine(uint8_t *r, uint8_t *z1, uint16_t h, uint8_t n);
#define absdiff(d, x, y, h) mpmul_avr_kara_absdiff((d), (x), (y), (uint16_t)(h))
#define combine(r, z1, h, n) mpmul_avr_kara_combine((r), (z1), (uint16_t)(h), (n))

/* r[0..2n) = a[0..n) * b[0..n) for n = 64, 128, 256 bytes; t: scratch of 2n + the level below's. */
static void kara(uint8_t *r, const uint8_t *a, const uint8_t *b, size_t n, uint8_t *t)
{
    size_t h = n / 2;
    uint8_t m = absdiff(t, a + h, a, h);
    m ^= absdiff(t + h, b + h, b, h);
    if (h == 32) {
        MCU_FN(mpmul256, mul)((uint32_t *)(void *)(t + 2 * h), (const uint32_t *)(void *)t,
                              (const uint32_t *)(void *)(t + h));
        MCU_FN(mpmul256, mul)((uint32_t *)(void *)r, (const uint32_t *)(const void *)a,
                              (const uint32_t *)(const void *)b);
        MCU_FN(mpmul256, mul)((uint32_t *)(void *)(r + 2 * h), (const uint32_t *)(const void *)(a + h),
                              (const uint32_t *)(const void *)(b + h));
    } else {
        kara(t + 2 * h, t, t + h, h, t + 4 * h);
        kara(r, a, b, h, t + 4 * h);
        kara(r + 2 * h, a + h, b + h, h, t + 4 * h);
    }
    combine(r, t + 2 * h, h, (uint8_t)~m);
}

void MCU_FN(mpmul512, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint8_t t[128];
    kara((uint8_t *)r, (const uint8_t *)a, (const uint8_t *)b, 64, t);
}

void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint8_t t[384];
    kara((uint8_t *)r, (const uint8_t *)a, (const uint8_t *)b, 128, t);
}

void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint8_t t[896];
    kara((uint8_t *)r, (const uint8_t *)a, (const uint8_t *)b, 256, t);
}
