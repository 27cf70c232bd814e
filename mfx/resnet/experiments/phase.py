"""resnet_phase (phase diagram): local updates vs D for the residual scale D^gamma/(LM)."""

from __future__ import annotations

import numpy as np

from mfx import fit, runtime
from mfx.experiment import Claim, Experiment, check, register
from mfx.resnet import draws, model
from mfx.resnet.analysis import phase_exponents
from mfx.resnet.experiments.common import (
    FLOAT,
    _inputs,
    _scale,
    _seeds,
    _validate_model,
    boot_sd,
    n_seeds,
    per_seed_rows,
    train_bytes,
)


def residual_alpha(D, gamma):
    """alpha giving the residual scale D^gamma/(L M): the v's have std √D, so alpha = D^(gamma − 1/2)."""
    return float(D) ** (gamma - 0.5)


def run_phase(cfg):
    """One (D, gamma): residual scale D^gamma/(L M), i.e. alpha = D^(gamma − 1/2) (v std D^gamma).

    Metric per rep: local_update = median over (l, j, n) of |<u_K − u_0, h_{l-1}>/D| after K steps.
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    alpha = residual_alpha(m.D, m.gamma)
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(_seeds(cfg), m.L, m.M, m.D, dtype=rt.dtype, device=rt.device)
    out = model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)
    local = model.local_updates(W_E, W_U, U, out["U"], out["V"], X, alpha, m.sigma)
    med = local.abs().flatten(1).median(dim=1).values
    coords = {"L": m.L, "M": m.M, "D": m.D, "d_out": m.d_out, "gamma": m.gamma, "alpha": alpha, "step": m.K}
    return per_seed_rows(med, _seeds(cfg), coords, "local_update")


PHASE_TOL = {"quick": 0.15, "paper": 0.1}  # quick (L = M = 32): γ* ≈ 0.55 ± 0.04 over seeds


def claims_phase(table):
    """γ* where the exponent of the local feature update in D crosses zero: MLU at D^(1/2)/(LM).

    Its uncertainty is the seed-bootstrap SD (the exponents' fit SEs ignore the rep noise); it rests
    on the number of gamma values (≥ 3, each with ≥ 3 values of D in the fit range)."""
    scale = _scale(table)
    exps, _ = phase_exponents(table)
    gamma_star = _gamma_star(table)
    detail = f"{scale}: exponents " + ", ".join(
        f"γ={g:g}: {e:+.3f}" for g, e in zip(exps.get("gamma", []), exps.get("exponent", []))
    )
    return [
        Claim.within(
            "resnet_phase",
            "critical gamma* (exponent of the local update in D crosses 0)",
            gamma_star,
            0.5,
            PHASE_TOL[scale],
            detail,
            u=boot_sd(table, _gamma_star),
            how="seed bootstrap SD",
            points=int((exps["n"] >= 3).sum()) if len(exps) else 0,
            seeds=n_seeds(table),
            min_points=3,
        )
    ]


def _gamma_star(table) -> float:
    exps, _ = phase_exponents(table)
    exps = exps[exps["n"] >= 3] if len(exps) else exps
    if len(exps) < 2:
        return float("nan")
    crossing = fit.zero_crossing(exps["gamma"], exps["exponent"])
    if np.isfinite(crossing):
        return crossing
    # No sign change inside the grid: extrapolate the straight line through the two gammas at the
    # end where the exponent is closest to 0, so that a shifted crossing reads as a value (a fail),
    # not as a missing one.
    e = exps.sort_values("gamma")
    end = e.iloc[:2] if abs(e["exponent"].iloc[0]) < abs(e["exponent"].iloc[-1]) else e.iloc[-2:]
    (g0, g1), (x0, x1) = end["gamma"].to_numpy(float), end["exponent"].to_numpy(float)
    return float(g0 - x0 * (g1 - g0) / (x1 - x0)) if x1 != x0 else float("nan")


def validate_phase(cfg):
    _validate_model(cfg, reference_needed=False)
    check(cfg, "model.gamma", float, low=-1.0, high=2.0)


def memory_phase(cfg):
    """Peak bytes of one (D, gamma): training all reps plus the local updates [S, L, N, M]."""
    m = cfg.model
    return train_bytes(m.reps, m.L, m.M, m.D, m.N, m.K) + FLOAT * m.reps * m.L * m.N * m.M * 3 + 2**26


register(
    Experiment(
        name="resnet_phase",
        family="resnet",
        description="phase diagram of the residual scale D^gamma/(LM): local updates vs D",
        figure="phase diagram",
        run=run_phase,
        claims=claims_phase,
        validate=validate_phase,
        memory=memory_phase,
        memory_keys="model.L, model.M, model.D, model.reps",
    )
)
