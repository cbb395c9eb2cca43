# SPDX-License-Identifier: MIT
"""Stream ciphers (ChaCha20): the block function and a stream API.

API: block(out, key, nonce, counter) writes one key-stream block; xor(out, in, len, key, nonce, counter)
encrypts (or decrypts) `len` bytes from block `counter` on and returns 0, or -1 with nothing written when
that would wrap the 32-bit block counter (counter + ceil(len / 64) > 2^32: the key stream of block 0
would come back). The driver checks the verdict of every xor call, and the refusal at the limit
(COUNTER_LIMIT_CASES, in the differential test on every implementation). Instance parameters: key_bytes, nonce_bytes,
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
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, parse_hex
from .mac import returned_minus_one

BENCH_MESSAGE_BYTES = (64, 512)
# (counter, len) at the end of the counter's range: the last block allowed is 2^32 - 1, so 64 bytes from
# 2^32 - 1 pass and 65 are refused, and so on (the model's counter_wraps says which).
COUNTER_LIMIT_CASES = ((2**32 - 1, 1), (2**32 - 1, 64), (2**32 - 1, 65), (2**32 - 2, 128), (2**32 - 2, 129),
                       (2**32 - 4, 300), (2**32 - 1, 0))


class StreamDriver(KindDriver):
    kind = "stream"
    secret = {"block": ("key",), "xor": ("in", "key"), "permute": ("in",)}
    ct_ops = frozenset(secret)
    run_options = ("key", "nonce", "input", "counter")
    default_trials = 100
    board_test_trials = 30      # `make test` on a board (base.KindDriver); the host and MCUCRYPT_FULL=1: 100

    def block(self, fw: Firmware, key: bytes, nonce: bytes, counter: int) -> tuple[bytes, CallResult]:
        res = fw.call("block", {"out": Buf(size=fw.params["block_bytes"], out=True), "key": Buf(key),
                                "nonce": Buf(nonce), "counter": counter})
        return res.outputs[0], res

    def xor(self, fw: Firmware, key: bytes, nonce: bytes, counter: int, data: bytes) -> tuple[bytes, CallResult]:
        """The stream call where the counter does not wrap: a refusal is a Mismatch."""
        out, refused, res = self.xor_verdict(fw, key, nonce, counter, data)
        if refused:
            raise Mismatch(f"xor refused {len(data)} bytes from block {counter}, which do not wrap the counter")
        return out, res

    def xor_verdict(self, fw: Firmware, key: bytes, nonce: bytes, counter: int, data: bytes,
                    out_before: bytes | None = None) -> tuple[bytes, bool, CallResult]:
        """(out, refused, result): out starts as out_before (zeros by default); refused when xor returned -1."""
        out = Buf(out_before, out=True) if out_before is not None else Buf(size=len(data), out=True)
        res = fw.call("xor", {"out": out, "in": Buf(data), "len": len(data), "key": Buf(key), "nonce": Buf(nonce),
                              "counter": counter})
        if res.return_value != 0 and not returned_minus_one(res.return_value):
            raise Mismatch(f"xor returned {res.return_value:#x}, neither 0 nor -1")
        return res.outputs[0], res.return_value != 0, res

    def check_counter_limit(self, fw: Firmware, rng: random.Random) -> int:
        """COUNTER_LIMIT_CASES: xor encrypts what fits below 2^32 blocks (against the model) and refuses
        the rest with -1, leaving out as it was (filled with random bytes before the call)."""
        model = self.model(fw.impl.primitive)
        key, nonce = rng.randbytes(fw.params["key_bytes"]), rng.randbytes(fw.params["nonce_bytes"])
        for counter, n in COUNTER_LIMIT_CASES:
            data, before = rng.randbytes(n), rng.randbytes(n)
            out, refused, _ = self.xor_verdict(fw, key, nonce, counter, data, out_before=before)
            if model.counter_wraps(counter, n):
                if not refused or out != before:
                    raise Mismatch(f"xor of {n} bytes from block {counter:#x} wraps the 32-bit counter: "
                                   + ("it wrote to out" if refused else "not refused"))
            elif refused or out != model.xor(key, nonce, counter, data):
                raise Mismatch(f"xor of {n} bytes from block {counter:#x} (the last blocks below 2^32) "
                               + ("refused" if refused else "disagrees with the model"))
        return len(COUNTER_LIMIT_CASES)

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
        return trials + self.check_counter_limit(fw, rng)

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        public = random.Random(f"ct-public/{public_seed}")
        nonce = public.randbytes(fw.params["nonce_bytes"])
        key = rng.randbytes(fw.params["key_bytes"])
        block = fw.params["block_bytes"]

        def xor(n: int, counter: int = 7, odd: int = 0) -> CtCase:
            msg = rng.randbytes(n)
            return CtCase("xor", {"out": Buf(size=n, out=True, misalign=odd), "in": Buf(msg, misalign=3 * odd),
                                  "len": n, "key": Buf(key), "nonce": Buf(nonce), "counter": counter})
        # xor on every length class (empty, one block, a block and a partial one, several and a partial one
        # from odd addresses: the byte paths), and the refusal on public inputs (a counter that would wrap)
        return [CtCase("block", {"out": Buf(size=fw.params["block_bytes"], out=True), "key": Buf(key),
                                 "nonce": Buf(nonce), "counter": 7}),
                xor(0), xor(block), xor(100), xor(2 * block + 37, odd=1), xor(block + 1, counter=0xFFFFFFFF)] + (
                [CtCase("permute", {"out": Buf(size=fw.params["block_bytes"], out=True),
                                    "in": Buf(rng.randbytes(fw.params["block_bytes"]))})]
                if fw.has("permute") else [])

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        key = parse_hex("key", opts.key, length=fw.params["key_bytes"])
        nonce = parse_hex("nonce", opts.nonce, length=fw.params["nonce_bytes"])
        data = parse_hex("input", opts.input)
        out, refused, res = self.xor_verdict(fw, key, nonce, opts.counter, data)
        if refused:
            raise UsageError(f"--counter: {len(data)} bytes from block {opts.counter} would wrap the 32-bit block "
                             "counter (the key stream would repeat): refused")
        return out, res


DRIVER = StreamDriver()
