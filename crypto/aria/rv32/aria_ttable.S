/* SPDX-License-Identifier: MIT */
/* ARIA encryption/decryption of one block with 32-bit T-tables: rv32-fast (RV32I instructions, isa
 * rv32imac) and rv32-zbb (the same schedule with Zbb/Zbkb byte permutations and packing, isa
 * rv32imac_zbb_zbkb). One source: the preprocessor's __riscv_zbb / __riscv_zbkb pick the variant.
 *
 *   void mcu_ariaN_<impl>_encrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *   void mcu_ariaN_<impl>_decrypt(uint8_t *out, const uint8_t *in, const uint32_t *rk);
 *
 * rk: n+1 round keys of 16 bytes in specification byte order (aria_ks32.c), encryption keys for encrypt,
 * decryption keys for decrypt; ARIA decrypts by running the encryption rounds over the decryption keys,
 * so both entry points share one core. n = 12, 14, 16.
 *
 * Technique (see aria_t32.S and docs/aria.md). The state is four little-endian words. A round is
 *   16 T-table look-ups (S-box and the in-word byte mix D at once), 12 XORs to gather them,
 *   M (6 XORs), P (byte permutations inside three of the words), M (6 XORs), 4 round-key words.
 * That replaces the paper's 16 byte registers and ~100 byte XORs per round with word operations: the
 * 32-bit T-table idea of Stoffelen's AES on RISC-V (LATINCRYPT 2019) applied to ARIA's factorisation
 * A = M.P.M.D (the word-oriented form of 32-bit ARIA software). Each look-up costs 5 instructions:
 * shift, mask to a word index (0x3fc), add the table base, lw, xor. The four tables sit contiguously
 * and the base register points at their middle, so the lw immediate (-2048, -1024, 0, 1024) selects
 * the table at no cost. Loads are scheduled two apart from their uses: the E31's lw has a 2-cycle
 * result latency, lbu 3, everything else 1; no round has a stall.
 *
 * The look-ups index tables with secret bytes: secret-dependent addresses. The E31 has no data cache
 * and its DTIM answers every load in the same time, so this is timing-constant on that core only.
 *
 * Register map (both variants):
 *   a0 out            a1 in, then state word Y2       a2 rk (advances 32 bytes a round pair)
 *   a3 END = &ek(n), the key the last odd round adds    a4 TB = table base + 2048
 *   t3..t6 state words X0..X3 (input of odd rounds)     a6, a7, a1, t0  state words Y0..Y3
 *   t1, t2, T3 look-up temporaries; T3 = a5 with Zbb, s0 (saved on the stack) on RV32I, where a5
 *   holds the byte-swap mask 0x00ff00ff.
 */
#include "mcucrypt/ns.h"

#if defined(__riscv_zbb)
#define HAVE_ZBB 1
#else
#define HAVE_ZBB 0
#endif
#if defined(__riscv_zbkb)
#define HAVE_ZBKB 1
#else
#define HAVE_ZBKB 0
#endif

#define OUT  a0
#define IN   a1
#define RK   a2
#define END  a3
#define TB   a4
#define X0   t3
#define X1   t4
#define X2   t5
#define X3   t6
#define Y0   a6
#define Y1   a7
#define Y2   a1
#define Y3   t0
#define T1   t1
#define T2   t2
#if HAVE_ZBB
#define T3   a5
#else
#define T3   s0
#define MASK a5
#endif

/* Offsets of the four tables from TB. */
#define TAB0 -2048
#define TAB1 -1024
#define TAB2 0
#define TAB3 1024

/* y = Ta[b0(x)] ^ Tb[b1(x)] ^ Tc[b2(x)] ^ Td[b3(x)], bj = byte j of x. Each index is the byte already
 * multiplied by 4 (a shift that leaves it at bits 2..9, then andi 0x3fc). The two look-up pairs are
 * interleaved so that no lw result is used by the next instruction. x is only read. */
