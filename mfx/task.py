"""One job of a sweep: the Hydra task function and what it writes, logs and warns.

`task(cfg)` runs the experiment at one grid point (all its seeds) and writes the job's files
(`results.write_job`).  Launchers (joblib, submitit) pickle `task` by reference, so a job process
imports this module and the experiments only — never matplotlib.  Planning a sweep (`mfx.sweep`)
needs none of this: a finished sweep resumes without loading torch.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from mfx import experiment as registry
from mfx import locks, results, runtime
from mfx.sweep import one_line

# Progress over the jobs of a sweep run in this process (basic launcher), set by mfx.runner: a bar whose
# total is the jobs' estimated seconds, and each job's estimate by its job hash (what it adds when it ends).
bar = None
costs: dict[str, float] = {}


def task(cfg: DictConfig) -> None:
    """One job: run the experiment at one grid point and write the job's files (results.write_job).

    A per-job lock keeps two sweeps on one folder from computing the same job; the completion
    marker is removed before a job is computed, so a kill at any moment leaves it to be rerun.
    Whatever fails inside a job (a numerical failure the experiment did not turn into `diverged`
    rows, a full disk, a bug) is one line on stderr: the job stays incomplete, resume reruns it,
    and the sweep goes on (`mfx run` then exits 1).  Ctrl-C and SIGTERM stop the sweep: the job is
    logged "interrupted" (it stays incomplete, and resume reruns it).
    """
    name = HydraConfig.get().job.override_dirname or "job"
    job_dir = Path(cfg.out) / cfg.name / f"{cfg.scale}{cfg.variant}" / name
    start = time.perf_counter()
    outcome = "failed"
    try:
        if "/" in name or name in (".", ".."):  # refused by plan; a job never writes elsewhere
            raise ValueError(f"job folder name {name!r} is not a folder name")
        outcome = _job(cfg, job_dir, start)
    except KeyboardInterrupt:  # the user stopped the sweep (Ctrl-C, SIGTERM): not the job's failure
        outcome = "interrupted"
        raise
    except Exception as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: job {results.printable(job_dir)} failed: {one_line(e)}", file=sys.stderr)
    finally:
        cost = costs.get(results.job_hash(cfg), 0.0) if costs else 0.0
        report_job(job_dir, outcome, time.perf_counter() - start, cost)


def _job(cfg: DictConfig, job_dir: Path, start: float) -> str:
    """Run and save one job; return its outcome (done [with the counts of rows not ok], skipped,
    running elsewhere)."""
    results.make_folder(job_dir, Path(cfg.out))
    deadline = time.monotonic() + locks.WAIT_SECONDS
    while True:
        with locks.job_lock(job_dir) as mine:
            if mine:
                return _compute(cfg, job_dir, start)
        # another live run computes it (two identical runs at once): wait a while for its result
        if time.monotonic() > deadline:
            return "running elsewhere"
        time.sleep(0.2)
        state, done = results.job_state(job_dir)
        if state == "complete" and done.get("job_hash") == results.job_hash(cfg) and not locks.held(job_dir):
            return "skipped"


def _compute(cfg: DictConfig, job_dir: Path, start: float) -> str:
    """The job under its lock: skipped if complete, else computed and written."""
    cpu_start = time.process_time()
    state, done = results.job_state(job_dir)
    if cfg.resume and state == "complete" and done.get("job_hash") == results.job_hash(cfg):
        return "skipped"
    if state != "incomplete":
        why = "its configuration or mfx's code changed" if state == "complete" else "it is damaged"
        print(f"mfx: rerunning {job_dir}: {why}", file=sys.stderr)
    results.mark_incomplete(job_dir)
    exp = registry.get(cfg.name)
    cfg = cfg.copy()
    OmegaConf.update(cfg, "cache_dir", str(Path(cfg.cache_dir).absolute()))
    rt = runtime.setup(**cfg.runtime)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # every warning is recorded, however often it was shown before
        rows = results.to_frame(exp.run(cfg), exp.name, cfg.scale)
    warned = warning_lines(caught)
    for line in warned:
        print(f"mfx: warning: {results.printable(job_dir)}: {results.printable(line)}", file=sys.stderr)
    hydra_cfg = HydraConfig.get()
    grid = {kv.split("=", 1)[0] for kv in hydra_cfg.job.override_dirname.split(",")}
    internal = {"experiment", "sweep_hash", "variant", *results.VOLATILE, *grid}
    variant = [o for o in hydra_cfg.overrides.task if o.split("=", 1)[0].lstrip("+~") not in internal]
    extra = {
        "overrides": variant,
        "job": hydra_cfg.job.override_dirname,
        "warnings": warned,
        # the process's CPU time since the job began (every thread; a launcher runs one job per process
        # at a time): with `seconds`, what the timing record (`mfx calibrate --performance`) adds up
        "cpu_seconds": round(time.process_time() - cpu_start, 3),
    }
    # done.json is written last: a failure before it leaves the job incomplete
    results.write_job(job_dir, rows, cfg, str(rt.device), time.perf_counter() - start, extra, Path(cfg.out))
    other = rows.loc[rows["status"] != "ok", "status"].value_counts()  # diverged, no_escape, …
    return "done" + "".join(f", {n} rows {status}" for status, n in other.items())


def slurm_outcome(launch: Path) -> str:
    """After submitit gave up on a job (cancelled, or killed at its time limit): wait until SLURM has
    ended every job of the sweep (their folders are named by job id), and say how many ran out of time."""
    names = [p.name for p in (launch / ".submitit").glob("*")]
    jobs = sorted({m[1] for m in map(re.compile(r"^(\d+)_").match, names) if m})
    if not jobs or not shutil.which("squeue"):
        return ""
    for _ in range(600):  # at most ten minutes for the array's other tasks to end
        if locks.slurm_running(",".join(jobs)) is not True:
            break
        time.sleep(1)
    try:
        r = subprocess.run(
            ["sacct", "-n", "-X", "-P", "-j", ",".join(jobs), "-o", "State"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    timeout = sum(line.startswith("TIMEOUT") for line in r.stdout.split())
    return f" ({timeout} hit the time limit: raise hydra.launcher.timeout_min)" if timeout else ""


def warning_lines(caught: list[warnings.WarningMessage]) -> list[str]:
    """The warnings a job emitted, one line each without their source line ("UserWarning: …"),
    each once, with its count when it repeated ("(×12)")."""
    counts: dict[str, int] = {}
    for w in caught:
        text = " ".join(str(w.message).split()) or "(no message)"
        line = f"{w.category.__name__}: {text}"
        counts[line] = counts.get(line, 0) + 1
    return [line + (f" (×{n})" if n > 1 else "") for line, n in counts.items()]


def report_job(job_dir: Path, outcome: str, seconds: float, cost: float = 0.0) -> None:
    """Progress of a sweep: the bar on a terminal (advanced by the job's estimated cost), else one
    line per job (logs, make, SLURM)."""
    if bar is not None and not bar.disable:
        bar.update(cost)
        return
    try:
        print(
            f"{results.printable(job_dir.parent.name)}/{results.printable(job_dir.name)}: {outcome} ({seconds:.1f} s)",
            flush=True,
        )
    except BrokenPipeError:  # its reader is gone (`mfx run … | head`): the sweep goes on, unheard
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def hydra_main() -> None:
    hydra.main(config_path="pkg://mfx.conf", config_name="config", version_base="1.3")(task)()
