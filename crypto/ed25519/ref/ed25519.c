// SPDX-License-Identifier: MIT
/* Ed25519 (RFC 8032, section 5.1), portable C99 on the x25519 implementation's field multiplication.
 *
 * Field: elements are 8 little-endian 32-bit limbs holding any value below 2^256 (congruent mod
 * p = 2^255 - 19), the form MCU_FN(x25519, fe_mul) / fe_sqr take and give; additions and subtractions
 * fold their carry or borrow as 38 (2^256 = 38 mod p) with carries computed by logic, never by a
 * comparison (a compiler may branch on one: avr-gcc does); fe_freeze gives the canonical value.
 * Points: twisted Edwards -x^2 + y^2 = 1 + d x^2 y^2 in extended coordinates (X : Y : Z : T), the
 * unified formulas of Hisil-Wong-Carter-Dawson (RFC 8032 section 5.1.4) through a "completed" point
 * (four multiplications back to extended, three to projective when no T is needed).
 * [a]B (key generation, signing: a secret): 64 signed radix-16 digits of a, each looked up in the
 * fixed-base table (base_table.h, flash) by a scan of the whole row with masks, then added: 64 mixed
 * additions and 4 doublings. [k]A in verification (public data): the same digits, A's multiples
 * 1..8 computed once and indexed directly (variable time allowed: nothing is secret), 252 doublings.
 * Scalars mod L: 16-bit limbs (16 x 16 -> 32-bit products: MUL on the Cortex-M3, whose UMULL is
 * variable time; the MUL-based helper on AVR), schoolbook products, Barrett reduction.
 * SHA-512: crypto/sha2's init/update/final (its block function the core's assembly where the
 * implementation links it). */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/wipe.h"
#include "ed25519.h"

/* The table lives in flash on every board: PROGMEM on AVR (read by memcpy_P); on the E31, whose
 * read-only data the link places in the 16 KiB DTIM (boards/rv32/link.ld), a section of .text; on the
 * Cortex-M3 .rodata is flash already. */
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define TABLE_ROM PROGMEM
#elif defined(__riscv)
#define TABLE_ROM __attribute__((section(".text.ed25519_base_table")))
#else
#define TABLE_ROM
#endif

#include "base_table.h"

