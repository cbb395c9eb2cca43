#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate aes_table_cm3.S, the T-table AES-128 of implementation cm3-table (Cortex-M3):

    python3 crypto/aes/armv7m/gen_aes_table_cm3.py          # rewrites aes_table_cm3.S beside this script
    python3 crypto/aes/armv7m/gen_aes_table_cm3.py --check  # exit 1 if aes_table_cm3.S is out of date

The tables are computed here from the S-box (rv32/gen_aes_table.py computes it from its definition); the
rounds are emitted by two register-allocating patterns, described in the generated file's header and in
docs/aes-armv7m.md.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT_FILE = HERE / "aes_table_cm3.S"
sys.path.insert(0, str(HERE.parent / "rv32"))
from gen_aes_table import SBOX, gmul  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

INV_SBOX = [0] * 256
for _i, _s in enumerate(SBOX):
    INV_SBOX[_s] = _i

# TE[a] = bytes (S, S, 3S, 2S): the designers' T0 = (2S, S, S, 3S) rotated right by 8, so that byte 0 is
# S(a) and the last round reads the S-box with LDRB from the same table. T_r = ror(TE, ENC_ROR[r]).
TE = [s | (s << 8) | (gmul(s, 3) << 16) | (gmul(s, 2) << 24) for s in SBOX]
ENC_ROR = [24, 16, 8, 0]
# TD[a] = Td0 = bytes (14 IS, 9 IS, 13 IS, 11 IS); Td_r = ror(TD, DEC_ROR[r]).
TD = [gmul(s, 14) | (gmul(s, 9) << 8) | (gmul(s, 13) << 16) | (gmul(s, 11) << 24) for s in INV_SBOX]
DEC_ROR = [0, 24, 16, 8]

TB = "r12"                       # table base, in every routine
W13 = [f"r{i}" for i in range(12)] + ["lr"]


def enc_src(r: int, j: int) -> int:
    """Column of the input byte (row r) that output column j takes: ShiftRows."""
    return (j + r) % 4


def dec_src(r: int, j: int) -> int:
    """InvShiftRows."""
    return (j - r) % 4


def ext(d: str, x: str, r: int) -> str:
    """Byte r of x into d (zero-extended)."""
    if r == 0:
        return f"uxtb    {d}, {x}"
    if r == 3:
        return f"lsr     {d}, {x}, #24"
    return f"uxtb    {d}, {x}, ror #{8 * r}"


def eor_sh(d: str, a: str, b: str, kind: str, amt: int) -> str:
    amt %= 32
    if amt == 0:
        return f"eor     {d}, {a}, {b}"
    return f"eor     {d}, {a}, {b}, {kind} #{amt}"


def look(d: str, last: bool, base: str = TB, scaled: bool = True) -> str:
    sc = ", lsl #2" if scaled else ""
    return f"{'ldrb' if last else 'ldr '}    {d}, [{base}, {d}{sc}]"


