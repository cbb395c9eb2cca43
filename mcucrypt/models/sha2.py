# SPDX-License-Identifier: MIT
"""SHA-2, HMAC and HKDF in Python: the differential-test oracle of crypto/sha2.

The hashes (FIPS 180-4) and HMAC (FIPS 198-1) come from the standard library (hashlib, hmac: OpenSSL's
code, independent of ours; issue 28 accepts them as oracles). HKDF (RFC 5869 §2.2, §2.3) is written
here from the RFC on top of hmac:
    PRK = HMAC-Hash(salt, IKM)                (an absent salt is HashLen zero bytes)
    T(0) = empty; T(i) = HMAC-Hash(PRK, T(i-1) || info || i)   (i one byte, 1..255)
    OKM = first L bytes of T(1) || T(2) || ...,  L <= 255 * HashLen
The raw compression function is not exposed by hashlib; `compress256` / `compress512` below write it
from FIPS 180-4 §6.2.2 / §6.4.2 for checking block functions directly (the per-core helpers' tests).
"""
from __future__ import annotations

import hashlib
import hmac as _hmac

HASHES = {"sha224": "sha224", "sha256": "sha256", "sha384": "sha384", "sha512": "sha512"}
MACS = {"hmacsha256": "sha256", "hmacsha512": "sha512"}
KDFS = {"hkdfsha256": "sha256"}


def digest(prim_id: str, msg: bytes, outlen: int, z: bytes = b"") -> bytes:
    """The hash kind's model API: the digest of ``msg`` (outlen must be the digest size; no z)."""
    if prim_id not in HASHES:
        raise ValueError(f"unknown SHA-2 hash id {prim_id!r}")
    if z:
        raise ValueError("SHA-2 takes no customization string")
    out = hashlib.new(HASHES[prim_id], msg).digest()
    if outlen != len(out):
        raise ValueError(f"{prim_id} gives {len(out)} bytes, not {outlen}")
    return out


def mac(prim_id: str, key: bytes, msg: bytes) -> bytes:
    """HMAC tag (full length) of ``msg`` under ``key`` (any length)."""
    return _hmac.new(key, msg, MACS[prim_id]).digest()


def _hash_of(prim_id: str) -> str:
    if prim_id in KDFS:
        return KDFS[prim_id]
    raise ValueError(f"unknown HKDF id {prim_id!r}")


def hkdf_extract(prim_id: str, salt: bytes, ikm: bytes) -> bytes:
    name = _hash_of(prim_id)
    if not salt:
        salt = bytes(hashlib.new(name).digest_size)
    return _hmac.new(salt, ikm, name).digest()


def hkdf_expand(prim_id: str, prk: bytes, info: bytes, length: int) -> bytes:
    name = _hash_of(prim_id)
    size = hashlib.new(name).digest_size
    if length > 255 * size:
        raise ValueError(f"HKDF output of {length} bytes: at most {255 * size}")
    okm, t = b"", b""
    i = 1
    while len(okm) < length:
        t = _hmac.new(prk, t + info + bytes([i]), name).digest()
        okm += t
        i += 1
    return okm[:length]


def hkdf(prim_id: str, salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return hkdf_expand(prim_id, hkdf_extract(prim_id, salt, ikm), info, length)


# --------------------------------------------------------------------- raw compression functions

def _ror(x: int, n: int, bits: int) -> int:
    return ((x >> n) | (x << (bits - n))) & ((1 << bits) - 1)


def _icbrt(x: int) -> int:
    """floor(cbrt(x)) for x >= 1, by Newton's method on integers (exact; from above, it only decreases)."""
    r = 1 << -(-x.bit_length() // 3)     # >= cbrt(x)
    while True:
        s = (2 * r + x // (r * r)) // 3
        if s >= r:
            return r
        r = s


def _k(count: int, bits: int) -> list[int]:
    """K (§4.2.2, §4.2.3): the first ``bits`` bits of the fractional parts of the cube roots of the
    first ``count`` primes, by integer cube roots (exact)."""
    primes, n = [], 2
    while len(primes) < count:
        if all(n % p for p in primes):
            primes.append(n)
        n += 1
    # floor(cbrt(p) * 2^bits) = icbrt(p * 2^(3 bits)); its low ``bits`` bits are the fraction's
    return [_icbrt(p << (3 * bits)) & ((1 << bits) - 1) for p in primes]


K256 = _k(64, 32)
K512 = _k(80, 64)


def compress256(state: list[int], block: bytes) -> list[int]:
    """One SHA-256 compression (§6.2.2) of a 64-byte block into eight 32-bit words."""
    m = (1 << 32) - 1
    w = [int.from_bytes(block[4 * t:4 * t + 4], "big") for t in range(16)]
    for t in range(16, 64):
        s0 = _ror(w[t - 15], 7, 32) ^ _ror(w[t - 15], 18, 32) ^ (w[t - 15] >> 3)
        s1 = _ror(w[t - 2], 17, 32) ^ _ror(w[t - 2], 19, 32) ^ (w[t - 2] >> 10)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & m)
    a, b, c, d, e, f, g, h = state
    for t in range(64):
        t1 = (h + (_ror(e, 6, 32) ^ _ror(e, 11, 32) ^ _ror(e, 25, 32)) + ((e & f) ^ (~e & g)) + K256[t] + w[t]) & m
        t2 = ((_ror(a, 2, 32) ^ _ror(a, 13, 32) ^ _ror(a, 22, 32)) + ((a & b) ^ (a & c) ^ (b & c))) & m
        a, b, c, d, e, f, g, h = (t1 + t2) & m, a, b, c, (d + t1) & m, e, f, g
    return [(x + y) & m for x, y in zip(state, (a, b, c, d, e, f, g, h))]


def compress512(state: list[int], block: bytes) -> list[int]:
    """One SHA-512 compression (§6.4.2) of a 128-byte block into eight 64-bit words."""
    m = (1 << 64) - 1
    w = [int.from_bytes(block[8 * t:8 * t + 8], "big") for t in range(16)]
    for t in range(16, 80):
        s0 = _ror(w[t - 15], 1, 64) ^ _ror(w[t - 15], 8, 64) ^ (w[t - 15] >> 7)
        s1 = _ror(w[t - 2], 19, 64) ^ _ror(w[t - 2], 61, 64) ^ (w[t - 2] >> 6)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & m)
    a, b, c, d, e, f, g, h = state
    for t in range(80):
        t1 = (h + (_ror(e, 14, 64) ^ _ror(e, 18, 64) ^ _ror(e, 41, 64)) + ((e & f) ^ (~e & g)) + K512[t] + w[t]) & m
        t2 = ((_ror(a, 28, 64) ^ _ror(a, 34, 64) ^ _ror(a, 39, 64)) + ((a & b) ^ (a & c) ^ (b & c))) & m
        a, b, c, d, e, f, g, h = (t1 + t2) & m, a, b, c, (d + t1) & m, e, f, g
    return [(x + y) & m for x, y in zip(state, (a, b, c, d, e, f, g, h))]
