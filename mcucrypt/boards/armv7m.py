# SPDX-License-Identifier: MIT
"""The armv7m virtual board: a Cortex-M3 with 512 KiB of flash at 0x0000_0000 and 64 KiB of SRAM at
0x2000_0000, nothing else mapped.

Unicorn runs the instructions (UC_MODE_THUMB with the Cortex-M3 CPU model; UC_MODE_MCLASS would silently
give a Cortex-M33 that accepts UMAAL and the DSP instructions). The cycles come from ``cm3_model`` and are
charged without a per-instruction Python hook, which would cap the board at about a million instructions per
second before any modelling:

* a block hook (one call per translated basic block) decodes each block once with capstone, faults on any
  instruction outside the ARMv7-M base ISA (Unicorn's Cortex-M3 still accepts a few DSP ones), and charges
  the block's static cost, memoized per (block, pipeline state at entry);
* a taken branch is recognised in the *next* block hook (execution did not continue at the fall-through
  address) and charged its refill P there, because P depends on the instruction the branch landed on;
* long multiplies and divides get a code hook on their own address, added the first time their block is
  seen (the block is then re-translated), which reads the operands and charges the data-dependent latency;
* every data access must have its alignment checked (an unaligned single load/store costs extra cycles, an
  unaligned LDM/STM/LDRD/STRD/LDREX/STREX is the UsageFault a real Cortex-M3 raises, which Unicorn does
  not raise). A Python memory hook costs about a microsecond per access, a third of all instructions, so
  the check is a 15-line C function (``_ACCESS_FILTER_C``, built once by ``mcucrypt.build`` for the host,
  cached by content) registered directly with Unicorn: aligned accesses never leave C, unaligned ones call
  back into Python. Traced calls add a Python hook on every access.
* with a memory hook installed, Unicorn 2.1.4 can leave a stale IT state after an IT block whose instruction
  accessed memory, and run the next block as if it were still inside it: the block hook follows the IT
  state from its own decode and repairs Unicorn's when they differ (``_stale_it_state``).

The three hot Python hooks go through Unicorn's ctypes layer directly (``_NativeHooks``), skipping the two
wrapper frames of ``Uc.hook_add``.
"""
from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import capstone
import unicorn
from unicorn import arm_const as U
from unicorn.unicorn_py3 import unicorn as uc_native     # Unicorn's ctypes layer (see _NativeHooks)

from ..build import BUILD_DIR, build
from . import cm3_model, taint_armv7m
from .base import (DEFAULT_MAX_INSTRUCTIONS, Arg, Board, BoardError, BoardFault, CallResult, MemAccess,
                   TaintSpec, Trace)
from .cm3_model import AFTER_REFILL, Cls, Cm3Model, Cm3Params, Op, Refill, State
from .common import STACK_PAINT, ElfImage, buffer_image, check_canaries, marshal_aapcs, place_buffers, \
    stack_high_water, stack_left

FLASH_BASE, FLASH_SIZE = 0x0000_0000, 512 * 1024
SRAM_BASE, SRAM_SIZE = 0x2000_0000, 64 * 1024
# The callee returns here (LR = SENTINEL | 1). Unicorn stops when the PC reaches it, so it is never executed;
# a word-aligned flash address that no image may reach. The return branch's P is charged as for a 16-bit
# instruction at a word-aligned address.
SENTINEL = FLASH_BASE + FLASH_SIZE - 4
MIN_STACK_BYTES = 2048          # buffers may not take the SRAM below this much stack
EM_ARM = "EM_ARM"

_UC_REG = [getattr(U, f"UC_ARM_REG_R{i}") for i in range(13)] + [U.UC_ARM_REG_SP, U.UC_ARM_REG_LR,
                                                                   U.UC_ARM_REG_PC]
_XPSR_THUMB = 1 << 24
_XPSR_IT = 3 << 25 | 0x3F << 10        # ITSTATE<1:0> at bits 26:25, ITSTATE<7:2> at bits 15:10
# QEMU's exception numbers (target/arm/cpu.h) as Unicorn reports them to an interrupt hook.
_EXCEPTIONS = {
    1: "undefined instruction (UsageFault UNDEFINSTR)",
    2: "supervisor call: this board has no exception handlers",
    7: "breakpoint instruction",
    17: "coprocessor/floating-point instruction: the Cortex-M3 has none (UsageFault NOCP)",
    18: "branch to an address with the Thumb bit clear (UsageFault INVSTATE)",
    22: "unaligned access by an instruction that requires alignment (UsageFault UNALIGNED)",
}
# APSR condition codes (capstone's ARM_CC_*) as functions of the N, Z, C, V flags.
_CONDITIONS = {
    capstone.arm_const.ARM_CC_EQ: lambda n, z, c, v: z,
    capstone.arm_const.ARM_CC_NE: lambda n, z, c, v: not z,
    capstone.arm_const.ARM_CC_HS: lambda n, z, c, v: c,
    capstone.arm_const.ARM_CC_LO: lambda n, z, c, v: not c,
    capstone.arm_const.ARM_CC_MI: lambda n, z, c, v: n,
    capstone.arm_const.ARM_CC_PL: lambda n, z, c, v: not n,
    capstone.arm_const.ARM_CC_VS: lambda n, z, c, v: v,
    capstone.arm_const.ARM_CC_VC: lambda n, z, c, v: not v,
    capstone.arm_const.ARM_CC_HI: lambda n, z, c, v: c and not z,
    capstone.arm_const.ARM_CC_LS: lambda n, z, c, v: not c or z,
    capstone.arm_const.ARM_CC_GE: lambda n, z, c, v: n == v,
    capstone.arm_const.ARM_CC_LT: lambda n, z, c, v: n != v,
    capstone.arm_const.ARM_CC_GT: lambda n, z, c, v: not z and n == v,
    capstone.arm_const.ARM_CC_LE: lambda n, z, c, v: z or n != v,
}


