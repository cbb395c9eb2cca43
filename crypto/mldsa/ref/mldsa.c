// SPDX-License-Identifier: MIT
/* ML-DSA (FIPS 204): ML-DSA-44, -65 and -87 in portable C99, written from the standard (algorithm numbers
 * are FIPS 204's), on the project's SHAKE (crypto/sha3's sponge over a crypto/keccak permutation, compiled
 * into this family under its own names: keccakf1600=mldsa_keccakf1600, sha3=mldsa_sha3).
 *
 * Memory: nothing is kept that can be regenerated or read back from the caller's buffers.
 *   - The matrix A is never stored: each entry is sampled block by block from SHAKE128 (RejNTTPoly) and
 *     multiplied into its accumulator as it is produced.
 *   - KeyGen writes s1, s2 into sk first and reads them back from there; it works row by row (two
 *     polynomials: the row's accumulator and one operand).
 *   - Sign keeps w (k polynomials, the commitment it needs after c is known), c in the NTT domain and two
 *     operands; y is regenerated from rho'' when z is formed, s1, s2, t0 are unpacked from sk when used.
 *   - Verify works row by row on two polynomials: z_j is unpacked from the signature for every row, c*t1
 *     is a sparse product in the normal domain (c has tau coefficients +-1), and w1' is absorbed into
 *     the hash of c~' as each row is produced.
 *
 * Arithmetic: coefficients int32, Montgomery multiplication with R = 2^32 (montmul(a, b) = a b / R mod q,
 * |result| < q for |a b| < q 2^31), the NTT of FIPS 204 Algorithms 41/42 with the zetas in Montgomery
 * form, so a product of two NTT-domain operands ends up in the normal domain after the inverse NTT's
 * final multiplication by R^2 / 256 (41978).
 *
 * Constant time (docs/mldsa.md): no branch, address or variable-latency operand depends on a secret
 * (xi, rho', K, s1, s2, t0, rnd, y, rho'', and every intermediate of a rejected signing attempt), with two
 * declassifications, both of values FIPS 204 makes public:
 *   - rho (the public key's first 32 bytes), on which RejNTTPoly (sampling A) branches: derived from xi
 *     in KeyGen and read from sk in Sign, it goes through mcu_declassify once per call (declassify_rho);
 *   - the signing loop's verdict (accept or try again), section 3.4 (only accepted signatures are
 *     released and the number of attempts is independent of the key).
 *   - RejBoundedPoly (s1, s2) reads a fixed number of SHAKE256 blocks (2 for eta = 2, 3 for eta = 4) and
 *     compacts the accepted nibbles obliviously (log-shift compaction); more than that is needed with
 *     probability below 2^-900 (eta = 2) and 2^-154 (eta = 4) per polynomial.
 *   - SampleInBall in signing reads a fixed number of bytes (128, or 264 for ML-DSA-87; more is needed
 *     with probability below 2^-140) and updates c by scanning all of it (64 words) for each byte.
 *     Verification samples c from the public c~ with the plain loop.
 *   - The hints are packed by the same oblivious compaction, the norms and MakeHint are branch-free.
 */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/top_bit.h"
#include "mcucrypt/declassify.h"
/* crypto/sha3's sponge under this family's names, so a library with SHA-3 and ML-DSA links without a clash */
#ifndef sha3
#error "sha3 must be defined as mldsa_sha3: crypto/sha3's sponge in this family's namespace"
#endif
/* In the tree crypto/sha3 is beside crypto/mldsa; an exported library (mcucrypt/export.py) puts the
 * sources of another family inside this unit's folder, under that family's name */
#if defined(__has_include) && __has_include("../sha3/ref/sha3.h")
#include "../sha3/ref/sha3.h"
#else
#include "../../sha3/ref/sha3.h"
#endif

#define Q 8380417
#define QINV 58728449          /* q^-1 mod 2^32 */
#define N 256
#define D 13
#define SHAKE128_RATE 168
#define SHAKE256_RATE 136

typedef struct {
    uint8_t k, l, eta, tau, omega, ctilde_bytes, eta_bits, z_bits, w1_bits;
    int32_t gamma1, gamma2, beta;
    uint16_t pk_bytes, sk_bytes, sig_bytes;
} params;

static const params P44 = {4, 4, 2, 39, 80, 32, 3, 18, 6, 1L << 17, (Q - 1) / 88, 78, 1312, 2560, 2420};
static const params P65 = {6, 5, 4, 49, 55, 48, 4, 20, 4, 1L << 19, (Q - 1) / 32, 196, 1952, 4032, 3309};
static const params P87 = {8, 7, 2, 60, 75, 64, 3, 20, 4, 1L << 19, (Q - 1) / 32, 120, 2592, 4896, 4627};

typedef struct {
    uint32_t st[50];           /* the Keccak state, word-aligned */
    unsigned pos;
    unsigned rate;
} xof;

static void xof_init(xof *x, unsigned rate)
{
    MCU_FN(sha3, sponge_init)((uint8_t *)x->st);
    x->pos = 0;
    x->rate = rate;
}

static void xof_absorb(xof *x, const uint8_t *in, size_t n)
{
    x->pos = MCU_FN(sha3, sponge_absorb)((uint8_t *)x->st, x->rate, x->pos, in, n);
}

static void xof_finalize(xof *x)
{
    MCU_FN(sha3, sponge_finalize)((uint8_t *)x->st, x->rate, x->pos, SHA3_SUFFIX_SHAKE);
    x->pos = x->rate;
}

static void xof_squeeze(xof *x, uint8_t *out, size_t n)
{
    x->pos = MCU_FN(sha3, sponge_squeeze)((uint8_t *)x->st, x->rate, x->pos, out, n);
}

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
}

