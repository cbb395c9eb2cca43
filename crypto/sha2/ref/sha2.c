// SPDX-License-Identifier: MIT
/* SHA-2 (FIPS 180-4), HMAC (FIPS 198-1) and HKDF (RFC 5869): portable C99, written from the standards.
 * Shared by every implementation; the block functions are the C ones below unless the implementation
 * brings its own (SHA2_ASM_256, SHA2_ASM_512; contract in sha2.h).
 *
 *   SHA-256 (FIPS 180-4 §6.2): 64 rounds over eight 32-bit words; the message schedule is kept as a
 *     rolling window of 16 words (W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] overwrites
 *     W[t-16]), 64 bytes of stack instead of 256. SHA-224 (§6.3): its own IV, 28 bytes of output.
 *   SHA-512 (§6.4): the same on 64-bit words, 80 rounds; SHA-384 (§6.5): its own IV, 48 bytes out.
 *   Padding (§5.1): 0x80, zeros, then the message length in bits as a 64-bit (SHA-256) or 128-bit
 *     (SHA-512) big-endian number closing the last block.
 *   HMAC (FIPS 198-1): K0 = key padded with zeros to the block (a longer key hashed first);
 *     tag = H((K0 ^ opad) || H((K0 ^ ipad) || m)). mac_init compresses both key blocks once, so the
 *     context holds the inner hash and the outer chaining state (no key).
 *   HKDF (RFC 5869 §2): PRK = HMAC(salt, IKM); T(i) = HMAC(PRK, T(i-1) || info || i), OKM = T(1) ||
 *     ... truncated; the HMAC key blocks of PRK are compressed once for all T(i).
 *
 * Constant time: branches and addresses depend on lengths only (public); the round functions are
 * additions, rotations and Boolean operations (no multiplication, no table indexed by data: K is
 * indexed by the round number). HMAC verification compares all taglen bytes by OR-ing differences and
 * declassifies only the verdict (mcu_declassify). The key pads and the inner digest are built in the
 * context's block buffer (no scratch copies); every context, the one-shot calls' own and the caller's
 * at `final` / `mac_final`, is wiped when done (wipe_ctx: word stores), as are verify's tag and HKDF's PRK.
 * The modes' overhead beside the compressions matters for short messages (HMAC of 64 bytes is five
 * compressions): padding and pads go a word at a time, states are copied as words, no memset.
 * On AVR the round constants live in flash (PROGMEM, read with LPM), not in the 4 KiB of SRAM. */
#include "sha2.h"
#include "mcucrypt/declassify.h"
#include "mcucrypt/wipe.h"

/* No <string.h> on the freestanding rv32 toolchain: the compiler's builtin (a call to the board's
 * memcpy, or inline code). */
#define memcpy __builtin_memcpy

#if defined(__AVR__)
#include <avr/pgmspace.h>
#define SHA2_ROM PROGMEM
#define K256_AT(t) pgm_read_dword(&K256[(t)])
#if !SHA2_ASM_512
static uint64_t k512_at(uint8_t t);
#define K512_AT(t) k512_at(t)
#endif
#else
#define SHA2_ROM
#define K256_AT(t) K256[(t)]
#define K512_AT(t) K512[(t)]
#endif

/* ------------------------------------------------------------------------------------- constants */

/* IVs (§5.3): the first 32 (SHA-256) or 64 (SHA-512) bits of the fractional parts of the square roots
 * of the first 8 primes; SHA-384 the 9th..16th primes; SHA-224 the low 32 bits of SHA-384's. */
