#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate aes_bs_cm3.S, the constant-time fixsliced AES-128 of implementation cm3-bitsliced (Cortex-M3):

    python3 crypto/aes/armv7m/gen_aes_bs_cm3.py          # rewrites aes_bs_cm3.S beside this script
    python3 crypto/aes/armv7m/gen_aes_bs_cm3.py --check  # exit 1 if aes_bs_cm3.S is out of date

The representation is rv32-bitsliced's (crypto/aes/rv32/gen_aes_bitsliced.py, whose S-box circuit, packing
network, key layout and AES model this generator imports; its key schedule aes_bs_ks.c is shared): two
blocks in eight 32-bit slices, byte (row r, column c) of block b at bit 8r + 2c + b, fixslicing (no
ShiftRows; MixColumns in four variants; ShiftRows^2 once on the output), the Boyar-Peralta S-box with its
NOTs in the round keys. What this generator adds for Thumb-2:

* Every rotation is a barrel-shifted operand. A row rotation is free (`eor d, a, b, ror #8`); a row plus
  byte rotation R(x) = B ^ ((A ^ B) & M) with A = ror(x, s + 8), B = ror(x, s) is three instructions:
  w = x ^ ror(x, 8); w = M & ror(w, s) (AND with a rotated operand, M in a register); R = w ^ ror(x, s).
  MixColumns costs 27 (m = 0), 51 (m = 2) and 75 (m = 1, 3) instructions instead of 76/116/156 on RV32I.
* The masks are Thumb-2 modified immediates: re-materialized by one MOV, never spilled.
* 14 registers (r0-r12, lr): the straight-line ten rounds are register-allocated by linear scan with
  Belady eviction (the value used furthest ahead is spilled to the frame; round-key words and masks are
  re-loaded or re-made, never spilled).
* The generator interprets its own allocated core (and the packing code) on random keys and blocks
  against the AES model before writing anything.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT_FILE = HERE / "aes_bs_cm3.S"
sys.path.insert(0, str(HERE.parent / "rv32"))
sys.path.insert(0, str(HERE.parents[1] / "common"))
from gen_aes_bitsliced import (GATES, NETWORK, aes_encrypt_model, check_circuit,  # noqa: E402
                               check_transpose, fixsliced_keys, rep_mask, transpose_py)
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

M32 = 0xFFFFFFFF
POOL = [f"r{i}" for i in range(13)] + ["lr"]
CORE_IN = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]

# Frame (bytes from sp), shared by encrypt and ctr.
RK = 0              # 88 expanded round-key slices
PCONST = 352        # ctr: packed IV columns 0..2 ^ round key 0
CTRW = 384          # ctr: the counter (native integer)
PIN, POUT, LEN = 388, 392, 396
CORE_RA = 400       # the core's return address
TAILN, TAILOUT = 404, 408
BUF = 416           # 32 bytes: the last partial pair of blocks
SPILL = 448         # the core's spill slots


def ror32(x: int, n: int) -> int:
    n %= 32
    return ((x >> n) | (x << (32 - n))) & M32 if n else x


# ---------------------------------------------------------------------------------------------------------
# Virtual program: (op, dst, a, b, shift) with op in eor/and/orr (d = a OP shift(b)), "mov" (d = shift(a)),
# "li" (d = immediate a), "ld" (d = the frame word at offset a). shift = None or (kind, n).

class Prog:
    def __init__(self) -> None:
        self.ops: list[tuple] = []
        self.n = 0

    def op(self, op: str, a, b=None, sh=None, hint: str = "v") -> str:
        self.n += 1
        d = f"{hint}.{self.n}"
        self.ops.append((op, d, a, b, sh))
        return d

    def eor(self, a, b, sh=None):
        return self.op("eor", a, b, sh)

    def li(self, v: int) -> str:
        return self.op("li", v, hint="m")

    def ld(self, off: int) -> str:
        return self.op("ld", off, hint="k")


def sbox(p: Prog, x: list[str]) -> list[str]:
    env = {f"x{i}": x[7 - i] for i in range(8)}
    for dst, op, a, b in GATES:
        env[dst] = p.op("eor" if op == "xor" else "and", env[a], env[b], hint=dst)
    return [env[f"s{7 - i}"] for i in range(8)]


def rot_rows_bytes(p: Prog, x: str, k: int, s: int) -> str:
    """Rows by k (8k bits) and every byte by s bits (s in 2, 4, 6): B ^ ((A ^ B) & M), A = ror(x, 8k+s),
    B = ror(x, 8k+s-8); A ^ B = ror(x ^ ror(x, 8), 8k+s-8)."""
    b = (8 * k + s - 8) % 32
    w = p.eor(x, x, ("ror", 8))
    w = p.op("and", p.li(rep_mask(0xFF >> s)), w, ("ror", b) if b else None)
    return p.eor(w, x, ("ror", b) if b else None)


