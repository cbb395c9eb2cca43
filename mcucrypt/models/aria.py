# SPDX-License-Identifier: MIT
"""ARIA (RFC 5794, KS X 1213) in Python, from the specification: the differential-test oracle.

Deliberately built differently from the C and assembly implementations so that a shared mistake is
unlikely: the S-boxes are computed algebraically from their definitions in the ARIA specification
(SB1(x) = B.x^-1 + 0x63, the AES S-box; SB2(x) = C.x^247 + 0xE2; SB3 and SB4 their inverses), the
diffusion layer A is the RFC's list of sixteen byte equations, and 128-bit values are Python integers
(big-endian: byte 0 of the block is the most significant), as RFC 5794 writes them.
"""
from __future__ import annotations

from functools import lru_cache

ROUNDS = {16: 12, 24: 14, 32: 16}
M128 = (1 << 128) - 1

# Key-schedule constants CK1..CK3 (RFC 5794, section 2.2), and which one each key size takes as C1, C2, C3.
CK = (0x517CC1B727220A94FE13ABE8FA9A6EE0, 0x6DB14ACC9E21C820FF28B1D5EF5DE2B0,
      0xDB92371D2126E9700324977504E8C90E)
CK_ORDER = {16: (0, 1, 2), 24: (1, 2, 0), 32: (2, 0, 1)}

# The affine maps of the two S-boxes: row i gives output bit i (bit 0 = least significant) as the parity
# of the input bits whose positions the row's string lists from bit 0 up.
_B_ROWS = ("10001111", "11000111", "11100011", "11110001", "11111000", "01111100", "00111110", "00011111")
_C_ROWS = ("01011110", "00111101", "11010111", "10011101", "00101100", "10000001", "01011101", "11010011")

# Diffusion A: output byte i is the XOR of the listed input bytes (RFC 5794, section 2.4.3).
A_TERMS = (
    (3, 4, 6, 8, 9, 13, 14), (2, 5, 7, 8, 9, 12, 15), (1, 4, 6, 10, 11, 12, 15), (0, 5, 7, 10, 11, 13, 14),
    (0, 2, 5, 8, 11, 14, 15), (1, 3, 4, 9, 10, 14, 15), (0, 2, 7, 9, 10, 12, 13), (1, 3, 6, 8, 11, 12, 13),
    (0, 1, 4, 7, 10, 13, 15), (0, 1, 5, 6, 11, 12, 14), (2, 3, 5, 6, 8, 13, 15), (2, 3, 4, 7, 9, 12, 14),
    (1, 2, 6, 7, 9, 11, 12), (0, 3, 6, 7, 8, 10, 13), (0, 3, 4, 5, 9, 11, 14), (1, 2, 4, 5, 8, 10, 15),
)


