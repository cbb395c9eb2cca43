// SPDX-License-Identifier: MIT
/* simavr_shim.c: a flat C API over libsimavr for the `avr` virtual board (mcucrypt/boards/avr.py).
 *
 * Why a shim: the run loop must live in C to simulate tens of millions of cycles a second and to enforce
 * the instruction budget (a Python loop per instruction would be ~100x slower), and libsimavr's API is
 * a struct full of function pointers that ctypes cannot describe portably.
 *
 * Why a pre-decoder: simavr 1.6 logs an invalid opcode and carries on as if it were a NOP, and on an
 * out-of-range data write it reports a crash but still stores to avr->data[address], outside the host
 * buffer. So before every instruction the shim decodes the opcode at PC (a 64K-entry table built once),
 * computes the data or program-memory address it will touch from X/Y/Z/SP, and refuses to run it when
 * the address is outside the part, the write hits a protected byte (the harness's canaries) or a push
 * goes below the stack floor. The same decode yields the memory trace for the constant-time checker.
 *
 * Why avr_run_one and not avr_run: avr_run (avr_callback_run_raw in simavr 1.6) executes the same single
 * instruction through avr_run_one, then services cycle timers and interrupts. The callee is a function
 * under test with no peripheral running, so that work is pure overhead (avr_run_one alone runs about
 * 1.7x faster, measured) and, were the callee to enable a timer, a source of cycles (interrupt entry)
 * that the instruction set manual does not charge to the code. Here no interrupt is ever delivered.
 *
 * Build: gcc -O2 -shared -fPIC -Wall -Wextra -Werror $(pkg-config --cflags simavr) simavr_shim.c
 *        $(pkg-config --libs simavr)
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>
#include <sim_core.h>
#include <sim_core_config.h>

#define SHIM_MCU "atmega128"
#define SHIM_SRAM_START 0x100u   /* ATmega128: 32 registers, 64 I/O, 160 extended I/O, then SRAM */
#define SHIM_MSG_LEN 256

/* Why run_until returned. Keep in sync with Status in avr.py. */
enum {
	SHIM_STOPPED = 0,         /* PC reached stop_pc with SP at stop_sp: the callee returned */
	SHIM_BUDGET = 1,          /* max_instructions executed without reaching stop_pc */
	SHIM_TRACE_FULL = 2,      /* a trace buffer is full: drain it and call run_until again */
	SHIM_INVALID_OPCODE = 3,  /* pc: a reserved encoding, or one the ATmega128 lacks (EIJMP, XCH, DES...) */
	SHIM_BAD_DATA = 4,        /* pc; address: data access above RAMEND (not executed) */
	SHIM_BAD_FLASH = 5,       /* pc; address: ELPM beyond the end of flash (not executed) */
	SHIM_PROTECTED = 6,       /* pc; address: store to a protected byte (not executed) */
	SHIM_STACK_OVERFLOW = 7,  /* pc; address: push/call below the stack floor (not executed) */
	SHIM_OUTSIDE_CODE = 8,    /* pc: the instruction that went there; address: its target */
	SHIM_UNSUPPORTED = 9,     /* pc: SPM (self-programming), outside the model */
	SHIM_SLEEP = 10,          /* pc: SLEEP; nothing would ever wake the core */
	SHIM_SIM_ERROR = 11,      /* pc: simavr reported an error or crashed; see shim_message() */
};

/* Access flags in shim_trace.acc_info */
#define SHIM_ACC_SIZE_MASK 0x03u
#define SHIM_ACC_FLASH 0x40u
#define SHIM_ACC_WRITE 0x80u

/* Caller-provided trace buffers; the shim appends and bumps n_pcs/n_acc. */
typedef struct {
	uint32_t *pcs;
	uint32_t pcs_cap;
	uint32_t n_pcs;
	uint32_t *acc_pc;
	uint32_t *acc_addr;     /* data-space address, or program-memory byte address when SHIM_ACC_FLASH */
	uint8_t *acc_info;      /* size (1 or 2) | SHIM_ACC_FLASH | SHIM_ACC_WRITE */
	uint32_t acc_cap;
	uint32_t n_acc;
} shim_trace;

