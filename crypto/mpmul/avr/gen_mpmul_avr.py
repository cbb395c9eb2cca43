# SPDX-License-Identifier: MIT
"""Generate mpmul_avr.S: constant-time 256-bit multiplication for the 8-bit AVR (ATmega128), avr-kara.

    python3 gen_mpmul_avr.py            (writes mpmul_avr.S beside this file; --check compares)

Structure (all straight-line, no call: mul256 is one routine of about 7.8 KB):
- K64: a 64x64-bit product with both operands in 16 registers, product scanning: 64 MULs (2 cycles)
  each followed by ADD/ADC/ADC (r1:r0 into a 3-byte column sum, the third with a zero register), the
  column's low byte stored and the sum renamed one byte down (a CLR for the new top, or in mul128 a
  MOVW from the zero pair r2:r3 that clears two every other column). 355 cycles with the stores.
- mul128: one level of subtractive Karatsuba over K64: L = aL*bL, H = aH*bH, then the differences
  aH - aL and bH - bL computed in place in the operand registers (which still hold aH, bH), made
  absolute with their sign masks ((d ^ m) - m, no branch), M = |da|*|db|, and the recombination
  r += B^8 * (L + H -/+ M) with the refined form T = L1 + H0 (used at B^8 and B^16). gen_mul128
  writes it as a local routine (the X25519 generator calls it so); mul256 inlines three tailored
  copies (mul128_from_regs, mul128_m_inline).
- mul256: the same level again over three inline mul128s in the order M, H, L, its differences and M
  in a stack frame. M's copy starts with the differences' low halves in the K64 operand registers,
  stores and loads through Y alone (X and Z are data), finds |bH - bL| bytes 8, 9, 11..14 still in
  registers (its H operand there, never in the frame) and dbL bytes 0, 1, 3..6 not overwritten (its
  differences use them); H's copy reads its operands by displacement;
  H's and L's copies keep aL bytes 0, 1 in r24:r25 through their H (not reloaded); L's copy, the last,
  leaves r[16..32) in registers without storing it. The recombination is one pass with two carry
  chains (combine_top) that forms T = L1 + H0 where L left L1.
The signs are masks: the product's sign selects -M or +M as (M ^ n) + (n & 1) with n = ~(ma ^ mb),
sign-extended by folding n into the top carry byte; no branch or address depends on the operands.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
OUT = HERE / "mpmul_avr.S"

ZR = 2                       # zero register (r1 is clobbered by MUL)
NREG = 3                     # sign mask / n
A = list(range(4, 12))       # K64 operand a (and T in the combine)
B = list(range(12, 20))      # K64 operand b
ACC = [20, 21, 22]           # column sum
SB = 23                      # second sign mask
# X r26:r27 result, Y r28:r29 a, Z r30:r31 b

CYC = {"mul": 2, "ld": 2, "ldd": 2, "st": 2, "std": 2, "push": 2, "pop": 2, "rcall": 3, "ret": 4,
       "sbiw": 2, "adiw": 2}


class Gen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cycles = 0

    def e(self, s: str) -> None:
        self.lines.append("    " + s)
        self.cycles += CYC.get(s.split()[0], 1)

    def label(self, s: str) -> None:
        self.lines.append(s)

    def comment(self, s: str) -> None:
        self.lines.append("    ; " + s)

    # ---- K64 -------------------------------------------------------------------------------------
    def k64(self, a: list[int], b: list[int], store, spare: int | None = None,
            zpair: int | None = None) -> None:
        """Product scanning of a[0..8) * b[0..8) (byte registers), store(k, reg) per result byte.
        With spare (a fourth column-sum register, ACC + [spare] two aligned pairs) and zpair (an even
        register pair holding zero, e.g. 2 for r2:r3), the new top of the column sum is zeroed two
        registers at a time: a stored byte's register and its pair partner, once both are stored, are
        cleared with one MOVW from the zero pair; the spare is the zero top in between."""
        c0, c1, c2 = ACC
        zero: set[int] = set()          # registers known to hold zero (pair mode)

        def fresh(junk: list[int]) -> int:
            """A zeroed register for the new top of the sum; junk = registers free to be cleared."""
            if zpair is None:
                self.e(f"clr r{junk[0]}")
                return junk[0]
            if zero:
                return zero.pop()
            r = junk[0]
            if r ^ 1 in junk:
                self.e(f"movw r{r & ~1}, r{zpair}")
                zero.add(r ^ 1)
                return r
            self.e(f"clr r{r}")
            return r

        for k in range(15):
            pairs = [(i, k - i) for i in range(8) if 0 <= k - i < 8]
            for n, (i, j) in enumerate(pairs):
                self.e(f"mul r{a[i]}, r{b[j]}")
                if k == 0:
                    store(0, 0)
                    self.e(f"mov r{c0}, r1")
                    if zpair is None:
                        self.e(f"clr r{c1}")
                        self.e(f"clr r{c2}")
                    else:                       # c1, c2 from the aligned pair c2:spare
                        assert spare is not None and c2 % 2 == 0 and spare == c2 + 1
                        self.e(f"movw r{c2}, r{zpair}")
                        c1, c2, spare_junk = c2, spare, c1
                    continue
                self.e(f"add r{c0}, r0")
                self.e(f"adc r{c1}, r1")
                # column 14's sum is the product's top 16 bits: no carry out; column 1's first product
                # adds into c1 = 0 (column 0's sum is below 2^16) and r1 <= 0xfe: no carry out either
                if k < 14 and (k, n) != (1, 0):
                    self.e(f"adc r{c2}, r{ZR}")
            if k == 0:
                continue
            store(k, c0)
            if k == 14:
                store(15, c1)
            elif k == 13:                       # column 14 (one product) never carries into a third byte
                c0, c1, c2 = c1, c2, c0
            else:
                junk = [c0] if zpair is None else [c0] + ([spare_junk] if spare_junk is not None else [])
                new = fresh(junk)
                if zpair is not None:
                    rest = [r for r in junk if r != new and r not in zero]
                    spare_junk = rest[0] if rest else None
                c0, c1, c2 = c1, c2, new

    def k64_keep(self, a: list[int], b: list[int], pool: list[int]) -> tuple[list[int], list[int]]:
        """K64 whose 16 result bytes stay in registers: a column's finished low byte keeps its register
        and a free one becomes the new top of the column sum; an operand register joins the free pool
        once its last product is done (a[i], b[i] after column i + 7). Returns (result registers,
        free registers)."""
        pool = list(pool)
        c0, c1, c2 = ACC
        out: list[int] = []
        for k in range(15):
            pairs = [(i, k - i) for i in range(8) if 0 <= k - i < 8]
            for n, (i, j) in enumerate(pairs):
                self.e(f"mul r{a[i]}, r{b[j]}")
                if k == 0:
                    if c0 % 2 == 0 and c1 == c0 + 1:   # byte 0 and the sum's low byte by one MOVW
                        self.e(f"movw r{c0}, r0")
                        out.append(c0)
                        c0, c1, c2 = c1, c2, pool.pop(0)
                    else:
                        out.append(pool.pop(0))
                        self.e(f"mov r{out[0]}, r0")
                        self.e(f"mov r{c0}, r1")
                    self.e(f"clr r{c1}")
                    self.e(f"clr r{c2}")
                    continue
                self.e(f"add r{c0}, r0")
                self.e(f"adc r{c1}, r1")
                if k < 14 and (k, n) != (1, 0):   # as in k64: no carry out of these two
                    self.e(f"adc r{c2}, r{ZR}")
            if k == 0:
                continue
            out.append(c0)
            if k == 14:
                out.append(c1)
                pool.append(c2)
            else:
                if k >= 7:
                    pool += [a[k - 7], b[k - 7]]
                # the partner of the last register taken, if free, so that the result bytes come out
                # in aligned pairs (the recombination moves them with MOVW)
                new = pool.pop(pool.index(c2 ^ 1) if c2 % 2 == 0 and c2 ^ 1 in pool else 0)
                c0, c1, c2 = c1, c2, new
                if k < 13:                      # column 14 never carries into a third byte
                    self.e(f"clr r{c2}")
        pool += [a[7], b[7]]
        return out, pool

    def combine_regs(self, M: list[int], T: list[int], rp: str, n: int, ct: int, off: int = 0,
                     store_top: bool = True) -> None:
        """mul128's recombination with M = |da||db| in the 16 registers M (h = 8), R = L + B^16 H at rp:
            T  = L1 + H0 (carry ct)                       U = [M0 ^ n | M1 ^ n] + [T | T] + (n & 1)
            U1 += ct                                      R[8..24) = [L0 | H1] + U
            R3 = H1 + e, e = n + all carries into B^24 + ct (in [-1, 4], sign-extended)
        n (0xff when the middle term is L + H - M) becomes e. R starts at rp + off. Without store_top,
        R[16..32) is left in M[8:] and T only (not stored): mul256's last call, whose caller uses it there."""
        for r in M:
            self.e(f"eor r{r}, r{n}")
        for j in range(8):
            self.e(f"ldd r{T[j]}, {rp}+{off + 8 + j}")
        for j in range(8):
            self.e(f"ldd r0, {rp}+{off + 16 + j}")
            self.e(f"{'add' if j == 0 else 'adc'} r{T[j]}, r0")
        self.e(f"clr r{ct}")                   # CLR (EOR) keeps the carry
        self.e(f"adc r{ct}, r{ZR}")
        self.e(f"cp r{ZR}, r{n}")              # C = n & 1 (0 - n borrows iff n = 0xff)
        for i in range(16):
            self.e(f"adc r{M[i]}, r{T[i % 8]}")
        self.e(f"adc r{n}, r{ZR}")
        self.e(f"add r{M[8]}, r{ct}")
        for i in range(9, 16):
            self.e(f"adc r{M[i]}, r{ZR}")
        self.e(f"adc r{n}, r{ct}")             # the carry out of U1 + ct, and ct itself at B^24
        for i in range(8):
            self.e(f"ldd r0, {rp}+{off + i}")
            self.e(f"{'add' if i == 0 else 'adc'} r{M[i]}, r0")
            self.e(f"std {rp}+{off + 8 + i}, r{M[i]}")
        for j in range(8):
            self.e(f"ldd r{T[j]}, {rp}+{off + 24 + j}")
            self.e(f"adc r{M[8 + j]}, r{T[j]}")
            if store_top:
                self.e(f"std {rp}+{off + 16 + j}, r{M[8 + j]}")
        self.e(f"adc r{n}, r{ZR}")
        self.e(f"mov r0, r{n}")
        self.e("lsl r0")
        self.e("sbc r0, r0")                   # the sign extension of e
        for j in range(8):
            self.e(f"{'add' if j == 0 else 'adc'} r{T[j]}, r{n if j == 0 else 0}")
        if store_top:
            for j in range(8):
                self.e(f"std {rp}+{off + 24 + j}, r{T[j]}")

    # ---- |x - y| in registers ------------------------------------------------------------------------
    def absdiff_inplace(self, regs: list[int], ptr: str, off: int, mask: int,
                        kept: dict[int, int] | None = None) -> None:
        """regs = |regs - mem[ptr+off..]|, mask = 0xff if regs < mem (borrow) else 0; kept = {i: register}
        for bytes of mem already in registers (not loaded)."""
        kept = kept or {}
        for i, r in enumerate(regs):
            if i in kept:
                y = kept[i]
            else:
                self.e(f"ldd r0, {ptr}+{off + i}")
                y = 0
            self.e(f"{'sub' if i == 0 else 'sbc'} r{r}, r{y}")
        self.negate_by_borrow(regs, mask)

    def absdiff_halves_out(self, regs: list[int], mask: int, unstored: tuple[int, ...] = ()) -> None:
        """regs = |mem[Y+16..32) - mem[Y..16)|, mask = 0xff if the difference borrowed else 0; each byte
        but those at the indices ``unstored`` also goes out with ST X+ (the operands' high half minus
        their low half, as mul256 needs)."""
        for i, r in enumerate(regs):
            self.e(f"ldd r{r}, Y+{16 + i}")
            self.e(f"ldd r0, Y+{i}")
            self.e(f"{'sub' if i == 0 else 'sbc'} r{r}, r0")
        self.negate_by_borrow(regs, mask, store=True, unstored=unstored)

    def negate_by_borrow(self, regs: list[int], mask: int, store: bool = False,
                         unstored: tuple[int, ...] = ()) -> None:
        """After a subtraction chain into regs: mask = 0xff if it borrowed else 0 (SBC), and regs =
        (regs ^ mask) - mask, its absolute value, without a branch; with ``store`` each byte also goes
        out with ST X+."""
        self.e(f"sbc r{mask}, r{mask}")
        for r in regs:
            self.e(f"eor r{r}, r{mask}")
        for i, r in enumerate(regs):
            self.e(f"{'sub' if i == 0 else 'sbc'} r{r}, r{mask}")
            if store and i not in unstored:
                self.e(f"st X+, r{r}")


