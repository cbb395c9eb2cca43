# SPDX-License-Identifier: MIT
"""Stack hygiene (issue 34, docs/constant-time.md "Stack hygiene"): after every call that handles a secret,
the stack the call used holds nothing the call wrote.

For every constant-time implementation on every board, the kind driver's secret calls (its constant-time
cases, and the benchmark's call of any secret operation those leave out, such as x25519_base) run on the
MCU_STACK_WIPE image, the build the exported library uses by default. After each call the board reads the
stack region below the caller's stack pointer (``CallResult.stack_left``): every byte must be zero or the
paint laid down before the call. That criterion is strict on purpose: it does not guess what a fragment
of a key looks like (a round key, a masked word, one limb of a field element), it requires that nothing
survives. The same call on the plain image must give the same outputs (the wrapper forwards registers and
stack arguments unchanged) and a stack depth the table of measured depths covers.

Runtime: the default run (every constant-time assembly implementation on its board and the portable C
on the AVR, for the first id of each family and kind, and the exported library: `_in_default_run`) is
131 tests; MCUCRYPT_FULL=1 runs every id of every implementation on every board (382).
"""
from __future__ import annotations

import os
import subprocess

import pytest

from mcucrypt import stackwipe
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.targets import ROOT

CATALOG = load_catalog()
JOBS = stackwipe.constant_time_jobs(CATALOG)
FULL = os.environ.get("MCUCRYPT_FULL") == "1"


def _first_of_its_kind(prim_id: str) -> bool:
    """lea128 but not lea192/lea256: the ids of a family share their routines' code and frames; a suite's
    ids of different kinds (Ascon's AEAD and hashes) each stay."""
    prim = CATALOG.by_id(prim_id)
    kind = lambda i: prim.instances[i].get("kind", prim.kind)      # noqa: E731
    return next(i for i in prim.instances if kind(i) == kind(prim_id)) == prim_id


def _portable_c(impl) -> bool:
    return all(str(src).endswith(".c") for src in impl.sources)


def _in_default_run(job) -> bool:
    """The default run keeps every assembly implementation on its board, for the first id of each family
    and kind; the portable C ones (the same source on every board, through the same three wrappers the
    assembly ones exercise) on the AVR only, whose 2-byte frames and copied stack arguments are the
    riskiest; X25519's portable C (two whole scalar multiplications per call pair, a minute a board) and
    the signature and KEM schemes' (their core implementations run the same C over the core's assembly),
    and ML-DSA (a signature is tens of millions of cycles; P-256 and Ed25519 keep the public-key schemes'
    wrappers in the default run) under MCUCRYPT_FULL=1 only."""
    prim_id, impl, target = job
    if not _first_of_its_kind(prim_id):
        return False
    if _portable_c(impl):
        return target == "avr" and prim_id != "x25519" and not driver_for(CATALOG.by_id(prim_id).kind).public_key
    return CATALOG.by_id(prim_id).name != "mldsa"


# Every constant-time implementation on every board for every id under MCUCRYPT_FULL=1; the default run
# is the subset above.
RESIDUE_JOBS = JOBS if FULL else [j for j in JOBS if _in_default_run(j)]


def _id(job) -> str:
    prim_id, impl, target = job
    return f"{prim_id}-{impl.name}-{target}"


def _left_message(fw: Firmware, op: str, args: dict, result) -> str:
    left = stackwipe.residue(result)
    found = stackwipe.fragments(result.stack_left, stackwipe.secret_inputs(fw.impl, op, args))
    return (f"{fw.prim_id} {fw.impl.name} {op} on {fw.target}: {len(left)} of the {len(result.stack_left)} stack "
            f"bytes the call used are neither zero nor paint after it returned"
            + (f"; 4-byte pieces of the secret inputs among them: {found}" if found else ""))