typedef struct {
	uint64_t cycles;        /* simavr cycles spent by this run_until */
	uint64_t instructions;  /* instructions executed by this run_until */
	uint32_t pc;            /* PC the run ended at (the offending instruction on a fault) */
	uint32_t address;       /* the offending address or jump target, for the statuses that say so */
} shim_result;

typedef struct {
	avr_t *avr;
	uint32_t code_end;      /* byte address just above the program: executing at or above it is a fault */
	uint16_t stack_floor;   /* lowest data address a push/call may write */
	uint8_t *protect;       /* one byte per data address: nonzero = writes forbidden */
	int sim_error;          /* simavr logged an error during the current step */
	char message[SHIM_MSG_LEN];
} shim_t;

/* Opcode classes, one per encoding. Memory-touching classes say how to find the address. */
enum {
	K_PLAIN = 0,   /* touches registers and I/O at fixed addresses only */
	K_INVALID,
	K_SPM,
	K_LDD_Y,       /* LD/ST/LDD/STD Y+q (q = 0 for plain LD/ST Y) */
	K_LDD_Z,
	K_LD_X, K_LD_XINC, K_LD_XDEC,
	K_LD_YINC, K_LD_YDEC,
	K_LD_ZINC, K_LD_ZDEC,
	K_LDS,         /* LDS/STS with the address in the next word */
	K_PUSH, K_POP,
	K_CALL,        /* CALL, RCALL, ICALL: push a 2-byte return address */
	K_RET,         /* RET, RETI: pop a 2-byte return address */
	K_LPM,         /* LPM, LPM Rd,Z, LPM Rd,Z+ */
	K_ELPM,        /* ELPM, ELPM Rd,Z, ELPM Rd,Z+: RAMPZ:Z */
};

static uint8_t opclass[65536];

/* Class of an opcode per the AVR Instruction Set Manual for an AVRe+ core with 128 KiB flash and no EIND. */
static uint8_t classify(uint16_t o)
{
	switch (o >> 12) {
	case 0x0:
		/* 0000 0000 xxxx xxxx is NOP (0x0000) or reserved; 0x01..0x0f: MOVW, MULS, MULSU/FMUL*, CPC, SBC, ADD */
		return (o & 0xff00) == 0 && o != 0 ? K_INVALID : K_PLAIN;
	case 0x8:
	case 0xa:      /* 10q0 qqsd dddd yqqq */
		return (o & 0x0008) ? K_LDD_Y : K_LDD_Z;
	case 0x9:
		if ((o & 0xfc00) == 0x9000) {   /* 1001 00sd dddd xxxx */
			const int store = o & 0x0200;
			switch (o & 0xf) {
			case 0x0: return K_LDS;
			case 0x1: return K_LD_ZINC;
			case 0x2: return K_LD_ZDEC;
			case 0x4: case 0x5: return store ? K_INVALID : K_LPM;    /* stores: XCH, LAS (XMEGA) */
			case 0x6: case 0x7: return store ? K_INVALID : K_ELPM;   /* stores: LAC, LAT (XMEGA) */
			case 0x9: return K_LD_YINC;
			case 0xa: return K_LD_YDEC;
			case 0xc: return K_LD_X;
			case 0xd: return K_LD_XINC;
			case 0xe: return K_LD_XDEC;
			case 0xf: return store ? K_PUSH : K_POP;
			default: return K_INVALID;   /* 0x3, 0x8, 0xb */
			}
		}
		if ((o & 0xfe00) == 0x9400) {   /* 1001 010x xxxx xxxx */
			switch (o & 0xf) {
			case 0x4: return K_INVALID;
			case 0x8:
				if (!(o & 0x0100))
					return K_PLAIN;   /* BSET/BCLR */
				switch (o) {
				case 0x9508: case 0x9518: return K_RET;
				case 0x9588: case 0x9598: case 0x95a8: return K_PLAIN;   /* SLEEP, BREAK, WDR */
				case 0x95c8: return K_LPM;
				case 0x95d8: return K_ELPM;
				case 0x95e8: return K_SPM;
				default: return K_INVALID;   /* includes SPM Z+ (XMEGA) */
				}
			case 0x9:
				if (o == 0x9409)
					return K_PLAIN;   /* IJMP */
				if (o == 0x9509)
					return K_CALL;    /* ICALL */
				return K_INVALID;         /* EIJMP/EICALL need EIND, which the ATmega128 lacks */
			case 0xb: return K_INVALID;    /* DES (XMEGA) and reserved */
			case 0xc: case 0xd: return K_PLAIN;   /* JMP */
			case 0xe: case 0xf: return K_CALL;    /* CALL */
			default: return K_PLAIN;   /* COM NEG SWAP INC ASR LSR ROR DEC */
			}
		}
		return K_PLAIN;   /* ADIW SBIW CBI SBIC SBI SBIS MUL */
	case 0xd:
		return K_CALL;    /* RCALL */
	case 0xf:
		/* BLD/BST/SBRC/SBRS: 1111 1xxd dddd 0bbb; bit 3 set is reserved (0xffff, erased flash, is one) */
		return (o & 0x0800) && (o & 0x0008) ? K_INVALID : K_PLAIN;
	default:
		return K_PLAIN;   /* CPSE CP SUB ADC AND EOR OR MOV CPI SBCI SUBI ORI ANDI IN OUT RJMP LDI BRBS/BRBC */
	}
}

