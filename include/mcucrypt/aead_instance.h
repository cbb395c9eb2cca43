// SPDX-License-Identifier: MIT
/* One AEAD instance's two entry points in the aead kind's prototypes (NIST's SUPERCOP-style API, as
 * crypto/<family>/META.yml declares them), for a mode whose instances differ by one fixed parameter
 * (CCM's tag length, GCM's IV length): each entry point calls the mode's always-inline
 *   mode_encrypt(c, clen, m, mlen, ad, adlen, npub, k, param)
 *   mode_decrypt(m, mlen, c, clen, ad, adlen, npub, k, param)
 * with the parameter a constant, so no instance carries another's paths. nsec is unused: no mode here has
 * a secret message number. */
#ifndef MCUCRYPT_AEAD_INSTANCE_H
#define MCUCRYPT_AEAD_INSTANCE_H

#include "mcucrypt/ns.h"

#define MCU_AEAD_INSTANCE(id, mode_encrypt, mode_decrypt, param)                                              \
    int MCU_FN(id, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,         \
                                 unsigned long long mlen, const unsigned char *ad, unsigned long long adlen, \
                                 const unsigned char *nsec, const unsigned char *npub,                       \
                                 const unsigned char *k);                                                    \
    int MCU_FN(id, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,            \
                                 const unsigned char *c, unsigned long long clen, const unsigned char *ad,   \
                                 unsigned long long adlen, const unsigned char *npub,                        \
                                 const unsigned char *k);                                                    \
    int MCU_FN(id, aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,         \
                                 unsigned long long mlen, const unsigned char *ad, unsigned long long adlen, \
                                 const unsigned char *nsec, const unsigned char *npub,                       \
                                 const unsigned char *k)                                                     \
    {                                                                                                         \
        (void)nsec;                                                                                           \
        return mode_encrypt(c, clen, m, mlen, ad, adlen, npub, k, param);                                     \
    }                                                                                                         \
    int MCU_FN(id, aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,            \
                                 const unsigned char *c, unsigned long long clen, const unsigned char *ad,   \
                                 unsigned long long adlen, const unsigned char *npub,                        \
                                 const unsigned char *k)                                                     \
    {                                                                                                         \
        (void)nsec;                                                                                           \
        return mode_decrypt(m, mlen, c, clen, ad, adlen, npub, k, param);                                     \
    }

#endif
