# SPDX-License-Identifier: MIT
"""Ascon (NIST SP 800-232, August 2025) in Python, from the standard: the differential-test oracle.

The state is five 64-bit words S0..S4 (Python ints). SP 800-232 reads bytes into words little-endian
(byte i of a block is bits 8i..8i+7 of its word) and pads a last block X of n < rate bytes as
X || 0x01 || 0*, so the pad byte sits at byte position n.

Permutation Ascon-p[r] (SP 800-232 §3): the last r of the 12 round constants 0xf0, 0xe1, ..., 0x4b
(Table 5), one per round.
Each round: constant into S2, the 5-bit S-box bitsliced over the 64 columns, then the linear layer
Si ^= (Si >>> a_i) ^ (Si >>> b_i) with (a, b) = (19,28), (61,39), (1,6), (10,17), (7,41).

Ascon-AEAD128 (§4): IV 0x00001000808c0001; S = IV, K0, K1, N0, N1; p12; S3 ^= K0; S4 ^= K1.
AD (only if nonempty): 16-byte blocks, last one padded, S0, S1 ^= block, p8 after each. Then S4 ^= 1 << 63.
Plaintext: 16-byte blocks, S0, S1 ^= block and the ciphertext is S0, S1; p8 after every full block;
the last (possibly empty) block padded. Finalization: S2 ^= K0; S3 ^= K1; p12; tag = S3 ^ K0, S4 ^ K1.

Ascon-Hash256 / XOF128 / CXOF128 (§5): S = IV, 0, 0, 0, 0; p12; 8-byte blocks of the padded message into
S0, p12 after each (the last one included); output 8 bytes of S0 at a time, p12 between them.
IVs 0x0000080100cc0002 (Hash256), 0x0000080000cc0003 (XOF128), 0x0000080000cc0004 (CXOF128). CXOF128
absorbs, before the message, the bit length of Z as a 64-bit word (p12 after it) and then Z padded
(its own last block, padded, even when Z is empty).
"""
from __future__ import annotations

M64 = (1 << 64) - 1
CONSTANTS = (0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, 0x78, 0x69, 0x5A, 0x4B)
ROTATIONS = ((19, 28), (61, 39), (1, 6), (10, 17), (7, 41))
IV_AEAD128 = 0x00001000808C0001
IV_HASH256 = 0x0000080100CC0002
IV_XOF128 = 0x0000080000CC0003
IV_CXOF128 = 0x0000080000CC0004
KEY_BYTES = NONCE_BYTES = TAG_BYTES = 16
HASH_BYTES = 32


def _ror(x: int, n: int) -> int:
    return ((x >> n) | (x << (64 - n))) & M64


def permute_words(s: list[int], rounds: int) -> list[int]:
    s = list(s)
    for c in CONSTANTS[12 - rounds:]:
        s[2] ^= c
        x0, x1, x2, x3, x4 = s
        x0 ^= x4; x4 ^= x3; x2 ^= x1
        t = [(~x0 & M64) & x1, (~x1 & M64) & x2, (~x2 & M64) & x3, (~x3 & M64) & x4, (~x4 & M64) & x0]
        x0 ^= t[1]; x1 ^= t[2]; x2 ^= t[3]; x3 ^= t[4]; x4 ^= t[0]
        x1 ^= x0; x0 ^= x4; x3 ^= x2; x2 = ~x2 & M64
        s = [x ^ _ror(x, a) ^ _ror(x, b) for x, (a, b) in zip((x0, x1, x2, x3, x4), ROTATIONS)]
    return s


def permute(state: bytes, rounds: int) -> bytes:
    """Ascon-p[rounds] on 40 bytes (S0..S4, each little-endian)."""
    words = [int.from_bytes(state[8 * i:8 * i + 8], "little") for i in range(5)]
    return b"".join(w.to_bytes(8, "little") for w in permute_words(words, rounds))


def _word(b: bytes) -> int:
    return int.from_bytes(b, "little")


def _padded_blocks(data: bytes, rate: int) -> list[bytes]:
    """Full blocks, then the last block (possibly empty) with 0x01 after it, zero-filled to the rate."""
    full = len(data) // rate
    blocks = [data[rate * i:rate * (i + 1)] for i in range(full)]
    tail = data[rate * full:]
    blocks.append(tail + b"\x01" + bytes(rate - len(tail) - 1))
    return blocks


