// SPDX-License-Identifier: MIT
/* TinyJAMBU keyed permutation and block loop for the E31 (rv32-fast: RV32I; rv32-zbb: the same with
 * Zbb's XNOR taking the key as it is), every key size.
 *
 *   void mcu_<id>_<impl>_perm(uint32_t *state, const uint8_t *key, uint16_t steps)
 *   void mcu_<id>_<impl>_blocks(uint32_t *state, const uint8_t *key, uint16_t steps, uint8_t frame,
 *                               const uint8_t *in, uint8_t *out, uint16_t nblocks, uint8_t mode)
 * (tinyjambu_perm.h: the specification's state; steps a multiple of 128; blocks with TJ_ASM_BLOCKS=1.)
 *
 * 32 steps into word a from b, c, d: 14 instructions (RV32I has no funnel shift). With X = d:c as a
 * 64-bit value and H = X >> 15 (H_lo = F = c>>15 | d<<17, H_hi = u = d>>15), Z = X & H:
 *   t2 & t3 = low32(Z >> 6) = Z_lo >> 6 | (d & u) << 26,   t4 = low32(H >> 12) = F >> 12 | u << 20,
 * so  a ^= F_prev ^ (Z_lo ^ (F >> 6)) >> 6 ^ u << 20 ^ (d & u) << 26 ^ ~k.
 * F is also the next update's first tap (b>>15 | c<<17), and d>>15 is the next update's c>>15, which
 * makes F two instructions (SLLI, OR). The trick that saves the 15th: d & u (bits 0..16) is the low part
 * of the next update's Z_lo = d & (u | a_new << 17), so (d & u) << 26 = Z_lo' << 26 and the next update,
 * which computes Z_lo' anyway, adds it with SLLI + XOR instead of AND + SLLI + XOR here. That term only
 * touches bits 26..31 of a_new, and the next update reads a_new's bits 0..14 (for F') before adding it
 * and its bits 15..31 (for u') after. So between updates the word last written lacks its (c & (c>>15))
 * << 26, c being the word before it: the "pending" form. At 128k steps that word is s3 (and c = s2);
 * XOR-ing frame and data into s1/s3 and reading s2 commute with it, so the block loop stays pending from
 * its first block to its last (PEND_IN / PEND_OUT convert, 3-4 instructions per call). The NOT of the
 * NAND is folded into the key (~k formed once per call; with Zbb, XNOR does it for free).
 * Shifts by constants, AND, XOR, OR; branches only on the public step count, mode and pointer
 * alignment: constant time.
 *
 * Register map (internal routine tj_core_<name>, called with JAL by perm and blocks):
 *   t0-t3 state words s0..s3     t4 = F     t5 = u     t6, a1 = scratch     a2 = chunks (steps / 128)
 *   192/256: s0..s7 = (~)key words (6 or 8), return through ra;
 *   128: a3-a6 = (~)key words, return through a7 (so its perm is a leaf without a stack frame)
 *   (t3 is in the pending form inside the core and between block-loop iterations)
 *   blocks: a0 = state pointer, a3 = frame, a4 = in, a5 = out, a6 = nblocks, a7 = mode on entry (see BLOCKS)
 */
#include "mcucrypt/ns.h"
#include "../ref/tinyjambu_perm.h"

#if TJ_COMPLEMENTED_STATE != 0 || TJ_ASM_BLOCKS != 1
#error "rv32-fast/rv32-zbb works on the specification's state and supplies the block loop: TJ_COMPLEMENTED_STATE=0, TJ_ASM_BLOCKS=1"
#endif

.macro FUNC sym
    .section .text.\sym, "ax", @progbits
    .globl  \sym
    .type   \sym, @function
    .p2align 2
\sym:
.endm

.macro ENDFUNC sym
    .size   \sym, . - \sym
.endm

#define F t4
#define U t5
#define T1 t6
#define T2 a1

