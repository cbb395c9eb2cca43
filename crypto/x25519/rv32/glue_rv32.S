// SPDX-License-Identifier: MIT
/* X25519 on the E31 (rv32-fast): the ladder's additions and subtractions in assembly (ref/ladder.c
 * takes these and this file's fe_cswap2 when X25519_GLUE_ASM is defined).
 *
 *   void mcu_x25519_<impl>_fe_add(uint32_t r[8], const uint32_t a[8], const uint32_t b[8]);
 *       r = a + b mod p (< 2^256): the carry out of 2^256 is worth 38 (mod p), added back; a second
 *       carry only when that sum wrapped below 38, so 38 more into r[0] is final
 *   void mcu_x25519_<impl>_fe_sub(uint32_t r[8], const uint32_t a[8], const uint32_t b[8]);
 *       r = a - b mod p: a borrow means 2^256 = 38 too much, taken off, twice at most
 *   void mcu_x25519_<impl>_fe_cswap2(uint32_t x[16], uint32_t y[16], uint32_t swap);
 *       swap the 16 words of x and y (two field elements each: the ladder's (x2, z2) and (x3, z3))
 *       when swap = 1: t = (x ^ y) & -swap; x ^= t; y ^= t
 * RV32 has no carry flag: a carry is sltu of the sum against an addend (one of the two possible
 * carries of "x + y + c" is always zero, as x + y wraps to at most 2^32 - 2, so they are ORed).
 * Register map: a0 = r, a1 = a, a2 = b; a3..a7, t3..t5 the eight result words; t0..t2 temporaries;
 * t6 the carry (or borrow). Leaf functions, no stack.
 * Constant time: straight-line, fixed addresses, no multiply or divide. */
#include "mcucrypt/ns.h"

/* x = x + y + c, c = carry out (y is clobbered) */
.macro ADDC x, y, first=0
    add     \x, \x, \y
    sltu    \y, \x, \y
    .if \first == 0
    add     \x, \x, t6
    sltu    t2, \x, t6
    or      t6, \y, t2
    .else
    mv      t6, \y
    .endif
.endm

/* x = x - y - c, c = borrow out (y is clobbered) */
.macro SUBB x, y, first=0
    sltu    t2, \x, \y
    sub     \x, \x, \y
    .if \first == 0
    sltu    \y, \x, t6
    sub     \x, \x, t6
    or      t6, t2, \y
    .else
    mv      t6, t2
    .endif
.endm

.macro LOAD8 p
    lw      a3, 0(\p)
    lw      a4, 4(\p)
    lw      a5, 8(\p)
    lw      a6, 12(\p)
    lw      a7, 16(\p)
    lw      t3, 20(\p)
    lw      t4, 24(\p)
    lw      t5, 28(\p)
.endm

.macro STORE8
    sw      a3, 0(a0)
    sw      a4, 4(a0)
    sw      a5, 8(a0)
    sw      a6, 12(a0)
    sw      a7, 16(a0)
    sw      t3, 20(a0)
    sw      t4, 24(a0)
    sw      t5, 28(a0)
.endm

    .section .text.MCU_FN(x25519, fe_add), "ax", @progbits
    .globl MCU_FN(x25519, fe_add)
    .type MCU_FN(x25519, fe_add), @function
    .p2align 2
MCU_FN(x25519, fe_add):
    LOAD8   a1
    lw      t0, 0(a2)                   /* b words two ahead of their use: no load-use stall */
    lw      t1, 4(a2)
    ADDC    a3, t0, 1
    lw      t0, 8(a2)
    ADDC    a4, t1
    lw      t1, 12(a2)
    ADDC    a5, t0
    lw      t0, 16(a2)
    ADDC    a6, t1
    lw      t1, 20(a2)
    ADDC    a7, t0
    lw      t0, 24(a2)
    ADDC    t3, t1
    lw      t1, 28(a2)
    ADDC    t4, t0
    ADDC    t5, t1
    neg     t6, t6
    andi    t6, t6, 38                  /* 38 * carry */
    .irp x, a3, a4, a5, a6, a7, t3, t4, t5
    add     \x, \x, t6
    sltu    t6, \x, t6
    .endr
    neg     t6, t6
    andi    t6, t6, 38                  /* a second carry: r[0] < 38 now, so this cannot carry */
    add     a3, a3, t6
    STORE8
    ret
    .size MCU_FN(x25519, fe_add), . - MCU_FN(x25519, fe_add)

    .section .text.MCU_FN(x25519, fe_sub), "ax", @progbits
    .globl MCU_FN(x25519, fe_sub)
    .type MCU_FN(x25519, fe_sub), @function
    .p2align 2
MCU_FN(x25519, fe_sub):
    LOAD8   a1
    lw      t0, 0(a2)
    lw      t1, 4(a2)
    SUBB    a3, t0, 1
    lw      t0, 8(a2)
    SUBB    a4, t1
    lw      t1, 12(a2)
    SUBB    a5, t0
    lw      t0, 16(a2)
    SUBB    a6, t1
    lw      t1, 20(a2)
    SUBB    a7, t0
    lw      t0, 24(a2)
    SUBB    t3, t1
    lw      t1, 28(a2)
    SUBB    t4, t0
    SUBB    t5, t1
    neg     t6, t6
    andi    t6, t6, 38                  /* 38 * borrow */
    .irp x, a3, a4, a5, a6, a7, t3, t4, t5
    sltu    t2, \x, t6
    sub     \x, \x, t6
    mv      t6, t2
    .endr
    neg     t6, t6
    andi    t6, t6, 38                  /* a second borrow: r >= 2^256 - 38 now, r[0] cannot borrow */
    sub     a3, a3, t6
    STORE8
    ret
    .size MCU_FN(x25519, fe_sub), . - MCU_FN(x25519, fe_sub)

    .section .text.MCU_FN(x25519, fe_cswap2), "ax", @progbits
    .globl MCU_FN(x25519, fe_cswap2)
    .type MCU_FN(x25519, fe_cswap2), @function
    .p2align 2
MCU_FN(x25519, fe_cswap2):
    neg     a2, a2                      /* mask: 0 or all ones */
    .irp o, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60
    lw      t0, \o(a0)
    lw      t1, \o(a1)
    xor     t2, t0, t1
    and     t2, t2, a2
    xor     t0, t0, t2
    xor     t1, t1, t2
    sw      t0, \o(a0)
    sw      t1, \o(a1)
    .endr
    ret
    .size MCU_FN(x25519, fe_cswap2), . - MCU_FN(x25519, fe_cswap2)
