#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the SHA-256 and SHA-512 block (compression) functions for the SiFive E31 (RV32IMAC, no
rotate instruction): sha256_rv32.S and sha512_rv32.S (rv32-fast, unrolled where it pays),
sha256_rv32_zbb.S (rv32-zbb: the same with RORI and REV8) and sha256_rv32_small.S, sha512_rv32_small.S
(rv32-small: one 8-round body run in passes over a W[] array on the stack).

Run `python3 crypto/sha2/rv32/gen_sha2_rv32.py` to write the files beside this script; `--check` only
compares (tests/test_sha2_rv32.py runs it). docs/sha2.md (rv32 section) explains the instruction counts.

Why these shapes (E31 cycle model, docs/board-rv32.md): single issue, every ALU result ready the next
cycle, LW ready after 2 cycles and LBU after 3, no stall otherwise. So the cycle count is the instruction
count plus load-use stalls, and the generator places every load far enough ahead of its use that no round
stalls. What is left to minimise is instructions:

* Rotations. RV32I has none: ROTR(x, n) is SRLI + SLLI + OR, but in Sigma/sigma the shifted pieces of the
  three rotations are XORed together, so each piece is one shift and one XOR: Sigma = 6 shifts + 5 XORs =
  11 instructions, sigma (two rotations, one shift) = 5 + 4 = 9. (Nesting, e.g. ROTR6(e ^ ROTR5(e ^
  ROTR14(e))), does not go below: every one of the six shifted terms still costs one shift.)
* Ch(e,f,g) = ((f ^ g) & e) ^ g: 3. Maj(a,b,c) = ((a ^ b) & (b ^ c)) ^ b with b ^ c kept from the round
  before (it was that round's a ^ b): 3, and a ^ b is kept for the next round.
* h is the accumulator: h += K; h += W; h += Sigma1(e); h += Ch; d += h; h += Sigma0(a); h += Maj -> h is
  the new a. Register names rotate instead of values moving (no MV).
* SHA-256: all 16 schedule words live in registers (x1, x5..x31 = 28 registers: 8 state, 16 W, K pointer,
  two temporaries and the kept a ^ b), so the message schedule needs no load or store: W[i] is computed
  in place of W[i-16]. A round is 36 instructions, a scheduled round 36 + 21. K comes from a table in
  DTIM (.rodata; one LW a round against LUI + ADDI).
* SHA-512 on RV32: 64-bit words are (low, high) register pairs; a 64-bit addition is ADD, SLTU (carry),
  ADD, ADD: 4 instructions, and the additions dominate after the Sigmas (22 a Sigma). The 16-word window
  (128 words of 32 bits) cannot stay in registers; W is an 80-entry array on the stack (so an 8-round
  unrolled loop addresses it with fixed offsets from a moving pointer) and the two newest W stay in
  registers for sigma1. A round is 86 instructions, a scheduled round 86 + 60.
* Big-endian input of any alignment: LBU x4 + SLLI x3 + OR x3 = 10 instructions a word (LW + byte swap
  without REV8 is 1 + 8 = 9 but needs 4-byte alignment, so an aligned and an unaligned copy of the load
  code; not worth one cycle a word here).
All instructions have fixed latency and no address depends on data: constant time.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "common"))
from generated import function_lines, write_or_check  # noqa: E402

K256 = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]


def _k512() -> list[int]:
    """SHA-512 constants: the first 64 bits of the fractional parts of the cube roots of the first 80
    primes (FIPS 180-4 §4.2.3), computed exactly with integer cube roots."""
    primes: list[int] = []
    n = 2
    while len(primes) < 80:
        if all(n % p for p in primes if p * p <= n):
            primes.append(n)
        n += 1
    out = []
    for p in primes:
        x = p << 192                       # cube root of p * 2^192 = cbrt(p) * 2^64
        r = int(round(x ** (1 / 3)))
        while r ** 3 > x:
            r -= 1
        while (r + 1) ** 3 <= x:
            r += 1
        out.append(r & (2**64 - 1))
    return out


K512 = _k512()
assert K512[0] == 0x428a2f98d728ae22 and K512[79] == 0x6c44198c4a475817


class Asm:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, op: str, *args: object) -> None:
        self.lines.append(f"    {op:<7} {', '.join(str(a) for a in args)}")

    def c(self, text: str) -> None:
        self.lines.append(f"    # {text}")


def xor_of_shifts(asm: Asm, acc: str, tmp: str, terms: list[tuple[str, str, int]]) -> None:
    """acc = XOR of (src >> n) / (src << n) for (op, src, n) in terms: one shift and one XOR a term."""
    op, src, n = terms[0]
    asm(op, acc, src, n)
    for op, src, n in terms[1:]:
        asm(op, tmp, src, n)
        asm("xor", acc, acc, tmp)


def rot_terms(src: str, n: int, zbb: bool = False) -> list[tuple[str, str, int]]:
    """The two shifted pieces of a 32-bit ROTR(src, n), or one RORI with Zbb."""
    return [("rori", src, n)] if zbb else [("srli", src, n), ("slli", src, 32 - n)]


# ======================================================================================== SHA-256
# Register map. x8..x15 (compressible) hold the three temporaries and the K pointer, so the frequent
# XOR/AND on them get 16-bit encodings.
S256_STATE = ["a2", "a3", "a4", "a5", "t0", "t1", "t2", "t3"]      # a..h at round 0
S256_W = ["t4", "t5", "t6", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "a6", "a7", "ra"]
S256_KP = "a1"
S256_TEMPS = ["s0", "s1", "a0"]                                    # T1, T2, AB at round 0
FRAME256 = 64                     # ra, s0..s11 (13 words), in pointer, state pointer, end of input
OFF_IN, OFF_STATE, OFF_END = 52, 56, 60


