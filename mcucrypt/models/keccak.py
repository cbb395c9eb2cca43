# SPDX-License-Identifier: MIT
"""Keccak-f[1600] (FIPS 202, the permutation) in Python, the differential oracle.
The round constants are generated from their LFSR definition and the rotation offsets from the
(x, y) walk of the specification, not copied from tables."""
from __future__ import annotations

import struct

M64 = (1 << 64) - 1


def _round_constants() -> list[int]:
    def rc(t: int) -> int:
        r = 1
        for _ in range(t % 255):
            r <<= 1
            if r & 0x100:
                r ^= 0x171
        return r & 1
    out = []
    for i in range(24):
        c = 0
        for j in range(7):
            if rc(j + 7 * i):
                c |= 1 << ((1 << j) - 1)
        out.append(c)
    return out


def _rotation_offsets() -> list[int]:
    rot = [0] * 25
    x, y = 1, 0
    for t in range(24):
        rot[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return rot


RC = _round_constants()
ROT = _rotation_offsets()


def _rol(v: int, n: int) -> int:
    return ((v << n) | (v >> (64 - n))) & M64 if n else v


def permute_lanes(a: list[int]) -> list[int]:
    a = list(a)
    for rnd in range(24):
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for x in range(5)]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = _rol(a[x + 5 * y], ROT[x + 5 * y])
        a = [b[i] ^ (~b[(i % 5 + 1) % 5 + 5 * (i // 5)] & b[(i % 5 + 2) % 5 + 5 * (i // 5)]) for i in range(25)]
        a[0] ^= RC[rnd]
    return a


def permute(state: bytes) -> bytes:
    if len(state) != 200:
        raise ValueError("Keccak-f[1600] states are 200 bytes")
    return struct.pack("<25Q", *permute_lanes(list(struct.unpack("<25Q", state))))
