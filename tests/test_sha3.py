# SPDX-License-Identifier: MIT
"""SHA-3 and SHAKE (FIPS 202, crypto/sha3, issue 28): the model against hashlib; every fast implementation
on its board at message lengths straddling every rate boundary up to 1,000 bytes, one-shot and
incremental (updates and squeezes that start and end inside blocks); the sponge's internal interface that
ML-KEM and ML-DSA build on (absorb in pieces, finalize, squeezeblocks, squeeze, the byte access to an
interleaved state); unaligned buffers; the permutation counts behind the issue's goals.

Default run: the lengths around the first two rate boundaries and the last one below 1,000 (and 0, 1,
1,000); MCUCRYPT_FULL=1: every length 0..1,000, and the portable C on the boards too (at the boundary
lengths)."""
from __future__ import annotations

import hashlib
import os
import random

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.base import Buf, Int
from mcucrypt.build import build, impl_define
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware as firmware
from mcucrypt.kinds.hash import DRIVER
from mcucrypt.models import sha3 as model

FULL = os.environ.get("MCUCRYPT_FULL") == "1"
CATALOG = load_catalog()
IDS = ("sha3_256", "sha3_512", "shake128", "shake256")
RATE = {i: model.PARAMS[i][0] for i in IDS}
TOP = 1000
ORACLE = {"sha3_256": lambda m, n: hashlib.sha3_256(m).digest(),
          "sha3_512": lambda m, n: hashlib.sha3_512(m).digest(),
          "shake128": lambda m, n: hashlib.shake_128(m).digest(n),
          "shake256": lambda m, n: hashlib.shake_256(m).digest(n)}
# The implementations the boundary sweep runs by default: each fast one on its board, the portable C on
# the host (on the boards it is covered by tests/test_catalog.py, and swept here with MCUCRYPT_FULL=1).
FAST = [("ref", "host"), ("rv32-fast", "rv32"), ("armv7m-fast", "armv7m"), ("armv7m-compact", "armv7m"),
        ("avr-fast", "avr")]
SLOW = [("ref", "rv32"), ("ref", "armv7m"), ("ref", "avr")]