def sha256_round(asm: Asm, i: int, st: list[str], tmp: list[str], kofs: int, sched: bool,
                 zbb: bool = False, w_mem: str | None = None) -> None:
    """Round i on state registers st (a..h) with temporaries tmp = [T1, T2, AB]; rotates both lists.
    W[i] is in its register S256_W[i % 16] (computed first when sched), or at w_mem (small code)."""
    a, b, c, d, e, f, g, h = st
    t1, t2, ab = tmp
    w = S256_W[i % 16]
    if sched:
        # W[i] = sigma1(W[i-2]) + W[i-7] + sigma0(W[i-15]) + W[i-16], in the register of W[i-16]
        asm.c(f"round {i}: W[{i}] = sigma1(W[{i - 2}]) + W[{i - 7}] + sigma0(W[{i - 15}]) + W[{i - 16}]")
        x = S256_W[(i - 15) % 16]
        xor_of_shifts(asm, t1, t2, rot_terms(x, 7, zbb) + rot_terms(x, 18, zbb) + [("srli", x, 3)])
        asm("add", w, w, t1)
        y = S256_W[(i - 2) % 16]
        xor_of_shifts(asm, t1, t2, rot_terms(y, 17, zbb) + rot_terms(y, 19, zbb) + [("srli", y, 10)])
        asm("add", w, w, t1)
        asm("add", w, w, S256_W[(i - 7) % 16])
    else:
        asm.c(f"round {i}")
    asm("lw", t1, f"{kofs}({S256_KP})")                 # K[i]; used two instructions later: no stall
    if w_mem is None:
        asm("add", h, h, w)
        asm("add", h, h, t1)
    else:
        asm("lw", t2, w_mem)
        asm("add", h, h, t1)
        asm("add", h, h, t2)
    xor_of_shifts(asm, t1, t2, rot_terms(e, 6, zbb) + rot_terms(e, 11, zbb) + rot_terms(e, 25, zbb))    # Sigma1(e)
    asm("add", h, h, t1)
    asm("xor", t1, f, g)                                # Ch(e,f,g) = ((f ^ g) & e) ^ g
    asm("and", t1, t1, e)
    asm("xor", t1, t1, g)
    asm("add", h, h, t1)
    asm("add", d, d, h)                                 # d += T1
    xor_of_shifts(asm, t1, t2, rot_terms(a, 2, zbb) + rot_terms(a, 13, zbb) + rot_terms(a, 22, zbb))    # Sigma0(a)
    asm("add", h, h, t1)
    asm("xor", t1, a, b)                                # a ^ b: Maj now, b ^ c next round
    asm("and", ab, ab, t1)                              # Maj = ((a ^ b) & (b ^ c)) ^ b
    asm("xor", ab, ab, b)
    asm("add", h, h, ab)                                # h = T1 + T2: the new a
    st[:] = [h, a, b, c, d, e, f, g]
    tmp[:] = [ab, t2, t1]


def load_be32(asm: Asm, dst: str, base: str, ofs: int, t: list[str]) -> None:
    """dst = the big-endian word at base + ofs, any alignment: LBU x4, SLLI x3, OR x3, no stall."""
    asm("lbu", dst, f"{ofs}({base})")
    asm("lbu", t[0], f"{ofs + 1}({base})")
    asm("lbu", t[1], f"{ofs + 2}({base})")
    asm("lbu", t[2], f"{ofs + 3}({base})")
    asm("slli", dst, dst, 24)
    asm("slli", t[0], t[0], 16)
    asm("slli", t[1], t[1], 8)
    asm("or", dst, dst, t[0])
    asm("or", dst, dst, t[1])
    asm("or", dst, dst, t[2])


def sha256_body(zbb: bool = False) -> list[str]:
    asm = Asm()
    st = list(S256_STATE)
    tmp = list(S256_TEMPS)
    saved = ["ra"] + [f"s{i}" for i in range(12)]
    asm("beqz", "a2", ".Ls256_none")                    # nblocks is public
    asm("addi", "sp", "sp", -FRAME256)
    for k, r in enumerate(saved):
        asm("sw", r, f"{4 * k}(sp)")
    asm("slli", "a2", "a2", 6)
    asm("add", "a2", "a1", "a2")
    asm("sw", "a1", f"{OFF_IN}(sp)")
    asm("sw", "a0", f"{OFF_STATE}(sp)")
    asm("sw", "a2", f"{OFF_END}(sp)")
    asm("mv", "t4", "a0")
    for k, r in enumerate(S256_STATE):
        asm("lw", r, f"{4 * k}(t4)")
    asm.lines.append(".Ls256_block:")
    asm.c("the 16 message words, big-endian, into the W registers (in pointer in the K pointer's register)")
    asm("lw", S256_KP, f"{OFF_IN}(sp)")
    if zbb:
        asm.c("4-byte aligned input (a public property of the pointer): LW + REV8, interleaved")
        asm("andi", S256_TEMPS[0], S256_KP, 3)
        asm("bnez", S256_TEMPS[0], ".Ls256_unaligned")
        for j in range(17):
            if j < 16:
                asm("lw", S256_W[j], f"{4 * j}({S256_KP})")
            if j > 0:
                asm("rev8", S256_W[j - 1], S256_W[j - 1])
        asm("j", ".Ls256_loaded")
        asm.lines.append(".Ls256_unaligned:")
    for j in range(16):
        load_be32(asm, S256_W[j], S256_KP, 4 * j, S256_TEMPS)
    if zbb:
        asm.lines.append(".Ls256_loaded:")
    asm("addi", S256_KP, S256_KP, 64)
    asm("sw", S256_KP, f"{OFF_IN}(sp)")
    asm("lla", S256_KP, ".Lsha256_k")
    asm("xor", tmp[2], st[1], st[2])                    # b ^ c for round 0's Maj
    for i in range(16):
        sha256_round(asm, i, st, tmp, 4 * i, sched=False, zbb=zbb)
    assert st == S256_STATE and tmp == S256_TEMPS
    asm.lines.append(".Ls256_sched:")
    asm.c("rounds 16..63: three passes of 16 (W register names and state rotation repeat every 16)")
    asm("addi", S256_KP, S256_KP, 64)
    for i in range(16, 32):
        sha256_round(asm, i, st, tmp, 4 * (i - 16), sched=True, zbb=zbb)
    assert st == S256_STATE and tmp == S256_TEMPS
    asm("lla", tmp[0], ".Lsha256_k + 192")
    asm("bne", S256_KP, tmp[0], ".Ls256_sched")
    asm.c("H += working variables (W registers are free now)")
    asm("lw", tmp[0], f"{OFF_STATE}(sp)")
    for k in range(8):
        asm("lw", S256_W[k], f"{4 * k}({tmp[0]})")
    for k in range(8):
        asm("add", st[k], st[k], S256_W[k])
        asm("sw", st[k], f"{4 * k}({tmp[0]})")
    asm("lw", tmp[1], f"{OFF_IN}(sp)")
    asm("lw", tmp[2], f"{OFF_END}(sp)")
    asm("bne", tmp[1], tmp[2], ".Ls256_block")         # public: block count
    for k, r in enumerate(saved):
        asm("lw", r, f"{4 * k}(sp)")
    asm("addi", "sp", "sp", FRAME256)
    asm.lines.append(".Ls256_none:")
    asm("ret")
    return asm.lines


