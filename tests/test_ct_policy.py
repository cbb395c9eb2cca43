# SPDX-License-Identifier: MIT
"""Issue 33 items 3 and 4: the checker keeps declassification and coverage under its control.

Declassification: the AEAD kind makes only decryption's accept/reject verdict public (one value per
call, a function of the outcome). Fixtures misusing mcu_declassify (tests/fixtures/crypto/ctaead: a key
byte riding along with the verdict, every tag byte, a key byte in encryption) are caught on each board
on the first run, with their class; META.yml cannot drop one of the kind's secrets or declare a function
the kind's cases never run. Coverage: `ct --json` reports the own instructions the secret runs executed;
code left unexecuted is named by function, and documented by META.yml's ct_unreached."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from mcucrypt import ct
from mcucrypt.catalog import CatalogError, load_catalog
from mcucrypt.coverage import own_instructions
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.targets import ROOT

FIXTURE_DIR = ROOT / "tests" / "fixtures" / "crypto"
FIXTURES = load_catalog(FIXTURE_DIR)
BOARDS = ["rv32", "armv7m", "avr"]

# implementation -> (the op the leak is in, what the finding's detail must say)
DECLASSIFY_LEAKS = {
    "declassify-key-verdict": ("aead_decrypt", "depend on the secrets"),
    "declassify-tag": ("aead_decrypt", f"declassified {8 + 1} secret values in one call"),
    "declassify-key": ("aead_encrypt", "its standard makes no value public"),
}


def firmware(impl: str, target: str) -> Firmware:
    return Firmware(FIXTURES.implementation("ctaead", impl), "ctaead", target)


@pytest.mark.parametrize("target", BOARDS)
def test_declassification_outside_the_policy_is_caught(target: str) -> None:
    for impl, (op, detail) in DECLASSIFY_LEAKS.items():
        report = ct.check(firmware(impl, target), mode="taint", seed=3)
        assert report.verdict == "fail", report.summary()
        hits = [f for f in report.findings if f.kind == ct.TAINT_DECLASSIFY]
        assert len(hits) == 1 and hits[0].cls == ct.SECRET_DECLASSIFIED and hits[0].op == op, report.summary()
        assert detail in hits[0].detail, report.summary()
        assert f"_{impl.replace('-', '_')}_{op}" in hits[0].symbol, report.summary()    # the call site
        assert "k" in hits[0].secrets, report.summary()


@pytest.mark.parametrize("target", BOARDS)
def test_the_verdict_alone_passes(target: str) -> None:
    """The constant-time fixture declassifies its verdict in aead_decrypt: no finding, and the policy's
    re-runs (all-zero and all-one secrets) happened."""
    report = ct.check(firmware("declassified", target), mode="taint", seed=4)
    cases = len(driver_for("aead").ct_cases(firmware("declassified", target), ct.SecretRandom(4, 0), 4))
    assert report.verdict == "pass" and not report.findings, report.summary()
    assert report.calls == cases + 2 * len(ct.POLICY_TRIALS), report.summary()   # accept and reject, twice


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder for a catalog under the repository (the catalog names its files relative to it)."""
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "build", prefix="test-ct-policy-") as d:
        yield Path(d)


def _catalog_with(folder: Path, edit) -> Path:
    shutil.copytree(FIXTURE_DIR / "ctaead", folder / "ctaead")
    meta = folder / "ctaead" / "META.yml"
    meta.write_text(edit(meta.read_text()))
    return folder


def test_the_catalog_refuses_dropping_a_kind_secret(scratch: Path) -> None:
    crypto = _catalog_with(scratch, lambda t: t.replace("  aead_decrypt: [c, k]\n", "  aead_decrypt: [c]\n"))
    with pytest.raises(CatalogError, match=r"aead_decrypt.* leave out k, secret in every aead implementation"):
        load_catalog(crypto)


def test_an_implementation_cannot_empty_the_secret_list(scratch: Path) -> None:
    """An implementation's own list only adds: an empty one leaves the kind's secrets in force."""
    line = "    defines: [CTAEAD_EARLY_EXIT=0]\n"
    crypto = _catalog_with(scratch, lambda t: t.replace(line, line + "    secret: {aead_decrypt: []}\n", 1))
    impl = load_catalog(crypto).implementation("ctaead", "declassified")
    assert impl.secret == {"aead_decrypt": ()} and set(impl.secret_params("aead_decrypt")) == {"c", "k"}


