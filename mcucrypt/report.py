# SPDX-License-Identifier: MIT
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
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .bench import goal_parts, main_op, read_results
from .catalog import CatalogError, load_catalog

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
    "XKCP": "SHA-3 (FIPS 202) — the Keccak team's XKCP (XKCP/XKCP 6ce53d038f53) measured on our boards",
    "sha2-peers": "SHA-2 and HMAC — the fastest peer measured on each of our boards (docs/sha2.md)",
    "chachapoly-peers": "ChaCha20-Poly1305 — the peers measured on each of our boards (docs/chachapoly.md)",
    "aescmac-peers": "AES-CMAC — the fastest peer measured on each of our boards (docs/aescmac.md)",
    "p256-peers": "ECDSA and ECDH on P-256 — micro-ecc and Emill's M0 code measured on our boards (docs/p256.md)",
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
        head = "".join(f"<th>{inline_html(h)}</th>" for h in self.header)
        body = "".join("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in r) + "</tr>" for r in self.rows)
        note = f"<p class='note'>{inline_html(self.note)}</p>" if self.note else ""
        return f"<h3>{inline_html(self.title)}</h3>{note}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def inline_html(text: str) -> str:
    """Escaped text with markdown's inline `code` rendered as <code> (the report's only markdown markup)."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:          # an unpaired backtick is a character, not markup
        return html.escape(str(text))
    return "".join(f"<code>{html.escape(p)}</code>" if n % 2 else html.escape(p) for n, p in enumerate(parts))


def load_results(path: Path) -> tuple[dict, list[dict]]:
    doc = read_results(path)
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
                _fmt(_warm(rec, metric)), ratio,
                _ct_cell(pub["id"], rec) if rec else "—", pub.get("note", "")])
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
        best_ct = _best_constant_time(prim, mains)
        why = _not_on_part(prim, best["impl"], target)
        on_part = [m for m in mains if not _not_on_part(prim, m["impl"], target)]
        best_part = min(on_part, key=lambda m: m["cycles"]) if on_part else None
        part = "yes" if not why else (f"{why}; there: {best_part['impl']}: {_fmt(best_part['cycles'])}"
                                      if best_part else why)
        rows.append([prim, target, best["impl"], best["op"], _fmt(best["cycles"]), _fmt(best["cycles_per_byte"]),
                     _fmt(best["code_bytes"]), _fmt(best["stack_bytes"]),
                     _ct_cell(prim, best), best_ct, part])
    return Table("Cross-target: the best verified implementation of every primitive on every target",
                 ["primitive", "target", "implementation", "operation", "cycles", "cycles/byte", "code bytes",
                  "stack bytes", "constant time", "best constant-time (cycles)", "on the real part"], rows,
                 "Verified: passes the official vectors. Constant time: the checker's verdict on the board, "
                 "with the implementation's claim where it is not the strict one: '(not claimed)' (no claim: "
                 "secret-indexed tables pass here only because these cores have no data cache), "
                 "'(cacheless cores)' (claimed for cores without a data cache only). Best constant-time: the "
                 "fastest that claims it strictly and passes (no secret-dependent branch, address or "
                 "variable-latency operand); a faster cacheless-only one is named after it. Real part: the "
                 "target's default core (E31, Cortex-M3, ATmega128; mcucrypt/cores.py); where the fastest "
                 "needs more, the fastest that runs there.")


# ------------------------------------------------------------------------------------------ at a glance

# What a user comes for, per kind of job (mcucrypt/kinds); a kind not listed here is a building block.
JOBS = {"blockcipher": "block cipher", "stream": "stream cipher", "aead": "AEAD", "hash": "hash / XOF",
        "mac": "MAC", "kdf": "key derivation", "dh": "key exchange", "signature": "signature",
        "kem": "key encapsulation"}
CORE_NAMES = {"rv32": "SiFive E31 (rv32)", "armv7m": "Cortex-M3 (armv7m)", "avr": "ATmega128 (avr)"}
# Published figures for the same job on the same (or an instruction-subset) core, quoted beside ours.
PUBLISHED_ON_CORE = {
    ("x25519", "armv7m"): "Pornin, x25519-cm0 (github.com/pornin/x25519-cm0): 3,229,950 on a Cortex-M0+ "
                          "(its Thumb code runs on the M3); Düll et al., Des. Codes Cryptogr. 2015: "
                          "3,589,850 on a Cortex-M0",
    ("x25519", "avr"): "Düll et al., Des. Codes Cryptogr. 2015: 13,900,397 on the ATmega",
}


def _job(prim: str) -> str | None:
    try:
        p = load_catalog().by_id(prim)
    except CatalogError:       # a results file from another catalog
        return None
    return JOBS.get(p.instances[prim].get("kind", p.kind))


def glance_tables(records: list[dict]) -> list[Table]:
    """Per core, the fastest implementation of every job's primitives that claims constant time strictly,
    passes the checker and the vectors, and runs on the core's real part: what a user came for."""
    best: dict[str, dict[tuple[str, str], dict]] = defaultdict(dict)
    by: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in records:
        if not r.get("error"):
            by[(r["prim"], r["target"], r["impl"])].append(r)
    for (prim, target, impl), recs in by.items():
        job, main = _job(prim), _main_op(recs)
        if job is None or main is None or main["kat"] != "pass" or main["constant_time"] != "pass":
            continue
        if _ct_claim(prim, main) != "strict" or _not_on_part(prim, impl, target):
            continue
        cur = best[target].get((job, prim))
        if cur is None or main["cycles"] < cur["cycles"]:
            best[target][(job, prim)] = main
    tables = []
    order = list(JOBS.values())
    for target in [t for t in CORE_NAMES if t in best] + sorted(set(best) - set(CORE_NAMES)):
        rows = [[job, prim, m["impl"], m["op"], _fmt(m["cycles"]), _fmt(m["cycles_per_byte"]),
                 _fmt(m["code_bytes"]), _fmt(m["stack_bytes"]), PUBLISHED_ON_CORE.get((prim, target), "")]
                for (job, prim), m in sorted(best[target].items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1]))]
        missing = [j for j in order if j not in {job for job, _ in best[target]}]
        tables.append(Table(
            f"At a glance, {CORE_NAMES.get(target, target)}: the best constant-time implementation of each job",
            ["job", "primitive", "implementation", "operation", "cycles", "cycles/byte", "code bytes",
             "stack bytes", "published on this core"], rows,
            "Fastest implementation that claims constant time strictly, passes the checker on this board and "
            "the official vectors, and runs on the core's real part; its main operation. "
            + (f"Not in this run (or not yet in mcucrypt): {', '.join(missing)}." if missing else "")))
    return tables


