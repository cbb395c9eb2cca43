// SPDX-License-Identifier: MIT
/* ECDSA and ECDH on NIST P-256 in portable C99, over the project's 256-bit multiplication
 * (MCU_FN(mpmul256, mul): crypto/mpmul's kernel of the core, linked by path from META.yml).
 *
 * Field GF(p), p = 2^256 - 2^224 + 2^192 + 2^96 - 1: 8 little-endian 32-bit limbs, any value < 2^256
 * congruent mod p ("partially reduced"); only fe_freeze makes a value canonical. A product is the
 * 512-bit mpmul result reduced by Solinas' method (FIPS 186-4 D.2.3: T + 2 S1 + 2 S2 + S3 + S4 - D1 - D2
 * - D3 - D4 of the product's 32-bit words), summed on 16-bit columns in 32-bit accumulators: no
 * multiplication at all, and no carry ever tested. A column sum is kept non-negative by a bias (2^20,
 * removed from the next column as 16 units), so every carry is a logical shift: signed shifts, 64-bit
 * sums and comparisons, which avr-gcc turns into branches or skips, never touch a secret. The carry
 * out of 2^256 is folded back twice as c (2^224 - 2^192 - 2^96 + 1) = c 2^256 mod p; two folds
 * suffice for |c| <= 6 (the second cannot carry again).
 *
 * Group: projective coordinates with the complete formulas of Renes, Costello and Batina (2016,
 * algorithms 4 and 6 for a = -3): one formula for every input, the identity (0 : 1 : 0) and P + P
 * included, so the constant-time scalar multiplication has no exceptional case to branch on. Scalar
 * multiplication by a secret (keygen, sign, ecdh): fixed windows of 3 bits from the top (86 windows:
 * 3 doublings and one addition each), the window's multiple of the point read from a table of 1P..7P
 * by a masked scan of every entry (the identity for a zero window). Verification (public data only) is
 * Shamir's trick, variable time.
 *
 * Scalars mod n: Montgomery multiplication on three 256-bit products (t = a b, m = (t mod 2^256) n'
 * mod 2^256, (t + m n) / 2^256), the inversion k^(n-2) by Fermat (constant time: the exponent is public). */
#include <stdint.h>

#include "mcucrypt/declassify.h"
#include "mcucrypt/ns.h"
#include "mcucrypt/wipe.h"
#include "p256.h"

/* The comb table lives in flash: on AVR it is read with LPM (pgm_read_dword), not copied to the SRAM. */
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define P256_ROM PROGMEM
#define ROM_WORD(p) pgm_read_dword(p)
#else
#define P256_ROM
#define ROM_WORD(p) (*(p))
#endif
#include "p256_comb.h"

void MCU_FN(mpmul256, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
int MCU_FN(sha256, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen);
void MCU_FN(hmacsha256, mac_init)(uint8_t *ctx, const uint8_t *key, size_t keylen);
void MCU_FN(hmacsha256, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen);
void MCU_FN(hmacsha256, mac_final)(uint8_t *ctx, uint8_t *out);

#define MPMUL256 MCU_FN(mpmul256, mul)
#define HMAC_CTX_WORDS 34          /* crypto/sha2's hmacsha256 ctx_bytes: 136 */

typedef uint32_t fe[8];
typedef struct {
    fe x, y, z;
} point;

static const uint32_t P256_P[8] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0x00000000u,
                                   0x00000000u, 0x00000000u, 0x00000001u, 0xffffffffu};
static const uint32_t P256_N[8] = {0xfc632551u, 0xf3b9cac2u, 0xa7179e84u, 0xbce6faadu,
                                   0xffffffffu, 0xffffffffu, 0x00000000u, 0xffffffffu};
static const uint32_t P256_B[8] = {0x27d2604bu, 0x3bce3c3eu, 0xcc53b0f6u, 0x651d06b0u,
                                   0x769886bcu, 0xb3ebbd55u, 0xaa3a93e7u, 0x5ac635d8u};
/* -n^-1 mod 2^256 and 2^512 mod n, for the Montgomery arithmetic mod n */
static const uint32_t P256_N_NPRIME[8] = {0xee00bc4fu, 0xccd1c8aau, 0x7d74d2e4u, 0x48c94408u,
                                          0xc588c6f6u, 0x50fe77ecu, 0xa9d6281cu, 0x60d06633u};
/* 2^256 - n: adding it subtracts n mod 2^256 */
static const uint32_t P256_N_NEG[8] = {0x039cdaafu, 0x0c46353du, 0x58e8617bu, 0x43190552u,
                                       0x00000000u, 0x00000000u, 0xffffffffu, 0x00000000u};
static const uint32_t P256_N_R2[8] = {0xbe79eea2u, 0x83244c95u, 0x49bd6fa6u, 0x4699799cu,
                                      0x2b6bec59u, 0x2845b239u, 0xf3d95620u, 0x66e12d94u};

/* the top bit of x (0 or 1). avr-gcc turns a 32-bit x >> 31 into a skip on the sign bit (SBRC), a
 * branch on a secret for the checker: on AVR the top byte's bit 7 goes through the carry instead. */
static inline uint32_t top_bit(uint32_t x)
{
#if defined(__AVR__)
    uint8_t h = (uint8_t)(x >> 24);
    __asm__("lsl %0\n\tclr %0\n\trol %0" : "+r"(h));   /* C = bit 7; h = 0 (C kept); h = C */
    return h;
#else
    return x >> 31;
#endif
}

/* byte copies and fills (no libc on the boards) */
static void copy_bytes(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    while (n--) {
        *d++ = *s++;
    }
}

static void fill_bytes(void *dst, uint8_t v, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    while (n--) {
        *d++ = v;
    }
}

/* ---- the field ----------------------------------------------------------------------------------- */

#if !defined(__AVR__)
/* 32-bit cores and the host: signed 64-bit accumulators over 32-bit words. Additions, subtractions and
 * arithmetic shifts only: branch-free on the E31, the M3 and x86 (no 64-bit product: UMULL would be
 * variable time on the M3). */

