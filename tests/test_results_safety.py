# SPDX-License-Identifier: MIT
"""No result is ever lost (issue 35, item 1): results files and export folders.

- `bench --json PATH` refuses a folder, a path under a regular file and /proc before any job runs (one
  line, exit 2), instead of a traceback after the whole run.
- One run at a time per results file (a lock); results and the kat cache written atomically.
- Each finished job is journaled: SIGINT to the process group stops every worker within 2 seconds, keeps
  what finished, and `--resume` finishes the run with the same results file as an uninterrupted run.
- `export` writes only into an empty folder or an earlier export's, and removes only files it wrote.

Runtime: about 40 s (three small bench runs of three LEA-128 jobs, three small exports).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcucrypt import bench, cli
from mcucrypt.export import ExportError, export
from mcucrypt.resultfile import Journal, ResultsFileError, ResultsLock, atomic_write_text, check_output_file
from mcucrypt.targets import ROOT

# Three small jobs, run one at a time: the first finishes in about a second, two are still to come.
SMALL = ["--prim", "lea128", "--impl", "ref", "--target", "avr", "--target", "armv7m", "--target", "rv32"]


def cli_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcucrypt.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["records"]


@pytest.fixture
def no_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any job that starts fails the test: a refusal must come before the run."""
    def ran(job: bench.Job) -> list:
        raise AssertionError(f"job {job} ran before the output path was checked")
    monkeypatch.setattr(bench, "run_job", ran)
    monkeypatch.setattr(bench, "_job_safely", ran)


