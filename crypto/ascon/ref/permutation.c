// SPDX-License-Identifier: MIT
/* Ascon-p (NIST SP 800-232 §3) on 64-bit lanes, written from the standard: constant addition into S2,
 * the bitsliced 5-bit S-box over the 64 columns, the linear layer Si ^= (Si >>> a) ^ (Si >>> b).
 * Constant time: no branch or address depends on the state; only the public round count is a loop
 * bound. */
#include "ascon.h"

static inline uint64_t ror64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64u - n));
}

void MCU_FN(ascon, permute)(ascon_state_t *s, unsigned rounds)
{
    uint64_t x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3], x4 = s->x[4];
    for (unsigned r = 12u - rounds; r < 12u; r++) {
        /* Round constant r of 12: 0xf0, 0xe1, ..., 0x4b (SP 800-232 Table 5). */
        x2 ^= (uint64_t)(((0xfu - r) << 4) | r);
        /* S-box layer (SP 800-232 §3.3, bitsliced form). */
        x0 ^= x4;
        x4 ^= x3;
        x2 ^= x1;
        uint64_t t0 = ~x0 & x1, t1 = ~x1 & x2, t2 = ~x2 & x3, t3 = ~x3 & x4, t4 = ~x4 & x0;
        x0 ^= t1;
        x1 ^= t2;
        x2 ^= t3;
        x3 ^= t4;
        x4 ^= t0;
        x1 ^= x0;
        x0 ^= x4;
        x3 ^= x2;
        x2 = ~x2;
        /* Linear diffusion layer (§3.4). */
        x0 ^= ror64(x0, 19) ^ ror64(x0, 28);
        x1 ^= ror64(x1, 61) ^ ror64(x1, 39);
        x2 ^= ror64(x2, 1) ^ ror64(x2, 6);
        x3 ^= ror64(x3, 10) ^ ror64(x3, 17);
        x4 ^= ror64(x4, 7) ^ ror64(x4, 41);
    }
    s->x[0] = x0;
    s->x[1] = x1;
    s->x[2] = x2;
    s->x[3] = x3;
    s->x[4] = x4;
}
