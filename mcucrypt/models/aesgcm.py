# SPDX-License-Identifier: MIT
"""AES-GCM (NIST SP 800-38D) in Python, the differential oracle of crypto/aesgcm, written from the
standard over the independent AES model (mcucrypt.models.aes): GHASH by Algorithm 1 of section 6.3 (bit
by bit, R = 11100001 || 0^120) on Python integers, GCTR with inc32, J_0 for 96-bit and general IVs.
Nothing is shared with the C (Karatsuba with holed multiplications). The tests use the `cryptography`
package's AESGCM as a second oracle."""
from __future__ import annotations

from . import aes

BLOCK = 16
TAG_BYTES = 16
R = 0xE1 << 120
MASK128 = (1 << 128) - 1
# instance id -> (AES model id, IV bytes)
IDS = {"aesgcm128": ("aes128", 12), "aesgcm128iv1": ("aes128", 1), "aesgcm128iv128": ("aes128", 128)}
MAX_MESSAGE = (1 << 36) - 32


def gf_mul(x: int, y: int) -> int:
    """SP 800-38D Algorithm 1: X . Y in GF(2^128), blocks as big-endian integers (x^0 the top bit)."""
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


def ghash(h: bytes, data: bytes) -> bytes:
    """Algorithm 2 over whole blocks."""
    assert len(data) % BLOCK == 0
    hi, y = int.from_bytes(h, "big"), 0
    for i in range(0, len(data), BLOCK):
        y = gf_mul(y ^ int.from_bytes(data[i:i + BLOCK], "big"), hi)
    return y.to_bytes(BLOCK, "big")


def _pad(data: bytes) -> bytes:
    return data + bytes(-len(data) % BLOCK)


def _gctr(aes_id: str, key: bytes, icb: bytes, data: bytes) -> bytes:
    out, cb = bytearray(), icb
    for i in range(0, len(data), BLOCK):
        ks = aes.encrypt(aes_id, key, cb)
        out += bytes(a ^ b for a, b in zip(data[i:i + BLOCK], ks))
        cb = cb[:12] + ((int.from_bytes(cb[12:], "big") + 1) & 0xFFFFFFFF).to_bytes(4, "big")
    return bytes(out)


def _j0(h: bytes, iv: bytes) -> bytes:
    if len(iv) == 12:
        return iv + b"\x00\x00\x00\x01"
    return ghash(h, _pad(iv) + bytes(8) + (8 * len(iv)).to_bytes(8, "big"))


def _check(prim_id: str, key: bytes, nonce: bytes) -> str:
    if prim_id not in IDS:
        raise ValueError(f"no GCM instance {prim_id!r}")
    aes_id, iv_bytes = IDS[prim_id]
    if len(nonce) != iv_bytes or len(key) != {"aes128": 16, "aes192": 24, "aes256": 32}[aes_id]:
        raise ValueError(f"{prim_id}: wrong key or IV length")
    return aes_id


def _tag(aes_id: str, key: bytes, h: bytes, j0: bytes, ad: bytes, ct: bytes) -> bytes:
    s = ghash(h, _pad(ad) + _pad(ct) + (8 * len(ad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big"))
    return _gctr(aes_id, key, j0, s)


def encrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """Ciphertext || 16-byte tag (SP 800-38D Algorithm 4)."""
    aes_id = _check(prim_id, key, nonce)
    h = aes.encrypt(aes_id, key, bytes(BLOCK))
    j0 = _j0(h, nonce)
    inc = j0[:12] + ((int.from_bytes(j0[12:], "big") + 1) & 0xFFFFFFFF).to_bytes(4, "big")
    ct = _gctr(aes_id, key, inc, pt)
    return ct + _tag(aes_id, key, h, j0, ad, ct)


def decrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, data: bytes) -> bytes | None:
    """The plaintext, or None when data is shorter than a tag or the tag does not verify (Algorithm 5)."""
    aes_id = _check(prim_id, key, nonce)
    if len(data) < TAG_BYTES:
        return None
    ct, tag = data[:-TAG_BYTES], data[-TAG_BYTES:]
    h = aes.encrypt(aes_id, key, bytes(BLOCK))
    j0 = _j0(h, nonce)
    if _tag(aes_id, key, h, j0, ad, ct) != tag:
        return None
    inc = j0[:12] + ((int.from_bytes(j0[12:], "big") + 1) & 0xFFFFFFFF).to_bytes(4, "big")
    return _gctr(aes_id, key, inc, ct)
