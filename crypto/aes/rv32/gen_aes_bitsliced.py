#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the constant-time fixsliced AES-128 for RV32: aes_bitsliced.S (implementation rv32-bitsliced,
RV32I instructions), aes_bitsliced_zbb.S (rv32-bitsliced-zbb: Zbb rotations) and aes_bs_sbox.h (the S-box
circuit in C, for the key schedule aes_bs_ks.c that both share).

    python3 crypto/aes/rv32/gen_aes_bitsliced.py

Before writing anything the generator runs its own output: a Python interpreter executes the exact
instruction-level program of the ten rounds (and the packing networks) and compares AES-128 and CTR
results with an AES model (gen_aes_table.SBOX, itself computed from the S-box definition). The method is
explained in docs/baselines.md; in short:

- State: two blocks in eight 32-bit slices; slice i holds bit i of every byte, byte (row r, column c) of
  block b at bit 8r + 2c + b. A row is one byte of the word, so MixColumns' row rotations are 32-bit
  rotations by 8 and 16.
- Fixslicing (Adomnicai and Peyrin, TCHES 2021/1): ShiftRows is never computed. After round i the
  state is ShiftRows^-(i mod 4) of the true one; MixColumns of round i then has to take row r+1 from
  column c + m (m = i mod 4), a byte-wise rotation by 2m bits on top of the rotation by 8. The round keys
  carry the same ShiftRows^-(i mod 4) (key schedule), and after round 10 (m = 2) one ShiftRows^2
  on the output words (rows 1 and 3 of columns c and c+2 swapped: 4 instructions per column pair) restores
  the true state.
- S-box: the Boyar-Peralta circuit (ePrint 2009/191, 2011/332), 115 XOR/AND gates in this form; its four
  NOTs (the 0x63 of the affine map) are folded into round keys 1..10 (MixColumns maps 0x63 in every byte
  to itself).
- CTR: blocks differ only in the counter column, so the packed IV columns (with round key 0) are computed
  once per call and only the two counter words go through a (mostly zero, 24-instruction) packing network
  per pair of blocks.
- Zbb (rv32-bitsliced-zbb): a rotation is one rori instead of three instructions, and a row rotation
  combined with a column rotation becomes two rori and a masked merge (5 instructions instead of 8), which
  takes MixColumns from 1164 to 780 instructions per ten rounds; rev8 byte-swaps the counter.
- Ten rounds of straight-line code; values are given registers by a linear-scan allocator with Belady
  eviction (furthest next use; constants and round-key words are re-materialized, never spilled) over all
  28 registers but zero/sp/gp/tp, then ordered by rv32sched so no load result is used too early.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from gen_aes_table import SBOX
from rv32sched import schedule, stalls

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)


def ctr_wrap_check(prefix: str) -> str:
    """The entry of ctr (the bitsliced and the barrel generators): refuse, before anything is written, a
    length whose last block would wrap the low 32-bit counter word; len 0 goes to .L<prefix>_empty, a
    refusal to .L<prefix>_wraps, the rest on at .L<prefix>_checked. One block never wraps, and is not
    read: encrypt passes its secret block as the counter block."""
    return f'''    beqz    a2, .L{prefix}_empty
    addi    t5, a2, -1              /* the last block's offset from the counter: (len - 1) / 16 */
    srli    t5, t5, 4
    beqz    t5, .L{prefix}_checked      /* one block cannot wrap (encrypt passes its secret block as iv) */
    lbu     t0, 12(a4)              /* the counter: iv[12..15], big-endian, any alignment */
    lbu     t1, 13(a4)
    lbu     t2, 14(a4)
    lbu     t3, 15(a4)
    slli    t0, t0, 24
    slli    t1, t1, 16
    slli    t2, t2, 8
    or      t0, t0, t1
    or      t2, t2, t3
    or      t0, t0, t2
    not     t6, t0                  /* the blocks left after it: 2^32 - 1 - counter */
    bltu    t6, t5, .L{prefix}_wraps        /* the low counter word would wrap: refuse, nothing written */
.L{prefix}_checked:'''


HERE = Path(__file__).resolve().parent
M32 = 0xFFFFFFFF

