"""The constant-time checker on known cases: a constant-time fixture passes, a secret-indexed table
look-up and a secret-dependent branch fail with their classes and the guilty instruction, on every board.
(The UMULL case is in the multiplication tests: cm3-umull must fail with the variable-latency class.)"""
from __future__ import annotations

import pytest

from mcucrypt import ct
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
