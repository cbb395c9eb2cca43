# SPDX-License-Identifier: MIT
"""Generate chacha20_avr.S: the ChaCha20 permutation for the 8-bit AVR (ATmega128), avr-fast.

    python3 gen_chacha20_avr.py            (writes chacha20_avr.S beside this file; --check compares)

A 32-bit word is four 8-bit registers; the 64-byte state needs 64 registers and the AVR has 32. The
generator decides, quarter round by quarter round, which words live in registers:
- 28 registers (r0, r2..r29) hold seven words; r1 stays the ABI zero
  (the carry fed back by the 4-bit rotation), Z (r30:r31) points at the output buffer, which is the
  home of the words not in registers. X (r26:r27) reads the input in the prologue, then holds state.
- Byte rotations (by 8, 16, 24 bits) cost nothing: a word is a list of four registers, and rotating it
  by 8k renames the list. Only rotl 4 (in the rotation by 12 = 8 + 4: four LSL/ROL/ROL/ROL/ADC r1
  chains) and rotr 1 (in the rotation by 7 = 8 - 1: BST/LSR/ROR/ROR/ROR/BLD) execute: a quarter round
  is 16 ADD/ADC + 16 EOR + 20 + 6 = 58 cycles.
- Register allocation: before a quarter round the words it needs are loaded (LDD, 2 cycles a byte);
  to make room the resident words whose next use is furthest away are written back (STD), Belady's
  rule, optimal for a known access sequence. With the RFC's quarter-round order this reaches the
  minimum a seven-word register file allows, nine words loaded and nine stored per half round.
- The loop body is two double rounds (after which every renaming is the identity again); it runs five
  times. At its end a few MOVs, loads and stores bring the allocation back to the one at its start.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

COLUMN = [(0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)]
DIAGONAL = [(0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)]
POOL = [0] + list(range(2, 30))          # 28 byte registers for state words
BODY_DOUBLE_ROUNDS = 2


class Gen:
    def __init__(self, order: list[list[tuple[int, int, int, int]]]):
        self.order = order                 # the half rounds of one loop body, each a list of 4 QRs
        self.lines: list[str] = []
        self.regs: dict[int, list[int]] = {}   # word -> its four byte registers, least significant first
        self.cycles = 0
        self.mem = 0

    def emit(self, s: str, cyc: int = 1) -> None:
        self.lines.append("    " + s)
        self.cycles += cyc

    def free(self) -> list[int]:
        used = {r for rs in self.regs.values() for r in rs}
        return [r for r in POOL if r not in used]

    def store(self, w: int) -> None:
        for i, r in enumerate(self.regs.pop(w)):
            self.emit(f"std Z+{4 * w + i}, r{r}", 2)
        self.mem += 4

    def load(self, w: int) -> None:
        fr = self.free()[:4]
        for i, r in enumerate(fr):
            self.emit(f"ldd r{r}, Z+{4 * w + i}", 2)
        self.regs[w] = fr
        self.mem += 4

    def ensure(self, words, future: list[int]) -> None:
        for w in words:
            if w in self.regs:
                continue
            while len(self.free()) < 4:
                cand = [v for v in self.regs if v not in words]

                def nxt(v):
                    return future.index(v) if v in future else 10**6
                self.store(max(cand, key=nxt))
            self.load(w)

    def quarter(self, qr) -> None:
        a, b, c, d = (self.regs[w] for w in qr)
        R = lambda x: f"r{x}"  # noqa: E731

        def add(x, y):
            self.emit(f"add {R(x[0])}, {R(y[0])}")
            for i in range(1, 4):
                self.emit(f"adc {R(x[i])}, {R(y[i])}")

        def xor(x, y):
            for i in range(4):
                self.emit(f"eor {R(x[i])}, {R(y[i])}")

        def rotbytes(x, k):   # rotl by 8k: new byte i = old byte i-k
            return [x[(i - k) % 4] for i in range(4)]
        add(a, b); xor(d, a); d = rotbytes(d, 2)
        add(c, d); xor(b, c); b = rotbytes(b, 1)
        for _ in range(4):          # rotl 4 as four rotl 1 (r1 = 0 feeds the carry back)
            self.emit(f"lsl {R(b[0])}")
            for i in range(1, 4):
                self.emit(f"rol {R(b[i])}")
            self.emit(f"adc {R(b[0])}, r1")
        add(a, b); xor(d, a); d = rotbytes(d, 1)
        add(c, d); xor(b, c); b = rotbytes(b, 1)
        self.emit(f"bst {R(b[0])}, 0")   # rotr 1
        self.emit(f"lsr {R(b[3])}")
        for i in (2, 1, 0):
            self.emit(f"ror {R(b[i])}")
        self.emit(f"bld {R(b[3])}, 7")
        self.regs[qr[1]], self.regs[qr[3]] = b, d

    def body(self, future_after: list[int]) -> None:
        seq = [qr for hr in self.order for qr in hr]
        for k, qr in enumerate(seq):
            future = [w for q in seq[k + 1:] for w in q] + future_after
            self.ensure(qr, [w for w in qr] + future)
            self.quarter(qr)


def body_sequence(order):
    return [w for hr in order for qr in hr for w in qr]


def initial_alloc(order) -> dict[int, list[int]]:
    """Start of the body: the first seven distinct words the body uses, in the pool order."""
    seen: list[int] = []
    for w in body_sequence(order):
        if w not in seen:
            seen.append(w)
        if len(seen) == 7:
            break
    return {w: POOL[4 * i:4 * i + 4] for i, w in enumerate(seen)}


def fixup(g: Gen, start: dict[int, list[int]]) -> None:
    """End of the body: write back the words the start does not hold, move the bytes of the words both
    hold into their start registers (EOR swaps for cycles), decrement the loop counter (on the stack,
    through a register still free), load the start words that are missing (LDD keeps DEC's flags)."""
    for w in [w for w in g.regs if w not in start]:
        g.store(w)
    moves = {}      # destination register <- source register
    for w in start:
        if w in g.regs:
            for s, d in zip(g.regs[w], start[w]):
                if s != d:
                    moves[d] = s
    while moves:
        srcs = set(moves.values())
        ready = [d for d in moves if d not in srcs]
        if ready:
            d = ready[0]
            g.emit(f"mov r{d}, r{moves.pop(d)}")
            continue
        d = next(iter(moves))             # a cycle: swap d with its source, then d is done
        s = moves.pop(d)
        g.emit(f"eor r{d}, r{s}")
        g.emit(f"eor r{s}, r{d}")
        g.emit(f"eor r{d}, r{s}")
        moves = {k: (s if v == d else v) for k, v in moves.items()}   # d's old byte is now in s
        if moves.get(s) == s:
            del moves[s]
    missing = [w for w in start if w not in g.regs]
    assert missing, "the counter needs a free register before the loads"
    t = start[missing[0]][0]          # free until its word is loaded; DEC's Z flag survives LDD
    g.emit(f"pop r{t}", 2)
    g.emit(f"dec r{t}")
    g.emit(f"push r{t}", 2)
    g.regs = {w: list(r) for w, r in start.items() if w not in missing}
    for w in missing:
        for i, r in enumerate(start[w]):
            g.emit(f"ldd r{r}, Z+{4 * w + i}", 2)
        g.regs[w] = list(start[w])


def generate() -> str:
    order = [COLUMN, DIAGONAL] * BODY_DOUBLE_ROUNDS
    start = initial_alloc(order)
    g = Gen(order)
    for r in SAVED:
        g.emit(f"push r{r}", 2)
    g.emit("push r18", 2)            # msg, in and mode, for the feed-forward at the end
    g.emit("push r19", 2)
    g.emit("push r22", 2)
    g.emit("push r23", 2)
    g.emit("push r20", 2)
    g.emit("movw r30, r24")          # Z = out, the home of the words not in registers
    g.emit("movw r26, r22")          # X = in
    late = [w for w in start if set(start[w]) & {0, 26, 27}]   # r0 copies, X reads: load these last
    for w in range(16):
        if w in start and w not in late:
            for r in start[w]:
                g.emit(f"ld r{r}, X+", 2)
        else:
            for i in range(4):
                g.emit("ld r0, X+", 2)
                g.emit(f"std Z+{4 * w + i}, r0", 2)
    g.emit(f"ldi r26, {10 // BODY_DOUBLE_ROUNDS}")   # loop counter, kept on the stack
    g.emit("push r26", 2)
    for w in late:
        for i, r in enumerate(start[w]):
            g.emit(f"ldd r{r}, Z+{4 * w + i}", 2)
    g.regs = {w: list(r) for w, r in start.items()}
    pro = g.cycles
    g.lines.append(".Lchacha_body:")
    g.cycles = 0
    g.mem = 0
    g.body(body_sequence(order))
    body_mem = g.mem
    fixup(g, start)
    g.lines.append("    breq .Lchacha_done")
    g.lines.append("    rjmp .Lchacha_body")
    g.lines.append(".Lchacha_done:")
    body = g.cycles + 2            # + brne-not-taken / rjmp
    g.cycles = 0
    for w in sorted(g.regs):
        g.store(w)
    g.emit("pop r0", 2)              # drop the counter
    g.emit("pop r20", 2)             # mode
    g.emit("pop r27", 2)             # X = in
    g.emit("pop r26", 2)
    g.emit("pop r29", 2)             # Y = msg
    g.emit("pop r28", 2)
    perm_epi = g.cycles
    g.emit("cpi r20, 1")             # the (public) mode; the blocks are beyond BRxx reach
    g.emit("breq .Lchacha_ff")
    g.emit("brcs .Lchacha_mode0")
    g.emit("rjmp .Lchacha_ffxor", 2)
    g.lines.append(".Lchacha_mode0:")
    g.emit("rjmp .Lchacha_ret", 2)
    ffs = {}
    for label, xor in ((".Lchacha_ff", False), (".Lchacha_ffxor", True)):
        g.lines.append(label + ":")
        c0 = g.cycles
        for i in range(64):          # out (+)= in, word by word (the feed-forward), then ^ msg
            r = 2 + i % 4
            g.emit(f"ldd r{r}, Z+{i}", 2)
            g.emit("ld r0, X+", 2)
            g.emit(f"{'add' if i % 4 == 0 else 'adc'} r{r}, r0")
            if xor:
                g.emit("ld r0, Y+", 2)
                g.emit(f"eor r{r}, r0")
            g.emit(f"std Z+{i}, r{r}", 2)
        if not xor:
            g.emit("rjmp .Lchacha_ret", 2)
        ffs[xor] = g.cycles - c0
    ff = f"{ffs[False]}, mode 2 {ffs[True]}"
    g.cycles = perm_epi
    g.lines.append(".Lchacha_ret:")
    for r in reversed(SAVED):
        g.emit(f"pop r{r}", 2)
    g.emit("ret", 4)
    epi = g.cycles
    est = pro + 5 * body + epi
    head = HEADER.format(body=body, pro=pro, epi=epi, est=est, mem=body_mem // 4,
                         start=",\n *     ".join(f"w{w}: r{'/r'.join(map(str, r))}" for w, r in start.items()))
    head = head.replace("@FF@", str(ff))
    return head + "\n".join(g.lines) + "\n    .size MCU_FN(chacha20, core), . - MCU_FN(chacha20, core)\n"


SAVED = list(range(2, 18)) + [28, 29]

HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_chacha20_avr.py - do not edit. ChaCha20 (RFC 8439) core for the 8-bit AVR
 * (ATmega128), avr-fast: 20 rounds, then optionally the feed-forward (the C glue chacha20_avr_glue.c
 * builds the state and runs the stream loop).
 *
 * C prototypes:
 *   void mcu_chacha20_avr_fast_permute(uint32_t *out, const uint32_t *in);
 *       the 20 rounds alone (no feed-forward); in may equal out
 *   void mcu_chacha20_avr_fast_core(uint8_t *out, const uint32_t *in, uint8_t mode, const uint8_t *msg);
 *       mode 0: as permute; mode 1: out = rounds(in) + in, the key-stream block; mode 2: out = msg ^
 *       (rounds(in) + in), one block of encryption. out is the working buffer of the rounds, so in modes
 *       1 and 2 neither in nor msg may overlap it (the glue falls back to mode 1 for in-place calls).
 *   out: 64 bytes; it is also the working home of the words not in registers.
 *   Words little-endian, as the state of RFC 8439.
 *
 * Register map
 *   r0, r2..r29  28 registers = seven state words, which seven and in which bytes decided per quarter
 *                round by the generator (a word is four registers, least significant first)
 *   r1           the ABI zero: the carry fed back into bit 0 by the 4-bit rotations (never written)
 *   Z r30:r31    out (LDD/STD Z+0..63 reach every word)      X r26:r27  in (prologue only)
 *   stack        the loop counter (five bodies of two double rounds), msg, in and mode (r18..r23)
 *   X, Y         in and msg again for the feed-forward (after the rounds)
 * Techniques
 *   - Byte rotations by renaming: rotating a word by 8, 16 or 24 bits renames its four registers and
 *     costs nothing. rotl 12 = rename + rotl 4 (four LSL/ROL/ROL/ROL/ADC r1 chains, 20 cycles);
 *     rotl 7 = rename + rotr 1 (BST/LSR/ROR/ROR/ROR/BLD, 6 cycles). A quarter round: 58 cycles.
 *   - Belady register allocation: before a quarter round its words are loaded (LDD); the resident
 *     words used furthest ahead are written back (STD). {mem} words are loaded per body of two double
 *     rounds (and as many stored), the minimum a 7-word register file allows: 9 a half round.
 *   - Loop of five bodies of two double rounds: after two double rounds every renaming is the
 *     identity again, and a short fix-up (stores, MOVs, EOR swaps, loads) restores the start allocation:
 *     {start}.
 * Cycles (from the generator's count): prologue {pro}, body {body} (x5), epilogue {epi}: about {est};
 * the feed-forward adds, mode 1 @FF@ (LDD, LD X+, ADD/ADC, [LD Y+, EOR,] STD a byte).
 * Constant time: straight-line ARX code; the only branches are the loop counter and the (public) mode.
 */
#include "mcucrypt/ns.h"

    .text
    .global MCU_FN(chacha20, permute)
    .type MCU_FN(chacha20, permute), @function
MCU_FN(chacha20, permute):
    ldi r20, 0                       ; mode 0: no feed-forward
    .size MCU_FN(chacha20, permute), . - MCU_FN(chacha20, permute)
    .global MCU_FN(chacha20, core)
    .type MCU_FN(chacha20, core), @function
MCU_FN(chacha20, core):
"""


def main() -> int:
    out = Path(__file__).with_name("chacha20_avr.S")
    return write_or_check({out: generate()}, "--check" in sys.argv, __file__)


if __name__ == "__main__":
    sys.exit(main())
