#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates permutation_bi32.S (armv7m-bi32): Ascon-p on bit-interleaved lanes for the Cortex-M3.

Run `python3 crypto/ascon/armv7m/gen_bi32.py > crypto/ascon/armv7m/permutation_bi32.S`; a test checks
that the committed file is this script's output.

Why a generator: the linear layer writes one word of each lane to the free register and leaves the
lane's old register free for the next lane, so no MOV copies are needed; the registers then rotate
from round to round. The script tracks which register holds which word, picks the lane order whose
rotation costs the fewest MOVs to undo after twelve rounds, and emits those MOVs (and the ones that
bring a p8 call into the rotation of round 4). The AEAD block loops carry their own Ascon-p[8] on
r0-r12 (lr keeps the input pointer) in the lane order whose eight-round rotation is the identity, and
convert the rate with the 19-instruction lane conversion (`to_bi`, `from_bi` below; docs/ascon.md).
"""
from __future__ import annotations

import itertools

REGS = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr"]
WORDS = ["x0e", "x0o", "x1e", "x1o", "x2e", "x2o", "x3e", "x3o", "x4e", "x4o"]
# Start mapping: S0..S4 (even word, odd word) in r1..r10, so LDM/STM move the whole state.
M0 = {w: f"r{i + 1}" for i, w in enumerate(WORDS)}
CONSTANTS = (0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, 0x78, 0x69, 0x5A, 0x4B)

# Linear layer per lane on (e, o), from 64-bit rotations: by 2k, e' = e >>> k, o' = o >>> k; by 2k+1,
# e' = o >>> k, o' = e >>> (k+1). "new" is the word computed into the free register (it needs the
# other word's old value); the other word is updated in place. Terms: (source word, rotation).
LANES = {
    0: ("e", [("e", 0), ("o", 9), ("e", 14)], [("o", 0), ("e", 10), ("o", 14)]),   # 19, 28
    1: ("o", [("e", 0), ("o", 30), ("o", 19)], [("o", 0), ("e", 31), ("e", 20)]),  # 61, 39
    2: ("o", [("e", 0), ("e", 3), ("o", 0)], [("o", 0), ("e", 1), ("o", 3)]),      # 1, 6
    3: ("o", [("e", 0), ("e", 5), ("o", 8)], [("o", 0), ("o", 5), ("e", 9)]),      # 10, 17
    4: ("o", [("e", 0), ("o", 3), ("o", 20)], [("o", 0), ("e", 4), ("e", 21)]),    # 7, 41
}


def bits(c: int, start: int) -> int:
    return sum(((c >> (start + 2 * i)) & 1) << i for i in range(4))


def operand(reg: str, rot: int) -> str:
    return f"{reg}, ror #{rot}" if rot else reg


class Gen:
    def __init__(self, order: tuple[int, ...], regs: list[str] = REGS):
        self.order = order
        self.regs = regs
        self.out: list[str] = []
        self.m = dict(M0)

    def free(self) -> list[str]:
        used = set(self.m.values())
        return [r for r in self.regs if r not in used]

    def emit(self, line: str) -> None:
        self.out.append("    " + line)

    def sbox(self, half: str) -> None:
        """The S-box in 15 instructions (OR/ORN/BIC form; docs/ascon.md): with t1 = x0^x4, t2 = x3^x4,
        t0 = x1^x2 the outputs are y0 = ((x2^t1) | x1) ^ t2, y1 = ((x3^x1) | t0) ^ t1,
        y2 = (x3 | ~x4) ^ t0, y3 = (x0 | t2) ^ t0, y4 = (x1 & ~t1) ^ t2. They land in the registers of
        x2, x3, x4, t0, x1: the register map records it, nothing moves."""
        w = [f"x{i}{half}" for i in range(5)]
        x = [self.m[k] for k in w]
        t0, t1, t2 = self.free()[:3]
        e = self.emit
        e(f"eor     {t1}, {x[0]}, {x[4]}")
        e(f"eor     {t2}, {x[3]}, {x[4]}")
        e(f"eor     {t0}, {x[1]}, {x[2]}")
        e(f"orn     {x[4]}, {x[3]}, {x[4]}")
        e(f"eor     {x[4]}, {x[4]}, {t0}")         # y2
        e(f"eor     {x[3]}, {x[3]}, {x[1]}")
        e(f"orr     {x[3]}, {x[3]}, {t0}")
        e(f"eor     {x[3]}, {x[3]}, {t1}")         # y1
        e(f"eor     {x[2]}, {x[2]}, {t1}")
        e(f"orr     {x[2]}, {x[2]}, {x[1]}")
        e(f"eor     {x[2]}, {x[2]}, {t2}")         # y0
        e(f"orr     {x[0]}, {x[0]}, {t2}")
        e(f"eor     {t0}, {t0}, {x[0]}")           # y3
        e(f"bic     {x[1]}, {x[1]}, {t1}")
        e(f"eor     {x[1]}, {x[1]}, {t2}")         # y4
        self.m[w[0]], self.m[w[1]], self.m[w[2]], self.m[w[3]], self.m[w[4]] = x[2], x[3], x[4], t0, x[1]

    def linear(self, lane: int) -> None:
        new, e_terms, o_terms = LANES[lane]
        reg = {h: self.m[f"x{lane}{h}"] for h in "eo"}
        terms = {"e": e_terms, "o": o_terms}
        other = "o" if new == "e" else "e"
        f = self.free()[0]
        (s0, r0), (s1, r1), (s2, r2) = terms[new]
        # new word into the free register: needs the old values of both words
        self.emit(f"eor     {f}, {reg[s0]}, {operand(reg[s1], r1)}")
        self.emit(f"eor     {f}, {f}, {operand(reg[s2], r2)}")
        # the other word in place; its own rotation first (one instruction reads its old value)
        t = sorted(terms[other][1:], key=lambda st: st[0] != other)
        for s, r in t:
            self.emit(f"eor     {reg[other]}, {reg[other]}, {operand(reg[s], r)}")
        self.m[f"x{lane}{new}"] = f

    def round(self, c: int) -> None:
        self.out.append(f"    @ round constant 0x{c:02x}: even bits 0x{bits(c, 0):x}, odd bits 0x{bits(c, 1):x}")
        self.emit(f"eor     {self.m['x2e']}, {self.m['x2e']}, #0x{bits(c, 0):x}")
        self.emit(f"eor     {self.m['x2o']}, {self.m['x2o']}, #0x{bits(c, 1):x}")
        self.sbox("e")
        self.sbox("o")
        for lane in self.order:
            self.linear(lane)


def moves(src: dict[str, str], dst: dict[str, str]) -> list[str]:
    """MOVs taking every word from its register in src to its register in dst (cycles through a free
    register)."""
    pending = {src[w]: dst[w] for w in WORDS if src[w] != dst[w]}
    spare = [r for r in REGS if r not in src.values() and r not in dst.values()]
    out = []
    while pending:
        ready = [s for s, d in pending.items() if d not in pending]
        if ready:
            s = ready[0]
            out.append(f"mov     {pending.pop(s)}, {s}")
            continue
        s, d = next(iter(pending.items()))   # a cycle: park one value in the spare register
        out.append(f"mov     {spare[0]}, {s}")
        pending[spare[0]] = pending.pop(s)
    return out


def best_order() -> tuple[int, ...]:
    def cost(order):
        g = Gen(order)
        for c in CONSTANTS[:4]:
            g.round(c)
        m4 = dict(g.m)
        for c in CONSTANTS[4:]:
            g.round(c)
        return len(moves(g.m, M0)) * 3 + len(moves(M0, m4)), order   # p12/hash blocks dominate
    return min(cost(o) for o in itertools.permutations(range(5)))[1]


# The AEAD block loops run Ascon-p[8] inline on r0-r12 only (lr holds the input pointer); with this
# lane order the register map of eight such rounds is the identity: no MOVs in the loop.
BLOCK_REGS = REGS[:13]


def block_order() -> tuple[int, ...]:
    def cost(order):
        g = Gen(order, BLOCK_REGS)
        for c in CONSTANTS[4:]:
            g.round(c)
        return len(moves(g.m, M0)), order
    return min(cost(o) for o in itertools.permutations(range(5)))[1]


def p8_inline(order: tuple[int, ...]) -> list[str]:
    g = Gen(order, BLOCK_REGS)
    for c in CONSTANTS[4:]:
        g.round(c)
    return g.out + ["    " + mv for mv in moves(g.m, M0)]


# Conversion of one lane between (low word, high word) and (even word, odd word), in place, t scratch.
# Interleaving moves bit b5..b0 of the 64-bit lane (b5 = which word) to word b0, position b5..b1: a
# rotation of the six index bits, written as five transpositions that all involve the word bit. Each one
# exchanges bits between the two words: b5 <-> b4 is a half-word swap (LSR + two BFI), b5 <-> bj for
# j = 3..0 a two-register swap-move (four instructions, the masks are Thumb-2 immediates): 19
# instructions a lane, where unzipping each word (four swap-moves each) and recombining takes 35.
SWAPS = ((8, "0x00ff00ff"), (4, "0x0f0f0f0f"), (2, "0x33333333"), (1, "0x55555555"))


def halfswap(lo: str, hi: str, t: str) -> list[str]:
    return [f"lsr     {t}, {lo}, #16", f"bfi     {lo}, {hi}, #16, #16", f"bfi     {hi}, {t}, #0, #16"]


def swapmove(lo: str, hi: str, t: str, n: int, mask: str) -> list[str]:
    return [f"eor     {t}, {hi}, {lo}, lsr #{n}", f"and     {t}, {t}, #{mask}", f"eor     {hi}, {hi}, {t}",
            f"eor     {lo}, {lo}, {t}, lsl #{n}"]


def to_bi(lo: str, hi: str, t: str) -> list[str]:
    """(lo, hi) = lane -> (even, odd)."""
    out = halfswap(lo, hi, t)
    for n, mask in SWAPS:
        out += swapmove(lo, hi, t, n, mask)
    return out


def from_bi(e: str, o: str, t: str) -> list[str]:
    """(e, o) -> (lo, hi): the same transpositions in the reverse order."""
    out = []
    for n, mask in reversed(SWAPS):
        out += swapmove(e, o, t, n, mask)
    return out + halfswap(e, o, t)


def block_loop(name: str, doc: str, body: list[str], p8: list[str]) -> str:
    """A block loop: [sp] state pointer, [sp+4] output pointer, [sp+8] end of the input; lr input."""
    lines = [f"""
    .section .text.ascon_bi32_{name}, "ax", %progbits    @ own section: the linker drops unused loops
    .global MCU_FN(ascon, {name})
    .thumb_func
    .type MCU_FN(ascon, {name}), %function
