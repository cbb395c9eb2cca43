// SPDX-License-Identifier: MIT
/* X25519 on the E31 (rv32-fast): the conditional swap the shared C ladder (ref/ladder.c) applies
 * after its last step. The additions, subtractions and swaps of the steps themselves are inside the
 * generated ladder step (fe_rv32.S, X25519_GLUE_ASM = 2).
 *
 *   void mcu_x25519_<impl>_fe_cswap2(uint32_t x[16], uint32_t y[16], uint32_t swap);
 *       swap the 16 words of x and y (two field elements each: the ladder's (x2, z2) and (x3, z3))
 *       when swap = 1: t = (x ^ y) & -swap; x ^= t; y ^= t
 * Register map: a0 = x, a1 = y, a2 = swap, then the mask; t0..t2 temporaries. Leaf, no stack.
 * Constant time: straight-line, fixed addresses. */
#include "mcucrypt/ns.h"

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
