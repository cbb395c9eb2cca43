// SPDX-License-Identifier: MIT
/* avr-kara, 512 to 2048 bits: subtractive Karatsuba levels in C over the generated 256-bit assembly
 * kernel (mpmul_avr.S, itself two Karatsuba levels over a 64x64-bit register kernel).
 *
 * Limbs are little-endian 32-bit words, so on the little-endian AVR every operand is a plain
 * little-endian byte string; this file works on bytes (uint8_t *) throughout.
 *
 * Constant time: the recursion, every loop bound and every address depend on the (public) length
 * only. Borrows and carries are taken from the high byte of a 16-bit sum, the difference signs are
 * masks (0 or 0xff) applied with XOR and addition: no operand-dependent branch (checked with
 * `mcucrypt ct` on the board).
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

/* d = |x - y| over h bytes; returns 0xff if x < y, else 0. */
static uint8_t absdiff(uint8_t *d, const uint8_t *x, const uint8_t *y, size_t h)
{
    uint8_t bw = 0, m;
    size_t i;
    for (i = 0; i < h; i++) {
        uint16_t t = (uint16_t)x[i] - y[i] - bw;
        d[i] = (uint8_t)t;
        bw = (uint8_t)(t >> 8) & 1;
    }
    m = (uint8_t)-bw;
    bw = m & 1;                               /* (d ^ m) - m = (d ^ m) + (m & 1) */
    for (i = 0; i < h; i++) {
        uint16_t t = (uint16_t)(d[i] ^ m) + bw;
        d[i] = (uint8_t)t;
        bw = (uint8_t)(t >> 8);
    }
    return m;
}

/* r (4h bytes) = L + B^2h H on entry (B = 256), z1 (2h bytes) = |aH - aL| |bH - bL|; n = 0xff when
 * the middle term is L + H - z1, 0 when L + H + z1. On exit r = L + B^h (L + H -/+ z1) + B^2h H.
 * The middle term is formed in z1 first (it reads L and H before r changes), then added at B^h. */
static void combine(uint8_t *r, uint8_t *z1, size_t h, uint8_t n)
{
    uint16_t c = n & 1;                       /* -z1 = (z1 ^ 0xff..) + 1 - B^2h */
    size_t i;
    for (i = 0; i < 2 * h; i++) {
        c += (uint16_t)r[i] + r[2 * h + i] + (uint8_t)(z1[i] ^ n);
        z1[i] = (uint8_t)c;
        c >>= 8;
    }
    uint8_t top = (uint8_t)(c + n);          /* the top byte of the middle term (at B^3h): 0 or 1 */
    c = 0;
    for (i = 0; i < 2 * h; i++) {
        c += (uint16_t)r[h + i] + z1[i];
        r[h + i] = (uint8_t)c;
        c >>= 8;
    }
    c += top;
    for (i = 3 * h; i < 4 * h; i++) {
        c += r[i];
        r[i] = (uint8_t)c;
        c >>= 8;
    }
}

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
