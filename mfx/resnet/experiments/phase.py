"""resnet_phase (phase diagram): residual scale D^gamma/(LM) and learning rate, swept independently.

The summary of the paper (seed 000, §3B): the critical residual scale is √D/(LM); below it the units
behave as for σ_v = 0 (no feature diversity), at it maximal local updates (MLU) are possible and
necessary, above it (lazy) updates are suppressed.

Here the residual scale and the learning rate are two independent axes.  For each (D, gamma) and
each rep, the largest stable GD rate is *measured*: the normalised rate η = raw rate/(L·M·D) (the
raw rate on U and V, whatever alpha) is moved by factors 4 from `rate_start` until a stable and an
unstable run bracket the edge, then bisected `bisect` times in log η.  A run is stable when its loss is finite at every step and the
loss after K steps is not above the initial one (GD past its stability edge oscillates and grows).
Every run of that search is a row (metric `stable`, column `rate`): unstable runs are data.  At
`rate_fraction` × the largest stable rate the per-rep metrics are:
    lr_max        the largest stable normalised rate η_max
    local_update  median over (l, j, n) of |<u_K − u_0, h_{l-1}>/D|: each unit's own feature update
                  (γ* is read on its ratio to the same run's movement: analysis.phase_values)
    movement      per-coordinate RMS over (n, coordinate) of h_L(K) − h_L(0): the feature movement
    diversity     ‖Π V_0‖/‖Π V_K‖, Π the projection on the d_out leading right singular directions of
                  V_K − V_0 (stacked over layers and units): the share of the trained down-projections,
                  in the subspace their updates span, that is still the units' own random init.  It
                  → 0 when the common update swamps the init: the σ_v = 0 behaviour (every unit's v is
                  then the same update direction: no feature diversity).
The claims read the exponents of these in D per gamma (at fixed L, M; fits over D ≥ 3·d_out).

Scaling (derived, for the reader; the claims measure it): the output change per step is ∝
η·alpha², so η_max ∝ alpha^−2 = D^(1−2γ), and the local update ∝ η·alpha, at η_max ∝ D^(1/2−γ):
positive below γ = 1/2, zero at it, negative above; the diversity ∝ min(1, alpha) ∝ D^(min(0, γ−1/2)).

Init: paired units (model.init = paired, as resnet_lazy): every block is zero at init.  With i.i.d.
units the random initial residual alpha·√(D/(LM)) = D^γ/√(LM) grows with D at fixed L, M and makes
the lazy side chaotic (measured at L = M = 16, i.i.d.: the local update exponent at gamma = 1 is
+0.6 instead of −0.5, the movement exponent +1.0), which is the D = O(LM) condition, not the phase.
"""

from __future__ import annotations

import math

import torch

from mfx import runtime
from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.resnet import analysis, draws, model, ranges
from mfx.resnet.experiments.common import (
    FLOAT,
    _inputs,
    _scale,
    _seeds,
    _validate_model,
    boot_sd,
    n_seeds,
    train_bytes,
)

RATE_RANGE = 2.0**24  # the search gives up beyond rate_start·/÷ this (lr_max is then NaN)


def residual_alpha(D, gamma):
    """alpha giving the residual scale D^gamma/(L M): the v's have std √D, so alpha = D^(gamma − 1/2)."""
    return float(D) ** (gamma - 0.5)


def train_at_rate(W_E, W_U, U, V, X, Y, alpha, rate, K, sigma):
    """`model.train` at the raw GD rate rate·L·M·D, independent of alpha (model.train's rate is
    eta·L·M·D/alpha², so eta = rate·alpha²)."""
    return model.train(W_E, W_U, U, V, X, Y, alpha, rate * alpha**2, K, sigma)


def stable(out) -> bool:
    """Finite loss at every step and a final loss not above the initial one."""
    loss = out["loss"][0]
    return bool(torch.isfinite(loss).all()) and float(loss[-1]) <= float(loss[0])


def largest_stable_rate(run, rate_start, bisect):
    """(largest stable rate found, [(rate, stable)] of every run): from rate_start, ×4 up to the
    first unstable run (or ÷4 down to the first stable one), then `bisect` bisections in log rate.
    NaN if no such bracket lies within rate_start ·/÷ RATE_RANGE.  The start only sets the cost."""
    tried = []

    def ok(rate):
        tried.append((rate, stable(run(rate))))
        return tried[-1][1]

    lo, hi = rate_start, rate_start
    if ok(rate_start):
        while ok(4 * lo):
            lo *= 4
            if lo > rate_start * RATE_RANGE:
                return float("nan"), tried
        hi = 4 * lo
    else:
        while not ok(lo / 4):
            lo /= 4
            if lo < rate_start / RATE_RANGE:
                return float("nan"), tried
        hi, lo = lo, lo / 4
    for _ in range(bisect):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo, tried


