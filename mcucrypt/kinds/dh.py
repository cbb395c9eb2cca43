# SPDX-License-Identifier: MIT
"""Diffie-Hellman on a Montgomery curve (X25519, RFC 7748): scalar multiplication of a u-coordinate.

API (META.yml `functions`):
  x25519(shared, scalar, point)   shared = X25519(scalar, point), 32-byte little-endian strings; returns 0,
                                  or -1 when shared is all zeros (a small-order point: RFC 7748 section
                                  6.1's check, constant time). The driver checks the verdict on every call
                                  (-1 exactly when the shared secret is zero) and, in the differential
                                  test, that every point of SMALL_ORDER_POINTS is refused
  x25519_unchecked(shared, scalar, point)
                                  the same function without the check (RFC 7748 section 5 alone): zeros
                                  returned silently; differential against the model on small-order and
                                  random points
  x25519_base(public_key, scalar) public_key = X25519(scalar, 9)
  fe_mul(r, a, b), fe_sqr(r, a)   the field multiplication and squaring the ladder is built on: 8
                                  little-endian 32-bit limbs, inputs any value < 2^256, result < 2^256
                                  and congruent mod 2^255 - 19 (exported so their cycles are reported)
  ladder(st, k, bits)             the ladder loop x25519 runs, over bits bits-1 .. 0 of a clamped k (bits
                                  2 .. 0 taken as 0: the last steps double x2, z2 only; model
                                  ladder_clamped), on st = x1|x2|z2|x3|z3 (40 limbs) in place; for the
                                  constant-time check
  fe_invert(r, z)                 optional (an implementation's own): r = 1/z mod p (0 for z = 0), below
                                  2^256; bench, differential and constant-time check when exported
Instance parameters: scalar_bytes, point_bytes (32), optionally max_instructions (the runaway budget
of one call, see Firmware). The model provides x25519(scalar, u), x25519_base(scalar), fe_mul, fe_sqr.

Vectors. Wycheproof's x25519_test.json (518 tests, read from the JSON as published; every one must give
`shared`, 'acceptable' ones included) and RFC 7748 section 5.2 (two vectors and the iterated test).
- host: everything, the iterated test after 1 and 1,000 iterations included (and 1,000,000 in full mode);
- the boards: a scalar multiplication costs 2..70 million simulated cycles (0.3..2 s of simulation), and
  every Wycheproof test on every implementation of every board would be over half an hour of CPU, so
  `make test` runs a documented subset there. For an implementation with its own assembly: every test
  flagged with one of QUICK_ALWAYS_FLAGS (the RFC/known-answer tests, non-canonical u, edge private keys,
  small u, edge shared values) and every QUICK_STRIDE-th test of the rest (tcId = 1 mod 16: twists,
  low-order points, edge multiplications), plus the RFC vectors: 77 of the 518. For the portable C
  (``ref``), whose code is the host build's that runs all 518, the board run checks the target's
  compilation and ABI: the first test of every flag class (``first_of_each_flag``: 7 tests cover the 11
  classes) and the RFC vectors, a tenth of the assembly set's calls. ``MCUCRYPT_FULL=1`` in the
  environment runs the full set on every board (docs/x25519.md). The bench's KAT verdict on a board is the
  same selection (``kat_vectors``): all 518 there would be over 500 scalar multiplications per
  implementation, most of an hour on the AVR.

Constant time. The checker's trace mode keeps every executed address and data access of a call in
memory; a whole scalar multiplication on AVR (10..75 M instructions) does not fit. There the checker
traces the field operations and CT_LADDER_BITS steps of the ladder itself (the same code x25519 runs,
with secret state and scalar); on rv32 and armv7m it traces whole x25519 calls.
"""
from __future__ import annotations

import argparse
import json
import os
import random

from ..boards.base import Buf, CallResult
from ..catalog import Primitive
from ..firmware import Firmware
from ..kat import Vector, read_vectors
from .base import BenchOp, CtCase, KindDriver, Mismatch, PublicResult, UsageError, parse_hex
from .mac import returned_minus_one

P = 2**255 - 19
FULL_ENV = "MCUCRYPT_FULL"
# Boards where `make test` runs the Wycheproof subset (see the module docstring).
QUICK_TARGETS = ("rv32", "armv7m", "avr")
QUICK_STRIDE = 16
QUICK_ALWAYS_FLAGS = {"Ktv", "Normal", "NonCanonicalPublic", "EdgeCasePrivateKey", "SmallPublicKey",
                      "EdgeCaseShared"}
