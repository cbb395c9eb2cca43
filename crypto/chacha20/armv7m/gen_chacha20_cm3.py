# SPDX-License-Identifier: MIT
"""Generate chacha20_cm3.S: the ChaCha20 core for the Cortex-M3 (20 rounds, then the feed-forward or
the plain permuted state).

    python3 gen_chacha20_cm3.py            (writes chacha20_cm3.S beside this file; --check compares)

The generator does two things a hand-written file would get wrong or leave suboptimal:
- Lazy rotations: a word whose rotation is still owed keeps it as a pending right-rotation; the next
  instruction that reads the word applies it as its barrel-shifted second operand (free on the M3).
  In a quarter round the a and c words are never rotated and each ADD/EOR reads exactly one word that
  owes a rotation, so a quarter round is 8 instructions and no rotation is ever executed.
- Register allocation with two words in memory: 16 state words, 14 registers (r0-r12, lr). Before a
  quarter round, the words it needs are brought in; the words evicted to make room are those whose next
  use is furthest away (Belady's rule, optimal for a known access sequence), and the order of the four
  quarter rounds of each half round is chosen to minimise the loads and stores. The two loads of a half
  round are emitted together (neighbouring loads pipeline) and the stores are hoisted above independent
  ALU instructions, so that no load directly follows a store (+1 cycle on the M3).
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

COLUMN = [(0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)]
DIAGONAL = [(0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)]
REGS = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr"]
# Frame: [sp, #0..63] the 16 words' spill slots, then the saved arguments out, init, mode (r0-r2).
OUT_PTR_SLOT = 64
INIT_PTR_SLOT = 68
MODE_SLOT = 72


def half_rounds():
    for _ in range(10):
        yield COLUMN
        yield DIAGONAL


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.reg_of: dict[int, str] = {}     # word -> register
        self.pending = [0] * 16              # owed right-rotation of each word
        self.where_mem: dict[int, str] = {}  # word -> memory operand while it is not in a register
        self.loads = self.stores = 0

    def emit(self, s: str) -> None:
        self.lines.append("    " + s)

    def operand(self, w: int) -> str:
        r = self.reg_of[w]
        return f"{r}, ror #{self.pending[w]}" if self.pending[w] else r

    # -------------------------------------------------------------------------------- allocation
    def ensure(self, words: tuple[int, ...], future: list[int]) -> list[tuple[int, str]]:
        """Make room for `words` (evicting the resident words used furthest in the future, stored now)
        and return the (word, register) loads still owed; quarter() emits them together just before the
        first instruction that reads one of them."""
        missing = [w for w in words if w not in self.reg_of]
        if not missing:
            return []
        free = [r for r in REGS if r not in self.reg_of.values()]

        def next_use(w: int) -> int:
            try:
                return future.index(w)
            except ValueError:
                return 10**9

        victims = sorted((w for w in self.reg_of if w not in words), key=next_use, reverse=True)
        while len(free) < len(missing):
            v = victims.pop(0)
            r = self.reg_of.pop(v)
            self.emit(f"str     {r}, [sp, #{4 * v}]")
            self.where_mem[v] = f"[sp, #{4 * v}]"
            self.stores += 1
            free.append(r)
        return [(w, free.pop(0)) for w in missing]

    # ------------------------------------------------------------------------------ quarter round
    def quarter(self, a: int, b: int, c: int, d: int, owed: list[tuple[int, str]]) -> None:
        owed = list(owed)
        assert self.pending[a] == 0 and self.pending[c] == 0
        for (x, y, op, rot) in ((a, b, "add", None), (d, a, "eor", 16), (c, d, "add", None), (b, c, "eor", 12),
                                (a, b, "add", None), (d, a, "eor", 8), (c, d, "add", None), (b, c, "eor", 7)):
            if any(o[0] in (x, y) for o in owed):
                for w, r in owed:           # all owed loads together: neighbouring loads pipeline
                    self.emit(f"ldr     {r}, {self.where_mem.pop(w)}")
                    self.loads += 1
                    self.reg_of[w] = r
                owed = []
            if op == "add":             # x += y (y may owe a rotation)
                self.emit(f"add     {self.reg_of[x]}, {self.reg_of[x]}, {self.operand(y)}")
            else:                       # x = rotl(x ^ y, rot): x owes its rotation, y is plain
                self.emit(f"eor     {self.reg_of[x]}, {self.reg_of[y]}, {self.operand(x)}")
                self.pending[x] = (32 - rot) % 32
        assert not owed

    # -------------------------------------------------------------------------------------- body
    def body(self) -> None:
        halves = list(half_rounds())
        orders = []
        # Initial residency: everything but the two words the first half round needs last. Those are
        # copied from init[] to their frame slots (r2, r3 are free before the state is loaded).
        first = self.best_order_from(set(range(16)), halves, 0, spilled=2)
        seq0 = [w for qr in first for w in qr]
        late = sorted(range(16), key=lambda w: seq0.index(w))[-2:]
        for w, r in zip(late, ("r2", "r3")):
            self.emit(f"ldr     {r}, [r1, #{4 * w}]")
        for w, r in zip(late, ("r2", "r3")):
            self.emit(f"str     {r}, [sp, #{4 * w}]")
            self.where_mem[w] = f"[sp, #{4 * w}]"
        resident = [w for w in range(16) if w not in late]
        regs = [r for r in REGS if r != "r1"] + ["r1"]          # r1 (the init pointer) last
        for w, r in zip(resident, regs):
            self.reg_of[w] = r
        for w in sorted(resident, key=lambda w: self.reg_of[w] == "r1"):
            self.emit(f"ldr     {self.reg_of[w]}, [r1, #{4 * w}]")
        for i in range(len(halves)):
            order = self.best_order_from(set(self.reg_of), halves, i)
            orders.append(order)
            rest = [w for qr in order for w in qr] + [w for h in halves[i + 1:] for qr in h for w in qr]
            for k, qr in enumerate(order):
                self.emit(f"// quarter round {qr}")
                owed = self.ensure(qr, rest[4 * (k + 1):])
                self.quarter(*qr, owed)
        self.orders = orders

    def best_order_from(self, resident: set, halves, i, spilled=None):
        """The order of half round i's quarter rounds that needs the fewest loads (simulated with
        Belady eviction, looking one half round ahead)."""
        nxt = [w for qr in halves[i + 1] for w in qr] if i + 1 < len(halves) else []
        best, best_cost = None, None
        for perm in itertools.permutations(halves[i]):
            seq = [w for qr in perm for w in qr] + nxt
            res = set(resident)
            if spilled:                       # before the first half round: the latest-needed words out
                res -= set(sorted(range(16), key=lambda w: seq.index(w))[-spilled:])
            cost = 0
            for k, qr in enumerate(perm):
                future = seq[4 * (k + 1):]
                for w in qr:
                    if w not in res:
                        cost += 1
                        cand = sorted((v for v in res if v not in qr),
                                      key=lambda v: future.index(v) if v in future else 10**9, reverse=True)
                        res.discard(cand[0])
                        res.add(w)
            if best_cost is None or cost < best_cost:
                best, best_cost = perm, cost
        return best

    # ------------------------------------------------------------------------------ feed-forward
    def tails(self) -> None:
        """After the rounds: free three registers (three words to their frame slots), load the out and
        init pointers and the mode, then either the feed-forward (mode 0, key stream) or the plain
        permutation's output (mode 1): each word's owed rotation is applied by the ADD (feed-forward) or
        by one ROR before its store (permutation)."""
        victims = sorted(self.reg_of, key=lambda w: self.pending[w] == 0)[:3]
        free = []
        for v in victims:
            r = self.reg_of.pop(v)
            self.emit(f"str     {r}, [sp, #{4 * v}]")
            self.where_mem[v] = f"[sp, #{4 * v}]"
            free.append(r)
        ro, ri, rt = free
        self.emit(f"ldr     {rt}, [sp, #{MODE_SLOT}]")
        self.emit(f"ldr     {ro}, [sp, #{OUT_PTR_SLOT}]")
        self.emit(f"ldr     {ri}, [sp, #{INIT_PTR_SLOT}]")
        self.emit(f"cmp     {rt}, #0")
        self.emit("bne     .Lpermutation_out")
        saved = (dict(self.reg_of), dict(self.where_mem), list(self.pending))
        self.feed_forward(ro, ri, [rt])
        self.emit("b       .Ldone")
        self.reg_of, self.where_mem, self.pending = saved
        self.lines.append(".Lpermutation_out:")
        self.permutation_out(ro, [ri, rt])
        self.lines.append(".Ldone:")

    def feed_forward(self, ro: str, ri: str, temps: list[str]) -> None:
        """out[w] = x[w] + init[w]; after the first words the register of each finished word becomes a
        temporary, and words go two at a time (two loads pipeline, then two ADDs, then two STRs)."""
        todo = sorted(self.reg_of) + sorted(self.where_mem)
        while todo:
            n = 2 if len(temps) >= 2 or len(todo) == 1 else 1
            group, todo = todo[:n], todo[n:]
            pairs = []                         # (word, x register, temp register)
            for w in group:
                t = temps.pop(0)
                if w in self.reg_of:
                    pairs.append((w, self.reg_of[w], t))
                else:
                    x = temps.pop(0)
                    self.emit(f"ldr     {x}, {self.where_mem[w]}")
                    pairs.append((w, x, t))
            for w, x, t in pairs:
                self.emit(f"ldr     {t}, [{ri}, #{4 * w}]")
            for w, x, t in pairs:
                rot = f", ror #{self.pending[w]}" if self.pending[w] else ""
                self.emit(f"add     {t}, {t}, {x}{rot}")
            for w, x, t in pairs:
                self.emit(f"str     {t}, [{ro}, #{4 * w}]")
            for w, x, t in pairs:
                self.reg_of.pop(w, None)
                self.where_mem.pop(w, None)
                temps += [x, t]

    def permutation_out(self, ro: str, temps: list[str]) -> None:
        """out[w] = x[w] with its owed rotation applied (ROR, then STR)."""
        for w in sorted(self.reg_of):
            r = self.reg_of[w]
            if self.pending[w]:
                self.emit(f"ror     {r}, {r}, #{self.pending[w]}")
            self.emit(f"str     {r}, [{ro}, #{4 * w}]")
        for w in sorted(self.where_mem):
            t = temps[0]
            self.emit(f"ldr     {t}, {self.where_mem[w]}")
            if self.pending[w]:
                self.emit(f"ror     {t}, {t}, #{self.pending[w]}")
            self.emit(f"str     {t}, [{ro}, #{4 * w}]")


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_chacha20_cm3.py (python3 gen_chacha20_cm3.py); edit the generator.
 *
 * ChaCha20 core for the Cortex-M3 (cm3-fast):
 *
 *   void mcu_chacha20_cm3_fast_core(uint8_t *out, const uint32_t init[16], uint32_t mode)
 *
 * 20 rounds on the state init[]; mode 0: out[0..63] = the key stream (the feed-forward x + init),
 * mode 1: out = the permuted state alone. out may have any alignment (STR), init is word aligned.
 * chacha20_cm3_glue.c builds init[] for block/xor and calls this; permute calls it with mode 1.
 *
 * Techniques (see the generator's docstring):
 * - lazy rotations: every rotation is the barrel-shifted second operand of the ADD/EOR that next reads
 *   the word, so a quarter round is 8 one-cycle instructions and no rotation is executed in the rounds;
 * - 14 of the 16 words in registers (r0-r12, lr), two in the frame; the words evicted before a quarter
 *   round are those needed furthest ahead (Belady), each half round's quarter-round order is the one
 *   needing the fewest loads, the two loads a half round needs are adjacent (they pipeline) and the
 *   stores are hoisted so that no load follows a store;
 * - fully unrolled: no loop counter.
 * Register map: varies instruction by instruction (the generator's allocation); frame: [sp, #0..63]
 * word slots, [sp, #64] out, [sp, #68] init, [sp, #72] mode. ARX only, no table; the one branch is on the
 * public mode: constant time.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
    .section .text.MCU_FN(chacha20, core), "ax", %progbits
    .global MCU_FN(chacha20, core)
    .align 2
    .thumb_func
    .type MCU_FN(chacha20, core), %function
MCU_FN(chacha20, core):
    push    {r0-r2, r4-r11, lr}
    sub     sp, sp, #64"""