def round13(X: list[str], free: list[str], koff: int, last: bool, extra: list[tuple[str, int]] = ()
            ) -> tuple[list[str], list[str], list[str], dict[str, str]]:
    """One encryption round over 13 registers with the round key at sp + koff (CTR).

    Chain 1: the twelve bytes of columns 0..2 are extracted (three into free registers, the top byte in
    place) and looked up in one run of twelve LDRs (2 + 11 cycles); the three values each output column
    gets from them are merged (two EORs, the first value's rotation left pending). Chain 2: column 3's four
    bytes, the four round-key words and `extra` frame words in one run; then two EORs per column.
    Full round: 16 extracts + 16 EORs + 20 loads in 2 runs = 54 cycles."""
    code: list[str] = []
    free = list(free)
    idx: dict[tuple[int, int], str] = {}
    for c in range(3):
        for r in range(4):
            d = free.pop(0) if r < 3 else X[c]
            code.append(ext(d, X[c], r))
            idx[(r, c)] = d
    for c in range(3):
        for r in range(4):
            code.append(look(idx[(r, c)], last))
    kind = "lsl" if last else "ror"

    def amount(r: int) -> int:
        return 8 * r if last else ENC_ROR[r]

    part: list[str] = []
    pend: list[int] = []
    for j in range(4):
        rows = [r for r in range(4) if enc_src(r, j) != 3]
        base = min(rows, key=amount) if last else rows[0]
        p = idx[(base, enc_src(base, j))]
        for r in rows:
            if r == base:
                continue
            v = idx[(r, enc_src(r, j))]
            code.append(eor_sh(p, p, v, kind, amount(r) - amount(base)))
            free.append(v)
        part.append(p)
        pend.append(amount(base))
    for r in range(4):
        d = free.pop(0) if r < 3 else X[3]
        code.append(ext(d, X[3], r))
        idx[(r, 3)] = d
    keys = [free.pop(0) for _ in range(4)]
    for r in range(4):
        code.append(look(idx[(r, 3)], last))
    for j in range(4):
        code.append(f"ldr     {keys[j]}, [sp, #{koff + 4 * j}]")
    named = {}
    for name, off in extra:
        reg = free.pop(0)
        code.append(f"ldr     {reg}, [sp, #{off}]")
        named[name] = reg
    for j in range(4):
        code.append(eor_sh(keys[j], keys[j], part[j], kind, pend[j]))
        r = next(r for r in range(4) if enc_src(r, j) == 3)
        code.append(eor_sh(keys[j], keys[j], idx[(r, 3)], kind, amount(r)))
        free.append(part[j])
        free.append(idx[(r, 3)])
    return code, keys, free, named


def round12(X: list[str], Y: list[str], tmp: list[str], rk: str, last: bool, dec: bool,
            base: str = TB, scaled: bool = True) -> list[str]:
    """One round over 12 registers, round key by LDM from rk (post-increment) into the output columns Y
    (ascending registers), then four groups: four extracts, four LDRs in one run, four EORs with the
    rotation (or, in the last round, the byte shift) as the barrel-shifted operand: 57 cycles."""
    code = [f"ldmia   {rk}!, {{{', '.join(Y)}}}"]
    src = dec_src if dec else enc_src
    rot = DEC_ROR if dec else ENC_ROR
    for r in range(4):
        for j in range(4):
            code.append(ext(tmp[j], X[src(r, j)], r))
        for j in range(4):
            code.append(look(tmp[j], last, base, scaled))
        for j in range(4):
            code.append(eor_sh(Y[j], Y[j], tmp[j], "lsl" if last else "ror", 8 * r if last else rot[r]))
    return code


def round12b(X: list[str], free: list[str], rk: str, last: bool, dec: bool, base: str = TB,
             scaled: bool = True) -> tuple[list[str], list[str], list[str]]:
    """One round over 12 registers (the round-key pointer takes the thirteenth) in two load runs: all of
    columns 0 and 1 and rows 0-1 of column 2 (ten look-ups), then the other six; merged per output column
    with one pending rotation (or byte shift); then the round key by LDM and one EOR a column.
    16 extracts + 16 EORs + 10 + 6 loads in two runs + LDM (5) = 55 cycles (round12: 57)."""
    src = dec_src if dec else enc_src
    rot = DEC_ROR if dec else ENC_ROR
    kind = "lsl" if last else "ror"

    def amount(r: int) -> int:
        return 8 * r if last else rot[r]
    code: list[str] = []
    free = list(free)
    idx: dict[tuple[int, int], str] = {}
    first = [(c, r) for c in (0, 1) for r in range(4)] + [(2, 0), (2, 1)]
    second = [(2, 2), (2, 3)] + [(3, r) for r in range(4)]
    part: dict[int, str] = {}
    pend: dict[int, int] = {}

    def run(group):
        for c, r in group:
            d = X[c] if r == 3 else free.pop(0)
            code.append(ext(d, X[c], r))
            idx[(r, c)] = d
        for c, r in group:
            code.append(look(idx[(r, c)], last, base, scaled))
        for c, r in group:
            j = next(j for j in range(4) if src(r, j) == c)
            v = idx[(r, c)]
            if j not in part:
                part[j], pend[j] = v, amount(r)
                continue
            p = part[j]
            if last and amount(r) < pend[j]:      # shifts cannot go negative: v becomes the base
                code.append(eor_sh(v, v, p, kind, pend[j] - amount(r)))
                part[j], pend[j] = v, amount(r)
                free.append(p)
            else:
                code.append(eor_sh(p, p, v, kind, amount(r) - pend[j]))
                free.append(v)
    run(first)
    run(second)
    keys = sorted(free, key=lambda r: int(r[1:]) if r[1:].isdigit() else 99)[:4]
    for k in keys:
        free.remove(k)
    code.append(f"ldmia   {rk}!, {{{', '.join(keys)}}}")
    for j in range(4):
        code.append(eor_sh(keys[j], keys[j], part[j], kind, pend[j]))
        free.append(part[j])
    return code, keys, free