# ---------------------------------------------------------------------------------------------------------
# The S-box circuit of Boyar and Peralta, as published (x0 = most significant input bit, s0 = most
# significant output bit). '~' outputs are XNORs in the paper; here they are plain XORs and the missing
# complement (0x63 on bits 6, 5, 1, 0) goes into the round keys.
BP_CIRCUIT = """
y14 = x3 ^ x5; y13 = x0 ^ x6; y9 = x0 ^ x3; y8 = x0 ^ x5; t0 = x1 ^ x2; y1 = t0 ^ x7; y4 = y1 ^ x3
y12 = y13 ^ y14; y2 = y1 ^ x0; y5 = y1 ^ x6; y3 = y5 ^ y8; t1 = x4 ^ y12; y15 = t1 ^ x5; y20 = t1 ^ x1
y6 = y15 ^ x7; y10 = y15 ^ t0; y11 = y20 ^ y9; y7 = x7 ^ y11; y17 = y10 ^ y11; y19 = y10 ^ y8
y16 = t0 ^ y11; y21 = y13 ^ y16; y18 = x0 ^ y16
t2 = y12 & y15; t3 = y3 & y6; t4 = t3 ^ t2; t5 = y4 & x7; t6 = t5 ^ t2; t7 = y13 & y16; t8 = y5 & y1
t9 = t8 ^ t7; t10 = y2 & y7; t11 = t10 ^ t7; t12 = y9 & y11; t13 = y14 & y17; t14 = t13 ^ t12
t15 = y8 & y10; t16 = t15 ^ t12; t17 = t4 ^ t14; t18 = t6 ^ t16; t19 = t9 ^ t14; t20 = t11 ^ t16
t21 = t17 ^ y20; t22 = t18 ^ y19; t23 = t19 ^ y21; t24 = t20 ^ y18; t25 = t21 ^ t22; t26 = t21 & t23
t27 = t24 ^ t26; t28 = t25 & t27; t29 = t28 ^ t22; t30 = t23 ^ t24; t31 = t22 ^ t26; t32 = t31 & t30
t33 = t32 ^ t24; t34 = t23 ^ t33; t35 = t27 ^ t33; t36 = t24 & t35; t37 = t36 ^ t34; t38 = t27 ^ t36
t39 = t29 & t38; t40 = t25 ^ t39; t41 = t40 ^ t37; t42 = t29 ^ t33; t43 = t29 ^ t40; t44 = t33 ^ t37
t45 = t42 ^ t41
z0 = t44 & y15; z1 = t37 & y6; z2 = t33 & x7; z3 = t43 & y16; z4 = t40 & y1; z5 = t29 & y7
z6 = t42 & y11; z7 = t45 & y17; z8 = t41 & y10; z9 = t44 & y12; z10 = t37 & y3; z11 = t33 & y4
z12 = t43 & y13; z13 = t40 & y5; z14 = t29 & y2; z15 = t42 & y9; z16 = t45 & y14; z17 = t41 & y8
t46 = z15 ^ z16; t47 = z10 ^ z11; t48 = z5 ^ z13; t49 = z9 ^ z10; t50 = z2 ^ z12; t51 = z2 ^ z5
t52 = z7 ^ z8; t53 = z0 ^ z3; t54 = z6 ^ z7; t55 = z16 ^ z17; t56 = z12 ^ t48; t57 = t50 ^ t53
t58 = z4 ^ t46; t59 = z3 ^ t54; t60 = t46 ^ t57; t61 = z14 ^ t57; t62 = t52 ^ t58; t63 = t49 ^ t58
t64 = z4 ^ t59; t65 = t61 ^ t62; t66 = z1 ^ t63; s0 = t59 ^ t63; s6 = t56 ^ t62; s7 = t48 ^ t60
t67 = t64 ^ t65; s3 = t53 ^ t66; s4 = t51 ^ t66; s5 = t47 ^ t65; s1 = t64 ^ s3; s2 = t55 ^ t67
"""
GATES = []
for stmt in BP_CIRCUIT.replace("\n", ";").split(";"):
    if stmt.strip():
        dst, expr = (s.strip() for s in stmt.split("="))
        a, op, b = expr.split()
        GATES.append((dst, {"^": "xor", "&": "and"}[op], a, b))
SBOX_NOT = 0x63          # what the circuit without its NOTs leaves out


def check_circuit() -> None:
    for v in range(256):
        env = {f"x{i}": (v >> (7 - i)) & 1 for i in range(8)}
        for dst, op, a, b in GATES:
            env[dst] = env[a] ^ env[b] if op == "xor" else env[a] & env[b]
        out = sum(env[f"s{i}"] << (7 - i) for i in range(8))
        assert out ^ SBOX_NOT == SBOX[v], (v, out)


# ---------------------------------------------------------------------------------------------------------
# Virtual instructions: (op, dst, a, b). Values are names; b is a name or an immediate.
#   xor/and/or dst, a, b | slli/srli dst, a, imm | li dst, imm | lw dst, offset(sp) (a round-key word)

class Prog:
    def __init__(self, zbb: bool = False) -> None:
        self.ops: list[tuple] = []
        self.n = 0
        self.zbb = zbb

    def new(self, hint: str) -> str:
        self.n += 1
        return f"{hint}.{self.n}"

    def op(self, op: str, a, b=None, hint: str = "v") -> str:
        d = self.new(hint)
        self.ops.append((op, d, a, b))
        return d

    def xor(self, a, b):
        return self.op("xor", a, b)

    def ror(self, x: str, n: int) -> str:
        if self.zbb:
            return self.op("rori", x, n)
        hi = self.op("slli", x, 32 - n)
        lo = self.op("srli", x, n)
        return self.op("or", hi, lo)

    def byte_ror(self, y: str, s: int, mask: str) -> str:
        """Rotate every byte of y right by s bits: (u & M) | (v & ~M) = v ^ ((u ^ v) & M) with
        u = y >> s, v = y << (8 - s), M = 0xff >> s in every byte (one mask register, 5 instructions)."""
        u = self.op("srli", y, s)
        v = self.op("slli", y, 8 - s)
        w = self.op("xor", u, v)
        w = self.op("and", w, mask)
        return self.op("xor", v, w)

    def rot_rows_cols(self, x: str, k: int, s: int, mask: str) -> str:
        """Zbb: rotate rows by k (bits 8k) and every byte by s bits in one go. A bit j of a byte comes from
        8k + s places up when j < 8 - s (mask M = 0xff >> s in every byte) and from 8k + s - 8 otherwise:
        B ^ ((A ^ B) & M) with A = ror(x, 8k + s), B = ror(x, 8k + s - 8)."""
        a = self.op("rori", x, (8 * k + s) % 32)
        b = self.op("rori", x, (8 * k + s - 8) % 32)
        w = self.op("xor", a, b)
        w = self.op("and", w, mask)
        return self.op("xor", b, w)


def rep_mask(byte: int) -> int:
    return byte * 0x01010101


def sbox(p: Prog, x: list[str]) -> list[str]:
    """Slices x[0..7] (bit i) -> S-box(x) ^ 0x63, slice-wise."""
    env = {f"x{i}": x[7 - i] for i in range(8)}
    for dst, op, a, b in GATES:
        env[dst] = p.op(op, env[a], env[b], hint=dst)
    return [env[f"s{7 - i}"] for i in range(8)]


