// SPDX-License-Identifier: MIT
/* Calibration microbenchmarks for the Cortex-M3 (STM32F103, LM3S6965): small kernels that each isolate
 * one timing mechanism of the armv7m board's Cortex-M3 model, timed on the part by
 * `mcucrypt firmware --calib` (docs/calibration.md, "Settling the open rows on silicon"). Every kernel is
 *     uint32_t calib_<name>(uint32_t n, ...);      // r0 = n iterations (>= 1), returns a checksum
 * (AAPCS: r0-r3, r12 scratch; r4-r11 saved when used). */
	.syntax	unified
	.thumb

/* 256 words of table (a linear congruential sequence), in flash (.rodata: the D-code bus, as a T-table
 * AES built with tables in .text) and in SRAM (.data, copied at reset). */
.macro TABLE
	.set	v, 0x2545f491
	.rept	256
	.word	v
	.set	v, (v * 1664525 + 1013904223) & 0xffffffff
	.endr
.endm
	.section .rodata.calib_table_flash, "a", %progbits
	.balign	4
calib_table_flash:
	TABLE
	.section .data.calib_table_sram, "aw", %progbits
	.balign	4
calib_table_sram:
	TABLE

/* One table access as in a T-table AES round: a byte index (uxtb.w), a scaled-register load (ldr.w),
 * an eor.w into the state: all 32-bit instructions, as the T-table code (96% 32-bit). r6 walks the
 * indices (odd step), r7 accumulates. */