def ind(lines: list[str]) -> str:
    return "".join(f"    {x}\n" if not x.endswith(":") and not x.startswith("//") else
                   (f"{x}\n" if x.endswith(":") else f"    {x}\n") for x in lines)


def table(name: str, words: list[int], per: int = 8, fmt: str = ".word", w: int = 8) -> str:
    out = [f"    .balign 4\n{name}:\n"]
    for i in range(0, len(words), per):
        out.append(f"    {fmt}   " + ", ".join(f"0x{v:0{w}x}" for v in words[i:i + per]) + "\n")
    return "".join(out)


def func(name: str, body: list[str]) -> str:
    return (f"    .section .text.MCU_FN(aes128, {name}), \"ax\", %progbits\n"
            f"    .global MCU_FN(aes128, {name})\n    .balign 4\n    .thumb_func\n"
            f"    .type MCU_FN(aes128, {name}), %function\nMCU_FN(aes128, {name}):\n"
            + ind(body) + f"    .size MCU_FN(aes128, {name}), . - MCU_FN(aes128, {name})\n\n")


def base_addr(reg: str, sym: str) -> list[str]:
    return [f"movw    {reg}, #:lower16:{sym}", f"movt    {reg}, #:upper16:{sym}"]


X_A = ["r4", "r5", "r6", "r7"]
X_B = ["r8", "r9", "r10", "r11"]
TMP = ["r0", "r1", "r2", "r3"]


def encrypt_fn() -> list[str]:
    c = ["push    {r0, r4-r11, lr}           // out at [sp]",
         "ldr     r4, [r1]                    // in: any alignment (LDR may be unaligned, LDM may not)",
         "ldr     r5, [r1, #4]", "ldr     r6, [r1, #8]", "ldr     r7, [r1, #12]",
         "mov     lr, r2", "ldmia   lr!, {r8-r11}                 // round key 0",
         "eor     r4, r4, r8", "eor     r5, r5, r9", "eor     r6, r6, r10", "eor     r7, r7, r11"]
    c += base_addr(TB, "aes128_cm3_te")
    x, free = X_A, TMP + X_B
    for rnd in range(1, 11):
        c.append(f"// round {rnd}")
        code, x, free = round12b(x, free, "lr", rnd == 10, False)
        c += code
    out = next(r for r in free)
    c += [f"ldr     {out}, [sp]"] + [f"str     {x[j]}, [{out}, #{4 * j}]" for j in range(4)]
    c += ["pop     {r0, r4-r11, pc}"]
    return c


def decrypt_fn() -> list[str]:
    c = ["push    {r0, r4-r11, lr}", "ldr     r4, [r1]", "ldr     r5, [r1, #4]", "ldr     r6, [r1, #8]",
         "ldr     r7, [r1, #12]", "mov     lr, r2", "ldmia   lr!, {r8-r11}",
         "eor     r4, r4, r8", "eor     r5, r5, r9", "eor     r6, r6, r10", "eor     r7, r7, r11"]
    c += base_addr(TB, "aes128_cm3_td")
    x, free = X_A, TMP + X_B
    for rnd in range(1, 11):
        c.append(f"// round {rnd}")
        if rnd == 10:
            c += base_addr(TB, "aes128_cm3_isbox")
            code, x, free = round12b(x, free, "lr", True, True, scaled=False)
        else:
            code, x, free = round12b(x, free, "lr", False, True)
        c += code
    out = next(r for r in free)
    c += [f"ldr     {out}, [sp]"] + [f"str     {x[j]}, [{out}, #{4 * j}]" for j in range(4)]
    c += ["pop     {r0, r4-r11, pc}"]
    return c


