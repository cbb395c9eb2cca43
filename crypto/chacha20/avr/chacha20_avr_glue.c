// SPDX-License-Identifier: MIT
/* ChaCha20 (RFC 8439) for the 8-bit AVR (avr-fast): the state set-up and the stream loop in C around the
 * generated assembly core (chacha20_avr.S: 20 rounds, then in mode 1 the feed-forward).
 *
 * block: the initial state on the stack, one core call writing the key-stream block straight to out.
 * xor: one initial state for the whole call, the counter word incremented per block; whole blocks are
 * encrypted by the core (mode 2: feed-forward and XOR with the message in the assembly) when message and
 * output do not overlap; a tail, or every block of an in-place call, through a key-stream block on the
 * stack. The AVR is little-endian like ChaCha's words,
 * so key, nonce and the state are plain byte copies. Branches depend on the length only: constant time.
 * (permute, the 20 rounds alone, is an entry of the assembly.) */
#include <stddef.h>
#include <stdint.h>

#include "mcucrypt/ns.h"
#include "../ref/chacha20.h"

void MCU_FN(chacha20, core)(uint8_t *out, const uint32_t *in, uint8_t mode, const uint8_t *msg);

static void setup(uint32_t init[16], const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    init[0] = 0x61707865u; /* "expand 32-byte k" */
    init[1] = 0x3320646eu;
    init[2] = 0x79622d32u;
    init[3] = 0x6b206574u;
    __builtin_memcpy(&init[4], key, 32);
    init[12] = counter;
    __builtin_memcpy(&init[13], nonce, 12);
}

void MCU_FN(chacha20, block)(uint8_t *out, const uint8_t *key, const uint8_t *nonce, uint32_t counter)
{
    uint32_t init[16];
    setup(init, key, nonce, counter);
    MCU_FN(chacha20, core)(out, init, 1, NULL);
}

int MCU_FN(chacha20, xor)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t *key, const uint8_t *nonce,
                          uint32_t counter)
{
    uint32_t init[16];
    if (chacha20_counter_wraps(len, counter))
        return -1;                              /* nothing written: the key stream would repeat */
    setup(init, key, nonce, counter);
    /* the core works in out, so mode 2 needs a message that does not overlap it (addresses are public) */
    const uintptr_t o = (uintptr_t)out, m = (uintptr_t)in;
    const int apart = o + len <= m || m + len <= o;
    while (len >= 64 && apart) {
        MCU_FN(chacha20, core)(out, init, 2, in);   /* out = in ^ key stream, in the assembly */
        init[12]++;
        in += 64;
        out += 64;
        len -= 64;
    }
    while (len > 0) {                               /* a tail, or overlapping buffers */
        uint8_t ks[64];
        MCU_FN(chacha20, core)(ks, init, 1, NULL);
        const uint8_t n = len < 64 ? (uint8_t)len : 64;
        for (uint8_t i = 0; i < n; i++) {
            out[i] = (uint8_t)(in[i] ^ ks[i]);
        }
        init[12]++;
        in += n;
        out += n;
        len -= n;
    }
    return 0;
}
