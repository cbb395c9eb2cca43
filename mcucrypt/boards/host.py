# SPDX-License-Identifier: MIT
"""The host 'board': the implementation built as a shared library for this machine, called through ctypes.

It exists for correctness (vectors, differential tests, the sanitizer build); it has no cycle model,
so its CallResult carries cycles = instructions = stack_bytes = 0 and bench leaves host out."""
from __future__ import annotations

import ctypes
import platform
from pathlib import Path
from typing import Sequence

from .base import Arg, Board, BoardError, BoardFault, Buf, CallResult, Int, DEFAULT_MAX_INSTRUCTIONS
from .common import CANARY

_CTYPES = {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}
# platform.machine() -> the e_machine of the shared libraries this host loads
HOST_MACHINES = {"x86_64": "EM_X86_64", "AMD64": "EM_X86_64", "aarch64": "EM_AARCH64", "arm64": "EM_AARCH64",
                 "riscv64": "EM_RISCV", "ppc64le": "EM_PPC64", "s390x": "EM_S390"}


def elf_machine(path: Path) -> str | None:
    """The e_machine of an ELF file ('EM_RISCV', ...), None if it is not one (the loader then says why)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    try:
        with open(path, "rb") as f:
            return ELFFile(f)["e_machine"]
    except (ELFError, OSError, ValueError, EOFError):
        return None


class HostBoard(Board):
    target = "host"
    native_int_size = 8

    def __init__(self) -> None:
        self._lib: ctypes.CDLL | None = None

    def load(self, elf: Path | str) -> None:
        """Load a shared library built for this machine. An ELF for another machine (a board's firmware)
        or a file the dynamic loader refuses is a BoardError naming it, never an OSError."""
        path = Path(elf)
        if not path.is_file():
            raise BoardError(f"no such library: {path}")
        machine = elf_machine(path)
        want = HOST_MACHINES.get(platform.machine())
        if machine is not None and want is not None and machine != want:
            raise BoardError(f"{path.name} is an ELF for {machine.removeprefix('EM_')}, not for this host "
                             f"({want.removeprefix('EM_')}): the host target calls a shared library built with "
                             "the host's compiler (cc -shared -fPIC); run a board's firmware with its --target")
        try:
            self._lib = ctypes.CDLL(str(path.resolve()))
        except OSError as e:
            raise BoardError(f"{path.name}: the host cannot load it as a shared library ({e})") from None

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
