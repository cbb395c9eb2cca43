# SPDX-License-Identifier: MIT
"""The armv7m virtual board: the Cortex-M3 timing model against hand-counted snippets, the ISA check,
faults, the AAPCS, canaries, determinism, traces, and a measurement of simulation speed.

The hand-counted cases live next to their code in fixtures/armv7m/timing.S ("CASE name(args) = cycles",
each derived in comments from the TRM rules listed at the top of that file)."""
from __future__ import annotations

import os
import re
import struct
import time
from dataclasses import fields
from pathlib import Path

import pytest
import unicorn
from unicorn import arm_const as U

from mcucrypt.boards.armv7m import Armv7mBoard
from mcucrypt.boards.base import BoardError, BoardFault, Buf, Int
from mcucrypt.boards.cm3_model import Cm3Params
from mcucrypt.build import build

FIXTURES = Path(__file__).parent / "fixtures" / "armv7m"
TIMING = FIXTURES / "timing.S"
FAULTS = FIXTURES / "faults.S"
KERNELS = FIXTURES / "kernels.c"
SPEED_ENV = "MCUCRYPT_ARMV7M_SPEED"      # set to 1 to assert >= 1e6 simulated instructions per second
MIN_SPEED = 1e6


def words(*values: int) -> Buf:
    """A buffer of 32-bit little-endian words (read back after the call)."""
    return Buf(b"".join(struct.pack("<I", v & 0xFFFFFFFF) for v in values), out=True)


def buf(n: int) -> Buf:
    return Buf(bytes(n), out=True)


def _cases() -> list[tuple[str, str, int]]:
    return [(name, args, int(cycles))
            for name, args, cycles in re.findall(r"CASE (\w+)\((.*?)\) = (\d+)", TIMING.read_text())]


CASES = _cases()


def _board(source: Path, name: str, keep: list[str]) -> Armv7mBoard:
    board = Armv7mBoard()
    board.load(build("armv7m", [source], name=name, keep=keep).path)
    return board


@pytest.fixture(scope="module")
def timing() -> Armv7mBoard:
    return _board(TIMING, "armv7m-timing", sorted({name for name, _, _ in CASES}))


@pytest.fixture(scope="module")
def faults() -> Armv7mBoard:
    names = re.findall(r"^FUNC (\w+)", FAULTS.read_text(), re.M)
    return _board(FAULTS, "armv7m-faults", names)


@pytest.fixture(scope="module")
def kernels() -> Armv7mBoard:
    return _board(KERNELS, "armv7m-kernels", ["mul128", "args8", "overrun", "speed_kernel"])


def test_enough_hand_counted_cases() -> None:
    assert len(CASES) >= 25 and len({name for name, _, _ in CASES}) >= 25


@pytest.mark.parametrize("name,args,expected", CASES, ids=[f"{n}({a})" for n, a, _ in CASES])
def test_hand_counted_cycles(timing: Armv7mBoard, name: str, args: str, expected: int) -> None:
    call_args = eval(f"({args},)", {"words": words, "buf": buf})  # noqa: S307 - fixture text we own
    result = timing.call(name, call_args)
    assert result.cycles == expected, f"{name}({args}): {result.cycles} cycles, hand count {expected}"


@pytest.mark.parametrize("name,args,value", [
    ("mul_mla", (3, 5, 7), 47),
    ("ldr_dependent", (words(4, 0x1234),), 0x1234),
    ("tbb_switch", (0,), 10), ("tbb_switch", (1,), 20), ("tbh_switch", (1,), 20),
    ("it_folded", (3,), 1), ("it_folded", (9,), 2), ("it_return", (1,), 7),
    ("call_leaf", (41,), 42), ("literal", (0,), 0x12345678), ("branch_unaligned_wide", (1,), 2),
    ("p003_table4_mac", (words(0x89ABCDEF), words(0x12345678)), (0x89ABCDEF * 0x12345678) & 0xFFFFFFFF),
    ("p003_table5_mac", (words(0x89ABCDEF), words(0x12345678)), (0x89ABCDEF * 0x12345678) & 0xFFFFFFFF),
])
def test_snippets_compute_what_they_should(timing: Armv7mBoard, name: str, args: tuple, value: int) -> None:
    assert timing.call(name, args).return_value == value


