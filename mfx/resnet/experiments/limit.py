"""resnet_limit (tight exponents against an independent limit): errors of L × M networks to the RK4
mean ODE of their own unit law (issue 22 §2).

Each rep draws M_p particles (the "pool"); the unit law μ is their empirical measure, and the limit
is the particle mean ODE integrated by RK4 in depth (`mfx.resnet.meanode`, L_r steps: its own depth
error ∝ L_r^−4 is far below 1/L), trained by the mean-field GD of the same rate.  A network's units
are drawn i.i.d. from the pool (`draws` independent networks per rep), so its L → ∞ limit is exactly
that ODE: no reference sampling error and no reference of the same code.

Per rep, at every step k (f_r: the outputs of draw r = 1..R, f_lim: the reference):
    err_one   RMS over draws and (n, output) of f_r − f_lim: the error of one network, a/L + b/√(LM)
    bias2     ‖mean_r f_r − f_lim‖² − Var_r(f)/R (per (n, output) coordinate, averaged): an unbiased
              estimate of the squared bias ‖E f − f_lim‖², whose fluctuation part b²/(LM) cancels, so
              that the deterministic 1/L (depth discretisation) term is seen by itself
    loss      the networks' training loss (mean over draws)
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
    U, V = pool_draws(cfg, rt, *pool(cfg, rt))
    rep = lambda t: t.repeat_interleave(R, dim=0)  # every draw of a rep shares its data
    out = model.train(rep(W_E), rep(W_U), U, V, rep(X), rep(Y), m.alpha, m.eta, m.K, m.sigma)
    f = out["f"].reshape(S, R, *ref.shape[1:])  # [S, R, K+1, N, d_out]
    diff = f - ref[:, None]
    per_step = {
        "err_one": diff.pow(2).mean(dim=(1, -2, -1)).sqrt(),
        "bias2": (diff.mean(1).pow(2) - f.var(1) / R).mean(dim=(-2, -1)),
        "loss": out["loss"].reshape(S, R, -1).mean(1),
    }
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha, "M_p": m.M_p, "L_r": m.L_r, "draws": R}
    rows = []
    for metric, v in per_step.items():
        rows += per_seed_rows(v, _seeds(cfg), coords, metric, per_step=True)
    return rows


def claims_limit(table):
    """Against the RK4 limit: the bias (the 1/L term by itself) falls like 1/L at the largest M, and
    one network's error like 1/√M at the largest L (where b/√(LM) ≫ a/L): both terms of Thm 1 are
    tight.  The width exponent holds at every step k shown (k = 0 is the forward pass).  The bias
    exponent is claimed at k = K only: at initialisation the learned field is absent and the 1/L
    term is too small to resolve at quick (k = 0: slope −0.28 ± 0.38 on seeds 0..3; k = 3: −1.06).  Uncertainties are seed-bootstrap SDs (whole reps: pools, data and draws)."""
    scale = _scale(table)
    trained = trained_claim("resnet_limit", table, scale)
    steps = table[table["step"].isin(analysis.limit_steps(table)) & (table["metric"] == "err_one")]
    worst, worst_k, n_k = analysis.limit_width_worst_step(steps)
    table = last_step_rows(table)
    depth, M_max, n_d = analysis.limit_depth_slope(table)
    width, L_max, n_w = analysis.limit_width_slope(table)
    seeds = n_seeds(table)
    kw = {"how": "seed bootstrap SD", "seeds": seeds, "min_points": 3, "kind": "paper"}
    return [
        Claim.within(
            "resnet_limit",
            "depth exponent of the bias vs the RK4 mean ODE at the largest M (the 1/L term alone)",
            depth["slope"],
            ranges.value("limit_depth_slope"),
            ranges.tol("limit_depth_slope", scale),
            f"{scale}, M = {M_max:g}: {depth.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_depth_slope(t)[0]["slope"]),
            points=n_d,
            source=f"{THM1}; {TIGHT} (the 1/L term: exponent −1)",
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "width exponent of one network's error vs the RK4 mean ODE at the largest L",
            width["slope"],
            ranges.value("limit_width_slope"),
            ranges.tol("limit_width_slope", scale),
            f"{scale}, L = {L_max:g}: {width.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_width_slope(t)[0]["slope"]),
            points=n_w,
            source=f"{THM1}; {TIGHT} (the 1/√(LM) term: exponent −1/2 in M)",
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "width exponent at the largest L at every GD step k = 0, K/4, K/2, K (the one farthest from −1/2)",
            worst,
            ranges.value("limit_width_slope"),
            ranges.tol("limit_width_slope", scale),
            f"{scale}: worst at k = {worst_k}",
            u=boot_sd(steps, lambda t: analysis.limit_width_worst_step(t)[0]),
            points=n_k,
            source=f"{THM1} ('after k GD steps': every k, including the forward pass k = 0); {TIGHT}",
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
    """Peak bytes: the R·reps networks batched, and the RK4 reference (autograd keeps ≈ 8 activations
    per stage of each of its 2·L_r + 1 nodes)."""
    m = cfg.model
    nets = train_bytes(m.reps * m.draws, m.L, m.M, m.D, m.N, m.K)
    ref = FLOAT * m.reps * (2 * m.L_r + 1) * (6 * m.M_p * m.D + 8 * m.N * (m.D + m.M_p))
    return nets + ref + 2**26


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
