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
 * Why taint tracking here: the constant-time checker's taint mode (call(..., taint=TaintSpec)) needs every
 * instruction's data flow, and only the run loop sees every instruction. With taint on, the loop calls
 * taint_step() before each instruction runs: it decodes the opcode (a second 64K-entry table), reads the
 * current X/Y/Z/SP to find the address the instruction will use, reports a secret-dependent branch,
 * skip, indirect jump, return or address, and moves the shadow labels: one byte per data-space byte
 * (r0..r31, I/O, SRAM: registers and SP are memory-mapped, so one array holds them all) and one per SREG
 * flag, each a bitmask of up to 8 secret labels. Program memory holds no secrets (LPM's result carries
 * only the taint of its address). See docs/board-avr.md, "Taint tracking".
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

/* The part is chosen at shim_create (atmega128, atmega1284p, atmega2560: mcucrypt/cores.py). SRAM starts
 * just above the part's I/O space (simavr's ioend): 0x100 on the ATmega128 and ATmega1284P (64 I/O and
 * 160 extended I/O registers), 0x200 on the ATmega2560 (416 extended I/O registers). CALL/RET move
 * avr->address_size bytes: 2, or 3 on the ATmega2560 (a 17-bit word PC), which also has EIND for
 * EICALL/EIJMP. */
#define SHIM_SRAM_START(avr) ((uint32_t)(avr)->ioend + 1u)
#define SHIM_MSG_LEN 256

/* Why run_until returned. Keep in sync with Status in avr.py. */
enum {
	SHIM_STOPPED = 0,         /* PC reached stop_pc with SP at stop_sp: the callee returned */
	SHIM_BUDGET = 1,          /* max_instructions executed without reaching stop_pc */
	SHIM_TRACE_FULL = 2,      /* a trace buffer is full: drain it and call run_until again */
	SHIM_INVALID_OPCODE = 3,  /* pc: a reserved encoding, or one the part lacks (EIJMP without EIND, XCH, DES...) */
	SHIM_BAD_DATA = 4,        /* pc; address: data access above RAMEND (not executed) */
	SHIM_BAD_FLASH = 5,       /* pc; address: ELPM beyond the end of flash (not executed) */
	SHIM_PROTECTED = 6,       /* pc; address: store to a protected byte (not executed) */
	SHIM_STACK_OVERFLOW = 7,  /* pc; address: push/call below the stack floor (not executed) */
	SHIM_OUTSIDE_CODE = 8,    /* pc: the instruction that went there; address: its target */
	SHIM_UNSUPPORTED = 9,     /* pc: SPM (self-programming), outside the model */
	SHIM_SLEEP = 10,          /* pc: SLEEP; nothing would ever wake the core */
	SHIM_SIM_ERROR = 11,      /* pc: simavr reported an error or crashed; see shim_message() */
	SHIM_ABI = 12,            /* pc: a RET that returns with a call-saved register changed or r1 != 0
	                           * (not executed); address: the callee's entry; see shim_message() */
};

/* avr-gcc's call-saved registers (r2..r17, r28, r29; argument registers included: a caller may keep an
 * argument in one after the call) and __zero_reg__ (r1, 0 at every call and return). The run loop
 * snapshots them at every CALL/RCALL/ICALL/EICALL and, when the callee is one of the C-ABI entries the
 * board marked (shim_abi_entry: the ELF's global functions; an assembly file's local subroutines may
 * have private conventions), checks them at the RET that pops that return address, so an assembly routine
 * that breaks the ABI faults where it returns, whoever called it. */
#define SHIM_ABI_DEPTH 64
static const uint8_t call_saved[18] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29};

typedef struct {
	uint16_t sp;            /* SP before the call pushed its return address */
	uint32_t entry;         /* the callee's first instruction */
	uint8_t regs[sizeof call_saved];
} shim_frame;

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
	uint8_t *acc_info;      /* size (1, 2, or 3 for a 3-byte return address) | SHIM_ACC_FLASH | SHIM_ACC_WRITE */
	uint32_t acc_cap;
	uint32_t n_acc;
} shim_trace;

typedef struct {
	uint64_t cycles;        /* simavr cycles spent by this run_until */
	uint64_t instructions;  /* instructions executed by this run_until */
	uint32_t pc;            /* PC the run ended at (the offending instruction on a fault) */
	uint32_t address;       /* the offending address or jump target, for the statuses that say so */
} shim_result;

/* Kinds of taint finding. Keep in sync with _TAINT_KINDS in avr.py. */
enum { SHIM_TAINT_BRANCH = 0, SHIM_TAINT_INDIRECT = 1, SHIM_TAINT_ADDRESS = 2, SHIM_TAINT_IO = 3 };

/* One taint finding: the first time (pc, kind) carried secret labels. */
typedef struct {
	uint32_t pc;
	uint8_t kind;           /* SHIM_TAINT_* */
	uint8_t labels;         /* bitmask of the secret labels involved */
	char detail[46];        /* what carried the taint, e.g. "flag C", "pointer Z (r30:r31)" */
} shim_finding;

/* One call of mcu_declassify whose argument carried labels (the checker's policy judges the value). */
typedef struct {
	uint32_t value;         /* r22..r25 at the entry */
	uint32_t caller;        /* the return address the call pushed (byte address) */
	uint8_t labels;
} shim_declassified;