/* 32 steps into a; on entry F = b>>15 | c<<17, U = c>>15, and d lacks the previous update's deferred
 * term (c & U) << 26 (the "pending" form, see the header); on exit F = c>>15 | d<<17, U = d>>15, d is
 * exact and a lacks (d & U) << 26. 14 instructions. */
.macro UPD a, b, c, d, k
    xor     \a, \a, F
    slli    F, \d, 17                   // only d's bits 0..14: not touched by the pending term
    or      F, F, U
    and     T1, \c, F                   // Z_lo = c & F; its bits 0..16 are c & (c >> 15)
    slli    T2, T1, 26
    xor     \d, \d, T2                   // the previous update's deferred (c & U) << 26: d exact
    srli    U, \d, 15
    srli    T2, F, 6
    xor     T1, T1, T2
    srli    T1, T1, 6                   // (Z_lo >> 6) ^ (F >> 12)
    xor     \a, \a, T1
    slli    T2, U, 20                   // u << 20; (d & u) << 26 is deferred to the next update
    xor     \a, \a, T2
#ifdef __riscv_zbb
    xnor    \a, \a, \k
#else
    xor     \a, \a, \k
#endif
.endm

/* Into and out of the pending form of s3 (s3 ^= (s2 & (s2 >> 15)) << 26, an involution): PEND_IN before
 * the first core call on a state, PEND_OUT after the last one (there U = s2 >> 15 already). */
.macro PEND_IN
    srli    T1, t2, 15
    and     T1, T1, t2
    slli    T1, T1, 26
    xor     t3, t3, T1
.endm

.macro PEND_OUT
    and     T1, t2, U
    slli    T1, T1, 26
    xor     t3, t3, T1
.endm

.macro CHUNK k0, k1, k2, k3
    UPD     t0, t1, t2, t3, \k0
    UPD     t1, t2, t3, t0, \k1
    UPD     t2, t3, t0, t1, \k2
    UPD     t3, t0, t1, t2, \k3
.endm

/* F and U for the first update (b = s1, c = s2). */
.macro F_START
    srli    U, t2, 15
    slli    F, t2, 17
    srli    T1, t1, 15
    or      F, F, T1
.endm

/* The chunk sequence of one key size: the key pattern repeats every 1, 3 or 2 chunks. k0..k7 name the
 * registers holding key words 0..7. */
.macro CHUNK_N size, n, k0, k1, k2, k3, k4, k5, k6, k7
  .if \size == 128
    CHUNK   \k0, \k1, \k2, \k3
  .elseif \size == 192
    .if (\n % 3) == 0
    CHUNK   \k0, \k1, \k2, \k3
    .elseif (\n % 3) == 1
    CHUNK   \k4, \k5, \k0, \k1
    .else
    CHUNK   \k2, \k3, \k4, \k5
    .endif
  .else
    .if (\n % 2) == 0
    CHUNK   \k0, \k1, \k2, \k3
    .else
    CHUNK   \k4, \k5, \k6, \k7
    .endif
  .endif
.endm

/* tj_core_<name>: a2 chunks of 128 steps on t0-t3 with the key in k0..k7, returning through `link`.
 * P_640 (5 chunks) and P_large (8/9/10) run unrolled with one test after the fifth chunk (P_640 is tested
 * first: it is the shorter call, where a test costs most); other counts take the loop, whose body is one
 * key period (1, 3 or 2 chunks) with a test after each chunk. Clobbers a1, a2, t4-t6; leaves F and U
 * set for the state it returns (F_START's values). s3 (t3) in the pending form on entry and exit. */
.macro CORE size, large, name, link, k0, k1, k2, k3, k4=none, k5=none, k6=none, k7=none
    .section .text.tj_core_\name, "ax", @progbits
    .p2align 2
