# SPDX-License-Identifier: MIT
"""Issue 33's soundness and precision cases for the rv32 and armv7m taint engines.

tests/fixtures/ct_soundness/<target>.S holds one function per case with an "@ taint:" (rv32: "# taint:")
line naming the finding kinds the engine must report on the first run: leaks of new shapes
(conditional execution under secret IT flags, flags parked in a register with MRS, secrets parked in a
CSR) with their kind, and values that become constant whatever the secret (AND with 0, BIC with itself,
OR with all ones, shifted out, XOR/SUB with itself) with none. Each finding must name the secret."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from mcucrypt import ct
from mcucrypt.boards import make_board
from mcucrypt.boards.base import Buf, Int, TaintSpec
from mcucrypt.boards.taint_common import TAINT_CONDITIONAL, TAINT_IO
from mcucrypt.build import build
from mcucrypt.targets import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "ct_soundness"


def _cases(target: str, part: str = "") -> dict[str, set[str]]:
    """name -> expected finding kinds; AVR lines "; taint[part]:" apply to that part only."""
    marker = {"rv32": "#", "armv7m": "@", "avr": ";"}[target]
    text = (FIXTURES / f"{target}.S").read_text()
    return {m.group(2): set(m.group(3).split())
            for m in re.finditer(rf"^{marker} taint(?:\[(\w+)\])?: (\w+)(.*)$", text, re.M)
            if m.group(1) in (None, part)}


@pytest.fixture(scope="module", params=["rv32", "armv7m"])
def loaded(request):
    target = request.param
    expected = _cases(target)
    isa = "rv32imac_zbb" if target == "rv32" else None
    image = build(target, [FIXTURES / f"{target}.S"], name=f"test-ct-soundness-{target}", keep=list(expected),
                  isa=isa)
    board = make_board(target)
    if isa:
        board.load(image.path, isa=isa)  # type: ignore[call-arg]
    else:
        board.load(image.path)
    return target, board, expected


def test_every_case_on_the_first_run(loaded) -> None:
    target, board, expected = loaded
    secret = (0x8123_4675).to_bytes(4, "little")
    wrong = []
    for name, kinds in expected.items():
        args = [Buf(secret, out=True), Int(7, 4)]
        plain = board.call(name, args)
        res = board.call(name, [Buf(secret, out=True), Int(7, 4)], taint=TaintSpec({0: "s"}))
        assert (res.cycles, res.outputs) == (plain.cycles, plain.outputs), f"{name}: tracking changed the run"
        got = {f.kind for f in res.taint or []}
        if got != kinds:
            wrong.append(f"{name}: expected {sorted(kinds)}, got {res.taint}")
        assert all(f.labels == ("s",) for f in res.taint or [])
    assert not wrong, "\n".join(wrong)


def test_the_new_kinds_have_classes() -> None:
    assert ct.CLASS_OF_TAINT[TAINT_CONDITIONAL] == "secret-dependent conditional execution"
    assert ct.CLASS_OF_TAINT[TAINT_IO] == "secret to I/O or CSR"


def test_trace_mode_sees_it_blocks_as_they_time() -> None:
    """Trace mode lists every instruction of an IT block, executed or skipped (Unicorn hooks only the
    executed ones): a select on secret flags is no divergence, a skipped MLA or LDR is conditional
    execution, a call under secret flags changes the path (a branch)."""
    image = build("armv7m", [FIXTURES / "armv7m.S"], name="test-ct-soundness-armv7m",
                  keep=list(_cases("armv7m")))
    board = make_board("armv7m")
    board.load(image.path)
    fw = SimpleNamespace(board=board)

    def run(name: str, word: int):
        return board.call(name, [Buf(word.to_bytes(4, "little"), out=True), Int(7, 4)], trace=True)

    negative, positive, five = 0x8123_4675, 0x0123_4675, 5
    for name, a, b, expected in [
            ("c_it_mul", negative, positive, None),
            ("c_it_mul_skipped", negative, positive, None),
            ("c_it_mla", negative, positive, ct.SECRET_CONDITIONAL_EXECUTION),
            ("c_it_ldr", five, positive, ct.SECRET_CONDITIONAL_EXECUTION),
            ("c_it_bl", five, positive, ct.SECRET_DEPENDENT_BRANCH)]:     # the call changes the path
        ref, got = run(name, a), run(name, b)
        d = ct.compare(fw, "op", 1, ref, got)      # type: ignore[arg-type]
        if expected is None:
            assert d is None, f"{name}: {d}"
            assert len(ref.trace.pcs) == len(got.trace.pcs)
        else:
            assert d is not None and d.kind == expected and name in d.symbol, f"{name}: {d}"


@pytest.mark.parametrize("part", ["atmega128", "atmega2560", "atmega1284p"])
def test_avr_io_registers(part: str) -> None:
    """A secret written to an I/O register is a secret-to-io finding, except SREG/SP (tracked) and the
    GPIOR scratch registers (their labels are kept: the ATmega2560 and 1284P have them, the 128 not)."""
    from mcucrypt.boards.avr import AvrBoard

    expected = _cases("avr", part)
    assert ("c_gpior" in expected) == (part != "atmega128")
    image = build("avr", [FIXTURES / "avr.S"], name=f"test-ct-soundness-avr-{part}", keep=list(expected),
                  mcu=None if part == "atmega128" else part)
    board = AvrBoard(mcu=part)
    board.load(image.path)
    wrong = []
    for name, kinds in expected.items():
        res = board.call(name, [Int(0xA5, 1)], taint=TaintSpec({0: "s"}))
        got = {f.kind for f in res.taint or []}
        if got != kinds:
            wrong.append(f"{name}: expected {sorted(kinds)}, got {res.taint}")
        assert all(f.labels == ("s",) for f in res.taint or [])
    assert not wrong, "\n".join(wrong)