SHA256_HEAD = """\
// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_rv32.py (edit the generator, not this file).
 *
 * SHA-256 block function for RV32IMAC (SiFive E31; no rotate instruction), FIPS 180-4 §6.2.2.
 *
 * void mcu_sha256_<impl>_blocks(uint32_t state[8], const uint8_t *in, size_t nblocks);
 *   state: H0..H7 as native words; in: nblocks * 64 bytes, big-endian words, any alignment; nblocks may
 *   be 0.
 *
 * Register map (every register but sp, gp, tp, x0): state a..h in a2 a3 a4 a5 t0 t1 t2 t3 at round 0
 * (the names rotate by one a round, so after 8 rounds they are back); the 16 schedule words W[i mod 16]
 * in t4 t5 t6 s2..s11 a6 a7 ra; the K pointer in a1; temporaries s0, s1 and a0, one of which holds
 * a ^ b from the round before (= b ^ c of this round). Stack: 64 bytes (ra, s0..s11, in, state, end).
 *
 * Tricks: W[i] is computed in place of W[i-16] (no schedule loads or stores); Maj = ((a^b)&(b^c))^b
 * reusing b^c; Ch = ((f^g)&e)^g; each rotation piece is one shift XORed straight into the sum (Sigma:
 * 11 instructions); h accumulates T1, then T1 + T2. A round is 36 instructions, a scheduled round 57;
 * loads are placed so nothing stalls. Rounds 0..15 unrolled after the 16 message loads, rounds 16..63
 * as a 16-round pass run three times (W register names and state names repeat every 16 rounds).
 * Constant time: no branch or address depends on data (the only branches count blocks and passes).
 */
#include "mcucrypt/ns.h"

    .section .rodata.sha256_rv32_k, "a", @progbits
    .p2align 2
.Lsha256_k:
"""


SHA256_ZBB_HEAD = SHA256_HEAD.replace(
    " * SHA-256 block function for RV32IMAC (SiFive E31; no rotate instruction), FIPS 180-4 §6.2.2.\n",
    " * SHA-256 block function for RV32IMAC + Zbb (RORI, REV8), FIPS 180-4 §6.2.2: the rv32-fast code with\n"
    " * every rotation one RORI (Sigma 5 instructions, sigma 5) and, for 4-byte aligned input, the message\n"
    " * words loaded by LW + REV8 (the alignment branch depends only on the pointer: public). The E31 has no\n"
    " * Zbb; the board emulates it at one cycle, as rocket-chip's ALU would.\n").replace(
    "A round is 36 instructions, a scheduled round 57", "A round is 24 instructions, a scheduled round 37").replace(
    "each rotation piece is one shift XORed straight into the sum (Sigma:\n * 11 instructions)",
    "each rotation is one RORI XORed into the sum (Sigma:\n * 5 instructions)").replace(
    "(the only branches count blocks and passes)", "(branches: block and pass counts, the alignment)")
assert SHA256_ZBB_HEAD != SHA256_HEAD


def sha256_file(zbb: bool = False) -> str:
    k = "".join(f"    .word   {', '.join(f'0x{v:08x}' for v in K256[r:r + 8])}\n" for r in range(0, 64, 8))
    body = function_lines("MCU_FN(sha256, blocks)", sha256_body(zbb))
    body[1] = '    .section .text.sha256_rv32_blocks, "ax", @progbits'
    return (SHA256_ZBB_HEAD if zbb else SHA256_HEAD) + k + "\n".join(body) + "\n"


# ======================================================================================== SHA-512
# 64-bit value = (low, high) register pair.
S512_STATE = [("s2", "s3"), ("s4", "s5"), ("s6", "s7"), ("s8", "s9"),
              ("s10", "s11"), ("t3", "t4"), ("t5", "t6"), ("a6", "a7")]