tj_core_\name:
    F_START
    addi    a2, a2, -5                  // zero for P_640
    beqz    a2, tj_core_\name\()_unrolled
    li      T1, \large - 5
    beq     a2, T1, tj_core_\name\()_unrolled
    addi    a2, a2, 5
    beqz    a2, 9f
2:
    CHUNK_N \size, 0, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
    addi    a2, a2, -1
    beqz    a2, 9f
  .if \size != 128
    CHUNK_N \size, 1, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
    addi    a2, a2, -1
    beqz    a2, 9f
  .endif
  .if \size == 192
    CHUNK_N \size, 2, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
    addi    a2, a2, -1
    beqz    a2, 9f
  .endif
    j       2b
/* The entry for P_640 and P_large only, with a2 = chunks - 5 and F, U already set (the block loop's,
 * which decides once: the core leaves F = s1>>15 | s2<<17 and U = s2>>15, exactly F_START's values, and
 * the frame bits XOR-ed into s1 between blocks, bits 4..6, are below s1 >> 15). */
tj_core_\name\()_unrolled:
    .set .Lchunk, 0
  .rept \large
    CHUNK_N \size, .Lchunk, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
    .set .Lchunk, .Lchunk + 1
    .if .Lchunk == 5
    beqz    a2, 9f
    .endif
  .endr
9:  jr      \link
.endm

/* The key words into s0..: word loads when the pointer is aligned, bytes otherwise (the E31 traps on a
 * misaligned LW); complemented on RV32I. */
.macro KEYWORD reg, off
    lbu     \reg, (\off + 3)(a1)
    lbu     T1, (\off + 2)(a1)
    slli    \reg, \reg, 8
    or      \reg, \reg, T1
    lbu     T1, (\off + 1)(a1)
    slli    \reg, \reg, 8
    or      \reg, \reg, T1
    lbu     T1, (\off)(a1)
    slli    \reg, \reg, 8
    or      \reg, \reg, T1
.endm

.macro LOAD_KEY nwords, regs:vararg
    andi    T1, a1, 3
    bnez    T1, 3f
    .set .Lkw, 0
  .irp r, \regs
    .if .Lkw < \nwords
    lw      \r, (4 * .Lkw)(a1)
    .endif
    .set .Lkw, .Lkw + 1
  .endr
4:
#ifndef __riscv_zbb
    .set .Lkw, 0
  .irp r, \regs
    .if .Lkw < \nwords
    not     \r, \r
    .endif
    .set .Lkw, .Lkw + 1
  .endr
#endif
.endm

/* The unaligned-key path of LOAD_KEY, placed out of line (after the function's RET) so that the aligned
 * case falls through without a jump. */
.macro LOAD_KEY_BYTES nwords, regs:vararg
3:
    .set .Lkw, 0
  .irp r, \regs
    .if .Lkw < \nwords
    KEYWORD \r, (4 * .Lkw)
    .endif
    .set .Lkw, .Lkw + 1
  .endr
    j       4b
.endm

/* Save ra and the key's s registers (frame of 48 bytes: ra, s0..s7, 16-byte aligned). */
.macro SAVE nwords
    addi    sp, sp, -48
    sw      ra, 44(sp)
    .set .Lkw, 0
  .irp r, s0, s1, s2, s3, s4, s5, s6, s7
    .if .Lkw < \nwords
    sw      \r, (4 * .Lkw)(sp)
    .endif
    .set .Lkw, .Lkw + 1
  .endr
.endm

.macro RESTORE nwords
    lw      ra, 44(sp)
    .set .Lkw, 0
  .irp r, s0, s1, s2, s3, s4, s5, s6, s7
    .if .Lkw < \nwords
    lw      \r, (4 * .Lkw)(sp)
    .endif
    .set .Lkw, .Lkw + 1
  .endr
    addi    sp, sp, 48
.endm

.macro LOAD_STATE
    lw      t0, 0(a0)
    lw      t1, 4(a0)
    lw      t2, 8(a0)
    lw      t3, 12(a0)