/* r (the low 256 bits) plus c 2^256, c small and signed, folded twice as c (2^224 - 2^192 - 2^96 + 1) */
static void fe_fold(fe r, int64_t c)
{
    for (uint8_t k = 0; k < 2; k++) {
        int64_t acc = (int64_t)r[0] + c;
        r[0] = (uint32_t)acc;
        acc = (acc >> 32) + r[1];
        r[1] = (uint32_t)acc;
        acc = (acc >> 32) + r[2];
        r[2] = (uint32_t)acc;
        acc = (acc >> 32) + r[3] - c;
        r[3] = (uint32_t)acc;
        acc = (acc >> 32) + r[4];
        r[4] = (uint32_t)acc;
        acc = (acc >> 32) + r[5];
        r[5] = (uint32_t)acc;
        acc = (acc >> 32) + r[6] - c;
        r[6] = (uint32_t)acc;
        acc = (acc >> 32) + r[7] + c;
        r[7] = (uint32_t)acc;
        c = acc >> 32;
    }
}

/* Solinas (FIPS 186-4 D.2.3): T + 2 S1 + 2 S2 + S3 + S4 - D1 - D2 - D3 - D4, word by word */
static void fe_reduce(fe r, const uint32_t t[16])
{
#define A(k) ((int64_t)t[k])
    int64_t acc;
    acc = A(0) + A(8) + A(9) - A(11) - A(12) - A(13) - A(14);
    r[0] = (uint32_t)acc;
    acc = (acc >> 32) + A(1) + A(9) + A(10) - A(12) - A(13) - A(14) - A(15);
    r[1] = (uint32_t)acc;
    acc = (acc >> 32) + A(2) + A(10) + A(11) - A(13) - A(14) - A(15);
    r[2] = (uint32_t)acc;
    acc = (acc >> 32) + A(3) + A(11) + A(11) + A(12) + A(12) + A(13) - A(15) - A(8) - A(9);
    r[3] = (uint32_t)acc;
    acc = (acc >> 32) + A(4) + A(12) + A(12) + A(13) + A(13) + A(14) - A(9) - A(10);
    r[4] = (uint32_t)acc;
    acc = (acc >> 32) + A(5) + A(13) + A(13) + A(14) + A(14) + A(15) - A(10) - A(11);
    r[5] = (uint32_t)acc;
    acc = (acc >> 32) + A(6) + A(14) + A(14) + A(14) + A(15) + A(15) + A(13) - A(8) - A(9);
    r[6] = (uint32_t)acc;
    acc = (acc >> 32) + A(7) + A(15) + A(15) + A(15) + A(8) - A(10) - A(11) - A(12) - A(13);
    r[7] = (uint32_t)acc;
#undef A
    fe_fold(r, acc >> 32);
}

/* Not inlined: where a caller doubles (fe_add(r, x, x)), gcc folds acc + 2 x[i] into UMLAL by the
 * constant 2, whose time on the M3 depends on the secret x[i] (the checker's finding in point_double and
 * point_add_mixed); a call sees two pointers and adds. */
static __attribute__((noinline)) void fe_add(fe r, const fe a, const fe b)
{
    int64_t acc = 0;
    for (uint8_t i = 0; i < 8; i++) {
        acc += (int64_t)a[i] + b[i];
        r[i] = (uint32_t)acc;
        acc >>= 32;
    }
    fe_fold(r, acc);
}

static __attribute__((noinline)) void fe_sub(fe r, const fe a, const fe b)     /* as fe_add */
{
    int64_t acc = 0;
    for (uint8_t i = 0; i < 8; i++) {
        acc += (int64_t)a[i] - b[i];
        r[i] = (uint32_t)acc;
        acc >>= 32;
    }
    fe_fold(r, acc);
}

#else
/* AVR: 16-bit columns in 32-bit accumulators: avr-gcc's 64-bit arithmetic may branch. */

/* ---- 16-bit columns ---------------------------------------------------------------------------- */

#define HALF(a, j) (((j) & 1) ? ((a)[(j) >> 1] >> 16) : ((a)[(j) >> 1] & 0xffffu))
#define COL_BIAS 0x100000u         /* 2^20: a column sum plus the bias is never negative */
#define COL_BIAS_CARRY 16u         /* the bias seen from the next column */

/* h = col propagated (16-bit digits); returns the signed carry out of 2^256. Each |col[j]| < 2^19. */
static int32_t cols_propagate(uint16_t h[16], const int32_t col[16])
{
    uint32_t carry = COL_BIAS_CARRY;
    for (uint8_t j = 0; j < 16; j++) {
        uint32_t acc = (uint32_t)col[j] + (COL_BIAS - COL_BIAS_CARRY) + carry;
        h[j] = (uint16_t)acc;
        carry = acc >> 16;
    }
    return (int32_t)carry - (int32_t)COL_BIAS_CARRY;
}

/* r = the columns' value mod p, below 2^256: the carry c out of 2^256 folded twice as c (2^224 - 2^192 -
 * 2^96 + 1), at 16-bit columns 14, 12, 6 and 0. */
static void fe_from_cols(fe r, int32_t col[16])
{
    uint16_t h[16];
    int32_t c = cols_propagate(h, col);
    for (uint8_t fold = 0; fold < 2; fold++) {
        for (uint8_t j = 0; j < 16; j++) {
            col[j] = h[j];
        }
        col[0] += c;
        col[6] -= c;
        col[12] -= c;
        col[14] += c;
        c = cols_propagate(h, col);
    }
    for (uint8_t i = 0; i < 8; i++) {
        r[i] = (uint32_t)h[2 * i] | ((uint32_t)h[2 * i + 1] << 16);
    }
}

/* Solinas' terms per output word i (FIPS 186-4 D.2.3), beside T's word i: the index of a product word
 * 8..15 to add (positive) or subtract (negative); 0 ends the list. */
