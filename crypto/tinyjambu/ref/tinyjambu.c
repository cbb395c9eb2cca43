// SPDX-License-Identifier: MIT
/* TinyJAMBU v2 (NIST LWC final round): the mode of operation, shared by every implementation.
 * Written from the specification (Wu and Huang, "TinyJAMBU: A Family of Lightweight Authenticated
 * Encryption Algorithms (Version 2)", 2021). The keyed permutation comes from the implementation's own
 * source (tinyjambu_perm.h); this file is the rest of the algorithm and the public API (tinyjambu.h).
 *
 * State: four little-endian 32-bit words, s[i] = bits 32i..32i+31. Frame bits go into bits 36..38
 * (s[1] bits 4..6), absorbed words into s[3], the keystream and the tag come from s[2], and the byte
 * length of a partial last block is xored into bits 32..33 (s[1] bits 0..1).
 *   key setup       P_large                                (1024 / 1152 / 1280 steps)
 *   nonce setup     3 x [frame 1, P_640, s[3] ^= nonce word]
 *   associated data per 4-byte block: frame 3, P_640, s[3] ^= block
 *   message         per 4-byte block: frame 5, P_large, s[3] ^= plaintext, ciphertext = plaintext ^ s[2]
 *   finalization    frame 7, P_large, tag[0..3] = s[2]; frame 7, P_640, tag[4..7] = s[2]
 *
 * Constant time: the only branches depend on lengths (public); the tag is compared by OR-ing byte
 * differences, and the plaintext written on the way is wiped on failure with a mask, not behind a branch. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/declassify.h"
#include "mcucrypt/ns.h"
#include "tinyjambu.h"
#include "tinyjambu_perm.h"

#define TJ_SMALL_STEPS 640u

#define TJ_FRAME_NONCE 0x10u /* frame bits 1, 3, 5, 7 at state bits 36..38: s[1] bits 4..6 */
#define TJ_FRAME_AD 0x30u
#define TJ_FRAME_MSG 0x50u
#define TJ_FRAME_FINAL 0x70u

#if TJ_ASM_BLOCKS
#define TJ_BLOCKS(id) MCU_FN(id, blocks)
#else
#define TJ_BLOCKS(id) 0
#endif

/* With the complemented representation (avr-fast) the state holds ~s: xoring data in is unchanged,
 * reading the keystream or the tag out complements it, and the all-zero initial state is all ones. */
#if TJ_COMPLEMENTED_STATE
#define TJ_OUT(x) (~(x))
#define TJ_INITIAL 0xffffffffu
#define TJ_PUBLIC_PERM(id) MCU_FN(id, perm_std)
#else
#define TJ_OUT(x) (x)
#define TJ_INITIAL 0u
#define TJ_PUBLIC_PERM(id) MCU_FN(id, perm)
#endif

static uint32_t load32_le(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void store32_le(unsigned char *p, uint32_t x)
{
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
    p[2] = (uint8_t)(x >> 16);
    p[3] = (uint8_t)(x >> 24);
}

/* The n < 4 bytes of a partial block as the low bytes of a word, the rest zero. */
static uint32_t load_partial(const unsigned char *p, size_t n)
{
    uint32_t w = 0;
    while (n > 0) {
        n--;
        w = (w << 8) | p[n];
    }
    return w;
}

static void store_partial(unsigned char *p, uint32_t x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(x >> (8 * i));
    }
}

/* What the mode needs from one primitive id of one implementation. */
typedef struct {
    tj_perm_fn perm;       /* P_steps on the internal representation */
    tj_blocks_fn blocks;   /* whole blocks in one call with the state in registers (avr-fast), or 0 */
    uint16_t large;        /* steps of P_large: 1024, 1152, 1280 */
} tj_ops;

/* Whole blocks through the implementation's own loop when it has one (TJ_ASM_BLOCKS: the state stays in
 * registers from block to block); returns the number of bytes it consumed, a multiple of 4. The plain C
 * loops below then see only what is left (nothing, or a partial block). */
