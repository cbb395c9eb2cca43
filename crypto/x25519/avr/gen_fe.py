#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates fe_avr.S, the X25519 field arithmetic of avr-fast (ATmega128); run from anywhere:

    python3 crypto/x25519/avr/gen_fe.py           # rewrites fe_avr.S beside this script
    python3 crypto/x25519/avr/gen_fe.py --check   # exit 1 if fe_avr.S is out of date

Straight-line code, no branch at all (the only control flow is call and return), fixed addresses:
constant time on the AVR, whose MUL takes 2 cycles for every operand and whose SRAM has no cache.
The routines and their techniques are described in the header the script writes (HEADER below).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "mpmul" / "avr"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)
# mpmul avr-kara's 128x128-bit product (one level of subtractive Karatsuba over its in-register K64
# kernel), emitted once into fe_avr.S as a local routine: Gen (its emitter) and gen_mul128.
import gen_mpmul_avr as MP  # noqa: E402
from gen_mpmul_avr import ZR, Gen as MpGen, gen_mul128  # noqa: E402

HERE = Path(__file__).resolve().parent

# cycles per mnemonic on the ATmega128 (datasheet instruction set summary; SRAM access 2 cycles);
# everything else 1. gen_inv.py counts with the same table (MULS/MULSU and the jumps are its own).
CYC = {"mul": 2, "muls": 2, "mulsu": 2, "ld": 2, "ldd": 2, "st": 2, "std": 2, "push": 2, "pop": 2,
       "ret": 4, "adiw": 2, "sbiw": 2, "jmp": 3, "rjmp": 2, "rcall": 3, "call": 4}

SPL, SPH, SREG = "0x3d", "0x3e", "0x3f"


