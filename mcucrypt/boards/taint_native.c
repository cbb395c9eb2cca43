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
