# SPDX-License-Identifier: MIT
"""The library in a user's firmware (issue 15): `mcucrypt export`, `make lib`, the examples, layout
defines that cannot be forgotten, cores, docs/api.md, the README recipe, wiping, and SPDX lines."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mcucrypt.boards import make_board
from mcucrypt.boards.base import Int
from mcucrypt.build import BuildError, build
from mcucrypt.catalog import load_catalog
from mcucrypt.cores import CORES, default_core, get_core
from mcucrypt.export import CFLAGS, PLATFORMIO, TOOLS, api_markdown, export
from mcucrypt.targets import ROOT

EXAMPLES = ROOT / "examples"
FULL = os.environ.get("MCUCRYPT_FULL") == "1"
VECTORS_H = EXAMPLES / "common" / "vectors.h"
CLI = [sys.executable, "-m", "mcucrypt.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(cmd: list[str], cwd: Path = ROOT, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=kw.pop("env", ENV), **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def call_example(target: str, elf: Path) -> int:
    # A budget above the boards' runaway defaults: the X25519 records alone are five scalar multiplications
    # (up to 70 M cycles each on the ATmega128 in portable C).
    out = run([*CLI, "call", "--target", target, "--max-instructions", "600000000", str(elf), "mcucrypt_example",
               "--json"]).stdout
    return json.loads(out)["return_value"]


def expected_count(ids: list[str]) -> int:
    """Vectors the example checks for these ids (EX_<ID>_COUNT in the generated vectors.h)."""
    counts = dict(re.findall(r"#define EX_(\w+)_COUNT (\d+)", VECTORS_H.read_text()))
    return sum(int(counts[i.upper()]) for i in ids)


# ------------------------------------------------------------------ layout defines cannot be forgotten

def _define_cases():
    for prim in load_catalog().primitives.values():
        for impl in prim.implementations.values():
            for d in impl.defines:
                yield pytest.param(impl, d, id=f"{impl.key}-{d.split('=')[0]}")


@pytest.mark.parametrize("impl,define", list(_define_cases()))
def test_missing_layout_define_is_a_compile_error(impl, define):
    """Every META.yml define of every implementation, left out: the build stops with an #error that
    names it (never an image that computes a wrong answer)."""
    target = next(t for t in impl.targets if t != "host")
    name = define.split("=")[0]
    with pytest.raises(BuildError) as e:
        build(target, impl.sources, name=f"nodefine-{impl.primitive.name}-{impl.name}", impl=impl.name,
              isa=impl.isa if target == "rv32" else None, defines=[d for d in impl.defines if d != define],
              keep=impl.symbols(impl.ids[0]))
    msg = str(e.value)
    assert "compiling" in msg and "#error" in msg and name in msg, msg


# ------------------------------------------------------------------------------------------- cores

def test_cores_mark_what_does_not_run_on_the_real_part():
    cat = load_catalog()
    e31 = default_core("rv32")
    assert e31.name == "e31" and default_core("armv7m").name == "cortex-m3" and default_core("avr").name == "atmega128"
    assert e31.why_not(cat.implementation("lea128", "rv32-zbb")) == "needs Zbb: not on the E31"
    assert e31.why_not(cat.implementation("lea128", "rv32-fast")) is None
    assert e31.why_not(cat.implementation("lea128", "rv32-paper")) is None     # rv32i is a subset
    assert "Xmul64" in e31.why_not(cat.implementation("mpmul256", "rv32-fast-x"))
    assert CORES["rv32-board"].why_not(cat.implementation("lea128", "rv32-zbb")) is None
    with pytest.raises(ValueError):
        get_core("rv32", "cortex-m3")
    rows = json.loads(run([*CLI, "list", "--json"]).stdout)
    zbb = next(r for r in rows if r["prim"] == "lea128" and r["impl"] == "rv32-zbb")
    assert zbb["real_part"] == {"e31": "needs Zbb: not on the E31"} and "e31" not in zbb["cores"]
    only = json.loads(run([*CLI, "list", "--json", "--core", "e31"]).stdout)
    assert only and all(r["real_part"].get("e31") == "runs" for r in only)


def test_run_without_impl_picks_one_that_runs_on_the_e31():
    args = ["run", "lea128", "--target", "rv32", "--key", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
            "--input", "101112131415161718191a1b1c1d1e1f", "--json"]
    doc = json.loads(run([*CLI, *args]).stdout)
    impl = load_catalog().implementation("lea128", doc["impl"])
    assert get_core("rv32", "e31").why_not(impl) is None and doc["core"] == "e31"
    assert doc["output"] == "9fc84e3528c6c6185532c7a704648bfd"
    other = json.loads(run([*CLI, *args, "--core", "rv32-board"]).stdout)
    assert other["impl"] == "rv32-zbb" and other["cycles"] < doc["cycles"]


# ---------------------------------------------------------------------- export, build, run on board

# (target, family, --impl or None for the default choice). Every family on every target; --impl where the
# default choice would first run thousands of vectors per candidate (TinyJAMBU) or many candidates, and
# to cover implementations with layout defines (aria rv32-paper, tinyjambu avr-fast, lea rv32-fast).
# X25519 is exported by name: choosing runs every candidate's vectors, minutes per scalar multiplication set;
# Ascon too (its candidates' 2,100 official vectors each: 1-2 minutes a target), by the default choice's picks.
EXPORTS = [
    ("rv32", "lea", None), ("rv32", "aria", "rv32-paper"), ("rv32", "aes", None), ("rv32", "chacha20", None),
    ("rv32", "keccak", None), ("rv32", "mpmul", "rv32-fast"), ("rv32", "pipo", None),
    ("rv32", "tinyjambu", "ref-opt"), ("rv32", "ascon", "rv32-fast"), ("rv32", "x25519", "rv32-fast"),
    ("armv7m", "lea", None), ("armv7m", "aria", None), ("armv7m", "aes", None), ("armv7m", "chacha20", None),
    ("armv7m", "keccak", None), ("armv7m", "mpmul", "cm3-umlal-ct"), ("armv7m", "pipo", None),
    ("armv7m", "tinyjambu", "ref-normal"), ("armv7m", "ascon", "armv7m-bi32"), ("armv7m", "x25519", "cm3-fast"),
    ("avr", "lea", None), ("avr", "aria", None), ("avr", "aes", None), ("avr", "chacha20", None),
    ("avr", "keccak", None), ("avr", "mpmul", None), ("avr", "pipo", None), ("avr", "tinyjambu", "avr-fast"),
    ("avr", "ascon", "avr-compact"), ("avr", "x25519", "avr-fast"),
    ("rv32", "sha2", "ref"), ("armv7m", "sha2", "ref"), ("avr", "sha2", "ref"),
    ("rv32", "sha3", "rv32-fast"), ("armv7m", "sha3", "armv7m-fast"), ("avr", "sha3", "ref"),
    ("rv32", "chachapoly", "rv32-fast"), ("armv7m", "chachapoly", "cm3-fast"), ("avr", "chachapoly", "avr-fast"),
    # ML-KEM: the three parameter sets' encapsulation. The E31's 16 KiB DTIM (its .rodata too) does not hold
    # the three records, their buffers and encapsulation's 4.7 KiB of stack: one id there, below. Not on
    # the ATmega128, whose 4 KiB of SRAM do not hold ML-KEM-768's keys and stack (test_catalog runs ML-KEM
    # on the avr board's ATmega1284P).
    ("armv7m", "mlkem", "cm3-c"),
]


@pytest.mark.parametrize("target,family,impl", EXPORTS, ids=[f"{t}-{f}" for t, f, _ in EXPORTS])
def test_exported_library_runs_the_example_on_the_board(tmp_path, target, family, impl):
    lib = tmp_path / "lib"
    args = [*CLI, "export", "--target", target, "--prim", family, "--out", str(lib)]
    if impl:
        args += ["--allow-variable-time", "--impl", impl]
    run(args)
    manifest = json.loads((lib / "mcucrypt-export.json").read_text())
    ids = [i for u in manifest["units"] for i in u["ids"]]
    assert set(ids) == set(load_catalog().primitives[family].instances)
    for u in manifest["units"]:
        im = load_catalog().implementation(u["ids"][0], u["impl"])
        assert default_core(target).why_not(im) is None
        if impl is None:
            assert im.constant_time or not any(i.constant_time for i in load_catalog().implementations(u["ids"][0], target))
    for f in ("LICENSE", "Makefile", "CMakeLists.txt", "library.json", "src/mcucrypt.h", "cmake/toolchain.cmake"):
        assert (lib / f).is_file(), f
    assert (lib / "library.properties").is_file() == (target in ("avr", "armv7m"))
    # Only the cross compiler and the exported Makefile: PATH without this tree's Python tools.
    run(["make", "-C", str(EXAMPLES / target), f"MCUCRYPT={lib}", f"OUT={tmp_path / 'make'}"],
        env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")})
    assert call_example(target, tmp_path / "make" / "example.elf") == expected_count(ids)
    # Reentrant: no writable static data in the library (docs/api.md says so).
    size = run([TOOLS[target]["size"], "-A", str(lib / "libmcucrypt.a")]).stdout
    assert not [l for l in size.splitlines() if re.match(r"^\.(s?data|s?bss)\S*\s+[1-9]", l)], size
    # And again with CMake only (add_subdirectory + the exported toolchain file). Its CMakeLists.txt is
    # the Makefile's source list and flags in CMake's form, the same for every family: the default run
    # builds with it the families that mix assembly and C on every target, MCUCRYPT_FULL=1 every family.
    if not (FULL or family in CMAKE_FAMILIES):
        return _arduino_example(tmp_path, target, lib, ids)
    b = tmp_path / "cmake"
    run(["cmake", "-S", str(EXAMPLES / target), "-B", str(b), f"-DMCUCRYPT_DIR={lib}",
         f"-DCMAKE_TOOLCHAIN_FILE={lib / 'cmake' / 'toolchain.cmake'}"],
        env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")})
    run(["cmake", "--build", str(b)], env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")})
    assert call_example(target, b / "example.elf") == expected_count(ids)
    _arduino_example(tmp_path, target, lib, ids)


CMAKE_FAMILIES = {"x25519", "ascon"}


def test_exported_mlkem768_runs_the_example_on_the_e31(tmp_path):
    """One ML-KEM id exported for the E31 (its 16 KiB DTIM holds one record and the stack, not three)."""
    lib = tmp_path / "lib"
    run([*CLI, "export", "--target", "rv32", "--prim", "mlkem768", "--allow-variable-time", "--impl", "rv32-c",
         "--out", str(lib)])
    run(["make", "-C", str(EXAMPLES / "rv32"), f"MCUCRYPT={lib}", f"OUT={tmp_path / 'make'}"],
        env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")})
    assert call_example("rv32", tmp_path / "make" / "example.elf") == expected_count(["mlkem768"]) == 1


def _arduino_example(tmp_path: Path, target: str, lib: Path, ids: list[str]) -> None:
    """The example linked from the objects the Arduino IDE's recipe compiles (avr, armv7m)."""
    if target in ARDUINO_RECIPE:
        objs = arduino_build(target, lib / "src", tmp_path / "arduino")
        run(["make", "-C", str(EXAMPLES / target), f"MCUCRYPT={lib}", f"LIB={' '.join(map(str, objs))}",
             f"OUT={tmp_path / 'arduino-example'}"])
        assert call_example(target, tmp_path / "arduino-example" / "example.elf") == expected_count(ids)


