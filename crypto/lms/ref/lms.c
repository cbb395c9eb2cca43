// SPDX-License-Identifier: MIT
/* LMS / HSS signature verification (RFC 8554; SP 800-208's SHA-256/192 and SHAKE256 sets).
 *
 *   int mcu_lms_<impl>_verify(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,
 *                             const uint8_t *pk, size_t pklen);
 *
 * pk: an HSS public key, u32 L || LMS public key (u32 LMS type, u32 LM-OTS type, I[16], T1[m]); sig: an
 * HSS signature, u32 Nspk || (LMS signature, LMS public key) * Nspk || LMS signature. Returns 0 when sig
 * is a valid signature of msg, else -1: also for L outside 1..2, Nspk != L - 1, an unknown type code,
 * an LMS key whose LMS and LM-OTS hashes differ (SP 800-208 4.1), a signature whose types are not its
 * key's, a leaf index past the tree, or any length other than the exact one the type codes give.
 *
 * Streaming: key, signature and message are read in place through their pointers (flash or RAM), never
 * copied; the RAM is one running hash (the message digest Q, then the LM-OTS public key K, then the
 * tree path), one chain workspace and a few scalars (docs/lms.md gives the figures per board).
 *
 * Hashing: SHA-256 through the project's block function MCU_FN(sha256, blocks) (crypto/sha2: the C one,
 * or an implementation's assembly, by SHA2_ASM_256), SHAKE256 through MCU_FN(keccakf1600, permute)
 * (crypto/keccak, FIPS 202 byte layout). The hot loop is the Winternitz chain: each step hashes
 * I || q || i || j || tmp, 23 + n bytes, one SHA-256 block (one Keccak-f for SHAKE256) built once per
 * chain: a step rewrites only j and tmp, and the padding stays in place.
 *
 * Nothing here is secret (a verifier holds only public data): branches and addresses depend on the
 * signature and the message freely (docs/lms.md, "Constant time"). */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
/* In the tree crypto/sha2 is beside crypto/lms; an exported library (mcucrypt/export.py) puts the
 * sources of another family inside this unit's folder, under that family's name */
#if defined(__has_include) && __has_include("../sha2/ref/sha2.h")
#include "../sha2/ref/sha2.h"
#else
#include "../../sha2/ref/sha2.h"
#endif

int MCU_FN(lms, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk,
                        size_t pklen);
void MCU_FN(keccakf1600, permute)(uint8_t *state);

#define D_PBLC 0x8080u
#define D_MESG 0x8181u
#define D_LEAF 0x8282u
#define D_INTR 0x8383u
#define MAX_LEVELS 2u
#define SHAKE256_RATE 136u

/* The hash of a parameter set: family (SHA-256 or SHAKE256) and output bytes n (32 or 24). Type codes
 * come in blocks of the four hashes in this order (RFC 8554 section 8, SP 800-208 section 4). */
enum { HASH_SHA256 = 0, HASH_SHAKE256 = 1 };
typedef struct {
    uint8_t family;
    uint8_t n;
} hash_t;

static hash_t hash_of_block(uint8_t k)
{
    hash_t h;
    h.family = (uint8_t)(k >> 1);
    h.n = (k & 1u) ? 24u : 32u;
    return h;
}

/* LM-OTS: p and ls (RFC 8554 Appendix B) for w = 1, 2, 4, 8 at n = 32 and n = 24. */
static const uint16_t OTS_P[2][4] = {{265, 133, 67, 34}, {200, 101, 51, 26}};
static const uint8_t OTS_LS[2][4] = {{7, 6, 4, 0}, {8, 6, 4, 0}};

typedef struct {
    hash_t hash;
    uint8_t w;             /* bits per digit */
    uint8_t ls;            /* checksum shift */
    uint16_t p;            /* chains */
} ots_params_t;

typedef struct {
    hash_t hash;
    uint8_t h;             /* tree height */
} lms_params_t;

static const uint32_t SHA256_IV[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                      0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};

/* Byte loops of our own: the boards' C library is freestanding (no string.h), and these are short. */
static void copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    while (n--)
        *dst++ = *src++;
}

