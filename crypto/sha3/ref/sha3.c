// SPDX-License-Identifier: MIT
/* SHA3-256, SHA3-512, SHAKE128 and SHAKE256 (FIPS 202): the sponge of section 4 with pad10*1 (section 5.1)
 * and the domain suffixes of section 6, on the implementation's Keccak-f[1600] (sha3.h says how the state
 * is reached: bytes, aligned words, or the Cortex-M3's interleaved lanes).
 *
 * Constant time: every branch and address depends only on lengths, rates and positions (public); the
 * alignment test of SHA3_LANE_ACCESS 1 reads the pointers' values, never the data. */
#include <stddef.h>
#include <stdint.h>

#include "sha3.h"

#define PERMUTE(s) MCU_FN(keccakf1600, permute)(s)

/* ------------------------------------------------------------------------------ the state's bytes */
#if SHA3_LANE_ACCESS != 0
typedef uint32_t __attribute__((may_alias)) word_alias;   /* a byte buffer read as words */
#endif

#if SHA3_LANE_ACCESS == 2

static inline void wipe_lane(uint32_t lane[2])   /* a lane of message or state leaves no copy on the stack */
{
    volatile uint32_t *v = lane;
    v[0] = 0;
    v[1] = 0;
}

/* Bytes [offset, offset + n) of the interleaved state: whole lanes go through the assembly directly; a
 * lane's head or tail goes through a lane-sized buffer (zero where the data does not reach, so the XOR
 * leaves the lane's other bytes as they are). */
void MCU_FN(sha3, sponge_xor_bytes)(uint8_t *s, unsigned offset, const uint8_t *in, size_t n)
{
    while (n > 0) {
        unsigned lane = offset / 8, at = offset % 8;
        if (at == 0 && n >= 8) {
            unsigned lanes = (unsigned)(n / 8);
            MCU_FN(sha3, xor_lanes)(s + 4 * lane, in, lanes);
            offset += 8 * lanes, in += 8 * lanes, n -= 8 * (size_t)lanes;
        } else {
            uint32_t words[2] = {0, 0};
            uint8_t *buf = (uint8_t *)words;
            unsigned take = 8 - at < n ? 8 - at : (unsigned)n;
            for (unsigned i = 0; i < take; i++)
                buf[at + i] = in[i];
            MCU_FN(sha3, xor_lanes)(s + 4 * lane, buf, 1);
            wipe_lane(words);
            offset += take, in += take, n -= take;
        }
    }
}

void MCU_FN(sha3, sponge_extract_bytes)(const uint8_t *s, unsigned offset, uint8_t *out, size_t n)
{
    while (n > 0) {
        unsigned lane = offset / 8, at = offset % 8;
        if (at == 0 && n >= 8) {
            unsigned lanes = (unsigned)(n / 8);
            MCU_FN(sha3, extract_lanes)(out, s + 4 * lane, lanes);
            offset += 8 * lanes, out += 8 * lanes, n -= 8 * (size_t)lanes;
        } else {
            uint32_t words[2];
            uint8_t *buf = (uint8_t *)words;
            unsigned take = 8 - at < n ? 8 - at : (unsigned)n;
            MCU_FN(sha3, extract_lanes)(buf, s + 4 * lane, 1);
            for (unsigned i = 0; i < take; i++)
                out[i] = buf[at + i];
            wipe_lane(words);
            offset += take, out += take, n -= take;
        }
    }
}

#else   /* FIPS 202 layout: byte i of the state is byte i of the sponge */

void MCU_FN(sha3, sponge_xor_bytes)(uint8_t *s, unsigned offset, const uint8_t *in, size_t n)
{
    s += offset;
#if SHA3_LANE_ACCESS == 1
    if ((((uintptr_t)s | (uintptr_t)in) & 3u) == 0) {
        word_alias *sw = (word_alias *)(void *)s;
        const word_alias *iw = (const word_alias *)(const void *)in;
        for (; n >= 16; n -= 16, sw += 4, iw += 4) {   /* rates are 8 x odd: 16 bytes, then 8 */
            uint32_t a = iw[0], b = iw[1], c = iw[2], d = iw[3];
            sw[0] ^= a, sw[1] ^= b, sw[2] ^= c, sw[3] ^= d;
        }
        if (n >= 8) {
            sw[0] ^= iw[0], sw[1] ^= iw[1];
            sw += 2, iw += 2, n -= 8;
        }
        s = (uint8_t *)sw, in = (const uint8_t *)iw;
    }
#endif
    for (size_t i = 0; i < n; i++)
        s[i] ^= in[i];
}

