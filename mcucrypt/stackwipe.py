# SPDX-License-Identifier: MIT
"""Stack hygiene: the MCU_STACK_WIPE build, in which every public function that handles secrets zeroes
the stack its call used before it returns (docs/constant-time.md, "Stack hygiene").

How it works. With ``-DMCU_STACK_WIPE=1``, ``mcucrypt/ns.h`` names every routine
``mcu_<id>_<impl>_<op>_unwiped``; a generated assembly file (``wrapper_source``, macros in
``include/mcucrypt/stack_wipe.h``) gives each public name a wrapper that calls the routine with the same
arguments and then stores zeros over the bytes below its caller's stack pointer that the call can have
used, or, for a function that takes no secret, a tail jump. How deep a call goes is measured: the
routine's stack high-water on the board over the kind driver's secret calls (``measure``), kept per
(target, id, implementation, operation) in crypto/common/stack_depth.json (``python -m mcucrypt.stackwipe
--update`` rewrites it), plus the wrapper's own frame, plus a margin where the implementation has C
sources (another compiler version or other flags may lay out C frames differently; assembly frames are
what they are).

The test (tests/test_stack_residue.py) runs every constant-time implementation's secret calls on every
board in this build and requires the stack the call used to hold nothing but zeros and untouched paint
afterwards (``CallResult.stack_left``); the exported library carries the same wrappers
(mcucrypt/export.py), on unless the user builds it with ``-DMCU_STACK_WIPE=0``.

    python -m mcucrypt.stackwipe --update [--target T] [--prim ID]   measure and rewrite the table
    python -m mcucrypt.stackwipe --cost [--target T] [--prim ID]     cycles of the wipe, per call
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Iterable, Mapping

from .boards.base import Arg, Buf, CallResult, Int
from .boards.common import STACK_PAINT, marshal_aapcs, marshal_avr, marshal_riscv_ilp32
from .build import BUILD_DIR, Image, build, impl_define
from .catalog import Catalog, Implementation, Prototype, load_catalog
from .cores import get_core
from .targets import ROOT

TABLE_PATH = ROOT / "crypto" / "common" / "stack_depth.json"
BODY_SUFFIX = "_unwiped"            # ns.h's MCU_FN_SUFFIX under MCU_STACK_WIPE
DEFINE = "MCU_STACK_WIPE=1"
TARGETS = ("rv32", "armv7m", "avr")
NATIVE = {"rv32": 4, "armv7m": 4, "avr": 2}
MARSHAL = {"rv32": marshal_riscv_ilp32, "armv7m": marshal_aapcs, "avr": marshal_avr}
# The stack a routine that stores nothing there still shows: AVR's CALL pushes the return address.
OWN_RETURN = {"rv32": 0, "armv7m": 0, "avr": 2}
SEED = 34           # the secret draws of the measured calls (any fixed value: the depth does not depend on it)


class StackWipeError(Exception):
    pass


# ------------------------------------------------------------------------------------------ the plan

def exported_ops(impl: Implementation, prim_id: str) -> list[str]:
    """The operations ``prim_id`` exports (a suite's instance may list a subset)."""
    ops = impl.primitive.instances[prim_id].get("ops")
    return [op for op in impl.functions if ops is None or op in ops]


def secret_ops(impl: Implementation, prim_id: str) -> list[str]:
    """The exported operations with a secret parameter: the ones that get a wiping wrapper."""
    return [op for op in exported_ops(impl, prim_id) if impl.secret_params(op)]


def stack_arg_bytes(proto: Prototype, target: str) -> int:
    """Bytes of arguments the target's C ABI passes on the stack for ``proto``."""
    native = NATIVE[target]
    args = [Int(0, native if p.is_pointer else p.scalar_size(native)) for p in proto.params]
    return len(MARSHAL[target](args).stack)


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def has_c(impl: Implementation) -> bool:
    return any(s.suffix == ".c" for s in impl.sources)


def margin(impl: Implementation, measured: int) -> int:
    """Extra bytes wiped beyond the measured depth: none for assembly-only implementations (their frames
    are fixed by the code), a quarter plus 32 bytes where C is compiled (other flags, -flto, another
    compiler version)."""
    return measured // 4 + 32 if has_c(impl) else 0


def wrapper_args(proto: Prototype, target: str) -> int:
    """The stack-argument bytes the wrapper copies (rounded to keep the stack aligned)."""
    n = stack_arg_bytes(proto, target)
    return {"rv32": _round_up(n, 16), "armv7m": _round_up(n, 8), "avr": n}[target]


def wipe_bytes(impl: Implementation, proto: Prototype, target: str, measured: int) -> int:
    """Bytes the wrapper zeroes below its caller's stack pointer: its own frame, the copied arguments,
    the measured depth of the routine (on AVR that includes the routine's return address) and the margin."""
    args = wrapper_args(proto, target)
    frame = {"rv32": 16, "armv7m": 8, "avr": 0}[target] + args
    total = frame + measured + margin(impl, measured)
    if target == "armv7m":      # the loop clears 32 bytes a turn below the 8-byte frame
        return 8 + _round_up(total - 8, 32)
    return _round_up(total, 4 if target == "avr" else 16)


def load_table(path: Path = TABLE_PATH) -> dict[str, int]:
    return json.loads(path.read_text())["depth"] if path.is_file() else {}


def table_key(target: str, prim_id: str, impl: Implementation, op: str) -> str:
    return f"{target}/{prim_id}/{impl.name}/{op}"


def plan(impl: Implementation, prim_ids: list[str], target: str,
         table: Mapping[str, int] | None = None) -> list[tuple[str, str, int, int]]:
    """(public symbol, routine symbol, wipe bytes, argument bytes) per exported function; wipe bytes 0
    means a tail jump (no secret parameter, or a routine that stores nothing on the stack). Raises
    StackWipeError naming every measurement the table lacks."""
    if target not in TARGETS:
        raise StackWipeError(f"MCU_STACK_WIPE has wrappers for {', '.join(TARGETS)}, not {target}")
    table = load_table() if table is None else table
    out, missing = [], []
    for prim_id in prim_ids:
        secret = set(secret_ops(impl, prim_id))
        for op in exported_ops(impl, prim_id):
            proto = impl.functions[op]
            symbol = impl.symbol(prim_id, op)
            if op not in secret:
                out.append((symbol, symbol + BODY_SUFFIX, 0, 0))
                continue
            key = table_key(target, prim_id, impl, op)
            if key not in table:
                missing.append(key)
                continue
            # An assembly routine that writes nothing on the stack leaves nothing to wipe (C might, built
            # with other flags).
            if table[key] <= OWN_RETURN[target] and not has_c(impl):
                out.append((symbol, symbol + BODY_SUFFIX, 0, 0))
                continue
            args = wrapper_args(proto, target)
            if target == "avr" and args + 3 > 63:
                raise StackWipeError(f"{symbol}: {args} bytes of stack arguments (the AVR wrapper copies "
                                     "at most 60)")
            out.append((symbol, symbol + BODY_SUFFIX, wipe_bytes(impl, proto, target, table[key]), args))
    if missing:
        raise StackWipeError(f"no measured stack depth for {', '.join(missing)} in "
                             f"{TABLE_PATH.relative_to(ROOT)}: run `python -m mcucrypt.stackwipe --update "
                             f"--prim {impl.primitive.name} --target {target}`")
    return out


def wrapper_source(impl: Implementation, prim_ids: list[str], target: str, *, preamble: str = "",
                   table: Mapping[str, int] | None = None) -> str:
    """The assembly file of public entry points for ``impl``'s ``prim_ids`` under MCU_STACK_WIPE (empty
    when the option is 0). ``preamble``: lines first (the export's configuration include)."""
    lines = ["// SPDX-License-Identifier: MIT",
             f"/* Generated by mcucrypt/stackwipe.py: the public functions of {impl.primitive.name} {impl.name}"
             f" ({', '.join(prim_ids)}) on {target}",
             " * under MCU_STACK_WIPE (docs/constant-time.md, \"Stack hygiene\"): a function that takes a secret",
             " * calls its routine (mcu_..._unwiped) and zeroes the given bytes below its caller's stack pointer;",
             " * the others jump to theirs. The byte counts come from crypto/common/stack_depth.json. */"]
    lines += [preamble] if preamble else []
    lines += ["#if defined(MCU_STACK_WIPE) && MCU_STACK_WIPE", '#include "mcucrypt/stack_wipe.h"', ""]
    for symbol, body, depth, args in plan(impl, prim_ids, target, table):
        if depth:
            lines.append(f"    MCU_WIPE_WRAP {symbol}, {body}, {depth}, {args}")
        else:
            lines.append(f"    MCU_WIPE_JUMP {symbol}, {body}")
    lines += ["", "#endif", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ building, calls

def build_wiped(impl: Implementation, prim_id: str, target: str,
                table: Mapping[str, int] | None = None, mcu: str | None = None) -> Image:
    """The image of ``impl`` for ``prim_id`` with MCU_STACK_WIPE=1 (the wrappers generated beside the
    build cache, named by their content); ``mcu``: the AVR part, as Firmware chooses it (ML-KEM's
    `core: {avr: atmega1284p}`)."""
    text = wrapper_source(impl, [prim_id], target, table=table)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    out_dir = BUILD_DIR / "stack-wipe"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"wipe_{prim_id}_{impl_define(impl.name)}_{target}_{digest}.S"
    if not path.is_file():
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
    return build(target, [*impl.sources, path], name=f"{prim_id}-{impl.name}-stackwipe", impl=impl.name,
                 isa=impl.isa if target == "rv32" else None, defines=[*impl.defines, DEFINE],
                 keep=impl.symbols(prim_id), mcu=mcu)


def wiped_firmware(impl: Implementation, prim_id: str, target: str,
                   table: Mapping[str, int] | None = None):  # noqa: ANN201 - a Firmware
    """A Firmware running the MCU_STACK_WIPE image (same calls, same API as the plain one)."""
    from .firmware import Firmware
    fw = Firmware(impl, prim_id, target)
    fw.image = build_wiped(impl, prim_id, target, table,
                           mcu=fw.core.mcu if fw.core.mcu != get_core(target).mcu else None)
    if target == "rv32":
        fw.board.load(fw.image.path, isa=impl.isa)  # type: ignore[call-arg]
    else:
        fw.board.load(fw.image.path)
    return fw


def _capture_firmware(fw):  # noqa: ANN001, ANN202 - Firmware in, Firmware out
    """Where the driver's benchmark and differential test run to capture arguments: the id's reference
    implementation on the host when it has one (native speed; the arguments a kind driver makes do not
    depend on the implementation), else ``fw`` itself."""
    from .firmware import Firmware
    ref = fw.impl.primitive.implementations.get("ref")
    if ref is not None and "host" in ref.targets and set(secret_ops(fw.impl, fw.prim_id)) <= set(ref.functions):
        return Firmware(ref, fw.prim_id, "host")
    return fw


def secret_calls(fw) -> list[tuple[str, dict[str, Arg]]]:  # noqa: ANN001 - a Firmware
    """The calls that exercise every secret operation of ``fw``'s id: the kind driver's constant-time
    cases (secret ops only); for an operation they leave out (X25519's x25519_base, say), the first call
    of it the driver's benchmark, or else its differential test, makes (captured on the host, see
    _capture_firmware); for one neither makes (Ascon-XOF128's fixed-length `hash`), the arguments of the
    same names from those calls."""
    from .ct import SecretRandom
    from .kinds.base import driver_for
    driver = driver_for(fw.impl.primitive.kind)
    wanted = secret_ops(fw.impl, fw.prim_id)
    calls = [(c.op, dict(c.args)) for c in driver.ct_cases(fw, SecretRandom(SEED, 0), public_seed=SEED)
             if c.op in wanted]
    missing = [op for op in wanted if op not in {op for op, _ in calls}]
    if missing:
        recorded: list[tuple[str, dict[str, Arg]]] = []
        capture = _capture_firmware(fw)
        plain_call = capture.call

        def recording_call(op: str, named: Mapping[str, Arg], **kw: object) -> CallResult:
            recorded.append((op, dict(named)))
            return plain_call(op, named, **kw)

        capture.call = recording_call
        try:
            driver.bench(capture)
            if not set(missing) <= {op for op, _ in recorded}:     # X25519's ladder outside AVR
                driver.differential(capture, random.Random(f"stack/{fw.prim_id}"), 1)
        finally:
            del capture.call
        for op in missing:
            calls += [next((o, a) for o, a in recorded if o == op)] if any(o == op for o, _ in recorded) else []
        for op in [op for op in missing if op not in {o for o, _ in calls}]:
            named: dict[str, Arg] = {}
            for _, args in calls + recorded:
                named = {**args, **named}
            params = [p.name for p in fw.impl.functions[op].params]
            if all(p in named for p in params):
                calls.append((op, {p: named[p] for p in params}))
    return calls


def residue(result: CallResult) -> list[int]:
    """Offsets (from the deepest byte the call used) of the bytes it left on its stack: neither zero nor
    the untouched paint."""
    return [i for i, b in enumerate(result.stack_left) if b not in (0, STACK_PAINT)]


def fragments(left: bytes, secrets: Mapping[str, bytes], window: int = 4) -> dict[str, int]:
    """How many ``window``-byte pieces of each secret input appear anywhere in ``left``."""
    found = {}
    for name, data in secrets.items():
        n = sum(1 for i in range(len(data) - window + 1) if data[i:i + window] in left)
        if n:
            found[name] = n
    return found


def secret_inputs(impl: Implementation, op: str, args: Mapping[str, Arg]) -> dict[str, bytes]:
    return {n: bytes(a.data) for n in impl.secret_params(op) if isinstance(a := args.get(n), Buf) and a.data}


def misaligned(impl: Implementation, op: str, args: Mapping[str, Arg]) -> dict[str, Arg]:
    """The same call with every byte buffer (a char or uint8_t pointer: words and lengths keep their C
    alignment) one byte past a word boundary: implementations that dispatch on alignment (a one-call
    assembly AEAD for aligned buffers, the C mode otherwise: Ascon's and TinyJAMBU's rv32-fast) take their
    other path, whose frames the wipe must cover too."""
    byte_ptr = {p.name for p in impl.functions[op].params
                if p.ctype.replace("const ", "").strip() in ("unsigned char *", "uint8_t *", "char *")}
    return {n: dataclasses.replace(a, misalign=1) if isinstance(a, Buf) and n in byte_ptr else a
            for n, a in args.items()}


def measure(impl: Implementation, prim_id: str, target: str) -> dict[str, int]:
    """The stack high-water of every secret operation of ``prim_id`` over its secret calls, on the plain
    image (the routine alone), with the buffers as the calls place them and with the byte buffers
    misaligned (a routine that faults on those, which the boards report as BoardError, adds nothing)."""
    from .boards.base import BoardError
    from .firmware import Firmware
    fw = Firmware(impl, prim_id, target)
    depth: dict[str, int] = {}
    for op, args in secret_calls(fw):
        depth[op] = max(depth.get(op, 0), fw.call(op, args).stack_bytes)
        try:
            depth[op] = max(depth[op], fw.call(op, misaligned(impl, op, args)).stack_bytes)
        except BoardError:
            pass
    return depth


def constant_time_jobs(cat: Catalog, targets: Iterable[str] = TARGETS,
                       prims: Iterable[str] = ()) -> list[tuple[str, Implementation, str]]:
    """(id, implementation, target) for every constant-time implementation on the boards."""
    prims = set(prims)
    out = []
    for prim in cat.primitives.values():
        for impl in prim.implementations.values():
            if not impl.constant_time:
                continue
            for prim_id in prim.instances:
                if prims and prim_id not in prims and prim.name not in prims:
                    continue
                if not impl.symbols(prim_id):
                    continue
                out += [(prim_id, impl, t) for t in targets if t in impl.targets]
    return out


def write_table(depth: Mapping[str, int], path: Path = TABLE_PATH) -> None:
    doc = {"_comment": "Stack high-water in bytes of each secret operation's routine on the board "
                       "(CallResult.stack_bytes, over the kind driver's secret calls): what the MCU_STACK_WIPE "
                       "wrappers wipe, plus their frame and margin (mcucrypt/stackwipe.py). Generated by "
                       "`python -m mcucrypt.stackwipe --update`; tests/test_stack_residue.py checks it covers "
                       "every call.",
           "depth": dict(sorted(depth.items()))}
    path.write_text(json.dumps(doc, indent=1) + "\n")


# --------------------------------------------------------------------------------------------- export

WIPE_ON = ["", "/* Stack hygiene (docs/constant-time.md, \"Stack hygiene\"): each public function that takes a secret",
           " * zeroes the stack its call used before it returns (mcu_stack_wipe.S, generated). Build the library",
           " * with -DMCU_STACK_WIPE=0 to leave the wipe out. */",
           "#ifndef MCU_STACK_WIPE", "#define MCU_STACK_WIPE 1", "#endif"]


def export_unit(impl: Implementation, prim_ids: list[str], target: str, unit: str,
                src_dir: Path) -> tuple[str | None, list[str], str | None]:
    """For `mcucrypt export`: writes src/<unit>/mcu_stack_wipe.S and returns (its path relative to the
    export folder, the lines for the unit's configuration header, a warning or None). An implementation
    without wrappers (variable time, or depths not measured) gets MCU_STACK_WIPE forced to 0, so its
    routines keep their public names whatever the user defines."""
    why = None
    if not impl.constant_time:
        why = "variable time"
    else:
        try:
            text = wrapper_source(impl, prim_ids, target, preamble=f'#include "mcucrypt/config_{unit}.h"')
        except StackWipeError as e:
            why = str(e)
    if why is not None:
        off = ["", f"/* No MCU_STACK_WIPE wrappers for this implementation ({why.split(':')[0]}): its routines",
               " * keep their public names and leave their stack as they used it. */",
               "#undef MCU_STACK_WIPE", "#define MCU_STACK_WIPE 0"]
        warning = None if not impl.constant_time else \
            f"{impl.primitive.name} {impl.name}: no stack wipe ({why})"
        return None, off, warning
    path = src_dir / unit / "mcu_stack_wipe.S"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path.relative_to(src_dir.parent).as_posix(), WIPE_ON, None


# ------------------------------------------------------------------------------------------------ cli

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mcucrypt.stackwipe", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="measure and rewrite crypto/common/stack_depth.json")
    ap.add_argument("--cost", action="store_true", help="cycles of each secret call, plain and wiped")
    ap.add_argument("--target", action="append", choices=TARGETS)
    ap.add_argument("--prim", action="append", default=[], help="a primitive id or family (repeatable)")
    opts = ap.parse_args(argv)
    cat = load_catalog()
    jobs = constant_time_jobs(cat, opts.target or TARGETS, opts.prim)
    if opts.update:
        table, failed = load_table(), []
        for prim_id, impl, target in jobs:
            try:
                depth = measure(impl, prim_id, target)
            except Exception as e:      # a job that does not build or run: the others are still measured
                failed.append(f"{prim_id} {impl.name} {target}: {str(e).splitlines()[0]}")
                print(f"NOT measured {failed[-1]}", file=sys.stderr, flush=True)
                continue
            for op, d in depth.items():
                table[table_key(target, prim_id, impl, op)] = d
            print(f"measured {prim_id} {impl.name} {target}", file=sys.stderr, flush=True)
        write_table(table)
        return 1 if failed else 0
    if opts.cost:
        from .firmware import Firmware
        print("| id | impl | target | op | wiped bytes | cycles | with MCU_STACK_WIPE | wipe cost |")
        print("|---|---|---|---|---:|---:|---:|---:|")
        for prim_id, impl, target in jobs:
            plain, wiped = Firmware(impl, prim_id, target), wiped_firmware(impl, prim_id, target)
            depth = {s: d for s, _, d, _ in plan(impl, [prim_id], target)}
            seen = set()
            for op, args in secret_calls(plain):
                if op in seen:
                    continue
                seen.add(op)
                a, b = plain.call(op, args).cycles, wiped.call(op, args).cycles
                print(f"| {prim_id} | {impl.name} | {target} | {op} | {depth[impl.symbol(prim_id, op)]} | "
                      f"{a:,} | {b:,} | {b - a:,} |", flush=True)
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
