/* SPDX-License-Identifier: MIT
 *
 * The rv32 taint engine in C: the same shadow update as taint_rv32.py's Python engine (which stays the
 * reference and the specification), registered with Unicorn as a native code hook so no Python runs per
 * instruction.
 *
 * Decoding is not repeated here: Python turns each instruction into a ``struct rv_plan`` (taint_rv32.py,
 * ``plan_record``: which rule, which registers, the immediate), once per address, into a table indexed by
 * halfword over the code window. An address the table has no plan for yet (op 0), or outside the window,
 * is planned by a Python callback on first execution, so this file knows only the rules:
 *
 *   LOAD     a tainted rs1 is an address finding; rd takes the loaded bytes' taint | rs1's, and ``bits``
 *            the bytes that were tainted (all bits for a tainted address or a sign-extended tainted byte)
 *   STORE    a tainted rs1 is an address finding; the bytes written take rs2's taint (only the bytes
 *            holding tainted bits of rs2, when its ``bits`` are precise)
 *   AMO      as a load and a store of the word at x[rs1] (LR.W only loads)
 *   BRANCH   a tainted rs1 or rs2 is a branch finding
 *   JUMP     JALR through a tainted rs1 is an indirect-jump finding; the link register is public
 *   CSR      taint per CSR; a secret written to a CSR that is not scratch is a secret-to-io finding
 *   CONST    rd becomes public
 *   MOVE     rd takes rs1's taint, all bits
 *   BITS     rd takes rs1's taint with ``bits`` mapped by a shift/mask rule (public if none remain)
 *   COMPUTE  the destinations take the union of the sources (a register mask); a divide with a tainted
 *            operand is a variable-latency finding
 *
 * Findings go to a buffer as (pc, kind, mask), the first per (pc, kind); Python adds symbol, disassembly
 * and detail text at the end of the call. Masks are 32-bit (a call with more than 32 secret labels uses
 * the Python engine). Shadow memory is one 32-bit mask per byte over the RAM regions Python declares; a
 * byte outside them reads as public (only a faulting store can aim there).
 */
#include <stdint.h>
#include <unicorn/unicorn.h>

typedef uc_err (*reg_read_fn)(uc_engine *, int, void *);
typedef uc_err (*emu_stop_fn)(uc_engine *);

/* Keep in step with taint_rv32.py (ctypes _RvPlan, _RvTaint, the op/flag/rule/kind numbers). */
enum { OP_NONE, OP_LOAD, OP_STORE, OP_AMO, OP_BRANCH, OP_JUMP, OP_CSR, OP_CONST, OP_MOVE, OP_BITS,
       OP_COMPUTE };
enum { F_DECLASSIFY = 1, F_SIGNED = 2, F_JALR = 4, F_SCRATCH = 8, F_WRITES_RS1 = 16, F_KEEPS_OLD = 32,
       F_VARIABLE = 64, F_LR = 128 };
enum { R_SRLI = 1, R_SLLI, R_ANDI, R_ZEXT_B, R_ZEXT_H, R_MV, R_XORI, R_ORI, R_ADDI };
enum { K_ADDRESS, K_BRANCH, K_INDIRECT_JUMP, K_VARIABLE_LATENCY, K_IO };
#define MAX_REGIONS 4
#define FULL 0xFFFFFFFFu

struct rv_plan {                 /* 16 bytes */
    uint8_t op, rd, rs1, rs2;
    uint8_t rd2, size, flags, rule;
    uint16_t csr;
    uint16_t pad;
    uint32_t imm;                /* immediate (two's complement); COMPUTE: the source register mask */
};

struct rv_taint;
typedef void (*plan_fn)(uc_engine *, uint32_t pc, struct rv_plan *plan);

struct rv_taint {
    struct rv_plan *plans;       /* one per halfword from plan_base */
    uint32_t plan_base, plan_span;
    uint8_t *reported;           /* per halfword, bit k: kind k already recorded there (this call) */
    struct rv_plan scratch;      /* the plan of an address outside the window (planned every time) */
    uint8_t scratch_reported;
    uint32_t regs[32];           /* label masks; regs[0] stays 0 */
    uint32_t bits[32];           /* per register, the bits that can carry its taint */
    uint32_t *csr;               /* 4096 label masks */
    uint32_t *shadow[MAX_REGIONS];
    uint32_t shadow_base[MAX_REGIONS], shadow_size[MAX_REGIONS];
    uint32_t n_regions;
    uint32_t *findings;          /* (pc, kind, mask) triples */
    uint32_t n_findings, cap_findings;
    uint32_t overflow;           /* the findings buffer filled up (the run was stopped) */
    uint64_t instructions;
    int reg_x0;
    reg_read_fn reg_read;
    emu_stop_fn emu_stop;
    plan_fn plan;
    uint32_t enabled;            /* 0 between tainted calls: the hook stays installed, doing nothing */
    uint8_t *executed;           /* per halfword: nonzero once the instruction there ran (this call) */
    uint32_t *declassified;      /* (value, mask, caller) of each tainted mcu_declassify argument */
    uint32_t n_declassified, cap_declassified;   /* n counts past cap: Python reports the overflow */
};

