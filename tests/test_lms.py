# SPDX-License-Identifier: MIT
"""LMS / HSS verification (issue 31) beyond the generic signature test (tests/test_catalog.py runs the
kind's vectors, differential, flips, truncation and malformed inputs on the `lms` ids' H10 sets):
the model against the official vectors and against pyhsslms (PyPI) both ways for every LM-OTS type, the
C verifier on the host for every parameter family (16 LM-OTS types x 5 heights, HSS with two levels of
different types), refusals of every kind of malformed input without a crash, and a representative subset
on each board (the full set under MCUCRYPT_FULL=1)."""
from __future__ import annotations

import argparse
import os
import random

import pytest
import pyhsslms

from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware
from mcucrypt.kinds import signature
from mcucrypt.kinds.aead import AuthenticationFailed
from mcucrypt.kinds.base import UsageError
from mcucrypt.models import lms as model

CATALOG = load_catalog()
PRIM = CATALOG.by_id("lms")
DRIVER = signature.DRIVER
FULL = os.environ.get("MCUCRYPT_FULL") == "1"
HEIGHTS = (5, 10, 15, 20, 25) if FULL else (5, 25)      # the path length; the others under MCUCRYPT_FULL=1
BOARD_IMPLS = {"rv32": "rv32-fast", "armv7m": "armv7m-fast", "avr": "avr-fast"}


def lms_name(ots: model.OtsParams, h: int) -> str:
    return ots.name.replace("LMOTS", "LMS").replace("_N", "_M").rsplit("_W", 1)[0] + f"_H{h}"


def signed(sets: list[tuple[str, str]], seed: bytes, msg: bytes) -> tuple[bytes, bytes]:
    """(pk, sig) of a one-leaf key of these levels over msg (the model's test signer)."""
    pk, sk = model.keygen(seed, {"params": sets})
    return pk, model.sign(sk, msg)


def c_verify(fw, pk: bytes, msg: bytes, sig: bytes) -> bool:
    return DRIVER.verify(fw, sig, msg, pk)[0]      # raises Mismatch on a return other than 0 / -1


# ---- the model -------------------------------------------------------------------------------------

def test_parameter_tables_match_the_standards() -> None:
    """Appendix B's formulas against RFC 8554's Table 1 / SP 800-208's table (p, ls, signature bytes)."""
    table = {"LMOTS_SHA256_N32_W1": (265, 7, 8516), "LMOTS_SHA256_N32_W2": (133, 6, 4292),
             "LMOTS_SHA256_N32_W4": (67, 4, 2180), "LMOTS_SHA256_N32_W8": (34, 0, 1124),
             "LMOTS_SHA256_N24_W1": (200, 8, 4828), "LMOTS_SHA256_N24_W8": (26, 0, 652),
             "LMOTS_SHAKE_N32_W4": (67, 4, 2180), "LMOTS_SHAKE_N24_W2": (101, 6, 2452)}
    for name, (p, ls, size) in table.items():
        o = model.OTS_BY_NAME[name]
        assert (o.p, o.ls, o.sig_bytes) == (p, ls, size), name
    assert model.LMS_BY_NAME["LMS_SHAKE_M24_H25"].typecode == 24
    assert model.OTS_BY_NAME["LMOTS_SHAKE_N24_W8"].typecode == 16


def test_model_passes_the_official_vectors() -> None:
    vectors = DRIVER.vectors(PRIM, "lms")
    assert len(vectors) == 4 and sum(v.fields["valid"] == "True" for v in vectors) == 3
    for v in vectors:
        ok = model.verify(v.hex("pk"), v.hex("msg"), v.hex("sig"))
        assert ok == (v.fields["valid"] == "True"), v.fields["where"]


@pytest.mark.parametrize("ots_type", sorted(model.OTS))
def test_model_and_pyhsslms_agree_both_ways(ots_type: int) -> None:
    """Every LM-OTS type (H5, matching hash): pyhsslms verifies the model's signatures and refuses a changed
    message; the model verifies pyhsslms's (its signing for W1..W4, and W8 under MCUCRYPT_FULL=1: a full
    H5 W8 tree is 280 k hashes in pure Python)."""
    ots = model.OTS[ots_type]
    sets = [(lms_name(ots, 5), ots.name)]
    msg = b"the model signs, pyhsslms verifies"
    pk, sig = signed(sets, b"pyhsslms %d" % ots_type, msg)
    theirs = pyhsslms.HssPublicKey.deserialize(pk)
    assert theirs.verify(msg, sig)
    assert not theirs.verify(msg + b"!", sig)
    if ots.w == 8 and not FULL:
        return
    lms_type = model.LMS_BY_NAME[sets[0][0]].typecode.to_bytes(4, "big")
    sk = pyhsslms.HssPrivateKey(levels=1, lms_type=lms_type, lmots_type=ots_type.to_bytes(4, "big"))
    their_sig = sk.sign(msg)
    assert model.verify(sk.publicKey().serialize(), msg, their_sig)
    assert not model.verify(sk.publicKey().serialize(), msg + b"!", their_sig)


