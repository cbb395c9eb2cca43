# SPDX-License-Identifier: MIT
"""The one interface every virtual board implements.

A board loads one ELF built for its target and calls functions in it the way the target's C ABI does:
the harness places pointer arguments (``Buf``) in the firmware's free RAM, surrounded by canaries,
passes scalars (``Int`` or plain ``int``) in registers or on the stack, runs the callee from its first
instruction until it returns, and reports what came back with the cycles and instructions it took and
the stack it used.

Design rules shared by all boards:
- the callee's cycles count from its first instruction up to and including its return instruction;
- the stack high-water is found by painting the free stack with a pattern before the call;
- a fault, an access outside the part's memories, a canary overwritten or an instruction budget
  exhausted ends the call with ``BoardFault``, whose message names the PC, the symbol+offset and the
  disassembled instruction; no call can hang.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Sequence, Union

# ``call(max_instructions=DEFAULT_MAX_INSTRUCTIONS)``: the board's own budget, ``Board.default_max_instructions``,
# sized per board so that a runaway loop faults within 5 seconds while the heaviest catalog call fits many
# times over (docs/board-<target>.md, "Faults"). A caller that needs more passes its own budget.
DEFAULT_MAX_INSTRUCTIONS = 0


@dataclass(frozen=True)
class Int:
    """A scalar argument of an explicit width in bytes (uint8_t=1, uint16_t=2, uint32_t=4, uint64_t=8).

    A plain Python ``int`` argument means the target's native int/pointer width
    (2 bytes on AVR, 4 on rv32 and armv7m, 8 on host)."""

    value: int
    size: int = 0  # 0: native width

    def __post_init__(self) -> None:
        if self.size not in (0, 1, 2, 4, 8):
            raise ValueError(f"unsupported scalar width {self.size}")


@dataclass(frozen=True)
class Buf:
    """A pointer argument: a buffer the harness places in the target's RAM.

    ``data`` are its initial contents (zeros when omitted), ``size`` its length (default ``len(data)``),
    ``out`` whether its contents are read back into ``CallResult.outputs``; the buffer starts
    ``misalign`` bytes past an ``align``-byte boundary."""

    data: bytes = b""
    size: int | None = None
    out: bool = False
    align: int = 4
    misalign: int = 0       # bytes past the alignment: tests reach an implementation's unaligned paths

    @property
    def length(self) -> int:
        return len(self.data) if self.size is None else self.size


Arg = Union[int, Int, Buf]


class MemAccess(NamedTuple):
    """One data-memory access of a traced call (a tuple: traces hold millions of them)."""
    pc: int
    address: int
    size: int
    write: bool


@dataclass
class Trace:
    """What the constant-time checker compares: every executed instruction address in order, and every
    data memory access in order (with the PC that made it). Only filled when ``call(..., trace=True)``."""

    pcs: list[int] = field(default_factory=list)
    accesses: list[MemAccess] = field(default_factory=list)
    # Instructions whose latency depends on operand values, as (pc, mnemonic, operand values, cycles).
    variable_latency: list[tuple[int, str, tuple[int, ...], int]] = field(default_factory=list)


@dataclass(frozen=True)
class TaintSpec:
    """Which inputs of a call are secret, for taint tracking (``call(..., taint=TaintSpec(...))``).

    ``secret_args`` maps an argument index to the label its taint carries (the META.yml parameter
    name): a ``Buf`` argument taints every byte of its initial contents, a scalar its register(s)
    or stack slot. Taint then propagates at instruction level through registers, flags/carry and memory
    (byte granularity); each value carries the set of labels it was computed from.

    ``public_bytes`` maps an argument index to byte ranges [start, end) of that secret buffer that hold
    public values (an incremental context's fill counter beside its secret state): they start untainted."""

    secret_args: dict[int, str]
    public_bytes: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def secret_ranges(self, index: int, length: int) -> list[tuple[int, int]]:
        """The [start, end) ranges of a secret buffer argument of ``length`` bytes that start tainted."""
        ranges, at = [], 0
        for start, end in sorted(self.public_bytes.get(index, ())):
            if start > at:
                ranges.append((at, min(start, length)))
            at = max(at, end)
        if at < length:
            ranges.append((at, length))
        return [(a, b) for a, b in ranges if a < b]


# The kinds of taint finding (what carried secret taint).
TAINT_BRANCH = "branch"                      # a conditional branch's condition
TAINT_INDIRECT_JUMP = "indirect-jump"        # the target of an indirect jump or call
TAINT_ADDRESS = "address"                    # the address of a load or store
TAINT_VARIABLE_LATENCY = "variable-latency"  # an operand of an instruction whose latency depends on it

# Declassification: a call to this symbol (``uint32_t mcu_declassify(uint32_t v)``, identity) clears the
# taint of its argument, so the value it returns is public. Only APIs that publish a secret-derived
# result by contract use it (AEAD decryption's accept/reject verdict).
DECLASSIFY_SYMBOL = "mcu_declassify"


@dataclass(frozen=True)
class TaintFinding:
    kind: str                   # one of TAINT_*
    pc: int
    symbol: str                 # 'function+0xoffset'
    instruction: str            # disassembly
    labels: tuple[str, ...]     # the secret parameters the tainted value came from
    detail: str = ""            # e.g. which operand/register was tainted


@dataclass(frozen=True)
class Declassified:
    """One call of ``mcu_declassify`` whose argument carried secret taint (taint mode): the value it
    made public, the labels it carried and the call's return address (the checker's declassification
    policy, ct.py, decides whether the kind's standard makes that value public)."""
    value: int
    labels: tuple[str, ...]
    caller: int                 # the return address of the call (0 where the board cannot tell)


@dataclass
class CallResult:
    outputs: list[bytes]        # contents after the call of every Buf with out=True, in argument order
    return_value: int           # the callee's return register(s), unsigned, native width
    cycles: int
    instructions: int
    stack_bytes: int            # stack high-water of the call, return address included
    trace: Trace | None = None
    taint: list[TaintFinding] | None = None   # with call(..., taint=...): findings, first occurrence per (pc, kind)
    declassified: list[Declassified] | None = None   # with taint: every tainted mcu_declassify argument, in order
    # With taint: the address of every instruction whose taint the engine tracked (executed, or on the
    # Cortex-M3 skipped in an IT block): the checker's path coverage. None where the engine does not say.
    executed: frozenset[int] | None = None
    # What the call left on its stack: the contents, after it returned, of the stack it used below its
    # entry stack pointer (lowest address first, from the deepest byte that no longer holds the paint; on
    # AVR the return address its caller pushed is not part of it). A byte still holding STACK_PAINT was
    # not written; any other byte is what the callee (or the code it called) left there. Empty on host.
    stack_left: bytes = b""


class BoardError(Exception):
    """Bad use of a board (unknown symbol, ELF for another target, arguments that do not fit)."""


class BoardFault(BoardError):
    """The firmware misbehaved: illegal instruction, access outside memory, runaway loop, smashed canary."""

    def __init__(self, reason: str, pc: int | None = None, symbol: str = "?", instruction: str = "?"):
        self.reason = reason
        self.pc = pc
        self.symbol = symbol
        self.instruction = instruction
        where = f" at pc=0x{pc:x} ({symbol}): {instruction}" if pc is not None else ""
        super().__init__(f"{reason}{where}")


class Board(abc.ABC):
    """A virtual board for one target. Subclasses: AvrBoard, Rv32Board, Armv7mBoard, HostBoard."""

    target: str = "?"
    native_int_size: int = 4
    supports_taint: bool = False     # True where call(..., taint=TaintSpec) is implemented
    default_max_instructions: int = 5_000_000    # the budget of a call that names none (see DEFAULT_MAX_INSTRUCTIONS)

    def instruction_budget(self, max_instructions: int) -> int:
        """The budget a call runs with: the board's default for DEFAULT_MAX_INSTRUCTIONS, else the caller's,
        which must be positive."""
        if max_instructions == DEFAULT_MAX_INSTRUCTIONS:
            return self.default_max_instructions
        if max_instructions < 1:
            raise BoardError(f"max_instructions must be positive, not {max_instructions}")
        return max_instructions

    @abc.abstractmethod
    def load(self, elf: Path | str) -> None:
        """Load an ELF built for this target (segments at their addresses, symbols for diagnostics)."""

    @abc.abstractmethod
    def call(self, symbol: str, args: Sequence[Arg] = (), *, trace: bool = False,
             max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, ret_size: int = 0,
             taint: TaintSpec | None = None) -> CallResult:
        """Call ``symbol`` with ``args`` per the target's C ABI and return what it did.

        ``ret_size`` is the width in bytes of the return value (0: native int width). With ``taint``,
        the call tracks secret taint and fills ``CallResult.taint`` (boards with ``supports_taint``)."""

    def symbol_at(self, address: int) -> str:
        """'function+0xoffset' for a code or data address of the loaded image ('?' if none)."""
        return "?"

    def disassemble(self, pc: int) -> str:
        """The instruction at ``pc`` as text, for fault and constant-time reports ('?' if unknown)."""
        return "?"

    def describe_model(self) -> dict:
        """Simulator and timing-model parameters, for the provenance of every result."""
        return {"target": self.target}
