// SPDX-License-Identifier: MIT
/* ML-KEM (FIPS 203): portable C99, written from the standard (algorithm numbers are FIPS 203's).
 *
 * Public API per parameter set (mlkem512, mlkem768, mlkem1024; prototypes in crypto/mlkem/META.yml):
 *   keygen(ek, dk, d, z)   ML-KEM.KeyGen_internal (Algorithm 16); 0, or -1 if the matrix sampler ran out of
 *                          its bounded XOF output (FIPS 203 Appendix B; probability below 2^-261)
 *   encaps(ct, ss, ek, m)  ML-KEM.Encaps_internal (Algorithm 17) after section 7.2's modulus check of ek:
 *                          -1 (nothing written) when a coefficient of ek is not below q
 *   decaps(ss, ct, dk)     ML-KEM.Decaps_internal (Algorithm 18), implicit rejection, after section 7.3's
 *                          hash check of dk: -1 (ss zeroed) when H(ek) differs from the h stored in dk
 * Sizes (bytes): ek 384k + 32, dk 768k + 96, ct 32(du k + dv), ss 32.
 *
 * Constant time (checked by `mcucrypt ct` on the boards, docs/mlkem.md):
 * - arithmetic mod q = 3329 unsigned, canonical after every operation: Montgomery products and masked
 *   subtractions of q (sums): multiplications, shifts
 *   and masks only, never a division of a secret (KyberSlash); the compressions divide by q as a product
 *   with a 32-bit reciprocal taken in 16-bit halves (mulhi32: the Cortex-M3's UMULL is variable-latency);
 * - the message bits are decoded arithmetically (compress_d with d = 1: a product and a shift) and
 *   encoded as masks (no branch a compiler could add: see tests/fixtures for the two the checker catches);
 * - decapsulation compares the re-encryption with the ciphertext as it is produced (an OR of differences,
 *   no early exit) and selects K' or J(z | c) with a mask;
 * - the matrix is sampled from rho: public in encapsulation and decapsulation (part of ek), but derived from
 *   the secret d during key generation, where the sampler therefore reads a fixed 5 XOF blocks (280
 *   iterations of Algorithm 7's loop, the bound FIPS 203 Appendix B allows) with a branch-free acceptance;
 *   its stores go to the position the accepted count gives (secret-indexed SRAM: `constant_time:
 *   cacheless`, the same time on these cacheless cores).
 * Memory: polynomials are 256 uint16_t; the secret vector and the public vector are kept packed in the output
 * key buffers (12 bits per coefficient) and decoded when used; the matrix is generated an entry at a time.
 */
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"
#include "mcucrypt/wipe.h"
/* crypto/sha3's sponge under this family's names, so a library with SHA-3 and ML-KEM links without a clash */
#ifndef sha3
#error "sha3 must be defined as mlkem_sha3: crypto/sha3's sponge in this family's namespace"
#endif
/* In the tree crypto/sha3 is beside crypto/mlkem; an exported library (mcucrypt/export.py) puts the
 * sources of another family inside this unit's folder, under that family's name */
#if defined(__has_include) && __has_include("../sha3/ref/sha3.h")
#include "../sha3/ref/sha3.h"
#else
#include "../../sha3/ref/sha3.h"
#endif

/* freestanding builds: the compiler's own copies (inline or the board's), mcu_wipe for secrets */
#define memcpy __builtin_memcpy
#define memset __builtin_memset

#define Q 3329
#define N 256
#define QINV_NEG 3327u       /* -q^-1 mod 2^16 */
#define MONT_R2 1353         /* 2^32 mod q: fqmul(x, MONT_R2) = x 2^16 mod q */
#define INV_NTT_F 1441       /* 2^32 / 128 mod q: the inverse NTT's scaling, undoing basemul's 2^-16 */
#define SAMPLE_BLOCKS_CT 5   /* key generation's sampler: 5 x 168 bytes = 280 iterations of Algorithm 7 */

#define RATE_SHAKE128 168
#define RATE_SHAKE256 136
#define RATE_SHA3_256 136
#define RATE_SHA3_512 72