.macro LOOK4 y, x, ta, tb, tc, td
    slli  \y, \x, 2
    srli  T1, \x, 6
    andi  \y, \y, 0x3fc
    andi  T1, T1, 0x3fc
    add   \y, \y, TB
    add   T1, T1, TB
    lw    \y, \ta(\y)
    lw    T1, \tb(T1)
    srli  T2, \x, 14
    srli  T3, \x, 22
    andi  T2, T2, 0x3fc
    andi  T3, T3, 0x3fc
    add   T2, T2, TB
    add   T3, T3, TB
    lw    T2, \tc(T2)
    lw    T3, \td(T3)
    xor   \y, \y, T1
    xor   T2, T2, T3
    xor   \y, \y, T2
.endm

/* M: the word-level part of A. In place: w0' = w0^w1^w2, w1' = w0^w2^w3, w2' = w0^w1^w3, w3' = w1^w2^w3. */
.macro MIX w0, w1, w2, w3
    xor   \w1, \w1, \w2
    xor   \w2, \w2, \w3
    xor   \w0, \w0, \w1
    xor   \w3, \w3, \w1
    xor   \w2, \w2, \w0
    xor   \w1, \w1, \w2
.endm

/* Byte permutations inside a word (byte j = bits 8j..8j+7), t a scratch register:
 * SWAPB: bytes (0 1 2 3) -> (1 0 3 2); ROT16: -> (2 3 0 1); REVB: -> (3 2 1 0). */
.macro SWAPB w, t
#if HAVE_ZBB
    rev8  \w, \w
    rori  \w, \w, 16
#else
    and   \t, \w, MASK
    srli  \w, \w, 8
    slli  \t, \t, 8
    and   \w, \w, MASK
    or    \w, \w, \t
#endif
.endm

.macro ROT16 w, t
#if HAVE_ZBB
    rori  \w, \w, 16
#else
    slli  \t, \w, 16
    srli  \w, \w, 16
    or    \w, \w, \t
#endif
.endm

.macro REVB w, t
#if HAVE_ZBB
    rev8  \w, \w
#else
    ROT16 \w, \t
    SWAPB \w, \t
#endif
.endm

/* w0..w3 ^= the round key at off(RK); k0..k3 are free registers. The loads are issued first so that
 * each XOR finds its key word ready. */
.macro ADDKEY w0, w1, w2, w3, k0, k1, k2, k3, off
    lw    \k0, \off+0(RK)
    lw    \k1, \off+4(RK)
    lw    \k2, \off+8(RK)
    lw    \k3, \off+12(RK)
    xor   \w0, \w0, \k0
    xor   \w1, \w1, \k1
    xor   \w2, \w2, \k2
    xor   \w3, \w3, \k3
.endm

/* One full round y = A(SL(x)) ^ k. Odd rounds use tables (0 1 2 3) by byte position and P = (id, SWAPB,
 * ROT16, REVB) on words (0 1 2 3); even rounds use tables (2 3 0 1) and P = (ROT16, REVB, id, SWAPB).
 * The round key's loads go into the x registers, dead once their look-ups are done, and are issued
 * before P so their latency is hidden. */
.macro ROUND_ODD x0, x1, x2, x3, y0, y1, y2, y3, off
    LOOK4 \y0, \x0, TAB0, TAB1, TAB2, TAB3
    LOOK4 \y1, \x1, TAB0, TAB1, TAB2, TAB3
    LOOK4 \y2, \x2, TAB0, TAB1, TAB2, TAB3
    LOOK4 \y3, \x3, TAB0, TAB1, TAB2, TAB3
    MIX   \y0, \y1, \y2, \y3
    lw    \x0, \off+0(RK)
    lw    \x1, \off+4(RK)
    SWAPB \y1, T1
    lw    \x2, \off+8(RK)
    ROT16 \y2, T2
    lw    \x3, \off+12(RK)
    REVB  \y3, T3
    MIX   \y0, \y1, \y2, \y3
    xor   \y0, \y0, \x0
    xor   \y1, \y1, \x1
    xor   \y2, \y2, \x2
    xor   \y3, \y3, \x3
