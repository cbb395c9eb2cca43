#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the constant-time barrel-shiftrows AES-128 for RV32: aes_barrel.S (implementation rv32-barrel,
RV32I instructions) and aes_barrel_zbb.S (rv32-barrel-zbb: Zbb rori for the ShiftRows rotations).

    python3 crypto/aes/rv32/gen_aes_barrel.py [--check]

Technique (docs/baselines.md): eight blocks in 32 words, word (r, j) = bit j of row r of every block, the
byte (row r, column c) of block b at bit 8c + b. ShiftRows is then a rotation of each row word by 8r bits
(the "barrel-shiftrows" representation of Adomnicai and Peyrin, TCHES 2021/1), and MixColumns is XORs
between whole row words, no rotation at all: out_r = xtime(t_r) ^ a_{r+1} ^ t_{r+2} with t_r = a_r ^ a_{r+1}
(112 XOR a round). The S-box is the Boyar-Peralta circuit of gen_aes_bitsliced.py (its NOTs in the round
keys), once per row. Round keys are fully precomputed (1408 bytes: 11 x 32 words, every byte 0x00 or 0xff).
CTR: the IV columns 0..2 (same in all blocks) are packed with round key 0 once per call; per eight blocks
only the eight counters go through an 8x8 transposition network, whose output bytes land in byte 3 of the
row words. The key stream of eight blocks is unpacked (the same network per row, then a 4x4 byte
transposition per block) into the frame and XORed with the message. Each 8-block iteration is one
straight-line program: register allocation (Belady, gen_aes_bitsliced.allocate) and list scheduling
(rv32sched). Before writing, the generator interprets the allocated code and compares with the AES model.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from gen_aes_bitsliced import (NETWORK, SBOX_NOT, POOL, Prog, allocate, aes_encrypt_model, check_circuit,
                               expand_key, ind, li, sbox)
from rv32sched import schedule, stalls

HERE = Path(__file__).resolve().parent
M32 = 0xFFFFFFFF

# Frame (bytes from sp)
KS = 0            # 128-byte key stream of eight blocks
KC = 128          # 32 words: packed IV columns 0..2 ^ round key 0
SAVE = 256        # ra, s0..s11
OUTP, INP, LEN, CTR = 308, 312, 316, 320
SPILL = 324
RKREG = "a3"      # round keys (1408 bytes), the ctr argument; kept for the whole call
CPOOL = [r for r in POOL if r != RKREG]


def rkoff(i: int, r: int, j: int) -> int:
    return 4 * (32 * i + 8 * r + j)


def const(p: Prog, v: int) -> str:
    """One value per constant and program: the allocator keeps a mask in a register while it is in use
    and re-materializes it (li) only after an eviction."""
    cache = p.__dict__.setdefault("consts", {})
    if v not in cache:
        cache[v] = p.op("li", v, hint="m")
    return cache[v]


def swapmove(p: Prog, a: str, b: str, mask: int, n: int) -> tuple[str, str]:
    """t = ((a >> n) ^ b) & mask; b ^= t; a ^= t << n."""
    t = p.op("srli", a, n)
    t = p.op("xor", t, b)
    t = p.op("and", t, const(p, mask))
    b = p.op("xor", b, t)
    a = p.op("xor", a, p.op("slli", t, n))
    return a, b


def network(p: Prog, q: list[str]) -> list[str]:
    """8x8 bit transposition in every byte lane: out[i] lane bit w = q[w] lane bit i."""
    q = list(q)
    for a, b, m, n in NETWORK:
        q[a], q[b] = swapmove(p, q[a], q[b], m, n)
    return q


# 4x4 byte transposition of the four row words of a block (lane c = byte (r, c)) into column words.
BYTE_NET = [(0, 1, 0x00FF00FF, 8), (2, 3, 0x00FF00FF, 8), (0, 2, 0x0000FFFF, 16), (1, 3, 0x0000FFFF, 16)]


def byte_transpose_py(w: list[int]) -> list[int]:
    w = list(w)
    for a, b, m, n in BYTE_NET:
        t = ((w[a] >> n) ^ w[b]) & m
        w[b] ^= t
        w[a] ^= (t << n) & M32
    return w