static const uint32_t byte_masks[4] = { 0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u };

static uint32_t *shadow_at(struct rv_taint *t, uint32_t address)
{
    for (uint32_t k = 0; k < t->n_regions; k++) {
        uint32_t off = address - t->shadow_base[k];
        if (off < t->shadow_size[k])
            return &t->shadow[k][off];
    }
    return 0;
}

static uint32_t mem_get(struct rv_taint *t, uint32_t address)
{
    uint32_t *s = shadow_at(t, address);
    return s ? *s : 0;
}

static void mem_set(struct rv_taint *t, uint32_t address, uint32_t size, uint32_t mask)
{
    for (uint32_t i = 0; i < size; i++) {
        uint32_t *s = shadow_at(t, address + i);
        if (s)
            *s = mask;
    }
}

static uint32_t xreg(uc_engine *uc, const struct rv_taint *t, uint32_t n)
{
    uint64_t v = 0;
    if (n)
        t->reg_read(uc, t->reg_x0 + (int)n, &v);
    return (uint32_t)v;
}

static void report(uc_engine *uc, struct rv_taint *t, uint8_t *reported, uint32_t pc, uint32_t kind,
                   uint32_t mask)
{
    if (*reported & (1u << kind))
        return;
    if (t->n_findings == t->cap_findings) {
        t->overflow = 1;
        t->emu_stop(uc);
        return;
    }
    *reported |= (uint8_t)(1u << kind);
    t->findings[3 * t->n_findings] = pc;
    t->findings[3 * t->n_findings + 1] = kind;
    t->findings[3 * t->n_findings + 2] = mask;
    t->n_findings++;
}

static uint32_t bit_rule(uint32_t rule, uint32_t b, uint32_t k)
{
    switch (rule) {
    case R_SRLI: return b >> (k & 31);
    case R_SLLI: return b << (k & 31);
    case R_ANDI: return b & k;
    case R_ZEXT_B: return b & 0xFFu;
    case R_ZEXT_H: return b & 0xFFFFu;
    case R_ORI: return b & ~k;
    case R_ADDI: return k == 0 ? b : FULL;
    default: return b;           /* R_MV, R_XORI */
    }
}

