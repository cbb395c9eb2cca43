// SPDX-License-Identifier: MIT
/* Cortex-M3 vector table: initial stack pointer, reset, and every system exception to Default_Handler
 * (the image enables no interrupt). */
#include "bench.h"

extern uint32_t __mcu_stack_top[];

__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))__mcu_stack_top, Reset_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	0, 0, 0, 0,
	Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};
