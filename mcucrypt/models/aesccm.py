# SPDX-License-Identifier: MIT
"""AES-128-CCM (NIST SP 800-38C Appendix A) and CCM* (IEEE 802.15.4, M = 0) in Python, the differential
oracle of crypto/aesccm, written from the standard over the independent AES model (mcucrypt.models.aes):
B_0, the AD's length encoding and zero padding, CBC-MAC with Python integers, and A_i counter blocks.
Nothing is shared with the C (which runs crypto/aes's ctr128 and an incremental CBC-MAC). The tests use
the `cryptography` package's AESCCM as a second oracle."""
from __future__ import annotations

from . import aes

BLOCK = 16
NONCE_BYTES = 13
L = 15 - NONCE_BYTES            # the length field's bytes: 2
# instance id -> tag length M (0: CCM* encryption only)
TAGS = {"aesccm128": 16, "aesccm128m8": 8, "aesccm128ble": 4, "aesccmstar128": 0}
MAX_MESSAGE = (1 << (8 * L)) - 1


def _e(key: bytes, block: bytes) -> bytes:
    return aes.encrypt("aes128", key, block)


def _formatted(nonce: bytes, ad: bytes, msg: bytes, tag_bytes: int) -> bytes:
    """SP 800-38C A.2: B_0 || encoded AD || pad || payload || pad."""
    flags = (0x40 if ad else 0) | (((tag_bytes - 2) // 2) << 3) | (L - 1)
    out = bytes([flags]) + nonce + len(msg).to_bytes(L, "big")
    if ad:
        a = len(ad)
        prefix = a.to_bytes(2, "big") if a < 0xFF00 else b"\xff\xfe" + a.to_bytes(4, "big")
        blob = prefix + ad
        out += blob + bytes(-len(blob) % BLOCK)
    return out + msg + bytes(-len(msg) % BLOCK)


def _counter(key: bytes, nonce: bytes, i: int) -> bytes:
    return _e(key, bytes([L - 1]) + nonce + i.to_bytes(L, "big"))


def _keystream(key: bytes, nonce: bytes, n: int) -> bytes:
    return b"".join(_counter(key, nonce, i) for i in range(1, 1 + -(-n // BLOCK)))[:n]


def _tag(key: bytes, nonce: bytes, ad: bytes, msg: bytes, tag_bytes: int) -> bytes:
    if tag_bytes == 0:
        return b""
    data = _formatted(nonce, ad, msg, tag_bytes)
    x = bytes(BLOCK)
    for i in range(0, len(data), BLOCK):
        x = _e(key, (int.from_bytes(x, "big") ^ int.from_bytes(data[i:i + BLOCK], "big")).to_bytes(BLOCK, "big"))
    s0 = _counter(key, nonce, 0)
    return bytes(a ^ b for a, b in zip(x[:tag_bytes], s0))


def _check(prim_id: str, key: bytes, nonce: bytes, msg_len: int) -> int:
    if prim_id not in TAGS:
        raise ValueError(f"no CCM instance {prim_id!r}")
    if len(key) != 16 or len(nonce) != NONCE_BYTES:
        raise ValueError("AES-128-CCM here takes a 16-byte key and a 13-byte nonce")
    if msg_len > MAX_MESSAGE:
        raise ValueError(f"a 13-byte nonce leaves a 2-byte length: at most {MAX_MESSAGE} bytes")
    return TAGS[prim_id]


def encrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """Ciphertext || tag (M bytes)."""
    m = _check(prim_id, key, nonce, len(pt))
    ks = _keystream(key, nonce, len(pt))
    return bytes(a ^ b for a, b in zip(pt, ks)) + _tag(key, nonce, ad, pt, m)


def decrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes | None:
    """The plaintext, or None when ct is shorter than the tag or the tag does not verify."""
    m = TAGS.get(prim_id, 0)
    if len(ct) < m:
        return None
    body, tag = ct[:len(ct) - m], ct[len(ct) - m:]
    _check(prim_id, key, nonce, len(body))
    pt = bytes(a ^ b for a, b in zip(body, _keystream(key, nonce, len(body))))
    return pt if _tag(key, nonce, ad, pt, m) == tag else None
