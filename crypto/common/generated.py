# SPDX-License-Identifier: MIT
"""The last step of every assembly generator under crypto/: write the generated files beside the
generator, or with --check only compare them (the tests run every generator with --check, so a
committed .S can never drift from its generator).

A generator imports it with
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    from generated import write_or_check
and ends with `return write_or_check({path: text, ...}, check, __file__)`. Generators that emit
GNU-as functions one section each (so the linker's --gc-sections drops the unused ones) wrap a body
with `function_lines`.
"""
from __future__ import annotations

from pathlib import Path


def write_or_check(outputs: dict[Path, str], check: bool, generator: str) -> int:
    """Exit status: 0 when written, or when --check finds every file current; 1 when one is stale."""
    name = Path(generator).name
    if not check:
        for path, text in outputs.items():
            path.write_text(text)
            print(f"wrote {path.name}")
        return 0
    stale = [path.name for path, text in outputs.items() if not path.is_file() or path.read_text() != text]
    for n in stale:
        print(f"{n} differs from what {name} generates: run python3 {name}")
    return 1 if stale else 0


def function_lines(symbol: str, body: list[str], align: int = 2) -> list[str]:
    """A global function in its own .text section: a blank line, the directives, the label, the body
    (already indented) and its .size."""
    return ["", f'    .section .text.{symbol}, "ax", @progbits', f"    .globl {symbol}",
            f"    .type {symbol}, @function", f"    .p2align {align}", f"{symbol}:", *body,
            f"    .size {symbol}, . - {symbol}"]