static void zero(uint8_t *dst, size_t n)
{
    while (n--)
        *dst++ = 0;
}

/* Nonzero when the n bytes differ (public data: an early exit is fine). */
static int differ(const uint8_t *a, const uint8_t *b, size_t n)
{
    while (n--)
        if (*a++ != *b++)
            return 1;
    return 0;
}

static void set_iv(uint32_t h[8])
{
    for (uint8_t i = 0; i < 8; i++)
        h[i] = SHA256_IV[i];
}

static uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* 0 and the parameters for a known LM-OTS type code (1..16), else -1. */
static int ots_params(uint32_t type, ots_params_t *o)
{
    if (type < 1u || type > 16u)
        return -1;
    uint8_t k = (uint8_t)((type - 1u) >> 2), wi = (uint8_t)((type - 1u) & 3u);
    o->hash = hash_of_block(k);
    o->w = (uint8_t)(1u << wi);
    o->p = OTS_P[k & 1u][wi];
    o->ls = OTS_LS[k & 1u][wi];
    return 0;
}

/* 0 and the parameters for a known LMS type code (5..24), else -1. */
static int lms_params(uint32_t type, lms_params_t *l)
{
    if (type < 5u || type > 24u)
        return -1;
    uint8_t k = (uint8_t)((type - 5u) / 5u);
    l->hash = hash_of_block(k);
    l->h = (uint8_t)(5u * ((type - 5u) % 5u + 1u));
    return 0;
}

static uint32_t ots_sig_bytes(const ots_params_t *o)
{
    return 4u + (uint32_t)o->hash.n * (o->p + 1u);
}

/* ---- one running hash: SHA-256 (its block function) or SHAKE256 (Keccak-f[1600]) ------------------ */


typedef struct {
    union {
        struct {
            uint32_t h[8];
            uint8_t block[64];
        } sha;
        uint8_t keccak[200];
    } u;
    uint32_t count;        /* SHA-256: bytes hashed; SHAKE256: bytes in the current rate block */
    hash_t hash;
} hash_ctx_t;

static void hash_init(hash_ctx_t *c, hash_t hash)
{
    c->hash = hash;
    c->count = 0;
    if (hash.family == HASH_SHA256)
        set_iv(c->u.sha.h);
    else
        zero(c->u.keccak, sizeof c->u.keccak);
}

static void hash_update(hash_ctx_t *c, const uint8_t *in, size_t len)
{
    if (c->hash.family == HASH_SHA256) {
        size_t used = (size_t)(c->count & 63u);
        c->count += (uint32_t)len;
        if (used) {
            size_t take = 64u - used < len ? 64u - used : len;
            copy(c->u.sha.block + used, in, take);
            in += take;
            len -= take;
            if (used + take < 64u)
                return;
            MCU_FN(sha256, blocks)(c->u.sha.h, c->u.sha.block, 1);
        }
        if (len >= 64u) {   /* whole blocks straight from the input (any alignment) */
            MCU_FN(sha256, blocks)(c->u.sha.h, in, len >> 6);
            in += len & ~(size_t)63u;
            len &= 63u;
        }
        copy(c->u.sha.block, in, len);
    } else {
        uint32_t pos = c->count;
        while (len--) {
            c->u.keccak[pos++] ^= *in++;
            if (pos == SHAKE256_RATE) {
                MCU_FN(keccakf1600, permute)(c->u.keccak);
                pos = 0;
            }
        }
        c->count = pos;
    }
}

static void hash_u32(hash_ctx_t *c, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    hash_update(c, b, 4);
}

static void hash_u16(hash_ctx_t *c, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    hash_update(c, b, 2);
}

/* SHA-256 state words to n big-endian bytes (n = 32, or 24 for SHA-256/192). */
static void store_state(uint8_t *out, const uint32_t *h, uint8_t n)
{
    for (uint8_t i = 0; i < n; i += 4) {
        uint32_t v = h[i >> 2];
        out[i] = (uint8_t)(v >> 24);
        out[i + 1] = (uint8_t)(v >> 16);
        out[i + 2] = (uint8_t)(v >> 8);
        out[i + 3] = (uint8_t)v;
    }
}

