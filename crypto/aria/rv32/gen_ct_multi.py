#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate aria_ct_multi.S: constant-time ARIA over eight blocks at a time (implementation rv32-ct-multi,
RV32I instructions) and aria_ct_multi_zbb.S (rv32-ct-multi-zbb: Zbb rori for the byte rotations).

    python3 crypto/aria/rv32/gen_ct_multi.py [--check]

The S-box circuit is gen_ct.py's (the tower-field inversion shared by SB1..SB4, lane masks selecting the
affine maps; best_circuit() and its schedule are imported, not copied), and so is the key format: the
compact round keys of rv32-ct (constants folded for that circuit) come first in rk, followed by their
bitsliced expansion (aria_ct_multi_ks.c).

Layout: 32 words; word (w, j) = bit j of bytes 4w..4w+3 of the eight blocks, byte 4w+k of block b at bit
8k + b. A byte of rv32-ct's word form is then a lane of eight bits, so the word-form diffusion
A = M.P.M.D (byte rotations, byte swaps, word XORs) runs unchanged on each of the eight bit slices, and the
S-box lane masks are rv32-ct's (lane k: SB1..SB4 by k in odd rounds, 2 3 0 1 in even ones). Packing is the
8x8 transposition network of gen_aes_bitsliced.py per word position. Rounds run as a loop over round
pairs (state in the frame between pairs), each pair one straight-line program placed by the Belady
allocator of gen_aes_bitsliced.py and the rv32sched list scheduler.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "aes" / "rv32"))

import gen_ct  # noqa: E402
from gen_aes_barrel import const, ind, network  # noqa: E402
from gen_aes_bitsliced import POOL, Prog, allocate  # noqa: E402
from rv32sched import schedule, stalls  # noqa: E402

ST, BUF, SAVE = 0, 128, 256
OUTP, INP, NB, RKP, PAIRS, CNT = 308, 312, 316, 320, 324, 328
SPILL = 332
MPOOL = [r for r in POOL if r not in ("a0", "a1", "a3")]
LANE = [0xFF << (8 * k) for k in range(4)]
ODD = {"M1": LANE[0], "M2": LANE[1], "M3": LANE[2], "M4": LANE[3]}
EVEN = {"M1": LANE[2], "M2": LANE[3], "M3": LANE[0], "M4": LANE[1]}


def circuit():
    nu, mu, X, prog, outs = gen_ct.best_circuit()
    return gen_ct.schedule(prog, outs), outs


SCHED, OUTS = circuit()


def sbox(p: Prog, x: list[str], masks: dict[str, int]) -> list[str]:
    ins = [q[1] for q in SCHED if q[0] == "in"]          # signal of input bit b = ins[b]
    env = {ins[b]: x[b] for b in range(8)}
    for q in SCHED:
        if q[0] == "in":
            continue
        kind, d, a, b = q
        if kind == "mask":
            env[d] = p.op("and", env[a], const(p, masks[b]))
        else:
            env[d] = p.op(kind, env[a], env[b])
    return [env[o] for o in OUTS]


def dbytes(p: Prog, w: str, half_turn: bool = False) -> str:
    """D on a word: each byte (lane) becomes the XOR of the other three: ror8(w ^ t) ^ t with t = ror16(w).
    half_turn: ror16(D(w)) = ror8(w ^ t) ^ w instead, at no extra cost (P's half swap folded in)."""
    t = p.ror(w, 16)
    return p.xor(p.ror(p.xor(w, t), 8), w if half_turn else t)


def swap_in_halves(p: Prog, x: str) -> str:
    m = const(p, 0x00FF00FF)
    return p.op("or", p.op("and", p.op("srli", x, 8), m), p.op("slli", p.op("and", x, m), 8))


def mix(p: Prog, w: list[str]) -> list[str]:
    """M: w0' = w0^w1^w2, w1' = w0^w2^w3, w2' = w0^w1^w3, w3' = w1^w2^w3 (rv32-ct's MIX)."""
    w0, w1, w2, w3 = w
    w1 = p.xor(w1, w2)
    w2 = p.xor(w2, w3)
    w0 = p.xor(w0, w1)
    w3 = p.xor(w3, w1)
    w2 = p.xor(w2, w0)
    w1 = p.xor(w1, w2)
    return [w0, w1, w2, w3]


def diffuse(p: Prog, w: list[str]) -> list[str]:
    """A = M.P.M.D on one bit slice of the four words (P: word 1 swaps bytes within halves, word 2 swaps
    halves, word 3 reverses its bytes). D is linear and the same on every word, so it commutes with the
    word XORs of M: A = M.P.D.M, and the half swaps of words 2 and 3 fold into D (dbytes half_turn)."""
    w = mix(p, w)
    w = [dbytes(p, w[0]), swap_in_halves(p, dbytes(p, w[1])), dbytes(p, w[2], True),
         swap_in_halves(p, dbytes(p, w[3], True))]
    return mix(p, w)