@pytest.mark.parametrize("job", RESIDUE_JOBS, ids=_id)
def test_secret_calls_leave_nothing_on_the_stack(job) -> None:
    prim_id, impl, target = job
    plain = Firmware(impl, prim_id, target)
    wiped = stackwipe.wiped_firmware(impl, prim_id, target)
    calls = stackwipe.secret_calls(plain)
    assert {op for op, _ in calls} == set(stackwipe.secret_ops(impl, prim_id)), \
        "every operation with a secret parameter is called"
    table = stackwipe.load_table()
    for op, args in calls:
        want, got = plain.call(op, args), wiped.call(op, args)
        void = impl.functions[op].ret == "void"     # a void function's return register is whatever it left
        assert (got.outputs, void or got.return_value) == (want.outputs, void or want.return_value), \
            f"{op}: the wrapper changed what the call computes"
        key = stackwipe.table_key(target, prim_id, impl, op)
        assert table[key] >= want.stack_bytes, (
            f"{key} used {want.stack_bytes} stack bytes, the table says {table[key]}: run "
            f"`python -m mcucrypt.stackwipe --update --prim {prim_id} --target {target}`")
        assert not stackwipe.residue(got), _left_message(wiped, op, args, got)


@pytest.mark.parametrize("target", stackwipe.TARGETS)
def test_without_the_wipe_the_check_finds_the_key(target) -> None:
    """The plain routines (what the library was before MCU_STACK_WIPE) leave pieces of the AEAD key on the
    stack, and the check reports them: the test above can fail."""
    impl = CATALOG.implementation("asconaead128", "ref")
    fw = Firmware(impl, "asconaead128", target)
    op, args = next((op, a) for op, a in stackwipe.secret_calls(fw) if op == "aead_encrypt")
    result = fw.call(op, args)
    assert stackwipe.residue(result)
    assert "k" in stackwipe.fragments(result.stack_left, stackwipe.secret_inputs(impl, op, args))
    assert "4-byte pieces of the secret inputs among them: {'k'" in _left_message(fw, op, args, result)


def test_every_measured_depth_belongs_to_a_secret_operation() -> None:
    """The table holds exactly the secret operations of the constant-time implementations (no stale rows)."""
    want = {stackwipe.table_key(t, i, im, op) for i, im, t in JOBS for op in stackwipe.secret_ops(im, i)}
    assert set(stackwipe.load_table()) == want


# The wrappers assemble for the other parts of each architecture the library is built for: the ATmega2560
# (3-byte return addresses: the copy offset and the scaled wipe), an AVR without CALL (rcall), the
# Cortex-M4 (ARMv7E-M) and RV32 without the C extension.
OTHER_PARTS = [("avr", "avr-gcc", ["-mmcu=atmega2560"]), ("avr", "avr-gcc", ["-mmcu=atmega88"]),
               ("armv7m", "arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb"]),
               ("rv32", "riscv64-unknown-elf-gcc", ["-march=rv32i", "-mabi=ilp32"])]


@pytest.mark.parametrize("target,cc,arch", OTHER_PARTS, ids=[" ".join(a) for _, _, a in OTHER_PARTS])
def test_wrappers_assemble_for_other_parts(tmp_path, target, cc, arch) -> None:
    impl = next(im for i, im, t in JOBS if i == "asconaead128" and t == target)
    src = tmp_path / "wipe.S"
    src.write_text(stackwipe.wrapper_source(impl, ["asconaead128"], target))
    obj = tmp_path / "wipe.o"
    subprocess.run([cc, *arch, f"-I{ROOT / 'include'}", f"-D{stackwipe.DEFINE}", "-c", str(src), "-o", str(obj)],
                   check=True, capture_output=True, text=True)
    nm = subprocess.run([cc.replace("gcc", "nm"), str(obj)], check=True, capture_output=True, text=True).stdout
    assert f"T {impl.symbol('asconaead128', 'aead_encrypt')}" in nm


# ----------------------------------------------------------------------- the exported library, as built

