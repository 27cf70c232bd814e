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
and at step K (propagation of chaos: each unit of a network is a copy of a pool particle, and its
limit copy is that particle trained by the RK4 mean ODE, read at the layer's depth):
    chaos       per rep, the RMS over draws, layers, units and coordinates of the trained units'
                displacements (u_K − u_0, v_K − v_0) minus their limit copies', relative to the copies'
                RMS (`coupling_distance`): a Sznitman coupling, so it bounds the distance between the
                trained units' empirical law and the limit's.  A unit feels the others only through
                the layers' empirical measures, so the distance is O(1/L + 1/√(LM))
    chaos_euler (jobs with M = M_p) the same for the pool's Euler network: its depth part alone, O(1/L)

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

RK4_VERSION = 2  # bump when the numerics of the RK4 reference change (invalidates cached ones)


def pool(cfg, rt):
    """The M_p particles (u, v) of each rep, [S, M_p, D] each (N(0, D·I), as every unit)."""
    m = cfg.model
    U, V = draws.units(_seeds(cfg), 1, m.M_p, m.D, "pool", dtype=rt.dtype, device=rt.device)
    return U[:, 0], V[:, 0]


def rk4_reference(cfg, rt):
    """{"f": [S, K+1, N, d_out], "dU", "dV": [S, 2·L_r + 1, M_p, D]} of the RK4 particle mean ODE
    (its outputs at every step, its node particles' displacements after K steps), cached by all
    that defines it."""
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
        return {
            "f": out["f"].cpu(),
            "dU": (out["U"] - U0[:, None]).cpu(),
            "dV": (out["V"] - V0[:, None]).cpu(),
        }

    ref = cache.cached("resnet_rk4_ref", key, compute, root=cfg.cache_dir)
    return {k: v.to(device=rt.device, dtype=rt.dtype) for k, v in ref.items()}


def pool_draws(cfg, rt, U0, V0):
    """R networks per rep with units drawn i.i.d. from its pool: U, V [S·R, L, M, D] (rep-major),
    and the pool index of every unit, [S, R, L, M] (which particle it is a copy of)."""
    m = cfg.model
    Us, Vs, idxs = [], [], []
    for s, seed in enumerate(_seeds(cfg)):
        g = runtime.generator(seed, "resnet", "pool-draw", m.L, m.M, m.M_p, m.D)
        idx = torch.randint(m.M_p, (m.draws, m.L * m.M), generator=g).to(rt.device)
        Us.append(U0[s][idx].reshape(m.draws, m.L, m.M, m.D))
        Vs.append(V0[s][idx].reshape(m.draws, m.L, m.M, m.D))
        idxs.append(idx.reshape(m.draws, m.L, m.M))
    return torch.cat(Us).contiguous(), torch.cat(Vs).contiguous(), torch.stack(idxs)


def coupling_distance(dU, dV, dU_lim, dV_lim, idx):
    """Per rep, the RMS distance of the trained units' displacements (dU, dV [S, R, L, M, D]) to their
    limit copies' (the displacements of the same pool particles in the RK4 mean ODE, read at each
    layer's depth: dU_lim, dV_lim [S, L, M_p, D] from `meanode.at_layers`), relative to the RMS of
    the copies' displacements: [S].  `idx` [S, R, L, M]: the pool particle each unit copies."""
    S, L = dU.shape[0], dU.shape[2]
    layer = torch.arange(L, device=idx.device)[None, :, None]
    num = torch.zeros(S, dtype=dU.dtype, device=dU.device)
    den = torch.zeros_like(num)
    for s in range(S):
        for net, lim in ((dU[s], dU_lim[s]), (dV[s], dV_lim[s])):
            copy = lim[layer, idx[s]]  # [R, L, M, D]
            num[s] += (net - copy).pow(2).sum()
            den[s] += copy.pow(2).sum()
    return (num / den).sqrt()


def run_limit(cfg):
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    S, R = m.reps, m.draws
    lim = rk4_reference(cfg, rt)
    ref = lim["f"]  # [S, K+1, N, d_out]
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U0, V0 = pool(cfg, rt)
    U, V, idx = pool_draws(cfg, rt, U0, V0)
    rep = lambda t: t.repeat_interleave(R, dim=0)  # every draw of a rep shares its data
    out = model.train(rep(W_E), rep(W_U), U, V, rep(X), rep(Y), m.alpha, m.eta, m.K, m.sigma)
    f = out["f"].reshape(S, R, *ref.shape[1:])  # [S, R, K+1, N, d_out]
    diff = f - ref[:, None]
    per_step = {
        "err_one": diff.pow(2).mean(dim=(1, -2, -1)).sqrt(),
        "loss": out["loss"].reshape(S, R, -1).mean(1),
    }
    dU_lim, dV_lim = meanode.at_layers(lim["dU"], m.L), meanode.at_layers(lim["dV"], m.L)
    shape = (S, R, m.L, m.M, m.D)
    final = {
        "chaos": coupling_distance(
            (out["U"] - U).reshape(shape), (out["V"] - V).reshape(shape), dU_lim, dV_lim, idx
        )
    }
    if m.M == m.M_p:
        U_e, V_e = meanode.tied_units(U0, V0, m.L)
        euler = model.train(W_E, W_U, U_e, V_e, X, Y, m.alpha, m.eta, m.K, m.sigma)
        per_step["err_euler"] = (euler["f"] - ref).pow(2).mean(dim=(-2, -1)).sqrt()
        every = torch.arange(m.M_p, device=idx.device).expand(S, 1, m.L, -1)  # layer l holds the pool
        tied = (S, 1, m.L, m.M_p, m.D)
        final["chaos_euler"] = coupling_distance(
            (euler["U"] - U_e).reshape(tied), (euler["V"] - V_e).reshape(tied), dU_lim, dV_lim, every
        )
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha, "M_p": m.M_p, "L_r": m.L_r, "draws": R}
    rows = []
    for metric, v in per_step.items():
        rows += per_seed_rows(v, _seeds(cfg), coords, metric, per_step=True)
    for metric, v in final.items():
        rows += per_seed_rows(v, _seeds(cfg), {**coords, "step": m.K}, metric)
    return rows


