# SPDX-License-Identifier: MIT
"""`mcucrypt firmware`: a flashable benchmark image for a real board.

The image replays calls recorded on the virtual board. For every selected (primitive id, implementation):
1. the kind driver checks the id's official vectors (all of them, or the first ones that fit the board's
   data budget) through a recording ``Firmware``: every call's function, arguments (buffer contents,
   scalars) and results (output buffers, return value) are recorded, and the check must pass on the
   virtual board, so every expected output the image carries is one the official vectors verified
   (directly, like a ciphertext, or as the intermediate the verified result came from, like round keys);
2. the kind driver's bench operations run the same way (``driver.bench``), so the image times exactly
   the calls `mcucrypt bench` times, on the same inputs.
The recorded calls become C tables (``image.c``): a blob of buffer contents, one record per argument and
per call, and per API signature two trampolines (untimed call; timed call bracketed by cycle-counter
reads) and an empty function for the harness overhead. ``boards/real/common/runner.c`` executes them.

Each implementation is compiled with exactly its `mcucrypt bench` flags, partially linked with its own
libgcc (an rv32i implementation keeps its rv32i helper routines) and every symbol but its API made local,
so implementations with colliding internal names link into one image.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..boards.base import Arg, Buf, CallResult, Int
from ..build import BuildError, INCLUDE_DIR, impl_define
from ..catalog import Catalog, Implementation, Param, load_catalog
from ..firmware import Firmware
from ..kinds.base import Mismatch, UsageError, driver_for
from ..targets import ROOT, WARNINGS, get_target
from .boards import REAL_DIR, RealBoard

DEFAULT_RUNS = 11          # timed runs per operation; the record is their median
BUFFER_ALIGN = 8
MAX_ARGS = 12             # MCU_MAX_ARGS in boards/real/common/bench.h


class ImageError(UsageError):
    """Bad selection or an image that cannot be built (the CLI prints it and exits 2)."""


@dataclass
class Recorded:
    function: str            # symbol
    proto: object            # catalog Prototype
    args: list[Arg]
    result: CallResult


class RecordingFirmware(Firmware):
    """A Firmware that remembers every call it makes (and still makes it on the virtual board)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.calls: list[Recorded] = []

    def call(self, op: str, named: Mapping[str, Arg], *, trace: bool = False) -> CallResult:
        result = super().call(op, named, trace=trace)
        proto = self.impl.functions[op]
        self.calls.append(Recorded(proto.symbol(self.prim_id, self.impl.name), proto,
                                   self.arguments(op, named), result))
        return result


@dataclass
class Selection:
    prim_id: str
    impl: Implementation


@dataclass
class Plan:
    """Everything recorded for one image."""
    board: RealBoard
    checks: list[dict] = field(default_factory=list)    # prim, impl, calls, vectors, total
    ops: list[dict] = field(default_factory=list)       # prim, impl, op, bytes, call, check, json
    calls: list[Recorded] = field(default_factory=list)
    runs: int = DEFAULT_RUNS
    kind: str = "bench"                                 # "calib": kernels from ``sources`` (calib.py)
    sources: list[Path] = field(default_factory=list)   # calib: the kernels' assembly files


def isa_extensions(isa: str | None) -> set[str]:
    """'rv32imac_zbb' -> {'i','m','a','c','zbb'}."""
    isa = isa or "rv32imac"
    base, *multi = isa.split("_")
    return set(base.removeprefix("rv32")) | set(multi)


