# SPDX-License-Identifier: MIT
"""SHA-256 and SHA-512 block functions on the ATmega128 (issue 28): the generated sources are current, and
the assembly block functions, called directly, equal the FIPS 180-4 compression of mcucrypt.models.sha2
(Python integers, independent of the generator) on random states and blocks, for 0, 1, 2 and 3 blocks;
nblocks = 0 writes nothing; they keep the avr-gcc ABI and RAMPZ (tests/fixtures/avr/sha2_abi.S). Vectors,
the differential test of the modes and the constant-time check of the implementations that use them run
in tests/test_catalog.py."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import Buf, Int
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.models.sha2 import compress256, compress512
from mcucrypt.targets import ROOT

AVR = ROOT / "crypto" / "sha2" / "avr"
IMPLS = ["avr-fast", "avr-small"]
CATALOG = load_catalog()


def test_generated_sources_are_current() -> None:
    proc = subprocess.run([sys.executable, str(AVR / "gen_sha2_avr.py"), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("prim,bits", [("sha256", 32), ("sha512", 64)])
def test_block_function_matches_compression(impl: str, prim: str, bits: int) -> None:
    n = bits // 8
    compress = compress256 if bits == 32 else compress512
    fw = Firmware(CATALOG.implementation(prim, impl), prim, "avr")
    sym = f"mcu_{prim}_{impl.replace('-', '_')}_blocks"
    rng = random.Random(f"{prim}/{impl}/blocks")
    specials = [[0] * 8, [(1 << bits) - 1] * 8]
    for nblocks, trial in [(0, 0), (1, 0), (1, 1), (1, 2), (2, 3), (3, 4)]:
        state = specials[trial] if trial < 2 else [rng.getrandbits(bits) for _ in range(8)]
        data = bytes([0xFF] * (16 * n * nblocks)) if trial == 1 else rng.randbytes(16 * n * nblocks)
        want = state
        for b in range(nblocks):
            want = compress(want, data[16 * n * b:16 * n * (b + 1)])
        raw = b"".join(x.to_bytes(n, "little") for x in state)
        res = fw.board.call(sym, [Buf(raw, out=True), Buf(data or b"\0"), Int(nblocks, 2)])
        got = [int.from_bytes(res.outputs[0][n * i:n * (i + 1)], "little") for i in range(8)]
        assert got == want, (prim, impl, nblocks, trial)


@pytest.mark.parametrize("impl", IMPLS)
def test_block_functions_keep_the_abi(impl: str) -> None:
    """tests/fixtures/avr/sha2_abi.S calls each block function with known values in every call-saved
    register, RAMPZ = 1 and the I flag set: all come back (r1 = 0, SP balanced), for 0 and 2 blocks."""
    from mcucrypt.boards import make_board
    from mcucrypt.build import build
    srcs = [f"crypto/sha2/avr/sha256_avr{'_small' if impl == 'avr-small' else ''}.S",
            f"crypto/sha2/avr/sha512_avr{'_small' if impl == 'avr-small' else ''}.S",
            "tests/fixtures/avr/sha2_abi.S"]
    image = build("avr", srcs, name=f"sha2-abi-{impl}", impl=impl, keep=["sha2_abi_probe"])
    board = make_board("avr")
    board.load(image.path)
    rng = random.Random(f"abi/{impl}")
    for which, n in ((0, 4), (1, 8)):
        for nblocks in (0, 2):
            res = board.call("sha2_abi_probe", [Int(which, 1), Buf(rng.randbytes(8 * n), out=True),
                                                Buf(rng.randbytes(16 * n * nblocks) or b"\0"), Int(nblocks, 2)],
                             ret_size=1)
            assert res.return_value == 0, (impl, which, nblocks, res.return_value)
