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
When its prototype returns int, ctr returns 0, or -1 with nothing written for a length whose blocks
would wrap the 32-bit counter word (the driver checks the verdict of every call and the refusal at the
limit, CTR32_LIMIT_CASES).
Optional: ctr128(out, in, len, rk, iv), the same with SP 800-38A's full 128-bit counter (the whole block a
big-endian integer incremented modulo 2^128), returning 0, or -1 with nothing written when the blocks
would wrap 2^128; checked as ctr, with counters carrying across the 32-, 64- and 96-bit word boundaries
(CTR128_CARRY_COUNTERS) against the model and against the `cryptography` package's AES-CTR (AES-128).
Counter-mode vectors (fields Id, Key, IV, PT, CT; PT and CT of any length; counters that do not wrap the
low word) are checked through ctr and ctr128 when the implementation has them and, for every
implementation, through encrypt on the counter blocks.
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
from .mac import returned_minus_one


def cryptography_ctr(key: bytes, iv: bytes, data: bytes) -> bytes:
    """The `cryptography` package's AES-CTR (OpenSSL's: the full 128-bit counter), a second oracle."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    enc = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    return enc.update(data) + enc.finalize()


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
# (low 32-bit counter word, message length) at the end of its range: the last block allowed has counter
# 2^32 - 1, so 16 bytes from 2^32 - 1 pass and 17 are refused, and so on (ctr32_wraps says which).
CTR32_LIMIT_CASES = ((2**32 - 1, 1), (2**32 - 1, 16), (2**32 - 1, 17), (2**32 - 2, 32), (2**32 - 2, 33),
                     (2**32 - 8, 128), (2**32 - 8, 129), (2**32 - 19, 300), (2**32 - 18, 300), (2**32 - 1, 0))
# ctr128: initial counters d blocks below a carry out of the low w bits (w = 32, 64, 96: the bits above
# random; w = 128: below 2^128, where a length reaching past it is refused), each with every length.
CTR128_CARRY_COUNTERS = tuple((w, d) for w in (32, 64, 96, 128) for d in (1, 3, 8))
CTR128_LENGTHS = (1, 48, 129, 300)


class BlockCipherDriver(KindDriver):
    kind = "blockcipher"
    # Every key, round key and block is secret (the counter block and lengths are public).
    secret = {"keyschedule": ("key",), "keyschedule_dec": ("key",), "encrypt": ("in", "rk"),
              "decrypt": ("in", "rk"), "encrypt_blocks": ("in", "rk"), "ctr": ("in", "rk"),
              "ctr128": ("in", "rk")}
    ct_ops = frozenset(secret)
    run_options = ("key", "input", "decrypt")
    default_trials = 500
    board_test_trials = 100     # `make test` on a board (base.KindDriver); the host and MCUCRYPT_FULL=1: 500

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

    def ctr(self, fw: Firmware, rk: bytes, iv: bytes, data: bytes, op: str = "ctr") -> tuple[bytes, CallResult]:
        """The counter-mode call (ctr or ctr128) where the counter does not wrap: a refusal is a Mismatch."""
        out, refused, res = self.ctr_verdict(fw, rk, iv, data, op=op)
        if refused:
            raise Mismatch(f"{op} refused {len(data)} bytes from counter block {iv.hex()}, which do not wrap it")
        return out, res

    def ctr_verdict(self, fw: Firmware, rk: bytes, iv: bytes, data: bytes, op: str = "ctr",
                    out_before: bytes | None = None) -> tuple[bytes, bool, CallResult]:
        """(out, refused, result): out starts as out_before (zeros by default); refused when the call
        returned -1 (a ctr declared void never refuses)."""
        out = Buf(out_before, out=True) if out_before is not None else Buf(size=len(data), out=True)
        res = fw.call(op, {"out": out, "in": Buf(data), "len": len(data), "rk": Buf(rk), "iv": Buf(iv)})
        if fw.impl.functions[op].ret == "void":
            return res.outputs[0], False, res
        if res.return_value != 0 and not returned_minus_one(res.return_value):
            raise Mismatch(f"{op} returned {res.return_value:#x}, neither 0 nor -1")
        return res.outputs[0], res.return_value != 0, res

    @staticmethod
    def counter_blocks(iv: bytes, nblocks: int, width: int = 32) -> list[bytes]:
        """SP 800-38A's counter blocks: the last width bits of iv (32: the low word; 128: the whole block),
        big-endian, incremented modulo 2^width."""
        k = width // 8
        start = int.from_bytes(iv[-k:], "big")
        return [iv[:-k] + ((start + i) % 2**width).to_bytes(k, "big") for i in range(nblocks)]

    @staticmethod
    def ctr_wraps(iv: bytes, nbytes: int, width: int = 32) -> bool:
        """Whether nbytes of counter mode from iv would wrap the last width bits of the counter block."""
        nblocks = -(-nbytes // len(iv))
        return nblocks > 0 and int.from_bytes(iv[-(width // 8):], "big") + nblocks - 1 >= 2**width

    def ctr_with(self, encrypt_block, iv: bytes, data: bytes, width: int = 32) -> bytes:
        """Counter mode from a one-block encryption (the model's, or an implementation's encrypt)."""
        n = len(iv)
        stream = b"".join(encrypt_block(cb) for cb in self.counter_blocks(iv, -(-len(data) // n), width))
        return bytes(a ^ b for a, b in zip(data, stream))

    def check_ctr_limits(self, fw: Firmware, rng: random.Random) -> int:
        """ctr (when it returns int): CTR32_LIMIT_CASES; ctr128: CTR128_CARRY_COUNTERS x CTR128_LENGTHS.
        What fits is compared with the model (ctr128 also with the `cryptography` package's AES-CTR for
        AES-128); what would wrap must be refused with -1, out left as it was (random bytes before)."""
        model = self.model(fw.impl.primitive)
        key_bytes, block_bytes, _ = self._sizes(fw)
        key = rng.randbytes(key_bytes)
        rk, _ = self.keyschedule(fw, key)
        cases = []
        if fw.has("ctr") and fw.impl.functions["ctr"].ret != "void":
            cases += [("ctr", 32, rng.randbytes(block_bytes - 4) + c.to_bytes(4, "big"), n)
                      for c, n in CTR32_LIMIT_CASES]
        if fw.has("ctr128"):
            for w, d in CTR128_CARRY_COUNTERS:
                counter = (rng.getrandbits(128 - w) << w if w < 128 else 0) + 2**w - d
                cases += [("ctr128", 128, counter.to_bytes(16, "big"), n) for n in CTR128_LENGTHS]
        for op, width, iv, n in cases:
            data, before = rng.randbytes(n), rng.randbytes(n)
            out, refused, _ = self.ctr_verdict(fw, rk, iv, data, op=op, out_before=before)
            if self.ctr_wraps(iv, n, width):
                if not refused or out != before:
                    raise Mismatch(f"{op} of {n} bytes from counter block {iv.hex()} wraps the {width}-bit counter: "
                                   + ("it wrote to out" if refused else "not refused"))
                continue
            want = self.ctr_with(lambda cb: model.encrypt(fw.prim_id, key, cb), iv, data, width)
            if refused or out != want:
                raise Mismatch(f"{op} of {n} bytes from counter block {iv.hex()} "
                               + ("refused" if refused else f"gave {out.hex()}, model {want.hex()}"))
            if width == 128 and fw.prim_id == "aes128" and cryptography_ctr(key, iv, data) != out:
                raise Mismatch(f"ctr128 of {n} bytes from counter block {iv.hex()} disagrees with cryptography's "
                               "AES-CTR")
        return len(cases)

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
        for op in ("ctr", "ctr128"):
            if not fw.has(op):
                continue
            for n in sorted({len(pt), len(pt) - 1, 1, 0}):   # whole, a tail, one byte, nothing
                got = self.ctr(fw, rk, iv, pt[:n], op=op)[0]
                if got != ct[:n]:
                    raise Mismatch(f"{vec.where}: {op} of the first {n} bytes gave {got.hex()}, "
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
        if fw.has("ctr128"):
            iv = rng.randbytes(block_bytes)
            for n in CTR_BENCH:
                ops.append(BenchOp(f"ctr128-{n}B", n, self.ctr(fw, rk, iv, rng.randbytes(n), op="ctr128")[1]))
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
            for op, width in (("ctr", 32), ("ctr128", 128)):
                if not fw.has(op) or i % CTR_EVERY:
                    continue
                # counters near a carry out of the low word half of the time (ctr: the modulo-2^32 increment,
                # or the refusal; ctr128: the carry into the upper words)
                top = rng.choice([2**32 - 1 - rng.randrange(8), rng.randrange(2**32)])
                iv = rng.randbytes(block_bytes - 4) + top.to_bytes(4, "big")
                data = rng.randbytes(rng.randrange(CTR_MAX + 1))
                out, refused, _ = self.ctr_verdict(fw, rk, iv, data, op=op)
                void = fw.impl.functions[op].ret == "void"
                if not void and self.ctr_wraps(iv, len(data), width):
                    if not refused or out != bytes(len(data)):
                        raise Mismatch(f"trial {i}: iv {iv.hex()}: {op} of {len(data)} bytes wraps the counter: "
                                       + ("it wrote to out" if refused else "not refused"))
                    continue
                want = self.ctr_with(lambda cb: model.encrypt(fw.prim_id, key, cb), iv, data, width)
                if refused or out != want:
                    raise Mismatch(f"trial {i}: key {key.hex()} iv {iv.hex()}: {op} of {data.hex()} "
                                   + ("refused" if refused else f"gave {out.hex()}, model {want.hex()}"))
        if fw.has("ctr128") or (fw.has("ctr") and fw.impl.functions["ctr"].ret != "void"):
            self.check_ctr_limits(fw, rng)
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
            # odd count (implementations working on two or four blocks at a time have tails), and none; the
            # odd count also from and to odd addresses (whole groups through a buffer where words need alignment)
            for nblocks, shift in ((0, 0), (1, 0), (2, 0), (BLOCKS_CT, 0), (BLOCKS_CT, 1)):
                n = nblocks * block_bytes
                cases.append(CtCase("encrypt_blocks", {"out": Buf(size=n, out=True, misalign=shift),
                                                       "in": Buf(rng.randbytes(n), misalign=shift),
                                                       "nblocks": nblocks, "rk": Buf(rk)}))
        for op in ("ctr", "ctr128"):
            if not fw.has(op):
                continue
            # the message and the round keys are secret; the counter block and the length are public. Every
            # length class (empty, a partial block, a whole batch of blocks and a tail), aligned and odd;
            # ctr also from a counter whose low byte carries through the 32-bit counter's other bytes (no
            # wrap), ctr128 from one whose low word carries into the upper words inside the message.
            iv = random.Random(f"ct-public/{public_seed}").randbytes(block_bytes)
            batch = CTR_BATCH_BLOCKS * block_bytes + 5      # a whole batch of the bitsliced ones, and a tail
            for n, shift in ((0, 0), (5, 0), (batch, 0), (batch, 1)):
                cases.append(CtCase(op, {"out": Buf(size=n, out=True, misalign=shift),
                                         "in": Buf(rng.randbytes(n), misalign=shift), "len": n, "rk": Buf(rk),
                                         "iv": Buf(iv)}))
            if op == "ctr":
                carry_iv = iv[:-4] + b"\x00\xff\xff\xfd"
                cases.append(CtCase(op, {"out": Buf(size=batch, out=True), "in": Buf(rng.randbytes(batch)),
                                         "len": batch, "rk": Buf(rk), "iv": Buf(carry_iv)}))
            if op == "ctr128":
                carry_iv = iv[:8] + bytes([0xFF] * 6) + b"\xff\xfd"
                cases.append(CtCase(op, {"out": Buf(size=batch, out=True), "in": Buf(rng.randbytes(batch)),
                                         "len": batch, "rk": Buf(rk), "iv": Buf(carry_iv)}))
            if fw.impl.functions[op].ret != "void":
                # the refusal of a length that would wrap the counter (the last block allowed, plus one)
                top = iv[:-4] + b"\xff\xff\xff\xff" if op == "ctr" else b"\xff" * block_bytes
                cases.append(CtCase(op, {"out": Buf(size=17, out=True), "in": Buf(rng.randbytes(17)), "len": 17,
                                         "rk": Buf(rk), "iv": Buf(top)}))
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
