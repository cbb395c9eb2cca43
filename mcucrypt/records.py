# SPDX-License-Identifier: MIT
"""Results files on the way in: one place that reads and checks them, and checks output paths up front.

Every command that takes records from a file (``compare``, ``report``, ``bench --merge``) reads it with
``read_results``; ``ingest`` checks each record of a serial log with ``check_record``. A record's figures
(cycles, sizes, counts) must be finite non-negative integers, its keys (prim, impl, target, op)
non-empty strings, its schema one this code knows; JSON's non-standard ``NaN``/``Infinity`` are refused
(``1e400`` parses as infinity and is refused as a figure). Every error names the file, and the record by
its index and key, in one line: ``RecordsError`` (a ``ValueError``) carries it to the CLI's exit 2.

``check_out_file`` and ``check_out_dir`` check an output path before any work starts: a folder where a
file goes, a file where a folder goes (or on the way to it), or a place nothing can be written (/proc,
a read-only or missing parent) is a one-line error then, not a traceback after the work.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

# Version of the results file (top level and every record). 1: files without the field; 2: adds
# schema_version and earlier_runs (what a --merge kept from the file it merged into).
SCHEMA_VERSION = 2
KNOWN_SCHEMAS = (1, 2)

KEY_FIELDS = ("prim", "impl", "target", "op")
# Figures every record carries: finite non-negative integers.
REQUIRED_COUNTS = ("bytes", "cycles", "code_bytes", "stack_bytes")
# Figures a record may carry, or leave null: when present, finite non-negative integers.
OPTIONAL_COUNTS = ("instructions", "cycles_warm", "flash_data_reads", "cycles_min", "cycles_max",
                   "overhead_cycles", "runs", "clock_hz", "wait_states", "static_ram_bytes", "ram_bytes")
OPTIONAL_NUMBERS = ("cycles_per_byte",)   # finite non-negative numbers (a ratio), or null


class RecordsError(ValueError):
    """A results file (or a record in one) this code must not take in; the text names the file."""


def _refuse_constant(name: str) -> Any:
    raise RecordsError(f"{name} is not a JSON number (a non-standard literal)")


def loads(text: str) -> Any:
    """Strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's json accepts) are refused."""
    return json.loads(text, parse_constant=_refuse_constant)


def dumps(doc: Any) -> str:
    """The results file's text: strict JSON (a non-finite number is a ValueError, never ``Infinity``)."""
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _schema(value: Any, where: str) -> int:
    if not _is_count(value) or value not in KNOWN_SCHEMAS:
        newer = _is_count(value) and value > SCHEMA_VERSION
        raise RecordsError(f"{where}: results schema {_show(value)} is "
                           + ("newer than this mcucrypt reads: update mcucrypt" if newer else "unknown")
                           + f" (known: {', '.join(map(str, KNOWN_SCHEMAS))})")
    return value


def check_record(rec: Any, where: str) -> dict:
    """``rec`` if it is a well-formed record, else RecordsError naming ``where`` (file and record)."""
    if not isinstance(rec, dict):
        raise RecordsError(f"{where}: a record is a JSON object, not {_show(rec)}")
    keys = [rec.get(k) for k in KEY_FIELDS]
    if all(isinstance(k, str) and k for k in keys):
        where += f" ({' '.join(keys)})"
    for k in KEY_FIELDS:
        if not (isinstance(rec.get(k), str) and rec[k]):
            raise RecordsError(f"{where}: {k} is {_show(rec.get(k)) if k in rec else 'missing'}, "
                               "not a non-empty string")
    if "schema_version" in rec:
        _schema(rec["schema_version"], where)
    for k in REQUIRED_COUNTS + OPTIONAL_COUNTS:
        if k not in rec and k in OPTIONAL_COUNTS:
            continue
        v = rec.get(k)
        if v is None and k in OPTIONAL_COUNTS:
            continue
        if not _is_count(v):
            raise RecordsError(f"{where}: {k} is {_show(v) if k in rec else 'missing'}, "
                               "not a finite non-negative integer")
    for k in OPTIONAL_NUMBERS:
        v = rec.get(k)
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                  and math.isfinite(v) and v >= 0):
            raise RecordsError(f"{where}: {k} is {_show(v)}, not a finite non-negative number")
    return rec


def check_results(doc: Any, path: Path | str) -> dict:
    """``doc`` if it is an mcucrypt results document of a known schema whose every record is well formed."""
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list) \
            or not isinstance(doc.get("provenance"), dict):
        raise RecordsError(f"{path}: not an mcucrypt results file (a JSON object with a provenance object "
                           "and a records list)")
    _schema(doc.get("schema_version", 1), str(path))
    for n, rec in enumerate(doc["records"]):
        check_record(rec, f"{path}: record {n}")
    return doc


def read_results(path: Path | str) -> dict:
    """The results file at ``path``, checked (``check_results``); any problem is one RecordsError line."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except IsADirectoryError:
        raise RecordsError(f"{path}: is a folder, not a results file") from None
    except FileNotFoundError:
        raise RecordsError(f"{path}: no such results file") from None
    except OSError as e:
        raise RecordsError(f"{path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise RecordsError(f"{path}: not a results file (not UTF-8 text: {e.reason} at byte {e.start})") from None
    try:
        doc = loads(text)
    except json.JSONDecodeError as e:
        raise RecordsError(f"{path}: not JSON ({e})") from None
    except RecordsError as e:
        raise RecordsError(f"{path}: not JSON ({e})") from None
    except RecursionError:
        raise RecordsError(f"{path}: not a results file (JSON nested too deeply)") from None
    return check_results(doc, path)


# ------------------------------------------------------------------------------------- output paths

class OutputPathError(ValueError):
    """An output path nothing can be written to (the text names it and the option)."""


def _existing_ancestor(path: Path) -> Path:
    for p in (path, *path.parents):
        if os.path.lexists(p):
            return p
    return Path(".")


def _probe(folder: Path, shown: str) -> None:
    """Whether a file can be created in ``folder`` or, when it does not exist yet, in the nearest folder
    above it that does (where it would be created): a file in the way, a read-only place or /proc stops
    here, before the work. Nothing is left behind: the scratch file is removed, no folder is created."""
    anc = _existing_ancestor(folder)
    if not anc.is_dir():
        raise OutputPathError(f"{shown}: {anc} is a file, not a folder")
    try:
        fd, scratch = tempfile.mkstemp(prefix=".mcucrypt-probe-", dir=anc)
        os.close(fd)
        os.unlink(scratch)
    except OSError as e:
        raise OutputPathError(f"{shown}: cannot write in {anc} ({e.strerror or e})") from None


def check_out_file(path: Path | str, option: str = "--out") -> Path:
    """``path`` as a file to be written: not a folder, its folder creatable and writable."""
    p = Path(path)
    shown = f"{option} {path}"
    if p.is_dir():
        raise OutputPathError(f"{shown}: is a folder; name a file")
    if os.path.lexists(p) and not p.is_file():
        raise OutputPathError(f"{shown}: is not a regular file")
    _probe(p.parent, shown)
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputPathError(f"{shown}: the file is not writable")
    return p


def check_out_dir(path: Path | str, option: str = "--out") -> Path:
    """``path`` as a folder to be written into: not a file, and writable (or creatable where it would be)."""
    p = Path(path)
    shown = f"{option} {path}"
    if os.path.lexists(p) and not p.is_dir():
        raise OutputPathError(f"{shown}: is a file, not a folder")
    _probe(p, shown)
    return p