/* simavr's logger is process-wide; it reports into the shim whose run is in progress on this thread. */
static _Thread_local shim_t *running;

static void shim_logger(avr_t *avr, const int level, const char *format, va_list ap)
{
	(void)avr;
	if (running == NULL || level != LOG_ERROR || running->sim_error)
		return;
	running->sim_error = 1;
	vsnprintf(running->message, sizeof running->message, format, ap);
}

const char *shim_version(void)
{
	return CONFIG_SIMAVR_VERSION;
}

/* Built when the library is loaded, before any thread can run a shim. */
__attribute__((constructor)) static void build_opclass(void)
{
	for (uint32_t o = 0; o < 65536; o++)
		opclass[o] = classify((uint16_t)o);
}

shim_t *shim_create(void)
{
	avr_global_logger_set(shim_logger);
	shim_t *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->avr = avr_make_mcu_by_name(SHIM_MCU);
	if (s->avr == NULL || avr_init(s->avr) != 0) {
		free(s->avr);
		free(s);
		return NULL;
	}
	s->protect = calloc((size_t)s->avr->ramend + 1, 1);
	if (s->protect == NULL) {
		avr_terminate(s->avr);
		free(s->avr);
		free(s);
		return NULL;
	}
	return s;
}

void shim_destroy(shim_t *s)
{
	if (s == NULL)
		return;
	avr_terminate(s->avr);
	free(s->avr);
	free(s->protect);
	free(s);
}

uint32_t shim_ramend(const shim_t *s) { return s->avr->ramend; }
uint32_t shim_flashend(const shim_t *s) { return s->avr->flashend; }
uint32_t shim_frequency(const shim_t *s) { return s->avr->frequency; }
uint32_t shim_pc_bytes(const shim_t *s) { return s->avr->address_size; }
const char *shim_message(const shim_t *s) { return s->message; }

/* Peripherals back to their reset state, registers (r1 = __zero_reg__ included), SREG and SRAM zeroed,
 * protections cleared, core running. avr_reset alone leaves the register file and SRAM as they were.
 * SREG is kept twice by simavr, split into avr->sreg[] (what the core reads) and in data[0x5f]. */