MUL128_REGS_SKIPS = 0     # cycles the mul128_regs entry skips (set by gen_mul128)
MUL128_TOP = [8, 9, 10, 11, 16, 17, 18, 19]   # mul128's T; it returns r[24..32) in them (aligned pairs)
MUL128_M: list[int] = []  # mul128's M registers (set by gen_mul128); it returns r[16..24) in MUL128_M[8:]


def mul128_from_regs(g: Gen, pa: str = "Y", oa: int = 0, pb: str = "Z", ob: int = 0,
                     zset: tuple[str, ...] = ("movw r30, r26", "sbiw r30, 32"), rp_off: int = 0,
                     store_top: bool = True, keep: tuple[int, ...] = ()) -> None:
    """mul128 after the loads of aL, bL (in A, B): a at pa + oa, b at pb + ob, X = r (ST X+); zset sets
    Z to r - rp_off after the two stored K64s. Without store_top r[16..32) stays in registers only
    (MUL128_M[8:], MUL128_TOP), not in memory. keep: even registers free during H's K64 (r24, and r30
    when Z is not a pointer) that keep aL, bL bytes (0, 1, then bL's 0, 1) for the differences instead
    of reloading them. The defaults are the local routine's."""
    st_x = lambda k, reg: g.e(f"st X+, r{reg}")          # noqa: E731
    g.e("clr r3")                               # r2:r3 the zero pair for the column sums' MOVW clears
    g.k64(A, B, st_x, spare=SB, zpair=ZR)
    kept: list[dict[int, int]] = [{}, {}]
    for n, (r, src) in enumerate(zip(keep, (A, B))):
        g.e(f"movw r{r}, r{src[0]}")            # aL (bL) bytes 0, 1 stay for the differences
        kept[n] = {0: r, 1: r + 1}
    g.comment("H = aH * bH into r[16..32)")
    for i in range(8):
        g.e(f"ldd r{A[i]}, {pa}+{oa + 8 + i}")
        g.e(f"ldd r{B[i]}, {pb}+{ob + 8 + i}")
    g.k64(A, B, st_x, spare=SB, zpair=ZR)
    g.comment("|aH - aL| and |bH - bL| in place (the registers still hold aH, bH); signs in r3, r23")
    g.absdiff_inplace(A, pa, oa, NREG, kept[0])
    g.absdiff_inplace(B, pb, ob, SB, kept[1])
    g.e(f"eor r{NREG}, r{SB}")
    g.e(f"com r{NREG}")                         # n = 0xff: middle = L + H - M
    for line in zset:
        g.e(line)
    g.comment("M = |da| * |db|, kept in registers (allocation below)")
    M, free = g.k64_keep(A, B, [23, 24, 25, 26, 27, 28, 29])
    g.comment("M bytes 0..15 in " + ", ".join(f"r{r}" for r in M))
    g.comment("r += B^8 (L + H -/+ M)")
    assert set(MUL128_TOP) <= set(free)
    MUL128_M[:] = M
    g.combine_regs(M, MUL128_TOP, "Z", NREG, ct=1, off=rp_off, store_top=store_top)  # r[24..32) in MUL128_TOP


