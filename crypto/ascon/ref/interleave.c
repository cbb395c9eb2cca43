// SPDX-License-Identifier: MIT
/* Bit interleaving in portable C for the bi32 implementations whose core has no ZIP/UNZIP:
 * lane x <-> (even bits of x in the low word, odd bits in the high word). Each 32-bit word is
 * "unzipped" (even bits to its low half, odd bits to its high half) by four swap-move steps; the
 * halves are then recombined. Fixed shifts and masks only: constant time. */
#include "ascon.h"

static uint32_t unzip32(uint32_t w)
{
    uint32_t t;
    t = (w ^ (w >> 1)) & 0x22222222u; w ^= t ^ (t << 1);
    t = (w ^ (w >> 2)) & 0x0c0c0c0cu; w ^= t ^ (t << 2);
    t = (w ^ (w >> 4)) & 0x00f000f0u; w ^= t ^ (t << 4);
    t = (w ^ (w >> 8)) & 0x0000ff00u; w ^= t ^ (t << 8);
    return w;
}

static uint32_t zip32(uint32_t w)
{
    uint32_t t;
    t = (w ^ (w >> 8)) & 0x0000ff00u; w ^= t ^ (t << 8);
    t = (w ^ (w >> 4)) & 0x00f000f0u; w ^= t ^ (t << 4);
    t = (w ^ (w >> 2)) & 0x0c0c0c0cu; w ^= t ^ (t << 2);
    t = (w ^ (w >> 1)) & 0x22222222u; w ^= t ^ (t << 1);
    return w;
}

uint64_t MCU_FN(ascon, to_bi)(uint64_t x)
{
    uint32_t lo = unzip32((uint32_t)x), hi = unzip32((uint32_t)(x >> 32));
    uint32_t e = (lo & 0xffffu) | (hi << 16), o = (lo >> 16) | (hi & 0xffff0000u);
    return (uint64_t)e | ((uint64_t)o << 32);
}

uint64_t MCU_FN(ascon, from_bi)(uint64_t x)
{
    uint32_t e = (uint32_t)x, o = (uint32_t)(x >> 32);
    uint32_t lo = zip32((e & 0xffffu) | (o << 16)), hi = zip32((e >> 16) | (o & 0xffff0000u));
    return (uint64_t)lo | ((uint64_t)hi << 32);
}