#define SHIM_DECLASSIFIED_MAX 256   /* recorded in full; beyond, counted only (the count is the finding) */

typedef struct {
	avr_t *avr;
	uint32_t code_end;      /* byte address just above the program: executing at or above it is a fault */
	uint16_t stack_floor;   /* lowest data address a push/call may write */
	uint8_t *protect;       /* one byte per data address: nonzero = writes forbidden */
	int sim_error;          /* simavr logged an error during the current step */
	char message[SHIM_MSG_LEN];
	/* taint tracking (shim_taint_*) */
	int taint_on;
	uint32_t declassify_pc; /* entry of mcu_declassify: its argument r22..r25 loses its taint there */
	uint8_t *tdata;         /* label mask per data-space byte, r0..r31 and I/O included */
	uint8_t tflag[8];       /* label mask per SREG flag, indexed S_C..S_I */
	uint8_t *seen;          /* per flash word: bit k set once a finding of kind k was recorded there */
	shim_finding *findings;
	uint32_t n_findings, cap_findings;
	shim_declassified declassified[SHIM_DECLASSIFIED_MAX];
	uint32_t n_declassified;
	/* ABI monitor: the calls in progress, innermost last (deeper ones are counted, not checked) */
	shim_frame frames[SHIM_ABI_DEPTH];
	uint32_t depth;
	uint8_t *abi_entry;     /* per flash word: 1 = a C-ABI entry point whose returns are checked */
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
	K_CALL,        /* CALL, RCALL, ICALL: push a return address (avr->address_size bytes) */
	K_RET,         /* RET, RETI: pop a return address */
	K_EIJMP,       /* EIJMP: EIND:Z; invalid on a part without EIND */
	K_EICALL,      /* EICALL: EIND:Z, pushes a return address; invalid on a part without EIND */
	K_LPM,         /* LPM, LPM Rd,Z, LPM Rd,Z+ */
	K_ELPM,        /* ELPM, ELPM Rd,Z, ELPM Rd,Z+: RAMPZ:Z */
};

static uint8_t opclass[65536];

/* Class of an opcode per the AVR Instruction Set Manual for an AVRe+ core (the table is shared by every part;
 * the run loop refuses EIJMP/EICALL on a part without EIND). */
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
				if (o == 0x9419)
					return K_EIJMP;
				if (o == 0x9519)
					return K_EICALL;
				return K_INVALID;
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