static const int8_t SOLINAS[8][9] = {
    {8, 9, -11, -12, -13, -14, 0},
    {9, 10, -12, -13, -14, -15, 0},
    {10, 11, -13, -14, -15, 0},
    {11, 11, 12, 12, 13, -15, -8, -9, 0},
    {12, 12, 13, 13, 14, -9, -10, 0},
    {13, 13, 14, 14, 15, -10, -11, 0},
    {14, 14, 14, 15, 15, 13, -8, -9, 0},
    {15, 15, 15, 8, -10, -11, -12, -13, 0},
};

static void fe_reduce(fe r, const uint32_t t[16])
{
    int32_t col[16];
    uint16_t h[32];                 /* the product's 16-bit digits, read as bytes: no variable shifts */
    const uint8_t *tb = (const uint8_t *)(const void *)t;
    for (uint8_t j = 0; j < 32; j++) {
        h[j] = (uint16_t)(tb[2 * j] | ((uint16_t)tb[2 * j + 1] << 8));
    }
    for (uint8_t i = 0; i < 8; i++) {
        for (uint8_t half = 0; half < 2; half++) {
            int32_t acc = h[2 * i + half];
            for (uint8_t j = 0; j < 9 && SOLINAS[i][j] != 0; j++) {   /* public: the table */
                int8_t k = SOLINAS[i][j];
                int32_t v = h[2 * (k < 0 ? -k : k) + half];
                acc += k > 0 ? v : -v;
            }
            col[2 * i + half] = acc;
        }
    }
    fe_from_cols(r, col);
}

static void fe_add(fe r, const fe a, const fe b)
{
    int32_t col[16];
    for (uint8_t j = 0; j < 16; j++) {
        col[j] = (int32_t)HALF(a, j) + (int32_t)HALF(b, j);
    }
    fe_from_cols(r, col);
}

static void fe_sub(fe r, const fe a, const fe b)
{
    int32_t col[16];
    for (uint8_t j = 0; j < 16; j++) {
        col[j] = (int32_t)HALF(a, j) - (int32_t)HALF(b, j);
    }
    fe_from_cols(r, col);
}

#endif

void MCU_FN(p256, fe_mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[16];
    MPMUL256(t, a, b);
    fe_reduce(r, t);
}

#define fe_mul MCU_FN(p256, fe_mul)

static void fe_sqr(fe r, const fe a)
{
    fe_mul(r, a, a);
}

/* r = a - m if a >= m else a, for a < 2^256, in constant time; returns 1 if a >= m */
static uint32_t sub_if_ge(uint32_t r[8], const uint32_t a[8], const uint32_t m[8])
{
    uint32_t d[8], borrow = 0;
    for (uint8_t i = 0; i < 8; i++) {
        uint32_t lo = (a[i] & 0xffffu) - (m[i] & 0xffffu) - borrow;
        uint32_t hi = (a[i] >> 16) - (m[i] >> 16) - top_bit(lo);
        d[i] = (lo & 0xffffu) | (hi << 16);
        borrow = top_bit(hi);
    }
    uint32_t keep_d = 0u - (borrow ^ 1u);
    for (uint8_t i = 0; i < 8; i++) {
        r[i] = (d[i] & keep_d) | (a[i] & ~keep_d);
    }
    return borrow ^ 1u;
}

/* r = a + b + carry (8 limbs, carry 0 or 1); returns the carry out */
static uint32_t add8(uint32_t r[8], const uint32_t a[8], const uint32_t b[8], uint32_t carry)
{
    for (uint8_t i = 0; i < 8; i++) {
        uint32_t lo = (a[i] & 0xffffu) + (b[i] & 0xffffu) + carry;
        uint32_t hi = (a[i] >> 16) + (b[i] >> 16) + (lo >> 16);
        r[i] = (lo & 0xffffu) | (hi << 16);
        carry = hi >> 16;
    }
    return carry;
}

/* canonical: < p (a < 2^256 < 2p: one subtraction) */
static void fe_freeze(fe r, const fe a)
{
    (void)sub_if_ge(r, a, P256_P);
}

/* r = a^e for a public exponent e (8 limbs), square-and-multiply from the top bit */
static void fe_pow(fe r, const fe a, const uint32_t e[8])
{
    fe x;
    fill_bytes(x, 0, sizeof x);
    x[0] = 1;
    for (int16_t i = 255; i >= 0; i--) {
        fe_sqr(x, x);
        if ((e[i >> 5] >> (i & 31)) & 1) {   /* public exponent bit */
            fe_mul(x, x, a);
        }
    }
    copy_bytes(r, x, sizeof x);
}

static const uint32_t P256_P_MINUS_2[8] = {0xfffffffdu, 0xffffffffu, 0xffffffffu, 0x00000000u,
                                           0x00000000u, 0x00000000u, 0x00000001u, 0xffffffffu};
static const uint32_t P256_P_PLUS_1_DIV_4[8] = {0x00000000u, 0x00000000u, 0x40000000u, 0x00000000u,
                                                0x00000000u, 0x40000000u, 0xc0000000u, 0x3fffffffu};

static void fe_invert(fe r, const fe a)
{
    fe_pow(r, a, P256_P_MINUS_2);
}

/* 0xffffffff if a = 0 mod p, else 0 (constant time) */
static uint32_t fe_is_zero(const fe a)
{
    fe c;
    uint32_t acc = 0;
    fe_freeze(c, a);
    for (uint8_t i = 0; i < 8; i++) {
        acc |= c[i];
    }
    return top_bit(acc | (0u - acc)) - 1u;
}

static void fe_from_be(fe r, const uint8_t *in)
{
    for (uint8_t i = 0; i < 8; i++) {
        const uint8_t *p = in + 28 - 4 * i;
        r[i] = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    }
}

