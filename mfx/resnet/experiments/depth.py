"""resnet_depth (Fig. 2, error rates): error vs depth L at fixed D, one curve per M (incl. M = 1)."""

from __future__ import annotations

from mfx import fit
from mfx.experiment import Claim, Experiment, register
from mfx.resnet.analysis import rms_over_seeds, two_term_fit
from mfx.resnet.experiments.common import _scale, run_errors, validate_errors

DEPTH_TOL = {"quick": 0.15, "paper": 0.1}
DEPTH_R2 = {"quick": 0.9, "paper": 0.95}


def claims_depth(table):
    """The slope in L at M = 1 is −1/2 (the fluctuation term b/√(LM) dominates a single unit per
    layer), and a/L + b/√(LM) describes the whole (L, M) grid.

    Quick scale (L ≤ 32, 128×128 reference, 8 reps) uses ±0.15 and R² ≥ 0.9: with M = 1 the
    per-configuration error is itself a random variable (one unit per layer), so 8 reps leave a
    slope SE of ≈ 0.05–0.08 (see `detail`)."""
    scale = _scale(table)
    err = rms_over_seeds(table, "resnet_depth", "err_f", ["L", "M"])
    m1 = err[err["M"] == 1]
    slope = fit.power_law(m1["L"], m1["value"])
    both = two_term_fit(err)
    return [
        Claim.within(
            "resnet_depth",
            "slope of the output error vs L at M = 1 (step K)",
            slope["slope"],
            -0.5,
            DEPTH_TOL[scale],
            f"{scale}: {slope.describe('slope')}",
        ),
        Claim.at_least(
            "resnet_depth",
            "R² (log space) of a/L + b/√(LM) over the (L, M) grid",
            both.r2,
            DEPTH_R2[scale],
            f"{scale}: {both.describe('a')}; {both.describe('b')}",
        ),
    ]


register(
    Experiment(
        name="resnet_depth",
        family="resnet",
        description="error vs depth L at fixed D, one curve per M (incl. M = 1)",
        figure="Fig. 2 (error rates)",
        run=run_errors,
        claims=claims_depth,
        validate=validate_errors,
    )
)
