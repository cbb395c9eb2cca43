// SPDX-License-Identifier: MIT
/* Ascon modes (NIST SP 800-232 §4 and §5), shared by every implementation; the permutation is each
 * implementation's own (ascon.h). Written from the standard:
 *   AEAD128  IV 0x00001000808c0001; S = IV, K0, K1, N0, N1; p12; S3 ^= K0; S4 ^= K1;
 *            AD in 16-byte blocks (only when nonempty, last one padded), p8 after each; S4 ^= 1 << 63;
 *            message in 16-byte blocks, p8 after every full one, the last (possibly empty) padded;
 *            S2 ^= K0; S3 ^= K1; p12; tag = (S3 ^ K0, S4 ^ K1).
 *   Hash256 / XOF128 / CXOF128  S = IV, 0, 0, 0, 0; p12; 8-byte blocks into S0, p12 after each, the last
 *            padded; output S0 eight bytes at a time with p12 between. CXOF128 first absorbs the bit
 *            length of Z as one block and then Z padded.
 * Bytes load into lanes little-endian; a last block of n bytes is padded with 0x01 at byte n.
 *
 * Constant time: branches and addresses depend on lengths only (public). Decryption computes the tag
 * difference by OR-ing byte differences and then wipes the plaintext with a mask and sets *mlen with
 * the same mask: a rejected ciphertext runs the same instructions as an accepted one and releases
 * nothing. Lengths are taken as size_t (the NIST API's unsigned long long is truncated, which only
 * matters beyond the 64 KiB an AVR can address). */
#include "ascon.h"

#define IV_AEAD128 0x00001000808c0001ull
#define IV_HASH256 0x0000080100cc0002ull
#define IV_XOF128 0x0000080000cc0003ull
#define IV_CXOF128 0x0000080000cc0004ull
#define ASCON_PERMUTE MCU_FN(ascon, permute)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ASCON_LE 1 /* every target here: a whole lane is one (possibly unaligned) 8-byte copy */
#else
#define ASCON_LE 0
#endif

/* The first n (0..8) bytes at p as a little-endian word, the rest zero. */
static uint64_t load_bytes(const unsigned char *p, size_t n)
{
    uint64_t x = 0;
    if (ASCON_LE && n == 8) {
        __builtin_memcpy(&x, p, 8);
        return x;
    }
    while (n > 0) {
        n--;
        x = (x << 8) | p[n];
    }
    return x;
}

static void store_bytes(unsigned char *p, uint64_t x, size_t n)
{
    if (ASCON_LE && n == 8) {
        __builtin_memcpy(p, &x, 8);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(x >> (8 * i));
    }
}

static uint64_t pad(size_t n)
{
    return 0x01ull << (8 * n);
}

/* ------------------------------------------------------------------------------------------- AEAD */

static void aead_start(ascon_state_t *s, uint64_t k0, uint64_t k1, const unsigned char *npub,
                       const unsigned char *ad, size_t adlen)
{
    ascon_set_lane(s, 0, IV_AEAD128);
    ascon_set_lane(s, 1, k0);
    ascon_set_lane(s, 2, k1);
    ascon_set_lane(s, 3, load_bytes(npub, 8));
    ascon_set_lane(s, 4, load_bytes(npub + 8, 8));
    ASCON_PERMUTE(s, 12);
    ascon_xor_lane(s, 3, k0);
    ascon_xor_lane(s, 4, k1);
    if (adlen > 0) {
#if ASCON_ASM_BLOCKS
        if (adlen >= 16 && ASCON_ASM_OK(ad, 0)) {
            MCU_FN(ascon, absorb16)(s, ad, adlen / 16);
            ad += adlen & ~(size_t)15;
            adlen &= 15;
        }
#endif
        for (; adlen >= 16; adlen -= 16, ad += 16) {
            ascon_xor_lane(s, 0, load_bytes(ad, 8));
            ascon_xor_lane(s, 1, load_bytes(ad + 8, 8));
            ASCON_PERMUTE(s, 8);
        }
        if (adlen >= 8) {
            ascon_xor_lane(s, 0, load_bytes(ad, 8));
            ascon_xor_lane(s, 1, load_bytes(ad + 8, adlen - 8) ^ pad(adlen - 8));
        } else {
            ascon_xor_lane(s, 0, load_bytes(ad, adlen) ^ pad(adlen));
        }
        ASCON_PERMUTE(s, 8);
    }
    ascon_xor_lane(s, 4, 0x8000000000000000ull);  /* domain separation */
}

