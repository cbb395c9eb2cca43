#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the constant-time barrel-shiftrows AES-128 for RV32: aes_barrel.S (implementation rv32-barrel,
RV32I instructions) and aes_barrel_zbb.S (rv32-barrel-zbb: Zbb rori for the ShiftRows rotations).

    python3 crypto/aes/rv32/gen_aes_barrel.py [--check]

Technique (docs/baselines.md): eight blocks in 32 words, word (r, j) = bit j of row r of every block, the
byte (row r, column c) of block b at bit 8c + b. ShiftRows is then a rotation of each row word by 8r bits
(the "barrel-shiftrows" representation of Adomnicai and Peyrin, TCHES 2021/1), and MixColumns is XORs
between whole row words, no rotation at all: out_r = xtime(t_r) ^ a_{r+1} ^ t_{r+2} with t_r = a_r ^ a_{r+1}
(108 XOR a round). The S-box is the Boyar-Peralta circuit of gen_aes_bitsliced.py (its NOTs in the round
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

from gen_aes_bitsliced import (NETWORK, SBOX_NOT, POOL, Prog, allocate, aes_encrypt_model, check_circuit, ctr_wrap_check,
                               expand_key, ind, li, sbox)
from rv32sched import schedule, stalls

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

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


def setup_program(zbb: bool, kc: int = KC) -> tuple[Prog, list[str]]:
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
            p.ops.append(("sw", None, v, kc + 4 * (8 * r + j)))
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
# Between rounds row 0 of the state stays in LOOP_REGS (the loop-carried registers) and rows 1..3 pass
# through the frame. Inside a round the S-box outputs of rows 0..2 (rotated) go to BUF and come back one
# column at a time for MixColumns, whose outputs are stored as soon as they are made: per round 24 + 24 + 24
# + 24 words cross memory, the fewest this order of work allows with 27 registers. The frame slots used per
# round sit below 256 bytes (compressed c.lwsp/c.swsp).
LOOP_REGS = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]
L_ST, L_BUF, L_SPILL = 0, 96, 192           # state rows 1..3; S-box outputs rows 0..2; spill slots
L_KS, L_KC, L_SAVE = 256, 384, 512           # key stream, packed IV ^ round key 0, saved registers
L_OUTP, L_INP, L_LEN, L_CTR, L_RKP, L_END = 564, 568, 572, 576, 580, 584
L_SPILL2 = 588                               # spill slots of the per-call and per-8-block programs


def pack_counters(p: Prog, ctr_off: int = CTR, kc: int = KC) -> list[list[str]]:
    """Eight counter blocks ctr .. ctr+7 (ctr at ctr_off(sp)) packed, with the IV columns and round key 0
    (at kc(sp))."""
    ctr = p.op("lw", ctr_off, hint="ctr")
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
            row.append(p.xor(v, p.op("lw", kc + 4 * (8 * r + j), hint="k")))
        s.append(row)
    return s


def unpack_keystream(p: Prog, s: list[list[str]], ks: int = KS) -> None:
    u = [network(p, s[r]) for r in range(4)]       # u[r][b]: lane c = byte (r, c) of block b
    for b in range(8):
        w = [u[r][b] for r in range(4)]
        for a_, b_, m, n in BYTE_NET:
            w[a_], w[b_] = swapmove(p, w[a_], w[b_], m, n)
        for c in range(4):
            p.ops.append(("sw", None, w[COLWORD[c]], ks + 16 * b + 4 * c))


FLAT_FRAME = {"ks": KS, "kc": KC, "save": SAVE, "outp": OUTP, "inp": INP, "len": LEN, "ctr": CTR, "spill": SPILL}
LOOP_FRAME = {"ks": L_KS, "kc": L_KC, "save": L_SAVE, "outp": L_OUTP, "inp": L_INP, "len": L_LEN, "ctr": L_CTR,
              "spill": L_SPILL}


def l_st(r: int, j: int) -> int:
    return L_ST + 4 * (8 * (r - 1) + j)


def l_buf(r: int, j: int) -> int:
    return L_BUF + 4 * (8 * r + j)