def _colword() -> list[int]:
    rows = [sum(((16 * r + c) & 0xFF) << (8 * c) for c in range(4)) for r in range(4)]
    out = byte_transpose_py(rows)
    want = [sum(((16 * r + c) & 0xFF) << (8 * r) for r in range(4)) for c in range(4)]
    return [out.index(want[c]) for c in range(4)]


COLWORD = _colword()


def setup_program(zbb: bool) -> tuple[Prog, list[str]]:
    """Per call: K[r][j] (byte c < 3 = 0xff * bit j of IV byte (r, c)) ^ round key 0 word (r, j) -> frame.
    A 4x4 byte transposition turns the IV words (columns) into row words R_r (lane c = byte (r, c), lane 3
    zero); then K[r][j] = ((R_r >> j) & 0x01010101) * 0xff, the multiplication as (y << 8) - y."""
    p = Prog(zbb)
    iv = ["iv0", "iv1", "iv2"]
    w = list(iv) + [None]
    for a, b, m, n in BYTE_NET:
        if w[b] is None:                 # b = (a >> n) & m; a ^= b << n
            w[b] = p.op("and", p.op("srli", w[a], n), const(p, m))
            w[a] = p.op("xor", w[a], p.op("slli", w[b], n))
        else:
            w[a], w[b] = swapmove(p, w[a], w[b], m, n)
    rows = [w[COLWORD[r]] for r in range(4)]     # the transposition is an involution
    for r in range(4):
        for j in range(8):
            y = p.op("and", p.op("srli", rows[r], j) if j else rows[r], const(p, 0x01010101))
            e = p.op("sub", p.op("slli", y, 8), y)
            v = p.op("xor", e, p.op("lw", (rkoff(0, r, j), RKREG), hint="rk"))
            p.ops.append(("sw", None, v, KC + 4 * (8 * r + j)))
    return p, iv


def mixcolumns_ark(p: Prog, a: list[list[str]], i: int) -> list[list[str]]:
    """MixColumns and AddRoundKey i, streamed slice by slice (j = 7 first for the carries of xtime, then 0..6) so that few values are
    live: out_r = xtime(t_r) ^ a_(r+1) ^ t_(r+2), t_r = a_r ^ a_(r+1)."""
    t: dict[tuple[int, int], str] = {}
    out = [[""] * 8 for _ in range(4)]

    def tt(r: int, j: int) -> str:
        if (r, j) not in t:
            t[r, j] = p.xor(a[r][j], a[(r + 1) % 4][j])
        return t[r, j]
    for j in (7, 0, 1, 2, 3, 4, 5, 6):
        for r in range(4):
            if j == 0:
                xt = tt(r, 7)
            else:
                xt = tt(r, j - 1)
                if j in (1, 3, 4):
                    xt = p.xor(xt, tt(r, 7))
            v = p.xor(p.xor(xt, a[(r + 1) % 4][j]), tt((r + 2) % 4, j))
            out[r][j] = p.xor(v, p.op("lw", (rkoff(i, r, j), RKREG), hint="rk"))
    return out


def iteration_program(zbb: bool) -> Prog:
    """Eight counter blocks ctr .. ctr+7 (ctr at CTR(sp)) -> 128 bytes of key stream at KS(sp)."""
    p = Prog(zbb)
    ctr = p.op("lw", CTR, hint="ctr")
    q = [ctr] + [p.op("addi", ctr, b) for b in range(1, 8)]
    o = network(p, q)          # o[j] lane k bit b = bit j of counter byte k of block b = row 3 - k
    s = []
    for r in range(4):
        row = []
        for j in range(8):
            k = 3 - r
            if k == 0:
                v = p.op("slli", o[j], 24)
            else:
                v = p.op("slli", o[j], 24 - 8 * k) if k < 3 else o[j]
                v = p.op("and", v, const(p, 0xFF000000))
            row.append(p.xor(v, p.op("lw", KC + 4 * (8 * r + j), hint="k")))
        s.append(row)
    for i in range(1, 11):
        s = [[p.ror(x, 8 * r) if r else x for x in sbox(p, s[r])] for r in range(4)]
        if i < 10:
            s = mixcolumns_ark(p, s, i)
        else:
            s = [[p.xor(s[r][j], p.op("lw", (rkoff(i, r, j), RKREG), hint="rk")) for j in range(8)]
                 for r in range(4)]
    u = [network(p, s[r]) for r in range(4)]       # u[r][b]: lane c = byte (r, c) of block b
    for b in range(8):
        w = [u[r][b] for r in range(4)]
        for a_, b_, m, n in BYTE_NET:
            w[a_], w[b_] = swapmove(p, w[a_], w[b_], m, n)
        for c in range(4):
            p.ops.append(("sw", None, w[COLWORD[c]], KS + 16 * b + 4 * c))
    return p


