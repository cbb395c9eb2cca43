#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates aria_ct_cm3.S, the constant-time ARIA of cm3-ct (Cortex-M3); run from anywhere:

    python3 crypto/aria/armv7m/gen_ct_cm3.py          # rewrites aria_ct_cm3.S beside this script
    python3 crypto/aria/armv7m/gen_ct_cm3.py --check  # exit 1 if aria_ct_cm3.S is out of date
    python3 crypto/aria/armv7m/gen_ct_cm3.py --search 6000  # redo the schedule search (~6 CPU minutes)

The S-box circuit is the twisted one of crypto/aria/aria_ct_circuit.py (build_twisted): one
tower-field GF(2^8) inversion for the four S-boxes, the state kept as X.x in every byte between the
first key addition and the last S-box layer (X: AES field to tower), so that SB1/SB2 lanes need no
input map and SB3/SB4 lanes no output map; the remaining per-type corrections are masked at their
rank (5 or 7 lane-mask ANDs instead of 8); the GF(16) inversion inside the tower is Boyar and
Peralta's (5 AND instead of 9). The key schedule applies X to the round keys 2..n
(mcu_aria_cm3_ct_twist); the core twists the block after the first key and untwists after the last
S-box layer. What this generator adds for Thumb-2:

* 14 registers (r0-r12, lr) instead of 26: the scheduled circuit is register-allocated with Belady's
  policy (evict the value whose next use is furthest; a value already in its stack slot is preferred,
  its eviction costs no store), spills in a stack frame. The numbers are in the generated header.
* The operation order: aria_ct_circuit.schedule was tuned for 26 registers. --search hill-climbs over
  per-operation biases of that list scheduler, scoring each order by the cycles of the Belady
  allocation's spills (LDR 2, STR 1), and stores the best order in aria_ct_cm3_order.json (a permutation of the circuit's
  operations; the generator checks that it respects every dependency). Without that file the
  generator falls back to the unbiased schedule.
* The lane masks are single nibbles (0xF << 8j) in this bitslice layout, so a masked AND is
  AND with a Thumb-2 modified immediate: no register and no load for the masks.
