// SPDX-License-Identifier: MIT
/* The key-schedule back ends rv32/aria_ct_ks.c calls, in C for the Cortex-M3 (cm3-ct): the round-key
 * expansion from W0..W3 and the encryption-to-decryption key transform. rv32/aria_ks.S is the E31's
 * assembly of the same two functions; aria_ct_ks.c itself (the FO/FE rounds through the constant-time
 * core, the folding of the S-box constants) is shared unchanged.
 *
 *   void mcu_aria_cm3_ct_expand(uint32_t *rk, const uint32_t *w, uint32_t rounds);
 *   void mcu_aria_cm3_ct_reverse(uint32_t *rk, uint32_t rounds);
 *
 * Word form: a 16-byte value is four little-endian words (word i = bytes 4i..4i+3).
 * expand: rk[k] = W(k mod 4) ^ (W(k+1 mod 4) >>> n(k/4)), k = 0..rounds, n = 19, 31, 67, 97, 109
 * (RFC 5794 2.2, the left rotations by 61, 31, 19 written as right rotations of the big-endian value).
 * reverse: dk1 = ek(n+1), dk(i) = A(ek(n+2-i)) for 1 < i <= n, dk(n+1) = ek1, in place.
 * Rotation amounts and indices are public; nothing depends on the key for its timing or addresses.
 *
 * The key schedules themselves: aria_ct_ks.c is built with ARIA_CT_KS_COMPACT, so its schedules are
 * keyschedule_compact / keyschedule_dec_compact; the cm3-ct ones below call them and then apply T or
 * sigma.T (gen_ct_cm3.py's AES-field-to-tower maps, mcu_aria_cm3_ct_twist in aria_ct_cm3.S) to every
 * byte of the round keys 2..rounds: the core keeps the state in those forms (T entering odd rounds,
 * sigma.T entering even ones) between its first key addition and its last S-box layer, while the first
 * and the final keys meet the plain state. */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "../rv32/aria_rv32.h"
#include "../rv32/aria_words.h"

#ifndef ARIA_CT_KS_COMPACT
#error "cm3-ct builds rv32/aria_ct_ks.c with ARIA_CT_KS_COMPACT (its schedules are wrapped here)"
#endif

static const uint8_t ARIA_KS_ROT[5] = {19, 31, 67, 97, 109};

void MCU_FN(aria, expand)(uint32_t *rk, const uint32_t *w, uint32_t rounds)
{
    uint32_t be[4][4];
    for (unsigned i = 0; i < 4; i++) {
        for (unsigned j = 0; j < 4; j++) {
            be[i][j] = aria_bswap32(w[4 * i + j]);
        }
    }
    for (unsigned k = 0; k <= rounds; k++) {
        const uint32_t *a = w + 4 * (k % 4);
        const uint32_t *b = be[(k + 1) % 4];
        unsigned n = ARIA_KS_ROT[k / 4], q = n / 32, r = n % 32;    /* r is never 0 */
        for (unsigned i = 0; i < 4; i++) {
            uint32_t hi = b[(i + 4 - q) % 4], lo = b[(i + 3 - q) % 4];
            rk[4 * k + i] = a[i] ^ aria_bswap32((hi >> r) | (lo << (32 - r)));
        }
    }
}

void MCU_FN(aria, reverse)(uint32_t *rk, uint32_t rounds)
{
    for (unsigned i = 0, j = rounds; i < j; i++, j--) {             /* reverse the key order */
        for (unsigned m = 0; m < 4; m++) {
            uint32_t t = rk[4 * i + m];
            rk[4 * i + m] = rk[4 * j + m];
            rk[4 * j + m] = t;
        }
    }
    for (unsigned i = 1; i < rounds; i++) {
        aria_diffuse(rk + 4 * i);
    }
}

void MCU_FN(aria, twist)(uint32_t *w, uint32_t n, uint32_t sigma);

/* The round keys 2..rounds (rk + 4 .. rk + 4 (rounds - 1)) into the form of the round they precede: the
 * key before round r + 1 (rk + 4r) in the form sigma.T when r is odd (it meets the output of odd round
 * r), T when r is even. */
static void aria_cm3_twist_keys(uint32_t *rk, uint32_t rounds)
{
    for (uint32_t r = 1; r < rounds; r++) {
        MCU_FN(aria, twist)(rk + 4u * r, 4u, r & 1u);
    }
}

#define ARIA_CM3_KS(id, key_bytes)                                                              \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key)                              \
    {                                                                                           \
        MCU_FN(id, keyschedule_compact)(rk, key);                                               \
        aria_cm3_twist_keys(rk, 8u + (key_bytes) / 4u);                                         \
    }                                                                                           \
    void MCU_FN(id, keyschedule_dec)(uint32_t *rk, const uint8_t *key)                          \
    {                                                                                           \
        MCU_FN(id, keyschedule_dec_compact)(rk, key);                                           \
        aria_cm3_twist_keys(rk, 8u + (key_bytes) / 4u);                                         \
    }

ARIA_CM3_KS(aria128, 16)
ARIA_CM3_KS(aria192, 24)
ARIA_CM3_KS(aria256, 32)

/* encrypt_blocks: pairs of blocks through the two-block core (aria_ct_cm3.S), an odd last block through
 * the one-block core; the count and the pointers are public. */
void MCU_FN(aria, ct_core2)(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t rounds);

#define ARIA_CM3_BLOCKS(id, rounds)                                                             \
    void MCU_FN(id, encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks,           \
                                    const uint32_t *rk);                                        \
    void MCU_FN(id, encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks,           \
                                    const uint32_t *rk)                                         \
    {                                                                                           \
        for (; nblocks >= 2u; nblocks -= 2u, in += 32, out += 32) {                             \
            MCU_FN(aria, ct_core2)(out, in, rk, (rounds));                                      \
        }                                                                                       \
        if (nblocks != 0u) {                                                                    \
            MCU_FN(aria, ct_core)(out, in, rk, (rounds) | ARIA_CT_CIPHER);                      \
        }                                                                                       \
    }

ARIA_CM3_BLOCKS(aria128, 12u)
ARIA_CM3_BLOCKS(aria192, 14u)
ARIA_CM3_BLOCKS(aria256, 16u)