RCON = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36]


def keyschedule_fn() -> list[str]:
    c = ["push    {r4-r7, lr}", "ldr     r2, [r1]                    // key: any alignment",
         "ldr     r3, [r1, #4]", "ldr     r4, [r1, #8]", "ldr     r5, [r1, #12]",
         "str     r2, [r0]                    // STR with an offset: 1 cycle each (STM of 4: 5)",
         "str     r3, [r0, #4]", "str     r4, [r0, #8]", "str     r5, [r0, #12]"]
    c += base_addr(TB, "aes128_cm3_te")
    for i in range(10):
        c += [f"// round key {i + 1}: w0 ^= SubWord(RotWord(w3)) ^ rcon, then the running XOR",
              "uxtb    r1, r5, ror #8", "uxtb    r6, r5, ror #16", "lsr     r7, r5, #24", "uxtb    lr, r5",
              "ldrb    r1, [r12, r1, lsl #2]", "ldrb    r6, [r12, r6, lsl #2]",
              "ldrb    r7, [r12, r7, lsl #2]", "ldrb    lr, [r12, lr, lsl #2]",
              f"eor     r2, r2, #0x{RCON[i]:02x}", "eor     r2, r2, r1", "eor     r2, r2, r6, lsl #8",
              "eor     r2, r2, r7, lsl #16", "eor     r2, r2, lr, lsl #24",
              "eor     r3, r3, r2", "eor     r4, r4, r3", "eor     r5, r5, r4"]
        c += [f"str     r{2 + k}, [r0, #{16 * (i + 1) + 4 * k}]" for k in range(4)]
    c += ["pop     {r4-r7, pc}"]
    return c


def keyschedule_dec_fn() -> list[str]:
    """Encryption keys, then the equivalent inverse cipher's: round keys in reverse order, InvMixColumns
    on keys 1..9 as TD[S[b]] (TD's InvS undoes S: what is left is the InvMixColumns coefficients)."""
    c = ["push    {r0, r4-r11, lr}", "bl      MCU_FN(aes128, keyschedule)", "ldr     r0, [sp]",
         "add     r1, r0, #160                // swap round keys i and 10 - i (i = 0..4)",
         "1:", "ldmia   r0, {r2-r5}", "ldmia   r1, {r6-r9}", "stmia   r0!, {r6-r9}",
         "stmia   r1, {r2-r5}", "sub     r1, r1, #16", "cmp     r0, r1", "blo     1b",
         "ldr     r0, [sp]", "add     r0, r0, #16", "add     r1, r0, #144    // end of round key 9"]
    c += base_addr("r10", "aes128_cm3_te")
    c += base_addr("r11", "aes128_cm3_td")
    c += ["2:", "ldr     r2, [r0]",
          "uxtb    r3, r2", "uxtb    r4, r2, ror #8", "uxtb    r5, r2, ror #16", "lsr     r6, r2, #24",
          "ldrb    r3, [r10, r3, lsl #2]       // S[b] from TE's byte 0",
          "ldrb    r4, [r10, r4, lsl #2]", "ldrb    r5, [r10, r5, lsl #2]", "ldrb    r6, [r10, r6, lsl #2]",
          "ldr     r3, [r11, r3, lsl #2]", "ldr     r4, [r11, r4, lsl #2]", "ldr     r5, [r11, r5, lsl #2]",
          "ldr     r6, [r11, r6, lsl #2]",
          "eor     r3, r3, r4, ror #24", "eor     r3, r3, r5, ror #16", "eor     r3, r3, r6, ror #8",
          "str     r3, [r0], #4", "cmp     r0, r1", "blo     2b",
          "pop     {r0, r4-r11, pc}"]
    return c


