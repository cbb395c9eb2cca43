#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the Cortex-M3 SHA-2 block functions: sha256_cm3.S and sha512_cm3.S (armv7m-fast).

    python3 crypto/sha2/armv7m/gen_sha2_cm3.py          # rewrites the .S files beside this script
    python3 crypto/sha2/armv7m/gen_sha2_cm3.py --check  # exit 1 if a committed file is stale

Both are straight-line code with a register allocation worked out here, so the generator is the
readable form. docs/sha2.md (armv7m) has the cycle counts per round and the floor.

SHA-256 (FIPS 180-4 6.2), per 64-byte block, two passes over a 64-word frame WK[t] = W[t] + K[t]:
- pass 1, the message schedule: all 14 registers hold a sliding window of W[t-16..t-1] plus one
  temporary; W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16] is computed in the register
  of W[t-16] (dead after it), so the window renames itself and no word is moved. The 13 window
  registers cannot hold all 16 words: a word leaves when its next use is furthest away (Belady), is
  stored once, and comes back in the burst that also loads K[t] (neighbouring LDRs pipeline: 1 cycle
  each). K[t] comes PC-relative from the table in front of the code (public address), is added to
  W[t], and WK[t] is stored. Big-endian input: LDR (any alignment: the M3 does unaligned single
  loads) + REV.
- armv7m-small (sha*_cm3_small.S) runs the same rounds in loops of 8 and the schedule in one-step
  loops into one array, each W[t-16] turned into WK[t-16] in place after its last use.
- pass 2, the 64 rounds, the eight state words in r0-r7 renamed round by round (after 8 rounds the map
  is back where it started, so LDM/STM load and store the state). A round is 16 one-cycle ALU
  instructions plus a quarter of a 4-word LDR burst of WK:
    Sigma1(e) = ROR(e ^ ROR(e,5) ^ ROR(e,19), 6): two EORs, the last ROR is the ADD's operand;
    Ch(e,f,g) = ((f ^ g) & e) ^ g; Sigma0 likewise with 11, 20 and ROR 2;
    Maj(a,b,c) = ((a ^ b) & (b ^ c)) ^ b, where b ^ c is the previous round's a ^ b (kept: "carry").
All data-independent: no branch, address or instruction timing depends on the state or the message.
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

HERE = Path(__file__).resolve().parent
OUT256 = HERE / "sha256_cm3.S"
OUT512 = HERE / "sha512_cm3.S"
OUT256_SMALL = HERE / "sha256_cm3_small.S"
OUT512_SMALL = HERE / "sha512_cm3_small.S"

K256 = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]

REGS = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr"]
LOW = {f"r{i}" for i in range(8)}

# SHA-256 frame (sp-relative): WK[0..63], the spilled schedule words (slot j % 16), then the saved
# state pointer, the next block's input pointer and the end of the input.
WK_OFF, SPILL_OFF, STATE_SLOT, NEXT_SLOT, END_SLOT = 0, 256, 320, 324, 328
FRAME256 = 336                      # 8-byte aligned (AAPCS at the public interface is kept by the push)


class Allocator:
    """Registers for named values with Belady eviction; `uses` is the whole future use sequence
    (value names in order), `pos` the index of the next use."""

    def __init__(self, pool: list[str], uses: list[str], emit) -> None:
        self.free = list(pool)
        self.reg: dict[str, str] = {}
        self.uses = uses
        self.pos = 0
        self.in_mem: set[str] = set()
        self.emit = emit
        self.loads = self.stores = 0

    def next_use(self, v: str) -> int:
        try:
            return self.uses.index(v, self.pos)
        except ValueError:
            return 10**9

    def advance(self, names: list[str]) -> None:
        for n in names:
            assert self.uses[self.pos] == n, (self.uses[self.pos], n)
            self.pos += 1

    def make_room(self, count: int, keep: set[str], slot) -> None:
        """Evict (storing dirty words to their slot) until `count` registers are free."""
        victims = sorted((v for v in self.reg if v not in keep), key=self.next_use, reverse=True)
        while len(self.free) < count:
            v = victims.pop(0)
            r = self.reg.pop(v)
            if v not in self.in_mem and self.next_use(v) < 10**9:
                self.emit(f"str     {r}, {slot(v)}")
                self.in_mem.add(v)
                self.stores += 1
            self.free.append(r)

    def take(self, v: str) -> str:
        r = self.free.pop(0)
        self.reg[v] = r
        return r

    def drop(self, v: str) -> None:
        self.free.insert(0, self.reg.pop(v))



# ------------------------------------------------------------------------------------------ SHA-256
# How steps 0-15 read W[t] from the 64 bytes at lr: the block function's big-endian bytes (LDR + REV),
# HMAC's key blocks K0 ^ ipad and K0 ^ opad (K0 as bytes; the pad has four equal bytes, so it commutes
# with REV and is one EOR with a Thumb-2 immediate: no register, no pad buffer), or W[t] already as
# native words (the inner digest feeding the outer block: no byte-order round trip).
HEAD_LOADS = {
    "be": ["rev     {r}, {r}"],
    "ipad": ["rev     {r}, {r}", "eor     {r}, {r}, #0x36363636"],
    "opad": ["rev     {r}, {r}", "eor     {r}, {r}, #0x5c5c5c5c"],
    "words": [],
}