/* ------------------------------------------------------------------------------ arithmetic mod q */
#if defined(__ARM_ARCH_7M__) || defined(__AVR__)
/* The Cortex-M3's SMULL/UMULL end early on small operands (3..7 cycles), and on the AVR the 64-bit
 * product goes through libgcc's __mulsidi3/__muldi3, which branch on operand bits: a secret operand's
 * size would show. A 32 x 32 -> low 32 product is fixed-time on both (the M3's single-cycle MUL, the
 * AVR's MUL sequence), so the high half of a product is taken from four 16 x 16 -> 32 products (umulhi)
 * and corrected for the signs with masks (smulhi). a b and m q have the same low 32 bits (that is how m
 * is chosen), so a b / R - m q / R is the difference of the high halves. */
static uint32_t umulhi(uint32_t a, uint32_t b)
{
    uint32_t al = a & 0xFFFF, ah = a >> 16, bl = b & 0xFFFF, bh = b >> 16;
    uint32_t lo = al * bl, m1 = al * bh, m2 = ah * bl, hi = ah * bh;
    uint32_t mid = (lo >> 16) + (m1 & 0xFFFF) + (m2 & 0xFFFF);       /* < 3 * 2^16: no overflow */
    return hi + (m1 >> 16) + (m2 >> 16) + (mid >> 16);
}

static int32_t smulhi(int32_t a, int32_t b)                   /* floor(a b / 2^32) */
{
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    return (int32_t)(umulhi(ua, ub) - ((uint32_t)(a >> 31) & ub) - ((uint32_t)(b >> 31) & ua));
}

static int32_t montmul(int32_t a, int32_t b)
{
    int32_t m = (int32_t)((uint32_t)a * (uint32_t)b * (uint32_t)QINV);
    return smulhi(a, b) - smulhi(m, Q);
}
#else
static int32_t montmul(int32_t a, int32_t b)
{
    int64_t t = (int64_t)a * b;
    int32_t m = (int32_t)((uint32_t)t * (uint32_t)QINV);
    return (int32_t)((t - (int64_t)m * Q) >> 32);
}
#endif

static int32_t reduce32(int32_t a)          /* |a| <= 2^31 - 2^22: a mod q in [-6283008, 6283008] */
{
    int32_t t = (a + (INT32_C(1) << 22)) >> 23;
    return a - t * Q;
}

static int32_t caddq(int32_t a)             /* a in (-q, q) -> [0, q) */
{
    return a + ((a >> 31) & Q);
}

static int32_t freeze(int32_t a)
{
    return caddq(reduce32(a));
}

static int32_t centre(int32_t a)            /* a mod+- q, in (-(q-1)/2, (q-1)/2] */
{
    a = freeze(a);
    return a - ((((Q - 1) / 2) - a) >> 31 & Q);
}

/* 0xFFFFFFFF when a < b, 0 otherwise (a, b in (-2^30, 2^30)) */
static uint32_t lt_mask(int32_t a, int32_t b)
{
    return (uint32_t)((a - b) >> 31);
}

static int32_t absv(int32_t a)
{
    int32_t m = a >> 31;
    return (a ^ m) - m;
}

static const int32_t ZETAS[N] = {
    -4186625, 25847, -2608894, -518909, 237124, -777960, -876248, 466468, 1826347, 2353451, -359251, -2091905,
    3119733, -2884855, 3111497, 2680103, 2725464, 1024112, -1079900, 3585928, -549488, -1119584, 2619752,
    -2108549, -2118186, -3859737, -1399561, -3277672, 1757237, -19422, 4010497, 280005, 2706023, 95776, 3077325,
    3530437, -1661693, -3592148, -2537516, 3915439, -3861115, -3043716, 3574422, -2867647, 3539968, -300467,
    2348700, -539299, -1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596, 811944, 531354,
    954230, 3881043, 3900724, -2556880, 2071892, -2797779, -3930395, -1528703, -3677745, -3041255, -1452451,
    3475950, 2176455, -1585221, -1257611, 1939314, -4083598, -1000202, -3190144, -3157330, -3632928, 126922,
    3412210, -983419, 2147896, 2715295, -2967645, -3693493, -411027, -2477047, -671102, -1228525, -22981,
    -1308169, -381987, 1349076, 1852771, -1430430, -3343383, 264944, 508951, 3097992, 44288, -1100098, 904516,
    3958618, -3724342, -8578, 1653064, -3249728, 2389356, -210977, 759969, -1316856, 189548, -3553272, 3159746,
    -1851402, -2409325, -177440, 1315589, 1341330, 1285669, -1584928, -812732, -1439742, -3019102, -3881060,
    -3628969, 3839961, 2091667, 3407706, 2316500, 3817976, -3342478, 2244091, -2446433, -3562462, 266997, 2434439,
    -1235728, 3513181, -3520352, -3759364, -1197226, -3193378, 900702, 1859098, 909542, 819034, 495491, -1613174,
    -43260, -522500, -655327, -3122442, 2031748, 3207046, -3556995, -525098, -768622, -3595838, 342297, 286988,
    -2437823, 4108315, 3437287, -3342277, 1735879, 203044, 2842341, 2691481, -2590150, 1265009, 4055324, 1247620,
    2486353, 1595974, -3767016, 1250494, 2635921, -3548272, -2994039, 1869119, 1903435, -1050970, -1333058,
    1237275, -3318210, -1430225, -451100, 1312455, 3306115, -1962642, -1279661, 1917081, -2546312, -1374803,
    1500165, 777191, 2235880, 3406031, -542412, -2831860, -1671176, -1846953, -2584293, -3724270, 594136,
    -3776993, -2013608, 2432395, 2454455, -164721, 1957272, 3369112, 185531, -1207385, -3183426, 162844, 1616392,
    3014001, 810149, 1652634, -3694233, -1799107, -3038916, 3523897, 3866901, 269760, 2213111, -975884, 1717735,
    472078, -426683, 1723600, -1803090, 1910376, -1667432, -1104333, -260646, -3833893, -2939036, -2235985,
    -420899, -2286327, 183443, -976891, 1612842, -3545687, -554416, 3919660, -48306, -1362209, 3937738, 1400424,
    -846154, 1976782
};

