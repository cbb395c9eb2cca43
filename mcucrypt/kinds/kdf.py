# SPDX-License-Identifier: MIT
"""Extract-and-expand key derivation (HKDF, RFC 5869).

API under mcu_<id>_<impl>_ (META.yml `functions`):
  extract(prk, salt, saltlen, ikm, ikmlen)                 PRK (hash_bytes) = HMAC(salt, IKM)
  expand(okm, okmlen, prk, info, infolen) -> int           OKM of okmlen bytes; 0, or -1 (nothing
                                                           written) when okmlen > 255 * hash_bytes
  hkdf(okm, okmlen, salt, saltlen, ikm, ikmlen, info, infolen) -> int     extract then expand
Instance parameters: hash_bytes; optional max_random_length (salt, IKM and info lengths 0..this,
default 100), max_random_okm (OKM lengths 0..this, default 200), bench_okm_bytes (default 64).
Vector fields (RFC 5869 Appendix A): IKM, salt, info, L, PRK, OKM.
The model module provides hkdf_extract(id, salt, ikm), hkdf_expand(id, prk, info, length) and
hkdf(id, salt, ikm, info, length).
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, parse_hex
from .mac import returned_minus_one

DEFAULT_MAX_RANDOM = 100
DEFAULT_MAX_OKM = 200
OUTPUT_FILL = 0xA5      # fills the output of a refused call, to see that nothing was written
# Typical sizes: a 32-byte shared secret and salt, a 16-byte label, 64 bytes of keys out.
BENCH_IKM, BENCH_SALT, BENCH_INFO, BENCH_OKM = 32, 32, 16, 64


class KdfDriver(KindDriver):
    kind = "kdf"
    secret = {"extract": ("ikm",), "expand": ("prk",), "hkdf": ("ikm",)}
    ct_ops = frozenset(secret)
    run_options = ("input", "salt", "info", "outlen")
    default_trials = 12

    # ------------------------------------------------------------------------------------------ calls
    def extract(self, fw: Firmware, salt: bytes, ikm: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("extract", {"prk": Buf(size=fw.params["hash_bytes"], out=True), "salt": Buf(salt),
                                  "saltlen": len(salt), "ikm": Buf(ikm), "ikmlen": len(ikm)})
        return res.outputs[0], res

    @staticmethod
    def _result(res: CallResult, what: str) -> tuple[bool, bytes]:
        if res.return_value == 0:
            return True, res.outputs[0]
        if returned_minus_one(res.return_value):
            return False, res.outputs[0]
        raise Mismatch(f"{what} returned {res.return_value:#x}, neither 0 nor -1")

    def expand(self, fw: Firmware, prk: bytes, info: bytes, length: int, room: int | None = None
               ) -> tuple[bool, bytes, CallResult]:
        """okmlen = length into a buffer of ``room`` bytes (default length) filled with OUTPUT_FILL."""
        room = length if room is None else room
        res = fw.call("expand", {"okm": Buf(bytes([OUTPUT_FILL]) * room, out=True), "okmlen": length,
                                 "prk": Buf(prk), "info": Buf(info), "infolen": len(info)})
        return (*self._result(res, "expand"), res)

    def hkdf(self, fw: Firmware, salt: bytes, ikm: bytes, info: bytes, length: int, room: int | None = None
             ) -> tuple[bool, bytes, CallResult]:
        room = length if room is None else room
        res = fw.call("hkdf", {"okm": Buf(bytes([OUTPUT_FILL]) * room, out=True), "okmlen": length,
                               "salt": Buf(salt), "saltlen": len(salt), "ikm": Buf(ikm), "ikmlen": len(ikm),
                               "info": Buf(info), "infolen": len(info)})
        return (*self._result(res, "hkdf"), res)

    # ------------------------------------------------------------------------------------ verification
    def check_one(self, fw: Firmware, salt: bytes, ikm: bytes, info: bytes, length: int, prk: bytes,
                  okm: bytes, where: str) -> None:
        got, _ = self.extract(fw, salt, ikm)
        if got != prk:
            raise Mismatch(f"{where}: extract gave {got.hex()}, expected {prk.hex()}")
        for name, (ok, out, _) in (("expand", self.expand(fw, prk, info, length)),
                                   ("hkdf", self.hkdf(fw, salt, ikm, info, length))):
            if not ok or out != okm:
                raise Mismatch(f"{where}: {name} (L = {length}) gave ok={ok} {out.hex()}, expected {okm.hex()}")

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        salt, ikm, info = (vec.hex(f) for f in ("salt", "IKM", "info"))
        self.check_one(fw, salt, ikm, info, int(vec.get("L")), vec.hex("PRK"), vec.hex("OKM"),
                       f"{vec.where} (COUNT {vec.get('COUNT')})")

    def check_refusal(self, fw: Firmware, prk: bytes, where: str) -> None:
        """okmlen beyond 255 * hash_bytes: -1 from expand and hkdf, nothing written (a 16-byte buffer
        between canaries: a write past it faults the call)."""
        top = 255 * fw.params["hash_bytes"]
        for length in (top + 1, 0xFFFF):
            for name, (ok, out, _) in (("expand", self.expand(fw, prk, b"", length, room=16)),
                                       ("hkdf", self.hkdf(fw, b"", prk, b"", length, room=16))):
                if ok or out != bytes([OUTPUT_FILL]) * 16:
                    raise Mismatch(f"{where}: {name} with okmlen {length} (> {top}) gave ok={ok}, output {out.hex()}")

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        """Random salt, IKM and info of 0..max_random_length bytes and OKM lengths 0..max_random_okm
        (every multiple of hash_bytes and its neighbours reachable) against the model; refusal of
        okmlen > 255 * hash_bytes; on the host, the longest output, 255 * hash_bytes (255 HMACs: the
        block counter's last value; the C modes are the same on every board, and 8,160 output bytes do
        not fit the AVR)."""
        model = self.model(fw.impl.primitive)
        top = fw.params.get("max_random_length", DEFAULT_MAX_RANDOM)
        top_okm = fw.params.get("max_random_okm", DEFAULT_MAX_OKM)
        for i in range(trials):
            salt, ikm, info = (rng.randbytes(rng.randint(0, top)) for _ in range(3))
            length = rng.randint(0, top_okm)
            prk = model.hkdf_extract(fw.prim_id, salt, ikm)
            okm = model.hkdf_expand(fw.prim_id, prk, info, length)
            self.check_one(fw, salt, ikm, info, length, prk, okm,
                           f"trial {i}: salt {salt.hex()} ikm {ikm.hex()} info {info.hex()} L {length}")
        prk = rng.randbytes(fw.params["hash_bytes"])
        self.check_refusal(fw, prk, "refusal")
        if fw.target == "host":
            longest = 255 * fw.params["hash_bytes"]
            ok, out, _ = self.expand(fw, prk, b"info", longest)
            if not ok or out != model.hkdf_expand(fw.prim_id, prk, b"info", longest):
                raise Mismatch(f"expand of the longest output ({longest} bytes) disagrees with the model")
        return trials

    # ------------------------------------------------------------------------------------------ bench
    def bench(self, fw: Firmware) -> list[BenchOp]:
        """extract-32B (32-byte IKM and salt), expand-64B (16-byte info), hkdf-64B (both): a typical
        derivation of two 32-byte keys from a 32-byte shared secret."""
        rng = random.Random(f"bench/{fw.prim_id}")
        salt, ikm, info = rng.randbytes(BENCH_SALT), rng.randbytes(BENCH_IKM), rng.randbytes(BENCH_INFO)
        n = fw.params.get("bench_okm_bytes", BENCH_OKM)
        prk, res = self.extract(fw, salt, ikm)
        return [BenchOp(f"extract-{BENCH_IKM}B", BENCH_IKM, res),
                BenchOp(f"expand-{n}B", n, self.expand(fw, prk, info, n)[2]),
                BenchOp(f"hkdf-{n}B", n, self.hkdf(fw, salt, ikm, info, n)[2])]

    # -------------------------------------------------------------------------------- constant time
    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """IKM and PRK secret; salt, info and every length public (an output of more than one block)."""
        pub = random.Random(f"ct-public/{fw.prim_id}/{public_seed}")
        salt, info = pub.randbytes(32), pub.randbytes(10)
        hb = fw.params["hash_bytes"]
        ikm, prk = rng.randbytes(22), rng.randbytes(hb)
        n = 2 * hb + 10
        cases = [
            CtCase("extract", {"prk": Buf(size=hb, out=True), "salt": Buf(salt), "saltlen": len(salt),
                               "ikm": Buf(ikm), "ikmlen": len(ikm)}),
            CtCase("expand", {"okm": Buf(size=n, out=True), "okmlen": n, "prk": Buf(prk), "info": Buf(info),
                              "infolen": len(info)}),
            CtCase("hkdf", {"okm": Buf(size=n, out=True), "okmlen": n, "salt": Buf(salt), "saltlen": len(salt),
                            "ikm": Buf(ikm), "ikmlen": len(ikm), "info": Buf(info), "infolen": len(info)}),
        ]
        # the other length classes: salts (the HMAC key) empty, shorter than a word, of a length no word
        # divides and longer than a block (hashed first), a long IKM; outputs of none, exactly one block,
        # and one more than the 255 blocks RFC 5869 allows (refused on its public length, nothing written)
        for s_len, i_len in ((0, 22), (3, 0), (21, 150), (150, 0)):
            s_, k_ = pub.randbytes(s_len), rng.randbytes(i_len)
            cases.append(CtCase("extract", {"prk": Buf(size=hb, out=True), "salt": Buf(s_), "saltlen": s_len,
                                            "ikm": Buf(k_), "ikmlen": i_len}))
        for m in (0, hb, 255 * hb + 1):
            cases.append(CtCase("expand", {"okm": Buf(size=min(m, n), out=True), "okmlen": m, "prk": Buf(prk),
                                           "info": Buf(info), "infolen": len(info)}))
        m = 255 * hb + 1
        cases.append(CtCase("hkdf", {"okm": Buf(size=n, out=True), "okmlen": m, "salt": Buf(salt), "saltlen": len(salt),
                                     "ikm": Buf(ikm), "ikmlen": len(ikm), "info": Buf(info), "infolen": len(info)}))
        return cases

    # ------------------------------------------------------------------------------------------- run
    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """--input (IKM), --salt, --info (each default empty), --outlen (default hash_bytes, at most
        255 * hash_bytes): the OKM of the whole HKDF."""
        ikm = parse_hex("input", opts.input) if getattr(opts, "input", None) else b""
        salt = parse_hex("salt", opts.salt) if getattr(opts, "salt", None) else b""
        info = parse_hex("info", opts.info) if getattr(opts, "info", None) else b""
        hb = fw.params["hash_bytes"]
        length = hb if getattr(opts, "outlen", None) is None else opts.outlen
        if not 0 <= length <= 255 * hb:
            raise UsageError(f"--outlen: {fw.prim_id} derives at most {255 * hb} bytes (255 blocks), not {length}")
        ok, okm, res = self.hkdf(fw, salt, ikm, info, length)
        if not ok:
            raise Mismatch(f"hkdf refused okmlen {length}")
        return okm, res


DRIVER = KdfDriver()
