# SPDX-License-Identifier: MIT
"""Stream ciphers (ChaCha20): the block function and a stream API.

API: block(out, key, nonce, counter) writes one key-stream block; xor(out, in, len, key, nonce, counter)
encrypts (or decrypts) `len` bytes from block `counter` on. Instance parameters: key_bytes, nonce_bytes,
block_bytes. Vector fields: Key, Nonce, Counter, Block (one key-stream block). The model provides
block(key, nonce, counter), xor(key, nonce, counter, data) and permute(state).

Optional op: permute(out, in), the cipher's permutation alone on a 64-byte state (ChaCha: 20 rounds, no
feed-forward) - the quantity published permutation figures count. Benchmarked, checked against the
model on random states and constant-time checked when an implementation has it.
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, parse_hex

BENCH_MESSAGE_BYTES = (64, 512)


class StreamDriver(KindDriver):
    kind = "stream"
    secret = {"block": ("key",), "xor": ("in", "key"), "permute": ("in",)}
    ct_ops = frozenset(secret)
    run_options = ("key", "nonce", "input", "counter")
    default_trials = 100

    def block(self, fw: Firmware, key: bytes, nonce: bytes, counter: int) -> tuple[bytes, CallResult]:
        res = fw.call("block", {"out": Buf(size=fw.params["block_bytes"], out=True), "key": Buf(key),
                                "nonce": Buf(nonce), "counter": counter})
        return res.outputs[0], res

    def xor(self, fw: Firmware, key: bytes, nonce: bytes, counter: int, data: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("xor", {"out": Buf(size=len(data), out=True), "in": Buf(data), "len": len(data),
                              "key": Buf(key), "nonce": Buf(nonce), "counter": counter})
        return res.outputs[0], res

    def permute(self, fw: Firmware, state: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("permute", {"out": Buf(size=len(state), out=True), "in": Buf(state)})
        return res.outputs[0], res

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        key, nonce, counter = vec.hex("Key"), vec.hex("Nonce"), int(vec.fields["Counter"], 0)
        want = vec.hex("Block")
        got = self.block(fw, key, nonce, counter)[0]
        if got != want:
            raise Mismatch(f"{vec.where}: block gave {got.hex()}, expected {want.hex()}")
        got = self.xor(fw, key, nonce, counter, bytes(len(want)))[0]
        if got != want:
            raise Mismatch(f"{vec.where}: xor of zeros gave {got.hex()}, expected the key stream {want.hex()}")

    def bench(self, fw: Firmware) -> list[BenchOp]:
        rng = random.Random(f"bench/{fw.prim_id}")
        key, nonce = rng.randbytes(fw.params["key_bytes"]), rng.randbytes(fw.params["nonce_bytes"])
        ops = [BenchOp("block", fw.params["block_bytes"], self.block(fw, key, nonce, 1)[1])]
        for n in BENCH_MESSAGE_BYTES:
            ops.append(BenchOp(f"encrypt-{n}B", n, self.xor(fw, key, nonce, 1, rng.randbytes(n))[1]))
        if fw.has("permute"):
            ops.append(BenchOp("permute", fw.params["block_bytes"],
                               self.permute(fw, rng.randbytes(fw.params["block_bytes"]))[1]))
        return ops

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        for i in range(trials):
            key, nonce = rng.randbytes(fw.params["key_bytes"]), rng.randbytes(fw.params["nonce_bytes"])
            counter = rng.choice([0, 1, rng.randrange(2**32), 2**32 - 1])
            want = model.block(key, nonce, counter)
            got = self.block(fw, key, nonce, counter)[0]
            if got != want:
                raise Mismatch(f"trial {i}: block(key {key.hex()}, nonce {nonce.hex()}, counter {counter}) "
                               f"gave {got.hex()}, model {want.hex()}")
            data = rng.randbytes(rng.randrange(0, 200))
            counter = rng.randrange(2**32 - 4)
            want = model.xor(key, nonce, counter, data)
            got = self.xor(fw, key, nonce, counter, data)[0]
            if got != want:
                raise Mismatch(f"trial {i}: xor of {len(data)} bytes gave {got.hex()}, model {want.hex()}")
            if fw.has("permute"):
                state = rng.randbytes(fw.params["block_bytes"])
                want, got = model.permute(state), self.permute(fw, state)[0]
                if got != want:
                    raise Mismatch(f"trial {i}: permute({state.hex()}) gave {got.hex()}, model {want.hex()}")
        return trials

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        public = random.Random(f"ct-public/{public_seed}")
        nonce = public.randbytes(fw.params["nonce_bytes"])
        key = rng.randbytes(fw.params["key_bytes"])
        msg = rng.randbytes(100)
        return [CtCase("block", {"out": Buf(size=fw.params["block_bytes"], out=True), "key": Buf(key),
                                 "nonce": Buf(nonce), "counter": 7}),
                CtCase("xor", {"out": Buf(size=len(msg), out=True), "in": Buf(msg), "len": len(msg),
                               "key": Buf(key), "nonce": Buf(nonce), "counter": 7})] + (
                [CtCase("permute", {"out": Buf(size=fw.params["block_bytes"], out=True),
                                    "in": Buf(rng.randbytes(fw.params["block_bytes"]))})]
                if fw.has("permute") else [])

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        key = parse_hex("key", opts.key, length=fw.params["key_bytes"])
        nonce = parse_hex("nonce", opts.nonce, length=fw.params["nonce_bytes"])
        data = parse_hex("input", opts.input)
        return self.xor(fw, key, nonce, opts.counter, data)


DRIVER = StreamDriver()
