"""Rows and claims of the well-posedness part of `transformer_adjoint` (issue 39 §1–2; the numerics and
their derivation: `mfx.transformer.wellposed`).  Not an experiment of its own: its rows ride in the
adjoint's one job (same clouds' law, a few seconds) and its figure is one of the adjoint's.

Forward (config `model.wp`): for each seed (a draw of the curves) and H, the RK4 depth flow of the H
curves and the L-layer Euler network at every L: `wp_err` = RMS over inputs of |ŷ_L − ŷ_RK4| over the
RMS displacement |ŷ_RK4 − q0|; `wp_lip` = max over `directions` of RMS_i |ŷ(X') − ŷ(X)| / δ.
Gradient flow (config `model.gf`): GD at each η of `etas` against the RK4 flow at T (`gf_err`, relative
to the distance travelled; `gf_stiff`: per seed the flow's stiffness λ, which sets the η read), and pairs of independent samplings of the initial law at each H of `Hs`
(`gf_pair`: RMS_i of the difference of their trained changes ŷ(T) − ŷ(0) over the RMS change at the largest
H, one scale for every H; `gf_change`: each run's change at the two largest H, for the gap between their
mean curves, `analysis.gf_curve_gap`).
"""

from __future__ import annotations

import math

import pandas as pd
import torch
from omegaconf import DictConfig

from mfx import fit, runtime, statements
from mfx.experiment import Claim
from mfx.transformer import model, wellposed
from mfx.transformer.analysis import gf_curve_gap, gf_order, gf_sampling, rms_by, wp_exponents, wp_grid
from mfx.transformer.ranges import RANGES

E = "transformer_adjoint"
SOURCE_FORWARD = (
    "Barboni et al. (summary, Hauptbeiträge): 'die Token-Evolution durch Flussabbildungen charakterisiert "
    "ist, die ODEs in Funktionenräumen erfüllen' — the forward pass is well defined; the first-order rate in "
    "1/L, its uniformity in H and the stability constant are mfx's derivation (mfx/transformer/wellposed.py)"
)
SOURCE_FLOW = (
    "Barboni et al. (summary, Hauptbeiträge): 'dass Gradientenflusskurven … existieren und eindeutig sind'; "
    "GD converging at first order in η to the RK4 flow, and the samplings of the initial law at every H following "
    "one curve, are mfx's reading; the rates are mfx's derivation (mfx/transformer/wellposed.py)"
)


