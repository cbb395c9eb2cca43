# SPDX-License-Identifier: MIT
"""The C taint engines (taint_native.c) against the Python ones (the references), on rv32 and armv7m.

Both engines run the same calls: every snippet of the taint fixtures (tests/fixtures/rv32/taint.S,
tests/fixtures/ct_soundness/rv32.S), where the whole shadow state at the end (register taints and their
tainted bits, memory, CSRs) must be identical too, the constant-time fixtures of test_ct_checker, and
catalog entries chosen for their instruction mix (a secret-indexed table, Zbb/Zbkb emulated in the
board's trap handler, the xmul64 register-pair instructions, compiled C, a multi-call AEAD). Findings
must be identical: kind, pc, symbol, instruction, secret labels and detail, in the same order."""
from __future__ import annotations

import os
import random
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
# MCUCRYPT_FULL=1: every rv32 implementation of the catalog (138, about a minute of CPU for the Python
# engine's runs)
if os.environ.get("MCUCRYPT_FULL", "") not in ("", "0"):
    CATALOG = [(pid, impl.name) for pid in load_catalog().all_ids()
               for impl in load_catalog().implementations(pid, "rv32")]


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


# Random straight-line programs over every rule: a0 points at a secret 32-byte buffer, a1 at a second
# one (public, or secret under another label); loads and stores stay aligned inside them.
_POOL = "t0 t1 t2 t3 t4 t5 t6 a2 a3 a4 a5 a6 a7".split()
_RR = ("add sub xor or and sll srl sra slt sltu mul mulh mulhu mulhsu div divu rem remu andn orn xnor min minu "
       "max maxu rol ror").split()
_UNARY = "zext.h sext.b sext.h clz ctz cpop rev8 orc.b mv neg not seqz snez".split()
_IMMS = (0, 1, 7, 8, 16, 24, 31, 0xFF, 0x300, 0x7FF, -1, -256, 0xF0)


def _random_function(name: str, rng: random.Random, length: int) -> str:
    def reg(zero: bool = True) -> str:
        return "zero" if zero and rng.random() < 0.08 else rng.choice(_POOL)

    # the board keeps CSRs from call to call: start both engines' runs from the same ones
    lines = [f"    .globl {name}", f"{name}:", "    csrw mscratch, zero", "    csrw mepc, zero"]
    lines += [f"    lw {r}, {4 * k}(a{k % 2})" for k, r in enumerate(_POOL[:6])]
    lines += [f"    li {r}, {rng.randrange(-2048, 2048)}" for r in _POOL[6:]]
    for k in range(length):
        pick = rng.random()
        if pick < 0.18:
            op, size = rng.choice((("lw", 4), ("lh", 2), ("lhu", 2), ("lb", 1), ("lbu", 1)))
            lines.append(f"    {op} {reg(False)}, {size * rng.randrange(32 // size)}(a{rng.randrange(2)})")
        elif pick < 0.32:
            op, size = rng.choice((("sw", 4), ("sh", 2), ("sb", 1)))
            lines.append(f"    {op} {reg()}, {size * rng.randrange(32 // size)}(a{rng.randrange(2)})")
        elif pick < 0.55:
            a = reg()
            lines.append(f"    {rng.choice(_RR)} {reg(False)}, {a}, {a if rng.random() < 0.15 else reg()}")
        elif pick < 0.78:
            op = rng.choice(("addi", "andi", "ori", "xori", "slti", "sltiu", "slli", "srli", "srai"))
            imm = rng.randrange(32) if op in ("slli", "srli", "srai") else rng.choice(_IMMS)
            lines.append(f"    {op} {reg(False)}, {reg()}, {imm}")
        elif pick < 0.86:
            lines.append(f"    {rng.choice(_UNARY)} {reg(False)}, {reg()}")
        elif pick < 0.89:
            lines.append(f"    {rng.choice(('li', 'lui'))} {reg(False)}, {rng.randrange(1 << 11)}")
        elif pick < 0.94:
            lines.append(rng.choice((f"    csrw mscratch, {reg()}", f"    csrr {reg(False)}, mscratch",
                                     f"    csrrs {reg(False)}, mscratch, {reg()}",
                                     f"    csrrc {reg(False)}, mscratch, {reg()}",
                                     f"    csrrsi {reg(False)}, mscratch, 5", f"    csrw mepc, {reg()}",
                                     f"    csrr {reg(False)}, mepc")))
        elif pick < 0.97:
            lines.append(f"    {rng.choice(('beq', 'bne', 'blt', 'bgeu'))} {reg()}, {reg()}, {k + 1}f")
            lines.append(f"{k + 1}:")
        else:
            lines.append(rng.choice((f"    amoadd.w {reg(False)}, {reg()}, (a{rng.randrange(2)})",
                                     f"    amoswap.w {reg()}, {reg()}, (a{rng.randrange(2)})",
                                     f"    lr.w {reg(False)}, (a1)", f"    sc.w {reg(False)}, {reg()}, (a1)")))
    # leave what the program computed where the findings can see it: every register into the buffers
    lines += [f"    sw {r}, {4 * (k % 8)}(a{k // 8 % 2})" for k, r in enumerate(_POOL)]
    return "\n".join(lines + ["    ret", ""])


