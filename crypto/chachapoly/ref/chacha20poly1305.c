// SPDX-License-Identifier: MIT
/* ChaCha20-Poly1305 AEAD (RFC 8439 section 2.8) in the NIST LWC API shape (mcucrypt/kinds/aead.py),
 * portable C over the implementation's ChaCha20 (crypto/chacha20, compiled here under the name
 * chachapoly_chacha20: META.yml's `chacha20=` define) and Poly1305 block function (poly1305.h).
 *
 * Encryption: the one-time Poly1305 key is the first 32 bytes of ChaCha20 block 0; the message is
 * XORed with the key stream from block 1; the tag covers AD, zeros to a 16-byte boundary, the
 * ciphertext, zeros to a boundary, then both lengths as 64-bit little-endian words.
 * Decryption checks the tag over the ciphertext BEFORE decrypting anything: on a bad tag no byte of
 * plaintext is ever computed; the output buffer is zeroed (the AEAD kind's contract: on -1 the output
 * holds zeros, whatever it held before) and *mlen is 0. The comparison is branch-free; its verdict is the
 * one secret-derived value made public (mcu_declassify), and only that public verdict decides whether
 * the decryption runs. */
#include "poly1305.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter);
/* Returns -1, writing nothing, when counter + ceil(len / 64) would pass 2^32 (crypto/chacha20/ref/chacha20.h);
 * from counter 1 that needs len > 2^38 - 64 bytes, beyond any size_t of these cores: never here. */
int MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                          uint32_t counter);

int MCU_FN(chacha20poly1305, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                           unsigned long long mlen, const unsigned char *ad,
                                           unsigned long long adlen, const unsigned char *nsec,
                                           const unsigned char *npub, const unsigned char *k);
int MCU_FN(chacha20poly1305, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                                           const unsigned char *c, unsigned long long clen,
                                           const unsigned char *ad, unsigned long long adlen,
                                           const unsigned char *npub, const unsigned char *k);

/* RFC 8439 section 2.8: at most 2^32 - 1 blocks of key stream after block 0, and what fits in memory. */
#define CP_MAX_MESSAGE 274877906880ull

static int too_long(unsigned long long n)
{
    return n > CP_MAX_MESSAGE || n > (unsigned long long)(size_t)-1 - 16u;
}

/* Whole blocks, then the tail zero-padded to a whole block (hibit 1: section 2.8's pad16). */
static void absorb_padded(uint8_t h[17], const uint8_t r[16], const uint8_t *p, size_t n)
{
    size_t whole = n / 16, rest = n % 16;
    if (whole > 0) {
        MCU_FN(poly1305, blocks)(h, r, p, whole, 1);
    }
    if (rest > 0) {
        uint8_t last[16];
        mcu_wipe(last, sizeof last);      /* zeros (= {0} becomes a memset call under -Os) */
        for (size_t i = 0; i < rest; i++) {
            last[i] = p[16 * whole + i];
        }
        MCU_FN(poly1305, blocks)(h, r, last, 1, 1);
    }
}

