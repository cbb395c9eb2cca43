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