static void hash_final(hash_ctx_t *c, uint8_t *out)
{
    if (c->hash.family == HASH_SHA256) {
        uint32_t bits_hi = c->count >> 29, bits_lo = c->count << 3;
        size_t used = (size_t)(c->count & 63u);
        uint8_t *b = c->u.sha.block;
        b[used++] = 0x80;
        if (used > 56u) {
            zero(b + used, 64u - used);
            MCU_FN(sha256, blocks)(c->u.sha.h, b, 1);
            used = 0;
        }
        zero(b + used, 56u - used);
        for (uint8_t i = 0; i < 4; i++) {
            b[56 + i] = (uint8_t)(bits_hi >> (24 - 8 * i));
            b[60 + i] = (uint8_t)(bits_lo >> (24 - 8 * i));
        }
        MCU_FN(sha256, blocks)(c->u.sha.h, b, 1);
        store_state(out, c->u.sha.h, c->hash.n);
    } else {
        c->u.keccak[c->count] ^= 0x1F;                /* SHAKE's domain bits and pad10*1's first 1 */
        c->u.keccak[SHAKE256_RATE - 1] ^= 0x80;
        MCU_FN(keccakf1600, permute)(c->u.keccak);
        copy(out, c->u.keccak, c->hash.n);           /* n <= 32 < rate: one squeeze */
    }
}

/* ---- LM-OTS ------------------------------------------------------------------------------------- */

/* The prefix I || u32 q of every LM-OTS and LMS hash, as it appears in the data. */
typedef struct {
    const uint8_t *I;      /* 16 bytes, in the key */
    uint8_t q[4];
} prefix_t;

/* The Winternitz chain of digit a (RFC 8554 Algorithm 4b, inner loop): tmp = y, then for j = a ..
 * last = 2^w - 2, tmp = H(I || q || u16 i || u8 j || tmp); the result is absorbed into the running hash
 * of the public key candidate, c. The message is 23 + n <= 55 bytes: one SHA-256 block (one SHAKE256
 * rate block). Two functions, one per hash, so that each frame holds only its own workspace (the
 * SHA-256 one is what the RAM bound of the SHA-256 sets counts). */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

NOINLINE static void chain_sha256(const prefix_t *pre, uint16_t i, uint8_t a, uint8_t last, const uint8_t *y,
                                  uint8_t n, hash_ctx_t *c)
{
    uint32_t h[8];
    uint8_t b[64];         /* the block, laid out once with its padding; a step rewrites j and tmp only */
    uint8_t len = (uint8_t)(23u + n);
    copy(b, pre->I, 16);
    copy(b + 16, pre->q, 4);
    b[20] = (uint8_t)(i >> 8);
    b[21] = (uint8_t)i;
    copy(b + 23, y, n);
    b[len] = 0x80;
    zero(b + len + 1, 62u - 1u - len);
    b[62] = (uint8_t)((len * 8u) >> 8);
    b[63] = (uint8_t)(len * 8u);
    for (uint8_t j = a; a <= last; j++) {   /* a > last (digit 2^w - 1): no step, z = y */
        b[22] = j;
        set_iv(h);
        MCU_FN(sha256, blocks)(h, b, 1);
        store_state(b + 23, h, n);
        if (j == last)
            break;
    }
    hash_update(c, b + 23, n);
}

NOINLINE static void chain_shake256(const prefix_t *pre, uint16_t i, uint8_t a, uint8_t last, const uint8_t *y,
                                    uint8_t n, hash_ctx_t *c)
{
    uint8_t s[200], tmp[32];
    uint8_t len = (uint8_t)(23u + n);
    copy(tmp, y, n);
    for (uint8_t j = a; a <= last; j++) {
        zero(s, sizeof s);
        copy(s, pre->I, 16);
        copy(s + 16, pre->q, 4);
        s[20] = (uint8_t)(i >> 8);
        s[21] = (uint8_t)i;
        s[22] = j;
        copy(s + 23, tmp, n);
        s[len] = 0x1F;
        s[SHAKE256_RATE - 1] = 0x80;
        MCU_FN(keccakf1600, permute)(s);
        copy(tmp, s, n);
        if (j == last)
            break;
    }
    hash_update(c, tmp, n);
}

