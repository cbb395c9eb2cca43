// SPDX-License-Identifier: MIT
/* The reduction of a 512-bit product mod p = 2^255 - 19 to 8 limbs below 2^256, in C, shared by the
 * ref field arithmetic and by implementations whose product comes from an mpmul kernel. */
#ifndef MCUCRYPT_X25519_FE_REDUCE_H
#define MCUCRYPT_X25519_FE_REDUCE_H
#include <stdint.h>

/* 38 times a carry bit, kept branch-free: on the M3 GCC turns "38 & -bit" (and "bit ? 38 : 0") into an
 * IT block, conditional execution selected by the secret carry, which the constant-time checker
 * reports as a secret-dependent branch; there the product is a MUL in inline assembly (1 cycle for
 * every operand), which the compiler cannot see through. */
static inline uint32_t fe_carry38(uint32_t bit)
{
#if defined(__ARM_ARCH_7M__)
    uint32_t r;
    __asm__("mul %0, %1, %2" : "=r"(r) : "r"(bit), "r"(38u) : "cc");
    return r;
#else
    return 38u & (0u - bit);
#endif
}

/* r = lo + 38 hi of the 512-bit t, then the carry out of the top limb (at most 38) folded back as 38
 * times itself, then a last carry (possible only when the sum wrapped below 38 * 38) as 38 into limb 0.
 * 38 x = 32 x + 4 x + 2 x by shifts (a constant-time product wherever the compiler makes it one), or
 * by 32-bit MULs on the M3. */
static inline void fe_reduce(uint32_t *r, const uint32_t *t)
{
    uint64_t c = 0;
    uint32_t top;
    int i;

#if defined(__GNUC__) && __GNUC__ >= 8   /* the unroll pragma exists from GCC 8 (avr-gcc here is older) */
    _Pragma("GCC unroll 8")
#endif
    for (i = 0; i < 8; i++) {
#if defined(__ARM_ARCH_7M__)
        /* GCC turns the shifted sum below into UMLAL, which terminates early on the M3: here 38 h is
         * built from 32-bit MULs (fixed 1 cycle) on 16-bit halves, 38 h = 2^16 X + y with
         * X = 38 h_hi + (38 h_lo >> 16), so its high word is X >> 16 and its low word 38 h mod 2^32. */
        uint32_t h = t[8 + i];
        uint32_t x = (h >> 16) * 38u + (((h & 0xffffu) * 38u) >> 16);
        c += (uint64_t)t[i] + (uint32_t)(h * 38u) + ((uint64_t)(x >> 16) << 32);
#else
        uint64_t h = t[8 + i];
        c += t[i] + (h << 5) + (h << 2) + (h << 1);
#endif
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    top = (uint32_t)c;
    c = (uint64_t)((top << 5) + (top << 2) + (top << 1));
#if defined(__GNUC__) && __GNUC__ >= 8   /* the unroll pragma exists from GCC 8 (avr-gcc here is older) */
    _Pragma("GCC unroll 8")
#endif
    for (i = 0; i < 8; i++) {
        c += r[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    r[0] += fe_carry38((uint32_t)c);
}

#endif
