# SPDX-License-Identifier: MIT
"""Ascon (issue 20) and the hash and suite kind drivers: what the generic catalog test does not cover.

The generic test (test_catalog.py) already runs the official KATs of the four functions on every
implementation and target (all of them, except Hash256/XOF128 messages over 256 bytes on the boards:
every 8th; `mcucrypt bench` runs them all), the differential test (random lengths 0..200, one flipped bit of every
ciphertext, incremental hashing in random pieces) and the constant-time checker. Here:
- the model against the official vectors (a quarter of each file: the model is plain Python and slow);
- forgeries of every kind rejected with nothing released, on the same instructions and cycles as an
  accepted decryption (the tag compare and the wipe are branch-free), also through rv32-fast's one-call
  AEAD driver;
- the assembly block loops (aligned buffers) against the byte-wise C path (misaligned buffers);
- incremental hashing byte by byte and squeezing in pieces; the catalog's per-id ops; `mcucrypt run`.
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import Buf, Int
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware as firmware
from mcucrypt.kinds import aead, hash as hash_kind
from mcucrypt.kinds.base import UsageError, driver_for
from mcucrypt.models import ascon as model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
PRIM = CATALOG.by_id("asconaead128")
IDS = ["asconaead128", "asconhash256", "asconxof128", "asconcxof128"]
FAST = [("rv32-fast", "rv32"), ("rv32-zbkb", "rv32"), ("armv7m-fast", "armv7m"), ("armv7m-bi32", "armv7m")]


# ------------------------------------------------------------------------------------------- model
@pytest.mark.parametrize("prim_id", IDS)
def test_model_matches_official_vectors(prim_id: str) -> None:
    vectors = driver_for("suite").vectors(PRIM, prim_id)
    assert len(vectors) >= 1025
    for v in vectors[::4]:
        if prim_id == "asconaead128":
            key, nonce, ad, pt, ct = (v.hex(f) for f in ("Key", "Nonce", "AD", "PT", "CT"))
            assert model.encrypt(prim_id, key, nonce, ad, pt) == ct, v.where
            assert model.decrypt(prim_id, key, nonce, ad, ct) == pt, v.where
        else:
            z = v.hex("Z") if v.get("Z") is not None else b""
            assert model.digest(prim_id, v.hex("Msg"), len(v.hex("MD")), z) == v.hex("MD"), v.where


def test_catalog_ops_per_id() -> None:
    assert PRIM.kind == "suite" and driver_for("suite").of(firmware("asconhash256", "ref", "host")).kind == "hash"
    impl = CATALOG.implementation("asconhash256", "ref")
    assert impl.symbols("asconhash256") == [f"mcu_asconhash256_ref_{op}" for op in ("hash", "init", "update", "final")]
    assert impl.symbols("asconaead128") == ["mcu_asconaead128_ref_aead_encrypt", "mcu_asconaead128_ref_aead_decrypt"]


# ---------------------------------------------------------------------------------------- forgeries
FORGERY_TARGETS = [("ref", "host"), ("avr-fast", "avr"), ("armv7m-fast", "armv7m"), ("armv7m-bi32", "armv7m"),
                   ("rv32-zbkb", "rv32"), ("rv32-fast", "rv32")]


@pytest.mark.parametrize("impl,target", FORGERY_TARGETS)
def test_forgeries_release_nothing(impl: str, target: str) -> None:
    fw = firmware("asconaead128", impl, target)
    rng = random.Random(20)
    key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(16), rng.randbytes(21), rng.randbytes(37)
    ct = model.encrypt("asconaead128", key, nonce, ad, pt)
    forged = [(nonce, ad, aead.AeadDriver.flip_bit(ct, bit)) for bit in (0, 8 * 36 + 7, 8 * len(ct) - 1, 8 * 40)]
    forged += [(nonce, ad[:-1], ct), (bytes(16), ad, ct), (nonce, ad, ct[:-1]), (nonce, ad, ct[:15])]
    for n, a, c in forged:
        r = aead.DRIVER.decrypt(fw, key, n, a, c)
        assert aead.DRIVER.released_nothing(r), (n.hex(), a.hex(), c.hex(), r)
    good = aead.DRIVER.decrypt(fw, key, nonce, ad, ct)
    assert good.ok and good.output == pt


@pytest.mark.parametrize("impl,target", [("ref", "armv7m"), ("armv7m-fast", "armv7m"), ("armv7m-bi32", "armv7m"),
                                         ("rv32-zbkb", "rv32"), ("rv32-fast", "rv32")])
def test_rejection_runs_the_acceptance_path(impl: str, target: str) -> None:
    """A wrong tag byte anywhere costs the same instructions and cycles as the right tag."""
    fw = firmware("asconaead128", impl, target)
    key, nonce = bytes(range(16)), bytes(range(16, 32))
    ct = model.encrypt("asconaead128", key, nonce, b"ad", bytes(40))

    def run(c: bytes):
        return fw.call("aead_decrypt", {
            "m": Buf(size=40, out=True), "mlen": Buf(size=8, out=True), "nsec": Buf(b""), "c": Buf(c),
            "clen": Int(len(c), 8), "ad": Buf(b"ad"), "adlen": Int(2, 8), "npub": Buf(nonce), "k": Buf(key)},
            trace=True)

    ok = run(ct)
    assert ok.return_value == 0
    for pos in (40, 47, 55):
        bad = run(aead.AeadDriver.flip_bit(ct, 8 * pos))
        assert bad.return_value != 0 and not any(bad.outputs[0])
        assert bad.cycles == ok.cycles and bad.trace.pcs == ok.trace.pcs


@pytest.mark.parametrize("adlen,mlen", [(16, 16), (0, 13), (33, 0)])
def test_rv32_fast_driver_rejection(adlen: int, mlen: int) -> None:
    """rv32-fast's one-call AEAD driver: whole blocks (the padding alone), a received tag that is not
    4-byte aligned (compared byte-wise in the assembly), an empty message. A wrong tag byte costs the
    same instructions and cycles as the right tag and releases nothing; the driver runs (not the
    C modes), and misaligned buffers do take the C modes."""
    fw = firmware("asconaead128", "rv32-fast", "rv32")
    rng = random.Random(f"driver/{adlen}/{mlen}")
    key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(16), rng.randbytes(adlen), rng.randbytes(mlen)
    ct = model.encrypt("asconaead128", key, nonce, ad, pt)

    def run(c: bytes, mis: int = 0):
        return fw.call("aead_decrypt", {
            "m": Buf(size=mlen, out=True), "mlen": Buf(b"\xff" * 8, out=True), "nsec": Buf(b""), "c": Buf(c),
            "clen": Int(len(c), 8), "ad": Buf(ad), "adlen": Int(adlen, 8), "npub": Buf(nonce),
            "k": Buf(key, misalign=mis)}, trace=True)

    def driver_ran(res) -> bool:
        return any(fw.board.symbol_at(pc).startswith("mcu_ascon_rv32_fast_aead_dec") for pc in res.trace.pcs)

    ok = run(ct)
    assert ok.return_value == 0 and ok.outputs[0] == pt and int.from_bytes(ok.outputs[1], "little") == mlen
    assert driver_ran(ok)
    for pos in (mlen, mlen + 15):
        bad = run(aead.AeadDriver.flip_bit(ct, 8 * pos + 3))
        assert bad.return_value != 0 and not any(bad.outputs[0]) and not any(bad.outputs[1])
        assert bad.cycles == ok.cycles and bad.trace.pcs == ok.trace.pcs
        if mlen:    # nor does the RAM keep it: the driver's job (on the stack) held the last block
            from mcucrypt.boards.rv32 import DTIM_BASE, DTIM_SIZE
            assert pt[-(mlen % 16 or 16):] not in bytes(fw.board._uc.mem_read(DTIM_BASE, DTIM_SIZE))
    slow = run(ct, mis=1)
    assert slow.return_value == 0 and slow.outputs[0] == pt and not driver_ran(slow)


# -------------------------------------------------------------------- assembly blocks vs byte path
@pytest.mark.parametrize("impl,target", FAST)
def test_misaligned_buffers_take_the_c_path(impl: str, target: str) -> None:
    """The rv32 assembly block loops run for 4-byte-aligned buffers, misaligned ones go byte-wise
    through the C modes; the Cortex-M3 loops read lanes with unaligned loads. Every path agrees with
    the model."""
    rng = random.Random(impl)
    fw = firmware("asconaead128", impl, target)
    hw = firmware("asconhash256", impl, target)
    for mis in (0, 1, 3):
        key, nonce, ad, pt = rng.randbytes(16), rng.randbytes(16), rng.randbytes(35), rng.randbytes(50)
        want = model.encrypt("asconaead128", key, nonce, ad, pt)
        res = fw.call("aead_encrypt", {
            "c": Buf(size=len(want), out=True, misalign=mis), "clen": Buf(size=8, out=True),
            "m": Buf(pt, misalign=mis), "mlen": Int(len(pt), 8), "ad": Buf(ad, misalign=mis),
            "adlen": Int(len(ad), 8), "nsec": Buf(b""), "npub": Buf(nonce), "k": Buf(key, misalign=mis)})
        assert res.outputs[0] == want, mis
        res = fw.call("aead_decrypt", {
            "m": Buf(size=len(pt), out=True, misalign=mis), "mlen": Buf(size=8, out=True), "nsec": Buf(b""),
            "c": Buf(want, misalign=(mis + 1) % 4), "clen": Int(len(want), 8), "ad": Buf(ad, misalign=mis),
            "adlen": Int(len(ad), 8), "npub": Buf(nonce), "k": Buf(key)})
        assert res.return_value == 0 and res.outputs[0] == pt, mis
        msg = rng.randbytes(45)
        res = hw.call("hash", {"out": Buf(size=32, out=True, misalign=mis), "in": Buf(msg, misalign=mis),
                               "inlen": Int(len(msg), 8)})
        assert res.outputs[0] == model.hash256(msg), mis


# ------------------------------------------------------------------------------------- incremental
@pytest.mark.parametrize("prim_id", ["asconhash256", "asconxof128", "asconcxof128"])
def test_incremental_byte_by_byte(prim_id: str) -> None:
    fw = firmware(prim_id, "ref", "host")
    rng = random.Random(prim_id)
    msg, z = rng.randbytes(27), rng.randbytes(9) if prim_id == "asconcxof128" else b""
    outs = [32] if prim_id == "asconhash256" else [1, 7, 8, 0, 17]
    want = model.digest(prim_id, msg, sum(outs), z)
    got = hash_kind.DRIVER.incremental(fw, [msg[i:i + 1] for i in range(len(msg))], outs, z)
    assert got == want
    got = hash_kind.DRIVER.incremental(fw, [b"", msg[:8], b"", msg[8:]], outs, z)
    assert got == want


# --------------------------------------------------------------------------------------------- run
def _opts(**kw) -> argparse.Namespace:
    base = {"key": None, "nonce": None, "ad": None, "input": None, "decrypt": False, "outlen": None, "z": None}
    return argparse.Namespace(**{**base, **kw})


def test_run_contract() -> None:
    suite = driver_for("suite")
    out, _ = suite.run(firmware("asconhash256", "ref", "host"), _opts(input="00"))
    assert out.hex() == "0728621035af3ed2bca03bf6fde900f9456f5330e4b5ee23e7f6a1e70291bc80"  # KAT Count 2
    out, _ = suite.run(firmware("asconxof128", "ref", "host"), _opts(input="", outlen=5))
    assert out == model.xof128(b"", 5)
    out, _ = suite.run(firmware("asconcxof128", "ref", "host"), _opts(input="aa", z="10", outlen=64))
    assert out == model.cxof128(b"\xaa", 64, b"\x10")
    with pytest.raises(UsageError, match="--outlen"):
        suite.run(firmware("asconhash256", "ref", "host"), _opts(input="00", outlen=16))
    with pytest.raises(UsageError, match="customization"):
        suite.run(firmware("asconxof128", "ref", "host"), _opts(input="00", z="11"))


def test_cli_bad_input_exits_2() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "asconcxof128", "--target", "host",
                           "--impl", "ref", "--input", "zz"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


@pytest.mark.parametrize("gen,asm", [("armv7m/gen_bi32.py", "armv7m/permutation_bi32.S"),
                                     ("rv32/gen_rv32i.py", "rv32/permutation_rv32i.S"),
                                     ("avr/gen_avr.py", "avr/permutation.S"),
                                     ("avr/gen_avr_fast.py", "avr/ascon_fast.S")])
def test_generated_assembly_is_current(gen: str, asm: str) -> None:
    """The generated assembly is its generator's output (edit the generator, not the file)."""
    out = subprocess.run([sys.executable, str(ROOT / "crypto/ascon" / gen)], capture_output=True, text=True,
                         check=True).stdout
    assert out == (ROOT / "crypto/ascon" / asm).read_text()


