# SPDX-License-Identifier: MIT
"""The mpmul kind driver and what is special to multiplication: the vector file's own consistency, the
scalable mul_n at every length, the edge cases, `mcucrypt run` input handling, and the driver catching
wrong products. Vectors, the differential test and the constant-time check of every implementation on
every target are the generic test's (tests/test_catalog.py)."""
from __future__ import annotations

import argparse
import random

import pytest

from mcucrypt.boards.base import CallResult
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kat import read_vectors
from mcucrypt.kinds.base import Mismatch, UsageError, driver_for
from mcucrypt.kinds.mpmul import CT_MUL_N_WORDS, DRIVER, MUL_N_WORDS, edge_operands, random_operand, to_limbs
from mcucrypt.models import mpmul as model

CATALOG = load_catalog()
PRIM = CATALOG.by_id("mpmul256")
IDS = ["mpmul256", "mpmul512", "mpmul1024", "mpmul2048"]


def test_driver_is_registered() -> None:
    assert driver_for("mpmul") is DRIVER
    assert PRIM.kind == "mpmul"
    assert {i: PRIM.instances[i]["bits"] for i in IDS} == {"mpmul256": 256, "mpmul512": 512,
                                                          "mpmul1024": 1024, "mpmul2048": 2048}


def test_model_is_exact() -> None:
    assert model.mul(0, 5) == 0
    assert model.mul((1 << 256) - 1, (1 << 256) - 1) == (1 << 512) - (1 << 257) + 1
    with pytest.raises(ValueError):
        model.mul(-1, 3)


@pytest.mark.parametrize("prim_id", IDS)
def test_vector_file_is_consistent(prim_id: str) -> None:
    """Every record is a correct product with the documented widths, and every size has the edge
    cases the issue asks for."""
    bits = PRIM.instances[prim_id]["bits"]
    vecs = DRIVER.vectors(PRIM, prim_id)
    assert len(vecs) >= 15
    pairs = set()
    for v in vecs:
        a, b, p = (int(v.fields[k], 16) for k in ("A", "B", "P"))
        assert len(v.fields["A"]) == len(v.fields["B"]) == bits // 4, v.where
        assert len(v.fields["P"]) == bits // 2, v.where
        assert p == a * b, v.where
        pairs.add((a, b))
    m = (1 << bits) - 1
    assert (0, 0) in pairs and (m, m) in pairs                                 # zero, all ones
    assert (1 << (bits - 1), 1 << (bits - 1)) in pairs                         # single bits
    assert any(a >> (bits - 32) == 0 and a.bit_length() == bits - 32 for a, _ in pairs)  # top limb zero
    assert sum(1 for a, b in pairs if a == b and a not in (0, m)) >= 2        # equal operands
    first = (PRIM.directory / "vectors" / "mpmul.txt").read_text().splitlines()[0]
    assert first.startswith("# Source:")


def test_edge_operands_fit_and_cover() -> None:
    for bits in (64, 256, 2048):
        cases = edge_operands(bits)
        assert all(0 <= a < 1 << bits and 0 <= b < 1 << bits for _, a, b in cases)
        assert any(a == b for _, a, b in cases)
    rng = random.Random(5)
    xs = [random_operand(rng, 256) for _ in range(300)]
    assert all(0 <= x < 1 << 256 for x in xs)
    # The carry-heavy distribution really produces all-ones and zero limbs.
    limbs = {(x >> (32 * i)) & 0xFFFFFFFF for x in xs for i in range(8)}
    assert {0, 0xFFFFFFFF, 0x80000000} <= limbs


@pytest.fixture(scope="module")
def ref_host() -> dict[str, Firmware]:
    return {i: Firmware(CATALOG.implementation(i, "ref"), i, "host") for i in IDS}


@pytest.mark.parametrize("prim_id", IDS)
def test_ref_edge_cases(ref_host: dict[str, Firmware], prim_id: str) -> None:
    fw = ref_host[prim_id]
    bits = fw.params["bits"]
    for name, a, b in edge_operands(bits):
        got, _ = DRIVER.mul(fw, a, b)
        assert got == a * b, name


def test_ref_mul_n_every_length(ref_host: dict[str, Firmware]) -> None:
    """mul_n at every multiple of 64 bits from 64 to 2048, through every instance's symbol."""
    rng = random.Random(7)
    assert MUL_N_WORDS == tuple(range(2, 65, 2))
    for fw in ref_host.values():
        for words in MUL_N_WORDS:
            m = (1 << (32 * words)) - 1
            for a, b in ((m, m), (rng.getrandbits(32 * words), rng.getrandbits(32 * words)), (0, m)):
                got, _ = DRIVER.mul_n(fw, a, b, words)
                assert got == a * b, (fw.prim_id, words)
    with pytest.raises(ValueError):
        DRIVER.mul_n(ref_host["mpmul256"], 1, 1, 3)


