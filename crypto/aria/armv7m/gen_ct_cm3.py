#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates aria_ct_cm3.S, the constant-time ARIA of cm3-ct (Cortex-M3); run from anywhere:

    python3 crypto/aria/armv7m/gen_ct_cm3.py          # rewrites aria_ct_cm3.S beside this script
    python3 crypto/aria/armv7m/gen_ct_cm3.py --check  # exit 1 if aria_ct_cm3.S is out of date
    python3 crypto/aria/armv7m/gen_ct_cm3.py --search 8000  # redo the schedule search (~10 CPU minutes)

One tower-field GF(2^8) inversion serves the four S-boxes (rv32-ct's construction, docs/aria.md): each
S-box is Out_t(inv(In_t(x))), and the state is kept in a twisted form between the first key addition and
the last S-box layer, so that only the per-type corrections In_t + I and Out_t + I remain, masked per
lane at their rank (5 or 7 lane-mask ANDs instead of 8). The one-block core's circuit is *paired*
(build_paired, explained above PairedProg): the tower is GF((2^4)^2) in a normal basis, byte =
g1.Y^16 + g0.Y, and the four SWAPMOVEs of the word-to-slice transposition already leave bit j of every
lane in the low nibble and bit j + 4 in the high nibble of the same register, so each register holds
one coordinate bit of g1 and of g0: the norm g1.g0 + mu.(g1 + g0)^2 is one 16-lane GF(16) product with
LSR #4 operands (the combinations of its operands serve both sides), Boyar and Peralta's GF(16)
inversion inverts it, and the two output products theta.g1, theta.g0 are one 32-lane product. That
product yields sigma(x^-1) (sigma = x^16, the swap of g1 and g0), so the state alternates between the
forms T (entering odd rounds) and sigma.T (entering even ones); the key schedule twists the round keys
2..n accordingly (mcu_aria_cm3_ct_twist), the core twists the block after the first key and untwists
after the last S-box layer. The two-block core (ct_core2, behind encrypt_blocks) keeps eight slices
of 32 lanes (two blocks, one per nibble) and gets an 8-slice circuit for the same forms
(build_formed). What this generator adds for Thumb-2:

* 14 registers (r0-r12, lr): each scheduled circuit is register-allocated with Belady's policy (evict
  the value whose next use is furthest; a value already in its stack slot is preferred, its eviction
  costs no store), spills in a stack frame; the paired circuit's outputs are allocated into the
  registers the transposition back expects. The numbers are in the generated header.
* The operation order: --search hill-climbs over per-operation biases of a list scheduler (prefer the
  ready operation that ends the most lifetimes), scoring each order by the cycles of the Belady
  allocation's spills (LDR 2, STR 1) and, for the paired circuit, of the final MOVs (for the two-block
  core's circuits that score ends in costlier orders), and stores the best orders in
  aria_ct_cm3_order.json (for each circuit a permutation of its operations; the generator checks that
  it respects every dependency). Without an entry the unbiased list schedule is used.
* Lane masks are Thumb-2 modified immediates: 0x0F << 8j or 0xF0 << 8j (the low or the high nibble of
  the lanes of byte position j) in the paired circuit, 0xFF << 8j in the two-block core.
* Shifted operands are free: LSR #4 / LSL #4 pair the two coordinates, the SWAPMOVEs are
  EOR t, b, a, LSR #n; AND; EOR; EOR a, a, t, LSL #n.
* The diffusion A = M.P.M.D: D(w) = ror16(w ^ ror24(w ^ ror16(w))) in two EOR, the ror16 left pending
  on all four words (it commutes with M's XORs, with REV16 and with REV; P's half swap of word 2
  cancels it), the second M folds the pending rotations into its EOR operands, and so does the next
  round's key addition: A costs 2 x 4 + 6 + 2 + 6 = 22 instructions.
* Before writing the file the generator checks each paired circuit on all 256 inputs of every S-box
  type as 32-bit register programs (shifts included), and each 8-slice circuit symbolically.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
OUT_FILE = HERE / "aria_ct_cm3.S"
ORDER_FILE = HERE / "aria_ct_cm3_order.json"   # the S-box operation order found by --search

sys.path.insert(0, str(HERE.parent))
from aria_ct_circuit import (B, C_PRIME, CIN, COUT, IDENTITY, SB1, SB2, SB3, SB4, M33, M55,  # noqa: E402
                             TRANSPOSE, Circuit, masked_map, bp_inv16_maps, isomorphisms, lin_apply, m4,
                             make_m16, mat_add, mat_apply, mat_from_fn, mat_inv, mat_mul, mat_rank_factor,
                             paar, slice_layout, to_program, tower_inverse, check_circuit)

REGS = [f"r{i}" for i in range(13)] + ["lr"]
W = ["r0", "r1", "r2", "r3"]           # state words outside the S-box stage
HI = ["r4", "r5", "r6", "r7"]          # the split's high-nibble slices
SPILL_BASE = 16                        # frame: out, ctl, round counter, rk pointer, then spill slots



# ---------------------------------------------------------------------------------------------------
# The paired S-box circuit of the one-block core. After the four SWAPMOVEs, register r holds bit b of
# every byte in its low nibbles and bit b + 4 in its high nibbles (same lanes). The state is kept in a
# normal basis of the tower: byte = g1.Y^16 + g0.Y with g1 (GF(16)) in bits 4..7 and g0 in bits 0..3,
# so each register holds one GF(16) coordinate bit of g1 and of g0 for all 16 lanes. Then
#   x^-1 = theta.(g0.Y^16 + g1.Y),  theta = (g1.g0 + mu.(g1 + g0)^2)^-1   (norm symmetric in g1, g0)
# and a register operand shifted by LSR #4 puts g1 under g0 (free on the M3): the norm's product is
# one 16-lane GF(16) multiplication whose operand combinations serve both operands, and the two output
# products theta.g0, theta.g1 are one 32-lane GF(16) multiplication (theta copied into both nibbles).
# That product gives theta.g1 in the high and theta.g0 in the low nibble: sigma(x^-1), sigma = x^16
# (the swap of g1 and g0, a field automorphism). So the output of a round is in the form sigma.T when
# its input was in the form T and the reverse: odd rounds take T and give sigma.T, even rounds the
# reverse, and the key schedule twists the round keys alternately (mcu_aria_cm3_ct_twist).
# Per-type corrections: the rows of each correction (rank 5 or 7) are computed from the paired
# registers (a high-nibble coordinate is the LSR #4 operand; the other nibble is garbage until the lane
# mask, low or high nibble of the lane byte, clears it), masked, expanded, and added into the pairs with
# LSL/LSR #4 operands. No split and no merge remain around the circuit.

PAIRED_ISO = 82        # index in aria_ct_circuit.isomorphisms() (nu = 3, mu = 10) and
PAIRED_PQ = 4          # in bp_inv16_maps(3): the fewest instructions over both round parities (351)


