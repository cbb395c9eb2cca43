# SPDX-License-Identifier: MIT
"""Firmware: calls by parameter name, and the warm mode (a trained E31 branch predictor)."""
from __future__ import annotations

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware

CATALOG = load_catalog()
A, B = bytes(range(32)), bytes(range(100, 132))


def mul_cycles(impl: str, target: str, *, warm: bool) -> list[int]:
    fw = Firmware(CATALOG.implementation("mpmul256", impl), "mpmul256", target, warm=warm)
    return [fw.call("mul", {"r": Buf(size=64, out=True), "a": Buf(A), "b": Buf(B)}).cycles for _ in range(2)]


def test_warm_predictor_saves_the_loop_start_up_mispredictions_on_rv32() -> None:
    cold, warm = mul_cycles("rv32-comba64", "rv32", warm=False), mul_cycles("rv32-comba64", "rv32", warm=True)
    assert cold[0] == cold[1] and warm[0] == warm[1]          # deterministic either way
    assert warm[0] < cold[0]                                   # loop branches predicted from the first iteration
    assert cold[0] - warm[0] <= 3 * 8                          # a few mispredictions of 3 cycles, no more


def test_warm_changes_nothing_on_boards_without_state() -> None:
    assert mul_cycles("cm3-mac16", "armv7m", warm=True) == mul_cycles("cm3-mac16", "armv7m", warm=False)