def lengths(rate: int, full: bool = FULL) -> list[int]:
    """Message lengths straddling the rate boundaries: every one (full) or the first two and the last."""
    if full:
        return list(range(TOP + 1))
    edges = [rate, 2 * rate, TOP // rate * rate]
    return sorted({0, 1, TOP} | {e + d for e in edges for d in (-1, 0, 1) if e + d <= TOP})


def outlen(prim_id: str, rate: int) -> int:
    """Digest length, or for SHAKE two blocks and a bit: the squeeze crosses block boundaries."""
    return model.PARAMS[prim_id][2] or 2 * rate + 3


# ------------------------------------------------------------------------------------------ the model

@pytest.mark.parametrize("prim_id", IDS)
def test_model_matches_hashlib_across_rate_boundaries(prim_id):
    rate = RATE[prim_id]
    rng = random.Random(f"sha3-model/{prim_id}")
    for n in lengths(rate):
        msg = rng.randbytes(n)
        want = ORACLE[prim_id](msg, outlen(prim_id, rate))
        assert model.digest(prim_id, msg, len(want)) == want, n


def test_model_refuses_a_wrong_digest_length_and_a_customization_string():
    with pytest.raises(ValueError):
        model.digest("sha3_256", b"", 31)
    with pytest.raises(ValueError):
        model.digest("shake128", b"", 16, b"z")


# ----------------------------------------------------------------------- the implementations, swept



@pytest.mark.parametrize("impl,target", FAST + ([pytest.param(i, t) for i, t in SLOW] if FULL else []),
                         ids=lambda x: x)
@pytest.mark.parametrize("prim_id", IDS)
def test_rate_boundaries_one_shot_and_incremental(prim_id, impl, target):
    """One-shot, and init / three updates that cut the message inside its first and second blocks /
    final or three squeezes that cut the output inside its first and second blocks, against hashlib."""
    fw = firmware(prim_id, impl, target)
    rate = RATE[prim_id]
    rng = random.Random(f"sha3-sweep/{prim_id}/{impl}/{target}")
    n_out = outlen(prim_id, rate)
    cuts_out = [1, rate - 1, n_out - rate] if model.PARAMS[prim_id][2] is None else [n_out]
    # The portable C on a board (MCUCRYPT_FULL=1 only) takes the boundary lengths: 0.9 M cycles per
    # permutation on the AVR make every length there hours.
    for n in lengths(rate, full=FULL and (impl, target) not in SLOW):
        msg = rng.randbytes(n)
        want = ORACLE[prim_id](msg, n_out)
        got, _ = DRIVER.oneshot(fw, msg, n_out)
        assert got == want, f"{prim_id} {impl} {target}: one-shot of {n} bytes"
        a, b = min(n, rate // 2), min(n, rate + 3)
        got = DRIVER.incremental(fw, [msg[:a], msg[a:b], msg[b:]], cuts_out)
        assert got == want, f"{prim_id} {impl} {target}: incremental of {n} bytes ({a}, {b - a}, {n - b})"


@pytest.mark.parametrize("impl,target", [("rv32-fast", "rv32"), ("armv7m-fast", "armv7m"), ("avr-fast", "avr")])
@pytest.mark.parametrize("misalign", [1, 2, 3])
def test_unaligned_message_and_output(impl, target, misalign):
    """The word paths (rv32: aligned words only, the E31 traps on misaligned ones; M3: unaligned LDR/STR)
    with the message and the output off a word boundary."""
    rng = random.Random(f"sha3-align/{impl}/{misalign}")
    for prim_id in ("sha3_256", "shake128"):
        fw = firmware(prim_id, impl, target)
        msg = rng.randbytes(300)
        n = model.PARAMS[prim_id][2] or 200
        want = ORACLE[prim_id](msg, n)
        if prim_id == "sha3_256":
            res = fw.call("hash", {"out": Buf(size=n, out=True, misalign=misalign),
                                   "in": Buf(msg, misalign=4 - misalign), "inlen": Int(len(msg), 8)})
        else:
            res = fw.call("xof", {"out": Buf(size=n, out=True, misalign=misalign), "outlen": n,
                                  "in": Buf(msg, misalign=misalign), "inlen": len(msg)})
        assert res.outputs[0] == want, (prim_id, misalign)


# --------------------------------------------------------------------- the sponge's internal interface

SPONGE_OPS = ("sponge_init", "sponge_absorb", "sponge_finalize", "sponge_squeeze", "sponge_squeezeblocks",
              "sponge_xor_bytes", "sponge_extract_bytes")


class Sponge:
    """crypto/sha3/ref/sha3.h's sponge functions called one by one on a board, the state kept here."""

    def __init__(self, impl: str, target: str):
        im = CATALOG.implementation("sha3_256", impl)
        self.sym = {op: f"mcu_sha3_{impl_define(impl)}_{op}" for op in SPONGE_OPS}
        image = build(target, im.sources, name=f"sha3-sponge-{impl}", impl=impl,
                      isa=im.isa if target == "rv32" else None, defines=im.defines, keep=list(self.sym.values()))
        self.board = make_board(target)
        if target == "rv32":
            self.board.load(image.path, isa=im.isa)
        else:
            self.board.load(image.path)
        self.uint = 2 if target == "avr" else 4      # C unsigned
        self.state = bytes(200)

    def _call(self, op: str, args: list, ret: bool = False) -> tuple[list[bytes], int]:
        res = self.board.call(self.sym[op], args, ret_size=self.uint if ret else 0)
        return res.outputs, res.return_value

    def init(self) -> None:
        outs, _ = self._call("sponge_init", [Buf(bytes(range(200)), out=True)])
        self.state = outs[0]

    def absorb(self, rate: int, pos: int, data: bytes) -> int:
        outs, pos = self._call("sponge_absorb", [Buf(self.state, out=True), Int(rate, self.uint),
                                                 Int(pos, self.uint), Buf(data), len(data)], ret=True)
        self.state = outs[0]
        return pos

    def finalize(self, rate: int, pos: int, suffix: int) -> None:
        outs, _ = self._call("sponge_finalize", [Buf(self.state, out=True), Int(rate, self.uint),
                                                 Int(pos, self.uint), Int(suffix, 1)])
        self.state = outs[0]

    def squeeze(self, rate: int, pos: int, n: int) -> tuple[bytes, int]:
        outs, pos = self._call("sponge_squeeze", [Buf(self.state, out=True), Int(rate, self.uint),
                                                  Int(pos, self.uint), Buf(size=n, out=True), n], ret=True)
        self.state = outs[0]
        return outs[1], pos

    def squeezeblocks(self, rate: int, nblocks: int) -> bytes:
        outs, _ = self._call("sponge_squeezeblocks", [Buf(self.state, out=True), Int(rate, self.uint),
                                                      Buf(size=rate * nblocks, out=True), nblocks])
        self.state = outs[0]
        return outs[1]

    def xor_bytes(self, offset: int, data: bytes) -> None:
        outs, _ = self._call("sponge_xor_bytes", [Buf(self.state, out=True), Int(offset, self.uint),
                                                  Buf(data), len(data)])
        self.state = outs[0]

    def extract_bytes(self, offset: int, n: int) -> bytes:
        outs, _ = self._call("sponge_extract_bytes", [Buf(self.state), Int(offset, self.uint),
                                                      Buf(size=n, out=True), n])
        return outs[0]


SPONGE_IMPLS = [("ref", "host"), ("rv32-fast", "rv32"), ("armv7m-fast", "armv7m"), ("avr-fast", "avr")]


@pytest.mark.parametrize("impl,target", SPONGE_IMPLS)
def test_sponge_interface_absorb_finalize_squeezeblocks_squeeze(impl, target):
    """SHAKE128 and SHAKE256 through the internal calls as ML-KEM's matrix expansion uses them: absorb in
    pieces that cross a block boundary, finalize, whole blocks by squeezeblocks, then squeeze going on
    from there, against hashlib."""
    sp = Sponge(impl, target)
    rng = random.Random(f"sha3-sponge/{impl}")
    for prim_id, suffix in (("shake128", 0x1F), ("shake256", 0x1F), ("sha3_512", 0x06)):
        rate = RATE[prim_id]
        msg = rng.randbytes(rate + 30)
        sp.init()
        assert sp.state == bytes(200)
        pos = sp.absorb(rate, 0, msg[:20])
        assert pos == 20
        pos = sp.absorb(rate, pos, msg[20:])
        assert pos == 30                      # one block permuted, 30 bytes into the next
        sp.finalize(rate, pos, suffix)
        blocks = sp.squeezeblocks(rate, 2)
        tail, pos = sp.squeeze(rate, rate, 5)
        assert pos == 5
        want = hashlib.shake_128(msg).digest(2 * rate + 5) if prim_id == "shake128" else \
            hashlib.shake_256(msg).digest(2 * rate + 5) if prim_id == "shake256" else None
        if want is None:                      # SHA3-512: the digest is the first block's first 64 bytes
            assert blocks[:64] == hashlib.sha3_512(msg).digest(), prim_id
        else:
            assert blocks + tail == want, prim_id


@pytest.mark.parametrize("impl,target", SPONGE_IMPLS)
def test_sponge_byte_access_in_the_state_layout(impl, target):
    """xor_bytes / extract_bytes at every offset and length inside a lane and across lanes: on the M3 they
    go through the interleaved layout, elsewhere the bytes themselves; both read back what was XORed."""
    sp = Sponge(impl, target)
    rng = random.Random(f"sha3-bytes/{impl}")
    sp.init()
    shadow = bytearray(200)
    for offset, n in [(0, 1), (3, 5), (7, 2), (8, 8), (13, 27), (0, 168), (161, 39), (199, 1)]:
        data = rng.randbytes(n)
        sp.xor_bytes(offset, data)
        for i, b in enumerate(data):
            shadow[offset + i] ^= b
        assert sp.extract_bytes(0, 200) == bytes(shadow), (offset, n)
        assert sp.extract_bytes(offset, n) == bytes(shadow[offset:offset + n]), (offset, n)


# ------------------------------------------------------------------------ the goals' permutation counts

@pytest.mark.parametrize("impl,target", [("rv32-fast", "rv32"), ("armv7m-fast", "armv7m"), ("avr-fast", "avr")])
def test_bench_operations_run_the_counted_permutations(impl, target):
    """The goals in crypto/sha3/META.yml are (permutations x Keccak-f) x 1.03 with 8 permutations for
    SHA3-256 of 1,024 bytes and 7 for SHAKE128 of 1,024 bytes to 168: the bench operations run exactly
    those (the permutation's entry counted in the executed trace) and give the issue's lengths."""
    for prim_id, count in (("sha3_256", 8), ("shake128", 7)):
        fw = firmware(prim_id, impl, target)
        ops = DRIVER.bench(fw)
        assert [op.op for op in ops] == [f"{fw.params['mode']}-1024B"]
        n = fw.params.get("bench_out_bytes", fw.params["out_bytes"])
        assert n == (32 if prim_id == "sha3_256" else 168)
        msg = random.Random(f"bench/{prim_id}").randbytes(1024)
        args = ({"out": Buf(size=n, out=True), "in": Buf(msg), "inlen": Int(len(msg), 8)} if prim_id == "sha3_256"
                else {"out": Buf(size=n, out=True), "outlen": n, "in": Buf(msg), "inlen": len(msg)})
        res = fw.call("hash" if prim_id == "sha3_256" else "xof", args, trace=True)
        permute = f"mcu_sha3_keccakf1600_{impl_define(impl)}_permute"
        entries = sum(1 for pc in res.trace.pcs if fw.board.symbol_at(pc) in (permute, permute + "+0x0"))
        assert entries == count, prim_id
