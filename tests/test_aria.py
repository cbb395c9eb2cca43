# SPDX-License-Identifier: MIT
"""ARIA beyond the generic catalog test: the pointer alignments the assembly treats specially, and the
generated constant-time source being up to date with its generator.

The generic test (test_catalog.py) runs every implementation's RFC 5794 vectors, 500 random blocks
against mcucrypt/models/aria.py with decryption round trips, and the constant-time checker on rv32-ct;
its buffers are word aligned, so the byte-load and byte-store paths of rv32-fast, rv32-zbb and rv32-ct
(taken when `in` or `out` is not word aligned) are exercised only here.
"""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import Buf, Int
from mcucrypt.boards.common import ElfImage, place_buffers
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.models import aria as aria_model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
DRIVER = driver_for("blockcipher")
ASM_JOBS = [(pid, impl.name) for pid in ("aria128", "aria192", "aria256")
            for impl in CATALOG.implementations(pid, "rv32") if impl.name != "ref"]


@pytest.fixture(scope="module")
def firmware() -> dict:
    cache: dict = {}

    def get(pid: str, impl: str) -> Firmware:
        if (pid, impl) not in cache:
            cache[(pid, impl)] = Firmware(CATALOG.implementation(pid, impl), pid, "rv32")
        return cache[(pid, impl)]
    return get


def _case(fw: Firmware, tag: str) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    rng = random.Random(f"aria-align/{tag}/{fw.prim_id}/{fw.impl.name}")
    key, block = rng.randbytes(fw.params["key_bytes"]), rng.randbytes(16)
    ct = aria_model.encrypt(fw.prim_id, key, block)
    return key, block, ct, DRIVER.keyschedule(fw, key)[0], DRIVER.keyschedule(fw, key, decrypt=True)[0]


@pytest.mark.parametrize("pid,impl", ASM_JOBS, ids=lambda x: str(x))
def test_unaligned_source(firmware, pid: str, impl: str) -> None:
    """`in` one byte past a word boundary (placed right after a 17-byte `out`): the byte-load path."""
    fw = firmware(pid, impl)
    key, block, ct, rk, rkd = _case(fw, "src")
    for op, src, keys, expect in (("encrypt", block, rk, ct), ("decrypt", ct, rkd, block)):
        res = fw.call(op, {"out": Buf(size=17, out=True), "in": Buf(src, align=1), "rk": Buf(keys)})
        assert res.outputs[0][:16] == expect, op
        assert res.outputs[0][16] == 0, f"{op} wrote past the block"


@pytest.mark.parametrize("pid,impl", ASM_JOBS, ids=lambda x: str(x))
def test_unaligned_destination(firmware, pid: str, impl: str) -> None:
    """`out` at an odd address inside a scratch buffer that also holds `in` (every implementation reads
    the whole block before it writes): the byte-store path. The address comes from the board's own
    buffer placement, so the call passes `out` as a raw pointer."""
    fw = firmware(pid, impl)
    key, block, ct, rk, rkd = _case(fw, "dst")
    free = ElfImage(fw.image.path).address_of("__mcu_free_start")
    for op, src, keys, expect in (("encrypt", block, rk, ct), ("decrypt", ct, rkd, block)):
        scratch = Buf(src + bytes(12), out=True)
        _, placed, _ = place_buffers([scratch, Buf(keys)], free, 1 << 40)
        out = placed[0].address + 5
        res = fw.board.call(fw.impl.symbol(pid, op), [Int(out), scratch, Buf(keys)])
        got = res.outputs[0]
        assert got[5:21] == expect, op
        assert got[21:] == bytes(7), f"{op} wrote past the block"


def test_ct_generator_up_to_date() -> None:
    """crypto/aria/rv32/aria_ct.S is generated: it must match what gen_ct.py produces now (the script
    also re-checks its S-box circuit on all 256 inputs of all four S-box types)."""
    proc = subprocess.run([sys.executable, str(ROOT / "crypto/aria/rv32/gen_ct.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("impl", ["rv32-ct-multi", "rv32-ct-multi-zbb"])
def test_ct_multi_block_counts_and_misaligned_buffers(impl: str) -> None:
    """encrypt_blocks works in groups of eight: counts around the group size, and in/out at odd addresses
    (the frame-buffer path), against the model; ARIA-256 for the longest round loop."""
    fw = Firmware(CATALOG.implementation("aria256", impl), "aria256", "rv32")
    rng = random.Random(f"ct-multi/{impl}")
    key = rng.randbytes(32)
    rk, _ = DRIVER.keyschedule(fw, key)
    for n, mis in ((1, (3, 1)), (8, (0, 0)), (9, (2, 0)), (16, (0, 0)), (13, (1, 2))):
        data = rng.randbytes(16 * n)
        r = fw.call("encrypt_blocks", {"out": Buf(size=16 * n, out=True, misalign=mis[0]),
                                       "in": Buf(data, misalign=mis[1]), "nblocks": n, "rk": Buf(rk)})
        want = b"".join(aria_model.encrypt("aria256", key, data[16 * i:16 * i + 16]) for i in range(n))
        assert r.outputs[0] == want, (n, mis)
