# SPDX-License-Identifier: MIT
"""The constant-time checker, in two modes.

**taint** (the default on boards with ``supports_taint``): one run of each constant-time case with the
parameters META.yml declares secret tainted at byte granularity; the board propagates taint at
instruction level through registers, flags/carry and memory, and reports every instruction where a
secret reaches a conditional branch, an indirect jump, a load/store address or an operand of a
variable-latency instruction, with the secret parameter(s) it came from. Whatever the secret values, a
leak on the path the case takes is found on the first run (ctgrind's idea, on the target binary).
The only declassification is a call to ``mcu_declassify``, and the checker holds it to the kind's policy
(``public_results`` in mcucrypt/kinds): only an op whose standard makes a value public (AEAD decryption's
and MAC verification's accept/reject verdict) may declassify, at most as many values per call as the
kind says, each a function of the outcome alone: the first case of each (op, outcome) runs again with
all-zero and all-one secrets and must declassify the same values. Anything else is a finding
(``secret declassified``). Every op the implementation exports must be run by the cases (or be one the
kind exempts with its reason). Each report carries the path coverage of the run (mcucrypt/coverage.py).

**trace** (the second mode, and a cross-check of the first): runs each case with ``trials`` secret draws
and the same public inputs, and compares, call by call, the cycle count, the sequence of executed
instruction addresses and the sequence of data addresses. The first divergence is classified:
- secret-dependent branch: the executed-address sequences part after the same instruction;
- secret-dependent memory address: same instructions, but a load/store touched another address;
- variable-latency instruction on secret operands: same instructions and addresses, different cycles,
  traced to the instruction whose latency the board's timing model made operand-dependent
  (Cortex-M3 UMULL/UMLAL/UDIV/SDIV, E31 DIV/REM).
Trace comparison is only as good as its draws: ``SecretRandom`` gives a base secret, uniform draws,
single-bit and single-byte changes of the base, swaps of two of its bytes, zeroed 16-bit halves, all
zeros and all ones. The seed is fresh per run unless given (printed, so a failure can be reproduced).

A secret-dependent address is its own class: the three cores have no data cache, so it takes the same
time there, but not on cached cores. An implementation whose META.yml claim is ``constant_time:
cacheless`` (or that declares ``secret_dependent_addresses``) has such findings reported, not failed.
docs/constant-time.md states the threat model per core.
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field

from .boards.base import (TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP, TAINT_VARIABLE_LATENCY,
                          Buf, CallResult, TaintSpec, Trace)
from .boards.armv7m import IT_EXECUTED, IT_SKIPPED
from .boards.taint_common import TAINT_CONDITIONAL, TAINT_IO
from .build import impl_define
from .catalog import CatalogError
from .coverage import Coverage, measure
from .firmware import Firmware
from .kinds.base import CtCase, KindDriver, driver_for

SECRET_DEPENDENT_BRANCH = "secret-dependent branch"
SECRET_DEPENDENT_ADDRESS = "secret-dependent memory address"
VARIABLE_LATENCY = "variable-latency instruction on secret operands"
SECRET_INDIRECT_JUMP = "secret-dependent indirect jump"
SECRET_CONDITIONAL_EXECUTION = "secret-dependent conditional execution"
SECRET_TO_IO = "secret to I/O or CSR"
SECRET_DECLASSIFIED = "secret declassified"
# The finding kind of a declassification the kind's policy does not allow (the board's kinds: TAINT_*)
TAINT_DECLASSIFY = "declassify"
# SecretRandom patterns the declassification policy re-runs with: any bit of a secret differs between them
POLICY_TRIALS = (6, 7)
# How a secret-dependent address is reported where the claim allows it (cacheless cores)
CACHED_CORES_ONLY = "secret-dependent address: same time on this core, leaks on cached cores"

MODES = ("taint", "trace")
DEFAULT_TRIALS = 64
TRIALS_IN_TEST = 16        # trace mode in `mcucrypt test`/bench and the generic test (boards without taint)
CLASS_OF_TAINT = {TAINT_BRANCH: SECRET_DEPENDENT_BRANCH, TAINT_INDIRECT_JUMP: SECRET_INDIRECT_JUMP,
                  TAINT_ADDRESS: SECRET_DEPENDENT_ADDRESS, TAINT_VARIABLE_LATENCY: VARIABLE_LATENCY,
                  TAINT_CONDITIONAL: SECRET_CONDITIONAL_EXECUTION, TAINT_IO: SECRET_TO_IO,
                  TAINT_DECLASSIFY: SECRET_DECLASSIFIED}


def fresh_seed() -> int:
    return random.SystemRandom().getrandbits(32)


def default_mode(fw: Firmware) -> str:
    return "taint" if fw.board.supports_taint else "trace"


class SecretRandom(random.Random):
    """random.Random whose ``randbytes`` draws a trial's secrets (see the module docstring).

    Trial 0 is the base: the k-th ``randbytes`` call of every trial relates to the k-th call of the base
    by the trial's pattern (``trial % 8``): 0 the base itself, 1 uniform, 2 one bit flipped, 3 one byte
    changed, 4 two unequal bytes swapped, 5 uniform with about half the 16-bit halves zeroed, 6 all zeros,
    7 all ones. Other draws (``randrange``, ...) are plain per-trial randomness."""

    PATTERNS = ("base", "uniform", "bit flip", "byte change", "byte swap", "zeroed halves", "zeros", "ones")

    def __init__(self, seed: int, trial: int):
        super().__init__(f"ct/{seed}/{trial}")
        self.seed_value = seed
        self.trial = trial
        self.pattern = trial % len(self.PATTERNS)
        self._calls = 0

    def randbytes(self, n: int) -> bytes:
        base = random.Random(f"ct/{self.seed_value}/base/{self._calls}").randbytes(n)
        self._calls += 1
        p = self.pattern
        if p == 0 or n == 0:
            return base
        if p == 6:
            return bytes(n)
        if p == 7:
            return b"\xff" * n
        data = bytearray(base if p in (2, 3, 4) else super().randbytes(n))
        if p == 2:
            i = self.randrange(8 * n)
            data[i // 8] ^= 1 << (i % 8)
        elif p == 3:
            i = self.randrange(n)
            data[i] ^= self.randrange(1, 256)
        elif p == 4 and n > 1:
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if data[i] != data[j]]
            if pairs:
                i, j = self.choice(pairs)
                data[i], data[j] = data[j], data[i]
            else:
                data[self.randrange(n)] ^= 1
        elif p == 5:
            for i in range(0, n, 2):
                if self.getrandbits(1):
                    data[i:i + 2] = b"\0\0"[: len(data[i:i + 2])]
        return bytes(data)


@dataclass
class Divergence:
    op: str
    trial: int
    kind: str                  # one of the classes above, or 'cycles' when no cause was located
    address: int | None
    symbol: str
    instruction: str
    detail: str


@dataclass
class Finding:
    """A taint finding of one op (taint mode)."""
    op: str
    kind: str                  # TAINT_* of boards.base
    cls: str                   # the class, as text
    pc: int
    symbol: str
    instruction: str
    secrets: list[str]         # the secret parameters the tainted value came from
    detail: str
    fatal: bool                # False: reported but allowed by the claim (secret addresses, cacheless)


@dataclass
class CtReport:
    prim: str
    impl: str
    target: str
    trials: int
    calls: int
    verdict: str               # 'pass' or 'fail'
    divergence: Divergence | None = None
    cycles: dict[str, int] = field(default_factory=dict)   # op -> cycles (trace: the same on every trial)
    mode: str = "trace"
    seed: int = 0
    claim: str = "strict"      # what META.yml claims: strict | cacheless | none
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    instructions: int = 0      # instructions the checked calls executed (for the tracing speed)
    coverage: Coverage | None = None    # own instructions the secret runs executed (None: not measured)

    def to_json(self) -> dict:
        out = asdict(self)
        out["coverage"] = self.coverage.to_json() if self.coverage is not None else None
        return out

    def summary(self) -> str:
        head = f"{self.prim} {self.impl} on {self.target} ({self.mode} mode, seed {self.seed}): "
        notes = [f"  {_finding_text(f)}" for f in self.findings]
        if self.verdict == "pass":
            what = (f"{self.calls} tainted call{'s' * (self.calls != 1)}, {self.instructions} instructions "
                    f"in {self.seconds:.1f} s"
                    if self.mode == "taint" else f"{self.trials} trials, {self.calls} traced calls, "
                                                 f"cycles {self.cycles}")
            return "\n".join([head + f"PASS ({what})", *notes, *self._coverage_lines()])
        if self.mode == "taint":
            n = sum(f.fatal for f in self.findings)
            return "\n".join([head + f"FAIL — {n} finding{'s' * (n != 1)}", *notes, *self._coverage_lines()])
        d = self.divergence
        assert d is not None
        where = f" at 0x{d.address:x} <{d.symbol}>: {d.instruction}" if d.address is not None else ""
        return head + f"FAIL — {d.kind} in {d.op} (trial {d.trial}){where}\n  {d.detail}"

    def _coverage_lines(self) -> list[str]:
        return [f"  {line}" for line in self.coverage.summary().splitlines()] if self.coverage else []


def _finding_text(f: Finding) -> str:
    verdict = "" if f.fatal else " [allowed by the claim]"
    return (f"{f.cls} in {f.op} at 0x{f.pc:x} <{f.symbol}>: {f.instruction} — from "
            f"{', '.join(f.secrets) or '?'}{'; ' + f.detail if f.detail else ''}{verdict}")


def claim_of(fw: Firmware) -> str:
    return getattr(fw.impl, "ct_claim", "strict" if fw.impl.constant_time else "none")


def _addresses_allowed(fw: Firmware) -> bool:
    return claim_of(fw) == "cacheless" or fw.impl.secret_dependent_addresses


def _first_difference(a: list, b: list) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _describe(fw: Firmware, address: int) -> tuple[str, str]:
    return fw.board.symbol_at(address), fw.board.disassemble(address)


def compare(fw: Firmware, op: str, trial: int, ref: CallResult, got: CallResult,
            addresses_allowed: bool = False) -> Divergence | None:
    ta, tb = ref.trace, got.trace
    assert ta is not None and tb is not None
    i = _first_difference(ta.pcs, tb.pcs)
    if i is not None:
        branch = ta.pcs[i - 1] if i > 0 else ta.pcs[0]
        sym, ins = _describe(fw, branch)
        return Divergence(op, trial, SECRET_DEPENDENT_BRANCH, branch, sym, ins,
                          f"instruction {i}: trial 0 went to 0x{ta.pcs[i]:x}, trial {trial} to "
                          f"0x{tb.pcs[i]:x}" if i < min(len(ta.pcs), len(tb.pcs)) else
                          f"one trial ended after {i} instructions")
    for (pc, status_a, _, _), (pc_b, status_b, _, _) in zip(ta.variable_latency, tb.variable_latency):
        if pc == pc_b and status_a != status_b and {status_a, status_b} == {IT_EXECUTED, IT_SKIPPED}:
            sym, ins = _describe(fw, pc)
            return Divergence(op, trial, SECRET_CONDITIONAL_EXECUTION, pc, sym, ins,
                              f"an IT-block instruction {status_a.removeprefix('it-')} in trial 0, "
                              f"{status_b.removeprefix('it-')} in trial {trial} (a failed one takes one cycle)")
    j = None if addresses_allowed else _first_difference(ta.accesses, tb.accesses)
    if j is not None:
        m = ta.accesses[j] if j < len(ta.accesses) else tb.accesses[j]
        sym, ins = _describe(fw, m.pc)
        other = tb.accesses[j].address if j < len(tb.accesses) else None
        return Divergence(op, trial, SECRET_DEPENDENT_ADDRESS, m.pc, sym, ins,
                          f"access {j}: trial 0 {'wrote' if m.write else 'read'} 0x{m.address:x}, "
                          f"trial {trial} 0x{other:x}" if other is not None else f"access {j} missing")
    if ref.cycles != got.cycles or _latencies(ta) != _latencies(tb):
        for (pc, mnem, ops_a, cyc_a), (_, _, ops_b, cyc_b) in zip(ta.variable_latency, tb.variable_latency):
            if cyc_a != cyc_b:
                sym, ins = _describe(fw, pc)
                return Divergence(op, trial, VARIABLE_LATENCY, pc, sym, ins,
                                  f"{mnem} took {cyc_a} cycles on operands {[hex(x) for x in ops_a]} and "
                                  f"{cyc_b} on {[hex(x) for x in ops_b]}; call cycles {ref.cycles} vs "
                                  f"{got.cycles}")
        return Divergence(op, trial, "cycles", None, "?", "?",
                          f"same instructions and addresses but {ref.cycles} vs {got.cycles} cycles")
    return None


def _latencies(t: Trace) -> list[int]:
    return [c for _, m, _, c in t.variable_latency if m not in (IT_EXECUTED, IT_SKIPPED)]


class UndeclaredSecret(CatalogError):
    """A kind driver varied an argument that META.yml does not declare secret: the check would then
    compare runs that differ in public inputs too, and its verdict would mean nothing."""


def _check_only_secrets_vary(fw: Firmware, first: CtCase, case: CtCase) -> None:
    secret = set(fw.impl.secret_params(case.op))
    for name, value in case.args.items():
        if name not in secret and value != first.args[name]:
            raise UndeclaredSecret(f"{fw.impl.key}: the constant-time cases of {case.op} vary {name!r}, which "
                                   f"META.yml does not list as secret (secret: {sorted(secret)})")


def check(fw: Firmware, trials: int = DEFAULT_TRIALS, seed: int | None = None,
          mode: str | None = None) -> CtReport:
    """Check ``fw`` in ``mode`` (default: taint where the board supports it, else trace). ``trials``
    (trace mode, at least 8 so every SecretRandom pattern is seen) secret draws; ``seed`` None draws a
    fresh one. Only the parameters META.yml declares secret may differ from draw to draw."""
    mode = mode or default_mode(fw)
    if mode not in MODES:
        raise ValueError(f"unknown constant-time mode {mode!r} (modes: {', '.join(MODES)})")
    if mode == "taint" and not fw.board.supports_taint:
        raise CatalogError(f"the {fw.target} board does not track taint yet: use --mode trace")
    seed = fresh_seed() if seed is None else seed
    start = time.perf_counter()
    executed: set[int] = set()
    report = (_check_taint if mode == "taint" else _check_trace)(fw, trials, seed, executed)
    report.seconds = round(time.perf_counter() - start, 3)
    if executed:
        report.coverage = measure(fw.image, fw.impl.sources, executed, unreached_notes(fw))
    return report


def unreached_notes(fw: Firmware) -> dict[str, str]:
    """Function symbol -> why its code may stay unexecuted: META.yml's ``ct_unreached`` (a key
    ``symbol@id``, ``symbol@target`` or ``symbol@a,b`` applies to the ids and boards named only), and the
    kind's ops without secret input (``public_ops``) or checked through other cases (``ct_unchecked``)."""
    policy = driver_for(fw.impl.primitive.kind).policy(fw)
    notes = {op: "no secret input (the kind's public_ops)" for op in policy.public_ops}
    notes.update(policy.ct_unchecked(fw))
    out = {fw.impl.symbol(fw.prim_id, op): why for op, why in notes.items() if fw.has(op)}
    for key, why in fw.impl.ct_unreached.items():
        symbol, _, only = key.partition("@")       # "symbol@id,..." / "symbol@target": for those only
        if not only or {fw.prim_id, fw.target} & set(only.split(",")):
            out[symbol.format(id=fw.prim_id, impl=impl_define(fw.impl.name))] = why
    return out


