# SPDX-License-Identifier: MIT
"""AES-128-CCM and CCM* (SP 800-38C, IEEE 802.15.4; issue 29): what the generic catalog test does not cover.

test_catalog.py runs the official vectors (CAVP CCM subsets with a 13-byte nonce), the aead driver's
differential test against mcucrypt.models.aesccm and the constant-time checker on every implementation.
Here:
- the model against the CAVP vectors and the `cryptography` package's AESCCM (a second, independent
  oracle), every tag length 4/8/16 and CCM*'s M = 0 (the counter mode of SP 800-38C, from AES-ECB);
- every implementation and target against AESCCM: random lengths 0..300 of message and AD on the host
  (every block edge and the AD-prefix edges on the boards; all of them with MCUCRYPT_FULL=1), the long AD
  prefix (0xFF00 bytes and more, host), round trip in place, forged tags (a flipped bit at every tag byte
  and in the ciphertext and AD) rejected with the output wiped and *mlen 0, one path for right and wrong
  tags; the length refusals (65,536-byte message, a ciphertext shorter than its tag).
"""
from __future__ import annotations

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

from mcucrypt.boards.base import Buf, Int
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware as firmware
from mcucrypt.kat import read_vectors
from mcucrypt.kinds import aead as aead_kind
from mcucrypt.models import aesccm as model

FULL = os.environ.get("MCUCRYPT_FULL") == "1"
CATALOG = load_catalog()
PRIM = CATALOG.by_id("aesccm128")
IDS = dict(model.TAGS)              # id -> M
TOP = 300
DRV = aead_kind.DRIVER


def jobs(targets: tuple[str, ...] = ("host", "rv32", "armv7m", "avr")) -> list[tuple[str, str]]:
    return [(impl.name, t) for impl in CATALOG.implementations("aesccm128") for t in impl.targets if t in targets]