static void ntt(int32_t a[N])                 /* Algorithm 41; |a| < q in, |a| < 9q out */
{
    unsigned k = 0;
    for (unsigned len = 128; len > 0; len >>= 1) {
        for (unsigned start = 0; start < N; start += 2 * len) {
            int32_t zeta = ZETAS[++k];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = montmul(zeta, a[j + len]);
                a[j + len] = a[j] - t;
                a[j] = a[j] + t;
            }
        }
    }
}

static void intt(int32_t a[N])                /* Algorithm 42 times R (see above); |a| < q in and out */
{
    unsigned k = N;
    for (unsigned len = 1; len < N; len <<= 1) {
        for (unsigned start = 0; start < N; start += 2 * len) {
            int32_t zeta = -ZETAS[--k];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = a[j];
                a[j] = t + a[j + len];
                a[j + len] = montmul(zeta, t - a[j + len]);
            }
        }
    }
    for (unsigned j = 0; j < N; j++)
        a[j] = montmul(41978, a[j]);
}

static void poly_reduce(int32_t a[N])
{
    for (unsigned j = 0; j < N; j++)
        a[j] = reduce32(a[j]);
}

/* ------------------------------------------------------------------------------ bit packing */
/* Little-endian bit stream (FIPS 204 Algorithms 16-19): n values of `bits` bits from/to bytes. */
static void unpack_bits(uint32_t *out, const uint8_t *in, unsigned n, unsigned bits)
{
    uint32_t acc = 0;
    unsigned have = 0;
    uint32_t mask = (UINT32_C(1) << bits) - 1;
    for (unsigned i = 0; i < n; i++) {
        while (have < bits) {
            acc |= (uint32_t)*in++ << have;
            have += 8;
        }
        out[i] = acc & mask;
        acc >>= bits;
        have -= bits;
    }
}

static void pack_bits(uint8_t *out, const uint32_t *in, unsigned n, unsigned bits)
{
    uint32_t acc = 0;
    unsigned have = 0;
    for (unsigned i = 0; i < n; i++) {
        acc |= in[i] << have;
        have += bits;
        while (have >= 8) {
            *out++ = (uint8_t)acc;
            acc >>= 8;
            have -= 8;
        }
    }
}

/* BitUnpack(v, b - 1 or b, b): coefficient = b - value */
static void unpack_offset(int32_t a[N], const uint8_t *in, unsigned bits, int32_t b)
{
    unpack_bits((uint32_t *)a, in, N, bits);
    for (unsigned j = 0; j < N; j++)
        a[j] = b - a[j];
}

static void pack_offset(uint8_t *out, int32_t a[N], unsigned bits, int32_t b)
{
    for (unsigned j = 0; j < N; j++)
        a[j] = b - a[j];
    pack_bits(out, (const uint32_t *)a, N, bits);
}

/* ------------------------------------------------------------------------------ rounding */
static int32_t decompose(const params *p, int32_t *a0, int32_t a)   /* Algorithm 36, a in [0, q) */
{
    int32_t a1 = (a + 127) >> 7;
    if (p->gamma2 == (Q - 1) / 32) {                  /* the branch is on the parameter set */
        /* a1 < 2^16: the products stay below 2^31; unsigned shifts (avr-gcc sign-extends a signed one
         * with a skip on the top bit) */
        a1 = (int32_t)(((uint32_t)a1 * 1025 + (UINT32_C(1) << 21)) >> 22);
        a1 &= 15;
    } else {
        a1 = (int32_t)(((uint32_t)a1 * 11275 + (UINT32_C(1) << 23)) >> 24);
        a1 ^= ((43 - a1) >> 31) & a1;
    }
    int32_t r0 = a - a1 * 2 * p->gamma2;
    r0 -= (((Q - 1) / 2 - r0) >> 31) & Q;
    *a0 = r0;
    return a1;
}

static int32_t use_hint(const params *p, int32_t a, unsigned hint)   /* Algorithm 40 (public data) */
{
    int32_t a0, a1 = decompose(p, &a0, a);
    if (!hint)
        return a1;
    if (p->gamma2 == (Q - 1) / 32)
        return a0 > 0 ? (a1 + 1) & 15 : (a1 - 1) & 15;
    return a0 > 0 ? (a1 == 43 ? 0 : a1 + 1) : (a1 == 0 ? 43 : a1 - 1);
}

/* ------------------------------------------------------------------------------ sampling */
/* out = rho, made public for the constant-time checker: FIPS 204 publishes rho as the public key's first 32
 * bytes, and A's rejection sampling (below) branches on it. rho is derived from xi in KeyGen and read from
 * sk in Sign, so it carries their taint until here. It goes through mcu_declassify word by word
 * (little-endian): the checker holds these 8 values to pk's (KeyGen) or sk's (Sign) first 32 bytes. */
static void declassify_rho(uint8_t out[32], const uint8_t rho[32])
{
    for (unsigned i = 0; i < 32; i += 4) {
        uint32_t w = rho[i] | ((uint32_t)rho[i + 1] << 8) | ((uint32_t)rho[i + 2] << 16)
                     | ((uint32_t)rho[i + 3] << 24);
        w = mcu_declassify(w);
        out[i] = (uint8_t)w;
        out[i + 1] = (uint8_t)(w >> 8);
        out[i + 2] = (uint8_t)(w >> 16);
        out[i + 3] = (uint8_t)(w >> 24);
    }
}

