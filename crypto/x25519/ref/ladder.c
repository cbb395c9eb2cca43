// SPDX-License-Identifier: MIT
/* X25519 (RFC 7748 section 5): the Montgomery ladder, inversion, encoding and the cheap field
 * operations, in portable C99 shared by every implementation; fe_mul and fe_sqr (where the time goes)
 * come from the implementation: ref/fe.c, or an assembly file per core.
 *
 * Field elements: 8 little-endian 32-bit limbs, any value below 2^256, congruent mod p = 2^255 - 19
 * ("partially reduced"): 2^256 = 38 (mod p), so a carry out of the top limb is folded back as 38.
 * Only fe_freeze, before encoding, makes a value canonical (< p).
 *
 * Constant time: the loop runs 251 steps and four doublings whatever the scalar (bits 254 and 2 .. 0,
 * which clamping fixes, are public); the scalar bit only selects, through a mask, which pair of
 * points is swapped (fe_cswap2); carries are added as values, never tested. Two products would be
 * variable-time if written the obvious way: 32x32->64 on the Cortex-M3 (UMULL terminates early) and
 * on AVR (__umulsidi3 branches), so the multiplications by 38 and by a24 here use shifts and 16x16
 * products only (8x8 on AVR). */
#include <stdint.h>

#include "mcucrypt/declassify.h"
#include "mcucrypt/ns.h"
#include "x25519.h"
#include "fe_reduce.h"

typedef uint32_t fe[8];

/* The 8-limb loops of the cheap operations are unrolled (GCC's pragma; -O2 keeps them as loops, whose
 * branch and index arithmetic cost more than their bodies on the E31 and the M3). */
#if defined(__GNUC__) && __GNUC__ >= 8   /* the unroll pragma exists from GCC 8 (avr-gcc here is older) */
#define MCU_UNROLL _Pragma("GCC unroll 8")
#else
#define MCU_UNROLL
#endif

#define FE_MUL MCU_FN(x25519, fe_mul)
#define FE_SQR MCU_FN(x25519, fe_sqr)

/* X25519_GLUE_ASM, fixed per implementation in META.yml, never defaulted:
 *   0  the C versions below (ref);
 *   3  a whole ladder step in assembly (ladder_step: the swap and the formulas of the loop body in
 *      ladder_steps below, on st in place) and fe_cswap2 for the final swap; the step may call back the
 *      C fe_add_a24, which is then not static (cm3-fast);
 *   4  as 3, with the a24 step inside the assembly step too: the C fe_add_a24 stays static, for the
 *      doublings only (avr-fast);
 *   5  the loop over the bits in assembly too (ladder_steps32, with its step inside: up to 32 steps a
 *      call, the registers saved once per call instead of once per step) over the swap bits that
 *      ladder_steps below prepares, fe_cswap2, and the doubling fe_double (rv32-fast): the C fe_add,
 *      fe_sub, fe_add_a24 and doublings are not built.
 * At levels 0, 3 and 4 the doublings of the scalar bits that clamping fixes (fe_double_u for bit 254,
 * fe_double for bits 2 .. 0) are the C below over the implementation's FE_MUL and FE_SQR, with the C
 * fe_add, fe_sub and fe_add_a24. (Whether the implementation brings its own inversion is
 * X25519_OWN_INVERT, below.)
 * Levels 1 and 2 (fe_add, fe_sub, fe_cswap2 and a24 in assembly under the C loop body) were retired
 * when every fast implementation moved to an assembly step: nothing in the tree would test them. */
#if !defined(X25519_GLUE_ASM) || (X25519_GLUE_ASM != 0 && X25519_GLUE_ASM != 3 && X25519_GLUE_ASM != 4 && \
                                   X25519_GLUE_ASM != 5)
