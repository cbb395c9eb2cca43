# SPDX-License-Identifier: MIT
"""X25519 (issue 21) beyond the generic test: the model against the published vectors, the vector
selection per board (the boards' subset and the full mode), RFC 7748's iterated test on the host, the rv32
generator's arithmetic apart from its scheduler and its output being current, the driver catching a
wrong result, and `mcucrypt run`. Vectors on every board, the differential test and the constant-time
check of every implementation are the generic test's (tests/test_catalog.py)."""
from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import CallResult
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds import dh
from mcucrypt.kinds.base import Mismatch, UsageError, driver_for
from mcucrypt.models import x25519 as model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
PRIM = CATALOG.by_id("x25519")
DRIVER = dh.DRIVER
P = 2**255 - 19


def test_driver_is_registered() -> None:
    assert driver_for("dh") is DRIVER
    assert PRIM.kind == "dh"


def test_model_passes_every_published_vector() -> None:
    """The model is the oracle of the differential test: it must itself agree with every Wycheproof
    test and RFC 7748's vectors (the iterated ones up to 1,000)."""
    vectors = DRIVER.vectors(PRIM, "x25519")
    wycheproof = [v for v in vectors if "TcId" in v.fields]
    assert len(wycheproof) == 518
    assert {v.fields["Result"] for v in wycheproof} == {"valid", "acceptable"}
    for v in wycheproof:
        assert model.x25519(v.hex("Scalar"), v.hex("U")) == v.hex("Shared"), v.fields["TcId"]
    rfc = [v for v in vectors if "TcId" not in v.fields]
    for v in rfc:
        if "Iterations" not in v.fields:
            assert model.x25519(v.hex("Scalar"), v.hex("U")) == v.hex("Shared"), v.where
    k = u = (9).to_bytes(32, "little")
    k, u = model.x25519(k, u), k
    assert k == next(v.hex("Shared") for v in rfc if v.fields.get("Iterations") == "1")
    assert model.x25519_base(bytes(32)) == model.x25519(bytes(32), (9).to_bytes(32, "little"))


def test_model_decoding_follows_the_rfc() -> None:
    k = model.decode_scalar(b"\xff" * 32)
    assert k & 7 == 0 and k >> 254 == 1
    assert model.decode_u(b"\xff" * 32) == (1 << 255) - 1          # top bit masked, u >= p kept
    point = (P + 2).to_bytes(32, "little")                          # non-canonical u = 2
    assert model.x25519(b"\x42" * 32, point) == model.x25519(b"\x42" * 32, (2).to_bytes(32, "little"))


def test_vector_selection_per_board(monkeypatch: pytest.MonkeyPatch) -> None:
    """host: everything up to 1,000 iterations; the boards: the documented subset and one iteration, every
    Wycheproof test with MCUCRYPT_FULL=1."""
    vectors = DRIVER.vectors(PRIM, "x25519")
    monkeypatch.delenv(dh.FULL_ENV, raising=False)
    chosen = {t: [v for v in vectors if DRIVER._runs_here(t, v)] for t in ("host", "rv32", "armv7m", "avr")}
    wyche = {t: sum("TcId" in v.fields for v in vs) for t, vs in chosen.items()}
    assert wyche == {"host": 518, "rv32": 77, "armv7m": 77, "avr": 77}
    iters = {t: sorted(int(v.fields["Iterations"]) for v in vs if "Iterations" in v.fields)
             for t, vs in chosen.items()}
    assert iters == {"host": [1, 1000], "rv32": [1], "armv7m": [1], "avr": [1]}
    subset = [v for v in chosen["avr"] if "TcId" in v.fields]
    flags = {f for v in subset for f in v.fields["Flags"].split(",")}
    every_flag = {f for v in vectors if "TcId" in v.fields for f in v.fields["Flags"].split(",")}
    assert flags == every_flag                                  # every edge class is represented
    # the portable C on a board: the first test of each flag class (its code is the host's, which runs all)
    ref = {t: [v for v in DRIVER.board_selection(vectors, t, "ref") if "TcId" in v.fields]
           for t in ("host", "rv32", "armv7m", "avr")}
    assert {t: len(vs) for t, vs in ref.items()} == {"host": 518, "rv32": 7, "armv7m": 7, "avr": 7}
    assert {f for v in ref["avr"] for f in v.fields["Flags"].split(",")} == every_flag
    assert len(DRIVER.board_selection(vectors, "avr", "avr-fast")) == len(chosen["avr"])
    monkeypatch.setenv(dh.FULL_ENV, "1")
    for target in ("rv32", "armv7m", "avr"):
        assert sum(DRIVER._runs_here(target, v) for v in vectors if "TcId" in v.fields) == 518
        assert sum("TcId" in v.fields for v in DRIVER.board_selection(vectors, target, "ref")) == 518
    assert [int(v.fields["Iterations"]) for v in vectors if "Iterations" in v.fields and
            DRIVER._runs_here("host", v)] == [1, 1000, 1000000]