def test_engines_agree_on_random_programs(tmp_path, monkeypatch) -> None:
    rng = random.Random(33)
    names = [f"r{k}" for k in range(24)]
    source = tmp_path / "random.S"
    source.write_text("    .option arch, +zicsr\n    .text\n" +
                      "".join(_random_function(n, rng, 120) for n in names))
    image = build("rv32", [source], name="test-taint-engines-random", keep=names, isa="rv32imac_zbb")
    board = make_board("rv32")
    board.load(image.path, isa="rv32imac_zbb")  # type: ignore[call-arg]
    engines = []
    attach = taint_rv32.attach
    monkeypatch.setattr(taint_rv32, "attach", lambda *a, **k: engines.append(attach(*a, **k)) or engines[-1])
    kinds = set()
    for k, name in enumerate(names):
        spec = TaintSpec({0: "s"} if k % 2 else {0: "s", 1: "t"})
        args = [Buf(rng.randbytes(32), out=True), Buf(rng.randbytes(32), out=True)]
        runs = []
        for engine in ("python", "c"):
            monkeypatch.setenv(ENGINE_ENV, engine)
            res = board.call(name, args, taint=spec)
            runs.append((res.taint, _state(engines[-1]), res.outputs))
        assert runs[0] == runs[1], f"{name}: the engines differ"
        kinds |= {f.kind for f in res.taint}
    assert len(kinds) >= 3, kinds       # the programs reach branches, divides and secret-to-io at least


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


def test_ct_engine_option(monkeypatch, capsys) -> None:
    """`mcucrypt ct --engine python` runs the reference engine (over the environment's choice): the same
    report as the C engine's; an unknown engine is a usage error."""
    import json

    from mcucrypt.cli import main

    monkeypatch.setenv(ENGINE_ENV, "bogus")        # --engine wins; monkeypatch restores what cmd_ct sets
    assert main(["ct", "aes128", "--target", "rv32", "--impl", "rv32-table", "--seed", "3", "--json",
                 "--engine", "python"]) == 0
    reference = json.loads(capsys.readouterr().out)
    assert os.environ[ENGINE_ENV] == "python"
    assert reference["findings"], "the table implementation has secret-indexed loads (allowed: cacheless)"
    monkeypatch.setenv(ENGINE_ENV, "c")
    fw = Firmware(load_catalog().implementation("aes128", "rv32-table"), "aes128", "rv32")
    report = ct.check(fw, mode="taint", seed=3).to_json()
    assert {k: v for k, v in report.items() if k != "seconds"} == \
        {k: v for k, v in reference.items() if k != "seconds"}
    with pytest.raises(SystemExit) as exit_:
        main(["ct", "aes128", "--target", "rv32", "--engine", "rust"])
    assert exit_.value.code == 2 and "invalid choice: 'rust'" in capsys.readouterr().err


# -- armv7m: the C engine (taint_native.c's armv7m part: the whole per-instruction work in C, Python
# planning each address once) against the Python one (the reference). The C one is the default.

ARMV7M_SNIPPETS = [ROOT / "tests" / "fixtures" / "armv7m" / "taint.S",
                   ROOT / "tests" / "fixtures" / "ct_soundness" / "armv7m.S"]
ARMV7M_FIXTURE_IMPLS = [("ctfix", "table"), ("ctfix", "branch"), ("ctfix", "key-lt"), ("ctfix", "key-eq"),
                        ("ctfix", "div"), ("ctfix", "umull"), ("ctfix", "good"), ("ctaead", "early-exit"),
                        ("ctaead", "declassified")]
# By default three shapes: unrolled lanes (Keccak), bitsliced rounds, and the multiply-accumulate class
ARMV7M_CATALOG = [("keccakf1600", "armv7m-fast"), ("aes128", "cm3-bitsliced"), ("mpmul256", "cm3-umull")]
# MCUCRYPT_FULL=1: every armv7m implementation of the catalog, X25519 cm3-fast included (7.3 M instructions
# in 5 calls: about a minute of the Python engine's CPU time)
if os.environ.get("MCUCRYPT_FULL", "") not in ("", "0"):
    ARMV7M_CATALOG = [(pid, impl.name) for pid in load_catalog().all_ids()
                      for impl in load_catalog().implementations(pid, "armv7m")]


def _armv7m_state(engine) -> tuple:
    """The whole shadow state: register taints, flags, tainted bits, known ones and bounds (registers
    and memory words), tainted memory bytes."""
    from mcucrypt.boards import taint_armv7m
    from mcucrypt.boards.armv7m import SRAM_BASE

    if isinstance(engine, taint_armv7m.NativeArmv7mTaint):
        st, e = engine.state, engine.engine
        known_mem, lo_mem, hi_mem, bounded_mem = e.word_buffers
        return (list(st.regs), list(st.flags), list(st.bits), list(st.known),
                [(st.lo[r], st.hi[r]) if st.bounded[r] else None for r in range(16)],
                {SRAM_BASE + i: m for i, m in enumerate(e.shadow) if m},
                {SRAM_BASE + 4 * i: m for i, m in enumerate(known_mem) if m},
                {SRAM_BASE + 4 * i: (lo_mem[i], hi_mem[i]) for i, b in enumerate(bounded_mem) if b})
    return (list(engine.regs), list(engine.flags), list(engine.bits), list(engine.known_ones),
            list(engine.bounds), dict(engine.mem.bytes), {a: m for a, m in engine.known_mem.items() if m},
            dict(engine.bounds_mem))


