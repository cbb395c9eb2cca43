# SPDX-License-Identifier: MIT
"""ML-DSA (FIPS 204, issue 31) beyond the generic test: the model against the NIST ACVP records (keyGen,
sigGen deterministic and hedged, sigVer valid and invalid) and against dilithium-py (a second, independent
oracle: keygen, the external interface with context strings both ways, the internal interface with rnd),
the C on the host against both, the signing state's constant-time policy (only the rejection verdict is
declassified, and only in the loop's shape), and the driver catching a wrong result. Vectors on every
board, the differential test against the model and the constant-time check are the generic test's
(tests/test_catalog.py); MCUCRYPT_FULL=1 runs every ACVP record through the model."""
from __future__ import annotations

import ctypes
import os
import random
from types import SimpleNamespace

import pytest
from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import shared_firmware
from mcucrypt.kinds import signature
from mcucrypt.kinds.base import Mismatch
from mcucrypt.models import mldsa as model

CATALOG = load_catalog()
PRIM = CATALOG.by_id("mldsa44")
DRIVER = signature.DRIVER
FULL = os.environ.get("MCUCRYPT_FULL") == "1"
IDS = ("mldsa44", "mldsa65", "mldsa87")
THEIRS = {"mldsa44": ML_DSA_44, "mldsa65": ML_DSA_65, "mldsa87": ML_DSA_87}


def cases(prim_id: str, all_cases: tuple) -> tuple:
    """Every case for ML-DSA-44 and in full mode; the last one (the longest message and context) for the
    larger parameter sets in the default run (the Python model takes seconds per case there)."""
    return all_cases if FULL or prim_id == "mldsa44" else all_cases[-1:]


def records(prim_id: str) -> list:
    return DRIVER.vectors(PRIM, prim_id)


def test_vectors_cover_every_parameter_set_and_case() -> None:
    for prim_id in IDS:
        recs = records(prim_id)
        ops = [(v.fields["op"], v.fields.get("valid")) for v in recs]
        assert ops.count(("keygen", None)) >= 2 and ops.count(("sign", None)) >= 2
        assert ("verify", "True") in ops and ("verify", "False") in ops
        rnds = {v.fields["rnd"] for v in recs if v.fields["op"] == "sign"}
        assert "00" * 32 in rnds and len(rnds) > 1          # deterministic and hedged
        assert all(v.fields["interface"] == "internal" for v in recs)


@pytest.mark.parametrize("prim_id", IDS)
def test_model_passes_the_acvp_records(prim_id: str) -> None:
    """Every record of the parameter set (keygen, sign, verify); sign records past the first are full-mode
    only where they take many attempts in Python."""
    signs = 0
    for v in records(prim_id):
        f = v.fields
        if f["op"] == "keygen":
            assert model.keygen_internal(prim_id, v.hex("seed")) == (v.hex("pk"), v.hex("sk")), f["where"]
        elif f["op"] == "sign":
            signs += 1
            if signs > 1 and not FULL:
                continue
            assert model.sign_internal(prim_id, v.hex("sk"), v.hex("msg"), v.hex("rnd")) == v.hex("sig"), f["where"]
        else:
            valid = model.verify_internal(prim_id, v.hex("pk"), v.hex("msg"), v.hex("sig"))
            assert valid == (f["valid"] == "True"), f["where"]


@pytest.mark.parametrize("prim_id", IDS)
def test_model_agrees_with_dilithium_py(prim_id: str) -> None:
    """dilithium-py (PyPI) is a second implementation of FIPS 204: the same keys from the same seed, the
    same deterministic signatures under the external interface with a context string, the same hedged
    signatures under the internal one, and each verifies the other's signatures (and refuses them under
    another context)."""
    theirs = THEIRS[prim_id]
    rng = random.Random(f"dilithium-py/{prim_id}")
    for n, ctx_len in cases(prim_id, ((0, 0), (33, 5), (200, 255))):
        seed, msg, ctx = rng.randbytes(32), rng.randbytes(n), rng.randbytes(ctx_len)
        pk, sk = model.keygen_internal(prim_id, seed)
        assert theirs.key_derive(seed) == (pk, sk)
        sig = model.sign(sk, msg, ctx)
        assert theirs.sign(sk, msg, ctx, deterministic=True) == sig
        assert theirs.verify(pk, msg, sig, ctx) and model.verify(pk, msg, sig, ctx)
        other = ctx[:-1] if ctx else b"\x00"             # another context of at most 255 bytes
        assert not model.verify(pk, msg, sig, other) and not theirs.verify(pk, msg, sig, other)
        rnd = rng.randbytes(32)
        mprime = bytes([0, len(ctx)]) + ctx + msg
        hedged = model.sign(sk, msg, ctx, rnd)
        assert theirs._sign_internal(sk, mprime, rnd) == hedged
        assert theirs.verify(pk, msg, hedged, ctx)
    with pytest.raises(ValueError):                       # dilithium-py refuses a context over 255 bytes
        theirs.verify(pk, msg, sig, bytes(256))
    assert not model.verify(pk, msg, sig, bytes(256))     # ours: a context string over 255 bytes is invalid


