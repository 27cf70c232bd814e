"""Run an experiment with a realistic physics mistake injected (issues 10 §5, 21 §5, 27), at any scale and
seeds, and print each claim's verdict: the can-fail checks of `tests/<family>/test_claims_can_fail.py`
beyond the quick scale and seeds 0, 1 the tests run.

    PYTHONPATH=. python scripts/mutations.py no_training transformer_limit \\
        --scale paper --seeds 0,1,1000,1001 --out /tmp/mut
    PYTHONPATH=. python scripts/mutations.py kernel_x1.3 transformer_convergence \\
        --seeds 0,1 model.case=injective,injective_v,injective_cloud,injective_small
    PYTHONPATH=. python scripts/mutations.py sgd_eta_x1.1 quad_curves --scale paper --seeds 0

MUTATION is a name of the MUTATIONS of `tests/transformer/mutations.py` or `tests/quadratic/mutations.py`,
or `none` (the code as it is).  Each seed runs in-process into its own folder
OUT/MUTATION/EXPERIMENT-SCALE-seedK (a fresh artifact cache, so no reference computed by the correct code
is reused).  Prints one line per claim and seed, then the
per-run quantities the issue-27 claims read: for transformer_convergence the late-rate ratios (min,
mean ± SD, max over runs), for transformer_limit the loss factors R(T)/R(0) and log10 A(T)/A(0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mfx import cli, results
from mfx import experiment as registry
from mfx.transformer.experiments import convergence, limit
from tests.quadratic.mutations import MUTATIONS as QUADRATIC
from tests.transformer.mutations import MUTATIONS as TRANSFORMER

MUTATIONS = {**TRANSFORMER, **QUADRATIC}


def _convergence_extras(table) -> list[str]:
    out = []
    for metric, roles in (
        ("rate_ratio_T", ("injective", "bound", "kernel0", "grid")),
        ("rate_ratio_0", ("kernel0",)),
    ):
        v = convergence._summary(table, metric, *roles)["value"].to_numpy()
        if len(v):
            out.append(
                f"{metric}: {len(v)} runs, min {v.min():.3f}, mean {v.mean():.3f} ± {v.std(ddof=1):.3f} (SD), "
                f"max {v.max():.3f}"
            )
    return out


def _limit_extras(table) -> list[str]:
    t = table[(table["experiment"] == limit.E) & (table["status"] == "ok")]
    _, note = limit._loss_drop(t)
    return [note]


EXTRAS = {"transformer_convergence": _convergence_extras, "transformer_limit": _limit_extras}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mutation", choices=["none", *MUTATIONS])
    p.add_argument("experiment")
    p.add_argument("overrides", nargs="*", help="further `mfx run` overrides (e.g. model.case=…)")
    p.add_argument("--scale", default="quick")
    p.add_argument("--seeds", default="0,1")
    p.add_argument("--out", default="outputs/mutations")
    a = p.parse_intermixed_args(argv)
    failed_everywhere = True
    for seed in [int(s) for s in a.seeds.split(",")]:
        out = Path(a.out) / a.mutation / f"{a.experiment}-{a.scale}-seed{seed}"
        start = time.perf_counter()
        with pytest.MonkeyPatch.context() as mp:
            if a.mutation != "none":
                MUTATIONS[a.mutation](mp)
            argv = ["run", f"experiment={a.experiment}", f"scale={a.scale}", f"seed={seed}", f"out={out}"]
            if cli.main(argv + a.overrides) != 0:
                print(f"seed {seed}: mfx run failed", flush=True)
                return 1
            table = results.collect([out / a.experiment])[0]
            claims = registry.get(a.experiment).claims(table)
        wall = time.perf_counter() - start
        print(f"## {a.mutation} · {a.experiment} · scale={a.scale} · seed={seed} · {wall:.0f} s", flush=True)
        for c in claims:
            print(f"  {c.verdict:12s} {c.measured:10.4g} ± {c.u:<9.2g} [{c.kind}] {c.statement}", flush=True)
        for line in EXTRAS.get(a.experiment, lambda t: [])(table):
            print(f"  {line}", flush=True)
        failed_everywhere &= any(c.verdict == "fail" for c in claims if c.kind in ("paper", "derived"))
    if a.mutation != "none":
        print(f"some paper/derived claim fails at every seed: {failed_everywhere}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
