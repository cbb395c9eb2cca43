// SPDX-License-Identifier: MIT
/* Board support of examples/common/serial_main.c for any AVR part with USART0 (ATmega128, ATmega2560,
 * ATmega1284P, ...): USART0 at 115200 baud 8N1 (double speed: 2.1 % error at 16 MHz), and the end of the
 * run as `cli; sleep`, which is also how simavr recognises a finished program. */
#include <avr/io.h>
#include <stdint.h>

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#define UART_BAUD 115200UL

void board_init(void);
void board_putc(char c);
void mcu_halt(void);

void board_init(void)
{
    UCSR0A = 1 << U2X0;
    UBRR0H = (uint8_t)((F_CPU / (8 * UART_BAUD) - 1) >> 8);
    UBRR0L = (uint8_t)(F_CPU / (8 * UART_BAUD) - 1);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    UCSR0B = 1 << TXEN0;
}

void board_putc(char c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UCSR0A |= 1 << TXC0;        /* cleared by writing one: set again when this byte has left */
    UDR0 = (uint8_t)c;
}

void mcu_halt(void)
{
    while (!(UCSR0A & (1 << TXC0))) {   /* let the last byte leave */
    }
    for (;;) {
        __asm__ volatile("cli\n\tsleep");
    }
}
