#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates permutation_rv32i.S (rv32-fast): Ascon-p on RV32I with complemented lanes instead of NOTs.

Run `python3 crypto/ascon/rv32/gen_rv32i.py > crypto/ascon/rv32/permutation_rv32i.S`; a test checks that
the committed file is this script's output, and the script checks its own round code against a Python
Ascon-p on random states before printing anything.

Why a generator. RV32I has no ANDN/ORN: the 15-operation S-box (docs/ascon.md) costs 17 instructions a
32-bit word there, two of them NOTs. A NOT is not needed when the operand it would invert is already held
complemented. So lanes may be kept complemented (a whole 64-bit lane: the linear layer maps ~x to ~L(x),
the constant addition does not care), and the script tracks which lanes are:

1. It enumerates S-box circuits of the usual shape, one AND/OR gate per output, y_i = (a ^ al)(b ^ be)
   ^ R_i ^ k_i with a, b, R_i linear forms of the inputs (a, b spanning the 2-dimensional space of y_i's
   quadratic part), and keeps those whose linear forms take the fewest XORs (shortest linear program):
   none needs only 4 (no 14-instruction circuit of this shape exists), 18 need 5: 15 instructions.
2. For a complement pattern of the five input lanes each gate either fits as AND or OR of the held
   values, or needs one NOT on an operand; the output pattern follows. A shortest-path search over the
   rounds (patterns change from round to round, the rounds are unrolled) picks each round's circuit and
   NOTs, and the patterns at the p8/p12 entries, minimising the instructions of the AEAD block loop:
   NOTs in rounds 4-11, lanes flipped between blocks, and NOTs the ciphertext needs.
3. Around the rounds it emits the permutation entry, the block loops, and the one-call AEAD drivers
   (aead_enc, aead_dec: initialization to tag with the state in registers, for short packets; the
   partial last blocks come prepared from ascon.c in a job, see AEAD_TEMPLATE).