class PairedProg:
    """A straight-line program over 32-bit registers: (op, dst, a, b, shift, imm), values numbered."""

    def __init__(self) -> None:
        self.ops: list[tuple] = []
        self.n = 0

    def new(self) -> int:
        self.n += 1
        return self.n

    def emit(self, op: str, a: int, b=None, sh=None, imm=None) -> int:
        d = self.new()
        self.ops.append((op, d, a, b, sh, imm))
        return d

    def run(self, inputs: dict[int, int]) -> dict[int, int]:
        v = dict(inputs)
        for op, d, a, b, sh, imm in self.ops:
            if b is None:
                v[d] = v[a] & imm
                continue
            y = v[b]
            if sh == "lsr":
                y >>= 4
            elif sh == "lsl":
                y = (y << 4) & 0xFFFFFFFF
            v[d] = v[a] ^ y if op == "eor" else v[a] | y if op == "orr" else v[a] & y
        return v


def nb_forms(X: list[int]) -> tuple[list[int], list[int]]:
    """T (AES field -> normal-basis tower: g1 = a0 in bits 4..7, g0 = a1 + a0 in bits 0..3, where
    (a1, a0) is the polynomial tower of X) and sigma.T (the nibbles swapped)."""
    N = mat_from_fn(lambda v: ((v & 15) << 4) | ((v >> 4) ^ (v & 15)))
    S = mat_from_fn(lambda v: ((v & 15) << 4) | (v >> 4))
    T = mat_mul(N, X)
    return T, mat_mul(S, T)


def conj(F: list[int], m: list[int]) -> list[int]:
    return mat_mul(F, mat_mul(m, mat_inv(F)))


def _paired_lin(p: PairedProg, have: dict[int, tuple[int, str]], targets: list[int]) -> None:
    """Paar over byte-bit forms; a value is low-aligned ('L', its low nibbles hold the form) or
    high-aligned ('H'); L ^ H is low-aligned with the H operand shifted LSR #4."""
    for nv, pa, pb in paar([t for t in dict.fromkeys(targets) if t not in have]):
        if nv in have:
            continue
        (ra, aa), (rb, ab) = have[pa], have[pb]
        if aa == ab:
            have[nv] = (p.emit("eor", ra, rb), aa)
        else:
            lo, hi = (ra, rb) if aa == "L" else (rb, ra)
            have[nv] = (p.emit("eor", lo, hi, "lsr"), "L")


def _paired_correction(p: PairedProg, Z: list[int], parts: list[tuple[list[int], int]]) -> list[int]:
    """Z[j]: bit j low, bit j + 4 high. parts: (8x8 map, lane byte k). Adds sum(map(z) & lanes k) to
    the pairs; returns the new pair registers."""
    have = {}
    for j in range(4):
        have[1 << j] = (Z[j], "L")
        have[1 << (j + 4)] = (Z[j], "H")
    facts = [mat_rank_factor(m) for m, _ in parts]
    _paired_lin(p, have, [r for R, _ in facts for r in R])
    sig, off, targets = {}, 0, [0] * 8
    for (R, E), (_, k) in zip(facts, parts):
        for q, r in enumerate(R):
            reg, al = have[r]
            sig[1 << (off + q)] = (p.emit("andi", reg, imm=(0x0F if al == "L" else 0xF0) << (8 * k)), al)
        for i in range(8):
            targets[i] |= E[i] << off
        off += len(R)
    _paired_lin(p, sig, [t for t in targets if t])
    out = []
    for j in range(4):
        x = Z[j]
        if targets[j]:
            reg, al = sig[targets[j]]
            x = p.emit("eor", x, reg, "lsr" if al == "H" else None)
        if targets[j + 4]:
            reg, al = sig[targets[j + 4]]
            x = p.emit("eor", x, reg, "lsl" if al == "L" else None)
        out.append(x)
    return out


def _paired_inverse(p: PairedProg, P: list[int], nu: int, mu: int, pq) -> list[int]:
    """P[i]: bit i of g1 (high nibbles) and of g0 (low); returns sigma(x^-1) in the same layout."""
    def combos(b):                       # the nine operands of a GF(16) product (GF(4) Karatsuba)
        x32, x10 = p.emit("eor", b[3], b[2]), p.emit("eor", b[1], b[0])
        x31, x20 = p.emit("eor", b[3], b[1]), p.emit("eor", b[2], b[0])
        return [b[3], b[2], x32, b[1], b[0], x10, x31, x20, p.emit("eor", x32, x10)]

    def x2(a, b):
        return b if a is None else a if b is None else p.emit("eor", a, b)

    def mul16(A, Bc, sh):
        pr = [p.emit("and", A[i], Bc[i], sh) for i in range(9)]
        g = [(p.emit("eor", pr[3 * t + 2], pr[3 * t + 1]), p.emit("eor", pr[3 * t], pr[3 * t + 1]))
             for t in range(3)]
        P1, P0, PM = g
        cw, c1 = m4(nu, 2), m4(nu, 1)
        hi = (p.emit("eor", PM[0], P0[0]), p.emit("eor", PM[1], P0[1]))
        lo = (x2(x2(P1[0] if cw & 2 else None, P1[1] if c1 & 2 else None), P0[0]),
              x2(x2(P1[0] if cw & 1 else None, P1[1] if c1 & 1 else None), P0[1]))
        return [lo[1], lo[0], hi[1], hi[0]]
    Rc = combos(P)
    prod = mul16(Rc, Rc, "lsr")                       # low nibbles: g0.g1
    m16 = make_m16(nu)
    L = [0] * 4                                       # mu.s^2, linear in s
    for j in range(4):
        img = m16(mu, m16(1 << j, 1 << j))
        for i in range(4):
            if (img >> i) & 1:
                L[i] |= 1 << j
    have = dict(zip((8, 4, 12, 2, 1, 3, 10, 5, 15), Rc))     # the bits of P and their combinations
    for nv, pa, pb in paar([v for v in dict.fromkeys(L) if v not in have]):
        if nv not in have:
            have[nv] = p.emit("eor", have[pa], have[pb])
    # norm = g0.g1 + L(g1) + L(g0) in the low nibbles, the high nibbles cleared
    N = [p.emit("andi", p.emit("eor", p.emit("eor", prod[i], have[L[i]]), have[L[i]], "lsr"), imm=0x0F0F0F0F)
         for i in range(4)]
    Pm, Qm = pq
    ts = []
    for r in Pm:                                      # Boyar-Peralta's GF(16) inversion (t21..t40)
        v = None
        for k in range(4):
            if (r >> k) & 1:
                v = x2(v, N[k])
        ts.append(v)
    t21, t22, t23, t24 = ts
    t25 = p.emit("eor", t21, t22)
    t26 = p.emit("and", t21, t23)
    t27 = p.emit("eor", t24, t26)
    t29 = p.emit("eor", p.emit("and", t25, t27), t22)
    t31 = p.emit("eor", t22, t26)
    t33 = p.emit("eor", p.emit("and", t31, p.emit("eor", t23, t24)), t24)
    t35 = p.emit("eor", t27, t33)
    t36 = p.emit("and", t24, t35)
    t37 = p.emit("eor", p.emit("eor", t36, t23), t33)
    t40 = p.emit("eor", t25, p.emit("and", t29, p.emit("eor", t27, t36)))
    hv = {3: t29, 2: t33, 1: t37, 0: t40}
    have = {1 << k: p.emit("orr", hv[k], hv[k], "lsl") for k in range(4)}   # theta in both nibbles
    th = [sum(1 << k for k in range(4) if (Qm[k] >> m) & 1) for m in range(4)]
    need = [th[3], th[2], th[3] ^ th[2], th[1], th[0], th[1] ^ th[0], th[3] ^ th[1], th[2] ^ th[0],
            th[3] ^ th[2] ^ th[1] ^ th[0]]
    for nv, pa, pb in paar([v for v in dict.fromkeys(need) if v not in have]):
        if nv not in have:
            have[nv] = p.emit("eor", have[pa], have[pb])
    return mul16([have[v] for v in need], Rc, None)