def _sbox_order() -> list[tuple]:
    """The Boyar-Peralta gates in an order with at most 25 values live at once (the published order needs
    29, which makes the allocator spill inside every S-box): greedy topological orders that prefer the gate
    freeing the most operands, ties broken by a seeded random draw; the first that reaches 25."""
    from gen_aes_bitsliced import GATES
    rng = random.Random(1)

    def live_peak(order: list[tuple]) -> int:
        last = {}
        for i, (d, op, a, b) in enumerate(order):
            last[a] = last[b] = i
        live = {f"x{i}" for i in range(8)}
        peak = len(live)
        for i, (d, op, a, b) in enumerate(order):
            live -= {v for v in (a, b) if last[v] == i}
            live.add(d)
            peak = max(peak, len(live))
        return peak
    while True:
        rem: dict[str, set[int]] = {}
        for i, g in enumerate(GATES):
            for v in g[2:]:
                rem.setdefault(v, set()).add(i)
        avail = {f"x{i}" for i in range(8)}
        order: list[tuple] = []
        todo = set(range(len(GATES)))
        while todo:
            ready = [i for i in sorted(todo) if GATES[i][2] in avail and GATES[i][3] in avail]
            i = min(ready, key=lambda k: (-sum(1 for v in set(GATES[k][2:]) if rem[v] == {k}), rng.random()))
            todo.discard(i)
            order.append(GATES[i])
            avail.add(GATES[i][0])
            for v in GATES[i][2:]:
                rem[v].discard(i)
        if live_peak(order) <= 25:
            return order


SBOX_ORDER = _sbox_order()


def sbox_loop(p: Prog, x: list[str]) -> list[str]:
    """sbox() with the gates in SBOX_ORDER."""
    env = {f"x{i}": x[7 - i] for i in range(8)}
    for dst, op, a, b in SBOX_ORDER:
        env[dst] = p.op(op, env[a], env[b], hint=dst)
    return [env[f"s{7 - i}"] for i in range(8)]


def mixcolumns_ark_store(p: Prog, a: list[list[str]], store) -> None:
    """mixcolumns_ark with round key 0 at a3 whose every output word goes to store(r, j, value) as soon
    as it is made (few values live)."""
    t: dict[tuple[int, int], str] = {}

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
            store(r, j, p.xor(v, p.op("lw", (rkoff(0, r, j), RKREG), hint="rk")))


def sub_shift_loop(p: Prog, row0: list[str], buffered: bool) -> list[list[str]]:
    """SubBytes and ShiftRows of the state (row 0 given, rows 1..3 from the frame). buffered: rows 0..2
    go out to BUF once made and are read back where used, row 3 stays in registers."""
    out = []
    for r in range(4):
        x = row0 if r == 0 else [p.op("lw", l_st(r, j), hint="st") for j in range(8)]
        y = [p.ror(v, 8 * r) if r else v for v in sbox_loop(p, x)]
        if buffered and r < 3:
            for j in range(8):
                p.ops.append(("sw", None, y[j], l_buf(r, j)))
            y = [p.op("lw", l_buf(r, j), hint="b") for j in range(8)]
        out.append(y)
    return out