# --- CTR ---------------------------------------------------------------------------------------------
# Frame (sp-relative) of the CTR routine.
F_RK = 0            # round keys 3..10 (8 x 16 bytes): sp-relative, so no register holds a key pointer
F_A0 = 128          # round-1 column 0 without the counter byte's look-up
F_C = 132           # round-2 columns without the look-up of round-1 column 0's byte (4 words)
F_N = 148           # the counter (native integer: the block's last four bytes, big-endian)
F_KB = 152          # round key 0, byte 15 (XORed onto the counter's low byte)
F_PIN, F_DELTA, F_PEND = 156, 160, 164   # in, out - in, in at the last whole block's end
F_RKP = 168         # the caller's round keys (for the batch precomputation)
F_S = 172           # IV words 0..2 ^ round key 0 (3 words)
F_K03 = 184         # round key 0, word 3
F_TAIL, F_TAILN, F_TAILOUT = 188, 192, 196
F_RET = 200         # precompute's return address
F_BUF = 204         # 16 bytes: the last partial block
FRAME = 220         # + 36 pushed bytes = 256, 8-byte aligned


def precompute_fn() -> list[str]:
    """Round 1 and 2 constants for the 256 counters sharing the current counter's upper 24 bits."""
    c = ["str     lr, [sp, #%d]" % F_RET,
         "ldr     r0, [sp, #%d]" % F_N, "ldr     r1, [sp, #%d]" % F_K03,
         "ldr     r4, [sp, #%d]" % F_S, "ldr     r5, [sp, #%d]" % (F_S + 4), "ldr     r6, [sp, #%d]" % (F_S + 8),
         "ldr     lr, [sp, #%d]" % F_RKP,
         "rev     r0, r0                      // the counter's bytes as the block holds them",
         "eor     r7, r0, r1                  // column 3 after round key 0",
         "add     lr, lr, #16                 // round key 1"]
    c += round12(X_A, X_B, TMP, "lr", False, False)
    c += ["lsr     r0, r7, #24                 // the counter byte's index", "ldr     r0, [r12, r0, lsl #2]",
          "eor     r0, r8, r0                  // A0 = column 0 without T3[that byte]",
          "str     r0, [sp, #%d]" % F_A0]
    c += round12(X_B, X_A, TMP, "lr", False, False)
    # C_j = Z_j ^ T_r[byte r of round-1 column 0], for the r with enc_src(r, j) == 0
    for j in range(4):
        r = next(r for r in range(4) if enc_src(r, j) == 0)
        c += [ext("r0", "r8", r), "ldr     r0, [r12, r0, lsl #2]",
              eor_sh("r0", X_A[j], "r0", "ror", ENC_ROR[r]), "str     r0, [sp, #%d]" % (F_C + 4 * j)]
    c += ["ldr     lr, [sp, #%d]" % F_RET, "bx      lr"]
    return c


RN, RKB = "r0", "r10"    # the counter and key byte 15, live across the loop branch (checked below)


def block_code(k: int) -> list[str]:
    """Counter block k (0 or 1) of a pair: rounds 1-2 from the batch constants, rounds 3..10 over 13
    registers, the XOR with the input at pin + 16k, and the loads the next block starts with. Entered at
    .Lblock<k> with RN = n, RKB = kb; block 1 advances pin by 32 and closes the loop."""
    c = [f".Lblock{k}:",
         f"lsls    r3, {RN}, #24                 // Z: the low byte wrapped: new batch",
         f"beq     .Lwrap{k}", f".Lafter_wrap{k}:",
         f"eor     r2, {RKB}, r3, lsr #24        // the counter byte after round key 0",
         f"adds    {RN}, {RN}, #1",
         f"ldr     r1, [sp, #{F_A0}]",
         "ldr     r2, [r12, r2, lsl #2]"]
    ys = ["r6", "r7", "r8", "r9"]
    c += [f"ldr     {ys[j]}, [sp, #{F_C + 4 * j}]" for j in range(4)]
    c += [f"str     {RN}, [sp, #{F_N}]", "eor     r2, r1, r2                  // round 1 column 0 (T3 = TE)"]
    # round 2: y_j = C_j ^ T_r[byte r of x0]
    regs = {0: "r3", 1: "r4", 2: "r5", 3: "r2"}
    c += [ext(regs[r], "r2", r) for r in range(4)]
    c += [look(regs[r], False) for r in range(4)]
    for j in range(4):
        r = next(r for r in range(4) if enc_src(r, j) == 0)
        c.append(eor_sh(ys[j], ys[j], regs[r], "ror", ENC_ROR[r]))
    X = ys
    free = [r for r in W13 if r not in X]
    for rnd in range(3, 11):
        c.append(f"// round {rnd}")
        extra = [("pin", F_PIN)] if rnd == 10 else []
        code, X, free, named = round13(X, free, F_RK + 16 * (rnd - 3), rnd == 10, extra)
        c += code
    pin = named["pin"]
    assert RN in free and RKB in free, (free, pin)
    free = [r for r in free if r not in (pin, RN, RKB)]
    ins = [free.pop(0) for _ in range(4)]
    delta, pend = free.pop(0), free.pop(0)
    o = 16 * k
    c += ["// keystream ^ input -> output; the next block's counter and key byte in the same load run"]
    c += [f"ldr     {ins[j]}, [{pin}, #{o + 4 * j}]" for j in range(4)]
    c += [f"ldr     {delta}, [sp, #{F_DELTA}]"] + ([f"ldr     {pend}, [sp, #{F_PEND}]"] if k else [])
    c += [f"ldr     {RN}, [sp, #{F_N}]", f"ldr     {RKB}, [sp, #{F_KB}]"]
    c += [f"add     {delta}, {pin}, {delta}             // out - 16k"]
    c += [f"eor     {X[j]}, {X[j]}, {ins[j]}" for j in range(4)]
    c += [f"str     {X[j]}, [{delta}, #{o + 4 * j}]" for j in range(4)]
    if k:
        c += [f"add     {pin}, {pin}, #32", f"str     {pin}, [sp, #{F_PIN}]",
              f"cmp     {pin}, {pend}", "bne     .Lblock0"]
    return c