/* Coefficients are unsigned and canonical, in [0, q), after every operation: no signed arithmetic, so no
 * sign extension (avr-gcc extends a signed byte with a skip on its sign bit) and no signed multiplication
 * (libgcc's __mulhisi3 on AVR branches on the signs). */
typedef struct {
    uint16_t c[N];
} poly;

typedef struct {
    unsigned k, eta1, du, dv;     /* eta2 is 2 in every parameter set */
} params;

/* The parameter sets' ranges, told to the compiler: no zero-trip paths for the loops over k, du and dv
 * (code no call could run, which the constant-time coverage would report) */
#define ASSUME_PARAMS(P)                                                                                     \
    do {                                                                                                     \
        if ((P)->k < 2 || (P)->k > 4 || (P)->du < 10 || (P)->du > 11 || (P)->dv < 4 || (P)->dv > 5) {       \
            __builtin_unreachable();                                                                         \
        }                                                                                                    \
    } while (0)

/* zeta^BitRev7(i) 2^16 mod q (FIPS 203 Appendix A in the Montgomery domain) */
static const uint16_t ZETAS[128] = {
    2285, 2571, 2970, 1812, 1493, 1422, 287, 202, 3158, 622, 1577, 182, 962, 2127, 1855, 1468,
    573, 2004, 264, 383, 2500, 1458, 1727, 3199, 2648, 1017, 732, 608, 1787, 411, 3124, 1758,
    1223, 652, 2777, 1015, 2036, 1491, 3047, 1785, 516, 3321, 3009, 2663, 1711, 2167, 126, 1469,
    2476, 3239, 3058, 830, 107, 1908, 3082, 2378, 2931, 961, 1821, 2604, 448, 2264, 677, 2054,
    2226, 430, 555, 843, 2078, 871, 1550, 105, 422, 587, 177, 3094, 3038, 2869, 1574, 1653,
    3083, 778, 1159, 3182, 2552, 1483, 2727, 1119, 1739, 644, 2457, 349, 418, 329, 3173, 3254,
    817, 1097, 603, 610, 1322, 2044, 1864, 384, 2114, 3193, 1218, 1994, 2455, 220, 2142, 1670,
    2144, 1799, 2051, 794, 1819, 2475, 2459, 478, 3221, 3021, 996, 991, 958, 1869, 1522, 1628,
};

/* -- arithmetic mod q ------------------------------------------------------------------------------- */

/* x - q when x >= q, for x < 2q < 2^15: the borrow's sign bit as a mask */
static uint16_t csubq(uint16_t x)
{
    x = (uint16_t)(x - Q);
    return (uint16_t)(x + (Q & (0u - (uint16_t)(x >> 15))));
}

static uint16_t addq(uint16_t a, uint16_t b)
{
    return csubq((uint16_t)(a + b));
}

static uint16_t subq(uint16_t a, uint16_t b)
{
    return csubq((uint16_t)(a + Q - b));
}

/* a b 2^-16 mod q in [0, q) for a, b < q (unsigned Montgomery: (ab + tq) / 2^16 < 2q, one subtraction) */
static uint16_t fqmul(uint16_t a, uint16_t b)
{
    uint32_t ab = (uint32_t)a * b;
    uint16_t t = (uint16_t)((uint16_t)ab * QINV_NEG);
    return csubq((uint16_t)((ab + (uint32_t)t * Q) >> 16));
}

/* the high word of a 32 x 32-bit product from four 16 x 16-bit ones (MUL only: constant time on the M3) */
static uint32_t mulhi32(uint32_t a, uint32_t b)
{
    uint16_t al = (uint16_t)a, ah = (uint16_t)(a >> 16), bl = (uint16_t)b, bh = (uint16_t)(b >> 16);
    uint32_t lo = (uint32_t)al * bl, m1 = (uint32_t)al * bh, m2 = (uint32_t)ah * bl, hi = (uint32_t)ah * bh;
    uint32_t mid = (lo >> 16) + (m1 & 0xFFFF) + (m2 & 0xFFFF);
    return hi + (m1 >> 16) + (m2 >> 16) + (mid >> 16);
}

