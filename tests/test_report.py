# SPDX-License-Identifier: MIT
"""Reports from a real (small) bench run: markdown and self-contained HTML with the papers' tables,
provenance and plots; the HTML renders in headless Chromium with every table and plot present;
`compare` flags a regression and passes an unchanged run."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcucrypt.targets import ROOT


def mcucrypt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcucrypt.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)


@pytest.fixture(scope="module")
def bench_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = mcucrypt("bench", "--prim", "lea128", "--prim", "mpmul256", "--prim", "mpmul512",
                    "--impl", "ref", "--target", "rv32", "--target", "avr", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_bench_records_have_contract_fields(bench_results: Path) -> None:
    doc = json.loads(bench_results.read_text())
    assert doc["provenance"]["git_commit"] and doc["provenance"]["toolchains"]["rv32"]["cc"]
    fields = {"prim", "impl", "target", "op", "bytes", "cycles", "cycles_per_byte", "code_bytes", "stack_bytes",
              "kat", "constant_time"}
    ops = {(r["prim"], r["target"], r["op"]) for r in doc["records"]}
    assert {("lea128", "avr", "encrypt"), ("lea128", "avr", "decrypt"), ("lea128", "avr", "keyschedule")} <= ops
    for r in doc["records"]:
        assert fields <= set(r) and r["cycles"] > 0 and r["code_bytes"] > 0 and r["stack_bytes"] > 0, r
        assert r["kat"] == "pass" and r["constant_time"] in ("pass", "fail"), r


def test_report_written_with_provenance_and_paper_table(bench_results: Path, tmp_path: Path) -> None:
    proc = mcucrypt("report", "--results", str(bench_results), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "report.md").read_text()
    assert "git commit" in md and "riscv64-unknown-elf-gcc" in md
    assert "Paper 002" in md and "9,070" in md        # LEA-128 reference C, paper 002 Table 6
    assert (tmp_path / "mpmul.png").stat().st_size > 1000


def test_report_html_renders_in_chromium(bench_results: Path, tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is installed by scripts/setup.sh"
    assert mcucrypt("report", "--results", str(bench_results), "--out", str(tmp_path)).returncode == 0
    page = tmp_path / "report.html"
    assert "http" not in re.sub(r"https?://www\.w3\.org", "", page.read_text())   # self-contained
    proc = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    body = re.search(r"<body[^>]*>", proc.stdout)
    assert body, proc.stdout[:500]
    assert 'data-render-check="ok"' in body.group(0), body.group(0)
    assert int(re.search(r'data-tables="(\d+)"', body.group(0)).group(1)) >= 3
    assert int(re.search(r'data-images="(\d+)"', body.group(0)).group(1)) >= 2
    shot = tmp_path / "report.png"
    subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                    "--window-size=1280,2000", page.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000


def test_compare_flags_regression(bench_results: Path, tmp_path: Path) -> None:
    same = mcucrypt("compare", str(bench_results), str(bench_results))
    assert same.returncode == 0 and "0 regressions" in same.stdout, same.stdout
    doc = json.loads(bench_results.read_text())
    doc["records"][0]["cycles"] = int(doc["records"][0]["cycles"] * 1.10) + 1
    slower = tmp_path / "slower.json"
    slower.write_text(json.dumps(doc))
    proc = mcucrypt("compare", str(bench_results), str(slower))
    assert proc.returncode == 1 and "REGRESSION" in proc.stdout, proc.stdout


def test_goals_are_checked_by_the_bench() -> None:
    """A goal marks its record met or MISSED; the benchmark, not a unit test, holds the issues' targets."""
    from mcucrypt.bench import BenchRecord, _check_goals, goals_missed
    from mcucrypt.catalog import Goal

    def record(op: str, cycles: int) -> BenchRecord:
        return BenchRecord("lea128", "rv32-fast", "rv32", op, 16, cycles, cycles / 16, 0, 4000, 0, "pass", "pass",
                           True, None)
    recs = [record("encrypt", 540), record("decrypt", 700)]
    _check_goals([Goal("lea128", "rv32-fast", "rv32", "encrypt", "cycles_per_byte", 36),
                  Goal("lea128", "rv32-fast", "rv32", "decrypt", "cycles", 1.15, relative_to="encrypt"),
                  Goal("lea128", "rv32-zbb", "rv32", "encrypt", "cycles", 1)], recs)
    assert recs[0].goal == "encrypt <= 36 cycles/byte: met (33.75)"
    assert recs[1].goal is not None and "MISSED" in recs[1].goal     # 700 / 540 = 1.30 > 1.15
    assert goals_missed(recs) == [recs[1]]
