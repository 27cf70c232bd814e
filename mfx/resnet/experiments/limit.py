"""resnet_limit (tight exponents against an independent limit): errors of L × M networks to the RK4
mean ODE of their own unit law (issue 22 §2).

Each rep draws M_p particles (the "pool"); the unit law μ is their empirical measure, and the limit
is the particle mean ODE integrated by RK4 in depth (`mfx.resnet.meanode`, L_r steps: its own depth
error ∝ L_r^−4 is far below 1/L), trained by the mean-field GD of the same rate.  A network's units
are drawn i.i.d. from the pool (`draws` independent networks per rep), so its L → ∞ limit is exactly
that ODE: no reference sampling error and no reference of the same code.

Per rep, at every step k (f_r: the outputs of draw r = 1..R, f_lim: the reference):
    err_one   RMS over draws and (n, output) of f_r − f_lim: the error of one network, a/L + b/√(LM)
    err_euler (jobs with M = M_p only) RMS over (n, output) of the pool's Euler network − f_lim: an
              L-layer network whose every layer holds the whole pool (a draw of all M_p units without
              replacement), trained by the same GD.  Its layers' empirical measure is μ itself, so it
              has no 1/√(LM) fluctuation term at all, and its error is the depth (1/L) term alone
    loss      the networks' training loss (mean over draws)

Why not the bias of the i.i.d. draws (‖mean_r f_r − f_lim‖² − Var_r(f)/R, the first design): it is
unbiased, but its noise ≈ Var(f)/R ∝ 1/(R·L·M) falls more slowly than the bias² ∝ 1/L² it
estimates, so at large L it is noise (quick, M = 64, R = 16, seed 1000: per-rep bias² at L = 32 of
2e-6 … 5e-5, at L = 16 sometimes above L = 8), and its exponent scattered over seeds with SD ≈ 0.15
(fresh seeds 0/3).  The Euler network of the pool removes the fluctuation by construction instead
of by subtraction: its per-rep depth exponents spread by ≈ 0.05 (8 reps, L = 2..64, every k).
"""

from __future__ import annotations

import torch

from mfx import cache, runtime
from mfx.experiment import Claim, Experiment, check, register
from mfx.resnet import analysis, draws, meanode, model, ranges
from mfx.resnet.experiments.common import (
    FLOAT,
    _inputs,
    _scale,
    _seeds,
    _validate_model,
    boot_sd,
    last_step_rows,
    n_seeds,
    per_seed_rows,
    train_bytes,
    trained_claim,
)
from mfx.resnet.ranges import THM1, TIGHT

RK4_VERSION = 1  # bump when the numerics of the RK4 reference change (invalidates cached ones)


def pool(cfg, rt):
    """The M_p particles (u, v) of each rep, [S, M_p, D] each (N(0, D·I), as every unit)."""
    m = cfg.model
    U, V = draws.units(_seeds(cfg), 1, m.M_p, m.D, "pool", dtype=rt.dtype, device=rt.device)
    return U[:, 0], V[:, 0]


def rk4_reference(cfg, rt):
    """f [S, K+1, N, d_out] of the RK4 particle mean ODE, cached by all that defines it."""
    m = cfg.model
    key = {
        "L_r": m.L_r,
        "M_p": m.M_p,
        "D": m.D,
        "N": m.N,
        "d_in": m.d_in,
        "d_out": m.d_out,
        "eta": float(m.eta),
        "alpha": float(m.alpha),
        "K": m.K,
        "sigma": m.sigma,
        "seeds": _seeds(cfg),
        "dtype": str(rt.dtype),
        "version": RK4_VERSION,
    }

    def compute():
        X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
        U0, V0 = pool(cfg, rt)
        out = meanode.train(W_E, W_U, U0, V0, X, Y, m.L_r, m.alpha, m.eta, m.K, m.sigma)
        return {"f": out["f"].cpu()}

    ref = cache.cached("resnet_rk4_ref", key, compute, root=cfg.cache_dir)
    return ref["f"].to(device=rt.device, dtype=rt.dtype)


def pool_draws(cfg, rt, U0, V0):
    """R networks per rep with units drawn i.i.d. from its pool: U, V [S·R, L, M, D] (rep-major)."""
    m = cfg.model
    Us, Vs = [], []
    for s, seed in enumerate(_seeds(cfg)):
        g = runtime.generator(seed, "resnet", "pool-draw", m.L, m.M, m.M_p, m.D)
        idx = torch.randint(m.M_p, (m.draws, m.L * m.M), generator=g).to(rt.device)
        Us.append(U0[s][idx].reshape(m.draws, m.L, m.M, m.D))
        Vs.append(V0[s][idx].reshape(m.draws, m.L, m.M, m.D))
    return torch.cat(Us).contiguous(), torch.cat(Vs).contiguous()


