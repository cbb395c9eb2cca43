# SPDX-License-Identifier: MIT
"""Generate keccakf1600_avr.S: Keccak-f[1600] (FIPS 202) for the 8-bit AVR (ATmega128), avr-fast.

    python3 gen_keccak_avr.py            (writes keccakf1600_avr.S beside this file; --check compares)

Structure of a round (the loop body, run 24 times), all state accesses LDS/STS at constant addresses in
static buffers (so no pointer arithmetic and no 64-byte displacement windows):
  1. theta's D[x] = C[x-1] ^ rotl1(C[x+1]), one x at a time, kept in eight registers while ...
  2. ... the five lanes of column x are read, XORed with D[x] (theta), rotated (rho) and written to
     their pi position in the scratch buffer T: the byte part of every rotation is free (the store
     addresses are renamed), only the bit part (at most 4 single-bit rotations, left or right,
     whichever is shorter) executes;
  3. chi, byte slice by byte slice: for byte j and plane y the five bytes B[x,y]_j are loaded, the five
     outputs B[x] ^ (~B[x+1] & B[x+2]) stored to A, iota XORs the round-constant byte (LPM) into lane
     0, and the column parities C[x]_j of the new state accumulate in five registers - theta's parity
     for the next round costs no extra pass over the state.
The C prototype's state is copied into the static A at entry (with the first parities) and back at exit.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)


def round_constants() -> list[int]:
    """FIPS 202 Algorithm 5/6: rc(t) from the LFSR x^8 + x^6 + x^5 + x^4 + 1."""
    def rc(t: int) -> int:
        if t % 255 == 0:
            return 1
        r = [1, 0, 0, 0, 0, 0, 0, 0]
        for _ in range(t % 255):
            r = [0] + r
            r[0] ^= r[8]
            r[4] ^= r[8]
            r[5] ^= r[8]
            r[6] ^= r[8]
            r = r[:8]
        return r[0]
    out = []
    for ir in range(24):
        v = 0
        for j in range(7):
            v |= rc(j + 7 * ir) << ((1 << j) - 1)
        out.append(v)
    return out


def rho_offsets() -> dict[tuple[int, int], int]:
    """FIPS 202 Algorithm 2: the offsets along the (x, y) -> (y, 2x + 3y) walk."""
    off = {(0, 0): 0}
    x, y = 1, 0
    for t in range(24):
        off[(x, y)] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return off


def lane(x: int, y: int) -> int:
    return 8 * (x % 5 + 5 * (y % 5))


D = [2, 3, 4, 5, 6, 7, 8, 9]          # D[x] of the column being processed
L = [10, 11, 12, 13, 14, 15, 16, 17]  # the lane being processed
B = [18, 19, 20, 21, 22]              # chi: the five input bytes of a slice
C = [2, 3, 4, 5, 6]                   # chi: the five parity bytes of the slice
TMP = 23                              # chi output / theta operand
RCB = 24                              # chi: the round-constant byte
CNT = 25                              # round counter


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cycles = 0

    def e(self, s: str, cyc: int = 1) -> None:
        self.lines.append("    " + s)
        self.cycles += cyc

    def label(self, s: str) -> None:
        self.lines.append(s + ":")

    def rotl1(self, r: list[int]) -> None:
        self.e(f"lsl r{r[0]}")
        for i in range(1, 8):
            self.e(f"rol r{r[i]}")
        self.e(f"adc r{r[0]}, r1")

    def rotr1(self, r: list[int]) -> None:
        self.e(f"bst r{r[0]}, 0")
        self.e(f"lsr r{r[7]}")
        for i in range(6, -1, -1):
            self.e(f"ror r{r[i]}")
        self.e(f"bld r{r[7]}, 7")

    def theta_rho_pi(self) -> None:
        off = rho_offsets()
        for x in range(5):
            for i in range(8):     # D[x] = C[x-1] ^ rotl1(C[x+1])
                self.e(f"lds r{D[i]}, kc + {lane(x + 1, 0) + i}", 2)
            self.rotl1(D)
            for i in range(8):
                self.e(f"lds r{TMP}, kc + {lane(x - 1, 0) + i}", 2)
                self.e(f"eor r{D[i]}, r{TMP}")
            for y in range(5):
                for i in range(8):
                    self.e(f"lds r{L[i]}, ka + {lane(x, y) + i}", 2)
                    self.e(f"eor r{L[i]}, r{D[i]}")
                r = off[(x, y)]
                q, s = divmod(r, 8)
                if s <= 4:
                    for _ in range(s):
                        self.rotl1(L)
                else:
                    for _ in range(8 - s):
                        self.rotr1(L)
                    q += 1
                # rotl by 8q: byte i of the result is byte i - q of the bit-rotated lane
                X, Y = y, (2 * x + 3 * y) % 5
                for i in range(8):
                    self.e(f"sts kt + {lane(X, Y) + i}, r{L[(i - q) % 8]}", 2)

    def chi_iota(self) -> None:
        for j in range(8):
            self.e(f"lpm r{RCB}, Z+", 3)
            for y in range(5):
                for x in range(5):
                    self.e(f"lds r{B[x]}, kt + {lane(x, y) + j}", 2)
                for x in range(5):
                    self.e(f"mov r{TMP}, r{B[(x + 1) % 5]}")
                    self.e(f"com r{TMP}")
                    self.e(f"and r{TMP}, r{B[(x + 2) % 5]}")
                    self.e(f"eor r{TMP}, r{B[x]}")
                    if x == 0 and y == 0:
                        self.e(f"eor r{TMP}, r{RCB}")
                    self.e(f"sts ka + {lane(x, y) + j}, r{TMP}", 2)
                    self.e(f"{'mov' if y == 0 else 'eor'} r{C[x]}, r{TMP}")
            for x in range(5):
                self.e(f"sts kc + {lane(x, 0) + j}, r{C[x]}", 2)


SAVED = list(range(2, 18)) + [28, 29]


def generate() -> str:
    g = Gen()
    for r in SAVED:
        g.e(f"push r{r}", 2)
    g.e("movw r26, r24")            # X = state
    g.e("movw r28, r24")            # Y keeps it for the copy-out (r24, r25 are used in the rounds)
    # copy in (LD X+, STS), with the parities of bytes 0..3 of every lane in r2..r21; those of bytes
    # 4..7 then from the copy (LDS, EOR): 40 parity bytes do not fit in the registers at once
    par = list(range(2, 22))
    for y in range(5):
        for x in range(5):
            for j in range(8):
                g.e("ld r0, X+", 2)
                g.e(f"sts ka + {lane(x, y) + j}, r0", 2)
                if j < 4:
                    g.e(f"{'mov' if y == 0 else 'eor'} r{par[4 * x + j]}, r0")
    for x in range(5):
        for j in range(4):
            g.e(f"sts kc + {lane(x, 0) + j}, r{par[4 * x + j]}", 2)
    for x in range(5):
        for j in range(4, 8):
            p = par[4 * x + j - 4]
            g.e(f"lds r{p}, ka + {lane(x, 0) + j}", 2)
            for y in range(1, 5):
                g.e(f"lds r0, ka + {lane(x, y) + j}", 2)
                g.e(f"eor r{p}, r0")
            g.e(f"sts kc + {lane(x, 0) + j}, r{p}", 2)
    g.e("ldi r30, lo8(keccak_rc)")
    g.e("ldi r31, hi8(keccak_rc)")
    g.e(f"ldi r{CNT}, 24")
    g.label(".Lkeccak_round")
    c0 = g.cycles
    g.theta_rho_pi()
    g.chi_iota()
    g.e(f"dec r{CNT}")
    g.e("breq .Lkeccak_done", 1)
    g.e("jmp .Lkeccak_round", 3)     # the body is beyond RJMP reach
    per_round = g.cycles - c0
    g.label(".Lkeccak_done")
    c1 = g.cycles
    g.e("movw r26, r28")
    for i in range(200):
        g.e(f"lds r0, ka + {i}", 2)
        g.e("st X+, r0", 2)
    for r in reversed(SAVED):
        g.e(f"pop r{r}", 2)
    g.e("ret", 4)
    total = c0 + 24 * per_round + (g.cycles - c1)
    rc = round_constants()
    table = "\n".join("    .byte " + ", ".join(f"0x{(v >> (8 * i)) & 0xFF:02x}" for i in range(8)) for v in rc)
    return HEADER.format(per_round=per_round, total=total) + "\n".join(g.lines) + f"""
    .size MCU_FN(keccakf1600, permute), . - MCU_FN(keccakf1600, permute)

    .section .progmem.data, "a", @progbits
