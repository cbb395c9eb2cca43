# SPDX-License-Identifier: MIT
"""Arduino for real (issue 34): Debian's arduino-builder and arduino-core-avr (scripts/setup.sh) build the
exported library's example sketch (examples/SelfTest) for the Uno and the Mega 2560 with the core's own
recipe (-Os -flto, C++ for the sketch, C for the library and the sketch's check.c), and the images run:
the Mega's in QEMU mega2560 and simavr, the Uno's in simavr (ATmega328P), the vectors' result read from
the serial line."""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcucrypt.catalog import load_catalog
from mcucrypt.export import arduino_builder_command, export
from mcucrypt.silicon.boards import get_board
from mcucrypt.silicon.virtual import run_qemu, run_simavr
from mcucrypt.targets import ROOT

VECTORS_H = ROOT / "examples" / "common" / "vectors.h"

# What each board's sketch carries: the Uno (32 KiB flash, 2 KiB SRAM) a selection that fits it; the
# Mega X25519 with an AEAD, a stream cipher and SHA-256 (avr-small: 61,500 B of flash, avr-fast's 63,938
# left too little room), kept under 64 KiB of flash: QEMU 7.2's mega2560 reads flash above 64 KiB wrong
# through ELPM (an image's .data, copied from there at start-up, arrives as zeros; simavr and the part
# read it right), so a larger image says nothing on QEMU's serial port. X25519 avr-fast (34 KiB) was
# wrong on the 2560 before issue 34. Every family, built as the core builds it (-Os -flto), runs on
# the ATmega2560 and the other parts in tests/test_build_matrix.py.
BOARDS = {
    "uno": {"fqbn": "arduino:avr:uno", "mcu": "atmega328p", "prims": ["lea128", "aes128", "keccak"],
            "impls": [], "qemu": False},
    "mega2560": {"fqbn": "arduino:avr:mega:cpu=atmega2560", "mcu": "atmega2560",
                 "prims": ["x25519", "tinyjambu", "chacha20", "sha256"],
                 "impls": ["tinyjambu=avr-fast", "x25519=avr-fast", "sha256=avr-small"], "qemu": True},
}


def expected_count(ids: list[str]) -> int:
    counts = dict(re.findall(r"#define EX_(\w+)_COUNT (\d+)", VECTORS_H.read_text()))
    return sum(int(counts[i.upper()]) for i in ids)


def test_arduino_builder_and_core_are_installed():
    """scripts/setup.sh installs them (`make test` runs it): without them the tests below cannot run."""
    assert shutil.which("arduino-builder"), "arduino-builder missing: run scripts/setup.sh"
    assert (Path("/usr/share/arduino/hardware/arduino/avr/platform.txt")).is_file(), \
        "arduino-core-avr missing: run scripts/setup.sh"


@pytest.mark.parametrize("board", list(BOARDS))
def test_selftest_sketch_builds_with_arduino_builder_and_passes_its_vectors(tmp_path, board):
    spec = BOARDS[board]
    lib = tmp_path / "libraries" / "mcucrypt-avr"
    manifest = export("avr", lib, prims=spec["prims"], impl=spec["impls"], url="https://github.com/example/fw")
    ids = [i for u in manifest["units"] for i in u["ids"]]
    sketch = lib / "examples" / "SelfTest" / "SelfTest.ino"
    build = tmp_path / "build"
    build.mkdir()
    cmd = arduino_builder_command(spec["fqbn"], sketch, libraries=tmp_path / "libraries", build=build)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{board}: {' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    elf = build / "SelfTest.ino.elf"
    if spec["qemu"]:
        size = subprocess.run(["avr-size", "-A", str(elf)], capture_output=True, text=True, check=True).stdout
        flash = sum(int(n) for name, n in re.findall(r"^\.(text|data)\s+(\d+)", size, re.M))
        assert flash < 65536, f"{board} sketch is {flash} bytes: over 64 KiB QEMU's mega2560 cannot run it"
    # The core's recipe, LTO included, built the library (not a prebuilt archive).
    assert any(p.name.endswith(".S.o") or p.name.endswith(".c.o") for p in (build / "libraries").rglob("*.o"))
    assert "-flto" in (Path("/usr/share/arduino/hardware/arduino/avr/platform.txt")).read_text()
    want = expected_count(ids)
    part = dataclasses.replace(get_board("mega2560"), name=spec["mcu"], mcu=spec["mcu"])
    runs = {"simavr": run_simavr(part, elf)}
    if spec["qemu"]:
        runs["QEMU mega2560"] = run_qemu(get_board("mega2560"), elf, timeout=300)
    for where, run in runs.items():
        m = re.search(r'\{"summary":"example","result":(-?\d+)\}', run.log)
        assert m, f"{board} sketch on {where}: no result line on the serial port: {run.log[-500:]!r}"
        assert int(m.group(1)) == want, f"{board} sketch on {where} ({', '.join(ids)}): {m.group(1)}, want {want}"
