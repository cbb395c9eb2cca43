# SPDX-License-Identifier: MIT
"""AES-GCM (SP 800-38D; issue 29): what the generic catalog test does not cover.

test_catalog.py runs the official vectors (CAVP gcmEncryptExtIV subsets: 96-bit, 8-bit and 1,024-bit IVs,
128-bit tags), the aead driver's differential test against mcucrypt.models.aesgcm and the constant-time
checker on every implementation. Here:
- the model against the CAVP vectors and the `cryptography` package's AESGCM (a second oracle), GHASH's
  multiplication against SP 800-38D Algorithm 1's worked form on special elements;
- every implementation and target against AESGCM: random lengths 0..300 of message and AD on the host
  (the block edges on the boards; all of them with MCUCRYPT_FULL=1), misaligned buffers, forged tags (a
  flipped bit in every tag byte, in the ciphertext and the AD) rejected with the output zeroed and *mlen
  0, and one instruction path for the right and the wrong tags;
- a general IV whose J_0 sits just below a wrap of the 32-bit counter (inc32 mod 2^32, SP 800-38D 6.2),
  found by search on the host's model: the C must wrap as the standard does;
- the length refusals.
"""
from __future__ import annotations

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mcucrypt.boards.base import Buf, Int
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware as firmware
from mcucrypt.kat import read_vectors
from mcucrypt.kinds import aead as aead_kind
from mcucrypt.models import aes as aes_model
from mcucrypt.models import aesgcm as model

FULL = os.environ.get("MCUCRYPT_FULL") == "1"
CATALOG = load_catalog()
PRIM = CATALOG.by_id("aesgcm128")
IDS = dict(model.IDS)
TOP = 300
DRV = aead_kind.DRIVER


def jobs(targets: tuple[str, ...] = ("host", "rv32", "armv7m", "avr")) -> list[tuple[str, str]]:
    return [(impl.name, t) for impl in CATALOG.implementations("aesgcm128") for t in impl.targets if t in targets]