# ----------------------------------------------------------------------------------------------- C++

# C and C++ keywords a parameter name in a prototype may not be (the headers are C, included from C++).
CXX_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires restrict return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using virtual void
volatile wchar_t while xor xor_eq""".split())


def test_no_prototype_parameter_is_a_cxx_keyword():
    bad = [f"{im.key} {op}: {p.name}" for prim in load_catalog().primitives.values()
           for im in prim.implementations.values() for op, proto in im.functions.items()
           for p in proto.params if p.name in CXX_KEYWORDS]
    assert not bad, bad


def _cxx_probe(manifest: dict, lib: Path) -> str:
    """A C++ translation unit that includes every public header of an export and takes the address of
    every function they declare (a missing extern "C" is then an undefined, mangled symbol at link)."""
    cat = load_catalog()
    from mcucrypt.build import impl_define
    from mcucrypt.export import ops_of, wipers
    heads = ["mcucrypt.h", *sorted(f"mcucrypt/{h.name}" for h in (lib / "src" / "mcucrypt").glob("*.h")
                                   if not h.name.startswith("config_")
                                   # internal to the sources (MCU_IMPL), stack_wipe.h assembly only
                                   and h.name not in ("ns.h", "aead_instance.h", "top_bit.h", "stack_wipe.h"))]
    fns = ["mcu_wipe", "mcu_declassify"]
    for u in manifest["units"]:
        for i in u["ids"]:
            im = cat.implementation(i, u["impl"])
            fns += [f"mcu_{i}_{impl_define(im.name)}_{op}" for op in ops_of(im, i)]
            fns += [f"mcu_{i}_{w[0]}" for w in wipers(im.primitive, im, i)]     # the generic names too
    lines = [f'#include "{h}"' for h in heads]
    # An array with external linkage: the compiler must emit it, with a relocation for every entry.
    lines += ["", "extern \"C\" {", "extern const void *const mcucrypt_probe[];", "int main(void);", "}",
              "const void *const mcucrypt_probe[] = {",
              *[f"    reinterpret_cast<const void *>(&{f})," for f in fns],
              "};", "int main(void)", "{", "    return mcucrypt_probe[0] != 0;", "}", ""]
    return "\n".join(lines)


CXX_LINK = {t: ["-nostdlib", "-nostartfiles", "-Wl,-e,main", "-T", str(ROOT / "boards" / t / "link.ld")]
            for t in ("rv32", "armv7m")}
CXX_LINK["avr"] = []


def _any_impl(target: str, family: str) -> str:
    """An implementation of every id of the family that runs on the target's real part (no choosing)."""
    cat = load_catalog()
    prim = cat.primitives[family]
    core = default_core(target)
    return next(im.name for im in prim.implementations.values()
                if target in im.targets and core.why_not(im) is None and set(prim.instances) <= set(im.ids))


