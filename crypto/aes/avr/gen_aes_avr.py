# SPDX-License-Identifier: MIT
"""Generate aes128_avr.S: AES-128 (FIPS 197) key expansion and encryption for the 8-bit AVR
(ATmega128), avr-table.

    python3 gen_aes_avr.py            (writes aes128_avr.S beside this file; --check compares)

Encryption, fully unrolled (the generator tracks which register holds which state byte):
- the state lives in 16 registers; ShiftRows is a renaming of them (no instruction);
- AddRoundKey is fused into SubBytes: the round-key byte is loaded straight into ZL (LD ZL, X+),
  XORed with the state byte, and LPM reads S[ZL] from the 256-byte-aligned S-box page in flash
  (ZH = its page): 6 cycles a byte for both steps;
- MixColumns with a second flash page holding xtime, three look-ups a column: b_i = a_i ^ t ^
  xtime(a_i ^ a_(i+1)) with t = a0^a1^a2^a3, and as a2^a3 = t ^ a0^a1 and a3^a0 = t ^ a1^a2,
  xtime(a2^a3) = xtime(a0^a1) ^ xtime(t) (xtime is linear): only xtime(a0^a1), xtime(a1^a2) and
  xtime(t) are looked up. The indices are built directly in ZL (a1^a2 extended by a0^a3 gives t),
  the outputs are XORed in place: 23 cycles a column; ZH switches page twice per round.
The S-box and xtime tables are computed here from GF(2^8) arithmetic (FIPS 197, 5.1.1).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)


def gmul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = ((a << 1) ^ (0x11B if a & 0x80 else 0)) & 0x1FF
        b >>= 1
    return r & 0xFF


def sbox() -> list[int]:
    out = []
    for x in range(256):
        inv = 0 if x == 0 else next(y for y in range(1, 256) if gmul(x, y) == 1)
        s = inv
        for k in range(1, 5):
            s ^= ((inv << k) | (inv >> (8 - k))) & 0xFF
        out.append(s ^ 0x63)
    return out


def xtime(x: int) -> int:
    return ((x << 1) ^ (0x1B if x & 0x80 else 0)) & 0xFF


# 19 registers for the state and the three MixColumns temporaries: r0, r1 (cleared before returning),
# r18..r23 (call-clobbered), r2..r12 (saved). X = round keys, Z = table / in / out pointer,
# r24:r25 = out (kept).
POOL = [18, 19, 20, 21, 22, 23, 0, 1] + list(range(2, 13))
SAVED = list(range(2, 13))


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cycles = 0

    def e(self, s: str, cyc: int = 1) -> None:
        self.lines.append("    " + s)
        self.cycles += cyc


def encrypt(g: Gen) -> None:
    for r in SAVED:
        g.e(f"push r{r}", 2)
    g.e("movw r26, r20")                 # X = rk
    g.e("movw r30, r22")                 # Z = in
    s = POOL[:16]                        # s[p]: register of state byte p (p = row + 4 column)
    free = POOL[16:]
    for p in range(16):
        g.e(f"ld r{s[p]}, Z+", 2)
    g.e("ldi r31, hi8(aes_sbox)")
    for rnd in range(1, 11):
        # AddRoundKey (round key rnd - 1) + SubBytes, byte by byte in round-key order
        for p in range(16):
            g.e("ld r30, X+", 2)
            g.e(f"eor r30, r{s[p]}")
            g.e(f"lpm r{s[p]}, Z", 3)
        # ShiftRows: row r rotates left by r columns: new (r, c) = old (r, c + r)
        s = [s[(p % 4) + 4 * ((p // 4 + p % 4) % 4)] for p in range(16)]
        if rnd == 10:
            break
        g.e("ldi r31, hi8(aes_xtime)")
        x0, x1, xt = free
        for c in range(4):
            # b0 = a0 ^ t ^ xt(a0^a1), b1 = a1 ^ t ^ xt(a1^a2), and since a2^a3 = t ^ a0^a1 and
            # a3^a0 = t ^ a1^a2: b2 = a2 ^ t ^ xt(a0^a1) ^ xt(t), b3 = a3 ^ t ^ xt(a1^a2) ^ xt(t).
            # Three xtime look-ups; ZL ends holding t.
            a = s[4 * c:4 * c + 4]
            g.e(f"mov r30, r{a[0]}")
            g.e(f"eor r30, r{a[1]}")
            g.e(f"lpm r{x0}, Z", 3)          # xt(a0^a1)
            g.e(f"mov r30, r{a[1]}")
            g.e(f"eor r30, r{a[2]}")
            g.e(f"lpm r{x1}, Z", 3)          # xt(a1^a2)
            g.e(f"eor r30, r{a[0]}")
            g.e(f"eor r30, r{a[3]}")         # ZL = t
            g.e(f"lpm r{xt}, Z", 3)          # xt(t)
            g.e(f"eor r{x0}, r30")
            g.e(f"eor r{x1}, r30")
            g.e(f"eor r{a[0]}, r{x0}")
            g.e(f"eor r{a[1]}, r{x1}")
            g.e(f"eor r{a[2]}, r{x0}")
            g.e(f"eor r{a[3]}, r{x1}")
            g.e(f"eor r{a[2]}, r{xt}")
            g.e(f"eor r{a[3]}, r{xt}")
        g.e("ldi r31, hi8(aes_sbox)")
    # final AddRoundKey (round key 10) and store
    g.e("movw r30, r24")                 # Z = out
    for p in range(16):
        g.e("ld r24, X+", 2)
        g.e(f"eor r{s[p]}, r24")
        g.e(f"st Z+, r{s[p]}", 2)
    g.e("clr r1")
    for r in reversed(SAVED):
        g.e(f"pop r{r}", 2)
    g.e("ret", 4)


def keyschedule(g: Gen) -> None:
    """rk[0..15] = key; then 10 times: w0 ^= SubWord(RotWord(w3)) ^ Rcon, w1 ^= w0, w2 ^= w1, w3 ^= w2
    (FIPS 197, 5.2). The round key being built stays in 16 registers (no reloads); each S-box byte is
    read with ZL = the byte (MOV ZL, w / LPM ZL, Z) and XORed straight into w0; Rcon is an immediate
    (fully unrolled): 66 cycles a round. Registers: w = r18..r25, r0, r1, r2..r7 (r2..r7 saved),
    X rk (ST X+), Z the key, then ZL = index and ZH = the S-box page."""
    w = [18, 19, 20, 21, 22, 23, 24, 25, 0, 1, 2, 3, 4, 5, 6, 7]
    for r in KS_SAVED:
        g.e(f"push r{r}", 2)
    g.e("movw r26, r24")                 # X = rk
    g.e("movw r30, r22")                 # Z = key
    for i in range(16):
        g.e(f"ld r{w[i]}, Z+", 2)
        g.e(f"st X+, r{w[i]}", 2)
    g.e("ldi r31, hi8(aes_sbox)")
    rcon = 1
    for _ in range(10):
        for j, src in enumerate((13, 14, 15, 12)):   # RotWord: w0 ^= S[w13], w1 ^= S[w14], ...
            g.e(f"mov r30, r{w[src]}")
            g.e("lpm r30, Z", 3)
            g.e(f"eor r{w[j]}, r30")
        g.e(f"ldi r30, 0x{rcon:02x}")
        g.e(f"eor r{w[0]}, r30")
        rcon = ((rcon << 1) ^ (0x1B if rcon & 0x80 else 0)) & 0xFF
        for i in range(16):
            if i >= 4:
                g.e(f"eor r{w[i]}, r{w[i - 4]}")
            g.e(f"st X+, r{w[i]}", 2)
    g.e("clr r1")
    for r in reversed(KS_SAVED):
        g.e(f"pop r{r}", 2)
    g.e("ret", 4)


KS_SAVED = [2, 3, 4, 5, 6, 7]


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_aes_avr.py - do not edit. AES-128 (FIPS 197) for the 8-bit AVR (ATmega128), avr-table.
 *
 * C prototypes:
 *   void mcu_aes128_avr_table_keyschedule(uint8_t *rk, const uint8_t *key);
 *       rk: the 11 round keys, 176 bytes, in FIPS 197 byte order
 *   void mcu_aes128_avr_table_encrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk);
 *
 * encrypt register map
 *   r0, r1, r2..r12, r18..r23   19 registers: the 16 state bytes and the three MixColumns xtime values;
 *                               which byte lives where is tracked by the generator (ShiftRows is a
 *                               renaming). r1 is cleared before returning.
 *   X r26:r27   round keys (LD X+)        Z r30:r31  in, then ZL = table index, ZH = table page, then out
 *   r24:r25     out (kept until the store)
 * Techniques
 *   - AddRoundKey fused into SubBytes: LD ZL, X+ / EOR ZL, s / LPM s, Z (6 cycles a byte);
 *   - ShiftRows by renaming; MixColumns with an xtime page and three look-ups a column (xtime(a0^a1),
 *     xtime(a1^a2), xtime(t); xtime(a2^a3) and xtime(a3^a0) follow by linearity), 23 cycles a column;
 *   - fully unrolled; the two tables are 256-byte aligned flash pages, so ZH selects the table;
 *   - key schedule: the round key being built in 16 registers (r18..r25, r0, r1, r2..r7), S-box bytes
 *     by MOV ZL, w / LPM ZL, Z XORed straight into w0..w3, Rcon an immediate, fully unrolled.
 * Cycles (generator's count, without the CALL): encrypt about {enc}, key schedule {ks}.
 * Timing: LPM takes 3 cycles whatever the address and the ATmega128 has no cache, so encryption takes the
 * same time for every key and block; the look-ups are still indexed by secret bytes (secret-dependent
 * addresses, which the constant-time checker reports as such) - constant time on this core only.
 */
#include "mcucrypt/ns.h"

    .section .progmem.aes, "a", @progbits
    .p2align 8
aes_sbox:
{sbox}
aes_xtime:
{xt}

    .text
"""


def table(vals: list[int]) -> str:
    return "\n".join("    .byte " + ", ".join(f"0x{v:02x}" for v in vals[i:i + 16]) for i in range(0, 256, 16))


def generate() -> str:
    enc = Gen()
    encrypt(enc)
    ks = Gen()
    keyschedule(ks)
    out = HEADER.format(enc=enc.cycles, ks=ks.cycles, sbox=table(sbox()), xt=table([xtime(x) for x in range(256)]))
    for name, g in (("keyschedule", ks), ("encrypt", enc)):
        out += f"""
    .global MCU_FN(aes128, {name})
    .type MCU_FN(aes128, {name}), @function
MCU_FN(aes128, {name}):
""" + "\n".join(g.lines) + f"\n    .size MCU_FN(aes128, {name}), . - MCU_FN(aes128, {name})\n"
    return out


def main() -> int:
    out = Path(__file__).with_name("aes128_avr.S")
    return write_or_check({out: generate()}, "--check" in sys.argv, __file__)


if __name__ == "__main__":
    sys.exit(main())