static void aead_tag(ascon_state_t *s, uint64_t k0, uint64_t k1, unsigned char *tag)
{
    ascon_xor_lane(s, 2, k0);
    ascon_xor_lane(s, 3, k1);
    ASCON_PERMUTE(s, 12);
    store_bytes(tag, ascon_get_lane(s, 3) ^ k0, 8);
    store_bytes(tag + 8, ascon_get_lane(s, 4) ^ k1, 8);
}

#if ASCON_ASM_AEAD
/* ---------------------------------------------- the one-call assembly drivers (rv32-fast, ascon.h) */

/* blk = the n (0..15) bytes at p, 0x01, zeros; with mask (decryption): mask = 0xff on those n bytes. */
static inline void pad_block(uint32_t blk[4], uint32_t *mask, const unsigned char *p, size_t n)
{
    unsigned char *b = (unsigned char *)blk;
    blk[0] = blk[1] = blk[2] = blk[3] = 0;
    if (mask) {
        mask[0] = mask[1] = mask[2] = mask[3] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        b[i] = p[i];
        if (mask) {
            ((unsigned char *)mask)[i] = 0xff;
        }
    }
    b[n] = 0x01;
}

/* The driver's job: pointers, whole-block ranges, and the last AD and message blocks copied and padded
 * into it, for AD of adlen bytes and a message of n bytes. Only lengths (public) decide the copies. */
static inline void job_start(ascon_aead_job_t *j, const unsigned char *k, const unsigned char *npub,
                             const unsigned char *ad, size_t adlen, const unsigned char *in, unsigned char *out,
                             size_t n, int decrypt)
{
    j->k = k;
    j->npub = npub;
    j->ad = ad;
    j->ad_end = ad + (adlen & ~(size_t)15);
    j->ad_phase = (uint32_t)(adlen != 0) + (uint32_t)(adlen & 15);
    /* A last block of 0 bytes is the padding alone, which the assembly adds itself: nothing to prepare
     * (the expected case for whole blocks, laid out as the fall-through path). */
    if (__builtin_expect((adlen & 15) != 0, 0)) {
        pad_block(j->adtail, 0, j->ad_end, adlen & 15);
    }
    j->in = in;
    j->in_end = in + (n & ~(size_t)15);
    j->out = out;
    j->tail_len = n & 15;
    if (__builtin_expect((n & 15) != 0, 0)) {
        pad_block(j->tail, decrypt ? j->mask : 0, j->in_end, n & 15);
    }
}

/* Every buffer the assembly reads or writes with LW/SW is 4-byte aligned (the AD only matters when
 * there is some). */
#define ASCON_AEAD_ASM_OK(k, npub, ad, adlen, in, out) \
    (ASCON_ASM_OK(k, npub) && ASCON_ASM_OK(in, out) && ((adlen) == 0 || ASCON_ASM_OK(ad, 0)))

/* Encryption through the one-call driver (aligned buffers): the driver also stores the last block's
 * bytes and the tag. */
static inline int aead_encrypt_asm(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                   size_t n, const unsigned char *ad, size_t adlen,
                                   const unsigned char *npub, const unsigned char *k)
{
    ascon_aead_job_t j;
    *clen = (unsigned long long)n + 16u;
    job_start(&j, k, npub, ad, adlen, m, c, n, 0);
    j.tag = c + n;
    MCU_FN(ascon, aead_enc)(&j);
    return 0;
}

/* Decryption through the one-call driver (aligned buffers; clen >= 16), which also checks the tag and
 * wipes a rejected plaintext (same instructions either way). */
static int aead_decrypt_asm(unsigned char *m, unsigned long long *mlen, const unsigned char *c, size_t total,
                            const unsigned char *ad, size_t adlen, const unsigned char *npub,
                            const unsigned char *k)
{
    ascon_aead_job_t j;
    job_start(&j, k, npub, ad, adlen, c, m, total, 1);
    j.tag = (unsigned char *)(c + total);   /* read only: the received tag */
    int r = MCU_FN(ascon, aead_dec)(&j);    /* 0 or -1; on -1 the plaintext is already wiped */
    *mlen = (unsigned long long)total & (0ull - (unsigned long long)(unsigned)(r + 1));
    if (total & 15) {   /* the last partial block's plaintext stays in the job: not left on the stack */
        volatile uint32_t *tail = j.tail;
        for (unsigned i = 0; i < 4; i++) {
            tail[i] = 0;
        }
    }
    return r;
}