static size_t tj_fast_blocks(const tj_ops *o, uint32_t *s, const unsigned char *k, uint16_t steps,
                             uint8_t frame, const unsigned char *in, unsigned char *out, size_t len, uint8_t mode)
{
#if TJ_ASM_BLOCKS
    size_t n = len / 4;
    if (n > 0) {
        o->blocks(s, k, steps, frame, in, out, (uint16_t)n, mode);
    }
    return 4 * n;
#else
    (void)o, (void)s, (void)k, (void)steps, (void)frame, (void)in, (void)out, (void)len, (void)mode;
    return 0;
#endif
}

/* Key setup and nonce setup: the state the paper's initialization skip stores. */
static void tj_init(const tj_ops *o, uint32_t *s, const unsigned char *k, const unsigned char *npub)
{
    s[0] = s[1] = s[2] = s[3] = TJ_INITIAL;
    o->perm(s, k, o->large);
    for (unsigned i = tj_fast_blocks(o, s, k, TJ_SMALL_STEPS, TJ_FRAME_NONCE, npub, 0, 12, TJ_ABSORB) / 4;
         i < 3; i++) {
        s[1] ^= TJ_FRAME_NONCE;
        o->perm(s, k, TJ_SMALL_STEPS);
        s[3] ^= load32_le(npub + 4 * i);
    }
}

static void tj_absorb_ad(const tj_ops *o, uint32_t *s, const unsigned char *k, const unsigned char *ad,
                         size_t adlen)
{
    size_t done = tj_fast_blocks(o, s, k, TJ_SMALL_STEPS, TJ_FRAME_AD, ad, 0, adlen, TJ_ABSORB);
    ad += done;
    adlen -= done;
    for (; adlen >= 4; ad += 4, adlen -= 4) {
        s[1] ^= TJ_FRAME_AD;
        o->perm(s, k, TJ_SMALL_STEPS);
        s[3] ^= load32_le(ad);
    }
    if (adlen > 0) {
        s[1] ^= TJ_FRAME_AD;
        o->perm(s, k, TJ_SMALL_STEPS);
        s[3] ^= load_partial(ad, adlen);
        s[1] ^= (uint32_t)adlen;
    }
}

static void tj_encrypt_blocks(const tj_ops *o, uint32_t *s, const unsigned char *k, unsigned char *c,
                              const unsigned char *m, size_t mlen)
{
    size_t done = tj_fast_blocks(o, s, k, o->large, TJ_FRAME_MSG, m, c, mlen, TJ_ENCRYPT);
    m += done;
    c += done;
    mlen -= done;
    for (; mlen >= 4; m += 4, c += 4, mlen -= 4) {
        s[1] ^= TJ_FRAME_MSG;
        o->perm(s, k, o->large);
        uint32_t w = load32_le(m);
        s[3] ^= w;
        store32_le(c, TJ_OUT(s[2]) ^ w);
    }
    if (mlen > 0) {
        s[1] ^= TJ_FRAME_MSG;
        o->perm(s, k, o->large);
        uint32_t w = load_partial(m, mlen);
        s[3] ^= w;
        store_partial(c, TJ_OUT(s[2]) ^ w, mlen);
        s[1] ^= (uint32_t)mlen;
    }
}

