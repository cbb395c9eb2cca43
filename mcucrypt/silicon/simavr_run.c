// SPDX-License-Identifier: MIT
/* simavr_run: run an AVR benchmark image from reset on libsimavr with its peripherals (USART0, Timer1 and
 * its overflow interrupt), the way the part runs it, and print what the image sends on USART0.
 *
 * Unlike the avr board's shim (mcucrypt/boards/simavr_shim.c), which calls one function with no
 * peripheral running, this runs simavr's full loop (avr_run: instructions, cycle timers, interrupts), so
 * Timer1 counts simavr's cycles exactly as the part's counter counts its clocks.
 *
 * Usage: simavr_run MCU FREQUENCY_HZ IMAGE.elf MAX_CYCLES
 * stdout: the UART bytes; stderr: one line "cycles N". Exit: 0 the image ended (cli; sleep),
 * 3 simavr reported a crash, 4 MAX_CYCLES ran out, 2 bad usage or image. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <avr_uart.h>

static void on_uart(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	putchar((int)(value & 0xff));
}

/* simavr's messages (the ELF loader's "Loaded ..." lines among them) go to stderr, errors only: stdout
 * carries nothing but the UART. */
static void on_log(struct avr_t *avr, const int level, const char *format, va_list ap)
{
	(void)avr;
	if (level <= LOG_ERROR)
		vfprintf(stderr, format, ap);
}

int main(int argc, char **argv)
{
	avr_global_logger_set(on_log);
	if (argc != 5) {
		fprintf(stderr, "usage: %s MCU FREQUENCY_HZ IMAGE.elf MAX_CYCLES\n", argv[0]);
		return 2;
	}
	elf_firmware_t fw = {0};
	if (elf_read_firmware(argv[3], &fw) != 0) {
		fprintf(stderr, "cannot read %s\n", argv[3]);
		return 2;
	}
	avr_t *avr = avr_make_mcu_by_name(argv[1]);
	if (!avr) {
		fprintf(stderr, "simavr has no core %s\n", argv[1]);
		return 2;
	}
	avr_init(avr);
	fw.frequency = (uint32_t)strtoul(argv[2], NULL, 0);
	avr->frequency = fw.frequency;
	avr_load_firmware(avr, &fw);
	avr->frequency = fw.frequency;
	uint32_t flags = 0;
	avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
	flags &= ~AVR_UART_FLAG_STDIO;
	avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart, NULL);
	uint64_t max = strtoull(argv[4], NULL, 0);
	int state = cpu_Running;
	while (avr->cycle < max) {
		state = avr_run(avr);
		if (state == cpu_Done || state == cpu_Crashed)
			break;
	}
	fflush(stdout);
	fprintf(stderr, "cycles %llu\n", (unsigned long long)avr->cycle);
	if (state == cpu_Crashed) {
		fprintf(stderr, "simavr: crashed at pc 0x%x\n", (unsigned)avr->pc);
		return 3;
	}
	return state == cpu_Done ? 0 : 4;
}