def sha256_schedule(emit, head: str = "be", head_only: bool = False) -> tuple[int, int]:
    """Pass 1: WK[0..63] into the frame. The input pointer is in lr during steps 0-15, read as
    HEAD_LOADS[head]. head_only: emit steps 0-15 only (an HMAC entry, which then branches to
    .Lsha256_step16: the allocator is deterministic, so its registers and spills there are the same)."""
    def w(j: int) -> str:
        return f"W{j}"

    # The use sequence, step by step, in the order the code reads the words (for Belady).
    uses: list[str] = []
    for t in range(16):
        uses.append(w(t))                                   # add k, k, W[t]
    for t in range(16, 64):
        uses += [w(t - 2), w(t - 16), w(t - 15), w(t - 7)]  # sigma1, acc, sigma0, plus W[t-7]
        uses.append(w(t))                                   # add k, k, W[t]
    pool = [r for r in REGS if r != "lr"]
    al = Allocator(pool, uses, emit)

    def slot(v: str) -> str:
        return f"[sp, #{SPILL_OFF + 4 * (int(v[1:]) % 16)}]"

    # Steps 0-15 in pairs: two input words and two constants in one LDR burst (5 cycles), REV, add, store.
    for t in range(0, 16, 2):
        al.make_room(4, {w(t - 1), w(t - 2)} if t else set(), slot)
        ra, rb = al.take(w(t)), al.take(w(t + 1))
        ka, kb = al.take("ka"), al.take("kb")
        emit(f"ldr     {ra}, [lr, #{4 * t}]")
        emit(f"ldr     {rb}, [lr, #{4 * t + 4}]")
        emit(f"ldr     {ka}, .LK256 + {4 * t}")
        emit(f"ldr     {kb}, .LK256 + {4 * t + 4}")
        for form in HEAD_LOADS[head]:
            emit(form.format(r=ra))
            emit(form.format(r=rb))
        emit(f"add     {ka}, {ka}, {ra}")
        emit(f"add     {kb}, {kb}, {rb}")
        emit(f"str     {ka}, [sp, #{WK_OFF + 4 * t}]")
        emit(f"str     {kb}, [sp, #{WK_OFF + 4 * t + 4}]")
        al.advance([w(t), w(t + 1)])
        al.drop("ka")
        al.drop("kb")
    if head_only:
        return al.loads, al.stores
    emit(".Lsha256_step16:")
    al.free.append("lr")                # the input pointer is dead: lr joins the window

    def needed(t: int) -> list[str]:
        return [w(t - 2), w(t - 16), w(t - 15), w(t - 7)]

    def reload(words: list[str]) -> None:
        for v in words:
            emit(f"ldr     {al.take(v)}, {slot(v)}")
            al.loads += 1

    # Step 16's words that the pairs above spilled come back first.
    first = [v for v in needed(16) if v not in al.reg]
    al.make_room(len(first), set(needed(16)), slot)
    reload(first)
    for t in range(16, 64):
        x2, acc, x15, x7 = needed(t)
        nxt = [v for v in needed(t + 1) if v not in al.reg and v != w(t)] if t < 63 else []
        # One temporary s (the sigmas, then K[t] and WK[t]); room now for it and for the next step's
        # reloads, which share the burst that loads K[t] (spill stores here, after the last store).
        al.make_room(len(nxt) + 1, set(needed(t)) | (set(needed(t + 1)) if t < 63 else set()), slot)
        s = al.take("s")
        r2, ra, r15, r7 = (al.reg[v] for v in (x2, acc, x15, x7))
        emit(f"lsr     {s}, {r2}, #10")
        emit(f"eor     {s}, {s}, {r2}, ror #17")
        emit(f"eor     {s}, {s}, {r2}, ror #19")
        emit(f"add     {ra}, {ra}, {s}")
        emit(f"lsr     {s}, {r15}, #3")
        emit(f"eor     {s}, {s}, {r15}, ror #7")
        emit(f"eor     {s}, {s}, {r15}, ror #18")
        emit(f"add     {ra}, {ra}, {s}")
        emit(f"add     {ra}, {ra}, {r7}")
        al.advance(needed(t))
        # W[t] takes over the register of W[t-16] (its last use was as the accumulator).
        al.reg[w(t)] = al.reg.pop(acc)
        al.in_mem.discard(w(t))
        al.advance([w(t)])
        reload(nxt)
        emit(f"ldr     {s}, .LK256 + {4 * t}")
        emit(f"add     {s}, {s}, {ra}")
        emit(f"str     {s}, [sp, #{WK_OFF + 4 * t}]")
        al.drop("s")
        for v in list(al.reg):          # words with no further use free their registers
            if al.next_use(v) >= 10**9:
                al.drop(v)
    return al.loads, al.stores


def sha256_rounds(emit) -> None:
    """Pass 2: 64 rounds on the state in r0-r7 (a..h, renamed), WK from the frame in bursts of 4."""
    st = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]     # a b c d e f g h
    carry, s = "r8", "r9"
    wk_regs = ["r10", "r11", "r12", "lr"]
    emit(f"eor     {carry}, r1, r2")               # b ^ c for the first Maj
    for t in range(64):
        if t % 4 == 0:
            for i in range(4):
                emit(f"ldr     {wk_regs[i]}, [sp, #{WK_OFF + 4 * (t + i)}]")
        a, b, c, d, e, f, g, h = st
        wk = wk_regs[t % 4]
        emit(f"// round {t}")
        emit(f"add     {h}, {h}, {wk}")
        emit(f"eor     {s}, {e}, {e}, ror #5")
        emit(f"eor     {s}, {s}, {e}, ror #19")
        emit(f"add     {h}, {h}, {s}, ror #6")          # h += Sigma1(e)
        emit(f"eor     {s}, {f}, {g}")
        emit(f"and     {s}, {s}, {e}")
        emit(f"eor     {s}, {s}, {g}")
        emit(f"add     {h}, {h}, {s}")                  # h += Ch(e, f, g): h is T1
        emit(f"add     {d}, {d}, {h}")                  # e' = d + T1
        emit(f"eor     {s}, {a}, {a}, ror #11")
        emit(f"eor     {s}, {s}, {a}, ror #20")
        emit(f"add     {h}, {h}, {s}, ror #2")          # h += Sigma0(a)
        emit(f"eor     {s}, {a}, {b}")                  # a ^ b: the next round's b ^ c
        emit(f"and     {carry}, {carry}, {s}")
        emit(f"eor     {carry}, {carry}, {b}")
        emit(f"add     {h}, {h}, {carry}")              # h += Maj(a, b, c): h is a'
        carry, s = s, carry
        st = [h, a, b, c, d, e, f, g]
    assert st == ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]


def k_table(name: str, words: list[int]) -> list[str]:
    out = [f"{name}:"]
    for i in range(0, len(words), 4):
        out.append("    .word   " + ", ".join(f"0x{x:08x}" for x in words[i:i + 4]))
    return out


HEADER256 = """\
// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_cm3.py (python3 gen_sha2_cm3.py); edit the generator.
 *
 * SHA-256 block function for the Cortex-M3 (armv7m-fast):
 *
 *   void mcu_sha256_<impl>_blocks(uint32_t state[8], const uint8_t *in, size_t nblocks);
 *
 * state: H0..H7 as native words (word aligned); in: nblocks * 64 bytes of big-endian words, any
 * alignment (single LDRs only); nblocks may be 0.
 *
 * Per block, two passes over a 64-word frame WK[t] = W[t] + K[t] (see the generator's docstring):
 * - pass 1, the message schedule in a window of registers renamed step by step (W[t] overwrites
 *   W[t-16]), Belady spills, K[t] PC-relative from .LK256, LDR + REV for the big-endian input;
 * - pass 2, 64 rounds of 16 ALU instructions with the state in r0-r7 renamed each round: Sigma0/Sigma1
 *   as two EORs and the last rotation in the ADD's shifted operand, Ch = ((f ^ g) & e) ^ g,
 *   Maj = ((a ^ b) & (b ^ c)) ^ b reusing the previous round's a ^ b; WK loaded 4 at a time.
 * Register map, pass 2: r0-r7 a..h (rotating), r8/r9 the kept a ^ b and the temporary (swapping each
 * round), r10-r12, lr four WK words. Frame: [sp, #0..255] WK, [sp, #256..319] spilled W words,
 * [sp, #320] state, [sp, #324] next input, [sp, #328] input end.
 * Constant time: no table indexed by data, no data-dependent branch; the only branch is the block loop.
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
    .section .text.MCU_FN(sha256, blocks), "ax", %progbits
    .p2align 2"""


