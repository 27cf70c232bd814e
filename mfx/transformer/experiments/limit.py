"""E1 `transformer_limit` (science/transformer.md §4.2, issue 13 §1): convergence of the trained L×H
network to its L, H → ∞ limit, with the depth and width errors measured apart.

The limit.  The mean-field initial law is the same at every depth, ρ⁰_s = ρ⁰.  The reference takes
for ρ⁰ a pool of P heads (a Monte Carlo sample of the Gaussian head law) and puts the whole pool at
every one of L_ref layers: that network is the mean-field dynamics of the initial law ρ⁰_P, exact in
width (H = P heads of weight 1/P are the measure itself), with parameters that stay smooth in depth
(constant at t = 0), discretised in depth with L_ref Euler steps — the continuous-depth limit up to
O(1/L_ref), an error the law below carries explicitly.

The coupling.  An L×H network draws each of its L·H heads i.i.d. from the pool (`seeds` replicates
of those draws, batched), so it is a Monte Carlo sample of the reference's own law and differs from it
only by depth discretisation and sampling — not by an independent initialisation.  The full-pool
network of the same depth L (H = P, deterministic) splits the error (analysis module docstring):
depth error |f_{L,P} − f_ref| ≈ a·x, x = 1/L − 1/L_ref, width error E|f_{L,H} − f_{L,P}|² = b²(L)/(L·H)
with b²(L) = B + C·x (the depth-average of the propagated per-layer sampling variance, a Riemann sum
in 1/L), and 𝔼 err² = A·x² + (B + C·x)/(LH).  Errors are RMS over the N inputs of |ŷ_i − ŷ_i^ref| at
the end of training (t = T); the same at t = 0 is recorded beside them (and fitted by the same law).

Trained, not initial, dynamics (issue 27 §2).  At t = 0 the reference's velocity at every layer is the
mean over the P pool heads of V·∇Λ, with E V = 0: it is O(P^(−1/2)), and the Euler error of a flow is
second order in its velocity (the local error of one step is ½·Dv·v/L²), so the t = 0 depth coefficient is
A(0) = O(1/P²) — about 2e-4·A(T) at P = 64.  Training towards targets at O(1) distance makes the velocity
O(1), hence A(T) = O(1).  The claims check that the networks are trained (R(T)/R(0) of the reference and
of every cell) and that log10 A(T)/A(0) exceeds RANGES["E1_A_gain"]; without training both fail, while
the exponents and the law's R² alone would pass on the discretisation error of untrained networks.  The
width coefficient B is the initial heads' sampling error carried through training: training reshapes it
(b²(L) moves with L) but does not create it, so it is reported beside its t = 0 value, not as a test.

The targets are y_i = q0 + target_scale·ξ_i (ξ ~ N(0, I) rescaled to mean |ξ_i|² = d, drawn from
`seed` like the clouds and the pool): O(1) training that moves the heads well away from their initial law.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from omegaconf import DictConfig, OmegaConf

from mfx import fit, runtime, statements
from mfx.experiment import Claim, Experiment, check, register
from mfx.transformer import model
from mfx.transformer.analysis import (
    E1_DEPTH_L_MIN,
    LAW_TERMS,
    depth_exponents,
    depth_fit,
    diagonal,
    error_law,
    rms_over_seeds,
    shares,
    travel,
    width_exponents,
    width_fit,
)
from mfx.transformer.experiments.common import (
    _as_floats,
    _data,
    _geom_steps,
    _shared,
    _train,
    _validate_model,
)
from mfx.transformer.ranges import RANGES

E = "transformer_limit"
N_BOOT = 100

# everything that defines the pool networks (the artifacts shared by the jobs of a sweep), besides L
REF_KEYS = [
    "d",
    "n",
    "dist",
    "base",
    "params",
    "shift",
    "gmm_sigma",
    "q0",
    "readout",
    "beta",
    "s_qk",
    "s_v",
    "v_init",
    "train",
    "eta",
    "steps",
    "target_scale",
    "P",
]


def _targets(m: DictConfig, rt, q0: torch.Tensor, N: int, seed: int) -> torch.Tensor:
    gen = runtime.generator(seed, "transformer", "targets")
    xi = torch.randn(N, m.d, generator=gen, dtype=rt.dtype).to(rt.device)
    # mean |ξ_i|² = d exactly: with N·d ≈ 8 draws the initial loss otherwise varies 5× between seeds
    # (a seed with small ξ barely trains and has no depth error to measure)
    xi = xi * (m.d / xi.pow(2).sum(-1).mean()).sqrt()
    return q0 + m.target_scale * xi


def _pools(m: DictConfig, rt, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(Q, K, V) [1 + B, P, d, d]: the reference's P heads (row 0) and B = model.pools further pools of P
    heads, every pool an independent draw of the initial law of `model.init_params` — the spread of a
    statistic over them is its sampling error over pools, the error of having one draw of P heads for ρ⁰
    (bootstrap resamples of row 0, used before, spread the depth exponent 2× wider than fresh draws, issue 39)."""
    kw = {"s_qk": m.s_qk, "s_v": m.s_v, "v_init": m.v_init, "dtype": rt.dtype, "device": rt.device}
    own = model.init_params(1, m.P, m.d, [seed], stream=("pool",), **kw)
    more = model.init_params(m.pools, m.P, m.d, [seed], stream=("pool", "fresh"), **kw)
    return tuple(torch.cat([a[0], b[0]]) for a, b in zip(own, more))