class UncheckedFunction(CatalogError):
    """An op the implementation exports that the kind's constant-time cases never run (and the kind
    does not exempt): the checker would vouch for code it never saw."""


def _check_every_op_runs(fw: Firmware, driver: KindDriver, cases: list[CtCase]) -> None:
    policy = driver.policy(fw)
    exempt = {**policy.ct_unchecked(fw), **policy.ct_covered_by(fw)}
    run = {c.op for c in cases}
    missing = [op for op in fw.impl.ops(fw.prim_id)
               if op not in run and op not in policy.public_ops and op not in exempt]
    if missing:
        raise UncheckedFunction(f"{fw.impl.key} ({fw.prim_id}): the constant-time cases of the {policy.kind} kind "
                                f"never run {', '.join(missing)}; the checker cannot vouch for it")


def _executed_by(res: CallResult) -> frozenset[int] | list[int]:
    if res.executed is not None:
        return res.executed
    return res.trace.pcs if res.trace is not None else []


def _new_report(fw: Firmware, mode: str, trials: int, seed: int) -> CtReport:
    return CtReport(fw.prim_id, fw.impl.name, fw.target, trials, 0, "pass", mode=mode, seed=seed,
                    claim=claim_of(fw))


def taint_spec(fw: Firmware, op: str, case: CtCase | None = None) -> TaintSpec:
    """Argument index -> parameter name of every parameter META.yml declares secret for ``op``, and the
    public byte ranges the kind's case names inside them."""
    secret = set(fw.impl.secret_params(op))
    params = fw.impl.functions[op].params
    public = dict(case.public_bytes) if case is not None else {}
    return TaintSpec({i: p.name for i, p in enumerate(params) if p.name in secret},
                     {i: tuple(public[p.name]) for i, p in enumerate(params) if p.name in public})


