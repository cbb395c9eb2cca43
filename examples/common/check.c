// SPDX-License-Identifier: MIT
/* Example firmware: checks official vectors with an exported mcucrypt library, through nothing but its
 * public header (mcucrypt.h: generic names for the implementation the export chose).
 *
 *   int mcucrypt_example(void)  the number of vectors that passed, or 1000 + the number that failed
 *
 * Run it on a virtual board: `mcucrypt call --target rv32 example.elf mcucrypt_example`. On a real part,
 * call it from main and print the result. The vectors (examples/common/vectors.h) live in flash (PROGMEM
 * on AVR, whose 4 KiB of SRAM could not hold them) and are copied record by record. */
#include <stddef.h>
#include <stdint.h>
#include "mcucrypt.h"

#if defined(__AVR__)
#include <avr/pgmspace.h>
#define EX_ROM PROGMEM
#define EX_ROM_BYTE(p) pgm_read_byte(p)
#else
#define EX_ROM
#define EX_ROM_BYTE(p) (*(p))
#endif

#ifdef __cplusplus
extern "C" int mcucrypt_example(void);
/* Round keys are uint32_t in some implementations and uint8_t in others: in C a void * converts to
 * either; in C++ this proxy converts to whichever pointer the called function takes. */
struct ex_any_ptr {
    void *p;
    template <class T> operator T *() const { return static_cast<T *>(p); }
};
#define EX_RK(rk) (ex_any_ptr{(void *)(rk)})
#else
int mcucrypt_example(void);
#define EX_RK(rk) ((void *)(rk))
#endif

__attribute__((unused)) /* unused in a library holding only LMS or ML-DSA (no example records) */
static void ex_read(uint8_t *dst, const uint8_t *rom, size_t n)
{
    while (n--) {
        *dst++ = EX_ROM_BYTE(rom++);
    }
}

/* 1 when n bytes at ram equal n bytes at rom */
__attribute__((unused)) /* unused in a library holding only signature schemes */
static int ex_equal(const uint8_t *ram, const uint8_t *rom, size_t n)
{
    uint8_t diff = 0;
    while (n--) {
        diff |= (uint8_t)(*ram++ ^ EX_ROM_BYTE(rom++));
    }
    return diff == 0;
}

/* Block ciphers: key || pt || ct; keyschedule then encrypt; the round keys wiped after. */
#define EX_DEFINE_BLOCKCIPHER(id, ID)                                                             \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { K = MCU_##ID##_KEY_BYTES, B = MCU_##ID##_BLOCK_BYTES, REC = K + 2 * B };           \
        uint32_t rk[(MCU_##ID##_RK_BYTES + 3) / 4];                                               \
        uint8_t rec[K + B], out[B];                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            const uint8_t *v = ex_##id + (size_t)i * REC;                                         \
            ex_read(rec, v, K + B);                                                               \
            mcu_##id##_keyschedule(EX_RK(rk), rec);                                               \
            mcu_##id##_encrypt(out, rec + K, EX_RK(rk));                                          \
            if (ex_equal(out, v + K + B, B)) {                                                    \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
        }                                                                                         \
        mcu_##id##_wipe_rk(EX_RK(rk));                                                            \
        return failed;                                                                            \
    }

/* Stream ciphers: key || nonce || counter (4 bytes, little-endian) || one keystream block. */
#define EX_DEFINE_STREAM(id, ID)                                                                  \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { K = MCU_##ID##_KEY_BYTES, N = MCU_##ID##_NONCE_BYTES, B = MCU_##ID##_BLOCK_BYTES,   \
               REC = K + N + 4 + B };                                                             \
        uint8_t rec[K + N + 4], out[B];                                                           \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            const uint8_t *v = ex_##id + (size_t)i * REC;                                         \
            ex_read(rec, v, K + N + 4);                                                           \
            uint32_t ctr = (uint32_t)rec[K + N] | ((uint32_t)rec[K + N + 1] << 8) |               \
                           ((uint32_t)rec[K + N + 2] << 16) | ((uint32_t)rec[K + N + 3] << 24);   \
            mcu_##id##_block(out, rec, rec + K, ctr);                                             \
            if (ex_equal(out, v + K + N + 4, B)) {                                                \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
        }                                                                                         \
        mcu_##id##_wipe_key(rec);                                                                 \
        return failed;                                                                            \
    }

