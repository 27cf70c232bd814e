"""resnet_depth (Fig. 2, error rates): error vs depth L at fixed D, one curve per M (incl. M = 1)."""

from __future__ import annotations

from mfx.experiment import Claim, Experiment, register
from mfx.resnet import ranges
from mfx.resnet.analysis import (
    depth_err,
    depth_slope,
    k_steps,
    rms_over_seeds,
    term_share,
    trained_steps,
    two_term_fit,
    untrained,
    worst_step,
)
from mfx.resnet.experiments.common import (
    _scale,
    boot_sd,
    last_step_rows,
    memory_window,
    n_seeds,
    run_window,
    trained_claim,
    validate_window,
)
from mfx.resnet.ranges import FIG2, THM1, TIGHT


def claims_depth(table):
    """The slope in L at M = 1 is −1/2 (the fluctuation term b/√(LM) dominates a single unit per
    layer), and a/L + b/√(LM) describes the (L, M) grid where the reference's own error is negligible
    (L·M ≤ L_ref·M_ref/16, as resnet_width; the only points trained, see `common.run_window`).

    Why the grid reaches M = 1024 (paper: 256) at small L: the RMS over reps adds the depth bias a/L
    and the fluctuation b/√(LM) in quadrature (E‖e‖² = bias² + variance), so a/L adds to the error
    only where it is comparable to b/√(LM).  On the former quick grid (M ≤ 64) it added ≤ 14 % at
    (L, M) = (2, 64) (ten fresh seeds pooled: quadrature a ≈ 0.07, b ≈ 0.72), while the points at
    L·M ≤ 8 sit 5–14 % below b/√(LM); the per-point seed SD of the log error is ≈ 0.12.  The fitted
    a read 0.009 ± 0.009 even pooled over the ten seeds, and sat at its bound 0 on 2 of them.  With
    M = 256, 1024 at L ≤ 8 (a/L ≈ b/√(LM) there) a reads ≈ 4–8 SE from 0 on seeds 2000..2005.
    A claim resting on a coefficient at its bound is inconclusive.

    Quick scale (L ≤ 128, 128×256 reference) uses ±0.15 and R² ≥ 0.9 (paper: ±0.1, R² ≥ 0.95, the
    README's): with M = 1 the per-configuration error is itself a random variable (one unit per
    layer), so the quick grid's reps leave a seed-bootstrap SD of the slope of ≈ 0.05 (over L = 2..32
    it was ≈ 0.06 and the slope read −0.34 … −0.51 over seeds 0..3, 1000..1002; hence L to 128).  Both
    uncertainties are seed-bootstrap SDs: the fit SE of the RMS-over-reps ignores the rep noise.

    The M = 1 slope holds at every trained GD step k ∈ {K/4, K/2, K} (Thm 1 is stated after k steps);
    at k = 0 (the forward pass) it is the central limit theorem of L i.i.d. blocks, an identity claim.
    None of these fails with training off (the reference does not train either), so the trained
    companion reads the error of what training moved, (f_K − f_0) − (f_ref,K − f_ref,0): exactly 0
    untrained (read at `analysis.DISPLACEMENT_FLOOR`: a flat law, which fails).  The two-term fit is claimed at K only: at k = 0 the 1/L term is absent
    (i.i.d. units with E v = 0 have a zero mean field, so the limit is h(s) = h_0; the fit puts a at
    its bound 0 there), and training makes it (resnet_width's floor share grows 0 → 0.67 with k)."""
    scale = _scale(table)
    trained = trained_claim("resnet_depth", table, scale)
    still = untrained(table, "resnet_depth")  # every paper claim here is about trained networks
    steps = table[table["step"].isin(k_steps(table)) & (table["metric"] == "err_f")]
    target = ranges.value("depth_slope_M1")
    ks = trained_steps(table)
    m1_slope = lambda t: (depth_slope(t), None, _n_m1(t))
    worst, worst_k, n_k = worst_step(steps, m1_slope, target, ks)
    at0 = steps[steps["step"] == 0]
    slope0 = depth_slope(at0)
    table = last_step_rows(table)  # the claims read step K only: a 16× smaller table to bootstrap
    err = depth_err(table)
    slope = depth_slope(table)
    moved = depth_slope(table, "err_df")
    power = ranges.power("depth_slope_M1", scale)
    tol = ranges.tol("depth_slope_M1", scale)
    both = two_term_fit(err)
    seeds = n_seeds(table)
    n_m1 = _n_m1(table)
    return [
        Claim.within(
            "resnet_depth",
            "slope of the output error vs L at M = 1 (step K)",
            slope["slope"],
            ranges.value("depth_slope_M1"),
            ranges.tol("depth_slope_M1", scale),
            f"{scale}: {slope.describe('slope')}",
            u=boot_sd(table, lambda t: depth_slope(t)["slope"]),
            how="seed bootstrap SD",
            points=n_m1,
            seeds=seeds,
            min_points=3,
            kind="paper",
            untrained=still,
            source=f"{THM1}; {TIGHT}; {FIG2} (at M = 1 the 1/√(LM) term dominates: slope −1/2)",
            **power,
        ),
        Claim.within(
            "resnet_depth",
            "slope of the output error vs L at M = 1 at every trained GD step k = K/4, K/2, K "
            "(the one farthest from −1/2)",
            worst,
            target,
            tol,
            f"{scale}: worst at k = {worst_k}",
            u=boot_sd(steps, lambda t: worst_step(t, m1_slope, target, ks)[0]),
            how="seed bootstrap SD",
            points=n_k,
            seeds=seeds,
            min_points=3,
            kind="paper",
            untrained=still,
            source=f"{THM1} ('after k GD steps': every trained k); {FIG2}",
            **ranges.power("depth_steps_M1", scale),
        ),
        Claim.within(
            "resnet_depth",
            "slope of the output error vs L at M = 1 at k = 0 (the forward pass, before training)",
            slope0["slope"],
            target,
            tol,
            f"{scale}: {slope0.describe('slope')}",
            u=boot_sd(at0, lambda t: depth_slope(t)["slope"]),
            how="seed bootstrap SD",
            points=_n_m1(at0),
            seeds=seeds,
            min_points=3,
            kind="identity",
            source="before training the error at M = 1 is the fluctuation of a sum of L i.i.d. blocks: the "
            "central limit theorem fixes −1/2 (issue 36 §2)",
            statement_id="chizat.hidden_width/M1",
        ),
        Claim.within(
            "resnet_depth",
            "trained companion: slope vs L at M = 1 of the error of the trained displacement "
            "(f_K − f_0) − (f_ref,K − f_ref,0)",
            moved["slope"],
            ranges.value("depth_disp_slope_M1"),
            ranges.tol("depth_disp_slope_M1", scale),
            f"{scale}: {moved.describe('slope')}",
            u=boot_sd(table, lambda t: depth_slope(t, "err_df")["slope"]),
            how="seed bootstrap SD",
            points=n_m1,
            seeds=seeds,
            min_points=3,
            kind="paper",
            untrained=still,
            source=f"{THM1} ('nach k GD-Schritten'); {FIG2}: what training moved converges at M = 1 too "
            "(exactly 0 untrained: mfx/resnet/ranges.py depth_disp_slope_M1)",
            **ranges.power("depth_disp_slope_M1", scale),
        ),
        Claim.at_least(
            "resnet_depth",
            "R² (log space) of a/L + b/√(LM) over the (L, M) grid (L·M ≤ L_ref·M_ref/16)",
            both.r2,
            ranges.value("depth_r2", scale),
            f"{scale}: {both.describe('a')}; {both.describe('b')}; share of a/L at the smallest L, "
            f"largest M: {term_share(err, both):.2f}",
            u=boot_sd(table, lambda t: two_term_fit(depth_err(t)).r2),
            how="seed bootstrap SD",
            points=len(err),
            seeds=seeds,
            min_points=4,
            at_bound=both.at_bound,
            kind="paper",
            untrained=still,
            source=f"{THM1}; {FIG2}",
            **ranges.power("depth_r2", scale),
        ),
        trained,
    ]


def _n_m1(table) -> int:
    """Number of L at M = 1 (the points of the M = 1 slope)."""
    return int((rms_over_seeds(table, "resnet_depth", "err_f", ["L", "M"])["M"] == 1).sum())


register(
    Experiment(
        name="resnet_depth",
        family="resnet",
        description="error vs depth L at fixed D, one curve per M (incl. M = 1)",
        figure="Fig. 2 (error rates)",
        run=run_window,
        claims=claims_depth,
        validate=validate_window,
        memory=memory_window,
        memory_keys="model.L, model.M, model.L_ref, model.M_ref, model.D",
    )
)
