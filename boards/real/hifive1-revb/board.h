// SPDX-License-Identifier: MIT
/* HiFive1 Rev B (FE310-G002, SiFive E31 core): the benchmark image's board header. */
#ifndef MCU_BOARD_H
#define MCU_BOARD_H
#include <stdint.h>

#define MCU_BOARD_NAME "hifive1-revb"
/* `ret` (jalr x0, 0(ra)) correctly predicted by the E31's return-address stack: 1 cycle, no fetch
 * redirect (E31 manual §3.3; the rv32 board's e31_model charges the same). */
#define MCU_RET_CYCLES 1
#define MCU_RET_INSN "ret"
#define MCU_EMPTY_PROLOGUE ".type mcu_empty, @function\n"
#define MCU_PROBE_BODY "la t0, mcu_probe_sp\n\tsw sp, 0(t0)"
#define MCU_PROBE_PROLOGUE ".type mcu_sp_probe, @function\n"
#define MCU_STACK_FLOOR __mcu_free_start
#define MCU_SP_FREE_OFFSET 0   /* the callee's entry SP + this: the end of the free stack */
#define MCU_SP_TOP_OFFSET 0    /* the callee's entry SP + this: where its stack use starts */
#define MCU_FLASH __attribute__((section(".mcu_flash")))

/* mcycle, low 32 bits (the E31 counts every core clock, E31 manual §3.7). */
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
	/* csrr %0, mcycle (csrrs rd, 0xB00, x0; the 12-bit CSR number as a signed immediate, -1280), encoded so the base -march needs no Zicsr */
	__asm__ volatile(".insn i SYSTEM, 2, %0, x0, -1280" : "=r"(c) : : "memory");
	return c;
}
#endif
