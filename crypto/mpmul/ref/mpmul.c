/* Multi-precision multiplication: portable C99 reference, product scanning (Comba).
 *
 * Column k of the product is the sum of a[i]*b[k-i] over the valid i; it is accumulated in a
 * three-word register (c2:c1:c0), whose low word is then written as r[k] and shifted out. Loop
 * bounds depend on the length only, never on the operand values, and carries are added, never
 * tested: no branch and no address depends on a secret.
 *
 * The 32x32->64 product is where constant time is won or lost. RV32 (mul/mulhu) and x86-64 multiply
 * in fixed time, so there it is the C (uint64_t) product. Two of our targets do not: the Cortex-M3's
 * UMULL terminates early on small operands (3..5 cycles), and avr-gcc's libgcc __umulsidi3 branches on
 * a carry (__muldi3_6). On those, mul32x32 builds the product from four 16x16->32 products, which
 * are fixed time (MUL on the M3, __umulhisi3's MULs on AVR), and 64-bit additions. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mpmul.h"

#if defined(__AVR__) || defined(__ARM_ARCH_7M__)
/* Four 16x16->32 products summed at their weights in 64-bit arithmetic (add-with-carry chains on
 * both cores; a carry extracted as a bit would become a skip or branch on AVR). */
static uint64_t mul32x32(uint32_t a, uint32_t b)
{
    uint16_t a0 = (uint16_t)a, a1 = (uint16_t)(a >> 16), b0 = (uint16_t)b, b1 = (uint16_t)(b >> 16);
    uint64_t mid = (uint64_t)((uint32_t)a0 * b1) + (uint32_t)a1 * b0;   /* weight 2^16, up to 33 bits */
    return (uint64_t)((uint32_t)a0 * b0) + (mid << 16) + ((uint64_t)((uint32_t)a1 * b1) << 32);
}
#else
static uint64_t mul32x32(uint32_t a, uint32_t b)
{
    return (uint64_t)a * b;
}
#endif

static void mpmul_ref(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0;   /* the column accumulator, c2:c1:c0 */
    size_t k, i;

    for (k = 0; k + 1 < 2 * n; k++) {
        size_t lo = k < n ? 0 : k - n + 1;     /* first i with b[k-i] in range */
        size_t hi = k < n ? k : n - 1;         /* last i with a[i] in range */
        for (i = lo; i <= hi; i++) {
            uint64_t p = mul32x32(a[i], b[k - i]);
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