FOOTER = """    add     sp, sp, #76
    pop     {r4-r11, pc}
    .size MCU_FN(chacha20, core), . - MCU_FN(chacha20, core)"""


def hoist_stores(lines: list[str]) -> list[str]:
    """Move each spill store above the ALU instructions before it that do not write its register, so
    that an ALU instruction, not the store, precedes the loads that follow (store then load: +1 cycle)."""
    out = list(lines)
    for i in range(len(out)):
        if not out[i].lstrip().startswith("str") or "[sp" not in out[i]:
            continue
        reg = out[i].split()[1].rstrip(",")
        j = i
        while j > 0:
            prev = out[j - 1].split()
            if prev[0] not in ("add", "eor") or prev[1].rstrip(",") == reg:
                break
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1
    return out


OUTPUT = Path(__file__).with_name("chacha20_cm3.S")


def generate() -> str:
    g = Gen()
    g.body()
    g.lines = hoist_stores(g.lines)
    g.tails()
    return "\n".join([HEADER, f"    // {g.loads} loads and {g.stores} stores of state words in the 20 rounds",
                      *g.lines, FOOTER]) + "\n"


def main() -> int:
    """Write chacha20_cm3.S; with --check, only report (exit 1) if the checked-in file differs."""
    return write_or_check({OUTPUT: generate()}, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    sys.exit(main())
