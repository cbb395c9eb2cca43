// SPDX-License-Identifier: MIT
/* HiFive1 Rev B: clock from the 16 MHz crystal oscillator (HFXOSC) with the PLL bypassed, UART0 on
 * GPIO 16/17 at 115200 baud, mcycle as the cycle counter. Registers from the FE310-G002 manual
 * (v1p0): PRCI §6, GPIO §17, UART §18. */
#include "bench.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define PRCI_HFXOSCCFG REG(0x10008004u)
#define PRCI_PLLCFG REG(0x10008008u)
#define GPIO_IOF_EN REG(0x10012038u)
#define GPIO_IOF_SEL REG(0x1001203Cu)
#define UART0_TXDATA REG(0x10013000u)
#define UART0_TXCTRL REG(0x10013008u)
#define UART0_DIV REG(0x10013018u)

#define HFXOSC_HZ 16000000u
#define HFXOSC_EN (1u << 30)
#define HFXOSC_RDY (1u << 31)
#define PLL_SEL (1u << 16)
#define PLL_REFSEL (1u << 17)
#define PLL_BYPASS (1u << 18)
#define UART_BAUD 115200u

static uint32_t clock_hz = 0;

void board_init(void)
{
	/* HFXOSC on; wait (bounded: a model without the oscillator must not hang us) for it to be ready,
	 * then run the core from it through the bypassed PLL. */
	PRCI_HFXOSCCFG |= HFXOSC_EN;
	for (uint32_t n = 0; n < 1000000u && !(PRCI_HFXOSCCFG & HFXOSC_RDY); n++) {
	}
	if (PRCI_HFXOSCCFG & HFXOSC_RDY) {
		PRCI_PLLCFG = PLL_REFSEL | PLL_BYPASS | PLL_SEL;
		clock_hz = HFXOSC_HZ;
	} else {
		clock_hz = 13800000u;   /* HFROSC reset default, FE310-G002 manual §6.3 (approximate) */
	}
	GPIO_IOF_SEL &= ~((1u << 16) | (1u << 17));
	GPIO_IOF_EN |= (1u << 16) | (1u << 17);
	UART0_DIV = (clock_hz + UART_BAUD / 2) / UART_BAUD - 1;
	UART0_TXCTRL = 1;   /* txen, one stop bit */
}

void board_putc(char c)
{
	while ((int32_t)UART0_TXDATA < 0) {   /* bit 31: FIFO full */
	}
	UART0_TXDATA = (uint8_t)c;
}

uint32_t board_clock_hz(void)
{
	return clock_hz;
}

uint8_t board_wait_states(void)
{
	return 0;   /* code runs from the SPI flash through the 16 KiB instruction cache; no wait-state setting */
}

void mcu_flash_read(void *dst, const void *flash_src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = flash_src;
	while (n--)
		*d++ = *s++;
}
