# SPDX-License-Identifier: MIT
"""Taint tracking for the rv32 board: RV32IMAC, Zbb/Zbkb/Zbkc and the registered custom instructions,
decoded by ``rv32_isa`` (the board's own decoder; capstone 5 cannot decode Zb*/Zk*).

A Python code hook runs before every instruction, with the registers still holding its operands, and
turns the decoded instruction into a shadow update (``_plan`` builds one small closure per address):

* register-register and register-immediate operations (ALU, Zb*, MUL, custom): the destination(s) take
  the union of the sources' taints; SLT/SLTU/ADDC carry their operands' taint into the carry they make.
  Precision: ``xor``/``sub`` of a register with itself, ``and``/``mul`` with x0 and ``andi rd, rs, 0``
  give an untainted zero, ``ori rd, rs, -1`` all ones; LUI, AUIPC, ``li``, JAL/JALR links and counter
  CSR reads are untainted constants. Per register, ``bits`` holds the bits that can carry its taint
  (LBU: 0..7, LHU: 0..15; SRLI/SLLI/ANDI/ORI/XORI/ZEXT/MV map them, anything else taints the word), so a
  secret byte shifted right by 8 is public; a store taints only the bytes holding tainted bits;
* CSRs: taint per CSR. ``mscratch`` is scratch (a secret parked there comes back tainted); a secret
  written to any other CSR is a ``secret-to-io`` finding;
* loads: the address is x[rs1] + imm, read from the live register; a tainted rs1 is a finding
  (``address``); the destination takes the taint of the bytes loaded (and of rs1);
* stores: a tainted rs1 is a finding (``address``); the bytes written take rs2's taint (an untainted
  store clears them, so a wiped secret is public again);
* a conditional branch on a tainted register: ``branch``; JALR/C.JR/C.JALR through a tainted register:
  ``indirect-jump``; DIV/DIVU/REM/REMU (the E31's iterative divider: operand-dependent latency) with a
  tainted operand: ``variable-latency``. MUL/MULH* are fixed-latency on the E31 (data flow only);
* the entry of ``mcu_declassify``: a0's taint is cleared (the only declassification).

Two engines apply these rules. ``Rv32Taint`` (Python closures, one per address) is the reference.
``NativeRv32Taint`` runs them in C (taint_native.c) as a native Unicorn code hook: ``native_plan`` turns
each instruction into a ``struct rv_plan`` on its first execution and the C side only executes plans, at
the speed of an untainted run; it is the default (``MCUCRYPT_TAINT_ENGINE`` / ``ct --engine`` choose), and
tests/test_taint_engines.py requires both to end every call in the same shadow state with the same
findings.
"""
from __future__ import annotations

import ctypes
from typing import Callable

from unicorn import UC_HOOK_CODE, UcError

from . import rv32_isa as isa
from .base import (DECLASSIFY_SYMBOL, TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP,
                   TAINT_VARIABLE_LATENCY, BoardError, TaintFinding)
from .taint_common import TAINT_IO, ShadowMemory, TaintCollector, engine_choice, native_library, seed

_LOAD_SIZE = {"lb": 1, "lbu": 1, "lh": 2, "lhu": 2, "lw": 4, "lwsp": 4}
_STORE_SIZE = {"sb": 1, "sh": 2, "sw": 4, "swsp": 4}
_CONSTANTS = {"lui", "auipc", "li"}
_SELF_ZERO = {"xor", "sub", "xnor", "andn"}       # op(r, r) is a constant: 0 (xnor: all ones)
_FULL = 0xFFFF_FFFF
# CSRs that hold only what software put there (a secret parked in one keeps its taint); a secret written
# to any other CSR (trap vector, status, interrupt enables, PMP...) is a finding of its own class.
_SCRATCH_CSRS = {0x340}     # mscratch
_BYTE_MASKS = (0xFF, 0xFF00, 0xFF_0000, 0xFF00_0000)
# Single-source operations whose tainted bits follow from the source's (``bits``): value -> which bits of
# the result can depend on a tainted bit of the source. Anything else taints every bit of its result.
_BIT_RULES: dict[str, Callable[[int, int], int]] = {
    "srli": lambda b, k: b >> k, "slli": lambda b, k: (b << k) & _FULL,
    "andi": lambda b, k: b & k & _FULL, "zext.b": lambda b, k: b & 0xFF, "zext.h": lambda b, k: b & 0xFFFF,
    "mv": lambda b, k: b, "xori": lambda b, k: b, "ori": lambda b, k: b & ~k & _FULL,
    "addi": lambda b, k: b if k == 0 else _FULL}