# ------------------------------------------------------------------- modes beside peers, signatures

PEER_PAPER_SUFFIX = "-peers"     # `published` entries of peer code measured on our boards (META.yml)
TARGET_ORDER = ("rv32", "armv7m", "avr")


def _passing(records: list[dict]) -> dict[tuple[str, str, str], list[dict]]:
    """(prim, target, op) -> the records of it that pass the vectors, on the target's default part."""
    out: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in records:
        if not r.get("error") and r["kat"] == "pass" and not r.get("core"):
            out[(r["prim"], r["target"], r["op"])].append(r)
    return out


def _best_ours(prim: str, recs: list[dict]) -> dict | None:
    """The fastest record of an implementation that claims constant time strictly and passes the checker;
    else the fastest (its constant-time cell says what it is)."""
    strict = [r for r in recs if r["constant_time"] == "pass" and _ct_claim(prim, r) == "strict"]
    return min(strict or recs, key=lambda r: r["cycles"], default=None)


def modes_table(records: list[dict]) -> Table | None:
    """Issue 29's "AEAD modes" table: every AEAD and MAC workload with a peer measured on our board
    (META.yml `published` entries of a `*-peers` paper), our best constant-time implementation beside it."""
    have = _passing(records)
    rows = []
    for prim in load_catalog().primitives.values():
        for pub in prim.published:
            if not str(pub["paper"]).endswith(PEER_PAPER_SUFFIX) or pub["metric"] != "cycles":
                continue
            if _job(pub["id"]) not in ("AEAD", "MAC"):
                continue
            ours = _best_ours(pub["id"], have.get((pub["id"], pub["target"], pub["op"]), []))
            theirs = pub.get("value")
            rows.append((TARGET_ORDER.index(pub["target"]) if pub["target"] in TARGET_ORDER else 9, [
                CORE_NAMES.get(pub["target"], pub["target"]), pub["id"], pub["op"],
                ours["impl"] if ours else "—", _fmt(ours["cycles"]) if ours else "—",
                _fmt(ours["cycles_per_byte"]) if ours else "—", _ct_cell(pub["id"], ours) if ours else "—",
                pub.get("note", ""), _fmt(theirs),
                f"{ours['cycles'] / theirs:.2f}" if ours and theirs else "—"]))
    if not rows:
        return None
    return Table("AEAD modes and MACs: ours beside the peers' code on the same board",
                 ["core", "primitive", "operation", "ours", "cycles", "cycles/byte", "constant time", "peer",
                  "peer cycles", "ours/peer"],
                 [r for _, r in sorted(rows, key=lambda kv: (kv[0], kv[1][1], kv[1][2], kv[1][7]))],
                 "Peer: its own code built outside the tree with our wrapper and run on our board the same way "
                 "(repository, commit and what was counted: each family's docs). Ours: the fastest "
                 "implementation that claims constant time strictly and passes the checker (else the fastest, "
                 "its verdict beside it).")