# The looped variant (rv32-barrel-loop): one round as a loop body so the CTR loop fits the 16 KiB I-cache.
ST, RKP, CNT = 324, 452, 456      # state between rounds, the round-key pointer, the round counter
SPILL_LOOP = 460


def load_state(p: Prog) -> list[list[str]]:
    return [[p.op("lw", ST + 4 * (8 * r + j), hint="st") for j in range(8)] for r in range(4)]


def store_state(p: Prog, s: list[list[str]]) -> None:
    for r in range(4):
        for j in range(8):
            p.ops.append(("sw", None, s[r][j], ST + 4 * (8 * r + j)))


def pack_counters(p: Prog) -> list[list[str]]:
    """Eight counter blocks ctr .. ctr+7 (ctr at CTR(sp)) packed, with the IV columns and round key 0."""
    ctr = p.op("lw", CTR, hint="ctr")
    q = [ctr] + [p.op("addi", ctr, b) for b in range(1, 8)]
    o = network(p, q)          # o[j] lane k bit b = bit j of counter byte k of block b = row 3 - k
    s = []
    for r in range(4):
        row = []
        for j in range(8):
            k = 3 - r
            if k == 0:
                v = p.op("slli", o[j], 24)
            else:
                v = p.op("slli", o[j], 24 - 8 * k) if k < 3 else o[j]
                v = p.op("and", v, const(p, 0xFF000000))
            row.append(p.xor(v, p.op("lw", KC + 4 * (8 * r + j), hint="k")))
        s.append(row)
    return s


def unpack_keystream(p: Prog, s: list[list[str]]) -> None:
    u = [network(p, s[r]) for r in range(4)]       # u[r][b]: lane c = byte (r, c) of block b
    for b in range(8):
        w = [u[r][b] for r in range(4)]
        for a_, b_, m, n in BYTE_NET:
            w[a_], w[b_] = swapmove(p, w[a_], w[b_], m, n)
        for c in range(4):
            p.ops.append(("sw", None, w[COLWORD[c]], KS + 16 * b + 4 * c))


def sub_shift(p: Prog, s: list[list[str]]) -> list[list[str]]:
    return [[p.ror(x, 8 * r) if r else x for x in sbox(p, s[r])] for r in range(4)]


def loop_programs(zbb: bool) -> tuple[Prog, Prog, Prog]:
    """first: counters -> state after round key 0; round: one full round, key at a3; last: round 10 (no
    MixColumns), key at a3, key stream to the frame."""
    first = Prog(zbb)
    store_state(first, pack_counters(first))
    rnd = Prog(zbb)
    store_state(rnd, mixcolumns_ark(rnd, sub_shift(rnd, load_state(rnd)), 0))
    last = Prog(zbb)
    s = sub_shift(last, load_state(last))
    s = [[last.xor(s[r][j], last.op("lw", (rkoff(0, r, j), RKREG), hint="rk")) for j in range(8)] for r in range(4)]
    unpack_keystream(last, s)
    return first, rnd, last


