# SPDX-License-Identifier: MIT
"""Key encapsulation (`kind: kem`): ML-KEM (FIPS 203) in its deterministic internal forms.

API (META.yml `functions`; arguments filled by parameter name):
  int keygen(uint8_t *ek, uint8_t *dk, const uint8_t *d, const uint8_t *z)
        ML-KEM.KeyGen_internal(d, z): ek (ek_bytes), dk (dk_bytes) from two 32-byte seeds; 0, or -1 when
        the implementation's bounded matrix sampler ran out (FIPS 203 Appendix B; never seen)
  int encaps(uint8_t *ct, uint8_t *ss, const uint8_t *ek, const uint8_t *m)
        ML-KEM.Encaps_internal(ek, m): ct (ct_bytes) and the shared key ss (32 bytes); -1 with nothing
        written when ek fails the modulus check of FIPS 203 section 7.2
  int decaps(uint8_t *ss, const uint8_t *ct, const uint8_t *dk)
        ML-KEM.Decaps_internal(dk, ct) with implicit rejection (a ciphertext that does not re-encrypt to
        itself gives J(z | ct), not an error); -1 with ss zeroed when dk fails the hash check of section 7.3
        (H(ek) against the h stored in dk). Lengths are the instance's (the prototypes carry none): a
        wrong-sized key or ciphertext is refused before the call (`mcucrypt run`, the model's ValueError)
Instance parameters: ek_bytes, dk_bytes, ct_bytes, ss_bytes (32), max_instructions; `core: {avr: PART}`
when the instance needs another AVR part than the ATmega128 (its keys do not fit in 4 KiB of SRAM).
The model (models/mlkem.py) provides keygen(id, d, z), encaps(id, ek, m), decaps(id, dk, c),
rejection_key(id, dk, c), PARAMS.

Vectors: NIST ACVP's ML-KEM keyGen and encapDecap JSON (internalProjection: inputs and results), read
per parameter set; on the boards `make test` runs the first test of each group and one rejected
ciphertext (an ML-KEM operation is millions of simulated cycles), MCUCRYPT_FULL=1 every test kept.

Constant time (no declassification: ML-KEM makes nothing secret public). Secrets: keygen's d and z;
encaps's m; decaps's dk, except its ek and H(ek) (public by the standard, marked as public bytes of the
secret buffer: the hash check and the re-encryption's matrix read them). Cases: keygen; encaps; decaps
of a valid ciphertext and of a rejected one; and the two refusals (an ek failing the modulus check, a dk
failing the hash check: their verdicts depend on public bytes only).
"""
from __future__ import annotations

import argparse
import json
import os
import random

from ..boards.base import Buf, CallResult
from ..catalog import Primitive
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, parse_hex
from .mac import returned_minus_one

FULL_ENV = "MCUCRYPT_FULL"
PARAMETER_SETS = {"ML-KEM-512": "mlkem512", "ML-KEM-768": "mlkem768", "ML-KEM-1024": "mlkem1024"}


def full_mode() -> bool:
    return os.environ.get(FULL_ENV, "") not in ("", "0")


def read_acvp(path, prim_id: str) -> list[Vector]:
    """The tests of an ACVP ML-KEM keyGen or encapDecap file (internalProjection) for one parameter set,
    as Vector records: Op (keygen, encaps, decaps), TcId, and the hex fields D, Z, EK, DK, M, C, K, Reason."""
    doc = json.loads(path.read_text())
    if doc.get("algorithm") != "ML-KEM":
        raise ValueError(f"{path}: not an ML-KEM ACVP file")
    out = []
    for group in doc["testGroups"]:
        if PARAMETER_SETS.get(group["parameterSet"]) != prim_id:
            continue
        function = group.get("function", "keyGen")
        for t in group["tests"]:
            f = {"TcId": str(t["tcId"])}
            if function == "keyGen":
                f.update(Op="keygen", D=t["d"], Z=t["z"], EK=t["ek"], DK=t["dk"])
            elif function == "encapsulation":
                f.update(Op="encaps", EK=t["ek"], DK=t["dk"], M=t["m"], C=t["c"], K=t["k"])
            elif function == "decapsulation":
                f.update(Op="decaps", DK=group["dk"], C=t["c"], K=t["k"], Reason=t.get("reason", ""))
            else:
                raise ValueError(f"{path}: test group {group['tgId']}: unknown function {function!r}")
            out.append(Vector(path, t["tcId"], f))
    return out


def in_quick_subset(vectors: list[Vector]) -> list[Vector]:
    """The boards' selection in `make test`: the first test of each operation and the first rejected
    ciphertext."""
    out, seen = [], set()
    for v in vectors:
        key = (v.fields["Op"], v.fields.get("Reason", "") == "modify ciphertext")
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