CT_LADDER_TARGETS = ("avr",)
CT_LADDER_BITS = 8
HOST_MAX_ITERATIONS = 1000          # 1,000,000 only in full mode (minutes on the host)


# The u-coordinates of the points of small order (1, 2, 4, 8) on curve25519 and its twist, as 255-bit
# encodings (the list TLS stacks and libsodium refuse; the facts: Bernstein's "How do I validate
# Curve25519 public keys?", cr.yp.to/ecdh.html): 0 (order 2), 1 and p - 1 (order 4, on the twist and the
# curve), the two u of order 8, and the non-canonical encodings p (= 0) and p + 1 (= 1). With the top
# bit set (which decoding masks) they are small-order points too: SMALL_ORDER_POINTS has both forms.
# tests/test_x25519.py checks every u of the list against the model (doubling reaches u = 0 or the
# point at infinity within three doublings).
SMALL_ORDER_U = (0, 1,
                 325606250916557431795983626356110631294008115727848805560023387167927233504,
                 39382357235489614581723060781553021112529911719440698176882885853963445705823,
                 P - 1, P, P + 1)
SMALL_ORDER_POINTS = tuple((u | top).to_bytes(32, "little") for top in (0, 1 << 255) for u in SMALL_ORDER_U)
# Which of them the differential test runs (a scalar multiplication is 0.1..1 s of simulation): all 14
# on the host and in full mode; on a board, the canonical seven for the assembly implementations (their
# own ladders) and three for the portable C (u = 0, an order-8 u and the non-canonical p + 1: the same C
# ladder as the host's, which runs all 14). The top bit is masked by the shared decoding before
# anything reads the point.
BOARD_SMALL_ORDER_POINTS = SMALL_ORDER_POINTS[:len(SMALL_ORDER_U)]
BOARD_REF_SMALL_ORDER_POINTS = (SMALL_ORDER_POINTS[0], SMALL_ORDER_POINTS[2], SMALL_ORDER_POINTS[6])


def small_order_points(target: str, impl: str) -> tuple[bytes, ...]:
    if target == "host" or full_mode():
        return SMALL_ORDER_POINTS
    return BOARD_REF_SMALL_ORDER_POINTS if impl == "ref" else BOARD_SMALL_ORDER_POINTS


def full_mode() -> bool:
    return os.environ.get(FULL_ENV, "") not in ("", "0")


def read_wycheproof(path) -> list[Vector]:
    doc = json.loads(path.read_text())
    out = []
    for group in doc["testGroups"]:
        if group.get("curve") != "curve25519":
            raise ValueError(f"{path}: test group for {group.get('curve')!r}, expected curve25519")
        for t in group["tests"]:
            out.append(Vector(path, t["tcId"], {
                "TcId": str(t["tcId"]), "Comment": t["comment"], "Flags": ",".join(t["flags"]),
                "Scalar": t["private"], "U": t["public"], "Shared": t["shared"], "Result": t["result"]}))
    if len(out) != doc["numberOfTests"]:
        raise ValueError(f"{path}: {len(out)} tests read, the file says {doc['numberOfTests']}")
    return out


def in_quick_subset(v: Vector) -> bool:
    """The boards' subset of `make test` for an assembly implementation (module docstring)."""
    if "TcId" not in v.fields:
        return True
    flags = set(filter(None, v.fields["Flags"].split(",")))
    return bool(flags & QUICK_ALWAYS_FLAGS) or int(v.fields["TcId"]) % QUICK_STRIDE == 1


def first_of_each_flag(vectors: list[Vector]) -> set[str]:
    """The tcIds of the first Wycheproof test of every flag class: the portable C's board subset."""
    first: dict[str, str] = {}
    for v in vectors:
        for flag in filter(None, v.fields.get("Flags", "").split(",")):
            first.setdefault(flag, v.fields["TcId"])
    return set(first.values())


def fe_bytes(x: int) -> bytes:
    return x.to_bytes(32, "little")


def fe_edge_values() -> list[int]:
    """Field inputs where carries and the folds by 38 are most likely to go wrong (all < 2^256)."""
    m = (1 << 256) - 1
    return [0, 1, 2, 19, 38, P - 1, P, P + 1, P + 18, 2**255 - 1, 2**255, m, m - 37, m - 38,
            int("ffffffff" * 4 + "00000000" * 4, 16), int("00000000ffffffff" * 4, 16), 121665]