class Asm:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cycles = 0

    def __call__(self, ins: str, comment: str = "") -> None:
        mnem = ins.split()[0]
        self.cycles += CYC.get(mnem, 1)
        self.lines.append(f"    {ins:<28}; {comment}" if comment else f"    {ins}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def note(self, text: str) -> None:
        self.lines.append(f"    ; {text}")


def begin(name: str) -> list[str]:
    sym = f"MCU_FN(x25519, {name})"
    return ["", f"    .section .text.{name}, \"ax\", @progbits", f"    .global {sym}", f"    .type {sym}, @function",
            f"{sym}:"]


def end(name: str) -> list[str]:
    sym = f"MCU_FN(x25519, {name})"
    return [f"    .size {sym}, . - {sym}"]


SAVED = [f"r{i}" for i in range(2, 18)] + ["r28", "r29"]
A = [f"r{i}" for i in range(2, 10)]       # 8 bytes of the left operand (one row block)
W = [f"r{i}" for i in range(10, 18)]      # sliding window of 8 bytes of the right operand
ZERO = "r21"
T = "r22"
C38 = "r23"


def frame_enter(a: Asm, size: int, save: bool = True) -> None:
    """Save r2..r17, Y (save); size bytes of stack, Y = its first byte F."""
    for r in SAVED if save else []:
        a(f"push {r}")
    a(f"in r28, {SPL}")
    a(f"in r29, {SPH}")
    a(f"subi r28, {size}", f"SP -= {size}")
    a("sbci r29, 0")
    a(f"in r0, {SREG}")
    a("cli", "SP written with interrupts off")
    a(f"out {SPH}, r29")
    a(f"out {SREG}, r0")
    a(f"out {SPL}, r28")
    a("adiw r28, 1", "Y = the product t[0..63] (SP + 1)")


def frame_leave(a: Asm, size: int, yoff: int = 0, save: bool = True) -> None:
    """Free the frame and restore the saved registers (save); Y = F + yoff on entry; r1 = 0."""
    a(f"subi r28, lo8(-{size - 1 - yoff})", f"SP back: Y - 1 - {yoff} + {size}")
    a(f"sbci r29, hi8(-{size - 1 - yoff})")
    a(f"in r0, {SREG}")
    a("cli")
    a(f"out {SPH}, r29")
    a(f"out {SREG}, r0")
    a(f"out {SPL}, r28")
    for r in reversed(SAVED) if save else []:
        a(f"pop {r}")
    a("clr r1", "the ABI's zero register")
    a("ret")


# A core's frame is its caller's: the core finds it at F = SP + 1 on entry (F[0..RET) its own return
# address, then two bytes its caller keeps for itself, the core's data from F + CORE_DATA on), so that
# the ladder step, which calls the cores nine times, allocates it once instead of once per call. The
# caller reserves CALLER_RESERVE bytes from its own SP + 1 (below its return address, if any).
# RET, the return address a CALL pushes, is 2 bytes on the ATmega128 and ATmega1284P but 3 on the
# ATmega2560 (a 17-bit word PC), so F moves down by one there and the caller's two bytes (the ladder
# step's st) are F[3..5): the core's data starts at F + 5 on every part (one byte unused where RET is
# 2). The first version started it at F + 4, which on the 2560 is the high byte of st: the ladder step
# lost its state pointer after its first product (docs/x25519.md, "The ATmega2560").
MAX_RET_BYTES = 3
CORE_DATA = MAX_RET_BYTES + 2


def core_enter(a: Asm) -> None:
    """Y = F: the frame its caller reserved (no allocation)."""
    a(f"in r28, {SPL}")
    a(f"in r29, {SPH}")
    a("adiw r28, 1", "Y = F = SP + 1 (the caller's frame)")


def wrapper(name: str, core: str) -> tuple[list[str], int]:
    """The exported C entry of a core that saves no register: push, the core's frame, RCALL, pop."""
    a = Asm()
    for r in SAVED:
        a(f"push {r}")
    a(f"in r28, {SPL}")
    a(f"in r29, {SPH}")
    a(f"subi r28, {CALLER_RESERVE}", f"SP -= {CALLER_RESERVE}: the core's frame")
    a("sbci r29, 0")
    for ins in ("in r0, 0x3f", "cli", "out 0x3e, r29", "out 0x3f, r0", "out 0x3d, r28"):
        a(ins)
    a(f"rcall {core}", "clobbers r0..r31 but for r2 = 0 ... r1 = 0 on return")
    a(f"in r28, {SPL}")
    a(f"in r29, {SPH}")
    a(f"subi r28, lo8(-{CALLER_RESERVE})")
    a(f"sbci r29, hi8(-{CALLER_RESERVE})")
    for ins in ("in r0, 0x3f", "cli", "out 0x3e, r29", "out 0x3f, r0", "out 0x3d, r28"):
        a(ins)
    for r in reversed(SAVED):
        a(f"pop {r}")
    a("ret")
    return a.lines, a.cycles


def absdiff(a: Asm, src: str, mask: str, first: int = 2, tmp: str = T) -> None:
    """r<first>.. (16 registers) = |x_lo - x_hi| of the 32 bytes at src (X or Z, post-increment),
    mask = 0xff if x_lo < x_hi else 0: the difference, its borrow as a mask (SBC m, m), then
    (d ^ m) - m."""
    R = [f"r{i}" for i in range(first, first + 16)]
    for k in range(16):
        a(f"ld {R[k]}, {src}+", f"x[{k}]")
    for k in range(16):
        a(f"ld {tmp}, {src}+", f"x[{16 + k}]")
        a(f"{'sub' if k == 0 else 'sbc'} {R[k]}, {tmp}")
    a(f"sbc {mask}, {mask}", "the borrow as a mask")
    for k in range(16):
        a(f"eor {R[k]}, {mask}")
    for k in range(16):
        a(f"{'sub' if k == 0 else 'sbc'} {R[k]}, {mask}", "+1 if negative")


def mul128_routine() -> tuple[list[str], str, int]:
    """mpmul avr-kara's mul128 as a local routine: its lines, its label and its cycles (ret included).
    Contract (gen_mpmul_avr.py): r[0..32) = a[0..16) b[0..16) with X = r, Y = a, Z = b; r2 must be 0
    and stays 0; clobbers r0, r1, r3..r31 (X and Y too)."""
    g = MpGen()
    cycles = gen_mul128(g)
    label = next(l[:-1] for l in g.lines if l.endswith(":") and not l.startswith((" ", "/", "\t")))
    return g.lines, label, cycles


# fe_mul's frame (offsets from F = SP + 1): the pointers r, a, b; the Karatsuba sign; |a_l - a_h|,
# |b_l - b_h| (16 bytes each, mul128's operands for M); the product t (64 bytes)
FM_PTR, FM_SIGN, FM_DA, FM_DB, FM_T = CORE_DATA, CORE_DATA + 6, CORE_DATA + 7, CORE_DATA + 23, CORE_DATA + 39
FM_FRAME = FM_T + 64


def karatsuba(a: Asm, mul128: str) -> None:
    """t = a b (512 bits) by one level of subtractive Karatsuba over mul128 (three RCALLs): L = a_l b_l
    and H = a_h b_h into t, |a_l - a_h| and |b_l - b_h| with their borrows as masks ((d ^ m) - m, no
    branch) into the frame, M = |a_l - a_h| |b_l - b_h| into r (a and b are dead by then, so r may
    alias them), then t += 2^128 (L + H -+ M) in one pass (the sign of M from the two borrow masks;
    -M as ~M + 1 with the sign extended), which keeps the old t[16..31] in r2..r17 where the pass
    overwrites them before it reads them as L[16..31]. The reduction is fused into that pass: once
    t[32 + j] is final (in a register), r_j = t[j] + 38 t[32 + j] + carry right away (reduce_step),
    r_0..15 into r2..r17 as their L[16..31] are used up; then reduce_fold. On entry Y = F."""
    R = [f"r{i}" for i in range(2, 18)]
    q = "r23"
    for k, r in enumerate(("r24", "r25", "r22", "r23", "r20", "r21")):
        a(f"std Y+{FM_PTR + k}, {r}", ("r", "a", "b")[k // 2] + " pointer, kept for after the calls")
    a("clr r2", "mul128's zero register")
    a("movw r26, r28", "X = t")
    a(f"adiw r26, {FM_T}")
    a("movw r28, r22", "Y = a")
    a("movw r30, r20", "Z = b")
    a.note("L = a_l b_l -> t[0..31]")
    a(f"rcall {mul128}")
    a(f"in r30, {SPL}", "Z = F - 1")
    a(f"in r31, {SPH}")
    a(f"ldd r28, Z+{FM_PTR + 3}", "Y = a + 16")
    a(f"ldd r29, Z+{FM_PTR + 4}")
    a(f"ldd r0, Z+{FM_PTR + 5}", "Z = b + 16")
    a(f"ldd r31, Z+{FM_PTR + 6}")
    a("mov r30, r0")
    a("adiw r28, 16")
    a("adiw r30, 16")
    a(f"in r26, {SPL}", "X = t + 32")
    a(f"in r27, {SPH}")
    a(f"subi r26, lo8(-{FM_T + 33})")
    a(f"sbci r27, hi8(-{FM_T + 33})")
    a.note("H = a_h b_h -> t[32..63]")
    a(f"rcall {mul128}")
    a(f"in r28, {SPL}", "Y = F - 1")
    a(f"in r29, {SPH}")
    # |a_l - a_h| in r4..r19 and |b_l - b_h| in r12..r27, each stored into the frame, so that their
    # low halves are in mul128's operand registers (r4..r11, r12..r19) for its mul128_regs entry
    for name, ptr, src, dst, mask, first in (("a", "X", FM_PTR + 2, FM_DA, "r1", 4), ("b", "Z", FM_PTR + 4, FM_DB, "r3", 12)):
        a(f"ldd r{26 if ptr == 'X' else 30}, Y+{src + 1}", f"{ptr} = {name}")
        a(f"ldd r{27 if ptr == 'X' else 31}, Y+{src + 2}")
        absdiff(a, ptr, mask, first, "r0")
        for k in range(16):
            a(f"std Y+{dst + 1 + k}, r{first + k}", f"d{name}[{k}]")
    a("eor r1, r3", "signs differ: 0xff ...")
    a("com r1", "q = 0xff: the middle term takes -M, q = 0: +M")
    a(f"std Y+{FM_SIGN + 1}, r1")
    a(f"ldd r26, Y+{FM_PTR + 1}", "X = r")
    a(f"ldd r27, Y+{FM_PTR + 2}")
    a("movw r30, r28", "Z = |b_l - b_h|")
    a(f"adiw r30, {FM_DB + 1}")
    a(f"adiw r28, {FM_DA + 1}", "Y = |a_l - a_h|")
    a("clr r2")
    a.note("M = |a_l - a_h| |b_l - b_h| -> r[0..31], entered with their low halves in registers")
    a(f"rcall {mul128}_regs")
    a(f"in r28, {SPL}", "Y = F - 1")
    a(f"in r29, {SPH}")
    a(f"ldd {q}, Y+{FM_SIGN + 1}")
    a(f"ldd r30, Y+{FM_PTR + 1}", "Z = M = r")
    a(f"ldd r31, Y+{FM_PTR + 2}")
    a(f"adiw r28, {FM_T + 1}", "Y = t")
    a("movw r26, r30", "X = r (for the end)")
    recombine_reduce(a, q, False)


def recombine_reduce(a: Asm, q: str, minus: bool) -> None:
    """r = (t + 2^128 (L + H -+ M)) mod p, below 2^256, where t = L + 2^256 H at Y (L, H 32 bytes each)
    and M at Z = r; q = 0xff when the middle term takes -M, 0 when +M (minus: always -M). In 16-byte
    halves (B = 2^8), -M = (M ^ q) + (q & 1) with the sign q at B^48, T = L1 + H0 (carry cT):
        V1 = L0 + T + (M0 ^ q) + (q & 1)           -> t[16..32)   chains a, b
        V2 = T + H1 + (M1 ^ q) + cT + carries       (registers)    chains a, b, c
        e = q + cT + carries in [0, 4], t's top half V3 = H1 + e
        r0 = L0 + 38 V2 + 19 U (in the registers of V2),  r1 = V1 + 38 H1 + 38 e + carry (to r[16..32))
    e >= 0: V1 + B^16 V2 + B^32 e = L0 + T + B^16 (T + H1) -+ M = (L + H -+ M) + L1 + B^16 H0; so
    38 V3 = 38 H1 + 38 e with 38 e < 153 added to the carry into r1 (< 192; the chain's carries stay
    below 40 after its first byte). r's multiple of 2^255, U, is taken first ("top first", no fold
    pass after the chains): byte 31 of r is S = X + c, X = V1[15] + 38 H1[15] (< 2^14), c < 40 the
    carry into it; U = X >> 7 (< 78), 19 U enters r0 at bytes 0, 1, and byte 31 keeps S - 128 U =
    (X mod 128) + c < 167: the chain's byte XOR (X & 0x80), its carry out dropped (it is in U). r < 2^256 without a second pass. With minus (fe_sqr), M is taken off by borrow
    chains instead (no q, no XOR): e = cT + carries - borrow. The
    chains run over 4-byte chunks; a chain's carry waits in its own register between them (LSR f
    restores it and clears f, ADC f, zero saves it). Y = t, Z = r on entry."""
    R = R16
    ZR_, C38_, Q, FA, FB, FC = "r18", "r19", "r20", "r21", "r22", "r23"
    W = ["r24", "r25", "r26", "r27"]
    E, CR, V, D = "r24", "r25", "r26", "r27"
    a(f"clr {ZR_}")
    a(f"ldi {C38_}, 38")
    if minus:
        pass                            # -M by borrow chains: no q
    elif q != Q:
        a(f"mov {Q}, {q}")
    a.note("T = L1 + H0 -> r2..r17, its carry cT")
    for k in range(16):
        a(f"ldd {R[k]}, Y+{16 + k}", f"L[{16 + k}]")
    for k in range(16):
        a(f"ldd r0, Y+{32 + k}", f"H[{k}]")
        a(f"{'add' if k == 0 else 'adc'} {R[k]}, r0")
    a(f"clr {FC}")
    a(f"adc {FC}, {ZR_}", "cT")
    a(f"clr {FA}")
    if minus:
        a(f"clr {FB}")
    else:
        a(f"mov {FB}, {Q}")
        a(f"andi {FB}, 1", "the +1 of -M")
    a.note("V1 = L0 + T - M0 -> t[16..32) (M by a borrow chain)" if minus else
           "V1 = L0 + T + (M0 ^ q) + (q & 1) -> t[16..32)")

    def m_chunk(regs: list[str], off: int) -> None:
        """Chain b: regs -= M[off..] (minus: a borrow chain) or += M ^ q (a carry chain), 4 bytes."""
        a(f"lsr {FB}")
        for i, reg in enumerate(regs):
            a(f"ldd r0, Z+{off + i}", f"M[{off + i}]")
            if minus:
                a(f"sbc {reg}, r0")
            else:
                a(f"eor r0, {Q}")
                a(f"adc {reg}, r0")
        a(f"adc {FB}, {ZR_}", "the borrow, parked" if minus else "")
    for c in range(0, 16, 4):
        for i in range(4):
            a(f"ldd {W[i]}, Y+{c + i}", f"L[{c + i}]")
        a(f"lsr {FA}")
        for i in range(4):
            a(f"adc {W[i]}, {R[c + i]}")
        a(f"adc {FA}, {ZR_}")
        m_chunk(W, c)
        for i in range(4):
            a(f"std Y+{16 + c + i}, {W[i]}", f"V1[{c + i}]")
    a(f"mov {E}, {FC}", "cT again at B^48")
    a.note("V2 = T + H1 + (M1 ^ q) + cT + the carries of V1, in r2..r17")
    for c in range(0, 16, 4):
        a(f"lsr {FA}")
        for i in range(4):
            a(f"ldd r0, Y+{48 + c + i}", f"H[{16 + c + i}]")
            a(f"adc {R[c + i]}, r0")
        a(f"adc {FA}, {ZR_}")
        m_chunk(R[c:c + 4], 16 + c)
        a(f"lsr {FC}")
        for i in range(4):
            a(f"adc {R[c + i]}, {ZR_}")
        a(f"adc {FC}, {ZR_}")
    if minus:
        a(f"add {E}, {FA}", "e = cT + the carries of V2 - its borrow: V3 = H1 + e")
        a(f"sub {E}, {FB}")
    else:
        a(f"add {E}, {Q}", "e = q + cT + the carries of V2: V3 = H1 + e")
        a(f"add {E}, {FA}")
        a(f"add {E}, {FB}")
    a(f"add {E}, {FC}", "e in [0, 4] (see above)")
    a(f"mul {E}, {C38_}")
    a(f"mov {E}, r0", "38 e (< 153): V3 = H1 + e is never formed, 38 e joins the carry into r1")
    MK, F19 = "r20", ["r26", "r27"]
    a.note("top first: r's multiple of 2^255, U, from its top byte before any chain: S = V1[15] +")
    a.note("38 H1[15] + (carry < 40)")
    a(f"ldd {V}, Y+63", "H1[15]")
    a(f"mul {V}, {C38_}")
    a(f"ldd {D}, Y+31", "V1[15]")
    a(f"add r0, {D}")
    a(f"adc r1, {ZR_}", "X = V1[15] + 38 H1[15] (< 2^14)")
    a(f"mov {MK}, r0")
    a(f"andi {MK}, 0x80", "byte 31's fix: XOR (X & 0x80)")
    a("lsl r0")
    a("rol r1", "U = X >> 7 (< 78)")
    a(f"ldi {D}, 19")
    a(f"mul r1, {D}")
    a(f"movw {F19[0]}, r0", "19 U (< 2^11), added to r at bytes 0, 1")
    a.note("r[0..16) = L0 + 38 V2 + 19 U, in r2..r17 (V2's byte is dead once multiplied)")
    for k in range(16):
        a(f"mul {R[k]}, {C38_}", f"38 V2[{k}]")
        a(f"ldd {R[k]}, Y+{k}", f"L[{k}]")
        a(f"add {R[k]}, r0")
        a(f"adc r1, {ZR_}")
        if k > 0:
            a(f"add {R[k]}, {CR}")
            a(f"adc r1, {ZR_}")
        if k < 2:
            a(f"add {R[k]}, {F19[k]}", "19 U")
            a(f"adc r1, {ZR_}")
        a(f"mov {CR}, r1")
    a.note("r[16..32) = V1 + 38 H1 + (38 e + the carry of r0: < 192, then < 40)")
    a(f"add {CR}, {E}")
    for k in range(16):
        a(f"ldd {V}, Y+{48 + k}", f"H[{16 + k}]")
        a(f"mul {V}, {C38_}", f"38 H1[{k}]")
        a(f"ldd {D}, Y+{16 + k}", f"V1[{k}]")
        a(f"add {D}, r0")
        a(f"adc r1, {ZR_}")
        a(f"add {D}, {CR}")
        a(f"adc r1, {ZR_}")
        if k < 15:
            a(f"mov {CR}, r1")
        else:
            a(f"eor {D}, {MK}", "byte 31 less U 2^255 (the carry out is in U too)")
        a(f"std Z+{16 + k}, {D}", f"r[{16 + k}]")
    for k in range(16):
        a(f"std Z+{k}, {R[k]}", f"r[{k}]")


R16 = [f"r{i}" for i in range(2, 18)]


def fe_mul() -> tuple[list[str], int]:
    lines128, label, c128 = mul128_routine()
    a = Asm()
    core_enter(a)
    karatsuba(a, label)
    a("clr r1", "the ABI's zero register")
    a("ret")
    a.cycles += 3 * c128 - MP.MUL128_REGS_SKIPS   # the three calls of mul128 (RCALLs counted above)
    wl, wc = wrapper("fe_mul", FE_MUL_CORE)
    body = wl + ["", f"    /* {FE_MUL_CORE} (local): fe_mul without saving registers (r24 = r, r22 = a, r20 = b;",
                 "       clobbers r0..r31, r1 = 0 on return): the ladder step calls it directly */",
                 f"{FE_MUL_CORE}:"] + a.lines
    body += ["", f"    /* {label} (local, mpmul avr-kara's gen_mul128): r[0..32) = a[0..16) b[0..16),"
             "       X = r, Y = a, Z = b; r2 = 0 kept; clobbers r0, r1, r3..r31 */"] + lines128
    CORE_CYCLES["fe_mul"] = a.cycles
    return begin("fe_mul") + body + end("fe_mul"), wc + a.cycles


FE_MUL_CORE, FE_SQR_CORE = "x25519_avr_fe_mul_core", "x25519_avr_fe_sqr_core"
CORE_CYCLES: dict[str, int] = {}


def s64_keep(g: MpGen, x: list[int], pool: list[int]) -> tuple[list[int], list[int]]:
    """x^2 for the 8 bytes in registers x, the 16 result bytes left in registers (returned with the
    registers still free; x is kept). Only the 28 cross products x_i x_j, i < j, are multiplied, by
    product scanning (MUL, ADD, ADC, ADC into a 3-byte column sum; the finished byte keeps its
    register and a pool register becomes the sum's new top): C = sum x_i x_j B^(i+j) < 2^127 in bytes
    1..15; then 2C (one LSL/ROL chain) and S = sum x_i^2 B^(2i), the 8 squares, whose 16-bit results do
    not overlap: each added as two bytes, the carry between them kept in a register across the MUL
    (which sets C): LSR sv restores it, ROL sv saves the next. 36 MULs."""
    pool = list(pool)
    out: dict[int, int] = {}
    c = [pool.pop(0) for _ in range(3)]
    bound = 0                                  # the column sum's largest value so far
    for k in range(1, 14):
        pairs = [(i, k - i) for i in range(8) if i < k - i <= 7]
        for n, (i, j) in enumerate(pairs):
            g.e(f"mul r{x[i]}, r{x[j]}")
            bound += 255 * 255
            if k == 1:
                g.e(f"mov r{c[0]}, r0")
                g.e(f"mov r{c[1]}, r1")
                g.e(f"clr r{c[2]}")
                continue
            g.e(f"add r{c[0]}, r0")
            g.e(f"adc r{c[1]}, r1")
            if bound >= 1 << 16:               # below 2^16 the third byte cannot receive a carry
                g.e(f"adc r{c[2]}, r{ZR}")
        bound >>= 8
        out[k] = c[0]
        if k == 13:
            out[14], out[15] = c[1], c[2]
        else:
            c = [c[1], c[2], pool.pop(0)]
            g.e(f"clr r{c[2]}")
    g.e(f"lsl r{out[1]}")                      # 2C: the cross products count twice
    for k in range(2, 16):
        g.e(f"rol r{out[k]}")
    out[0] = pool.pop(0)
    sv = pool[0]
    for i in range(8):
        g.e(f"mul r{x[i]}, r{x[i]}")
        if i == 0:
            g.e(f"mov r{out[0]}, r0")
            g.e(f"add r{out[1]}, r1")
            g.e(f"clr r{sv}")                  # CLR (EOR) keeps the carry
        else:
            g.e(f"lsr r{sv}")                  # C = the carry into byte 2i, sv = 0
            g.e(f"adc r{out[2 * i]}, r0")
            g.e(f"adc r{out[2 * i + 1]}, r1")
        if i < 7:
            g.e(f"rol r{sv}")
    return [out[k] for k in range(16)], pool


def gen_sqr128(g: MpGen, label: str) -> int:
    """Local routine: r[0..32) = a[0..16)^2 with X = r, Y = a: one level of Karatsuba over s64_keep:
    L = a_l^2 and H = a_h^2 stored (ST X+), |a_l - a_h| in place, M = |a_l - a_h|^2 kept in registers,
    then mpmul's combine_regs with n = 0xff (the middle term is always L + H - M, no sign to track).
    Keeps r2 (zero); clobbers r0, r1, r3..r31."""
    start = g.cycles
    g.label(f"{label}:")
    A8 = list(range(4, 12))
    skip = 0
    for half in (0, 1):
        g.comment(("L = a_l^2 -> r[0..16)", "H = a_h^2 -> r[16..32)")[half])
        for i in range(8):
            g.e(f"ldd r{A8[i]}, Y+{8 * half + i}")
        if half == 0:
            g.label(f"{label}_regs:   /* the same with a_l's low 8 bytes already in r4..r11 */")
            skip = g.cycles - start
        out, _ = s64_keep(g, A8, [3] + list(range(12, 26)) + [30, 31])
        for r in out:
            g.e(f"st X+, r{r}")
    g.comment("|a_h - a_l| in place (the operand registers still hold a_h)")
    g.absdiff_inplace(A8, "Y", 0, 3)
    g.e("movw r30, r26")
    g.e("sbiw r30, 32")                        # Z = r
    g.comment("M = |a_l - a_h|^2 in registers")
    M, _ = s64_keep(g, A8, list(range(12, 30)))
    g.e("clr r3")
    g.e("com r3")                              # n = 0xff: the middle term is L + H - M
    g.comment("r += B^8 (L + H - M)")
    g.combine_regs(M, A8, "Z", 3, ct=1)
    g.e("ret")
    SQR128_REGS_SKIPS[0] = skip
    return g.cycles - start


SQR128_REGS_SKIPS = [0]   # cycles the sqr128_regs entry skips (set by gen_sqr128)
# fe_sqr's frame (offsets from F = SP + 1): the pointers r, a; |a_l - a_h|; the product t
FS_PTR, FS_DA, FS_T = CORE_DATA, CORE_DATA + 4, CORE_DATA + 20
FS_FRAME = FS_T + 64
# what a core's caller reserves from its SP + 1: the larger core frame less the core's return address
# (at least 2 bytes: the reserve is enough for 3 too)
CALLER_RESERVE = max(FM_FRAME, FS_FRAME) - 2


def fe_sqr() -> tuple[list[str], int]:
    """t = a^2 by one level of Karatsuba over sqr128 (three RCALLs: a_l^2, a_h^2, |a_l - a_h|^2), then
    the recombination with the fused reduction as in fe_mul, the middle term always L + H - M."""
    label = "x25519_avr_sqr128"
    g = MpGen()
    c128 = gen_sqr128(g, label)
    a = Asm()
    core_enter(a)
    for k, r in enumerate(("r24", "r25", "r22", "r23")):
        a(f"std Y+{FS_PTR + k}, {r}", ("r", "a")[k // 2] + " pointer, kept for after the calls")
    a("clr r2", "sqr128's zero register")
    a("movw r26, r28", "X = t")
    a(f"adiw r26, {FS_T}")
    a("movw r28, r22", "Y = a")
    a.note("L = a_l^2 -> t[0..31]")
    a(f"rcall {label}")
    a(f"in r30, {SPL}", "Z = F - 1")
    a(f"in r31, {SPH}")
    a(f"ldd r28, Z+{FS_PTR + 3}", "Y = a + 16")
    a(f"ldd r29, Z+{FS_PTR + 4}")
    a("adiw r28, 16")
    a("movw r26, r30", "X = t + 32")
    a(f"adiw r26, {FS_T + 33}")
    a.note("H = a_h^2 -> t[32..63]")
    a(f"rcall {label}")
    a(f"in r28, {SPL}", "Y = F - 1")
    a(f"in r29, {SPH}")
    a(f"ldd r26, Y+{FS_PTR + 3}", "X = a")
    a(f"ldd r27, Y+{FS_PTR + 4}")
    absdiff(a, "X", "r1", 4, "r0")           # in r4..r19: the low 8 bytes in sqr128's operand registers
    for k in range(16):
        a(f"std Y+{FS_DA + 1 + k}, r{4 + k}", f"da[{k}]")
    a(f"ldd r26, Y+{FS_PTR + 1}", "X = r (a is dead)")
    a(f"ldd r27, Y+{FS_PTR + 2}")
    a(f"adiw r28, {FS_DA + 1}", "Y = |a_l - a_h|")
    a("clr r2")
    a.note("M = |a_l - a_h|^2 -> r[0..31], entered with its low 8 bytes in r4..r11")
    a(f"rcall {label}_regs")
    a(f"in r28, {SPL}", "Y = F - 1")
    a(f"in r29, {SPH}")
    a(f"ldd r30, Y+{FS_PTR + 1}", "Z = M = r")
    a(f"ldd r31, Y+{FS_PTR + 2}")
    a(f"adiw r28, {FS_T + 1}", "Y = t")
    a("movw r26, r30", "X = r (for the end)")
    recombine_reduce(a, "r23", True)
    a("clr r1", "the ABI's zero register")
    a("ret")
    a.cycles += 3 * c128 - SQR128_REGS_SKIPS[0]   # the three calls of sqr128 (RCALLs counted above)
    wl, wc = wrapper("fe_sqr", FE_SQR_CORE)
    CORE_CYCLES["fe_sqr"] = a.cycles
    body = wl + ["", f"    /* {FE_SQR_CORE} (local): fe_sqr without saving registers (r24 = r, r22 = a;",
                 "       clobbers r0..r31, r1 = 0 on return): the ladder step calls it directly */",
                 f"{FE_SQR_CORE}:"] + a.lines + ["", f"    /* {label} (local): r[0..32) = a[0..16)^2, X = r, Y = a; r2 = 0 kept;",
                      "       clobbers r0, r1, r3..r31 */"] + g.lines
    return begin("fe_sqr") + body + end("fe_sqr"), wc + a.cycles


def fe_cswap2() -> tuple[list[str], int]:
    """Swap 64 bytes at x and y when swap = 1: t = (x ^ y) & mask, mask = -swap (0 or 0xff)."""
    a = Asm()
    a("movw r26, r24", "X = x")
    a("movw r30, r22", "Z = y")
    a("neg r18", "mask = -swap: 0 or 0xff")
    for k in range(64):
        a("ld r0, X")
        a("ld r19, Z")
        a("mov r20, r0")
        a("eor r20, r19")
        a("and r20, r18")
        a("eor r0, r20")
        a("eor r19, r20")
        a("st X+, r0")
        a("st Z+, r19")
    a("ret")
    return begin("fe_cswap2") + a.lines + end("fe_cswap2"), a.cycles


# The ladder step's frame (offsets from F = SP + 1): the pointer st, the temporaries a and b
# (F + 2 .. F + CALLER_RESERVE - 1 is the cores' frame, shared by the nine calls; st at F + 0 is
# where a core's frame has two bytes for its caller)
LS_ST, LS_A = 0, CALLER_RESERVE
LS_B = LS_A + 32
LS_FRAME = LS_B + 32
# st = x1 | x2 | z2 | x3 | z3, 32 bytes each
X1, X2, Z2, X3, Z3 = 0, 32, 64, 96, 128
# the loop body of ref/ladder.c: (operation, r, a, b); ("st", off) a byte of st, ("F", off) of the frame
# the rest of the loop body of ref/ladder.c after swap_abcd (which leaves A in x3, B in z3, C in x2,
# D in z2): (operation, r, a, b), ("st", off) a byte of st, ("F", off) of the frame. A^2 and B^2 are
# taken before x3 and z3 receive DA + CB and DA - CB.
STEP = [("fe_mul", ("st", Z2), ("st", Z2), ("st", X3)),       # DA = D A
        ("fe_mul", ("st", X2), ("st", X2), ("st", Z3)),       # CB = C B
        ("fe_sqr", ("F", LS_A), ("st", X3), None),            # AA
        ("fe_sqr", ("F", LS_B), ("st", Z3), None),            # BB
        ("sum_diff", None, None, None),                       # x3, z3 = DA + CB, DA - CB
        ("fe_sqr", ("st", X3), ("st", X3), None),             # x3 = (DA + CB)^2
        ("fe_sqr", ("st", Z3), ("st", Z3), None),
        ("fe_mul", ("st", Z3), ("st", Z3), ("st", X1)),       # z3 = x1 (DA - CB)^2
        ("e_a24", None, None, None),                          # x2 = E = AA - BB, z2 = AA + a24 E
        ("fe_mul", ("st", Z2), ("st", Z2), ("st", X2)),       # z2 = E (AA + a24 E)
        ("fe_mul", ("st", X2), ("F", LS_A), ("F", LS_B))]     # x2 = AA BB


def swap_abcd(a: Asm) -> None:
    """The step's conditional swap and its four first sums in one pass, Y = st + 32 (x2 at Y+k, z2 at
    Y+32+k), Z = st + 96 (x3, z3 likewise), r20 the swap bit: A = x2 + z2, B = x2 - z2, C = x3 + z3,
    D = x3 - z3 (after the swap), each mod p and below 2^256 in one carry chain, top first (no fold
    pass): the top bytes are loaded and swapped first, and the multiple of 2^255 is taken from them
    before the chain starts.
      sum: s = x31 + z31 (9 bits), T = s >> 7; r = x + z - T 2^255 + 19 T: byte 31 keeps (s & 0x7f)
        plus the carry from below (at most 2), i.e. the chain's byte 31 XOR (s & 0x80); 19 T enters at
        byte 0.
      difference: h = x31 - z31 mod 256, n its borrow; r = x - z + 2^256 - T 2^255 + 19 T - 38 + p
        with T = (h >> 7) + 2 (1 - n): byte 31 keeps (h & 0x7f) + 128 minus the borrow from below
        (at most 2), i.e. the chain's byte 31 XOR (~h & 0x80); 19 g, g = 1 - (h >> 7) + 2 n = 3 - T,
        leaves at byte 0 (r >= 126 2^248, never negative).
    Byte by byte (2 at a time) x2, z2, x3, z3 are loaded, swapped in registers (t = (x ^ y) & m,
    m = -swap) and the four chains run, each carrying a value f in 0..2 between the 2-byte chunks
    (19 T, 19 g at first): lo:hi += f (its carry saved in f), then lo:hi += z (its carry added to f).
    A, B, C, D are written over x3, z3, x2, z2 (each byte after it was read). Registers: r2 zero, r3
    m, r4..r7 the carries of A, B, C, D, r8..r15 x2, z2, x3, z3 (2 bytes each; B, D formed in place),
    r16..r19 the A and C copies, r20 t, r21..r24 the byte-31 masks of A, B, C, D, r25 the constant
    19, r26, r27 scratch."""
    zr, m, t = "r2", "r3", "r20"
    fa, fb, fc, fd = "r4", "r5", "r6", "r7"
    x2, z2, x3, z3 = ["r8", "r9"], ["r10", "r11"], ["r12", "r13"], ["r14", "r15"]
    ca, cc = ["r16", "r17"], ["r18", "r19"]
    ma, mb, mc, md, c19, s, h = "r21", "r22", "r23", "r24", "r25", "r26", "r27"
    a(f"clr {zr}")
    a(f"mov {m}, r20")
    a(f"neg {m}", "m = -swap: 0 or 0xff")

    def swap2(n: int) -> None:
        for u, v in ((x2, x3), (z2, z3)):
            for i in range(n):
                a(f"mov {t}, {u[i]}", "the swap: t = (u ^ v) & m")
                a(f"eor {t}, {v[i]}")
                a(f"and {t}, {m}")
                a(f"eor {u[i]}, {t}")
                a(f"eor {v[i]}, {t}")
    a.note("the top bytes first: the multiples of 2^255 of A, B, C, D")
    a(f"ldd {x2[0]}, Y+31", "x2[31]")
    a(f"ldd {z2[0]}, Y+63", "z2[31]")
    a(f"ldd {x3[0]}, Z+31", "x3[31]")
    a(f"ldd {z3[0]}, Z+63", "z3[31]")
    swap2(1)
    a(f"ldi {c19}, 19")
    for f, mask, u, v in ((fa, ma, x2[0], z2[0]), (fc, mc, x3[0], z3[0])):
        a(f"mov {s}, {u}")
        a(f"add {s}, {v}", "s = x31 + z31, bit 8 in C")
        a(f"mov {h}, {zr}")
        a(f"rol {h}")
        a(f"mov {mask}, {s}")
        a(f"andi {mask}, 0x80", "byte 31's fix: XOR (s & 0x80)")
        a(f"lsl {s}")
        a(f"rol {h}", "T = s >> 7 (0..3)")
        a(f"mul {h}, {c19}")
        a(f"mov {f}, r0", "19 T: the chain's first carry")
    for f, mask, u, v in ((fb, mb, x2[0], z2[0]), (fd, md, x3[0], z3[0])):
        a(f"mov {s}, {u}")
        a(f"sub {s}, {v}", "h = x31 - z31, n in C")
        a(f"mov {h}, {zr}")
        a(f"rol {h}")
        a(f"com {s}")
        a(f"mov {mask}, {s}")
        a(f"andi {mask}, 0x80", "byte 31's fix: XOR (~h & 0x80)")
        a(f"lsl {s}")
        a(f"rol {h}", "g = 2 n + 1 - (h >> 7) (0..3)")
        a(f"mul {h}, {c19}")
        a(f"mov {f}, r0", "19 g: the chain's first borrow")
    for k in range(0, 32, 2):
        last = k == 30
        for i in range(2):
            a(f"ldd {x2[i]}, Y+{k + i}", f"x2[{k + i}]")
            a(f"ldd {z2[i]}, Y+{32 + k + i}", f"z2[{k + i}]")
            a(f"ldd {x3[i]}, Z+{k + i}", f"x3[{k + i}]")
            a(f"ldd {z3[i]}, Z+{32 + k + i}", f"z3[{k + i}]")
        swap2(2)
        a(f"movw {ca[0]}, {x2[0]}", "the copies that become A and C")
        a(f"movw {cc[0]}, {x3[0]}")
        for f, dst, src, op in ((fa, ca, z2, "add"), (fb, x2, z2, "sub"), (fc, cc, z3, "add"), (fd, x3, z3, "sub")):
            oc = "adc" if op == "add" else "sbc"
            a(f"{op} {dst[0]}, {f}", "the chain's carry (borrow), 0..2")
            a(f"{oc} {dst[1]}, {zr}")
            if not last:
                a(f"mov {f}, {zr}")
                a(f"adc {f}, {zr}")
            a(f"{op} {dst[0]}, {src[0]}")
            a(f"{oc} {dst[1]}, {src[1]}")
            if not last:
                a(f"adc {f}, {zr}", "both carries (borrows), parked")
        if last:
            for dst, mask in ((ca, ma), (x2, mb), (cc, mc), (x3, md)):
                a(f"eor {dst[1]}, {mask}", "byte 31 less the multiple of 2^255 taken first")
        for i in range(2):
            a(f"std Z+{k + i}, {ca[i]}", f"A[{k + i}] over x3")
            a(f"std Z+{32 + k + i}, {x2[i]}", f"B[{k + i}] over z3")
            a(f"std Y+{k + i}, {cc[i]}", f"C[{k + i}] over x2")
            a(f"std Y+{32 + k + i}, {x3[i]}", f"D[{k + i}] over z2")


def top_first_setup(a: Asm, ops: list[tuple[str, str, str, str, str]], zr: str, c19: str, s: str, h: str) -> None:
    """The multiples of 2^255 of sums and differences taken from their top bytes (swap_abcd's
    derivation): for each (op, f, mask, x31, z31), f = 19 T (sum) or 19 g (difference), the chain's
    first carry (borrow), and mask = the XOR that fixes byte 31 (s & 0x80, or ~h & 0x80)."""
    for op, f, mask, u, v in ops:
        a(f"mov {s}, {u}")
        a(f"{op} {s}, {v}", "s = x31 + z31 (bit 8 in C)" if op == "add" else "h = x31 - z31, n in C")
        a(f"mov {h}, {zr}")
        a(f"rol {h}")
        if op == "sub":
            a(f"com {s}")
        a(f"mov {mask}, {s}")
        a(f"andi {mask}, 0x80", "byte 31's fix: XOR (s & 0x80)" if op == "add" else "byte 31's fix: XOR (~h & 0x80)")
        a(f"lsl {s}")
        a(f"rol {h}", "T = s >> 7 (0..3)" if op == "add" else "g = 2 n + 1 - (h >> 7) (0..3)")
        a(f"mul {h}, {c19}")
        a(f"mov {f}, r0", "19 T: the chain's first carry" if op == "add" else "19 g: the chain's first borrow")


def chain_chunk(a: Asm, op: str, f: str, dst: list[str], src: list[str], zr: str, last: bool) -> None:
    """dst += src (op add) or -= src (sub) with the chain's carry (borrow) f in 0..2 at dst[0]; f
    receives the chunk's carry (borrow) out, 0..2 (not in the last chunk, where none is left)."""
    oc = "adc" if op == "add" else "sbc"
    a(f"{op} {dst[0]}, {f}", "the chain's carry (borrow), 0..2")
    for r in dst[1:]:
        a(f"{oc} {r}, {zr}")
    if not last:
        a(f"mov {f}, {zr}")
        a(f"adc {f}, {zr}")
    for i, r in enumerate(dst):
        a(f"{op if i == 0 else oc} {r}, {src[i]}")
    if not last:
        a(f"adc {f}, {zr}", "both carries (borrows), parked")


def sum_diff(a: Asm) -> None:
    """x3 = DA + CB and z3 = DA - CB (mod p, below 2^256) in one pass, top first as swap_abcd (no fold
    pass): Y = st + 32 (CB in x2 at Y+k, DA in z2 at Y+32+k), Z = st + 96 (x3, z3 likewise). 4-byte
    chunks: r4..r7 DA (then DA - CB in place), r8..r11 CB, r12..r15 the copy that becomes DA + CB;
    r2 zero, r16, r17 the chains' carries (0..2), r18, r19 the byte-31 masks, r20 the constant 19,
    r21, r22 scratch."""
    zr = "r2"
    u = [f"r{i}" for i in range(4, 8)]
    v = [f"r{i}" for i in range(8, 12)]
    s = [f"r{i}" for i in range(12, 16)]
    fs, fd, ms, md, c19 = "r16", "r17", "r18", "r19", "r20"
    a(f"clr {zr}")
    a(f"ldi {c19}, 19")
    a(f"ldd {u[0]}, Y+63", "DA[31]")
    a(f"ldd {v[0]}, Y+31", "CB[31]")
    top_first_setup(a, [("add", fs, ms, u[0], v[0]), ("sub", fd, md, u[0], v[0])], zr, c19, "r21", "r22")
    for k in range(0, 32, 4):
        last = k == 28
        for i in range(4):
            a(f"ldd {u[i]}, Y+{32 + k + i}", f"DA[{k + i}]")
            a(f"ldd {v[i]}, Y+{k + i}", f"CB[{k + i}]")
        a(f"movw {s[0]}, {u[0]}")
        a(f"movw {s[2]}, {u[2]}")
        chain_chunk(a, "add", fs, s, v, zr, last)
        chain_chunk(a, "sub", fd, u, v, zr, last)
        if last:
            a(f"eor {s[3]}, {ms}", "byte 31 less the multiple of 2^255 taken first")
            a(f"eor {u[3]}, {md}")
        for i in range(4):
            a(f"std Z+{k + i}, {s[i]}", f"x3[{k + i}] = (DA + CB)[{k + i}]")
            a(f"std Z+{32 + k + i}, {u[i]}", f"z3[{k + i}] = (DA - CB)[{k + i}]")


def e_a24(a: Asm) -> None:
    """E = AA - BB and F = AA + 121665 E (mod p, below 2^256) in one pass: Y = AA (BB at Y+32), Z = x2
    (E out at Z+k, F out over z2 at Z+32+k). E top first (as sum_diff) by 4-byte chunks; each chunk's
    four E bytes then feed four columns of a24's product while AA and E are still in registers
    (column k is AA_k + E_k 0x41 + E_(k-1) 0xdb + E_(k-2) + the carry, a 3-byte sum); the
    two columns above byte 31 give T < 2^17, folded back as 38 T through F, and a last carry as 38.
    Registers: r2 zero, r3 E's borrow (0..2), r26 its byte-31 mask, r6..r9 E (4 bytes), r10..r13 AA,
    r14..r17 BB (then 38 T), r18, r19 E_(k-2), E_(k-1) from the chunk before, r20..r23 the column sum
    (three bytes and the next top), r24 0x41 (19, then 38), r25 0xdb, r4, r5 scratch. 121665 =
    0x01db41: two MULs and an addition a column; 38 T by three MULs (< 2^23); a carry out of that (the
    sum wrapped below 2^23) adds 38 to bytes 0..3, final."""
    zr, f, mask = "r2", "r3", "r26"
    e = [f"r{i}" for i in range(6, 10)]
    aa = [f"r{i}" for i in range(10, 14)]
    bb = [f"r{i}" for i in range(14, 18)]
    prev = ["r18", "r19"]
    acc = ["r20", "r21", "r22"]
    spare = "r23"
    c41, cdb = "r24", "r25"
    a(f"clr {zr}")
    a(f"ldi {c41}, 19")
    a(f"ldd {aa[0]}, Y+31", "AA[31]")
    a(f"ldd {bb[0]}, Y+63", "BB[31]")
    top_first_setup(a, [("sub", f, mask, aa[0], bb[0])], zr, c41, "r4", "r5")
    a(f"ldi {c41}, 0x41", "121665 = 0x01db41")
    a(f"ldi {cdb}, 0xdb")
    for r in acc + prev:
        a(f"clr {r}")
    ew: dict[int, str] = {}
    top: list[str] = []
    for k in range(34):
        if k % 4 == 0 and k < 32:
            last = k == 28
            for i in range(4):
                a(f"ldd {aa[i]}, Y+{k + i}", f"AA[{k + i}]")
                a(f"ldd {bb[i]}, Y+{32 + k + i}", f"BB[{k + i}]")
            if k:
                a(f"movw {prev[0]}, {e[2]}", "E[k - 2], E[k - 1] for the next columns")
            a(f"movw {e[0]}, {aa[0]}")
            a(f"movw {e[2]}, {aa[2]}")
            chain_chunk(a, "sub", f, e, bb, zr, last)
            if last:
                a(f"eor {e[3]}, {mask}", "byte 31 less the multiple of 2^255 taken first")
            for i in range(4):
                a(f"std Z+{k + i}, {e[i]}", f"E[{k + i}]")
            ew = {k + i: e[i] for i in range(4)}
            ew[k - 1], ew[k - 2] = prev[1], prev[0]
        if k == 32:
            ew = {31: e[3], 30: e[2]}
        lo, mid, hi = acc
        if k < 32:
            a(f"add {lo}, {aa[k % 4]}", f"AA[{k}]")
            a(f"adc {mid}, {zr}")
            a(f"mul {ew[k]}, {c41}", f"E[{k}] 0x41")
            a(f"add {lo}, r0")
            a(f"adc {mid}, r1")
            a(f"adc {hi}, {zr}")
        if 1 <= k <= 32:
            a(f"mul {ew[k - 1]}, {cdb}", f"E[{k - 1}] 0xdb")
            a(f"add {lo}, r0")
            a(f"adc {mid}, r1")
            a(f"adc {hi}, {zr}")
        if k >= 2:
            a(f"add {lo}, {ew[k - 2]}", f"E[{k - 2}]")
            a(f"adc {mid}, {zr}")
            a(f"adc {hi}, {zr}")
        if k < 32:
            a(f"std Z+{32 + k}, {lo}", f"F[{k}]")
            acc = [mid, hi, lo]
            a(f"clr {lo}")
        elif k == 32:
            top.append(lo)
            acc = [mid, hi, spare]
            a(f"clr {spare}")
        else:
            top += [lo, mid]                 # T1, T2 (T2 <= 1)
    t0, t1, t2 = top
    f0, f1, f2, t = bb
    a(f"ldi {c41}, 38")
    a(f"mul {t0}, {c41}", "38 T")
    a(f"mov {f0}, r0")
    a(f"mov {f1}, r1")
    a(f"mul {t1}, {c41}")
    a(f"clr {f2}")
    a(f"add {f1}, r0")
    a(f"adc {f2}, r1")
    a(f"mul {t2}, {c41}")
    a(f"add {f2}, r0")
    for k in range(32):
        a(f"ldd {t}, Z+{32 + k}")
        if k == 0:
            a(f"add {t}, {f0}")
        else:
            a(f"adc {t}, {(f1, f2)[k - 1] if k <= 2 else zr}")
        a(f"std Z+{32 + k}, {t}")
    a(f"sbc {f0}, {f0}", "0 or 0xff: the last carry ...")
    a(f"and {f0}, {c41}", "... as 38")
    for k in range(4):
        a(f"ldd {t}, Z+{32 + k}")
        a(f"{'add' if k == 0 else 'adc'} {t}, {f0 if k == 0 else zr}")
        a(f"std Z+{32 + k}, {t}")


def ladder_step() -> tuple[list[str], int]:
    """void ladder_step(uint32_t *st, uint32_t swap): the loop body of ref/ladder.c (X25519_GLUE_ASM=4)
    in assembly: r2..r17 and Y saved once per step instead of once per product; the products through
    the cores (which clobber every register), everything else inline (swap_abcd, sum_diff, e_a24); st
    and the frame found again from the stack after every call. r24:r25 st, r20 the swap bit (0 or 1)."""
    a = Asm()
    frame_enter(a, LS_FRAME)
    a(f"std Y+{LS_ST}, r24", "st, kept for after the calls")
    a(f"std Y+{LS_ST + 1}, r25")
    a("movw r28, r24", "Y = x2")
    a(f"adiw r28, {X2}")
    a("movw r30, r24", "Z = x3")
    a(f"subi r30, lo8(-{X3})")
    a("sbci r31, hi8(-{0})".format(X3))
    swap_abcd(a)
    total = 0
    for op, r, x, y in STEP:
        if op == "sum_diff":
            a(f"in r30, {SPL}", "Z = F - 1")
            a(f"in r31, {SPH}")
            a(f"ldd r28, Z+{LS_ST + 1}", "Y = st + 32")
            a(f"ldd r29, Z+{LS_ST + 2}")
            a("movw r30, r28", "Z = st + 96")
            a(f"adiw r28, {X2}")
            a(f"subi r30, lo8(-{X3})")
            a(f"sbci r31, hi8(-{X3})")
            sum_diff(a)
            continue
        if op == "e_a24":
            a(f"in r28, {SPL}", "Y = F - 1")
            a(f"in r29, {SPH}")
            a(f"ldd r30, Y+{LS_ST + 1}", "Z = st + 32")
            a(f"ldd r31, Y+{LS_ST + 2}")
            a(f"subi r28, lo8(-{LS_A + 1})", "Y = AA (BB at +32)")
            a(f"sbci r29, hi8(-{LS_A + 1})")
            a(f"adiw r30, {X2}")
            e_a24(a)
            continue
        a(f"in r28, {SPL}", "Y = F - 1")
        a(f"in r29, {SPH}")
        a(f"ldd r30, Y+{LS_ST + 1}", "Z = st")
        a(f"ldd r31, Y+{LS_ST + 2}")
        for reg, arg in (("r24", r), ("r22", x), ("r20", y)):
            if arg is None:
                continue
            base, off = arg
            off += 1 if base == "F" else 0
            a(f"movw {reg}, {'r28' if base == 'F' else 'r30'}", f"{base} + {arg[1]}")
            if off:
                a(f"subi {reg}, lo8(-{off})")
                a(f"sbci {reg[0]}{int(reg[1:]) + 1}, hi8(-{off})")
        a(f"call {FE_MUL_CORE if op == 'fe_mul' else FE_SQR_CORE}")
        total += CORE_CYCLES[op]
    a("in r28, {0}".format(SPL))
    a("in r29, {0}".format(SPH))
    a("adiw r28, 1", "Y = F")
    frame_leave(a, LS_FRAME)
    return begin("ladder_step") + a.lines + end("ladder_step"), a.cycles + total


HEADER = """\
// SPDX-License-Identifier: MIT
/* GENERATED by crypto/x25519/avr/gen_fe.py - do not edit (python3 crypto/x25519/avr/gen_fe.py rewrites
 * it; --check verifies it is current). X25519 field arithmetic mod p = 2^255 - 19 for avr-fast on the
 * ATmega128 (also the ATmega1284P and the ATmega2560, whose CALL pushes a 3-byte return address: the
 * cores' frame allows for it) and its ladder step (X25519_GLUE_ASM=4); the loop over the scalar bits, the
 * inversion and the encoding are the shared C of ref/ladder.c.
 *
 *   void mcu_x25519_<impl>_fe_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);   r = a b mod p
 *   void mcu_x25519_<impl>_fe_sqr(uint32_t *r, const uint32_t *a);                      r = a^2 mod p
 *   void mcu_x25519_<impl>_fe_cswap2(uint32_t *x, uint32_t *y, uint32_t swap);  swap 64 bytes if swap = 1
 *   void mcu_x25519_<impl>_ladder_step(uint32_t *st, uint32_t swap);  one step of ref/ladder.c's loop
 *     ({step_cycles} cycles by the generator's count), st = x1 | x2 | z2 | x3 | z3 in place
 * Field elements: 32 little-endian bytes (8 little-endian 32-bit limbs), any value below 2^256; every
 * result is below 2^256 too. r may equal a or b.
 *
 * fe_mul, fe_sqr ({mul_cycles} and {sqr_cycles} cycles by the generator's count, the call excluded)
 *   Both: one level of subtractive Karatsuba over 128-bit halves, t = L + 2^256 H + 2^128 (L + H -+ M)
 *   (512 bits in a stack frame), by three RCALLs of a local 128-bit routine, then one pass that
 *   recombines and reduces mod p at once (recombine_reduce in the generator).
 *   fe_mul: L = a_l b_l, H = a_h b_h, M = |a_l - a_h| |b_l - b_h| by mpmul avr-kara's mul128 (emitted
 *   from crypto/mpmul/avr/gen_mpmul_avr.py: one more Karatsuba level over its in-register 64x64-bit
 *   kernel K64); the differences' borrows as masks ((d ^ m) - m), the sign of M from their XOR.
 *   fe_sqr: L = a_l^2, H = a_h^2, M = |a_l - a_h|^2 (always subtracted: no sign) by sqr128: Karatsuba
 *   again over S64, an in-register 64-bit squaring: the 28 cross products once (product scanning,
 *   MUL, ADD, ADC, ADC into a 3-byte column sum whose finished bytes stay in registers), doubled by
 *   one LSL/ROL chain, the 8 squares added as non-overlapping 16-bit words (the carry between them
 *   parked in a register across the MUL, which sets C); recombined by mpmul's combine_regs.
 *   Recombination + reduction, in 16-byte halves: T = L1 + H0 once; V1 = L0 + T + (M0 ^ q) + (q & 1)
 *   and V2 = T + H1 + (M1 ^ q) + carries by carry chains over 4-byte chunks (each chain's carry parked
 *   in its own register between chunks); r0 = L0 + 38 V2 in V2's registers (r2..r17), r1 = V1 +
 *   38 (H1 + e) + carry, e = q + carries in [-1, 4]; the carry out of r folded back as 38 c, a last
 *   carry as 38 by mask.
 *   Register map. Around the calls: Y the frame F (SP + 1: the pointers r, a, b, the sign, |a_l - a_h|,
 *   |b_l - b_h|, t), X, Y, Z the routine's product, left and right operand; r2 = 0 (the routines keep
 *   it, clobber r0, r1, r3..r31). sqr128: r2 zero, r3 the borrow mask then n = 0xff, r4..r11 eight
 *   operand bytes (then combine_regs' T), r12..r25, r30, r31 (L, H; r12..r29 for M) the column sum and
 *   the 16 result bytes, r0:r1 MUL. Recombination: Y = t, Z = r, r2..r17 T, then V2, then r[0..16);
 *   r18 zero, r19 the constant 38, r20 q, r21..r23 the chains' carries (then r23 e's sign extension,
 *   r22 V3's carry), r24..r27 a 4-byte chunk (then r24 e, r25 the reduction's carry byte, r26, r27
 *   bytes of V3 and r).
 * fe_cswap2: t = (x ^ y) & mask byte by byte, mask = -swap.
 * ladder_step: r2..r17 and Y saved once per step (a 66-byte frame: st, then A^2 and B^2); fe_mul and
 *   fe_sqr through their cores (x25519_avr_fe_mul_core, x25519_avr_fe_sqr_core: r24 r, r22 a, r20 b;
 *   they save nothing and clobber r0..r31, r1 = 0 on return; the exported fe_mul and fe_sqr wrap them
 *   in a push and a pop); st and the frame are found again from SP after every call (Y = F - 1, Z = st,
 *   arguments by MOVW and SUBI/SBCI). Everything else is inline, in three passes whose additions and
 *   subtractions are "top first": the multiple of 2^255 is taken from the top bytes before the carry
 *   chain starts (a sum x + z keeps (x31 + z31) & 0x7f in byte 31 and adds 19 ((x31 + z31) >> 7) at
 *   byte 0; a difference x - z + 2^256 - 38 + p keeps (h & 0x7f) + 128, h = x31 - z31, and takes
 *   19 g, g = 1 - (h >> 7) + 2 (x31 < z31), off byte 0), so that no fold pass over the 32 bytes
 *   follows; byte 31 comes out of the ordinary chain and is fixed by one XOR with bit 7, and the chains
 *   carry a value 0..2 between their chunks (lo += f, its carry into f, then lo += z, its carry added).
 *   swap_abcd: the swap and A, B, C, D in one pass (Y = x2, Z = x3, z2, z3 at +32; r2 zero, r3 the
 *   mask -swap, r4..r7 the four chains' carries, r8..r15 two bytes each of x2, z2, x3, z3 (B and D
 *   formed in place), r16..r19 the A and C copies, r20 t = (u ^ v) & m, r21..r24 the byte-31 masks,
 *   r25 19); A, B, C, D written over x3, z3, x2, z2. sum_diff: x3, z3 = DA + CB, DA - CB in one pass
 *   (4-byte chunks). e_a24: E = AA - BB into x2 and, from E's bytes still in registers, F = AA +
 *   121665 E into z2 (two MULs and an addition a column, the two top columns folded back as 38 T).
 * Constant time: no branch and no skip anywhere, addresses fixed; MUL is 2 cycles for every operand.
 */
#include "mcucrypt/ns.h"
"""


def render() -> tuple[str, dict[str, int]]:
    parts, cycles = [], {}
    for name, fn in (("fe_mul", fe_mul), ("fe_sqr", fe_sqr), ("fe_cswap2", fe_cswap2)):
        lines, cyc = fn()
        parts += lines
        cycles[name] = cyc
    lines, cyc = ladder_step()
    parts += lines
    cycles["ladder_step"] = cyc
    text = HEADER.format(mul_cycles=f"{cycles['fe_mul']:,}", sqr_cycles=f"{cycles['fe_sqr']:,}",
                         step_cycles=f"{cycles['ladder_step']:,}")
    return text + "\n".join(parts) + "\n", cycles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if fe_avr.S is out of date")
    args = ap.parse_args()
    text, cycles = render()
    if not args.check:
        print("fe_avr.S: predicted cycles (call excluded): " + ", ".join(f"{k} {v}" for k, v in cycles.items()))
    return write_or_check({HERE / "fe_avr.S": text}, args.check, __file__)

if __name__ == "__main__":
    sys.exit(main())

