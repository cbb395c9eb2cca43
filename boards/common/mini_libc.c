// SPDX-License-Identifier: MIT
/* The few libc functions GCC may emit calls to in freestanding code (struct copies, zeroing).
 * Byte loops on purpose: their timing must not depend on data, and implementations that care about
 * speed do not call them. `used`: under -flto, GCC emits these calls after the link has resolved
 * symbols, so an LTO'd definition nothing referenced yet would otherwise be dropped (undefined memset). */
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

__attribute__((used)) void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

__attribute__((used)) void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--) {
            *d++ = *s++;
        }
    } else {
        while (n--) {
            d[n] = s[n];
        }
    }
    return dst;
}

__attribute__((used)) void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--) {
        *d++ = (unsigned char)c;
    }
    return dst;
}