def sha256_source() -> str:
    lines: list[str] = []

    def emit(s: str) -> None:
        lines.append(s if s.endswith(":") else "    " + s)

    lines += k_table(".LK256", K256)
    # The HMAC entries first: their LDRs of K (PC-relative, 4 KB reach) stay near the table.
    for name, head, what in HMAC_ENTRIES:
        lines.append("")
        lines += HMAC_ENTRY_DOC[name]
        emit(f".global MCU_FN(sha256, {name})")
        emit(".thumb_func")
        emit(f".type MCU_FN(sha256, {name}), %function")
        lines.append(f"MCU_FN(sha256, {name}):")
        emit("push    {r4-r11, lr}             // the block function's frame, for one block")
        emit(f"sub     sp, sp, #{FRAME256}")
        emit("add     r2, r1, #64")
        emit(f"str     r0, [sp, #{STATE_SLOT}]")
        emit(f"str     r2, [sp, #{END_SLOT}]")
        emit(f"str     r2, [sp, #{NEXT_SLOT}]        // next = end: the block loop ends after this block")
        emit("mov     lr, r1")
        emit(f"// steps 0-15, W[t] = {what}")
        sha256_schedule(emit, head, head_only=True)
        emit("b.w     .Lsha256_step16           // the rest of the block function, registers as it expects")
        emit(f".size MCU_FN(sha256, {name}), . - MCU_FN(sha256, {name})")
    emit(".global MCU_FN(sha256, blocks)")
    emit(".thumb_func")
    emit(".type MCU_FN(sha256, blocks), %function")
    lines.append("MCU_FN(sha256, blocks):")
    emit("cmp     r2, #0")
    emit("it      eq")
    emit("bxeq    lr                          // nblocks = 0: nothing to do")
    emit("push    {r4-r11, lr}")
    emit(f"sub     sp, sp, #{FRAME256}")
    emit("add     r2, r1, r2, lsl #6")
    emit(f"str     r0, [sp, #{STATE_SLOT}]")
    emit(f"str     r2, [sp, #{END_SLOT}]")
    emit("mov     lr, r1")
    lines.append(".Lsha256_block:")
    emit("add     r0, lr, #64")
    emit(f"str     r0, [sp, #{NEXT_SLOT}]")
    emit("// pass 1: WK[t] = W[t] + K[t]")
    loads, stores = sha256_schedule(emit)
    emit(f"// the schedule spilled {stores} words and reloaded {loads}")
    emit("// pass 2: 64 rounds")
    emit(f"ldr     r12, [sp, #{STATE_SLOT}]")
    emit("ldm     r12, {r0-r7}")
    sha256_rounds(emit)
    emit("// feed-forward: H += a..h")
    emit(f"ldr     r12, [sp, #{STATE_SLOT}]")
    emit("ldm     r12, {r8-r11}")
    emit("add     r0, r0, r8")
    emit("add     r1, r1, r9")
    emit("add     r2, r2, r10")
    emit("add     r3, r3, r11")
    emit("ldrd    r8, r9, [r12, #16]")
    emit("ldrd    r10, r11, [r12, #24]")
    emit("add     r4, r4, r8")
    emit("add     r5, r5, r9")
    emit("add     r6, r6, r10")
    emit("add     r7, r7, r11")
    emit("stm     r12, {r0-r7}")
    emit(f"ldr     lr, [sp, #{NEXT_SLOT}]")
    emit(f"ldr     r0, [sp, #{END_SLOT}]")
    emit("cmp     lr, r0")
    emit("bne.w   .Lsha256_block")
    emit(f"add     sp, sp, #{FRAME256}")
    emit("pop     {r4-r11, pc}")
    emit(".size MCU_FN(sha256, blocks), . - MCU_FN(sha256, blocks)")
    return HEADER256 + "\n" + "\n".join(lines) + "\n"


# The one-block entries HMAC uses (ref/sha2.h, SHA2_ASM_HMAC256): (symbol, HEAD_LOADS key, W[t] read as).
HMAC_ENTRIES = [
    ("block_ipad", "ipad", "big-endian word t of k0, XOR 0x36363636"),
    ("block_opad", "opad", "big-endian word t of k0, XOR 0x5c5c5c5c"),
    ("block_words", "words", "native word t of w"),
]
HMAC_ENTRY_DOC = {
    "block_ipad": """\
/* void mcu_sha256_<impl>_block_ipad(uint32_t state[8], const uint8_t k0[64]);
 * void mcu_sha256_<impl>_block_opad(uint32_t state[8], const uint8_t k0[64]);
 * One block of HMAC's K0 ^ ipad (0x36 bytes) or K0 ^ opad (0x5c bytes), K0 = the key padded with zeros
 * (any alignment). Trick: a pad byte repeated four times is a Thumb-2 modified immediate and commutes
 * with REV, so each word costs one EOR more than the block function's LDR + REV: no K0 ^ pad buffer, no
 * XOR pass over it. Register map and frame: the block function's (r0 state, r1 k0 on entry; lr the
 * input during steps 0-15); after step 15 the registers and spills are exactly the block function's,
 * so the entry branches into it (next input = end: one block). */""".split("\n"),
    "block_opad": [],
    "block_words": """\
/* void mcu_sha256_<impl>_block_words(uint32_t state[8], const uint32_t w[16]);
 * One block given as its 16 message words W[0..15], native 32-bit words (word aligned), so HMAC's outer
 * block takes the inner digest H0..H7 straight from the inner state (no byte-order round trip: no
 * store as big-endian bytes, no REV back). Register map and frame: as block_ipad above. */""".split("\n"),
}



