# SPDX-License-Identifier: MIT
"""The build matrix (issue 34): every exported family on every target, built as firmware builds it, and
its official vectors RUN on the part, not only compiled.

A cell is (target, family): one `mcucrypt export`, then for each variant
  optimisation  -O2 (the exported Makefile's default), -Os, -Os -flto (the Arduino cores' way)
  language      the example firmware (examples/common/check.c) compiled as C or as C++
  part          the target's virtual board (`mcucrypt call`), and the real parts' firmware
                (examples/<target>/serial.elf, its result printed on the UART):
                armv7m: QEMU lm3s6965evb; avr: ATmega2560 in simavr and QEMU mega2560, ATmega1284P in simavr
the library is built with the exported Makefile (OPTFLAGS, and ARCHFLAGS=-mmcu=<part> for another AVR),
the example linked with the same flags, run, and its count of passed vectors compared with the number
it carries. A failure names the family, the implementation, the flags, the language and the part.

The default run takes a representative subset of the variants (the whole matrix is about 160 builds and
runs, too long for `make test` on two cores): every family on its target's main part built the riskiest way
(-Os -flto as C++, how the Arduino cores build), and for the families in EVERY_PART every other part with
-Os -flto and the main part with each optimisation level and language once (-O2 C++, -Os C, -Os -flto
C++) — the families with assembly that once broke on another part or under LTO (X25519 on the ATmega2560,
TinyJAMBU under -flto) and one family per target beside them. MCUCRYPT_FULL=1 runs all six variants on
every part for every family.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcucrypt.catalog import load_catalog
from mcucrypt.silicon.boards import get_board
from mcucrypt.silicon.virtual import run_qemu, run_simavr
from mcucrypt.targets import ROOT

EXAMPLES = ROOT / "examples"
VECTORS_H = EXAMPLES / "common" / "vectors.h"
CLI = [sys.executable, "-m", "mcucrypt.cli"]
FULL = os.environ.get("MCUCRYPT_FULL") == "1"
TOOL_ENV = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}

# The implementation per cell: the default choice (None) where choosing is quick, named where choosing
# would first run thousands of vectors per candidate (as tests/test_export.py's EXPORTS). Ascon's cells
# name the default choice's pick (rv32-fast, armv7m-bi32, avr-compact): choosing ran every candidate's
# 2,100 official vectors first, 3-7 minutes a target on a clean checkout.
CELLS = [
    ("rv32", "lea", None), ("rv32", "aria", "rv32-paper"), ("rv32", "aes", None), ("rv32", "chacha20", None),
    ("rv32", "keccak", None), ("rv32", "mpmul", "rv32-fast"), ("rv32", "pipo", None),
    ("rv32", "tinyjambu", "rv32-fast"), ("rv32", "ascon", "rv32-fast"), ("rv32", "x25519", "rv32-fast"),
    ("armv7m", "lea", None), ("armv7m", "aria", None), ("armv7m", "aes", None), ("armv7m", "chacha20", None),
    ("armv7m", "keccak", None), ("armv7m", "mpmul", "cm3-umlal-ct"), ("armv7m", "pipo", None),
    ("armv7m", "tinyjambu", "cm3-fast"), ("armv7m", "ascon", "armv7m-bi32"), ("armv7m", "x25519", "cm3-fast"),
    ("avr", "lea", None), ("avr", "aria", None), ("avr", "aes", None), ("avr", "chacha20", None),
    ("avr", "keccak", None), ("avr", "mpmul", None), ("avr", "pipo", None), ("avr", "tinyjambu", "avr-fast"),
    ("avr", "ascon", "avr-compact"), ("avr", "x25519", "avr-fast"),
    # SHA-2 and SHA-3: named (choosing runs every candidate's SHAVS/CAVP files on the board). SHA-3 avr-fast
    # keeps the permutation's 440 bytes in static RAM (reentrant: false), so the export takes it only by name.
    ("rv32", "sha2", "rv32-fast"), ("armv7m", "sha2", "armv7m-fast"), ("avr", "sha2", "avr-fast"),
    ("rv32", "sha3", "rv32-fast"), ("armv7m", "sha3", "armv7m-fast"), ("avr", "sha3", "avr-fast"),
    ("rv32", "chachapoly", "rv32-fast"), ("armv7m", "chachapoly", "cm3-fast"), ("avr", "chachapoly", "avr-fast"),
    # AES-CMAC: the constant-time variants, named (the default choice would weigh the table ones too).
    ("rv32", "aescmac", "rv32-bitsliced"), ("armv7m", "aescmac", "cm3-bitsliced"), ("avr", "aescmac", "avr-bitsliced"),
    # AES-GCM and AES-CCM: the constant-time variants, named as AES-CMAC.
    ("rv32", "aesgcm", "rv32-bitsliced"), ("armv7m", "aesgcm", "cm3-bitsliced"), ("avr", "aesgcm", "avr-bitsliced"),
    ("rv32", "aesccm", "rv32-bitsliced"), ("armv7m", "aesccm", "cm3-bitsliced"), ("avr", "aesccm", "avr-bitsliced"),
    # Signatures: verification of a few official records (examples/common/gen_vectors.py's signature layout).
    ("rv32", "ed25519", "rv32-fast"), ("armv7m", "ed25519", "cm3-fast"), ("avr", "ed25519", "avr-fast"),
    ("rv32", "p256", "rv32-fast"), ("armv7m", "p256", "cm3-fast"), ("avr", "p256", "avr-kara"),
    # LMS: no example records (every official signature is over the example's 1,600 bytes): the cell
    # builds the exported verifier with the example, as firmware builds it, and runs it (0 checks)
    ("rv32", "lms", "rv32-fast"), ("armv7m", "lms", "armv7m-fast"), ("avr", "lms", "avr-fast"),
    # ML-DSA: no example records (keys and signatures of 3.7 to 7.2 KB): the cell builds and links the
    # exported library with the example as firmware builds it (0 checks); its vectors run on the boards
    # through tests/test_catalog.py and tests/test_mldsa.py
    ("rv32", "mldsa", "rv32-shake"), ("armv7m", "mldsa", "armv7m-shake"),
    # ML-KEM: the whole family on the M3 (the library and the example's encapsulations fit its 64 KiB)
    ("armv7m", "mlkem", "cm3-c"),
]
# Families that do not fit a target's part when exported whole, with where they are run instead.
NOT_WHOLE = {
    ("rv32", "mlkem"): "the three ML-KEM ids' example buffers and stack exceed the E31's 16 KiB; "
                       "tests/test_export.py runs ML-KEM-768 alone through the example on the E31",
    ("avr", "mldsa"): "ML-DSA runs on the ATmega1284P configuration (16 KiB SRAM), not the ATmega128 the "
                      "export targets; its vectors run on that board through tests/test_catalog.py",
    ("avr", "mlkem"): "ML-KEM runs on the ATmega1284P configuration (16 KiB SRAM), not the ATmega128 the "
                      "export targets; its vectors run on that board through tests/test_catalog.py",
}

OPTS = ["-O2", "-Os", "-Os -flto"]
LANGS = ["c", "c++"]


@dataclasses.dataclass(frozen=True)
class Part:
    name: str
    target: str
    runner: str             # "board": mcucrypt call on the virtual board; "simavr", "qemu": serial.elf
    mmcu: str | None = None     # AVR: the -mmcu of the part (the library and the firmware are built for it)


PARTS = {
    "rv32": [Part("e31 (rv32 board)", "rv32", "board")],
    "armv7m": [Part("cortex-m3 (armv7m board)", "armv7m", "board"), Part("lm3s6965 (QEMU lm3s6965evb)", "armv7m", "qemu")],
    "avr": [Part("atmega128 (avr board)", "avr", "board"),
            Part("atmega2560 (simavr)", "avr", "simavr", "atmega2560"),
            Part("atmega2560 (QEMU mega2560)", "avr", "qemu", "atmega2560"),
            Part("atmega1284p (simavr)", "avr", "simavr", "atmega1284p")],
}

# Cells known to fail, with the reason and where it is being fixed; each is an xfail(strict): the test
# fails as soon as the cell passes, so the entry cannot outlive the fix.
# (X25519 avr-fast on the ATmega2560 was one until the cores' frame moved past the 3-byte return address.)
KNOWN_BROKEN: dict[tuple[str, str], str] = {}


def test_the_matrix_covers_every_family_on_every_target():
    """A family added to the catalog joins CELLS (and the examples' check.c and vectors.h), or NOT_WHOLE with
    where it runs instead."""
    cat = load_catalog()
    for target in PARTS:
        have = {f for t, f, _ in CELLS if t == target} | {f for t, f in NOT_WHOLE if t == target}
        want = {p.name for p in cat.primitives.values() if any(cat.implementations(i, target) for i in p.instances)}
        assert have == want, f"{target}: add {sorted(want - have)} to CELLS; drop {sorted(have - want)}"


# The families whose cells run every part and flag class in the default run (see the module docstring).
EVERY_PART = {("rv32", "ascon"), ("rv32", "sha2"), ("armv7m", "x25519"), ("armv7m", "sha3"),
              ("avr", "x25519"), ("avr", "tinyjambu"), ("avr", "sha2")}


def variants(target: str, family: str) -> list[tuple[str, str, Part]]:
    """(optimisation, language, part) of a cell: everything under MCUCRYPT_FULL=1; by default -Os -flto
    as C++ on the main part, and for the EVERY_PART families each optimisation once and each language on
    the main part (-O2 as C is tests/test_export.py's run) and -Os -flto (C++ on QEMU, C elsewhere) on
    the others."""
    main, *others = PARTS[target]
    if not FULL and (target, family) not in EVERY_PART:
        return [("-Os -flto", "c++", main)]
    out = [(o, lang, main) for o in OPTS for lang in LANGS] if FULL else \
        [("-O2", "c++", main), ("-Os", "c", main), ("-Os -flto", "c++", main)]
    for p in others:
        out += [(o, lang, p) for o in OPTS for lang in LANGS] if FULL else \
            [("-Os -flto", "c++" if p.runner == "qemu" else "c", p)]
    return out


def expected_count(ids: list[str]) -> int:
    counts = dict(re.findall(r"#define EX_(\w+)_COUNT (\d+)", VECTORS_H.read_text()))
    return sum(int(counts.get(i.upper(), 0)) for i in ids)     # an id without example records: 0


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def _build_and_run(lib: Path, work: Path, target: str, opt: str, lang: str, part: Part) -> tuple[int | None, str]:
    """(the example's result, or None, and what went wrong)."""
    arch = [] if part.mmcu is None else [f"ARCH=-mmcu={part.mmcu}"]
    out = work / "ex"
    if part.runner == "board":
        proc = _run(["make", "-C", str(EXAMPLES / target), f"MCUCRYPT={lib}", f"OUT={out}", f"OPT={opt}",
                     f"EXAMPLE_LANG={lang}", *arch], env=TOOL_ENV)
        if proc.returncode:
            return None, f"build failed:\n{proc.stderr[-2000:]}"
        proc = _run([*CLI, "call", "--target", target, "--max-instructions", "600000000", str(out / "example.elf"),
                     "mcucrypt_example", "--json"], cwd=ROOT)
        if proc.returncode:
            return None, f"mcucrypt call failed:\n{proc.stderr[-2000:]}"
        return json.loads(proc.stdout)["return_value"], ""
    elf = out / "serial.elf"
    proc = _run(["make", "-C", str(EXAMPLES / target), f"MCUCRYPT={lib}", f"OUT={out}", f"OPT={opt}",
                 f"EXAMPLE_LANG={lang}", *arch, str(elf)], env=TOOL_ENV)
    if proc.returncode:
        return None, f"build failed:\n{proc.stderr[-2000:]}"
    if part.runner == "qemu":
        board = get_board("lm3s6965" if target == "armv7m" else "mega2560")
        run = run_qemu(board, elf, timeout=300)
    else:
        board = dataclasses.replace(get_board("mega2560"), name=part.mmcu, mcu=part.mmcu)
        try:
            run = run_simavr(board, elf)
        except Exception as e:      # a crash: the board's message
            return None, str(e)
    m = re.search(r'\{"summary":"example","result":(-?\d+)\}', run.log)
    if not m:
        return None, f"no result line on the UART (finished: {run.finished}): {run.log[-500:]!r}"
    return int(m.group(1)), ""


@pytest.mark.parametrize("target,family,impl", CELLS, ids=[f"{t}-{f}" for t, f, _ in CELLS])
def test_exported_family_runs_its_vectors_as_firmware_builds_it(tmp_path, target, family, impl):
    lib = tmp_path / "lib"
    args = [*CLI, "export", "--target", target, "--prim", family, "--out", str(lib)]
    if impl:
        args += ["--allow-variable-time", "--impl", impl]
    proc = _run(args, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((lib / "mcucrypt-export.json").read_text())
    ids = [i for u in manifest["units"] for i in u["ids"]]
    assert set(ids) == set(load_catalog().primitives[family].instances)
    impls = ", ".join(u["impl"] for u in manifest["units"])
    want = expected_count(ids)
    failures, xfails, built = [], [], None
    for opt, lang, part in variants(target, family):
        library = (opt, part.mmcu)
        if built != library:        # the library for these flags and this part, with its own Makefile
            _run(["make", "-C", str(lib), "clean"])
            proc = _run(["make", "-C", str(lib), f"OPTFLAGS={opt}",
                         *([f"ARCHFLAGS=-mmcu={part.mmcu}"] if part.mmcu else [])], env=TOOL_ENV)
            assert proc.returncode == 0, f"{family} ({impls}) library with {opt} for {part.name}:\n{proc.stderr[-2000:]}"
            built = library
        got, why = _build_and_run(lib, tmp_path / "work", target, opt, lang, part)
        _run(["rm", "-rf", str(tmp_path / "work")])
        what = f"{family} ({impls}) built with {opt} as {lang.upper()} on {part.name}"
        broken = KNOWN_BROKEN.get((family, part.mmcu or ""))
        if got != want:
            (xfails if broken else failures).append(f"{what}: {why or f'{got} (want {want} vectors passed)'}")
        elif broken:
            failures.append(f"{what}: passes now, remove its KNOWN_BROKEN entry ({broken})")
    assert not failures, "\n".join(failures)
    if xfails:
        pytest.xfail("; ".join(sorted(set(KNOWN_BROKEN[(family, p)] for (f, p) in KNOWN_BROKEN if f == family)))
                     + "\n" + "\n".join(xfails))
