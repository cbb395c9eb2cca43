# SPDX-License-Identifier: MIT
"""The CLI contract: field names, exit statuses, one-line errors without tracebacks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    # under --json the error is a JSON object on stderr (issue 35)
    assert json.loads(bad.stderr)["error"].startswith("authentication failed"), bad.stderr


def test_run_multiplication_big_endian() -> None:
    a, b = 0xFFFFFFFF_00000001_23456789_ABCDEF01 << 128 | 7, (1 << 255) + 12345
    proc = mcucrypt("run", "mpmul256", "--target", "rv32", "--impl", "rv32-fast", "--a", f"{a:x}", "--b", f"{b:x}",
                    "--json")
    assert proc.returncode == 0, proc.stderr
    assert int(json.loads(proc.stdout)["output"], 16) == a * b


def test_call_on_a_non_elf_or_truncated_elf_is_one_line_exit_2(tmp_path) -> None:  # noqa: ANN001
    """Not an ELF, or an ELF cut short (header only, or inside its segments): one line, exit 2."""
    from mcucrypt.build import build
    elf = build("avr", [ROOT / "tests" / "fixtures" / "avr" / "snippets.S"], name="avr-snippets",
                keep=["snip_ret"]).path.read_bytes()
    cases = {"text.elf": b"hello, not an ELF\n", "header.elf": elf[:40], "cut.elf": elf[:len(elf) // 2]}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        for target in ("avr", "rv32", "armv7m"):
            proc = mcucrypt("call", "--target", target, str(tmp_path / name), "snip_ret")
            assert proc.returncode == 2, (name, target, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("mcucrypt: error:") and name in lines[0] and \
                "not a valid ELF" in lines[0], (name, target, proc.stderr)


# ------------------------------------------------------------------------------ bad input (issue 13)

@pytest.mark.parametrize("args,message", [
    (["bench", "--jobs", "-1"], "argument --jobs: -1 is below the minimum of 1"),
    (["ct", "lea128", "--target", "avr", "--trials", "0"], "argument --trials: 0 is below the minimum"),
    (["ct", "lea128", "--target", "avr", "--trials", "-3"], "argument --trials: -3 is below the minimum"),
    (["test", "--random", "-5"], "argument --random: -5 is below the minimum of 0"),
    (["call", "--target", "avr", "--max-instructions", "-5", "fw.elf", "f"], "argument --max-instructions: -5"),
    (["run", "chacha20", "--target", "avr", "--counter", "-1"], "argument --counter: -1 is not a 32-bit unsigned"),
    (["run", "chacha20", "--target", "avr", "--counter", "0x100000000"], "not a 32-bit unsigned"),
    (["call", "--target", "avr", "--isa", "rv32imac_zbb", "fw.elf", "f"], "--isa applies to rv32 only"),
    (["run", "keccakf1600", "--target", "avr", "--key", "00", "--input", "00" * 200], "takes no --key"),
    (["run", "lea128", "--target", "avr", "--nonce", "00", "--key", LEA_KEY, "--input", LEA_PT], "takes no --nonce"),
    (["run", "lea128", "--target", "avr", "--counter", "1", "--key", LEA_KEY, "--input", LEA_PT], "takes no --counter"),
    (["run", "lea128", "--target", "host", "--key", "0f 1e 2d 3c 4b 5a 69 78 87 96 a5 b4 c3 d2 e1 f0",
      "--input", LEA_PT], "malformed hex"),
    (["run", "lea128", "--target", "host", "--key", "0f:1e", "--input", LEA_PT], "no spaces or separators"),
    (["run", "lea128", "--target", "host", "--key", LEA_KEY[1:], "--input", LEA_PT], "malformed hex"),
    (["call", "--target", "avr", "fw.elf", "f", "u17:1"], "unknown type 'u17'"),
    (["call", "--target", "avr", "fw.elf", "f", "u8:256"], "does not fit in 8 bits"),
    (["call", "--target", "avr", "fw.elf", "f", "70000"], "16 bits on avr"),
    (["call", "--target", "avr", "fw.elf", "f", "in:0g"], "malformed hex"),
    (["call", "--target", "avr", "--buf", "in:00", "fw.elf", "f"], "--buf goes after ELF and SYMBOL"),
    (["compare", "a.json", "--impl", "ref"], "--impl and --against go together"),
    (["compare", "a.json", "b.json", "--threshold", "-1"], "argument --threshold"),
    (["completion", "fish"], "argument shell: invalid choice"),
])
def test_bad_input_issue13_one_line_exit_2(args: list[str], message: str) -> None:
    test_bad_input_is_one_line_exit_2(args, message)


def test_hex_rule_accepts_0x_prefix_and_upper_case() -> None:
    proc = mcucrypt("run", "lea128", "--target", "host", "--impl", "ref", "--key", "0x" + LEA_KEY.upper(),
                    "--input", "0X" + LEA_PT, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["output"] == LEA_CT


# ------------------------------------------------------------------------------------------- call

CALL_FUNCTIONS = ["sum_bytes", "xor_into", "fill", "widths", "negate", "minus_one", "count_odd"]


@pytest.fixture(scope="module")
def call_elves() -> dict[str, str]:
    from mcucrypt.build import build
    return {t: str(build(t, [ROOT / "tests/fixtures/call/call_args.c"], name="call-args", keep=CALL_FUNCTIONS).path)
            for t in ("rv32", "armv7m", "avr")}


def call_json(*args: str) -> dict:
    proc = mcucrypt("call", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("target", ["rv32", "armv7m", "avr"])
def test_call_buffers_and_typed_integers(target: str, call_elves: dict[str, str]) -> None:
    elf = call_elves[target]
    doc = call_json("--target", target, elf, "sum_bytes", "--buf", "in:0102030405", "u16:5", "--ret", "u16")
    assert doc["return_value"] == 15 and doc["buffers"] == [] and doc["cycles"] > 0
    doc = call_json("--target", target, elf, "xor_into", "--buf", "inout:00ff00ff", "in:0f0f0f0f", "u32:4",
                    "--ret", "void")
    assert doc["buffers"] == [{"arg": 1, "mode": "inout", "hex": "0ff00ff0"}] and doc["return_value"] is None
    doc = call_json("--target", target, elf, "fill", "out:6", "u8:0xfe", "u16:6", "--ret", "void")
    assert doc["buffers"] == [{"arg": 1, "mode": "out", "hex": "feff00010203"}]
    a, b, c, d = 0x12, 0x3456, 0x789ABCDE, 0x0102030405060708
    doc = call_json("--target", target, elf, "widths", f"u8:{a}", f"u16:{b}", f"u32:{c}", f"u64:{d}", "--ret", "u64")
    assert doc["return_value"] == (a << 56) ^ (b << 40) ^ (c << 8) ^ d
    assert call_json("--target", target, elf, "negate", "-1234")["return_value"] == 1234
    assert call_json("--target", target, elf, "minus_one", "--ret", "i8")["return_value"] == -1
    assert call_json("--target", target, elf, "minus_one", "--ret", "u8")["return_value"] == 255
    text = mcucrypt("call", "--target", target, elf, "fill", "--buf", "out:2", "u8:7", "u16:2")
    assert text.returncode == 0 and "arg 1: 0708 (out)" in text.stdout, text.stdout


def test_call_avr_int_is_16_bits(call_elves: dict[str, str]) -> None:
    """avr-gcc's int is 16 bits: a plain integer is marshalled (and range-checked) as one."""
    assert call_json("--target", "avr", call_elves["avr"], "negate", "0x7fff")["return_value"] == -0x7FFF
    wide = mcucrypt("call", "--target", "avr", call_elves["avr"], "negate", "70000")
    assert wide.returncode == 2 and "16 bits on avr" in wide.stderr
    assert call_json("--target", "rv32", call_elves["rv32"], "negate", "70000")["return_value"] == -70000


