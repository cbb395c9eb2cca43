# SPDX-License-Identifier: MIT
"""Keccak-f[1600] on the Cortex-M3 (issue 18): what the generic catalog test does not reach.

The catalog test runs vectors and the model through interleave -> permute -> deinterleave, which a wrong
but self-consistent layout would pass; here the layout keccak_cm3.h documents is checked against a Python
rendering of it, and armv7m-spec (FIPS 202 layout) against unaligned states.
"""
from __future__ import annotations

import random
import struct

import pytest

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.models import keccak as keccak_model

CAT = load_catalog()


def documented_layout(state: bytes) -> bytes:
    """keccak_cm3.h: word 25h + 5y + x = the even (h = 0) or odd (h = 1) bits of lane (x, y)."""
    words = [0] * 50
    for lane in range(25):
        v = int.from_bytes(state[8 * lane:8 * lane + 8], "little")
        for i in range(32):
            words[lane] |= ((v >> (2 * i)) & 1) << i
            words[25 + lane] |= ((v >> (2 * i + 1)) & 1) << i
    return struct.pack("<50I", *words)


@pytest.mark.parametrize("impl", ["armv7m-fast", "armv7m-compact"])
def test_interleaved_layout_is_the_documented_one(impl: str) -> None:
    fw = Firmware(CAT.implementation("keccakf1600", impl), "keccakf1600", "armv7m")
    rng = random.Random(f"keccak-cm3-layout/{impl}")
    for _ in range(3):
        state = rng.randbytes(200)
        inner = fw.call("interleave", {"state": Buf(state, out=True)}).outputs[0]
        assert inner == documented_layout(state)
        permuted = fw.call("permute", {"state": Buf(inner, out=True)}).outputs[0]
        assert permuted == documented_layout(keccak_model.permute(state))
        assert fw.call("deinterleave", {"state": Buf(inner, out=True)}).outputs[0] == state


def test_spec_layout_permute_takes_any_alignment() -> None:
    fw = Firmware(CAT.implementation("keccakf1600", "armv7m-spec"), "keccakf1600", "armv7m")
    rng = random.Random("keccak-cm3-unaligned")
    for off in (1, 2, 3):
        state = rng.randbytes(200)
        r = fw.call("permute", {"state": Buf(state, out=True, misalign=off)})
        assert r.outputs[0] == keccak_model.permute(state), off