* The SWAPMOVEs use the barrel shifter (EOR t, b, a, LSR #n; AND; EOR; EOR a, a, t, LSL #n) and the
  nibble split AND Rd, M, W, LSR #4 with 0x0F0F0F0F in a register; the merge is one ORR with LSL #4.
* The diffusion A = M.P.M.D: D(w) = ror16(w ^ ror24(w ^ ror16(w))) in two EOR, the ror16 left pending
  on all four words (it commutes with M's XORs, with REV16 and with REV; P's half swap of word 2
  cancels it), the second M folds the pending rotations into its EOR operands, and so does the next
  round's key addition: A costs 2 x 4 + 6 + 2 + 6 = 22 instructions.
* A two-block core (ct_core2, behind encrypt_blocks) fills the empty high nibble of every lane byte
  with a second block: the same circuit and allocation (masks 0xFF << 8j), one key load for both
  blocks, a nibble SWAPMOVE between the blocks instead of the split and the merge.
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
from aria_ct_circuit import (M33, M55, TRANSPOSE, best_circuit_twisted, mat_inv, paar, schedule,  # noqa: E402
                             slice_layout)

REGS = [f"r{i}" for i in range(13)] + ["lr"]
W = ["r0", "r1", "r2", "r3"]           # state words outside the S-box stage
HI = ["r4", "r5", "r6", "r7"]          # the split's high-nibble slices
SPILL_BASE = 16                        # frame: out, ctl, round counter, rk pointer, then spill slots


class Allocator:
    """Belady register allocation of the scheduled S-box program over REGS."""

    def __init__(self, ops: list[tuple], outputs: list[int], in_regs: dict[int, str]) -> None:
        self.ops = ops
        self.uses: dict[int, list[int]] = {}
        for idx, p in enumerate(ops):
            for v in p[2:]:
                if isinstance(v, int):
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

    def _take(self, idx: int, protect: set[str]) -> str:
        if self.free:
            return self.free.pop(0)
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
        for idx, (kind, dst, a, b) in enumerate(self.ops):
            srcs = [a] if kind == "mask" else [a, b]
            protect: set[str] = set()
            regs = []
            for v in srcs:
                r = self.ensure(v, idx, protect)
                protect.add(r)
                regs.append(r)
            for v in set(srcs):
                if self.next_use(v, idx + 1) == 1 << 30:
                    self._release(v)
            rd = self._take(idx, protect - set(self.free))
            self._bind(dst, rd)
            if kind == "mask":
                self.lines.append(f"    and   {rd}, {regs[0]}, #{MASK_IMM[b]}")
            else:
                self.lines.append(f"    {'eor' if kind == 'xor' else 'and'}   {rd}, {regs[0]}, {regs[1]}")
            if self.next_use(dst, idx + 1) == 1 << 30:
                self._release(dst)
        out = {}
        protect = set()
        for v in self.outputs:
            r = self.ensure(v, end, protect)
            protect.add(r)
            out[v] = r
        return out


def noisy_schedule(ops: list[tuple], outputs: list[int], inputs: set[int], noise: list[float]) -> list[int]:
    """The list scheduler of aria_ct_circuit.schedule (prefer the ready operation that ends the most
    lifetimes) with a per-operation bias: returns the order as indices into ops."""
    uses: dict[int, int] = {}
    for p in ops:
        for v in set(p[2:]):
            if isinstance(v, int):
                uses[v] = uses.get(v, 0) + 1
    keep = set(outputs)
    done = set(inputs)
    pending = list(range(len(ops)))
    order = []
    while pending:
        ready = [i for i in pending if all(not isinstance(v, int) or v in done for v in ops[i][2:])]

        def cost(i: int) -> tuple[float, int]:
            p = ops[i]
            freed = sum(1 for v in set(p[2:]) if isinstance(v, int) and uses[v] == 1 and v not in keep)
            return (1 - freed + noise[i], i)
        i = min(ready, key=cost)
        pending.remove(i)
        order.append(i)
        done.add(ops[i][1])
        for v in set(ops[i][2:]):
            if isinstance(v, int):
                uses[v] -= 1
    return order


def spill_cost(ops: list[tuple], order: list[int], outputs: list[int], in_regs: dict[int, str]) -> int:
    al = Allocator([ops[i] for i in order], outputs, in_regs)
    al.run()
    return 2 * al.loads + al.stores          # cycles: LDR 2, STR 1


def search_order(ops: list[tuple], outputs: list[int], in_regs: dict[int, str], iters: int) -> list[int]:
    """Hill climbing over the scheduler's biases, scored by the spill cycles of the Belady allocation
    (seeded: the same iteration count gives the same order)."""
    MASK_IMM.update({k: "0" for k in ("M1", "M2", "M3", "M4")})    # the text is not used here
    rng = random.Random(2026)
    noise = [0.5 * rng.random() for _ in ops]
    best_order = noisy_schedule(ops, outputs, set(in_regs), noise)
    best = spill_cost(ops, best_order, outputs, in_regs)
    for _ in range(iters):
        trial = list(noise)
        for _ in range(rng.randint(1, 6)):
            trial[rng.randrange(len(trial))] = 0.5 * rng.random()
        order = noisy_schedule(ops, outputs, set(in_regs), trial)
        c = spill_cost(ops, order, outputs, in_regs)
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


def sbox_stage(ops: list[tuple], in_regs: dict[int, str], outputs: list[int],
               masks: dict[str, int]) -> tuple[list[str], dict[int, str], dict]:
    """The allocated circuit: its lines, the register of each output bit, the counts."""
    MASK_IMM.clear()
    MASK_IMM.update({k: f"0x{v:08x}" for k, v in masks.items()})
    al = Allocator(ops, outputs, in_regs)
    out_regs = al.run()
    by_bit = {b: out_regs[outputs[b]] for b in range(8)}
    counts = {"xor": sum(p[0] == "xor" for p in ops), "and": sum(p[0] == "and" for p in ops),
              "mask": sum(p[0] == "mask" for p in ops), "ldr": al.loads, "str": al.stores,
              "slots": al.nslots}
    return al.lines, by_bit, counts


def linear_stage(rows: list[int], in_by_bit: dict[int, str]) -> tuple[list[str], dict[int, str], int]:
    """out bit i = XOR of the input bits j set in rows[i] (Paar-factored, Belady-allocated): lines,
    the register of each output bit, spill slots used."""
    ops = [("xor", nv, pa, pb) for nv, pa, pb in paar(list(rows))]
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


def is_modimm(v: int) -> bool:
    if v < 256:
        return True
    b = v & 0xFF
    if v in (b * 0x00010001, b * 0x01000100, b * 0x01010101):
        return True
    for rot in range(8, 32):
        x = ((v << rot) | (v >> (32 - rot))) & 0xFFFFFFFF
        if x < 256 and x & 0x80:
            return True
    return False


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


def generate(search: int = 0) -> str:
    nu, mu, X, prog, outputs = best_circuit_twisted(bp=True)
    slices, lanes = slice_layout()
    in_regs = input_regs(prog, slices)
    base = [p for p in prog if p[0] != "in"]
    if search:
        order = search_order(base, outputs, in_regs, search)
        ORDER_FILE.write_text(json.dumps(order) + "\n")
    elif ORDER_FILE.is_file():
        order = json.loads(ORDER_FILE.read_text())
    else:                                       # no search result: aria_ct_circuit's own schedule
        sched = [p for p in schedule(prog, outputs) if p[0] != "in"]
        order = [base.index(p) for p in sched]
    assert sorted(order) == list(range(len(base))), "the stored order must cover every operation once"
    ops = [base[i] for i in order]
    done = set(in_regs)
    for p in ops:                               # and respect the dependencies
        assert all(not isinstance(v, int) or v in done for v in p[2:]), "order breaks a dependency"
        done.add(p[1])
    pos_mask = [sum(1 << lanes[(w, j)] for w in range(4)) for j in range(4)]
    odd = {"M1": pos_mask[0], "M2": pos_mask[1], "M3": pos_mask[2], "M4": pos_mask[3]}
    even = {"M1": pos_mask[2], "M2": pos_mask[3], "M3": pos_mask[0], "M4": pos_mask[1]}
    for v in pos_mask:
        assert is_modimm(v), f"lane mask {v:#x} is not a Thumb-2 immediate"
    ins = [p[1] for p in prog if p[0] == "in"]
    slice_reg = {b: in_regs[ins[b]] for b in range(8)}          # register of bit b after TO_SLICES
    # entry: the plain block (first key added) into the twisted form, in the circuit's input registers
    tw_lines, tw_out, tw_slots = linear_stage(X, slice_reg)
    tw_lines += parallel_move({tw_out[b]: slice_reg[b] for b in range(8)}, set(tw_out.values()))
    bodies, exits, slots = {}, {}, [tw_slots]
    for name, masks in (("odd", odd), ("even", even)):
        lines, by_bit, counts = sbox_stage(ops, in_regs, outputs, masks)
        bodies[name] = (lines, by_bit, counts)
        slots.append(counts["slots"])
        # the last round: back from the twisted form (X^-1), then the merge
        un_lines, un_out, un_slots = linear_stage(mat_inv(X), by_bit)
        exits[name] = un_lines + merge_lines(un_out, slices)
        slots.append(un_slots)
    counts = bodies["odd"][2]
    assert counts == bodies["even"][2]
    nslots = max(slots)
    frame = SPILL_BASE + 4 * nslots
    frame += (-frame) % 8
    split = ["    movw  r8, #0x0f0f", "    movt  r8, #0x0f0f"]
    for r in range(4):
        split.append(f"    and   {HI[r]}, r8, {W[r]}, lsr #4")
        split.append(f"    and   {W[r]}, {W[r]}, r8")
    to_slices = []
    for ai, bi, mask, n in TRANSPOSE:
        to_slices.append(f"    SWAPMOVE {W[ai]}, {W[bi]}, 0x{mask:08x}, {n}")
    to_words = []
    for ai, bi, mask, n in reversed(TRANSPOSE):
        to_words.append(f"    SWAPMOVE {W[ai]}, {W[bi]}, 0x{mask:08x}, {n}")
    assert M55 == 0x55555555 and M33 == 0x33333333
    lane_doc = ", ".join(f"byte {4 * w + j} -> bit {lanes[(w, j)]}" for w in range(4) for j in range(4))

    def body(name: str) -> str:
        lines, by_bit, _ = bodies[name]
        free = [r for r in REGS if r not in by_bit.values()][0]
        count = [f"    ldr   {free}, [sp, #8]", f"    subs  {free}, {free}, #1", f"    str   {free}, [sp, #8]",
                 f"    beq   .Laria_cm3_ct_last_{name}"]
        return "\n".join(lines + ["    /* ---- end of S-box circuit: count the round ---- */"] + count
                         + merge_lines(by_bit, slices))
    # the two-block core: the same circuit and allocation over 32 lanes (masks 0xFF << 8j)
    core2_parts = {}
    for name, masks in (("odd", odd), ("even", even)):
        lines, by_bit, c2 = sbox_stage(ops, in_regs, outputs, {k: v | v << 4 for k, v in masks.items()})
        assert c2 == counts
        free = [r for r in REGS if r not in by_bit.values()][0]
        place = parallel_move({by_bit[b]: slice_reg[b] for b in range(8)}, set(by_bit.values()))
        un_lines, un_out, _ = linear_stage(mat_inv(X), by_bit)
        un_place = parallel_move({un_out[b]: slice_reg[b] for b in range(8)}, set(un_out.values()))
        core2_parts[name] = (lines + ["    /* ---- end of S-box circuit: count the round ---- */",
                                      f"    ldr   {free}, [sp, #8]", f"    subs  {free}, {free}, #1",
                                      f"    str   {free}, [sp, #8]", f"    beq   .Laria_cm3_ct2_last_{name}",
                                      "    /* the slices back into the split layout */"] + place,
                             un_lines + ["    /* the slices back into the split layout */"] + un_place)
    core2 = CORE2.replace("@SBOX2_ODD@", "\n".join(core2_parts["odd"][0])).replace(
        "@SBOX2_EVEN@", "\n".join(core2_parts["even"][0])).replace(
        "@EXIT2_ODD@", "\n".join(core2_parts["odd"][1])).replace(
        "@EXIT2_EVEN@", "\n".join(core2_parts["even"][1])).replace("@TWIST_IN@", "\n".join(tw_lines))
    nib = [f"    SWAPMOVE {W[r]}, {HI[r]}, 0x0f0f0f0f, 4" for r in range(4)]
    to_slices2 = []
    for blk in (W, HI):
        for ai, bi, mask, n in TRANSPOSE:
            to_slices2.append(f"    SWAPMOVE {blk[ai]}, {blk[bi]}, 0x{mask:08x}, {n}")
    to_words2 = list(nib)
    for blk in (W, HI):
        for ai, bi, mask, n in reversed(TRANSPOSE):
            to_words2.append(f"    SWAPMOVE {blk[ai]}, {blk[bi]}, 0x{mask:08x}, {n}")
    text = TEMPLATE
    rep = {
        "@CORE2@": core2,
        "@TO_SLICES2@": "\n".join(to_slices2 + nib),
        "@TO_WORDS2@": "\n".join(to_words2),
        "@NU@": str(nu), "@MU@": str(mu), "@X@": " ".join(f"{r:02x}" for r in X),
        "@COUNTS@": f"{counts['xor']} EOR, {counts['and']} AND, {counts['mask']} AND with a lane-mask immediate",
        "@SPILLS@": f"{counts['str']} STR and {counts['ldr']} LDR of spills, {counts['slots']} slots",
        "@LANES@": lane_doc,
        "@FRAME@": str(frame),
        "@TO_SLICES@": "\n".join(to_slices) + "\n" + "\n".join(split),
        "@TO_WORDS@": "\n".join(to_words),
        "@TWIST_IN@": "\n".join(tw_lines),
        "@SBOX_ODD@": body("odd"),
        "@SBOX_EVEN@": body("even"),
        "@EXIT_ODD@": "\n".join(exits["odd"]),
        "@EXIT_EVEN@": "\n".join(exits["even"]),
        "@TWIST_KEYS@": twist_code(X),
    }
    for k, v in rep.items():
        text = text.replace(k, v)
    return text


CORE2 = r"""/* void mcu_aria_cm3_ct_core2(uint8_t *out, const uint8_t *in, const uint32_t *rk, uint32_t rounds):
 * encrypts (or, with decryption keys, decrypts) the two consecutive blocks in[0..31] into out[0..31]:
 * the cipher of ct_core (first round odd, final key) with the 32 lanes of each slice filled, block 0 in
 * r0..r3 and block 1 in r4..r7 in word form. Same S-box circuit, register allocation and spills as the
 * one-block core (the lane masks are 0xFF << 8j); the key is loaded once for both blocks (r9..r12). */
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
    /* ---- into the twisted form ---- */
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
@EXIT2_ODD@
    b     .Laria_cm3_ct2_last
.Laria_cm3_ct2_last_even:
    /* ---- the last round's outputs out of the twisted form (X^-1), generated ---- */
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
 *   void mcu_aria_cm3_ct_twist(uint32_t *w, uint32_t n);
 *
 * rk: the round keys of rv32/aria_ct_ks.c (spec round keys with the S-boxes' additive constants folded
 * in), the keys 2..rounds in the twisted form (X applied to every byte: armv7m/aria_ks_cm3.c calls
 * mcu_aria_cm3_ct_twist); the first and the final key are plain. ctl (core only): bits 0..7 the number of rounds, bit 8 set when the first round is even (SL2),
 * bit 9 set for the cipher (the last round has no diffusion and is followed by the final key); without
 * bit 9 every round is full (the key schedule's FO/FE).
 *
 * A round, on four little-endian state words r0..r3 (the word form of rv32/aria_ttable.S):
 *   1. the round key (LDM, four EOR; after a diffusion the pending ror16 of words 0, 1, 3 is the
 *      EOR's shifted operand);
 *   2. bitslice: four SWAPMOVEs (barrel-shifted EOR operands) and a nibble split give 8 slices in
 *      r0..r7, one per bit position, 16 lanes each: @LANES@;
 *      in the first round, X applied to the slices (the state enters the twisted form);
 *   3. the twisted S-box circuit of crypto/aria/aria_ct_circuit.py (build_twisted: @COUNTS@;
 *      GF(((2^2)^2)^2) with nu = @NU@, mu = @MU@, X = AES-field-to-tower rows @X@, the GF(16)
 *      inversion Boyar and Peralta's), register-allocated by
 *      gen_ct_cm3.py over r0-r12 and lr with Belady spilling (@SPILLS@ a round); lane masks
 *      select SB1..SB4 per lane (odd and even rounds differ only in the immediates);
 *   4. back to words: merge (ORR with LSL #4), the SWAPMOVEs in reverse; in the last round X^-1 is
 *      applied to the slices first (the state leaves the twisted form);
 *   5. A = M.P.M.D: D as two EOR a word with a ror16 left pending, M (6 EOR), P (REV16 on word 1, the
 *      pending ror16 of word 2 cancels P's half swap, REV on word 3), M with the pending rotations
 *      folded into its EOR operands.
 * Every instruction of the rounds is a one-cycle ALU operation with public operands' addresses: the
 * spill slots, the round keys, the block; branches depend on ctl only.
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
    /* ---- into the twisted form: every byte x becomes X.x (X: AES field to tower), generated ---- */
@TWIST_IN@
    ldr   r9, [sp, #4]
    tst   r9, #256
    bne   .Laria_cm3_ct_even_sbox
    b     .Laria_cm3_ct_odd_sbox
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
    /* ---- the last round's outputs out of the twisted form (X^-1), generated ---- */
@EXIT_ODD@
    TO_WORDS
    b     .Laria_cm3_ct_last
.Laria_cm3_ct_last_even:
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

/* void mcu_aria_cm3_ct_twist(uint32_t *w, uint32_t n): X applied to every byte of w[0..n-1] (the key
 * schedule's round keys 2..rounds, which meet the state in its twisted form). X's columns are
 * immediates; MUL takes a fixed time on the Cortex-M3, and no address depends on the data. */
    .section .text.aria_cm3_ct_twist, "ax", %progbits
    .balign 4
    .globl MCU_FN(aria, twist)
    .type MCU_FN(aria, twist), %function
    .thumb_func
MCU_FN(aria, twist):
    cmp   r1, #0
    beq   2f
    push  {r4, r5}
    movw  r12, #0x0101
    movt  r12, #0x0101
1:
    ldr   r2, [r0]
@TWIST_KEYS@
    str   r5, [r0], #4
    subs  r1, r1, #1
    bne   1b
    pop   {r4, r5}
2:
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