.endm

.macro STORE_STATE
    sw      t0, 0(a0)
    sw      t1, 4(a0)
    sw      t2, 8(a0)
    sw      t3, 12(a0)
.endm

.macro PERM size, nwords
    SAVE    \nwords
    LOAD_STATE
    PEND_IN
    LOAD_KEY \nwords, s0, s1, s2, s3, s4, s5, s6, s7
    srli    a2, a2, 7
    jal     tj_core_\size
    PEND_OUT
    STORE_STATE
    RESTORE \nwords
    ret
    LOAD_KEY_BYTES \nwords, s0, s1, s2, s3, s4, s5, s6, s7
.endm

/* TinyJAMBU-128's permutation needs no stack: its four key words fit in a3-a6 and its core returns
 * through a7, so nothing callee-saved is touched (12 instructions of SAVE/RESTORE less per call; its
 * block loop moves its own arguments to s0-s6 instead). */
.macro PERM128_LEAF
    LOAD_STATE
    PEND_IN
    LOAD_KEY 4, a3, a4, a5, a6
    srli    a2, a2, 7
    jal     a7, tj_core_128
    PEND_OUT
    STORE_STATE
    ret
    LOAD_KEY_BYTES 4, a3, a4, a5, a6
.endm

/* One little-endian word from any address (bytes: the E31 traps on a misaligned LW). */
.macro LOADW_ANY rd, base
    lbu     \rd, 3(\base)
    lbu     T1, 2(\base)
    slli    \rd, \rd, 8
    or      \rd, \rd, T1
    lbu     T1, 1(\base)
    slli    \rd, \rd, 8
    or      \rd, \rd, T1
    lbu     T1, 0(\base)
    slli    \rd, \rd, 8
    or      \rd, \rd, T1
.endm

.macro STOREW_ANY rs, base
    sb      \rs, 0(\base)
    srli    T1, \rs, 8
    sb      T1, 1(\base)
    srli    T1, \rs, 16
    sb      T1, 2(\base)
    srli    T1, \rs, 24
    sb      T1, 3(\base)
.endm

/* blocks: per block  s1 ^= frame, P_steps, then by mode (public): absorb s3 ^= w; encrypt s3 ^= w,
 * out = w ^ s2; decrypt out = w ^ s2, s3 ^= out. Encryption is the fall-through path. Message words
 * move with LW/SW when both buffers are word-aligned (the flag `al`, tested per block: a public,
 * always-predicted branch), bytewise otherwise (the E31 traps on a misaligned LW).
 * Per block besides the 32 x chunks updates: 15 instructions (TinyJAMBU-128, aligned): the core is
 * entered through a register (`en`), chosen once per call: its unrolled entry for P_640/P_large, which
 * skips the step-count tests and F_START (F and U carry over from the previous block); the mode is
 * biased by -1 so that encryption is one BNEZ.
 * Registers: fr = frame, in, out, nb = the end of the input (from the block count; blocks >= 1),
 * md = mode - 1, ch = chunks per block, or chunks - 5 for the unrolled entry (`stack`: kept at 40(sp)
 * and reloaded), al = alignment flag, en = the core's entry (`stack`: at 32(sp), reloaded into a1); the
 * state pointer a0 is parked at 36(sp); link = the core's return register, then the key registers. */
.macro BLOCKS size, large, nsave, link, fr, in, out, nb, md, ch, al, en, k0, k1, k2, k3, k4=none, k5=none, k6=none, k7=none
    SAVE    \nsave
  .ifnc \fr, a3
    mv      \fr, a3
    mv      \in, a4
    mv      \out, a5
    mv      \nb, a6
    mv      \md, a7
  .endif
    LOAD_STATE
    PEND_IN                             // s3 stays pending from block to block (XOR-ing data in commutes)
    sw      a0, 36(sp)                  // a0 becomes `al` or `en`
    LOAD_KEY \size / 32, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
    srli    a2, a2, 7
    la      a1, tj_core_\size           // the core's entry, chosen once: the unrolled one (with
    addi    T1, a2, -5                  // chunks - 5) for P_640 and P_large, the general one otherwise
    beqz    T1, 14f
    addi    T1, a2, -\large
    bnez    T1, 15f