.endm

.macro ROUND_EVEN x0, x1, x2, x3, y0, y1, y2, y3, off
    LOOK4 \y0, \x0, TAB2, TAB3, TAB0, TAB1
    LOOK4 \y1, \x1, TAB2, TAB3, TAB0, TAB1
    LOOK4 \y2, \x2, TAB2, TAB3, TAB0, TAB1
    LOOK4 \y3, \x3, TAB2, TAB3, TAB0, TAB1
    MIX   \y0, \y1, \y2, \y3
    lw    \x0, \off+0(RK)
    lw    \x1, \off+4(RK)
    ROT16 \y0, T1
    lw    \x2, \off+8(RK)
    REVB  \y1, T2
    lw    \x3, \off+12(RK)
    SWAPB \y3, T3
    MIX   \y0, \y1, \y2, \y3
    xor   \y0, \y0, \x0
    xor   \y1, \y1, \x1
    xor   \y2, \y2, \x2
    xor   \y3, \y3, \x3
.endm

/* Last round, one word: y = SL2(x) without diffusion. Byte j's SL2 S-box is in table T(j+2 mod 4),
 * whose entries carry S(v) in byte j: lbu at that byte offset fetches the bare S-box output. lbu's
 * 3-cycle latency is covered by issuing all four loads before combining; `fill` (one instruction, a
 * load of the final round key) sits where Zbkb's second packh would otherwise wait for its operand. */
.macro LAST4 y, x, fill:vararg
    slli  \y, \x, 2
    srli  T1, \x, 6
    srli  T2, \x, 14
    srli  T3, \x, 22
    andi  \y, \y, 0x3fc
    andi  T1, T1, 0x3fc
    andi  T2, T2, 0x3fc
    andi  T3, T3, 0x3fc
    add   \y, \y, TB
    add   T1, T1, TB
    add   T2, T2, TB
    add   T3, T3, TB
    lbu   \y, TAB2+0(\y)
    lbu   T1, TAB3+1(T1)
    lbu   T2, TAB0+2(T2)
    lbu   T3, TAB1+3(T3)
#if HAVE_ZBKB
    packh \y, \y, T1            /* y = b0 | b1 << 8 */
    \fill
    packh T2, T2, T3            /* b2 | b3 << 8 */
    pack  \y, \y, T2            /* low halves joined */
#else
    slli  T1, T1, 8
    slli  T2, T2, 16
    slli  T3, T3, 24
    \fill
    or    \y, \y, T1
    or    T2, T2, T3
    or    \y, \y, T2
#endif
.endm

/* Load word w from a possibly unaligned address: four bytes, little-endian. */
.macro LOADU w, ptr, off, t
    lbu   \w, \off+0(\ptr)
    lbu   \t, \off+1(\ptr)
    lbu   T1, \off+2(\ptr)
    lbu   T2, \off+3(\ptr)
#if HAVE_ZBKB
    packh \w, \w, \t
    packh T1, T1, T2
    pack  \w, \w, T1
#else
    slli  \t, \t, 8
    slli  T1, T1, 16
    slli  T2, T2, 24
    or    \w, \w, \t
    or    T1, T1, T2
    or    \w, \w, T1
#endif
.endm

.macro STOREU w, ptr, off
    sb    \w, \off+0(\ptr)
    srli  T1, \w, 8
    sb    T1, \off+1(\ptr)
    srli  T1, \w, 16
    sb    T1, \off+2(\ptr)
    srli  T1, \w, 24
    sb    T1, \off+3(\ptr)
.endm

    .section .text.aria_ttable_core, "ax"
    .balign 4