def rnd(p: Prog, s: list[list[str]], key: int, odd: bool, diffusion: bool) -> list[list[str]]:
    s = [[p.xor(s[w][j], p.op("lw", (key + 4 * (8 * w + j), "a3"), hint="rk")) for j in range(8)] for w in range(4)]
    s = [sbox(p, s[w], ODD if odd else EVEN) for w in range(4)]
    if diffusion:
        cols = [diffuse(p, [s[w][j] for w in range(4)]) for j in range(8)]
        s = [[cols[j][w] for j in range(8)] for w in range(4)]
    return s


def load_state(p: Prog) -> list[list[str]]:
    return [[p.op("lw", ST + 4 * (8 * w + j), hint="st") for j in range(8)] for w in range(4)]


def store_state(p: Prog, s: list[list[str]]) -> None:
    for w in range(4):
        for j in range(8):
            p.ops.append(("sw", None, s[w][j], ST + 4 * (8 * w + j)))


def pair_program(zbb: bool, last: bool) -> Prog:
    p = Prog(zbb)
    s = rnd(p, load_state(p), 0, True, True)
    s = rnd(p, s, 128, False, not last)
    if last:      # the final key
        s = [[p.xor(s[w][j], p.op("lw", (256 + 4 * (8 * w + j), "a3"), hint="rk")) for j in range(8)]
             for w in range(4)]
    store_state(p, s)
    return p


def pack_program() -> Prog:
    """Eight blocks at a1 (block b, word w at 16b + 4w) -> slices at ST."""
    p = Prog()
    s = []
    for w in range(4):
        q = [p.op("lw", (16 * b + 4 * w, "a1"), hint="in") for b in range(8)]
        s.append(network(p, q))              # out[j] lane k bit b = bit j of byte 4w+k of block b
    store_state(p, s)
    return p


def unpack_program() -> Prog:
    p = Prog()
    s = load_state(p)
    for w in range(4):
        q = network(p, s[w])
        for b in range(8):
            p.ops.append(("sw", None, q[b], (16 * b + 4 * w, "a0")))
    return p


def alloc(p: Prog) -> tuple[list[str], int]:
    body, _, n = allocate(p.ops, [], [], [], pool=MPOOL, spill=SPILL, reuse_slots=True)
    return schedule(body), n


