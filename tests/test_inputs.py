# SPDX-License-Identifier: MIT
"""Issue 35, items 2 and 3: records checked on the way in (ingest, bench --merge, compare, report), output
paths checked before any work, no tracebacks (call on the host, huge buffers), errors as JSON under --json,
and `run --input @FILE` / `--input -`. Every case runs the CLI in-process: seconds, not minutes."""
from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import pytest

from mcucrypt import cli, records

LEA_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
LEA_PT = "101112131415161718191a1b1c1d1e1f"
LEA_CT = "9fc84e3528c6c6185532c7a704648bfd"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:  # noqa: ANN001
    try:
        status = cli.main(list(args))
    except SystemExit as e:          # argparse's errors exit through _Parser.error
        status = e.code
    out = capsys.readouterr()
    return status, out.out, out.err


def one_line_error(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcucrypt: error:"), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, err)


def record(**changes: object) -> dict:
    r = {"schema_version": 2, "prim": "lea128", "impl": "ref", "target": "avr", "op": "encrypt", "bytes": 16,
         "cycles": 4000, "cycles_per_byte": 250.0, "instructions": 3000, "code_bytes": 1200, "stack_bytes": 40,
         "kat": "pass", "constant_time": "pass", "constant_time_claimed": True, "isa": None, "error": None}
    r.update(changes)
    return r


def results_text(recs: list[dict], **top: object) -> str:
    return json.dumps({"schema_version": 2, "provenance": {"git_commit": "x"}, "records": recs, **top})


# Each bad record or file, and a word its error must carry besides the file's name.
BAD_FILES = {
    "cycles-text": (results_text([record(cycles="lots")]), "cycles is \"lots\""),
    "cycles-negative": (results_text([record(cycles=-5)]), "cycles is -5"),
    "cycles-huge": (results_text([record()]).replace('"cycles": 4000', '"cycles": 1e400'), "cycles is inf"),
    "cycles-float": (results_text([record(cycles=12.5)]), "cycles is 12.5"),
    "cycles-bool": (results_text([record(cycles=True)]), "cycles is true"),
    "cycles-missing": (results_text([{k: v for k, v in record().items() if k != "cycles"}]), "cycles is missing"),
    "code-negative": (results_text([record(code_bytes=-1)]), "code_bytes is -1"),
    "stack-null": (results_text([record(stack_bytes=None)]), "stack_bytes is null"),
    "infinity-literal": (results_text([record()]).replace('"cycles": 4000', '"cycles": Infinity'), "Infinity"),
    "nan-cpb": (results_text([record()]).replace('"cycles_per_byte": 250.0', '"cycles_per_byte": NaN'), "NaN"),
    "no-prim": (results_text([record(prim="")]), "prim is \"\""),
    "record-not-object": (results_text([7]), "record 0"),
    "schema-newer": (results_text([record()], schema_version=99), "schema 99 is newer"),
    "schema-zero": (results_text([record()], schema_version=0), "schema 0 is unknown"),
    "schema-text": (results_text([record()], schema_version="2"), "schema \"2\" is unknown"),
    "record-schema": (results_text([record(schema_version=7)]), "schema 7"),
    "records-not-list": (json.dumps({"provenance": {}, "records": {"a": 1}}), "not an mcucrypt results file"),
    "list": (json.dumps([1, 2]), "not an mcucrypt results file"),
    "not-json": ("{\"provenance\": {}, \"records\": [", "not JSON"),
    "binary": (None, "not UTF-8"),
}


def write_bad(tmp_path: Path, name: str) -> Path:
    text, _ = BAD_FILES[name]
    path = tmp_path / f"{name}.json"
    if text is None:
        path.write_bytes(b"\xff\xfe\x00binary")
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_compare_and_report_refuse_a_bad_file_naming_it(name: str, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    bad = write_bad(tmp_path, name)
    good = tmp_path / "good.json"
    good.write_text(results_text([record()]))
    for args in (["compare", str(good), str(bad)], ["compare", str(bad), str(good)],
                 ["compare", str(bad), "--impl", "ref", "--against", "ref"],
                 ["report", "--results", str(bad), "--out", str(tmp_path / "r")]):
        status, out, err = run_cli(capsys, *args)
        assert status == 2 and out == "", (args, out, err)
        one_line_error(err, str(bad), BAD_FILES[name][1])
    assert not (tmp_path / "r").exists()


def test_a_good_file_still_compares(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(results_text([record(), record(op="decrypt", cycles_per_byte=None, instructions=None)]))
    new.write_text(results_text([record(cycles=3900), record(op="decrypt", cycles_per_byte=None)]))
    status, out, err = run_cli(capsys, "compare", str(old), str(new))
    assert status == 0 and "2 rows compared" in out, out + err


def test_read_results_accepts_the_files_bench_and_ingest_write(tmp_path: Path) -> None:
    """The checked reader takes what the workbench writes: a schema-1 file (no schema_version) and an
    ingested one (instructions null, the silicon fields)."""
    old = {"provenance": {}, "records": [{k: v for k, v in record().items() if k != "schema_version"}]}
    (tmp_path / "v1.json").write_text(json.dumps(old))
    assert records.read_results(tmp_path / "v1.json")["records"][0]["cycles"] == 4000
    silicon = record(instructions=None, cycles_min=3990, cycles_max=4100, overhead_cycles=12, runs=5,
                     clock_hz=16_000_000, wait_states=0, board="atmega128")
    (tmp_path / "si.json").write_text(results_text([silicon]))
    records.read_results(tmp_path / "si.json")


# ------------------------------------------------------------------------------------------- ingest

def silicon_log(*recs: str) -> str:
    head = '{"mcucrypt":"silicon","board":"atmega128","clock_hz":16000000,"wait_states":0,"runs":5}'
    tail = '{"summary":"pass","checks":0,"records":%d,"failed":0,"board":"atmega128"}' % len(recs)
    return "\n".join([head, *recs, tail]) + "\n"


def log_record(cycles: str) -> str:
    return ('{"prim":"lea128","impl":"ref","target":"avr","op":"encrypt","bytes":16,"instructions":null,'
            '"code_bytes":1200,"constant_time":"n/a","constant_time_claimed":true,"isa":null,"goal":null,'
            f'"cycles":{cycles},"cycles_per_byte":1.0,"cycles_warm":4000,"cycles_min":3990,"cycles_max":4100,'
            '"overhead_cycles":12,"runs":5,"stack_bytes":40,"kat":"pass","error":null,"board":"atmega128"}')


@pytest.mark.parametrize("cycles,word", [('"lots"', 'cycles is "lots"'), ("-5", "cycles is -5"),
                                         ("1e400", "cycles is inf"), ("Infinity", "cycles is inf"),
                                         ("4000.5", "cycles is 4000.5")])
def test_ingest_refuses_a_bad_record_naming_the_log_and_line(cycles: str, word: str, tmp_path: Path,
                                                             capsys) -> None:  # noqa: ANN001
    log = tmp_path / "board.log"
    log.write_text(silicon_log(log_record("4000"), log_record(cycles)))
    out = tmp_path / "si.json"
    status, stdout, err = run_cli(capsys, "ingest", str(log), "--board", "atmega128", "--out", str(out))
    assert status == 2, stdout + err
    one_line_error(err, str(log), "line 3", word)
    assert not out.exists()


def test_ingest_writes_strict_json_that_compare_reads(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    log = tmp_path / "board.log"
    log.write_text(silicon_log(log_record("4000")))
    out = tmp_path / "si.json"
    status, stdout, err = run_cli(capsys, "ingest", str(log), "--board", "atmega128", "--out", str(out))
    assert status == 0, stdout + err
    doc = records.read_results(out)       # strict: no NaN or Infinity anywhere
    assert doc["records"][0]["cycles"] == 4000 and doc["schema_version"] == records.SCHEMA_VERSION


# --------------------------------------------------------------------------------------- bench --merge

@pytest.mark.parametrize("name", ["not-json", "cycles-huge", "schema-newer", "list", "record-not-object"])
def test_bench_merge_refuses_a_bad_file_before_the_run(name: str, tmp_path: Path, capsys,
                                                       monkeypatch) -> None:  # noqa: ANN001
    from mcucrypt import bench
    bad = write_bad(tmp_path, name)
    before = bad.read_bytes()

    def must_not_run(*_a, **_k):  # noqa: ANN002, ANN003
        raise AssertionError("the run started although --merge cannot take the file")
    monkeypatch.setattr(bench, "run_bench", must_not_run)
    status, out, err = run_cli(capsys, "bench", "--prim", "lea128", "--impl", "ref", "--target", "avr",
                               "--merge", "--json", str(bad))
    assert status == 2, out + err
    one_line_error(err, str(bad), BAD_FILES[name][1])
    assert bad.read_bytes() == before


# ------------------------------------------------------------------------------------- output paths

def out_cases(tmp_path: Path) -> dict[str, tuple[str, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("mine\n")
    return {"file as folder": (str(a_file), "is a file"),
            "below a file": (str(a_file / "sub"), "is a file"),
            "/proc": ("/proc/mcucrypt-out", "cannot write in /proc")}


def test_folder_outputs_refuse_a_file_or_proc_before_any_work(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    results = tmp_path / "bench.json"
    results.write_text(results_text([record()]))
    for what, (out, word) in out_cases(tmp_path).items():
        for args in (["export", "--target", "avr", "--prim", "lea128", "--out", out],
                     ["firmware", "--board", "atmega128", "--prim", "lea128", "--out", out],
                     ["firmware", "--board", "atmega128", "--calib", "--out", out],
                     ["report", "--results", str(results), "--out", out]):
            status, stdout, err = run_cli(capsys, *args)
            assert status == 2, (what, args, stdout, err)
            one_line_error(err, out, word)
    assert (tmp_path / "a-file").read_text() == "mine\n"


def test_ingest_out_refuses_a_folder_file_below_a_file_or_proc(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    log = tmp_path / "board.log"
    log.write_text(silicon_log(log_record("4000")))
    cases = out_cases(tmp_path)
    cases.pop("file as folder")
    cases["a folder"] = (str(tmp_path), "is a folder")
    for what, (out, word) in cases.items():
        status, stdout, err = run_cli(capsys, "ingest", str(log), "--board", "atmega128", "--out", out)
        assert status == 2, (what, stdout, err)
        one_line_error(err, out, word)


def test_firmware_refuses_negative_counts(capsys) -> None:  # noqa: ANN001
    for option in ("--max-vectors", "--runs", "--clock"):
        status, _, err = run_cli(capsys, "firmware", "--board", "atmega128", "--prim", "lea128", option, "-1")
        assert status == 2
        one_line_error(err, f"argument {option}: -1 is below the minimum of 1")


# --------------------------------------------------------------------------------------- call, run

def test_call_on_the_host_with_a_board_elf_names_its_machine(capsys) -> None:  # noqa: ANN001
    from mcucrypt.build import build
    from mcucrypt.targets import ROOT
    elf = build("rv32", [ROOT / "tests/fixtures/call/call_args.c"], name="call-args", keep=["negate"]).path
    status, out, err = run_cli(capsys, "call", "--target", "host", str(elf), "negate", "5")
    assert status == 2 and out == ""
    one_line_error(err, elf.name, "is an ELF for RISCV", "not for this host")
    text = Path(elf.parent / "not-a-library.so")
    text.write_text("hello\n")
    status, _, err = run_cli(capsys, "call", "--target", "host", str(text), "negate", "5")
    assert status == 2
    one_line_error(err, "not-a-library.so", "cannot load it as a shared library")


def test_call_caps_a_buffer_at_16_mib(capsys) -> None:  # noqa: ANN001
    for target in ("host", "rv32"):
        status, out, err = run_cli(capsys, "call", "--target", target, "fw.so", "f", "out:2147483648")
        assert status == 2 and out == ""
        one_line_error(err, "argument 1", "16 MiB")


def test_json_errors_are_one_json_object_on_stderr(capsys) -> None:  # noqa: ANN001
    cases = [["run", "lea128", "--target", "avr", "--key", "zz", "--input", LEA_PT, "--json"],   # the command
             ["ct", "lea128", "--target", "avr", "--trials", "0", "--json"],                     # argparse
             ["call", "--target", "avr", "--json", "missing.elf", "f"]]                          # the board
    for args in cases:
        status, out, err = run_cli(capsys, *args)
        assert status == 2 and out == "", (args, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        doc = json.loads(lines[0])
        assert doc["exit_status"] == 2 and doc["kind"] == "error" and doc["error"], doc
    status, _, err = run_cli(capsys, "run", "lea128", "--target", "avr", "--key", "zz", "--input", LEA_PT)
    assert status == 2
    one_line_error(err, "malformed hex")     # without --json: the one-line text, as before


def test_run_input_from_a_file_and_from_standard_input(tmp_path: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    block = tmp_path / "block.bin"
    block.write_bytes(bytes.fromhex(LEA_PT))
    args = ["run", "lea128", "--target", "host", "--impl", "ref", "--key", LEA_KEY, "--json"]
    status, out, err = run_cli(capsys, *args, "--input", f"@{block}")
    assert status == 0, err
    assert json.loads(out)["output"] == LEA_CT
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bytes.fromhex(LEA_PT))))
    status, out, err = run_cli(capsys, *args, "--input", "-")
    assert status == 0, err
    assert json.loads(out)["output"] == LEA_CT
    status, out, err = run_cli(capsys, *args[:-1], "--input", f"@{tmp_path / 'missing.bin'}")
    assert status == 2
    one_line_error(err, "missing.bin", "cannot read")


def test_run_hashes_a_long_input_from_a_file(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    """Longer than a command line takes as hex in one argument (128 KiB): read from the file."""
    message = bytes(range(256)) * 300          # 76,800 bytes: 153,600 hex digits
    path = tmp_path / "message.bin"
    path.write_bytes(message)
    status, out, err = run_cli(capsys, "run", "sha256", "--target", "host", "--input", f"@{path}", "--json")
    assert status == 0, err
    assert json.loads(out)["output"] == hashlib.sha256(message).hexdigest()
