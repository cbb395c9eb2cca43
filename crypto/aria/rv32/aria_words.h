// SPDX-License-Identifier: MIT
/* Word-level ARIA helpers shared by the C key schedules of the rv32 implementations (aria_ks32.c for
 * rv32-fast/rv32-zbb, aria_ct_ks.c for rv32-ct). A 16-byte ARIA value is four little-endian words
 * (word w holds bytes 4w..4w+3, byte 4w in bits 0..7), the state layout of the assembly. Every function
 * here runs in time independent of its data. The round-key expansion and the decryption keys are in
 * assembly (aria_ks.S). */
#ifndef MCUCRYPT_ARIA_WORDS_H
#define MCUCRYPT_ARIA_WORDS_H
#include <stdint.h>

/* CK1, CK2, CK3 (RFC 5794) in word form. */
static const uint32_t ARIA_CK_LE[3][4] = {
    {0xb7c17c51u, 0x940a2227u, 0xe8ab13feu, 0xe06e9afau},
    {0xcc4ab16du, 0x20c8219eu, 0xd5b128ffu, 0xb0e25defu},
    {0x1d3792dbu, 0x70e92621u, 0x75972403u, 0x0ec9e804u},
};

static inline uint32_t aria_bswap32(uint32_t x)
{
    return (x << 24) | ((x & 0xff00u) << 8) | ((x >> 8) & 0xff00u) | (x >> 24);
}

static inline uint32_t aria_rot16(uint32_t x)
{
    return (x << 16) | (x >> 16);
}

static inline uint32_t aria_swapb(uint32_t x)     /* bytes (0 1 2 3) -> (1 0 3 2) */
{
    return ((x & 0x00ff00ffu) << 8) | ((x >> 8) & 0x00ff00ffu);
}

static inline uint32_t aria_load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* M: w0' = w0^w1^w2, w1' = w0^w2^w3, w2' = w0^w1^w3, w3' = w1^w2^w3. */
static inline void aria_mix(uint32_t *w)
{
    w[1] ^= w[2];
    w[2] ^= w[3];
    w[0] ^= w[1];
    w[3] ^= w[1];
    w[2] ^= w[0];
    w[1] ^= w[2];
}

/* The diffusion A = M.P.M.D in place. D: each byte becomes the XOR of its word's other three bytes. */
static inline void aria_diffuse(uint32_t *x)
{
    for (unsigned i = 0; i < 4; i++) {
        uint32_t v = x[i];
        x[i] = ((v >> 8) | (v << 24)) ^ aria_rot16(v) ^ ((v << 8) | (v >> 24));
    }
    aria_mix(x);
    x[1] = aria_swapb(x[1]);
    x[2] = aria_rot16(x[2]);
    x[3] = aria_bswap32(x[3]);
    aria_mix(x);
}

/* KL (w0) and KR (kr, zero-padded) from a 16/24/32-byte key. */
static inline void aria_load_key(uint32_t *w0, uint32_t *kr, const uint8_t *key, unsigned key_bytes)
{
    for (unsigned i = 0; i < 4; i++) {
        w0[i] = aria_load32_le(key + 4 * i);
        kr[i] = 4u * i + 16u < key_bytes ? aria_load32_le(key + 16 + 4 * i) : 0u;
    }
}

#endif
