#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate aria_ct_multi.S: constant-time ARIA over eight blocks at a time (implementation rv32-ct-multi,
RV32I instructions) and aria_ct_multi_zbb.S (rv32-ct-multi-zbb: Zbb rori and rev8 for the byte rotations
and reversals of the diffusion).

    python3 crypto/aria/rv32/gen_ct_multi.py [--check | --search]

Layout: 32 words; word (w, j) = bit j of bytes 4w..4w+3 of the eight blocks, byte 4w+k of block b at bit
8k + b (rv32-ct's word form, every byte widened to a lane of eight blocks). Per bit slice, the 4x4 byte
transposition gives the type form, where type word k holds the bytes 4w+k, which all take one S-box type:
one mask-free circuit per type word (SB1: Boyar-Peralta, gen_aes_bitsliced.py; SB2..SB4:
aria_ct_circuit.build_typed, the tower-field inversion with the type's affine maps, the isomorphism of
fewest XORs per type, --search redoes that search). D of the diffusion A = M.P.M.D is word XORs in the
type form; M, P, M run on the word form. Even rounds run the odd rounds' code on a state and key whose
words have their halves swapped (form R, which swaps type words k and k ^ 2, and costs nothing: R.P costs
what P costs). The key format is rv32-ct's compact keys (constants folded in), followed by their bitsliced
expansion, even-round keys in form R (aria_ct_multi_ks.c). Packing is the 8x8 transposition network of
gen_aes_bitsliced.py per word position. A round is two straight-line programs (substitution; diffusion
with the next key and the transposition) in one loop, placed by the Belady allocator of
gen_aes_bitsliced.py and the rv32sched list scheduler; before writing, the packing and twelve rounds are
interpreted and compared with the specification's rounds. docs/aria.md has the figures.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "aes" / "rv32"))

sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[2]))      # the repository root: mcucrypt.models.aria for the self-check
import aria_ct_circuit as acc  # noqa: E402
from gen_aes_barrel import BYTE_NET, COLWORD, SBOX_ORDER, const, ind, network, swapmove  # noqa: E402
from gen_aes_bitsliced import POOL, Prog, allocate  # noqa: E402
from rv32sched import schedule, stalls  # noqa: E402

ST, TY, TF, SAVE = 0, 128, 256, 384     # state (word form), S-box outputs and inputs (type form)
BUF = TY          # block buffer (fewer than eight blocks, unaligned buffers): free while packing and unpacking
OUTP, INP, NB, RKP, END, CNT = 436, 440, 444, 448, 452, 456
SPILL = 460
MPOOL = [r for r in POOL if r not in ("a0", "a1", "a3")]


# The isomorphism (index into aria_ct_circuit.isomorphisms()) with the fewest XORs after Paar's factoring,
# per S-box type, found by trying all 128 (python3 gen_ct_multi.py --search): 105, 103, 103 XOR + 36 AND.
# Type 1 (SB1, the AES S-box without its constant) is the Boyar-Peralta circuit instead: 83 XOR + 32 AND.
TYPED_ISO = {2: 42, 3: 20, 4: 124}
TYPES = {True: (1, 2, 3, 4), False: (3, 4, 1, 2)}     # S-box type of type word k in odd / even rounds


def typed_circuits() -> dict[int, tuple[list[tuple], list[int]]]:
    """Type t -> (scheduled program, output signals); each circuit checked on all 256 inputs."""
    isos = list(acc.isomorphisms())
    out = {}
    for t, k in TYPED_ISO.items():
        nu, mu, X = isos[k]
        c, y = acc.build_typed(nu, mu, X, t)
        acc.check_typed(c, y, t)
        prog, outs = acc.to_program(c, y)
        out[t] = (acc.schedule(prog, outs), outs)
    return out


def search_isomorphisms() -> None:
    for t in (2, 3, 4):
        best = None
        for k, (nu, mu, X) in enumerate(acc.isomorphisms()):
            prog, _ = acc.to_program(*acc.build_typed(nu, mu, X, t))
            n = sum(1 for q in prog if q[0] == "xor")
            if best is None or n < best[0]:
                best = (n, k)
        print(f"type {t}: isomorphism {best[1]}, {best[0]} XOR")