#error "X25519_GLUE_ASM must be defined: 0 for the C (ref), 3 or 4 with an assembly ladder step (cm3-fast; avr-fast), 5 with the assembly loop (rv32-fast)"
#endif
#if X25519_GLUE_ASM >= 3
/* The implementation brings the whole step (the loop body of ladder_steps below: st in place, swap 0
 * or 1), or at level 5 the whole loop, and fe_cswap2 for the final swap. */
#if X25519_GLUE_ASM == 5
void MCU_FN(x25519, ladder_steps32)(uint32_t *st, uint32_t s, uint32_t n);
#else
void MCU_FN(x25519, ladder_step)(uint32_t *st, uint32_t swap);
#endif
void MCU_FN(x25519, fe_cswap2)(uint32_t *x, uint32_t *y, uint32_t swap);
#define fe_cswap2 MCU_FN(x25519, fe_cswap2)
#else
/* Swap the 16 words at x with the 16 at y (two field elements each: the ladder keeps x2, z2 and x3, z3
 * side by side) when swap = 1, leave them when swap = 0, without a branch: mask = 0 or all ones. */
static void fe_cswap2(uint32_t *x, uint32_t *y, uint32_t swap)
{
    uint32_t mask = 0u - swap;
    int i;
    for (i = 0; i < 16; i++) {
        uint32_t t = mask & (x[i] ^ y[i]);
        x[i] ^= t;
        y[i] ^= t;
    }
}
#endif

#if X25519_GLUE_ASM != 5   /* at 5 the implementation brings the doublings: these have no user */
#if !defined(__AVR__)
/* r += c * 38 (c < 2^26: the carry out of the top limb), result < 2^256. The second carry c2 can only
 * be 1 when the sum wrapped to a value below c*38 < 2^32, so adding 38 to limb 0 cannot carry again. */
static void fe_fold(fe r, uint32_t c)
{
    uint64_t t = (uint64_t)((c << 5) + (c << 2) + (c << 1));
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        t += r[i];
        r[i] = (uint32_t)t;
        t >>= 32;
    }
    r[0] += fe_carry38((uint32_t)t);
}

/* r = a + b: the carry out of the top limb is 2^256 = 38 (mod p), folded back. */
static void fe_add(fe r, const fe a, const fe b)
{
    uint64_t c = 0;
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        c += (uint64_t)a[i] + b[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    fe_fold(r, (uint32_t)c);
}

/* The borrow out of x - y - bin (d = that difference mod 2^32), as a bit, by logic only (Hacker's
 * Delight 2-13). On the M3 a 64-bit formulation makes GCC emit an IT block (conditional execution
 * selected by the borrow, which the checker rightly reports as a secret-dependent branch); on AVR it
 * is this one that becomes a skip (SBRC on the sign bit), so AVR has byte chains below. */
static uint32_t borrow_out(uint32_t x, uint32_t y, uint32_t d)
{
    return ((~x & y) | (~(x ^ y) & d)) >> 31;
}

/* r = a - b: a borrow out of the top limb means 2^256 was added, i.e. 38 too much (mod p): take 38
 * off, and once more if that borrows too (then r >= 2^256 - 38 and limb 0 cannot borrow a third time). */
static void fe_sub(fe r, const fe a, const fe b)
{
    uint32_t borrow = 0, x, y, d;
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        x = a[i];
        y = b[i];
        d = x - y - borrow;
        borrow = borrow_out(x, y, d);
        r[i] = d;
    }
    y = fe_carry38(borrow);
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        x = r[i];
        d = x - y;
        y = borrow_out(x, y, d);            /* what the next limb must subtract: 0 or 1 */
        r[i] = d;
    }
    r[0] -= fe_carry38(y);
}
#else
/* AVR: the same operations on the 32 bytes of the limbs (little-endian in memory either way), as
 * 8-bit carry chains in a 16-bit sum, which avr-gcc compiles to ADD/ADC, MOVs and SBC-made masks:
 * its code for the 32-bit limbs' 64-bit sums costs about 5,000 cycles a call, these a few hundred.
 * The shifts of a signed sum are arithmetic (GCC's definition), giving the borrow as 0 or -1. */