class KemDriver(KindDriver):
    kind = "kem"
    secret = {"keygen": ("d", "z"), "encaps": ("m",), "decaps": ("dk",)}
    ct_ops = frozenset(secret)
    run_options = ("key", "input", "decrypt")
    public_key = True
    default_trials = 1      # random key pairs per (implementation, target); each runs every check below
    sanitizer_trials = 1        # a key pair through every check of the differential (the model runs under ASan too)
    # One ML-KEM run of the constant-time cases on the Cortex-M3 takes minutes even in the C taint engine
    # (the board's timing model hooks every block): tests/test_catalog.py checks the M3 claims with
    # MCUCRYPT_FULL=1 only (docs/mlkem.md gives the runs); rv32 and AVR check every parameter set.
    ct_full_only_targets = frozenset({"armv7m"})

    # -- vectors ------------------------------------------------------------------------------------

    def vectors(self, prim: Primitive, prim_id: str) -> list[Vector]:
        out: list[Vector] = []
        for path in prim.vectors:
            out += read_acvp(path, prim_id)
        return out

    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        vectors = self.vectors(fw.impl.primitive, fw.prim_id)
        return vectors if fw.target == "host" or full_mode() else in_quick_subset(vectors)

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        op, what = vec.fields["Op"], f"tcId {vec.fields['TcId']} ({vec.file.name})"
        if op == "keygen":
            ek, dk, _ = self.keygen(fw, vec.hex("D"), vec.hex("Z"))
            if ek != vec.hex("EK") or dk != vec.hex("DK"):
                raise Mismatch(f"{what}: keygen gave a different {'ek' if ek != vec.hex('EK') else 'dk'}")
        elif op == "encaps":
            ct, ss, _ = self.encaps(fw, vec.hex("EK"), vec.hex("M"))
            if ct != vec.hex("C") or ss != vec.hex("K"):
                raise Mismatch(f"{what}: encaps gave a different {'ciphertext' if ct != vec.hex('C') else 'key'}")
            ss, _ = self.decaps(fw, vec.hex("DK"), ct)
            if ss != vec.hex("K"):
                raise Mismatch(f"{what}: decaps of the encapsulation gave {ss.hex()}, expected {vec.fields['K']}")
        else:
            ss, _ = self.decaps(fw, vec.hex("DK"), vec.hex("C"))
            if ss != vec.hex("K"):
                raise Mismatch(f"{what} ({vec.fields['Reason']}): decaps gave {ss.hex()}, expected {vec.fields['K']}")

    # -- calls --------------------------------------------------------------------------------------

    @staticmethod
    def _verdict(res: CallResult, op: str) -> bool:
        """True for 0 (done), False for -1 (refused); anything else is a Mismatch."""
        if returned_minus_one(res.return_value):
            return False
        if res.return_value != 0:
            raise Mismatch(f"{op} returned {res.return_value:#x}, neither 0 nor -1")
        return True

    def keygen(self, fw: Firmware, d: bytes, z: bytes) -> tuple[bytes, bytes, CallResult]:
        p = fw.params
        res = fw.call("keygen", {"ek": Buf(size=p["ek_bytes"], out=True), "dk": Buf(size=p["dk_bytes"], out=True),
                                 "d": Buf(d, out=True), "z": Buf(z, out=True)})
        ek, dk, d_after, z_after = res.outputs
        if d_after != d or z_after != z:
            raise Mismatch("keygen modified its const inputs")
        if not self._verdict(res, "keygen"):
            raise Mismatch(f"keygen({d.hex()}, {z.hex()}) returned -1 (sampler bound reached)")
        return ek, dk, res

    def encaps(self, fw: Firmware, ek: bytes, m: bytes, *, expect_ok: bool = True
               ) -> tuple[bytes, bytes, CallResult]:
        p = fw.params
        fill = bytes([0xA5]) * p["ct_bytes"], bytes([0x5A]) * p["ss_bytes"]
        res = fw.call("encaps", {"ct": Buf(fill[0], out=True), "ss": Buf(fill[1], out=True),
                                 "ek": Buf(ek, out=True), "m": Buf(m, out=True)})
        ct, ss, ek_after, m_after = res.outputs
        if ek_after != ek or m_after != m:
            raise Mismatch("encaps modified its const inputs")
        ok = self._verdict(res, "encaps")
        if ok != expect_ok:
            raise Mismatch(f"encaps returned {'0' if ok else '-1'} for an ek that "
                           f"{'fails' if expect_ok is False else 'passes'} the modulus check")
        if not ok and (ct, ss) != fill:
            raise Mismatch("encaps refused ek but wrote into ct or ss")
        return ct, ss, res

    def decaps(self, fw: Firmware, dk: bytes, ct: bytes, *, expect_ok: bool = True) -> tuple[bytes, CallResult]:
        p = fw.params
        res = fw.call("decaps", {"ss": Buf(bytes([0x5A]) * p["ss_bytes"], out=True), "ct": Buf(ct, out=True),
                                 "dk": Buf(dk, out=True)})
        ss, ct_after, dk_after = res.outputs
        if ct_after != ct or dk_after != dk:
            raise Mismatch("decaps modified its const inputs")
        ok = self._verdict(res, "decaps")
        if ok != expect_ok:
            raise Mismatch(f"decaps returned {'0' if ok else '-1'} for a dk that "
                           f"{'fails' if not expect_ok else 'passes'} the hash check")
        if not ok and ss != bytes(p["ss_bytes"]):
            raise Mismatch("decaps refused dk but left something other than zeros in ss")
        return ss, res

    # -- bench, differential, ct, run ---------------------------------------------------------------

    def bench(self, fw: Firmware) -> list[BenchOp]:
        model = self.model(fw.impl.primitive)
        rng = random.Random(f"bench/{fw.prim_id}")
        d, z, m = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
        ek, dk, res_kg = self.keygen(fw, d, z)
        if (ek, dk) != model.keygen(fw.prim_id, d, z):
            raise Mismatch("bench: keygen disagrees with the model")
        ct, ss, res_enc = self.encaps(fw, ek, m)
        if (ss, ct) != model.encaps(fw.prim_id, ek, m):
            raise Mismatch("bench: encaps disagrees with the model")
        ss2, res_dec = self.decaps(fw, dk, ct)
        if ss2 != ss:
            raise Mismatch("bench: decaps did not recover the encapsulated key")
        return [BenchOp("keygen", 0, res_kg), BenchOp("encaps", 0, res_enc), BenchOp("decaps", 0, res_dec)]

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        pid, p = fw.prim_id, fw.params
        k = model.PARAMS[pid]["k"]
        run = 0
        for trial in range(trials):
            d, z, m = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
            ek, dk, _ = self.keygen(fw, d, z)
            if (ek, dk) != model.keygen(pid, d, z):
                raise Mismatch(f"keygen(d={d.hex()}, z={z.hex()}) disagrees with the model")
            ct, ss, _ = self.encaps(fw, ek, m)
            if (ss, ct) != model.encaps(pid, ek, m):
                raise Mismatch(f"encaps(ek of d={d.hex()}, m={m.hex()}) disagrees with the model")
            if self.decaps(fw, dk, ct)[0] != ss:
                raise Mismatch(f"decaps of a valid ciphertext (d={d.hex()}, m={m.hex()}) lost the key")
            run += 3
            # modified ciphertexts: one bit flipped in u, one in v -> J(z | c) (implicit rejection)
            for lo, hi in ((0, len(ct) - 160), (len(ct) - 128, len(ct))):
                bad = bytearray(ct)
                pos = rng.randrange(lo, hi)
                bad[pos] ^= 1 << rng.randrange(8)
                want = model.decaps(pid, dk, bytes(bad))
                if want != model.rejection_key(pid, dk, bytes(bad)):
                    raise Mismatch("the model accepted a modified ciphertext")
                if self.decaps(fw, dk, bytes(bad))[0] != want:
                    raise Mismatch(f"decaps of a ciphertext with byte {pos} modified did not give J(z | c)")
                run += 1
            # a malformed ek: one 12-bit coefficient set to q .. 4095 (the modulus check, section 7.2)
            bad_ek = bytearray(ek)
            coeff = rng.randrange(256 * k)
            value = rng.choice((3329, 3330, 4095, rng.randrange(3329, 4096)))
            b = 3 * (coeff // 2)
            if coeff % 2 == 0:
                bad_ek[b], bad_ek[b + 1] = value & 0xFF, (bad_ek[b + 1] & 0xF0) | (value >> 8)
            else:
                bad_ek[b + 1], bad_ek[b + 2] = (bad_ek[b + 1] & 0x0F) | ((value & 0xF) << 4), value >> 4
            if model.check_ek(pid, bytes(bad_ek)):
                raise Mismatch("the model accepted an ek with a coefficient >= q")
            self.encaps(fw, bytes(bad_ek), m, expect_ok=False)
            run += 1
            # a malformed dk: its h (H(ek)), or a byte of the ek inside it, changed (the hash check, 7.3)
            bad_dk = bytearray(dk)
            where = 768 * k + 32 + rng.randrange(32) if trial % 2 == 0 else 384 * k + rng.randrange(384 * k + 32)
            bad_dk[where] ^= 1 << rng.randrange(8)
            if model.check_dk(pid, bytes(bad_dk)):
                raise Mismatch("the model accepted a dk failing the hash check")
            self.decaps(fw, bytes(bad_dk), ct, expect_ok=False)
            run += 1
            # a change in dk's secret part or z is not refused: decaps runs (the model agrees)
            odd_dk = bytearray(dk)
            odd_dk[768 * k + 64 + rng.randrange(32)] ^= 1
            if self.decaps(fw, bytes(odd_dk), bytes(bad))[0] != model.decaps(pid, bytes(odd_dk), bytes(bad)):
                raise Mismatch("decaps with another z disagrees with the model")
            run += 1
        return run

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        model = self.model(fw.impl.primitive)
        pid, p = fw.prim_id, fw.params
        k = model.PARAMS[pid]["k"]
        public = random.Random(f"ct-public/{public_seed}")
        ek_pub, _ = model.keygen(pid, public.randbytes(32), public.randbytes(32))
        d, z, m = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
        ek, dk = model.keygen(pid, d, z)
        ct_valid = model.encaps(pid, ek, m)[1]
        ct_other = public.randbytes(p["ct_bytes"])
        dk_public = {"dk": ((384 * k, 768 * k + 64),)}     # ek and H(ek) inside dk
        cases = [CtCase("keygen", {"ek": Buf(size=p["ek_bytes"], out=True), "dk": Buf(size=p["dk_bytes"], out=True),
                                   "d": Buf(d), "z": Buf(z)}),
                 CtCase("encaps", {"ct": Buf(size=p["ct_bytes"], out=True), "ss": Buf(size=32, out=True),
                                   "ek": Buf(ek_pub), "m": Buf(m)})]
        for ct in (ct_valid, ct_other):
            cases.append(CtCase("decaps", {"ss": Buf(size=32, out=True), "ct": Buf(ct), "dk": Buf(dk)},
                                public_bytes=dk_public))
        # the refusals: an ek with a coefficient >= q (its first, 0xFFF), a dk whose h is not H(ek)
        bad_ek = bytearray(ek_pub)
        bad_ek[0], bad_ek[1] = 0xFF, bad_ek[1] | 0x0F
        cases.append(CtCase("encaps", {"ct": Buf(size=p["ct_bytes"], out=True), "ss": Buf(size=32, out=True),
                                       "ek": Buf(bytes(bad_ek)), "m": Buf(m)}))
        bad_dk = bytearray(dk)
        bad_dk[768 * k + 32] ^= 1
        cases.append(CtCase("decaps", {"ss": Buf(size=32, out=True), "ct": Buf(ct_other), "dk": Buf(bytes(bad_dk))},
                            public_bytes=dk_public))
        return [c for c in cases if fw.has(c.op)]   # (the checker's fixtures export decaps alone)

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """`mcucrypt run mlkemN`: --key D|Z (64 bytes): keygen, output ek | dk; --key EK --input M:
        encaps, output ct | ss; --key DK --input CT --decrypt: decaps, output ss. Refused keys exit 2."""
        p = fw.params
        if getattr(opts, "decrypt", False):
            dk = parse_hex("key", opts.key, length=p["dk_bytes"], label="--key (dk)")
            ct = parse_hex("input", opts.input, length=p["ct_bytes"], label="--input (ciphertext)")
            res = fw.call("decaps", {"ss": Buf(size=32, out=True), "ct": Buf(ct), "dk": Buf(dk)})
            if not self._verdict(res, "decaps"):
                raise UsageError("--key: the decapsulation key fails the hash check of FIPS 203 section 7.3 "
                                 "(H(ek) differs from the h it stores)")
            return res.outputs[0], res
        if getattr(opts, "input", None) is None:
            seeds = parse_hex("key", opts.key, length=64, label="--key (d | z)")
            ek, dk, res = self.keygen(fw, seeds[:32], seeds[32:])
            return ek + dk, res
        ek = parse_hex("key", opts.key, length=p["ek_bytes"], label="--key (ek)")
        m = parse_hex("input", opts.input, length=32, label="--input (m)")
        res = fw.call("encaps", {"ct": Buf(size=p["ct_bytes"], out=True), "ss": Buf(size=32, out=True),
                                 "ek": Buf(ek), "m": Buf(m)})
        if not self._verdict(res, "encaps"):
            raise UsageError("--key: the encapsulation key fails the modulus check of FIPS 203 section 7.2 "
                             "(a coefficient is not below q = 3329)")
        return res.outputs[0] + res.outputs[1], res


DRIVER = KemDriver()
