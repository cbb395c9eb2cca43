// SPDX-License-Identifier: MIT
/* AES-CMAC (NIST SP 800-38B, RFC 4493) for AES-128, over the AES-128 block function of crypto/aes that
 * the implementation links (META.yml `sources: [..., ../aes/<dir>/<file>]`, compiled under this
 * implementation's name: MCU_FN(aes128, ...) with aes128 renamed to aescmac_aes128 by `defines`, so the
 * export can hold crypto/aes and this family side by side).
 *
 *   void mcu_aescmac128_<impl>_mac(uint8_t *out, const uint8_t *key, const uint8_t *in, size_t inlen)
 *   void mcu_aescmac128_<impl>_mac_init(uint8_t *ctx, const uint8_t *key)
 *   void mcu_aescmac128_<impl>_mac_update(uint8_t *ctx, const uint8_t *in, size_t inlen)
 *   void mcu_aescmac128_<impl>_mac_final(uint8_t *ctx, uint8_t *out)
 *   int  mcu_aescmac128_<impl>_verify(const uint8_t *tag, size_t taglen, const uint8_t *key,
 *                                     const uint8_t *in, size_t inlen)
 *
 * SP 800-38B 6.1: L = AES_K(0^128), K1 = L.x, K2 = K1.x in GF(2^128) mod x^128 + x^7 + x^2 + x + 1
 * (doubling: a left shift, then 0x87 into the last byte under a mask made from the carry bit, no branch).
 * 6.2: CBC-MAC over the blocks with the last one XORed with K1 when complete, else padded 10* and XORed
 * with K2. Incremental: a complete block is held back until more data arrives (the last block of the
 * message is only known at mac_final), so the context holds at most one pending block.
 *
 * Context (CMAC_CTX_BYTES = 244 bytes, 4-byte aligned: cm3-table reads its round keys as words): the
 * round keys as the block function's key schedule writes them (176 bytes) at 0, K1 at 176, K2 at 192, the chaining value at 208,
 * the pending block at 224 and its byte count (0..16, public: it follows the message lengths) at 240,
 * three zero bytes of padding. mac_final writes the tag and wipes the whole context.
 *
 * Constant time: every branch and loop bound depends on lengths only (public); the key, message and
 * chaining value reach only the AES block function (constant time for the implementations that claim
 * it), XORs and the masked doubling. verify compares all taglen bytes by OR-ing differences and
 * declassifies only the verdict (mcu_declassify). Everything secret on the stack is wiped. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"

/* The block function's symbols in this family's namespace (mcu_aescmac_aes128_<impl>_*): without it
 * an export holding crypto/aes too would define mcu_aes128_<impl>_encrypt twice. */
#ifndef aes128
#error "aes128 must be defined as aescmac_aes128: the AES block function's symbols in this family's namespace"
#endif

#define CMAC_BLOCK 16
#define CMAC_RK_BYTES 176
#define CMAC_CTX_BYTES 244

/* The linked crypto/aes implementation's block function: 176-byte round keys for every one used here,
 * bytes for most, 44 words for cm3-table (hence void *: the context's round keys are 4-byte aligned). */
void MCU_FN(aes128, keyschedule)(void *rk, const uint8_t *key);
void MCU_FN(aes128, encrypt)(uint8_t *out, const uint8_t *in, const void *rk);

void MCU_FN(aescmac128, mac)(uint8_t *out, const uint8_t *key, const uint8_t *in, size_t inlen);
void MCU_FN(aescmac128, mac_init)(uint8_t *ctx, const uint8_t *key);
void MCU_FN(aescmac128, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen);
void MCU_FN(aescmac128, mac_final)(uint8_t *ctx, uint8_t *out);
int MCU_FN(aescmac128, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, const uint8_t *in,
                               size_t inlen);

typedef struct __attribute__((aligned(4))) {
    uint8_t rk[CMAC_RK_BYTES];
    uint8_t k1[CMAC_BLOCK];
    uint8_t k2[CMAC_BLOCK];
    uint8_t x[CMAC_BLOCK];      /* CBC-MAC chaining value */
    uint8_t m[CMAC_BLOCK];      /* pending bytes, the last block seen so far */
    uint8_t n;                  /* how many of m are filled, 0..16 */
    uint8_t pad[3];
} cmac_ctx;

typedef char cmac_ctx_size_check[sizeof(cmac_ctx) == CMAC_CTX_BYTES ? 1 : -1];

/* out = in . x in GF(2^128), big-endian (SP 800-38B 6.1): the carry out of bit 127 selects R_128 = 0x87
 * through a mask, not a branch. out and in may not overlap. */
static void gf128_double(uint8_t out[CMAC_BLOCK], const uint8_t in[CMAC_BLOCK])
{
    uint8_t carry = 0;
    for (int i = CMAC_BLOCK - 1; i >= 0; i--) {
        out[i] = (uint8_t)((in[i] << 1) | carry);
        carry = (uint8_t)(in[i] >> 7);
    }
    out[CMAC_BLOCK - 1] ^= (uint8_t)(0x87u & (0u - (unsigned)carry));
}