def oracle(key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    """AESGCM; an IV below 8 bytes (which the package refuses) from the model, itself checked here against
    the CAVP 8-bit-IV records."""
    if len(nonce) < 8:
        return model.encrypt("aesgcm128iv1", key, nonce, ad, pt)
    return AESGCM(key).encrypt(nonce, pt, ad)


def length_pairs(target: str, rng: random.Random) -> list[tuple[int, int]]:
    if target == "host" or FULL:
        return [(rng.randint(0, TOP), rng.randint(0, TOP)) for _ in range(40)] + [(0, 0), (TOP, TOP)]
    edges = [0, 1, 15, 16, 17, 33]
    return [(m, edges[(i + 2) % len(edges)]) for i, m in enumerate(edges)] + [(TOP, 5)]


def _encrypt(fw: Firmware, key: bytes, nonce: bytes, ad: bytes, pt: bytes, odd: int = 0):
    res = fw.call("aead_encrypt", {"c": Buf(size=len(pt) + 16, out=True, misalign=odd), "clen": Buf(size=8, out=True),
                                   "m": Buf(pt, misalign=odd), "mlen": Int(len(pt), 8), "ad": Buf(ad, misalign=odd),
                                   "adlen": Int(len(ad), 8), "nsec": Buf(b""), "npub": Buf(nonce, misalign=odd),
                                   "k": Buf(key, misalign=odd)})
    return res.return_value, res.outputs[0], int.from_bytes(res.outputs[1], "little")


# ------------------------------------------------------------------------------------------- model
def test_model_matches_cavp_and_cryptography() -> None:
    n = 0
    for prim_id in IDS:
        for rel in CATALOG.by_id(prim_id).instances[prim_id]["vectors"]:
            for v in read_vectors(PRIM.directory / rel):
                key, nonce, ad, pt, ct = (v.hex(f) for f in ("Key", "Nonce", "AD", "PT", "CT"))
                if n % 5 == 0:      # the pure-Python AES model: a fifth of them here (the C runs them all)
                    assert model.encrypt(prim_id, key, nonce, ad, pt) == ct, v.where
                    assert model.decrypt(prim_id, key, nonce, ad, ct) == pt, v.where
                if len(nonce) >= 8:
                    assert oracle(key, nonce, ad, pt) == ct, v.where
                n += 1
    assert n >= 600
    rng = random.Random("gcm/model")
    for prim_id, (_, iv_bytes) in IDS.items():
        for _ in range(5):
            key, nonce = rng.randbytes(16), rng.randbytes(iv_bytes)
            ad, pt = rng.randbytes(rng.randint(0, 50)), rng.randbytes(rng.randint(0, 50))
            assert model.encrypt(prim_id, key, nonce, ad, pt) == oracle(key, nonce, ad, pt), prim_id


def test_gf_mul_special_elements() -> None:
    """1 (x^0, the top bit) is the unit; x . x^127 = x^128 = 1 + x + x^2 + x^7 (R's bits)."""
    one, x, x127 = 1 << 127, 1 << 126, 1
    rng = random.Random("gf")
    for _ in range(5):
        a = rng.getrandbits(128)
        assert model.gf_mul(a, one) == a and model.gf_mul(one, a) == a
    assert model.gf_mul(x, x127) == 0xE1 << 120


# ------------------------------------------------------------------------------ implementations
# On the boards aesgcm128iv1 runs with MCUCRYPT_FULL=1 only (the 1-byte IV shares every path with the 128-byte one): not collected by default.
RANDOM_LENGTH_JOBS = [(prim_id, impl, target) for prim_id in IDS for impl, target in jobs()
                      if FULL or target == "host" or prim_id != "aesgcm128iv1"]


@pytest.mark.parametrize("prim_id,impl,target", RANDOM_LENGTH_JOBS)
def test_random_lengths_against_cryptography(prim_id: str, impl: str, target: str) -> None:
    fw = firmware(prim_id, impl, target)
    iv_bytes = IDS[prim_id][1]
    rng = random.Random(f"gcm/{prim_id}/{impl}/{target}")
    for i, (n, a) in enumerate(length_pairs(target, rng)):
        key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(iv_bytes), rng.randbytes(a), rng.randbytes(n)
        want = oracle(key, nonce, ad, pt)
        assert _encrypt(fw, key, nonce, ad, pt, odd=i % 4) == (0, want, n + 16), f"{prim_id} {impl} {target}: m {n} ad {a}"
        DRV.check_decrypt(fw, key, nonce, ad, want, pt, f"{prim_id} {impl} {target}: m {n} ad {a}")
        if i % 3 == 0:
            bit = rng.randrange(8 * len(want))
            DRV.check_decrypt(fw, key, nonce, ad, DRV.flip_bit(want, bit), None, f"{prim_id} {impl} bit {bit}")


@pytest.mark.parametrize("impl,target", jobs())
def test_forged_tags_wipe_and_take_one_path(impl: str, target: str) -> None:
    fw = firmware("aesgcm128", impl, target)
    rng = random.Random(f"gcm/forge/{impl}/{target}")
    key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(16), rng.randbytes(40)
    ct = oracle(key, nonce, ad, pt)
    costs = set()
    for j in range(16):
        r = DRV.decrypt(fw, key, nonce, ad, DRV.flip_bit(ct, 8 * (len(pt) + j) + rng.randrange(8)))
        assert DRV.released_nothing(r) and not any(r.output), f"{impl} {target}: tag byte {j}"
        costs.add((r.result.instructions, r.result.cycles))
    for bad_ad, bad_ct in ((DRV.flip_bit(ad, 5), ct), (ad, DRV.flip_bit(ct, 100))):
        assert DRV.released_nothing(DRV.decrypt(fw, key, nonce, bad_ad, bad_ct)), f"{impl} {target}"
    assert len(costs) == 1, f"{impl} {target}: {costs}"


def _gf_pow(a: int, e: int) -> int:
    r = 1 << 127
    while e:
        if e & 1:
            r = model.gf_mul(r, a)
        a = model.gf_mul(a, a)
        e >>= 1
    return r


def _iv_for_j0(key: bytes, j0: bytes, rng: random.Random) -> bytes:
    """A 128-byte IV whose J_0 = GHASH_H(X_1 .. X_8 || [1024]_128) is ``j0``: GHASH is linear, J_0 =
    X_1 H^9 ^ (the rest), so X_1 = (j0 ^ rest) H^-9 with the rest drawn at random."""
    h = int.from_bytes(aes_model.encrypt("aes128", key, bytes(16)), "big")
    tail = rng.randbytes(7 * 16)
    rest = int.from_bytes(model.ghash(h.to_bytes(16, "big"), bytes(16) + tail + (1024).to_bytes(16, "big")), "big")
    x1 = model.gf_mul(int.from_bytes(j0, "big") ^ rest, _gf_pow(_gf_pow(h, 9), (1 << 128) - 2))
    iv = x1.to_bytes(16, "big") + tail
    assert model._j0(h.to_bytes(16, "big"), iv) == j0
    return iv


@pytest.mark.parametrize("impl,target", jobs(("host", "rv32", "armv7m")))
def test_general_iv_counter_wraps_mod_2_32(impl: str, target: str) -> None:
    """inc32 wraps the low word only (SP 800-38D 6.2): a 128-byte IV solved so that J_0's counter word is
    2^32 - 3, and a 100-byte message crossing the wrap, against AESGCM."""
    fw = firmware("aesgcm128iv128", impl, target)
    rng = random.Random("gcm/wrap")
    key = rng.randbytes(16)
    iv = _iv_for_j0(key, rng.randbytes(12) + (0xFFFFFFFD).to_bytes(4, "big"), rng)
    pt, ad = rng.randbytes(100), rng.randbytes(3)
    want = oracle(key, iv, ad, pt)
    assert model.encrypt("aesgcm128iv128", key, iv, ad, pt) == want
    assert _encrypt(fw, key, iv, ad, pt)[1] == want, f"{impl} {target}"
    DRV.check_decrypt(fw, key, iv, ad, want, pt, f"{impl} {target}: wrap")


@pytest.mark.parametrize("impl,target", jobs(("host", "avr")))
def test_length_refusals(impl: str, target: str) -> None:
    fw = firmware("aesgcm128", impl, target)
    key, nonce = bytes(16), bytes(12)
    too_long = (1 << 36) - 31
    res = fw.call("aead_encrypt", {"c": Buf(size=8, out=True), "clen": Buf(b"\xff" * 8, out=True), "m": Buf(bytes(4)),
                                   "mlen": Int(too_long, 8), "ad": Buf(b""), "adlen": Int(0, 8), "nsec": Buf(b""),
                                   "npub": Buf(nonce), "k": Buf(key)})
    assert res.return_value in aead_kind.MINUS_ONE and res.outputs == [bytes(8), bytes(8)]
    assert DRV.released_nothing(DRV.decrypt(fw, key, nonce, b"", bytes(15)))
