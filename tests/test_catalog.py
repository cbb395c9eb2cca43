"""The one generic test: every implementation in the catalog, on every target it claims, against its
official vectors and the independent model on random inputs; the constant-time checker on the board
for every implementation that claims constant time; the host sanitizer build for every C one."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mcucrypt import ct
from mcucrypt.bench import Job, select_jobs
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware
from mcucrypt.kinds.base import driver_for
from mcucrypt.sanitize import sanitizer_env
from mcucrypt.targets import ROOT, TARGETS

CATALOG = load_catalog()
JOBS = select_jobs(CATALOG, targets=list(TARGETS))


def _id(job: Job) -> str:
    return f"{job.prim}-{job.impl}-{job.target}"


@pytest.fixture(scope="module")
def firmware_cache() -> dict[Job, Firmware]:
    return {}


def _firmware(cache: dict[Job, Firmware], job: Job) -> Firmware:
    if job not in cache:
        cache[job] = Firmware(CATALOG.implementation(job.prim, job.impl), job.prim, job.target)
    return cache[job]


@pytest.mark.parametrize("job", JOBS, ids=_id)
def test_vectors(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    fw = _firmware(firmware_cache, job)
    driver = driver_for(fw.impl.primitive.kind)
    vectors = driver.vectors(fw.impl.primitive, job.prim)
    assert vectors, f"{job.prim} has no official vectors"
    for v in vectors:
        driver.check_vector(fw, v)


@pytest.mark.parametrize("job", JOBS, ids=_id)
def test_matches_model(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    fw = _firmware(firmware_cache, job)
    driver = driver_for(fw.impl.primitive.kind)
    assert driver.differential(fw, random.Random(f"model/{_id(job)}"), driver.default_trials) > 0


CT_JOBS = [j for j in JOBS if j.target != "host" and CATALOG.implementation(j.prim, j.impl).constant_time]


@pytest.mark.parametrize("job", CT_JOBS, ids=_id)
def test_constant_time_claim(job: Job, firmware_cache: dict[Job, Firmware]) -> None:
    report = ct.check(_firmware(firmware_cache, job), trials=8)
    assert report.verdict == "pass", report.summary()


C_IMPLS = sorted({(j.prim, j.impl) for j in JOBS if j.target == "host"})


@pytest.mark.parametrize("prim,impl", C_IMPLS, ids=[f"{p}-{i}" for p, i in C_IMPLS])
def test_host_sanitizers(prim: str, impl: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.sanitize", prim, impl], cwd=ROOT,
                          env=sanitizer_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