class DhDriver(KindDriver):
    kind = "dh"
    # The scalar and everything derived from it (field elements, the ladder's state) are secret.
    secret = {"x25519": ("scalar",), "x25519_unchecked": ("scalar",), "x25519_base": ("scalar",),
              "fe_mul": ("a", "b"), "fe_sqr": ("a",), "fe_invert": ("z",), "ladder": ("st", "k")}
    ct_ops = frozenset(secret)
    # RFC 7748 section 6.1: whether the shared secret is all zeros (a small-order point) is what x25519's
    # 0 / -1 return value tells; it depends on the outcome alone.
    public_results = {"x25519": PublicResult("the small-order verdict (all-zero shared secret or not)")}
    run_options = ("key", "input")     # --key SCALAR [--input POINT]
    default_trials = 4      # ladder calls per (implementation, target); fe_mul/fe_sqr get 50x that

    # -- vectors ------------------------------------------------------------------------------------

    def vectors(self, prim: Primitive, prim_id: str) -> list[Vector]:
        out: list[Vector] = []
        for path in prim.vectors:
            out += read_wycheproof(path) if path.suffix == ".json" else read_vectors(path)
        return out

    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        """The board's selection (module docstring): the bench's KAT verdict on a board is the documented
        subset, all 518 with MCUCRYPT_FULL=1."""
        return self.board_selection(self.vectors(fw.impl.primitive, fw.prim_id), fw.target, fw.impl.name)

    @classmethod
    def board_selection(cls, vectors: list[Vector], target: str, impl: str) -> list[Vector]:
        chosen = [v for v in vectors if cls._runs_here(target, v)]
        if impl != "ref" or target not in QUICK_TARGETS or full_mode():
            return chosen
        firsts = first_of_each_flag(vectors)
        return [v for v in chosen if "TcId" not in v.fields or v.fields["TcId"] in firsts]

    @staticmethod
    def _runs_here(target: str, v: Vector) -> bool:
        if "Iterations" in v.fields:
            n = int(v.fields["Iterations"])
            if target != "host":
                return n == 1
            return n <= HOST_MAX_ITERATIONS or full_mode()
        return target not in QUICK_TARGETS or full_mode() or in_quick_subset(v)

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        want = vec.hex("Shared")
        if "Iterations" in vec.fields:
            k = u = fe_bytes(9)
            for _ in range(int(vec.fields["Iterations"])):
                k, u = self.x25519(fw, k, u)[0], k
            if k != want:
                raise Mismatch(f"{vec.where}: {vec.fields['Iterations']} iterations gave {k.hex()}, "
                               f"expected {want.hex()}")
            return
        got = self.x25519(fw, vec.hex("Scalar"), vec.hex("U"))[0]
        if got != want:
            what = f"tcId {vec.fields['TcId']} ({vec.fields['Comment']})" if "TcId" in vec.fields else vec.where
            raise Mismatch(f"{what}: x25519 gave {got.hex()}, expected {want.hex()}")

    # -- calls --------------------------------------------------------------------------------------

    def x25519(self, fw: Firmware, scalar: bytes, point: bytes, op: str = "x25519") -> tuple[bytes, CallResult]:
        """x25519 (op "x25519", the verdict checked: 0 for a non-zero shared secret, -1 for all zeros) or
        x25519_unchecked (op "x25519_unchecked": no verdict)."""
        res = fw.call(op, {"shared": Buf(size=32, out=True), "scalar": Buf(scalar, out=True),
                           "point": Buf(point, out=True)})
        shared, scalar_after, point_after = res.outputs
        if scalar_after != scalar or point_after != point:
            raise Mismatch(f"{op} modified its const inputs")
        if op == "x25519":
            refused = returned_minus_one(res.return_value)
            if not refused and res.return_value != 0:
                raise Mismatch(f"x25519 returned {res.return_value:#x}, neither 0 nor -1")
            if refused != (shared == bytes(32)):
                raise Mismatch(f"x25519({scalar.hex()}, {point.hex()}) returned {'-1' if refused else '0'} "
                               f"with the shared secret {shared.hex()}: -1 is for all zeros only")
        return shared, res

    def x25519_base(self, fw: Firmware, scalar: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("x25519_base", {"public_key": Buf(size=32, out=True), "scalar": Buf(scalar)})
        return res.outputs[0], res

    def fe_mul(self, fw: Firmware, a: int, b: int) -> tuple[int, CallResult]:
        res = fw.call("fe_mul", {"r": Buf(size=32, out=True), "a": Buf(fe_bytes(a)), "b": Buf(fe_bytes(b))})
        return int.from_bytes(res.outputs[0], "little"), res

    def fe_sqr(self, fw: Firmware, a: int) -> tuple[int, CallResult]:
        res = fw.call("fe_sqr", {"r": Buf(size=32, out=True), "a": Buf(fe_bytes(a))})
        return int.from_bytes(res.outputs[0], "little"), res

    def fe_invert(self, fw: Firmware, z: int) -> tuple[int, CallResult]:
        """An implementation's own inversion (rv32-fast and avr-fast export one): r = 1/z mod p (0 for z = 0 mod p)."""
        res = fw.call("fe_invert", {"r": Buf(size=32, out=True), "z": Buf(fe_bytes(z))})
        return int.from_bytes(res.outputs[0], "little"), res

    def ladder(self, fw: Firmware, state: list[int], k: bytes, bits: int) -> tuple[list[int], CallResult]:
        st = b"".join(fe_bytes(v) for v in state)
        res = fw.call("ladder", {"st": Buf(st, out=True), "k": Buf(k), "bits": bits})
        out = res.outputs[0]
        return [int.from_bytes(out[32 * i:32 * i + 32], "little") for i in range(5)], res

    # -- bench, differential, ct, run ---------------------------------------------------------------

    def bench(self, fw: Firmware) -> list[BenchOp]:
        model = self.model(fw.impl.primitive)
        rng = random.Random(f"bench/{fw.prim_id}")
        scalar, point = rng.randbytes(32), model.x25519_base(rng.randbytes(32))
        shared, res = self.x25519(fw, scalar, point)
        if shared != model.x25519(scalar, point):
            raise Mismatch("bench: x25519 disagrees with the model")
        ops = [BenchOp("x25519", 32, res)]
        shared, res = self.x25519(fw, scalar, point, op="x25519_unchecked")
        if shared != model.x25519(scalar, point):
            raise Mismatch("bench: x25519_unchecked disagrees with the model")
        ops.append(BenchOp("x25519_unchecked", 32, res))
        public, res = self.x25519_base(fw, scalar)
        if public != model.x25519_base(scalar):
            raise Mismatch("bench: x25519_base disagrees with the model")
        ops.append(BenchOp("x25519_base", 0, res))
        a, b = rng.randrange(1 << 256), rng.randrange(1 << 256)
        r, res = self.fe_mul(fw, a, b)
        if r % P != a * b % P:
            raise Mismatch("bench: fe_mul gave a wrong product")
        ops.append(BenchOp("fe_mul", 0, res))
        r, res = self.fe_sqr(fw, a)
        if r % P != a * a % P:
            raise Mismatch("bench: fe_sqr gave a wrong square")
        ops.append(BenchOp("fe_sqr", 0, res))
        if fw.has("fe_invert"):
            r, res = self.fe_invert(fw, a)
            if r >> 256 or r * a % P != 1:
                raise Mismatch("bench: fe_invert gave a wrong inverse")
            ops.append(BenchOp("fe_invert", 0, res))
        return ops

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        run = 0
        # the field operations: edge values against each other, then random ones
        edges = fe_edge_values()
        pairs = [(a, b) for a in edges for b in edges[::3]]
        pairs += [(rng.randrange(1 << 256), rng.randrange(1 << 256)) for _ in range(50 * trials)]
        for a, b in pairs:
            r = self.fe_mul(fw, a, b)[0]
            if r >> 256 or r % P != model.fe_mul(a, b):
                raise Mismatch(f"fe_mul({a:x}, {b:x}) gave {r:x}, not congruent to {model.fe_mul(a, b):x}")
            r = self.fe_sqr(fw, a)[0]
            if r >> 256 or r % P != model.fe_sqr(a):
                raise Mismatch(f"fe_sqr({a:x}) gave {r:x}, not congruent to {model.fe_sqr(a):x}")
            run += 2
        # the scalar multiplication: random scalars, random 32-byte points (top bit and u >= p included)
        for i in range(trials):
            scalar = rng.randbytes(32)
            point = rng.randbytes(32) if i % 2 == 0 else fe_bytes(P + rng.randrange(19) + (1 << 255) * (i & 2) // 2)
            want, got = model.x25519(scalar, point), self.x25519(fw, scalar, point)[0]
            if got != want:
                raise Mismatch(f"trial {i}: x25519({scalar.hex()}, {point.hex()}) gave {got.hex()}, "
                               f"model {want.hex()}")
            run += 1
        # the small-order points (RFC 7748 section 6.1): x25519 refuses every one (the verdict is checked
        # in self.x25519); x25519_unchecked returns the zeros without a verdict (on random points it is
        # the function x25519 runs, compared above)
        small = small_order_points(fw.target, fw.impl.name)
        for point in small:
            scalar = rng.randbytes(32)
            if self.x25519(fw, scalar, point)[0] != bytes(32):
                raise Mismatch(f"x25519({scalar.hex()}, {point.hex()}): a small-order point, not refused")
            run += 1
        scalar = rng.randbytes(32)
        if self.x25519(fw, scalar, small[1], op="x25519_unchecked")[0] != bytes(32):
            raise Mismatch(f"x25519_unchecked({scalar.hex()}, {small[1].hex()}) did not give all zeros")
        run += 1
        scalar = rng.randbytes(32)
        want, got = model.x25519_base(scalar), self.x25519_base(fw, scalar)[0]
        if got != want:
            raise Mismatch(f"x25519_base({scalar.hex()}) gave {got.hex()}, model {want.hex()}")
        run += 1
        if fw.has("fe_invert"):   # the implementation's own inversion, against Fermat's
            for z in edges[:: max(1, len(edges) // 4)] + [rng.randrange(1 << 256) for _ in range(trials)]:
                r = self.fe_invert(fw, z)[0]
                if r >> 256 or r % P != pow(z, P - 2, P):
                    raise Mismatch(f"fe_invert({z:x}) gave {r:x}, not 1/z mod p")
                run += 1
        if fw.has("ladder"):   # a few steps from a random state, compared mod p
            for bits in (1, CT_LADDER_BITS):
                state, k = [rng.randrange(1 << 256) for _ in range(5)], rng.randbytes(32)
                want_st = model.ladder_clamped(tuple(state), int.from_bytes(k, "little"), bits)
                got_st = self.ladder(fw, state, k, bits)[0]
                if [v % P for v in got_st] != list(want_st) or any(v >> 256 for v in got_st):
                    raise Mismatch(f"ladder over {bits} bits of {k.hex()} disagrees with the model")
                run += 1
        return run

    def ct_unchecked(self, fw: Firmware) -> dict[str, str]:
        out = {"x25519_base": "x25519 on the constant base point: one line of C over the x25519 case's code",
               "x25519_unchecked": "the x25519 case's code without its small-order verdict"}
        if fw.target in CT_LADDER_TARGETS:
            out["x25519"] = (f"on {fw.target} the ladder ({CT_LADDER_BITS} bits) and field cases run its code "
                             "(a whole X25519 under taint takes minutes on this board)")
        return out

    def ct_covered_by(self, fw: Firmware) -> dict[str, str]:
        # elsewhere the x25519 case runs the whole ladder: its code must show as executed (no note)
        return {} if fw.target in CT_LADDER_TARGETS else {"ladder": "x25519"}

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        # The scalar is the secret; the peer's point is public. x25519_base is x25519 on the constant
        # base point (one line of shared C), so the x25519 case covers its code. The field operations
        # take secret operands (every value in the ladder derives from the scalar).
        point = random.Random(f"ct-public/{public_seed}").randbytes(32)
        field = [CtCase("fe_mul", {"r": Buf(size=32, out=True), "a": Buf(rng.randbytes(32)),
                                  "b": Buf(rng.randbytes(32))}),
                 CtCase("fe_sqr", {"r": Buf(size=32, out=True), "a": Buf(rng.randbytes(32))})]
        if fw.has("fe_invert"):
            field.append(CtCase("fe_invert", {"r": Buf(size=32, out=True), "z": Buf(rng.randbytes(32))}))
        if fw.target in CT_LADDER_TARGETS:
            return field + [CtCase("ladder", {"st": Buf(rng.randbytes(160), out=True), "k": Buf(rng.randbytes(32)),
                                              "bits": CT_LADDER_BITS})]
        return field + [CtCase("x25519", {"shared": Buf(size=32, out=True), "scalar": Buf(rng.randbytes(32)),
                                        "point": Buf(point)})]

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """`mcucrypt run x25519 --key SCALAR [--input POINT]`: X25519(scalar, point), or the public key
        X25519(scalar, 9) without --input; a small-order point is refused (UsageError, exit 2)."""
        scalar = parse_hex("key", opts.key, length=fw.params["scalar_bytes"])
        if getattr(opts, "input", None) is None:
            return self.x25519_base(fw, scalar)
        shared, res = self.x25519(fw, scalar, parse_hex("input", opts.input, length=fw.params["point_bytes"]))
        if shared == bytes(32):
            raise UsageError("--input: x25519 refused the point: it has small order (the shared secret would be "
                             "all zeros, RFC 7748 section 6.1)")
        return shared, res


DRIVER = DhDriver()