def claims_limit(table):
    """Against the RK4 limit: the pool's Euler network (the M → ∞ end: no 1/√(LM) term) errs like
    1/L, and one network of i.i.d. draws like 1/√M at the largest L (where b/√(LM) ≫ a/L): both
    terms of Thm 1 are tight.  Each exponent is claimed at step K and at every trained step
    k ∈ {K/4, K/2, K}; these fail with training off in the networks (the RK4 limit, its own code,
    still trains: the error at K is then the limit's O(1) displacement, flat in L and M).  The k = 0
    readings are the forward pass (width: the central limit theorem of i.i.d. blocks, an identity;
    depth: Euler's first order on the pool's initial drift, a cross-check of the integrators).

    Propagation of chaos (summary §2): every unit of a network is a copy of a pool particle, whose
    limit trajectory is that particle's in the RK4 mean ODE.  The coupling distance of the trained
    units' displacements to their copies' (`coupling_distance`) falls with M at the largest L (paper,
    one-sided), at the derived rate 1/√(LM), and the Euler network's like 1/L (its depth part alone).

    Uncertainties are seed-bootstrap SDs over whole reps (pool, data and draws), so the seed-to-seed
    spread of the exponents is in them."""
    scale = _scale(table)
    trained = trained_claim("resnet_limit", table, scale)
    k_all = table[table["step"].isin(analysis.k_steps(table))]
    d_target, w_target = ranges.value("limit_depth_slope"), ranges.value("limit_width_slope")
    d_tol, w_tol = ranges.tol("limit_depth_slope", scale), ranges.tol("limit_width_slope", scale)
    ks = analysis.trained_steps(table)
    d_worst, d_k, n_dk = analysis.worst_step(k_all, analysis.limit_depth_slope, d_target, ks)
    w_worst, w_k, n_wk = analysis.worst_step(k_all, analysis.limit_width_slope, w_target, ks)
    at0 = table[table["step"] == 0].assign(step=0)
    depth0, _, n_d0 = analysis.limit_depth_slope(at0)
    width0, _, n_w0 = analysis.limit_width_slope(at0)
    table = last_step_rows(table)
    depth, M_p, n_d = analysis.limit_depth_slope(table)
    width, L_max, n_w = analysis.limit_width_slope(table)
    chaos, L_c, n_c = analysis.limit_chaos_slope(table)
    widest = ranges.RANGES["chaos_decay"]["widest"]
    chaos_w, _, n_cw = analysis.limit_chaos_slope(table, widest)
    chaos_e, n_ce = analysis.limit_chaos_euler_slope(table)
    seeds = n_seeds(table)
    kw = {"how": "seed bootstrap SD", "seeds": seeds, "min_points": 3}
    d_source = f"{THM1}; {TIGHT} (the 1/L term: exponent −1)"
    w_source = f"{THM1}; {TIGHT} (the 1/√(LM) term: exponent −1/2 in M)"
    every_k = "('after k GD steps': every trained k)"
    d_power, w_power = ranges.power("limit_depth_slope", scale), ranges.power("limit_width_slope", scale)
    k0 = "k = 0 (the forward pass, before training)"
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
            kind="paper",
            source=d_source,
            **d_power,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "depth exponent of the pool's Euler network at every trained GD step k = K/4, K/2, K "
            "(the one farthest from −1)",
            d_worst,
            d_target,
            d_tol,
            f"{scale}: worst at k = {d_k}",
            u=boot_sd(k_all, lambda t: analysis.worst_step(t, analysis.limit_depth_slope, d_target, ks)[0]),
            points=n_dk,
            kind="paper",
            source=f"{THM1} {every_k}; {TIGHT}",
            **d_power,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            f"depth exponent of the pool's Euler network at {k0}",
            depth0["slope"],
            d_target,
            d_tol,
            f"{scale}: {depth0.describe('slope')}",
            u=boot_sd(at0, lambda t: analysis.limit_depth_slope(t)[0]["slope"]),
            points=n_d0,
            kind="cross-check",
            source="the Euler network of the pool vs the RK4 scheme of the same ODE before training: "
            "Euler's first order on the pool's initial drift (mfx/resnet/ranges.py limit_k0)",
            statement_id="chizat.thm1/depth",
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
            kind="paper",
            source=w_source,
            **w_power,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "width exponent at the largest L at every trained GD step k = K/4, K/2, K (the one farthest "
            "from −1/2)",
            w_worst,
            w_target,
            w_tol,
            f"{scale}: worst at k = {w_k}",
            u=boot_sd(k_all, lambda t: analysis.worst_step(t, analysis.limit_width_slope, w_target, ks)[0]),
            points=n_wk,
            kind="paper",
            source=f"{THM1} {every_k}; {TIGHT}",
            **w_power,
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            f"width exponent of one network at the largest L at {k0}",
            width0["slope"],
            w_target,
            w_tol,
            f"{scale}: {width0.describe('slope')}",
            u=boot_sd(at0, lambda t: analysis.limit_width_slope(t)[0]["slope"]),
            points=n_w0,
            kind="identity",
            source="before training the error is the fluctuation of a sum of L·M i.i.d. blocks: the "
            "central limit theorem fixes −1/2 (mfx/resnet/ranges.py limit_k0)",
            statement_id="chizat.thm1/width",
            **kw,
        ),
        Claim.at_most(
            "resnet_limit",
            "propagation of chaos: the trained units' coupling distance to their limit copies falls "
            f"with M at the largest L (exponent over M ≥ M_max/{widest:g}, the widest networks)",
            chaos_w["slope"],
            ranges.value("chaos_decay"),
            f"{scale}, L = {L_c:g}: {chaos_w.describe('slope')} (over every M: {chaos.describe('slope')})",
            u=boot_sd(table, lambda t: analysis.limit_chaos_slope(t, widest)[0]["slope"]),
            points=n_cw,
            kind="paper",
            source="Chizat summary §2: 'durch die asymptotische Unabhängigkeit der Einheiten bleibt "
            "dieses Verhalten während des gesamten Trainings erhalten' (propagation of chaos); the "
            "coupling form and the −¼ margin are ours (mfx/resnet/ranges.py chaos_decay)",
            **ranges.power("chaos_decay", scale),
            **{**kw, "min_points": 2},
        ),
        Claim.within(
            "resnet_limit",
            "propagation of chaos at rate 1/√(LM): exponent in M of the coupling distance at the largest L",
            chaos["slope"],
            ranges.value("chaos_rate"),
            ranges.tol("chaos_rate", scale),
            f"{scale}, L = {L_c:g}: {chaos.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_chaos_slope(t)[0]["slope"]),
            points=n_c,
            kind="derived",
            source="derivation: mfx/resnet/ranges.py chaos_rate (a unit feels the others only through "
            "the layers' empirical measures, whose fluctuation is O(1/√(LM)))",
            **ranges.power("chaos_rate", scale),
            **kw,
        ),
        Claim.within(
            "resnet_limit",
            "propagation of chaos, depth part: exponent in L of the Euler network's coupling distance",
            chaos_e["slope"],
            ranges.value("chaos_euler_rate"),
            ranges.tol("chaos_euler_rate", scale),
            f"{scale}, M = M_p: {chaos_e.describe('slope')}",
            u=boot_sd(table, lambda t: analysis.limit_chaos_euler_slope(t)[0]["slope"]),
            points=n_ce,
            kind="derived",
            source="derivation: mfx/resnet/ranges.py chaos_euler_rate (no sampling fluctuation: the "
            "depth discretisation alone, O(1/L))",
            **ranges.power("chaos_euler_rate", scale),
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
