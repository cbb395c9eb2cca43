// SPDX-License-Identifier: MIT
/* AVR boards' shared definitions (included by their board.h after MCU_PC_BYTES). */
#ifndef MCU_AVR_H
#define MCU_AVR_H
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <stdint.h>

#if MCU_PC_BYTES == 3
#define MCU_RET_CYCLES 5        /* RET pops a 3-byte PC (ATmega2560 datasheet, instruction set summary) */
#else
#define MCU_RET_CYCLES 4
#endif
#define MCU_RET_INSN "ret"
#define MCU_EMPTY_PROLOGUE ".type mcu_empty, @function\n"
#define MCU_PROBE_BODY "in r18, __SP_L__\n\tin r19, __SP_H__\n\tsts mcu_probe_sp, r18\n\tsts mcu_probe_sp+1, r19"
#define MCU_PROBE_PROLOGUE ".type mcu_sp_probe, @function\n"
#define MCU_STACK_FLOOR __heap_start
#define MCU_SP_FREE_OFFSET 1   /* the callee's entry SP + this: the end of the free stack */
#define MCU_SP_TOP_OFFSET (1 + MCU_PC_BYTES)    /* the callee's entry SP + this: where its stack use starts */
#define MCU_FLASH __attribute__((__progmem__))

extern volatile uint16_t mcu_overflows;
extern uint8_t mcu_isr_cycles;          /* measured by board_init (avr.c) */
#define MCU_HEADER_EXTRA 1              /* the runner prints "isr_cycles" in the header line */

static inline uint8_t mcu_irq_off(void)
{
	uint8_t sreg = SREG;
	__asm__ volatile("cli" ::: "memory");
	return sreg;
}

static inline void mcu_irq_restore(uint8_t sreg)
{
	SREG = sreg;
	__asm__ volatile("" ::: "memory");
}

/* Cycles since Timer1 started, minus the overflow interrupts' own cycles. An overflow that happened
 * while interrupts were off here is seen in TOV1 (TCNT1 then reads low) and counted. */
static inline uint32_t mcu_cycles(void)
{
	uint8_t sreg = SREG;
	__asm__ volatile("cli" ::: "memory");
	uint16_t t = TCNT1;
	uint16_t o = mcu_overflows;
	if ((MCU_TIFR & (1 << TOV1)) && t < 0x8000u)
		o++;
	SREG = sreg;
	__asm__ volatile("" ::: "memory");
	return (((uint32_t)o << 16) | t) - (uint32_t)o * mcu_isr_cycles;
}
#endif
