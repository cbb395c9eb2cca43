// SPDX-License-Identifier: MIT
/* Reset entry of the benchmark image on the HiFive1 Rev B. The board's boot loader jumps to 0x2001_0000
 * (the start of the user area of the SPI flash). crt0: gp, sp, .rodata/.data copied from flash into the
 * DTIM (the E31 has no data cache: tables read from the SPI flash would cost the bus every load),
 * .bss zeroed, then main; mcu_halt parks the core when main is done. */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __mcu_stack_top
    la a0, __dtim_load          /* copy .rodata + .data: flash (LMA) -> DTIM (VMA) */
    la a1, __dtim_start
    la a2, __dtim_end
1:  bgeu a1, a2, 2f
    lw t0, 0(a0)
    sw t0, 0(a1)
    addi a0, a0, 4
    addi a1, a1, 4
    j 1b
2:  la a1, __bss_start
    la a2, __bss_end
3:  bgeu a1, a2, 4f
    sw zero, 0(a1)
    addi a1, a1, 4
    j 3b
4:  call main
    call mcu_halt

    .text
    .globl mcu_halt
    .type mcu_halt, @function
mcu_halt:
    wfi
    j mcu_halt
    .size mcu_halt, . - mcu_halt
