// SPDX-License-Identifier: MIT
/* Cortex-M3 parts shared by the stm32f103 and lm3s6965 images: reset code (crt0), the fault handler,
 * the DWT cycle counter and mcu_flash_read. Each board folder adds its vector table, clocks and UART. */
#include "bench.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];

void Reset_Handler(void);
void Default_Handler(void);

void Reset_Handler(void)
{
	uint32_t *src = __data_load, *dst = __data_start;
	while (dst < __data_end)
		*dst++ = *src++;
	for (dst = __bss_start; dst < __bss_end; dst++)
		*dst = 0;
	main();
	mcu_halt();
}

/* Any fault or unexpected interrupt: say so on the UART (it is set up first thing in main) and park. */
void Default_Handler(void)
{
	const char *m = "{\"fault\":\"unexpected exception\"}\n";
	while (*m)
		board_putc(*m++);
	mcu_halt();
}

/* Park in WFI. The first instruction is a branch on its own so that the virtual board, which stops the
 * run at mcu_halt, never has to translate (and refuse) the WFI. */
void __attribute__((naked, noreturn)) mcu_halt(void)
{
	__asm__ volatile("b 1f\n1:\twfi\n\tb 1b");
}

/* DWT: trace enable in DEMCR, then CYCCNT from zero (ARMv7-M ARM C1.8). */
void mcu_cycles_init(void)
{
	DEMCR |= 1u << 24;      /* TRCENA */
	DWT_CYCCNT = 0;
	DWT_CTRL |= 1u;         /* CYCCNTENA */
}

void mcu_flash_read(void *dst, const void *flash_src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = flash_src;
	while (n--)
		*d++ = *s++;
}
