// SPDX-License-Identifier: MIT
/* MCU_STACK_WIPE: the public entry points that wipe the stack their call used (docs/constant-time.md,
 * "Stack hygiene"). Assembly only: included by the generated mcu_stack_wipe_<unit>.S, which holds one
 * macro call per public function of an implementation.
 *
 * With MCU_STACK_WIPE nonzero, mcucrypt/ns.h names every routine mcu_<id>_<impl>_<op>_unwiped; the
 * public name mcu_<id>_<impl>_<op> is then one of:
 *
 *   MCU_WIPE_WRAP name, body, depth, args   for a function that handles secrets:
 *       void name(...)  { body(...); zero the `depth` bytes below the caller's stack pointer; }
 *     It calls `body` with the same arguments (registers untouched; the `args` bytes of stack-passed
 *     arguments copied below its own frame, where `body` looks for them), then, back at the stack pointer
 *     its caller had, stores zeros over the `depth` bytes below it: the wrapper's own frame and every
 *     frame `body` and its callees had, whose depth the generator took from the measured stack use of
 *     `body` (crypto/common/stack_depth.json, plus its margin). The return value registers (a0/a1, r0/r1,
 *     r18..r25) are left as `body` set them; only caller-saved scratch registers are used.
 *     It writes only below the stack pointer, where an interrupt may push at any time: an interrupt that
 *     arrives during the wipe finds nothing there that it relies on, and the wipe goes on below its frame
 *     once it has returned.
 *   MCU_WIPE_JUMP name, body                for a function that handles nothing secret: a tail jump.
 *
 * Register and cost per target (depth and args multiples of 16 on rv32; depth - 8 of 32 and args of 8
 * on armv7m; depth of 4 on AVR):
 *   rv32     ra saved at the top of a (16 + args)-byte frame; t0 the wipe pointer; 4 SW per loop
 *   armv7m   {r4, lr} pushed (8-byte alignment), args copied through ip; then, while the frame still
 *            holds r4 and lr, r2 = r3 = r4 = lr = 0 and ip the pointer, two 16-byte STMs per loop, up to
 *            the frame; the frame's 8 bytes by one STRD after it is popped
 *   avr      args copied through Z/r0 (X low byte the count); Z the pointer, X the count, r1 (always
 *            zero by the avr-gcc ABI) stored, four ST Z+ per loop. On parts with 3-byte return addresses
 *            (__AVR_3_BYTE_PC__: ATmega2560) every return address the measured call pushed is one byte
 *            longer: each took at least 2 of the measured bytes, so depth * 3 / 2 covers them.
 */
#ifndef MCUCRYPT_STACK_WIPE_H
#define MCUCRYPT_STACK_WIPE_H

#ifndef __ASSEMBLER__
#error "mcucrypt/stack_wipe.h is for the generated mcu_stack_wipe_*.S wrappers (assembly) only"
#endif

#if defined(__riscv)
#if __riscv_xlen != 32
#error "the rv32 stack-wipe wrappers are for RV32 (ilp32)"
#endif

.macro MCU_WIPE_WRAP name, body, depth, args
    .section .text.\name, "ax", @progbits
    .globl \name
    .type \name, @function
    .p2align 1
\name:
    addi    sp, sp, -(16 + \args)
    sw      ra, (12 + \args)(sp)
    .set    mcu_wipe_off, 0
    .rept   \args / 4                    /* the stack-passed arguments, where body expects them */
    lw      t0, (16 + \args + mcu_wipe_off)(sp)
    sw      t0, mcu_wipe_off(sp)
    .set    mcu_wipe_off, mcu_wipe_off + 4
    .endr
    call    \body
    lw      ra, (12 + \args)(sp)
    addi    sp, sp, 16 + \args
    li      t0, \depth
    sub     t0, sp, t0
1:  sw      zero, 0(t0)
    sw      zero, 4(t0)
    sw      zero, 8(t0)
    sw      zero, 12(t0)
    addi    t0, t0, 16
    bltu    t0, sp, 1b
    ret
    .size \name, . - \name
.endm

