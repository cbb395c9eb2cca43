# SPDX-License-Identifier: MIT
"""Ed25519 (issue 32) and the signature kind beyond the generic test: the model against RFC 8032 and
Wycheproof and against the `cryptography` package, the implementations against `cryptography` both ways
(theirs signs and ours verifies; ours signs and theirs verifies) on random messages, the malformed
inputs, the driver catching a wrong result, the table generator being current, and `mcucrypt run`.
Every board also refuses one malformed input of each class. Vectors on every board (a sample by
default: board_kat_stride), the differential test against the model and the constant-time check are
the generic test's (tests/test_catalog.py -k ed25519)."""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.exceptions import InvalidSignature

from mcucrypt.boards.base import CallResult
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import shared_firmware
from mcucrypt.kinds import signature
from mcucrypt.kinds.aead import AuthenticationFailed
from mcucrypt.kinds.base import Mismatch, UsageError, driver_for
from mcucrypt.models import ed25519 as model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
PRIM = CATALOG.by_id("ed25519")
DRIVER = signature.DRIVER
FULL = os.environ.get("MCUCRYPT_FULL") == "1"
# (implementation, target) pairs; the boards run few calls (a sign or verify is 1..40 M cycles there)
# The portable C on the boards with MCUCRYPT_FULL=1 only (as tests/test_catalog.py): each board runs its own
# implementation (the same C over the core's field and SHA-512 assembly); the host runs ref.
JOBS = [(name, t) for name, impl in PRIM.implementations.items() for t in impl.targets
        if FULL or t == "host" or name != "ref"]


def theirs_sign(seed: bytes, msg: bytes) -> tuple[bytes, bytes]:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key.public_key().public_bytes_raw(), key.sign(msg)