/* Compress_d(x) = round(2^d x / q) mod 2^d for x in [0, q) (section 4.2.1): (2^d x + q/2) / q as a product
 * with ceil(2^32 / q) (exact for every x and d = 1, 4, 5, 10; d = 11 adds 1664 and takes 2^32 / q + 1) */
static uint32_t compress(uint16_t x, unsigned d)
{
    uint32_t n = ((uint32_t)x << d) + (d == 11 ? 1664u : 1665u);
    return mulhi32(n, d == 11 ? 1290168u : 1290167u) & ((1u << d) - 1);
}

static uint16_t decompress(uint32_t y, unsigned d)
{
    return (uint16_t)((y * Q + (1u << (d - 1))) >> d);
}

/* -- polynomials ------------------------------------------------------------------------------------ */

static void poly_zero(poly *p)
{
    for (unsigned j = 0; j < N; j++) {
        p->c[j] = 0;
    }
}

/* Algorithm 9, in place */
static void poly_ntt(poly *p)
{
    unsigned i = 1;
    for (unsigned len = 128; len >= 2; len >>= 1) {
        for (unsigned start = 0; start < N; start += 2 * len) {
            uint16_t zeta = ZETAS[i++];
            for (unsigned n = 0; n < len; n++) {    /* (no zero-trip path: len >= 2) */
                unsigned j = start + n;
                uint16_t t = fqmul(zeta, p->c[j + len]);
                p->c[j + len] = subq(p->c[j], t);
                p->c[j] = addq(p->c[j], t);
            }
        }
    }
}

/* Algorithm 10 and the 2^16 of the basemul products it follows: out = NTT^-1(in 2^16) */
static void poly_invntt(poly *p)
{
    unsigned i = 127;
    for (unsigned len = 2; len <= 128; len <<= 1) {
        for (unsigned start = 0; start < N; start += 2 * len) {
            uint16_t zeta = ZETAS[i--];
            for (unsigned n = 0; n < len; n++) {
                unsigned j = start + n;
                uint16_t t = p->c[j];
                p->c[j] = addq(t, p->c[j + len]);
                p->c[j + len] = fqmul(zeta, subq(p->c[j + len], t));
            }
        }
    }
    for (unsigned j = 0; j < N; j++) {
        p->c[j] = fqmul(p->c[j], INV_NTT_F);
    }
}

/* r += a o b (Algorithms 11 and 12), each product with the Montgomery factor 2^-16 */
static void poly_basemul_acc(poly *r, const poly *a, const poly *b)
{
    for (unsigned i = 0; i < 64; i++) {
        uint16_t zeta = ZETAS[64 + i];
        for (unsigned h = 0; h < 2; h++) {
            unsigned j = 4 * i + 2 * h;
            uint16_t g = h ? (uint16_t)(Q - zeta) : zeta;     /* gamma = +-zeta (zeta is never 0) */
            uint16_t a0 = a->c[j], a1 = a->c[j + 1], b0 = b->c[j], b1 = b->c[j + 1];
            uint16_t c0 = addq(fqmul(fqmul(a1, b1), g), fqmul(a0, b0));
            uint16_t c1 = addq(fqmul(a0, b1), fqmul(a1, b0));
            r->c[j] = addq(r->c[j], c0);
            r->c[j + 1] = addq(r->c[j + 1], c1);
        }
    }
}

static void poly_add(poly *r, const poly *a)
{
    for (unsigned j = 0; j < N; j++) {
        r->c[j] = addq(r->c[j], a->c[j]);
    }
}

static void poly_tomont(poly *r)
{
    for (unsigned j = 0; j < N; j++) {
        r->c[j] = fqmul(r->c[j], MONT_R2);
    }
}

/* ByteEncode_12 (Algorithm 5) */
static void poly_tobytes(uint8_t *out, const poly *a)
{
    for (unsigned i = 0; i < N / 2; i++) {
        uint16_t x = a->c[2 * i], y = a->c[2 * i + 1];
        out[3 * i] = (uint8_t)x;
        out[3 * i + 1] = (uint8_t)((x >> 8) | (y << 4));
        out[3 * i + 2] = (uint8_t)(y >> 4);
    }
}