"""
from __future__ import annotations

import itertools
import random

SBOX = [0x4, 0xb, 0x1f, 0x14, 0x1a, 0x15, 0x9, 0x2, 0x1b, 0x5, 0x8, 0x12, 0x1d, 0x3, 0x6, 0x1c,
        0x1e, 0x13, 0x7, 0xe, 0x0, 0xd, 0x11, 0x18, 0x10, 0xc, 0x1, 0x19, 0x16, 0xa, 0xf, 0x17]
CONSTANTS = (0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, 0x78, 0x69, 0x5A, 0x4B)
UNITS = [1 << i for i in range(5)]          # linear form: bit i = input lane x_i


def parity(v: int) -> int:
    return bin(v).count("1") & 1


def column(v: int) -> int:
    """S-box input index (x0 the most significant bit) -> input mask (bit i = x_i)."""
    return sum(((v >> (4 - i)) & 1) << i for i in range(5))


def y_bit(v: int, i: int) -> int:
    return (SBOX[v] >> (4 - i)) & 1


# ------------------------------------------------------------------------------ 1. S-box circuits
def gate_options(i: int) -> list[tuple[int, int, int, int, int, int]]:
    """(a, b, al, be, R, k): y_i = (a ^ al)(b ^ be) ^ R ^ k for all inputs."""
    out = []
    for a, b in itertools.combinations(range(1, 32), 2):
        vals = [y_bit(v, i) ^ (parity(a & column(v)) & parity(b & column(v))) for v in range(32)]
        k = vals[0]
        r = sum(1 << j for j in range(5) if vals[[v for v in range(32) if column(v) == 1 << j][0]] ^ k)
        if any(vals[v] != parity(r & column(v)) ^ k for v in range(32)):
            continue
        for al, be in itertools.product((0, 1), repeat=2):
            # (a^al)(b^be) = ab ^ al.b ^ be.a ^ al.be
            out.append((a, b, al, be, r ^ (b if al else 0) ^ (a if be else 0), k ^ (al & be)))
    return out


def programs(depth: int) -> dict[frozenset, list[tuple[int, int, int]]]:
    """Every set of forms reachable with `depth` XORs from the inputs -> one program (f, p, q)."""
    out: dict[frozenset, list] = {}

    def rec(avail: frozenset, new: frozenset, prog: list, d: int) -> None:
        out.setdefault(new, list(prog))
        if d == depth:
            return
        ordered = sorted(avail)
        for p, q in itertools.combinations(ordered, 2):
            f = p ^ q
            if f not in avail and (not prog or (p, q) > prog[-1][1:]):   # canonical order of steps
                rec(avail | {f}, new | {f}, prog + [(f, p, q)], d + 1)
    rec(frozenset(UNITS), frozenset(), [], 0)
    return out


def circuits() -> list[tuple[tuple, list]]:
    """The circuits whose forms (gate inputs and residuals, beyond the inputs) take the fewest XORs."""
    options = [gate_options(i) for i in range(5)]
    units = sum(1 << u for u in UNITS)
    need = [[((1 << a) | (1 << b) | (1 << r)) & ~units for a, b, _, _, r, _ in opts] for opts in options]
    for depth in (4, 5):
        covered: dict[int, list] = {}        # every set of forms some program of `depth` XORs computes
        for forms, prog in programs(depth).items():
            m = sum(1 << f for f in forms)
            sub = m
            while True:
                covered.setdefault(sub, prog)
                if sub == 0:
                    break
                sub = (sub - 1) & m
        found = []

        def rec(i: int, mask: int, picks: list) -> None:
            if bin(mask).count("1") > depth:
                return
            if i == 5:
                if mask in covered:
                    found.append((tuple(options[k][p] for k, p in enumerate(picks)), covered[mask]))
                return
            for p, m in enumerate(need[i]):
                rec(i + 1, mask | m, picks + [p])
        rec(0, 0, [])
        if found:
            return found
    raise SystemExit("no circuit")


# ------------------------------------------------------------------------- 2. complement patterns
def gate_fits(choice: tuple, c: int):
    """For input pattern c (bit i = lane i held complemented): per gate the ways to compute it, as
    (nots, not_a, op, output complement)."""
    per = []
    for a, b, al, be, r, k in choice:
        qa, qb = parity(a & c), parity(b & c)
        ways = []
        for na, nb in ((0, 0), (1, 0), (0, 1)):
            if (qa ^ na) ^ (qb ^ nb) != al ^ be:
                continue
            delta = qa ^ na ^ al          # AND of the held values when 0, OR (complemented result) when 1
            ways.append((na + nb, na, nb, "or" if delta else "and", k ^ delta ^ parity(r & c)))
        per.append(ways)
    return per


def transitions(circ: list) -> dict[int, dict[int, tuple]]:
    """pattern -> {output pattern: (nots, circuit index, per-gate way)} keeping the fewest NOTs."""
    out: dict[int, dict[int, tuple]] = {}
    for c in range(32):
        best: dict[int, tuple] = {}
        for ci, (choice, _) in enumerate(circ):
            for ways in itertools.product(*gate_fits(choice, c)):
                n = sum(w[0] for w in ways)
                co = sum(w[4] << i for i, w in enumerate(ways))
                if co not in best or best[co][0] > n:
                    best[co] = (n, ci, ways)
        out[c] = best
    return out


def plan(trans: dict) -> tuple[list[int], list[tuple]]:
    """Patterns c0..c12 and each round's (circuit, ways). Cost of an AEAD block (two halves): 2 x NOTs
    of rounds 4-11 + 2 x lanes flipped from c12 to c4 + 2 x complemented rate lanes in c12 (the
    ciphertext word needs a NOT); ties broken by the hash block (p12, flips c12 -> c0)."""
    def paths(start: int, rounds: int) -> dict[int, tuple[int, list]]:
        cur = {start: (0, [])}
        for _ in range(rounds):
            nxt: dict[int, tuple[int, list]] = {}
            for c, (cost, steps) in cur.items():
                for co, (n, ci, ways) in trans[c].items():
                    if co not in nxt or nxt[co][0] > cost + n:
                        nxt[co] = (cost + n, steps + [(c, co, ci, ways)])
            cur = nxt
        return cur
    best = None
    heads = {c0: paths(c0, 4) for c0 in range(32)}
    for c4 in range(32):
        for c12, (n8, tail) in paths(c4, 8).items():
            aead = 2 * n8 + 2 * bin(c4 ^ c12).count("1") + 2 * (c12 & 1) + 2 * ((c12 >> 1) & 1)
            for c0 in range(32):
                head = heads[c0].get(c4)
                if head is None:
                    continue
                hash_ = 2 * (head[0] + n8) + 2 * bin(c0 ^ c12).count("1") + 2 * (c12 & 1)
                key = (aead, hash_, c0, c4, c12)
                if best is None or key < best[0]:
                    best = (key, head[1] + tail)
    steps = best[1]
    return [s[0] for s in steps] + [steps[-1][1]], [(s[2], s[3]) for s in steps]


# ------------------------------------------------------------------------------------ 3. emission
HOME = [("s0", "s1"), ("s2", "s3"), ("s4", "s5"), ("s6", "s7"), ("s8", "s9")]    # lane i: (low, high)
OUT = {0: ["t0", "t1", "t2", "t3", "t4"], 1: ["t5", "t6", "a4", "a5", "a6"]}   # S-box outputs, per half
TEMPS = ["a7", "s10", "s11"]
# Linear layer: x ^= (x ^ (x >>> d)) >>> a, i.e. x ^ (x >>> a) ^ (x >>> (a + d)).
LINEAR = {0: (19, 9), 1: (39, 22), 2: (1, 5), 3: (10, 7), 4: (7, 34)}


def sbox_half(out: list[str], choice: tuple, prog: list, ways: tuple, half: int, c: int) -> None:
    out.append(f"# {'high' if half else 'low'} words -> {', '.join(OUT[half])}")
    reg = {1 << i: HOME[i][half] for i in range(5)}
    scratch = ([h[0] for h in HOME] if half else OUT[1]) + TEMPS
    ys = OUT[half]
    pool = list(scratch)
    for f, p, q in prog:
        reg[f] = pool.pop(0)
        out.append(f"xor     {reg[f]}, {reg[p]}, {reg[q]}")
    for i, ((a, b, _, _, r, _), (_, na, nb, op, comp)) in enumerate(zip(choice, ways)):
        ra, rb = reg[a], reg[b]
        if na or nb:
            t = pool[0]
            out.append(f"not     {t}, {ra if na else rb}")
            ra, rb = (t, rb) if na else (ra, t)
        out.append(f"{op:<7} {ys[i]}, {ra}, {rb}")
        out.append(f"xor     {ys[i]}, {ys[i]}, {reg[r]}" + (f"    # y{i}" + (" (complemented)" if comp else "")))


def xrot(out: list[str], dl: str, dh: str, l: str, h: str, yl: str, yh: str, n: int) -> None:
    """(dl, dh) = (l, h) ^ ((yl, yh) >>> n), 0 < n < 64, n != 32."""
    t = TEMPS[2]
    if n >= 32:
        yl, yh, n = yh, yl, n - 32
    out += [f"srli    {t}, {yl}, {n}", f"xor     {dl}, {l}, {t}", f"slli    {t}, {yh}, {32 - n}",
            f"xor     {dl}, {dl}, {t}", f"srli    {t}, {yh}, {n}", f"xor     {dh}, {h}, {t}",
            f"slli    {t}, {yl}, {32 - n}", f"xor     {dh}, {dh}, {t}"]


def round_code(r: int, c: int, choice: tuple, prog: list, ways: tuple) -> list[str]:
    out = [f"# round {r}: constant 0x{CONSTANTS[r]:02x}; lanes held complemented: "
           + (", ".join(f"S{i}" for i in range(5) if c >> i & 1) or "none")]
    out.append(f"xori    s4, s4, 0x{CONSTANTS[r]:02x}")
    nots = sum(w[0] for w in ways)
    out.append(f"# S-box: {15 + nots} instructions a word ({nots} NOT)")
    sbox_half(out, choice, prog, ways, 0, c)
    sbox_half(out, choice, prog, ways, 1, c)
    for lane in range(5):
        a, d = LINEAR[lane]
        yl, yh = OUT[0][lane], OUT[1][lane]
        out.append(f"# S{lane} ^= (S{lane} >>> {a}) ^ (S{lane} >>> {(a + d) % 64}): "
                   f"t = y ^ (y >>> {d}), then y ^ (t >>> {a})")
        xrot(out, TEMPS[0], TEMPS[1], yl, yh, yl, yh, d)
        xrot(out, HOME[lane][0], HOME[lane][1], yl, yh, TEMPS[0], TEMPS[1], a)
    return out


# --------------------------------------------------------------------------- 4. self-check
M32 = 0xFFFFFFFF


def run(code: list[str], regs: dict[str, int]) -> None:
    for line in code:
        if line.startswith("#"):
            continue
        op, args = line.split(None, 1)
        a = [x.strip() for x in args.split("#")[0].split(",")]
        g = lambda x: regs[x]     # noqa: E731
        if op == "xor":
            regs[a[0]] = g(a[1]) ^ g(a[2])
        elif op == "and":
            regs[a[0]] = g(a[1]) & g(a[2])
        elif op == "or":
            regs[a[0]] = g(a[1]) | g(a[2])
        elif op == "not":
            regs[a[0]] = g(a[1]) ^ M32
        elif op == "xori":
            regs[a[0]] = g(a[1]) ^ int(a[2], 0)
        elif op == "srli":
            regs[a[0]] = g(a[1]) >> int(a[2])
        elif op == "slli":
            regs[a[0]] = (g(a[1]) << int(a[2])) & M32
        else:
            raise ValueError(line)


def ref_round(x: list[int], r: int) -> list[int]:
    m = (1 << 64) - 1
    ror = lambda v, n: ((v >> n) | (v << (64 - n))) & m    # noqa: E731
    x = list(x)
    x[2] ^= CONSTANTS[r]
    x[0] ^= x[4]; x[4] ^= x[3]; x[2] ^= x[1]                                   # noqa: E702
    t = [(~x[i] & m) & x[(i + 1) % 5] for i in range(5)]
    x = [x[i] ^ t[(i + 1) % 5] for i in range(5)]
    x[1] ^= x[0]; x[0] ^= x[4]; x[3] ^= x[2]; x[2] ^= m                        # noqa: E702
    rot = ((19, 28), (61, 39), (1, 6), (10, 17), (7, 41))
    return [x[i] ^ ror(x[i], rot[i][0]) ^ ror(x[i], rot[i][1]) for i in range(5)]


def self_check(rounds: list[list[str]], pats: list[int]) -> None:
    rng = random.Random(1)
    m = (1 << 64) - 1
    for _ in range(20):
        x = [rng.getrandbits(64) for _ in range(5)]
        held = [x[i] ^ (m if pats[0] >> i & 1 else 0) for i in range(5)]
        regs = {}
        for i in range(5):
            regs[HOME[i][0]], regs[HOME[i][1]] = held[i] & M32, held[i] >> 32
        for r in range(12):
            run(rounds[r], regs)
            x = ref_round(x, r)
            got = [regs[HOME[i][0]] | regs[HOME[i][1]] << 32 for i in range(5)]
            want = [x[i] ^ (m if pats[r + 1] >> i & 1 else 0) for i in range(5)]
            assert got == want, f"round {r}"


# ------------------------------------------------------------------------------------ 5. output
def flips(pattern: int, indent: str = "    ") -> str:
    """NOT the lanes of `pattern` (entering or leaving the complemented representation)."""
    return "\n".join(f"{indent}not     {HOME[i][h]}, {HOME[i][h]}" for i in range(5) if pattern >> i & 1
                     for h in (0, 1))


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_rv32i.py (edit the generator, not this file).
 *
 * Ascon-p on RV32I (rv32-fast): 64-bit lanes as (low, high) register pairs, all ten words in registers,
 * twelve rounds unrolled, block loops with the state in registers. Base ISA only (no rotate, no ANDN):
 * the E31's RV32IMAC without extensions.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);    rounds = 12 or 8
 * and the block loops absorb16, encrypt16, decrypt16, absorb8 (ref/ascon.h; 4-byte-aligned buffers,
 * which ascon.c checks: LW/SW only), and the one-call AEAD drivers aead_enc, aead_dec (at the end).
 *
 * Register map between rounds: S0 = (s0 low, s1 high), S1 = (s2, s3), S2 = (s4, s5), S3 = (s6, s7),
 * S4 = (s8, s9). The rounds clobber t0-t6, a4-a7, s10, s11.
 * Complemented lanes instead of NOTs (the generator's docstring): some lanes are held as ~Si, a pattern
 * that changes from round to round; each round's S-box is one of the 15-operation circuits with one
 * AND/OR gate an output, chosen so that the gates fit the held complements; the few that do not take a
 * NOT. Patterns at the round boundaries:
 * %s.
 * Linear layer: x ^= (x ^ (x >>> d)) >>> a; every 64-bit rotation-and-XOR is two shifts and two XORs a
 * half: 16 instructions a lane. A round: 1 + 30 + NOTs + 80 instructions, all single-cycle on the E31 and
 * none data-dependent: constant time. */
#include "mcucrypt/ns.h"
"""


