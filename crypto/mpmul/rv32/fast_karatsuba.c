// SPDX-License-Identifier: MIT
/* rv32-fast, 1024 and 2048 bits: subtractive Karatsuba over the generated 512-bit kernel.
 *
 * With X = 2^(32h) (h = half the operand words), a = a0 + X a1, b = b0 + X b1:
 *     L = a0 b0,  H = a1 b1,  M = |a0 - a1| |b0 - b1|,  (a0 - a1)(b0 - b1) = (-1)^s M,
 *     a b = L + X (L + H - (-1)^s M) + X^2 H.
 * 1024 bits = three 512-bit products (fast512.S, itself one Karatsuba level over 256-bit product
 * scanning); 2048 bits = three 1024-bit products. The middle term L + H - (-1)^s M is always
 * non-negative (it is a0 b1 + a1 b0); it is summed word by word with the sign applied by a mask (no
 * branch): M is subtracted as its one's complement plus one, and the mask itself is added at the top
 * word (the -X^2 of the two's complement, i.e. a borrow of one).
 *
 * Constant time: loop bounds are fixed; the signs only ever enter as masks in arithmetic, never in a
 * branch or an address; the 512-bit kernel is straight-line code.
 *
 * Scratch lives on the stack: 2h words for |a0 - a1| and |b0 - b1|, 2h for M and 2h + 1 for the middle
 * term (1024 bits: 388 bytes; 2048 bits: 772, plus the 1024-bit call's).
 */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

/* The public API (crypto/mpmul/ref/mpmul.h) for the sizes this file provides, and the 512-bit kernel
 * it builds on (fast512.S, same MCU_IMPL namespace). */
void MCU_FN(mpmul512, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);

/* d = |x - y| over h words; returns 1 when x < y. */
static uint32_t absdiff(uint32_t *d, const uint32_t *x, const uint32_t *y, size_t h)
{
    uint32_t borrow = 0, mask, carry;
    size_t i;
    for (i = 0; i < h; i++) {
        uint64_t t = (uint64_t)x[i] - y[i] - borrow;
        d[i] = (uint32_t)t;
        borrow = (uint32_t)(t >> 32) & 1u;
    }
    /* two's complement negation when x < y: (d xor ~0) + 1 */
    mask = 0u - borrow;
    carry = borrow;
    for (i = 0; i < h; i++) {
        uint64_t t = (uint64_t)(d[i] ^ mask) + carry;
        d[i] = (uint32_t)t;
        carry = (uint32_t)(t >> 32);
    }
    return borrow;
}

/* r (4h words) holds L in r[0 .. 2h) and H in r[2h .. 4h); add X (L + H - (-1)^s M) where
 * ``sub`` = 1 - s is 1 when M is subtracted. */
static void combine(uint32_t *r, const uint32_t *m, uint32_t sub, size_t h, uint32_t *mid)
{
    uint32_t mask = 0u - sub;              /* all ones when M is subtracted */
    uint64_t acc = sub;                    /* the +1 of the two's complement */
    size_t i;
    for (i = 0; i < 2 * h; i++) {
        acc += (uint64_t)r[i] + r[2 * h + i] + (m[i] ^ mask);
        mid[i] = (uint32_t)acc;
        acc >>= 32;                        /* at most 3 */
    }
    mid[2 * h] = (uint32_t)acc + mask;     /* the borrow of the two's complement */
    acc = 0;
    for (i = 0; i <= 2 * h; i++) {
        acc += (uint64_t)r[h + i] + mid[i];
        r[h + i] = (uint32_t)acc;
        acc >>= 32;
    }
    for (; h + i < 4 * h; i++) {           /* ripple the carry to the top (its length is fixed) */
        acc += r[h + i];
        r[h + i] = (uint32_t)acc;
        acc >>= 32;
    }
}

typedef void (*mul_fn)(uint32_t *r, const uint32_t *a, const uint32_t *b);

/* Scratch words one level needs: |a0 - a1|, |b0 - b1| (h each), M (2h), the middle term (2h + 1). */
#define KARATSUBA_SCRATCH(h) (6 * (h) + 1)

/* One Karatsuba level over half-size products ``half`` (h = half the operand words). */
static void karatsuba(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t h, mul_fn half,
                      uint32_t *scratch)
{
    uint32_t *da = scratch, *db = da + h, *m = db + h, *mid = m + 2 * h;
    uint32_t sa = absdiff(da, a, a + h, h);
    uint32_t sb = absdiff(db, b, b + h, h);
    half(r, a, b);                         /* L */
    half(r + 2 * h, a + h, b + h);         /* H */
    half(m, da, db);                       /* M */
    combine(r, m, 1u ^ sa ^ sb, h, mid);
}

void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t scratch[KARATSUBA_SCRATCH(16)];
    karatsuba(r, a, b, 16, MCU_FN(mpmul512, mul), scratch);
}

void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t scratch[KARATSUBA_SCRATCH(32)];
    karatsuba(r, a, b, 32, MCU_FN(mpmul1024, mul), scratch);
}