@pytest.mark.parametrize("a,b", [(3, 5), (0x12345, 0x10000), (0xFFFFFFFF, 0xFFFFFFFF)])
def test_umull_result_and_64bit_return(timing: Armv7mBoard, a: int, b: int) -> None:
    assert timing.call("umull_cycles", (a, b), ret_size=8).return_value == a * b


def test_narrow_return_widths(timing: Armv7mBoard) -> None:
    full = timing.call("alu_mix", (7,)).return_value
    assert timing.call("alu_mix", (7,), ret_size=1).return_value == full & 0xFF
    assert timing.call("alu_mix", (7,), ret_size=2).return_value == full & 0xFFFF


def test_outputs_and_stack_bytes(timing: Armv7mBoard) -> None:
    result = timing.call("ldr_str", (words(9, 0),))
    assert result.outputs == [struct.pack("<II", 9, 9)]
    assert result.stack_bytes == 0                      # a leaf that touches no stack
    assert timing.call("multiple", (words(1, 2, 3),)).stack_bytes == 16     # push {r4-r7}
    assert timing.call("pop_pc", (5,)).stack_bytes == 8                      # push {r4, lr}


# --- the instruction set: ARMv7-M base only ------------------------------------------------------------

def test_unicorn_runs_a_cortex_m3_not_an_m33(faults: Armv7mBoard) -> None:
    """UC_MODE_MCLASS would emulate a Cortex-M33 that executes UMAAL; the board uses the M3 model."""
    assert faults._uc.ctl_get_cpu_model() == U.UC_CPU_ARM_CORTEX_M3
    assert not faults._uc.ctl_get_mode() & unicorn.UC_MODE_MCLASS


@pytest.mark.parametrize("name,mnemonic", [("do_umaal", "umaal"), ("do_smlabb", "smlabb"),
                                           ("do_uadd8", "uadd8"), ("do_sxtab", "sxtab"),
                                           ("do_vadd", "vadd.f32")])
def test_non_armv7m_instructions_fault(faults: Armv7mBoard, name: str, mnemonic: str) -> None:
    with pytest.raises(BoardFault, match="ARMv7-M") as info:
        faults.call(name)
    fault = info.value
    assert fault.pc == faults._image.address_of(name) & ~1
    assert fault.symbol == name and fault.instruction.split()[0] == mnemonic


@pytest.mark.parametrize("name,reason", [("do_svc", "supervisor call"), ("do_bkpt", "breakpoint"),
                                         ("do_wfi", "wait for interrupt")])
def test_instructions_this_board_cannot_survive(faults: Armv7mBoard, name: str, reason: str) -> None:
    with pytest.raises(BoardFault, match=reason) as info:
        faults.call(name)
    assert info.value.symbol == name


# --- memory and control-flow faults ---------------------------------------------------------------------

def test_unmapped_read_names_pc_symbol_and_instruction(faults: Armv7mBoard) -> None:
    with pytest.raises(BoardFault) as info:
        faults.call("read_address", (0x4000_0000,))
    fault = info.value
    assert fault.pc == (faults._image.address_of("read_address") & ~1) + 2
    assert fault.symbol == "read_address+0x2"
    assert fault.instruction == "ldr r0, [r0]"
    message = str(fault)
    assert "0x40000000" in message and f"pc=0x{fault.pc:x}" in message and "read_address+0x2" in message \
        and "ldr r0, [r0]" in message


@pytest.mark.parametrize("address,what", [(0x0000_0100, "write of 4 bytes at 0x100: flash is read-only"),
                                          (0x2001_0000, "write of 4 bytes at 0x20010000: unmapped"),
                                          (0x1FFF_FFFC, "write of 4 bytes at 0x1ffffffc: unmapped")])
def test_writes_outside_sram_fault(faults: Armv7mBoard, address: int, what: str) -> None:
    with pytest.raises(BoardFault, match=what) as info:
        faults.call("write_address", (address, 5))
    assert info.value.symbol == "write_address" and info.value.instruction == "str r1, [r0]"


