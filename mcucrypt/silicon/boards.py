# SPDX-License-Identifier: MIT
"""The real boards the benchmark image is built for: one table."""
from __future__ import annotations

from dataclasses import dataclass

from ..targets import ROOT

REAL_DIR = ROOT / "boards" / "real"


@dataclass(frozen=True)
class RealBoard:
    name: str
    target: str                     # the virtual board whose implementations and figures it shares
    description: str
    cc_flags: tuple[str, ...]       # replacing the target's -mmcu / -march where the part differs
    sources: tuple[str, ...]        # support files, relative to boards/real
    link_script: str | None         # relative to boards/real (None: the toolchain's, AVR)
    max_isa: frozenset[str] | None  # rv32: the extensions the core has (implementations needing more are refused)
    data_budget: int                # bytes of embedded vector data the image may carry by default
    qemu: tuple[str, ...] | None    # CI boot: command line before the image
    qemu_ram_kb: int | None = None  # SRAM of the QEMU machine when smaller than the board's
    mcu: str | None = None          # AVR: the part (simavr's name)
    hex_offset: int = 0             # added to every .hex address (STM32: the flash's real address)
    pc_bytes: int = 2               # AVR program counter width


_CM3 = ("common/runner.c", "common/cortexm.c", "common/vectors.c")
_AVR = ("common/runner.c", "common/avr.c")

REAL_BOARDS: dict[str, RealBoard] = {b.name: b for b in (
    RealBoard("hifive1-revb", "rv32", "SiFive HiFive1 Rev B (FE310-G002, E31 core), 16 MHz HFXOSC, UART0, mcycle",
              (), ("hifive1-revb/start.S", "hifive1-revb/board.c", "common/runner.c"), "hifive1-revb/link.ld",
              frozenset({"i", "m", "a", "c"}), 128 * 1024,
              ("qemu-system-riscv32", "-M", "sifive_e,revb=true")),
    RealBoard("stm32f103", "armv7m", "STM32F103 (Blue Pill), 24 MHz HSI+PLL, 0 wait states, USART1 PA9, DWT CYCCNT",
              (), ("stm32f103/board.c", *_CM3), "stm32f103/link.ld", None, 24 * 1024,
              ("qemu-system-arm", "-M", "stm32vldiscovery"), qemu_ram_kb=8, hex_offset=0x0800_0000),
    RealBoard("lm3s6965", "armv7m", "TI Stellaris LM3S6965 EVB, 50 MHz PLL, UART0, DWT CYCCNT",
              (), ("lm3s6965/board.c", *_CM3), "lm3s6965/link.ld", None, 96 * 1024,
              ("qemu-system-arm", "-M", "lm3s6965evb")),
    RealBoard("atmega128", "avr", "ATmega128 at 16 MHz, USART0, Timer1 (prescaler 1, overflow counting)",
              ("-mmcu=atmega128",), _AVR, None, None, 24 * 1024,
              None, mcu="atmega128"),
    RealBoard("mega2560", "avr", "Arduino Mega 2560 (ATmega2560, 16 MHz, 3-byte PC), USART0, Timer1",
              ("-mmcu=atmega2560",), _AVR, None, None, 24 * 1024,
              ("qemu-system-avr", "-M", "mega2560"), mcu="atmega2560", pc_bytes=3),
)}


def get_board(name: str) -> RealBoard:
    try:
        return REAL_BOARDS[name]
    except KeyError:
        raise KeyError(f"unknown board {name!r} (known: {', '.join(REAL_BOARDS)})") from None
