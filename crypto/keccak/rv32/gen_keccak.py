#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the RV32 Keccak-f[1600] permutations: keccakf1600_fast.S (RV32IMAC) and keccakf1600_zbb.S (Zbb).

    python3 crypto/keccak/rv32/gen_keccak.py        # rewrites both .S files beside this script

The rounds are straight-line code with a register allocation worked out here, so a generator is clearer
than hand-written assembly. The method (docs/baselines.md has the reasoning and the counts):

- Lanes stay in the standard layout, 64 bits as (lo, hi) words. On RV32I a 64-bit rotation costs 6
  instructions either way, and bit interleaving (which makes it two 32-bit rotations) would need a
  ~1 400-cycle conversion in and out of the byte-order state our API takes. With Zbb interleaving would
  save about what the conversion costs, so the Zbb variant keeps the same layout and gains andn.
- One round is theta's column parities, then plane by plane: load the five lanes that pi sends to the
  plane, XOR theta's D, rotate (rho), chi, iota, store. Two rounds a loop iteration, ping-ponging between
  the caller's state (a0) and a 200-byte buffer on the stack (sp): no pointer arithmetic at all.
- D (10 words) stays in registers for the whole round; the column parities of two of the five columns for
  the *next* round are accumulated in registers as chi produces them (saving their 20 loads and most of
  their XORs); the other three are recomputed from memory.
