# SPDX-License-Identifier: MIT
"""One implementation of one primitive id, built for one target and loaded on that target's board.

Kind drivers (mcucrypt/kinds) talk to implementations only through ``Firmware.call(op, named args)``:
arguments are given by their C parameter names from META.yml, pointers as ``Buf`` and scalars as ints,
which this class orders and sizes per the prototype for the target's ABI.
"""
from __future__ import annotations

from functools import cached_property, lru_cache
from typing import Mapping, Sequence

from .boards import make_board
from .boards.base import DEFAULT_MAX_INSTRUCTIONS, Arg, Board, Buf, CallResult, Int, TaintSpec
from .build import Image, build, code_size, static_ram_size
from .catalog import CatalogError, Implementation, Param, load_catalog
from .cores import Core, get_core


class Firmware:
    """``warm=True`` measures every call after one identical training call, with the branch predictor
    keeping what it learnt (rv32; the other boards carry no state between calls, so it changes nothing
    there): the figure a benchmark loop on the real board reports."""

    def __init__(self, impl: Implementation, prim_id: str, target: str, *, sanitize: bool = False,
                 warm: bool = False, core: Core | str | None = None, cflags: Sequence[str] = ()):
        """``core``: the part to build for and run on (mcucrypt/cores.py; default the target's own: an AVR
        core other than the ATmega128 changes -mmcu and the board's part). ``cflags``: extra compiler flags
        after the target's (e.g. -Os -flto, as firmware builds it), also passed to the link."""
        if target not in impl.targets:
            raise CatalogError(f"{impl.name} of {prim_id} does not run on {target} "
                               f"(it runs on: {', '.join(impl.targets)})")
        # The core decides the part only where the target has several (avr: its mcu); on rv32 the board
        # stays the board (it also runs the Zbb variants the E31 lacks: `run --impl` allows them).
        # An instance may name the part it needs on a target (`avr_core: atmega1284p` in META.yml: ML-DSA's
        # keygen and sign need more than the ATmega128's 4 KiB of SRAM); an explicit core wins.
        if core is None:
            core = impl.params(prim_id).get(f"{target}_core")
        self.core: Core = core if isinstance(core, Core) else get_core(target, core)
        mcu = self.core.mcu if self.core.mcu != get_core(target).mcu else None
        self.impl = impl
        self.prim_id = prim_id
        self.target = target
        self.params = impl.params(prim_id)
        # The runaway budget of every call: the board's default, or the instance's `max_instructions`
        # in META.yml for primitives whose one call legitimately runs longer (an X25519 ladder on AVR).
        self.max_instructions: int = int(self.params.get("max_instructions", DEFAULT_MAX_INSTRUCTIONS))
        self.image: Image = build(
            target, impl.sources, name=f"{prim_id}-{impl.name}", impl=impl.name,
            isa=impl.isa if target == "rv32" else None, defines=impl.defines,
            keep=impl.symbols(prim_id), sanitize=sanitize, extra_cflags=tuple(cflags), mcu=mcu)
        self.board: Board = make_board(target, mcu)
        self.warm = warm and hasattr(self.board, "warm_predictor")
        if self.warm:
            self.board.warm_predictor = True  # type: ignore[attr-defined]
        if target == "rv32":
            self.board.load(self.image.path, isa=impl.isa)  # type: ignore[call-arg]
        else:
            self.board.load(self.image.path)

    @cached_property
    def code_bytes(self) -> int:
        return code_size(self.image, self.impl.sources)

    @cached_property
    def static_ram_bytes(self) -> int:
        return static_ram_size(self.image, self.impl.sources)

    def has(self, op: str) -> bool:
        """Whether this id exports ``op`` (an instance's ``ops`` may list fewer than the family's functions)."""
        ops = self.params.get("ops")
        return op in self.impl.functions and (ops is None or op in ops)

    def arguments(self, op: str, named: Mapping[str, Arg]) -> list[Arg]:
        proto = self.impl.functions[op]
        missing = [p.name for p in proto.params if p.name not in named]
        extra = set(named) - {p.name for p in proto.params}
        if missing or extra:
            raise CatalogError(f"{proto.name_template}: missing arguments {missing}, unexpected {sorted(extra)}")
        args: list[Arg] = []
        for p in proto.params:
            value = named[p.name]
            if p.is_pointer:
                if not isinstance(value, Buf):
                    raise CatalogError(f"{p.name} is a pointer: pass a Buf")
                args.append(value)
            else:
                v = value.value if isinstance(value, Int) else value
                args.append(Int(int(v), p.scalar_size(self.board.native_int_size)))
        return args

    def call(self, op: str, named: Mapping[str, Arg], *, trace: bool = False,
             taint: TaintSpec | None = None) -> CallResult:
        proto = self.impl.functions[op]
        ret_size = 0
        if proto.ret not in ("void", "int"):
            ret_size = Param(proto.ret, "ret").scalar_size(self.board.native_int_size)
        symbol, args = proto.symbol(self.prim_id, self.impl.name), self.arguments(op, named)
        if self.warm:
            self.board.call(symbol, args, ret_size=ret_size, max_instructions=self.max_instructions)
        if taint is not None:
            return self.board.call(symbol, args, trace=trace, ret_size=ret_size, taint=taint,
                                   max_instructions=self.max_instructions)
        return self.board.call(symbol, args, trace=trace, ret_size=ret_size,
                               max_instructions=self.max_instructions)


@lru_cache(maxsize=None)
def shared_firmware(prim_id: str, impl: str, target: str) -> Firmware:
    """One Firmware per (id, implementation name, target) in a process, built and loaded once: the tests'
    many calls to the same implementation share its image and board (a call leaves nothing behind)."""
    return Firmware(load_catalog().implementation(prim_id, impl), prim_id, target)
