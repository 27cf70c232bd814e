"""Start-up and resume of the command line, as ratios to what they cannot beat.

- `mfx --version`, `mfx --help`, `mfx list` in a fresh process against `python -c pass` (the
  interpreter's own start-up): they load no torch, pandas or matplotlib (target: under 1 s).
- `mfx run` of a finished 20-job sweep (resnet_phase, quick: every job skipped) against the jobs'
  own recorded time and against `python -c pass` (target: the resume check under 3 s; it loads no
  torch: the jobs' hashes are compared without the experiments' code).
- `mfx run experiment=all scale=paper --dry-run` (every job of every experiment planned, validated
  and estimated) against `python -c pass`, at its first look and again (the look read back,
  `mfx.sweep.looked`; target under 1 s).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from mfx.bench import Result, compare, median_time

MFX = str(Path(sys.executable).with_name("mfx"))


def _process(*argv: str):
    return lambda: subprocess.run(list(argv), check=True, capture_output=True)


def run() -> list[Result]:
    python = _process(sys.executable, "-c", "pass")
    found = [
        compare(
            f"mfx {' '.join(argv)} (cold process) vs python -c pass",
            _process(MFX, *argv),
            python,
            repeat=3,
            note=f"ratio = python / mfx; mfx {' '.join(argv)} target < 1 s",
        )
        for argv in (("--version",), ("--help",), ("list",))
    ]
    with tempfile.TemporaryDirectory() as out:
        sweep = [MFX, "run", "experiment=resnet_phase", "scale=quick", f"out={out}"]
        subprocess.run(sweep, check=True, capture_output=True)
        jobs = sorted(Path(out, "resnet_phase", "quick").glob("*/provenance.json"))
        own = sum(json.loads(p.read_text())["seconds"] for p in jobs)
        resume = median_time(_process(*sweep), repeat=3, warmup=0)
        bare = median_time(python, repeat=3, warmup=0)
    found += [
        Result(
            f"resume check of a finished {len(jobs)}-job sweep vs the jobs' own time",
            resume,
            own,
            note=f"target: resume < 3 s (measured {resume:.2f} s)",
        ),
        Result(
            f"resume check of a finished {len(jobs)}-job sweep vs python -c pass",
            resume,
            bare,
            note=f"ratio = python / resume; target: resume < 3 s (measured {resume:.2f} s)",
        ),
    ]
    with tempfile.TemporaryDirectory() as out:
        dry = [MFX, "run", "experiment=all", "scale=paper", f"out={out}", "--dry-run"]
        first = median_time(_process(*dry), repeat=1, warmup=0)  # a new out: nothing to read back
        found += [
            Result(
                "mfx run experiment=all scale=paper --dry-run, first look vs python -c pass",
                first,
                bare,
                note=f"ratio = python / dry run; every paper job planned, validated and estimated ({first:.1f} s)",
            ),
            compare(
                "the same dry run again (its last look read back) vs python -c pass",
                _process(*dry),
                python,
                repeat=3,
                warmup=0,
                note="ratio = python / dry run; only out, CUDA and memory checked again; target < 1 s",
            ),
        ]
    return found