CIRCUITS = typed_circuits()


def sbox(p: Prog, x: list[str], t: int) -> list[str]:
    """S-box type t (1..4) on the eight slices x[0..7] (bit b of every lane in x[b]): Out_t(inv(In_t(x)))."""
    if t == 1:
        env = {f"x{i}": x[7 - i] for i in range(8)}
        for dst, op, a, b in SBOX_ORDER:
            env[dst] = p.op(op, env[a], env[b], hint=dst)
        return [env[f"s{7 - i}"] for i in range(8)]
    sched, outs = CIRCUITS[t]
    ins = [q[1] for q in sched if q[0] == "in"]
    env = {ins[b]: x[b] for b in range(8)}
    for q in sched:
        if q[0] != "in":
            kind, d, a, b = q
            env[d] = p.op(kind, env[a], env[b])
    return [env[o] for o in outs]


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


def to_types(p: Prog, w: list[str]) -> list[str]:
    """One bit slice, word form (word w: lane k = byte 4w+k) -> type form (word k: lane w = byte 4w+k):
    the 4x4 byte transposition network (an involution, so it also goes back)."""
    w = list(w)
    for a, b, m, n in BYTE_NET:
        w[a], w[b] = swapmove(p, w[a], w[b], m, n)
    return [w[COLWORD[k]] for k in range(4)]


def to_words(p: Prog, x: list[str]) -> list[str]:
    w = [""] * 4
    for k in range(4):
        w[COLWORD[k]] = x[k]
    for a, b, m, n in BYTE_NET:
        w[a], w[b] = swapmove(p, w[a], w[b], m, n)
    return w


def diffuse_types(p: Prog, x: list[str]) -> list[str]:
    """R.A = R.M.P.M.D on one bit slice given in type form; returns the word form. D (each byte becomes the
    XOR of the other three of its word) is word XORs in type form (6 instructions); then the transposition
    back and M, R.P, M on words. P: word 1 swaps bytes within halves, word 2 swaps halves, word 3 reverses;
    R (swap the halves of every word) commutes with M and P, and R.P = (swap halves, reverse, identity,
    swap bytes within halves) costs what P costs."""
    t01, t23 = p.xor(x[0], x[1]), p.xor(x[2], x[3])
    d = [p.xor(t23, x[1]), p.xor(t23, x[0]), p.xor(t01, x[3]), p.xor(t01, x[2])]
    w = mix(p, to_words(p, d))
    if p.zbb:     # rev8 reverses the bytes of a word; a swap within halves is rev8 and a half turn
        w = [p.ror(w[0], 16), p.op("rev8", w[1]), w[2], p.ror(p.op("rev8", w[3]), 16)]
    else:
        w = [p.ror(w[0], 16), swap_in_halves(p, p.ror(w[1], 16)), w[2], swap_in_halves(p, w[3])]
    return mix(p, w)


def load(p: Prog, off: int) -> list[list[str]]:
    return [[p.op("lw", off + 4 * (8 * w + j), hint="st") for j in range(8)] for w in range(4)]


PIN = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]     # S-box outputs of type word 3, carried in registers


def ark_types(p: Prog, s: list[str], j: int, key: int) -> list[str]:
    """Bit slice j of the word-form state (4 words) ^ the round key at key(a3) -> type form (4 words)."""
    return to_types(p, [p.xor(s[w], p.op("lw", (key + 4 * (8 * w + j), "a3"), hint="rk")) for w in range(4)])


def store_types(p: Prog, x: list[str], j: int) -> None:
    for k in range(4):
        p.ops.append(("sw", None, x[k], TF + 4 * (8 * k + j)))


