# SPDX-License-Identifier: MIT
"""The one generic test: every implementation in the catalog, on every target it claims, against its
official vectors and the independent model on random inputs; the constant-time checker on the board
for every implementation that claims constant time; the host sanitizer build for every C one."""
from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from mcucrypt import ct
from mcucrypt.boards.base import Buf
from mcucrypt.bench import Job, select_jobs
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for, representative
from mcucrypt.sanitize import sanitizer_env
from mcucrypt.targets import ROOT, TARGETS

CATALOG = load_catalog()
FULL = os.environ.get("MCUCRYPT_FULL", "") not in ("", "0")


def _jobs(test: str) -> list[Job]:
    """The jobs of one test: all with MCUCRYPT_FULL=1, else the default run's representative subset
    (KindDriver.in_default_run: the public-key schemes' portable C and differential test on the host, their
    vectors and constant-time check on every board through the core's own implementation). A job left
    out is not collected, so no skip stands for a pass."""
    def kept(job: Job) -> bool:
        prim = CATALOG.by_id(job.prim)
        return driver_for(prim.kind).in_default_run(prim, job.prim, job.impl, job.target, test)
    return [j for j in ALL_JOBS if FULL or kept(j)]


ALL_JOBS = select_jobs(CATALOG, targets=list(TARGETS))
JOBS = _jobs("vectors")


def _id(job: Job) -> str:
    return f"{job.prim}-{job.impl}-{job.target}"


@pytest.fixture(scope="module")
def firmware_cache() -> dict[Job, Firmware]:
    return {}


def _firmware(cache: dict[Job, Firmware], job: Job) -> Firmware:
    if job not in cache:
        cache[job] = Firmware(CATALOG.implementation(job.prim, job.impl), job.prim, job.target)
    return cache[job]


def _on_board_by_default(fw: Firmware) -> bool:
    """A board job of the default run: at most the kind's board_test_vectors official vectors (a
    representative subset: the ends, every class, evenly spaced ones; the bench's KAT verdict runs them
    all on every board) and board_test_trials differential cases (KindDriver)."""
    return fw.target != "host" and not FULL


@pytest.mark.parametrize("job", JOBS, ids=_id)
def test_vectors(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    fw = _firmware(firmware_cache, job)
    driver = driver_for(fw.impl.primitive.kind)
    vectors = driver.default_selection(fw)
    if _on_board_by_default(fw):
        vectors = representative(vectors, driver.board_test_vectors)
    assert driver.check_vectors(fw, vectors) > 0, f"{job.prim} has no official vectors"


@pytest.mark.parametrize("job", _jobs("model"), ids=_id)
def test_matches_model(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    fw = _firmware(firmware_cache, job)
    driver = driver_for(fw.impl.primitive.kind)
    trials = driver.default_trials
    if _on_board_by_default(fw) and driver.board_test_trials is not None:
        trials = driver.board_test_trials
    assert driver.differential(fw, random.Random(f"model/{_id(job)}"), trials) > 0


CT_JOBS = [j for j in _jobs("ct") if j.target != "host" and CATALOG.implementation(j.prim, j.impl).constant_time
           and (FULL or not driver_for(CATALOG.by_id(j.prim).kind).ct_full_only(j.prim, j.impl, j.target))]
# Issue 33's coverage gaps still open: "<id> <impl> <target>: <function> ..." per line (docs/constant-time.md,
# "Path coverage"). A gap closes by a case that reaches the code or a ct_unreached reason in META.yml; the
# test then fails until its line goes. No line is ever added: new code is covered or says why not.
OPEN_COVERAGE_FILE = ROOT / "tests" / "ct_coverage_open.txt"
OPEN_COVERAGE = {line.split(":")[0]: set(line.split(":", 1)[1].split())
                 for line in OPEN_COVERAGE_FILE.read_text().splitlines() if line and not line.startswith("#")}


@pytest.mark.parametrize("job", CT_JOBS, ids=_id)
def test_constant_time_claim(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    """Taint mode on every board that tracks taint (one run finds any leak on the path), trace
    comparison elsewhere. The seed is fresh and in the message, so a trace-mode failure can be rerun."""
    fw = _firmware(firmware_cache, job)
    report = ct.check(fw, trials=ct.TRIALS_IN_TEST)
    assert report.mode == ("taint" if fw.board.supports_taint else "trace")
    assert report.verdict == "pass", report.summary()
    # No wall-clock bound here: timed unit tests fail on a loaded machine and prove nothing about the
    # engine. The measured taint speed per board and engine is in docs/constant-time.md (Taint mode).
    # path coverage, from the same run: every own instruction executed, or the reason in META.yml
    assert report.coverage is not None and report.coverage.instructions > 0, report.summary()
    missing = {u.function for u in report.coverage.undocumented()}
    known = OPEN_COVERAGE.get(f"{job.prim} {job.impl} {job.target}")
    if known is None:
        assert not missing, (f"code of its own functions left unexecuted under ct without a reason in META.yml "
                             f"ct_unreached:\n{report.summary()}")
    else:
        assert missing, f"covered now: remove its line from {OPEN_COVERAGE_FILE.name}"
        assert missing <= known, f"new unreached code beyond the open gap {sorted(known)}:\n{report.summary()}"


C_IMPLS = sorted({(j.prim, j.impl) for j in JOBS if j.target == "host"})


@pytest.mark.parametrize("prim,impl", C_IMPLS, ids=[f"{p}-{i}" for p, i in C_IMPLS])
def test_host_sanitizers(prim: str, impl: str) -> None:
    # the default run: the representative subset of the official vectors (all with MCUCRYPT_FULL=1)
    subset = [] if FULL else ["--representative"]
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.sanitize", prim, impl, *subset], cwd=ROOT,
                          env=sanitizer_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


BLOCK_JOBS = [j for j in JOBS if CATALOG.implementation(j.prim, j.impl).primitive.kind == "blockcipher"]


@pytest.mark.parametrize("job", BLOCK_JOBS, ids=_id)
def test_block_cipher_byte_pointers_need_no_alignment(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    """Key, input and output are `uint8_t *`: every implementation must take them at any address (the
    E31 traps on a misaligned word access, so assembly needs byte paths for them)."""
    fw = _firmware(firmware_cache, job)
    p = fw.params
    rng = random.Random(f"unaligned/{_id(job)}")
    key, block = rng.randbytes(p["key_bytes"]), rng.randbytes(p["block_bytes"])
    rk = fw.call("keyschedule", {"rk": Buf(size=p["rk_bytes"], out=True), "key": Buf(key)}).outputs[0]
    rk_odd = fw.call("keyschedule", {"rk": Buf(size=p["rk_bytes"], out=True), "key": Buf(key, misalign=3)}).outputs[0]
    assert rk_odd == rk
    want = fw.call("encrypt", {"out": Buf(size=p["block_bytes"], out=True), "in": Buf(block), "rk": Buf(rk)}).outputs[0]
    for shift in (1, 2, 3):
        got = fw.call("encrypt", {"out": Buf(size=p["block_bytes"], out=True, misalign=shift),
                                  "in": Buf(block, misalign=4 - shift), "rk": Buf(rk)}).outputs[0]
        assert got == want, f"misaligned by {shift}"