/* z += c (c <= 38), then the carry out, possible only when z wrapped to a value below 38, as 38 more
 * into byte 0 (below 76: no further carry). */
static void fe_fold8(uint8_t *z, uint16_t c)
{
    uint8_t i;
    for (i = 0; i < 32; i++) {
        c += z[i];
        z[i] = (uint8_t)c;
        c >>= 8;
    }
    z[0] += (uint8_t)(38u & (0u - c));
}

static void fe_add(fe r, const fe a, const fe b)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint8_t *z = (uint8_t *)r;
    uint16_t c = 0;
    uint8_t i;
    for (i = 0; i < 32; i++) {
        c += (uint16_t)x[i] + y[i];
        z[i] = (uint8_t)c;
        c >>= 8;
    }
    fe_fold8(z, 38u & (0u - c));            /* 2^256 = 38 (mod p) */
}

static void fe_sub(fe r, const fe a, const fe b)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint8_t *z = (uint8_t *)r;
    int16_t c = 0;
    uint8_t i;
    for (i = 0; i < 32; i++) {
        c += (int16_t)x[i] - y[i];          /* c: the borrow in, 0 or -1 */
        z[i] = (uint8_t)c;
        c >>= 8;
    }
    c &= -38;                               /* a borrow out: 2^256 = 38 too much */
    for (i = 0; i < 32; i++) {
        c += z[i];
        z[i] = (uint8_t)c;
        c >>= 8;
    }
    z[0] += (uint8_t)(c & -38);             /* twice: then z >= 2^256 - 38, byte 0 >= 218 */
}
#endif

/* r = a + 121665 * e (RFC 7748's a24), with fixed-time products only. Not static where the assembly
 * ladder step calls it (cm3-fast); on avr-fast the step has its own and this one serves the four
 * doublings (fe_double) only. */
#if X25519_GLUE_ASM == 3
void MCU_FN(x25519, fe_add_a24)(uint32_t *r, const uint32_t *a, const uint32_t *e);
#define fe_add_a24 MCU_FN(x25519, fe_add_a24)
#else
static
#endif
void fe_add_a24(uint32_t *r, const uint32_t *a, const uint32_t *e)
{
#if !defined(__AVR__)
    /* 121665 = 2^16 + 0xdb41: x * 0xdb41 as two 16x16 products, fixed-time MULs on every 32-bit target */
    uint64_t c = 0;
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        uint32_t x = e[i];
        uint32_t lo = (uint32_t)(uint16_t)x * 0xdb41u, hi = (x >> 16) * 0xdb41u;
        c += (uint64_t)a[i] + lo + ((uint64_t)hi << 16) + ((uint64_t)x << 16);
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    fe_fold(r, (uint32_t)c);
#else
    /* 121665 = 0x01db41: byte column i is a_i + 0x41 e_i + 0xdb e_(i-1) + e_(i-2) plus the carry
     * (8x8-bit MULs), below 2^17 + 2^9; what is left above 2^256, h < 2^18, is folded as 38 h. */
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)e;
    uint8_t *z = (uint8_t *)r;
    uint32_t c = 0;
    uint16_t h;
    uint8_t i, e1 = 0, e2 = 0;
    for (i = 0; i < 32; i++) {
        uint8_t e0 = y[i];
        c += x[i];
        c += (uint16_t)(e0 * 0x41u);
        c += (uint16_t)(e1 * 0xdbu);
        c += e2;
        z[i] = (uint8_t)c;
        c >>= 8;
        e2 = e1;
        e1 = e0;
    }
    c += (uint16_t)(e1 * 0xdbu);            /* columns 32 and 33 (one at a time: int is 16 bits) */
    c += e2;
    c += (uint16_t)e1 << 8;
    c = (c << 5) + (c << 2) + (c << 1);     /* 38 h < 2^24 */
    for (i = 0; i < 32; i++) {
        c += z[i];
        z[i] = (uint8_t)c;
        c >>= 8;
    }
    /* a carry out only when z wrapped below 2^24: 38 more cannot carry past byte 3 */
    h = (uint16_t)(38u & (0u - (uint16_t)c));
    for (i = 0; i < 4; i++) {
        h += z[i];
        z[i] = (uint8_t)h;
        h >>= 8;
    }
