#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates ascon_fast.S (avr-fast): Ascon-p and the block loops for the AVR (ATmega128).

Run `python3 crypto/ascon/avr/gen_avr_fast.py > crypto/ascon/avr/ascon_fast.S`; a test checks that the
committed file is this script's output.

Three of the five lanes never leave the registers during a permutation, the two others live in static
RAM addressed by LDS/STS (no pointer register is needed, so all 32 registers hold data):
- lanes 0 and 1 are resident, interleaved: byte j of lane 0 in r(2j), of lane 1 in r(2j+1), so that one
  MOVW puts both S-box outputs of a column back and eight MOVW copy both lanes for the linear layer;
- lane 4 enters the S-box from r16..r23, where the previous round's linear layer left it, and the S-box
  writes its output for lane 2 into the same registers, where the linear layer takes it up;
- lanes 2, 3, 4 otherwise live in static RAM (s2, s3, s4): the S-box loads x2, x3 and stores y3, y4,
  the linear layer stores lane 2, loads and stores lane 3 and loads lane 4.
Per round: S-box 8 columns of 21 operations (the 15-operation OR form, three copies, two COMs, one MOVW)
plus 2 LDS and 2 STS; linear layer per lane: a copy (MOVW), 1-4 bit rotations of the copy (10 cycles a
bit either way: BST/BLD carry the wrapped bit, no zero register is free; 9 for lane 0, which runs when
lane 1's copy registers are free and keeps the byte beyond the wrap in one), 16 EORs at byte offsets
(rotations by whole bytes are free), plus the loads and stores above. The block loops keep lanes 0, 1
and 4 in registers across blocks: absorbing is LD, EOR (and ST) on the resident registers.
No branch but on round and block counts (public), no secret-indexed address: constant time.
Not reentrant (25 bytes of static RAM: lanes 2-4 and the round constant).
"""
from __future__ import annotations

ROT = {0: (19, 28), 1: (61, 39), 2: (1, 6), 3: (10, 17), 4: (7, 41)}
L0 = [f"r{2 * j}" for j in range(8)]          # lane 0, byte j
L1 = [f"r{2 * j + 1}" for j in range(8)]      # lane 1, byte j
F = [f"r{16 + j}" for j in range(8)]          # lane 4 in, lane 2 out of the S-box; the linear layer's lane
P = [f"r{24 + j}" for j in range(8)]          # its rotated copy; S-box temporaries
RC_START = {12: 0xf0, 8: 0xb4}


def sbox_column(j: int) -> list[str]:
    """Column j: x0 = r(2j), x1 = r(2j+1), x4 = r(16+j) in registers, x2 and x3 from static RAM.
    Afterwards y0, y1 are back in r(2j), r(2j+1), y2 in r(16+j), y3 and y4 in static RAM."""
    a, b, e = L0[j], L1[j], F[j]
    c, d, f, g, h = "r24", "r25", "r26", "r27", "r28"   # c:d a register pair (the MOVW at the end)
    out = [f"; column {j}", f"lds     {c}, s2+{j}", f"lds     {d}, s3+{j}"]
    if j == 0:
        out += [f"eor     {c}, r29                  ; round constant into byte 0 of x2",
                "subi    r29, 0x0f", "sts     rc, r29"]
    out += [
        f"mov     {g}, {a}", f"eor     {g}, {e}",                         # t1 = x0 ^ x4
        f"mov     {f}, {d}", f"eor     {f}, {e}",                         # t2 = x3 ^ x4
        f"mov     {h}, {b}", f"eor     {h}, {c}",                         # t0 = x1 ^ x2
        f"com     {e}", f"or      {e}, {d}", f"eor     {e}, {h}",        # y2 = (x3 | ~x4) ^ t0
        f"or      {a}, {f}", f"eor     {a}, {h}",                         # y3 = (x0 | t2) ^ t0
        f"sts     s3+{j}, {a}",
        f"eor     {c}, {g}", f"or      {c}, {b}", f"eor     {c}, {f}",   # y0 = ((x2 ^ t1) | x1) ^ t2
        f"eor     {d}, {b}", f"or      {d}, {h}", f"eor     {d}, {g}",   # y1 = ((x3 ^ x1) | t0) ^ t1
        f"com     {g}", f"and     {b}, {g}", f"eor     {b}, {f}",        # y4 = (x1 & ~t1) ^ t2
        f"sts     s4+{j}, {b}",
        f"movw    {a}, {c}                  ; y0, y1 back into the resident pair",
    ]
    return out


def rotate(regs: list[str], bits: int) -> list[str]:
    """Rotate the 64-bit value in regs (byte 0 first) right by bits (left if negative), 10 cycles a bit."""
    out = []
    for _ in range(abs(bits)):
        if bits > 0:
            out += [f"bst     {regs[0]}, 0", f"lsr     {regs[7]}"] + [f"ror     {regs[i]}" for i in range(6, -1, -1)]
            out += [f"bld     {regs[7]}, 7"]
        else:
            out += [f"bst     {regs[7]}, 7", f"lsl     {regs[0]}"] + [f"rol     {regs[i]}" for i in range(1, 8)]
            out += [f"bld     {regs[0]}, 0"]
    return out


def plan(a: int, b: int) -> list[tuple[int, int]]:
    """One copy rotated by rho1 bits (-7..7, right positive), XORed in at the byte offset that completes
    the rotation by n1, then rotated on to rho2 for n2: [(rho1, n1), (rho2, n2)] of least bit work."""
    best = None
    for n1, n2 in ((a, b), (b, a)):
        for r1 in (n1 % 8, n1 % 8 - 8):
            for r2 in (n2 % 8, n2 % 8 - 8):
                cost = abs(r1) + abs(r2 - r1)
                if best is None or cost < best[0]:
                    best = (cost, [(r1, n1), (r2, n2)])
    return best[1]


def rotate9(regs: list[str], spare: str, bits: int) -> list[str]:
    """The same with a ninth register holding the byte beyond the wrap (9 cycles a bit): right, spare
    continues above byte 7 as a copy of byte 0; left, below byte 0 as a copy of byte 7."""
    out = []
    for _ in range(abs(bits)):
        if bits > 0:
            out += [f"lsr     {spare}"] + [f"ror     {regs[i]}" for i in range(7, -1, -1)]
        else:
            out += [f"lsl     {spare}"] + [f"rol     {regs[i]}" for i in range(8)]
    return out


def lane_linear(lane: int, A: list[str], B: list[str], spare: str | None = None) -> list[str]:
    """A ^= (A >>> a) ^ (A >>> b) with B a copy already made (B is clobbered); with a spare register
    the bit rotations take 9 cycles a bit instead of 10."""
    a, b = ROT[lane]
    steps = plan(a, b)
    out = [f"; S{lane} ^= (S{lane} >>> {a}) ^ (S{lane} >>> {b}): copy rotated by "
           + ", then ".join(f"{'right' if r >= 0 else 'left'} {abs(r)} bits (x >>> {n})" for r, n in steps)]
    rho = 0
    last_dir = run = 0
    for r, n in steps:
        delta = r - rho
        if spare is None:
            out += rotate(B, delta)
        elif delta:
            d = 1 if delta > 0 else -1
            if d != last_dir:   # the spare byte continues the lane beyond the wrap (valid for <= 8 bits)
                out.append(f"mov     {spare}, {B[0] if d > 0 else B[7]}")
                run = 0
            last_dir, run = d, run + abs(delta)
            assert run <= 8
            out += rotate9(B, spare, delta)
        rho = r
        off = ((n - r) // 8) % 8
        out += [f"eor     {A[i]}, {B[(i + off) % 8]}" for i in range(8)]
    return out


def copy_pairs(dst: list[str], src: list[str]) -> list[str]:
    return [f"movw    {dst[i]}, {src[i]}" for i in range(0, 8, 2)]


def round_body() -> list[str]:
    body = []
    for j in range(8):
        body += sbox_column(j)
    body += ["; --- linear layer: lane 2 (in r16..r23 from the S-box), copy in r24..r31"]
    body += copy_pairs(P, F) + lane_linear(2, F, P)
    body += [f"sts     s2+{j}, {F[j]}" for j in range(8)]
    body += ["; lanes 0 and 1 (resident): both copied by 8 MOVW into r16..r31 (lane 0 even, lane 1 odd);",
             "; lane 1 first, then lane 0 has a spare register (r17) for 9-cycle rotations"]
    body += [f"movw    r{16 + 2 * j}, r{2 * j}" for j in range(8)]
    body += lane_linear(1, L1, [f"r{17 + 2 * j}" for j in range(8)])
    body += lane_linear(0, L0, [f"r{16 + 2 * j}" for j in range(8)], spare="r17")
    body += ["; lane 3 from static RAM and back"]
    body += [f"lds     {F[j]}, s3+{j}" for j in range(8)] + copy_pairs(P, F) + lane_linear(3, F, P)
    body += [f"sts     s3+{j}, {F[j]}" for j in range(8)]
    body += ["; lane 4 from static RAM; it stays in r16..r23 for the next S-box"]
    body += [f"lds     {F[j]}, s4+{j}" for j in range(8)] + copy_pairs(P, F) + lane_linear(4, F, P)
    return body


HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_avr_fast.py (edit the generator, not this file).
 *
 * Ascon-p and the AEAD / hash block loops on the AVR (avr-fast). Not reentrant: lanes 2..4 live in
 * 24 bytes of static RAM (LDS/STS), so no register is spent on a pointer; with the round constant
 * 25 bytes in all.
 *
 * Register map inside the rounds (ascon_avr_rounds):
 *   r0..r15   lanes 0 and 1, interleaved: byte j of lane 0 in r(2j), of lane 1 in r(2j+1)
 *   r16..r23  lane 4 at the start of a round (byte j in r(16+j)); the S-box leaves lane 2 there, the
 *             linear layer works there on lanes 2, 3 and 4 in turn and leaves lane 4
 *   r24..r31  S-box temporaries; the linear layer's rotated copy (r16..r31 for lanes 0 and 1)
 *   static    s2, s3, s4 (lanes 2, 3, 4 outside the registers), rc (the next round constant)
 * Per round: S-box 8 x (21 operations, 2 LDS, 2 STS); linear layer per lane one copy, 1-4 bit
 * rotations of the copy at 10 cycles a bit (9 for lane 0), 16 EORs at byte offsets. 563 cycles a
 * round. r1 is cleared before returning.
 * Branches only on the round and block counts (public): constant time. */
#include "mcucrypt/ns.h"

    .section .bss
    .local s2, s3, s4, rc
    .comm s2, 8, 1        ; lane 2 (little-endian)
    .comm s3, 8, 1        ; lane 3
    .comm s4, 8, 1        ; lane 4 (between S-box and linear layer; in r16..r23 otherwise)
    .comm rc, 1, 1        ; the next round's constant: 0xf0, 0xe1, ..., 0x4b; 0x3c when done
"""

# Load the state at Z into the round register map (lanes 2, 3 into static RAM, through r24).
LOAD = ([f"ldd     {L0[j]}, Z+{j}" for j in range(8)] + [f"ldd     {L1[j]}, Z+{8 + j}" for j in range(8)]
        + [x for j in range(8) for x in (f"ldd     r24, Z+{16 + j}", f"sts     s2+{j}, r24")]
        + [x for j in range(8) for x in (f"ldd     r24, Z+{24 + j}", f"sts     s3+{j}, r24")]
        + [f"ldd     {F[j]}, Z+{32 + j}" for j in range(8)])
STORE = ([f"std     Z+{j}, {L0[j]}" for j in range(8)] + [f"std     Z+{8 + j}, {L1[j]}" for j in range(8)]
         + [x for j in range(8) for x in (f"lds     r24, s2+{j}", f"std     Z+{16 + j}, r24")]
         + [x for j in range(8) for x in (f"lds     r24, s3+{j}", f"std     Z+{24 + j}, r24")]
         + [f"std     Z+{32 + j}, {F[j]}" for j in range(8)])
SAVED = list(range(2, 18)) + [28, 29]


def func(name: str, proto: str, doc: str, body: list[str]) -> list[str]:
    sym = f"MCU_FN(ascon, {name})"
    out = ["", f"/* {proto}", f" * {doc} */", f"    .section .text.ascon_avr_fast.{name}, \"ax\", @progbits",
           f"    .global {sym}", f"    .type {sym}, @function", f"{sym}:"]
    out += [f"    push    r{r}" for r in SAVED]
    out += ["    " + x if not x.endswith(":") else x for x in body]
    out += ["    clr     r1"] + [f"    pop     r{r}" for r in reversed(SAVED)] + ["    ret", f"    .size {sym}, . - {sym}"]
    return out


def block_loop(name: str, proto: str, doc: str, lanes: int, mode: str, rounds: int) -> list[str]:
    """Block loop: X = in, Y = out (encrypt/decrypt), Z = blocks left (s waits on the stack).
    mode: 'absorb' (S ^= in), 'encrypt' (S ^= in, out = S), 'decrypt' (out = S ^ in, S = in)."""
    body = ["movw    r30, r24                    ; Z = s", "push    r30", "push    r31"]
    if mode == "absorb":
        body += ["movw    r26, r22                    ; X = in", "push    r20                         ; nblocks",
                 "push    r21"]
    else:
        body += ["movw    r28, r22                    ; Y = out", "movw    r26, r20                    ; X = in",
                 "push    r18                         ; nblocks", "push    r19"]
    body += ["call    ascon_avr_load", "pop     r31                         ; Z = nblocks", "pop     r30", "1:"]
    regs = [L0[j] for j in range(8)] + ([L1[j] for j in range(8)] if lanes == 2 else [])
    for r in regs:
        body.append("ld      r24, X+")
        if mode == "absorb":
            body.append(f"eor     {r}, r24")
        elif mode == "encrypt":
            body += [f"eor     {r}, r24", f"st      Y+, {r}"]
        else:
            body += [f"eor     {r}, r24", f"st      Y+, {r}", f"mov     {r}, r24"]
    saved = ["r26", "r27", "r30", "r31"] + (["r28", "r29"] if mode != "absorb" else [])
    body += [f"push    {r}" for r in saved]
    body += [f"ldi     r24, 0x{RC_START[rounds]:02x}", "sts     rc, r24", "call    ascon_avr_rounds"]
    body += [f"pop     {r}" for r in reversed(saved)]
    body += ["sbiw    r30, 1", "breq    2f", "rjmp    1b", "2:",
             "pop     r31", "pop     r30", "call    ascon_avr_store"]
    return func(name, proto, doc, body)


def main() -> None:
    lines = [HEADER.rstrip("\n")]
    lines += ["", "/* The rounds from the constant in rc to the last, on the register map above; every register",
              " * but the stack pointer is clobbered. Internal (CALL from the functions below; each function has its own section). */",
              "    .section .text.ascon_avr_fast.rounds, \"ax\", @progbits", "2:", "    ret",
              "ascon_avr_rounds:", "1:", "    lds     r29, rc",
              "    cpi     r29, 0x3c                   ; past the last constant (0x4b)?", "    breq    2b"]
    lines += ["    " + x for x in round_body()]
    lines += ["    rjmp    1b"]
    lines += ["", "/* The state at Z into the round map (lanes 2, 3 into static RAM); clobbers r24. Internal. */",
              "    .section .text.ascon_avr_fast.load, \"ax\", @progbits", "ascon_avr_load:"]
    lines += ["    " + x for x in LOAD] + ["    ret"]
    lines += ["", "/* The round map back into the state at Z; clobbers r24. Internal. */",
              "    .section .text.ascon_avr_fast.store, \"ax\", @progbits", "ascon_avr_store:"]
    lines += ["    " + x for x in STORE] + ["    ret"]
    perm = ["movw    r30, r24                    ; Z = s",
            "ldi     r24, 0xf0                   ; p12 starts at round constant 0xf0 ...",
            "cpi     r22, 8", "brne    1f", "ldi     r24, 0xb4                   ; ... p8 at 0xb4 (rounds is public)",
            "1:", "sts     rc, r24"] + LOAD + ["push    r30", "push    r31", "call    ascon_avr_rounds",
                                              "pop     r31", "pop     r30", "call    ascon_avr_store"]
    lines += func("permute", "void mcu_ascon_<impl>_permute(ascon_state_t *s, unsigned rounds);   rounds = 12 or 8",
                  "s in r24:r25 -> Z; rounds in r22. Loads the state into the round map, runs, stores it.", perm)
    lines += block_loop("absorb16", "void mcu_ascon_<impl>_absorb16(ascon_state_t *s, const unsigned char *in, size_t nblocks);",
                        "AEAD associated data: per 16-byte block S0 ^= in[0..7], S1 ^= in[8..15], p8. X = in.",
                        2, "absorb", 8)
    lines += block_loop("encrypt16", "void mcu_ascon_<impl>_encrypt16(ascon_state_t *s, unsigned char *out, const unsigned char *in, size_t nblocks);",
                        "Per 16-byte block: S0:S1 ^= in, out = S0:S1, p8. X = in, Y = out.", 2, "encrypt", 8)
    lines += block_loop("decrypt16", "void mcu_ascon_<impl>_decrypt16(ascon_state_t *s, unsigned char *out, const unsigned char *in, size_t nblocks);",
                        "Per 16-byte block: out = S0:S1 ^ in, S0:S1 = in, p8. X = in (ciphertext), Y = out.", 2, "decrypt", 8)
    lines += block_loop("absorb8", "void mcu_ascon_<impl>_absorb8(ascon_state_t *s, const unsigned char *in, size_t nblocks);",
                        "Hash/XOF: per 8-byte block S0 ^= in, p12. X = in.", 1, "absorb", 12)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