.macro TLOAD base
	add.w	r6, r6, #0x1d
	uxtb.w	r4, r6
	ldr.w	r5, [\base, r4, lsl #2]
	eor.w	r7, r7, r5
.endm

/* uint32_t calib_tload_flash(uint32_t n), calib_tload_sram(n): n iterations of 8 table accesses to the
 * table in flash / in SRAM. flash - sram is what a data read from flash costs (wait states, contention
 * of the D-code read with instruction fetch); the model charges nothing at 0 wait states. Decides the
 * "tables in flash" rows (Ko-/aes-armcortexm T-table AES, board 2.2-4.7% fast). */
.macro TLOADK name, table
	.section .text.\name, "ax", %progbits
	.globl	\name
	.type	\name, %function
	.balign	4
	.thumb_func
\name:
	push	{r4-r7}
	ldr	r1, =\table
	movs	r6, #0
	movs	r7, #0
	.balign	4                  /* the loop head is a 32-bit instruction: word-aligned */
1:
	.rept	8
	TLOAD	r1
	.endr
	subs	r0, #1
	bne	1b
	mov	r0, r7
	pop	{r4-r7}
	bx	lr
	.pool
	.size	\name, . - \name
.endm
	TLOADK calib_tload_flash, calib_table_flash
	TLOADK calib_tload_sram, calib_table_sram

/* uint32_t calib_tload_mix(uint32_t n): 8 table accesses per iteration alternating flash and SRAM
 * tables: 8 switches from a flash data read to an SRAM one. The open rows' excess is close to one cycle
 * per such switch (docs/calibration.md, "armv7m, tables in flash"): mix - (flash + sram) / 2 measures it. */
	.section .text.calib_tload_mix, "ax", %progbits
	.globl	calib_tload_mix
	.type	calib_tload_mix, %function
	.balign	4
	.thumb_func
calib_tload_mix:
	push	{r4-r7}
	ldr	r1, =calib_table_flash
	ldr	r2, =calib_table_sram
	movs	r6, #0
	movs	r7, #0
	.balign	4                  /* the loop head is a 32-bit instruction: word-aligned */
1:
	.rept	4
	TLOAD	r1
	TLOAD	r2
	.endr
	subs	r0, #1
	bne	1b
	mov	r0, r7
	pop	{r4-r7}
	bx	lr
	.pool
	.size	calib_tload_mix, . - calib_tload_mix

/* A leaf for the call kernels: 16-bit instructions only. */
	.section .text.calib_leaf, "ax", %progbits
	.type	calib_leaf, %function
	.balign	4
	.thumb_func
calib_leaf:
	adds	r3, #1
	bx	lr
	.size	calib_leaf, . - calib_leaf

/* uint32_t calib_bl_aligned(n), calib_bl_unaligned(n): 8 BLs to a leaf per iteration; every return
 * lands on the next BL, a 32-bit instruction at a word address (aligned) or at 2 mod 4 (unaligned, as
 * the fixsliced AES code's 22 returns). The model charges one cycle more per branch to an unaligned
 * 32-bit instruction (`refill_wide_unaligned`), the rule the table-free aadomn/aes rows (board 1.3-2.5%
 * slow) hinge on. Returns 8 * n. */
.macro BLK name, pad
	.section .text.\name, "ax", %progbits
	.globl	\name
	.type	\name, %function
	.balign	4
	.thumb_func
\name:
	push	{r4, lr}
	movs	r3, #0
	b.w	0f                  /* to the loop's first BL */
	.balign	4
	.if	\pad
	nop                         /* 16-bit: shifts every BL to 2 mod 4 */
	.endif
0:
	.rept	8
	bl	calib_leaf
	.endr
	subs	r0, #1
	bne.w	0b
	mov	r0, r3
	pop	{r4, pc}
	.size	\name, . - \name
.endm
	BLK calib_bl_aligned, 0
	BLK calib_bl_unaligned, 1

/* uint32_t calib_b_aligned(n), calib_b_unaligned(n): 8 taken B.Ws per iteration, each to the next
 * instruction, a 32-bit add.w at a word address / at 2 mod 4: the same rule for plain branches. */
.macro BK name, pad
	.section .text.\name, "ax", %progbits
	.globl	\name
	.type	\name, %function
	.balign	4
	.thumb_func
\name:
	movs	r3, #0
	b.w	0f
	.balign	4
	.if	\pad
	nop
	.endif
0:
	.rept	8
	b.w	9f
9:	add.w	r3, r3, #1
	.endr
	subs	r0, #1
	bne.w	0b
	mov	r0, r3
	bx	lr
	.size	\name, . - \name
.endm
	BK calib_b_aligned, 0
	BK calib_b_unaligned, 1

/* uint32_t calib_ldr_dep(uint32_t n): 16 LDRs per iteration, each address the previous LDR's result (a
 * cell in SRAM pointing to itself): LDR after LDR with an address dependency (`load_address_after_load`,
 * `address_dependency` in the model). Returns 0 when every load returned the cell's address. */
	.section .text.calib_ldr_dep, "ax", %progbits
	.globl	calib_ldr_dep
	.type	calib_ldr_dep, %function
	.balign	4
	.thumb_func
calib_ldr_dep:
	ldr	r1, =calib_cell
	str	r1, [r1]
	mov	r2, r1
1:
	.rept	16
	ldr	r1, [r1]
	.endr
	subs	r0, #1
	bne	1b
	subs	r0, r1, r2
	bx	lr
	.pool
	.size	calib_ldr_dep, . - calib_ldr_dep

/* uint32_t calib_ldr_free(uint32_t n): 16 LDRs per iteration from the same cell, no dependency between
 * them (pipelined back to back): the baseline of calib_ldr_dep. Returns 0 when the loads returned the
 * cell's address (an address-free result: the image links the cell elsewhere than the virtual board). */
	.section .text.calib_ldr_free, "ax", %progbits
	.globl	calib_ldr_free
	.type	calib_ldr_free, %function
	.balign	4
	.thumb_func
calib_ldr_free:
	ldr	r1, =calib_cell
	str	r1, [r1]
1:
	.rept	8
	ldr	r2, [r1]
	ldr	r3, [r1]
	.endr
	subs	r0, #1
	bne	1b
	subs	r0, r2, r1
	bx	lr
	.pool
	.size	calib_ldr_free, . - calib_ldr_free

/* uint32_t calib_umull(uint32_t n, uint32_t a, uint32_t b): 16 UMULLs a * b per iteration, the high
 * words summed. The Cortex-M3 terminates UMULL early by operand size (3-5 cycles, TRM table 18-1): run
 * with small (0x12 * 0x34) and large (0xffffffff * 0xffffffff) operands. */
	.section .text.calib_umull, "ax", %progbits
	.globl	calib_umull
	.type	calib_umull, %function
	.balign	4
	.thumb_func
calib_umull:
	push	{r4, r5}
	movs	r3, #0
	.balign	4                  /* the loop head is a 32-bit instruction: word-aligned */
1:
	.rept	16
	umull	r4, r5, r1, r2
	add.w	r3, r3, r5
	.endr
	subs	r0, #1
	bne	1b
	mov	r0, r3
	pop	{r4, r5}
	bx	lr
	.size	calib_umull, . - calib_umull

/* uint32_t calib_udiv(uint32_t n, uint32_t a, uint32_t b): 16 UDIVs a / b per iteration, the quotients
 * summed. UDIV takes 2-12 cycles by operand size (TRM table 18-1): small (100 / 7) and large
 * (0xffffffff / 3) operands. */
	.section .text.calib_udiv, "ax", %progbits
	.globl	calib_udiv
	.type	calib_udiv, %function
	.balign	4
	.thumb_func
calib_udiv:
	push	{r4}
	movs	r3, #0
	.balign	4                  /* the loop head is a 32-bit instruction: word-aligned */
1:
	.rept	16
	udiv	r4, r1, r2
	add.w	r3, r3, r4
	.endr
	subs	r0, #1
	bne	1b
	mov	r0, r3
	pop	{r4}
	bx	lr
	.size	calib_udiv, . - calib_udiv

	.section .bss.calib_cell, "aw", %nobits
	.balign	4
calib_cell:
	.space	4