@pytest.mark.parametrize("where", ["folder", "under-a-file", "proc", "proc-file"])
def test_bench_refuses_an_unwritable_results_path_before_the_run(tmp_path, capsys, no_jobs, where) -> None:
    (tmp_path / "plain").write_text("x")
    path = {"folder": tmp_path, "under-a-file": tmp_path / "plain" / "bench.json",
            "proc": Path("/proc/mcucrypt-bench.json"), "proc-file": Path("/proc/self/comm")}[where]
    status = cli.main(["bench", *SMALL, "--json", str(path), "--jobs", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith("mcucrypt: error: --json "), err
    assert str(path) in err[0]
    assert not list(tmp_path.glob("*.journal"))


def test_ct_sweep_refuses_a_folder_before_the_run(tmp_path, capsys, monkeypatch) -> None:
    from mcucrypt import sweeps
    monkeypatch.setattr(sweeps, "ct_job", lambda job, **_: pytest.fail(f"job {job} ran"))
    status = cli.main(["ct", "--all", "--target", "avr", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and err == [f"mcucrypt: error: --out {tmp_path} is a folder: name a file in it"], err


def test_check_output_file_creates_the_folder_and_names_the_obstacle(tmp_path) -> None:
    assert check_output_file(tmp_path / "a" / "b" / "r.json") == tmp_path / "a" / "b" / "r.json"
    assert (tmp_path / "a" / "b").is_dir() and not list((tmp_path / "a" / "b").iterdir())   # the probe is gone
    (tmp_path / "f").write_text("")
    with pytest.raises(ResultsFileError, match=r"/f is not a folder"):
        check_output_file(tmp_path / "f" / "x" / "r.json")


def test_a_second_run_on_a_locked_results_file_refuses_at_once(tmp_path, capsys, no_jobs) -> None:
    out = tmp_path / "bench.json"
    out.write_text("earlier results\n")
    with ResultsLock(out):
        assert (tmp_path / "bench.json.lock").read_text().strip() == str(os.getpid())
        status = cli.main(["bench", *SMALL, "--json", str(out)])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(err) == 1, err
        assert f"another mcucrypt run (pid {os.getpid()}) is writing {out}" in err[0]
        with pytest.raises(ResultsFileError):       # a lock is exclusive within one process too
            ResultsLock(out).acquire()
    assert not (tmp_path / "bench.json.lock").exists()        # released and removed
    assert out.read_text() == "earlier results\n"
    ResultsLock(out).acquire().release()


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch) -> None:
    out = tmp_path / "bench.json"
    atomic_write_text(out, "old\n")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        atomic_write_text(out, "new, but never complete\n")
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["bench.json"]      # no temporary file left behind


def test_journal_resumes_its_own_selection_and_drops_a_line_cut_short(tmp_path) -> None:
    jobs = [("lea128", "ref", "avr", None), ("lea128", "ref", "rv32", None)]
    j = Journal(tmp_path / "r.json")
    j.open(jobs, "abc", resume=False)
    j.add(jobs[0], [{"op": "encrypt", "cycles": 1}])
    j.close()
    with open(j.path, "a") as f:
        f.write('{"job": ["lea128", "ref", "rv32", null], "recor')        # the run died mid-line
    again = Journal(tmp_path / "r.json")
    assert again.load(jobs, "abc") == {jobs[0]: [{"op": "encrypt", "cycles": 1}]}
    with pytest.raises(ResultsFileError, match="another selection"):
        Journal(tmp_path / "r.json").load(jobs[:1], "abc")
    with pytest.raises(ResultsFileError, match="other code or settings"):
        Journal(tmp_path / "r.json").load(jobs, "def")
    again.open(jobs, "abc", resume=True)       # rewritten without the damaged line, then appended to
    again.add(jobs[1], [])
    again.close()
    assert Journal(tmp_path / "r.json").load(jobs, "abc") == {jobs[0]: [{"op": "encrypt", "cycles": 1}], jobs[1]: []}


def _live_members(pgid: int) -> list[str]:
    """Processes of the group that still run (zombies, already dead, are not counted)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(stat.parent.name)
    return alive


def test_sigint_stops_every_worker_keeps_finished_jobs_and_resume_matches_a_full_run(tmp_path) -> None:
    out = tmp_path / "bench.json"
    journal = tmp_path / "bench.json.journal"
    proc = subprocess.Popen([sys.executable, "-m", "mcucrypt.cli", "bench", *SMALL, "--json", str(out),
                             "--jobs", "1"], cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        while not (journal.is_file() and len(journal.read_text().splitlines()) >= 2):   # header + one job
            assert proc.poll() is None and time.time() < deadline, proc.communicate()
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)          # Ctrl-C: the whole process group
        sent = time.time()
        _, err = proc.communicate(timeout=10)
        while _live_members(proc.pid) and time.time() - sent < 2:
            time.sleep(0.05)
        assert not _live_members(proc.pid), "workers still running 2 s after SIGINT"
    finally:
        if proc.poll() is None or _live_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "jobs saved in" in err and "--resume" in err, err
    assert not out.exists()
    saved = len(journal.read_text().splitlines()) - 1
    assert 1 <= saved < 3

    again = cli_run("bench", *SMALL, "--json", str(out))      # a fresh run would discard the journal: refused
    assert again.returncode == 2 and "--resume" in again.stderr, again.stderr
    resumed = cli_run("bench", *SMALL, "--json", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {saved} of 3 jobs" in resumed.stderr
    assert not journal.exists() and not (tmp_path / "bench.json.lock").exists()

    whole = tmp_path / "whole.json"
    full = cli_run("bench", *SMALL, "--json", str(whole))
    assert full.returncode == 0, full.stderr
    assert records(out) == records(whole) and len(records(out)) == 9     # three ops on each of three boards


# ---------------------------------------------------------------------------------------- export

def _export(out: Path, prim: str) -> dict:
    return export("avr", out, prims=[prim], impl="ref", fit_check=False, url="https://example.org/fw")


def test_export_over_an_earlier_export_keeps_the_users_files(tmp_path) -> None:
    out = tmp_path / "lib"
    first = _export(out, "lea128")
    assert "src/lea_ref/ref/lea.c" in first["files"] and "mcucrypt-export.json" in first["files"]
    (out / "notes.txt").write_text("mine")
    (out / "src" / "lea_ref" / "my_patch.c").write_text("/* mine */")
    second = _export(out, "pipo64_128")
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "src" / "lea_ref" / "my_patch.c").read_text() == "/* mine */"
    assert not (out / "src" / "lea_ref" / "ref" / "lea.c").exists()      # the earlier export's own: replaced
    assert (out / "src" / "pipo_ref" / "ref" / "pipo.c").is_file()
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert on_disk == sorted(second["files"] + ["notes.txt", "src/lea_ref/my_patch.c"])
    assert not [p for p in tmp_path.iterdir() if p.name != "lib"]         # no staging folder left behind


def test_export_refuses_a_folder_it_did_not_write_and_a_file_in_its_way(tmp_path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("mine")
    with pytest.raises(ExportError, match="holds no export manifest"):
        _export(foreign, "lea128")
    older = tmp_path / "older"         # an export by an mcucrypt whose manifest listed no files
    older.mkdir()
    (older / "mcucrypt-export.json").write_text('{"target": "avr"}')
    (older / "thesis.tex").write_text("mine")
    with pytest.raises(ExportError, match="lists no files"):
        _export(older, "lea128")
    assert (older / "thesis.tex").read_text() == "mine"

    out = tmp_path / "lib"
    _export(out, "lea128")
    (out / "src" / "pipo_ref").mkdir()
    (out / "src" / "pipo_ref" / "mcu_stack_wipe.S").write_text("mine")   # where the next export writes
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    with pytest.raises(ExportError, match=r"pipo_ref/mcu_stack_wipe.S was not written by an earlier export"):
        _export(out, "pipo64_128")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == before
    assert (out / "src" / "pipo_ref" / "mcu_stack_wipe.S").read_text() == "mine"