/* With the one-call drivers the NIST entry points only dispatch on the alignment: aligned buffers go to
 * the driver, others to the C modes below under the name aead_encrypt_c / aead_decrypt_c (a function
 * of their own, so the driver path saves none of the registers the C modes need). */
static int aead_encrypt_c(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                          unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                          const unsigned char *nsec, const unsigned char *npub, const unsigned char *k);
static int aead_decrypt_c(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                          const unsigned char *c, unsigned long long clen, const unsigned char *ad,
                          unsigned long long adlen, const unsigned char *npub, const unsigned char *k);

int MCU_FN(asconaead128, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                       unsigned long long mlen, const unsigned char *ad,
                                       unsigned long long adlen, const unsigned char *nsec,
                                       const unsigned char *npub, const unsigned char *k)
{
    if (ASCON_AEAD_ASM_OK(k, npub, ad, adlen, m, c)) {
        return aead_encrypt_asm(c, clen, m, (size_t)mlen, ad, (size_t)adlen, npub, k);
    }
    return aead_encrypt_c(c, clen, m, mlen, ad, adlen, nsec, npub, k);
}

int MCU_FN(asconaead128, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                                       const unsigned char *c, unsigned long long clen,
                                       const unsigned char *ad, unsigned long long adlen,
                                       const unsigned char *npub, const unsigned char *k)
{
    if (clen >= 16u && ASCON_AEAD_ASM_OK(k, npub, ad, adlen, c, m)) {
        return aead_decrypt_asm(m, mlen, c, (size_t)clen - 16u, ad, (size_t)adlen, npub, k);
    }
    return aead_decrypt_c(m, mlen, nsec, c, clen, ad, adlen, npub, k);
}
#define ASCON_AEAD_C(name) static int __attribute__((noinline)) aead_##name##_c
#else
#define ASCON_AEAD_C(name) int MCU_FN(asconaead128, aead_##name)
#endif

ASCON_AEAD_C(encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                      unsigned long long mlen, const unsigned char *ad,
                      unsigned long long adlen, const unsigned char *nsec,
                      const unsigned char *npub, const unsigned char *k)
{
    (void)nsec;
    ascon_state_t s;
    uint64_t k0 = load_bytes(k, 8), k1 = load_bytes(k + 8, 8);
    size_t n = (size_t)mlen;
    *clen = mlen + 16u;
    aead_start(&s, k0, k1, npub, ad, (size_t)adlen);
#if ASCON_ASM_BLOCKS
    if (n >= 16 && ASCON_ASM_OK(m, c)) {
        MCU_FN(ascon, encrypt16)(&s, c, m, n / 16);
        m += n & ~(size_t)15;
        c += n & ~(size_t)15;
        n &= 15;
    }
#endif
    for (; n >= 16; n -= 16, m += 16, c += 16) {
        ascon_xor_lane(&s, 0, load_bytes(m, 8));
        ascon_xor_lane(&s, 1, load_bytes(m + 8, 8));
        store_bytes(c, ascon_get_lane(&s, 0), 8);
        store_bytes(c + 8, ascon_get_lane(&s, 1), 8);
        ASCON_PERMUTE(&s, 8);
    }
    if (n >= 8) {
        ascon_xor_lane(&s, 0, load_bytes(m, 8));
        ascon_xor_lane(&s, 1, load_bytes(m + 8, n - 8) ^ pad(n - 8));
        store_bytes(c, ascon_get_lane(&s, 0), 8);
        store_bytes(c + 8, ascon_get_lane(&s, 1), n - 8);
    } else {
        ascon_xor_lane(&s, 0, load_bytes(m, n) ^ pad(n));
        store_bytes(c, ascon_get_lane(&s, 0), n);
    }
    aead_tag(&s, k0, k1, c + n);
    return 0;
}

/* Decrypt the n <= 8 bytes of one lane: m = S ^ c, and S takes c (the lane's other bytes unchanged). */
static void decrypt_lane(ascon_state_t *s, unsigned i, unsigned char *m, const unsigned char *c, size_t n)
{
    uint64_t p = ascon_get_lane(s, i) ^ load_bytes(c, n);
    if (n < 8) {
        p &= pad(n) - 1u;
    }
    store_bytes(m, p, n);
    ascon_xor_lane(s, i, p);
}

