// SPDX-License-Identifier: MIT
/* Keccak-f[1600] (FIPS 202 permutation): portable C99 reference, written from the specification.
 * State: 25 lanes of 64 bits, lane (x, y) at index x + 5y, little-endian bytes. The five steps per
 * round as specified (theta, rho, pi, chi, iota); no secret-dependent branch or address. */
#include <stdint.h>

#include "mcucrypt/ns.h"

void MCU_FN(keccakf1600, permute)(uint8_t *state);

static const uint64_t RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

/* rho offsets, lane x + 5y */
static const uint8_t RHO[25] = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static uint64_t rol64(uint64_t v, unsigned n)
{
    return n ? (v << n) | (v >> (64u - n)) : v;
}

void MCU_FN(keccakf1600, permute)(uint8_t *state)
{
    uint64_t a[25], b[25], c[5];
    for (int i = 0; i < 25; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) {
            v = (v << 8) | state[8 * i + j];
        }
        a[i] = v;
    }
    for (int round = 0; round < 24; round++) {
        for (int x = 0; x < 5; x++) { /* theta */
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for (int x = 0; x < 5; x++) {
            uint64_t d = c[(x + 4) % 5] ^ rol64(c[(x + 1) % 5], 1);
            for (int y = 0; y < 25; y += 5) {
                a[x + y] ^= d;
            }
        }
        for (int x = 0; x < 5; x++) { /* rho and pi: B[y, 2x+3y] = rot(A[x, y]) */
            for (int y = 0; y < 5; y++) {
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rol64(a[x + 5 * y], RHO[x + 5 * y]);
            }
        }
        for (int y = 0; y < 25; y += 5) { /* chi */
            for (int x = 0; x < 5; x++) {
                a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
            }
        }
        a[0] ^= RC[round]; /* iota */
    }
    for (int i = 0; i < 25; i++) {
        for (int j = 0; j < 8; j++) {
            state[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
        }
    }
}