/* the field multiplication and squaring of the x25519 implementation linked beside this file */
void MCU_FN(x25519, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(x25519, fe_sqr)(uint32_t *r, const uint32_t *a);
/* crypto/sha2's SHA-512 (context of 200 bytes, 8-byte aligned) */
void MCU_FN(sha512, init)(uint8_t *ctx);
void MCU_FN(sha512, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);
void MCU_FN(sha512, final)(uint8_t *ctx, unsigned char *out);

typedef uint32_t fe[8];

#define fe_mul(r, a, b) MCU_FN(x25519, fe_mul)((r), (a), (b))
#define fe_sqr(r, a) MCU_FN(x25519, fe_sqr)((r), (a))

/* ---- field ---------------------------------------------------------------------------------- */

/* carry and borrow out of a + b + c / a - b - c from the top bits (Hacker's Delight 2-16) */
#define CARRY_OUT(a, b, s) ((((a) & (b)) | (((a) | (b)) & ~(s))) >> 31)
#define BORROW_OUT(a, b, d) (((~(a) & (b)) | ((~(a) | (b)) & (d))) >> 31)

static const fe FE_D = {0x135978a3, 0x75eb4dca, 0x4141d8ab, 0x00700a4d, 0x7779e898, 0x8cc74079, 0x2b6ffe73, 0x52036cee};
static const fe FE_D2 = {0x26b2f159, 0xebd69b94, 0x8283b156, 0x00e0149a, 0xeef3d130, 0x198e80f2, 0x56dffce7, 0x2406d9dc};
static const fe FE_SQRTM1 = {0x4a0ea0b0, 0xc4ee1b27, 0xad2fe478, 0x2f431806, 0x3dfbd7a7, 0x2b4d0099, 0x4fc1df0b, 0x2b832480};

static void fe_copy(fe r, const fe a)
{
    int i;
    for (i = 0; i < 8; i++)
        r[i] = a[i];
}

static void fe_set(fe r, uint32_t v)
{
    int i;
    r[0] = v;
    for (i = 1; i < 8; i++)
        r[i] = 0;
}

/* r += 38 * c (c a small count), twice the carry folded: r < 2^256 after */
static void fe_fold(fe r, uint32_t c)
{
    int pass, i;
    for (pass = 0; pass < 2; pass++) {
        uint32_t add = 38 * c;
        c = 0;
        for (i = 0; i < 8; i++) {
            uint32_t a = r[i], s = a + add + c;
            c = CARRY_OUT(a, add, s);
            r[i] = s;
            add = 0;
        }
    }
}

static void fe_add(fe r, const fe a, const fe b)
{
    uint32_t c = 0;
    int i;
    for (i = 0; i < 8; i++) {
        uint32_t x = a[i], y = b[i], s = x + y + c;
        c = CARRY_OUT(x, y, s);
        r[i] = s;
    }
    fe_fold(r, c);
}

/* r = a - b: a borrow out means the limbs hold a - b + 2^256 = a - b + 38: take 38 off, twice */
static void fe_sub(fe r, const fe a, const fe b)
{
    uint32_t br = 0;
    int pass, i;
    for (i = 0; i < 8; i++) {
        uint32_t x = a[i], y = b[i], d = x - y - br;
        br = BORROW_OUT(x, y, d);
        r[i] = d;
    }
    for (pass = 0; pass < 2; pass++) {
        uint32_t sub = 38 * br;
        br = 0;
        for (i = 0; i < 8; i++) {
            uint32_t x = r[i], d = x - sub - br;
            br = BORROW_OUT(x, sub, d);
            r[i] = d;
            sub = 0;
        }
    }
}

/* the canonical value (< p) of a */
static void fe_freeze(fe r, const fe a)
{
    fe t;
    uint32_t c, mask;
    int i;
    fe_copy(r, a);
    c = r[7] >> 31;                          /* a = lo + 2^255 c = lo + 19 c */
    r[7] &= 0x7fffffff;
    c *= 19;
    for (i = 0; i < 8; i++) {
        uint32_t x = r[i], s = x + c;
        c = (x & ~s) >> 31;                   /* c < 2^31: a carry out clears the top bit */
        r[i] = s;
    }
    c = 19;                                   /* r < 2^255 + 19: r - p = r + 19 - 2^255 when that bit is set */
    for (i = 0; i < 8; i++) {
        uint32_t x = r[i], s = x + c;
        c = (x & ~s) >> 31;
        t[i] = s;
    }
    mask = 0u - (t[7] >> 31);
    t[7] &= 0x7fffffff;
    for (i = 0; i < 8; i++)
        r[i] ^= mask & (r[i] ^ t[i]);
}

static void fe_cmov(fe r, const fe a, uint32_t mask)
{
    int i;
    for (i = 0; i < 8; i++)
        r[i] ^= mask & (r[i] ^ a[i]);
}

static void fe_neg(fe r, const fe a)
{
    fe z;
    fe_set(z, 0);
    fe_sub(r, z, a);
}

/* all ones when a = 0 mod p, else 0 */
static uint32_t fe_is_zero(const fe a)
{
    fe t;
    uint32_t acc = 0;
    int i;
    fe_freeze(t, a);
    for (i = 0; i < 8; i++)
        acc |= t[i];
    return ((acc | (0u - acc)) >> 31) - 1u;
}

static uint32_t fe_parity(const fe a)
{
    fe t;
    fe_freeze(t, a);
    return t[0] & 1;
}

static void fe_sqr_n(fe r, const fe a, int n)
{
    fe_sqr(r, a);
    while (--n > 0)
        fe_sqr(r, r);
}

/* z^(2^250 - 1) and z^11: the common head of inversion and the square-root power */
static void fe_pow_head(fe z250, fe z11, const fe z)
{
    fe t, z2, z9, z5, z10, z20, z50, z100;
    fe_sqr(z2, z);
    fe_sqr_n(t, z2, 2);
    fe_mul(z9, t, z);
    fe_mul(z11, z9, z2);
    fe_sqr(t, z11);
    fe_mul(z5, t, z9);                         /* 2^5 - 1 */
    fe_sqr_n(t, z5, 5);
    fe_mul(z10, t, z5);                        /* 2^10 - 1 */
    fe_sqr_n(t, z10, 10);
    fe_mul(z20, t, z10);
    fe_sqr_n(t, z20, 20);
    fe_mul(t, t, z20);                         /* 2^40 - 1 */
    fe_sqr_n(t, t, 10);
    fe_mul(z50, t, z10);
    fe_sqr_n(t, z50, 50);
    fe_mul(z100, t, z50);
    fe_sqr_n(t, z100, 100);
    fe_mul(t, t, z100);                        /* 2^200 - 1 */
    fe_sqr_n(t, t, 50);
    fe_mul(z250, t, z50);
}

/* r = 1/z = z^(p - 2) (0 for z = 0) */
static void fe_invert(fe r, const fe z)
{
    fe z250, z11;
    fe_pow_head(z250, z11, z);
    fe_sqr_n(z250, z250, 5);
    fe_mul(r, z250, z11);                      /* 2^255 - 32 + 11 */
}

/* r = z^((p - 5) / 8) = z^(2^252 - 3) */
static void fe_pow22523(fe r, const fe z)
{
    fe z250, z11;
    fe_pow_head(z250, z11, z);
    fe_sqr_n(z250, z250, 2);
    fe_mul(r, z250, z);
}

static void fe_load(fe r, const uint8_t *s)
{
    int i;
    for (i = 0; i < 8; i++)
        r[i] = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 | (uint32_t)s[4 * i + 2] << 16 |
               (uint32_t)s[4 * i + 3] << 24;
}

static void fe_store(uint8_t *s, const fe a)
{
    fe t;
    int i;
    fe_freeze(t, a);
    for (i = 0; i < 8; i++) {
        s[4 * i] = (uint8_t)t[i];
        s[4 * i + 1] = (uint8_t)(t[i] >> 8);
        s[4 * i + 2] = (uint8_t)(t[i] >> 16);
        s[4 * i + 3] = (uint8_t)(t[i] >> 24);
    }
}

/* ---- points --------------------------------------------------------------------------------- */

typedef struct { fe X, Y, Z, T; } ge_p3;        /* extended: x = X/Z, y = Y/Z, xy = T/Z */
typedef struct { fe X, Y, Z, T; } ge_p1p1;      /* completed: x = X/Z, y = Y/T */
typedef struct { fe yplusx, yminusx, xy2d; } ge_precomp;   /* affine, for mixed additions */
typedef struct { fe YplusX, YminusX, Z, T2d; } ge_cached;

static void p1p1_to_p3(ge_p3 *r, const ge_p1p1 *p)
{
    fe_mul(r->X, p->X, p->T);
    fe_mul(r->Y, p->Y, p->Z);
    fe_mul(r->Z, p->Z, p->T);
    fe_mul(r->T, p->X, p->Y);
}

/* projective only (T not needed: the point is only doubled next) */
static void p1p1_to_p2(ge_p3 *r, const ge_p1p1 *p)
{
    fe_mul(r->X, p->X, p->T);
    fe_mul(r->Y, p->Y, p->Z);
    fe_mul(r->Z, p->Z, p->T);
}

static void p3_identity(ge_p3 *r)
{
    fe_set(r->X, 0);
    fe_set(r->Y, 1);
    fe_set(r->Z, 1);
    fe_set(r->T, 0);
}

/* r = 2p (dbl-2008-hwcd for a = -1), from X, Y, Z */
static void ge_dbl(ge_p1p1 *r, const ge_p3 *p)
{
    fe t0;
    fe_sqr(r->X, p->X);                       /* A = X^2 */
    fe_sqr(r->Z, p->Y);                       /* B = Y^2 */
    fe_sqr(r->T, p->Z);
    fe_add(r->T, r->T, r->T);                 /* C = 2 Z^2 */
    fe_add(r->Y, p->X, p->Y);
    fe_sqr(t0, r->Y);                         /* (X + Y)^2 */
    fe_add(r->Y, r->Z, r->X);                 /* B + A */
    fe_sub(r->Z, r->Z, r->X);                 /* B - A */
    fe_sub(r->X, t0, r->Y);                   /* E = (X + Y)^2 - A - B */
    fe_sub(r->T, r->T, r->Z);                 /* C - (B - A) */
}

/* r = p + q, q affine (precomputed) */
static void ge_madd(ge_p1p1 *r, const ge_p3 *p, const ge_precomp *q)
{
    fe t0;
    fe_add(r->X, p->Y, p->X);
    fe_sub(r->Y, p->Y, p->X);
    fe_mul(r->Z, r->X, q->yplusx);
    fe_mul(r->Y, r->Y, q->yminusx);
    fe_mul(r->T, q->xy2d, p->T);
    fe_add(t0, p->Z, p->Z);
    fe_sub(r->X, r->Z, r->Y);
    fe_add(r->Y, r->Z, r->Y);
    fe_add(r->Z, t0, r->T);
    fe_sub(r->T, t0, r->T);
}

/* r = p + q (sub: p - q), q cached */
static void ge_add_cached(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q, int sub)
{
    fe t0;
    fe_add(r->X, p->Y, p->X);
    fe_sub(r->Y, p->Y, p->X);
    fe_mul(r->Z, r->X, sub ? q->YminusX : q->YplusX);
    fe_mul(r->Y, r->Y, sub ? q->YplusX : q->YminusX);
    fe_mul(r->T, q->T2d, p->T);
    fe_mul(r->X, p->Z, q->Z);
    fe_add(t0, r->X, r->X);
    fe_sub(r->X, r->Z, r->Y);
    fe_add(r->Y, r->Z, r->Y);
    if (sub) {
        fe_sub(r->Z, t0, r->T);
        fe_add(r->T, t0, r->T);
    } else {
        fe_add(r->Z, t0, r->T);
        fe_sub(r->T, t0, r->T);
    }
}

static void p3_to_cached(ge_cached *r, const ge_p3 *p)
{
    fe_add(r->YplusX, p->Y, p->X);
    fe_sub(r->YminusX, p->Y, p->X);
    fe_copy(r->Z, p->Z);
    fe_mul(r->T2d, p->T, FE_D2);
}

static void p3_encode(uint8_t *s, const ge_p3 *p)
{
    fe zi, x, y;
    fe_invert(zi, p->Z);
    fe_mul(x, p->X, zi);
    fe_mul(y, p->Y, zi);
    fe_store(s, y);
    s[31] ^= (uint8_t)(fe_parity(x) << 7);
}

/* RFC 8032 section 5.1.3 (public data: may return early). -1 when s is no point's canonical encoding */
static int p3_decode(ge_p3 *r, const uint8_t *s)
{
    fe u, v, v3, vx2, t;
    uint8_t canon[32];
    int i, sign = s[31] >> 7;
    fe_load(r->Y, s);
    r->Y[7] &= 0x7fffffff;
    fe_store(canon, r->Y);                       /* y >= p: decoding fails (step 1) */
    for (i = 0; i < 31; i++)
        if (canon[i] != s[i])
            return -1;
    if (canon[31] != (s[31] & 0x7f))
        return -1;
    fe_set(r->Z, 1);
    fe_sqr(u, r->Y);
    fe_mul(v, u, FE_D);
    fe_sub(u, u, r->Z);                          /* u = y^2 - 1 */
    fe_add(v, v, r->Z);                          /* v = d y^2 + 1 */
    fe_sqr(v3, v);
    fe_mul(v3, v3, v);                           /* v^3 */
    fe_sqr(t, v3);
    fe_mul(t, t, v);
    fe_mul(t, t, u);                             /* u v^7 */
    fe_pow22523(t, t);
    fe_mul(t, t, v3);
    fe_mul(r->X, t, u);                          /* x = u v^3 (u v^7)^((p-5)/8) */
    fe_sqr(vx2, r->X);
    fe_mul(vx2, vx2, v);
    fe_sub(t, vx2, u);
    if (!fe_is_zero(t)) {
        fe_add(t, vx2, u);
        if (!fe_is_zero(t))
            return -1;                           /* no square root: not a point */
        fe_mul(r->X, r->X, FE_SQRTM1);
    }
    if (fe_is_zero(r->X) && sign)
        return -1;                               /* x = 0 with the sign bit set (step 4) */
    if (fe_parity(r->X) != (uint32_t)sign)
        fe_neg(r->X, r->X);
    fe_mul(r->T, r->X, r->Y);
    return 0;
}

/* ---- scalars ---------------------------------------------------------------------------------- */

/* 64 signed radix-16 digits e[i] in [-8, 8] of a 256-bit a < 2^255: a = sum e[i] 16^i (constant time) */
static void radix16(int8_t *e, const uint8_t *a)
{
    int i;
    int8_t carry = 0;
    for (i = 0; i < 32; i++) {
        e[2 * i] = (int8_t)(a[i] & 15);
        e[2 * i + 1] = (int8_t)(a[i] >> 4);
    }
    for (i = 0; i < 63; i++) {
        e[i] = (int8_t)(e[i] + carry);
        carry = (int8_t)((e[i] + 8) >> 4);
        e[i] = (int8_t)(e[i] - carry * 16);
    }
    e[63] = (int8_t)(e[63] + carry);
}

/* t = e * 256^row * B from the flash table: every entry of the row read, the wanted one kept by masks */
static void select_base(ge_precomp *t, int row, int8_t e)
{
    uint8_t neg = (uint8_t)e >> 7;
    uint8_t mag = (uint8_t)(e - ((0 - neg) & (2 * e)));       /* |e| */
    ge_precomp entry;
    fe tmp;
    int j;
    fe_set(t->yplusx, 1);
    fe_set(t->yminusx, 1);
    fe_set(t->xy2d, 0);
    for (j = 0; j < 8; j++) {
        uint32_t diff = (uint32_t)(mag ^ (uint8_t)(j + 1));
        uint32_t mask = (diff - 1) >> 31;
        mask = 0u - mask;
#if defined(__AVR__)
        memcpy_P(&entry, BASE_TABLE[row][j], sizeof entry);
#else
        fe_copy(entry.yplusx, BASE_TABLE[row][j][0]);
        fe_copy(entry.yminusx, BASE_TABLE[row][j][1]);
        fe_copy(entry.xy2d, BASE_TABLE[row][j][2]);
#endif
        fe_cmov(t->yplusx, entry.yplusx, mask);
        fe_cmov(t->yminusx, entry.yminusx, mask);
        fe_cmov(t->xy2d, entry.xy2d, mask);
    }
    /* -e: swap y + x and y - x, negate 2dxy */
    fe_copy(tmp, t->yplusx);
    fe_cmov(t->yplusx, t->yminusx, 0u - (uint32_t)neg);
    fe_cmov(t->yminusx, tmp, 0u - (uint32_t)neg);
    fe_neg(tmp, t->xy2d);
    fe_cmov(t->xy2d, tmp, 0u - (uint32_t)neg);
}

/* r = [a]B, a < 2^255 (32 bytes little-endian), constant time in a */
static void scalarmult_base(ge_p3 *r, const uint8_t *a)
{
    int8_t e[64];
    ge_precomp t;
    ge_p1p1 s;
    int i;
    radix16(e, a);
    p3_identity(r);
    for (i = 1; i < 64; i += 2) {
        select_base(&t, i / 2, e[i]);
        ge_madd(&s, r, &t);
        p1p1_to_p3(r, &s);
    }
    for (i = 0; i < 3; i++) {
        ge_dbl(&s, r);
        p1p1_to_p2(r, &s);
    }
    ge_dbl(&s, r);
    p1p1_to_p3(r, &s);
    for (i = 0; i < 64; i += 2) {
        select_base(&t, i / 2, e[i]);
        ge_madd(&s, r, &t);
        p1p1_to_p3(r, &s);
    }
    for (i = 0; i < 64; i++)
        e[i] = 0;
}

/* scalars as 16-bit limbs */
#define SC_LIMBS 16
static const uint16_t SC_L[17] = {0xd3ed, 0x5cf5, 0x631a, 0x5812, 0x9cd6, 0xa2f7, 0xf9de, 0x14de,
                                  0, 0, 0, 0, 0, 0, 0, 0x1000, 0};
/* floor(2^512 / L), 17 limbs (Barrett's mu) */
static const uint16_t SC_MU[17] = {0x131b, 0x0a2c, 0xe5a3, 0xed9c, 0x29a7, 0x0863, 0x215d, 0x2106,
                                   0xffeb, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0x000f};

/* r[0 .. na+nb) = a * b (row by row; each 16 x 16 -> 32-bit product plus two 16-bit values fits) */
static void mp_mul(uint16_t *r, const uint16_t *a, int na, const uint16_t *b, int nb)
{
    int i, j;
    for (i = 0; i < na + nb; i++)
        r[i] = 0;
    for (i = 0; i < na; i++) {
        uint32_t carry = 0;
        for (j = 0; j < nb; j++) {
            uint32_t t = (uint32_t)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint16_t)t;
            carry = t >> 16;
        }
        r[i + nb] = (uint16_t)carry;
    }
}

