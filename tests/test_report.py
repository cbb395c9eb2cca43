# SPDX-License-Identifier: MIT
"""Reports from a real (small) bench run: markdown and self-contained HTML with the papers' tables,
provenance and plots; the HTML renders in headless Chromium with every table and plot present;
`compare` flags a regression and passes an unchanged run."""
from __future__ import annotations

import json
import random
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
    from mcucrypt.bench import BenchRecord, _check_goals, goal_parts, goals_missed, goals_open
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
    assert goals_missed(recs) == [recs[1].goal]
    # Two goals on one record (an issue's two bounds on one row), one of them open: both are reported, the
    # open one that is not met is OPEN and no failure; a missed closed one still fails.
    recs = [record("encrypt", 540)]
    _check_goals([Goal("lea128", "rv32-fast", "rv32", "encrypt", "cycles_per_byte", 36),
                  Goal("lea128", "rv32-fast", "rv32", "encrypt", "cycles", 500, open=True)], recs)
    assert goal_parts(recs[0].goal) == ["encrypt <= 36 cycles/byte: met (33.75)",
                                        "encrypt <= 500 cycles: OPEN, not met (540)"]
    assert goals_missed(recs) == [] and goals_open(recs) == ["encrypt <= 500 cycles: OPEN, not met (540)"]
    _check_goals([Goal("lea128", "rv32-fast", "rv32", "encrypt", "cycles", 530)], recs)
    assert goals_missed(recs) == ["encrypt <= 530 cycles: MISSED (540)"]


# ------------------------------------------------------------------------------------ readable plots

def synthetic_records(seed: int = 1) -> list[dict]:
    """A record for every (id, implementation, board target) of the catalog, with cycles spread over three
    decades: the largest label sets the plots can meet (the figures' layout does not depend on the values
    being measured ones; the bench fixture above covers real ones)."""
    from mcucrypt.catalog import load_catalog
    rng = random.Random(seed)
    records = []

    def rec(prim: str, impl: str, target: str, op: str, nbytes: int, cycles: int) -> None:
        records.append({"prim": prim, "impl": impl, "target": target, "op": op, "bytes": nbytes, "cycles": cycles,
                        "cycles_per_byte": round(cycles / nbytes, 2) if nbytes else None, "instructions": cycles,
                        "code_bytes": 1000, "stack_bytes": 64, "kat": "pass", "constant_time": "pass",
                        "constant_time_claimed": True, "isa": None, "error": None, "goal": None, "cycles_warm": None})
    for prim in load_catalog().primitives.values():
        for impl in prim.implementations.values():
            for pid in impl.ids:
                for target in sorted(set(impl.targets) - {"host"}):
                    base = 10 ** rng.uniform(2, 4.5)
                    if prim.kind == "mpmul":
                        rec(pid, impl.name, target, "mul", 0, int(base * (int(pid.removeprefix("mpmul")) / 256) ** 2))
                    elif prim.kind == "aead":
                        for n in (0, 8, 16, 64, 128):
                            rec(pid, impl.name, target, f"encrypt-{n}B", n, int(base + n * base / 40))
                        rec(pid, impl.name, target, "P_640", 0, int(base / 3))
                    else:
                        rec(pid, impl.name, target, "encrypt", 16, int(base))
    return records


def check_figure_is_readable(name: str, fig) -> None:
    import matplotlib.text
    from matplotlib.patches import Rectangle
    drawn: dict[int, matplotlib.text.Text] = {}      # the texts a render draws (not tick labels out of view)
    draw = matplotlib.text.Text.draw

    def spy(text: matplotlib.text.Text, renderer) -> None:
        if text.get_visible() and text.get_text().strip():
            drawn[id(text)] = text
        draw(text, renderer)
    matplotlib.text.Text.draw = spy
    try:
        fig.canvas.draw()
    finally:
        matplotlib.text.Text.draw = draw
    renderer = fig.canvas.get_renderer()
    texts = list(drawn.values())
    # the text's own box (an annotation's get_window_extent also spans its leader line)
    boxes = [(t.get_text(), matplotlib.text.Text.get_window_extent(t, renderer)) for t in texts]
    for i, (a, ba) in enumerate(boxes):
        assert ba.width > 0 and ba.height > 0, (name, a)
        for b, bb in boxes[i + 1:]:
            overlap_w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
            overlap_h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            assert overlap_w <= 0.5 or overlap_h <= 0.5, f"{name}: text {a!r} overlaps {b!r}"
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        lines = [l for l in ax.get_lines() if not l.get_label().startswith("_")]
        styles = [(l.get_color(), l.get_marker()) for l in lines]
        assert len(set(styles)) == len(styles), f"{name}: repeated colour and marker in {ax.get_title()!r}"
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        if bars:
            assert ax.get_xscale() == "linear" and ax.get_yscale() == "linear", f"{name}: bars on a log axis"
            assert all(b.get_x() == 0 for b in bars) and ax.get_xlim()[0] == 0, f"{name}: bars not from zero"
        legend = ax.get_legend()
        if legend is not None:
            lb, axb = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
            assert lb.x0 >= axb.x1 or lb.x1 <= axb.x0 or lb.y0 >= axb.y1 or lb.y1 <= axb.y0, \
                f"{name}: legend inside the axes"
    width_px = fig.get_figwidth() * 110
    assert 800 <= width_px <= 1400, f"{name}: {width_px:.0f} px wide at the report's 110 dpi"


