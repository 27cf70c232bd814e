"""Table → numbers for the ResNet experiments: the fits and summaries that both the claims
(`mfx.resnet.experiments`) and the figures (`mfx.resnet.plots`) evaluate, so a figure draws the
fit exactly as its claim measures it.

Per-rep errors are aggregated over reps as an RMS at the last step K (the author's convention).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from mfx import fit

FIT_D_MIN_PER_D_OUT = 3  # fits in D use D ≥ 3·d_out (resnet_dim, resnet_phase): see experiments.dim.run_dim


def _last_step(table, name, metric):
    """Rows of experiment `name`, metric `metric`, status ok, at the last step K."""
    t = table[(table["experiment"] == name) & (table["metric"] == metric) & (table["status"] == "ok")]
    return t[t["step"] == t["step"].max()]


def rms_over_seeds(table, name, metric, by):
    """Error aggregated over reps as an RMS (the author's convention) at step K, indexed by `by`."""
    t = _last_step(table, name, metric)
    # vectorised (the claims' seed bootstraps call this thousands of times); a NaN rep makes its point NaN
    g = t.assign(value=t["value"].astype(float) ** 2, nan=t["value"].isna()).groupby(by)
    return np.sqrt(g["value"].mean().where(~g["nan"].any())).reset_index()


def rms_se_over_seeds(table, name, metric, by):
    """`rms_over_seeds` with the standard error of each RMS over reps (delta method: SE(mean v²)
    / (2·RMS)), for error bars; NaN where a point has a single rep."""
    t = _last_step(table, name, metric)

    def stats(v):
        v2 = v.to_numpy(float) ** 2
        rms = float(np.sqrt(v2.mean()))
        se = float(v2.std(ddof=1) / np.sqrt(len(v2)) / (2 * rms)) if len(v2) > 1 and rms > 0 else np.nan
        return pd.Series({"value": rms, "se": se})

    return t.groupby(by)["value"].apply(stats).unstack().reset_index()


# --------------------------------------------------------------------- depth / width (fixed D)


def two_term_fit(err):
    """err ≈ a/L + b/√(LM) (non-negative, log space) over the rows of `err` (columns L, M, value)."""
    L, M = err["L"].to_numpy(float), err["M"].to_numpy(float)
    return fit.nonneg_sum({"a": 1 / L, "b": 1 / np.sqrt(L * M)}, err["value"].to_numpy(float))


# The trained companions read the error of the trained-minus-initial output (metrics err_df, err_dh),
# which is exactly 0 when nothing trains.  An RMS below this floor is float64 roundoff of O(1) outputs:
# it is read at the floor, so an untrained grid reads a flat law (exponent 0) instead of log(0).
DISPLACEMENT_FLOOR = 1e-12


def floored(err):
    """`err` with its values read at DISPLACEMENT_FLOOR where below it (see there)."""
    return err.assign(value=np.maximum(err["value"].to_numpy(float), DISPLACEMENT_FLOOR))


def depth_slope(table, metric="err_f"):
    """Power-law fit in L of the output error (RMS over reps, step K) at M = 1 (resnet_depth);
    metric err_df: of the trained displacement's error (the trained companion, floored)."""
    err = floored(rms_over_seeds(table, "resnet_depth", metric, ["L", "M"]))
    m1 = err[err["M"] == 1]
    return fit.power_law(m1["L"], m1["value"])


def width_window(err):
    """Rows with L·M ≤ L_ref·M_ref/16, where the reference's own error is negligible (the points
    resnet_width's claims fit)."""
    return err["L"] * err["M"] <= err["L_ref"] * err["M_ref"] / 16


def width_err(table, metric="err_f"):
    """resnet_width's output errors (RMS over reps, step K) inside `width_window` (metric err_df: the
    trained displacement's error, floored)."""
    err = floored(rms_over_seeds(table, "resnet_width", metric, ["L", "M", "L_ref", "M_ref"]))
    return err[width_window(err)]


def floor_fraction(table):
    """Share of the a/L term in the fitted error a/L + b/√(LM) at the smallest L and largest M of
    `width_err` (where the 1/L floor matters most); NaN when the grid has fewer than two L."""
    err = width_err(table)
    if err["L"].nunique() < 2:
        return float("nan")
    both = two_term_fit(err)
    L, M = float(err["L"].min()), float(err[err["L"] == err["L"].min()]["M"].max())
    floor = both["a"] / L
    return floor / (floor + both["b"] / np.sqrt(L * M))


def width_slope(table, metric="err_f"):
    """(power-law fit in M at the largest L of `width_err`, that L, number of points)."""
    err = width_err(table, metric)
    L_max = err["L"].max() if len(err) else float("nan")
    big = err[err["L"] == L_max]
    return fit.power_law(big["M"], big["value"]), L_max, len(big)


# ------------------------------------------------------------------------------------ D sweep


DIM_D_MAX_PER_M = 4  # resnet_dim's √D law is fitted on D ≤ 4·M (Thm 3 needs D = O(M)); beyond: departure


def _fit_range(err):
    return err[(err["D"] >= FIT_D_MIN_PER_D_OUT * err["d_out"]) & (err["D"] <= DIM_D_MAX_PER_M * err["M"])]


def dim_beyond(table, metric):
    """(power-law fit in D of `metric` (RMS over reps, step K) over D ≥ DIM_D_MAX_PER_M·M — the end
    of the fit range and beyond, where Thm 3's D = O(M) is left — and the D range as (min, max))."""
    err = rms_over_seeds(table, "resnet_dim", metric, ["M", "D"])
    err = err[err["D"] >= DIM_D_MAX_PER_M * err["M"]]
    span = (float(err["D"].min()), float(err["D"].max())) if len(err) else (float("nan"),) * 2
    return fit.power_law(err["D"], err["value"]), span


def dim_fits(table, metric="err_h"):
    """(power law in D, a/L + b√(D/(LM)), the points) of `metric` over the fit range (metric err_dh:
    the trained displacement's h_L error, floored)."""
    err = _fit_range(floored(rms_over_seeds(table, "resnet_dim", metric, ["L", "M", "D", "d_out"])))
    L, M, D = (err[k].to_numpy(float) for k in ("L", "M", "D"))
    terms = {"a": 1 / L, "b": np.sqrt(D / (L * M))}
    return fit.power_law(D, err["value"]), fit.nonneg_sum(terms, err["value"].to_numpy(float)), err


# ------------------------------------------------------------------------ D/M ratio (resnet_ratio)


RATIO_D_MIN_PER_D_OUT = 8  # resnet_ratio fits D ≥ 8·d_out: the read-out span's share d_out/D ≤ 1/8


def ratio_err(table, metric="err_h"):
    """resnet_ratio's `metric` (RMS over reps, step K; err_dh floored) per (L, M, D) on its fit window
    D ≥ RATIO_D_MIN_PER_D_OUT·d_out, D ≤ DIM_D_MAX_PER_M·M (inside Thm 3's D = O(M))."""
    err = floored(rms_over_seeds(table, "resnet_ratio", metric, ["L", "M", "D", "d_out"]))
    return err[ratio_window(err)]


def ratio_window(err):
    """Rows (columns M, D, d_out) inside resnet_ratio's fit window."""
    return (err["D"] >= RATIO_D_MIN_PER_D_OUT * err["d_out"]) & (err["D"] <= DIM_D_MAX_PER_M * err["M"])


def ratio_fit(table, metric="err_h"):
    """(exponent p in M at fixed D/M, exponent q in D/M at fixed M, points): least squares of
    log err = p·log M + q·log(D/M) + k over `ratio_err` (one law for every cell, so q is the slope of
    the one curve the M-curves collapse on when p = 0; at fixed M, q is also the exponent in D).
    NaN with fewer than two M or two D/M."""
    err = ratio_err(table, metric)
    err = err[err["value"] > 0]
    M, c = err["M"].to_numpy(float), (err["D"] / err["M"]).to_numpy(float)
    if len(np.unique(M)) < 2 or len(np.unique(c)) < 2:
        return float("nan"), float("nan"), len(err)
    p, q = fit.joint_power_law(M, c, err["value"])
    return p, q, len(err)


# ------------------------------------------------------- beyond D = O(M) (resnet_departure)


DEPARTURE_D_MIN_PER_M = 16  # resnet_departure's 'D ≫ M' cells: D ≥ 16·M (inside: D ≤ DIM_D_MAX_PER_M·M)


def departure_ratios(table):
    """Per cell (M, D) of resnet_departure: ρ, the geometric mean over reps of each rep's output error at
    step K over its own at k = 0 (columns M, D, c = D/M, value; a NaN rep makes its cell NaN).  At k = 0
    the error is the central limit theorem of L·M i.i.d. blocks; ρ says what K GD steps did to it (1
    exactly when nothing trains).  Each rep is normalised by its own initial error, and the mean is
    taken in log, so one rep whose training departs in every cell moves ρ by its share, not by its
    square (an RMS over reps of each step read seed 9040's 16 reps as 1.16 ± 0.51 inside, from one rep
    at 2–10 in every cell)."""
    t = table[
        (table["experiment"] == "resnet_departure") & (table["metric"] == "err_f") & (table["status"] == "ok")
    ]
    key = ["M", "D", "seed"]
    start = t[t["step"] == 0].set_index(key)["value"]
    end = t[t["step"] == t["step"].max()].set_index(key)["value"]
    log_rho = np.log(end.astype(float) / start.astype(float)).rename("value").reset_index()
    r = log_rho.groupby(["M", "D"])["value"].agg(lambda v: float(np.exp(v.to_numpy().mean()))).reset_index()
    return r.assign(c=r["D"] / r["M"])[["M", "D", "c", "value"]]


def departure_mean(table, beyond):
    """(geometric mean of `departure_ratios` over the cells inside D = O(M), D ≤ DIM_D_MAX_PER_M·M, or
    (`beyond`) over those with D ≥ DEPARTURE_D_MIN_PER_M·M, number of cells; NaN with none)."""
    r = departure_ratios(table)
    cells = r["c"] >= DEPARTURE_D_MIN_PER_M if beyond else r["c"] <= DIM_D_MAX_PER_M
    at = r[cells]["value"].to_numpy(float)
    return (float(np.exp(np.log(at).mean())) if len(at) and np.all(at > 0) else float("nan")), len(at)


# --------------------------------------------------------------------------------- lazy (alpha)


LAZY_ALPHA_MIN = 1.0  # the feature-movement and tangent-model fits: alpha ≥ 1 (lazy side)


def lazy_fits(table, alpha_min=LAZY_ALPHA_MIN):
    """Power-law fits in alpha ≥ alpha_min of the rep means of the main network's metrics at step K."""
    mean = {}
    for metric in ("local_update", "lin_dist", "tangent_dist"):
        t = floored(_last_step(table, "resnet_lazy", metric))  # 0 untrained: a flat law, not log(0)
        t = t[t["alpha"] >= alpha_min]
        g = t.groupby("alpha")["value"]
        mean[metric] = g.mean().reset_index().assign(se=g.sem().to_numpy())
    return {k: fit.power_law(v["alpha"], v["value"]) for k, v in mean.items()}, mean


LIMIT_INITS = ("iid", "paired")
LIMIT_ALPHA_MIN = 0.5  # below it the net is in the feature-learning regime: its distance saturates
LIMIT_ALPHA_MAX = 0.5  # the law holds for alpha ≪ √(LM): fitted up to alpha ≤ 0.5·√(LM)


def lazy_limit(table, init):
    """Distance to the tangent mean ODE limit at step K, RMS over reps, for one init: columns
    LM, alpha, value — only the alpha window LIMIT_ALPHA_MIN ≤ alpha ≤ LIMIT_ALPHA_MAX·√(LM)."""
    t = _last_step(table, "resnet_lazy", "lim_dist")
    if "init" in t:
        t = t[t["init"] == init]
    err = t.assign(LM=t["L"] * t["M"]).groupby(["LM", "alpha"])["value"]
    err = err.apply(lambda v: float(np.sqrt(np.mean(v**2)))).reset_index()
    return err[(err["alpha"] >= LIMIT_ALPHA_MIN) & (err["alpha"] <= LIMIT_ALPHA_MAX * np.sqrt(err["LM"]))]


def lazy_limit_fit(table, init="iid"):
    """Fit err(alpha, LM) = A_LM·alpha^p + B_LM·alpha^q (log space; p, q shared, A, B per L·M) to
    `lazy_limit`: p is the falling exponent (−1 in Theorem 2), q the rising one (+1, the
    alpha/√(LM) term), alpha*_LM = (−p A/(q B))^{1/(q−p)} the optimum of each size and r the
    slope of log alpha* in log(LM) (1/4 when p = −1, q = 1).

    Returns {"p", "q", "r", "alpha_star": DataFrame(LM, alpha_star), "n": points, "sizes"} (NaN
    values when the window holds fewer than 2 sizes with ≥ 3 alphas each)."""
    err = lazy_limit(table, init)
    sizes = [LM for LM, g in err.groupby("LM") if len(g) >= 3]
    err = err[err["LM"].isin(sizes)]
    nan = float("nan")
    out = {"p": nan, "q": nan, "r": nan, "n": len(err), "sizes": len(sizes)}
    out["alpha_star"] = pd.DataFrame({"LM": sizes, "alpha_star": [nan] * len(sizes)})
    if len(sizes) < 2:
        return out
    idx = err["LM"].map({LM: i for i, LM in enumerate(sizes)}).to_numpy()
    a, y, G = err["alpha"].to_numpy(float), np.log(err["value"].to_numpy(float)), len(sizes)

    def residual(x):
        A, B = np.exp(x[2 : 2 + G]), np.exp(x[2 + G :])
        return np.log(A[idx] * a ** x[0] + B[idx] * a ** x[1]) - y

    start = np.r_[-1.0, 1.0, np.full(G, np.log(0.05)), np.full(G, np.log(0.02))]
    sol = least_squares(residual, start, bounds=([-4, 0, *[-30] * 2 * G], [0, 4, *[10] * 2 * G]))
    p, q = sol.x[:2]
    A, B = np.exp(sol.x[2 : 2 + G]), np.exp(sol.x[2 + G :])
    star = (-p * A / (q * B)) ** (1 / (q - p)) if q > 0 > p else np.full(G, nan)
    out.update(p=float(p), q=float(q), alpha_star=pd.DataFrame({"LM": sizes, "alpha_star": star}))
    out["A"], out["B"] = A, B
    if len(sizes) >= 2:
        out["r"] = fit.power_law(np.asarray(sizes, float), star)["slope"]
    return out


LIMIT_REF_SHARE = 4  # the 1/L fit uses sizes L ≤ L_ref/4 (see lazy_depth_slope)


def lazy_depth_slope(table):
    """(power-law fit in L of the paired distance to the tangent mean ODE limit, RMS over reps, at
    the largest alpha of the sweep, that alpha, points), over the sizes L = M ≤ L_ref/LIMIT_REF_SHARE.

    Paired units remove the alpha/√(LM) term (`mfx.resnet.tangent`), so no window alpha ≪ √(LM)
    is needed, and at the largest alpha the 1/alpha term is negligible (the paired distance is flat
    in alpha there): every size enters, which a window alpha ≤ √(LM)/2 would cut to three over a
    factor 4 (u 0.08 at paper scale).  The reference is the same paired model at L_ref = M_ref with
    its own independent units, so its own error (∝ 1/L_ref) adds in quadrature to the network's:
    at L = L_ref/2 it lifts the distance by √(1 + 1/4) and flattens the slope (paper, seed 0: the
    step L = 64 → 128 fell by 0.64, not 0.5); at L ≤ L_ref/4 it adds ≤ 3 %."""
    t = _last_step(table, "resnet_lazy", "lim_dist")
    if not t.empty:
        t = t[(t["init"] == "paired") & (t["L"] <= t["L_ref"] / LIMIT_REF_SHARE)]
    if t.empty:
        return fit.power_law([], []), float("nan"), 0
    alpha = float(t["alpha"].max())
    err = t[t["alpha"] == alpha].groupby("L")["value"].apply(lambda v: float(np.sqrt(np.mean(v**2))))
    return fit.power_law(err.index.to_numpy(float), err.to_numpy()), alpha, len(err)


# The size slope at fixed alpha reads alpha ≤ √(LM)/4, half the law fit's window: at alpha = √(LM)/2
# a second-order term in alpha/√(LM) steepens it (paper, seed 0, i.i.d., alpha = 16: the distance
# falls by 2.21 from L = 32 to 64 and by 2.06 from 64 to 128, slope −1.09; at alpha = 8 by 2.09 and
# 2.00, slope −1.03; at alpha/√(LM) ≤ 1/8 by 2.00).
SIZE_ALPHA_MAX = 0.25


def lazy_size_slope(table, init):
    """(power-law fit in L of `lazy_limit`'s distance for `init` at fixed alpha, that alpha, points):
    the sizes are L = M (so √(LM) = L), alpha the largest of the window alpha ≤ SIZE_ALPHA_MAX·√(LM)
    that holds ≥ 3 sizes (the deepest point of Theorem 2's α ≪ √(LM) that a slope resolves)."""
    err = lazy_limit(table, init)
    err = err[err["alpha"] <= SIZE_ALPHA_MAX * np.sqrt(err["LM"])]
    held = err.groupby("alpha")["LM"].nunique()
    held = held[held >= 3]
    if held.empty:
        return fit.power_law([], []), float("nan"), 0
    alpha = float(held.index.max())
    at = err[err["alpha"] == alpha]
    return fit.power_law(np.sqrt(at["LM"]), at["value"]), alpha, len(at)


def paired_slope(table):
    """Power-law slope in alpha of the paired-init distance to the limit over alpha ≥ 2 in the
    window, pooled over sizes with one intercept per L·M (flat: no alpha/√(LM) term)."""
    err = lazy_limit(table, "paired")
    err = err[err["alpha"] >= 2]
    err = err[err.groupby("LM")["alpha"].transform("size") >= 2]
    if err["LM"].nunique() < 1 or len(err) < 3:
        return float("nan"), len(err)
    dummies = pd.get_dummies(err["LM"]).to_numpy(float)
    A = np.column_stack([np.log(err["alpha"].to_numpy(float)), dummies])
    coef, *_ = np.linalg.lstsq(A, np.log(err["value"].to_numpy(float)), rcond=None)
    return float(coef[0]), len(err)


# The falling term's read-out: alpha ≥ alpha_max/4, the three largest alphas of the sweep (16, 32, 64).
# α^−2 is the leading order of an expansion in the units' movement δθ ∝ 1/α; below, the next orders
# flatten it (quick seed 0, local slopes of lin_dist from α = 1: −1.00, −1.20, −1.20, −1.34, −1.70,
# −1.91, −1.98; paper −1.16 … −1.95).  Post hoc: ranges.RANGES["lazy_fall"].
LAZY_FALL_SHARE = 4


def lazy_fall_fit(table):
    """(power-law fit in alpha of the rep mean of the paired network's distance to its own blockwise
    tangent model (lin_dist), alpha ≥ alpha_max/LAZY_FALL_SHARE; that alpha_min).

    That distance is the falling term of the distance to the tangent mean ODE limit, with nothing else:
    with paired units the blockwise tangent model is alpha-free (no initial residual; each unit moves
    ∝ 1/α and its block carries α/(LM) of it), so f − f_lim = (f − f_tan) + (f_tan − f_lim), the second
    an alpha-free floor vector.  Reading the limit distances with a fitted floor (A·α^p + F per size)
    mixed in the cross term 2<f − f_tan, f_tan − f_lim> (the paired distance dips below its floor at
    α = 2 on L = M = 8, 16), which scattered p by 0.2–0.4 at quick (fresh 8982, 8983, 9030, 9031)."""
    t = _last_step(table, "resnet_lazy", "lin_dist")
    if t.empty:
        return fit.power_law([], []), float("nan")
    alpha_min = float(t["alpha"].max()) / LAZY_FALL_SHARE
    return lazy_fits(table, alpha_min)[0]["lin_dist"], alpha_min


# ----------------------------------------------------------------------------------- phase


def phase_values(table, metric):
    """Per-rep values of `metric` at step K for every (gamma, D).  `local_share` is a rep's local update
    over its own feature movement at the same run: both are proportional to the rate the rep trains at
    (a fraction of its own largest stable rate, which scatters ≈ 0.2 in log between draws), so the ratio
    drops that scatter and keeps how the units' own updates compare with the movement they make."""
    if metric != "local_share":
        return _last_step(table, "resnet_phase", metric)
    key = ["gamma", "D", "d_out", "seed"]
    local, movement = (
        _last_step(table, "resnet_phase", m).set_index(key)["value"].astype(float)
        for m in ("local_update", "movement")
    )
    return (local / movement).dropna().rename("value").reset_index()


def phase_exponents(table, metric="local_update"):
    """Exponent of `metric` in D for each gamma (power-law fit of the rep mean over
    D ≥ 3·d_out, see FIT_D_MIN_PER_D_OUT); returns (exponents, rep means of every (gamma, D))."""
    t = phase_values(table, metric)
    mean = t.groupby(["gamma", "D", "d_out"])["value"].mean().reset_index()
    fitted = mean[mean["D"] >= FIT_D_MIN_PER_D_OUT * mean["d_out"]]
    rows = []
    for gamma, g in fitted.groupby("gamma"):
        f = fit.power_law(g["D"], g["value"])
        rows.append({"gamma": gamma, "exponent": f["slope"], "se": f.se["slope"], "r2": f.r2, "n": f.n})
    return pd.DataFrame(rows, columns=["gamma", "exponent", "se", "r2", "n"]), mean


PHASE_METRICS = ("lr_max", "local_update", "movement", "diversity", "local_share")


def phase_summary(table):
    """Per gamma, the exponent in D of each of PHASE_METRICS at the largest stable rate (columns
    gamma, <metric>, <metric>_se, n): the numbers the phase diagram and its claims read."""
    out = None
    for metric in PHASE_METRICS:
        exps, _ = phase_exponents(table, metric)
        exps = exps[exps["n"] >= 3][["gamma", "exponent", "se", "n"]]
        exps = exps.rename(columns={"exponent": metric, "se": f"{metric}_se"})
        if metric != "lr_max":
            exps = exps.drop(columns="n")
        out = exps if out is None else out.merge(exps, on="gamma", how="outer")
    return out.sort_values("gamma").reset_index(drop=True)


def phase_gamma_star(table) -> float:
    """gamma where the exponent in D of the local share (`phase_values`: local update / feature
    movement, each rep at its largest stable rate) crosses 0 (linear interpolation between grid
    gammas).  The movement's own exponent is ≈ 0 at every gamma (the edge is where h_L moves O(1):
    the identity claim of resnet_phase), so this is the local-update exponent's crossing without the
    draws' scatter of the stability edge (seed 0: per-rep SD of γ* 0.097 → 0.048 at paper).  Without a sign change inside the grid, the straight line
    through the two gammas at the end nearest 0 is extrapolated, so that a shifted crossing reads as
    a value (a fail), not as a missing one."""
    return gamma_star_of(phase_summary(table))


def gamma_star_of(summary) -> float:
    """`phase_gamma_star` from a `phase_summary` already computed."""
    s = summary.dropna(subset=["local_share"])
    if len(s) < 2:
        return float("nan")
    crossing = fit.zero_crossing(s["gamma"], s["local_share"])
    if np.isfinite(crossing):
        return crossing
    x = s["local_share"].to_numpy(float)
    end = s.iloc[:2] if abs(x[0]) < abs(x[-1]) else s.iloc[-2:]
    (g0, g1), (x0, x1) = end["gamma"].to_numpy(float), end["local_share"].to_numpy(float)
    return float(g0 - x0 * (g1 - g0) / (x1 - x0)) if x1 != x0 else float("nan")


def describe_phase(summary) -> str:
    """One line of the measured exponents per gamma (claims' details, figure captions)."""
    parts = []
    for _, r in summary.iterrows():
        parts.append(
            f"γ={r['gamma']:g}: rate {r['lr_max']:+.2f}, update {r['local_update']:+.2f}, "
            f"movement {r['movement']:+.2f}, diversity {r['diversity']:+.2f}, "
            f"update/movement {r['local_share']:+.2f}"
        )
    return "; ".join(parts) if parts else "no gamma with ≥ 3 values of D in the fit range"


def phase_excluded(table):
    """(reps × (gamma, D) without a stable rate, all of them): what the phase claims leave out."""
    t = table[(table["experiment"] == "resnet_phase") & (table["metric"] == "lr_max")]
    return int((t["status"] != "ok").sum()), len(t)


def phase_untrained(table):
    """(reps × (gamma, D) stable at every rate tried, all of them): a network that no rate up to
    rate_start·RATE_RANGE destabilises does not respond to training (e.g. the rate × 0)."""
    t = table[table["experiment"] == "resnet_phase"]
    runs = t[t["metric"] == "lr_max"]
    stable = t[t["metric"] == "stable"].groupby(["D", "gamma", "seed"])["value"].min()
    lost = runs[runs["status"] != "ok"].set_index(["D", "gamma", "seed"]).index
    return int((stable.reindex(lost) == 1).sum()), len(runs)


# A configuration whose loss falls by less than 1 % over the K steps does not train (seed 0 reads
# ≤ 0.49 in every configuration of every resnet sweep, quick and paper; the rate × 0 or × 1e-9 reads 1).
STILL = 0.99


def loss_ratios(table, name):
    """Mean-over-reps loss_K / loss_0 per configuration of experiment `name` (metric `loss`)."""
    t = table[(table["experiment"] == name) & (table["metric"] == "loss") & (table["status"] == "ok")]
    if not len(t):
        return pd.Series(dtype=float)
    keys = [k for k in ("L", "M", "D", "alpha") if k in t and t[k].notna().any()]
    first, last = t[t["step"] == 0], t[t["step"] == t["step"].max()]
    return (last.groupby(keys)["value"].mean() / first.groupby(keys)["value"].mean()).dropna()


def loss_drop(table, name):
    """(median over configurations of loss_ratios, number of configurations): how much the networks
    of experiment `name` learned."""
    ratio = loss_ratios(table, name)
    return (float(ratio.median()), len(ratio)) if len(ratio) else (float("nan"), 0)


def untrained(table, name):
    """(configurations that do not train, configurations): the `untrained` of a Claim about trained
    networks (at k = 0 the errors already obey the CLT rates, so without it such a claim passes
    untrained)."""
    ratio = loss_ratios(table, name)
    return int((ratio >= STILL).sum()), len(ratio)


def depth_err(table):
    """resnet_depth's output errors (RMS over reps, step K) inside `width_window` (the two-term
    fit's points: the reference's own error negligible)."""
    err = rms_over_seeds(table, "resnet_depth", "err_f", ["L", "M", "L_ref", "M_ref"])
    return err[width_window(err)]


def term_share(err, fit_):
    """Share of a/L in the fitted a/L + b/√(LM) at the smallest L and the largest M there."""
    if not len(err):
        return float("nan")
    L = float(err["L"].min())
    M = float(err[err["L"] == L]["M"].max())
    floor = fit_["a"] / L
    return floor / (floor + fit_["b"] / np.sqrt(L * M))


def dim_one_term(err):
    """err ≈ b·√(D/(LM)) alone (log space) over `dim_fits`' rows: at fixed L the a/L term is a
    constant in D, which a D sweep cannot separate from the √D term (see claims_dim)."""
    L, M, D = (err[k].to_numpy(float) for k in ("L", "M", "D"))
    return fit.nonneg_sum({"b": np.sqrt(D / (L * M))}, err["value"].to_numpy(float))


# ------------------------------------------------------------------- limit (RK4 reference)


def limit_euler(table):
    """The pool's Euler network's error (metric err_euler), RMS over reps at step K, per L."""
    return rms_over_seeds(table, "resnet_limit", "err_euler", ["L", "M"])


def limit_depth_slope(table):
    """(power-law fit in L of the pool's Euler network's error: the 1/L term alone, its M = M_p,
    number of points)."""
    err = limit_euler(table)
    M_p = err["M"].max() if len(err) else float("nan")
    return fit.power_law(err["L"], err["value"]), M_p, len(err)


def limit_width_slope(table):
    """(power-law fit in M of one network's error, RMS over reps, at the largest L, that L, points)."""
    err = rms_over_seeds(table, "resnet_limit", "err_one", ["L", "M"])
    L_max = err["L"].max() if len(err) else float("nan")
    big = err[err["L"] == L_max]
    return fit.power_law(big["M"], big["value"]), L_max, len(big)


def limit_chaos_slope(table, widest=None):
    """(power-law fit in M of the units' coupling distance to their limit copies (metric chaos, RMS
    over reps, step K) at the largest L, that L, points): propagation of chaos at rate 1/√(LM).
    `widest`: fit over M ≥ M_max/widest only (the asymptotic end of the grid); None: every M."""
    err = rms_over_seeds(table, "resnet_limit", "chaos", ["L", "M"])
    L_max = err["L"].max() if len(err) else float("nan")
    big = err[err["L"] == L_max]
    if widest is not None and len(big):
        big = big[big["M"] >= big["M"].max() / widest]
    return fit.power_law(big["M"], big["value"]), L_max, len(big)


def limit_chaos_euler_slope(table):
    """(power-law fit in L of the pool's Euler network's coupling distance (chaos_euler): the depth
    part alone, points)."""
    err = rms_over_seeds(table, "resnet_limit", "chaos_euler", ["L", "M"])
    return fit.power_law(err["L"], err["value"]), len(err)


def k_steps(table):
    """The GD steps the k-sweep claims read: 0, K/4, K/2 and K (rounded down; K: the table's last)."""
    K = int(table["step"].max()) if len(table) else 0
    return sorted({0, K // 4, K // 2, K})


def trained_steps(table):
    """`k_steps` without k = 0: the steps at which training has acted (the paper claims' k-sweep;
    at k = 0 the rates are those of the forward pass, read by identity / cross-check claims)."""
    return [k for k in k_steps(table) if k > 0]


def worst_step(table, slope_of, target, steps=None):
    """(the exponent `slope_of(table at one step)` farthest from `target` over `steps` (default
    `k_steps`), its step, its number of points): the k-sweep claims' statistic ("the exponent holds at
    every k shown")."""
    worst, worst_k, n = float("nan"), -1, 0
    for k in k_steps(table) if steps is None else steps:
        at_k = table[table["step"] == k].assign(step=0)  # one step: rms_over_seeds reads it as K
        slope, _, points = slope_of(at_k)
        if not np.isfinite(worst) or abs(slope["slope"] - target) > abs(worst - target):
            worst, worst_k, n = slope["slope"], k, points
    return worst, worst_k, n
