# SPDX-License-Identifier: MIT
"""What every kind of primitive (block cipher, AEAD, multiplication, ...) tells the harness.

A kind driver knows the API shape of its kind: how to run one official vector, which operations to
benchmark and over how many bytes, how to make inputs for the constant-time check, how to compare with
the independent Python model, and what `mcucrypt run` means for it. Implementations never need harness
code: they only fill META.yml.
"""
from __future__ import annotations

import abc
import argparse
import importlib
import random
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Mapping

from ..boards.base import Arg, CallResult
from ..catalog import Primitive
from ..firmware import Firmware
from ..kat import Vector, read_vectors


class Mismatch(Exception):
    """An implementation disagreed with a vector or with the model."""


class UsageError(Exception):
    """Bad input from the user (wrong lengths, missing options); the CLI prints it and exits 2."""


@dataclass(frozen=True)
class BenchOp:
    op: str              # e.g. 'encrypt', 'keyschedule', 'encrypt-128B'
    bytes: int           # bytes processed (0 where cycles/byte means nothing)
    result: CallResult


@dataclass(frozen=True)
class CtCase:
    """One call for the constant-time check: the function and its named arguments; ``public_bytes``
    names byte ranges [start, end) of a secret buffer argument that hold public values (they stay
    untainted in taint mode; trace-mode draws must keep them fixed)."""
    op: str
    args: Mapping[str, Arg]
    public_bytes: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class PublicResult:
    """A secret-derived value the kind's standard makes public, which an operation may therefore pass to
    ``mcu_declassify`` (the taint checker's only declassification). The checker holds every tainted
    argument of mcu_declassify to it (ct.py): at most ``per_call`` of them in one call of the operation,
    each a function of the outcome alone (the same value whatever the secrets, for the same outcome)."""
    what: str            # e.g. 'the accept/reject verdict'
    per_call: int = 1
    # A rejection loop's verdicts (ML-DSA signing, FIPS 204 section 3.4): one per attempt, any number of
    # them in a call; each is 1 (try again) but the last, 0 (accept). How many attempts a call takes is
    # public by the standard, so the checker holds the values to that shape instead of to equality
    # across secrets (ct.py).
    rejection_loop: bool = False
    # A public part of a key whose value a secret decides (ML-DSA's rho, FIPS 204: the public key's first
    # 32 bytes, derived from the secret seed in keygen, read from the secret key in sign): (argument, start,
    # end). The call's first (end - start) / 4 declassified values must be those bytes of that argument,
    # as little-endian 32-bit words, as the call leaves them (the pk keygen writes, the sk sign reads);
    # ``per_call`` / ``rejection_loop`` hold the values after them.
    key_bytes: tuple[str, int, int] | None = None


def fix_public_bytes(ctx: bytearray, spec: list[list]) -> tuple[tuple[int, int], ...]:
    """Write each ``[start, hex]`` of ``spec`` (an instance's ``ctx_public``: a context's public bytes, such
    as its fill or length counter) into ``ctx``, and return their ranges [start, end) for CtCase."""
    ranges = []
    for start, value in spec:
        fixed = bytes.fromhex(value)
        ctx[start:start + len(fixed)] = fixed
        ranges.append((start, start + len(fixed)))
    return tuple(ranges)