def substitution_program(zbb: bool) -> tuple[Prog, list[str]]:
    """First half of every round: the type words at TF (key added) through the odd rounds' S-box circuits
    (SB1 SB2 SB3 SB4 on type words 0..3) -> TY (y[k][j] at TY + 4 (8k + j)), type word 3 left in PIN.
    Even rounds run the same code: their state and key are in the form R (halves of every word swapped),
    which swaps type words k and k ^ 2, so type word k meets the circuit of SB3 SB4 SB1 SB2."""
    p = Prog(zbb)
    for k in range(4):
        y = sbox(p, [p.op("lw", TF + 4 * (8 * k + j), hint="tf") for j in range(8)], TYPES[True][k])
        if k < 3:
            for j in range(8):
                p.ops.append(("sw", None, y[j], TY + 4 * (8 * k + j)))
    return p, y


def s_box_outputs(p: Prog, k: int, j: int, pinned: list[str]) -> str:
    return pinned[j] if k == 3 else p.op("lw", TY + 4 * (8 * k + j), hint="ty")


def diffusion_program(zbb: bool) -> tuple[Prog, list[str]]:
    """Second half of every round but the last, and the start of the next: S-box outputs (TY, PIN) -> R.A
    per bit slice -> the next round key (a3 + 128) -> type form -> TF. R: see substitution_program; the
    state alternates between the plain form and R."""
    p = Prog(zbb)
    pinned = [f"pin.{j}" for j in range(8)]
    for j in range(8):
        w = diffuse_types(p, [s_box_outputs(p, k, j, pinned) for k in range(4)])
        store_types(p, ark_types(p, w, j, 128), j)
    return p, pinned


def last_program(zbb: bool) -> tuple[Prog, list[str]]:
    """Second half of the last round (even, so its S-box outputs are in form R: true type word k is the
    one at k ^ 2): back to the plain word form, the final key (a3 + 128) -> ST."""
    p = Prog(zbb)
    pinned = [f"pin.{j}" for j in range(8)]
    for j in range(8):
        w = to_words(p, [s_box_outputs(p, k ^ 2, j, pinned) for k in range(4)])
        for i in range(4):
            v = p.xor(w[i], p.op("lw", (128 + 4 * (8 * i + j), "a3"), hint="rk"))
            p.ops.append(("sw", None, v, ST + 4 * (8 * i + j)))
    return p, pinned


def pack_program() -> Prog:
    """Eight blocks at a1 (block b, word w at 16b + 4w) -> slices, ^ the first round key (a3) -> type
    form at TF."""
    p = Prog()
    s = []
    for w in range(4):
        q = [p.op("lw", (16 * b + 4 * w, "a1"), hint="in") for b in range(8)]
        s.append(network(p, q))              # out[j] lane k bit b = bit j of byte 4w+k of block b
    for j in range(8):
        store_types(p, ark_types(p, [s[w][j] for w in range(4)], j, 0), j)
    return p


def unpack_program() -> Prog:
    p = Prog()
    s = load(p, ST)
    for w in range(4):
        q = network(p, s[w])
        for b in range(8):
            p.ops.append(("sw", None, q[b], (16 * b + 4 * w, "a0")))
    return p


def interpret(ops, mem: dict, regs: dict, env: dict | None = None) -> dict:
    """Run a program of virtual operations (before register allocation) on mem (addresses -> words);
    env: values of its inputs. Returns every value."""
    env = dict(env or {})
    for op, d, a, b in ops:
        if op in ("lw", "sw"):
            off, base = (a if op == "lw" else b) if isinstance(a if op == "lw" else b, tuple) \
                else ((a if op == "lw" else b), "sp")
            if op == "lw":
                env[d] = mem[regs[base] + off]
            else:
                mem[regs[base] + off] = env[a]
            continue
        x = env.get(a) if isinstance(a, str) else a
        y = env.get(b) if isinstance(b, str) else b
        env[d] = {"xor": lambda: x ^ y, "and": lambda: x & y, "or": lambda: x | y, "li": lambda: a & M32,
                  "slli": lambda: (x << y) & M32, "srli": lambda: x >> y,
                  "rori": lambda: ((x >> y) | (x << (32 - y))) & M32,
                  "rev8": lambda: int.from_bytes(x.to_bytes(4, "little"), "big")}[op]()
    return env


M32 = 0xFFFFFFFF


