// SPDX-License-Identifier: MIT
/* Declassification for the constant-time checker's taint mode (docs/constant-time.md).
 *
 * mcu_declassify(v) returns v unchanged. It is a real function in its own translation unit
 * (crypto/common/mcu_declassify.c, linked into every image), so a call to it is always there in the binary:
 * the taint engines clear the taint of its argument register on its entry, and the value it returns is
 * public from then on. Use it only where an API publishes a secret-derived value by contract: an AEAD
 * decryption's accept/reject verdict, X25519's all-zero (small-order) verdict. Everything computed before
 * the call stays checked. */
#ifndef MCUCRYPT_DECLASSIFY_H
#define MCUCRYPT_DECLASSIFY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t mcu_declassify(uint32_t v);

#ifdef __cplusplus
}
#endif
#endif
