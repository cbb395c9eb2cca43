# SPDX-License-Identifier: MIT
"""Virtual boards, one per target, behind the interface of base.Board."""
from __future__ import annotations

import importlib

from .base import Board, BoardError

_BOARDS = {
    "avr": "mcucrypt.boards.avr:AvrBoard",
    "rv32": "mcucrypt.boards.rv32:Rv32Board",
    "armv7m": "mcucrypt.boards.armv7m:Armv7mBoard",
    "host": "mcucrypt.boards.host:HostBoard",
}


def make_board(target: str, mcu: str | None = None) -> Board:
    """A fresh board for ``target`` (imported lazily: each board has its own heavy dependencies). ``mcu``
    (avr only: a Core's mcu, mcucrypt/cores.py) names the part; default the target's own."""
    try:
        module, cls = _BOARDS[target].split(":")
    except KeyError:
        raise BoardError(f"unknown target {target!r} (known: {', '.join(_BOARDS)})") from None
    board_cls = getattr(importlib.import_module(module), cls)
    if mcu is None:
        return board_cls()
    if target != "avr":
        raise BoardError(f"the {target} board models one part; mcu={mcu!r} applies to avr only")
    return board_cls(mcu=mcu)
