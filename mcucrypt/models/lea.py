# SPDX-License-Identifier: MIT
"""LEA (KS X 3246) in Python, from the specification: the differential-test oracle."""
from __future__ import annotations

import struct

DELTA = (0xC3EFE9DB, 0x44626B02, 0x79E27C8A, 0x78DF30EC, 0x715EA49E, 0xC785DA0A, 0xE04EF22A, 0xE5C40957)
M32 = 0xFFFFFFFF
ROUNDS = {16: 24, 24: 28, 32: 32}


def _rol(x: int, r: int) -> int:
    r %= 32
    return ((x << r) | (x >> (32 - r))) & M32


def _ror(x: int, r: int) -> int:
    return _rol(x, 32 - r % 32)


def round_keys(key: bytes) -> list[tuple[int, ...]]:
    if len(key) not in ROUNDS:
        raise ValueError("LEA keys are 16, 24 or 32 bytes")
    t = list(struct.unpack(f"<{len(key) // 4}I", key))
    rk = []
    for i in range(ROUNDS[len(key)]):
        if len(key) == 16:
            d = DELTA[i % 4]
            t[0] = _rol((t[0] + _rol(d, i)) & M32, 1)
            t[1] = _rol((t[1] + _rol(d, i + 1)) & M32, 3)
            t[2] = _rol((t[2] + _rol(d, i + 2)) & M32, 6)
            t[3] = _rol((t[3] + _rol(d, i + 3)) & M32, 11)
            rk.append((t[0], t[1], t[2], t[1], t[3], t[1]))
        else:
            n = len(t)
            d = DELTA[i % n]
            words = []
            for j, r in enumerate((1, 3, 6, 11, 13, 17)):
                w = (6 * i + j) % n
                t[w] = _rol((t[w] + _rol(d, i + j)) & M32, r)
                words.append(t[w])
            rk.append(tuple(words))
    return rk


def encrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    x = list(struct.unpack("<4I", block))
    for k in round_keys(key):
        x = [_rol(((x[0] ^ k[0]) + (x[1] ^ k[1])) & M32, 9),
             _ror(((x[1] ^ k[2]) + (x[2] ^ k[3])) & M32, 5),
             _ror(((x[2] ^ k[4]) + (x[3] ^ k[5])) & M32, 3),
             x[0]]
    return struct.pack("<4I", *x)


def decrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    x = list(struct.unpack("<4I", block))
    for k in reversed(round_keys(key)):
        p0 = x[3]
        p1 = ((_ror(x[0], 9) - (p0 ^ k[0])) & M32) ^ k[1]
        p2 = ((_rol(x[1], 5) - (p1 ^ k[2])) & M32) ^ k[3]
        p3 = ((_rol(x[2], 3) - (p2 ^ k[4])) & M32) ^ k[5]
        x = [p0, p1, p2, p3]
    return struct.pack("<4I", *x)