def mixcolumns(p: Prog, a: list[str], m: int) -> list[str]:
    """Fixsliced MixColumns m: out = xtime(T) ^ R1(a) ^ R2(T), T = a ^ R1(a), R1 = row r+1 from column
    c+m, R2 = row r+2 from column c+2m (gen_aes_bitsliced.mixcolumns); free rotations stay operands."""
    if m == 0:
        t = [p.eor(a[j], a[j], ("ror", 8)) for j in range(8)]
        r1 = [(a[j], ("ror", 8)) for j in range(8)]
    else:
        r1v = [rot_rows_bytes(p, a[j], 1, 2 * m) for j in range(8)]
        t = [p.eor(a[j], r1v[j]) for j in range(8)]
        r1 = [(v, None) for v in r1v]
    xt = [t[7], p.eor(t[0], t[7]), t[1], p.eor(t[2], t[7]), p.eor(t[3], t[7]), t[4], t[5], t[6]]
    out = []
    s2 = (4 * m) % 8
    for j in range(8):
        o = p.eor(xt[j], r1[j][0], r1[j][1])
        if s2 == 0:
            o = p.eor(o, t[j], ("ror", 16))
        else:
            o = p.eor(o, rot_rows_bytes(p, t[j], 2, s2))
        out.append(o)
    return out


ROUND_KINDS = ["m1", "m2", "m3", "m0", "last"]   # MixColumns variant i mod 4 of rounds 1..9; round 10


def round_program(kind: str, i: int) -> tuple[Prog, list[str], list[str]]:
    """One round (S-box, MixColumns of its kind, round key i) as its own program."""
    p = Prog()
    inputs = [f"in{j}" for j in range(8)]
    s = sbox(p, inputs)
    if kind != "last":
        s = mixcolumns(p, s, int(kind[1]))
    s = [p.eor(s[j], p.ld(RK + 32 * i + 4 * j)) for j in range(8)]
    return p, inputs, s


def reorder(ops: list[tuple], order: list[int] | None) -> list[tuple]:
    if order is None:
        return list(ops)
    assert sorted(order) == list(range(len(ops)))
    new = [ops[k] for k in order]
    seen: set[str] = set()
    for op, d, a, b, sh in new:
        if op not in ("li", "ld"):
            for v in (a, b):
                assert not isinstance(v, str) or v.startswith("in") or v in seen, "order breaks a dependency"
        seen.add(d)
    return new


def core_program(orders: dict) -> tuple[Prog, list[str], list[str]]:
    """Ten rounds, each in its searched operation order, renamed into one program."""
    p = Prog()
    inputs = [f"in{j}" for j in range(8)]
    s = list(inputs)
    for i in range(1, 11):
        kind = "last" if i == 10 else f"m{i % 4}"
        rp, rin, rout = round_program(kind, i)
        ren = dict(zip(rin, s))
        for op, d, a, b, sh in reorder(rp.ops, orders.get(kind)):
            nd = f"{d}.r{i}"
            ren[d] = nd
            a2 = ren[a] if isinstance(a, str) else a
            b2 = ren[b] if isinstance(b, str) else b
            p.ops.append((op, nd, a2, b2, sh))
        s = [ren[v] for v in rout]
    return p, inputs, s


def round_cost(ops: list[tuple], inputs: list[str], outputs: list[str]) -> int:
    """Cycles of the allocated round, roughly: one an instruction, one more a load."""
    lines, _, _ = allocate(ops, inputs, CORE_IN, outputs)
    return len(lines) + sum(1 for x in lines if x.startswith("ldr"))


def search_order(kind: str, iters: int, seed: int, start: list[int] | None = None) -> list[int]:
    """Hill-climb over topological orders of one round: move one operation to a random place between its
    last operand's definition and its first use; keep the move unless the allocated round gets slower."""
    rp, rin, rout = round_program(kind, 1)
    ops = rp.ops
    n = len(ops)
    idx = {op[1]: k for k, op in enumerate(ops)}
    users: dict[int, list[int]] = {k: [] for k in range(n)}
    preds: dict[int, list[int]] = {k: [] for k in range(n)}
    for k, (op, d, a, b, sh) in enumerate(ops):
        for v in (a, b):
            if isinstance(v, str) and v in idx:
                preds[k].append(idx[v])
                users[idx[v]].append(k)
    order = list(start) if start else list(range(n))
    best = round_cost([ops[x] for x in order], rin, rout)
    rng = random.Random(seed)
    for _ in range(iters):
        pos = {o: q for q, o in enumerate(order)}
        k = rng.randrange(n)
        lo = max([pos[x] for x in preds[k]], default=-1) + 1
        hi = min([pos[x] for x in users[k]], default=n)
        cur = pos[k]
        new = order[:cur] + order[cur + 1:]
        lo2, hi2 = lo, hi - 1
        if hi2 < lo2:
            continue
        t = rng.randint(lo2, hi2)
        new.insert(t, k)
        c = round_cost([ops[x] for x in new], rin, rout)
        if c <= best:
            best, order = c, new
    return order


def shifted(v: int, sh) -> int:
    if not sh:
        return v
    kind, n = sh
    if kind == "ror":
        return ror32(v, n)
    if kind == "lsl":
        return (v << n) & M32
    return v >> n


def interpret(ops, env: dict, mem: dict) -> dict:
    env = dict(env)
    for op, d, a, b, sh in ops:
        if op == "li":
            env[d] = a
        elif op == "ld":
            env[d] = mem[a]
        elif op == "mov":
            env[d] = shifted(env[a], sh)
        elif op == "andi":
            env[d] = env[a] & b
        elif op == "eori":
            env[d] = env[a] ^ b
        elif op == "rsb":
            env[d] = (shifted(env[b], sh) - env[a]) & M32
        elif op == "st":
            mem[(sh, b)] = env[a]
        else:
            x, y = env[a], shifted(env[b], sh)
            env[d] = x ^ y if op == "eor" else x & y if op == "and" else x | y
    return env


# ---------------------------------------------------------------------------------------------------------
# Register allocation: linear scan, Belady eviction (furthest next use), spills in the frame.