def test_differential_counts_every_case(ref_host: dict[str, Firmware]) -> None:
    fw = ref_host["mpmul512"]
    n = DRIVER.differential(fw, random.Random(1), 200)
    # 200 random pairs + the edge cases at the instance size + mul_n at 320..512 bits (4 lengths x 5)
    assert n == 200 + len(edge_operands(512)) + 4 * 5


def test_mul_n_lengths_cover_64_to_2048_once(ref_host: dict[str, Firmware]) -> None:
    covered = [w for fw in ref_host.values() for w in DRIVER.mul_n_lengths(fw)]
    assert sorted(covered) == list(MUL_N_WORDS)
    assert DRIVER.mul_n_lengths(ref_host["mpmul256"]) == (2, 4, 6, 8)


def test_run_pads_and_rejects(ref_host: dict[str, Firmware]) -> None:
    fw = ref_host["mpmul256"]
    out, _ = DRIVER.run(fw, argparse.Namespace(a="0x123", b="fff"))
    assert len(out) == 64 and int.from_bytes(out, "big") == 0x123 * 0xFFF
    m = "f" * 64
    out, _ = DRIVER.run(fw, argparse.Namespace(a=m, b=m))
    assert int.from_bytes(out, "big") == ((1 << 256) - 1) ** 2
    with pytest.raises(UsageError):
        DRIVER.run(fw, argparse.Namespace(a="1" + "0" * 64, b="1"))      # 257 bits
    with pytest.raises(UsageError):
        DRIVER.run(fw, argparse.Namespace(a="xyz", b="1"))
    with pytest.raises(UsageError):
        DRIVER.run(fw, argparse.Namespace(a=None, b="1"))


def test_ct_cases_vary_secrets_only(ref_host: dict[str, Firmware]) -> None:
    fw = ref_host["mpmul1024"]
    c1 = DRIVER.ct_cases(fw, random.Random(1), 0)
    c2 = DRIVER.ct_cases(fw, random.Random(2), 0)
    assert [c.op for c in c1] == ["mul"] + ["mul_n"] * len(CT_MUL_N_WORDS)
    for x, y in zip(c1, c2):
        assert x.args["a"].data != y.args["a"].data and x.args["b"].data != y.args["b"].data
    assert len(c1[0].args["a"].data) == 128 and c1[0].args["r"].length == 256
    # mul_n: fixed public lengths, the same on every trial and every run (a length drawn per run made the
    # coverage differ from run to run), every even residue mod 8 of them
    c3 = DRIVER.ct_cases(fw, random.Random(1), 12345)
    words = [c.args["nwords"] for c in c1[1:]]
    assert words == [c.args["nwords"] for c in c2[1:]] == [c.args["nwords"] for c in c3[1:]]
    assert set(words) <= set(MUL_N_WORDS) and {w % 8 for w in words} == {0, 2, 4, 6}
    for c in c1[1:]:
        w = c.args["nwords"]
        assert len(c.args["a"].data) == 4 * w and c.args["r"].length == 8 * w


class _FakeFirmware:
    """Stands in for a firmware whose multiplication is wrong in one controlled way, to show the driver
    notices: a flipped bit of the product, a clobbered operand."""

    def __init__(self, fault: str, bits: int = 256):
        self.params = {"bits": bits}
        self.prim_id = f"mpmul{bits}"
        self.impl = CATALOG.implementation(self.prim_id, "ref")
        self.fault = fault

    def has(self, op: str) -> bool:
        return op in ("mul", "mul_n")

    def call(self, op: str, args: dict) -> CallResult:
        words = args["a"].length // 4
        a = int.from_bytes(args["a"].data, "little")
        b = int.from_bytes(args["b"].data, "little")
        p = a * b
        a_after = args["a"].data
        if self.fault == "carry" and a and b:
            p ^= 1 << (32 * words)           # a lost carry in the middle
        if self.fault == "clobber":
            a_after = bytes(len(a_after))
        if self.fault == "mul_n" and op == "mul_n" and words == 6:
            p += 1
        return CallResult(outputs=[to_limbs(p, 2 * words), a_after, args["b"].data], return_value=0,
                          cycles=0, instructions=0, stack_bytes=0)


