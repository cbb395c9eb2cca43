# SPDX-License-Identifier: MIT
"""Message authentication codes: with a key of any length (HMAC-SHA256, HMAC-SHA512) or of one fixed
length (Poly1305's 32-byte one-time key, AES-CMAC's 16-byte key: instance parameter key_bytes, and no
keylen parameter).

API under mcu_<id>_<impl>_ (META.yml `functions`; with key_bytes, drop every keylen):
  mac(out, key, keylen, in, inlen)                  the full tag_bytes tag
  mac_init(ctx, key, keylen), mac_update(ctx, in, inlen), mac_final(ctx, out)     incremental; final
                                                    writes the tag and wipes the context
  verify(tag, taglen, key, keylen, in, inlen) -> int   0 when the first taglen bytes of the tag match,
                                                    -1 otherwise, and -1 for taglen outside
                                                    min_tag_bytes..tag_bytes; constant time, the verdict
                                                    the only value declassified (mcu_declassify)
With key_bytes the prototypes leave out keylen (mac(out, key, in, inlen), mac_init(ctx, key),
verify(tag, taglen, key, in, inlen)) and every key drawn is key_bytes long.
Instance parameters: tag_bytes, block_bytes (the hash's block: keys and messages straddle it),
ctx_bytes (the incremental context), min_tag_bytes (shortest truncated tag verify accepts, default 4),
optional key_bytes (a fixed key length: every key has it, the API has no keylen; --key must have
it), max_random_key (differential key lengths 0..this, default 200: longer than the block, so hashed
first), max_random_length (message lengths 0..this, default 300), bench_lengths (message lengths
benchmarked, default [64]: op mac-<n>B with a 32-byte key) and ``ctx_public`` (as in the hash kind: the
context's public bytes, [start, hex] pairs, for a context holding block_bytes + 21 bytes); optional
``ct_lengths``, the message lengths of the constant-time cases besides block_bytes + 21 (default 0, 21,
block_bytes and three blocks).
Vector fields: Key, Msg, MD (RFC 4231 and NIST CAVP HMACVS; an MD shorter than tag_bytes is a truncated
tag, checked through verify and as a prefix of the tag). NIST CAVP CMAC files: Mlen (message bytes; Msg
is 00 when 0), Tlen (tag bytes), Mac (the tag, as MD) and, in the verification files, Result (P: verify
must accept, F...: it must refuse; the mac must then differ from the tag).
The model module provides mac(id, key, msg) -> the full tag.
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, PublicResult, UsageError, fix_public_bytes, parse_hex
from .aead import AuthenticationFailed

DEFAULT_BENCH_LENGTHS = (64,)
BENCH_KEY_BYTES = 32
DEFAULT_MAX_KEY = 200
DEFAULT_MAX_RANDOM = 300


def returned_minus_one(value: int) -> bool:
    """A C int -1 as the board reports it (unsigned, 16 bits on AVR, 32 elsewhere)."""
    return value in (-1, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)


def key_args(fw: Firmware, op: str, key: bytes) -> dict:
    """The key argument of ``op``, with keylen when its prototype has one (not with a fixed key_bytes)."""
    args: dict = {"key": Buf(key)}
    if any(p.name == "keylen" for p in fw.impl.functions[op].params):
        args["keylen"] = len(key)
    return args


class MacDriver(KindDriver):
    kind = "mac"
    # The key and message are secret, and the tag verify compares with (a forger's guess, but also the
    # caller's own tag: treated as secret); verify's accept/reject verdict is public, nothing else.
    secret = {"mac": ("key", "in"), "mac_init": ("key",), "mac_update": ("ctx", "in"), "mac_final": ("ctx",),
              "verify": ("tag", "key", "in")}
    ct_ops = frozenset(secret)
    public_results = {"verify": PublicResult("the accept/reject verdict")}
    run_options = ("key", "input", "tag")
    # Each trial is about five calls (one-shot, incremental, three verifications) on up to 300 bytes.
    default_trials = 12

    # ------------------------------------------------------------------------------------------ calls
    def mac(self, fw: Firmware, key: bytes, msg: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("mac", {"out": Buf(size=fw.params["tag_bytes"], out=True), **key_args(fw, "mac", key),
                              "in": Buf(msg), "inlen": len(msg)})
        return res.outputs[0], res

    def incremental(self, fw: Firmware, key: bytes, chunks: list[bytes]) -> tuple[bytes, bytes]:
        """mac_init, one mac_update per chunk, mac_final: the tag and the context mac_final left."""
        ctx = fw.call("mac_init", {"ctx": Buf(size=fw.params["ctx_bytes"], out=True),
                                   **key_args(fw, "mac_init", key)}).outputs[0]
        for c in chunks:
            ctx = fw.call("mac_update", {"ctx": Buf(ctx, out=True), "in": Buf(c), "inlen": len(c)}).outputs[0]
        res = fw.call("mac_final", {"ctx": Buf(ctx, out=True), "out": Buf(size=fw.params["tag_bytes"], out=True)})
        ctx, tag = res.outputs
        return tag, ctx

    def verify(self, fw: Firmware, tag: bytes, key: bytes, msg: bytes) -> tuple[bool, CallResult]:
        """True on 0; False on -1; anything else is a Mismatch (the API returns only these two)."""
        res = fw.call("verify", {"tag": Buf(tag), "taglen": len(tag), **key_args(fw, "verify", key),
                                 "in": Buf(msg), "inlen": len(msg)})
        if res.return_value == 0:
            return True, res
        if returned_minus_one(res.return_value):
            return False, res
        raise Mismatch(f"verify returned {res.return_value:#x}, neither 0 nor -1")

    # ------------------------------------------------------------------------------------ verification
    def check_tag(self, fw: Firmware, key: bytes, msg: bytes, want: bytes, where: str,
                  rng: random.Random | None = None) -> None:
        """The one-shot tag (its first len(want) bytes) is ``want``; verify accepts ``want`` and refuses
        it with one byte changed (at a position ``rng`` picks, else the last)."""
        got, _ = self.mac(fw, key, msg)
        if got[:len(want)] != want:
            raise Mismatch(f"{where}: mac gave {got.hex()}, expected {want.hex()}")
        if not self.verify(fw, want, key, msg)[0]:
            raise Mismatch(f"{where}: verify refused the right {len(want)}-byte tag {want.hex()}")
        i = rng.randrange(len(want)) if rng else len(want) - 1
        bad = want[:i] + bytes([want[i] ^ (1 << (rng.randrange(8) if rng else 0))]) + want[i + 1:]
        if self.verify(fw, bad, key, msg)[0]:
            raise Mismatch(f"{where}: verify accepted a tag wrong in byte {i}: {bad.hex()}")

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        key, msg = vec.hex("Key"), vec.hex("Msg")
        md = vec.hex("MD") if vec.get("MD") is not None else vec.hex("Mac")
        if vec.get("Len") is not None and int(vec.get("Len")) != 8 * len(msg):
            raise Mismatch(f"{vec.where}: Len {vec.get('Len')} is not the message's {8 * len(msg)} bits")
        if vec.get("Mlen") is not None:   # CAVP CMAC: lengths in bytes, the empty message written 00
            msg = msg[:int(vec.get("Mlen"))]
            if len(msg) != int(vec.get("Mlen")) or len(md) != int(vec.get("Tlen", len(md))):
                raise Mismatch(f"{vec.where}: Mlen/Tlen disagree with Msg/Mac")
        where = f"{vec.where} (Count {vec.get('Count')})"
        result = vec.get("Result")
        if result is None or result.startswith("P"):
            self.check_tag(fw, key, msg, md, where)
            return
        got, _ = self.mac(fw, key, msg)   # Result F: a forged tag, verify must refuse it
        if got[:len(md)] == md:
            raise Mismatch(f"{where}: the mac matches a tag the vector marks as failing ({result})")
        if self.verify(fw, md, key, msg)[0]:
            raise Mismatch(f"{where}: verify accepted the failing tag {md.hex()} ({result})")

    @staticmethod
    def _split(rng: random.Random, data: bytes, parts: int) -> list[bytes]:
        cuts = sorted(rng.randint(0, len(data)) for _ in range(parts - 1))
        edges = [0, *cuts, len(data)]
        return [data[a:b] for a, b in zip(edges, edges[1:])]

    def check_one(self, fw: Firmware, model, key: bytes, msg: bytes, rng: random.Random, where: str) -> None:
        """One key and message against the model: one-shot, incremental in random pieces (the context
        wiped afterwards), verify of the full tag, of a truncated one and of a wrong one, and refusal of
        tag lengths outside min_tag_bytes..tag_bytes."""
        tag_bytes, shortest = fw.params["tag_bytes"], fw.params.get("min_tag_bytes", 4)
        want = model.mac(fw.prim_id, key, msg)
        self.check_tag(fw, key, msg, want, where, rng)
        chunks = self._split(rng, msg, rng.randint(1, 4))
        got, ctx = self.incremental(fw, key, chunks)
        if got != want:
            raise Mismatch(f"{where}: incremental ({[len(c) for c in chunks]}) gave {got.hex()}, model {want.hex()}")
        if any(ctx):
            raise Mismatch(f"{where}: mac_final left the context unwiped: {ctx.hex()}")
        n = rng.randint(shortest, tag_bytes)
        if not self.verify(fw, want[:n], key, msg)[0]:
            raise Mismatch(f"{where}: verify refused the right tag truncated to {n} bytes")
        for n in (0, shortest - 1):
            if self.verify(fw, want[:n], key, msg)[0]:
                raise Mismatch(f"{where}: verify accepted a {n}-byte tag (at least {shortest})")
        if self.verify(fw, want + b"\x00", key, msg)[0]:
            raise Mismatch(f"{where}: verify accepted a {tag_bytes + 1}-byte tag")

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        """Random keys of 0..max_random_key bytes (beyond the block: hashed first) and messages of
        0..max_random_length bytes against the model (check_one); the first trials take the key
        lengths at the block's edges (block - 1, block, block + 1). With key_bytes: keys of that
        length, the first trials' messages 0, block - 1, block and block + 1 bytes long."""
        model = self.model(fw.impl.primitive)
        block = fw.params["block_bytes"]
        top_key = fw.params.get("max_random_key", DEFAULT_MAX_KEY)
        top = fw.params.get("max_random_length", DEFAULT_MAX_RANDOM)
        fixed_key = fw.params.get("key_bytes")
        edges = [block - 1, block, block + 1]
        for i in range(trials):
            if fixed_key is not None:   # one key length: the message lengths take the block edges
                key = rng.randbytes(fixed_key)
                msg = rng.randbytes([0, *edges][i] if i < 4 else rng.randint(0, top))
            else:
                key = rng.randbytes(edges[i] if i < len(edges) else rng.randint(0, top_key))
                msg = rng.randbytes(rng.randint(0, top))
            self.check_one(fw, model, key, msg, rng, f"trial {i}: key {key.hex()} msg {msg.hex()}")
        return trials

    # ------------------------------------------------------------------------------------------ bench
    def bench(self, fw: Firmware) -> list[BenchOp]:
        """mac-<n>B: the one-shot tag of n message bytes under a 32-byte key (HMAC's cost: the two key
        blocks, the message, two finishing blocks); verify-<n>B the same with the comparison."""
        rng = random.Random(f"bench/{fw.prim_id}")
        key = rng.randbytes(fw.params.get("key_bytes", BENCH_KEY_BYTES))
        lengths = fw.params.get("bench_lengths", DEFAULT_BENCH_LENGTHS)
        msg = rng.randbytes(max(lengths))
        ops = []
        for n in lengths:
            tag, res = self.mac(fw, key, msg[:n])
            ops.append(BenchOp(f"mac-{n}B", n, res))
            ops.append(BenchOp(f"verify-{n}B", n, self.verify(fw, tag, key, msg[:n])[1]))
        return ops

    # -------------------------------------------------------------------------------- constant time
    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """Key and message secret (their lengths public): the one-shot mac on every length class of message
        and key, mac_init, mac_update and mac_final on a context part-way through a
        block (its count public: ``ctx_public``), and verify with the right tag and with one wrong in
        byte ``trial % tag_bytes`` (both paths run; only the verdict is declassified)."""
        p = fw.params
        tag_bytes, ctx_bytes, block = p["tag_bytes"], p["ctx_bytes"], p["block_bytes"]
        fixed = p.get("key_bytes")
        key = rng.randbytes(fixed if fixed is not None else 32)
        msg = rng.randbytes(block + 21)

        def mac(k: bytes, m: bytes) -> CtCase:
            return CtCase("mac", {"out": Buf(size=tag_bytes, out=True), **key_args(fw, "mac", k),
                                  "in": Buf(m), "inlen": len(m)})
        # every length class of the message (empty, partial, one block, several, several and a partial;
        # with ct_lengths, the instance's: e.g. a hash's padding fill classes too)
        cases = [mac(key, rng.randbytes(n)) for n in p.get("ct_lengths", (0, 21, block, 3 * block))] + [mac(key, msg)]
        if fixed is None:       # and of the key (shorter than a block, exactly one, longer: hashed first),
            # the short one also of a length no word divides and shorter than a word (byte-wise copies)
            cases += [mac(rng.randbytes(n), msg) for n in (block + 13, block, 21, 3)]
        cases.append(CtCase("mac_init", {"ctx": Buf(size=ctx_bytes, out=True), **key_args(fw, "mac_init", key)}))
        ctx = bytearray(rng.randbytes(ctx_bytes))
        public = {"ctx": fix_public_bytes(ctx, p["ctx_public"])}
        # the context holds block_bytes + 21 bytes: updates that leave the block partial (0, 21 bytes), end
        # exactly on a block boundary (after completing it, and two whole blocks later: a mode that keeps
        # the last full block back, as CMAC does, takes its own path there) and run several blocks and a tail
        to_boundary = block - 21 % block
        for n in sorted({0, 21, to_boundary, to_boundary + 2 * block, 3 * block + 21}):
            part = rng.randbytes(n)
            cases.append(CtCase("mac_update", {"ctx": Buf(bytes(ctx), out=True), "in": Buf(part), "inlen": n},
                                public))
        cases.append(CtCase("mac_final", {"ctx": Buf(bytes(ctx), out=True), "out": Buf(size=tag_bytes, out=True)},
                            public))
        tag = fw.call("mac", {"out": Buf(size=tag_bytes, out=True), **key_args(fw, "mac", key),
                              "in": Buf(msg), "inlen": len(msg)}).outputs[0]
        wrong = getattr(rng, "trial", 0) % tag_bytes
        bad = tag[:wrong] + bytes([tag[wrong] ^ (1 << rng.randrange(8))]) + tag[wrong + 1:]
        shortest = p.get("min_tag_bytes", 4)
        # the full tag right and wrong, the shortest truncation accepted, and the refusals of a tag length
        # outside min_tag_bytes..tag_bytes (a public length: refused before anything secret is read)
        checks = [(tag, len(tag)), (bad, len(bad)), (tag[:shortest], shortest),
                  (tag[:shortest - 1], shortest - 1), (tag + bytes(1), tag_bytes + 1)]
        for t, n in checks if shortest < tag_bytes else checks[:2] + checks[3:]:
            cases.append(CtCase("verify", {"tag": Buf(t), "taglen": n, **key_args(fw, "verify", key),
                                           "in": Buf(msg), "inlen": len(msg)}))
        return cases

    # ------------------------------------------------------------------------------------------- run
    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """--key (any length, default empty), --input (the message, default empty): the tag. With --tag,
        verify it (min_tag_bytes..tag_bytes bytes): the output is the tag when it verifies, otherwise
        AuthenticationFailed (exit 2)."""
        fixed = fw.params.get("key_bytes")
        if fixed is not None:
            if not getattr(opts, "key", None):
                raise UsageError(f"--key: {fw.prim_id} takes a {fixed}-byte key")
            key = parse_hex("key", opts.key, length=fixed)
        else:
            key = parse_hex("key", opts.key) if getattr(opts, "key", None) else b""
        msg = parse_hex("input", opts.input) if getattr(opts, "input", None) else b""
        fixed_key = fw.params.get("key_bytes")
        if fixed_key is not None and len(key) != fixed_key:
            raise UsageError(f"--key: {fw.prim_id} takes a {fixed_key}-byte key, got {len(key)}")
        if getattr(opts, "tag", None) is None:
            return self.mac(fw, key, msg)
        tag = parse_hex("tag", opts.tag)
        tag_bytes, shortest = fw.params["tag_bytes"], fw.params.get("min_tag_bytes", 4)
        if not shortest <= len(tag) <= tag_bytes:
            raise UsageError(f"--tag: {fw.prim_id} verifies tags of {shortest}..{tag_bytes} bytes, got {len(tag)}")
        ok, res = self.verify(fw, tag, key, msg)
        if not ok:
            raise AuthenticationFailed("authentication failed: the tag does not verify for this key and message")
        return tag, res


DRIVER = MacDriver()
