# SPDX-License-Identifier: MIT
"""ChaCha20 (RFC 8439) in Python, the differential oracle."""
from __future__ import annotations

import struct

M32 = 0xFFFFFFFF
CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)   # "expand 32-byte k"


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & M32


def _quarter(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & M32; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & M32; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & M32; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & M32; s[b] = _rotl(s[b] ^ s[c], 7)


def _rounds(init: list[int]) -> list[int]:
    s = list(init)
    for _ in range(10):
        _quarter(s, 0, 4, 8, 12); _quarter(s, 1, 5, 9, 13); _quarter(s, 2, 6, 10, 14); _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15); _quarter(s, 1, 6, 11, 12); _quarter(s, 2, 7, 8, 13); _quarter(s, 3, 4, 9, 14)
    return s


def permute(state: bytes) -> bytes:
    """The ChaCha20 permutation alone: 20 rounds on 16 little-endian words, no feed-forward."""
    if len(state) != 64:
        raise ValueError("the ChaCha state is 64 bytes")
    return struct.pack("<16I", *_rounds(list(struct.unpack("<16I", state))))


def block(key: bytes, nonce: bytes, counter: int) -> bytes:
    if len(key) != 32 or len(nonce) != 12:
        raise ValueError("ChaCha20 takes a 32-byte key and a 12-byte nonce")
    init = [*CONSTANTS, *struct.unpack("<8I", key), counter & M32, *struct.unpack("<3I", nonce)]
    return struct.pack("<16I", *((a + b) & M32 for a, b in zip(_rounds(init), init)))


def counter_wraps(counter: int, length: int) -> bool:
    """RFC 8439's block counter is 32 bits: length bytes from block `counter` on need blocks counter ..
    counter + ceil(length / 64) - 1, which must all be below 2^32 (else block 0's key stream returns)."""
    return counter + -(-length // 64) > 2**32


def xor(key: bytes, nonce: bytes, counter: int, data: bytes) -> bytes:
    if counter_wraps(counter, len(data)):
        raise ValueError(f"{len(data)} bytes from block {counter} would wrap the 32-bit block counter")
    out = bytearray()
    for i in range(0, len(data), 64):
        ks = block(key, nonce, counter + i // 64)
        out += bytes(a ^ b for a, b in zip(data[i:i + 64], ks))
    return bytes(out)