#endif
}
#endif   /* X25519_GLUE_ASM != 5 */

/* X25519_OWN_INVERT, fixed per implementation in META.yml, never defaulted:
 *   0  the Fermat chain below (254 squarings, 11 products through FE_SQR and FE_MUL);
 *   1  the implementation brings fe_invert (r = 1/z mod p, 0 for z = 0 mod p, any z < 2^256):
 *      a constant-time safegcd in rv32-fast (rv32/inv_rv32.c) and avr-fast (avr/inv_avr.S). */
#if !defined(X25519_OWN_INVERT) || (X25519_OWN_INVERT != 0 && X25519_OWN_INVERT != 1)
#error "X25519_OWN_INVERT must be defined: 0 for the Fermat chain here, 1 when the implementation brings fe_invert (rv32-fast, avr-fast)"
#endif
#if X25519_OWN_INVERT
void MCU_FN(x25519, fe_invert)(uint32_t *r, const uint32_t *z);
#define fe_invert MCU_FN(x25519, fe_invert)
#else
static void fe_sqr_n(fe r, const fe a, int n)
{
    FE_SQR(r, a);
    while (--n > 0)
        FE_SQR(r, r);
}

/* r = z^(p-2) = 1/z (0 for z = 0), the usual chain: 254 squarings and 11 multiplications, in four
 * temporaries (128 bytes). Not inlined: x25519's frame would otherwise hold these during the whole
 * ladder (on AVR that is the stack high-water: x25519 + ladder + fe_mul). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void fe_invert(fe r, const fe z)
{
    fe t0, t1, t2, t3;

    FE_SQR(t0, z);              /* z^2 */
    fe_sqr_n(t1, t0, 2);        /* z^8 */
    FE_MUL(t1, t1, z);          /* z^9 */
    FE_MUL(t0, t0, t1);         /* z^11 */
    FE_SQR(t2, t0);             /* z^22 */
    FE_MUL(t1, t1, t2);         /* z^(2^5 - 1) */
    fe_sqr_n(t2, t1, 5);
    FE_MUL(t1, t2, t1);         /* z^(2^10 - 1) */
    fe_sqr_n(t2, t1, 10);
    FE_MUL(t2, t2, t1);         /* z^(2^20 - 1) */
    fe_sqr_n(t3, t2, 20);
    FE_MUL(t2, t3, t2);         /* z^(2^40 - 1) */
    fe_sqr_n(t2, t2, 10);
    FE_MUL(t1, t2, t1);         /* z^(2^50 - 1) */
    fe_sqr_n(t2, t1, 50);
    FE_MUL(t2, t2, t1);         /* z^(2^100 - 1) */
    fe_sqr_n(t3, t2, 100);
    FE_MUL(t2, t3, t2);         /* z^(2^200 - 1) */
    fe_sqr_n(t2, t2, 50);
    FE_MUL(t1, t2, t1);         /* z^(2^250 - 1) */
    fe_sqr_n(t1, t1, 5);        /* z^(2^255 - 32) */
    FE_MUL(r, t1, t0);          /* z^(2^255 - 21) = z^(p - 2) */
}
#endif

/* The canonical value (< p) of a < 2^256: fold bit 255 as 19 (a < 2^255 + 19 * 2 after it), then
 * subtract p when a + 19 reaches 2^255, selected by a mask. */