/* ByteDecode_12 (Algorithm 6): 12-bit values reduced mod q (below 2q: one masked subtraction) */
static void poly_frombytes(poly *r, const uint8_t *in)
{
    for (unsigned i = 0; i < N / 2; i++) {
        uint16_t x = (uint16_t)(in[3 * i] | ((in[3 * i + 1] & 0x0Fu) << 8));
        uint16_t y = (uint16_t)((in[3 * i + 1] >> 4) | ((uint16_t)in[3 * i + 2] << 4));
        r->c[2 * i] = csubq(x);
        r->c[2 * i + 1] = csubq(y);
    }
}

/* ByteEncode_d of Compress_d of every coefficient (d <= 11): 32 d bytes */
static void poly_compress(uint8_t *out, const poly *a, unsigned d)
{
    uint32_t acc = 0;
    unsigned bits = 0, o = 0;
    for (unsigned j = 0; j < N; j++) {
        acc |= compress(a->c[j], d) << bits;
        bits += d;
        while (bits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
}

/* Decompress_d of ByteDecode_d (d <= 11; the ciphertext is public) */
static void poly_decompress(poly *r, const uint8_t *in, unsigned d)
{
    uint32_t acc = 0;
    unsigned bits = 0, o = 0;
    for (unsigned j = 0; j < N; j++) {
        while (bits < d) {
            acc |= (uint32_t)in[o++] << bits;
            bits += 8;
        }
        r->c[j] = decompress(acc & ((1u << d) - 1), d);
        acc >>= d;
        bits -= d;
    }
}

/* Decompress_1(ByteDecode_1(m)): each bit to 0 or 1665 by a mask */
static void poly_frommsg(poly *r, const uint8_t *m)
{
    for (unsigned i = 0; i < 32; i++) {
        for (unsigned b = 0; b < 8; b++) {
            uint16_t bit = (uint16_t)((m[i] >> b) & 1u);
            r->c[8 * i + b] = (uint16_t)((0u - bit) & ((Q + 1) / 2));
        }
    }
}

/* ByteEncode_1(Compress_1(a)): each bit by the product of compress (no comparison a compiler could branch on) */
static void poly_tomsg(uint8_t *m, const poly *a)
{
    for (unsigned i = 0; i < 32; i++) {
        uint8_t byte = 0;
        for (unsigned b = 0; b < 8; b++) {
            byte |= (uint8_t)(compress(a->c[8 * i + b], 1) << b);
        }
        m[i] = byte;
    }
}

/* -- hashing (section 4.1) on the project's sponge --------------------------------------------------- */

typedef struct {
    uint32_t s[50];    /* the 200-byte Keccak state, word-aligned for every lane layout */
} sponge;

static unsigned absorb(sponge *st, unsigned rate, unsigned pos, const uint8_t *in, size_t n)
{
    return MCU_FN(sha3, sponge_absorb)((uint8_t *)st->s, rate, pos, in, n);
}

/* out = hash(a | b) with the given rate, suffix and output length (b may be empty) */
static void hash2(uint8_t *out, size_t outlen, unsigned rate, uint8_t suffix,
                  const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    sponge st;
    MCU_FN(sha3, sponge_init)((uint8_t *)st.s);
    unsigned pos = absorb(&st, rate, 0, a, alen);
    pos = absorb(&st, rate, pos, b, blen);
    MCU_FN(sha3, sponge_finalize)((uint8_t *)st.s, rate, pos, suffix);
    MCU_FN(sha3, sponge_squeeze)((uint8_t *)st.s, rate, rate, out, outlen);
    mcu_wipe(&st, sizeof st);
}

#define H(out, in, n) hash2(out, 32, RATE_SHA3_256, SHA3_SUFFIX_SHA3, in, n, NULL, 0)
#define G(out, a, alen, b, blen) hash2(out, 64, RATE_SHA3_512, SHA3_SUFFIX_SHA3, a, alen, b, blen)
#define J(out, z, c, clen) hash2(out, 32, RATE_SHAKE256, SHA3_SUFFIX_SHAKE, z, 32, c, clen)

/* SamplePolyCBD_eta(PRF_eta(s, b)) (Algorithms 8): eta 2 or 3 */
static void poly_noise(poly *r, const uint8_t seed[32], uint8_t nonce, unsigned eta)
{
    uint8_t buf[64 * 3];
    hash2(buf, 64 * eta, RATE_SHAKE256, SHA3_SUFFIX_SHAKE, seed, 32, &nonce, 1);
    if (eta == 2) {
        for (unsigned i = 0; i < N / 2; i++) {   /* a byte: two coefficients of 2 + 2 bits */
            unsigned t = buf[i];
            unsigned s = (t & 0x55) + ((t >> 1) & 0x55);
            r->c[2 * i] = csubq((uint16_t)((s & 3) + Q - ((s >> 2) & 3)));
            r->c[2 * i + 1] = csubq((uint16_t)(((s >> 4) & 3) + Q - ((s >> 6) & 3)));
        }
    } else {
        for (unsigned i = 0; i < N / 4; i++) {   /* three bytes: four coefficients of 3 + 3 bits */
            uint32_t t = (uint32_t)buf[3 * i] | ((uint32_t)buf[3 * i + 1] << 8) | ((uint32_t)buf[3 * i + 2] << 16);
            uint32_t s = (t & 0x249249) + ((t >> 1) & 0x249249) + ((t >> 2) & 0x249249);
            for (unsigned j = 0; j < 4; j++) {
                r->c[4 * i + j] = csubq((uint16_t)(((s >> (6 * j)) & 7) + Q - ((s >> (6 * j + 3)) & 7)));
            }
        }
    }
    mcu_wipe(buf, sizeof buf);
}

static void xof_init(sponge *st, const uint8_t rho[32], uint8_t j, uint8_t i)
{
    uint8_t idx[2] = {j, i};
    MCU_FN(sha3, sponge_init)((uint8_t *)st->s);
    unsigned pos = absorb(st, RATE_SHAKE128, 0, rho, 32);
    pos = absorb(st, RATE_SHAKE128, pos, idx, 2);
    MCU_FN(sha3, sponge_finalize)((uint8_t *)st->s, RATE_SHAKE128, pos, SHA3_SUFFIX_SHAKE);
}

/* SampleNTT(rho | j | i) (Algorithm 7) for a public rho: rejection sampling, as many blocks as it takes */
static void poly_sample_public(poly *r, const uint8_t rho[32], uint8_t j, uint8_t i)
{
    sponge st;
    uint32_t block[RATE_SHAKE128 / 4];
    const uint8_t *b = (const uint8_t *)block;
    unsigned ctr = 0;
    xof_init(&st, rho, j, i);
    while (ctr < N) {     /* a whole block at a time: the candidates beyond the 256th are dropped */
        MCU_FN(sha3, sponge_squeezeblocks)((uint8_t *)st.s, RATE_SHAKE128, (uint8_t *)block, 1);
        for (unsigned p = 0; p < RATE_SHAKE128; p += 3) {
            uint16_t d1 = (uint16_t)(b[p] | ((b[p + 1] & 0x0Fu) << 8));
            uint16_t d2 = (uint16_t)((b[p + 1] >> 4) | ((uint16_t)b[p + 2] << 4));
            if (d1 < Q && ctr < N) {
                r->c[ctr++] = d1;
            }
            if (d2 < Q && ctr < N) {
                r->c[ctr++] = d2;
            }
        }
    }
}

/* SampleNTT for key generation, where rho derives from the secret d: a fixed SAMPLE_BLOCKS_CT blocks,
 * acceptance and the count as masks (no branch); the accepted value goes to position ctr (a secret-indexed
 * store), the others rewrite a coefficient with itself. Returns 0, or -1 when fewer than 256 were accepted
 * (FIPS 203 Appendix B: below 2^-261 for 280 iterations). */
static int poly_sample_ct(poly *r, const uint8_t rho[32], uint8_t j, uint8_t i)
{
    sponge st;
    uint32_t block[RATE_SHAKE128 / 4];
    const uint8_t *b = (const uint8_t *)block;
    uint16_t ctr = 0;
    xof_init(&st, rho, j, i);
    for (unsigned blk = 0; blk < SAMPLE_BLOCKS_CT; blk++) {
        MCU_FN(sha3, sponge_squeezeblocks)((uint8_t *)st.s, RATE_SHAKE128, (uint8_t *)block, 1);
        for (unsigned p = 0; p < RATE_SHAKE128; p += 3) {
            uint16_t d[2];
            d[0] = (uint16_t)(b[p] | ((b[p + 1] & 0x0Fu) << 8));
            d[1] = (uint16_t)((b[p + 1] >> 4) | ((uint16_t)b[p + 2] << 4));
            for (unsigned h = 0; h < 2; h++) {
                /* d < q and ctr < 256, from the borrows' sign bits (16-bit: avr-gcc tests the sign bit of a
                 * 32-bit value with a skip) */
                uint16_t take = (uint16_t)((uint16_t)(d[h] - Q) >> 15) & (uint16_t)((uint16_t)(ctr - N) >> 15);
                uint16_t mask = (uint16_t)(0u - take);
                uint16_t *slot = &r->c[ctr & (N - 1)];
                *slot = (uint16_t)((*slot & ~mask) | (d[h] & mask));
                ctr = (uint16_t)(ctr + take);
            }
        }
    }
    mcu_wipe(&st, sizeof st);
    return -(int)((uint16_t)(ctr - N) >> 15);
}

/* -- K-PKE and ML-KEM (sections 5-7) ------------------------------------------------------------------- */

/* Algorithms 13 and 16: ek = t_hat | rho, dk = s_hat | ek | H(ek) | z; s_hat and t_hat kept packed */
__attribute__((noinline)) static int keygen(const params *P, uint8_t *ek, uint8_t *dk, const uint8_t *d, const uint8_t *z)
{
    const unsigned k = P->k;
    ASSUME_PARAMS(P);
    uint8_t seeds[64];                 /* rho | sigma */
    uint8_t kb = (uint8_t)k;
    poly acc, a, s;
    int fail = 0;
    G(seeds, d, 32, &kb, 1);
    const uint8_t *rho = seeds, *sigma = seeds + 32;
    for (unsigned j = 0; j < k; j++) {         /* s_hat_j = NTT(s_j), packed into dk */
        poly_noise(&s, sigma, (uint8_t)j, P->eta1);
        poly_ntt(&s);
        poly_tobytes(dk + 384 * j, &s);
    }
    for (unsigned i = 0; i < k; i++) {         /* t_hat_i = sum_j A_hat[i][j] o s_hat_j + NTT(e_i) */
        poly_zero(&acc);
        for (unsigned j = 0; j < k; j++) {
            fail |= poly_sample_ct(&a, rho, (uint8_t)j, (uint8_t)i);
            poly_frombytes(&s, dk + 384 * j);
            poly_basemul_acc(&acc, &a, &s);
        }
        poly_tomont(&acc);
        poly_noise(&s, sigma, (uint8_t)(k + i), P->eta1);
        poly_ntt(&s);
        poly_add(&acc, &s);
        poly_tobytes(ek + 384 * i, &acc);
    }
    memcpy(ek + 384 * k, rho, 32);
    memcpy(dk + 384 * k, ek, 384 * k + 32);
    H(dk + 768 * k + 32, ek, 384 * k + 32);
    memcpy(dk + 768 * k + 64, z, 32);
    mcu_wipe(seeds, sizeof seeds);
    mcu_wipe(&s, sizeof s);
    mcu_wipe(&acc, sizeof acc);
    return fail;
}

/* Algorithm 14 (K-PKE.Encrypt): c = Compress(u) | Compress(v). With cmp NULL it writes c; otherwise it
 * compares each encoded piece with cmp as it is produced and returns the OR of every byte difference. */
__attribute__((noinline)) static uint8_t encrypt(const params *P, uint8_t *c, const uint8_t *cmp, const uint8_t *ek,
                       const uint8_t m[32], const uint8_t r[32])
{
    const unsigned k = P->k;
    ASSUME_PARAMS(P);
    const uint8_t *rho = ek + 384 * k;
    poly y[4], acc, a;
    uint8_t *piece = (uint8_t *)a.c;       /* an encoded piece (32 du <= 352 bytes) where a is no longer needed */
    uint8_t diff = 0;
    unsigned nonce = 0;
    for (unsigned j = 0; j < k; j++) {
        poly_noise(&y[j], r, (uint8_t)nonce++, P->eta1);
        poly_ntt(&y[j]);
    }
    for (unsigned i = 0; i < k; i++) {     /* u_i = NTT^-1(sum_j A_hat[j][i] o y_hat_j) + e1_i */
        poly_zero(&acc);
        for (unsigned j = 0; j < k; j++) {
            poly_sample_public(&a, rho, (uint8_t)i, (uint8_t)j);
            poly_basemul_acc(&acc, &a, &y[j]);
        }
        poly_invntt(&acc);
        poly_noise(&a, r, (uint8_t)nonce++, 2);
        poly_add(&acc, &a);
        poly_compress(piece, &acc, P->du);
        if (cmp) {
            unsigned t = 0;
            do {                           /* (do-while: no zero-trip path, 32 du bytes) */
                diff |= (uint8_t)(piece[t] ^ cmp[32 * P->du * i + t]);
            } while (++t < 32 * P->du);
        } else {
            memcpy(c + 32 * P->du * i, piece, 32 * P->du);
        }
    }
    poly_zero(&acc);                       /* v = NTT^-1(t_hat^T o y_hat) + e2 + mu */
    for (unsigned j = 0; j < k; j++) {
        poly_frombytes(&a, ek + 384 * j);
        poly_basemul_acc(&acc, &a, &y[j]);
    }
    poly_invntt(&acc);
    poly_noise(&a, r, (uint8_t)nonce, 2);
    poly_add(&acc, &a);
    poly_frommsg(&a, m);
    poly_add(&acc, &a);
    poly_compress(piece, &acc, P->dv);
    if (cmp) {
        unsigned t = 0;
        do {
            diff |= (uint8_t)(piece[t] ^ cmp[32 * P->du * k + t]);
        } while (++t < 32 * P->dv);
    } else {
        memcpy(c + 32 * P->du * k, piece, 32 * P->dv);
    }
    mcu_wipe(y, sizeof y);
    mcu_wipe(&acc, sizeof acc);
    mcu_wipe(&a, sizeof a);                /* and the last piece in it */
    return diff;
}

/* Algorithm 15 (K-PKE.Decrypt): m = ByteEncode_1(Compress_1(v - NTT^-1(s_hat^T o NTT(u)))) */
__attribute__((noinline)) static void decrypt(const params *P, uint8_t m[32], const uint8_t *dk_pke, const uint8_t *c)
{
    const unsigned k = P->k;
    ASSUME_PARAMS(P);
    poly acc, u, s;
    poly_zero(&acc);
    for (unsigned i = 0; i < k; i++) {
        poly_decompress(&u, c + 32 * P->du * i, P->du);
        poly_ntt(&u);
        poly_frombytes(&s, dk_pke + 384 * i);
        poly_basemul_acc(&acc, &s, &u);
    }
    poly_invntt(&acc);
    poly_decompress(&u, c + 32 * P->du * k, P->dv);
    for (unsigned j = 0; j < N; j++) {
        u.c[j] = subq(u.c[j], acc.c[j]);
    }
    poly_tomsg(m, &u);
    mcu_wipe(&acc, sizeof acc);
    mcu_wipe(&u, sizeof u);
    mcu_wipe(&s, sizeof s);
}

/* Section 7.2's modulus check: every 12-bit value of ek's t_hat below q (ek is public; one verdict at the end) */
static int ek_modulus_ok(const params *P, const uint8_t *ek)
{
    const unsigned k = P->k;
    ASSUME_PARAMS(P);
    unsigned over = 0;                     /* the sign bits of q - 1 - x: set for x >= q */
    for (unsigned i = 0; i < 128 * k; i++) {
        const uint8_t *p = ek + 3 * i;
        unsigned x = p[0] | ((p[1] & 0x0Fu) << 8), y = (p[1] >> 4) | ((unsigned)p[2] << 4);
        over |= (unsigned)(Q - 1 - x) | (unsigned)(Q - 1 - y);
    }
    return !((uint16_t)over >> 15);
}

/* Algorithm 17 */
static int encaps(const params *P, uint8_t *ct, uint8_t *ss, const uint8_t *ek, const uint8_t *m)
{
    const unsigned ek_bytes = 384 * P->k + 32;
    uint8_t h[32], kr[64];             /* H(ek); K | r */
    if (!ek_modulus_ok(P, ek)) {
        return -1;
    }
    H(h, ek, ek_bytes);
    G(kr, m, 32, h, 32);
    encrypt(P, ct, NULL, ek, m, kr + 32);
    memcpy(ss, kr, 32);
    mcu_wipe(kr, sizeof kr);
    return 0;
}

/* Algorithm 18 after section 7.3's hash check (dk's ek and h are public; dk_pke and z secret) */
static int decaps(const params *P, uint8_t *ss, const uint8_t *ct, const uint8_t *dk)
{
    const unsigned k = P->k, ek_bytes = 384 * k + 32, ct_bytes = 32 * (P->du * k + P->dv);
    ASSUME_PARAMS(P);
    const uint8_t *dk_pke = dk, *ek = dk + 384 * k, *h = dk + 768 * k + 32, *z = dk + 768 * k + 64;
    uint8_t hh[32], m[32], kr[64], kbar[32];
    uint8_t bad = 0;
    H(hh, ek, ek_bytes);
    for (unsigned t = 0; t < 32; t++) {
        bad |= (uint8_t)(hh[t] ^ h[t]);
    }
    if (bad) {
        memset(ss, 0, 32);
        return -1;
    }
    decrypt(P, m, dk_pke, ct);
    G(kr, m, 32, h, 32);
    J(kbar, z, ct, ct_bytes);
    uint8_t diff = encrypt(P, NULL, ct, ek, m, kr + 32);
    /* mask = 0xFF when the re-encryption differs from ct: K-bar; 0x00 when equal: K' */
    uint8_t mask = (uint8_t)(0u - (((uint32_t)diff + 0xFFu) >> 8));
    for (unsigned t = 0; t < 32; t++) {
        ss[t] = (uint8_t)((kr[t] & (uint8_t)~mask) | (kbar[t] & mask));
    }
    mcu_wipe(m, sizeof m);
    mcu_wipe(kr, sizeof kr);
    mcu_wipe(kbar, sizeof kbar);
    return 0;
}

/* -- the three parameter sets (Table 2) ---------------------------------------------------------------- */

#define MLKEM_API(id, K, ETA1, DU, DV)                                                                       \
    static const params id##_params = {K, ETA1, DU, DV};                                                     \
    int MCU_FN(id, keygen)(uint8_t *ek, uint8_t *dk, const uint8_t *d, const uint8_t *z);                   \
    int MCU_FN(id, encaps)(uint8_t *ct, uint8_t *ss, const uint8_t *ek, const uint8_t *m);                  \
    int MCU_FN(id, decaps)(uint8_t *ss, const uint8_t *ct, const uint8_t *dk);                              \
    int MCU_FN(id, keygen)(uint8_t *ek, uint8_t *dk, const uint8_t *d, const uint8_t *z)                    \
    {                                                                                                        \
        return keygen(&id##_params, ek, dk, d, z);                                                           \
    }                                                                                                        \
    int MCU_FN(id, encaps)(uint8_t *ct, uint8_t *ss, const uint8_t *ek, const uint8_t *m)                   \
    {                                                                                                        \
        return encaps(&id##_params, ct, ss, ek, m);                                                          \
    }                                                                                                        \
    int MCU_FN(id, decaps)(uint8_t *ss, const uint8_t *ct, const uint8_t *dk)                               \
    {                                                                                                        \
        return decaps(&id##_params, ss, ct, dk);                                                             \
    }

MLKEM_API(mlkem512, 2, 3, 10, 4)
MLKEM_API(mlkem768, 3, 2, 10, 4)
MLKEM_API(mlkem1024, 4, 2, 11, 5)