def _pool_net(cfg: DictConfig, L: int, pools, c, q0, y, rt) -> dict:
    """ŷ(t) [T, 1 + B, N, d] and R(t) [T, 1 + B] of the networks with a whole pool at each of L layers,
    one per pool of `_pools` (the reference's own at index 0), batched as the seed dimension (cached)."""
    m = cfg.model
    container = OmegaConf.to_container(m, resolve=True)
    key = {"v": 4, "dtype": str(rt.dtype), "seed": cfg.seed, "L": L, "B": m.pools}
    key.update({k: container[k] for k in REF_KEYS})

    def compute():
        Q, K, V = (p[:, None].expand(-1, L, -1, -1, -1).contiguous() for p in pools)
        # no checkpointing: a pool layer keeps ~6 tensors of [1 + B, N, P·n, n] (≈ 1 MB at B = 8, P = 64)
        out = _train(m, Q, K, V, c.X, q0, y)
        return {"yhat": out["yhat"].cpu(), "loss": out["loss"].cpu()}

    return _shared("transformer_limit_pool", key, compute, cfg.cache_dir)


def _rms(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """RMS over the inputs i of |a_i − b_i|: [..., N, d] → [...]."""
    return ((a - b) ** 2).sum(-1).mean(-1).sqrt()


def run(cfg: DictConfig) -> list[dict]:
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    c, q0 = _data(m, rt, cfg.seed)
    N = c.X.shape[0]
    y = _targets(m, rt, q0, N, cfg.seed)
    pools = _pools(m, rt, cfg.seed)
    ref = _pool_net(cfg, m.L_ref, pools, c, q0, y, rt)
    full = _pool_net(cfg, m.L, pools, c, q0, y, rt)
    seeds = list(range(m.seeds))
    idx = torch.stack(
        [
            torch.randint(
                m.P, (m.L, m.H), generator=runtime.generator(cfg.seed, "transformer", "heads", m.L, m.H, s)
            )
            for s in seeds
        ]
    ).to(rt.device)
    # the same uniform draws idx on the reference's pool (all S seeds) and, for the first Sb =
    # model.pool_seeds of them, on the next W = model.pool_width pools, batched in the seed dimension:
    # [S + W·Sb, L, H, d, d], i.i.d. heads of each pool
    S, W = len(seeds), m.pool_width
    Sb = min(m.pool_seeds, S)
    Q, K, V = (torch.cat([p[0][idx], p[1 : 1 + W][:, idx[:Sb]].flatten(0, 1)]) for p in pools)
    out = _train(m, Q, K, V, c.X, q0, y)
    yhat = out["yhat"][:, :S]  # [T, S, N, d]
    y_ref, y_full = ref["yhat"][:, 0].to(yhat), full["yhat"][:, 0].to(yhat)
    coords = {
        "L": m.L,
        "H": m.H,
        "LH": m.L * m.H,
        "L_ref": m.L_ref,
        "P": m.P,
        "dist": m.dist,
        "n": m.n,
        "N": N,
    }
    rows = [
        dict(coords, metric="err_depth", value=_rms(y_full[-1], y_ref[-1])),
        dict(coords, metric="err_depth_t0", value=_rms(y_full[0], y_ref[0])),
        # how far training moved the limit's output: the scale the trained networks' error is read against
        dict(coords, metric="travel_ref", value=_rms(y_ref[-1], y_ref[0])),
    ]
    # the depth error of every further pool (`pool` = 1 … B): its spread is the pool's sampling error
    more = _rms(full["yhat"][-1, 1:], ref["yhat"][-1, 1:])
    rows += [dict(coords, pool=b + 1, metric="err_depth_pool", value=v) for b, v in enumerate(more)]
    per_seed = {
        "err": _rms(yhat[-1], y_ref[-1]),
        "err_t0": _rms(yhat[0], y_ref[0]),
        "err_mc": _rms(yhat[-1], y_full[-1]),
        "err_mc_t0": _rms(yhat[0], y_full[0]),
    }
    for s in seeds:
        rows += [dict(coords, seed=s, metric=k, value=v[s]) for k, v in per_seed.items()]
    # the width error of the networks drawn from pool b, against that pool's full network: the spread
    # of their width exponents is the exponent's sampling error over pools
    for b in range(1, 1 + W):
        first = S + (b - 1) * Sb
        err_b = _rms(out["yhat"][-1, first : first + Sb], full["yhat"][-1, b].to(yhat))
        rows += [dict(coords, pool=b, seed=s, metric="err_mc_pool", value=err_b[s]) for s in range(Sb)]
    loss_ref = ref["loss"][:, 0].to(out["loss"])
    for k in _geom_steps(m.steps, 25):
        t = k * m.eta
        rows.append(dict(coords, step=k, time=t, metric="loss_ref", value=loss_ref[k]))
        for s in seeds:
            rows.append(dict(coords, seed=s, step=k, time=t, metric="loss", value=out["loss"][k, s]))
    return _as_floats(rows)


def validate(cfg: DictConfig) -> None:
    _validate_model(cfg)
    check(cfg, "model.P", int, low=1)
    check(cfg, "model.L_ref", int, low=cfg.model.L)
    check(cfg, "model.target_scale", float, low=0)
    check(cfg, "model.pools", int, low=0)
    check(cfg, "model.pool_width", int, low=0, high=cfg.model.pools)
    check(cfg, "model.pool_seeds", int, low=1)


def memory(cfg: DictConfig) -> float:
    """Peak bytes of one job: the attention weights kept for the backward of the sampled networks
    ([S, N, H·n, n] per layer, about 4 tensors of that size each), or of the pool networks at L_ref
    ([1 + B, N, P·n, n] per layer, about 6 tensors), in float64, plus the recorded outputs."""
    m = cfg.model
    N = len(m.params)
    nets = m.seeds + m.pool_width * min(m.pool_seeds, m.seeds)
    sampled = 4 * nets * N * m.H * m.n * m.n * m.L
    pooled = 6 * (1 + m.pools) * N * m.P * m.n * m.n * m.L_ref
    return 8.0 * (max(sampled, pooled) + (m.steps + 1) * (nets + 2 * (1 + m.pools)) * N * m.d)


def _bootstrap(table: pd.DataFrame, statistic) -> float:
    """Seed-bootstrap SD of `statistic(table)`: the seeded rows are resampled, the deterministic
    full-pool (depth) rows are kept as they are."""
    cols = ["experiment", "status", "L", "H", "L_ref", "seed", "metric", "value"]
    t = table.loc[table["metric"].isin(["err", "err_mc"]), cols]
    fixed = table.loc[table["metric"] == "err_depth", cols]
    if t.empty or t["seed"].nunique() < 2:
        return float("nan")
    values = fit.seed_bootstrap(
        t, lambda b: statistic(pd.concat([b, fixed], ignore_index=True)), n_boot=N_BOOT
    )
    return fit.bootstrap_sd(values)


DERIVATION = "derivation: mfx/transformer/analysis.py module docstring"
CONVENTIONS = (
    "conventions: residual scale 1/(L·H), lr = η·L·H, the pool's P heads at every layer of the reference"
)


def _loss_drop(t: pd.DataFrame) -> tuple[float, str]:
    """max over the reference and every (L, H) cell (mean over seeds) of R(T)/R(0); and a note."""
    ref = t[t["metric"] == "loss_ref"].groupby("step")["value"].mean()
    cells = t[t["metric"] == "loss"].pivot_table(index=["L", "H", "seed"], columns="step", values="value")
    if ref.empty or cells.empty:
        return float("nan"), "no loss rows"
    drop = (cells[cells.columns.max()] / cells[0]).groupby(["L", "H"]).mean()
    ref_drop = float(ref.iloc[-1] / ref.iloc[0])
    worst = drop.idxmax()
    note = (
        f"R(T)/R(0): reference {ref_drop:.3g}; (L, H) cells, mean over seeds, {drop.min():.3g}…{drop.max():.3g} "
        f"(worst at (L, H) = ({int(worst[0])}, {int(worst[1])}))"
    )
    return max(ref_drop, float(drop.max())), note


def _log_ratio(a: float, ua: float, b: float, ub: float) -> tuple[float, float]:
    """log10(a/b) and its SE from the relative SEs of a and b (NaN unless both are > 0)."""
    if not (a > 0 and b > 0):
        return float("nan"), float("nan")
    return math.log10(a / b), math.hypot(ua / a, ub / b) / math.log(10)


def _joint_limit(t: pd.DataFrame, scale: str, seeds: int) -> Claim:
    """The paper's statement (issue 39 §3): the trained L×H network's output tends to the limit's as L, H
    → ∞ together.  Read at the end of the grid's diagonal (largest L with largest H) as a share of how far
    training moved the limit's output: a scale that training sets, so that untrained networks (their
    error is the t = 0 discretisation and sampling error, over a move of ≈ 0) fail, and a network that is
    not the limit's discretisation (a residual scale whose depth factor is off) ends an O(1) share of the
    move away from it.  A flow-time mismatch alone (a learning rate whose depth factor is off) shows only
    weakly: by T both flows have slowed down (RANGES["E1_joint"]).  The rates of the two parts are the
    derived claims below."""
    d = diagonal(t)
    move = travel(t)
    r = RANGES["E1_joint"]
    if d.empty:
        L = H = 0
        rel = depth = width = float("nan")
    else:
        L, H, rel = int(d["L"].iloc[-1]), int(d["H"].iloc[-1]), float(d["rel"].iloc[-1])
        depth = float(t.loc[(t["metric"] == "err_depth") & (t["L"] == L), "value"].mean()) / move
        mc = rms_over_seeds(t, "err_mc")
        width = float(mc.loc[(mc["L"] == L) & (mc["H"] == H), "value"].mean()) / move

    def at_end(b: pd.DataFrame) -> float:
        e = rms_over_seeds(b, "err")
        return float(e.loc[(e["L"] == L) & (e["H"] == H), "value"].mean()) / move

    path = ", ".join(f"({c.L}, {c.H}): {c.rel:.3g}" for c in d.itertuples())
    return Claim.at_most(
        E,
        f"the trained L×H network converges to the limit as L, H → ∞ jointly: its error at the end of the "
        f"grid's diagonal, (L, H) = ({L}, {H}), over the limit's trained move |ŷ_ref(T) − ŷ_ref(0)|",
        rel,
        r["value"][scale],
        detail=f"along the diagonal (error over the move): {path}; at ({L}, {H}) the depth part "
        f"|f_{{L,P}} − f_ref| is {depth:.3g} and the width part |f_{{L,H}} − f_{{L,P}}| (RMS over seeds) "
        f"{width:.3g} of the move, {move:.3g} (RMS over the inputs); scale={scale}",
        u=_bootstrap(t, at_end),
        how="seed bootstrap SD",
        points=len(d),
        seeds=seeds,
        min_points=3,
        kind="paper",
        source="the paper (summary shared/seeds/004 §'Methodik: Duale Mittelwert-Feld-Darstellung'): training "
        "the L×H network is the mean-field dynamics in the joint limit L, H → ∞; the bound is mfx's "
        f"(mfx/transformer/ranges.py E1_joint); {CONVENTIONS}",
        **statements.power(r, scale),
    )


def claims(table: pd.DataFrame) -> list[Claim]:
    scale = str(table["scale"].iloc[0])
    t = table[(table["experiment"] == E) & (table["status"] == "ok")]
    per_H = t[t["metric"] == "err"].groupby("H")["seed"].nunique()
    seeds = int(per_H.min()) if len(per_H) else 0  # the seeds every cell has (paper: more at small H)
    seeds_note = ", ".join(f"H = {h}: {k}" for h, k in per_H.items())
    out = [_joint_limit(t, scale, seeds)]
    fd = depth_fit(t)
    # the order with the Euler expansion's next term (analysis.py docstring), on every pool: the reference's
    # P heads are one draw of the initial law, the further pools are independent draws, so their mean
    # estimates the order with u = SD/√pools (the plain power law of pool 0 is in the detail, bent by a₂)
    ks = depth_exponents(t)
    ks = ks[np.isfinite(ks)]
    k_mean = float(np.mean(ks)) if len(ks) else float("nan")
    u_k = float(np.std(ks, ddof=1) / math.sqrt(len(ks))) if len(ks) >= 2 else float("nan")
    r = RANGES["E1_depth_exponent"]
    out.append(
        Claim.within(
            E,
            f"depth error |f_{{L,P}} − f_ref| = A·xᵏ·(1 + c·(1/L + 1/L_ref)), x = 1/L − 1/L_ref, L ≥ "
            f"{E1_DEPTH_L_MIN}: order k, mean over independent pools",
            k_mean,
            r["value"],
            r["tol"][scale],
            detail=f"k over {len(ks)} pools of P heads (the reference's first) {np.round(ks, 3).tolist()} (SD "
            f"{np.std(ks, ddof=1) if len(ks) >= 2 else float('nan'):.2g}); the full pool at every layer, "
            f"deterministic; the plain power law xᵏ of the reference's pool: {fd.describe('slope')}; scale={scale}",
            u=u_k,
            how="SD over the independent pools / √pools (of the run's one data draw)",
            points=fd.n,
            seeds=1,
            min_points=3,
            kind="derived",
            statement_id="barboni.mean_field_limit",
            post_hoc=r["post_hoc"],
            source=f"{DERIVATION} (Depth: the trained full-pool network is an order-1 Euler scheme in "
            f"1/L, its next term a₂/L²); {CONVENTIONS}",
        )
    )
    # the width exponent of every pool with networks of its own (the reference's and the further pools'),
    # one k common to the depths where the further pools have them: their mean, u = SD/√pools (issue 39)
    kw, Ls_w = width_exponents(t)
    kw = kw[np.isfinite(kw)]
    k_w = float(np.mean(kw)) if len(kw) else float("nan")
    u_w = float(np.std(kw, ddof=1) / math.sqrt(len(kw))) if len(kw) >= 2 else float("nan")
    Ls_note = ", ".join(map(str, Ls_w))
    fw, L_max = width_fit(t)
    pools_note = (
        f"k over {len(kw)} pools (the reference's first) {np.round(kw, 3).tolist()} (SD {np.std(kw, ddof=1):.2g})"
        if len(kw) >= 2
        else "no networks of further pools (model.pool_width ≥ 1 at some L): u not measured"
    )
    r = RANGES["E1_width_exponent"]
    out.append(
        Claim.within(
            E,
            f"width error |f_{{L,H}} − f_{{L,P}}| ∝ Hᵏ at fixed L (L = {Ls_note}, each L its own constant): "
            "exponent k, mean over independent pools",
            k_w,
            r["value"],
            r["tol"][scale],
            detail=f"{pools_note}, each fitted on the RMS over its seeds; the reference's pool at the largest "
            f"L = {L_max} alone: {fw.describe('slope')}; scale={scale}",
            u=u_w,
            how="SD over the independent pools (each with its own seeds' heads) / √pools",
            post_hoc=r["post_hoc"],
            # the H values the exponent rests on (at every L two more constants than slopes)
            points=int(t.loc[(t["metric"] == "err_mc") & t["L"].isin(Ls_w), "H"].nunique()),
            seeds=seeds,
            min_points=3,
            kind="derived",
            statement_id="barboni.mean_field_limit",
            source=f"{DERIVATION} (Width: the L·H heads are i.i.d. draws of the pool, a Monte Carlo error); "
            f"{CONVENTIONS}",
        )
    )
    law = error_law(t)
    law0 = error_law(t, "err_t0", "err_depth_t0")
    coefs = lambda f, fmt: ", ".join(f"{k} = {f[k]:{fmt}} ± {f.se[k]:.2g}" for k in LAW_TERMS)
    note = (
        f"𝔼 err² = A x² + (B + C x)/(LH), x = 1/L − 1/L_ref, fitted with the full-pool column (H = ∞): "
        f"{coefs(law, '.3g')}, R² = {law.r2:.3f}, {law.n} points; at t = 0: {coefs(law0, '.2g')}, "
        f"R² = {law0.r2:.3f}; seeds per cell: {seeds_note}"
    )
    drop, drop_note = _loss_drop(t)
    # the worst of the cells' means over seeds (random draws of the heads): its seed bootstrap, the reference
    # (one pool draw of the run's seed, no seed of its own) kept as it is
    loss, ref = t[t["metric"] == "loss"], t[t["metric"] == "loss_ref"]
    u_drop = (
        fit.bootstrap_sd(
            fit.seed_bootstrap(
                loss, lambda b: _loss_drop(pd.concat([b, ref], ignore_index=True))[0], n_boot=N_BOOT
            )
        )
        if loss["seed"].nunique() >= 2
        else float("nan")
    )
    out.append(
        Claim.at_most(
            E,
            "the measured networks are trained: R(T)/R(0) of the reference and of every (L, H) cell (worst)",
            drop,
            RANGES["E1_loss_drop"]["value"],
            detail=f"{drop_note}; T = steps·η; scale={scale}",
            u=u_drop,
            how="seed bootstrap SD (cells' seeds resampled; the reference, one pool draw, as it is)",
            points=int(t.loc[t["metric"] == "loss", ["L", "H"]].drop_duplicates().shape[0]) + 1,
            seeds=seeds,
            kind="derived",
            statement_id="barboni.mean_field_limit",
            source="gradient flow lowers R, dR/dt = −(1/N²)·rᵀK r ≤ 0 (science/transformer.md §2.3); the factor "
            "is this experiment's stated precondition that E1 measures trained networks (issue 27 §2)",
        )
    )
    gain, u_gain = _log_ratio(law["A"], law.se["A"], law0["A"], law0.se["A"])
    out.append(
        Claim.at_least(
            E,
            "training makes the depth error: log10 of the trained law's A over the t = 0 law's A",
            gain,
            RANGES["E1_A_gain"]["value"],
            detail=f"{note}; scale={scale}",
            u=u_gain,
            how="fit SE",
            points=law.n,
            seeds=seeds,
            min_points=len(LAW_TERMS) + 1,
            kind="derived",
            statement_id="barboni.mean_field_limit",
            post_hoc=RANGES["E1_A_gain"]["post_hoc"],
            source="derivation: mfx/transformer/experiments/limit.py docstring (the depth error at t = 0 is "
            "second order in the pool's mean velocity, O(P^(−1/2)) since E V = 0; trained it is O(1))",
        )
    )
    # B: the width coefficient of the trained network, beside that of t = 0.  It is the sampling error
    # of the initial heads carried through training, which training reshapes (b²(L) moves with L) but
    # does not create: it is no test of training, and this check says only that the grid resolves it.
    b_ratio, u_b = _log_ratio(law["B"], law.se["B"], law0["B"], law0.se["B"])
    out.append(
        Claim.at_least(
            E,
            "the law's width term B/(LH) (B = b² at L = L_ref) is resolved: coefficient B > 0 by ≥ 2 SE "
            "(the initial heads' sampling error carried through training, not a test of training)",
            law["B"],
            RANGES["E1_resolved"]["value"],
            detail=f"trained B over the t = 0 B: 10^({b_ratio:.2f} ± {u_b:.2f}); {note}; scale={scale}",
            u=law.se["B"],
            how="fit SE",
            points=law.n,
            seeds=seeds,
            min_points=len(LAW_TERMS) + 1,
            kind="identity",
            statement_id="barboni.mean_field_limit",
            source="resolution of the grid and seeds: no realistic mistake makes B significantly negative (a "
            "rate without H, an i.i.d. reference, no training leave it positive or unresolved)",
        )
    )
    # which term carries more of 𝔼 err² at (L_min, H_max) is the data draw's, not the law's: A/B ran from
    # 0.07 to 1.6 over the fresh seeds 1000–1009, and the depth share ≥ ½ held on 6 of 10 (issue 27), so
    # the share is reported with the law, not tested
    sh = shares(t)
    (L, H), (Lw, Hw) = sh.get("depth_at", (0, 0)), sh.get("width_at", (0, 0))
    split = (
        f"depth term's share of 𝔼 err² at (L, H) = ({L}, {H}): {sh['depth']:.3g}; width term's at "
        f"({Lw}, {Hw}): {sh['width']:.3g}"
    )
    r2, r2_post_hoc = RANGES["E1_law_r2"]["value"][scale], RANGES["E1_law_r2"]["post_hoc"]
    out.append(
        Claim.at_least(
            E,
            f"the error law A x² + (B + C x)/(LH), x = 1/L − 1/L_ref, fits the grid (L ≥ {E1_DEPTH_L_MIN}): "
            "R² of log err",
            law.r2,
            r2,
            detail=f"{note}; {split}; scale={scale}",
            u=_bootstrap(t, lambda b: error_law(b).r2),
            how="seed bootstrap SD",
            points=law.n,
            seeds=seeds,
            min_points=len(LAW_TERMS) + 2,
            post_hoc=r2_post_hoc,
            kind="derived",
            statement_id="barboni.mean_field_limit",
            source=f"{DERIVATION} (the law 𝔼 err² = A x² + (B + C x)/(LH) and its terms); {CONVENTIONS}",
        )
    )
    return out


register(
    Experiment(
        name=E,
        family="transformer",
        description="E1: trained L×H transformer vs its continuous-depth, full-pool limit: depth and width errors",
        figure="E1: depth error vs 1/L, width error vs H, total error vs the fitted law, with the t = 0 errors",
        run=run,
        claims=claims,
        validate=validate,
        memory=memory,
        memory_keys="model.L, model.H, model.n, model.P, model.seeds, model.pools, model.pool_width, model.pool_seeds",
    )
)