# One export per board (a family with C modes over an assembly permutation, stack-passed arguments on
# every ABI), built by its own Makefile with its default flags and with -Os -flto (how Arduino builds).
EXPORTS = [("rv32", "rv32-fast"), ("armv7m", "armv7m-bi32"), ("avr", "avr-compact")]
LINK = {
    "rv32": ["-march=rv32imac", "-mabi=ilp32", "-nostdlib", "-nostartfiles", "-T", "boards/rv32/link.ld",
             "boards/rv32/start.S", "boards/common/mini_libc.c", "-lgcc"],
    "armv7m": ["-mcpu=cortex-m3", "-mthumb", "-nostdlib", "-nostartfiles", "-T", "boards/armv7m/link.ld",
               "boards/armv7m/start.S", "boards/common/mini_libc.c", "-lgcc"],
    "avr": ["-mmcu=atmega128", "boards/avr/start.c"],
}
CC = {"rv32": "riscv64-unknown-elf-gcc", "armv7m": "arm-none-eabi-gcc", "avr": "avr-gcc"}


BUILDS = [("", True), ("-Os -flto", True), ("-DMCU_STACK_WIPE=0", False)]


@pytest.mark.parametrize("cflags,wiped", BUILDS, ids=["default", "Os-flto", "opted-out"])
@pytest.mark.parametrize("target,impl_name", EXPORTS, ids=[t for t, _ in EXPORTS])
def test_exported_library_wipes_its_stack(tmp_path, target, impl_name, cflags, wiped) -> None:
    """Built with -DMCU_STACK_WIPE=0 the library is the plain routines under their public names (and
    leaves its stack as the routines used it: the option does what it says in both directions)."""
    from mcucrypt.export import CFLAGS, export
    lib = tmp_path / "lib"
    manifest = export(target, lib, prims=["ascon"], impl=impl_name, allow_variable_time=True, url="https://x.invalid")
    assert all(u["stack_wipe"] for u in manifest["units"]), manifest
    make = ["make", "-s", "-C", str(lib)]
    if cflags:      # LTO objects need the archiver's LTO plugin: the compiler's gcc-ar wrapper
        make += [f"CFLAGS={' '.join(CFLAGS)} {cflags}", f"AR={CC[target]}-ar"]
    subprocess.run(make, check=True, capture_output=True, text=True)
    ids = manifest["units"][0]["ids"]
    symbols = [CATALOG.implementation(i, impl_name).symbol(i, op) for i in ids
               for op in stackwipe.secret_ops(CATALOG.implementation(i, impl_name), i)]
    elf = tmp_path / "lib.elf"
    lto = ["-flto", "-Os"] if "flto" in cflags else []
    subprocess.run([CC[target], *lto, *LINK[target], str(lib / "libmcucrypt.a"), "-Wl,--gc-sections",
                    *[f"-Wl,--undefined={s}" for s in symbols], "-o", str(elf)],
                   check=True, capture_output=True, text=True, cwd=ROOT)
    nm = subprocess.run([CC[target].replace("gcc", "nm"), str(elf)], check=True, capture_output=True,
                        text=True).stdout
    assert (stackwipe.BODY_SUFFIX in nm) == wiped
    left = []
    for prim_id in ids:
        impl = CATALOG.implementation(prim_id, impl_name)
        plain = Firmware(impl, prim_id, target)
        exported = Firmware(impl, prim_id, target)
        exported.board.load(elf, **({"isa": impl.isa} if target == "rv32" else {}))
        for op, args in stackwipe.secret_calls(plain):
            want, got = plain.call(op, args), exported.call(op, args)
            void = impl.functions[op].ret == "void"
            assert (got.outputs, void or got.return_value) == (want.outputs, void or want.return_value), \
                f"{prim_id} {op}"
            if wiped:
                assert not stackwipe.residue(got), _left_message(exported, op, args, got)
            left += [op] if stackwipe.residue(got) else []
    assert wiped or "aead_encrypt" in left