def main() -> None:
    circ = circuits()
    trans = transitions(circ)
    pats, steps = plan(trans)
    rounds = []
    for r, (ci, ways) in enumerate(steps):
        choice, prog = circ[ci]
        rounds.append(round_code(r, pats[r], choice, prog, ways))
    self_check(rounds, pats)
    names = lambda p: "{" + ",".join(f"S{i}" for i in range(5) if p >> i & 1) + "}"    # noqa: E731
    print(HEADER % (f"p12 enters with {names(pats[0])} complemented, p8 (round 4) with {names(pats[4])}, both leave "
                    f"with {names(pats[12])}"), end="")
    print("""
/* The rounds on s0..s9, called with JAL ra: Ascon-p[12] at .Lascon_i_r12, Ascon-p[8] at .Lascon_i_r8;
 * the caller puts the state in the entry pattern and takes it back from the exit pattern. */
    .section .text.ascon_rounds_rv32i, "ax", @progbits
    .align 2
.Lascon_i_r12:""")
    for r in range(12):
        if r == 4:
            print(".Lascon_i_r8:")
        for line in rounds[r]:
            print(("    " + line) if not line.startswith("#") else "    " + line)
    print("    ret")
    p0, p4, p12 = pats[0], pats[4], pats[12]
    body = {
        "enter12": flips(p0), "enter8": flips(p4), "leave": flips(p12),
        "to8": flips(p12 ^ p4), "to12": flips(p12 ^ p0),
    }
    print(TEMPLATE.format(**body, enc_body=rate_code(p12, True), dec_body=rate_code(p12, False)))
    drv = aead_driver(p0, p4, p12)
    print(AEAD_TEMPLATE.format(enc=drv["enc"], dec=drv["dec"]), end="")


