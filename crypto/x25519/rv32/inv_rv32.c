// SPDX-License-Identifier: MIT
/* rv32-fast's field inversion: r = 1/z mod p = 2^255 - 19 (0 for z = 0 mod p), any z < 2^256, by a
 * constant-time safegcd (Bernstein and Yang, "Fast constant-time gcd computation and modular
 * inversion", ePrint 2019/266) with half-delta divsteps, whose proven bound for f = p and 0 <= g < p
 * is 590 divsteps; this runs 19 batches of 30 and one of 20, each on the low bits of f and g,
 * branch-free. r is canonical (< p).
 *
 * One batch: 30 divsteps on the low bits of f and g (here, unrolled C) give a 2x2 matrix
 * T = (u v; q r) with 2^30 f' = u f + v g, 2^30 g' = q f + r g (|u| + |v|, |q| + |r| <= 2^30); then
 * f, g (signed, 9 limbs of 30 bits, exact division) and d, e (f = d z, g = e z mod p) are updated by T
 * in generated, list-scheduled assembly (gen_inv.py -> inv_update_rv32.S): for d and e the division
 * by 2^30 is made exact by adding md p (me p), md chosen mod 2^30 from p^-1 mod 2^30, after adding u
 * and v for negative d and e so that d and e stay in (-2p, p); in 30-bit limbs p = -19 + 2^15 2^240,
 * so md p touches limbs 0 and 8 only. The last batch updates f and d alone. At the end g = 0,
 * f = +-1 and 1/z = +-d.
 *
 * Constant time on the E31: every loop has a fixed count, every choice is a mask from an arithmetic
 * shift or an AND with bit 0; the only multiplications are mul/mulh (fixed latency on the E31); the
 * branches GCC emits here are the loops' counters. Stack: f, g, d, e (144 bytes), the matrix and the
 * callee-saved registers. */
#include <stdint.h>

#include "mcucrypt/ns.h"

#define M30 0x3fffffff
#define NL 9                           /* 30-bit limbs: 270 bits, signed in the top limb */
#define P_INV30 0x179435e5             /* p^-1 mod 2^30 (p = -19 mod 2^30) */

typedef int32_t trans[4];   /* u, v, q, r */

#if defined(__GNUC__) && __GNUC__ >= 8
#define UNROLL _Pragma("GCC unroll 30")
#else
#define UNROLL
#endif

/* n (14 < n <= 30, a constant) half-delta divsteps on the low bits of f and g (zeta = -(delta + 1/2)),
 * the matrix scaled to 2^30 (f' = (u f + v g) / 2^30 whatever n). Returns the new zeta. Unrolled: the
 * loop counter and branch would cost 2 of the 27 instructions of a step.
 * The first PACKED steps keep u, v in one register as the integer U = u + 2^16 v (and Q = q + 2^16 r):
 * a step only negates, adds and doubles them, which is linear, and after j <= 14 steps
 * |u| + |v| <= 2^j, so u fits 16 signed bits and |U| < 2^31; 20 instructions a step instead of 27.
 * Then u = U sign-extended from bit 15, v = (U - u) / 2^16 (exact). */
#define PACKED 14

