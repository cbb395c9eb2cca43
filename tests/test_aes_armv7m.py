# SPDX-License-Identifier: MIT
"""AES-128 on the Cortex-M3 (crypto/aes/armv7m): the generated source is current, and cm3-table's counter
mode against the model where its caching could go wrong: across the counter's low-byte wrap (the batch
constants of rounds 1-2 are recomputed there) and the 2^32 wrap, with odd and even numbers of whole blocks
(the loop runs pairs) and partial tails. The vectors, decryption and the random differential test run in
the generic suite (`mcucrypt test`)."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.blockcipher import DRIVER
from mcucrypt.models import aes as aes_model
from mcucrypt.targets import ROOT


def test_generated_source_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "crypto/aes/armv7m/gen_aes_table_cm3.py"), "--check"])
    assert proc.returncode == 0, "aes_table_cm3.S is stale: run crypto/aes/armv7m/gen_aes_table_cm3.py"


@pytest.fixture(scope="module")
def table_fw() -> Firmware:
    return Firmware(load_catalog().implementation("aes128", "cm3-table"), "aes128", "armv7m")


# (low 32 bits of the initial counter, message length): the wrap falls on the first, a middle and the last
# block, in an odd and an even block count, with and without a tail; 0xffffffff also carries out of 2^32.
CASES = [(0x000000FF, 33), (0x123456FE, 64), (0xABCDEFFD, 47), (0xFFFFFFFF, 40), (0x00000100, 17),
         (0x7FFFFFF0, 300), (0x00000005, 15)]


@pytest.mark.parametrize("counter,length", CASES)
def test_ctr_across_counter_wraps(table_fw, counter, length):
    rng = random.Random(f"{counter}/{length}")
    key, nonce, data = rng.randbytes(16), rng.randbytes(12), rng.randbytes(length)
    iv = nonce + counter.to_bytes(4, "big")
    rk, _ = DRIVER.keyschedule(table_fw, key)
    want = DRIVER.ctr_with(lambda cb: aes_model.encrypt("aes128", key, cb), iv, data)
    assert DRIVER.ctr(table_fw, rk, iv, data)[0] == want
