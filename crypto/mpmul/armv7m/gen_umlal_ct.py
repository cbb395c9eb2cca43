# SPDX-License-Identifier: MIT
"""Generate umlal_ct.S: cm3-umlal-ct, 256 to 2048 bits (constant-time UMLAL on radix-2^29 offset limbs;
Karatsuba in the digit domain at 512 bits, additive Karatsuba levels above).

    python3 crypto/mpmul/armv7m/gen_umlal_ct.py > crypto/mpmul/armv7m/umlal_ct.S

The technique (docs/mpmul-cm3.md, "cm3-umlal-ct"): UMLAL terminates early when an operand is below
2^16 (paper 003, Table 2), so every multiplier operand is forced to at least 2^16. The operands are cut
into limbs (digits) of 29 bits, x = 2^29, and each limb is sent with a *telescoped* offset:
d_0 = a_0 + x, d_i = a_i + (x - 1), so that sum d_i x^i = A + x^9 (the x's and the -1's cancel but for
x^9) and every operand is in [x - 1, 2x - 1). Every UMLAL then takes the constant worst case, 6 cycles,
and the offsets' correction is digit-aligned. At 256 bits (gen_k8; 9 limbs, X = x^9 = 2^261), modulo
2^512:
    A*B = (A + X)(B + X) - X ((A + X) + (B + X))     (X^2 = 2^522 vanishes),
so column 9 + k subtracts U_k = a'_k + b'_k, which column k leaves in the frame.

A column's at most 9 products of 30-bit operands stay below 2^63.2 and every accumulator value is a
non-negative column of the product plus carry (at least (x - 1)^2 before the correction), so one 64-bit
UMLAL accumulator (RdLo, RdHi) holds a column with no carry handling; the 29-bit digit is stored, the
accumulator shifted right by 29 (three instructions) is the next column's start.

At 512 bits (gen_k16d): one Karatsuba level in the radix-2^29 digit domain (A = A0 + x^9 A1), so the
three 9x9-digit products share one conversion of each operand and one packing, with telescoped offsets
(d_0 = a_0 + x, d_i = a_i + x - 1: sum d_i x^i = A0 + x^9, every operand in [x - 1, 2x - 1)) whose
correction is digit-aligned; the recombination is folded into the middle product's columns (the comment
above _k16_product and docs/mpmul-cm3.md). The taint checker proves those operands >= 2^16 from known
bounds (UBFX widths, the added constant, non-wrapping ADDs).

Above 512 bits (gen_kara): one level of *additive* Karatsuba per doubling,
    A*B = z0 + (z1 - z0 - z2) W^h + z2 W^2h,  z0 = A0 B0, z2 = A1 B1, z1 = (A0 + A1)(B0 + B1),
fully unrolled. The sums are one bit longer per level, which the 512-bit kernel's 18 digits (522 bits)
absorb: k16x takes 16 words plus a top word (at most 6) and writes 33 words. No absolute difference, sign
or mask is needed, unlike the subtractive form (cm3-fast). k32/k64 are the 1024/2048-bit levels, k32x the
top-word form of k32 (tops at most 5; at 2048 bits they are at most 1 and 2 into k32x and k16x).
"""
from __future__ import annotations

import sys

X = 29                      # radix bits
N = 9                       # limbs of 256 bits (9 * 29 = 261)

# The 256-bit kernel's frame (sp-relative, after push {r4-r11, lr}).
B_OFF = 0                   # b'_0..b'_8
U_OFF = B_OFF + 4 * N       # U_k = a'_k + b'_k, the correction at digit 9 + k
D_OFF = U_OFF + 4 * N       # digits 0..8 (raw words: 29-bit digit below junk); 9..17 stay in registers
RP_OFF = D_OFF + 4 * N      # result pointer
FRAME = RP_OFF + 4          # 112

LO, HI = "r9", "r10"


def cut(dst: str, words: list[str], i: int) -> list[str]:
    """dst = bits [29i, 29i + 29) of the 256-bit number whose 32-bit words are `words` (little endian)."""
    p = X * i
    w, s = divmod(p, 32)
    if s + X <= 32:
        return [f"ubfx {dst}, {words[w]}, #{s}, #{X}"]
    out = [f"lsr {dst}, {words[w]}, #{s}"]
    if w + 1 < 8:
        out.append(f"bfi {dst}, {words[w + 1]}, #{32 - s}, #{s + X - 32}")
    return out


def prologue(e, internal: bool) -> None:
    """Public routines save r4-r11 (AAPCS); the internal ones, called only by the Karatsuba levels
    (which keep nothing in registers across a call), save only the return address: 16 cycles less."""
    e("push {lr}" if internal else "push {r4-r11, lr}")


def epilogue(e, internal: bool) -> None:
    e("pop {pc}" if internal else "pop {r4-r11, pc}")


