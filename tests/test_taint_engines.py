# SPDX-License-Identifier: MIT
"""The C taint engine (taint_native.c) against the Python one (the reference) on rv32.

Both engines run the same calls: every snippet of the taint fixtures (tests/fixtures/rv32/taint.S,
tests/fixtures/ct_soundness/rv32.S), where the whole shadow state at the end (register taints and their
tainted bits, memory, CSRs) must be identical too, the constant-time fixtures of test_ct_checker, and
catalog entries chosen for their instruction mix (a secret-indexed table, Zbb/Zbkb emulated in the
board's trap handler, the xmul64 register-pair instructions, compiled C, a multi-call AEAD). Findings
must be identical: kind, pc, symbol, instruction, secret labels and detail, in the same order."""
from __future__ import annotations

import re

import pytest

from mcucrypt import ct
from mcucrypt.boards import make_board, taint_rv32
from mcucrypt.boards.base import Buf, Int, TaintSpec
from mcucrypt.boards.taint_common import ENGINE_ENV
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.targets import ROOT

SNIPPETS = [ROOT / "tests" / "fixtures" / "rv32" / "taint.S", ROOT / "tests" / "fixtures" / "ct_soundness" / "rv32.S"]
FIXTURES = load_catalog(ROOT / "tests" / "fixtures" / "crypto")
FIXTURE_IMPLS = [("ctfix", "table"), ("ctfix", "branch"), ("ctfix", "key-lt"), ("ctfix", "div"),
                 ("ctfix", "good"), ("ctaead", "early-exit"), ("ctaead", "declassified")]
CATALOG = [("aes128", "rv32-table"), ("aria128", "rv32-zbb"), ("mpmul256", "rv32-fast-x"),
           ("pipo64_128", "rv32-paper"), ("asconaead128", "rv32-fast"), ("sha256", "ref")]


def _state(engine) -> tuple:
    """The engine's shadow state: register taints and bits, tainted memory bytes, tainted CSRs."""
    if isinstance(engine, taint_rv32.NativeRv32Taint):
        st = engine.state
        memory = {}
        for k in range(st.n_regions):
            base, shadow = st.shadow_base[k], engine._shadow[k]
            memory.update({base + i: m for i, m in enumerate(shadow) if m})
        return (list(st.regs), list(st.bits), memory, {n: m for n, m in enumerate(engine._csr) if m})
    return (list(engine.regs), list(engine.bits), dict(engine.mem.bytes), dict(engine.csr_taint))


def _snippet_names(source) -> list[str]:
    return re.findall(r"^# taint: (\w+)", source.read_text(), re.M)


@pytest.mark.parametrize("source", SNIPPETS, ids=lambda p: p.parent.name)
def test_engines_agree_on_the_snippets(source, monkeypatch) -> None:
    names = _snippet_names(source)
    image = build("rv32", [source], name=f"test-taint-engines-{source.parent.name}", keep=names,
                  isa="rv32imac_zbb")
    board = make_board("rv32")
    board.load(image.path, isa="rv32imac_zbb")  # type: ignore[call-arg]
    engines = []
    attach = taint_rv32.attach
    monkeypatch.setattr(taint_rv32, "attach", lambda *a, **k: engines.append(attach(*a, **k)) or engines[-1])
    for name in names:
        for secret in (0x1234_5675, 0x8123_4675, 0xFF00_00FF):
            spec = TaintSpec({1: "s"} if name == "t_scalar" else {0: "s"})
            runs = []
            for engine in ("python", "c"):
                monkeypatch.setenv(ENGINE_ENV, engine)
                res = board.call(name, [Buf(secret.to_bytes(4, "little"), out=True), Int(7, 4)], taint=spec)
                runs.append((res.taint, _state(engines[-1]), res.cycles, res.outputs))
            assert isinstance(engines[-1], taint_rv32.NativeRv32Taint)
            assert not isinstance(engines[-2], taint_rv32.NativeRv32Taint)
            assert runs[0] == runs[1], f"{name} (secret 0x{secret:08x}): the engines differ"


def _findings(fw: Firmware, monkeypatch, engine: str) -> list:
    monkeypatch.setenv(ENGINE_ENV, engine)
    report = ct.check(fw, mode="taint", seed=5)
    return [(f.op, f.kind, f.pc, f.symbol, f.instruction, f.secrets, f.detail) for f in report.findings]


@pytest.mark.parametrize("prim,impl", FIXTURE_IMPLS + CATALOG, ids=lambda v: v)
def test_engines_agree_on_implementations(prim, impl, monkeypatch) -> None:
    catalog = FIXTURES if prim in ("ctfix", "ctaead") else load_catalog()
    fw = Firmware(catalog.implementation(prim, impl), prim, "rv32")
    reference = _findings(fw, monkeypatch, "python")
    assert _findings(fw, monkeypatch, "c") == reference
    if (prim, impl) in (("ctfix", "table"), ("aes128", "rv32-table"), ("ctfix", "div")):
        assert reference, "a leaky implementation must have findings to compare"


def test_unknown_engine_is_refused(monkeypatch) -> None:
    from mcucrypt.boards.base import BoardError
    from mcucrypt.boards.taint_common import engine_choice

    monkeypatch.setenv(ENGINE_ENV, "rust")
    with pytest.raises(BoardError, match="taint engines are c, python"):
        engine_choice()