def build_paired(nu: int, mu: int, X: list[int], pq, odd: bool):
    """The one-block S-box stage of one round parity: (program, inputs Z, outputs Y, Fin, Fout, lane
    byte of SB1..SB4)."""
    T, ST = nb_forms(X)
    Fin, Fout = (T, ST) if odd else (ST, T)
    lane = (0, 1, 2, 3) if odd else (2, 3, 0, 1)
    p = PairedProg()
    Z = [p.new() for _ in range(4)]
    P = _paired_correction(p, Z, [(conj(Fin, mat_add(mat_inv(B), IDENTITY)), lane[2]),
                                  (conj(Fin, mat_add(mat_inv(C_PRIME), IDENTITY)), lane[3])])
    Q = _paired_inverse(p, P, nu, mu, pq)
    Y = _paired_correction(p, Q, [(conj(Fout, mat_add(B, IDENTITY)), lane[0]),
                                  (conj(Fout, mat_add(C_PRIME, IDENTITY)), lane[1])])
    return p, Z, Y, Fin, Fout, lane


def check_paired(p: PairedProg, Z: list[int], Y: list[int], Fin, Fout, lane) -> None:
    """All 256 inputs of every S-box type, 16 lanes a run on 32-bit registers as the core holds them."""
    sboxes = (SB1, SB2, SB3, SB4)
    for batch in range(64):
        regs, want = [0] * 4, {}
        for k in range(4):
            t = lane.index(k)
            for w in range(4):
                x = 4 * batch + w
                z = mat_apply(Fin, x)
                want[(k, w)] = mat_apply(Fout, sboxes[t][x ^ CIN[t]] ^ COUT[t])
                for j in range(4):
                    regs[j] |= ((z >> j) & 1) << (8 * k + w) | ((z >> (j + 4)) & 1) << (8 * k + 4 + w)
        v = p.run(dict(zip(Z, regs)))
        for (k, w), y in want.items():
            got = 0
            for j in range(4):
                got |= ((v[Y[j]] >> (8 * k + w)) & 1) << j | ((v[Y[j]] >> (8 * k + 4 + w)) & 1) << (j + 4)
            if got != y:
                raise AssertionError(f"paired circuit wrong: lane byte {k}, input {4 * batch + w:#04x}")


def build_formed(nu: int, mu: int, X: list[int], pq, Fin, Fout) -> tuple[Circuit, list[int]]:
    """The 8-slice circuit of the two-block core for input form Fin and output form Fout (the
    one-block core's alternating forms): the masked corrections of build_twisted around the tower
    inversion, with the basis changes between the forms and X folded into the linear layers."""
    c = Circuit()
    x = [c.input() for _ in range(8)]
    v = masked_map(c, conj(Fin, mat_add(mat_inv(B), IDENTITY)), x, "M3")
    w = masked_map(c, conj(Fin, mat_add(mat_inv(C_PRIME), IDENTITY)), x, "M4")
    a = [c.checkpoint(x[i] ^ v[i] ^ w[i]) for i in range(8)]
    z = tower_inverse(c, nu, mu, lin_apply(mat_mul(X, mat_inv(Fin)), a), pq)
    z = lin_apply(mat_mul(Fout, mat_inv(X)), z)
    q = masked_map(c, conj(Fout, mat_add(B, IDENTITY)), z, "M1")
    r = masked_map(c, conj(Fout, mat_add(C_PRIME, IDENTITY)), z, "M2")
    return c, [z[i] ^ q[i] ^ r[i] for i in range(8)]



class Allocator:
    """Belady register allocation of the scheduled S-box program over REGS."""

    def __init__(self, ops: list[tuple], outputs: list[int], in_regs: dict[int, str],
                 home: dict[int, str] | None = None) -> None:
        self.ops = ops
        self.home = dict(home or {})         # output value -> the register it should end in
        self.uses: dict[int, list[int]] = {}
        for idx, p in enumerate(ops):
            for v in srcs(p):
                self.uses.setdefault(v, []).append(idx)
        for v in outputs:
            self.uses.setdefault(v, []).append(len(ops))
        self.outputs = outputs
        self.reg: dict[int, str] = dict(in_regs)
        self.holder: dict[str, int] = {r: v for v, r in in_regs.items()}
        self.free = [r for r in REGS if r not in self.holder]
        self.slot: dict[int, int] = {}          # value -> spill slot (the value is clean while there)
        self.free_slots: list[int] = []
        self.nslots = 0
        self.lines: list[str] = []
        self.stores = 0
        self.loads = 0

    def next_use(self, v: int, idx: int) -> int:
        for u in self.uses.get(v, []):
            if u >= idx:
                return u
        return 1 << 30

    def _evict(self, idx: int, protect: set[str]) -> str:
        cands = [r for r, v in self.holder.items() if r not in protect]
        # furthest next use first; on a tie a clean value (its slot holds it) goes first
        r = max(cands, key=lambda r: (self.next_use(self.holder[r], idx), self.holder[r] in self.slot))
        v = self.holder.pop(r)
        del self.reg[v]
        if v not in self.slot:
            if self.free_slots:
                s = self.free_slots.pop()
            else:
                s = self.nslots
                self.nslots += 1
            self.slot[v] = s
            self.lines.append(f"    str   {r}, [sp, #{SPILL_BASE + 4 * s}]")
            self.stores += 1
        return r

    def _take(self, idx: int, protect: set[str], dst: int | None = None) -> str:
        want = self.home.get(dst)
        if want in self.free:
            self.free.remove(want)
            return want
        if self.free:
            # keep the outputs' home registers free while another register is
            homes = set(self.home.values())
            r = next((x for x in self.free if x not in homes), self.free[0])
            self.free.remove(r)
            return r
        return self._evict(idx, protect)

    def _bind(self, v: int, r: str) -> None:
        self.reg[v] = r
        self.holder[r] = v

    def ensure(self, v: int, idx: int, protect: set[str]) -> str:
        if v in self.reg:
            return self.reg[v]
        r = self._take(idx, protect)
        self.lines.append(f"    ldr   {r}, [sp, #{SPILL_BASE + 4 * self.slot[v]}]")
        self.loads += 1
        self._bind(v, r)
        return r

    def _release(self, v: int) -> None:
        r = self.reg.pop(v, None)
        if r is not None:
            del self.holder[r]
            self.free.insert(0, r)
        s = self.slot.pop(v, None)
        if s is not None:
            self.free_slots.append(s)

    def run(self) -> dict[int, str]:
        end = len(self.ops)
        for idx, (op, dst, a, b, sh, imm) in enumerate(self.ops):
            srcs = [a] if b is None else [a, b]
            protect: set[str] = set()
            regs = []
            for v in srcs:
                r = self.ensure(v, idx, protect)
                protect.add(r)
                regs.append(r)
            for v in set(srcs):
                if self.next_use(v, idx + 1) == 1 << 30:
                    self._release(v)
            rd = self._take(idx, protect - set(self.free), dst)
            self._bind(dst, rd)
            if b is None:
                text = MASK_IMM[imm] if isinstance(imm, str) else f"0x{imm:08x}"
                self.lines.append(f"    and   {rd}, {regs[0]}, #{text}")
            else:
                shift = f", {sh} #4" if sh else ""
                self.lines.append(f"    {op:<5} {rd}, {regs[0]}, {regs[1]}{shift}")
            if self.next_use(dst, idx + 1) == 1 << 30:
                self._release(dst)
        out = {}
        protect = set()
        for v in self.outputs:
            r = self.ensure(v, end, protect)
            protect.add(r)
            out[v] = r
        return out