# ctr's entry (after the push): refuse (-1, nothing written) a length whose blocks would wrap the low
# 32-bit counter word, (len - 1) / 16 > 2^32 - 1 - counter.
CTR32_WRAP_CHECK = ['ldr     r4, [sp, #36]               // iv (fifth argument)', 'ldr     r4, [r4, #12]               // the counter word: iv[12..15] big-endian, any alignment', 'rev     r4, r4', 'mvn     r4, r4                      // the blocks left after it: 2^32 - 1 - counter', "subs    r5, r2, #1                  // the last block's offset: (len - 1) / 16, 0 for len 0", 'lsr     r5, r5, #4', 'it      cc', 'movcc   r5, #0', 'cmp     r4, r5', 'bhs     1f', 'mov     r0, #-1                     // the low counter word would wrap: refuse, nothing written', 'pop     {r4-r11, pc}', '1:']


def ctr_fn() -> list[str]:
    c = ["push    {r4-r11, lr}"] + CTR32_WRAP_CHECK + [f"sub     sp, sp, #{FRAME}",
         f"ldr     r4, [sp, #{FRAME + 36}]       // iv (fifth argument)",
         f"str     r3, [sp, #{F_RKP}]", "bic     r5, r2, #15", "add     r5, r1, r5",
         "and     r6, r2, #15", "sub     r0, r0, r1", f"str     r0, [sp, #{F_DELTA}]", f"str     r1, [sp, #{F_PIN}]",
         f"str     r5, [sp, #{F_PEND}]", f"str     r6, [sp, #{F_TAIL}]", "movs    r7, #0",
         f"str     r7, [sp, #{F_TAILN}]",
         "ldr     r8, [r4]                    // iv: any alignment", "ldr     r9, [r4, #4]",
         "ldr     r10, [r4, #8]", "ldr     r11, [r4, #12]",
         "ldmia   r3!, {r0, r1, r2, r7}       // round key 0",
         "eor     r8, r8, r0", "eor     r9, r9, r1", "eor     r10, r10, r2",
         f"str     r8, [sp, #{F_S}]", f"str     r9, [sp, #{F_S + 4}]", f"str     r10, [sp, #{F_S + 8}]",
         f"str     r7, [sp, #{F_K03}]", "lsr     r7, r7, #24", f"str     r7, [sp, #{F_KB}]",
         "rev     r11, r11", f"str     r11, [sp, #{F_N}]",
         "add     r3, r3, #32                 // round keys 3..10 into the frame", "mov     r8, sp"]
    c += ["ldmia   r3!, {r0-r2, r4-r7, r9}", "stmia   r8!, {r0-r2, r4-r7, r9}"] * 4
    c += base_addr(TB, "aes128_cm3_te")
    c += ["lsls    r0, r11, #24", "it      ne",
          "blne    aes128_cm3_ctr_batch         // a low byte of 0 is precomputed by the block's wrap check",
          f"ldr     r2, [sp, #{F_PIN}]", f"ldr     r3, [sp, #{F_PEND}]",
          f"ldr     {RN}, [sp, #{F_N}]", f"ldr     {RKB}, [sp, #{F_KB}]", "cmp     r2, r3", "beq     .Ltail",
          "subs    r3, r3, r2                  // an odd number of whole blocks: start with block 1 of a pair",
          "tst     r3, #16", "beq     .Lblock0", "sub     r2, r2, #16", f"str     r2, [sp, #{F_PIN}]",
          "b       .Lblock1"]
    c += block_code(0) + block_code(1)
    c += [".Ltail:", f"ldr     r0, [sp, #{F_TAIL}]", "cbz     r0, .Ldone",
          "movs    r1, #0", f"str     r1, [sp, #{F_TAIL}]", f"str     r0, [sp, #{F_TAILN}]",
          f"ldr     r2, [sp, #{F_PIN}]", f"ldr     r3, [sp, #{F_DELTA}]", "add     r3, r2, r3",
          f"str     r3, [sp, #{F_TAILOUT}]", f"add     r4, sp, #{F_BUF}",
          "3:", "subs    r1, r0, #1", "ldrb    r5, [r2, r1]", "strb    r5, [r4, r1]", "mov     r0, r1",
          "bne     3b",
          "sub     r5, r4, #16                 // the buffer as block 1 of a pair",
          f"str     r5, [sp, #{F_PIN}]", "movs    r5, #0", f"str     r5, [sp, #{F_DELTA}]",
          "add     r5, r4, #16", f"str     r5, [sp, #{F_PEND}]",
          f"ldr     {RN}, [sp, #{F_N}]", f"ldr     {RKB}, [sp, #{F_KB}]", "b       .Lblock1",
          ".Ldone:", f"ldr     r0, [sp, #{F_TAILN}]", "cbz     r0, .Lexit",
          f"ldr     r3, [sp, #{F_TAILOUT}]", f"add     r4, sp, #{F_BUF}",
          "4:", "subs    r0, r0, #1", "ldrb    r5, [r4, r0]", "strb    r5, [r3, r0]", "bne     4b",
          ".Lexit:", f"add     sp, sp, #{FRAME}", "movs    r0, #0", "pop     {r4-r11, pc}",
          ".Lwrap0:", "bl      aes128_cm3_ctr_batch", f"ldr     {RN}, [sp, #{F_N}]", f"ldr     {RKB}, [sp, #{F_KB}]",
          f"lsls    r3, {RN}, #24", "b       .Lafter_wrap0",
          ".Lwrap1:", "bl      aes128_cm3_ctr_batch", f"ldr     {RN}, [sp, #{F_N}]", f"ldr     {RKB}, [sp, #{F_KB}]",
          f"lsls    r3, {RN}, #24", "b       .Lafter_wrap1"]
    return c