def fmt_sh(sh) -> str:
    return f", {sh[0]} #{sh[1]}" if sh else ""


def allocate(ops, inputs: list[str], in_regs: list[str], outputs: list[str], pool: list[str] = POOL,
             spill_base: int = SPILL):
    """Besides eor/and/orr/mov: andi/eori (b an immediate), rsb (d = shift(b) - a) and st (store a at
    [sh, #b]: sh names the base register, outside the pool)."""
    uses: dict[str, list[int]] = {}
    for i, (op, d, a, b, sh) in enumerate(ops):
        if op in ("li", "ld"):
            continue
        for v in (a, b):
            if isinstance(v, str):
                uses.setdefault(v, []).append(i)
    end = len(ops)
    for v in outputs:
        uses.setdefault(v, []).append(end)
    remat = {d: (op, a) for op, d, a, b, sh in ops if op in ("li", "ld")}
    reg_of: dict[str, str] = dict(zip(inputs, in_regs))
    val_of: dict[str, str] = {r: v for v, r in reg_of.items()}
    free = [r for r in pool if r not in val_of]
    slot: dict[str, int] = {}
    free_slots: list[int] = []
    nslots = 0
    out: list[str] = []
    ptr: dict[str, int] = {}

    def next_use(v: str, i: int) -> int:
        us = uses.get(v, [])
        k = ptr.get(v, 0)
        while k < len(us) and us[k] < i:
            k += 1
        ptr[v] = k
        return us[k] if k < len(us) else 1 << 30

    def get_reg(i: int, keep: set[str]) -> str:
        nonlocal nslots
        if free:
            return free.pop()

        def cost(v):   # furthest next use first; among equals prefer what costs no store
            return (next_use(v, i), v in remat or v in slot)
        victim = max((v for v in val_of.values() if v not in keep), key=cost)
        r = reg_of.pop(victim)
        del val_of[r]
        if victim not in remat and victim not in slot:
            if free_slots:
                slot[victim] = free_slots.pop()
            else:
                slot[victim] = spill_base + 4 * nslots
                nslots += 1
            out.append(f"str     {r}, [sp, #{slot[victim]}]")
        return r

    def load(v: str, r: str) -> None:
        if v in remat:
            op, a = remat[v]
            out.append(f"mov     {r}, #0x{a:08x}" if op == "li" else f"ldr     {r}, [sp, #{a}]")
        else:
            out.append(f"ldr     {r}, [sp, #{slot[v]}]")
        reg_of[v] = r
        val_of[r] = v

    for i, (op, d, a, b, sh) in enumerate(ops):
        if op in ("li", "ld"):
            continue                      # made where first used
        srcs = [v for v in (a, b) if isinstance(v, str)]
        for v in srcs:
            if v not in reg_of:
                load(v, get_reg(i, set(srcs)))
        names = [reg_of[v] for v in srcs]
        for v in dict.fromkeys(srcs):
            if next_use(v, i + 1) == 1 << 30:
                if v in slot:
                    free_slots.append(slot[v])
                r = reg_of.pop(v)
                del val_of[r]
                free.append(r)
        if op == "st":
            out.append(f"str     {names[0]}, [{sh}, #{b}]")
            continue
        rd = get_reg(i, set(srcs))
        reg_of[d] = rd
        val_of[rd] = d
        if op in ("andi", "eori"):
            out.append(f"{op[:3]}     {rd}, {names[0]}, #0x{b:08x}")
        elif op == "mov":
            out.append(f"{'ror' if sh[0] == 'ror' else sh[0]}     {rd}, {names[0]}, #{sh[1]}")
        else:
            out.append(f"{op}     {rd}, {names[0]}, {names[1]}{fmt_sh(sh)}")
    out_regs = []
    for v in outputs:
        if v not in reg_of:
            load(v, get_reg(end, set(outputs)))
        out_regs.append(reg_of[v])
    return out, out_regs, nslots


# ---------------------------------------------------------------------------------------------------------
# Key schedule: FIPS-197 expansion on words, SubWord through the same circuit, and each round key written in
# the fixsliced packed form of aes_bs_ks.c (176 bytes). Two allocated subroutines (SubWord, and the
# packing in four variants, one per ShiftRows^-k) and a driver.

KS_BASE = "r12"                                  # where the round key being written goes (advances by 16)
KS_W = ["r2", "r3", "r4", "r5"]                  # the driver's key words
KS_C = ["r6", "r7", "r8", "r9"]                  # the packing routine's inputs
KS_RA = 16                                       # frame: w0..w3 at 0..15 across SubWord, its return address
KS_SPILL = 20                                    # then the subroutines' spill slots
RCON = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36]


def network_ops(p: Prog, q: list) -> list[str]:
    """The packing network as operations; None = a word known to be zero."""
    q = list(q)
    for a, b, m, n in NETWORK:
        A, B = q[a], q[b]
        if A is None and B is None:
            continue
        if A is None:
            t = p.op("andi", B, m)
            q[b] = p.eor(B, t)
            q[a] = p.op("mov", t, None, ("lsl", n))
        elif B is None:
            t = p.op("and", p.li(m), A, ("lsr", n))
            q[b] = t
            q[a] = p.eor(A, t, ("lsl", n))
        else:
            t = p.op("andi", p.eor(B, A, ("lsr", n)), m)
            q[b] = p.eor(B, t)
            q[a] = p.eor(A, t, ("lsl", n))
    return q