def test_call_warm_trains_the_rv32_predictor(call_elves: dict[str, str]) -> None:
    args = ("--target", "rv32", call_elves["rv32"], "count_odd", "in:0102030405060708090a0b0c0d0e0f10", "u32:16")
    cold, warm = call_json(*args), call_json(*args, "--warm")
    assert cold["return_value"] == warm["return_value"] == 8
    assert not cold["warm"] and warm["warm"]
    assert warm["cycles"] < cold["cycles"] and warm["instructions"] == cold["instructions"]


# -------------------------------------------------------------------------------------- conventions

def test_every_argument_has_help_and_examples() -> None:
    from mcucrypt.cli import _subparsers, build_parser
    parser = build_parser()
    subs = _subparsers(parser)
    assert {"list", "run", "call", "bench", "test", "ct", "report", "compare", "completion"} <= set(subs)
    for name, sp in subs.items():
        assert sp.epilog and "examples:" in sp.epilog, name
        for a in sp._actions:
            assert a.help, f"{name} {a.option_strings or a.dest} has no help text"
            if "--target" in a.option_strings:
                # calibrate has rows for the two modelled boards only (simavr is cycle-exact)
                want = {"rv32", "armv7m"} if name == "calibrate" else {"rv32", "armv7m", "avr"}
                assert set(a.choices) >= want, name
    assert "examples:" in (parser.epilog or "")


