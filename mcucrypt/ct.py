# SPDX-License-Identifier: MIT
"""The constant-time checker: runs an implementation on its target board with different secrets and
the same public inputs, and compares, call by call, the cycle count, the sequence of executed
instruction addresses and the sequence of data addresses.

It reports PASS, or the first divergence with its class:
- secret-dependent branch: the executed-address sequences part after the same instruction;
- secret-dependent memory address: same instructions, but a load/store touched another address;
- variable-latency instruction on secret operands: same instructions and addresses, different cycles,
  traced to the instruction whose latency the board's timing model made operand-dependent
  (Cortex-M3 UMULL/UMLAL/UDIV/SDIV, E31 DIV/REM).

Secrets are drawn by ``SecretRandom``: some trials take uniform bytes, others bytes with whole 16-bit
halves zeroed, all-zero or all-one values, because data-dependent timing hides in such values (the
Cortex-M3's UMULL is faster when an operand is below 2^16) and uniform random limbs almost never hit them.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from .boards.base import CallResult, Trace
from .catalog import CatalogError
from .firmware import Firmware
from .kinds.base import CtCase, driver_for

SECRET_DEPENDENT_BRANCH = "secret-dependent branch"
SECRET_DEPENDENT_ADDRESS = "secret-dependent memory address"
VARIABLE_LATENCY = "variable-latency instruction on secret operands"


class SecretRandom(random.Random):
    """random.Random whose randbytes varies its pattern from trial to trial (see module docstring)."""

    def __init__(self, seed: int, trial: int):
        super().__init__(f"ct/{seed}/{trial}")
        self.pattern = trial % 4

    def randbytes(self, n: int) -> bytes:
        if self.pattern == 2:
            return bytes(n)
        if self.pattern == 3:
            return b"\xff" * n
        data = bytearray(super().randbytes(n))
        if self.pattern == 1:
            for i in range(0, n, 2):           # zero about half of the 16-bit halves
                if self.getrandbits(1):
                    data[i:i + 2] = b"\0\0"[: len(data[i:i + 2])]
        return bytes(data)


@dataclass
class Divergence:
    op: str
    trial: int
    kind: str                  # one of the three classes above, or 'cycles' when no cause was located
    address: int | None
    symbol: str
    instruction: str
    detail: str


@dataclass
class CtReport:
    prim: str
    impl: str
    target: str
    trials: int
    calls: int
    verdict: str               # 'pass' or 'fail'
    divergence: Divergence | None = None
    cycles: dict[str, int] = field(default_factory=dict)   # op -> cycles (the same on every trial on PASS)

    def to_json(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        head = f"{self.prim} {self.impl} on {self.target}: "
        if self.verdict == "pass":
            return head + f"PASS ({self.trials} trials, {self.calls} traced calls, cycles {self.cycles})"
        d = self.divergence
        assert d is not None
        where = f" at 0x{d.address:x} <{d.symbol}>: {d.instruction}" if d.address is not None else ""
        return head + f"FAIL — {d.kind} in {d.op} (trial {d.trial}){where}\n  {d.detail}"


def _first_difference(a: list, b: list) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _describe(fw: Firmware, address: int) -> tuple[str, str]:
    return fw.board.symbol_at(address), fw.board.disassemble(address)


def compare(fw: Firmware, op: str, trial: int, ref: CallResult, got: CallResult) -> Divergence | None:
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
    j = _first_difference(ta.accesses, tb.accesses)
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
    return [c for _, _, _, c in t.variable_latency]


class UndeclaredSecret(CatalogError):
    """A kind driver varied an argument that META.yml does not declare secret: the check would then
    compare runs that differ in public inputs too, and its verdict would mean nothing."""


def _check_only_secrets_vary(fw: Firmware, first: CtCase, case: CtCase) -> None:
    secret = set(fw.impl.secret_params(case.op))
    for name, value in case.args.items():
        if name not in secret and value != first.args[name]:
            raise UndeclaredSecret(f"{fw.impl.key}: the constant-time cases of {case.op} vary {name!r}, which "
                                   f"META.yml does not list as secret (secret: {sorted(secret)})")


def check(fw: Firmware, trials: int = 8, seed: int = 0) -> CtReport:
    """Run ``trials`` secret draws (at least 4, so every SecretRandom pattern is seen). Only the
    parameters META.yml declares secret may differ from draw to draw; the public ones stay fixed."""
    trials = max(trials, 4)
    driver = driver_for(fw.impl.primitive.kind)
    report = CtReport(fw.prim_id, fw.impl.name, fw.target, trials, 0, "pass")
    reference: dict[int, CallResult] = {}
    first_cases: list[CtCase] = []
    for trial in range(trials):
        cases: list[CtCase] = driver.ct_cases(fw, SecretRandom(seed, trial), public_seed=seed)
        for n, case in enumerate(cases):
            if trial == 0:
                first_cases.append(case)
            else:
                _check_only_secrets_vary(fw, first_cases[n], case)
            res = fw.call(case.op, case.args, trace=True)
            report.calls += 1
            if trial == 0:
                reference[n] = res
                report.cycles[case.op] = res.cycles
                continue
            div = compare(fw, case.op, trial, reference[n], res)
            if div is not None:
                report.verdict = "fail"
                report.divergence = div
                return report
    return report