static void fe_freeze(fe r, const fe a)
{
    fe t;
    uint64_t c;
    uint32_t mask;
    int i;

    c = (uint64_t)(19u & (0u - (a[7] >> 31)));
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        c += i == 7 ? (a[7] & 0x7fffffffu) : a[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    c = 19;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        c += r[i];
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    mask = 0u - (t[7] >> 31);       /* r + 19 >= 2^255, i.e. r >= p */
    t[7] &= 0x7fffffffu;
    MCU_UNROLL
    for (i = 0; i < 8; i++)
        r[i] = (t[i] & mask) | (r[i] & ~mask);
}

static void fe_load(fe r, const uint8_t *s)
{
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++)
        r[i] = (uint32_t)s[4 * i] | ((uint32_t)s[4 * i + 1] << 8) | ((uint32_t)s[4 * i + 2] << 16) |
               ((uint32_t)s[4 * i + 3] << 24);
}

static void fe_store(uint8_t *s, const fe a)
{
    int i;
    MCU_UNROLL
    for (i = 0; i < 8; i++) {
        s[4 * i] = (uint8_t)a[i];
        s[4 * i + 1] = (uint8_t)(a[i] >> 8);
        s[4 * i + 2] = (uint8_t)(a[i] >> 16);
        s[4 * i + 3] = (uint8_t)(a[i] >> 24);
    }
}

#if X25519_GLUE_ASM == 5
/* The implementation's doubling (rv32-fast: one generated, list-scheduled routine, rv32/gen_fe.py),
 * for the first step's (u, 1) too: its one program beats the C fe_double_u's squaring fewer. */
void MCU_FN(x25519, fe_double)(uint32_t *x2, uint32_t *z2, const uint32_t *x, const uint32_t *z);
#define fe_double MCU_FN(x25519, fe_double)
#define fe_double_u fe_double
#else
/* (x2, z2) = 2 (x, z), the doubling half of a ladder step alone: A = x + z, B = x - z, x2 = A^2 B^2,
 * z2 = E (A^2 + a24 E) with E = A^2 - B^2: two squarings and two products, where a whole step takes
 * four and five. x2, z2 may be x, z. Not inlined: x25519 and ladder_from share one copy. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void fe_double(uint32_t *x2, uint32_t *z2, const uint32_t *x, const uint32_t *z)
{
    fe a, b;

    fe_add(a, x, z);            /* A = x + z */
    fe_sub(b, x, z);            /* B = x - z */
    FE_SQR(a, a);               /* AA = A^2 */
    FE_SQR(b, b);               /* BB = B^2 */
    FE_MUL(x2, a, b);           /* x2 = AA * BB */
    fe_sub(b, a, b);            /* E = AA - BB */
    fe_add_a24(z2, a, b);
    FE_MUL(z2, z2, b);          /* z2 = E * (AA + a24 * E) */
}

/* The doubling of the first step (x25519, bit 254): (x2, z2) = 2 (u, 1) with one squaring fewer than
 * fe_double: E = AA - BB = (u + 1)^2 - (u - 1)^2 = 4u is two additions, and BB = AA - E. The values
 * are fe_double's, mod p. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void fe_double_u(uint32_t *x2, uint32_t *z2, const uint32_t *u, const uint32_t *one)
{
    fe a, e;

    fe_add(a, u, one);          /* A = u + 1 */
    fe_add(e, u, u);
    fe_add(e, e, e);            /* E = 4u */
    FE_SQR(a, a);               /* AA = A^2 */
    fe_sub(z2, a, e);           /* BB = AA - E */
    FE_MUL(x2, a, z2);          /* x2 = AA * BB */
    fe_add_a24(z2, a, e);
    FE_MUL(z2, z2, e);          /* z2 = E * (AA + a24 * E) */
}
#endif

