# SPDX-License-Identifier: MIT
"""Generate the SHA-256 and SHA-512 block functions (FIPS 180-4) for the 8-bit AVR (ATmega128; correct on
the ATmega2560 too): sha256_avr.S, sha512_avr.S (implementation avr-fast) and sha256_avr_small.S,
sha512_avr_small.S (avr-small).

    python3 gen_sha2_avr.py            (writes the four files beside this file; --check compares)

One generator for both: a word is N bytes (4 or 8) held in N registers, least significant byte first, and
the two functions differ only in N, the rotation amounts, the round count and what stays in registers.

Techniques
  - Rotations: the byte part of every rotation or shift is free (the generator renames which register
    holds which byte); only the bit part executes, as chains of one-bit steps, left (LSL/ROL.../ADC r1:
    N+1 instructions) or right (BST/LSR/ROR.../BLD: N+2), whichever is shorter. The rotations of one Sigma
    that share a direction share a chain: Sigma1_256 = ROTR6^ROTR11^ROTR25 costs a left chain of 2 steps
    and one right chain of 1+2 steps. The first chain's copy becomes the accumulator by renaming (no
    moves); when the input is not needed afterwards the last chain runs in place on it.
  - Two rotations at one byte offset are one rotation of x ^ ROTR_d(x). Shifts (sigma0/sigma1 of the
    schedule) are chains of plain shifts: a right shift continues a right rotation chain (ANDI clears
    the wrapped bits); SHR by 8q+s with s >= 5 is a left shift by 8-s with the bits that leave the top
    caught in r0, and left rotations of the same sigma ride on that chain (ROTL_k = the shifted bytes
    with r0 XORed into byte 0).
  - Ch(e,f,g) = g ^ (e & (f ^ g)) and Maj byte by byte, each result byte added at once into the T1 / T2
    accumulator: the carry flag survives LDD, EOR and AND, so one ADD/ADC chain runs through the loads.
  - SHA-256 keeps e, f, a and a^b in registers from one round to the next (16 of the 24 registers) and
    computes T2 first; Maj(a,b,c) = b ^ ((a^b) & (b^c)) reuses the previous round's a^b as this round's
    b^c, and Ch is computed in f's registers (this e is the next f). SHA-512 keeps nothing (three 8-byte
    groups fill the 24 free registers) and reloads a and e.
  - a..h live in an 8-word ring on the stack frame (LDD/STD Y+q, q <= 63): 8 rounds are unrolled so the
    renaming of the working variables is a renaming of displacements; only the new a and new e are stored.
  - avr-fast expands the whole message schedule W[0..R-1] on the frame before the rounds (one loop, X and
    Z pointers; SHA-256 two words an iteration with W[t-1], W[t-2] and W[t-16] kept in registers), so a
    round reads W[t] with LD X+; avr-small keeps a rolling 32-word schedule (every 16
    rounds the same loop writes the next 16 words over W[0..15] and 16 words up, where the rest of the
    pass reads them: nothing wraps). K[t] comes from flash with ELPM Z+ (RAMPZ set from the table's
    address: correct above 64 KiB and on the ATmega2560; RAMPZ is restored on return).
  - avr-small runs one round in a loop: the ring slides down a word a round (the new a is stored with
    ST -Y) and LD Y+ / STD Y+8N-1 copies it back up every 8 rounds; K is aligned to 16 words so that ZL
    says when to copy back and when to expand the schedule.
Constant time: the only branches are the loop counters (block count, schedule, rounds); every address is a
function of the public pointers and the round number; no MUL, no table indexed by data.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
SREG, SPL, SPH, RAMPZ = 0x3F, 0x3D, 0x3E, 0x3B      # I/O addresses, the same on the ATmega128 and 2560


# ---------------------------------------------------------------------------------------------- constants

def _first_primes(count: int) -> list[int]:
    out, k = [], 2
    while len(out) < count:
        if all(k % p for p in out):
            out.append(k)
        k += 1
    return out


def _iroot(x: int, e: int) -> int:
    """floor(x ** (1/e)) for a non-negative integer x."""
    lo, hi = 0, 1 << (x.bit_length() // e + 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid ** e <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


def round_constants(bits: int, count: int) -> list[int]:
    """FIPS 180-4 4.2.2/4.2.3: the first `bits` bits of the fractional parts of the cube roots of the
    first `count` primes."""
    return [_iroot(p << (3 * bits), 3) & ((1 << bits) - 1) for p in _first_primes(count)]


# -------------------------------------------------------------------------------------------- parameters

class Params:
    def __init__(self, name: str, n: int, rounds: int, big0: tuple, big1: tuple, small0: tuple,
                 small1: tuple, keep: bool) -> None:
        self.name, self.n, self.rounds = name, n, rounds
        self.big0, self.big1, self.small0, self.small1 = big0, big1, small0, small1
        self.keep = keep          # e, a and a^b stay in registers between rounds
        self.k = round_constants(8 * n, rounds)


SHA256 = Params("sha256", 4, 64, (("rot", 2), ("rot", 13), ("rot", 22)), (("rot", 6), ("rot", 11), ("rot", 25)),
                (("rot", 7), ("rot", 18), ("shr", 3)), (("rot", 17), ("rot", 19), ("shr", 10)), keep=True)
SHA512 = Params("sha512", 8, 80, (("rot", 28), ("rot", 34), ("rot", 39)), (("rot", 14), ("rot", 18), ("rot", 41)),
                (("rot", 1), ("rot", 8), ("shr", 7)), (("rot", 19), ("rot", 61), ("shr", 6)), keep=False)


# ------------------------------------------------------------------------------------------------ emitter

class Gen:
    POOL = list(range(2, 26))       # r2..r25; r0 scratch, r1 zero, X/Y/Z pointers

    def __init__(self, p: Params) -> None:
        self.p, self.n = p, p.n
        self.lines: list[str] = []
        self.free = set(self.POOL)
        self.labels = 0

    def e(self, s: str) -> None:
        self.lines.append("    " + s)

    def c(self, s: str) -> None:
        self.lines.append("    ; " + s)

    def label(self, s: str) -> None:
        self.lines.append(s + ":")

    # -- registers
    def alloc(self, count: int | None = None) -> list[int]:
        """count registers (default a word), aligned pairs first so that copies can use MOVW."""
        count = self.n if count is None else count
        out: list[int] = []
        for r in sorted(self.free):
            if len(out) + 2 <= count and r % 2 == 0 and r + 1 in self.free and r not in out:
                out += [r, r + 1]
        for r in sorted(self.free):
            if len(out) < count and r not in out:
                out.append(r)
        if len(out) < count:
            raise RuntimeError(f"{self.p.name}: out of registers")
        self.free -= set(out)
        return out

    def alloc_upper(self) -> int:
        r = min(x for x in self.free if x >= 16)
        self.free.discard(r)
        return r

    def release(self, regs: list[int]) -> None:
        assert not (set(regs) & self.free)
        self.free |= set(regs)

    def copy(self, dst: list[int], src: list[int]) -> None:
        i = 0
        while i < len(dst):
            if (i + 1 < len(dst) and dst[i] % 2 == 0 and dst[i + 1] == dst[i] + 1 and src[i] % 2 == 0
                    and src[i + 1] == src[i] + 1):
                self.e(f"movw r{dst[i]}, r{src[i]}")
                i += 2
            else:
                self.e(f"mov r{dst[i]}, r{src[i]}")
                i += 1

    def permute(self, dst: list[int], src: list[int]) -> None:
        """Parallel move dst[i] <- src[i] (a permutation of registers among dst and src), r0 breaks cycles."""
        moves = {d: s for d, s in zip(dst, src) if d != s}
        while moves:
            ready = [d for d in moves if d not in moves.values()]
            if ready:
                d = ready[0]
                src = moves[d]
                if (d % 2 == 0 and src % 2 == 0 and moves.get(d + 1) == src + 1 and d + 1 in ready):
                    self.e(f"movw r{d}, r{src}")
                    del moves[d], moves[d + 1]
                    continue
                self.e(f"mov r{d}, r{moves.pop(d)}")
                continue
            d = next(iter(moves))                       # a cycle: park one value in r0
            self.e(f"mov r0, r{d}")
            for k, v in list(moves.items()):
                if v == d:
                    moves[k] = 0
        # r0 holds nothing afterwards that anyone needs

    # -- one-bit steps on a word (a list of registers, least significant first)
    def rotr1(self, w: list[int]) -> None:
        self.e(f"bst r{w[0]}, 0")
        self.e(f"lsr r{w[-1]}")
        for r in reversed(w[:-1]):
            self.e(f"ror r{r}")
        self.e(f"bld r{w[-1]}, 7")

    def rotl1(self, w: list[int]) -> None:
        self.e(f"lsl r{w[0]}")
        for r in w[1:]:
            self.e(f"rol r{r}")
        self.e(f"adc r{w[0]}, r1")

    def shr1(self, w: list[int]) -> None:
        self.e(f"lsr r{w[-1]}")
        for r in reversed(w[:-1]):
            self.e(f"ror r{r}")

    def shl1c(self, w: list[int]) -> None:      # w plus the carry-out byte in r0
        self.e(f"lsl r{w[0]}")
        for r in w[1:]:
            self.e(f"rol r{r}")
        self.e("rol r0")

    # -- Sigma / sigma
    def sigma(self, src: list[int], terms: tuple, preserve: bool, name: str = "") -> list[int]:
        """XOR of rotations/shifts of src; returns the accumulator's registers (byte i first). With
        preserve=False src's registers are consumed (released).

        A chain is a list of events on one copy of src (the last chain works on src itself when src may
        be consumed): ("step", fn, count) one-bit steps; ("xor", q, mode) XOR the chain's word, rotated
        by 8q bytes, into the accumulator (the first such event creates the accumulator: by renaming
        when it ends a chain on a copy, else by moves); ("xsrc",) XOR src into the chain's word.
        Rotations of one direction share a chain; two at the same byte offset are one rotation of
        (x ^ ROTR_d(x)); a right shift by s continues a right rotation chain that stops at or below s
        (the bits that wrapped round are cleared with ANDI on the top byte)."""
        n = self.n
        if name:
            self.c(name + " = " + " ^ ".join(("ROTR" if k == "rot" else "SHR") + str(r) for k, r in terms)
                   + ("" if preserve else " (in place)"))
        rot = {"R": [], "L": []}
        shifts = []
        zero_terms = []
        for kind, r in terms:
            q, s = divmod(r, 8)
            if kind == "rot":
                if s == 0:
                    zero_terms.append(q)
                elif s <= 4:
                    rot["R"].append((s, q))
                else:
                    rot["L"].append((8 - s, q + 1))
            else:
                shifts.append((s, q))
        stepfn = {"R": self.rotr1, "L": self.rotl1}
        chains: list[list[tuple]] = []
        merged = None
        left_shifts = [(8 - s, q + 1) for s, q in shifts if s > 4]
        if rot["L"] and left_shifts:
            # left rotations and a left shift in one chain of plain shifts that catch the bits leaving
            # the top in r0: after k steps ROTL_k(x) = y with r0 ORed (= XORed) into byte 0
            evs = sorted([(k, q, "rotc") for k, q in rot["L"]] + [(k, q, "shrL") for k, q in left_shifts])
            merged = [("clr",)]
            done = 0
            for k, q, mode in evs:
                merged += [("step", self.shl1c, k - done), ("xor", q, mode)]
                done = k
            rot["L"] = []
            shifts = [(s, q) for s, q in shifts if s <= 4]
        for d in ("R", "L"):
            terms_d = sorted(rot[d])
            if not terms_d:
                continue
            ev: list[tuple] = []
            if len(terms_d) == 2 and terms_d[0][1] == terms_d[1][1]:
                (s1, q), (s2, _) = terms_d
                ev = [("step", stepfn[d], s2 - s1), ("xsrc",), ("step", stepfn[d], s1), ("xor", q, "rot")]
            else:
                done = 0
                for s, q in terms_d:
                    ev += [("step", stepfn[d], s - done), ("xor", q, "rot")]
                    done = s
            chains.append(ev)
        # single-event chains first (they hand their copy to the accumulator)
        chains.sort(key=len)
        for s, q in shifts:
            if s <= 4:
                right = [c for c in chains if c[0][1] == self.rotr1 and not any(e[0] == "xsrc" for e in c)]
                top = sum(e[2] for e in right[0] if e[0] == "step") if right else None
                if right and top <= s and len(chains) >= 2:
                    right[0].extend([("step", self.shr1, s - top), ("xor", q, f"shrRm{s}")])
                    chains.remove(right[0])         # last: it may run in place, and another chain
                    chains.append(right[0])         # creates the accumulator
                    continue
                chains.append([("step", self.shr1, s), ("xor", q, "shrR")])
            else:
                chains.append([("clr",), ("step", self.shl1c, 8 - s), ("xor", q + 1, "shrL")])
        if merged is not None:
            chains.append(merged)
        acc: list[int] | None = None

        def xor_into(y: list[int], q: int, mode: str) -> None:
            # rotation by 8q: result byte i = y[(i + q) % n]; shifts: no wrap (r0 is the byte above)
            for i in range(n):
                k = i + q
                if mode == "rot":
                    self.e(f"eor r{acc[i]}, r{y[k % n]}")
                elif mode == "rotc":              # y plus the caught bits r0 in byte 0
                    self.e(f"eor r{acc[i]}, r{y[k % n]}")
                    if k % n == 0:
                        self.e(f"eor r{acc[i]}, r0")
                elif mode == "shrR":
                    if k < n:
                        self.e(f"eor r{acc[i]}, r{y[k]}")
                elif mode.startswith("shrRm"):     # top byte: clear the s bits that wrapped round
                    if k < n - 1:
                        self.e(f"eor r{acc[i]}, r{y[k]}")
                    elif k == n - 1:
                        top = y[k]
                        if top < 16:
                            top = self.alloc_upper()
                            self.e(f"mov r{top}, r{y[k]}")
                        self.e(f"andi r{top}, {0xFF >> int(mode[5:]):#04x}")
                        self.e(f"eor r{acc[i]}, r{top}")
                        if top != y[k]:
                            self.release([top])
                else:  # shrL: y has n+1 bytes, the top one r0
                    if k < n:
                        self.e(f"eor r{acc[i]}, r{y[k]}")
                    elif k == n:
                        self.e(f"eor r{acc[i]}, r0")

        for ci, ev in enumerate(chains):
            in_place = ci == len(chains) - 1 and not preserve
            if in_place:
                y = src
                if acc is not None:
                    for q in zero_terms:        # the unrotated terms before src changes
                        xor_into(src, q, "rot")
                    zero_terms = []
            else:
                y = self.alloc()
                self.copy(y, src)
            for ei, e in enumerate(ev):
                if e[0] == "clr":
                    self.e("clr r0")
                elif e[0] == "step":
                    for _ in range(e[2]):
                        e[1](y)
                elif e[0] == "xsrc":
                    assert not in_place
                    for i in range(n):
                        self.e(f"eor r{y[i]}, r{src[i]}")
                else:
                    _, q, mode = e
                    if acc is None:
                        assert mode == "rot"
                        if ei == len(ev) - 1 and not in_place:
                            acc = [y[(i + q) % n] for i in range(n)]      # renaming: no instruction
                            y = None
                        else:
                            acc = self.alloc()
                            for i in range(n):
                                self.e(f"mov r{acc[i]}, r{y[(i + q) % n]}")
                        for q0 in zero_terms:
                            assert not in_place
                            xor_into(src, q0, "rot")
                        zero_terms = []
                    else:
                        xor_into(y, q, mode)
            if y is not None and y is not src:
                self.release(y)
        assert acc is not None and not zero_terms
        if not preserve:
            self.release(src)
        return acc

    # -- pieces
    def add_bytes(self, acc: list[int], load, first: bool = True) -> None:
        """acc += the word whose byte i `load(i)` brings into a temporary (emitting the load)."""
        t = self.alloc(1)[0]
        for i in range(self.n):
            load(i, t)
            self.e(f"{'add' if i == 0 and first else 'adc'} r{acc[i]}, r{t}")
        self.release([t])


def generate(p: Params, compact: bool = False) -> str:
    """compact: one round in a loop (the ring slides down one word a round, new a stored by ST -Y, and
    the 8 live words are copied back up every 8 rounds) instead of 8 unrolled rounds; nothing kept in
    registers between rounds."""
    g = Gen(p)
    n, R = p.n, p.rounds
    keep = p.keep and not compact
    fn = f"MCU_FN({p.name}, blocks)"
    tag = p.name + ("_small" if compact else "")
    ktab = f"{tag}_avr_k"
    vars_ = 8 * n                # the ring a..h: Y+0 .. Y+8n-1
    W0 = vars_                   # W[0] at Y+8n
    MISC = 10                    # saved pointers, below the ring
    below = MISC + (8 * n if compact else 0)    # bytes of the frame below Y (compact: the ring's slide room)
    frame = below + vars_ + (32 if compact else R) * n     # avr-small: a rolling 32-word W
    # misc bytes at Y-below+k
    M_STATE, M_IN, M_NBLK, M_RAMPZ, M_K = 0, 2, 4, 6, 8

    def misc_ptr() -> None:     # Z = the saved pointers
        g.e("movw r30, r28")
        addi(30, -below)

    def addi(pair_lo: int, value: int) -> None:   # 16-bit add of a constant to r{pair_lo}:r{pair_lo+1}
        if 0 <= value <= 63 and pair_lo in (24, 26, 28, 30):
            g.e(f"adiw r{pair_lo}, {value}")
        elif -63 <= value < 0 and pair_lo in (24, 26, 28, 30):
            g.e(f"sbiw r{pair_lo}, {-value}")
        else:
            g.e(f"subi r{pair_lo}, lo8({-value})")
            g.e(f"sbci r{pair_lo + 1}, hi8({-value})")

    saved = list(range(2, 18)) + [28, 29]
    g.e("cp r20, r1")                                  # nblocks == 0: nothing to do
    g.e("cpc r21, r1")
    g.e("brne 1f")
    g.e("ret")
    g.label("1")
    for r in saved:
        g.e(f"push r{r}")
    g.c(f"frame of {frame} bytes: Y-{below}.. saved pointers, Y+0.. the ring a..h, then W[0..{R - 1}]")
    g.e(f"in r28, {SPL:#x}")
    g.e(f"in r29, {SPH:#x}")
    g.e(f"subi r28, lo8({frame})")
    g.e(f"sbci r29, hi8({frame})")
    g.e(f"in r0, {SREG:#x}")
    g.e("cli")
    g.e(f"out {SPH:#x}, r29")
    g.e(f"out {SREG:#x}, r0")
    g.e(f"out {SPL:#x}, r28")
    addi(28, below + 1)
    misc_ptr()
    g.e(f"std Z+{M_STATE}, r24")
    g.e(f"std Z+{M_STATE + 1}, r25")
    g.e(f"std Z+{M_IN}, r22")
    g.e(f"std Z+{M_IN + 1}, r23")
    g.e(f"std Z+{M_NBLK}, r20")
    g.e(f"std Z+{M_NBLK + 1}, r21")
    g.e(f"in r0, {RAMPZ:#x}")
    g.e(f"std Z+{M_RAMPZ}, r0")
    g.c("the ring a..h = the state (later blocks: the feed-forward writes it)")
    g.e("movw r26, r24")
    for i in range(vars_):
        g.e("ld r0, X+")
        g.e(f"std Y+{i}, r0")
    g.e("movw r26, r22")                               # X = in

    # ---------------------------------------------------------------- per block
    g.label(f".L{tag}_block")
    g.c("W[0..15]: the block's big-endian words, stored little-endian; X = in")
    g.e("movw r30, r28")
    addi(30, W0)
    g.e("ldi r18, 16")
    g.label(f".L{tag}_load_w")
    for i in range(n):
        g.e(f"ld r0, X+")
        g.e(f"std Z+{n - 1 - i}, r0")
    g.e(f"adiw r30, {n}")
    g.e("dec r18")
    g.e(f"brne .L{tag}_load_w")
    g.e("movw r24, r26")
    misc_ptr()
    g.e(f"std Z+{M_IN}, r24")
    g.e(f"std Z+{M_IN + 1}, r25")

    # ---------------------------------------------------------------- schedule
    def schedule(rolling: bool) -> None:
        """avr-fast: W[16..R-1] expanded after W[0..15] (R*N bytes of W). rolling (avr-small): every 16
        rounds the next 16 words replace W[0..15] in place; each new word is also stored 16 words up, where
        the later words of the same pass read it (W[t-2], W[t-7] of a word computed in this pass), so the
        buffer is 32 words and nothing wraps."""
        first, count = (0, 16) if rolling else (16, R - 16)
        z_start = 9 if rolling else first - 7         # Z = &W[z_start] (a word index in the buffer)
        g.c(f"W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]: X walks W[t-16], W[t-15]; Z = &W[t-7]")
        g.c(f"(W[t-2] at Z+{5 * n}, W[t] at Z+{7 * n})" + ("; the new word also replaces W[t-16] (ST X+)" if rolling else ""))
        g.e("movw r26, r28")
        addi(26, W0)
        g.e("movw r30, r28")
        addi(30, W0 + z_start * n)
        # the counter: r25 where the words leave a register free (N = 4); else r1, which no chain of
        # SHA-512's schedules needs as the zero (checked below) and which the count leaves at 0
        if n == 4:
            g.free.discard(25)
            g.e(f"ldi r25, {count}")
        else:
            g.e(f"ldi r18, {count}")
            g.e("mov r1, r18")
        # SHA-256's expanded schedule keeps W[t-15] in registers as the next word's W[t-16] (X then
        # walks W[t-15] alone); SHA-512 has no registers for it, the rolling pass no use (it rewrites
        # W[t-16] through X)
        prev = None
        if n == 4 and not rolling:
            prev = g.alloc()
            for i in range(n):
                g.e(f"ld r{prev[i]}, X+")
        label = f".L{tag}_sched" + ("_roll" if rolling else "")
        g.label(label)
        body_start = len(g.lines)
        x = g.alloc()
        for i in range(n):
            g.e(f"ldd r{x[i]}, Z+{5 * n + i}")
        s = g.sigma(x, p.small1, preserve=False, name="sigma1(W[t-2])")
        g.c("+ W[t-7] + W[t-16]")
        g.add_bytes(s, lambda i, t: g.e(f"ldd r{t}, Z+{i}"))
        if prev is not None:
            for i in range(n):
                g.e(f"{'add' if i == 0 else 'adc'} r{s[i]}, r{prev[i]}")
        else:
            g.add_bytes(s, lambda i, t: g.e(f"ld r{t}, X+"))
        x = g.alloc()
        for i in range(n):
            g.e(f"ld r{x[i]}, X+")
        s0 = g.sigma(x, p.small0, preserve=prev is not None, name="sigma0(W[t-15])")
        for i in range(n):
            g.e(f"{'add' if i == 0 else 'adc'} r{s[i]}, r{s0[i]}")
        for i in range(n):
            g.e(f"std Z+{7 * n + i}, r{s[i]}")
        if rolling:
            g.e(f"sbiw r26, {2 * n}")
            for i in range(n):
                g.e(f"st X+, r{s[i]}")
        elif prev is not None:
            g.copy(prev, x)             # W[t-15] is the next word's W[t-16]
            g.release(x)
        else:
            g.e(f"sbiw r26, {n}")
        g.release(s)
        g.release(s0)
        g.e(f"adiw r30, {n}")
        if n == 4:
            g.free.add(25)
            g.e("dec r25")
        else:
            assert not any(re.search(r"\br1\b", ln) for ln in g.lines[body_start:]), "the schedule uses r1"
            g.e("dec r1")                   # 0 again at the end: r1 is the zero register once more
        if prev is not None:
            g.release(prev)
        assert g.free == set(Gen.POOL)
        g.e("breq 1f")
        g.e(f"rjmp {label}")
        g.label("1")

    def schedule_kept() -> None:
        """avr-fast SHA-256: the loop of schedule(rolling=False) with the last two words W[t-1], W[t-2]
        and W[t-15] (the next word's W[t-16]) kept in registers, two words an iteration so that their
        roles rotate by renaming; X walks W[t-15] alone."""
        count = R - 16
        assert count % 2 == 0
        g.c("W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], two words an iteration: W[t-2], W[t-1] and")
        g.c(f"W[t-16] in registers, X walks W[t-15], Z = &W[t-7] (W[t] at Z+{7 * n}, W[t+1] at Z+{8 * n})")
        g.e("movw r26, r28")
        addi(26, W0)
        g.e("movw r30, r28")
        addi(30, W0 + 9 * n)
        g.free.discard(25)
        g.e(f"ldi r25, {count // 2}")
        prev, w1, w2 = g.alloc(), g.alloc(), g.alloc()
        for i in range(n):
            g.e(f"ld r{prev[i]}, X+")                  # W[0]
        for i in range(n):
            g.e(f"ldd r{w2[i]}, Z+{5 * n + i}")        # W[14]
            g.e(f"ldd r{w1[i]}, Z+{6 * n + i}")        # W[15]
        canon = prev + w1 + w2
        g.label(f".L{tag}_sched")
        for k in range(2):
            s1 = g.sigma(w2, p.small1, preserve=False, name=f"sigma1(W[t{'+1' if k else ''}-2])")
            g.c(f"+ W[t{'+1' if k else ''}-7] + W[t{'+1' if k else ''}-16]")
            g.add_bytes(s1, lambda i, t, k=k: g.e(f"ldd r{t}, Z+{k * n + i}"))
            for i in range(n):
                g.e(f"{'add' if i == 0 else 'adc'} r{s1[i]}, r{prev[i]}")
            g.release(prev)
            x = g.alloc()
            for i in range(n):
                g.e(f"ld r{x[i]}, X+")
            s0 = g.sigma(x, p.small0, preserve=True, name=f"sigma0(W[t{'+1' if k else ''}-15])")
            for i in range(n):
                g.e(f"{'add' if i == 0 else 'adc'} r{s1[i]}, r{s0[i]}")
            g.release(s0)
            for i in range(n):
                g.e(f"std Z+{(7 + k) * n + i}, r{s1[i]}")
            prev, w2, w1 = x, w1, s1
        g.c("registers back to the loop's assignment")
        g.permute(canon, prev + w1 + w2)
        g.e(f"adiw r30, {2 * n}")
        g.e("dec r25")
        g.e("breq 1f")
        g.e(f"rjmp .L{tag}_sched")
        g.label("1")
        g.release(prev + w1 + w2)
        g.free.add(25)
        assert g.free == set(Gen.POOL)

    if not compact:
        if n == 4:
            schedule_kept()
        else:
            schedule(rolling=False)

    # ---------------------------------------------------------------- rounds
    g.c("X = &W[0]; RAMPZ:Z = K")
    g.e("movw r26, r28")
    addi(26, W0)
    g.e(f"ldi r30, hh8({ktab})")
    g.e(f"out {RAMPZ:#x}, r30")
    g.e(f"ldi r30, lo8({ktab})")
    g.e(f"ldi r31, hi8({ktab})")

    def slot(v: int, j: int) -> int:
        return ((v - j) % 8) * n

    E = A = M = F = None
    if keep:
        E, F, A, M = g.alloc(), g.alloc(), g.alloc(), g.alloc()
        for i in range(n):
            g.e(f"ldd r{E[i]}, Y+{slot(4, 0) + i}")
            g.e(f"ldd r{F[i]}, Y+{slot(5, 0) + i}")
            g.e(f"ldd r{A[i]}, Y+{slot(0, 0) + i}")
        for i in range(n):          # the first round's b ^ c
            g.e(f"ldd r{M[i]}, Y+{slot(1, 0) + i}")
            g.e(f"ldd r0, Y+{slot(2, 0) + i}")
            g.e(f"eor r{M[i]}, r0")
        canon = (list(E), list(F), list(A), list(M))
    g.label(f".L{tag}_rounds")
    for j in range(1 if compact else 8):
        g.c(f"round 8i+{j}: a at Y+{slot(0, j)}, e at Y+{slot(4, j)}, h at Y+{slot(7, j)}")
        if keep:
            # e, f, a and M = b ^ c in registers. T2 first: Sigma0(a) + Maj(a, b, c), with
            # Maj = b ^ ((a ^ b) & (b ^ c)) and this round's a ^ b the next round's M
            U = g.sigma(A, p.big0, preserve=True, name="T2 = Sigma0(a)")
            g.c("+ Maj(a, b, c) = b ^ ((a ^ b) & M), M = b ^ c held; this a ^ b is the next M")
            X2 = g.alloc()
            for i in range(n):
                g.e(f"ldd r0, Y+{slot(1, j) + i}")
                g.e(f"mov r{X2[i]}, r{A[i]}")
                g.e(f"eor r{X2[i]}, r0")
                g.e(f"and r{M[i]}, r{X2[i]}")
                g.e(f"eor r{M[i]}, r0")
                g.e(f"{'add' if i == 0 else 'adc'} r{U[i]}, r{M[i]}")
            g.release(M)
            g.release(A)
            M = X2
            # T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t]; Ch = g ^ (e & (f ^ g)) in f's registers
            # (this round's e is the next round's f)
            S = g.sigma(E, p.big1, preserve=True, name="T1 = Sigma1(e)")
            g.c("+ Ch(e, f, g) = g ^ (e & (f ^ g)), in f's registers (the next f is this e)")
            for i in range(n):
                g.e(f"ldd r0, Y+{slot(6, j) + i}")
                g.e(f"eor r{F[i]}, r0")
                g.e(f"and r{F[i]}, r{E[i]}")
                g.e(f"eor r{F[i]}, r0")
                g.e(f"{'add' if i == 0 else 'adc'} r{S[i]}, r{F[i]}")
            g.release(F)
            g.c("+ h, + W[t] (LD X+), + K[t] (ELPM Z+)")
            g.add_bytes(S, lambda i, t: g.e(f"ldd r{t}, Y+{slot(7, j) + i}"))
            g.add_bytes(S, lambda i, t: g.e(f"ld r{t}, X+"))
            g.add_bytes(S, lambda i, t: g.e(f"elpm r{t}, Z+"))
            g.c("e' = d + T1, stored in d's place (and kept: the next round's e)")
            NE = g.alloc()
            for i in range(n):
                g.e(f"ldd r{NE[i]}, Y+{slot(3, j) + i}")
                g.e(f"{'add' if i == 0 else 'adc'} r{NE[i]}, r{S[i]}")
                g.e(f"std Y+{slot(3, j) + i}, r{NE[i]}")
            g.c("a' = T1 + T2, stored in h's place (and kept: the next round's a)")
            for i in range(n):
                g.e(f"{'add' if i == 0 else 'adc'} r{U[i]}, r{S[i]}")
                g.e(f"std Y+{slot(7, j) + i}, r{U[i]}")
            g.release(S)
            F, E, A = E, NE, U
            continue
        # nothing kept (SHA-512; avr-small): T1 first with e loaded, then T2 with a loaded and consumed
        E = g.alloc()
        for i in range(n):
            g.e(f"ldd r{E[i]}, Y+{slot(4, j) + i}")
        S = g.sigma(E, p.big1, preserve=True, name="T1 = Sigma1(e)")
        t = g.alloc(1)[0]
        g.c("+ Ch(e, f, g) = g ^ (e & (f ^ g)), f and g loaded")
        for i in range(n):
            g.e(f"ldd r{t}, Y+{slot(5, j) + i}")
            g.e(f"ldd r0, Y+{slot(6, j) + i}")
            g.e(f"eor r{t}, r0")
            g.e(f"and r{t}, r{E[i]}")
            g.e(f"eor r{t}, r0")
            g.e(f"{'add' if i == 0 else 'adc'} r{S[i]}, r{t}")
        g.release([t])
        g.c("+ h, + W[t] (LD X+), + K[t] (ELPM Z+)")
        g.add_bytes(S, lambda i, t: g.e(f"ldd r{t}, Y+{slot(7, j) + i}"))
        g.add_bytes(S, lambda i, t: g.e(f"ld r{t}, X+"))
        g.add_bytes(S, lambda i, t: g.e(f"elpm r{t}, Z+"))
        g.release(E)
        g.c("e' = d + T1, stored in d's place")
        NE = g.alloc()
        for i in range(n):
            g.e(f"ldd r{NE[i]}, Y+{slot(3, j) + i}")
            g.e(f"{'add' if i == 0 else 'adc'} r{NE[i]}, r{S[i]}")
            g.e(f"std Y+{slot(3, j) + i}, r{NE[i]}")
        g.release(NE)
        A = g.alloc()
        for i in range(n):
            g.e(f"ldd r{A[i]}, Y+{slot(0, j) + i}")
        U = g.sigma(A, p.big0, preserve=False, name="T2 = Sigma0(a)")
        g.c("+ Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), a, b, c loaded")
        t1, t2 = g.alloc(2)
        for i in range(n):
            g.e(f"ldd r{t1}, Y+{slot(0, j) + i}")
            g.e(f"ldd r0, Y+{slot(1, j) + i}")
            g.e(f"ldd r{t2}, Y+{slot(2, j) + i}")
            g.e(f"eor r{t1}, r0")
            g.e(f"eor r{t2}, r0")
            g.e(f"and r{t1}, r{t2}")
            g.e(f"eor r{t1}, r0")
            g.e(f"{'add' if i == 0 else 'adc'} r{U[i]}, r{t1}")
        g.release([t1, t2])
        g.c("a' = T1 + T2, stored in h's place" + (": one word below a (ST -Y), the ring slides down" if compact else ""))
        for i in range(n):
            g.e(f"{'add' if i == 0 else 'adc'} r{U[i]}, r{S[i]}")
            if not compact:
                g.e(f"std Y+{slot(7, j) + i}, r{U[i]}")
        if compact:
            for i in reversed(range(n)):
                g.e(f"st -Y, r{U[i]}")
        g.release(S)
        g.release(U)
    if keep:
        g.c("registers back to the loop's assignment")
        g.permute(canon[0] + canon[1] + canon[2] + canon[3], E + F + A + M)
        E, F, A, M = canon
    hi = min(r for r in g.free if r >= 16)
    if compact:
        g.c("every 8 rounds (K's address a multiple of 8 words: the table is aligned) the ring's 8 words go")
        g.c("back up by 8 words: LD Y+ / STD Y+8n-1 moves Y back to the ring's start as it copies")
        g.e(f"mov r{hi}, r30")
        g.e(f"andi r{hi}, {8 * n - 1}")
        g.e("breq 2f")
        g.e(f"rjmp .L{tag}_rounds")
        g.label("2")
        g.e(f"ldi r{hi}, {n}")
        g.label("3")
        for _ in range(8):
            g.e("ld r0, Y+")
            g.e(f"std Y+{8 * n - 1}, r0")
        g.e(f"dec r{hi}")
        g.e("brne 3b")
    g.e(f"cpi r30, lo8({ktab} + {R * n})")
    g.e(f"ldi r{hi}, hi8({ktab} + {R * n})")
    g.e(f"cpc r31, r{hi}")
    if compact:
        g.e("brne 4f")
        g.e(f"rjmp .L{tag}_done")
        g.label("4")
        g.c("every 16 rounds (K aligned to 16 words: bit 3 of K's word offset clear) the next 16 words of W")
        g.e(f"sbrc r30, {(8 * n).bit_length() - 1}")
        g.e(f"rjmp .L{tag}_rounds")
        g.e("movw r26, r28")                            # save K's pointer (RAMPZ stays)
        addi(26, M_K - below)
        g.e("st X+, r30")
        g.e("st X, r31")
        schedule(rolling=True)
        g.e("movw r26, r28")
        addi(26, M_K - below)
        g.e("ld r30, X+")
        g.e("ld r31, X")
        g.e("movw r26, r28")                            # X = W[0]
        addi(26, W0)
        g.e(f"rjmp .L{tag}_rounds")
        g.label(f".L{tag}_done")
    else:
        g.e("breq 1f")
        g.e(f"jmp .L{tag}_rounds")
        g.label("1")

    # ---------------------------------------------------------------- feed-forward
    g.c("state += a..h, also into the ring for the next block; next block")
    misc_ptr()
    g.e(f"ldd r26, Z+{M_STATE}")
    g.e(f"ldd r27, Z+{M_STATE + 1}")
    for w in range(8):
        for i in range(n):
            g.e("ld r0, X")
            g.e(f"ldd r18, Y+{w * n + i}")
            g.e(f"{'add' if i == 0 else 'adc'} r0, r18")
            g.e("st X+, r0")
            g.e(f"std Y+{w * n + i}, r0")
    misc_ptr()
    g.e(f"ldd r24, Z+{M_NBLK}")
    g.e(f"ldd r25, Z+{M_NBLK + 1}")
    g.e("sbiw r24, 1")
    g.e(f"std Z+{M_NBLK}, r24")
    g.e(f"std Z+{M_NBLK + 1}, r25")
    g.e(f"ldd r26, Z+{M_IN}")
    g.e(f"ldd r27, Z+{M_IN + 1}")
    g.e("breq 1f")
    g.e(f"jmp .L{tag}_block")
    g.label("1")

    # ---------------------------------------------------------------- epilogue
    g.e(f"ldd r0, Z+{M_RAMPZ}")
    g.e(f"out {RAMPZ:#x}, r0")
    addi(28, frame - below - 1)                        # SP = Y - below - 1 + frame
    g.e(f"in r0, {SREG:#x}")
    g.e("cli")
    g.e(f"out {SPH:#x}, r29")
    g.e(f"out {SREG:#x}, r0")
    g.e(f"out {SPL:#x}, r28")
    for r in reversed(saved):
        g.e(f"pop r{r}")
    g.e("clr r1")
    g.e("ret")

    body = "\n".join(g.lines)
    align = f"\n    .p2align {(16 * n).bit_length() - 1}" if compact else ""
    kbytes = []
    for t, k in enumerate(p.k):
        kbytes.append("    .byte " + ", ".join(f"0x{(k >> (8 * i)) & 0xFF:02x}" for i in range(n))
                      + f"   ; K[{t}]")
    return header(p, frame, below, compact) + f"""#include "mcucrypt/ns.h"

    .section .text.{tag}_avr, "ax", @progbits
    .global {fn}
    .type {fn}, @function
{fn}:
{body}
    .size {fn}, . - {fn}

    .section .progmem.data.{ktab}, "a", @progbits{align}
    .type {ktab}, @object
{ktab}:   ; K[0..{R - 1}], little-endian bytes (FIPS 180-4 4.2.{2 if n == 4 else 3})
""" + "\n".join(kbytes) + f"\n    .size {ktab}, . - {ktab}\n"


def header(p: Params, frame: int, below: int, compact: bool) -> str:
    n = p.n
    word = "uint32_t" if n == 4 else "uint64_t"
    impl = "avr-small" if compact else "avr-fast"
    keep = ("e, f, a and a^b stay in registers across rounds (four 4-register groups); the rest is scratch"
            if p.keep and not compact else
            "nothing stays in registers across rounds: e and a are reloaded each round")
    if compact:
        rounds = (f"one round in a loop: a..h at Y+0..Y+{8 * n - 1}, the new a stored below a by ST -Y (the ring slides\n"
                  f" *             down a word a round into the {8 * n} bytes below it); every 8 rounds LD Y+ / STD Y+{8 * n - 1}\n"
                  f" *             copies the 8 live words back up")
        tech = ("one round in a loop over a sliding ring, K aligned so that ZL marks every 8th round,\n"
                " * a rolling 32-word schedule expanded every 16 rounds")
    else:
        rounds = (f"Y+0..Y+{8 * n - 1} the ring a..h (round 8i+j: variable v in slot (v - j) mod 8)")
        tech = "8 unrolled rounds over a ring of displacements,\n * the schedule expanded before the rounds"
    return f"""// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_avr.py - do not edit. {p.name.upper()} block function (FIPS 180-4) for the 8-bit
 * AVR (ATmega128; ATmega2560-safe: ELPM with RAMPZ, no assumption on the return address size), {impl}.
 *
 * C prototype:
 *   void MCU_FN({p.name}, blocks)({word} state[8], const uint8_t *in, size_t nblocks);
 *   state: H0..H7, native (little-endian) {8 * n}-bit words; in: nblocks * {16 * n} bytes of big-endian words,
 *   any alignment; nblocks may be 0.
 *
 * Register map
 *   r2..r25   words as {n}-register groups, allocated by the generator ({keep})
 *   r0        scratch (Ch/Maj operand, the carry byte of a left shift)     r1  zero
 *   Y         the frame: Y-{below}..Y-{below - 9} saved state/in pointers, block count, RAMPZ, K's pointer;
 *             {rounds};
 *             Y+{8 * n}.. W[0..{31 if compact else p.rounds - 1}]
 *   X         the input (loading W), then W[t-16], W[t-15] (schedule, LD X+), then W[t] (rounds, LD X+)
 *   Z         W[t-7] (schedule), then K[t] in flash (ELPM Z+ with RAMPZ = hh8(K))
 * Stack: {frame} bytes of frame + 18 saved registers + the return address.
 * Techniques: see gen_sha2_avr.py (byte-renamed rotations with shared one-bit chains, Ch/Maj folded into the
 * carry chains, {tech}).
 * Constant time: branches only on the block count and the public loop counters; every address is a
 * function of the pointers and the round number.
 */
"""


def main(argv: list[str]) -> int:
    check = "--check" in argv
    return write_or_check({HERE / "sha256_avr.S": generate(SHA256), HERE / "sha512_avr.S": generate(SHA512),
                           HERE / "sha256_avr_small.S": generate(SHA256, compact=True),
                           HERE / "sha512_avr_small.S": generate(SHA512, compact=True)}, check, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