void taint_rv32_on_code(uc_engine *uc, uint64_t address, uint32_t size, struct rv_taint *t)
{
    uint32_t pc = (uint32_t)address, half = (pc - t->plan_base) >> 1;
    struct rv_plan *p;
    uint8_t *reported;
    uint32_t *regs = t->regs, *bits = t->bits;
    uint32_t rd, rs1, rs2, ta, addr, m, loaded, data, b, old;
    (void)size;
    if (!t->enabled)
        return;
    if (!(pc & 1) && half < t->plan_span) {
        p = &t->plans[half];
        reported = &t->reported[half];
        if (p->op == OP_NONE)
            t->plan(uc, pc, p);
    } else {
        p = &t->scratch;
        reported = &t->scratch_reported;
        t->scratch_reported = 0;     /* Python keeps only the first per (pc, kind) */
        p->op = OP_NONE;
        t->plan(uc, pc, p);
    }
    if (p->op == OP_NONE)        /* the planner failed: it stopped the emulation with its exception */
        return;
    t->instructions++;
    if (!(pc & 1) && half < t->plan_span)
        t->executed[half] = 1;
    if (p->flags & F_DECLASSIFY) {   /* the entry of mcu_declassify: a0 is public from here on */
        if (regs[10]) {              /* recorded for the checker's policy (ct.py): value, labels, ra */
            if (t->n_declassified < t->cap_declassified) {
                uint32_t *d = &t->declassified[3 * t->n_declassified];
                d[0] = xreg(uc, t, 10);
                d[1] = regs[10];
                d[2] = xreg(uc, t, 1);
            }
            t->n_declassified++;
        }
        regs[10] = 0;
    }
    rd = p->rd;
    rs1 = p->rs1;
    rs2 = p->rs2;
    switch (p->op) {
    case OP_LOAD:
        ta = regs[rs1];
        if (ta)
            report(uc, t, reported, pc, K_ADDRESS, ta);
        if (rd) {
            addr = xreg(uc, t, rs1) + p->imm;
            m = 0;
            loaded = 0;
            for (uint32_t i = 0; i < p->size; i++) {
                b = mem_get(t, addr + i);
                if (b) {
                    m |= b;
                    loaded |= byte_masks[i];
                }
            }
            regs[rd] = ta | m;
            if (ta || (loaded && (p->flags & F_SIGNED) && (loaded >> (8 * p->size - 8))))
                loaded = FULL;
            bits[rd] = loaded;
        }
        break;
    case OP_STORE:
        ta = regs[rs1];
        if (ta)
            report(uc, t, reported, pc, K_ADDRESS, ta);
        addr = xreg(uc, t, rs1) + p->imm;
        data = regs[rs2];
        if (ta || !data || bits[rs2] == FULL) {
            mem_set(t, addr, p->size, data | ta);
            break;
        }
        b = bits[rs2];
        for (uint32_t i = 0; i < p->size; i++)
            mem_set(t, addr + i, 1, b & byte_masks[i] ? data : 0);
        break;
    case OP_AMO:
        ta = regs[rs1];
        if (ta)
            report(uc, t, reported, pc, K_ADDRESS, ta);
        addr = xreg(uc, t, rs1);
        old = mem_get(t, addr) | mem_get(t, addr + 1) | mem_get(t, addr + 2) | mem_get(t, addr + 3);
        if (!(p->flags & F_LR))
            mem_set(t, addr, 4, old | regs[rs2] | ta);
        if (rd) {
            regs[rd] = old | ta;
            bits[rd] = FULL;
        }
        break;
    case OP_BRANCH:
        ta = regs[rs1] | regs[rs2];
        if (ta)
            report(uc, t, reported, pc, K_BRANCH, ta);
        break;
    case OP_JUMP:
        if ((p->flags & F_JALR) && regs[rs1])
            report(uc, t, reported, pc, K_INDIRECT_JUMP, regs[rs1]);
        if (rd)
            regs[rd] = 0;
        break;
    case OP_CSR:
        old = t->csr[p->csr];
        ta = p->flags & F_WRITES_RS1 ? regs[rs1] : 0;
        if (ta && !(p->flags & F_SCRATCH))
            report(uc, t, reported, pc, K_IO, ta);
        t->csr[p->csr] = (p->flags & F_KEEPS_OLD ? old : 0) | ta;
        if (rd) {
            regs[rd] = old;
            bits[rd] = FULL;
        }
        break;
    case OP_CONST:
        if (rd)
            regs[rd] = 0;
        break;
    case OP_MOVE:
        regs[rd] = regs[rs1];
        bits[rd] = FULL;
        break;
    case OP_BITS:
        ta = regs[rs1];
        if (ta) {
            b = bit_rule(p->rule, bits[rs1], p->imm);
            regs[rd] = b ? ta : 0;
            bits[rd] = b;
        } else {
            regs[rd] = 0;
        }
        break;
    case OP_COMPUTE:
        ta = 0;
        for (uint32_t s = p->imm; s; s &= s - 1)
            ta |= regs[__builtin_ctz(s)];
        if ((p->flags & F_VARIABLE) && ta)
            report(uc, t, reported, pc, K_VARIABLE_LATENCY, ta);
        if (rd) {
            regs[rd] = ta;
            bits[rd] = FULL;
        }
        if (p->rd2) {
            regs[p->rd2] = ta;
            bits[p->rd2] = FULL;
        }
        break;
    default:
        break;
    }
    regs[0] = 0;
}

/* ---- armv7m ------------------------------------------------------------------------------------------
 *
 * The armv7m taint engine in C: the same shadow update as taint_armv7m.py's Python engine (the reference
 * and the specification). Python decodes each instruction once (capstone), makes the reference's
 * decisions (``Armv7mTaint._plan``) and records them as a ``struct am_plan`` in a table indexed by
 * halfword over the image's flash code; this code and hook run them with no Python per instruction:
 *
 *   AM_MEM    a tainted address register is an address finding; under secret IT flags a conditional-
 *             execution finding (and, skipped, its data/writeback registers take the flags' taint); the
 *             memory hook then moves the bytes' taint (``pending``: one access per data register in
 *             ascending order, as the Python engine's ``_on_mem``), keeping known ones/bounds per word
 *   AM_DP     data processing: the union of the sources, the constant rules (decided in Python: no
 *             sources), the tainted-bits rule ((b >> r) << l) & m, flags N Z C V (and Q for SSAT/USAT),
 *             the long multiplies' and divides' operand check, conditional execution on secret flags
 *   AM_B, AM_CBZ, AM_TBB, AM_BX, AM_BL   branch / indirect-jump findings, the link register public
 *   AM_MRS, AM_MSR   the flags to a register and back; a secret to another special register: secret-to-io
 *   AM_IT     arms the block: Unicorn calls no code hook for an IT-block instruction that fails its
 *             condition, so the next hook first runs the plans of the ones skipped before it
 *   AM_OTHER  a conditional-execution finding under secret flags
 * then the known ones and known bounds of the written registers (the rules of the Python docstring).
 *
 * Findings go to a buffer as (pc, kind, mask, aux), the first per (pc, kind); aux holds what the detail
 * text names (the tainted address registers, the tainted condition flags) and Python writes the text.
 */