S512_T = [("s0", "s1"), ("a0", "a1")]       # (T1, T2) and the kept a ^ b, swapping roles every round
S512_KP = "a2"                              # K pointer: K[8*pass + j] at 8*j(KP)
S512_WP = "a3"                              # W pointer: W[8*pass + j] at 8*j(WP), W[] on the stack
S512_P = [("a4", "a5"), ("t0", "t1"), ("t2", "ra")]   # scheduled rounds: W[i] built, W[i-1], W[i-2]
FRAME512 = 704                  # ra, s0..s11 (13 words), in, state, end; W[0..79] at 64(sp)
W512 = 64
OFF512_IN, OFF512_STATE, OFF512_END = 52, 56, 60
# rv32-fast: W[0..79] at the bottom of the frame (0(sp) at block start), the saved registers and in /
# state / end above it at SAVE512, so the scheduled passes can move sp itself up the W array (64 bytes a
# pass) and free the W pointer register: everything still live (W[i-16] onwards, the saved words) is
# always at or above sp, so an interrupt pushing below sp cannot clobber it.
SAVE512 = 640
S512_X = "a3"                               # scheduled rounds: the third temporary of sigma0


def add64(asm: Asm, dst: tuple[str, str], lo: str, hi: str | None, carry: str) -> None:
    """dst += (hi:lo) with ADD, SLTU, ADD, ADD; ``carry`` is a free register (may be ``lo``).
    hi None: only the low word and its carry (the caller adds the high word)."""
    asm("add", dst[0], dst[0], lo)
    asm("sltu", carry, dst[0], lo)
    if hi is not None:
        asm("add", dst[1], dst[1], hi)
    asm("add", dst[1], dst[1], carry)


def rot64_terms(x: tuple[str, str], n: int, half: int) -> list[tuple[str, str, int]]:
    """The two shifted pieces of the low (half 0) or high (half 1) word of ROTR64(x, n), n not 0 or 32."""
    lo, hi = x
    if n > 32:
        lo, hi, n = hi, lo, n - 32
    assert 0 < n < 32
    return [("srli", lo, n), ("slli", hi, 32 - n)] if half == 0 else [("srli", hi, n), ("slli", lo, 32 - n)]


def shr64_terms(x: tuple[str, str], n: int, half: int) -> list[tuple[str, str, int]]:
    lo, hi = x
    return [("srli", lo, n), ("slli", hi, 32 - n)] if half == 0 else [("srli", hi, n)]


def sigma64_add(asm: Asm, dst: tuple[str, str], x: tuple[str, str], rots: list[int], shr: int | None,
                t: tuple[str, str]) -> None:
    """dst += XOR of ROTR64(x, r) for r in rots (and x >> shr): low word, its carry, high word."""
    for half in (0, 1):
        terms = [p for r in rots for p in rot64_terms(x, r, half)]
        if shr is not None:
            terms += shr64_terms(x, shr, half)
        xor_of_shifts(asm, t[0], t[1], terms)
        if half == 0:
            add64(asm, dst, t[0], None, t[0])
        else:
            asm("add", dst[1], dst[1], t[0])


def sigma0_512_add(asm: Asm, dst: tuple[str, str], x: tuple[str, str], t: tuple[str, str, str]) -> None:
    """dst += sigma0(x) = ROTR1(x) ^ ROTR8(x) ^ SHR7(x) in 16 + 4 instructions; x is destroyed.

    SHR7(x) is ROTR7(x) without the piece lo << 25 that ROTR7 puts in the high word, so one set of
    ROTR7 pieces serves both: r = ROTR7(x), s = SHR7(x) (4 shifts, 2 XORs), then sigma0 = ROTR1(x ^ r) ^
    s (ROTR1(ROTR7) = ROTR8): 2 + 4 shifts + 4 XORs. The direct form is 11 shifts + 9 XORs = 20."""
    lo, hi = x
    a, b, c = t
    asm("srli", a, lo, 7)
    asm("slli", b, hi, 25)
    asm("xor", a, a, b)                                  # a = s.lo = r.lo
    asm("slli", b, lo, 25)
    asm("xor", lo, lo, a)                                # lo = y.lo = x.lo ^ r.lo
    asm("xor", b, b, hi)
    asm("srli", hi, hi, 7)                               # hi = s.hi
    asm("xor", b, b, hi)                                 # b = y.hi = x.hi ^ r.hi
    asm("srli", c, b, 1)                                 # high word: ROTR1(y).hi ^ s.hi
    asm("xor", hi, hi, c)
    asm("slli", c, lo, 31)
    asm("xor", hi, hi, c)
    asm("srli", c, lo, 1)                                # low word: ROTR1(y).lo ^ s.lo
    asm("xor", a, a, c)
    asm("slli", c, b, 31)
    asm("xor", a, a, c)
    add64(asm, dst, a, hi, a)