shim_t *shim_create(const char *mcu)
{
	avr_global_logger_set(shim_logger);
	shim_t *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->avr = avr_make_mcu_by_name(mcu);
	if (s->avr == NULL || avr_init(s->avr) != 0) {
		free(s->avr);
		free(s);
		return NULL;
	}
	s->protect = calloc((size_t)s->avr->ramend + 1, 1);
	s->abi_entry = calloc(((size_t)s->avr->flashend + 1) / 2, 1);
	if (s->protect == NULL || s->abi_entry == NULL) {
		free(s->protect);
		free(s->abi_entry);
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
	free(s->abi_entry);
	free(s->tdata);
	free(s->seen);
	free(s->findings);
	free(s);
}

uint32_t shim_ramend(const shim_t *s) { return s->avr->ramend; }
uint32_t shim_sram_start(const shim_t *s) { return SHIM_SRAM_START(s->avr); }
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
	memset(avr->data + SHIM_SRAM_START(avr), 0, avr->ramend + 1 - SHIM_SRAM_START(avr));
	if (avr->rampz)
		avr->data[avr->rampz] = 0;
	if (avr->eind)
		avr->data[avr->eind] = 0;
	memset(s->protect, 0, (size_t)avr->ramend + 1);
	memset(avr->sreg, 0, sizeof avr->sreg);
	avr->data[R_SREG] = 0;
	avr->state = cpu_Running;
	s->depth = 0;
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

/* Mark (on) the function at byte address pc as a C-ABI entry whose returns are checked; pc = 0xffffffff
 * with on = 0 clears every mark (a new program). */
int shim_abi_entry(shim_t *s, uint32_t pc, int on)
{
	const size_t words = ((size_t)s->avr->flashend + 1) / 2;
	if (pc == 0xffffffffu && !on) {
		memset(s->abi_entry, 0, words);
		return 0;
	}
	if (pc / 2 >= words)
		return -1;
	s->abi_entry[pc / 2] = (uint8_t)(on != 0);
	return 0;
}
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

/* ------------------------------------------------------------------------------------------------
 * Taint tracking
 *
 * Rules (byte granularity; a result's labels are the union of its operands' labels):
 * - ALU: the destination and the flags the instruction writes take the operands' labels; ADC/SBC/SBCI/
 *   CPC/ROL/ROR also take the carry's, and SBC/SBCI/CPC's Z also keeps the old Z's (Z is sticky there).
 *   Flags an instruction sets to a constant (V after AND/OR/EOR/COM, C after COM, N after LSR, the flag
 *   of BSET/BCLR) are cleared. EOR/SUB/CP/CPC/SBC r,r and CPSE r,r do not depend on r: EOR r,r and SUB r,r
 *   give a public 0, SBC/CPC r,r depend on the carry only. LDI, ANDI r,0 and ORI r,0xff give constants.
 * - MUL/MULS/MULSU/FMUL*: r1:r0, C and Z take both operands' labels (fixed 2 cycles: no latency finding).
 * - ADIW/SBIW, X+/-X, Y+/-Y, Z+/-Z: the high byte of the pointer takes the low byte's labels (carry).
 * - Loads: the destination takes the byte's labels and the pointer's; stores: the byte takes the source
 *   register's and the pointer's. PUSH/POP/CALL/RET use SP's labels as their pointer's. SREG read or written
 *   as a byte (IN/OUT/LDS/STS/LD/ST at 0x5F) is the union of / sets all eight flags.
 * - Findings: a branch (BRBS/BRBC on a tainted flag), a skip (CPSE/SBRC/SBRS/SBIC/SBIS on a tainted
 *   operand), an indirect jump (IJMP/ICALL through a tainted Z, a RET/RETI popping a tainted address) and
 *   an address (LD/ST/LDD/STD/LPM/ELPM through a tainted X/Y/Z/RAMPZ, PUSH/POP/CALL/RET with a tainted SP),
 *   and a secret written to an I/O register other than SREG/SP/RAMPZ/EIND and the GPIOR scratch ones
 *   (t_io: the hardware acts on it, e.g. PINx reads back what PORTx drove).
 */
enum {
	T_NOP = 0, T_MOVW, T_MULS, T_MULSU, T_MUL,
	T_CPC, T_SBC, T_ADD, T_CPSE, T_CP, T_SUB, T_ADC, T_AND, T_EOR, T_OR, T_MOV,
	T_CPI, T_SBCI, T_SUBI, T_ORI, T_ANDI, T_LDI,
	T_LDD_Y, T_LDD_Z, T_STD_Y, T_STD_Z, T_LDS, T_STS,
	T_LD_X, T_LD_XINC, T_LD_XDEC, T_LD_YINC, T_LD_YDEC, T_LD_ZINC, T_LD_ZDEC,
	T_ST_X, T_ST_XINC, T_ST_XDEC, T_ST_YINC, T_ST_YDEC, T_ST_ZINC, T_ST_ZDEC,
	T_LPM0, T_LPM, T_LPMINC, T_ELPM0, T_ELPM, T_ELPMINC,
	T_POP, T_PUSH,
	T_COM, T_NEG, T_INC, T_ASR, T_LSR, T_ROR, T_DEC,
	T_BSET, T_BCLR, T_RET, T_RETI, T_IJMP, T_ICALL, T_CALL,
	T_ADIW, T_SBIC, T_SBIS, T_IN, T_OUT, T_BRB, T_BLD, T_BST, T_SBRX,
};

static uint8_t tclass[65536];

/* Taint class of an opcode; invalid encodings are T_NOP (the run loop faults on them first). */
static uint8_t tclassify(uint16_t o)
{
	switch (o >> 12) {
	case 0x0:
		switch ((o >> 8) & 0xf) {
		case 0x0: return T_NOP;
		case 0x1: return T_MOVW;
		case 0x2: return T_MULS;
		case 0x3: return T_MULSU;   /* MULSU, FMUL, FMULS, FMULSU */
		case 0x4: case 0x5: case 0x6: case 0x7: return T_CPC;
		case 0x8: case 0x9: case 0xa: case 0xb: return T_SBC;
		default: return T_ADD;
		}
	case 0x1: {
		static const uint8_t c[4] = {T_CPSE, T_CP, T_SUB, T_ADC};
		return c[(o >> 10) & 3];
	}
	case 0x2: {
		static const uint8_t c[4] = {T_AND, T_EOR, T_OR, T_MOV};
		return c[(o >> 10) & 3];
	}
	case 0x3: return T_CPI;
	case 0x4: return T_SBCI;
	case 0x5: return T_SUBI;
	case 0x6: return T_ORI;
	case 0x7: return T_ANDI;
	case 0x8:
	case 0xa: {
		const int store = (o & 0x0200) != 0, y = (o & 0x0008) != 0;
		return store ? (y ? T_STD_Y : T_STD_Z) : (y ? T_LDD_Y : T_LDD_Z);
	}
	case 0x9:
		if ((o & 0xfc00) == 0x9000) {
			const int store = (o & 0x0200) != 0;
			switch (o & 0xf) {
			case 0x0: return store ? T_STS : T_LDS;
			case 0x1: return store ? T_ST_ZINC : T_LD_ZINC;
			case 0x2: return store ? T_ST_ZDEC : T_LD_ZDEC;
			case 0x4: return store ? T_NOP : T_LPM;
			case 0x5: return store ? T_NOP : T_LPMINC;
			case 0x6: return store ? T_NOP : T_ELPM;
			case 0x7: return store ? T_NOP : T_ELPMINC;
			case 0x9: return store ? T_ST_YINC : T_LD_YINC;
			case 0xa: return store ? T_ST_YDEC : T_LD_YDEC;
			case 0xc: return store ? T_ST_X : T_LD_X;
			case 0xd: return store ? T_ST_XINC : T_LD_XINC;
			case 0xe: return store ? T_ST_XDEC : T_LD_XDEC;
			case 0xf: return store ? T_PUSH : T_POP;
			default: return T_NOP;
			}
		}
		if ((o & 0xfe00) == 0x9400) {
			switch (o & 0xf) {
			case 0x0: return T_COM;
			case 0x1: return T_NEG;
			case 0x2: return T_NOP;    /* SWAP: same byte, same labels */
			case 0x3: return T_INC;
			case 0x5: return T_ASR;
			case 0x6: return T_LSR;
			case 0x7: return T_ROR;
			case 0xa: return T_DEC;
			case 0x8:
				if (!(o & 0x0100))
					return (o & 0x0080) ? T_BCLR : T_BSET;
				switch (o) {
				case 0x9508: return T_RET;
				case 0x9518: return T_RETI;
				case 0x95c8: return T_LPM0;
				case 0x95d8: return T_ELPM0;
				default: return T_NOP;   /* SLEEP, BREAK, WDR; SPM faults */
				}
			case 0x9:   /* EIJMP/EICALL: EIND is a public I/O register, Z carries the taint */
				return (o & 0xffef) == 0x9409 ? T_IJMP : (o & 0xffef) == 0x9509 ? T_ICALL : T_NOP;
			case 0xe: case 0xf: return T_CALL;
			default: return T_NOP;   /* JMP; reserved */
			}
		}
		switch ((o >> 8) & 0xf) {
		case 0x6: case 0x7: return T_ADIW;   /* ADIW, SBIW */
		case 0x9: return T_SBIC;
		case 0xb: return T_SBIS;
		case 0xc: case 0xd: case 0xe: case 0xf: return T_MUL;
		default: return T_NOP;    /* CBI, SBI: one bit of a public I/O register */
		}
	case 0xb: return (o & 0x0800) ? T_OUT : T_IN;
	case 0xc: return T_NOP;   /* RJMP */
	case 0xd: return T_CALL;  /* RCALL */
	case 0xe: return T_LDI;
	default: /* 0xf */
		if (!(o & 0x0800))
			return T_BRB;     /* BRBS, BRBC */
		switch ((o >> 9) & 3) {
		case 0: return T_BLD;
		case 1: return T_BST;
		default: return T_SBRX;
		}
	}
}

__attribute__((constructor)) static void build_tclass(void)
{
	for (uint32_t o = 0; o < 65536; o++)
		tclass[o] = tclassify((uint16_t)o);
}

#define FL_HSVNZC 0x3fu
#define FL_HSVNC (FL_HSVNZC & ~(1u << S_Z))
#define FL_SVNZC 0x1fu
#define FL_SVNZ 0x1eu

/* The top bit of a flash word's `seen`: executed under taint (the checker's path coverage). */
#define SEEN_EXECUTED 0x80u

static void taint_finding(shim_t *s, uint32_t pc, unsigned kind, uint8_t labels, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void taint_finding(shim_t *s, uint32_t pc, unsigned kind, uint8_t labels, const char *fmt, ...)
{
	uint8_t *seen = &s->seen[pc >> 1];
	if (*seen & (1u << kind))
		return;
	*seen |= (uint8_t)(1u << kind);
	if (s->n_findings == s->cap_findings) {
		const uint32_t cap = s->cap_findings ? 2 * s->cap_findings : 64;
		shim_finding *f = realloc(s->findings, cap * sizeof *f);
		if (f == NULL)
			return;   /* out of memory: the finding is lost, the run goes on (never happens in practice) */
		s->findings = f;
		s->cap_findings = cap;
	}
	shim_finding *f = &s->findings[s->n_findings++];
	f->pc = pc;
	f->kind = (uint8_t)kind;
	f->labels = labels;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
}

/* Labels of a data-space byte read as data; SREG is the union of its flags. */
static inline uint8_t t_rd(const shim_t *s, uint32_t a)
{
	if (a == R_SREG) {
		uint8_t t = 0;
		for (int i = 0; i < 8; i++)
			t |= s->tflag[i];
		return t;
	}
	return s->tdata[a];
}

static inline void t_wr(shim_t *s, uint32_t a, uint8_t t)
{
	if (a == R_SREG)
		memset(s->tflag, t, sizeof s->tflag);
	else
		s->tdata[a] = t;
}

/* Whether data address a is a general-purpose I/O register (GPIOR0..2: pure scratch, no hardware acts on
 * it). The ATmega1284P and 2560 have them at the same addresses; the ATmega128 has none. */
static int t_scratch_io(const shim_t *s, uint32_t a)
{
	const char *mcu = s->avr->mmcu;
	/* simavr names the 1284P's core "atmega1284" or "atmega1284p" depending on the build */
	if (mcu == NULL || (strcmp(mcu, "atmega2560") != 0 && strncmp(mcu, "atmega1284", 10) != 0))
		return 0;
	return a == 0x3e || a == 0x4a || a == 0x4b;
}

/* A store of labels t to data address a at pc: a secret written to an I/O register (0x20..ioend) leaves
 * the state the engine tracks, since the hardware acts on it (a port drives the pins PINx reads back, a
 * timer compares against it, a UART sends it), so the write is a finding. Exempt: the CPU registers the
 * engine tracks (SREG as its flags, SPL/SPH, RAMPZ, EIND) and the GPIOR scratch registers, whose labels
 * t_wr keeps like RAM's. */
static inline void t_io(shim_t *s, uint32_t pc, uint32_t a, uint8_t t)
{
	const avr_t *avr = s->avr;
	if (!t || a < 0x20 || a > avr->ioend || a == R_SREG || a == R_SPL || a == R_SPH ||
	    (avr->rampz && a == avr->rampz) || (avr->eind && a == avr->eind) || t_scratch_io(s, a))
		return;
	taint_finding(s, pc, SHIM_TAINT_IO, t, "secret written to I/O 0x%02x (data 0x%02x)", a - 0x20, a);
}

static inline void t_flags(shim_t *s, unsigned mask, uint8_t t)
{
	for (int i = 0; i < 8; i++)
		if (mask & (1u << i))
			s->tflag[i] = t;
}

static const char *const ptr_name[3] = {"X (r26:r27)", "Y (r28:r29)", "Z (r30:r31)"};

/* Data access through pointer register p (R_XL/R_YL/R_ZL) at addr: report a tainted pointer, move the
 * labels, apply the post-increment/pre-decrement carry to the pointer's high byte. */
static inline void t_ldst(shim_t *s, uint32_t pc, unsigned p, int delta, uint32_t addr, unsigned reg, int store)
{
	uint8_t *T = s->tdata;
	const uint8_t a = T[p] | T[p + 1];
	if (a)
		taint_finding(s, pc, SHIM_TAINT_ADDRESS, a, "%s address through %s", store ? "store" : "load",
			      ptr_name[(p - R_XL) / 2]);
	if (store) {
		t_io(s, pc, addr, T[reg] | a);
		t_wr(s, addr, T[reg] | a);
		if (delta)
			T[p + 1] = a;
	} else {
		const uint8_t v = t_rd(s, addr) | a;
		if (delta)
			T[p + 1] = a;
		T[reg] = v;
	}
}

/* Program-memory read through Z (and RAMPZ for ELPM) into reg: the result carries the address's labels. */
static inline void t_lpm(shim_t *s, uint32_t pc, unsigned reg, int elpm, int inc)
{
	uint8_t *T = s->tdata;
	const uint8_t a = T[R_ZL] | T[R_ZH] | (elpm ? T[s->avr->rampz] : 0);
	if (a)
		taint_finding(s, pc, SHIM_TAINT_ADDRESS, a, "program-memory address through %s",
			      elpm ? "RAMPZ:Z" : "Z (r30:r31)");
	if (inc) {
		T[R_ZH] |= T[R_ZL];
		if (elpm)
			T[s->avr->rampz] = a;
	}
	T[reg] = a;
}

/* The labels of SP, reported as an address finding for the stack access `what`. */
static inline uint8_t t_sp(shim_t *s, uint32_t pc, const char *what)
{
	const uint8_t a = s->tdata[R_SPL] | s->tdata[R_SPH];
	if (a)
		taint_finding(s, pc, SHIM_TAINT_ADDRESS, a, "%s through SP", what);
	return a;
}

/* Move the labels for the instruction op at pc, about to run (registers hold their values before it). */
static void taint_step(shim_t *s, uint32_t pc, uint16_t o)
{
	avr_t *const avr = s->avr;
	uint8_t *const T = s->tdata, *const F = s->tflag;
	const unsigned d = (o >> 4) & 31, r = (o & 15) | ((o >> 5) & 16), dh = 16 + ((o >> 4) & 15);
	const uint16_t sp = reg16(avr, R_SPL);
	uint8_t t;

	if (pc == s->declassify_pc) {
		/* uint32_t mcu_declassify(uint32_t): the argument in r22..r25 is public from here; a tainted one is
		 * recorded with its value and the return address (big-endian on the stack above SP). */
		const uint8_t labels = T[22] | T[23] | T[24] | T[25];
		if (labels) {
			if (s->n_declassified < SHIM_DECLASSIFIED_MAX) {
				shim_declassified *d = &s->declassified[s->n_declassified];
				d->value = (uint32_t)avr->data[22] | (uint32_t)avr->data[23] << 8 |
				           (uint32_t)avr->data[24] << 16 | (uint32_t)avr->data[25] << 24;
				uint32_t ret = 0;
				for (int i = 1; i <= avr->address_size; i++)
					ret = ret << 8 | avr->data[(uint16_t)(sp + i)];
				d->caller = 2 * ret;
				d->labels = labels;
			}
			s->n_declassified++;
		}
		memset(T + 22, 0, 4);
	}
	switch (tclass[o]) {
	case T_NOP:
		break;
	case T_MOVW:
		T[2 * ((o >> 4) & 15)] = T[2 * (o & 15)];
		T[2 * ((o >> 4) & 15) + 1] = T[2 * (o & 15) + 1];
		break;
	case T_MULS:
		t = T[dh] | T[16 + (o & 15)];
		goto mul;
	case T_MULSU:
		t = T[16 + ((o >> 4) & 7)] | T[16 + (o & 7)];
		goto mul;
	case T_MUL:
		t = T[d] | T[r];
	mul:
		T[0] = T[1] = F[S_C] = F[S_Z] = t;
		break;
	case T_CPC:
	case T_SBC:
		t = (d == r ? 0 : T[d] | T[r]) | F[S_C];
		if (tclass[o] == T_SBC)
			T[d] = t;
		t_flags(s, FL_HSVNC, t);
		F[S_Z] |= t;
		break;
	case T_ADD:
		t = T[d] | T[r];
		T[d] = t;
		t_flags(s, FL_HSVNZC, t);
		break;
	case T_CPSE:
		t = d == r ? 0 : T[d] | T[r];
		if (t)
			taint_finding(s, pc, SHIM_TAINT_BRANCH, t, "skip if r%u == r%u", d, r);
		break;
	case T_CP:
	case T_SUB:
		t = d == r ? 0 : T[d] | T[r];
		if (tclass[o] == T_SUB)
			T[d] = t;
		t_flags(s, FL_HSVNZC, t);
		break;
	case T_ADC:
		t = T[d] | T[r] | F[S_C];
		T[d] = t;
		t_flags(s, FL_HSVNZC, t);
		break;
	case T_AND:
	case T_OR:
	case T_EOR:
		t = (tclass[o] == T_EOR && d == r) ? 0 : T[d] | T[r];
		T[d] = t;
		t_flags(s, FL_SVNZ, t);
		F[S_V] = 0;
		break;
	case T_MOV:
		T[d] = T[r];
		break;
	case T_CPI:
		t_flags(s, FL_HSVNZC, T[dh]);
		break;
	case T_SBCI:
		t = T[dh] | F[S_C];
		T[dh] = t;
		t_flags(s, FL_HSVNC, t);
		F[S_Z] |= t;
		break;
	case T_SUBI:
		t_flags(s, FL_HSVNZC, T[dh]);
		break;
	case T_ORI:
	case T_ANDI: {
		const unsigned k = ((o >> 4) & 0xf0) | (o & 0xf);
		if ((tclass[o] == T_ANDI && k == 0) || (tclass[o] == T_ORI && k == 0xff))
			T[dh] = 0;   /* the result is a constant */
		t_flags(s, FL_SVNZ, T[dh]);
		F[S_V] = 0;
		break;
	}
	case T_LDI:
		T[dh] = 0;
		break;
	case T_LDD_Y: case T_LDD_Z: case T_STD_Y: case T_STD_Z: {
		const unsigned q = ((o >> 8) & 0x20) | ((o >> 7) & 0x18) | (o & 0x7);
		const unsigned p = (tclass[o] == T_LDD_Y || tclass[o] == T_STD_Y) ? R_YL : R_ZL;
		t_ldst(s, pc, p, 0, (uint16_t)(reg16(avr, p) + q), d, tclass[o] == T_STD_Y || tclass[o] == T_STD_Z);
		break;
	}
	case T_LDS:
		T[d] = t_rd(s, flash16(avr, pc + 2));
		break;
	case T_STS:
		t_io(s, pc, flash16(avr, pc + 2), T[d]);
		t_wr(s, flash16(avr, pc + 2), T[d]);
		break;
	case T_LD_X: t_ldst(s, pc, R_XL, 0, reg16(avr, R_XL), d, 0); break;
	case T_LD_XINC: t_ldst(s, pc, R_XL, 1, reg16(avr, R_XL), d, 0); break;
	case T_LD_XDEC: t_ldst(s, pc, R_XL, -1, (uint16_t)(reg16(avr, R_XL) - 1), d, 0); break;
	case T_LD_YINC: t_ldst(s, pc, R_YL, 1, reg16(avr, R_YL), d, 0); break;
	case T_LD_YDEC: t_ldst(s, pc, R_YL, -1, (uint16_t)(reg16(avr, R_YL) - 1), d, 0); break;
	case T_LD_ZINC: t_ldst(s, pc, R_ZL, 1, reg16(avr, R_ZL), d, 0); break;
	case T_LD_ZDEC: t_ldst(s, pc, R_ZL, -1, (uint16_t)(reg16(avr, R_ZL) - 1), d, 0); break;
	case T_ST_X: t_ldst(s, pc, R_XL, 0, reg16(avr, R_XL), d, 1); break;
	case T_ST_XINC: t_ldst(s, pc, R_XL, 1, reg16(avr, R_XL), d, 1); break;
	case T_ST_XDEC: t_ldst(s, pc, R_XL, -1, (uint16_t)(reg16(avr, R_XL) - 1), d, 1); break;
	case T_ST_YINC: t_ldst(s, pc, R_YL, 1, reg16(avr, R_YL), d, 1); break;
	case T_ST_YDEC: t_ldst(s, pc, R_YL, -1, (uint16_t)(reg16(avr, R_YL) - 1), d, 1); break;
	case T_ST_ZINC: t_ldst(s, pc, R_ZL, 1, reg16(avr, R_ZL), d, 1); break;
	case T_ST_ZDEC: t_ldst(s, pc, R_ZL, -1, (uint16_t)(reg16(avr, R_ZL) - 1), d, 1); break;
	case T_LPM0: t_lpm(s, pc, 0, 0, 0); break;
	case T_LPM: t_lpm(s, pc, d, 0, 0); break;
	case T_LPMINC: t_lpm(s, pc, d, 0, 1); break;
	case T_ELPM0: t_lpm(s, pc, 0, 1, 0); break;
	case T_ELPM: t_lpm(s, pc, d, 1, 0); break;
	case T_ELPMINC: t_lpm(s, pc, d, 1, 1); break;
	case T_POP:
		t = t_sp(s, pc, "pop");
		T[d] = t_rd(s, (uint16_t)(sp + 1)) | t;
		break;
	case T_PUSH:
		t = t_sp(s, pc, "push");
		t_wr(s, sp, T[d] | t);
		break;
	case T_COM:
		t_flags(s, FL_SVNZ, T[d]);
		F[S_V] = F[S_C] = 0;
		break;
	case T_NEG:
		t_flags(s, FL_HSVNZC, T[d]);
		break;
	case T_INC:
	case T_DEC:
		t_flags(s, FL_SVNZ, T[d]);
		break;
	case T_ASR:
	case T_LSR:
		t_flags(s, FL_SVNZC, T[d]);
		if (tclass[o] == T_LSR)
			F[S_N] = 0;
		break;
	case T_ROR:
		t = T[d] | F[S_C];
		F[S_C] = T[d];   /* the old bit 0 */
		T[d] = t;
		t_flags(s, FL_SVNZ, t);
		break;
	case T_BSET:
	case T_BCLR:
		F[(o >> 4) & 7] = 0;
		break;
	case T_RET:
	case T_RETI:
		t = t_sp(s, pc, "return-address pop");
		for (unsigned i = 1; i <= avr->address_size; i++)
			t |= t_rd(s, (uint16_t)(sp + i));
		if (t)
			taint_finding(s, pc, SHIM_TAINT_INDIRECT, t, "return address popped from the stack");
		if (tclass[o] == T_RETI)
			F[S_I] = 0;
		break;
	case T_IJMP:
	case T_ICALL:
		t = T[R_ZL] | T[R_ZH];
		if (t)
			taint_finding(s, pc, SHIM_TAINT_INDIRECT, t, "target in Z (r30:r31)");
		if (tclass[o] == T_IJMP)
			break;
		/* ICALL pushes its return address: */
		/* fall through */
	case T_CALL:
		t = t_sp(s, pc, "return-address push");
		for (unsigned i = 0; i < avr->address_size; i++)
			t_wr(s, (uint16_t)(sp - i), t);
		break;
	case T_ADIW: {
		const unsigned p = 24 + 2 * ((o >> 4) & 3);
		t = T[p] | T[p + 1];
		T[p + 1] = t;
		t_flags(s, FL_SVNZC, t);
		break;
	}
	case T_SBIC:
	case T_SBIS: {
		const unsigned a = 0x20 + ((o >> 3) & 31);
		t = t_rd(s, a);
		if (t)
			taint_finding(s, pc, SHIM_TAINT_BRANCH, t, "skip on bit %u of I/O 0x%02x", o & 7, a - 0x20);
		break;
	}
	case T_IN:
		T[d] = t_rd(s, 0x20 + (((o >> 5) & 0x30) | (o & 0xf)));
		break;
	case T_OUT:
		t_io(s, pc, 0x20 + (((o >> 5) & 0x30) | (o & 0xf)), T[d]);
		t_wr(s, 0x20 + (((o >> 5) & 0x30) | (o & 0xf)), T[d]);
		break;
	case T_BRB:
		if (F[o & 7])
			taint_finding(s, pc, SHIM_TAINT_BRANCH, F[o & 7], "condition on flag %c", "CZNVSHTI"[o & 7]);
		break;
	case T_BLD:
		T[d] |= F[S_T];
		break;
	case T_BST:
		F[S_T] = T[d];
		break;
	case T_SBRX:
		if (T[d])
			taint_finding(s, pc, SHIM_TAINT_BRANCH, T[d], "skip on bit %u of r%u", o & 7, d);
		break;
	default:
		break;
	}
}

/* Taint on (fresh: no labels anywhere, no findings) or off. declassify_pc: mcu_declassify's entry, or
 * 0xffffffff when the program has none. */
int shim_taint_enable(shim_t *s, int on, uint32_t declassify_pc)
{
	s->taint_on = 0;
	if (!on)
		return 0;
	const size_t words = ((size_t)s->avr->flashend + 1) / 2;
	if (s->tdata == NULL)
		s->tdata = calloc((size_t)s->avr->ramend + 1, 1);
	if (s->seen == NULL)
		s->seen = calloc(words, 1);
	if (s->tdata == NULL || s->seen == NULL)
		return -1;
	memset(s->tdata, 0, (size_t)s->avr->ramend + 1);
	memset(s->seen, 0, words);
	memset(s->tflag, 0, sizeof s->tflag);
	s->n_findings = 0;
	s->n_declassified = 0;
	s->declassify_pc = declassify_pc;
	s->taint_on = 1;
	return 0;
}

/* OR labels into the data-space bytes [address, address + size). */
int shim_taint_set(shim_t *s, uint32_t address, uint32_t size, uint8_t labels)
{
	if (s->tdata == NULL || (uint64_t)address + size > (uint64_t)s->avr->ramend + 1)
		return -1;
	for (uint32_t i = 0; i < size; i++)
		s->tdata[address + i] |= labels;
	return 0;
}

/* The labels of data-space bytes [address, address + size) now, and of the eight flags (S_C..S_I). */
int shim_taint_get(const shim_t *s, uint32_t address, uint8_t *out, uint32_t size, uint8_t *flags)
{
	if (s->tdata == NULL || (uint64_t)address + size > (uint64_t)s->avr->ramend + 1)
		return -1;
	memcpy(out, s->tdata + address, size);
	memcpy(flags, s->tflag, sizeof s->tflag);
	return 0;
}

uint32_t shim_taint_count(const shim_t *s) { return s->n_findings; }

int shim_taint_finding(const shim_t *s, uint32_t i, shim_finding *out)
{
	if (i >= s->n_findings)
		return -1;
	*out = s->findings[i];
	return 0;
}

/* Which flash words executed with taint on since it was enabled: out[i] = 1 for word i (words entries). */
int shim_taint_executed(const shim_t *s, uint8_t *out, uint32_t words)
{
	if (s->seen == NULL || words > ((uint32_t)s->avr->flashend + 1) / 2)
		return -1;
	for (uint32_t i = 0; i < words; i++)
		out[i] = (uint8_t)(s->seen[i] >> 7);
	return 0;
}

/* The calls of mcu_declassify with a tainted argument since taint was enabled; the first
 * SHIM_DECLASSIFIED_MAX are readable with shim_taint_declassified (the rest are counted). */
uint32_t shim_taint_declassified_count(const shim_t *s) { return s->n_declassified; }

int shim_taint_declassified(const shim_t *s, uint32_t i, shim_declassified *out)
{
	if (i >= s->n_declassified || i >= SHIM_DECLASSIFIED_MAX)
		return -1;
	*out = s->declassified[i];
	return 0;
}

/* A RET about to leave SP at sp_after: when it pops the return address of the innermost recorded call,
 * compare the registers with that call's snapshot. 1 (message and res->address set) on a violation.
 * Calls abandoned without a RET (SP reset past them) are dropped; the board's own call has no frame. */
static int abi_return(shim_t *s, uint16_t sp_after, shim_result *res)
{
	const avr_t *avr = s->avr;
	while (s->depth > 0 && s->depth <= SHIM_ABI_DEPTH && s->frames[s->depth - 1].sp < sp_after)
		s->depth--;
	if (s->depth == 0)
		return 0;
	if (s->depth > SHIM_ABI_DEPTH) {
		s->depth--;
		return 0;
	}
	const shim_frame *f = &s->frames[s->depth - 1];
	if (f->sp != sp_after)
		return 0;
	s->depth--;
	if (f->entry / 2 >= ((uint32_t)avr->flashend + 1) / 2 || !s->abi_entry[f->entry / 2])
		return 0;
	int n = 0;
	char *m = s->message;
	const size_t cap = sizeof s->message;
	for (unsigned i = 0; i < sizeof call_saved; i++)
		if (avr->data[call_saved[i]] != f->regs[i] && (size_t)n < cap)
			n += snprintf(m + n, cap - (size_t)n, "%sr%u 0x%02x -> 0x%02x", n ? ", " : "", call_saved[i],
				      f->regs[i], avr->data[call_saved[i]]);
	if (avr->data[1] != 0 && (size_t)n < cap)
		n += snprintf(m + n, cap - (size_t)n, "%sr1 (__zero_reg__) 0x%02x, not 0", n ? ", " : "", avr->data[1]);
	if (n == 0)
		return 0;
	res->address = f->entry;
	return 1;
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
			case K_EIJMP:
				if (!avr->eind) {
					status = SHIM_INVALID_OPCODE;
					goto out;
				}
				goto touches_no_memory;
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
			case K_EICALL:
				if (!avr->eind) {
					status = SHIM_INVALID_OPCODE;
					goto out;
				}
				/* fall through */
			case K_PUSH:
			case K_CALL:
				write = 1;
				size = kind == K_PUSH ? 1 : avr->address_size;
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
				size = kind == K_RET ? avr->address_size : 1;
				addr = (uint16_t)(sp + 1);
				if ((uint32_t)addr + size - 1 > ramend) {
					res->address = addr;
					status = SHIM_BAD_DATA;
					goto out;
				}
				if (kind == K_RET && abi_return(s, (uint16_t)(sp + size), res)) {
					status = SHIM_ABI;
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
				unsigned hit = 0;
				while (write && hit < size && !s->protect[addr + hit])
					hit++;
				if (write && hit < size) {
					res->address = addr + hit;
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
touches_no_memory:
		if (trace)
			trace->pcs[trace->n_pcs++] = pc;
		if (s->taint_on) {
			s->seen[pc >> 1] |= SEEN_EXECUTED;
			taint_step(s, pc, op);
		}

		const int calls = kind == K_CALL || kind == K_EICALL;
		if (calls && s->depth < SHIM_ABI_DEPTH) {
			shim_frame *f = &s->frames[s->depth];
			f->sp = reg16(avr, R_SPL);
			for (unsigned i = 0; i < sizeof call_saved; i++)
				f->regs[i] = avr->data[call_saved[i]];
		}
		avr->pc = avr_run_one(avr);
		if (calls) {
			if (s->depth < SHIM_ABI_DEPTH)
				s->frames[s->depth].entry = avr->pc;
			s->depth++;
		}
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
