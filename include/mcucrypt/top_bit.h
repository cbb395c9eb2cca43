// SPDX-License-Identifier: MIT
/* mcu_top_bit(v): the top bit of v, 0 or 1, without a branch on it. avr-gcc compiles a lone v >> 31 to
 * "clr; sbrc r, 7; inc": a skip on a secret bit (two cycles either way, but a branch, which the
 * constant-time checker rightly refuses). A byte the compiler cannot see through makes it shift the bit
 * out through the carry instead. Internal to the sources (exported beside them, not a public header). */
#ifndef MCUCRYPT_TOP_BIT_H
#define MCUCRYPT_TOP_BIT_H
#include <stdint.h>

static inline uint32_t mcu_top_bit(uint32_t v)
{
#if defined(__AVR__)
    uint8_t b = (uint8_t)(v >> 24);
    __asm__("" : "+r"(b));
    return (uint8_t)(b >> 7);
#else
    return v >> 31;
#endif
}

#endif