def rform(v: int) -> int:
    """R: the halves of a word swapped."""
    return ((v >> 16) | (v << 16)) & M32


def check_rounds(zbb: bool, rounds: int = 12) -> None:
    """The round programs as the core runs them (substitution, then diffusion or, in the last round, the
    last program; even-round keys in form R) against the specification's rounds with the key schedule's
    folded constants (an S-box of type t computes SB_t(x ^ CIN_t) ^ COUT_t), random state and keys."""
    import random
    from mcucrypt.models.aria import diffuse as model_diffuse
    rng = random.Random(17)
    sboxes = (acc.SB1, acc.SB2, acc.SB3, acc.SB4)

    def model_round(blk: bytes, key: bytes, odd: bool, diffusion: bool) -> bytes:
        x = bytes(v ^ k for v, k in zip(blk, key))
        y = []
        for i, v in enumerate(x):
            t = (i % 4) if odd else (i + 2) % 4         # SL1: SB1 SB2 SB3 SB4, SL2: SB3 SB4 SB1 SB2
            y.append(sboxes[t][v ^ acc.CIN[t]] ^ acc.COUT[t])
        y = bytes(y)
        return model_diffuse(int.from_bytes(y, "big")).to_bytes(16, "big") if diffusion else y

    def slices(blocks: list[bytes]) -> list[int]:
        return [sum(((blocks[b][4 * w + k] >> j) & 1) << (8 * k + b) for k in range(4) for b in range(8))
                for w in range(4) for j in range(8)]

    (sub, outs), (dif, ins), (last, _) = substitution_program(zbb), diffusion_program(zbb), last_program(zbb)
    pack = pack_program()
    blocks = [rng.randbytes(16) for _ in range(8)]
    keys = [rng.randbytes(16) for _ in range(rounds + 1)]
    sp, rk, src = 0x100000, 0x200000, 0x300000
    mem = {}
    for i, k in enumerate(keys):
        for n, v in enumerate(slices([k] * 8)):
            mem[rk + 128 * i + 4 * n] = rform(v) if i % 2 and i < rounds else v
    for b, blk in enumerate(blocks):
        for w in range(4):
            mem[src + 16 * b + 4 * w] = int.from_bytes(blk[4 * w:4 * w + 4], "little")
    interpret(pack.ops, mem, {"sp": sp, "a3": rk, "a1": src})
    for r in range(rounds):
        regs = {"sp": sp, "a3": rk + 128 * r}
        env = interpret(sub.ops, mem, regs)
        interpret((last if r == rounds - 1 else dif).ops, mem, regs, {v: env[o] for v, o in zip(ins, outs)})
    want = []
    for blk in blocks:
        for r in range(rounds):
            blk = model_round(blk, keys[r], r % 2 == 0, r < rounds - 1)
        want.append(bytes(v ^ k for v, k in zip(blk, keys[rounds])))
    assert [mem[sp + ST + 4 * n] for n in range(32)] == slices(want), "the round programs disagree with ARIA"


def alloc(p: Prog, ins: list[str] = (), outs: list[str] = ()) -> tuple[list[str], int]:
    """Belady allocation and list scheduling; ins arrive and outs leave in PIN."""
    body, regs, n = allocate(p.ops, list(ins), PIN[:len(ins)], list(outs), pool=MPOOL, spill=SPILL,
                             reuse_slots=True, pin=dict(zip(outs, PIN)), oldest_free=True)
    assert regs == PIN[:len(outs)]
    return schedule(body, disambiguate=True), n