@pytest.fixture(scope="module")
def host_ref() -> Firmware:
    return Firmware(CATALOG.implementation("x25519", "ref"), "x25519", "host")


def test_rfc_iterated_on_host(host_ref: Firmware) -> None:
    """RFC 7748 section 5.2: after 1 and 1,000 iterations of k, u = X25519(k, u), k."""
    iterated = [v for v in DRIVER.vectors(PRIM, "x25519") if v.fields.get("Iterations") in ("1", "1000")]
    assert len(iterated) == 2
    for v in iterated:
        DRIVER.check_vector(host_ref, v)


def test_driver_catches_a_wrong_result(host_ref: Firmware, monkeypatch: pytest.MonkeyPatch) -> None:
    vec = next(v for v in DRIVER.vectors(PRIM, "x25519") if v.fields.get("TcId") == "1")
    real = host_ref.call

    def flip(op: str, named, **kw) -> CallResult:
        res = real(op, named, **kw)
        out = [bytes([res.outputs[0][0] ^ 1]) + res.outputs[0][1:], *res.outputs[1:]]
        return CallResult(outputs=out, return_value=res.return_value, cycles=res.cycles,
                          instructions=res.instructions, stack_bytes=res.stack_bytes, trace=res.trace)
    monkeypatch.setattr(host_ref, "call", flip)
    with pytest.raises(Mismatch):
        DRIVER.check_vector(host_ref, vec)
    with pytest.raises(Mismatch):
        DRIVER.differential(host_ref, random.Random(0), 1)


def test_run_input_checks(host_ref: Firmware) -> None:
    opts = argparse.Namespace(key="11" * 32, input=None)
    out, _ = DRIVER.run(host_ref, opts)
    assert out == model.x25519_base(bytes.fromhex("11" * 32))
    with pytest.raises(UsageError):
        DRIVER.run(host_ref, argparse.Namespace(key="11" * 31, input=None))
    with pytest.raises(UsageError):
        DRIVER.run(host_ref, argparse.Namespace(key="11" * 32, input="zz"))


def test_cli_run() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "x25519", "--target", "host",
                           "--impl", "ref", "--key", "77" * 32, "--input", "09" + "00" * 31, "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert model.x25519(b"\x77" * 32, (9).to_bytes(32, "little")).hex() in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "x25519", "--target", "host",
                          "--impl", "ref", "--key", "77"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def _x_double(u: int) -> int | None:
    """x(2Q) from x(Q) = u on curve25519 or its twist (None: the point at infinity), by the doubling
    formula x(2Q) = (u^2 - 1)^2 / (4u (u^2 + A u + 1)), A = 486662: independent of the ladder."""
    den = 4 * u * (u * u + 486662 * u + 1) % P
    return None if den == 0 else (u * u - 1) ** 2 * pow(den, P - 2, P) % P


def test_small_order_list_is_every_small_order_u() -> None:
    """Every u of the list reaches infinity (order 1, 2, 4 or 8) within three doublings and is below
    2^255; the canonical values are the five of orders 2..8 (0, 1, p - 1 and the two of order 8), and
    the non-canonical p, p + 1; with the top bit set, 14 encodings."""
    orders = []
    for u in dh.SMALL_ORDER_U:
        assert u < 2**255
        x, n = u % P, 1
        while x is not None:
            x, n = _x_double(x), 2 * n
            assert n <= 8, u
        orders.append(n)
    assert orders == [2, 4, 8, 8, 4, 2, 4]
    assert len(set(dh.SMALL_ORDER_POINTS)) == 14
    rng = random.Random("small-order")
    for point in dh.SMALL_ORDER_POINTS:
        assert model.x25519(rng.randbytes(32), point) == bytes(32)


