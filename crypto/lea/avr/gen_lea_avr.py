# SPDX-License-Identifier: MIT
"""Generate lea_avr.S: LEA-128/192/256 (KS X 3246) key schedules, encryption and decryption for the 8-bit AVR
(ATmega128), avr-fast.

    python3 gen_lea_avr.py            (writes lea_avr.S beside this file; --check compares)

The techniques (docs/lea-pipo.md, "LEA on the ATmega128"):
- the four state words live in 16 registers for the whole block and all rounds are unrolled; the generator
  tracks which register holds which byte of which word, so X3' = X0 and the byte part of every rotation
  (ROL9 = ROL8 + ROL1, ROR5 = ROL24 + ROL3, ROR3 = ROL24 + ROL5) are renamings, never moves;
- each new word is computed last-first (X2', then X1', then X0') into the register set of a word no
  longer needed, and round keys are loaded into free registers and the state XORed into them (no copy
  of a state word is ever made);
- the bit part of ROR5/ROR3 (and of decryption's ROL5/ROL3) is a MUL by 8 or 32 per byte: the product's
  low byte stays in its byte, the high byte moves to the next; two MOVW and four EOR assemble the word
  into the registers the round has just freed: 14 cycles, against 15 or 18 for LSL/ROL or LSR/ROR chains;
  ROL1 is LSL/ROL/ROL/ROL/ADC zero (5), ROR1 BST/LSR/ROR/ROR/ROR/BLD (6);
- LEA-128 reads its compact round keys (LEA_RK_COMPACT=1: T1, T3, T2, T0 a round, the order encryption
  uses them, so it reads them with LD Z+): T1 (round keys 1, 3, 5) is loaded once a round into four
  registers and XORed three times; LEA-192/256 load their six words. Otherwise keys come by LDD Z+q,
  Z moved once every few rounds;
- the key schedules are unrolled: the constants ROL(delta[i mod n], i + j) are public and become LDI
  immediates, the key words stay in registers (LEA-256: six of the eight, the other two reloaded by LDD
  from where they were last stored), and each new round-key word is stored at once (ST X+).
Lower bound of this plan, LEA-128, per round: 16 LDD (32) + 24 EOR + 12 ADD/ADC + ROL9 (5) + two
MUL rotations (28) = 101 cycles; 24 rounds = 2,424 before the 16-byte load and store and the saved
registers. No table, no secret-dependent branch or address: constant time on any AVR (MUL takes 2
cycles for every operand).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent

ROUNDS = {"lea128": 24, "lea192": 28, "lea256": 32}

ZERO, C8, C32 = 26, 27, 28                     # zero (ROL1's carry), the MUL constants 8 and 32
SAVED = list(range(2, 18)) + [28]              # callee-saved registers used (avr-gcc ABI)


class Gen:
    def __init__(self, prim: str) -> None:
        self.prim = prim
        self.lines: list[str] = []
        self.w = [[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 12, 13], [14, 15, 16, 17]]   # X0..X3, byte 0 first
        self.free = [18, 19, 20, 21]           # a word's worth of free registers (two aligned pairs)
        self.t = [22, 23, 24, 25]              # T: the key word used more than once (LEA-128: T1)
        self.t_holds: int | None = None        # the rk offset T holds
        self.base = 0                          # Z = rk + base
        self.seq: int | None = None            # LD Z+ mode: Z = rk + seq

    def emit(self, s: str) -> None:
        self.lines.append("    " + s)

    def comment(self, s: str) -> None:
        self.lines.append("    /* " + s + " */")

    # ------------------------------------------------------------------ round keys
    def rbytes(self) -> int:
        return 16 if self.prim == "lea128" else 24

    def rk_off(self, i: int, j: int) -> int:
        """Byte offset of round key j (0..5) of round i."""
        if self.prim == "lea128":                 # compact layout: T1, T3, T2, T0 (encryption's order)
            return 16 * i + 4 * (3, 0, 2, 0, 1, 0)[j]
        return 24 * i + 4 * j

    def load(self, regs: list[int], off: int, i: int, forward: bool) -> None:
        if self.seq is not None:                 # LEA-128 encryption reads its keys in memory order: LD Z+
            assert off == self.seq
            for b in range(4):
                self.emit(f"ld r{regs[b]}, Z+")
            self.seq += 4
            return
        if not (self.base <= off and off + 3 <= self.base + 63):
            start = self.rbytes() * i
            new = start if forward else max(0, start + self.rbytes() - 64)
            d = new - self.base
            self.emit(f"subi r30, lo8({-d})")
            self.emit(f"sbci r31, hi8({-d})")
            self.base = new
        for b in range(4):
            self.emit(f"ldd r{regs[b]}, Z+{off - self.base + b}")

    def key_t(self, i: int, j: int, forward: bool) -> list[int]:
        off = self.rk_off(i, j)
        if self.t_holds != off:
            self.load(self.t, off, i, forward)
            self.t_holds = off
        return self.t

    # ------------------------------------------------------------------ word operations
    def xor(self, d: list[int], s: list[int]) -> None:
        for b in range(4):
            self.emit(f"eor r{d[b]}, r{s[b]}")

    def add(self, d: list[int], s: list[int]) -> None:
        for b in range(4):
            self.emit(f"{'add' if b == 0 else 'adc'} r{d[b]}, r{s[b]}")

    def sub(self, d: list[int], s: list[int]) -> None:
        for b in range(4):
            self.emit(f"{'sub' if b == 0 else 'sbc'} r{d[b]}, r{s[b]}")

    def rol1(self, w: list[int]) -> None:
        self.emit(f"lsl r{w[0]}")
        for b in (1, 2, 3):
            self.emit(f"rol r{w[b]}")
        self.emit(f"adc r{w[0]}, r{ZERO}")

    def ror1(self, w: list[int]) -> None:
        self.emit(f"bst r{w[0]}, 0")
        self.emit(f"lsr r{w[3]}")
        for b in (2, 1, 0):
            self.emit(f"ror r{w[b]}")
        self.emit(f"bld r{w[3]}, 7")

    def mulrot(self, s: list[int], m: int) -> list[int]:
        """ROL m (3 or 5) of word s into the free registers, by MUL 2^m per byte; s becomes free."""
        out = self.free
        pairs = sorted(out)
        a, b = pairs[0], pairs[2]
        assert pairs == [a, a + 1, b, b + 1] and a % 2 == 0 and b % 2 == 0
        c = C8 if m == 3 else C32
        o = [a, a + 1, b, b + 1]
        self.emit(f"mul r{s[0]}, r{c}")
        self.emit(f"movw r{o[0]}, r0")           # bytes 0, 1
        self.emit(f"mul r{s[2]}, r{c}")
        self.emit(f"movw r{o[2]}, r0")           # bytes 2, 3
        self.emit(f"mul r{s[1]}, r{c}")
        self.emit(f"eor r{o[1]}, r0")
        self.emit(f"eor r{o[2]}, r1")
        self.emit(f"mul r{s[3]}, r{c}")
        self.emit(f"eor r{o[3]}, r0")
        self.emit(f"eor r{o[0]}, r1")            # the wrap-around
        self.free = list(s)
        return o

    # ------------------------------------------------------------------ rounds
    def enc_round(self, i: int) -> None:
        x0, x1, x2, x3 = self.w
        self.comment(f"round {i}")
        # X2' = ROR3((X2 ^ RK4) + (X3 ^ RK5)) into X3's registers
        self.xor(x3, self.key_t(i, 5, True))
        k = self.free
        self.load(k, self.rk_off(i, 4), i, True)
        self.xor(k, x2)
        self.add(x3, k)
        n2 = self.mulrot(x3, 5)                  # ROL5, then ROL24 by renaming = ROR3
        n2 = [n2[1], n2[2], n2[3], n2[0]]
        # X1' = ROR5((X1 ^ RK2) + (X2 ^ RK3))
        self.xor(x2, self.key_t(i, 3, True))
        k = self.free
        self.load(k, self.rk_off(i, 2), i, True)
        self.xor(k, x1)
        self.add(x2, k)
        n1 = self.mulrot(x2, 3)                  # ROL3 + ROL24 = ROR5
        n1 = [n1[1], n1[2], n1[3], n1[0]]
        # X0' = ROL9((X0 ^ RK0) + (X1 ^ RK1))
        self.xor(x1, self.key_t(i, 1, True))
        k = self.free
        self.load(k, self.rk_off(i, 0), i, True)
        self.xor(k, x0)
        self.add(x1, k)
        n0 = [x1[3], x1[0], x1[1], x1[2]]        # ROL8 by renaming
        self.rol1(n0)
        self.w = [n0, n1, n2, x0]

    def dec_round(self, i: int) -> None:
        x0, x1, x2, x3 = self.w
        self.comment(f"round {i} undone")
        # P1 = (ROR9(X0) - (X3 ^ RK0)) ^ RK1
        p1 = [x0[1], x0[2], x0[3], x0[0]]        # ROR8 by renaming
        self.ror1(p1)
        k = self.free
        self.load(k, self.rk_off(i, 0), i, False)
        self.xor(k, x3)
        self.sub(p1, k)
        self.xor(p1, self.key_t(i, 1, False))
        # P2 = (ROL5(X1) - (P1 ^ RK2)) ^ RK3
        p2 = self.mulrot(x1, 5)
        k = self.free
        self.load(k, self.rk_off(i, 2), i, False)
        self.xor(k, p1)
        self.sub(p2, k)
        self.xor(p2, self.key_t(i, 3, False))
        # P3 = (ROL3(X2) - (P2 ^ RK4)) ^ RK5
        p3 = self.mulrot(x2, 3)
        k = self.free
        self.load(k, self.rk_off(i, 4), i, False)
        self.xor(k, p2)
        self.sub(p3, k)
        self.xor(p3, self.key_t(i, 5, False))
        self.w = [x3, p1, p2, p3]

    # ------------------------------------------------------------------ routines
    def routine(self, op: str) -> None:
        sym = f"MCU_FN({self.prim}, {op})"
        self.lines.append("")
        self.lines.append(f"/* void mcu_{self.prim}_avr_fast_{op}(uint8_t *out, const uint8_t *in, const uint32_t *rk) */")
        self.emit(f".section .text.{sym}, \"ax\", @progbits")
        self.emit(f".global {sym}")
        self.emit(f".type {sym}, @function")
        self.lines.append(f"{sym}:")
        for r in SAVED:
            self.emit(f"push r{r}")
        self.emit("push r24")                    # out, for the end
        self.emit("push r25")
        self.emit("movw r30, r20")               # Z = rk
        self.emit("movw r26, r22")               # X = in
        for w in self.w:
            for r in w:
                self.emit(f"ld r{r}, X+")
        self.emit(f"clr r{ZERO}")
        self.emit(f"ldi r{C8}, 8")
        self.emit(f"ldi r{C32}, 32")
        rounds = ROUNDS[self.prim]
        if op == "encrypt":
            if self.prim == "lea128":
                self.seq = 0
            for i in range(rounds):
                self.enc_round(i)
        else:
            for i in range(rounds - 1, -1, -1):
                self.dec_round(i)
        self.emit("pop r27")                     # X = out
        self.emit("pop r26")
        for w in self.w:
            for r in w:
                self.emit(f"st X+, r{r}")
        self.emit("clr r1")                      # MUL used r1: the ABI's zero register
        for r in reversed(SAVED):
            self.emit(f"pop r{r}")
        self.emit("ret")
        self.emit(f".size {sym}, . - {sym}")


# ---------------------------------------------------------------------- key schedule
DELTA = [0xc3efe9db, 0x44626b02, 0x79e27c8a, 0x78df30ec, 0x715ea49e, 0xc785da0a, 0xe04ef22a, 0xe5c40957]
KS_ROT = [1, 3, 6, 11, 13, 17]
KEY_WORDS = {"lea128": 4, "lea192": 6, "lea256": 8}
KS_POOL = [18, 19, 20, 21, 22, 23, 24, 25, 0] + list(range(2, 18))   # call-used first


def rol32(x: int, r: int) -> int:
    r %= 32
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF if r else x


def ks_routine(prim: str) -> list[str]:
    """void mcu_<id>_avr_fast_keyschedule(uint32_t *rk, const uint8_t *key): T_w = ROL(T_w + ROL(delta, i + j),
    s_j) with the constants ROL(delta[i mod n], i + j) as immediates (public), the key words in registers
    (LEA-256: six of its eight, the other two reloaded from where they were last stored), each new word
    stored at once with ST X+. Rotations: byte renaming and LSL/ROL.../ADC zero or BST/LSR/ROR.../BLD."""
    n = KEY_WORDS[prim]
    cached = min(n, 6)
    regs = KS_POOL[:4 * cached]
    saved = sorted(r for r in regs if 2 <= r <= 17) + ([28, 29] if n == 8 else [])
    sym = f"MCU_FN({prim}, keyschedule)"
    L: list[str] = []

    def e(x: str) -> None:
        L.append("    " + x)

    L += ["", f"/* void mcu_{prim}_avr_fast_keyschedule(uint32_t *rk, const uint8_t *key) */",
          f"    .section .text.{sym}, \"ax\", @progbits", f"    .global {sym}", f"    .type {sym}, @function",
          f"{sym}:"]
    for r in saved:
        e(f"push r{r}")
    e("movw r26, r24")                           # X = rk (ST X+)
    if n == 8:
        e("movw r28, r22")                       # Y = key: words 6 and 7 are first read in round 1
    e("movw r30, r22")                           # Z = key
    cache: dict[int, list[int]] = {}
    for w in range(cached):
        cache[w] = regs[4 * w:4 * w + 4]
        for b in range(4):
            e(f"ld r{cache[w][b]}, Z+")
    last_off = {w: None for w in range(n)}       # rk byte offset of each word's latest value
    lru = list(range(cached))
    cur = 0
    rounds = 16 + 2 * n
    for i in range(rounds):
        L.append(f"    /* round {i} */")
        nw = 4 if n == 4 else 6
        js = [1, 3, 2, 0] if n == 4 else list(range(6))    # LEA-128 stores T1, T3, T2, T0
        ws = [(6 * i + j) % 8 if n == 8 else j for j in js]
        if n == 8 and i >= 2:
            base = cur - 48
            e("movw r28, r26")                   # Y = X - 48: the last two rounds' words, by LDD Y+q
            e("sbiw r28, 48")
        for j, w in enumerate(ws):
            if w not in cache:
                victim = next(v for v in lru if v not in ws[j:])
                lru.remove(victim)
                rr = cache.pop(victim)
                if last_off[w] is None:
                    q = 4 * w                    # never updated: from the key (Y = key)
                    assert i < 2
                else:
                    q = last_off[w] - base
                    assert 0 <= q <= 60
                for b in range(4):
                    e(f"ldd r{rr[b]}, Y+{q + b}")
                cache[w] = rr
            if w in lru:
                lru.remove(w)
            lru.append(w)
            t = cache[w]
            c = rol32(DELTA[i % n], i + js[j])
            for b in range(4):
                e(f"ldi r{30 + (b & 1)}, {(c >> (8 * b)) & 0xFF}")
                if b & 1:
                    e(f"{'add' if b == 1 else 'adc'} r{t[b - 1]}, r30")
                    e(f"adc r{t[b]}, r31")
            s = KS_ROT[js[j]]
            k, m = divmod(s, 8)
            if m > 4:                            # ROL(8k + m) = ROL(8(k + 1)) then ROR(8 - m)
                k, m = k + 1, m - 8
            t = [t[(b - k) % 4] for b in range(4)]   # ROL 8k: byte b comes from byte b - k
            for _ in range(m):
                e(f"lsl r{t[0]}")
                for b in (1, 2, 3):
                    e(f"rol r{t[b]}")
                e(f"adc r{t[0]}, r1")
            for _ in range(-m):
                e(f"bst r{t[0]}, 0")
                e(f"lsr r{t[3]}")
                for b in (2, 1, 0):
                    e(f"ror r{t[b]}")
                e(f"bld r{t[3]}, 7")
            cache[w] = t
            for b in range(4):
                e(f"st X+, r{t[b]}")
            last_off[w] = cur
            cur += 4
    for r in reversed(saved):
        e(f"pop r{r}")
    e("ret")
    e(f".size {sym}, . - {sym}")
    return L


def render() -> str:
    lines = [
        "// SPDX-License-Identifier: MIT",
        "/* GENERATED by gen_lea_avr.py - do not edit. LEA-128/192/256 (KS X 3246) for the 8-bit AVR (ATmega128),",
        " * avr-fast: key schedules, encryption, decryption.",
        " *",
        " * C prototypes (<id> = lea128, lea192, lea256):",
        " *   void mcu_<id>_avr_fast_keyschedule(uint32_t *rk, const uint8_t *key);",
        " *   void mcu_<id>_avr_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *   void mcu_<id>_avr_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *       rk: LEA-128 T1, T3, T2, T0 a round (LEA_RK_COMPACT=1, 384 bytes); LEA-192/256 six words a round",
        " *",
        " * Register map",
        " *   r2..r21   the four state words and one free word (which byte lives where is tracked by the",
        " *             generator: every word is two aligned register pairs, for MOVW)",
        " *   r22..r25  T: LEA-128's T1 (round keys 1, 3, 5), loaded once a round; LEA-192/256 one key word",
        " *   r0:r1 MUL products (r1 cleared before returning)   r26 zero   r27 = 8   r28 = 32 (MUL constants)",
        " *   Z r30:r31 round keys (LDD Z+q)   X in / out; out is kept on the stack during the rounds",
        " * Key schedules: key words in r18..r25, r0, r2..r16 (LEA-256: Y = the last two rounds' words),",
        " *   r30/r31 the LDI constants, X the round keys (ST X+), r1 = 0.",
        " * Techniques: the generator's docstring (renamed words, MUL rotations, T1 loaded once a round).",
        " * No table, no secret-dependent branch or address: constant time on any AVR.",
        " */",
        '#include "mcucrypt/ns.h"',
        "",
        "#ifndef LEA_RK_COMPACT",
        '#error "LEA_RK_COMPACT must be defined: avr-fast reads LEA-128\'s compact layout (LEA_RK_COMPACT=1)"',
        "#endif",
        "#if LEA_RK_COMPACT != 1",
        '#error "avr-fast\'s LEA-128 rounds read 4 words a round: build it with LEA_RK_COMPACT=1"',
        "#endif",
    ]
    for prim in ("lea128", "lea192", "lea256"):
        lines += ks_routine(prim)
        for op in ("encrypt", "decrypt"):
            g = Gen(prim)
            g.routine(op)
            lines += g.lines
    return "\n".join(lines) + "\n"


def main() -> int:
    return write_or_check({HERE / "lea_avr.S": render()}, sys.argv[1:] == ["--check"], __file__)


if __name__ == "__main__":
    sys.exit(main())