def test_version_names_the_root() -> None:
    proc = mcucrypt("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("mcucrypt 0.") and str(ROOT) in proc.stdout, proc.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script(shell: str, tmp_path: Path) -> None:
    proc = mcucrypt("completion", shell)
    assert proc.returncode == 0, proc.stderr
    script = tmp_path / "mcucrypt-completion"
    script.write_text(proc.stdout.replace("autoload -U +X bashcompinit && bashcompinit\n", ""))
    probe = """source "$1"
t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mcucrypt; echo "${COMPREPLY[*]}"; }
t mcucrypt ""; t mcucrypt run lea128 --target ""; t mcucrypt run lea1; t mcucrypt bench --impl rv32-f
t mcucrypt compare OLD --comm; t mcucrypt call --ret u"""
    out = subprocess.run(["bash", "-c", probe, "probe", str(script)], capture_output=True, text=True, timeout=60)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and len(lines) == 6, out.stdout + out.stderr
    assert {"list", "run", "call", "bench", "completion", "--version"} <= set(lines[0].split())
    assert lines[1].split() == ["rv32", "armv7m", "avr", "host"]
    assert lines[2].split() == ["lea128", "lea192"]
    assert lines[3].split() == ["rv32-fast", "rv32-fast-x"]
    assert lines[4] == "--common-only"
    assert lines[5].split() == ["u8", "u16", "u32", "u64"]
    if shell == "zsh":
        assert proc.stdout.startswith("autoload -U +X bashcompinit && bashcompinit")


# ------------------------------------------------------------------------- checkouts and result files

CLONE_IMPL = """  clone-only:
    description: the second clone's own implementation (the reference C under another name)
    sources: [ref/lea.c]
    targets: [host, avr]
    constant_time: true
"""


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second clone of this repository (with this tree's uncommitted changes) that adds an implementation."""
    path = tmp_path_factory.mktemp("second") / "mcucrypt"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(path)], check=True, timeout=300)
    diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT, capture_output=True, check=True).stdout
    if diff:
        subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=path, input=diff, check=True)
    meta = path / "crypto/lea/META.yml"
    meta.write_text(meta.read_text().replace("implementations:\n", "implementations:\n" + CLONE_IMPL, 1))
    return path