static void fe_to_be(uint8_t *out, const fe a)
{
    for (uint8_t i = 0; i < 8; i++) {
        uint8_t *p = out + 28 - 4 * i;
        p[0] = (uint8_t)(a[i] >> 24);
        p[1] = (uint8_t)(a[i] >> 16);
        p[2] = (uint8_t)(a[i] >> 8);
        p[3] = (uint8_t)a[i];
    }
}

/* 1 if a < m (a, m < 2^256; constant time) */
static uint32_t lt(const uint32_t a[8], const uint32_t m[8])
{
    uint32_t t[8];
    return sub_if_ge(t, a, m) ^ 1u;
}

/* ---- the group (Renes-Costello-Batina complete formulas, a = -3) ------------------------------- */

/* r = p + q, algorithm 4 (12 M + 2 m_b + 29 a); r may alias p or q */
static void point_add(point *r, const point *p, const point *q)
{
    fe t0, t1, t2, t3, t4, x3, y3, z3;
    fe_mul(t0, p->x, q->x);
    fe_mul(t1, p->y, q->y);
    fe_mul(t2, p->z, q->z);
    fe_add(t3, p->x, p->y);
    fe_add(t4, q->x, q->y);
    fe_mul(t3, t3, t4);
    fe_add(t4, t0, t1);
    fe_sub(t3, t3, t4);
    fe_add(t4, p->y, p->z);
    fe_add(x3, q->y, q->z);
    fe_mul(t4, t4, x3);
    fe_add(x3, t1, t2);
    fe_sub(t4, t4, x3);
    fe_add(x3, p->x, p->z);
    fe_add(y3, q->x, q->z);
    fe_mul(x3, x3, y3);
    fe_add(y3, t0, t2);
    fe_sub(y3, x3, y3);
    fe_mul(z3, P256_B, t2);
    fe_sub(x3, y3, z3);
    fe_add(z3, x3, x3);
    fe_add(x3, x3, z3);
    fe_sub(z3, t1, x3);
    fe_add(x3, t1, x3);
    fe_mul(y3, P256_B, y3);
    fe_add(t1, t2, t2);
    fe_add(t2, t1, t2);
    fe_sub(y3, y3, t2);
    fe_sub(y3, y3, t0);
    fe_add(t1, y3, y3);
    fe_add(y3, t1, y3);
    fe_add(t1, t0, t0);
    fe_add(t0, t1, t0);
    fe_sub(t0, t0, t2);
    fe_mul(t1, t4, y3);
    fe_mul(t2, t0, y3);
    fe_mul(y3, x3, z3);
    fe_add(y3, y3, t2);
    fe_mul(x3, t3, x3);
    fe_sub(x3, x3, t1);
    fe_mul(z3, t4, z3);
    fe_mul(t1, t3, t0);
    fe_add(z3, z3, t1);
    copy_bytes(r->x, x3, sizeof x3);
    copy_bytes(r->y, y3, sizeof y3);
    copy_bytes(r->z, z3, sizeof z3);
}

/* r = 2 p, algorithm 6 (8 M + 3 S + 2 m_b + 21 a); r may alias p */
static void point_double(point *r, const point *p)
{
    fe t0, t1, t2, t3, x3, y3, z3;
    fe_sqr(t0, p->x);
    fe_sqr(t1, p->y);
    fe_sqr(t2, p->z);
    fe_mul(t3, p->x, p->y);
    fe_add(t3, t3, t3);
    fe_mul(z3, p->x, p->z);
    fe_add(z3, z3, z3);
    fe_mul(y3, P256_B, t2);
    fe_sub(y3, y3, z3);
    fe_add(x3, y3, y3);
    fe_add(y3, x3, y3);
    fe_sub(x3, t1, y3);
    fe_add(y3, t1, y3);
    fe_mul(y3, x3, y3);
    fe_mul(x3, x3, t3);
    fe_add(t3, t2, t2);
    fe_add(t2, t2, t3);
    fe_mul(z3, P256_B, z3);
    fe_sub(z3, z3, t2);
    fe_sub(z3, z3, t0);
    fe_add(t3, z3, z3);
    fe_add(z3, z3, t3);
    fe_add(t3, t0, t0);
    fe_add(t0, t3, t0);
    fe_sub(t0, t0, t2);
    fe_mul(t0, t0, z3);
    fe_add(y3, y3, t0);
    fe_mul(t0, p->y, p->z);
    fe_add(t0, t0, t0);
    fe_mul(z3, t0, z3);
    fe_sub(x3, x3, z3);
    fe_mul(z3, t0, t1);
    fe_add(z3, z3, z3);
    fe_add(z3, z3, z3);
    copy_bytes(r->x, x3, sizeof x3);
    copy_bytes(r->y, y3, sizeof y3);
    copy_bytes(r->z, z3, sizeof z3);
}

static void point_set_identity(point *r)
{
    fill_bytes(r, 0, sizeof *r);
    r->y[0] = 1;
}

static void point_from_affine(point *r, const uint32_t xy[16])
{
    copy_bytes(r->x, xy, 32);
    copy_bytes(r->y, xy + 8, 32);
    fill_bytes(r->z, 0, sizeof r->z);
    r->z[0] = 1;
}

/* xy = the canonical affine coordinates of p (p not the identity) */
static void point_to_affine(uint32_t xy[16], const point *p)
{
    fe zinv, t;
    fe_invert(zinv, p->z);
    fe_mul(t, p->x, zinv);
    fe_freeze(xy, t);
    fe_mul(t, p->y, zinv);
    fe_freeze(xy + 8, t);
}

#define WINDOW_BITS 3
#define WINDOW_ENTRIES 7           /* 1P .. 7P; a zero window selects the identity */
#define WINDOWS 86                 /* ceil(256 / 3) */

