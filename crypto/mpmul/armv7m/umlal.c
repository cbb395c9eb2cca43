// SPDX-License-Identifier: MIT
/* cm3-umlal-ct: constant-time multi-precision multiplication for the Cortex-M3, 256 to 2048 bits.
 *
 * 256 bits is the generated UMLAL kernel of umlal_ct.S (radix-2^29 limbs offset into the slow class).
 * Each doubling above it is one level of *additive* Karatsuba (umlal_kara.S): z1 = (A0 + A1)(B0 + B1)
 * takes operands one bit longer per level, which the kernel's 261-bit limb form absorbs
 * (mpmul_cm3_umlal_k8x: 8 words plus a top word, 17-word product), so the levels need no absolute
 * differences and no signs.
 *
 * Constant time: the recursion, every loop bound, every address and the one branch (does this
 * operand carry a top word) depend on the length only.
 *
 * Scratch: a level at n = 2h words uses 4h + 3 words of t (the two sums and z1) and hands the rest to
 * the level below: 67 and 198 words at 1024 and 2048 bits, on the stack (the 512-bit level, k16, keeps
 * its 35 in its own frame). */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"

/* r[0..16) = a[0..8) * b[0..8) (umlal_ct.S; also the mpmul256 entry). */
void mpmul_cm3_umlal_k8(uint32_t *r, const uint32_t *a, const uint32_t *b);
/* r[0..17) = a[0..9) * b[0..9), a[8], b[8] below 2^4 (umlal_ct.S). */
void mpmul_cm3_umlal_k8x(uint32_t *r, const uint32_t *a, const uint32_t *b);
/* r[0..32) = a[0..16) * b[0..16): one Karatsuba level over the kernels, unrolled (umlal_ct.S; also
 * the mpmul512 entry); k16x: a[16], b[16] top words below 2^3, 33-word product. */
void mpmul_cm3_umlal_k16(uint32_t *r, const uint32_t *a, const uint32_t *b);
void mpmul_cm3_umlal_k16x(uint32_t *r, const uint32_t *a, const uint32_t *b);
/* s[0..h] = x[0..h) + y[0..h) + ytop * 2^(32h) (umlal_kara.S). */
void mpmul_cm3_umlal_sum(uint32_t *s, const uint32_t *x, const uint32_t *y, size_t h, uint32_t ytop);
/* r[0..4h+e) = z0 + (z1 - z0 - z2) W^h + z2 W^2h, z0 = r[0..2h), z2 = r[2h..4h+e) (umlal_kara.S). */
void mpmul_cm3_umlal_combine(uint32_t *r, uint32_t *z1, size_t h, uint32_t e);

void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);
void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b);

/* r[0..2n+e) = a * b, a and b n words (n = 32, 64) plus, when e, a top word a[n], b[n] (the
 * Karatsuba sums: below 2^3 at 2048 bits). t: scratch for this level and the ones below. */
static void mulx(uint32_t *r, const uint32_t *a, const uint32_t *b, size_t n, uint32_t e, uint32_t *t)
{
    size_t h = n / 2;
    uint32_t *sa = t, *sb = t + h + 1, *z1 = t + 2 * h + 2, *below = t + 4 * h + 3;

    mpmul_cm3_umlal_sum(sa, a, a + h, h, e ? a[n] : 0);
    mpmul_cm3_umlal_sum(sb, b, b + h, h, e ? b[n] : 0);
    if (h == 16) {                                   /* the 512-bit level: no recursion frame */
        mpmul_cm3_umlal_k16x(z1, sa, sb);
        mpmul_cm3_umlal_k16(r, a, b);
        if (e)
            mpmul_cm3_umlal_k16x(r + 2 * h, a + h, b + h);
        else
            mpmul_cm3_umlal_k16(r + 2 * h, a + h, b + h);
    } else {
        mulx(z1, sa, sb, h, 1, below);               /* z1 = (A0 + A1)(B0 + B1), 2h + 1 words */
        mulx(r, a, b, h, 0, below);                  /* z0 = A0 B0 into r[0..2h) */
        mulx(r + 2 * h, a + h, b + h, h, e, below);  /* z2 = A1 B1 into r[2h..4h+e) */
    }
    mpmul_cm3_umlal_combine(r, z1, h, e);
}

void MCU_FN(mpmul1024, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[67];
    mulx(r, a, b, 32, 0, t);
}

void MCU_FN(mpmul2048, mul)(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[198];
    mulx(r, a, b, 64, 0, t);
}