# ---- The 512-bit kernel: Karatsuba in the radix-2^29 digit domain ------------------------------------
#
# A = A0 + X A1 with X = x^9 = 2^261 (A0: digits 0..8, A1: digits 9..17, 18 digits of 29 bits = 522 bits
# hold 512 bits plus a top word of at most 6). Each 9-digit half is sent with *telescoped* offsets:
# d_0 = a_0 + x, d_i = a_i + (x - 1) for i >= 1, so that sum(d_i x^i) = A0 + X (the x's and the -1's
# cancel except x^9): every operand is in [x - 1, 2x - 1), at or above 2^16, and the offsets' correction
# is digit-aligned. With K = X for every operand (A0' = A0 + X, ..., S_A' = S_A + X, S_A = A0 + A1):
#     z0' = A0' B0', z2' = A1' B1', z1' = S_A' S_B',  M' = z1' - z0' - z2' = M - X^2 (the linear terms cancel)
#     A*B = z0' + M' X + z2' X^2 - X (A0' + B0') - X^3 (A1' + B1') + X^2 + X^3 + X^4.
# S_A' is normalized (29-bit digits plus the offsets, top digit a little above), S_B' is the raw digit sums
# plus the offsets (below 3x): a column of z1' is at most 9 products below 2^30 * 1.5 * 2^30, < 2^63.8.
# z0' and z2' are written as 17 clean digits and a top word; z1' is computed last and the recombination is
# folded into its columns: column k also takes + z0'_(9+k) (k < 9) or + z2'_(k-9) (k >= 9), and
# - z0'_k - z2'_k (- A0'_k - B0'_k for k < 9): every column of z1' is at least (x - 1)^2 > 2^57, so the
# column stays non-negative and its digit is the product's digit 9 + k, normalized on the way. Digits
# 27..35 (36) come from z2's top half, the carry, and - (A1' + B1') taken as raw sums (2(x - 1) added back
# through the carry register, which keeps every value within 32 bits signed). One packing at the end.
# The taint checker proves every UMLAL operand >= 2^16 from known bounds (UBFX/BFI/LSR widths, the added
# constant, non-wrapping ADDs; docs/constant-time.md).

K16 = {"A0": 0, "A1": 36, "SA": 72, "B0": 108, "B1": 144, "TB": 180, "Z0": 216, "Z2": 288, "D": 360,
       "N0": 472}                           # D: digits 9..36 (28 words); N0: z0'_k + A0'_k + B0'_k
K16_RP = K16["N0"] + 4 * 9
K16_BP = K16_RP + 4
K16_FRAME = K16_BP + 4                      # 36 (or 4) pushed + frame: a multiple of 8
assert (K16_FRAME + 4) % 8 == 0
MV = "mvn {}, #0xE0000000"                  # 2^29 - 1


def _bitpos(k: int) -> tuple[int, int]:
    return divmod(X * k, 32)


def _cut_raw(e, dst: str, word, k: int, top: str | None = None) -> None:
    """dst = digit k of the 512-bit number (bits 29k.. of its words; word(w) is the register of word w);
    top: the register holding word 16 (bits 512..), for digit 17 of the operands with a top word."""
    w, s = _bitpos(k)
    if s + X <= 32:
        e(f"ubfx {dst}, {word(w)}, #{s}, #{X}")
        return
    e(f"lsr {dst}, {word(w)}, #{s}")
    if w + 1 < 16:
        e(f"bfi {dst}, {word(w + 1)}, #{32 - s}, #{s + X - 32}")
    elif top is not None:
        e(f"orr {dst}, {dst}, {top}, lsl #{32 - s}")