14: la      a1, tj_core_\size\()_unrolled
    addi    a2, a2, -5
15:
  .ifc \en, stack
    sw      a1, 32(sp)
  .else
    mv      \en, a1
  .endif
    addi    \md, \md, -1                // encrypt 0, decrypt 1, absorb -1
    F_START                             // for the unrolled entry; kept from block to block
  .ifc \ch, stack
    sw      a2, 40(sp)
  .else
    mv      \ch, a2
  .endif
    or      \al, \in, \out
    andi    \al, \al, 3
    slli    \nb, \nb, 2                 // nb becomes the end of the input: one test a block
    add     \nb, \nb, \in
5:
  .ifc \en, stack
    lw      a1, 32(sp)
  .endif
    xor     t1, t1, \fr
  .ifc \ch, stack
    lw      a2, 40(sp)
  .else
    mv      a2, \ch
  .endif
  .ifc \en, stack
    jalr    \link, 0(a1)
  .else
    jalr    \link, 0(\en)
  .endif
    bnez    \al, 13f
    lw      a1, 0(\in)
10: addi    \in, \in, 4
    bnez    \md, 6f
    xor     t3, t3, a1                  // encrypt
    xor     a1, a1, t2
7:  bnez    \al, 11f
    sw      a1, 0(\out)
12: addi    \out, \out, 4
8:  bne     \in, \nb, 5b
    lw      a0, 36(sp)
    PEND_IN                             // (an involution: back to the exact s3)
    STORE_STATE
    RESTORE \nsave
    ret
6:  bgtz    \md, 1f
    xor     t3, t3, a1                  // absorb
    j       8b
1:  xor     a1, a1, t2                  // decrypt
    xor     t3, t3, a1
    j       7b
13: LOADW_ANY a1, \in
    j       10b
11: STOREW_ANY a1, \out
    j       12b
    LOAD_KEY_BYTES \size / 32, \k0, \k1, \k2, \k3, \k4, \k5, \k6, \k7
.endm

CORE 128, 8, 128, a7, a3, a4, a5, a6
CORE 192, 9, 192, ra, s0, s1, s2, s3, s4, s5
CORE 256, 10, 256, ra, s0, s1, s2, s3, s4, s5, s6, s7

FUNC MCU_FN(tinyjambu128, perm)
    PERM128_LEAF
ENDFUNC MCU_FN(tinyjambu128, perm)

FUNC MCU_FN(tinyjambu192, perm)
    PERM    192, 6
ENDFUNC MCU_FN(tinyjambu192, perm)

FUNC MCU_FN(tinyjambu256, perm)
    PERM    256, 8
ENDFUNC MCU_FN(tinyjambu256, perm)

FUNC MCU_FN(tinyjambu128, blocks)
    BLOCKS  128, 8, 7, a7, s0, s1, s2, s3, s4, s5, s6, a0, a3, a4, a5, a6
ENDFUNC MCU_FN(tinyjambu128, blocks)

FUNC MCU_FN(tinyjambu192, blocks)
    BLOCKS  192, 9, 6, ra, a3, a4, a5, a6, a7, stack, a0, stack, s0, s1, s2, s3, s4, s5
ENDFUNC MCU_FN(tinyjambu192, blocks)

FUNC MCU_FN(tinyjambu256, blocks)
    BLOCKS  256, 10, 8, ra, a3, a4, a5, a6, a7, stack, a0, stack, s0, s1, s2, s3, s4, s5, s6, s7
ENDFUNC MCU_FN(tinyjambu256, blocks)