HEADER = """// SPDX-License-Identifier: MIT
/* AES-128 (FIPS-197) with one T-table on the Cortex-M3, implementation cm3-table.
 * GENERATED by gen_aes_table_cm3.py in this folder - edit the generator, not this file.
 *
 *   void mcu_aes128_cm3_table_keyschedule(uint32_t *rk, const uint8_t *key);
 *   void mcu_aes128_cm3_table_keyschedule_dec(uint32_t *rk, const uint8_t *key);
 *   void mcu_aes128_cm3_table_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_aes128_cm3_table_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   int mcu_aes128_cm3_table_ctr(uint8_t *out, const uint8_t *in, size_t len, const uint32_t *rk,
 *                                const uint8_t *iv);
 *     ctr returns 0, or -1 with nothing written when its blocks would wrap the counter word: (len - 1) / 16 above
 * 2^32 - 1 - counter (the full 128-bit increment is ctr128, crypto/aes/ref/aes_ctr128.c).
 *
 * rk: 11 round keys (44 little-endian words, the FIPS-197 bytes in order), 4-byte aligned; keyschedule_dec
 * writes the equivalent inverse cipher's keys (reverse order, InvMixColumns on keys 1..9). Blocks, keys and
 * the IV may have any alignment (LDR/STR only on them; LDM/STM only on rk and the frame). ctr: NIST SP
 * 800-38A counter mode, the IV's last four bytes a big-endian counter (mod 2^32).
 *
 * Techniques (docs/aes-armv7m.md):
 * - One 1 KiB table TE (= the designers' T0 rotated right by 8: bytes S, S, 3S, 2S): the other three
 *   T-tables are its rotations, applied free as the barrel-shifted operand of the EOR that merges the
 *   look-up; byte 0 is S itself, so the last round reads the S-box from the same table with LDRB. Each
 *   look-up: one extract (UXTB with rotation, or LSR #24), LDR [TE, idx, LSL #2], one EOR.
 * - Loads run back to back (the M3 pipelines a load after a load: 1 cycle instead of 2) with the extracts
 *   and EORs outside the runs. encrypt/decrypt (round keys by LDM, 12 working registers): a run of ten
 *   look-ups and one of six, merged with pending rotations, 55 cycles a round (the batch precomputation:
 *   four runs of four, 57, which leave its inputs intact). ctr: the round keys 3..10 are copied into the frame, so no register holds a key
 *   pointer and 13 registers work: a round is two runs (twelve look-ups; then four look-ups and the four key
 *   words), 54 cycles.
 * - ctr caches rounds 1 and 2 per batch of 256 counters (only the counter's low byte changes inside one):
 *   round 1 is one look-up (column 0's row-3 byte), round 2 four look-ups onto precomputed columns; the
 *   batch constants are recomputed when the low byte wraps (aes128_cm3_ctr_batch, 2 rounds).
 * - Tables in flash (.rodata), like the anchor's: a library has no writable static data (reentrancy rule of
 *   docs/api.md). At 0 wait states (the board's default part) a flash read costs what an SRAM read does;
 *   the bench records the flash data reads per call (docs/aes-armv7m.md: what that means on silicon).
 *
 * Timing: look-ups indexed by secret bytes (secret-dependent addresses). The Cortex-M3 has no data cache
 * and SRAM answers every address in the same time, so the count does not depend on the data on this core;
 * on a cached core it would leak. META says constant_time: false.
 *
 * Register map: r12 = table base everywhere. encrypt/decrypt: lr = round-key pointer (LDM post-increment),
 * r0-r11 state columns and look-up temps as round12b() in the generator allocates them, out on the stack;
 * the batch routine: r4-r7 and r8-r11 the columns (swapping each round), r0-r3 temps.
 * ctr: 13 registers (r0-r11, lr) allocated by round13() in the generator; pointers, counter and the batch
 * constants in the frame.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

    .section .rodata.aes128_cm3_tables, "a", %progbits
"""


def generate() -> str:
    out = [HEADER]
    out.append(table("aes128_cm3_te", TE))
    out.append(table("aes128_cm3_td", TD))
    out.append(table("aes128_cm3_isbox", INV_SBOX, per=16, fmt=".byte", w=2))
    out.append("\n    .text\n")
    out.append(func("keyschedule", keyschedule_fn()))
    out.append(func("keyschedule_dec", keyschedule_dec_fn()))
    out.append(func("encrypt", encrypt_fn()))
    out.append(func("decrypt", decrypt_fn()))
    out.append(func("ctr", ctr_fn()))
    out.append("    .section .text.aes128_cm3_ctr_batch, \"ax\", %progbits\n    .balign 4\n    .thumb_func\n"
               "    .type aes128_cm3_ctr_batch, %function\n"
               "// Batch constants (A0, C0..C3, KB) from the counter in the frame; clobbers r0-r11, lr.\n"
               "aes128_cm3_ctr_batch:\n" + ind(precompute_fn())
               + "    .size aes128_cm3_ctr_batch, . - aes128_cm3_ctr_batch\n")
    return "".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    return write_or_check({OUT_FILE: generate()}, a.check, __file__)


if __name__ == "__main__":
    sys.exit(main())