def mul128_m_inline(g: Gen) -> None:
    """mul256's M = |da| * |db| (16 bytes each), mul128 inline with the operands in the frame at Y = F
    (da at F[DA], db at F[DB] without its bytes 8, 9, 11..14) and the low halves in A, B. All of its
    stores and loads go through Y, so X and Z are free: |db| bytes 8, 9, 11..14 arrive in r26, r27,
    r24, r25, r30, r31 (DB_KEPT) and are H's b operand there, and dbL bytes 0, 1, 3..6 (B[0, 1, 3..6])
    are not overwritten by H's operands and stay for the differences. Keeps r2 (zero); Y = F + F_M at
    the end."""
    def st_m(base: int):
        return lambda k, reg: g.e(f"std Y+{F_M + base + k}, r{reg}")
    bh = [DB_KEPT.get(8 + i, B[i]) for i in range(8)]      # H's b operand registers
    g.e("clr r3")                               # r2:r3 the zero pair for the column sums' MOVW clears
    g.k64(A, B, st_m(0), spare=SB, zpair=ZR)
    kept = {i: B[i] for i in range(8) if bh[i] != B[i]}   # dbL bytes that H's operands leave alone
    g.comment("H = daH * dbH into M[16..32) (dbH bytes " + ", ".join(str(i) for i in sorted(kept))
              + " already in " + ", ".join(f"r{bh[i]}" for i in sorted(kept)) + "; dbL's stay in "
              + ", ".join(f"r{kept[i]}" for i in sorted(kept)) + ")")
    for i in range(8):
        g.e(f"ldd r{A[i]}, Y+{F_DA + 8 + i}")
        if bh[i] == B[i]:
            g.e(f"ldd r{B[i]}, Y+{F_DB + DB_AT[8 + i]}")
    g.k64(A, bh, st_m(16), spare=SB, zpair=ZR)
    g.comment("|daH - daL| and |dbH - dbL| in place; signs in r3, r23")
    g.absdiff_inplace(A, "Y", F_DA, NREG)
    g.absdiff_inplace(bh, "Y", F_DB, SB, kept)
    g.e(f"eor r{NREG}, r{SB}")
    g.e(f"com r{NREG}")                         # n = 0xff: middle = L + H - M
    g.e(f"adiw r28, {F_M - F_DA}")              # Y = F + F_M
    g.comment("M' = |daH - daL| * |dbH - dbL|, kept in registers")
    pool = [23] + [kept[i] for i in sorted(kept)]   # the sign mask and the kept dbL bytes are dead
    M, free = g.k64_keep(A, bh, pool)
    T = [r for r in free if r not in (28, 29)][:8]
    assert len(T) == 8 and not set(T) & set(M) and not set(T) & {0, 1, 2, 3}
    g.comment("M' bytes 0..15 in " + ", ".join(f"r{r}" for r in M) + "; T in " + ", ".join(f"r{r}" for r in T))
    g.comment("M += B^8 (L' + H' -/+ M')")
    g.combine_regs(M, T, "Y", NREG, ct=1)