static void tj_decrypt_blocks(const tj_ops *o, uint32_t *s, const unsigned char *k, unsigned char *m,
                              const unsigned char *c, size_t mlen)
{
    size_t done = tj_fast_blocks(o, s, k, o->large, TJ_FRAME_MSG, c, m, mlen, TJ_DECRYPT);
    m += done;
    c += done;
    mlen -= done;
    for (; mlen >= 4; m += 4, c += 4, mlen -= 4) {
        s[1] ^= TJ_FRAME_MSG;
        o->perm(s, k, o->large);
        uint32_t w = load32_le(c) ^ TJ_OUT(s[2]);
        s[3] ^= w;
        store32_le(m, w);
    }
    if (mlen > 0) {
        s[1] ^= TJ_FRAME_MSG;
        o->perm(s, k, o->large);
        /* keep only the mlen plaintext bytes: the keystream bytes beyond them must not be absorbed */
        uint32_t w = (load_partial(c, mlen) ^ TJ_OUT(s[2])) & (0xffffffffu >> (32 - 8 * mlen));
        s[3] ^= w;
        store_partial(m, w, mlen);
        s[1] ^= (uint32_t)mlen;
    }
}

static void tj_finalize(const tj_ops *o, uint32_t *s, const unsigned char *k, unsigned char *tag)
{
    s[1] ^= TJ_FRAME_FINAL;
    o->perm(s, k, o->large);
    store32_le(tag, TJ_OUT(s[2]));
    s[1] ^= TJ_FRAME_FINAL;
    o->perm(s, k, TJ_SMALL_STEPS);
    store32_le(tag + 4, TJ_OUT(s[2]));
}

static void tj_encrypt(const tj_ops *o, uint32_t *s, const unsigned char *k, unsigned char *c,
                       unsigned long long *clen, const unsigned char *m, size_t mlen, const unsigned char *ad,
                       size_t adlen)
{
    tj_absorb_ad(o, s, k, ad, adlen);
    tj_encrypt_blocks(o, s, k, c, m, mlen);
    tj_finalize(o, s, k, c + mlen);
    *clen = (unsigned long long)mlen + TINYJAMBU_TAG_BYTES;
}

/* Returns 0 when the tag verifies, -1 otherwise. The plaintext is written to m while it is computed (the
 * state absorbs it), then ANDed with a mask that is all ones only if the tag matched: on failure m ends
 * up all zeros, and no branch depends on the tag or on the data. */
static int tj_decrypt(const tj_ops *o, uint32_t *s, const unsigned char *k, unsigned char *m,
                      unsigned long long *mlen, const unsigned char *c, size_t clen, const unsigned char *ad,
                      size_t adlen)
{
    unsigned char tag[TINYJAMBU_TAG_BYTES];
    size_t plen = clen - TINYJAMBU_TAG_BYTES;
    tj_absorb_ad(o, s, k, ad, adlen);
    tj_decrypt_blocks(o, s, k, m, c, plen);
    tj_finalize(o, s, k, tag);
    unsigned diff = 0;
    for (unsigned i = 0; i < TINYJAMBU_TAG_BYTES; i++) {
        diff |= (unsigned)(tag[i] ^ c[plen + i]);
    }
    /* diff is 0..255: diff - 1 borrows into the high byte only when diff == 0. The verdict is public by
     * the API's contract (the return value): declassified here for the taint checker, after the
     * comparison, which stays checked. */
    uint8_t ok = (uint8_t)mcu_declassify((diff - 1u) >> 8);
    for (size_t i = 0; i < plen; i++) {
        m[i] &= ok;
    }
    *mlen = (unsigned long long)(plen & (size_t)(0u - (size_t)(ok & 1u)));
    for (unsigned i = 0; i < TINYJAMBU_TAG_BYTES; i++) {
        tag[i] = 0;
    }
    return (int)(ok & 1u) - 1;
}

/* Lengths beyond what the target can address cannot describe a buffer in its memory. */
static int too_long(unsigned long long n)
{
    return n > (unsigned long long)(size_t)-1;
}

/* Between the specification's state and the internal representation (the same, or complemented): the
 * stored state of the fixed-nonce API is always the specification's. */
static void load_state(uint32_t *s, const uint32_t *state)
{
    for (unsigned i = 0; i < 4; i++) {
        s[i] = state[i] ^ (TJ_INITIAL);
    }
}

