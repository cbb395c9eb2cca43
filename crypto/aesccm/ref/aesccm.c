// SPDX-License-Identifier: MIT
/* AES-128-CCM (NIST SP 800-38C, RFC 3610) and CCM* (IEEE 802.15.4 Annex B: also M = 0, encryption only)
 * with a 13-byte nonce (L = 2: messages up to 65,535 bytes), over the AES-128 block function and the
 * SP 800-38A counter mode (crypto/aes/ref/aes_ctr128.c) of the crypto/aes implementation the
 * implementation links, compiled under this family's names (aes128=aesccm_aes128, as crypto/aescmac).
 *
 * Instances (META.yml), one tag length M each, all in the NIST LWC API of mcucrypt/kinds/aead.py:
 *   aesccm128      M = 16          aesccm128m8   M = 8 (CCM* ENC-MIC-64, RFC 3610's packets 1-12)
 *   aesccm128ble   M = 4 (Bluetooth LE link layer, CCM* ENC-MIC-32)
 *   aesccmstar128  M = 0 (CCM* security level ENC: no tag, the ciphertext is as long as the message)
 *   int mcu_<id>_<impl>_aead_encrypt(c, clen, m, mlen, ad, adlen, nsec, npub, k)
 *   int mcu_<id>_<impl>_aead_decrypt(m, mlen, nsec, c, clen, ad, adlen, npub, k)
 *
 * SP 800-38C A.2: B_0 = flags || N || Q (flags = 64 Adata + 8 (M - 2) / 2 + (L - 1); CCM* with M = 0
 * puts 0 in the M field), the AD as a length prefix (2 bytes below 0xFF00, else 0xFFFE and 4 bytes)
 * followed by the AD, zero-padded to blocks, then the payload zero-padded; T = MSB_M(CBC-MAC). CTR with
 * A_i = (L - 1) || N || [i]_2: S_0 = E(A_0) masks the tag, A_1.. encrypt the payload. With L = 2 the
 * counter never passes 4,097, so crypto/aes's ctr128 (over the implementation's 32-bit ctr where it has
 * one) runs the whole payload in one call.
 *
 * Order: encryption MACs the plaintext, then encrypts it (c may equal m); decryption decrypts into m,
 * MACs what it wrote, compares the tag, and on a mismatch wipes m to zeros and sets *mlen = 0 (nothing
 * released). M = 0 has nothing to verify: decryption is the counter mode.
 *
 * Constant time: branches and loop bounds depend on lengths only (public); key, message and MAC state
 * reach the block function (constant time for the implementations that claim it), XORs and the tag
 * comparison, which ORs all M byte differences; only the verdict leaves through mcu_declassify. The
 * round keys and every secret block on the stack are wiped. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"
#include "mcucrypt/aead_instance.h"

#ifndef aes128
#error "aes128 must be defined as aesccm_aes128: the AES functions' symbols in this family's namespace"
#endif

#define CCM_BLOCK 16
#define CCM_NONCE 13
#define CCM_RK_BYTES 176
#define CCM_MAX_MESSAGE 65535u      /* L = 2 */

/* The linked crypto/aes implementation (round keys 176 bytes; 44 words for cm3-table: 4-byte aligned). */
void MCU_FN(aes128, keyschedule)(void *rk, const uint8_t *key);
void MCU_FN(aes128, encrypt)(uint8_t *out, const uint8_t *in, const void *rk);
int MCU_FN(aes128, ctr128)(uint8_t *out, const uint8_t *in, size_t len, const void *rk, const uint8_t *iv);

typedef struct __attribute__((aligned(4))) {
    uint8_t rk[CCM_RK_BYTES];
    uint8_t x[CCM_BLOCK];       /* CBC-MAC chaining value */
    uint8_t a[CCM_BLOCK];       /* counter block A_i */
} ccm_state;

/* x ^= one whole block of data (x 4-byte aligned, data anywhere): word by word where the core loads
 * unaligned words (the Cortex-M3: LDR takes any address), saving ~60 cycles a block over the bytes. */