/* the window value (public position, secret bits) */
static uint32_t window_at(const uint32_t d[8], uint16_t pos)
{
    uint32_t w = 0;
    for (uint8_t b = 0; b < WINDOW_BITS; b++) {
        uint16_t bit = (uint16_t)(pos + b);
        if (bit < 256) {   /* public */
            w |= top_bit(d[bit >> 5] << (31 - (bit & 31))) << b;   /* top_bit: no skip for bit 255 */
        }
    }
    return w;
}

/* r = table[w - 1], or the identity for w = 0: every entry read, selected by a mask */
static void table_select(point *r, const point table[WINDOW_ENTRIES], uint32_t w)
{
    uint32_t *out = (uint32_t *)(void *)r;
    fill_bytes(r, 0, sizeof *r);
    for (uint8_t i = 0; i < WINDOW_ENTRIES; i++) {
        const uint32_t *e = (const uint32_t *)(const void *)&table[i];
        uint32_t diff = (uint32_t)(i + 1) ^ w;
        uint32_t mask = top_bit(diff - 1u) * 0xffffffffu;  /* w < 8: diff - 1 wraps only for diff = 0 */
        for (uint8_t k = 0; k < 24; k++) {
            out[k] |= e[k] & mask;
        }
    }
    r->y[0] |= top_bit(w - 1u);   /* w = 0: (0 : 1 : 0) */
}

void MCU_FN(p256, scalarmult)(uint32_t *r, const uint32_t *d, const uint32_t *xy)
{
    point table[WINDOW_ENTRIES];
    point acc, t;
    point_from_affine(&table[0], xy);
    point_double(&table[1], &table[0]);
    for (uint8_t i = 2; i < WINDOW_ENTRIES; i++) {
        point_add(&table[i], &table[i - 1], &table[0]);
    }
    table_select(&acc, table, window_at(d, (WINDOWS - 1) * WINDOW_BITS));
    for (int8_t w = WINDOWS - 2; w >= 0; w--) {
        for (uint8_t b = 0; b < WINDOW_BITS; b++) {
            point_double(&acc, &acc);
        }
        table_select(&t, table, window_at(d, (uint16_t)(w * WINDOW_BITS)));
        point_add(&acc, &acc, &t);
    }
    point_to_affine(r, &acc);
    mcu_wipe(table, sizeof table);
    mcu_wipe(&acc, sizeof acc);
    mcu_wipe(&t, sizeof t);
}

/* r = p + (x2, y2 : 1), algorithm 5 (mixed, 11 M + 2 m_b): q affine, so never the identity; r may alias p */
static void point_add_mixed(point *r, const point *p, const uint32_t q[16])
{
    fe t0, t1, t2, t3, t4, x3, y3, z3;
    const uint32_t *x2 = q, *y2 = q + 8;
    fe_mul(t0, p->x, x2);
    fe_mul(t1, p->y, y2);
    fe_add(t3, x2, y2);
    fe_add(t4, p->x, p->y);
    fe_mul(t3, t3, t4);
    fe_add(t4, t0, t1);
    fe_sub(t3, t3, t4);
    fe_mul(t4, y2, p->z);
    fe_add(t4, t4, p->y);
    fe_mul(y3, x2, p->z);
    fe_add(y3, y3, p->x);
    fe_mul(z3, P256_B, p->z);
    fe_sub(x3, y3, z3);
    fe_add(z3, x3, x3);
    fe_add(x3, x3, z3);
    fe_sub(z3, t1, x3);
    fe_add(x3, t1, x3);
    fe_mul(y3, P256_B, y3);
    fe_add(t1, p->z, p->z);
    fe_add(t2, t1, p->z);
    fe_sub(y3, y3, t2);
    fe_sub(y3, y3, t0);
    fe_add(t1, y3, y3);
    fe_add(y3, t1, y3);
    fe_add(t1, t0, t0);
    fe_add(t0, t1, t0);
    fe_sub(t0, t0, t2);
    fe_mul(t1, t4, y3);
    fe_mul(t2, t0, y3);
    fe_mul(y3, x3, z3);
    fe_add(y3, y3, t2);
    fe_mul(x3, t3, x3);
    fe_sub(x3, x3, t1);
    fe_mul(z3, t4, z3);
    fe_mul(t1, t3, t0);
    fe_add(z3, z3, t1);
    copy_bytes(r->x, x3, sizeof x3);
    copy_bytes(r->y, y3, sizeof y3);
    copy_bytes(r->z, z3, sizeof z3);
}

#define COMB_TEETH 4
#define COMB_SPACING 64            /* 256 / COMB_TEETH */

/* xy = d G (affine, canonical) by the comb of p256_comb.h, constant time in d: 64 doublings and 64
 * mixed additions; each step reads all 15 entries under masks, and a zero digit (the identity, which
 * has no affine form) keeps the accumulator through a masked select of the sum. */
static void scalarmult_base(uint32_t xy[16], const uint32_t d[8])
{
    point acc, sum;
    uint32_t entry[16];
    point_set_identity(&acc);
    for (int8_t pos = COMB_SPACING - 1; pos >= 0; pos--) {
        uint32_t digit = 0;
        for (uint8_t j = 0; j < COMB_TEETH; j++) {
            uint16_t bit = (uint16_t)(pos + COMB_SPACING * j);
            digit |= top_bit(d[bit >> 5] << (31 - (bit & 31))) << j;
        }
        fill_bytes(entry, 0, sizeof entry);
        for (uint8_t i = 0; i < 15; i++) {
            uint32_t mask = top_bit(((uint32_t)(i + 1) ^ digit) - 1u);
            mask = 0u - mask;
            for (uint8_t k = 0; k < 16; k++) {
                entry[k] |= ROM_WORD(&P256_COMB[i][k]) & mask;
            }
        }
        point_double(&acc, &acc);
        point_add_mixed(&sum, &acc, entry);
        uint32_t keep = top_bit(digit - 1u) * 0xffffffffu;   /* digit = 0: keep acc */
        uint32_t *a = (uint32_t *)(void *)&acc;
        const uint32_t *b = (const uint32_t *)(const void *)&sum;
        for (uint8_t k = 0; k < 24; k++) {
            a[k] = (a[k] & keep) | (b[k] & ~keep);
        }
    }
    point_to_affine(xy, &acc);
    mcu_wipe(&acc, sizeof acc);
    mcu_wipe(&sum, sizeof sum);
    mcu_wipe(entry, sizeof entry);
}

