# SPDX-License-Identifier: MIT
"""PIPO-64/128 and PIPO-64/256 in Python, from the designers' specification (ICISC 2020): the
differential-test oracle.

The 64-bit state is eight rows of eight bits; row i is byte i of the block in memory. A round is the
S-layer (the 8-bit S-box applied to each of the eight columns, bit j of the S-box input being row j),
the R-layer (row i rotated left by R_ROT[i] within its byte) and the round-key addition. Round key i is
the (i mod 2)-th (128-bit key) or (i mod 4)-th (256-bit key) 64-bit word of the key with i xored into
its least significant byte; round key 0 is whitening. 13 rounds for a 128-bit key, 17 for 256.

This model works from the S-box *table* (the designers' published one), column by column, not from the
bitsliced circuit the C and assembly use: the two meet only in the test.
"""
from __future__ import annotations

SBOX = bytes.fromhex(
    "5EF9FC003F85BA5B1837B2C671C3749D"
    "A7940DE1CA68532E4962EB97A40E2DD0"
    "1625AC4863D1EA8FF74045B19E341BF2"
    "B986037FD87ADD3CE0CB522615AF8C69"
    "C275701C3399B6C7043BBE5AFD5FF881"
    "93A0294D66D4EF0AE5CE57A3902A096C"
    "221188E4CF6D56AB7BDCD9BD8238077E"
    "B59A1FF344F641304C67EE12218BA8D5"
    "556EE70B2892A1CC2B0891EDD6644FA2"
    "BC8306FA5DFF583972C5C0B49B311E77"
    "013EBBDF78DA7D84506BE28EAD1724C9"
    "AE8D14E8D3614A2747F0F519369CB342"
    "1D32B743F446F198ECD74EAA89231065"
    "8AA920546FCDE613DB7C79053A80BFDE"
    "E9D24B2F0CA695600F2CA5516AC8E396"
    "B09F1A76C173C435FE595CB8873D02FB")
INV_SBOX = bytes(SBOX.index(v) for v in range(256))
R_ROT = (0, 7, 4, 3, 6, 5, 1, 2)
ROUNDS = {16: 13, 32: 17}


def _rol8(x: int, r: int) -> int:
    return ((x << r) | (x >> (8 - r))) & 0xFF if r else x


def round_keys(key: bytes) -> list[bytes]:
    """The ROUNDS+1 round keys, each eight bytes (rows 0..7)."""
    if len(key) not in ROUNDS:
        raise ValueError("PIPO keys are 16 or 32 bytes")
    words = [key[8 * i:8 * i + 8] for i in range(len(key) // 8)]
    out = []
    for i in range(ROUNDS[len(key)] + 1):
        k = bytearray(words[i % len(words)])
        k[0] ^= i
        out.append(bytes(k))
    return out


def _columns(state: bytes, box: bytes) -> bytes:
    """Apply ``box`` to each of the eight columns (column c: bit c of every row, row j as bit j)."""
    rows = [0] * 8
    for c in range(8):
        v = sum(((state[j] >> c) & 1) << j for j in range(8))
        w = box[v]
        for j in range(8):
            rows[j] |= ((w >> j) & 1) << c
    return bytes(rows)


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def encrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    if len(block) != 8:
        raise ValueError("PIPO blocks are 8 bytes")
    rk = round_keys(key)
    s = _xor(block, rk[0])
    for k in rk[1:]:
        s = _columns(s, SBOX)
        s = bytes(_rol8(s[i], R_ROT[i]) for i in range(8))
        s = _xor(s, k)
    return s


def decrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    if len(block) != 8:
        raise ValueError("PIPO blocks are 8 bytes")
    rk = round_keys(key)
    s = block
    for k in reversed(rk[1:]):
        s = _xor(s, k)
        s = bytes(_rol8(s[i], (8 - R_ROT[i]) % 8) for i in range(8))
        s = _columns(s, INV_SBOX)
    return _xor(s, rk[0])


def encrypt_blocks(prim_id: str, key: bytes, data: bytes) -> bytes:
    """ECB over whole blocks (the multi-block entry point's oracle)."""
    if len(data) % 8:
        raise ValueError("ECB data must be whole 8-byte blocks")
    return b"".join(encrypt(prim_id, key, data[i:i + 8]) for i in range(0, len(data), 8))


def decrypt_blocks(prim_id: str, key: bytes, data: bytes) -> bytes:
    if len(data) % 8:
        raise ValueError("ECB data must be whole 8-byte blocks")
    return b"".join(decrypt(prim_id, key, data[i:i + 8]) for i in range(0, len(data), 8))