enum { AM_NONE, AM_NOP, AM_DP, AM_MEM, AM_B, AM_CBZ, AM_TBB, AM_BX, AM_BL, AM_MRS, AM_MSR, AM_OTHER,
       AM_IT };
enum { AP_DECLASSIFY = 1, AP_WRITEBACK = 2, AP_LOAD = 4, AP_SIGNED = 8, AP_BLX = 16, AP_PSR = 32 };
enum { AF_CARRY_IN = 1, AF_CARRY_ONLY = 2, AF_SETS_FLAGS = 4, AF_ARITH = 8, AF_SHIFTER = 16, AF_BITS = 32,
       AF_FIXED_SIZE = 64, AF_MULTI_CYCLE = 128, AF_PC_WRITTEN = 256, AF_SATURATES = 512,
       AF_SHIFT_BY = 1024 };
enum { AK_NONE, AK_FORGET, AK_SET, AK_ORR_IMM, AK_ORR_REG, AK_BFI };      /* known ones after the write */
enum { AB_NONE, AB_FORGET, AB_SET, AB_LSR, AB_BFI, AB_ADD, AB_ORR };      /* known bounds after it */
enum { AO_REG, AO_LSR, AO_LSL, AO_UNKNOWN, AO_IMM };                      /* a bounds operand */
enum { AK_ADDRESS, AK_BRANCH, AK_INDIRECT_JUMP, AK_VARIABLE_LATENCY, AK_CONDITIONAL, AK_IO };
enum { FN, FZ, FC, FV, FQ };

/* Keep in step with taint_armv7m.py (ctypes _AmOperand, _AmPlan, _AmTaint and the numbers above). */
struct am_operand { uint8_t kind, reg, amount, pad; uint32_t value; };

struct am_plan {
    uint8_t op, flags, cond, cond_flags;      /* cond: ARM condition + 1 (0: always) */
    uint16_t written, sources;                /* sources: DP's source registers, MEM's address registers */
    uint16_t dests, variable;
    uint16_t dp, status;                      /* dp: AF_*; status: STREX's status register */
    uint8_t reg, reg2, bit_src, rshift;       /* reg: CBZ/TBB/BX/MRS/MSR's, DP's shift amount; reg2: shifted */
    uint8_t lshift, n_data, known_kind, known_a;
    uint8_t known_b, known_c, bounds_kind, bounds_d;
    uint8_t bounds_src, bounds_amount, pad0, pad1;
    uint32_t bit_mask, known_value, bounds_lo, bounds_hi;
    struct am_operand x, y;
    uint8_t data[16];                         /* MEM: its data registers in access order; IT: the block */
};

typedef void (*am_plan_fn)(uc_engine *, uint32_t pc);

struct am_taint {
    struct am_plan *plans;       /* one per halfword from plan_base */
    uint32_t plan_base, plan_span;
    uint8_t *reported;           /* per halfword, bit k: kind k already recorded there (this call) */
    uint8_t *executed;           /* per halfword: the instruction there ran or was skipped (this call) */
    uint32_t regs[16], flags[5], bits[16], known[16], lo[16], hi[16], bounded[16];
    uint32_t *shadow, *known_mem, *lo_mem, *hi_mem, *bounded_mem;   /* per byte / per word of the SRAM */
    uint32_t shadow_base, shadow_size;
    uint32_t *findings;          /* (pc, kind, mask, aux) */
    uint32_t n_findings, cap_findings, overflow;
    uint32_t *declassified;      /* (value, mask, caller) of each tainted mcu_declassify argument */
    uint32_t n_declassified, cap_declassified;
    uint64_t instructions;
    int reg_ids[16];
    int reg_xpsr;
    reg_read_fn reg_read;
    emu_stop_fn emu_stop;
    am_plan_fn plan;             /* Python: fills plans[(pc - plan_base) / 2] (or stops the run) */
    uint32_t enabled;
    const struct am_plan *pending;           /* the memory instruction now executing */
    uint32_t pending_pc, pending_extra, pending_counter;
    uint32_t it_addr[4], it_n, it_i;         /* the rest of the IT block now executing */
};

static uint32_t am_reg_value(uc_engine *uc, const struct am_taint *t, int id)
{
    uint64_t v = 0;
    t->reg_read(uc, id, &v);
    return (uint32_t)v;
}

