# SPDX-License-Identifier: MIT
"""Poly1305 and ChaCha20-Poly1305 (RFC 8439 sections 2.5 and 2.8) in Python: the differential oracle of
crypto/chachapoly, written from the RFC with Python integers (nothing shared with the C: no limbs, no
carries). ChaCha20 is mcucrypt.models.chacha20 (itself checked against RFC 8439's vectors)."""
from __future__ import annotations

import struct

from . import chacha20

P = (1 << 130) - 5
CLAMP = 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
TAG_BYTES = 16
KEY_BYTES = 32
NONCE_BYTES = 12


def poly1305(key: bytes, msg: bytes) -> bytes:
    """RFC 8439 section 2.5.1: r clamped, each 16-byte piece with a 1 byte appended, acc = (acc + n) * r
    mod p, then + s mod 2^128."""
    if len(key) != KEY_BYTES:
        raise ValueError("Poly1305 takes a 32-byte one-time key")
    r = int.from_bytes(key[:16], "little") & CLAMP
    s = int.from_bytes(key[16:], "little")
    acc = 0
    for i in range(0, len(msg), 16):
        n = int.from_bytes(msg[i:i + 16] + b"\x01", "little")
        acc = (acc + n) * r % P
    return ((acc + s) % (1 << 128)).to_bytes(16, "little")


def _pad16(data: bytes) -> bytes:
    return b"\x00" * (-len(data) % 16)


def _tag(key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes:
    otk = chacha20.block(key, nonce, 0)[:32]                      # section 2.6
    mac_data = ad + _pad16(ad) + ct + _pad16(ct) + struct.pack("<QQ", len(ad), len(ct))
    return poly1305(otk, mac_data)


def aead_encrypt(key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """Section 2.8: ciphertext || tag."""
    if len(key) != KEY_BYTES or len(nonce) != NONCE_BYTES:
        raise ValueError("ChaCha20-Poly1305 takes a 32-byte key and a 12-byte nonce")
    ct = chacha20.xor(key, nonce, 1, pt)
    return ct + _tag(key, nonce, ad, ct)


def aead_decrypt(key: bytes, nonce: bytes, ad: bytes, data: bytes) -> bytes | None:
    """The plaintext, or None when data is shorter than a tag or the tag does not verify."""
    if len(data) < TAG_BYTES:
        return None
    ct, tag = data[:-TAG_BYTES], data[-TAG_BYTES:]
    if _tag(key, nonce, ad, ct) != tag:
        return None
    return chacha20.xor(key, nonce, 1, ct)


# ------------------------------------------------------------------------------- kind driver API
def mac(prim_id: str, key: bytes, msg: bytes) -> bytes:
    if prim_id != "poly1305":
        raise ValueError(f"no MAC {prim_id!r} here")
    return poly1305(key, msg)


def encrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    if prim_id != "chacha20poly1305":
        raise ValueError(f"no AEAD {prim_id!r} here")
    return aead_encrypt(key, nonce, ad, pt)


def decrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes | None:
    if prim_id != "chacha20poly1305":
        raise ValueError(f"no AEAD {prim_id!r} here")
    return aead_decrypt(key, nonce, ad, ct)