def srcs(p: tuple) -> list[int]:
    """The operand values of an operation (op, dst, a, b, shift, imm)."""
    return [p[2]] if p[3] is None else [p[2], p[3]]


def from_circuit(ops: list[tuple]) -> list[tuple]:
    """aria_ct_circuit's program ops (xor / and / mask) in the allocator's form (op, dst, a, b, shift, imm)."""
    out = []
    for p in ops:
        if p[0] == "mask":
            out.append(("andi", p[1], p[2], None, None, p[3]))
        else:
            out.append(("eor" if p[0] == "xor" else "and", p[1], p[2], p[3], None, None))
    return out


def noisy_schedule(ops: list[tuple], outputs: list[int], inputs: set[int], noise: list[float]) -> list[int]:
    """The list scheduler of aria_ct_circuit.schedule (prefer the ready operation that ends the most
    lifetimes) with a per-operation bias: returns the order as indices into ops."""
    uses: dict[int, int] = {}
    for p in ops:
        for v in set(srcs(p)):
            uses[v] = uses.get(v, 0) + 1
    keep = set(outputs)
    done = set(inputs)
    pending = list(range(len(ops)))
    order = []
    while pending:
        ready = [i for i in pending if all(v in done for v in srcs(ops[i]))]

        def cost(i: int) -> tuple[float, int]:
            freed = sum(1 for v in set(srcs(ops[i])) if uses[v] == 1 and v not in keep)
            return (1 - freed + noise[i], i)
        i = min(ready, key=cost)
        pending.remove(i)
        order.append(i)
        done.add(ops[i][1])
        for v in set(srcs(ops[i])):
            uses[v] -= 1
    return order


def spill_cost(ops: list[tuple], order: list[int], outputs: list[int], in_regs: dict[int, str],
               home: dict[int, str] | None = None) -> int:
    """Cycles of the spills (LDR 2, STR 1) and, with home, of the MOVs that bring the outputs home."""
    al = Allocator([ops[i] for i in order], outputs, in_regs, home)
    out = al.run()
    moves = parallel_move({out[v]: r for v, r in home.items()}, set(out.values())) if home else []
    return 2 * al.loads + al.stores + len(moves)


def search_order(ops: list[tuple], outputs: list[int], in_regs: dict[int, str], iters: int,
                 home: dict[int, str] | None = None) -> list[int]:
    """Hill climbing over the scheduler's biases, scored by the spill cycles of the Belady allocation
    (seeded: the same iteration count gives the same order)."""
    MASK_IMM.update({k: "0" for k in ("M1", "M2", "M3", "M4")})    # the text is not used here
    rng = random.Random(2026)
    noise = [0.5 * rng.random() for _ in ops]
    best_order = noisy_schedule(ops, outputs, set(in_regs), noise)
    best = spill_cost(ops, best_order, outputs, in_regs, home)
    for _ in range(iters):
        trial = list(noise)
        for _ in range(rng.randint(1, 6)):
            trial[rng.randrange(len(trial))] = 0.5 * rng.random()
        order = noisy_schedule(ops, outputs, set(in_regs), trial)
        c = spill_cost(ops, order, outputs, in_regs, home)
        if c <= best:
            best, best_order, noise = c, order, trial
    return best_order


MASK_IMM: dict[str, str] = {}        # mask name -> immediate text, set per round parity


def merge_code(pairs: list[tuple[str, str]], busy: set[str]) -> list[str]:
    """W[r] = lo_r | hi_r << 4 for r = 0..3 as a parallel assignment (a W register is written once no
    pending merge still reads it; a cycle is broken through a spare register)."""
    lines: list[str] = []
    pending = {r: list(pr) for r, pr in enumerate(pairs)}
    spare = [x for x in REGS if x not in busy and x not in W]
    while pending:
        for r in sorted(pending):
            others = [x for rr, pr in pending.items() if rr != r for x in pr]
            if W[r] not in others:
                lo, hi = pending.pop(r)
                lines.append(f"    orr   {W[r]}, {lo}, {hi}, lsl #4")
                break
        else:
            r = min(pending)
            tmp = spare.pop(0)
            lines.append(f"    mov   {tmp}, {W[r]}")
            for pr in pending.values():
                for i, x in enumerate(pr):
                    if x == W[r]:
                        pr[i] = tmp
    return lines


def input_regs(prog: list[tuple], slices) -> dict[int, str]:
    ins = [p[1] for p in prog if p[0] == "in"]
    in_regs = {}
    for idx, (b, r) in enumerate(slices):
        in_regs[ins[b]] = W[r] if idx % 2 == 0 else HI[r]
    return in_regs


def linear_stage(rows: list[int], in_by_bit: dict[int, str]) -> tuple[list[str], dict[int, str], int]:
    """out bit i = XOR of the input bits j set in rows[i] (Paar-factored, Belady-allocated): lines,
    the register of each output bit, spill slots used."""
    ops = [("eor", nv, pa, pb, None, None) for nv, pa, pb in paar(list(rows))]
    al = Allocator(ops, list(rows), {1 << j: r for j, r in in_by_bit.items()})
    out = al.run()
    return al.lines, {i: out[rows[i]] for i in range(8)}, al.nslots


def parallel_move(moves: dict[str, str], busy: set[str]) -> list[str]:
    """dst <- src for every (src: dst) at once; a cycle is broken through a register not in busy."""
    lines: list[str] = []
    pending = {d: s for s, d in moves.items() if s != d}
    spare = [x for x in REGS if x not in busy and x not in pending and x not in pending.values()]
    while pending:
        for d in sorted(pending):
            if d not in pending.values():
                lines.append(f"    mov   {d}, {pending.pop(d)}")
                break
        else:
            d = min(pending)
            tmp = spare.pop(0)
            lines.append(f"    mov   {tmp}, {d}")
            for k, v in pending.items():
                if v == d:
                    pending[k] = tmp
    return lines


def merge_lines(by_bit: dict[int, str], slices) -> list[str]:
    pairs = [(by_bit[slices[2 * r][0]], by_bit[slices[2 * r + 1][0]]) for r in range(4)]
    return ["    /* merge the nibble slices back into words r0..r3 */"] + merge_code(pairs, set(by_bit.values()))