def run(lines: list[str], regs: dict, mem: dict) -> dict:
    """Interpret allocated code (li, lw, sw, ALU forms); mem maps addresses to words (regs hold sp, a3)."""
    regs = dict(regs)
    for line in lines:
        op, rest = line.split(" ", 1)
        a = [x.strip() for x in rest.split(",")]
        if op in ("lw", "sw"):
            off, base = a[1][:-1].split("(")
            addr = regs[base] + int(off)
            if op == "lw":
                regs[a[0]] = mem[addr]
            else:
                mem[addr] = regs[a[0]]
            continue
        if op == "li":
            regs[a[0]] = int(a[1], 0) & M32
            continue
        x = regs[a[1]]
        if op in ("slli", "srli", "rori", "addi"):
            n = int(a[2])
            y = {"slli": lambda: (x << n) & M32, "srli": lambda: x >> n, "addi": lambda: (x + n) & M32,
                 "rori": lambda: ((x >> n) | (x << (32 - n))) & M32}[op]()
        else:
            z = regs[a[2]]
            y = {"xor": x ^ z, "and": x & z, "or": x | z, "sub": (x - z) & M32}[op]
        regs[a[0]] = y
    return regs


def barrel_keys(key: bytes) -> list[int]:
    """The 352 round-key words as the C key schedule writes them."""
    out = []
    for i, cols in enumerate(expand_key(key)):
        kb = b"".join(c.to_bytes(4, "little") for c in cols)
        for r in range(4):
            for j in range(8):
                w = 0
                for c in range(4):
                    v = kb[4 * c + r] ^ (SBOX_NOT if i else 0)
                    if (v >> j) & 1:
                        w |= 0xFF << (8 * c)
                out.append(w)
    return out


SPB, RKB = 0x100000, 0x200000      # addresses of the frame and the round keys in the self-check


def generate(zbb: bool, looped: bool = False) -> str:
    check_circuit()
    assert sorted(COLWORD) == [0, 1, 2, 3]
    spill = SPILL_LOOP if looped else SPILL
    ps, iv = setup_program(zbb)
    sbody, _, sslots = allocate(ps.ops, iv, ["t0", "t1", "t2"], [], pool=CPOOL, spill=spill, reuse_slots=True)
    sbody = schedule(sbody)
    if looped:
        parts = []
        nslots = 0
        for prog in loop_programs(zbb):
            code, _, n = allocate(prog.ops, [], [], [], pool=CPOOL, spill=spill, reuse_slots=True)
            parts.append(schedule(code))
            nslots = max(nslots, n)
        fb, rb, lb = parts
        lost = stalls(rb)
        count = len(rb)
    else:
        pi = iteration_program(zbb)
        body, _, nslots = allocate(pi.ops, [], [], [], pool=CPOOL, spill=spill, reuse_slots=True)
        body = schedule(body)
        lost = stalls(body)
        count = len(body)
    frame = (spill + 4 * max(nslots, sslots) + 15) & ~15
    assert frame <= 2040

    rng = random.Random(17)
    for trial in range(4):
        key = rng.randbytes(16)
        iv = rng.randbytes(12) + (bytes([0xFF, 0xFF, 0xFF, 0xFA]) if trial == 0 else rng.randbytes(4))
        mem = {RKB + 4 * k: w for k, w in enumerate(barrel_keys(key))}
        regs = {"sp": SPB, "a3": RKB, "t0": int.from_bytes(iv[0:4], "little"),
                "t1": int.from_bytes(iv[4:8], "little"), "t2": int.from_bytes(iv[8:12], "little")}
        run(sbody, regs, mem)
        ctr = int.from_bytes(iv[12:], "big")
        mem[SPB + CTR] = ctr
        if looped:
            run(fb, {"sp": SPB, "a3": RKB}, mem)
            for t in range(1, 10):
                run(rb, {"sp": SPB, "a3": RKB + 128 * t}, mem)
            run(lb, {"sp": SPB, "a3": RKB + 1280}, mem)
        else:
            run(body, {"sp": SPB, "a3": RKB}, mem)
        for b in range(8):
            got = b"".join(mem[SPB + KS + 16 * b + 4 * c].to_bytes(4, "little") for c in range(4))
            blk = iv[:12] + ((ctr + b) & M32).to_bytes(4, "big")
            assert got == aes_encrypt_model(key, blk), (trial, b)
    if looped:
        body = fb + ["addi a3, a3, 128", "li t0, 9", f"sw t0, {CNT}(sp)", ".Laes128_barrel_round:"] + rb + \
            ["addi a3, a3, 128", f"lw t0, {CNT}(sp)", "addi t0, t0, -1", f"sw t0, {CNT}(sp)",
             "bnez t0, .Laes128_barrel_round"] + lb + [f"lw a3, {RKP}(sp)"]
    return assemble(sbody, body, frame, nslots, lost, zbb, looped, count)