def finding_detail(ins: isa.Instr, kind: str) -> str:
    """The detail text of a finding of ``kind`` at ``ins`` (both engines use it)."""
    rs1 = isa.ABI_NAMES[ins.rs1]
    if kind == TAINT_ADDRESS:
        what = "atomic" if ins.cls == isa.AMO else "store" if ins.cls == isa.STORE else "load"
        return f"{what} address from {rs1}"
    if kind == TAINT_BRANCH:
        return f"condition on {rs1}" + (f", {isa.ABI_NAMES[ins.rs2]}" if ins.rs2 else "")
    if kind == TAINT_INDIRECT_JUMP:
        return f"target from {rs1}"
    if kind == TAINT_IO:
        return f"secret written to CSR {isa._CSR_NAMES.get(ins.csr, f'0x{ins.csr:03x}')} (not a scratch register)"
    return f"{ins.mnemonic} operand (the divider's latency depends on it)"


class Rv32Taint:
    """Shadow state of one call on an ``Rv32Board`` (created by ``Rv32Board.call(..., taint=...)``)."""

    def __init__(self, board, collector: TaintCollector, regs: list[int], memory: ShadowMemory,
                 read_reg: Callable[[int], int]):
        self.board = board
        self.collector = collector
        self.regs = regs                  # 32 label masks; regs[0] stays 0
        # Per register, the bits that can carry its taint (meaningful while tainted): a byte loaded with
        # LBU taints bits 0..7 only, so shifting it right by 8 (or masking it with 0xff00) leaves a
        # constant. Memory stays byte-granular: a store taints only the bytes holding tainted bits.
        self.bits = [_FULL] * 32
        self.csr_taint: dict[int, int] = {}   # CSR number -> taint of its value (absent: untainted)
        self.mem = memory
        self.read_reg = read_reg          # x-register number -> current value
        self.plans: dict[int, Callable[[], None]] = {}
        image = board.image
        self.declassify = image.symbols.get(DECLASSIFY_SYMBOL, -1) & ~1 if image is not None else -1
        self.instructions = 0

    def attach_hook(self, uc) -> None:
        self._uc = uc
        self._hooks = [uc.hook_add(UC_HOOK_CODE, self._on_code)]

    needs_flush = True

    def detach(self) -> None:
        for h in self._hooks:
            self._uc.hook_del(h)
        self._hooks = []

    def executed(self) -> frozenset[int]:
        """The addresses of the instructions this call ran (planned on first execution, per call)."""
        return frozenset(self.plans)

    def result(self) -> list[TaintFinding]:
        return self.collector.result()

    def _on_code(self, _uc, address: int, _size: int, _user) -> None:
        plan = self.plans.get(address)
        if plan is None:
            plan = self.plans[address] = self._plan(address)
        self.instructions += 1
        plan()

    # -- one closure per instruction address -------------------------------------------------------

    def _plan(self, pc: int) -> Callable[[], None]:
        ins = self.board._decode_at(pc)
        regs, mem, report, read = self.regs, self.mem, self.collector.report, self.read_reg
        bits = self.bits
        name = ins.mnemonic.removeprefix("c.")
        cls = ins.cls
        rd, rs1, rs2, rs3 = ins.rd, ins.rs1, ins.rs2, ins.rs3
        imm = ins.imm
        declassify = pc == self.declassify

        def clear_a0() -> None:
            self.collector.declassify(regs[10], read(10), read(1))
            regs[10] = 0

        if cls in (isa.LOAD_W, isa.LOAD_BH):
            size = _LOAD_SIZE[name]

            def load() -> None:
                t = regs[rs1]
                if t:
                    report(TAINT_ADDRESS, pc, t, finding_detail(ins, TAINT_ADDRESS))
                if rd:
                    address = (read(rs1) + imm) & 0xFFFF_FFFF
                    loaded = 0
                    m = 0
                    for i in range(size):
                        b = mem.get(address + i, 1)
                        if b:
                            m |= b
                            loaded |= _BYTE_MASKS[i]
                    regs[rd] = t | m
                    if t or (loaded and name in ("lb", "lh") and loaded >> (8 * size - 8)):
                        loaded = _FULL            # a tainted address, or a sign extension of a tainted bit
                    bits[rd] = loaded
            return self._with_declassify(load, declassify, clear_a0)
        if cls == isa.STORE:
            size = _STORE_SIZE[name]

            def store() -> None:
                t = regs[rs1]
                if t:
                    report(TAINT_ADDRESS, pc, t, finding_detail(ins, TAINT_ADDRESS))
                address = (read(rs1) + imm) & 0xFFFF_FFFF
                data = regs[rs2]
                if t or not data or bits[rs2] == _FULL:
                    mem.set(address, size, data | t)
                    return
                b = bits[rs2]
                for i in range(size):
                    mem.set(address + i, 1, data if b & _BYTE_MASKS[i] else 0)
            return self._with_declassify(store, declassify, clear_a0)
        if cls == isa.AMO:
            def amo() -> None:
                t = regs[rs1]
                if t:
                    report(TAINT_ADDRESS, pc, t, finding_detail(ins, TAINT_ADDRESS))
                address = read(rs1) & 0xFFFF_FFFF
                old = mem.get(address, 4)
                if name != "lr.w":
                    mem.set(address, 4, old | regs[rs2] | t)
                if rd:
                    regs[rd] = old | t
                    bits[rd] = _FULL
            return self._with_declassify(amo, declassify, clear_a0)
        if cls == isa.BRANCH:
            def branch() -> None:
                t = regs[rs1] | regs[rs2]
                if t:
                    report(TAINT_BRANCH, pc, t, finding_detail(ins, TAINT_BRANCH))
            return self._with_declassify(branch, declassify, clear_a0)
        if cls in (isa.JAL, isa.JALR):
            def jump() -> None:
                if cls == isa.JALR and regs[rs1]:
                    report(TAINT_INDIRECT_JUMP, pc, regs[rs1], finding_detail(ins, TAINT_INDIRECT_JUMP))
                if rd:
                    regs[rd] = 0
            return self._with_declassify(jump, declassify, clear_a0)
        if cls == isa.CSR and ins.csr not in isa.COUNTER_CSRS:
            csr, scratch = ins.csr, ins.csr in _SCRATCH_CSRS
            csr_taint, writes_rs1 = self.csr_taint, name in ("csrrw", "csrrs", "csrrc")
            keeps_old = name in ("csrrs", "csrrc", "csrrsi", "csrrci")     # set/clear bits of the old value

            def csr_access() -> None:
                old = csr_taint.get(csr, 0)
                t = regs[rs1] if writes_rs1 else 0
                if t and not scratch:
                    report(TAINT_IO, pc, t, finding_detail(ins, TAINT_IO))
                new = (old if keeps_old else 0) | t
                if new:
                    csr_taint[csr] = new
                else:
                    csr_taint.pop(csr, None)
                if rd:
                    regs[rd] = old
                    bits[rd] = _FULL
            return self._with_declassify(csr_access, declassify, clear_a0)
        if cls in (isa.CSR, isa.SYSTEM, isa.FENCE, isa.ILLEGAL):
            def constant() -> None:
                if rd:
                    regs[rd] = 0
            return self._with_declassify(constant, declassify, clear_a0)

        # Register-to-register computation: ALU (I, Zb*), M, custom.
        sources = [r for r in (rs1, rs2, rs3) if r]
        if ins.custom is not None and ins.custom.reads_rd:
            sources += [rd]
        if name in _CONSTANTS or (name in _SELF_ZERO and rs1 == rs2 and rs1) or \
                (name in ("and", "mul", "mulhu", "mulh", "mulhsu", "clmul", "clmulh") and
                 (rs1 == 0 or rs2 == 0)) or (name == "andi" and imm == 0) or (name == "ori" and imm == -1):
            sources = []
        dests = [r for r in (rd, ins.rd2) if r]
        variable = cls == isa.DIV

        if len(sources) == 1 and len(dests) == 1 and not variable:
            s, d = sources[0], dests[0]
            rule = _BIT_RULES.get(name)
            if name == "add" and 0 in (rs1, rs2):
                rule = _BIT_RULES["mv"]
            if rule is None:
                def move() -> None:
                    regs[d] = regs[s]
                    bits[d] = _FULL
                return self._with_declassify(move, declassify, clear_a0)
            k = imm

            def move_bits() -> None:
                t = regs[s]
                if t:
                    b = rule(bits[s], k)
                    regs[d] = t if b else 0
                    bits[d] = b
                else:
                    regs[d] = 0
            return self._with_declassify(move_bits, declassify, clear_a0)

        def compute() -> None:
            t = 0
            for s in sources:
                t |= regs[s]
            if variable and t:
                report(TAINT_VARIABLE_LATENCY, pc, t, finding_detail(ins, TAINT_VARIABLE_LATENCY))
            for d in dests:
                regs[d] = t
                bits[d] = _FULL
        return self._with_declassify(compute, declassify, clear_a0)

    @staticmethod
    def _with_declassify(step: Callable[[], None], declassify: bool,
                         clear: Callable[[], None]) -> Callable[[], None]:
        if not declassify:
            return step

        def both() -> None:
            clear()
            step()
        return both


