# SPDX-License-Identifier: MIT
"""Run a benchmark image from its reset vector: on the project's virtual boards (``run_image``), and on
QEMU or simavr for the CI boot test (``run_qemu``, ``run_simavr``).

On the virtual boards the image meets the peripherals it uses, emulated here around the boards' own
emulators (the boards' code is not changed):

- ``rv32`` (hifive1-revb): the Rv32Board runs ``_start`` like a function; PRCI, GPIO and UART0 are
  memory-mapped I/O (UART0 ``txdata`` writes are captured, never full; the HFXOSC reports ready, the PLL
  locked); ``mcycle`` reads are the board's own (the E31 model's count, rv32.py ``_on_counter_read``).
- ``armv7m`` (stm32f103, lm3s6965): the Armv7mBoard runs ``Reset_Handler``; RCC/SYSCTL, flash interface,
  GPIO and the USART/UART are memory-mapped I/O (the PLL reports ready/locked so the image takes its real
  clock path); DWT CYCCNT reads return the Cortex-M3 model's cycle count so far (the board charges a
  basic block when it starts, so a read sees its whole block: the same in the timed and the empty
  call, so the harness subtraction removes it).
- ``avr`` (atmega128, mega2560): simavr's full run loop (``simavr_run.c``) with USART0 and Timer1, whose
  counter is simavr's cycle count.

The image's ``.data``/``.rodata`` copies (crt0 reads them from flash, their load address) are written
into the board's flash at their load addresses, as a flash programmer would.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile

from ..boards.base import BoardError
from ..targets import ROOT
from .boards import RealBoard

RUNNER_SOURCE = Path(__file__).with_name("simavr_run.c")
RUNNER_DIR = ROOT / "build" / "shim"
DEFAULT_MAX_INSTRUCTIONS = 400_000_000
END_MARK = '{"summary":'


@dataclass
class ImageRun:
    log: str            # everything the image printed on its UART
    cycles: int         # the board's cycle count for the whole run (0 on QEMU)
    finished: bool      # the image reached its end (mcu_halt / cli; sleep / the summary line)


def _load_copies(elf: Path) -> list[tuple[int, bytes]]:
    """(load address, bytes) of every loadable segment whose load address is not its run address."""
    out = []
    with open(elf, "rb") as f:
        for seg in ELFFile(f).iter_segments():
            if seg["p_type"] == "PT_LOAD" and seg["p_filesz"] and seg["p_paddr"] != seg["p_vaddr"]:
                out.append((seg["p_paddr"], seg.data()))
    return out


class _Mmio:
    """A page of memory-mapped registers: reads return what was written unless a rule says otherwise."""

    def __init__(self, base: int, read_rules=None, write_rules=None):
        self.base = base
        self.regs: dict[int, int] = {}
        self.read_rules = read_rules or {}
        self.write_rules = write_rules or {}

    def read(self, _uc, offset: int, _size: int, _user) -> int:
        rule = self.read_rules.get(offset)
        value = self.regs.get(offset, 0)
        return rule(value) if rule else value

    def write(self, _uc, offset: int, _size: int, value: int, _user) -> None:
        rule = self.write_rules.get(offset)
        self.regs[offset] = value
        if rule:
            rule(value)

    def map(self, uc) -> None:
        uc.mmio_map(self.base, 0x1000, self.read, None, self.write, None)


def run_image(board: RealBoard, elf: Path, *, max_instructions: int = DEFAULT_MAX_INSTRUCTIONS) -> ImageRun:
    """Execute ``elf`` from reset on the board's virtual board; return its UART output and cycles."""
    if board.target == "avr":
        return run_simavr(board, elf)
    uart: list[str] = []
    if board.target == "rv32":
        from ..boards.rv32 import SENTINEL, Rv32Board
        b = Rv32Board()
        b.warm_predictor = True     # the image's own warm-up call trains it, as on the part
        b.load(elf, isa="rv32imac")
        uc = b._uc
        for addr, data in _load_copies(elf):
            uc.mem_write(addr, data)
        _Mmio(0x1000_8000, read_rules={0x4: lambda v: v | (1 << 31) if v & (1 << 30) else v,
                                       0x8: lambda v: v | (1 << 31)}).map(uc)
        _Mmio(0x1001_2000).map(uc)
        _Mmio(0x1001_3000, read_rules={0x0: lambda v: 0, 0x4: lambda v: 1 << 31},
              write_rules={0x0: lambda v: uart.append(chr(v & 0xFF))}).map(uc)
        entry, stop = "_start", SENTINEL
    else:
        from ..boards.armv7m import SENTINEL, Armv7mBoard
        b = Armv7mBoard()
        b.load(elf)
        uc = b._uc
        for addr, data in _load_copies(elf):
            uc.mem_write(addr, data)

        def cycles(_v: int) -> int:
            return (b._cycles + b._variable_cycles + b._unaligned_cycles) & 0xFFFF_FFFF
        _Mmio(0xE000_1000, read_rules={0x4: cycles}).map(uc)
        _Mmio(0xE000_E000).map(uc)
        if board.name == "stm32f103":
            _Mmio(0x4002_1000, read_rules={0x0: lambda v: v | (v & (1 << 24)) << 1 | (v & (1 << 16)) << 1,
                                           0x4: lambda v: v & ~0xC | (v & 3) << 2}).map(uc)
            _Mmio(0x4002_2000).map(uc)
            _Mmio(0x4001_0000).map(uc)      # AFIO and GPIOA (0x4001_0800)
            _Mmio(0x4001_3000, read_rules={0x800: lambda v: 0xC0},
                  write_rules={0x804: lambda v: uart.append(chr(v & 0xFF))}).map(uc)
        else:
            _Mmio(0x400F_E000, read_rules={0x50: lambda v: 1 << 6}).map(uc)
            _Mmio(0x4000_4000).map(uc)
            _Mmio(0x4000_C000, read_rules={0x18: lambda v: 0x90},
                  write_rules={0x0: lambda v: uart.append(chr(v & 0xFF))}).map(uc)
        entry, stop = "Reset_Handler", SENTINEL | 1
    halt = b.image.address_of("mcu_halt") & ~1 if board.target == "rv32" else b._image.address_of("mcu_halt") & ~1

    def on_halt(uc_, _address, _size, _user) -> None:
        if board.target == "rv32":
            from unicorn.riscv_const import UC_RISCV_REG_PC
            uc_.reg_write(UC_RISCV_REG_PC, stop)
        else:
            from unicorn.arm_const import UC_ARM_REG_PC
            uc_.reg_write(UC_ARM_REG_PC, stop)
        uc_.emu_stop()

    from unicorn import UC_HOOK_CODE
    uc.hook_add(UC_HOOK_CODE, on_halt, begin=halt, end=halt)
    result = b.call(entry, [], max_instructions=max_instructions)
    log = "".join(uart)
    return ImageRun(log, result.cycles, END_MARK in log)


