# SPDX-License-Identifier: MIT
"""`mcucrypt ct --elf FILE --symbol F ARG...` (issue 35, item 5): the checker on a user's own function.

tests/fixtures/ct_elf/user_ct.c is built the way a user builds it (the cross compiler, the board's linker
script: the commands of docs/constant-time.md's worked example). On each board, both modes find the
planted leaks (a secret-indexed table, an early-exit compare, a branch on a secret bit) and pass the clean
versions of the same jobs."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcucrypt import cli
from mcucrypt.targets import ROOT

SOURCE = ROOT / "tests" / "fixtures" / "ct_elf" / "user_ct.c"
# The worked example's build commands (docs/constant-time.md), one per board.
BUILD = {
    "rv32": ["riscv64-unknown-elf-gcc", "-march=rv32imac", "-mabi=ilp32", "-O2", "-ffreestanding", "-nostdlib",
             "-T", str(ROOT / "boards/rv32/link.ld")],
    "armv7m": ["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-O2", "-ffreestanding", "-nostdlib",
               "-T", str(ROOT / "boards/armv7m/link.ld")],
    "avr": ["avr-gcc", "-mmcu=atmega128", "-O2", "-nostartfiles"],
}
TAG = "00112233445566778899aabbccddeeff"
# (function, arguments, the class of its planted leak or None for the clean one)
CASES = [
    ("tag_equal_ct", [f"secret:in:{TAG}", f"in:{TAG}", "u16:16"], None),
    ("tag_equal_early", [f"secret:in:{TAG}", f"in:{TAG}", "u16:16"], "secret-dependent branch"),
    ("sbox_ct", ["secret:inout:0123456789abcdef", "u16:8"], None),
    ("sbox_table", ["secret:inout:0123456789abcdef", "u16:8"], "secret-dependent memory address"),
    ("select_ct", ["secret:u8:1", "u32:5", "u32:7"], None),
]


@pytest.fixture(scope="module")
def elves(tmp_path_factory) -> dict[str, Path]:  # noqa: ANN001
    out = tmp_path_factory.mktemp("ct-elf")
    built = {}
    for target, cmd in BUILD.items():
        built[target] = out / f"user-{target}.elf"
        subprocess.run([*cmd, str(SOURCE), "-o", str(built[target])], check=True, capture_output=True)
    return built


def ct(capsys, *args: str) -> tuple[int, str, str]:  # noqa: ANN001
    try:
        status = cli.main(["ct", *args])
    except SystemExit as e:
        status = e.code
    got = capsys.readouterr()
    return status, got.out, got.err


@pytest.mark.parametrize("target", list(BUILD))
@pytest.mark.parametrize("mode", ["taint", "trace"])
def test_finds_the_planted_leaks_and_passes_the_clean_functions(target: str, mode: str, elves, capsys) -> None:  # noqa: ANN001
    for symbol, args, leak in CASES:
        status, out, err = ct(capsys, "--target", target, "--elf", str(elves[target]), "--symbol", symbol, *args,
                              "--mode", mode, "--trials", "16", "--seed", "35", "--json")
        assert err == "", err
        rep = json.loads(out)
        assert rep["mode"] == mode and rep["symbol"] == symbol and rep["secret_args"] == {"arg1": args[0]}
        if leak is None:
            assert status == 0 and rep["verdict"] == "pass", (target, symbol, out)
            continue
        assert status == 1 and rep["verdict"] == "fail", (target, symbol, out)
        if mode == "taint":
            assert {f["cls"] for f in rep["findings"]} == {leak} and all(f["secrets"] == ["arg1"]
                                                                         for f in rep["findings"]), out
            assert all(f["symbol"].startswith(symbol) for f in rep["findings"]), out
        else:
            assert rep["divergence"]["kind"] == leak and rep["divergence"]["symbol"].startswith(symbol), out


@pytest.mark.parametrize("target", ["rv32", "avr"])
def test_a_branch_on_a_secret_scalar(target: str, elves, capsys) -> None:  # noqa: ANN001
    """A secret in a register: the `if` on it is found (armv7m's compiler turns it into an IT block whose
    both instructions take a cycle, which is constant time on the M3: the checker judges the binary)."""
    status, out, _ = ct(capsys, "--target", target, "--elf", str(elves[target]), "--symbol", "select_branch",
                        "secret:u8:1", "u32:5", "u32:7")
    assert status == 1 and "FAIL" in out and "secret-dependent branch in select_branch" in out and "arg1" in out


def test_only_the_marked_arguments_are_secret(elves, capsys) -> None:  # noqa: ANN001
    """Only the marked arguments are secret: the leak is traced to the one marked, wherever it is."""
    args = ("--target", "rv32", "--elf", str(elves["rv32"]), "--symbol", "tag_equal_early")
    status, out, _ = ct(capsys, *args, f"in:{TAG}", f"secret:in:{TAG[:-2]}00", "u16:16")
    assert status == 1 and "from arg2" in out
    status, out, _ = ct(capsys, *args, f"in:{TAG}", f"in:{TAG}", "secret:u16:16")
    assert status == 1 and "secret-dependent branch in tag_equal_early" in out and "from arg3" in out, out
    # ARGs may sit among the options, as argparse alone would not allow
    status, out, _ = ct(capsys, "--target", "rv32", f"secret:in:{TAG}", "--elf", str(elves["rv32"]),
                        f"in:{TAG}", "--symbol", "tag_equal_ct", "u16:16")
    assert status == 0 and "PASS" in out, out


@pytest.mark.parametrize("args,message", [
    (["--target", "rv32", "--elf", "x.elf", "--symbol", "f", "in:00", "u8:1"], "no argument is marked secret"),
    (["--target", "rv32", "--elf", "x.elf", "--symbol", "f", "secret:out:4"], "an out: buffer holds no input"),
    (["--target", "rv32", "--elf", "x.elf", "secret:in:00"], "--elf needs --symbol"),
    (["--target", "rv32", "--elf", "x.elf", "--symbol", "f", "--impl", "ref", "secret:1"], "--impl names a catalog"),
    (["--target", "avr", "--elf", "x.elf", "--symbol", "f", "--isa", "rv32i", "secret:1"], "--isa applies to rv32"),
    (["--target", "avr", "--elf", "x.elf", "--symbol", "f", "secret:u9:1"], "unknown type 'u9'"),
    (["--target", "rv32", "--elf", "missing.elf", "--symbol", "f", "secret:1"], "no such ELF"),
    (["--target", "host", "--elf", "x.elf", "--symbol", "f", "secret:1"], "not on host"),
    (["lea128", "--target", "rv32", "--symbol", "f"], "--symbol goes with --elf"),
    (["lea128", "--target", "rv32", "secret:1"], "function arguments go with --elf"),
    (["--target", "rv32"], "ct needs PRIM"),
])
def test_bad_ct_elf_input_is_one_line_exit_2(args: list[str], message: str, capsys) -> None:  # noqa: ANN001
    status, out, err = ct(capsys, *args)
    lines = err.strip().splitlines()
    assert status == 2 and out == "" and len(lines) == 1 and message in lines[0], err


def test_a_fault_under_json_is_a_json_object_with_exit_3(elves, capsys) -> None:  # noqa: ANN001
    """Integers where the function takes pointers: it reads address 5, the board stops it (exit 3)."""
    try:
        status = cli.main(["call", "--target", "rv32", str(elves["rv32"]), "tag_equal_early", "5", "6", "7", "--json"])
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 3 and len(err) == 1, err
    doc = json.loads(err[0])
    assert doc["kind"] == "firmware fault" and doc["exit_status"] == 3 and doc["error"], doc
