// SPDX-License-Identifier: MIT
/* Wiping secrets: mcu_wipe(p, n) sets n bytes at p to zero, and the compiler may not remove it (unlike a
 * memset of a buffer that is never read again, which "dead store" elimination may drop). The exported
 * headers wrap it once per secret-holding type (round keys, AEAD state, keys, multiplication operands):
 * mcu_<id>_wipe_rk(rk) and so on, each with the right size. */
#ifndef MCUCRYPT_WIPE_H
#define MCUCRYPT_WIPE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void mcu_wipe(void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
