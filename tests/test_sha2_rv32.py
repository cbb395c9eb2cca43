# SPDX-License-Identifier: MIT
"""SHA-2 block functions for rv32 (crypto/sha2/rv32): the generated assembly is current, and each block
function, called directly on the board, matches the FIPS 180-4 compression of the model on random states
and messages (0..3 blocks, every input alignment). The modes around them are the catalog's tests."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from mcucrypt.boards.base import Buf
from mcucrypt.boards.rv32 import Rv32Board
from mcucrypt.build import build
from mcucrypt.models.sha2 import compress256, compress512

ROOT = Path(__file__).resolve().parents[1]
RV32 = ROOT / "crypto/sha2/rv32"

# (implementation, ISA, hash, source): the block functions each META entry links
CASES = [("rv32-fast", "rv32imac", 256, "sha256_rv32.S"), ("rv32-fast", "rv32imac", 512, "sha512_rv32.S"),
         ("rv32-zbb", "rv32imac_zbb", 256, "sha256_rv32_zbb.S"),
         ("rv32-small", "rv32imac", 256, "sha256_rv32_small.S"), ("rv32-small", "rv32imac", 512, "sha512_rv32_small.S")]


def test_generated_assembly_is_current() -> None:
    proc = subprocess.run([sys.executable, str(RV32 / "gen_sha2_rv32.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("impl,isa,bits,source", CASES)
def test_block_function_matches_model(impl: str, isa: str, bits: int, source: str) -> None:
    symbol = f"mcu_sha{bits}_{impl.replace('-', '_')}_blocks"
    image = build("rv32", [RV32 / source], name=f"sha{bits}-blocks-{impl}", impl=impl, isa=isa, keep=[symbol])
    board = Rv32Board()
    board.load(image.path, isa=isa)
    word, block = (4, 64) if bits == 256 else (8, 128)     # bytes of a state word, of a block
    compress = compress256 if bits == 256 else compress512
    rng = random.Random(bits)
    for nblocks, misalign in [(0, 0), (1, 0), (1, 1), (2, 2), (3, 3), (2, 0)]:
        state = [rng.getrandbits(8 * word) for _ in range(8)]
        msg = rng.randbytes(nblocks * block)
        expect = list(state)
        for k in range(nblocks):
            expect = compress(expect, msg[k * block:(k + 1) * block])
        packed = b"".join(v.to_bytes(word, "little") for v in state)
        r = board.call(symbol, [Buf(packed, out=True, align=8), Buf(msg, misalign=misalign), nblocks])
        got = [int.from_bytes(r.outputs[0][k:k + word], "little") for k in range(0, 8 * word, word)]
        assert got == expect, (nblocks, misalign)


def _run_rv32(lines: list[str], regs: dict[str, int]) -> dict[str, int]:
    """Executes straight-line SRLI/SLLI/XOR/ADD/SLTU lines the generator emitted on a register dict."""
    m = 0xFFFFFFFF
    for line in lines:
        op, args = line.split(None, 1)
        d, a, b = [x.strip() for x in args.split(",")]
        x = regs[a]
        y = int(b) if op in ("srli", "slli") else regs[b]
        if op == "srli":
            regs[d] = x >> y
        elif op == "slli":
            regs[d] = (x << y) & m
        elif op == "xor":
            regs[d] = x ^ y
        elif op == "add":
            regs[d] = (x + y) & m
        else:
            assert op == "sltu", op
            regs[d] = int(x < y)
    return regs


def test_sha512_sigma0_in_16_instructions() -> None:
    """The scheduled rounds' sigma0 (ROTR1(x ^ ROTR7 x) ^ SHR7 x, the SHR7 pieces shared with ROTR7) adds
    FIPS 180-4's sigma0 to a 64-bit pair in 16 + 4 instructions, on random words and edge values."""
    sys.path.insert(0, str(RV32))
    import gen_sha2_rv32 as gen

    asm = gen.Asm()
    gen.sigma0_512_add(asm, ("d0", "d1"), ("x0", "x1"), ("t0", "t1", "t2"))
    assert len(asm.lines) == 20
    ror = lambda v, n: ((v >> n) | (v << (64 - n))) & (2**64 - 1)  # noqa: E731
    rng = random.Random(512)
    for x in [0, 1, 2**63, 2**64 - 1, 0x80, 2**32 - 1, 2**32] + [rng.getrandbits(64) for _ in range(500)]:
        acc = rng.getrandbits(64)
        regs = _run_rv32(asm.lines, {"x0": x & 0xFFFFFFFF, "x1": x >> 32, "d0": acc & 0xFFFFFFFF, "d1": acc >> 32})
        want = (acc + (ror(x, 1) ^ ror(x, 8) ^ (x >> 7))) % 2**64
        assert regs["d0"] | regs["d1"] << 32 == want, hex(x)
