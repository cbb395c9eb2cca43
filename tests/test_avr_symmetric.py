# SPDX-License-Identifier: MIT
"""Issue 19 (ChaCha20, Keccak-f[1600], AES-128 on the ATmega128): what the generic catalog test does not
reach. The ChaCha20 avr-fast core uses the output buffer as its working state and XORs whole message
blocks in the assembly (mode 2), so a message overlapping the output must take the glue's key-stream
path: in-place and shifted calls against the model. (Vectors, the differential test and the
constant-time check come from tests/test_catalog.py; the generated files from tests/test_baselines.py.)
"""
from __future__ import annotations

import random

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.base import Buf, Int
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.models import chacha20 as chacha_model
from mcucrypt.targets import ROOT

SHIM = ROOT / "tests" / "fixtures" / "avr" / "chacha20_overlap_shim.c"


@pytest.fixture(scope="module")
def chacha_board():
    impl = load_catalog().implementation("chacha20", "avr-fast")
    image = build("avr", [*impl.sources, SHIM], name="shim-chacha20-avr-fast", impl="avr-fast",
                  keep=["shim_xor_overlap"])
    board = make_board("avr")
    board.load(image.path)
    return board


@pytest.mark.parametrize("length,shift", [(64, 0), (130, 0), (128, 3), (70, 1), (5, 0)])
def test_chacha20_xor_overlapping(chacha_board, length: int, shift: int) -> None:
    rng = random.Random(f"overlap/{length}/{shift}")
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    buf = rng.randbytes(length + shift)
    r = chacha_board.call("shim_xor_overlap", [Buf(buf, out=True), length, Int(shift, 1), Buf(key), Buf(nonce)])
    want = chacha_model.xor(key, nonce, 7, buf[shift:shift + length])
    assert r.outputs[0][:length] == want
