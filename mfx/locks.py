"""Per-job locks: two sweeps started on one folder never compute the same job at once.

A lock is a file created atomically (O_CREAT | O_EXCL) holding the owner's host and pid.  A lock
left by a killed process is stale: on the same host its pid no longer runs; from another host it
is older than STALE_SECONDS.  A stale lock is taken over; a live one makes the job skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import time
from pathlib import Path

LOCK = ".lock"
STALE_SECONDS = 24 * 3600


def alive(pid: int) -> bool:
    """Whether process `pid` runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale(path: Path) -> bool:
    try:
        owner = json.loads(path.read_text())
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return True  # unreadable or half-written by a killed process
    if owner.get("host") == platform.node():
        return not alive(int(owner.get("pid", -1)))
    return age > STALE_SECONDS


@contextlib.contextmanager
def job_lock(job_dir: Path):
    """Yield True while this process holds the job's lock, False if another live process does."""
    path = Path(job_dir) / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            if not _stale(path):
                yield False
                return
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            continue
        try:
            with os.fdopen(fd, "w") as f:
                json.dump({"host": platform.node(), "pid": os.getpid(), "since": time.time()}, f)
        except OSError as e:  # a full disk: leave no half lock, name the file
            with contextlib.suppress(OSError):
                path.unlink()
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        try:
            yield True
        finally:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return
    yield False


def held(job_dir: Path) -> bool:
    """Whether another live process holds the job's lock now."""
    path = Path(job_dir) / LOCK
    return path.exists() and not _stale(path)
