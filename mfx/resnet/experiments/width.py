"""resnet_width (Fig. 2, error rates): error vs width M at fixed L, one curve per L."""

from __future__ import annotations

from mfx import fit
from mfx.experiment import Claim, Experiment, register
from mfx.resnet.analysis import rms_over_seeds, two_term_fit
from mfx.resnet.experiments.common import _scale, run_errors, validate_errors

WIDTH_TOL = {"quick": 0.1, "paper": 0.1}


def claims_width(table):
    """Error vs M at fixed L: slope −1/2 at the largest L while L·M ≤ L_ref·M_ref/16 (there the
    reference's own error is negligible and a/L is small against b/√(LM)); the 1/L floor makes the
    error flatten at small L, large M, so the fitted a is significantly positive (a/SE(a) ≥ 2)."""
    scale = _scale(table)
    err = rms_over_seeds(table, "resnet_width", "err_f", ["L", "M", "L_ref", "M_ref"])
    err = err[err["L"] * err["M"] <= err["L_ref"] * err["M_ref"] / 16]
    L_max = err["L"].max()
    big = err[err["L"] == L_max]
    slope = fit.power_law(big["M"], big["value"])
    both = two_term_fit(err)
    return [
        Claim.within(
            "resnet_width",
            f"slope of the output error vs M at L = {L_max} (L·M ≤ L_ref·M_ref/16)",
            slope["slope"],
            -0.5,
            WIDTH_TOL[scale],
            f"{scale}: {slope.describe('slope')}",
        ),
        Claim.at_least(
            "resnet_width",
            "1/L floor: fitted a of a/L + b/√(LM), in units of its SE",
            both["a"] / both.se["a"],
            2.0,
            f"{scale}: {both.describe('a')}; {both.describe('b')}",
        ),
    ]


register(
    Experiment(
        name="resnet_width",
        family="resnet",
        description="error vs width M at fixed L, one curve per L",
        figure="Fig. 2 (error rates)",
        run=run_errors,
        claims=claims_width,
        validate=validate_errors,
    )
)
