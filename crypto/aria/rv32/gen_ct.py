#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates aria_ct.S, the constant-time ARIA of rv32-ct; run from anywhere:

    python3 crypto/aria/rv32/gen_ct.py          # rewrites aria_ct.S beside this script
    python3 crypto/aria/rv32/gen_ct.py --check  # exit 1 if aria_ct.S is out of date

What it builds (docs/aria.md explains the choices):

* The four ARIA S-boxes share one GF(2^8) inversion: SB1(x) = B.inv(x) + 0x63 (the AES S-box),
  SB2(x) = C.x^247 + 0xE2 = C'.inv(x) + 0xE2 with C' = C.F^3 (F the squaring map, x^247 = (x^-1)^8),
  SB3 = SB1^-1 = inv(B^-1(x + 0x63)), SB4 = SB2^-1 = inv(C'^-1(x + 0xE2)). The additive constants are
  moved into the round keys by the key schedule (aria_ct_ks.c), so each lane computes Out(inv(In(x)))
  with In, Out linear and depending on the lane's S-box type.
* The inversion is computed in the tower field GF(((2^2)^2)^2) (polynomial bases at every level, the
  approach of Satoh et al. and Canright): 36 AND gates. This script searches the 128 isomorphisms between
  the AES field and the towers GF(16)[y]/(y^2+y+mu) over GF(4)[z]/(z^2+z+nu) for the fewest XORs.
* The 16 state bytes are bitsliced: 8 registers, one per bit position, 16 lanes each. Per-lane S-box
  types are handled with lane masks: the tower input is X.x + (X(B^-1+I).x & M3) + (X(C'^-1+I).x & M4)
  and the output p + (q & M1) + (r & M2) with p = X^-1 z, q = (B+I)X^-1 z, r = (C'+I)X^-1 z, where
  M1..M4 select the lanes of SB1..SB4 (different in odd and even rounds).
* Linear layers are turned into XOR sequences with Paar's greedy common-subexpression algorithm, the
  whole circuit is list-scheduled to keep few values live, and registers are allocated by linear scan.
  Every instruction is AND or XOR on registers: no branch, no load, nothing that depends on data.
* Around the S-boxes, the state is in the word form of aria_ttable.S (four little-endian words) where
  ARIA's diffusion A = M.P.M.D is cheap; four SWAPMOVEs and a nibble split convert between the two forms.

The generated circuit is checked exhaustively here (all 256 inputs of all four S-box types) before the
file is written; the firmware itself is checked by the RFC vectors and the differential test.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
OUT_FILE = HERE / "aria_ct.S"

sys.path.insert(0, str(HERE.parent))
from aria_ct_circuit import (M0F, M33, M55, best_circuit, schedule, slice_layout)  # noqa: E402

# ---------------------------------------------------------------------------------------------------
# Register allocation and assembly text.

# Registers of the core while the S-boxes run. RK and MP stay put; everything else is the pool
# (s0..s11 and ra are saved by the prologue; the out pointer and the round counter live on the stack).
RK, MP = "a2", "a4"
POOL = ["a0", "a1", "a3", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
        "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "ra"]
W = ["a0", "a1", "a3", "a5"]                 # state words outside the S-box stage
MASK_OFF = {"M1": 0, "M2": 4, "M3": 8, "M4": 12}


class Alloc:
    def __init__(self, free: list[str]) -> None:
        self.free = list(free)
        self.reg: dict = {}

    def take(self, name) -> str:
        if not self.free:
            raise RuntimeError("out of registers")
        r = self.free.pop(0)
        self.reg[name] = r
        return r

    def release(self, name) -> None:
        self.free.insert(0, self.reg.pop(name))


def emit_sbox(prog: list[tuple], outputs: list[int], in_regs: dict[int, str],
              free: list[str]) -> tuple[list[str], dict[int, str], dict[str, int]]:
    """Assembly for the scheduled S-box program. in_regs: input signal -> register. Returns the lines,
    output signal -> register, and the operation counts."""
    lines: list[str] = []
    last: dict = {}
    for idx, p in enumerate(prog):
        for v in p[2:]:
            last[v] = idx
    for v in outputs:
        last[v] = len(prog)
    al = Alloc(free)
    for v, r in in_regs.items():
        al.reg[v] = r
    # A lane mask is loaded two instructions before its first use (lw result latency 2 on the E31).
    first_use: dict[str, int] = {}
    for idx, p in enumerate(prog):
        if p[0] == "mask" and p[3] not in first_use:
            first_use[p[3]] = idx
    load_at: dict[int, list[str]] = {}
    for m, idx in first_use.items():
        before = [i for i, p in enumerate(prog) if p[0] != "in" and i < idx]
        load_at.setdefault(before[-2] if len(before) >= 2 else idx, []).append(m)
    counts = {"xor": 0, "and": 0, "mask": 0}
    for idx, p in enumerate(prog):
        if p[0] == "in":
            continue
        for m in load_at.get(idx, []):
            r = al.take(("mask", m))
            lines.append(f"    lw    {r}, {MASK_OFF[m]}(MP)            /* lane mask {m} */")
        kind, dst, a, b = p
        keys = [a, ("mask", b) if kind == "mask" else b]
        regs = [al.reg[k] for k in keys]
        for v, k in ((a, keys[0]), (b, keys[1])):
            if last.get(v) == idx and k in al.reg:
                al.release(k)
        rd = al.take(dst)
        counts[kind] += 1
        lines.append(f"    {'xor' if kind == 'xor' else 'and':<5} {rd}, {regs[0]}, {regs[1]}")
        if dst not in last:
            al.release(dst)
    return lines, {v: al.reg[v] for v in outputs}, counts


def merge_code(pairs: list[tuple[str, str]], free: list[str]) -> list[str]:
    """W[r] = lo_r | hi_r << 4 for r = 0..3, a parallel assignment: a W register is written only once
    no other pending merge still reads it (a register holding a cycle's value is moved aside first)."""
    lines: list[str] = []
    pending = {r: list(pr) for r, pr in enumerate(pairs)}
    spare = [f for f in free if f not in W and all(f not in pr for pr in pairs)]
    while pending:
        for r in sorted(pending):
            others = [x for rr, pr in pending.items() if rr != r for x in pr]
            if W[r] not in others:
                lo, hi = pending.pop(r)
                lines.append(f"    slli  {hi}, {hi}, 4")
                lines.append(f"    or    {W[r]}, {lo}, {hi}")
                break
        else:
            r = min(pending)
            tmp = spare.pop(0)
            lines.append(f"    mv    {tmp}, {W[r]}")
            for pr in pending.values():
                for i, x in enumerate(pr):
                    if x == W[r]:
                        pr[i] = tmp
    return lines


def generate() -> str:
    nu, mu, X, prog, outputs = best_circuit()
    sched = schedule(prog, outputs)
    slices, lanes = slice_layout()
    # lane masks for the S-box types: byte position j of every word
    pos_mask = [sum(1 << lanes[(w, j)] for w in range(4)) for j in range(4)]
    odd = {"M1": pos_mask[0], "M2": pos_mask[1], "M3": pos_mask[2], "M4": pos_mask[3]}
    even = {"M1": pos_mask[2], "M2": pos_mask[3], "M3": pos_mask[0], "M4": pos_mask[1]}
    # the S-box program's inputs: slice of bit b, in the register the split leaves it in
    ins = [p[1] for p in sched if p[0] == "in"]          # signal of input bit b = ins[b]
    split_regs = {}                                       # (r, half) -> register
    pool = list(POOL)
    for w in W:
        pool.remove(w)
    # The split writes slice (r, 0) over word register r and slice (r, 1) into a fresh register.
    fresh = pool[:4]
    for r in range(4):
        split_regs[(r, 0)] = W[r]
        split_regs[(r, 1)] = fresh[r]
    in_regs = {}
    for idx, (b, r) in enumerate(slices):
        in_regs[ins[b]] = split_regs[(r, idx % 2)]
    free = [x for x in pool if x not in fresh]
    body, out_regs, counts = emit_sbox(sched, outputs, in_regs, free)
    out_by_bit = {b: out_regs[outputs[b]] for b in range(8)}
    pairs = [(out_by_bit[slices[2 * r][0]], out_by_bit[slices[2 * r + 1][0]]) for r in range(4)]
    merge = merge_code(pairs, [x for x in POOL if x not in out_regs.values()])
    return render(nu, mu, X, slices, lanes, odd, even, body, in_regs, ins, merge, counts)


def hexw(v: int) -> str:
    return f"0x{v:08x}"


def render(nu, mu, X, slices, lanes, odd, even, body, in_regs, ins, merge, counts) -> str:
    lane_doc = ", ".join(f"byte {4 * w + j} -> bit {lanes[(w, j)]}" for w in range(4) for j in range(4))
    split = []
    for r in range(4):
        lo = in_regs[ins[slices[2 * r][0]]]
        hi = in_regs[ins[slices[2 * r + 1][0]]]
        split.append(f"    srli  {hi}, {W[r]}, 4")
        split.append(f"    and   {hi}, {hi}, T_M0F")
        split.append(f"    and   {lo}, {W[r]}, T_M0F")
    text = TEMPLATE
    text = text.replace("@NU@", str(nu)).replace("@MU@", str(mu))
    text = text.replace("@X@", " ".join(f"{r:02x}" for r in X))
    text = text.replace("@COUNTS@", f"{counts['xor']} XOR, {counts['and']} AND, {counts['mask']} lane-mask AND")
    text = text.replace("@LANES@", lane_doc)
    text = text.replace("@MASKS@", "\n".join(
        f"    .word {hexw(t['M1'])}, {hexw(t['M2'])}, {hexw(t['M3'])}, {hexw(t['M4'])}, "
        f"{hexw(M55)}, {hexw(M33)}, {hexw(M0F)}, 0x00ff00ff   /* {name} rounds */"
        for name, t in (("odd", odd), ("even", even))))
    text = text.replace("@SPLIT@", "\n".join(split))
    text = text.replace("@SBOX@", "\n".join(body))
    text = text.replace("@MERGE@", "\n".join(merge))
    return text


TEMPLATE = r"""/* SPDX-License-Identifier: MIT */
/* GENERATED by gen_ct.py -- do not edit; change the generator and rerun it.
 *
 * Constant-time ARIA (rv32-ct): no load or branch depends on a secret. RV32I instructions only.
 *
 *   void mcu_ariaN_rv32_ct_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_ariaN_rv32_ct_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_aria_rv32_ct_ct_core(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t ctl);
 *
 * rk: the round keys of aria_ct_ks.c, spec round keys with the S-boxes' additive constants folded in.
 * ctl (core only): bits 0..7 the number of rounds, bit 8 set when the first round is even (SL2), bit 9
 * set for the cipher (the last round has no diffusion and is followed by the final key, rk[rounds]);
 * without bit 9 every round is full (the key schedule's FO/FE).
 *
 * A round, on four little-endian state words (the layout of aria_ttable.S):
 *   1. XOR the round key (four lw).
 *   2. Bitslice: four SWAPMOVEs (masks 0x55555555, 0x33333333) and a nibble split give 8 registers,
 *      one per bit position, 16 lanes each: @LANES@.
 *   3. The S-box circuit (@COUNTS@): one GF(2^8) inversion in the tower field
 *      GF(((2^2)^2)^2) (nu = @NU@, mu = @MU@; AES-field-to-tower matrix rows @X@), shared by all 16
 *      lanes; the four S-box types differ only in linear maps before and after, selected per lane
 *      with the masks M1..M4 (SB1..SB2 outputs, SB3..SB4 inputs), which differ in odd and even rounds.
 *      Canright's tower-field S-box and Boyar-Peralta's linear/nonlinear split are the ideas used; the
 *      circuit itself is generated (gen_ct.py) and checked on all inputs of all four types.
 *   4. Back to words: merge the nibbles, the same four SWAPMOVEs (each is an involution) in reverse.
 *   5. The diffusion A = M.P.M.D in word form (D: each byte becomes the XOR of its word's other three
 *      bytes, rotations by 8 and 16; M: six XORs; P: byte permutations), as in aria_ttable.S.
 * The ALU instructions of RV32I have data-independent timing on the E31, and every address used (the
 * block, the round keys, the mask table, the stack) is public.
 *
 * Register map: a2 round-key pointer, a4 pointer to the current round's mask table (odd/even, toggled
 * by xori 32); state words a0, a1, a3, a5 between S-box stages; during the S-boxes every other register
 * but sp, gp, tp is in the pool (ra and s0..s11 saved in the 64-byte frame, which also keeps the out
 * pointer, ctl and the round counter). T_M* name the mask-table loads.
 */
#include "mcucrypt/ns.h"

#define RK a2
#define MP a4
#define W0 a0
#define W1 a1
#define W2 a3
#define W3 a5
#define FRAME 64
#define OUT_SLOT 56
#define CTL_SLOT 60
#define CNT_SLOT 52
#define T_M0F t6

    .section .rodata.aria_ct_masks, "a"
    .balign 64
/* Per parity 8 words: lane masks M1 (SB1 lanes), M2 (SB2), M3 (SB3), M4 (SB4), then the SWAPMOVE
 * masks and the byte-swap mask. The odd table is 64-byte aligned so that xori 32 toggles the parity. */
aria_ct_masks:
@MASKS@
    .size aria_ct_masks, 64

/* SWAPMOVE(a, b, mask, n): exchanges the bits of b under mask with the bits of a under mask << n. */
.macro SWAPMOVE a, b, m, n, t
    srli  \t, \a, \n
    xor   \t, \t, \b
    and   \t, \t, \m
    xor   \b, \b, \t
    slli  \t, \t, \n
    xor   \a, \a, \t
.endm

/* Word-form bitslicing: the masks come from the table (t4 = 0x55555555, t5 = 0x33333333). */
.macro TO_SLICES
    lw    t4, 16(MP)
    lw    t5, 20(MP)
    lw    T_M0F, 24(MP)
    SWAPMOVE W1, W0, t4, 1, t3
    SWAPMOVE W3, W2, t4, 1, t3
    SWAPMOVE W2, W0, t5, 2, t3
    SWAPMOVE W3, W1, t5, 2, t3
@SPLIT@
.endm

/* The merge runs first: until it is done any register may hold an output slice. */
.macro TO_WORDS
@MERGE@
    lw    t5, 20(MP)
    lw    t4, 16(MP)
    SWAPMOVE W3, W1, t5, 2, t3
    SWAPMOVE W2, W0, t5, 2, t3
    SWAPMOVE W3, W2, t4, 1, t3
    SWAPMOVE W1, W0, t4, 1, t3
.endm

/* D on one word w: w = ror8(w ^ ror16(w)) ^ ror16(w), i.e. each byte becomes the XOR of the other three. */
.macro DBYTES w, t, u, v
    slli  \t, \w, 16
    srli  \u, \w, 16
    or    \t, \t, \u
    xor   \u, \w, \t
    slli  \v, \u, 24
    srli  \u, \u, 8
    or    \u, \u, \v
    xor   \w, \u, \t
.endm

/* M: w0' = w0^w1^w2, w1' = w0^w2^w3, w2' = w0^w1^w3, w3' = w1^w2^w3. */
.macro MIX w0, w1, w2, w3
    xor   \w1, \w1, \w2
    xor   \w2, \w2, \w3
    xor   \w0, \w0, \w1
    xor   \w3, \w3, \w1
    xor   \w2, \w2, \w0
    xor   \w1, \w1, \w2
.endm

/* A = M.P.M.D; P: word 1 swaps bytes within halves, word 2 swaps halves, word 3 reverses its bytes. */
.macro DIFFUSE
    lw    t6, 28(MP)            /* 0x00ff00ff */
    DBYTES W0, t0, t1, t2
    DBYTES W1, t0, t1, t2
    DBYTES W2, t0, t1, t2
    DBYTES W3, t0, t1, t2
    MIX   W0, W1, W2, W3
    and   t0, W1, t6            /* W1: bytes (0 1 2 3) -> (1 0 3 2) */
    srli  W1, W1, 8
    slli  t0, t0, 8
    and   W1, W1, t6
    or    W1, W1, t0
    slli  t1, W2, 16            /* W2: -> (2 3 0 1) */
    srli  W2, W2, 16
    or    W2, W2, t1
    slli  t2, W3, 16            /* W3: -> (3 2 1 0): halves, then bytes within halves */
    srli  W3, W3, 16
    or    W3, W3, t2
    and   t2, W3, t6
    srli  W3, W3, 8
    slli  t2, t2, 8
    and   W3, W3, t6
    or    W3, W3, t2
    MIX   W0, W1, W2, W3
.endm

.macro ADDKEY
    lw    t0, 0(RK)
    lw    t1, 4(RK)
    lw    t2, 8(RK)
    lw    t3, 12(RK)
    xor   W0, W0, t0
    xor   W1, W1, t1
    xor   W2, W2, t2
    xor   W3, W3, t3
.endm

    .section .text.aria_ct_core, "ax"
    .balign 4
    .globl MCU_FN(aria, ct_core)
    .type MCU_FN(aria, ct_core), @function
MCU_FN(aria, ct_core):
    addi  sp, sp, -FRAME
    sw    ra, 48(sp)
    sw    s0, 44(sp)
    sw    s1, 40(sp)
    sw    s2, 36(sp)
    sw    s3, 32(sp)
    sw    s4, 28(sp)
    sw    s5, 24(sp)
    sw    s6, 20(sp)
    sw    s7, 16(sp)
    sw    s8, 12(sp)
    sw    s9, 8(sp)
    sw    s10, 4(sp)
    sw    s11, 0(sp)
    sw    a0, OUT_SLOT(sp)
    sw    a3, CTL_SLOT(sp)
    andi  t0, a3, 255
    sw    t0, CNT_SLOT(sp)
    /* MP = the odd or the even table, from ctl bit 8 */
    srli  t0, a3, 3
    andi  t0, t0, 32
    la    MP, aria_ct_masks
    add   MP, MP, t0
    /* Load the block: four lw when aligned, byte loads otherwise (the pointer is public). */
    andi  t0, a1, 3
    bnez  t0, .Laria_ct_load_bytes
    lw    W0, 0(a1)
    lw    W2, 8(a1)
    lw    W3, 12(a1)
    lw    W1, 4(a1)
    j     .Laria_ct_loop
.Laria_ct_load_bytes:
    mv    t6, a1
    lbu   W0, 0(t6)
    lbu   t0, 1(t6)
    lbu   t1, 2(t6)
    lbu   t2, 3(t6)
    slli  t0, t0, 8
    slli  t1, t1, 16
    slli  t2, t2, 24
    or    W0, W0, t0
    or    W0, W0, t1
    or    W0, W0, t2
    lbu   W1, 4(t6)
    lbu   t0, 5(t6)
    lbu   t1, 6(t6)
    lbu   t2, 7(t6)
    slli  t0, t0, 8
    slli  t1, t1, 16
    slli  t2, t2, 24
    or    W1, W1, t0
    or    W1, W1, t1
    or    W1, W1, t2
    lbu   W2, 8(t6)
    lbu   t0, 9(t6)
    lbu   t1, 10(t6)
    lbu   t2, 11(t6)
    slli  t0, t0, 8
    slli  t1, t1, 16
    slli  t2, t2, 24
    or    W2, W2, t0
    or    W2, W2, t1
    or    W2, W2, t2
    lbu   W3, 12(t6)
    lbu   t0, 13(t6)
    lbu   t1, 14(t6)
    lbu   t2, 15(t6)
    slli  t0, t0, 8
    slli  t1, t1, 16
    slli  t2, t2, 24
    or    W3, W3, t0
    or    W3, W3, t1
    or    W3, W3, t2
.Laria_ct_loop:
    ADDKEY
    addi  RK, RK, 16
    TO_SLICES
    /* ---- S-box circuit (generated) ---- */
@SBOX@
    /* ---- end of S-box circuit ---- */
    TO_WORDS
    lw    t0, CNT_SLOT(sp)
    addi  t0, t0, -1
    sw    t0, CNT_SLOT(sp)
    bnez  t0, .Laria_ct_diffuse
    /* Last round: the cipher adds the final key; the key schedule's FO/FE diffuse like any round. */
    lw    t1, CTL_SLOT(sp)
    andi  t1, t1, 512
    bnez  t1, .Laria_ct_final
.Laria_ct_diffuse:
    DIFFUSE
    lw    t0, CNT_SLOT(sp)
    beqz  t0, .Laria_ct_store
    xori  MP, MP, 32
    j     .Laria_ct_loop
.Laria_ct_final:
    ADDKEY
.Laria_ct_store:
    lw    t6, OUT_SLOT(sp)
    andi  t0, t6, 3
    bnez  t0, .Laria_ct_store_bytes
    sw    W0, 0(t6)
    sw    W1, 4(t6)
    sw    W2, 8(t6)
    sw    W3, 12(t6)
.Laria_ct_return:
    lw    ra, 48(sp)
    lw    s0, 44(sp)
    lw    s1, 40(sp)
    lw    s2, 36(sp)
    lw    s3, 32(sp)
    lw    s4, 28(sp)
    lw    s5, 24(sp)
    lw    s6, 20(sp)
    lw    s7, 16(sp)
    lw    s8, 12(sp)
    lw    s9, 8(sp)
    lw    s10, 4(sp)
    lw    s11, 0(sp)
    addi  sp, sp, FRAME
    ret
.Laria_ct_store_bytes:
    sb    W0, 0(t6)
    srli  t0, W0, 8
    sb    t0, 1(t6)
    srli  t0, W0, 16
    sb    t0, 2(t6)
    srli  t0, W0, 24
    sb    t0, 3(t6)
    sb    W1, 4(t6)
    srli  t0, W1, 8
    sb    t0, 5(t6)
    srli  t0, W1, 16
    sb    t0, 6(t6)
    srli  t0, W1, 24
    sb    t0, 7(t6)
    sb    W2, 8(t6)
    srli  t0, W2, 8
    sb    t0, 9(t6)
    srli  t0, W2, 16
    sb    t0, 10(t6)
    srli  t0, W2, 24
    sb    t0, 11(t6)
    sb    W3, 12(t6)
    srli  t0, W3, 8
    sb    t0, 13(t6)
    srli  t0, W3, 16
    sb    t0, 14(t6)
    srli  t0, W3, 24
    sb    t0, 15(t6)
    j     .Laria_ct_return
    .size MCU_FN(aria, ct_core), . - MCU_FN(aria, ct_core)

/* Exported cipher entry points: ctl = n | cipher flag, first round odd; encryption and decryption
 * differ only in the keys. A C-preprocessor macro because MCU_FN pastes the names. */
#define ARIA_ENTRY(id, op, rounds)                                  \
    .section .text.MCU_FN(id, op), "ax";                            \
    .balign 2;                                                      \
    .globl MCU_FN(id, op);                                          \
    .type MCU_FN(id, op), @function;                                \
MCU_FN(id, op):                                                     \
    li    a3, 512 + rounds;                                         \
    j     MCU_FN(aria, ct_core);                                    \
    .size MCU_FN(id, op), . - MCU_FN(id, op)

ARIA_ENTRY(aria128, encrypt, 12)
ARIA_ENTRY(aria128, decrypt, 12)
ARIA_ENTRY(aria192, encrypt, 14)
ARIA_ENTRY(aria192, decrypt, 14)
ARIA_ENTRY(aria256, encrypt, 16)
ARIA_ENTRY(aria256, decrypt, 16)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if aria_ct.S differs from the output")
    args = ap.parse_args()
    return write_or_check({OUT_FILE: generate()}, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())