def test_unaligned_ldm_is_a_usage_fault(faults: Armv7mBoard) -> None:
    with pytest.raises(BoardFault, match="UNALIGNED") as info:
        faults.call("ldm_address", (0x2000_0102,))
    assert info.value.symbol == "ldm_address" and info.value.instruction.startswith("ldm")


def test_unaligned_ldr_is_allowed_and_costs_more(faults: Armv7mBoard) -> None:
    aligned = faults.call("read_address", (0x2000_0100,)).cycles
    assert faults.call("read_address", (0x2000_0102,)).cycles == aligned + 1
    assert faults.call("read_address", (0x2000_0103,)).cycles == aligned + 2


@pytest.mark.parametrize("target,reason", [(0x3000_0001, "fetch of 2 bytes at 0x30000000: unmapped"),
                                           (0x0000_0100, "INVSTATE")])
def test_bad_branch_targets_fault(faults: Armv7mBoard, target: int, reason: str) -> None:
    with pytest.raises(BoardFault, match=reason):
        faults.call("jump_to", (target,))


def test_runaway_loops_fault_quickly(faults: Armv7mBoard) -> None:
    start = time.perf_counter()
    with pytest.raises(BoardFault, match="infinite loop") as info:
        faults.call("spin")                         # default budget: "b ." is recognised at once
    assert info.value.symbol == "spin"
    with pytest.raises(BoardFault, match="runaway") as info:
        faults.call("forever", max_instructions=200_000)
    assert info.value.symbol.startswith("forever")
    assert time.perf_counter() - start < 30     # generous: 200 000 instructions, whatever the machine load


# --- the C ABI, canaries, determinism, traces -----------------------------------------------------------

def test_aapcs_stack_arguments(kernels: Armv7mBoard) -> None:
    a, b, c, d, e, f, g, h = 0x11, 0x1_2345_6789, 0x33, 0x44, 0xFEDC_BA98_7654_3210, 0x66, 0x77, 0x8_0000_0001
    result = kernels.call("args8", (a, Int(b, 8), c, d, Int(e, 8), f, g, Int(h, 8)), ret_size=8)
    expected = a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f + 17 * g + 19 * h
    assert result.return_value == expected % 2**64


def test_canary_smash_is_a_fault(kernels: Armv7mBoard) -> None:
    kernels.call("overrun", (Buf(bytes(16)), 15))       # writes 16 bytes: fine
    with pytest.raises(BoardFault, match="canary after argument 0"):
        kernels.call("overrun", (Buf(bytes(16)), 16))


def test_stack_high_water_and_overflow(faults: Armv7mBoard) -> None:
    assert faults.call("stack_hog", (1024,)).stack_bytes == 1024
    whole = faults._stack_top - faults._free_start          # no buffers: the stack may take all free SRAM
    assert faults.call("stack_hog", (whole - 16,)).stack_bytes == whole - 16
    with pytest.raises(BoardFault, match="stack overflow"):
        faults.call("stack_hog", (whole,))


def test_determinism(kernels: Armv7mBoard) -> None:
    state = bytes(range(64))
    first = kernels.call("speed_kernel", (Buf(state, out=True), 3))
    again = kernels.call("speed_kernel", (Buf(state, out=True), 3))
    fresh = Armv7mBoard()
    fresh.load(build("armv7m", [KERNELS], name="armv7m-kernels",
                     keep=["mul128", "args8", "overrun", "speed_kernel"]).path)
    other = fresh.call("speed_kernel", (Buf(state, out=True), 3))
    for r in (again, other):
        assert (r.cycles, r.instructions, r.return_value, r.outputs, r.stack_bytes) == \
               (first.cycles, first.instructions, first.return_value, first.outputs, first.stack_bytes)


