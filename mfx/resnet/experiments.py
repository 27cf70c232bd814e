"""The five ResNet experiments: cfg → numerics → rows, claims on the collected table, registration.

Every job is one grid point with all reps batched.  Errors are measured against a large reference
network (L_ref × M_ref, science §3) that shares W_E, W_U and the data of each rep; it is computed
once per (seeds, config) through `mfx.cache.cached` and shared by all jobs of a sweep.

Per-rep error metrics at every step k = 0..K (aggregated over reps as an RMS by the claims/plots,
as in the author's code):
    err_f   RMS over (n, output coordinate) of f − f_ref
    err_h   per-coordinate RMS over (n, embedding coordinate) of h_L − h_L,ref (science §4.1)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from mfx import cache, fit, runtime
from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.resnet import draws, model, plots

REF_VERSION = 1  # bump when the numerics of the reference change (invalidates cached references)


# ------------------------------------------------------------------------------------ helpers


def _seeds(m) -> list[int]:
    return list(range(m.reps))


def _inputs(cfg, rt, D):
    m = cfg.model
    return draws.data(_seeds(m), m.N, m.d_in, m.d_out, D, m.D_max, dtype=rt.dtype, device=rt.device)


def _train(cfg, rt, L, M, D, alpha, tag="grid"):
    m = cfg.model
    X, Y, W_E, W_U = _inputs(cfg, rt, D)
    U, V = draws.units(_seeds(m), L, M, D, tag, m.init == "paired", dtype=rt.dtype, device=rt.device)
    return model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)


def reference(cfg, rt, D, alpha):
    """Outputs and h_L of the L_ref × M_ref reference at every step: {"f", "h_L"} on rt.device.

    Cached by everything that defines it; computed one rep at a time (reps are independent and
    the reference's U, V are the largest tensors of a sweep).
    """
    m = cfg.model
    seeds = _seeds(m)
    key = {
        "L": m.L_ref,
        "M": m.M_ref,
        "D": D,
        "D_max": m.D_max,
        "N": m.N,
        "d_in": m.d_in,
        "d_out": m.d_out,
        "alpha": float(alpha),
        "eta": float(m.eta),
        "K": m.K,
        "sigma": m.sigma,
        "init": m.init,
        "seeds": seeds,
        "dtype": str(rt.dtype),
        "version": REF_VERSION,
    }

    def compute():
        parts = []
        for s in seeds:
            X, Y, W_E, W_U = draws.data(
                [s], m.N, m.d_in, m.d_out, D, m.D_max, dtype=rt.dtype, device=rt.device
            )
            U, V = draws.units(
                [s], m.L_ref, m.M_ref, D, "ref", m.init == "paired", dtype=rt.dtype, device=rt.device
            )
            out = model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)
            parts.append({k: out[k].cpu() for k in ("f", "h_L")})
        return {k: torch.cat([p[k] for p in parts]) for k in ("f", "h_L")}

    ref = cache.cached("resnet_ref", key, compute, root=cfg.cache_dir)
    return {k: v.to(device=rt.device, dtype=rt.dtype) for k, v in ref.items()}


def _error_rows(out, ref, coords):
    err = {
        "err_f": ((out["f"] - ref["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),  # [S, K+1]
        "err_h": ((out["h_L"] - ref["h_L"]) ** 2).mean(dim=(-2, -1)).sqrt(),
    }
    rows = []
    for metric, e in err.items():
        for s, per_step in enumerate(e.cpu().tolist()):
            rows += [
                {**coords, "seed": s, "step": k, "metric": metric, "value": v} for k, v in enumerate(per_step)
            ]
    return rows


def _last_step(table, name, metric):
    """Rows of experiment `name`, metric `metric`, status ok, at the last step K."""
    t = table[(table["experiment"] == name) & (table["metric"] == metric) & (table["status"] == "ok")]
    return t[t["step"] == t["step"].max()]


def rms_over_seeds(table, name, metric, by):
    """Error aggregated over reps as an RMS (the author's convention) at step K, indexed by `by`."""
    t = _last_step(table, name, metric)
    return t.groupby(by)["value"].apply(lambda v: float(np.sqrt(np.mean(v**2)))).reset_index()


def _scale(table) -> str:
    scales = table["scale"].unique()
    return str(scales[0]) if len(scales) == 1 else "paper"


def _validate_model(cfg, reference_needed=True):
    for key in ("L", "M", "D", "K", "N", "d_in", "d_out", "reps", "D_max"):
        check(cfg, f"model.{key}", int, low=1)
    check(cfg, "model.alpha", float, low=0, open_low=True)
    check(cfg, "model.eta", float, low=0, open_low=True)
    check(cfg, "model.sigma", str, choices=tuple(model.SIGMAS))
    check(cfg, "model.init", str, choices=("iid", "paired"))
    m = cfg.model
    if m.init == "paired" and m.M % 2:
        raise ConfigError(f"model.M must be even with model.init=paired (got {m.M})")
    if m.D > m.D_max:
        raise ConfigError(f"model.D_max must be ≥ model.D = {m.D} (got {m.D_max})")
    if reference_needed:
        check(cfg, "model.L_ref", int, low=m.L)
        check(cfg, "model.M_ref", int, low=m.M)


# --------------------------------------------------------------------- depth / width (fixed D)


def run_errors(cfg):
    """One (L, M) at fixed D: err_f, err_h vs the shared reference at every step."""
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    ref = reference(cfg, rt, m.D, m.alpha)
    out = _train(cfg, rt, m.L, m.M, m.D, m.alpha)
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha, "L_ref": m.L_ref, "M_ref": m.M_ref}
    return _error_rows(out, ref, coords)


def two_term_fit(err):
    """err ≈ a/L + b/√(LM) (non-negative, log space) over the rows of `err` (columns L, M, value)."""
    L, M = err["L"].to_numpy(float), err["M"].to_numpy(float)
    return fit.nonneg_sum({"a": 1 / L, "b": 1 / np.sqrt(L * M)}, err["value"].to_numpy(float))


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


# ------------------------------------------------------------------------------------ D sweep

FIT_D_MIN_PER_D_OUT = 3  # fits in D use D ≥ 3·d_out (resnet_dim, resnet_phase): see run_dim


def _fit_range(err):
    return err[(err["D"] >= FIT_D_MIN_PER_D_OUT * err["d_out"]) & (err["D"] <= err["L"] * err["M"] / 4)]


def run_dim(cfg):
    """One D at fixed (L, M): W_E, W_U are the leading D rows of those drawn at D_max (coupled),
    the reference is recomputed at each D with the same prefixes.  Besides err_f and err_h, the
    h_L error is split into the span of W_U (err_h_span, per coordinate of that span) and its
    orthogonal complement (err_h_perp), which shows why the fit range is 3·d_out ≤ D ≤ L·M/4.

    Fits in D use D ≥ 3·d_out (resnet_dim and resnet_phase), for the following reason.

    Finding (resnet_dim; the issue's local exponents 1.17, 0.73, 0.50, 0.44 for D = 4 … 64 at L = M = 16):
    the loss sees h_L only through the d_out-dimensional span of W_U.  GD pins those d_out
    coordinates of h_L to the data fit, which damps their finite-(L, M) fluctuation, while the
    D − d_out coordinates orthogonal to W_U keep the full √(D/(LM)) fluctuation.  Measured at
    L = M = 16, K = 10 against 128 × 128 (rows err_h_span / err_h_perp): at D = 8 the span error
    drops from 0.095 (k = 0) to 0.085 (k = K) while the complement grows from 0.112 to 0.125; at D = 4
    ≤ d_out every coordinate is read out and the whole error drops from 0.087 to 0.035.  The
    per-coordinate RMS mixes the two with weights d_out/D and 1 − d_out/D, so its local exponent
    exceeds 1/2 until d_out/D is small (at k = 0, before training pins anything, the local exponents
    are ≈ 1/2 from D = 8 on).  With d_in = d_out = 2 instead of 5 the steep stretch is gone (local
    exponents at step K of 0.51, 0.59, 0.45, 0.61 for D = 4 … 64), so it is tied to D ~ d_out, not to
    D itself.  Hence the √D law is fitted where at most a third of the coordinates are read out,
    D ≥ 3·d_out, and for the same reason (corrections of relative size d_out/D, e.g. the initial
    output f_0 = O(√(d_out/D))) the phase-diagram exponents too.
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    ref = reference(cfg, rt, m.D, m.alpha)
    out = _train(cfg, rt, m.L, m.M, m.D, m.alpha)
    coords = {
        "L": m.L,
        "M": m.M,
        "D": m.D,
        "d_out": m.d_out,
        "alpha": m.alpha,
        "L_ref": m.L_ref,
        "M_ref": m.M_ref,
    }
    rows = _error_rows(out, ref, coords)
    W_U = _inputs(cfg, rt, m.D)[3]
    Q = torch.linalg.qr(W_U).Q  # [S, D, r], orthonormal basis of the read-out span, r = min(D, d_out)
    diff = out["h_L"] - ref["h_L"]  # [S, K+1, N, D]
    span = torch.einsum("sknd,sdr->sknr", diff, Q).pow(2).sum(dim=(-2, -1))
    total = diff.pow(2).sum(dim=(-2, -1))
    r, N = Q.shape[-1], m.N
    split = {"err_h_span": (span / (N * r)).sqrt()}
    if m.D > r:
        split["err_h_perp"] = ((total - span).clamp(min=0) / (N * (m.D - r))).sqrt()
    for metric, e in split.items():
        for s, per_step in enumerate(e.cpu().tolist()):
            rows += [
                {**coords, "seed": s, "step": k, "metric": metric, "value": v} for k, v in enumerate(per_step)
            ]
    return rows


DIM_TOL = {"quick": 0.15, "paper": 0.15}
DIM_R2 = {"quick": 0.9, "paper": 0.9}


def dim_fits(table, metric="err_h"):
    err = _fit_range(rms_over_seeds(table, "resnet_dim", metric, ["L", "M", "D", "d_out"]))
    L, M, D = (err[k].to_numpy(float) for k in ("L", "M", "D"))
    terms = {"a": 1 / L, "b": np.sqrt(D / (L * M))}
    return fit.power_law(D, err["value"]), fit.nonneg_sum(terms, err["value"].to_numpy(float)), err


def claims_dim(table):
    """Embedding-space error ∝ √D over 3·d_out ≤ D ≤ L·M/4, and a/L + b·√(D/(LM)) fits (R² ≥ 0.9)."""
    scale = _scale(table)
    slope, both, err = dim_fits(table)
    span = f"D ∈ [{err['D'].min()}, {err['D'].max()}]"
    return [
        Claim.within(
            "resnet_dim",
            "slope of the h_L error vs D (3·d_out ≤ D ≤ L·M/4)",
            slope["slope"],
            0.5,
            DIM_TOL[scale],
            f"{scale}, {span}: {slope.describe('slope')}",
        ),
        Claim.at_least(
            "resnet_dim",
            "R² (log space) of a/L + b·√(D/(LM))",
            both.r2,
            DIM_R2[scale],
            f"{scale}, {span}: {both.describe('a')}; {both.describe('b')}",
        ),
    ]


# --------------------------------------------------------------------------------- lazy (alpha)


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
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(_seeds(m), m.L, m.M, m.D, "grid", m.init == "paired", dtype=rt.dtype, device=rt.device)
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
    rows = []
    for metric, e in per_step.items():
        for s, values in enumerate(e.cpu().tolist()):
            rows += [
                {**coords, "seed": s, "step": k, "metric": metric, "value": v} for k, v in enumerate(values)
            ]
    for metric, e in final.items():
        rows += [
            {**coords, "seed": s, "step": m.K, "metric": metric, "value": v} for s, v in enumerate(e.tolist())
        ]
    return rows


LAZY_TOL = {"quick": 0.2, "paper": 0.2}


def lazy_fits(table):
    mean = {}
    for metric in ("local_update", "lin_dist", "tangent_dist"):
        t = _last_step(table, "resnet_lazy", metric)
        mean[metric] = t.groupby("alpha")["value"].mean().reset_index()
    return {k: fit.power_law(v["alpha"], v["value"]) for k, v in mean.items()}, mean


def claims_lazy(table):
    """Feature movement ∝ 1/alpha (lazy regime: parameters move O(1/alpha) while the output moves
    O(1)); the network stays within O(1/alpha) of its tangent model, so that distance decays."""
    scale = _scale(table)
    fits, _ = lazy_fits(table)
    loc, tan = fits["local_update"], fits["lin_dist"]
    return [
        Claim.within(
            "resnet_lazy",
            "slope of the local feature movement vs alpha",
            loc["slope"],
            -1.0,
            LAZY_TOL[scale],
            f"{scale}: {loc.describe('slope')}",
        ),
        Claim.at_most(
            "resnet_lazy",
            "slope of the distance to the (blockwise) tangent model vs alpha (decays)",
            tan["slope"],
            0.0,
            f"{scale}: {tan.describe('slope')}; full linearisation: {fits['tangent_dist'].describe('slope')}",
        ),
    ]


# ----------------------------------------------------------------------------------- phase


def run_phase(cfg):
    """One (D, gamma): residual scale D^gamma/(L M), i.e. alpha = D^(gamma − 1/2) (v std D^gamma).

    Metric per rep: local_update = median over (l, j, n) of |<u_K − u_0, h_{l-1}>/D| after K steps.
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    alpha = float(m.D) ** (m.gamma - 0.5)
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(_seeds(m), m.L, m.M, m.D, dtype=rt.dtype, device=rt.device)
    out = model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)
    local = model.local_updates(W_E, W_U, U, out["U"], out["V"], X, alpha, m.sigma)
    med = local.abs().flatten(1).median(dim=1).values
    coords = {"L": m.L, "M": m.M, "D": m.D, "d_out": m.d_out, "gamma": m.gamma, "alpha": alpha, "step": m.K}
    return [
        {**coords, "seed": s, "metric": "local_update", "value": v} for s, v in enumerate(med.cpu().tolist())
    ]


