# SPDX-License-Identifier: MIT
"""A family of primitives of different kinds sharing one folder and one code base (Ascon: an AEAD and
three hash functions over one permutation). Each instance names its own ``kind`` and, with ``ops``, the
functions it exports; every call goes to that kind's driver."""
from __future__ import annotations

import argparse
import random

from ..boards.base import CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, driver_for


class SuiteDriver(KindDriver):
    kind = "suite"
    default_trials = 12

    @staticmethod
    def of(fw: Firmware) -> KindDriver:
        return driver_for(fw.params["kind"])

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        self.of(fw).check_vector(fw, vec)

    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        return self.of(fw).kat_vectors(fw)

    def default_selection(self, fw: Firmware) -> list[Vector]:
        return self.of(fw).default_selection(fw)

    def check_vectors(self, fw: Firmware, vectors: list[Vector] | None = None) -> int:
        return self.of(fw).check_vectors(fw, vectors)

    def bench(self, fw: Firmware) -> list[BenchOp]:
        return self.of(fw).bench(fw)

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        return self.of(fw).differential(fw, rng, trials)

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        return self.of(fw).ct_cases(fw, rng, public_seed)

    def policy(self, fw: Firmware) -> KindDriver:
        return self.of(fw)

    def ct_unchecked(self, fw: Firmware) -> dict[str, str]:
        return self.of(fw).ct_unchecked(fw)

    def ct_covered_by(self, fw: Firmware) -> dict[str, str]:
        return self.of(fw).ct_covered_by(fw)

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        return self.of(fw).run(fw, opts)


DRIVER = SuiteDriver()
