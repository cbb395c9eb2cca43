# SPDX-License-Identifier: MIT
"""ECDSA and ECDH on P-256 (issue 32) beyond the signature kind's generic test: the model against every
official vector, the two-way differential against the `cryptography` package (theirs signs, ours verifies,
and the reverse; ECDH both ways), ECDH on the CAVP KAS records,
malformed inputs (r or s zero or >= n, points off the curve, bad prefixes and lengths, truncated and
overlong signatures, out-of-range keys and nonces) refused with -1 and never a crash, and the comb
generator being current. Every implementation on the host; on the boards a few calls each (a scalar
multiplication there is millions of cycles: 50 M on AVR), everything with MCUCRYPT_FULL=1."""
from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import shared_firmware
from mcucrypt.models import p256 as model
from mcucrypt.targets import ROOT

ec = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ec")
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature  # noqa: E402

CATALOG = load_catalog()
PRIM = CATALOG.by_id("p256")
FULL = os.environ.get("MCUCRYPT_FULL", "") not in ("", "0")
# The portable C on the boards with MCUCRYPT_FULL=1 only (as tests/test_catalog.py): each board runs its own
# implementation; the host runs ref.
IMPLS = [(impl.name, target) for impl in PRIM.implementations.values() for target in impl.targets
         if FULL or target == "host" or impl.name != "ref"]
HOST = [(i, t) for i, t in IMPLS if t == "host"]
BOARDS = [(i, t) for i, t in IMPLS if t != "host"]
ZERO_RND = bytes(32)


def vectors() -> list[dict]:
    out = []
    for path in PRIM.vectors:
        out += model.read_vectors(path)
    return out


# -- calls ------------------------------------------------------------------------------------------

def keygen(fw, seed: bytes) -> tuple[int, bytes, bytes]:
    res = fw.call("keygen", {"pk": Buf(size=65, out=True), "sk": Buf(size=32, out=True), "seed": Buf(seed)})
    return res.return_value, res.outputs[0], res.outputs[1]


def sign(fw, sk: bytes, msg: bytes, rnd: bytes = ZERO_RND) -> tuple[int, bytes]:
    res = fw.call("sign", {"sig": Buf(size=64, out=True), "msg": Buf(msg), "msglen": len(msg), "sk": Buf(sk),
                           "rnd": Buf(rnd)})
    return res.return_value, res.outputs[0]


def verify(fw, pk: bytes, msg: bytes, sig: bytes) -> int:
    res = fw.call("verify", {"sig": Buf(sig), "siglen": len(sig), "msg": Buf(msg), "msglen": len(msg),
                             "pk": Buf(pk), "pklen": len(pk)})
    return res.return_value


def ecdh(fw, sk: bytes, pk: bytes) -> tuple[int, bytes]:
    res = fw.call("ecdh", {"shared": Buf(size=32, out=True), "sk": Buf(sk), "pk": Buf(pk), "pklen": len(pk)})
    return res.return_value, res.outputs[0]


def rc(value: int) -> int:
    """The C int return as a Python int (-1 is 0xffff on AVR, 0xffffffff elsewhere)."""
    return -1 if value in (0xFFFF, 0xFFFFFFFF, -1) else value


# -- the model ----------------------------------------------------------------------------------------

def test_model_passes_every_official_vector() -> None:
    recs = vectors()
    assert {r["op"] for r in recs} == {"keygen", "sign", "verify", "ecdh"}
    assert sum(r["op"] == "verify" and not r["valid"] for r in recs) == 12
    for r in recs:
        if r["op"] == "keygen":
            assert model.keygen(r["seed"])[0] == r["pk"], r["where"]
        elif r["op"] == "sign":
            assert model.sign(r["sk"], r["msg"], rnd=r.get("rnd")) == r["sig"], r["where"]
            assert model.keygen(r["sk"])[0] == r["pk"], r["where"]
            if "k" in r:   # RFC 6979's own k
                assert model.rfc6979_k(int.from_bytes(r["sk"], "big"), model.hash_to_int(r["msg"])) == \
                    int.from_bytes(r["k"], "big")
        elif r["op"] == "verify":
            assert model.verify(r["pk"], r["msg"], r["sig"]) == r["valid"], r["where"]
        else:
            try:
                ok = model.ecdh(r["sk"], r["pk"]) == r["shared"] and model.keygen(r["sk"])[0] == r["own_pk"]
            except ValueError:
                ok = False
            assert ok == r["valid"], r["where"]


