# SPDX-License-Identifier: MIT
"""Generate pipo_avr.S: PIPO-64/128 and PIPO-64/256 (Kim et al., ICISC 2020) for the 8-bit AVR
(ATmega128), avr-fast: key schedule, encryption and decryption of one block.

    python3 gen_pipo_avr.py            (writes pipo_avr.S beside this file; --check compares)

The techniques (docs/lea-pipo.md, "PIPO on the ATmega128"):
- the eight state rows live in eight registers for the whole block, all rounds unrolled; the generator
  tracks which register holds which row, so the S-layer's output permutation and the temporaries that
  become outputs (y1 = x0 ^ t1, y2 = x2 ^ t0, y7 = x1 ^ x4 ^ u) cost no MOV;
- the S-layer is the designers' bitsliced circuit (11 AND/OR, 22 XOR, one NOT) in two-operand form:
  46 instructions a round (11 AND/OR, 22 EOR, 1 COM, 12 MOV: each x ^= a op b is MOV, AND/OR, EOR);
- the R-layer: ROL 4 = SWAP (1 cycle), ROL 1 = LSL + ADC zero (2), ROR 1 = BST/LSR/BLD (3), the others
  combinations: row rotations 0,7,4,3,6,5,1,2 cost 0+3+1+4+5+3+2+4 = 22 cycles a round (a common
  offset for all rows does not help: the costs of any eight distinct amounts sum to 22);
- the key schedule is a copy (rk = the master key, PIPO's round key i is K[i mod 2] or K[i mod 4] with i
  in row 0): the 16 key bytes of PIPO-64/128 stay in r2..r17 for the whole block (AddRoundKey = 8 EOR,
  the round constant LDI + EOR); PIPO-64/256 keeps K0 and K1 in registers and reads K2 and K3 with
  LDD from Y (2 cycles a byte).
No table, no secret-dependent branch or address: constant time on any AVR.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent

ROUNDS = {"pipo64_128": 13, "pipo64_256": 17}
KEY_WORDS = {"pipo64_128": 2, "pipo64_256": 4}
ROT = [0, 7, 4, 3, 6, 5, 1, 2]                  # R-layer: row i rotated left by ROT[i]

STATE_REGS = [18, 19, 20, 21, 22, 23, 26, 27]    # call-used: nothing to save
TEMPS = [0, 31]                                  # r0 and r31: S-layer temporaries
CONST = 30                                       # r30: LDI needs r16..r31 (the round constant)
ZERO = 1                                         # r1 = 0 (avr-gcc ABI), the carry source of ROL 1
KEY_REGS = list(range(2, 18))                    # K0 || K1 (callee-saved: pushed)


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.row: list[int] = []                 # row[i]: the register holding state row i

    def emit(self, s: str) -> None:
        self.lines.append("    " + s)

    def label(self, s: str) -> None:
        self.lines.append(s + ":")

    def comment(self, s: str) -> None:
        self.lines.append("    /* " + s + " */")

    # ------------------------------------------------------------------ building blocks
    def xop(self, dst: int, a: int, op: str, b: int, t: int) -> None:
        """dst ^= a op b through temporary t."""
        self.emit(f"mov r{t}, r{a}")
        self.emit(f"{op} r{t}, r{b}")
        self.emit(f"eor r{dst}, r{t}")

    def slayer(self) -> None:
        """The designers' bitsliced S-box on rows x0..x7 (ref/pipo.c pipo_slayer): 46 instructions."""
        x = list(self.row)
        t, t0 = TEMPS
        t1 = CONST
        # S5_1 on (x7, x6, x5, x4, x3)
        self.xop(x[5], x[7], "and", x[6], t)
        self.xop(x[4], x[3], "and", x[5], t)
        self.emit(f"eor r{x[7]}, r{x[4]}")
        self.emit(f"eor r{x[6]}, r{x[3]}")
        self.xop(x[3], x[4], "or", x[5], t)
        self.emit(f"eor r{x[5]}, r{x[7]}")
        self.xop(x[4], x[5], "and", x[6], t)
        # S3 on (x2, x1, x0)
        self.xop(x[2], x[1], "and", x[0], t)
        self.xop(x[0], x[2], "or", x[1], t)
        self.xop(x[1], x[2], "or", x[0], t)
        self.emit(f"com r{x[2]}")
        # bridge
        self.emit(f"eor r{x[7]}, r{x[1]}")
        self.emit(f"eor r{x[3]}, r{x[2]}")
        self.emit(f"eor r{x[4]}, r{x[0]}")
        # S5_2
        self.xop(x[6], x[7], "and", x[5], t)
        self.emit(f"mov r{t0}, r{x[7]}")          # t0 = x7 ^ x6
        self.emit(f"eor r{t0}, r{x[6]}")
        self.xop(x[6], x[4], "or", x[3], t)
        self.emit(f"mov r{t1}, r{x[3]}")          # t1 = x3 ^ x5
        self.emit(f"eor r{t1}, r{x[5]}")
        self.xop(x[5], x[6], "or", x[4], t)
        self.emit(f"eor r{x[0]}, r{t1}")          # y1 = x0 ^ t1
        self.emit(f"eor r{x[2]}, r{t0}")          # y2 = x2 ^ t0
        self.emit(f"and r{t1}, r{t0}")            # u = t1 & t0
        self.emit(f"eor r{x[1]}, r{x[4]}")        # y7 = x1 ^ x4 ^ u
        self.emit(f"eor r{x[1]}, r{t1}")
        self.row = [x[7], x[0], x[2], x[6], x[5], x[4], x[3], x[1]]

    def inv_slayer(self) -> None:
        """The inverse S-box (ref/pipo.c pipo_inv_slayer): 46 instructions."""
        y = list(self.row)
        t, t0 = TEMPS
        t1 = CONST
        self.xop(y[4], y[3], "or", y[5], t)       # x5 (in y4's register)
        self.xop(y[3], y[5], "or", y[6], t)       # x6 after its first update (in y3's)
        x5, x6 = y[4], y[3]
        self.emit(f"mov r{t0}, r{y[0]}")          # t0 = y0 ^ x6
        self.emit(f"eor r{t0}, r{x6}")
        self.xop(x6, y[0], "and", x5, t)
        self.emit(f"mov r{t1}, r{y[6]}")          # t1 = y6 ^ x5
        self.emit(f"eor r{t1}, r{x5}")
        self.emit(f"eor r{y[2]}, r{t0}")          # x2 = y2 ^ t0
        self.emit(f"eor r{y[1]}, r{t1}")          # x0 = y1 ^ t1
        self.emit(f"and r{t1}, r{t0}")            # u
        self.emit(f"eor r{y[7]}, r{y[5]}")        # x1 = y7 ^ y5 ^ u
        self.emit(f"eor r{y[7]}, r{t1}")
        x0, x1, x2 = y[1], y[7], y[2]
        self.emit(f"eor r{y[0]}, r{x1}")          # undo the bridge: x7, x3, x4
        self.emit(f"eor r{y[6]}, r{x2}")
        self.emit(f"eor r{y[5]}, r{x0}")
        x7, x3, x4 = y[0], y[6], y[5]
        # undo S3
        self.emit(f"com r{x2}")
        self.xop(x1, x2, "or", x0, t)
        self.xop(x0, x2, "or", x1, t)
        self.xop(x2, x1, "and", x0, t)
        # undo S5_1
        self.xop(x4, x5, "and", x6, t)
        self.emit(f"eor r{x5}, r{x7}")
        self.xop(x3, x4, "or", x5, t)
        self.emit(f"eor r{x6}, r{x3}")
        self.emit(f"eor r{x7}, r{x4}")
        self.xop(x4, x3, "and", x5, t)
        self.xop(x5, x7, "and", x6, t)
        self.row = [x0, x1, x2, x3, x4, x5, x6, x7]

    def rol(self, r: int, n: int) -> None:
        """Rotate register r left by n (0..7): SWAP, LSL/ADC zero and BST/LSR/BLD."""
        n %= 8
        seq = {0: [], 1: ["l"], 2: ["l", "l"], 3: ["s", "r"], 4: ["s"], 5: ["s", "l"], 6: ["s", "l", "l"],
               7: ["r"]}[n]
        for op in seq:
            if op == "s":
                self.emit(f"swap r{r}")
            elif op == "l":
                self.emit(f"lsl r{r}")
                self.emit(f"adc r{r}, r{ZERO}")
            else:
                self.emit(f"bst r{r}, 0")
                self.emit(f"lsr r{r}")
                self.emit(f"bld r{r}, 7")

    def add_key(self, prim: str, i: int) -> None:
        """Round key i: K[i mod kw] (rows 0..7), i into row 0."""
        w = i % KEY_WORDS[prim]
        for j in range(8):
            if w < 2:
                self.emit(f"eor r{self.row[j]}, r{KEY_REGS[8 * w + j]}")
            else:
                self.emit(f"ldd r{TEMPS[0]}, Y+{8 * w + j}")
                self.emit(f"eor r{self.row[j]}, r{TEMPS[0]}")
        if i:
            self.emit(f"ldi r{CONST}, {i}")
            self.emit(f"eor r{self.row[0]}, r{CONST}")

    # ------------------------------------------------------------------ routines
    def saved(self, prim: str) -> list[int]:
        return KEY_REGS + ([28, 29] if KEY_WORDS[prim] == 4 else [])

    def head(self, sym: str, proto: str) -> None:
        self.lines.append("")
        self.lines.append(f"/* {proto} */")
        self.emit(f".section .text.{sym}, \"ax\", @progbits")
        self.emit(f".global {sym}")
        self.emit(f".type {sym}, @function")
        self.label(sym)

    def load(self, prim: str) -> None:
        """Save r2..r17 (and Y), the key words K0 || K1 into r2..r17, Y = rk, the block into the rows."""
        for r in self.saved(prim):
            self.emit(f"push r{r}")
        self.emit("movw r26, r20")                # X = rk (the master key)
        for r in KEY_REGS:
            self.emit(f"ld r{r}, X+")
        if KEY_WORDS[prim] == 4:
            self.emit("movw r28, r20")            # Y = rk: K2, K3 by LDD
        self.emit("movw r30, r22")                # Z = in
        self.row = list(STATE_REGS)
        for j in range(8):
            self.emit(f"ld r{self.row[j]}, Z+")

    def store(self, prim: str) -> None:
        self.emit("movw r30, r24")                # Z = out
        for j in range(8):
            self.emit(f"st Z+, r{self.row[j]}")
        for r in reversed(self.saved(prim)):
            self.emit(f"pop r{r}")
        self.emit("ret")

    def encrypt(self, prim: str) -> None:
        sym = f"MCU_FN({prim}, encrypt)"
        self.head(sym, f"void mcu_{prim}_avr_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)")
        self.load(prim)
        self.comment("whitening: K0")
        self.add_key(prim, 0)
        for i in range(1, ROUNDS[prim] + 1):
            self.comment(f"round {i}: S-layer, R-layer, K[{i % KEY_WORDS[prim]}] ^ {i}")
            self.slayer()
            for j in range(8):
                self.rol(self.row[j], ROT[j])
            self.add_key(prim, i)
        self.store(prim)
        self.emit(f".size {sym}, . - {sym}")

    def decrypt(self, prim: str) -> None:
        sym = f"MCU_FN({prim}, decrypt)"
        self.head(sym, f"void mcu_{prim}_avr_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk)")
        self.load(prim)
        for i in range(ROUNDS[prim], 0, -1):
            self.comment(f"round {i} undone: K[{i % KEY_WORDS[prim]}] ^ {i}, R-layer, S-layer")
            self.add_key(prim, i)
            for j in range(8):
                self.rol(self.row[j], 8 - ROT[j])
            self.inv_slayer()
        self.comment("whitening: K0")
        self.add_key(prim, 0)
        self.store(prim)
        self.emit(f".size {sym}, . - {sym}")

    def keyschedule(self, prim: str) -> None:
        """rk = the master key (16 or 32 bytes): the round keys are formed in encrypt/decrypt."""
        sym = f"MCU_FN({prim}, keyschedule)"
        self.head(sym, f"void mcu_{prim}_avr_fast_keyschedule(uint32_t *rk, const uint8_t *key)")
        self.emit("movw r26, r24")                # X = rk
        self.emit("movw r30, r22")                # Z = key
        for _ in range(8 * KEY_WORDS[prim]):
            self.emit("ld r0, Z+")
            self.emit("st X+, r0")
        self.emit("ret")
        self.emit(f".size {sym}, . - {sym}")