def sha512_round(asm: Asm, i: int, st: list, tab: list, p: list, j: int, mode: str) -> None:
    """Round i (j = i mod 8, the slot in this pass). st: a..h pairs; tab = [T pair, a^b pair]; p: the
    W pairs. mode 'load': W[i] from the input (pointer in p[1][0]), stored to W[]; 'sched': computed
    from W[] and the two newest W kept in p; 'mem': read from W[] (small code)."""
    a, b, c, d, e, f, g, h = st
    t, ab = tab
    wo = 8 * j
    if mode == "mem":
        asm.c(f"round {i}")
        w = p[0]
        asm("lw", w[0], f"{wo}({S512_WP})")
        asm("lw", w[1], f"{wo + 4}({S512_WP})")
    elif mode == "load":
        asm.c(f"round {i}: W[{i}] = big-endian input word {i}")
        w = p[0]
        src = p[1][0]
        temps = [t[0], t[1], p[1][1]]
        load_be32(asm, w[1], src, wo, temps)
        load_be32(asm, w[0], src, wo + 4, temps)
        asm("sw", w[0], f"{wo}({S512_WP})")
        asm("sw", w[1], f"{wo + 4}({S512_WP})")
    else:
        asm.c(f"round {i}: W[{i}] = sigma1(W[{i - 2}]) + W[{i - 7}] + sigma0(W[{i - 15}]) + W[{i - 16}]")
        # sp points at W[i-16-j] (the pass's first W[i-16]): W[i] at 128 + 8j(sp)
        w, w2 = p[0], p[2]
        wo += 128
        asm("lw", w[0], f"{wo - 128}(sp)")
        asm("lw", w[1], f"{wo - 124}(sp)")
        asm("lw", t[0], f"{wo - 56}(sp)")
        asm("lw", t[1], f"{wo - 52}(sp)")
        add64(asm, w, t[0], t[1], t[0])
        sigma64_add(asm, w, w2, [19, 61], 6, t)          # sigma1(W[i-2]), kept in registers
        asm("lw", w2[0], f"{wo - 120}(sp)")              # W[i-2] is dead: W[i-15] into its pair
        asm("lw", w2[1], f"{wo - 116}(sp)")
        sigma0_512_add(asm, w, w2, (t[0], t[1], S512_X))  # sigma0(W[i-15]), 16 instructions
        asm("sw", w[0], f"{wo}(sp)")
        asm("sw", w[1], f"{wo + 4}(sp)")
        wo -= 128
        p[:] = [p[2], p[0], p[1]]
    add64(asm, h, w[0], w[1], t[0])                      # h += W[i]
    asm("lw", t[0], f"{wo}({S512_KP})")
    asm("lw", t[1], f"{wo + 4}({S512_KP})")
    add64(asm, h, t[0], t[1], t[0])                      # h += K[i]
    sigma64_add(asm, h, e, [14, 18, 41], None, t)        # h += Sigma1(e)
    for half in (0, 1):                                  # h += Ch(e,f,g) = ((f ^ g) & e) ^ g
        asm("xor", t[0], f[half], g[half])
        asm("and", t[0], t[0], e[half])
        asm("xor", t[0], t[0], g[half])
        if half == 0:
            add64(asm, h, t[0], None, t[0])
        else:
            asm("add", h[1], h[1], t[0])
    add64(asm, d, h[0], h[1], t[0])                      # d += T1
    sigma64_add(asm, h, a, [28, 34, 39], None, t)        # h += Sigma0(a)
    for half in (0, 1):                                  # Maj = ((a ^ b) & (b ^ c)) ^ b, a ^ b kept
        asm("xor", t[half], a[half], b[half])
        asm("and", ab[half], ab[half], t[half])
        asm("xor", ab[half], ab[half], b[half])
    add64(asm, h, ab[0], ab[1], ab[0])                   # h = T1 + T2: the new a
    st[:] = [h, a, b, c, d, e, f, g]
    tab[:] = [ab, t]


def sha512_body() -> list[str]:
    asm = Asm()
    st = list(S512_STATE)
    tab = list(S512_T)
    p = list(S512_P)
    saved = ["ra"] + [f"s{k}" for k in range(12)]
    asm("beqz", "a2", ".Ls512_none")                    # nblocks is public
    asm("addi", "sp", "sp", -FRAME512)
    for k, r in enumerate(saved):
        asm("sw", r, f"{SAVE512 + 4 * k}(sp)")
    asm("slli", "a2", "a2", 7)
    asm("add", "a2", "a1", "a2")
    asm("sw", "a1", f"{SAVE512 + OFF512_IN}(sp)")
    asm("sw", "a0", f"{SAVE512 + OFF512_STATE}(sp)")
    asm("sw", "a2", f"{SAVE512 + OFF512_END}(sp)")
    for k, (lo, hi) in enumerate(S512_STATE):
        asm("lw", lo, f"{8 * k}(a0)")
        asm("lw", hi, f"{8 * k + 4}(a0)")
    asm.lines.append(".Ls512_block:")
    src = p[1][0]
    asm("lw", src, f"{SAVE512 + OFF512_IN}(sp)")
    asm("lla", S512_KP, ".Lsha512_k")
    asm("mv", S512_WP, "sp")                             # the message passes store W[] through a3
    for half in (0, 1):                                  # b ^ c for round 0's Maj
        asm("xor", tab[1][half], st[1][half], st[2][half])
    asm.lines.append(".Ls512_load:")
    asm.c("rounds 0..15: two passes of 8 that read the message (state names repeat every 8 rounds)")
    for j in range(8):
        sha512_round(asm, j, st, tab, p, j, "load")
    assert st == S512_STATE and tab == S512_T and p == S512_P
    asm("addi", src, src, 64)
    asm("addi", S512_KP, S512_KP, 64)
    asm("addi", S512_WP, S512_WP, 64)
    asm("lla", tab[0][0], ".Lsha512_k + 128")
    asm("bne", S512_KP, tab[0][0], ".Ls512_load")
    asm("sw", src, f"{SAVE512 + OFF512_IN}(sp)")
    asm.c("W[15] and W[14] into the pairs the scheduled rounds keep them in")
    asm("lw", p[1][0], "120(sp)")
    asm("lw", p[1][1], "124(sp)")
    asm("lw", p[2][0], "112(sp)")
    asm("lw", p[2][1], "116(sp)")
    asm.lines.append(".Ls512_sched:")
    asm.c("rounds 16..79: eight passes of 8; sp moves 64 bytes up W[] a pass (a3 is a temporary)")
    for j in range(8):
        sha512_round(asm, 16 + j, st, tab, p, j, "sched")
    assert st == S512_STATE and tab == S512_T
    # the W pairs have turned by 8 mod 3 = 2 places: move W[i] and W[i-1] back (2 + 2 MV a pass)
    assert p == [S512_P[1], S512_P[2], S512_P[0]]
    for half in (0, 1):
        asm("mv", S512_P[1][half], p[1][half])
    for half in (0, 1):
        asm("mv", S512_P[2][half], p[2][half])
    p[:] = list(S512_P)
    asm("addi", S512_KP, S512_KP, 64)
    asm("addi", "sp", "sp", 64)
    asm("lla", tab[0][0], ".Lsha512_k + 640")
    asm("bne", S512_KP, tab[0][0], ".Ls512_sched")
    asm("addi", "sp", "sp", -512)                       # back to the frame's base
    asm.c("H += working variables")
    ptr = tab[0][0]
    free = [p[0][0], p[0][1], p[1][0], p[1][1]]
    asm("lw", ptr, f"{SAVE512 + OFF512_STATE}(sp)")
    for k in range(0, 8, 2):
        for m in range(4):
            asm("lw", free[m], f"{8 * k + 4 * m}({ptr})")
        for q in range(2):
            lo, hi = free[2 * q], free[2 * q + 1]
            add64(asm, st[k + q], lo, hi, lo)
            asm("sw", st[k + q][0], f"{8 * (k + q)}({ptr})")
            asm("sw", st[k + q][1], f"{8 * (k + q) + 4}({ptr})")
    asm("lw", free[0], f"{SAVE512 + OFF512_IN}(sp)")
    asm("lw", free[1], f"{SAVE512 + OFF512_END}(sp)")
    asm("bne", free[0], free[1], ".Ls512_block")       # public: block count
    for k, r in enumerate(saved):
        asm("lw", r, f"{SAVE512 + 4 * k}(sp)")
    asm("addi", "sp", "sp", FRAME512)
    asm.lines.append(".Ls512_none:")
    asm("ret")
    return asm.lines