def test_model_against_cryptography_both_ways() -> None:
    rng = random.Random("p256-model")
    for i in range(8):
        pk, sk = model.keygen(rng.randbytes(32))
        theirs = ec.derive_private_key(int.from_bytes(sk, "big"), ec.SECP256R1())
        assert theirs.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint) == pk
        msg = rng.randbytes(rng.randrange(300))
        r, s = decode_dss_signature(theirs.sign(msg, ec.ECDSA(hashes.SHA256())))
        assert model.verify(pk, msg, r.to_bytes(32, "big") + s.to_bytes(32, "big"))
        sig = model.sign(sk, msg, rnd=rng.randbytes(32) if i % 2 else None)
        theirs.public_key().verify(encode_dss_signature(int.from_bytes(sig[:32], "big"),
                                                        int.from_bytes(sig[32:], "big")), msg, ec.ECDSA(hashes.SHA256()))


# -- the implementations ------------------------------------------------------------------------------

def board_vectors(target: str) -> list[dict]:
    """All on the host and in full mode; on a board one record of each kind (plus a rejected SigVer
    and a failing KAS record): a scalar multiplication is seconds of simulation there."""
    recs = vectors()
    if target == "host" or FULL:
        return recs
    pick: list[dict] = []
    for op in ("keygen", "sign", "verify", "ecdh"):
        pick += [r for r in recs if r["op"] == op][:1]
    pick += [r for r in recs if r["op"] == "verify" and not r["valid"]][:1]
    pick += [r for r in recs if r["op"] == "ecdh" and not r["valid"]][:1]
    pick += [r for r in recs if "k" in r][:1]   # RFC 6979
    return pick


@pytest.mark.parametrize("impl,target", IMPLS)
def test_official_vectors(impl: str, target: str) -> None:
    fw = shared_firmware("p256", impl, target)
    for r in board_vectors(target):
        if r["op"] == "keygen":
            assert keygen(fw, r["seed"]) == (0, r["pk"], r["sk"]), r["where"]
        elif r["op"] == "sign":
            code, sig = sign(fw, r["sk"], r["msg"], r.get("rnd", ZERO_RND))
            assert (rc(code), sig) == (0, r["sig"]), r["where"]
        elif r["op"] == "verify":
            assert rc(verify(fw, r["pk"], r["msg"], r["sig"])) == (0 if r["valid"] else -1), r["where"]
        else:
            code, shared = ecdh(fw, r["sk"], r["pk"])
            ok = rc(code) == 0 and shared == r["shared"]
            if r["valid"] or not ok:
                assert ok == r["valid"], r["where"]
            else:   # the KAS failures on the IUT's own key: its public key is not d G
                assert keygen(fw, r["sk"])[1] != r["own_pk"], r["where"]