# The classes whose executed time is not the one cycle of a failed conditional instruction (a skipped
# ALU/MUL/system/hint instruction costs what it costs executed; a skipped branch costs its 1 without P).
_IT_TIMED = {Cls.MLA, Cls.LONG_MULTIPLY, Cls.DIVIDE, Cls.LOAD, Cls.STORE, Cls.LOAD_DOUBLE, Cls.STORE_DOUBLE,
             Cls.LOAD_MULTIPLE, Cls.STORE_MULTIPLE, Cls.TABLE_BRANCH, Cls.BARRIER, Cls.ISB}


# Trace entries (Trace.variable_latency) of an IT-block instruction timed differently skipped or not.
IT_EXECUTED = "it-executed"
IT_SKIPPED = "it-skipped"


class _Block:
    """A translated basic block, decoded once; its static cost per entry state is memoized."""

    __slots__ = ("ops", "count", "end", "branch", "wide_unaligned_entry", "costs", "it_blocks", "it_costs",
                 "it_codes", "it_after0", "it_after")

    def __init__(self, ops: tuple[Op, ...], it_codes: tuple[int, ...]):
        self.ops = ops
        self.count = len(ops)
        last = ops[-1]
        self.end = last.address + last.size                    # the fall-through address
        self.branch = last if last.refill is not None else None
        first = ops[0]
        self.wide_unaligned_entry = first.size == 4 and bool(first.address & 2)
        self.costs: dict[State, tuple[int, State]] = {}
        # IT address -> the (index, condition) of each instruction of its block whose skipped time differs
        # from its executed one (``_IT_TIMED``); the board corrects the static cost when some fail.
        self.it_blocks: dict[int, tuple[tuple[int, int], ...]] = {}
        for i, op in enumerate(ops):
            if op.cls is Cls.IT:
                inside = ops[i + 1:i + 1 + op.count]
                if any(o.cls in _IT_TIMED for o in inside):
                    self.it_blocks[op.address] = tuple((i + 1 + k, o.cc) for k, o in enumerate(inside))
        self.it_costs: dict[tuple[State, frozenset[int]], tuple[int, State]] = {}
        # The IT state (see _it_walk): each op's IT byte (0: not an IT instruction), and what the block
        # leaves when entered outside an IT block: None (the usual case: state 0, nothing to check) or
        # (state at exit, whether the next block must check Unicorn's copy of it).
        self.it_codes = it_codes
        self.it_after0 = _it_after(it_codes, 0)
        self.it_after: dict[int, tuple[int, bool] | None] = {}  # the same when entered inside an IT block