def select(catalog: Catalog, board: RealBoard, prims: Sequence[str], impls: Sequence[str]) -> list[Selection]:
    """(id, implementation) pairs for the board: every implementation of the given ids (or all ids) that
    runs on the board's target and core; an implementation named explicitly that cannot run is an error."""
    for p in prims:
        try:
            catalog.by_id(p)
        except Exception:
            raise ImageError(f"unknown primitive id {p!r} (see `mcucrypt list`)") from None
    out: list[Selection] = []
    named_ok: set[str] = set()
    for prim_id in prims or catalog.all_ids():
        for impl in catalog.implementations(prim_id):
            if impls and impl.name not in impls:
                continue
            if board.target not in impl.targets:
                continue
            if board.max_isa is not None and not isa_extensions(impl.isa) <= board.max_isa:
                if impls:
                    raise ImageError(f"{impl.name} of {prim_id} needs {impl.isa}; the {board.name}'s core "
                                     f"has only rv32{''.join(sorted(board.max_isa, key='imac'.index))}")
                continue
            named_ok.add(impl.name)
            out.append(Selection(prim_id, impl))
    for i in impls:
        if i not in named_ok:
            raise ImageError(f"implementation {i!r} does not run on {board.name} "
                             f"(target {board.target}) for the selected ids")
    if not out:
        raise ImageError(f"nothing selected runs on {board.name}")
    return out


def data_bytes(calls: Sequence[Recorded]) -> int:
    """Flash the recorded calls take in the image: buffer contents and expected outputs in the blob, plus
    one call record (8 bytes) and one argument record (16 bytes) per argument."""
    total = 0
    for c in calls:
        total += 8 + 16 * len(c.args)
        for a in c.args:
            if isinstance(a, Buf):
                total += len(a.data) + (a.length if a.out else 0)
    return total


def plan(board: RealBoard, selections: Sequence[Selection], *, runs: int = DEFAULT_RUNS,
         max_vectors: int | None = None, data_budget: int | None = None) -> Plan:
    """Record the bench operations, then the vector checks, of every selection on the virtual board.

    The bench operations are always embedded; the official vectors fill what is left of the board's
    data budget, shared equally between the selections, in file order, at least one per selection."""
    budget = board.data_budget if data_budget is None else data_budget
    pl = Plan(board, runs=runs)
    recorded = []
    for sel in selections:
        impl = sel.impl
        driver = driver_for(impl.primitive.kind)
        # recorded on the board's own part (an AVR board: its -mmcu, its return-address size)
        fw = RecordingFirmware(impl, sel.prim_id, board.target, core=board.mcu)
        ops = driver.bench(fw)
        recorded.append((sel, driver, fw, ops, list(fw.calls)))
        fw.calls.clear()
    bench_bytes = sum(data_bytes(r[4]) for r in recorded)
    per_check = max(0, budget - bench_bytes) // max(1, len(selections))
    for sel, driver, fw, ops, bench_calls in recorded:
        impl = sel.impl
        vectors = driver.vectors(impl.primitive, sel.prim_id)
        taken = 0
        for v in vectors:
            if max_vectors is not None and taken >= max_vectors:
                break
            mark = len(fw.calls)
            try:
                driver.check_vector(fw, v)
            except Mismatch as e:
                raise ImageError(f"{impl.name} of {sel.prim_id} fails an official vector on the virtual "
                                 f"board ({e}); no image carries a failing implementation") from None
            if taken and data_bytes(fw.calls) > per_check:
                del fw.calls[mark:]
                break
            taken += 1
        check_index = len(pl.checks)
        pl.checks.append({"prim": sel.prim_id, "impl": impl.name, "first": len(pl.calls),
                          "ncalls": len(fw.calls), "vectors": taken, "total": len(vectors)})
        pl.calls += fw.calls
        by_result = {id(c.result): n for n, c in enumerate(bench_calls)}
        code_bytes = fw.code_bytes
        for op in ops:
            n = by_result.get(id(op.result))
            if n is None:
                raise ImageError(f"{impl.name} of {sel.prim_id}: bench op {op.op} made no call")
            fixed = {"prim": sel.prim_id, "impl": impl.name, "target": board.target, "op": op.op,
                     "bytes": op.bytes, "instructions": None, "code_bytes": code_bytes,
                     "constant_time": "n/a", "constant_time_claimed": impl.constant_time,
                     "isa": (impl.isa or "rv32imac") if board.target == "rv32" else None, "goal": None}
            pl.ops.append({"call": len(pl.calls) + n, "check": check_index, "bytes": op.bytes,
                           "json": json.dumps(fixed, separators=(",", ":"))[:-1] + ","})
        pl.calls += bench_calls
    return pl


