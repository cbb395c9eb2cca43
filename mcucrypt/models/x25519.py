# SPDX-License-Identifier: MIT
"""X25519 (RFC 7748, section 5) on Python integers: the differential oracle.

Written from the RFC's text: decodeScalar25519 (clamping), decodeUCoordinate (the top bit of the last
byte masked, values >= p accepted and reduced), the Montgomery ladder with a24 = 121665, and the final
x_2 * z_2^(p-2). Python's own big integers do the field arithmetic, so nothing here shares code or
representation with the C and assembly under test.
"""
from __future__ import annotations

P = 2**255 - 19
A24 = 121665
BASE_U = 9


def decode_scalar(k: bytes) -> int:
    """RFC 7748 decodeScalar25519: clear bits 0, 1, 2 and 255, set bit 254."""
    if len(k) != 32:
        raise ValueError("an X25519 scalar is 32 bytes")
    b = bytearray(k)
    b[0] &= 248
    b[31] &= 127
    b[31] |= 64
    return int.from_bytes(b, "little")


def decode_u(u: bytes) -> int:
    """RFC 7748 decodeUCoordinate for curve25519: mask the most significant bit, keep u >= p (it is
    reduced by the arithmetic)."""
    if len(u) != 32:
        raise ValueError("an X25519 u-coordinate is 32 bytes")
    b = bytearray(u)
    b[31] &= 127
    return int.from_bytes(b, "little")


def encode_u(u: int) -> bytes:
    return (u % P).to_bytes(32, "little")


def ladder_steps(state: tuple[int, int, int, int, int], k: int, bits: int) -> tuple[int, int, int, int, int]:
    """RFC 7748's ladder loop over bits bits-1 .. 0 of k on (x1, x2, z2, x3, z3), the final conditional
    swap included; the values are reduced mod p."""
    x1, x2, z2, x3, z3 = (v % P for v in state)
    swap = 0
    for t in reversed(range(bits)):
        kt = (k >> t) & 1
        swap ^= kt
        if swap:
            x2, x3 = x3, x2
            z2, z3 = z3, z2
        swap = kt
        a = (x2 + z2) % P
        aa = a * a % P
        b = (x2 - z2) % P
        bb = b * b % P
        e = (aa - bb) % P
        c = (x3 + z3) % P
        d = (x3 - z3) % P
        da = d * a % P
        cb = c * b % P
        x3 = (da + cb) ** 2 % P
        z3 = x1 * (da - cb) ** 2 % P
        x2 = aa * bb % P
        z2 = e * (aa + A24 * e) % P
    if swap:
        x2, x3 = x3, x2
        z2, z3 = z3, z2
    return x1, x2, z2, x3, z3


def ladder_clamped(state: tuple[int, int, int, int, int], k: int, bits: int) -> tuple[int, int, int, int, int]:
    """What the implementations' exported `ladder(st, k, bits)` computes (ref/ladder.c): RFC 7748's loop
    over bits bits-1 .. 0 of k with bits 2 .. 0 taken as 0 (as clamping leaves them), where the last
    (up to three) steps only double (x2, z2): x2, z2 as the RFC's loop gives them, x3, z3 as they are
    after the steps for bits bits-1 .. 3 and the conditional swap that follows. Reduced mod p."""
    x1, x2, z2, _, _ = ladder_steps(state, k & ~7, bits)
    _, _, _, x3, z3 = ladder_steps(state, k >> 3, max(bits - 3, 0))
    return x1, x2, z2, x3, z3


def ladder(k: int, u: int) -> int:
    """The u-coordinate of k * (u, ...): the ladder of RFC 7748 section 5 from (1 : 0), (u : 1)."""
    _, x2, z2, _, _ = ladder_steps((u, 1, 0, u, 1), k, 255)
    return x2 * pow(z2, P - 2, P) % P


def x25519(scalar: bytes, u: bytes) -> bytes:
    """X25519(k, u): 32-byte shared value (all zeros for points of small order, as the RFC computes)."""
    return encode_u(ladder(decode_scalar(scalar), decode_u(u)))


def x25519_base(scalar: bytes) -> bytes:
    """X25519(k, 9): the public key of a private scalar."""
    return x25519(scalar, BASE_U.to_bytes(32, "little"))


def fe_mul(a: int, b: int) -> int:
    """Field multiplication mod 2^255 - 19, canonical result (implementations may return any value
    below 2^256 congruent to it)."""
    return a * b % P


def fe_sqr(a: int) -> int:
    return a * a % P