/* acc += A[i][j] o b: RejNTTPoly (Algorithm 30) on SHAKE128(rho || j || i), sampled block by block and
 * multiplied in as produced. A is public: the rejection branch is allowed. */
static void matrix_entry_mul_acc(int32_t acc[N], const int32_t b[N], const uint8_t rho[32], unsigned i,
                                 unsigned j)
{
    xof x;
    uint8_t idx[2] = {(uint8_t)j, (uint8_t)i};
    uint8_t buf[SHAKE128_RATE];
    xof_init(&x, SHAKE128_RATE);
    xof_absorb(&x, rho, 32);
    xof_absorb(&x, idx, 2);
    xof_finalize(&x);
    unsigned n = 0;
    while (n < N) {
        MCU_FN(sha3, sponge_squeezeblocks)((uint8_t *)x.st, SHAKE128_RATE, buf, 1);
        for (unsigned pos = 0; pos < SHAKE128_RATE && n < N; pos += 3) {
            uint32_t t = buf[pos] | ((uint32_t)buf[pos + 1] << 8) | ((uint32_t)(buf[pos + 2] & 0x7F) << 16);
            if (t < Q) {
                acc[n] += montmul((int32_t)t, b[n]);
                n++;
            }
        }
    }
}

/* Oblivious compaction: v[0..n) hold entries with bit 31 set when valid, bits 16..30 the number of
 * invalid entries before them (their distance to their place), bits 0..15 the payload. Shifting every
 * valid entry left by its distance's bits from the lowest up never lets two valid entries meet (the
 * distances do not decrease along the array); every step touches every entry, so the memory trace is
 * fixed. On return the valid payloads are at v[0..count) in their order. */
static void compact(uint32_t *v, unsigned n)
{
    for (unsigned step = 1, bit = 16; step < n; step <<= 1, bit++) {
        for (unsigned i = step; i < n; i++) {
            uint32_t moving = (uint32_t)0 - (mcu_top_bit(v[i]) & (v[i] >> bit) & 1);
            v[i - step] = (v[i] & moving) | (v[i - step] & ~moving);
            v[i] &= ~moving;
        }
    }
}

/* RejBoundedPoly (Algorithm 31) on SHAKE256(rho' || r), a fixed number of blocks (see the top). */
#define ETA_MAX_BLOCKS 3
static void sample_eta(const params *p, int32_t a[N], const uint8_t seed[64], unsigned r, uint32_t *v)
{
    xof x;
    uint8_t idx[2] = {(uint8_t)r, (uint8_t)(r >> 8)};
    uint8_t buf[SHAKE256_RATE];
    unsigned blocks = p->eta == 2 ? 2 : 3, n = 0;
    uint32_t skipped = 0;
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, seed, 64);
    xof_absorb(&x, idx, 2);
    xof_finalize(&x);
    for (unsigned b = 0; b < blocks; b++) {
        MCU_FN(sha3, sponge_squeezeblocks)((uint8_t *)x.st, SHAKE256_RATE, buf, 1);
        for (unsigned i = 0; i < 2 * SHAKE256_RATE; i++) {
            uint32_t z = (uint32_t)(buf[i / 2] >> (4 * (i & 1))) & 15;
            uint32_t ok, val;
            if (p->eta == 2) {                             /* z < 15: 2 - (z mod 5), z mod 5 by a product */
                ok = (uint32_t)((int32_t)(z - 15) >> 31);
                val = 2 + 5 - (z - ((z * 205) >> 10) * 5);   /* stored + 5 so that it stays >= 0 */
            } else {                                       /* z < 9: 4 - z */
                ok = (uint32_t)((int32_t)(z - 9) >> 31);
                val = 4 + 5 - z;
            }
            v[n++] = (ok & (UINT32_C(1) << 31)) | (skipped << 16) | (val & 0xFF);
            skipped += ~ok & 1;
        }
    }
    compact(v, n);
    for (unsigned j = 0; j < N; j++)
        a[j] = (int32_t)(v[j] & 0xFFFF) - 5;
    wipe(buf, sizeof buf);
    wipe(&x, sizeof x);
}

/* SampleInBall (Algorithm 29) on public c~ (verification): plain loop. c[] in {-1, 0, 1}. */
static void challenge_public(const params *p, int8_t c[N], const uint8_t *ctilde)
{
    xof x;
    uint8_t s[8], b;
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, ctilde, p->ctilde_bytes);
    xof_finalize(&x);
    xof_squeeze(&x, s, 8);
    for (unsigned i = 0; i < N; i++)
        c[i] = 0;
    for (unsigned i = N - p->tau; i < N; i++) {
        do {
            xof_squeeze(&x, &b, 1);
        } while (b > i);
        unsigned t = i + p->tau - N;
        c[i] = c[b];
        c[b] = (int8_t)(1 - 2 * ((s[t / 8] >> (t % 8)) & 1));
    }
}

/* SampleInBall on secret c~ (signing): a fixed number of bytes after the sign bits (128 when tau < 60,
 * more needed with probability below 2^-140; 264 for tau = 60, below 2^-364); each byte may place the next
 * coefficient (when it is <= i and i < 256). c is kept as 256 bytes in 64 words, read and written at every
 * word for every byte with masks (the byte's word and lane, and i's, are secret). */
#define BALL_BYTES_MAX 264
static uint32_t eq_mask(uint32_t a, uint32_t b)              /* a == b: all ones (a, b < 2^31) */
{
    return (uint32_t)((int32_t)((a ^ b) - 1) >> 31);
}

