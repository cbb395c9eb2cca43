// SPDX-License-Identifier: MIT
/* The benchmark image's contract between the generic runner (runner.c), the generated tables (image.c,
 * written by mcucrypt/silicon/image.py) and one real board's support files (boards/real/<board>/).
 *
 * A board provides board.h with:
 *   MCU_BOARD_NAME        the board's name as `mcucrypt firmware --board` spells it
 *   MCU_RET_CYCLES        cycles of the return instruction on this core (the harness subtracts the timed
 *                         empty function entirely, but the virtual boards count the callee's return)
 *   MCU_FLASH             attribute putting constant data in flash (AVR: program memory)
 *   MCU_RET_INSN          the return instruction, MCU_EMPTY_PROLOGUE the directives before a function label
 *   mcu_cycles()          static inline: the free-running cycle counter, 32 bits
 *   mcu_irq_off(), mcu_irq_restore(state)   static inline: mask the board's interrupts and restore them
 * and, in its .c files: board_init, board_putc, board_clock_hz, board_wait_states, mcu_flash_read and
 * the reset code that calls main. */
#ifndef MCU_BENCH_H
#define MCU_BENCH_H

#include <stdint.h>
#include <stddef.h>

#include "board.h"

void board_init(void);                  /* clocks, flash wait states, UART, cycle counter */
void board_putc(char c);                /* blocking UART transmit */
uint32_t board_clock_hz(void);          /* the core clock board_init achieved */
uint8_t board_wait_states(void);        /* flash wait states set for that clock */
void mcu_flash_read(void *dst, const void *flash_src, size_t n);  /* copy constant data into RAM */
void mcu_halt(void);                    /* end of the run: the virtual boards stop here */
void mcu_empty(void);                   /* a bare return (runner.c): the harness-overhead callee */
int main(void);

/* One argument of one recorded call. */
enum { ARG_SCALAR = 0, ARG_IN = 1, ARG_OUT = 2 };
typedef struct {
	uint32_t lo, hi;        /* scalar value; for buffers: lo = blob offset of the initial contents */
	uint32_t expect;        /* blob offset of the expected contents after the call (out buffers) */
	uint16_t len;           /* buffer length */
	uint16_t place;         /* offset of the buffer in the RAM arena */
	uint8_t kind;           /* ARG_* */
	uint8_t zero;           /* buffer starts as zeros (no initial contents in the blob) */
} mcu_arg;

/* One recorded call: which function, its arguments, its return value. */
typedef struct {
	uint16_t fn;            /* index into mcu_functions */
	uint16_t first_arg;     /* index into mcu_args */
	uint8_t nargs;
	uint8_t check_ret;
	uint32_t ret;
} mcu_call;

/* A callable API function: its address and the trampolines of its signature. */
typedef uint32_t (*mcu_call_fn)(const void *fn, const uint32_t *v);          /* returns the return value */
typedef uint32_t (*mcu_timed_fn)(const void *fn, const uint32_t *v);         /* returns cycles */
typedef struct {
	const void *fn;
	const void *empty;      /* a function of the same signature that only returns */
	mcu_call_fn call;
	mcu_timed_fn timed;
} mcu_function;

/* One implementation's vector check: a run of calls. */
typedef struct {
	uint16_t first_call, ncalls;
	uint16_t vectors;       /* official vectors these calls check */
	uint16_t total_vectors; /* vectors the primitive id has (more than `vectors` when a subset is embedded) */
	const char *json;       /* "\"prim\":...,\"impl\":..." (in flash) */
} mcu_check;

/* One bench operation: a call timed N times, and its record's fixed JSON fields. */
typedef struct {
	uint16_t call;
	uint16_t check;         /* the mcu_check whose verdict is this record's `kat` */
	uint32_t bytes;
	const char *json;       /* "{\"prim\":...,\"op\":...,\"bytes\":16," (in flash) */
} mcu_op;

extern const mcu_function mcu_functions[];
extern const mcu_arg mcu_args[];
extern const mcu_call mcu_calls[];
extern const mcu_check mcu_checks[];
extern const mcu_op mcu_ops[];
extern const uint8_t mcu_blob[];
extern const uint16_t mcu_nchecks, mcu_nops, mcu_runs;
extern const char mcu_image_json[];     /* ",\"image\":\"...\"" (in flash) */
extern uint8_t mcu_arena[];
extern const uint16_t mcu_arena_size;

#define MCU_MAX_ARGS 12      /* mcucrypt/silicon/image.py refuses a function with more */
#define MCU_MAX_RUNS 31

#endif
