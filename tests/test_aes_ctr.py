# SPDX-License-Identifier: MIT
"""AES-128 counter mode's two counters (issue 29): ctr, whose counter is the block's low 32-bit word,
refuses (-1, nothing written) a length whose blocks would wrap that word on every implementation that has
it (the check at the entry of each assembly routine); ctr128, SP 800-38A's whole-block 128-bit counter in
crypto/aes/ref/aes_ctr128.c, carries across the 32-, 64- and 96-bit word boundaries like the `cryptography`
package's AES-CTR and refuses only a length that would wrap 2^128. The generic suite (tests/test_catalog.py)
runs the vectors, the differential test with check_ctr_limits and the constant-time check on every
implementation; these are the edge cases by name, one implementation of each ctr routine."""
from __future__ import annotations

import random

import pytest

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.blockcipher import DRIVER, cryptography_ctr
from mcucrypt.kinds.mac import returned_minus_one
from mcucrypt.models import aes as aes_model

# every assembly ctr routine (the Zbb variants are the same generator with rori) and both C ctr128 paths
CTR_IMPLS = [("rv32-bitsliced", "rv32"), ("rv32-barrel", "rv32"), ("rv32-barrel-loop", "rv32"),
             ("cm3-table", "armv7m"), ("cm3-bitsliced", "armv7m")]
CTR128_IMPLS = CTR_IMPLS + [("ref", "host"), ("ref", "rv32"), ("avr-bitsliced", "avr")]
KEY = bytes(range(16))
NONCE = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafb")


@pytest.fixture(scope="module")
def firmware() -> dict:
    cat = load_catalog()
    cache: dict = {}

    def get(impl: str, target: str) -> Firmware:
        if (impl, target) not in cache:
            cache[impl, target] = Firmware(cat.implementation("aes128", impl), "aes128", target)
        return cache[impl, target]
    return get


def call(fw: Firmware, op: str, iv: bytes, data: bytes, before: bytes) -> tuple[int, bytes]:
    rk, _ = DRIVER.keyschedule(fw, KEY)
    res = fw.call(op, {"out": Buf(before, out=True), "in": Buf(data), "len": len(data), "rk": Buf(rk),
                       "iv": Buf(iv)})
    return res.return_value, res.outputs[0]


def model_ctr(iv: bytes, data: bytes, width: int) -> bytes:
    return DRIVER.ctr_with(lambda cb: aes_model.encrypt("aes128", KEY, cb), iv, data, width)


def test_model_counters_against_cryptography() -> None:
    """The driver's 128-bit counter blocks are the `cryptography` package's (OpenSSL's) across every carry."""
    rng = random.Random("ctr128-model")
    for counter in (2**32 - 2, 2**64 - 3, 2**96 - 1, 2**128 - 5):
        iv, data = counter.to_bytes(16, "big"), rng.randbytes(80)
        assert model_ctr(iv, data, 128) == cryptography_ctr(KEY, iv, data)
    low = (2**32 - 1).to_bytes(16, "big")
    assert DRIVER.ctr_wraps(low, 17) and not DRIVER.ctr_wraps(low, 16)
    assert not DRIVER.ctr_wraps(low, 17, 128)
    assert DRIVER.ctr_wraps((2**128 - 1).to_bytes(16, "big"), 17, 128)


@pytest.mark.parametrize("impl,target", CTR_IMPLS)
@pytest.mark.parametrize("counter,length,refused", [(0xFFFFFFFF, 16, False), (0xFFFFFFFF, 17, True),
                                                    (0xFFFFFFF9, 112, False), (0xFFFFFFF9, 113, True),
                                                    (0xF0000001, 2**32 - 1, True), (0xFFFFFFF0, 0, False)])
def test_ctr_refuses_a_low_word_wrap(firmware, impl, target, counter, length, refused):
    """Up to the last counter below 2^32 the key stream is the model's; one byte more and ctr returns -1 with
    out as it was. A length of 2^32 - 1 bytes is refused before a byte is read (no such buffer exists)."""
    fw = firmware(impl, target)
    iv = NONCE + counter.to_bytes(4, "big")
    if length >= 2**20:
        rk, _ = DRIVER.keyschedule(fw, KEY)
        res = fw.call("ctr", {"out": Buf(size=16, out=True), "in": Buf(bytes(16)), "len": length, "rk": Buf(rk),
                              "iv": Buf(iv)})
        assert returned_minus_one(res.return_value) and res.outputs[0] == bytes(16)
        return
    rng = random.Random(f"{impl}/{counter}/{length}")
    data, before = rng.randbytes(length), rng.randbytes(length)
    ret, out = call(fw, "ctr", iv, data, before)
    if refused:
        assert returned_minus_one(ret) and out == before
    else:
        assert ret == 0 and out == model_ctr(iv, data, 32)


@pytest.mark.parametrize("impl,target", CTR128_IMPLS)
def test_ctr128_carries_across_every_word(firmware, impl, target):
    """From a few blocks below each word boundary (32, 64, 96 bits) the counter carries on into the next
    word, as SP 800-38A's full increment and cryptography's AES-CTR do (ctr would refuse these)."""
    fw = firmware(impl, target)
    rng = random.Random(f"ctr128/{impl}/{target}")
    for w in (32, 64, 96):
        iv = ((rng.getrandbits(128 - w) << w) + 2**w - 3).to_bytes(16, "big")
        data = rng.randbytes(141)          # 9 blocks: three before the carry, six after, a 13-byte tail
        ret, out = call(fw, "ctr128", iv, data, bytes(len(data)))
        assert ret == 0 and out == cryptography_ctr(KEY, iv, data) == model_ctr(iv, data, 128), w


@pytest.mark.parametrize("impl,target", CTR128_IMPLS)
def test_ctr128_refuses_only_a_wrap_of_2_128(firmware, impl, target):
    fw = firmware(impl, target)
    rng = random.Random(f"ctr128-wrap/{impl}/{target}")
    top = (2**128 - 2).to_bytes(16, "big")
    data, before = rng.randbytes(33), rng.randbytes(33)
    ret, out = call(fw, "ctr128", top, data[:32], before[:32])
    assert ret == 0 and out == model_ctr(top, data[:32], 128)
    ret, out = call(fw, "ctr128", top, data, before)
    assert returned_minus_one(ret) and out == before
