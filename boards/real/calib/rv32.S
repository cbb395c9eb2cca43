// SPDX-License-Identifier: MIT
/* Calibration microbenchmarks for the SiFive E31 (HiFive1 Rev B): small kernels that each isolate one
 * timing mechanism of the rv32 board's E31 model, timed on the part by `mcucrypt firmware --calib`
 * (docs/calibration.md, "Settling the open rows on silicon"). Every kernel is
 *     uint32_t calib_<name>(uint32_t n, ...);      // a0 = n iterations (>= 1), returns a checksum
 * and touches only caller-saved registers (a0-a7, t0-t6) and its own data, so the runner can check its
 * result against the virtual board's. No kernel reads the stack. */
	.text

/* ChaCha20's quarter-round on t0..t3 (t4 scratch), the sequence timed in forums.sifive.com t/1781 (add,
 * xor, and a rotation as slli/srli/xor): 20 instructions, 4 of them compressible (c.add), 72 bytes: 3.6
 * bytes per instruction, the mix of ChaCha20's loop body. t/1781 also found that where the code sits
 * decides I-cache refills on the HiFive1 (its penalty went away with the function 8-byte aligned): every
 * kernel here starts on a 64-byte boundary, the straight-line loops' heads on an 8-byte one. */
.macro QR
	add	t0, t0, t1
	xor	t3, t3, t0
	slli	t4, t3, 16
	srli	t3, t3, 16
	xor	t3, t3, t4
	add	t2, t2, t3
	xor	t1, t1, t2
	slli	t4, t1, 12
	srli	t1, t1, 20
	xor	t1, t1, t4
	add	t0, t0, t1
	xor	t3, t3, t0
	slli	t4, t3, 8
	srli	t3, t3, 24
	xor	t3, t3, t4
	add	t2, t2, t3
	xor	t1, t1, t2
	slli	t4, t1, 7
	srli	t1, t1, 25
	xor	t1, t1, t4
.endm

/* uint32_t calib_qr_<size>(uint32_t n): REPS quarter-rounds of straight-line code (no branch, no load,
 * no stall), run n times. n = 1 is t/1781's "straight line run once" (warm: the runner's untimed call
 * just ran it); n > 1 is the same code as a loop body, ChaCha20's and bitsliced AES-CTR's shape. The
 * back edge is a not-taken beqz and a taken j (a bnez reaches 4 KiB only); both cost the same at every
 * size. Returns t0 ^ t1 ^ t2 ^ t3. */
.macro STRAIGHT name, reps
	.section .text.\name, "ax", @progbits
	.globl	\name
	.type	\name, @function
	.balign	64
\name:
	li	t0, 0x61707865
	li	t1, 0x3320646e
	li	t2, 0x79622d32
	li	t3, 0x6b206574
	.balign	8                   /* the loop head on a fetch-packet boundary at every size */
1:
	.rept	\reps
	QR
	.endr
	addi	a0, a0, -1
	beqz	a0, 2f
	j	1b
2:	xor	a0, t0, t1
	xor	a0, a0, t2
	xor	a0, a0, t3
	ret
	.size	\name, . - \name
.endm

	STRAIGHT calib_qr_0k7, 10        /*   720 bytes: t/1781's 10 repetitions */
	STRAIGHT calib_qr_4k, 57         /*  4104 bytes */
	STRAIGHT calib_qr_8k, 114        /*  8208 bytes */
	STRAIGHT calib_qr_12k, 171       /* 12312 bytes: the largest that stays in the 16 KiB I-cache with the runner */
	STRAIGHT calib_qr_16k, 227       /* 16344 bytes: the whole I-cache; with the runner's code some lines miss */

/* uint32_t calib_jumps_<k>(uint32_t n): a loop of k taken jumps at k distinct addresses (each jump to
 * the next instruction, then one addi), n times. 16 fit the BTB (28 entries in the rocket-chip default,
 * 40 in the FE310-G000 manual), 32 fit only 40, 48 fit neither: the difference per jump is what a BTB
 * miss of a JAL costs
 * (the model: one predecoder bubble; pattern (a) of docs/calibration.md). Returns k * n. */
.macro JUMPS name, k
	.section .text.\name, "ax", @progbits
	.globl	\name
	.type	\name, @function
	.balign	64
	.option	push
	.option	norvc
\name:
	li	t0, 0
1:
	.rept	\k
	j	9f
9:	addi	t0, t0, 1
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	mv	a0, t0
	ret
	.option	pop
	.size	\name, . - \name
.endm

	JUMPS calib_jumps16, 16
	JUMPS calib_jumps32, 32         /* fits 40 entries, not 28 */
	JUMPS calib_jumps48, 48

/* uint32_t calib_calls32(uint32_t n): 32 call sites (jal) to one leaf that returns at once, n times:
 * 32 JALs and 32 returns per iteration, more distinct targets than the BTB holds, as in the fixsliced
 * AES code (29-37 call sites per call). Returns 32 * n. */
	.section .text.calib_calls32, "ax", @progbits
	.globl	calib_calls32
	.type	calib_calls32, @function
	.balign	64
	.option	push
	.option	norvc
