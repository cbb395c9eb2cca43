// SPDX-License-Identifier: MIT
/* AVR boards (ATmega128, ATmega2560): USART0 at 115200 baud (double speed), Timer1 at prescaler 1 with
 * overflow counting as the cycle counter, constant data read from program memory.
 *
 * The counter: Timer1 counts every clock; its overflow interrupt (every 65536 cycles) adds one to a
 * 16-bit overflow count. The interrupt itself costs cycles that the interrupted code did not spend, a
 * fixed number per overflow; mcu_cycles() subtracts them, so a timed function longer than 65536 cycles
 * is not charged for the interrupts it suffered. That number is measured at start-up (board_init), not
 * assumed: the datasheets and the instruction set manual give 31 (4 response + 3 JMP + 20 body + 4 RETI;
 * 33 with a 3-byte PC), and simavr 1.6 spends 27 (it charges the interrupt response fewer cycles), so a
 * hard-coded figure would be wrong on one of the two. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <string.h>

#include "bench.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#define UART_BAUD 115200UL

volatile uint16_t mcu_overflows;
uint8_t mcu_isr_cycles = 0;

/* Timer1 and the overflow count with no interrupt correction: (overflows << 16 | TCNT1). */
static uint32_t raw_cycles(uint16_t *overflows)
{
	uint8_t sreg = SREG;
	cli();
	uint16_t t = TCNT1;
	uint16_t o = mcu_overflows;
	if ((MCU_TIFR & (1 << TOV1)) && t < 0x8000u)
		o++;
	SREG = sreg;
	*overflows = o;
	return ((uint32_t)o << 16) | t;
}

/* A busy wait of exactly CAL_CYCLES (avr-gcc's __builtin_avr_delay_cycles is cycle-exact) suffers about
 * CAL_CYCLES / 65536 overflow interrupts: elapsed = CAL_CYCLES + reads + n * isr. With 32 overflows the
 * few cycles of the counter reads round away. */
#define CAL_CYCLES (32UL * 65536UL)
static void calibrate(void)
{
	uint16_t o0, o1;
	uint32_t a = raw_cycles(&o0);
	__builtin_avr_delay_cycles(CAL_CYCLES);
	uint32_t b = raw_cycles(&o1);
	uint16_t n = o1 - o0;
	mcu_isr_cycles = n ? (uint8_t)((b - a - CAL_CYCLES) / n) : 0;
}

/* Naked, so its cost is fixed: the interrupt response, the JMP in the vector table, the body below
 * (20 cycles) and RETI. */
ISR(TIMER1_OVF_vect, ISR_NAKED)
{
	__asm__ volatile(
	    "push r24\n\t"                  /* 2 */
	    "in r24, __SREG__\n\t"          /* 1 */
	    "push r24\n\t"                  /* 2 */
	    "lds r24, mcu_overflows\n\t"    /* 2 */
	    "subi r24, 0xff\n\t"            /* 1: +1 */
	    "sts mcu_overflows, r24\n\t"    /* 2 */
	    "lds r24, mcu_overflows+1\n\t"  /* 2 */
	    "sbci r24, 0xff\n\t"            /* 1: + carry */
	    "sts mcu_overflows+1, r24\n\t"  /* 2 */
	    "pop r24\n\t"                   /* 2 */
	    "out __SREG__, r24\n\t"         /* 1 */
	    "pop r24\n\t"                   /* 2 */
	    "reti\n\t");                    /* 4 (5) */
}

void board_init(void)
{
	UCSR0A = 1 << U2X0;
	UBRR0H = (uint8_t)((F_CPU / (8 * UART_BAUD) - 1) >> 8);
	UBRR0L = (uint8_t)(F_CPU / (8 * UART_BAUD) - 1);
	UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);     /* 8N1 */
	UCSR0B = 1 << TXEN0;
	TCCR1A = 0;
	TCNT1 = 0;
	MCU_TIMSK |= 1 << TOIE1;
	TCCR1B = 1 << CS10;                          /* prescaler 1 */
	sei();
	calibrate();
}

void board_putc(char c)
{
	while (!(UCSR0A & (1 << UDRE0))) {
	}
	UDR0 = (uint8_t)c;
}

uint32_t board_clock_hz(void)
{
	return F_CPU;
}

uint8_t board_wait_states(void)
{
	return 0;   /* AVR flash is read in one cycle at every clock the part allows */
}

void mcu_flash_read(void *dst, const void *flash_src, size_t n)
{
	memcpy_P(dst, flash_src, n);
}

/* `cli; sleep` is how simavr recognises a finished program; a real part sleeps with interrupts off. */
void mcu_halt(void)
{
	while (!(UCSR0A & (1 << TXC0)) && (UCSR0B & (1 << TXEN0))) {   /* let the last byte leave */
	}
	for (;;)
		__asm__ volatile("cli\n\tsleep");
}