def gen_mul128(g: Gen) -> int:
    """Local routine: X = r (32 bytes), Y = a, Z = b (16 bytes each). Keeps r2 (zero); clobbers r0,
    r1, r3..r31; returns with Z = r and r[16..32) also in registers (MUL128_M[8:], MUL128_TOP).
    Entry mul128_regs skips the loads of aL, bL (already in A, B)."""
    global MUL128_REGS_SKIPS
    start = g.cycles
    g.label("/* mpmul_avr_kara_mul128 (local): r[0..32) = a[0..16) * b[0..16) with X = r, Y = a, Z = b; one level")
    g.label(" * of subtractive Karatsuba over K64. Keeps r2 (zero); clobbers r0, r1, r3..r31. */")
    g.label("mpmul_avr_kara_mul128:")
    g.comment("L = aL * bL into r[0..16)")
    for i in range(8):
        g.e(f"ldd r{A[i]}, Y+{i}")
        g.e(f"ldd r{B[i]}, Z+{i}")
    g.label("/* mpmul_avr_kara_mul128_regs (local): the same with aL, bL already in r4..r11, r12..r19. */")
    MUL128_REGS_SKIPS = g.cycles - start
    g.label("mpmul_avr_kara_mul128_regs:")
    mul128_from_regs(g, keep=(24,))
    g.e("ret")
    return g.cycles - start


# mul256 frame (offsets from F = SP + 1 after the allocation). The differences and the sign are written
# in this order with ST X+, which leaves X at F_M for the M product; the saved pointers follow M so that
# they are within LDD reach of Y = F + F_M after M. |bH - bL| bytes 8, 9, 11..14 are not in the frame:
# they stay in registers for M's H (bytes 8, 9 move from r20:r21 to r26:r27 once X, which writes the
# frame, is done), so F[DB] holds its bytes 0..7, 10, 15 (DB_AT: byte -> frame offset).
DB_KEPT = {8: 26, 9: 27, 11: 24, 12: 25, 13: 30, 14: 31}   # |bH - bL| byte -> its register for M's H
DB_AT = {i: n for n, i in enumerate(i for i in range(16) if i not in DB_KEPT)}
F_DA, F_DB = 0, 16
F_SIGN = F_DB + len(DB_AT)
F_M = F_SIGN + 1
F_PTR = F_M + 32
FRAME = F_PTR + 6
SAVED = [2, 3] + list(range(4, 18)) + [28, 29]
DBH = [20, 21, 22, 24, 25, 30, 31, 1]     # |bH - bL| bytes 8..15 (r1 is free until the first MUL, Z until M)


