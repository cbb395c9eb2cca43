# SPDX-License-Identifier: MIT
"""IT blocks on the armv7m board: every IT shape with loads, stores, LDM, STM and branches in its slots,
taken and not taken (tests/fixtures/armv7m/gen_it_patterns.py). Unicorn 2.1.4 with a memory hook leaves a
stale IT state after a hooked access inside an IT block (docs/board-armv7m.md, "IT blocks"); the board
repairs it. Each result is checked against the checksum computed from the pattern and against Unicorn
run without hooks."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import unicorn
from unicorn import arm_const as U

from mcucrypt.boards.armv7m import SENTINEL, SRAM_BASE, SRAM_SIZE, Armv7mBoard
from mcucrypt.boards.common import ElfImage
from mcucrypt.build import build

FIXTURES = Path(__file__).parent / "fixtures" / "armv7m"
GENERATOR = FIXTURES / "gen_it_patterns.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_it_patterns", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
PATTERNS = GEN.patterns()


def test_generated_fixture_is_current():
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


@pytest.fixture(scope="module")
def image():
    return build("armv7m", [FIXTURES / "it_patterns.S"], name="armv7m-it-patterns",
                 keep=[GEN.symbol(n) for n in range(len(PATTERNS))]).path


@pytest.fixture(scope="module")
def board(image) -> Armv7mBoard:
    b = Armv7mBoard()
    b.load(image)
    return b


class _PlainUnicorn:
    """The image on Unicorn's Cortex-M3 with no hooks at all (then Unicorn keeps the IT state right)."""

    def __init__(self, path: Path):
        self.image = ElfImage(path)
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB)
        self.uc.ctl_set_cpu_model(U.UC_CPU_ARM_CORTEX_M3)
        self.uc.mem_map(0, 512 * 1024)
        self.uc.mem_map(SRAM_BASE, SRAM_SIZE)
        for seg in self.image.segments:
            self.uc.mem_write(seg.address, seg.data)

    def call(self, symbol: str, flag: int) -> int:
        uc = self.uc
        uc.reg_write(U.UC_ARM_REG_XPSR, 1 << 24)
        uc.reg_write(U.UC_ARM_REG_R0, flag)
        uc.reg_write(U.UC_ARM_REG_SP, SRAM_BASE + SRAM_SIZE - 64)
        uc.reg_write(U.UC_ARM_REG_LR, SENTINEL | 1)
        uc.emu_start(self.image.address_of(symbol) | 1, SENTINEL)
        return uc.reg_read(U.UC_ARM_REG_R0)


def test_the_unicorn_defect_is_still_there(board):
    """The repair must have happened for the repro (ite eq; ldreq; bne, followed by a new block): if a
    later Unicorn fixes the defect this fails, and the workaround can be reconsidered."""
    n = PATTERNS.index(GEN.Pattern("eq", "e", ("ldr", "b"), False))
    r = board.call(GEN.symbol(n), [0])
    assert r.return_value == GEN.expected(PATTERNS[n], 0)
    assert board.it_repairs == 1


def test_every_it_pattern_gives_the_right_result(board, image):
    plain = _PlainUnicorn(image)
    wrong = []
    repaired = 0
    for n, p in enumerate(PATTERNS):
        for flag in (0, 1):
            want = GEN.expected(p, flag)
            reference = plain.call(GEN.symbol(n), flag)
            got = board.call(GEN.symbol(n), [flag]).return_value
            repaired += board.it_repairs
            if not got == reference == want:
                wrong.append(f"{GEN.symbol(n)} {p} flag={flag}: board 0x{got:x}, plain Unicorn 0x{reference:x}, "
                             f"pattern 0x{want:x}")
    assert not wrong, "\n".join(wrong[:20])
    assert repaired > 0        # the family reaches the defect


def test_repair_keeps_cycles_and_instructions(board):
    """A repaired block is charged once: the counts equal those of the same pattern's twin in which the
    stale state cannot arise (an ALU instruction in the load's slot), plus the load's extra cycle."""
    ldr = PATTERNS.index(GEN.Pattern("eq", "e", ("ldr", "b"), False))
    alu = PATTERNS.index(GEN.Pattern("eq", "e", ("alu", "b"), False))
    a = board.call(GEN.symbol(ldr), [1])        # ldreq skipped, bne taken: no stale state
    b = board.call(GEN.symbol(ldr), [0])        # ldreq runs, bne not taken: repaired
    assert board.it_repairs == 1
    c = board.call(GEN.symbol(alu), [0])
    assert b.instructions == c.instructions == a.instructions + 2     # the two adds after the block
    assert b.cycles - c.cycles == 1             # LDR takes 2 cycles, ADD 1


def test_traced_calls_are_repaired_too(board):
    """A traced call adds Python code and memory hooks (and flushes the translations): same results, same
    counts as the untraced call."""
    for n in range(0, len(PATTERNS), 7):
        for flag in (0, 1):
            traced = board.call(GEN.symbol(n), [flag], trace=True)
            plain = board.call(GEN.symbol(n), [flag])
            assert traced.return_value == plain.return_value == GEN.expected(PATTERNS[n], flag), PATTERNS[n]
            assert (traced.cycles, traced.instructions) == (plain.cycles, plain.instructions), PATTERNS[n]
