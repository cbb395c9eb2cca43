# SPDX-License-Identifier: MIT
"""Path coverage of the constant-time checker: which instructions of an implementation's own functions
the secret runs of ``mcucrypt ct`` executed.

A taint run finds every leak on the path it takes, and nothing off it: code the cases never reach is not
checked. The own instructions are those of the ``.text*`` input sections the linker kept from the
implementation's sources (the linker map names the object each byte came from; the board's start-up,
libc stand-ins, ``mcu_declassify``/``mcu_wipe`` and libgcc are not the implementation's), listed by the
target's objdump (data in code, such as Thumb literal pools, shows as ``.word`` and is left out, and so
are NOPs and RISC-V's all-zero fill, which only pad). Code a run leaves unexecuted must carry a reason in META.yml's
``ct_unreached`` (symbol -> reason, ``{id}`` and ``{impl}`` substituted); tests/test_catalog.py fails a
constant-time claim with undocumented unreached code.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from .build import _MAP_INPUT, Image
from .targets import get_target

_FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_PADDING = {"nop", "c.nop"}


def _zero_fill(mnemonic: str, encoding: str) -> bool:
    """RISC-V's all-zero halfword (the defined illegal instruction, shown as ``unimp``) is the zero fill
    the assembler leaves at a section's end to align it, not code."""
    return mnemonic == "unimp" and set(encoding.split()) <= {"0000", "00000000"}


@dataclass
class Unreached:
    function: str
    instructions: int          # own instructions of the function no secret run executed
    first: int                 # the lowest such address
    reason: str | None         # META.yml ct_unreached's note, None when undocumented


@dataclass
class Coverage:
    instructions: int          # own instructions of the image
    executed: int              # of them, executed by the secret runs
    unreached: list[Unreached] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        return self.executed / self.instructions if self.instructions else 1.0

    def undocumented(self) -> list[Unreached]:
        return [u for u in self.unreached if u.reason is None]

    def to_json(self) -> dict:
        return {**asdict(self), "fraction": round(self.fraction, 4)}

    def summary(self) -> str:
        head = f"coverage {self.executed}/{self.instructions} own instructions ({100 * self.fraction:.1f}%)"
        lines = [f"  unreached: {u.function}: {u.instructions} instruction{'s' * (u.instructions != 1)} "
                 f"from 0x{u.first:x} — {u.reason or 'NO REASON in META.yml ct_unreached'}"
                 for u in self.unreached]
        return "\n".join([head, *lines])


def own_code_ranges(image: Image, own_sources: tuple[Path, ...]) -> list[tuple[int, int, str]]:
    """[start, end) and the object of every .text* input section the linker kept from ``own_sources``."""
    stems = {Path(s).stem for s in own_sources}
    ranges = []
    section: str | None = None
    for line in image.map_path.read_text(errors="replace").splitlines():
        if line.startswith("Discarded input sections"):
            section = "discarded"
            continue
        if line.startswith(("Memory Configuration", "Linker script and memory map")):
            section = None
            continue
        if section == "discarded":
            continue
        m = _MAP_INPUT.match(line)
        if not m:
            stripped = line.strip()
            if stripped.startswith(".") and " " not in stripped:
                section = stripped
            continue
        if m.group(1):
            section = m.group(1)
        obj = Path(m.group(4).split("(")[0])
        start, size = int(m.group(2), 16), int(m.group(3), 16)
        if section and section.startswith(".text") and size and obj.suffix == ".o" and \
                obj.parent.name.startswith("obj-") and obj.stem in stems:
            ranges.append((start, start + size, obj.name))
    return ranges


@lru_cache(maxsize=64)
def own_instructions(image: Image, own_sources: tuple[Path, ...]) -> dict[int, str]:
    """Address -> function symbol of every own instruction of ``image`` (padding and data left out)."""
    ranges = own_code_ranges(image, own_sources)
    if not ranges:
        return {}
    objdump = get_target(image.target).cc.removesuffix("gcc") + "objdump"
    text = subprocess.run([objdump, "-d", str(image.path)], capture_output=True, text=True, check=True).stdout
    out: dict[int, str] = {}
    function, labelled = "?", -1
    for line in text.splitlines():
        f = _FUNC.match(line)
        if f:
            function, labelled = f.group(2), int(f.group(1), 16)
            continue
        parts = line.split("\t")      # "  addr:", the bytes, the mnemonic, the operands
        if len(parts) < 3 or not parts[0].strip().endswith(":") or not parts[2].strip():
            continue
        address, mnemonic = int(parts[0].strip()[:-1], 16), parts[2].split()[0]
        if mnemonic.startswith(".") or mnemonic in _PADDING or _zero_fill(mnemonic, parts[1]):
            continue
        where = next(((a, obj) for a, b, obj in ranges if a <= address < b), None)
        if where is not None:
            # code before any symbol of its section (assembly under local labels only): named by its object
            out[address] = function if labelled >= where[0] else f"{where[1]}:.text"
    return out


def measure(image: Image, own_sources: tuple[Path, ...], executed: set[int],
            notes: dict[str, str]) -> Coverage:
    """The coverage of ``executed`` (instruction addresses) over the image's own instructions; ``notes``
    (symbol -> reason) documents the functions whose unexecuted code is checked otherwise."""
    own = own_instructions(image, own_sources)
    missed: dict[str, list[int]] = {}
    for address, function in own.items():
        if address not in executed:
            missed.setdefault(function, []).append(address)
    unreached = [Unreached(fn, len(addrs), min(addrs), notes.get(fn)) for fn, addrs in sorted(missed.items())]
    return Coverage(len(own), len(own) - sum(u.instructions for u in unreached), unreached)