def _k16_convert(e, ext: bool, side: str, pending: tuple[str, ...] = ()) -> None:
    """Cut an operand into its halves' offset digits and its sum's digits, to the frame: a (its words
    0..8 already in r3-r11, which the caller loaded) gives A0', A1' and the normalized S_A'; b (r1, which
    a's conversion loads from the frame; `pending`: a's last stores, issued after b's LDM) gives B0', B1'
    and S_B' as raw digit sums plus the offsets. Every limb is a UBFX, or an LSR and a BFI, of at most 29
    bits, plus x or x - 1 (in lr): the checker's known bounds see each at or above 2^16."""
    F = K16
    lo_off, hi_off, sum_off = (F["A0"], F["A1"], F["SA"]) if side == "a" else (F["B0"], F["B1"], F["TB"])
    ptr = "r1"
    if side == "b":
        e(f"ldm {ptr}, {{r3-r11}}")             # words 0..8 (a's: loaded by the caller)
        for x in pending:                       # a's last stores, after the LDM
            e(x)
    else:
        e(MV.format("lr"))                      # (kept through b's conversion)
    low = ["r12", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"]   # raw digits 0..8
    words = {w: f"r{3 + w}" for w in range(9)}
    e(f"ubfx r12, r3, #0, #{X}")
    for i in range(1, 9):                       # digit i over words i-1, i: in place of word i-1
        w, s = _bitpos(i)
        e(f"lsr {low[i]}, {low[i]}, #{s}")
        e(f"bfi {low[i]}, {words[w + 1]}, #{32 - s}, #{s + X - 32}")
    for i in range(9):
        if side == "a":                         # keep the raw digit for the normalized sum
            e(f"add r0, {low[i]}, {'#0x20000000' if i == 0 else 'lr'}")
            e(f"str r0, [sp, #{lo_off + 4 * i}]")
        else:                                   # the offset digit in place: the raw sum adds to it
            e(f"add {low[i]}, {low[i]}, {'#0x20000000' if i == 0 else 'lr'}")
            e(f"str {low[i]}, [sp, #{lo_off + 4 * i}]")
    # Digits 9..17: words 8..15 (+16), loaded as needed into registers that come free.
    free = ["r0", "r2"]
    wreg = {8: "r11"}
    last_stored: list[str] = ["r0"]
    top = None
    prev = None                                 # the register of T_(i-1) (a side)
    for i in range(9):
        k = 9 + i
        w, s = _bitpos(k)
        need = [w] + ([w + 1] if s + X > 32 and w + 1 < 16 else [])
        for nw in need:
            if nw not in wreg:                  # (not the register the last store read: no stall)
                r = next((f for f in free if f not in last_stored), free[0])
                free.remove(r)
                e(f"ldr {r}, [{ptr}, #{4 * nw}]")
                wreg[nw] = r
        while len(free) >= 3 and max(wreg) < 15:     # the next word in the same burst (1 cycle, not 2)
            r = next((f for f in free if f not in last_stored), free[0])
            free.remove(r)
            e(f"ldr {r}, [{ptr}, #{4 * (max(wreg) + 1)}]")
            wreg[max(wreg) + 1] = r
        if ext and k == 17:
            top = free.pop(0)
            e(f"ldr {top}, [{ptr}, #64]")
            e(f"ubfx {top}, {top}, #0, #3")     # (a top is at most 6; the width bounds the digit)
        if side == "a" and k == 17:
            e(f"ldr r1, [sp, #{K16_BP}]")       # b, for its conversion (a's words are all loaded)
        h = free.pop(0)
        _cut_raw(e, h, lambda ww: wreg[ww], k, top)
        if top is not None:
            free.append(top)
        for ow in list(wreg):                   # words no later digit reads
            if ow < _bitpos(k + 1)[0] or k == 17:
                free.append(wreg.pop(ow))
        t = free.pop(0)                         # (to the back of the list after use: the next
        free.append(t)                          # word load then goes to another register than a store's)
        e(f"add {t}, {h}, {'#0x20000000' if i == 0 else 'lr'}")
        e(f"str {t}, [sp, #{hi_off + 4 * i}]")
        last_stored = [t]
        ra = low[i]
        if side == "a":
            e(f"add {ra}, {ra}, {h}")           # T_i = a_i + a_(9+i) + carry: normalized sum digit
            if prev is not None:
                e(f"add {ra}, {ra}, {prev}, lsr #{X}")
                free.append(prev)
            if i < 8:
                e(f"ubfx {t}, {ra}, #0, #{X}")
                e(f"add {t}, {t}, {'#0x20000000' if i == 0 else 'lr'}")
            else:
                e(f"add {t}, {ra}, lr")         # the top digit stays whole
            e(f"str {t}, [sp, #{sum_off + 4 * i}]")
            last_stored = [t]
            prev = ra
        else:
            e(f"add {ra}, {ra}, {h}")           # raw sum plus the offset (below 3x)
            e(f"str {ra}, [sp, #{sum_off + 4 * i}]")
            last_stored = [ra]
            free.append(ra)
        free.append(h)


def _put(e, d: str, k: int, total: int, outs: tuple[str, str], rp: str) -> None:
    """Pack digit k (the low 29 bits of register d) into the result words: a word starts with UBFX into
    outs[w % 2], takes the next digits with BFI and is stored when complete (or at the product's end)."""
    bit, end = X * k, min(X * k + X, total)
    while bit < end:
        w, f = divmod(bit, 32)
        n = min(end - bit, 32 - f)
        o = outs[w % 2]
        if f == 0:
            e(f"ubfx {o}, {d}, #{bit - X * k}, #{n}")
        else:
            e(f"bfi {o}, {d}, #{f}, #{n}")
        if f + n == 32 or bit + n == total:
            e(f"str {o}, [{rp}, #{4 * w}]")
        bit += n


def _k16_product(e, a_off: int, b_off: int, out: str, pending: list[str], next_a: int | None,
                 base: str = "r12", total: int = 1024) -> list[str]:
    """One 9x9-digit product on the offset digits: a' into r0..r8 (LDM from r12, which the step before
    set to the frame's a' array; `pending` are that step's last stores, issued after the LDM so that no
    load follows a store), b' from the frame; out = "Z0"/"Z2" (17 clean digits and the top word to the
    frame) or "Z1" (the recombination folded in, digits 9..25 raw to D). Z0 also writes
    N_k = z0'_k + A0'_k + B0'_k (k < 9): its column k takes the pair (0, k) last, so B0'_k is still in a
    register and A0'_k is a'_k. next_a: the next product's a' offset (r12 is set for it). Returns the
    stores left pending."""
    F = K16
    split = out == "Z1"                         # z1: a'_5..a'_8 loaded before column 5, so r5-r8 are
    e(f"ldm {base}, {{r0-{'r4' if split else 'r8'}}}")     # more load registers (with the recombination's
    for x in pending:                           # loads, columns 0..4 fill more than three)
        e(x)
    lo, hi = "r9", "r10"
    for k in range(17):
        pairs = [(i, k - i) for i in range(min(8, k), max(0, k - 8) - 1, -1)]     # (0, k) last
        temps = ["r11", "r12", "lr"] + [f"r{i}" for i in range(max(0, k - 8))]
        if split and k < 5:                     # (first: the previous product's last stores read lr)
            temps = ["r5", "r6", "r7"] + (["r8"] if k < 4 else []) + temps
        if split and k == 4:
            e(f"add r8, sp, #{a_off + 20}")     # (r8 is no load register in column 4)
        if split and k == 5:
            e("ldm r8, {r5-r8}")
        if out == "Z1" and k >= 10:             # r0: the open result word, r1: the result pointer
            temps = [t for t in temps if t not in ("r0", "r1")]
        if out == "Z1" and k == 16:             # r11, r12, lr are kept for position 26's loads
            temps = temps[3:] + temps[:3]
        T = len(temps)
        rec = []                                # the recombination's loads (Z1)
        if out == "Z1":
            if k < 9:
                rec = [F["N0"] + 4 * k, F["Z2"] + 4 * k, F["Z0"] + 4 * (9 + k)]
            else:
                rec = [F["Z0"] + 4 * k, F["Z2"] + 4 * k, F["Z2"] + 4 * (k - 9)]
            if k == 16:                         # and position 26's, into r11, r12, lr (see gen_k16d)
                rec += [F["Z0"] + 68, F["Z2"] + 68, F["Z2"] + 32]
        chunks = [pairs[c:c + T] for c in range(0, len(pairs), T)]
        merged = len(chunks[-1]) + len(rec) <= T and out == "Z1"
        first = True
        bk = None
        for n, ch in enumerate(chunks):
            for (i, j), rb in zip(ch, temps):
                e(f"ldr {rb}, [sp, #{b_off + 4 * j}]")
                if (i, j) == (0, k):
                    bk = rb
                if out == "Z1" and k == 10 and n == 0 and (i, j) == ch[0]:
                    e(f"ldr r1, [sp, #{K16_RP}]")       # (in the burst)
            last = n == len(chunks) - 1
            if merged and last:                 # the recombination's loads ride in the last burst
                rt = temps[len(ch):len(ch) + 3]
                if k == 16:                     # position 26's in r11, r12, lr
                    for r, off in zip(["r11", "r12", "lr"], rec[3:]):
                        e(f"ldr {r}, [sp, #{off}]")
                for r, off in zip(rt, rec):
                    e(f"ldr {r}, [sp, #{off}]")
            for (i, j), rb in zip(ch, temps):
                e(f"{'umull' if first and k == 0 else 'umlal'} {lo}, {hi}, r{i}, {rb}")
                first = False
        if k == 16 and next_a is not None:
            e(f"add r12, sp, #{next_a}")        # the next product's a' (r12 is free now)
        if out == "Z1":
            t1, t2, t3 = rt if merged else temps[:3]
            if not merged:
                for r, off in zip((t1, t2, t3), rec):
                    e(f"ldr {r}, [sp, #{off}]")
            e(f"add {t1}, {t1}, {t2}")
            if k < 9:                           # N_k + z2'_k < 2^32; + z0'_(9+k) - that, in 64 bits
                e(f"adds {lo}, {lo}, {t3}")
                e(f"adc {hi}, {hi}, #0")
                e(f"subs {lo}, {lo}, {t1}")
                e(f"sbc {hi}, {hi}, #0")
            else:
                if k == 9:
                    e(f"add {t3}, {t3}, #1")                  # + X^2
                e(f"sub {t3}, {t3}, {t1}")                    # |.| < 2^30
                e(f"adds {lo}, {lo}, {t3}")
                e(f"adc {hi}, {hi}, {t3}, asr #31")
            if k < 10:
                e(f"str {lo}, [sp, #{F['D'] + 4 * k}]")     # digit 9 + k (raw), packed at the end
            else:
                _put(e, lo, 9 + k, total, ("r0", "r0"), "r1")   # packed now
            if k == 9:                          # digit 18's bits in word 17 open it, in r0
                w, f = divmod(X * 18, 32)
                e(f"ubfx r0, {lo}, #{32 * (w + 1) - X * 18}, #{X * 19 - 32 * (w + 1)}")
            tail = []
        else:
            d = "lr" if bk != "lr" else "r11"
            e(f"ubfx {d}, {lo}, #0, #{X}")
            tail = [f"str {d}, [sp, #{F[out] + 4 * k}]"]
            if out == "Z0" and k < 9:
                e(f"add {bk}, {bk}, r{k}")
                e(f"add {bk}, {bk}, {d}")
                tail.append(f"str {bk}, [sp, #{F['N0'] + 4 * k}]")
            if k < 16:
                for x in tail:
                    e(x)
                tail = []
        e(f"lsr {lo}, {lo}, #{X}")
        e(f"orr {lo}, {lo}, {hi}, lsl #{32 - X}")
        if k < 16 or out == "Z1":
            e(f"lsr {hi}, {hi}, #{X}")
    if out != "Z1":
        tail.append(f"str {lo}, [sp, #{F[out] + 4 * 17}]")  # the top (below 2^31)
    return tail


def _mem(ins: str) -> tuple[str, str, int] | None:
    """(data register, base register, offset) of a single LDR/STR with an immediate offset, else None."""
    import re
    m = re.match(r"(ldr|str) (\w+), \[(\w+)(?:, #(\d+))?\]$", ins)
    return (m.group(2), m.group(3), int(m.group(4) or 0)) if m else None


def _writes(ins: str) -> str | None:
    """The register an ALU instruction or a load writes (its first operand), None for stores and others."""
    op = ins.split()[0]
    if op.startswith(("str", "stm", "push", "pop", "b", "cmp", "tst")) or (op == "ldm" and "!" not in ins):
        return None
    return ins.split()[1].rstrip(",")


def schedule(lines: list[str]) -> list[str]:
    """Move a load above the store right before it (a load right after a store costs a cycle on the M3),
    when that is safe: the load neither reads nor writes the store's registers, the two address different
    words (the frame at different offsets, or the frame and an operand), and the instruction before the
    store does not write the load's base (which would stall the load instead)."""
    out = list(lines)
    for n in [m for _ in range(4) for m in range(1, len(out) - 1)]:
        st, ld = _mem(out[n]) if out[n].startswith("str ") else None, \
            _mem(out[n + 1]) if out[n + 1].startswith("ldr ") else None
        if not st or not ld:
            continue
        if ld[0] in (st[0], st[1]) or (ld[1] == st[1] and ld[2] == st[2]):
            continue
        if ld[1] != st[1] and "sp" not in (ld[1], st[1]):
            continue                            # two operand pointers: may alias
        if _writes(out[n - 1]) == ld[1]:
            continue
        out[n], out[n + 1] = out[n + 1], out[n]
    return out


def gen_k16d(ext: bool, internal: bool = False) -> str:
    """mpmul512 (ext: 17-word operands with tops <= 6, 33-word product) as one digit-domain Karatsuba."""
    F = K16
    L: list[str] = []
    e = L.append
    prologue(e, internal)
    e(f"sub sp, sp, #{K16_FRAME}")
    e("ldm r1, {r3-r11}")                                     # a's words 0..8
    e(f"str r0, [sp, #{K16_RP}]")
    e(f"str r2, [sp, #{K16_BP}]")
    _k16_convert(e, ext, "a")
    pa: list[str] = []
    while L[-1].startswith("str ") and L[-1].split()[1].rstrip(",") not in [f"r{i}" for i in range(1, 12)]:
        pa.insert(0, L.pop())
    _k16_convert(e, ext, "b", tuple(pa))
    pend = []
    while L[-1].startswith("str "):                           # b's last stores: after the LDM
        pend.insert(0, L.pop())
    pend = _k16_product(e, F["A0"], F["B0"], "Z0", pend, F["A1"], base="sp")
    pend = _k16_product(e, F["A1"], F["B1"], "Z2", pend, F["SA"])
    _k16_product(e, F["SA"], F["TB"], "Z1", pend, None, total=1056 if ext else 1024)
    # Position 26: + z2'_8 - z0'_17 - z2'_17 (signed from here on; loaded in column 16's burst into
    # r11, r12, lr); the digit stays in r9.
    e("add r11, r11, r12")                                    # < 2^32
    e("adds r9, r9, lr")
    e("adc r10, r10, #0")
    e("subs r9, r9, r11")
    e("sbc r10, r10, #0")
    e(f"lsr r12, r9, #{X}")
    e(f"orr r12, r12, r10, lsl #{32 - X}")                    # carry into 27 (small, signed)
    # ---- Pack digits 0..18 (0..8 from z0, 9..18 from D; 19..25 were packed in z1's columns, word 23
    # is open in r0) and 26 (in r9), loads in bursts of seven; the result pointer is in r1.
    total = 1056 if ext else 1024
    lds = ["r4", "r5", "r6", "r7", "r8", "r10", "r11"]
    addr = lambda k: F["Z0"] + 4 * k if k < 9 else F["D"] + 4 * (k - 9)   # noqa: E731
    for k0 in range(0, 19, len(lds)):
        ks = range(k0, min(k0 + len(lds), 19))
        for k, r in zip(ks, lds):
            e(f"ldr {r}, [sp, #{addr(k)}]")
        for k, r in zip(ks, lds):
            _put(e, r, k, total, ("r2", "r3"), "r1")
    outs = ("r2", "r0")                         # word 23 (odd) is in r0

    def put(d: str, k: int) -> None:
        _put(e, d, k, total, outs, "r1")

    put("r9", 26)
    # ---- Positions 27..35: v = z2'_(9+i) + c - (a_(9+i) + b_(9+i)), packed as they come. The carry
    # register holds c + 2(x - 1) (c + 2x + 1 at 27: digit 0's offsets are x, and + X^3), so A1' + B1' is
    # subtracted whole and every value stays within 32 bits signed.
    e(MV.format("lr"))
    e("add lr, lr, lr")                                       # 2(x - 1)
    e("add r12, r12, #0x40000000")
    e("add r12, r12, #1")
    for i in range(9):
        z, a, b = ("r3", "r4", "r5") if i % 2 == 0 else ("r6", "r7", "r8")
        if i % 2 == 0:                          # two positions' loads in one burst
            for q in range(i, min(i + 2, 9)):
                for r, off in zip(("r3", "r4", "r5") if q % 2 == 0 else ("r6", "r7", "r8"),
                                  (F["Z2"] + 4 * (9 + q), F["A1"] + 4 * q, F["B1"] + 4 * q)):
                    e(f"ldr {r}, [sp, #{off}]")
        e(f"add {a}, {a}, {b}")
        e(f"add {z}, {z}, r12")
        e(f"sub {z}, {z}, {a}")
        if i < 8 or ext:
            e(f"add r12, lr, {z}, asr #29")
        put(z, 27 + i)
    if ext:                                                   # position 36: the carry + X^4 - 2 X^4
        e("sub r4, r12, lr")
        e("sub r4, r4, #1")
        put("r4", 36)
    e(f"add sp, sp, #{K16_FRAME}")
    epilogue(e, internal)
    return "\n".join("    " + x for x in schedule(L))


def gen_k8() -> str:
    """mpmul256 with telescoped offsets (the 512-bit kernel's, docs/mpmul-cm3.md): limbs d_0 = a_0 + x,
    d_i = a_i + (x - 1), so A' = A + X (X = x^9 = 2^261) and, modulo 2^512,
        A*B = A'B' - X (A' + B')      (X^2 = 2^522 vanishes),
    a digit-aligned correction: column 9 + k subtracts U_k = A'_k + B'_k, which column k leaves in the
    frame (it takes the pair (0, k) last, so b'_k is still in a register and a'_k is in r_k). The rest is
    gen()'s kernel without its running window: b' to the frame, a' in r0..r8, 17 columns, digits 0..8 to
    the frame and 9..17 in registers, one packing."""
    L: list[str] = []
    e = L.append
    bw = ["r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"]
    prologue(e, False)
    e(f"sub sp, sp, #{FRAME}")
    e("ldm r2, {r3-r10}")
    e("mvn lr, #0xE0000000")                    # x - 1
    e(f"str r0, [sp, #{RP_OFF}]")
    for i in range(N):
        t = "r11" if i % 2 == 1 else "r0"
        L.extend(cut(t, bw, i))
        e(f"add {t}, {t}, {'#0x20000000' if i == 0 else 'lr'}")
        if i < N - 1:
            e(f"str {t}, [sp, #{B_OFF + 4 * i}]")
    # a'_0..a'_8 into r0..r8, cut in place over the words (r4-r11): a'_i overwrites word i-4, which limb
    # i-3 was the last to read.
    aw = ["r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11"]
    e("ldm r1, {r4-r11}")
    e(f"str r0, [sp, #{B_OFF + 4 * (N - 1)}]")  # b'_8, after the LDM (a load right after a store waits)
    for i in range(N):
        L.extend(cut(f"r{i}", aw, i))
        e(f"add r{i}, r{i}, {'#0x20000000' if i == 0 else 'lr'}")
    lo = LO
    held: list[str] = []
    for k in range(2 * N - 1):
        pairs = [(i, k - i) for i in range(min(N - 1, k), max(0, k - N + 1) - 1, -1)]   # (0, k) last
        dead = [f"r{i}" for i in range(max(0, k - N + 1))]
        temps = ["r11", "r12", "lr"] + [r for r in dead if r not in held and r != lo]
        T = len(temps)
        chunks = [pairs[c:c + T] for c in range(0, len(pairs), T)]
        extra = ([U_OFF + 4 * (k - N)] if k >= N else []) + ([U_OFF + 4 * (N - 1)] if k == 2 * N - 2 else [])
        merged = len(chunks[-1]) + len(extra) <= T
        first = True
        bk = None
        xr: list[str] = []
        for n, ch in enumerate(chunks):
            for (i, j), rb in zip(ch, temps):
                e(f"ldr {rb}, [sp, #{B_OFF + 4 * j}]")
                if (i, j) == (0, k):
                    bk = rb
            if merged and n == len(chunks) - 1 and extra:
                xr = temps[len(ch):len(ch) + len(extra)]
                for r, off in zip(xr, extra):
                    e(f"ldr {r}, [sp, #{off}]")
            for (i, j), rb in zip(ch, temps):
                e(f"{'umull' if first and k == 0 else 'umlal'} {lo}, {HI}, r{i}, {rb}")
                first = False
        if extra and not merged:
            xr = [t for t in temps if t != bk][:len(extra)]
            for r, off in zip(xr, extra):
                e(f"ldr {r}, [sp, #{off}]")
        if k < N:
            e(f"add {bk}, {bk}, r{k}")          # U_k = b'_k + a'_k
            e(f"str {bk}, [sp, #{U_OFF + 4 * k}]")
        else:
            e(f"subs {lo}, {lo}, {xr[0]}")      # - U_(k-9), at digit 9 + (k - 9)
            e(f"sbc {HI}, {HI}, #0")
        if k < N:
            e(f"str {lo}, [sp, #{D_OFF + 4 * k}]")
            new = lo
        else:
            held.append(lo)
            dead_now = [f"r{i}" for i in range(k - N + 2)]      # a'_(k-8) died in this column
            new = next(r for r in dead_now if r not in held and r not in xr[1:])
        e(f"lsr {new}, {lo}, #{X}")
        e(f"orr {new}, {new}, {HI}, lsl #{32 - X}")
        if k < 2 * N - 2:
            e(f"lsr {HI}, {HI}, #{X}")
        else:
            e(f"sub {new}, {new}, {xr[1]}")     # digit 17 - U_8 (modulo 2^32: only its low bits count)
        lo = new
    held.append(lo)
    total = 512
    free = [f"r{i}" for i in range(13)] + ["lr"]
    free = [r for r in free if r not in held]
    rp, outs, lds = free[0], free[1:3], free[3:5]
    e(f"ldr {rp}, [sp, #{RP_OFF}]")
    for k in range(18):
        if k < N:
            if k % 2 == 0:
                for q in range(k, min(k + 2, N)):
                    e(f"ldr {lds[q % 2]}, [sp, #{D_OFF + 4 * q}]")
            d = lds[k % 2]
        else:
            d = held[k - N]
        _put(e, d, k, total, (outs[0], outs[1]), rp)
    e(f"add sp, sp, #{FRAME}")
    epilogue(e, False)
    return "\n".join("    " + x for x in schedule(L))


HEADER = """/* SPDX-License-Identifier: MIT */
/* GENERATED by gen_umlal_ct.py (python3 crypto/mpmul/armv7m/gen_umlal_ct.py > umlal_ct.S): do not edit.
 *
 * cm3-umlal-ct: constant-time UMLAL product scanning on offset radix-2^29 limbs (256 bits), one
 * Karatsuba level in the digit domain (512 bits), additive Karatsuba levels above (1024, 2048 bits), all
 * straight-line.
 *
 * Public entries (AAPCS: they save r4-r11):
 * void mpmul_cm3_umlal_k8(uint32_t r[16], const uint32_t a[8], const uint32_t b[8]);     = mpmul256 mul
 * void mpmul_cm3_umlal_k16(uint32_t r[32], const uint32_t a[16], const uint32_t b[16]);  = mpmul512 mul
 * void mpmul_cm3_umlal_k32(uint32_t r[64], const uint32_t a[32], const uint32_t b[32]);  = mpmul1024 mul
 * void mpmul_cm3_umlal_k64(uint32_t r[128], const uint32_t a[64], const uint32_t b[64]); = mpmul2048 mul
 * Internal forms, called only by the levels above (they save lr alone and clobber r0-r12: a level keeps
 * nothing in registers across a call): k16i, k32i (same contracts) and the top-word forms
 * k16xi(r[33], a[17], b[17]) with tops <= 6 and k32xi(r[65], a[33], b[33]) with tops <= 5: the
 * Karatsuba sums A0 + A1 carry a top word, one more per level at most (at 2048 bits: 1, 2 into k32xi,
 * k16xi).
 *
 * The 256-bit kernel (k8):
 * Trick: UMLAL takes 4..6 cycles by operand size (paper 003 Table 2: an operand that is zero or below
 * 2^16 terminates early). Every multiplier operand here is a 29-bit limb plus a telescoped offset
 * (d_0 = a_0 + x, d_i = a_i + x - 1, x = 2^29: sum d_i x^i = A + X, X = 2^261), in [x - 1, 2x - 1), so
 * every UMLAL takes the worst case, 6 cycles, whatever the data. Modulo 2^512 the offsets are removed by
 *     A*B = A'B' - X (A' + B'):  column 9 + k subtracts U_k = a'_k + b'_k.
 *
 * Phases: (1) b cut into 9 limbs + offsets (UBFX, or LSR then BFI, then ADD) to the frame; a cut into
 * a'_0..a'_8 in r0..r8. (2) 17 columns, fully unrolled: b'_j loaded in bursts of back-to-back LDRs (from
 * column 9 on also into the registers of a' limbs no later column reads), UMULL/UMLAL into (lo, r10);
 * column k < 9 takes the pair (0, k) last and leaves U_k = b'_k + a'_k in the frame, column 9 + k
 * subtracts it (its load rides in the column's burst); then (lo, r10) >>= 29. Digits 0..8 are stored raw
 * to the frame; from column 9 on the digit stays in lo and the shifted accumulator goes to a dead a'
 * register, which becomes lo. (3) the 18 digits (0..8 from the frame, 9..17 in registers) packed into 16
 * words by UBFX/BFI.
 *
 * Register map (phase 2)
 *   r0-r8    a'_0..a'_8 (dead ones become load registers, then accumulator and digit registers)
 *   r9       lo, the accumulator's low word, until column 9     r10  its high word
 *   r11, r12, lr  b'_j and U loads
 * Frame: b'[9] at sp+0, U[9] at sp+36, digits 0..8 at sp+72, r at sp+108.
 *
 * The 512-bit kernel (k16, k16i, k16xi): A = A0 + X A1, X = x^9 (digits 0..8 and 9..17). Telescoped
 * offsets: a half's digits go as d_0 = a_0 + x, d_i = a_i + (x - 1), so sum d_i x^i = A0 + X and every
 * operand is in [x - 1, 2x - 1) (>= 2^16), as in k8. With A0' = A0 + X, ..., S_A' = (A0 + A1) + X:
 *     A*B = z0' + (z1' - z0' - z2') X + z2' X^2 - X (A0' + B0') - X^3 (A1' + B1') + X^2 + X^3 + X^4,
 * z0' = A0' B0', z2' = A1' B1', z1' = S_A' S_B' (S_A' normalized, S_B' the raw digit sums: a column of z1'
 * stays below 2^63.8). Phases: (1) a and b cut into digits; A0', A1', S_A', B0', B1', S_B' to the frame.
 * (2) z0' (17 clean digits and its top to the frame; N_k = z0'_k + A0'_k + B0'_k for k < 9, its column k
 * taking the pair (0, k) last), z2' likewise, then z1' with the recombination folded into its columns:
 * column k also takes + z0'_(9+k) - N_k - z2'_k (k < 9) or + z2'_(k-9) - z0'_k - z2'_k (+1 at k = 9):
 * every column of z1' is at least (x - 1)^2, so it stays non-negative and its digit is the product's
 * digit 9 + k; digits 19..25 are packed into the result in those columns (r0: the open word, r1: r).
 * (3) digit 26, digits 0..18 packed, digits 27..35 (36) from z2'_(9+i) + the carry - (A1' + B1')_i (the
 * carry register holds the carry + 2(x - 1), so every value stays within 32 bits signed), packed as they
 * come. Register map of the products: r0-r8 a' (dead ones become load registers; z1 loads a'_5..a'_8
 * before its column 5 and uses r5-r8 for loads until then), r9:r10 the column
 * accumulator, r11, r12, lr b'_j and recombination loads. Frame: A0', A1', S_A', B0', B1', S_B' (9 words
 * each) at sp+0..216, z0' and z2' (18 each) at sp+216 and sp+288, digits 9..36 at sp+360, N at sp+472,
 * r at sp+508, b at sp+512.
 *
 * The Karatsuba levels (k32, k64; n words, h = n/2): A*B = z0 + (z1 - z0 - z2) W^h + z2 W^2h with
 * z1 = (A0 + A1)(B0 + B1) (additive: the sums' extra bits go in the top word, no signs). Frame: the two
 * sums (h + 1 words each), z1 (2h + 1), r, a, b. Steps: sums (LDM/ADCS/STM, 4 words a step); z1, z0, z2
 * by the level below; M = z1 - z0 - z2 over z1 with two borrow chains (each kept as 0/-1 by SBC x,x,x
 * and put back into C by RSBS x,x,#0); r[h..3h) += M; the carry and M's top word run through r[3h..4h).
 * Constant time: straight-line code, sp-relative or operand-pointer addresses, every UMLAL/UMULL operand
 * at or above 2^16 (in [x - 1, 3x)), which the taint checker proves from known bounds. */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb

"""



LEVELS = {16: "k16", 32: "k32", 64: "k64"}     # words of the operands -> routine name


def gen_kara(n: int, ext: bool, internal: bool = False) -> str:
    """One additive Karatsuba level at n words (h = n/2), unrolled: the sums, three calls of the level
    below (the 512-bit kernel at n = 32), the recombination. ext: operands of n words plus a top word (the
    sums of the level above), 2n + 1 product words.
    Frame: sa[h+1] at sp+0, sb[h+1] after it, z1[2h+1] after that, then r, a, b."""
    h = n // 2
    SA, SB, Z1 = 0, 4 * (h + 1), 8 * (h + 1)
    RAB = Z1 + 4 * (2 * h + 1)
    frame = RAB + 12
    frame += (4 - frame % 8) % 8                # 36 pushed + frame: sp stays 8-byte aligned
    below = f"mpmul_cm3_umlal_{LEVELS[h]}"      # + "i" / "xi": the internal forms
    L: list[str] = []
    e = L.append
    prologue(e, internal)
    e(f"sub sp, sp, #{frame}")
    e(f"str r0, [sp, #{RAB}]")
    e(f"str r1, [sp, #{RAB + 4}]")
    e(f"str r2, [sp, #{RAB + 8}]")
    # ---- sa = A0 + A1 (+ top), sb likewise: h + 1 words each, to the frame.
    for src, off in (("r1", SA), ("r2", SB)):
        e(f"add r12, {src}, #{4 * h}")          # A1, walking; src walks A0
        e(f"add r0, sp, #{off}")
        for blk in range(h // 4):
            e(f"ldm {src}!, {{r3-r6}}")
            e("ldm r12!, {r7-r10}")
            for q, (x, y) in enumerate(zip(("r3", "r4", "r5", "r6"), ("r7", "r8", "r9", "r10"))):
                e(f"{'adds' if q == 0 and blk == 0 else 'adcs'} {x}, {x}, {y}")
            e("stm r0!, {r3-r6}")
        if ext:
            e("ldr r3, [r12]")                  # the top word (LDR leaves C alone)
            e("adc r3, r3, #0")
        else:
            e("mov r3, #0")
            e("adc r3, r3, #0")
        e("str r3, [r0]")
    # ---- z1 = sa * sb (2h + 1 words), z0 = A0 B0 into r[0..2h), z2 = A1 B1 into r[2h..4h+e).
    e(f"add r0, sp, #{Z1}")
    e(f"add r1, sp, #{SA}" if SA else "mov r1, sp")
    e(f"add r2, sp, #{SB}")
    e(f"bl {below}xi")
    e(f"ldr r0, [sp, #{RAB}]")
    e(f"ldr r1, [sp, #{RAB + 4}]")
    e(f"ldr r2, [sp, #{RAB + 8}]")
    e(f"bl {below}i")
    e(f"ldr r0, [sp, #{RAB}]")
    e(f"ldr r1, [sp, #{RAB + 4}]")
    e(f"ldr r2, [sp, #{RAB + 8}]")
    e(f"add r0, r0, #{8 * h}")
    e(f"add r1, r1, #{4 * h}")
    e(f"add r2, r2, #{4 * h}")
    e(f"bl {below}{'xi' if ext else 'i'}")
    # ---- M = z1 - z0 - z2 in place over z1 (two borrow chains, saved as 0/-1 in r3 and lr and put
    # back into C with RSBS x, x, #0). M = A0 B1 + A1 B0 >= 0: its 2h + 1 words are exact.
    e(f"ldr r0, [sp, #{RAB}]")                  # z0, walking
    e(f"add r1, r0, #{8 * h}")                  # z2, walking
    e(f"add r2, sp, #{Z1}")                     # z1, walking
    regs4, regs4b = ("r4", "r5", "r6", "r7"), ("r8", "r9", "r10", "r11")
    for blk in range(h // 2):
        e("ldm r0!, {r8-r11}")                  # first: the STM before wrote r2 (address stall)
        e("ldm r2, {r4-r7}")
        if blk:
            e("rsbs r3, r3, #0")                # C = no borrow of chain z0
        for q, (x, y) in enumerate(zip(regs4, regs4b)):
            e(f"{'subs' if q == 0 and blk == 0 else 'sbcs'} {x}, {x}, {y}")
        e("sbc r3, r3, r3")                     # 0, or -1 after a borrow
        e("ldm r1!, {r8-r11}")
        if blk:
            e("rsbs lr, lr, #0")                # C = no borrow of chain z2
        for q, (x, y) in enumerate(zip(regs4, regs4b)):
            e(f"{'subs' if q == 0 and blk == 0 else 'sbcs'} {x}, {x}, {y}")
        e("sbc lr, lr, lr")
        e("stm r2!, {r4-r7}")
    # M[2h] = z1[2h] - borrows (- z2[2h]). (Bases written by the instruction just before a load or
    # store cost a cycle: the pointer set-up is spread between.)
    e(f"ldr r4, [sp, #{Z1 + 8 * h}]")
    e("add r3, r3, lr")
    e(f"sub r0, r0, #{4 * h}")                  # r + h words
    e(f"add r2, sp, #{Z1}")
    e("add r3, r3, r4")
    if ext:
        e("ldr r4, [r1]")
        e("sub r3, r3, r4")
    e(f"add r12, r0, #{8 * h}")                 # r + 3h words
    # ---- r[h..3h) += M[0..2h); r[3h..4h) += M[2h] + carry (; r[4h] += carry).
    for blk in range(h // 2):
        e("ldm r2!, {r8-r11}")                  # first: the STM before wrote r0
        e("ldm r0, {r4-r7}")
        for q, (x, y) in enumerate(zip(regs4, regs4b)):
            e(f"{'adds' if q == 0 and blk == 0 else 'adcs'} {x}, {x}, {y}")
        e("stm r0!, {r4-r7}")
    for blk in range(h // 8):                   # 8 words a step: the carry alone after the first
        e("ldm r12!, {r4-r11}")
        for q, x in enumerate(("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")):
            e(f"adcs {x}, {x}, {'r3' if q == 0 and blk == 0 else '#0'}")
        e("stmdb r12, {r4-r11}")                # back where they came from; r12 already moved on
    if ext:
        e("ldr r4, [r12]")
        e("adc r4, r4, #0")
        e("str r4, [r12]")
    e(f"add sp, sp, #{frame}")
    epilogue(e, internal)
    return "\n".join("    " + x for x in L)


def function(name: str, alias: str | None, body: str) -> str:
    names = [name] + ([alias] if alias else [])
    head = [f"    .section .text.{name}, \"ax\", %progbits", "    .balign 4"]
    head += [f"    .global {n}" for n in names] + ["    .thumb_func"]
    head += [f"    .type {n}, %function" for n in names] + [f"{n}:" for n in names]
    tail = [f"    .size {n}, . - {n}" for n in names]
    return "\n".join(head) + "\n" + body + "\n" + "\n".join(tail) + "\n"


if __name__ == "__main__":
    fs = [("mpmul_cm3_umlal_k8", "MCU_FN(mpmul256, mul)", gen_k8()),
          ("mpmul_cm3_umlal_k16", "MCU_FN(mpmul512, mul)", gen_k16d(False)),
          ("mpmul_cm3_umlal_k16i", None, gen_k16d(False, True)),
          ("mpmul_cm3_umlal_k16xi", None, gen_k16d(True, True)),
          ("mpmul_cm3_umlal_k32", "MCU_FN(mpmul1024, mul)", gen_kara(32, False)),
          ("mpmul_cm3_umlal_k32i", None, gen_kara(32, False, True)),
          ("mpmul_cm3_umlal_k32xi", None, gen_kara(32, True, True)),
          ("mpmul_cm3_umlal_k64", "MCU_FN(mpmul2048, mul)", gen_kara(64, False))]
    sys.stdout.write(HEADER + "\n".join(function(*f) for f in fs))
