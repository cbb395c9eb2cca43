// SPDX-License-Identifier: MIT
/* The benchmark image's main: check every selected implementation's embedded official vectors, then time
 * every bench operation and print one JSON line per record, then a summary line.
 *
 * Timing, per operation: inputs are copied from flash into the RAM arena, the function is called once
 * untimed (warm: caches, prefetch buffers and branch predictors hold what a benchmark loop would find),
 * then MCU_RUNS times: copy inputs, time the function through its signature's trampoline, copy inputs,
 * time an empty function of the same signature through the same trampoline. A sample is
 *     function - empty + MCU_RET_CYCLES
 * i.e. the harness overhead (counter reads, argument loads, the call) is measured every run and
 * subtracted, and the callee's own return, which the virtual boards count, is added back. The record's
 * `cycles` is the median sample; `cycles_min`/`cycles_max` show the spread and `overhead_cycles` the
 * median of the empty runs. */
#include "bench.h"

/* The empty callee of the harness-overhead measurement: a bare return, valid for every signature (on
 * all three ABIs the caller removes stack arguments), so the timed empty call costs exactly the harness
 * plus one return, whatever the signature (a C function with stack arguments would build a frame). */
__asm__(".section .text.mcu_empty,\"ax\"\n"
	".global mcu_empty\n"
	MCU_EMPTY_PROLOGUE
	"mcu_empty:\n\t"
	MCU_RET_INSN "\n"
	".previous\n");

/* The stack probe: stores its own stack pointer at entry (the callee's entry SP at this call site, since it
 * is called through the same trampoline with the same arguments) in mcu_probe_sp, and returns. */
volatile uintptr_t mcu_probe_sp;
__asm__(".section .text.mcu_sp_probe,\"ax\"\n"
	".global mcu_sp_probe\n"
	MCU_PROBE_PROLOGUE
	"mcu_sp_probe:\n\t"
	MCU_PROBE_BODY "\n\t"
	MCU_RET_INSN "\n"
	".previous\n");
void mcu_sp_probe(void);

static void put(const char *s)
{
	while (*s)
		board_putc(*s++);
}

/* Print a string stored in flash (program memory on AVR). */
static void put_flash(const char *s)
{
	char c;
	for (;;) {
		mcu_flash_read(&c, s++, 1);
		if (!c)
			return;
		board_putc(c);
	}
}

static void put_u32(uint32_t v)
{
	char buf[11];
	int i = 10;
	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(buf + i);
}

static void put_board(void)
{
	put("\"board\":\"" MCU_BOARD_NAME "\",\"clock_hz\":");
	put_u32(board_clock_hz());
	put(",\"wait_states\":");
	put_u32(board_wait_states());
}

/* Arguments of one call, in the trampolines' layout: (lo, hi) per argument; buffers become pointers
 * into the arena, filled with their initial contents. */
static void prepare(const mcu_call *c, uint32_t *v)
{
	for (uint8_t i = 0; i < c->nargs; i++) {
		mcu_arg a;
		mcu_flash_read(&a, &mcu_args[c->first_arg + i], sizeof a);
		if (a.kind == ARG_SCALAR) {
			v[2 * i] = a.lo;
			v[2 * i + 1] = a.hi;
			continue;
		}
		uint8_t *p = mcu_arena + a.place;
		if (a.zero) {
			for (uint16_t k = 0; k < a.len; k++)
				p[k] = 0;
		} else {
			mcu_flash_read(p, mcu_blob + a.lo, a.len);
		}
		v[2 * i] = (uint32_t)(uintptr_t)p;
		v[2 * i + 1] = 0;
	}
}

/* 1 when every output buffer holds what the virtual board computed for the same call. */
static int outputs_match(const mcu_call *c)
{
	for (uint8_t i = 0; i < c->nargs; i++) {
		mcu_arg a;
		mcu_flash_read(&a, &mcu_args[c->first_arg + i], sizeof a);
		if (a.kind != ARG_OUT)
			continue;
		const uint8_t *p = mcu_arena + a.place;
		uint8_t want[32];
		for (uint16_t k = 0; k < a.len; k += sizeof want) {
			uint16_t n = (uint16_t)(a.len - k) < (uint16_t)sizeof want ? (uint16_t)(a.len - k) : (uint16_t)sizeof want;
			mcu_flash_read(want, mcu_blob + a.expect + k, n);
			for (uint16_t j = 0; j < n; j++)
				if (p[k + j] != want[j])
					return 0;
		}
	}
	return 1;
}

/* Run one recorded call untimed; 1 when its outputs and return value are the recorded ones. */
static int run_call(uint16_t index)
{
	mcu_call c;
	mcu_function f;
	uint32_t v[2 * MCU_MAX_ARGS];
	mcu_flash_read(&c, &mcu_calls[index], sizeof c);
	mcu_flash_read(&f, &mcu_functions[c.fn], sizeof f);
	prepare(&c, v);
	uint32_t r = f.call(f.fn, v);
	if (c.check_ret && r != c.ret)
		return 0;
	return outputs_match(&c);
}

#define STACK_PAINT 0xCD
extern uint8_t MCU_STACK_FLOOR[];      /* the first byte above .bss: nothing but the stack lives above it */

/* Leaf and frameless (volatile stores: no memset call), so it never writes below the region it paints. */
static void __attribute__((noinline)) paint(uint8_t *lo, uint8_t *hi)
{
	for (volatile uint8_t *p = lo; p < hi; p++)
		*p = STACK_PAINT;
}

/* Stack bytes a call uses, as the virtual boards count them (boards/common.py stack_high_water): from its
 * entry stack pointer (AVR: including the return address the call pushed) down to the lowest byte it
 * wrote. The stack between .bss and the callee's entry SP is painted, the call made, the paint scanned. */