/* The NIST calls in C: initialization, then the phases. With the one-call assembly AEAD (below) they are
 * the path for misaligned buffers, in a function of their own so that the aligned path saves none of
 * the registers and stack the C mode needs; otherwise inlined as always. */
#if TJ_ASM_AEAD
#define TJ_NIST_C static __attribute__((noinline))
#else
#define TJ_NIST_C static inline __attribute__((always_inline))
#endif

TJ_NIST_C void tj_encrypt_nist(const tj_ops *o, unsigned char *c, unsigned long long *clen, const unsigned char *m,
                               size_t mlen, const unsigned char *ad, size_t adlen, const unsigned char *npub,
                               const unsigned char *k)
{
    uint32_t s[4];
    tj_init(o, s, k, npub);
    tj_encrypt(o, s, k, c, clen, m, mlen, ad, adlen);
}

TJ_NIST_C int tj_decrypt_nist(const tj_ops *o, unsigned char *m, unsigned long long *mlen, const unsigned char *c,
                              size_t clen, const unsigned char *ad, size_t adlen, const unsigned char *npub,
                              const unsigned char *k)
{
    uint32_t s[4];
    tj_init(o, s, k, npub);
    return tj_decrypt(o, s, k, m, mlen, c, clen, ad, adlen);
}

/* The one-call assembly AEAD (TJ_ASM_AEAD, rv32-fast/rv32-zbb: rv32/gen_aead_rv32.py) takes the NIST
 * calls whose buffers it can move with LW/SW: the key, nonce, message, output and (when there is any)
 * AD 4-byte aligned. Alignment is a property of the pointers (public); anything else goes through the C
 * mode below. The decryption verdict is declassified as in tj_decrypt, after the comparison (in the
 * assembly, checked); *mlen is then set from it. */
#if TJ_ASM_AEAD
#define TJ_ALIGNED(p) ((((uintptr_t)(p)) & 3u) == 0)
#define TJ_AEAD_ASM_OK(k, npub, ad, adlen, in, out) \
    (TJ_ALIGNED(k) && TJ_ALIGNED(npub) && TJ_ALIGNED(in) && TJ_ALIGNED(out) && ((adlen) == 0 || TJ_ALIGNED(ad)))
#define TJ_AEAD_ASM_ENCRYPT(id)                                                                               \
    if (TJ_AEAD_ASM_OK(k, npub, ad, adlen, m, c)) {                                                           \
        MCU_FN(id, aead_enc)(c, m, (size_t)mlen, ad, (size_t)adlen, npub, k);                                 \
        *clen = mlen + TINYJAMBU_TAG_BYTES;                                                                   \
        return 0;                                                                                             \
    }
#define TJ_AEAD_ASM_DECRYPT(id)                                                                               \
    if (TJ_AEAD_ASM_OK(k, npub, ad, adlen, c, m)) {                                                           \
        size_t plen = (size_t)clen - TINYJAMBU_TAG_BYTES;                                                     \
        uint32_t ok = mcu_declassify((uint32_t)MCU_FN(id, aead_dec)(m, c, plen, ad, (size_t)adlen, npub, k) + 1u); \
        *mlen = (unsigned long long)(plen & (size_t)(0u - (size_t)ok));                                       \
        return (int)ok - 1;                                                                                   \
    }
#else
#define TJ_AEAD_ASM_ENCRYPT(id)
#define TJ_AEAD_ASM_DECRYPT(id)
#endif

/* The public API of one primitive id; MCU_FN(id, perm) is its permutation (internal representation) and
 * LARGE the step count of its P_large. */
