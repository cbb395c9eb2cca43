#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Idempotent set-up for a fresh Debian 12 machine: cross toolchains and simavr from apt, the Python
# package (with its pinned dependency ranges) from pip. Skips whatever is already there, so
# `make bench` and `make test` can both run it first at no cost.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf   # rv32: riscv64-unknown-elf-gcc -march=rv32imac
  gcc-arm-none-eabi libnewlib-arm-none-eabi             # armv7m: arm-none-eabi-gcc -mcpu=cortex-m3
  gcc-avr avr-libc binutils-avr                         # avr: avr-gcc -mmcu=atmega128
  simavr libsimavr-dev libelf-dev pkg-config            # the AVR board: libsimavr behind a C shim
  gcc make                                              # host builds, the simavr shim
  python3 python3-venv                                  # the project's virtual environment (.venv)
  cmake                                                 # the exported libraries' CMake build (tests/test_export.py)
)
APT_PACKAGES+=(chromium)   # the report-rendering test loads report.html in headless Chromium
APT_PACKAGES+=(arduino-builder arduino-core-avr)   # the exported Arduino library's sketch built for the Uno and Mega 2560 (tests/test_arduino.py)
APT_PACKAGES+=(qemu-system-misc qemu-system-arm)   # CI boot of the real boards' images: QEMU 7.2 sifive_e, mega2560, stm32vldiscovery, lm3s6965evb

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python side lives in a virtual environment of this checkout (.venv), never in a global install:
# a second clone gets its own environment, code and catalog. The package is installed editable, so
# .venv/bin/mcucrypt runs this checkout's code. Nothing is done when the environment already belongs to
# this checkout, matches pyproject.toml and imports everything.
BASE_PYTHON=${MCUCRYPT_BASE_PYTHON:-python3}
VENV=.venv
stamp=$VENV/.mcucrypt-setup
want="$(sha256sum pyproject.toml | cut -d' ' -f1) $PWD"
venv_ready() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$VENV/bin/python" -c "
import sys, mcucrypt, unicorn, capstone, elftools, rich, matplotlib, yaml, pytest, xdist, hypothesis, distributed, cryptography
sys.exit(mcucrypt.__file__ != '$PWD/mcucrypt/__init__.py')" 2>/dev/null
}
if ! venv_ready; then
  if [ -f "$stamp" ] && [ "$(cut -d' ' -f2- "$stamp")" != "$PWD" ]; then
    echo "setup: $VENV was made for another directory: recreating it"
    rm -rf "$VENV"
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating the virtual environment $VENV"
    "$BASE_PYTHON" -m venv "$VENV"
  fi
  echo "setup: installing the mcucrypt Python package and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test]"
  echo "$want" > "$stamp"
fi
