/* SPDX-License-Identifier: MIT */
/* Reset entry for a real HiFive1 Rev B. The virtual board never runs it: it loads every segment at its
 * run address and calls the function under test directly. On the board this sets gp and sp, then parks. */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __mcu_stack_top
1:  wfi
    j 1b
