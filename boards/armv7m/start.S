/* SPDX-License-Identifier: MIT */
/* Vector table and reset entry for a real Cortex-M3 part. The virtual board never runs them: it loads
 * the segments at their run addresses and calls the function under test directly. */
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word __mcu_stack_top
    .word Reset_Handler
    .text
    .thumb_func
    .globl Reset_Handler
Reset_Handler:
1:  wfi
    b 1b