/* r = x mod L for x of 32 limbs (512 bits), Barrett (HAC 14.42, b = 2^16, k = 16), constant time */
static void sc_reduce(uint16_t *r, const uint16_t *x)
{
    uint16_t q2[34], q3l[34], rr[17], t[17];
    uint32_t br;
    int i, pass;
    mp_mul(q2, x + 15, 17, SC_MU, 17);          /* q1 = x / b^15; q2 = q1 mu */
    mp_mul(q3l, q2 + 17, 17, SC_L, 17);         /* q3 = q2 / b^17; q3 L */
    br = 0;                                     /* r = x mod b^17 - q3 L mod b^17 (in [0, 3L)) */
    for (i = 0; i < 17; i++) {
        uint32_t d = (uint32_t)x[i] - q3l[i] - br;
        rr[i] = (uint16_t)d;
        br = (d >> 16) & 1;
    }
    for (pass = 0; pass < 2; pass++) {          /* r -= L while r >= L, masks only */
        uint16_t keep;
        br = 0;
        for (i = 0; i < 17; i++) {
            uint32_t d = (uint32_t)rr[i] - SC_L[i] - br;
            t[i] = (uint16_t)d;
            br = (d >> 16) & 1;
        }
        keep = (uint16_t)(0u - br);             /* borrow: r < L, keep r */
        for (i = 0; i < 17; i++)
            rr[i] = (uint16_t)((rr[i] & keep) | (t[i] & ~keep));
    }
    for (i = 0; i < SC_LIMBS; i++)
        r[i] = rr[i];
}