def twist_code(X: list[int]) -> str:
    """mcu_aria_cm3_ct_twist: X applied to every byte of n words, four bytes at a time through MUL: bit j
    of each byte (AND 0x01010101 after LSR #j) times column j of X (at most 0xFF: no carry between
    bytes), the eight products XORed."""
    cols = [sum(((X[i] >> j) & 1) << i for i in range(8)) for j in range(8)]
    lines = ["    and   r3, r12, r2", f"    movs  r4, #0x{cols[0]:02x}", "    mul   r5, r3, r4"]
    for j in range(1, 8):
        lines += [f"    and   r3, r12, r2, lsr #{j}", f"    movs  r4, #0x{cols[j]:02x}", "    mul   r3, r3, r4",
                  "    eor   r5, r5, r3"]
    return "\n".join(lines)


# The round count of the one-block core. Only the key schedule's FO is a cipher call that ends after an
# odd round (one round), so the odd body just branches on Z, which the entry sets (rounds == 1) and
# the even body's SUBS leaves clear when the loop goes on: nothing between them sets the flags (EOR,
# AND, ORR, MOV, REV, loads and stores without S). The even body counts two rounds.
COUNT = {"odd": ["    beq   .Laria_cm3_ct_last_odd            /* Z: this is the last round (FO only) */"],
         "even": ["    ldr   r4, [sp, #8]", "    subs  r4, r4, #2", "    str   r4, [sp, #8]",
                  "    ble   .Laria_cm3_ct_last_even           /* no rounds left after this pair */"]}

FORMED_PQ = 5          # bp_inv16_maps(3) for the two-block core's circuits (415 instructions for both)


def ordered(ops: list[tuple], outputs: list[int], in_regs: dict[int, str], key: str, orders: dict,
            search: int, home: dict[int, str] | None = None) -> list[tuple]:
    """The operations in the stored (or searched, or the unbiased list scheduler's) order, checked to
    be a permutation that respects every dependency."""
    if search:
        orders[key] = search_order(ops, outputs, in_regs, search, home)
    order = orders.get(key) or noisy_schedule(ops, outputs, set(in_regs), [0.0] * len(ops))
    assert sorted(order) == list(range(len(ops))), "the stored order must cover every operation once"
    done = set(in_regs)
    for i in order:
        assert all(v in done for v in srcs(ops[i])), "order breaks a dependency"
        done.add(ops[i][1])
    return [ops[i] for i in order]


def split_lines() -> list[str]:
    """The paired registers r0..r3 into eight slices (low nibbles in r0..r3, high in r4..r7)."""
    lines = ["    movw  r8, #0x0f0f", "    movt  r8, #0x0f0f"]
    for r in range(4):
        lines.append(f"    and   {HI[r]}, r8, {W[r]}, lsr #4")
        lines.append(f"    and   {W[r]}, {W[r]}, r8")
    return lines