/* Permutations: in || out. */
#define EX_DEFINE_PERMUTATION(id, ID)                                                             \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { S = MCU_##ID##_STATE_BYTES };                                                      \
        uint32_t state[S / 4];                                                                    \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            const uint8_t *v = ex_##id + (size_t)i * 2 * S;                                       \
            ex_read((uint8_t *)state, v, S);                                                      \
            mcu_##id##_permute((uint8_t *)state);                                                 \
            if (ex_equal((const uint8_t *)state, v + S, S)) {                                     \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
        }                                                                                         \
        mcu_##id##_wipe_state((uint8_t *)state);                                                  \
        return failed;                                                                            \
    }

/* Multiplication: a || b || p, little-endian 32-bit limbs. */
#define EX_DEFINE_MPMUL(id, ID)                                                                   \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { W = MCU_##ID##_OPERAND_WORDS, REC = 16 * W };                                      \
        uint32_t a[W], b[W], r[2 * W];                                                            \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            const uint8_t *v = ex_##id + (size_t)i * REC;                                         \
            ex_read((uint8_t *)a, v, 4 * W);                                                      \
            ex_read((uint8_t *)b, v + 4 * W, 4 * W);                                              \
            mcu_##id##_mul(r, a, b);                                                              \
            if (ex_equal((const uint8_t *)r, v + 8 * W, 8 * W)) {                                 \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
        }                                                                                         \
        mcu_##id##_wipe_operand(a);                                                               \
        mcu_##id##_wipe_operand(b);                                                               \
        mcu_##id##_wipe_product(r);                                                               \
        return failed;                                                                            \
    }

/* AEAD: mlen || adlen || key || nonce || pt || ad || ct||tag. Encrypt, decrypt, and decrypt of a
 * ciphertext with one bit of the tag flipped, which must fail (-1) and release zeros. */
#define EX_DEFINE_AEAD(id, ID)                                                                    \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { K = MCU_##ID##_KEY_BYTES, N = MCU_##ID##_NONCE_BYTES, T = MCU_##ID##_TAG_BYTES,     \
               MAX = 32 };                                                                        \
        uint8_t key[K], nonce[N], pt[MAX], ad[MAX], ct[MAX + T], back[MAX + T];                   \
        unsigned long long clen, mlen;                                                            \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned m = EX_ROM_BYTE(v), a = EX_ROM_BYTE(v + 1);                                  \
            v += 2;                                                                               \
            ex_read(key, v, K);                                                                   \
            ex_read(nonce, v + K, N);                                                             \
            ex_read(pt, v + K + N, m);                                                            \
            ex_read(ad, v + K + N + m, a);                                                        \
            v += K + N + m + a;                                                                   \
            int ok = mcu_##id##_aead_encrypt(ct, &clen, pt, m, ad, a, NULL, nonce, key) == 0 &&    \
                     clen == m + T && ex_equal(ct, v, m + T);                                     \
            ok = ok && mcu_##id##_aead_decrypt(back, &mlen, NULL, ct, clen, ad, a, nonce, key) == 0 \
                 && mlen == m && ex_equal(back, v - m - a, m);                                    \
            if (T > 0) { /* a forged tag: refused (CCM* with M = 0 has no tag to forge) */            \
                ct[m] ^= 1u;                                                                      \
                ok = ok && mcu_##id##_aead_decrypt(back, &mlen, NULL, ct, clen, ad, a, nonce, key) == -1; \
            }                                                                                     \
            if (ok) {                                                                             \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += m + T;                                                                           \
        }                                                                                         \
        mcu_##id##_wipe_key(key);                                                                 \
        return failed;                                                                            \
    }

/* Hashes (Ascon hash and XOF, SHA-2, SHA-3): mlen || zlen (0) || msg || digest (OUT_BYTES), through the
 * one-shot hash. */
#define EX_DEFINE_HASH(id, ID)                                                                    \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { D = MCU_##ID##_OUT_BYTES, MAX = 32 };                                              \
        uint8_t msg[MAX], out[D];                                                                 \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned m = EX_ROM_BYTE(v);                                                          \
            ex_read(msg, v + 2, m);                                                               \
            v += 2 + m;                                                                           \
            if (mcu_##id##_hash(out, msg, m) == 0 && ex_equal(out, v, D)) {                        \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += D;                                                                               \
        }                                                                                         \
        return failed;                                                                            \
    }

