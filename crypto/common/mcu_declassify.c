// SPDX-License-Identifier: MIT
/* The declassification point of the taint checker: see include/mcucrypt/declassify.h. Kept out of line
 * (own file, noinline) so every caller really calls it; the boards recognise it by its symbol. */
#include "mcucrypt/declassify.h"

__attribute__((noinline)) uint32_t mcu_declassify(uint32_t v)
{
    __asm__ volatile("" : "+r"(v));   /* an identity the compiler may not see through */
    return v;
}