def test_plots_are_readable_for_the_whole_catalog() -> None:
    import matplotlib.pyplot as plt
    from mcucrypt.report import figures
    figs = figures(synthetic_records())
    assert set(figs) == {"mpmul.png", "ciphers.png", "tinyjambu.png"}
    try:
        for name, (_, fig) in figs.items():
            check_figure_is_readable(name, fig)
    finally:
        for _, fig in figs.values():
            plt.close(fig)


def test_plots_of_the_bench_are_readable(bench_results: Path) -> None:
    import matplotlib.pyplot as plt
    from mcucrypt.report import figures, load_results
    figs = figures(load_results(bench_results)[1])
    assert figs
    try:
        for name, (_, fig) in figs.items():
            check_figure_is_readable(name, fig)
    finally:
        for _, fig in figs.values():
            plt.close(fig)


def test_figure_check_catches_overlaps_and_log_bars() -> None:
    """The readability check itself fails on the faults it exists for."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.text(0.5, 0.5, "one label")
    ax.text(0.5, 0.5, "another label")
    with pytest.raises(AssertionError, match="overlaps"):
        check_figure_is_readable("overlap", fig)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.barh([0, 1], [10, 1000])
    ax.set_xscale("log")
    with pytest.raises(AssertionError, match="log axis"):
        check_figure_is_readable("log bars", fig)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(9, 3))
    for n in range(11):
        ax.plot([0, 1], [n, n], marker="o", label=f"s{n}")
    with pytest.raises(AssertionError, match="repeated colour"):
        check_figure_is_readable("styles", fig)
    plt.close(fig)


def test_html_has_no_literal_markdown(bench_results: Path, tmp_path: Path) -> None:
    assert mcucrypt("report", "--results", str(bench_results), "--out", str(tmp_path)).returncode == 0
    page = (tmp_path / "report.html").read_text()
    text = re.sub(r"<script>.*?</script>", "", page, flags=re.S)
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", text)
    assert "`" not in text and "**" not in text
    assert "<code>mcucrypt bench</code>" in page


def test_best_constant_time_needs_a_claim() -> None:
    """A secret-indexed table passes the checker on these cacheless boards, but the cross-target table
    must not offer it as the best constant-time choice: that column takes the fastest strict claim, then
    names a faster cacheless-only one, and the verdict cells carry the claim."""
    from mcucrypt import report

    def rec(prim: str, impl: str, target: str, cycles: int) -> dict:
        return {"prim": prim, "impl": impl, "target": target, "op": "encrypt", "bytes": 16, "cycles": cycles,
                "cycles_per_byte": cycles / 16, "code_bytes": 1, "stack_bytes": 1, "kat": "pass",
                "constant_time": "pass", "constant_time_claimed": impl != "cm3-table", "error": None}

    records = [rec("aes128", "cm3-table", "armv7m", 601), rec("aes128", "cm3-bitsliced", "armv7m", 3161),
               rec("aes128", "avr-table", "avr", 1971), rec("aes128", "avr-bitsliced", "avr", 6978),
               rec("aria128", "avr-fast", "avr", 2284)]
    rows = {(r[0], r[1]): r for r in report.cross_target_table(records).rows}
    table_m3, table_avr, aria_avr = rows[("aes128", "armv7m")], rows[("aes128", "avr")], rows[("aria128", "avr")]
    assert table_m3[2] == "cm3-table" and table_m3[8] == "pass (not claimed)"
    assert table_m3[9] == "cm3-bitsliced: 3,161"
    assert table_avr[8] == "pass (cacheless cores)"
    assert table_avr[9] == "avr-bitsliced: 6,978; avr-table: 1,971 (cacheless cores)"
    assert aria_avr[9] == "none strict; avr-fast: 2,284 (cacheless cores)"


def test_report_opens_with_the_best_constant_time_implementation_of_each_job(tmp_path: Path) -> None:
    """Issue 35: per core, the fastest strict constant-time implementation of each job (a faster
    variable-time or cacheless-only one is passed over, so is one failing the checker or the vectors),
    with cycles, code and stack, before the papers' tables; the M3 X25519 row cites the M0 figures."""
    from mcucrypt import report

    def rec(prim: str, impl: str, target: str, op: str, cycles: int, *, ct: str = "pass", kat: str = "pass") -> dict:
        return {"prim": prim, "impl": impl, "target": target, "op": op, "bytes": 16 if op == "encrypt" else 32,
                "cycles": cycles, "cycles_per_byte": cycles / 16, "code_bytes": 1234, "stack_bytes": 56,
                "kat": kat, "constant_time": ct, "error": None}

    records = [rec("aes128", "cm3-table", "armv7m", "encrypt", 601),           # cacheless only: passed over
               rec("aes128", "cm3-bitsliced", "armv7m", "encrypt", 3161),
               rec("chacha20", "cm3-fast", "armv7m", "encrypt", 900, ct="fail"),   # fails the checker
               rec("chacha20", "ref", "armv7m", "encrypt", 4000),
               rec("x25519", "cm3-fast", "armv7m", "scalarmult", 900_000),
               rec("x25519", "ref", "armv7m", "scalarmult", 800_000, kat="fail"),  # fails the vectors
               rec("x25519", "avr-fast", "avr", "scalarmult", 11_000_000)]
    tables = report.glance_tables(records)
    assert [t.title.split(":")[0] for t in tables] == ["At a glance, Cortex-M3 (armv7m)", "At a glance, ATmega128 (avr)"]
    m3 = {r[1]: r for r in tables[0].rows}
    assert m3["aes128"][:5] == ["block cipher", "aes128", "cm3-bitsliced", "encrypt", "3,161"]
    assert m3["chacha20"][2] == "ref"
    assert m3["x25519"][:3] == ["key exchange", "x25519", "cm3-fast"] and m3["x25519"][6:8] == ["1,234", "56"]
    assert "3,229,950" in m3["x25519"][8] and "3,589,850" in m3["x25519"][8]
    assert "signature" in tables[0].note                  # a job mcucrypt does not have yet is said
    # The report puts them first.
    results = tmp_path / "r.json"
    results.write_text(json.dumps({"schema_version": 1, "provenance": {"git_commit": "0" * 40, "date": "today"},
                                   "records": records}))
    out = tmp_path / "out"
    proc = mcucrypt("report", "--results", str(results), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    md = (out / "report.md").read_text()
    assert md.index("At a glance, Cortex-M3") < md.index("Cross-target")


def test_modes_table_puts_ours_beside_every_peer_measured_on_the_board(tmp_path) -> None:
    """Issue 29's "AEAD modes" table: one row per `*-peers` published figure of an AEAD or MAC id; ours is
    the fastest strict constant-time implementation passing the checker, the ratio ours/peer; a record
    that failed its vectors never stands in; `report --show modes` prints the same rows."""
    from mcucrypt.catalog import load_catalog
    from mcucrypt.report import _job, modes_table
    pubs = [p for prim in load_catalog().primitives.values() for p in prim.published
            if str(p["paper"]).endswith("-peers") and _job(p["id"]) in ("AEAD", "MAC")]
    assert {p["id"] for p in pubs} >= {"chacha20poly1305", "aescmac128", "hmacsha256"} and len(pubs) >= 14

    def rec(p: dict, impl: str, cycles: int, kat: str = "pass", ct: str = "pass") -> dict:
        n = int(re.search(r"(\d+)B", p["op"]).group(1))
        return {"prim": p["id"], "impl": impl, "target": p["target"], "op": p["op"], "bytes": n, "cycles": cycles,
                "cycles_per_byte": round(cycles / n, 2), "instructions": cycles, "code_bytes": 1000,
                "stack_bytes": 64, "kat": kat, "constant_time": ct, "constant_time_claimed": True, "isa": None,
                "error": None, "goal": None, "cycles_warm": None}
    ours = {}
    for p in pubs:      # ours: half the fastest peer's figure for the workload
        key = (p["id"], p["target"], p["op"])
        ours[key] = min(ours.get(key, p["value"]), p["value"]) // 2
    records = [rec(p, p["impl"], ours[(p["id"], p["target"], p["op"])]) for p in pubs]
    records += [rec(p, "ref", p["value"] // 4, kat="fail") for p in pubs]      # wrong output: never "ours"
    table = modes_table(records)
    assert table is not None and len(table.rows) == len(pubs)
    for row, p in zip(table.rows, sorted(pubs, key=lambda p: (["rv32", "armv7m", "avr"].index(p["target"]),
                                                               p["id"], p["op"], p.get("note", "")))):
        assert row[3] != "ref" and row[-1] == f"{ours[(p['id'], p['target'], p['op'])] / p['value']:.2f}"
    cm3 = [r for r in table.rows if r[0].startswith("Cortex-M3") and r[1] == "chacha20poly1305"]
    assert any("ctmul32" in r[7] for r in cm3) and any("Monocypher" in r[7] for r in cm3)
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"schema_version": 2, "provenance": {}, "records": records}))
    proc = mcucrypt("report", "--results", str(path), "--show", "modes")
    assert proc.returncode == 0 and "ctmul32" in proc.stdout and "AEAD modes" in proc.stdout, proc.stdout