def _aead_init(key: bytes, nonce: bytes, ad: bytes) -> tuple[list[int], int, int]:
    if len(key) != KEY_BYTES or len(nonce) != NONCE_BYTES:
        raise ValueError("Ascon-AEAD128 takes a 16-byte key and a 16-byte nonce")
    k0, k1 = _word(key[:8]), _word(key[8:])
    s = permute_words([IV_AEAD128, k0, k1, _word(nonce[:8]), _word(nonce[8:])], 12)
    s[3] ^= k0
    s[4] ^= k1
    if ad:
        for blk in _padded_blocks(ad, 16):
            s[0] ^= _word(blk[:8])
            s[1] ^= _word(blk[8:])
            s = permute_words(s, 8)
    s[4] ^= 1 << 63
    return s, k0, k1


def _aead_tag(s: list[int], k0: int, k1: int) -> bytes:
    s[2] ^= k0
    s[3] ^= k1
    s = permute_words(s, 12)
    return (s[3] ^ k0).to_bytes(8, "little") + (s[4] ^ k1).to_bytes(8, "little")


def _keystream_xor(s: list[int], data: bytes, decrypt: bool) -> tuple[list[int], bytes]:
    out = bytearray()
    full = len(data) // 16
    for i in range(full + 1):
        blk = data[16 * i:16 * i + 16]
        stream = s[0].to_bytes(8, "little") + s[1].to_bytes(8, "little")
        o = bytes(a ^ b for a, b in zip(blk, stream))
        out += o
        plain = o if decrypt else blk
        padded = plain + (b"\x01" + bytes(15 - len(plain)) if i == full else b"")
        s[0] ^= _word(padded[:8])
        s[1] ^= _word(padded[8:])
        if i < full:
            s = permute_words(s, 8)
    return s, bytes(out)


def encrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """Ascon-AEAD128: ciphertext || 16-byte tag."""
    s, k0, k1 = _aead_init(key, nonce, ad)
    s, ct = _keystream_xor(s, pt, decrypt=False)
    return ct + _aead_tag(s, k0, k1)


def decrypt(prim_id: str, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes | None:
    if len(ct) < TAG_BYTES:
        return None
    s, k0, k1 = _aead_init(key, nonce, ad)
    s, pt = _keystream_xor(s, ct[:-TAG_BYTES], decrypt=True)
    return pt if _aead_tag(s, k0, k1) == ct[-TAG_BYTES:] else None


def _sponge(iv: int, pieces: list[bytes], outlen: int) -> bytes:
    s = permute_words([iv, 0, 0, 0, 0], 12)
    for piece in pieces:
        for blk in _padded_blocks(piece, 8):
            s[0] ^= _word(blk)
            s = permute_words(s, 12)
    out = bytearray()
    while True:
        out += s[0].to_bytes(8, "little")
        if len(out) >= outlen:
            return bytes(out[:outlen])
        s = permute_words(s, 12)


def hash256(msg: bytes) -> bytes:
    return _sponge(IV_HASH256, [msg], HASH_BYTES)


def xof128(msg: bytes, outlen: int) -> bytes:
    return _sponge(IV_XOF128, [msg], outlen)


CXOF_MAX_Z_BYTES = 256     # SP 800-232 section 5.3: |Z| <= 2,048 bits


def cxof128(msg: bytes, outlen: int, z: bytes) -> bytes:
    """Ascon-CXOF128: the customization string's bit length as one full 8-byte block, then Z padded,
    then the message padded. SP 800-232 bounds Z at 2,048 bits."""
    if len(z) > CXOF_MAX_Z_BYTES:
        raise ValueError(f"Ascon-CXOF128 takes a customization string of at most {CXOF_MAX_Z_BYTES} bytes, "
                         f"got {len(z)}")
    s = permute_words([IV_CXOF128, 0, 0, 0, 0], 12)
    s[0] ^= 8 * len(z)
    s = permute_words(s, 12)
    for piece in (z, msg):
        for blk in _padded_blocks(piece, 8):
            s[0] ^= _word(blk)
            s = permute_words(s, 12)
    out = bytearray()
    while True:
        out += s[0].to_bytes(8, "little")
        if len(out) >= outlen:
            return bytes(out[:outlen])
        s = permute_words(s, 12)


# The hash kind's model interface: digest(id, msg, outlen, z) for every id of the family.
def digest(prim_id: str, msg: bytes, outlen: int, z: bytes = b"") -> bytes:
    if prim_id == "asconhash256":
        if outlen != HASH_BYTES:
            raise ValueError("Ascon-Hash256 gives 32 bytes")
        return hash256(msg)
    if prim_id == "asconxof128":
        return xof128(msg, outlen)
    if prim_id == "asconcxof128":
        return cxof128(msg, outlen, z)
    raise ValueError(f"unknown Ascon hash id {prim_id!r}")