ASCON_AEAD_C(decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                      const unsigned char *c, unsigned long long clen,
                      const unsigned char *ad, unsigned long long adlen,
                      const unsigned char *npub, const unsigned char *k)
{
    (void)nsec;
    if (clen < 16u) {
        *mlen = 0;
        return -1;
    }
    ascon_state_t s;
    uint64_t k0 = load_bytes(k, 8), k1 = load_bytes(k + 8, 8);
    size_t total = (size_t)clen - 16u, n = total;
    unsigned char *out = m;
    aead_start(&s, k0, k1, npub, ad, (size_t)adlen);
#if ASCON_ASM_BLOCKS
    if (n >= 16 && ASCON_ASM_OK(m, c)) {
        MCU_FN(ascon, decrypt16)(&s, m, c, n / 16);
        m += n & ~(size_t)15;
        c += n & ~(size_t)15;
        n &= 15;
    }
#endif
    for (; n >= 16; n -= 16, m += 16, c += 16) {
        decrypt_lane(&s, 0, m, c, 8);
        decrypt_lane(&s, 1, m + 8, c + 8, 8);
        ASCON_PERMUTE(&s, 8);
    }
    if (n >= 8) {
        decrypt_lane(&s, 0, m, c, 8);
        decrypt_lane(&s, 1, m + 8, c + 8, n - 8);
        ascon_xor_lane(&s, 1, pad(n - 8));
    } else {
        decrypt_lane(&s, 0, m, c, n);
        ascon_xor_lane(&s, 0, pad(n));
    }
    unsigned char tag[16];
    aead_tag(&s, k0, k1, tag);
    /* Constant-time comparison; ok = 1 when every byte matched, else 0. */
    uint32_t diff = 0;
    for (unsigned i = 0; i < 16; i++) {
        diff |= (uint32_t)(tag[i] ^ c[n + i]);
    }
    /* diff is 0..255: diff - 1 borrows into bits 8.. only when diff == 0. (Not `>> 31`: avr-gcc turns that
     * into a skip on bit 31, a secret-dependent branch.) */
    uint32_t ok = ((diff - 1u) >> 8) & 1u;
    unsigned char keep = (unsigned char)(0u - ok);
    for (size_t i = 0; i < total; i++) {
        out[i] &= keep;  /* a rejected plaintext is wiped, on the same path as an accepted one */
    }
    *mlen = (unsigned long long)total & (0ull - (unsigned long long)ok);
    return (int)ok - 1;
}

/* ------------------------------------------------------------------------------ hash, XOF, CXOF */

static void sponge_start(ascon_hash_ctx_t *ctx, uint64_t iv)
{
    ascon_set_lane(&ctx->s, 0, iv);
    ascon_set_lane(&ctx->s, 1, 0);
    ascon_set_lane(&ctx->s, 2, 0);
    ascon_set_lane(&ctx->s, 3, 0);
    ascon_set_lane(&ctx->s, 4, 0);
    ASCON_PERMUTE(&ctx->s, 12);
    ctx->buf = 0;
    ctx->pos = 0;
    ctx->squeezing = 0;
}

static void sponge_absorb(ascon_hash_ctx_t *ctx, const unsigned char *in, size_t len)
{
    /* Finish a partial block first; then whole blocks straight from the input; keep the rest. */
    while (ctx->pos != 0 && len > 0) {
        ctx->buf ^= (uint64_t)*in++ << (8 * ctx->pos);
        len--;
        if (++ctx->pos == 8) {
            ascon_xor_lane(&ctx->s, 0, ctx->buf);
            ASCON_PERMUTE(&ctx->s, 12);
            ctx->buf = 0;
            ctx->pos = 0;
        }
    }
#if ASCON_ASM_BLOCKS || ASCON_ASM_ABSORB8
    if (len >= 8 && ASCON_ASM_OK(in, 0)) {
        MCU_FN(ascon, absorb8)(&ctx->s, in, len / 8);
        in += len & ~(size_t)7;
        len &= 7;
    }
#endif
    for (; len >= 8; len -= 8, in += 8) {
        ascon_xor_lane(&ctx->s, 0, load_bytes(in, 8));
        ASCON_PERMUTE(&ctx->s, 12);
    }
    ctx->buf ^= load_bytes(in, len) << (8 * ctx->pos);  /* pos is 0 here unless len is 0 */
    ctx->pos = (uint8_t)(ctx->pos + len);
}

static void sponge_pad(ascon_hash_ctx_t *ctx)
{
    ascon_xor_lane(&ctx->s, 0, ctx->buf ^ pad(ctx->pos));
    ASCON_PERMUTE(&ctx->s, 12);
    ctx->buf = 0;
    ctx->pos = 0;
}