static void am_report(uc_engine *uc, struct am_taint *t, uint32_t pc, uint32_t kind, uint32_t mask, uint32_t aux)
{
    uint8_t *reported = &t->reported[(pc - t->plan_base) >> 1];
    uint32_t *f;
    if (*reported & (1u << kind))
        return;
    if (t->n_findings == t->cap_findings) {
        t->overflow = 1;
        t->emu_stop(uc);
        return;
    }
    *reported |= (uint8_t)(1u << kind);
    f = &t->findings[4 * t->n_findings++];
    f[0] = pc;
    f[1] = kind;
    f[2] = mask;
    f[3] = aux;
}

static int am_holds(uc_engine *uc, const struct am_taint *t, uint32_t cond)
{
    uint32_t psr, n, z, c, v;
    if (!cond)
        return 1;
    psr = am_reg_value(uc, t, t->reg_xpsr);
    n = psr >> 31 & 1; z = psr >> 30 & 1; c = psr >> 29 & 1; v = psr >> 28 & 1;
    switch (cond - 1) {
    case 0: return z;
    case 1: return !z;
    case 2: return c;
    case 3: return !c;
    case 4: return n;
    case 5: return !n;
    case 6: return v;
    case 7: return !v;
    case 8: return c && !z;
    case 9: return !c || z;
    case 10: return n == v;
    case 11: return n != v;
    case 12: return !z && n == v;
    case 13: return z || n != v;
    default: return 1;
    }
}

static uint32_t am_cond_taint(const struct am_taint *t, const struct am_plan *p)
{
    uint32_t c = 0;
    for (uint32_t s = p->cond_flags; s; s &= s - 1)
        c |= t->flags[__builtin_ctz(s)];
    return c;
}

static void am_conditional(uc_engine *uc, struct am_taint *t, const struct am_plan *p, uint32_t pc)
{
    uint32_t c = am_cond_taint(t, p);
    if (c)
        am_report(uc, t, pc, AK_CONDITIONAL, c, 0);
}

static uint32_t am_mem_get(const struct am_taint *t, uint32_t address, uint32_t size)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < size; i++) {
        uint32_t off = address + i - t->shadow_base;
        if (off < t->shadow_size)
            m |= t->shadow[off];
    }
    return m;
}

static void am_mem_set(struct am_taint *t, uint32_t address, uint32_t size, uint32_t mask)
{
    for (uint32_t i = 0; i < size; i++) {
        uint32_t off = address + i - t->shadow_base;
        if (off < t->shadow_size)
            t->shadow[off] = mask;
    }
}

static void am_forget_known(struct am_taint *t, uint32_t address, uint32_t size)
{
    for (uint64_t w = address & ~3u; w < (uint64_t)address + size; w += 4) {
        uint32_t off = (uint32_t)w - t->shadow_base;
        if (off < t->shadow_size) {
            t->known_mem[off >> 2] = 0;
            t->bounded_mem[off >> 2] = 0;
        }
    }
}

/* The bounds of a register operand after its immediate shift (0: unknown). */
static int am_operand_bounds(const struct am_taint *t, const struct am_operand *o, uint64_t *lo, uint64_t *hi)
{
    uint32_t r = o->reg, a = o->amount;
    switch (o->kind) {
    case AO_REG:
        if (!t->bounded[r]) return 0;
        *lo = t->lo[r]; *hi = t->hi[r];
        return 1;
    case AO_LSR:
        if (t->bounded[r]) { *lo = (uint64_t)t->lo[r] >> a; *hi = (uint64_t)t->hi[r] >> a; }
        else { *lo = 0; *hi = (uint64_t)FULL >> a; }
        return 1;
    case AO_LSL:
        if (!t->bounded[r] || ((uint64_t)t->hi[r] << a) > FULL) return 0;
        *lo = (uint64_t)t->lo[r] << a; *hi = (uint64_t)t->hi[r] << a;
        return 1;
    case AO_IMM:
        *lo = *hi = o->value;
        return 1;
    default:
        return 0;
    }
}

static void am_set_bounds(struct am_taint *t, uint32_t d, int ok, uint64_t lo, uint64_t hi)
{
    t->bounded[d] = (uint32_t)ok;
    if (ok) { t->lo[d] = (uint32_t)lo; t->hi[d] = (uint32_t)hi; }
}