def pack_program(k: int) -> tuple[Prog, list[str]]:
    """Columns (NOTs already added for keys 1..10) -> ShiftRows^-k -> slices of block 0 (even bits) ->
    four packed words stored at [KS_BASE, #0..12]."""
    p = Prog()
    cols = [f"c{c}" for c in range(4)]
    inputs = list(cols)
    if k:                                         # ShiftRows^-k: P(r, c) = L(r, c - r k)
        new = []
        for c in range(4):
            acc = None
            for r in range(4):
                t = p.op("andi", cols[(c - r * k) % 4], 0xFF << (8 * r))
                acc = t if acc is None else p.op("orr", acc, t)
            new.append(acc)
        cols = new
    q = network_ops(p, [cols[0], None, cols[1], None, cols[2], None, cols[3], None])
    for j in range(4):                            # slice 2j+1 moves to the odd bits
        p.op("st", p.op("orr", q[2 * j], q[2 * j + 1], ("lsl", 1)), 4 * j, KS_BASE)
    return p, inputs


def subword_program() -> tuple[Prog, list[str], list[str]]:
    """SubWord(RotWord(w)) ^ 0x63636363 ^ (the circuit's missing NOTs added back): w's bytes spread into
    slices (slice j, byte r = 0xff * bit j of byte r: AND, then (t << 8) - t), the circuit, bits gathered."""
    p = Prog()
    m01 = p.li(0x01010101)
    x = []
    for j in range(8):
        t = p.op("and", m01, "w", ("ror", 8 + j))
        x.append(p.op("rsb", t, t, ("lsl", 8)))
    sl = sbox(p, x)
    acc = p.op("andi", sl[0], 0x01010101)
    for j in range(1, 8):
        acc = p.op("orr", acc, p.op("andi", sl[j], 0x01010101 << j))
    return p, ["w"], [p.op("eori", acc, 0x63636363)]


def keyschedule_fns() -> tuple[list[str], list[tuple[str, list[str]]], int]:
    """The driver's code and the subroutines (name, code); the frame size."""
    nmax = 0
    sp_, sin, sout = subword_program()
    body, oregs, n = allocate(sp_.ops, sin, ["r5"], sout, [r for r in POOL if r != KS_BASE], KS_SPILL)
    nmax = max(nmax, n)
    subword = [f"str     lr, [sp, #{KS_RA}]"] + body + parallel_move(oregs, ["r0"], "r1") + \
        [f"ldr     pc, [sp, #{KS_RA}]"]
    subs = [("aes128_cm3_bs_subword", subword,
             "// r0 = SubWord(RotWord(r5)) ^ 0x63636363 (the circuit without its NOTs, which the caller adds\n"
             "// back with the round key's). Called with bl from the key schedule (sp is its frame: return\n"
             f"// address at sp+{KS_RA}, spills from sp+{KS_SPILL}); clobbers every register but r12.\n")]
    packs = {}
    for k in range(4):
        pp, pin = pack_program(k)
        body, _, n = allocate(pp.ops, pin, KS_C, [], ["r0", "r1"] + KS_C + ["r10", "r11"], KS_SPILL)
        nmax = max(nmax, n)
        packs[k] = body
        subs.append((f"aes128_cm3_bs_pack{k}", body + ["bx      lr"],
                     f"// Round key (columns r6-r9; NOTs added for keys 1..10) -> ShiftRows^-{k} -> slices of one lane -> the four\n"
                     f"// packed words at [r12, #0..12]. Called with bl; clobbers r0, r1, r6-r11 (spills from sp+{KS_SPILL}).\n"))
    frame = KS_SPILL + 4 * nmax
    frame += (8 - (frame + 36) % 8) % 8
    c = [f"// {KS_BASE} = where the round key being written goes, r2-r5 = the key words w0..w3 (at sp+0..15",
         "// across SubWord), r6-r9 = a key's columns for the packing routine.",
         "push    {r4-r11, lr}", f"sub     sp, sp, #{frame}", f"mov     {KS_BASE}, r0",
         "ldr     r2, [r1]                    // key: any alignment", "ldr     r3, [r1, #4]",
         "ldr     r4, [r1, #8]", "ldr     r5, [r1, #12]"]
    c += [f"mov     {KS_C[j]}, {KS_W[j]}" for j in range(4)] + ["bl      aes128_cm3_bs_pack0"]
    for i in range(1, 11):
        c += [f"// round key {i}", f"add     {KS_BASE}, {KS_BASE}, #16"]
        c += [f"str     {KS_W[j]}, [sp, #{4 * j}]" for j in range(4)] + ["bl      aes128_cm3_bs_subword"]
        c += [f"ldr     {KS_W[j]}, [sp, #{4 * j}]" for j in range(4)]
        c += [f"eor     r2, r2, r0", f"eor     r2, r2, #0x{RCON[i - 1]:02x}", "eor     r3, r3, r2",
              "eor     r4, r4, r3", "eor     r5, r5, r4"]
        c += [f"eor     {KS_C[j]}, {KS_W[j]}, #0x63636363     // the circuit's NOTs" if j == 0 else
              f"eor     {KS_C[j]}, {KS_W[j]}, #0x63636363" for j in range(4)]
        c += [f"bl      aes128_cm3_bs_pack{i % 4}"]
    c += [f"add     sp, sp, #{frame}", "pop     {r4-r11, pc}"]
    # self-check: run the driver with the subroutines inlined, against the model's packed keys
    rng = random.Random(7)
    for _ in range(3):
        key = rng.randbytes(16)
        words = [int.from_bytes(key[4 * q:4 * q + 4], "little") for q in range(4)]
        regs = {**dict(zip(KS_W, words)), KS_BASE: 0}
        mem: dict = {}
        out: dict = {}
        for line in c[9:-2]:
            line = line.split("//")[0].strip()
            if line.startswith("bl "):
                name = line.split()[1]
                code = subword[1:-1] if name.endswith("subword") else packs[int(name[-1])]
                regs, mem = run_arm(code, regs, mem)
                if name.endswith("subword"):
                    regs["r0"] = regs[oregs[0]]
                else:
                    for key_ in [m for m in mem if isinstance(m, tuple)]:
                        out[regs[KS_BASE] + key_[1]] = mem.pop(key_)
            elif line.startswith("add") and KS_BASE in line:
                regs[KS_BASE] += 16
            else:
                regs, mem = run_arm([line], regs, mem)
        ks = fixsliced_keys(key)
        for i in range(11):
            for j in range(4):
                want = (ks[i][2 * j] & 0x55555555) | (ks[i][2 * j + 1] & 0xAAAAAAAA)
                assert out[16 * i + 4 * j] == want, (i, j)
    return c, subs, frame


