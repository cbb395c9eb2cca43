"""Reports from a bench results file: the papers' tables rebuilt with our figures beside the published
ones, a cross-target table, plots, and the provenance of every figure.

`mcucrypt report [--results results/bench.json]` writes results/report.md, a self-contained
results/report.html (plots embedded as data URIs) and the plots as PNG files beside them.
`mcucrypt compare OLD.json NEW.json` lists per-row cycle changes and fails on a regression.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .bench import main_op
from .catalog import load_catalog

METRIC_FIELD = {"cycles": "cycles", "cycles_per_byte": "cycles_per_byte", "code_bytes": "code_bytes",
                "stack_bytes": "stack_bytes"}
METRIC_LABEL = {"cycles": "cycles", "cycles_per_byte": "cycles/byte", "code_bytes": "code bytes",
                "stack_bytes": "stack bytes"}
PAPER_TITLES = {
    "000": "Paper 000 — scalable multi-precision multiplication on RISC-V (SiFive E31)",
    "002": "Paper 002 — ARIA, LEA, PIPO on RV32I (SiFive E31)",
    "003": "Paper 003 — multi-precision multiplication on Cortex-M3",
    "004": "Paper 004 — TinyJAMBU on 8-bit AVR (ATmega128)",
    "ascon-c": "Ascon (SP 800-232) — the designers' code (ascon/ascon-c 446347f2) measured on our boards",
}


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""

    def markdown(self) -> str:
        out = [f"### {self.title}", ""]
        if self.note:
            out += [self.note, ""]
        out.append("| " + " | ".join(self.header) + " |")
        out.append("|" + "|".join("---" for _ in self.header) + "|")
        out += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(out) + "\n"

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in self.rows)
        note = f"<p class='note'>{html.escape(self.note)}</p>" if self.note else ""
        return f"<h3>{html.escape(self.title)}</h3>{note}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def load_results(path: Path) -> tuple[dict, list[dict]]:
    doc = json.loads(Path(path).read_text())
    if "records" not in doc or "provenance" not in doc:
        raise ValueError(f"{path}: not an mcucrypt results file (no records/provenance)")
    return doc["provenance"], doc["records"]


def _fmt(v: float | int | None) -> str:
    if v is None:
        return "—"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.2f}"
    return f"{int(v):,}"


def _index(records: Iterable[dict]) -> dict[tuple[str, str, str, str], dict]:
    return {(r["prim"], r["impl"], r["target"], r["op"]): r for r in records if not r.get("error")}


def paper_tables(records: list[dict]) -> list[Table]:
    """One table per (paper, table) in the catalog's `published` entries: ours beside theirs."""
    idx = _index(records)
    groups: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    for prim in load_catalog().primitives.values():
        for pub in prim.published:
            key = (pub["id"], pub["impl"], pub["target"], pub["op"])
            metric = pub["metric"]
            rec = idx.get(key)
            ours = rec.get(METRIC_FIELD[metric]) if rec else None
            theirs = pub.get("value")
            ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else "—"
            groups[(str(pub["paper"]), str(pub.get("table", "")))].append([
                pub["id"], pub["impl"], pub["target"], pub["op"], METRIC_LABEL[metric], _fmt(theirs), _fmt(ours),
                _fmt(_warm(rec, metric)), ratio, (rec or {}).get("constant_time", "—"), pub.get("note", "")])
    tables = []
    for (paper, table), rows in sorted(groups.items()):
        tables.append(Table(
            f"{PAPER_TITLES.get(paper, 'Paper ' + paper)}: Table {table}",
            ["primitive", "implementation", "target", "operation", "metric", "paper", "ours", "ours, warm",
             "ours/paper", "constant time", "note"], rows,
            "Ours: measured on the mcucrypt virtual board by `mcucrypt bench`, every call from a cold branch "
            "predictor; 'warm' (rv32): after one identical call trained it, as a benchmark loop on the board "
            "would. The paper's figure from its table."))
    return tables


def _warm(rec: dict | None, metric: str) -> float | int | None:
    if not rec or rec.get("cycles_warm") is None or metric not in ("cycles", "cycles_per_byte"):
        return None
    return rec["cycles_warm"] if metric == "cycles" else round(rec["cycles_warm"] / rec["bytes"], 2)


def _main_op(recs: list[dict]) -> dict | None:
    name = main_op((r["op"], r["bytes"]) for r in recs)
    return next((r for r in recs if r["op"] == name), None)