/* RFC 7748's ladder steps for the scalar bits t = hi .. lo of k (little-endian bytes; none when
 * hi < lo) on the state st = x1 | x2 | z2 | x3 | z3 (five field elements, 40 words), in place, from
 * the pending swap `swap` (the bit before hi); returns the pending swap after bit lo, k_lo.
 * hi <= 255 (k has 32 bytes). */
#if X25519_GLUE_ASM == 5
/* Level 5: the implementation's assembly loop (ladder_steps32: n steps, 1 <= n <= 32, their swap bits
 * in a word from bit 31 down) takes each step's swap bit s_t = k_t ^ k_(t+1) (k_(hi+1) read as `swap`),
 * prepared here a word at a time: s = k' ^ (k' >> 1) with k' = k below bit hi + 1 and `swap` at bit
 * hi + 1, then cut from bit hi down into words of 32 bits (the last of what is left); so the loop's
 * step only shifts a word (no bit extraction, no pending swap to keep). Every index and shift count
 * here is public (hi, lo); the scalar only moves as data. */
static uint32_t ladder_steps(uint32_t *st, const uint8_t *k, int hi, int lo, uint32_t swap)
{
    uint32_t s[9];
    int i, t, n, b;

    if (hi < lo)
        return swap;
    for (i = 0; i < 8; i++)
        s[i] = (uint32_t)k[4 * i] | ((uint32_t)k[4 * i + 1] << 8) | ((uint32_t)k[4 * i + 2] << 16) |
               ((uint32_t)k[4 * i + 3] << 24);
    s[8] = 0;
    i = (hi + 1) >> 5;                          /* the word of bit hi + 1 */
    s[i] = (s[i] & ((1u << ((hi + 1) & 31)) - 1u)) | (swap << ((hi + 1) & 31));
    for (t = i + 1; t < 9; t++)
        s[t] = 0;
    for (i = 0; i < 8; i++)
        s[i] ^= (s[i] >> 1) | (s[i + 1] << 31);
    s[8] ^= s[8] >> 1;
    for (t = hi; t >= lo; t -= n) {
        uint32_t w;
        n = t - lo + 1 < 32 ? t - lo + 1 : 32;
        b = t - n + 1;                          /* bits t .. b, at most 32 */
        i = b >> 5;                             /* 32 bits of s from bit b (the second shift makes */
        w = (s[i] >> (b & 31)) | ((s[i + 1] << 1) << (31 - (b & 31)));   /* 0 when b is bit 0) */
        MCU_FN(x25519, ladder_steps32)(st, w << (32 - n), (uint32_t)n);  /* bit t at bit 31 */
    }
    return (uint32_t)(k[lo >> 3] >> (lo & 7)) & 1u;
}
#else
static uint32_t ladder_steps(uint32_t *st, const uint8_t *k, int hi, int lo, uint32_t swap)
{
    int t;
#if X25519_GLUE_ASM < 3
    uint32_t *x1 = st, *x2 = st + 8, *z2 = st + 16, *x3 = st + 24, *z3 = st + 32;
    fe a, b;                    /* two temporaries: x2 and z2 hold C, D, CB, DA and E on the way */
#endif

    for (t = hi; t >= lo; t--) {
        uint32_t kt = (uint32_t)(k[t >> 3] >> (t & 7)) & 1u;   /* the index t is public */
        swap ^= kt;
#if X25519_GLUE_ASM >= 3
        MCU_FN(x25519, ladder_step)(st, swap);   /* the swap and the formulas below, in assembly */
#else
        fe_cswap2(x2, x3, swap);    /* (x2, z2) <-> (x3, z3): st + 8 and st + 24, 16 words each */
        fe_add(a, x2, z2);      /* A = x2 + z2 */
        fe_sub(b, x2, z2);      /* B = x2 - z2 */
        fe_add(x2, x3, z3);     /* C = x3 + z3 (x2 and z2 are free now) */
        fe_sub(z2, x3, z3);     /* D = x3 - z3 */
        FE_MUL(z2, z2, a);      /* DA = D * A */
        FE_MUL(x2, x2, b);      /* CB = C * B */
        fe_add(x3, z2, x2);
        FE_SQR(x3, x3);         /* x3 = (DA + CB)^2 */
        fe_sub(z3, z2, x2);
        FE_SQR(z3, z3);
        FE_MUL(z3, z3, x1);     /* z3 = x1 * (DA - CB)^2 */
        FE_SQR(a, a);           /* AA = A^2 */
        FE_SQR(b, b);           /* BB = B^2 */
        fe_sub(x2, a, b);       /* E = AA - BB */
        fe_add_a24(z2, a, x2);
        FE_MUL(z2, z2, x2);     /* z2 = E * (AA + a24 * E) */
        FE_MUL(x2, a, b);       /* x2 = AA * BB */
#endif
        swap = kt;
    }
    return swap;
}
#endif

