"""Benchmarks as ratios: time a fast path and a plain baseline in the same run, report medians.

Absolute timings depend on the machine and its load; the ratio of two paths measured
back-to-back in one process does much less, so speed targets are stated as ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    name: str
    fast_s: float  # median seconds per call of the fast path
    baseline_s: float  # median seconds per call of the baseline
    target: float | None = None  # required ratio baseline/fast (or fast throughput fraction)
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.baseline_s / self.fast_s

    @property
    def passed(self) -> bool | None:
        return None if self.target is None else self.ratio >= self.target


def median_time(fn: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compare(name, fast, baseline, *, repeat=5, warmup=1, target=None, note="") -> Result:
    """Time `fast` and `baseline` alternately in this process; ratio = baseline / fast."""
    return Result(
        name, median_time(fast, repeat, warmup), median_time(baseline, repeat, warmup), target, note
    )


def table(results: list[Result]) -> str:
    lines = [
        f"{'benchmark':58s} {'fast [s]':>10s} {'baseline [s]':>12s} {'ratio':>8s} {'target':>7s}  verdict",
        "-" * 110,
    ]
    for r in results:
        target = "" if r.target is None else f"≥{r.target:g}"
        verdict = {None: "", True: "ok", False: "SLOW"}[r.passed]
        lines.append(
            f"{r.name:58s} {r.fast_s:10.4g} {r.baseline_s:12.4g} {r.ratio:8.2f} {target:>7s}  {verdict} {r.note}"
        )
    return "\n".join(lines)