/* aria_ttable_core: a0 out, a1 in, a2 rk, a3 = rk + 16*(n-1) (the key added after the last odd round).
 * Internal entry: not a C function; the exported wrappers below set a3 and jump here. */
    .type aria_ttable_core, @function
aria_ttable_core:
#if !HAVE_ZBB
    addi  sp, sp, -16
    sw    s0, 12(sp)
    li    MASK, 0x00ff00ff
#endif
    la    TB, MCU_FN(aria, t32) + 2048
    /* Load the block. Aligned input (the common case) takes four lw; anything else byte loads. */
    andi  T1, IN, 3
    bnez  T1, .Laria_ttable_load_unaligned
    lw    X0, 0(IN)
    lw    X1, 4(IN)
    lw    X2, 8(IN)
    lw    X3, 12(IN)
.Laria_ttable_loaded:
    ADDKEY X0, X1, X2, X3, Y0, Y1, Y2, Y3, 0
    addi  RK, RK, 16
.Laria_ttable_loop:
    ROUND_ODD  X0, X1, X2, X3, Y0, Y1, Y2, Y3, 0
    beq   RK, END, .Laria_ttable_last
    ROUND_EVEN Y0, Y1, Y2, Y3, X0, X1, X2, X3, 16
    addi  RK, RK, 32
    j     .Laria_ttable_loop
.Laria_ttable_last:
    /* Round n: SL2(Y) ^ ek(n+1); ek(n) was added by the last odd round. */
    /* The final key's words go to END (no longer needed) and to each Y word once its S-boxes are read. */
    LAST4 X0, Y0, lw END, 16(RK)
    LAST4 X1, Y1, lw Y0, 20(RK)
    LAST4 X2, Y2, lw Y1, 24(RK)
    LAST4 X3, Y3, lw Y2, 28(RK)
    xor   X0, X0, END
    xor   X1, X1, Y0
    xor   X2, X2, Y1
    xor   X3, X3, Y2
    andi  T1, OUT, 3
    bnez  T1, .Laria_ttable_store_unaligned
    sw    X0, 0(OUT)
    sw    X1, 4(OUT)
    sw    X2, 8(OUT)
    sw    X3, 12(OUT)
.Laria_ttable_done:
#if !HAVE_ZBB
    lw    s0, 12(sp)
    addi  sp, sp, 16
#endif
    ret

.Laria_ttable_load_unaligned:
    LOADU X0, IN, 0, Y0
    LOADU X1, IN, 4, Y0
    LOADU X2, IN, 8, Y0
    LOADU X3, IN, 12, Y0
    j     .Laria_ttable_loaded
.Laria_ttable_store_unaligned:
    STOREU X0, OUT, 0
    STOREU X1, OUT, 4
    STOREU X2, OUT, 8
    STOREU X3, OUT, 12
    j     .Laria_ttable_done
    .size aria_ttable_core, . - aria_ttable_core

/* The exported entry points: set END = rk + 16*(n-1) and run the core (a tail jump: the core returns to
 * our caller). Encryption and decryption differ only in the keys the caller passes. A C-preprocessor
 * macro, not an assembler one, because the symbol names are pasted together by MCU_FN. */
#define ARIA_ENTRY(id, op, rounds)                                  \
    .section .text.MCU_FN(id, op), "ax";                            \
    .balign 2;                                                      \
    .globl MCU_FN(id, op);                                          \
    .type MCU_FN(id, op), @function;                                \
MCU_FN(id, op):                                                     \
    addi  END, RK, 16 * (rounds - 1);                               \
    j     aria_ttable_core;                                         \
    .size MCU_FN(id, op), . - MCU_FN(id, op)

ARIA_ENTRY(aria128, encrypt, 12)
ARIA_ENTRY(aria128, decrypt, 12)
ARIA_ENTRY(aria192, encrypt, 14)
ARIA_ENTRY(aria192, decrypt, 14)
ARIA_ENTRY(aria256, encrypt, 16)
ARIA_ENTRY(aria256, decrypt, 16)
