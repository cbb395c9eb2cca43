# SPDX-License-Identifier: MIT
"""The catalog: every primitive and implementation, read from crypto/<primitive>/META.yml.

Adding an implementation means adding its sources and a few lines of META.yml; no harness code changes.
The schema is documented in docs/adding-an-implementation.md; ``load_catalog`` validates it and fails
with the file and key at fault.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from .build import impl_define
from .targets import ROOT, TARGETS

CRYPTO_DIR = ROOT / "crypto"
KINDS = ("blockcipher", "aead", "mpmul", "permutation", "stream", "hash", "mac", "kdf", "suite", "dh", "signature")


class CatalogError(Exception):
    pass


@dataclass(frozen=True)
class Param:
    ctype: str          # e.g. 'const uint8_t *', 'uint32_t', 'unsigned long long'
    name: str

    @property
    def is_pointer(self) -> bool:
        return "*" in self.ctype or self.ctype.endswith("[]")

    def scalar_size(self, native: int) -> int:
        """Width in bytes of a scalar parameter on a target whose int/pointer width is ``native``."""
        base = re.sub(r"\b(const|volatile|unsigned|signed)\b", "", self.ctype).strip()
        sizes = {"uint8_t": 1, "int8_t": 1, "char": 1, "uint16_t": 2, "int16_t": 2, "short": 2,
                 "uint32_t": 4, "int32_t": 4, "uint64_t": 8, "int64_t": 8, "long long": 8,
                 "size_t": native, "int": native, "": native}
        if base in sizes:
            return sizes[base]
        if base == "long":
            return 4 if native <= 4 else 8
        raise CatalogError(f"unsupported parameter type {self.ctype!r}")


@dataclass(frozen=True)
class Prototype:
    ret: str
    name_template: str
    params: tuple[Param, ...]

    def symbol(self, prim_id: str, impl: str) -> str:
        return self.name_template.format(id=prim_id, impl=impl_define(impl))

    def index(self, name: str) -> int:
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        raise CatalogError(f"{self.name_template}: no parameter named {name!r}")


_PROTO = re.compile(r"^\s*(?P<ret>[\w\s\*]+?)\s*\b(?P<name>[\w{}]+)\s*\((?P<params>.*)\)\s*;?\s*$")


def parse_prototype(text: str) -> Prototype:
    m = _PROTO.match(text)
    if not m:
        raise CatalogError(f"cannot parse prototype {text!r}")
    params: list[Param] = []
    body = m.group("params").strip()
    if body and body != "void":
        for raw in body.split(","):
            raw = raw.strip()
            pm = re.match(r"^(?P<type>.*?)(?P<name>\w+)\s*(?P<arr>\[[^\]]*\])?$", raw)
            if not pm or not pm.group("type").strip():
                raise CatalogError(f"cannot parse parameter {raw!r} of {text!r}")
            ctype = pm.group("type").strip() + (" *" if pm.group("arr") else "")
            params.append(Param(ctype, pm.group("name")))
    return Prototype(m.group("ret").strip(), m.group("name"), tuple(params))


@dataclass(frozen=True)
class Implementation:
    name: str                       # e.g. 'ref', 'rv32-fast'
    primitive: "Primitive"
    description: str
    sources: tuple[Path, ...]
    targets: tuple[str, ...]
    ids: tuple[str, ...]            # primitive ids it implements
    isa: str | None                 # rv32 only: e.g. 'rv32imac_zbb_zbkb'
    constant_time: bool
    secret_dependent_addresses: bool   # table look-ups indexed by secrets (constant time only on cacheless cores)
    functions: dict[str, Prototype]
    defines: tuple[str, ...] = ()
    secret: dict[str, tuple[str, ...]] = field(default_factory=dict)   # op -> secret parameter names
    own_params: dict[str, dict[str, Any]] = field(default_factory=dict)   # id -> overrides (e.g. rk_bytes)

    def params(self, prim_id: str) -> dict[str, Any]:
        """The instance parameters of ``prim_id`` as this implementation uses them (its own round-key size,
        say, where its layout is smaller than the largest any implementation writes)."""
        return {**self.primitive.instances[prim_id], **self.own_params.get(prim_id, {})}
    # The constant-time claim (META.yml `constant_time`): 'strict' (true: no secret-dependent branch,
    # address or variable-latency operand), 'cacheless' (the same except secret-dependent SRAM addresses,
    # which take the same time on these cacheless cores but leak on cached ones), 'none' (false).
    ct_claim: str = "none"
    # META.yml `reentrant: false`: the implementation keeps state in static RAM (.data/.bss), so two calls
    # may not overlap (threads, interrupts). Reported by `list`; the library export does not pick it by default.
    reentrant: bool = True
    # META.yml `ct_unreached`: symbol (with {id} and {impl}) -> why code of that function that the
    # constant-time cases never execute is checked anyway (mcucrypt/coverage.py; a test demands one).
    ct_unreached: dict[str, str] = field(default_factory=dict)

    def secret_params(self, op: str) -> tuple[str, ...]:
        """The secret parameters of ``op``: the primitive's list and the implementation's additions (the
        catalog refuses lists that drop one of the kind's: ``_check_ct_policy``)."""
        return tuple(dict.fromkeys((*self.primitive.secret.get(op, ()), *self.secret.get(op, ()))))

    def ops(self, prim_id: str) -> list[str]:
        """The ops the id exports (all of ``functions``, or those its instance lists under ``ops``)."""
        ops = self.primitive.instances[prim_id].get("ops")
        return [op for op in self.functions if ops is None or op in ops]

    def symbol(self, prim_id: str, op: str) -> str:
        return self.functions[op].symbol(prim_id, self.name)

    def symbols(self, prim_id: str) -> list[str]:
        """The id's exported functions: all of them, or those its instance lists under ``ops`` (a suite
        whose ids are of different kinds)."""
        ops = self.primitive.instances[prim_id].get("ops")
        return [self.symbol(prim_id, op) for op in self.functions if ops is None or op in ops]

    @property
    def key(self) -> str:
        return f"{self.primitive.name}/{self.name}"


@dataclass(frozen=True)
class Primitive:
    name: str                       # folder name, e.g. 'lea'
    kind: str
    description: str
    directory: Path
    instances: dict[str, dict[str, Any]]   # primitive id -> parameters (key_bytes, block_bytes, ...)
    vectors: tuple[Path, ...]
    model: str | None               # dotted module name of the independent Python model (None: fixtures)
    secret: dict[str, tuple[str, ...]]     # op -> names of secret parameters
    published: tuple[dict[str, Any], ...]
    goals: tuple["Goal", ...] = ()
    implementations: dict[str, Implementation] = field(default_factory=dict)


@dataclass
class Catalog:
    primitives: dict[str, Primitive]

    def by_id(self, prim_id: str) -> Primitive:
        for p in self.primitives.values():
            if prim_id in p.instances:
                return p
        known = sorted(i for p in self.primitives.values() for i in p.instances)
        raise CatalogError(f"unknown primitive {prim_id!r} (known: {', '.join(known)})")

    def all_ids(self) -> list[str]:
        return [i for p in self.primitives.values() for i in p.instances]

    def implementations(self, prim_id: str, target: str | None = None) -> list[Implementation]:
        prim = self.by_id(prim_id)
        return [impl for impl in prim.implementations.values()
                if prim_id in impl.ids and (target is None or target in impl.targets)]

    def implementation(self, prim_id: str, impl: str) -> Implementation:
        prim = self.by_id(prim_id)
        if impl not in prim.implementations or prim_id not in prim.implementations[impl].ids:
            known = ", ".join(i.name for i in self.implementations(prim_id))
            raise CatalogError(f"unknown implementation {impl!r} of {prim_id} (known: {known})")
        return prim.implementations[impl]


GOAL_METRICS = ("cycles", "cycles_per_byte", "code_bytes", "stack_bytes", "static_ram_bytes", "ram_bytes")


@dataclass(frozen=True)
class Goal:
    """A performance target the benchmark checks (issue targets live here, not in unit tests):
    `metric` of (id, impl, target, op) at most `max`; or, with `relative_to`, the op's cycles at most
    `max` times the cycles of op `relative_to` of the same implementation."""
    id: str
    impl: str
    target: str
    op: str
    metric: str
    max: float
    relative_to: str | None = None
    source: str = ""
    # An issue's target not met (META.yml `open: true`, with the reason in `source`: out of reach, or work
    # ahead): a miss is reported as OPEN and does not fail the benchmark; a met open goal reads "met".
    open: bool = False

    def describe(self) -> str:
        if self.relative_to:
            return f"{self.op} <= {self.max:g} x {self.relative_to}"
        unit = {"cycles_per_byte": "cycles/byte"}.get(self.metric, self.metric.replace("_", " "))
        return f"{self.op} <= {self.max:,.15g} {unit}"


def _goal(g: dict, where: str) -> Goal:
    missing = [k for k in ("id", "impl", "target", "op", "max") if k not in g]
    if missing:
        raise CatalogError(f"{where}: goal {g} lacks {missing}")
    metric = g.get("metric", "cycles")
    if metric not in GOAL_METRICS:
        raise CatalogError(f"{where}: goal metric {metric!r} (known: {', '.join(GOAL_METRICS)})")
    return Goal(str(g["id"]), str(g["impl"]), str(g["target"]), str(g["op"]), metric, float(g["max"]),
                g.get("relative_to"), str(g.get("source", "")), bool(g.get("open", False)))


def _require(d: dict, key: str, where: str) -> Any:
    if key not in d:
        raise CatalogError(f"{where}: missing key {key!r}")
    return d[key]


def _load_primitive(meta_path: Path) -> Primitive:
    where = str(meta_path.relative_to(ROOT))
    meta = yaml.safe_load(meta_path.read_text())
    if not isinstance(meta, dict):
        raise CatalogError(f"{where}: not a mapping")
    kind = _require(meta, "kind", where)
    if kind not in KINDS:
        raise CatalogError(f"{where}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    d = meta_path.parent
    functions = {op: parse_prototype(p) for op, p in _require(meta, "functions", where).items()}
    secret = {op: tuple(names) for op, names in (meta.get("secret") or {}).items()}
    for op, names in secret.items():
        if op not in functions:
            raise CatalogError(f"{where}: secret names unknown op {op!r}")
        for n in names:
            functions[op].index(n)
    vectors = tuple(d / v for v in meta.get("vectors", []))
    for v in vectors:
        if not v.is_file():
            raise CatalogError(f"{where}: vector file {v} missing")
    prim = Primitive(
        name=d.name, kind=kind, description=meta.get("description", ""), directory=d,
        instances={k: dict(v or {}) for k, v in _require(meta, "instances", where).items()},
        vectors=vectors, model=_require(meta, "model", where), secret=secret,
        published=tuple(meta.get("published", [])),
        goals=tuple(_goal(g, f"{where}: goals") for g in meta.get("goals", [])))
    for name, spec in _require(meta, "implementations", where).items():
        iw = f"{where}: implementations.{name}"
        targets = tuple(_require(spec, "targets", iw))
        for t in targets:
            if t not in TARGETS:
                raise CatalogError(f"{iw}: unknown target {t!r}")
        sources = tuple(d / s for s in _require(spec, "sources", iw))
        for s in sources:
            if not s.is_file():
                raise CatalogError(f"{iw}: source {s} missing")
        fns = dict(functions)
        fns.update({op: parse_prototype(p) for op, p in (spec.get("functions") or {}).items()})
        for op, names in (spec.get("secret") or {}).items():
            if op not in fns:
                raise CatalogError(f"{iw}: secret names unknown op {op!r}")
            for n in names:
                fns[op].index(n)
        ops = spec.get("ops")
        if ops is not None:
            fns = {op: fns[op] for op in ops}
        ids = tuple(spec.get("ids", prim.instances))
        for i in ids:
            if i not in prim.instances:
                raise CatalogError(f"{iw}: unknown primitive id {i!r}")
        own_params = {k: dict(v) for k, v in (spec.get("params") or {}).items()}
        for i, over in own_params.items():
            if i not in ids:
                raise CatalogError(f"{iw}: params for {i!r}, which it does not implement")
            unknown = set(over) - set(prim.instances[i])
            if unknown:
                raise CatalogError(f"{iw}: params.{i} overrides unknown parameters {sorted(unknown)}")
        claim = spec.get("constant_time", False)
        if claim not in (True, False, "cacheless"):
            raise CatalogError(f"{iw}: constant_time must be true, false or cacheless, not {claim!r}")
        prim.implementations[name] = Implementation(
            name=name, primitive=prim, description=spec.get("description", ""), sources=sources,
            targets=targets, ids=ids, isa=spec.get("isa"), constant_time=bool(claim),
            ct_claim={True: "strict", False: "none", "cacheless": "cacheless"}[claim],
            secret_dependent_addresses=bool(spec.get("secret_dependent_addresses", False)) or claim == "cacheless",
            functions=fns, defines=tuple(spec.get("defines", [])),
            secret={op: tuple(n) for op, n in (spec.get("secret") or {}).items()}, own_params=own_params,
            reentrant=bool(spec.get("reentrant", True)), ct_unreached=_unreached_notes(spec, iw))
    _check_ct_policy(prim, where)
    for g in prim.goals:
        impl = prim.implementations.get(g.impl)
        if impl is None or g.id not in impl.ids or g.target not in impl.targets:
            raise CatalogError(f"{where}: goal names {g.id} {g.impl} on {g.target}, which the catalog lacks")
    return prim


def _unreached_notes(spec: dict, where: str) -> dict[str, str]:
    notes = spec.get("ct_unreached") or {}
    if not isinstance(notes, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                              for k, v in notes.items()):
        raise CatalogError(f"{where}: ct_unreached must map a function symbol to the reason its code is "
                           f"checked although the constant-time cases do not run it")
    return dict(notes)


def _check_ct_policy(prim: Primitive, where: str) -> None:
    """The kind's constant-time policy (mcucrypt/kinds: ``secret``, ``ct_ops``, ``public_ops``) over every
    implementation: each function it declares is one the kind's constant-time cases check (or one without
    secret inputs), and each op's secret parameters include every one the kind declares secret (META.yml
    may add secrets, never remove the kind's: an empty list would switch the checker off)."""
    from .kinds.base import driver_for      # kinds import this module: import when first needed

    kinds = sorted({prim.kind} if prim.kind != "suite" else
                   {str(spec.get("kind")) for spec in prim.instances.values()})
    drivers = [driver_for(k) for k in kinds]
    kind_secret: dict[str, set[str]] = {}
    checked: set[str] = set()
    for d in drivers:
        checked |= d.ct_ops | d.public_ops
        for op, names in d.secret.items():
            kind_secret.setdefault(op, set()).update(names)
    for name, impl in prim.implementations.items():
        iw = f"{where}: implementations.{name}"
        for op in impl.functions:
            if op not in checked:
                raise CatalogError(f"{iw}: function {op!r} is never run by the constant-time cases of the "
                                   f"{'/'.join(kinds)} kind (they check {', '.join(sorted(checked))}): "
                                   f"add it to the kind's ct_cases and ct_ops, or do not declare it")
            # a kind's secret parameter binds the implementations whose prototype has it (the signature
            # kind's sign `rnd` exists only in the randomised schemes)
            params = {p.name for p in impl.functions[op].params}
            dropped = (kind_secret.get(op, set()) & params) - set(impl.secret_params(op))
            if dropped:
                raise CatalogError(f"{iw}: the secret parameters of {op!r} leave out {', '.join(sorted(dropped))}, "
                                   f"secret in every {'/'.join(kinds)} implementation (META.yml may add secrets, "
                                   f"never remove the kind's)")


@lru_cache(maxsize=None)
def load_catalog(crypto_dir: Path = CRYPTO_DIR) -> Catalog:
    prims = {}
    for meta in sorted(crypto_dir.glob("*/META.yml")):
        p = _load_primitive(meta)
        prims[p.name] = p
    ids = [i for p in prims.values() for i in p.instances]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise CatalogError(f"primitive ids defined twice: {', '.join(sorted(dup))}")
    return Catalog(prims)