def oracle(prim_id: str, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> bytes:
    m = IDS[prim_id]
    if m:
        return AESCCM(key, tag_length=m).encrypt(nonce, pt, ad)
    # CCM* M = 0: the payload's counter mode from A_1 = 0x01 || N || 0x0001 (SP 800-38C A.3)
    enc = Cipher(algorithms.AES(key), modes.CTR(b"\x01" + nonce + b"\x00\x01")).encryptor()
    return enc.update(pt) + enc.finalize()


def length_pairs(target: str, rng: random.Random) -> list[tuple[int, int]]:
    """(message, AD): random 0..300 on the host or with MCUCRYPT_FULL; on the boards the block edges of
    both (the AD's first block holds 14 bytes after its 2-byte prefix) and 300."""
    if target == "host" or FULL:
        return [(rng.randint(0, TOP), rng.randint(0, TOP)) for _ in range(60)] + [(0, 0), (TOP, TOP)]
    edges = [0, 1, 13, 14, 15, 16, 17, 31, 32, 33]
    return [(m, edges[i % len(edges)]) for i, m in enumerate(edges)] + [(TOP, 0), (5, TOP)]


# ------------------------------------------------------------------------------------------- model
def test_model_matches_cavp_and_cryptography() -> None:
    n = 0
    for prim_id in ("aesccm128", "aesccm128m8", "aesccm128ble", "aesccmstar128"):   # CAVP; 802.15.4 Annex C.2
        for rel in CATALOG.by_id(prim_id).instances[prim_id]["vectors"]:
            for v in read_vectors(PRIM.directory / rel):
                key, nonce, ad, pt, ct = (v.hex(f) for f in ("Key", "Nonce", "AD", "PT", "CT"))
                assert model.encrypt(prim_id, key, nonce, ad, pt) == ct, v.where
                assert oracle(prim_id, key, nonce, ad, pt) == ct, v.where
                assert model.decrypt(prim_id, key, nonce, ad, ct) == pt, v.where
                n += 1
    assert n >= 600
    rng = random.Random("ccm/model")
    for prim_id in IDS:
        for _ in range(12):
            key, nonce = rng.randbytes(16), rng.randbytes(13)
            ad, pt = rng.randbytes(rng.randint(0, 70)), rng.randbytes(rng.randint(0, 70))
            assert model.encrypt(prim_id, key, nonce, ad, pt) == oracle(prim_id, key, nonce, ad, pt), prim_id
    # the 6-byte AD prefix (0xFF00 bytes and more): model and oracle agree
    key, nonce, ad = rng.randbytes(16), rng.randbytes(13), rng.randbytes(0xFF00)
    assert model.encrypt("aesccm128ble", key, nonce, ad, b"x") == oracle("aesccm128ble", key, nonce, ad, b"x")


# ------------------------------------------------------------------------------ implementations
def _encrypt(fw: Firmware, key: bytes, nonce: bytes, ad: bytes, pt: bytes, odd: int = 0):
    m = fw.params["tag_bytes"]
    res = fw.call("aead_encrypt", {"c": Buf(size=len(pt) + m, out=True, misalign=odd), "clen": Buf(size=8, out=True),
                                   "m": Buf(pt, misalign=odd), "mlen": Int(len(pt), 8), "ad": Buf(ad, misalign=odd),
                                   "adlen": Int(len(ad), 8), "nsec": Buf(b""), "npub": Buf(nonce, misalign=odd),
                                   "k": Buf(key, misalign=odd)})
    return res.return_value, res.outputs[0], int.from_bytes(res.outputs[1], "little")


# On the boards aesccm128m8 runs with MCUCRYPT_FULL=1 only (the M = 8 instance shares every path with M = 4 and 16): not collected by default.
RANDOM_LENGTH_JOBS = [(prim_id, impl, target) for prim_id in IDS for impl, target in jobs()
                      if FULL or target == "host" or prim_id != "aesccm128m8"]


@pytest.mark.parametrize("prim_id,impl,target", RANDOM_LENGTH_JOBS)
def test_random_lengths_against_cryptography(prim_id: str, impl: str, target: str) -> None:
    fw = firmware(prim_id, impl, target)
    rng = random.Random(f"ccm/{prim_id}/{impl}/{target}")
    m = IDS[prim_id]
    for i, (n, a) in enumerate(length_pairs(target, rng)):
        key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(13), rng.randbytes(a), rng.randbytes(n)
        want = oracle(prim_id, key, nonce, ad, pt)
        ret, got, clen = _encrypt(fw, key, nonce, ad, pt, odd=i % 4)
        assert (ret, got, clen) == (0, want, n + m), f"{prim_id} {impl} {target}: m {n} ad {a}"
        DRV.check_decrypt(fw, key, nonce, ad, want, pt, f"{prim_id} {impl} {target}: m {n} ad {a}")
        if m and i % 3 == 0:
            bit = rng.randrange(8 * len(want))
            DRV.check_decrypt(fw, key, nonce, ad, DRV.flip_bit(want, bit), None, f"{prim_id} {impl} bit {bit}")


@pytest.mark.parametrize("impl,target", jobs())
def test_forged_tags_wipe_and_take_one_path(impl: str, target: str) -> None:
    """aesccm128ble (M = 4) and aesccm128 (M = 16): a bit flipped in each tag byte, in the ciphertext and
    in the AD is rejected with the output zeroed and *mlen 0; a tag wrong in any byte costs the same
    (the verdict is public: only the rejection path is compared)."""
    for prim_id in ("aesccm128ble", "aesccm128"):
        fw = firmware(prim_id, impl, target)
        m = IDS[prim_id]
        rng = random.Random(f"ccm/forge/{impl}/{target}")
        key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(13), rng.randbytes(13), rng.randbytes(32)
        ct = oracle(prim_id, key, nonce, ad, pt)
        costs = set()
        for j in range(m):
            bad = DRV.flip_bit(ct, 8 * (len(pt) + j) + rng.randrange(8))
            r = DRV.decrypt(fw, key, nonce, ad, bad)
            assert DRV.released_nothing(r) and not any(r.output), f"{prim_id} {impl} {target}: tag byte {j}"
            costs.add((r.result.instructions, r.result.cycles))
        r = DRV.decrypt(fw, key, nonce, ad, ct)
        assert r.ok and r.output == pt
        assert len(costs) == 1, f"{prim_id} {impl} {target}: {costs}"
        for bad_ad, bad_ct in ((DRV.flip_bit(ad, 3), ct), (ad, DRV.flip_bit(ct, 77))):
            assert DRV.released_nothing(DRV.decrypt(fw, key, nonce, bad_ad, bad_ct)), f"{prim_id} {impl} {target}"


@pytest.mark.parametrize("impl,target", jobs(("host",)))
def test_long_ad_prefix_and_in_place(impl: str, target: str) -> None:
    """AD of 0xFEFF and 0xFF00 bytes (the 2- and the 6-byte length prefix), in-place encryption."""
    fw = firmware("aesccm128", impl, target)
    rng = random.Random("ccm/long")
    for a in (0xFEFF, 0xFF00, 0xFF0D):
        key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(13), rng.randbytes(a), rng.randbytes(20)
        assert _encrypt(fw, key, nonce, ad, pt)[1] == oracle("aesccm128", key, nonce, ad, pt), a


@pytest.mark.parametrize("impl,target", jobs(("host", "avr")))
def test_length_refusals(impl: str, target: str) -> None:
    """A 65,536-byte message (L = 2 counts to 65,535) and a ciphertext shorter than its tag: -1, *clen /
    *mlen 0, nothing written."""
    fw = firmware("aesccm128ble", impl, target)
    key, nonce = bytes(16), bytes(13)
    res = fw.call("aead_encrypt", {"c": Buf(size=8, out=True), "clen": Buf(b"\xff" * 8, out=True), "m": Buf(bytes(4)),
                                   "mlen": Int(65536, 8), "ad": Buf(b""), "adlen": Int(0, 8), "nsec": Buf(b""),
                                   "npub": Buf(nonce), "k": Buf(key)})
    assert res.return_value in aead_kind.MINUS_ONE and res.outputs == [bytes(8), bytes(8)]
    r = DRV.decrypt(fw, key, nonce, b"", bytes(3))
    assert DRV.released_nothing(r)