PHASE_TOL = {"quick": 0.1, "paper": 0.1}


def phase_exponents(table):
    """Exponent of the local update in D for each gamma (power-law fit of the rep mean over
    D ≥ 3·d_out, see FIT_D_MIN_PER_D_OUT); returns (exponents, rep means of every (gamma, D))."""
    t = _last_step(table, "resnet_phase", "local_update")
    mean = t.groupby(["gamma", "D", "d_out"])["value"].mean().reset_index()
    fitted = mean[mean["D"] >= FIT_D_MIN_PER_D_OUT * mean["d_out"]]
    rows = []
    for gamma, g in fitted.groupby("gamma"):
        f = fit.power_law(g["D"], g["value"])
        rows.append({"gamma": gamma, "exponent": f["slope"], "se": f.se["slope"], "r2": f.r2, "n": f.n})
    return pd.DataFrame(rows), mean


def claims_phase(table):
    """γ* where the exponent of the local feature update in D crosses zero: MLU at D^(1/2)/(LM)."""
    scale = _scale(table)
    exps, _ = phase_exponents(table)
    gamma_star = fit.zero_crossing(exps["gamma"], exps["exponent"])
    detail = f"{scale}: exponents " + ", ".join(
        f"γ={g:g}: {e:+.3f}" for g, e in zip(exps["gamma"], exps["exponent"])
    )
    return [
        Claim.within(
            "resnet_phase",
            "critical gamma* (exponent of the local update in D crosses 0)",
            gamma_star,
            0.5,
            PHASE_TOL[scale],
            detail,
        )
    ]