# ---- the C verifier on the host: every family ------------------------------------------------------

@pytest.fixture(scope="module")
def host_fw():
    return shared_firmware("lms", "ref", "host")


@pytest.mark.parametrize("ots_type", sorted(model.OTS))
def test_host_every_family(host_fw, ots_type: int) -> None:
    """Each LM-OTS type at heights 5 and 25 of its hash (all five under MCUCRYPT_FULL=1; one-leaf keys, so
    H25 costs no more than H5), on random messages: accepted; a changed message, a flipped byte in each
    part of the signature, a truncated and an overlong signature refused."""
    ots = model.OTS[ots_type]
    rng = random.Random(f"lms-host/{ots_type}")
    for h in HEIGHTS:
        sets = [(lms_name(ots, h), ots.name)]
        msg = rng.randbytes(rng.randint(0, 300))
        pk, sig = signed(sets, rng.randbytes(32), msg)
        assert model.verify(pk, msg, sig)
        assert c_verify(host_fw, pk, msg, sig), sets
        bad_msg = bytes([msg[0] ^ 0x80]) + msg[1:] if msg else b"\0"
        assert not c_verify(host_fw, pk, bad_msg, sig)
        n, at_path = ots.n, 8 + ots.sig_bytes + 4
        # Nspk, q, LM-OTS type, C, the first and last y, LMS type, the first and last path node
        for pos in (0, 4, 8, 12, 12 + n, 12 + n + ots.p * n - 1, at_path - 1, at_path, len(sig) - 1):
            bad = bytearray(sig)
            bad[pos] ^= 1 << rng.randrange(8)
            assert not c_verify(host_fw, pk, msg, bytes(bad)), (sets, pos)
        for bad in (sig[:-1], sig + b"\0", sig[:at_path], b""):
            assert not c_verify(host_fw, pk, msg, bad)


def test_host_two_levels_of_different_types(host_fw) -> None:
    """HSS with L = 2 whose levels differ in hash, width and height: accepted; a change in the signed child
    key (inside the signature) refused."""
    rng = random.Random("lms-host/hss")
    pairs = [[("LMS_SHA256_M32_H10", "LMOTS_SHA256_N32_W4"), ("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W8")],
             [("LMS_SHAKE_M24_H25", "LMOTS_SHAKE_N24_W2"), ("LMS_SHA256_M24_H15", "LMOTS_SHA256_N24_W1")],
             [("LMS_SHA256_M24_H5", "LMOTS_SHA256_N24_W8"), ("LMS_SHAKE_M32_H20", "LMOTS_SHAKE_N32_W4")]]
    for sets in pairs:
        msg = rng.randbytes(100)
        pk, sig = signed(sets, rng.randbytes(32), msg)
        assert model.verify(pk, msg, sig) and c_verify(host_fw, pk, msg, sig), sets
        first = model.LMS_BY_NAME[sets[0][0]]
        child_at = 4 + 4 + model.OTS_BY_NAME[sets[0][1]].sig_bytes + 4 + first.h * first.m
        for pos in (child_at, child_at + 8, child_at + 24):     # its LMS type, I, T1
            bad = bytearray(sig)
            bad[pos] ^= 1
            assert not c_verify(host_fw, pk, msg, bytes(bad)), (sets, pos)


def test_host_refuses_every_malformed_input(host_fw) -> None:
    records = model.malformed()
    assert len(records) > 15
    for rec in records:
        assert not model.verify(rec["pk"], rec["msg"], rec["sig"]), rec["where"]
        assert not c_verify(host_fw, rec["pk"], rec["msg"], rec["sig"]), rec["where"]


def test_host_refuses_random_garbage(host_fw) -> None:
    """Random type codes and lengths around the valid ones: never accepted, never a crash (the host build
    runs under the sanitizers in tests/test_catalog.py's host jobs; here every call must return 0 / -1)."""
    rng = random.Random("lms-garbage")
    pk, sig = signed([("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W2")], b"garbage", b"m")
    for _ in range(200):
        s = bytearray(sig[:rng.randint(0, len(sig) + 40)].ljust(rng.randint(0, len(sig) + 40), b"\0"))
        for _ in range(rng.randint(1, 4)):
            if s:
                s[rng.randrange(min(len(s), 16))] = rng.randrange(256)
        p = bytearray(pk)
        p[rng.randrange(12)] = rng.randrange(256)
        assert not c_verify(host_fw, bytes(p), b"m", bytes(s)) or model.verify(bytes(p), b"m", bytes(s))