def combine_top(g: Gen) -> None:
    """mul256's recombination (h = 16 bytes). On entry Z = r with R = L + B^32 H, X = F_SIGN (the sign
    byte n, then M = |da||db|, read once in order with LD X+). On exit R = L + B^16 (L + H -/+ M) + B^32 H:
        T  = L1 + H0 (16 registers, carry ct; L1 arrives in them from the L call, the last)
        R[16..48) = [L0 | H1] + [T | T + ct] + (M ^ n) + (n & 1)    two carry chains, f1 and f2
        R[48..64) = H1 + e, e = ct + f1 + f2 + n in [-1, 3] sign-extended
    T + ct cannot overflow 16 bytes (ct = 1 only when T < B^16 - 1), so ct enters the upper half by
    one pass over the T registers instead of a third carry chain. Chunks of 6, 6, 4 bytes per half; a
    chain's carry waits in f between chunks (LSR f restores it and zeroes f, ADC f, zero saves it).
    In the upper half the sum forms in the T registers (their last use) and the H1 chunk, loaded into
    W, then moves there with MOVW: the top quarter needs H1 again and does not reload it."""
    # The L call (mul128, last) returns L1 = r[16..32) in registers: bytes 0..7 in its M registers
    # MUL128_M[8:], bytes 8..15 in MUL128_TOP. T is formed there, with no load of L1.
    if not MUL128_M:                        # mul128's register allocation
        gen_mul128(Gen())
    T = MUL128_M[8:] + MUL128_TOP
    W = [20, 21, 22, 23, 24, 25]
    ct, n = 1, NREG
    f1, f2 = [r for r in range(4, 26) if r not in T + W + [ZR, NREG]]
    for j in range(16):
        g.e(f"ldd r0, Z+{32 + j}")
        g.e(f"{'add' if j == 0 else 'adc'} r{T[j]}, r0")
    g.e(f"clr r{ct}")                          # CLR (EOR) keeps the carry
    g.e(f"adc r{ct}, r{ZR}")
    g.e(f"ld r{n}, X+")
    g.e(f"clr r{f1}")
    g.e(f"clr r{f2}")
    first = True
    for half, src in ((0, 0), (1, 48)):        # L0, then H1
        if half:
            g.comment("T += ct (no overflow), for the upper half")
            g.e(f"add r{T[0]}, r{ct}")
            for j in range(1, 16):
                g.e(f"adc r{T[j]}, r{ZR}")
        o = 0
        for w in (6, 6, 4):
            regs = W[:w]
            # lower half: the sum forms in W (L0 is not needed again); upper half: in the T registers,
            # which are then dead, so the H1 chunk in W moves there (MOVW) for the top quarter
            acc = regs if half == 0 else T[o:o + w]
            other = [T[o + i] for i in range(w)] if half == 0 else regs
            for i, r in enumerate(regs):
                g.e(f"ldd r{r}, Z+{src + o + i}")
            if not first:
                g.e(f"lsr r{f1}")
            for i, (r, x) in enumerate(zip(acc, other)):
                g.e(f"{'add' if first and i == 0 else 'adc'} r{r}, r{x}")
            g.e(f"adc r{f1}, r{ZR}")
            g.e(f"cp r{ZR}, r{n}" if first else f"lsr r{f2}")   # first: C = n & 1, the +1 of -M
            first = False
            for r in acc:
                g.e("ld r0, X+")
                g.e(f"eor r0, r{n}")
                g.e(f"adc r{r}, r0")
            g.e(f"adc r{f2}, r{ZR}")
            for i, r in enumerate(acc):
                g.e(f"std Z+{16 + 16 * half + o + i}, r{r}")
            if half:
                for i in range(0, w, 2):
                    if T[o + i] % 2 == 0 and T[o + i + 1] == T[o + i] + 1:
                        g.e(f"movw r{T[o + i]}, r{regs[i]}")
                    else:
                        g.e(f"mov r{T[o + i]}, r{regs[i]}")
                        g.e(f"mov r{T[o + i + 1]}, r{regs[i + 1]}")
            o += w
    g.comment("R[48..64) = H1 + e, sign-extended (H1 in the T registers)")
    g.e(f"add r{n}, r{ct}")
    g.e(f"add r{n}, r{f1}")
    g.e(f"add r{n}, r{f2}")
    g.e(f"mov r{f1}, r{n}")
    g.e(f"lsl r{f1}")
    g.e(f"sbc r{f1}, r{f1}")
    for j in range(16):
        g.e(f"{'add' if j == 0 else 'adc'} r{T[j]}, r{n if j == 0 else f1}")
    for j in range(16):
        g.e(f"std Z+{48 + j}, r{T[j]}")


MUL256_PARTS: list[tuple[str, int]] = []   # (part, cycles) of mul256, for the header and docs/mpmul.md