# The clock a part usually runs at, for the bootloader's table (milliseconds): the FE310-G002's rated
# 320 MHz (the HiFive1 Rev B boots at 16 MHz from its crystal), the STM32F103's maximum 72 MHz (the
# Due's SAM3X: 84), the ATmega128's maximum 16 MHz.
USUAL_CLOCK_MHZ = {"rv32": 320, "armv7m": 72, "avr": 16}


def _op_starting(recs_by_op: dict[str, dict], prefix: str) -> dict | None:
    return next((r for op, r in sorted(recs_by_op.items()) if op == prefix or op.startswith(prefix + "-")), None)


def signature_rows(records: list[dict]) -> dict[str, list[list[str]]]:
    """Per target: one row per signature scheme id, its fastest verifying implementation on the default
    part (or on another part of the target, named, where the default part holds none): verify cycles and milliseconds, code, RAM (stack + static) of verify, key and signature bytes,
    and sign's constant-time verdict where the implementation signs."""
    catalog = load_catalog()
    by: dict[tuple[str, str, str], dict[str, dict]] = defaultdict(dict)
    for r in records:
        if not r.get("error") and r["kat"] == "pass" and _job(r["prim"]) == "signature":
            by[(r["target"], r["prim"], r["impl"], r.get("core") or "")][r["op"]] = r
    best: dict[tuple[str, str], tuple[dict, dict[str, dict]]] = {}
    for (target, prim, impl, core), ops in by.items():
        verify = _op_starting(ops, "verify")
        if verify is None or _not_on_part(prim, impl, target):
            continue
        # the default part's record first; another part's (ML-DSA on the ATmega1284P) only where the
        # default part has none, and named in the row
        cur = best.get((target, prim))
        if cur is None or (bool(cur[0].get("core")), cur[0]["cycles"]) > (bool(core), verify["cycles"]):
            best[(target, prim)] = (verify, ops)
    out: dict[str, list[list[str]]] = defaultdict(list)
    for (target, prim), (verify, ops) in sorted(best.items()):
        params = catalog.by_id(prim).instances[prim]
        mhz = USUAL_CLOCK_MHZ.get(target)
        ram = verify.get("ram_bytes")
        if ram is None:
            ram = verify["stack_bytes"] + (verify.get("static_ram_bytes") or 0)
        sign = _op_starting(ops, "sign")
        out[target].append([
            prim, verify["impl"] + (f" ({verify['core']} only)" if verify.get("core") else ""), _fmt(verify["cycles"]),
            f"{verify['cycles'] / (mhz * 1000):,.1f}" if mhz else "—", _fmt(verify["code_bytes"]), _fmt(ram),
            _fmt(params.get("pk_bytes")), _fmt(params.get("signature_bytes_of_params", params.get("sig_bytes"))),
            _fmt(sign["cycles"]) if sign else "verify only",
            _ct_cell(prim, sign) if sign else "—"])
    return out