# ------------------------------------------------------------------------------------------ C output

def _c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _param_decl(p: Param, name: str) -> str:
    t = p.ctype.strip()
    return f"{t} {name}" if not t.endswith("*") else f"{t}{name}"


def _signature(proto) -> tuple:
    return (proto.ret, tuple(re.sub(r"\s+", " ", p.ctype.strip()) for p in proto.params))


def generate_c(pl: Plan) -> str:
    """image.c: prototypes, trampolines, tables."""
    lines = ["// SPDX-License-Identifier: MIT",
             "/* Generated by `mcucrypt firmware` (mcucrypt/silicon/image.py): the calls recorded on the "
             "virtual board. */",
             "#include \"bench.h\"", ""]
    functions: dict[str, tuple] = {}
    for c in pl.calls:
        functions.setdefault(c.function, c.proto)
    sigs: dict[tuple, int] = {}
    for sym, proto in functions.items():
        sigs.setdefault(_signature(proto), len(sigs))
        params = ", ".join(_param_decl(p, p.name) for p in proto.params) or "void"
        lines.append(f"{proto.ret} {sym}({params});")
    lines.append("")
    for (ret, ctypes_), k in sigs.items():
        params = [Param(t, f"a{i}") for i, t in enumerate(ctypes_)]
        lines.append(f"typedef {ret} (*sig{k}_t)({', '.join(ctypes_) or 'void'});")
        loads = []
        for i, p in enumerate(params):
            if p.is_pointer:
                loads.append(f"{p.ctype.strip()} a{i} = ({p.ctype.strip()})(uintptr_t)v[{2 * i}];")
            else:
                loads.append(f"{p.ctype.strip()} a{i} = ({p.ctype.strip()})((uint64_t)v[{2 * i + 1}] << 32 | v[{2 * i}]);")
        names = ", ".join(p.name for p in params)
        cast = "(uint32_t)(unsigned int)" if ret == "int" else "(uint32_t)"
        lines.append(f"static uint32_t call{k}(const void *fn, const uint32_t *v)")
        lines.append("{")
        lines += ["\t" + s for s in loads]
        if ret == "void":
            lines += [f"\t((sig{k}_t)fn)({names});", "\treturn 0;"]
        else:
            lines.append(f"\treturn {cast}((sig{k}_t)fn)({names});")
        lines.append("}")
        lines.append(f"static __attribute__((noinline)) uint32_t timed{k}(const void *fn, const uint32_t *v)")
        lines.append("{")
        lines += ["\t" + s for s in loads]
        # the identical call right before the timed one: what bench's warm figure follows (branch
        # predictor and caches trained by the same call, no harness code in between)
        lines += [f"\tsig{k}_t f = (sig{k}_t)fn;", f"\tf({names});", "\tuint32_t t0 = mcu_cycles();",
                  f"\tf({names});",
                  "\tuint32_t t1 = mcu_cycles();", "\treturn t1 - t0;", "}"]
    lines.append("")
    fn_index = {sym: n for n, sym in enumerate(functions)}
    lines.append("MCU_FLASH const mcu_function mcu_functions[] = {")
    for sym, proto in functions.items():
        k = sigs[_signature(proto)]
        lines.append(f"\t{{(const void *){sym}, (const void *)mcu_empty, call{k}, timed{k}}},")
    lines.append("};")

    blob = bytearray()
    arg_rows, call_rows = [], []
    arena = 0
    for c in pl.calls:
        if len(c.args) > MAX_ARGS:
            raise ImageError(f"{c.function} takes {len(c.args)} arguments; the image's runner passes at most "
                             f"{MAX_ARGS} (MCU_MAX_ARGS in boards/real/common/bench.h)")
        first = len(arg_rows)
        place = 0
        outs = [bytes(o) for o in c.result.outputs]
        n_out = 0
        for a in c.args:
            if isinstance(a, Buf):
                place = (place + BUFFER_ALIGN - 1) // BUFFER_ALIGN * BUFFER_ALIGN + a.misalign
                init = a.data.ljust(a.length, b"\0")[: a.length]
                zero = not any(init)
                lo = 0
                if not zero:
                    lo = len(blob)
                    blob += init
                expect = 0
                kind = "ARG_IN"
                if a.out:
                    kind = "ARG_OUT"
                    expect = len(blob)
                    blob += outs[n_out]     # outputs come back in argument order
                    n_out += 1
                arg_rows.append(f"{{{lo}u, 0u, {expect}u, {a.length}u, {place}u, {kind}, {int(zero)}}}")
                place += a.length
            else:
                v = a.value if isinstance(a, Int) else int(a)
                v &= (1 << 64) - 1
                arg_rows.append(f"{{{v & 0xFFFFFFFF}u, {v >> 32}u, 0u, 0u, 0u, ARG_SCALAR, 0}}")
        arena = max(arena, place)
        check_ret = c.proto.ret != "void"
        call_rows.append(f"{{{fn_index[c.function]}u, {first}u, {len(c.args)}u, {int(check_ret)}, "
                         f"{c.result.return_value & 0xFFFFFFFF}u}}")
    # AVR: no object may exceed 32 KiB (16-bit ptrdiff_t), and the runner reads program memory with LPM,
    # which reaches the first 64 KiB only
    limit = 32767 if pl.board.target == "avr" else 0xFFFF * 16
    if len(arg_rows) > 0xFFFF or len(pl.calls) > 0xFFFF or len(blob) > limit or 16 * len(arg_rows) > limit:
        raise ImageError(f"the selection's recorded calls ({len(pl.calls)} calls, {len(blob)} bytes of data) "
                         f"are too many for one {pl.board.name} image: choose fewer with --prim/--impl, "
                         f"or fewer vectors with --max-vectors")
    lines.append("MCU_FLASH const mcu_arg mcu_args[] = {")
    lines += [f"\t{r}," for r in arg_rows]
    lines.append("};")
    lines.append("MCU_FLASH const mcu_call mcu_calls[] = {")
    lines += [f"\t{r}," for r in call_rows]
    lines.append("};")
    for n, ch in enumerate(pl.checks):
        lines.append(f"static MCU_FLASH const char check_json{n}[] = "
                     f"{_c_string(json.dumps({'prim': ch['prim'], 'impl': ch['impl']}, separators=(',', ':'))[1:-1])};")
    lines.append("MCU_FLASH const mcu_check mcu_checks[] = {")
    for n, ch in enumerate(pl.checks):
        lines.append(f"\t{{{ch['first']}u, {ch['ncalls']}u, {ch['vectors']}u, {ch['total']}u, check_json{n}}},")
    lines.append("};")
    for n, op in enumerate(pl.ops):
        lines.append(f"static MCU_FLASH const char op_json{n}[] = {_c_string(op['json'])};")
    lines.append("MCU_FLASH const mcu_op mcu_ops[] = {")
    for n, op in enumerate(pl.ops):
        lines.append(f"\t{{{op['call']}u, {op['check']}u, {op['bytes']}u, op_json{n}}},")
    if not pl.ops:
        lines.append("\t{0u, 0u, 0u, 0},")
    lines.append("};")
    lines.append(f"MCU_FLASH const uint16_t mcu_nchecks = {len(pl.checks)}u, mcu_nops = {len(pl.ops)}u, "
                 f"mcu_runs = {pl.runs}u;")
    selection = sorted({f"{c['prim']}/{c['impl']}" for c in pl.checks})
    kind = ',"kind":"calib"' if pl.kind == "calib" else ""
    image_json = _c_string(kind + ',"selection":' + json.dumps(selection, separators=(",", ":")))
    lines.append(f"MCU_FLASH const char mcu_image_json[] = {image_json};")
    lines.append(f"MCU_FLASH const uint8_t mcu_blob[{max(1, len(blob))}] = {{")
    for i in range(0, len(blob), 24):
        lines.append("\t" + ", ".join(f"0x{b:02x}" for b in blob[i:i + 24]) + ",")
    lines.append("};")
    lines.append(f"uint8_t mcu_arena[{max(8, arena)}] __attribute__((aligned({BUFFER_ALIGN})));")
    lines.append(f"MCU_FLASH const uint16_t mcu_arena_size = {max(8, arena)}u;")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ building