static inline __attribute__((always_inline)) void xor_block(uint8_t x[CCM_BLOCK], const uint8_t *data)
{
#if defined(__ARM_FEATURE_UNALIGNED)
    for (unsigned i = 0; i < CCM_BLOCK; i += 4) {
        uint32_t w, v;
        __builtin_memcpy(&w, data + i, 4);
        __builtin_memcpy(&v, x + i, 4);
        v ^= w;
        __builtin_memcpy(x + i, &v, 4);
    }
#else
    for (unsigned i = 0; i < CCM_BLOCK; i++) {
        x[i] ^= data[i];
    }
#endif
}

/* x = E(x ^ data), whole blocks, then the tail zero-padded to a block */
static void cbc_mac(ccm_state *s, const uint8_t *data, size_t len)
{
    size_t whole = len / CCM_BLOCK, rest = len % CCM_BLOCK;
    for (size_t b = 0; b < whole; b++) {
        xor_block(s->x, data);
        MCU_FN(aes128, encrypt)(s->x, s->x, s->rk);
        data += CCM_BLOCK;
    }
    if (rest > 0) {
        for (size_t i = 0; i < rest; i++) {
            s->x[i] ^= data[i];
        }
        MCU_FN(aes128, encrypt)(s->x, s->x, s->rk);
    }
}

/* x ^= the AD's length prefix (SP 800-38C A.2.2: 2 bytes below 0xFF00, else 0xFFFE and 4 bytes);
 * returns its length. Kept out of line: the long form (AD of 65,280 bytes and more) is the one path the
 * boards' constant-time cases cannot reach (META.yml ct_unreached). */
__attribute__((noinline)) static unsigned ccm_ad_prefix(uint8_t x[CCM_BLOCK], uint32_t adlen)
{
    if (adlen < 0xFF00u) {
        x[0] ^= (uint8_t)(adlen >> 8);
        x[1] ^= (uint8_t)adlen;
        return 2;
    }
    x[0] ^= 0xFF;
    x[1] ^= 0xFE;
    x[2] ^= (uint8_t)(adlen >> 24);
    x[3] ^= (uint8_t)(adlen >> 16);
    x[4] ^= (uint8_t)(adlen >> 8);
    x[5] ^= (uint8_t)adlen;
    return 6;
}

/* Key schedule, A_0, and (M > 0) the CBC-MAC of B_0 and the AD. Inlined into each instance's entry
 * points (as ccm_encrypt, ccm_decrypt, ccm_tag), so M is a constant there: no instance carries another's
 * paths (CCM*'s M = 0 skips the MAC entirely). */
static inline __attribute__((always_inline)) void ccm_start(ccm_state *s, const uint8_t *key,
                                                            const uint8_t *nonce, size_t mlen,
                                                            const uint8_t *ad, size_t adlen, unsigned tag_bytes)
{
    MCU_FN(aes128, keyschedule)(s->rk, key);
    s->a[0] = 1;                                        /* L - 1 */
    for (unsigned i = 0; i < CCM_NONCE; i++) {
        s->a[1 + i] = nonce[i];
    }
    s->a[14] = 0;
    s->a[15] = 0;
    if (tag_bytes == 0) {
        return;
    }
    s->x[0] = (uint8_t)((adlen > 0 ? 0x40u : 0u) | (((tag_bytes - 2u) / 2u) << 3) | 1u);   /* B_0 */
    for (unsigned i = 1; i < 14; i++) {
        s->x[i] = s->a[i];
    }
    s->x[14] = (uint8_t)(mlen >> 8);
    s->x[15] = (uint8_t)mlen;
    MCU_FN(aes128, encrypt)(s->x, s->x, s->rk);
    if (adlen == 0) {
        return;
    }
    /* the first AD block: the length prefix, then as much AD as fits */
    unsigned used = ccm_ad_prefix(s->x, (uint32_t)adlen);
    size_t first = adlen < CCM_BLOCK - used ? adlen : CCM_BLOCK - used;
    size_t i = 0;
    do {                /* first >= 1 (adlen > 0): no zero-trip path for the ct cases to miss */
        s->x[used + i] ^= ad[i];
    } while (++i < first);
    MCU_FN(aes128, encrypt)(s->x, s->x, s->rk);
    cbc_mac(s, ad + first, adlen - first);
}

