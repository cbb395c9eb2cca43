// SPDX-License-Identifier: MIT
/* STM32F103 (Blue Pill and friends): 24 MHz from the internal 8 MHz RC oscillator through the PLL
 * (HSI/2 x 6), zero flash wait states with the prefetch buffer on (RM0008 §3.3.3: 0 wait states up to
 * 24 MHz), USART1 on PA9 at 115200 baud, DWT CYCCNT. 24 MHz is the fastest clock whose flash needs no
 * wait state, so the counts compare with the zero-wait-state armv7m board; a 72 MHz image would set two
 * wait states and report them. The HSI needs no crystal, so every Blue Pill runs this image. */
#include "bench.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define RCC_CR REG(0x40021000u)
#define RCC_CFGR REG(0x40021004u)
#define RCC_APB2ENR REG(0x40021018u)
#define FLASH_ACR REG(0x40022000u)
#define GPIOA_CRH REG(0x40010804u)
#define USART1_SR REG(0x40013800u)
#define USART1_DR REG(0x40013804u)
#define USART1_BRR REG(0x40013808u)
#define USART1_CR1 REG(0x4001380Cu)

#define HSI_HZ 8000000u
#define UART_BAUD 115200u

static uint32_t clock_hz = HSI_HZ;
static uint8_t wait_states = 0;

void board_init(void)
{
	/* Flash first (the latency must be in place before the faster clock), then the PLL: source HSI/2
	 * (PLLSRC = 0), x6 (PLLMUL = 0100). Every wait is bounded: a model without the PLL keeps the HSI. */
	FLASH_ACR = (FLASH_ACR & ~7u) | 0u | (1u << 4);        /* LATENCY = 0, PRFTBE */
	wait_states = (uint8_t)(FLASH_ACR & 7u);
	RCC_CFGR = (RCC_CFGR & ~((1u << 16) | (15u << 18))) | (4u << 18);
	RCC_CR |= 1u << 24;                                     /* PLLON */
	for (uint32_t n = 0; n < 100000u && !(RCC_CR & (1u << 25)); n++) {
	}
	if (RCC_CR & (1u << 25)) {
		RCC_CFGR = (RCC_CFGR & ~3u) | 2u;               /* SW = PLL */
		for (uint32_t n = 0; n < 100000u && ((RCC_CFGR >> 2) & 3u) != 2u; n++) {
		}
	}
	clock_hz = ((RCC_CFGR >> 2) & 3u) == 2u ? 24000000u : HSI_HZ;
	RCC_APB2ENR |= (1u << 14) | (1u << 2) | (1u << 0);      /* USART1, GPIOA, AFIO */
	GPIOA_CRH = (GPIOA_CRH & ~(0xFu << 4)) | (0xBu << 4);   /* PA9: alternate push-pull, 50 MHz */
	USART1_BRR = (clock_hz + UART_BAUD / 2) / UART_BAUD;
	USART1_CR1 = (1u << 13) | (1u << 3);                    /* UE, TE */
	mcu_cycles_init();
}

void board_putc(char c)
{
	while (!(USART1_SR & (1u << 7))) {                      /* TXE */
	}
	USART1_DR = (uint8_t)c;
}

uint32_t board_clock_hz(void)
{
	return clock_hz;
}

uint8_t board_wait_states(void)
{
	return wait_states;
}
