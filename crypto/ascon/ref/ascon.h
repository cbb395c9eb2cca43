// SPDX-License-Identifier: MIT
/* Ascon (NIST SP 800-232): what every implementation shares. The modes (ascon.c) are portable C; the
 * permutation comes from each implementation's own source and may keep the state in its own
 * representation (ASCON_INTERLEAVED: each 64-bit lane as two 32-bit words holding its even and odd
 * bits). The modes touch the state only through ascon_xor_lane / ascon_get_lane / ascon_set_lane below.
 *
 * Public API, per primitive id (prototypes in META.yml; symbols mcu_<id>_<impl>_<op>):
 *   asconaead128: aead_encrypt, aead_decrypt        NIST LWC crypto_aead_encrypt / crypto_aead_decrypt
 *   asconhash256: hash (crypto_hash, 32 bytes), init, update, final
 *   asconxof128:  hash (crypto_hash, 64 bytes), xof, init, update, squeeze
 *   asconcxof128: cxof, cxof_init, update, squeeze (cxof, cxof_init: -1 for a customization string
 *                 over 256 bytes, SP 800-232's bound) */
#ifndef MCU_ASCON_H
#define MCU_ASCON_H

#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

typedef struct {
    uint64_t x[5];  /* S0..S4; representation per implementation (see above) */
} ascon_state_t;

/* Incremental hash / XOF context (56 bytes on every target but AVR's 50): the state, the partial
 * 8-byte block being absorbed or squeezed (as a little-endian word), its fill, and the phase.
 * Use: init (or cxof_init), any number of update calls, then final (Hash256) or any number of squeeze
 * calls (XOFs); update after the first final/squeeze is not supported (start again with init). */
typedef struct {
    ascon_state_t s;
    uint64_t buf;
    uint8_t pos;
    uint8_t squeezing;
} ascon_hash_ctx_t;

/* Ascon-p[rounds]: the last `rounds` of the 12 rounds (rounds = 8 or 12), on the implementation's
 * representation. */
void MCU_FN(ascon, permute)(ascon_state_t *s, unsigned rounds);

/* Layout and code-path defines, fixed per implementation in META.yml (and in an exported library's
 * config header): a missing one is an error, never a silent default. */
#ifndef ASCON_INTERLEAVED
#error "ASCON_INTERLEAVED must be defined: 1 where the permutation works on bit-interleaved lanes (rv32-zbkb, armv7m-bi32), else 0"
#endif
#ifndef ASCON_ASM_BLOCKS
#error "ASCON_ASM_BLOCKS must be defined: 1 where the implementation supplies the block loops, else 0"
#endif
#ifndef ASCON_ASM_ABSORB8
#error "ASCON_ASM_ABSORB8 must be defined: 1 where the implementation supplies only the hash block loop, else 0"
#endif
#ifndef ASCON_ASM_ALIGN
#error "ASCON_ASM_ALIGN must be defined: the alignment mask the assembly block loops need (0u: any, 3u: words)"
#endif
#ifndef ASCON_ASM_AEAD
#error "ASCON_ASM_AEAD must be defined: 1 where the implementation supplies the one-call AEAD drivers (rv32-fast), else 0"
#endif

#if ASCON_INTERLEAVED
/* Bit interleaving: lane x <-> (even bits of x in word 0, odd bits in word 1). */
uint64_t MCU_FN(ascon, to_bi)(uint64_t x);
uint64_t MCU_FN(ascon, from_bi)(uint64_t x);
#define ASCON_TO(x) MCU_FN(ascon, to_bi)(x)
#define ASCON_FROM(x) MCU_FN(ascon, from_bi)(x)
#else
#define ASCON_TO(x) (x)
#define ASCON_FROM(x) (x)
#endif

#if ASCON_ASM_BLOCKS
/* Whole blocks with the state kept in registers, from the implementation's assembly (nblocks >= 1).
 * ascon.c calls them when every buffer is aligned to ASCON_ASM_ALIGN + 1 bytes (a public property
 * of the pointers), the byte-wise C path otherwise. */
void MCU_FN(ascon, absorb16)(ascon_state_t *s, const unsigned char *in, size_t nblocks);
void MCU_FN(ascon, encrypt16)(ascon_state_t *s, unsigned char *out, const unsigned char *in, size_t nblocks);
void MCU_FN(ascon, decrypt16)(ascon_state_t *s, unsigned char *out, const unsigned char *in, size_t nblocks);
#endif
#if ASCON_ASM_BLOCKS || ASCON_ASM_ABSORB8   /* ASCON_ASM_ABSORB8: only the hash block loop */
void MCU_FN(ascon, absorb8)(ascon_state_t *s, const unsigned char *in, size_t nblocks);
#endif
#define ASCON_ASM_OK(a, b) ((((uintptr_t)(a) | (uintptr_t)(b)) & ASCON_ASM_ALIGN) == 0)

