// SPDX-License-Identifier: MIT
/* STM32F103 (Blue Pill and friends): USART1 on PA9 at 115200 baud, DWT CYCCNT, and the core clock chosen
 * at build time (`mcucrypt firmware --clock`, MCU_CLOCK_HZ) with the flash wait states RM0008 §3.3.3
 * requires for it (0 up to 24 MHz, 1 up to 48 MHz, 2 above) and the prefetch buffer on:
 *   8 MHz: the internal RC oscillator (HSI) alone; 24, 32, 40, 48, 56, 64 MHz: HSI/2 x 6..16 through the
 *   PLL; 72 MHz: the 8 MHz crystal (HSE) x 9, which needs the crystal a Blue Pill has.
 * The default is 24 MHz, the fastest clock whose flash needs no wait state, which is what the
 * zero-wait-state armv7m board models. Every wait is bounded: a part or model whose oscillator or PLL does
 * not come up keeps the HSI and reports 8 MHz. */
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

#ifndef MCU_CLOCK_HZ
#define MCU_CLOCK_HZ 24000000u
#endif
#define HSI_HZ 8000000u
#define UART_BAUD 115200u
#define CR_HSEON (1u << 16)
#define CR_HSERDY (1u << 17)
#define CR_PLLON (1u << 24)
#define CR_PLLRDY (1u << 25)
#define CFGR_PLLSRC (1u << 16)
#define CFGR_PPRE1_DIV2 (4u << 8)

#if MCU_CLOCK_HZ == 72000000u
#define PLL_MUL 9u
#define PLL_FROM_HSE 1
#elif MCU_CLOCK_HZ % 4000000u == 0 && MCU_CLOCK_HZ >= 24000000u && MCU_CLOCK_HZ <= 64000000u
#define PLL_MUL (MCU_CLOCK_HZ / 4000000u)   /* HSI/2 = 4 MHz */
#define PLL_FROM_HSE 0
#elif MCU_CLOCK_HZ != 8000000u
#error "stm32f103: MCU_CLOCK_HZ must be 8 MHz, 24..64 MHz in steps of 8 MHz, or 72 MHz"
#endif

static uint32_t clock_hz = HSI_HZ;
static uint8_t wait_states = 0;

#ifdef PLL_MUL
static int wait_for(volatile uint32_t *reg, uint32_t mask, uint32_t value)
{
	for (uint32_t n = 0; n < 100000u; n++)
		if ((*reg & mask) == value)
			return 1;
	return 0;
}
#endif

void board_init(void)
{
	uint32_t ws = MCU_CLOCK_HZ <= 24000000u ? 0u : MCU_CLOCK_HZ <= 48000000u ? 1u : 2u;
	/* the latency goes in before the faster clock */
	FLASH_ACR = (FLASH_ACR & ~7u) | ws | (1u << 4);        /* LATENCY, PRFTBE */
#ifdef PLL_MUL
	int source_ok = 1;
	if (PLL_FROM_HSE) {
		RCC_CR |= CR_HSEON;
		source_ok = wait_for(&RCC_CR, CR_HSERDY, CR_HSERDY);
	}
	if (source_ok) {
		/* APB1 may not exceed 36 MHz: divide it by 2 above that (USART1 is on APB2, undivided) */
		RCC_CFGR = (RCC_CFGR & ~(CFGR_PLLSRC | (15u << 18) | (7u << 8))) |
			   (PLL_FROM_HSE ? CFGR_PLLSRC : 0u) | ((PLL_MUL - 2u) << 18) |
			   (MCU_CLOCK_HZ > 36000000u ? CFGR_PPRE1_DIV2 : 0u);
		RCC_CR |= CR_PLLON;
		if (wait_for(&RCC_CR, CR_PLLRDY, CR_PLLRDY)) {
			RCC_CFGR = (RCC_CFGR & ~3u) | 2u;       /* SW = PLL */
			wait_for(&RCC_CFGR, 3u << 2, 2u << 2);
		}
	}
	clock_hz = ((RCC_CFGR >> 2) & 3u) == 2u ? MCU_CLOCK_HZ : HSI_HZ;
#endif
	if (clock_hz == HSI_HZ)
		FLASH_ACR = (FLASH_ACR & ~7u) | (1u << 4);      /* back to 0 wait states on the HSI */
	wait_states = (uint8_t)(FLASH_ACR & 7u);
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
