# SPDX-License-Identifier: MIT
"""Cores: the parts an implementation has to run on, beyond the ISA family a target names.

A target (rv32, armv7m, avr) is what the build and the virtual board know; a core is a real part (or the
board's own superset) with the instruction-set extensions it actually has. The rv32 board emulates Zbb,
Zbkb, Zbkc and paper 000's proposed xmul64 instructions, but the E31 of the HiFive1 Rev B is RV32IMAC
only: an implementation declared `isa: rv32imac_zbb` runs on the board and faults on the part. `run`
without `--impl`, `list`, `export` and the report's cross-target table use this to say what runs on the
real part (the target's default core) and mark the rest ("needs Zbb: not on the E31").

On AVR a core is also a part the build and the board switch to: `mcu` is avr-gcc's -mmcu and the part the
avr board simulates (ATmega128 by default; ATmega1284P with 16 KiB SRAM; ATmega2560 with 3-byte return
addresses and EIND). Every AVR implementation runs on all three; `--core atmega2560` builds for and runs
on the 2560 (`Firmware(..., core=...)`, `make_board("avr", mcu=core.mcu)`). `sram_bytes`/`flash_bytes`
are what the image builder (mcucrypt/silicon) checks a selection against.
"""
from __future__ import annotations

from dataclasses import dataclass

from .catalog import Implementation
from .targets import TARGETS

# Extensions by display name (the E31 manual and the RISC-V specifications spell them this way).
_EXT_NAMES = {"zbb": "Zbb", "zbkb": "Zbkb", "zbkc": "Zbkc", "xmul64": "Xmul64 (paper 000's proposed instructions)",
              "m": "M", "a": "A", "c": "C"}


def rv32_extensions(isa: str | None) -> frozenset[str]:
    """'rv32imac_zbb_zbkb' -> {'i', 'm', 'a', 'c', 'zbb', 'zbkb'}; None is the target's default ISA."""
    s = (isa or TARGETS["rv32"].default_isa).lower()
    base, *rest = s.split("_")
    if not base.startswith("rv32"):
        raise ValueError(f"ISA {isa!r} is not an RV32 ISA string")
    letters = set(base[4:].replace("g", "imafd"))
    return frozenset(letters | {t for t in rest if t})


@dataclass(frozen=True)
class Core:
    name: str
    target: str
    part: str                                   # what it is, for people
    real: bool                                  # a part one can buy (False: the board's superset)
    extensions: frozenset[str] = frozenset()    # rv32: what the core implements
    mcu: str | None = None                      # avr: the -mmcu part the build and the board use
    flash_bytes: int | None = None              # the part's program memory
    sram_bytes: int | None = None               # the part's data RAM (stack and static data)

    @property
    def short(self) -> str:
        return {"e31": "the E31", "cortex-m3": "the Cortex-M3", "atmega128": "the ATmega128",
                "atmega1284p": "the ATmega1284P", "atmega2560": "the ATmega2560"}.get(self.name, self.name)

    def why_not(self, impl: Implementation) -> str | None:
        """None when ``impl`` runs on this core; otherwise the reason ('needs Zbb: not on the E31')."""
        if self.target not in impl.targets:
            return f"not built for {self.target}"
        if self.target == "rv32":
            missing = sorted(rv32_extensions(impl.isa) - self.extensions)
            if missing:
                return f"needs {', '.join(_EXT_NAMES.get(m, m) for m in missing)}: not on {self.short}"
        return None


CORES: dict[str, Core] = {c.name: c for c in (
    Core("e31", "rv32", "SiFive E31 (HiFive1 Rev B, FE310-G002): RV32IMAC, no bit-manipulation or custom "
         "extensions", True, rv32_extensions("rv32imac")),
    Core("rv32-board", "rv32", "the rv32 virtual board with every extension it emulates (Zbb, Zbkb, Zbkc, "
         "xmul64): no shipping part; for research variants", False,
         rv32_extensions("rv32imac_zbb_zbkb_zbkc_xmul64")),
    Core("cortex-m3", "armv7m", "ARM Cortex-M3 (ARMv7-M), e.g. STM32F1, SAM3X (Arduino Due)", True),
    Core("atmega128", "avr", "Microchip ATmega128 (8-bit AVR, 128 KiB flash, 4 KiB SRAM)", True,
         mcu="atmega128", flash_bytes=128 * 1024, sram_bytes=4 * 1024),
    Core("atmega1284p", "avr", "Microchip ATmega1284P (8-bit AVR, 128 KiB flash, 16 KiB SRAM; every AVR "
         "implementation runs there)", True, mcu="atmega1284p", flash_bytes=128 * 1024, sram_bytes=16 * 1024),
    Core("atmega2560", "avr", "Microchip ATmega2560 (Arduino Mega; 8-bit AVR, 256 KiB flash, 8 KiB SRAM, "
         "3-byte return addresses, EIND; every AVR implementation runs there)", True, mcu="atmega2560",
         flash_bytes=256 * 1024, sram_bytes=8 * 1024),
    Core("host", "host", "the build machine (correctness only)", False),
)}

# The seeds' real parts: what a target means when no core is named.
DEFAULT_CORE = {"rv32": "e31", "armv7m": "cortex-m3", "avr": "atmega128", "host": "host"}


class CoreError(ValueError):
    pass


def get_core(target: str, name: str | None = None) -> Core:
    """The named core (which must belong to ``target``), or the target's default core."""
    name = name or DEFAULT_CORE[target]
    core = CORES.get(name)
    if core is None:
        raise CoreError(f"unknown core {name!r} (known: {', '.join(CORES)})")
    if core.target != target:
        mine = [c.name for c in CORES.values() if c.target == target]
        raise CoreError(f"core {name} is a {core.target} part, not {target} (cores of {target}: {', '.join(mine)})")
    return core


def default_core(target: str) -> Core:
    return CORES[DEFAULT_CORE[target]]
