# SPDX-License-Identifier: MIT
"""LEA and PIPO beyond the generic catalog test: the optional multi-block entry point of the block-cipher
driver (encrypt_blocks), the block lengths and pointer alignments the assembly treats specially, and
the driver's own ability to catch a wrong multi-block implementation.

The generic test (test_catalog.py) already runs every implementation's vectors, 500 random blocks
against the model, decryption round trips and the constant-time checker; this file adds what it
cannot see: every group/tail split of encrypt_blocks (0..12 blocks), a source that is not word aligned
(the byte paths of the assembly), and fakes that prove a lane mix-up or a broken tail fails the driver.
"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from mcucrypt.boards.base import Buf, CallResult
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import Mismatch, driver_for
from mcucrypt.models import lea as lea_model
from mcucrypt.models import pipo as pipo_model

CATALOG = load_catalog()
DRIVER = driver_for("blockcipher")

# (id, implementation, target) of every PIPO implementation with encrypt_blocks, on its boards
# (ref once on the host and once on rv32: the same C on every target, the generic test runs the others;
# the Cortex-M3 assembly on armv7m).
BLOCK_JOBS = [(pid, impl.name, target)
              for pid in ("pipo64_128", "pipo64_256")
              for impl in CATALOG.implementations(pid)
              if "encrypt_blocks" in impl.functions
              for target in impl.targets
              if target in ("host", "rv32") or (target == "armv7m" and impl.name != "ref")]
LEA_ASM_JOBS = [(pid, impl.name) for pid in ("lea128", "lea192", "lea256")
                for impl in CATALOG.implementations(pid, "rv32") if impl.name != "ref"]


@pytest.fixture(scope="module")
def firmware() -> dict:
    cache: dict = {}

    def get(pid: str, impl: str, target: str) -> Firmware:
        if (pid, impl, target) not in cache:
            cache[(pid, impl, target)] = Firmware(CATALOG.implementation(pid, impl), pid, target)
        return cache[(pid, impl, target)]
    return get


def test_multiblock_implementations_exist() -> None:
    """The issue asks for a bitsliced multi-block PIPO on rv32 in RV32IMAC and with Zbb."""
    impls = {impl for pid, impl, target in BLOCK_JOBS if target == "rv32"}
    assert {"rv32-fast", "rv32-zbb"} <= impls


@pytest.mark.parametrize("pid,impl,target", BLOCK_JOBS, ids=lambda x: str(x))
def test_encrypt_blocks_every_length(firmware, pid: str, impl: str, target: str) -> None:
    """0..12 blocks: whole groups of four, every tail length, and no byte written past the end."""
    fw = firmware(pid, impl, target)
    rng = random.Random(f"blocks/{pid}/{impl}")
    key = rng.randbytes(fw.params["key_bytes"])
    rk, _ = DRIVER.keyschedule(fw, key)
    for n in range(13):
        data = rng.randbytes(8 * n)
        res = fw.call("encrypt_blocks", {"out": Buf(size=8 * n + 4, out=True), "in": Buf(data),
                                         "nblocks": n, "rk": Buf(rk)})
        out = res.outputs[0]
        assert out[:8 * n] == pipo_model.encrypt_blocks(pid, key, data), f"{n} blocks"
        assert out[8 * n:] == bytes(4), f"{n} blocks: wrote past the last block"


@pytest.mark.parametrize("pid,impl,target", BLOCK_JOBS, ids=lambda x: str(x))
def test_encrypt_blocks_unaligned_source(firmware, pid: str, impl: str, target: str) -> None:
    """A source that is not word aligned takes the buffered path (the E31 traps on a misaligned lw).
    The harness places buffers in argument order, so an odd-sized output buffer pushes the input to an
    odd address (the output itself cannot be misaligned through Firmware.call)."""
    fw = firmware(pid, impl, target)
    rng = random.Random(f"unaligned/{pid}/{impl}")
    key = rng.randbytes(fw.params["key_bytes"])
    rk, _ = DRIVER.keyschedule(fw, key)
    for n in (1, 4, 7):
        data = rng.randbytes(8 * n)
        res = fw.call("encrypt_blocks", {"out": Buf(size=8 * n + 1, out=True), "in": Buf(data, align=1),
                                         "nblocks": n, "rk": Buf(rk)})
        assert res.outputs[0][:8 * n] == pipo_model.encrypt_blocks(pid, key, data), f"{n} blocks"
        assert res.outputs[0][8 * n] == 0


@pytest.mark.parametrize("pid,impl", LEA_ASM_JOBS, ids=lambda x: str(x))
def test_lea_unaligned_source(firmware, pid: str, impl: str) -> None:
    """The LEA assembly loads a misaligned block byte by byte; check both directions."""
    fw = firmware(pid, impl, "rv32")
    rng = random.Random(f"lea-unaligned/{pid}/{impl}")
    key, block = rng.randbytes(fw.params["key_bytes"]), rng.randbytes(16)
    rk, _ = DRIVER.keyschedule(fw, key)
    want = lea_model.encrypt(pid, key, block)
    for op, src, expect in (("encrypt", block, want), ("decrypt", want, block)):
        res = fw.call(op, {"out": Buf(size=17, out=True), "in": Buf(src, align=1), "rk": Buf(rk)})
        assert res.outputs[0][:16] == expect, op
        assert res.outputs[0][16] == 0, op


PIPO_JOBS = [(pid, impl.name, target)
             for pid in ("pipo64_128", "pipo64_256")
             for impl in CATALOG.implementations(pid)
             for target in impl.targets
             if target in ("host", "rv32") or (target == "avr" and impl.name != "ref")]


@pytest.mark.parametrize("pid,impl,target", PIPO_JOBS, ids=lambda x: str(x))
def test_pipo_sbox_every_input(firmware, pid: str, impl: str, target: str) -> None:
    """Every S-box input, deterministically: 32 blocks chosen so that after the whitening key the
    first S-layer's eight columns take all 256 values. Encryption then runs the bitsliced circuit on
    each value in round 1 and decryption runs the inverse circuit on each S-box output in its last
    round; both must agree with the table-based model."""
    fw = firmware(pid, impl, target)
    key = bytes(range(0x40, 0x40 + fw.params["key_bytes"]))
    rk0 = pipo_model.round_keys(key)[0]
    blocks = []
    for b in range(32):
        cols = [8 * b + c for c in range(8)]                     # column c of block b takes 8b + c
        rows = [sum(((cols[c] >> j) & 1) << c for c in range(8)) for j in range(8)]
        blocks.append(bytes(r ^ k for r, k in zip(rows, rk0)))
    rk, _ = DRIVER.keyschedule(fw, key)
    for pt in blocks:
        ct = DRIVER.crypt(fw, rk, pt)[0]
        assert ct == pipo_model.encrypt(pid, key, pt), pt.hex()
        assert DRIVER.crypt(fw, rk, ct, decrypt=True)[0] == pt, pt.hex()
    if fw.has("encrypt_blocks"):
        data = b"".join(blocks)
        assert DRIVER.crypt_blocks(fw, rk, data)[0] == pipo_model.encrypt_blocks(pid, key, data)


def test_pipo_model_vectors() -> None:
    """The model against the designers' vectors (the oracle must be right before anything is compared
    with it), and decryption inverts encryption."""
    prim = CATALOG.by_id("pipo64_128")
    for pid in ("pipo64_128", "pipo64_256"):
        vectors = DRIVER.vectors(prim, pid)
        assert vectors
        for v in vectors:
            assert pipo_model.encrypt(pid, v.hex("Key"), v.hex("PT")) == v.hex("CT")
            assert pipo_model.decrypt(pid, v.hex("Key"), v.hex("CT")) == v.hex("PT")
    assert sorted(pipo_model.SBOX) == list(range(256))


# ---- the driver against fakes -------------------------------------------------------------------

class FakeFirmware:
    """Just enough of Firmware for the block-cipher driver: PIPO from the model, with an optional
    fault in encrypt_blocks."""

    def __init__(self, pid: str, fault: str | None):
        self.prim_id = pid
        self.params = CATALOG.by_id(pid).instances[pid]
        self.impl = SimpleNamespace(primitive=CATALOG.by_id(pid), name=f"fake-{fault}")
        self.fault = fault

    def has(self, op: str) -> bool:
        return op in ("keyschedule", "encrypt", "decrypt", "encrypt_blocks")

    def call(self, op: str, args: dict) -> CallResult:
        def done(*outputs: bytes) -> CallResult:
            return CallResult(outputs=list(outputs), return_value=0, cycles=1, instructions=1, stack_bytes=0)
        if op == "keyschedule":
            return done(args["key"].data.ljust(args["rk"].length, b"\0"))   # the "round keys": the key
        key = args["rk"].data[:self.params["key_bytes"]]
        if op == "encrypt":
            return done(pipo_model.encrypt(self.prim_id, key, args["in"].data))
        if op == "decrypt":
            return done(pipo_model.decrypt(self.prim_id, key, args["in"].data))
        n = args["nblocks"]
        blocks = [pipo_model.encrypt(self.prim_id, key, args["in"].data[8 * i:8 * i + 8]) for i in range(n)]
        if self.fault == "lanes" and n >= 2:
            blocks[0], blocks[1] = blocks[1], blocks[0]          # two lanes swapped
        if self.fault == "tail" and n % 4:
            blocks[-1] = bytes(8)                                # the partial group lost
        return done(b"".join(blocks))


def test_driver_accepts_correct_multiblock() -> None:
    fw = FakeFirmware("pipo64_128", None)
    for v in DRIVER.vectors(fw.impl.primitive, "pipo64_128"):
        DRIVER.check_vector(fw, v)
    assert DRIVER.differential(fw, random.Random(1), 40) == 40
    ops = {b.op: b.bytes for b in DRIVER.bench(fw)}
    assert ops["encrypt_blocks-64B"] == 64


@pytest.mark.parametrize("fault", ["lanes", "tail"])
def test_driver_catches_broken_multiblock(fault: str) -> None:
    fw = FakeFirmware("pipo64_128", fault)
    vectors = DRIVER.vectors(fw.impl.primitive, "pipo64_128")
    with pytest.raises(Mismatch, match="encrypt_blocks"):
        for v in vectors:
            DRIVER.check_vector(fw, v)
    with pytest.raises(Mismatch, match="encrypt_blocks"):
        DRIVER.differential(fw, random.Random(1), 100)


@pytest.mark.parametrize("script", ["crypto/pipo/avr/gen_pipo_avr.py", "crypto/lea/avr/gen_lea_avr.py"])
def test_avr_generators_up_to_date(script: str) -> None:
    """The AVR assembly of PIPO and LEA is generated: the committed .S must be what the script writes."""
    path = Path(__file__).resolve().parent.parent / script
    if not path.exists():
        pytest.fail(f"{script} is missing")
    proc = subprocess.run([sys.executable, str(path), "--check"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"run python3 {script}: " + proc.stdout + proc.stderr
