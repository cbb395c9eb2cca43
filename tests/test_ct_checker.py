# SPDX-License-Identifier: MIT
"""The constant-time checker on known cases.

Taint mode (every board must support it): each leak fixture of issue 13 is caught on the first run,
with its class, its function and the secret parameter it came from; the constant-time fixtures pass;
the engines' precision rules (zeroing idioms, public loop counters, carries, memory round trips,
declassification) hold on hand-written snippets. Trace mode (the second mode): the fixtures it can see
fail with their classes; only declared secrets may vary between draws."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcucrypt import ct
from mcucrypt.boards import make_board
from mcucrypt.boards.base import (TAINT_ADDRESS, TAINT_BRANCH, TAINT_VARIABLE_LATENCY, Buf, Int,
                                  TaintSpec)
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.targets import ROOT

FIXTURES = load_catalog(ROOT / "tests" / "fixtures" / "crypto")
BOARDS = ["rv32", "armv7m", "avr"]

# (primitive, implementation) -> (op, {target: expected finding kind or None}, secret parameters named)
LEAKS = {
    ("ctfix", "table"): ("encrypt", dict.fromkeys(BOARDS, TAINT_ADDRESS), {"in", "rk"}),
    ("ctfix", "branch"): ("encrypt", dict.fromkeys(BOARDS, TAINT_BRANCH), {"in", "rk"}),
    ("ctfix", "key-lt"): ("keyschedule", dict.fromkeys(BOARDS, TAINT_BRANCH), {"key"}),
    ("ctfix", "key-eq"): ("keyschedule", dict.fromkeys(BOARDS, TAINT_BRANCH), {"key"}),
    # E31 DIVU and Cortex-M3 UDIV are operand-dependent; AVR has no divider: libgcc's loop branches
    ("ctfix", "div"): ("encrypt", {"rv32": TAINT_VARIABLE_LATENCY, "armv7m": TAINT_VARIABLE_LATENCY,
                                   "avr": TAINT_BRANCH}, {"in", "rk"}),
    # the E31's multiplier is fixed-latency (no finding); the Cortex-M3's UMULL is not
    ("ctfix", "umull"): ("encrypt", {"rv32": None, "armv7m": TAINT_VARIABLE_LATENCY}, {"in", "rk"}),
    ("ctaead", "early-exit"): ("aead_decrypt", dict.fromkeys(BOARDS, TAINT_BRANCH), {"c", "k"}),
}
CLEAN = [("ctfix", "good"), ("ctaead", "declassified")]


def firmware(prim: str, impl: str, target: str) -> Firmware:
    fw = Firmware(FIXTURES.implementation(prim, impl), prim, target)
    assert fw.board.supports_taint, f"the {target} board must support taint tracking (issue 13)"
    return fw


@pytest.mark.parametrize("target", BOARDS)
def test_taint_catches_every_leak_fixture_on_the_first_run(target: str) -> None:
    for (prim, impl), (op, expected, secrets) in LEAKS.items():
        if target not in expected:
            continue
        report = ct.check(firmware(prim, impl, target), mode="taint", seed=1)
        assert report.mode == "taint" and report.calls > 0
        found = [f for f in report.findings if f.op == op]
        kind = expected[target]
        if kind is None:
            assert not report.findings, report.summary()
            continue
        hits = [f for f in found if f.kind == kind]
        assert hits, f"{impl}: expected a {kind} finding in {op}\n{report.summary()}"
        # where: the fixture's function, except AVR's division, which branches inside libgcc's loop
        where = "__udivmod" if (impl, target) == ("div", "avr") else f"_{impl.replace('-', '_')}_{op}"
        assert any(where in f.symbol for f in hits), report.summary()
        assert set(hits[0].secrets) <= secrets and hits[0].secrets, report.summary()
        assert hits[0].instruction not in ("", "?")
        # a strict claim would fail; the table fixture declares its secret-indexed look-up
        assert report.verdict == ("pass" if kind == TAINT_ADDRESS else "fail"), report.summary()


@pytest.mark.parametrize("target", BOARDS)
def test_taint_passes_constant_time_fixtures(target: str) -> None:
    for prim, impl in CLEAN:
        report = ct.check(firmware(prim, impl, target), mode="taint", seed=2)
        assert report.verdict == "pass" and not report.findings, report.summary()


def _snippets(target: str) -> tuple[Path, dict[str, set[str]]]:
    source = ROOT / "tests" / "fixtures" / target / "taint.S"
    marker = "#" if target == "rv32" else "@"
    expected = {m.group(1): set(m.group(2).split())
                for m in re.finditer(rf"^{marker} taint: (\w+)(.*)$", source.read_text(), re.M)}
    return source, expected


@pytest.mark.parametrize("target", ["rv32", "armv7m"])
def test_taint_engine_precision(target: str) -> None:
    source, expected = _snippets(target)
    image = build(target, [source], name=f"test-taint-{target}", keep=list(expected),
                  isa="rv32imac_zbb" if target == "rv32" else None)
    board = make_board(target)
    if target == "rv32":
        board.load(image.path, isa="rv32imac_zbb")  # type: ignore[call-arg]
    else:
        board.load(image.path)
    secret = (0x1234_5675).to_bytes(4, "little")
    for name, kinds in expected.items():
        plain = board.call(name, [Buf(secret, out=True), Int(7, 4)])
        spec = TaintSpec({1: "s"} if name == "t_scalar" else {0: "s"})    # t_scalar: a secret scalar
        res = board.call(name, [Buf(secret, out=True), Int(7, 4)], taint=spec)
        assert (res.cycles, res.outputs) == (plain.cycles, plain.outputs), f"{name}: tracking changed the run"
        got = {f.kind for f in res.taint or []}
        assert got == kinds, f"{name}: expected {sorted(kinds)}, got {res.taint}"
        assert all(f.labels == ("s",) for f in res.taint or [])


# ---------------------------------------------------------------------------------------------------
# Trace mode

def trace(impl: str, target: str, prim: str = "ctfix") -> ct.CtReport:
    fw = Firmware(FIXTURES.implementation(prim, impl), prim, target)
    return ct.check(fw, trials=8, seed=3, mode="trace")


@pytest.mark.parametrize("target", BOARDS)
def test_trace_mode_classes(target: str) -> None:
    assert trace("good", target).verdict == "pass"
    d = trace("branch", target).divergence
    assert d is not None and d.kind == ct.SECRET_DEPENDENT_BRANCH and "ctfix_branch_encrypt" in d.symbol
    # the wrong-tag cases move the wrong byte from trial to trial: the early exit shows in 8 trials
    d = trace("early-exit", target, "ctaead").divergence
    assert d is not None and d.kind == ct.SECRET_DEPENDENT_BRANCH and d.op == "aead_decrypt"


def test_trace_mode_secret_indexed_table() -> None:
    fw = Firmware(FIXTURES.implementation("ctfix", "table"), "ctfix", "rv32")
    report = ct.check(fw, trials=8, seed=3, mode="trace")
    assert report.verdict == "pass"   # allowed by its META.yml (secret_dependent_addresses)
    ref = fw.call("encrypt", {"out": Buf(size=16, out=True), "in": Buf(bytes(16)), "rk": Buf(bytes(16))},
                  trace=True)
    got = fw.call("encrypt", {"out": Buf(size=16, out=True), "in": Buf(bytes(range(16))),
                              "rk": Buf(bytes(16))}, trace=True)
    d = ct.compare(fw, "encrypt", 1, ref, got)
    assert d is not None and d.kind == ct.SECRET_DEPENDENT_ADDRESS and "ctfix_table_encrypt" in d.symbol


def test_secret_draws_relate_to_the_base() -> None:
    base = ct.SecretRandom(5, 0).randbytes(16)
    flips = {t: ct.SecretRandom(5, t).randbytes(16) for t in range(1, 8)}
    diff = [sum(bin(a ^ b).count("1") for a, b in zip(base, flips[t])) for t in (2, 3)]
    assert diff[0] == 1 and sum(a != b for a, b in zip(base, flips[3])) == 1
    assert sorted(flips[4]) == sorted(base) and flips[4] != base
    assert flips[6] == bytes(16) and flips[7] == b"\xff" * 16


def test_public_arguments_must_stay_fixed() -> None:
    """Only what META.yml declares secret may vary between draws; otherwise the verdict is meaningless."""
    fw = Firmware(FIXTURES.implementation("ctfix", "good"), "ctfix", "rv32")
    first = ct.CtCase("encrypt", {"in": Buf(b"\0" * 16), "rk": Buf(b"\1" * 16), "out": Buf(size=16, out=True)})
    varied_output = ct.CtCase("encrypt", {"in": Buf(b"\2" * 16), "rk": Buf(b"\3" * 16),
                                          "out": Buf(b"\5" * 16, out=True)})
    with pytest.raises(ct.UndeclaredSecret, match="'out'"):
        ct._check_only_secrets_vary(fw, first, varied_output)
    ct._check_only_secrets_vary(fw, first, ct.CtCase("encrypt", {**varied_output.args, "out": first.args["out"]}))