def test_the_catalog_refuses_a_function_the_checker_never_runs(scratch: Path) -> None:
    extra = ("    functions:\n      leak: \"int mcu_{id}_{impl}_leak(const unsigned char *k)\"\n"
             "    secret: {leak: [k]}\n")
    crypto = _catalog_with(scratch, lambda t: t.replace("    defines: [CTAEAD_EARLY_EXIT=0]\n",
                                                         "    defines: [CTAEAD_EARLY_EXIT=0]\n" + extra, 1))
    with pytest.raises(CatalogError, match=r"function 'leak' is never run by the constant-time cases"):
        load_catalog(crypto)


def test_unchecked_exported_op_is_refused_at_check_time() -> None:
    """An op the kind knows but whose case the driver skips (here: a driver told nothing runs) is an
    UncheckedFunction, not a pass."""
    fw = firmware("declassified", "rv32")
    with pytest.raises(ct.UncheckedFunction, match="never run aead_decrypt"):
        ct._check_every_op_runs(fw, driver_for("aead"), [c for c in driver_for("aead").ct_cases(
            fw, ct.SecretRandom(1, 0), 1) if c.op != "aead_decrypt"])


@pytest.mark.parametrize("target", BOARDS)
def test_coverage_names_unreached_code_and_its_reason(target: str) -> None:
    """dead-path has a branch on a public length no case reaches: reported with its function; the same
    code with META.yml's ct_unreached note is documented. The constant-time fixture's own functions
    are covered except, on AVR, the short-ciphertext rejection (undocumented: the fixture has no note)."""
    bare = ct.check(firmware("dead-path", target), mode="taint", seed=5).coverage
    noted = ct.check(firmware("dead-path-noted", target), mode="taint", seed=5).coverage
    assert bare is not None and noted is not None
    assert bare.instructions > bare.executed > 0 and 0 < bare.fraction < 1
    assert any(u.function == "mcu_ctaead_dead_path_aead_encrypt" and u.instructions >= 3
               for u in bare.undocumented()), bare.summary()
    assert not noted.undocumented() and noted.unreached, noted.summary()
    assert all("public length" in (u.reason or "") for u in noted.unreached)


def test_unreached_keys_hold_for_the_ids_and_boards_they_name(scratch: Path) -> None:
    """A ct_unreached key ``symbol@target`` holds on that board only, ``symbol@a,b`` for each id or board
    listed; a key naming only another id or board does not apply."""
    key = "      mcu_{id}_{impl}_"

    def edit(text: str) -> str:
        return (text.replace(f"{key}aead_encrypt: ", f"{key}aead_encrypt@armv7m: ")
                    .replace(f"{key}aead_decrypt: ", f"{key}wipe@otherid,avr: a note for the AVR only\n"
                                                     f"{key}aead_decrypt@otherid,ctaead: "))
    impl = load_catalog(_catalog_with(scratch, edit)).implementation("ctaead", "dead-path-noted")
    enc, dec, wipe = (f"mcu_ctaead_dead_path_noted_{op}" for op in ("aead_encrypt", "aead_decrypt", "wipe"))
    for target in BOARDS:
        notes = ct.unreached_notes(Firmware(impl, "ctaead", target))
        assert (enc in notes) == (target == "armv7m") and dec in notes, (target, notes)
        assert (wipe in notes) == (target == "avr"), (target, notes)


def test_own_instructions_leave_out_the_board_and_libgcc() -> None:
    fw = firmware("declassified", "armv7m")
    functions = set(own_instructions(fw.image, fw.impl.sources).values())
    assert "mcu_ctaead_declassified_aead_decrypt" in functions
    assert not functions & {"mcu_declassify", "mcu_wipe", "_start", "memcpy", "memset"}, functions


def test_ct_json_reports_coverage() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "ct", "aes128", "--impl", "avr-table",
                           "--target", "avr", "--seed", "1", "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cov = json.loads(proc.stdout)["coverage"]
    assert cov["instructions"] > 0 and cov["executed"] == cov["instructions"] and cov["fraction"] == 1.0
    assert cov["unreached"] == []
    fixture = ct.check(firmware("dead-path", "rv32"), seed=1).to_json()["coverage"]
    assert fixture["instructions"] > fixture["executed"] > 0 and 0 < fixture["fraction"] < 1
    assert fixture["unreached"][0]["function"] == "mcu_ctaead_dead_path_aead_encrypt"
    assert fixture["unreached"][0]["reason"] is None
