#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates tinyjambu_aead_rv32.S: TinyJAMBU-128/192/256 encryption and decryption as one assembly call
each on the E31 (rv32-fast; rv32-zbb assembles the same file with XNOR), the state and key in registers
from the key set-up to the tag.

Run `python3 crypto/tinyjambu/rv32/gen_aead_rv32.py` to write the .S beside this script (`--check`: only
compare, as the tests do). Before writing anything the script runs its generated permutations on a small
interpreter of the instructions they use, against the specification's permutation (written here again,
32 steps a word) on random states and keys, entered and left the way the drivers do; the drivers around
them are checked on the board (tests/test_tinyjambu.py: official vectors, random lengths, forgeries).

Why one call. With the 14-instruction update (tinyjambu_rv32.S, docs/tinyjambu.md), the 1,168 updates of
a 128-byte TinyJAMBU-128 encryption cost 16,352 cycles; the C mode around the permutation cost another
~1,070 (five calls into the assembly, each saving registers, loading and complementing the key,
loading, converting and storing the state, and a block loop entered through a register). Here:
- the state stays in t0-t3 and the key in s0-s7 from the first step to the tag; F and U (the update's
  carried values) carry over from one permutation to the next: every permutation ends with F = s1>>15 |
  s2<<17 and U = s2>>15, which is what its successor's first update needs, and nothing between two
  permutations touches s2 or s1's bits 15..31 (the frame goes to s1 bits 4..6, a partial block's length
  to bits 0..1, data to s3);
- s3 stays in tinyjambu_rv32.S's "pending" form throughout (it lacks (s2 & (s2 >> 15)) << 26; XOR-ing
  data into s3 and reading s2 commute with that), and it never has to be converted: the all-zero start
  state is its own pending form, and the tag is read from s2;
- P_640 and P_large are straight-line subroutines shared by encryption and decryption (JAL/RET with
  ra: the return address stack predicts the return), so a message block costs 10 single-cycle
  instructions besides its updates (LW, ADDI, XORI frame, JAL; RET; XOR, XOR, SW, ADDI, BNE). Running
  P_large inline in the message loops would save the JAL and RET, 68 cycles of a 128-byte message, for
  3.5-4.5 KB more code per key size (one copy in each of the two loops): not worth it. For TinyJAMBU-128
  (key period one chunk) P_1024 is three chunks falling into P_640's code, which is its last five.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "common"))
from generated import write_or_check  # noqa: E402

OUT = HERE / "tinyjambu_aead_rv32.S"

# size -> (key words, chunks of P_large, key period in chunks)
SIZES = {128: (4, 8, 1), 192: (6, 9, 3), 256: (8, 10, 2)}
SMALL_CHUNKS = 5
STATE = ["t0", "t1", "t2", "t3"]
F, U, T1, T2 = "t4", "t5", "t6", "a7"
KEY = [f"s{i}" for i in range(8)]
FRAME = {"nonce": 0x10, "ad": 0x30, "msg": 0x50, "final": 0x70}
FRAME_BYTES = 48          # ra, s0..s7, the output pointer (decryption), 16-byte aligned
SLOT_RA, SLOT_OUT = 44, 40


def update(a: str, b: str, c: str, d: str, k: str) -> list[str]:
    """32 steps into a (tinyjambu_rv32.S's UPD, 14 instructions): F = b>>15 | c<<17 and U = c>>15 on
    entry, d pending; on exit F = c>>15 | d<<17, U = d>>15, d exact, a pending."""
    del b  # enters through F only
    return [f"xor     {a}, {a}, {F}",
            f"slli    {F}, {d}, 17",
            f"or      {F}, {F}, {U}",
            f"and     {T1}, {c}, {F}",
            f"slli    {T2}, {T1}, 26",
            f"xor     {d}, {d}, {T2}",
            f"srli    {U}, {d}, 15",
            f"srli    {T2}, {F}, 6",
            f"xor     {T1}, {T1}, {T2}",
            f"srli    {T1}, {T1}, 6",
            f"xor     {a}, {a}, {T1}",
            f"slli    {T2}, {U}, 20",
            f"xor     {a}, {a}, {T2}",
            f"KEYXOR  {a}, {k}"]


