# SPDX-License-Identifier: MIT
"""TinyJAMBU v2 (NIST LWC final round) in Python, from the specification: the differential-test oracle.

The 128-bit state is one Python integer whose bit i is the specification's s_i (bytes in memory are
little-endian, so byte j of the C state holds bits 8j..8j+7). One step of the keyed permutation P_n is

    fb = s_0 ^ s_47 ^ ~(s_70 & s_85) ^ s_91 ^ k_(i mod klen);   s <- (s >> 1) | (fb << 127)

``permute_bitwise`` is that definition, one bit at a time; ``permute`` takes 32 steps at once on the
integer (valid because every tap lies at least 47 positions up, so 32 consecutive feedback bits depend only
on bits of the state before them). The test suite checks one against the other.

Mode (version 2): key setup P_klarge; nonce: three times [frame bits 1, P_640, s_96..127 ^= nonce word];
associated data per 32-bit block: frame bits 3, P_640, s_96..127 ^= block; message per block: frame
bits 5, P_klarge, s_96..127 ^= plaintext, ciphertext = plaintext ^ s_64..95; a partial last block of
AD or message also xors its byte length into s_32..33; finalization: frame bits 7, P_klarge, tag word 0 =
s_64..95, frame bits 7, P_640, tag word 1 = s_64..95. Frame bits go into s_36..38.
klarge = 1024, 1152, 1280 steps for 128-, 192-, 256-bit keys.
"""
from __future__ import annotations

M32 = 0xFFFFFFFF
M128 = (1 << 128) - 1
KEY_BYTES = {"tinyjambu128": 16, "tinyjambu192": 24, "tinyjambu256": 32}
LARGE_STEPS = {16: 1024, 24: 1152, 32: 1280}
SMALL_STEPS = 640
NONCE_BYTES = 12
TAG_BYTES = 8
FRAME_NONCE, FRAME_AD, FRAME_MSG, FRAME_FINAL = 1, 3, 5, 7


def _key_words(key: bytes) -> list[int]:
    if len(key) not in LARGE_STEPS:
        raise ValueError("TinyJAMBU keys are 16, 24 or 32 bytes")
    return [int.from_bytes(key[i:i + 4], "little") for i in range(0, len(key), 4)]


def permute_int(s: int, key: bytes, steps: int) -> int:
    """P_steps on the state as a 128-bit integer; ``steps`` a multiple of 32."""
    if steps % 32:
        raise ValueError("this form of the permutation takes steps in multiples of 32")
    kw = _key_words(key)
    for i in range(steps // 32):
        fb = (s ^ (s >> 47) ^ ~((s >> 70) & (s >> 85)) ^ (s >> 91) ^ kw[i % len(kw)]) & M32
        s = (s >> 32) | (fb << 96)
    return s


def permute_bitwise(s: int, key: bytes, steps: int) -> int:
    """P_steps exactly as the specification states it, one step (one feedback bit) at a time."""
    kbits = int.from_bytes(key, "little")
    klen = 8 * len(key)
    for i in range(steps):
        k = (kbits >> (i % klen)) & 1
        fb = (s ^ (s >> 47) ^ (~((s >> 70) & (s >> 85))) ^ (s >> 91) ^ k) & 1
        s = (s >> 1) | (fb << 127)
    return s


def permute(prim_id: str, state: bytes, key: bytes, steps: int) -> bytes:
    """The keyed permutation on a 16-byte state (little-endian words), as the C `permute` op."""
    _check_key(prim_id, key)
    return permute_int(int.from_bytes(state, "little"), key, steps).to_bytes(16, "little")


def _check_key(prim_id: str, key: bytes) -> None:
    if prim_id not in KEY_BYTES:
        raise ValueError(f"unknown TinyJAMBU id {prim_id!r}")
    if len(key) != KEY_BYTES[prim_id]:
        raise ValueError(f"{prim_id} takes a {KEY_BYTES[prim_id]}-byte key")


def _frame(s: int, bits: int) -> int:
    return s ^ (bits << 36)


def _absorb_word(s: int, word: int) -> int:
    return s ^ (word << 96)


def _keystream(s: int) -> int:
    return (s >> 64) & M32


def init_state(prim_id: str, key: bytes, nonce: bytes) -> bytes:
    """State after key setup and nonce setup (what the paper's initialization skip stores)."""
    _check_key(prim_id, key)
    if len(nonce) != NONCE_BYTES:
        raise ValueError("TinyJAMBU nonces are 12 bytes")
    s = permute_int(0, key, LARGE_STEPS[len(key)])
    for i in range(3):
        s = permute_int(_frame(s, FRAME_NONCE), key, SMALL_STEPS)
        s = _absorb_word(s, int.from_bytes(nonce[4 * i:4 * i + 4], "little"))
    return s.to_bytes(16, "little")


def _absorb_ad(s: int, key: bytes, ad: bytes) -> int:
    for off in range(0, len(ad), 4):
        block = ad[off:off + 4]
        s = permute_int(_frame(s, FRAME_AD), key, SMALL_STEPS)
        s = _absorb_word(s, int.from_bytes(block, "little"))
        if len(block) < 4:
            s ^= len(block) << 32
    return s


def _finalize(s: int, key: bytes) -> bytes:
    s = permute_int(_frame(s, FRAME_FINAL), key, LARGE_STEPS[len(key)])
    tag = _keystream(s).to_bytes(4, "little")
    s = permute_int(_frame(s, FRAME_FINAL), key, SMALL_STEPS)
    return tag + _keystream(s).to_bytes(4, "little")


def _crypt(s: int, key: bytes, data: bytes, decrypt: bool) -> tuple[int, bytes]:
    out = bytearray()
    large = LARGE_STEPS[len(key)]
    for off in range(0, len(data), 4):
        block = data[off:off + 4]
        n = len(block)
        s = permute_int(_frame(s, FRAME_MSG), key, large)
        ks = _keystream(s).to_bytes(4, "little")[:n]
        res = bytes(a ^ b for a, b in zip(block, ks))
        plain = res if decrypt else block
        s = _absorb_word(s, int.from_bytes(plain, "little"))
        if n < 4:
            s ^= n << 32
        out += res
    return s, bytes(out)


def encrypt_from_state(prim_id: str, state: bytes, key: bytes, ad: bytes, pt: bytes) -> bytes:
    _check_key(prim_id, key)
    s = _absorb_ad(int.from_bytes(state, "little"), key, ad)
    s, ct = _crypt(s, key, pt, decrypt=False)
    return ct + _finalize(s, key)


def decrypt_from_state(prim_id: str, state: bytes, key: bytes, ad: bytes, ct: bytes) -> bytes | None:
    """The plaintext, or None when the tag does not verify."""
    _check_key(prim_id, key)
    if len(ct) < TAG_BYTES:
        return None
    body, tag = ct[:-TAG_BYTES], ct[-TAG_BYTES:]
    s = _absorb_ad(int.from_bytes(state, "little"), key, ad)
    s, pt = _crypt(s, key, body, decrypt=True)
    return pt if _finalize(s, key) == tag else None


def encrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """Ciphertext || 8-byte tag."""
    return encrypt_from_state(prim_id, init_state(prim_id, key, nonce), key, ad, pt)


def decrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes | None:
    return decrypt_from_state(prim_id, init_state(prim_id, key, nonce), key, ad, ct)