static uint32_t stack_use(const mcu_call *c, const mcu_function *f, uint32_t *v)
{
	prepare(c, v);
	f->call((const void *)mcu_sp_probe, v);
	uintptr_t sp = mcu_probe_sp;
	uint8_t *lo = MCU_STACK_FLOOR, *hi = (uint8_t *)(sp + MCU_SP_FREE_OFFSET);
	prepare(c, v);
	uint8_t irq = mcu_irq_off();    /* an interrupt's frame is not the callee's stack (AVR: Timer1) */
	paint(lo, hi);
	f->call(f->fn, v);
	mcu_irq_restore(irq);
	const volatile uint8_t *p = lo;
	while (p < hi && *p == STACK_PAINT)
		p++;
	return (uint32_t)(sp + MCU_SP_TOP_OFFSET - (uintptr_t)p);
}

static void sort(uint32_t *x, uint16_t n)
{
	for (uint16_t i = 1; i < n; i++) {
		uint32_t t = x[i];
		uint16_t j = i;
		for (; j > 0 && x[j - 1] > t; j--)
			x[j] = x[j - 1];
		x[j] = t;
	}
}

static uint8_t verdicts[256];   /* per check: 1 pass, 0 fail */

int main(void)
{
	board_init();
	uint16_t failed = 0, timed = 0, nchecks, nops, runs;
	mcu_flash_read(&nchecks, &mcu_nchecks, sizeof nchecks);
	mcu_flash_read(&nops, &mcu_nops, sizeof nops);
	mcu_flash_read(&runs, &mcu_runs, sizeof runs);

	put("{\"mcucrypt\":\"silicon\",");
	put_board();
	put(",\"runs\":");
	put_u32(runs);
#ifdef MCU_HEADER_EXTRA
	put(",\"isr_cycles\":");   /* AVR: the overflow interrupt's measured cost */
	put_u32(mcu_isr_cycles);
#endif
	put_flash(mcu_image_json);
	put("}\n");

	for (uint16_t k = 0; k < nchecks && k < sizeof verdicts; k++) {
		mcu_check ch;
		mcu_flash_read(&ch, &mcu_checks[k], sizeof ch);
		uint16_t bad = 0xFFFF;
		for (uint16_t i = 0; i < ch.ncalls; i++) {
			if (!run_call(ch.first_call + i)) {
				bad = i;
				break;
			}
		}
		verdicts[k] = bad == 0xFFFF;
		failed += bad != 0xFFFF;
		put("{\"vectors\":\"");
		put(bad == 0xFFFF ? "pass" : "fail");
		put("\",");
		put_flash(ch.json);
		put(",\"checked\":");
		put_u32(ch.vectors);
		put(",\"of\":");
		put_u32(ch.total_vectors);
		put(",\"calls\":");
		put_u32(ch.ncalls);
		if (bad != 0xFFFF) {
			put(",\"failed_call\":");
			put_u32(bad);
		}
		put(",");
		put_board();
		put("}\n");
	}

	for (uint16_t k = 0; k < nops; k++) {
		mcu_op op;
		mcu_call c;
		mcu_function f;
		uint32_t v[2 * MCU_MAX_ARGS], samples[MCU_MAX_RUNS], empty[MCU_MAX_RUNS];
		mcu_flash_read(&op, &mcu_ops[k], sizeof op);
		mcu_flash_read(&c, &mcu_calls[op.call], sizeof c);
		mcu_flash_read(&f, &mcu_functions[c.fn], sizeof f);
		prepare(&c, v);
		uint32_t r = f.call(f.fn, v);                       /* warm-up, and the output check */
		int same = outputs_match(&c) && (!c.check_ret || r == c.ret);
		uint32_t stack = stack_use(&c, &f, v);
		uint16_t n = runs < MCU_MAX_RUNS ? runs : MCU_MAX_RUNS;
		for (uint16_t i = 0; i < n; i++) {
			prepare(&c, v);
			uint32_t t = f.timed(f.fn, v);
			prepare(&c, v);
			uint32_t e = f.timed(f.empty, v);
			empty[i] = e;
			samples[i] = t - e + MCU_RET_CYCLES;
		}
		sort(samples, n);
		sort(empty, n);
		uint32_t cyc = samples[n / 2];
		put_flash(op.json);
		put("\"cycles\":");
		put_u32(cyc);
		put(",\"cycles_per_byte\":");
		if (op.bytes) {
			uint32_t cpb = (uint32_t)(((uint64_t)cyc * 100 + op.bytes / 2) / op.bytes);
			put_u32(cpb / 100);
			put(".");
			put_u32(cpb / 10 % 10);
			put_u32(cpb % 10);
		} else {
			put("null");
		}
		put(",\"cycles_warm\":");
		put_u32(cyc);
		put(",\"cycles_min\":");
		put_u32(samples[0]);
		put(",\"cycles_max\":");
		put_u32(samples[n - 1]);
		put(",\"overhead_cycles\":");
		put_u32(empty[n / 2]);
		put(",\"runs\":");
		put_u32(n);
		put(",\"stack_bytes\":");
		put_u32(stack);
		put(",\"kat\":\"");
		put(op.check < sizeof verdicts && verdicts[op.check] ? "pass" : "fail");
		put("\",\"error\":");
		put(same ? "null" : "\"outputs differ from the virtual board's\"");
		failed += !same;
		put(",");
		put_board();
		put("}\n");
		timed++;
	}

	put("{\"summary\":\"");
	put(failed ? "fail" : "pass");
	put("\",\"checks\":");
	put_u32(nchecks);
	put(",\"records\":");
	put_u32(timed);
	put(",\"failed\":");
	put_u32(failed);
	put(",");
	put_board();
	put("}\n");
	mcu_halt();
	return 0;
}