def gen_mul256(g: Gen) -> None:
    if not MUL128_M:                        # combine_top needs mul128's register allocation
        gen_mul128(Gen())
    MUL256_PARTS.clear()
    last = [g.cycles]

    def mark(part: str) -> None:
        MUL256_PARTS.append((part, g.cycles - last[0]))
        last[0] = g.cycles

    g.label("    .global MCU_FN(mpmul256, mul)")
    g.label("    .type MCU_FN(mpmul256, mul), @function")
    g.label("MCU_FN(mpmul256, mul):")
    for r in SAVED:
        g.e(f"push r{r}")
    g.comment("the pointers r, a, b pushed: they become F[PTR] (pushes go downwards, hence the order)")
    for r in (21, 20, 23, 22, 25, 24):
        g.e(f"push r{r}")
    g.comment(f"the rest of the {FRAME}-byte frame (interrupts masked while SP changes)")
    g.e("in r28, 0x3d")
    g.e("in r29, 0x3e")
    g.e(f"subi r28, {F_PTR}")
    g.e("sbci r29, 0")
    g.e("in r0, 0x3f")
    g.e("cli")
    g.e("out 0x3e, r29")
    g.e("out 0x3f, r0")
    g.e("out 0x3d, r28")
    g.e("adiw r28, 1")                      # Y = F
    g.e(f"clr r{ZR}")
    g.e("movw r26, r28")                    # X = F: the differences go out with ST X+
    mark("prologue: 18 saved registers, the pointers, the frame")
    g.comment("|aH - aL| (16 bytes) in r4..r19, out to F[DA]; bytes 0..7 stay in r4..r11 for M's first K64")
    g.e("movw r28, r22")
    g.absdiff_halves_out(A + B, NREG)
    g.comment("|bH - bL| in r12..r19 and " + ", ".join(f"r{r}" for r in DBH) + ", out to F[DB] but for bytes 8, 9, 11..14; bytes 0..7 stay in r12..r19")
    g.e("movw r28, r20")
    g.absdiff_halves_out(B + DBH, SB, unstored=tuple(DB_KEPT))
    g.e(f"eor r{NREG}, r{SB}")
    g.e(f"com r{NREG}")                      # n = 0xff: middle = L + H - M
    g.e(f"st X+, r{NREG}")                   # F[SIGN]; X = F + F_M
    mark("|aH - aL|, |bH - bL| out to the frame, the sign")
    g.comment("M = |da| * |db| into F[M]: mul128 inline from its first K64 (da, db both at Y = F)")
    g.e("movw r28, r26")
    g.e(f"sbiw r28, {F_M - F_DA}")          # Y = F
    g.e("movw r26, r20")                    # |bH - bL| bytes 8, 9 (X is free from here)
    mul128_m_inline(g)                      # Y = F + F_M at the end
    mark("M (mul128 inline)")
    g.comment("H = aH * bH into r[32..64): mul128 inline, X = r + 32, Y = a, Z = b (displacements + 16)")
    g.e(f"ldd r26, Y+{F_PTR - F_M}")
    g.e(f"ldd r27, Y+{F_PTR - F_M + 1}")
    g.e(f"ldd r30, Y+{F_PTR - F_M + 4}")
    g.e(f"ldd r31, Y+{F_PTR - F_M + 5}")
    g.e(f"ldd r0, Y+{F_PTR - F_M + 2}")
    g.e(f"ldd r29, Y+{F_PTR - F_M + 3}")
    g.e("mov r28, r0")
    g.e("adiw r26, 32")
    for i in range(8):
        g.e(f"ldd r{A[i]}, Y+{16 + i}")
        g.e(f"ldd r{B[i]}, Z+{16 + i}")
    mul128_from_regs(g, "Y", 16, "Z", 16, zset=("movw r30, r26", "subi r30, 64", "sbci r31, 0"), rp_off=32,
                     keep=(24,))
    mark("H (mul128 inline, with its pointer set-up)")
    g.comment("L = aL * bL into r[0..32): mul128 inline, last; r[16..32) stays in registers only, where the")
    g.comment("recombination forms T = L1 + H0 (Z = r from H; a, b again from the frame via SP)")
    g.e("movw r26, r30")
    g.e("in r28, 0x3d")
    g.e("in r29, 0x3e")
    q = F_PTR + 1 - 32                      # Y = SP + q, the saved a at Y + 32 + 2
    g.e(f"adiw r28, {q}")
    g.e("ldd r30, Y+36")
    g.e("ldd r31, Y+37")
    g.e("ldd r0, Y+34")
    g.e("ldd r29, Y+35")
    g.e("mov r28, r0")
    for i in range(8):
        g.e(f"ldd r{A[i]}, Y+{i}")
        g.e(f"ldd r{B[i]}, Z+{i}")
    mul128_from_regs(g, store_top=False, keep=(24,))   # Z = r at the end
    mark("L (mul128 inline, with its pointer set-up)")
    g.comment("r += B^16 (L + H -/+ M): Z = r, X = F[SIGN]")
    g.e("in r26, 0x3d")
    g.e("in r27, 0x3e")
    g.e(f"adiw r26, {F_SIGN + 1}")
    combine_top(g)
    mark("recombination")
    g.comment("free the frame, restore, r1 = 0")
    g.e("in r28, 0x3d")
    g.e("in r29, 0x3e")
    g.e(f"subi r28, lo8(-{FRAME})")
    g.e(f"sbci r29, hi8(-{FRAME})")
    g.e("in r0, 0x3f")
    g.e("cli")
    g.e("out 0x3e, r29")
    g.e("out 0x3f, r0")
    g.e("out 0x3d, r28")
    for r in reversed(SAVED):
        g.e(f"pop r{r}")
    g.e("clr r1")
    g.e("ret")
    mark("epilogue: the frame freed, registers restored")
    g.label("    .size MCU_FN(mpmul256, mul), . - MCU_FN(mpmul256, mul)")