def _check_taint(fw: Firmware, _trials: int, seed: int, executed: set[int]) -> CtReport:
    driver = driver_for(fw.impl.primitive.kind)
    report = _new_report(fw, "taint", 1, seed)
    allowed = _addresses_allowed(fw)
    seen: set[tuple[str, int, str]] = set()

    def add(f: Finding) -> None:
        if (f.op, f.pc, f.kind) not in seen:
            seen.add((f.op, f.pc, f.kind))
            report.findings.append(f)
            if f.fatal:
                report.verdict = "fail"

    def run(case: CtCase) -> CallResult:
        res = fw.call(case.op, case.args, taint=taint_spec(fw, case.op, case))
        report.calls += 1
        report.instructions += res.instructions
        executed.update(_executed_by(res))
        if res.declassified is None:
            raise CatalogError(f"the {fw.target} board's taint engine does not report what reaches "
                               f"mcu_declassify: the declassification policy cannot be checked")
        return res

    cases = driver.ct_cases(fw, SecretRandom(seed, 0), public_seed=seed)
    _check_every_op_runs(fw, driver, cases)
    # (op, return value) -> (case index, what it declassified): the outcomes the policy re-runs
    outcomes: dict[tuple[str, int], tuple[int, list[int]]] = {}
    for n, case in enumerate(cases):
        res = run(case)
        report.cycles.setdefault(case.op, res.cycles)
        for t in res.taint or []:
            fatal = not (t.kind == TAINT_ADDRESS and allowed)
            cls = CACHED_CORES_ONLY if t.kind == TAINT_ADDRESS and not fatal else CLASS_OF_TAINT[t.kind]
            add(Finding(case.op, t.kind, cls, t.pc, t.symbol, t.instruction, list(t.labels), t.detail, fatal))
        for f in _declassification_findings(fw, driver, case, res):
            add(f)
        if res.declassified and (case.op, res.return_value) not in outcomes:
            outcomes[(case.op, res.return_value)] = (n, _after_key_bytes(fw, driver, case.op, res))
    # Declassified values must be functions of the outcome: the same with all-zero and all-one secrets.
    for trial in POLICY_TRIALS if outcomes else ():
        other = driver.ct_cases(fw, SecretRandom(seed, trial), public_seed=seed)
        for (op, outcome), (n, values) in outcomes.items():
            res = run(other[n])
            got = _after_key_bytes(fw, driver, op, res)
            if res.return_value != outcome or got == values:
                continue
            policy = driver.policy(fw).public_results.get(op)
            if policy is not None and policy.rejection_loop:
                continue            # its shape is checked per call (_declassification_findings)
            declassified = res.declassified or []
            caller = declassified[0].caller if declassified else 0
            public = driver.policy(fw).public_results.get(op)
            add(Finding(op, TAINT_DECLASSIFY, SECRET_DECLASSIFIED, caller, fw.board.symbol_at(caller),
                        "call mcu_declassify", sorted({label for d in declassified for label in d.labels}),
                        f"the declassified values depend on the secrets, not only on the outcome: "
                        f"{[hex(v) for v in values]} with the drawn secrets, {[hex(v) for v in got]} with "
                        f"all {SecretRandom.PATTERNS[trial]} (the standard makes public only "
                        f"{public.what if public else 'nothing'})", True))
    return report


