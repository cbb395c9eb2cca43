# SPDX-License-Identifier: MIT
"""ML-KEM (FIPS 203, crypto/mlkem): the model against NIST's ACVP vectors and against kyber-py (a second,
independent oracle), the kind driver's refusals, and `mcucrypt run`. The implementations' vectors,
differential test and constant-time check on every board are tests/test_catalog.py's generic ones."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds import kem
from mcucrypt.models import mlkem as model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
PRIM = CATALOG.by_id("mlkem768")
IDS = ("mlkem512", "mlkem768", "mlkem1024")
FULL = os.environ.get("MCUCRYPT_FULL", "") not in ("", "0")


def test_instances_match_the_model():
    for pid in IDS:
        p, m = PRIM.instances[pid], model.PARAMS[pid]
        assert (p["ek_bytes"], p["dk_bytes"], p["ct_bytes"]) == (m["ek_bytes"], m["dk_bytes"], m["ct_bytes"])


@pytest.mark.parametrize("pid", IDS)
def test_model_passes_acvp(pid):
    vectors = kem.DRIVER.vectors(PRIM, pid)
    ops = {v.fields["Op"] for v in vectors}
    assert ops == {"keygen", "encaps", "decaps"}
    assert any(v.fields.get("Reason") == "modify ciphertext" for v in vectors)
    for v in vectors:
        op = v.fields["Op"]
        if op == "keygen":
            assert model.keygen(pid, v.hex("D"), v.hex("Z")) == (v.hex("EK"), v.hex("DK")), v.fields["TcId"]
        elif op == "encaps":
            assert model.encaps(pid, v.hex("EK"), v.hex("M")) == (v.hex("K"), v.hex("C")), v.fields["TcId"]
            assert model.decaps(pid, v.hex("DK"), v.hex("C")) == v.hex("K")
        else:
            assert model.decaps(pid, v.hex("DK"), v.hex("C")) == v.hex("K"), v.fields["TcId"]


def test_vector_files_are_small_and_name_their_source():
    readme = (PRIM.directory / "vectors" / "README.md").read_text()
    assert readme.startswith("# Source:") and "usnistgov/ACVP-Server" in readme
    for path in PRIM.vectors:
        assert path.stat().st_size < 1 << 20
        assert json.loads(path.read_text())["algorithm"] == "ML-KEM"


@pytest.mark.parametrize("pid", IDS)
def test_model_against_kyber_py(pid):
    """kyber-py (PyPI), a second implementation of FIPS 203, on random seeds and modified ciphertexts."""
    from kyber_py import ml_kem     # a test dependency (pyproject.toml)
    other = {"mlkem512": ml_kem.ML_KEM_512, "mlkem768": ml_kem.ML_KEM_768, "mlkem1024": ml_kem.ML_KEM_1024}[pid]
    rng = random.Random(f"kyber-py/{pid}")
    for _ in range(3):
        d, z, m = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
        ek, dk = model.keygen(pid, d, z)
        assert (ek, dk) == other._keygen_internal(d, z)
        key, ct = model.encaps(pid, ek, m)
        assert (key, ct) == other._encaps_internal(ek, m)
        bad = bytearray(ct)
        bad[rng.randrange(len(ct))] ^= 1 << rng.randrange(8)
        assert model.decaps(pid, dk, bytes(bad)) == other._decaps_internal(dk, bytes(bad))
        assert model.decaps(pid, dk, ct) == key


def test_model_input_checks():
    pid = "mlkem512"
    ek, dk = model.keygen(pid, bytes(32), bytes(range(32)))
    bad_ek = bytearray(ek)
    bad_ek[0], bad_ek[1] = 0x01, (bad_ek[1] & 0xF0) | 0x0D         # first coefficient 0xD01 = 3329 = q
    with pytest.raises(ValueError, match="7.2"):
        model.encaps(pid, bytes(bad_ek), bytes(32))
    with pytest.raises(ValueError, match="7.2"):
        model.encaps(pid, ek[:-1], bytes(32))
    bad_dk = bytearray(dk)
    bad_dk[768 * 2 + 40] ^= 1                                       # a byte of h
    with pytest.raises(ValueError, match="7.3"):
        model.decaps(pid, bytes(bad_dk), bytes(768))
    with pytest.raises(ValueError, match="7.3"):
        model.decaps(pid, dk, bytes(767))


# -- the implementation through the driver: refusals are caught ----------------------------------------

@pytest.fixture(scope="module")
def host512() -> Firmware:
    return Firmware(CATALOG.implementation("mlkem512", "ref"), "mlkem512", "host")


def test_driver_catches_a_wrong_verdict(host512, force_verdict):
    rng = random.Random("verdict")
    force_verdict(host512, 0xFFFFFFFF, ops=("decaps",))
    with pytest.raises(kem.Mismatch, match="decaps returned -1"):
        kem.DRIVER.differential(host512, rng, 1)


def test_driver_catches_an_accepted_malformed_ek(host512, force_verdict):
    force_verdict(host512, 0, ops=("encaps",))
    with pytest.raises(kem.Mismatch, match="modulus check"):
        kem.DRIVER.differential(host512, random.Random("ek"), 1)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_cli_run_round_trip_and_refusals():
    seeds = bytes(range(64))
    ek, dk = model.keygen("mlkem512", seeds[:32], seeds[32:])
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", seeds.hex(), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["output"] == (ek + dk).hex()
    m = bytes(32)
    key, ct = model.encaps("mlkem512", ek, m)
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", ek.hex(), "--input", m.hex(), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["output"] == (ct + key).hex()
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", dk.hex(), "--input", ct.hex(),
                "--decrypt", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["output"] == key.hex()
    bad_ek = bytearray(ek)
    bad_ek[0], bad_ek[1] = 0xFF, bad_ek[1] | 0x0F
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", bad_ek.hex(), "--input", m.hex())
    assert proc.returncode == 2 and "modulus check" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    bad_dk = bytearray(dk)
    bad_dk[-40] ^= 1
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", bad_dk.hex(), "--input", ct.hex(),
                "--decrypt")
    assert proc.returncode == 2 and "hash check" in proc.stderr
    proc = _run("mlkem512", "--target", "host", "--impl", "ref", "--key", ek[:-1].hex(), "--input", m.hex())
    assert proc.returncode == 2 and "expected 800 bytes" in proc.stderr


# -- the constant-time checker catches ML-KEM's two known leak classes (tests/fixtures/crypto/ctkem) ------

FIXTURES = load_catalog(ROOT / "tests" / "fixtures" / "crypto")
# implementation -> {board: (finding kind, where: a symbol part)}
CT_LEAKS = {
    # KyberSlash: a secret coefficient divided by q (E31 DIVU, Cortex-M3 UDIV, avr-gcc's libgcc loop)
    "kyberslash": {"rv32": ("variable-latency", "kyberslash_decaps"), "armv7m": ("variable-latency", "kyberslash_decaps"),
                   "avr": ("branch", "__udivmodsi4")},
    # a branch the compiler made from a branch-free select in the message decoding
    "msg-branch": dict.fromkeys(("rv32", "armv7m", "avr"), ("branch", "msg_branch_decaps")),
}


@pytest.mark.parametrize("target", ["rv32", "armv7m", "avr"])
def test_taint_catches_kyberslash_and_a_compiler_made_branch(target):
    from mcucrypt import ct
    for impl, expected in CT_LEAKS.items():
        kind, where = expected[target]
        report = ct.check(Firmware(FIXTURES.implementation("mlkem512", impl), "mlkem512", target), mode="taint", seed=1)
        assert report.verdict == "fail", report.summary()
        hits = [f for f in report.findings if f.kind == kind and where in f.symbol and f.op == "decaps"]
        assert hits and hits[0].secrets == ["dk"], report.summary()
    good = ct.check(Firmware(FIXTURES.implementation("mlkem512", "good"), "mlkem512", target), mode="taint", seed=1)
    assert good.verdict == "pass" and not good.findings, good.summary()