@pytest.mark.parametrize("impl,target", IMPLS)
def test_differential_against_cryptography(impl: str, target: str) -> None:
    """Theirs signs, ours verifies; ours signs (RFC 6979 and a given k), theirs verifies; ECDH both
    ways, with uncompressed and compressed peer keys."""
    fw = shared_firmware("p256", impl, target)
    rng = random.Random(f"p256-diff/{impl}/{target}")
    trials = 6 if target == "host" or FULL else 1
    for i in range(trials):
        theirs = ec.generate_private_key(ec.SECP256R1())
        their_pk = theirs.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        their_cpk = theirs.public_key().public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.CompressedPoint)
        msg = rng.randbytes(rng.randrange(301))
        r, s = decode_dss_signature(theirs.sign(msg, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        assert rc(verify(fw, their_pk if i % 2 == 0 else their_cpk, msg, sig)) == 0
        flipped = bytearray(sig)
        flipped[rng.randrange(64)] ^= 1 << rng.randrange(8)
        assert rc(verify(fw, their_pk, msg, bytes(flipped))) == -1

        seed = rng.randbytes(32)
        code, pk, sk = keygen(fw, seed)
        assert (code, pk, sk) == (0, *model.keygen(seed))
        rnd = ZERO_RND if i % 2 == 0 else rng.randbytes(32)
        code, ours = sign(fw, sk, msg, rnd)
        assert rc(code) == 0 and ours == model.sign(sk, msg, rnd=None if rnd == ZERO_RND else rnd)
        ours_pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pk)
        ours_pub.verify(encode_dss_signature(int.from_bytes(ours[:32], "big"), int.from_bytes(ours[32:], "big")),
                        msg, ec.ECDSA(hashes.SHA256()))
        with pytest.raises(InvalidSignature):
            ours_pub.verify(encode_dss_signature(int.from_bytes(ours[:32], "big"), int.from_bytes(ours[32:], "big")),
                            msg + b"!", ec.ECDSA(hashes.SHA256()))

        code, shared = ecdh(fw, sk, their_cpk if i % 2 else their_pk)
        assert rc(code) == 0 and shared == theirs.exchange(ec.ECDH(), ours_pub)


def off_curve_x() -> int:
    """The smallest x with no point on the curve (x^3 - 3x + b not a square mod p)."""
    x = 1
    while True:
        try:
            model.decode_point(b"\x02" + x.to_bytes(32, "big"))
        except ValueError:
            return x
        x += 1


@pytest.mark.parametrize("impl,target", IMPLS)
def test_malformed_inputs_are_refused(impl: str, target: str) -> None:
    fw = shared_firmware("p256", impl, target)
    seed = bytes(31) + b"\x07"
    pk, sk = model.keygen(seed)
    msg = b"malformed"
    sig = model.sign(sk, msg)
    n, p = model.N.to_bytes(32, "big"), model.P.to_bytes(32, "big")
    x_bad = off_curve_x().to_bytes(32, "big")
    bad_sigs = [bytes(32) + sig[32:], sig[:32] + bytes(32), n + sig[32:], sig[:32] + n, b"\xff" * 32 + sig[32:],
                sig[:63], sig + b"\x00", b""]
    bad_pks = [pk[:64], pk + b"\x00", b"\x05" + pk[1:], b"\x02" + pk[1:], pk[:64] + bytes([pk[64] ^ 1]),
               b"\x04" + bytes(64), b"\x00", b"\x04" + p + pk[33:], b"\x02" + x_bad, b"\x03" + p, pk[:33]]
    if target != "host" and not FULL:   # a representative cut on the boards (each call is a point decode)
        bad_sigs, bad_pks = bad_sigs[:1] + bad_sigs[3:4] + bad_sigs[5:6], bad_pks[4:5] + bad_pks[8:9]
    for s in bad_sigs:
        assert rc(verify(fw, pk, msg, s)) == -1, s.hex()
    for q in bad_pks:
        assert rc(verify(fw, q, msg, sig)) == -1, q.hex()
        code, shared = ecdh(fw, sk, q)
        assert rc(code) == -1 and shared == bytes(32), q.hex()
    for d in ([bytes(32), n, b"\xff" * 32] if target == "host" or FULL else [n]):
        code, out_pk, out_sk = keygen(fw, d)
        assert rc(code) == -1 and out_pk == bytes(65) and out_sk == bytes(32)
        code, out = sign(fw, d, msg)
        assert rc(code) == -1 and out == bytes(64)
    code, out = sign(fw, sk, msg, n)           # a nonce >= n: refused (FIPS 186-5 A.3.2: draw again)
    assert rc(code) == -1 and out == bytes(64)


def test_comb_table_is_current() -> None:
    gen = ROOT / "crypto" / "p256" / "ref" / "gen_comb.py"
    assert subprocess.run([sys.executable, str(gen), "--check"], capture_output=True).returncode == 0


def test_ct_secrets_are_valid_scalars() -> None:
    """The kind's ct cases draw secrets through model.ct_secret: the checker's all-zero and all-one
    patterns (and n itself) become scalars the C accepts, so each pattern runs the whole operation."""
    for raw in (bytes(32), b"\xff" * 32, model.N.to_bytes(32, "big"), (model.N - 1).to_bytes(32, "big")):
        d = int.from_bytes(model.ct_secret(raw), "big")
        assert 1 <= d < model.N
        model.keygen(model.ct_secret(raw))
    with pytest.raises(ValueError):
        model.keygen(bytes(32))


def test_p256_declassifications_are_declared() -> None:
    """keygen, sign and ecdh declassify range verdicts (docs/p256.md): the kind declares them for p256."""
    from mcucrypt.kinds.signature import PUBLIC_RESULTS_BY_ID
    declared = PUBLIC_RESULTS_BY_ID["p256"]
    assert set(declared) == {"keygen", "sign", "ecdh"}
    assert declared["sign"].per_call == 4 and declared["keygen"].per_call == 1
