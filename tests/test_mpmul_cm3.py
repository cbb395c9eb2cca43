# SPDX-License-Identifier: MIT
"""The Cortex-M3 multiplications (crypto/mpmul/armv7m): what the generic catalog test does not cover.

- cm3-umull is declared variable time: its cycle count must move with the operand values exactly as
  the board's UMULL rule (paper 003, Table 2) predicts, and the project's checker must say FAIL;
- the three constant-time ones keep one cycle count across operand classes chosen to trip UMULL's early
  termination (zeros, 16-bit limbs) and the operand fixing of cm3-umull-ct (limbs around bit 24);
- cm3-umull-ct's fixing is exact on the limbs where it switches (bit 24 set or clear, top byte zero);
- cm3-umlal-ct runs every UMLAL/UMULL with both operands at or above 2^16 (the slowest class, the same
  cycles) on operands whose 32-bit words and 29-bit limbs hit every class of Table 2, at 256 bits and in
  its 512-bit digit-domain Karatsuba;
- cm3-fast's Karatsuba levels see every sign combination of |A0 - A1| and |B1 - B0|, including zero
  differences and the longest carries through the recombination;
- paper 003's comparison of its Table 4 and Table 5 multiply-accumulates, built from mac16.S in the same
  loop (the Table 4 build is not a catalog implementation).
Vectors, the model comparison (200+ random pairs and the edge cases) and the checker on every constant-
time implementation are tests/test_catalog.py's. Runtime: about 20 s (fixed samples, not sweeps).
"""
from __future__ import annotations

import random
from functools import lru_cache

import pytest

from mcucrypt import ct
from mcucrypt.boards import make_board
from mcucrypt.boards.base import Buf
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.mpmul import DRIVER, from_limbs, to_limbs

CATALOG = load_catalog()
IDS = ["mpmul256", "mpmul512", "mpmul1024", "mpmul2048"]
CT_IMPLS = ["cm3-umull-ct", "cm3-mac16", "cm3-fast", "cm3-umlal-ct"]


@lru_cache(maxsize=None)
def firmware(impl: str, prim_id: str) -> Firmware:
    return Firmware(CATALOG.implementation(prim_id, impl), prim_id, "armv7m")


def words_of(prim_id: str) -> int:
    return CATALOG.by_id(prim_id).instances[prim_id]["bits"] // 32


def from_words(limbs: list[int]) -> int:
    return sum(w << (32 * i) for i, w in enumerate(limbs))


def mul(fw: Firmware, a: int, b: int) -> int:
    """The product through `mul`, checked against Python; returns the cycles."""
    got, res = DRIVER.mul(fw, a, b)
    assert got == a * b, f"{fw.impl.name} {fw.prim_id}: wrong product for a={a:x} b={b:x}"
    return res.cycles


def limbs(rng: random.Random, n: int, lo: int, hi: int) -> int:
    return from_words([rng.randrange(lo, hi) for _ in range(n)])


@pytest.mark.parametrize("prim_id", IDS)
def test_umull_cycles_follow_table2(prim_id: str) -> None:
    """Each of the n^2 UMULLs costs 5 cycles when both limbs are >= 2^16, 4 when one is below, 3 when
    both are below or one is zero (the board's model of paper 003's Table 2); nothing else in
    cm3-umull depends on the values, so the call's cycles move by exactly n^2 per step."""
    fw = firmware("cm3-umull", prim_id)
    n = words_of(prim_id)
    rng = random.Random(f"umull/{prim_id}")
    big = lambda: limbs(rng, n, 1 << 16, 1 << 32)        # noqa: E731
    small = lambda: limbs(rng, n, 1, 1 << 16)            # noqa: E731
    full = mul(fw, big(), big())
    assert mul(fw, big(), big()) == full
    assert mul(fw, big(), small()) == full - n * n
    assert mul(fw, small(), big()) == full - n * n
    assert mul(fw, small(), small()) == full - 2 * n * n
    assert mul(fw, 0, big()) == full - 2 * n * n


@pytest.mark.parametrize("mode", ct.MODES)
def test_umull_fails_the_checker(mode: str) -> None:
    """The declared-variable-time implementation is caught by the project's checker, at the UMULL, in
    both modes (cm3-umull-ct, whose operands are fixed, passes both in the generic test)."""
    report = ct.check(firmware("cm3-umull", "mpmul256"), trials=8, seed=0, mode=mode)
    assert report.verdict == "fail", report.summary()
    if mode == "taint":
        assert {f.cls for f in report.findings} == {ct.VARIABLE_LATENCY}, report.summary()
        assert all(f.instruction.startswith("umull") and set(f.secrets) == {"a", "b"} for f in report.findings)
    else:
        assert report.divergence is not None and report.divergence.kind == ct.VARIABLE_LATENCY
        assert "umull" in report.divergence.detail