def chunk_keys(size: int, n: int) -> list[str]:
    """The key registers of chunk n of a permutation (each call starts at key word 0)."""
    words = SIZES[size][0]
    return [KEY[(4 * n + i) % words] for i in range(4)]


def permutation(size: int, chunks: int) -> list[str]:
    s0, s1, s2, s3 = STATE
    out: list[str] = []
    for n in range(chunks):
        k = chunk_keys(size, n)
        out += update(s0, s1, s2, s3, k[0]) + update(s1, s2, s3, s0, k[1])
        out += update(s2, s3, s0, s1, k[2]) + update(s3, s0, s1, s2, k[3])
    return out


# ----------------------------------------------------------------------------- self-check (RV32I subset)
M32 = 0xFFFF_FFFF


def run(code: list[str], regs: dict[str, int], zbb: bool) -> None:
    for line in code:
        op, args = line.split(None, 1)
        a = [x.strip() for x in args.split(",")]
        v = regs.get
        if op == "xor":
            regs[a[0]] = v(a[1]) ^ v(a[2])
        elif op == "or":
            regs[a[0]] = v(a[1]) | v(a[2])
        elif op == "and":
            regs[a[0]] = v(a[1]) & v(a[2])
        elif op == "slli":
            regs[a[0]] = (v(a[1]) << int(a[2])) & M32
        elif op == "srli":
            regs[a[0]] = v(a[1]) >> int(a[2])
        elif op == "KEYXOR":
            regs[a[0]] = v(a[0]) ^ v(a[1]) ^ (M32 if zbb else 0)
        else:
            raise ValueError(op)