#define TINYJAMBU_DEFINE(id, LARGE)                                                                           \
    static const tj_ops tj_ops_##id = {MCU_FN(id, perm), TJ_BLOCKS(id), LARGE};                               \
    int MCU_FN(id, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,          \
                                 unsigned long long mlen, const unsigned char *ad,                            \
                                 unsigned long long adlen, const unsigned char *nsec,                         \
                                 const unsigned char *npub, const unsigned char *k)                           \
    {                                                                                                         \
        (void)nsec;                                                                                           \
        if (too_long(mlen) || too_long(adlen) || too_long(mlen + TINYJAMBU_TAG_BYTES)) {                      \
            return -1;                                                                                        \
        }                                                                                                     \
        TJ_AEAD_ASM_ENCRYPT(id)                                                                               \
        tj_encrypt_nist(&tj_ops_##id, c, clen, m, (size_t)mlen, ad, (size_t)adlen, npub, k);                  \
        return 0;                                                                                             \
    }                                                                                                         \
    int MCU_FN(id, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,             \
                                 const unsigned char *c, unsigned long long clen,                             \
                                 const unsigned char *ad, unsigned long long adlen,                           \
                                 const unsigned char *npub, const unsigned char *k)                           \
    {                                                                                                         \
        (void)nsec;                                                                                           \
        *mlen = 0;                                                                                            \
        if (clen < TINYJAMBU_TAG_BYTES || too_long(clen) || too_long(adlen)) {                                \
            return -1;                                                                                        \
        }                                                                                                     \
        TJ_AEAD_ASM_DECRYPT(id)                                                                               \
        return tj_decrypt_nist(&tj_ops_##id, m, mlen, c, (size_t)clen, ad, (size_t)adlen, npub, k);           \
    }                                                                                                         \
    void MCU_FN(id, permute)(uint32_t *state, const uint8_t *key, uint16_t steps)                             \
    {                                                                                                         \
        TJ_PUBLIC_PERM(id)(state, key, steps);                                                                \
    }                                                                                                         \
    void MCU_FN(id, fixednonce_init_state)(uint32_t *state, const unsigned char *npub,                        \
                                           const unsigned char *k)                                            \
    {                                                                                                         \
        uint32_t s[4];                                                                                        \
        tj_init(&tj_ops_##id, s, k, npub);                                                                    \
        load_state(state, s); /* stored in the specification's representation */                              \
    }                                                                                                         \
    int MCU_FN(id, fixednonce_encrypt_from_state)(unsigned char *c, unsigned long long *clen,                 \
                                                  const unsigned char *m, unsigned long long mlen,            \
                                                  const unsigned char *ad, unsigned long long adlen,          \
                                                  const uint32_t *state, const unsigned char *k)              \
    {                                                                                                         \
        uint32_t s[4];                                                                                        \
        if (too_long(mlen) || too_long(adlen) || too_long(mlen + TINYJAMBU_TAG_BYTES)) {                      \
            return -1;                                                                                        \
        }                                                                                                     \
        load_state(s, state);                                                                                 \
        tj_encrypt(&tj_ops_##id, s, k, c, clen, m, (size_t)mlen, ad, (size_t)adlen);                          \
        return 0;                                                                                             \
    }                                                                                                         \
    int MCU_FN(id, fixednonce_decrypt_from_state)(unsigned char *m, unsigned long long *mlen,                 \
                                                  const unsigned char *c, unsigned long long clen,            \
                                                  const unsigned char *ad, unsigned long long adlen,          \
                                                  const uint32_t *state, const unsigned char *k)              \
    {                                                                                                         \
        uint32_t s[4];                                                                                        \
        *mlen = 0;                                                                                            \
        if (clen < TINYJAMBU_TAG_BYTES || too_long(clen) || too_long(adlen)) {                                \
            return -1;                                                                                        \
        }                                                                                                     \
        load_state(s, state);                                                                                 \
        return tj_decrypt(&tj_ops_##id, s, k, m, mlen, c, (size_t)clen, ad, (size_t)adlen);                   \
    }

TINYJAMBU_DEFINE(tinyjambu128, 1024u)
TINYJAMBU_DEFINE(tinyjambu192, 1152u)
TINYJAMBU_DEFINE(tinyjambu256, 1280u)
