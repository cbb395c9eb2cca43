# SPDX-License-Identifier: MIT
"""ChaCha20's 32-bit block counter (issue 35): xor refuses, with -1 and nothing written, a length that
would wrap it (counter + ceil(len / 64) > 2^32: block 0's key stream would come back), on every
implementation of every board, and encrypts up to the last block below 2^32; the model says which; the
driver catches a wrong verdict; `mcucrypt run` refuses with one line and exit 2. (Vectors, the
differential test, which runs the same limit cases, and the constant-time check: tests/test_catalog.py.)"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys

import pytest

from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds import stream
from mcucrypt.kinds.base import Mismatch, UsageError
from mcucrypt.models import chacha20 as model
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
DRIVER = stream.DRIVER
IMPLS = [(impl.name, target) for impl in CATALOG.by_id("chacha20").implementations.values()
         for target in impl.targets]


def test_model_counter_limit() -> None:
    assert not model.counter_wraps(2**32 - 1, 64) and model.counter_wraps(2**32 - 1, 65)
    assert not model.counter_wraps(0, 64 * 2**32) and model.counter_wraps(0, 64 * 2**32 + 1)
    assert not model.counter_wraps(2**32 - 1, 0)
    with pytest.raises(ValueError):
        model.xor(bytes(32), bytes(12), 2**32 - 1, bytes(65))
    assert sum(model.counter_wraps(c, n) for c, n in stream.COUNTER_LIMIT_CASES) == 3


@pytest.mark.parametrize("impl,target", IMPLS)
def test_xor_refuses_a_wrapping_counter(impl: str, target: str) -> None:
    fw = Firmware(CATALOG.implementation("chacha20", impl), "chacha20", target)
    assert DRIVER.check_counter_limit(fw, random.Random(f"limit/{impl}/{target}")) == len(stream.COUNTER_LIMIT_CASES)


def test_driver_catches_a_wrong_verdict(force_verdict) -> None:
    fw = Firmware(CATALOG.implementation("chacha20", "ref"), "chacha20", "host")
    for value in (0, 0xFFFFFFFF, 2):    # a wrap accepted, a fitting length refused, neither 0 nor -1
        force_verdict(fw, value)
        with pytest.raises(Mismatch):
            DRIVER.check_counter_limit(fw, random.Random(0))


def test_run_refuses_a_wrapping_counter() -> None:
    fw = Firmware(CATALOG.implementation("chacha20", "ref"), "chacha20", "host")
    opts = argparse.Namespace(key="00" * 32, nonce="00" * 12, counter=2**32 - 1, input="00" * 64)
    assert DRIVER.run(fw, opts)[0] == model.block(bytes(32), bytes(12), 2**32 - 1)
    opts.input = "00" * 65
    with pytest.raises(UsageError):
        DRIVER.run(fw, opts)
    bad = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", "chacha20", "--target", "host", "--impl",
                          "ref", "--key", "00" * 32, "--nonce", "00" * 12, "--counter", str(2**32 - 1), "--input",
                          "00" * 65], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "wrap" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