@pytest.mark.parametrize("prim_id", IDS)
def test_host_c_agrees_with_dilithium_py(prim_id: str) -> None:
    """The portable C on the host: keys, deterministic and hedged signatures with contexts equal to
    dilithium-py's; its signatures verified by dilithium-py and theirs by the C."""
    fw = shared_firmware(prim_id, "ref", "host")
    theirs = THEIRS[prim_id]
    rng = random.Random(f"host-c/{prim_id}")
    for n, ctx_len in cases(prim_id, ((1, 0), (64, 7), (300, 255))):
        seed, msg, ctx, rnd = rng.randbytes(32), rng.randbytes(n), rng.randbytes(ctx_len), rng.randbytes(32)
        pk, sk, _ = DRIVER.keygen(fw, seed)
        assert theirs.key_derive(seed) == (pk, sk)
        sig = DRIVER.sign(fw, sk, msg, ctx, rnd)[0]
        assert theirs._sign_internal(sk, bytes([0, len(ctx)]) + ctx + msg, rnd) == sig
        assert theirs.verify(pk, msg, sig, ctx)
        their_sig = theirs.sign(sk, msg, ctx, deterministic=True)
        assert DRIVER.verify(fw, their_sig, msg, pk, ctx)[0]
        assert not DRIVER.verify(fw, their_sig, msg, pk, ctx[:-1] if ctx else b"\x01")[0]


def test_host_c_deterministic_sign_and_refusals() -> None:
    """rnd NULL is the deterministic variant (32 zero bytes; the harness passes no NULL pointer, so the
    host library is called through ctypes for it); a context string over 255 bytes is refused by sign
    (nothing written) and verify; a wrong-length key or signature is refused."""
    fw = shared_firmware("mldsa44", "ref", "host")
    seed, msg = bytes(range(32)), b"firmware image"
    pk, sk, _ = DRIVER.keygen(fw, seed)
    sig = model.sign(sk, msg)
    assert DRIVER.sign(fw, sk, msg, b"", bytes(32))[0] == sig
    lib = fw.board._lib
    out = ctypes.create_string_buffer(2420)
    symbol = fw.impl.symbol("mldsa44", "sign")
    ret = getattr(lib, symbol)(out, msg, ctypes.c_size_t(len(msg)), sk, None, ctypes.c_size_t(0), None)
    assert ctypes.c_int(ret).value == 0 and out.raw == sig
    long_ctx = bytes(256)
    res = fw.call("sign", {"sig": Buf(size=2420, out=True), "msg": Buf(msg), "msglen": len(msg), "sk": Buf(sk),
                           "ctx": Buf(long_ctx), "ctxlen": 256, "rnd": Buf(bytes(32))})
    assert signature.returned_minus_one(res.return_value) and res.outputs[0] == bytes(2420)
    res = fw.call("verify", {"sig": Buf(sig), "siglen": len(sig), "msg": Buf(msg), "msglen": len(msg),
                             "pk": Buf(pk), "pklen": len(pk), "ctx": Buf(long_ctx), "ctxlen": 256})
    assert signature.returned_minus_one(res.return_value)
    assert not DRIVER.verify(fw, sig, msg, pk[:-1])[0] and not DRIVER.verify(fw, sig[:-1], msg, pk)[0]
    assert DRIVER.verify(fw, sig, msg, pk)[0]


def test_driver_catches_a_wrong_signature() -> None:
    """A board result that differs from the model's is reported (the check can fail)."""
    fw = shared_firmware("mldsa44", "ref", "host")
    vec = next(v for v in records("mldsa44") if v.fields["op"] == "sign")
    bad = dict(vec.fields)
    bad["sig"] = ("%02x" % (int(bad["sig"][:2], 16) ^ 1)) + bad["sig"][2:]
    with pytest.raises(Mismatch):
        DRIVER.check_vector(fw, type(vec)(vec.file, vec.line, bad))


