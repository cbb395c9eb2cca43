# SPDX-License-Identifier: MIT
"""Taint tracking on the avr board: one hand-written snippet per propagation rule and per finding
(tests/fixtures/avr/taint.S), leaks avr-gcc makes from C (tests/fixtures/avr/ctleaks.c), and the
constant-time fixtures of tests/fixtures/crypto/ctfix caught on the first run."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from mcucrypt.boards.avr import AvrBoard
from mcucrypt.boards.base import (TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP, BoardError, Buf, Int,
                                  TaintSpec)
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.targets import ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "avr"
TAINT_S = FIXTURES / "taint.S"
CTLEAKS = FIXTURES / "ctleaks.c"
CTLEAKS_FUNCTIONS = ["leak_lt", "leak_eq", "leak_memcmp", "leak_table", "leak_progmem", "leak_div",
                     "ct_select", "ct_compare"]
K = TaintSpec({0: "key"})


@pytest.fixture(scope="module")
def snip() -> AvrBoard:
    board = AvrBoard()
    names = re.findall(r"^FUNC\((\w+)\)", TAINT_S.read_text(), re.M)
    board.load(build("avr", [TAINT_S], name="avr-taint", keep=names).path)
    return board


@pytest.fixture(scope="module")
def leaks() -> AvrBoard:
    board = AvrBoard()
    board.load(build("avr", [CTLEAKS], name="avr-ctleaks", keep=CTLEAKS_FUNCTIONS).path)
    return board


def u8(v: int) -> Int:
    return Int(v, 1)


def only(findings: list, kind: str, symbol: str, instruction: str, labels: tuple[str, ...] = ("key",)):
    assert findings is not None and len(findings) == 1, findings
    f = findings[0]
    assert (f.kind, f.symbol, f.labels) == (kind, symbol, labels), f
    assert f.instruction.startswith(instruction), f
    return f


# ------------------------------------------------------------------------------------- propagation

def test_carry_rotate_and_t_flag_propagate(snip: AvrBoard) -> None:
    r = snip.call("t_carry", [u8(3), u8(200)], taint=TaintSpec({1: "k"}))
    assert r.taint == []
    taint = dict(zip(range(18, 26), snip.taint_of(18, 8)))
    assert taint[24] == ("k",)      # ADD
    assert taint[25] == ("k",)      # ADC r25, r1: through C only
    assert taint[20] == ("k",)      # ROR of a public constant through C
    assert taint[23] == ("k",)      # SBC r23, r23 = -C
    assert taint[18] == ("k",)      # BST/BLD through T
    assert taint[19] == ()          # LDI
    assert snip.taint_of_flags()["C"] == ("k",)


def test_zeroing_idioms_and_constants_clear(snip: AvrBoard) -> None:
    r = snip.call("t_clear", [u8(0x5a)], taint=K)
    assert r.taint == [] and r.return_value & 0xFF == 0
    assert snip.taint_of(18, 7) == [()] * 7     # EOR r,r  SUB r,r  CLR  LDI  ANDI r,0  (r23, r24 = r18)


def test_push_pop_keeps_taint(snip: AvrBoard) -> None:
    r = snip.call("t_pushpop", [u8(9)], taint=K)
    assert r.taint == [] and snip.taint_of(24) == [("key",)] and snip.taint_of(20) == [("key",)]


def test_stack_argument_is_tainted(snip: AvrBoard) -> None:
    r = snip.call("t_stackarg", [Int(1, 8), Int(2, 8), Int(3, 8), u8(7)], taint=TaintSpec({3: "key"}))
    only(r.taint, TAINT_BRANCH, "t_stackarg+0x8", "brne")


def test_eight_labels(snip: AvrBoard) -> None:
    spec = TaintSpec({i: f"p{i}" for i in range(8)})
    r = snip.call("t_labels", [Buf(bytes([i + 1])) for i in range(8)], taint=spec)
    only(r.taint, TAINT_BRANCH, "t_labels+0x30", "brne", tuple(f"p{i}" for i in range(8)))
    with pytest.raises(BoardError, match="at most 8"):
        snip.call("t_labels", [Buf(b"\1")] * 9, taint=TaintSpec({i: f"p{i}" for i in range(9)}))


# ---------------------------------------------------------------------------------------- findings

def test_tainted_branch(snip: AvrBoard) -> None:
    f = only(snip.call("t_branch", [u8(1)], taint=K).taint, TAINT_BRANCH, "t_branch+0x2", "brne")
    assert f.detail == "condition on flag Z"
    assert snip.call("t_branch", [u8(1)]).taint is None          # taint off: no findings, no cost


@pytest.mark.parametrize("name,symbol,instruction", [("t_cpse", "t_cpse", "cpse r24, r22"),
                                                     ("t_sbrc", "t_sbrc", "sbrc r24, 0"),
                                                     ("t_sreg", "t_sreg+0x4", "sbrs r18, 1")])
def test_tainted_skip(snip: AvrBoard, name: str, symbol: str, instruction: str) -> None:
    """CPSE/SBRC/SBRS on a secret are conditional branches; t_sreg reaches SBRS through IN r18, SREG."""
    only(snip.call(name, [u8(3), u8(4)][: 2 if name == "t_cpse" else 1], taint=K).taint,
         TAINT_BRANCH, symbol, instruction)


def test_mul_is_fixed_time_but_its_flags_are_secret(snip: AvrBoard) -> None:
    only(snip.call("t_mul", [u8(0xf0), u8(0xf0)], taint=K).taint, TAINT_BRANCH, "t_mul+0x2", "brcs")


def test_tainted_load_address(snip: AvrBoard) -> None:
    r = snip.call("t_load", [Buf(bytes(range(8))), u8(5)], taint=TaintSpec({1: "key"}))
    only(r.taint, TAINT_ADDRESS, "t_load+0xa", "ld r24, X")   # table[0] (t_load+0x2) is public
    assert snip.taint_of(24) == [("key",)]


def test_tainted_store_address(snip: AvrBoard) -> None:
    r = snip.call("t_store", [Buf(bytes(8), out=True), u8(2)], taint=TaintSpec({1: "key"}))
    only(r.taint, TAINT_ADDRESS, "t_store+0xe", "std Y+2")


def test_lpm_with_tainted_z(snip: AvrBoard) -> None:
    r = snip.call("t_lpm", [u8(6)], taint=K)
    only(r.taint, TAINT_ADDRESS, "t_lpm+0xc", "lpm r24, Z")
    assert snip.taint_of(24) == [("key",)] and snip.taint_of(18) == [()]


def test_indirect_jump(snip: AvrBoard) -> None:
    only(snip.call("t_ijmp", [u8(1)], taint=K).taint, TAINT_INDIRECT_JUMP, "t_ijmp+0xa", "ijmp")


def test_declassify_clears(snip: AvrBoard) -> None:
    assert snip.call("t_declassify", [u8(1)], taint=K).taint == []
    only(snip.call("t_no_declassify", [u8(1)], taint=K).taint, TAINT_BRANCH, "t_no_declassify+0xc", "breq")


def test_constant_time_snippet_has_no_finding(snip: AvrBoard) -> None:
    r = snip.call("t_ct", [Buf(size=9, out=True), Buf(bytes(range(0x80, 0x88)))], taint=TaintSpec({1: "key"}))
    assert r.taint == []
    assert snip.taint_of(21) == [("key",)]      # the carry chain made the accumulator secret
    assert snip.taint_of(20) == [()]            # the loop counter stayed public


def test_taint_does_not_change_results_or_cycles(snip: AvrBoard) -> None:
    args = [Buf(size=9, out=True), Buf(bytes(range(0x80, 0x88)))]
    plain, tainted = snip.call("t_ct", args), snip.call("t_ct", args, taint=TaintSpec({1: "key"}))
    assert (plain.outputs, plain.cycles, plain.instructions) == (tainted.outputs, tainted.cycles,
                                                                tainted.instructions)


# ----------------------------------------------------------------------------------- compiled C

@pytest.mark.parametrize("name,secret,args,kind,where", [
    ("leak_lt", 1, lambda k: [Buf(size=8, out=True), k], TAINT_BRANCH, "leak_lt+"),
    ("leak_eq", 1, lambda k: [Buf(size=8, out=True), k], TAINT_BRANCH, "leak_eq+"),
    ("leak_memcmp", 0, lambda k: [k, Buf(bytes(16)), u8(16)], TAINT_BRANCH, "leak_memcmp+"),
    ("leak_table", 1, lambda k: [Buf(size=8, out=True), k], TAINT_ADDRESS, "leak_table+"),
    ("leak_progmem", 1, lambda k: [Buf(size=8, out=True), k], TAINT_ADDRESS, "leak_progmem+"),
    ("leak_div", 0, lambda k: [k, u8(200)], TAINT_BRANCH, "__udivmodqi4"),
    ("ct_select", 1, lambda k: [Buf(size=8, out=True), k], None, ""),
    ("ct_compare", 0, lambda k: [k, Buf(bytes(16)), u8(16)], None, ""),
])
def test_compiled_leaks(leaks: AvrBoard, name: str, secret: int, args, kind: str | None, where: str) -> None:
    """Whatever the secret's value (here bytes 1..16: key[7] > key[1], key[5] != 0x5a, the tag differs at
    byte 0), the leak is found on the first run."""
    r = leaks.call(name, args(Buf(bytes(range(1, 17)))), taint=TaintSpec({secret: "key"}), ret_size=1)
    if kind is None:
        assert r.taint == []
    else:
        assert r.taint and {f.kind for f in r.taint} == {kind}, r.taint
        assert r.taint[0].symbol.startswith(where) and r.taint[0].instruction not in ("", "?"), r.taint


# ------------------------------------------------------------------- constant-time checker fixtures

FIXTURE_CATALOG = load_catalog(ROOT / "tests" / "fixtures" / "crypto")
FIXTURE_IMPLS = sorted((prim_id, impl.name) for prim in FIXTURE_CATALOG.primitives.values()
                       for prim_id in prim.instances for impl in prim.implementations.values()
                       if "avr" in impl.targets)


@pytest.mark.parametrize("prim_id,impl", FIXTURE_IMPLS, ids=[f"{p}-{i}" for p, i in FIXTURE_IMPLS])
def test_checker_fixtures_on_first_run(prim_id: str, impl: str) -> None:
    """Every fixture of tests/fixtures/crypto that runs on avr, one tainted run of each of its kind's
    constant-time cases with META.yml's secrets: a constant-time one gives no branch or jump finding (and
    no address finding unless it declares secret-dependent addresses); every other one gives a finding."""
    fw = Firmware(FIXTURE_CATALOG.implementation(prim_id, impl), prim_id, "avr")
    findings = []
    for case in driver_for(fw.impl.primitive.kind).ct_cases(fw, random.Random(1), public_seed=1):
        proto = fw.impl.functions[case.op]
        secret = set(fw.impl.secret_params(case.op))
        spec = TaintSpec({i: p.name for i, p in enumerate(proto.params) if p.name in secret})
        r = fw.board.call(proto.symbol(prim_id, impl), fw.arguments(case.op, case.args), taint=spec)
        findings += r.taint or []
    fatal = [f for f in findings if f.kind != TAINT_ADDRESS or not fw.impl.secret_dependent_addresses]
    if fw.impl.constant_time:
        assert fatal == [], fatal
        return
    assert findings, f"{impl}: no finding"
    assert all(f.labels and f.instruction not in ("", "?") for f in findings), findings
    if (prim_id, impl) in (("ctfix", "table"), ("ctfix", "branch")):
        assert {f.kind for f in findings} == {TAINT_ADDRESS if impl == "table" else TAINT_BRANCH}, findings
        assert all(f.symbol.startswith(f"mcu_ctfix_{impl}_encrypt") for f in findings), findings


# ------------------------------------------------------------------------------ non-interference

def _random_program(rng: random.Random, n: int) -> list[str]:
    """Random straight-line AVR code over r0..r25 (X = r26:r27 stays a public pointer into the buffer):
    every propagation rule's instruction class, with rare skips and branches over one instruction."""
    def reg(lo: int = 0, hi: int = 25) -> str:
        return f"r{rng.randint(lo, hi)}"
    two = ["add", "adc", "sub", "sbc", "and", "or", "eor", "mov", "cp", "cpc"]
    imm = ["subi", "sbci", "andi", "ori", "cpi", "ldi"]
    one = ["com", "neg", "swap", "inc", "dec", "asr", "lsr", "ror", "lsl", "rol", "clr", "tst"]
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.35:
            a = reg()
            out.append(f"{rng.choice(two)} {a}, {a if rng.random() < 0.1 else reg()}")
        elif k < 0.5:
            out.append(f"{rng.choice(imm)} {reg(16)}, {rng.choice([0, 0xff, rng.randrange(256)])}")
        elif k < 0.65:
            out.append(f"{rng.choice(one)} {reg()}")
        elif k < 0.7:
            out.append(f"{rng.choice(['mul', 'muls', 'mulsu', 'fmul'])} {reg(16, 23)}, {reg(16, 23)}")
        elif k < 0.74:
            out.append(f"movw r{2 * rng.randint(0, 12)}, r{2 * rng.randint(0, 12)}")
        elif k < 0.78:
            out.append(f"{rng.choice(['adiw', 'sbiw'])} r24, {rng.randrange(64)}")
        elif k < 0.82:
            out += [f"bst {reg()}, {rng.randrange(8)}", f"bld {reg()}, {rng.randrange(8)}"]
        elif k < 0.86:
            out += [f"push {reg()}", f"pop {reg()}"]
        elif k < 0.9:
            out += [f"st X+, {reg()}", f"ld {reg()}, -X"]
        elif k < 0.93:
            out.append(rng.choice(["sec", "clc", "sez", "clz", "seh", "clh", "set", "clt"]))
        elif k < 0.99:
            out += [f"in {reg()}, 0x3f", f"out 0x3f, {reg()}", "cli"]
        else:      # a skip or a branch over one instruction: findings when its condition is secret
            out += [rng.choice([f"cpse {reg()}, {reg()}", f"sbrc {reg()}, {rng.randrange(8)}",
                                f"sbrs {reg()}, {rng.randrange(8)}", "brcs 1f", "brne 1f", "brmi 1f"]),
                    f"inc {reg()}", "1:"]
    return out