def test_board_kat_subset_in_the_test_suite_only() -> None:
    """On a board the test suite runs every Hash256 vector up to 256 bytes and every 8th longer one;
    given the vector list (as the bench's cached verdict does), every vector runs."""
    fw = firmware("asconhash256", "armv7m-bi32", "armv7m")
    vectors = hash_kind.DRIVER.vectors(PRIM, "asconhash256")
    want = sum(1 for i, v in enumerate(vectors) if len(v.hex("Msg")) <= 256 or i % 8 == 0)
    assert hash_kind.DRIVER.check_vectors(fw) == want < len(vectors)
    assert hash_kind.DRIVER.check_vectors(fw, vectors[-40:]) == 40


# ------------------------------------------------------------------ CXOF128's customization-string bound
CXOF_IMPLS = [(impl.name, target) for impl in CATALOG.by_id("asconcxof128").implementations.values()
              for target in impl.targets]


def test_cxof_model_refuses_a_long_customization_string() -> None:
    assert len(model.cxof128(b"m", 8, bytes(256))) == 8
    with pytest.raises(ValueError):
        model.cxof128(b"m", 8, bytes(257))


@pytest.mark.parametrize("impl,target", CXOF_IMPLS)
def test_cxof_refuses_a_customization_string_over_2048_bits(impl: str, target: str) -> None:
    """SP 800-232: |Z| <= 2,048 bits. 256 bytes are hashed (one-shot and incremental, against the model);
    257 are refused by cxof and cxof_init with -1 and nothing written."""
    fw = Firmware(CATALOG.implementation("asconcxof128", impl), "asconcxof128", target)
    assert fw.params["max_z_bytes"] == 256
    assert hash_kind.DRIVER.check_z_limit(fw, random.Random(f"z/{impl}/{target}")) == 5


def test_cxof_driver_catches_a_wrong_verdict(force_verdict) -> None:
    from mcucrypt.kinds.base import Mismatch
    fw = Firmware(CATALOG.implementation("asconcxof128", "ref"), "asconcxof128", "host")
    for value in (0, 0xFFFFFFFF, 3):   # an over-long string accepted, a legal one refused, neither 0 nor -1
        force_verdict(fw, value, ops=("cxof", "cxof_init"))
        with pytest.raises(Mismatch):
            hash_kind.DRIVER.check_z_limit(fw, random.Random(0))


def test_cxof_run_refuses_a_long_customization_string() -> None:
    fw = Firmware(CATALOG.implementation("asconcxof128", "ref"), "asconcxof128", "host")
    opts = argparse.Namespace(input="00", outlen=None, z="5a" * 256)
    assert hash_kind.DRIVER.run(fw, opts)[0] == model.cxof128(b"\0", 64, b"\x5a" * 256)
    opts.z = "5a" * 257
    with pytest.raises(UsageError):
        hash_kind.DRIVER.run(fw, opts)
    bad = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "asconcxof128", "--target", "host", "--impl",
                          "ref", "--input", "00", "--z", "5a" * 257], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "customization" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