# ------------------------------------------------------------------------------------------ SHA-512
def _k512() -> list[int]:
    """The first 64 bits of the fractional parts of the cube roots of the first 80 primes (FIPS 180-4
    4.2.3), computed exactly with integer cube roots."""
    primes: list[int] = []
    n = 2
    while len(primes) < 80:
        if all(n % p for p in primes):
            primes.append(n)
        n += 1
    out = []
    for p in primes:
        x = p << 192                       # p * 2^(3*64)
        r = int(round(x ** (1 / 3)))
        while r ** 3 > x:
            r -= 1
        while (r + 1) ** 3 <= x:
            r += 1
        out.append(r & (2 ** 64 - 1))
    return out


K512 = _k512()
assert K512[0] == 0x428a2f98d728ae22 and K512[79] == 0x6c44198c4a475817
assert [k >> 32 for k in K512[:64]] == K256

# SHA-512 frame (sp-relative): WK[0..79] (lo, hi words), the schedule window W[t % 16], the eight state
# slots of pass 2, then the saved pointers.
W5_WK, W5_WIN, W5_SLOT = 0, 640, 768
W5_STATE, W5_NEXT, W5_END = 832, 836, 840
FRAME512 = 848
BODY512 = 8                        # rounds per pass-2 loop iteration (the slot map repeats every 8)


def sigma64(emit, dst: tuple[str, str], x: tuple[str, str], r1: int, r2: int, sh: int) -> None:
    """dst = ROR(x, r1) ^ ROR(x, r2) ^ (x >> sh) on a (lo, hi) pair, r1 < r2, sh < 32: six and five
    shifted-operand instructions."""
    xl, xh = x
    dl, dh = dst

    def terms(lo: str, hi: str, n: int) -> list[tuple[str, str, int]]:
        """The two shifted words of one half of ROR(x, n): (register, shift, amount)."""
        if n < 32:
            return [(lo, "lsr", n), (hi, "lsl", 32 - n)]
        return [(hi, "lsr", n - 32), (lo, "lsl", 64 - n)]

    low = terms(xl, xh, r1) + terms(xl, xh, r2) + [(xl, "lsr", sh), (xh, "lsl", 32 - sh)]
    high = terms(xh, xl, r1) + terms(xh, xl, r2) + [(xh, "lsr", sh)]
    for d, ts in ((dl, low), (dh, high)):
        (r, op, n), rest = ts[0], ts[1:]
        emit(f"{op:<7} {d}, {r}, #{n}")
        for (r, op, n) in rest:
            emit(f"eor     {d}, {d}, {r}, {op} #{n}")


def sha512_schedule(emit) -> None:
    """Pass 1: W[0..15] from the input (lr) into the window, then W[16..79] in a loop of 16 steps;
    WK[t] = W[t] + K[t] into the frame."""
    def win(t: int) -> int:
        return W5_WIN + 8 * (t % 16)

    for t in range(0, 16, 2):          # two steps per burst: 4 input words and 4 constant words
        emit(f"ldr     r0, [lr, #{8 * t}]")
        emit(f"ldr     r1, [lr, #{8 * t + 4}]")
        emit(f"ldr     r2, [lr, #{8 * t + 8}]")
        emit(f"ldr     r3, [lr, #{8 * t + 12}]")
        emit(f"ldr     r4, .LK512 + {8 * t}")
        emit(f"ldr     r5, .LK512 + {8 * t + 4}")
        emit(f"ldr     r6, .LK512 + {8 * t + 8}")
        emit(f"ldr     r7, .LK512 + {8 * t + 12}")
        emit("rev     r1, r1                  // W[t] low word (big-endian bytes 4..7)")
        emit("rev     r0, r0                  // W[t] high word")
        emit("rev     r3, r3")
        emit("rev     r2, r2")
        emit(f"str     r1, [sp, #{win(t)}]")
        emit(f"str     r0, [sp, #{win(t) + 4}]")
        emit(f"str     r3, [sp, #{win(t + 1)}]")
        emit(f"str     r2, [sp, #{win(t + 1) + 4}]")
        emit("adds    r4, r4, r1")
        emit("adc     r5, r5, r0")
        emit("adds    r6, r6, r3")
        emit("adc     r7, r7, r2")
        emit(f"str     r4, [sp, #{W5_WK + 8 * t}]")
        emit(f"str     r5, [sp, #{W5_WK + 8 * t + 4}]")
        emit(f"str     r6, [sp, #{W5_WK + 8 * t + 8}]")
        emit(f"str     r7, [sp, #{W5_WK + 8 * t + 12}]")
    # W[16..79]: r12 = &K[t0], lr = &WK[t0] for the iteration's first step t0; the window slots repeat
    # every 16 steps, so one iteration is 16 steps with fixed offsets.
    emit("adr     r12, .LK512 + 128")
    emit(f"add     lr, sp, #{W5_WK + 128}")
    emit(".Lsha512_schedule:")
    for i in range(16):
        emit(f"// W[t] for t = 16 + 16j + {i}: W[t-16] in r0:r1, W[t-15] r2:r3, W[t-2] r4:r5, W[t-7] r6:r7")
        for (lo, hi), back in ((("r0", "r1"), 16), (("r2", "r3"), 15), (("r4", "r5"), 2), (("r6", "r7"), 7)):
            emit(f"ldr     {lo}, [sp, #{win(i + 16 - back)}]")
            emit(f"ldr     {hi}, [sp, #{win(i + 16 - back) + 4}]")
        emit(f"ldr     r10, [r12, #{8 * i}]")
        emit(f"ldr     r11, [r12, #{8 * i + 4}]")
        sigma64(emit, ("r8", "r9"), ("r2", "r3"), 1, 8, 7)
        emit("adds    r0, r0, r8")
        emit("adc     r1, r1, r9")
        sigma64(emit, ("r8", "r9"), ("r4", "r5"), 19, 61, 6)
        emit("adds    r0, r0, r8")
        emit("adc     r1, r1, r9")
        emit("adds    r0, r0, r6")
        emit("adc     r1, r1, r7")
        emit(f"str     r0, [sp, #{win(i)}]")
        emit(f"str     r1, [sp, #{win(i) + 4}]")
        emit("adds    r10, r10, r0")
        emit("adc     r11, r11, r1")
        emit(f"str     r10, [lr, #{8 * i}]")
        emit(f"str     r11, [lr, #{8 * i + 4}]")
    emit("add     r12, r12, #128")
    emit("add     lr, lr, #128")
    emit(f"add     r0, sp, #{W5_WK + 640}")
    emit("cmp     lr, r0")
    emit("bne.w   .Lsha512_schedule")


