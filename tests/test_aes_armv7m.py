# SPDX-License-Identifier: MIT
"""AES-128 on the Cortex-M3 (crypto/aes/armv7m): the generated sources are current (the bitsliced
generator first interprets its allocated core against the AES model), and counter mode against the model
where it could go wrong: across the counter's low-byte wrap (cm3-table recomputes its round 1-2 batch
constants there) and up to the last counter below 2^32, with odd and even numbers of whole blocks (both
loops run pairs) and partial tails; a length reaching past 2^32 is refused (the generic suite's
check_ctr_limits) and ctr128 carries into the upper words instead. The vectors, decryption and the random differential test run in
the generic suite (`mcucrypt test`)."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.blockcipher import DRIVER
from mcucrypt.models import aes as aes_model
from mcucrypt.targets import ROOT


@pytest.mark.parametrize("generator", ["gen_aes_table_cm3.py", "gen_aes_bs_cm3.py"])
def test_generated_source_is_current(generator):
    proc = subprocess.run([sys.executable, str(ROOT / "crypto/aes/armv7m" / generator), "--check"])
    assert proc.returncode == 0, f"its output is stale: run crypto/aes/armv7m/{generator}"


@pytest.fixture(scope="module")
def firmware() -> dict:
    cat = load_catalog()
    return {impl: Firmware(cat.implementation("aes128", impl), "aes128", "armv7m")
            for impl in ("cm3-table", "cm3-bitsliced")}


# (low 32 bits of the initial counter, message length): the low-byte wrap falls on the first, a middle and
# the last block, in an odd and an even block count, with and without a tail; 0xfffffffd runs up to the
# last counter below 2^32 (2^32 - 1) and 0xffff00ff carries through three bytes.
CASES = [(0x000000FF, 33), (0x123456FE, 64), (0xABCDEFFD, 47), (0xFFFFFFFD, 40), (0x00000100, 17),
         (0x7FFFFFF0, 300), (0x00000005, 15), (0xFFFF00FF, 40)]


@pytest.mark.parametrize("impl", ["cm3-table", "cm3-bitsliced"])
@pytest.mark.parametrize("counter,length", CASES)
def test_ctr_across_counter_wraps(firmware, impl, counter, length):
    fw = firmware[impl]
    rng = random.Random(f"{counter}/{length}")
    key, nonce, data = rng.randbytes(16), rng.randbytes(12), rng.randbytes(length)
    iv = nonce + counter.to_bytes(4, "big")
    rk, _ = DRIVER.keyschedule(fw, key)
    want = DRIVER.ctr_with(lambda cb: aes_model.encrypt("aes128", key, cb), iv, data)
    assert DRIVER.ctr(fw, rk, iv, data)[0] == want
    assert DRIVER.ctr(fw, rk, iv, data, op="ctr128")[0] == want       # no carry out of the low word here


@pytest.mark.parametrize("impl", ["cm3-table", "cm3-bitsliced"])
def test_unaligned_buffers(firmware, impl):
    """Keys, blocks, counter blocks and messages at every misalignment (LDR/STR only touch them; an
    LDM/STM there would fault on the M3); round keys stay where the key schedule's contract puts them."""
    fw = firmware[impl]
    rng = random.Random(f"unaligned/{impl}")
    for mis in (1, 2, 3):
        key, block, iv = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16)
        rmis = mis if impl == "cm3-bitsliced" else 0      # cm3-table's rk is uint32_t *: aligned
        rk = fw.call("keyschedule", {"rk": Buf(size=fw.params["rk_bytes"], out=True, misalign=rmis),
                                     "key": Buf(key, misalign=mis)}).outputs[0]
        assert rk == DRIVER.keyschedule(fw, key)[0]
        got = fw.call("encrypt", {"out": Buf(size=16, out=True, misalign=mis), "in": Buf(block, misalign=4 - mis),
                                  "rk": Buf(rk, misalign=rmis)}).outputs[0]
        assert got == aes_model.encrypt("aes128", key, block)
        if fw.has("decrypt"):
            rkd = DRIVER.keyschedule(fw, key, decrypt=True)[0]
            back = fw.call("decrypt", {"out": Buf(size=16, out=True, misalign=mis), "in": Buf(got, misalign=mis),
                                       "rk": Buf(rkd)}).outputs[0]
            assert back == block
        data = rng.randbytes(70)
        want = DRIVER.ctr_with(lambda cb: aes_model.encrypt("aes128", key, cb), iv, data)
        got = fw.call("ctr", {"out": Buf(size=70, out=True, misalign=mis), "in": Buf(data, misalign=4 - mis),
                              "len": 70, "rk": Buf(rk, misalign=rmis), "iv": Buf(iv, misalign=mis)}).outputs[0]
        assert got == want