#define NAF_WIDTH 4
#define NAF_ENTRIES 4              /* Q, 3Q, 5Q, 7Q */

#define NAF_DIGITS 257
/* digit i of a packed NAF: 4-bit two's complement nibbles (half the stack of a byte each) */
static int8_t naf_at(const uint8_t *naf, uint16_t i)
{
    uint8_t nib = (uint8_t)((naf[i >> 1] >> (4 * (i & 1))) & 15u);
    return (int8_t)(nib >= 8 ? (int8_t)nib - 16 : (int8_t)nib);
}

/* naf = the width-4 NAF of k (public), digits 0 or odd in -7 .. 7, least significant first, packed */
static void wnaf(uint8_t naf[(NAF_DIGITS + 1) / 2], const uint32_t k[8])
{
    uint32_t v[9];
    copy_bytes(v, k, 32);
    v[8] = 0;
    fill_bytes(naf, 0, (NAF_DIGITS + 1) / 2);
    for (uint16_t i = 0; i < NAF_DIGITS; i++) {
        int8_t digit = 0;
        if (v[0] & 1u) {
            digit = (int8_t)(v[0] & 15u);
            if (digit >= 8) {
                digit = (int8_t)(digit - 16);
            }
            int64_t acc = (int64_t)v[0] - digit;   /* v -= digit over 9 words (public data) */
            v[0] = (uint32_t)acc;
            acc >>= 32;
            for (uint8_t w = 1; w < 9; w++) {
                acc += v[w];
                v[w] = (uint32_t)acc;
                acc >>= 32;
            }
        }
        naf[i >> 1] |= (uint8_t)(((uint8_t)digit & 15u) << (4 * (i & 1)));
        for (uint8_t w = 0; w < 8; w++) {
            v[w] = (v[w] >> 1) | (v[w + 1] << 31);
        }
        v[8] >>= 1;
    }
}

/* u1 G + u2 Q, variable time (verification: public data); projective result. One chain of 257
 * doublings: u2 Q by its width-4 NAF (odd multiples up to 7Q), and u1 G through the comb table, whose
 * entries enter at the last 64 doublings (entry for position p is doubled p times, as in the comb). */
static void double_scalarmult_vartime(point *r, const uint32_t u1[8], const uint32_t u2[8], const uint32_t q[16])
{
    point table[NAF_ENTRIES];
    uint8_t naf[(NAF_DIGITS + 1) / 2];
    uint32_t entry[16];
    point_from_affine(&table[0], q);
    point_double(r, &table[0]);
    for (uint8_t i = 1; i < NAF_ENTRIES; i++) {
        point_add(&table[i], &table[i - 1], r);
    }
    wnaf(naf, u2);
    point_set_identity(r);
    for (int16_t i = 256; i >= 0; i--) {
        point_double(r, r);
        if (i < COMB_SPACING) {
            uint8_t digit = 0;
            for (uint8_t j = 0; j < COMB_TEETH; j++) {
                uint16_t bit = (uint16_t)(i + COMB_SPACING * j);
                digit |= (uint8_t)(((u1[bit >> 5] >> (bit & 31)) & 1u) << j);
            }
            if (digit) {
                for (uint8_t k = 0; k < 16; k++) {
                    entry[k] = ROM_WORD(&P256_COMB[digit - 1][k]);
                }
                point_add_mixed(r, r, entry);
            }
        }
        int8_t digit = naf_at(naf, (uint16_t)i);
        if (digit > 0) {
            point_add(r, r, &table[digit >> 1]);
        } else if (digit < 0) {   /* -(X : Y : Z) = (X : -Y : Z): negated in the table and back */
            point *e = &table[(-digit) >> 1];
            fe zero = {0};
            fe_sub(e->y, zero, e->y);
            point_add(r, r, e);
            fe_sub(e->y, zero, e->y);
        }
    }
}

/* ---- encodings and validation (SEC 1 2.3.3, 2.3.4, 3.2.2.1) ------------------------------------- */

/* rhs = x^3 - 3 x + b */
static void curve_rhs(fe rhs, const fe x)
{
    fe t;
    fe_sqr(t, x);
    fe_mul(t, t, x);
    fe_sub(t, t, x);
    fe_sub(t, t, x);
    fe_sub(t, t, x);
    fe_add(rhs, t, P256_B);
}

/* xy = the validated public key (65 or 33 bytes); -1 if malformed or not on the curve (public data) */
static int decode_point(uint32_t xy[16], const uint8_t *pk, size_t pklen)
{
    fe rhs, y2;
    if (pklen == P256_PK_BYTES && pk[0] == 4) {
        fe_from_be(xy, pk + 1);
        fe_from_be(xy + 8, pk + 33);
        if (!lt(xy, P256_P) || !lt(xy + 8, P256_P)) {
            return -1;
        }
        curve_rhs(rhs, xy);
        fe_sqr(y2, xy + 8);
        fe_sub(y2, y2, rhs);
        return fe_is_zero(y2) ? 0 : -1;
    }
    if (pklen == P256_PK_COMPRESSED_BYTES && (pk[0] == 2 || pk[0] == 3)) {
        fe y;
        fe_from_be(xy, pk + 1);
        if (!lt(xy, P256_P)) {
            return -1;
        }
        curve_rhs(rhs, xy);
        fe_pow(y, rhs, P256_P_PLUS_1_DIV_4);   /* p = 3 mod 4 */
        fe_sqr(y2, y);
        fe_sub(y2, y2, rhs);
        if (!fe_is_zero(y2)) {
            return -1;
        }
        fe_freeze(y, y);
        if ((y[0] & 1u) != (pk[0] & 1u)) {
            fe zero = {0};
            fe_sub(y, zero, y);
            fe_freeze(y, y);
        }
        copy_bytes(xy + 8, y, 32);
        return 0;
    }
    return -1;
}

