# SPDX-License-Identifier: MIT
"""Generate aria_avr.S: ARIA (RFC 5794) encryption, decryption and counter mode for the 8-bit AVR
(ATmega128), avr-fast. The key schedule is the reference C (ref/aria.c, ARIA_KEYSCHEDULE_ONLY=1).

    python3 gen_aria_avr.py            (writes aria_avr.S beside this file; --check compares)

The techniques (see docs/aria.md, "ARIA on the ATmega128"):
- the 16 state bytes live in 16 registers for the whole block; the generator tracks which register holds
  which byte of the specification's state;
- AddRoundKey is fused into the substitution: the round-key byte is loaded straight into ZL (LDD ZL,
  Y+q), XORed with the state byte, and LPM reads the S-box from its 256-byte-aligned flash page (ZH =
  the page): 6 cycles a byte. The bytes of one S-box are taken together, so ZH changes 4 times a round;
- the diffusion layer A is factored as A = MM . P . MM . Mbyte over the four 32-bit words of the state:
  Mbyte replaces each byte of a word by the XOR of the other three (8 cycles a word), MM is six word XORs
  (T1^=T2, T2^=T3, T0^=T1, T3^=T1, T2^=T0, T1^=T2: 24 cycles) and P, a byte permutation inside words, is a
  renaming of registers: 80 cycles a round instead of 112 for the sixteen 7-term XORs. P is an involution,
  so after two rounds the registers are back in place and a pair of rounds is a loop body;
- counter mode (NIST SP 800-38A, a 32-bit big-endian counter in the last four bytes) computes round 1 of
  the fifteen bytes that do not change between counter blocks once per 256 blocks (A is linear: the
  16-byte result is kept on the stack) and per block only adds the S-box output of the last byte to the
  seven rows of A that column 15 reaches; the block then enters the round-pair loop at its second half.
Timing: LPM takes 3 cycles at any flash address and the ATmega128 has no cache, so every call takes the
same time for every key and block; the S-box reads are indexed by secret bytes, which the constant-time
checker reports as secret-dependent addresses (claim `cacheless`). Branches depend only on the public
round count, length and counter.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent

# Register map. 16 state registers (r0 and r1 are free in our code: r1 is cleared before returning),
# TMP, CNT; X (r26:r27) is free in the round code (counter mode's in/out pointer), Y (r28:r29) = round
# keys, Z (r30:r31) = ZL index / ZH table page.
STATE_REGS = [0, 1, 18, 19, 20, 21, 22, 23, 24, 25, 2, 3, 4, 5, 6, 7]
TMP, CNT = 8, 17                                 # CNT: LDI and CPI need r16..r31
SAVED = [2, 3, 4, 5, 6, 7, 8, 17, 28, 29]         # callee-saved registers we use (avr-gcc ABI)
ROUNDS = {"aria128": 12, "aria192": 14, "aria256": 16}

# Which S-box each byte position takes: SL1 in odd rounds (SB1 SB2 SB3 SB4 ...), SL2 in even ones.
SL1 = ("sb1", "sb2", "sb3", "sb4")
SL2 = ("sb3", "sb4", "sb1", "sb2")


def tables() -> dict[str, list[int]]:
    """SB1..SB4 as the reference C declares them (crypto/aria/ref/aria.c, checked by the official vectors)."""
    src = (HERE.parent / "ref" / "aria.c").read_text()
    out = {}
    for n in (1, 2, 3, 4):
        body = re.search(r"ARIA_SB%d\[256\] ARIA_ROM = \{(.*?)\};" % n, src, re.S).group(1)
        vals = [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]{2}", body)]
        assert len(vals) == 256 and sorted(vals) == list(range(256)), n
        out[f"sb{n}"] = vals
    return out


def column15_rows() -> list[int]:
    """The rows of A that contain x15 (RFC 5794, 2.4.3): where S(x15) lands after the diffusion."""
    terms = [(3, 4, 6, 8, 9, 13, 14), (2, 5, 7, 8, 9, 12, 15), (1, 4, 6, 10, 11, 12, 15), (0, 5, 7, 10, 11, 13, 14),
             (0, 2, 5, 8, 11, 14, 15), (1, 3, 4, 9, 10, 14, 15), (0, 2, 7, 9, 10, 12, 13), (1, 3, 6, 8, 11, 12, 13),
             (0, 1, 4, 7, 10, 13, 15), (0, 1, 5, 6, 11, 12, 14), (2, 3, 5, 6, 8, 13, 15), (2, 3, 4, 7, 9, 12, 14),
             (1, 2, 6, 7, 9, 11, 12), (0, 3, 6, 7, 8, 10, 13), (0, 3, 4, 5, 9, 11, 14), (1, 2, 4, 5, 8, 10, 15)]
    return [j for j, t in enumerate(terms) if 15 in t]


P_PERM = [0, 1, 2, 3, 5, 4, 7, 6, 10, 11, 8, 9, 15, 14, 13, 12]     # P: y[i] = x[P_PERM[i]] (an involution)


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.where = list(STATE_REGS)           # where[i]: the register holding state byte i

    def emit(self, s: str) -> None:
        self.lines.append("    " + s if not s.endswith(":") else s)

    def r(self, i: int) -> str:
        return f"r{self.where[i]}"

    # ---------------------------------------------------------------- round pieces
    def key_sbox(self, sl: tuple[str, ...], q: int) -> None:
        """AddRoundKey (key at Y+q) fused into the substitution layer sl."""
        for t in range(4):
            self.emit(f"ldi r31, hi8({sl[t]})")
            for i in range(t, 16, 4):
                self.emit(f"ldd r30, Y+{q + i}")
                self.emit(f"eor r30, {self.r(i)}")
                self.emit(f"lpm {self.r(i)}, Z")

    def key_add(self, q: int) -> None:
        for i in range(16):
            self.emit(f"ldd r{TMP}, Y+{q + i}")
            self.emit(f"eor {self.r(i)}, r{TMP}")

    def diffuse(self) -> None:
        """A = MM . P . MM . Mbyte; P renames registers."""
        for w in range(4):                       # Mbyte: each byte := XOR of the other three of its word
            b = [self.r(4 * w + k) for k in range(4)]
            self.emit(f"mov r{TMP}, {b[0]}")
            for k in (1, 2, 3):
                self.emit(f"eor r{TMP}, {b[k]}")
            for k in range(4):
                self.emit(f"eor {b[k]}, r{TMP}")
        self.mm()
        self.where = [self.where[P_PERM[i]] for i in range(16)]
        self.mm()

    def mm(self) -> None:
        for dst, src in ((1, 2), (2, 3), (0, 1), (3, 1), (2, 0), (1, 2)):
            for k in range(4):
                self.emit(f"eor {self.r(4 * dst + k)}, {self.r(4 * src + k)}")

    def fo(self, q: int) -> None:
        self.key_sbox(SL1, q)
        self.diffuse()

    def fe(self, q: int) -> None:
        self.key_sbox(SL2, q)
        self.diffuse()

    # ---------------------------------------------------------------- routines
    def core(self) -> None:
        """aria_avr_rounds: CNT round pairs from Y (Y advances 32 a pair), then an odd round and the last
        round (SL2, two keys). aria_avr_rounds_mid enters at the even half of the first pair with the
        registers as round 1 left them (counter mode)."""
        self.emit(".section .text.aria_avr_rounds, \"ax\", @progbits")
        self.emit(".type aria_avr_rounds, @function")
        self.lines.append("aria_avr_rounds:")
        assert self.where == STATE_REGS
        self.fo(0)
        self.lines.append("aria_avr_rounds_mid:")
        self.fe(16)
        assert self.where == STATE_REGS, "P twice is the identity"
        self.emit("adiw r28, 32")
        self.emit(f"dec r{CNT}")
        self.emit("breq 1f")
        self.emit("rjmp aria_avr_rounds")
        self.lines.append("1:")
        self.fo(0)
        self.key_sbox(SL2, 16)
        self.key_add(32)
        assert [int(self.r(i)[1:]) for i in range(16)] == self.out_map()
        self.emit("ret")
        self.emit(".size aria_avr_rounds, . - aria_avr_rounds")
        self.where = list(STATE_REGS)

    def out_map(self) -> list[int]:
        """Registers holding output bytes 0..15 after aria_avr_rounds (one odd round after the pairs)."""
        return [STATE_REGS[P_PERM[i]] for i in range(16)]

    def push_saved(self) -> None:
        for reg in SAVED:
            self.emit(f"push r{reg}")

    def pop_saved(self) -> None:
        self.emit("clr r1")
        for reg in reversed(SAVED):
            self.emit(f"pop r{reg}")

    def crypt(self, prim: str, op: str) -> None:
        """void mcu_<id>_avr_fast_<op>(uint8_t *out, const uint8_t *in, const uint32_t *rk)"""
        sym = f"MCU_FN({prim}, {op})"
        self.func_head(sym)
        self.push_saved()
        self.emit("push r24")
        self.emit("push r25")
        self.emit("movw r28, r20")               # Y = round keys
        self.emit("movw r30, r22")               # Z = in
        for i in range(16):
            self.emit(f"ld r{STATE_REGS[i]}, Z+")
        self.emit(f"ldi r{CNT}, {(ROUNDS[prim] - 2) // 2}")
        self.emit("rcall aria_avr_rounds")
        self.emit("pop r31")
        self.emit("pop r30")                      # Z = out
        for reg in self.out_map():
            self.emit(f"st Z+, r{reg}")
        self.pop_saved()
        self.emit("ret")
        self.func_tail(sym)

    def func_head(self, sym: str) -> None:
        self.lines.append("")
        self.emit(f".section .text.{sym}, \"ax\", @progbits")
        self.emit(f".global {sym}")
        self.emit(f".type {sym}, @function")
        self.lines.append(f"{sym}:")

    def func_tail(self, sym: str) -> None:
        self.emit(f".size {sym}, . - {sym}")

    def ctr(self, prim: str) -> None:
        """void mcu_<id>_avr_fast_ctr(uint8_t *out, const uint8_t *in, size_t len, const uint32_t *rk,
                                      const uint8_t *iv)
        Stack frame (Z = SP + 1 after the frame is made): 0..15 counter block, 16..31 round-1 cache,
        32..33 in, 34..35 out, 36..37 len, 38..39 rk."""
        sym = f"MCU_FN({prim}, ctr)"
        rows = column15_rows()
        after1 = [STATE_REGS[P_PERM[i]] for i in range(16)]    # where round 1 leaves byte i
        pairs = (ROUNDS[prim] - 2) // 2
        self.func_head(sym)
        self.push_saved()
        self.emit("in r28, 0x3d")                 # Y = SP
        self.emit("in r29, 0x3e")
        self.emit("sbiw r28, 40")
        self.emit("in r0, 0x3f")                  # SP -= 40 with interrupts held off for the 16-bit write
        self.emit("cli")
        self.emit("out 0x3e, r29")
        self.emit("out 0x3f, r0")
        self.emit("out 0x3d, r28")
        self.emit("adiw r28, 1")                  # Y = the frame
        self.emit("movw r30, r16")                # the counter block from iv
        for i in range(16):
            self.emit("ld r0, Z+")
            self.emit(f"std Y+{i}, r0")
        for off, (lo, hi) in ((32, (22, 23)), (34, (24, 25)), (36, (20, 21)), (38, (18, 19))):
            self.emit(f"std Y+{off}, r{lo}")
            self.emit(f"std Y+{off + 1}, r{hi}")
        self.lines.append(".Lctr_cache_" + prim + ":")
        # Round 1 on the counter block with byte 15's S-box output removed: the cache.
        self.frame_to_z()
        for i in range(16):
            self.emit(f"ldd r{STATE_REGS[i]}, Z+{i}")
        self.emit("ldd r28, Z+38")
        self.emit("ldd r29, Z+39")                # Y = rk
        self.fo(0)
        assert [int(self.r(i)[1:]) for i in range(16)] == after1
        self.frame_to_z()
        self.sbox15()
        for j in rows:
            self.emit(f"eor r{after1[j]}, r{TMP}")
        self.where = list(STATE_REGS)
        self.frame_to_z()
        for i in range(16):
            self.emit(f"std Z+{16 + i}, r{after1[i]}")
        self.lines.append(".Lctr_block_" + prim + ":")
        # len < 16 and 0: done; else one block of key stream.
        self.frame_to_z()
        self.emit("ldd r26, Z+36")
        self.emit("ldd r27, Z+37")
        self.emit("sbiw r26, 0")
        self.emit("brne 2f")
        self.emit(f"rjmp .Lctr_done_{prim}")
        self.lines.append("2:")
        for i in range(16):
            self.emit(f"ldd r{after1[i]}, Z+{16 + i}")
        self.emit("ldd r28, Z+38")
        self.emit("ldd r29, Z+39")
        self.sbox15()
        for j in rows:
            self.emit(f"eor r{after1[j]}, r{TMP}")
        self.emit(f"ldi r{CNT}, {pairs}")
        self.emit("rcall aria_avr_rounds_mid")
        # XOR with min(len, 16) input bytes: X = in, Z = out (frame pointer reloaded after).
        self.frame_to_z()
        self.emit("ldd r26, Z+32")
        self.emit("ldd r27, Z+33")
        self.emit(f"ldd r{CNT}, Z+36")            # len, low byte, and whether it is below 16
        self.emit(f"ldd r{TMP}, Z+37")
        self.emit(f"tst r{TMP}")
        self.emit("brne 3f")
        self.emit(f"cpi r{CNT}, 16")
        self.emit("brsh 3f")
        self.emit(f"rjmp .Lctr_tail_{prim}")
        self.lines.append("3:")
        self.emit("ldd r28, Z+34")                # Y = out
        self.emit("ldd r29, Z+35")
        for reg in self.out_map():
            self.emit(f"ld r{TMP}, X+")
            self.emit(f"eor r{TMP}, r{reg}")
            self.emit(f"st Y+, r{TMP}")
        self.emit("std Z+32, r26")
        self.emit("std Z+33, r27")
        self.emit("std Z+34, r28")
        self.emit("std Z+35, r29")
        self.emit("ldd r26, Z+36")
        self.emit("ldd r27, Z+37")
        self.emit("sbiw r26, 16")
        self.emit("std Z+36, r26")
        self.emit("std Z+37, r27")
        # Counter += 1 (bytes 12..15, big-endian, modulo 2^32); a carry out of byte 15 refreshes the cache.
        self.emit("ldd r26, Z+15")
        self.emit("subi r26, 0xff")
        self.emit("std Z+15, r26")
        self.emit("breq 4f")
        self.emit(f"rjmp .Lctr_block_{prim}")
        self.lines.append("4:")
        for b in (14, 13, 12):
            self.emit(f"ldd r26, Z+{b}")
            self.emit("subi r26, 0xff")
            self.emit(f"std Z+{b}, r26")
            self.emit("brne 5f")
        self.lines.append("5:")
        self.emit(f"rjmp .Lctr_cache_{prim}")
        # The tail: len (1..15) bytes.
        self.lines.append(f".Lctr_tail_{prim}:")
        for k, reg in enumerate(self.out_map()):      # the last block: its key stream over the cache
            self.emit(f"std Z+{16 + k}, r{reg}")
        self.emit("adiw r30, 16")
        self.emit("ldd r28, Z+18")                # Y = out (frame offset 34)
        self.emit("ldd r29, Z+19")
        self.lines.append("6:")
        self.emit("ld r0, Z+")
        self.emit(f"ld r{TMP}, X+")
        self.emit(f"eor r{TMP}, r0")
        self.emit(f"st Y+, r{TMP}")
        self.emit(f"dec r{CNT}")
        self.emit("brne 6b")
        self.lines.append(f".Lctr_done_{prim}:")
        self.emit("in r28, 0x3d")
        self.emit("in r29, 0x3e")
        self.emit("adiw r28, 40")
        self.emit("in r0, 0x3f")
        self.emit("cli")
        self.emit("out 0x3e, r29")
        self.emit("out 0x3f, r0")
        self.emit("out 0x3d, r28")
        self.pop_saved()
        self.emit("ret")
        self.func_tail(sym)

    def frame_to_z(self) -> None:
        self.emit("in r30, 0x3d")
        self.emit("in r31, 0x3e")
        self.emit("adiw r30, 1")

    def sbox15(self) -> None:
        """TMP = SB4(counter byte 15 ^ round-1 key byte 15); Z = frame on entry, Y = rk."""
        self.emit(f"ldd r{TMP}, Z+15")
        self.emit("ldd r30, Y+15")
        self.emit(f"eor r30, r{TMP}")
        self.emit("ldi r31, hi8(sb4)")
        self.emit(f"lpm r{TMP}, Z")


def render() -> str:
    g = Gen()
    tabs = tables()
    g.lines += [
        "// SPDX-License-Identifier: MIT",
        "/* GENERATED by gen_aria_avr.py - do not edit. ARIA (RFC 5794) for the 8-bit AVR (ATmega128), avr-fast.",
        " *",
        " * C prototypes (<id> = aria128, aria192, aria256; the key schedule is ref/aria.c's):",
        " *   void mcu_<id>_avr_fast_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *   void mcu_<id>_avr_fast_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);",
        " *   void mcu_<id>_avr_fast_ctr(uint8_t *out, const uint8_t *in, size_t len, const uint32_t *rk,",
        " *                              const uint8_t *iv);",
        " *       rk: the round keys as 16-byte strings (ek1 || ek2 ..., or dk1 || ... for decrypt)",
        " *",
        " * Register map",
        f" *   r{', r'.join(map(str, STATE_REGS))}   the 16 state bytes (which byte lives where is",
        " *       tracked by the generator: P of the diffusion is a renaming); r1 is cleared before returning",
        f" *   r{TMP} TMP (a word's XOR, a key byte)   r{CNT} round pairs left",
        " *   Y r28:r29 round keys (LDD Y+q)   Z r30:r31 S-box index (ZL) and page (ZH)   X counter mode in",
        " * Techniques: the generator's docstring (fused AddRoundKey/LPM, A = MM.P.MM.Mbyte, round pairs,",
        " * counter-mode round-1 cache). Constant time on this cacheless core: LPM takes 3 cycles at any address.",
        " */",
        '#include "mcucrypt/ns.h"',
        "",
        '    .section .progmem.aria, "a", @progbits',
        "    .p2align 8",
    ]
    for name in ("sb1", "sb2", "sb3", "sb4"):
        g.lines.append(f"{name}:")
        t = tabs[name]
        for row in range(16):
            g.lines.append("    .byte " + ", ".join(f"0x{v:02x}" for v in t[16 * row:16 * row + 16]))
    g.lines.append("")
    g.core()
    for prim in ROUNDS:
        g.crypt(prim, "encrypt")
        g.crypt(prim, "decrypt")
        g.ctr(prim)
    return "\n".join(g.lines) + "\n"


def main() -> int:
    return write_or_check({HERE / "aria_avr.S": render()}, sys.argv[1:] == ["--check"], __file__)


if __name__ == "__main__":
    sys.exit(main())