def rate_code(held: int, encrypt: bool, dst: str = "a1", off: str = "") -> str:
    """Rate words w = 0..3 (a4..a7 the block's words, output at off+4w(dst)): the ciphertext (encryption)
    or the plaintext (decryption) is held rate ^ block, complemented where the pattern holds the lane
    complemented; after decryption the rate takes the ciphertext, complemented likewise."""
    out = []
    for w in range(4):
        reg, blk, comp = HOME[w // 2][w % 2], f"a{4 + w}", held >> (w // 2) & 1
        out.append(f"xor     {reg}, {reg}, {blk}")
        if encrypt:
            if comp:
                out += [f"not     {blk}, {reg}", f"sw      {blk}, {off}{4 * w}({dst})"]
            else:
                out.append(f"sw      {reg}, {off}{4 * w}({dst})")
        else:
            if comp:
                out.append(f"not     {reg}, {reg}")
            out += [f"sw      {reg}, {off}{4 * w}({dst})", f"{'not' if comp else 'mv':<7} {reg}, {blk}"]
    return "\n".join("    " + line for line in out)


def dec_tail_code(held: int) -> str:
    """The last, partial (1..15 bytes) ciphertext block: a4..a7 = B, the ciphertext bytes padded with
    0x01 (ascon.c), t0..t3 = M, 0xff on the ciphertext's bytes. x = S ^ B; the plaintext p = x & M goes to
    J_TAIL; the state takes x ^ (S & M): the ciphertext on M's bytes, S ^ 0x01 at the pad byte, S beyond.
    A lane held complemented (H = ~S): y = H ^ B = ~x, p = ~y & M, and H' = ~(x ^ (S & M)) = y ^ (H & M) ^ M."""
    out = []
    for w in range(4):
        reg, blk, m, comp = HOME[w // 2][w % 2], f"a{4 + w}", f"t{w}", held >> (w // 2) & 1
        out += [f"and     t5, {reg}, {m}", f"xor     {reg}, {reg}, {blk}"]
        if comp:
            out += [f"not     t6, {reg}", f"and     t6, t6, {m}"]
        else:
            out.append(f"and     t6, {reg}, {m}")
        out += [f"sw      t6, J_TAIL+{4 * w}(a0)", f"xor     {reg}, {reg}, t5"]
        if comp:
            out.append(f"xor     {reg}, {reg}, {m}")
    return "\n".join("    " + line for line in out)


def aead_driver(p0: int, p4: int, p12: int) -> dict[str, str]:
    """The one-call AEAD drivers aead_enc / aead_dec: initialization to tag with the state in registers
    (AEAD_TEMPLATE). Loads are placed so that no result is used by the next instruction (LW: 2 cycles);
    the expected paths fall through (a cold E31 predictor charges 3 cycles a taken branch): a last block
    of 0 bytes, the padding alone, inline; a partial one, the unaligned tag and the wipe's last 1..15
    bytes out of line. The board tests (KATs, model, forgeries) check this code; the rounds are checked
    here (self_check)."""
    def key_load() -> list[str]:
        """The key (a1 = its pointer) into t1..t4."""
        return [f"lw      t{1 + w}, {4 * w}(a1)" for w in range(4)]

    def xors(i: int, j: int) -> list[str]:
        """K0 (t1, t2) XORed into lane i, K1 (t3, t4) into lane j. A lane held complemented takes the
        XOR as it is: ~S ^ K = ~(S ^ K)."""
        return [f"xor     {r}, {r}, t{1 + w}" for w, r in enumerate([*HOME[i], *HOME[j]])]

    def absorb(src: str, off: str) -> list[str]:
        return ([f"lw      a{4 + w}, {off}{4 * w}({src})" for w in range(4)]
                + [f"xor     {HOME[w // 2][w % 2]}, {HOME[w // 2][w % 2]}, a{4 + w}" for w in range(4)])

    def fl(pattern: int) -> list[str]:
        return [f"not     {HOME[i][h]}, {HOME[i][h]}" for i in range(5) if pattern >> i & 1 for h in (0, 1)]

    start = [
        "# S = IV, K0, K1, N0, N1 in p12's entry pattern; p12; S3 ^= K0, S4 ^= K1 (a1 = key, a2 = ad_phase)",
        "lw      a1, J_K(a0)",
        "lw      t1, J_NPUB(a0)",
        "lw      a2, J_AD_PHASE(a0)",
        "lui     s0, 0x808c0                 # IV 0x00001000808c0001",
        "addi    s0, s0, 1",
        "lui     s1, 0x1",
        "lw      s2, 0(a1)",
        "lw      s3, 4(a1)",
        "lw      s4, 8(a1)",
        "lw      s5, 12(a1)",
        "lw      s6, 0(t1)",
        "lw      s7, 4(t1)",
        "lw      s8, 8(t1)",
        "lw      s9, 12(t1)",
        *fl(p0),
        "jal     ra, .Lascon_i_r12",
        *key_load(),
        "lw      a3, J_AD_END(a0)",
        "lw      a1, J_AD(a0)",
        *xors(3, 4),
        "# associated data (when there is any): the whole blocks, then the padded last block",
        "beqz    a2, 3f",
        "beq     a1, a3, 2f",
        "1:",
        *absorb("a1", ""),
        "addi    a1, a1, 16",
        *fl(p12 ^ p4),
        "jal     ra, .Lascon_i_r8",
        "bne     a1, a3, 1b",
        "2:",
        "addi    t0, a2, -1                  # ad_phase - 1: bytes in the last AD block",
        "bnez    t0, .Laead_{fn}_adtail",
        "xori    s0, s0, 1                   # an empty last block: the padding alone",
        ".Laead_{fn}_ad8:",
        *fl(p12 ^ p4),
        "jal     ra, .Lascon_i_r8",
        "3:",
        "# the whole message blocks, after the domain separation S4 ^= 1 << 63",
        "lw      a1, J_IN(a0)",
        "lw      a3, J_IN_END(a0)",
        "lw      a2, J_OUT(a0)",
        "lui     t0, 0x80000",
        f"xor     {HOME[4][1]}, {HOME[4][1]}, t0",
        "beq     a1, a3, 2f",
        "1:",
        "lw      a4, 0(a1)",
        "lw      a5, 4(a1)",
        "lw      a6, 8(a1)",
        "lw      a7, 12(a1)",
        "addi    a1, a1, 16",
        "{body}",
        "addi    a2, a2, 16",
        *fl(p12 ^ p4),
        "jal     ra, .Lascon_i_r8",
        "bne     a1, a3, 1b",
        "2:",
        "# the last block: a partial one (out of line, back at 4) or the padding alone (a1 = key again)",
        "lw      t6, J_TAIL_LEN(a0)",
        "lw      a1, J_K(a0)",
        "bnez    t6, .Laead_{fn}_tail",
        "xori    s0, s0, 1                   # an empty last block: the padding alone",
        "4:",
    ]
    final = [
        "# S2 ^= K0, S3 ^= K1; p12; tag = (S3 ^ K0, S4 ^ K1) in t1..t4",
        *key_load(),
        *xors(2, 3),
        *fl(p12 ^ p0),
        "jal     ra, .Lascon_i_r12",
        "lw      t5, J_TAG(a0)",
        *key_load(),
    ]
    for w in range(4):
        reg = HOME[3 + w // 2][w % 2]
        final.append(f"xor     t{1 + w}, t{1 + w}, {reg}")
        if p12 >> (3 + w // 2) & 1:
            final.append(f"not     t{1 + w}, t{1 + w}")
    final += ["andi    t0, t5, 3", "bnez    t0, 5f"]
    copy = [".Laead_{fn}_adtail:",
            *absorb("a0", "J_ADTAIL+"),
            "j       .Laead_{fn}_ad8",
            ".Laead_{fn}_tail:",
            "# the last block (1..15 bytes) from J_TAIL, its output back to J_TAIL, then its tail_len bytes to a2",
            "lw      a4, J_TAIL+0(a0)",
            "lw      a5, J_TAIL+4(a0)",
            "lw      a6, J_TAIL+8(a0)",
            "lw      a7, J_TAIL+12(a0)",
            "{tail}",
            "lw      t6, J_TAIL_LEN(a0)",
            "addi    t1, a0, J_TAIL",
            "add     t6, t6, a2",
            "7:",
            "lbu     t2, 0(t1)",
            "addi    t1, t1, 1",
            "addi    a2, a2, 1",
            "sb      t2, -1(a2)",
            "bne     a2, t6, 7b",
            "j       4b"]
    enc_end = [*[f"sw      t{1 + w}, {4 * w}(t5)" for w in range(4)],
               "RESTORE",
               "5:",
               "# the tag to an address that is not 4-byte aligned: byte stores"]
    for w in range(4):
        for b in range(4):
            enc_end.append(f"sb      t{1 + w}, {4 * w + b}(t5)")
            if b < 3:
                enc_end.append(f"srli    t{1 + w}, t{1 + w}, 8")
    enc_end += ["RESTORE", *copy]
    dec_end = [
        "# diff = OR of (computed ^ received) over the tag; J_TAG holds the received tag",
        *[f"lw      a{4 + w}, {4 * w}(t5)" for w in range(4)],
        *[f"xor     t{1 + w}, t{1 + w}, a{4 + w}" for w in range(4)],
        "or      t1, t1, t2",
        "or      t3, t3, t4",
        "or      t1, t1, t3",
        "8:",
        "# keep = all ones when diff == 0, else 0 (no branch): ((diff | -diff) >> 31) - 1",
        "neg     t2, t1",
        "or      t1, t1, t2",
        "srli    t1, t1, 31",
        "addi    t1, t1, -1",
        "# the plaintext [out, a2) &= keep: 16 bytes a step, then bytes (out is 4-byte aligned; lengths public)",
        "lw      a1, J_OUT(a0)",
        "sub     t3, a2, a1",
        "andi    t3, t3, 15",
        "sub     t4, a2, t3",
        "beq     a1, t4, 2f",
        "1:",
        *[f"lw      a{4 + w}, {4 * w}(a1)" for w in range(4)],
        *[f"and     a{4 + w}, a{4 + w}, t1" for w in range(4)],
        *[f"sw      a{4 + w}, {4 * w}(a1)" for w in range(4)],
        "addi    a1, a1, 16",
        "bne     a1, t4, 1b",
        "2:",
        "bne     a1, a2, 3f",
        "9:",
        "andi    a0, t1, 1                   # 0: accepted, -1: rejected (and wiped)",
        "addi    a0, a0, -1",
        "RESTORE",
        "3:",
        "# the last 1..15 bytes: words, then bytes",
        "sub     t3, a2, a1",
        "andi    t3, t3, 3",
        "sub     t4, a2, t3",
        "beq     a1, t4, 2f",
        "1:",
        "lw      t2, 0(a1)",
        "addi    a1, a1, 4",
        "and     t2, t2, t1",
        "sw      t2, -4(a1)",
        "bne     a1, t4, 1b",
        "2:",
        "beq     a1, a2, 9b",
        "1:",
        "lbu     t2, 0(a1)",
        "addi    a1, a1, 1",
        "and     t2, t2, t1",
        "sb      t2, -1(a1)",
        "bne     a1, a2, 1b",
        "j       9b",
        "5:",
        "# the received tag is not 4-byte aligned: the computed tag to J_MASK (free now), bytes compared",
        *[f"sw      t{1 + w}, J_MASK+{4 * w}(a0)" for w in range(4)],
        "addi    t2, a0, J_MASK",
        "addi    t3, t5, 16",
        "li      t1, 0",
        "0:",
        "lbu     t0, 0(t2)",
        "lbu     t4, 0(t5)",
        "addi    t2, t2, 1",
        "addi    t5, t5, 1",
        "xor     t0, t0, t4",
        "or      t1, t1, t0",
        "bne     t5, t3, 0b",
        "j       8b",
        *copy,
    ]
    enc_tail = rate_code(p12, True, "a0", "J_TAIL+")
    dec_tail = "\n".join(["# plaintext p = (S ^ B) & M to J_TAIL, S = (S ^ B) ^ (S & M) (gen_rv32i.py, dec_tail_code)",
                          *[f"lw      t{w}, J_MASK+{4 * w}(a0)" for w in range(4)], dec_tail_code(p12)])
    code = {}
    for fn, end, body, tail in (("enc", enc_end, rate_code(p12, True, "a2"), enc_tail),
                                ("dec", dec_end, rate_code(p12, False, "a2"), dec_tail)):
        code[fn] = "\n".join(start + final + end).replace("{fn}", fn).replace("{body}", body).replace("{tail}", tail)
    return {name: "\n".join(ln.strip() if ln.strip().endswith(":") else "    " + ln.strip()
                            for ln in body.split("\n")) for name, body in code.items()}


TEMPLATE = """
# SAVE / RESTORE: the callee-saved registers and ra in a 64-byte frame (RESTORE returns)
.macro SAVE
    addi    sp, sp, -64
    sw      s0, 0(sp)
    sw      s1, 4(sp)
    sw      s2, 8(sp)
    sw      s3, 12(sp)
    sw      s4, 16(sp)
    sw      s5, 20(sp)
    sw      s6, 24(sp)
    sw      s7, 28(sp)
    sw      s8, 32(sp)
    sw      s9, 36(sp)
    sw      s10, 40(sp)
    sw      s11, 44(sp)
    sw      ra, 48(sp)
.endm

.macro RESTORE
    lw      s0, 0(sp)
    lw      s1, 4(sp)
    lw      s2, 8(sp)
    lw      s3, 12(sp)
    lw      s4, 16(sp)
    lw      s5, 20(sp)
    lw      s6, 24(sp)
    lw      s7, 28(sp)
    lw      s8, 32(sp)
    lw      s9, 36(sp)
    lw      s10, 40(sp)
    lw      s11, 44(sp)
    lw      ra, 48(sp)
    addi    sp, sp, 64
    ret
.endm

.macro PROLOGUE
    SAVE
    lw      s0, 0(a0)
    lw      s1, 4(a0)
    lw      s2, 8(a0)
    lw      s3, 12(a0)
    lw      s4, 16(a0)
    lw      s5, 20(a0)
    lw      s6, 24(a0)
    lw      s7, 28(a0)
    lw      s8, 32(a0)
    lw      s9, 36(a0)
.endm

.macro EPILOGUE
    sw      s0, 0(a0)
    sw      s1, 4(a0)
    sw      s2, 8(a0)
    sw      s3, 12(a0)
    sw      s4, 16(a0)
    sw      s5, 20(a0)
    sw      s6, 24(a0)
    sw      s7, 28(a0)
    sw      s8, 32(a0)
    sw      s9, 36(a0)
    RESTORE
.endm

    .text
    .globl MCU_FN(ascon, permute)
    .type MCU_FN(ascon, permute), @function
MCU_FN(ascon, permute):
    PROLOGUE
    li      t0, 8
    beq     a1, t0, 1f
{enter12}
    jal     ra, .Lascon_i_r12
    j       2f
1:
{enter8}
    jal     ra, .Lascon_i_r8
2:
{leave}
    EPILOGUE
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)

/* Block loops (nblocks >= 1, 4-byte-aligned buffers): a1-a3 pointers and the input's end, a4-a7 the block's
 * words (the rounds keep a0-a3 and ra). Between blocks the state is held in the exit pattern of the
 * rounds; the lanes that differ from the entry pattern of p8 (p12) are flipped before the call. */
    .globl MCU_FN(ascon, absorb16)
    .type MCU_FN(ascon, absorb16), @function
MCU_FN(ascon, absorb16):
    PROLOGUE
    slli    a2, a2, 4
    add     a2, a2, a1                  # end of the input
{leave}
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    lw      a6, 8(a1)
    lw      a7, 12(a1)
    addi    a1, a1, 16
    xor     s0, s0, a4
    xor     s1, s1, a5
    xor     s2, s2, a6
    xor     s3, s3, a7
{to8}
    jal     ra, .Lascon_i_r8
    bne     a1, a2, 1b
{leave}
    EPILOGUE
    .size MCU_FN(ascon, absorb16), . - MCU_FN(ascon, absorb16)

    .globl MCU_FN(ascon, encrypt16)
    .type MCU_FN(ascon, encrypt16), @function
MCU_FN(ascon, encrypt16):
    PROLOGUE
    slli    a3, a3, 4
    add     a3, a3, a2                  # end of the input
{leave}
1:  lw      a4, 0(a2)
    lw      a5, 4(a2)
    lw      a6, 8(a2)
    lw      a7, 12(a2)
    addi    a2, a2, 16
{enc_body}
    addi    a1, a1, 16
{to8}
    jal     ra, .Lascon_i_r8
    bne     a2, a3, 1b
{leave}
    EPILOGUE
    .size MCU_FN(ascon, encrypt16), . - MCU_FN(ascon, encrypt16)

    .globl MCU_FN(ascon, decrypt16)
    .type MCU_FN(ascon, decrypt16), @function
MCU_FN(ascon, decrypt16):
    PROLOGUE
    slli    a3, a3, 4
    add     a3, a3, a2                  # end of the input
{leave}
1:  lw      a4, 0(a2)                   # ciphertext words
    lw      a5, 4(a2)
    lw      a6, 8(a2)
    lw      a7, 12(a2)
    addi    a2, a2, 16
{dec_body}
    addi    a1, a1, 16
{to8}
    jal     ra, .Lascon_i_r8
    bne     a2, a3, 1b
{leave}
    EPILOGUE
    .size MCU_FN(ascon, decrypt16), . - MCU_FN(ascon, decrypt16)

    .globl MCU_FN(ascon, absorb8)
    .type MCU_FN(ascon, absorb8), @function
MCU_FN(ascon, absorb8):
    PROLOGUE
    slli    a2, a2, 3
    add     a2, a2, a1                  # end of the input
{leave}
1:  lw      a4, 0(a1)
    lw      a5, 4(a1)
    addi    a1, a1, 8
    xor     s0, s0, a4
    xor     s1, s1, a5
{to12}
    jal     ra, .Lascon_i_r12
    bne     a1, a2, 1b
{leave}
    EPILOGUE
    .size MCU_FN(ascon, absorb8), . - MCU_FN(ascon, absorb8)"""


AEAD_TEMPLATE = """

/* The one-call AEAD drivers (ASCON_ASM_AEAD): Ascon-AEAD128 from the initialization to the tag with the
 * state in registers, one call instead of one per phase (each call saves twelve registers and loads and
 * stores the state): what short packets pay for most. ascon.c takes this path when the key, nonce, AD,
 * input and output are 4-byte aligned, and prepares the job (ascon_aead_job_t, ref/ascon.h):
 *
 * void mcu_ascon_<impl>_aead_enc(ascon_aead_job_t *j);    encryption: output, then the tag to j->tag
 * int mcu_ascon_<impl>_aead_dec(ascon_aead_job_t *j);     decryption: output, the tag compared with the
 *     received one at j->tag (OR of differences), the output ANDed with an all-ones or all-zeros mask:
 *     returns 0 when the tag matched, else -1 with the output wiped, on the same instructions
 *
 * Job fields (byte offsets J_*; ascon.h checks its struct against them at compile time): the key and
 * nonce pointers; the whole AD blocks [ad, ad_end) and ad_phase (0: no AD, else 1 + the bytes of the
 * last AD block: 1 means the padding alone, which costs one XORI); the whole message blocks
 * [in, in_end) and out; adtail, the last AD block padded (0..15 bytes and 0x01); tail, the last message
 * block padded likewise (the plaintext when encrypting, the ciphertext when decrypting), which takes
 * that block's output, of which tail_len (0..15) bytes are copied to the output after the whole blocks;
 * mask (decryption), 0xff on the last block's bytes; tag, where the 16-byte tag is stored (encryption)
 * or read (decryption), words when it is 4-byte aligned, bytes otherwise.
 *
 * Register map: a0 = j throughout; a1 the input pointer, a2 the output pointer, a3 the end of the run of
 * whole blocks (a0-a3 and ra survive the rounds); a4-a7 a block's words; s0-s9 the state as in the
 * rounds (between phases in the rounds' exit pattern; lanes flipped into p12's entry pattern before it);
 * t0-t6 the key, the last block's mask words and the tag between the rounds. Every branch depends on
 * the lengths and the alignment of the buffers only (public): constant time. */
    .equ J_K, 0
    .equ J_NPUB, 4
    .equ J_AD, 8
    .equ J_AD_END, 12
    .equ J_IN, 16
    .equ J_IN_END, 20
    .equ J_OUT, 24
    .equ J_TAG, 28
    .equ J_AD_PHASE, 32
    .equ J_TAIL_LEN, 36
    .equ J_ADTAIL, 40
    .equ J_TAIL, 56
    .equ J_MASK, 72

    .section .text.ascon_aead_rv32i, "ax", @progbits
    .align 2
    .globl MCU_FN(ascon, aead_enc)
    .type MCU_FN(ascon, aead_enc), @function
MCU_FN(ascon, aead_enc):
    SAVE
{enc}
    .size MCU_FN(ascon, aead_enc), . - MCU_FN(ascon, aead_enc)

    .globl MCU_FN(ascon, aead_dec)
    .type MCU_FN(ascon, aead_dec), @function
MCU_FN(ascon, aead_dec):
    SAVE
{dec}
    .size MCU_FN(ascon, aead_dec), . - MCU_FN(ascon, aead_dec)
"""


if __name__ == "__main__":
    main()