/* Ascon CXOF: mlen || zlen || msg || z || output (OUT_BYTES). */
#define EX_DEFINE_CXOF(id, ID)                                                                    \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { D = MCU_##ID##_OUT_BYTES, MAX = 32 };                                              \
        uint8_t msg[MAX], z[MAX], out[D];                                                         \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned m = EX_ROM_BYTE(v), zl = EX_ROM_BYTE(v + 1);                                 \
            ex_read(msg, v + 2, m);                                                               \
            ex_read(z, v + 2 + m, zl);                                                            \
            v += 2 + m + zl;                                                                      \
            mcu_##id##_cxof(out, D, msg, m, z, zl);                                               \
            if (ex_equal(out, v, D)) {                                                            \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += D;                                                                               \
        }                                                                                         \
        return failed;                                                                            \
    }

/* SHAKE (an XOF without a one-shot hash): mlen || outlen || msg || output (outlen bytes). The one-shot
 * xof, then init / update (the message in two pieces) / squeeze (the output in two pieces) into a
 * cleared buffer. */
#define EX_DEFINE_XOF(id, ID)                                                                     \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { MAX_MSG = 32, MAX_OUT = 255 };                                                     \
        uint8_t msg[MAX_MSG], out[MAX_OUT];                                                       \
        uint8_t ctx[MCU_##ID##_CTX_BYTES] __attribute__((aligned(4)));                            \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned m = EX_ROM_BYTE(v), n = EX_ROM_BYTE(v + 1);                                  \
            ex_read(msg, v + 2, m);                                                               \
            v += 2 + m;                                                                           \
            mcu_##id##_xof(out, n, msg, m);                                                       \
            int ok = ex_equal(out, v, n);                                                         \
            mcu_wipe(out, n);                                                                     \
            mcu_##id##_init(ctx);                                                                 \
            mcu_##id##_update(ctx, msg, m / 2);                                                   \
            mcu_##id##_update(ctx, msg + m / 2, m - m / 2);                                       \
            mcu_##id##_squeeze(ctx, out, n / 2);                                                  \
            mcu_##id##_squeeze(ctx, out + n / 2, n - n / 2);                                      \
            ok = ok && ex_equal(out, v, n);                                                       \
            if (ok) {                                                                             \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += n;                                                                               \
        }                                                                                         \
        mcu_##id##_wipe_ctx(ctx);                                                                 \
        return failed;                                                                            \
    }

/* X25519: scalar || u || shared (32 bytes each). */
#define EX_DEFINE_DH(id, ID)                                                                      \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { S = MCU_##ID##_SCALAR_BYTES, U = MCU_##ID##_POINT_BYTES };                         \
        uint8_t scalar[S], u[U], out[U];                                                          \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            ex_read(scalar, v, S);                                                                \
            ex_read(u, v + S, U);                                                                 \
            /* -1 exactly for an all-zero result (a small-order point, RFC 7748 section 6.1) */   \
            int nonzero = 0, got = mcu_##id##_x25519(out, scalar, u);                             \
            for (unsigned j = 0; j < U; j++) {                                                    \
                nonzero |= out[j]; /* out is compared with the expected value below */            \
            }                                                                                     \
            if (ex_equal(out, v + S + U, U) && got == (nonzero ? 0 : -1)) {                       \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += S + 2 * U;                                                                       \
        }                                                                                         \
        mcu_##id##_wipe_scalar(scalar);                                                           \
        return failed;                                                                            \
    }

/* Signature verification (Ed25519, ECDSA P-256, LMS): pklen (2, LE) || mlen (2, LE) || siglen (2, LE) ||
 * valid (1) || pk || msg || sig. The verdict must match the record's, and a valid signature with one byte
 * flipped must be refused. The call goes through EX_<ID>_VERIFY (vectors.h), which fills the scheme's own
 * prototype (a key length, an empty context string, FIPS 204's internal form for ML-DSA's ACVP records).
 * Buffers are static: a signature scheme's records are larger than the other kinds'. */
