# SPDX-License-Identifier: MIT
"""Hash functions, XOFs and customizable XOFs (Ascon-Hash256, -XOF128, -CXOF128; SHA-3 would fit too).

Instance parameters: ``mode`` (hash | xof | cxof), ``out_bytes`` (digest length of ``hash``, and the
length the official vectors give for the others), ``ctx_bytes`` (the incremental context),
optional ``max_random_length`` (differential message lengths 0..this, default 200) and
``bench_lengths`` (message lengths benchmarked), ``bench_out_bytes`` (xof, cxof: the output length
benchmarked, default out_bytes); ``board_kat_full_bytes`` and ``board_kat_max_bytes`` choose the
official vectors run on a board (``check_vectors``, ``kat_vectors``); ``max_z_bytes`` (cxof) the longest
customization string the standard allows (Ascon-CXOF128: 256 bytes, SP 800-232): cxof and cxof_init
return 0 up to it and -1 beyond, writing nothing (``check_z_limit``, in the differential test).
API under mcu_<id>_<impl>_, per mode:
  hash:  hash(out, in, inlen) -> int            NIST LWC crypto_hash, out_bytes of output
         init(ctx), update(ctx, in, inlen), final(ctx, out)
  xof:   xof(out, outlen, in, inlen); hash(out, in, inlen) (optional: crypto_hash, out_bytes)
         init(ctx), update(ctx, in, inlen), squeeze(ctx, out, outlen)   (squeeze may be called again)
  cxof:  cxof(out, outlen, in, inlen, z, zlen) -> int
         cxof_init(ctx, z, zlen) -> int, update(ctx, in, inlen), squeeze(ctx, out, outlen)
Vector fields: NIST LWC KAT Msg, MD and, for cxof, Z (the customization string); NIST CAVP SHAVS and
SHA-3 response files use Msg, MD (or Output for SHAKE) and Len in bits (a Len that is not a multiple of 8
is a bit-oriented vector, skipped: the API takes bytes).
Constant-time cases (``ct_lengths``, default [21]) hash messages of those lengths, and check ``update``
(``ct_update_lengths``, default 21 and the longest of ct_lengths) and ``final``/``squeeze`` on a context
part-way through a block; xof and squeeze also at the output lengths ``ct_out_lengths`` (default none
besides out_bytes). ``ctx_public`` names the context's
public bytes: a list of [start, hex] (the bytes at start are that fixed public value, e.g. a fill count
or a length counter), by default Ascon's: state 40 B and buffered block 8 B, then from byte 48 a fill of
3 and the context's padding.
The model module provides digest(id, msg, outlen, z) -> bytes.
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult, Int
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, fix_public_bytes, parse_hex
from .mac import returned_minus_one

DEFAULT_BENCH_LENGTHS = (16, 64, 1536)
DEFAULT_MAX_RANDOM = 200


class HashDriver(KindDriver):
    kind = "hash"
    # The message and every context holding part of it are secret; nothing is declassified.
    secret = {"hash": ("in",), "xof": ("in",), "cxof": ("in",), "update": ("ctx", "in"), "final": ("ctx",),
              "squeeze": ("ctx",)}
    ct_ops = frozenset(secret)
    public_ops = frozenset({"init", "cxof_init"})     # from public inputs only (the customization is public)
    run_options = ("input", "outlen", "z")
    # Each trial is a one-shot call and an incremental run of a few calls on up to 200 bytes.
    default_trials = 12

    # ------------------------------------------------------------------------------------------ calls
    def oneshot(self, fw: Firmware, msg: bytes, outlen: int, z: bytes = b"") -> tuple[bytes, CallResult]:
        mode = fw.params["mode"]
        if mode == "hash":
            res = fw.call("hash", {"out": Buf(size=fw.params["out_bytes"], out=True), "in": Buf(msg),
                                   "inlen": Int(len(msg), 8)})
        elif mode == "xof":
            res = fw.call("xof", {"out": Buf(size=outlen, out=True), "outlen": outlen, "in": Buf(msg),
                                  "inlen": len(msg)})
        else:
            out, refused, res = self.cxof_verdict(fw, msg, outlen, z)
            if refused:
                raise Mismatch(f"cxof refused a {len(z)}-byte customization string")
        return res.outputs[0], res

    @staticmethod
    def _verdict(op: str, res: CallResult) -> bool:
        """True when a call returning 0 or -1 returned -1."""
        if res.return_value != 0 and not returned_minus_one(res.return_value):
            raise Mismatch(f"{op} returned {res.return_value:#x}, neither 0 nor -1")
        return res.return_value != 0

    def cxof_verdict(self, fw: Firmware, msg: bytes, outlen: int, z: bytes,
                     out_before: bytes | None = None) -> tuple[bytes, bool, CallResult]:
        """The one-shot cxof: (out, refused, result), out starting as out_before (zeros by default)."""
        out = Buf(out_before, out=True) if out_before is not None else Buf(size=outlen, out=True)
        res = fw.call("cxof", {"out": out, "outlen": outlen, "in": Buf(msg), "inlen": len(msg), "z": Buf(z),
                               "zlen": len(z)})
        return res.outputs[0], self._verdict("cxof", res), res

    def check_z_limit(self, fw: Firmware, rng: random.Random) -> int:
        """Customization strings of max_z_bytes (accepted: against the model, one-shot and incremental)
        and max_z_bytes + 1 (refused: -1, and out, or ctx, as they were before the call, filled with
        random bytes). 0 checks when the instance has no max_z_bytes."""
        top = fw.params.get("max_z_bytes")
        if fw.params["mode"] != "cxof" or top is None:
            return 0
        model = self.model(fw.impl.primitive)
        msg, outlen = rng.randbytes(5), 16
        for zlen in (top, top + 1):
            z, before = rng.randbytes(zlen), rng.randbytes(outlen)
            out, refused, _ = self.cxof_verdict(fw, msg, outlen, z, out_before=before)
            if zlen > top and (not refused or out != before):
                raise Mismatch(f"cxof with a {zlen}-byte customization string (the bound: {top}): "
                               + ("it wrote to out" if refused else "not refused"))
            if zlen <= top and (refused or out != model.digest(fw.prim_id, msg, outlen, z)):
                raise Mismatch(f"cxof with a {zlen}-byte customization string " +
                               ("refused" if refused else "disagrees with the model"))
            ctx = rng.randbytes(fw.params["ctx_bytes"])
            res = fw.call("cxof_init", {"ctx": Buf(ctx, out=True), "z": Buf(z), "zlen": zlen})
            refused = self._verdict("cxof_init", res)
            if zlen > top and (not refused or res.outputs[0] != ctx):
                raise Mismatch(f"cxof_init with a {zlen}-byte customization string (the bound: {top}): "
                               + ("it wrote to ctx" if refused else "not refused"))
            if zlen <= top and refused:
                raise Mismatch(f"cxof_init refused a {zlen}-byte customization string")
        z = z[:top]
        if self.incremental(fw, [msg], [outlen], z) != model.digest(fw.prim_id, msg, outlen, z):
            raise Mismatch(f"cxof_init, update, squeeze with a {top}-byte customization string disagree with the model")
        return 5

    def crypto_hash(self, fw: Firmware, msg: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("hash", {"out": Buf(size=fw.params["out_bytes"], out=True), "in": Buf(msg),
                               "inlen": Int(len(msg), 8)})
        return res.outputs[0], res

    def incremental(self, fw: Firmware, chunks: list[bytes], outs: list[int], z: bytes = b"") -> bytes:
        """init, one update per chunk, then final (hash) or one squeeze per entry of ``outs``."""
        mode = fw.params["mode"]
        ctx = bytes(fw.params["ctx_bytes"])
        if mode == "cxof":
            res = fw.call("cxof_init", {"ctx": Buf(ctx, out=True), "z": Buf(z), "zlen": len(z)})
            if self._verdict("cxof_init", res):
                raise Mismatch(f"cxof_init refused a {len(z)}-byte customization string")
            ctx = res.outputs[0]
        else:
            ctx = fw.call("init", {"ctx": Buf(ctx, out=True)}).outputs[0]
        for c in chunks:
            ctx = fw.call("update", {"ctx": Buf(ctx, out=True), "in": Buf(c), "inlen": len(c)}).outputs[0]
        if mode == "hash":
            return fw.call("final", {"ctx": Buf(ctx), "out": Buf(size=fw.params["out_bytes"], out=True)}).outputs[0]
        out = b""
        for n in outs:
            res = fw.call("squeeze", {"ctx": Buf(ctx, out=True), "out": Buf(size=n, out=True), "outlen": n})
            ctx, piece = res.outputs
            out += piece
        return out

    # ------------------------------------------------------------------------------------ verification
    def kat_vectors(self, fw: Firmware) -> list[Vector]:
        """Every official vector, but on a board only those whose message is at most
        ``board_kat_max_bytes`` long (instance parameter, if set): SHA-3's LongMsg messages reach 17 KB,
        more than the ATmega128's SRAM or the E31's DTIM holds. The host runs them all."""
        vectors = self.vectors(fw.impl.primitive, fw.prim_id)
        top = fw.params.get("board_kat_max_bytes")
        if top is not None and fw.target != "host":
            vectors = [v for v in vectors if len(v.fields["Msg"]) // 2 <= top]
        return vectors

    def default_selection(self, fw: Firmware) -> list[Vector]:
        """Every official vector on the host (and when check_vectors is given the list: the bench's
        cached KAT verdict). On a board, of ``kat_vectors``, every vector whose message is at most
        ``board_kat_full_bytes`` long (instance parameter) and every 8th of the longer ones: hashing the
        1,025 messages of up to 1 KiB costs minutes on the AVR and on the trap-emulated Zbb of rv32."""
        return self.board_subset(fw, "Msg")

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        msg, md = vec.hex("Msg"), vec.hex("MD") if vec.get("MD") is not None else vec.hex("Output")
        if vec.get("Len") is not None:
            bits = int(vec.get("Len"))
            if bits % 8:
                return          # a bit-oriented vector: the API takes whole bytes
            msg = msg[:bits // 8]   # SHAVS writes Len = 0 with Msg = 00
        z = vec.hex("Z") if vec.get("Z") is not None else b""
        got, _ = self.oneshot(fw, msg, len(md), z)
        if got != md:
            raise Mismatch(f"{vec.where} (Count {vec.get('Count')}): digest {got.hex()}, expected {md.hex()}")

    @staticmethod
    def _split(rng: random.Random, data: bytes, parts: int) -> list[bytes]:
        cuts = sorted(rng.randint(0, len(data)) for _ in range(parts - 1))
        edges = [0, *cuts, len(data)]
        return [data[a:b] for a, b in zip(edges, edges[1:])]

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        """Random messages of 0..max_random_length bytes (and customization strings, output lengths)
        through the one-shot call and through init / update in random pieces / final or squeeze in random
        pieces, both against the model."""
        model = self.model(fw.impl.primitive)
        mode, out_bytes = fw.params["mode"], fw.params["out_bytes"]
        top = fw.params.get("max_random_length", DEFAULT_MAX_RANDOM)
        for i in range(trials):
            msg = rng.randbytes(rng.randint(0, top))
            z = rng.randbytes(rng.randint(0, 40)) if mode == "cxof" else b""
            outlen = out_bytes if mode == "hash" else rng.randint(0, 100)
            where = f"trial {i}: msg {msg.hex()} z {z.hex()} outlen {outlen}"
            want = model.digest(fw.prim_id, msg, outlen, z)
            got, _ = self.oneshot(fw, msg, outlen, z)
            if got != want:
                raise Mismatch(f"{where}: one-shot gave {got.hex()}, model {want.hex()}")
            if mode == "xof" and fw.has("hash"):
                got, _ = self.crypto_hash(fw, msg)
                if got != model.digest(fw.prim_id, msg, out_bytes):
                    raise Mismatch(f"{where}: crypto_hash gave {got.hex()}")
            chunks = self._split(rng, msg, rng.randint(1, 4))
            outs = [outlen] if mode == "hash" else [len(p) for p in self._split(rng, bytes(outlen), rng.randint(1, 3))]
            got = self.incremental(fw, chunks, outs, z)
            if got != want:
                raise Mismatch(f"{where}: incremental ({[len(c) for c in chunks]} in, {outs} out) gave "
                               f"{got.hex()}, model {want.hex()}")
        return trials + self.check_z_limit(fw, rng)

    # ------------------------------------------------------------------------------------------ bench
    def bench(self, fw: Firmware) -> list[BenchOp]:
        """<mode>-<n>B: the one-shot call on n message bytes (xof and cxof give ``bench_out_bytes``, by
        default out_bytes, of output; cxof with a 16-byte customization string)."""
        rng = random.Random(f"bench/{fw.prim_id}")
        lengths = fw.params.get("bench_lengths", DEFAULT_BENCH_LENGTHS)
        msg = rng.randbytes(max(lengths))
        z = rng.randbytes(16)
        mode = fw.params["mode"]
        outlen = fw.params.get("bench_out_bytes", fw.params["out_bytes"])
        return [BenchOp(f"{mode}-{n}B", n, self.oneshot(fw, msg[:n], outlen, z)[1]) for n in lengths]

    # -------------------------------------------------------------------------------- constant time
    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """The message (and the context holding its absorbed part) is secret; lengths, output lengths
        and the customization string are public. One one-shot call per length of ``ct_lengths``."""
        mode, out_bytes, ctx_bytes = fw.params["mode"], fw.params["out_bytes"], fw.params["ctx_bytes"]
        pub = random.Random(f"ct-public/{fw.prim_id}/{public_seed}")
        z = pub.randbytes(5)
        cases = []
        lengths = fw.params.get("ct_lengths", [21])
        # every length, and the longest also from and to odd addresses (the byte paths beside word ones)
        for n, odd in [(n, 0) for n in lengths] + [(max(lengths), 1)]:
            msg = rng.randbytes(n)
            if mode == "hash":
                cases.append(CtCase("hash", {"out": Buf(size=out_bytes, out=True, misalign=odd),
                                             "in": Buf(msg, misalign=odd), "inlen": Int(len(msg), 8)}))
            elif mode == "xof":
                cases.append(CtCase("xof", {"out": Buf(size=out_bytes, out=True, misalign=odd), "outlen": out_bytes,
                                            "in": Buf(msg, misalign=odd), "inlen": len(msg)}))
                for outlen in fw.params.get("ct_out_lengths", []) if n == 21 else []:
                    cases.append(CtCase("xof", {"out": Buf(size=outlen, out=True), "outlen": outlen,
                                                "in": Buf(msg), "inlen": len(msg)}))
            else:
                cases.append(CtCase("cxof", {"out": Buf(size=out_bytes, out=True, misalign=odd), "outlen": out_bytes,
                                             "in": Buf(msg, misalign=odd), "inlen": len(msg), "z": Buf(z), "zlen": len(z)}))
        if mode == "xof" and fw.has("hash"):      # the XOF's fixed-length crypto_hash entry point
            msg = rng.randbytes(21)
            cases.append(CtCase("hash", {"out": Buf(size=out_bytes, out=True), "in": Buf(msg),
                                         "inlen": Int(len(msg), 8)}))
        # A context part-way through a block: its state and buffered bytes are secret, its fill and
        # length counter are public, so the draw keeps the public bytes from the fixed context made below
        # (the rest of the context after them: padding the layout leaves, zero).
        ctx = bytearray(rng.randbytes(ctx_bytes))
        ascon = [[48, "0300".ljust(2 * (ctx_bytes - 48), "0")]]   # the fill, then the context's padding
        public = {"ctx": fix_public_bytes(ctx, fw.params.get("ctx_public", ascon))}
        # 21 bytes (the block stays partial) and the longest one-shot length (it fills the block, absorbs
        # whole blocks and buffers a tail), or the instance's ct_update_lengths (from its context's fill:
        # also ending exactly on a block boundary, with whole blocks after completing one, and none)
        for n in fw.params.get("ct_update_lengths", sorted({21, max(fw.params.get("ct_lengths", [21]))})):
            msg = rng.randbytes(n)
            cases.append(CtCase("update", {"ctx": Buf(bytes(ctx), out=True), "in": Buf(msg), "inlen": len(msg)},
                                public))
        if mode == "hash":
            cases.append(CtCase("final", {"ctx": Buf(bytes(ctx)), "out": Buf(size=out_bytes, out=True)}, public))
        else:   # output lengths: the instance's, and ct_out_lengths (partial lanes and blocks)
            for n in sorted({out_bytes, *fw.params.get("ct_out_lengths", [])}):
                cases.append(CtCase("squeeze", {"ctx": Buf(bytes(ctx), out=True), "out": Buf(size=n, out=True),
                                                "outlen": n}, public))
        return cases

    # ------------------------------------------------------------------------------------------- run
    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """--input (the message, default empty); xof and cxof: --outlen (default out_bytes); cxof: --z."""
        msg = parse_hex("input", opts.input) if getattr(opts, "input", None) else b""
        outlen = getattr(opts, "outlen", None)
        outlen = fw.params["out_bytes"] if outlen is None else outlen
        if fw.params["mode"] == "hash" and outlen != fw.params["out_bytes"]:
            raise UsageError(f"--outlen: {fw.prim_id} gives {fw.params['out_bytes']} bytes")
        if outlen < 0:
            raise UsageError("--outlen must not be negative")
        z = parse_hex("z", opts.z) if getattr(opts, "z", None) else b""
        if z and fw.params["mode"] != "cxof":
            raise UsageError(f"--z: {fw.prim_id} takes no customization string")
        if fw.params["mode"] == "cxof":
            out, refused, res = self.cxof_verdict(fw, msg, outlen, z)
            if refused:
                raise UsageError(f"--z: {fw.prim_id} refused a customization string of {len(z)} bytes (at most "
                                 f"{fw.params.get('max_z_bytes', '?')})")
            return out, res
        return self.oneshot(fw, msg, outlen, z)


DRIVER = HashDriver()