@pytest.mark.parametrize("source", ARMV7M_SNIPPETS, ids=lambda p: p.parent.name)
def test_armv7m_engines_agree_on_the_snippets(source, monkeypatch) -> None:
    from mcucrypt.boards import taint_armv7m

    names = re.findall(r"^@ taint(?:\[\w+\])?: (\w+)", source.read_text(), re.M)
    image = build("armv7m", [source], name=f"test-taint-engines-armv7m-{source.parent.name}", keep=names)
    board = make_board("armv7m")
    board.load(image.path)
    engines = []
    attach = taint_armv7m.attach
    monkeypatch.setattr(taint_armv7m, "attach", lambda *a, **k: engines.append(attach(*a, **k)) or engines[-1])
    native_runs = 0
    for name in names:
        for secret in (0x1234_5675, 0x8123_4675, 0xFF00_00FF, 5, 0):
            spec = TaintSpec({1: "s"} if name == "t_scalar" else {0: "s"})
            runs = []
            for engine in ("python", "c"):
                monkeypatch.setenv(ENGINE_ENV, engine)
                res = board.call(name, [Buf(secret.to_bytes(4, "little"), out=True), Int(7, 4)], taint=spec)
                runs.append((res.taint, res.declassified, res.executed, _armv7m_state(engines[-1][0]),
                             res.cycles, res.outputs))
            assert isinstance(engines[-1][0], taint_armv7m.NativeArmv7mTaint)
            assert isinstance(engines[-2][0], taint_armv7m.Armv7mTaint)
            native_runs += engines[-1][0].instructions
            assert runs[0] == runs[1], f"{name} (secret 0x{secret:08x}): the engines differ"
    assert native_runs


def test_armv7m_c_engine_is_the_default(monkeypatch) -> None:
    from mcucrypt.boards import taint_armv7m

    monkeypatch.delenv(ENGINE_ENV, raising=False)
    source = ARMV7M_SNIPPETS[0]
    names = re.findall(r"^@ taint: (\w+)", source.read_text(), re.M)[:1]
    image = build("armv7m", [source], name="test-taint-engines-armv7m-default", keep=names)
    board = make_board("armv7m")
    board.load(image.path)
    engines = []
    attach = taint_armv7m.attach
    monkeypatch.setattr(taint_armv7m, "attach", lambda *a, **k: engines.append(attach(*a, **k)) or engines[-1])
    tainted = board.call(names[0], [Buf(b"\1\2\3\4", out=True), Int(7, 4)], taint=TaintSpec({0: "s"}))
    assert isinstance(engines[-1][0], taint_armv7m.NativeArmv7mTaint)
    assert engines[-1][0].instructions == tainted.instructions
    # a plain call after it removes the C engine's hooks; the next tainted call installs them again
    plain = board.call(names[0], [Buf(b"\1\2\3\4", out=True), Int(7, 4)])
    assert not board._native_taint.hooks and plain.cycles == tainted.cycles
    again = board.call(names[0], [Buf(b"\1\2\3\4", out=True), Int(7, 4)], taint=TaintSpec({0: "s"}))
    assert again.taint == tainted.taint and board._native_taint.hooks


def _armv7m_report(fw: Firmware, monkeypatch, engine: str) -> dict:
    monkeypatch.setenv(ENGINE_ENV, engine)
    report = ct.check(fw, mode="taint", seed=5).to_json()
    return {k: v for k, v in report.items() if k != "seconds"}


@pytest.mark.parametrize("prim,impl", ARMV7M_FIXTURE_IMPLS, ids=lambda v: v)
def test_armv7m_engines_agree_on_the_fixtures(prim, impl, monkeypatch) -> None:
    fw = Firmware(FIXTURES.implementation(prim, impl), prim, "armv7m")
    c, python = _armv7m_report(fw, monkeypatch, "c"), _armv7m_report(fw, monkeypatch, "python")
    assert c == python
    if (prim, impl) not in (("ctfix", "good"), ("ctaead", "declassified")):
        assert c["findings"], "a leak fixture without a finding compares nothing"


@pytest.mark.parametrize("prim,impl", ARMV7M_CATALOG, ids=lambda v: v)
def test_armv7m_engines_agree_on_implementations(prim, impl, monkeypatch) -> None:
    fw = Firmware(load_catalog().implementation(prim, impl), prim, "armv7m")
    assert _armv7m_report(fw, monkeypatch, "c") == _armv7m_report(fw, monkeypatch, "python")