static void store64(uint8_t *p, unsigned long long v)
{
    for (unsigned i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* The tag of (ad, ct) under the key and nonce. */
static void aead_tag(uint8_t tag[16], const uint8_t *ad, size_t adlen, const uint8_t *ct, size_t ctlen,
                     const uint8_t *npub, const uint8_t *k)
{
    uint8_t otk[64], r[16], h[17], lengths[16];
    mcu_wipe(h, sizeof h);
    MCU_FN(chacha20, block)(otk, k, npub, 0);
    MCU_FN(poly1305, clamp)(r, otk);
    absorb_padded(h, r, ad, adlen);
    absorb_padded(h, r, ct, ctlen);
    store64(lengths, adlen);
    store64(lengths + 8, ctlen);
    MCU_FN(poly1305, blocks)(h, r, lengths, 1, 1);
    MCU_FN(poly1305, finish)(tag, h, otk + 16);
    mcu_wipe(otk, sizeof otk);
    mcu_wipe(r, sizeof r);
    mcu_wipe(h, sizeof h);
}

int MCU_FN(chacha20poly1305, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                           unsigned long long mlen, const unsigned char *ad,
                                           unsigned long long adlen, const unsigned char *nsec,
                                           const unsigned char *npub, const unsigned char *k)
{
    (void)nsec;
    if (too_long(mlen) || adlen > (unsigned long long)(size_t)-1) {
        *clen = 0;
        return -1;
    }
    size_t n = (size_t)mlen;
    (void)MCU_FN(chacha20, xor)(c, m, n, k, npub, 1);
    aead_tag(c + n, ad, (size_t)adlen, c, n, npub, k);
    *clen = mlen + 16u;
    return 0;
}

int MCU_FN(chacha20poly1305, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                                           const unsigned char *c, unsigned long long clen,
                                           const unsigned char *ad, unsigned long long adlen,
                                           const unsigned char *npub, const unsigned char *k)
{
    (void)nsec;
    *mlen = 0;
    if (clen < 16u || too_long(clen - 16u) || adlen > (unsigned long long)(size_t)-1) {
        return -1;
    }
    size_t n = (size_t)clen - 16u;
    uint8_t want[16];
    uint32_t diff = 0;
    aead_tag(want, ad, (size_t)adlen, c, n, npub, k);
    for (unsigned i = 0; i < 16; i++) {
        diff |= (uint32_t)(want[i] ^ c[n + i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    if (!ok) {
        mcu_wipe(m, n);     /* no plaintext was computed; the output holds zeros, as for every AEAD here */
        return -1;
    }
    (void)MCU_FN(chacha20, xor)(m, c, n, k, npub, 1);
    *mlen = (unsigned long long)n;
    return 0;
}

/* ---------------------------------------------------------------------------------- incremental API
 * aead_init, any number of aead_aad calls, any number of aead_encrypt_update (or aead_decrypt_update)
 * calls, then aead_encrypt_final (or aead_decrypt_final). The context (CP_CTX_BYTES, byte offsets, no
 * alignment needed) holds no more than the one-shot functions keep on their stack:
 *   0   k[32]      the key
 *   32  npub[12]   the nonce
 *   44  poly[66]   Poly1305's incremental context (poly1305.h: r, s, h, a partial block, its fill at 109)
 *   110 adlen[8]   AD bytes absorbed so far, little-endian        \
 *   118 mlen[8]    message bytes so far: the key-stream position   } public: lengths only
 *   126 phase      0 while AD is absorbed, 1 once the message is  /
 * The key stream is recomputed, not buffered: a chunk ending inside a 64-byte block costs that block
 * again in the next call (large chunks in multiples of 64 bytes are the fast path).
 *
 * STREAMING DECRYPTION RELEASES UNAUTHENTICATED PLAINTEXT: aead_decrypt_update writes plaintext before
 * the tag is known. The caller must not use any of it (act on it, send it, display it) until
 * aead_decrypt_final returns 0, and must wipe it all when aead_decrypt_final returns -1. The one-shot
 * aead_decrypt, which computes no plaintext before the tag is verified, remains the safe default. */
#define CP_CTX_KEY 0
#define CP_CTX_NONCE 32
#define CP_CTX_POLY 44
#define CP_CTX_ADLEN 110
#define CP_CTX_MLEN 118
#define CP_CTX_PHASE 126
#define CP_CTX_BYTES 127

void MCU_FN(chacha20poly1305, aead_init)(uint8_t *ctx, const uint8_t *k, const uint8_t *npub);
int MCU_FN(chacha20poly1305, aead_aad)(uint8_t *ctx, const uint8_t *ad, size_t adlen);
int MCU_FN(chacha20poly1305, aead_encrypt_update)(uint8_t *ctx, uint8_t *c, const uint8_t *m, size_t mlen);
int MCU_FN(chacha20poly1305, aead_decrypt_update)(uint8_t *ctx, uint8_t *m, const uint8_t *c, size_t clen);
void MCU_FN(chacha20poly1305, aead_encrypt_final)(uint8_t *ctx, uint8_t *tag);
int MCU_FN(chacha20poly1305, aead_decrypt_final)(uint8_t *ctx, const uint8_t *tag);

static unsigned long long load64(const uint8_t *p)
{
    unsigned long long v = 0;
    for (unsigned i = 8; i-- > 0;) {
        v = (v << 8) | p[i];
    }
    return v;
}

void MCU_FN(chacha20poly1305, aead_init)(uint8_t *ctx, const uint8_t *k, const uint8_t *npub)
{
    uint8_t otk[64];
    for (unsigned i = 0; i < 32; i++) {
        ctx[CP_CTX_KEY + i] = k[i];
    }
    for (unsigned i = 0; i < 12; i++) {
        ctx[CP_CTX_NONCE + i] = npub[i];
    }
    MCU_FN(chacha20, block)(otk, k, npub, 0);
    MCU_FN(poly1305, mac_init)(ctx + CP_CTX_POLY, otk);
    mcu_wipe(otk, sizeof otk);
    mcu_wipe(ctx + CP_CTX_ADLEN, 8 + 8 + 1);       /* adlen, mlen, phase */
}

/* Section 2.8's pad16: the pending partial block of Poly1305's context completed with zeros (hibit 1). */
static void pad16(uint8_t *poly)
{
    size_t used = poly[POLY1305_CTX_USED] & 15u;
    if (used > 0) {
        mcu_wipe(poly + POLY1305_CTX_BUF + used, 16 - used);
        MCU_FN(poly1305, blocks)(poly + POLY1305_CTX_H, poly + POLY1305_CTX_R, poly + POLY1305_CTX_BUF, 1, 1);
        poly[POLY1305_CTX_USED] = 0;
    }
}

int MCU_FN(chacha20poly1305, aead_aad)(uint8_t *ctx, const uint8_t *ad, size_t adlen)
{
    if (ctx[CP_CTX_PHASE] != 0) {      /* AD after message bytes: refused, nothing absorbed */
        return -1;
    }
    MCU_FN(poly1305, mac_update)(ctx + CP_CTX_POLY, ad, adlen);
    store64(ctx + CP_CTX_ADLEN, load64(ctx + CP_CTX_ADLEN) + adlen);
    return 0;
}

/* out = in XOR the key stream at the context's position (len bytes), and the position advanced; -1 with
 * nothing written when the message would pass RFC 8439's 2^38 - 64 bytes. Ends the AD phase. */
static int stream_xor(uint8_t *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    unsigned long long pos = load64(ctx + CP_CTX_MLEN);
    if (len > CP_MAX_MESSAGE - pos) {
        return -1;
    }
    if (ctx[CP_CTX_PHASE] == 0) {
        pad16(ctx + CP_CTX_POLY);      /* the AD's padding */
        ctx[CP_CTX_PHASE] = 1;
    }
    const uint8_t *k = ctx + CP_CTX_KEY, *npub = ctx + CP_CTX_NONCE;
    uint32_t counter = (uint32_t)(1u + pos / 64u);
    size_t offset = (size_t)(pos % 64u), done = 0;
    if (offset > 0 && len > 0) {       /* finish the block the previous call stopped in */
        uint8_t ks[64];
        MCU_FN(chacha20, block)(ks, k, npub, counter);
        for (; done < len && offset + done < 64; done++) {
            out[done] = (uint8_t)(in[done] ^ ks[offset + done]);
        }
        mcu_wipe(ks, sizeof ks);
        counter++;
    }
    if (len > done) {
        (void)MCU_FN(chacha20, xor)(out + done, in + done, len - done, k, npub, counter);
    }
    store64(ctx + CP_CTX_MLEN, pos + len);
    return 0;
}

int MCU_FN(chacha20poly1305, aead_encrypt_update)(uint8_t *ctx, uint8_t *c, const uint8_t *m, size_t mlen)
{
    if (stream_xor(ctx, c, m, mlen) != 0) {
        return -1;
    }
    MCU_FN(poly1305, mac_update)(ctx + CP_CTX_POLY, c, mlen);
    return 0;
}

int MCU_FN(chacha20poly1305, aead_decrypt_update)(uint8_t *ctx, uint8_t *m, const uint8_t *c, size_t clen)
{
    unsigned long long pos = load64(ctx + CP_CTX_MLEN);
    if (clen > CP_MAX_MESSAGE - pos) {
        return -1;
    }
    if (ctx[CP_CTX_PHASE] == 0) {
        pad16(ctx + CP_CTX_POLY);
        ctx[CP_CTX_PHASE] = 1;
    }
    MCU_FN(poly1305, mac_update)(ctx + CP_CTX_POLY, c, clen);   /* the ciphertext, before m is written */
    return stream_xor(ctx, m, c, clen);
}

/* The tag of everything absorbed: pads, the lengths block, Poly1305's final step; wipes the context. */
static void ctx_tag(uint8_t *ctx, uint8_t tag[16])
{
    uint8_t *poly = ctx + CP_CTX_POLY;
    pad16(poly);                       /* the AD's (when no message byte came) or the message's */
    /* then adlen, mlen (64-bit little-endian, adjacent in the context): one whole block */
    MCU_FN(poly1305, blocks)(poly + POLY1305_CTX_H, poly + POLY1305_CTX_R, ctx + CP_CTX_ADLEN, 1, 1);
    MCU_FN(poly1305, finish)(tag, poly + POLY1305_CTX_H, poly + POLY1305_CTX_S);
    mcu_wipe(ctx, CP_CTX_BYTES);
}

void MCU_FN(chacha20poly1305, aead_encrypt_final)(uint8_t *ctx, uint8_t *tag)
{
    ctx_tag(ctx, tag);
}

int MCU_FN(chacha20poly1305, aead_decrypt_final)(uint8_t *ctx, const uint8_t *tag)
{
    uint8_t want[16];
    uint32_t diff = 0;
    ctx_tag(ctx, want);
    for (unsigned i = 0; i < 16; i++) {
        diff |= (uint32_t)(want[i] ^ tag[i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    return (int)ok - 1;
}