def assemble(sbody: list[str], body: list[str], frame: int, nslots: int, lost: int, zbb: bool, looped: bool,
             count: int) -> str:
    name = "rv32-barrel" + ("-loop" if looped else "") + ("-zbb" if zbb else "")
    isa = "RV32I + Zbb (rori for the ShiftRows rotations)" if zbb else "RV32I"
    saves = ["ra"] + [f"s{i}" for i in range(12)]
    if looped:
        regmap = f""" * Register map: a3 = rk, inside the round loop the current round's key. The straight-line programs
 * (per-call setup; per eight blocks: the counters in; one round, the body of a loop run nine times,
 * {count} instructions with {lost} cycles of load interlock; the last round and the key stream out) use every
 * other register but zero/sp/gp/tp (ra and s0..s11 saved), values placed by a Belady allocator. The state
 * passes through the frame between rounds, so the whole CTR loop fits the E31's 16 KiB I-cache.
 * Frame ({frame} bytes): key stream at {KS}, packed IV columns ^ round key 0 at {KC}, saved registers at
 * {SAVE}, out/in/len/counter at {OUTP}..{CTR}, state at {ST}, rk and the round counter at {RKP}, {CNT},
 * {nslots} spill slots at {SPILL_LOOP}."""
    else:
        regmap = f""" * Register map: a3 = rk for the whole call. The straight-line programs (per-call setup; one 8-block
 * iteration, {count} instructions, {lost} cycles of load interlock) use every other register but
 * zero/sp/gp/tp (ra and s0..s11 saved), values placed by a Belady allocator.
 * Frame ({frame} bytes): key stream at {KS}, packed IV columns ^ round key 0 at {KC}, saved registers at
 * {SAVE}, out/in/len/counter at {OUTP}..{CTR}, {nslots} spill slots at {SPILL}."""
    L = [f"""/* SPDX-License-Identifier: MIT */
/* AES-128 (FIPS-197) counter mode, constant time: barrel-shiftrows bitslicing, eight blocks at a time,
 * for {isa}. Implementation {name}. GENERATED by gen_aes_barrel.py in this folder - edit the generator,
 * not this file.
 *
 *   void mcu_aes128_{name.replace("-", "_")}_ctr(uint8_t *out, const uint8_t *in, size_t len,
 *                                     const uint8_t *rk, const uint8_t *iv)
 *   (keyschedule and the one-block encrypt: aes_barrel_ks.c)
 *
 * rk (1408 bytes, 4-byte aligned, written by the key schedule): round key i, row r, bit j at word
 * 32i + 8r + j; its byte c is 0xff when bit j of key byte (r, c) is set (0x63 XORed in for i >= 1).
 * ctr: NIST SP 800-38A counter mode; iv = the initial counter block, its last four bytes a big-endian
 * counter incremented modulo 2^32; len any number of bytes, in/out any alignment.
 *
 * State: 32 words, word (r, j) = bit j of row r of the eight blocks, byte (r, c) of block b at bit 8c + b:
 * ShiftRows rotates row word r right by 8r bits, MixColumns is XORs of whole row words
 * (out_r = xtime(t_r) ^ a_(r+1) ^ t_(r+2), t_r = a_r ^ a_(r+1)), the S-box is the Boyar-Peralta circuit
 * (gen_aes_bitsliced.py) once per row. Per eight blocks only the counters are packed (an 8x8 transposition
 * network whose output bytes are XORed into byte 3 of the precomputed row words); the key stream is
 * unpacked to the frame (the same network per row, a 4x4 byte transposition per block), then XORed in.
 *
{regmap}
 * Constant time: no branch or address depends on the key, the message or the key stream; branches depend
 * only on len and on the alignment of the pointers. No multiply or divide.
 */
#include "mcucrypt/ns.h"

    .section .text.aes128_{name.replace("-", "_")}, "ax", @progbits
    .globl  MCU_FN(aes128, ctr)
    .type   MCU_FN(aes128, ctr), @function
    .p2align 2
MCU_FN(aes128, ctr):
    beqz    a2, .Laes128_barrel_empty"""]
    L += ind([f"addi sp, sp, -{frame}"] + [f"sw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)])
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {LEN}(sp)"] +
             ([f"sw a3, {RKP}(sp)"] if looped else []))
    L.append("    /* IV words 0..2 (little-endian, any alignment) in t0..t2; the big-endian counter to the frame */")
    ivl = []
    for c, r in enumerate(["t0", "t1", "t2"]):
        ivl.append(f"lbu {r}, {4 * c}(a4)")
        for k in range(1, 4):
            ivl += [f"lbu t3, {4 * c + k}(a4)", f"slli t3, t3, {8 * k}", f"or {r}, {r}, t3"]
    ivl += ["lbu t3, 12(a4)", "lbu t4, 13(a4)", "lbu t5, 14(a4)", "lbu t6, 15(a4)", "slli t3, t3, 24",
            "slli t4, t4, 16", "slli t5, t5, 8", "or t3, t3, t4", "or t5, t5, t6", "or t3, t3, t5",
            f"sw t3, {CTR}(sp)"]
    L += ind(schedule(ivl))
    L.append("    /* the IV columns 0..2 packed, with round key 0 */")
    L += ind(sbody)
    L.append(".Laes128_barrel_loop:")
    L.append("    /* eight counter blocks -> 128 bytes of key stream at the frame */")
    L += ind(body)
    L += ind([f"lw a0, {OUTP}(sp)", f"lw a1, {INP}(sp)", f"lw a2, {LEN}(sp)",
              "sltiu t1, a2, 128", "or t2, a0, a1", "andi t2, t2, 3", "or t1, t1, t2",
              "bnez t1, .Laes128_barrel_slow"])
    L.append("    /* 128 bytes, aligned buffers: word-wise XOR */")
    TM = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "s0", "s1", "s2", "s3", "s4"]
    fx = []
    for k in range(32):
        x, y = TM[(2 * k) % 12], TM[(2 * k + 1) % 12]
        fx += [f"lw {x}, {4 * k}(a1)", f"lw {y}, {KS + 4 * k}(sp)", f"xor {x}, {x}, {y}", f"sw {x}, {4 * k}(a0)"]
    L += ind(schedule(fx))
    L += ind(["addi a0, a0, 128", "addi a1, a1, 128", "addi a2, a2, -128"])
    L.append(".Laes128_barrel_next:")
    L += ind([f"lw t1, {CTR}(sp)", f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {LEN}(sp)",
              "addi t1, t1, 8", f"sw t1, {CTR}(sp)", "bnez a2, .Laes128_barrel_loop"])
    L += ind([f"lw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)] + [f"addi sp, sp, {frame}", "ret"])
    L.append(f"""    /* a tail (< 128 bytes) or unaligned buffers: XOR byte by byte */
.Laes128_barrel_slow:
    mv      t3, a2
    li      t4, 128
    bleu    t3, t4, .Laes128_barrel_n
    mv      t3, t4
.Laes128_barrel_n:
    sub     a2, a2, t3
    addi    t4, sp, {KS}
.Laes128_barrel_bytes:
    lbu     t5, 0(a1)
    lbu     t6, 0(t4)
    addi    a1, a1, 1
    addi    t4, t4, 1
    xor     t5, t5, t6
    sb      t5, 0(a0)
    addi    a0, a0, 1
    addi    t3, t3, -1
    bnez    t3, .Laes128_barrel_bytes
    j       .Laes128_barrel_next
.Laes128_barrel_empty:
    ret
    .size   MCU_FN(aes128, ctr), . - MCU_FN(aes128, ctr)
""")
    return "\n".join(L)


def outputs() -> dict[str, str]:
    return {"aes_barrel.S": generate(False), "aes_barrel_zbb.S": generate(True),
            "aes_barrel_loop.S": generate(False, True), "aes_barrel_loop_zbb.S": generate(True, True)}


def main() -> int:
    """Write the generated files; with --check, only report (exit 1) if the files differ from them."""
    stale = []
    for name, text in outputs().items():
        path = HERE / name
        if "--check" in sys.argv[1:]:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {name}")
    for name in stale:
        print(f"{name} differs from what {Path(__file__).name} generates: rerun it")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
