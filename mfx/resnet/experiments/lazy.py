"""resnet_lazy (lazy ODE regime): alpha sweep of the feature movement, the distance to the
tangent model and the distance to the tangent mean ODE limit (Chizat's whole lazy error law)."""

from __future__ import annotations

import numpy as np

from mfx import runtime
from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.fit import bootstrap_sd
from mfx.resnet import draws, model, ranges, tangent
from mfx.resnet.analysis import (
    LIMIT_INITS,
    lazy_depth_slope,
    lazy_fall_fit,
    lazy_fits,
    lazy_limit_fit,
    lazy_size_slope,
    paired_slope,
    untrained,
)
from mfx.resnet.experiments.common import (
    FLOAT,
    _inputs,
    _scale,
    _seeds,
    _validate_model,
    boot_sd,
    cached_reference,
    last_step_rows,
    n_seeds,
    per_seed_rows,
    train_bytes,
    trained_claim,
)
from mfx.resnet.ranges import LAZY, THM2


def run_lazy(cfg):
    """One alpha: the network and its linearisations trained from the same init (no reference).

    The α sweep uses paired units (model.init = paired: unit j + M/2 = (u_j, −v_j)), so that the
    network is exactly h_L = h_0 at init.  With i.i.d. units the random initial residual of size
    alpha·√(D/(LM)) (the α/√(LM) term of the lazy rate, science §1.1) dominates long before
    alpha = 64: at L = M = 32, D = 16 the run leaves the lazy regime from alpha ≈ 16 and diverges
    at 64, whereas alpha ≪ √(LM) would need L·M ≫ 64² units per rep.

    Metrics per rep:
      local_update   RMS over (l, j, n) of <u_K − u_0, h_{l-1}>/D at step K: the feature movement
                     caused by the units' own updates.  (The total pre-activation change also holds
                     the O(1) change of h that any O(1) output change needs, in every regime.)
      rel_dU         ‖U_K − U_0‖ / ‖U_0‖ at step K
      lin_dist       RMS of f − f_lin at every step, f_lin: the blockwise-linearised network (each
                     block linear in its own parameters, h propagated exactly; the neural tangent
                     ODE of the lazy regime) trained by GD at the same rate — the claim's distance
      tangent_dist   the same for the fully linearised network f(θ0) + J(θ0)(θ − θ0).  Finding: in a
                     deep ResNet this one does not vanish as alpha → ∞ (it levels off at ≈ 0.08 at
                     L = M = 16): the O(1) change of h needed to move the output is propagated
                     nonlinearly through depth, so the lazy limit is linear in the parameters only
                     block by block.
      dist_f, loss   RMS of f − f_0 and the loss at every step
      lim_dist       RMS of f − f_lim at step K, f_lim: the tangent mean ODE limit (`tangent.limit`,
                     an L_ref × M_ref paired blockwise model sharing the rep's data, W_E, W_U;
                     independent of alpha, so one cached reference serves the whole sweep), for
                     networks of every size L = M in model.limit_sizes and both inits (column
                     `init`): the whole error law O(1/alpha + 1/L + alpha/√(LM)) and its optimum.
                     The i.i.d. networks' distance is carried by their random initial residual, one
                     draw of L·M units: each rep's value is the RMS over model.iid_draws independent
                     unit draws (the reference, most of the sweep's cost, is shared by them), which
                     cuts the rep-to-rep spread (CV 11–39 % with one draw) that the size slope reads
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(
        _seeds(cfg), m.L, m.M, m.D, "grid", m.init == "paired", dtype=rt.dtype, device=rt.device
    )
    out = model.train(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    block = model.train_blockwise_linear(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    lin = model.train_tangent(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    local = model.local_updates(W_E, W_U, U, out["U"], out["V"], X, m.alpha, m.sigma)
    per_step = {
        "lin_dist": ((out["f"] - block["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "tangent_dist": ((out["f"] - lin["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "dist_f": ((out["f"] - out["f"][:, :1]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "loss": out["loss"],
    }
    final = {
        "local_update": local.pow(2).flatten(1).mean(1).sqrt(),
        "rel_dU": (out["U"] - U).flatten(1).norm(dim=1) / U.flatten(1).norm(dim=1),
    }
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha}
    seeds = _seeds(cfg)
    rows = []
    f_lim = limit_reference(cfg, rt)[:, -1]
    for n in m.limit_sizes:
        for init in LIMIT_INITS:
            sq = 0.0
            draws_n = m.iid_draws if init == "iid" else 1  # paired units have no random residual to average
            for d in range(draws_n):  # draw 0 is the one of a single-draw run ("limit")
                tag = "limit" if d == 0 else f"limit{d}"
                U, V = draws.units(seeds, n, n, m.D, tag, init == "paired", dtype=rt.dtype, device=rt.device)
                f = model.train(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)["f"][:, -1]
                sq = sq + ((f - f_lim) ** 2).mean(dim=(-2, -1)) / draws_n
            dist = sq.sqrt()
            rows += per_seed_rows(
                dist,
                seeds,
                {**coords, "L": n, "M": n, "L_ref": m.L_ref, "init": init, "step": m.K},
                "lim_dist",
            )
    for metric, e in per_step.items():
        rows += per_seed_rows(e, seeds, coords, metric, per_step=True)
    for metric, e in final.items():
        rows += per_seed_rows(e, seeds, {**coords, "step": m.K}, metric)
    return rows


def claims_lazy(table):
    """Feature movement ∝ 1/alpha (lazy regime: parameters move O(1/alpha) while the output moves
        O(1)); the network stays within O(1/alpha) of its (blockwise) tangent model, so that distance
        decays at least like 1/alpha: its slope is ≤ −1 (measured ≈ −1.7: the output distance is
        second order in the O(1/alpha) parameter movement, times alpha).

        The whole error law (Theorem 2) on the distance to the tangent mean ODE limit, fitted as
        A·alpha^p + B·alpha^q per size L = M (`analysis.lazy_limit_fit`, i.i.d. init): it falls at
        least like 1/alpha (p ≤ −1; measured ≈ −1.4, faster than the bound, as above), rises like
        alpha/√(LM) (q = +1: fixed by the α/(LM) parametrisation of the initial residual, an identity,
    see ranges.RANGES["lazy_q"]), and the optimum alpha* grows like (LM)^{1/4} across the sizes.  With
        paired units the alpha/√(LM) term is absent (derivation in `mfx.resnet.tangent`): that distance
        does not grow with alpha (slope ≤ the bound of ranges.RANGES["lazy_paired_flat"] over alpha ≥ 2).

        Why the falling term is α^−2 with paired units, not the bound's α^−1.  Each unit moves O(1/α)
        (the local-movement identity) and the tangent model drops the block's remainder beyond first
        order, α·O(δθ²) = O(1/α) in general.  A pair (u, v), (u, −v) (block v σ(<u, h>/D)) gets equal
        v-gradients and opposite u-gradients, so to first order it moves to (u + δu, v + δv),
        (u − δu, −v + δv), and its block is v[σ(P + A) − σ(P − A)] + δv[σ(P + A) + σ(P − A)] with
        A = <δu, h>/D: odd in A where multiplied by v, even where by δv.  The second-order term
        v·σ″(P)·A² cancels within the pair for any σ, and the remainder is δv·σ″·A² + v·σ‴·A³/3 =
        O(δθ³): times α, α^−2, the leading order as α → ∞.  Read on the falling term alone: the
        network's distance to its own blockwise tangent model, which with paired units is α-free, so
        that the distance to the limit is this term plus an α-free floor vector
        (`analysis.lazy_fall_fit`, α ≥ α_max/4; post hoc, ranges.RANGES["lazy_fall"]).  The i.i.d. fit's
        p ≈ −1.5 mixes this α^−2 with the rising term's curvature; Thm 2's α^−1 is a bound, met
        (lazy_p) and not tight here.
        With i.i.d. units the mean second-order remainder cancels too (the law is even in v), which
        predicts α^−2 plus a fluctuation B/(α√(LM)).  Measured, not claimed (quick, seed 0, 32 reps,
        L = M = n ∈ {16, 32, 64, 128}, model.init = iid and paired, α = 1..32): the i.i.d. network's
        distance to its own blockwise tangent model exceeds the paired one by e = √(iid² − paired²);
        over 8 ≤ α ≤ n/4 a power law e ∝ α^a n^b reads a = −0.50 ± 0.37, b = −1.36 ± 0.37 (seed-bootstrap
        SDs), and B/(αn) + C·α/n² fits B = 1.70 ± 0.38, C = 0.09 ± 0.04 within 0.86–1.39 of every point:
        consistent with the prediction (a = b = −1), not resolved (seed 1, 128 reps, L_ref = M_ref = 8:
        a = −0.33 ± 0.31, b = −1.55 ± 0.31, B = 1.76 ± 0.43, C = 0.12 ± 0.04: the rep spread of these
        distances is heavy-tailed, so 4× the reps barely cut u).  At α ≈ 0.2·√(LM) this term is
        as large as the α^−2 one (α²·paired ≈ 0.3 at α = 16, n = 64), and both are small against the
        initial residual's α/√(LM), which carries the i.i.d. distance to the limit there.
        At fixed alpha the bound's size terms: with paired units (at the largest alpha, sizes
        L ≤ L_ref/4: `analysis.lazy_depth_slope`) the distance falls like 1/L (the 1/L term), with
        i.i.d. units (at the largest alpha ≤ √(LM)/4 with ≥ 3 sizes: `analysis.lazy_size_slope`)
        like 1/√(LM) (the alpha/√(LM) term, which carries it there: the central limit theorem of the
        initial residual, an identity like q); the sizes are L = M, so the two slopes are both −1 in L.

        Uncertainties are seed-bootstrap SDs (the fit SEs of the rep means ignore the rep noise)."""
    scale = _scale(table)
    trained = trained_claim("resnet_lazy", table, scale, "chizat.thm2/alpha")
    still = untrained(table, "resnet_lazy")  # the α^−2 claim is about trained networks
    table = last_step_rows(table)  # the claims read step K only: a 16× smaller table to bootstrap
    fits, mean = lazy_fits(table)
    loc, tan = fits["local_update"], fits["lin_dist"]
    seeds = n_seeds(table)
    law = lazy_limit_fit(table)
    flat, n_flat = paired_slope(table)
    fall, alpha_fall = lazy_fall_fit(table)
    depth, alpha_depth, n_depth = lazy_depth_slope(table)
    rise, alpha_rise, n_rise = lazy_size_slope(table, "iid")
    stars = ", ".join(
        f"LM={LM:g}: {a:.2f}" for LM, a in zip(law["alpha_star"]["LM"], law["alpha_star"]["alpha_star"])
    )
    law_detail = f"{scale}: p = {law['p']:.2f}, q = {law['q']:.2f}, r = {law['r']:.3f}; alpha* {stars}"

    # one bootstrap of the law's fit gives the SDs of p, q and r
    replicas = []

    def fit_p(t):
        replicas.append(lazy_limit_fit(t))
        return replicas[-1]["p"]

    sd_p = boot_sd(table, fit_p) if law["sizes"] >= 2 else float("nan")

    def law_sd(key):
        if key == "p" or not replicas:
            return sd_p
        return bootstrap_sd(np.array([r[key] for r in replicas]))

    return [
        Claim.within(
            "resnet_lazy",
            "slope of the local feature movement vs α",
            loc["slope"],
            ranges.value("lazy_local_slope"),
            ranges.tol("lazy_local_slope", scale),
            f"{scale}: {loc.describe('slope')}",
            u=boot_sd(table, lambda t: lazy_fits(t)[0]["local_update"]["slope"]),
            how="seed bootstrap SD",
            points=len(mean["local_update"]),
            seeds=seeds,
            min_points=3,
            kind="identity",
            source="the rate η·L·M·D/α² with the residual α/(LM) makes each unit's step ∝ η/α: the local "
            "movement ∝ 1/α by construction (issue 21); kept as a check of that parametrisation",
            **ranges.power("lazy_local_slope", scale),
        ),
        Claim.at_most(
            "resnet_lazy",
            "slope of the distance to the (blockwise) tangent model vs α (decays at least like 1/α)",
            tan["slope"],
            ranges.value("lazy_tangent_slope"),
            f"{scale}: {tan.describe('slope')} (the bound's exponent is −1: faster decay, the bound is not "
            f"tight here); full linearisation: {fits['tangent_dist'].describe('slope')}",
            u=boot_sd(table, lambda t: lazy_fits(t)[0]["lin_dist"]["slope"]),
            how="seed bootstrap SD",
            points=len(mean["lin_dist"]),
            seeds=seeds,
            min_points=3,
            kind="paper",
            source=f"{LAZY}; {THM2} (the tangent mean ODE is the linearised mean ODE: the blockwise "
            "tangent model of the same network is its finite-size version)",
            **ranges.power("lazy_tangent_slope", scale),
        ),
        Claim.at_most(
            "resnet_lazy",
            "distance to the tangent mean ODE limit (i.i.d. init) falls at least like 1/α: exponent p",
            law["p"],
            ranges.value("lazy_p"),
            law_detail + f" (the 1/α term measured as α^{law['p']:.2f}: faster than the bound's α^−1, "
            "which is not tight here)",
            u=law_sd("p"),
            how="seed bootstrap SD",
            points=law["n"],
            seeds=seeds,
            min_points=9,
            kind="paper",
            source=THM2,
            **ranges.power("lazy_p", scale),
        ),
        Claim.within(
            "resnet_lazy",
            "paired init: the falling term of the distance to the tangent mean ODE limit (the network's "
            "distance to its own blockwise tangent model) falls like α^−2 as α → ∞ (the pair cancels the "
            "second-order remainder; α ≥ α_max/4)",
            fall["slope"],
            ranges.value("lazy_fall"),
            ranges.tol("lazy_fall", scale),
            f"{scale}, α ≥ {alpha_fall:g}: {fall.describe('slope')}; Thm 2's bound α^−1 holds and is not "
            "tight here",
            u=boot_sd(table, lambda t: lazy_fall_fit(t)[0]["slope"]),
            how="seed bootstrap SD",
            points=fall.n,
            seeds=seeds,
            min_points=3,
            kind="derived",
            untrained=still,
            source="derivation: mfx/resnet/experiments/lazy.py claims_lazy (a pair (u, v), (u, −v) moves by "
            "(δu, δv), (−δu, δv) to first order, so its block's second-order remainder cancels: the "
            f"falling term of {THM2} is α·(1/α)³ = α^−2 here)",
            **ranges.power("lazy_fall", scale),
        ),
        Claim.within(
            "resnet_lazy",
            "distance to the tangent mean ODE limit (i.i.d. init) rises like α/√(LM): exponent q "
            "(fixed by the α/(LM) parametrisation of the initial residual)",
            law["q"],
            ranges.value("lazy_q"),
            ranges.tol("lazy_q", scale),
            law_detail,
            u=law_sd("q"),
            how="seed bootstrap SD",
            points=law["n"],
            seeds=seeds,
            min_points=9,
            kind="identity",
            source="the i.i.d. network's initial residual is α × a fixed random sum of L·M blocks and the "
            "tangent limit starts at h_0 whatever α, so at k = 0 the distance is ∝ α identically; at large "
            f"α it carries the trained distance too (mfx/resnet/ranges.py lazy_q; the term of {THM2})",
            **ranges.power("lazy_q", scale),
        ),
        Claim.within(
            "resnet_lazy",
            "the 1/L term at fixed α (paired init, no α/√(LM) term): slope of the distance to the tangent "
            "mean ODE limit vs L = M ≤ L_ref/4 at the largest α",
            depth["slope"],
            ranges.value("lazy_depth_slope"),
            ranges.tol("lazy_depth_slope", scale),
            f"{scale}, α = {alpha_depth:g}: {depth.describe('slope')}",
            u=boot_sd(table, lambda t: lazy_depth_slope(t)[0]["slope"]),
            how="seed bootstrap SD",
            points=n_depth,
            seeds=seeds,
            min_points=3,
            kind="paper",
            source=f"{THM2}: at fixed α the 1/L term (mfx/resnet/ranges.py lazy_depth_slope)",
            **ranges.power("lazy_depth_slope", scale),
        ),
        Claim.within(
            "resnet_lazy",
            "the α/√(LM) term at fixed α (i.i.d. init): slope of the distance to the tangent mean ODE "
            "limit vs √(LM) (L = M) at the largest α ≤ √(LM)/4 (fixed by the initial residual)",
            rise["slope"],
            ranges.value("lazy_rise_size_slope"),
            ranges.tol("lazy_rise_size_slope", scale),
            f"{scale}, α = {alpha_rise:g}: {rise.describe('slope')}",
            u=boot_sd(table, lambda t: lazy_size_slope(t, "iid")[0]["slope"]),
            how="seed bootstrap SD",
            points=n_rise,
            seeds=seeds,
            min_points=3,
            kind="identity",
            source="the i.i.d. network's initial residual is α × a random sum of L·M blocks / (LM): at fixed α "
            "its central limit theorem gives 1/√(LM), trained or not (mfx/resnet/ranges.py "
            f"lazy_rise_size_slope; the term of {THM2})",
            **ranges.power("lazy_rise_size_slope", scale),
        ),
        Claim.within(
            "resnet_lazy",
            "optimal α* of the distance to the limit grows like (LM)^(1/4): exponent r",
            law["r"],
            ranges.value("lazy_r"),
            ranges.tol("lazy_r", scale),
            law_detail,
            u=law_sd("r"),
            how="seed bootstrap SD",
            points=law["sizes"],
            seeds=seeds,
            min_points=3,
            kind="derived",
            source=f"derivation: mfx/resnet/analysis.py lazy_limit_fit (balancing A/α and B·α/√(LM) of {THM2})",
            **ranges.power("lazy_r", scale),
        ),
        Claim.at_most(
            "resnet_lazy",
            "paired init: the distance to the limit does not grow with α (no α/√(LM) term)",
            flat,
            ranges.value("lazy_paired_flat"),
            f"{scale}: slope over alpha ≥ 2 (pooled over sizes) = {flat:.3f}",
            u=boot_sd(table, lambda t: paired_slope(t)[0]),
            how="seed bootstrap SD",
            points=n_flat,
            seeds=seeds,
            min_points=3,
            kind="derived",
            source="derivation: mfx/resnet/tangent.py (paired units: no initial residual, no α/√(LM) term)",
            **ranges.power("lazy_paired_flat", scale),
        ),
        trained,
    ]


def limit_reference(cfg, rt):
    """f [S, K+1, N, d_out] of the tangent mean ODE reference (`tangent.limit`), paired units, cached
    by all that defines it (not alpha: it does not depend on it)."""
    m = cfg.model
    run = lambda W_E, W_U, U, V, X, Y: {"f": tangent.limit(W_E, W_U, U, V, X, Y, m.eta, m.K, m.sigma)["f"]}
    return cached_reference(cfg, rt, "resnet_tangent_limit", m.D, True, run)["f"]


def validate_lazy(cfg):
    _validate_model(cfg, reference_needed=False)
    m = cfg.model
    check(cfg, "model.M_ref", int, low=2)
    check(cfg, "model.L_ref", int, low=1)
    check(cfg, "model.iid_draws", int, low=1)
    if m.M_ref % 2:
        raise ConfigError(f"model.M_ref must be even (paired units of the limit reference; got {m.M_ref})")
    sizes = list(m.limit_sizes)
    if any(not isinstance(n, int) or isinstance(n, bool) or n < 2 or n % 2 for n in sizes):
        raise ConfigError(f"model.limit_sizes must be a list of even integers ≥ 2 (got {sizes})")
    if sizes and max(sizes) > min(m.L_ref, m.M_ref):
        raise ConfigError(f"model.L_ref and model.M_ref must be ≥ max(model.limit_sizes) = {max(sizes)}")


def memory_lazy(cfg):
    """Peak bytes of one alpha: the network, its blockwise linearisation (autograd keeps ≈ 8
    activations [S, N, D or M] per layer and step's graph) and the full tangent model."""
    m = cfg.model
    S, L, M, D, N = m.reps, m.L, m.M, m.D, m.N
    own = 3 * train_bytes(S, L, M, D, N, m.K) + FLOAT * 8 * S * L * N * (D + M)
    n = max(m.limit_sizes, default=0)
    ref = 3 * train_bytes(1, m.L_ref, m.M_ref, D, N, m.K) + FLOAT * 8 * m.L_ref * N * (D + m.M_ref) * (
        m.K + 1
    )
    return max(own, train_bytes(S, n, n, D, N, m.K), ref) + 2**26


register(
    Experiment(
        name="resnet_lazy",
        family="resnet",
        description="alpha sweep: feature movement and distance to the tangent model",
        figure="lazy ODE regime",
        run=run_lazy,
        claims=claims_lazy,
        validate=validate_lazy,
        memory=memory_lazy,
        memory_keys="model.L, model.M, model.L_ref, model.M_ref, model.limit_sizes, model.D, model.reps",
    )
)