def loop_programs(zbb: bool) -> tuple[tuple[Prog, list[str]], ...]:
    """(program, loop-carried inputs, loop-carried outputs) for first: counters -> state after round key 0;
    round: one full round, key at a3; last: round 10 (no MixColumns), key at a3, key stream to the frame."""
    first = Prog(zbb)
    s = pack_counters(first, L_CTR, L_KC)
    first_row = s[0]
    for r in range(1, 4):
        for j in range(8):
            first.ops.append(("sw", None, s[r][j], l_st(r, j)))
    rnd = Prog(zbb)
    row0 = [f"row0.{j}" for j in range(8)]
    a = sub_shift_loop(rnd, row0, True)
    outs: dict[int, str] = {}

    def keep(r: int, j: int, v: str) -> None:
        if r == 0:
            outs[j] = v
        else:
            rnd.ops.append(("sw", None, v, l_st(r, j)))
    mixcolumns_ark_store(rnd, a, keep)
    last = Prog(zbb)
    s = sub_shift_loop(last, row0, False)
    s = [[last.xor(s[r][j], last.op("lw", (rkoff(0, r, j), RKREG), hint="rk")) for j in range(8)] for r in range(4)]
    unpack_keystream(last, s, L_KS)
    return (first, [], first_row), (rnd, row0, [outs[j] for j in range(8)]), (last, row0, [])


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
        if op == "mv":
            regs[a[0]] = x
            continue
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
    F = LOOP_FRAME if looped else FLAT_FRAME
    ps, iv = setup_program(zbb, F["kc"])
    sbody, _, sslots = allocate(ps.ops, iv, ["t0", "t1", "t2"], [], pool=CPOOL,
                                spill=L_SPILL2 if looped else SPILL, reuse_slots=True)
    sbody = schedule(sbody)
    if looped:
        parts = []
        slots = []
        for k, (prog, ins, outs) in enumerate(loop_programs(zbb)):
            code, oregs, n = allocate(prog.ops, ins, LOOP_REGS[:len(ins)], outs, pool=CPOOL,
                                      spill=L_SPILL if k == 1 else L_SPILL2, reuse_slots=True,
                                      pin=dict(zip(outs, LOOP_REGS)))
            assert oregs == LOOP_REGS[:len(outs)]
            parts.append(schedule(code))
            slots.append(n)
        fb, rb, lb = parts
        lost = stalls(rb)
        count = len(rb)
        nslots = slots[1]
        assert L_SPILL + 4 * nslots <= L_KS, "the round's spill slots overrun the key stream"
        frame = (L_SPILL2 + 4 * max(slots[0], slots[2], sslots) + 15) & ~15
    else:
        pi = iteration_program(zbb)
        body, _, nslots = allocate(pi.ops, [], [], [], pool=CPOOL, spill=F["spill"], reuse_slots=True)
        body = schedule(body)
        lost = stalls(body)
        count = len(body)
        frame = (F["spill"] + 4 * max(nslots, sslots) + 15) & ~15
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
        mem[SPB + F["ctr"]] = ctr
        if looped:
            regs = run(fb, {"sp": SPB, "a3": RKB}, mem)
            for t in range(1, 10):
                regs = run(rb, {"sp": SPB, "a3": RKB + 128 * t, **{r: regs[r] for r in LOOP_REGS}}, mem)
            run(lb, {"sp": SPB, "a3": RKB + 1280, **{r: regs[r] for r in LOOP_REGS}}, mem)
        else:
            run(body, {"sp": SPB, "a3": RKB}, mem)
        for b in range(8):
            got = b"".join(mem[SPB + F["ks"] + 16 * b + 4 * c].to_bytes(4, "little") for c in range(4))
            blk = iv[:12] + ((ctr + b) & M32).to_bytes(4, "big")
            assert got == aes_encrypt_model(key, blk), (trial, b)
    if looped:
        # rounds 1..9: a3 steps through the round keys; the loop ends when it reaches round key 10
        body = fb + ["addi a3, a3, 128", ".Laes128_barrel_round:"] + rb + \
            [f"lw t0, {L_END}(sp)", "addi a3, a3, 128", "bne a3, t0, .Laes128_barrel_round"] + lb + \
            [f"lw a3, {L_RKP}(sp)"]
    return assemble(sbody, body, frame, nslots, lost, zbb, looped, count)


