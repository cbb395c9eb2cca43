// SPDX-License-Identifier: MIT
/* ARIA key schedule for the constant-time implementation (rv32-ct).
 *
 * The three Feistel-like rounds of the key schedule go through the constant-time core of aria_ct.S
 * (the key is a secret: no table may be indexed by it); the rotations and the decryption keys are the
 * assembly of aria_ks.S: nothing here depends on data for its timing or addresses.
 *
 * The core's S-box circuit computes Out(inv(In(x))) with the S-boxes' additive constants removed
 * (gen_ct.py): lanes of SB3/SB4 expect x ^ 0x63 / x ^ 0xE2 at their input, and lanes of SB1/SB2 lack a
 * final ^ 0x63 / ^ 0xE2. So the round keys it uses are folded: the key of round r carries the input
 * constants of round r's S-boxes and, passed through the diffusion A, the output constants of round
 * r-1; the final key carries the last round's output constants. In word form (byte j of each word):
 *   odd rounds (SL1 = SB1 SB2 SB3 SB4): input 00 00 63 E2, output 63 E2 00 00;
 *   even rounds (SL2 = SB3 SB4 SB1 SB2): input 63 E2 00 00, output 00 00 63 E2. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "aria_rv32.h"
#include "aria_words.h"

#define CONST_ODD_IN 0xe2630000u     /* bytes 00 00 63 E2 as a little-endian word */
#define CONST_EVEN_IN 0x0000e263u    /* bytes 63 E2 00 00 */
#define CONST_ODD_OUT CONST_EVEN_IN
#define CONST_EVEN_OUT CONST_ODD_IN

/* A(c) for a constant c that is the same word in all four positions. */
static void diffused_const(uint32_t *out, uint32_t c)
{
    for (unsigned i = 0; i < 4; i++) {
        out[i] = c;
    }
    aria_diffuse(out);
}

/* FO (odd) or FE (even) of the specification through the core: y = A(SL(x ^ ck)). */
static void round_ct(uint32_t *y, const uint32_t *x, const uint32_t *ck, int odd)
{
    uint32_t k[4], c[4];
    for (unsigned i = 0; i < 4; i++) {
        k[i] = ck[i] ^ (odd ? CONST_ODD_IN : CONST_EVEN_IN);
    }
    MCU_FN(aria, ct_core)((uint8_t *)y, (const uint8_t *)x, k, 1u | (odd ? 0u : ARIA_CT_EVEN));
    diffused_const(c, odd ? CONST_ODD_OUT : CONST_EVEN_OUT);
    for (unsigned i = 0; i < 4; i++) {
        y[i] ^= c[i];
    }
}

static void spec_keys(uint32_t *rk, const uint8_t *key, unsigned key_bytes)
{
    unsigned c = (key_bytes - 16u) / 8u;            /* C1 = CK1, CK2 or CK3; C2, C3 follow cyclically */
    uint32_t w[4][4], kr[4];
    aria_load_key(w[0], kr, key, key_bytes);
    for (unsigned j = 0; j < 3; j++) {
        round_ct(w[j + 1], w[j], ARIA_CK_LE[c], j != 1u);
        c = c == 2u ? 0u : c + 1u;
        for (unsigned i = 0; i < 4; i++) {
            w[j + 1][i] ^= j == 0 ? kr[i] : w[j - 1][i];
        }
    }
    MCU_FN(aria, expand)(rk, &w[0][0], 8u + key_bytes / 4u);
}

/* Fold the S-box constants into spec round keys (encryption or decryption keys alike: both run the
 * same odd/even round sequence). */
static void fold_constants(uint32_t *rk, unsigned rounds)
{
    uint32_t after_odd[4], after_even[4];
    diffused_const(after_odd, CONST_ODD_OUT);
    diffused_const(after_even, CONST_EVEN_OUT);
    for (unsigned r = 1; r <= rounds; r++) {        /* round r uses rk[4(r-1) ..] */
        int odd = (r & 1u) != 0;
        for (unsigned i = 0; i < 4; i++) {
            uint32_t v = odd ? CONST_ODD_IN : CONST_EVEN_IN;
            if (r > 1) {
                v ^= odd ? after_even[i] : after_odd[i];
            }
            rk[4 * (r - 1) + i] ^= v;
        }
    }
    for (unsigned i = 0; i < 4; i++) {              /* the last round is even (SL2) */
        rk[4 * rounds + i] ^= CONST_EVEN_OUT;
    }
}

/* rv32-ct-multi builds this file with ARIA_CT_KS_COMPACT: the functions below are then its
 * keyschedule_compact / keyschedule_dec_compact, and its own key schedule (aria_ct_multi_ks.c) appends the
 * bitsliced expansion of these keys. */
#ifdef ARIA_CT_KS_COMPACT
#define ARIA_CT_KS(op) op##_compact
#else
#define ARIA_CT_KS(op) op
#endif

#define ARIA_KS_API(id, key_bytes)                                                              \
    void MCU_FN(id, ARIA_CT_KS(keyschedule))(uint32_t *rk, const uint8_t *key)                  \
    {                                                                                           \
        spec_keys(rk, key, key_bytes);                                                          \
        fold_constants(rk, 8u + (key_bytes) / 4u);                                              \
    }                                                                                           \
    void MCU_FN(id, ARIA_CT_KS(keyschedule_dec))(uint32_t *rk, const uint8_t *key)              \
    {                                                                                           \
        spec_keys(rk, key, key_bytes);                                                          \
        MCU_FN(aria, reverse)(rk, 8u + (key_bytes) / 4u);                                           \
        fold_constants(rk, 8u + (key_bytes) / 4u);                                              \
    }

ARIA_KS_API(aria128, 16)
ARIA_KS_API(aria192, 24)
ARIA_KS_API(aria256, 32)
