# SPDX-License-Identifier: MIT
"""SHA3-256, SHA3-512, SHAKE128 and SHAKE256 (FIPS 202) in Python, the differential oracle.

The sponge construction of FIPS 202 section 4 (Algorithm 8) with the pad10*1 rule of section 5.1 and the
domain suffixes of section 6 (SHA-3: bits 01, SHAKE: bits 1111), on the permutation of
mcucrypt/models/keccak.py. Bytes, not bits: the suffix bits and the first padding bit land in one byte
(0x06 for SHA-3, 0x1F for SHAKE, the bits read least significant first), the final padding bit is the
top bit (0x80) of the last byte of the block; both in one byte when the message leaves one byte free.
"""
from __future__ import annotations

from .keccak import permute

# id -> (rate in bytes = (1600 - 2 * security strength) / 8, suffix+first padding bit, fixed output or None)
PARAMS = {
    "sha3_256": (136, 0x06, 32),
    "sha3_512": (72, 0x06, 64),
    "shake128": (168, 0x1F, None),
    "shake256": (136, 0x1F, None),
}


def sponge(rate: int, suffix: int, msg: bytes, outlen: int) -> bytes:
    """Keccak[c](msg || suffix, outlen) with c = 1600 - 8 * rate: absorb block by block, pad10*1, then
    squeeze ``rate`` bytes per permutation."""
    padded = bytearray(msg)
    padded.append(suffix)
    padded += bytes(-len(padded) % rate)
    padded[-1] |= 0x80
    state = bytes(200)
    for i in range(0, len(padded), rate):
        block = padded[i:i + rate] + bytes(200 - rate)
        state = permute(bytes(s ^ b for s, b in zip(state, block)))
    out = bytearray()
    while True:
        out += state[:rate]
        if len(out) >= outlen:
            return bytes(out[:outlen])
        state = permute(state)


def digest(prim_id: str, msg: bytes, outlen: int, z: bytes = b"") -> bytes:
    if prim_id not in PARAMS:
        raise ValueError(f"unknown SHA-3 id {prim_id!r}")
    if z:
        raise ValueError(f"{prim_id} takes no customization string")
    rate, suffix, fixed = PARAMS[prim_id]
    if fixed is not None and outlen != fixed:
        raise ValueError(f"{prim_id} gives {fixed} bytes")
    return sponge(rate, suffix, msg, outlen)
