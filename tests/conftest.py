# SPDX-License-Identifier: MIT
"""Fixtures shared by the test modules."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import pytest

from mcucrypt.boards.base import CallResult
from mcucrypt.firmware import Firmware


@pytest.fixture
def force_verdict(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``force_verdict(fw, value, ops=None)``: from now on ``fw.call`` runs the real call and reports
    ``value`` as its return value (for the operations in ``ops``, every one by default), so a test can
    check that a kind driver catches an implementation whose verdict (accepted, refused) is wrong."""
    def force(fw: Firmware, value: int, ops: tuple[str, ...] | None = None) -> None:
        real = Firmware.call.__get__(fw)        # the class's method: forcing twice does not stack

        def call(op: str, named, **kw) -> CallResult:
            res = real(op, named, **kw)
            return replace(res, return_value=value) if ops is None or op in ops else res
        monkeypatch.setattr(fw, "call", call)
    return force
