# SPDX-License-Identifier: MIT
"""SHA-2 on the Cortex-M3 (crypto/sha2/armv7m): the generated sources are current, and the block
functions themselves against the FIPS 180-4 compression of mcucrypt.models.sha2, where the hash-level
tests (vectors, differential, constant time: `tests/test_catalog.py`) do not look: several blocks in one
call (the block loop and the state carried from block to block), nblocks = 0, every input misalignment
(the input is read with single LDRs only; an LDM there would fault on the M3) and random states."""
from __future__ import annotations

import random
import struct
import subprocess
import sys

import pytest

from mcucrypt.boards.armv7m import Armv7mBoard
from mcucrypt.boards.base import Buf
from mcucrypt.build import build
from mcucrypt.models import sha2 as model
from mcucrypt.targets import ROOT

# (implementation, sources); each source provides one block function.
IMPLS = {"armv7m-fast": {256: "crypto/sha2/armv7m/sha256_cm3.S", 512: "crypto/sha2/armv7m/sha512_cm3.S"}}
if (ROOT / "crypto/sha2/armv7m/sha256_cm3_small.S").is_file():
    IMPLS["armv7m-small"] = {256: "crypto/sha2/armv7m/sha256_cm3_small.S",
                             512: "crypto/sha2/armv7m/sha512_cm3_small.S"}


def test_generated_sources_are_current():
    proc = subprocess.run([sys.executable, str(ROOT / "crypto/sha2/armv7m/gen_sha2_cm3.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "stale: run python3 crypto/sha2/armv7m/gen_sha2_cm3.py\n" + proc.stdout


@pytest.fixture(scope="module")
def boards() -> dict:
    out = {}
    for impl, srcs in IMPLS.items():
        for bits, src in srcs.items():
            sym = f"mcu_sha{bits}_{impl.replace('-', '_')}_blocks"
            image = build("armv7m", [src], name=f"sha{bits}-{impl}-blocks", impl=impl, keep=[sym])
            board = Armv7mBoard()
            board.load(image.path)
            out[impl, bits] = (board, sym)
    return out


def _run(boards, impl, bits, state, data, nblocks, misalign):
    board, sym = boards[impl, bits]
    fmt = "<8I" if bits == 256 else "<8Q"
    r = board.call(sym, [Buf(struct.pack(fmt, *state), out=True),
                         Buf(data or b"\0", misalign=misalign), nblocks])
    return list(struct.unpack(fmt, r.outputs[0]))


def _expected(bits, state, data, nblocks):
    size, compress = (64, model.compress256) if bits == 256 else (128, model.compress512)
    for i in range(nblocks):
        state = compress(state, data[size * i:size * (i + 1)])
    return state


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("bits", [256, 512])
@pytest.mark.parametrize("nblocks,misalign", [(0, 0), (1, 0), (1, 1), (2, 2), (3, 3), (2, 0)])
def test_blocks_match_the_compression_model(boards, impl, bits, nblocks, misalign):
    rng = random.Random(f"{impl}/{bits}/{nblocks}/{misalign}")
    word = bits // 8
    state = [rng.getrandbits(word) for _ in range(8)]
    data = rng.randbytes(nblocks * (64 if bits == 256 else 128))
    assert _run(boards, impl, bits, state, data, nblocks, misalign) == _expected(bits, state, data, nblocks)


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("bits", [256, 512])
def test_all_ones_and_zero_words(boards, impl, bits):
    """Carries through every 64-bit addition (ADDS/ADC) and every rotation amount's edge bits."""
    mask = (1 << (bits // 8)) - 1
    size = 64 if bits == 256 else 128
    for state, data in (([mask] * 8, b"\xff" * size * 2), ([0] * 8, bytes(size)),
                        ([mask, 0] * 4, (b"\xff" * 4 + bytes(4)) * (size // 4))):
        n = len(data) // size
        assert _run(boards, impl, bits, state, data, n, 0) == _expected(bits, state, data, n)
