# SPDX-License-Identifier: MIT
"""AES-CMAC (NIST SP 800-38B, RFC 4493) in Python, the differential oracle, written from SP 800-38B
section 6 over the independent AES model (mcucrypt.models.aes): subkeys by doubling L = CIPH_K(0^128)
in GF(2^128) (R_128 = 0x87), the last block XORed with K1 when complete, else padded 10* and XORed
with K2, CBC-MAC over the blocks. The tests use the `cryptography` package's CMAC as a second oracle."""
from __future__ import annotations

from . import aes

BLOCK = 16
R128 = 0x87
MACS = {"aescmac128": 16}


def _double(block: bytes) -> bytes:
    """Multiplication by x in GF(2^128) (SP 800-38B 6.1 steps 2-3): shift left, reduce by R_128."""
    v = int.from_bytes(block, "big") << 1
    if v >> 128:
        v = (v ^ R128) & ((1 << 128) - 1)
    return v.to_bytes(BLOCK, "big")


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def subkeys(key: bytes) -> tuple[bytes, bytes]:
    """(K1, K2) of SP 800-38B 6.1."""
    k1 = _double(aes.encrypt("aes128", key, bytes(BLOCK)))
    return k1, _double(k1)


def mac(prim_id: str, key: bytes, msg: bytes) -> bytes:
    """The full 16-byte tag of ``msg`` under the 16-byte AES-128 ``key`` (SP 800-38B 6.2)."""
    if prim_id not in MACS:
        raise ValueError(f"unknown CMAC id {prim_id!r}")
    if len(key) != 16:
        raise ValueError("AES-128-CMAC keys are 16 bytes")
    k1, k2 = subkeys(key)
    n = max(1, -(-len(msg) // BLOCK))
    blocks = [msg[BLOCK * i:BLOCK * (i + 1)] for i in range(n)]
    last = blocks[-1]
    if len(last) == BLOCK:
        blocks[-1] = _xor(last, k1)
    else:
        padded = last + b"\x80" + bytes(BLOCK - 1 - len(last))
        blocks[-1] = _xor(padded, k2)
    c = bytes(BLOCK)
    for b in blocks:
        c = aes.encrypt("aes128", key, _xor(c, b))
    return c
