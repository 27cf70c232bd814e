"""Benchmarks as ratios: time a fast path and a plain baseline in the same run, report medians.

Absolute timings depend on the machine and its load; the ratio of two paths measured
back-to-back in one process does much less, so speed targets are stated as ratios.  Two kinds of row:
a speed-up over a plainer implementation (`compare`: ratio = baseline / fast ≥ target), and a hot loop
against its limit (`against_limit`: the loop's time over the time of what bounds it, e.g. its GEMMs at
the machine's measured GEMM throughput or drawing its random numbers alone, ≤ a stated factor).
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
    limit: float | None = None  # a hot loop against its bound: fast_s / baseline_s must be ≤ limit

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


def interleaved(fns: dict, rounds: int, warmup: int = 1, clock=time.process_time, in_a_row: int = 1) -> dict:
    """Median seconds per call of each function, timed alternately round after round.

    A load that comes and goes on the machine then hits every function alike; the default clock is
    this process's CPU time (single-threaded code: the wall time of an idle machine), so the time
    spent descheduled on a shared machine counts against none of them.  `in_a_row` > 1: each turn
    calls its function that many times in a row and times the last call, i.e. in the state its own
    previous call left (what K training steps in a row see) rather than right after the other
    functions have evicted its data from the caches."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            for _ in range(in_a_row - 1):
                fn()
            t0 = clock()
            fn()
            times[name].append(clock() - t0)
    return {name: statistics.median(t) for name, t in times.items()}


def compare(name, fast, baseline, *, repeat=5, warmup=1, target=None, note="") -> Result:
    """Time `fast` and `baseline` alternately in this process; ratio = baseline / fast."""
    return Result(
        name, median_time(fast, repeat, warmup), median_time(baseline, repeat, warmup), target, note
    )


def against_limit(name: str, loop_s: float, bound_s: float, at_most: float, note: str = "") -> Result:
    """A hot loop (`loop_s` per call) against what bounds it (`bound_s`, the same work at its limit):
    it meets its target when loop_s / bound_s ≤ at_most (the table's ratio, bound/loop, is then
    ≥ 1/at_most)."""
    return Result(name, loop_s, bound_s, target=1 / at_most, note=note, limit=at_most)


def table(results: list[Result]) -> str:
    lines = [
        f"{'benchmark':58s} {'fast [s]':>10s} {'baseline [s]':>12s} {'ratio':>8s} {'target':>7s}  verdict",
        "-" * 110,
    ]
    for r in results:
        target = "" if r.target is None else f"≥{r.target:.3g}"
        verdict = {None: "", True: "ok", False: "SLOW"}[r.passed]
        lines.append(
            f"{r.name:58s} {r.fast_s:10.4g} {r.baseline_s:12.4g} {r.ratio:8.2f} {target:>7s}  {verdict} {r.note}"
        )
    limits = [r for r in results if r.limit is not None]
    if limits:
        lines += ["", "hot loops against their limits (loop time / bound time, target ≤ limit):"]
        for r in limits:
            verdict = "meets its target" if r.passed else "MISSES its target"
            lines.append(f"  {r.name:56s} {1 / r.ratio:6.2f}× (≤ {r.limit:g}×)  {verdict}")
    return "\n".join(lines)
