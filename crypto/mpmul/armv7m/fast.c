// SPDX-License-Identifier: MIT
/* cm3-fast: constant-time multi-precision multiplication for the Cortex-M3, 256 to 2048 bits.
 *
 * 256 bits is the unrolled product-scanning kernel of fast_k8.S (16x16 MULs, two products per
 * carry chain, 15 cycles per word product). Each doubling above it is one level of subtractive
 * Karatsuba (fast_kara.S): three half-size products instead of four, for O(n) additions that cost
 * far less than the n^2/4 word products saved (measured: docs/mpmul-cm3.md).
 *
 * Constant time: the recursion, every loop bound and every address depend on the length only; the
 * operand-dependent signs of the Karatsuba differences are masks (all ones or zero) that this file
 * only XORs, and the assembly applies them arithmetically.
 *
 * Scratch: a level at n words uses 4n/2 words of t (|A0-A1|, |B1-B0| and their product) and hands
 * the rest to the level below: 32, 96 and 224 words at 512, 1024 and 2048 bits, on the stack. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "fast.h"

/* r[0..2n) = a[0..n) * b[0..n) for n = 16, 32, 64; t: scratch of 2n + (the level below's) words.
 * The half-size products call the 256-bit kernel directly at n = 16 (no recursion frame per leaf). */
static void kara(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n, uint32_t *t)
{
    size_t h = n / 2;
    uint32_t m;

    /* t[0..h) = |A0 - A1|, t[h..2h) = |B1 - B0|; m: all ones iff exactly one difference was
     * negative, i.e. (A0 - A1)(B1 - B0) = -|A0 - A1||B1 - B0|. */
    m = mpmul_cm3_fast_absdiff(t, a, a + h, h);
    m ^= mpmul_cm3_fast_absdiff(t + h, b + h, b, h);
    if (h == 8) {
        MPMUL_CM3_K8(t + 2 * h, t, t + h);          /* z1 into t[2h..4h) */
        MPMUL_CM3_K8(r, a, b);                      /* z0 = A0*B0 into r[0..2h) */
        MPMUL_CM3_K8(r + 2 * h, a + h, b + h);      /* z2 = A1*B1 into r[2h..4h) */
    } else {
        kara(t + 2 * h, t, t + h, h, t + 4 * h);
        kara(r, a, b, h, t + 4 * h);
        kara(r + 2 * h, a + h, b + h, h, t + 4 * h);
    }
    mpmul_cm3_fast_combine(r, t + 2 * h, h, m);
}

void MCU_FN(mpmul512, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[32];
    kara(r, a, b, 16, t);
}

void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[96];
    kara(r, a, b, 32, t);
}

void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[224];
    kara(r, a, b, 64, t);
}