def theirs_verify(pk: bytes, msg: bytes, sig: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(pk).verify(sig, msg)
        return True
    except InvalidSignature:
        return False


def test_driver_is_registered() -> None:
    assert driver_for("signature") is DRIVER
    assert PRIM.kind == "signature"


def test_model_passes_every_published_vector() -> None:
    """The oracle agrees with RFC 8032's five tests (keygen, sign, verify) and all 151 Wycheproof tests."""
    vectors = DRIVER.vectors(PRIM, "ed25519")
    ops = [v.fields["op"] for v in vectors]
    assert ops.count("keygen") == 5 and ops.count("sign") == 5 and ops.count("verify") == 5 + 151
    for v in vectors:
        f = v.fields
        if f["op"] == "keygen":
            assert model.keygen(v.hex("seed")) == (v.hex("pk"), v.hex("sk")), f["where"]
        elif f["op"] == "sign":
            assert model.sign(v.hex("sk"), v.hex("msg")) == v.hex("sig"), f["where"]
        else:
            assert model.verify(v.hex("pk"), v.hex("msg"), v.hex("sig")) == (f["valid"] == "True"), f["where"]


def test_model_agrees_with_cryptography() -> None:
    rng = random.Random(1)
    for n in (0, 1, 63, 64, 65, 127, 128, 300):
        seed, msg = rng.randbytes(32), rng.randbytes(n)
        pk, sig = theirs_sign(seed, msg)
        assert model.keygen(seed)[0] == pk and model.sign(seed + pk, msg) == sig
        assert model.verify(pk, msg, sig)


def test_malformed_records_are_refused_by_the_model_and_accepted_without_the_checks() -> None:
    """Each malformed record is refused by the model; the small-order ones with R = the identity and S = 0
    would pass [S]B = R + [k]A without the small-order check where [k]A is the identity (A = the identity)."""
    recs = model.malformed()
    assert len(recs) >= 25
    for r in recs:
        assert not model.verify(r["pk"], r["msg"], r["sig"]), r["where"]
    identity = model.encode_point(model.IDENTITY)
    naive = [r for r in recs if r["pk"] == identity and r["sig"][:32] == identity]
    assert naive and all(r["sig"][32:] == bytes(32) for r in naive)
    # S + L: the same scalar mod L, so only the range check refuses it
    s_plus_l = [r for r in recs if r["where"].startswith("S + 1L")]
    assert s_plus_l and int.from_bytes(s_plus_l[0]["sig"][32:], "little") >= model.L


def _random_cases(rng: random.Random, n: int) -> list[tuple[bytes, bytes]]:
    edges = [0, 1, 64, 111, 112, 128, 300]
    return [(rng.randbytes(32), rng.randbytes(edges[i] if i < len(edges) else rng.randint(0, 300)))
            for i in range(n)]


@pytest.mark.parametrize("impl,target", JOBS, ids=[f"{i}-{t}" for i, t in JOBS])
def test_two_way_against_cryptography(impl: str, target: str) -> None:
    """Theirs signs, ours verifies; ours signs, theirs verifies; keygen equal. 40 random messages of
    0..300 bytes on the host; 1 on a board (6 with MCUCRYPT_FULL=1)."""
    fw = shared_firmware("ed25519", impl, target)
    n = 40 if target == "host" else (6 if FULL else 1)
    for seed, msg in _random_cases(random.Random(f"crypto/{impl}/{target}"), n):
        pk, sig = theirs_sign(seed, msg)
        got_pk, got_sk, _ = DRIVER.keygen(fw, seed)
        assert got_pk == pk and got_sk == seed + pk
        assert DRIVER.verify(fw, sig, msg, pk)[0], f"ours refused cryptography's signature of {msg.hex()}"
        ours = DRIVER.sign(fw, seed + pk, msg)[0]
        assert theirs_verify(pk, msg, ours), f"cryptography refused our signature of {msg.hex()}"
        assert ours == sig


def test_host_refuses_every_malformed_input_and_flip() -> None:
    """Every malformed record, every single-bit flip of a valid signature, and truncated or overlong
    signatures: refused by the host build (the boards run a sample in the generic differential test)."""
    fw = shared_firmware("ed25519", "ref", "host")
    for r in model.malformed():
        assert not DRIVER.verify(fw, r["sig"], r["msg"], r["pk"])[0], r["where"]
    seed, msg = bytes(range(32)), b"flip me"
    pk, sk = model.keygen(seed)
    sig = model.sign(sk, msg)
    assert DRIVER.verify(fw, sig, msg, pk)[0]
    for bit in range(512):
        bad = bytearray(sig)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert not DRIVER.verify(fw, bytes(bad), msg, pk)[0], f"bit {bit} flipped accepted"
    for bad in (sig[:-1], b"", sig + b"\x00", sig + bytes(64)):
        assert not DRIVER.verify(fw, bad, msg, pk)[0]


BOARD_JOBS = [(i, t) for i, t in JOBS if t != "host"]
# one malformed record of each class for the boards (each refused before or right after decoding: cheap)
BOARD_MALFORMED = ("small-order public key 0 ", "small-order public key 1 ", "public key y = p (",
                   "public key y = 2", "S + 1L", "S = L", "R = the identity's y + p", "R with y = 2")


@pytest.mark.parametrize("impl,target", BOARD_JOBS, ids=[f"{i}-{t}" for i, t in BOARD_JOBS])
def test_board_refuses_malformed_inputs(impl: str, target: str) -> None:
    """On each board: one record of each malformed class (small-order keys, non-canonical key, S and R
    encodings, points off the curve) and the signature truncated, empty and overlong: refused. All are
    refused before the scalar multiplications, so the calls are cheap; bit flips, which need a whole
    verification each, run on the boards in the generic differential test (board_flips positions) and
    every one of the 512 on the host (above)."""
    fw = shared_firmware("ed25519", impl, target)
    recs = model.malformed()
    for prefix in BOARD_MALFORMED:
        r = next(r for r in recs if r["where"].startswith(prefix))
        assert not DRIVER.verify(fw, r["sig"], r["msg"], r["pk"])[0], r["where"]
    pk, sk = model.keygen(bytes(range(1, 33)))
    msg = b"board truncation"
    sig = model.sign(sk, msg)
    for bad in (sig[:-1], b"", sig + b"\x00"):
        assert not DRIVER.verify(fw, bad, msg, pk)[0], f"{len(bad)}-byte signature accepted"


def test_driver_catches_a_wrong_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    fw = shared_firmware("ed25519", "ref", "host")
    vec = next(v for v in DRIVER.vectors(PRIM, "ed25519") if v.fields["op"] == "sign")
    real = fw.call

    def flip(op: str, named, **kw) -> CallResult:
        res = real(op, named, **kw)
        if op != "sign":
            return res
        out = [bytes([res.outputs[0][0] ^ 1]) + res.outputs[0][1:], *res.outputs[1:]]
        return CallResult(outputs=out, return_value=res.return_value, cycles=res.cycles,
                          instructions=res.instructions, stack_bytes=res.stack_bytes, trace=res.trace)
    monkeypatch.setattr(fw, "call", flip)
    with pytest.raises(Mismatch):
        DRIVER.check_vector(fw, vec)
    with pytest.raises(Mismatch):
        DRIVER.differential(fw, random.Random(0), 1)


def test_board_vector_selection() -> None:
    """On a board outside full mode: the RFC tests whole and every 8th Wycheproof verify test."""
    fw = shared_firmware("ed25519", "ref", "host")
    everything = DRIVER.kat_vectors(fw)

    class Board:     # the selection reads only the target and the parameters
        target, params, impl, prim_id = "avr", fw.params, fw.impl, "ed25519"
    chosen = DRIVER.kat_vectors(Board())   # type: ignore[arg-type]
    if FULL:
        assert chosen == everything
    else:
        assert sum(v.fields["op"] == "sign" for v in chosen) == 5
        assert 20 <= sum(v.fields["op"] == "verify" for v in chosen) <= 30


def test_table_generator_is_current() -> None:
    proc = subprocess.run([sys.executable, "crypto/ed25519/gen_table.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_run_keygen_sign_verify() -> None:
    fw = shared_firmware("ed25519", "ref", "host")
    seed = bytes(range(32))
    pk, sk = model.keygen(seed)
    out, _ = DRIVER.run(fw, argparse.Namespace(key=seed.hex(), input=None, tag=None))
    assert out == pk + sk
    sig, _ = DRIVER.run(fw, argparse.Namespace(key=seed.hex(), input="616263", tag=None))
    assert sig == model.sign(sk, b"abc")
    assert DRIVER.run(fw, argparse.Namespace(key=sk.hex(), input="616263", tag=None))[0] == sig
    assert DRIVER.run(fw, argparse.Namespace(key=pk.hex(), input="616263", tag=sig.hex()))[0] == sig
    with pytest.raises(AuthenticationFailed):
        DRIVER.run(fw, argparse.Namespace(key=pk.hex(), input="616264", tag=sig.hex()))
    for bad in (argparse.Namespace(key="11" * 31, input=None, tag=None),
                argparse.Namespace(key=pk.hex(), input=None, tag=sig.hex()),
                argparse.Namespace(key=seed.hex() + "00", input="61", tag=sig.hex())):
        with pytest.raises(UsageError):
            DRIVER.run(fw, bad)


def test_cli_run() -> None:
    seed = bytes(range(32))
    pk, sk = model.keygen(seed)
    sig = model.sign(sk, b"abc")
    base = [sys.executable, "-m", "mcucrypt.cli", "run", "ed25519", "--target", "host", "--impl", "ref"]
    ok = subprocess.run(base + ["--key", seed.hex(), "--input", "616263", "--json"], cwd=ROOT,
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0 and sig.hex() in ok.stdout, ok.stderr
    bad = subprocess.run(base + ["--key", pk.hex(), "--input", "616264", "--tag", sig.hex()], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