def _key_words(fw: Firmware, case: CtCase, res: CallResult, key_bytes: tuple[str, int, int]) -> list[int]:
    """The bytes [start, end) of the argument ``key_bytes`` names, as the call left them (an output
    buffer's contents after the call, an input's as given), as little-endian 32-bit words."""
    name, start, end = key_bytes
    outs = [p.name for p in fw.impl.functions[case.op].params
            if isinstance(case.args.get(p.name), Buf) and case.args[p.name].out]
    arg = case.args[name]
    data = res.outputs[outs.index(name)] if name in outs else arg.data
    return [int.from_bytes(data[i:i + 4], "little") for i in range(start, end, 4)]


def _after_key_bytes(fw: Firmware, driver: KindDriver, op: str, res: CallResult) -> list[int]:
    """The values ``op`` declassified after the public key bytes its policy names (all where it names none)."""
    public = driver.policy(fw).public_results.get(op)
    skip = 0 if public is None or public.key_bytes is None else (public.key_bytes[2] - public.key_bytes[1]) // 4
    return [d.value for d in (res.declassified or [])[skip:]]


def _declassification_findings(fw: Firmware, driver: KindDriver, case: CtCase, res: CallResult) -> list[Finding]:
    """The tainted arguments of mcu_declassify in one call of ``case.op`` that the kind's policy refuses:
    any, where the standard makes nothing public in the op; where it names public key bytes, the first
    values unless they are exactly those bytes; those beyond ``per_call`` where it does."""
    op = case.op
    declassified = res.declassified or []
    public = driver.policy(fw).public_results.get(op)
    allowed = public.per_call if public is not None else 0
    out = []
    if public is not None and public.key_bytes is not None:
        expected = _key_words(fw, case, res, public.key_bytes)
        got = [d.value for d in declassified[:len(expected)]]
        if got != expected:
            d = declassified[0] if declassified else None
            if d is not None:
                name, start, end = public.key_bytes
                return [Finding(op, TAINT_DECLASSIFY, SECRET_DECLASSIFIED, d.caller, fw.board.symbol_at(d.caller),
                                "call mcu_declassify", list(d.labels),
                                f"{op} declassified {[hex(v) for v in got]} first: its standard makes public "
                                f"{public.what}, {name}[{start}:{end}] = {[hex(v) for v in expected]} "
                                f"(little-endian words)", True)]
            return out
        declassified = declassified[len(expected):]
    if public is not None and public.rejection_loop:
        values = [d.value for d in declassified]
        if values and all(v == 1 for v in values[:-1]) and values[-1] == 0:
            return out
        d = declassified[0] if declassified else None
        if d is None:
            return out
        return [Finding(op, TAINT_DECLASSIFY, SECRET_DECLASSIFIED, d.caller, fw.board.symbol_at(d.caller),
                        "call mcu_declassify", list(d.labels),
                        f"{op} declassified {[hex(v) for v in values]}: a rejection loop's verdicts are 1 (try "
                        f"again) for every attempt but the last, 0 (accept)", True)]
    for d in declassified[allowed:allowed + 1]:      # the first one too many (the count says the rest)
        what = (f"{op} declassified {len(declassified)} secret value{'s' * (len(declassified) != 1)} in one call; "
                + (f"its standard makes public only {public.what} ({public.per_call} per call)" if public else
                   f"its standard makes no value public"))
        out.append(Finding(op, TAINT_DECLASSIFY, SECRET_DECLASSIFIED, d.caller, fw.board.symbol_at(d.caller),
                           f"call mcu_declassify (value 0x{d.value:x})", list(d.labels), what, True))
    return out