# ---------------------------------------------------------------------------------------------------
# The C engine (taint_native.c): the rules above, run by a native Unicorn code hook. ``native_plan``
# decides, per instruction, what ``_plan`` decides (independently: the differential test compares the
# two engines' findings); the C side only executes it.

_OP_LOAD, _OP_STORE, _OP_AMO, _OP_BRANCH, _OP_JUMP, _OP_CSR, _OP_CONST, _OP_MOVE, _OP_BITS, _OP_COMPUTE = \
    range(1, 11)
_F_DECLASSIFY, _F_SIGNED, _F_JALR, _F_SCRATCH, _F_WRITES_RS1, _F_KEEPS_OLD, _F_VARIABLE, _F_LR = \
    (1 << k for k in range(8))
_RULES = {name: k + 1 for k, name in enumerate(("srli", "slli", "andi", "zext.b", "zext.h", "mv", "xori",
                                                 "ori", "addi"))}
_KINDS = (TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP, TAINT_VARIABLE_LATENCY, TAINT_IO)
MAX_NATIVE_LABELS = 32          # the C engine's masks are 32-bit
_FINDINGS_CAP = 1 << 16


class _RvPlan(ctypes.Structure):
    _fields_ = [("op", ctypes.c_uint8), ("rd", ctypes.c_uint8), ("rs1", ctypes.c_uint8),
                ("rs2", ctypes.c_uint8), ("rd2", ctypes.c_uint8), ("size", ctypes.c_uint8),
                ("flags", ctypes.c_uint8), ("rule", ctypes.c_uint8), ("csr", ctypes.c_uint16),
                ("pad", ctypes.c_uint16), ("imm", ctypes.c_uint32)]