@pytest.mark.parametrize("target", list(TOOLS))
def test_every_exported_header_compiles_and_links_in_cxx(tmp_path, target):
    """g++ (the target's: riscv64-unknown-elf-g++, arm-none-eabi-g++, avr-g++), C++11 and C++17, -Wall
    -Wextra -pedantic -Werror: a file that includes every public header of an export of every family and
    takes every function's address links against the C library. Before: X25519's `public` parameter
    did not compile, and mcu_declassify (no extern "C") did not link."""
    arch = [*TOOLS[target]["arch"], *(["-march=rv32imac"] if target == "rv32" else [])]
    libc = []       # memcpy and memset for the bare-metal links (the board's mini libc, compiled as C)
    if target != "avr":
        run([TOOLS[target]["cc"], *arch, "-O2", "-ffreestanding", "-c", str(ROOT / "boards" / "common" / "mini_libc.c"),
             "-o", str(tmp_path / "mini_libc.o")])
        libc = [str(tmp_path / "mini_libc.o")]
    for t, family, impl in EXPORTS:
        if t != target:
            continue
        lib = tmp_path / family
        manifest = export(target, lib, prims=[family], impl=impl or _any_impl(target, family),
                          allow_variable_time=True, url="https://github.com/example/firmware")
        run(["make", "-s", "-C", str(lib)])
        (tmp_path / f"{family}.cpp").write_text(_cxx_probe(manifest, lib))
        for std in ("c++11", "c++17"):
            proc = subprocess.run([TOOLS[target]["cxx"], *arch, f"-std={std}", "-Os", "-ffreestanding", "-Wall",
                                   "-Wextra", "-pedantic", "-Werror", "-fno-exceptions", "-fno-rtti", f"-I{lib / 'src'}",
                                   str(tmp_path / f"{family}.cpp"), str(lib / "libmcucrypt.a"), *libc,
                                   *CXX_LINK[target], "-lgcc", "-o", str(tmp_path / f"{family}-{std}.elf")],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, f"{target} {family} {std}:\n{proc.stderr[-3000:]}"


# The Arduino IDE builds a library (1.5 format) by compiling every .c/.S under src/, recursively, with the
# core's recipe and nothing from the library (no defines, no flags), then links the objects themselves (not
# an archive: a source meant only to be #included elsewhere would give duplicate symbols). The flags are
# those of platform.txt in arduino/ArduinoCore-avr 1.8.6 (Mega-class boards; the ATmega128 via MegaCore
# uses the same recipe) and arduino/ArduinoCore-sam 1.6.12 (Arduino Due, SAM3X8E), warnings raised to
# -Wall -Wextra; their -flto is left out because the example links without the LTO plugin.
ARDUINO_RECIPE = {
    "avr": {"c": ["-c", "-g", "-Os", "-Wall", "-Wextra", "-std=gnu11", "-ffunction-sections", "-fdata-sections",
                  "-MMD"],
            "S": ["-c", "-g", "-x", "assembler-with-cpp", "-MMD"],
            "mcu": ["-mmcu=atmega128", "-DF_CPU=16000000L", "-DARDUINO=10819", "-DARDUINO_AVR_ATmega128",
                    "-DARDUINO_ARCH_AVR"]},
    "armv7m": {"c": ["-c", "-g", "-Os", "-Wall", "-Wextra", "-std=gnu11", "-ffunction-sections",
                     "-fdata-sections", "-nostdlib", "--param", "max-inline-insns-single=500", "-Dprintf=iprintf",
                     "-MMD"],
               "S": ["-c", "-g", "-x", "assembler-with-cpp", "-mthumb"],
               "mcu": ["-mcpu=cortex-m3", "-mthumb", "-DF_CPU=84000000L", "-DARDUINO=10819", "-DARDUINO_SAM_DUE",
                       "-DARDUINO_ARCH_SAM", "-D__SAM3X8E__"]},
}


def arduino_build(target: str, src: Path, out: Path) -> list[Path]:
    recipe, objs = ARDUINO_RECIPE[target], []
    for f in sorted(p for p in src.rglob("*") if p.suffix in (".c", ".S")):
        o = out / f.relative_to(src).with_suffix(f.suffix + ".o")
        o.parent.mkdir(parents=True, exist_ok=True)
        run([TOOLS[target]["cc"], *recipe["c" if f.suffix == ".c" else "S"], *recipe["mcu"], f"-I{src}", str(f),
             "-o", str(o)])
        objs.append(o)
    return objs


def test_library_manifests_pass_platformio_validation(tmp_path, monkeypatch):
    """library.json and library.properties as PlatformIO's own manifest parser and schema read them (it reads
    Arduino's format too). The schema fetches the SPDX licence list from the internet, which CI lacks: the
    one identifier we use stands in for it."""
    from platformio.package.manifest import parser, schema      # a test dependency (pyproject.toml)
    monkeypatch.setattr(schema.ManifestSchema, "load_spdx_licenses",
                        staticmethod(lambda: {"licenses": [{"licenseId": "MIT"}]}))
    for target in ("rv32", "armv7m", "avr"):
        lib = tmp_path / target
        export(target, lib, prims=["lea128"], url="https://github.com/example/firmware")
        files = ["library.json"] + (["library.properties"] if target in ("armv7m", "avr") else [])
        for f in files:
            data = schema.ManifestSchema().load_manifest(
                parser.ManifestParserFactory.new_from_file(str(lib / f)).as_dict())
            assert data["name"] == f"mcucrypt-{target}" and data["version"]
            assert data.get("license") == ("MIT" if f == "library.json" else None)    # Arduino's has none
            # (a GitHub url in library.properties is read as the repository)
            assert "https://github.com/example/firmware" in (data.get("homepage"),
                                                             data.get("repository", {}).get("url", "")[:-4]), data
            assert data["platforms"] and set(data["platforms"]) <= set(PLATFORMIO[target]), (f, data)


def test_platformio_installs_the_export_offline_and_forces_no_part(tmp_path):
    """`pio pkg install --library file://...` into a project, with an empty PlatformIO home and no network
    use (the library is a local folder); library.json leaves -mcpu/-mmcu/-march to the board, since one
    platform (atmelavr, ststm32) holds many parts. Building needs the platform's toolchain, which PlatformIO
    downloads: not done here (the exported README says so)."""
    pio = Path(sys.executable).with_name("pio")
    for target in ("rv32", "armv7m", "avr"):
        lib = tmp_path / f"lib-{target}"
        export(target, lib, prims=["lea128"], url="https://github.com/example/firmware")
        flags = json.loads((lib / "library.json").read_text())["build"]["flags"]
        assert not [f for f in flags if f.startswith(("-mcpu", "-mmcu", "-march", "-mthumb", "-mabi"))], flags
        assert "PlatformIO downloads" in (lib / "README.md").read_text()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "platformio.ini").write_text("[env:uno]\nplatform = atmelavr\nboard = uno\nframework = arduino\n")
    env = {**os.environ, "PLATFORMIO_CORE_DIR": str(tmp_path / "pio-home"), "PLATFORMIO_NO_ANSI": "1"}
    proc = subprocess.run([str(pio), "pkg", "install", "--no-save", "--skip-dependencies", "-e", "uno",
                           "--library", f"file://{tmp_path / 'lib-avr'}"], cwd=proj, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = proj / ".pio" / "libdeps" / "uno" / "mcucrypt-avr"
    assert (installed / "library.json").is_file() and (installed / "src" / "mcucrypt.h").is_file(), proc.stdout


def test_export_refuses_an_implementation_the_core_lacks(tmp_path):
    proc = subprocess.run([*CLI, "export", "--target", "rv32", "--prim", "lea128", "--impl", "rv32-zbb",
                           "--out", str(tmp_path / "x")], cwd=ROOT, capture_output=True, text=True, env=ENV)
    assert proc.returncode == 2 and "needs Zbb: not on the E31" in proc.stderr and "Traceback" not in proc.stderr
    # Named core: it exports, and the configuration header refuses a compiler without Zbb.
    export("rv32", tmp_path / "zbb", core="rv32-board", prims=["lea128"], impl="rv32-zbb")
    cfg = (tmp_path / "zbb" / "src" / "mcucrypt" / "config_lea_rv32_zbb.h").read_text()
    assert "#define LEA_RK_COMPACT 1" in cfg and "#ifndef __riscv_zbb" in cfg
    assert "-march=rv32imac_zbb" in (tmp_path / "zbb" / "Makefile").read_text()
    bad = subprocess.run([TOOLS["rv32"]["cc"], "-march=rv32imac", "-mabi=ilp32", "-I", "src", "-c",
                          "src/lea_rv32_zbb/rv32/lea_unrolled.S", "-o", "/dev/null"], cwd=tmp_path / "zbb",
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "needs the zbb extension" in bad.stderr


def test_make_lib_archives_run_the_example(tmp_path):
    run(["make", "lib", "LIB_PRIMS=lea pipo"])
    for target in ("rv32", "armv7m", "avr"):
        archive = ROOT / "build" / "lib" / f"libmcucrypt-{target}.a"
        assert archive.is_file()
        out = tmp_path / target
        run(["make", "-C", str(EXAMPLES / target), f"MCUCRYPT={ROOT / 'build' / 'lib' / target}",
             f"LIB={archive}", f"OUT={out}"])
        ids = [i for p in ("lea", "pipo") for i in load_catalog().primitives[p].instances]
        assert call_example(target, out / "example.elf") == expected_count(ids)


def test_example_vectors_are_generated_from_the_vector_files():
    sys.path.insert(0, str(EXAMPLES / "common"))
    try:
        import gen_vectors
    finally:
        sys.path.pop(0)
    assert VECTORS_H.read_text() == gen_vectors.render(), "run python3 examples/common/gen_vectors.py"


# ------------------------------------------------------------------------------ API reference, wipe

def test_api_md_is_current_and_its_prototypes_compile_against_the_sources(tmp_path):
    assert (ROOT / "docs" / "api.md").read_text() == api_markdown(), \
        "docs/api.md is stale: python -m mcucrypt.export --api-md > docs/api.md"
    # Every implementation with C sources, on each board target (by default one: the AVR where it runs,
    # whose 16-bit int makes most warnings; every target with MCUCRYPT_FULL=1): its C sources see its generated public
    # header (the configuration header includes it), so a prototype that differs from the definition
    # is a compile error.
    for prim in load_catalog().primitives.values():
        for impl in prim.implementations.values():
            if not any(s.suffix == ".c" for s in impl.sources):
                continue
            targets = [t for t in impl.targets if t in TOOLS]
            for target in (targets if FULL else ["avr"] if "avr" in targets else targets[:1]):
                out = tmp_path / f"{impl.key.replace('/', '-')}-{target}"
                # fit_check=False: this compiles the sources; whether the part's RAM holds ML-DSA is not its question
                export(target, out, core="rv32-board" if target == "rv32" else None,
                       prims=list(impl.ids), impl=impl.name, fit_check=False)
                flags = [a for a in json.loads((out / "mcucrypt-export.json").read_text())["arch_flags"]]
                for c in (out / "src").rglob("*.c"):
                    proc = subprocess.run([TOOLS[target]["cc"], *flags, *CFLAGS, "-Werror", "-Isrc", "-fsyntax-only",
                                           str(c)], cwd=out, capture_output=True, text=True)
                    assert proc.returncode == 0, f"{impl.key} {target} {c.name}: {proc.stderr}"


def test_lea_header_documents_the_compact_key_schedule():
    text = (ROOT / "crypto" / "lea" / "ref" / "lea.h").read_text()
    assert "384 bytes" in text
    assert load_catalog().implementation("lea128", "rv32-fast").params("lea128")["rk_bytes"] == 384


def test_mcu_wipe_survives_optimisation_and_memset_does_not():
    """On the rv32 board with -O2 -flto: every byte fill_secret wrote to the local buffer is written again
    by mcu_wipe; with __builtin_memset in its place the compiler drops the zeroing (the control)."""
    fx = ROOT / "tests" / "fixtures" / "wipe"
    # mcu_wipe.c is in every board image (targets.py's startup files, built with the same -flto).
    img = build("rv32", [fx / "probe.c", fx / "secret.c"],
                name="wipe-probe", extra_cflags=["-flto"], keep=["probe_wipe", "probe_memset"])
    board = make_board("rv32")
    board.load(img.path)
    for symbol, wiped in (("probe_wipe", True), ("probe_memset", False)):
        res = board.call(symbol, [Int(7, 4)], trace=True)
        secret = set()
        later = Counter()
        for a in res.trace.accesses:
            if not a.write:
                continue
            for x in range(a.address, a.address + a.size):
                if board.symbol_at(a.pc).startswith("fill_secret"):
                    secret.add(x)
                elif x in secret:
                    later[x] += 1
        assert len(secret) == 32
        assert all(later[x] for x in secret) == wiped, (symbol, later)


# ------------------------------------------------------------------------------------ README recipe

def _readme_recipe() -> tuple[str, str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Use it in your firmware", 1)[1].split("\n## ", 1)[0]
    c = re.search(r"```c\n(.*?)```", section, re.S).group(1)
    sh = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return c, sh


def test_readme_recipe_builds_and_runs_verbatim(tmp_path):
    """The README's "Use it in your firmware": the C block saved as app.c, the sh block run line by line
    as written, in a folder beside the checkout's boards/, with `mcucrypt` this tree's CLI."""
    c, sh = _readme_recipe()
    (tmp_path / "app.c").write_text(c)
    (tmp_path / "boards").symlink_to(ROOT / "boards")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "mcucrypt"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m mcucrypt.cli \"$@\"\n")
    shim.chmod(0o755)
    env = {**ENV, "PATH": f"{bindir}:{os.environ['PATH']}"}
    proc = run(["sh", "-ec", sh], cwd=tmp_path, env=env)
    assert re.search(r"return_value: 0\b", proc.stdout), proc.stdout


# ---------------------------------------------------------------------------------------- licence

SOURCE_SUFFIXES = {".c", ".h", ".S", ".inc", ".py", ".sh", ".yml", ".yaml", ".ld", ".cmake", ".toml"}


def test_every_tracked_source_file_has_an_spdx_line():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for f in files:
        p = ROOT / f
        if not p.is_file():
            continue
        if p.suffix in SOURCE_SUFFIXES or p.name in ("Makefile", "CMakeLists.txt") or f.startswith(".ci/"):
            head = p.read_text(errors="replace").splitlines()[:3]
            if not any("SPDX-License-Identifier: MIT" in line for line in head):
                missing.append(f)
    assert not missing, f"no SPDX line in the first 3 lines of: {', '.join(missing)}"
    assert "MIT License" in (ROOT / "LICENSE").read_text() and "the mcucrypt authors" in (ROOT / "LICENSE").read_text()



def test_project_url_comes_from_the_remote_without_credentials(monkeypatch):
    import mcucrypt.export as ex

    def remote(url: str):
        return lambda *a, **k: subprocess.CompletedProcess(a, 0 if url else 2, stdout=url + "\n", stderr="")
    for url, want in (("https://user:token@github.com/me/fw.git", "https://github.com/me/fw"),
                      ("git@github.com:me/fw.git", "https://github.com/me/fw"),
                      ("https://gitlab.example/me/fw", "https://gitlab.example/me/fw"),
                      ("/srv/git/fw", None), ("", None)):
        monkeypatch.setattr(ex.subprocess, "run", remote(url))
        assert ex.project_url() == want, url


def test_output_into_a_closed_pipe_ends_quietly():
    """`mcucrypt list --json | head -1`: the reader leaves after one line, with most of the 150 KB still to
    come (more than a pipe holds). The command stops without a traceback, with status 141 (as if killed by
    SIGPIPE). The handler is in cli.main, around every subcommand."""
    proc = subprocess.Popen([*CLI, "list", "--json"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "["
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and "Traceback" not in err and "BrokenPipe" not in err, err


# ------------------------------------------------------------------------------- size-aware export

def test_export_refuses_a_selection_that_does_not_fit_and_names_it(tmp_path):
    """LEA avr-fast's three key sizes (about 51 KB) in an Uno's 32,256 bytes of flash; X25519's stack in 64
    bytes of SRAM: exit 2, one line naming what does not fit, nothing left behind."""
    out = tmp_path / "x"
    proc = subprocess.run([*CLI, "export", "--target", "avr", "--prim", "lea", "--impl", "avr-fast", "--flash", "32256",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, env=ENV)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert "does not fit 32,256 bytes of flash" in line and "lea avr-fast" in line, line
    assert not out.exists()
    proc = subprocess.run([*CLI, "export", "--target", "avr", "--prim", "lea128", "--impl", "avr-fast", "--sram", "16",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, env=ENV)
    assert proc.returncode == 2 and "lea128 (avr-fast) does not fit 16 bytes of SRAM" in proc.stderr, proc.stderr
    # The part's own budget: the ATmega128's 128 KiB hold it, and the listing gives each family's size.
    proc = run([*CLI, "export", "--target", "avr", "--prim", "lea", "--impl", "avr-fast", "--out", str(out)])
    m = re.search(r"lea avr-fast: ([\d,]+) bytes of code", proc.stdout)
    assert m and 30_000 < int(m.group(1).replace(",", "")) < 131_072, proc.stdout
    assert "of 131,072 bytes of flash in all" in proc.stdout
    manifest = json.loads((out / "mcucrypt-export.json").read_text())
    assert manifest["units"][0]["code_bytes"] == int(m.group(1).replace(",", ""))
    assert "code B (family)" in (out / "README.md").read_text()


def test_optimize_size_chooses_the_smallest_and_reports_progress(tmp_path):
    """LEA-128 on the ATmega128: speed picks avr-fast (unrolled, about 12 KB), size picks ref (about 2 KB);
    each candidate is announced on stderr while it is measured."""
    for optimize, want in (("speed", "avr-fast"), ("size", "ref")):
        proc = run([*CLI, "export", "--target", "avr", "--prim", "lea128", "--optimize", optimize,
                    "--out", str(tmp_path / optimize)])
        assert re.search(rf"^lea128: {want} \(", proc.stdout, re.M), proc.stdout
        assert "mcucrypt: measuring lea128: ref (1 of 2)" in proc.stderr and "avr-fast (2 of 2)" in proc.stderr
    sizes = {o: json.loads((tmp_path / o / "mcucrypt-export.json").read_text())["code_bytes"] for o in ("speed", "size")}
    assert sizes["size"] < sizes["speed"], sizes


# ----------------------------------------------------------------------------- API reference shipped

def test_api_reference_tables_are_rectangular_and_notes_fit_the_family():
    text = (ROOT / "docs" / "api.md").read_text()
    for table in re.findall(r"(?:^\|.*\|\n)+", text, re.M):
        rows = table.strip().splitlines()
        widths = {r.count("|") for r in rows}
        assert len(widths) == 1, rows[:3]
    ascon_aead = text.split("### asconaead128 (aead)", 1)[1].split("###", 1)[0]
    assert "fixednonce" not in ascon_aead and "wipe_state" not in ascon_aead and "tinyjambu" not in ascon_aead
    assert "**Nonce**" in ascon_aead and "pass NULL" in ascon_aead
    tj = text.split("## tinyjambu", 1)[1].split("\n## ", 1)[0]
    assert "**Nonce**" in tj and "2^32" in tj and "fixednonce" in tj


def test_export_ships_its_api_reference_and_documents_every_function(tmp_path):
    export("avr", tmp_path / "lib", prims=["tinyjambu128", "lea128", "x25519"],
           impl=["tinyjambu=avr-fast", "lea=avr-fast", "x25519=avr-fast"])
    api = (tmp_path / "lib" / "API.md").read_text()
    assert "## tinyjambu" in api and "## lea" in api and "## x25519" in api and "## aes" not in api
    assert "| tinyjambu128 | avr-fast |" in api and "ref-normal" not in api
    for h in (tmp_path / "lib" / "src" / "mcucrypt").glob("*_avr_fast.h"):
        lines = h.read_text().splitlines()
        for n, line in enumerate(lines):
            if re.match(r"^(void|int) mcu_\w+\(", line):
                assert lines[n - 1].endswith("*/"), f"{h.name}: no doc comment before {line}"
                doc = " ".join(lines[max(0, n - 8):n])
                assert "Returns" in doc, f"{h.name}: {line}"
    tj = (tmp_path / "lib" / "src" / "mcucrypt" / "tinyjambu_avr_fast.h").read_text()
    assert "nsec: unused, pass NULL" in tj and "Returns 0 when the tag verifies; -1 otherwise" in tj
    assert "Nonces: TinyJAMBU" in tj
    tc = (tmp_path / "lib" / "cmake" / "toolchain.cmake").read_text()
    assert "/usr/bin" not in tc and "find_program(CMAKE_AR NAMES avr-gcc-ar avr-ar" in tc
