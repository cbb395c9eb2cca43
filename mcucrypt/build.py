# SPDX-License-Identifier: MIT
"""Cross-compile one firmware image per (sources, target, flags), cached by content.

The cache key hashes the compiler's identity, every flag, the board files, and the bytes of every source
plus every header beside it and under include/: the same inputs never compile twice, and any edit
(including a header) rebuilds. Images land in build/<target>/<name>-<key>.elf (.so on host) with a
linker map beside them, from which code size is measured.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from .targets import HOST_SANITIZE_FLAGS, ROOT, WARNINGS, get_target

BUILD_DIR = ROOT / "build"
INCLUDE_DIR = ROOT / "include"


class BuildError(Exception):
    pass


@dataclass(frozen=True)
class Image:
    path: Path          # the ELF (or host .so)
    map_path: Path      # linker map
    target: str
    flags: tuple[str, ...]
    sources: tuple[Path, ...]


@lru_cache(maxsize=None)
def compiler_version(cc: str) -> str:
    if shutil.which(cc) is None:
        raise BuildError(f"compiler {cc} not found: run `make setup` (scripts/setup.sh) first")
    out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].strip()


def _hash_inputs(files: Iterable[Path], parts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() + b"\0")
    for f in sorted(set(files)):
        h.update(str(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _dependencies(sources: Sequence[Path]) -> list[Path]:
    """The sources plus every header they could include: those under the primitive's folder (the
    nearest ancestor holding a META.yml, so `#include "../ref/x.h"` is covered), beside each source,
    and under include/."""
    deps = set(sources)
    for s in sources:
        home = next((d for d in s.parents if (d / "META.yml").is_file()), s.parent)
        deps.update(p for p in home.rglob("*") if p.suffix in (".h", ".inc"))
        deps.update(p for p in s.parent.glob("*") if p.suffix in (".h", ".inc"))
    deps.update(INCLUDE_DIR.rglob("*.h"))
    return sorted(deps)


def impl_define(impl: str) -> str:
    """'rv32-fast' -> 'rv32_fast': the token MCU_IMPL carries into symbol names."""
    return re.sub(r"[^A-Za-z0-9_]", "_", impl)


def build(target: str, sources: Sequence[Path | str], *, name: str, impl: str | None = None,
          isa: str | None = None, defines: Sequence[str] = (), sanitize: bool = False,
          extra_cflags: Sequence[str] = (), keep: Sequence[str] = (), mcu: str | None = None) -> Image:
    """Compile and link ``sources`` (paths relative to the repository root or absolute) for ``target``.

    ``mcu`` (avr only) names the part to compile and link for (-mmcu=; mcucrypt/cores.py's Core.mcu),
    default the target's own (atmega128). ``extra_cflags`` come after the target's flags (so -Os or
    -flto there win) and reach the link too.

    ``keep`` names the functions the image exists for: the linker keeps them and whatever they reach and
    drops every other section (--gc-sections), so code size counts exactly what a user would link."""
    t = get_target(target)
    srcs = tuple((ROOT / s).resolve() if not Path(s).is_absolute() else Path(s) for s in sources)
    for s in srcs:
        if not s.is_file():
            raise BuildError(f"source not found: {s}")
    board_files = tuple(ROOT / s for s in t.startup)
    cflags, t_ldflags = list(t.cflags), list(t.ldflags)
    if mcu is not None:
        if not any(f.startswith("-mmcu=") for f in cflags):
            raise BuildError(f"target {target} has no -mmcu= to choose a part with")
        cflags = [f"-mmcu={mcu}" if f.startswith("-mmcu=") else f for f in cflags]
        t_ldflags = [f"-mmcu={mcu}" if f.startswith("-mmcu=") else f for f in t_ldflags]
    flags = [*cflags, *WARNINGS, *t.march_flags(isa), f"-I{INCLUDE_DIR}", *extra_cflags]
    if impl is not None:
        flags.append(f"-DMCU_IMPL={impl_define(impl)}")
    flags += [f"-D{d}" for d in defines]
    if sanitize:
        if target != "host":
            raise BuildError("sanitizer builds exist for the host target only")
        flags = [f for f in flags if not f.startswith("-O")] + list(HOST_SANITIZE_FLAGS)
    ldflags = [os.path.join(str(ROOT), f) if f.endswith(".ld") else f for f in t_ldflags]
    ldflags += [f"-Wl,--undefined={sym}" for sym in keep]
    key = _hash_inputs(_dependencies(srcs) + list(board_files) +
                       [ROOT / f for f in t_ldflags if f.endswith(".ld")],
                       [compiler_version(t.cc), *flags, *ldflags, target])
    out_dir = BUILD_DIR / (target + ("-asan" if sanitize else ""))
    out = out_dir / f"{name}-{key}{t.output_suffix}"
    map_path = out.with_suffix(".map")
    image = Image(out, map_path, target, tuple(flags), srcs)
    if out.is_file() and map_path.is_file():
        return image
    out_dir.mkdir(parents=True, exist_ok=True)
    # Everything is built under a private name and renamed into place at the end, so parallel test
    # workers building the same image never see (or link) a half-written file.
    private = f"{key}.{os.getpid()}"
    obj_dir = out_dir / f"obj-{private}"
    obj_dir.mkdir(exist_ok=True)
    try:
        objects = []
        for src in (*board_files, *srcs):
            # Objects are named after their sources so the linker map says which file each byte came from.
            obj = obj_dir / (src.stem + (".board" if src in board_files else "") + ".o")
            _run([t.cc, *flags, "-c", str(src), "-o", str(obj)], f"compiling {src.name} for {target}")
            objects.append(str(obj))
        tmp_out = out.with_name(f"{out.name}.{private}")
        tmp_map = map_path.with_name(f"{map_path.name}.{private}")
        # GCC picks libgcc by -march/-mabi among its multilibs, and there is none for ISA extensions:
        # an rv32imac_zbb link would fall back to the rv64 default. The objects are already compiled for
        # the declared ISA; the link takes the library of its base (rv32imac_zbb -> rv32imac, and
        # rv32i stays rv32i, so a base-ISA image never links compressed or multiply instructions).
        link_flags = [f.split("_")[0] if f.startswith("-march=") else f for f in flags]
        _run([t.cc, *link_flags, *objects, *ldflags, f"-Wl,-Map={tmp_map}", "-o", str(tmp_out)],
             f"linking {name} for {target}")
        os.replace(tmp_map, map_path)
        os.replace(tmp_out, out)
    finally:
        shutil.rmtree(obj_dir, ignore_errors=True)
    return image


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed:\n{' '.join(cmd)}\n{proc.stderr.strip()}")


_MAP_INPUT = re.compile(r"^\s*(\.[\w.$]+)?\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S+)$")


CODE_SECTIONS = (".text", ".rodata", ".srodata", ".progmem")
# Static RAM: initialised (.data, its initial values also in flash) and zeroed (.bss) data; RISC-V's small
# data sections beside them.
STATIC_RAM_SECTIONS = (".data", ".sdata", ".bss", ".sbss")


def code_size(image: Image, own_sources: Sequence[Path | str]) -> int:
    """Bytes of text and read-only data that the linker kept from ``own_sources`` (board files and
    libgcc excluded), read from the linker map: .text*, .rodata*, .srodata* and AVR's .progmem*."""
    return own_section_bytes(image, own_sources, CODE_SECTIONS)


def static_ram_size(image: Image, own_sources: Sequence[Path | str]) -> int:
    """Bytes of static RAM (.data*, .bss* and RISC-V's .sdata*, .sbss*) that the linker kept from
    ``own_sources``: the RAM an implementation holds for the whole program, beside its stack."""
    return own_section_bytes(image, own_sources, STATIC_RAM_SECTIONS)


def own_section_bytes(image: Image, own_sources: Sequence[Path | str], prefixes: tuple[str, ...]) -> int:
    """Bytes of the input sections named ``prefixes*`` that the linker kept from ``own_sources``' objects,
    read from the linker map."""
    stems = {Path(s).stem for s in own_sources}
    total = 0
    section: str | None = None
    for line in image.map_path.read_text(errors="replace").splitlines():
        if line.startswith("Discarded input sections"):
            section = "discarded"
            continue
        if line.startswith("Memory Configuration") or line.startswith("Linker script and memory map"):
            section = None
            continue
        if section == "discarded":
            continue
        m = _MAP_INPUT.match(line)
        if m:
            sec = m.group(1) or section
            if m.group(1):
                section = m.group(1)
            size = int(m.group(3), 16)
            obj = m.group(4)
        else:
            stripped = line.strip()
            if stripped.startswith(".") and " " not in stripped:
                section = stripped   # long section name; its address line follows
            continue
        if not sec or not sec.startswith(prefixes):
            continue
        obj_file = Path(obj.split("(")[0])
        if obj_file.suffix == ".o" and obj_file.parent.name.startswith("obj-") and obj_file.stem in stems:
            total += size
    return total
