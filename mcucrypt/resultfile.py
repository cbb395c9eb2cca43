# SPDX-License-Identifier: MIT
"""Results files that are never lost: checked before a run, locked while it runs, written whole, journaled.

A sweep (`mcucrypt bench`) can run for hours. Everything here exists so that none of that work is lost:

- ``check_output_file``: the output path is checked before any job starts (a folder, a non-regular file,
  a folder we cannot create a file in, /proc: one clear error, not a traceback after the run).
- ``ResultsLock``: one run at a time per results file (an advisory ``flock`` on ``<file>.lock`` beside it;
  a second run refuses at once and names the holder's pid).
- ``atomic_write_text``: a temporary file in the same folder, fsync'd, then renamed over the target: a
  reader sees the old file or the new one, never half of one.
- ``Journal``: ``<file>.journal``, JSON lines appended (and fsync'd) as each job finishes. An interrupted
  or failed run leaves it behind; ``--resume`` reads it back and runs only the jobs it lacks; a finished
  run removes it once the results file is written.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

JOURNAL_FORMAT = 1


class ResultsFileError(Exception):
    """A results file that cannot be written, is locked by another run, or a journal that cannot be resumed."""


def check_output_file(path: Path, what: str = "results file") -> Path:
    """``path`` as a file this process can replace atomically (its folder created if missing), or
    ResultsFileError saying why not. Proven by creating and removing a file in its folder: permissions,
    read-only mounts and pseudo file systems (/proc, /sys) all fail that probe."""
    path = Path(path)
    if path.is_dir():
        raise ResultsFileError(f"{what} {path} is a folder: name a file in it")
    if path.exists() and not path.is_file():
        raise ResultsFileError(f"{what} {path} is not a regular file")
    if path.exists() and not os.access(path, os.W_OK):
        raise ResultsFileError(f"{what} {path} is read-only")
    folder = path.parent
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not existing.is_dir():
        raise ResultsFileError(f"{what} {path}: {existing} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ResultsFileError(f"{what} {path}: cannot create its folder {folder} ({e.strerror or e})") from None
    if not folder.is_dir():
        raise ResultsFileError(f"{what} {path}: {folder} is not a folder")
    probe = folder / f".{path.name}.{os.getpid()}.probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        raise ResultsFileError(f"{what} {path}: cannot write in {folder} ({e.strerror or e})") from None
    return path


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename: the file is
    either the old one or the new one, never a mixture, even if the process dies mid-write."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)   # the umask decides, as for open()
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class ResultsLock:
    """An exclusive lock on a results file for one run: ``<file>.lock`` beside it, held with ``flock`` (so
    a run that dies releases it) and removed on release. A second run refuses at once, naming the first."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> "ResultsLock":
        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                if e.errno in (errno.EAGAIN, errno.EACCES):
                    raise ResultsFileError(f"another mcucrypt run (pid {holder}) is writing {self.path}: "
                                           f"wait for it to finish, or name another file") from None
                raise
            # The holder before us may have removed the file between our open and our flock: then we
            # hold a lock on a name nobody else sees. Start over on the file now at that path.
            try:
                same = os.stat(self.lock_path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        self.lock_path.unlink(missing_ok=True)   # while still held: no one can be waiting on this inode
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> "ResultsLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def code_identity(root: Path) -> str:
    """What the figures of a checkout depend on, as one string: its commit and a hash of its uncommitted
    changes to tracked files ('unknown' outside git). Two runs with the same identity measure the same code."""
    def git(*args: str) -> bytes:
        return subprocess.run(["git", *args], capture_output=True, cwd=root, check=True).stdout
    try:
        commit = git("rev-parse", "HEAD").decode().strip()
        diff = git("diff", "HEAD", "--no-ext-diff", "--binary")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("" if not diff else "+dirty-" + hashlib.sha256(diff).hexdigest()[:12])


class Journal:
    """The finished jobs of one run, appended as each finishes: ``<results file>.journal``, JSON lines.

    Line 1 is a header naming the run's jobs and the code identity; each further line is one finished job
    and its records. A line cut short by a crash (the last one) is ignored: that job runs again."""

    def __init__(self, results: Path) -> None:
        self.path = Path(results).with_name(Path(results).name + ".journal")
        self.done: dict[tuple, list[dict]] = {}
        self._file: Any = None

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self, jobs: Sequence[tuple], identity: str) -> dict[tuple, list[dict]]:
        """Read an earlier run's journal for resuming ``jobs`` at code ``identity``: the finished jobs'
        records by job key. ResultsFileError when it belongs to another selection or other code."""
        try:
            lines = self.path.read_text().split("\n")
        except OSError as e:
            raise ResultsFileError(f"{self.path}: cannot read ({e.strerror or e})") from None
        try:
            header = json.loads(lines[0])
            if not isinstance(header, dict) or header.get("mcucrypt_journal") != JOURNAL_FORMAT:
                raise ValueError("not an mcucrypt journal")
        except ValueError as e:
            raise ResultsFileError(f"{self.path}: not an mcucrypt journal ({e}): remove it to start over") from None
        theirs = {tuple(j) for j in header.get("jobs", [])}
        if theirs != set(jobs):
            raise ResultsFileError(f"{self.path} is of another selection ({len(theirs)} jobs, this run has "
                                   f"{len(jobs)}): resume with the same options, or remove it to start over")
        if header.get("code") != identity:
            raise ResultsFileError(f"{self.path} was made by other code or settings ({header.get('code')}; this "
                                   f"run: {identity}): the figures would mix two versions; remove it to start over")
        body = lines[1:]
        while body and not body[-1].strip():
            body.pop()
        for n, line in enumerate(body, 2):
            try:
                entry = json.loads(line)
                key = tuple(entry["job"])
                records = entry["records"]
                if key not in theirs or not isinstance(records, list):
                    raise ValueError("unknown job")
            except (ValueError, KeyError, TypeError) as e:
                if n == len(body) + 1:      # the last line, cut short when the run died: run that job again
                    break
                raise ResultsFileError(f"{self.path}, line {n}: damaged ({e}): remove it to start over") from None
            self.done[key] = records
        return self.done

    def open(self, jobs: Iterable[tuple], identity: str, *, resume: bool) -> None:
        """Start appending. A fresh run writes the header; a resumed one rewrites the journal with what
        it keeps (so a damaged last line does not stay in the middle) and continues it."""
        header = {"mcucrypt_journal": JOURNAL_FORMAT, "code": identity, "jobs": [list(j) for j in jobs]}
        text = json.dumps(header) + "\n"
        if resume:
            text += "".join(json.dumps({"job": list(k), "records": v}) + "\n" for k, v in self.done.items())
        atomic_write_text(self.path, text)
        self._file = open(self.path, "a")

    def add(self, key: tuple, records: list[dict]) -> None:
        self.done[key] = records
        self._file.write(json.dumps({"job": list(key), "records": records}) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
