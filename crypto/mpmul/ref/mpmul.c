// SPDX-License-Identifier: MIT
/* Multi-precision multiplication: portable C99 reference, product scanning (Comba).
 *
 * Column k of the product is the sum of a[i]*b[k-i] over the valid i; it is accumulated in a
 * three-word register (c2:c1:c0), whose low word is then written as r[k] and shifted out. Loop
 * bounds depend on the length only, never on the operand values, and carries are added, never
 * tested: no branch and no address depends on a secret.
 *
 * The 32x32->64 product is where constant time is won or lost. RV32 (mul/mulhu) and x86-64 multiply
 * in fixed time, so there it is the C (uint64_t) product. Two of our targets do not: the Cortex-M3's
 * UMULL terminates early on small operands (3..5 cycles), and avr-gcc's __umulsidi3 branches on a
 * carry (in __muldi3_6). On those two the same product scanning is written with narrower products
 * that are fixed-time there, summed as pieces that cannot overflow their accumulators, so no carry is
 * ever tested (avr-gcc turns carry tests into branches or skips, and 64-bit arithmetic into slow
 * library calls): 16x16->32 MULs on the M3, 8x8->16 MULs on AVR (see each). */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mpmul.h"

#if defined(__AVR__)

static void mpmul_ref(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n)
{
    /* AVR: the same product scanning over 8-bit limbs, the width of its MUL instruction, which
     * avr-gcc emits inline for an 8x8->16 product (its 16- and 32-bit products are library calls).
     * Limb i of a is byte i of the little-endian array (AVR is little-endian; char access may alias
     * any object). A column's low bytes and high bytes are summed separately in 16 bits: at most 256
     * products of 255 x 255, so neither sum can overflow and no carry is ever tested. */
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    unsigned char *z = (unsigned char *)r;
    size_t nb = 4 * n, k, i;
    uint32_t carry = 0;                        /* what the previous columns pass up */

    for (k = 0; k + 1 < 2 * nb; k++) {
        uint16_t lo = 0, hi = 0;
        size_t first = k < nb ? 0 : k - nb + 1, last = k < nb ? k : nb - 1;
        const unsigned char *px = x + first, *py = y + (k - first);
        for (i = last - first + 1; i != 0; i--) {      /* pointers walk a up and b down */
            uint16_t p = (uint16_t)((uint16_t)*px++ * (uint16_t)*py--);
            lo = (uint16_t)(lo + (p & 0xffu));
            hi = (uint16_t)(hi + (p >> 8));
        }
        carry += lo;
        z[k] = (unsigned char)carry;
        carry = (carry >> 8) + hi;
    }
    z[2 * nb - 1] = (unsigned char)carry;
}

#elif defined(__ARM_ARCH_7M__)

static uint32_t mul16(uint16_t x, uint16_t y)
{
    return (uint32_t)x * y;
}

static void mpmul_ref(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n)
{
    /* Cortex-M3: every 32x32 product is four 16x16->32 MULs (1 cycle, fixed), whose 16-bit halves are
     * summed into four 32-bit accumulators at 16-bit offsets: a sum of 16-bit pieces cannot overflow
     * 32 bits (at most 3 x 64 x (2^16 - 1) per accumulator and column).
     * The column accumulator: w0 + 2^16 w16 + 2^32 w32 + 2^48 w48, each a sum of 16-bit pieces. */
    uint32_t w0 = 0, w16 = 0, w32 = 0, w48 = 0;
    size_t k, i;

    for (k = 0; k + 1 < 2 * n; k++) {
        size_t lo = k < n ? 0 : k - n + 1;
        size_t hi = k < n ? k : n - 1;
        for (i = lo; i <= hi; i++) {
            uint32_t x = a[i], y = b[k - i];
            uint32_t p00 = mul16((uint16_t)x, (uint16_t)y);
            uint32_t p01 = mul16((uint16_t)x, (uint16_t)(y >> 16));
            uint32_t p10 = mul16((uint16_t)(x >> 16), (uint16_t)y);
            uint32_t p11 = mul16((uint16_t)(x >> 16), (uint16_t)(y >> 16));
            w0 += p00 & 0xffffu;
            w16 += (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);
            w32 += (p01 >> 16) + (p10 >> 16) + (p11 & 0xffffu);
            w48 += p11 >> 16;
        }
        /* Normalize the low 32 bits into r[k]; what is above moves down one column. */
        w16 += w0 >> 16;
        r[k] = (w0 & 0xffffu) | (w16 << 16);
        w0 = w32 + (w16 >> 16);
        w16 = w48;
        w32 = 0;
        w48 = 0;
    }
    w16 += w0 >> 16;
    r[2 * n - 1] = (w0 & 0xffffu) | (w16 << 16);   /* the top column: w16 < 2^16 here */
}

#else

static void mpmul_ref(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0;   /* the column accumulator, c2:c1:c0 */
    size_t k, i;

    for (k = 0; k + 1 < 2 * n; k++) {
        size_t lo = k < n ? 0 : k - n + 1;     /* first i with b[k-i] in range */
        size_t hi = k < n ? k : n - 1;         /* last i with a[i] in range */
        for (i = lo; i <= hi; i++) {
            uint64_t p = (uint64_t)a[i] * b[k - i];
            uint64_t s = (uint64_t)c0 + (uint32_t)p;
            c0 = (uint32_t)s;
            s = (uint64_t)c1 + (uint32_t)(p >> 32) + (uint32_t)(s >> 32);
            c1 = (uint32_t)s;
            c2 += (uint32_t)(s >> 32);
        }
        r[k] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    r[2 * n - 1] = c0;   /* the top column is the final carry word */
}

#endif

#define MPMUL_DEFINE(id, words)                                                                   \
    void MCU_FN(id, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)                        \
    {                                                                                             \
        mpmul_ref(r, a, b, words);                                                                \
    }                                                                                             \
    void MCU_FN(id, mul_n)(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords)       \
    {                                                                                             \
        mpmul_ref(r, a, b, nwords);                                                               \
    }

MPMUL_DEFINE(mpmul256, 8)
MPMUL_DEFINE(mpmul512, 16)
MPMUL_DEFINE(mpmul1024, 32)
MPMUL_DEFINE(mpmul2048, 64)