ROLES512 = ("A0", "A1", "B0", "B1", "E0", "E1", "C0", "C1", "H0", "H1", "T0", "T1", "X")
START512 = dict(zip(ROLES512, [f"r{i}" for i in range(13)]))
LIVE512 = ROLES512[:8]               # a, b, e, b ^ c: live from round to round
FREE512 = ("H0", "H1", "T0", "T1", "X")


def _next_roles(m: dict[str, str], order: tuple[int, ...]) -> dict[str, str]:
    """The register of each role after a round: a' = h, b' = a, e' = (T0, X) (where d + T1 is formed),
    b' ^ c' = the pair that held e (a ^ b is formed there); the five free registers (b's, the old
    b ^ c's, T1) become h, T and X in `order`."""
    n = {"A0": m["H0"], "A1": m["H1"], "B0": m["A0"], "B1": m["A1"], "E0": m["T0"], "E1": m["X"],
         "C0": m["E0"], "C1": m["E1"]}
    free = [m["B0"], m["B1"], m["C0"], m["C1"], m["T1"]]
    n.update({role: free[i] for role, i in zip(FREE512, order)})
    return n


def _fewest_moves_order() -> tuple[int, ...]:
    """The free-register order (the same every round) that leaves the fewest live registers out of
    place after BODY512 rounds."""
    best = None
    for order in itertools.permutations(range(5)):
        m = dict(START512)
        for _ in range(BODY512):
            m = _next_roles(m, order)
        cost = sum(m[r] != START512[r] for r in LIVE512)
        if best is None or cost < best[0]:
            best = (cost, order)
    return best[1]


def sha512_rounds(emit, slot_base: int = W5_SLOT) -> None:
    """Pass 2: 80 rounds, a loop of 8. a, b, e and the kept a ^ b (b ^ c of the next round) stay in
    registers; c..h live in eight frame slots whose roles rotate (round t: role r in slot
    (r - t) mod 8); new a and new e are stored to the slots of h and d. lr walks WK."""
    m = dict(START512)
    order = _fewest_moves_order()

    def slot(role: int, t: int) -> int:
        return slot_base + 8 * ((role - t) % 8)

    emit(".Lsha512_rounds:")
    pending_store: list[str] = []
    for i in range(BODY512):
        A0, A1, B0, B1, E0, E1, C0, C1, H0, H1, T0, T1, X = (m[r] for r in ROLES512)
        emit(f"// round 8j + {i}: a {A0}:{A1}, b {B0}:{B1}, e {E0}:{E1}, b^c {C0}:{C1}")
        emit(f"ldr     {H0}, [sp, #{slot(7, i)}]")       # h
        emit(f"ldr     {H1}, [sp, #{slot(7, i) + 4}]")
        emit(f"ldr     {T0}, [lr, #{8 * i}]")            # WK[t]
        emit(f"ldr     {T1}, [lr, #{8 * i + 4}]")
        for st in pending_store:                           # the previous round's new a, after the loads
            emit(st)
        pending_store = []
        emit(f"adds    {H0}, {H0}, {T0}")
        emit(f"adc     {H1}, {H1}, {T1}")
        # Sigma1(e) = ROR(y, 14), y = e ^ ROR(e, 4) ^ ROR(e, 27); ROR(y, 14) is added as its two
        # halves' shifted words (two 64-bit additions of disjoint-bit values), no OR needed.
        for d, lo, hi in ((T0, E0, E1), (T1, E1, E0)):
            emit(f"eor     {d}, {lo}, {lo}, lsr #4")
            emit(f"eor     {d}, {d}, {hi}, lsl #28")
            emit(f"eor     {d}, {d}, {lo}, lsr #27")
            emit(f"eor     {d}, {d}, {hi}, lsl #5")
        emit(f"adds    {H0}, {H0}, {T0}, lsr #14")
        emit(f"adc     {H1}, {H1}, {T1}, lsr #14")
        emit(f"adds    {H0}, {H0}, {T1}, lsl #18")
        emit(f"adc     {H1}, {H1}, {T0}, lsl #18      // h += Sigma1(e)")
        # Ch(e, f, g) = (g & ~e) + (e & f): disjoint bits, so two additions; g and f from their slots.
        # The low half of e & f is added before the loads of f's high word and d (LDR keeps the
        # carry), so those three loads share one burst.
        emit(f"ldr     {T0}, [sp, #{slot(6, i)}]")
        emit(f"ldr     {T1}, [sp, #{slot(6, i) + 4}]")
        emit(f"ldr     {X}, [sp, #{slot(5, i)}]")
        emit(f"bic     {T0}, {T0}, {E0}")
        emit(f"bic     {T1}, {T1}, {E1}")
        emit(f"adds    {H0}, {H0}, {T0}")
        emit(f"adc     {H1}, {H1}, {T1}")
        emit(f"and     {X}, {X}, {E0}")
        emit(f"adds    {H0}, {H0}, {X}")
        emit(f"ldr     {T1}, [sp, #{slot(5, i) + 4}]")
        emit(f"ldr     {T0}, [sp, #{slot(3, i)}]")
        emit(f"ldr     {X}, [sp, #{slot(3, i) + 4}]")
        emit(f"and     {T1}, {T1}, {E1}")
        emit(f"adc     {H1}, {H1}, {T1}       // h = T1")
        emit(f"adds    {T0}, {T0}, {H0}")
        emit(f"adc     {X}, {X}, {H1}       // new e = d + T1")
        emit(f"str     {T0}, [sp, #{slot(3, i)}]")
        emit(f"str     {X}, [sp, #{slot(3, i) + 4}]")
        # Sigma0(a) = ROR(y, 28), y = a ^ ROR(a, 6) ^ ROR(a, 11), in the registers e has left.
        for d, lo, hi in ((E0, A0, A1), (E1, A1, A0)):
            emit(f"eor     {d}, {lo}, {lo}, lsr #6")
            emit(f"eor     {d}, {d}, {hi}, lsl #26")
            emit(f"eor     {d}, {d}, {lo}, lsr #11")
            emit(f"eor     {d}, {d}, {hi}, lsl #21")
        emit(f"adds    {H0}, {H0}, {E0}, lsr #28")
        emit(f"adc     {H1}, {H1}, {E1}, lsr #28")
        emit(f"adds    {H0}, {H0}, {E1}, lsl #4")
        emit(f"adc     {H1}, {H1}, {E0}, lsl #4       // h += Sigma0(a)")
        # Maj(a, b, c) = ((a ^ b) & (b ^ c)) ^ b; a ^ b is the next round's b ^ c.
        emit(f"eor     {E0}, {A0}, {B0}")
        emit(f"eor     {E1}, {A1}, {B1}")
        emit(f"and     {C0}, {C0}, {E0}")
        emit(f"and     {C1}, {C1}, {E1}")
        emit(f"eor     {C0}, {C0}, {B0}")
        emit(f"eor     {C1}, {C1}, {B1}")
        emit(f"adds    {H0}, {H0}, {C0}")
        emit(f"adc     {H1}, {H1}, {C1}      // new a = T1 + Sigma0(a) + Maj(a, b, c)")
        pending_store = [f"str     {H0}, [sp, #{slot(7, i)}]", f"str     {H1}, [sp, #{slot(7, i) + 4}]"]
        m = _next_roles(m, order)
    for st in pending_store:
        emit(st)
    # Back to the registers the loop started with (the slots' period is 8, the registers' is not).
    want = {START512[r]: m[r] for r in LIVE512 if m[r] != START512[r]}     # destination <- source
    free = [m[r] for r in FREE512]
    while want:
        ready = [d for d in want if d not in want.values()]    # destinations no pending move reads
        if ready:
            d = ready[0]
            emit(f"mov     {d}, {want.pop(d)}")
        else:                                                  # a cycle: park one source in a free register
            d = next(iter(want))
            tmp = next(r for r in free if r not in want and r not in want.values())
            emit(f"mov     {tmp}, {want[d]}")
            want[d] = tmp
    emit(f"add     lr, lr, #{8 * BODY512}")
    emit(f"add     r12, sp, #{W5_WK + 640}")
    emit("cmp     lr, r12")
    emit("bne.w   .Lsha512_rounds")


