# SPDX-License-Identifier: MIT
"""What the rv32 and armv7m taint engines share: labels, shadow memory, seeding from a call's secret
arguments, and the findings list.

A taint is a bit mask over the call's labels (bit i = the i-th secret parameter of the ``TaintSpec``).
Registers carry one mask each (word granularity), memory one mask per byte (``ShadowMemory``: a dict
holding only the tainted bytes). The engines update the shadow state from a Python hook that runs before
each instruction (see taint_rv32.py, taint_armv7m.py and docs/constant-time.md for the rules).

Two engines: the Python one (the reference: its rules are the specification) and, on rv32 and armv7m, the
same rules in C (taint_native.c), registered with Unicorn as native hooks. ``MCUCRYPT_TAINT_ENGINE`` (``c``, the
default, or ``python``; ``mcucrypt ct --engine``) chooses; a board without a C engine uses Python.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import unicorn

from .base import Arg, Board, BoardError, Buf, Declassified, Int, TaintFinding, TaintSpec
from .common import Marshalled, PlacedBuf

# Finding kinds beyond base.TAINT_* (the rv32/armv7m engines' own; ct.CLASS_OF_TAINT names their class).
TAINT_CONDITIONAL = "conditional-execution"   # an instruction whose executed and skipped times differ,
#                                               under a condition on secret flags (Thumb IT blocks)
TAINT_IO = "secret-to-io"                     # a secret written to an I/O register or CSR that is not scratch


ENGINE_ENV = "MCUCRYPT_TAINT_ENGINE"
ENGINES = ("c", "python")
NATIVE_SOURCE = Path(__file__).with_name("taint_native.c")


def engine_choice() -> str:
    """The taint engine the environment asks for: 'c' (default) or 'python' (the reference)."""
    name = os.environ.get(ENGINE_ENV, "") or "c"
    if name not in ENGINES:
        raise BoardError(f"{ENGINE_ENV}={name!r}: the taint engines are {', '.join(ENGINES)}")
    return name


@lru_cache(maxsize=None)
def native_library() -> ctypes.CDLL:
    """taint_native.c compiled with the host compiler against Unicorn's headers (once per source and
    compiler, cached in build/host/; a parallel compile never exposes a half-written library)."""
    from ..build import BUILD_DIR
    from ..targets import get_target

    cc = get_target("host").cc
    include = Path(unicorn.__file__).parent / "include"
    source = NATIVE_SOURCE.read_bytes()
    key = hashlib.sha256(source + str(include).encode() + cc.encode()).hexdigest()[:16]
    out = BUILD_DIR / "host" / f"taint-native-{key}.so"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", f"-I{include}",
                               str(NATIVE_SOURCE), "-o", str(tmp)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise BoardError(f"compiling {NATIVE_SOURCE.name} failed:\n{proc.stderr.strip()}")
        os.replace(tmp, out)
    return ctypes.CDLL(str(out))


class ShadowMemory:
    """Byte-granular taint of memory: address -> label mask (absent = untainted)."""

    __slots__ = ("bytes",)

    def __init__(self) -> None:
        self.bytes: dict[int, int] = {}

    def get(self, address: int, size: int) -> int:
        b = self.bytes
        if not b:
            return 0
        mask = 0
        for a in range(address, address + size):
            mask |= b.get(a, 0)
        return mask

    def set(self, address: int, size: int, mask: int) -> None:
        b = self.bytes
        if mask:
            for a in range(address, address + size):
                b[a] = mask
        elif b:
            for a in range(address, address + size):
                b.pop(a, None)


class TaintCollector:
    """Labels of a call and its findings (the first per (pc, kind))."""

    def __init__(self, board: Board, spec: TaintSpec):
        self.board = board
        self.spec = spec
        self.labels: list[str] = []
        self.arg_bits: dict[int, int] = {}
        for index, label in sorted(spec.secret_args.items()):
            if label not in self.labels:
                self.labels.append(label)
            self.arg_bits[index] = 1 << self.labels.index(label)
        self.findings: dict[tuple[int, str], TaintFinding] = {}
        self.declassified: list[Declassified] = []

    def declassify(self, mask: int, value: int, caller: int) -> None:
        """mcu_declassify's entry: record its argument when tainted (the engine then clears the taint)."""
        if mask:
            self.declassified.append(Declassified(value & 0xFFFF_FFFF, self.names(mask), caller))

    def names(self, mask: int) -> tuple[str, ...]:
        return tuple(name for i, name in enumerate(self.labels) if mask >> i & 1)

    def report(self, kind: str, pc: int, mask: int, detail: str = "") -> None:
        key = (pc, kind)
        if key not in self.findings:
            self.findings[key] = TaintFinding(kind, pc, self.board.symbol_at(pc), self.board.disassemble(pc),
                                              self.names(mask), detail)

    def result(self) -> list[TaintFinding]:
        return list(self.findings.values())


def seed(collector: TaintCollector, args: Sequence[Arg], placed: Sequence[PlacedBuf],
         marshal: Callable[[Sequence[int | Int]], Marshalled], sp: int, memory: ShadowMemory,
         registers: list[int]) -> None:
    """Taint the secret arguments' bytes (``Buf``) or registers and stack slots (scalars).

    A scalar's place is found by marshalling the argument list up to it and up to the one before it and
    comparing: the registers it added and the stack bytes it appended (its slot, alignment included)."""
    by_index = {p.index: p for p in placed}
    scalars: list[int | Int] = [by_index[i].address if isinstance(a, Buf) else a for i, a in enumerate(args)]
    for index, bit in collector.arg_bits.items():
        if index >= len(args):
            raise ValueError(f"TaintSpec names argument {index}, the call has {len(args)}")
        if isinstance(args[index], Buf):
            p = by_index[index]
            for start, end in collector.spec.secret_ranges(index, len(p.buf.data)):
                memory.set(p.address + start, end - start, bit)
            continue
        before, upto = marshal(scalars[:index]), marshal(scalars[:index + 1])
        for reg in set(upto.registers) - set(before.registers):
            registers[reg] |= bit
        for offset in range(len(before.stack), len(upto.stack)):
            memory.set(sp + offset, 1, memory.get(sp + offset, 1) | bit)