class Armv7mBoard(Board):
    """Cortex-M3 virtual board (see the module docstring and docs/board-armv7m.md)."""

    default_max_instructions = 5_000_000     # a one-instruction loop runs ~2.7M/s: faults in <2 s
    target = "armv7m"
    native_int_size = 4
    supports_taint = True

    def __init__(self, params: Cm3Params | None = None):
        self._model = Cm3Model(params)
        # P by branch kind and by whether the target is a 32-bit instruction at an address = 2 mod 4.
        self._refill = {kind: (self._model.refill(kind, False), self._model.refill(kind, True))
                        for kind in Refill}
        self._cs = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
        self._cs.detail = True
        self._image: ElfImage | None = None
        self._uc: unicorn.Uc | None = None
        self.last_flash_data_reads = 0      # data reads from flash by the last call (tables in flash)

    # ------------------------------------------------------------------------------------------------
    # Loading

    def load(self, elf: Path | str) -> None:
        image = ElfImage(elf)
        if image.machine != EM_ARM:
            raise BoardError(f"{image.path.name} is not an ARM ELF (machine {image.machine})")
        for seg in image.segments:
            if not (_inside(seg.address, seg.memsz, FLASH_BASE, FLASH_SIZE) or
                    _inside(seg.address, seg.memsz, SRAM_BASE, SRAM_SIZE)):
                raise BoardError(f"segment at 0x{seg.address:x} ({seg.memsz} bytes) is outside flash and SRAM")
            if seg.address <= SENTINEL < seg.address + seg.memsz:
                raise BoardError(f"the image reaches the return sentinel at 0x{SENTINEL:x}")
        # link.ld sets __mcu_free_start after .bss; when an image has neither .data nor .bss the linker
        # drops both output sections and the symbol lands in flash. Free RAM then starts above whatever
        # the image put in SRAM (nothing: the SRAM base).
        sram_end = max([SRAM_BASE] + [s.address + s.memsz for s in image.segments if s.address >= SRAM_BASE])
        free_start = image.address_of("__mcu_free_start")
        if not SRAM_BASE <= free_start <= SRAM_BASE + SRAM_SIZE:
            free_start = (sram_end + 15) // 16 * 16
        self._free_start = max(free_start, sram_end)
        self._stack_top = image.address_of("__mcu_stack_top")
        if not self._free_start <= self._stack_top <= SRAM_BASE + SRAM_SIZE:
            raise BoardError(f"__mcu_stack_top 0x{self._stack_top:x} is not at the top of the free SRAM")

        uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB)
        uc.ctl_set_cpu_model(U.UC_CPU_ARM_CORTEX_M3)
        uc.mem_map(FLASH_BASE, FLASH_SIZE, unicorn.UC_PROT_READ | unicorn.UC_PROT_EXEC)
        uc.mem_map(SRAM_BASE, SRAM_SIZE, unicorn.UC_PROT_ALL)
        sram = bytearray(SRAM_SIZE)
        for seg in image.segments:
            body = seg.data.ljust(seg.memsz, b"\0")
            if seg.address >= SRAM_BASE:
                offset = seg.address - SRAM_BASE
                sram[offset:offset + seg.memsz] = body
            else:
                uc.mem_write(seg.address, body)
        # Every call starts from this SRAM image: .data as linked, .bss zero (the harness plays crt0).
        self._sram_image = bytes(sram)
        self._native = _NativeHooks(uc)
        self._native.add_code(unicorn.UC_HOOK_BLOCK, self._on_block)
        self._native.add_access_filter(self._on_unaligned)
        uc.hook_add(unicorn.UC_HOOK_MEM_INVALID, self._on_bad_access)
        uc.hook_add(unicorn.UC_HOOK_INTR, self._on_interrupt)
        uc.hook_add(unicorn.UC_HOOK_INSN_INVALID, self._on_invalid_instruction)
        self._uc, self._image = uc, image
        self._blocks: dict[int, _Block] = {}
        self._ops: dict[int, Op] = {}               # every decoded instruction, by address
        # address -> (mnemonic, Unicorn ids of its two timing operands) of every hooked multiply/divide
        self._variable: dict[int, tuple[str, int, int]] = {}
        self._it_hooked: set[int] = set()     # IT addresses with an ``_on_it`` hook

    # ------------------------------------------------------------------------------------------------
    # Calling

    def call(self, symbol: str, args: Sequence[Arg] = (), *, trace: bool = False,
             max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, ret_size: int = 0,
             taint: TaintSpec | None = None) -> CallResult:
        if self._uc is None or self._image is None:
            raise BoardError("no ELF loaded")
        uc, image = self._uc, self._image
        entry = image.address_of(symbol)
        if not entry & 1:
            raise BoardError(f"{symbol} is not a Thumb function (address 0x{entry:x} has bit 0 clear)")
        if ret_size not in (0, 1, 2, 4, 8):
            raise BoardError(f"unsupported return width {ret_size}")

        scalars, placed, buffers_end = place_buffers(args, self._free_start,
                                                     self._stack_top - MIN_STACK_BYTES)
        marshalled = marshal_aapcs(scalars)
        sp = (self._stack_top - len(marshalled.stack)) & ~7     # AAPCS: 8-aligned, arguments at [sp]
        if sp - buffers_end < MIN_STACK_BYTES:
            raise BoardError(f"arguments leave only {sp - buffers_end} bytes of stack")

        uc.mem_write(SRAM_BASE, self._sram_image)
        for p in placed:
            address, data = buffer_image(p)
            uc.mem_write(address, data)
        uc.mem_write(buffers_end, bytes([STACK_PAINT]) * (sp - buffers_end))
        uc.mem_write(sp, marshalled.stack)
        for reg in _UC_REG[:13]:
            uc.reg_write(reg, 0)
        for n, value in marshalled.registers.items():
            uc.reg_write(_UC_REG[n], value)
        uc.reg_write(U.UC_ARM_REG_SP, sp)
        uc.reg_write(U.UC_ARM_REG_LR, SENTINEL | 1)
        uc.reg_write(U.UC_ARM_REG_XPSR, _XPSR_THUMB)
        for reg in (U.UC_ARM_REG_PRIMASK, U.UC_ARM_REG_BASEPRI, U.UC_ARM_REG_FAULTMASK):
            uc.reg_write(reg, 0)

        self._reset_counters(max_instructions, Trace() if trace else None)
        trace_hooks = []
        if trace:
            trace_hooks = [uc.hook_add(unicorn.UC_HOOK_CODE, self._on_trace_instruction),
                           uc.hook_add(unicorn.UC_HOOK_MEM_READ | unicorn.UC_HOOK_MEM_WRITE,
                                       self._on_trace_access)]
            uc.ctl_flush_tb()       # blocks translated before the hooks existed would not call them
        tainter = None
        if taint is not None:       # the taint engine (taint_armv7m.py): hooks on every instruction and access
            tainter, taint_hooks = taint_armv7m.attach(self, taint, args, placed, sp)
            trace_hooks += taint_hooks
        else:
            taint_armv7m.drop_native_hook(self)
        try:
            self._run(entry)
        finally:
            if tainter is not None:
                tainter.detach()
            if trace_hooks:
                for hook in trace_hooks:
                    uc.hook_del(hook)
                uc.ctl_flush_tb()

        if self._last_branch is not None:       # the return: taken, to the sentinel
            self._cycles += self._refill[self._last_branch.refill][False]
        self.last_flash_data_reads = flash_reads = self._native.take_flash_reads()
        cycles = self._cycles + self._variable_cycles + self._unaligned_cycles + \
            flash_reads * self._model.params.flash_wait_states

        for p in placed:
            address, data = buffer_image(p)
            check_canaries(p, bytes(uc.mem_read(address, len(data))), symbol)
        painted = bytes(uc.mem_read(buffers_end, sp - buffers_end))
        stack = stack_high_water(painted, buffers_end, sp)
        if painted and stack == len(painted):
            raise BoardFault(f"stack overflow: {symbol} used all {stack} bytes between its buffers and the "
                             f"initial stack pointer")
        outputs = [bytes(uc.mem_read(p.address, p.buf.length)) for p in placed if p.buf.out]
        findings = tainter.result() if tainter is not None else None
        r0 = uc.reg_read(U.UC_ARM_REG_R0)
        width = ret_size or self.native_int_size
        if width == 8:
            value = r0 | uc.reg_read(U.UC_ARM_REG_R1) << 32
        else:
            value = r0 & ((1 << (8 * width)) - 1)
        return CallResult(outputs=outputs, return_value=value, cycles=cycles, instructions=self._executed,
                          stack_bytes=stack, trace=self._trace,
                          taint=findings,
                          declassified=tainter.collector.declassified if tainter is not None else None,
                          executed=tainter.executed_addresses() if tainter is not None else None,
                          stack_left=stack_left(painted))

    def describe_model(self) -> dict:
        return {
            "target": self.target,
            "core": "ARM Cortex-M3 r2p1, zero-wait-state memories",
            "simulator": f"unicorn {unicorn.__version__} (UC_MODE_THUMB, UC_CPU_ARM_CORTEX_M3), "
                         f"capstone {capstone.__version__}",
            "memory": {"flash": [FLASH_BASE, FLASH_SIZE], "sram": [SRAM_BASE, SRAM_SIZE]},
            "timing": self._model.params.describe(),
        }

    # ------------------------------------------------------------------------------------------------
    # Execution

    def _reset_counters(self, max_instructions: int, trace: Trace | None) -> None:
        self._budget = self.instruction_budget(max_instructions)
        self._trace = trace
        self._trace_it: list[int] = []      # trace mode: the rest of the IT block now executing
        self._cycles = 0                # static block costs and refills
        self._variable_cycles = 0       # long multiplies and divides
        self._unaligned_cycles = 0
        self._native.take_flash_reads()     # count this call's flash data reads only
        self._executed = 0
        self._state = AFTER_REFILL      # the callee is entered by a branch
        self._fallthrough = -1
        self._last_branch: Op | None = None
        self._block: _Block | None = None      # the basic block now running and the state it was entered in
        self._block_entry = AFTER_REFILL
        self._fault: BoardFault | None = None
        self._restart_at: int | None = None
        # None, or (the IT state the next block must be entered with, whether the last block ran instructions
        # inside an IT block so the next one must check it): see _stale_it_state
        self._it: tuple[int, bool] | None = None
        self._it_repaired_at: int | None = None
        self.it_repairs = 0             # stale IT states repaired in this call (Unicorn issue, see _on_block)

    def _run(self, entry: int) -> None:
        """Emulate from ``entry`` until the PC reaches the sentinel, restarting after a block asked for new
        code hooks; raise the first fault any hook recorded."""
        uc = self._uc
        start = entry | 1
        while True:
            self._restart_at = None
            try:
                uc.emu_start(start, SENTINEL)
            except unicorn.UcError as e:
                if self._fault is None:
                    self._fault = self._fault_at(f"emulation stopped: {e}", uc.reg_read(U.UC_ARM_REG_PC))
            if self._fault is not None:
                raise self._fault
            if self._restart_at is None:
                break
            start = self._restart_at | 1
        pc = uc.reg_read(U.UC_ARM_REG_PC)
        if pc != SENTINEL:
            raise self._fault_at("execution stopped before the function returned", pc)

    def _on_block(self, _handle: int, address: int, size: int, _user: int) -> None:
        """Charge one basic block before it runs (native hook: must not raise)."""
        try:
            it = self._it
            if it is not None and it[1] and self._stale_it_state(address, size, it[0]):
                return
            block = self._blocks.get(address << 16 | size)
            if block is None:
                block = self._new_block(self._uc, address, size)
                if block is None:
                    return
            branch = self._last_branch
            if branch is not None and (address != self._fallthrough or self._taken_to_fallthrough(branch)):
                self._cycles += self._refill[branch.refill][block.wide_unaligned_entry]
                state = AFTER_REFILL
            else:
                state = self._state
            cost = block.costs.get(state)
            if cost is None:
                cost = block.costs[state] = self._model.block(block.ops, state)
            self._block, self._block_entry = block, state
            self._cycles += cost[0]
            self._state = cost[1]
            if it is None or not it[0]:
                self._it = block.it_after0
            elif it[0] in block.it_after:
                self._it = block.it_after[it[0]]
            else:
                self._it = block.it_after[it[0]] = _it_after(block.it_codes, it[0])
            self._last_branch = block.branch
            self._fallthrough = block.end
            self._executed += block.count
            if self._executed > self._budget:
                self._stop(self._uc, self._fault_at(f"runaway: more than {self._budget} instructions "
                                                    f"executed (max_instructions)", address))
        except Exception as e:      # noqa: BLE001 - becomes the call's fault, never swallowed
            self._stop(self._uc, BoardFault(f"board error in block hook: {e!r}", address))

    def _stale_it_state(self, address: int, size: int, expected: int) -> bool:
        """Repair Unicorn's IT state at the start of a block when it is not the one the instructions before
        left (returns True: the block must not run, it is restarted).

        Unicorn 2.1.4 with a memory hook restores the CPU state (cpu_restore_state) before each hooked access,
        which writes the accessing instruction's IT state into env->condexec_bits; QEMU writes the IT state
        back at the end of a translation block only when the block ends *inside* an IT block (it assumes the
        state it zeroed at the block's start is still zero). So when an instruction inside an IT block
        accesses memory and the IT block ends in the same translation block, the stale IT state survives
        and the next block is translated and run as if it were inside that IT block: its first instructions
        are skipped or executed under the old condition (unicorn-engine/unicorn issue 2309 is the same
        class). The board knows the right state from its own decode (``_it_walk``): when the stored one
        differs, it writes the right one, drops the block's translations and rewrites the PC, which makes
        Unicorn leave this block before it runs and translate it again under the right state."""
        it = self._native.read(U.UC_ARM_REG_EPSR)
        actual = (it >> 25 & 3) | (it >> 8 & 0xFC)
        if actual == expected:
            self._it_repaired_at = None
            return False
        if self._it_repaired_at == address:
            self._stop(self._uc, self._fault_at(f"board error: Unicorn keeps IT state 0x{actual:02x} at a block "
                                                f"that must start with 0x{expected:02x}", address))
            return True
        self._it_repaired_at = address
        self.it_repairs += 1
        uc = self._uc
        xpsr = uc.reg_read(U.UC_ARM_REG_XPSR) & ~_XPSR_IT
        uc.reg_write(U.UC_ARM_REG_XPSR, xpsr | (expected & 3) << 25 | (expected >> 2) << 10)
        # Drop the translations at this address: the one made under the stale state is linked from the
        # block before, which would jump straight into it the next time even with the right state.
        uc.ctl_remove_cache(address, address + size)
        uc.reg_write(U.UC_ARM_REG_PC, address | 1)     # Unicorn: quit this block, continue at the PC
        return True

    def _taken_to_fallthrough(self, branch: Op) -> bool:
        """Execution continued at the fall-through address of ``branch``: was it taken all the same (an
        unconditional branch, or a conditional one whose target is the next instruction)?"""
        if not branch.conditional:
            return True
        if branch.target is not None and branch.target != self._fallthrough:
            return False
        if branch.zero_test is not None:
            register, when_zero = branch.zero_test
            return (self._native.read(_UC_REG[register]) == 0) == when_zero
        flags = self._native.read(U.UC_ARM_REG_APSR)
        n, z, c, v = (flags >> 31 & 1, flags >> 30 & 1, flags >> 29 & 1, flags >> 28 & 1)
        return bool(_CONDITIONS[branch.cc](n, z, c, v))

    def _new_block(self, uc: unicorn.Uc, address: int, size: int) -> _Block | None:
        """Decode a block the first time Unicorn runs it. Returns None (and stops) when it must not run:
        it holds a faulting instruction, or code hooks were just added and it must be translated again."""
        ops: list[Op] = []
        it_codes: list[int] = []
        end = address + size
        for insn in self._cs.disasm(bytes(uc.mem_read(address, size)), address):
            op = cm3_model.decode(insn)
            if op.fault is not None:
                self._stop(uc, BoardFault(op.fault, op.address, self.symbol_at(op.address), op.text))
                return None
            ops.append(op)
            # IT's low byte (firstcond:mask) is the ITSTATE it sets (ARMv7-M ARM A7.7.38)
            it_codes.append(insn.bytes[0] if insn.id == capstone.arm_const.ARM_INS_IT else 0)
        decoded_end = ops[-1].address + ops[-1].size if ops else address
        if decoded_end != end or not ops:
            self._stop(uc, self._fault_at("undefined instruction", decoded_end))
            return None
        if len(ops) == 1 and ops[0].target == address and not ops[0].conditional:
            # "b ." (what `for (;;);` compiles to): would spin through the whole instruction budget.
            self._stop(uc, self._fault_at("infinite loop: a branch to itself", address))
            return None
        block = _Block(tuple(ops), tuple(it_codes))
        unhooked = [op for op in ops if op.variable is not None and op.address not in self._variable]
        unhooked_it = [a for a in block.it_blocks if a not in self._it_hooked]
        if unhooked or unhooked_it:
            for op in unhooked:
                self._native.add_code(unicorn.UC_HOOK_CODE, self._on_variable, op.address, op.address)
                self._variable[op.address] = (op.variable, _UC_REG[op.operands[0]], _UC_REG[op.operands[1]])
            for a in unhooked_it:
                self._native.add_code(unicorn.UC_HOOK_CODE, self._on_it, a, a)
                self._it_hooked.add(a)
            uc.ctl_remove_cache(address, end)
            self._restart_at = address
            uc.emu_stop()
            return None
        for op in ops:
            self._ops[op.address] = op
        self._blocks[address << 16 | size] = block
        return block

    def _on_it(self, _handle: int, address: int, size: int, _user: int) -> None:
        """At an IT whose block holds instructions timed differently skipped (``_IT_TIMED``): recharge the
        current basic block with the ones that fail their condition on the live flags (Unicorn calls no
        hook for them) at one cycle each (native hook: must not raise). The block's flags cannot change
        before its last instruction in the code compilers emit; a flag-setting instruction inside the
        block is evaluated on the flags at the IT all the same."""
        try:
            block, entry = self._block, self._block_entry
            conditions = block.it_blocks.get(address) if block is not None else None
            if not conditions:
                return
            flags = self._native.read(U.UC_ARM_REG_APSR)
            n, z, c, v = (flags >> 31 & 1, flags >> 30 & 1, flags >> 29 & 1, flags >> 28 & 1)
            failed = frozenset(i for i, cc in conditions
                               if cc in _CONDITIONS and not _CONDITIONS[cc](n, z, c, v))
            if self._trace is not None:     # trace mode compares which timed ones ran (ct.compare)
                ops = block.ops
                for i, _cc in conditions:
                    if ops[i].cls in _IT_TIMED:
                        self._trace.variable_latency.append(
                            (ops[i].address, IT_SKIPPED if i in failed else IT_EXECUTED, (), 0))
            if not failed:
                return
            key = (entry, failed)
            cost = block.it_costs.get(key)
            if cost is None:
                cost = block.it_costs[key] = self._model.block(block.ops, entry, failed)
            self._cycles += cost[0] - block.costs[entry][0]
            self._state = cost[1]
        except Exception as e:      # noqa: BLE001 - becomes the call's fault, never swallowed
            self._stop(self._uc, BoardFault(f"board error in IT hook: {e!r}", address))

    def _on_variable(self, _handle: int, address: int, size: int, _user: int) -> None:
        """Charge a long multiply or divide from its operand values (native hook: must not raise)."""
        try:
            name, reg_a, reg_b = self._variable[address]
            a, b = self._native.read2(reg_a, reg_b)
            cycles = self._model.variable_cycles(name, a, b)
            self._variable_cycles += cycles
            if self._trace is not None:
                self._trace.variable_latency.append((address, name, (a, b), cycles))
        except Exception as e:      # noqa: BLE001
            self._stop(self._uc, BoardFault(f"board error in multiply/divide hook: {e!r}", address))

    def _on_unaligned(self, address: int, size: int) -> None:
        """An unaligned access (called from the C filter; must not raise): a fault for the instructions
        that require alignment, extra cycles for the others."""
        try:
            pc = self._native.read(U.UC_ARM_REG_PC)
            if self._ops[pc].must_align:
                self._stop(self._uc, self._fault_at(f"{_EXCEPTIONS[22]}: {size}-byte access at "
                                                    f"0x{address:x}", pc))
            else:
                self._unaligned_cycles += self._model.unaligned_penalty(address, size)
        except Exception as e:      # noqa: BLE001
            self._stop(self._uc, BoardFault(f"board error in unaligned-access callback: {e!r}"))

    def _on_trace_access(self, uc: unicorn.Uc, access: int, address: int, size: int, value: int,
                         _: object) -> None:
        self._trace.accesses.append(MemAccess(uc.reg_read(U.UC_ARM_REG_PC), address, size,
                                              access == unicorn.UC_MEM_WRITE))

    def _on_trace_instruction(self, uc: unicorn.Uc, address: int, size: int, _: object) -> None:
        """Record ``address``, and before it the IT-block instructions that failed their condition since the
        last hook (Unicorn hooks none of them): a trace lists every instruction of an IT block, executed
        or not, so a conditional select on secret flags gives the same address sequence either way (the
        executed/skipped status of a timed one is compared separately: ``_on_it``)."""
        pcs = self._trace.pcs
        pending = self._trace_it
        while pending:
            skipped = pending.pop(0)
            if skipped == address:
                break
            pcs.append(skipped)
        pcs.append(address)
        op = self._ops.get(address)
        if op is not None and op.cls is Cls.IT:
            inside, a = [], address + op.size
            for _k in range(op.count):
                inner = self._ops.get(a)
                if inner is None:
                    break
                inside.append(a)
                a += inner.size
            self._trace_it = inside

    def _on_bad_access(self, uc: unicorn.Uc, access: int, address: int, size: int, value: int,
                       _: object) -> bool:
        kind = {unicorn.UC_MEM_READ_UNMAPPED: "read", unicorn.UC_MEM_WRITE_UNMAPPED: "write",
                unicorn.UC_MEM_FETCH_UNMAPPED: "instruction fetch", unicorn.UC_MEM_WRITE_PROT: "write"}
        if access == unicorn.UC_MEM_WRITE_PROT:
            why = "flash is read-only"
        else:
            why = (f"unmapped (only flash 0x{FLASH_BASE:x}+{FLASH_SIZE >> 10}K and SRAM 0x{SRAM_BASE:x}+"
                   f"{SRAM_SIZE >> 10}K exist)")
        # The PC of a failed fetch is the address it jumped to, which Unicorn has not yet made current.
        pc = address if access == unicorn.UC_MEM_FETCH_UNMAPPED else uc.reg_read(U.UC_ARM_REG_PC)
        self._stop(uc, self._fault_at(f"{kind.get(access, 'access')} of {size} bytes at 0x{address:x}: {why}",
                                      pc))
        return False

    def _on_interrupt(self, uc: unicorn.Uc, number: int, _: object) -> None:
        self._stop(uc, self._fault_at(_EXCEPTIONS.get(number, f"CPU exception {number}"),
                                      uc.reg_read(U.UC_ARM_REG_PC)))

    def _on_invalid_instruction(self, uc: unicorn.Uc, _: object) -> bool:
        # A BX/BLX/POP to an even address leaves the Thumb state; Unicorn then fails to decode instead of
        # raising the INVSTATE UsageFault a Cortex-M3 takes, so tell the two apart here.
        reason = _EXCEPTIONS[1] if uc.reg_read(U.UC_ARM_REG_XPSR) & _XPSR_THUMB else _EXCEPTIONS[18]
        self._stop(uc, self._fault_at(reason, uc.reg_read(U.UC_ARM_REG_PC)))
        return False

    def _stop(self, uc: unicorn.Uc, fault: BoardFault) -> None:
        if self._fault is None:
            self._fault = fault
        uc.emu_stop()

    def _fault_at(self, reason: str, pc: int) -> BoardFault:
        """A BoardFault naming ``pc``, its symbol and the instruction there."""
        return BoardFault(reason, pc, self.symbol_at(pc), self.disassemble(pc))

    # ------------------------------------------------------------------------------------------------
    # Diagnostics (also used by the constant-time checker)

    def symbol_at(self, address: int) -> str:
        """'name+0xoff' for an address in flash or SRAM, '?' elsewhere or when no symbol precedes it."""
        if self._image is None or not (_inside(address, 1, FLASH_BASE, FLASH_SIZE) or
                                       _inside(address, 1, SRAM_BASE, SRAM_SIZE)):
            return "?"
        return self._image.symbol_at(address)

    def disassemble(self, pc: int) -> str:
        """Capstone's Thumb text for the instruction at ``pc``, as it is in memory now."""
        if self._uc is None:
            return "?"
        try:
            code = bytes(self._uc.mem_read(pc & ~1, 4))
        except unicorn.UcError:
            try:
                code = bytes(self._uc.mem_read(pc & ~1, 2))
            except unicorn.UcError:
                return "? (address not mapped)"
        for insn in self._cs.disasm(code, pc & ~1, 1):
            return f"{insn.mnemonic} {insn.op_str}".strip()
        return f"(undecodable: {code.hex()})"