def render() -> str:
    g = Gen()
    g.lines += [
        "// SPDX-License-Identifier: MIT",
        "/* GENERATED by gen_pipo_avr.py - do not edit. PIPO-64/128 and PIPO-64/256 for the 8-bit AVR",
        " * (ATmega128), avr-fast.",
        " *",
        " * C prototypes (<id> = pipo64_128, pipo64_256):",
        " *   void mcu_<id>_avr_fast_keyschedule(uint32_t *rk, const uint8_t *key);   rk = the key (16/32 bytes)",
        " *   void mcu_<id>_avr_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *   void mcu_<id>_avr_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *",
        " * Register map",
        " *   r18 r19 r20 r21 r22 r23 r26 r27   the eight state rows (which row lives where is tracked by the",
        " *       generator: the S-layer's output permutation is a renaming)",
        " *   r2..r9 K0, r10..r17 K1 (the round keys of PIPO-64/128 never leave registers)",
        " *   r0, r31, r30 S-layer temporaries (r30 also the round constant, LDI)   r1 = 0 (ROL 1's carry)",
        " *   r24:r25 out   Y r28:r29 = rk (PIPO-64/256: K2, K3 by LDD)",
        " * Techniques: the generator's docstring (unrolled rounds with renamed rows, bitsliced S-layer,",
        " * SWAP/LSL-ADC/BST-LSR-BLD rotations, key words in registers). No table, no secret-dependent",
        " * branch or address: constant time on any AVR.",
        " */",
        '#include "mcucrypt/ns.h"',
    ]
    for prim in ("pipo64_128", "pipo64_256"):
        g.keyschedule(prim)
        g.encrypt(prim)
        g.decrypt(prim)
    return "\n".join(g.lines) + "\n"


def main() -> int:
    return write_or_check({HERE / "pipo_avr.S": render()}, sys.argv[1:] == ["--check"], __file__)


if __name__ == "__main__":
    sys.exit(main())