SIGNATURE_HEADER = ["scheme", "implementation", "verify cycles", "verify ms", "code bytes", "RAM bytes",
                    "public key bytes", "signature bytes", "sign cycles", "sign constant time"]


def signature_tables(records: list[dict]) -> list[Table]:
    """Issue 32's bootloader's choice: per core, what verifying a firmware image's signature costs with
    each scheme (docs/signatures.md)."""
    rows = signature_rows(records)
    return [Table(f"The bootloader's choice, {CORE_NAMES.get(t, t)}: signature verification per scheme",
                  SIGNATURE_HEADER, sorted(rows[t], key=lambda r: r[0]),
                  f"Verify of a 64-byte message (the image's digest) on the default part; milliseconds at "
                  f"{USUAL_CLOCK_MHZ.get(t, '?')} MHz. RAM: stack plus the implementation's static data. "
                  "Sign: the same implementation, where it signs.")
            for t in [t for t in TARGET_ORDER if t in rows] + sorted(set(rows) - set(TARGET_ORDER))]


TERMINAL_TABLES = {"glance": lambda recs: glance_tables(recs), "modes": lambda recs: [t for t in [modes_table(recs)] if t],
                   "signatures": signature_tables, "goals": lambda recs: [t for t in [goals_table(recs)] if t]}


def print_tables(results: Path, which: str) -> int:
    """`mcucrypt report --show NAME`: one group of the report's tables in the terminal; the count shown."""
    from rich.console import Console
    from rich.table import Table as RichTable
    tables = TERMINAL_TABLES[which](read_results(results)["records"])
    console = Console(width=200)
    for t in tables:
        rt = RichTable(title=t.title, caption=t.note or None, caption_justify="left")
        for i, h in enumerate(t.header):
            rt.add_column(h, justify="left" if i < 2 or h in ("peer", "constant time", "sign constant time")
                          else "right")
        for r in t.rows:
            rt.add_row(*r)
        console.print(rt)
    if not tables:
        console.print(f"no {which} rows in {results}")
    return len(tables)


CLAIM_NOTE = {"strict": "", "cacheless": " (cacheless cores)", "none": " (not claimed)"}


def _ct_claim(prim: str, rec: dict) -> str:
    """The implementation's constant-time claim (META.yml): 'strict', 'cacheless' or 'none'."""
    from .catalog import CatalogError, load_catalog
    try:
        return load_catalog().implementation(prim, rec["impl"]).ct_claim
    except CatalogError:           # a results file from another catalog: only the boolean is recorded
        return "strict" if rec.get("constant_time_claimed") else "none"


def _ct_cell(prim: str, rec: dict) -> str:
    """The checker's verdict, with the claim beside it where it is not the strict one."""
    verdict = rec["constant_time"]
    return verdict if verdict == "n/a" else verdict + CLAIM_NOTE[_ct_claim(prim, rec)]


def _best_constant_time(prim: str, mains: list[dict]) -> str:
    """The fastest passing implementation that claims constant time strictly, then a faster one whose
    claim holds on cacheless cores only (secret-indexed tables); a passing verdict without a claim does
    not count (a table look-up passes on these boards only because they have no data cache)."""
    passing = [m for m in mains if m["constant_time"] == "pass"]
    strict = min((m for m in passing if _ct_claim(prim, m) == "strict"), key=lambda m: m["cycles"], default=None)
    cacheless = min((m for m in passing if _ct_claim(prim, m) == "cacheless"), key=lambda m: m["cycles"],
                    default=None)
    parts = [f"{strict['impl']}: {_fmt(strict['cycles'])}"] if strict else ["none strict"]
    if cacheless and (strict is None or cacheless["cycles"] < strict["cycles"]):
        parts.append(f"{cacheless['impl']}: {_fmt(cacheless['cycles'])} (cacheless cores)")
    return "; ".join(parts)