def test_trace(timing: Armv7mBoard) -> None:
    # A fresh board: the first call to reach the UMULL also adds its code hook and restarts the block.
    fresh = _board(TIMING, "armv7m-timing", sorted({name for name, _, _ in CASES}))
    result = fresh.call("umull_cycles", (0x12345, 0x10000), trace=True)
    base = fresh._image.address_of("umull_cycles") & ~1
    trace = result.trace
    assert trace.pcs == [base, base + 4, base + 6, base + 8] and len(trace.pcs) == result.instructions
    assert trace.variable_latency == [(base, "umull", (0x12345, 0x10000), 5)]
    stored = timing.call("ldr_str", (words(9, 0),), trace=True)
    start = timing._image.address_of("ldr_str") & ~1
    assert [(m.pc - start, m.size, m.write) for m in stored.trace.accesses] == [(0, 4, False), (2, 4, True)]
    assert stored.trace.accesses[1].address == stored.trace.accesses[0].address + 4
    # Tracing does not change the count.
    assert timing.call("umull_cycles", (0x12345, 0x10000)).cycles == result.cycles


def _limbs(values: list[int]) -> Buf:
    return Buf(b"".join(struct.pack("<I", v) for v in values))


def test_umull_routine_timing_depends_on_operands(kernels: Armv7mBoard) -> None:
    """A 4x4-word multiply costs more with limbs >= 2^16: the Cortex-M3 long multiplier terminates early
    on short operands (3..5 cycles for UMULL, 4..6 for UMLAL). The whole difference is in those
    instructions, and every product is correct."""
    runs = {}
    for label, a, b in (("small", [0x1234, 0x0FFF, 0x0001, 0xFFFF], [0x00AB, 0x7FFF, 0x1000, 0x0002]),
                        ("large", [0x8765_4321, 0xFFFF_FFFF, 0x0001_0000, 0xDEAD_BEEF],
                                  [0x1234_5678, 0xFFFF_0000, 0x8000_0000, 0x0BAD_F00D])):
        result = kernels.call("mul128", (Buf(bytes(32), out=True), _limbs(a), _limbs(b)), trace=True)
        product = int.from_bytes(result.outputs[0], "little")
        assert product == int.from_bytes(_limbs(a).data, "little") * int.from_bytes(_limbs(b).data, "little")
        runs[label] = result
    small, large = runs["small"], runs["large"]
    assert small.instructions == large.instructions and small.trace.pcs == large.trace.pcs
    multiplies = [v for v in large.trace.variable_latency if v[1] in ("umull", "umlal")]
    assert len(multiplies) == 16
    assert large.cycles - small.cycles == sum(v[3] for v in large.trace.variable_latency) - \
        sum(v[3] for v in small.trace.variable_latency) == 2 * 16


# --- errors, provenance, speed ---------------------------------------------------------------------------

def test_board_errors(timing: Armv7mBoard) -> None:
    with pytest.raises(BoardError, match="no ELF"):
        Armv7mBoard().call("alu_mix", (1,))
    with pytest.raises(BoardError, match="not found"):
        timing.call("no_such_function")
    with pytest.raises(BoardError, match="bytes of RAM"):
        timing.call("ldr_ldr", (Buf(bytes(70_000)),))


def test_describe_model_lists_every_parameter() -> None:
    description = Armv7mBoard().describe_model()
    assert description["target"] == "armv7m" and "UC_CPU_ARM_CORTEX_M3" in description["simulator"]
    timing = description["timing"]
    assert set(timing) == {f.name for f in fields(Cm3Params)}
    assert all(entry["source"] and isinstance(entry["value"], int) for entry in timing.values())
    assert timing["refill_loaded"]["value"] == 3 and timing["mull_long"]["value"] == 5


def test_simulation_speed(kernels: Armv7mBoard, record_property) -> None:
    """Simulated instructions per second with the full timing model, on ChaCha20 blocks chained into
    256-bit multiplies. Reported always; asserted only when MCUCRYPT_ARMV7M_SPEED is set, since the
    figure depends on the machine."""
    state = Buf(bytes(range(64)))
    kernels.call("speed_kernel", (state, 2))            # decode and memoize the blocks first
    start = time.perf_counter()
    result = kernels.call("speed_kernel", (state, 200))
    rate = result.instructions / (time.perf_counter() - start)
    record_property("armv7m_instructions_per_second", round(rate))
    print(f"\narmv7m board: {result.instructions} instructions, {result.cycles} cycles, "
          f"{rate / 1e6:.2f} M simulated instructions/s")
    if os.environ.get(SPEED_ENV):
        assert rate >= MIN_SPEED