class KindDriver(abc.ABC):
    kind: str = "?"
    # The constant-time policy of the kind, from its standard (catalog.py and ct.py enforce it):
    # ``secret``: op -> the parameters that are secret in every implementation (META.yml may add secrets,
    # never drop one of these); ``ct_ops``: the ops the constant-time cases call; ``public_ops``: ops with
    # no secret input (nothing to check); every op an implementation declares is one of the two or the
    # catalog refuses it. ``public_results``: op -> the value its standard makes public (the only tainted
    # argument mcu_declassify may receive in that op; anywhere else, a declassification is a finding).
    secret: Mapping[str, tuple[str, ...]] = {}
    ct_ops: frozenset[str] = frozenset()
    public_ops: frozenset[str] = frozenset()
    public_results: Mapping[str, PublicResult] = {}
    run_options: tuple[str, ...] = ()   # the `mcucrypt run` inputs this kind reads (others are refused)
    default_trials: int = 100   # random differential cases per (id, implementation, target) in `make test`
    public_key: bool = False    # signatures, KEMs: the default test run's cut for them (in_default_run)
    # `make test` on a board (tests/test_catalog.py, without MCUCRYPT_FULL=1): the differential's cases
    # (None: default_trials; the families' own tests keep their length sweeps) and at most this many official
    # vectors per job (``representative``: the ends, the first of every class, evenly spaced others).
    # The bench's KAT verdict runs every vector on every board; the host runs everything.
    board_test_trials: int | None = None
    board_test_vectors: int = 32
    # random differential cases in the host sanitizer build (mcucrypt/sanitize.py, ASan + UBSan)
    sanitizer_trials: int = 50
    # Boards whose constant-time run of this kind's cases takes minutes (ML-KEM under the M3's Python taint
    # engine): tests/test_catalog.py checks the claim there with MCUCRYPT_FULL=1 only (`mcucrypt ct` always).
    ct_full_only_targets: frozenset[str] = frozenset()

    def in_default_run(self, prim: Primitive, prim_id: str, impl: str, target: str, test: str) -> bool:
        """Whether tests/test_catalog.py runs this job's ``test`` ("vectors", "model": the differential
        test, "ct") without MCUCRYPT_FULL=1 (otherwise it is not collected: `make test` keeps a
        representative subset of the slow kinds, the whole catalog runs with MCUCRYPT_FULL=1). Every kind:
        an instance's ``default_test_targets`` (META.yml) names the boards its id runs on by default
        (ML-DSA-65 on the M3 board, ML-DSA-87 on the host). A public-key kind (``public_key``): an operation is
        millions of instructions on a board, so by default the boards run the official vectors and the
        constant-time check through each core's own implementation (the same scheme code over the core's
        assembly); the portable C (`ref`) and the random differential test run on the host, and on the
        boards with MCUCRYPT_FULL=1."""
        if target == "host":
            return True
        targets = prim.instances[prim_id].get("default_test_targets")
        if targets is not None and target not in targets:
            return False
        return not self.public_key or (impl != "ref" and test != "model")

    def ct_full_only(self, prim_id: str, impl: str, target: str) -> bool:
        """Whether tests/test_catalog.py checks this job's constant-time claim with MCUCRYPT_FULL=1 only
        (the default run keeps a representative subset of a slow kind; `mcucrypt ct` runs any job)."""
        return target in self.ct_full_only_targets

    def vectors(self, prim: Primitive, prim_id: str) -> list[Vector]:
        """Vectors for one primitive id: records whose `Id` field names it, or all records of a file
        listed under that id's own `vectors` in META.yml."""
        out: list[Vector] = []
        for path in prim.vectors:
            out += [v for v in read_vectors(path) if v.get("Id") == prim_id]
        for rel in prim.instances[prim_id].get("vectors", []):
            out += read_vectors(prim.directory / rel)
        return out

    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        """The vectors behind the bench's KAT verdict (`pass` in every record): every official vector
        of ``fw``'s id, unless the kind documents a subset for the board (X25519: kinds/dh.py)."""
        return self.vectors(fw.impl.primitive, fw.prim_id)

    def board_subset(self, fw: Firmware, message_field: str) -> list[Vector]:
        """``kat_vectors``, cut on a board for the test suite when the instance sets
        ``board_kat_full_bytes``: every vector whose ``message_field`` is at most that many bytes long and
        every 8th of the longer ones (a whole CAVP file of long messages costs minutes on the AVR)."""
        vectors = self.kat_vectors(fw)
        full = fw.params.get("board_kat_full_bytes")
        if full is None or fw.target == "host":
            return vectors
        return [v for i, v in enumerate(vectors) if len(v.hex(message_field)) <= full or i % 8 == 0]

    def default_selection(self, fw: Firmware) -> list[Vector]:
        """What ``check_vectors(fw)`` runs when given no list: ``kat_vectors``, or the kind's own cut
        for the boards (aead, hash: ``board_subset``)."""
        return self.kat_vectors(fw)

    def check_vectors(self, fw: Firmware, vectors: list[Vector] | None = None) -> int:
        """Run every official vector of ``fw``'s id (or ``vectors``); raise Mismatch on the first
        disagreement; return how many ran."""
        if vectors is None:
            vectors = self.default_selection(fw)
        for v in vectors:
            self.check_vector(fw, v)
        return len(vectors)

    @staticmethod
    def model(prim: Primitive) -> ModuleType:
        if prim.model is None:
            raise Mismatch(f"{prim.name} has no independent model to compare with")
        return importlib.import_module(prim.model)

    @abc.abstractmethod
    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        """Raise Mismatch when ``fw`` disagrees with ``vec``."""

    @abc.abstractmethod
    def bench(self, fw: Firmware) -> list[BenchOp]:
        """Run every operation once on fixed inputs and return what each cost."""

    @abc.abstractmethod
    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        """Compare ``fw`` with the primitive's independent model on random inputs; return cases run."""

    @abc.abstractmethod
    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """Calls for the constant-time check: secret arguments from ``rng``, public ones from ``public_seed``
        (the same on every trial)."""

    def policy(self, fw: Firmware) -> "KindDriver":
        """The driver whose constant-time policy applies to ``fw`` (a suite's instance: its kind's)."""
        return self

    def ct_unchecked(self, fw: Firmware) -> dict[str, str]:
        """Ops of ``ct_ops`` the cases leave out on ``fw``, each with the reason its code is checked
        anyway (an X25519 on the constant base point is the same code as the x25519 case)."""
        return {}

    def ct_covered_by(self, fw: Firmware) -> dict[str, str]:
        """Ops of ``ct_ops`` no case calls on ``fw`` because another case's call runs their code (op ->
        that op): unlike ``ct_unchecked``, their code must show as executed in the coverage report."""
        return {}

    @abc.abstractmethod
    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """`mcucrypt run`: the output bytes and the cost of the main call."""


