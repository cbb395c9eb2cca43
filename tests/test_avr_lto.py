# SPDX-License-Identifier: MIT
"""Issue 34: the AVR assembly built as firmware builds it, `-Os -flto` (the Arduino core's flags), with
its official vectors run on the board.

Link-time optimisation inlines the C glue into its callers, which then rely on every call-saved
register the ABI promises, argument registers included: TinyJAMBU avr-fast's block loop returned with
r12..r17 advanced, and under -flto the caller computed the message tail and the tag from the moved
`out` (wrong ciphertext, a store past the buffer). The board's ABI monitor now faults on any such
return in every build; this file keeps the LTO build itself under test, and a firmware-like caller
(tests/fixtures/avr/tinyjambu_lto_caller.c) that LTO inlines the whole mode into.
"""
from __future__ import annotations

import os

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.base import Buf, Int
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for, representative
from mcucrypt.models import tinyjambu as tj_model
from mcucrypt.targets import ROOT

FULL = os.environ.get("MCUCRYPT_FULL", "") not in ("", "0")
CATALOG = load_catalog()
LTO = ("-Os", "-flto")
ASM_SUFFIXES = (".S", ".s")


def _asm_implementations() -> list[tuple[str, str]]:
    """(id, implementation) of every AVR implementation with assembly in its sources."""
    return [(pid, i.name) for pid in CATALOG.all_ids() for i in CATALOG.implementations(pid, "avr")
            if any(str(s).endswith(ASM_SUFFIXES) for s in i.sources)]


def _default_selection() -> list[tuple[str, str]]:
    """One id per family for each assembly implementation name (the families' other ids share the code)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for pid, impl in _asm_implementations():
        family = CATALOG.by_id(pid).name
        if (family, impl) not in seen:
            seen.add((family, impl))
            out.append((pid, impl))
    return out


SELECTION = _asm_implementations() if FULL else _default_selection()
DEFAULT_LIMIT = {"x25519": 1}           # a scalar multiplication is ~12 M cycles on the board


def test_every_assembly_family_is_covered() -> None:
    families = {s.parent.parent.name for pid, impl in SELECTION for s in CATALOG.implementation(pid, impl).sources
                if s.suffix in ASM_SUFFIXES}
    on_disk = {p.parent.parent.name for p in (ROOT / "crypto").glob("*/avr/*.S")}
    assert on_disk <= families, f"assembly families without an LTO test: {sorted(on_disk - families)}"


@pytest.mark.parametrize("pid,impl", SELECTION, ids=[f"{p}-{i}" for p, i in SELECTION])
def test_official_vectors_with_lto(pid: str, impl: str) -> None:
    i = CATALOG.implementation(pid, impl)
    fw = Firmware(i, pid, "avr", cflags=LTO)
    assert "-flto" in fw.image.flags
    driver = driver_for(i.params(pid).get("kind", i.primitive.kind))
    if FULL:
        vectors = driver.kat_vectors(fw)
    else:   # the default run: the representative subset test_catalog runs on the boards
        vectors = representative(driver.default_selection(fw), driver.board_test_vectors)[:DEFAULT_LIMIT.get(pid)]
    assert driver.check_vectors(fw, vectors) >= 1


@pytest.fixture(scope="module")
def lto_caller():
    """A firmware-like caller of TinyJAMBU avr-fast's aead_encrypt, built with the library by -Os -flto
    so that the whole mode is inlined into it."""
    impl = CATALOG.implementation("tinyjambu128", "avr-fast")
    image = build("avr", [*impl.sources, ROOT / "tests/fixtures/avr/tinyjambu_lto_caller.c"],
                  name="lto-caller-tinyjambu128-avr-fast", impl="avr-fast", defines=impl.defines,
                  extra_cflags=LTO, keep=["lto_encrypt"])
    board = make_board("avr")
    board.load(image.path)
    return board


@pytest.mark.parametrize("mlen", [0, 3, 4, 13, 18, 64])
def test_an_lto_inlined_caller_gets_the_right_ciphertext(lto_caller, mlen: int) -> None:
    key, msg = bytes(range(16)), bytes((7 * k + 1) & 0xFF for k in range(mlen))
    nonce, ad = bytes(range(12)), bytes(range(5))
    r = lto_caller.call("lto_encrypt", [Buf(size=mlen + 8, out=True), Buf(msg), Int(mlen, 1), Buf(key)])
    assert r.return_value == mlen + 8
    assert r.outputs[0] == tj_model.encrypt("tinyjambu128", key, nonce, ad, msg)