SHA512_HEAD = """\
// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_rv32.py (edit the generator, not this file).
 *
 * SHA-512 block function for RV32IMAC (SiFive E31; no rotate instruction), FIPS 180-4 §6.4.2.
 *
 * void mcu_sha512_<impl>_blocks(uint64_t state[8], const uint8_t *in, size_t nblocks);
 *   state: H0..H7 as 64-bit words, low word first; in: nblocks * 128 bytes, big-endian, any alignment;
 *   nblocks may be 0.
 *
 * Register map: 64-bit values are (low, high) pairs. State a..h at round 0 in (s2,s3) (s4,s5) (s6,s7)
 * (s8,s9) (s10,s11) (t3,t4) (t5,t6) (a6,a7), names rotating a round; temporaries and the kept a ^ b in
 * (s0,s1) and (a0,a1), swapping roles every round; K pointer a2; in the scheduled rounds (a4,a5) (t0,t1)
 * (t2,ra) hold W[i] being built, W[i-1] and W[i-2], and a3 is sigma0's third temporary (the message
 * rounds use it as the W pointer). Stack: 704 bytes: W[0..79] at 0(sp), then the saved registers and
 * in/state/end at 640(sp).
 *
 * Tricks: 64-bit add = ADD, SLTU, ADD, ADD; each piece of a 64-bit rotation is one 32-bit shift XORed
 * straight into the low or high sum (Sigma: 22 instructions); sigma0 = ROTR1(x ^ ROTR7(x)) ^ SHR7(x),
 * where SHR7 is ROTR7 without one of its four pieces, so both come from the same shifts (16
 * instructions, not 20); Maj = ((a^b)&(b^c))^b reusing b^c; Ch = ((f^g)&e)^g; h accumulates T1 then
 * T1 + T2. 8 rounds unrolled (state names repeat); in the scheduled passes sp itself walks up W[] (64
 * bytes a pass, W[i] at 128 + 8j(sp)), which frees the W pointer register; everything still needed is
 * at or above sp, so an interrupt cannot clobber it. W[i-1], W[i-2] stay in registers. A round is 86
 * instructions, a scheduled round 142; loads sit two instructions before their use. Constant time: no
 * branch or address depends on data.
 */
#include "mcucrypt/ns.h"

    .section .rodata.sha512_rv32_k, "a", @progbits
    .p2align 3
.Lsha512_k:
"""


def sha512_file() -> str:
    k = "".join(f"    .word   {', '.join(f'0x{v & 0xffffffff:08x}, 0x{v >> 32:08x}' for v in K512[r:r + 4])}\n"
                for r in range(0, 80, 4))
    body = function_lines("MCU_FN(sha512, blocks)", sha512_body())
    body[1] = '    .section .text.sha512_rv32_blocks, "ax", @progbits'
    return SHA512_HEAD + k + "\n".join(body) + "\n"



# ======================================================================================== small code
# One 8-round body, run 8 (SHA-256) or 10 (SHA-512) times, reading W[i] from a W[] array on the stack
# that two short loops fill first: the big-endian message words, then the schedule W[16..].
def sha_small_prologue(asm: Asm, frame: int, log_block: int, tag: str) -> list[str]:
    saved = ["ra"] + [f"s{k}" for k in range(12)]
    asm("beqz", "a2", f".L{tag}_none")                  # nblocks is public
    asm("addi", "sp", "sp", -frame)
    for k, r in enumerate(saved):
        asm("sw", r, f"{4 * k}(sp)")
    asm("slli", "a2", "a2", log_block)
    asm("add", "a2", "a1", "a2")
    asm("sw", "a1", f"{OFF_IN}(sp)")
    asm("sw", "a0", f"{OFF_STATE}(sp)")
    asm("sw", "a2", f"{OFF_END}(sp)")
    return saved


