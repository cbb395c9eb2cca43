# SPDX-License-Identifier: MIT
"""Authenticated encryption with associated data, in the NIST Lightweight Cryptography API shape.

API (META.yml `functions`), every implementation exporting, under mcu_<id>_<impl>_:
  aead_encrypt(c, clen, m, mlen, ad, adlen, nsec, npub, k) -> int        c = ciphertext || tag
  aead_decrypt(m, mlen, nsec, c, clen, ad, adlen, npub, k) -> int        0: tag verified; -1: rejected
exactly as crypto_aead_encrypt / crypto_aead_decrypt (lengths `unsigned long long`). On rejection the
decryption must release no plaintext: the output buffer is left untouched or wiped to zeros, and *mlen
is 0. Optional ops, used when the implementation has them:
  permute(state, key, steps)                      the primitive's keyed permutation (bench op P_<steps>)
  fixednonce_init_state(state, npub, k)           the state after key and nonce setup, stored once ...
  fixednonce_encrypt_from_state(c, clen, m, mlen, ad, adlen, state, k)      ... and messages processed
  fixednonce_decrypt_from_state(m, mlen, c, clen, ad, adlen, state, k)      from it (paper 004's "+I")
  aead_init(ctx, k, npub)                         incremental (streaming) API, all six together:
  aead_aad(ctx, ad, adlen) -> int                 any number, before any message byte (-1 after: refused)
  aead_encrypt_update(ctx, c, m, mlen) -> int     any number, any lengths (-1: message too long)
  aead_decrypt_update(ctx, m, c, clen) -> int     writes plaintext NOT YET AUTHENTICATED
  aead_encrypt_final(ctx, tag)                    the tag; wipes ctx
  aead_decrypt_final(ctx, tag) -> int             0: tag verified, -1: rejected (the caller must discard
                                                  everything decrypt_update wrote); constant time, the
                                                  verdict the only value declassified; wipes ctx
Instance parameters: key_bytes, nonce_bytes, tag_bytes, block_bytes (the bytes of message or AD absorbed
per permutation call: the constant-time cases' length classes); optional max_random_length (differential lengths,
default 40), bench_message_lengths (benchmarked besides 0..128) and bench_ad_cases ([AD, message] byte
pairs, op encrypt-<m>B+<a>AD); with permute: state_bytes and permutation_steps
(the step counts benchmarked, e.g. [640, 1024]) and permutation_step_multiple (valid step counts are its
multiples); optional max_message_bytes (the longest message accepted: the constant-time cases then
also run the refusals of a longer message and AD) or refuses_beyond_size_t (true: lengths the target's
size_t cannot hold are refused, and the cases run those refusals at 2^32); with aead_init:
ctx_bytes and ctx_public (as in the mac kind: the context's public bytes, [start, hex] pairs, for a
context after 21 bytes of AD and 70 of message). Optional board_kat_full_bytes: on a board, the test
suite's vector check runs every vector whose message is at most this long and every 8th of the longer
ones (the host, and the bench's KAT verdict, run them all). Vector fields: NIST LWC KAT Count, Key,
Nonce, PT, AD, CT (CT = ciphertext || tag).
The model module provides encrypt(id, key, nonce, ad, pt) -> ct||tag and decrypt(id, key, nonce, ad, ct)
-> pt or None; with the optional ops also permute(id, state, key, steps), init_state(id, key, nonce),
encrypt_from_state(id, state, key, ad, pt) and decrypt_from_state(id, state, key, ad, ct).
"""
from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from ..boards.base import Buf, CallResult, Int
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, PublicResult, UsageError, fix_public_bytes, parse_hex


class AuthenticationFailed(UsageError):
    """`mcucrypt run --decrypt` on a ciphertext whose tag does not verify (the CLI exits 2)."""


# Message lengths benchmarked without associated data, then the paper-004 Table 7 length (8 bytes).
BENCH_MESSAGE_LENGTHS = (0, 8, 16, 64, 128)
TABLE7_LENGTH = 8
# Fill of output buffers before a decryption, so that "left untouched" can be told from "overwritten".
OUTPUT_FILL = 0xA5
# The incremental API's context (crypto/chachapoly/ref/chacha20poly1305.c): where the message length
# (the key-stream position) is, and the longest message RFC 8439 allows (2^32 - 1 blocks after block 0).
CP_CTX_MLEN = 118
CP_MAX_MESSAGE = 274877906880
# A C int -1 as a board reports it (unsigned, 16 bits on AVR, 32 elsewhere).
MINUS_ONE = (-1, 0xFFFF, 0xFFFFFFFF)
# The index in ct_lengths of the (message, AD) pair the constant-time cases also run from odd addresses:
# two blocks and a partial one, a partial block (both the byte-wise tail and the unaligned block loops)
ODD_PAIR = 5