static inline int32_t divsteps(int32_t zeta, uint32_t f, uint32_t g, trans *t, const int n)
{
    uint32_t uv = 1, qr = (uint32_t)1 << 16, u, v, q, r, c1, c2, x, y, w;
    int i;

    UNROLL
    for (i = 0; i < PACKED; i++) {
        c1 = (uint32_t)(zeta >> 31);   /* delta > 0 */
        c2 = 0u - (g & 1);             /* g odd */
        x = (f ^ c1) - c1;             /* -f if delta > 0, else f */
        y = (uv ^ c1) - c1;
        g += x & c2;                   /* g odd: g - f (delta > 0) or g + f */
        qr += y & c2;
        c1 &= c2;                      /* swap: delta > 0 and g odd */
        zeta = (int32_t)(((uint32_t)zeta ^ c1) - 1);   /* swap: -zeta - 2 (delta = 1 - delta); else zeta - 1 */
        f += g & c1;                   /* swap: f + (g - f) = old g */
        uv += qr & c1;
        g >>= 1;
        uv <<= 1;
    }
    u = (uint32_t)((int32_t)(uv << 16) >> 16);
    v = (uint32_t)((int32_t)(uv - u) >> 16);
    q = (uint32_t)((int32_t)(qr << 16) >> 16);
    r = (uint32_t)((int32_t)(qr - q) >> 16);
    UNROLL
    for (i = PACKED; i < n; i++) {
        c1 = (uint32_t)(zeta >> 31);
        c2 = 0u - (g & 1);
        x = (f ^ c1) - c1;
        y = (u ^ c1) - c1;
        w = (v ^ c1) - c1;
        g += x & c2;
        q += y & c2;
        r += w & c2;
        c1 &= c2;
        zeta = (int32_t)(((uint32_t)zeta ^ c1) - 1);
        f += g & c1;
        u += q & c1;
        v += r & c1;
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    (*t)[0] = (int32_t)u << (30 - n);
    (*t)[1] = (int32_t)v << (30 - n);
    (*t)[2] = (int32_t)q << (30 - n);
    (*t)[3] = (int32_t)r << (30 - n);
    return zeta;
}

/* The updates, generated and list-scheduled for the E31 (gen_inv.py -> inv_update_rv32.S): st = f | g | d | e,
 * m = u, v, q, r; (f, g) <- ((u f + v g) / 2^30, (q f + r g) / 2^30), (d, e) likewise mod p (md p, me p
 * added to make the division exact; d, e stay in (-2p, p)); inv_update_fd: f and d alone. */
void MCU_FN(x25519, inv_update)(int32_t *st, const int32_t *m);
void MCU_FN(x25519, inv_update_fd)(int32_t *st, const int32_t *m);

/* a += p if mask (limbs unnormalized: p = -19 + 2^15 in the top limb) */
static void add_p_masked(int32_t *a, int32_t mask)
{
    a[0] -= 19 & mask;
    a[NL - 1] += 32768 & mask;
}

/* carry the limbs into 30-bit limbs 0..7 and a signed top limb */
static void carry30(int32_t *a)
{
    int i;
    for (i = 0; i < NL - 1; i++) {
        a[i + 1] += a[i] >> 30;
        a[i] &= M30;
    }
}

void MCU_FN(x25519, fe_invert)(uint32_t *out, const uint32_t *z);

void MCU_FN(x25519, fe_invert)(uint32_t *out, const uint32_t *z)
{
    int32_t st[4 * NL], *f = st, *g = st + NL, *d = st + 2 * NL, *e = st + 3 * NL;
    uint32_t t[8], mask;
    int32_t zeta = -1, s;
    trans tr;
    uint64_t acc;
    int i;

    /* g = z mod p, canonical: fold bit 255 as 19, then subtract p if the result + 19 reaches 2^255 */
    acc = 19u & (0u - (z[7] >> 31));
    for (i = 0; i < 8; i++) {
        acc += i == 7 ? (z[7] & 0x7fffffffu) : z[i];
        t[i] = (uint32_t)acc;
        acc >>= 32;
    }
    acc = 19;                          /* bit 255 of t + 19 (t < 2^255 + 19) */
    for (i = 0; i < 7; i++) {
        acc += t[i];
        acc >>= 32;
    }
    acc += t[7];
    mask = 0u - ((uint32_t)acc >> 31);  /* t + 19 >= 2^255: t >= p, subtract p = add 19, drop bit 255 */
    acc = 19u & mask;
    for (i = 0; i < 8; i++) {
        acc += t[i];
        t[i] = (uint32_t)acc;
        acc >>= 32;
    }
    t[7] &= 0x7fffffffu;

    /* 32-bit limbs to 30-bit limbs */
    for (i = 0; i < NL; i++) {
        int b = 30 * i, w = b >> 5, sh = b & 31;
        uint32_t x = t[w] >> sh;
        if (sh > 2 && w < 7)
            x |= t[w + 1] << (32 - sh);
        g[i] = (int32_t)(x & M30);
        f[i] = d[i] = e[i] = 0;
    }
    f[0] = -19;
    f[NL - 1] = 32768;                 /* f = p */
    e[0] = 1;

    for (i = 0; i < 19; i++) {         /* 19 batches of 30 divsteps and one of 20: the bound, 590 */
        zeta = divsteps(zeta, (uint32_t)f[0], (uint32_t)g[0], &tr, 30);
        MCU_FN(x25519, inv_update)(st, tr);
    }
    (void)divsteps(zeta, (uint32_t)f[0], (uint32_t)g[0], &tr, 20);
    MCU_FN(x25519, inv_update_fd)(st, tr);

    /* f = +-1: r = +-d, d in (-2p, p) -> [0, p) */
    carry30(d);
    s = f[NL - 1] >> 31;               /* f = -1 */
    add_p_masked(d, d[NL - 1] >> 31);  /* (-p, p) */
    carry30(d);
    for (i = 0; i < NL; i++)
        d[i] = (d[i] ^ s) - s;         /* negate when f = -1: (-p, p) */
    carry30(d);
    add_p_masked(d, d[NL - 1] >> 31);  /* [0, p) */
    carry30(d);

    for (i = 0; i < 8; i++) {
        int b = 32 * i, l = b / 30, sh = b % 30;
        uint32_t x = (uint32_t)d[l] >> sh;
        x |= (uint32_t)d[l + 1] << (30 - sh);
        if (sh > 28 && l + 2 < NL)
            x |= (uint32_t)d[l + 2] << (60 - sh);
        out[i] = x;
    }
}
