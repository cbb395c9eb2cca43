// SPDX-License-Identifier: MIT
/* AES-128-GCM (NIST SP 800-38D) over the AES-128 block function (and, where the implementation has one,
 * the 32-bit-counter ctr) of the crypto/aes implementation the implementation links, compiled under this
 * family's names (aes128=aesgcm_aes128, as crypto/aescmac), and a constant-time GHASH (ghash.h).
 *
 * Instances (META.yml), 16-byte tags, the NIST LWC API of mcucrypt/kinds/aead.py:
 *   aesgcm128       12-byte IV: J_0 = IV || 0^31 || 1 (SP 800-38D 7.1 step 2, the fast path)
 *   aesgcm128iv1    1-byte IV  \ the general IV: J_0 = GHASH_H(IV || 0^(s+64) || [len(IV)]_64)
 *   aesgcm128iv128  128-byte IV / (the lengths of NIST's CAVP files)
 *   int mcu_<id>_<impl>_aead_encrypt(c, clen, m, mlen, ad, adlen, nsec, npub, k)
 *   int mcu_<id>_<impl>_aead_decrypt(m, mlen, nsec, c, clen, ad, adlen, npub, k)
 *
 * Encryption: H = E_K(0), C = GCTR(inc32(J_0), P), T = E_K(J_0) ^ GHASH_H(A || pad || C || pad ||
 * [len(A)]_64 || [len(C)]_64). Decryption computes T from the ciphertext first and decrypts only when
 * it matches; on a mismatch the output is wiped to zeros and *mlen is 0 (nothing released, nothing
 * decrypted). Lengths: P at most 2^36 - 32 bytes (2^32 - 2 blocks), A below 2^61 bytes, both within
 * size_t; longer ones are refused with -1.
 *
 * GCTR: with a 12-byte IV the counter runs from 2 and cannot wrap (2^32 - 2 blocks at most), so an
 * implementation with a multi-block ctr (META.yml define MCU_AESGCM_CTR32=1: its 32-bit counter refuses
 * only a wrap) takes the whole message in one call. A general IV's J_0 comes out of GHASH under the
 * secret H, so its counter word is secret: those run block by block through encrypt with a branch-free
 * inc32 (the wrap mod 2^32 of SP 800-38D 6.2), never through ctr's wrap check.
 *
 * Constant time: branches and bounds on lengths only; key, H, J_0 for a general IV, message and GHASH
 * state reach the block function, ghash_blocks (constant time: ghash_ctmul.c), XORs and the tag compare,
 * which ORs all 16 differences; only the verdict leaves through mcu_declassify. Round keys, H's key
 * form and every secret block on the stack are wiped. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"
#include "mcucrypt/aead_instance.h"

#include "ghash.h"

#ifndef aes128
#error "aes128 must be defined as aesgcm_aes128: the AES functions' symbols in this family's namespace"
#endif
#if !defined(MCU_AESGCM_CTR32)
#error "aesgcm.c: MCU_AESGCM_CTR32 (0 or 1: the linked AES has a 32-bit-counter ctr) comes from META.yml defines"
#endif

#define GCM_BLOCK 16
#define GCM_RK_BYTES 176
#define GCM_MAX_MESSAGE 68719476704ull      /* 2^36 - 32 */

void MCU_FN(aes128, keyschedule)(void *rk, const uint8_t *key);
void MCU_FN(aes128, encrypt)(uint8_t *out, const uint8_t *in, const void *rk);
#if MCU_AESGCM_CTR32
int MCU_FN(aes128, ctr)(uint8_t *out, const uint8_t *in, size_t len, const void *rk, const uint8_t *iv);
#endif

typedef struct __attribute__((aligned(4))) {
    uint8_t rk[GCM_RK_BYTES];
    ghash_key hk;
    uint8_t j0[GCM_BLOCK];      /* J_0, then E_K(J_0) */
    uint8_t s[GCM_BLOCK];       /* GHASH state */
    uint8_t cb[GCM_BLOCK];      /* counter block / key-stream and padding scratch */
} gcm_state;

/* s = GHASH over data zero-padded to whole blocks */
static void ghash_padded(gcm_state *g, const uint8_t *data, size_t len)
{
    size_t whole = len / GCM_BLOCK, rest = len % GCM_BLOCK;
    ghash_blocks(g->s, &g->hk, data, whole);
    if (rest > 0) {
        for (size_t i = 0; i < GCM_BLOCK; i++) {
            g->cb[i] = i < rest ? data[whole * GCM_BLOCK + i] : 0;
        }
        ghash_blocks(g->s, &g->hk, g->cb, 1);
    }
}

/* s ^= [a]_64 || [b]_64 in bits, then one GHASH block */
static void ghash_lengths(gcm_state *g, unsigned long long a, unsigned long long b)
{
    for (unsigned i = 0; i < 8; i++) {
        g->cb[7 - i] = (uint8_t)((a << 3) >> (8 * i));
        g->cb[15 - i] = (uint8_t)((b << 3) >> (8 * i));
    }
    ghash_blocks(g->s, &g->hk, g->cb, 1);
}

/* Round keys, H's key form, J_0 (from an IV of iv_bytes) and s = 0. This, gcm_ctr, gcm_encrypt and
 * gcm_decrypt are inlined into each instance's entry points, so the IV length is a constant there: no
 * instance carries another's J_0 or counter path. */