/* RFC 8554 Algorithm 4b: the candidate public key Kc (n bytes) from the LM-OTS signature ots (type
 * already checked: u32 type, C[n], y[p][n]) of msg. */
static void ots_candidate(const ots_params_t *o, const prefix_t *pre, const uint8_t *msg, size_t msglen,
                          const uint8_t *ots, uint8_t *kc, hash_ctx_t *c)
{
    uint8_t n = o->hash.n, w = o->w, mask = (uint8_t)((1u << w) - 1u);
    uint8_t Q[34];         /* Q || Cksm(Q) */
    const uint8_t *C = ots + 4, *y = ots + 4 + n;

    hash_init(c, o->hash);
    hash_update(c, pre->I, 16);
    hash_update(c, pre->q, 4);
    hash_u16(c, D_MESG);
    hash_update(c, C, n);
    hash_update(c, msg, msglen);
    hash_final(c, Q);

    uint16_t sum = 0;      /* RFC 8554 4.4: sum of (2^w - 1 - digit) over Q's 8n/w digits */
    for (uint8_t k = 0; k < n; k++)
        for (uint8_t s = 8; s > 0; s = (uint8_t)(s - w))
            sum = (uint16_t)(sum + mask - ((Q[k] >> (s - w)) & mask));
    sum = (uint16_t)(sum << o->ls);
    Q[n] = (uint8_t)(sum >> 8);
    Q[n + 1] = (uint8_t)sum;

    hash_init(c, o->hash);
    hash_update(c, pre->I, 16);
    hash_update(c, pre->q, 4);
    hash_u16(c, D_PBLC);
    uint16_t i = 0;
    for (uint8_t k = 0; i < o->p; k++)                         /* digits of Q || Cksm, top bits first */
        for (uint8_t s = 8; s > 0 && i < o->p; s = (uint8_t)(s - w), i++) {
            uint8_t a = (uint8_t)((Q[k] >> (s - w)) & mask);
            if (o->hash.family == HASH_SHA256)
                chain_sha256(pre, i, a, (uint8_t)(mask - 1u), y + (size_t)i * n, n, c);
            else
                chain_shake256(pre, i, a, (uint8_t)(mask - 1u), y + (size_t)i * n, n, c);
        }
    hash_final(c, kc);
}

/* ---- LMS ---------------------------------------------------------------------------------------- */

/* 0 and the parameters of an LMS public key of exactly publen bytes with known, matching types. */
static int lms_pub_params(const uint8_t *pub, uint32_t publen, lms_params_t *l, ots_params_t *o)
{
    if (publen < 8u || lms_params(load_be32(pub), l) != 0 || ots_params(load_be32(pub + 4), o) != 0)
        return -1;
    if (l->hash.family != o->hash.family || l->hash.n != o->hash.n)
        return -1;
    return publen == 24u + l->hash.n ? 0 : -1;
}

/* The length that the LMS signature at sig claims by its type codes, or 0 when they are unknown or it
 * would pass avail bytes. */
static uint32_t lms_sig_bytes(const uint8_t *sig, uint32_t avail)
{
    ots_params_t o;
    lms_params_t l;
    if (avail < 8u || ots_params(load_be32(sig + 4), &o) != 0)
        return 0;
    uint32_t at = 4u + ots_sig_bytes(&o);
    if (avail < at + 4u || lms_params(load_be32(sig + at), &l) != 0)
        return 0;
    uint32_t len = at + 4u + (uint32_t)l.h * l.hash.n;
    return len <= avail ? len : 0;
}

/* RFC 8554 Algorithm 6a: 0 when sig (exactly siglen bytes) is a valid LMS signature of msg under pub
 * (checked by lms_pub_params). */