def gen_helpers(g: Gen) -> None:
    """Looped helpers for the C Karatsuba levels (kara.c): lengths are public, loop counters only."""
    g.label("")
    g.label("/* uint8_t mpmul_avr_kara_absdiff(uint8_t *d, const uint8_t *x, const uint8_t *y, uint16_t h);")
    g.label(" *   d = |x - y| over h bytes (h a multiple of 8, at most 2040); returns 0xff if x < y, else 0.")
    g.label(" *   X = x, Z = y, Y = d; r0, r19 data; r25 the borrow mask; r18 the loop counter (h / 8). */")
    g.label("    .global mpmul_avr_kara_absdiff")
    g.label("    .type mpmul_avr_kara_absdiff, @function")
    g.label("mpmul_avr_kara_absdiff:")
    g.e("push r28")
    g.e("push r29")
    g.e("movw r26, r22")
    g.e("movw r30, r20")
    g.e("movw r28, r24")
    g.e("movw r22, r24")                    # d again for the second pass
    g.e("lsr r19")
    g.e("ror r18")
    g.e("lsr r19")
    g.e("ror r18")
    g.e("lsr r19")
    g.e("ror r18")
    g.e("mov r20, r18")                     # the counter again for the second pass
    g.e("clc")
    g.label("1:")
    for _ in range(8):
        g.e("ld r0, X+")
        g.e("ld r19, Z+")
        g.e("sbc r0, r19")
        g.e("st Y+, r0")
    g.e("dec r18")                          # DEC and BRNE leave the carry alone
    g.e("brne 1b")
    g.e("sbc r25, r25")                     # the borrow as a mask
    g.e("movw r28, r22")
    g.e("mov r19, r25")
    g.e("lsr r19")                          # C = m & 1: (d ^ m) - m = (d ^ m) + (m & 1)
    g.label("2:")
    for _ in range(8):
        g.e("ld r0, Y")
        g.e("eor r0, r25")
        g.e("adc r0, r1")
        g.e("st Y+, r0")
    g.e("dec r20")
    g.e("brne 2b")
    g.e("mov r24, r25")
    g.e("pop r29")
    g.e("pop r28")
    g.e("ret")
    g.label("    .size mpmul_avr_kara_absdiff, . - mpmul_avr_kara_absdiff")

    g.label("")
    g.label("/* void mpmul_avr_kara_combine(uint8_t *r, uint8_t *z1, uint16_t h, uint8_t n);")
    g.label(" *   r (4h bytes) = L + B^2h H on entry, z1 (2h bytes) = |aH - aL| |bH - bL|; n = 0xff when the middle")
    g.label(" *   term is L + H - z1, 0 when L + H + z1. On exit r = L + B^h (L + H -/+ z1) + B^2h H; z1 is")
    g.label(" *   overwritten with the middle term. h a multiple of 4, at most 255 * 2.")
    g.label(" *   pass 1: z1 = r[0..2h) + r[2h..4h) + (z1 ^ n) + (n & 1), two carry chains whose carries wait in")
    g.label(" *           r21, r20 between 4-byte chunks (ADC f, zero saves with f = 0; LSR f restores, f = 0)")
    g.label(" *   pass 2: r[h..3h) += z1;  pass 3: r[3h..4h) += carry + top (top = the middle term's byte 2h)")
    g.label(" *   X, Z, Y pointers; r22..r25 a chunk; r19 counter; r18 n; r16:r17 h; r14:r15 r; r12:r13 z1; r1 zero. */")
    g.label("    .global mpmul_avr_kara_combine")
    g.label("    .type mpmul_avr_kara_combine, @function")
    g.label("mpmul_avr_kara_combine:")
    g.e("push r28")
    g.e("push r29")
    for r in (12, 13, 14, 15, 16, 17):
        g.e(f"push r{r}")
    g.e("movw r16, r20")                    # h
    g.e("movw r14, r24")                    # r and z1 (r22..r25 become the chunk registers)
    g.e("movw r12, r22")
    g.e("movw r26, r24")                    # X = r
    g.e("movw r28, r12")                    # Y = z1
    g.e("movw r30, r14")
    g.e("add r30, r16")
    g.e("adc r31, r17")
    g.e("add r30, r16")
    g.e("adc r31, r17")                     # Z = r + 2h
    g.e("mov r19, r16")
    g.e("lsr r19")                          # 2h / 4 chunks (h <= 510)
    g.e("clr r21")
    g.e("mov r20, r18")
    g.e("neg r20")                          # n & 1
    g.label("3:")
    for i in range(4):
        g.e(f"ld r{22 + i}, X+")
    g.e("lsr r21")
    for i in range(4):
        g.e("ld r0, Z+")
        g.e(f"adc r{22 + i}, r0")
    g.e("adc r21, r1")
    g.e("lsr r20")
    for i in range(4):
        g.e(f"ldd r0, Y+{i}")
        g.e("eor r0, r18")
        g.e(f"adc r{22 + i}, r0")
    g.e("adc r20, r1")
    for i in range(4):
        g.e(f"st Y+, r{22 + i}")
    g.e("dec r19")
    g.e("brne 3b")
    g.e("add r18, r20")
    g.e("add r18, r21")                     # top = n + carries: 0 or 1
    g.comment("pass 2: r[h..3h) += z1")
    g.e("movw r28, r12")                    # Y = z1
    g.e("movw r30, r14")
    g.e("add r30, r16")
    g.e("adc r31, r17")                     # Z = r + h
    g.e("mov r19, r16")
    g.e("lsr r19")
    g.e("clc")
    g.label("4:")
    for i in range(4):
        g.e(f"ldd r{22 + i}, Z+{i}")
    for i in range(4):
        g.e("ld r0, Y+")
        g.e(f"adc r{22 + i}, r0")
    for i in range(4):
        g.e(f"st Z+, r{22 + i}")
    g.e("dec r19")
    g.e("brne 4b")
    g.comment("pass 3: r[3h..4h) += carry + top")
    g.e("adc r18, r1")
    g.e("mov r19, r16")
    g.e("lsr r19")
    g.e("lsr r19")
    g.e("ld r22, Z")
    g.e("add r22, r18")
    g.e("st Z+, r22")
    g.e("rjmp 6f")
    g.label("5:")
    g.e("ld r22, Z")
    g.e("adc r22, r1")
    g.e("st Z+, r22")
    g.label("6:")
    for i in range(3):
        g.e("ld r22, Z")
        g.e("adc r22, r1")
        g.e("st Z+, r22")
    g.e("dec r19")
    g.e("brne 5b")
    for r in (17, 16, 15, 14, 13, 12):
        g.e(f"pop r{r}")
    g.e("pop r29")
    g.e("pop r28")
    g.e("ret")
    g.label("    .size mpmul_avr_kara_combine, . - mpmul_avr_kara_combine")


