# SPDX-License-Identifier: MIT
"""The avr board (ATmega128 on simavr): cycle counts against hand-counted snippets, the avr-gcc calling
convention, buffers and canaries, traces, and every fault the board promises to catch."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from mcucrypt.boards.avr import DATA_SPACE_BASE, AvrBoard
from mcucrypt.boards.base import BoardError, BoardFault, Buf, Int, MemAccess
from mcucrypt.boards.common import ElfImage
from mcucrypt.build import build

FIXTURES = Path(__file__).parent / "fixtures" / "avr"
SNIPPETS = FIXTURES / "snippets.S"
ABI = FIXTURES / "abi.c"
RAMEND = 0x10FF
EXPECT = re.compile(r"@expect (\w+) cycles=(\d+) instructions=(\d+)(?: ret=(0x[0-9a-f]+|\d+))?")
EXPECTED = [(m[1], int(m[2]), int(m[3]), None if m[4] is None else int(m[4], 0))
            for m in EXPECT.finditer(SNIPPETS.read_text())]
ABI_FUNCTIONS = ["aead_probe", "mixed_stack", "reg_args", "ret8", "ret16", "ret32", "ret64", "data_sum",
                 "bump", "smash", "poke"]


@pytest.fixture(scope="module")
def snippets_elf() -> Path:
    names = re.findall(r"^FUNC\((\w+)\)", SNIPPETS.read_text(), re.M)
    return build("avr", [SNIPPETS], name="avr-snippets", keep=names).path


@pytest.fixture(scope="module")
def snippets(snippets_elf: Path) -> AvrBoard:
    board = AvrBoard()
    board.load(snippets_elf)
    return board


@pytest.fixture(scope="module")
def abi() -> AvrBoard:
    board = AvrBoard()
    board.load(build("avr", [ABI], name="avr-abi", keep=ABI_FUNCTIONS).path)
    return board


def quad() -> Buf:
    return Buf(bytes([0x11, 0x22, 0x33, 0x44]), out=True)


# ------------------------------------------------------------------------------------------ timing

def test_enough_snippets() -> None:
    assert len(EXPECTED) >= 15


@pytest.mark.parametrize("name,cycles,instructions,ret", EXPECTED, ids=[e[0] for e in EXPECTED])
def test_snippet_cycles(snippets: AvrBoard, name: str, cycles: int, instructions: int, ret: int | None) -> None:
    args = [quad()] if name in ("snip_ld_st", "snip_ldd_y") else []
    r = snippets.call(name, args)
    assert (r.cycles, r.instructions) == (cycles, instructions)
    if ret is not None:
        assert r.return_value == ret


def test_loads_and_stores_reach_the_buffer(snippets: AvrBoard) -> None:
    assert snippets.call("snip_ld_st", [quad()]).outputs == [bytes([0x22, 0x22, 0x11, 0x22])]
    assert snippets.call("snip_ldd_y", [quad()]).outputs == [bytes([0x11, 0x11, 0x33, 0x44])]


@pytest.mark.parametrize("name,stack", [("snip_ret", 2), ("snip_push4", 6), ("snip_ldd_y", 4),
                                        ("snip_rcall", 4), ("snip_icall", 4)])
def test_stack_bytes(snippets: AvrBoard, name: str, stack: int) -> None:
    """Return address (2 bytes) plus each push, or the nested return address."""
    args = [quad()] if name == "snip_ldd_y" else []
    assert snippets.call(name, args).stack_bytes == stack


def test_deterministic(abi: AvrBoard) -> None:
    first = abi.call("aead_probe", aead_args(), trace=True)
    again = abi.call("aead_probe", aead_args(), trace=True)
    assert (first.cycles, first.instructions, first.stack_bytes, first.outputs) == \
        (again.cycles, again.instructions, again.stack_bytes, again.outputs)
    assert first.trace == again.trace


# --------------------------------------------------------------------------------------------- ABI

def aead_args(mlen: int = 0x1122334455667788, adlen: int = 0x99AABBCCDDEEFF01) -> list:
    return [Buf(size=32, out=True), Buf(size=8, out=True), Buf(b"\x5a"), Int(mlen, 8), Buf(b"\xad"),
            Int(adlen, 8), Buf(b"\x0e"), Buf(b"\x9b"), Buf(b"\x6b")]


def test_nist_aead_prototype(abi: AvrBoard) -> None:
    """c, clen, m, mlen, ad in registers; adlen, nsec, npub, k on the stack."""
    mlen, adlen = 0x1122334455667788, 0x99AABBCCDDEEFF01
    r = abi.call("aead_probe", aead_args(mlen, adlen))
    c, clen = r.outputs
    assert c[0:8] == mlen.to_bytes(8, "little")
    assert c[8:16] == adlen.to_bytes(8, "little")
    pointers = [int.from_bytes(c[i:i + 2], "little") for i in range(16, 26, 2)]   # m, ad, nsec, npub, k
    assert pointers == sorted(set(pointers))    # five distinct buffers, placed in argument order
    assert c[26:30] == b"\x5a\xad\x9b\x6b"      # what the pointers point at
    assert clen == ((mlen + adlen) % 2**64).to_bytes(8, "little")
    assert r.return_value == 0xFFFE             # int -2


def test_byte_arguments_on_the_stack_are_not_padded(abi: AvrBoard) -> None:
    """mixed_stack(out, a, b, c, d, e): a and b fill r8..r23, so uint8_t c, uint8_t d and uint16_t e go
    on the stack as 1 + 1 + 2 bytes."""
    r = abi.call("mixed_stack", [Buf(size=20, out=True), Int(0x0102030405060708, 8),
                                 Int(0x1112131415161718, 8), Int(0xC1, 1), Int(0xD1, 1), Int(0xE1E2, 2)])
    assert r.outputs[0] == bytes.fromhex("0807060504030201" "1817161514131211" "c1d1" "e2e1")
    assert r.return_value == 0xE1E2 ^ 0xC1


def test_register_arguments(abi: AvrBoard) -> None:
    r = abi.call("reg_args", [Int(0x12, 1), Int(0x3456, 2), Int(0x01020304, 4), Int(0x77, 1)], ret_size=4)
    assert r.return_value == (0x12 << 24) + (0x3456 << 8) + 0x01020304 + 0x77


@pytest.mark.parametrize("name,size,value", [("ret8", 1, 0xA5), ("ret16", 2, 0xBEEF), ("ret16", 0, 0xBEEF),
                                             ("ret32", 4, 0xDEADBEEF), ("ret64", 8, 0x0123456789ABCDEF)])
def test_return_widths(abi: AvrBoard, name: str, size: int, value: int) -> None:
    assert abi.call(name, ret_size=size).return_value == value


def test_initialised_data_and_fresh_ram(abi: AvrBoard) -> None:
    assert abi.call("data_sum", ret_size=1).return_value == 1 + 2 + 3 + 4
    assert [abi.call("bump", ret_size=1).return_value for _ in range(2)] == [1, 1]


def test_buffer_round_trip(abi: AvrBoard) -> None:
    """smash(p, n) writes p[i] = i for i <= n: with n = len - 1 it fills the buffer exactly."""
    r = abi.call("smash", [Buf(b"\xff" * 16, out=True), Int(15, 1)])
    assert r.outputs == [bytes(range(16))]


# ------------------------------------------------------------------------------------------- trace

def test_trace_of_loads_and_stores(snippets: AvrBoard, snippets_elf: Path) -> None:
    entry = ElfImage(snippets_elf).address_of("snip_ld_st")
    r = snippets.call("snip_ld_st", [quad()], trace=True)
    assert r.trace is not None
    assert r.trace.pcs == [entry + 2 * i for i in range(11)]
    p = r.trace.accesses[0].address - 1               # ldd r18, Z+1 reads p[1]
    pc = r.trace.pcs
    assert r.trace.accesses == [
        MemAccess(pc[1], p + 1, 1, False), MemAccess(pc[2], p + 3, 1, True),
        MemAccess(pc[3], p, 1, False), MemAccess(pc[4], p, 1, True),
        MemAccess(pc[7], p + 2, 1, False), MemAccess(pc[8], p + 2, 1, True),
        MemAccess(pc[9], p + 2, 1, False),
        MemAccess(pc[10], DATA_SPACE_BASE + RAMEND - 1, 2, False)]      # ret pops the return address
    assert p >= DATA_SPACE_BASE + 0x100


def test_trace_of_program_memory_and_stack(snippets: AvrBoard, snippets_elf: Path) -> None:
    table = ElfImage(snippets_elf).address_of("snip_table")
    r = snippets.call("snip_lpm", trace=True)
    assert r.trace is not None
    assert [(a.address, a.size, a.write) for a in r.trace.accesses[:3]] == \
        [(table, 1, False), (table + 1, 1, False), (table + 1, 1, False)]
    r = snippets.call("snip_rcall", trace=True)
    assert r.trace is not None
    sp = DATA_SPACE_BASE + RAMEND - 2          # SP at entry, just below the return address
    assert [(a.address, a.size, a.write) for a in r.trace.accesses] == \
        [(sp - 1, 2, True), (sp - 1, 2, False), (sp + 1, 2, False)]


def test_trace_changes_nothing_and_survives_chunking(snippets_elf: Path) -> None:
    whole, chunked = AvrBoard(), AvrBoard(trace_chunk=3)
    whole.load(snippets_elf)
    chunked.load(snippets_elf)
    plain = whole.call("snip_ld_st", [quad()])
    a = whole.call("snip_ld_st", [quad()], trace=True)
    b = chunked.call("snip_ld_st", [quad()], trace=True)
    assert (plain.cycles, plain.outputs) == (a.cycles, a.outputs) == (b.cycles, b.outputs)
    assert a.trace == b.trace
    assert a.trace is not None and len(a.trace.pcs) == a.instructions


# ------------------------------------------------------------------------------------------ faults

def test_canary_smash_names_the_store(abi: AvrBoard) -> None:
    with pytest.raises(BoardFault, match="canary after argument 0") as e:
        abi.call("smash", [Buf(size=8), Int(8, 1)])
    assert e.value.symbol.startswith("smash")
    assert e.value.instruction.startswith("st")


@pytest.mark.parametrize("name", ["bad_reserved", "bad_erased", "bad_eicall"])
def test_invalid_opcode(snippets: AvrBoard, snippets_elf: Path, name: str) -> None:
    with pytest.raises(BoardFault, match="invalid opcode") as e:
        snippets.call(name)
    assert e.value.pc == ElfImage(snippets_elf).address_of(name)
    assert e.value.symbol == name


def test_runaway_loop_ends_on_the_budget(snippets: AvrBoard) -> None:
    start = time.monotonic()
    with pytest.raises(BoardFault, match=r"budget of 10000000 exhausted.*runaway") as e:
        snippets.call("bad_spin", max_instructions=10_000_000)
    assert time.monotonic() - start < 1.0
    assert e.value.symbol == "bad_spin" and e.value.instruction.startswith("rjmp")


def test_store_outside_the_data_space(abi: AvrBoard) -> None:
    with pytest.raises(BoardFault, match="data access at 0x1100, outside") as e:
        abi.call("poke", [RAMEND + 1, Int(1, 1)])
    assert e.value.symbol.startswith("poke")


def test_stack_overflow_into_buffers(snippets: AvrBoard) -> None:
    with pytest.raises(BoardFault, match="stack overflow") as e:
        snippets.call("bad_stack_hog", [Buf(size=3000)])
    assert e.value.instruction.startswith("push")


@pytest.mark.parametrize("name,reason", [
    ("bad_wild_jump", "jump to 0xfffe, outside the program"),
    ("bad_jump_to_sentinel", "jump to 0x1fffe, outside the program"),
    ("bad_ret", "data access at 0x1100"),
    ("bad_elpm", "program-memory read at 0x20000"),
    ("bad_sleep", "SLEEP"),
    ("bad_spm", "SPM"),
])
def test_other_faults(snippets: AvrBoard, name: str, reason: str) -> None:
    with pytest.raises(BoardFault, match=reason) as e:
        snippets.call(name)
    assert e.value.symbol.startswith(name)


def test_board_survives_a_fault(abi: AvrBoard) -> None:
    with pytest.raises(BoardFault):
        abi.call("poke", [0x2000, Int(1, 1)])
    assert abi.call("ret16").return_value == 0xBEEF


# ------------------------------------------------------------------------------------------ misuse

def test_rejects_foreign_elf() -> None:
    with pytest.raises(BoardError, match="not AVR"):
        AvrBoard().load(Path(sys.executable).resolve())


def test_rejects_unknown_symbol_and_oversized_buffers(abi: AvrBoard) -> None:
    with pytest.raises(BoardError, match="not found"):
        abi.call("no_such_function")
    with pytest.raises(BoardError, match="bytes of RAM"):
        abi.call("smash", [Buf(size=5000), Int(0, 1)])


def test_describe_model(snippets: AvrBoard) -> None:
    d = snippets.describe_model()
    assert d["target"] == "avr" and d["mcu"] == "atmega128"
    assert d["simavr_version"] and d["pc_bytes"] == 2 and d["flash_bytes"] == 128 * 1024