#define EX_DEFINE_SIGNATURE(id, ID)                                                               \
    static uint8_t ex_##id##_pk[EX_##ID##_PK_MAX], ex_##id##_msg[EX_##ID##_MSG_MAX + 1],          \
        ex_##id##_sig[EX_##ID##_SIG_MAX];                                                         \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        uint8_t *pk = ex_##id##_pk, *msg = ex_##id##_msg, *sig = ex_##id##_sig;                   \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            size_t p = EX_ROM_BYTE(v) | (size_t)EX_ROM_BYTE(v + 1) << 8;                          \
            size_t m = EX_ROM_BYTE(v + 2) | (size_t)EX_ROM_BYTE(v + 3) << 8;                      \
            size_t s = EX_ROM_BYTE(v + 4) | (size_t)EX_ROM_BYTE(v + 5) << 8;                      \
            int valid = EX_ROM_BYTE(v + 6);                                                       \
            ex_read(pk, v + 7, p);                                                                \
            ex_read(msg, v + 7 + p, m);                                                           \
            ex_read(sig, v + 7 + p + m, s);                                                       \
            int ok = EX_##ID##_VERIFY(sig, s, msg, m, pk, p) == (valid ? 0 : -1);                 \
            if (valid) {                                                                          \
                sig[s / 2] ^= 0x10u;                                                              \
                ok = ok && EX_##ID##_VERIFY(sig, s, msg, m, pk, p) == -1;                         \
            }                                                                                     \
            if (ok) {                                                                             \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += 7 + p + m + s;                                                                   \
        }                                                                                         \
        return failed;                                                                            \
    }

/* HMAC: keylen || mlen || taglen || key || msg || tag (RFC 4231; taglen < TAG_BYTES: a truncated tag).
 * The one-shot mac, the incremental mac_init/mac_update (in two pieces)/mac_final, verify of the
 * tag, and verify of the tag with its last bit flipped, which must fail (-1). */
#define EX_DEFINE_MAC(id, ID)                                                                     \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { T = MCU_##ID##_TAG_BYTES, MAX = 160 };                                             \
        uint8_t key[MAX], msg[MAX], tag[T], out[T];                                               \
        uint8_t ctx[MCU_##ID##_CTX_BYTES] __attribute__((aligned(4)));                            \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned k = EX_ROM_BYTE(v), m = EX_ROM_BYTE(v + 1), t = EX_ROM_BYTE(v + 2);          \
            ex_read(key, v + 3, k);                                                               \
            ex_read(msg, v + 3 + k, m);                                                           \
            ex_read(tag, v + 3 + k + m, t);                                                       \
            mcu_##id##_mac(out, key, k, msg, m);                                                  \
            int ok = ex_equal(out, v + 3 + k + m, t);                                             \
            mcu_##id##_mac_init(ctx, key, k);                                                     \
            mcu_##id##_mac_update(ctx, msg, m / 2);                                               \
            mcu_##id##_mac_update(ctx, msg + m / 2, m - m / 2);                                   \
            mcu_##id##_mac_final(ctx, out);                                                       \
            ok = ok && ex_equal(out, v + 3 + k + m, t);                                           \
            ok = ok && mcu_##id##_verify(tag, t, key, k, msg, m) == 0;                            \
            tag[t - 1] ^= 1u;                                                                     \
            ok = ok && mcu_##id##_verify(tag, t, key, k, msg, m) == -1;                           \
            if (ok) {                                                                             \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += 3 + k + m + t;                                                                   \
        }                                                                                         \
        mcu_wipe(key, sizeof key);                                                                \
        return failed;                                                                            \
    }

/* A MAC with one fixed key length (Poly1305, RFC 8439; AES-CMAC, RFC 4493 and NIST CAVP CMACGenAES128):
 * keylen (= KEY_BYTES) || mlen || taglen || key || msg || tag; the same checks as EX_DEFINE_MAC, through
 * the prototypes without keylen (taglen < TAG_BYTES: a truncated tag). */