def generate() -> str:
    c128 = gen_mul128(Gen())
    g = Gen()
    gen_mul256(g)
    c256 = g.cycles
    gk = Gen()
    gk.k64(A, B, lambda k, reg: gk.e(f"st X+, r{reg}"), spare=SB, zpair=ZR)
    gkeep = Gen()
    gkeep.k64_keep(A, B, [23, 24, 25, 26, 27, 28, 29])
    parts = "\n".join(f" *     {c:5d}  {p}" for p, c in MUL256_PARTS)
    head = f"""// SPDX-License-Identifier: MIT
/* GENERATED by gen_mpmul_avr.py - do not edit. avr-kara: constant-time 256x256 -> 512-bit multiplication
 * for the 8-bit AVR (ATmega128); the 512..2048-bit Karatsuba levels above it are kara.c.
 *
 * void mcu_mpmul256_avr_kara_mul(uint32_t r[16], const uint32_t a[8], const uint32_t b[8]);
 *   limbs little-endian 32-bit words, i.e. on this little-endian core a and b are 32-byte little-endian
 *   integers and r a 64-byte one. r must not overlap a or b.
 *
 * Techniques (details in the generator and docs/mpmul.md, "AVR"):
 *   - K64 (64x64 bits, 8x8 bytes) in registers, product scanning: MUL into r1:r0, ADD/ADC/ADC into a
 *     3-byte column sum (zero register r2), the sum renamed down a byte per column, its new top zeroed
 *     two registers at a time by MOVW from the zero pair r2:r3: {gk.cycles} cycles with the 16 stores;
 *     {gkeep.cycles} with the result left in registers (mul128's M).
 *   - two levels of subtractive Karatsuba (256 = 3 x 128, 128 = 3 x K64), differences made absolute
 *     with their borrow masks ((d ^ m) - m) and the middle sign applied as (M ^ n) + (n & 1): no
 *     operand-dependent branch or address. The recombination uses T = L1 + H0 once for both halves.
 *   - mul256 is straight-line: the three mul128s are inline copies, in the order M, H, L. M's starts
 *     with the low halves of |aH - aL|, |bH - bL| in the K64 operand registers, works through Y alone
 *     and finds |bH - bL| bytes 8, 9, 11..14 in r26, r27, r24, r25, r30, r31 (its H operand there: they
 *     never go to the frame), dbL bytes 0, 1, 3..6 left in r12, r13, r15..r18 for its differences;
 *     H's and L's keep aL bytes 0, 1 in r24:r25 through their H;
 *     L's leaves r[16..32) in registers only, where the recombination forms T = L1 + H0. That is one
 *     pass over the middle 32 bytes with two carry chains, T + ct for the upper half, and H1 kept in
 *     registers for the top quarter.
 *   - LDD/STD with displacements (Y, Z) instead of pointer arithmetic; straight-line code.
 *
 * Register map
 *   r0, r1     MUL product (r1 cleared before returning)      r2  zero
 *   r4..r11    K64 operand a (T in the recombination)           r12..r19  K64 operand b
 *   r20..r22   column sum (renamed each column; r23 the fourth in mul128's L and H, r2:r3 the zero pair)
 *   r3, r23    sign masks (after mul128's L and H)
 *   X          result pointer (ST X+)     Y  a     Z  b, then r     (mul256's recombination: X = M, Z = r;
 *              M's mul128: Y = the frame for its operands, its product and its recombination; X, Z data)
 *   mul256 keeps |aH - aL|, |bH - bL| (without bytes 8, 9, 11..14 of the latter), the sign, M and the pointers
 *   in a stack frame (offsets from SP + 1).
 *   mul128 keeps M = |da||db| in registers: the column sum takes a free register as its new top each
 *   column and the finished byte stays where it is; operand registers join the free pool when dead.
 * Stack: {len(SAVED)} saved registers and a {FRAME}-byte frame: {len(SAVED) + FRAME + 2} bytes with the caller's
 *   return address.
 * Cycles (the generator's count, without the caller's CALL): mul256 {c256} =
{parts}
 *   (the local routine gen_mul128 writes for the X25519 generator: {c128} with its RET.)
 */
#include "mcucrypt/ns.h"

    .text
"""
    gh = Gen()
    gen_helpers(gh)
    body = "\n".join(g.lines + gh.lines)
    return head + body + "\n"


def main() -> int:
    text = generate()
    if "--count" in sys.argv:
        print(text.split("Cycles")[1].split("*/")[0])
        return 0
    return write_or_check({OUT: text}, "--check" in sys.argv, __file__)

if __name__ == "__main__":
    sys.exit(main())