static void sc_load(uint16_t *r, const uint8_t *s, int n)
{
    int i;
    for (i = 0; i < n; i++)
        r[i] = (uint16_t)(s[2 * i] | (uint16_t)s[2 * i + 1] << 8);
}

static void sc_store(uint8_t *s, const uint16_t *a)
{
    int i;
    for (i = 0; i < SC_LIMBS; i++) {
        s[2 * i] = (uint8_t)a[i];
        s[2 * i + 1] = (uint8_t)(a[i] >> 8);
    }
}

/* out = h mod L, h a 64-byte little-endian hash */
static void sc_from_hash(uint8_t *out, const uint8_t *h)
{
    uint16_t x[32], r[SC_LIMBS];
    sc_load(x, h, 32);
    sc_reduce(r, x);
    sc_store(out, r);
}

/* s = (r + k a) mod L: all 32-byte little-endian, k and r < L, a < 2^255 */
static void sc_muladd(uint8_t *s, const uint8_t *k, const uint8_t *a, const uint8_t *r)
{
    uint16_t kk[SC_LIMBS], aa[SC_LIMBS], x[32], out[SC_LIMBS];
    uint32_t c = 0;
    int i;
    sc_load(kk, k, SC_LIMBS);
    sc_load(aa, a, SC_LIMBS);
    mp_mul(x, kk, SC_LIMBS, aa, SC_LIMBS);
    sc_load(aa, r, SC_LIMBS);
    for (i = 0; i < 32; i++) {
        c += (uint32_t)x[i] + (i < SC_LIMBS ? aa[i] : 0u);
        x[i] = (uint16_t)c;
        c >>= 16;
    }
    sc_reduce(out, x);
    sc_store(s, out);
    for (i = 0; i < 32; i++)
        x[i] = 0;
    for (i = 0; i < SC_LIMBS; i++)
        kk[i] = aa[i] = 0;
}