@dataclass(frozen=True)
class AeadResult:
    ok: bool                # return value 0
    output: bytes           # ciphertext||tag, or plaintext (or whatever the buffer holds after a rejection)
    length: int             # *clen / *mlen
    result: CallResult


class AeadDriver(KindDriver):
    kind = "aead"
    # NIST LWC: the key and the plaintext are secret (decryption's plaintext: the ciphertext's bytes); the
    # accept/reject verdict is public (the caller learns it anyway), nothing else.
    secret = {"aead_encrypt": ("m", "k"), "aead_decrypt": ("c", "k"), "permute": ("state", "key"),
              "fixednonce_init_state": ("k",), "fixednonce_encrypt_from_state": ("m", "state", "k"),
              "fixednonce_decrypt_from_state": ("c", "state", "k"), "aead_init": ("k",), "aead_aad": ("ctx",),
              "aead_encrypt_update": ("ctx", "m"), "aead_decrypt_update": ("ctx", "c"),
              "aead_encrypt_final": ("ctx",), "aead_decrypt_final": ("ctx", "tag")}
    ct_ops = frozenset(secret)
    public_results = {op: PublicResult("the accept/reject verdict")
                      for op in ("aead_decrypt", "fixednonce_decrypt_from_state", "aead_decrypt_final")}
    run_options = ("key", "nonce", "ad", "input", "decrypt")
    max_random_length = 40      # differential: message and AD lengths drawn from 0..this
    # Each trial is about eight calls (encryption, round trip, a forgery, the permutation, the fixed-nonce
    # API) with up to 2 x 10 blocks: 30 trials keep the C references on the slower boards to a few seconds.
    default_trials = 30
    board_test_trials = 12      # `make test` on a board (base.KindDriver); the host and MCUCRYPT_FULL=1: 30

    @staticmethod
    def _sizes(fw: Firmware) -> tuple[int, int, int]:
        p = fw.params
        return p["key_bytes"], p["nonce_bytes"], p["tag_bytes"]

    # ------------------------------------------------------------------------------------------ calls
    def encrypt(self, fw: Firmware, key: bytes, nonce: bytes, ad: bytes, pt: bytes) -> AeadResult:
        tag = self._sizes(fw)[2]
        res = fw.call("aead_encrypt", {
            "c": Buf(size=len(pt) + tag, out=True), "clen": Buf(size=8, out=True),
            "m": Buf(pt), "mlen": Int(len(pt), 8), "ad": Buf(ad), "adlen": Int(len(ad), 8),
            "nsec": Buf(b""), "npub": Buf(nonce), "k": Buf(key)})
        return AeadResult(res.return_value == 0, res.outputs[0], int.from_bytes(res.outputs[1], "little"), res)

    def decrypt(self, fw: Firmware, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> AeadResult:
        tag = self._sizes(fw)[2]
        out = max(len(ct) - tag, 0)
        res = fw.call("aead_decrypt", {
            "m": Buf(bytes([OUTPUT_FILL]) * out, out=True), "mlen": Buf(b"\xff" * 8, out=True),
            "nsec": Buf(b""), "c": Buf(ct), "clen": Int(len(ct), 8), "ad": Buf(ad), "adlen": Int(len(ad), 8),
            "npub": Buf(nonce), "k": Buf(key)})
        return AeadResult(res.return_value == 0, res.outputs[0], int.from_bytes(res.outputs[1], "little"), res)

    def init_state(self, fw: Firmware, key: bytes, nonce: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("fixednonce_init_state", {"state": Buf(size=fw.params["state_bytes"], out=True),
                                                "npub": Buf(nonce), "k": Buf(key)})
        return res.outputs[0], res

    def encrypt_from_state(self, fw: Firmware, state: bytes, key: bytes, ad: bytes, pt: bytes) -> AeadResult:
        tag = self._sizes(fw)[2]
        res = fw.call("fixednonce_encrypt_from_state", {
            "c": Buf(size=len(pt) + tag, out=True), "clen": Buf(size=8, out=True),
            "m": Buf(pt), "mlen": Int(len(pt), 8), "ad": Buf(ad), "adlen": Int(len(ad), 8),
            "state": Buf(state), "k": Buf(key)})
        return AeadResult(res.return_value == 0, res.outputs[0], int.from_bytes(res.outputs[1], "little"), res)

    def decrypt_from_state(self, fw: Firmware, state: bytes, key: bytes, ad: bytes, ct: bytes) -> AeadResult:
        tag = self._sizes(fw)[2]
        out = max(len(ct) - tag, 0)
        res = fw.call("fixednonce_decrypt_from_state", {
            "m": Buf(bytes([OUTPUT_FILL]) * out, out=True), "mlen": Buf(b"\xff" * 8, out=True),
            "c": Buf(ct), "clen": Int(len(ct), 8), "ad": Buf(ad), "adlen": Int(len(ad), 8),
            "state": Buf(state), "k": Buf(key)})
        return AeadResult(res.return_value == 0, res.outputs[0], int.from_bytes(res.outputs[1], "little"), res)

    def incremental(self, fw: Firmware, key: bytes, nonce: bytes, ad_chunks: list[bytes], chunks: list[bytes],
                    tag: bytes | None = None) -> tuple[bool, bytes, bytes, list[int]]:
        """aead_init, one aead_aad per AD chunk, one aead_{en,de}crypt_update per message chunk, then
        aead_encrypt_final (tag None) or aead_decrypt_final(tag): (verdict, output, the context the final
        call left, the return values of aad and the updates). Encryption's output is ciphertext || tag."""
        ctx = fw.call("aead_init", {"ctx": Buf(size=fw.params["ctx_bytes"], out=True), "k": Buf(key),
                                    "npub": Buf(nonce)}).outputs[0]
        rets, out = [], b""
        for a in ad_chunks:
            res = fw.call("aead_aad", {"ctx": Buf(ctx, out=True), "ad": Buf(a), "adlen": len(a)})
            ctx = res.outputs[0]
            rets.append(res.return_value)
        op, src, dst = (("aead_encrypt_update", "m", "c") if tag is None else ("aead_decrypt_update", "c", "m"))
        for c in chunks:
            res = fw.call(op, {"ctx": Buf(ctx, out=True), dst: Buf(size=len(c), out=True), src: Buf(c),
                               f"{src}len": len(c)})
            ctx, piece = res.outputs
            out += piece
            rets.append(res.return_value)
        if tag is None:
            ctx, t = fw.call("aead_encrypt_final", {"ctx": Buf(ctx, out=True),
                                                    "tag": Buf(size=self._sizes(fw)[2], out=True)}).outputs
            return True, out + t, ctx, rets
        res = fw.call("aead_decrypt_final", {"ctx": Buf(ctx, out=True), "tag": Buf(tag)})
        if res.return_value not in (0, *MINUS_ONE):
            raise Mismatch(f"aead_decrypt_final returned {res.return_value:#x}, neither 0 nor -1")
        return res.return_value == 0, out, res.outputs[0], rets

    def permute(self, fw: Firmware, state: bytes, key: bytes, steps: int) -> tuple[bytes, CallResult]:
        res = fw.call("permute", {"state": Buf(state, out=True), "key": Buf(key), "steps": steps})
        return res.outputs[0], res

    # ------------------------------------------------------------------------------------ verification
    @staticmethod
    def released_nothing(r: AeadResult) -> bool:
        """A rejected decryption: return value nonzero, *mlen 0, output untouched or all zeros."""
        untouched = all(b == OUTPUT_FILL for b in r.output)
        wiped = not any(r.output)
        return not r.ok and r.length == 0 and (untouched or wiped)

    def check_decrypt(self, fw: Firmware, key: bytes, nonce: bytes, ad: bytes, ct: bytes, pt: bytes | None,
                      where: str) -> None:
        """Decrypt ``ct``: it must give ``pt``, or (pt None) be rejected releasing nothing."""
        r = self.decrypt(fw, key, nonce, ad, ct)
        if pt is None:
            if not self.released_nothing(r):
                raise Mismatch(f"{where}: forged ciphertext {ct.hex()} not rejected cleanly: return ok={r.ok}, "
                               f"mlen {r.length}, output {r.output.hex()}")
        elif not r.ok or r.output != pt or r.length != len(pt):
            raise Mismatch(f"{where}: decrypt gave ok={r.ok} mlen {r.length} {r.output.hex()}, "
                           f"expected {pt.hex()}")

    def default_selection(self, fw: Firmware) -> list[Vector]:
        """Every official vector on the host (and when check_vectors is given the list: the bench's KAT
        verdict); on a board with ``board_kat_full_bytes`` (instance parameter), the vectors whose message
        is at most that long and every 8th of the longer ones."""
        return self.board_subset(fw, "PT")

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        key, nonce, ad, pt, ct = (vec.hex(f) for f in ("Key", "Nonce", "AD", "PT", "CT"))
        r = self.encrypt(fw, key, nonce, ad, pt)
        if not r.ok or r.output != ct or r.length != len(ct):
            raise Mismatch(f"{vec.where} (Count {vec.get('Count')}): encrypt gave {r.output.hex()} "
                           f"(ok={r.ok}, clen {r.length}), expected {ct.hex()}")
        self.check_decrypt(fw, key, nonce, ad, ct, pt, f"{vec.where} (Count {vec.get('Count')})")

    @staticmethod
    def flip_bit(data: bytes, bit: int) -> bytes:
        out = bytearray(data)
        out[bit // 8] ^= 1 << (bit % 8)
        return bytes(out)

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        """Random keys, nonces and lengths 0..max_random_length of message and AD against the model;
        every trial also decrypts (round trip), rejects a ciphertext or tag with one bit flipped, and, when
        the implementation has them, checks the permutation and the fixed-nonce API against the model."""
        model = self.model(fw.impl.primitive)
        key_bytes, nonce_bytes, _ = self._sizes(fw)
        top = fw.params.get("max_random_length", self.max_random_length)
        for i in range(trials):
            key, nonce = rng.randbytes(key_bytes), rng.randbytes(nonce_bytes)
            ad = rng.randbytes(rng.randint(0, top))
            pt = rng.randbytes(rng.randint(0, top))
            where = f"trial {i}: key {key.hex()} nonce {nonce.hex()} ad {ad.hex()} pt {pt.hex()}"
            want = model.encrypt(fw.prim_id, key, nonce, ad, pt)
            r = self.encrypt(fw, key, nonce, ad, pt)
            if not r.ok or r.output != want or r.length != len(want):
                raise Mismatch(f"{where}: encrypt gave {r.output.hex()} (ok={r.ok}, clen {r.length}), "
                               f"model {want.hex()}")
            self.check_decrypt(fw, key, nonce, ad, want, pt, where)
            if self._sizes(fw)[2]:      # tag_bytes 0 (CCM* encryption only): nothing to forge
                self.check_decrypt(fw, key, nonce, ad, self.flip_bit(want, rng.randrange(8 * len(want))), None,
                                   where + " (one bit flipped)")
            if fw.has("permute"):
                self._check_permute(fw, model, rng, key, where)
            if fw.has("fixednonce_init_state"):
                self._check_fixed_nonce(fw, model, key, nonce, ad, pt, want, where)
            if fw.has("aead_init"):
                self._check_incremental(fw, rng, key, nonce, ad, pt, want, where)
        return trials

    @staticmethod
    def random_chunks(rng: random.Random, data: bytes) -> list[bytes]:
        """``data`` cut at up to four random places (so chunks straddle the 16-byte Poly1305 and 64-byte
        ChaCha20 blocks), half of the time with a 1-byte chunk, a quarter of the time with an empty one."""
        n = len(data)
        cuts = rng.sample(range(1, n), min(rng.randint(0, 4), max(n - 1, 0))) if n > 1 else []
        if n > 2 and rng.random() < 0.5:
            c = rng.randrange(1, n - 1)
            cuts += [c, c + 1]
        if rng.random() < 0.25:
            cuts.append(rng.randint(0, n))
        bounds = [0, *sorted(cuts), n]
        return [data[a:b] for a, b in zip(bounds, bounds[1:])]

    def _check_incremental(self, fw: Firmware, rng: random.Random, key: bytes, nonce: bytes, ad: bytes,
                           pt: bytes, ct: bytes, where: str) -> None:
        """The streaming API on random chunkings of AD and message equals ``ct`` (the model's, which the
        one-shot encryption gave too) both ways; a tag with one bit flipped is refused; every final call
        leaves the context all zeros; AD after message bytes is refused."""
        tag_bytes = self._sizes(fw)[2]
        ad_chunks, pt_chunks = self.random_chunks(rng, ad), self.random_chunks(rng, pt)
        where += (f" (incremental: AD chunks {[len(c) for c in ad_chunks]}, "
                  f"message chunks {[len(c) for c in pt_chunks]})")
        _, got, ctx, rets = self.incremental(fw, key, nonce, ad_chunks, pt_chunks)
        if got != ct or any(rets) or any(ctx):
            raise Mismatch(f"{where}: encrypt gave {got.hex()} (returns {rets}, context left {ctx.hex()}), "
                           f"expected {ct.hex()}")
        body, tag = ct[:-tag_bytes], ct[-tag_bytes:]
        ok, got, ctx, rets = self.incremental(fw, key, nonce, ad_chunks, self.random_chunks(rng, body), tag)
        if not ok or got != pt or any(rets) or any(ctx):
            raise Mismatch(f"{where}: decrypt gave ok={ok} {got.hex()} (returns {rets}, context left "
                           f"{ctx.hex()}), expected {pt.hex()}")
        bad = self.flip_bit(tag, rng.randrange(8 * tag_bytes))
        ok, _, ctx, _ = self.incremental(fw, key, nonce, [ad], [body], bad)
        if ok or any(ctx):
            raise Mismatch(f"{where}: aead_decrypt_final accepted the forged tag {bad.hex()} or left the "
                           f"context {ctx.hex()}")
        # AD after the message has begun: refused, the context unchanged
        ctx = fw.call("aead_init", {"ctx": Buf(size=fw.params["ctx_bytes"], out=True), "k": Buf(key),
                                    "npub": Buf(nonce)}).outputs[0]
        ctx = fw.call("aead_encrypt_update", {"ctx": Buf(ctx, out=True), "c": Buf(size=len(pt), out=True),
                                              "m": Buf(pt), "mlen": len(pt)}).outputs[0]
        res = fw.call("aead_aad", {"ctx": Buf(ctx, out=True), "ad": Buf(b"\x00"), "adlen": 1})
        if res.return_value not in MINUS_ONE or res.outputs[0] != ctx:
            raise Mismatch(f"{where}: aead_aad after the message returned {res.return_value:#x}, "
                           f"context {'changed' if res.outputs[0] != ctx else 'unchanged'}")

    def _check_permute(self, fw: Firmware, model, rng: random.Random, key: bytes, where: str) -> None:
        p = fw.params
        multiple = p["permutation_step_multiple"]
        steps = multiple * rng.randint(1, max(p["permutation_steps"]) // multiple)
        state = rng.randbytes(p["state_bytes"])
        got, _ = self.permute(fw, state, key, steps)
        exp = model.permute(fw.prim_id, state, key, steps)
        if got != exp:
            raise Mismatch(f"{where}: permute({state.hex()}, {steps}) gave {got.hex()}, model {exp.hex()}")

    def _check_fixed_nonce(self, fw: Firmware, model, key: bytes, nonce: bytes, ad: bytes, pt: bytes,
                           ct: bytes, where: str) -> None:
        state, _ = self.init_state(fw, key, nonce)
        exp = model.init_state(fw.prim_id, key, nonce)
        if state != exp:
            raise Mismatch(f"{where}: fixednonce_init_state gave {state.hex()}, model {exp.hex()}")
        r = self.encrypt_from_state(fw, state, key, ad, pt)
        if not r.ok or r.output != ct or r.length != len(ct):
            raise Mismatch(f"{where}: fixednonce_encrypt_from_state gave {r.output.hex()}, expected {ct.hex()}")
        r = self.decrypt_from_state(fw, state, key, ad, ct)
        if not r.ok or r.output != pt or r.length != len(pt):
            raise Mismatch(f"{where}: fixednonce_decrypt_from_state gave {r.output.hex()}, expected {pt.hex()}")
        bad = self.flip_bit(ct, 8 * len(ct) - 1)
        if not self.released_nothing(self.decrypt_from_state(fw, state, key, ad, bad)):
            raise Mismatch(f"{where}: fixednonce_decrypt_from_state accepted or leaked a forged tag")

    # ------------------------------------------------------------------------------------------ bench
    def bench(self, fw: Firmware) -> list[BenchOp]:
        """encrypt-<n>B: NIST API encryption of n bytes without AD; decrypt-8B; the same 8-byte message
        from a stored state (encrypt-8B+I, decrypt-8B+I: paper 004's initialization skip) and the cost of
        storing it (init-state); P_<steps>: the keyed permutation alone; with META's bench_ad_cases
        [[ad, n], ...] also encrypt-<n>B+<ad>AD and decrypt-<n>B+<ad>AD (short packets with AD)."""
        key_bytes, nonce_bytes, _ = self._sizes(fw)
        rng = random.Random(f"bench/{fw.prim_id}")
        key, nonce = rng.randbytes(key_bytes), rng.randbytes(nonce_bytes)
        lengths = sorted({*BENCH_MESSAGE_LENGTHS, *fw.params.get("bench_message_lengths", ())})
        msg = rng.randbytes(max(lengths))
        ops: list[BenchOp] = []
        ct8 = b""
        for n in lengths:
            r = self.encrypt(fw, key, nonce, b"", msg[:n])
            ops.append(BenchOp(f"encrypt-{n}B", n, r.result))
            if n == TABLE7_LENGTH:
                ct8 = r.output
        ops.append(BenchOp(f"decrypt-{TABLE7_LENGTH}B", TABLE7_LENGTH,
                           self.decrypt(fw, key, nonce, b"", ct8).result))
        for ad_len, n in fw.params.get("bench_ad_cases", ()):   # short packets: {en,de}crypt-16B+16AD
            enc = self.encrypt(fw, key, nonce, msg[:ad_len], msg[:n])
            ops.append(BenchOp(f"encrypt-{n}B+{ad_len}AD", n, enc.result))
            ops.append(BenchOp(f"decrypt-{n}B+{ad_len}AD", n,
                               self.decrypt(fw, key, nonce, msg[:ad_len], enc.output).result))
        if fw.has("fixednonce_init_state"):
            state, res = self.init_state(fw, key, nonce)
            ops.append(BenchOp("init-state", 0, res))
            ops.append(BenchOp(f"encrypt-{TABLE7_LENGTH}B+I", TABLE7_LENGTH,
                               self.encrypt_from_state(fw, state, key, b"", msg[:TABLE7_LENGTH]).result))
            ops.append(BenchOp(f"decrypt-{TABLE7_LENGTH}B+I", TABLE7_LENGTH,
                               self.decrypt_from_state(fw, state, key, b"", ct8).result))
        if fw.has("permute"):
            state = rng.randbytes(fw.params["state_bytes"])
            for steps in fw.params["permutation_steps"]:
                ops.append(BenchOp(f"P_{steps}", 0, self.permute(fw, state, key, steps)[1]))
        return ops

    # -------------------------------------------------------------------------------- constant time
    @staticmethod
    def ct_lengths(block: int) -> list[tuple[int, int]]:
        """(message, AD) lengths of the constant-time cases: every length class of each, for a cipher
        absorbing ``block`` bytes at a time (instance parameter ``block_bytes``): empty, exactly one block,
        several full blocks, several and a partial one, and partial blocks ending in each quarter of a block
        (1, half - 1, half, half + 1, block - 1 bytes past a block boundary: one byte, one short of a whole
        lane, a whole lane of Ascon's two and one byte more, one short of a block; 64-bit lanes on 32-bit
        cores take other code for a tail in a lane's upper word), for the message and for the AD."""
        half = block // 2
        part = half + 1
        return [(0, 0), (part, block), (block, 3 * block), (3 * block, 0), (half, 2 * block + half),
                (2 * block + part, part), (half - 1, block + half - 1), (2 * block - 1, 1), (1, block - 1)]

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        """Key, message (and the stored state, and the ciphertext whose plaintext is secret) from ``rng``;
        nonce, associated data and every length fixed by ``public_seed``. The (message, AD) lengths of
        ``ct_lengths`` cover every length class of both, so every block path of the code runs.

        Each decryption is checked twice: with the valid ciphertext and tag (made by the implementation's
        own encryption of the drawn message), and with a tag wrong in exactly one byte, at position
        ``trial % tag_bytes`` (``rng.trial``): across trials every position is reached, so an early-exit
        tag comparison changes path from trial to trial, and in taint mode both verdicts' paths run."""
        key_bytes, nonce_bytes, tag_bytes = self._sizes(fw)
        pub = random.Random(f"ct-public/{fw.prim_id}/{public_seed}")
        lengths = self.ct_lengths(fw.params["block_bytes"])
        nonce = pub.randbytes(nonce_bytes)
        ads = [pub.randbytes(a) for _, a in lengths]
        key = rng.randbytes(key_bytes)
        pts = [rng.randbytes(m) for m, _ in lengths]
        wrong = getattr(rng, "trial", 0) % max(tag_bytes, 1)
        flip = 1 << rng.randrange(8)

        def enc_args(pt: bytes, ad: bytes, odd: int = 0, **extra: object) -> dict:
            return {"c": Buf(size=len(pt) + tag_bytes, out=True, misalign=odd), "clen": Buf(size=8, out=True),
                    "m": Buf(pt, misalign=odd), "mlen": Int(len(pt), 8), "ad": Buf(ad, misalign=odd),
                    "adlen": Int(len(ad), 8), **extra, "k": Buf(key, misalign=odd)}

        def bad_tag(ct: bytes) -> bytes:
            i = len(ct) - tag_bytes + wrong
            return ct[:i] + bytes([ct[i] ^ flip]) + ct[i + 1:]

        def dec_cases(op: str, ct: bytes, ad: bytes, odd: int = 0, **extra: object) -> list[CtCase]:
            n = len(ct) - tag_bytes
            return [CtCase(op, {"m": Buf(size=n, out=True, misalign=odd), "mlen": Buf(size=8, out=True), **extra,
                                "c": Buf(c, misalign=odd), "clen": Int(len(c), 8), "ad": Buf(ad, misalign=odd),
                                "adlen": Int(len(ad), 8),
                                **({"npub": Buf(nonce, misalign=odd)} if op == "aead_decrypt" else {}),
                                "k": Buf(key, misalign=odd)})
                    for c in ((ct, bad_tag(ct)) if tag_bytes else (ct,))]

        cases = []
        # the pair (two blocks and a partial one, a partial block) also from odd addresses (byte-wise loads
        # and block loops: a pointer's alignment is public)
        odds = [int(i == ODD_PAIR) for i in range(len(lengths))]
        for pt, ad, odd in zip(pts, ads, odds):
            enc = enc_args(pt, ad, odd, nsec=Buf(b""), npub=Buf(nonce, misalign=odd))
            ct = fw.call("aead_encrypt", enc).outputs[0]
            cases += [CtCase("aead_encrypt", enc), *dec_cases("aead_decrypt", ct, ad, odd, nsec=Buf(b""))]
        # the refusal on a public length every AEAD with a tag has: a ciphertext shorter than its tag
        # (refused before a byte is read; with no tag every ciphertext length is a message length); with
        # max_message_bytes (the longest message the AEAD allows), also a message one byte longer
        short = rng.randbytes(max(tag_bytes - 1, 0))
        if tag_bytes:
            cases.append(CtCase("aead_decrypt", {"m": Buf(size=0, out=True), "mlen": Buf(size=8, out=True),
                                                 "nsec": Buf(b""), "c": Buf(short), "clen": Int(len(short), 8),
                                                 "ad": Buf(ads[0]), "adlen": Int(len(ads[0]), 8),
                                                 "npub": Buf(nonce), "k": Buf(key)}))
        too_long = (fw.params["max_message_bytes"] + 1 if "max_message_bytes" in fw.params else
                    1 << 32 if fw.params.get("refuses_beyond_size_t") else None)
        if too_long is not None:
            enc = enc_args(pts[0], ads[0], nsec=Buf(b""), npub=Buf(nonce))
            cases += [CtCase("aead_encrypt", {**enc, "mlen": Int(too_long, 8)}),
                      CtCase("aead_encrypt", {**enc, "adlen": Int(1 << 32, 8)}),   # beyond any size_t here
                      CtCase("aead_decrypt", {"m": Buf(size=0, out=True), "mlen": Buf(size=8, out=True),
                                              "nsec": Buf(b""), "c": Buf(short), "clen": Int(too_long + tag_bytes, 8),
                                              "ad": Buf(ads[0]), "adlen": Int(len(ads[0]), 8),
                                              "npub": Buf(nonce), "k": Buf(key)}),
                      CtCase("aead_decrypt", {"m": Buf(size=0, out=True), "mlen": Buf(size=8, out=True),
                                              "nsec": Buf(b""), "c": Buf(short + short), "clen": Int(2 * len(short), 8),
                                              "ad": Buf(ads[0]), "adlen": Int(1 << 32, 8),
                                              "npub": Buf(nonce), "k": Buf(key)})]
        if fw.has("permute"):
            # the mode's step count, and 1, 2 and 3 times the step multiple: loops doing two or three
            # multiples an iteration (a key's whole cycle of words) leave at each of their exits
            p = fw.params
            unit = p["permutation_step_multiple"]
            for steps in sorted({p["permutation_steps"][0], unit, 2 * unit, 3 * unit}):
                cases.append(CtCase("permute", {"state": Buf(rng.randbytes(p["state_bytes"]), out=True),
                                                "key": Buf(key), "steps": steps}))
        if fw.has("fixednonce_init_state"):
            state = rng.randbytes(fw.params["state_bytes"])
            cases.append(CtCase("fixednonce_init_state", {"state": Buf(size=fw.params["state_bytes"], out=True),
                                                          "npub": Buf(nonce), "k": Buf(key)}))
            for pt, ad in zip(pts, ads):
                enc_state = enc_args(pt, ad, state=Buf(state))
                ct_state = fw.call("fixednonce_encrypt_from_state", enc_state).outputs[0]
                cases += [CtCase("fixednonce_encrypt_from_state", enc_state),
                          *dec_cases("fixednonce_decrypt_from_state", ct_state, ad, state=Buf(state))]
            refused = [(len(short), len(ads[0]))] + ([(2 * len(short), 1 << 32)] if too_long is not None else [])
            cases += [CtCase("fixednonce_decrypt_from_state", {
                "m": Buf(size=0, out=True), "mlen": Buf(size=8, out=True), "state": Buf(state),
                "c": Buf(short + short), "clen": Int(clen, 8), "ad": Buf(ads[0]), "adlen": Int(adlen, 8),
                "k": Buf(key)}) for clen, adlen in refused]
            if too_long is not None:
                cases.append(CtCase("fixednonce_encrypt_from_state",
                                    {**enc_args(pts[0], ads[0], state=Buf(state)), "mlen": Int(too_long, 8)}))
        if fw.has("aead_init"):
            cases += self._incremental_ct_cases(fw, rng, key, nonce, pub, wrong, flip)
        return cases

    def _incremental_ct_cases(self, fw: Firmware, rng: random.Random, key: bytes, nonce: bytes,
                              pub: random.Random, wrong: int, flip: int) -> list[CtCase]:
        """The streaming API on contexts made by the implementation itself from the secret key: 21 bytes
        of AD (a partial Poly1305 block), a first update of 70 message bytes (it crosses a 16- and a
        64-byte block), a second of 80 from that mid-block key-stream position, then the final calls;
        decrypt_final with the right tag and with one wrong in byte ``wrong``. The contexts' length bytes
        are public (``ctx_public``, the values after 21 + 70 bytes)."""
        ctx_bytes, tag_bytes = fw.params["ctx_bytes"], self._sizes(fw)[2]
        # the length bytes are public at every stage (their values here: after init, after the AD)
        lengths = {"ctx": tuple((start, start + len(bytes.fromhex(v))) for start, v in fw.params["ctx_public"])}
        ad = pub.randbytes(21)
        m1, m2 = rng.randbytes(70), rng.randbytes(80)
        init = {"ctx": Buf(size=ctx_bytes, out=True), "k": Buf(key), "npub": Buf(nonce)}
        fresh = fw.call("aead_init", init).outputs[0]
        aad = {"ctx": Buf(fresh, out=True), "ad": Buf(ad), "adlen": len(ad)}
        after_ad = fw.call("aead_aad", aad).outputs[0]
        cases = [CtCase("aead_init", init), CtCase("aead_aad", aad, lengths)]
        for op, src, dst in (("aead_encrypt_update", "m", "c"), ("aead_decrypt_update", "c", "m")):
            first = {"ctx": Buf(after_ad, out=True), dst: Buf(size=len(m1), out=True), src: Buf(m1),
                     f"{src}len": len(m1)}
            mid = bytearray(fw.call(op, first).outputs[0])
            public = {"ctx": fix_public_bytes(mid, fw.params["ctx_public"])}
            if bytes(mid) != fw.call(op, first).outputs[0]:
                raise Mismatch(f"ctx_public {fw.params['ctx_public']} disagrees with the context after 21 + 70 "
                               "bytes")
            cases += [CtCase(op, first, lengths),
                      CtCase(op, {"ctx": Buf(bytes(mid), out=True), dst: Buf(size=len(m2), out=True),
                                  src: Buf(m2), f"{src}len": len(m2)}, public)]
            if op == "aead_encrypt_update":
                final = {"ctx": Buf(bytes(mid), out=True), "tag": Buf(size=tag_bytes, out=True)}
                cases.append(CtCase("aead_encrypt_final", final, public))
            else:       # the tag of (ad, m1) as ciphertext: the decryption context's ciphertext
                right = self._tag_of_ciphertext(fw, key, nonce, ad, m1)
                bad = right[:wrong] + bytes([right[wrong] ^ flip]) + right[wrong + 1:]
                cases += [CtCase("aead_decrypt_final", {"ctx": Buf(bytes(mid), out=True), "tag": Buf(t)}, public)
                          for t in (right, bad)]
            # the refusals, on public lengths: an update past RFC 8439's 2^38 - 64 message bytes (a context
            # 10 bytes short of it), AD after the message has begun
            # 5 bytes from a fresh context (no AD: nothing to pad); 5 and 0 bytes from the middle of the
            # key-stream block the previous update stopped in
            cases += [CtCase(op, {"ctx": Buf(c, out=True), dst: Buf(size=n, out=True), src: Buf(m2[:n]),
                                  f"{src}len": n}, p)
                      for c, n, p in ((fresh, 5, lengths), (bytes(mid), 5, public), (bytes(mid), 0, public))]
            full = bytearray(mid)
            full[CP_CTX_MLEN:CP_CTX_MLEN + 8] = (CP_MAX_MESSAGE - 10).to_bytes(8, "little")
            cases.append(CtCase(op, {"ctx": Buf(bytes(full), out=True), dst: Buf(size=len(m2), out=True),
                                     src: Buf(m2), f"{src}len": len(m2)}, public))
        cases.append(CtCase("aead_aad", {"ctx": Buf(bytes(mid), out=True), "ad": Buf(ad), "adlen": len(ad)}, public))
        return cases

    def _tag_of_ciphertext(self, fw: Firmware, key: bytes, nonce: bytes, ad: bytes, ct: bytes) -> bytes:
        """The tag that authenticates ciphertext ``ct`` with ``ad``: the one-shot encryption of the
        plaintext, which the one-shot decryption's key stream gives (XOR is its own inverse)."""
        stream = self.model(fw.impl.primitive).encrypt(fw.prim_id, key, nonce, b"", bytes(len(ct)))
        pt = bytes(a ^ b for a, b in zip(ct, stream))
        return self.encrypt(fw, key, nonce, ad, pt).output[len(pt):]

    # ------------------------------------------------------------------------------------------- run
    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        """--key, --nonce, --ad (default empty), --input: encryption outputs ciphertext||tag; with
        --decrypt, --input is ciphertext||tag and the output is the plaintext, or AuthenticationFailed."""
        key_bytes, nonce_bytes, tag_bytes = self._sizes(fw)
        key = parse_hex("key", opts.key, length=key_bytes)
        nonce = parse_hex("nonce", opts.nonce, length=nonce_bytes)
        ad = parse_hex("ad", opts.ad) if getattr(opts, "ad", None) else b""
        data = parse_hex("input", opts.input)
        if not opts.decrypt:
            r = self.encrypt(fw, key, nonce, ad, data)
            return r.output[:r.length], r.result
        if len(data) < tag_bytes:
            raise UsageError(f"--input: a ciphertext is at least the {tag_bytes}-byte tag, got {len(data)} bytes")
        r = self.decrypt(fw, key, nonce, ad, data)
        if not r.ok:
            raise AuthenticationFailed("authentication failed: the tag does not verify for this key, nonce, "
                                       "associated data and ciphertext (no plaintext released)")
        return r.output[:r.length], r.result


DRIVER = AeadDriver()
