# SPDX-License-Identifier: MIT
"""AES-128 on the ATmega128 (issue 19): the generated sources are current (each generator also runs its
code against FIPS 197 before writing: gen_aes_bs_avr.py in its own AVR model), and avr-bitsliced has no
table and no flash/SRAM read indexed by anything but its pointers. Vectors, the differential test and the
constant-time check run in tests/test_catalog.py."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from mcucrypt.targets import ROOT

AVR = ROOT / "crypto" / "aes" / "avr"


@pytest.mark.parametrize("generator", ["gen_aes_bs_avr.py"])
def test_generated_source_is_current(generator: str) -> None:
    proc = subprocess.run([sys.executable, str(AVR / generator), "--check"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_bitsliced_has_no_table() -> None:
    src = (AVR / "aes128_bs_avr.S").read_text()
    code = "\n".join(line.split("//")[0] for line in src.splitlines())
    assert not re.search(r"^\s*(lpm|elpm)\b", code, re.M | re.I), "avr-bitsliced reads flash"
    assert ".byte" not in code and "progmem" not in code, "avr-bitsliced carries a table"