/* ---- the API ------------------------------------------------------------------------------------ */

/* h = SHA-512(a || b || c) (any part may be empty) */
static void sha512_3(uint8_t *h, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                     const uint8_t *c, size_t clen)
{
    uint64_t ctx[25];                            /* 200 bytes, 8-byte aligned */
    MCU_FN(sha512, init)((uint8_t *)ctx);
    MCU_FN(sha512, update)((uint8_t *)ctx, a, alen);
    MCU_FN(sha512, update)((uint8_t *)ctx, b, blen);
    MCU_FN(sha512, update)((uint8_t *)ctx, c, clen);
    MCU_FN(sha512, final)((uint8_t *)ctx, h);    /* final wipes the context */
}

static void expand_seed(uint8_t *h, const uint8_t *seed)
{
    sha512_3(h, seed, 32, 0, 0, 0, 0);
    h[0] &= 248;                                 /* the clamped scalar a in h[0 .. 31], the prefix after */
    h[31] &= 127;
    h[31] |= 64;
}

int MCU_FN(ed25519, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed)
{
    uint8_t h[64];
    ge_p3 A;
    int i;
    expand_seed(h, seed);
    scalarmult_base(&A, h);
    p3_encode(pk, &A);
    for (i = 0; i < 32; i++) {
        sk[i] = seed[i];
        sk[32 + i] = pk[i];
    }
    mcu_wipe(h, sizeof h);
    mcu_wipe(&A, sizeof A);
    return 0;
}

