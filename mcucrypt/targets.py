# SPDX-License-Identifier: MIT
"""The four build targets: compiler, flags, board files. One table, read by build and by the boards."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# The checkout whose catalog, board files and build cache are used: MCUCRYPT_ROOT when set, else the
# checkout this code runs from (each checkout has its own .venv with its own editable install).
ROOT = Path(os.environ.get("MCUCRYPT_ROOT") or Path(__file__).parent.parent).expanduser().resolve()
WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes",
            "-Wcast-align", "-Wvla"]


@dataclass(frozen=True)
class Target:
    name: str
    cc: str
    description: str
    cflags: tuple[str, ...]
    ldflags: tuple[str, ...] = ()
    startup: tuple[str, ...] = ()           # board files linked into every ELF, relative to ROOT
    default_isa: str = ""                   # rv32 only: the -march a plain implementation gets
    output_suffix: str = ".elf"

    def march_flags(self, isa: str | None) -> list[str]:
        """-march for an implementation's declared ISA (rv32 only; e.g. 'rv32imac_zbb_zbkb')."""
        if self.name != "rv32":
            return []
        return [f"-march={isa or self.default_isa}", "-mabi=ilp32"]


_FREESTANDING = ("-ffreestanding", "-fno-builtin", "-ffunction-sections", "-fdata-sections")

TARGETS: dict[str, Target] = {
    "rv32": Target(
        name="rv32", cc="riscv64-unknown-elf-gcc",
        description="RV32IMAC, SiFive E31 (HiFive1 Rev B): Unicorn + E31 timing model",
        cflags=("-O2", "-std=c99", "-g", *_FREESTANDING, "-mcmodel=medlow", "-msmall-data-limit=0"),
        ldflags=("-nostdlib", "-nostartfiles", "-Wl,--gc-sections", "-T", "boards/rv32/link.ld", "-lgcc"),
        startup=("boards/rv32/start.S", "boards/common/mini_libc.c", "crypto/common/mcu_declassify.c",
                 "crypto/common/mcu_wipe.c"),
        default_isa="rv32imac",
    ),
    "armv7m": Target(
        name="armv7m", cc="arm-none-eabi-gcc",
        description="ARMv7-M, Cortex-M3: Unicorn (Thumb, Cortex-M3 CPU model) + Cortex-M3 timing model",
        cflags=("-O2", "-std=c99", "-g", "-mcpu=cortex-m3", "-mthumb", *_FREESTANDING),
        ldflags=("-nostdlib", "-nostartfiles", "-Wl,--gc-sections", "-T", "boards/armv7m/link.ld", "-lgcc"),
        startup=("boards/armv7m/start.S", "boards/common/mini_libc.c", "crypto/common/mcu_declassify.c",
                 "crypto/common/mcu_wipe.c"),
    ),
    "avr": Target(
        name="avr", cc="avr-gcc",
        description="AVR ATmega128: simavr through libsimavr, cycle-exact",
        cflags=("-O2", "-std=c99", "-g", "-mmcu=atmega128", "-ffunction-sections", "-fdata-sections"),
        ldflags=("-mmcu=atmega128", "-Wl,--gc-sections"),
        startup=("boards/avr/start.c", "crypto/common/mcu_declassify.c",
                 "crypto/common/mcu_wipe.c"),
    ),
    "host": Target(
        name="host", cc="gcc",
        description="the build machine (x86-64 Linux): shared library called through ctypes; no cycle model",
        cflags=("-O2", "-std=c99", "-g", "-fPIC"),
        ldflags=("-shared",),
        startup=("crypto/common/mcu_declassify.c", "crypto/common/mcu_wipe.c"),
        output_suffix=".so",
    ),
}

# The sanitizer build of the host target, used by the tests (not a board of its own).
HOST_SANITIZE_FLAGS = ("-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")


def get_target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise KeyError(f"unknown target {name!r} (known: {', '.join(TARGETS)})") from None