/* x ^= a ^ b, a block */
static void xor2(uint8_t *x, const uint8_t *a, const uint8_t *b)
{
    for (unsigned i = 0; i < CMAC_BLOCK; i++) {
        x[i] ^= (uint8_t)(a[i] ^ b[i]);
    }
}

static void cmac_init(cmac_ctx *c, const uint8_t *key)
{
    MCU_FN(aes128, keyschedule)(c->rk, key);
    for (unsigned i = 0; i < CMAC_BLOCK; i++) {
        c->x[i] = 0;
        c->m[i] = 0;
    }
    MCU_FN(aes128, encrypt)(c->k2, c->x, c->rk);      /* L = AES_K(0), parked in k2 */
    gf128_double(c->k1, c->k2);
    gf128_double(c->k2, c->k1);
    c->n = 0;
    c->pad[0] = c->pad[1] = c->pad[2] = 0;
}

/* Zero the whole context by word stores through a volatile pointer (the context is 4-byte aligned), an
 * 8-bit count: a quarter of mcu_wipe's byte loop on the AVR, where it was a third of a 16-byte tag's
 * cycles. The empty asm keeps the stores even if the context is dead afterwards (as mcu_wipe). */
static void cmac_wipe(cmac_ctx *c)
{
    volatile uint32_t *w = (volatile uint32_t *)(void *)c;
    for (uint8_t i = 0; i < sizeof *c / 4u; i++) {
        w[i] = 0;
    }
#if defined(__GNUC__)
    __asm__ __volatile__("" : : "r"(c) : "memory");
#endif
}

/* x = AES_K(x ^ block) */
static void cmac_block(cmac_ctx *c, const uint8_t *block)
{
    for (unsigned i = 0; i < CMAC_BLOCK; i++) {
        c->x[i] ^= block[i];
    }
    MCU_FN(aes128, encrypt)(c->x, c->x, c->rk);
}

static void cmac_update(cmac_ctx *c, const uint8_t *in, size_t inlen)
{
    if (inlen == 0) {
        return;
    }
    /* fill the pending block; it is processed only once a byte beyond it arrives */
    if (c->n > 0) {
        while (c->n < CMAC_BLOCK && inlen > 0) {
            c->m[c->n++] = *in++;
            inlen--;
        }
        if (inlen == 0) {
            return;
        }
        cmac_block(c, c->m);
        c->n = 0;
    }
    /* whole blocks straight from the input, all but the last one */
    while (inlen > CMAC_BLOCK) {
        cmac_block(c, in);
        in += CMAC_BLOCK;
        inlen -= CMAC_BLOCK;
    }
    for (size_t i = 0; i < inlen; i++) {
        c->m[i] = in[i];
    }
    c->n = (uint8_t)inlen;
}

/* The tag into out (16 bytes); the context is wiped. */
static void cmac_final(cmac_ctx *c, uint8_t *out)
{
    if (c->n == CMAC_BLOCK) {
        xor2(c->x, c->m, c->k1);
    } else {
        c->m[c->n] = 0x80;
        for (unsigned i = c->n + 1u; i < CMAC_BLOCK; i++) {
            c->m[i] = 0;
        }
        xor2(c->x, c->m, c->k2);
    }
    MCU_FN(aes128, encrypt)(out, c->x, c->rk);
    cmac_wipe(c);
}

void MCU_FN(aescmac128, mac)(uint8_t *out, const uint8_t *key, const uint8_t *in, size_t inlen)
{
    cmac_ctx c;
    cmac_init(&c, key);
    cmac_update(&c, in, inlen);
    cmac_final(&c, out);
}

void MCU_FN(aescmac128, mac_init)(uint8_t *ctx, const uint8_t *key)
{
    cmac_init((cmac_ctx *)(void *)ctx, key);
}

void MCU_FN(aescmac128, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen)
{
    cmac_update((cmac_ctx *)(void *)ctx, in, inlen);
}

void MCU_FN(aescmac128, mac_final)(uint8_t *ctx, uint8_t *out)
{
    cmac_final((cmac_ctx *)(void *)ctx, out);
}

/* 0 when the first taglen bytes of the tag match (4 <= taglen <= 16; SP 800-38B allows truncation, its
 * Appendix A weighing the length against the number of tries; other lengths are refused with -1, a
 * public decision): every byte is compared, the differences OR-ed, only the verdict leaves through
 * mcu_declassify. */
int MCU_FN(aescmac128, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, const uint8_t *in,
                               size_t inlen)
{
    uint8_t want[CMAC_BLOCK];
    uint32_t diff = 0;
    if (taglen < 4 || taglen > CMAC_BLOCK) {
        return -1;
    }
    MCU_FN(aescmac128, mac)(want, key, in, inlen);
    for (size_t i = 0; i < taglen; i++) {
        diff |= (uint32_t)(want[i] ^ tag[i]);
    }
    mcu_wipe(want, sizeof want);
    /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */
    uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);
    return (int)ok - 1;
}
