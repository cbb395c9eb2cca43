# SPDX-License-Identifier: MIT
"""The rv32 board: hand-counted E31 timing snippets, ISA-extension emulation, custom instructions, faults,
the ilp32 ABI, tracing and determinism.

The expected cycle counts live next to their derivations in tests/fixtures/rv32/*.S, on lines
``# expect: NAME cycles=N instructions=N [mispredictions=N]``; this file supplies the arguments.
Set MCUCRYPT_SPEED_TEST=1 to also assert the board's speed (>= 1e6 simulated instructions/s).
"""
from __future__ import annotations

import os
import random
import re
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from mcucrypt.boards import rv32
from mcucrypt.boards import rv32_isa as isa
from mcucrypt.boards.base import BoardError, BoardFault, Buf, Int
from mcucrypt.boards.e31_model import E31Params, PseudoLRU, divide_cycles
from mcucrypt.boards.rv32 import Rv32Board, parse_isa
from mcucrypt.build import build

FIX = Path(__file__).parent / "fixtures" / "rv32"
M32 = 0xFFFF_FFFF

pytestmark = pytest.mark.skipif(shutil.which("riscv64-unknown-elf-gcc") is None,
                                reason="riscv64-unknown-elf-gcc not installed")


def expectations(name: str) -> dict[str, dict[str, int]]:
    text = (FIX / name).read_text()
    return {m.group(1): {k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())}
            for m in re.finditer(r"^# expect: (\w+) (.*)$", text, re.M)}


def globals_of(name: str) -> list[str]:
    return re.findall(r"^\s*\.globl (\w+)", (FIX / name).read_text(), re.M)


def board_for(fixture: str, build_isa: str, load_isa: str | None = None,
              params: E31Params | None = None, keep: list[str] | None = None) -> Rv32Board:
    image = build("rv32", [FIX / fixture], name=f"test-{Path(fixture).stem}", isa=build_isa,
                  keep=keep or globals_of(fixture))
    board = Rv32Board(params)
    board.load(image.path, isa=load_isa)
    return board


@pytest.fixture(scope="module")
def pipeline() -> Rv32Board:
    return board_for("pipeline.S", "rv32imac_zicsr")


@pytest.fixture(scope="module")
def control() -> Rv32Board:
    return board_for("control.S", "rv32imac")


@pytest.fixture(scope="module")
def extensions() -> Rv32Board:
    return board_for("extensions.S", "rv32imac_zicsr_zbb_zbkb_zbkc", "rv32imac_zbb_zbkb_zbkc_xmul64")


@pytest.fixture(scope="module")
def faults() -> Rv32Board:
    return board_for("faults.S", "rv32imac")


@pytest.fixture(scope="module")
def kernels() -> Rv32Board:
    image = build("rv32", [FIX / "kernels.c"], name="test-kernels",
                  keep=["chacha20_blocks", "mp_mul", "div_sum"])
    board = Rv32Board()
    board.load(image.path)
    return board


# ---------------------------------------------------------------------------------------------------
# Hand-counted snippets

WORD = Buf(bytes(8))
SNIPPET_ARGS = {
    "lw_use": [WORD], "lw_hidden": [WORD], "lbu_use": [WORD], "lh_store_use": [WORD],
    "waw_after_load": [WORD], "mul_then_div": [100, 7],
}


def _check(board: Rv32Board, name: str, expected: dict[str, int], args: list) -> None:
    r = board.call(name, args)
    got = {"cycles": r.cycles, "instructions": r.instructions,
           "mispredictions": board.model.predictor.mispredictions}
    assert {k: got[k] for k in expected} == expected, name


@pytest.mark.parametrize("name,expected", expectations("pipeline.S").items())
def test_pipeline_snippet(pipeline: Rv32Board, name: str, expected: dict[str, int]) -> None:
    _check(pipeline, name, expected, SNIPPET_ARGS.get(name, [3, 5, 7]))


@pytest.mark.parametrize("name,expected", expectations("control.S").items())
def test_control_snippet(control: Rv32Board, name: str, expected: dict[str, int]) -> None:
    _check(control, name, expected, [3])


@pytest.mark.parametrize("name,expected", expectations("extensions.S").items())
def test_extension_snippet(extensions: Rv32Board, name: str, expected: dict[str, int]) -> None:
    _check(extensions, name, expected, [0x8765_4321, 0x0F0F_1234, 0x00FF_00F0])