static const uint32_t IV224[8] = {
    0xc1059ed8u, 0x367cd507u, 0x3070dd17u, 0xf70e5939u, 0xffc00b31u, 0x68581511u, 0x64f98fa7u, 0xbefa4fa4u,
};
static const uint32_t IV256[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};
static const uint64_t IV384[8] = {
    0xcbbb9d5dc1059ed8ull, 0x629a292a367cd507ull, 0x9159015a3070dd17ull, 0x152fecd8f70e5939ull,
    0x67332667ffc00b31ull, 0x8eb44a8768581511ull, 0xdb0c2e0d64f98fa7ull, 0x47b5481dbefa4fa4ull,
};
static const uint64_t IV512[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

#if !SHA2_ASM_256
/* K (§4.2.2): the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K256[64] SHA2_ROM = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};
#endif

#if !SHA2_ASM_512
/* K (§4.2.3): the first 64 bits of the fractional parts of the cube roots of the first 80 primes. */
static const uint64_t K512[80] SHA2_ROM = {
    0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
    0x3956c25bf348b538ull, 0x59f111f1b605d019ull, 0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull,
    0xd807aa98a3030242ull, 0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
    0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull, 0xc19bf174cf692694ull,
    0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, 0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull,
    0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
    0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full, 0xbf597fc7beef0ee4ull,
    0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull, 0x06ca6351e003826full, 0x142929670a0e6e70ull,
    0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
    0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull, 0x92722c851482353bull,
    0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull, 0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
    0xd192e819d6ef5218ull, 0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
    0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull, 0x34b0bcb5e19b48a8ull,
    0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull, 0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull,
    0x748f82ee5defb2fcull, 0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
    0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull, 0xc67178f2e372532bull,
    0xca273eceea26619cull, 0xd186b8c721c0c207ull, 0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull,
    0x06f067aa72176fbaull, 0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
    0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull, 0x431d67c49c100d4cull,
    0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull, 0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};
#if defined(__AVR__)
static uint64_t k512_at(uint8_t t)
{
    uint64_t k;
    memcpy_P(&k, &K512[t], sizeof k);
    return k;
}
#endif
#endif

/* --------------------------------------------------------------------------------- byte order */

#if !SHA2_ASM_256 || !SHA2_ASM_512   /* read by the C block functions only */
static uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
#endif

static void store_be32(uint8_t *p, uint32_t x)
{
    p[0] = (uint8_t)(x >> 24);
    p[1] = (uint8_t)(x >> 16);
    p[2] = (uint8_t)(x >> 8);
    p[3] = (uint8_t)x;
}

static void store_be64(uint8_t *p, uint64_t x)
{
    store_be32(p, (uint32_t)(x >> 32));
    store_be32(p + 4, (uint32_t)x);
}

/* Zero bytes [from, to) of a block (to a multiple of 4): bytes up to a word boundary, then words (the
 * board's memset, like any freestanding one here, goes a byte at a time). */
static void zero_block(uint8_t *b, uint32_t *w, size_t from, size_t to)
{
    for (; (from & 3) != 0 && from < to; from++) {
        b[from] = 0;
    }
    for (from /= 4; from < to / 4; from++) {
        w[from] = 0;
    }
}

/* Wipe a context (the sizes are multiples of 8 bytes and the contexts word aligned: they hold uint64_t
 * counts): two word stores an iteration through a volatile pointer, then the same memory clobber as
 * mcu_wipe. mcu_wipe goes a byte at a time (about 4 cycles a byte on the M3: 416 for a SHA-256 context,
 * 544 for an HMAC one); this is about 1.5 cycles a byte. */
static void wipe_ctx(void *p, size_t n)
{
    volatile uint32_t *v = (volatile uint32_t *)p;
    for (n /= 8; n > 0; n--, v += 2) {
        v[0] = 0;
        v[1] = 0;
    }
#if defined(__GNUC__)
    __asm__ __volatile__("" : : "r"(p) : "memory");
#endif
}

/* K0 = the key (keylen <= the block) into the zeroed block buffer: whole words first on little-endian
 * targets (the buffer's word i holds bytes 4i..4i+3 in memory order), then the bytes left. The boards'
 * memcpy goes a byte at a time (-fno-builtin): about 6 cycles a byte on the M3, 2 a byte here. */
static void copy_key(uint8_t *b, uint32_t *w, const uint8_t *key, size_t keylen)
{
    size_t i = 0;
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 4 <= keylen; i += 4) {
        w[i / 4] = (uint32_t)key[i] | ((uint32_t)key[i + 1] << 8) | ((uint32_t)key[i + 2] << 16) |
                   ((uint32_t)key[i + 3] << 24);
    }
#else
    (void)w;
#endif
    for (; i < keylen; i++) {
        b[i] = key[i];
    }
}

/* ----------------------------------------------------------------------------- block functions */

#if !SHA2_ASM_256
#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