def assemble(sbody: list[str], body: list[str], frame: int, nslots: int, lost: int, zbb: bool, looped: bool,
             count: int) -> str:
    name = "rv32-barrel" + ("-loop" if looped else "") + ("-zbb" if zbb else "")
    isa = "RV32I + Zbb (rori for the ShiftRows rotations)" if zbb else "RV32I"
    saves = ["ra"] + [f"s{i}" for i in range(12)]
    F = LOOP_FRAME if looped else FLAT_FRAME
    KS, KC, SAVE, OUTP, INP, LEN, CTR = (F[k] for k in ("ks", "kc", "save", "outp", "inp", "len", "ctr"))
    if looped:
        regmap = f""" * Register map: a3 = rk, inside the round loop the current round's key. The straight-line programs
 * (per-call setup; per eight blocks: the counters in; one round, the body of a loop run nine times,
 * {count} instructions with {lost} cycles of load interlock; the last round and the key stream out) use every
 * other register but zero/sp/gp/tp (ra and s0..s11 saved), values placed by a Belady allocator.
 * Loop-carried: row 0 of the state in {LOOP_REGS[0]}..{LOOP_REGS[-1]} (bit 0..7); rows 1..3 pass through the
 * frame. Per round, SubBytes row by row (the Boyar-Peralta gates reordered so that at most 25 values are
 * live: no spill inside an S-box), rows 0..2 rotated and stored, row 3 kept; then MixColumns + AddRoundKey
 * column slice by column slice, each output word stored when made (row 0 kept in the loop registers).
 * The whole CTR loop fits the E31's 16 KiB I-cache.
 * Frame ({frame} bytes): state rows 1..3 at {L_ST}, S-box outputs rows 0..2 at {L_BUF}, {nslots} spill
 * slots of the round at {L_SPILL} (all below 256: compressed loads and stores), key stream at {KS}, packed IV
 * columns ^ round key 0 at {KC}, saved registers at {SAVE}, out/in/len/counter at {OUTP}..{CTR}, rk and
 * the end of the round keys (rk + 1280) at {L_RKP}, {L_END}, spill slots of the other programs at {L_SPILL2}."""
    else:
        regmap = f""" * Register map: a3 = rk for the whole call. The straight-line programs (per-call setup; one 8-block
 * iteration, {count} instructions, {lost} cycles of load interlock) use every other register but
 * zero/sp/gp/tp (ra and s0..s11 saved), values placed by a Belady allocator.
 * Frame ({frame} bytes): key stream at {KS}, packed IV columns ^ round key 0 at {KC}, saved registers at
 * {SAVE}, out/in/len/counter at {OUTP}..{CTR}, {nslots} spill slots at {F["spill"]}."""
    L = [f"""/* SPDX-License-Identifier: MIT */
/* AES-128 (FIPS-197) counter mode, constant time: barrel-shiftrows bitslicing, eight blocks at a time,
 * for {isa}. Implementation {name}. GENERATED by gen_aes_barrel.py in this folder - edit the generator,
 * not this file.
 *
 *   int mcu_aes128_{name.replace("-", "_")}_ctr(uint8_t *out, const uint8_t *in, size_t len,
 *                                    const uint8_t *rk, const uint8_t *iv)
 *   (keyschedule and the one-block encrypt: aes_barrel_ks.c)
 *
 * rk (1408 bytes, 4-byte aligned, written by the key schedule): round key i, row r, bit j at word
 * 32i + 8r + j; its byte c is 0xff when bit j of key byte (r, c) is set (0x63 XORed in for i >= 1).
 * ctr: NIST SP 800-38A counter mode; iv = the initial counter block, its last four bytes a big-endian
 * counter incremented modulo 2^32; len any number of bytes, in/out any alignment; returns 0, or -1 with nothing written when its blocks would wrap the counter word: (len - 1) / 16 above
 * 2^32 - 1 - counter (the full 128-bit increment is ctr128, crypto/aes/ref/aes_ctr128.c).
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
{ctr_wrap_check('aes128_barrel')}"""]
    L += ind([f"addi sp, sp, -{frame}"] + [f"sw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)])
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {LEN}(sp)"] +
             ([f"sw a3, {L_RKP}(sp)", "addi t0, a3, 1280", f"sw t0, {L_END}(sp)"] if looped else []))
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
    L += ind(["li a0, 0"] + [f"lw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)] + [f"addi sp, sp, {frame}", "ret"])
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
    li      a0, 0
    ret
.Laes128_barrel_wraps:
    li      a0, -1
    ret
    .size   MCU_FN(aes128, ctr), . - MCU_FN(aes128, ctr)
""")
    return "\n".join(L)


def outputs() -> dict[str, str]:
    return {"aes_barrel.S": generate(False), "aes_barrel_zbb.S": generate(True),
            "aes_barrel_loop.S": generate(False, True), "aes_barrel_loop_zbb.S": generate(True, True)}


def main() -> int:
    """Write the generated files; with --check, only report (exit 1) if the files differ from them."""
    return write_or_check({HERE / n: t for n, t in outputs().items()}, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    raise SystemExit(main())
