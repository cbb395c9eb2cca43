/* SPDX-License-Identifier: MIT */
/* cm3-umull: product scanning with UMULL, multiply-accumulate the Micro-ECC way.
 *
 * void mcu_<id>_cm3_umull_mul(uint32_t *r, const uint32_t *a, const uint32_t *b);
 * void mcu_<id>_cm3_umull_mul_n(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t nwords);
 *
 * Paper 003, Table 4 gives Micro-ECC's multiply-accumulate into the three-word column accumulator
 * (R3, R4, R5 there; c0, c1, c2 here). Micro-ECC's Thumb-1 build forms the 32x32 product from four
 * 16x16 MULs (that is Table 4); its Thumb-2 build, which is what a Cortex-M3 runs, forms it with one
 * UMULL. This is the Thumb-2 form: one UMULL, then ADDS/ADCS/ADC into the accumulator.
 *
 * NOT constant time on the Cortex-M3: UMULL terminates early (Table 2: 3 cycles when an operand is
 * zero or both are below 2^16, 4 when one is, 5 otherwise), so the cycle count depends on the
 * operand values. META.yml says constant_time: false; tests/test_mpmul_cm3.py shows the variation.
 *
 * MAC register map (the loop's map is in ps_loop.inc): r9 = a[i] then the product's low word,
 * r10 = b[j] then the product's high word. 6 instructions, 3 + (3..5) + 3 cycles. */
#include "mcucrypt/ns.h"
#include "ps_loop.inc"

.macro MAC
    ldr     r9, [r4], #4                @ a[i]; two loads in a row pipeline (3 cycles for both)
    ldr     r10, [r5], #-4              @ b[j]
    umull   r9, r10, r9, r10            @ 64-bit product: 3..5 cycles, operand dependent
    adds    r6, r6, r9
    adcs    r7, r7, r10
    adc     r8, r8, #0                  @ the column's carry word
.endm

MPMUL_PS_CORE mpmul_cm3_umull_core

MPMUL_PS_ENTRIES(mpmul256, 8, mpmul_cm3_umull_core)
MPMUL_PS_ENTRIES(mpmul512, 16, mpmul_cm3_umull_core)
MPMUL_PS_ENTRIES(mpmul1024, 32, mpmul_cm3_umull_core)
MPMUL_PS_ENTRIES(mpmul2048, 64, mpmul_cm3_umull_core)