def generate(search: int = 0) -> str:
    nu, mu, X = list(isomorphisms())[PAIRED_ISO]
    maps = bp_inv16_maps(nu)
    T, ST = nb_forms(X)
    slices, lanes = slice_layout()
    pair_reg = {}                       # bit j (low nibbles) and j + 4 (high nibbles) share a register
    for idx in range(0, 8, 2):
        (b0, r0), (b1, r1) = slices[idx], slices[idx + 1]
        assert r0 == r1 and b1 == b0 + 4 and b0 < 4
        pair_reg[b0] = W[r0]
    slice_reg = {b: (W[r] if idx % 2 == 0 else HI[r]) for idx, (b, r) in enumerate(slices)}
    for (w, j), pos in lanes.items():
        assert pos // 8 == j, "the lanes of byte position j must be in byte j of every register"
    orders = {} if search or not ORDER_FILE.is_file() else json.loads(ORDER_FILE.read_text())
    pos_mask = [0x0F << (8 * j) for j in range(4)]
    odd_masks = {"M1": pos_mask[0], "M2": pos_mask[1], "M3": pos_mask[2], "M4": pos_mask[3]}
    even_masks = {"M1": pos_mask[2], "M2": pos_mask[3], "M3": pos_mask[0], "M4": pos_mask[1]}
    slots = []

    def twist_stage(F) -> list[str]:
        """F applied to every byte of the paired registers r0..r3: split, Paar, merge."""
        lines, out, n = linear_stage(F, slice_reg)
        slots.append(n)
        return split_lines() + lines + merge_lines(out, slices)
    # ---- the one-block core: the paired circuit, one per round parity
    bodies, exits, counts = {}, {}, {}
    for name, odd, F_out in (("odd", True, ST), ("even", False, T)):
        p, Z, Y, Fin, Fout, lane = build_paired(nu, mu, X, maps[PAIRED_PQ], odd)
        check_paired(p, Z, Y, Fin, Fout, lane)
        in_regs = {Z[j]: pair_reg[j] for j in range(4)}
        home = {Y[j]: pair_reg[j] for j in range(4)}
        ops = ordered(p.ops, Y, in_regs, f"core_{name}", orders, search, home)
        al = Allocator(ops, Y, in_regs, home)
        out = al.run()
        slots.append(al.nslots)
        place = parallel_move({out[Y[j]]: pair_reg[j] for j in range(4)}, set(out.values()))
        counts[name] = {k: sum(1 for o in ops if o[0] == k) for k in ("eor", "and", "andi", "orr")}
        counts[name].update({"ldr": al.loads, "str": al.stores, "n": len(ops), "mov": len(place)})
        bodies[name] = "\n".join(al.lines + (["    /* the pairs back into r0..r3 */"] if place else []) + place + [
            "    /* ---- end of S-box circuit: count the round ---- */"] + COUNT[name])
        exits[name] = "\n".join(twist_stage(mat_inv(F_out)))
    tw_in = {"odd": "\n".join(twist_stage(T)), "even": "\n".join(twist_stage(ST))}
    # ---- the two-block core: 8-slice circuits for the same forms, 32 lanes (masks 0xFF << 8j)
    core2_parts, counts2 = {}, {}
    for name, Fin, Fout, masks in (("odd", T, ST, odd_masks), ("even", ST, T, even_masks)):
        c, y = build_formed(nu, mu, X, maps[FORMED_PQ], Fin, Fout)
        check_circuit(c, y, Fin, Fout, "two-block circuit")
        prog, outputs = to_program(c, y)
        in_regs = input_regs(prog, slices)
        base = from_circuit([q for q in prog if q[0] != "in"])
        home = {outputs[b]: slice_reg[b] for b in range(8)}
        # scored by the spills alone: with the MOVs in the score, 8000 steps end in orders that cost more
        ops = ordered(base, outputs, in_regs, f"core2_{name}", orders, search)
        MASK_IMM.clear()
        MASK_IMM.update({k: f"0x{v | v << 4:08x}" for k, v in masks.items()})
        al = Allocator(ops, outputs, in_regs, home)
        out = al.run()
        slots.append(al.nslots)
        by_bit = {b: out[outputs[b]] for b in range(8)}
        counts2[name] = (len(ops), al.stores, al.loads)
        free = [r for r in REGS if r not in by_bit.values()][0]
        place = parallel_move({by_bit[b]: slice_reg[b] for b in range(8)}, set(by_bit.values()))
        un_lines, un_out, un_slots = linear_stage(mat_inv(Fout), by_bit)
        slots.append(un_slots)
        un_place = parallel_move({un_out[b]: slice_reg[b] for b in range(8)}, set(un_out.values()))
        core2_parts[name] = (al.lines + ["    /* ---- end of S-box circuit: count the round ---- */",
                                         f"    ldr   {free}, [sp, #8]", f"    subs  {free}, {free}, #1",
                                         f"    str   {free}, [sp, #8]", f"    beq   .Laria_cm3_ct2_last_{name}",
                                         "    /* the slices back into the split layout */"] + place,
                             un_lines + ["    /* the slices back into the split layout */"] + un_place)
    tw2_lines, tw2_out, tw2_slots = linear_stage(T, slice_reg)
    slots.append(tw2_slots)
    tw2_lines += parallel_move({tw2_out[b]: slice_reg[b] for b in range(8)}, set(tw2_out.values()))
    if search:
        ORDER_FILE.write_text(json.dumps(orders) + "\n")
    core2 = CORE2.replace("@SBOX2_ODD@", "\n".join(core2_parts["odd"][0])).replace(
        "@SBOX2_EVEN@", "\n".join(core2_parts["even"][0])).replace(
        "@EXIT2_ODD@", "\n".join(core2_parts["odd"][1])).replace(
        "@EXIT2_EVEN@", "\n".join(core2_parts["even"][1])).replace("@TWIST_IN@", "\n".join(tw2_lines))
    frame = SPILL_BASE + 4 * max(slots)
    frame += (-frame) % 8
    nib = [f"    SWAPMOVE {W[r]}, {HI[r]}, 0x0f0f0f0f, 4" for r in range(4)]
    to_slices2 = []
    for blk in (W, HI):
        for ai, bi, mask, n in TRANSPOSE:
            to_slices2.append(f"    SWAPMOVE {blk[ai]}, {blk[bi]}, 0x{mask:08x}, {n}")
    to_words2 = list(nib)
    for blk in (W, HI):
        for ai, bi, mask, n in reversed(TRANSPOSE):
            to_words2.append(f"    SWAPMOVE {blk[ai]}, {blk[bi]}, 0x{mask:08x}, {n}")
    to_slices = [f"    SWAPMOVE {W[ai]}, {W[bi]}, 0x{mask:08x}, {n}" for ai, bi, mask, n in TRANSPOSE]
    to_words = [f"    SWAPMOVE {W[ai]}, {W[bi]}, 0x{mask:08x}, {n}" for ai, bi, mask, n in reversed(TRANSPOSE)]
    assert M55 == 0x55555555 and M33 == 0x33333333
    lane_doc = ",\n".join(" *        " + ", ".join(f"{4 * w + j} -> {lanes[(w, j)]}" for j in range(4)) for w in range(4))

    def cnt(name: str) -> str:
        k = counts[name]
        return (f"{k['n']} instructions ({k['eor']} EOR, {k['and']} AND, {k['andi']} AND with a mask, "
                f"{k['orr']} ORR), {k['str']} STR + {k['ldr']} LDR of spills, {k['mov']} MOV")
    text = TEMPLATE
    rep = {
        "@CORE2@": core2,
        "@TO_SLICES2@": "\n".join(to_slices2 + nib),
        "@TO_WORDS2@": "\n".join(to_words2),
        "@NU@": str(nu), "@MU@": str(mu), "@X@": " ".join(f"{r:02x}" for r in X),
        "@T@": " ".join(f"{r:02x}" for r in T),
        "@COUNTS_ODD@": cnt("odd"), "@COUNTS_EVEN@": cnt("even"),
        "@COUNTS2@": ",\n".join(f" *   {n} rounds: {c[0]} instructions, {c[1]} STR + {c[2]} LDR of spills"
                                 for n, c in counts2.items()),
        "@LANES@": lane_doc,
        "@FRAME@": str(frame),
        "@TO_SLICES@": "\n".join(to_slices),
        "@TO_WORDS@": "\n".join(to_words),
        "@TWIST_IN_ODD@": tw_in["odd"],
        "@TWIST_IN_EVEN@": tw_in["even"],
        "@SBOX_ODD@": bodies["odd"],
        "@SBOX_EVEN@": bodies["even"],
        "@EXIT_ODD@": exits["odd"],
        "@EXIT_EVEN@": exits["even"],
        "@TWIST_KEYS_T@": twist_code(T),
        "@TWIST_KEYS_ST@": twist_code(ST),
    }
    for k, v in rep.items():
        text = text.replace(k, v)
    assert "@" not in text.replace("@progbits", ""), "a placeholder is left"
    return text


CORE2 = r"""/* void mcu_aria_cm3_ct_core2(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t rounds):
 * encrypts (or, with decryption keys, decrypts) the two consecutive blocks in[0..31] into out[0..31]:
 * the cipher of ct_core (first round odd, final key) with the 32 lanes of each slice filled, block 0 in
 * r0..r3 and block 1 in r4..r7 in word form. Eight slices of 32 lanes (the lane masks are 0xFF << 8j)
 * through an 8-slice circuit per round parity for the one-block core's forms (T in, sigma.T out in odd
 * rounds, the reverse in even ones); the key is loaded once for both blocks (r9..r12). */
    .section .text.aria_cm3_ct_core2, "ax", %progbits
    .balign 4
    .globl MCU_FN(aria, ct_core2)
    .type MCU_FN(aria, ct_core2), %function
    .thumb_func
MCU_FN(aria, ct_core2):
    push  {r4-r11, lr}
    sub   sp, sp, #FRAME
    str   r0, [sp, #0]
    str   r2, [sp, #12]
    and   r4, r3, #255
    str   r4, [sp, #8]
    ldr   r4, [r1, #16]
    ldr   r5, [r1, #20]
    ldr   r6, [r1, #24]
    ldr   r7, [r1, #28]
    ldr   r0, [r1, #0]
    ldr   r2, [r1, #8]
    ldr   r3, [r1, #12]
    ldr   r1, [r1, #4]
    ADDKEY2 0                   /* the first key is plain */
    TO_SLICES2
    /* ---- into the form T, generated ---- */
@TWIST_IN@
    b     .Laria_cm3_ct2_odd_sbox
.Laria_cm3_ct2_odd:
    TO_SLICES2
.Laria_cm3_ct2_odd_sbox:
    /* ---- S-box circuit, odd round, 32 lanes, generated ---- */
@SBOX2_ODD@
    TO_WORDS2
    DIFFUSE r0, r1, r2, r3
    DIFFUSE r4, r5, r6, r7
    ADDKEY2 1
    TO_SLICES2
    /* ---- S-box circuit, even round, 32 lanes, generated ---- */
@SBOX2_EVEN@
    TO_WORDS2
    DIFFUSE r0, r1, r2, r3
    DIFFUSE r4, r5, r6, r7
    ADDKEY2 1
    b     .Laria_cm3_ct2_odd
.Laria_cm3_ct2_last_odd:
    /* ---- the last round's outputs out of the form sigma.T, generated ---- */
@EXIT2_ODD@
    b     .Laria_cm3_ct2_last
.Laria_cm3_ct2_last_even:
    /* ---- the last round's outputs out of the form T, generated ---- */
@EXIT2_EVEN@
.Laria_cm3_ct2_last:
    TO_WORDS2
    ADDKEY2 0                   /* the final key, plain */
    ldr   r8, [sp, #0]
    str   r0, [r8, #0]
    str   r1, [r8, #4]
    str   r2, [r8, #8]
    str   r3, [r8, #12]
    str   r4, [r8, #16]
    str   r5, [r8, #20]
    str   r6, [r8, #24]
    str   r7, [r8, #28]
    add   sp, sp, #FRAME
    pop   {r4-r11, pc}
    .size MCU_FN(aria, ct_core2), . - MCU_FN(aria, ct_core2)"""