N_PROGRAMS = 40


@pytest.fixture(scope="module")
def random_programs(tmp_path_factory: pytest.TempPathFactory) -> AvrBoard:
    rng = random.Random(13)
    lines = ["// SPDX-License-Identifier: MIT", "/* generated by tests/test_avr_taint.py */"]
    for i in range(N_PROGRAMS):
        lines += [f".section .text.rnd{i},\"ax\",@progbits", f".global rnd{i}", f"rnd{i}:", "movw r26, r18"]
        lines += _random_program(rng, 80) + ["clr r1", "ret"]
    src = tmp_path_factory.mktemp("taint") / "random_programs.S"
    src.write_text("\n".join(lines) + "\n")
    board = AvrBoard(check_abi=False)       # random instruction sequences, not C functions
    board.load(build("avr", [src], name="avr-taint-random", keep=[f"rnd{i}" for i in range(N_PROGRAMS)]).path)
    return board


def test_untainted_registers_do_not_depend_on_the_secret(random_programs: AvrBoard) -> None:
    """Non-interference against simavr's own semantics: run each random program with several secrets in
    r22..r25 and the same public r18..r21 (r19:r18 points X at a public buffer); a register the tracker
    leaves unlabelled must hold the same value in every run, unless a finding says control flow depended on
    the secret."""
    rng = random.Random(7)
    checked = 0
    for i in range(N_PROGRAMS):
        buf = Buf(bytes(64))
        finals, taints, findings = [], None, []
        for _ in range(4):
            # r25:r24 and r23:r22 secret, r21:r20 public, r19:r18 the buffer's address (copied into X)
            args = [Int(rng.randrange(1 << 16), 2), Int(rng.randrange(1 << 16), 2), Int(0x55aa, 2), buf]
            r = random_programs.call(f"rnd{i}", args, taint=TaintSpec({0: "s", 1: "s"}))
            findings += r.taint
            finals.append(random_programs._sim.read(0, 32))
            taints = random_programs.taint_of(0, 32)
        if findings:
            continue
        public = [n for n in range(32) if n != 1 and not taints[n]]
        for n in public:
            assert len({f[n] for f in finals}) == 1, f"rnd{i}: r{n} is unlabelled but depends on the secret"
        checked += 1
    assert checked >= N_PROGRAMS // 2