#define EX_DEFINE_MAC_FIXED_KEY(id, ID)                                                           \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { K = MCU_##ID##_KEY_BYTES, T = MCU_##ID##_TAG_BYTES, MAX = 160 };                   \
        uint8_t key[K], msg[MAX], tag[T], out[T];                                                 \
        uint8_t ctx[MCU_##ID##_CTX_BYTES] __attribute__((aligned(4)));                            \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned k = EX_ROM_BYTE(v), m = EX_ROM_BYTE(v + 1), t = EX_ROM_BYTE(v + 2);          \
            ex_read(key, v + 3, K);                                                               \
            ex_read(msg, v + 3 + k, m);                                                           \
            ex_read(tag, v + 3 + k + m, t);                                                       \
            mcu_##id##_mac(out, key, msg, m);                                                     \
            int ok = k == K && t <= T && ex_equal(out, v + 3 + k + m, t);                         \
            mcu_##id##_mac_init(ctx, key);                                                        \
            mcu_##id##_mac_update(ctx, msg, m / 2);                                               \
            mcu_##id##_mac_update(ctx, msg + m / 2, m - m / 2);                                   \
            mcu_##id##_mac_final(ctx, out);                                                       \
            ok = ok && ex_equal(out, v + 3 + k + m, t);                                           \
            ok = ok && mcu_##id##_verify(tag, t, key, msg, m) == 0;                               \
            tag[t - 1] ^= 1u;                                                                     \
            ok = ok && mcu_##id##_verify(tag, t, key, msg, m) == -1;                              \
            if (ok) {                                                                             \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += 3 + k + m + t;                                                                   \
        }                                                                                         \
        mcu_wipe(key, sizeof key);                                                                \
        return failed;                                                                            \
    }

/* HKDF: ikmlen || saltlen || infolen || L || ikm || salt || info || okm (RFC 5869 appendix A). */
#define EX_DEFINE_KDF(id, ID)                                                                     \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { MAX = 96 };                                                                        \
        uint8_t ikm[MAX], salt[MAX], info[MAX], okm[MAX];                                         \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            unsigned n = EX_ROM_BYTE(v), s = EX_ROM_BYTE(v + 1), f = EX_ROM_BYTE(v + 2);          \
            unsigned l = EX_ROM_BYTE(v + 3);                                                      \
            ex_read(ikm, v + 4, n);                                                               \
            ex_read(salt, v + 4 + n, s);                                                          \
            ex_read(info, v + 4 + n + s, f);                                                      \
            v += 4 + n + s + f;                                                                   \
            if (mcu_##id##_hkdf(okm, l, salt, s, ikm, n, info, f) == 0 && ex_equal(okm, v, l)) {  \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += l;                                                                               \
        }                                                                                         \
        mcu_wipe(ikm, sizeof ikm);                                                                \
        mcu_wipe(okm, sizeof okm);                                                                \
        return failed;                                                                            \
    }

/* ML-KEM: ek || m || ct || ss (one ACVP encapsulation test): encaps must return 0 and give ct and ss.
 * Key generation and decapsulation need the decapsulation key too (up to 3 KiB of SRAM more): the test
 * suite checks them on the boards (tests/test_catalog.py, docs/mlkem.md). */
#define EX_DEFINE_KEM(id, ID)                                                                     \
    static int ex_check_##id(int *passed)                                                         \
    {                                                                                             \
        enum { EK = MCU_##ID##_EK_BYTES, M = MCU_##ID##_SEED_BYTES, C = MCU_##ID##_CT_BYTES,      \
               SS = MCU_##ID##_SS_BYTES };                                                        \
        static uint8_t ek[EK], ct[C]; /* static: off the stack, which encaps needs */            \
        uint8_t m[M], ss[SS];                                                                     \
        const uint8_t *v = ex_##id;                                                               \
        int failed = 0;                                                                           \
        for (unsigned i = 0; i < EX_##ID##_COUNT; i++) {                                          \
            ex_read(ek, v, EK);                                                                   \
            ex_read(m, v + EK, M);                                                                \
            if (mcu_##id##_encaps(ct, ss, ek, m) == 0 && ex_equal(ct, v + EK + M, C)              \
                && ex_equal(ss, v + EK + M + C, SS)) {                                            \
                (*passed)++;                                                                      \
            } else {                                                                              \
                failed++;                                                                         \
            }                                                                                     \
            v += EK + M + C + SS;                                                                 \
        }                                                                                         \
        mcu_wipe(m, sizeof m);                                                                    \
        mcu_##id##_wipe_ss(ss);                                                                   \
        return failed;                                                                            \
    }

#include "vectors.h"

int mcucrypt_example(void)
{
    return ex_check_all();
}
