# SPDX-License-Identifier: MIT
"""The constant-time checker on known cases: a constant-time fixture passes, a secret-indexed table
look-up and a secret-dependent branch fail with their classes and the guilty instruction, on every board.
(The UMULL case is in the multiplication tests: cm3-umull must fail with the variable-latency class.)"""
from __future__ import annotations

import pytest

from mcucrypt import ct
from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.targets import ROOT

FIXTURES = load_catalog(ROOT / "tests" / "fixtures" / "crypto")


def check(impl: str, target: str) -> ct.CtReport:
    fw = Firmware(FIXTURES.implementation("ctfix", impl), "ctfix", target)
    return ct.check(fw, trials=6)


@pytest.mark.parametrize("target", ["rv32", "armv7m", "avr"])
def test_constant_time_fixture_passes(target: str) -> None:
    report = check("good", target)
    assert report.verdict == "pass", report.summary()


@pytest.mark.parametrize("target", ["rv32", "armv7m", "avr"])
def test_secret_indexed_table_fails(target: str) -> None:
    report = check("table", target)
    assert report.verdict == "fail"
    d = report.divergence
    assert d is not None and d.kind == ct.SECRET_DEPENDENT_ADDRESS, report.summary()
    assert d.op == "encrypt" and "ctfix_table_encrypt" in d.symbol, report.summary()


@pytest.mark.parametrize("target", ["rv32", "armv7m", "avr"])
def test_secret_dependent_branch_fails(target: str) -> None:
    report = check("branch", target)
    assert report.verdict == "fail"
    d = report.divergence
    assert d is not None and d.kind == ct.SECRET_DEPENDENT_BRANCH, report.summary()
    assert d.op == "encrypt" and "ctfix_branch_encrypt" in d.symbol and d.instruction != "?", report.summary()


def test_public_arguments_must_stay_fixed() -> None:
    """Only what META.yml declares secret may vary between draws; otherwise the verdict is meaningless."""
    fw = Firmware(FIXTURES.implementation("ctfix", "good"), "ctfix", "avr")
    first = ct.CtCase("encrypt", {"in": Buf(b"\0" * 16), "rk": Buf(b"\1" * 16), "out": Buf(size=16, out=True)})
    varied_output = ct.CtCase("encrypt", {"in": Buf(b"\2" * 16), "rk": Buf(b"\3" * 16),
                                          "out": Buf(b"\5" * 16, out=True)})
    with pytest.raises(ct.UndeclaredSecret, match="'out'"):
        ct._check_only_secrets_vary(fw, first, varied_output)
    ct._check_only_secrets_vary(fw, first, ct.CtCase("encrypt", {**varied_output.args, "out": first.args["out"]}))
