"""`python -m benchmarks.gpu`: one representative job of each of the three heaviest paper sweeps, timed on
CUDA against the CPU (issue 40 §4).  Without a CUDA device it says so and exits 0.

Each job runs in this process, once per device, into its own fresh temporary `out` (so each computes
its own reference or pool networks, as the first job of a sweep does), with `runtime.threads=1` on the
CPU (a sweep's default: one job per core).  The printed ratio is CPU seconds / CUDA seconds (wall, CUDA
synchronised).  The overlap chain of quad_escape is CPU code (numba) on either device: only its ODE and
full-SGD parts move.  The two devices draw different random numbers (CUDA generators), so the jobs'
numbers are not compared; `tests/test_cuda.py` checks the steps themselves.

    python -m benchmarks.gpu                  # paper-scale jobs (CPU side: several minutes)
    python -m benchmarks.gpu --scale quick    # the same grid points at quick scale (about a minute)
    python -m benchmarks.gpu --only resnet_dim
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import torch

# the costliest grid point of each sweep (or one that finishes in minutes on one CPU core)
JOBS = {
    "resnet_dim": ["model.D=64"],
    "quad_escape": ["model.p_star=2", "model.p=2"],
    "transformer_limit": ["model.L=16", "model.H=64"],
}


def time_job(name: str, scale: str, device: str, overrides: list[str]) -> float:
    """Wall seconds of one job of `name` on `device` (its rows are computed and dropped)."""
    from mfx import experiment as registry
    from mfx import runtime, sweep

    with tempfile.TemporaryDirectory() as out:
        argv = [
            f"experiment={name}",
            f"scale={scale}",
            f"out={out}",
            f"runtime.device={device}",
            "runtime.threads=1",
        ]
        plan = sweep.plan([*argv, *overrides])
        if len(plan.jobs) != 1:
            raise ValueError(f"{name} {overrides}: {len(plan.jobs)} jobs, expected one")
        cfg = plan.jobs[0]
        runtime.setup(**cfg.runtime)
        t0 = time.perf_counter()
        registry.get(name).run(cfg)
        if device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("quick", "paper"), default="paper")
    parser.add_argument("--only", choices=sorted(JOBS), action="append", help="time only this sweep's job")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("benchmarks.gpu: no CUDA device (torch.cuda.is_available() is False); nothing timed")
        return 0
    from mfx.bench import Result, table

    torch.zeros(1, device="cuda")  # CUDA's start-up is not any job's
    results = []
    for name in args.only or JOBS:
        seconds = {}
        for device in ("cuda", "cpu"):
            print(
                f"running {name} {' '.join(JOBS[name])} scale={args.scale} on {device} …",
                file=sys.stderr,
                flush=True,
            )
            seconds[device] = time_job(name, args.scale, device, JOBS[name])
        results.append(
            Result(
                f"{name} {' '.join(JOBS[name])} ({args.scale}): CUDA vs CPU",
                seconds["cuda"],
                seconds["cpu"],
                note=f"ratio = CPU s / CUDA s; {torch.cuda.get_device_name()}, CPU 1 thread",
            )
        )
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
