# SPDX-License-Identifier: MIT
"""Permutations (Keccak-f[1600]): one in-place call on the whole state.

API: permute(state). Instance parameters: state_bytes. Vector fields: In, Out (states as bytes).
The model provides permute(state) -> state. Cycles per byte are per byte of state.

An implementation whose permute works on its own lane layout (bit-interleaved Keccak on the Cortex-M3,
as a sponge keeps the state between permutations) also exports interleave(state) and
deinterleave(state), in place, from and to the specification's layout: vectors, the differential test
and `run` go through them; the bench times permute alone and the two conversions as ops of their own.
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, parse_hex


class PermutationDriver(KindDriver):
    kind = "permutation"
    secret = {"permute": ("state",), "interleave": ("state",), "deinterleave": ("state",)}
    ct_ops = frozenset(secret)
    run_options = ("input",)
    default_trials = 50
    board_test_trials = 15      # `make test` on a board (base.KindDriver); the host and MCUCRYPT_FULL=1: 50

    def permute(self, fw: Firmware, state: bytes) -> tuple[bytes, CallResult]:
        """The permutation of a state in the specification's layout (converted around permute when the
        implementation has its own layout); the CallResult is permute's."""
        if fw.has("interleave"):
            state = self._convert(fw, "interleave", state)[0]
        res = fw.call("permute", {"state": Buf(state, out=True)})
        out = res.outputs[0]
        if fw.has("interleave"):
            out = self._convert(fw, "deinterleave", out)[0]
        return out, res

    @staticmethod
    def _convert(fw: Firmware, op: str, state: bytes) -> tuple[bytes, CallResult]:
        res = fw.call(op, {"state": Buf(state, out=True)})
        return res.outputs[0], res

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        got = self.permute(fw, vec.hex("In"))[0]
        if got != vec.hex("Out"):
            raise Mismatch(f"{vec.where}: permutation gave {got.hex()}, expected {vec.fields['Out']}")

    def bench(self, fw: Firmware) -> list[BenchOp]:
        n = fw.params["state_bytes"]
        state = random.Random(f"bench/{fw.prim_id}").randbytes(n)
        if not fw.has("interleave"):
            return [BenchOp("permute", n, self.permute(fw, state)[1])]
        inner, conv_in = self._convert(fw, "interleave", state)
        permuted = fw.call("permute", {"state": Buf(inner, out=True)})
        conv_out = self._convert(fw, "deinterleave", permuted.outputs[0])[1]
        return [BenchOp("permute", n, permuted), BenchOp("interleave", n, conv_in),
                BenchOp("deinterleave", n, conv_out)]

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        for i in range(trials):
            state = rng.randbytes(fw.params["state_bytes"])
            want, got = model.permute(state), self.permute(fw, state)[0]
            if got != want:
                raise Mismatch(f"trial {i}: permutation of {state.hex()} gave {got.hex()}, model {want.hex()}")
        return trials

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        ops = ["permute"] + [op for op in ("interleave", "deinterleave") if fw.has(op)]
        n = fw.params["state_bytes"]
        # permute on the FIPS 202 layout (any alignment) also on a state at an odd address (a pointer's
        # alignment is public: its path may differ); the interleaved layout is word-aligned by definition
        cases = [CtCase(op, {"state": Buf(rng.randbytes(n), out=True)}) for op in ops]
        if not fw.has("interleave"):
            cases.append(CtCase("permute", {"state": Buf(rng.randbytes(n), out=True, misalign=1)}))
        return cases

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        return self.permute(fw, parse_hex("input", opts.input, length=fw.params["state_bytes"]))


DRIVER = PermutationDriver()
