/* SPDX-License-Identifier: MIT */
/* Keccak-f[1600] on the Cortex-M3: the layout contract between keccakf1600_cm3.S and keccak_cm3_glue.c.
 *
 * KECCAK_CM3_INTERLEAVED (no default; META.yml sets it per implementation):
 *   1  armv7m-fast: permute() takes the state in the bit-interleaved, half-separated layout (50 words,
 *      4-byte aligned: word 25h + 5y + x = the even (h = 0) or odd (h = 1) bits of lane (x, y)), as a
 *      sponge keeps it between permutations; interleave() and deinterleave() convert from and to the
 *      FIPS 202 byte layout in place.
 *   0  armv7m-spec: permute() takes the FIPS 202 layout (25 little-endian 64-bit lanes, any alignment)
 *      and converts in and out around the same core.
 */
#ifndef KECCAK_CM3_H
#define KECCAK_CM3_H
#ifndef KECCAK_CM3_INTERLEAVED
#error "KECCAK_CM3_INTERLEAVED must be defined (1: permute on the interleaved layout, 0: FIPS 202 layout)"
#endif
#endif