def run_limit(cfg):
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    S, R = m.reps, m.draws
    ref = rk4_reference(cfg, rt)  # [S, K+1, N, d_out]
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U0, V0 = pool(cfg, rt)
    U, V = pool_draws(cfg, rt, U0, V0)
    rep = lambda t: t.repeat_interleave(R, dim=0)  # every draw of a rep shares its data
    out = model.train(rep(W_E), rep(W_U), U, V, rep(X), rep(Y), m.alpha, m.eta, m.K, m.sigma)
    f = out["f"].reshape(S, R, *ref.shape[1:])  # [S, R, K+1, N, d_out]
    diff = f - ref[:, None]
    per_step = {
        "err_one": diff.pow(2).mean(dim=(1, -2, -1)).sqrt(),
        "loss": out["loss"].reshape(S, R, -1).mean(1),
    }
    if m.M == m.M_p:
        U_e, V_e = meanode.tied_units(U0, V0, m.L)
        euler = model.train(W_E, W_U, U_e, V_e, X, Y, m.alpha, m.eta, m.K, m.sigma)["f"]
        per_step["err_euler"] = (euler - ref).pow(2).mean(dim=(-2, -1)).sqrt()
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha, "M_p": m.M_p, "L_r": m.L_r, "draws": R}
    rows = []
    for metric, v in per_step.items():
        rows += per_seed_rows(v, _seeds(cfg), coords, metric, per_step=True)
    return rows


def claims_limit(table):
    """Against the RK4 limit: the pool's Euler network (the M → ∞ end: no 1/√(LM) term) errs like
    1/L, and one network of i.i.d. draws like 1/√M at the largest L (where b/√(LM) ≫ a/L): both
    terms of Thm 1 are tight.  Each exponent is claimed at step K and at every step k ∈ {0, K/4,
    K/2, K} (k = 0 is the forward pass).  Uncertainties are seed-bootstrap SDs over whole reps
    (pool, data and draws), so the seed-to-seed spread of the exponents is in them."""
    scale = _scale(table)
    trained = trained_claim("resnet_limit", table, scale)
    steps = table[table["step"].isin(analysis.k_steps(table))]
    d_target, w_target = ranges.value("limit_depth_slope"), ranges.value("limit_width_slope")
    d_tol, w_tol = ranges.tol("limit_depth_slope", scale), ranges.tol("limit_width_slope", scale)
    d_worst, d_k, n_dk = analysis.worst_step(steps, analysis.limit_depth_slope, d_target)
    w_worst, w_k, n_wk = analysis.worst_step(steps, analysis.limit_width_slope, w_target)
    table = last_step_rows(table)
    depth, M_p, n_d = analysis.limit_depth_slope(table)
    width, L_max, n_w = analysis.limit_width_slope(table)
    seeds = n_seeds(table)
    kw = {"how": "seed bootstrap SD", "seeds": seeds, "min_points": 3, "kind": "paper"}
    d_source = f"{THM1}; {TIGHT} (the 1/L term: exponent −1)"
    w_source = f"{THM1}; {TIGHT} (the 1/√(LM) term: exponent −1/2 in M)"
    every_k = "('after k GD steps': every k, including the forward pass k = 0)"
    return [
        Claim.within(
            "resnet_limit",
            "depth exponent of the pool's Euler network vs the RK4 mean ODE (the 1/L term alone)",
            depth["slope"],
            d_target,
            d_tol,
            f"{scale}, M = M_p = {M_p:g}: {depth.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_depth_slope(t)[0]["slope"]),
            points=n_d,
            source=d_source,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "depth exponent of the pool's Euler network at every GD step k = 0, K/4, K/2, K "
            "(the one farthest from −1)",
            d_worst,
            d_target,
            d_tol,
            f"{scale}: worst at k = {d_k}",
            u=boot_sd(steps, lambda t: analysis.worst_step(t, analysis.limit_depth_slope, d_target)[0]),
            points=n_dk,
            source=f"{THM1} {every_k}; {TIGHT}",
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "width exponent of one network's error vs the RK4 mean ODE at the largest L",
            width["slope"],
            w_target,
            w_tol,
            f"{scale}, L = {L_max:g}: {width.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_width_slope(t)[0]["slope"]),
            points=n_w,
            source=w_source,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "width exponent at the largest L at every GD step k = 0, K/4, K/2, K (the one farthest from −1/2)",
            w_worst,
            w_target,
            w_tol,
            f"{scale}: worst at k = {w_k}",
            u=boot_sd(steps, lambda t: analysis.worst_step(t, analysis.limit_width_slope, w_target)[0]),
            points=n_wk,
            source=f"{THM1} {every_k}; {TIGHT}",
            **kw,
        ),
        trained,
    ]


def validate_limit(cfg):
    _validate_model(cfg, reference_needed=False)
    check(cfg, "model.M_p", int, low=1)
    check(cfg, "model.L_r", int, low=1)
    check(cfg, "model.draws", int, low=2)


def memory_limit(cfg):
    """Peak bytes: the R·reps networks batched, the pool's Euler network (reps × L × M_p), and the RK4
    reference (autograd keeps ≈ 8 activations per stage of each of its 2·L_r + 1 nodes)."""
    m = cfg.model
    nets = train_bytes(m.reps * m.draws, m.L, m.M, m.D, m.N, m.K)
    euler = train_bytes(m.reps, m.L, m.M_p, m.D, m.N, m.K) if m.M == m.M_p else 0
    ref = FLOAT * m.reps * (2 * m.L_r + 1) * (6 * m.M_p * m.D + 8 * m.N * (m.D + m.M_p))
    return nets + euler + ref + 2**26


register(
    Experiment(
        name="resnet_limit",
        family="resnet",
        description="errors to the RK4 mean ODE of the units' own law: tight 1/L and 1/√(LM) exponents",
        figure="tight exponents (independent limit)",
        run=run_limit,
        claims=claims_limit,
        validate=validate_limit,
        memory=memory_limit,
        memory_keys="model.L, model.M, model.draws, model.reps, model.M_p, model.L_r",
    )
)