@pytest.mark.parametrize("fault", ["carry", "clobber", "mul_n"])
def test_driver_catches_faults(fault: str) -> None:
    fw = _FakeFirmware(fault)
    with pytest.raises(Mismatch):
        DRIVER.differential(fw, random.Random(3), 200)   # type: ignore[arg-type]


def test_driver_passes_a_correct_fake() -> None:
    assert DRIVER.differential(_FakeFirmware("none"), random.Random(3), 60) > 60   # type: ignore[arg-type]


def test_vectors_checked_through_both_entries() -> None:
    calls = []

    class Recording(_FakeFirmware):
        def call(self, op: str, args: dict) -> CallResult:
            calls.append(op)
            return super().call(op, args)

    v = read_vectors(PRIM.directory / "vectors" / "mpmul.txt")[4]
    DRIVER.check_vector(Recording("none", 256), v)   # type: ignore[arg-type]
    assert calls == ["mul", "mul_n"]
    with pytest.raises(Mismatch):
        DRIVER.check_vector(_FakeFirmware("carry", 256), v)   # type: ignore[arg-type]


def test_bench_reports_operand_bytes(ref_host: dict[str, Firmware]) -> None:
    ops = DRIVER.bench(ref_host["mpmul2048"])
    assert [(o.op, o.bytes) for o in ops] == [("mul", 256)]


# --- rv32: the generated kernels and the paper's instruction-extension proposals ---------------------

RV32_DIR = PRIM.directory / "rv32"


def _load_script(name: str):
    import importlib.util
    import sys
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, RV32_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module            # dataclasses look their module up there
    spec.loader.exec_module(module)   # type: ignore[union-attr]
    return module


def test_generated_kernels_are_up_to_date() -> None:
    """fast256.S and fast512.S are what gen_fast.py makes of its description today."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(RV32_DIR / "gen_fast.py"), "--check"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_avr_generated_kernel_is_up_to_date() -> None:
    """mpmul_avr.S (avr-kara) is what gen_mpmul_avr.py writes today."""
    import subprocess
    import sys
    gen = RV32_DIR.parent / "avr" / "gen_mpmul_avr.py"
    proc = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generator_arithmetic() -> None:
    """The generator's sequential descriptions compute a*b: interpreted in Python in program order, on
    carry-heavy operands. (The scheduled code that comes out of them is what the generic test runs on
    the board; this separates a wrong description from a wrong schedule.)"""
    gen_fast = _load_script("gen_fast")
    from gen_sched import interpret   # gen_fast put the rv32 folder on sys.path
    rng = random.Random(11)
    kernels = ((gen_fast.kernel256, 8), (lambda: gen_fast.kernel512(split=11), 16),
               (lambda: gen_fast.kernel256(x=True), 8), (gen_fast.kernel512x, 16))
    for build, n in kernels:
        prog = build()
        m = (1 << (32 * n)) - 1
        for a, b in [(m, m), (m, 0), (1 << (32 * n - 1), m)] + \
                [(random_operand(rng, 32 * n), random_operand(rng, 32 * n)) for _ in range(30)]:
            mem = {"a": {4 * i: (a >> 32 * i) & 0xFFFFFFFF for i in range(n)},
                   "b": {4 * i: (b >> 32 * i) & 0xFFFFFFFF for i in range(n)}, "r": {}, "m": {}}
            interpret(prog, mem, {"%a": 0, "%b": 0, "%r": 0})
            assert sum(mem["r"][4 * i] << (32 * i) for i in range(2 * n)) == a * b


def test_extension_proposals_each_verified_and_faster() -> None:
    """Paper 000 section 4.2 on the rv32 board: every per-proposal variant of the paper's kernel computes
    correct products (edge cases, 3 random pairs per size, mul_n at every multiple of 64 bits), and the
    savings have the shape the E31 explains (docs/mpmul.md): maddu and all three save most, addc least,
    and none is slower than the RV32IMAC kernel. A fixed sample: every custom instruction is emulated
    in Python by the board (~37 us), and the catalog's rv32-comba64-xall gets the full generic test."""
    xt = _load_script("xmul64_table")
    _, res = xt.table(trials=3)
    base, a, b, c, every = (v.impl for v in xt.VARIANTS)
    for bits in xt.SIZES:
        cyc = {impl: res[(impl, bits)][0] for impl in (base, a, b, c, every)}
        assert cyc[every] <= cyc[c] < cyc[a] < cyc[b] <= cyc[base], (bits, cyc)
        assert cyc[every] < 0.65 * cyc[base], (bits, cyc)