# ------------------------------------------------------------------------------------------ simavr

def runner_binary() -> Path:
    """simavr_run, compiled once per machine into build/shim/ (cached by source and flags)."""
    from ..boards.avr import _simavr_flags
    flags = [*_simavr_flags(), "-lelf"]
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        raise BoardError(f"{cc} not found: simavr_run is compiled on first use")
    h = hashlib.sha256(RUNNER_SOURCE.read_bytes() + " ".join(flags).encode()).hexdigest()[:16]
    path = RUNNER_DIR / f"simavr_run-{h}"
    if not path.is_file():
        RUNNER_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
        proc = subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", str(RUNNER_SOURCE), "-o", str(tmp),
                               *flags], capture_output=True, text=True)
        if proc.returncode != 0:
            raise BoardError(f"compiling simavr_run.c failed (is libsimavr-dev installed?):\n{proc.stderr}")
        os.replace(tmp, path)
    return path


def run_simavr(board: RealBoard, elf: Path, *, f_cpu: int = 16_000_000,
               max_cycles: int = 4_000_000_000) -> ImageRun:
    proc = subprocess.run([str(runner_binary()), board.mcu or "atmega128", str(f_cpu), str(elf), str(max_cycles)],
                          capture_output=True)
    log = proc.stdout.decode("latin-1")
    cycles = 0
    for line in proc.stderr.decode("latin-1").splitlines():
        if line.startswith("cycles "):
            cycles = int(line.split()[1])
    if proc.returncode == 3:
        raise BoardError(f"simavr: the {board.name} image crashed: {proc.stderr.decode('latin-1').strip()}")
    if proc.returncode == 2:
        raise BoardError(f"simavr_run: {proc.stderr.decode('latin-1').strip()}")
    return ImageRun(log, cycles, proc.returncode == 0 and END_MARK in log)


# ------------------------------------------------------------------------------------------ QEMU

def qemu_command(board: RealBoard, elf: Path) -> list[str]:
    if board.qemu is None:
        raise BoardError(f"QEMU 7.2 has no machine for {board.name} (simavr runs it)")
    cmd = [*board.qemu, "-display", "none", "-serial", "stdio", "-monitor", "none"]
    if board.target == "rv32":
        # sifive_e,revb=true boots at 0x2001_0000 like the board's boot loader; the loader device also
        # sets the PC to the ELF entry
        cmd += ["-device", f"loader,file={elf},cpu-num=0"]
    elif board.target == "avr":
        cmd += ["-bios", str(elf)]
    else:
        cmd += ["-kernel", str(elf)]
    return cmd


def run_qemu(board: RealBoard, elf: Path, *, timeout: float = 120.0) -> ImageRun:
    """Boot the image on QEMU and collect its UART until the summary line (QEMU never exits by itself:
    the image parks in WFI / sleep), or until ``timeout`` seconds."""
    cmd = qemu_command(board, elf)
    if shutil.which(cmd[0]) is None:
        raise BoardError(f"{cmd[0]} not found: install QEMU 7.2 (scripts/setup.sh: qemu-system-misc, "
                         f"qemu-system-arm)")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    out: list[str] = []
    deadline = time.monotonic() + timeout
    finished = False
    try:
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        buf = b""
        while time.monotonic() < deadline and proc.poll() is None:
            chunk = proc.stdout.read(65536)
            if not chunk:
                time.sleep(0.05)
                continue
            buf += chunk
            if END_MARK.encode() in buf and buf.rstrip().endswith(b"}") and \
                    buf[buf.rfind(END_MARK.encode()):].find(b"\n") != -1:
                finished = True
                break
        out.append(buf.decode("latin-1"))
    finally:
        proc.kill()
        proc.wait()
    return ImageRun("".join(out), 0, finished)


def describe(cmd: list[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)
