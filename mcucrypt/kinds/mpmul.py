# SPDX-License-Identifier: MIT
"""Multi-precision multiplication: the product of two n-bit operands, 2n-bit result.

API (META.yml `functions`):
  mul(r, a, b)              r = a * b; a and b hold n = bits/32 little-endian 32-bit limbs, r 2n limbs
  mul_n(r, a, b, nwords)    the same for any even nwords from 2 to 64 (64..2048 bits): optional, for the
                            scalable implementations (one code for every length); the others list
                            `ops: [mul]` in META.yml. The differential test gives it every multiple of
                            64 bits, each instance the lengths above the next smaller one
Instance parameter: bits (256, 512, 1024, 2048).
Vector fields: Id, A, B, P, big-endian hex (A and B of bits/4 digits, P of bits/2).
The model module provides mul(a, b) on Python integers.

Every call also checks that the operands came back unchanged (they are `const`), and the board's
canaries around every buffer catch a write past the 2n-limb result.
"""
from __future__ import annotations

import argparse
import random
from typing import Iterator

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, parse_hex

# The lengths mul_n is exercised at: every multiple of 64 bits from 64 to 2048.
MUL_N_WORDS = tuple(range(2, 65, 2))
# The lengths (words) the constant-time cases run mul_n at: the shortest, and every even residue mod 8.
CT_MUL_N_WORDS = (2, 4, 6, 8)


def to_limbs(x: int, words: int) -> bytes:
    """An integer as ``words`` little-endian 32-bit limbs (the layout in the firmware's memory)."""
    return x.to_bytes(4 * words, "little")


def from_limbs(data: bytes) -> int:
    return int.from_bytes(data, "little")