static uint32_t lane_mask(uint32_t pos)                      /* byte pos & 3 of a word, all ones */
{
    uint32_t lane = pos & 3;
    return (eq_mask(lane, 0) & 0xFFu) | (eq_mask(lane, 1) & 0xFF00u) | (eq_mask(lane, 2) & 0xFF0000u) |
           (eq_mask(lane, 3) & 0xFF000000u);
}

static void challenge_secret(const params *p, int32_t c[N], const uint8_t *ctilde)
{
    xof x;
    uint8_t s[8], buf[BALL_BYTES_MAX];
    uint32_t cw[N / 4];
    unsigned nbytes = p->tau == 60 ? BALL_BYTES_MAX : SHAKE256_RATE - 8;
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, ctilde, p->ctilde_bytes);
    xof_finalize(&x);
    xof_squeeze(&x, s, 8);
    xof_squeeze(&x, buf, nbytes);
    uint32_t signs_lo = s[0] | ((uint32_t)s[1] << 8) | ((uint32_t)s[2] << 16) | ((uint32_t)s[3] << 24);
    uint32_t signs_hi = s[4] | ((uint32_t)s[5] << 8) | ((uint32_t)s[6] << 16) | ((uint32_t)s[7] << 24);
    uint32_t i = N - p->tau;
    for (unsigned w = 0; w < N / 4; w++)
        cw[w] = 0;
    for (unsigned k = 0; k < nbytes; k++) {
        uint32_t b = buf[k];
        /* take: b <= i and i < 256 */
        uint32_t take = ~((uint32_t)((int32_t)(i - b) >> 31) | (uint32_t)((int32_t)(255 - i) >> 31));
        uint32_t sign = 0x01010101u + (0xFEFEFEFEu & ((uint32_t)0 - (signs_lo & 1)));   /* +1 or -1 per byte */
        uint32_t lb = lane_mask(b), li = lane_mask(i) & take, wb = b >> 2, wi = i >> 2;
        uint32_t cb = 0;
        for (unsigned w = 0; w < N / 4; w++)
            cb |= cw[w] & eq_mask(w, wb);
        cb &= lb;
        cb = (cb | (cb >> 8) | (cb >> 16) | (cb >> 24)) & 0xFF;
        cb *= 0x01010101u;
        lb &= take;
        for (unsigned w = 0; w < N / 4; w++) {
            uint32_t mi = eq_mask(w, wi) & li, mb = eq_mask(w, wb) & lb;
            uint32_t v = (cw[w] & ~mi) | (cb & mi);
            cw[w] = (v & ~mb) | (sign & mb);
        }
        /* the next sign bit once one is used */
        uint32_t next_lo = (signs_lo >> 1) | (signs_hi << 31);
        signs_lo = (next_lo & take) | (signs_lo & ~take);
        signs_hi = ((signs_hi >> 1) & take) | (signs_hi & ~take);
        i += take & 1;
    }
    for (unsigned j = 0; j < N; j++)
        c[j] = (int8_t)(uint8_t)(cw[j / 4] >> (8 * (j % 4)));
    wipe(cw, sizeof cw);
    wipe(buf, sizeof buf);
    wipe(s, sizeof s);
    wipe(&x, sizeof x);
}

/* ExpandMask (Algorithm 34), polynomial r: y = BitUnpack(SHAKE256(rho'' || kappa + r), gamma1 - 1, gamma1) */
/* add = 0: a = y; add = 1: a += y (z = c s1 + y without a polynomial for y) */
static void sample_mask(const params *p, int32_t a[N], const uint8_t rhopp[64], unsigned kappa_r, int add)
{
    uint32_t v[8];
    xof x;
    uint8_t idx[2] = {(uint8_t)kappa_r, (uint8_t)(kappa_r >> 8)};
    uint8_t buf[5 * 4];                /* 4 coefficients of 20 (or 18) bits: 10 (9) bytes; two groups */
    unsigned group = p->z_bits == 18 ? 9 : 10;
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, rhopp, 64);
    xof_absorb(&x, idx, 2);
    xof_finalize(&x);
    for (unsigned j = 0; j < N; j += 8) {
        xof_squeeze(&x, buf, 2 * group);
        unpack_bits(v, buf, 8, p->z_bits);
        for (unsigned t = 0; t < 8; t++)
            a[j + t] = (add ? a[j + t] : 0) + p->gamma1 - (int32_t)v[t];
    }
    wipe(v, sizeof v);
    wipe(buf, sizeof buf);
    wipe(&x, sizeof x);
}

/* ------------------------------------------------------------------------------ key layout */
static size_t sk_s1(const params *p, unsigned j) { return 128 + (size_t)32 * p->eta_bits * j; }
static size_t sk_s2(const params *p, unsigned i) { return 128 + (size_t)32 * p->eta_bits * (p->l + i); }
static size_t sk_t0(const params *p, unsigned i)
{
    return 128 + (size_t)32 * p->eta_bits * (p->l + p->k) + (size_t)32 * D * i;
}

static void hash64(uint8_t out[64], const uint8_t *in, size_t n)
{
    xof x;
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, in, n);
    xof_finalize(&x);
    xof_squeeze(&x, out, 64);
}

