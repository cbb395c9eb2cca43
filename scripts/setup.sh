#!/usr/bin/env bash
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
)
APT_PACKAGES+=(chromium)   # the report-rendering test loads report.html in headless Chromium
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

PY=${PYTHON:-python3}
stamp=build/.pip-stamp
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$PY" -c "import mcucrypt, unicorn, capstone, elftools, rich, yaml, pytest, xdist, hypothesis" 2>/dev/null \
   || ! command -v mcucrypt >/dev/null; then
  echo "setup: installing the mcucrypt Python package and its dependencies"
  "$PY" -m pip install -q --disable-pip-version-check -e ".[test]"
  mkdir -p build && echo "$want" > "$stamp"
fi