static void sponge_squeeze(ascon_hash_ctx_t *ctx, unsigned char *out, size_t len)
{
    if (!ctx->squeezing) {
        sponge_pad(ctx);
        ctx->squeezing = 1;
        ctx->buf = ascon_get_lane(&ctx->s, 0);
    }
    /* pos counts the bytes of buf (= S0 at the last permutation) already given out. */
    while (len > 0) {
        if (ctx->pos == 8) {
            ASCON_PERMUTE(&ctx->s, 12);
            ctx->buf = ascon_get_lane(&ctx->s, 0);
            ctx->pos = 0;
        }
        if (ctx->pos == 0 && len >= 8) {
            store_bytes(out, ctx->buf, 8);
            out += 8;
            len -= 8;
            ctx->pos = 8;
            continue;
        }
        *out++ = (unsigned char)(ctx->buf >> (8 * ctx->pos));
        len--;
        ctx->pos++;
    }
}

static void cxof_start(ascon_hash_ctx_t *ctx, const unsigned char *z, size_t zlen)
{
    sponge_start(ctx, IV_CXOF128);
    ascon_xor_lane(&ctx->s, 0, (uint64_t)zlen * 8u);
    ASCON_PERMUTE(&ctx->s, 12);
    sponge_absorb(ctx, z, zlen);
    sponge_pad(ctx);
}

/* The incremental functions take the caller's context as an opaque buffer (uint8_t *, CTX_BYTES, 4-byte
 * aligned: every 64-bit access of this code is two word accesses on these cores), as the catalog's API
 * declares it; the cast goes through void * because only the alignment the API promises matters. */
#define CTX(p) ((ascon_hash_ctx_t *)(void *)(p))

/* Hash256: one-shot (NIST crypto_hash) and incremental. */
int MCU_FN(asconhash256, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    ascon_hash_ctx_t ctx;
    sponge_start(&ctx, IV_HASH256);
    sponge_absorb(&ctx, in, (size_t)inlen);
    sponge_squeeze(&ctx, out, 32);
    return 0;
}

void MCU_FN(asconhash256, init)(uint8_t *ctx)
{
    sponge_start(CTX(ctx), IV_HASH256);
}

void MCU_FN(asconhash256, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sponge_absorb(CTX(ctx), in, inlen);
}

void MCU_FN(asconhash256, final)(uint8_t *ctx, unsigned char *out)
{
    sponge_squeeze(CTX(ctx), out, 32);
}

/* XOF128: crypto_hash with the 64-byte output of its KAT, any output length, incremental. */
int MCU_FN(asconxof128, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    ascon_hash_ctx_t ctx;
    sponge_start(&ctx, IV_XOF128);
    sponge_absorb(&ctx, in, (size_t)inlen);
    sponge_squeeze(&ctx, out, 64);
    return 0;
}

void MCU_FN(asconxof128, xof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen)
{
    ascon_hash_ctx_t ctx;
    sponge_start(&ctx, IV_XOF128);
    sponge_absorb(&ctx, in, inlen);
    sponge_squeeze(&ctx, out, outlen);
}

void MCU_FN(asconxof128, init)(uint8_t *ctx)
{
    sponge_start(CTX(ctx), IV_XOF128);
}

void MCU_FN(asconxof128, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sponge_absorb(CTX(ctx), in, inlen);
}

void MCU_FN(asconxof128, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen)
{
    sponge_squeeze(CTX(ctx), out, outlen);
}

/* CXOF128: customization string z, one-shot and incremental. SP 800-232 (section 5.3) bounds z at 2,048
 * bits: a longer one is refused with -1 and nothing written (out, or ctx: not initialised, unusable).
 * The length is public. */
int MCU_FN(asconcxof128, cxof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen,
                               const unsigned char *z, size_t zlen)
{
    ascon_hash_ctx_t ctx;
    if (zlen > ASCON_CXOF_MAX_Z_BYTES)
        return -1;
    cxof_start(&ctx, z, zlen);
    sponge_absorb(&ctx, in, inlen);
    sponge_squeeze(&ctx, out, outlen);
    return 0;
}

int MCU_FN(asconcxof128, cxof_init)(uint8_t *ctx, const unsigned char *z, size_t zlen)
{
    if (zlen > ASCON_CXOF_MAX_Z_BYTES)
        return -1;
    cxof_start(CTX(ctx), z, zlen);
    return 0;
}

void MCU_FN(asconcxof128, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sponge_absorb(CTX(ctx), in, inlen);
}

void MCU_FN(asconcxof128, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen)
{
    sponge_squeeze(CTX(ctx), out, outlen);
}