void MCU_FN(sha3, sponge_extract_bytes)(const uint8_t *s, unsigned offset, uint8_t *out, size_t n)
{
    s += offset;
#if SHA3_LANE_ACCESS == 1
    if ((((uintptr_t)s | (uintptr_t)out) & 3u) == 0) {
        const word_alias *sw = (const word_alias *)(const void *)s;
        word_alias *ow = (word_alias *)(void *)out;
        for (; n >= 8; n -= 8, sw += 2, ow += 2) {
            ow[0] = sw[0];
            ow[1] = sw[1];
        }
        s = (const uint8_t *)sw, out = (uint8_t *)ow;
    }
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = s[i];
}

#endif

/* ------------------------------------------------------------------------------------ the sponge */
void MCU_FN(sha3, sponge_init)(uint8_t *s)
{
#if SHA3_LANE_ACCESS == 2
    MCU_FN(sha3, zero_state)(s);   /* the assembly's STMs */
#elif SHA3_LANE_ACCESS != 0
    word_alias *w = (word_alias *)(void *)s;       /* the state is 4-byte aligned */
    for (unsigned i = 0; i < SHA3_STATE_BYTES / 4; i++)
        w[i] = 0;       /* zero in every layout */
#else
    for (unsigned i = 0; i < SHA3_STATE_BYTES; i++)
        s[i] = 0;
#endif
}

unsigned MCU_FN(sha3, sponge_absorb)(uint8_t *s, unsigned rate, unsigned pos, const uint8_t *in, size_t inlen)
{
    if (pos > 0) {      /* complete the block begun by an earlier call */
        unsigned take = rate - pos < inlen ? rate - pos : (unsigned)inlen;
        MCU_FN(sha3, sponge_xor_bytes)(s, pos, in, take);
        pos += take, in += take, inlen -= take;
        if (pos < rate)
            return pos;
        PERMUTE(s);
    }
    for (; inlen >= rate; in += rate, inlen -= rate) {   /* the fast path: whole blocks from the input */
#if SHA3_LANE_ACCESS == 2
        MCU_FN(sha3, xor_lanes)(s, in, rate / 8);   /* every rate is whole lanes: straight to the assembly */
#else
        MCU_FN(sha3, sponge_xor_bytes)(s, 0, in, rate);
#endif
        PERMUTE(s);
    }
    MCU_FN(sha3, sponge_xor_bytes)(s, 0, in, inlen);
    return (unsigned)inlen;
}

#if SHA3_LANE_ACCESS == 2
/* A public byte (the padding) XORed into the interleaved state at byte `offset`: its even bits compressed
 * into four bits of the lane's even word, its odd bits into the odd word's, at bit 4 x (offset % 8) —
 * a few instructions instead of a lane through xor_lanes. */
static unsigned compress_even_bits(unsigned b)   /* bits 0, 2, 4, 6 of b to bits 0..3 */
{
    b &= 0x55u;
    b = (b | b >> 1) & 0x33u;
    return (b | b >> 2) & 0x0Fu;
}

static void xor_public_byte(uint8_t *s, unsigned offset, unsigned byte)
{
    word_alias *w = (word_alias *)(void *)s;
    unsigned lane = offset / 8, shift = 4 * (offset % 8);
    w[lane] ^= (uint32_t)compress_even_bits(byte) << shift;
    w[25 + lane] ^= (uint32_t)compress_even_bits(byte >> 1) << shift;
}
#endif

void MCU_FN(sha3, sponge_finalize)(uint8_t *s, unsigned rate, unsigned pos, uint8_t suffix)
{
#if SHA3_LANE_ACCESS == 2
    xor_public_byte(s, pos, suffix);
    xor_public_byte(s, rate - 1, 0x80);   /* the final 1 of pad10*1 */
#else
    const uint8_t last = 0x80;      /* the final 1 of pad10*1 */
    MCU_FN(sha3, sponge_xor_bytes)(s, pos, &suffix, 1);
    MCU_FN(sha3, sponge_xor_bytes)(s, rate - 1, &last, 1);
#endif
}

unsigned MCU_FN(sha3, sponge_squeeze)(uint8_t *s, unsigned rate, unsigned pos, uint8_t *out, size_t outlen)
{
    while (outlen > 0) {
        if (pos == rate) {
            PERMUTE(s);
            pos = 0;
        }
        unsigned take = rate - pos < outlen ? rate - pos : (unsigned)outlen;
        MCU_FN(sha3, sponge_extract_bytes)(s, pos, out, take);
        pos += take, out += take, outlen -= take;
    }
    return pos;
}

void MCU_FN(sha3, sponge_squeezeblocks)(uint8_t *s, unsigned rate, uint8_t *out, size_t nblocks)
{
    for (; nblocks > 0; nblocks--, out += rate) {
        PERMUTE(s);
        MCU_FN(sha3, sponge_extract_bytes)(s, 0, out, rate);
    }
}