_P32 = ctypes.POINTER(ctypes.c_uint32)
_DECLASSIFIED_CAP = 1024     # tainted mcu_declassify calls recorded per call (a kind allows one)
_PLAN_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(_RvPlan))


class _RvTaint(ctypes.Structure):
    _fields_ = [("plans", ctypes.POINTER(_RvPlan)), ("plan_base", ctypes.c_uint32),
                ("plan_span", ctypes.c_uint32), ("reported", ctypes.POINTER(ctypes.c_uint8)),
                ("scratch", _RvPlan), ("scratch_reported", ctypes.c_uint8),
                ("regs", ctypes.c_uint32 * 32), ("bits", ctypes.c_uint32 * 32), ("csr", _P32),
                ("shadow", _P32 * 4), ("shadow_base", ctypes.c_uint32 * 4),
                ("shadow_size", ctypes.c_uint32 * 4), ("n_regions", ctypes.c_uint32),
                ("findings", _P32), ("n_findings", ctypes.c_uint32), ("cap_findings", ctypes.c_uint32),
                ("overflow", ctypes.c_uint32), ("instructions", ctypes.c_uint64), ("reg_x0", ctypes.c_int),
                ("reg_read", ctypes.c_void_p), ("emu_stop", ctypes.c_void_p), ("plan", ctypes.c_void_p),
                ("enabled", ctypes.c_uint32), ("executed", ctypes.POINTER(ctypes.c_uint8)),
                ("declassified", _P32), ("n_declassified", ctypes.c_uint32),
                ("cap_declassified", ctypes.c_uint32)]


