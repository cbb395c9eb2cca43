// SPDX-License-Identifier: MIT
/* main for a real part: runs the example (check.c) once and prints its result on the UART,
 *
 *   {"summary":"example","result":N}
 *
 * N as mcucrypt_example returns it (the number of vectors that passed, or 1000 + the number that
 * failed), then parks. The board's support gives board_init (clocks, UART), board_putc and mcu_halt:
 * boards/real/lm3s6965 (Cortex-M3) or examples/avr/uart.c (any AVR with USART0). The test suite runs it
 * under QEMU (lm3s6965evb, mega2560) and simavr (ATmega128, ATmega2560, ATmega1284P). */
#include <stdint.h>

void board_init(void);
void board_putc(char c);
void mcu_halt(void);
int mcucrypt_example(void);
int main(void);

static void put_text(const char *s)
{
    while (*s) {
        board_putc(*s++);
    }
}

static void put_int(int v)
{
    char digits[6];
    unsigned n = 0, u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    if (v < 0) {
        board_putc('-');
    }
    do {
        digits[n++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u != 0 && n < sizeof digits);
    while (n) {
        board_putc(digits[--n]);
    }
}

int main(void)
{
    board_init();
    int result = mcucrypt_example();
    put_text("{\"summary\":\"example\",\"result\":");
    put_int(result);
    put_text("}\n");
    mcu_halt();
    return 0;
}