def mixcolumns(p: Prog, a: list[str], m: int) -> list[str]:
    """MixColumns in fixsliced representation m: R1 takes row r+1 from column c+m, R2 row r+2 from
    column c+2m. out = xtime(T) ^ R1(a) ^ R2(T) with T = a ^ R1(a)."""
    masks = {}

    def mask(s: int) -> str:
        if s not in masks:
            masks[s] = p.op("li", rep_mask(0xFF >> s), hint=f"m{s}")
        return masks[s]

    def r1(x: str) -> str:
        if p.zbb and m:
            return p.rot_rows_cols(x, 1, 2 * m, mask(2 * m))
        y = p.ror(x, 8)
        return p.byte_ror(y, 2 * m, mask(2 * m)) if m else y

    def r2(x: str) -> str:
        s = (4 * m) % 8
        if p.zbb and s:
            return p.rot_rows_cols(x, 2, s, mask(s))
        y = p.ror(x, 16)
        return p.byte_ror(y, s, mask(s)) if s else y

    ra = [r1(a[j]) for j in range(8)]
    t = [p.xor(a[j], ra[j]) for j in range(8)]
    xt = [t[7], p.xor(t[0], t[7]), t[1], p.xor(t[2], t[7]), p.xor(t[3], t[7]), t[4], t[5], t[6]]
    out = []
    for j in range(8):
        out.append(p.xor(p.xor(xt[j], ra[j]), r2(t[j])))
    return out


# Frame layout shared by encrypt and ctr (bytes from sp).
RK = 0              # 11 round keys x 8 slices, expanded
PCONST = 352        # ctr: packed IV columns ^ round key 0
SAVE = 384          # ra, s0..s11 of the caller
CORE_RA = 436       # the core's own return address
OUTP, INP, LEN, CTR = 440, 444, 448, 452
KS = 456            # 32-byte key-stream buffer (tail, unaligned buffers)
SPILL = 488         # the core's spill slots
FRAME = 560


def core_program(zbb: bool) -> tuple[Prog, list[str], list[str]]:
    p = Prog(zbb)
    inputs = [f"in{j}" for j in range(8)]
    s = list(inputs)
    for i in range(1, 11):
        s = sbox(p, s)
        if i < 10:
            s = mixcolumns(p, s, i % 4)
        s = [p.xor(s[j], p.op("lw", RK + 32 * i + 4 * j, hint=f"rk{i}")) for j in range(8)]
    return p, inputs, s


def interpret(ops, env: dict, mem: dict) -> dict:
    env = dict(env)
    for op, d, a, b in ops:
        if op == "xor":
            env[d] = env[a] ^ env[b]
        elif op == "and":
            env[d] = env[a] & env[b]
        elif op == "or":
            env[d] = env[a] | env[b]
        elif op == "slli":
            env[d] = (env[a] << b) & M32
        elif op == "srli":
            env[d] = env[a] >> b
        elif op == "rori":
            env[d] = ((env[a] >> b) | (env[a] << (32 - b))) & M32
        elif op == "li":
            env[d] = a
        elif op == "lw":
            env[d] = mem[a]
        else:
            raise AssertionError(op)
    return env


# ---------------------------------------------------------------------------------------------------------
# Packing: the 8x8 bit transposition in every byte lane between words q[w], w = 2c + b (column c of
# block b, little-endian) and slices. Three layers of SWAPMOVE(a, b, mask, n): t = ((a >> n) ^ b) & mask,
# b ^= t, a ^= t << n. An involution, so it also unpacks.
NETWORK = [(w, w + 1, 0x55555555, 1) for w in (0, 2, 4, 6)] + \
          [(w, w + 2, 0x33333333, 2) for w in (0, 1, 4, 5)] + \
          [(w, w + 4, 0x0F0F0F0F, 4) for w in (0, 1, 2, 3)]


def transpose_py(q: list[int]) -> list[int]:
    q = list(q)
    for a, b, m, n in NETWORK:
        t = ((q[a] >> n) ^ q[b]) & m
        q[b] ^= t
        q[a] ^= (t << n) & M32
    return q


def pos(r: int, c: int, b: int) -> int:
    return 8 * r + 2 * c + b


def check_transpose() -> None:
    rng = random.Random(1)
    q = [rng.getrandbits(32) for _ in range(8)]
    s = transpose_py(q)
    for w in range(8):
        c, b = divmod(w, 2)
        for r in range(4):
            for i in range(8):
                assert (s[i] >> pos(r, c, b)) & 1 == (q[w] >> (8 * r + i)) & 1
    assert transpose_py(s) == q


def emit_network(regs: list[str], zero: set[int], masks: dict[int, str], tmp: str) -> list[str]:
    """SWAPMOVE network on registers regs[w]; words in `zero` are known to be zero (skipped work)."""
    code = []
    zero = set(zero)
    for a, b, m, n in NETWORK:
        ra, rb, M = regs[a], regs[b], masks[m]
        if a in zero and b in zero:
            continue
        if a in zero:                         # t = b & m; b ^= t; a = t << n
            code += [f"and {tmp}, {rb}, {M}", f"xor {rb}, {rb}, {tmp}", f"slli {ra}, {tmp}, {n}"]
            zero.discard(a)
        elif b in zero:                       # b = (a >> n) & m; a ^= b << n
            code += [f"srli {rb}, {ra}, {n}", f"and {rb}, {rb}, {M}", f"slli {tmp}, {rb}, {n}",
                     f"xor {ra}, {ra}, {tmp}"]
            zero.discard(b)
        else:
            code += [f"srli {tmp}, {ra}, {n}", f"xor {tmp}, {tmp}, {rb}", f"and {tmp}, {tmp}, {M}",
                     f"xor {rb}, {rb}, {tmp}", f"slli {tmp}, {tmp}, {n}", f"xor {ra}, {ra}, {tmp}"]
    return code


def run_code(code: list[str], regs: dict) -> dict:
    """Execute the few RV32I forms the networks use (for the generator's self-check)."""
    regs = dict(regs)
    for line in code:
        op, rest = line.split(" ", 1)
        args = [x.strip() for x in rest.split(",")]
        g = lambda x: regs[x] if not x.lstrip("-").isdigit() else int(x)
        if op == "and":
            regs[args[0]] = g(args[1]) & g(args[2])
        elif op == "xor":
            regs[args[0]] = g(args[1]) ^ g(args[2])
        elif op == "or":
            regs[args[0]] = g(args[1]) | g(args[2])
        elif op == "slli":
            regs[args[0]] = (g(args[1]) << int(args[2])) & M32
        elif op == "srli":
            regs[args[0]] = g(args[1]) >> int(args[2])
        elif op == "rori":
            n = int(args[2])
            regs[args[0]] = ((g(args[1]) >> n) | (g(args[1]) << (32 - n))) & M32
        else:
            raise AssertionError(line)
    return regs