.macro MCU_WIPE_JUMP name, body
    .section .text.\name, "ax", @progbits
    .globl \name
    .type \name, @function
    .p2align 1
\name:
    tail    \body
    .size \name, . - \name
.endm

#elif defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
    .syntax unified
    .thumb

.macro MCU_WIPE_WRAP name, body, depth, args
    .section .text.\name, "ax", %progbits
    .globl \name
    .type \name, %function
    .thumb_func
    .p2align 1
\name:
    push    {r4, lr}
    .if \args
    sub     sp, sp, #\args
    .set    mcu_wipe_off, 0
    .rept   \args / 4                    /* the stack-passed arguments, where body expects them */
    ldr     ip, [sp, #(8 + \args + mcu_wipe_off)]
    str     ip, [sp, #mcu_wipe_off]
    .set    mcu_wipe_off, mcu_wipe_off + 4
    .endr
    .endif
    bl      \body
    .if \args
    add     sp, sp, #\args              /* the copies are below sp now: wiped with the rest */
    .endif
    /* r4 and lr are saved above sp: four zero registers for STM while the frame holds them */
    movs    r2, #0
    movs    r3, #0
    movs    r4, #0
    mov     lr, r2
    movw    ip, #(\depth - 8)
    sub     ip, sp, ip
1:  stmia   ip!, {r2, r3, r4, lr}
    stmia   ip!, {r2, r3, r4, lr}
    cmp     ip, sp
    blo     1b
    pop     {r4, lr}
    strd    r2, r3, [sp, #-8]            /* the 8 bytes the frame held */
    bx      lr
    .size \name, . - \name
.endm

.macro MCU_WIPE_JUMP name, body
    .section .text.\name, "ax", %progbits
    .globl \name
    .type \name, %function
    .thumb_func
    .p2align 1
\name:
    b.w     \body
    .size \name, . - \name
.endm

#elif defined(__AVR__)

#if defined(__AVR_3_BYTE_PC__)
#define MCU_WIPE_PC_BYTES 3
#define MCU_WIPE_SCALE(d) (((d) * 3 / 2 + 3) / 4 * 4)
#else
#define MCU_WIPE_PC_BYTES 2
#define MCU_WIPE_SCALE(d) (d)
#endif
#if defined(__AVR_HAVE_JMP_CALL__)
#define MCU_WIPE_CALL call
#define MCU_WIPE_JMP jmp
#else
#define MCU_WIPE_CALL rcall
#define MCU_WIPE_JMP rjmp
#endif

.macro MCU_WIPE_WRAP name, body, depth, args
    .section .text.\name, "ax", @progbits
    .global \name
    .type \name, @function
\name:
    .if \args
    in      r30, 0x3d                    /* Z = SP */
    in      r31, 0x3e
    adiw    r30, MCU_WIPE_PC_BYTES + \args + 1   /* one past the last stack-passed argument */
    ldi     r26, \args
1:  ld      r0, -Z                       /* pushed from the last byte down: the same layout, lower */
    push    r0
    dec     r26
    brne    1b
    .endif
    MCU_WIPE_CALL \body
    .rept   \args
    pop     r0
    .endr
    in      r30, 0x3d                    /* Z = SP + 1 - depth: the lowest byte to clear */
    in      r31, 0x3e
    subi    r30, lo8(MCU_WIPE_SCALE(\depth) - 1)
    sbci    r31, hi8(MCU_WIPE_SCALE(\depth) - 1)
    ldi     r26, lo8(MCU_WIPE_SCALE(\depth) / 4)
    ldi     r27, hi8(MCU_WIPE_SCALE(\depth) / 4)
2:  st      Z+, r1
    st      Z+, r1
    st      Z+, r1
    st      Z+, r1
    sbiw    r26, 1
    brne    2b
    ret
    .size \name, . - \name
.endm

.macro MCU_WIPE_JUMP name, body
    .section .text.\name, "ax", @progbits
    .global \name
    .type \name, @function
\name:
    MCU_WIPE_JMP \body
    .size \name, . - \name
.endm

#else
#error "MCU_STACK_WIPE has wrappers for rv32, armv7m (Cortex-M3/M4) and AVR only"
#endif

#endif
