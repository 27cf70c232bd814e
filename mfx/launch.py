"""How a local run of several sweeps uses the cores it sees (issue 40): processes, threads, or neither.

`mfx run experiment=all` picks, for each sweep whose launch the user left open (no `hydra/launcher=`
or `runtime.threads=`), from its pending jobs' estimated seconds (the dry run's estimates) and the
cores:
- **serial**, one thread, when there is one core or the sweep's pending work is under `SMALL` seconds
  (a joblib worker pays ≈ 2 s of interpreter and torch start-up before its first job);
- **threads** (`runtime.threads=cores`, the basic launcher) when one job is at least half of the
  pending work: processes would leave the other cores idle beside it, threads speed up every job;
- **processes** (`hydra/launcher=joblib`, one thread each, as many as cores and pending jobs) otherwise:
  the jobs are independent and small tensors do not fill several threads.
A rule on the estimates, not a tuned model; the choice is printed with the sweep's progress line.
"""

from __future__ import annotations

import importlib.util
import os

SMALL = 20.0  # seconds of pending work below which starting worker processes does not pay


def cores() -> int:
    """The cores this process may use (the affinity mask: a SLURM or taskset allocation), not the box's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def user_chose(overrides: list[str]) -> bool:
    """Whether the user set the launch: a launcher group or a thread count among the overrides."""
    keys = {o.split("=", 1)[0].lstrip("+~") for o in overrides}
    return bool(keys & {"hydra/launcher", "runtime.threads", "hydra.launcher.n_jobs"})


def choose(seconds: list[float], ncores: int) -> tuple[str, list[str]]:
    """(what was chosen, in words; the overrides that make it) for pending jobs of `seconds` each."""
    total = sum(seconds)
    if ncores < 2 or not seconds or total < SMALL:
        return "serial", []
    if len(seconds) == 1 or max(seconds) >= total / 2:
        return f"{ncores} threads", [f"runtime.threads={ncores}"]
    if importlib.util.find_spec("hydra_plugins.hydra_joblib_launcher") is None:  # the `parallel` extra
        return f"{ncores} threads (no joblib launcher: pip install 'mfx[parallel]')", [
            f"runtime.threads={ncores}"
        ]
    n = min(ncores, len(seconds))
    return f"{n} processes", ["hydra/launcher=joblib", f"hydra.launcher.n_jobs={n}"]