HEADER512 = """\\
// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_cm3.py (python3 gen_sha2_cm3.py); edit the generator.
 *
 * SHA-512 block function for the Cortex-M3 (armv7m-fast):
 *
 *   void mcu_sha512_<impl>_blocks(uint64_t state[8], const uint8_t *in, size_t nblocks);
 *
 * state: H0..H7 as native 64-bit words (low word first; word aligned); in: nblocks * 128 bytes of
 * big-endian words, any alignment (single LDRs only); nblocks may be 0.
 *
 * 64-bit words are (low, high) register pairs; additions are ADDS/ADC. Per block, two passes over an
 * 80-entry frame WK[t] = W[t] + K[t] (see the generator's docstring and docs/sha2.md):
 * - pass 1: W[0..15] (LDR + REV) into a 16-entry window, then W[16..79] in a loop of 16 steps,
 *   sigma0/sigma1 as 6 + 5 shifted-operand EORs each;
 * - pass 2: 80 rounds in a loop of 8. a, b, e and the kept a ^ b stay in registers, c..h in eight
 *   frame slots whose roles rotate. Sigma1(e) = ROR(e ^ ROR(e,4) ^ ROR(e,27), 14) and
 *   Sigma0(a) = ROR(a ^ ROR(a,6) ^ ROR(a,11), 28): 8 EORs for the inner value, and the outer rotation
 *   is added as two 64-bit numbers of disjoint bits (4 ADDS/ADC with shifted operands) instead of
 *   being formed; Ch = (g & ~e) + (e & f); Maj = ((a ^ b) & (b ^ c)) ^ b with a ^ b kept.
 * Frame: [sp, #0..639] WK, [sp, #640..767] W window, [sp, #768..831] state slots, [sp, #832] state,
 * [sp, #836] next input, [sp, #840] input end.
 * Constant time: no table indexed by data, no data-dependent branch (the loops count public blocks
 * and rounds).
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
    .section .text.MCU_FN(sha512, blocks), "ax", %progbits
    .p2align 3"""


def sha512_source(small: bool = False) -> str:
    """The fast file, or with `small` the compact one: the same rounds, the schedule in a one-step loop
    that turns the window into WK in place (one 640-byte array instead of WK plus a window)."""
    slot, st_slot, next_slot, end_slot, frame = ((S5_SLOT, S5_STATE, S5_NEXT, S5_END, FRAME512_SMALL)
                                                 if small else (W5_SLOT, W5_STATE, W5_NEXT, W5_END, FRAME512))
    lines: list[str] = []

    def emit(s: str) -> None:
        lines.append(s if s.endswith(":") else "    " + s)

    lines += k_table(".LK512", [w for k in K512 for w in (k & 0xFFFFFFFF, k >> 32)])
    emit(".global MCU_FN(sha512, blocks)")
    emit(".thumb_func")
    emit(".type MCU_FN(sha512, blocks), %function")
    lines.append("MCU_FN(sha512, blocks):")
    emit("cmp     r2, #0")
    emit("it      eq")
    emit("bxeq    lr                          // nblocks = 0: nothing to do")
    emit("push    {r4-r11, lr}")
    emit(f"sub     sp, sp, #{frame}")
    emit("add     r2, r1, r2, lsl #7")
    emit(f"str     r0, [sp, #{st_slot}]")
    emit(f"str     r2, [sp, #{end_slot}]")
    emit("mov     lr, r1")
    lines.append(".Lsha512_block:")
    emit("add     r0, lr, #128")
    emit(f"str     r0, [sp, #{next_slot}]")
    emit("// pass 1: WK[t] = W[t] + K[t]")
    (sha512_schedule_small if small else sha512_schedule)(emit)
    emit("// pass 2: the state into its slots and registers, then 80 rounds")
    emit(f"ldr     r12, [sp, #{st_slot}]")
    emit(f"add     lr, sp, #{slot}")
    emit("ldm     r12!, {r0-r7}               // a b c d")
    emit("stm     lr!, {r0-r7}")
    emit("eor     r6, r2, r4                  // b ^ c")
    emit("eor     r7, r3, r5")
    emit("ldm     r12, {r8-r11}               // e f")
    emit("stm     lr!, {r8-r11}")
    emit("mov     r4, r8")
    emit("mov     r5, r9")
    emit("ldrd    r8, r9, [r12, #16]          // g h")
    emit("ldrd    r10, r11, [r12, #24]")
    emit("stm     lr, {r8-r11}")
    emit(f"add     lr, sp, #{W5_WK}")
    sha512_rounds(emit, slot)
    emit("// feed-forward: H += a..h from the slots (the slot map is back at its start)")
    emit(f"ldr     r12, [sp, #{st_slot}]")
    emit(f"add     lr, sp, #{slot}")
    for _ in range(2):
        emit("ldm     r12, {r0-r7}")
        emit("ldm     lr!, {r8-r11}")
        emit("adds    r0, r0, r8")
        emit("adc     r1, r1, r9")
        emit("adds    r2, r2, r10")
        emit("adc     r3, r3, r11")
        emit("ldm     lr!, {r8-r11}")
        emit("adds    r4, r4, r8")
        emit("adc     r5, r5, r9")
        emit("adds    r6, r6, r10")
        emit("adc     r7, r7, r11")
        emit("stm     r12!, {r0-r7}")
    emit(f"ldr     lr, [sp, #{next_slot}]")
    emit(f"ldr     r0, [sp, #{end_slot}]")
    emit("cmp     lr, r0")
    emit("bne.w   .Lsha512_block")
    emit(f"add     sp, sp, #{frame}")
    emit("pop     {r4-r11, pc}")
    emit(".size MCU_FN(sha512, blocks), . - MCU_FN(sha512, blocks)")
    return (HEADER512_SMALL if small else HEADER512) + "\n" + "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------- small-code variants