TEMPLATE = r"""// SPDX-License-Identifier: MIT
/* GENERATED by gen_ct_cm3.py -- do not edit; change the generator and rerun it.
 *
 * Constant-time ARIA on the Cortex-M3 (cm3-ct): no load, store or branch depends on a secret.
 *
 *   void mcu_ariaN_cm3_ct_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_ariaN_cm3_ct_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_aria_cm3_ct_ct_core(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t ctl);
 *   void mcu_aria_cm3_ct_ct_core2(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t rounds);
 *   void mcu_aria_cm3_ct_twist(uint32_t *w, uint32_t n, uint32_t sigma);
 *
 * rk: the round keys of rv32/aria_ct_ks.c (spec round keys with the S-boxes' additive constants folded
 * in), the keys 2..rounds in the form of the round they precede (armv7m/aria_ks_cm3.c calls
 * mcu_aria_cm3_ct_twist: T applied to every byte of the keys before odd rounds, sigma.T before even
 * ones); the first and the final key are plain. ctl (core only): bits 0..7 the number of rounds, bit 8
 * set when the first round is even (SL2), bit 9 set for the cipher (the last round has no diffusion and
 * is followed by the final key); without bit 9 every round is full (the key schedule's FO/FE).
 *
 * Forms: T maps the AES field onto a tower GF((2^4)^2) in the normal basis (Y^16, Y): a byte is
 * g1.Y^16 + g0.Y, g1 in bits 4..7 and g0 in bits 0..3 (GF(((2^2)^2)) with nu = @NU@, mu = @MU@; T's rows
 * @T@); sigma = x^16 swaps g1 and g0. The state enters an odd round in form T and leaves it in
 * form sigma.T, and the reverse in even rounds (the circuit's output product gives sigma(x^-1)).
 *
 * A round, on four little-endian state words r0..r3 (the word form of rv32/aria_ttable.S):
 *   1. the round key (LDM, four EOR; after a diffusion the pending ror16 of words 0, 1, 3 is the
 *      EOR's shifted operand);
 *   2. four SWAPMOVEs (barrel-shifted EOR operands): register r0..r3 then holds one bit of g0 in the
 *      low nibble and the same bit of g1 in the high nibble of each lane byte, 16 lanes (state byte
 *      -> bit of the low nibble; + 4 in the high nibble):
@LANES@;
 *      in the first round the block enters its form (a split into eight slices, the matrix, the
 *      merge);
 *   3. the paired S-box circuit (gen_ct_cm3.py build_paired): the per-type corrections masked at their
 *      rank, the norm g1.g0 + mu.(g1 + g0)^2 with LSR #4 operands, Boyar and Peralta's GF(16)
 *      inversion, the norm's inverse copied into both nibbles and one 32-lane GF(16) product for the
 *      two output coordinates, the output corrections; register-allocated over r0-r12 and lr with
 *      Belady spilling:
 *        odd rounds:  @COUNTS_ODD@,
 *        even rounds: @COUNTS_EVEN@;
 *   4. back to words: the SWAPMOVEs in reverse; in the last round the block leaves its form first;
 *   5. A = M.P.M.D: D as two EOR a word with a ror16 left pending, M (6 EOR), P (REV16 on word 1, the
 *      pending ror16 of word 2 cancels P's half swap, REV on word 3), M with the pending rotations
 *      folded into its EOR operands.
 * Every instruction of the rounds is a one-cycle ALU operation with public operands' addresses: the
 * spill slots, the round keys, the block; branches depend on ctl only.
 * The two-block core keeps eight slices of 32 lanes (two blocks) and an 8-slice circuit for the same
 * forms (build_formed):
@COUNTS2@.
 *
 * Frame (sp): 0 out, 4 ctl, 8 rounds left, 12 rk pointer, 16.. spill slots. r8 holds 0x0F0F0F0F during
 * the split; r8 is the SWAPMOVE scratch otherwise.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

#define FRAME @FRAME@

/* SWAPMOVE(a, b, mask, n): exchanges the bits of b under mask with the bits of a under mask << n. */
.macro SWAPMOVE a, b, m, n
    eor   r8, \b, \a, lsr #\n
    and   r8, r8, #\m
    eor   \b, \b, r8
    eor   \a, \a, r8, lsl #\n
.endm

/* Round key into r0..r3; fold = 1 when words 0, 1, 3 carry a pending ror16 (after DIFFUSE). */
.macro ADDKEY fold
    ldr   r8, [sp, #12]
    ldmia r8!, {r4-r7}
    str   r8, [sp, #12]
  .if \fold
    eor   r0, r4, r0, ror #16
    eor   r1, r5, r1, ror #16
    eor   r2, r2, r6
    eor   r3, r7, r3, ror #16
  .else
    eor   r0, r0, r4
    eor   r1, r1, r5
    eor   r2, r2, r6
    eor   r3, r3, r7
  .endif
.endm

/* The two-block core's round key: into r0..r3 (block 0) and r4..r7 (block 1), through r9..r12. */
.macro ADDKEY2 fold
    ldr   r8, [sp, #12]
    ldmia r8!, {r9-r12}
    str   r8, [sp, #12]
  .if \fold
    eor   r0, r9, r0, ror #16
    eor   r1, r10, r1, ror #16
    eor   r2, r2, r11
    eor   r3, r12, r3, ror #16
    eor   r4, r9, r4, ror #16
    eor   r5, r10, r5, ror #16
    eor   r6, r6, r11
    eor   r7, r12, r7, ror #16
  .else
    eor   r0, r0, r9
    eor   r1, r1, r10
    eor   r2, r2, r11
    eor   r3, r3, r12
    eor   r4, r4, r9
    eor   r5, r5, r10
    eor   r6, r6, r11
    eor   r7, r7, r12
  .endif
.endm

.macro TO_SLICES
@TO_SLICES@
.endm

/* Two blocks: each block's words transposed, then block 1's low nibbles exchanged with block 0's high
 * nibbles: r0..r3 hold the low-nibble slices and r4..r7 the high-nibble ones, block 0 in bits 8j..8j+3
 * and block 1 in bits 8j+4..8j+7 of every lane byte. */
.macro TO_SLICES2
@TO_SLICES2@
.endm

.macro TO_WORDS2
@TO_WORDS2@
.endm

.macro TO_WORDS
@TO_WORDS@
.endm

/* D on word w: w ^= ror24(w ^ ror16(w)); the result is ror16 of D(w) (left pending). */
.macro DBYTES w
    eor   r8, \w, \w, ror #16
    eor   \w, \w, r8, ror #24
.endm

/* A = M.P.M.D on r0..r3; leaves words 0, 1, 3 as ror16 of their value (pending), word 2 exact. */
.macro DIFFUSE w0=r0, w1=r1, w2=r2, w3=r3
    DBYTES \w0
    DBYTES \w1
    DBYTES \w2
    DBYTES \w3
    eor   \w1, \w1, \w2         /* M (all four pending ror16: it commutes) */
    eor   \w2, \w2, \w3
    eor   \w0, \w0, \w1
    eor   \w3, \w3, \w1
    eor   \w2, \w2, \w0
    eor   \w1, \w1, \w2
    rev16 \w1, \w1              /* P: bytes (1 0 3 2); commutes with ror16 */
                                /* word 2: P's half swap cancels the pending ror16 */
    rev   \w3, \w3              /* bytes (3 2 1 0); commutes with ror16 */
    eor   \w1, \w1, \w2, ror #16/* M, word 2 brought into the pending form in each operand */
    eor   \w2, \w2, \w3, ror #16
    eor   \w0, \w0, \w1
    eor   \w3, \w3, \w1
    eor   \w2, \w2, \w0, ror #16
    eor   \w1, \w1, \w2, ror #16
.endm

    .section .text.aria_cm3_ct_core, "ax", %progbits
    .balign 4
    .globl MCU_FN(aria, ct_core)
    .type MCU_FN(aria, ct_core), %function
    .thumb_func
MCU_FN(aria, ct_core):
    push  {r4-r11, lr}
    sub   sp, sp, #FRAME
    str   r0, [sp, #0]
    str   r3, [sp, #4]
    str   r2, [sp, #12]
    and   r4, r3, #255
    str   r4, [sp, #8]
    ldr   r0, [r1, #0]          /* any alignment: the M3 loads unaligned words (the pointer is public) */
    ldr   r2, [r1, #8]
    ldr   r3, [r1, #12]
    ldr   r1, [r1, #4]
    ADDKEY 0                    /* the first key is plain */
    TO_SLICES
    ldr   r9, [sp, #4]
    tst   r9, #256
    bne   .Laria_cm3_ct_even_entry
    /* ---- into the form T of an odd round's input: every byte x becomes T.x, generated ---- */
@TWIST_IN_ODD@
    ldr   r9, [sp, #8]
    cmp   r9, #1                /* Z for the odd body's count: one round only (FO) */
    b     .Laria_cm3_ct_odd_sbox
.Laria_cm3_ct_even_entry:
    /* ---- into the form sigma.T of an even round's input, generated ---- */
@TWIST_IN_EVEN@
    b     .Laria_cm3_ct_even_sbox
.Laria_cm3_ct_odd:
    TO_SLICES
.Laria_cm3_ct_odd_sbox:
    /* ---- S-box circuit, odd round (SL1 = SB1 SB2 SB3 SB4), generated ---- */
@SBOX_ODD@
    TO_WORDS
    DIFFUSE
    ADDKEY 1
.Laria_cm3_ct_even:
    TO_SLICES
.Laria_cm3_ct_even_sbox:
    /* ---- S-box circuit, even round (SL2 = SB3 SB4 SB1 SB2), generated ---- */
@SBOX_EVEN@
    TO_WORDS
    DIFFUSE
    ADDKEY 1
    b     .Laria_cm3_ct_odd
.Laria_cm3_ct_last_odd:
    /* ---- the last round's outputs out of the form sigma.T ((sigma.T)^-1), generated ---- */
@EXIT_ODD@
    TO_WORDS
    b     .Laria_cm3_ct_last
.Laria_cm3_ct_last_even:
    /* ---- the last round's outputs out of the form T (T^-1), generated ---- */
@EXIT_EVEN@
    TO_WORDS
.Laria_cm3_ct_last:
    ldr   r4, [sp, #4]
    tst   r4, #512
    beq   .Laria_cm3_ct_full
    ADDKEY 0                    /* the cipher: final key, no diffusion */
    b     .Laria_cm3_ct_store
.Laria_cm3_ct_full:
    DIFFUSE                     /* the key schedule's FO/FE: a full round */
    ror   r0, r0, #16
    ror   r1, r1, #16
    ror   r3, r3, #16
.Laria_cm3_ct_store:
    ldr   r4, [sp, #0]
    str   r0, [r4, #0]
    str   r1, [r4, #4]
    str   r2, [r4, #8]
    str   r3, [r4, #12]
    add   sp, sp, #FRAME
    pop   {r4-r11, pc}
    .size MCU_FN(aria, ct_core), . - MCU_FN(aria, ct_core)

/* Exported cipher entry points: ctl = rounds | cipher flag, first round odd; encryption and
 * decryption differ only in the keys. */
#define ARIA_ENTRY(id, op, rounds)                                  \
    .section .text.MCU_FN(id, op), "ax", %progbits;                 \
    .balign 2;                                                      \
    .globl MCU_FN(id, op);                                          \
    .type MCU_FN(id, op), %function;                                \
    .thumb_func;                                                    \
MCU_FN(id, op):                                                     \
    movw  r3, #(512 + rounds);                                      \
    b.w   MCU_FN(aria, ct_core);                                    \
    .size MCU_FN(id, op), . - MCU_FN(id, op)

/* void mcu_aria_cm3_ct_twist(uint32_t *w, uint32_t n, uint32_t sigma): T (sigma = 0) or sigma.T
 * (sigma != 0) applied to every byte of w[0..n-1] (the key schedule's round keys 2..rounds, which meet
 * the state in the form of the round they precede). The matrix columns are immediates; MUL takes a
 * fixed time on the Cortex-M3, and no address depends on the data (sigma and n are public). */
    .section .text.aria_cm3_ct_twist, "ax", %progbits
    .balign 4
    .globl MCU_FN(aria, twist)
    .type MCU_FN(aria, twist), %function
    .thumb_func
MCU_FN(aria, twist):
    cmp   r1, #0
    beq   4f
    push  {r4, r5}
    movw  r12, #0x0101
    movt  r12, #0x0101
    cmp   r2, #0
    bne   2f
1:
    ldr   r2, [r0]
@TWIST_KEYS_T@
    str   r5, [r0], #4
    subs  r1, r1, #1
    bne   1b
    b     3f
2:
    ldr   r2, [r0]
@TWIST_KEYS_ST@
    str   r5, [r0], #4
    subs  r1, r1, #1
    bne   2b
3:
    pop   {r4, r5}
4:
    bx    lr
    .size MCU_FN(aria, twist), . - MCU_FN(aria, twist)

@CORE2@

ARIA_ENTRY(aria128, encrypt, 12)
ARIA_ENTRY(aria128, decrypt, 12)
ARIA_ENTRY(aria192, encrypt, 14)
ARIA_ENTRY(aria192, decrypt, 14)
ARIA_ENTRY(aria256, encrypt, 16)
ARIA_ENTRY(aria256, decrypt, 16)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if aria_ct_cm3.S differs from the output")
    ap.add_argument("--search", type=int, default=0, metavar="N",
                    help="re-run the schedule search for N iterations and store the order it finds")
    args = ap.parse_args()
    if args.check and args.search:
        ap.error("--check and --search exclude each other")
    return write_or_check({OUT_FILE: generate(args.search)}, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())
