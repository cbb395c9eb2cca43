# SPDX-License-Identifier: MIT
"""The host 'board': the implementation built as a shared library for this machine, called through ctypes.

It exists for correctness (vectors, differential tests, the sanitizer build); it has no cycle model,
so its CallResult carries cycles = instructions = stack_bytes = 0 and bench leaves host out."""
from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Sequence

from .base import Arg, Board, BoardError, BoardFault, Buf, CallResult, Int, DEFAULT_MAX_INSTRUCTIONS
from .common import CANARY

_CTYPES = {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}


class HostBoard(Board):
    target = "host"
    native_int_size = 8

    def __init__(self) -> None:
        self._lib: ctypes.CDLL | None = None

    def load(self, elf: Path | str) -> None:
        self._lib = ctypes.CDLL(str(Path(elf).resolve()))

    def call(self, symbol: str, args: Sequence[Arg] = (), *, trace: bool = False,
             max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, ret_size: int = 0) -> CallResult:
        if self._lib is None:
            raise BoardError("no library loaded")
        try:
            fn = getattr(self._lib, symbol)
        except AttributeError:
            raise BoardError(f"symbol {symbol!r} not found") from None
        fn.restype = _CTYPES[ret_size or 4]
        c_args = []
        buffers: list[tuple[Buf, ctypes.Array]] = []
        n = len(CANARY)
        for a in args:
            if isinstance(a, Buf):
                # ctypes arrays are 16-byte aligned and the canary is 16 bytes: the body is aligned,
                # then moved by `misalign`.
                raw = (ctypes.c_uint8 * (a.length + 2 * n + a.misalign)).from_buffer_copy(
                    CANARY + bytes(a.misalign) + a.data.ljust(a.length, b"\0")[: a.length] + CANARY)
                buffers.append((a, raw))
                c_args.append(ctypes.cast(ctypes.byref(raw, n + a.misalign), ctypes.c_void_p))
            else:
                size = a.size if isinstance(a, Int) and a.size else 8
                c_args.append(_CTYPES[size](a.value if isinstance(a, Int) else a))
        rv = fn(*c_args)
        outputs = []
        for i, (buf, raw) in enumerate(buffers):
            data = bytes(raw)
            if data[:n] != CANARY or data[-n:] != CANARY:
                raise BoardFault(f"canary around buffer {i} ({buf.length} bytes) overwritten by {symbol}")
            if buf.out:
                outputs.append(data[n + buf.misalign:-n])
        return CallResult(outputs=outputs, return_value=int(rv), cycles=0, instructions=0,
                          stack_bytes=0, trace=None)