static void am_post(struct am_taint *t, const struct am_plan *p)
{
    uint32_t d = p->bounds_d;
    uint64_t xl, xh, yl, yh, h;
    int ok;
    switch (p->known_kind) {
    case AK_SET: t->known[p->known_a] = p->known_value; break;
    case AK_ORR_IMM: t->known[p->known_a] = t->known[p->known_b] | p->known_value; break;
    case AK_ORR_REG:
        t->known[p->known_a] = t->known[p->known_b] | (p->known_c ? t->known[p->known_c - 1] : 0);
        break;
    case AK_BFI: t->known[p->known_a] &= ~p->known_value; break;
    case AK_FORGET:
        for (uint32_t s = p->written; s; s &= s - 1)
            t->known[__builtin_ctz(s)] = 0;
        break;
    default: break;
    }
    switch (p->bounds_kind) {
    case AB_FORGET:
        for (uint32_t s = p->written; s; s &= s - 1)
            t->bounded[__builtin_ctz(s)] = 0;
        break;
    case AB_SET:
        am_set_bounds(t, d, 1, p->bounds_lo, p->bounds_hi);
        break;
    case AB_LSR: {
        uint32_t s = p->bounds_src, a = p->bounds_amount;
        if (t->bounded[s]) am_set_bounds(t, d, 1, (uint64_t)t->lo[s] >> a, (uint64_t)t->hi[s] >> a);
        else am_set_bounds(t, d, 1, 0, (uint64_t)FULL >> a);
        break;
    }
    case AB_BFI:
        am_set_bounds(t, d, t->bounded[d] && t->hi[d] <= p->bounds_hi, 0, p->bounds_hi);
        break;
    case AB_ADD:
    case AB_ORR:
        ok = am_operand_bounds(t, &p->x, &xl, &xh) && am_operand_bounds(t, &p->y, &yl, &yh);
        if (ok && p->bounds_kind == AB_ADD) {
            ok = xh + yh <= FULL;
            xl += yl; xh += yh;
        } else if (ok) {
            xl = xl > yl ? xl : yl;
            h = xh > yh ? xh : yh;
            xh = h ? ((uint64_t)1 << (64 - __builtin_clzll(h))) - 1 : 0;
        }
        am_set_bounds(t, d, ok, xl, xh);
        break;
    default: break;
    }
}

static void am_data_processing(uc_engine *uc, struct am_taint *t, const struct am_plan *p, uint32_t pc)
{
    uint32_t *regs = t->regs, *bits = t->bits, *flags = t->flags;
    uint32_t tt = 0, carry, c, result, b = FULL, dp = p->dp;
    for (uint32_t s = p->sources; s; s &= s - 1)
        tt |= regs[__builtin_ctz(s)];
    if (dp & AF_CARRY_IN)
        tt |= flags[FC];
    carry = tt;
    if (dp & AF_CARRY_ONLY) {
        tt = 0;
    } else if ((dp & AF_SHIFT_BY) && !regs[p->reg] && (am_reg_value(uc, t, t->reg_ids[p->reg]) & 0xFF) >= 32) {
        carry = regs[p->reg2];
        tt = 0;
    }
    if (p->variable) {           /* a finding unless UMULL/UMLAL's operands are all known to be >= 2^16 */
        uint32_t v = 0;
        int fixed = (dp & AF_FIXED_SIZE) != 0;
        for (uint32_t s = p->variable; s; s &= s - 1) {
            uint32_t r = __builtin_ctz(s);
            v |= regs[r];
            if (!(t->known[r] >> 16) && !(t->bounded[r] && t->lo[r] >> 16))
                fixed = 0;
        }
        if (v && !fixed)
            am_report(uc, t, pc, AK_VARIABLE_LATENCY, v, 0);
    }
    if (p->cond_flags) {
        c = am_cond_taint(t, p);
        if (c && (dp & (AF_MULTI_CYCLE | AF_PC_WRITTEN)))
            am_report(uc, t, pc, AK_CONDITIONAL, c, 0);
        if (c || !am_holds(uc, t, p->cond)) {
            if (c) {                 /* executed or skipped: had the secret flags been otherwise... */
                for (uint32_t s = p->dests; s; s &= s - 1) {
                    uint32_t r = __builtin_ctz(s);
                    regs[r] |= tt | c;
                    bits[r] = FULL;
                }
                if (dp & AF_SETS_FLAGS)
                    for (int f = 0; f < 4; f++)
                        flags[f] |= tt | c;
            }
            return;
        }
    }
    if ((dp & AF_PC_WRITTEN) && tt)
        am_report(uc, t, pc, AK_INDIRECT_JUMP, tt, 0);
    result = tt;
    if ((dp & AF_BITS) && tt) {
        b = ((bits[p->bit_src] >> p->rshift) << p->lshift) & p->bit_mask;
        if (!b)
            result = 0;
    }
    for (uint32_t s = p->dests; s; s &= s - 1) {
        uint32_t r = __builtin_ctz(s);
        regs[r] = result;
        bits[r] = b;
    }
    if (dp & AF_SETS_FLAGS) {
        flags[FN] = flags[FZ] = tt;
        if (dp & AF_ARITH)
            flags[FC] = flags[FV] = tt;
        else if (dp & AF_SHIFTER)
            flags[FC] = carry;
    }
    if (dp & AF_SATURATES)
        flags[FQ] |= tt;         /* sticky */
}