def _gf_mul(a: int, b: int) -> int:
    """Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return r


def _gf_pow(a: int, e: int) -> int:
    r = 1
    while e:
        if e & 1:
            r = _gf_mul(r, a)
        a = _gf_mul(a, a)
        e >>= 1
    return r


def _affine(rows: tuple[str, ...], x: int, c: int) -> int:
    y = 0
    for i, row in enumerate(rows):
        bit = 0
        for j, ch in enumerate(row):
            if ch == "1":
                bit ^= (x >> j) & 1
        y |= bit << i
    return y ^ c


@lru_cache(maxsize=None)
def sboxes() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """SB1, SB2, SB3 = SB1^-1, SB4 = SB2^-1 as 256-entry tuples."""
    sb1 = tuple(_affine(_B_ROWS, _gf_pow(x, 254), 0x63) for x in range(256))   # x^254 = x^-1, 0^-1 = 0
    sb2 = tuple(_affine(_C_ROWS, _gf_pow(x, 247), 0xE2) for x in range(256))
    sb3 = [0] * 256
    sb4 = [0] * 256
    for x in range(256):
        sb3[sb1[x]] = x
        sb4[sb2[x]] = x
    return sb1, sb2, tuple(sb3), tuple(sb4)


def _bytes(x: int) -> list[int]:
    return list(x.to_bytes(16, "big"))


def _int(b: list[int]) -> int:
    return int.from_bytes(bytes(b), "big")


def substitute(x: int, odd: bool) -> int:
    """SL1 (odd rounds: SB1 SB2 SB3 SB4 repeated) or SL2 (even rounds: SB3 SB4 SB1 SB2 repeated)."""
    sb1, sb2, sb3, sb4 = sboxes()
    order = (sb1, sb2, sb3, sb4) if odd else (sb3, sb4, sb1, sb2)
    return _int([order[i % 4][v] for i, v in enumerate(_bytes(x))])


def diffuse(x: int) -> int:
    b = _bytes(x)
    out = []
    for terms in A_TERMS:
        v = 0
        for j in terms:
            v ^= b[j]
        out.append(v)
    return _int(out)


def fo(d: int, rk: int) -> int:
    return diffuse(substitute(d ^ rk, odd=True))


def fe(d: int, rk: int) -> int:
    return diffuse(substitute(d ^ rk, odd=False))


def _rotr(x: int, n: int) -> int:
    n %= 128
    return ((x >> n) | (x << (128 - n))) & M128


def _rotl(x: int, n: int) -> int:
    return _rotr(x, 128 - n % 128)


def encryption_round_keys(key: bytes) -> list[int]:
    """ek1 .. ek(n+1) of RFC 5794, section 2.2, as 128-bit integers."""
    if len(key) not in ROUNDS:
        raise ValueError("ARIA keys are 16, 24 or 32 bytes")
    kl = int.from_bytes(key[:16], "big")
    kr = int.from_bytes(key[16:].ljust(16, b"\0"), "big")
    c1, c2, c3 = (CK[i] for i in CK_ORDER[len(key)])
    w0 = kl
    w1 = fo(w0, c1) ^ kr
    w2 = fe(w1, c2) ^ w0
    w3 = fo(w2, c3) ^ w1
    ek = [
        w0 ^ _rotr(w1, 19), w1 ^ _rotr(w2, 19), w2 ^ _rotr(w3, 19), _rotr(w0, 19) ^ w3,
        w0 ^ _rotr(w1, 31), w1 ^ _rotr(w2, 31), w2 ^ _rotr(w3, 31), _rotr(w0, 31) ^ w3,
        w0 ^ _rotl(w1, 61), w1 ^ _rotl(w2, 61), w2 ^ _rotl(w3, 61), _rotl(w0, 61) ^ w3,
        w0 ^ _rotl(w1, 31), w1 ^ _rotl(w2, 31), w2 ^ _rotl(w3, 31), _rotl(w0, 31) ^ w3,
        w0 ^ _rotl(w1, 19),
    ]
    return ek[: ROUNDS[len(key)] + 1]


def decryption_round_keys(key: bytes) -> list[int]:
    """dk1 = ek(n+1), dk(i) = A(ek(n+2-i)) for 1 < i <= n, dk(n+1) = ek1 (RFC 5794, section 2.3)."""
    ek = encryption_round_keys(key)
    n = len(ek) - 1
    return [ek[n]] + [diffuse(ek[n - i]) for i in range(1, n)] + [ek[0]]


def _crypt(round_keys: list[int], block: bytes) -> bytes:
    if len(block) != 16:
        raise ValueError("ARIA blocks are 16 bytes")
    n = len(round_keys) - 1
    p = int.from_bytes(block, "big")
    for r in range(1, n):               # rounds 1 .. n-1: odd ones FO, even ones FE
        p = (fo if r % 2 else fe)(p, round_keys[r - 1])
    c = substitute(p ^ round_keys[n - 1], odd=False) ^ round_keys[n]
    return c.to_bytes(16, "big")


def encrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    return _crypt(encryption_round_keys(key), block)


def decrypt(prim_id: str, key: bytes, block: bytes) -> bytes:
    return _crypt(decryption_round_keys(key), block)