- rv32-fast uses lane complementing (Keccak team's "bebigokimisa" pattern): six lanes are kept
  complemented, so chi needs about one NOT per plane half instead of five. The NOTs to use are found
  here by exhaustive search per plane half. rv32-zbb uses andn and no complementing.
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent

RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
RC = [0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
      0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
      0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
      0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
      0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
      0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008]
BEBIGOKIMISA = {1, 2, 8, 12, 17, 20}     # lanes x + 5y kept complemented (Bertoni et al., Keccak impl. overview)

# Register plan (a0 = state, sp = stack buffer; gp and tp are left alone).
RCP = "a1"                                            # round-constant pointer
DREG = [("s0", "s1"), ("s2", "s3"), ("s4", "s5"), ("s6", "s7"), ("s8", "s9")]   # D[x] (lo, hi)
WORK = ["a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5"]  # plane words + 2 temps
ACC_COLS = (0, 1)                                     # column parities accumulated by chi
ACC = {0: ("s10", "s11"), 1: ("t6", "ra")}
LOADED_COLS = tuple(x for x in range(5) if x not in ACC_COLS)

# Stack frame
BUF = 0            # 200-byte ping-pong state
SAVE = 200         # ra, s0..s11
END = 252          # end of the round-constant table
ORIG = 256         # the caller's pointer when it was not word aligned
COPY = 264         # aligned copy of an unaligned state
FRAME = 464


def lane_off(x: int, y: int) -> int:
    return 8 * (x + 5 * y)


class Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def op(self, text: str, comment: str = "") -> None:
        self.lines.append(f"    {text:<28}" + (f"# {comment}" if comment else "").rstrip())
        self.count += 1

    def raw(self, text: str) -> None:
        self.lines.append(text)


def chi_plan(flags: list[int], want: list[int], zbb: bool):
    """Cheapest way to compute one plane half of chi, out[X] = b[X] ^ (~b[X+1] & b[X+2]), on stored values
    where flags[i] says input i is stored complemented and want[X] says how output X must be stored.

    Each of the 15 input uses reads the register either as it is or after an in-place NOT; a NOT costs one
    instruction and is emitted just before the first output that wants it, so the outputs are computed in
    an order where every use of a register's original value precedes its NOT. A term ~B & C is one
    instruction when exactly one of its operands is stored complemented (and / or), and with Zbb always
    (andn / orn). An output whose complement parity still differs from want[X] takes one more NOT.
    Returns (cost, order, recipes) with recipes[X] = (op, first operand, second operand, fix, versions)."""
    def options(X: int):
        a, b, c = X, (X + 1) % 5, (X + 2) % 5
        out = []
        for va, vb, vc in itertools.product((0, 1), repeat=3):
            if zbb and (va, vb, vc) != (0, 0, 0):
                continue
            fa, fb, fc = flags[a] ^ va, flags[b] ^ vb, flags[c] ^ vc
            if (fb, fc) == (1, 0):                  # ~B & C = b & c
                ops = [("and", b, c, 0)]
            elif (fb, fc) == (0, 1):                # ~(~B & C) = b | c
                ops = [("or", b, c, 1)]
            elif zbb and (fb, fc) == (0, 0):        # c & ~b, or its complement b | ~c
                ops = [("andn", c, b, 0), ("orn", b, c, 1)]
            elif zbb:                               # both complemented: b & ~c, or c | ~b
                ops = [("andn", b, c, 0), ("orn", c, b, 1)]
            else:
                continue
            for op, p, q, tc in ops:
                out.append((op, p, q, fa ^ tc ^ want[X], {a: va, b: vb, c: vc}))
        return out

    best = None
    for choice in itertools.product(*(options(X) for X in range(5))):
        complemented = {i for r in choice for i, v in r[4].items() if v}
        cost = len(complemented) + sum(r[3] for r in choice)
        if best is not None and cost >= best[0]:
            continue
        for order in itertools.permutations(range(5)):
            state = [0] * 5
            ok = True
            for X in order:
                for i, v in choice[X][4].items():
                    if v < state[i]:
                        ok = False
                    state[i] = max(state[i], v)
            if ok:
                best = (cost, order, choice)
                break
    return best


def generate(zbb: bool) -> str:
    P = set() if zbb else BEBIGOKIMISA
    e = Emitter()
    impl_note = "rv32-zbb (andn/orn in chi, no lane complementing)" if zbb else \
        "rv32-fast (RV32I instructions; lane complementing with the bebigokimisa pattern)"

    colflag = [sum(1 for y in range(5) if (x + 5 * y) in P) & 1 for x in range(5)]
    dflag = [colflag[(x - 1) % 5] ^ colflag[(x + 1) % 5] for x in range(5)]

    def not_(rd, rs):
        e.op(f"xori {rd}, {rs}, -1")

    def round_(src: str, dst: str, rc_off: int) -> None:
        # --- theta: parities of the loaded columns ---
        free = list(WORK)
        C = {x: ACC[x] for x in ACC_COLS}
        for x in LOADED_COLS:
            lo, hi = free.pop(0), free.pop(0)
            a, b = free[0], free[1]
            e.op(f"lw {lo}, {lane_off(x, 0)}({src})", f"C[{x}] = column {x} parity")
            e.op(f"lw {hi}, {lane_off(x, 0) + 4}({src})")
            e.op(f"lw {a}, {lane_off(x, 1)}({src})")
            e.op(f"lw {b}, {lane_off(x, 1) + 4}({src})")
            for y in range(2, 5):
                e.op(f"xor {lo}, {lo}, {a}")
                e.op(f"lw {a}, {lane_off(x, y)}({src})")
                e.op(f"xor {hi}, {hi}, {b}")
                e.op(f"lw {b}, {lane_off(x, y) + 4}({src})")
            e.op(f"xor {lo}, {lo}, {a}")
            e.op(f"xor {hi}, {hi}, {b}")
            C[x] = (lo, hi)
        tmp = free[0]
        # --- theta: D[x] = C[x-1] ^ rotl64(C[x+1], 1) ---
        for x in range(5):
            (plo, phi), (nlo, nhi) = C[(x - 1) % 5], C[(x + 1) % 5]
            dlo, dhi = DREG[x]
            e.op(f"slli {dlo}, {nlo}, 1", f"D[{x}]")
            e.op(f"srli {tmp}, {nhi}, 31")
            e.op(f"or {dlo}, {dlo}, {tmp}")
            e.op(f"xor {dlo}, {dlo}, {plo}")
            e.op(f"slli {dhi}, {nhi}, 1")
            e.op(f"srli {tmp}, {nlo}, 31")
            e.op(f"or {dhi}, {dhi}, {tmp}")
            e.op(f"xor {dhi}, {dhi}, {phi}")
        # --- planes ---
        for Y in range(5):
            regs = list(WORK)
            t_a, t_b = regs[10], regs[11]
            B = []           # (lo reg, hi reg) of B[X, Y]
            Bflag = []
            for X in range(5):
                x, y = (3 * Y + X) % 5, X
                lo, hi = regs[2 * X], regs[2 * X + 1]
                dlo, dhi = DREG[x]
                r = RHO[x + 5 * y]
                e.op(f"lw {lo}, {lane_off(x, y)}({src})", f"A[{x},{y}] -> B[{X},{Y}], rho {r}")
                e.op(f"lw {hi}, {lane_off(x, y) + 4}({src})")
                e.op(f"xor {lo}, {lo}, {dlo}")
                e.op(f"xor {hi}, {hi}, {dhi}")
                if r >= 32:          # rotate by 32 = swap the halves (a renaming), then by r - 32
                    lo, hi = hi, lo
                    r -= 32
                if r:
                    # the two temps: the plane's last lane has every other work register live
                    ta, tb = (t_a, t_b)
                    e.op(f"srli {ta}, {lo}, {32 - r}")
                    e.op(f"srli {tb}, {hi}, {32 - r}")
                    e.op(f"slli {lo}, {lo}, {r}")
                    e.op(f"slli {hi}, {hi}, {r}")
                    e.op(f"or {lo}, {lo}, {tb}")
                    e.op(f"or {hi}, {hi}, {ta}")
                B.append((lo, hi))
                Bflag.append(((x + 5 * y) in P) ^ dflag[x])
            want = [int((X + 5 * Y) in P) for X in range(5)]
            for half in (0, 1):
                s = [B[X][half] for X in range(5)]
                cost, order, recipes = chi_plan([int(f) for f in Bflag], want, zbb)
                if Y == 0:
                    e.op(f"lw {t_b}, {rc_off + 4 * half}({RCP})", "iota constant")
                done = [0] * 5
                for X in order:
                    op, p, q, fix, versions = recipes[X]
                    for i, v in sorted(versions.items()):
                        if v and not done[i]:
                            not_(s[i], s[i])
                            done[i] = 1
                    t = t_a
                    e.op(f"{op} {t}, {s[p]}, {s[q]}", f"chi B[{X},{Y}]{'.hi' if half else '.lo'}")
                    out = t
                    if X in ACC and Y == 0:
                        out = ACC[X][half]          # the first plane starts the column parity
                    e.op(f"xor {out}, {s[X]}, {t}")
                    if fix:
                        not_(out, out)
                    if Y == 0 and X == 0:
                        e.op(f"xor {out}, {out}, {t_b}", "iota")
                    if X in ACC and Y > 0:
                        e.op(f"xor {ACC[X][half]}, {ACC[X][half]}, {out}")
                    e.op(f"sw {out}, {lane_off(X, Y) + 4 * half}({dst})")

    L = []
    name = "keccakf1600"
    L.append(f"""/* SPDX-License-Identifier: MIT */
/* Keccak-f[1600] (FIPS 202) for RV32, {impl_note}.
 * GENERATED by gen_keccak.py in this folder - edit the generator, not this file.
 *
 *   void mcu_keccakf1600_<impl>_permute(uint8_t *state)
 *
 * state: 200 bytes, lane (x, y) at byte 8(x + 5y), little-endian (FIPS 202); any alignment (an unaligned
 * state is copied to an aligned stack buffer and back: the E31 traps on misaligned lw/sw).
 *
 * Register map (no gp/tp; ra and s0..s11 saved in the frame):
 *   a0            the state (rounds 0, 2, 4, ...: read from it; 1, 3, ...: written to it)
 *   sp            frame; the 200-byte ping-pong state at sp+{BUF}
 *   {RCP}            round-constant pointer (two rounds per loop iteration)
 *   s0..s9        theta's D[0..4] as (lo, hi) pairs, live for a whole round
 *   s10,s11 t6,ra column parities C[0], C[1] of the next round, accumulated as chi writes the lanes
 *   a2..a7 t0..t3 one plane: five lanes (lo, hi) after theta and rho; t4, t5 temps (rotation, chi, iota)
 *
 * Technique (docs/baselines.md): the plane-by-plane round of the Keccak team's 32-bit implementations,
 * on 64-bit lanes as word pairs (no bit interleaving: on RV32I a 64-bit
 * rotation costs 6 instructions either way, and our byte-order API would pay for the conversion), with
 * {'andn/orn' if zbb else 'lane complementing (bebigokimisa)'} in chi, D kept in registers, and two of
 * the next round's column parities accumulated in registers instead of reloaded.
 * {{count}} instructions per round (generator count).
 * No secret-dependent branch or address: constant time.
 */
#include "mcucrypt/ns.h"

    .section .rodata.{name}_rc_{'zbb' if zbb else 'fast'}, "a", @progbits
    .p2align 3
.L{name}_rc:""")
    for rc in RC:
        L.append(f"    .word   0x{rc & 0xFFFFFFFF:08x}, 0x{rc >> 32:08x}")
    L.append(f"""
    .section .text.MCU_FN({name}, permute), "ax", @progbits
    .globl  MCU_FN({name}, permute)
    .type   MCU_FN({name}, permute), @function
    .p2align 2
MCU_FN({name}, permute):
    addi    sp, sp, -{FRAME}""")
    for i, r in enumerate(["ra"] + [f"s{k}" for k in range(12)]):
        L.append(f"    sw      {r}, {SAVE + 4 * i}(sp)")
    L.append(f"""    sw      a0, {ORIG}(sp)
    andi    t0, a0, 3
    beqz    t0, .L{name}_aligned
    /* Unaligned state: work on an aligned copy (a public property of the pointer, not of the data). */
    addi    t1, sp, {COPY}
    li      t2, 200
.L{name}_copy_in:
    lbu     t3, 0(a0)
    addi    a0, a0, 1
    sb      t3, 0(t1)
    addi    t1, t1, 1
    addi    t2, t2, -1
    bnez    t2, .L{name}_copy_in
    addi    a0, sp, {COPY}
.L{name}_aligned:
    la      {RCP}, .L{name}_rc
    addi    t0, {RCP}, {8 * 24}
    sw      t0, {END}(sp)""")
    body = Emitter()
    # complement the lanes of P on entry
    pre = Emitter()
    def complement(em: Emitter, what: str) -> None:
        # both words loaded before either is used (LW latency 2)
        for lane in sorted(P):
            em.op(f"lw t0, {8 * lane}(a0)", f"{what} lane {lane}")
            em.op(f"lw t1, {8 * lane + 4}(a0)")
            em.op("xori t0, t0, -1")
            em.op("xori t1, t1, -1")
            em.op(f"sw t0, {8 * lane}(a0)")
            em.op(f"sw t1, {8 * lane + 4}(a0)")
    complement(pre, "complement")
    # initial accumulated parities
    for x in ACC_COLS:
        lo, hi = ACC[x]
        pre.op(f"lw {lo}, {lane_off(x, 0)}(a0)", f"C[{x}] of the first round")
        pre.op(f"lw {hi}, {lane_off(x, 0) + 4}(a0)")
        for y in range(1, 5):
            pre.op(f"lw t0, {lane_off(x, y)}(a0)")
            pre.op(f"lw t1, {lane_off(x, y) + 4}(a0)")
            pre.op(f"xor {lo}, {lo}, t0")
            pre.op(f"xor {hi}, {hi}, t1")
    L += pre.lines
    e.raw(f".L{name}_loop:")
    e.raw("    /* round 2i: a0 -> stack buffer */")
    round_("a0", "sp", 0)
    e.raw("    /* round 2i+1: stack buffer -> a0 */")
    round_("sp", "a0", 8)
    e.op(f"lw t0, {END}(sp)")
    e.op(f"addi {RCP}, {RCP}, 16")
    e.op(f"bne {RCP}, t0, .L{name}_loop")
    L += e.lines
    post = Emitter()
    complement(post, "undo the complement of")
    L += post.lines
    L.append(f"""    lw      t0, {ORIG}(sp)
    beq     t0, a0, .L{name}_done
    li      t2, 200                     # copy the result back to the unaligned caller buffer
.L{name}_copy_out:
    lbu     t3, 0(a0)
    addi    a0, a0, 1
    sb      t3, 0(t0)
    addi    t0, t0, 1
    addi    t2, t2, -1
    bnez    t2, .L{name}_copy_out
.L{name}_done:""")
    for i, r in enumerate(["ra"] + [f"s{k}" for k in range(12)]):
        L.append(f"    lw      {r}, {SAVE + 4 * i}(sp)")
    L.append(f"""    addi    sp, sp, {FRAME}
    ret
    .size   MCU_FN({name}, permute), . - MCU_FN({name}, permute)
""")
    L[0] = L[0].replace("{count}", f"{e.count // 2}")
    return "\n".join(L)


def outputs() -> dict[str, str]:
    return {"keccakf1600_fast.S": generate(False), "keccakf1600_zbb.S": generate(True)}


def main() -> int:
    """Write the generated files; with --check, only report (exit 1) if the files differ from them."""
    return write_or_check({HERE / n: t for n, t in outputs().items()}, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    raise SystemExit(main())
