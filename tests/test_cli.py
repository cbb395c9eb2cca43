"""The CLI contract: field names, exit statuses, one-line errors without tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcucrypt.targets import ROOT

LEA_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
LEA_PT = "101112131415161718191a1b1c1d1e1f"
LEA_CT = "9fc84e3528c6c6185532c7a704648bfd"


def mcucrypt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcucrypt.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_list_json_fields() -> None:
    proc = mcucrypt("list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    lea = [r for r in rows if r["prim"] == "lea128" and r["impl"] == "ref"]
    assert lea and {"host", "avr", "rv32", "armv7m"} <= set(lea[0]["targets"])
    for r in rows:
        assert {"prim", "impl", "targets", "constant_time"} <= set(r)


@pytest.mark.parametrize("target", ["host", "avr", "rv32", "armv7m"])
def test_run_lea128_vector(target: str) -> None:
    proc = mcucrypt("run", "lea128", "--target", target, "--impl", "ref", "--key", LEA_KEY, "--input", LEA_PT,
                    "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {"prim", "impl", "target", "output", "cycles", "instructions", "stack_bytes"} <= set(doc)
    assert doc["output"] == LEA_CT
    if target != "host":
        assert doc["cycles"] > 0 and doc["instructions"] > 0 and doc["stack_bytes"] > 0


def test_run_decrypt_round_trip() -> None:
    proc = mcucrypt("run", "lea128", "--target", "avr", "--key", LEA_KEY, "--input", LEA_CT, "--decrypt", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["output"] == LEA_PT


def test_run_is_deterministic_on_avr() -> None:
    """The issue's acceptance command: same output, same cycles, every run."""
    runs = [json.loads(mcucrypt("run", "lea128", "--target", "avr", "--key", LEA_KEY, "--input", LEA_PT,
                                "--json").stdout) for _ in range(2)]
    assert runs[0]["output"] == LEA_CT
    assert runs[0]["cycles"] == runs[1]["cycles"]


@pytest.mark.parametrize("args,message", [
    (["run", "nosuch", "--target", "host"], "unknown primitive"),
    (["run", "lea128", "--target", "z80"], "unknown target"),
    (["run", "lea128", "--target", "host", "--impl", "nosuch", "--key", LEA_KEY, "--input", LEA_PT],
     "unknown implementation"),
    (["run", "lea128", "--target", "host", "--key", LEA_KEY[:-2], "--input", LEA_PT], "expected 16 bytes"),
    (["run", "lea128", "--target", "host", "--key", LEA_KEY, "--input", LEA_PT + "00"], "expected 16 bytes"),
    (["run", "lea128", "--target", "host", "--key", "zz" * 16, "--input", LEA_PT], "malformed hex"),
    (["run", "lea128", "--target", "host", "--input", LEA_PT], "--key is required"),
    (["bench", "--prim", "nosuch"], "unknown primitive"),
    (["bench", "--target", "z80"], "unknown target"),
    (["bench", "--target", "host"], "no cycle model"),
    (["ct", "lea128", "--target", "host", "--impl", "ref"], "virtual board"),
    (["call", "--target", "avr", "/nonexistent.elf", "f"], "no such ELF"),
])
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    proc = mcucrypt(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcucrypt: error:") and message in lines[0], proc.stderr


# NIST LWC KAT tinyjambu128v2, Count = 5: empty message, AD 00010203.
TJ_KEY, TJ_NONCE, TJ_AD, TJ_CT = "000102030405060708090A0B0C0D0E0F", "000102030405060708090A0B", "00010203", "6601D8F80798E04F"


def test_run_aead_vector_and_failed_tag() -> None:
    ok = mcucrypt("run", "tinyjambu128", "--target", "host", "--impl", "ref-opt", "--key", TJ_KEY, "--nonce", TJ_NONCE,
                  "--ad", TJ_AD, "--input", "", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["output"] == TJ_CT.lower()
    forged = TJ_CT[:-1] + ("E" if TJ_CT[-1] != "E" else "F")
    bad = mcucrypt("run", "tinyjambu128", "--target", "avr", "--impl", "avr-fast", "--key", TJ_KEY, "--nonce", TJ_NONCE,
                   "--ad", TJ_AD, "--input", forged, "--decrypt", "--json")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("mcucrypt: error: authentication failed"), bad.stderr


def test_run_multiplication_big_endian() -> None:
    a, b = 0xFFFFFFFF_00000001_23456789_ABCDEF01 << 128 | 7, (1 << 255) + 12345
    proc = mcucrypt("run", "mpmul256", "--target", "rv32", "--impl", "rv32-fast", "--a", f"{a:x}", "--b", f"{b:x}",
                    "--json")
    assert proc.returncode == 0, proc.stderr
    assert int(json.loads(proc.stdout)["output"], 16) == a * b


def test_ct_json_reports_mode_seed_trials_findings() -> None:
    args = ["ct", "mpmul256", "--target", "armv7m", "--impl", "cm3-umull", "--json"]
    proc = mcucrypt(*args)
    assert proc.returncode == 1, proc.stderr
    r = json.loads(proc.stdout)
    assert r["mode"] == "taint" and isinstance(r["seed"], int) and r["trials"] == 1 and r["verdict"] == "fail"
    assert r["findings"] and r["findings"][0]["kind"] == "variable-latency" and r["findings"][0]["secrets"]
    r = json.loads(mcucrypt(*args, "--mode", "trace", "--seed", "5", "--trials", "8").stdout)
    assert (r["mode"], r["seed"], r["trials"], r["verdict"]) == ("trace", 5, 8, "fail")
    assert r["divergence"]["kind"] == "variable-latency instruction on secret operands"