/* ------------------------------------------------------------------------------ the public API */
static void ctx_init(uint8_t *ctx)
{
    MCU_FN(sha3, sponge_init)(ctx);
    ctx[SHA3_CTX_POS] = 0;
    ctx[SHA3_CTX_SQUEEZING] = 0;
    ctx[202] = ctx[203] = 0;
}

static void ctx_update(uint8_t *ctx, unsigned rate, const uint8_t *in, size_t inlen)
{
    ctx[SHA3_CTX_POS] = (uint8_t)MCU_FN(sha3, sponge_absorb)(ctx, rate, ctx[SHA3_CTX_POS], in, inlen);
}

static void ctx_squeeze(uint8_t *ctx, unsigned rate, uint8_t suffix, uint8_t *out, size_t outlen)
{
    unsigned pos = ctx[SHA3_CTX_POS];
    if (!ctx[SHA3_CTX_SQUEEZING]) {
        MCU_FN(sha3, sponge_finalize)(ctx, rate, pos, suffix);
        ctx[SHA3_CTX_SQUEEZING] = 1;
        pos = rate;
    }
    ctx[SHA3_CTX_POS] = (uint8_t)MCU_FN(sha3, sponge_squeeze)(ctx, rate, pos, out, outlen);
}

/* One-shot: the sponge on a state of its own (4-byte aligned), then wiped. */
static void oneshot(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen, unsigned rate, uint8_t suffix)
{
    uint32_t state[SHA3_STATE_BYTES / 4];
    uint8_t *s = (uint8_t *)state;
    MCU_FN(sha3, sponge_init)(s);
    unsigned pos = MCU_FN(sha3, sponge_absorb)(s, rate, 0, in, inlen);
    MCU_FN(sha3, sponge_finalize)(s, rate, pos, suffix);
    MCU_FN(sha3, sponge_squeeze)(s, rate, rate, out, outlen);
#if SHA3_LANE_ACCESS == 2
    MCU_FN(sha3, zero_state)(s);   /* the state holds the message's last blocks: wipe it (an external call) */
#else
    volatile uint32_t *v = state;   /* the state holds the message's last blocks: wipe it */
    for (unsigned i = 0; i < SHA3_STATE_BYTES / 4; i++)
        v[i] = 0;
#endif
}

/* SHA3-256 and SHA3-512 (mode hash): crypto_hash, init / update / final. */
#define SHA3_HASH(id, rate, outbytes)                                                                  \
    int MCU_FN(id, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen);       \
    void MCU_FN(id, init)(uint8_t *ctx);                                                               \
    void MCU_FN(id, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);                      \
    void MCU_FN(id, final)(uint8_t *ctx, unsigned char *out);                                          \
    int MCU_FN(id, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)        \
    {                                                                                                  \
        oneshot(out, outbytes, in, (size_t)inlen, rate, SHA3_SUFFIX_SHA3);                             \
        return 0;                                                                                      \
    }                                                                                                  \
    void MCU_FN(id, init)(uint8_t *ctx) { ctx_init(ctx); }                                             \
    void MCU_FN(id, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)                       \
    {                                                                                                  \
        ctx_update(ctx, rate, in, inlen);                                                              \
    }                                                                                                  \
    void MCU_FN(id, final)(uint8_t *ctx, unsigned char *out)                                           \
    {                                                                                                  \
        ctx_squeeze(ctx, rate, SHA3_SUFFIX_SHA3, out, outbytes);                                       \
    }

/* SHAKE128 and SHAKE256 (mode xof): any output length, init / update / squeeze (again and again). */
#define SHA3_XOF(id, rate)                                                                             \
    void MCU_FN(id, xof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen);    \
    void MCU_FN(id, init)(uint8_t *ctx);                                                               \
    void MCU_FN(id, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);                      \
    void MCU_FN(id, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen);                         \
    void MCU_FN(id, xof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen)     \
    {                                                                                                  \
        oneshot(out, outlen, in, inlen, rate, SHA3_SUFFIX_SHAKE);                                      \
    }                                                                                                  \
    void MCU_FN(id, init)(uint8_t *ctx) { ctx_init(ctx); }                                             \
    void MCU_FN(id, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)                       \
    {                                                                                                  \
        ctx_update(ctx, rate, in, inlen);                                                              \
    }                                                                                                  \
    void MCU_FN(id, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen)                          \
    {                                                                                                  \
        ctx_squeeze(ctx, rate, SHA3_SUFFIX_SHAKE, out, outlen);                                        \
    }

SHA3_HASH(sha3_256, 136, 32)
SHA3_HASH(sha3_512, 72, 64)
SHA3_XOF(shake128, 168)
SHA3_XOF(shake256, 136)
