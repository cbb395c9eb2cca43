// SPDX-License-Identifier: MIT
/* SHA-3 and SHAKE (FIPS 202): the sponge on one Keccak-f[1600] state, shared by every implementation and
 * by the families built on it (ML-KEM, ML-DSA). docs/sha3.md describes it with its measurements.
 *
 * Public API, per primitive id (prototypes in crypto/sha3/META.yml; symbols mcu_<id>_<impl>_<op>):
 *   sha3_256, sha3_512:  hash (crypto_hash: 32 / 64 bytes), init, update, final
 *   shake128, shake256:  xof (any output length), init, update, squeeze (may be called again)
 * Contexts (SHA3_CTX_BYTES, 4-byte aligned): the 200-byte state, then the position in the current block and
 * the phase. init, any number of update calls, then final (SHA3) or squeeze calls (SHAKE); update after the
 * first squeeze is not supported (start again with init).
 *
 * The sponge (this file's functions, symbols mcu_sha3_<impl>_<name>): the state is 200 bytes, 4-byte
 * aligned, in the layout of the implementation's permutation (SHA3_LANE_ACCESS below); `rate` is the rate in
 * bytes (168 SHAKE128, 136 SHA3-256 and SHAKE256, 72 SHA3-512), `pos` the bytes of the current block
 * absorbed or squeezed so far. Absorbing permutes as soon as a block is full (pos stays < rate); squeezing
 * permutes before it reads a block (pos == rate: the block is used up), so finalize leaves pos = rate and the
 * first squeeze runs the permutation that ends the absorbing. Lengths, rates and positions are public;
 * the state and the data are secret (no branch or address depends on them).
 *
 *   sponge_init(s)                            zero the state
 *   pos = sponge_absorb(s, rate, pos, in, n)  absorb n bytes (the fast path: whole blocks straight from in)
 *   sponge_finalize(s, rate, pos, suffix)     the domain bits and pad10*1 (suffix: 0x06 SHA-3, 0x1F SHAKE);
 *                                             the squeeze position is then rate
 *   pos = sponge_squeeze(s, rate, pos, out, n)   n bytes of output
 *   sponge_squeezeblocks(s, rate, out, nblocks)  whole blocks (pos must be rate before and is after): one
 *                                             permutation and one block read per block, no bookkeeping
 *   sponge_xor_bytes(s, offset, in, n), sponge_extract_bytes(s, offset, out, n)
 *                                             the state's bytes [offset, offset + n) in FIPS 202 order, in
 *                                             any layout (what a caller building its own padding needs)
 */
#ifndef MCU_SHA3_H
#define MCU_SHA3_H

#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

/* How the sponge reaches the state, fixed per implementation in META.yml (no default):
 *   0  bytes, FIPS 202 layout (25 little-endian lanes): portable, and the AVR
 *   1  32-bit words where the data is word-aligned, FIPS 202 layout (rv32: the E31 traps on misaligned words)
 *   2  the Cortex-M3's bit-interleaved layout (crypto/keccak/armv7m/keccak_cm3.h: word i the even bits of
 *      lane i, word 25 + i its odd bits); lanes are interleaved on the way in and de-interleaved on the way
 *      out by sha3_lanes_cm3.S, so the state is never converted as a whole */
#ifndef SHA3_LANE_ACCESS
#error "SHA3_LANE_ACCESS must be defined: 0 bytes, 1 aligned 32-bit words (FIPS 202 layout), 2 the Cortex-M3's interleaved layout"
#endif
/* The permutation is crypto/keccak's source compiled into this family under names of its own
 * (mcu_sha3_keccakf1600_<impl>_permute), so a library holding both families links without a clash. */
#ifndef keccakf1600
#error "keccakf1600 must be defined as sha3_keccakf1600: the permutation's symbols in this family's namespace"
#endif

#define SHA3_STATE_BYTES 200
#define SHA3_CTX_BYTES 204      /* state, pos, phase, 2 bytes of padding */
#define SHA3_CTX_POS 200
#define SHA3_CTX_SQUEEZING 201

#define SHA3_SUFFIX_SHA3 0x06   /* the bits 01 of FIPS 202 section 6.1, then the first padding bit */
#define SHA3_SUFFIX_SHAKE 0x1F  /* the bits 1111 of section 6.2, then the first padding bit */

void MCU_FN(keccakf1600, permute)(uint8_t *state);

void MCU_FN(sha3, sponge_init)(uint8_t *s);
unsigned MCU_FN(sha3, sponge_absorb)(uint8_t *s, unsigned rate, unsigned pos, const uint8_t *in, size_t inlen);
void MCU_FN(sha3, sponge_finalize)(uint8_t *s, unsigned rate, unsigned pos, uint8_t suffix);
unsigned MCU_FN(sha3, sponge_squeeze)(uint8_t *s, unsigned rate, unsigned pos, uint8_t *out, size_t outlen);
void MCU_FN(sha3, sponge_squeezeblocks)(uint8_t *s, unsigned rate, uint8_t *out, size_t nblocks);
void MCU_FN(sha3, sponge_xor_bytes)(uint8_t *s, unsigned offset, const uint8_t *in, size_t n);
void MCU_FN(sha3, sponge_extract_bytes)(const uint8_t *s, unsigned offset, uint8_t *out, size_t n);

#if SHA3_LANE_ACCESS == 2
/* sha3_lanes_cm3.S: n whole lanes from lane 0 of `s` on (pass s + 4 * first lane); `in`/`out` any alignment. */
void MCU_FN(sha3, xor_lanes)(uint8_t *s, const uint8_t *in, unsigned nlanes);
void MCU_FN(sha3, extract_lanes)(uint8_t *out, const uint8_t *s, unsigned nlanes);
void MCU_FN(sha3, zero_state)(uint8_t *s);   /* the 200-byte state zeroed (word-aligned) */
#endif

#endif
