// SPDX-License-Identifier: MIT
/* mcu_wipe: zeroes through a volatile pointer, so every store is an observable side effect the compiler
 * must emit (C99 6.7.3: accesses to volatile objects are evaluated strictly), then an empty asm statement
 * that takes the buffer's address and clobbers memory, so even whole-program optimisation (-flto) that
 * inlines this function cannot treat the buffer as dead before the wipe. */
#include <stdint.h>
#include "mcucrypt/wipe.h"

void mcu_wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) {
        *v++ = 0;
    }
#if defined(__GNUC__)
    __asm__ __volatile__("" : : "r"(p) : "memory");
#endif
}