def _not_on_part(prim: str, impl: str, target: str) -> str | None:
    """Why ``impl`` does not run on the target's real part (None: it does, or it is not in the catalog)."""
    from .catalog import CatalogError, load_catalog
    from .cores import DEFAULT_CORE, default_core
    if target not in DEFAULT_CORE:
        return None
    try:
        return default_core(target).why_not(load_catalog().implementation(prim, impl))
    except CatalogError:
        return None


def goals_table(records: list[dict]) -> Table | None:
    rows = []
    for r in records:
        for part in goal_parts(r.get("goal")):
            goal, _, outcome = part.partition(": ")
            rows.append([r["prim"], r["impl"], r["target"], goal, outcome])
    if not rows:
        return None
    return Table("Goals: the issues' targets (META.yml `goals`), checked on this run",
                 ["primitive", "implementation", "target", "goal", "outcome (measured)"], rows)


def all_records_table(records: list[dict]) -> Table:
    rows = [[r["prim"], r["impl"], r["target"], r["op"], _fmt(r["bytes"] or None), _fmt(r["cycles"]),
             _fmt(r["cycles_per_byte"]), _fmt(r["code_bytes"]), _fmt(r["stack_bytes"]),
             _fmt(r.get("static_ram_bytes")), r["kat"], _ct_cell(r["prim"], r)]
            for r in records if not r.get("error")]
    return Table("Every measurement", ["primitive", "implementation", "target", "operation", "bytes", "cycles",
                                        "cycles/byte", "code bytes", "stack bytes", "static RAM bytes", "vectors",
                                        "constant time"], rows,
                 "Static RAM: the implementation's own .data and .bss in the image, held for the whole "
                 "program beside the stack (— in results files from before it was recorded).")


# ---------------------------------------------------------------------------------------------- plots
#
# Plot rules (checked by tests/test_report.py on every figure): no two text boxes overlap; every line
# series has its own colour-and-marker pair and is labelled directly at its end, outside the data; bars
# stand on linear axes from zero with their values written beside them; legends (where any) sit outside
# the axes. Sizes are for a 1400-px browser window: figures about 1000 px wide, text 8 pt or more.

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")
FIG_WIDTH = 9.0          # inches; at the report's 110 dpi about 1000 px
LABEL_PT = 8             # the smallest text in a figure