def rows(cfg: DictConfig, rt, X: torch.Tensor, q0: torch.Tensor) -> list[dict]:
    m = cfg.model
    w, g = m.wp, m.gf
    N, d = X.shape[0], X.shape[-1]
    out = []
    Z0 = torch.cat([q0.expand(N, 1, d), X], dim=1)
    for s in range(w.seeds):
        for H in w.Hs:
            c = wellposed.curves(
                H, d, w.v_mean, runtime.generator(cfg.seed, "transformer", "wp", s, H), dtype=rt.dtype
            )
            ref = wellposed.rk4_flow(c, Z0, m.beta, w.M)[:, 0]
            moved = float(wellposed.rms(ref - q0, (0,)))
            gen = runtime.generator(cfg.seed, "transformer", "wp-dir", s, H)
            dirs = [wellposed.perturbation(X, w.delta, gen) for _ in range(w.directions)]
            for L in w.Ls:
                with torch.no_grad():
                    y = wellposed.euler_outputs(c, L, X, q0, m.beta)
                    lip = max(
                        float(wellposed.rms(wellposed.euler_outputs(c, L, X + dx, q0, m.beta) - y, (0,)))
                        / w.delta
                        for dx in dirs
                    )
                err = float(wellposed.rms(y - ref, (0,))) / moved
                coords = {"L": L, "H": H, "seed": s}
                out += [dict(coords, metric="wp_err", value=err), dict(coords, metric="wp_lip", value=lip)]
    # gradient flow: GD at each η against RK4 in flow time, on one small network per seed
    y_t = q0 + g.target_scale * torch.randn(
        N, d, generator=runtime.generator(cfg.seed, "gf-y"), dtype=rt.dtype
    )
    seeds = list(range(g.seeds))
    Q, K, V = model.init_params(g.L, g.H, d, seeds, stream=("gf", cfg.seed), dtype=rt.dtype)
    # with the flow's stiffness λ (largest |eigenvalue| of its Jacobian along it, every 4th RK4 node): GD's error
    # is a series in η·λ, first order only where η·λ is small (analysis.gf_order keeps those η)
    ref, lam = wellposed.flow_rk4(Q, K, V, X, q0, y_t, T=g.T, M=g.M, beta=m.beta, stiffness=4)
    out += [
        {"L": g.L, "H": g.H, "seed": s, "metric": "gf_stiff", "value": float(v)} for s, v in zip(seeds, lam)
    ]
    with torch.no_grad():
        y0 = model.forward(Q, K, V, X, q0, beta=m.beta)
    moved = wellposed.rms(ref - y0, (1,))  # [S]
    r = RANGES["gf_step_order"]
    for eta in wellposed.step_grid(g.etas, float(lam.max()), r["regime"], g.window_points, g.halvings):
        steps = round(g.T / eta)
        tr = model.train(Q, K, V, X, q0, y_t, eta=eta, steps=steps, beta=m.beta, record=[0, steps])
        e = wellposed.rms(tr["yhat"][-1] - ref, (1,)) / moved
        out += [
            {"L": g.L, "H": g.H, "eta": eta, "seed": s, "metric": "gf_err", "value": float(v)}
            for s, v in zip(seeds, e)
        ]
    # two samplings: seeds 2k and 2k+1 are the pair k
    pair_seeds = list(range(2 * g.pairs))
    runs = {}
    for H in g.Hs:
        Q, K, V = model.init_params(g.L, H, d, pair_seeds, stream=("gf-pair", cfg.seed), dtype=rt.dtype)
        steps = round(g.T / g.eta)
        runs[H] = model.train(Q, K, V, X, q0, y_t, eta=g.eta, steps=steps, beta=m.beta, record=[0, steps])
    # one scale for every H, the RMS change at the largest H (the nearest to the limit curve's): a flow whose
    # speed depends on H changes each H's difference in proportion to its change, which a per-H scale hid
    top = runs[max(g.Hs)]["yhat"]
    scale = float(wellposed.rms(top[-1] - top[0], (0, 1)))
    for H, tr in runs.items():
        change = tr["yhat"][-1] - tr["yhat"][0]  # [2·pairs, N, d]
        diff = wellposed.rms(change[0::2] - change[1::2], (1,)) / math.sqrt(2) / scale
        drop = (tr["loss"][-1] / tr["loss"][0]).reshape(g.pairs, 2).max(1).values  # per pair, the worse
        out += [
            {"L": g.L, "H": H, "seed": k, "metric": "gf_pair", "value": float(v)} for k, v in enumerate(diff)
        ]
        out += [
            {"L": g.L, "H": H, "seed": k, "metric": "gf_loss_drop", "value": float(v)}
            for k, v in enumerate(drop)
        ]
    # one limit curve for every H: each run's trained change at the two largest H, per component (input i,
    # coordinate a), for the gap between their mean curves (analysis.gf_curve_gap); seed = the pair k,
    # sampling = which of its two runs
    for H in sorted(g.Hs)[-2:]:
        change = (runs[H]["yhat"][-1] - runs[H]["yhat"][0]).reshape(g.pairs, 2, N * d)
        out += [
            {
                "L": g.L,
                "H": H,
                "seed": k,
                "sampling": j,
                "component": c,
                "metric": "gf_change",
                "value": float(v),
            }
            for k in range(g.pairs)
            for j in range(2)
            for c, v in enumerate(change[k, j])
        ]
    return out