static inline __attribute__((always_inline)) void gcm_start(gcm_state *g, const uint8_t *key, const uint8_t *iv, size_t iv_bytes)
{
    MCU_FN(aes128, keyschedule)(g->rk, key);
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        g->s[i] = 0;
    }
    MCU_FN(aes128, encrypt)(g->cb, g->s, g->rk);       /* H */
    ghash_key_init(&g->hk, g->cb);
    if (iv_bytes == 12) {
        for (unsigned i = 0; i < 12; i++) {
            g->j0[i] = iv[i];
        }
        g->j0[12] = g->j0[13] = g->j0[14] = 0;
        g->j0[15] = 1;
    } else {
        ghash_padded(g, iv, iv_bytes);
        ghash_lengths(g, 0, iv_bytes);
        for (unsigned i = 0; i < GCM_BLOCK; i++) {
            g->j0[i] = g->s[i];
            g->s[i] = 0;
        }
    }
}

/* out = in ^ GCTR key stream from inc32(J_0) (j0 unchanged). */
static inline __attribute__((always_inline)) void gcm_ctr(gcm_state *g, uint8_t *out, const uint8_t *in, size_t len, size_t iv_bytes)
{
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        g->cb[i] = g->j0[i];
    }
#if MCU_AESGCM_CTR32
    if (iv_bytes == 12) {           /* counter 2 .. 2^32 - 1: no wrap, one call */
        g->cb[15] = 2;
        (void)MCU_FN(aes128, ctr)(out, in, len, g->rk, g->cb);
        return;
    }
#else
    (void)iv_bytes;
#endif
    uint8_t ks[GCM_BLOCK];
    while (len > 0) {
        /* inc32, branch-free: the low word + 1 mod 2^32 */
        uint32_t c = (((uint32_t)g->cb[12] << 24) | ((uint32_t)g->cb[13] << 16) | ((uint32_t)g->cb[14] << 8) |
                      g->cb[15]) + 1u;
        g->cb[12] = (uint8_t)(c >> 24);
        g->cb[13] = (uint8_t)(c >> 16);
        g->cb[14] = (uint8_t)(c >> 8);
        g->cb[15] = (uint8_t)c;
        MCU_FN(aes128, encrypt)(ks, g->cb, g->rk);
        size_t n = len < GCM_BLOCK ? len : GCM_BLOCK;
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint8_t)(in[i] ^ ks[i]);
        }
        in += n;
        out += n;
        len -= n;
    }
    mcu_wipe(ks, sizeof ks);
}

/* The tag into tag: E_K(J_0) ^ GHASH(A, C, lengths). */
static void gcm_tag(gcm_state *g, uint8_t *tag, const uint8_t *ad, size_t adlen, const uint8_t *c, size_t clen)
{
    ghash_padded(g, ad, adlen);
    ghash_padded(g, c, clen);
    ghash_lengths(g, adlen, clen);
    MCU_FN(aes128, encrypt)(g->j0, g->j0, g->rk);
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        tag[i] = (uint8_t)(g->s[i] ^ g->j0[i]);
    }
}

static int gcm_refused(unsigned long long mlen, unsigned long long adlen)
{
    return mlen > GCM_MAX_MESSAGE || mlen > (unsigned long long)(size_t)-1 - GCM_BLOCK ||
           adlen > (unsigned long long)(size_t)-1 || adlen >= (1ull << 61);
}

static inline __attribute__((always_inline)) int gcm_encrypt(uint8_t *c, unsigned long long *clen, const uint8_t *m, unsigned long long mlen,
                       const uint8_t *ad, unsigned long long adlen, const uint8_t *iv, const uint8_t *key,
                       size_t iv_bytes)
{
    if (gcm_refused(mlen, adlen)) {
        *clen = 0;
        return -1;
    }
    size_t n = (size_t)mlen;
    gcm_state g;
    gcm_start(&g, key, iv, iv_bytes);
    gcm_ctr(&g, c, m, n, iv_bytes);
    gcm_tag(&g, c + n, ad, (size_t)adlen, c, n);
    mcu_wipe(&g, sizeof g);
    *clen = mlen + GCM_BLOCK;
    return 0;
}

static inline __attribute__((always_inline)) int gcm_decrypt(uint8_t *m, unsigned long long *mlen, const uint8_t *c, unsigned long long clen,
                       const uint8_t *ad, unsigned long long adlen, const uint8_t *iv, const uint8_t *key,
                       size_t iv_bytes)
{
    *mlen = 0;
    if (clen < GCM_BLOCK || gcm_refused(clen - GCM_BLOCK, adlen)) {
        return -1;
    }
    size_t n = (size_t)clen - GCM_BLOCK;
    gcm_state g;
    uint8_t want[GCM_BLOCK], j0[GCM_BLOCK];
    uint32_t diff = 0;
    gcm_start(&g, key, iv, iv_bytes);
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        j0[i] = g.j0[i];                /* kept for the key stream: gcm_tag encrypts g.j0 in place */
    }
    gcm_tag(&g, want, ad, (size_t)adlen, c, n);
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        diff |= (uint32_t)(want[i] ^ c[n + i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    if (!ok) {
        mcu_wipe(&g, sizeof g);
        mcu_wipe(j0, sizeof j0);
        mcu_wipe(m, n);             /* nothing was decrypted; the output holds zeros */
        return -1;
    }
    for (unsigned i = 0; i < GCM_BLOCK; i++) {
        g.j0[i] = j0[i];
    }
    gcm_ctr(&g, m, c, n, iv_bytes);
    mcu_wipe(&g, sizeof g);
    mcu_wipe(j0, sizeof j0);
    *mlen = (unsigned long long)n;
    return 0;
}

/* One instance's two entry points (its IV length fixed): include/mcucrypt/aead_instance.h. */
#define GCM_INSTANCE(id, iv_bytes) MCU_AEAD_INSTANCE(id, gcm_encrypt, gcm_decrypt, iv_bytes)

GCM_INSTANCE(aesgcm128, 12u)
GCM_INSTANCE(aesgcm128iv1, 1u)
GCM_INSTANCE(aesgcm128iv128, 128u)