@dataclass
class Outputs:
    elf: Path
    bin: Path
    hex: Path
    plan: Plan
    fit: "Fit | None" = None    # AVR: what the image needs of its part (check_fit)


def _run(cmd: Sequence[str], what: str) -> None:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed:\n{' '.join(cmd)}\n{proc.stderr.strip()}")


def _board_cflags(board: RealBoard, base: Sequence[str]) -> list[str]:
    flags = [f for f in base if not (board.cc_flags and f.startswith("-mmcu="))]
    return [*flags, *board.cc_flags]


def _tool(cc: str, name: str) -> str:
    return cc[: -len("gcc")] + name


CLOCKS = {   # boards whose clock `--clock` chooses: the clocks their board.c supports
    "stm32f103": (8_000_000, 24_000_000, 32_000_000, 40_000_000, 48_000_000, 56_000_000, 64_000_000, 72_000_000),
}


def clock_flags(board: RealBoard, clock: int | None) -> list[str]:
    """-D flags for a chosen core clock: MCU_CLOCK_HZ (stm32f103: PLL set-up and wait states), F_CPU (AVR:
    the crystal the board has, for the UART divisor)."""
    if clock is None:
        return []
    if board.target == "avr":
        if not 1_000_000 <= clock <= 20_000_000:
            raise ImageError(f"--clock {clock}: an AVR board runs at 1-20 MHz (its crystal)")
        return [f"-DF_CPU={clock}UL"]
    if board.name in CLOCKS:
        if clock not in CLOCKS[board.name]:
            raise ImageError(f"--clock {clock}: {board.name} supports "
                             f"{', '.join(str(c // 1_000_000) + ' MHz' for c in CLOCKS[board.name])}")
        return [f"-DMCU_CLOCK_HZ={clock}u"]
    raise ImageError(f"{board.name} runs at a fixed clock (docs/silicon.md); --clock does not apply")