/* ------------------------------------------------------------------------------ KeyGen (Algorithm 6) */
static int keygen_internal(const params *p, uint8_t *pk, uint8_t *sk, const uint8_t xi[32])
{
    uint8_t seeds[128];                   /* rho, rho', K */
    int32_t acc[N], t[N];
    uint32_t v[2 * SHAKE256_RATE * ETA_MAX_BLOCKS];
    xof x;
    uint8_t kl[2] = {p->k, p->l};
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, xi, 32);
    xof_absorb(&x, kl, 2);
    xof_finalize(&x);
    xof_squeeze(&x, seeds, 128);
    declassify_rho(seeds, seeds);         /* rho: public (pk's first bytes) */
    for (unsigned i = 0; i < 32; i++) {
        pk[i] = sk[i] = seeds[i];
        sk[32 + i] = seeds[96 + i];
    }
    for (unsigned r = 0; r < (unsigned)p->l + p->k; r++) {
        sample_eta(p, t, seeds + 32, r, v);
        pack_offset(sk + 128 + (size_t)32 * p->eta_bits * r, t, p->eta_bits, p->eta);
    }
    wipe(v, sizeof v);
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned n = 0; n < N; n++)
            acc[n] = 0;
        for (unsigned j = 0; j < p->l; j++) {
            unpack_offset(t, sk + sk_s1(p, j), p->eta_bits, p->eta);
            ntt(t);
            matrix_entry_mul_acc(acc, t, seeds, i, j);
        }
        poly_reduce(acc);
        intt(acc);
        unpack_offset(t, sk + sk_s2(p, i), p->eta_bits, p->eta);
        for (unsigned n = 0; n < N; n++) {
            int32_t a = freeze(acc[n] + t[n]);                    /* Power2Round (Algorithm 35) */
            int32_t a1 = (a + (1 << (D - 1)) - 1) >> D;
            acc[n] = a1;
            t[n] = a - (a1 << D);
        }
        pack_bits(pk + 32 + 320 * i, (const uint32_t *)acc, N, 10);
        pack_offset(sk + sk_t0(p, i), t, D, 1 << (D - 1));
    }
    hash64(sk + 64, pk, p->pk_bytes);                             /* tr */
    wipe(seeds, sizeof seeds);
    wipe(acc, sizeof acc);
    wipe(t, sizeof t);
    wipe(&x, sizeof x);
    return 0;
}

/* ------------------------------------------------------------------------------ Sign (Algorithm 7) */
/* M' in up to three pieces (the external interface's 0 || |ctx| header, ctx, M) */
typedef struct {
    const uint8_t *part[3];
    size_t len[3];
} message;

#define OMEGA_MAX 80