def test_run_verifies_keys_of_every_length(host_fw) -> None:
    """`mcucrypt run --key PK --input MSG --tag SIG` takes an n = 24 key (52 bytes, under pk_bytes 60) as well
    as an n = 32 one; a changed message is AuthenticationFailed, a key over pk_bytes a usage error."""
    for sets in ([("LMS_SHA256_M24_H5", "LMOTS_SHA256_N24_W4")], [("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W4")]):
        pk, sig = signed(sets, b"run", b"abc")
        assert DRIVER.run(host_fw, argparse.Namespace(key=pk.hex(), input="616263", tag=sig.hex()))[0] == sig
        with pytest.raises(AuthenticationFailed):
            DRIVER.run(host_fw, argparse.Namespace(key=pk.hex(), input="616264", tag=sig.hex()))
    with pytest.raises(UsageError):
        DRIVER.run(host_fw, argparse.Namespace(key="00" * 61, input="61", tag=sig.hex()))
    with pytest.raises(UsageError):                 # verify-only: no keygen, no sign
        DRIVER.run(host_fw, argparse.Namespace(key="00" * 32, input="61", tag=None))


# ---- the boards: a representative subset ------------------------------------------------------------

BOARD_SETS = [
    [("LMS_SHA256_M24_H5", "LMOTS_SHA256_N24_W4")],                  # SHA-256/192
    [("LMS_SHAKE_M32_H5", "LMOTS_SHAKE_N32_W1")],                    # SHAKE256, n = 32
    [("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W2"), ("LMS_SHAKE_M24_H5", "LMOTS_SHAKE_N24_W1")],   # HSS L = 2
]


@pytest.mark.parametrize("target", sorted(BOARD_IMPLS))
def test_board_subset(target: str) -> None:
    """On each board (its fast implementation): SHA-256/192, SHAKE256 and a two-level HSS accepted, with one
    flip and a truncation refused. AVR keeps the SHAKE sets for MCUCRYPT_FULL=1 (Keccak in C there) and
    runs SHA-256 instead. The RFC and ACVP vectors and the H10 sets run in the generic test."""
    fw = shared_firmware("lms", BOARD_IMPLS[target], target)
    rng = random.Random(f"lms-board/{target}")
    sets_list = BOARD_SETS if target != "avr" or FULL else [BOARD_SETS[0], [("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W8")]]
    for sets in sets_list:
        msg = rng.randbytes(rng.randint(0, 80))
        pk, sig = signed(sets, rng.randbytes(32), msg)
        assert c_verify(fw, pk, msg, sig), sets
        bad = bytearray(sig)
        bad[rng.randrange(len(sig))] ^= 1
        assert not c_verify(fw, pk, msg, bytes(bad)), sets
        assert not c_verify(fw, pk, msg, sig[:-1])


def test_every_vector_on_the_atmega1284p() -> None:
    """The ATmega128 cannot hold RFC 8554 Test Case 2 (3,860-byte signature) as RAM buffers, so the generic
    test leaves it out there (board_max_sig_bytes); every official vector runs here on the 1284P (16 KiB)."""
    fw128 = shared_firmware("lms", "avr-fast", "avr")
    left_out = {v.fields["where"] for v in DRIVER.vectors(PRIM, "lms")} - {v.fields["where"] for v in DRIVER.kat_vectors(fw128)}
    assert left_out == {"rfc8554.txt RFC 8554 Test Case 2"}
    fw = Firmware(CATALOG.implementation("lms", "avr-fast"), "lms", "avr", core="atmega1284p")
    assert DRIVER.check_vectors(fw, DRIVER.vectors(PRIM, "lms")) == 4


def test_signature_bytes_of_params_is_the_model_s():
    """The bootloader table's signature size of each id (META.yml signature_bytes_of_params) is the HSS
    signature of the id's own parameter sets."""
    from mcucrypt.models import lms as lms_model
    prim = load_catalog().by_id("lms")
    for prim_id, params in prim.instances.items():
        sets = [tuple(s) for s in params["params"]]
        assert params["signature_bytes_of_params"] == lms_model.hss_sig_bytes(sets), prim_id