def run_phase(cfg):
    """One (D, gamma), every rep on its own (each has its own largest stable rate)."""
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    alpha = residual_alpha(m.D, m.gamma)
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(
        _seeds(cfg), m.L, m.M, m.D, "grid", m.init == "paired", dtype=rt.dtype, device=rt.device
    )
    coords = {"L": m.L, "M": m.M, "D": m.D, "d_out": m.d_out, "gamma": m.gamma, "alpha": alpha, "step": m.K}
    rows = []
    for s, seed in enumerate(_seeds(cfg)):
        one = [t[s : s + 1] for t in (W_E, W_U, U, V, X, Y)]

        def run(rate, one=one):
            return train_at_rate(*one, alpha, rate, m.K, m.sigma)

        rate_max, tried = largest_stable_rate(run, m.rate_start, m.bisect)
        rows += [
            {**coords, "seed": seed, "rate": r, "metric": "stable", "value": float(ok)} for r, ok in tried
        ]
        if not math.isfinite(rate_max):
            rows.append(
                {**coords, "seed": seed, "metric": "lr_max", "value": rate_max, "status": "no_stable_rate"}
            )
            continue
        out = run(m.rate_fraction * rate_max)
        W_E1, W_U1, U1, V1, X1, _ = one
        local = model.local_updates(W_E1, W_U1, U1, out["U"], out["V"], X1, alpha, m.sigma)
        values = {
            "lr_max": rate_max,
            "local_update": float(local.abs().median()),
            "movement": float((out["h_L"][0, -1] - out["h_L"][0, 0]).pow(2).mean().sqrt()),
            "diversity": diversity(V1[0], out["V"][0], m.d_out),
        }
        rows += [{**coords, "seed": seed, "metric": k, "value": v} for k, v in values.items()]
    return rows


def diversity(V0, V, r):
    """‖Π V0‖/‖Π V‖ with Π the projection on the r leading right singular directions of V − V0
    ([L, M, D] each; units of all layers stacked)."""
    D = V0.shape[-1]
    dV = (V - V0).reshape(-1, D)
    Q = torch.linalg.svd(dV, full_matrices=False).Vh[:r].T
    return float((V0.reshape(-1, D) @ Q).norm() / (V.reshape(-1, D) @ Q).norm())


SOURCE = (
    "Chizat §3B (phase diagram, summary): 'the critical residual scaling is O(√D/LM). Below it "
    "(subcritical) the units behave as in the case σ_v = 0 (no feature diversity). At the critical "
    "scale maximal local feature updates (MLU) are possible and necessary. Above it (lazy regime) "
    "updates are suppressed.' §4: 'only at the critical scaling are maximal feature updates observed'.  "
    "γ* = ½ for the scale D^γ/(LM) holds under mfx's normalisation of v (std √D, so α = D^(γ−½)), which "
    "the summary does not give"
)