_ACCESS_FILTER_C = """\
/* Data-access filter of the armv7m board (mcucrypt/boards/armv7m.py), registered with Unicorn as a
 * UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE callback: aligned accesses return here, unaligned ones are passed
 * to the board. Generated from armv7m.py; edit it there. */
#include <stdint.h>

struct armv7m_access_filter {
    void (*on_unaligned)(uint64_t address, int32_t size);
    uint64_t flash_end;         /* data reads below this address come from flash (D-code bus) */
    uint64_t flash_reads;       /* counted here, charged by the board (Cm3Params.flash_wait_states) */
};

void armv7m_access_filter(void *uc, int32_t type, uint64_t address, int32_t size, int64_t value,
                          void *user_data);

void armv7m_access_filter(void *uc, int32_t type, uint64_t address, int32_t size, int64_t value,
                          void *user_data)
{
    struct armv7m_access_filter *filter = user_data;
    (void)uc;
    (void)value;
    if (type == 16 /* UC_MEM_READ */ && address < filter->flash_end)
        filter->flash_reads++;
    if (address & (uint64_t)(size - 1))
        filter->on_unaligned(address, size);
}
"""


class _AccessFilter(ctypes.Structure):
    """struct armv7m_access_filter."""

    CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_int32)
    _fields_ = [("on_unaligned", CALLBACK), ("flash_end", ctypes.c_uint64), ("flash_reads", ctypes.c_uint64)]


