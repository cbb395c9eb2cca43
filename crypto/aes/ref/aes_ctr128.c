// SPDX-License-Identifier: MIT
/* AES-128 counter mode with NIST SP 800-38A's full 128-bit counter (Appendix B.1: the whole counter
 * block is a big-endian integer incremented modulo 2^128), in portable C over the block functions of the
 * implementation it is compiled with (META.yml `sources: [..., ref/aes_ctr128.c]`).
 *
 *   int mcu_aes128_<impl>_ctr128(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *rk,
 *                                const uint8_t *iv)
 *
 * iv is the initial counter block; rk comes from the implementation's keyschedule (cm3-table and the
 * barrel implementations: 4-byte aligned words). out may equal in. Returns 0, or -1 with nothing written
 * when the blocks would wrap the whole 128-bit counter (counter + ceil(len / 16) - 1 above 2^128 - 1,
 * which no real message reaches: the check is there so the key stream never repeats).
 *
 * Two ways, chosen by the build (META.yml `defines`):
 * - MCU_AES_CTR128_OVER_CTR (the implementations with a multi-block `ctr`): when no block carries out of
 *   the low 32-bit word (the common case), one call of the implementation's `ctr` on
 *   the caller's iv; otherwise the message in runs that stay below a wrap of the low word, each through
 *   `ctr` (so the bitsliced and T-table batches run at full speed), the upper 96 bits carried in C
 *   between runs. A run ends on a block boundary, so the next run starts on a fresh counter block.
 * - otherwise: one block at a time through `encrypt`, the key-stream block on the stack, wiped at the end.
 *
 * Constant time: every branch and loop bound depends on len and the counter block (public); the key and
 * the message reach only the block function (constant time for the implementations that claim it) and
 * XORs. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "mcucrypt/wipe.h"

#define CTR128_BLOCK 16

/* The round keys' type in the implementation's prototypes (META.yml): 4-byte aligned words for cm3-table
 * and the barrel implementations (`defines: [MCU_AES_RK_WORDS]`), bytes for the others. */
#if !defined(MCU_AES_CTR128_OVER_CTR) || !defined(MCU_AES_RK_WORDS)
#error "aes_ctr128.c: MCU_AES_CTR128_OVER_CTR and MCU_AES_RK_WORDS (0 or 1 each) come from the implementation's META.yml defines"
#endif
#if MCU_AES_RK_WORDS
typedef uint32_t aes_rk_t;
#else
typedef uint8_t aes_rk_t;
#endif

int MCU_FN(aes128, ctr128)(uint8_t *out, const uint8_t *in, size_t len, const aes_rk_t *rk, const uint8_t *iv);

#if MCU_AES_CTR128_OVER_CTR
int MCU_FN(aes128, ctr)(uint8_t *out, const uint8_t *in, size_t len, const aes_rk_t *rk, const uint8_t *iv);
#else
void MCU_FN(aes128, encrypt)(uint8_t *out, const uint8_t *in, const aes_rk_t *rk);
#endif

/* cb += n as a 128-bit big-endian integer; returns the carry out of the top byte (1: it wrapped). */
static unsigned ctr128_add(uint8_t cb[CTR128_BLOCK], size_t n)
{
    unsigned carry = 0;
    for (int i = CTR128_BLOCK - 1; i >= 0; i--) {
        unsigned sum = (unsigned)cb[i] + (unsigned)(n & 0xFFu) + carry;
        cb[i] = (uint8_t)sum;
        carry = sum >> 8;
        n >>= 8;    /* size_t is at most 64 bits: n is 0 after byte 8 */
    }
    return carry;
}

int MCU_FN(aes128, ctr128)(uint8_t *out, const uint8_t *in, size_t len, const aes_rk_t *rk, const uint8_t *iv)
{
    if (len == 0)
        return 0;
    size_t last = (len - 1) / CTR128_BLOCK;     /* the last block's offset from the first counter */
#if MCU_AES_CTR128_OVER_CTR
    /* the common case: no carry out of the low word, one call of the 32-bit ctr on the caller's iv */
    uint32_t low0 = ((uint32_t)iv[12] << 24) | ((uint32_t)iv[13] << 16) | ((uint32_t)iv[14] << 8) | iv[15];
    if (last <= (size_t)(0xFFFFFFFFu - low0))
        return MCU_FN(aes128, ctr)(out, in, len, rk, iv);
#endif
    uint8_t cb[CTR128_BLOCK];
    for (int i = 0; i < CTR128_BLOCK; i++)
        cb[i] = iv[i];
    /* the last block's counter, counter + (blocks - 1), must not pass 2^128 - 1 */
    if (ctr128_add(cb, last))
        return -1;
    for (int i = 0; i < CTR128_BLOCK; i++)
        cb[i] = iv[i];
#if MCU_AES_CTR128_OVER_CTR
    for (;;) {
        /* blocks before the low word wraps: 2^32 - low (0 here stands for 2^32, beyond any run) */
        uint32_t low = ((uint32_t)cb[12] << 24) | ((uint32_t)cb[13] << 16) | ((uint32_t)cb[14] << 8) | cb[15];
        uint32_t room = 0u - low;
        size_t run = len;
        if (room != 0 && (size_t)room <= (len - 1) / CTR128_BLOCK)
            run = (size_t)room * CTR128_BLOCK;
        MCU_FN(aes128, ctr)(out, in, run, rk, cb);   /* run never wraps the low word: returns 0 */
        len -= run;
        if (len == 0)
            return 0;
        out += run;
        in += run;
        ctr128_add(cb, run / CTR128_BLOCK);          /* low word to 0, the carry into the upper 96 bits */
    }
#else
    uint8_t ks[CTR128_BLOCK];
    while (len) {
        MCU_FN(aes128, encrypt)(ks, cb, rk);
        size_t n = len < CTR128_BLOCK ? len : CTR128_BLOCK;
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(in[i] ^ ks[i]);
        out += n;
        in += n;
        len -= n;
        for (int i = CTR128_BLOCK - 1; i >= 0 && ++cb[i] == 0; i--)   /* + 1: stops at the first byte that */
            ;                                                          /* does not carry (cb is public) */
    }
    mcu_wipe(ks, sizeof ks);
    return 0;
#endif
}