void shim_reset(shim_t *s)
{
	avr_t *avr = s->avr;
	avr_reset(avr);
	memset(avr->data, 0, 32);
	memset(avr->data + SHIM_SRAM_START, 0, avr->ramend + 1 - SHIM_SRAM_START);
	memset(s->protect, 0, (size_t)avr->ramend + 1);
	memset(avr->sreg, 0, sizeof avr->sreg);
	avr->data[R_SREG] = 0;
	avr->state = cpu_Running;
	s->sim_error = 0;
	s->message[0] = '\0';
}

int shim_load_flash(shim_t *s, uint32_t address, const uint8_t *bytes, uint32_t size)
{
	if ((uint64_t)address + size > (uint64_t)s->avr->flashend + 1)
		return -1;
	memcpy(s->avr->flash + address, bytes, size);
	return 0;
}

int shim_write_data(shim_t *s, uint32_t address, const uint8_t *bytes, uint32_t size)
{
	if ((uint64_t)address + size > (uint64_t)s->avr->ramend + 1)
		return -1;
	memcpy(s->avr->data + address, bytes, size);
	return 0;
}

int shim_read_data(const shim_t *s, uint32_t address, uint8_t *bytes, uint32_t size)
{
	if ((uint64_t)address + size > (uint64_t)s->avr->ramend + 1)
		return -1;
	memcpy(bytes, s->avr->data + address, size);
	return 0;
}

void shim_set_pc(shim_t *s, uint32_t pc) { s->avr->pc = pc; }
void shim_set_stack_floor(shim_t *s, uint16_t floor) { s->stack_floor = floor; }

/* Every instruction must lie below code_end; two bytes of slack keep the second word of an LDS/STS/JMP/CALL
 * (and simavr's look-ahead when it skips one) inside the flash array. */
int shim_set_code_end(shim_t *s, uint32_t code_end)
{
	if (code_end > s->avr->flashend + 1 - 2)
		return -1;
	s->code_end = code_end;
	return 0;
}

int shim_protect(shim_t *s, uint32_t start, uint32_t end)
{
	if (start > end || end > (uint32_t)s->avr->ramend + 1)
		return -1;
	memset(s->protect + start, 1, end - start);
	return 0;
}

static inline uint16_t reg16(const avr_t *avr, int lo)
{
	return (uint16_t)(avr->data[lo] | (avr->data[lo + 1] << 8));
}

static inline uint16_t flash16(const avr_t *avr, uint32_t pc)
{
	return (uint16_t)(avr->flash[pc] | (avr->flash[pc + 1] << 8));
}

/* Run from the current PC until the callee returns (PC = stop_pc with SP = stop_sp, so that a stray jump
 * to stop_pc is not taken for a return), a fault, or max_instructions; see the SHIM_* codes. trace may be
 * NULL. On a fault the offending instruction has not been executed, except for SHIM_SLEEP and
 * SHIM_SIM_ERROR, which simavr reports after the fact. */