/* The ladder from bit hi down: the steps for bits hi .. 3, the final conditional swap by the pending
 * bit (k_3), then `doublings` doublings of (x2, z2) for bits 2 .. 0, which clamping clears: a step
 * with k_t = 0 and nothing pending doubles (x2, z2) and replaces (x3, z3) by the sum of both pairs,
 * which nothing reads after the last bit, so the doubling alone gives the same (x2, z2). Bit
 * positions and counts are public: nothing here depends on the scalar but the swap masks. */
static void ladder_from(uint32_t *st, const uint8_t *k, int hi, uint32_t swap, int doublings)
{
    swap = ladder_steps(st, k, hi, 3, swap);
    fe_cswap2(st + 8, st + 24, swap);
    for (; doublings > 0; doublings--)
        fe_double(st + 8, st + 16, st + 8, st + 16);
}

/* RFC 7748's ladder over scalar bits bits-1 .. 0 of k (little-endian bytes, clamped: bits 2 .. 0 of k
 * are taken as 0 and not read) on the state st = x1 | x2 | z2 | x3 | z3 (40 words), in place, the
 * final conditional swap included: the steps for bits bits-1 .. 3, the swap, then min(bits, 3)
 * doublings of (x2, z2); x3 and z3 are left as the swap leaves them (the RFC's last steps would go on
 * changing them; x25519 never reads them). The code x25519 runs for bits 253 .. 0 (its first bit,
 * 254, is a doubling of its fixed starting state, below). Exported (`ladder`) so that the
 * constant-time checker can trace a few steps of exactly this code where tracing a whole scalar
 * multiplication would not fit in memory (AVR). */
void MCU_FN(x25519, ladder)(uint32_t *st, const uint8_t *k, uint16_t bits)
{
    ladder_from(st, k, (int)bits - 1, 0, bits < 3 ? (int)bits : 3);
}

