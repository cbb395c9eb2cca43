# SPDX-License-Identifier: MIT
"""Multi-precision multiplication, the independent model: exact Python integers.

The product of two n-bit operands is the 2n-bit integer a*b; nothing more is needed for an oracle."""
from __future__ import annotations


def mul(a: int, b: int) -> int:
    """The exact product of two non-negative integers."""
    if a < 0 or b < 0:
        raise ValueError("operands are non-negative integers")
    return a * b
