// SPDX-License-Identifier: MIT
/* Keccak-f[1600] on the Cortex-M3: the conversions between the FIPS 202 byte layout and the bit-interleaved,
 * half-separated layout of the assembly core (keccak_cm3.h), and, for armv7m-spec, the permutation on the
 * FIPS 202 layout around that core.
 *
 * Interleaving a 64-bit lane (lo, hi): each 32-bit word is "unzipped" (even bits to the low half, odd
 * bits to the high half) by four delta swaps (Hacker's Delight 7-2), then the halves are regrouped into
 * the even word (lo.low, hi.low) and the odd word (lo.high, hi.high). Straight-line, no table, no
 * secret-dependent branch or address: constant time. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "keccak_cm3.h"

static inline uint32_t swap(uint32_t x, uint32_t mask, unsigned shift)
{
    uint32_t t = (x ^ (x >> shift)) & mask;
    return x ^ t ^ (t << shift);
}

static inline uint32_t unzip(uint32_t x)  /* even bits -> bits 0..15, odd bits -> bits 16..31 */
{
    x = swap(x, 0x22222222u, 1);
    x = swap(x, 0x0C0C0C0Cu, 2);
    x = swap(x, 0x00F000F0u, 4);
    return swap(x, 0x0000FF00u, 8);
}

static inline uint32_t zip(uint32_t x)    /* the inverse of unzip */
{
    x = swap(x, 0x0000FF00u, 8);
    x = swap(x, 0x00F000F0u, 4);
    x = swap(x, 0x0C0C0C0Cu, 2);
    return swap(x, 0x22222222u, 1);
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t w;
    __builtin_memcpy(&w, p, 4);  /* one LDR (any alignment on the M3); a builtin under -ffreestanding */
    return w;
}

static inline void store32(uint8_t *p, uint32_t w)
{
    __builtin_memcpy(p, &w, 4);
}

/* FIPS 202 bytes (any alignment) -> 50 interleaved words. */
static void to_words(uint32_t w[50], const uint8_t *state)
{
    for (unsigned i = 0; i < 25; i++) {
        uint32_t lo = unzip(load32(state + 8 * i)), hi = unzip(load32(state + 8 * i + 4));
        w[i] = (lo & 0xFFFFu) | (hi << 16);
        w[25 + i] = (lo >> 16) | (hi & 0xFFFF0000u);
    }
}

/* 50 interleaved words -> FIPS 202 bytes (any alignment). */
static void from_words(uint8_t *state, const uint32_t w[50])
{
    for (unsigned i = 0; i < 25; i++) {
        uint32_t e = w[i], o = w[25 + i];
        store32(state + 8 * i, zip((e & 0xFFFFu) | (o << 16)));
        store32(state + 8 * i + 4, zip((e >> 16) | (o & 0xFFFF0000u)));
    }
}

#if KECCAK_CM3_INTERLEAVED
void MCU_FN(keccakf1600, interleave)(uint8_t *state);
void MCU_FN(keccakf1600, deinterleave)(uint8_t *state);

/* In place; the state must be 4-byte aligned (it is then the core's uint32_t[50]). */
void MCU_FN(keccakf1600, interleave)(uint8_t *state)
{
    uint32_t w[50];
    to_words(w, state);
    for (unsigned i = 0; i < 50; i++)
        store32(state + 4 * i, w[i]);
}

void MCU_FN(keccakf1600, deinterleave)(uint8_t *state)
{
    uint32_t w[50];
    for (unsigned i = 0; i < 50; i++)
        w[i] = load32(state + 4 * i);
    from_words(state, w);
}
#else
void MCU_FN(keccakf1600, core)(uint32_t *state);
void MCU_FN(keccakf1600, permute)(uint8_t *state);

/* FIPS 202 layout, any alignment: convert into an aligned buffer, permute, convert back. */
void MCU_FN(keccakf1600, permute)(uint8_t *state)
{
    uint32_t w[50];
    to_words(w, state);
    MCU_FN(keccakf1600, core)(w);
    from_words(state, w);
}
#endif