# ------------------------------------------------------------------------------- validation


def validate_errors(cfg):
    _validate_model(cfg)


def validate_lazy(cfg):
    _validate_model(cfg, reference_needed=False)


def validate_phase(cfg):
    _validate_model(cfg, reference_needed=False)
    check(cfg, "model.gamma", float, low=-1.0, high=2.0)


register(
    Experiment(
        "resnet_depth",
        "resnet",
        "error vs depth L at fixed D, one curve per M (incl. M = 1)",
        "Fig. 2 (error rates)",
        run_errors,
        plots.depth,
        claims_depth,
        validate_errors,
    )
)
register(
    Experiment(
        "resnet_width",
        "resnet",
        "error vs width M at fixed L, one curve per L",
        "Fig. 2 (error rates)",
        run_errors,
        plots.width,
        claims_width,
        validate_errors,
    )
)
register(
    Experiment(
        "resnet_dim",
        "resnet",
        "embedding-space error vs D at fixed L, M (coupled W_E, W_U)",
        "√D dependence (2LP bound)",
        run_dim,
        plots.dim,
        claims_dim,
        validate_errors,
    )
)
register(
    Experiment(
        "resnet_lazy",
        "resnet",
        "alpha sweep: feature movement and distance to the tangent model",
        "lazy ODE regime",
        run_lazy,
        plots.lazy,
        claims_lazy,
        validate_lazy,
    )
)
register(
    Experiment(
        "resnet_phase",
        "resnet",
        "phase diagram of the residual scale D^gamma/(LM): local updates vs D",
        "phase diagram",
        run_phase,
        plots.phase,
        claims_phase,
        validate_phase,
    )
)