def native_plan(ins: isa.Instr, declassify: bool) -> tuple[int, ...]:
    """The C engine's plan of ``ins``: (op, rd, rs1, rs2, rd2, size, flags, rule, csr, imm), the fields of
    ``struct rv_plan``; the same decisions as ``Rv32Taint._plan``."""
    name = ins.mnemonic.removeprefix("c.")
    cls = ins.cls
    rd, rs1, rs2 = ins.rd, ins.rs1, ins.rs2
    flags = _F_DECLASSIFY if declassify else 0
    imm = ins.imm & _FULL
    if cls in (isa.LOAD_W, isa.LOAD_BH):
        signed = _F_SIGNED if name in ("lb", "lh") else 0
        return (_OP_LOAD, rd, rs1, 0, 0, _LOAD_SIZE[name], flags | signed, 0, 0, imm)
    if cls == isa.STORE:
        return (_OP_STORE, 0, rs1, rs2, 0, _STORE_SIZE[name], flags, 0, 0, imm)
    if cls == isa.AMO:
        return (_OP_AMO, rd, rs1, rs2, 0, 4, flags | (_F_LR if name == "lr.w" else 0), 0, 0, 0)
    if cls == isa.BRANCH:
        return (_OP_BRANCH, 0, rs1, rs2, 0, 0, flags, 0, 0, 0)
    if cls in (isa.JAL, isa.JALR):
        return (_OP_JUMP, rd, rs1, 0, 0, 0, flags | (_F_JALR if cls == isa.JALR else 0), 0, 0, 0)
    if cls == isa.CSR and ins.csr not in isa.COUNTER_CSRS:
        flags |= _F_SCRATCH if ins.csr in _SCRATCH_CSRS else 0
        flags |= _F_WRITES_RS1 if name in ("csrrw", "csrrs", "csrrc") else 0
        flags |= _F_KEEPS_OLD if name in ("csrrs", "csrrc", "csrrsi", "csrrci") else 0
        return (_OP_CSR, rd, rs1, 0, 0, 0, flags, 0, ins.csr, 0)
    if cls in (isa.CSR, isa.SYSTEM, isa.FENCE, isa.ILLEGAL):
        return (_OP_CONST, rd, 0, 0, 0, 0, flags, 0, 0, 0)
    sources = [r for r in (rs1, rs2, ins.rs3) if r]
    if ins.custom is not None and ins.custom.reads_rd:
        sources.append(rd)
    if name in _CONSTANTS or (name in _SELF_ZERO and rs1 == rs2 and rs1) or \
            (name in ("and", "mul", "mulhu", "mulh", "mulhsu", "clmul", "clmulh") and 0 in (rs1, rs2)) or \
            (name == "andi" and ins.imm == 0) or (name == "ori" and ins.imm == -1):
        sources = []
    dests = [r for r in (rd, ins.rd2) if r]
    variable = cls == isa.DIV
    if len(sources) == 1 and len(dests) == 1 and not variable:
        rule = _RULES.get("mv" if name == "add" and 0 in (rs1, rs2) else name, 0)
        return (_OP_BITS if rule else _OP_MOVE, dests[0], sources[0], 0, 0, 0, flags, rule, 0, imm)
    mask = 0
    for r in sources:
        mask |= 1 << r
    return (_OP_COMPUTE, dests[0] if dests else 0, 0, 0, dests[1] if len(dests) > 1 else 0, 0,
            flags | (_F_VARIABLE if variable else 0), 0, 0, mask)