MCU_FN(ascon, {name}):                  @ {doc}"""]
    if name == "absorb16":
        lines.append("""    add     r2, r1, r2, lsl #4          @ end of the input
    mov     r3, r1
    push    {r0-r2, r4-r11, lr}         @ [sp] state, [sp+4] (unused), [sp+8] input end
    mov     lr, r3                      @ input pointer""")
    else:
        lines.append("""    add     r3, r2, r3, lsl #4          @ end of the input
    push    {r0, r1, r3, r4-r11, lr}    @ [sp] state, [sp+4] output, [sp+8] input end
    mov     lr, r2                      @ input pointer""")
    lines.append("""    ldm     r0, {r1-r10}
    .p2align 2                          @ a word-aligned loop head: the taken branch refills faster
1:""")
    lines += ["    " + ln for ln in body]
    lines.append("""    add     lr, lr, #16
    ldr     r0, [sp, #8]
    cmp     lr, r0                      @ flags survive the rounds (no S-suffixed instruction there)""")
    lines += p8
    lines.append(f"""    bne     1b
    ldr     r0, [sp]
    stm     r0, {{r1-r10}}
    add     sp, sp, #12
    pop     {{r4-r11, pc}}
    .size MCU_FN(ascon, {name}), . - MCU_FN(ascon, {name})""")
    return "\n".join(lines)


def conversions() -> str:
    """to_bi / from_bi for the C modes (ascon.h): uint64_t in r0 (low), r1 (high), result likewise."""
    out = []
    for name, body, doc in (("to_bi", to_bi("r0", "r1", "r2"), "lane -> (even word, odd word)"),
                            ("from_bi", from_bi("r0", "r1", "r2"), "(even word, odd word) -> lane")):
        out.append(f"""
    .global MCU_FN(ascon, {name})
    .thumb_func
    .type MCU_FN(ascon, {name}), %function
MCU_FN(ascon, {name}):                   @ uint64_t (uint64_t x): {doc}, 19 instructions""")
        out += ["    " + ln for ln in body]
        out.append(f"""    bx      lr
    .size MCU_FN(ascon, {name}), . - MCU_FN(ascon, {name})""")
    return "\n".join(out)


def aead_loops() -> str:
    p8 = p8_inline(block_order())
    absorb = []
    for i, (e, o) in enumerate((("r1", "r2"), ("r3", "r4"))):
        absorb += [f"ldr     r0, [lr, #{8 * i}]", f"ldr     r11, [lr, #{8 * i + 4}]"]
        absorb += to_bi("r0", "r11", "r12")
        absorb += [f"eor     {e}, {e}, r0", f"eor     {o}, {o}, r11"]
    enc = []
    for i, (e, o) in enumerate((("r1", "r2"), ("r3", "r4"))):
        enc += from_bi(e, o, "r0")                                     # the rate, lane i, as bytes
        enc += [f"ldr     r0, [lr, #{8 * i}]", f"ldr     r11, [lr, #{8 * i + 4}]"]
        if i == 0:
            enc += ["ldr     r12, [sp, #4]"]
        enc += [f"eor     {e}, {e}, r0", f"eor     {o}, {o}, r11",          # ciphertext = rate ^ message
                f"str     {e}, [r12, #{8 * i}]", f"str     {o}, [r12, #{8 * i + 4}]"]
        enc += to_bi(e, o, "r0")                                       # ... and it is the new rate
    enc += ["add     r12, r12, #16", "str     r12, [sp, #4]"]
    dec = []
    for i, (e, o) in enumerate((("r1", "r2"), ("r3", "r4"))):
        dec += from_bi(e, o, "r0")
        dec += [f"ldr     r0, [lr, #{8 * i}]", f"ldr     r11, [lr, #{8 * i + 4}]"]
        if i == 0:
            dec += ["ldr     r12, [sp, #4]"]
        dec += [f"eor     {e}, {e}, r0", f"eor     {o}, {o}, r11",          # plaintext = rate ^ ciphertext
                f"str     {e}, [r12, #{8 * i}]", f"str     {o}, [r12, #{8 * i + 4}]",
                f"mov     {e}, r0", f"mov     {o}, r11"]                   # the rate takes the ciphertext
        dec += to_bi(e, o, "r0")
    dec += ["add     r12, r12, #16", "str     r12, [sp, #4]"]
    return "\n".join([
        f"/* AEAD block loops (nblocks >= 1, any alignment: LDR/STR): S0, S1 ^= the block, p8, the state in\n"
        f" * registers throughout; the rounds inline on r0-r12 with lane order {block_order()}. */",
        block_loop("absorb16", "(s, in, nblocks): AD blocks", absorb, p8),
        block_loop("encrypt16", "(s, out, in, nblocks)", enc, p8),
        block_loop("decrypt16", "(s, out, in, nblocks)", dec, p8)])


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_bi32.py (edit the generator, not this file).
 *
 * Ascon-p on the Cortex-M3 (armv7m-bi32): bit-interleaved lanes, all ten words in registers.
 *
 * void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);     rounds = 12 or 8
 * void mcu_ascon_<impl>_absorb8(ascon_state_t *s, const uint8_t *in, size_t nblocks);
 *      hash/XOF blocks: S0 ^= interleave(8 input bytes); p12; nblocks >= 1; any alignment (LDR)
 * void mcu_ascon_<impl>_absorb16(ascon_state_t *s, const uint8_t *in, size_t nblocks);
 * void mcu_ascon_<impl>_encrypt16 / _decrypt16(ascon_state_t *s, uint8_t *out, const uint8_t *in, size_t nblocks);
 *      AEAD blocks (ref/ascon.h): the rate converted out and back in per block, p8 inline; any alignment
 * uint64_t mcu_ascon_<impl>_to_bi(uint64_t x), _from_bi(uint64_t x): lane conversions for the C modes
 *
 * Lane i is (e, o): its 32 even and 32 odd bits (ASCON_INTERLEAVED in ascon.h). A 64-bit rotation is
 * then two 32-bit rotations, the free ROR of an EOR's second operand: Si ^= (Si >>> a) ^ (Si >>> b) is
 * four EORs a lane. One word of each lane goes to the free register, the other is updated in place,
 * and the lane's old register becomes the next lane's free one (the register map rotates; MOVs undo
 * it once per call). S-box: 15 instructions a 32-bit word (ORN, BIC; its outputs change registers too).
 * A round: 2 (constant) + 30 + 20 = 52 single-cycle instructions, no data-dependent timing: constant time.
 * Register map at entry and exit of the rounds: S0..S4 = (r1, r2), (r3, r4), ..., (r9, r10); the four
 * other registers of r0-r12, lr are the temporaries (the return address waits on the stack). */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
"""


def main() -> None:
    order = best_order()
    g = Gen(order)
    body: list[str] = []
    m4 = None
    for i, c in enumerate(CONSTANTS):
        if i == 4:
            m4 = dict(g.m)
            g.out.append(".Lascon_bi32_round4:")
        g.round(c)
    back = moves(g.m, M0)
    print(HEADER)
    print(f"/* Lane order of the linear layer: {order}. */")
    print("    .section .text.ascon_rounds_armv7m_bi32, \"ax\", %progbits")
    print("    .align 2")
    print("    .thumb_func")
    print(".Lascon_bi32_p8:                        @ Ascon-p[8]: enter the rotation of round 4")
    print("    str     lr, [sp, #-4]!")
    for mv in moves(M0, m4):
        print("    " + mv)
    print("    b       .Lascon_bi32_round4")
    print("    .thumb_func")
    print(".Lascon_bi32_p12:                       @ Ascon-p[12]")
    print("    str     lr, [sp, #-4]!")
    print("\n".join(g.out))
    print("    @ back to the entry register map")
    for mv in back:
        print("    " + mv)
    print("    ldr     pc, [sp], #4")
    print("""
    .global MCU_FN(ascon, permute)
    .thumb_func
    .type MCU_FN(ascon, permute), %function
MCU_FN(ascon, permute):
    push    {r0, r4-r11, lr}
    mov     r12, r1
    ldm     r0, {r1-r10}
    cmp     r12, #8
    beq     1f
    bl      .Lascon_bi32_p12
    b       2f
1:  bl      .Lascon_bi32_p8
2:  ldr     r0, [sp], #4
    stm     r0, {r1-r10}
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, permute), . - MCU_FN(ascon, permute)

    .global MCU_FN(ascon, absorb8)
    .thumb_func
    .type MCU_FN(ascon, absorb8), %function
MCU_FN(ascon, absorb8):
    push    {r0-r2, r4-r11, lr}         @ [sp] state pointer, [sp+4] input, [sp+8] blocks left
    ldm     r0, {r1-r10}
1:  ldr     r12, [sp, #4]
    ldr     r0, [r12]                   @ block, low word (LDR takes unaligned addresses)
    ldr     r11, [r12, #4]              @ block, high word
    add     r12, r12, #8
    str     r12, [sp, #4]""")
    for line in to_bi("r0", "r11", "r12"):
        print("    " + line)
    print("""    eor     r1, r1, r0
    eor     r2, r2, r11
    bl      .Lascon_bi32_p12
    ldr     r12, [sp, #8]
    subs    r12, r12, #1
    str     r12, [sp, #8]
    bne     1b
    ldr     r0, [sp]
    stm     r0, {r1-r10}
    add     sp, sp, #12
    pop     {r4-r11, pc}
    .size MCU_FN(ascon, absorb8), . - MCU_FN(ascon, absorb8)""")
    print(aead_loops())
    print(conversions())


if __name__ == "__main__":
    main()