/* w and hints: k rows, in the caller's frame (the API functions size them per parameter set) */
static int sign_internal(const params *p, uint8_t *sig, const message *m, const uint8_t *sk,
                         const uint8_t rnd[32], int32_t (*w)[N], uint8_t (*hints)[N / 8])
{
    int32_t chat[N], t[N];               /* t: y (NTT domain), then the products c s1, c s2, c t0, z */
    uint8_t mu[64], rhopp[64], rho[32];  /* rho: sk's first bytes, made public (pk's first bytes) */
    uint32_t *v = (uint32_t *)t;         /* t's room holds w1 and the hint compaction when t is not live */
    xof x;
    const uint8_t *key = sk + 32, *tr = sk + 64;
    uint8_t *ctilde = sig, *zpack = sig + p->ctilde_bytes;
    uint8_t *hpack = zpack + (size_t)32 * p->l * p->z_bits;

    declassify_rho(rho, sk);
    xof_init(&x, SHAKE256_RATE);                                  /* mu = H(tr || M', 64) */
    xof_absorb(&x, tr, 64);
    for (unsigned i = 0; i < 3; i++)
        xof_absorb(&x, m->part[i], m->len[i]);
    xof_finalize(&x);
    xof_squeeze(&x, mu, 64);
    xof_init(&x, SHAKE256_RATE);                                  /* rho'' = H(K || rnd || mu, 64) */
    xof_absorb(&x, key, 32);
    xof_absorb(&x, rnd, 32);
    xof_absorb(&x, mu, 64);
    xof_finalize(&x);
    xof_squeeze(&x, rhopp, 64);

    for (unsigned kappa = 0;; kappa += p->l) {
        /* w = NTT^-1(A o NTT(y)), y column by column */
        for (unsigned i = 0; i < p->k; i++)
            for (unsigned n = 0; n < N; n++)
                w[i][n] = 0;
        for (unsigned j = 0; j < p->l; j++) {
            sample_mask(p, t, rhopp, kappa + j, 0);
            ntt(t);
            for (unsigned i = 0; i < p->k; i++)
                matrix_entry_mul_acc(w[i], t, rho, i, j);
        }
        /* w1 = HighBits(w), absorbed into c~ = H(mu || w1Encode(w1)) as produced */
        xof_init(&x, SHAKE256_RATE);
        xof_absorb(&x, mu, 64);
        for (unsigned i = 0; i < p->k; i++) {
            uint8_t packed[N * 6 / 8];
            poly_reduce(w[i]);
            intt(w[i]);
            for (unsigned n = 0; n < N; n++) {
                int32_t a0;
                w[i][n] = caddq(w[i][n]);
                v[n] = (uint32_t)decompose(p, &a0, w[i][n]);
            }
            pack_bits(packed, v, N, p->w1_bits);
            xof_absorb(&x, packed, (size_t)32 * p->w1_bits);
        }
        xof_finalize(&x);
        xof_squeeze(&x, ctilde, p->ctilde_bytes);
        challenge_secret(p, chat, ctilde);
        ntt(chat);

        uint32_t bad = 0;                    /* all ones once a check fails (computed without branches) */
        /* z = y + c s1, ||z|| < gamma1 - beta; packed into the signature */
        for (unsigned j = 0; j < p->l; j++) {
            unpack_offset(t, sk + sk_s1(p, j), p->eta_bits, p->eta);
            ntt(t);
            for (unsigned n = 0; n < N; n++)
                t[n] = montmul(chat[n], t[n]);
            intt(t);
            sample_mask(p, t, rhopp, kappa + j, 1);
            for (unsigned n = 0; n < N; n++) {
                int32_t z = centre(t[n]);
                bad |= ~lt_mask(absv(z), p->gamma1 - p->beta);
                t[n] = z;
            }
            pack_offset(zpack + (size_t)32 * p->z_bits * j, t, p->z_bits, p->gamma1);
        }
        /* r0 = LowBits(w - c s2), c t0, hints; w - c s2 kept in w */
        uint32_t count = 0;
        for (unsigned i = 0; i < p->k; i++) {
            unpack_offset(t, sk + sk_s2(p, i), p->eta_bits, p->eta);
            ntt(t);
            for (unsigned n = 0; n < N; n++)
                t[n] = montmul(chat[n], t[n]);
            intt(t);
            for (unsigned n = 0; n < N; n++) {
                int32_t r0, r = freeze(w[i][n] - t[n]);
                w[i][n] = r;
                decompose(p, &r0, r);
                bad |= ~lt_mask(absv(r0), p->gamma2 - p->beta);
            }
            unpack_offset(t, sk + sk_t0(p, i), D, 1 << (D - 1));
            ntt(t);
            for (unsigned n = 0; n < N; n++)
                t[n] = montmul(chat[n], t[n]);
            intt(t);
            for (unsigned n = 0; n < N / 8; n++)
                hints[i][n] = 0;
            for (unsigned n = 0; n < N; n++) {
                int32_t ct0 = centre(t[n]), lo;
                bad |= ~lt_mask(absv(ct0), p->gamma2);
                /* MakeHint(-ct0, w - cs2 + ct0): HighBits(w - cs2 + ct0) != HighBits(w - cs2) */
                int32_t h1 = decompose(p, &lo, freeze(w[i][n] + ct0));
                int32_t h0 = decompose(p, &lo, w[i][n]);
                uint32_t h = mcu_top_bit((uint32_t)(h1 ^ h0) | (uint32_t)-(h1 ^ h0));
                hints[i][n / 8] |= (uint8_t)(h << (n % 8));
                count += h;
            }
        }
        bad |= ~lt_mask((int32_t)count, p->omega + 1);
        if (mcu_declassify(bad & 1) == 0)     /* the verdict: FIPS 204 makes it public */
            break;
    }
    /* HintBitPack (Algorithm 20): the hint positions of each row compacted obliviously */
    unsigned index = 0;
    for (unsigned n = 0; n < (unsigned)p->omega + p->k; n++)
        hpack[n] = 0;
    for (unsigned i = 0; i < p->k; i++) {
        uint32_t skipped = 0, row = 0;
        for (unsigned n = 0; n < N; n++) {
            uint32_t h = (hints[i][n / 8] >> (n % 8)) & 1;
            v[n] = (h << 31) | (skipped << 16) | n;
            skipped += h ^ 1;
            row += h;
        }
        compact(v, N);
        /* the row's positions go to hpack[index..index + row): written at every slot of the omega,
         * kept where the slot belongs to this row */
        for (unsigned s = 0; s < p->omega; s++) {
            uint32_t rel = (uint32_t)s - (uint32_t)index;      /* slot s holds v[rel] when rel < row */
            /* rel's sign in 32 bits: s - index in unsigned (16 bits on AVR) would lose it */
            uint32_t in_row = lt_mask((int32_t)rel, (int32_t)row) & ~(uint32_t)((int32_t)rel >> 31);
            uint32_t val = 0;
            for (unsigned q = 0; q < N && q < OMEGA_MAX; q++) {
                uint32_t sel = (uint32_t)((int32_t)((q ^ rel) - 1) >> 31);
                val |= v[q] & sel;
            }
            hpack[s] = (uint8_t)((hpack[s] & ~in_row) | (val & in_row));
        }
        index += row;
        hpack[p->omega + i] = (uint8_t)index;
    }
    wipe(w, sizeof(int32_t) * N * p->k);
    wipe(chat, sizeof chat);
    wipe(t, sizeof t);
    wipe(rhopp, sizeof rhopp);
    wipe(mu, sizeof mu);
    wipe(hints, (size_t)p->k * N / 8);
    wipe(&x, sizeof x);
    return 0;
}

/* ------------------------------------------------------------------------------ Verify (Algorithm 8) */
static int verify_internal(const params *p, const uint8_t *sig, size_t siglen, const message *m,
                           const uint8_t *pk, size_t pklen)
{
    int32_t acc[N], t[N];
    int8_t c[N];
    uint8_t mu[64], ctilde2[64];
    uint32_t w1[N];
    xof x;
    const uint8_t *zpack = sig + p->ctilde_bytes;
    const uint8_t *hpack = zpack + (size_t)32 * p->l * p->z_bits;
    if (siglen != p->sig_bytes || pklen != p->pk_bytes)
        return -1;
    /* HintBitUnpack's checks (Algorithm 21) */
    unsigned index = 0;
    for (unsigned i = 0; i < p->k; i++) {
        unsigned end = hpack[p->omega + i];
        if (end < index || end > p->omega)
            return -1;
        for (unsigned s = index + 1; s < end; s++)
            if (hpack[s - 1] >= hpack[s])
                return -1;
        index = end;
    }
    for (unsigned s = index; s < p->omega; s++)
        if (hpack[s] != 0)
            return -1;

    hash64(mu, pk, p->pk_bytes);                                   /* tr, then mu = H(tr || M') */
    xof_init(&x, SHAKE256_RATE);
    xof_absorb(&x, mu, 64);
    for (unsigned i = 0; i < 3; i++)
        xof_absorb(&x, m->part[i], m->len[i]);
    xof_finalize(&x);
    xof_squeeze(&x, mu, 64);
    challenge_public(p, c, sig);

    xof_init(&x, SHAKE256_RATE);                                   /* c~' = H(mu || w1Encode(w1')) */
    xof_absorb(&x, mu, 64);
    index = 0;
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned n = 0; n < N; n++)
            acc[n] = 0;
        for (unsigned j = 0; j < p->l; j++) {
            unpack_offset(t, zpack + (size_t)32 * p->z_bits * j, p->z_bits, p->gamma1);
            for (unsigned n = 0; n < N; n++)
                if (absv(t[n]) >= p->gamma1 - p->beta)
                    return -1;
            ntt(t);
            matrix_entry_mul_acc(acc, t, pk, i, j);
        }
        poly_reduce(acc);
        intt(acc);
        /* - c t1 2^d, sparse: c has tau coefficients +-1 */
        unpack_bits((uint32_t *)t, pk + 32 + 320 * i, N, 10);
        for (unsigned e = 0; e < N; e++) {
            if (c[e] == 0)
                continue;
            for (unsigned n = 0; n < N; n++) {
                int32_t term = (int32_t)((uint32_t)t[n] << D);      /* t1 2^d < q */
                unsigned at = n + e;
                if (at >= N) {
                    at -= N;
                    term = -term;
                }
                if (c[e] < 0)
                    term = -term;
                acc[at] = reduce32(acc[at] - term);
            }
        }
        unsigned end = hpack[p->omega + i];
        for (unsigned n = 0; n < N; n++) {
            unsigned h = index < end && hpack[index] == n;
            index += h;
            w1[n] = (uint32_t)use_hint(p, freeze(acc[n]), h);
        }
        uint8_t packed[N * 6 / 8];
        pack_bits(packed, w1, N, p->w1_bits);
        xof_absorb(&x, packed, (size_t)32 * p->w1_bits);
    }
    xof_finalize(&x);
    xof_squeeze(&x, ctilde2, p->ctilde_bytes);
    unsigned diff = 0;
    for (unsigned i = 0; i < p->ctilde_bytes; i++)
        diff |= ctilde2[i] ^ sig[i];
    return diff ? -1 : 0;
}

