#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the Cortex-M3 Keccak-f[1600] permutations: keccakf1600_cm3.S (24 rounds unrolled: armv7m-fast,
armv7m-spec) and keccakf1600_cm3_compact.S (the same rounds in a loop of 6 x 4: armv7m-compact).

    python3 crypto/keccak/armv7m/gen_keccak_cm3.py          # rewrites both .S files beside this script
    python3 crypto/keccak/armv7m/gen_keccak_cm3.py --check  # exit 1 if a committed file is stale

The rounds are straight-line code whose every rotation amount is worked out here, so a generator is
the readable form. Method (docs/keccak-armv7m.md has the reasoning and the counts):

- Bit interleaving (Keccak team, "Keccak implementation overview" 2.1): a 64-bit lane is an even word
  (bits 0, 2, .., 62) and an odd word (bits 1, .., 63); a 64-bit rotation is two 32-bit rotations.
  Layout: word 25h + 5y + x is half h of lane (x, y) ("half-separated"), so a plane half is 5
  consecutive words and LDM loads it.
- Lazy rotation (Becker and Kannwischer's "lazy rotations", AArch64; Adomnicai's ARMv7-M Keccak): no
  word is ever rotated. Each stored word w carries an offset s known here, meaning the lane half is
  ROL(w, s). rho only adds to s; theta's parities, theta's D, chi's BIC/EOR and iota take every
  pending rotation as the ROR of the barrel shifter's second operand, for free. Only the last round
  brings the offsets back to 0 (an explicit ROR where neither chi operand has offset 0).