def spec_permute(state: list[int], key: list[int], steps: int) -> list[int]:
    """The specification's keyed permutation, 32 steps a word (independent of the code above)."""
    s = list(state)
    nk = len(key)
    for i in range(steps // 32):
        t1 = (s[1] >> 15) | (s[2] << 17)
        t2 = (s[2] >> 6) | (s[3] << 26)
        t3 = (s[2] >> 21) | (s[3] << 11)
        t4 = (s[2] >> 27) | (s[3] << 5)
        fb = s[0] ^ t1 ^ (~(t2 & t3) & M32) ^ t4 ^ key[i % nk]
        s = [s[1], s[2], s[3], fb & M32]
    return s


def self_check() -> None:
    """Each generated permutation, entered with F, U and s3 pending as the drivers keep them, against the
    specification on random states and keys; then a second permutation on the carried F and U."""
    rng = random.Random(35)
    for size, (words, large, _) in SIZES.items():
        for zbb in (False, True):
            for chunks in (SMALL_CHUNKS, large):
                code = permutation(size, chunks)
                for _ in range(4):
                    st = [rng.getrandbits(32) for _ in range(4)]
                    key = [rng.getrandbits(32) for _ in range(words)]
                    regs = {r: x for r, x in zip(STATE, st)}
                    regs.update({KEY[i]: (key[i] if zbb else ~key[i] & M32) for i in range(words)})
                    regs[F] = (st[1] >> 15) | (st[2] << 17) & M32
                    regs[U] = st[2] >> 15
                    regs["t3"] ^= ((st[2] & (st[2] >> 15)) << 26) & M32        # into the pending form
                    want = spec_permute(st, key, 128 * chunks)
                    for rep in range(2):
                        run(code, regs, zbb)
                        got = [regs[r] for r in STATE]
                        got[3] ^= ((got[2] & (got[2] >> 15)) << 26) & M32
                        if got != want:
                            raise SystemExit(f"self-check failed: TinyJAMBU-{size}, {chunks} chunks, zbb={zbb}")
                        assert regs[F] == (got[1] >> 15) | (got[2] << 17) & M32 and regs[U] == got[2] >> 15
                        # the frame into s1 bits 4..6 and data into s3 between permutations, as the drivers do
                        regs["t1"] ^= 0x50
                        regs["t3"] ^= 0x1234567
                        want = spec_permute([want[0], want[1] ^ 0x50, want[2], want[3] ^ 0x1234567], key,
                                            128 * chunks)


# ---------------------------------------------------------------------------------------------- drivers
def partial_load(dst: str, ptr: str, n: str, end: str, byte: str) -> list[str]:
    """dst = the n (1..3) bytes at ptr as a little-endian word, zeros above; ptr advanced by n."""
    return [f"add     {end}, {ptr}, {n}",
            f"li      {dst}, 0",
            "1:",
            f"addi    {end}, {end}, -1",
            f"lbu     {byte}, 0({end})",
            f"slli    {dst}, {dst}, 8",
            f"or      {dst}, {dst}, {byte}",
            f"bne     {end}, {ptr}, 1b",
            f"add     {ptr}, {ptr}, {n}"]


def partial_store(src: str, ptr: str, n: str, end: str) -> list[str]:
    """The low n (1..3) bytes of src to ptr (src destroyed); ptr advanced by n."""
    return [f"add     {end}, {ptr}, {n}",
            "1:",
            f"sb      {src}, 0({ptr})",
            f"srli    {src}, {src}, 8",
            f"addi    {ptr}, {ptr}, 1",
            f"bne     {ptr}, {end}, 1b"]


def word_bytes_store(src: str, base: str, off: int) -> list[str]:
    out = []
    for b in range(4):
        out.append(f"sb      {src}, {off + b}({base})")
        if b < 3:
            out.append(f"srli    {src}, {src}, 8")
    return out


def word_bytes_load(dst: str, base: str, off: int, byte: str) -> list[str]:
    out = [f"lbu     {dst}, {off + 3}({base})"]
    for b in (2, 1, 0):
        out += [f"lbu     {byte}, {off + b}({base})", f"slli    {dst}, {dst}, 8", f"or      {dst}, {dst}, {byte}"]
    return out


def driver(size: int, decrypt: bool) -> list[str]:
    """The body of aead_enc / aead_dec for one key size (the register map is in the file's header)."""
    words = SIZES[size][0]
    fn = f"{'dec' if decrypt else 'enc'}{size}"
    small, large = f".Ltj_p640_{size}", f".Ltj_plarge_{size}"
    s1, s2, s3 = STATE[1], STATE[2], STATE[3]
    out = [f"addi    sp, sp, -{FRAME_BYTES}",
           f"sw      ra, {SLOT_RA}(sp)",
           *[f"sw      {KEY[i]}, {4 * i}(sp)" for i in range(words)]]
    if decrypt:
        out.append(f"sw      a0, {SLOT_OUT}(sp)            # the plaintext's start, for the wipe")
    out += ["# the key (a6, 4-byte aligned) into s0.., complemented on RV32I (the NAND's NOT folded in)",
            *[f"lw      {KEY[i]}, {4 * i}(a6)" for i in range(words)],
            "#ifndef __riscv_zbb",
            *[f"not     {KEY[i]}, {KEY[i]}" for i in range(words)],
            "#endif",
            "# the all-zero state, already in the pending form; F = U = 0 are its carried values",
            *[f"li      {r}, 0" for r in (*STATE, F, U)],
            f"jal     ra, {large}                 # key set-up",
            "# nonce set-up: 3 x [frame 1, P_640, s3 ^= nonce word] (a5 = npub, 4-byte aligned)"]
    for i in range(3):
        out += [f"lw      a6, {4 * i}(a5)",
                f"xori    {s1}, {s1}, 0x{FRAME['nonce']:02x}",
                f"jal     ra, {small}",
                f"xor     {s3}, {s3}, a6"]
    out += ["# associated data: whole words [a3, a4), then a5 = adlen & 3 bytes (out of line)",
            "andi    a5, a4, 3",
            "sub     a4, a4, a5",
            "add     a4, a4, a3",
            "beq     a3, a4, 2f",
            "1:",
            "lw      a6, 0(a3)",
            "addi    a3, a3, 4",
            f"xori    {s1}, {s1}, 0x{FRAME['ad']:02x}",
            f"jal     ra, {small}",
            f"xor     {s3}, {s3}, a6",
            "bne     a3, a4, 1b",
            "2:",
            f"bnez    a5, .Ltj_{fn}_adtail",
            f".Ltj_{fn}_msg:",
            "# the message: whole words [a1, a2), then a6 = len & 3 bytes (out of line)",
            "andi    a6, a2, 3",
            "sub     a2, a2, a6",
            "add     a2, a2, a1",
            "beq     a1, a2, 2f",
            "1:",
            "lw      a5, 0(a1)",
            "addi    a1, a1, 4",
            f"xori    {s1}, {s1}, 0x{FRAME['msg']:02x}",
            f"jal     ra, {large}"]
    if decrypt:
        out += [f"xor     a5, a5, {s2}                # plaintext = ciphertext ^ s2, absorbed",
                f"xor     {s3}, {s3}, a5"]
    else:
        out += [f"xor     {s3}, {s3}, a5                # plaintext absorbed, ciphertext = plaintext ^ s2",
                f"xor     a5, a5, {s2}"]
    out += ["sw      a5, 0(a0)",
            "addi    a0, a0, 4",
            "bne     a1, a2, 1b",
            "2:",
            f"bnez    a6, .Ltj_{fn}_tail",
            f".Ltj_{fn}_final:",
            "# finalization: frame 7, P_large, tag word 0 = s2; frame 7, P_640, tag word 1 = s2",
            f"xori    {s1}, {s1}, 0x{FRAME['final']:02x}",
            f"jal     ra, {large}",
            f"mv      a5, {s2}",
            f"xori    {s1}, {s1}, 0x{FRAME['final']:02x}",
            f"jal     ra, {small}"]
    restore = [f"lw      ra, {SLOT_RA}(sp)",
               *[f"lw      {KEY[i]}, {4 * i}(sp)" for i in range(words)],
               f"addi    sp, sp, {FRAME_BYTES}",
               "ret"]
    if not decrypt:
        out += ["# the tag to c + mlen (a0): words when it is 4-byte aligned, bytes otherwise",
                "andi    a3, a0, 3",
                "bnez    a3, 5f",
                "sw      a5, 0(a0)",
                f"sw      {s2}, 4(a0)",
                "6:",
                *restore,
                "5:",
                *word_bytes_store("a5", "a0", 0),
                *word_bytes_store(s2, "a0", 4),
                "j       6b"]
    else:
        out += ["# the received tag at c + mlen (a1) into a3, a4: words when 4-byte aligned, bytes otherwise",
                "andi    a3, a1, 3",
                "bnez    a3, 5f",
                "lw      a3, 0(a1)",
                "lw      a4, 4(a1)",
                "6:",
                "# diff = OR of (computed ^ received); keep = all ones when diff == 0, else 0 (no branch)",
                "xor     a3, a3, a5",
                f"xor     a4, a4, {s2}",
                "or      a3, a3, a4",
                "neg     a4, a3",
                "or      a3, a3, a4",
                "srli    a3, a3, 31",
                "addi    a3, a3, -1",
                f"# the plaintext [m, a0) &= keep: whole words up to a0 - a6, then the a6 tail bytes",
                f"lw      a1, {SLOT_OUT}(sp)",
                "sub     a4, a0, a6",
                "beq     a1, a4, 2f",
                "1:",
                "lw      a5, 0(a1)",
                "addi    a1, a1, 4",
                "and     a5, a5, a3",
                "sw      a5, -4(a1)",
                "bne     a1, a4, 1b",
                "2:",
                "beq     a1, a0, 3f",
                "4:",
                "lbu     a5, 0(a1)",
                "addi    a1, a1, 1",
                "and     a5, a5, a3",
                "sb      a5, -1(a1)",
                "bne     a1, a0, 4b",
                "3:",
                "# a rejected call releases nothing: no register keeps the computed tag (s2, F, U, the last",
                "# update's scratch, and a5 when the message is empty)",
                *[f"li      {r}, 0" for r in (*STATE, F, U, T1, T2, "a5")],
                "andi    a0, a3, 1                   # 0: accepted, -1: rejected (and wiped)",
                "addi    a0, a0, -1",
                *restore,
                "5:",
                *word_bytes_load("a3", "a1", 0, T1),
                *word_bytes_load("a4", "a1", 4, T1),
                "j       6b"]
    # out of line: the partial last AD block and message block (public lengths decide)
    out += [f".Ltj_{fn}_adtail:",
            "# the a5 (1..3) last AD bytes: frame 3, P_640, s3 ^= the bytes, s1 ^= their count",
            *partial_load("a6", "a3", "a5", "a4", T1),
            f"xori    {s1}, {s1}, 0x{FRAME['ad']:02x}",
            f"jal     ra, {small}",
            f"xor     {s3}, {s3}, a6",
            f"xor     {s1}, {s1}, a5",
            f"j       .Ltj_{fn}_msg",
            f".Ltj_{fn}_tail:",
            "# the a6 (1..3) last message bytes: frame 5, P_large, then as a word; s1 ^= their count",
            *partial_load("a5", "a1", "a6", "a3", "a4"),
            f"xori    {s1}, {s1}, 0x{FRAME['msg']:02x}",
            f"jal     ra, {large}"]
    if decrypt:
        out += [f"xor     a5, a5, {s2}",
                "slli    a3, a6, 3                   # only the a6 plaintext bytes are absorbed",
                "li      a4, 1",
                "sll     a4, a4, a3",
                "addi    a4, a4, -1",
                "and     a5, a5, a4",
                f"xor     {s3}, {s3}, a5"]
    else:
        out += [f"xor     {s3}, {s3}, a5",
                f"xor     a5, a5, {s2}"]
    out += [*partial_store("a5", "a0", "a6", "a3"),
            f"xor     {s1}, {s1}, a6",
            f"j       .Ltj_{fn}_final"]
    return out


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_aead_rv32.py (edit the generator, not this file).
 *
 * TinyJAMBU v2 AEAD on the E31, one call per encryption or decryption (rv32-fast; rv32-zbb assembles the
 * same file: XNOR takes the key as it is). tinyjambu.c (TJ_ASM_AEAD=1) takes this path when the key,
 * nonce, message, output and (if any) AD buffers are 4-byte aligned, after its length checks:
 *
 *   void mcu_<id>_<impl>_aead_enc(uint8_t *c, const uint8_t *m, size_t mlen, const uint8_t *ad,
 *                                 size_t adlen, const uint8_t *npub, const uint8_t *k);
 *       c = the mlen ciphertext bytes, then the 8-byte tag (at c + mlen, any alignment)
 *   int mcu_<id>_<impl>_aead_dec(uint8_t *m, const uint8_t *c, size_t mlen, const uint8_t *ad,
 *                                size_t adlen, const uint8_t *npub, const uint8_t *k);
 *       m = the mlen plaintext bytes (absorbed as they are computed); the tag at c + mlen compared by
 *       OR-ing the differences, m ANDed with an all-ones or all-zeros mask: returns 0 when the tag
 *       matched, else -1 with m wiped, on the same instructions either way; no register keeps the
 *       computed tag on return
 *
 * Register map: t0-t3 the state s0..s3 (s3 in the "pending" form of tinyjambu_rv32.S throughout),
 *   t4 = F, t5 = U (the update's carried values), t6, a7 = scratch of the updates, s0..s7 = the (~)key
 *   words (4, 6 or 8); a0 = output cursor, a1 = input cursor, a2 = end of the whole message words,
 *   a3 = AD cursor, a4 = end of the whole AD words, a5 = nonce pointer, then the AD tail's length, then a
 *   message word; a6 = nonce / AD word, then the message tail's length; ra = the subroutines' link;
 *   frame: ra, s0..s7, and (decryption) the plaintext's start for the wipe.
 * Subroutines .Ltj_p640_<size>, .Ltj_plarge_<size>: the permutation on t0-t3 with F, U carried, called
 *   with JAL ra (so the return address stack predicts the RET); clobber t4-t6, a7.
 * The trick: one call and no state conversions. The state never leaves the registers, F and U carry over
 *   between permutations (the frame, a length and data touch only s1's bits 0..6 and s3), the all-zero
 *   start state is its own pending form and the tag comes from s2, so s3 is never converted: 10
 *   instructions a message block besides its 14-instruction updates (JAL and RET included).
 * Constant time: shifts, AND, OR, XOR; branches on lengths and pointer alignment only (public). */
#include "mcucrypt/ns.h"
#include "../ref/tinyjambu_perm.h"

#if TJ_COMPLEMENTED_STATE != 0 || TJ_ASM_AEAD != 1
#error "tinyjambu_aead_rv32.S is the one-call AEAD of rv32-fast/rv32-zbb: TJ_COMPLEMENTED_STATE=0, TJ_ASM_AEAD=1"
#endif

/* a ^= ~k (the key register holds ~k on RV32I; Zbb's XNOR takes k as it is) */
.macro KEYXOR a, k
#ifdef __riscv_zbb
    xnor    \\a, \\a, \\k
#else
    xor     \\a, \\a, \\k
#endif
.endm
"""


def body(lines: list[str]) -> list[str]:
    """Indent instructions; labels and preprocessor lines stay in column 0; '# ...' comments become //."""
    out = []
    for ln in lines:
        if ln.endswith(":") or ln.startswith("#if") or ln.startswith("#endif") or ln.startswith("#else"):
            out.append(ln)
        elif ln.startswith("# "):
            out.append("    // " + ln[2:])
        else:
            if "  # " in ln:
                ins, comment = ln.split("  # ", 1)
                ln = f"{ins.rstrip():<36}// {comment}"
            out.append("    " + ln)
    return out


def generate() -> str:
    lines = HEADER.rstrip("\n").split("\n")
    for size, (words, large, period) in SIZES.items():
        lines += ["", f"/* ---------------------------------------------------------------- TinyJAMBU-{size}: "
                      f"{words} key words, P_large = {large} x 128 steps */"]
        lines += ["", f'    .section .text.tj_aead_perm{size}, "ax", @progbits', "    .p2align 2"]
        small, head = f".Ltj_p640_{size}", large - SMALL_CHUNKS
        if head % period == 0:
            # P_large's last 5 chunks use the key words of P_640's (the key period divides the 3 chunks
            # before them: TinyJAMBU-128), so P_large is those 3 chunks falling into P_640: no code twice
            assert permutation(size, head) + permutation(size, SMALL_CHUNKS) == permutation(size, large)
            lines += [f".Ltj_plarge_{size}:                   // P_{128 * large}: {head} chunks, then P_640's code",
                      *body(permutation(size, head)),
                      f"{small}:                     // P_640 (subroutine)",
                      *body(permutation(size, SMALL_CHUNKS)), "    ret"]
        else:
            for name, chunks in ((small, SMALL_CHUNKS), (f".Ltj_plarge_{size}", large)):
                lines += [f"{name}:                        // P_{128 * chunks} (subroutine)",
                          *body(permutation(size, chunks)), "    ret"]
        for decrypt in (False, True):
            op = "aead_dec" if decrypt else "aead_enc"
            sym = f"MCU_FN(tinyjambu{size}, {op})"
            lines += ["", f'    .section .text.tj_{op}{size}, "ax", @progbits', f"    .globl  {sym}",
                      f"    .type   {sym}, @function", "    .p2align 2", f"{sym}:", *body(driver(size, decrypt)),
                      f"    .size   {sym}, . - {sym}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    check = "--check" in sys.argv[1:]
    self_check()
    return write_or_check({OUT: generate()}, check, __file__)


if __name__ == "__main__":
    sys.exit(main())