# ---------------------------------------------------------------------------------------------------------
# A small interpreter of the emitted Thumb-2 forms (self-check).

def run_arm(lines: list[str], regs: dict, mem: dict) -> tuple[dict, dict]:
    regs = dict(regs)
    mem = dict(mem)
    for line in lines:
        line = line.split("//")[0].strip()
        if not line or line.endswith(":"):
            continue
        op, rest = line.split(None, 1)
        args = [x.strip() for x in rest.replace("[", "").replace("]", "").split(",")]

        def val(x: str) -> int:
            return int(x[1:], 0) if x.startswith("#") else regs[x]

        def sh_of(k: int):
            if len(args) > k:
                kind, n = args[k].split()
                return (kind, int(n[1:]))
            return None
        if op == "mov":
            regs[args[0]] = val(args[1])
        elif op == "ldr":
            regs[args[0]] = mem[int(args[2][1:])]
        elif op == "str":
            mem[int(args[2][1:]) if args[1] == "sp" else (args[1], int(args[2][1:]))] = regs[args[0]]
        elif op == "rsb":
            regs[args[0]] = (shifted(regs[args[2]], sh_of(3)) - regs[args[1]]) & M32
        elif op in ("ror", "lsl", "lsr"):
            regs[args[0]] = shifted(regs[args[1]], (op, int(args[2][1:])))
        elif op in ("eor", "and", "orr", "bic"):
            x = val(args[1])
            y = shifted(val(args[2]), sh_of(3)) if not args[2].startswith("#") else val(args[2])
            regs[args[0]] = {"eor": x ^ y, "and": x & y, "orr": x | y, "bic": x & ~y & M32}[op]
        elif op == "rev":
            regs[args[0]] = int.from_bytes(regs[args[1]].to_bytes(4, "little"), "big")
        else:
            raise AssertionError(line)
    return regs, mem


# Packing network on registers (an involution: packs and unpacks). Thumb-2: the mask is an immediate.
def emit_network(regs: list[str], zero: set[int], tmp: str) -> list[str]:
    code = []
    zero = set(zero)
    for a, b, m, n in NETWORK:
        ra, rb = regs[a], regs[b]
        if a in zero and b in zero:
            continue
        if a in zero:                         # t = b & m; b ^= t; a = t << n
            code += [f"and     {tmp}, {rb}, #0x{m:08x}", f"eor     {rb}, {rb}, {tmp}", f"lsl     {ra}, {tmp}, #{n}"]
            zero.discard(a)
        elif b in zero:                       # b = (a >> n) & m; a ^= b << n
            code += [f"lsr     {rb}, {ra}, #{n}", f"and     {rb}, {rb}, #0x{m:08x}",
                     f"eor     {ra}, {ra}, {rb}, lsl #{n}"]
            zero.discard(b)
        else:
            code += [f"eor     {tmp}, {rb}, {ra}, lsr #{n}", f"and     {tmp}, {tmp}, #0x{m:08x}",
                     f"eor     {rb}, {rb}, {tmp}", f"eor     {ra}, {ra}, {tmp}, lsl #{n}"]
    return code


def emit_sr2(regs: list[str], tmp: str) -> list[str]:
    code = []
    for b in (0, 1):
        for c in (0, 1):
            x, y = regs[2 * c + b], regs[2 * (c + 2) + b]
            code += [f"eor     {tmp}, {x}, {y}", f"and     {tmp}, {tmp}, #0xff00ff00", f"eor     {x}, {x}, {tmp}",
                     f"eor     {y}, {y}, {tmp}"]
    return code


def parallel_move(src: list[str], dst: list[str], tmp: str) -> list[str]:
    moves = {d: s for s, d in zip(src, dst) if s != d}
    code = []
    while moves:
        ready = [d for d in moves if d not in moves.values()]
        if ready:
            d = ready[0]
            code.append(f"mov     {d}, {moves.pop(d)}")
        else:
            d = next(iter(moves))
            code.append(f"mov     {tmp}, {d}")
            for k, v in moves.items():
                if v == d:
                    moves[k] = tmp
    return code


def ind(lines: list[str]) -> str:
    return "".join(f"{x}\n" if x.endswith(":") else f"    {x}\n" for x in lines)