static int lms_verify(const uint8_t *pub, const uint8_t *msg, size_t msglen, const uint8_t *sig, uint32_t siglen)
{
    lms_params_t l;
    ots_params_t o;
    hash_ctx_t c;
    prefix_t pre;
    uint8_t tmp[32];

    if (lms_params(load_be32(pub), &l) != 0 || lms_pub_params(pub, 24u + l.hash.n, &l, &o) != 0)
        return -1;
    uint8_t n = l.hash.n;
    uint32_t at = 4u + ots_sig_bytes(&o);
    if (siglen != at + 4u + (uint32_t)l.h * n)
        return -1;
    if (differ(sig + 4, pub + 4, 4) || differ(sig + at, pub, 4))   /* the key's types */
        return -1;
    uint32_t q = load_be32(sig);
    if (q >> l.h)
        return -1;

    pre.I = pub + 8;
    copy(pre.q, sig, 4);
    ots_candidate(&o, &pre, msg, msglen, sig + 4, tmp, &c);

    uint32_t node = ((uint32_t)1 << l.h) + q;
    hash_init(&c, l.hash);
    hash_update(&c, pre.I, 16);
    hash_u32(&c, node);
    hash_u16(&c, D_LEAF);
    hash_update(&c, tmp, n);
    hash_final(&c, tmp);
    const uint8_t *path = sig + at + 4;
    for (uint8_t i = 0; i < l.h; i++, path += n) {
        hash_init(&c, l.hash);
        hash_update(&c, pre.I, 16);
        hash_u32(&c, node >> 1);
        hash_u16(&c, D_INTR);
        if (node & 1u) {
            hash_update(&c, path, n);
            hash_update(&c, tmp, n);
        } else {
            hash_update(&c, tmp, n);
            hash_update(&c, path, n);
        }
        hash_final(&c, tmp);
        node >>= 1;
    }
    return differ(tmp, pub + 24, n) ? -1 : 0;
}

/* ---- HSS (RFC 8554 Algorithm 8), L <= 2 ----------------------------------------------------------- */

static int hss_verify(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk,
                      size_t pklen)
{
    lms_params_t l;
    ots_params_t o;
    if (pklen < 4u || siglen < 4u)
        return -1;
    uint32_t levels = load_be32(pk);
    if (levels < 1u || levels > MAX_LEVELS || load_be32(sig) != levels - 1u)
        return -1;
    if (lms_pub_params(pk + 4, (uint32_t)pklen - 4u, &l, &o) != 0)
        return -1;
    const uint8_t *key = pk + 4, *s = sig + 4;
    uint32_t left = (uint32_t)siglen - 4u;
    for (uint32_t d = 1; d < levels; d++) {    /* the signed public key of the next level */
        uint32_t slen = lms_sig_bytes(s, left);
        if (slen == 0 || left - slen < 8u)
            return -1;
        const uint8_t *child = s + slen;
        if (lms_params(load_be32(child), &l) != 0)
            return -1;
        uint32_t clen = 24u + l.hash.n;
        if (left - slen < clen || lms_pub_params(child, clen, &l, &o) != 0)
            return -1;
        if (lms_verify(key, child, clen, s, slen) != 0)
            return -1;
        key = child;
        s = child + clen;
        left -= slen + clen;
    }
    if (lms_sig_bytes(s, left) != left || left == 0)
        return -1;
    return lms_verify(key, msg, msglen, s, left);
}

/* The public names, one per catalog id (crypto/lms/META.yml): `lms` and `lms_h10_w8` differ only in the
 * keys the test and the bench make (LMOTS W4 and W8 under LMS_SHA256_M32_H10); either verifies every type. */
int MCU_FN(lms_h10_w8, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,
                               const uint8_t *pk, size_t pklen);

int MCU_FN(lms, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk,
                        size_t pklen)
{
    return hss_verify(sig, siglen, msg, msglen, pk, pklen);
}

int MCU_FN(lms_h10_w8, verify)(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen,
                               const uint8_t *pk, size_t pklen)
{
    return hss_verify(sig, siglen, msg, msglen, pk, pklen);
}