/* RFC 7748's X25519 function: shared = X25519(scalar, point). Returns the OR of the eight 32-bit words of
 * shared (0 exactly when shared is all zeros), a secret the caller may only fold into its verdict. Not
 * inlined: x25519 and x25519_unchecked share this one copy. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t scalarmult(uint8_t *shared, const uint8_t *scalar, const uint8_t *point)
{
    uint8_t k[32];
    uint32_t st[40];            /* x1, x2, z2, x3, z3 */
    uint32_t *x1 = st, *x2 = st + 8, *z2 = st + 16, *x3 = st + 24, *z3 = st + 32;
    int i;

    for (i = 0; i < 32; i++)    /* decodeScalar25519 */
        k[i] = scalar[i];
    k[0] &= 248;
    k[31] &= 127;
    k[31] |= 64;
    fe_load(x1, point);         /* decodeUCoordinate: top bit masked, u >= p kept (reduced by the ladder) */
    x1[7] &= 0x7fffffffu;

    MCU_UNROLL
    for (i = 0; i < 8; i++) {   /* x3 = u, z3 = 1 */
        x3[i] = x1[i];
        z3[i] = 0;
    }
    z3[0] = 1;

    /* Bit 254 is 1 after clamping (public). RFC 7748's first step, from (x2, z2) = (1, 0) and
     * (x3, z3) = (u, 1), swaps them, leaves (x2, z2) = 2P, the doubling of (u, 1), and
     * (x3, z3) = (4u^2, 4u), with swap 1 pending: here that one doubling (fe_double_u: the values of
     * fe_double on (u, 1) with one squaring fewer), and (x3, z3) kept as (u, 1).
     * For u != 0 mod p that is the same point scaled by 4u != 0, and the result x2 / z2 does not change
     * when an input pair is scaled (every formula of a step is homogeneous in each pair, of degree 2
     * or 4: the pairs stay scaled, never mixed). For u = 0 mod p (u = 0 or u = p, both in Wycheproof)
     * (u, 1) is (0, 1) where the RFC has (0, 0), and the result is 0 both ways: with x1 = 0 every sum
     * has z = x1 (DA - CB)^2 = 0 and the doubling of (0, 1) is (1, 0) (AA = BB = 1, E = 0), so after
     * the step for bit 253 both pairs have z = 0, and keep it; z2 = 0 at the end, 1/z2 = 0 (fe_invert
     * maps 0 to 0) and x2 / z2 = 0, the RFC's all-zero output. */
    fe_double_u(x2, z2, x1, z3);
    ladder_from(st, k, 253, 1, 3);

    fe_invert(z2, z2);
    FE_MUL(x2, x2, z2);
    fe_freeze(x2, x2);
    fe_store(shared, x2);
    return x2[0] | x2[1] | x2[2] | x2[3] | x2[4] | x2[5] | x2[6] | x2[7];
}

/* RFC 7748's X25519 function as specified: no check of the result (all zeros for a small-order point). */
void MCU_FN(x25519, x25519_unchecked)(uint8_t *shared, const uint8_t *scalar, const uint8_t *point)
{
    (void)scalarmult(shared, scalar, point);
}

/* X25519 with RFC 7748 section 6.1's check, as TLS 1.3 (RFC 8446 7.4.2) and libsodium do it: a point of
 * small order (or on the twist's small subgroup) gives the all-zero shared secret, which a peer could
 * force whatever our scalar; it is reported as -1. The output is still written (all zeros then). The
 * words of the result are OR-ed together (in scalarmult, from the canonical limbs it stores) and folded
 * to a byte without a branch (shifts by 16 and 8 are register moves on AVR); only the verdict, which the
 * return value publishes, goes through mcu_declassify: the shared secret stays secret for the checker. */
int MCU_FN(x25519, x25519)(uint8_t *shared, const uint8_t *scalar, const uint8_t *point)
{
    uint32_t acc = scalarmult(shared, scalar, point);

    acc |= acc >> 16;
    acc = (acc | (acc >> 8)) & 0xffu;
    /* acc is 0..255: acc - 1 borrows into bit 8 only when acc == 0. The whole shifted word goes to
     * mcu_declassify and its bit 0 is taken after: with the mask before the call, avr-gcc tests the
     * sign bit with a skip (SBRC), a branch on the secret, which the checker found. */
    return -(int)(mcu_declassify((acc - 1u) >> 8) & 1u);
}

/* The public key: X25519 of the base point 9, of prime order q (2^252 < q < 2^253). A clamped scalar is
 * 8 m with 2^251 <= m < 2^252 < q, so k B is never the identity (the all-zero result), and no point of
 * order q has u = 0 (that point has order 2): never zero, so no check. */
void MCU_FN(x25519, x25519_base)(uint8_t *public_key, const uint8_t *scalar)
{
    static const uint8_t base[32] = {9};
    (void)scalarmult(public_key, scalar, base);
}
