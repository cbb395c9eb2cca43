// SPDX-License-Identifier: MIT
/* ARIA key schedule for the T-table implementations (rv32-fast, rv32-zbb): C over the 32-bit T-tables
 * of aria_t32.S, writing round keys as 16-byte strings in specification order (read as little-endian
 * words, exactly the state layout of aria_ttable.S).
 *
 * The three Feistel-like rounds that make W1..W3 use the same T-table round as the cipher; the round-key
 * expansion (the 128-bit rotations) and the decryption keys are the assembly of aria_ks.S.
 * The T-table look-ups are indexed by key bytes: secret-dependent addresses, like the cipher's. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "aria_rv32.h"
#include "aria_words.h"

#define T32 MCU_FN(aria, t32)

/* y = A(SL(x)): SL1 when odd, SL2 otherwise; the factorisation of aria_ttable.S (even rounds take the
 * tables in the order 2 3 0 1 and the byte permutations of the odd ones after a half-word swap). */
static void round32(uint32_t *y, const uint32_t *x, int odd)
{
    const uint32_t *ta = T32, *tb = T32 + 256, *tc = T32 + 512, *td = T32 + 768;
    if (!odd) {
        ta = T32 + 512;
        tb = T32 + 768;
        tc = T32;
        td = T32 + 256;
    }
    for (unsigned i = 0; i < 4; i++) {
        uint32_t v = x[i];
        y[i] = ta[v & 0xffu] ^ tb[(v >> 8) & 0xffu] ^ tc[(v >> 16) & 0xffu] ^ td[v >> 24];
    }
    aria_mix(y);
    if (odd) {
        y[1] = aria_swapb(y[1]);
        y[2] = aria_rot16(y[2]);
        y[3] = aria_bswap32(y[3]);
    } else {
        y[0] = aria_rot16(y[0]);
        y[1] = aria_bswap32(y[1]);
        y[3] = aria_swapb(y[3]);
    }
    aria_mix(y);
}

static void ks32(uint32_t *rk, const uint8_t *key, unsigned key_bytes)
{
    unsigned c = (key_bytes - 16u) / 8u;            /* C1 = CK1, CK2 or CK3 for 128/192/256-bit keys */
    uint32_t w[4][4], kr[4], t[4];
    aria_load_key(w[0], kr, key, key_bytes);
    /* W1 = FO(W0, C1) ^ KR, W2 = FE(W1, C2) ^ W0, W3 = FO(W2, C3) ^ W1 */
    for (unsigned j = 0; j < 3; j++) {
        const uint32_t *ck = ARIA_CK_LE[c];
        c = c == 2u ? 0u : c + 1u;                  /* C2, C3 follow cyclically */
        for (unsigned i = 0; i < 4; i++) {
            t[i] = w[j][i] ^ ck[i];
        }
        round32(w[j + 1], t, j != 1u);
        for (unsigned i = 0; i < 4; i++) {
            w[j + 1][i] ^= j == 0 ? kr[i] : w[j - 1][i];
        }
    }
    MCU_FN(aria, expand)(rk, &w[0][0], 8u + key_bytes / 4u);
}

#define ARIA_KS_API(id, key_bytes)                                                              \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key)                              \
    {                                                                                           \
        ks32(rk, key, key_bytes);                                                               \
    }                                                                                           \
    void MCU_FN(id, keyschedule_dec)(uint32_t *rk, const uint8_t *key)                          \
    {                                                                                           \
        ks32(rk, key, key_bytes);                                                               \
        MCU_FN(aria, reverse)(rk, 8u + (key_bytes) / 4u);                                           \
    }

ARIA_KS_API(aria128, 16)
ARIA_KS_API(aria192, 24)
ARIA_KS_API(aria256, 32)