void MCU_FN(sha256, blocks)(uint32_t state[8], const uint8_t *in, size_t nblocks)
{
    uint32_t w[16];
    for (; nblocks > 0; nblocks--, in += SHA256_BLOCK_BYTES) {
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (uint8_t t = 0; t < 64; t++) {
            uint32_t wt;
            if (t < 16) {
                wt = load_be32(in + 4 * t);
            } else {
                /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], in the slot of W[t-16] */
                uint32_t w2 = w[(t - 2) & 15], w15 = w[(t - 15) & 15];
                wt = w[t & 15] + (ROR32(w2, 17) ^ ROR32(w2, 19) ^ (w2 >> 10)) + w[(t - 7) & 15] +
                     (ROR32(w15, 7) ^ ROR32(w15, 18) ^ (w15 >> 3));
            }
            w[t & 15] = wt;
            uint32_t t1 = h + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) + ((e & f) ^ (~e & g)) + K256_AT(t) + wt;
            uint32_t t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
    mcu_wipe(w, sizeof w);
}
#endif

#if !SHA2_ASM_512
#define ROR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

static uint64_t load_be64(const uint8_t *p)
{
    return ((uint64_t)load_be32(p) << 32) | load_be32(p + 4);
}

void MCU_FN(sha512, blocks)(uint64_t state[8], const uint8_t *in, size_t nblocks)
{
    uint64_t w[16];
    for (; nblocks > 0; nblocks--, in += SHA512_BLOCK_BYTES) {
        uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (uint8_t t = 0; t < 80; t++) {
            uint64_t wt;
            if (t < 16) {
                wt = load_be64(in + 8 * t);
            } else {
                uint64_t w2 = w[(t - 2) & 15], w15 = w[(t - 15) & 15];
                wt = w[t & 15] + (ROR64(w2, 19) ^ ROR64(w2, 61) ^ (w2 >> 6)) + w[(t - 7) & 15] +
                     (ROR64(w15, 1) ^ ROR64(w15, 8) ^ (w15 >> 7));
            }
            w[t & 15] = wt;
            uint64_t t1 = h + (ROR64(e, 14) ^ ROR64(e, 18) ^ ROR64(e, 41)) + ((e & f) ^ (~e & g)) + K512_AT(t) + wt;
            uint64_t t2 = (ROR64(a, 28) ^ ROR64(a, 34) ^ ROR64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
    mcu_wipe(w, sizeof w);
}
#endif

/* ------------------------------------------------------------------------------- SHA-224/256 */

static void sha256_start(sha256_ctx_t *c, const uint32_t iv[8])
{
    for (uint8_t i = 0; i < 8; i++) {
        c->h[i] = iv[i];
    }
    c->count = 0;
}

/* Fill the partial block first; then whole blocks straight from the input; keep the rest. */
static void sha256_absorb(sha256_ctx_t *c, const uint8_t *in, size_t len)
{
    size_t fill = (size_t)c->count & (SHA256_BLOCK_BYTES - 1);
    c->count += len;
    if (fill != 0 && len > 0) {   /* (in may be NULL when len is 0) */
        size_t take = SHA256_BLOCK_BYTES - fill;
        if (take > len) {
            take = len;
        }
        memcpy(c->block.b + fill, in, take);
        in += take;
        len -= take;
        if (fill + take < SHA256_BLOCK_BYTES) {
            return;
        }
        MCU_FN(sha256, blocks)(c->h, c->block.b, 1);
    }
    if (len >= SHA256_BLOCK_BYTES) {
        MCU_FN(sha256, blocks)(c->h, in, len / SHA256_BLOCK_BYTES);
        in += len & ~(size_t)(SHA256_BLOCK_BYTES - 1);
        len &= SHA256_BLOCK_BYTES - 1;
    }
    if (len > 0) {   /* in may be NULL when inlen is 0 */
        memcpy(c->block.b, in, len);
    }
}

/* Pad and compress the last block(s): the digest is then h (the context is not wiped: finish does). */
static void sha256_pad(sha256_ctx_t *c)
{
    size_t fill = (size_t)c->count & (SHA256_BLOCK_BYTES - 1);
    c->block.b[fill++] = 0x80;
    if (fill > SHA256_BLOCK_BYTES - 8) {
        zero_block(c->block.b, c->block.w, fill, SHA256_BLOCK_BYTES);
        MCU_FN(sha256, blocks)(c->h, c->block.b, 1);
        fill = 0;
    }
    zero_block(c->block.b, c->block.w, fill, SHA256_BLOCK_BYTES - 8);
    store_be64(c->block.b + SHA256_BLOCK_BYTES - 8, c->count << 3);
    MCU_FN(sha256, blocks)(c->h, c->block.b, 1);
}

static void sha256_digest(const sha256_ctx_t *c, uint8_t *out, size_t outlen)
{
    for (size_t i = 0; i < outlen / 4; i++) {
        store_be32(out + 4 * i, c->h[i]);
    }
}

/* Pad, write outlen (28 or 32) bytes, wipe the context. */
static void sha256_finish(sha256_ctx_t *c, uint8_t *out, size_t outlen)
{
    sha256_pad(c);
    sha256_digest(c, out, outlen);
    wipe_ctx(c, sizeof *c);
}

static void sha256_oneshot(const uint32_t iv[8], uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    sha256_ctx_t c;
    sha256_start(&c, iv);
    sha256_absorb(&c, in, inlen);
    sha256_finish(&c, out, outlen);
}

/* ------------------------------------------------------------------------------- SHA-384/512 */

static void sha512_start(sha512_ctx_t *c, const uint64_t iv[8])
{
    for (uint8_t i = 0; i < 8; i++) {
        c->h[i] = iv[i];
    }
    c->count = 0;
}

static void sha512_absorb(sha512_ctx_t *c, const uint8_t *in, size_t len)
{
    size_t fill = (size_t)c->count & (SHA512_BLOCK_BYTES - 1);
    c->count += len;
    if (fill != 0 && len > 0) {   /* (in may be NULL when len is 0) */
        size_t take = SHA512_BLOCK_BYTES - fill;
        if (take > len) {
            take = len;
        }
        memcpy(c->block.b + fill, in, take);
        in += take;
        len -= take;
        if (fill + take < SHA512_BLOCK_BYTES) {
            return;
        }
        MCU_FN(sha512, blocks)(c->h, c->block.b, 1);
    }
    if (len >= SHA512_BLOCK_BYTES) {
        MCU_FN(sha512, blocks)(c->h, in, len / SHA512_BLOCK_BYTES);
        in += len & ~(size_t)(SHA512_BLOCK_BYTES - 1);
        len &= SHA512_BLOCK_BYTES - 1;
    }
    if (len > 0) {   /* in may be NULL when inlen is 0 */
        memcpy(c->block.b, in, len);
    }
}

/* The length field is 128 bits: the byte count's top three bits, then the count times 8. */
static void sha512_pad(sha512_ctx_t *c)
{
    size_t fill = (size_t)c->count & (SHA512_BLOCK_BYTES - 1);
    c->block.b[fill++] = 0x80;
    if (fill > SHA512_BLOCK_BYTES - 16) {
        zero_block(c->block.b, c->block.w, fill, SHA512_BLOCK_BYTES);
        MCU_FN(sha512, blocks)(c->h, c->block.b, 1);
        fill = 0;
    }
    zero_block(c->block.b, c->block.w, fill, SHA512_BLOCK_BYTES - 16);
    store_be64(c->block.b + SHA512_BLOCK_BYTES - 16, c->count >> 61);
    store_be64(c->block.b + SHA512_BLOCK_BYTES - 8, c->count << 3);
    MCU_FN(sha512, blocks)(c->h, c->block.b, 1);
}

static void sha512_digest(const sha512_ctx_t *c, uint8_t *out, size_t outlen)
{
    for (size_t i = 0; i < outlen / 8; i++) {
        store_be64(out + 8 * i, c->h[i]);
    }
}

static void sha512_finish(sha512_ctx_t *c, uint8_t *out, size_t outlen)
{
    sha512_pad(c);
    sha512_digest(c, out, outlen);
    wipe_ctx(c, sizeof *c);
}

static void sha512_oneshot(const uint64_t iv[8], uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
    sha512_ctx_t c;
    sha512_start(&c, iv);
    sha512_absorb(&c, in, inlen);
    sha512_finish(&c, out, outlen);
}

/* ------------------------------------------------------------------------------- public hashes */

/* The incremental functions take the caller's context as an opaque buffer (CTX_BYTES, 4-byte aligned:
 * every 64-bit access of this code is two word accesses on these cores), as the catalog declares it. */
#define CTX256(p) ((sha256_ctx_t *)(void *)(p))
#define CTX512(p) ((sha512_ctx_t *)(void *)(p))
#define HMAC256(p) ((hmacsha256_ctx_t *)(void *)(p))
#define HMAC512(p) ((hmacsha512_ctx_t *)(void *)(p))

int MCU_FN(sha224, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    sha256_oneshot(IV224, out, 28, in, (size_t)inlen);
    return 0;
}

void MCU_FN(sha224, init)(uint8_t *ctx)
{
    sha256_start(CTX256(ctx), IV224);
}

void MCU_FN(sha224, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sha256_absorb(CTX256(ctx), in, inlen);
}

void MCU_FN(sha224, final)(uint8_t *ctx, unsigned char *out)
{
    sha256_finish(CTX256(ctx), out, 28);
}

int MCU_FN(sha256, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    sha256_oneshot(IV256, out, 32, in, (size_t)inlen);
    return 0;
}

void MCU_FN(sha256, init)(uint8_t *ctx)
{
    sha256_start(CTX256(ctx), IV256);
}

void MCU_FN(sha256, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sha256_absorb(CTX256(ctx), in, inlen);
}

void MCU_FN(sha256, final)(uint8_t *ctx, unsigned char *out)
{
    sha256_finish(CTX256(ctx), out, 32);
}

int MCU_FN(sha384, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    sha512_oneshot(IV384, out, 48, in, (size_t)inlen);
    return 0;
}

void MCU_FN(sha384, init)(uint8_t *ctx)
{
    sha512_start(CTX512(ctx), IV384);
}

void MCU_FN(sha384, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sha512_absorb(CTX512(ctx), in, inlen);
}

void MCU_FN(sha384, final)(uint8_t *ctx, unsigned char *out)
{
    sha512_finish(CTX512(ctx), out, 48);
}

int MCU_FN(sha512, hash)(unsigned char *out, const unsigned char *in, unsigned long long inlen)
{
    sha512_oneshot(IV512, out, 64, in, (size_t)inlen);
    return 0;
}

void MCU_FN(sha512, init)(uint8_t *ctx)
{
    sha512_start(CTX512(ctx), IV512);
}

void MCU_FN(sha512, update)(uint8_t *ctx, const unsigned char *in, size_t inlen)
{
    sha512_absorb(CTX512(ctx), in, inlen);
}

void MCU_FN(sha512, final)(uint8_t *ctx, unsigned char *out)
{
    sha512_finish(CTX512(ctx), out, 64);
}

/* ------------------------------------------------------------------------------------------ HMAC */

/* The generic HMAC over one SHA-2 family. mac_init builds K0 in the context's own block buffer (a word at
 * a time), compresses IV || K0 ^ ipad as the inner hash's first block and IV || K0 ^ opad as the outer
 * chaining state, and zeroes the buffer again: the context keeps no key bytes. The finish puts the inner
 * digest straight into the block buffer behind the outer state (count = block + digest) and pads: no
 * scratch buffers, one wipe of the context at the end. */
#define IPAD 0x36363636u
#define OPAD 0x5c5c5c5cu

#define HMAC_KEYING(fam, BLOCK, DIGEST, IV)                                                            \
    static void hmac##fam##_init(hmacsha##fam##_ctx_t *c, const uint8_t *key, size_t keylen)          \
    {                                                                                                  \
        uint8_t *k0 = c->inner.block.b;                                                                \
        uint32_t *w = c->inner.block.w;                                                                \
        zero_block(k0, w, 0, BLOCK);                                                                   \
        if (keylen > BLOCK) {                                                                          \
            sha##fam##_oneshot(IV, k0, DIGEST, key, keylen);                                           \
        } else if (keylen > 0) {   /* key may be NULL when keylen is 0 */                              \
            copy_key(k0, w, key, keylen);                                                              \
        }                                                                                              \
        for (uint8_t i = 0; i < BLOCK / 4; i++) {                                                      \
            w[i] ^= IPAD;                                                                              \
        }                                                                                              \
        sha##fam##_start(&c->inner, IV);                                                               \
        MCU_FN(sha##fam, blocks)(c->inner.h, k0, 1);                                                   \
        c->inner.count = BLOCK;                                                                        \
        for (uint8_t i = 0; i < BLOCK / 4; i++) {                                                      \
            w[i] ^= IPAD ^ OPAD;                                                                       \
        }                                                                                              \
        for (uint8_t i = 0; i < 8; i++) {                                                              \
            c->outer[i] = IV[i];                                                                       \
        }                                                                                              \
        MCU_FN(sha##fam, blocks)(c->outer, k0, 1);                                                     \
        zero_block(k0, w, 0, BLOCK);                                                                   \
    }                                                                                                  \
                                                                                                       \
    /* Inner digest into the block buffer, then the outer hash from its saved state. */               \
    static void hmac##fam##_finish(hmacsha##fam##_ctx_t *c, uint8_t *tag)                             \
    {                                                                                                  \
        sha##fam##_pad(&c->inner);                                                                     \
        sha##fam##_digest(&c->inner, c->inner.block.b, DIGEST);                                        \
        for (uint8_t i = 0; i < 8; i++) {                                                              \
            c->inner.h[i] = c->outer[i];                                                               \
        }                                                                                              \
        c->inner.count = BLOCK + DIGEST;                                                               \
        sha##fam##_pad(&c->inner);                                                                     \
        sha##fam##_digest(&c->inner, tag, DIGEST);                                                     \
        wipe_ctx(c, sizeof *c);                                                                        \
    }

/* The one-shot and the API over a family's init and finish. */
#define HMAC_ONESHOT(fam)                                                                              \
    static void hmac##fam##_oneshot(uint8_t *tag, const uint8_t *key, size_t keylen, const uint8_t *in, \
                                    size_t inlen)                                                      \
    {                                                                                                  \
        hmacsha##fam##_ctx_t c;                                                                        \
        hmac##fam##_init(&c, key, keylen);                                                             \
        sha##fam##_absorb(&c.inner, in, inlen);                                                        \
        hmac##fam##_finish(&c, tag);                                                                   \
    }

#define HMAC_API(fam, DIGEST)                                                                          \
    void MCU_FN(hmacsha##fam, mac)(uint8_t *out, const uint8_t *key, size_t keylen, const uint8_t *in, \
                                   size_t inlen)                                                       \
    {                                                                                                  \
        hmac##fam##_oneshot(out, key, keylen, in, inlen);                                              \
    }                                                                                                  \
                                                                                                       \
    void MCU_FN(hmacsha##fam, mac_init)(uint8_t *ctx, const uint8_t *key, size_t keylen)              \
    {                                                                                                  \
        hmac##fam##_init(HMAC##fam(ctx), key, keylen);                                                 \
    }                                                                                                  \
                                                                                                       \
    void MCU_FN(hmacsha##fam, mac_update)(uint8_t *ctx, const uint8_t *in, size_t inlen)              \
    {                                                                                                  \
        sha##fam##_absorb(&HMAC##fam(ctx)->inner, in, inlen);                                          \
    }                                                                                                  \
                                                                                                       \
    void MCU_FN(hmacsha##fam, mac_final)(uint8_t *ctx, uint8_t *out)                                  \
    {                                                                                                  \
        hmac##fam##_finish(HMAC##fam(ctx), out);                                                       \
    }                                                                                                  \
                                                                                                       \
    /* 0 when the first taglen bytes of the tag match (4 <= taglen <= DIGEST, SP 800-107's 32-bit   \
     * floor; other lengths are refused with -1, a public decision): every byte is compared, the     \
     * differences OR-ed, and only the verdict leaves through mcu_declassify. */                      \
    int MCU_FN(hmacsha##fam, verify)(const uint8_t *tag, size_t taglen, const uint8_t *key, size_t keylen, \
                                     const uint8_t *in, size_t inlen)                                  \
    {                                                                                                  \
        uint8_t want[DIGEST];                                                                          \
        uint32_t diff = 0;                                                                             \
        if (taglen < 4 || taglen > DIGEST) {                                                           \
            return -1;                                                                                 \
        }                                                                                              \
        hmac##fam##_oneshot(want, key, keylen, in, inlen);                                             \
        for (size_t i = 0; i < taglen; i++) {                                                          \
            diff |= (uint32_t)(want[i] ^ tag[i]);                                                      \
        }                                                                                              \
        mcu_wipe(want, sizeof want);                                                                   \
        /* diff in 0..255: diff - 1 borrows into bit 8 exactly when diff is 0 */                       \
        uint32_t ok = mcu_declassify(((diff - 1u) >> 8) & 1u);                                         \
        return (int)ok - 1;                                                                            \
    }

#if SHA2_ASM_HMAC256
/* HMAC-SHA256 on the implementation's one-block entries (contract in sha2.h). Everything around the five
 * compressions of a short MAC is straight word stores, so the entries are what costs:
 * - K0 is built once in the block buffer (key words by unaligned-safe 4-byte copies) and compressed
 *   as K0 ^ ipad and K0 ^ opad by block_ipad / block_opad themselves: no pad buffer, no XOR passes;
 * - a message of whole blocks (the count a multiple of 64) gets its padding block as native words
 *   (0x80000000, zeros, the bit length) through block_words: no bytes to zero and turn around;
 * - the outer block is the inner state's words as they are, then its padding words (block_words):
 *   the inner digest is never stored as big-endian bytes to be read back;
 * - the loops are unrolled (GCC's pragma: -O2 keeps 8- and 16-word loops as loops, whose branch and
 *   index cost more than their one-cycle stores on the M3).
 * The context layout is the generic one: the incremental API is unchanged. */
#if defined(__GNUC__) && __GNUC__ >= 8   /* the unroll pragma exists from GCC 8 */
#define HMAC_UNROLL _Pragma("GCC unroll 64")
#else
#define HMAC_UNROLL
#endif

static void zero_words(uint32_t *w, uint8_t n)
{
    HMAC_UNROLL
    for (uint8_t i = 0; i < n; i++) {
        w[i] = 0;
    }
}

/* K0 = SHA-256(key) for a key longer than the block: out of line, so that the hash context it needs is
 * on the stack only for such keys. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void hmac256_hash_key(uint8_t *k0, const uint8_t *key, size_t keylen)
{
    sha256_oneshot(IV256, k0, 32, key, keylen);
}

/* IV, K0 into the block buffer, the two key blocks; K0 stays in the buffer (the callers zero it or
 * overwrite it). */
static void hmac256_key_blocks(hmacsha256_ctx_t *c, const uint8_t *key, size_t keylen)
{
    uint8_t *k0 = c->inner.block.b;
    uint32_t *w = c->inner.block.w;
    zero_words(w, 16);
    if (keylen > SHA256_BLOCK_BYTES) {
        hmac256_hash_key(k0, key, keylen);
    } else if (keylen > 0) {   /* key may be NULL when keylen is 0 */
        size_t i = 0;
        for (; i + 16 <= keylen; i += 16) {
            memcpy(&w[i / 4], key + i, 16);  /* four loads in a burst, four stores */
        }
        for (; i + 4 <= keylen; i += 4) {
            memcpy(&w[i / 4], key + i, 4);   /* one (unaligned) word load and store */
        }
        for (; i < keylen; i++) {
            k0[i] = key[i];
        }
    }
    HMAC_UNROLL
    for (uint8_t i = 0; i < 8; i++) {
        c->inner.h[i] = IV256[i];
        c->outer[i] = IV256[i];
    }
    MCU_FN(sha256, block_ipad)(c->inner.h, k0);
    MCU_FN(sha256, block_opad)(c->outer, k0);
    c->inner.count = SHA256_BLOCK_BYTES;
}

static void hmac256_init(hmacsha256_ctx_t *c, const uint8_t *key, size_t keylen)
{
    hmac256_key_blocks(c, key, keylen);
    zero_words(c->inner.block.w, 16);      /* the context keeps no key bytes */
}

static void hmac256_finish(hmacsha256_ctx_t *c, uint8_t *tag)
{
    uint32_t *w = c->inner.block.w;
    uint64_t bits = c->inner.count << 3;
    if ((c->inner.count & (SHA256_BLOCK_BYTES - 1)) == 0) {   /* whole blocks: the padding block alone */
        w[0] = 0x80000000u;
        zero_words(w + 1, 13);
        w[14] = (uint32_t)(bits >> 32);
        w[15] = (uint32_t)bits;
        MCU_FN(sha256, block_words)(c->inner.h, w);
    } else {
        sha256_pad(&c->inner);
    }
    /* The outer block is the inner digest H0..H7 followed by its padding words: the context's h[8] and
     * the first 8 words of the block buffer behind it, read by block_words in place. */
    w[0] = 0x80000000u;                      /* padding: 0x80, zeros, the bit length of K0 || digest */
    zero_words(w + 1, 6);
    w[7] = (SHA256_BLOCK_BYTES + 32) * 8;
    MCU_FN(sha256, block_words)(c->outer, (const uint32_t *)(const void *)&c->inner);   /* h, then w */
    HMAC_UNROLL
    for (uint8_t i = 0; i < 8; i++) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint32_t be = __builtin_bswap32(c->outer[i]);   /* REV + one (unaligned) STR, not 4 STRBs */
        memcpy(tag + 4 * i, &be, 4);
#else
        store_be32(tag + 4 * i, c->outer[i]);
#endif
    }
    /* The wipe: wipe_ctx's volatile word stores (any type's bytes, never dropped), unrolled: 34 STRs. */
    volatile uint32_t *v = (volatile uint32_t *)(void *)c;
    HMAC_UNROLL
    for (uint8_t i = 0; i < sizeof *c / 4; i++) {
        v[i] = 0;
    }
#if defined(__GNUC__)
    __asm__ __volatile__("" : : "r"(c) : "memory");
#endif
}

/* The one-shot skips mac_init's zeroing of K0: the message's tail and the padding overwrite it before
 * the finish's wipe. */
static void hmac256_oneshot(uint8_t *tag, const uint8_t *key, size_t keylen, const uint8_t *in, size_t inlen)
{
    hmacsha256_ctx_t c;
    hmac256_key_blocks(&c, key, keylen);
    c.inner.count += inlen;                  /* sha256_absorb on an empty buffer: whole blocks, the tail */
    if (inlen >= SHA256_BLOCK_BYTES) {
        MCU_FN(sha256, blocks)(c.inner.h, in, inlen / SHA256_BLOCK_BYTES);
        in += inlen & ~(size_t)(SHA256_BLOCK_BYTES - 1);
    }
    inlen &= SHA256_BLOCK_BYTES - 1;
    if (inlen > 0) {
        memcpy(c.inner.block.b, in, inlen);
    }
    hmac256_finish(&c, tag);
}
#else
HMAC_KEYING(256, SHA256_BLOCK_BYTES, 32, IV256)
HMAC_ONESHOT(256)
#endif
HMAC_KEYING(512, SHA512_BLOCK_BYTES, 64, IV512)
HMAC_ONESHOT(512)
HMAC_API(256, 32)
HMAC_API(512, 64)

/* ------------------------------------------------------------------------------------ HKDF-SHA256 */

#define HKDF_HASH_BYTES 32
#define HKDF_MAX_OKM (255u * HKDF_HASH_BYTES)

/* PRK = HMAC-SHA256(salt, IKM); an empty salt is the 32 zero bytes RFC 5869 prescribes (HMAC pads
 * both to the same K0). */
void MCU_FN(hkdfsha256, extract)(uint8_t *prk, const uint8_t *salt, size_t saltlen, const uint8_t *ikm,
                                 size_t ikmlen)
{
    hmac256_oneshot(prk, salt, saltlen, ikm, ikmlen);
}

/* T(i) = HMAC(PRK, T(i-1) || info || i); the context after PRK's key blocks is made once and copied. */
int MCU_FN(hkdfsha256, expand)(uint8_t *okm, size_t okmlen, const uint8_t *prk, const uint8_t *info,
                               size_t infolen)
{
    hmacsha256_ctx_t keyed, c;
    uint8_t t[HKDF_HASH_BYTES];
    if (okmlen > HKDF_MAX_OKM) {
        return -1;
    }
    hmac256_init(&keyed, prk, HKDF_HASH_BYTES);
    for (uint8_t i = 1; okmlen > 0; i++) {
        size_t n = okmlen < HKDF_HASH_BYTES ? okmlen : HKDF_HASH_BYTES;
        for (uint8_t j = 0; j < 8; j++) {      /* the keyed state; its block buffer is empty */
            c.inner.h[j] = keyed.inner.h[j];
            c.outer[j] = keyed.outer[j];
        }
        c.inner.count = keyed.inner.count;
        if (i > 1) {
            sha256_absorb(&c.inner, t, HKDF_HASH_BYTES);
        }
        sha256_absorb(&c.inner, info, infolen);
        sha256_absorb(&c.inner, &i, 1);
        hmac256_finish(&c, t);
        memcpy(okm, t, n);
        okm += n;
        okmlen -= n;
    }
    wipe_ctx(&keyed, sizeof keyed);
    mcu_wipe(t, sizeof t);
    return 0;
}

int MCU_FN(hkdfsha256, hkdf)(uint8_t *okm, size_t okmlen, const uint8_t *salt, size_t saltlen,
                             const uint8_t *ikm, size_t ikmlen, const uint8_t *info, size_t infolen)
{
    uint8_t prk[HKDF_HASH_BYTES];
    if (okmlen > HKDF_MAX_OKM) {
        return -1;
    }
    MCU_FN(hkdfsha256, extract)(prk, salt, saltlen, ikm, ikmlen);
    int r = MCU_FN(hkdfsha256, expand)(okm, okmlen, prk, info, infolen);
    mcu_wipe(prk, sizeof prk);
    return r;
}