HEX_RULE = "two hex digits per byte, upper or lower case, an optional 0x prefix, no spaces or separators"
_HEX = re.compile(r"(?:0[xX])?((?:[0-9a-fA-F]{2})*)")


def parse_hex(name: str, text: str | None, *, length: int | None = None, label: str | None = None) -> bytes:
    """Bytes from the command line's hex (HEX_RULE: '0f1e...' or '0x0F1E...'; '0f 1e' or '0f:1e' are
    refused rather than guessed at). ``label`` names the input in errors (default ``--name``)."""
    label = label or f"--{name}"
    if text is None:
        raise UsageError(f"{label} is required")
    m = _HEX.fullmatch(text)
    if m is None:
        raise UsageError(f"{label}: malformed hex {text!r} ({HEX_RULE})")
    data = bytes.fromhex(m.group(1))
    if length is not None and len(data) != length:
        raise UsageError(f"{label}: expected {length} bytes ({2 * length} hex digits), got {len(data)}")
    return data


def driver_for(kind: str) -> KindDriver:
    module = importlib.import_module(f"mcucrypt.kinds.{kind}")
    return module.DRIVER


def vector_class(v: Vector) -> tuple:
    """What makes a vector a different case beyond its lengths: its file, operation and expected verdict
    and Wycheproof's flags."""
    f = v.fields
    return (v.file.name, f.get("op", f.get("Op")), f.get("valid", f.get("result", f.get("Result"))),
            f.get("testPassed"), f.get("flags"), f.get("interface"))


def representative(vectors: list[Vector], cap: int) -> list[Vector]:
    """About ``cap`` of ``vectors`` in file order: the first cap/4 and the last cap/8 (KAT files run from
    the empty input to the longest), the first vector of every class (``vector_class``: every verdict,
    every operation, every Wycheproof flag: these may exceed ``cap``), and evenly spaced ones up to it."""
    n = len(vectors)
    if n <= cap:
        return vectors
    keep = set(range(cap // 4)) | set(range(n - cap // 8, n))
    seen: set[tuple] = set()
    for i, v in enumerate(vectors):
        c = vector_class(v)
        if c not in seen:
            seen.add(c)
            keep.add(i)
    room = cap - len(keep)
    if room > 0:
        keep |= {(k * n) // room for k in range(room)}
    return [v for i, v in enumerate(vectors) if i in keep]
