# SPDX-License-Identifier: MIT
"""`mcucrypt ingest LOG --board B`: a benchmark image's serial log -> a bench results file.

The log is what the image printed on its UART, captured by any terminal program; lines that are not the
image's JSON (a boot loader's banner, a line cut by a reset) are skipped and counted. The result is an
ordinary results file (``{"provenance": ..., "records": [...]}``, records with the bench record's fields
plus ``board``, ``clock_hz``, ``wait_states``, ``cycles_min``, ``cycles_max``, ``overhead_cycles``,
``runs``), so `mcucrypt compare results/bench.json results/silicon-B.json` lines virtual board and silicon
up per (prim, impl, target, op).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..kinds.base import UsageError
from ..records import SCHEMA_VERSION, RecordsError, check_record, dumps
from .boards import get_board

SOURCES = ("silicon", "qemu", "virtual")


class IngestError(UsageError):
    pass


@dataclass
class Ingested:
    header: dict
    checks: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    summary: dict | None = None
    skipped: int = 0

    @property
    def failed_checks(self) -> list[dict]:
        return [c for c in self.checks if c.get("vectors") != "pass"]


def parse_log(text: str, board: str) -> Ingested:
    try:
        get_board(board)
    except KeyError as e:
        raise IngestError(str(e).strip("'\"")) from None
    header: dict | None = None
    out: Ingested | None = None
    skipped = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().strip("\x00")
        start = line.find("{")
        if start < 0:
            if line:
                skipped += 1
            continue
        try:
            obj = json.loads(line[start:])
        except json.JSONDecodeError:
            skipped += 1
            continue
        if not isinstance(obj, dict):
            skipped += 1
            continue
        if obj.get("mcucrypt") == "silicon":
            if obj.get("board") != board:
                raise IngestError(f"the log is from board {obj.get('board')!r}, not {board!r}")
            header = obj
            out = Ingested(header)      # a reset starts the run again: keep the last complete one
            continue
        if out is None:
            skipped += 1
            continue
        if "vectors" in obj:
            out.checks.append(obj)
        elif "op" in obj and "cycles" in obj:
            if obj.get("board") != board:
                raise IngestError(f"line {lineno}: record for board {obj.get('board')!r} in a {board} log")
            try:
                out.records.append(check_record(obj, f"line {lineno}"))
            except RecordsError as e:
                raise IngestError(str(e)) from None
        elif "summary" in obj:
            out.summary = obj
        else:
            skipped += 1
    if out is None or header is None:
        raise IngestError("no mcucrypt image header in the log (the line starting "
                          "{\"mcucrypt\":\"silicon\"): was the board reset while capturing?")
    if out.summary is None:
        raise IngestError(f"the log ends before the image's summary line ({len(out.records)} records so far): "
                          "capture until the line starting {\"summary\"")
    out.skipped = skipped
    for r in out.records:
        r["cycles_per_byte"] = round(r["cycles"] / r["bytes"], 2) if r.get("bytes") else None
    return out


def ingest(log: Path, board: str, source: str = "silicon") -> tuple[dict, Ingested]:
    if source not in SOURCES:
        raise IngestError(f"--source must be one of {', '.join(SOURCES)}")
    try:
        text = Path(log).read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        raise IngestError(f"cannot read {log}: {e.strerror}") from None
    try:
        got = parse_log(text, board)
    except IngestError as e:
        raise IngestError(f"{log}: {e}") from None
    provenance = {
        "source": source,
        "board": board,
        "clock_hz": got.header.get("clock_hz"),
        "wait_states": got.header.get("wait_states"),
        "runs": got.header.get("runs"),
        "selection": got.header.get("selection"),
        "log": str(log),
        "ingested": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "vector_checks": [{k: c.get(k) for k in ("prim", "impl", "vectors", "checked", "of")} for c in got.checks],
        "cycles_note": "QEMU does not count cycles: its timing lines are present, not meaningful"
                       if source == "qemu" else "median of the image's warm runs, harness overhead subtracted",
    }
    return {"schema_version": SCHEMA_VERSION, "provenance": provenance, "records": got.records}, got


def write(doc: dict, out: Path) -> None:
    """Write the results file (strict JSON) through a temporary file beside it, renamed into place."""
    text = dumps(doc)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, out)
    except OSError as e:
        raise IngestError(f"cannot write {out}: {e.strerror or e}") from None