def sha_small_epilogue(asm: Asm, frame: int, saved: list[str], tag: str, free: list[str]) -> None:
    asm("lw", free[0], f"{OFF_IN}(sp)")
    asm("lw", free[1], f"{OFF_END}(sp)")
    asm("bne", free[0], free[1], f".L{tag}_block")     # public: block count
    for k, r in enumerate(saved):
        asm("lw", r, f"{4 * k}(sp)")
    asm("addi", "sp", "sp", frame)
    asm.lines.append(f".L{tag}_none:")
    asm("ret")


def sha256_small_body() -> list[str]:
    asm = Asm()
    st, tmp = list(S256_STATE), list(S256_TEMPS)
    frame, w0 = 64 + 256, 64                            # W[0..63] at 64(sp)
    saved = sha_small_prologue(asm, frame, 6, "s256s")
    src, dst, end, x, y, z, u = "t4", "t5", "t6", "s2", "s3", "s4", "s5"
    asm.lines.append(".Ls256s_block:")
    asm.c("W[0..15] = the big-endian message words")
    asm("lw", src, f"{OFF_IN}(sp)")
    asm("addi", dst, "sp", w0)
    asm("addi", end, "sp", w0 + 64)
    asm.lines.append(".Ls256s_load:")
    load_be32(asm, x, src, 0, [y, z, u])
    asm("sw", x, f"0({dst})")
    asm("addi", src, src, 4)
    asm("addi", dst, dst, 4)
    asm("bne", dst, end, ".Ls256s_load")
    asm("sw", src, f"{OFF_IN}(sp)")
    asm.c("W[16..63] = sigma1(W[i-2]) + W[i-7] + sigma0(W[i-15]) + W[i-16]")
    asm("addi", end, "sp", w0 + 256)
    asm.lines.append(".Ls256s_sched:")
    asm("lw", x, f"-8({dst})")
    asm("lw", y, f"-28({dst})")
    asm("lw", z, f"-60({dst})")
    asm("lw", u, f"-64({dst})")
    xor_of_shifts(asm, "s6", "s7", rot_terms(x, 17) + rot_terms(x, 19) + [("srli", x, 10)])
    asm("add", u, u, "s6")
    xor_of_shifts(asm, "s6", "s7", rot_terms(z, 7) + rot_terms(z, 18) + [("srli", z, 3)])
    asm("add", u, u, "s6")
    asm("add", u, u, y)
    asm("sw", u, f"0({dst})")
    asm("addi", dst, dst, 4)
    asm("bne", dst, end, ".Ls256s_sched")
    asm.c("64 rounds: eight passes of an 8-round body (state names repeat every 8 rounds)")
    asm("lw", tmp[0], f"{OFF_STATE}(sp)")
    for k, r in enumerate(S256_STATE):
        asm("lw", r, f"{4 * k}({tmp[0]})")
    asm("lla", S256_KP, ".Lsha256_k")
    wp = "t4"
    asm("addi", wp, "sp", w0)
    asm("xor", tmp[2], st[1], st[2])                    # b ^ c for round 0's Maj
    asm.lines.append(".Ls256s_rounds:")
    for j in range(8):
        sha256_round(asm, j, st, tmp, 4 * j, sched=False, w_mem=f"{4 * j}({wp})")
    assert st == S256_STATE and tmp == S256_TEMPS
    asm("addi", S256_KP, S256_KP, 32)
    asm("addi", wp, wp, 32)
    asm("addi", tmp[0], "sp", w0 + 256)
    asm("bne", wp, tmp[0], ".Ls256s_rounds")
    asm.c("H += working variables")
    asm("lw", tmp[0], f"{OFF_STATE}(sp)")
    free = ["t5", "t6", "s2", "s3", "s4", "s5", "s6", "s7"]
    for k in range(8):
        asm("lw", free[k], f"{4 * k}({tmp[0]})")
    for k in range(8):
        asm("add", st[k], st[k], free[k])
        asm("sw", st[k], f"{4 * k}({tmp[0]})")
    sha_small_epilogue(asm, frame, saved, "s256s", free)
    return asm.lines