def build_image(board: RealBoard, pl: Plan, out_dir: Path, *, clock: int | None = None,
                qemu: bool = False) -> Outputs:
    """Compile and link the image; ``qemu`` links for the QEMU machine's memory when it is smaller."""
    t = get_target(board.target)
    out_dir.mkdir(parents=True, exist_ok=True)
    work = out_dir / "obj"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    base = _board_cflags(board, t.cflags)
    common = [*base, *WARNINGS, f"-I{INCLUDE_DIR}"]
    arch = t.march_flags("rv32imac") if board.target == "rv32" else []
    objcopy = _tool(t.cc, "objcopy")
    objects: list[str] = []
    # One relocatable object per implementation: its sources, its flags, its own libgcc.
    by_key: dict[str, tuple[Implementation, set[str]]] = {}
    catalog = load_catalog()
    for ch in pl.checks if pl.kind != "calib" else ():
        impl = catalog.implementation(ch["prim"], ch["impl"])
        entry = by_key.setdefault(impl.key, (impl, set()))
        entry[1].update(impl.symbols(ch["prim"]))
    for n, (key, (impl, symbols)) in enumerate(by_key.items()):
        flags = [*common, *(t.march_flags(impl.isa) if board.target == "rv32" else []),
                 f"-DMCU_IMPL={impl_define(impl.name)}", *[f"-D{d}" for d in impl.defines]]
        objs = []
        for src in impl.sources:
            obj = work / f"impl{n}-{Path(src).stem}.o"
            _run([t.cc, *flags, "-c", str(src), "-o", str(obj)], f"compiling {Path(src).name} for {board.name}")
            objs.append(str(obj))
        link_flags = [f.split("_")[0] if f.startswith("-march=") else f for f in flags]
        part = work / f"impl{n}.o"
        _run([t.cc, *link_flags, "-nostdlib", "-nostartfiles", "-r", *objs, "-lgcc", "-o", str(part)],
             f"partial link of {key}")
        keep = [f"--keep-global-symbol={s}" for s in sorted(symbols)]
        _run([objcopy, *keep, str(part)], f"localizing {key}")
        objects.append(str(part))
    for n, src in enumerate(pl.sources):      # calib: the kernels, with the board's own flags
        obj = work / f"calib{n}-{Path(src).stem}.o"
        _run([t.cc, *common, *arch, "-c", str(src), "-o", str(obj)], f"compiling {Path(src).name} for {board.name}")
        objects.append(str(obj))
    image_c = out_dir / "image.c"
    image_c.write_text(generate_c(pl))
    board_dir = REAL_DIR / board.name
    support_flags = [*common, *arch, f"-I{board_dir}", f"-I{REAL_DIR / 'common'}", f"-I{ROOT / 'include'}"]
    support_flags += clock_flags(board, clock)
    # the runner and generated tables: no -Wcast-align complaints about function pointers in tables
    # mcu_declassify: the AEAD implementations publish their verdict through it (the taint checker's
    # declassification point, an identity); every virtual-board image links it too.
    # AVR: -fstack-usage gives the runner's frames (obj/<stem>.su), which check_fit adds to the deepest
    # recorded call
    su = ["-fstack-usage"] if board.target == "avr" else []
    for src in [str(image_c), *(str(REAL_DIR / s) for s in board.sources),
                str(ROOT / "crypto/common/mcu_declassify.c"),
                *([str(ROOT / "boards/common/mini_libc.c")] if board.target != "avr" else [])]:
        obj = work / (Path(src).stem + ".o")
        # (not the board file: gcc cannot size its naked interrupt handler, which _isr_bytes counts)
        runner_side = Path(src).name in ("image.c", "runner.c")
        _run([t.cc, *support_flags, *(su if runner_side else []), "-c", src, "-o", str(obj)],
             f"compiling {Path(src).name} for {board.name}")
        objects.append(str(obj))
    elf = out_dir / f"mcucrypt-{board.name}.elf"
    ldflags = ["-Wl,--gc-sections", f"-Wl,-Map={elf.with_suffix('.map')}"]
    if board.target != "avr":
        ldflags += ["-nostdlib", "-nostartfiles", "-T", str(REAL_DIR / board.link_script),
                    f"-L{REAL_DIR / 'common'}", "-lgcc"]
        if qemu and board.qemu_ram_kb:
            ldflags.append(f"-Wl,--defsym=MCU_RAM_KB={board.qemu_ram_kb}")
    try:
        _run([t.cc, *base, *arch, *objects, *ldflags, "-o", str(elf)], f"linking the {board.name} image")
    except BuildError as e:
        full = [ln for ln in str(e).splitlines() if "overflow" in ln or "left for the stack" in ln
                or "will not fit" in ln]
        if full:
            raise ImageError(f"the selection ({len(by_key)} implementations, {len(pl.ops)} bench operations) "
                             f"does not fit the {board.name}'s memory: choose fewer with --prim/--impl "
                             f"(linker: {full[0].split(': ', 1)[-1].strip()})") from None
        raise
    fit = check_fit(board, pl, elf, work) if board.target == "avr" else None
    binf, hexf = elf.with_suffix(".bin"), elf.with_suffix(".hex")
    if board.target == "avr":
        _run([objcopy, "-O", "binary", "-R", ".eeprom", "-R", ".fuse", str(elf), str(binf)], "objcopy bin")
        _run([objcopy, "-O", "ihex", "-R", ".eeprom", "-R", ".fuse", str(elf), str(hexf)], "objcopy hex")
    else:
        _run([objcopy, "-O", "binary", str(elf), str(binf)], "objcopy bin")
        hex_cmd = [objcopy, "-O", "ihex"]
        if board.hex_offset:
            hex_cmd.append(f"--change-addresses=0x{board.hex_offset:x}")
        _run([*hex_cmd, str(elf), str(hexf)], "objcopy hex")
    shutil.rmtree(work, ignore_errors=True)
    (out_dir / "image.json").write_text(json.dumps({
        "board": board.name, "target": board.target, "kind": pl.kind, "runs": pl.runs, "qemu_memory": qemu,
        "checks": [{k: ch[k] for k in ("prim", "impl", "vectors", "total")} for ch in pl.checks],
        "ops": [json.loads(op["json"][:-1] + "}") | {"call": op["call"]} for op in pl.ops],
        "elf": elf.name, "bin": binf.name, "hex": hexf.name,
        **({"fit": {"flash": fit.flash, "static_ram": fit.static_ram, "stack": fit.stack}} if fit else {})},
        indent=1) + "\n")
    return Outputs(elf, binf, hexf, pl, fit)


