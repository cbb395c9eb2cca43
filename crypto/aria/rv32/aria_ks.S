/* SPDX-License-Identifier: MIT */
/* ARIA key-schedule back ends shared by rv32-fast, rv32-zbb and rv32-ct: the round-key expansion from
 * W0..W3 and the encryption-to-decryption key transform. RV32I, with rev8/rori when Zbb is present.
 * Both run in time independent of the key (no secret-dependent branch or address), so rv32-ct uses
 * them too.
 *
 *   void mcu_aria_<impl>_expand(uint32_t *rk, const uint32_t *w, uint32_t rounds);
 *   void mcu_aria_<impl>_reverse(uint32_t *rk, uint32_t rounds);
 *
 * Word form throughout: a 16-byte value is four little-endian words, word w = bytes 4w..4w+3.
 *
 * expand: rk[k] = W(k mod 4) ^ (W(k+1 mod 4) >>> n(k/4)) for k = 0..rounds, n = 19, 31, 67, 97, 109
 * (RFC 5794, section 2.2; left rotations by 61, 31, 19 written as right rotations). The rotation is of
 * the big-endian 128-bit value, so each W is byte-swapped once into big-endian words, stored twice in a
 * row (8 words) so that "rotate by q words" is just a start offset, and each rotated word costs a
 * funnel shift (srl, sll, or) and a byte swap back. The C version of this loop (GCC 12, -O2) took
 * about 26 instructions a word with its index arithmetic; this one takes 15 (8 with Zbb).
 *
 * reverse: dk1 = ek(n+1), dk(i) = A(ek(n+2-i)) for 1 < i <= n, dk(n+1) = ek1, in place, with A in the
 * word factorisation M.P.M.D of aria_ttable.S.
 *
 * Register map, expand: a0 rk (advances 16 per key), a1 w, a2 number of keys, a3 key index k,
 *   sp the doubled big-endian copies (4 x 8 words), a5 0x00ff00ff (RV32I), t2 r, t3 -r, t4 &W(i),
 *   t5 t6 a4 a6 a7 the five big-endian words a key's rotation reads, t0 t1 scratch.
 * reverse: a0 front key, a1 back key, t0..t6 and a2..a7 scratch.
 */
#include "mcucrypt/ns.h"

#if defined(__riscv_zbb)
#define HAVE_ZBB 1
#else
#define HAVE_ZBB 0
#endif

/* w = byte-reversed w; t scratch; RV32I needs 0x00ff00ff in a5. */
.macro BSWAP w, t
#if HAVE_ZBB
    rev8  \w, \w
#else
    slli  \t, \w, 16
    srli  \w, \w, 16
    or    \w, \w, \t
    and   \t, \w, a5
    srli  \w, \w, 8
    slli  \t, \t, 8
    and   \w, \w, a5
    or    \w, \w, \t
#endif
.endm

/* Output word m of a key: t1 = bswap((hi >> r) | (lo << (32 - r))) ^ W(i)[m], stored at rk. lo is dead
 * after the funnel shift, so it takes W(i)[m]; t0 is the byte-swap scratch. */
.macro EXPW m, lo, hi
    srl   t1, \hi, t2
    sll   \lo, \lo, t3
    or    t1, t1, \lo
    lw    \lo, 4*\m(t4)
    BSWAP t1, t0
    xor   t1, t1, \lo
    sw    t1, 4*\m(a0)
.endm

    .section .rodata.aria_ks_groups, "a"
/* Per group of four keys: the bit shift r and the byte offset 16 - 4q of the rotation n = 32q + r. */
aria_ks_groups:
    .byte 19, 16,  31, 16,  3, 8,  1, 4,  13, 4
    .size aria_ks_groups, 10

    .section .text.aria_ks_expand, "ax"
    .balign 4
    .globl MCU_FN(aria, expand)
    .type MCU_FN(aria, expand), @function
MCU_FN(aria, expand):
    addi  sp, sp, -128
#if !HAVE_ZBB
    li    a5, 0x00ff00ff
#endif
    /* Big-endian copies: for each W, its 4 words byte-swapped, written at +0 and +16 of an 8-word slot. */
    mv    a4, sp
    mv    t5, a1
    addi  t6, a1, 64
.Laria_ks_expand_copy:
    lw    t0, 0(t5)
    lw    t1, 4(t5)
    lw    t2, 8(t5)
    lw    t3, 12(t5)
    BSWAP t0, t4
    BSWAP t1, t4
    BSWAP t2, t4
    BSWAP t3, t4
    sw    t0, 0(a4)
    sw    t1, 4(a4)
    sw    t2, 8(a4)
    sw    t3, 12(a4)
    sw    t0, 16(a4)
    sw    t1, 20(a4)
    sw    t2, 24(a4)
    sw    t3, 28(a4)
    addi  t5, t5, 16
    addi  a4, a4, 32
    bne   t5, t6, .Laria_ks_expand_copy
    addi  a2, a2, 1               /* rounds + 1 keys */
    li    a3, 0
