// SPDX-License-Identifier: MIT
/* LM3S6965 (Stellaris LM3S6965 evaluation board): 50 MHz from the 8 MHz crystal through the PLL
 * (400 MHz / 2 / SYSDIV 4), UART0 on PA0/PA1 at 115200 baud, DWT CYCCNT. The LM3S6965's flash is
 * single-cycle up to 50 MHz (datasheet §8.2.1): no wait states exist to set, and 0 is reported. */
#include "bench.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define SYSCTL_RIS REG(0x400FE050u)
#define SYSCTL_RCC REG(0x400FE060u)
#define SYSCTL_RCGC1 REG(0x400FE104u)
#define SYSCTL_RCGC2 REG(0x400FE108u)
#define GPIOA_AFSEL REG(0x40004420u)
#define GPIOA_DEN REG(0x4000451Cu)
#define UART0_DR REG(0x4000C000u)
#define UART0_FR REG(0x4000C018u)
#define UART0_IBRD REG(0x4000C024u)
#define UART0_FBRD REG(0x4000C028u)
#define UART0_LCRH REG(0x4000C02Cu)
#define UART0_CTL REG(0x4000C030u)

#define RCC_MOSCDIS (1u << 0)
#define RCC_OSCSRC (3u << 4)
#define RCC_XTAL (15u << 6)
#define RCC_XTAL_8MHZ (0xEu << 6)
#define RCC_BYPASS (1u << 11)
#define RCC_PWRDN (1u << 13)
#define RCC_USESYSDIV (1u << 22)
#define RCC_SYSDIV (15u << 23)
#define RIS_PLLLRIS (1u << 6)
#define UART_BAUD 115200u

static uint32_t clock_hz = 8000000u;

void board_init(void)
{
	/* Datasheet §6.3 sequence: bypass the PLL, select the 8 MHz main oscillator, power the PLL up, wait
	 * (bounded) for lock, then divide its 200 MHz by 4 and switch to it. */
	uint32_t rcc = (SYSCTL_RCC | RCC_BYPASS) & ~RCC_USESYSDIV;
	SYSCTL_RCC = rcc;
	rcc = (rcc & ~(RCC_MOSCDIS | RCC_OSCSRC | RCC_XTAL | RCC_PWRDN)) | RCC_XTAL_8MHZ;
	SYSCTL_RCC = rcc;
	for (uint32_t n = 0; n < 100000u && !(SYSCTL_RIS & RIS_PLLLRIS); n++) {
	}
	if (SYSCTL_RIS & RIS_PLLLRIS) {
		rcc = (rcc & ~RCC_SYSDIV) | (3u << 23) | RCC_USESYSDIV;
		SYSCTL_RCC = rcc;
		SYSCTL_RCC = rcc & ~RCC_BYPASS;
		clock_hz = 50000000u;
	}
	SYSCTL_RCGC1 |= 1u;     /* UART0 */
	SYSCTL_RCGC2 |= 1u;     /* GPIOA */
	__asm__ volatile("nop; nop; nop");   /* three clocks before the peripherals answer */
	GPIOA_AFSEL |= 3u;
	GPIOA_DEN |= 3u;
	UART0_CTL = 0;
	uint32_t div64 = (clock_hz * 4u + UART_BAUD / 2) / UART_BAUD;   /* clock / (16 baud) in 1/64ths */
	UART0_IBRD = div64 >> 6;
	UART0_FBRD = div64 & 63u;
	UART0_LCRH = 3u << 5;   /* 8 bits, no parity, one stop bit */
	UART0_CTL = (1u << 0) | (1u << 8) | (1u << 9);   /* UARTEN, TXE, RXE */
	mcu_cycles_init();
}

void board_putc(char c)
{
	while (UART0_FR & (1u << 5)) {      /* TXFF */
	}
	UART0_DR = (uint8_t)c;
}

uint32_t board_clock_hz(void)
{
	return clock_hz;
}

uint8_t board_wait_states(void)
{
	return 0;
}