def test_rejection_verdict_policy() -> None:
    """The kind declares public, for every id, rho (pk's first 32 bytes: written by keygen, read from sk's
    first 32 bytes by sign) and, in sign and sign_internal, the rejection verdict; nothing else."""
    for prim_id in IDS:
        policy = signature.PUBLIC_RESULTS_BY_ID[prim_id]
        assert set(policy) == {"keygen", "sign", "sign_internal"}
        assert policy["keygen"].key_bytes == ("pk", 0, 32) and policy["keygen"].per_call == 0
        assert not policy["keygen"].rejection_loop
        for op in ("sign", "sign_internal"):
            assert policy[op].rejection_loop and policy[op].key_bytes == ("sk", 0, 32)


def _fake_result(values: list[int], pk: bytes = b"") -> SimpleNamespace:
    from mcucrypt.boards.base import Declassified
    return SimpleNamespace(declassified=[Declassified(v, ("seed",), 0x100) for v in values], outputs=[pk, b""])


def test_rho_declassification_is_held_to_the_key_bytes() -> None:
    """The checker accepts exactly rho's 8 words (then the verdicts) and refuses anything else first."""
    from mcucrypt import ct
    from mcucrypt.boards.base import Buf
    from mcucrypt.kinds.base import CtCase
    fw = SimpleNamespace(impl=CATALOG.implementation("mldsa44", "ref"), prim_id="mldsa44", target="host",
                         params=CATALOG.implementation("mldsa44", "ref").params("mldsa44"),
                         board=SimpleNamespace(symbol_at=lambda a: "?"))
    pk = bytes(range(32)) + bytes(1280)
    rho = [int.from_bytes(pk[i:i + 4], "little") for i in range(0, 32, 4)]
    keygen = CtCase("keygen", {"pk": Buf(size=1312, out=True), "sk": Buf(size=2560, out=True), "seed": Buf(bytes(32))})
    assert ct._declassification_findings(fw, DRIVER, keygen, _fake_result(rho, pk)) == []
    assert ct._declassification_findings(fw, DRIVER, keygen, _fake_result(rho + [1], pk))     # one more
    assert ct._declassification_findings(fw, DRIVER, keygen, _fake_result(rho[:7] + [0], pk))  # not rho
    sk = pk[:32] + bytes(2528)
    sign = CtCase("sign_internal", {"sig": Buf(size=2420, out=True), "mprime": Buf(b"m"), "mprimelen": 1,
                                    "sk": Buf(sk), "rnd": Buf(bytes(32))})
    assert ct._declassification_findings(fw, DRIVER, sign, _fake_result(rho + [1, 1, 0])) == []
    assert ct._declassification_findings(fw, DRIVER, sign, _fake_result(rho + [1, 5, 0]))      # not a verdict
    assert ct._declassification_findings(fw, DRIVER, sign, _fake_result([1] + rho + [0]))      # rho not first


def test_board_kat_leaves_out_only_the_sign_records_too_long_for_16_kib() -> None:
    """ML-DSA-44's hedged ACVP messages (1.3-2 KB) do not fit beside the signing state in 16 KiB (the E31,
    the ATmega1284P configuration: its stack overflowed by 144 bytes): those boards leave out exactly
    those sign records; the M3 board and the host run them all."""
    impl = CATALOG.implementation("mldsa44", "ref")
    params = impl.params("mldsa44")
    every = DRIVER.vectors(PRIM, "mldsa44")
    long_signs = [v for v in every if v.fields["op"] == "sign" and len(v.fields["msg"]) // 2 > 600]
    assert long_signs
    for target in ("rv32", "avr", "armv7m", "host"):
        fw = SimpleNamespace(impl=impl, prim_id="mldsa44", target=target, params=params)
        kept = DRIVER.kat_vectors(fw)
        signs = [v for v in kept if v.fields["op"] == "sign"]
        if target in ("rv32", "avr"):
            assert signs and all(len(v.fields["msg"]) // 2 <= 600 for v in signs)
            assert len(signs) == sum(v.fields["op"] == "sign" for v in every) - len(long_signs)
        else:
            assert len(signs) == sum(v.fields["op"] == "sign" for v in every)