def test_mul_results(pipeline: Rv32Board) -> None:
    assert pipeline.call("mul_dependent", [3, 5]).return_value == 3 * 5 * 5 + 1
    assert pipeline.call("mul_then_div", [100, 7]).return_value == 700 + 100 // 7


@pytest.mark.parametrize("a,b,latency", [
    (7, 7, 2),                  # equal leading bits: nothing left after the early-out
    (1000, 3, 10),              # msb 9 vs 1: 8 quotient bits
    (0xFFFF_FFFF, 1, 33),       # msb 31 vs 0: no early-out
    (5, 0, 33),                 # division by zero: no early-out
    (5, 1000, 27),              # Rocket's wrap-around: dividend below divisor skips only 6 bits
])
def test_divide_latency_depends_on_operands(pipeline: Rv32Board, a: int, b: int, latency: int) -> None:
    r = pipeline.call("div_probe", [a, b])
    assert r.cycles == latency + 3          # divu@0, mv@L, ret@L+1 (+1: the cold ret, pipeline.S)
    assert r.return_value == (a // b if b else M32)


@pytest.mark.parametrize("a,b,latency", [(-100, 7, 8), (100, -7, 8), (-100, -7, 7), (-5, 0, 34)])
def test_signed_divide_sign_fixups(pipeline: Rv32Board, a: int, b: int, latency: int) -> None:
    r = pipeline.call("div_signed_probe", [a, b])
    assert r.cycles == latency + 3
    expected = -1 if b == 0 else int(a / b)
    assert r.return_value == expected & M32


def test_divide_rule_covers_the_manual_range() -> None:
    p = E31Params()
    rnd = random.Random(5)
    lats = {divide_cycles(p, "divu", rnd.getrandbits(rnd.randint(1, 32)), rnd.getrandbits(rnd.randint(1, 32)))
            for _ in range(2000)}
    assert min(lats) == 2 and max(lats) == 33


def test_mcycle_and_minstret(pipeline: Rv32Board) -> None:
    assert pipeline.call("mcycle_delta").return_value == 3
    assert pipeline.call("minstret_probe").return_value == 2


@pytest.mark.parametrize("value,cycles,instructions,mispredictions,result", [
    (0xFF, 68, 52, 5, 8),       # derivations in tests/fixtures/rv32/control.S
    (0x55, 79, 48, 10, 4),
])
def test_unpredictable_branch(control: Rv32Board, value: int, cycles: int, instructions: int,
                              mispredictions: int, result: int) -> None:
    r = control.call("bit_count_branchy", [value])
    assert (r.cycles, r.instructions, control.model.predictor.mispredictions, r.return_value) == \
        (cycles, instructions, mispredictions, result)


@pytest.mark.parametrize("depth,ras,cycles,mispredictions", [(4, 6, 39, 1), (8, 6, 74, 2), (4, 2, 42, 2)])
def test_return_address_stack(depth: int, ras: int, cycles: int, mispredictions: int) -> None:
    board = board_for("control.S", "rv32imac", params=E31Params(ras_entries=ras))
    r = board.call("recurse", [depth])
    assert (r.cycles, board.model.predictor.mispredictions) == (cycles, mispredictions)


def test_pseudo_lru_tree() -> None:
    """rocket-chip's tree pseudo-LRU, worked by hand. 4 ways: the root's bit says which half is older
    (ways 0-1 right, 2-3 left), each pair's bit which way of the pair. Touch 0,1,2,3: root -> right is
    older, right pair -> 0 is older: victim 0. Touch 0: root -> left older, left pair (last touched 3):
    victim 2. 3 ways: right pair 0-1, left = way 2 alone. Touch 2,0,1: left older: victim 2; touch 2:
    right older, right pair (last touched 1): victim 0."""
    lru = PseudoLRU(4)
    for w in (0, 1, 2, 3):
        lru.touch(w)
    assert lru.victim() == 0
    lru.touch(0)
    assert lru.victim() == 2
    lru3 = PseudoLRU(3)
    for w in (2, 0, 1):
        lru3.touch(w)
    assert lru3.victim() == 2
    lru3.touch(2)
    assert lru3.victim() == 0


def _rocket_plru_next(state: int, way: int, n: int) -> int:
    """PseudoLRU.get_next_state of rocket-chip util/Replacement.scala, on the packed n-1 bit state."""
    if n <= 1:
        return 0
    if n == 2:
        return int(not way & 1)
    lg = (n - 1).bit_length()
    right_n = 1 << (lg - 1)
    left_n = n - right_n
    set_left_older = int(not (way >> (lg - 1)) & 1)
    right_state = state & ((1 << (right_n - 1)) - 1)
    left_state = (state >> (right_n - 1)) & ((1 << (left_n - 1)) - 1)
    sub_way = way & ((1 << (lg - 1)) - 1)
    if set_left_older:
        right_state = _rocket_plru_next(right_state, sub_way, right_n)
    elif left_n > 1:
        left_state = _rocket_plru_next(left_state, sub_way, left_n)
    return set_left_older << (n - 2) | left_state << (right_n - 1) | right_state


def _rocket_plru_way(state: int, n: int) -> int:
    """PseudoLRU.get_replace_way of rocket-chip util/Replacement.scala."""
    if n <= 1:
        return 0
    if n == 2:
        return state & 1
    lg = (n - 1).bit_length()
    right_n = 1 << (lg - 1)
    left_n = n - right_n
    left_older = state >> (n - 2) & 1
    right_state = state & ((1 << (right_n - 1)) - 1)
    left_state = (state >> (right_n - 1)) & ((1 << (left_n - 1)) - 1)
    if left_older:
        return 1 << (lg - 1) | (_rocket_plru_way(left_state, left_n) if left_n > 1 else 0)
    return _rocket_plru_way(right_state, right_n)


def _warm_misses_of_31_entries(n: int) -> int:
    """BTB misses in the second pass over 31 taken control transfers (hops30's jumps and ret), with
    Rocket's replacement on an n-entry BTB: a hit touches its way, a miss installs at the victim way."""
    state, ways, misses = 0, [None] * n, 0
    for rnd in range(2):
        for pc in range(31):
            if pc in ways:
                way = ways.index(pc)
            else:
                way = _rocket_plru_way(state, n)
                ways[way] = pc
                misses += rnd
            state = _rocket_plru_next(state, way, n)
    return misses


@pytest.mark.parametrize("params,cycles", [
    (E31Params(btb_replacement="lru"), 62),     # cyclic eviction: all 31 miss again (control.S)
    (E31Params(btb_entries=40, btb_replacement="lru"), 31),    # the G000 manual's 40 entries hold all 31
    # Rocket's pseudo-LRU picks its victim among valid ways even while ways are empty, so it loses
    # entries in both sizes (28: 7 of 31 miss again, 40: 15).
    (E31Params(btb_entries=40), 31 + _warm_misses_of_31_entries(40)),
    (E31Params(), 31 + _warm_misses_of_31_entries(28)),
])
def test_btb_thrashing(params: E31Params, cycles: int) -> None:
    board = board_for("control.S", "rv32imac", params=params)
    board.warm_predictor = True
    board.call("hops30")
    r = board.call("hops30")
    assert (r.cycles, board.model.predictor.mispredictions) == (cycles, 0)


@pytest.mark.parametrize("params,cycles", [
    (E31Params(), 5122),                                        # derivations in fixtures/rv32/fetch.S
    (E31Params(line_straddle_penalty=1), 5122 + 639),
    (E31Params(line_straddle_penalty=1, fetch_queue_cycles=8), 5122 + 639),
])
def test_straight_line_block_larger_than_the_icache(params: E31Params, cycles: int) -> None:
    """20 KiB of straight-line code (the I-cache holds 16 KiB): the default model has no capacity or fetch
    effect (calibration.md, pattern (c)); the experiment parameters charge each line-straddling 32-bit
    instruction."""
    board = board_for("fetch.S", "rv32imac", params=params)
    r = board.call("straight_20k", [0])
    assert (r.cycles, r.instructions, r.return_value) == (cycles, 5121, 1)


# ---------------------------------------------------------------------------------------------------
# Extension semantics (expected values computed independently of rv32_isa)

def _ror(x: int, s: int) -> int:
    s %= 32
    return ((x >> s) | (x << (32 - s))) & M32


def _bits_reversed_in_bytes(x: int) -> int:
    return int.from_bytes(bytes(int(f"{b:08b}"[::-1], 2) for b in x.to_bytes(4, "little")), "little")


def test_zbb_results(extensions: Rv32Board) -> None:
    a, b, c = 0x8765_4321, 0x0F0F_1234, 0x00FF_00F0
    x = _ror(a, b) & ~c & M32
    x = int.from_bytes(x.to_bytes(4, "big"), "little")
    orc = int.from_bytes(bytes(0xFF if v else 0 for v in x.to_bytes(4, "little")), "little")
    assert extensions.call("zbb_chain", [a, b, c]).return_value == x ^ orc

    def s32(v: int) -> int:
        return v - (1 << 32) if v >> 31 else v
    clz = 32 - a.bit_length()
    ctz = (a & -a).bit_length() - 1
    misc = (clz + ctz + bin(a).count("1") + ((a if s32(a) > s32(b) else b) ^ min(a, b)) +
            ((a & 0xFF) - 256 * ((a >> 7) & 1) & M32 ^ (a & 0xFFFF))) & M32
    assert extensions.call("zbb_misc", [a, b]).return_value == misc


def test_zbkb_results(extensions: Rv32Board) -> None:
    a, b = 0x8765_4321, 0x0F0F_1234
    pack = (a & 0xFFFF) | (b & 0xFFFF) << 16
    packh = (a & 0xFF) | (b & 0xFF) << 8
    brev = _bits_reversed_in_bytes(pack)
    zip_ = 0
    for k in range(16):
        zip_ |= ((packh >> k) & 1) << (2 * k) | ((packh >> (k + 16)) & 1) << (2 * k + 1)
    unzip = 0
    for k in range(16):
        unzip |= ((brev >> (2 * k)) & 1) << k | ((brev >> (2 * k + 1)) & 1) << (k + 16)
    assert extensions.call("zbkb_mix", [a, b]).return_value == unzip ^ _ror(zip_, 7)


def test_zbkc_results(extensions: Rv32Board) -> None:
    a, b = 0x8765_4321, 0x0F0F_1234
    p = 0
    for k in range(32):
        if b >> k & 1:
            p ^= a << k
    assert extensions.call("clmul_pair", [a, b]).return_value == (p & M32) ^ (p >> 32)


def test_custom_multiplication_instructions(extensions: Rv32Board) -> None:
    a, b, c = 0xFFFF_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFD
    assert extensions.call("product_mulu64", [a, b], ret_size=8).return_value == a * b
    assert extensions.call("product_rv32im", [a, b], ret_size=8).return_value == a * b
    assert extensions.call("add_carry", [a, b], ret_size=8).return_value == a + b
    # madd_twice: {a3,a2} = a*b + a4 + a2, then {a3,a2} = a*b + a3 + a2; a2 = a, a3 = b, a4 = c on entry
    lo, hi = (a * b + c + a) & M32, (a * b + c + a) >> 32
    second = a * b + hi + lo
    assert second < 1 << 64
    assert extensions.call("madd_twice", [a, b, a, b, c], ret_size=8).return_value == second


def test_custom_instruction_with_odd_pair_register_is_illegal(extensions: Rv32Board) -> None:
    with pytest.raises(BoardFault, match="illegal instruction") as e:
        extensions.call("custom_odd_rd", [1, 2])
    assert e.value.symbol == "custom_odd_rd"


def test_custom_instruction_registry() -> None:
    ci = isa.CUSTOM_INSTRUCTIONS["mulu64"]
    assert (ci.opcode, ci.funct3, ci.funct, ci.fmt) == (isa.CUSTOM_0, 0, 0, "r")
    assert isa.CUSTOM_EXTENSIONS["xmul64"] == ("mulu64", "addc", "maddu")
    ins = isa.decode(0x00B5060B)            # .insn r CUSTOM_0, 0, 0, a2, a0, a1
    assert (ins.mnemonic, ins.rd, ins.rd2, ins.rs1, ins.rs2) == ("mulu64", 12, 13, 10, 11)
    assert ins.text() == "mulu64 a2,a0,a1"
    with pytest.raises(ValueError, match="collides"):
        isa.register("xclash", isa.CustomInstruction("clash", "r", isa.CUSTOM_0, 0, 0,
                                                     lambda a, b, c, d: (a,), 1, False, False))
    with pytest.raises(ValueError, match="collides"):   # an R4 funct2 covers R-type funct7 values
        isa.register("xclash", isa.CustomInstruction("clash4", "r4", isa.CUSTOM_0, 1, 0,
                                                     lambda a, b, c, d: (a,), 1, False, False))


def test_new_custom_instruction_runs_on_the_board(tmp_path: Path) -> None:
    """The facility end to end: declare an extension, build firmware using it, run, check timing."""
    if "xtestsq" not in isa.CUSTOM_EXTENSIONS:
        isa.register("xtestsq", isa.CustomInstruction(
            "sqacc", "r", isa.CUSTOM_2, 0b010, 0b0000011, lambda a, b, c, d: ((a * a + b) & M32,),
            latency=3, uses_multiplier=True, pair=False))
    src = tmp_path / "sq.S"
    src.write_text("    .text\n    .globl sq\nsq:\n    .insn r CUSTOM_2, 2, 3, a0, a0, a1\n"
                   "    addi a0, a0, 1\n    ret\n")
    image = build("rv32", [src], name="test-xtestsq", keep=["sq"])
    board = Rv32Board()
    board.load(image.path, isa="rv32imac_xtestsq")
    r = board.call("sq", [1000, 5])
    assert r.return_value == 1000 * 1000 + 5 + 1
    assert r.cycles == 6                    # sqacc@0 addi@3 ret@4 (+1: the cold ret)
    board.load(image.path)                  # same firmware, ISA without the extension: illegal
    with pytest.raises(BoardFault, match="illegal instruction"):
        board.call("sq", [1, 2])


# ---------------------------------------------------------------------------------------------------
# Decoder

_TARGETS = frozenset({"jal", "c.jal", "c.j", "beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez"})


def _normalize(text: str) -> tuple[str, list]:
    """(mnemonic, operands) with numbers as ints; objdump prints branch targets as bare hex."""
    text = re.sub(r"<[^>]*>|#.*$", "", text).strip()
    mnemonic, _, ops = text.partition(" ")
    if mnemonic == "c.nop":
        return "c.addi", ["zero", 0]
    operands: list = []
    for op in filter(None, (o.strip() for o in ops.split(","))):
        if re.fullmatch(r"-?0x[0-9a-f]+|-?\d+", op):
            operands.append(int(op, 0))
        else:
            operands.append(op)
    if mnemonic in _TARGETS and operands and isinstance(operands[-1], int):
        operands[-1] = int(ops.split(",")[-1].strip().removeprefix("0x"), 16)
    return mnemonic, operands


def test_decoder_matches_objdump() -> None:
    image = build("rv32", [FIX / "decoder_all.S"], name="test-decoder",
                  isa="rv32imac_zicsr_zifencei_zbb_zbkb_zbkc", keep=["decoder_all"])
    out = subprocess.run(["riscv64-unknown-elf-objdump", "-d", "-M", "no-aliases",
                          "--disassemble=decoder_all", str(image.path)],
                         capture_output=True, text=True, check=True).stdout
    checked = 0
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(.*)$", line)
        if not m:
            continue
        pc, word, text = int(m.group(1), 16), int(m.group(2), 16), m.group(3).replace("\t", " ")
        if text.startswith((".4byte", "fence")):    # custom encodings objdump cannot name; fence's iorw
            continue
        assert _normalize(isa.decode(word).text(pc)) == _normalize(text), line
        checked += 1
    assert checked >= 115


# ---------------------------------------------------------------------------------------------------
# Faults

def test_instruction_outside_declared_isa_faults(faults: Rv32Board) -> None:
    with pytest.raises(BoardFault) as e:
        faults.call("zbb_without_isa", [1, 2])
    assert "outside the declared ISA rv32imac" in e.value.reason
    assert e.value.symbol == "zbb_without_isa+0x2" and e.value.instruction == "ror a0,a0,a1"


def test_native_instruction_outside_declared_isa_faults() -> None:
    board = board_for("faults.S", "rv32imac", "rv32iac")
    with pytest.raises(BoardFault, match=r"outside the declared ISA rv32iac.*plain_mul\): mul a0,a0,a1"):
        board.call("plain_mul", [3, 4])


def test_unmapped_access_names_pc_symbol_instruction(faults: Rv32Board) -> None:
    with pytest.raises(BoardFault) as e:
        faults.call("unmapped_load")
    f = e.value
    assert "load from unmapped address 0x10013000" in f.reason
    assert f.pc == faults.image.address_of("unmapped_load") + 4
    assert f.symbol == "unmapped_load+0x4" and f.instruction == "c.lw a0,0(a1)"
    assert "pc=0x" in str(f) and "unmapped_load+0x4" in str(f)


@pytest.mark.parametrize("name,args,pattern", [
    ("misaligned_load", [Buf(bytes(8))], r"misaligned 4-byte load from 0x8\w+2 .*lw a0,2\(a0\)"),
    ("misaligned_store", [Buf(bytes(8)), 5], r"misaligned 2-byte store to 0x8\w+1 .*sh a1,1\(a0\)"),
    ("flash_store", [1], r"store to read-only address 0x2001\w+ \(flash\)"),
    ("do_ecall", [], r"^ecall at pc=.*\(do_ecall\): ecall"),
    ("do_ebreak", [], r"^ebreak at pc=.*\(do_ebreak\): c.ebreak"),
    ("wild_jump", [0x40], r"fetch from unmapped address 0x40 \(jumped to by 0x\w+ wild_jump\)"),
    ("smash", [Buf(bytes(16))], r"canary after argument 0 .* overwritten by smash"),
])
def test_faults(faults: Rv32Board, name: str, args: list, pattern: str) -> None:
    with pytest.raises(BoardFault, match=pattern):
        faults.call(name, args)


def test_runaway_loop_faults_quickly(faults: Rv32Board) -> None:
    start = time.perf_counter()
    with pytest.raises(BoardFault, match=r"runaway: no return after 20000 instructions .*\(runaway\)"):
        faults.call("runaway", max_instructions=20_000)
    assert time.perf_counter() - start < 5


def test_board_survives_faults(faults: Rv32Board) -> None:
    with pytest.raises(BoardFault):
        faults.call("unmapped_load")
    assert faults.call("stack_user", [7]).return_value == 7


def test_flash_load_penalty(faults: Rv32Board) -> None:
    r = faults.call("flash_load")
    assert r.return_value == 0x0000_0597                # auipc a1, 0
    assert r.cycles == 4 + E31Params().flash_load_penalty     # 2 instructions + the cold ret's bubble


def test_stack_high_water(faults: Rv32Board) -> None:
    assert faults.call("stack_user", [7]).stack_bytes == 32


# ---------------------------------------------------------------------------------------------------
# ABI, results, determinism, tracing

def test_ten_arguments_with_64_bit_values() -> None:
    image = build("rv32", [FIX / "abi.c"], name="test-abi", keep=["ten_args", "wide_result"])
    board = Rv32Board()
    board.load(image.path)
    b, g = 0x1111_2222_3333_4444, 0x5555_6666_7777_8888   # g lands split: low in a7, high on the stack
    args = [1, Int(b, 8), 3, 4, 5, 6, Int(g, 8), 8, 9, 10]
    expected = (1 * 3 + (b & M32) * 5 + (b >> 32) * 7 + 3 * 11 + 4 * 13 + 5 * 17 + 6 * 19 + (g & M32) * 23 +
                (g >> 32) * 29 + 8 * 31 + 9 * 37 + 10 * 41) & M32
    assert board.call("ten_args", args).return_value == expected
    r = board.call("wide_result", [Int(0x1_2345_6789, 8), 1000], ret_size=8)
    assert r.return_value == 0x1_2345_6789 * 1000 + 1


def test_buffers_and_outputs(kernels: Rv32Board) -> None:
    rnd = random.Random(7)
    a, b = rnd.randbytes(32), rnd.randbytes(32)
    r = kernels.call("mp_mul", [Buf(size=64, out=True), Buf(a), Buf(b), 8])
    assert int.from_bytes(r.outputs[0], "little") == int.from_bytes(a, "little") * int.from_bytes(b, "little")


def test_deterministic_and_independent_of_call_history(kernels: Rv32Board) -> None:
    args = [Buf(size=64, out=True), Buf(bytes(range(64))), 3]
    first = kernels.call("chacha20_blocks", args)
    kernels.call("div_sum", [Buf(struct.pack("<4I", 9, 99, 999, 9999)), 4, 7])
    again = kernels.call("chacha20_blocks", args)
    assert (first.cycles, first.instructions, first.outputs) == (again.cycles, again.instructions,
                                                                 again.outputs)


@pytest.mark.parametrize("chunk", [1, 3, 97])
def test_cycle_count_independent_of_emulation_chunking(kernels: Rv32Board, monkeypatch: pytest.MonkeyPatch,
                                                       chunk: int) -> None:
    """The board runs Unicorn in chunks and cuts blocks at chunk ends; counts must not depend on it."""
    div_args = [Buf(struct.pack("<4I", 0xFFFF_FFFF, 12345, 7, 0)), 4, 7]
    mul_args = [Buf(size=64, out=True), Buf(bytes(range(32))), Buf(bytes(range(32, 64))), 8]
    ref = [kernels.call("div_sum", div_args), kernels.call("mp_mul", mul_args)]
    monkeypatch.setattr(rv32, "_CHUNK", chunk)
    got = [kernels.call("div_sum", div_args), kernels.call("mp_mul", mul_args)]
    assert [(r.cycles, r.instructions, r.return_value, r.outputs) for r in got] == \
        [(r.cycles, r.instructions, r.return_value, r.outputs) for r in ref]


def test_trace(kernels: Rv32Board) -> None:
    values = [0xFFFF_FFFF, 12345, 7, 0]
    args = [Buf(struct.pack("<4I", *values)), 4, 7]
    plain = kernels.call("div_sum", args)
    r = kernels.call("div_sum", args, trace=True)
    assert r.cycles == plain.cycles and r.trace is not None
    assert len(r.trace.pcs) == r.instructions
    loads = [a for a in r.trace.accesses if not a.write]
    assert len(loads) == 4 and all(a.size == 4 for a in loads)
    assert [v[1:3] for v in r.trace.variable_latency] == \
        [(m, (v, 7)) for v in values for m in ("divu", "remu")]
    assert all(v[3] == divide_cycles(E31Params(), v[1], *v[2]) for v in r.trace.variable_latency)


def test_trace_covers_emulated_instructions(extensions: Rv32Board) -> None:
    extensions.call("ror_loop", [5, 0x1234_5678, 3])          # cached translations without trace hooks
    r = extensions.call("ror_loop", [5, 0x1234_5678, 3], trace=True)
    assert len(r.trace.pcs) == r.instructions == 5 * 3 + 2
    assert r.return_value == _ror(0x1234_5678, 15)


# ---------------------------------------------------------------------------------------------------
# Calibration (docs/board-rv32.md): the forum measurement's sequence

FORUM_PUBLISHED = {2: 66, 3: 91, 6: 146, 7: 171, 10: 226}


def test_calibration_forum_sequence() -> None:
    """The model's counts for the published HiFive1 sequence, as the calibration table states them:
    the slope (cycles per 20-instruction repetition) matches the board exactly, the intercept is low."""
    board = board_for("calibration_forum.S", "rv32imac_zicsr",
                      keep=[f"measure{n}" for n in FORUM_PUBLISHED])
    model = {n: board.call(f"measure{n}").return_value for n in FORUM_PUBLISHED}
    assert model == {n: 20 * n + 14 for n in FORUM_PUBLISHED}
    assert (FORUM_PUBLISHED[10] - FORUM_PUBLISHED[2]) / 8 == (model[10] - model[2]) / 8 == 20


# ---------------------------------------------------------------------------------------------------
# ISA strings, loading, provenance

def test_parse_isa() -> None:
    assert parse_isa("rv32imac_zbb_zbkb") == {"i", "m", "a", "c", "zicsr", "zifencei", "zbb", "zbkb"}
    assert parse_isa(None) == {"i", "m", "a", "c", "zicsr", "zifencei"}
    for bad in ("rv64imac", "rv32imafc", "rv32imac_zbx", "rv32e"):
        with pytest.raises(BoardError):
            parse_isa(bad)


def test_describe_model_lists_every_parameter(faults: Rv32Board) -> None:
    d = faults.describe_model()
    params = d["parameters"]
    assert set(params) == {f for f in E31Params.__dataclass_fields__}
    assert all(p["source"] for p in params.values())
    assert params["btb_entries"]["value"] == 28 and params["mispredict_penalty"]["value"] == 3


# ---------------------------------------------------------------------------------------------------
# Speed (asserted only on request: machines differ; the figure is printed with -s)

def test_speed(kernels: Rv32Board) -> None:
    rnd = random.Random(1)
    n = 64                                             # 2048-bit product-scanning multiplication
    args = [Buf(size=8 * n, out=True), Buf(rnd.randbytes(4 * n)), Buf(rnd.randbytes(4 * n)), n]
    kernels.call("mp_mul", args)                       # decode and memoize once
    start = time.perf_counter()
    r = kernels.call("mp_mul", args)
    rate = r.instructions / (time.perf_counter() - start)
    print(f"\nrv32 board: {r.instructions} instructions, {r.cycles} cycles, {rate / 1e6:.2f} M instructions/s")
    if os.environ.get("MCUCRYPT_SPEED_TEST"):
        assert rate >= 1e6