def func(name: str, body: list[str]) -> str:
    return (f"    .section .text.MCU_FN(aes128, {name}), \"ax\", %progbits\n"
            f"    .global MCU_FN(aes128, {name})\n    .balign 4\n    .thumb_func\n"
            f"    .type MCU_FN(aes128, {name}), %function\nMCU_FN(aes128, {name}):\n"
            + ind(body) + f"    .size MCU_FN(aes128, {name}), . - MCU_FN(aes128, {name})\n\n")


def expand_code(frame: int) -> list[str]:
    """Expand the 176-byte packed round keys (pointer in r3, any alignment) into 88 slices at sp + RK:
    stored word c holds slice 2j in its even bits and slice 2j+1 in its odd bits (aes_bs_ks.c)."""
    c = ["mov     r12, sp", f"add     lr, sp, #{RK + 352}", "1:",
         "ldr     r4, [r3], #4", "ldr     r5, [r3], #4",
         "and     r6, r4, #0x55555555", "eor     r7, r4, r6", "orr     r6, r6, r6, lsl #1",
         "orr     r7, r7, r7, lsr #1",
         "and     r8, r5, #0x55555555", "eor     r9, r5, r8", "orr     r8, r8, r8, lsl #1",
         "orr     r9, r9, r9, lsr #1",
         "stmia   r12!, {r6-r9}", "cmp     r12, lr", "bne     1b"]
    return c


ORDER_FILE = HERE / "aes_bs_cm3_order.json"   # the searched operation order of each round kind


def load_orders() -> dict:
    return json.loads(ORDER_FILE.read_text()) if ORDER_FILE.exists() else {}


def generate() -> str:
    check_circuit()
    check_transpose()
    p, inputs, outputs = core_program(load_orders())
    body, out_regs, nslots = allocate(p.ops, inputs, CORE_IN, outputs)
    frame = SPILL + 4 * nslots
    frame += (8 - (frame + 36) % 8) % 8
    spare = next(r for r in POOL if r not in out_regs and r not in CORE_IN)
    gather = parallel_move(out_regs, CORE_IN, spare)
    unpack = emit_network(CORE_IN, set(), "r8") + emit_sr2(CORE_IN, "r8")

    # ---- self-check: core, networks and key layout against the AES model ----
    rng = random.Random(2026)
    for trial in range(4):
        key = rng.randbytes(16)
        blocks = [rng.randbytes(16), rng.randbytes(16)]
        ks = fixsliced_keys(key)
        mem = {RK + 32 * i + 4 * j: ks[i][j] for i in range(11) for j in range(8)}
        q = [int.from_bytes(blocks[b][4 * c:4 * c + 4], "little") for c in range(4) for b in range(2)]
        regs, _ = run_arm(emit_network(CORE_IN, set(), "r8"), dict(zip(CORE_IN, q)), {})
        s = [regs[r] ^ ks[0][j] for j, r in enumerate(CORE_IN)]
        env = interpret(p.ops, dict(zip(inputs, s)), mem)
        regs, _ = run_arm(body, dict(zip(CORE_IN, s)), mem)
        assert [regs[r] for r in out_regs] == [env[v] for v in outputs], "allocation changed the result"
        regs, _ = run_arm(gather + unpack, regs, {})
        res = [regs[r] for r in CORE_IN]
        for b in range(2):
            got = b"".join(res[2 * c + b].to_bytes(4, "little") for c in range(4))
            assert got == aes_encrypt_model(key, blocks[b]), (trial, b)
        # ctr packing: constant columns once, the two counter words through the 6-zero network
        iv = rng.randbytes(12) + rng.randbytes(4)
        qc = [int.from_bytes(iv[4 * c:4 * c + 4], "little") for c in range(3) for b in range(2)] + [0, 0]
        regs, _ = run_arm(emit_network(CORE_IN, {6, 7}, "r8"), dict(zip(CORE_IN, qc)), {})
        pc = [regs[r] ^ ks[0][j] for j, r in enumerate(CORE_IN)]
        ctr_words = [int.from_bytes(iv[12:], "little"), rng.getrandbits(32)]
        regs, _ = run_arm(emit_network(CORE_IN, set(range(6)), "r8"),
                          {**{r: 0 for r in CORE_IN}, "r6": ctr_words[0], "r7": ctr_words[1]}, {})
        full = transpose_py(qc[:6] + ctr_words)
        assert [regs[r] ^ pc[j] for j, r in enumerate(CORE_IN)] == [full[j] ^ ks[0][j] for j in range(8)]

    text = [HEADER.format(nins=len(body), nslots=nslots, frame=frame,
                          outs=", ".join(f"{i}:{r}" for i, r in enumerate(out_regs)))]
    # the core routine
    text.append("    .section .text.aes128_cm3_bs_core, \"ax\", %progbits\n    .balign 4\n    .thumb_func\n"
                "    .type aes128_cm3_bs_core, %function\n"
                "// Ten rounds on slices r0..r7 (round key 0 added); round keys at sp + RK of the caller's frame\n"
                "// (called with bl: sp is the caller's); returns the slices in r0..r7. Clobbers r8-r12, lr.\n"
                "aes128_cm3_bs_core:\n" + ind([f"str     lr, [sp, #{CORE_RA}]"] + body + gather
                                               + [f"ldr     pc, [sp, #{CORE_RA}]"])
                + "    .size aes128_cm3_bs_core, . - aes128_cm3_bs_core\n\n")
    # encrypt: both lanes carry the block
    enc = ["// r11 = in and r3 = rk during the key expansion; then the block in both lanes (r2c = r2c+1 =",
           "// column c), packed, round key 0, the core, unpacked; out at [sp, #frame] (the pushed r0).",
           "push    {r0, r4-r11, lr}", f"sub     sp, sp, #{frame}", "mov     r11, r1",
           "mov     r3, r2"] + expand_code(frame)
    enc += ["ldr     r0, [r11]", "ldr     r2, [r11, #4]", "ldr     r4, [r11, #8]", "ldr     r6, [r11, #12]",
            "mov     r1, r0", "mov     r3, r2", "mov     r5, r4", "mov     r7, r6"]
    enc += emit_network(CORE_IN, set(), "r8")
    enc += ["add     r12, sp, #%d" % RK, "ldmia   r12, {r8-r11}", "eor     r0, r0, r8", "eor     r1, r1, r9",
            "eor     r2, r2, r10", "eor     r3, r3, r11", "add     r12, r12, #16", "ldmia   r12, {r8-r11}",
            "eor     r4, r4, r8", "eor     r5, r5, r9", "eor     r6, r6, r10", "eor     r7, r7, r11",
            "bl      aes128_cm3_bs_core"]
    enc += unpack
    enc += [f"ldr     r8, [sp, #{frame}]", "str     r0, [r8]", "str     r2, [r8, #4]", "str     r4, [r8, #8]",
            "str     r6, [r8, #12]", f"add     sp, sp, #{frame}", "pop     {r0, r4-r11, pc}"]
    text.append(func("encrypt", enc))
    text.append(func("ctr", ctr_code(frame, unpack)))
    ks, subs, _ = keyschedule_fns()
    text.append(func("keyschedule", ks))
    for name, code, doc in subs:
        text.append(f"    .section .text.{name}, \"ax\", %progbits\n    .balign 4\n    .thumb_func\n"
                    f"    .type {name}, %function\n{doc}{name}:\n" + ind(code) + f"    .size {name}, . - {name}\n\n")
    return "".join(text)