def test_x25519_refuses_small_order_points_on_host(host_ref: Firmware) -> None:
    """RFC 7748 section 6.1: x25519 returns -1 (all-zero output) for every small-order point and 0
    otherwise; x25519_unchecked writes the same zeros and no verdict. (The boards: the generic
    differential test, dh.small_order_points.)"""
    from mcucrypt.boards.base import Buf
    rng = random.Random("refuse")
    for point in dh.SMALL_ORDER_POINTS:
        scalar = rng.randbytes(32)
        res = host_ref.call("x25519", {"shared": Buf(size=32, out=True), "scalar": Buf(scalar), "point": Buf(point)})
        assert res.outputs[0] == bytes(32) and res.return_value & 0xFFFFFFFF == 0xFFFFFFFF, point.hex()
        assert DRIVER.x25519(host_ref, scalar, point, op="x25519_unchecked")[0] == bytes(32)
    scalar, point = rng.randbytes(32), model.x25519_base(rng.randbytes(32))
    res = host_ref.call("x25519", {"shared": Buf(size=32, out=True), "scalar": Buf(scalar), "point": Buf(point)})
    assert res.return_value == 0 and res.outputs[0] == model.x25519(scalar, point)


def test_whole_x25519_passes_taint_on_avr() -> None:
    """The catalog's AVR constant-time case is the ladder alone (a whole call does not fit the trace
    mode); the verdict (OR of the result, folded, declassified) is checked here: one whole avr-fast call
    in taint mode, a small-order point (the -1 path; the code path is the same for every input)."""
    from mcucrypt.boards.base import Buf
    from mcucrypt.ct import taint_spec
    fw = Firmware(CATALOG.implementation("x25519", "avr-fast"), "x25519", "avr")
    res = fw.call("x25519", {"shared": Buf(size=32, out=True), "scalar": Buf(bytes(range(7, 39))),
                             "point": Buf(dh.SMALL_ORDER_POINTS[2])}, taint=taint_spec(fw, "x25519"))
    assert res.return_value == 0xFFFF and res.outputs[0] == bytes(32)
    assert res.taint == [], res.taint


def test_driver_catches_a_wrong_verdict(host_ref: Firmware, force_verdict) -> None:
    small, fine = dh.SMALL_ORDER_POINTS[2], (9).to_bytes(32, "little")
    for value, point in ((0, small), (0xFFFFFFFF, fine), (1, fine)):    # accepted, refused, neither 0 nor -1
        force_verdict(host_ref, value)
        with pytest.raises(Mismatch):
            DRIVER.x25519(host_ref, b"\x01" * 32, point)