def _check_trace(fw: Firmware, trials: int, seed: int, executed: set[int]) -> CtReport:
    trials = max(trials, len(SecretRandom.PATTERNS))
    driver = driver_for(fw.impl.primitive.kind)
    report = _new_report(fw, "trace", trials, seed)
    allowed = _addresses_allowed(fw)
    reference: dict[int, CallResult] = {}
    first_cases: list[CtCase] = []
    for trial in range(trials):
        cases: list[CtCase] = driver.ct_cases(fw, SecretRandom(seed, trial), public_seed=seed)
        if trial == 0:
            _check_every_op_runs(fw, driver, cases)
        for n, case in enumerate(cases):
            if trial == 0:
                first_cases.append(case)
            else:
                _check_only_secrets_vary(fw, first_cases[n], case)
            res = fw.call(case.op, case.args, trace=True)
            report.calls += 1
            report.instructions += res.instructions
            executed.update(_executed_by(res))
            if trial == 0:
                reference[n] = res
                report.cycles[case.op] = res.cycles
                continue
            div = compare(fw, case.op, trial, reference[n], res, allowed)
            if div is not None:
                report.verdict = "fail"
                report.divergence = div
                return report
    return report


# ------------------------------------------------------------------------------- a user's own function

@dataclass
class _LoadedElf:
    """What compare() and the report need of a firmware: the board with the user's ELF loaded."""
    board: object


