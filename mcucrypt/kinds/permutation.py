# SPDX-License-Identifier: MIT
"""Permutations (Keccak-f[1600]): one in-place call on the whole state.

API: permute(state). Instance parameters: state_bytes. Vector fields: In, Out (states as bytes).
The model provides permute(state) -> state. Cycles per byte are per byte of state.
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
    run_options = ("input",)
    default_trials = 50

    def permute(self, fw: Firmware, state: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("permute", {"state": Buf(state, out=True)})
        return res.outputs[0], res

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        got = self.permute(fw, vec.hex("In"))[0]
        if got != vec.hex("Out"):
            raise Mismatch(f"{vec.where}: permutation gave {got.hex()}, expected {vec.fields['Out']}")

    def bench(self, fw: Firmware) -> list[BenchOp]:
        n = fw.params["state_bytes"]
        return [BenchOp("permute", n, self.permute(fw, random.Random(f"bench/{fw.prim_id}").randbytes(n))[1])]

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        for i in range(trials):
            state = rng.randbytes(fw.params["state_bytes"])
            want, got = model.permute(state), self.permute(fw, state)[0]
            if got != want:
                raise Mismatch(f"trial {i}: permutation of {state.hex()} gave {got.hex()}, model {want.hex()}")
        return trials

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        return [CtCase("permute", {"state": Buf(rng.randbytes(fw.params["state_bytes"]), out=True)})]

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        return self.permute(fw, parse_hex("input", opts.input, length=fw.params["state_bytes"]))


DRIVER = PermutationDriver()