# --------------------------------------------------------------------------------------------- fitting

@dataclass
class Fit:
    """What an AVR image needs of its part (check_fit)."""
    flash: int                    # .text + .data initialisers
    static_ram: int               # .data + .bss + .noinit
    stack: int                    # the runner's frames + the deepest recorded call + the timer interrupt
    deepest: str                  # the recorded call that needs the most stack, and its bytes
    largest: list[tuple[str, int]]    # the biggest statically allocated objects


def _stack_usage(work: Path) -> dict[str, int]:
    """Function -> bytes from the .su files gcc -fstack-usage wrote (AVR: the return address included)."""
    out: dict[str, int] = {}
    for su in work.glob("*.su"):
        for line in su.read_text().splitlines():
            where, _, rest = line.partition("\t")
            name = where.rsplit(":", 1)[-1].split(".")[0]
            size = int(rest.split("\t")[0])
            out[name] = max(out.get(name, 0), size)
    return out


def _isr_bytes(elf: Path, cc: str, pc_bytes: int) -> int:
    """The deepest interrupt frame: PUSHes of each __vector_N (the runner's are naked, their own pushes
    only) plus the return address the interrupt pushes."""
    dump = subprocess.run([_tool(cc, "objdump"), "-d", str(elf)], capture_output=True, text=True).stdout
    worst, pushes, inside = 0, 0, False
    for line in dump.splitlines():
        if line.endswith(">:"):
            if inside:
                worst = max(worst, pushes)
            inside, pushes = "<__vector_" in line, 0
        elif inside and "\tpush\t" in line:
            pushes += 1
    if inside:
        worst = max(worst, pushes)
    return worst + pc_bytes


