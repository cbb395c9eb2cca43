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
"""
from __future__ import annotations

from typing import Callable

from unicorn import UC_HOOK_CODE

from . import rv32_isa as isa
from .base import (DECLASSIFY_SYMBOL, TAINT_ADDRESS, TAINT_BRANCH, TAINT_INDIRECT_JUMP,
                   TAINT_VARIABLE_LATENCY)
from .taint_common import TAINT_IO, ShadowMemory, TaintCollector

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

    def hook(self, uc) -> list[int]:
        return [uc.hook_add(UC_HOOK_CODE, self._on_code)]

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
                    report(TAINT_ADDRESS, pc, t, f"load address from {isa.ABI_NAMES[rs1]}")
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
                    report(TAINT_ADDRESS, pc, t, f"store address from {isa.ABI_NAMES[rs1]}")
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
                    report(TAINT_ADDRESS, pc, t, f"atomic address from {isa.ABI_NAMES[rs1]}")
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
                    report(TAINT_BRANCH, pc, t, f"condition on {isa.ABI_NAMES[rs1]}"
                           + (f", {isa.ABI_NAMES[rs2]}" if rs2 else ""))
            return self._with_declassify(branch, declassify, clear_a0)
        if cls in (isa.JAL, isa.JALR):
            def jump() -> None:
                if cls == isa.JALR and regs[rs1]:
                    report(TAINT_INDIRECT_JUMP, pc, regs[rs1], f"target from {isa.ABI_NAMES[rs1]}")
                if rd:
                    regs[rd] = 0
            return self._with_declassify(jump, declassify, clear_a0)
        if cls == isa.CSR and ins.csr not in isa.COUNTER_CSRS:
            csr, scratch = ins.csr, ins.csr in _SCRATCH_CSRS
            csr_taint, writes_rs1 = self.csr_taint, name in ("csrrw", "csrrs", "csrrc")
            keeps_old = name in ("csrrs", "csrrc", "csrrsi", "csrrci")     # set/clear bits of the old value
            csr_name = isa._CSR_NAMES.get(csr, f"0x{csr:03x}")

            def csr_access() -> None:
                old = csr_taint.get(csr, 0)
                t = regs[rs1] if writes_rs1 else 0
                if t and not scratch:
                    report(TAINT_IO, pc, t, f"secret written to CSR {csr_name} (not a scratch register)")
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
        what = ins.mnemonic

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
                report(TAINT_VARIABLE_LATENCY, pc, t, f"{what} operand (the divider's latency depends on it)")
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


def attach(board, spec, args, placed, sp: int) -> tuple[Rv32Taint, list[int]]:
    """Seed the shadow state of a call about to start on ``board`` (registers and buffers already
    written) and add its hook; returns the engine and the hook handles to delete after the call."""
    from .common import marshal_riscv_ilp32
    from .taint_common import seed
    from .rv32 import _XREG

    collector = TaintCollector(board, spec)
    regs = [0] * 32
    memory = ShadowMemory()
    seed(collector, args, placed, marshal_riscv_ilp32, sp, memory, regs)
    read = board._regs.read
    engine = Rv32Taint(board, collector, regs, memory, lambda n: read(_XREG[n]) if n else 0)
    board._uc.ctl_flush_tb()          # hooks are compiled into translated blocks
    return engine, engine.hook(board._uc)