static void am_run(uc_engine *uc, struct am_taint *t, const struct am_plan *p, uint32_t pc)
{
    uint32_t *regs = t->regs, tt, c, aux;
    if (p->flags & AP_DECLASSIFY) {  /* the entry of mcu_declassify: r0 is public from here on */
        if (regs[0]) {
            if (t->n_declassified < t->cap_declassified) {
                uint32_t *d = &t->declassified[3 * t->n_declassified];
                d[0] = am_reg_value(uc, t, t->reg_ids[0]);
                d[1] = regs[0];
                d[2] = am_reg_value(uc, t, t->reg_ids[14]) & ~1u;
            }
            t->n_declassified++;
        }
        regs[0] = 0;
    }
    switch (p->op) {
    case AM_MEM:
        tt = aux = 0;
        for (uint32_t s = p->sources; s; s &= s - 1) {
            uint32_t r = __builtin_ctz(s);
            if (regs[r]) { tt |= regs[r]; aux |= 1u << r; }
        }
        if (tt)
            am_report(uc, t, pc, AK_ADDRESS, tt, aux);
        c = am_cond_taint(t, p);
        if (c) {
            am_report(uc, t, pc, AK_CONDITIONAL, c, 0);
            if (!am_holds(uc, t, p->cond)) {     /* skipped: its registers would have been written */
                for (uint32_t i = 0; i < p->n_data; i++) {
                    regs[p->data[i]] |= c;
                    t->bits[p->data[i]] = FULL;
                }
                if (p->flags & AP_WRITEBACK)
                    for (uint32_t s = p->sources; s; s &= s - 1) {
                        regs[__builtin_ctz(s)] |= c;
                        t->bits[__builtin_ctz(s)] = FULL;
                    }
            }
        }
        for (uint32_t s = p->status; s; s &= s - 1)
            regs[__builtin_ctz(s)] = 0;
        t->pending = p;
        t->pending_pc = pc;
        t->pending_extra = tt;
        t->pending_counter = 0;
        break;
    case AM_B:
        c = am_cond_taint(t, p);
        if (c) {
            aux = 0;
            for (uint32_t s = p->cond_flags; s; s &= s - 1)
                if (t->flags[__builtin_ctz(s)])
                    aux |= 1u << __builtin_ctz(s);
            am_report(uc, t, pc, AK_BRANCH, c, aux);
        }
        break;
    case AM_CBZ:
        if (regs[p->reg])
            am_report(uc, t, pc, AK_BRANCH, regs[p->reg], 0);
        am_conditional(uc, t, p, pc);
        break;
    case AM_TBB:
        if (p->reg != 15 && regs[p->reg])
            am_report(uc, t, pc, AK_INDIRECT_JUMP, regs[p->reg], 0);
        am_conditional(uc, t, p, pc);
        break;
    case AM_BX:
        if (regs[p->reg])
            am_report(uc, t, pc, AK_INDIRECT_JUMP, regs[p->reg], 0);
        if (p->flags & AP_BLX)
            regs[14] = 0;
        am_conditional(uc, t, p, pc);
        break;
    case AM_BL:
        am_conditional(uc, t, p, pc);
        regs[14] = 0;
        break;
    case AM_MRS:
        tt = p->flags & AP_PSR ? t->flags[FN] | t->flags[FZ] | t->flags[FC] | t->flags[FV] | t->flags[FQ] : 0;
        regs[p->reg] = tt | am_cond_taint(t, p);
        t->bits[p->reg] = FULL;
        break;
    case AM_MSR:
        tt = regs[p->reg];
        if (p->flags & AP_PSR) {
            c = am_cond_taint(t, p);
            for (int f = 0; f < 5; f++)
                t->flags[f] = tt | c;
        } else if (tt) {
            am_report(uc, t, pc, AK_IO, tt, 0);
        }
        break;
    case AM_DP:
        am_data_processing(uc, t, p, pc);
        break;
    case AM_OTHER:
        am_conditional(uc, t, p, pc);
        break;
    case AM_IT:
        for (uint32_t i = 0; i < p->n_data && i < 4; i++)
            t->it_addr[i] = pc + 2u * p->data[i];
        t->it_n = p->n_data < 4 ? p->n_data : 4;
        t->it_i = 0;
        break;
    default:
        break;
    }
    am_post(t, p);
}

/* The plan of the instruction at pc, planned by Python on first use (0: the planner stopped the run). */
static const struct am_plan *am_plan_at(uc_engine *uc, struct am_taint *t, uint32_t pc)
{
    uint32_t half = (pc - t->plan_base) >> 1;
    struct am_plan *p;
    if ((pc & 1) || half >= t->plan_span) {
        t->plan(uc, pc);         /* raises: the C engine covers the image's flash code */
        return 0;
    }
    p = &t->plans[half];
    if (p->op == AM_NONE) {
        t->plan(uc, pc);
        if (p->op == AM_NONE)
            return 0;
    }
    return p;
}

