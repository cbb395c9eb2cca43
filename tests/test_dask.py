# SPDX-License-Identifier: MIT
"""Sweeps on a cluster (issue 35, item 6): `bench --scheduler ADDRESS` runs the jobs on a Dask cluster
and writes the same records as local processes; a scheduler that cannot be reached is refused before
any job, in one line.

A local two-worker cluster (worker processes, as a real cluster has) stands in for a real one
(docs/cluster.md). Runtime: about 15 s.
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict

import dask
import pytest
from distributed import LocalCluster

from mcucrypt import bench, cli, runner
from mcucrypt.catalog import load_catalog
from mcucrypt.targets import ROOT

SELECTION = ["--prim", "lea128", "--impl", "ref", "--target", "avr", "--target", "armv7m"]


@pytest.fixture(scope="module")
def cluster():
    # Workers forked from this process start in a second, not the ten a fresh interpreter takes here.
    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c:
            yield c


def test_bench_on_a_cluster_writes_the_records_of_a_local_run(cluster, tmp_path) -> None:
    out = tmp_path / "dask.json"
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "bench", *SELECTION, "--json", str(out),
                           "--scheduler", cluster.scheduler_address], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    on_cluster = json.loads(out.read_text())["records"]
    jobs = bench.select_jobs(load_catalog(), ["lea128"], ["ref"], ["avr", "armv7m"])
    local = [{"schema_version": bench.SCHEMA_VERSION, **asdict(r)} for r in bench.run_bench(jobs, workers=2)]
    assert on_cluster == local and len(local) == 6
    # The jobs ran on the cluster's workers, not in the client.
    ran = cluster.scheduler.task_prefixes.get("job_safely")      # bench._job_safely, as Dask names it
    assert ran is not None and ran.all_durations.get("compute", 0) > 0, cluster.scheduler.task_prefixes


def test_a_cluster_of_other_code_is_refused(cluster, monkeypatch) -> None:
    monkeypatch.setattr(runner, "code_identity", lambda root: "0123abcd")     # this side claims another commit
    with pytest.raises(runner.RunnerError, match=r"Dask worker .* runs other mcucrypt code"):
        runner.DaskCluster(cluster.scheduler_address)


def test_an_unreachable_scheduler_is_refused_before_any_job(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT", "1s")
    monkeypatch.setattr(bench, "_job_safely", lambda job: pytest.fail(f"job {job} ran"))
    out = tmp_path / "r.json"
    status = cli.main(["bench", *SELECTION, "--json", str(out), "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert err[0].startswith("mcucrypt: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9"), err
    assert not list(tmp_path.iterdir())        # no results, no journal, no lock left


def test_ct_sweep_and_vector_sweep_on_a_cluster_match_local_processes(cluster, tmp_path) -> None:
    """`ct --all` and `test` (the vector sweep) take --scheduler too: the same records, the same verdicts."""
    from mcucrypt import sweeps
    out = tmp_path / "ct.json"
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "ct", "lea128", "--all", "--impl", "ref",
                           "--target", "avr", "--out", str(out), "--scheduler", cluster.scheduler_address],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    jobs = bench.select_jobs(load_catalog(), ["lea128"], ["ref"], ["avr"])
    local = sweeps.run_ct_sweep(jobs, trials=doc["trials"], seed=doc["seed"], mode=None, workers=1)
    assert doc["records"] == local and len(local) == 1 and local[0]["verdict"] == "pass"

    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "test", "--prim", "lea128", "--impl", "ref",
                           "--target", "avr", "--random", "2", "--scheduler", cluster.scheduler_address], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ok, detail = sweeps.vectors_job(jobs[0], 2)
    assert ok and f"PASS lea128 ref avr: {detail}" in proc.stdout.splitlines(), proc.stdout