class _NativeEngine:
    """The C engine of one loaded firmware: its plan table over the executable segments (filled on first
    execution of each address), the shadow buffers, and the hook. The hook stays installed from one
    tainted call to the next, disabled in between (Unicorn compiles hooks into its translated blocks, so
    adding or removing one means translating the code again: for a short call, most of its time); a call
    without the C engine removes it first (``drop_native_hook``)."""

    def __init__(self, board, regions: list[tuple[int, int]]):
        from unicorn.unicorn_py3.unicorn import uccallback, uclib
        from .rv32 import _XREG

        self.board, self.image, self.uc, self.uclib = board, board.image, board._uc, uclib
        self.declassify = board.image.symbols.get(DECLASSIFY_SYMBOL, -1) & ~1
        segments = board._segments
        base = min((a for a, _ in segments), default=0)
        end = max((a + len(d) for a, d in segments), default=0)
        span = max(0, (end - base + 1) // 2)
        self.plans = (_RvPlan * max(span, 1))()
        self.reported = (ctypes.c_uint8 * max(span, 1))()
        self.executed = (ctypes.c_uint8 * max(span, 1))()
        self.declassified = (ctypes.c_uint32 * (3 * _DECLASSIFIED_CAP))()
        self.csr = (ctypes.c_uint32 * 4096)()
        self.findings = (ctypes.c_uint32 * (3 * _FINDINGS_CAP))()
        self.regions = list(regions)
        self.shadow = [(ctypes.c_uint32 * size)() for _, size in regions]
        st = self.state = _RvTaint()
        st.plans, st.plan_base, st.plan_span, st.reported = self.plans, base, span, self.reported
        st.executed, st.declassified, st.cap_declassified = self.executed, self.declassified, _DECLASSIFIED_CAP
        st.csr = self.csr
        for k, (rbase, size) in enumerate(regions):
            st.shadow[k], st.shadow_base[k], st.shadow_size[k] = self.shadow[k], rbase, size
        st.n_regions = len(regions)
        st.findings, st.cap_findings = self.findings, _FINDINGS_CAP
        st.reg_x0 = _XREG[0]
        st.reg_read = ctypes.cast(uclib.uc_reg_read, ctypes.c_void_p)
        st.emu_stop = ctypes.cast(uclib.uc_emu_stop, ctypes.c_void_p)
        self._plan_cb = uccallback(board._uc, _PLAN_CFUNC)(self._plan)
        st.plan = ctypes.cast(self._plan_cb, ctypes.c_void_p)
        self.hook: ctypes.c_size_t | None = None

    def _plan(self, _uc, pc: int, plan) -> None:
        """The C hook met an address without a plan: decode it and fill ``plan``."""
        fields = native_plan(self.board._decode_at(pc), pc == self.declassify)
        p = plan.contents
        (p.op, p.rd, p.rs1, p.rs2, p.rd2, p.size, p.flags, p.rule, p.csr, p.imm) = fields

    def start(self, regs: list[int], memory: ShadowMemory) -> None:
        """Reset the shadow state to a call's seed and enable the hook (installing it if needed)."""
        st = self.state
        st.regs[:] = regs
        ctypes.memset(ctypes.addressof(st) + _RvTaint.bits.offset, 0xFF, 4 * 32)     # every bit
        for buf in (self.reported, self.executed, self.csr, *self.shadow):
            ctypes.memset(buf, 0, ctypes.sizeof(buf))
        st.scratch_reported = st.n_findings = st.overflow = st.instructions = st.n_declassified = 0
        for address, mask in memory.bytes.items():
            for (base, size), shadow in zip(self.regions, self.shadow):
                if 0 <= address - base < size:
                    shadow[address - base] = mask
                    break
            else:
                raise BoardError(f"secret byte at 0x{address:x} outside the board's RAM")
        if self.hook is None:
            handle = ctypes.c_size_t()
            status = self.uclib.uc_hook_add(self.uc._uch, ctypes.byref(handle), UC_HOOK_CODE,
                                            ctypes.cast(native_library().taint_rv32_on_code, ctypes.c_void_p),
                                            ctypes.cast(ctypes.pointer(st), ctypes.c_void_p), 1, 0)
            if status != 0:
                raise BoardError(f"uc_hook_add(taint_rv32_on_code) failed: {UcError(status)}")
            self.hook = handle
            self.uc.ctl_flush_tb()
        st.enabled = 1

    def remove(self) -> None:
        if self.hook is not None:
            self.uclib.uc_hook_del(self.uc._uch, self.hook)
            self.hook = None
            self.uc.ctl_flush_tb()


def drop_native_hook(board) -> None:
    """Remove the C engine's hook before a call that does not use it (no-op when none is installed)."""
    engine = getattr(board, "_native_taint", None)
    if engine is not None and engine.uc is board._uc:
        engine.remove()


class NativeRv32Taint:
    """One call on the C engine: its labels and findings (the shadow state is the ``_NativeEngine``'s)."""

    def __init__(self, board, collector: TaintCollector, regs: list[int], memory: ShadowMemory,
                 regions: list[tuple[int, int]]):
        engine = getattr(board, "_native_taint", None)
        if engine is None or engine.uc is not board._uc or engine.image is not board.image \
                or engine.regions != regions:
            engine = board._native_taint = _NativeEngine(board, regions)
        self.board, self.collector, self.engine = board, collector, engine
        self.state = engine.state
        self._shadow, self._csr = engine.shadow, engine.csr
        engine.start(regs, memory)

    @property
    def instructions(self) -> int:
        return self.state.instructions

    needs_flush = False        # the hook stays, disabled

    def detach(self) -> None:
        self.state.enabled = 0

    def result(self) -> list[TaintFinding]:
        st = self.state
        if st.overflow:
            raise BoardError("the C taint engine's findings buffer filled up")
        findings = self.engine.findings
        for i in range(st.n_findings):
            pc, kind, mask = findings[3 * i: 3 * i + 3]
            kind = _KINDS[kind]
            self.collector.report(kind, pc, mask, finding_detail(self.board._decode_at(pc), kind))
        if st.n_declassified > st.cap_declassified:
            raise BoardError(f"the C taint engine's declassification buffer filled up "
                             f"({st.n_declassified} tainted mcu_declassify calls in one call)")
        records = self.engine.declassified
        for i in range(st.n_declassified):
            value, mask, caller = records[3 * i: 3 * i + 3]
            self.collector.declassify(mask, value, caller)
        return self.collector.result()

    def executed(self) -> frozenset[int]:
        """The addresses of the instructions this call ran (inside the plan window: the code)."""
        base = self.state.plan_base
        return frozenset(base + 2 * i for i, ran in enumerate(bytes(self.engine.executed)) if ran)


def attach(board, spec, args, placed, sp: int, regions: list[tuple[int, int]]):
    """Seed the shadow state of a call about to start on ``board`` (registers and buffers already
    written) and enable its hook, with the engine ``engine_choice()`` names (the Python one when the call
    has more labels than the C engine's masks hold). ``regions``: the RAM the C engine shadows. Returns
    the engine: ``detach()`` after the call, then ``result()``; ``needs_flush`` after ``detach()``: the
    translated code must be flushed (the Python engine's hook was removed)."""
    from .common import marshal_riscv_ilp32
    from .rv32 import _XREG

    collector = TaintCollector(board, spec)
    regs = [0] * 32
    memory = ShadowMemory()
    seed(collector, args, placed, marshal_riscv_ilp32, sp, memory, regs)
    if engine_choice() == "c" and len(collector.labels) <= MAX_NATIVE_LABELS:
        return NativeRv32Taint(board, collector, regs, memory, regions)
    drop_native_hook(board)
    board._uc.ctl_flush_tb()          # hooks are compiled into translated blocks
    read = board._regs.read
    engine = Rv32Taint(board, collector, regs, memory, lambda n: read(_XREG[n]) if n else 0)
    engine.attach_hook(board._uc)
    return engine