def check_function(board, elf_name: str, symbol: str, args: list, secret: dict[int, str], *,
                   arg_bytes: dict[int, int], trials: int = DEFAULT_TRIALS, seed: int | None = None,
                   mode: str | None = None, max_instructions: int | None = None) -> CtReport:
    """Check ``symbol`` of a user's ELF, loaded on ``board``, called with ``args`` (boards.base Arg
    values, in C order) whose indices in ``secret`` are secret (index -> label, e.g. 'arg2').

    taint mode: one call with those arguments tainted (a buffer's bytes, a scalar's register or stack
    slot); every instruction where a secret reaches a branch, an address or a variable-latency operand is
    a finding. trace mode: ``trials`` calls, the secret arguments redrawn per trial by ``SecretRandom``
    (trial 0 keeps the values given), the public ones fixed; the first divergence of executed addresses,
    data addresses or latencies is the finding. ``arg_bytes`` gives each secret scalar's width in bytes
    (what a redraw fills). No declassification and no claim: every finding fails (``claim`` 'strict')."""
    from .boards.base import Buf, Int
    mode = mode or ("taint" if board.supports_taint else "trace")
    if mode not in MODES:
        raise ValueError(f"unknown constant-time mode {mode!r} (modes: {', '.join(MODES)})")
    if mode == "taint" and not board.supports_taint:
        raise CatalogError(f"the {board.target} board does not track taint: use --mode trace")
    seed = fresh_seed() if seed is None else seed
    limits = {} if max_instructions is None else {"max_instructions": max_instructions}
    fw = _LoadedElf(board)
    report = CtReport(symbol, elf_name, board.target, 1 if mode == "taint" else max(trials, len(SecretRandom.PATTERNS)),
                      0, "pass", mode=mode, seed=seed, claim="strict")
    start = time.perf_counter()
    if mode == "taint":
        res = board.call(symbol, args, taint=TaintSpec(dict(secret)), **limits)
        report.calls, report.instructions = 1, res.instructions
        report.cycles[symbol] = res.cycles
        seen: set[tuple[int, str]] = set()
        for t in res.taint or []:
            if (t.pc, t.kind) in seen:
                continue
            seen.add((t.pc, t.kind))
            report.findings.append(Finding(symbol, t.kind, CLASS_OF_TAINT[t.kind], t.pc, t.symbol,
                                           t.instruction, list(t.labels), t.detail, True))
            report.verdict = "fail"
    else:
        reference: CallResult | None = None
        for trial in range(report.trials):
            draw = SecretRandom(seed, trial)
            call_args = list(args)
            if trial:
                for i in sorted(secret):
                    a = args[i]
                    if isinstance(a, Buf):
                        call_args[i] = Buf(draw.randbytes(a.length), out=a.out, align=a.align, misalign=a.misalign)
                    else:
                        call_args[i] = Int(int.from_bytes(draw.randbytes(arg_bytes[i]), "little"), a.size)
            res = board.call(symbol, call_args, trace=True, **limits)
            report.calls += 1
            report.instructions += res.instructions
            if reference is None:
                reference = res
                report.cycles[symbol] = res.cycles
                continue
            div = compare(fw, symbol, trial, reference, res)  # type: ignore[arg-type]
            if div is not None:
                report.verdict, report.divergence = "fail", div
                break
    report.seconds = round(time.perf_counter() - start, 3)
    return report