def in_checkout(checkout: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m mcucrypt.cli` run from ``checkout``: the checkout's own code, as its .venv would run it."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MCUCRYPT_ROOT")}
    return subprocess.run([sys.executable, "-m", "mcucrypt.cli", *args], cwd=checkout, capture_output=True,
                          text=True, timeout=600, env={**environ, **(env or {})})


def test_second_clone_lists_and_benches_its_own_catalog(clone: Path, tmp_path: Path) -> None:
    listed = in_checkout(clone, "list")
    assert listed.returncode == 0, listed.stderr
    assert "clone-only" in listed.stdout and f"root: {clone.resolve()} (the checkout" in listed.stdout
    mine = mcucrypt("list", "--json")
    assert "clone-only" not in {r["impl"] for r in json.loads(mine.stdout)}
    # this checkout's code pointed at the clone by MCUCRYPT_ROOT
    env = in_checkout(tmp_path, "list", env={"MCUCRYPT_ROOT": str(clone), "PYTHONPATH": str(ROOT)})
    assert env.returncode == 0 and "clone-only" in env.stdout and "from MCUCRYPT_ROOT" in env.stdout, env.stderr

    # this checkout's code run from inside the clone says whose catalog it uses
    environ = {k: v for k, v in os.environ.items() if k != "MCUCRYPT_ROOT"}
    other = subprocess.run([sys.executable, "-c", "import sys; del sys.path[0]; from mcucrypt.cli import main; "
                            "sys.exit(main())", "list", "--json"], cwd=clone, capture_output=True, text=True,
                           timeout=300, env={**environ, "PYTHONPATH": str(ROOT)})
    assert other.returncode == 0 and "clone-only" not in other.stdout, other.stderr
    assert f"not of the checkout you are in ({clone.resolve()})" in other.stderr, other.stderr

    bench = in_checkout(clone, "bench", "--prim", "lea128", "--impl", "clone-only", "--target", "avr", "--jobs", "1")
    assert bench.returncode == 0, bench.stdout + bench.stderr
    own = clone / "results" / "bench-lea128-clone-only-avr.json"
    assert f"results: {own}" in bench.stdout
    doc = json.loads(own.read_text())
    assert doc["schema_version"] == 2 and doc["provenance"]["git_commit"]
    assert {(r["impl"], r["target"], r["kat"], r["schema_version"]) for r in doc["records"]} == \
        {("clone-only", "avr", "pass", 2)}
    assert not (clone / "results" / "bench.json").exists()      # a partial bench leaves the full results alone


def test_bench_merge_replaces_only_the_measured_jobs(clone: Path) -> None:
    full = clone / "results" / "bench.json"
    sel = ("--prim", "lea128", "--target", "avr", "--jobs", "1", "--merge")
    first = in_checkout(clone, "bench", *sel, "--impl", "ref")
    assert first.returncode == 0 and f"results: {full}" in first.stdout, first.stdout + first.stderr
    second = in_checkout(clone, "bench", *sel, "--impl", "clone-only")
    assert second.returncode == 0, second.stderr
    doc = json.loads(full.read_text())
    jobs = [(r["impl"], r["op"]) for r in doc["records"]]
    assert sorted(jobs) == sorted((i, op) for i in ("ref", "clone-only") for op in ("keyschedule", "encrypt", "decrypt"))
    assert doc["earlier_runs"] and doc["earlier_runs"][0]["records_kept"] == 3
    again = in_checkout(clone, "bench", *sel, "--impl", "ref")     # re-measured: replaced, not duplicated
    assert again.returncode == 0 and "6 in the file" in again.stdout, again.stdout
    # both implementations of the one file, compared against each other
    cmp = in_checkout(clone, "compare", str(full), "--impl", "clone-only", "--against", "ref")
    assert cmp.returncode == 0 and "3 rows compared" in cmp.stdout and "0 regressions" in cmp.stdout, cmp.stdout


def test_newer_results_schema_is_refused(tmp_path: Path) -> None:
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema_version": 99, "provenance": {}, "records": []}))
    for args in (["report", "--results", str(newer), "--out", str(tmp_path)], ["compare", str(newer), str(newer)]):
        proc = mcucrypt(*args)
        assert proc.returncode == 2 and "schema 99 is newer" in proc.stderr and "Traceback" not in proc.stderr


def test_setup_second_run_is_a_noop() -> None:
    """scripts/setup.sh keeps its environment in this checkout's .venv, and a second run does nothing."""
    first = subprocess.run(["scripts/setup.sh"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert first.returncode == 0, first.stdout + first.stderr
    assert (ROOT / ".venv/bin/mcucrypt").is_file()
    # "Does nothing": no output, and neither the environment's stamp nor its installed packages change
    # (a wall-clock bound would only measure how loaded the machine is).
    watched = [ROOT / ".venv" / ".mcucrypt-setup", *sorted((ROOT / ".venv" / "lib").glob("python*/site-packages"))]
    before = [(p, p.stat().st_mtime_ns) for p in watched]
    second = subprocess.run(["scripts/setup.sh"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stdout == "" and second.stderr == "", second.stdout + second.stderr
    assert len(before) == 2 and [(p, p.stat().st_mtime_ns) for p in watched] == before
    venv = subprocess.run([str(ROOT / ".venv/bin/mcucrypt"), "--version"], capture_output=True, text=True, timeout=60)
    assert venv.returncode == 0 and f"(root: {ROOT})" in venv.stdout, venv.stdout + venv.stderr


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