def edge_operands(bits: int) -> list[tuple[str, int, int]]:
    """Operand pairs where carries and limb boundaries are most likely to go wrong."""
    m = (1 << bits) - 1
    top = 1 << (bits - 1)
    words = bits // 32
    low_limbs = (1 << (bits - 32)) - 1            # top limb zero, every other limb all ones
    return [
        ("zero", 0, 0),
        ("zero, all ones", 0, m),
        ("all ones, zero", m, 0),
        ("one, all ones", 1, m),
        ("all ones squared", m, m),
        ("all ones, top bit", m, top),
        ("top bit squared", top, top),
        ("single bits at the limb boundary", 1 << 31, 1 << 32),
        ("top limb zero", low_limbs, low_limbs),
        ("top limb zero, all ones", low_limbs, m),
        ("bottom limb zero, all ones", m ^ 0xFFFFFFFF, m),
        ("equal operands", int("a5" * (bits // 8), 16), int("a5" * (bits // 8), 16)),
        ("equal operands 2^n-19", m - 18, m - 18),
        ("every limb 0x80000000", int("80000000" * words, 16), int("80000000" * words, 16)),
        ("every limb 0xffff0000 times 0x0000ffff", int("ffff0000" * words, 16), int("0000ffff" * words, 16)),
    ]


def random_operand(rng: random.Random, bits: int) -> int:
    """Uniform operands most of the time; otherwise limbs drawn from carry-heavy values (0, 1, all ones,
    top bit, 16-bit halves) mixed with random ones, which uniform sampling almost never produces."""
    if rng.random() < 0.7:
        return rng.getrandbits(bits)
    special = (0, 1, 0xFFFFFFFF, 0x80000000, 0xFFFF0000, 0x0000FFFF, 0xFFFFFFFE)
    x = 0
    for i in range(bits // 32):
        limb = rng.choice(special) if rng.random() < 0.6 else rng.getrandbits(32)
        x |= limb << (32 * i)
    return x


class MpmulDriver(KindDriver):
    kind = "mpmul"
    secret = {"mul": ("a", "b"), "mul_n": ("a", "b")}
    ct_ops = frozenset(secret)
    run_options = ("a", "b")
    default_trials = 200   # issue 5: at least 200 random operand pairs per size per implementation

    @staticmethod
    def words(fw: Firmware) -> int:
        bits = fw.params["bits"]
        if bits % 64:
            raise ValueError(f"{fw.prim_id}: bits={bits} is not a multiple of 64")
        return bits // 32

    def _call(self, fw: Firmware, op: str, a: int, b: int, words: int) -> tuple[int, CallResult]:
        if not (0 <= a < 1 << (32 * words) and 0 <= b < 1 << (32 * words)):
            raise ValueError(f"operands do not fit in {words} words")
        args: dict = {"r": Buf(size=8 * words, out=True), "a": Buf(to_limbs(a, words), out=True),
                      "b": Buf(to_limbs(b, words), out=True)}
        if op == "mul_n":
            args["nwords"] = words
        res = fw.call(op, args)
        r, a_after, b_after = res.outputs
        if from_limbs(a_after) != a or from_limbs(b_after) != b:
            raise Mismatch(f"{op} ({32 * words} bits) modified its const operands")
        return from_limbs(r), res

    def mul(self, fw: Firmware, a: int, b: int) -> tuple[int, CallResult]:
        """r = a * b through the implementation's fixed-size ``mul``."""
        return self._call(fw, "mul", a, b, self.words(fw))

    def mul_n(self, fw: Firmware, a: int, b: int, words: int) -> tuple[int, CallResult]:
        """r = a * b through the scalable ``mul_n`` at ``words`` limbs."""
        if words not in MUL_N_WORDS:
            raise ValueError(f"mul_n takes an even number of words from 2 to 64, not {words}")
        return self._call(fw, "mul_n", a, b, words)

    def _expect(self, fw: Firmware, what: str, op: str, a: int, b: int, words: int, want: int) -> None:
        got, _ = self._call(fw, op, a, b, words)
        if got != want:
            raise Mismatch(f"{what}: {op} ({32 * words} bits) of a={a:x} b={b:x} gave {got:x}, "
                           f"expected {want:x}")

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        words = self.words(fw)
        a, b, p = (int(vec.fields[k], 16) for k in ("A", "B", "P"))
        digits = 8 * words
        if len(vec.fields["A"]) != digits or len(vec.fields["B"]) != digits or len(vec.fields["P"]) != 2 * digits:
            raise ValueError(f"{vec.where}: A and B must have {digits} hex digits and P {2 * digits}")
        self._expect(fw, vec.where, "mul", a, b, words, p)
        if fw.has("mul_n"):
            self._expect(fw, vec.where, "mul_n", a, b, words, p)

    def bench(self, fw: Firmware) -> list[BenchOp]:
        words = self.words(fw)
        rng = random.Random(f"bench/{fw.prim_id}")
        a, b = rng.getrandbits(32 * words), rng.getrandbits(32 * words)
        got, res = self.mul(fw, a, b)
        if got != a * b:
            raise Mismatch(f"bench: mul gave a wrong product for a={a:x} b={b:x}")
        return [BenchOp("mul", 4 * words, res)]

    @staticmethod
    def mul_n_lengths(fw: Firmware) -> tuple[int, ...]:
        """The lengths (in words) this instance's differential test gives mul_n: the multiples of 64
        bits above the next smaller instance, up to its own (mpmul256: 64..256 bits, mpmul512:
        320..512, mpmul1024: 576..1024, mpmul2048: 1088..2048), so that an implementation's four
        instances together cover every multiple of 64 bits from 64 to 2048 once."""
        bits = fw.params["bits"]
        smaller = [p["bits"] for p in fw.impl.primitive.instances.values() if p["bits"] < bits]
        below = max(smaller, default=0)
        return tuple(w for w in MUL_N_WORDS if below < 32 * w <= bits)

    def _mul_n_cases(self, fw: Firmware, rng: random.Random, trials: int) -> Iterator[tuple[int, int, int]]:
        """(words, a, b) for mul_n. With 50 trials or more: at every length of mul_n_lengths, the
        all-ones square (the longest carry chains) and trials // 50 random pairs (a fixed sample: the
        length logic needs breadth, not depth). With fewer trials (the fuzzer's single cases),
        ``trials`` lengths drawn from all of 64..2048 bits, one random pair each."""
        if trials >= 50:
            for words in self.mul_n_lengths(fw):
                m = (1 << (32 * words)) - 1
                yield words, m, m
                for _ in range(trials // 50):
                    yield words, random_operand(rng, 32 * words), random_operand(rng, 32 * words)
        else:
            for words in rng.sample(MUL_N_WORDS, max(1, min(trials, len(MUL_N_WORDS)))):
                yield words, random_operand(rng, 32 * words), random_operand(rng, 32 * words)

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        words = self.words(fw)
        bits = 32 * words
        cases = [(f"edge case {name!r}", a, b) for name, a, b in edge_operands(bits)]
        cases += [(f"trial {i}", random_operand(rng, bits), random_operand(rng, bits)) for i in range(trials)]
        for what, a, b in cases:
            self._expect(fw, what, "mul", a, b, words, model.mul(a, b))
        run = len(cases)
        if fw.has("mul_n"):
            for w, a, b in self._mul_n_cases(fw, rng, trials):
                self._expect(fw, f"mul_n at {32 * w} bits", "mul_n", a, b, w, model.mul(a, b))
                run += 1
        return run

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        # Both operands are secret (a scalar, a private exponent, a field element); the length is public.
        # mul_n is checked at fixed lengths of every class its one code tells apart: the shortest (2 words),
        # 0 and 2 mod 4 words (loops taking four words a step enter part-way for 2 mod 4), and 0 and 2 mod
        # 8. Fixed, not drawn: a length drawn per run made the executed code, and so the coverage, differ
        # from run to run (rv32-rowwise's 2-mod-4 entry ran only when the draw was 2 mod 4).
        words = self.words(fw)
        cases = [CtCase("mul", {"r": Buf(size=8 * words, out=True),
                                "a": Buf(rng.randbytes(4 * words)), "b": Buf(rng.randbytes(4 * words))})]
        if fw.has("mul_n"):
            for w in CT_MUL_N_WORDS:
                cases.append(CtCase("mul_n", {"r": Buf(size=8 * w, out=True), "a": Buf(rng.randbytes(4 * w)),
                                              "b": Buf(rng.randbytes(4 * w)), "nwords": w}))
        return cases

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        words = self.words(fw)
        operands = []
        for name in ("a", "b"):
            text = getattr(opts, name, None)
            if text is not None:   # an integer may have an odd number of hex digits
                text = text.strip().lower().removeprefix("0x")
                text = "0" * (len(text) % 2) + text
            data = parse_hex(name, text)
            value = int.from_bytes(data, "big")
            if value >> (32 * words):
                raise UsageError(f"--{name}: {value.bit_length()}-bit value does not fit in {fw.prim_id} "
                                 f"({32 * words} bits)")
            operands.append(value)
        product, res = self.mul(fw, *operands)
        return product.to_bytes(8 * words, "big"), res


DRIVER = MpmulDriver()