def generate(zbb: bool) -> str:
    check_rounds(zbb)
    prog, outs = substitution_program(zbb)
    sub, n1 = alloc(prog, outs=outs)
    dif, n2 = alloc(*diffusion_program(zbb))
    last, n5 = alloc(*last_program(zbb))
    pack, n3 = alloc(pack_program())
    unpack, n4 = alloc(unpack_program())
    frame = (SPILL + 4 * max(n1, n2, n3, n4, n5) + 15) & ~15
    assert frame <= 2040
    name = "rv32-ct-multi-zbb" if zbb else "rv32-ct-multi"
    isa = "RV32I + Zbb (rori and rev8 for the byte rotations and reversals)" if zbb else "RV32I"
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
 * is set, the halves of the word swapped (form R) in the keys of even rounds. The entry points pass the
 * expansion and the address of the last round's key.
 *
 * State: 32 words, word (w, j) = bit j of bytes 4w..4w+3 of eight blocks, byte 4w+k of block b at bit
 * 8k + b (the word form of rv32-ct with every byte widened to a lane of eight blocks). Per bit slice, the
 * 4x4 byte transposition gives the type form: type word k holds the bytes 4w+k, which all take the same
 * S-box. A round is two straight-line programs in one loop. Substitution ({len(sub)} instructions,
 * {stalls(sub)} cycles of load interlock): the type words (key added) from the frame through one S-box
 * circuit per type word with no lane masks (SB1: Boyar-Peralta; SB2..SB4: tower-field inversion with their
 * affine maps, Paar-factored), outputs to the frame, those of type word 3 left in {PIN[0]}..{PIN[-1]}.
 * Diffusion ({len(dif)} instructions, {stalls(dif)} cycles of load interlock): per bit slice D as word
 * XORs in type form, the transposition back, M, R.P, M, the next round's key, the transposition into the
 * type form, to the frame. Even rounds run the same code: their state and key are in form R (halves of
 * every word swapped), which swaps type words k and k ^ 2 and so hands each one the S-box of its
 * even-round type; R costs nothing because R.P costs what P costs and the diffusion alternates the form.
 * The last round ends with the last program ({len(last)} instructions: transposition back, final key)
 * instead of the diffusion. Packing ({len(pack)}: the 8x8 transposition network per word position, the
 * first key, the transposition into type form) and unpacking ({len(unpack)}).
 * Register map: a0/a1 = out/in (or the frame buffer) while unpacking/packing, a3 = the round's key; the
 * programs use every other register but zero/sp/gp/tp (ra, s0..s11 saved).
 * Frame ({frame} bytes): state (word form, after the last round) at {ST}, S-box outputs at {TY}, type
 * words at {TF}, the block buffer at {BUF} (the S-box outputs' place, free while packing and unpacking),
 * saved registers at {SAVE}, out/in/nblocks/keys/last key/flag at {OUTP}..{CNT}, spill slots at {SPILL}.
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
    addi    a4, a3, {128 * (rounds - 1)}
    j       .L{sym}
    .size   MCU_FN({inst}, encrypt_blocks), . - MCU_FN({inst}, encrypt_blocks)
""")
    L.append(f"""    .section .text.{sym}, "ax", @progbits
/* a0 out, a1 in, a2 nblocks, a3 expanded round keys, a4 the last round's key */
    .p2align 2
.L{sym}:
    beqz    a2, .L{sym}_empty""")
    L += ind([f"addi sp, sp, -{frame}"] + [f"sw {r}, {SAVE + 4 * k}(sp)" for k, r in enumerate(saves)])
    L += ind([f"sw a0, {OUTP}(sp)", f"sw a1, {INP}(sp)", f"sw a2, {NB}(sp)", f"sw a3, {RKP}(sp)",
              f"sw a4, {END}(sp)"])
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
    L += ind([f"lw a3, {RKP}(sp)"])
    L += ind(pack)
    L.append(f".L{sym}_round:")
    L += ind(sub)
    L += ind([f"lw t0, {END}(sp)", f"beq a3, t0, .L{sym}_last"])
    L += ind(dif)
    L += ind(["addi a3, a3, 128", f"j .L{sym}_round"])
    L.append(f".L{sym}_last:")
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
    """Write the generated files; with --check, only report (exit 1) if the files differ from them;
    with --search, print the isomorphism of fewest XORs per S-box type (TYPED_ISO)."""
    if "--search" in sys.argv[1:]:
        search_isomorphisms()
        return 0
    return write_or_check({HERE / n: t for n, t in outputs().items()}, "--check" in sys.argv[1:], __file__)

if __name__ == "__main__":
    raise SystemExit(main())