- Ping-pong: round r reads one buffer and writes the other (the caller's state at r0, 200 bytes at sp),
  pi is the choice of addresses. Column parities: LDMs of a plane half with EORs (half 1 as 3 + 2
  words, so nothing is spilled); D: 10 EORs into 10 registers; chi per plane half: 5 LDR (pipelined) +
  D reloads, 5 EOR (theta), 10 BIC/EOR, 5 STR (the last one after the next plane half's loads). The
  plane-half order and which D words stay in registers (Belady) are searched here.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rv32"))
from gen_keccak import RC, RHO  # noqa: E402  (the spec's offsets and constants, from the E31 generator)

HERE = Path(__file__).resolve().parent
OUT = HERE / "keccakf1600_cm3.S"
OUT_COMPACT = HERE / "keccakf1600_cm3_compact.S"

ROUNDS = 24

# Frame (sp-relative): the 200-byte ping-pong state, then the spilled parities C[.][0], then D slots.
B_OFF, R0_OFF, RCP_OFF, D_OFF, RC_OFF = 0, 200, 204, 220, 260
FRAME = 260                 # the unrolled permutation
FRAME_COMPACT = 292         # the loop also keeps its round-constant pointer and 4 rounds' constants
BODY = 4                    # rounds per loop iteration (compact)
POOL = ["r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr"]


def widx(h: int, x: int, y: int) -> int:
    return 25 * h + 5 * y + x


def unzip(v: int) -> tuple[int, int]:
    """(even bits, odd bits) of a 64-bit value as two 32-bit words."""
    e = o = 0
    for i in range(32):
        e |= ((v >> (2 * i)) & 1) << i
        o |= ((v >> (2 * i + 1)) & 1) << i
    return e, o


def ror_op(n: int) -> str:
    n %= 32
    return f", ror #{n}" if n else ""


def encodable(v: int) -> bool:
    """Thumb-2 modified immediate."""
    v &= 0xFFFFFFFF
    b = v & 0xFF
    if v < 256 or v == b * 0x00010001 or v == (b << 8) * 0x00010001 or v == b * 0x01010101:
        return True
    for r in range(8, 32):
        x = ((v << r) | (v >> (32 - r))) & 0xFFFFFFFF   # rotate left by r: undo a right rotation
        if x < 256 and x & 0x80:
            return True
    return False


def split_imm(v: int) -> list[int]:
    """v as an XOR of modified immediates (few: round constants have at most 7 bits a half)."""
    v &= 0xFFFFFFFF
    if v == 0:
        return []
    if encodable(v):
        return [v]
    low = (v & -v).bit_length() - 1
    chunk = 0
    for i in range(8):
        b = (low + i) % 32
        chunk |= v & (1 << b)
    return [chunk] + split_imm(v ^ chunk)


def src_of(x: int, y: int, h: int) -> tuple[int, int, int, int]:
    """Output lane half (x, y, h) of rho o pi: source word (x', y', h') and the rotation (left) of that
    32-bit word, from B[x, y] = ROL64(A[(x + 3y) % 5, x], RHO)."""
    xs, ys = (x + 3 * y) % 5, x
    r = RHO[xs + 5 * ys]
    k = r // 2
    if r % 2 == 0:
        return xs, ys, h, k
    return (xs, ys, 1, k + 1) if h == 0 else (xs, ys, 0, k)


class Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def op(self, text: str, comment: str = "") -> None:
        self.lines.append((f"    {text:<40s}// {comment}" if comment else f"    {text}"))
        self.count += 1

    def raw(self, text: str) -> None:
        self.lines.append(text)


def d_needed(y: int, h: int) -> list[tuple[int, int]]:
    """The D words (column, half) the output plane half (y, h) reads, in output-x order."""
    return [(src_of(x, y, h)[0], src_of(x, y, h)[2]) for x in range(5)]


def belady_cost(order: list[tuple[int, int]], keep: int = 7) -> int:
    """D reloads (plus the stores that make them possible) for a plane-half order, with `keep`
    registers for D words beyond the current plane half's own needs (13 - 6 = 7 in all)."""
    cached = set((x, h) for x in range(5) for h in range(2))   # all 10 are in registers after D
    stored: set = set()
    reloads = 0
    for i, (y, h) in enumerate(order):
        need = set(d_needed(y, h))
        future = [set(d_needed(*p)) for p in order[i + 1:]]

        def next_use(d):
            for j, f in enumerate(future):
                if d in f:
                    return j
            return 99
        while len(cached | need) > keep:
            victims = sorted(cached - need, key=next_use, reverse=True)
            v = victims[0]
            cached.discard(v)
            if next_use(v) < 99:
                stored.add(v)
        miss = need - cached
        reloads += len(miss)
        cached |= need
    return reloads + len(stored)


def best_order() -> list[tuple[int, int]]:
    rng = random.Random(18)
    halves = [(y, h) for h in range(2) for y in range(5)]
    best, best_cost = list(halves), belady_cost(halves)
    for _ in range(4000):
        cand = list(halves)
        rng.shuffle(cand)
        c = belady_cost(cand)
        if c < best_cost:
            best, best_cost = cand, c
    return best


ORDER = best_order()


class RoundGen:
    """One round: parities, D, chi per plane half; tracks the offsets of the words it stores."""

    def __init__(self, em: Emitter, rnd: int, off_in: list[int], *, last: bool, rc_frame: bool = False):
        """rnd: the round (its constant) or, with rc_frame, the round within a loop body (its constant
        is then read from frame slot RC_OFF + 8 rnd); last: bring every offset back to 0."""
        self.em, self.rnd, self.off_in = em, rnd, off_in
        self.src = "A" if rnd % 2 == 0 else "B"
        self.off_out = [0] * 50
        self.last = last
        self.rc_frame = rc_frame

    def addr(self, buf: str, w: int) -> str:
        return f"[r0, #{4 * w}]" if buf == "A" else f"[sp, #{B_OFF + 4 * w}]"

    def parity(self) -> tuple[list[int], list[int]]:
        """Column parities: C[x][h] as a word with an offset. Leaves C[.][0] in r2-r6, C[.][1] in r7-r11.
        Half 0 loads planes into r7-r11; half 1 accumulates in r7-r11 and loads each plane as 3 + 2 words
        into the three registers left (r1, r12, lr, or r0, r12, lr when r1 walks the stack buffer and r0
        is reloaded from the frame afterwards), so no parity is spilled."""
        em = self.em
        if self.src == "A":
            p, t3 = "r0", "{r1, r12, lr}"
            t2, regs = "{r1, r12}", ["r1", "r12", "lr"]
        else:
            em.op("mov r1, sp", "walk the stack state with LDM")
            p, t3 = "r1", "{r0, r12, lr}"
            t2, regs = "{r0, r12}", ["r0", "r12", "lr"]
        offs: list[list[int]] = []
        for h in range(2):
            acc = [f"r{2 + x}" for x in range(5)] if h == 0 else [f"r{7 + x}" for x in range(5)]
            em.op(f"ldmia {p}!, {{{acc[0]}-{acc[4]}}}", f"C[.][{h}] starts as plane 0")
            o = [self.off_in[widx(h, x, 0)] for x in range(5)]
            for y in range(1, 5):
                if h == 0:
                    em.op(f"ldmia {p}!, {{r7-r11}}", f"plane {y}, half 0")
                    tmp = [f"r{7 + x}" for x in range(5)]
                else:
                    em.op(f"ldmia {p}!, {t3}", f"plane {y}, half 1")
                    tmp = regs
                for x in range(5):
                    if h == 1 and x == 3:
                        em.op(f"ldmia {p}!, {t2}")
                    s = self.off_in[widx(h, x, y)]
                    em.op(f"eor {acc[x]}, {acc[x]}, {tmp[x % 3] if h else tmp[x]}{ror_op(o[x] - s)}")
            offs.append(o)
        if self.src == "A":
            em.op("sub r0, r0, #200", "back to the state")
        return offs[0], offs[1]

    def theta_d(self, o0: list[int], o1: list[int]) -> dict:
        """D[x][0] = C[x-1][0] ^ ROL(C[x+1][1], 1), D[x][1] = C[x-1][1] ^ C[x+1][0] (interleaved ROL by
        one). Returns {(x, h): (register, offset)}."""
        em = self.em
        c = {(x, 0): f"r{2 + x}" for x in range(5)}
        c.update({(x, 1): f"r{7 + x}" for x in range(5)})
        co = {(x, 0): o0[x] for x in range(5)}
        co.update({(x, 1): o1[x] for x in range(5)})
        uses = {k: 2 for k in c}
        free = ["r1", "r12", "lr"]
        todo = [(x, h) for x in range(5) for h in range(2)]
        d: dict = {}

        def operands(x, h):
            if h == 0:   # C[x-1][0] ^ ROL(C[x+1][1], 1)
                return ((x - 1) % 5, 0), ((x + 1) % 5, 1), 1
            return ((x - 1) % 5, 1), ((x + 1) % 5, 0), 0
        while todo:
            todo.sort(key=lambda k: -sum(uses[s] == 1 for s in operands(*k)[:2]))
            x, h = todo.pop(0)
            a, b, extra = operands(x, h)
            for s in (a, b):
                uses[s] -= 1
            dead = [s for s in (a, b) if uses[s] == 0]
            dst = c[dead[0]] if dead else free.pop(0)
            for s in dead[1:]:
                free.append(c[s])
            # actual = ROL(ca, oa) ^ ROL(cb, ob + extra) = ROL(ca ^ ROL(cb, ob + extra - oa), oa)
            em.op(f"eor {dst}, {c[a]}, {c[b]}{ror_op(co[a] - co[b] - extra)}", f"D[{x}][{h}]")
            d[(x, h)] = (dst, co[a])
        return d

    def chi(self, d: dict) -> None:
        em = self.em
        dst = "B" if self.src == "A" else "A"
        # Plan the D cache (Belady) over the plane-half order, then store those D words that will be
        # evicted while still needed.
        reg_of = {k: v[0] for k, v in d.items()}
        doff = {k: v[1] for k, v in d.items()}
        cached = dict(reg_of)             # D word -> register
        free = [r for r in POOL if r not in cached.values()]
        plan = []
        stored = set()
        prev_t = None
        for i, (y, h) in enumerate(ORDER):
            need = d_needed(y, h)
            future = [set(d_needed(*p)) for p in ORDER[i + 1:]]

            def next_use(k):
                for j, f in enumerate(future):
                    if k in f:
                        return j
                return 99
            iota_reg = self.rc_frame and y == 0     # the round constant half, loaded with the lanes
            nfree_needed = 6 + len([k for k in set(need) if k not in cached]) + iota_reg
            while len(free) < nfree_needed:
                victims = sorted((k for k in cached if k not in need), key=next_use, reverse=True)
                v = victims[0]
                free.append(cached.pop(v))
                if next_use(v) < 99:
                    stored.add(v)
            # The previous plane half's last output is stored after this one's loads (a store right
            # before a load costs a cycle), so its register `prev_t` must not be loaded into.
            loads = []
            for k in sorted(set(need)):
                if k not in cached:
                    r = next(r for r in free if r != prev_t)
                    free.remove(r)
                    cached[k] = r
                    loads.append((k, r))
            a = [r for r in free if r != prev_t][:5]
            t = prev_t if prev_t in free else next(r for r in free if r not in a)
            rc_reg = next(r for r in free if r not in a and r != t and r != prev_t) if iota_reg else None
            plan.append((y, h, loads, dict(cached), a + [t], rc_reg))
            prev_t = t
        for k in sorted(stored):
            em.op(f"str {reg_of[k]}, [sp, #{D_OFF + 4 * (2 * k[0] + k[1])}]", f"D[{k[0]}][{k[1]}] to its slot")
        pending = None
        for y, h, loads, cache, work, rc_reg in plan:
            a, t = work[:5], work[5]
            em.raw(f"    // round {self.rnd}: plane {y}, half {h}")
            srcs = [src_of(x, y, h) for x in range(5)]
            for x in range(5):
                xs, ys, hs, _ = srcs[x]
                em.op(f"ldr {a[x]}, {self.addr(self.src, widx(hs, xs, ys))}")
            for k, r in loads:
                em.op(f"ldr {r}, [sp, #{D_OFF + 4 * (2 * k[0] + k[1])}]", f"reload D[{k[0]}][{k[1]}]")
            if rc_reg:
                em.op(f"ldr {rc_reg}, [sp, #{RC_OFF + 4 * (2 * self.rnd + h)}]", "round constant half")
            if self.src == "B" and (y, h) == ORDER[0]:
                em.op(f"ldr r0, [sp, #{R0_OFF}]", "the state pointer back (the parities used r0)")
            if pending:
                em.op(pending, "previous plane half's last output, after the loads")
                pending = None
            s = []
            for x in range(5):
                xs, ys, hs, rot = srcs[x]
                sw = self.off_in[widx(hs, xs, ys)]
                k = (xs, hs)
                em.op(f"eor {a[x]}, {a[x]}, {cache[k]}{ror_op(sw - doff[k])}", f"theta; rho adds {rot}")
                s.append((sw + rot) % 32)
            for x in range(5):
                b, c = (x + 1) % 5, (x + 2) % 5
                em.op(f"bic {t}, {a[c]}, {a[b]}{ror_op(s[c] - s[b])}")
                # out = ROL(a, s[x]) ^ ROL(t, s[c]): keep the offset of a or of t
                if self.last and s[x] != 0 and s[c] == 0:
                    em.op(f"eor {t}, {t}, {a[x]}{ror_op(s[c] - s[x])}")
                    so = s[c]
                else:
                    em.op(f"eor {t}, {a[x]}, {t}{ror_op(s[x] - s[c])}")
                    so = s[x]
                if self.last and so != 0:
                    em.op(f"ror {t}, {t}, #{(32 - so) % 32}", "last round: offset back to 0")
                    so = 0
                if x == 0 and y == 0 and rc_reg:
                    em.op(f"eor {t}, {t}, {rc_reg}{ror_op(so)}", "iota")
                elif x == 0 and y == 0:
                    rc = unzip(RC[self.rnd])[h]
                    for part in split_imm(((rc >> so) | (rc << (32 - so))) & 0xFFFFFFFF if so else rc):
                        em.op(f"eor {t}, {t}, #0x{part:08x}", "iota")
                w = widx(h, x, y)
                if x == 4:
                    pending = f"str {t}, {self.addr(dst, w)}"
                else:
                    em.op(f"str {t}, {self.addr(dst, w)}")
                self.off_out[w] = so
        em.op(pending)


def generate() -> tuple[str, int]:
    em = Emitter()
    off = [0] * 50
    for rnd in range(ROUNDS):
        em.raw(f"    // ---- round {rnd}: {'r0 -> sp' if rnd % 2 == 0 else 'sp -> r0'}")
        g = RoundGen(em, rnd, off, last=rnd == ROUNDS - 1)
        o0, o1 = g.parity()
        d = g.theta_d(o0, o1)
        g.chi(d)
        off = g.off_out
    assert all(o == 0 for o in off)
    return "\n".join(em.lines), em.count


HEADER = """\
/* SPDX-License-Identifier: MIT */
/* Keccak-f[1600] (FIPS 202) for the Cortex-M3 (ARMv7-M): armv7m-fast and armv7m-spec.
 * GENERATED by gen_keccak_cm3.py in this folder - edit the generator, not this file.
 *
 *   void mcu_keccakf1600_<impl>_permute(uint8_t *state)      KECCAK_CM3_INTERLEAVED = 1
 *   void mcu_keccakf1600_<impl>_core(uint32_t *state)        KECCAK_CM3_INTERLEAVED = 0 (glue converts)
 *
 * state: 50 words, 4-byte aligned, bit-interleaved and half-separated: word 25h + 5y + x holds the
 * even (h = 0) or odd (h = 1) bits of lane (x, y) (keccak_cm3.h; keccak_cm3_glue.c converts).
 *
 * Register map:
 *   r0            the state (rounds 0, 2, ..: read from it; 1, 3, ..: written to it)
 *   sp            frame: ping-pong state at sp+0 (200 B), saved r0 at sp+200, D slots at sp+220
 *   parities      LDM pointer r0 (rounds reading r0's state) or r1 (reading sp's); C[.][0] in r2-r6
 *                 (planes loaded into r7-r11), C[.][1] in r7-r11 (planes loaded 3 + 2 words into the
 *                 three registers left)
 *   D             r1-r12, lr after the parities: 10 words, then 7 of them cached (Belady) in chi
 *   chi           per plane half: 5 lanes and a temporary in the 6 registers free of D
 *
 * Technique (docs/keccak-armv7m.md): bit interleaving; lazy rotation (every rho and theta rotation is
 * the ROR of a barrel-shifter operand; stored words carry offsets tracked by the generator, back to 0
 * after the last round); ping-pong buffers with pi as addressing; LDM for the column parities;
 * 24 rounds unrolled. No branch, and every address is fixed: constant time.
 * %d instructions (generator count).
 */
#include "mcucrypt/ns.h"
#include "keccak_cm3.h"

    .syntax unified
    .thumb
    .text
    .p2align 2
#if KECCAK_CM3_INTERLEAVED
    .global MCU_FN(keccakf1600, permute)
    .type MCU_FN(keccakf1600, permute), %%function
    .thumb_func
MCU_FN(keccakf1600, permute):
#else
    .global MCU_FN(keccakf1600, core)
    .type MCU_FN(keccakf1600, core), %%function
    .thumb_func
MCU_FN(keccakf1600, core):
#endif
    push {r4-r11, lr}
    sub sp, sp, #%d
    str r0, [sp, #%d]                          // the state pointer, for the rounds that borrow r0
"""

HEADER_COMPACT = """\
/* SPDX-License-Identifier: MIT */
/* Keccak-f[1600] (FIPS 202) for the Cortex-M3 (ARMv7-M): armv7m-compact, the armv7m-fast rounds in a loop.
 * GENERATED by gen_keccak_cm3.py in this folder - edit the generator, not this file.
 *
 *   void mcu_keccakf1600_<impl>_permute(uint8_t *state)      KECCAK_CM3_INTERLEAVED = 1
 *   void mcu_keccakf1600_<impl>_core(uint32_t *state)        KECCAK_CM3_INTERLEAVED = 0 (glue converts)
 *
 * state: as keccakf1600_cm3.S (50 words, 4-byte aligned, bit-interleaved and half-separated).
 *
 * Register map: as keccakf1600_cm3.S; the frame also holds the round-constant pointer (sp+204) and the
 * current 4 rounds' constants (sp+260), which the plane half y = 0 loads with its lanes.
 *
 * Technique (docs/keccak-armv7m.md): the rounds of keccakf1600_cm3.S (bit interleaving, lazy rotation,
 * ping-pong buffers, LDM parities), 4 rounds a loop iteration: the lazy offsets start at 0 and the 4th
 * round brings them back to 0, which costs its explicit RORs 6 times instead of once. The loop branch
 * depends on the table pointer only; every address is fixed: constant time.
 * %d instructions (generator count).
 */
#include "mcucrypt/ns.h"
#include "keccak_cm3.h"

    .syntax unified
    .thumb
    .section .rodata.keccak_cm3_rc, "a", %%progbits
    .p2align 2
.Lkeccak_cm3_rc:                            // (even, odd) words of the 24 round constants
%s
.Lkeccak_cm3_rc_end:

    .text
    .p2align 2
#if KECCAK_CM3_INTERLEAVED
    .global MCU_FN(keccakf1600, permute)
    .type MCU_FN(keccakf1600, permute), %%function
    .thumb_func
MCU_FN(keccakf1600, permute):
#else
    .global MCU_FN(keccakf1600, core)
    .type MCU_FN(keccakf1600, core), %%function
    .thumb_func
MCU_FN(keccakf1600, core):
#endif
    push {r4-r11, lr}
    sub sp, sp, #%d
    str r0, [sp, #%d]                          // the state pointer, for the rounds that borrow r0
    movw r1, #:lower16:.Lkeccak_cm3_rc
    movt r1, #:upper16:.Lkeccak_cm3_rc
    str r1, [sp, #%d]                          // round-constant pointer
"""

FOOTER = """\
    add sp, sp, #%d
    pop {r4-r11, pc}
#if KECCAK_CM3_INTERLEAVED
    .size MCU_FN(keccakf1600, permute), . - MCU_FN(keccakf1600, permute)
#else
    .size MCU_FN(keccakf1600, core), . - MCU_FN(keccakf1600, core)
#endif
"""


def generate_compact() -> tuple[str, int]:
    """A loop of 6 x 4 rounds: offsets 0 at the start of each iteration (its last round normalizes),
    the round constants copied from the table to the frame once an iteration."""
    em = Emitter()
    em.raw(".Lloop:")
    em.op(f"ldr r1, [sp, #{RCP_OFF}]", "this iteration's 4 round constants into the frame")
    em.op("ldmia r1!, {r2-r9}")
    em.op(f"str r1, [sp, #{RCP_OFF}]")
    em.op(f"add r10, sp, #{RC_OFF}")
    em.op("stmia r10, {r2-r9}")
    off = [0] * 50
    for rnd in range(BODY):
        em.raw(f"    // ---- round 4i + {rnd}: {'r0 -> sp' if rnd % 2 == 0 else 'sp -> r0'}")
        g = RoundGen(em, rnd, off, last=rnd == BODY - 1, rc_frame=True)
        o0, o1 = g.parity()
        d = g.theta_d(o0, o1)
        g.chi(d)
        off = g.off_out
    assert all(o == 0 for o in off)
    em.op(f"ldr r1, [sp, #{RCP_OFF}]", "loop until the table's end")
    em.op("movw r2, #:lower16:.Lkeccak_cm3_rc_end")
    em.op("movt r2, #:upper16:.Lkeccak_cm3_rc_end")
    em.op("cmp r1, r2")
    em.op("bne .Lloop")
    return "\n".join(em.lines), em.count


def rc_table() -> str:
    rows = []
    for r in RC:
        e, o = unzip(r)
        rows.append(f"    .word 0x{e:08x}, 0x{o:08x}")
    return "\n".join(rows)


def outputs() -> dict[str, str]:
    body, n = generate()
    fast = HEADER % (n + 5, FRAME, R0_OFF) + body + "\n" + FOOTER % FRAME
    body, n = generate_compact()
    compact = (HEADER_COMPACT % (n + 9, rc_table(), FRAME_COMPACT, R0_OFF, RCP_OFF) + body + "\n"
               + FOOTER % FRAME_COMPACT)
    return {OUT.name: fast, OUT_COMPACT.name: compact}


def main() -> int:
    return write_or_check({HERE / n: t for n, t in outputs().items()}, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    sys.exit(main())
