// SPDX-License-Identifier: MIT
/* The one thing every TinyJAMBU implementation supplies: the keyed permutation, one function per key
 * size. The mode of operation (tinyjambu.c) is shared by all implementations and calls them through
 * these names; each image links only the one its primitive id needs.
 *
 * perm(state, key, steps): P_steps on the state in the implementation's internal representation, with
 *   the 16-, 24- or 32-byte key of the id; steps is a multiple of 128 (640, 1024, 1152 or 1280).
 *   Without TJ_COMPLEMENTED_STATE the internal representation is the specification's state (four
 *   little-endian 32-bit words). With TJ_COMPLEMENTED_STATE=1 (avr-fast) the mode keeps every state bit
 *   complemented, which turns the NAND of the feedback into an OR (see avr/tinyjambu_fast.S), and the
 *   implementation also supplies perm_std, the same permutation on the specification's state, for the
 *   public `permute` op.
 *
 * blocks(state, key, steps, frame, in, out, nblocks, mode): optional (TJ_ASM_BLOCKS=1, avr-fast): nblocks
 *   whole 4-byte blocks of the mode in one call, each: state bits 36..38 ^= frame (frame = bits << 4),
 *   P_steps, then by mode TJ_ABSORB: s[3] ^= in word; TJ_ENCRYPT: s[3] ^= in word, out word = in ^ s[2];
 *   TJ_DECRYPT: out word = in ^ s[2], s[3] ^= out word (s[2] the specification word). The state stays
 *   in registers from block to block. Without it, tinyjambu.c does the same with a loop over perm.
 *
 * aead_enc(c, m, mlen, ad, adlen, npub, k) / aead_dec(m, c, mlen, ad, adlen, npub, k): optional
 *   (TJ_ASM_AEAD=1): the NIST encryption / decryption from the key set-up to the tag in one call, for
 *   4-byte aligned k, npub, m, c and (adlen > 0) ad; mlen is the message length (the tag at c + mlen).
 *   aead_dec returns 0, or -1 with the mlen plaintext bytes wiped (constant time). */
#ifndef MCUCRYPT_TINYJAMBU_PERM_H
#define MCUCRYPT_TINYJAMBU_PERM_H

/* The state representation and the block loop are a contract between the mode (C) and the permutation
 * (assembly); both include this header, and each implementation's build (or an exported library's
 * configuration header) must state both: a missing one is a compile error, never a wrong tag. */
#ifndef TJ_COMPLEMENTED_STATE
#error "TJ_COMPLEMENTED_STATE must be defined: 1 for avr-fast, 0 for every other TinyJAMBU implementation"
#endif
#ifndef TJ_ASM_BLOCKS
#error "TJ_ASM_BLOCKS must be defined: 1 where the implementation supplies the block loop (avr-fast, cm3-fast, rv32-fast, rv32-zbb), else 0"
#endif

/* TJ_ASM_AEAD=1 (rv32-fast, rv32-zbb): the implementation also supplies aead_enc / aead_dec, the whole
 * AEAD in one call (rv32/gen_aead_rv32.py), which the mode takes for 4-byte aligned buffers; 0 (the
 * default, every other implementation): the mode's own C around perm and blocks. */
#ifndef TJ_ASM_AEAD
#define TJ_ASM_AEAD 0
#endif

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt/ns.h"

#define TJ_ABSORB 0
#define TJ_ENCRYPT 1
#define TJ_DECRYPT 2

typedef void (*tj_perm_fn)(uint32_t *state, const uint8_t *key, uint16_t steps);
typedef void (*tj_blocks_fn)(uint32_t *state, const uint8_t *key, uint16_t steps, uint8_t frame,
                             const uint8_t *in, uint8_t *out, uint16_t nblocks, uint8_t mode);

#define TJ_PERM_DECLARE(id)                                                                         \
    void MCU_FN(id, perm)(uint32_t *state, const uint8_t *key, uint16_t steps);                     \
    void MCU_FN(id, perm_std)(uint32_t *state, const uint8_t *key, uint16_t steps);                 \
    void MCU_FN(id, blocks)(uint32_t *state, const uint8_t *key, uint16_t steps, uint8_t frame,     \
                            const uint8_t *in, uint8_t *out, uint16_t nblocks, uint8_t mode);       \
    void MCU_FN(id, aead_enc)(uint8_t *c, const uint8_t *m, size_t mlen, const uint8_t *ad,         \
                              size_t adlen, const uint8_t *npub, const uint8_t *k);                 \
    int MCU_FN(id, aead_dec)(uint8_t *m, const uint8_t *c, size_t mlen, const uint8_t *ad,          \
                             size_t adlen, const uint8_t *npub, const uint8_t *k);

TJ_PERM_DECLARE(tinyjambu128)
TJ_PERM_DECLARE(tinyjambu192)
TJ_PERM_DECLARE(tinyjambu256)

#endif /* __ASSEMBLER__ */
#endif
