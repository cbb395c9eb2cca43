# SPDX-License-Identifier: MIT
"""Block ciphers: key schedule, one-block encryption and decryption.

API (META.yml `functions`): keyschedule(rk, key); encrypt(out, in, rk); decrypt(out, in, rk); and, for
ciphers whose decryption uses other round keys (ARIA), keyschedule_dec(rk, key) which decrypt then uses.
Optional: encrypt_blocks(out, in, nblocks, rk), ECB over nblocks consecutive blocks with the round keys
of keyschedule (the entry point of implementations that process several blocks at once, e.g. PIPO
bitsliced across blocks); when an implementation has it, the vectors are also run through it (the
vector's block in several positions of a longer input), the differential test compares it with the model
on random lengths, and the benchmark adds an `encrypt_blocks-<n>B` record over BLOCKS_BENCH blocks.
Optional: ctr(out, in, len, rk, iv), counter mode as NIST SP 800-38A (iv is the initial counter block,
its last 4 bytes a big-endian counter incremented modulo 2^32; rk from keyschedule); when an
implementation has it, the differential test compares it with the model on random lengths, the constant-
time check calls it (in and rk secret, iv and len public) and the benchmark adds `ctr-<n>B` records.
Counter-mode vectors (fields Id, Key, IV, PT, CT; PT and CT of any length) are checked through ctr when
the implementation has it and, for every implementation, through encrypt on the counter blocks.
Instance parameters: key_bytes, block_bytes, rk_bytes (size of the round-key buffer).
Vector fields: Id, Key, PT, CT. The model module provides encrypt(key, block) and decrypt(key, block).
"""
from __future__ import annotations

import argparse
import random

from ..boards.base import Buf, CallResult
from ..firmware import Firmware
from ..kat import Vector
from .base import BenchOp, CtCase, KindDriver, Mismatch, UsageError, parse_hex


# encrypt_blocks: blocks per benchmark call, the largest count the differential test draws, and the count
# of the constant-time case (not a multiple of 4 or 8, so a bitsliced implementation's tail runs too).
BLOCKS_BENCH = 8
BLOCKS_MAX = 11
BLOCKS_CT = 5
# The differential test checks encrypt_blocks on every BLOCKS_EVERY-th trial (it costs several blocks).
BLOCKS_EVERY = 10
# ctr: message lengths benchmarked, the longest the differential test draws (every CTR_EVERY-th trial)
# and the length of the constant-time case (not a multiple of the block size: the tail runs too).
CTR_BENCH = (64, 512)
CTR_MAX = 100
CTR_EVERY = 10
CTR_BATCH_BLOCKS = 8    # the most blocks an implementation's ctr handles at once (bitsliced: eight)