def measure_fit(board: RealBoard, pl: Plan, elf: Path, work: Path) -> Fit:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection
    sizes: dict[str, int] = {}
    largest: list[tuple[str, int]] = []
    with elf.open("rb") as f:
        e = ELFFile(f)
        for sec in e.iter_sections():
            sizes[sec.name] = sizes.get(sec.name, 0) + sec["sh_size"]
        data_range = []
        for name in (".data", ".bss", ".noinit"):
            sec = e.get_section_by_name(name)
            if sec is not None and sec["sh_size"]:
                data_range.append((sec["sh_addr"], sec["sh_addr"] + sec["sh_size"]))
        for sec in e.iter_sections():
            if isinstance(sec, SymbolTableSection):
                for sym in sec.iter_symbols():
                    a = sym["st_value"]
                    if sym["st_info"]["type"] == "STT_OBJECT" and sym["st_size"] and \
                            any(lo <= a < hi for lo, hi in data_range):
                        largest.append((sym.name, sym["st_size"]))
    largest.sort(key=lambda x: -x[1])
    frames = _stack_usage(work)
    # main -> (run_call | stack_use | itself) -> callK | timedK -> the implementation; run_call and
    # stack_use may be inlined into main (then they have no .su line and main's frame holds them)
    runner = frames.get("main", 0) + max(frames.get("run_call", 0), frames.get("stack_use", 0)) + \
        max((v for k, v in frames.items() if re.fullmatch(r"(call|timed)\d+", k)), default=0)
    deepest = max(pl.calls, key=lambda c: c.result.stack_bytes, default=None)
    callee = deepest.result.stack_bytes if deepest else 0
    isr = _isr_bytes(elf, get_target(board.target).cc, board.pc_bytes)
    return Fit(sizes.get(".text", 0) + sizes.get(".data", 0),
               sizes.get(".data", 0) + sizes.get(".bss", 0) + sizes.get(".noinit", 0),
               runner + callee + isr,
               f"{deepest.function} {callee} bytes" if deepest else "no call",
               largest[:3])