def _operand_classes(n: int, rng: random.Random) -> list[tuple[str, int, int]]:
    m = (1 << (32 * n)) - 1
    around24 = (0, 1, 0xFFFF, 0x10000, 0x00FFFFFF, 0x01000000, 0x01FFFFFF, 0xFEFFFFFF, 0xFF000000, 0xFFFFFFFF)
    return [
        ("random", rng.getrandbits(32 * n), rng.getrandbits(32 * n)),
        ("zero", 0, 0),
        ("all ones", m, m),
        ("16-bit limbs", limbs(rng, n, 0, 1 << 16), limbs(rng, n, 0, 1 << 16)),
        ("zero times random", 0, rng.getrandbits(32 * n)),
        ("limbs around bit 24", from_words([rng.choice(around24) for _ in range(n)]),
         from_words([rng.choice(around24) for _ in range(n)])),
    ]


@pytest.mark.parametrize("impl", CT_IMPLS)
@pytest.mark.parametrize("prim_id", ["mpmul256", "mpmul2048"])
def test_constant_time_cycles(impl: str, prim_id: str) -> None:
    """One cycle count for every operand class, and right products on all of them."""
    fw = firmware(impl, prim_id)
    rng = random.Random(f"ct/{impl}/{prim_id}")
    cycles = {name: mul(fw, a, b) for name, a, b in _operand_classes(words_of(prim_id), rng)}
    assert len(set(cycles.values())) == 1, cycles


@pytest.mark.parametrize("prim_id", ["mpmul256", "mpmul512"])
def test_umull_ct_fixing_edges(prim_id: str) -> None:
    """The fix sets bit 24 of each limb and subtracts the extra partial products: exact on limbs with
    bit 24 clear or set, a zero top byte, and limbs that the fix leaves alone. Also via mul_n."""
    fw = firmware("cm3-umull-ct", prim_id)
    n = words_of(prim_id)
    rng = random.Random(f"fix/{prim_id}")
    edge = (0, 1, 0x00FFFFFF, 0x01000000, 0x01FFFFFF, 0x02000000, 0xFEFFFFFF, 0xFF000000, 0xFFFFFFFF,
            0x80FFFFFF, 0x7F000000)
    for _ in range(40):
        a = from_words([rng.choice(edge) for _ in range(n)])
        b = from_words([rng.choice(edge) for _ in range(n)])
        mul(fw, a, b)
        got, _ = DRIVER.mul_n(fw, a, b, n)
        assert got == a * b


