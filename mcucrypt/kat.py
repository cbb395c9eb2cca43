# SPDX-License-Identifier: MIT
"""Test-vector files: blank-line separated records of `Name = value` lines, '#' comments.

This is the NIST LWC KAT layout (Count/Key/Nonce/PT/AD/CT) and the one our own vector files use for the
other primitives. Every file begins with a '# Source:' line naming where its vectors were published."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Vector:
    file: Path
    line: int                   # line of the record's first field, for error messages
    fields: dict[str, str]

    def hex(self, name: str) -> bytes:
        return bytes.fromhex(self.fields[name])

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.fields.get(name, default)

    @property
    def where(self) -> str:
        return f"{self.file.name}:{self.line}"


def read_vectors(path: Path) -> list[Vector]:
    vectors: list[Vector] = []
    fields: dict[str, str] = {}
    start = 0
    lines = path.read_text().splitlines()
    if not any(l.startswith("# Source:") for l in lines[:5]):
        raise ValueError(f"{path}: vector files must name their source in a '# Source:' line at the top")
    for n, line in enumerate(lines + [""], 1):
        line = line.strip()
        if line.startswith("#"):
            continue
        if not line:
            if fields:
                vectors.append(Vector(path, start, fields))
                fields = {}
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}:{n}: expected 'Name = value'")
        if not fields:
            start = n
        fields[name.strip()] = value.strip()
    return vectors