keccak_rc:   ; the 24 round constants, little-endian bytes (FIPS 202 rc LFSR)
{table}

    .section .bss
    .local ka, kt, kc
    .comm ka, 200, 1   ; the state A (lane (x, y) at 8 (x + 5 y), little-endian)
    .comm kt, 200, 1   ; B = pi(rho(theta(A))), before chi
    .comm kc, 40, 1    ; C[x] = the column parities of A
"""


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_keccak_avr.py - do not edit. Keccak-f[1600] (FIPS 202) for the 8-bit AVR
 * (ATmega128), avr-fast.
 *
 * C prototype:
 *   void mcu_keccakf1600_avr_fast_permute(uint8_t *state);
 *   state: 200 bytes, lane (x, y) at byte 8 (x + 5 y), little-endian (the FIPS 202 byte order).
 *
 * Register map
 *   r2..r9    D[x] for the column being processed (theta)      r10..r17  the lane being processed
 *   r18..r22  chi: the five bytes B[x, y]_j of a slice          r2..r6    chi: the parities C[x]_j
 *   r23       chi output / theta operand      r24  the round-constant byte      r25  round counter
 *   r1        zero (the carry fed back by rotl 1)      Z  round-constant pointer (LPM, flash)
 *   X         the caller's state (copy in / out)      Y  the caller's state, kept
 * Static RAM (.bss, 440 bytes): ka = A, kt = B (pi(rho(theta(A)))), kc = the column parities. Every
 * access is an LDS/STS at a constant address: no pointer updates and no LDD displacement limit (63).
 * Not reentrant (one permutation at a time).
 * Techniques
 *   - theta + rho + pi in one pass, one column x at a time with D[x] in registers; the byte part of
 *     each rotation is a renaming of the store addresses, only its bit part (<= 4 one-bit rotations,
 *     left or right) executes.
 *   - chi + iota by byte slices; the column parities of the new state accumulate in five registers,
 *     so the next theta needs no pass of its own. The parities of the input come with the copy-in.
 * Cycles (from the generator's count): {per_round} per round, about {total} per call.
 * Constant time: straight-line code; the only branch is the round counter; no secret-dependent address.
 */
#include "mcucrypt/ns.h"

    .text
    .global MCU_FN(keccakf1600, permute)
    .type MCU_FN(keccakf1600, permute), @function
MCU_FN(keccakf1600, permute):
"""


def main() -> int:
    out = Path(__file__).with_name("keccakf1600_avr.S")
    return write_or_check({out: generate()}, "--check" in sys.argv, __file__)


if __name__ == "__main__":
    sys.exit(main())
