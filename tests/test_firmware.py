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
    # Only the predictor differs, so the difference is its penalties: 3 cycles per misprediction, 1 per
    # predecode redirect (e31_model.Predictor), a handful of each for the start-up of the loops.
    penalties = []
    for w in (False, True):
        fw = Firmware(CATALOG.implementation("mpmul256", "rv32-comba64"), "mpmul256", "rv32", warm=w)
        fw.call("mul", {"r": Buf(size=64, out=True), "a": Buf(A), "b": Buf(B)})
        pred = fw.board.model.predictor  # type: ignore[attr-defined]
        penalties.append(3 * pred.mispredictions + pred.redirects)
    assert cold[0] - warm[0] == penalties[0] - penalties[1] <= 3 * 10


def test_warm_changes_nothing_on_boards_without_state() -> None:
    assert mul_cycles("cm3-mac16", "armv7m", warm=True) == mul_cycles("cm3-mac16", "armv7m", warm=False)


def test_static_ram_is_the_implementations_own_data_and_bss() -> None:
    """SHA-3's avr-fast keeps the permutation's lane buffer (440 bytes) in .bss (META.yml: reentrant:
    false); the portable C keeps nothing; the board files' own data is not counted; a bench record
    carries it and ram_bytes = stack + static."""
    from mcucrypt.bench import Job, run_job
    assert Firmware(load_catalog().implementation("sha3_256", "avr-fast"), "sha3_256", "avr").static_ram_bytes == 440
    assert Firmware(load_catalog().implementation("sha3_256", "ref"), "sha3_256", "avr").static_ram_bytes == 0
    assert Firmware(load_catalog().implementation("aes128", "ref"), "aes128", "rv32").static_ram_bytes == 0
    recs = run_job(Job("sha3_256", "avr-fast", "avr"))
    assert recs and all(r.static_ram_bytes == 440 and r.ram_bytes == r.stack_bytes + 440 for r in recs)
