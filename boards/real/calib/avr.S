// SPDX-License-Identifier: MIT
/* Calibration microbenchmark for the AVR boards (ATmega128, ATmega2560): a sanity kernel, since the avr
 * board is simavr, whose instruction timings follow the datasheet. Timed on the part by
 * `mcucrypt firmware --calib` (docs/calibration.md, "Settling the open rows on silicon").
 *
 * uint16_t calib_avr_mix(uint16_t n): n iterations of 8 x (LPM from a flash table, LD from an SRAM
 * table, MUL of the two, ADD of the product's low byte); every instruction's cycles are in the
 * instruction set manual (LPM 3, LD X+ 2, MUL 2, ADD 1), so a difference from the virtual board is a
 * harness or counter problem, not a model one. Register map: r24:r25 n (counter), Z flash pointer,
 * X SRAM pointer, r18 sum, r0:r1 product (r1 cleared before the return, as the ABI wants). */
	.section .progmem.calib_avr_flash, "a", @progbits
calib_avr_flash:
	.byte	3, 5, 7, 11, 13, 17, 19, 23

	.section .data.calib_avr_sram, "aw", @progbits
calib_avr_sram:
	.byte	29, 31, 37, 41, 43, 47, 53, 59

	.section .text.calib_avr_mix, "ax", @progbits
	.global	calib_avr_mix
	.type	calib_avr_mix, @function
calib_avr_mix:
	clr	r18
1:	ldi	r30, lo8(calib_avr_flash)
	ldi	r31, hi8(calib_avr_flash)
	ldi	r26, lo8(calib_avr_sram)
	ldi	r27, hi8(calib_avr_sram)
	.rept	8
	lpm	r19, Z+
	ld	r20, X+
	mul	r19, r20
	add	r18, r0
	.endr
	sbiw	r24, 1
	brne	1b
	clr	r1
	mov	r24, r18
	clr	r25
	ret
	.size	calib_avr_mix, . - calib_avr_mix