def claims_phase(table):
    """The three regimes at the largest stable rate, from the exponents in D per gamma
    (`analysis.phase_summary`): the local-update exponent, read over each rep's own feature movement
    (`analysis.phase_values`), crosses 0 at gamma* = 1/2, where the movement does not vanish (MLU only
    on the critical line); it is negative above (lazy); the
    diversity exponent is negative below (σ_v = 0-like).  Uncertainties are seed-bootstrap SDs."""
    scale = _scale(table)
    summary = analysis.phase_summary(table)
    detail = f"{scale}: " + analysis.describe_phase(summary)
    seeds = n_seeds(table)
    kw = {"kind": "paper", "source": SOURCE, "how": "seed bootstrap SD", "seeds": seeds}
    power = {
        k: ranges.power(k, scale) for k in ("phase_gamma_star", "phase_update_lazy", "phase_diversity_sub")
    }
    excluded, of = analysis.phase_excluded(table)
    kw_ex = {"excluded": excluded, "excluded_why": "no stable rate found", "of": of}
    kw_trained = {"untrained": analysis.phase_untrained(table)}  # the paper claims are about training
    critical, lazy, sub = (ranges.RANGES["phase_windows"][k] for k in ("critical", "lazy_min", "sub_max"))

    def worst(s, metric, select):
        s = s[select(s["gamma"])]
        return max(s[metric]) if len(s) else float("nan")

    def stats(t):
        """γ*, the movement exponent at γ = ½, the largest lazy-side update exponent and the largest
        subcritical diversity exponent, from one summary (the bootstrap resamples it once for all four)."""
        s = analysis.phase_summary(t)
        return (
            analysis.gamma_star_of(s),
            worst(s, "movement", lambda g: g == critical),
            worst(s, "local_update", lambda g: g >= lazy),
            worst(s, "diversity", lambda g: g <= sub),
        )

    star, move, lazy_exp, sub_exp = stats(table)
    sds = boot_sd(table, stats)
    u_star, u_move, u_lazy, u_sub = [sds] * 4 if isinstance(sds, float) else sds  # NaN below two seeds
    n_lazy = int((summary["gamma"] >= lazy).sum()) if len(summary) else 0
    n_sub = int((summary["gamma"] <= sub).sum()) if len(summary) else 0
    n_crit = int((summary["gamma"] == critical).sum()) if len(summary) else 0
    return [
        Claim.within(
            "resnet_phase",
            "critical γ*: the exponent in D of the local update (over the feature movement) at the largest "
            "stable rate crosses 0",
            star,
            ranges.value("phase_gamma_star"),
            ranges.tol("phase_gamma_star", scale),
            detail,
            u=u_star,
            points=len(summary),
            min_points=3,
            **power["phase_gamma_star"],
            **kw,
            **kw_ex,
            **kw_trained,
        ),
        Claim.within(
            "resnet_phase",
            f"MLU needs movement: feature-movement exponent in D at γ = {critical:g}, largest stable rate",
            move,
            ranges.value("phase_movement_critical"),
            ranges.tol("phase_movement_critical", scale),
            detail,
            u=u_move,
            points=n_crit,
            min_points=1,
            seeds=seeds,
            how="seed bootstrap SD",
            kind="identity",
            source="the stability edge is where the output change per step is O(1), so at a fixed fraction "
            "of it h_L moves O(1) whatever γ: the 'with non-vanishing movement' half of MLU",
            **ranges.power("phase_movement_critical", scale),
            **kw_ex,
        ),
        Claim.at_most(
            "resnet_phase",
            f"lazy side (γ ≥ {lazy:g}): local-update exponent in D negative (largest over γ)",
            lazy_exp,
            ranges.value("phase_update_lazy"),
            detail,
            u=u_lazy,
            points=n_lazy,
            min_points=1,
            **power["phase_update_lazy"],
            **kw,
            **kw_ex,
            **kw_trained,
        ),
        Claim.at_most(
            "resnet_phase",
            f"subcritical side (γ ≤ {sub:g}): diversity exponent in D negative (largest over γ)",
            sub_exp,
            ranges.value("phase_diversity_sub"),
            detail,
            u=u_sub,
            points=n_sub,
            min_points=1,
            **power["phase_diversity_sub"],
            **kw,
            **kw_ex,
            **kw_trained,
        ),
    ]


def validate_phase(cfg):
    _validate_model(cfg, reference_needed=False)
    check(cfg, "model.gamma", float, low=-1.0, high=2.0)
    check(cfg, "model.rate_start", float, low=0, open_low=True)
    check(cfg, "model.rate_fraction", float, low=0, high=1, open_low=True)
    check(cfg, "model.bisect", int, low=0, high=30)
    if cfg.model.init != "paired":
        raise ConfigError("model.init must be paired for resnet_phase (see mfx/resnet/experiments/phase.py)")


def memory_phase(cfg):
    """Peak bytes of one (D, gamma): one rep trained at a time plus its local updates [L, N, M]."""
    m = cfg.model
    return (
        train_bytes(1, m.L, m.M, m.D, m.N, m.K) + FLOAT * (m.L * m.N * m.M * 3 + 4 * m.L * m.M * m.D) + 2**26
    )


register(
    Experiment(
        name="resnet_phase",
        family="resnet",
        description="phase diagram: residual scale D^gamma/(LM) × the largest stable learning rate",
        figure="phase diagram",
        run=run_phase,
        claims=claims_phase,
        validate=validate_phase,
        memory=memory_phase,
        memory_keys="model.L, model.M, model.D",
    )
)
