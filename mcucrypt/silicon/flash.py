# SPDX-License-Identifier: MIT
"""`make flash BOARD=...`: write a built image to a real board with the usual tool for it.

When the tool is not installed, nothing is run: the exact command is printed and the exit status is 1.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from .boards import REAL_BOARDS, get_board
from .virtual import describe

# board -> tool -> command (with {elf}, {bin}, {hex}, {port}); the first tool is the default
FLASH_TOOLS: dict[str, dict[str, list[str]]] = {
    "hifive1-revb": {
        "openocd": ["openocd", "-f", "board/sifive-hifive1-revb.cfg", "-c", "program {elf} verify reset exit"],
        "jlink": ["JLinkExe", "-device", "FE310", "-if", "JTAG", "-speed", "4000", "-jtagconf", "-1,-1",
                  "-autoconnect", "1", "-CommanderScript", "{dir}/flash.jlink"],
    },
    "stm32f103": {
        "openocd": ["openocd", "-f", "interface/stlink.cfg", "-f", "target/stm32f1x.cfg",
                    "-c", "program {hex} verify reset exit"],
        "st-flash": ["st-flash", "--reset", "write", "{bin}", "0x08000000"],
    },
    "lm3s6965": {
        "openocd": ["openocd", "-f", "board/ek-lm3s6965.cfg", "-c", "program {elf} verify reset exit"],
    },
    "atmega128": {
        "avrdude": ["avrdude", "-p", "m128", "-c", "avrispmkII", "-P", "{port}", "-U", "flash:w:{hex}:i"],
    },
    "mega2560": {
        "avrdude": ["avrdude", "-p", "m2560", "-c", "wiring", "-P", "{port}", "-b", "115200", "-D",
                    "-U", "flash:w:{hex}:i"],
    },
}
DEFAULT_PORT = {"atmega128": "usb", "mega2560": "/dev/ttyACM0"}


def command(board: str, image_dir: Path, tool: str | None = None, port: str | None = None) -> list[str]:
    tools = FLASH_TOOLS[get_board(board).name]
    tool = tool or next(iter(tools))
    if tool not in tools:
        raise KeyError(f"no {tool!r} recipe for {board} (known: {', '.join(tools)})")
    elf = image_dir / f"mcucrypt-{board}.elf"
    fields = {"elf": elf, "bin": elf.with_suffix(".bin"), "hex": elf.with_suffix(".hex"), "dir": image_dir,
              "port": port or DEFAULT_PORT.get(board, "")}
    return [part.format(**{k: str(v) for k, v in fields.items()}) for part in tools[tool]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mcucrypt.silicon.flash")
    p.add_argument("--board", required=True, choices=sorted(REAL_BOARDS))
    p.add_argument("--dir", required=True, help="the image directory (mcucrypt firmware --out)")
    p.add_argument("--tool", default=None)
    p.add_argument("--port", default=None, help="AVR: the programmer's port (default /dev/ttyACM0 / usb)")
    opts = p.parse_args(argv)
    try:
        cmd = command(opts.board, Path(opts.dir), opts.tool, opts.port)
    except KeyError as e:
        print(f"flash: {e.args[0]}", file=sys.stderr)
        return 2
    image_dir = Path(opts.dir)
    if cmd[0] == "JLinkExe":
        elf = image_dir / f"mcucrypt-{opts.board}.elf"
        (image_dir / "flash.jlink").write_text(f"loadfile {elf.with_suffix('.hex')}\nrnh\ngo\nexit\n")
    if shutil.which(cmd[0]) is None:
        print(f"flash: {cmd[0]} is not installed; the command would be:\n{describe(cmd)}")
        return 1
    print(describe(cmd), flush=True)
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