void taint_armv7m_on_code(uc_engine *uc, uint64_t address, uint32_t size, struct am_taint *t)
{
    uint32_t pc = (uint32_t)address;
    const struct am_plan *p;
    (void)size;
    if (!t->enabled)
        return;
    t->pending = 0;
    while (t->it_i < t->it_n) {      /* the IT-block instructions that failed their condition before pc */
        uint32_t skipped = t->it_addr[t->it_i++];
        if (skipped == pc)
            break;
        p = am_plan_at(uc, t, skipped);
        if (!p)
            return;
        t->executed[(skipped - t->plan_base) >> 1] = 1;
        am_run(uc, t, p, skipped);
        t->pending = 0;
    }
    p = am_plan_at(uc, t, pc);
    if (!p)
        return;
    t->instructions++;
    t->executed[(pc - t->plan_base) >> 1] = 1;
    am_run(uc, t, p, pc);
}

static void am_access(uc_engine *uc, struct am_taint *t, int write, uint32_t address, uint32_t size)
{
    const struct am_plan *p = t->pending;
    uint32_t *regs = t->regs, *bits = t->bits, n, data, b, tt, extra;
    int reg;
    if (!p) {
        if (write)
            am_forget_known(t, address, size);
        return;
    }
    n = p->n_data;
    extra = t->pending_extra;
    if (size == 8 && n > 1) {    /* a doubleword access: one word per register */
        am_access(uc, t, write, address, 4);
        am_access(uc, t, write, address + 4, 4);
        return;
    }
    if (n > 1) {
        reg = p->data[t->pending_counter < n - 1 ? t->pending_counter : n - 1];
        t->pending_counter++;
    } else {
        reg = n ? p->data[0] : -1;
    }
    if (write) {
        if (!(p->flags & AP_LOAD)) {
            data = reg >= 0 ? regs[reg] : 0;
            b = reg >= 0 ? bits[reg] : FULL;
            if (extra || !data || b == FULL) {
                am_mem_set(t, address, size, data | extra);
            } else {             /* only the bytes that hold tainted bits */
                for (uint32_t i = 0; i < size; i++)
                    am_mem_set(t, address + i, 1, (b >> 8 * i & 0xFF) ? data : 0);
            }
        }
        am_forget_known(t, address, size);
        if (!(p->flags & AP_LOAD) && reg >= 0 && size == 4 && !(address & 3)) {
            uint32_t off = address - t->shadow_base;
            if (off < t->shadow_size) {
                if (t->known[reg])
                    t->known_mem[off >> 2] = t->known[reg];
                if (t->bounded[reg]) {
                    t->bounded_mem[off >> 2] = 1;
                    t->lo_mem[off >> 2] = t->lo[reg];
                    t->hi_mem[off >> 2] = t->hi[reg];
                }
            }
        }
        return;
    }
    if (!(p->flags & AP_LOAD) || reg < 0)
        return;
    if (reg != 15) {
        uint32_t off = address - t->shadow_base;
        int whole = size == 4 && !(address & 3) && (n > 1 || t->pending_counter == 0) && off < t->shadow_size;
        t->known[reg] = whole ? t->known_mem[off >> 2] : 0;
        t->bounded[reg] = whole ? t->bounded_mem[off >> 2] : 0;
        if (t->bounded[reg]) {
            t->lo[reg] = t->lo_mem[off >> 2];
            t->hi[reg] = t->hi_mem[off >> 2];
        }
    }
    tt = am_mem_get(t, address, size) | extra;
    if (reg == 15) {
        if (tt)
            am_report(uc, t, t->pending_pc, AK_INDIRECT_JUMP, tt, 0);
        return;
    }
    if (n > 1 || t->pending_counter == 0) {
        regs[reg] = tt;
        b = 0;
        if (tt && !extra && !(p->flags & AP_SIGNED))
            for (uint32_t i = 0; i < size; i++)
                if (am_mem_get(t, address + i, 1))
                    b |= 0xFFu << 8 * i;
        bits[reg] = b ? b : FULL;
        if (n == 1)
            t->pending_counter = 1;
    } else {                     /* a single load split into several accesses */
        regs[reg] |= tt;
        bits[reg] = FULL;
    }
}

void taint_armv7m_on_mem(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value,
                         struct am_taint *t)
{
    (void)value;
    if (t->enabled)
        am_access(uc, t, type == UC_MEM_WRITE, (uint32_t)address, (uint32_t)size);
}
