"""Table → numbers of the transformer family, shared by the claims (`experiments`) and the figures
(`plots`): the E1 error decomposition and its law, the E3 merge curves.

E1 (transformer_limit) error law.  The finite network's heads are i.i.d. draws from a pool of P heads
(the reference's initial law ρ⁰_P, the same at every depth), so its distance to the reference — the
same pool at every one of L_ref layers — splits, through the full-pool network of the same depth L, as

    f_{L,H} − f_ref = (f_{L,P} − f_ref)  +  (f_{L,H} − f_{L,P})
                       depth (Euler) error     width (Monte Carlo) error of the L·H heads,

and f_{L,P} is the H → ∞ limit of f_{L,H} (the empirical law of H draws tends to the pool's).

Depth.  Trained for a fixed flow time, f_{L,P} is a smooth function of the Euler step 1/L (the GD map of
a scheme of order 1), f_{L,P} = f_∞ + a/L + a₂/L² + …, so f_{L,P} − f_ref = a·x + a₂·(1/L² − 1/L_ref²) =
x·(a + a₂·z), x = 1/L − 1/L_ref, z = 1/L + 1/L_ref: the reference's own O(1/L_ref) error is in x, and the
a₂ term bends the plain power law of |f_{L,P} − f_ref| in x — at paper seed 0 its local exponents from
the pairs L = (2, 4) … (16, 32) rise 0.60, 0.77, 0.89, 0.96, and a fit over L ≥ 4 reads 0.887 (L ≥ 8:
0.929); on 8 fresh pools of the same data 0.90–0.96 (L ≥ 4).  `depth_exponents` fits the order with that
next term, |f_{L,P} − f_ref| = A·xᵏ·(1 + c·z): 0.986 on that pool, 0.96–1.04 over the 9 (issue 39).  In
𝔼 err² the a₂ term is minor — the measured depth error in place of a²x² moves the R² of the old law only
from 0.937 to 0.941 (paper, pool 0, P = 128).

Width.  A layer's update is the mean over its H heads of the head velocity; sampling them from the pool
adds a mean-zero error of variance σ²(s_l)/(L²H) at layer l (Euler step 1/L), independent between
layers.  Carried to the output (and through training) by the propagator J_l of the layers above, these
add up to E|f_{L,H} − f_{L,P}|² = (1/(LH))·(1/L)Σ_l g(l/L), g = |J|²σ²: a Riemann sum, ∫₀¹g + O(1/L).
The width coefficient is therefore b²(L) = b²_∞ + β/L, not a constant; β = (g(0) − g(1))/2 + … has no
fixed sign (whether errors made early or late in depth count more after training) and is large where g
varies strongly with depth.  Measured (quick, 16 seeds, pools 0–9): E err_mc²·LH is, on average over
the pools, flat in H at each L but moves with L — relative to each pool's mean, 0.78, 0.99, 1.05, 1.18
(± 0.04–0.09) at L = 2, 4, 8, 16 — up in some pools (×1.9 from L = 4 to 16 in pool 1) and down in
others (×0.6 in pool 2); at t = 0 it is flat (0.96, 0.96, 1.05, 1.03): training makes the L-dependence.
Written around the reference's depth, b²(L) = B + C·x (B = b²(L_ref), C = β); any other function of L
does no better (a free b² per depth gives the same R² to ±0.01).  The next term is O(1/(LH)²): it
matters only where the width error is O(1), at small H in the pools with b² ≈ 1 (there E err_mc²·LH
grows with H at L = 4, as H^0.2–0.3: the error saturates); it is not in the law.

Cross term.  2E⟨f_{L,P} − f_ref, f_{L,H} − f_{L,P}⟩ vanishes up to the O(1/(LH)) bias of the Monte Carlo
error; measured, (𝔼 err² − err_depth² − E err_mc²)/𝔼 err² = −0.02 ± 0.02 (quick grid, pools 0–9).

Hence the law that `error_law` fits over L ≥ E1_DEPTH_L_MIN (weighted least squares on relative
residuals, unconstrained so that a wrong law can give a negative coefficient):

    E|f_{L,H} − f_ref|² = A·x² + (B + C·x)/(L·H),        A = a²,  B + C·x = b²(L),

on the sampled grid together with its H = ∞ column (the full-pool networks: A·x² alone).  With B + C·x
replaced by a constant (the previous law) R² falls at quick scale from 0.98 to 0.94 (pool 0) and from
0.93/0.85 to 0.79/0.73 (pools 1/9), and at paper scale (pool 0, P = 128, 16 seeds) from 0.969 to 0.937.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.optimize import OptimizeWarning, curve_fit

from mfx import fit
from mfx.transformer.ranges import RANGES

E1_DEPTH_L_MIN = RANGES["E1_depth_L_min"]["value"]  # the 1/L expansions (depth error, b²(L)) hold from here


def _limit(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    t = table[(table["experiment"] == "transformer_limit") & (table["status"] == "ok")]
    return t[t["metric"] == metric]


def depth_errors(table: pd.DataFrame, metric: str = "err_depth") -> pd.DataFrame:
    """|f_{L,P} − f_ref| per depth L (deterministic: one value per L), with x = 1/L − 1/L_ref."""
    t = _limit(table, metric)
    d = t.groupby("L", as_index=False).agg(value=("value", "mean"), L_ref=("L_ref", "first"))
    d["x"] = 1.0 / d["L"] - 1.0 / d["L_ref"]
    return d.sort_values("L")


def depth_fit(table: pd.DataFrame, metric: str = "err_depth") -> fit.Fit:
    """Power law of the depth error in x = 1/L − 1/L_ref over L ≥ E1_DEPTH_L_MIN (exponent 1 expected)."""
    d = depth_errors(table, metric)
    d = d[(d["L"] >= E1_DEPTH_L_MIN) & (d["x"] > 0)]
    return fit.power_law(d["x"], d["value"])


def rms_over_seeds(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """√(mean over seeds of value²) per (L, H), with LH and x = 1/L − 1/L_ref."""
    t = _limit(table, metric)
    g = t.assign(sq=t["value"] ** 2).groupby(["L", "H"], as_index=False)
    r = g.agg(ms=("sq", "mean"), L_ref=("L_ref", "first"), seeds=("seed", "nunique"))
    r["value"] = np.sqrt(r["ms"])
    r["LH"] = r["L"] * r["H"]
    r["x"] = 1.0 / r["L"] - 1.0 / r["L_ref"]
    return r.drop(columns="ms")


def width_fit(table: pd.DataFrame, metric: str = "err_mc") -> tuple[fit.Fit, int]:
    """Power law in H of the width (Monte Carlo) error at the largest L of the grid; (fit, that L)."""
    r = rms_over_seeds(table, metric)
    if r.empty:
        return fit.power_law([], []), 0
    L = int(r["L"].max())
    r = r[r["L"] == L]
    return fit.power_law(r["H"], r["value"]), L


def travel(table: pd.DataFrame) -> float:
    """RMS over the inputs of |ŷ_ref(T) − ŷ_ref(0)|: how far training moved the limit's output (the same
    reference in every job of a sweep; NaN without the rows)."""
    t = _limit(table, "travel_ref")
    return float(t["value"].mean()) if len(t) else float("nan")


def diagonal(table: pd.DataFrame, metric: str = "err") -> pd.DataFrame:
    """The joint path L, H → ∞ through the grid: the k-th largest L with the k-th largest H (quick:
    (2, 1), (4, 4), (8, 16), (16, 64)), with the RMS over seeds of `metric` and, over the limit's travel,
    `rel` (the error as a share of how far training moved the limit's output).  Sorted by L·H."""
    r = rms_over_seeds(table, metric).set_index(["L", "H"])
    Ls, Hs = sorted(r.index.unique("L"), reverse=True), sorted(r.index.unique("H"), reverse=True)
    cells = [c for c in zip(Ls, Hs) if c in r.index]
    d = r.loc[cells].reset_index() if cells else r.iloc[:0].reset_index()
    d["rel"] = d["value"] / travel(table)
    return d.sort_values("LH").reset_index(drop=True)


LAW_TERMS = ("A", "B", "C")  # the coefficients of x², 1/(LH) and x/(LH)


def law_terms(L, H, L_ref) -> np.ndarray:
    """The regressors [x², 1/(LH), x/(LH)] of the law (module docstring) at (L, H); H = inf: the
    full-pool column, where only A·x² remains.  Shape [..., 3]."""
    L, H, L_ref = (np.asarray(v, dtype=float) for v in (L, H, L_ref))
    x = 1.0 / L - 1.0 / L_ref
    w = 1.0 / (L * H)
    return np.stack([x**2, w, x * w], axis=-1)


def law_predict(law: fit.Fit, L, H, L_ref) -> np.ndarray:
    """𝔼 err² of the fitted law at (L, H)."""
    return law_terms(L, H, L_ref) @ np.array([law[k] for k in LAW_TERMS])


def error_law(table: pd.DataFrame, metric: str = "err", depth_metric: str = "err_depth") -> fit.Fit:
    """𝔼 err² = A·x² + (B + C·x)/(L·H) over L ≥ E1_DEPTH_L_MIN (module docstring): the RMS over seeds of
    `metric` on the sampled grid together with `depth_metric` (the full-pool networks) as its H = ∞
    column.  `n` counts the sampled points.

    Weighted least squares on relative residuals (each point counts by its own size), unconstrained,
    SEs from the residual scatter; R² is that of log err over the sampled grid (the fitted law against
    the points of the log-log figure; the H = ∞ column, fitted too, is left out of it).
    """
    r = rms_over_seeds(table, metric)
    r = r[np.isfinite(r["value"]) & (r["value"] > 0) & (r["L"] >= E1_DEPTH_L_MIN)]
    d = depth_errors(table, depth_metric)
    d = d[np.isfinite(d["value"]) & (d["value"] > 0) & (d["L"] >= E1_DEPTH_L_MIN)]
    nan = float("nan")
    k = len(LAW_TERMS)
    if len(r) < k or len(r) + len(d) <= k:
        return fit.Fit(dict.fromkeys(LAW_TERMS, nan), dict.fromkeys(LAW_TERMS, nan), nan, len(r))
    terms = np.concatenate([law_terms(r["L"], r["H"], r["L_ref"]), law_terms(d["L"], np.inf, d["L_ref"])])
    e2 = np.concatenate([r["value"].to_numpy(), d["value"].to_numpy()]) ** 2
    T = terms / e2[:, None]
    coef, *_ = np.linalg.lstsq(T, np.ones_like(e2), rcond=None)
    res = T @ coef - 1.0
    cov = float(res @ res) / (len(e2) - k) * np.linalg.pinv(T.T @ T)
    se = np.sqrt(np.abs(np.diag(cov)))
    m = len(r)
    pred = terms[:m] @ coef
    log_y = np.log(e2[:m]) / 2
    log_p = np.log(np.maximum(pred, 1e-300)) / 2
    ss_tot = float(np.sum((log_y - log_y.mean()) ** 2))
    r2 = 1.0 - float(np.sum((log_y - log_p) ** 2)) / ss_tot if ss_tot > 0 else nan
    return fit.Fit(
        {t: float(c) for t, c in zip(LAW_TERMS, coef)}, {t: float(s) for t, s in zip(LAW_TERMS, se)}, r2, m
    )


def shares(table: pd.DataFrame) -> dict:
    """Shares of 𝔼 err² carried by each part where it should dominate (module docstring):
    {"depth": err_depth²/𝔼 err² at (smallest L of the law's range L ≥ E1_DEPTH_L_MIN, largest H),
    "width": E err_mc²/𝔼 err² at (largest L, smallest H)}, NaN when the grid lacks the points."""
    tot = rms_over_seeds(table, "err").set_index(["L", "H"])["value"]
    mc = rms_over_seeds(table, "err_mc").set_index(["L", "H"])["value"]
    dep = depth_errors(table).set_index("L")["value"]
    nan = float("nan")
    if tot.empty or dep.empty:
        return {"depth": nan, "width": nan}
    Ls, Hs = tot.index.get_level_values("L"), tot.index.get_level_values("H")
    in_law = Ls[Ls >= E1_DEPTH_L_MIN]
    lo = (int(in_law.min()) if len(in_law) else 0, int(Hs.max()))
    hi = (int(Ls.max()), int(Hs.min()))
    depth = dep.get(lo[0], nan) ** 2 / tot[lo] ** 2 if lo in tot.index else nan
    width = mc[hi] ** 2 / tot[hi] ** 2 if hi in tot.index and hi in mc.index else nan
    return {"depth": float(depth), "width": float(width), "depth_at": lo, "width_at": hi}


def merge_curves(table: pd.DataFrame) -> dict:
    """{(dist, d): (spacing, λ_min) sorted by decreasing spacing} of the merging families."""
    t = table[(table["experiment"] == "transformer_ntk") & (table["metric"] == "merge_lam_min")]
    return {
        k: (
            g.sort_values("spacing", ascending=False)["spacing"].to_numpy(),
            g.sort_values("spacing", ascending=False)["value"].to_numpy(),
        )
        for k, g in t.groupby(["dist", "d"])
    }


# E3 block table and discrete family (issue 24 §1–§2; derivation of the block conditions in `ntk`).
BLOCKS = ("V", "full", "Q", "K", "QK")  # NTK blocks of the block table
GRAMS = ("gram_constants", "gram_affine")  # Grams of the clouds' own Λ_i modulo constants / affine


def _block_rows(table: pd.DataFrame, L: int) -> pd.DataFrame:
    """The block table's rows at depth L."""
    t = table[(table["experiment"] == "transformer_ntk") & (table["metric"] == "block_ratio")]
    return t[t["L"] == L]


def block_table(table: pd.DataFrame, L: int = 1) -> pd.DataFrame:
    """λ_min/λ_max of the block table at depth L, min over seeds: index (dist, N), columns BLOCKS + GRAMS."""
    t = _block_rows(table, L)
    if t.empty:
        return pd.DataFrame(columns=[*BLOCKS, *GRAMS])
    wide = t.pivot_table(index=["dist", "N"], columns="block", values="value", aggfunc="min")
    return wide[[c for c in (*BLOCKS, *GRAMS) if c in wide.columns]]


def positivity(ratio: float, positive: float, null: float) -> str:
    """ "positive" (λ_min/λ_max > positive), "null" (≤ null: an exact zero) or "unresolved" between."""
    if not np.isfinite(ratio):
        return "unresolved"
    return "positive" if ratio > positive else ("null" if ratio <= null else "unresolved")


def block_agreement(table: pd.DataFrame, blocks, gram: str, positive: float, null: float) -> dict:
    """Each (dist, N, seed, block ∈ blocks) NTK block at L = 1 against the Gram `gram` of the same clouds:
    {"cases", "both_positive", "both_null", "mismatch": [(dist, N, block, seed, block ratio, Gram ratio)]}.
    A case agrees when both are positive or both are exact nulls; an unresolved one never agrees."""
    t = _block_rows(table, 1)
    g = t[t["block"] == gram].groupby(["dist", "N"])["value"].first()
    out = {"cases": 0, "both_positive": 0, "both_null": 0, "mismatch": []}
    for r in t[t["block"].isin(blocks)].itertuples():
        key = (r.dist, int(r.N))
        if key not in g.index:
            continue
        a, b = positivity(r.value, positive, null), positivity(g[key], positive, null)
        out["cases"] += 1
        if a == b == "positive":
            out["both_positive"] += 1
        elif a == b == "null":
            out["both_null"] += 1
        else:
            out["mismatch"].append((r.dist, int(r.N), r.block, int(r.seed), float(r.value), float(g[key])))
    return out


def share_bound(n: int) -> float:
    """The bound of a claim that no draw of n independent ones shows an event the statement excludes (almost
    surely, or on every run): the share that 0 of n excludes at the verdict's 2 SE, the Wilson upper limit
    4/(n + 4).  Read with u = the Wilson half-width at 1 SE, 0 of n passes (u = 1/(2(n + 1))); a share of the
    draws above the bound fails.  One event in n small (n ≲ 50) still passes: the draws resolve a share, not one."""
    return fit.wilson(0, n, z=2.0)[1] if n > 0 else float("nan")


def share_u(k: int, n: int) -> float:
    """u of a share k/n of independent draws: the Wilson interval's half-width at 1 SE (not 0 at k = 0 or n)."""
    return fit.wilson_u(k, n)


def discrete_singular(table: pd.DataFrame, positive: float) -> tuple[int, int]:
    """(k, n): of the n draws of the discrete family (a cloud of N i.i.d. samples: d, n atoms, draw), the k whose
    Gram modulo affine functions is singular (λ_min/λ_max ≤ `positive`) at some tilt scale σ_z — one cloud's
    Grams at the σ_z share its atoms, so the cloud is the independent draw."""
    t = table[(table["experiment"] == "transformer_ntk") & (table["metric"] == "disc_ratio")]
    if t.empty:
        return 0, 0
    worst = t.groupby(["d", "n", "draw"])["value"].min()
    return int((~(worst > positive)).sum()), len(worst)


def discrete_curves(table: pd.DataFrame, metric: str = "disc_lam_min") -> dict:
    """{σ_z: DataFrame indexed by n with the min, median and max over the draws of `metric`}."""
    t = table[(table["experiment"] == "transformer_ntk") & (table["metric"] == metric)]
    return {float(s): g.groupby("n")["value"].agg(["min", "median", "max"]) for s, g in t.groupby("sigma_z")}


# transformer_adjoint (derivation in mfx/transformer/adjoint.py)
def adjoint_first_draw(t: pd.DataFrame) -> pd.DataFrame:
    """The rows of the problem draw 0 (the one the width series uses; rows without a draw are its)."""
    return t[t["draw"].fillna(0) == 0] if "draw" in t else t


def adjoint_depth_fit(t: pd.DataFrame) -> fit.Fit:
    """Power law of the transformer_adjoint depth series: relative gradient error vs L (draw 0)."""
    d = adjoint_first_draw(t[t["metric"] == "err_depth"])
    return fit.power_law(d["L"], d["value"])


def adjoint_depth_exponents(t: pd.DataFrame) -> pd.Series:
    """Per problem draw, the exponent k of the depth series' error with the Euler expansion's next term,
    err(L) = a·L^k·(1 + c/L) (least squares in log err; NaN with fewer than 4 depths).

    A first-order scheme's error is a/L + b/L² + …: a plain power law reads the bend of b/L² as a shallower
    exponent wherever b/a is large and negative (fresh seed 5302, draw 0: local slopes −0.56, −0.69, −0.83
    from L = 4 to 32, a plain fit −0.69 ± 0.04, while its other draws read −0.82 … −0.99)."""
    d = t[t["metric"] == "err_depth"]
    d = d.assign(draw=d["draw"].fillna(0)) if "draw" in d else d.assign(draw=0)
    out = {}
    for draw, g in d.groupby("draw"):
        L, err = g["L"].to_numpy(float), g["value"].to_numpy(float)
        ok = np.isfinite(err) & (err > 0)
        out[int(draw)] = exponent_with_next_term(L, 1 / L, err, -1.0) if ok.sum() >= 4 else float("nan")
    return pd.Series(out, dtype=float)


def adjoint_remainder(t: pd.DataFrame) -> pd.Series:
    """Per problem draw, the Richardson error at the largest depth over its second-order prediction from
    the next one, e_R(L_max)/(e_R(L_max/2)/4): 1 when what is left of g_L − G is O(1/L²) (g_L → G), 4 when
    it is an L-independent offset (g_L → G' ≠ G)."""
    r = t[t["metric"] == "err_richardson"]
    if r.empty:
        return pd.Series(dtype=float)
    r = r.assign(draw=r["draw"].fillna(0)) if "draw" in r else r.assign(draw=0)
    out = {}
    for k, g in r.groupby("draw"):
        e = g.set_index("L")["value"].sort_index()
        L = e.index.max()
        if L // 2 in e.index:
            out[int(k)] = float(e[L] / (e[L // 2] / 4))
    return pd.Series(out, dtype=float)


def adjoint_width_rms(t: pd.DataFrame) -> pd.Series:
    """RMS over seeds of the width series' Monte Carlo error `err_mc` per H."""
    w = t[t["metric"] == "err_mc"]
    return np.sqrt((w["value"] ** 2).groupby(w["H"]).mean())


def adjoint_width_slope(t: pd.DataFrame) -> float:
    """Exponent in H of the RMS Monte Carlo error of the per-head gradient (expected −1/2)."""
    e = adjoint_width_rms(t)
    return fit.power_law(e.index.to_numpy(float), e.to_numpy())["slope"] if len(e) >= 2 else float("nan")


def _e2_rows(table: pd.DataFrame, role: str, metric: str) -> pd.DataFrame:
    """E2's ok rows of `role` and `metric` at the sweep's largest eps."""
    t = table[
        (table["experiment"] == "transformer_convergence")
        & (table["role"] == role)
        & (table["metric"] == metric)
        & (table["status"] == "ok")
    ]
    return t[t["eps"] == t["eps"].max()]


def lh_grid(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """E2's (L, H) grid (role `grid`, at the sweep's largest eps): mean and SD over seeds of `metric` per
    (L, H), sorted by L·H."""
    t = _e2_rows(table, "grid", metric)
    g = t.groupby(["L", "H"], as_index=False)["value"].agg(mean="mean", sd="std", seeds="count")
    g["LH"] = g["L"] * g["H"]
    return g.sort_values("LH")


def lh_sd_fit(table: pd.DataFrame, metric: str) -> fit.Fit:
    """Power law of the seed SD of `metric` in L·H over E2's (L, H) grid (exponent −1/2 expected: the
    kernel is an average over the L·H i.i.d. heads, `experiments/convergence.py` docstring)."""
    g = lh_grid(table, metric)
    return fit.power_law(g["LH"], g["sd"])


def exponent_with_next_term(x, z, err, k0: float) -> float:
    """k of err = A·xᵏ·(1 + c·z), least squares in log err from k = k0: a power law with the next term of
    its expansion, z the next term's ratio to the leading one (z = 1/L for a series in 1/L).  With three
    points it interpolates.  NaN with fewer points than that or no fit (1 + c·z ≤ 0 at some point)."""
    x, z, err = (np.asarray(v, dtype=float) for v in (x, z, err))
    ok = np.isfinite(err) & (err > 0)
    if ok.sum() < 3:
        return float("nan")
    law = lambda X, log_a, k, c: log_a + k * np.log(X[0]) + np.log1p(c * X[1])
    try:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            # trial steps with 1 + c·z ≤ 0 are rejected by the fit; 3 points leave no covariance (unused)
            warnings.simplefilter("ignore", OptimizeWarning)
            p, _ = curve_fit(law, np.vstack([x[ok], z[ok]]), np.log(err[ok]), p0=[0.0, k0, 0.0])
        return float(p[1])
    except (RuntimeError, ValueError):
        return float("nan")


def depth_exponents(table: pd.DataFrame) -> np.ndarray:
    """The depth order k of every pool of E1, the reference's (err_depth) first, then pools 1…B
    (err_depth_pool, one series per `pool`): |f_{L,P} − f_ref| = A·xᵏ·(1 + c·z) over L ≥ E1_DEPTH_L_MIN,
    x = 1/L − 1/L_ref, z = 1/L + 1/L_ref (module docstring).  The pools are independent draws of P heads of
    the initial law, so the spread of these k is the order's sampling error over pools."""
    series = [depth_errors(table)]
    t = _limit(table, "err_depth_pool")
    if not t.empty and "pool" in t:
        series += [depth_errors(g, "err_depth_pool") for _, g in t.groupby("pool")]
    ks = []
    for d in series:
        d = d[(d["L"] >= E1_DEPTH_L_MIN) & (d["x"] > 0)]
        z = 1.0 / d["L"] + 1.0 / d["L_ref"]
        ks.append(exponent_with_next_term(d["x"], z, d["value"], 1.0) if len(d) else float("nan"))
    return np.array(ks)


def common_width_exponent(r: pd.DataFrame) -> float:
    """One exponent k of log value = k·log H + c_L over the rows of `r` (L, H, value: an RMS over seeds per
    cell), each depth L with its own constant c_L (b²(L) moves with L: module docstring, Width); NaN
    without two H at some L."""
    r = r[(r["value"] > 0) & np.isfinite(r["value"])]
    lh, ly = np.log(r["H"].astype(float)), np.log(r["value"].astype(float))
    x = lh - lh.groupby(r["L"]).transform("mean")
    y = ly - ly.groupby(r["L"]).transform("mean")
    sxx = float((x**2).sum())
    return float((x * y).sum() / sxx) if sxx > 0 else float("nan")


def width_exponents(table: pd.DataFrame) -> tuple[np.ndarray, list[int]]:
    """The width exponent of every pool of E1 that has sampled networks of its own — the reference's
    (err_mc) first, then pools 1…W (err_mc_pool: H heads drawn from pool b against pool b's full
    network) — each one k common to the depths Ls where the further pools have networks
    (`common_width_exponent` on the RMS over that pool's seeds): (ks [1 + W], Ls).  Without further pools
    Ls is the grid's largest L and ks the reference's alone.

    The pools are independent draws of P heads of the initial law, each with its own seeds' draws of heads,
    so the spread of these k is the exponent's sampling error over pools and seeds together (issue 39)."""
    own = rms_over_seeds(table, "err_mc")
    if own.empty:
        return np.array([]), []
    t = _limit(table, "err_mc_pool")
    further = [g for _, g in t.groupby("pool")] if "pool" in t else []
    Ls = sorted(int(L) for L in t["L"].unique()) if further else [int(own["L"].max())]
    ks = [common_width_exponent(own[own["L"].isin(Ls)])]
    ks += [common_width_exponent(rms_over_seeds(g, "err_mc_pool")) for g in further]
    return np.array(ks), Ls


def kernel_grid(table: pd.DataFrame, metric: str, role: str = "kernel_grid") -> pd.DataFrame:
    """E2's grids against the limit (role `kernel_grid`, untrained; `grid`, trained at close targets): RMS
    over seeds of `metric` (a deviation from the limit's K_∞) per (L, H), sorted by L·H, at one eps of the
    sweep (the largest)."""
    t = _e2_rows(table, role, metric)
    g = t.groupby(["L", "H"], as_index=False)["value"].agg(
        rms=lambda v: float(np.sqrt(np.mean(np.square(v)))), seeds="count"
    )
    g["LH"] = g["L"] * g["H"]
    return g.sort_values("LH")


def kernel_grid_fit(table: pd.DataFrame, metric: str, role: str = "kernel_grid") -> fit.Fit:
    """Power law of the RMS deviation `metric` in L·H over a grid of `role` (−1/2 derived:
    `experiments/convergence.py` docstring)."""
    g = kernel_grid(table, metric, role)
    return fit.power_law(g["LH"], g["rms"])


def rms_by(t: pd.DataFrame, metric: str, by) -> pd.Series:
    """RMS over seeds of `metric` per value of `by` (a column or a list of columns)."""
    return t[t["metric"] == metric].groupby(by)["value"].agg(lambda v: float(np.sqrt(np.mean(np.square(v)))))


def wp_grid(t: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Well-posedness grid of transformer_adjoint (`metric` wp_err or wp_lip): RMS over seeds per (L, H)."""
    return rms_by(t, metric, ["L", "H"]).rename("rms").reset_index()


def wp_exponents(t: pd.DataFrame, metric: str) -> tuple[float, float]:
    """(a_L, a_H) of log rms = a_L log L + a_H log H + c over the (L, H) grid (NaN if < 4 cells)."""
    g = wp_grid(t, metric)
    g = g[np.isfinite(g["rms"]) & (g["rms"] > 0)]
    if len(g) < 4 or g["L"].nunique() < 2 or g["H"].nunique() < 2:
        return float("nan"), float("nan")
    return fit.joint_power_law(g["L"], g["H"], g["rms"])


def gf_order(t: pd.DataFrame) -> fit.Fit:
    """Power law in η of the RMS over seeds of GD's distance to the RK4 flow at T (metric gf_err), on the η in
    the first-order regime: η·λ ≤ RANGES["gf_step_order"]["regime"], λ the flow's stiffness (gf_stiff, the
    largest over seeds; rows without it: every η)."""
    g = rms_by(t[gf_window(t, t["eta"])], "gf_err", "eta")
    return fit.power_law(g.index.to_numpy(float), g.to_numpy())


def gf_window(t: pd.DataFrame, eta):
    """Whether each step η lies in the first-order regime η·λ ≤ RANGES["gf_step_order"]["regime"] (λ the
    largest gf_stiff over seeds; every η where there are no gf_stiff rows)."""
    lam = t[t["metric"] == "gf_stiff"]["value"]
    return eta * lam.max() <= RANGES["gf_step_order"]["regime"] if len(lam) else np.full(len(eta), True)


def gf_sampling(t: pd.DataFrame) -> fit.Fit:
    """Power law in H of the RMS over pairs of the two samplings' difference of trained change (gf_pair)."""
    g = rms_by(t, "gf_pair", "H")
    return fit.power_law(g.index.to_numpy(float), g.to_numpy())


def gf_curve_gap(t: pd.DataFrame) -> float:
    """Whether the samplings of the two largest H (H < H') follow one curve: the gap between their mean trained
    changes over its Monte Carlo error, r² = mean over the N·d components of (c̄_H − c̄_H')² / (s²_H/n + s²_H'/n),
    with sampling 0 of each pair at H and sampling 1 at H' (different seeds: independent draws; the same seed at
    two H reuses its random numbers).  One limit curve: the mean changes differ by the O(1/H) mean-field bias
    only, below the O((nH)^(−1/2)) error at these n and H, so r² ≈ χ²_k/k (k ≤ N·d) ≈ 1; a flow whose speed
    depends on H (a learning rate off by a power of H) puts the two means on different curves.  r is a ratio of
    two changes, blind to how far they went (training off reads ≈ 1 too): the claim counts untrained runs."""
    r = t[t["metric"] == "gf_change"]
    if r.empty or r["H"].nunique() < 2:
        return float("nan")
    H, H2 = sorted(r["H"].unique())[-2:]
    side = lambda h, j: r[(r["H"] == h) & (r["sampling"] == j)].pivot_table(
        index="seed", columns="component", values="value"
    )
    a, b = side(H, 0), side(H2, 1)
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    gap = a.mean() - b.mean()
    error = a.var() / len(a) + b.var() / len(b)
    return float(np.sqrt(np.mean(gap**2 / error)))