def generate(zbb: bool) -> str:
    pair, n1 = alloc(pair_program(zbb, False))
    last, n2 = alloc(pair_program(zbb, True))
    pack, n3 = alloc(pack_program())
    unpack, n4 = alloc(unpack_program())
    frame = (SPILL + 4 * max(n1, n2, n3, n4) + 15) & ~15
    assert frame <= 2040
    name = "rv32-ct-multi-zbb" if zbb else "rv32-ct-multi"
    isa = "RV32I + Zbb (rori for the byte rotations)" if zbb else "RV32I"
    saves = ["ra"] + [f"s{i}" for i in range(12)]
    L = [f"""/* SPDX-License-Identifier: MIT */
/* ARIA (RFC 5794) ECB over eight blocks at a time, constant time, for {isa}. Implementation {name}.
 * GENERATED by gen_ct_multi.py in this folder - edit the generator, not this file.
 *
 *   void mcu_ariaNNN_{name.replace("-", "_")}_encrypt_blocks(uint8_t *out, const uint8_t *in, size_t nblocks,
 *                                                const uint32_t *rk)      (NNN = 128, 192, 256)
 *   (keyschedule, keyschedule_dec: aria_ct_multi_ks.c; one-block encrypt and decrypt: aria_ct.S)
 *
 * rk: rv32-ct's compact keys (rounds + 1 keys of 4 words, S-box constants folded in), then their
 * bitsliced expansion, 32 words a key: word (w, j) has byte k = 0xff when bit j of byte k of key word w
 * is set. The entry points pass the expansion and the number of round pairs before the last one.
 *
 * State: 32 words, word (w, j) = bit j of bytes 4w..4w+3 of eight blocks, byte 4w+k of block b at bit
 * 8k + b: rv32-ct's word form with every byte widened to a lane of eight blocks. The S-box is gen_ct.py's
 * tower-field circuit with its lane masks (lane k), once per word position w; the diffusion
 * A = M.P.M.D of rv32-ct runs on each bit slice. Packing: the 8x8 transposition network per word
 * position. Round pairs: {len(pair)} instructions ({stalls(pair)} cycles of load interlock), the last pair
 * {len(last)}; pack {len(pack)}, unpack {len(unpack)}.
 * Register map: a0/a1 = out/in (or the frame buffer) while unpacking/packing, a3 = the round keys of the
 * pair; the programs use every other register but zero/sp/gp/tp (ra, s0..s11 saved).
 * Frame ({frame} bytes): state at {ST}, block buffer at {BUF}, saved registers at {SAVE}, out/in/nblocks/
 * keys/pairs/counter at {OUTP}..{CNT}, spill slots at {SPILL}.
 * Constant time: no branch or address depends on the key or the data; branches depend only on nblocks
 * and the alignment of the pointers. No multiply or divide.
 */
#include "mcucrypt/ns.h"
"""]
    sym = f"aria_ct_multi_{'zbb_' if zbb else ''}core"
    for inst, rounds, compact in (("aria128", 12, 13), ("aria192", 14, 15), ("aria256", 16, 17)):
        L.append(f"""    .section .text.{sym}_{inst}, "ax", @progbits
    .globl  MCU_FN({inst}, encrypt_blocks)
    .type   MCU_FN({inst}, encrypt_blocks), @function
    .p2align 2
MCU_FN({inst}, encrypt_blocks):
    addi    a3, a3, {16 * compact}
    li      a4, {(rounds - 2) // 2}
    j       .L{sym}
    .size   MCU_FN({inst}, encrypt_blocks), . - MCU_FN({inst}, encrypt_blocks)
""")
    L.append(f"""    .section .text.{sym}, "ax", @progbits
/* a0 out, a1 in, a2 nblocks, a3 expanded round keys, a4 round pairs before the last */
    .p2align 2
.L{sym}:
    beqz    a2, .L{sym}_empty""")
    L += ind([f"addi sp, sp, -{frame}"] + [f"sw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)])
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {NB}(sp)", f"sw a3, {RKP}(sp)",
              f"sw a4, {PAIRS}(sp)"])
    L.append(f".L{sym}_group:")
    L += ind([f"lw a1, {INP}(sp)", f"lw a2, {NB}(sp)", f"lw a0, {OUTP}(sp)", "sltiu t1, a2, 8", "or t2, a0, a1",
              "andi t2, t2, 3", "or t1, t1, t2", f"beqz t1, .L{sym}_packin",
              "/* fewer than eight blocks or unaligned: copy them to the frame buffer */",
              "mv t3, a2", "li t4, 8", f"bleu t3, t4, .L{sym}_n1", "mv t3, t4"])
    L.append(f".L{sym}_n1:")
    L += ind(["slli t3, t3, 4", f"addi t4, sp, {BUF}"])
    L.append(f""".L{sym}_copyin:
    lbu     t5, 0(a1)
    addi    a1, a1, 1
    sb      t5, 0(t4)
    addi    t4, t4, 1
    addi    t3, t3, -1
    bnez    t3, .L{sym}_copyin
    addi    a1, sp, {BUF}
.L{sym}_packin:""")
    L += ind(pack)
    L += ind([f"lw a3, {RKP}(sp)", f"lw t0, {PAIRS}(sp)", f"sw t0, {CNT}(sp)"])
    L.append(f".L{sym}_pair:")
    L += ind(pair)
    L += ind(["addi a3, a3, 256", f"lw t0, {CNT}(sp)", "addi t0, t0, -1", f"sw t0, {CNT}(sp)",
              f"bnez t0, .L{sym}_pair"])
    L += ind(last)
    L += ind([f"lw a0, {OUTP}(sp)", f"lw a1, {INP}(sp)", f"lw a2, {NB}(sp)", "sltiu t1, a2, 8", "or t2, a0, a1",
              "andi t2, t2, 3", "or t1, t1, t2", f"sw t1, {CNT}(sp)", f"beqz t1, .L{sym}_unpack",
              f"addi a0, sp, {BUF}"])
    L.append(f".L{sym}_unpack:")
    L += ind(unpack)
    L += ind([f"lw a0, {OUTP}(sp)", f"lw a1, {INP}(sp)", f"lw a2, {NB}(sp)", f"lw t1, {CNT}(sp)",
              f"beqz t1, .L{sym}_next", "/* copy the blocks out of the frame buffer */",
              "mv t3, a2", "li t4, 8", f"bleu t3, t4, .L{sym}_n2", "mv t3, t4"])
    L.append(f".L{sym}_n2:")
    L += ind(["slli t3, t3, 4", f"addi t4, sp, {BUF}", "mv t6, a0"])
    L.append(f""".L{sym}_copyout:
    lbu     t5, 0(t4)
    addi    t4, t4, 1
    sb      t5, 0(t6)
    addi    t6, t6, 1
    addi    t3, t3, -1
    bnez    t3, .L{sym}_copyout
.L{sym}_next:
    li      t4, 8
    bleu    a2, t4, .L{sym}_done
    addi    a0, a0, 128
    addi    a1, a1, 128
    addi    a2, a2, -8
    sw      a0, {OUTP}(sp)
    sw      a1, {INP}(sp)
    sw      a2, {NB}(sp)
    j       .L{sym}_group
.L{sym}_done:""")
    L += ind([f"lw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)] + [f"addi sp, sp, {frame}", "ret"])
    L.append(f""".L{sym}_empty:
    ret
""")
    return "\n".join(L)


def outputs() -> dict[str, str]:
    return {"aria_ct_multi.S": generate(False), "aria_ct_multi_zbb.S": generate(True)}


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
