/* ARIA key schedule for the word-oriented rv32 implementations (rv32-fast, rv32-zbb): C over the 32-bit
 * T-tables of aria_t32.S, writing round keys as 16-byte strings in specification order (which, read as
 * little-endian words, is exactly the state layout of aria_ttable.S).
 *
 * The three Feistel-like rounds that make W1..W3 use the same T-table round as the cipher. The 128-bit
 * rotations of the specification act on big-endian values, so W0..W3 are byte-swapped once into
 * big-endian words, rotated there with word shifts, and each rotated word is swapped back before the
 * XOR. Compiled with Zbb the byte swap is one rev8; on RV32I it is a few shifts and masks.
 * Decryption keys: dk1 = ek(n+1), dk(i) = A(ek(n+2-i)), dk(n+1) = ek1, computed in place. */
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "aria_rv32.h"

#define T32 MCU_FN(aria, t32)

/* CK1, CK2, CK3 (RFC 5794) as little-endian words of their big-endian byte strings. */
static const uint32_t ARIA_CK_LE[3][4] = {
    {0xb7c17c51u, 0x940a2227u, 0xe8ab13feu, 0xe06e9afau},
    {0xcc4ab16du, 0x20c8219eu, 0xd5b128ffu, 0xb0e25defu},
    {0x1d3792dbu, 0x70e92621u, 0x75972403u, 0x0ec9e804u},
};

static uint32_t bswap32(uint32_t x)
{
    return (x << 24) | ((x & 0xff00u) << 8) | ((x >> 8) & 0xff00u) | (x >> 24);
}

static uint32_t rot16(uint32_t x)
{
    return (x << 16) | (x >> 16);
}

static uint32_t swapb(uint32_t x)      /* bytes (0 1 2 3) -> (1 0 3 2) */
{
    return ((x & 0x00ff00ffu) << 8) | ((x >> 8) & 0x00ff00ffu);
}

static uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void mix(uint32_t *w)
{
    w[1] ^= w[2];
    w[2] ^= w[3];
    w[0] ^= w[1];
    w[3] ^= w[1];
    w[2] ^= w[0];
    w[1] ^= w[2];
}

/* y = A(SL(x)): SL1 when odd, SL2 otherwise; the word-level factorisation of aria_ttable.S. */
static void round32(uint32_t *y, const uint32_t *x, int odd)
{
    const uint32_t *ta = T32, *tb = T32 + 256, *tc = T32 + 512, *td = T32 + 768;
    if (!odd) {
        ta = T32 + 512;
        tb = T32 + 768;
        tc = T32;
        td = T32 + 256;
    }
    for (unsigned i = 0; i < 4; i++) {
        uint32_t v = x[i];
        y[i] = ta[v & 0xffu] ^ tb[(v >> 8) & 0xffu] ^ tc[(v >> 16) & 0xffu] ^ td[v >> 24];
    }
    mix(y);
    if (odd) {
        y[1] = swapb(y[1]);
        y[2] = rot16(y[2]);
        y[3] = bswap32(y[3]);
    } else {
        y[0] = rot16(y[0]);
        y[1] = bswap32(y[1]);
        y[3] = swapb(y[3]);
    }
    mix(y);
}

/* A(x) in place, for the decryption keys: D (each byte becomes the XOR of its word's other three bytes),
 * then M, P as in odd rounds, M. */
static void diffuse32(uint32_t *x)
{
    for (unsigned i = 0; i < 4; i++) {
        uint32_t v = x[i];
        uint32_t r8 = (v >> 8) | (v << 24);
        x[i] = r8 ^ rot16(v) ^ (v << 8 | v >> 24);
    }
    mix(x);
    x[1] = swapb(x[1]);
    x[2] = rot16(x[2]);
    x[3] = bswap32(x[3]);
    mix(x);
}

/* out (little-endian words) = a (little-endian words) ^ (b >>> n), b given as big-endian words of a
 * 128-bit big-endian value, 0 < n < 128, n not a multiple of 32. */
static void xor_rotr(uint32_t *out, const uint32_t *a, const uint32_t *b, unsigned n)
{
    unsigned q = n / 32u, r = n % 32u;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t hi = b[(i + 4u - q) % 4u], lo = b[(i + 3u - q) % 4u];
        out[i] = a[i] ^ bswap32((hi >> r) | (lo << (32u - r)));
    }
}

static void ks32(uint32_t *rk, const uint8_t *key, unsigned key_bytes)
{
    unsigned rounds = 8u + key_bytes / 4u;
    unsigned c = (key_bytes - 16u) / 8u;
    uint32_t w[4][4], be[4][4], kr[4], t[4];
    for (unsigned i = 0; i < 4; i++) {
        w[0][i] = load32_le(key + 4 * i);
        kr[i] = 4u * i + 16u < key_bytes ? load32_le(key + 16 + 4 * i) : 0u;
    }
    for (unsigned j = 0; j < 3; j++) {
        const uint32_t *ck = ARIA_CK_LE[(c + j) % 3u];
        for (unsigned i = 0; i < 4; i++) {
            t[i] = w[j][i] ^ ck[i];
        }
        round32(w[j + 1], t, j != 1u);
        for (unsigned i = 0; i < 4; i++) {
            w[j + 1][i] ^= j == 0 ? kr[i] : w[j - 1][i];
        }
    }
    for (unsigned j = 0; j < 4; j++) {
        for (unsigned i = 0; i < 4; i++) {
            be[j][i] = bswap32(w[j][i]);
        }
    }
    static const uint8_t rot[5] = {19, 31, 67, 97, 109};
    for (unsigned k = 0; k <= rounds; k++) {
        unsigned g = k / 4u, i = k % 4u;
        xor_rotr(rk + 4 * k, w[i], be[(i + 1u) % 4u], rot[g]);
    }
}

static void ks32_dec(uint32_t *rk, const uint8_t *key, unsigned key_bytes)
{
    unsigned rounds = 8u + key_bytes / 4u;
    ks32(rk, key, key_bytes);
    for (unsigned i = 0, j = rounds; i <= j; i++, j--) {
        uint32_t a[4], b[4];
        for (unsigned w = 0; w < 4; w++) {
            a[w] = rk[4 * i + w];
            b[w] = rk[4 * j + w];
        }
        if (i != 0) {            /* dk1 and dk(n+1) are ek(n+1) and ek1 unchanged */
            diffuse32(a);
            diffuse32(b);
        }
        for (unsigned w = 0; w < 4; w++) {
            rk[4 * i + w] = b[w];
            rk[4 * j + w] = a[w];
        }
    }
}

#define ARIA_KS_API(id, key_bytes)                                                              \
    void MCU_FN(id, keyschedule)(uint32_t *rk, const uint8_t *key)                              \
    {                                                                                           \
        ks32(rk, key, key_bytes);                                                               \
    }                                                                                           \
    void MCU_FN(id, keyschedule_dec)(uint32_t *rk, const uint8_t *key)                          \
    {                                                                                           \
        ks32_dec(rk, key, key_bytes);                                                           \
    }

ARIA_KS_API(aria128, 16)
ARIA_KS_API(aria192, 24)
ARIA_KS_API(aria256, 32)
