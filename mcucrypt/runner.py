# SPDX-License-Identifier: MIT
"""Run a sweep's jobs in local worker processes, or on an existing Dask cluster (``--scheduler ADDRESS``).

Either way each job is one call of a module-level function (so it can be sent to another process or
machine) and ``on_done`` sees each result as it arrives, in the caller's process, so the caller can
journal it at once. The same function runs in both cases, so the results are the same.

Stopping: SIGINT (Ctrl-C, or sent to the whole process group) and SIGTERM raise KeyboardInterrupt in
the caller only. Local workers ignore SIGINT (a KeyboardInterrupt raised inside a simulator's ctypes
callback is swallowed there, and the worker would go on for minutes); the caller kills them, so every
worker is gone well within 2 seconds. On a cluster the unfinished jobs are cancelled.
"""
from __future__ import annotations

import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence

from .resultfile import code_identity
from .targets import ROOT

DASK_CONNECT_TIMEOUT = "10s"


class RunnerError(Exception):
    """A cluster that cannot be reached or runs other code, or a worker process that died."""


def _ignore(signum: int, frame: Any) -> None:
    pass


def _worker_init() -> None:
    # The parent decides when workers stop (it kills them). A handler that does nothing, not SIG_IGN:
    # an ignored signal stays ignored across exec, and the compilers a worker starts must still die on
    # Ctrl-C with the rest of the process group.
    signal.signal(signal.SIGINT, _ignore)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run_jobs(fn: Callable[[Any], Any], jobs: Sequence[Any], *, workers: int | None = None,
             scheduler: "str | DaskCluster | None" = None,
             on_done: Callable[[Any, Any], None] | None = None) -> list[Any]:
    """``[fn(job) for job in jobs]``, computed in parallel: in ``workers`` local processes (default one
    per core), or on a Dask cluster (``scheduler``: its address, or a DaskCluster already connected).
    ``on_done(job, result)`` is called in this process as each job finishes. KeyboardInterrupt (SIGINT, SIGTERM) stops every worker
    and propagates; RunnerError when a worker dies or the cluster cannot be used."""
    results: list[Any] = [None] * len(jobs)

    def finished(n: int, result: Any) -> None:
        results[n] = result
        if on_done:
            on_done(jobs[n], result)

    if not jobs:
        return results
    previous = signal.getsignal(signal.SIGTERM)
    in_main_thread = _is_main_thread()
    if in_main_thread:
        signal.signal(signal.SIGTERM, _raise_interrupt)   # a batch system's stop: the same clean stop
    try:
        if isinstance(scheduler, DaskCluster):
            scheduler.run(fn, jobs, finished)
        elif scheduler:
            with DaskCluster(scheduler) as cluster:
                cluster.run(fn, jobs, finished)
        else:
            _run_local(fn, jobs, workers or os.cpu_count() or 1, finished)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)
    return results


def _is_main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


def _run_local(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int,
               finished: Callable[[int, Any], None]) -> None:
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=_worker_init)
    try:
        pending = {pool.submit(fn, job): n for n, job in enumerate(jobs)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                n = pending.pop(fut)
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    raise RunnerError(f"a worker process died (signal or crash) while running {jobs[n]}") from None
                finished(n, result)
    except BaseException:
        _kill_workers(pool)
        raise
    pool.shutdown(wait=True)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now: cancel what has not started, kill what runs (SIGKILL: a worker inside a
    simulator call does not return to Python for minutes), and reap them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    main = _is_main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None   # a second Ctrl-C must
    try:                                                                        # not cut this short
        _kill(pool, procs)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _kill(pool: ProcessPoolExecutor, procs: list) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError):
            pass
    for p in procs:
        try:
            p.join(2)
        except (OSError, ValueError, AssertionError):
            pass


def _worker_code_identity() -> str:
    from .targets import ROOT as worker_root    # the worker's own checkout
    return code_identity(worker_root)


class DaskCluster:
    """A connection to an existing Dask cluster whose workers run this very code: made (and checked)
    before a sweep starts, so a wrong address or a worker on another commit is refused before any job."""

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise RunnerError("--scheduler needs the 'distributed' package (pip install distributed)") from None
        self.address = address
        try:
            self.client = Client(address, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise RunnerError(f"cannot reach the Dask scheduler at {address}: {why}") from None
        try:
            mine = code_identity(ROOT)
            theirs = self.client.run(_worker_code_identity)
            if not theirs:
                raise RunnerError(f"the Dask cluster at {address} has no workers")
            for addr, ident in theirs.items():
                if ident != mine:
                    raise RunnerError(f"Dask worker {addr} runs other mcucrypt code ({ident}; here: {mine}): "
                                      f"its figures would differ; start the workers from a checkout of the same "
                                      f"commit and changes")
        except BaseException:
            self.close()
            raise

    def run(self, fn: Callable[[Any], Any], jobs: Sequence[Any], finished: Callable[[int, Any], None]) -> None:
        from distributed import as_completed
        futures = [self.client.submit(fn, job, pure=False) for job in jobs]
        index = {f.key: n for n, f in enumerate(futures)}
        try:
            for fut in as_completed(futures, loop=self.client.loop):
                n = index[fut.key]
                try:
                    result = fut.result()
                except Exception as e:  # only a worker's death gets here: the job functions catch their own
                    raise RunnerError(f"job {jobs[n]} failed on the Dask cluster: {type(e).__name__}: {e}") from None
                finished(n, result)
        except BaseException:
            try:
                self.client.cancel(futures)
            except Exception:
                pass
            raise

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass

    def __enter__(self) -> "DaskCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