calib_leaf:
	addi	t0, t0, 1
	ret
calib_calls32:
	mv	t6, ra
	li	t0, 0
1:
	.rept	32
	jal	ra, calib_leaf
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	mv	a0, t0
	jr	t6
	.option	pop
	.size	calib_calls32, . - calib_calls32

/* uint32_t calib_alternate(uint32_t n): a loop whose inner branch alternates taken / not taken, n
 * iterations. A 1-bit counter (rocket's default) without history mispredicts it every time, 2-bit
 * counters half the time, a history-indexed BHT learns it (pattern (b)). Returns the taken count. */
	.section .text.calib_alternate, "ax", @progbits
	.globl	calib_alternate
	.type	calib_alternate, @function
	.balign	64
	.option	push
	.option	norvc
calib_alternate:
	li	t0, 0
1:	andi	t1, a0, 1
	beqz	t1, 2f
	addi	t0, t0, 1
2:	addi	a0, a0, -1
	bnez	a0, 1b
	mv	a0, t0
	ret
	.option	pop
	.size	calib_alternate, . - calib_alternate

/* uint32_t calib_loaduse(uint32_t n): 32 loads per iteration, each address the previous load's result
 * (a cell in the DTIM that points to itself): the full load-to-use latency 32 times. */
	.section .text.calib_loaduse, "ax", @progbits
	.globl	calib_loaduse
	.type	calib_loaduse, @function
	.balign	64
calib_loaduse:
	la	t0, calib_cells
	sw	t0, 0(t0)
1:
	.rept	32
	lw	t0, 0(t0)
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	la	t1, calib_cells
	sub	a0, t0, t1          /* 0 when every load returned the cell's address */
	ret
	.size	calib_loaduse, . - calib_loaduse

/* uint32_t calib_loadfree(uint32_t n): the same 32 loads per iteration with no dependency between them
 * (the baseline of calib_loaduse: the difference is the load-use stall). Returns n * 32 * 7. */
	.section .text.calib_loadfree, "ax", @progbits
	.globl	calib_loadfree
	.type	calib_loadfree, @function
	.balign	64
calib_loadfree:
	la	t0, calib_cells
	li	t1, 7
	sw	t1, 4(t0)
	li	t2, 0
1:
	.rept	16
	lw	t1, 4(t0)
	lw	t3, 4(t0)
	.endr
	add	t2, t2, t1
	add	t2, t2, t3
	addi	a0, a0, -1
	bnez	a0, 1b
	slli	a0, t2, 4           /* 16 * 14 per iteration */
	ret
	.size	calib_loadfree, . - calib_loadfree

/* uint32_t calib_mul_dep(uint32_t n): 32 dependent MULs per iteration (each multiplies the previous
 * product): the multiplier's latency. */
	.section .text.calib_mul_dep, "ax", @progbits
	.globl	calib_mul_dep
	.type	calib_mul_dep, @function
	.balign	64
calib_mul_dep:
	li	t0, 3
	li	t1, 0x9e3779b9
1:
	.rept	32
	mul	t0, t0, t1
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	mv	a0, t0
	ret
	.size	calib_mul_dep, . - calib_mul_dep

/* uint32_t calib_mul_free(uint32_t n): 32 independent MULs per iteration (four destinations in turn, no
 * result read until the end): the multiplier's issue rate. */
	.section .text.calib_mul_free, "ax", @progbits
	.globl	calib_mul_free
	.type	calib_mul_free, @function
	.balign	64
calib_mul_free:
	li	t0, 3
	li	t1, 0x9e3779b9
1:
	.rept	8
	mul	t2, t0, t1
	mul	t3, t0, t1
	mul	t4, t0, t1
	mul	t5, t0, t1
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	add	a0, t2, t3
	add	a0, a0, t4
	add	a0, a0, t5
	ret
	.size	calib_mul_free, . - calib_mul_free

/* uint32_t calib_divu(uint32_t n, uint32_t a, uint32_t b): 16 DIVUs a / b per iteration, each result
 * summed (so no divide is dead). The E31's divider is iterative: its latency may depend on the
 * operands, which the model does not know; run with small (100 / 7) and large (0xffffffff / 3)
 * operands. Returns n * 16 * (a / b). */
	.section .text.calib_divu, "ax", @progbits
	.globl	calib_divu
	.type	calib_divu, @function
	.balign	64
calib_divu:
	li	t0, 0
1:
	.rept	16
	divu	t1, a1, a2
	add	t0, t0, t1
	.endr
	addi	a0, a0, -1
	bnez	a0, 1b
	mv	a0, t0
	ret
	.size	calib_divu, . - calib_divu

/* The load kernels' cells (DTIM on the HiFive1, as every table of the image). */
	.section .bss.calib_cells, "aw", @nobits
	.balign	8
calib_cells:
	.space	8