# ctr's entry (after the push): refuse (-1, nothing written) a length whose blocks would wrap the low
# 32-bit counter word, (len - 1) / 16 > 2^32 - 1 - counter.
CTR32_WRAP_CHECK = ['ldr     r4, [sp, #36]               // iv (fifth argument)', 'ldr     r4, [r4, #12]               // the counter word: iv[12..15] big-endian, any alignment', 'rev     r4, r4', 'mvn     r4, r4                      // the blocks left after it: 2^32 - 1 - counter', "subs    r5, r2, #1                  // the last block's offset: (len - 1) / 16, 0 for len 0", 'lsr     r5, r5, #4', 'it      cc', 'movcc   r5, #0', 'cmp     r4, r5', 'bhs     1f', 'mov     r0, #-1                     // the low counter word would wrap: refuse, nothing written', 'pop     {r4-r11, pc}', '1:']


def ctr_code(frame: int, unpack: list[str]) -> list[str]:
    c = ["// out, in, len and the counter live in the frame; r0-r7 = the eight words being packed, then the",
         "// slices; r8 = network temp; r10 = iv while the constant columns are packed.",
         "push    {r4-r11, lr}"] + CTR32_WRAP_CHECK + [f"sub     sp, sp, #{frame}",
         f"ldr     r10, [sp, #{frame + 36}]      // iv (fifth argument)",
         f"str     r0, [sp, #{POUT}]", f"str     r1, [sp, #{PIN}]", f"str     r2, [sp, #{LEN}]",
         "movs    r4, #0", f"str     r4, [sp, #{TAILN}]"]
    c += expand_code(frame)
    # constant columns 0..2 of both blocks, counter column zero, packed; ^ round key 0
    c += ["ldr     r0, [r10]                   // iv: any alignment", "ldr     r2, [r10, #4]",
          "ldr     r4, [r10, #8]", "ldr     r11, [r10, #12]", "mov     r1, r0", "mov     r3, r2",
          "mov     r5, r4", "rev     r11, r11", f"str     r11, [sp, #{CTRW}]"]
    c += emit_network(CORE_IN, {6, 7}, "r8")
    for j in range(8):
        c += [f"ldr     r8, [sp, #{RK + 4 * j}]", f"eor     r{j}, r{j}, r8", f"str     r{j}, [sp, #{PCONST + 4 * j}]"]
    c += [f"ldr     r0, [sp, #{LEN}]", "cmp     r0, #32", "blo     .Lctr_tail"]
    c += [".Lctr_pair:", f"ldr     r0, [sp, #{CTRW}]", "adds    r1, r0, #1", "adds    r2, r0, #2",
          f"str     r2, [sp, #{CTRW}]", "rev     r6, r0", "rev     r7, r1"]
    c += emit_network(CORE_IN, set(range(6)), "r8")
    for j in range(8):
        c += [f"ldr     r8, [sp, #{PCONST + 4 * j}]", f"eor     r{j}, r{j}, r8"]
    c += ["bl      aes128_cm3_bs_core"] + unpack
    # block b column c in r(2c+b): XOR with 32 bytes of input (any alignment)
    c += [f"ldr     r8, [sp, #{PIN}]", f"ldr     r9, [sp, #{POUT}]"]
    for b in range(2):
        for col in range(4):
            c += [f"ldr     r10, [r8, #{16 * b + 4 * col}]", f"eor     r10, r10, r{2 * col + b}",
                  f"str     r10, [r9, #{16 * b + 4 * col}]"]
    c += ["add     r8, r8, #32", "add     r9, r9, #32", f"str     r8, [sp, #{PIN}]", f"str     r9, [sp, #{POUT}]",
          f"ldr     r0, [sp, #{LEN}]", "subs    r0, r0, #32", f"str     r0, [sp, #{LEN}]", "cmp     r0, #32",
          "bhs     .Lctr_pair"]
    c += [".Lctr_tail:", f"ldr     r0, [sp, #{LEN}]", "cbz     r0, .Lctr_done",
          f"str     r0, [sp, #{TAILN}]", f"ldr     r2, [sp, #{PIN}]", f"ldr     r3, [sp, #{POUT}]",
          f"str     r3, [sp, #{TAILOUT}]", f"add     r4, sp, #{BUF}",
          "2:", "subs    r0, r0, #1", "ldrb    r5, [r2, r0]", "strb    r5, [r4, r0]", "bne     2b",
          f"str     r4, [sp, #{PIN}]", f"str     r4, [sp, #{POUT}]", "movs    r0, #32", f"str     r0, [sp, #{LEN}]",
          "b       .Lctr_pair",
          ".Lctr_done:", f"ldr     r0, [sp, #{TAILN}]", "cbz     r0, .Lctr_exit",
          f"ldr     r3, [sp, #{TAILOUT}]", f"add     r4, sp, #{BUF}",
          "3:", "subs    r0, r0, #1", "ldrb    r5, [r4, r0]", "strb    r5, [r3, r0]", "bne     3b",
          ".Lctr_exit:", f"add     sp, sp, #{frame}", "movs    r0, #0", "pop     {r4-r11, pc}"]
    return c