# ---------------------------------------------------------------------------------------------------------
# Register allocation of the straight-line core.

POOL = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
        "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "ra"]
CORE_IN = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]


def allocate(ops, inputs: list[str], in_regs: list[str], outputs: list[str], pool: list[str] = POOL,
             spill: int = SPILL, reuse_slots: bool = False, pin: dict[str, str] | None = None,
             oldest_free: bool = False):
    """Linear scan with Belady eviction. Returns (assembly lines, output registers, spill slots used).
    Besides the ALU forms: ("lw", d, offset or (offset, base), None) loads (re-materialized, never spilled;
    base sp unless given) and ("sw", None, value, offset or (offset, base)) stores a value. reuse_slots: a
    dead value's spill slot is given to the next spill (a smaller frame). pin: value -> register it must be
    defined in and (if an output) end in, for loop-carried values; other values avoid pinned registers when
    they can, and a live value found in a pinned register when it is wanted moves out (mv) or is spilled.
    oldest_free: take the register freed longest ago (fewer false dependencies for the scheduler) instead
    of the last one freed."""
    pin = pin or {}
    pinned = set(pin.values())
    uses: dict[str, list[int]] = {}
    for i, (op, d, a, b) in enumerate(ops):
        for v in (a, b):
            if isinstance(v, str):
                uses.setdefault(v, []).append(i)
    end = len(ops)
    for v in outputs:
        uses.setdefault(v, []).append(end)
    remat = {d: (op, a) for op, d, a, b in ops if op in ("li", "lw")}
    reg_of: dict[str, str] = dict(zip(inputs, in_regs))
    val_of: dict[str, str] = {r: v for v, r in reg_of.items()}
    free = [r for r in pool if r not in val_of]
    slot: dict[str, int] = {}
    nslots = 0
    free_slots: list[int] = []
    out: list[str] = []
    ptr: dict[str, int] = {v: 0 for v in uses}

    def next_use(v: str, i: int) -> int:
        us = uses.get(v, [])
        k = ptr.get(v, 0)
        while k < len(us) and us[k] < i:
            k += 1
        ptr[v] = k
        return us[k] if k < len(us) else 1 << 30

    def get_reg(i: int, keep: set[str], want: str | None = None, reads: tuple[str, ...] = ()) -> str:
        """reads: the registers the instruction being allocated reads (a move must not overwrite them)."""
        nonlocal nslots
        if want is not None:
            if want in free:
                free.remove(want)
                return want
            # the occupant may be a source of this very instruction: a copy (or a spill) keeps its value
            # while the instruction still reads the pinned register it then overwrites
            victim = val_of[want]
            spare = [r for r in free if r not in reads]
            if spare:                # move the occupant out of the way
                plain = [r for r in spare if r not in pinned]
                r = plain[-1] if plain else spare[-1]
                free.remove(r)
                out.append(f"mv {r}, {want}")
                del val_of[want]
                reg_of[victim] = r
                val_of[r] = victim
                return want
        elif free:
            plain = [r for r in free if r not in pinned] or free
            r = plain[0] if oldest_free else plain[-1]
            free.remove(r)
            return r
        if want is not None:
            victim = val_of[want]
        else:
            victim = max((v for v in val_of.values() if v not in keep), key=lambda v: next_use(v, i))
        r = reg_of.pop(victim)
        del val_of[r]
        if victim not in remat and victim not in slot:
            if free_slots:
                slot[victim] = free_slots.pop()
            else:
                slot[victim] = spill + 4 * nslots
                nslots += 1
            out.append(f"sw {r}, {slot[victim]}(sp)")
        return r

    def load(v: str, r: str) -> None:
        if v in remat:
            op, a = remat[v]
            if op == "li":
                out.append(f"li {r}, {a:#x}")
            else:
                off, base = a if isinstance(a, tuple) else (a, "sp")
                out.append(f"lw {r}, {off}({base})")
        else:
            out.append(f"lw {r}, {slot[v]}(sp)")
        reg_of[v] = r
        val_of[r] = v

    for i, (op, d, a, b) in enumerate(ops):
        srcs = [v for v in (a, b) if isinstance(v, str)] if op not in ("li", "lw") else []
        for v in srcs:
            if v not in reg_of:
                load(v, get_reg(i, set(srcs)))
        names = [reg_of[v] for v in srcs]
        for v in dict.fromkeys(srcs):   # (ordered: the output must not depend on hashing)
            if next_use(v, i + 1) == 1 << 30:
                if reuse_slots and v in slot:
                    free_slots.append(slot[v])
                r = reg_of.pop(v)
                del val_of[r]
                free.append(r)
        if op in ("li", "lw"):
            # materialized only when first needed (keeps registers free)
            continue
        if op == "sw":
            off, base = b if isinstance(b, tuple) else (b, "sp")
            out.append(f"sw {names[0]}, {off}({base})")
            continue
        rd = get_reg(i, set(srcs), pin.get(d), tuple(names))
        reg_of[d] = rd
        val_of[rd] = d
        if op in ("slli", "srli", "rori", "addi"):
            out.append(f"{op} {rd}, {names[0]}, {b}")
        elif op == "rev8":                 # Zbb, one source
            out.append(f"{op} {rd}, {names[0]}")
        else:
            out.append(f"{op} {rd}, {names[0]}, {names[1]}")
    out_regs = []
    for v in outputs:
        if v in pin and reg_of.get(v) != pin[v]:
            if v in reg_of:
                r = reg_of.pop(v)
                del val_of[r]
                free.append(r)
                want = get_reg(end, set(outputs) - {v}, pin[v], (r,))
                out.append(f"mv {want}, {r}")
                reg_of[v] = want
                val_of[want] = v
            else:
                load(v, get_reg(end, set(outputs) - {v}, pin[v]))
        elif v not in reg_of:
            load(v, get_reg(end, set(outputs)))
        out_regs.append(reg_of[v])
    return out, out_regs, nslots


