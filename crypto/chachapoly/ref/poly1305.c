// SPDX-License-Identifier: MIT
/* Poly1305 (RFC 8439 section 2.5): the one-shot MAC, the incremental API and tag verification, in
 * portable C over the block function of the implementation (poly1305.h). Branches depend on lengths
 * only; the verification's verdict is the one secret-derived value made public (mcu_declassify). Key
 * material and the accumulator are wiped when a call is done (mcu_wipe; the stack-wipe wrappers clean
 * the rest). */
#include "poly1305.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"

/* tag = ((h mod p) + s) mod 2^128, on bytes with 16-bit carries (once per tag; bytes suit every core,
 * the AVR most). h is any 17 bytes (below 2^136). */
void MCU_FN(poly1305, finish)(uint8_t tag[16], const uint8_t hb[17], const uint8_t s[16])
{
    uint8_t h[17], g[17];
    uint16_t c;
    for (unsigned i = 0; i < 17; i++) {
        h[i] = hb[i];
    }
    /* fold the bits at 2^130 and above back x5 (2^130 = 5 mod p), twice: then h < 2^130 + 5 * 2^3 */
    for (unsigned pass = 0; pass < 2; pass++) {
        c = (uint16_t)((h[16] >> 2) * 5u);
        h[16] &= 3u;
        for (unsigned i = 0; i < 16; i++) {
            c = (uint16_t)(c + h[i]);
            h[i] = (uint8_t)c;
            c >>= 8;
        }
        h[16] = (uint8_t)(h[16] + c);
    }
    /* h mod p: h - p = h + 5 - 2^130 when h + 5 reaches 2^130 (at most once: h < 2p) */
    c = 5;
    for (unsigned i = 0; i < 17; i++) {
        c = (uint16_t)(c + h[i]);
        g[i] = (uint8_t)c;
        c >>= 8;
    }
    uint8_t use_g = (uint8_t)(0u - ((g[16] >> 2) & 1u));   /* all ones when h + 5 >= 2^130 */
    /* + s mod 2^128 (bits 128, 129 of the reduced h drop out) */
    c = 0;
    for (unsigned i = 0; i < 16; i++) {
        c = (uint16_t)(c + (uint8_t)((h[i] & (uint8_t)~use_g) | (g[i] & use_g)) + s[i]);
        tag[i] = (uint8_t)c;
        c >>= 8;
    }
}

void MCU_FN(poly1305, clamp)(uint8_t r[16], const uint8_t key[16])
{
    for (unsigned i = 0; i < 16; i++) {
        r[i] = key[i];
    }
    r[3] &= 15;
    r[7] &= 15;
    r[11] &= 15;
    r[15] &= 15;
    r[4] &= 252;
    r[8] &= 252;
    r[12] &= 252;
}

/* The message's whole blocks, then its tail padded with 0x01 and zeros (hibit 0): into h. */
static void absorb_message(uint8_t h[17], const uint8_t r[16], const uint8_t *in, size_t inlen)
{
    size_t whole = inlen / 16, rest = inlen % 16;
    if (whole > 0) {
        MCU_FN(poly1305, blocks)(h, r, in, whole, 1);
    }
    if (rest > 0) {
        uint8_t last[16];
        mcu_wipe(last, sizeof last);      /* zeros (a plain loop or = {0} becomes a memset call under -Os) */
        for (size_t i = 0; i < rest; i++) {
            last[i] = in[16 * whole + i];
        }
        last[rest] = 1;
        MCU_FN(poly1305, blocks)(h, r, last, 1, 0);
        mcu_wipe(last, sizeof last);
    }
}

static void oneshot(uint8_t tag[16], const uint8_t *key, const uint8_t *in, size_t inlen)
{
    uint8_t r[16], h[17];
    mcu_wipe(h, sizeof h);
    MCU_FN(poly1305, clamp)(r, key);
    absorb_message(h, r, in, inlen);
    MCU_FN(poly1305, finish)(tag, h, key + 16);
    mcu_wipe(r, sizeof r);
    mcu_wipe(h, sizeof h);
}

void MCU_FN(poly1305, mac)(uint8_t *out, const uint8_t *key, const uint8_t *in, size_t inlen)
{
    oneshot(out, key, in, inlen);
}

void MCU_FN(poly1305, mac_init)(uint8_t *ctx, const uint8_t *key)
{
    MCU_FN(poly1305, clamp)(ctx + POLY1305_CTX_R, key);
    for (unsigned i = 0; i < 16; i++) {
        ctx[POLY1305_CTX_S + i] = key[16 + i];
    }
    mcu_wipe(ctx + POLY1305_CTX_H, 17 + 16 + 1);   /* h, buf, used */
}

void MCU_FN(poly1305, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen)
{
    uint8_t *h = ctx + POLY1305_CTX_H, *buf = ctx + POLY1305_CTX_BUF;
    const uint8_t *r = ctx + POLY1305_CTX_R;
    size_t used = ctx[POLY1305_CTX_USED] & 15u;
    if (used > 0) {                       /* fill the pending block first */
        size_t take = 16 - used < inlen ? 16 - used : inlen;
        for (size_t i = 0; i < take; i++) {
            buf[used + i] = in[i];
        }
        used += take;
        in += take;
        inlen -= take;
        if (used < 16) {
            ctx[POLY1305_CTX_USED] = (uint8_t)used;
            return;
        }
        MCU_FN(poly1305, blocks)(h, r, buf, 1, 1);
    }
    size_t whole = inlen / 16;
    if (whole > 0) {
        MCU_FN(poly1305, blocks)(h, r, in, whole, 1);
    }
    used = inlen % 16;
    for (size_t i = 0; i < used; i++) {
        buf[i] = in[16 * whole + i];
    }
    ctx[POLY1305_CTX_USED] = (uint8_t)used;
}

void MCU_FN(poly1305, mac_final)(uint8_t *ctx, uint8_t *out)
{
    uint8_t *h = ctx + POLY1305_CTX_H, *buf = ctx + POLY1305_CTX_BUF;
    size_t used = ctx[POLY1305_CTX_USED] & 15u;
    if (used > 0) {
        buf[used] = 1;
        mcu_wipe(buf + used + 1, 15 - used);
        MCU_FN(poly1305, blocks)(h, ctx + POLY1305_CTX_R, buf, 1, 0);
    }
    MCU_FN(poly1305, finish)(out, h, ctx + POLY1305_CTX_S);
    mcu_wipe(ctx, POLY1305_CTX_BYTES);
}

int MCU_FN(poly1305, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, const uint8_t *in,
                             size_t inlen)
{
    uint8_t want[16];
    uint32_t diff = 0;
    if (taglen != POLY1305_TAG_BYTES) {
        return -1;
    }
    oneshot(want, key, in, inlen);
    for (unsigned i = 0; i < 16; i++) {
        diff |= (uint32_t)(want[i] ^ tag[i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 (not `>> 31`: avr-gcc makes
     * that a skip on bit 31, a secret-dependent branch) */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    return (int)ok - 1;
}