#if ASCON_ASM_AEAD
/* One-call AEAD drivers (rv32-fast, ASCON_ASM_AEAD): the assembly runs Ascon-AEAD128 from the
 * initialization to the tag with the state in registers; ascon.c fills the job (4-byte-aligned key,
 * nonce, AD, input and output only), with the partial last blocks prepared here so the assembly
 * handles whole 16-byte blocks only. The assembly reads the fields at fixed offsets (J_* in its
 * source; checked below). */
typedef struct {
    const unsigned char *k;        /*  0: key, 16 bytes */
    const unsigned char *npub;     /*  4: nonce, 16 bytes */
    const unsigned char *ad;       /*  8: whole AD blocks [ad, ad_end) */
    const unsigned char *ad_end;   /* 12 */
    const unsigned char *in;       /* 16: whole message blocks [in, in_end) */
    const unsigned char *in_end;   /* 20 */
    unsigned char *out;            /* 24: their output, then the last block's tail_len bytes */
    unsigned char *tag;            /* 28: the tag: stored (encryption), compared (decryption); any alignment */
    uint32_t ad_phase;             /* 32: 0 without AD, else 1 + (adlen & 15) (1: the padding block alone) */
    uint32_t tail_len;             /* 36: bytes in the last message block, 0..15 (0: the padding alone) */
    uint32_t adtail[4];            /* 40: the last AD block (1..15 bytes) padded with 0x01 (unused for 0) */
    uint32_t tail[4];              /* 56: the last message block (1..15 bytes) padded, then its output */
    uint32_t mask[4];              /* 72: decryption: 0xff on the last block's bytes (then scratch) */
} ascon_aead_job_t;
/* C99 compile-time check: a negative array size when the layout differs from the assembly's. */
typedef char ascon_aead_job_offsets_match_the_assembly[
    (sizeof(void *) == 4 && offsetof(ascon_aead_job_t, tag) == 28 && offsetof(ascon_aead_job_t, tail_len) == 36 &&
     offsetof(ascon_aead_job_t, adtail) == 40 && offsetof(ascon_aead_job_t, tail) == 56 &&
     offsetof(ascon_aead_job_t, mask) == 72) ? 1 : -1];
void MCU_FN(ascon, aead_enc)(ascon_aead_job_t *j);
int MCU_FN(ascon, aead_dec)(ascon_aead_job_t *j);   /* 0: tag accepted; -1: rejected, output wiped */
#endif

static inline void ascon_xor_lane(ascon_state_t *s, unsigned i, uint64_t v) { s->x[i] ^= ASCON_TO(v); }
static inline uint64_t ascon_get_lane(const ascon_state_t *s, unsigned i) { return ASCON_FROM(s->x[i]); }
static inline void ascon_set_lane(ascon_state_t *s, unsigned i, uint64_t v) { s->x[i] = ASCON_TO(v); }

/* ------------------------------------------------------------------------------ the public API */
int MCU_FN(asconaead128, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                                       unsigned long long mlen, const unsigned char *ad,
                                       unsigned long long adlen, const unsigned char *nsec,
                                       const unsigned char *npub, const unsigned char *k);
int MCU_FN(asconaead128, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                                       const unsigned char *c, unsigned long long clen,
                                       const unsigned char *ad, unsigned long long adlen,
                                       const unsigned char *npub, const unsigned char *k);
int MCU_FN(asconhash256, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen);
void MCU_FN(asconhash256, init)(uint8_t *ctx);
void MCU_FN(asconhash256, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);
void MCU_FN(asconhash256, final)(uint8_t *ctx, unsigned char *out);
int MCU_FN(asconxof128, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen);
void MCU_FN(asconxof128, xof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen);
void MCU_FN(asconxof128, init)(uint8_t *ctx);
void MCU_FN(asconxof128, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);
void MCU_FN(asconxof128, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen);
/* The longest customization string of CXOF128: 2,048 bits (SP 800-232, section 5.3). cxof and cxof_init
 * return 0, or -1 with nothing written for a longer z. */
#define ASCON_CXOF_MAX_Z_BYTES 256u
int MCU_FN(asconcxof128, cxof)(unsigned char *out, size_t outlen, const unsigned char *in, size_t inlen,
                               const unsigned char *z, size_t zlen);
int MCU_FN(asconcxof128, cxof_init)(uint8_t *ctx, const unsigned char *z, size_t zlen);
void MCU_FN(asconcxof128, update)(uint8_t *ctx, const unsigned char *in, size_t inlen);
void MCU_FN(asconcxof128, squeeze)(uint8_t *ctx, unsigned char *out, size_t outlen);

#endif