class BlockCipherDriver(KindDriver):
    kind = "blockcipher"
    # Every key, round key and block is secret (the counter block and lengths are public).
    secret = {"keyschedule": ("key",), "keyschedule_dec": ("key",), "encrypt": ("in", "rk"),
              "decrypt": ("in", "rk"), "encrypt_blocks": ("in", "rk"), "ctr": ("in", "rk")}
    ct_ops = frozenset(secret)
    run_options = ("key", "input", "decrypt")
    default_trials = 500

    @staticmethod
    def _sizes(fw: Firmware) -> tuple[int, int, int]:
        p = fw.params
        return p["key_bytes"], p["block_bytes"], p["rk_bytes"]

    def keyschedule(self, fw: Firmware, key: bytes, *, decrypt: bool = False) -> tuple[bytes, CallResult]:
        _, _, rk_bytes = self._sizes(fw)
        op = "keyschedule_dec" if decrypt and fw.has("keyschedule_dec") else "keyschedule"
        res = fw.call(op, {"rk": Buf(size=rk_bytes, out=True), "key": Buf(key)})
        return res.outputs[0], res

    def crypt(self, fw: Firmware, rk: bytes, block: bytes, *, decrypt: bool = False) -> tuple[bytes, CallResult]:
        _, block_bytes, _ = self._sizes(fw)
        res = fw.call("decrypt" if decrypt else "encrypt",
                      {"out": Buf(size=block_bytes, out=True), "in": Buf(block), "rk": Buf(rk)})
        return res.outputs[0], res

    def crypt_blocks(self, fw: Firmware, rk: bytes, data: bytes) -> tuple[bytes, CallResult]:
        """ECB encryption of whole blocks through the optional ``encrypt_blocks``."""
        _, block_bytes, _ = self._sizes(fw)
        if len(data) % block_bytes:
            raise ValueError(f"{len(data)} bytes is not a whole number of {block_bytes}-byte blocks")
        res = fw.call("encrypt_blocks", {"out": Buf(size=len(data), out=True), "in": Buf(data),
                                         "nblocks": len(data) // block_bytes, "rk": Buf(rk)})
        return res.outputs[0], res

    def ctr(self, fw: Firmware, rk: bytes, iv: bytes, data: bytes) -> tuple[bytes, CallResult]:
        res = fw.call("ctr", {"out": Buf(size=len(data), out=True), "in": Buf(data), "len": len(data),
                              "rk": Buf(rk), "iv": Buf(iv)})
        return res.outputs[0], res

    @staticmethod
    def counter_blocks(iv: bytes, nblocks: int) -> list[bytes]:
        """SP 800-38A's counter blocks: the last 4 bytes of iv, big-endian, incremented modulo 2^32."""
        start = int.from_bytes(iv[-4:], "big")
        return [iv[:-4] + ((start + i) % 2**32).to_bytes(4, "big") for i in range(nblocks)]

    def ctr_with(self, encrypt_block, iv: bytes, data: bytes) -> bytes:
        """Counter mode from a one-block encryption (the model's, or an implementation's encrypt)."""
        n = len(iv)
        stream = b"".join(encrypt_block(cb) for cb in self.counter_blocks(iv, -(-len(data) // n)))
        return bytes(a ^ b for a, b in zip(data, stream))

    def encrypt(self, fw: Firmware, key: bytes, block: bytes) -> bytes:
        rk, _ = self.keyschedule(fw, key)
        return self.crypt(fw, rk, block)[0]

    def decrypt(self, fw: Firmware, key: bytes, block: bytes) -> bytes:
        rk, _ = self.keyschedule(fw, key, decrypt=True)
        return self.crypt(fw, rk, block, decrypt=True)[0]

    def check_vector(self, fw: Firmware, vec: Vector) -> None:
        if "IV" in vec.fields:
            self.check_ctr_vector(fw, vec)
            return
        key, pt, ct = vec.hex("Key"), vec.hex("PT"), vec.hex("CT")
        got = self.encrypt(fw, key, pt)
        if got != ct:
            raise Mismatch(f"{vec.where}: encrypt gave {got.hex()}, expected {ct.hex()}")
        if fw.has("decrypt"):
            back = self.decrypt(fw, key, ct)
            if back != pt:
                raise Mismatch(f"{vec.where}: decrypt gave {back.hex()}, expected {pt.hex()}")
        if fw.has("encrypt_blocks"):
            # The vector's block at every position of a group of blocks (neighbours its complement), so a
            # lane or block-order mistake in a multi-block implementation shows.
            rk, _ = self.keyschedule(fw, key)
            other = bytes(b ^ 0xFF for b in pt)
            for n in (1, BLOCKS_CT, BLOCKS_BENCH):
                for pos in range(n):
                    data = b"".join(pt if i == pos else other for i in range(n))
                    got = self.crypt_blocks(fw, rk, data)[0]
                    block = got[pos * len(pt):(pos + 1) * len(pt)]
                    if block != ct:
                        raise Mismatch(f"{vec.where}: encrypt_blocks of {n} blocks gave {block.hex()} for "
                                       f"block {pos}, expected {ct.hex()}")

    def check_ctr_vector(self, fw: Firmware, vec: Vector) -> None:
        key, iv, pt, ct = vec.hex("Key"), vec.hex("IV"), vec.hex("PT"), vec.hex("CT")
        rk, _ = self.keyschedule(fw, key)
        got = self.ctr_with(lambda cb: self.crypt(fw, rk, cb)[0], iv, pt)
        if got != ct:
            raise Mismatch(f"{vec.where}: counter mode through encrypt gave {got.hex()}, expected {ct.hex()}")
        if fw.has("ctr"):
            for n in sorted({len(pt), len(pt) - 1, 1, 0}):   # whole, a tail, one byte, nothing
                got = self.ctr(fw, rk, iv, pt[:n])[0]
                if got != ct[:n]:
                    raise Mismatch(f"{vec.where}: ctr of the first {n} bytes gave {got.hex()}, "
                                   f"expected {ct[:n].hex()}")

    def bench(self, fw: Firmware) -> list[BenchOp]:
        key_bytes, block_bytes, _ = self._sizes(fw)
        rng = random.Random(f"bench/{fw.prim_id}")
        key, block = rng.randbytes(key_bytes), rng.randbytes(block_bytes)
        rk, ks = self.keyschedule(fw, key)
        ops = [BenchOp("keyschedule", 0, ks), BenchOp("encrypt", block_bytes, self.crypt(fw, rk, block)[1])]
        if fw.has("decrypt"):
            if fw.has("keyschedule_dec"):
                rkd, ksd = self.keyschedule(fw, key, decrypt=True)
                ops.append(BenchOp("keyschedule_dec", 0, ksd))
            else:
                rkd = rk
            ops.append(BenchOp("decrypt", block_bytes, self.crypt(fw, rkd, block, decrypt=True)[1]))
        if fw.has("encrypt_blocks"):
            data = rng.randbytes(BLOCKS_BENCH * block_bytes)
            ops.append(BenchOp(f"encrypt_blocks-{len(data)}B", len(data), self.crypt_blocks(fw, rk, data)[1]))
        if fw.has("ctr"):
            iv = rng.randbytes(block_bytes)
            for n in CTR_BENCH:
                ops.append(BenchOp(f"ctr-{n}B", n, self.ctr(fw, rk, iv, rng.randbytes(n))[1]))
        return ops

    def differential(self, fw: Firmware, rng: random.Random, trials: int) -> int:
        model = self.model(fw.impl.primitive)
        key_bytes, block_bytes, _ = self._sizes(fw)
        for i in range(trials):
            key, block = rng.randbytes(key_bytes), rng.randbytes(block_bytes)
            want = model.encrypt(fw.prim_id, key, block)
            rk, _ = self.keyschedule(fw, key)
            got = self.crypt(fw, rk, block)[0]
            if got != want:
                raise Mismatch(f"trial {i}: key {key.hex()} block {block.hex()}: encrypt gave {got.hex()}, "
                               f"model {want.hex()}")
            if fw.has("decrypt"):
                rkd = self.keyschedule(fw, key, decrypt=True)[0] if fw.has("keyschedule_dec") else rk
                back = self.crypt(fw, rkd, want, decrypt=True)[0]
                if back != block:
                    raise Mismatch(f"trial {i}: key {key.hex()}: decrypt of {want.hex()} gave {back.hex()}")
            if fw.has("encrypt_blocks") and i % BLOCKS_EVERY == 0:
                data = rng.randbytes(rng.randrange(BLOCKS_MAX + 1) * block_bytes)
                want_blocks = b"".join(model.encrypt(fw.prim_id, key, data[j:j + block_bytes])
                                       for j in range(0, len(data), block_bytes))
                got = self.crypt_blocks(fw, rk, data)[0]
                if got != want_blocks:
                    raise Mismatch(f"trial {i}: key {key.hex()}: encrypt_blocks of {data.hex()} gave "
                                   f"{got.hex()}, model {want_blocks.hex()}")
            if fw.has("ctr") and i % CTR_EVERY == 0:
                # counters near 2^32 half of the time, so the modulo-2^32 increment is exercised
                top = rng.choice([2**32 - 1 - rng.randrange(4), rng.randrange(2**32)])
                iv = rng.randbytes(block_bytes - 4) + top.to_bytes(4, "big")
                data = rng.randbytes(rng.randrange(CTR_MAX + 1))
                want = self.ctr_with(lambda cb: model.encrypt(fw.prim_id, key, cb), iv, data)
                got = self.ctr(fw, rk, iv, data)[0]
                if got != want:
                    raise Mismatch(f"trial {i}: key {key.hex()} iv {iv.hex()}: ctr of {data.hex()} gave "
                                   f"{got.hex()}, model {want.hex()}")
        return trials

    def ct_cases(self, fw: Firmware, rng: random.Random, public_seed: int) -> list[CtCase]:
        # Every argument of a block cipher is secret (key, round keys, plaintext); none is public.
        key_bytes, block_bytes, rk_bytes = self._sizes(fw)
        key, block = rng.randbytes(key_bytes), rng.randbytes(block_bytes)
        rk = rng.randbytes(rk_bytes)
        # Buffers at every alignment class (word-aligned, odd, half-word): the byte and word paths both run
        # (a pointer's alignment is public, so its path may differ, but each must be constant time).
        cases = [CtCase("keyschedule", {"rk": Buf(size=rk_bytes, out=True), "key": Buf(key)}),
                 CtCase("keyschedule", {"rk": Buf(size=rk_bytes, out=True), "key": Buf(key, misalign=1)})]
        cases += [CtCase("encrypt", {"out": Buf(size=block_bytes, out=True, misalign=shift),
                                     "in": Buf(block, misalign=shift), "rk": Buf(rk)}) for shift in (0, 1, 2)]
        if fw.has("keyschedule_dec"):
            cases += [CtCase("keyschedule_dec", {"rk": Buf(size=rk_bytes, out=True), "key": Buf(key, misalign=shift)})
                      for shift in (0, 1)]
        if fw.has("decrypt"):
            sealed = rng.randbytes(block_bytes)
            cases += [CtCase("decrypt", {"out": Buf(size=block_bytes, out=True, misalign=shift),
                                         "in": Buf(sealed, misalign=shift), "rk": Buf(rk)}) for shift in (0, 1, 2)]
        if fw.has("encrypt_blocks"):
            # nblocks is public (a length); the blocks and round keys are secret. One block, an even and an
            # odd count (implementations working on two or four blocks at a time have tails), and none.
            for nblocks in (0, 1, 2, BLOCKS_CT):
                n = nblocks * block_bytes
                cases.append(CtCase("encrypt_blocks", {"out": Buf(size=n, out=True), "in": Buf(rng.randbytes(n)),
                                                       "nblocks": nblocks, "rk": Buf(rk)}))
        if fw.has("ctr"):
            # the message and the round keys are secret; the counter block and the length are public. Every
            # length class (empty, a partial block, a whole batch of blocks and a tail), aligned and odd.
            iv = random.Random(f"ct-public/{public_seed}").randbytes(block_bytes)
            batch = CTR_BATCH_BLOCKS * block_bytes + 5      # a whole batch of the bitsliced ones, and a tail
            for n, shift in ((0, 0), (5, 0), (batch, 0), (batch, 1)):
                cases.append(CtCase("ctr", {"out": Buf(size=n, out=True, misalign=shift),
                                            "in": Buf(rng.randbytes(n), misalign=shift), "len": n, "rk": Buf(rk),
                                            "iv": Buf(iv)}))
        return cases

    def run(self, fw: Firmware, opts: argparse.Namespace) -> tuple[bytes, CallResult]:
        key_bytes, block_bytes, _ = self._sizes(fw)
        key = parse_hex("key", opts.key, length=key_bytes)
        block = parse_hex("input", opts.input, length=block_bytes)
        if opts.decrypt and not fw.has("decrypt"):
            raise UsageError(f"{fw.impl.name} of {fw.prim_id} has no decryption")
        rk, _ = self.keyschedule(fw, key, decrypt=opts.decrypt)
        return self.crypt(fw, rk, block, decrypt=opts.decrypt)


DRIVER = BlockCipherDriver()