/* T = MSB_M(x) ^ S_0, S_0 = E(A_0): into tag (M bytes) */
static inline __attribute__((always_inline)) void ccm_tag(ccm_state *s, uint8_t *tag, unsigned tag_bytes)
{
    if (tag_bytes == 0) {
        return;
    }
    MCU_FN(aes128, encrypt)(s->a, s->a, s->rk);         /* S_0 (A_0 is not needed again) */
    for (unsigned i = 0; i < tag_bytes; i++) {
        tag[i] = (uint8_t)(s->x[i] ^ s->a[i]);
    }
}

/* the payload's counter mode from A_1 */
static void ccm_ctr(ccm_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
    s->a[15] = 1;
    (void)MCU_FN(aes128, ctr128)(out, in, len, s->rk, s->a);
    s->a[15] = 0;
}

/* The lengths this CCM takes: message at most 65,535 bytes (L = 2), AD below 2^32 and within size_t. */
static int ccm_refused(unsigned long long mlen, unsigned long long adlen)
{
    return mlen > CCM_MAX_MESSAGE || adlen > 0xFFFFFFFFull || adlen > (unsigned long long)(size_t)-1;
}

static inline __attribute__((always_inline)) int ccm_encrypt(uint8_t *c, unsigned long long *clen, const uint8_t *m, unsigned long long mlen,
                       const uint8_t *ad, unsigned long long adlen, const uint8_t *nonce, const uint8_t *key,
                       unsigned tag_bytes)
{
    if (ccm_refused(mlen, adlen)) {
        *clen = 0;
        return -1;
    }
    size_t n = (size_t)mlen;
    ccm_state s;
    ccm_start(&s, key, nonce, n, ad, (size_t)adlen, tag_bytes);
    if (tag_bytes > 0) {
        cbc_mac(&s, m, n);
    }
    ccm_ctr(&s, c, m, n);
    ccm_tag(&s, c + n, tag_bytes);
    mcu_wipe(&s, sizeof s);
    *clen = mlen + tag_bytes;
    return 0;
}

static inline __attribute__((always_inline)) int ccm_decrypt(uint8_t *m, unsigned long long *mlen, const uint8_t *c, unsigned long long clen,
                       const uint8_t *ad, unsigned long long adlen, const uint8_t *nonce, const uint8_t *key,
                       unsigned tag_bytes)
{
    *mlen = 0;
    if (clen < tag_bytes || ccm_refused(clen - tag_bytes, adlen)) {
        return -1;
    }
    size_t n = (size_t)clen - tag_bytes;
    ccm_state s;
    uint8_t want[CCM_BLOCK];
    uint32_t diff = 0;
    ccm_start(&s, key, nonce, n, ad, (size_t)adlen, tag_bytes);
    ccm_ctr(&s, m, c, n);
    if (tag_bytes == 0) {       /* CCM* with M = 0: the counter mode only, nothing to verify (no verdict path) */
        mcu_wipe(&s, sizeof s);
        *mlen = (unsigned long long)n;
        return 0;
    }
    cbc_mac(&s, m, n);
    ccm_tag(&s, want, tag_bytes);
    mcu_wipe(&s, sizeof s);
    for (unsigned i = 0; i < tag_bytes; i++) {
        diff |= (uint32_t)(want[i] ^ c[n + i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    if (!ok) {
        mcu_wipe(m, n);         /* the unauthenticated plaintext is not released */
        return -1;
    }
    *mlen = (unsigned long long)n;
    return 0;
}

/* One instance's two entry points (its tag length fixed): include/mcucrypt/aead_instance.h. */
#define CCM_INSTANCE(id, tag_bytes) MCU_AEAD_INSTANCE(id, ccm_encrypt, ccm_decrypt, tag_bytes)

CCM_INSTANCE(aesccm128, 16u)
CCM_INSTANCE(aesccm128m8, 8u)
CCM_INSTANCE(aesccm128ble, 4u)
CCM_INSTANCE(aesccmstar128, 0u)