static void encode_point(uint8_t *pk, const uint32_t xy[16])
{
    pk[0] = 4;
    fe_to_be(pk + 1, xy);
    fe_to_be(pk + 33, xy + 8);
}

/* ---- scalars mod n ------------------------------------------------------------------------------- */

/* r = a b / 2^256 mod n for a b < n 2^256 (Montgomery on three products), r < n, constant time:
 * t = a b; m = (t mod 2^256) n' mod 2^256; (t + m n) / 2^256 < 2n, less n once if it is >= n */
static void sc_mont(uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    uint32_t t[16], m[16], u[16], d[8];
    MPMUL256(t, a, b);
    MPMUL256(m, t, P256_N_NPRIME);        /* only the low half is used */
    MPMUL256(u, m, P256_N);
    uint32_t carry = add8(u, u, t, 0);    /* the low half becomes 0 mod 2^256: only its carry matters */
    carry = add8(u + 8, u + 8, t + 8, carry);
    uint32_t ge = sub_if_ge(d, u + 8, P256_N);
    uint32_t take = 0u - (carry | ge);    /* a carry out of 2^256 means >= n too; d is then right mod 2^256 */
    uint32_t nd[8];
    (void)add8(nd, u + 8, P256_N_NEG, 0);   /* u + 8 - n mod 2^256 */
    for (uint8_t i = 0; i < 8; i++) {
        r[i] = (nd[i] & take) | (u[8 + i] & ~take);
    }
    mcu_wipe(t, sizeof t);
    mcu_wipe(m, sizeof m);
    mcu_wipe(u, sizeof u);
    mcu_wipe(d, sizeof d);
}

/* 1 if 0 < d < n (constant time) */
static uint32_t sc_in_range(const uint32_t d[8])
{
    uint32_t acc = 0;
    for (uint8_t i = 0; i < 8; i++) {
        acc |= d[i];
    }
    uint32_t nonzero = top_bit(acc | (0u - acc));
    return nonzero & lt(d, P256_N);
}

static const uint32_t P256_N_MINUS_2[8] = {0xfc63254fu, 0xf3b9cac2u, 0xa7179e84u, 0xbce6faadu,
                                           0xffffffffu, 0xffffffffu, 0x00000000u, 0xffffffffu};
static const uint32_t ONE[8] = {1, 0, 0, 0, 0, 0, 0, 0};

/* r = a b mod n, a, b < n */
static void sc_mul(uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    uint32_t t[8];
    sc_mont(t, a, b);
    sc_mont(r, t, P256_N_R2);
    mcu_wipe(t, sizeof t);
}

/* r = a^-1 mod n = a^(n-2) (Fermat; the exponent is public, a < n, constant time in a) */
static void sc_invert(uint32_t r[8], const uint32_t a[8])
{
    uint32_t am[8], x[8];
    sc_mont(am, a, P256_N_R2);            /* a 2^256 mod n */
    copy_bytes(x, P256_N_NEG, sizeof x);      /* 2^256 mod n = 2^256 - n: one in the Montgomery domain */
    for (int16_t i = 255; i >= 0; i--) {
        sc_mont(x, x, x);
        if ((P256_N_MINUS_2[i >> 5] >> (i & 31)) & 1u) {   /* public exponent bit */
            sc_mont(x, x, am);
        }
    }
    sc_mont(r, x, ONE);
    mcu_wipe(am, sizeof am);
    mcu_wipe(x, sizeof x);
}

/* r = a + b mod n, a, b < n */
static void sc_add(uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    uint32_t s[8], d[8];
    uint32_t carry = add8(s, a, b, 0);
    uint32_t ge = sub_if_ge(d, s, P256_N);
    uint32_t take = 0u - (carry | ge);
    (void)add8(d, s, P256_N_NEG, 0);
    for (uint8_t i = 0; i < 8; i++) {
        r[i] = (d[i] & take) | (s[i] & ~take);
    }
}

/* ---- ECDSA ---------------------------------------------------------------------------------------- */

/* the message's SHA-256 as an integer e (FIPS 186-5 6.4.1: n has 256 bits, no truncation) */
static void hash_message(uint32_t e[8], const uint8_t *msg, size_t msglen)
{
    uint8_t h[32];
    MCU_FN(sha256, hash)(h, msg, msglen);
    fe_from_be(e, h);
}

/* K = HMAC_K(V || sep || x || h1) (or of V alone when sep > 1), then V = HMAC_K(V) */
static void rfc6979_update(uint32_t *ctx, uint8_t key[32], uint8_t v[32], uint8_t sep, const uint8_t *x,
                           const uint8_t *h1)
{
    uint8_t *c = (uint8_t *)(void *)ctx;
    MCU_FN(hmacsha256, mac_init)(c, key, 32);
    MCU_FN(hmacsha256, mac_update)(c, v, 32);
    MCU_FN(hmacsha256, mac_update)(c, &sep, 1);
    if (x) {
        MCU_FN(hmacsha256, mac_update)(c, x, 32);
        MCU_FN(hmacsha256, mac_update)(c, h1, 32);
    }
    MCU_FN(hmacsha256, mac_final)(c, key);
    MCU_FN(hmacsha256, mac_init)(c, key, 32);
    MCU_FN(hmacsha256, mac_update)(c, v, 32);
    MCU_FN(hmacsha256, mac_final)(c, v);
}

/* k by RFC 6979 section 3.2 (HMAC-SHA-256, qlen = 256): x = d, h1 = bits2octets(H(m)) = e mod n.
 * A candidate outside [1, n-1] (probability < 2^-32) takes another round: whether one was is
 * declassified (it says nothing usable about the k finally taken). */