def series_style(n: int) -> tuple[str, str]:
    """The n-th series' (colour, marker): unique for the first 100 series, and neighbours differ in both."""
    return COLOURS[n % len(COLOURS)], MARKERS[(n + n // len(COLOURS)) % len(MARKERS)]


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def _thousands() -> Any:
    from matplotlib.ticker import FuncFormatter
    return FuncFormatter(lambda v, _: f"{v:,.0f}")


def _label_ends(ax: Any, ends: list[tuple[float, float, str, str]]) -> None:
    """Direct labels for line series: each (x, y, text, colour) at the right of the axes, outside the
    data, at its line's height where room allows; labels too close are spread apart (at least one line of
    text between baselines) and joined to their line's end by a thin leader."""
    if not ends:
        return
    fig = ax.figure
    ax.get_xlim(), ax.get_ylim()          # settle autoscaling before reading positions from the transforms
    height_in = ax.get_position().height * fig.get_figheight()
    gap = LABEL_PT * 1.6 / 72 / height_in                      # one text line and a little, in axes fraction
    to_axes = ax.transAxes.inverted()
    placed = sorted(((to_axes.transform(ax.transData.transform((x, y)))[1], x, y, text, colour)
                     for x, y, text, colour in ends), key=lambda e: e[0])
    ys = [e[0] for e in placed]
    for k in range(1, len(ys)):                                 # push up what sits too close
        ys[k] = max(ys[k], ys[k - 1] + gap)
    overflow = ys[-1] - max(1.0, placed[-1][0])
    if overflow > 0:                                            # then slide the stack down, keeping the gaps
        ys = [y - overflow for y in ys]
        for k in range(len(ys) - 2, -1, -1):
            ys[k] = min(ys[k], ys[k + 1] - gap)
    for (_, x, y, text, colour), ly in zip(placed, ys):
        ax.annotate(text, xy=(x, y), xycoords="data", xytext=(1.03, ly), textcoords="axes fraction",
                    fontsize=LABEL_PT, color=colour, va="center", ha="left",
                    arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.6, "alpha": 0.6,
                                "shrinkA": 1, "shrinkB": 3})


def _bars(ax: Any, labels: list[str], values: list[float], colours: list[str], unit: str) -> None:
    """Horizontal bars on a linear axis from zero, each with its value written beside it."""
    ys = list(range(len(labels)))
    ax.barh(ys, values, color=colours, height=0.7)
    ax.set_yticks(ys, labels, fontsize=LABEL_PT)
    top = max(values, default=1) or 1
    ax.set_xlim(0, top * 1.22)
    ax.set_ylim(len(ys) - 0.5, -0.5)
    for y, v in zip(ys, values):
        text = f"{v:,}" if isinstance(v, int) else (f"{v:,.2f}" if v < 100 else f"{v:,.0f}")
        ax.text(v + top * 0.01, y, text, va="center", ha="left", fontsize=LABEL_PT)
    ax.set_xlabel(unit, fontsize=9)
    ax.xaxis.set_major_formatter(_thousands())
    ax.tick_params(axis="x", labelsize=LABEL_PT)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_axisbelow(True)


def _family(prim: str) -> str:
    """'aria192' -> 'aria', 'pipo64_128' -> 'pipo': one colour per cipher family."""
    m = re.match(r"[a-z]+", prim)
    return m.group(0) if m else prim


def figures(records: list[dict]) -> dict[str, tuple[str, Any]]:
    """name -> (caption, matplotlib Figure) for the records; the caller closes the figures."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out: dict[str, tuple[str, Any]] = {}
    ok = [r for r in records if not r.get("error")]

    mul = [r for r in ok if r["prim"].startswith("mpmul") and r["op"] == "mul"]
    if mul:
        targets = [t for t in ("rv32", "armv7m", "avr") if any(r["target"] == t for r in mul)]
        impls = sorted({r["impl"] for r in mul})
        style = {impl: series_style(n) for n, impl in enumerate(impls)}
        fig, axes = plt.subplots(len(targets), 1, figsize=(FIG_WIDTH, 3.4 * len(targets)), squeeze=False)
        fig.subplots_adjust(right=0.8, hspace=0.55)      # first: the direct labels are placed for this layout
        for ax, target in zip(axes[:, 0], targets):
            series: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for r in mul:
                if r["target"] == target:
                    series[r["impl"]].append((int(r["prim"].removeprefix("mpmul")), r["cycles"]))
            ends = []
            for impl, pts in sorted(series.items()):
                pts.sort()
                colour, marker = style[impl]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, marker=marker, markersize=5,
                        linewidth=1.4, label=impl)
                ends.append((pts[-1][0], pts[-1][1], impl, colour))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            sizes = sorted({int(r["prim"].removeprefix("mpmul")) for r in mul})
            ax.set_xticks(sizes, [str(b) for b in sizes], fontsize=LABEL_PT)
            ax.minorticks_off()
            ax.tick_params(axis="y", labelsize=LABEL_PT)
            ax.set_xlabel("operand size (bits, log scale)", fontsize=9)
            ax.set_ylabel("cycles (log scale)", fontsize=9)
            ax.set_title(f"Multi-precision multiplication on {target}", fontsize=10)
            ax.grid(True, which="major", alpha=0.3)
            _label_ends(ax, ends)
        out["mpmul.png"] = ("Multiplication cycles against operand size (log-log), one panel per target, every "
                            "implementation labelled at its line's end", fig)

    ciphers = [r for r in ok if r["op"] == "encrypt" and r["cycles_per_byte"] is not None]
    if ciphers:
        targets = [t for t in ("rv32", "armv7m", "avr", "host") if any(r["target"] == t for r in ciphers)]
        counts = [sum(1 for r in ciphers if r["target"] == t) for t in targets]
        families = sorted({_family(r["prim"]) for r in ciphers})
        colour_of = {f: COLOURS[n % len(COLOURS)] for n, f in enumerate(families)}
        fig, axes = plt.subplots(len(targets), 1, figsize=(FIG_WIDTH, sum(0.24 * c + 1.1 for c in counts)),
                                 squeeze=False, gridspec_kw={"height_ratios": [0.24 * c + 0.3 for c in counts]})
        for ax, target in zip(axes[:, 0], targets):
            rs = sorted((r for r in ciphers if r["target"] == target),
                        key=lambda r: (r["prim"], r["cycles_per_byte"]))
            _bars(ax, [f"{r['prim']} {r['impl']}" for r in rs], [r["cycles_per_byte"] for r in rs],
                  [colour_of[_family(r["prim"])] for r in rs], "cycles/byte")
            ax.set_title(f"One-block encryption on {target} (cycles/byte, lower is faster)", fontsize=10)
        fig.tight_layout(h_pad=2.0)
        out["ciphers.png"] = ("Cycles/byte of one-block encryption per cipher and target (linear axes from zero, "
                              "one colour per cipher family)", fig)

    tj = [r for r in ok if r["prim"].startswith("tinyjambu") and r["target"] == "avr"]
    if tj:
        variants = sorted({(r["prim"], r["impl"]) for r in tj})
        fig, (ax, bx) = plt.subplots(2, 1, figsize=(FIG_WIDTH, 4.0 + 0.24 * len(variants) + 1.2),
                                     gridspec_kw={"height_ratios": [4.0, 0.24 * len(variants) + 0.3]})
        fig.subplots_adjust(right=0.76, hspace=0.45)     # first: the direct labels are placed for this layout
        ends = []
        for n, (prim, impl) in enumerate(variants):
            pts = sorted((r["bytes"], r["cycles"]) for r in tj if (r["prim"], r["impl"]) == (prim, impl)
                         and re.fullmatch(r"encrypt-\d+B", r["op"]))
            if not pts:
                continue
            colour, marker = series_style(n)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, marker=marker, markersize=5,
                    linewidth=1.4, label=f"{prim} {impl}")
            ends.append((pts[-1][0], pts[-1][1], f"{prim} {impl}", colour))
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
        ax.set_xlabel("message bytes (no associated data)", fontsize=9)
        ax.set_ylabel("cycles", fontsize=9)
        ax.tick_params(labelsize=LABEL_PT)
        ax.yaxis.set_major_formatter(_thousands())
        ax.grid(True, alpha=0.3)
        ax.set_title("TinyJAMBU encryption on ATmega128: cycles against message length", fontsize=10)
        _label_ends(ax, ends)
        perm = sorted((r for r in tj if r["op"] == "P_640"), key=lambda r: (r["prim"], r["cycles"]))
        if perm:
            _bars(bx, [f"{r['prim']} {r['impl']}" for r in perm], [r["cycles"] for r in perm],
                  [series_style(variants.index((r["prim"], r["impl"])))[0] for r in perm], "cycles")
            bx.set_title("TinyJAMBU permutation P_640 on ATmega128 (cycles, lower is faster)", fontsize=10)
        else:
            bx.set_visible(False)
        out["tinyjambu.png"] = ("TinyJAMBU variants on the AVR board: encryption against message length, and "
                                "the 640-step permutation", fig)
    return out


def plots(records: list[dict]) -> dict[str, tuple[str, bytes]]:
    """name -> (caption, PNG bytes)."""
    import matplotlib.pyplot as plt
    out: dict[str, tuple[str, bytes]] = {}
    for name, (caption, fig) in figures(records).items():
        out[name] = (caption, _png(fig))
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
    doc = read_results(results)
    prov, records = doc["provenance"], doc["records"]
    earlier = [f"- merged (`mcucrypt bench --merge`): {e.get('records_kept')} records kept from the run of "
               f"{e.get('date')}, commit `{str(e.get('git_commit'))[:12]}`" for e in doc.get("earlier_runs", [])]
    goals = goals_table(records)
    modes = modes_table(records)
    tables = glance_tables(records) + signature_tables(records) + ([modes] if modes else []) + \
        paper_tables(records) + ([goals] if goals else []) + [cross_target_table(records), all_records_table(records)]
    pngs = plots(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (_, png) in pngs.items():
        (out_dir / name).write_bytes(png)
    errors = [r for r in records if r.get("error")]

    md = ["# mcucrypt results", "",
          "Every figure below was measured by `mcucrypt bench` on the virtual boards (cycle counts are "
          "deterministic); the papers' figures are beside ours where a paper published one. "
          f"Commit `{str(prov.get('git_commit'))[:12]}`, {prov.get('date')}; full provenance at the end.", ""]
    if errors:
        md += ["## Failed jobs", ""] + [f"- {r['prim']} {r['impl']} {r['target']}: {r['error']}" for r in errors] + [""]
    md += ["## Tables", ""] + [t.markdown() for t in tables]
    md += ["## Plots", ""] + [f"![{cap}]({name})\n" for name, (cap, _) in pngs.items()]
    md += ["## Provenance", "", *_provenance_lines(prov), *earlier, ""]
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md))

    imgs = "".join(
        f"<figure><img alt='{html.escape(cap)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
        f"<figcaption>{inline_html(cap)}</figcaption></figure>" for name, (cap, png) in pngs.items())
    prov_html = "".join(f"<li>{inline_html(l.strip()[2:] if l.startswith('- ') else l.strip())}</li>"
                        for l in _provenance_lines(prov) + earlier)
    err_html = ("<h2>Failed jobs</h2><ul>" + "".join(
        f"<li>{html.escape(r['prim'])} {html.escape(r['impl'])} {html.escape(r['target'])}: "
        f"{inline_html(r['error'])}</li>" for r in errors) + "</ul>") if errors else ""
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

COMPARED_METRICS = ("cycles", "code_bytes", "stack_bytes")
ALL_OPS = "(all ops)"      # code bytes belong to an implementation's image, not to one operation


@dataclass
class Change:
    key: tuple[str, ...]     # (prim, impl, target, op), or (prim, target, op) comparing two implementations
    metric: str              # one of COMPARED_METRICS
    old: int
    new: int

    @property
    def ratio(self) -> float:
        if self.old == self.new:
            return 1.0
        return self.new / self.old if self.old else math.inf


@dataclass
class Comparison:
    changes: list[Change]                 # every compared figure of the rows present on both sides
    only_old: list[tuple[str, ...]]       # rows only on the old side
    only_new: list[tuple[str, ...]]


def _rows(path: Path, records: list[dict], impl: str | None) -> dict[tuple[str, ...], dict]:
    if impl is None:
        return _index(records)
    rows = {(r["prim"], r["target"], r["op"]): r for r in records if r["impl"] == impl and not r.get("error")}
    if not rows:
        known = sorted({r["impl"] for r in records})
        raise ValueError(f"{path}: no records of implementation {impl!r} (it has: {', '.join(known)})")
    return rows


def compare(old: Path, new: Path, *, old_impl: str | None = None, new_impl: str | None = None) -> Comparison:
    """Cycles, code bytes and stack bytes of every row on both sides. Rows are keyed by (prim, impl,
    target, op); with ``old_impl``/``new_impl``, the two implementations' rows (of one file or two) are
    matched by (prim, target, op). Code bytes are compared once per implementation image."""
    _, a = load_results(old)
    _, b = load_results(new)
    ia, ib = _rows(old, a, old_impl), _rows(new, b, new_impl)
    changes: list[Change] = []
    images: set[tuple[str, ...]] = set()
    for k in ia:
        if k not in ib:
            continue
        for metric in COMPARED_METRICS:
            key = k
            if metric == "code_bytes":
                key = k[:-1] + (ALL_OPS,)
                if key in images:
                    continue
                images.add(key)
            changes.append(Change(key, metric, ia[k][metric], ib[k][metric]))
    return Comparison(changes, sorted(set(ia) - set(ib)), sorted(set(ib) - set(ia)))
