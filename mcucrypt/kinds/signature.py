# SPDX-License-Identifier: MIT
"""Digital signatures (Ed25519, ECDSA P-256, ML-DSA, LMS, RSA verification): one driver for every scheme.

API (META.yml `functions`). The driver fills arguments BY PARAMETER NAME from the prototype, so an
implementation's prototype carries exactly the parameters its scheme has; `verify` is required,
`keygen` and `sign` optional (LMS and RSA are verify-only here):
  int keygen(uint8_t *pk, uint8_t *sk, const uint8_t *seed)
        seed: seed_bytes (Ed25519's 32-byte private key, ML-DSA's xi, P-256's d); writes pk (pk_bytes)
        and sk (sk_bytes, the form sign takes)
  int sign(uint8_t *sig, size_t *siglen?, const uint8_t *msg, size_t msglen, const uint8_t *sk
           [, const uint8_t *ctx, size_t ctxlen] [, const uint8_t *rnd])
        sig: at most sig_bytes; siglen (optional: variable-length signatures) receives the length.
        rnd: rnd_bytes of randomness (ML-DSA's rnd, ECDSA's k source); absent = deterministic
  int verify(const uint8_t *sig, size_t siglen, const uint8_t *msg, size_t msglen, const uint8_t *pk
           [, size_t pklen] [, const uint8_t *ctx, size_t ctxlen])
        0 valid, -1 invalid
  int ecdh(uint8_t *shared, const uint8_t *sk, const uint8_t *pk, size_t pklen)     optional (P-256: the
        scheme's key pair used for Diffie-Hellman; shared: shared_bytes); model ecdh(sk, pk) -> shared or
        ValueError; records {op: ecdh, sk, pk, shared, valid[, own_pk]} (own_pk: the record is valid only
        if it is sk's public key, as in CAVP's KAS files)
Every function returns 0 on success, -1 on a refused input (a bad key, signature, length); sign writes
nothing it releases on failure. The driver checks every return value (0 or -1, nothing else).
Instance parameters: pk_bytes, sk_bytes, sig_bytes (the maximum), seed_bytes, rnd_bytes (0 = none),
max_instructions (a call's runaway budget, as in Firmware); optional: max_random_length (differential
message lengths 0..this, default 300), max_ctx_bytes (random contexts 0..this where there is a ctx,
default 32), board_kat_stride (on a board, outside MCUCRYPT_FULL=1: every keygen and sign record and
every board_kat_stride-th verify record of the official files; default 1 = all), board_flips (byte
positions of a valid signature flipped on a board outside full mode, default 4; every byte on the host
and in full mode), bench_sign_messages (sign-64B is the mean over this many messages, default 1: more
where the cost varies, as in ML-DSA's rejection loop), sign_deterministic (default true: a board's
signature must equal the model's for the same sk, message, ctx and rnd; false: the model only verifies it),
board_kat_stride_all (default false: true applies board_kat_stride to the keygen, sign and ecdh records
too, for schemes whose every call is a scalar multiplication: P-256 on AVR), rnd_zero_deterministic
(default false: true when rnd of all zeros asks for the deterministic nonce, as P-256's RFC 6979: the
constant-time cases then sign with zeros too).

Model module (models/<scheme>.py): keygen(seed) -> (pk, sk); sign(sk, msg, ctx=b"", rnd=None) -> sig;
verify(pk, msg, sig, ctx=b"") -> bool; read_vectors(path) -> list[dict] normalising the scheme's official
files into records {op: keygen|sign|verify, seed, pk, sk, msg, ctx, rnd, sig, valid, where} (fields
absent when unused), so this driver stays generic; optionally malformed() -> list of verify records
(valid False) for the scheme's malformed keys and signatures (small-order keys, non-canonical
encodings), every one of which verify must refuse.
A model whose keys have parameters a seed cannot give (LMS: the HSS levels) sets KEYGEN_TAKES_INSTANCE = True
and gets keygen(seed, instance params) (model_keygen). Instance parameter board_max_sig_bytes {target: n}:
official records with longer signatures are left out on that target's default part, whose RAM cannot hold
them (LMS's RFC 8554 Test Case 2 on the ATmega128); the scheme's own test runs them on a larger part.

Differential test: random messages 0..max_random_length bytes both ways (the model signs, the board
verifies; the board signs, the model verifies, and the signatures are equal where deterministic),
keygen equal to the model's, a changed message refused, bit flips in every byte of a valid signature
refused (a sample of positions on the boards), the signature truncated (by one byte, and empty) and
overlong (one byte more) refused, and the model's malformed() records refused (on a board outside full
mode every board_kat_stride-th of them).

Constant time: keygen's seed and sign's sk and rnd are secret (a scheme's META.yml may add more);
verify has no secret input (public_ops), and its cases run only so its code counts as executed. A
value a scheme's standard makes public (ML-DSA's rejection verdict) is declared here, in
PUBLIC_RESULTS_BY_ID (per scheme id), as a PublicResult.
Bench ops: keygen, sign-64B, verify-64B (a 64-byte message).
`mcucrypt run`: --key SEED alone: keygen, the output pk || sk; --key SEED (or SK) --input MSG: the
signature; --key PK --input MSG --tag SIG: verify, the output the signature when it verifies, else
exit 2 (AuthenticationFailed).
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import random
from pathlib import Path

from ..boards.base import Buf, CallResult
from ..catalog import Param, Primitive
from ..cores import DEFAULT_CORE
from ..firmware import Firmware
from ..kat import Vector
from .aead import AuthenticationFailed
from .base import BenchOp, CtCase, KindDriver, Mismatch, PublicResult, UsageError, parse_hex
from .mac import returned_minus_one

FULL_ENV = "MCUCRYPT_FULL"
DEFAULT_MAX_RANDOM = 300
DEFAULT_MAX_CTX = 32
DEFAULT_BOARD_FLIPS = 4
BENCH_MSG_BYTES = 64
# Message lengths of the first differential trials (then random ones): empty, one byte, one SHA-512 block
# less one, and 64 (the bench's).
EDGE_LENGTHS = (0, 1, 127, 64)

# Values a scheme's standard makes public, per scheme id and op (ct.py holds mcu_declassify to them).
PUBLIC_RESULTS_BY_ID: dict[str, dict[str, PublicResult]] = {
    # P-256 (crypto/p256, docs/p256.md): a secret scalar outside [1, n-1] is refused (-1), so whether it
    # was is the outcome; sign also says whether the caller passed a nonce (or 32 zero bytes: RFC 6979),
    # whether that nonce (or RFC 6979's candidate) is in range, and whether r and s are nonzero.
    "p256": {
        "keygen": PublicResult("the key's range verdict (1 <= d < n, else -1)"),
        "sign": PublicResult("the verdicts d in range, nonce given or RFC 6979, k in range, r and s nonzero",
                             per_call=4),
        "ecdh": PublicResult("the key's range verdict (1 <= d < n, else -1)"),
    },
    # ML-DSA (FIPS 204): rho, the public key's first 32 bytes (A's seed: its rejection sampling branches on
    # it), derived from the seed in keygen and read from sk's first 32 bytes in sign; and in signing
    # (section 3.4) each attempt's accept/try-again verdict: only the accepted signature is released and
    # the number of attempts is public.
    **{i: {"keygen": PublicResult("rho (pk[0:32])", per_call=0, key_bytes=("pk", 0, 32)),
           **{op: PublicResult("rho (sk[0:32] = pk[0:32]) and the rejection loop's verdict per attempt",
                               rejection_loop=True, key_bytes=("sk", 0, 32))
              for op in ("sign", "sign_internal")}}
       for i in ("mldsa44", "mldsa65", "mldsa87")},
}


def full_mode() -> bool:
    return os.environ.get(FULL_ENV) == "1"


def model_keygen(model, fw: Firmware, seed: bytes) -> tuple[bytes, bytes]:
    """model.keygen(seed), or model.keygen(seed, instance) for a model that sets KEYGEN_TAKES_INSTANCE (LMS:
    the instance's `params` name the parameter sets of its keys, which a seed alone cannot)."""
    if getattr(model, "KEYGEN_TAKES_INSTANCE", False):
        return model.keygen(seed, fw.params)
    return model.keygen(seed)


def _record_vector(path: Path, index: int, rec: dict) -> Vector:
    """A model's normalised record as a Vector (hex fields, 'op', 'valid', 'where' as text)."""
    fields = {k: (v.hex() if isinstance(v, (bytes, bytearray)) else str(v)) for k, v in rec.items()}
    return Vector(path, index, fields)


class SignatureDriver(KindDriver):
    kind = "signature"
    # sign_internal, verify_internal: a scheme's internal interface where its official vectors need it
    # (ML-DSA: FIPS 204 Algorithms 7 and 8, M' given whole)
    secret = {"keygen": ("seed",), "sign": ("sk", "rnd"), "sign_internal": ("sk", "rnd"), "ecdh": ("sk",)}
    ct_ops = frozenset({"keygen", "sign", "sign_internal", "ecdh"})
    public_ops = frozenset({"verify", "verify_internal"})
    run_options = ("key", "input", "tag")
    public_key = True
    default_trials = 3
    board_test_vectors = 4      # `make test` on a board: every class of record (op, verdict, interface) once
    sanitizer_trials = 1        # signs and verifies, and the malformed records (the model runs under ASan too: slow)


    # -- policy -------------------------------------------------------------------------------------

    def policy(self, fw: Firmware) -> "KindDriver":
        extra = PUBLIC_RESULTS_BY_ID.get(fw.prim_id)
        if not extra:
            return self
        clone = copy.copy(self)
        clone.public_results = {**self.public_results, **extra}
        return clone

    def ct_full_only(self, prim_id: str, impl: str, target: str) -> bool:
        """Also ML-DSA-65 and -87 (minutes of taint tracking each): the default run checks ML-DSA-44, the
        same C on the same permutation."""
        return super().ct_full_only(prim_id, impl, target) or prim_id in ("mldsa65", "mldsa87")

    def scheme_model(self, fw: Firmware):
        """The model module, or the object its ``for_id(prim_id)`` returns where one module serves several
        parameter sets (ML-DSA-44/65/87): keygen/sign/verify of that id."""
        model = self.model(fw.impl.primitive)
        return model.for_id(fw.prim_id) if hasattr(model, "for_id") else model

    # -- vectors ------------------------------------------------------------------------------------

    def vectors(self, prim: Primitive, prim_id: str) -> list[Vector]:
        model = self.model(prim)
        paths = list(prim.vectors) + [prim.directory / rel for rel in prim.instances[prim_id].get("vectors", [])]
        out: list[Vector] = []
        for path in paths:
            # records naming another id (one file for several parameter sets) are that id's
            out += [_record_vector(path, i, rec) for i, rec in enumerate(model.read_vectors(path))
                    if rec.get("id", prim_id) == prim_id]
        return out

    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        """On a board outside full mode: every keygen and sign record, every board_kat_stride-th verify.
        An instance's `board_max_sign_message` ({target: bytes}) leaves out, on that board in every mode,
        the sign records whose message does not fit beside the signing state in the part's RAM (ML-DSA-44's
        hedged ACVP messages of 1.3-2 KB on the E31's 16 KiB): they run on the host and the other boards."""
        vectors = self.vectors(fw.impl.primitive, fw.prim_id)
        # board_max_sig_bytes {target: n}: a record whose signature is longer does not fit that target's
        # default part; the scheme's own test runs it on a larger one (LMS: the ATmega1284P, tests/test_lms.py)
        limit = fw.params.get("board_max_sig_bytes", {}).get(fw.target)
        if limit is not None and fw.core.name == DEFAULT_CORE[fw.target]:
            vectors = [v for v in vectors if len(v.fields.get("sig", "")) // 2 <= limit]
        limit = (fw.params.get("board_max_sign_message") or {}).get(fw.target)
        if limit is not None:
            vectors = [v for v in vectors if v.fields["op"] != "sign" or len(v.fields.get("msg", "")) // 2 <= limit]
        stride = fw.params.get("board_kat_stride", 1)
        if fw.target == "host" or full_mode() or stride <= 1:
            return vectors
        strided = ("verify", "keygen", "sign", "ecdh") if fw.params.get("board_kat_stride_all") else ("verify",)
        keep = set()
        for op in strided:
            keep |= {id(v) for v in [v for v in vectors if v.fields["op"] == op][::stride]}
        return [v for v in vectors if v.fields["op"] not in strided or id(v) in keep]

    def check_vectors(self, fw: Firmware, vectors: list[Vector] | None = None) -> int:
        if vectors is None:
            vectors = self.default_selection(fw)
        ran = 0
        for v in vectors:
            if fw.has(self._vector_op(v)):
                self.check_vector(fw, v)
                ran += 1
        return ran

    @staticmethod
    def _vector_op(vec: Vector) -> str:
        """The function a record exercises: its op, or sign_internal/verify_internal for a record of the
        scheme's internal interface (ML-DSA's ACVP files: M' given whole, no context)."""
        op = vec.fields["op"]
        return f"{op}_internal" if vec.fields.get("interface") == "internal" and op != "keygen" else op

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        f, where = vec.fields, vec.fields.get("where", vec.where)
        get = lambda name: vec.hex(name) if name in f else b""   # noqa: E731
        op = f["op"]
        if op == "keygen":
            if not fw.has("keygen"):
                return
            pk, sk = self.keygen(fw, vec.hex("seed"))[:2]
            if pk != vec.hex("pk") or ("sk" in f and sk != vec.hex("sk")):
                raise Mismatch(f"{where}: keygen gave pk {pk.hex()}, expected {f['pk']}")
        elif op in ("sign", "verify") and f.get("interface") == "internal":
            self._check_internal(fw, vec)
        elif op == "sign":
            if not fw.has("sign"):
                return
            rnd = vec.hex("rnd") if "rnd" in f else None
            sig = self.sign(fw, vec.hex("sk"), get("msg"), get("ctx"), rnd)[0]
            if sig != vec.hex("sig"):
                raise Mismatch(f"{where}: sign gave {sig.hex()}, expected {f['sig']}")
        elif op == "verify":
            ok = self.verify(fw, vec.hex("sig"), get("msg"), vec.hex("pk"), get("ctx"))[0]
            want = f.get("valid", "True") == "True"
            if ok != want:
                raise Mismatch(f"{where}: verify {'accepted' if ok else 'refused'} a signature the file marks "
                               f"{'valid' if want else 'invalid'}")
        elif op == "ecdh":
            if not fw.has("ecdh"):
                return
            ok, shared = self.ecdh(fw, vec.hex("sk"), vec.hex("pk"))[:2]
            ok = ok and shared == vec.hex("shared")
            if ok and "own_pk" in f and fw.has("keygen"):
                ok = self.keygen(fw, vec.hex("sk"))[0] == vec.hex("own_pk")
            want = f.get("valid", "True") == "True"
            if ok != want:
                raise Mismatch(f"{where}: ecdh {'agreed' if ok else 'did not agree'} with a record the file marks "
                               f"{'valid' if want else 'invalid'}")
        else:
            raise Mismatch(f"{where}: unknown op {op!r} in the model's records")

    def _check_internal(self, fw: Firmware, vec: Vector) -> None:
        """A record of the internal interface: sign_internal(sig, mprime, mprimelen, sk, rnd) or
        verify_internal(sig, siglen, mprime, mprimelen, pk), M' = the record's msg."""
        f, where = vec.fields, vec.fields.get("where", vec.where)
        op = self._vector_op(vec)
        if not fw.has(op):
            raise Mismatch(f"{where}: a record of the internal interface, and {fw.prim_id} has no {op}")
        mprime = vec.hex("msg") if "msg" in f else b""
        if op == "sign_internal":
            res = fw.call(op, {"sig": Buf(size=fw.params["sig_bytes"], out=True), "mprime": Buf(mprime),
                               "mprimelen": len(mprime), "sk": Buf(vec.hex("sk")), "rnd": Buf(vec.hex("rnd"))})
            if not self._verdict(op, res) or res.outputs[0] != vec.hex("sig"):
                raise Mismatch(f"{where}: sign_internal gave {res.outputs[0].hex()}, expected {f['sig']}")
        else:
            sig = vec.hex("sig")
            res = fw.call(op, {"sig": Buf(sig), "siglen": len(sig), "mprime": Buf(mprime),
                               "mprimelen": len(mprime), "pk": Buf(vec.hex("pk"))})
            ok, want = self._verdict(op, res), f.get("valid", "True") == "True"
            if ok != want:
                raise Mismatch(f"{where}: verify_internal {'accepted' if ok else 'refused'} a signature the "
                               f"file marks {'valid' if want else 'invalid'}")

    # -- calls --------------------------------------------------------------------------------------

    @staticmethod
    def _names(fw: Firmware, op: str) -> set[str]:
        return {p.name for p in fw.impl.functions[op].params}

    @staticmethod
    def _verdict(op: str, res: CallResult) -> bool:
        if res.return_value == 0:
            return True
        if returned_minus_one(res.return_value):
            return False
        raise Mismatch(f"{op} returned {res.return_value:#x}, neither 0 nor -1")

    def keygen_args(self, fw: Firmware, seed: bytes) -> dict:
        return {"pk": Buf(size=fw.params["pk_bytes"], out=True), "sk": Buf(size=fw.params["sk_bytes"], out=True),
                "seed": Buf(seed)}

    def keygen(self, fw: Firmware, seed: bytes) -> tuple[bytes, bytes, CallResult]:
        res = fw.call("keygen", self.keygen_args(fw, seed))
        if not self._verdict("keygen", res):
            raise Mismatch(f"keygen refused the seed {seed.hex()}")
        pk, sk = res.outputs
        return pk, sk, res

    def sign_args(self, fw: Firmware, sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None) -> dict:
        names = self._names(fw, "sign")
        args: dict = {"sig": Buf(size=fw.params["sig_bytes"], out=True), "msg": Buf(msg), "msglen": len(msg),
                      "sk": Buf(sk)}
        if "siglen" in names:
            size = Param("size_t", "siglen").scalar_size(fw.board.native_int_size)
            args["siglen"] = Buf(size=size, out=True)
        if "ctx" in names:
            args["ctx"], args["ctxlen"] = Buf(ctx), len(ctx)
        elif ctx:
            raise UsageError(f"{fw.prim_id} takes no context")
        if "rnd" in names:
            if rnd is None or len(rnd) != fw.params.get("rnd_bytes", 0):
                raise UsageError(f"{fw.prim_id}'s sign takes {fw.params.get('rnd_bytes', 0)} bytes of randomness")
            args["rnd"] = Buf(rnd)
        return args

    def sign(self, fw: Firmware, sk: bytes, msg: bytes, ctx: bytes = b"",
             rnd: bytes | None = None) -> tuple[bytes, CallResult]:
        res = fw.call("sign", self.sign_args(fw, sk, msg, ctx, rnd))
        if not self._verdict("sign", res):
            raise Mismatch(f"sign refused the key {sk.hex()[:64]}...")
        sig = res.outputs[0]
        if len(res.outputs) > 1:       # siglen
            n = int.from_bytes(res.outputs[1], "little")
            if n > fw.params["sig_bytes"]:
                raise Mismatch(f"sign reported a {n}-byte signature, more than sig_bytes {fw.params['sig_bytes']}")
            sig = sig[:n]
        return sig, res

    def verify_args(self, fw: Firmware, sig: bytes, msg: bytes, pk: bytes, ctx: bytes = b"") -> dict:
        names = self._names(fw, "verify")
        args: dict = {"sig": Buf(sig), "siglen": len(sig), "msg": Buf(msg), "msglen": len(msg), "pk": Buf(pk)}
        if "pklen" in names:
            args["pklen"] = len(pk)
        if "ctx" in names:
            args["ctx"], args["ctxlen"] = Buf(ctx), len(ctx)
        elif ctx:
            raise UsageError(f"{fw.prim_id} takes no context")
        return args

    def verify(self, fw: Firmware, sig: bytes, msg: bytes, pk: bytes, ctx: bytes = b"") -> tuple[bool, CallResult]:
        res = fw.call("verify", self.verify_args(fw, sig, msg, pk, ctx))
        return self._verdict("verify", res), res

    def ecdh_args(self, fw: Firmware, sk: bytes, pk: bytes) -> dict:
        return {"shared": Buf(size=fw.params["shared_bytes"], out=True), "sk": Buf(sk), "pk": Buf(pk),
                "pklen": len(pk)}

    def ecdh(self, fw: Firmware, sk: bytes, pk: bytes) -> tuple[bool, bytes, CallResult]:
        """(accepted, shared, result); a refusal must leave shared all zeros."""
        res = fw.call("ecdh", self.ecdh_args(fw, sk, pk))
        ok, shared = self._verdict("ecdh", res), res.outputs[0]
        if not ok and any(shared):
            raise Mismatch("ecdh refused its input but released a shared value")
        return ok, shared, res

    # -- differential -------------------------------------------------------------------------------

    def _ctx(self, fw: Firmware, rng: random.Random) -> bytes:
        if "ctx" not in self._names(fw, "verify"):
            return b""
        return rng.randbytes(rng.randint(0, fw.params.get("max_ctx_bytes", DEFAULT_MAX_CTX)))

    def _rnd(self, fw: Firmware, rng: random.Random) -> bytes | None:
        n = fw.params.get("rnd_bytes", 0)
        return rng.randbytes(n) if n else None

    def _flip_positions(self, fw: Firmware, sig_len: int, rng: random.Random) -> list[int]:
        if fw.target == "host" or full_mode():
            return list(range(sig_len))
        n = min(sig_len, fw.params.get("board_flips", DEFAULT_BOARD_FLIPS))
        return sorted({0, sig_len - 1, *rng.sample(range(sig_len), max(0, n - 2))})[:max(n, 2)]

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.scheme_model(fw)
        p = fw.params
        top = p.get("max_random_length", DEFAULT_MAX_RANDOM)
        run = 0
        for i in range(trials):
            seed = rng.randbytes(p["seed_bytes"])
            pk, sk = model_keygen(model, fw, seed)
            where = f"trial {i} (seed {seed.hex()})"
            if fw.has("keygen"):
                got_pk, got_sk, _ = self.keygen(fw, seed)
                if (got_pk, got_sk) != (pk, sk):
                    raise Mismatch(f"{where}: keygen gave pk {got_pk.hex()}, model {pk.hex()}"
                                   + ("" if got_pk != pk else " (sk differs)"))
                run += 1
            msg = rng.randbytes(EDGE_LENGTHS[i] if i < len(EDGE_LENGTHS) else rng.randint(0, top))
            ctx, rnd = self._ctx(fw, rng), self._rnd(fw, rng)
            where += f", {len(msg)}-byte message {msg.hex()[:64]}"
            # the model signs, the board verifies
            sig = model.sign(sk, msg, ctx, rnd) if rnd is not None or ctx else model.sign(sk, msg)
            if not self.verify(fw, sig, msg, pk, ctx)[0]:
                raise Mismatch(f"{where}: verify refused the model's signature {sig.hex()}")
            run += 1
            # the board signs, the model verifies
            if fw.has("sign"):
                got = self.sign(fw, sk, msg, ctx, rnd)[0]
                if p.get("sign_deterministic", True) and got != sig:
                    raise Mismatch(f"{where}: sign gave {got.hex()}, model {sig.hex()}")
                if not model.verify(pk, msg, got, ctx):
                    raise Mismatch(f"{where}: the model refused the board's signature {got.hex()}")
                run += 1
            # a changed message
            bad_msg = msg + b"\x00" if not msg else bytes([msg[0] ^ 1]) + msg[1:]
            if self.verify(fw, sig, bad_msg, pk, ctx)[0]:
                raise Mismatch(f"{where}: verify accepted the signature for a changed message")
            run += 1
            if i == 0:
                run += self._malformed_signatures(fw, model, sig, msg, pk, ctx, rng, where)
        if fw.has("ecdh") and trials:     # a random key pair each way, and the model's malformed peer keys
            a_pk, a_sk = model.keygen(rng.randbytes(p["seed_bytes"]))
            b_pk, b_sk = model.keygen(rng.randbytes(p["seed_bytes"]))
            want = model.ecdh(a_sk, b_pk)
            if self.ecdh(fw, a_sk, b_pk)[:2] != (True, want) or model.ecdh(b_sk, a_pk) != want:
                raise Mismatch(f"ecdh({a_sk.hex()}, {b_pk.hex()}) disagrees with the model's {want.hex()}")
            run += 1
            # the malformed records' keys that the model itself refuses (the bad-signature records carry
            # the valid key, which ecdh must accept)
            bad_pks = [pk for pk in dict.fromkeys(rec["pk"] for rec in getattr(model, "malformed", lambda: [])())
                       if not _model_accepts_peer(model, a_sk, pk)]
            if fw.target != "host" and not full_mode():
                bad_pks = bad_pks[::max(1, p.get("board_kat_stride", 1))]
            for bad in bad_pks:
                if self.ecdh(fw, a_sk, bad)[0]:
                    raise Mismatch(f"ecdh accepted a malformed public key {bad.hex()}")
                run += 1
        malformed = getattr(model, "malformed", lambda: [])() if trials else []
        if fw.target != "host" and not full_mode():     # a board: every board_kat_stride-th record
            malformed = malformed[::max(1, p.get("board_kat_stride", 1))]
        for rec in malformed:
            ok = self.verify(fw, rec["sig"], rec.get("msg", b""), rec["pk"], rec.get("ctx", b""))[0]
            if ok:
                raise Mismatch(f"verify accepted a malformed input: {rec['where']}")
            run += 1
        return run

    def _malformed_signatures(self, fw: Firmware, model, sig: bytes, msg: bytes, pk: bytes, ctx: bytes,
                              rng: random.Random, where: str) -> int:
        """Bit flips in each chosen byte of a valid signature, and the signature truncated and overlong:
        all refused (and refused by the model: the check is on the board, the model confirms the case)."""
        run = 0
        for pos in self._flip_positions(fw, len(sig), rng):
            bad = bytearray(sig)
            bad[pos] ^= 1 << rng.randrange(8)
            if self.verify(fw, bytes(bad), msg, pk, ctx)[0]:
                raise Mismatch(f"{where}: verify accepted the signature with byte {pos} changed: {bad.hex()}")
            run += 1
        for bad in (sig[:-1], b"", sig + b"\x00"):
            if self.verify(fw, bad, msg, pk, ctx)[0]:
                raise Mismatch(f"{where}: verify accepted a {len(bad)}-byte signature ({len(sig)} expected)")
            run += 1
        if "pklen" in self._names(fw, "verify"):
            for bad_pk in (pk[:-1], pk + b"\x00"):
                if self.verify(fw, sig, msg, bad_pk, ctx)[0]:
                    raise Mismatch(f"{where}: verify accepted a {len(bad_pk)}-byte public key")
                run += 1
        return run

    # -- bench --------------------------------------------------------------------------------------

    def bench(self, fw: Firmware) -> list[BenchOp]:
        model = self.scheme_model(fw)
        p = fw.params
        rng = random.Random(f"bench/{fw.prim_id}")
        seed = rng.randbytes(p["seed_bytes"])
        pk, sk = model_keygen(model, fw, seed)
        ops = []
        if fw.has("keygen"):
            got_pk, got_sk, res = self.keygen(fw, seed)
            if (got_pk, got_sk) != (pk, sk):
                raise Mismatch("bench: keygen disagrees with the model")
            ops.append(BenchOp("keygen", 0, res))
        msgs = [rng.randbytes(BENCH_MSG_BYTES) for _ in range(max(1, p.get("bench_sign_messages", 1)))]
        ctx = b""
        sig = None
        if fw.has("sign"):
            results = []
            for m in msgs:
                rnd = self._rnd(fw, rng)
                s, res = self.sign(fw, sk, m, ctx, rnd)
                if not model.verify(pk, m, s, ctx):
                    raise Mismatch("bench: the model refused the board's signature")
                results.append(res)
                sig = s if sig is None else sig
            n = len(results)
            mean = dataclasses.replace(results[0], cycles=round(sum(r.cycles for r in results) / n),
                                       instructions=round(sum(r.instructions for r in results) / n),
                                       stack_bytes=max(r.stack_bytes for r in results))
            ops.append(BenchOp(f"sign-{BENCH_MSG_BYTES}B", BENCH_MSG_BYTES, mean))
        if sig is None:
            rnd = self._rnd(fw, rng)
            sig = model.sign(sk, msgs[0], ctx, rnd) if rnd is not None else model.sign(sk, msgs[0])
        ok, res = self.verify(fw, sig, msgs[0], pk, ctx)
        if not ok:
            raise Mismatch("bench: verify refused a valid signature")
        ops.append(BenchOp(f"verify-{BENCH_MSG_BYTES}B", BENCH_MSG_BYTES, res))
        if fw.has("ecdh"):
            peer_pk = model.keygen(rng.randbytes(p["seed_bytes"]))[0]
            ok, shared, res = self.ecdh(fw, sk, peer_pk)
            if not ok or shared != model.ecdh(sk, peer_pk):
                raise Mismatch("bench: ecdh disagrees with the model")
            ops.append(BenchOp("ecdh", 0, res))
        return ops

    # -- constant time ------------------------------------------------------------------------------

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """keygen on a secret seed; sign with a secret sk (and rnd) on public messages of every length
        class (empty, short, one hash block and more); verify (nothing secret: so that its code is
        executed under the checker) on a valid and on a changed signature."""
        model = self.scheme_model(fw)
        p = fw.params
        pub = random.Random(f"ct-public/{public_seed}")
        # A scheme whose secrets have a range (P-256's 1 <= d < n) maps each drawn secret into it
        # (model.ct_secret), so the checker's patterns (all zeros, all ones) run the whole operation.
        fit = getattr(model, "ct_secret", lambda raw: raw)
        seed = fit(rng.randbytes(p["seed_bytes"]))
        pk, sk = model_keygen(model, fw, seed)
        cases = []
        if fw.has("keygen"):
            cases.append(CtCase("keygen", self.keygen_args(fw, seed)))
        lengths = p.get("ct_lengths", (0, 21, 200))
        msgs = [pub.randbytes(n) for n in lengths]
        ctx = b""
        if fw.has("sign"):
            for m in msgs:
                rnd = self._rnd(fw, rng)
                cases.append(CtCase("sign", self.sign_args(fw, sk, m, ctx, None if rnd is None else fit(rnd))))
            if p.get("rnd_zero_deterministic"):   # the deterministic nonce's code (zeros: the caller's choice)
                cases.append(CtCase("sign", self.sign_args(fw, sk, msgs[-1], ctx, bytes(p["rnd_bytes"]))))
        if fw.has("sign_internal"):      # the internal interface: M' a public message
            cases.append(CtCase("sign_internal", {
                "sig": Buf(size=p["sig_bytes"], out=True), "mprime": Buf(msgs[0]), "mprimelen": len(msgs[0]),
                "sk": Buf(sk), "rnd": Buf(self._rnd(fw, rng) or b"")}))
        if fw.has("ecdh"):
            cases.append(CtCase("ecdh", self.ecdh_args(fw, sk, model.keygen(pub.randbytes(p["seed_bytes"]))[0])))
        rnd = self._rnd(fw, pub)
        sig = model.sign(sk, msgs[0], ctx, rnd) if rnd is not None else model.sign(sk, msgs[0])
        bad = bytes([sig[0] ^ 1]) + sig[1:]
        for s in (sig, bad):
            cases.append(CtCase("verify", self.verify_args(fw, s, msgs[0], pk, ctx)))
        return cases

    # -- run ----------------------------------------------------------------------------------------

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        p = fw.params
        key = parse_hex("key", getattr(opts, "key", None))
        msg = parse_hex("input", opts.input) if getattr(opts, "input", None) is not None else None
        if getattr(opts, "tag", None) is not None:
            if msg is None:
                raise UsageError("--tag (a signature to verify) needs --input (the message)")
            # a verify with pklen takes keys of several lengths (LMS: n = 24 or 32), up to pk_bytes
            variable = "pklen" in self._names(fw, "verify")
            if len(key) > p["pk_bytes"] or (len(key) != p["pk_bytes"] and not variable):
                raise UsageError(f"--key: verify takes the {p['pk_bytes']}-byte public key"
                                 f"{' (at most)' if variable else ''}, got {len(key)} bytes")
            sig = parse_hex("tag", opts.tag)
            ok, res = self.verify(fw, sig, msg, key)
            if not ok:
                raise AuthenticationFailed("signature refused: it does not verify for this public key and message")
            return sig, res
        if not fw.has("sign") and not fw.has("keygen"):
            raise UsageError(f"{fw.prim_id} is verify-only here: give --key PK --input MSG --tag SIG")
        if len(key) == p["seed_bytes"] and fw.has("keygen"):
            pk, sk, res = self.keygen(fw, key)
            if msg is None:
                return pk + sk, res
        elif len(key) == p["sk_bytes"] and msg is not None:
            sk = key
        else:
            raise UsageError(f"--key: a {p['seed_bytes']}-byte seed (keygen) or, with --input, a "
                             f"{p['sk_bytes']}-byte secret key; got {len(key)} bytes")
        if not fw.has("sign"):
            raise UsageError(f"{fw.prim_id} has no sign here")
        if p.get("rnd_bytes", 0):
            raise UsageError(f"{fw.prim_id}'s sign takes randomness: `mcucrypt run` does not draw it")
        return self.sign(fw, sk, msg)


DRIVER = SignatureDriver()


def _model_accepts_peer(model, sk: bytes, pk: bytes) -> bool:
    """Whether the model's ecdh takes pk as a peer key (it raises ValueError on a malformed one)."""
    try:
        model.ecdh(sk, pk)
        return True
    except ValueError:
        return False