# SHA-512 small frame: WK[0..79] (the schedule's words, turned into WK in place), the state slots, the
# saved pointers.
S5_SLOT, S5_STATE, S5_NEXT, S5_END = 640, 704, 708, 712
FRAME512_SMALL = 720


def sha512_schedule_small(emit) -> None:
    """Pass 1 in loops of one step. r12 = &W[t], r11 = &K[t-16]. W[t-16]'s last use is step t, so
    WK[t-16] = W[t-16] + K[t-16] overwrites it there; a last loop adds K to W[64..79]."""
    emit("mov     r12, sp")
    emit("add     r10, sp, #128")
    emit(".Lsha512s_load:")
    emit("ldr     r1, [lr], #4                // big-endian: the high word first")
    emit("ldr     r0, [lr], #4")
    emit("rev     r1, r1")
    emit("rev     r0, r0")
    emit("strd    r0, r1, [r12], #8")
    emit("cmp     r12, r10")
    emit("bne     .Lsha512s_load")
    emit("adr     r11, .LK512")
    emit(f"add     r10, sp, #{W5_WK + 640}")
    emit(".Lsha512s_schedule:")
    emit("ldrd    r0, r1, [r12, #-128]        // W[t-16]")
    emit("ldrd    r10, lr, [r11], #8          // K[t-16]")
    emit("adds    r10, r10, r0")
    emit("adc     lr, lr, r1")
    emit("strd    r10, lr, [r12, #-128]       // WK[t-16] over W[t-16]")
    emit("ldrd    r2, r3, [r12, #-120]        // W[t-15]")
    emit("ldrd    r4, r5, [r12, #-16]         // W[t-2]")
    emit("ldrd    r6, r7, [r12, #-56]         // W[t-7]")
    sigma64(emit, ("r8", "r9"), ("r2", "r3"), 1, 8, 7)
    emit("adds    r0, r0, r8")
    emit("adc     r1, r1, r9")
    sigma64(emit, ("r8", "r9"), ("r4", "r5"), 19, 61, 6)
    emit("adds    r0, r0, r8")
    emit("adc     r1, r1, r9")
    emit("adds    r0, r0, r6")
    emit("adc     r1, r1, r7")
    emit("strd    r0, r1, [r12], #8")
    emit(f"add     r10, sp, #{W5_WK + 640}")
    emit("cmp     r12, r10")
    emit("bne     .Lsha512s_schedule")
    emit("sub     r12, r12, #128              // WK[64..79] = W + K")
    emit(".Lsha512s_tail:")
    emit("ldrd    r0, r1, [r12]")
    emit("ldrd    r2, r3, [r11], #8")
    emit("adds    r0, r0, r2")
    emit("adc     r1, r1, r3")
    emit("strd    r0, r1, [r12], #8")
    emit("cmp     r12, r10")
    emit("bne     .Lsha512s_tail")


HEADER512_SMALL = HEADER512.replace("(armv7m-fast)", "(armv7m-small: the compact variant)").replace(
    """ * - pass 1: W[0..15] (LDR + REV) into a 16-entry window, then W[16..79] in a loop of 16 steps,
 *   sigma0/sigma1 as 6 + 5 shifted-operand EORs each;""",
    """ * - pass 1: W[0..79] in loops of one step into one 80-entry array, each W[t-16] turned into WK[t-16]
 *   in place after its last use (step t), sigma0/sigma1 as 6 + 5 shifted-operand EORs each;""").replace(
    """ * Frame: [sp, #0..639] WK, [sp, #640..767] W window, [sp, #768..831] state slots, [sp, #832] state,
 * [sp, #836] next input, [sp, #840] input end.""",
    """ * Frame: [sp, #0..639] W then WK, [sp, #640..703] state slots, [sp, #704] state, [sp, #708] next
 * input, [sp, #712] input end.""")

# SHA-256 small frame: W[0..63] turned into WK in place, the saved pointers.
S2_STATE, S2_NEXT, S2_END = 256, 260, 264
FRAME256_SMALL = 272

HEADER256_SMALL = """\\
// SPDX-License-Identifier: MIT
/* GENERATED by gen_sha2_cm3.py (python3 gen_sha2_cm3.py); edit the generator.
 *
 * SHA-256 block function for the Cortex-M3 (armv7m-small: the compact variant):
 *
 *   void mcu_sha256_<impl>_blocks(uint32_t state[8], const uint8_t *in, size_t nblocks);
 *
 * state: H0..H7 as native words (word aligned); in: nblocks * 64 bytes of big-endian words, any
 * alignment (single LDRs only); nblocks may be 0.
 *
 * The rounds of armv7m-fast (16 ALU instructions each, the state in r0-r7 renamed round by round) in a
 * loop of 8 (the renaming's period), WK loaded one word a round; the schedule in loops of one step
 * into one 64-word array, each W[t-16] turned into WK[t-16] = W[t-16] + K[t-16] in place after its
 * last use (step t). Register map of the rounds: r0-r7 a..h (rotating), r8/r9 the kept a ^ b and the
 * temporary (swapping each round), r10 the WK pointer, r11 WK[t], r12 the end of WK.
 * Frame: [sp, #0..255] W then WK, [sp, #256] state, [sp, #260] next input, [sp, #264] input end.
 * Constant time: no table indexed by data, no data-dependent branch (the loops count public blocks,
 * steps and rounds).
 */
#include "mcucrypt/ns.h"

    .syntax unified
    .thumb
    .section .text.MCU_FN(sha256, blocks), "ax", %progbits
    .p2align 2"""