def _boot2(t: pd.DataFrame, metric: str) -> tuple[float, float]:
    r = t[t["metric"] == metric]
    if r.empty or r["seed"].nunique() < 2:
        return float("nan"), float("nan")
    v = fit.seed_bootstrap(r, lambda b: wp_exponents(b, metric), n_boot=200)
    return fit.bootstrap_sd(v[:, 0]), fit.bootstrap_sd(v[:, 1])


def _check(statement, value, r, scale, **kw) -> Claim:
    """Two-sided where the entry has a `tol`, else one-sided ≤ its value (a bounded growth, a direction)."""
    if "tol" in r:
        return Claim.within(E, statement, value, r["value"], r["tol"], **kw, **statements.power(r, scale))
    return Claim.at_most(E, statement, value, r["value"], **kw, **statements.power(r, scale))


def claims(t: pd.DataFrame, scale: str) -> list[Claim]:
    wp = t[t["metric"].isin(["wp_err", "wp_lip"])]
    if wp.empty:
        return []
    out = []
    seeds = int(wp["seed"].nunique())
    cells = lambda metric: ", ".join(
        f"({int(r.L)}, {int(r.H)}): {r.rms:.3g}" for r in wp_grid(t, metric).itertuples()
    )
    aL, aH = wp_exponents(t, "wp_err")
    uL, uH = _boot2(t, "wp_err")
    for key, value, u, what in (
        ("wp_depth_order", aL, uL, "exponent of L"),
        ("wp_depth_uniform", aH, uH, "growth exponent of H (uniform in H: bounded)"),
    ):
        r = RANGES[key]
        out.append(
            _check(
                "forward pass well posed: the L-layer Euler network of a fixed parameter measure (H smooth head "
                f"curves) converges to the depth ODE (RK4) at first order, uniformly in H — {what} of the "
                "RMS over seeds of the relative error, fit log err = a_L log L + a_H log H + c",
                value,
                r,
                scale,
                detail=f"(L, H): err {cells('wp_err')}; scale={scale}",
                u=u,
                how="seed bootstrap SD",
                points=len(wp_grid(t, "wp_err")),
                seeds=seeds,
                min_points=4,
                kind="paper",
                source=SOURCE_FORWARD,
            )
        )
    bL, bH = wp_exponents(t, "wp_lip")
    vL, vH = _boot2(t, "wp_lip")
    lip = wp_grid(t, "wp_lip")["rms"]
    for key, value, u, what in (
        ("wp_stable_L", bL, vL, "exponent of L"),
        ("wp_stable_H", bH, vH, "exponent of H"),
    ):
        r = RANGES[key]
        out.append(
            _check(
                "forward pass stable in the input: two token clouds at W2 distance ≤ δ give outputs within C·δ, "
                f"C bounded as L, H grow — {what} of C (RMS over seeds), fit log C = b_L log L + b_H log H + c",
                value,
                r,
                scale,
                detail=f"C {lip.min():.3g}…{lip.max():.3g}; (L, H): C {cells('wp_lip')}; scale={scale}",
                u=u,
                how="seed bootstrap SD",
                points=len(wp_grid(t, "wp_lip")),
                seeds=seeds,
                min_points=4,
                kind="paper",
                source=SOURCE_FORWARD,
            )
        )
    ge = t[t["metric"].isin(["gf_err", "gf_stiff"])]
    fo = gf_order(t)
    r = RANGES["gf_step_order"]
    lam = t[t["metric"] == "gf_stiff"]["value"].max()
    out.append(
        _check(
            "gradient flow well posed: GD at η, η/2, η/4 (and so on) converges to one curve (the flow by RK4 in t) at "
            "first order — exponent of η of the RMS over seeds of |ŷ_GD(T) − ŷ_flow(T)| over the distance travelled",
            fo["slope"],
            r,
            scale,
            detail=f"{fo.describe('slope')}; errors "
            + ", ".join(f"η={e:g}: {v:.3g}" for e, v in rms_by(t, "gf_err", "eta").items())
            + f"; stiffness λ = {lam:.3g}: η·λ ≤ {r['regime']:g} read, η ≤ {r['regime'] / lam:.3g}; scale={scale}",
            u=fit.seed_sd(ge, lambda b: gf_order(b)["slope"], n_boot=200),
            how="seed bootstrap SD",
            points=fo.n,
            seeds=int(ge["seed"].nunique()),
            min_points=3,
            kind="paper",
            source=SOURCE_FLOW,
        )
    )
    gp = t[t["metric"] == "gf_pair"]
    fs = gf_sampling(t)
    r = RANGES["gf_sampling_exponent"]
    drops = t[t["metric"] == "gf_loss_drop"]
    drop = drops["value"]
    worst = lambda b: float(b["value"].max()) if len(b) else float("nan")
    gc = t[t["metric"] == "gf_change"]
    gap = RANGES["gf_curve_gap"]
    # the pairs the gap reads (two largest H) that did not train (R(T)/R(0) above the series' precondition): a
    # ratio of two changes reads one curve at any flow time, so training off would pass it
    read = drops[drops["H"].isin(gc["H"].unique())]["value"]
    inert = int((read > RANGES["gf_loss_drop"]["value"]).sum())
    out.append(
        _check(
            "two independent samplings of the initial parameter law follow one limit curve: the mean trained "
            "changes ŷ(T) − ŷ(0) at the two largest H (sampling 0 at H, 1 at H') differ by their Monte Carlo error "
            "only — the gap over that error, RMS over the N·d components",
            gf_curve_gap(t),
            gap,
            scale,
            detail=f"H = {', '.join(str(int(h)) for h in sorted(gc['H'].unique()))}, {gc['seed'].nunique()} pairs; "
            f"worst R(T)/R(0) there {read.max() if len(read) else float('nan'):.3g} (untrained: "
            f"> {RANGES['gf_loss_drop']['value']:g}); scale={scale}",
            u=fit.seed_sd(gc, gf_curve_gap, n_boot=200),
            untrained=(inert, len(read)),
            how="pair bootstrap SD",
            points=int(gc["H"].nunique()),
            seeds=int(gc["seed"].nunique()),
            min_points=2,
            kind="paper",
            source=SOURCE_FLOW,
        )
    )
    out.append(
        _check(
            "two independent samplings of the initial parameter law approach each other at the Monte Carlo rate — "
            "exponent of H (−½) of the RMS over pairs of the difference of their trained changes ŷ(T) − ŷ(0), on "
            "one scale for every H",
            fs["slope"],
            r,
            scale,
            detail=f"{fs.describe('slope')}; relative differences "
            + ", ".join(f"H={int(h)}: {v:.3g}" for h, v in rms_by(gp, "gf_pair", "H").items())
            + f"; scale={scale}",
            u=fit.seed_sd(gp, lambda b: gf_sampling(b)["slope"], n_boot=200),
            how="pair bootstrap SD",
            points=fs.n,
            seeds=int(gp["seed"].nunique()),
            min_points=3,
            kind="derived",
            source="derivation: mfx/transformer/wellposed.py module docstring (the trained change is a smooth "
            "functional of the L·H i.i.d. initial heads' empirical measure: a Monte Carlo error ∝ (LH)^(−1/2)); the "
            "summary gives no rate",
        )
    )
    out.append(
        Claim.at_most(
            E,
            "the sampled curves are trained: R(T)/R(0) of every run of the two-samplings series (worst)",
            float(drop.max()) if len(drop) else float("nan"),
            RANGES["gf_loss_drop"]["value"],
            detail="per H: "
            + ", ".join(f"{int(h)}: {v:.3g}" for h, v in drops.groupby("H")["value"].max().items())
            + f"; scale={scale}",
            u=fit.seed_sd(drops, worst, n_boot=200),
            how="pair bootstrap SD of the worst run",
            points=len(drop),
            seeds=int(gp["seed"].nunique()),
            kind="derived",
            statement_id="barboni.gradient_flow/samplings",
            source="gradient flow lowers R (science/transformer.md §2.3); the factor is this series' precondition "
            "that its curves are trained ones (issue 36 §2: training must matter)",
        )
    )
    return out
