// SPDX-License-Identifier: MIT
/* X25519 field multiplication and squaring mod p = 2^255 - 19, portable C99 (the ref implementation).
 *
 * A 256x256 -> 512-bit product by product scanning (the method of crypto/mpmul/ref), a dedicated
 * squaring (each cross product a_i a_j, i < j, computed once and doubled: 36 products instead of 64
 * at 32-bit limbs), and the reduction r = lo + 38 hi (2^256 = 38 mod p) with the carry folded twice.
 * The limb product is the one that is fixed-time on each target, as in mpmul's ref: 32x32 -> 64
 * (RV32 mul/mulhu, x86-64) in general; 16x16 -> 32 MULs on the Cortex-M3 (UMULL terminates early);
 * 8x8 -> 16 MULs on AVR (avr-gcc's 32x32 -> 64 product branches). */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "x25519.h"
#include "fe_reduce.h"

#if defined(__AVR__)

/* Bytes of the little-endian limbs (char access may alias). Column k's low and high product bytes are
 * summed separately in 16 bits (at most 32 products of 255 x 255 per column, doubled for squaring). */
static void mul256(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    unsigned char *z = (unsigned char *)r;
    uint32_t carry = 0;
    int k, i;

    for (k = 0; k < 63; k++) {
        uint16_t lo = 0, hi = 0;
        int first = k < 32 ? 0 : k - 31, last = k < 32 ? k : 31;
        for (i = first; i <= last; i++) {
            uint16_t p = (uint16_t)((uint16_t)x[i] * (uint16_t)y[k - i]);
            lo = (uint16_t)(lo + (p & 0xffu));
            hi = (uint16_t)(hi + (p >> 8));
        }
        carry += lo;
        z[k] = (unsigned char)carry;
        carry = (carry >> 8) + hi;
    }
    z[63] = (unsigned char)carry;
}

static void sqr256(uint32_t *r, const uint32_t *a)
{
    const unsigned char *x = (const unsigned char *)a;
    unsigned char *z = (unsigned char *)r;
    uint32_t carry = 0;
    int k, i;

    for (k = 0; k < 63; k++) {
        uint16_t lo = 0, hi = 0, p;
        int first = k < 32 ? 0 : k - 31;
        for (i = first; 2 * i < k; i++) {           /* cross products x_i x_(k-i), i < k - i */
            p = (uint16_t)((uint16_t)x[i] * (uint16_t)x[k - i]);
            lo = (uint16_t)(lo + (p & 0xffu));
            hi = (uint16_t)(hi + (p >> 8));
        }
        lo = (uint16_t)(lo << 1);
        hi = (uint16_t)(hi << 1);
        if ((k & 1) == 0) {                          /* k is public: the diagonal x_(k/2)^2 */
            p = (uint16_t)((uint16_t)x[k >> 1] * (uint16_t)x[k >> 1]);
            lo = (uint16_t)(lo + (p & 0xffu));
            hi = (uint16_t)(hi + (p >> 8));
        }
        carry += lo;
        z[k] = (unsigned char)carry;
        carry = (carry >> 8) + hi;
    }
    z[63] = (unsigned char)carry;
}

#elif defined(__ARM_ARCH_7M__)

static uint32_t mul16(uint16_t x, uint16_t y)
{
    return (uint32_t)x * y;
}

/* Column accumulator w0 + 2^16 w16 + 2^32 w32 + 2^48 w48, each a sum of 16-bit pieces (no carry is
 * ever tested); c0..c48 the same for the products of one column before they are (doubled and) added. */
#define ACC(x, y)                                                                                   \
    do {                                                                                            \
        uint32_t p00 = mul16((uint16_t)(x), (uint16_t)(y));                                         \
        uint32_t p01 = mul16((uint16_t)(x), (uint16_t)((y) >> 16));                                 \
        uint32_t p10 = mul16((uint16_t)((x) >> 16), (uint16_t)(y));                                 \
        uint32_t p11 = mul16((uint16_t)((x) >> 16), (uint16_t)((y) >> 16));                         \
        c0 += p00 & 0xffffu;                                                                        \
        c16 += (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);                                     \
        c32 += (p01 >> 16) + (p10 >> 16) + (p11 & 0xffffu);                                         \
        c48 += p11 >> 16;                                                                           \
    } while (0)