def test_signature_table_is_the_bootloaders_choice_per_core(tmp_path) -> None:
    """Issue 32's table: per core one row per signature scheme, its fastest verify that passed its vectors
    on the core's real part; milliseconds at the part's usual clock, RAM = stack + static data, key and
    signature bytes from the instance, sign cycles where it signs; `report --show signatures` prints it."""
    from mcucrypt.report import USUAL_CLOCK_MHZ, signature_tables

    def rec(prim: str, impl: str, target: str, op: str, cycles: int, kat: str = "pass", **kw) -> dict:
        return {"prim": prim, "impl": impl, "target": target, "op": op, "bytes": 64, "cycles": cycles,
                "cycles_per_byte": None, "instructions": cycles, "code_bytes": 9000, "stack_bytes": 700,
                "static_ram_bytes": 12, "ram_bytes": 712, "kat": kat, "constant_time": "pass",
                "constant_time_claimed": True, "isa": None, "error": None, "goal": None, "cycles_warm": None, **kw}
    records = [rec("ed25519", "ref", "armv7m", "verify-64B", 7_200_000),
               rec("ed25519", "ref", "armv7m", "sign-64B", 3_600_000),
               rec("p256", "cm3-fast", "armv7m", "verify-64B", 5_040_000),
               rec("p256", "cm3-fast", "armv7m", "sign-64B", 2_000_000),
               rec("p256", "ref", "armv7m", "verify-64B", 1_000, kat="fail"),     # wrong output: never chosen
               rec("p256", "avr-kara", "avr", "verify-64B", 64_000_000),
               rec("mldsa44", "avr-shake", "avr", "verify-64B", 46_000_000, core="atmega1284p"),
               rec("ed25519", "avr-fast", "avr", "verify-64B", 21_000_000),
               rec("ed25519", "avr-fast", "avr", "verify-64B", 20_000_000, core="atmega1284p")]
    tables = signature_tables(records)
    assert [t.title.split(",")[1].strip().split(":")[0] for t in tables] == ["Cortex-M3 (armv7m)", "ATmega128 (avr)"]
    m3 = {row[0]: row for row in tables[0].rows}
    assert set(m3) == {"ed25519", "p256"}
    assert m3["p256"][1] == "cm3-fast" and m3["p256"][2] == "5,040,000"
    assert m3["p256"][3] == f"{5_040_000 / (USUAL_CLOCK_MHZ['armv7m'] * 1000):,.1f}" == "70.0"
    assert m3["ed25519"][5] == "712" and m3["ed25519"][6] == "32" and m3["ed25519"][7] == "64"
    assert m3["p256"][6] == "65" and m3["p256"][8] == "2,000,000"
    avr = {row[0]: row for row in tables[1].rows}
    assert avr["p256"][3] == "4,000.0" and avr["p256"][8] == "verify only"
    assert avr["mldsa44"][1] == "avr-shake (atmega1284p only)"      # no default-part record: the other part's
    assert avr["ed25519"][1] == "avr-fast" and avr["ed25519"][2] == "21,000,000"   # the default part's first
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"schema_version": 2, "provenance": {}, "records": records}))
    proc = mcucrypt("report", "--results", str(path), "--show", "signatures")
    assert proc.returncode == 0 and "bootloader" in proc.stdout and "5,040,000" in proc.stdout, proc.stdout