.Laria_ks_expand_key:
    /* k = a3: W(i), i = k mod 4, is the plain operand; W(i+1 mod 4) the rotated one, group g = k / 4. */
    srli  t0, a3, 2
    slli  t0, t0, 1
    la    t1, aria_ks_groups
    add   t1, t1, t0
    lbu   t2, 0(t1)               /* r */
    lbu   t3, 1(t1)               /* 16 - 4q */
    andi  t0, a3, 3
    slli  t4, t0, 4
    add   t4, a1, t4              /* t4 = &W(i) */
    addi  t0, t0, 1
    andi  t0, t0, 3
    slli  t0, t0, 5
    add   t0, sp, t0
    add   t0, t0, t3              /* p: word m of the rotation takes hi = p[m], lo = p[m-1] */
    neg   t3, t2                  /* sll by -r shifts by 32 - r (the low five bits count) */
    lw    t5, -4(t0)
    lw    t6, 0(t0)
    lw    a4, 4(t0)
    lw    a6, 8(t0)
    lw    a7, 12(t0)
    EXPW  0, t5, t6
    EXPW  1, t6, a4
    EXPW  2, a4, a6
    EXPW  3, a6, a7
    addi  a0, a0, 16
    addi  a3, a3, 1
    bne   a3, a2, .Laria_ks_expand_key
    addi  sp, sp, 128
    ret
    .size MCU_FN(aria, expand), . - MCU_FN(aria, expand)

/* A on four words w0..w3 in place (t, u scratch): D, M, P (word 1 SWAPB, word 2 ROT16, word 3 REVB), M.
 * RV32I needs 0x00ff00ff in a5. */
.macro ROR x, n, t
#if HAVE_ZBB
    rori  \x, \x, \n
#else
    slli  \t, \x, 32 - \n
    srli  \x, \x, \n
    or    \x, \x, \t
#endif
.endm

.macro DBYTES w, t, u
#if HAVE_ZBB
    rori  \t, \w, 16
#else
    slli  \u, \w, 16
    srli  \t, \w, 16
    or    \t, \t, \u
#endif
    xor   \w, \w, \t              /* t = ror16(w) */
    ROR   \w, 8, \u               /* ror8(w ^ ror16(w)) = ror8(w) ^ ror24(w) */
    xor   \w, \w, \t
.endm

.macro SWAPB w, t
#if HAVE_ZBB
    rev8  \w, \w
    rori  \w, \w, 16
#else
    and   \t, \w, a5
    srli  \w, \w, 8
    slli  \t, \t, 8
    and   \w, \w, a5
    or    \w, \w, \t
#endif
.endm

.macro MIX w0, w1, w2, w3
    xor   \w1, \w1, \w2
    xor   \w2, \w2, \w3
    xor   \w0, \w0, \w1
    xor   \w3, \w3, \w1
    xor   \w2, \w2, \w0
    xor   \w1, \w1, \w2
.endm

.macro DIFFUSE w0, w1, w2, w3, t, u
    DBYTES \w0, \t, \u
    DBYTES \w1, \t, \u
    DBYTES \w2, \t, \u
    DBYTES \w3, \t, \u
    MIX   \w0, \w1, \w2, \w3
    SWAPB \w1, \t
    ROR   \w2, 16, \t
    BSWAP \w3, \t
    MIX   \w0, \w1, \w2, \w3
.endm

    .section .text.aria_ks_reverse, "ax"
    .balign 4
    .globl MCU_FN(aria, reverse)
    .type MCU_FN(aria, reverse), @function
MCU_FN(aria, reverse):
#if !HAVE_ZBB
    li    a5, 0x00ff00ff
#endif
    slli  a1, a1, 4
    add   a1, a0, a1              /* a1 = &rk[rounds] */
    /* First and last keys trade places unchanged. */
    lw    t0, 0(a0)
    lw    t1, 4(a0)
    lw    t2, 8(a0)
    lw    t3, 12(a0)
    lw    a2, 0(a1)
    lw    a3, 4(a1)
    lw    a4, 8(a1)
    lw    a6, 12(a1)
    sw    t0, 0(a1)
    sw    t1, 4(a1)
    sw    t2, 8(a1)
    sw    t3, 12(a1)
    sw    a2, 0(a0)
    sw    a3, 4(a0)
    sw    a4, 8(a0)
    sw    a6, 12(a0)
.Laria_ks_reverse_pair:
    addi  a0, a0, 16
    addi  a1, a1, -16
    bgeu  a0, a1, .Laria_ks_reverse_middle
    lw    t0, 0(a0)
    lw    t1, 4(a0)
    lw    t2, 8(a0)
    lw    t3, 12(a0)
    lw    a2, 0(a1)
    lw    a3, 4(a1)
    lw    a4, 8(a1)
    lw    a6, 12(a1)
    DIFFUSE t0, t1, t2, t3, t4, t5
    DIFFUSE a2, a3, a4, a6, t4, t5
    sw    t0, 0(a1)
    sw    t1, 4(a1)
    sw    t2, 8(a1)
    sw    t3, 12(a1)
    sw    a2, 0(a0)
    sw    a3, 4(a0)
    sw    a4, 8(a0)
    sw    a6, 12(a0)
    j     .Laria_ks_reverse_pair
.Laria_ks_reverse_middle:
    /* rounds is even: the middle key rk[rounds/2] is diffused in place. */
    bne   a0, a1, .Laria_ks_reverse_done
    lw    t0, 0(a0)
    lw    t1, 4(a0)
    lw    t2, 8(a0)
    lw    t3, 12(a0)
    DIFFUSE t0, t1, t2, t3, t4, t5
    sw    t0, 0(a0)
    sw    t1, 4(a0)
    sw    t2, 8(a0)
    sw    t3, 12(a0)
.Laria_ks_reverse_done:
    ret
    .size MCU_FN(aria, reverse), . - MCU_FN(aria, reverse)