int MCU_FN(ed25519, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk)
{
    uint8_t h[64], r[64], k[64];
    ge_p3 R;
    expand_seed(h, sk);
    sha512_3(r, h + 32, 32, msg, msglen, 0, 0);  /* r = SHA-512(prefix || M) mod L */
    sc_from_hash(r, r);
    scalarmult_base(&R, r);
    p3_encode(sig, &R);
    sha512_3(k, sig, 32, sk + 32, 32, msg, msglen);   /* k = SHA-512(R || A || M) mod L */
    sc_from_hash(k, k);
    sc_muladd(sig + 32, k, h, r);                /* S = r + k a mod L */
    mcu_wipe(h, sizeof h);
    mcu_wipe(r, sizeof r);
    mcu_wipe(&R, sizeof R);
    return 0;
}

/* whether s (32 bytes little-endian) < L (public: may return early) */
static int sc_is_canonical(const uint8_t *s)
{
    int i;
    for (i = 31; i >= 0; i--) {
        uint8_t l = (uint8_t)(SC_L[i / 2] >> (8 * (i & 1)));
        if (s[i] < l)
            return 1;
        if (s[i] > l)
            return 0;
    }
    return 0;
}

int MCU_FN(ed25519, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,
                            const uint8_t *pk)
{
    ge_p3 A, P, Q;
    ge_p1p1 t;
    ge_cached multiples[8];
    uint8_t k[64], check[32];
    int8_t e[64];
    int i;
    if (siglen != 64 || !sc_is_canonical(sig + 32) || p3_decode(&A, pk) != 0)
        return -1;
    /* [8]A = identity (X = 0): A has small order, refused */
    ge_dbl(&t, &A);
    p1p1_to_p2(&P, &t);
    ge_dbl(&t, &P);
    p1p1_to_p2(&P, &t);
    ge_dbl(&t, &P);
    p1p1_to_p2(&P, &t);
    if (fe_is_zero(P.X))
        return -1;
    {   /* R must decode (RFC 8032 5.1.7 step 1); the final comparison is of encodings */
        ge_p3 R;
        if (p3_decode(&R, sig) != 0)
            return -1;
    }
    sha512_3(k, sig, 32, pk, 32, msg, msglen);
    sc_from_hash(k, k);
    /* Q = [k]A by 64 signed radix-16 digits, multiples 1..8 of A indexed directly (public) */
    p3_to_cached(&multiples[0], &A);
    ge_dbl(&t, &A);
    p1p1_to_p3(&P, &t);
    p3_to_cached(&multiples[1], &P);
    for (i = 2; i < 8; i++) {
        ge_add_cached(&t, &P, &multiples[0], 0);
        p1p1_to_p3(&P, &t);
        p3_to_cached(&multiples[i], &P);
    }
    radix16(e, k);
    p3_identity(&Q);
    for (i = 63; i >= 0; i--) {
        if (i != 63) {
            int d;
            for (d = 0; d < 3; d++) {
                ge_dbl(&t, &Q);
                p1p1_to_p2(&Q, &t);
            }
            ge_dbl(&t, &Q);
            p1p1_to_p3(&Q, &t);
        }
        if (e[i] != 0) {
            int neg = e[i] < 0;
            ge_add_cached(&t, &Q, &multiples[(neg ? -e[i] : e[i]) - 1], neg);
            p1p1_to_p3(&Q, &t);
        }
    }
    /* P = [S]B - Q; its encoding must be R's 32 bytes */
    scalarmult_base(&P, sig + 32);
    p3_to_cached(&multiples[0], &Q);
    ge_add_cached(&t, &P, &multiples[0], 1);
    p1p1_to_p3(&P, &t);
    p3_encode(check, &P);
    for (i = 0; i < 32; i++)
        if (check[i] != sig[i])
            return -1;
    return 0;
}
