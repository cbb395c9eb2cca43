# SPDX-License-Identifier: MIT
"""A runaway firmware ends by default on every board: the default instruction budget faults a loop that
never returns, naming pc, symbol and instruction, within 5 seconds of CPU time; a caller can ask for a
larger budget, and a budget that is not positive is bad input."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.base import BoardError, BoardFault
from mcucrypt.build import build

FIXTURES = Path(__file__).parent / "fixtures"
RUNAWAY = {"avr": (FIXTURES / "avr" / "snippets.S", "bad_spin", "rjmp"),
           "rv32": (FIXTURES / "rv32" / "faults.S", "runaway", "c.j"),
           "armv7m": (FIXTURES / "armv7m" / "faults.S", "forever", "adds")}
# The heaviest single calls of the catalog (vectors, bench, ct cases; measured, docs/board-*.md):
# the default must hold them many times over.
HEAVIEST = {"avr": 1_295_492, "rv32": 76_042, "armv7m": 110_333}


@pytest.mark.parametrize("target", sorted(RUNAWAY))
def test_runaway_faults_within_5_seconds_by_default(target: str) -> None:
    source, symbol, mnemonic = RUNAWAY[target]
    board = make_board(target)
    board.load(build(target, [source], name=f"runaway-{target}", keep=[symbol]).path)
    assert board.default_max_instructions >= 5 * HEAVIEST[target]
    start = time.process_time()
    with pytest.raises(BoardFault) as e:
        board.call(symbol)
    assert time.process_time() - start < 5.0
    f = e.value
    assert f.pc is not None and f.symbol.startswith(symbol) and f.instruction.startswith(mnemonic), str(f)
    assert str(board.default_max_instructions) in str(f)
    with pytest.raises(BoardError, match="must be positive"):
        board.call(symbol, max_instructions=-5)