/* ------------------------------------------------------------------------------ the API */
static int sign_external(const params *p, uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk,
                         const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd, int32_t (*w)[N],
                         uint8_t (*hints)[N / 8])
{
    static const uint8_t zero[32] = {0};
    uint8_t head[2] = {0, (uint8_t)ctxlen};
    if (ctxlen > 255)
        return -1;
    message m = {{head, ctx, msg}, {2, ctxlen, msglen}};
    return sign_internal(p, sig, &m, sk, rnd ? rnd : zero, w, hints);
}

static int verify_external(const params *p, const uint8_t *sig, size_t siglen, const uint8_t *msg,
                           size_t msglen, const uint8_t *pk, size_t pklen, const uint8_t *ctx, size_t ctxlen)
{
    uint8_t head[2] = {0, (uint8_t)ctxlen};
    if (ctxlen > 255)
        return -1;
    message m = {{head, ctx, msg}, {2, ctxlen, msglen}};
    return verify_internal(p, sig, siglen, &m, pk, pklen);
}

#define MLDSA_API(ID, PARAMS, K)                                                                            \
    int MCU_FN(ID, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed);                               \
    int MCU_FN(ID, keygen)(uint8_t *pk, uint8_t *sk, const uint8_t *seed)                                \
    {                                                                                                      \
        return keygen_internal(&PARAMS, pk, sk, seed);                                                     \
    }                                                                                                      \
    int MCU_FN(ID, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk,             \
                         const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd);                           \
    int MCU_FN(ID, sign)(uint8_t *sig, const uint8_t *msg, size_t msglen, const uint8_t *sk,             \
                         const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd)                            \
    {                                                                                                      \
        int32_t w[K][N];                                                                                   \
        uint8_t hints[K][N / 8];                                                                           \
        return sign_external(&PARAMS, sig, msg, msglen, sk, ctx, ctxlen, rnd, w, hints);                   \
    }                                                                                                      \
    int MCU_FN(ID, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,         \
                           const uint8_t *pk, size_t pklen, const uint8_t *ctx, size_t ctxlen);            \
    int MCU_FN(ID, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,         \
                           const uint8_t *pk, size_t pklen, const uint8_t *ctx, size_t ctxlen)             \
    {                                                                                                      \
        return verify_external(&PARAMS, sig, siglen, msg, msglen, pk, pklen, ctx, ctxlen);                 \
    }                                                                                                      \
    int MCU_FN(ID, sign_internal)(uint8_t *sig, const uint8_t *mprime, size_t mprimelen,                 \
                                  const uint8_t *sk, const uint8_t *rnd);                                  \
    int MCU_FN(ID, sign_internal)(uint8_t *sig, const uint8_t *mprime, size_t mprimelen,                 \
                                  const uint8_t *sk, const uint8_t *rnd)                                   \
    {                                                                                                      \
        message m = {{mprime, 0, 0}, {mprimelen, 0, 0}};                                                   \
        int32_t w[K][N];                                                                                   \
        uint8_t hints[K][N / 8];                                                                           \
        return sign_internal(&PARAMS, sig, &m, sk, rnd, w, hints);                                         \
    }                                                                                                      \
    int MCU_FN(ID, verify_internal)(const uint8_t *sig, size_t siglen, const uint8_t *mprime,            \
                                    size_t mprimelen, const uint8_t *pk);                                  \
    int MCU_FN(ID, verify_internal)(const uint8_t *sig, size_t siglen, const uint8_t *mprime,            \
                                    size_t mprimelen, const uint8_t *pk)                                   \
    {                                                                                                      \
        message m = {{mprime, 0, 0}, {mprimelen, 0, 0}};                                                   \
        return verify_internal(&PARAMS, sig, siglen, &m, pk, PARAMS.pk_bytes);                             \
    }

MLDSA_API(mldsa44, P44, 4)
MLDSA_API(mldsa65, P65, 6)
MLDSA_API(mldsa87, P87, 8)