HEADER = """// SPDX-License-Identifier: MIT
/* AES-128 (FIPS-197), constant time: fixsliced, two blocks at a time, on the Cortex-M3. Implementation
 * cm3-bitsliced. GENERATED by gen_aes_bs_cm3.py in this folder - edit the generator, not this file.
 *
 *   void mcu_aes128_cm3_bitsliced_encrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk);
 *   int mcu_aes128_cm3_bitsliced_ctr(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *rk,
 *                                    const uint8_t *iv);
 *     ctr returns 0, or -1 with nothing written when its blocks would wrap the counter word: (len - 1) / 16 above
 * 2^32 - 1 - counter (the full 128-bit increment is ctr128, crypto/aes/ref/aes_ctr128.c).
 *   void mcu_aes128_cm3_bitsliced_keyschedule(uint8_t *rk, const uint8_t *key);
 *
 * rk (176 bytes, any alignment): the 11 fixsliced round keys packed two slices a word, the format of
 * rv32-bitsliced's aes_bs_ks.c (key i = ShiftRows^-(i mod 4) of round key i, ^0x63 for i >= 1). The key
 * schedule: FIPS-197 on words; SubWord(RotWord(w)) in a subroutine (w's bytes spread to slices, byte r of
 * slice j = 0xff * bit j: AND with a rotated operand, then RSB t, t, t, LSL #8; the circuit; the bits
 * gathered back); each key packed by one of four subroutines (ShiftRows^-k by byte masks, the packing
 * network with the odd lanes known zero, slice 2j+1 ORed in at the odd bits). encrypt and ctr expand the
 * round keys to 88 slices in the frame first (LDR, 4 ALU and an STM per pair of slices).
 * ctr: NIST SP 800-38A; iv = the initial counter block, its last four bytes a big-endian counter (mod
 * 2^32); any len: the last partial pair of blocks goes through a 32-byte frame buffer.
 *
 * Techniques (docs/aes-armv7m.md): two blocks in eight 32-bit slices (byte (row r, column c) of block b at
 * bit 8r + 2c + b); fixslicing (Adomnicai and Peyrin, TCHES 2021/1): ShiftRows never computed, MixColumns in
 * four variants whose row and byte rotations are barrel-shifted operands (a row+byte rotation is
 * w = x ^ ror(x, 8); w = M & ror(w, s); w ^ ror(x, s)); masks as modified immediates; the Boyar-Peralta
 * S-box (its NOTs folded into the round keys); ShiftRows^2 once on the output words. CTR packs the IV's
 * constant columns once a call; per pair of blocks only the two counter words go through the packing
 * network (six known-zero inputs).
 * The ten rounds are straight-line code ({nins} instructions) register-allocated over r0-r12 and lr by the
 * generator (linear scan, Belady eviction, {nslots} spill slots); the core returns slice i in r_i.
 * Frame ({frame} bytes): round-key slices, ctr's packed constants, pointers, a 32-byte buffer, spills.
 * Constant time: no branch or address depends on the key or the data (only on len), no multiply or divide.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--search", type=int, default=0, metavar="N",
                    help="hill-climb N moves per round kind and store the orders in aes_bs_cm3_order.json")
    a = ap.parse_args()
    if a.search:
        orders = load_orders()
        for kind in ROUND_KINDS:
            rp, rin, rout = round_program(kind, 1)
            before = round_cost(reorder(rp.ops, orders.get(kind)), rin, rout)
            order = search_order(kind, a.search, seed=len(kind) + len(orders), start=orders.get(kind))
            after = round_cost([rp.ops[k] for k in order], rin, rout)
            print(f"{kind}: {before} -> {after}")
            if after < before:
                orders[kind] = order
        ORDER_FILE.write_text(json.dumps(orders) + "\n")
    return write_or_check({OUT_FILE: generate()}, a.check, __file__)


if __name__ == "__main__":
    sys.exit(main())