int shim_run_until(shim_t *s, uint32_t stop_pc, uint16_t stop_sp, uint64_t max_instructions,
		   shim_trace *trace, shim_result *res)
{
	avr_t *const avr = s->avr;
	const uint16_t ramend = avr->ramend;
	const avr_cycle_count_t cycle0 = avr->cycle;
	uint64_t n = 0;
	uint32_t prev_pc = avr->pc;
	int status;

	running = s;
	for (;;) {
		const uint32_t pc = avr->pc;
		res->pc = pc;
		if (pc == stop_pc && reg16(avr, R_SPL) == stop_sp) {
			status = SHIM_STOPPED;
			break;
		}
		if (pc >= s->code_end) {
			res->pc = prev_pc;
			res->address = pc;
			status = SHIM_OUTSIDE_CODE;
			break;
		}
		if (n >= max_instructions) {
			status = SHIM_BUDGET;
			break;
		}
		if (trace && (trace->n_pcs >= trace->pcs_cap || trace->n_acc >= trace->acc_cap)) {
			status = SHIM_TRACE_FULL;
			break;
		}

		const uint16_t op = flash16(avr, pc);
		const uint8_t kind = opclass[op];
		if (kind != K_PLAIN) {
			uint32_t addr = 0;
			unsigned size = 1, write = (op & 0x0200) != 0, flash = 0;
			const uint16_t sp = reg16(avr, R_SPL);
			switch (kind) {
			case K_INVALID: status = SHIM_INVALID_OPCODE; goto out;
			case K_SPM: status = SHIM_UNSUPPORTED; goto out;
			case K_LDD_Y:
			case K_LDD_Z: {
				const unsigned q = ((op >> 8) & 0x20) | ((op >> 7) & 0x18) | (op & 0x7);
				addr = (uint16_t)(reg16(avr, kind == K_LDD_Y ? R_YL : R_ZL) + q);
				break;
			}
			case K_LD_X: case K_LD_XINC: addr = reg16(avr, R_XL); break;
			case K_LD_XDEC: addr = (uint16_t)(reg16(avr, R_XL) - 1); break;
			case K_LD_YINC: addr = reg16(avr, R_YL); break;
			case K_LD_YDEC: addr = (uint16_t)(reg16(avr, R_YL) - 1); break;
			case K_LD_ZINC: addr = reg16(avr, R_ZL); break;
			case K_LD_ZDEC: addr = (uint16_t)(reg16(avr, R_ZL) - 1); break;
			case K_LDS: addr = flash16(avr, pc + 2); break;
			case K_PUSH:
			case K_CALL:
				write = 1;
				size = kind == K_CALL ? 2 : 1;
				addr = (uint16_t)(sp - (size - 1));
				if (sp > ramend || addr > ramend) {
					res->address = sp > ramend ? sp : addr;
					status = SHIM_BAD_DATA;
					goto out;
				}
				if (addr < s->stack_floor) {
					res->address = addr;
					status = SHIM_STACK_OVERFLOW;
					goto out;
				}
				break;
			case K_POP:
			case K_RET:
				write = 0;
				size = kind == K_RET ? 2 : 1;
				addr = (uint16_t)(sp + 1);
				if ((uint32_t)addr + size - 1 > ramend) {
					res->address = addr;
					status = SHIM_BAD_DATA;
					goto out;
				}
				break;
			case K_LPM:
				write = 0;
				flash = 1;
				addr = reg16(avr, R_ZL);
				break;
			case K_ELPM:
				write = 0;
				flash = 1;
				addr = ((uint32_t)avr->data[avr->rampz] << 16) | reg16(avr, R_ZL);
				if (addr > avr->flashend) {
					res->address = addr;
					status = SHIM_BAD_FLASH;
					goto out;
				}
				break;
			default:
				break;
			}
			if (!flash) {
				if (addr > ramend) {
					res->address = addr;
					status = SHIM_BAD_DATA;
					goto out;
				}
				if (write && (s->protect[addr] || (size == 2 && s->protect[addr + 1]))) {
					res->address = s->protect[addr] ? addr : addr + 1;
					status = SHIM_PROTECTED;
					goto out;
				}
			}
			if (trace) {
				trace->acc_pc[trace->n_acc] = pc;
				trace->acc_addr[trace->n_acc] = addr;
				trace->acc_info[trace->n_acc] = (uint8_t)(size | (flash ? SHIM_ACC_FLASH : 0) |
									  (write ? SHIM_ACC_WRITE : 0));
				trace->n_acc++;
			}
		}
		if (trace)
			trace->pcs[trace->n_pcs++] = pc;

		avr->pc = avr_run_one(avr);
		n++;
		prev_pc = pc;
		if (s->sim_error || avr->state == cpu_Crashed || avr->state == cpu_Stopped) {
			if (!s->sim_error)
				snprintf(s->message, sizeof s->message, "simavr stopped the core (state %d)", avr->state);
			status = SHIM_SIM_ERROR;
			break;
		}
		if (avr->state != cpu_Running) {
			status = SHIM_SLEEP;
			break;
		}
	}
out:
	running = NULL;
	res->cycles = avr->cycle - cycle0;
	res->instructions = n;
	return status;
}