def _blocks(rng: random.Random, n: int) -> tuple[int, int]:
    """Operands made of 8-word blocks drawn from {0, all ones, random, a copy of the previous block},
    so that at every Karatsuba level the halves compare every way (less, greater, equal)."""
    ones = (1 << 256) - 1
    out = []
    for _ in range(2):
        blocks: list[int] = []
        for _ in range(n // 8):
            kind = rng.randrange(4)
            if kind == 3 and blocks:
                blocks.append(blocks[-1])
            else:
                blocks.append((0, ones, rng.getrandbits(256), rng.getrandbits(256))[kind])
        out.append(sum(x << (256 * i) for i, x in enumerate(blocks)))
    return out[0], out[1]


@pytest.mark.parametrize("impl", ["cm3-fast", "cm3-umlal-ct"])
@pytest.mark.parametrize("prim_id", ["mpmul512", "mpmul1024", "mpmul2048"])
def test_fast_karatsuba_signs(impl: str, prim_id: str) -> None:
    """cm3-fast (subtractive): every sign of |A0 - A1| and |B1 - B0|; cm3-umlal-ct (additive): the
    largest sums and top words (all ones: tops 1, 2, 3 down the levels at 2048 bits) and the longest
    carries and borrows through the recombination."""
    fw = firmware(impl, prim_id)
    n = words_of(prim_id)
    rng = random.Random(f"kara/{prim_id}")
    m = (1 << (32 * n)) - 1
    h = 16 * n                                   # half the operand, in bits
    lo, hi = (1 << h) - 1, m ^ ((1 << h) - 1)
    fixed = [(hi, lo), (lo, hi), (hi, hi), (lo, lo), (m, lo), (lo, m), (1 << h, (1 << h) - 1),
             ((1 << h) - 1, 1 << h), (m, m), (m, 1)]
    for a, b in fixed + [_blocks(rng, n) for _ in range(30)]:
        mul(fw, a, b)


@lru_cache(maxsize=None)
def _table4_board(prim_id: str):
    """mac16.S built with its Table 4 (Micro-ECC, Thumb-1) multiply-accumulate, on a fresh board."""
    impl = CATALOG.implementation(prim_id, "cm3-mac16")
    image = build("armv7m", impl.sources, name=f"{prim_id}-cm3-mac16-table4", impl=impl.name,
                  defines=["MPMUL_CM3_TABLE4"], keep=impl.symbols(prim_id))
    board = make_board("armv7m")
    board.load(image.path)
    return board, impl.symbol(prim_id, "mul")


@pytest.mark.parametrize("prim_id", IDS)
def test_paper_table5_beats_table4(prim_id: str) -> None:
    """Paper 003's claim on our board: the Table 5 multiply-accumulate is faster than Table 4's in the
    same loop (the paper: 23.8% at 256 bits to 28.4% at 2048). Both stay correct and constant time."""
    board, symbol = _table4_board(prim_id)
    n = words_of(prim_id)
    rng = random.Random(f"table4/{prim_id}")
    t4 = set()
    for a, b in [(rng.getrandbits(32 * n), rng.getrandbits(32 * n)), (0, 0), ((1 << (32 * n)) - 1,) * 2]:
        res = board.call(symbol, [Buf(size=8 * n, out=True), Buf(to_limbs(a, n)), Buf(to_limbs(b, n))])
        assert from_limbs(res.outputs[0]) == a * b
        t4.add(res.cycles)
    assert len(t4) == 1
    t5 = mul(firmware("cm3-mac16", prim_id), rng.getrandbits(32 * n), rng.getrandbits(32 * n))
    saving = 1 - t5 / t4.pop()
    assert 0.20 < saving < 0.40, f"Table 5 saves {saving:.1%} over Table 4"


def _umlal_classes(rng: random.Random) -> list[tuple[str, int, int]]:
    """256-bit operands that put 32-bit words, and the kernel's 29-bit limbs, in every UMULL/UMLAL class
    of Table 2 (zero, below 2^16, at or above 2^16, all ones), mixed within and across operands."""
    m = (1 << 256) - 1

    def limbs29(pick) -> int:
        return sum(pick(i) << (29 * i) for i in range(9)) & m

    word_vals = (0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF)
    limb_vals = (0, 1, 0xFFFF, 0x10000, (1 << 29) - 1)
    return [
        ("random", rng.getrandbits(256), rng.getrandbits(256)),
        ("zero", 0, 0),
        ("zero x all ones", 0, m),
        ("all ones", m, m),
        ("words below 2^16", limbs(rng, 8, 0, 1 << 16), limbs(rng, 8, 1, 1 << 16)),
        ("words at or above 2^16", limbs(rng, 8, 1 << 16, 1 << 32), limbs(rng, 8, 1 << 16, 1 << 32)),
        ("mixed words", from_words([rng.choice(word_vals) for _ in range(8)]),
         from_words([rng.choice(word_vals) for _ in range(8)])),
        ("29-bit limbs zero", 0, limbs29(lambda i: (1 << 29) - 1)),
        ("29-bit limbs below 2^16", limbs29(lambda i: rng.randrange(1 << 16)),
         limbs29(lambda i: rng.randrange(1 << 16))),
        ("mixed 29-bit limbs", limbs29(lambda i: rng.choice(limb_vals)), limbs29(lambda i: rng.choice(limb_vals))),
    ]


def test_umlal_ct_every_class() -> None:
    """cm3-umlal-ct: the same cycle count on operands hitting every UMULL/UMLAL class, right products,
    and on the trace every long multiply in the slowest class (both operands >= 2^16)."""
    fw = firmware("cm3-umlal-ct", "mpmul256")
    rng = random.Random("umlal-ct/classes")
    cycles = {}
    for name, a, b in _umlal_classes(rng):
        res = fw.call("mul", {"r": Buf(size=64, out=True), "a": Buf(to_limbs(a, 8)), "b": Buf(to_limbs(b, 8))},
                      trace=True)
        assert from_limbs(res.outputs[0]) == a * b, name
        longs = res.trace.variable_latency
        assert len(longs) == 81, (name, len(longs))            # 9 x 9 limb products
        assert all(min(ops[:2]) >= 1 << 16 for _, _, ops, _ in longs), name
        cycles[name] = res.cycles
    assert len(set(cycles.values())) == 1, cycles


def test_umlal_ct_k16_every_class() -> None:
    """cm3-umlal-ct at 512 bits (Karatsuba in the digit domain): operands whose words, 29-bit digits and
    halves (whose digit sums are the middle product's operands) hit every UMULL/UMLAL class and the
    largest sums: one cycle count, right products, and on the trace all 243 long multiplies (three 9x9
    digit products) with both operands >= 2^16."""
    fw = firmware("cm3-umlal-ct", "mpmul512")
    rng = random.Random("umlal-ct/k16")
    m = (1 << 512) - 1
    top = (1 << 29) - 1

    def digits(pick) -> int:
        return sum(pick(i) << (29 * i) for i in range(18)) & m

    cases = [(name + " (both halves)", a | a << 256, b | b << 256) for name, a, b in _umlal_classes(rng)]
    cases += [
        ("all ones", m, m),
        ("digits all ones, halves equal", digits(lambda i: top), digits(lambda i: top)),
        ("low half zero", digits(lambda i: top if i >= 9 else 0), m),
        ("high half zero", digits(lambda i: top if i < 9 else 0), digits(lambda i: 0 if i >= 9 else top)),
        ("digit sums at 2^29 - 1 and 2^29", digits(lambda i: (1 << 28) if i % 2 else (1 << 28) - 1),
         digits(lambda i: top if i < 9 else 1)),
        ("digits below 2^16", digits(lambda i: rng.randrange(1 << 16)), digits(lambda i: rng.randrange(2))),
    ]
    cycles = {}
    for name, a, b in cases:
        res = fw.call("mul", {"r": Buf(size=128, out=True), "a": Buf(to_limbs(a, 16)),
                              "b": Buf(to_limbs(b, 16))}, trace=True)
        assert from_limbs(res.outputs[0]) == a * b, name
        longs = res.trace.variable_latency
        assert len(longs) == 243, (name, len(longs))
        assert all(min(ops[:2]) >= 1 << 16 for _, _, ops, _ in longs), name
        cycles[name] = res.cycles
    assert len(set(cycles.values())) == 1, cycles


def test_umlal_ct_generated_source_current() -> None:
    """umlal_ct.S is what gen_umlal_ct.py makes today."""
    import subprocess
    import sys
    from pathlib import Path
    d = Path(__file__).resolve().parent.parent / "crypto" / "mpmul" / "armv7m"
    out = subprocess.run([sys.executable, str(d / "gen_umlal_ct.py")], capture_output=True, text=True, check=True)
    assert out.stdout == (d / "umlal_ct.S").read_text(), "run gen_umlal_ct.py > umlal_ct.S"


def test_umlal_ct_kernels_with_top_words() -> None:
    """The additive Karatsuba levels hand the 512/1024-bit routines operands with a top word (the sums
    A0 + A1): k16xi and k32xi (the internal forms, which save only lr) multiply n words plus a top word of
    at most 6 and 5 (each level adds at most one to the top it passes down; at 2048 bits the tops are at
    most 1 and 2) into 2n + 1 words, exactly, in one cycle count."""
    impl = CATALOG.implementation("mpmul2048", "cm3-umlal-ct")
    syms = [f"mpmul_cm3_umlal_k{n}xi" for n in (16, 32)]
    image = build("armv7m", impl.sources, name="mpmul-umlal-ct-tops", impl=impl.name, keep=syms)
    board = make_board("armv7m")
    board.load(image.path)
    rng = random.Random("umlal-ct/tops")
    for n, sym, tmax in zip((16, 32), syms, (6, 5)):
        low = (1 << (32 * n)) - 1
        top = (tmax << (32 * n)) | low
        cases = [(top, top), (0, 0), (top, 0), (1 << (32 * n), low), (low, low)]
        cases += [((rng.randrange(tmax + 1) << (32 * n)) | rng.getrandbits(32 * n),
                   (rng.randrange(tmax + 1) << (32 * n)) | rng.getrandbits(32 * n)) for _ in range(6)]
        cycles = set()
        for a, b in cases:
            res = board.call(sym, [Buf(size=4 * (2 * n + 1), out=True), Buf(to_limbs(a, n + 1)),
                                   Buf(to_limbs(b, n + 1))])
            assert from_limbs(res.outputs[0]) == a * b, (sym, hex(a), hex(b))
            cycles.add(res.cycles)
        assert len(cycles) == 1, (sym, cycles)