def test_cli_run_refuses_a_small_order_point() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "x25519", "--target", "host",
                           "--impl", "ref", "--key", "77" * 32, "--input", dh.SMALL_ORDER_POINTS[3].hex()],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "small order" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _gen_fe():
    path = ROOT / "crypto" / "x25519" / "rv32" / "gen_fe.py"
    spec = importlib.util.spec_from_file_location("gen_fe", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rv32_generated_code_is_current() -> None:
    proc = subprocess.run([sys.executable, "crypto/x25519/rv32/gen_fe.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rv32_generator_arithmetic() -> None:
    """The single-assignment descriptions behind fe_rv32.S, run in Python (no scheduler): congruent
    mod p and below 2^256 on edge and random inputs."""
    gen = _gen_fe()
    from gen_sched import interpret  # noqa: E402  (gen_fe put crypto/mpmul/rv32 on sys.path)
    rng = random.Random("gen_fe")
    m = (1 << 256) - 1
    values = dh.fe_edge_values() + [rng.randrange(1 << 256) for _ in range(40)] + [m - rng.randrange(1 << 40)]

    def words(x: int) -> dict[int, int]:
        return {4 * i: (x >> (32 * i)) & 0xFFFFFFFF for i in range(8)}

    for n, a in enumerate(values):
        b = values[(7 * n + 3) % len(values)]
        mem = {"r": {}, "a": words(a), "b": words(b)}
        interpret(gen.fe_mul(("r", "a", "b")), mem, {"%r": 0, "%a": 0, "%b": 0})
        r = sum(mem["r"][4 * i] << (32 * i) for i in range(8))
        assert r <= m and r % P == a * b % P, (hex(a), hex(b))
        mem = {"r": {}, "a": words(a)}
        interpret(gen.fe_sqr(("r", "a")), mem, {"%r": 0, "%a": 0})
        r = sum(mem["r"][4 * i] << (32 * i) for i in range(8))
        assert r <= m and r % P == a * a % P, hex(a)
        mem = {"r": {}, "a": words(a), "r2": {}, "a2": words(b), "frame": {}}
        interpret(gen.fe_sqr2(("r", "a", "r2", "a2")), mem, {"%r": 0, "%a": 0, "%arg:r2": 0, "%arg:a2": 0, "%sp": 0})
        for out, x in (("r", a), ("r2", b)):
            r = sum(mem[out][4 * i] << (32 * i) for i in range(8))
            assert r <= m and r % P == x * x % P, ("sqr2", hex(x))
        c = values[(3 * n + 1) % len(values)]
        mem = {"r": {}, "a": words(a), "b": words(b), "r2": {}, "a2": words(c), "b2": words(a), "frame": {}}
        interpret(gen.fe_mul2(("r", "a", "b", "r2", "a2", "b2")), mem,
                  {"%r": 0, "%a": 0, "%b": 0, "%arg:r2": 0, "%arg:a2": 0, "%arg:b2": 0, "%sp": 0})
        for out, x, y in (("r", a, b), ("r2", c, a)):
            r = sum(mem[out][4 * i] << (32 * i) for i in range(8))
            assert r <= m and r % P == x * y % P, ("mul2", hex(x), hex(y))
        # fe_sqr2_mul2 as the ladder step's second call uses it: the last product reads the second square,
        # and is left unfolded: its words (below 2^255) + 19 T' (T' < 83, stored through tp)
        mem = {"r1": {}, "a1": words(a), "q": words(c), "a2": words(b), "r3": {}, "a3": words(c), "b3": words(b),
               "b4": words(a), "frame": {}, "tp": {}}
        interpret(gen.fe_sqr2_mul2(("r1", "a1", "q", "a2", "r3", "a3", "b3", "q", "q", "b4")), mem,
                  {"%r": 0, "%a": 0, **{f"%arg:{k}": 0 for k in ("r2", "a2", "r3", "a3", "b3", "r4", "a4", "b4", "tp")},
                   "%sp": 0})
        r, top = sum(mem["q"][4 * i] << (32 * i) for i in range(8)), mem["tp"][0]
        assert r < 2**255 and top < 83 and (r + 19 * top) % P == b * b * a % P, ("sqr2_mul2", hex(a), hex(b))
        for out, want in (("r1", a * a), ("r3", c * b)):
            r = sum(mem[out][4 * i] << (32 * i) for i in range(8))
            assert r <= m and r % P == want % P, ("sqr2_mul2", out)
        # fe_double: x2, z2 over x, z in place (the ladder's fixed bits)
        mem = {"x": words(a), "z": words(b), "frame": {}}
        interpret(gen.fe_double(("x", "z")), mem, {"%x2": 0, "%z2": 0, "%x": 0, "%z": 0, "%sp": 0})
        aa, bb = (a + b) ** 2, (a - b) ** 2
        for out, want in (("x", aa * bb), ("z", (aa - bb) * (aa + 121665 * (aa - bb)))):
            r = sum(mem[out][4 * i] << (32 * i) for i in range(8))
            assert r <= m and r % P == want % P, ("double", out, hex(a), hex(b))


def test_rv32_step_routines_arithmetic() -> None:
    """The single-assignment descriptions of rv32-fast's step routines (fe_prep: swap, the top-first
    additions and subtractions; fe_mul_ef_sd: E, F, S, Dd, AA BB), run in Python without
    the scheduler from random and edge states (carries and borrows of the top-first chains): every
    result below 2^256 and congruent mod p to RFC 7748's formulas."""
    gen = _gen_fe()
    from gen_sched import interpret  # noqa: E402
    rng = random.Random("gen_fe/step")
    m = (1 << 256) - 1
    edges = dh.fe_edge_values() + [m - 12, 2**255 + 2**224 - 1, 2**224, 2**255 - 2**224]

    def words(x: int, base: int = 0) -> dict[int, int]:
        return {base + 4 * i: (x >> (32 * i)) & 0xFFFFFFFF for i in range(8)}

    def value(mem: dict[int, int], base: int = 0) -> int:
        return sum(mem[base + 4 * i] << (32 * i) for i in range(8))
    prep, rest = gen.fe_prep(), gen.fe_mul_ef_sd()
    for trial in range(24):
        state = [rng.randrange(1 << 256) for _ in range(5)] if trial < 4 else \
            [rng.choice(edges + [m - rng.randrange(64), rng.randrange(64)]) for _ in range(5)]
        swap = trial & 1
        # z3 as the previous step's last product leaves it: its words below 2^255, plus 19 T'z3 (t[49])
        state[4] &= (1 << 255) - 1
        tz3 = rng.choice([0, 1, 82, rng.randrange(83)])
        st: dict[int, int] = {}
        for k, v in enumerate(state):
            st.update(words(v, 32 * k))
        mem = {"st": st, "t": {4 * gen.TZ3: tz3}}
        interpret(prep, mem, {"%st": 0, "%swap": swap, "%t": 0})
        x1, x2, z2, x3, z3 = state
        z3 += 19 * tz3
        if swap:
            x2, z2, x3, z3 = x3, z3, x2, z2
        for k, want in enumerate((x2 + z2, x2 - z2, x3 + z3, x3 - z3)):
            r = value(mem["t"], 32 * k)
            assert r <= m and (r - want) % P == 0, ("prep", trial, k)
        aa, bb = rng.choice(edges + [rng.randrange(1 << 256)]), rng.choice(edges + [m - rng.randrange(64)])
        da, cb = rng.choice(edges + [rng.randrange(1 << 256)]), rng.choice(edges + [rng.randrange(1 << 256)])
        mem["t"].update(words(aa, 128))
        mem["t"].update(words(bb, 160))
        mem["st"].update(words(da, 32))
        cb &= (1 << 255) - 1        # CB as fe_sqr2_mul2 leaves it: words below 2^255 + 19 T'cb (t[48])
        tcb = rng.choice([0, 1, 82, rng.randrange(83)])
        mem["st"].update(words(cb, 64))
        mem["t"][4 * gen.TCB] = tcb
        cb += 19 * tcb
        interpret(rest, mem, {"%st": 0, "%t": 0, "%sp": 0})
        e = aa - bb
        for base, want in ((64, e), (96, aa + 121665 * e), (0, da + cb), (32, da - cb)):
            r = value(mem["t"], base)
            assert r <= m and (r - want) % P == 0, ("ef_sd", trial, base)
        assert value(mem["st"], 32) <= m and (value(mem["st"], 32) - aa * bb) % P == 0


@pytest.mark.parametrize("impl,target", [("rv32-fast", "rv32"), ("cm3-fast", "armv7m"), ("avr-fast", "avr")])
def test_assembly_ladder_step_edge_states(impl: str, target: str) -> None:
    """The ladder with the assembly step (X25519_GLUE_ASM 3, 4 and 5) through the exported ladder, from states at the
    edges of the additions' and subtractions' carries and borrows (x2 + z2 near 2^257, x2 - z2 just
    below 0: the double folds; then random edge values), against the model: six bits, three steps
    and the three closing doublings (ladder.c's fe_double from the same edge states)."""
    fw = Firmware(CATALOG.implementation("x25519", impl), "x25519", target)
    rng = random.Random(f"step/{impl}")
    m = (1 << 256) - 1
    edges = dh.fe_edge_values()
    fixed = [[1, m, m, m - 1, m], [1, 0, m, 1, m - 37], [9, m - 37, 38, 0, 37], [P, P - 1, P + 18, m, 0]]
    for trial in range(8):
        state = fixed[trial] if trial < len(fixed) else [rng.choice(edges + [m - rng.randrange(64)]) for _ in range(5)]
        k = rng.randbytes(32)
        got = DRIVER.ladder(fw, state, k, 6)[0]
        want = model.ladder_clamped(tuple(state), int.from_bytes(k, "little"), 6)
        assert all(g <= m and (g - w) % P == 0 for g, w in zip(got, want)), (trial, state)


def test_rv32_assembly_loop_swap_words() -> None:
    """rv32-fast's loop (X25519_GLUE_ASM=5): ladder.c cuts the swap bits k_t ^ k_(t+1) into words of up to
    32 steps for the assembly; the exported ladder over bit counts whose words start at bit 0 of a word
    of k (64, 256: the top bit 255 with the pending swap above it) or inside one (35, 36, 67), from
    random states and scalars with every top bit pattern, against the model."""
    fw = Firmware(CATALOG.implementation("x25519", "rv32-fast"), "x25519", "rv32")
    rng = random.Random("rv32/loop")
    for bits in (35, 36, 64, 67, 256):
        state, k = [rng.randrange(1 << 256) for _ in range(5)], rng.randbytes(32)
        got = DRIVER.ladder(fw, state, k, bits)[0]
        want = model.ladder_clamped(tuple(state), int.from_bytes(k, "little"), bits)
        assert all(g >> 256 == 0 and (g - w) % P == 0 for g, w in zip(got, want)), bits


def test_cm3_generated_squaring_is_current() -> None:
    proc = subprocess.run([sys.executable, "crypto/x25519/armv7m/gen_fe.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cm3_has_no_variable_time_multiply() -> None:
    """UMULL/UMLAL/SMULL/SMLAL terminate early on the M3 and UDIV/SDIV take operand-dependent time:
    none may appear in an armv7m image (GCC turns a 64-bit shifted sum into UMLAL if let; see
    ref/fe_reduce.h). The checker would find them too, but only on the operands it draws."""
    for impl in ("ref", "cm3-fast"):
        fw = Firmware(CATALOG.implementation("x25519", impl), "x25519", "armv7m")
        dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(fw.image.path)], capture_output=True,
                             text=True, check=True).stdout
        bad = [l for l in dis.splitlines() if any(f"\t{m}" in l for m in ("umull", "umlal", "smull", "smlal",
                                                                          "udiv", "sdiv"))]
        assert not bad, f"{impl}: {bad[:3]}"


def test_avr_generated_code_is_current() -> None:
    proc = subprocess.run([sys.executable, "crypto/x25519/avr/gen_fe.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_avr_generated_inversion_is_current() -> None:
    proc = subprocess.run([sys.executable, "crypto/x25519/avr/gen_inv.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _avr_run(lines: list[str], reg: list[int], mem: bytearray) -> None:
    """The AVR instructions avr-fast's inline step passes use, on byte registers and a flat memory
    (only C matters between them: no pass branches)."""
    c = 0

    def r(x: str) -> int:
        return int(x[1:])
    for line in lines:
        op, _, args = line.split(";")[0].strip().partition(" ")
        if not op:
            continue
        ar = [x.strip() for x in args.split(",")]
        if op in ("ldi", "andi"):
            assert r(ar[0]) >= 16, line                 # the assembler's rule, checked here too
        if op in ("ldd", "std"):
            mreg, off = ar[1 if op == "ldd" else 0].split("+")
            addr = reg[28 if mreg == "Y" else 30] | reg[29 if mreg == "Y" else 31] << 8
            if op == "ldd":
                reg[r(ar[0])] = mem[addr + int(off)]
            else:
                mem[addr + int(off)] = reg[r(ar[1])]
            continue
        d = r(ar[0])
        if op == "movw":
            assert d % 2 == 0 and r(ar[1]) % 2 == 0, line
            reg[d:d + 2] = reg[r(ar[1]):r(ar[1]) + 2]
        elif op in ("mov", "clr", "ldi", "eor", "and", "andi", "com"):
            s = {"mov": lambda: reg[r(ar[1])], "clr": lambda: 0, "ldi": lambda: int(ar[1], 0),
                 "eor": lambda: reg[d] ^ reg[r(ar[1])], "and": lambda: reg[d] & reg[r(ar[1])],
                 "andi": lambda: reg[d] & int(ar[1], 0), "com": lambda: reg[d] ^ 0xFF}[op]()
            c = 1 if op == "com" else c
            reg[d] = s & 0xFF
        elif op in ("add", "adc", "sub", "sbc", "neg"):
            v = {"add": reg[d] + reg[r(ar[-1])], "adc": reg[d] + reg[r(ar[-1])] + c, "neg": -reg[d],
                 "sub": reg[d] - reg[r(ar[-1])], "sbc": reg[d] - reg[r(ar[-1])] - c}[op]
            c = (v >> 8) & 1 if op in ("add", "adc") else int(v < 0 if op != "neg" else v != 0)
            reg[d] = v & 0xFF
        elif op in ("rol", "lsl"):
            v = reg[d] << 1 | (c if op == "rol" else 0)
            c, reg[d] = v >> 8, v & 0xFF
        elif op == "lsr":
            c, reg[d] = reg[d] & 1, reg[d] >> 1
        elif op == "mul":
            v = reg[d] * reg[r(ar[1])]
            reg[0], reg[1], c = v & 0xFF, v >> 8, v >> 15
        else:
            raise AssertionError(f"not modelled: {line}")


def _gen_fe_avr():
    spec = importlib.util.spec_from_file_location("gen_fe_avr", ROOT / "crypto" / "x25519" / "avr" / "gen_fe.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def test_avr_recombine_reduce_arithmetic() -> None:
    """avr-fast's recombination and reduction (gen_fe.py recombine_reduce, shared by fe_mul and fe_sqr:
    top first, r's multiple of 2^255 estimated from its top byte) run instruction by instruction on the
    three Karatsuba products of operands whose halves are at the edges (0, 1, 2^128 - 1, 2^127, top
    bytes 0 or 0xff, random bit lengths): r below 2^256 and congruent to a b mod p, both signs of M."""
    gen = _gen_fe_avr()
    rng = random.Random("avr/recombine")
    h = (1 << 128) - 1
    halves = [0, 1, 2, h, h - 1, 1 << 127, (1 << 127) - 1, 0xff << 120, 1 << 120, (1 << 120) - 1, 1 << 64] + \
        [rng.randrange(1 << rng.randrange(1, 129)) for _ in range(6)]
    code = {}
    for minus in (False, True):
        a = gen.Asm()
        gen.recombine_reduce(a, "r23", minus)
        code[minus] = [line for line in a.lines if not line.strip().startswith(";")]
    for x in halves:
        for y in halves:
            for minus, a_, b_ in ((True, x << 128 | y, x << 128 | y), (False, x << 128 | y, rng.choice(halves) << 128 | rng.choice(halves))):
                al, ah, bl, bh = a_ & h, a_ >> 128, b_ & h, b_ >> 128
                mem = bytearray(256)
                mem[0:32] = (al * bl).to_bytes(32, "little")          # t = L | H at Y = 0
                mem[32:64] = (ah * bh).to_bytes(32, "little")
                mem[128:160] = (abs(al - ah) * abs(bl - bh)).to_bytes(32, "little")   # M at Z = r = 128
                reg = [rng.randrange(256) for _ in range(32)]
                reg[23] = 0xFF if (al - ah) * (bl - bh) >= 0 else 0   # q: the middle term takes -M
                reg[28:32] = [0, 0, 128, 0]
                _avr_run(code[minus], reg, mem)
                r = int.from_bytes(mem[128:160], "little")
                assert (r - a_ * b_) % P == 0, (minus, hex(a_), hex(b_))


def test_avr_step_passes_arithmetic() -> None:
    """avr-fast's inline step passes (gen_fe.py: swap_abcd, sum_diff, e_a24; top-first chains that carry
    0..2 between chunks, no fold pass) on operands at the edges of those carries (x + z near 2^257, x - z
    near -2^256, top bytes around 0x7f/0x80, low bytes all ones), run instruction by instruction from
    the generator's lines: every result below 2^256 and congruent mod p."""
    gen = _gen_fe_avr()
    m = (1 << 256) - 1
    rng = random.Random("avr/step-passes")
    low = (1 << 248) - 1
    vals = [0, 1, m, m - 1, m - 37, 1 << 255, (1 << 255) - 1, P, 0xff << 248, 0x80 << 248, 0x7f << 248, 57,
            0xFFFF, 0x10000 - 57] + [t << 248 | low for t in (0, 0x7f, 0x80, 0xfe)] + [rng.randrange(m) for _ in range(4)]
    passes = {}
    for name in ("swap_abcd", "sum_diff", "e_a24"):
        a = gen.Asm()
        getattr(gen, name)(a)
        passes[name] = [line for line in a.lines if not line.strip().startswith(";")]

    def run(name: str, ops: list[int], swap: int = 0) -> list[int]:
        mem = bytearray(512)
        for k, v in enumerate(ops):                      # Y = 64 (two operands), Z = 256 (two more)
            base = (64, 96, 256, 288)[k]
            mem[base:base + 32] = v.to_bytes(32, "little")
        reg = [rng.randrange(256) for _ in range(32)]
        reg[28:32] = [64, 0, 0, 1]
        reg[20] = swap
        _avr_run(passes[name], reg, mem)
        return [int.from_bytes(mem[b:b + 32], "little") for b in (64, 96, 256, 288)]
    for x in vals:
        for z in vals:
            _, _, s, d = run("sum_diff", [z, x])          # CB at Y, DA at Y+32; x3, z3 at Z
            assert s <= m and d <= m and (s - x - z) % P == 0 and (d - x + z) % P == 0, ("sum_diff", hex(x), hex(z))
            e, f = run("e_a24", [x, z])[2:]             # AA at Y, BB at Y+32; E, F at Z
            assert e <= m and f <= m and (e - x + z) % P == 0 and (f - x - 121665 * e) % P == 0, ("e_a24", hex(x), hex(z))
    for trial in range(600):
        x2, z2, x3, z3 = (rng.choice(vals) for _ in range(4))
        swap = trial & 1
        c, d, a_, b = run("swap_abcd", [x2, z2, x3, z3], swap)
        if swap:
            x2, z2, x3, z3 = x3, z3, x2, z2
        for got, want in ((a_, x2 + z2), (b, x2 - z2), (c, x3 + z3), (d, x3 - z3)):
            assert got <= m and (got - want) % P == 0, ("swap_abcd", trial, hex(x2), hex(z2), hex(x3), hex(z3))


@pytest.mark.parametrize("impl,target", [("rv32-fast", "rv32"), ("cm3-fast", "armv7m"), ("avr-fast", "avr")])
def test_assembly_glue_edge_cases(impl: str, target: str) -> None:
    """fe_cswap2 in assembly, called directly: every fast implementation has its additions,
    subtractions and a24 inside the ladder step (the step's edges: the test above; the top-first
    chains' arithmetic: test_rv32_step_routines_arithmetic and test_avr_step_passes_arithmetic)."""
    from mcucrypt.boards.base import Buf, Int
    fw = Firmware(CATALOG.implementation("x25519", impl), "x25519", target)
    sym = f"mcu_x25519_{impl.replace('-', '_')}_"
    rng = random.Random(f"glue/{impl}")
    x, y = rng.randbytes(64), rng.randbytes(64)
    for swap in (0, 1):
        res = fw.board.call(sym + "fe_cswap2", [Buf(x, out=True), Buf(y, out=True), Int(swap, 4)])
        assert tuple(res.outputs) == ((y, x) if swap else (x, y))


def test_rv32_generated_inversion_is_current() -> None:
    """rv32-fast's generated safegcd updates: inv_update_rv32.S current, and the single-assignment
    description's arithmetic (gen_sched.interpret) equal to integer arithmetic on random matrices."""
    for flag in ("--check", "--selftest"):
        proc = subprocess.run([sys.executable, "crypto/x25519/rv32/gen_inv.py", flag], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("impl,target,canonical", [("rv32-fast", "rv32", True), ("avr-fast", "avr", False)])
def test_own_inversion_edge_values(impl: str, target: str, canonical: bool) -> None:
    """An implementation's own fe_invert (X25519_OWN_INVERT=1; safegcd: rv32-fast's rv32/inv_rv32.c,
    avr-fast's avr/inv_avr.S), called directly: r = 1/z mod p (0 for z = 0 mod p; canonical, below p, on
    rv32-fast) for z at the edges (multiples of p and their neighbours, all-ones, powers of two: long runs
    of zero or one bits, which drive delta far from 0 and keep g even for many steps; z >= p) and random
    z, against Python's pow(z, p - 2, p); the output must not depend on what the result buffer held."""
    from mcucrypt.boards.base import Buf
    fw = Firmware(CATALOG.implementation("x25519", impl), "x25519", target)
    rng = random.Random("inv/" + impl)
    m = (1 << 256) - 1
    values = [0, 1, 2, 3, P - 1, P, P + 1, 2 * P - 1, 2 * P, 2 * P + 1, (1 << 255) - 1, 1 << 255, m, m - 1, 19, 38]
    values += [1 << k for k in (1, 7, 8, 29, 30, 31, 64, 127, 128, 200, 253, 254)]
    values += [(1 << k) - 1 for k in (16, 30, 128, 254)] + [P - (1 << k) for k in (5, 100, 250)]
    values += [m ^ ((1 << k) - 1) for k in (8, 100, 200)] + [(m >> k) << k for k in (3, 130)]
    values += [rng.randrange(1 << 256) for _ in range(16)] + [rng.randrange(P) | 1 for _ in range(4)]
    sym = f"mcu_x25519_{impl.replace('-', '_')}_fe_invert"
    for z in values:
        res = fw.board.call(sym, [Buf(rng.randbytes(32), out=True), Buf(z.to_bytes(32, "little"))])
        r = int.from_bytes(res.outputs[0], "little")
        assert r % P == pow(z, P - 2, P), hex(z)
        assert r < P or not canonical, hex(z)
