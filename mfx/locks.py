"""Per-job locks: two sweeps started on one folder never compute the same job at once.

A lock is a file created atomically (O_CREAT | O_EXCL, never through a link) naming its owner:
host, pid, start time and, on SLURM, the job id.  The owner touches it every HEARTBEAT seconds.
A lock is stale, and taken over, when its owner is gone: a pid no longer running on this host,
a SLURM job no longer running (asked with `squeue`), or no heartbeat for STALE_SECONDS (a job
killed on another node, or a pid reused by another process).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import subprocess
import threading
import time
from pathlib import Path

LOCK = ".lock"
HEARTBEAT = 30.0
STALE_SECONDS = 10 * 60  # twenty missed heartbeats: the owner is gone
WAIT_SECONDS = 2 * HEARTBEAT  # how long a job locked by another live run waits for its result


def alive(pid: int) -> bool:
    """Whether process `pid` runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def slurm_job() -> str | None:
    """This process's SLURM job (array jobs as JOB_TASK), or None outside SLURM."""
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    return f"{array}_{task}" if array and task else os.environ.get("SLURM_JOB_ID")


def slurm_running(job: str) -> bool | None:
    """Whether SLURM job `job` is pending or running (None when squeue cannot tell)."""
    if not shutil.which("squeue"):
        return None
    try:
        r = subprocess.run(
            ["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:  # "Invalid job id specified": the job left the queue
        return False if "Invalid job id" in r.stderr else None
    return any(s in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING") for s in r.stdout.split())


def owner(path: Path) -> dict | None:
    """The lock's owner (host, pid, slurm_job, since), or None if it is unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd) as f:
            obj = json.loads(f.read(4096))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def _stale(path: Path) -> bool:
    try:
        age = time.time() - os.lstat(path).st_mtime
    except FileNotFoundError:
        return True
    who = owner(path)
    if who is None:
        return True  # unreadable or half-written by a killed process
    if age > STALE_SECONDS:
        return True
    job = who.get("slurm_job")
    if job and slurm_running(str(job)) is False:
        return True
    if who.get("host") == platform.node():
        try:
            return not alive(int(who.get("pid", -1)))
        except (TypeError, ValueError):
            return True
    return False


def describe(job_dir: Path) -> str:
    """Who holds the job's lock, in words."""
    who = owner(Path(job_dir) / LOCK) or {}
    job = f", SLURM job {who['slurm_job']}" if who.get("slurm_job") else ""
    return f"host {who.get('host', '?')}, pid {who.get('pid', '?')}{job}"


def _heartbeat(path: Path, stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT):
        with contextlib.suppress(OSError):
            os.utime(path, follow_symlinks=False)


@contextlib.contextmanager
def job_lock(job_dir: Path):
    """Yield True while this process holds the job's lock, False if another live owner does.
    A sweep's job folder is created by its caller without following links; a lock of a shared
    artifact (`cache/locks/…`) gets its folder here."""
    path = Path(job_dir) / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            if not _stale(path):
                yield False
                return
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            continue
        me = {"host": platform.node(), "pid": os.getpid(), "slurm_job": slurm_job(), "since": time.time()}
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(me, f)
        except OSError as e:  # a full disk: leave no half lock, name the file
            with contextlib.suppress(OSError):
                path.unlink()
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        stop = threading.Event()
        beat = threading.Thread(target=_heartbeat, args=(path, stop), daemon=True)
        beat.start()
        try:
            yield True
        finally:
            stop.set()
            beat.join()
            with contextlib.suppress(FileNotFoundError):
                if (owner(path) or {}).get("pid") == os.getpid():  # never remove a lock taken over
                    path.unlink()
        return
    yield False


def held(job_dir: Path) -> bool:
    """Whether another live owner holds the job's lock now."""
    path = Path(job_dir) / LOCK
    return os.path.lexists(path) and not _stale(path)