@lru_cache(maxsize=None)
def _access_filter_lib() -> ctypes.CDLL:
    """Build the access filter for the host (mcucrypt.build caches it by content) and load it."""
    source = BUILD_DIR / "host" / "armv7m-access-filter.c"
    if not source.is_file() or source.read_text() != _ACCESS_FILTER_C:
        source.parent.mkdir(parents=True, exist_ok=True)
        tmp = source.with_name(f"{source.name}.tmp{os.getpid()}")
        tmp.write_text(_ACCESS_FILTER_C)
        os.replace(tmp, source)     # atomic: a parallel load never compiles a half-written file
    return ctypes.CDLL(str(build("host", [source], name="armv7m-access-filter").path))


class _NativeHooks:
    """The board's hot hooks registered through Unicorn's ctypes layer, and register reads done the same
    way.

    Unicorn's ``Uc.hook_add`` runs every callback through two extra Python frames (an exception guard and an
    argument adapter) and ``Uc.reg_read`` picks a ctypes type on every call: measured here, a block-hook call
    costs about 1.6 us that way against 0.9 us direct, and there is one per executed block. The cost of
    going direct:
    callbacks receive the raw arguments and must not raise (ctypes would print and drop the exception), so
    each one catches and records its own errors as the call's fault."""

    def __init__(self, uc: unicorn.Uc):
        self._uc = uc
        self._keep: list[object] = []       # the ctypes callbacks must outlive the hooks
        self._filter: _AccessFilter | None = None
        self._value = ctypes.c_uint32()
        self._value_ref = ctypes.byref(self._value)
        self._ids = (ctypes.c_int32 * 2)()
        self._pair = (ctypes.c_uint32 * 2)()
        self._pair_refs = (ctypes.c_void_p * 2)(ctypes.addressof(self._pair),
                                                ctypes.addressof(self._pair) + ctypes.sizeof(ctypes.c_uint32))

    def add_code(self, kind: int, callback: Callable[[int, int, int, int], None], begin: int = 1,
                 end: int = 0) -> None:
        """A UC_HOOK_BLOCK or UC_HOOK_CODE hook over [begin, end] (begin > end: everywhere)."""
        self._add(kind, uc_native.HOOK_CODE_CFUNC(callback), begin, end)

    def add_access_filter(self, on_unaligned: Callable[[int, int], None]) -> None:
        """Check every data access in C; call ``on_unaligned(address, size)`` for the unaligned ones."""
        callback = _AccessFilter.CALLBACK(on_unaligned)
        self._keep.append(callback)
        self._filter = _AccessFilter(callback, FLASH_BASE + FLASH_SIZE, 0)
        function = ctypes.cast(_access_filter_lib().armv7m_access_filter, ctypes.c_void_p)
        self._add(unicorn.UC_HOOK_MEM_READ | unicorn.UC_HOOK_MEM_WRITE, function, 1, 0,
                  ctypes.cast(ctypes.pointer(self._filter), ctypes.c_void_p))

    def take_flash_reads(self) -> int:
        """Data reads from flash since the last call of this method."""
        if self._filter is None:
            return 0
        n = self._filter.flash_reads
        self._filter.flash_reads = 0
        return n

    def _add(self, kind: int, fn: object, begin: int, end: int,
             user_data: ctypes.c_void_p | None = None) -> None:
        handle = uc_native.uc_hook_h()
        status = uc_native.uclib.uc_hook_add(self._uc._uch, ctypes.byref(handle), kind,
                                             ctypes.cast(fn, ctypes.c_void_p), user_data,
                                             ctypes.c_uint64(begin), ctypes.c_uint64(end))
        if status != unicorn.UC_ERR_OK:
            raise unicorn.UcError(status)
        self._keep.append(fn)

    def read(self, reg: int) -> int:
        uc_native.uclib.uc_reg_read(self._uc._uch, reg, self._value_ref)
        return self._value.value

    def read2(self, reg_a: int, reg_b: int) -> tuple[int, int]:
        self._ids[0], self._ids[1] = reg_a, reg_b
        uc_native.uclib.uc_reg_read_batch(self._uc._uch, self._ids, self._pair_refs, 2)
        return self._pair[0], self._pair[1]


def _it_walk(it_codes: Sequence[int], entry: int) -> tuple[int, bool]:
    """The IT state (ITSTATE<7:0>, ARMv7-M ARM B1.4.2) after a block entered with ``entry`` whose
    instructions have the IT bytes ``it_codes`` (0: not an IT instruction), and whether any of its
    instructions ran inside an IT block (only then can Unicorn leave a stale state, see
    Armv7mBoard._stale_it_state). Every instruction advances the state, executed or not."""
    state, inside = entry, False
    for code in it_codes:
        if code:
            state = code
        elif state:
            inside = True
            state = 0 if state & 7 == 0 else (state & 0xE0) | (state << 1 & 0x1F)
    return state, inside


def _it_after(it_codes: Sequence[int], entry: int) -> tuple[int, bool] | None:
    """_it_walk, with None for (0, False): what the block hook keeps between blocks."""
    after = _it_walk(it_codes, entry)
    return None if after == (0, False) else after


def _inside(address: int, size: int, base: int, region: int) -> bool:
    return base <= address and address + size <= base + region