static void rfc6979_nonce(uint32_t k[8], const uint8_t x[32], const uint32_t e_mod_n[8])
{
    uint32_t ctx[HMAC_CTX_WORDS];
    uint8_t key[32], v[32], h1[32];
    fe_to_be(h1, e_mod_n);
    fill_bytes(key, 0, sizeof key);
    fill_bytes(v, 1, sizeof v);
    rfc6979_update(ctx, key, v, 0, x, h1);
    rfc6979_update(ctx, key, v, 1, x, h1);
    for (;;) {
        uint8_t *c = (uint8_t *)(void *)ctx;
        MCU_FN(hmacsha256, mac_init)(c, key, 32);
        MCU_FN(hmacsha256, mac_update)(c, v, 32);
        MCU_FN(hmacsha256, mac_final)(c, v);
        fe_from_be(k, v);
        if (mcu_declassify(sc_in_range(k))) {
            break;
        }
        rfc6979_update(ctx, key, v, 0, (const uint8_t *)0, (const uint8_t *)0);
    }
    mcu_wipe(key, sizeof key);
    mcu_wipe(v, sizeof v);
    mcu_wipe(h1, sizeof h1);
}

int MCU_FN(p256, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed)
{
    uint32_t d[8], q[16];
    fe_from_be(d, seed);
    if (!mcu_declassify(sc_in_range(d))) {
        fill_bytes(pk, 0, P256_PK_BYTES);
        fill_bytes(sk, 0, P256_SK_BYTES);
        mcu_wipe(d, sizeof d);
        return -1;
    }
    scalarmult_base(q, d);
    encode_point(pk, q);
    fe_to_be(sk, d);
    mcu_wipe(d, sizeof d);
    return 0;
}

int MCU_FN(p256, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk, const uint8_t *rnd)
{
    uint32_t d[8], e[8], k[8], xy[16], r[8], s[8];
    uint32_t ok;
    fill_bytes(sig, 0, P256_SIG_BYTES);
    fe_from_be(d, sk);
    if (!mcu_declassify(sc_in_range(d))) {
        mcu_wipe(d, sizeof d);
        return -1;
    }
    hash_message(e, msg, msglen);
    (void)sub_if_ge(e, e, P256_N);        /* e mod n (e < 2^256 < 2n) */
    uint8_t any = 0;
    if (rnd) {
        for (uint8_t i = 0; i < 32; i++) {
            any |= rnd[i];
        }
    }
    /* whether the caller passed a nonce or asked for RFC 6979 is the caller's public choice: that bit
     * alone is declassified (1 for a nonce, 0 for 32 zero bytes), not the OR of the nonce's bytes */
    if (rnd && mcu_declassify(((uint32_t)any + 0xffu) >> 8)) {
        fe_from_be(k, rnd);
        if (!mcu_declassify(sc_in_range(k))) {   /* FIPS 186-5 A.3.2: the caller draws again */
            mcu_wipe(d, sizeof d);
            mcu_wipe(k, sizeof k);
            return -1;
        }
    } else {
        rfc6979_nonce(k, sk, e);
    }
    scalarmult_base(xy, k);
    (void)sub_if_ge(r, xy, P256_N);       /* r = x mod n (x < p < 2n) */
    sc_invert(k, k);
    sc_mul(s, r, d);
    sc_add(s, s, e);
    sc_mul(s, s, k);
    /* r = 0 or s = 0 (probability 2^-256 each): refused; r and s are the public signature */
    ok = sc_in_range(r) & sc_in_range(s);
    mcu_wipe(d, sizeof d);
    mcu_wipe(k, sizeof k);
    mcu_wipe(xy, sizeof xy);
    if (!mcu_declassify(ok)) {
        return -1;
    }
    fe_to_be(sig, r);
    fe_to_be(sig + 32, s);
    return 0;
}

int MCU_FN(p256, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk,
                         size_t pklen)
{
    uint32_t q[16], r[8], s[8], e[8];
    point acc;
    fe t;
    if (siglen != P256_SIG_BYTES || decode_point(q, pk, pklen) != 0) {
        return -1;
    }
    fe_from_be(r, sig);
    fe_from_be(s, sig + 32);
    if (!sc_in_range(r) || !sc_in_range(s)) {
        return -1;
    }
    hash_message(e, msg, msglen);
    (void)sub_if_ge(e, e, P256_N);
    sc_invert(s, s);                      /* w = 1/s */
    sc_mul(e, e, s);                      /* u1 = e w */
    sc_mul(s, r, s);                      /* u2 = r w */
    double_scalarmult_vartime(&acc, e, s, q);
    if (fe_is_zero(acc.z)) {
        return -1;
    }
    /* x(R) mod n = r  <=>  X = r Z, or X = (r + n) Z when r + n < p (projective: no inversion) */
    fe_mul(t, r, acc.z);
    fe_sub(t, t, acc.x);
    if (fe_is_zero(t)) {
        return 0;
    }
    uint32_t rn[8];
    if (add8(rn, r, P256_N, 0) == 0 && lt(rn, P256_P)) {
        fe_mul(t, rn, acc.z);
        fe_sub(t, t, acc.x);
        if (fe_is_zero(t)) {
            return 0;
        }
    }
    return -1;
}

int MCU_FN(p256, ecdh)(uint8_t *shared, const uint8_t *sk, const uint8_t *pk, size_t pklen)
{
    uint32_t d[8], q[16];
    fill_bytes(shared, 0, 32);
    if (decode_point(q, pk, pklen) != 0) {
        return -1;
    }
    fe_from_be(d, sk);
    if (!mcu_declassify(sc_in_range(d))) {
        mcu_wipe(d, sizeof d);
        return -1;
    }
    MCU_FN(p256, scalarmult)(q, d, q);   /* in place: the peer's point is read first */
    fe_to_be(shared, q);
    mcu_wipe(d, sizeof d);
    mcu_wipe(q, sizeof q);
    return 0;
}
