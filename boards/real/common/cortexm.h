// SPDX-License-Identifier: MIT
/* Cortex-M3 boards' shared definitions (included by their board.h). */
#ifndef MCU_CORTEXM_H
#define MCU_CORTEXM_H
#include <stdint.h>

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

/* `bx lr` / `pop {..., pc}`: 1 cycle plus the pipeline refill P (Cortex-M3 TRM Table 18-1; the armv7m
 * board's cm3_model charges P = 1 for a refill from a word-aligned 16-bit target, 2 otherwise). */
#define MCU_RET_CYCLES 2
#define MCU_RET_INSN "bx lr"
#define MCU_EMPTY_PROLOGUE ".thumb\n.thumb_func\n.type mcu_empty, %function\n"
#define MCU_PROBE_BODY "ldr r1, =mcu_probe_sp\n\tmov r2, sp\n\tstr r2, [r1]"
#define MCU_PROBE_PROLOGUE ".thumb\n.thumb_func\n.type mcu_sp_probe, %function\n"
#define MCU_STACK_FLOOR __mcu_free_start
#define MCU_SP_FREE_OFFSET 0   /* the callee's entry SP + this: the end of the free stack */
#define MCU_SP_TOP_OFFSET 0    /* the callee's entry SP + this: where its stack use starts */
#define MCU_FLASH __attribute__((section(".mcu_flash")))

/* The image enables no interrupt on this board. */
static inline uint8_t mcu_irq_off(void)
{
	return 0;
}

static inline void mcu_irq_restore(uint8_t state)
{
	(void)state;
}

static inline uint32_t mcu_cycles(void)
{
	uint32_t c;
	__asm__ volatile("ldr %0, [%1]" : "=r"(c) : "r"(&DWT_CYCCNT) : "memory");
	return c;
}

void mcu_cycles_init(void);
void Reset_Handler(void);
void Default_Handler(void);
#endif