def sha256_round(emit, st: list[str], carry: str, s: str, wk: str) -> None:
    """One round (16 ALU instructions) on the state registers st = a..h; h += WK first."""
    a, b, c, d, e, f, g, h = st
    emit(f"add     {h}, {h}, {wk}")
    emit(f"eor     {s}, {e}, {e}, ror #5")
    emit(f"eor     {s}, {s}, {e}, ror #19")
    emit(f"add     {h}, {h}, {s}, ror #6")          # h += Sigma1(e)
    emit(f"eor     {s}, {f}, {g}")
    emit(f"and     {s}, {s}, {e}")
    emit(f"eor     {s}, {s}, {g}")
    emit(f"add     {h}, {h}, {s}")                  # h += Ch(e, f, g): h is T1
    emit(f"add     {d}, {d}, {h}")                  # e' = d + T1
    emit(f"eor     {s}, {a}, {a}, ror #11")
    emit(f"eor     {s}, {s}, {a}, ror #20")
    emit(f"add     {h}, {h}, {s}, ror #2")          # h += Sigma0(a)
    emit(f"eor     {s}, {a}, {b}")                  # a ^ b: the next round's b ^ c
    emit(f"and     {carry}, {carry}, {s}")
    emit(f"eor     {carry}, {carry}, {b}")
    emit(f"add     {h}, {h}, {carry}")              # h += Maj(a, b, c): h is a'


def sha256_small_source() -> str:
    lines: list[str] = []

    def emit(s: str) -> None:
        lines.append(s if s.endswith(":") else "    " + s)

    lines += k_table(".LK256", K256)
    emit(".global MCU_FN(sha256, blocks)")
    emit(".thumb_func")
    emit(".type MCU_FN(sha256, blocks), %function")
    lines.append("MCU_FN(sha256, blocks):")
    emit("cmp     r2, #0")
    emit("it      eq")
    emit("bxeq    lr                          // nblocks = 0: nothing to do")
    emit("push    {r4-r11, lr}")
    emit(f"sub     sp, sp, #{FRAME256_SMALL}")
    emit("add     r2, r1, r2, lsl #6")
    emit(f"str     r0, [sp, #{S2_STATE}]")
    emit(f"str     r2, [sp, #{S2_END}]")
    emit("mov     lr, r1")
    lines.append(".Lsha256s_block:")
    emit("// pass 1: W[0..15] from the input, W[16..63], and WK = W + K in place")
    emit("mov     r12, sp")
    emit("add     r10, sp, #64")
    lines.append(".Lsha256s_load:")
    emit("ldr     r0, [lr], #4")
    emit("rev     r0, r0")
    emit("str     r0, [r12], #4")
    emit("cmp     r12, r10")
    emit("bne     .Lsha256s_load")
    emit(f"str     lr, [sp, #{S2_NEXT}]")
    emit("adr     r11, .LK256")
    emit("add     r10, sp, #256")
    lines.append(".Lsha256s_schedule:")
    emit("ldr     r0, [r12, #-64]             // W[t-16]")
    emit("ldr     r1, [r12, #-60]             // W[t-15]")
    emit("ldr     r2, [r12, #-8]              // W[t-2]")
    emit("ldr     r3, [r12, #-28]             // W[t-7]")
    emit("ldr     r4, [r11], #4               // K[t-16]")
    emit("add     r4, r4, r0")
    emit("str     r4, [r12, #-64]             // WK[t-16] over W[t-16]")
    emit("add     r0, r0, r3")
    emit("lsr     r5, r1, #3")
    emit("eor     r5, r5, r1, ror #7")
    emit("eor     r5, r5, r1, ror #18")
    emit("add     r0, r0, r5")
    emit("lsr     r5, r2, #10")
    emit("eor     r5, r5, r2, ror #17")
    emit("eor     r5, r5, r2, ror #19")
    emit("add     r0, r0, r5")
    emit("str     r0, [r12], #4")
    emit("cmp     r12, r10")
    emit("bne     .Lsha256s_schedule")
    emit("sub     r12, r12, #64               // WK[48..63] = W + K")
    lines.append(".Lsha256s_tail:")
    emit("ldr     r0, [r12]")
    emit("ldr     r4, [r11], #4")
    emit("add     r0, r0, r4")
    emit("str     r0, [r12], #4")
    emit("cmp     r12, r10")
    emit("bne     .Lsha256s_tail")
    emit("// pass 2: 64 rounds, a loop of 8")
    emit(f"ldr     r12, [sp, #{S2_STATE}]")
    emit("ldm     r12, {r0-r7}")
    emit("eor     r8, r1, r2                  // b ^ c for the first Maj")
    emit("mov     r10, sp")
    emit("add     r12, sp, #256")
    lines.append(".Lsha256s_rounds:")
    st = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]
    carry, s = "r8", "r9"
    for _ in range(8):
        emit("ldr     r11, [r10], #4")
        sha256_round(emit, st, carry, s, "r11")
        carry, s = s, carry
        st = [st[7]] + st[:7]
    assert st == ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"] and carry == "r8"
    emit("cmp     r10, r12")
    emit("bne     .Lsha256s_rounds")
    emit("// feed-forward: H += a..h")
    emit(f"ldr     r12, [sp, #{S2_STATE}]")
    emit("ldm     r12, {r8-r11}")
    emit("add     r0, r0, r8")
    emit("add     r1, r1, r9")
    emit("add     r2, r2, r10")
    emit("add     r3, r3, r11")
    emit("ldrd    r8, r9, [r12, #16]")
    emit("ldrd    r10, r11, [r12, #24]")
    emit("add     r4, r4, r8")
    emit("add     r5, r5, r9")
    emit("add     r6, r6, r10")
    emit("add     r7, r7, r11")
    emit("stm     r12, {r0-r7}")
    emit(f"ldr     lr, [sp, #{S2_NEXT}]")
    emit(f"ldr     r0, [sp, #{S2_END}]")
    emit("cmp     lr, r0")
    emit("bne     .Lsha256s_block")
    emit(f"add     sp, sp, #{FRAME256_SMALL}")
    emit("pop     {r4-r11, pc}")
    emit(".size MCU_FN(sha256, blocks), . - MCU_FN(sha256, blocks)")
    return HEADER256_SMALL + "\n" + "\n".join(lines) + "\n"


def main() -> int:
    outputs = {OUT256: sha256_source(), OUT512: sha512_source(),
               OUT256_SMALL: sha256_small_source(), OUT512_SMALL: sha512_source(small=True)}
    return write_or_check(outputs, "--check" in sys.argv[1:], __file__)


if __name__ == "__main__":
    sys.exit(main())
