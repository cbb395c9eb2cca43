# SPDX-License-Identifier: MIT
"""Issue 34: the avr board's parts (ATmega128, ATmega1284P, ATmega2560), its ABI monitor, X25519 on the
ATmega2560 and the image builder's fit check.

- Every AVR implementation family's official vectors on the ATmega1284P and the ATmega2560 (a subset by
  default: each family's assembly implementation, its first vectors; every implementation and every
  vector of the board's selection with MCUCRYPT_FULL=1).
- X25519 avr-fast on the 2560 gives the RFC 7748 results (the ladder step lost its state pointer there:
  its products' frame assumed a 2-byte return address; docs/x25519.md).
- The ABI monitor (mcucrypt/boards/simavr_shim.c): a global function that returns with a call-saved
  register changed, or r1 not zero, faults where it returns, whoever called it; a local subroutine with
  a private convention does not. TinyJAMBU avr-fast's block loop broke it (docs/tinyjambu.md).
- `mcucrypt firmware` refuses a selection that does not fit the part's SRAM, in one line, exit 2.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.avr import CALL_SAVED, PARTS, AvrBoard
from mcucrypt.boards.base import BoardError, BoardFault, Buf, Int
from mcucrypt.build import build
from mcucrypt.catalog import load_catalog
from mcucrypt.cores import CORES, get_core
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.targets import ROOT

FULL = os.environ.get("MCUCRYPT_FULL", "") not in ("", "0")
CATALOG = load_catalog()
FIXTURES = [ROOT / "tests/fixtures/avr/abi_fixtures.S", ROOT / "tests/fixtures/avr/abi_sum10.c"]
NEW_PARTS = ("atmega1284p", "atmega2560")
# (id, implementation, vectors in the default run): one id of every family with AVR assembly, its
# assembly implementation; X25519's ladder is about 1 s per vector on the board.
FAMILIES = [("aes128", "avr-table", 3), ("aes128", "avr-bitsliced", 3), ("aria128", "avr-fast", 1),
            ("asconaead128", "avr-fast", 40), ("asconhash256", "avr-compact", 8), ("chacha20", "avr-fast", 1),
            ("keccakf1600", "avr-fast", 1), ("lea256", "avr-fast", 1), ("mpmul512", "avr-kara", 3),
            ("pipo64_256", "avr-fast", 1), ("tinyjambu192", "avr-fast", 40), ("tinyjambu128", "avr-revshift", 2),
            ("x25519", "avr-fast", 2)]


def _all_avr() -> list[tuple[str, str, int]]:
    return [(pid, i.name, 0) for pid in CATALOG.all_ids() for i in CATALOG.implementations(pid, "avr")]


def _kind(pid: str, impl: str) -> str:
    i = CATALOG.implementation(pid, impl)
    return i.params(pid).get("kind", i.primitive.kind)


def run_vectors(pid: str, impl: str, limit: int, **firmware) -> int:
    """The official vectors (the board's selection; the first ``limit`` of them unless 0) of one
    implementation built and run per ``firmware`` (Firmware's core= and cflags=); their count."""
    fw = Firmware(CATALOG.implementation(pid, impl), pid, "avr", **firmware)
    driver = driver_for(_kind(pid, impl))
    vectors = driver.kat_vectors(fw)
    return driver.check_vectors(fw, vectors[:limit] if limit else vectors)


# ------------------------------------------------------------------------------------------- parts

@pytest.mark.parametrize("name,sram_start,ramend,flashend,pc_bytes", [
    ("atmega128", 0x100, 0x10FF, 0x1FFFF, 2), ("atmega1284p", 0x100, 0x40FF, 0x1FFFF, 2),
    ("atmega2560", 0x200, 0x21FF, 0x3FFFF, 3)])
def test_the_board_models_each_part(name: str, sram_start: int, ramend: int, flashend: int, pc_bytes: int) -> None:
    core = get_core("avr", name)
    assert core.mcu == name and name in PARTS
    assert core.sram_bytes == ramend + 1 - sram_start and core.flash_bytes == flashend + 1
    board = make_board("avr", core.mcu)
    model = board.describe_model()
    assert (model["mcu"], model["sram"], model["flash_bytes"], model["pc_bytes"]) == \
        (name, f"0x{sram_start:04x}..0x{ramend:04x}", flashend + 1, pc_bytes)


def test_the_atmega128_stays_the_default() -> None:
    assert get_core("avr").name == "atmega128"
    assert make_board("avr").describe_model()["mcu"] == "atmega128"
    assert {c.name for c in CORES.values() if c.target == "avr"} == {"atmega128", *NEW_PARTS}


def test_an_elf_for_another_part_is_refused() -> None:
    image = build("avr", FIXTURES, name="abi-fixtures-2560", mcu="atmega2560",
                  keep=["abi_sum10"])
    with pytest.raises(BoardError, match="RAMEND 0x21ff, not the atmega128"):
        AvrBoard().load(image.path)


@pytest.fixture(scope="module", params=["atmega128", *NEW_PARTS])
def fixtures_board(request) -> AvrBoard:
    mcu = request.param
    image = build("avr", FIXTURES, name=f"abi-fixtures-{mcu}",
                  mcu=None if mcu == "atmega128" else mcu,
                  keep=["abi_sum10", "abi_good_caller", "abi_bad_caller", "abi_dirty_r1_caller",
                        "abi_clobbers_r14"])
    board = make_board("avr", None if mcu == "atmega128" else mcu)
    board.load(image.path)
    return board


def test_stack_arguments_follow_the_return_address(fixtures_board: AvrBoard) -> None:
    """avr-gcc passes the arguments that do not fit r8..r25 on the stack above the return address, which
    is 3 bytes on the 2560: ten 16-bit arguments put the last one there."""
    args = [Int(1000 * (k + 1) + k, 2) for k in range(10)]
    assert fixtures_board.call("abi_sum10", args).return_value == sum(a.value for a in args) & 0xFFFF


def test_a_local_subroutine_may_keep_its_own_convention(fixtures_board: AvrBoard) -> None:
    """abi_good_caller calls a local routine that clobbers r2..r17 and saves them itself around it."""
    assert fixtures_board.call("abi_good_caller", [Int(7, 2)]).return_value == 7


def test_a_global_function_that_changes_a_call_saved_register_faults(fixtures_board: AvrBoard) -> None:
    with pytest.raises(BoardFault, match=r"ABI violation: abi_clobbers_r14 returns with r14 0x[0-9a-f]{2} -> "
                       r"0x5a"):
        fixtures_board.call("abi_bad_caller", [Int(7, 2)])


def test_a_global_function_that_leaves_r1_dirty_faults(fixtures_board: AvrBoard) -> None:
    with pytest.raises(BoardFault, match=r"r1 \(__zero_reg__\) 0x01, not 0"):
        fixtures_board.call("abi_dirty_r1_caller", [])


def test_the_called_function_itself_is_checked(fixtures_board: AvrBoard) -> None:
    """The board's own call: every call-saved register (argument registers included) is restored."""
    with pytest.raises(BoardFault, match="ABI violation: abi_clobbers_r14 returned with r14"):
        fixtures_board.call("abi_clobbers_r14", [])
    assert set(CALL_SAVED) == {*range(2, 18), 28, 29}


# ---------------------------------------------------------------------------------- TinyJAMBU blocks

@pytest.mark.parametrize("mcu", ["atmega128", "atmega2560"])
def test_tinyjambu_blocks_keeps_its_argument_registers(mcu: str) -> None:
    """The block loop used to advance in, out and nblocks in the pushed copies of r12..r17 and return
    with them changed: the board's entry check and the monitor both catch that."""
    fw = Firmware(CATALOG.implementation("tinyjambu128", "avr-fast"), "tinyjambu128", "avr", core=mcu)
    key, state = bytes(range(16)), bytes(16)
    data = bytes(range(12))
    # blocks(state, key, steps, frame, in, out, nblocks, mode): 3 blocks encrypted (mode 1)
    r = fw.board.call("mcu_tinyjambu128_avr_fast_blocks",
                      [Buf(state, out=True), Buf(key), Int(640, 2), Int(0x50, 1), Buf(data), Buf(size=12, out=True),
                       Int(3, 2), Int(1, 1)])
    assert len(r.outputs[1]) == 12


# ------------------------------------------------------------------------------ vectors on each part

SELECTION = _all_avr() if FULL else FAMILIES


@pytest.mark.parametrize("mcu", NEW_PARTS)
@pytest.mark.parametrize("pid,impl,limit", SELECTION, ids=[f"{p}-{i}" for p, i, _ in SELECTION])
def test_official_vectors_on_the_new_parts(mcu: str, pid: str, impl: str, limit: int) -> None:
    assert run_vectors(pid, impl, limit, core=mcu) >= 1


RFC7748 = [  # RFC 7748 section 5.2: scalar, u-coordinate, result
    ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
]


@pytest.mark.parametrize("mcu", ["atmega2560"])
def test_x25519_avr_fast_on_the_2560_gives_rfc7748(mcu: str) -> None:
    """The CLI end to end: `run --core atmega2560` builds with -mmcu=atmega2560 and runs on the 2560."""
    scalar, u, want = RFC7748[0]
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "x25519", "--target", "avr", "--core", mcu,
                          "--impl", "avr-fast", "--key", scalar, "--input", u, "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f'"output": "{want}"' in out.stdout and f'"core": "{mcu}"' in out.stdout


def test_call_core_must_match_the_elf() -> None:
    image = build("avr", FIXTURES, name="abi-fixtures",
                  keep=["abi_sum10"])
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "call", "--target", "avr", "--core", "atmega2560",
                          str(image.path), "abi_sum10", *["1"] * 10], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == \
        ["mcucrypt: error: " + out.stderr.strip().removeprefix("mcucrypt: error: ")]
    assert "not the atmega2560" in out.stderr


# ------------------------------------------------------------------------------------------- firmware

def test_firmware_refuses_a_selection_that_does_not_fit_the_sram(tmp_path) -> None:
    """Ascon-AEAD128's bench operations need a 3 KiB buffer arena: with the runner's frames and the
    deepest call's stack it cannot fit the ATmega128's 4 KiB; the image used to link and crash."""
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "firmware", "--board", "atmega128", "--prim",
                          "asconaead128", "--impl", "avr-fast", "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "does not fit the atmega128's 4096 bytes of SRAM" in lines[0]
    assert "mcu_arena" in lines[0] and "mcu_asconaead128_avr_fast_aead_decrypt" in lines[0]
    assert not (tmp_path / "mcucrypt-atmega128.hex").exists()


def test_firmware_measures_what_fits(tmp_path) -> None:
    """A selection that fits builds, and the fit figures are the image's own: static data from its
    sections, the runner's frames, the deepest recorded call, the interrupt."""
    from mcucrypt.silicon.boards import get_board
    from mcucrypt.silicon.image import make_image
    board = get_board("mega2560")
    outputs = make_image(board, ["tinyjambu128"], ["avr-fast"], tmp_path, runs=1, max_vectors=2)
    assert outputs.hex.is_file()
    deepest = max(c.result.stack_bytes for c in outputs.plan.calls)
    assert deepest > 50


# simavr's full-system run of the same image (half a minute) with MCUCRYPT_FULL=1; the default run has
# the 2560's vectors on the board above
@pytest.mark.parametrize("run", ["qemu", "virtual"] if FULL else ["qemu"])
def test_x25519_mega2560_image_passes_its_vectors(tmp_path, run: str) -> None:
    """The issue's report: `firmware --board mega2560` with X25519 printed garbage. The image, recorded on
    the board's ATmega2560, checks its embedded official vectors on simavr's 2560 and on QEMU's mega2560."""
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "firmware", "--board", "mega2560", "--prim", "x25519",
                          "--impl", "avr-fast", "--max-vectors", "1", "--runs", "1", "--out", str(tmp_path),
                          "--run", run], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    verdicts = [line for line in out.stdout.splitlines() if line.startswith('{"vectors"')]
    assert verdicts and all('"vectors":"pass"' in v for v in verdicts), verdicts


def test_cli_test_and_bench_take_a_core(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "test", "--core", "atmega2560", "--prim", "pipo64_128",
                          "--impl", "avr-fast", "--random", "1"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS pipo64_128 avr-fast avr (atmega2560)" in out.stdout
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "bench", "--core", "atmega2560", "--prim", "pipo64_128",
                          "--merge"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "--core atmega2560 writes a results file of its own" in out.stderr
    out = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "bench", "--core", "atmega2560", "--target", "rv32",
                          "--prim", "pipo64_128"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "does not go with it" in out.stderr