def cross_target_table(records: list[dict]) -> Table:
    by: dict[tuple[str, str], dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if not r.get("error"):
            by[(r["prim"], r["target"])][r["impl"]].append(r)
    rows = []
    for (prim, target), impls in sorted(by.items()):
        mains = [m for m in (_main_op(recs) for recs in impls.values()) if m is not None and m["kat"] == "pass"]
        if not mains:
            continue
        best = min(mains, key=lambda m: m["cycles"])
        ct = [m for m in mains if m["constant_time"] == "pass"]
        best_ct = min(ct, key=lambda m: m["cycles"]) if ct else None
        rows.append([prim, target, best["impl"], best["op"], _fmt(best["cycles"]), _fmt(best["cycles_per_byte"]),
                     _fmt(best["code_bytes"]), _fmt(best["stack_bytes"]), best["constant_time"],
                     f"{best_ct['impl']}: {_fmt(best_ct['cycles'])}" if best_ct else "none"])
    return Table("Cross-target: the best verified implementation of every primitive on every target",
                 ["primitive", "target", "implementation", "operation", "cycles", "cycles/byte", "code bytes",
                  "stack bytes", "constant time", "best constant-time (cycles)"], rows,
                 "Verified: passes the official vectors. Constant time: the checker's verdict on the board.")


def goals_table(records: list[dict]) -> Table | None:
    rows = []
    for r in records:
        if r.get("goal"):
            goal, _, outcome = r["goal"].partition(": ")
            rows.append([r["prim"], r["impl"], r["target"], goal, outcome])
    if not rows:
        return None
    return Table("Goals: the issues' targets (META.yml `goals`), checked on this run",
                 ["primitive", "implementation", "target", "goal", "outcome (measured)"], rows)


def all_records_table(records: list[dict]) -> Table:
    rows = [[r["prim"], r["impl"], r["target"], r["op"], _fmt(r["bytes"] or None), _fmt(r["cycles"]),
             _fmt(r["cycles_per_byte"]), _fmt(r["code_bytes"]), _fmt(r["stack_bytes"]), r["kat"],
             r["constant_time"] + ("" if r.get("constant_time_claimed") or r["constant_time"] == "n/a"
                                   else " (not claimed)")]
            for r in records if not r.get("error")]
    return Table("Every measurement", ["primitive", "implementation", "target", "operation", "bytes", "cycles",
                                        "cycles/byte", "code bytes", "stack bytes", "vectors", "constant time"], rows)


# ---------------------------------------------------------------------------------------------- plots

def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def plots(records: list[dict]) -> dict[str, tuple[str, bytes]]:
    """name -> (caption, PNG bytes)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out: dict[str, tuple[str, bytes]] = {}
    ok = [r for r in records if not r.get("error")]

    mul = [r for r in ok if r["prim"].startswith("mpmul") and r["op"] == "mul"]
    if mul:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        series: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        for r in mul:
            series[(r["target"], r["impl"])].append((int(r["prim"].removeprefix("mpmul")), r["cycles"]))
        for (target, impl), pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{impl} ({target})")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("operand size (bits)")
        ax.set_ylabel("cycles")
        ax.set_title("Multi-precision multiplication")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        out["mpmul.png"] = ("Multiplication cycles against operand size (log-log), every implementation", _png(fig))
        plt.close(fig)

    ciphers = [r for r in ok if r["op"] == "encrypt" and r["cycles_per_byte"] is not None]
    if ciphers:
        targets = sorted({r["target"] for r in ciphers})
        fig, axes = plt.subplots(len(targets), 1, figsize=(9, 3.2 * len(targets)), squeeze=False)
        for ax, target in zip(axes[:, 0], targets):
            rs = sorted((r for r in ciphers if r["target"] == target), key=lambda r: (r["prim"], r["impl"]))
            ax.barh([f"{r['prim']} {r['impl']}" for r in rs], [r["cycles_per_byte"] for r in rs])
            ax.set_xscale("log")
            ax.set_xlabel("cycles/byte (log)")
            ax.set_title(f"One-block encryption on {target}")
            ax.tick_params(axis="y", labelsize=7)
        fig.tight_layout()
        out["ciphers.png"] = ("Cycles/byte of one-block encryption per cipher and target", _png(fig))
        plt.close(fig)

    tj = [r for r in ok if r["prim"].startswith("tinyjambu") and r["target"] == "avr"]
    if tj:
        ops = sorted({r["op"] for r in tj})
        fig, ax = plt.subplots(figsize=(9, 4.5))
        impls = sorted({(r["prim"], r["impl"]) for r in tj})
        width = 0.8 / max(len(impls), 1)
        idx = {(r["prim"], r["impl"], r["op"]): r["cycles"] for r in tj}
        for n, (prim, impl) in enumerate(impls):
            ax.bar([i + n * width for i in range(len(ops))], [idx.get((prim, impl, op), 0) for op in ops],
                   width, label=f"{prim} {impl}")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(ops))], ops, rotation=45, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("cycles (log)")
        ax.set_title("TinyJAMBU on ATmega128: variants")
        ax.legend(fontsize=6, ncol=3)
        out["tinyjambu.png"] = ("TinyJAMBU variants on the AVR board, every operation", _png(fig))
        plt.close(fig)
    return out


# --------------------------------------------------------------------------------------------- writers

def _compact(value: Any) -> Any:
    """A timing-model description without its sources (they are in bench.json and docs/board-*.md)."""
    if isinstance(value, dict):
        if set(value) >= {"value", "source"}:
            return value["value"]
        return {k: _compact(v) for k, v in value.items()}
    return value


def _provenance_lines(prov: dict) -> list[str]:
    lines = [f"- git commit: `{prov.get('git_commit')}`" + (" (with uncommitted changes)" if prov.get("git_dirty") else ""),
             f"- date: {prov.get('date')}", f"- host: {prov.get('host')}, Python {prov.get('python')}"]
    for name, tc in prov.get("toolchains", {}).items():
        lines.append(f"- toolchain {name}: {tc.get('cc', tc.get('error'))}; flags `{' '.join(tc.get('cflags', []))}`")
    for name, b in prov.get("boards", {}).items():
        b = _compact(b)
        params = next((b.pop(k) for k in ("parameters", "timing") if isinstance(b.get(k), dict)), {})
        head = "; ".join(f"{k}: {v}" for k, v in b.items() if not isinstance(v, (dict, list)))
        lines.append(f"- board {name}: {head}")
        if params:
            lines.append(f"  timing parameters (sources in docs/board-{name}.md): " +
                         ", ".join(f"{k}={v}" for k, v in sorted(params.items())))
    return lines


def write_report(results: Path, out_dir: Path) -> tuple[Path, Path]:
    prov, records = load_results(results)
    goals = goals_table(records)
    tables = paper_tables(records) + ([goals] if goals else []) + [cross_target_table(records),
                                                                   all_records_table(records)]
    figures = plots(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (_, png) in figures.items():
        (out_dir / name).write_bytes(png)
    errors = [r for r in records if r.get("error")]

    md = ["# mcucrypt results", "",
          "Every figure below was measured by `mcucrypt bench` on the virtual boards (cycle counts are "
          "deterministic); the papers' figures are beside ours where a paper published one. "
          f"Commit `{str(prov.get('git_commit'))[:12]}`, {prov.get('date')}; full provenance at the end.", ""]
    if errors:
        md += ["## Failed jobs", ""] + [f"- {r['prim']} {r['impl']} {r['target']}: {r['error']}" for r in errors] + [""]
    md += ["## Tables", ""] + [t.markdown() for t in tables]
    md += ["## Plots", ""] + [f"![{cap}]({name})\n" for name, (cap, _) in figures.items()]
    md += ["## Provenance", "", *_provenance_lines(prov), ""]
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md))

    imgs = "".join(
        f"<figure><img alt='{html.escape(cap)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
        f"<figcaption>{html.escape(cap)}</figcaption></figure>" for name, (cap, png) in figures.items())
    prov_html = "".join(f"<li>{html.escape(l.strip()[2:] if l.startswith('- ') else l.strip())}</li>"
                        for l in _provenance_lines(prov))
    err_html = ("<h2>Failed jobs</h2><ul>" + "".join(
        f"<li>{html.escape(r['prim'])} {html.escape(r['impl'])} {html.escape(r['target'])}: "
        f"{html.escape(r['error'])}</li>" for r in errors) + "</ul>") if errors else ""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcucrypt results</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
th {{ background: #f0f0f0; }} td:nth-child(-n+4), td:last-child {{ text-align: left; }}
figure {{ margin: 1em 0; }} img {{ max-width: 100%; }} .note {{ color: #555; font-size: 13px; }}
</style></head>
<body>
<h1>mcucrypt results</h1>
<p>Every figure was measured by <code>mcucrypt bench</code> on the virtual boards (deterministic cycle counts);
the papers' figures are beside ours where a paper published one. Commit
<code>{html.escape(str(prov.get('git_commit'))[:12])}</code>, {html.escape(str(prov.get('date')))}; full provenance at the end.</p>
{err_html}
<h2>Tables</h2>{''.join(t.html() for t in tables)}
<h2>Plots</h2>{imgs}
<h2>Provenance</h2><ul>{prov_html}</ul>
<script>
// Self-check for the rendering test: every plot decoded and every table has rows.
window.addEventListener("load", () => {{
  const imgs = [...document.images];
  const ok = imgs.every(i => i.complete && i.naturalWidth > 0) &&
             [...document.querySelectorAll("table")].every(t => t.rows.length > 1);
  document.body.dataset.renderCheck = ok ? "ok" : "broken";
  document.body.dataset.images = String(imgs.length);
  document.body.dataset.tables = String(document.querySelectorAll("table").length);
}});
</script>
</body></html>
"""
    html_path = out_dir / "report.html"
    html_path.write_text(page)
    return md_path, html_path


# --------------------------------------------------------------------------------------------- compare

@dataclass
class Change:
    key: tuple[str, str, str, str]
    old: int
    new: int

    @property
    def ratio(self) -> float:
        return self.new / self.old if self.old else math.inf


def compare(old: Path, new: Path) -> tuple[list[Change], list[tuple], list[tuple]]:
    """Rows present in both with their cycles, rows only in OLD, rows only in NEW."""
    _, a = load_results(old)
    _, b = load_results(new)
    ia, ib = _index(a), _index(b)
    changes = [Change(k, ia[k]["cycles"], ib[k]["cycles"]) for k in ia if k in ib]
    return changes, sorted(set(ia) - set(ib)), sorted(set(ib) - set(ia))