def check_fit(board: RealBoard, pl: Plan, elf: Path, work: Path) -> Fit:
    """An ImageError (one line) when the image's static RAM plus its worst stack exceed the part's SRAM,
    or its code and initialised data the part's flash. avr-gcc's linker script checks neither (the stack
    is not a section), so an image that does not fit used to link, then crash or boot-loop on the part."""
    from ..cores import get_core
    core = get_core(board.target, board.mcu)
    fit = measure_fit(board, pl, elf, work)
    what = f"{len({c['impl'] + c['prim'] for c in pl.checks})} implementations, {len(pl.ops)} bench operations"
    if core.flash_bytes is not None and fit.flash > core.flash_bytes:
        raise ImageError(f"the selection ({what}) does not fit the {board.name}'s {core.flash_bytes} bytes of "
                         f"flash: {fit.flash} bytes of code and data; choose fewer with --prim/--impl")
    if core.sram_bytes is not None and fit.static_ram + fit.stack > core.sram_bytes:
        big = ", ".join(f"{n} {b}" for n, b in fit.largest)
        raise ImageError(f"the selection ({what}) does not fit the {board.name}'s {core.sram_bytes} bytes of "
                         f"SRAM: {fit.static_ram} bytes of static data ({big}) + {fit.stack} of stack (deepest "
                         f"call: {fit.deepest}) = {fit.static_ram + fit.stack}; choose fewer with --prim/--impl, "
                         f"or fewer vectors with --max-vectors")
    return fit


def make_image(board: RealBoard, prims: Sequence[str], impls: Sequence[str], out_dir: Path, *,
               runs: int = DEFAULT_RUNS, max_vectors: int | None = None, qemu: bool = False,
               clock: int | None = None) -> Outputs:
    if not 1 <= runs <= 31:
        raise ImageError("--runs must be between 1 and 31")
    clock_flags(board, clock)      # refuse a bad clock before recording anything
    sels = select(load_catalog(), board, prims, impls)
    pl = plan(board, sels, runs=runs, max_vectors=max_vectors)
    return build_image(board, pl, out_dir, qemu=qemu, clock=clock)


def default_out_dir(board: str) -> Path:
    return Path(os.environ.get("MCU_SILICON_DIR", ROOT / "build" / "silicon")) / board