static void columns(uint32_t *r, const uint32_t *a, const uint32_t *b, int square)
{
    uint32_t w0 = 0, w16 = 0, w32 = 0, w48 = 0;
    int k, i;

    for (k = 0; k < 15; k++) {
        uint32_t c0 = 0, c16 = 0, c32 = 0, c48 = 0;
        int lo = k < 8 ? 0 : k - 7, hi = k < 8 ? k : 7;
        if (square) {                                /* public: which function this is */
            for (i = lo; 2 * i < k; i++)
                ACC(a[i], a[k - i]);
            c0 <<= 1;
            c16 <<= 1;
            c32 <<= 1;
            c48 <<= 1;
            if ((k & 1) == 0)
                ACC(a[k >> 1], a[k >> 1]);
        } else {
            for (i = lo; i <= hi; i++)
                ACC(a[i], b[k - i]);
        }
        w0 += c0;
        w16 += c16;
        w32 += c32;
        w48 += c48;
        w16 += w0 >> 16;                             /* the low 32 bits become r[k] */
        r[k] = (w0 & 0xffffu) | (w16 << 16);
        w0 = w32 + (w16 >> 16);
        w16 = w48;
        w32 = 0;
        w48 = 0;
    }
    w16 += w0 >> 16;
    r[15] = (w0 & 0xffffu) | (w16 << 16);
}

static void mul256(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    columns(r, a, b, 0);
}

static void sqr256(uint32_t *r, const uint32_t *a)
{
    columns(r, a, a, 1);
}

#else

/* Column accumulator c2:c1:c0 (96 bits); a column of the squaring sums its cross products in a second
 * accumulator that is doubled before the diagonal product and the carry-in are added. */
static void add3(uint32_t *c0, uint32_t *c1, uint32_t *c2, uint64_t p)
{
    uint64_t s = (uint64_t)*c0 + (uint32_t)p;
    *c0 = (uint32_t)s;
    s = (uint64_t)*c1 + (uint32_t)(p >> 32) + (uint32_t)(s >> 32);
    *c1 = (uint32_t)s;
    *c2 += (uint32_t)(s >> 32);
}

static void mul256(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0;
    int k, i;

    for (k = 0; k < 15; k++) {
        int lo = k < 8 ? 0 : k - 7, hi = k < 8 ? k : 7;
        for (i = lo; i <= hi; i++)
            add3(&c0, &c1, &c2, (uint64_t)a[i] * b[k - i]);
        r[k] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    r[15] = c0;
}

static void sqr256(uint32_t *r, const uint32_t *a)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0;
    int k, i;

    for (k = 0; k < 15; k++) {
        uint32_t d0 = 0, d1 = 0, d2 = 0;
        int lo = k < 8 ? 0 : k - 7;
        for (i = lo; 2 * i < k; i++)
            add3(&d0, &d1, &d2, (uint64_t)a[i] * a[k - i]);
        d2 = (d2 << 1) | (d1 >> 31);                 /* double the cross products */
        d1 = (d1 << 1) | (d0 >> 31);
        d0 <<= 1;
        if ((k & 1) == 0)
            add3(&d0, &d1, &d2, (uint64_t)a[k >> 1] * a[k >> 1]);
        add3(&c0, &c1, &c2, (uint64_t)d0 | ((uint64_t)d1 << 32));
        c2 += d2;
        r[k] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    r[15] = c0;
}

#endif

void MCU_FN(x25519, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[16];
    mul256(t, a, b);
    fe_reduce(r, t);
}

void MCU_FN(x25519, fe_sqr)(uint32_t *r, const uint32_t *a)
{
    uint32_t t[16];
    sqr256(t, a);
    fe_reduce(r, t);
}