def sha512_small_body() -> list[str]:
    asm = Asm()
    st, tab, p = list(S512_STATE), list(S512_T), list(S512_P)
    frame = FRAME512                                    # W[0..79] at 64(sp)
    saved = sha_small_prologue(asm, frame, 7, "s512s")
    src, dst, end = "a4", "a5", "t0"
    x, y, z, u = ("t1", "t2"), ("s2", "s3"), ("s4", "s5"), ("s6", "s7")
    t = ("s8", "s9")
    asm.lines.append(".Ls512s_block:")
    asm.c("W[0..15] = the big-endian message words (high word first in the input, low first in W)")
    asm("lw", src, f"{OFF512_IN}(sp)")
    asm("addi", dst, "sp", W512)
    asm("addi", end, "sp", W512 + 128)
    asm.lines.append(".Ls512s_load:")
    load_be32(asm, x[1], src, 0, [y[0], y[1], z[0]])
    load_be32(asm, x[0], src, 4, [y[0], y[1], z[0]])
    asm("sw", x[0], f"0({dst})")
    asm("sw", x[1], f"4({dst})")
    asm("addi", src, src, 8)
    asm("addi", dst, dst, 8)
    asm("bne", dst, end, ".Ls512s_load")
    asm("sw", src, f"{OFF512_IN}(sp)")
    asm.c("W[16..79] = sigma1(W[i-2]) + W[i-7] + sigma0(W[i-15]) + W[i-16]")
    asm("addi", end, "sp", W512 + 640)
    asm.lines.append(".Ls512s_sched:")
    asm("lw", u[0], f"-128({dst})")
    asm("lw", u[1], f"-124({dst})")
    asm("lw", y[0], f"-56({dst})")
    asm("lw", y[1], f"-52({dst})")
    asm("lw", x[0], f"-16({dst})")
    asm("lw", x[1], f"-12({dst})")
    asm("lw", z[0], f"-120({dst})")
    asm("lw", z[1], f"-116({dst})")
    add64(asm, u, y[0], y[1], y[0])
    sigma64_add(asm, u, x, [19, 61], 6, t)
    sigma0_512_add(asm, u, z, (t[0], t[1], "s10"))        # z is dead after: 16 instructions
    asm("sw", u[0], f"0({dst})")
    asm("sw", u[1], f"4({dst})")
    asm("addi", dst, dst, 8)
    asm("bne", dst, end, ".Ls512s_sched")
    asm.c("80 rounds: ten passes of an 8-round body (state names repeat every 8 rounds)")
    ptr = p[1][0]
    asm("lw", ptr, f"{OFF512_STATE}(sp)")
    for k, (lo, hi) in enumerate(S512_STATE):
        asm("lw", lo, f"{8 * k}({ptr})")
        asm("lw", hi, f"{8 * k + 4}({ptr})")
    asm("lla", S512_KP, ".Lsha512_k")
    asm("addi", S512_WP, "sp", W512)
    for half in (0, 1):                                  # b ^ c for round 0's Maj
        asm("xor", tab[1][half], st[1][half], st[2][half])
    asm.lines.append(".Ls512s_rounds:")
    for j in range(8):
        sha512_round(asm, j, st, tab, p, j, "mem")
    assert st == S512_STATE and tab == S512_T and p == S512_P
    asm("addi", S512_KP, S512_KP, 64)
    asm("addi", S512_WP, S512_WP, 64)
    asm("addi", tab[0][0], "sp", W512 + 640)
    asm("bne", S512_WP, tab[0][0], ".Ls512s_rounds")
    asm.c("H += working variables")
    ptr = tab[0][0]
    free = [p[0][0], p[0][1], p[1][0], p[1][1]]
    asm("lw", ptr, f"{OFF512_STATE}(sp)")
    for k in range(0, 8, 2):
        for m in range(4):
            asm("lw", free[m], f"{8 * k + 4 * m}({ptr})")
        for q in range(2):
            lo, hi = free[2 * q], free[2 * q + 1]
            add64(asm, st[k + q], lo, hi, lo)
            asm("sw", st[k + q][0], f"{8 * (k + q)}({ptr})")
            asm("sw", st[k + q][1], f"{8 * (k + q) + 4}({ptr})")
    sha_small_epilogue(asm, frame, saved, "s512s", free)
    return asm.lines


def small_file(bits: int) -> str:
    if bits == 256:
        head = SHA256_HEAD
        k = "".join(f"    .word   {', '.join(f'0x{v:08x}' for v in K256[r:r + 8])}\n" for r in range(0, 64, 8))
        body = function_lines("MCU_FN(sha256, blocks)", sha256_small_body())
    else:
        head = SHA512_HEAD
        k = "".join(f"    .word   {', '.join(f'0x{v & 0xffffffff:08x}, 0x{v >> 32:08x}' for v in K512[r:r + 4])}\n"
                    for r in range(0, 80, 4))
        body = function_lines("MCU_FN(sha512, blocks)", sha512_small_body())
    body[1] = f'    .section .text.sha{bits}_rv32_small_blocks, "ax", @progbits'
    cut = head.index(" * Register map")
    rest = head.index(" */\n#include")
    if bits == 256:
        regs = (" * Register map: state a..h in a2 a3 a4 a5 t0 t1 t2 t3 at round 0 (names rotate a round),\n"
                " * temporaries s0, s1, a0 (one holds the kept a ^ b), K pointer a1, W pointer t4; the load and\n"
                " * schedule loops use t4 (input), t5 (W[i]), t6 (end) and s2..s7. Stack: 320 bytes (saved\n"
                " * registers, in/state/end, W[0..63]).\n")
    else:
        regs = (" * Register map: state a..h as (low, high) pairs (s2,s3) (s4,s5) (s6,s7) (s8,s9) (s10,s11) (t3,t4)\n"
                " * (t5,t6) (a6,a7) at round 0 (names rotate a round); temporaries and the kept a ^ b in (s0,s1) and\n"
                " * (a0,a1), swapping roles every round; K pointer a2, W pointer a3, W[i] in (a4,a5). The load and\n"
                " * schedule loops use a4 (input), a5 (W[i]), t0 (end), (t1,t2) (s2,s3) (s4,s5) (s6,s7) for words\n"
                " * and (s8,s9), s10 as temporaries. Stack: 704 bytes (saved registers, in/state/end, W[0..79]).\n")
    note = (" * Small code (rv32-small): the rounds of rv32-fast (the same generator functions: Maj reusing b ^ c,\n"
            " * Ch = ((f ^ g) & e) ^ g, one shift and one XOR per rotation piece), as one 8-round body run in\n"
            " * passes; W[i] is read from a W[] array on the stack that two short loops fill first (the\n"
            " * big-endian message words by LBU, then the schedule" +
            ("; its sigma0 is rv32-fast's 16-instruction form" if bits == 512 else "") + ").\n" + regs +
            " * Constant time: no branch or address depends on data.\n")
    return head[:cut] + note + head[rest:] + k + "\n".join(body) + "\n"


def main() -> int:
    check = "--check" in sys.argv[1:]
    return write_or_check({HERE / "sha256_rv32.S": sha256_file(), HERE / "sha512_rv32.S": sha512_file(),
                           HERE / "sha256_rv32_zbb.S": sha256_file(zbb=True),
                           HERE / "sha256_rv32_small.S": small_file(256),
                           HERE / "sha512_rv32_small.S": small_file(512)},
                          check, __file__)


if __name__ == "__main__":
    sys.exit(main())