def run_asm(lines: list[str], regs: dict, mem: dict) -> tuple[dict, dict]:
    """Interpret the allocated core (li/lw/sw/xor/and/or/slli/srli) for the self-check."""
    regs = dict(regs)
    mem = dict(mem)
    for line in lines:
        op, rest = line.split(" ", 1)
        args = [x.strip() for x in rest.split(",")]
        if op == "li":
            regs[args[0]] = int(args[1], 0)
        elif op == "lw":
            regs[args[0]] = mem[int(args[1].split("(")[0])]
        elif op == "sw":
            mem[int(args[1].split("(")[0])] = regs[args[0]]
        else:
            regs = run_code([line], regs)
    return regs, mem


# ---------------------------------------------------------------------------------------------------------
# AES model pieces for the self-check and the round-key layout (the C key schedule does the same).

def expand_key(key: bytes) -> list[list[int]]:
    """FIPS-197 round keys as 11 lists of 4 little-endian column words."""
    w = [int.from_bytes(key[4 * i:4 * i + 4], "little") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = (t >> 8) | ((t & 0xFF) << 24)
            t = sum(SBOX[(t >> (8 * k)) & 0xFF] << (8 * k) for k in range(4)) ^ rcon
            rcon = (rcon << 1) ^ (0x11B if rcon & 0x80 else 0)
        w.append(w[i - 4] ^ t)
    return [w[4 * r:4 * r + 4] for r in range(11)]


def shiftrows_inv_k(cols: list[int], k: int) -> list[int]:
    """SR^-k on column words: P(r, c) = L(r, c - r*k)."""
    out = []
    for c in range(4):
        v = 0
        for r in range(4):
            v |= ((cols[(c - r * k) % 4] >> (8 * r)) & 0xFF) << (8 * r)
        out.append(v)
    return out


def fixsliced_keys(key: bytes) -> list[list[int]]:
    keys = []
    for i, cols in enumerate(expand_key(key)):
        cols = shiftrows_inv_k(cols, i % 4)
        if i:
            cols = [c ^ rep_mask(SBOX_NOT) for c in cols]
        q = []
        for c in cols:
            q += [c, c]
        keys.append(transpose_py(q))
    return keys


def aes_encrypt_model(key: bytes, block: bytes) -> bytes:
    rks = expand_key(key)
    s = [b ^ k for b, k in zip(block, b"".join(c.to_bytes(4, "little") for c in rks[0]))]

    def gm(a, b):
        r = 0
        while b:
            if b & 1:
                r ^= a
            a = ((a << 1) ^ (0x11B if a & 0x80 else 0)) & 0x1FF
            b >>= 1
        return r
    for rnd in range(1, 11):
        s = [SBOX[v] for v in s]
        s = [s[4 * ((c + r) % 4) + r] for c in range(4) for r in range(4)]
        if rnd < 10:
            m = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                m += [gm(a[0], 2) ^ gm(a[1], 3) ^ a[2] ^ a[3], a[0] ^ gm(a[1], 2) ^ gm(a[2], 3) ^ a[3],
                      a[0] ^ a[1] ^ gm(a[2], 2) ^ gm(a[3], 3), gm(a[0], 3) ^ a[1] ^ a[2] ^ gm(a[3], 2)]
            s = m
        s = [v ^ k for v, k in zip(s, b"".join(c.to_bytes(4, "little") for c in rks[rnd]))]
    return bytes(s)


def sr2_fix(q: list[int]) -> list[int]:
    """ShiftRows^2 on unpacked words: rows 1 and 3 swap between columns c and c + 2 (both blocks)."""
    q = list(q)
    for b in (0, 1):
        for c in (0, 1):
            x, y = 2 * c + b, 2 * (c + 2) + b
            t = (q[x] ^ q[y]) & 0xFF00FF00
            q[x] ^= t
            q[y] ^= t
    return q


# ---------------------------------------------------------------------------------------------------------
# Assembly text

MASKREG = {0x55555555: "a5", 0x33333333: "a6", 0x0F0F0F0F: "a7"}   # pack/unpack masks
NETTMP = "t0"


def li(r: str, v: int) -> str:
    return f"li {r}, {v:#010x}"


def ind(lines: list[str]) -> list[str]:
    return ["    " + l for l in lines]


def generate(zbb: bool) -> tuple[str, str]:
    check_circuit()
    check_transpose()
    p, inputs, outputs = core_program(zbb)
    body, out_regs, nslots = allocate(p.ops, inputs, CORE_IN, outputs)
    assert SPILL + 4 * nslots <= FRAME, nslots
    sched = schedule(body)
    lost = stalls(sched)

    # ---- self-check: the scheduled core, the networks and the key layout against the AES model ----
    rng = random.Random(2024)
    for trial in range(6):
        key = rng.randbytes(16)
        blocks = [rng.randbytes(16), rng.randbytes(16)]
        ks = fixsliced_keys(key)
        mem = {RK + 32 * i + 4 * j: ks[i][j] for i in range(11) for j in range(8)}
        q = []
        for c in range(4):
            for b in range(2):
                q.append(int.from_bytes(blocks[b][4 * c:4 * c + 4], "little"))
        net = emit_network(CORE_IN, set(), {m: r for m, r in MASKREG.items()}, NETTMP)
        regs = run_code(net, {**dict(zip(CORE_IN, q)), **{r: m for m, r in MASKREG.items()}})
        s = [regs[r] ^ ks[0][j] for j, r in enumerate(CORE_IN)]
        regs, _ = run_asm(sched, dict(zip(CORE_IN, s)), mem)
        res = transpose_py([regs[r] for r in out_regs])
        res = sr2_fix(res)
        for b in range(2):
            got = b"".join(res[2 * c + b].to_bytes(4, "little") for c in range(4))
            assert got == aes_encrypt_model(key, blocks[b]), (trial, b)

    asm = assemble(sched, out_regs, nslots, lost, zbb)
    return asm, c_sbox()


def c_sbox() -> str:
    lines = ["// SPDX-License-Identifier: MIT", "/* The Boyar-Peralta AES S-box circuit on eight 32-bit slices (q[i] = bit i of every byte).",
             " * GENERATED by gen_aes_bitsliced.py from its BP_CIRCUIT - edit the generator, not this file.",
             " * Used by the key schedule (aes_bs_ks.c); the rounds use the same gates in assembly. */",
             "#ifndef AES_BS_SBOX_H", "#define AES_BS_SBOX_H", "", "#include <stdint.h>", "",
             "static void aes_bs_sbox(uint32_t q[8])", "{"]
    for i in range(8):
        lines.append(f"    const uint32_t x{i} = q[{7 - i}];")
    for dst, op, a, b in GATES:
        lines.append(f"    const uint32_t {dst} = {a} {'^' if op == 'xor' else '&'} {b};")
    for i in range(8):
        bit = 7 - i
        inv = " ^ 0xffffffffu" if (SBOX_NOT >> bit) & 1 else ""
        lines.append(f"    q[{bit}] = s{i}{inv};")
    lines += ["}", "", "#endif"]
    return "\n".join(lines) + "\n"


def assemble(core: list[str], out_regs: list[str], nslots: int, lost: int, zbb: bool) -> str:
    M = {m: r for m, r in MASKREG.items()}
    L: list[str] = []
    name = "rv32-bitsliced-zbb" if zbb else "rv32-bitsliced"
    sym = name.replace("-", "_")
    isa = "RV32I + Zbb (rori for every rotation, rev8)" if zbb else "RV32I"
    L.append(f"""/* SPDX-License-Identifier: MIT */
/* AES-128 (FIPS-197), constant time: fixsliced, two blocks at a time, for {isa}. Implementation
 * {name}. GENERATED by gen_aes_bitsliced.py in this folder - edit the generator, not this file.
 *
 *   void mcu_aes128_{sym}_encrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk)
 *   int mcu_aes128_{sym}_ctr(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *rk,
 *                            const uint8_t *iv)
 *   (keyschedule: aes_bs_ks.c)
 *
 * rk (176 bytes, written by the key schedule): the 11 fixsliced round keys, key i = ShiftRows^-(i mod 4)
 * of round key i, with 0x63 in every byte for i >= 1, packed into slices; a round key is the same for both
 * blocks, so a slice holds 16 distinct bits and two slices share a word (even bits: slice 2j, odd bits:
 * slice 2j+1). Both functions first expand it to 352 bytes on the stack (6 instructions a word).
 * ctr: NIST SP 800-38A counter mode; iv is the initial counter block, its last four bytes a big-endian
 * counter incremented modulo 2^32 (the standard incrementing function); len any number of bytes; returns 0, or -1 with nothing written when its blocks would wrap the counter word: (len - 1) / 16 above
 * 2^32 - 1 - counter (the full 128-bit increment is ctr128, crypto/aes/ref/aes_ctr128.c).
 *
 * Register map. Packing networks: a5, a6, a7 = masks 0x55555555, 0x33333333, 0x0f0f0f0f, t0 = temp,
 * s0..s7 = the eight words being transposed (word 2c+b = column c of block b <-> slice i). The round
 * core (the local routine .Laes128_bs_core) takes slices 0..7 in s0..s7 (round key 0 already added),
 * uses all of a0..a7, t0..t6, s0..s11, ra (its own return address sits in the frame), and leaves
 * slice i in {", ".join(f"{i}:{r}" for i, r in enumerate(out_regs))}.
 * Frame ({FRAME} bytes): expanded round keys at {RK}, ctr's packed constant columns at {PCONST}, the caller's
 * ra/s0..s11 at {SAVE}, the core's ra at {CORE_RA}, out/in/len/counter at {OUTP}..{CTR}, a 32-byte key-stream
 * buffer at {KS}, {nslots} spill slots at {SPILL}.
 *
 * Techniques (docs/baselines.md): bitslicing with two blocks per 32-bit word, fixslicing (Adomnicai and
 * Peyrin, TCHES 2021/1: no ShiftRows, four MixColumns variants, ShiftRows^2 once at the end on the output
 * words), the Boyar-Peralta S-box circuit (115 XOR/AND, its NOTs folded into the round keys), and for CTR
 * the packing of the constant IV columns once per call. The ten rounds are straight-line code
 * ({len(core)} instructions, {lost} cycles of load interlock).
 * Constant time: no branch or address depends on the key or the data (only on len and on the alignment of
 * the pointers, which are public), and there is no multiply or divide.
 */
#include "mcucrypt/ns.h"
""")

    def save_regs() -> list[str]:
        return [f"addi sp, sp, -{FRAME}"] + [f"sw {r}, {SAVE + 4 * k}(sp)" for k, r in
                                              enumerate(["ra"] + [f"s{i}" for i in range(12)])]

    def restore_regs() -> list[str]:
        return [f"lw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(["ra"] + [f"s{i}" for i in range(12)])] + \
               [f"addi sp, sp, {FRAME}", "ret"]

    def masks() -> list[str]:
        return [li(r, m) for m, r in MASKREG.items()]

    # The core leaves its outputs in whatever registers the allocator chose: a parallel move (cycles
    # broken through a register that is neither a source nor a destination) gathers them in s0..s7.
    def parallel_move(src: list[str], dst: list[str], tmp: str) -> list[str]:
        moves = {d: s for s, d in zip(src, dst) if s != d}
        code = []
        while moves:
            ready = [d for d in moves if d not in moves.values()]
            if ready:
                d = ready[0]
                code.append(f"mv {d}, {moves.pop(d)}")
            else:                                   # a cycle: break it through tmp
                d = next(iter(moves))
                code.append(f"mv {tmp}, {d}")
                for k, v in moves.items():
                    if v == d:
                        moves[k] = tmp
        return code

    spare = next(r for r in POOL if r not in out_regs and r not in CORE_IN)
    gather = parallel_move(out_regs, CORE_IN, spare)
    unpack_net = emit_network(CORE_IN, set(), M, NETTMP)
    sr2 = []
    for b in (0, 1):
        for c in (0, 1):
            x, y = CORE_IN[2 * c + b], CORE_IN[2 * (c + 2) + b]
            sr2 += [f"xor t1, {x}, {y}", "and t1, t1, t2", f"xor {x}, {x}, t1", f"xor {y}, {y}, t1"]

    # ---- expand: compact round keys at a3 -> RK. Clobbers t0..t6. ----
    L.append(f"""    .section .text.aes128_{sym}, "ax", @progbits

/* Expand the 176-byte compact round keys at a3 (any alignment) to 88 slices at sp+{RK}: for a stored word c,
 * slice 2j = x | x << 1 with x = c & 0x55555555 and slice 2j+1 = y | y >> 1 with y = c ^ x.
 * Called with jal t6 (the frame is the caller's). Clobbers t0..t5, a3. */
    .p2align 2
.Laes128_bs_expand:
    li      t0, 0x55555555
    addi    t1, sp, {RK}
    addi    t2, sp, {RK + 352}
    andi    t3, a3, 3
    bnez    t3, .Laes128_bs_expand_bytes
.Laes128_bs_expand_words:
    lw      t3, 0(a3)
    addi    a3, a3, 4
    and     t4, t3, t0
    xor     t5, t3, t4
    slli    t3, t4, 1
    or      t4, t4, t3
    srli    t3, t5, 1
    or      t5, t5, t3
    sw      t4, 0(t1)
    sw      t5, 4(t1)
    addi    t1, t1, 8
    bne     t1, t2, .Laes128_bs_expand_words
    jr      t6
.Laes128_bs_expand_bytes:
    lbu     t3, 0(a3)
    lbu     t4, 1(a3)
    lbu     t5, 2(a3)
    slli    t4, t4, 8
    or      t3, t3, t4
    lbu     t4, 3(a3)
    slli    t5, t5, 16
    or      t3, t3, t5
    slli    t4, t4, 24
    or      t3, t3, t4
    addi    a3, a3, 4
    and     t4, t3, t0
    xor     t5, t3, t4
    slli    t3, t4, 1
    or      t4, t4, t3
    srli    t3, t5, 1
    or      t5, t5, t3
    sw      t4, 0(t1)
    sw      t5, 4(t1)
    addi    t1, t1, 8
    bne     t1, t2, .Laes128_bs_expand_bytes
    jr      t6

/* The ten rounds. In: slices in s0..s7 after round key 0. Out: see the header. Called with jal ra. */
    .p2align 2
.Laes128_bs_core:
    sw      ra, {CORE_RA}(sp)""")
    L += ind(core)
    L.append(f"""    lw      ra, {CORE_RA}(sp)
    ret
""")

    # ---- encrypt ----
    load_block = []
    for c in range(4):
        load_block.append(f"lw {CORE_IN[2 * c]}, {4 * c}(a1)")
    load_bytes = []
    for c in range(4):
        r = CORE_IN[2 * c]
        load_bytes.append(f"lbu {r}, {4 * c}(a1)")
        for k in range(1, 4):
            load_bytes += [f"lbu t1, {4 * c + k}(a1)", f"slli t1, t1, {8 * k}", f"or {r}, {r}, t1"]
    pack1 = emit_network(CORE_IN, {1, 3, 5, 7}, M, NETTMP)
    TMPS = ["t1", "t2", "t3", "t4", "t5", "t6"]
    ark0 = []
    for j in range(8):
        t = TMPS[j % len(TMPS)]
        ark0 += [f"lw {t}, {RK + 4 * j}(sp)", f"xor {CORE_IN[j]}, {CORE_IN[j]}, {t}"]
    ark0 = schedule(ark0)
    store_words = [f"sw {CORE_IN[2 * c]}, {4 * c}(a0)" for c in range(4)]
    store_bytes = []
    for c in range(4):
        r = CORE_IN[2 * c]
        store_bytes.append(f"sb {r}, {4 * c}(a0)")
        for k in range(1, 4):
            store_bytes += [f"srli t1, {r}, {8 * k}", f"sb t1, {4 * c + k}(a0)"]
    L.append(f"""/* ---- void encrypt(out, in, rk): one block (the second block of the pair is zero) ---------------- */
    .globl  MCU_FN(aes128, encrypt)
    .type   MCU_FN(aes128, encrypt), @function
    .p2align 2
MCU_FN(aes128, encrypt):""")
    L += ind(save_regs())
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", "mv a3, a2", "jal t6, .Laes128_bs_expand",
              f"lw a1, {INP}(sp)", "andi t1, a1, 3", "bnez t1, .Laes128_bs_enc_load_bytes"])
    L += ind(load_block)
    L.append(".Laes128_bs_enc_loaded:")
    L += ind(masks() + pack1 + ark0 + ["jal ra, .Laes128_bs_core"] + gather + masks() + unpack_net +
             [li("t2", 0xFF00FF00)] + sr2[:8] +
             [f"lw a0, {OUTP}(sp)", "andi t1, a0, 3", "bnez t1, .Laes128_bs_enc_store_bytes"] + store_words)
    L.append(".Laes128_bs_enc_done:")
    L += ind(restore_regs())
    L.append(".Laes128_bs_enc_load_bytes:")
    L += ind(load_bytes + ["j .Laes128_bs_enc_loaded"])
    L.append(".Laes128_bs_enc_store_bytes:")
    L += ind(store_bytes + ["j .Laes128_bs_enc_done"])
    L.append("    .size   MCU_FN(aes128, encrypt), . - MCU_FN(aes128, encrypt)\n")

    # ---- ctr ----
    # IV: 16 bytes at a4, any alignment: words iv0..iv2 into s0/s1, s2/s3, s4/s5 (both blocks); counter
    # (big-endian) to the frame.
    iv = []
    for c in range(3):
        r = CORE_IN[2 * c]
        iv.append(f"lbu {r}, {4 * c}(a4)")
        for k in range(1, 4):
            iv += [f"lbu t1, {4 * c + k}(a4)", f"slli t1, t1, {8 * k}", f"or {r}, {r}, t1"]
        iv.append(f"mv {CORE_IN[2 * c + 1]}, {r}")
    iv += ["lbu t1, 12(a4)", "lbu t2, 13(a4)", "lbu t3, 14(a4)", "lbu t4, 15(a4)", "slli t1, t1, 24",
           "slli t2, t2, 16", "slli t3, t3, 8", "or t1, t1, t2", "or t3, t3, t4", "or t1, t1, t3",
           f"sw t1, {CTR}(sp)"]
    packc = emit_network(CORE_IN, {6, 7}, M, NETTMP)
    pconst = []
    for j in range(8):
        t = TMPS[j % len(TMPS)]
        pconst += [f"lw {t}, {RK + 4 * j}(sp)", f"xor {CORE_IN[j]}, {CORE_IN[j]}, {t}",
                   f"sw {CORE_IN[j]}, {PCONST + 4 * j}(sp)"]
    pconst = schedule(pconst)
    # per pair: counter words bswap(ctr), bswap(ctr + 1) into s6, s7
    def bswap(dst: str, src: str) -> list[str]:
        if zbb:
            return [f"rev8 {dst}, {src}"]
        return [f"slli {dst}, {src}, 24", f"srli t1, {src}, 24", f"or {dst}, {dst}, t1",
                f"srli t1, {src}, 8", "and t1, t1, t3", f"or {dst}, {dst}, t1",
                f"and t1, {src}, t3", "slli t1, t1, 8", f"or {dst}, {dst}, t1"]
    ctrw = [f"lw t2, {CTR}(sp)"] + ([] if zbb else ["li t3, 0xff00"]) + bswap(CORE_IN[6], "t2") + ["addi t2, t2, 1"] + \
        bswap(CORE_IN[7], "t2")
    packv = emit_network(CORE_IN, {0, 1, 2, 3, 4, 5}, M, NETTMP)
    addp = []
    for j in range(8):
        t = ["t4", "t5", "t6", "a0", "a1", "a2"][j % 6]
        addp += [f"lw {t}, {PCONST + 4 * j}(sp)", f"xor {CORE_IN[j]}, {CORE_IN[j]}, {t}"]
    pair_pre = schedule(masks() + ctrw + packv + addp)
    # key stream words: block 0 = s0, s2, s4, s6; block 1 = s1, s3, s5, s7 (after unpack and SR^2)
    ks_order = [CORE_IN[2 * c + b] for b in (0, 1) for c in range(4)]
    fast_xor = []
    for k, r in enumerate(ks_order):
        t = TMPS[k % len(TMPS)]
        fast_xor += [f"lw {t}, {4 * k}(a1)", f"xor {r}, {r}, {t}", f"sw {r}, {4 * k}(a0)"]
    fast_xor = schedule(fast_xor)
    to_ks = [f"sw {r}, {KS + 4 * k}(sp)" for k, r in enumerate(ks_order)]
    post = schedule(gather + masks() + unpack_net + [li("t2", 0xFF00FF00)] + sr2)
    L.append(f"""/* ---- int ctr(out, in, len, rk, iv) - ------------------------------------------------------------- */
    .globl  MCU_FN(aes128, ctr)
    .type   MCU_FN(aes128, ctr), @function
    .p2align 2
MCU_FN(aes128, ctr):
{ctr_wrap_check('aes128_bs_ctr')}""")
    L += ind(save_regs())
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {LEN}(sp)", "jal t6, .Laes128_bs_expand"])
    L.append("    /* the IV columns of both blocks, packed once, with round key 0 */")
    L += ind(iv + masks() + packc + pconst)
    L.append(".Laes128_bs_ctr_loop:")
    L.append("    /* two counter blocks: pack only the counter column, add the constant columns */")
    L += ind(pair_pre)
    L += ind(["jal ra, .Laes128_bs_core"])
    L.append("    /* unpack, ShiftRows^2 (rows 1 and 3 of columns c, c+2), then XOR the message */")
    L += ind(post)
    L += ind([f"lw a0, {OUTP}(sp)", f"lw a1, {INP}(sp)", f"lw a2, {LEN}(sp)",
              "sltiu t1, a2, 32", "or t2, a0, a1", "andi t2, t2, 3", "or t1, t1, t2",
              "bnez t1, .Laes128_bs_ctr_slow"])
    L += ind(fast_xor)
    L += ind(["addi a0, a0, 32", "addi a1, a1, 32", "addi a2, a2, -32"])
    L.append(".Laes128_bs_ctr_next:")
    L += ind([f"lw t1, {CTR}(sp)", f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {LEN}(sp)",
              "addi t1, t1, 2", f"sw t1, {CTR}(sp)", "bnez a2, .Laes128_bs_ctr_loop"])
    L += ind(["li a0, 0"] + restore_regs())
    L.append("""    /* a tail (< 32 bytes) or unaligned buffers: key stream to the frame, XOR byte by byte */
.Laes128_bs_ctr_slow:""")
    L += ind(to_ks)
    L += ind(["mv t3, a2", "li t4, 32", "bleu t3, t4, .Laes128_bs_ctr_n", "mv t3, t4"])
    L.append(".Laes128_bs_ctr_n:")
    L += ind(["sub a2, a2, t3", f"addi t4, sp, {KS}"])
    L.append(""".Laes128_bs_ctr_bytes:
    lbu     t5, 0(a1)
    lbu     t6, 0(t4)
    addi    a1, a1, 1
    addi    t4, t4, 1
    xor     t5, t5, t6
    sb      t5, 0(a0)
    addi    a0, a0, 1
    addi    t3, t3, -1
    bnez    t3, .Laes128_bs_ctr_bytes
    j       .Laes128_bs_ctr_next
.Laes128_bs_ctr_empty:
    li      a0, 0
    ret
.Laes128_bs_ctr_wraps:
    li      a0, -1
    ret
    .size   MCU_FN(aes128, ctr), . - MCU_FN(aes128, ctr)
""")
    return "\n".join(L)


def outputs() -> dict[str, str]:
    asm, hdr = generate(False)
    asm_zbb, _ = generate(True)
    return {"aes_bitsliced.S": asm, "aes_bitsliced_zbb.S": asm_zbb, "aes_bs_sbox.h": hdr}


def main() -> int:
    """Write the generated files; with --check, only report (exit 1) if the files differ from them."""
    return write_or_check({HERE / n: t for n, t in outputs().items()}, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    raise SystemExit(main())
