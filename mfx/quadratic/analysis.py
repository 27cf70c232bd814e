"""Table → numbers for the quadratic family: the fits and summaries that the claims evaluate (and the
figures draw), on collected tables.  No numerics are run here and nothing is drawn (no matplotlib)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx import fit
from mfx.quadratic import model


def _ok(table, **where) -> pd.DataFrame:
    sel = table["status"] == "ok"
    for key, value in where.items():
        sel &= table[key] == value
    return table[sel]


# -------------------------------------------------------------------------------------- quad_curves


def theory_levels(p: int, p_star: int, readout: str = "mean") -> tuple[float, float]:
    """(plateau, floor) of eps_g for T = I and the readout's (a, a*): for the mean readout 1/(p+2) + 1/p*
    and the p < p* limit risk (0 for p ≥ p*) — what the claims and the figure compare the curves with."""
    a, a_star = model.readout_scales(p, p_star, readout)
    return model.plateau(p, np.eye(p_star), a, a_star)[1], model.eps_underparameterized(p, p_star, a_star)


def plateau_point(tau, eps, eps_pl, eps_floor) -> tuple[float, float]:
    """(tau, eps) at the flattest point (min |d ln eps / d ln tau|) after tau = 0.05 and before escape."""
    tau, eps = np.asarray(tau), np.asarray(eps)
    keep = (tau >= 0.05) & np.isfinite(eps)
    tau, eps = tau[keep], eps[keep]
    before = np.flatnonzero(eps < 0.5 * (eps_pl + eps_floor))
    end = before[0] if before.size else len(eps)
    if end < 3:
        return float("nan"), float("nan")
    slope = np.abs(np.diff(np.log(eps[:end])) / np.diff(np.log(tau[:end])))
    k = int(np.argmin(slope))
    return float(np.sqrt(tau[k] * tau[k + 1])), float(np.sqrt(eps[k] * eps[k + 1]))


def _at(tau, eps, t) -> float:
    """eps interpolated at time t (linear in log tau)."""
    keep = (np.asarray(tau) > 0) & np.isfinite(eps)
    return float(np.interp(np.log(t), np.log(np.asarray(tau)[keep]), np.asarray(eps)[keep]))


def crossing_levels(p, p_star, eps_pl, eps_floor) -> list[float]:
    """ε levels whose first-crossing times trace an ε(τ) curve: the escape midpoint, and for p ≥ p* two
    levels on the way to zero loss (p < p* stays at its floor, which finite g raises)."""
    mid = 0.5 * (eps_pl + eps_floor)
    return [mid] if p < p_star else [mid, 0.1 * eps_pl, 0.01 * eps_pl]


def crossing_times(rows, levels) -> pd.DataFrame:
    """First-crossing times [seed × level] of ε(τ) (rows of one method; log-linear interpolation)."""
    wide = rows.pivot_table(index="tau", columns="seed", values="value").sort_index()
    tau = wide.index.to_numpy(float)
    eps = wide.to_numpy(float)
    return pd.DataFrame(
        {lv: model.escape_time(tau, eps, lv) for lv in levels}, index=wide.columns.rename("seed")
    )


def crossing_table(rows, levels) -> pd.DataFrame:
    """Long per-seed first-crossing times: columns method, seed, level, value (NaN: never crossed)."""
    parts = []
    for method, d in rows.groupby("method"):
        c = crossing_times(d, levels).stack(future_stack=True).rename("value").reset_index()
        parts.append(c.rename(columns={"level_1": "level"}).assign(method=method))
    cols = ["method", "seed", "level", "value"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def crossing_ratio(times, num="sgd", den="ode_matched") -> float:
    """Σ crossing times of `num` / Σ those of `den` (a `crossing_table`), on the same τ axis. Paired
    seeds (both methods have the same seeds) use only the (seed, level) pairs both have; otherwise the
    ratio of the seed means of the per-seed sums over the levels."""
    wide = times.pivot_table(index=["seed", "level"], columns="method", values="value", dropna=False)
    if num not in wide or den not in wide:
        return float("nan")
    a, b = wide[num], wide[den]
    seeds_a = set(times[times["method"] == num]["seed"])
    if seeds_a == set(times[times["method"] == den]["seed"]):
        both = a.notna() & b.notna()
        return float(a[both].sum() / b[both].sum())
    n = times["level"].nunique()
    per_seed = lambda x: x.groupby(level="seed").sum(min_count=n).mean()
    return float(per_seed(a) / per_seed(b))


def transit_ratio(times, hi: float, lo: float, num="sgd", den="ode_matched") -> float:
    """Σ over seeds of the time from the first crossing of ε = hi to that of ε = lo (hi > lo), by `num` over
    that by `den` (a `crossing_table` with both levels, paired seeds): where the crossing ratio sums the
    times from τ = 0, this reads only the descent after the escape, which finite N does not shift."""
    wide = times.pivot_table(index="seed", columns=["method", "level"], values="value")
    if (num, hi) not in wide or (num, lo) not in wide or (den, hi) not in wide or (den, lo) not in wide:
        return float("nan")
    a, b = wide[(num, lo)] - wide[(num, hi)], wide[(den, lo)] - wide[(den, hi)]
    both = a.notna() & b.notna()
    return float(a[both].sum() / b[both].sum()) if both.any() else float("nan")


def _median_curve(df):
    return df.groupby("tau")["value"].median()


# -------------------------------------------------------------------------------------- quad_escape


def escape_slopes(table, method="ode"):
    """{(p*, p): Fit of the seed-mean tau_esc vs ln N} for one method."""
    d = _ok(table, metric="tau_esc", method=method)
    mean = d.groupby(["p_star", "p", "N"])["value"].mean().reset_index()
    return {
        (int(ps), int(p)): fit.linear(np.log(g["N"].values.astype(float)), g["value"].values)
        for (ps, p), g in mean.groupby(["p_star", "p"])
        if g["N"].nunique() >= 2
    }


def mean_slope(rows) -> float:
    """Mean over (p*, p) of the slope of the seed-mean tau_esc vs ln N (rows of one method)."""
    mean = rows.groupby(["p_star", "p", "N"])["value"].mean().reset_index()
    slopes = [
        fit.linear(np.log(g["N"].values.astype(float)), g["value"].values)["slope"]
        for _, g in mean.groupby(["p_star", "p"])
        if g["N"].nunique() >= 2
    ]
    return float(np.mean(slopes)) if slopes else float("nan")


def slope_spread(rows) -> float:
    """(max − min)/mean over p of the slopes of the seed-mean tau_esc vs ln N (rows of one p*)."""
    mean = rows.groupby(["p", "N"])["value"].mean().reset_index()
    slopes = np.array(
        [
            fit.linear(np.log(g["N"].values.astype(float)), g["value"].values)["slope"]
            for _, g in mean.groupby("p")
            if g["N"].nunique() >= 2
        ]
    )
    return float(np.ptp(slopes) / slopes.mean()) if len(slopes) >= 2 else float("nan")


def width_shift(rows, p_star) -> float:
    """Median tau_esc at p = p* minus that at p = 8 (rows of one N)."""
    med = rows.groupby("p")["value"].median()
    return float(med.get(p_star, np.nan) - med.get(8, np.nan))


def sgd_ode_ratio(rows) -> float:
    """Σ value(sgd) / Σ value(ode_matched) over the (N, seed) pairs both have (rows of one metric:
    tau_esc or exit_rate)."""
    wide = rows.pivot_table(index=["N", "seed"], columns="method", values="value").dropna()
    if not {"sgd", "ode_matched"} <= set(wide.columns) or wide.empty:
        return float("nan")
    return float(wide["sgd"].sum() / wide["ode_matched"].sum())


def sgd_ode_ratio_per_N(rows) -> dict:
    return {int(n): sgd_ode_ratio(g) for n, g in rows.groupby("N")}


def xcheck_ratio(rows) -> float:
    """Seed-mean tau_esc of the full SGD over that of the overlap chain (cross-check rows of one N)."""
    mean = rows.groupby("method")["value"].mean()
    return float(mean.get("xcheck_full", np.nan) / mean.get("xcheck_overlap", np.nan))


# ------------------------------------------------------------------------------- quad_implicit_bias


def sgd_drift_fits(table, statistic="median"):
    """{(p, p*): power-law Fit of the final SGD drift (median or mean over seeds) vs g}.

    The median is the default: when rho0 has a small singular value (likely for p − p* ≤ 1), SGD noise
    can carry it through zero, and polar(rho) jumps (up to ||ΔS|| = 2, a reflection, at p = p*); these
    saturated seeds (4 % of seeds at g = 0.005, 21 % at g = 0.04 for p = p* = 2, N = 800) dominate the
    mean and steepen its growth with g.
    """
    stat = _final_drift(table).groupby(["p", "p_star", "g"])["value"].agg(statistic).reset_index()
    return {
        (int(p), int(ps)): fit.power_law(x["g"].values, x["value"].values)
        for (p, ps), x in stat.groupby(["p", "p_star"])
    }


def _final_drift(table) -> pd.DataFrame:
    d = _ok(table, metric="drift", method="sgd")
    return d[d["tau"] == d.groupby(["p", "p_star", "g", "seed"])["tau"].transform("max")]


def drift_exponent(final: pd.DataFrame, statistic="median") -> float:
    """Log-log slope of the seed-`statistic` of the final SGD drift vs g, on rows of one (p, p*)."""
    stat = final.groupby("g")["value"].agg(statistic)
    return fit.power_law(stat.index.values, stat.values)["slope"] if len(stat) >= 2 else float("nan")


def sgd_drift_bootstrap_sd(table, n_boot=200) -> dict:
    """{(p, p*): seed-bootstrap SD of the seed-median exponent}: the seed noise of the claim, which the
    fit's standard error (a few points on one curve) does not see. Whole seeds are resampled (a seed's
    runs at every g stay together: they share W0 and W*). At p = 2 the drift is one random angle per
    seed, so this SD is several times that of p ≥ 3 at the same number of seeds."""
    return {
        (int(p), int(ps)): fit.bootstrap_sd(fit.seed_bootstrap(x, drift_exponent, n_boot=n_boot))
        for (p, ps), x in _final_drift(table).groupby(["p", "p_star"])
    }


def final_rho_error(table) -> pd.DataFrame:
    """Per (p, p*, seed) at the smallest SGD g: ||ρ_final − s·polar(ρ0)||_F / (s√p*) (the relative distance
    of the trained overlaps to the closest solution; rows `value`, `g`, `seed`, `p`, `p_star`)."""
    d = _ok(table, method="sgd")
    d = d[
        d["metric"].isin(["rho_final", "rho_predicted"])
        & (d["g"] == d.groupby(["p", "p_star"])["g"].transform("min"))
    ]
    if d.empty:
        return pd.DataFrame(columns=["p", "p_star", "seed", "g", "value"])
    wide = d.pivot_table(index=["p", "p_star", "g", "seed", "entry"], columns="metric", values="value")
    sq = ((wide["rho_final"] - wide["rho_predicted"]) ** 2).groupby(level=[0, 1, 2, 3]).sum()
    norm = (wide["rho_predicted"] ** 2).groupby(level=[0, 1, 2, 3]).sum()  # = s² p*
    return (np.sqrt(sq / norm)).rename("value").reset_index()


def median_bootstrap_sd(values: pd.DataFrame, n_boot=200) -> float:
    """Seed-bootstrap SD of the median of `value` over the seeds of `values` (one row per seed)."""
    return fit.bootstrap_sd(fit.seed_bootstrap(values, lambda d: d["value"].median(), n_boot=n_boot))


# ------------------------------------------------------------------------------------- quad_hessian


def counts(values, mult, zero_tol=1e-9) -> tuple[int, int, int]:
    values, mult = np.asarray(values), np.asarray(mult)
    return (
        int(mult[values < -zero_tol].sum()),
        int(mult[np.abs(values) <= zero_tol].sum()),
        int(mult[values > zero_tol].sum()),
    )


# --------------------------------------------------------------------------------------- quad_norms


def _first_below(tau, y, level) -> float:
    """First τ where y ≤ level, linearly interpolated between grid points; NaN if never (or at τ = 0)."""
    below = np.flatnonzero(y <= level)
    if below.size == 0 or below[0] == 0:
        return float("nan")
    k = below[0]
    return float(tau[k - 1] + (y[k - 1] - level) / (y[k - 1] - y[k]) * (tau[k] - tau[k - 1]))


def _log_interp(tau, y, t) -> float:
    keep = (tau > 0) & (y > 0)  # none at a zero init (ρ ≡ 0): NaN
    if not (np.isfinite(t) and keep.any()):
        return float("nan")
    return float(np.exp(np.interp(t, tau[keep], np.log(y[keep]))))


def flattest_index(tau, q, end) -> int:
    """Index k (into tau) of the output before the smallest |Δ ln q/Δ ln τ| between consecutive outputs
    among τ ∈ [0.05, end]: where the norms q (diag Q) are settled; −1 with fewer than 3 such outputs."""
    tau, q = np.asarray(tau), np.asarray(q)
    where = np.flatnonzero((tau >= 0.05) & (tau <= end) & (q > 0))
    if len(where) < 3:
        return -1
    slope = np.abs(np.diff(np.log(q[where])) / np.diff(np.log(tau[where])))
    return int(where[np.argmin(slope)])


def _flattest(tau, q, end) -> float:
    """q at the point of smallest |Δ ln q/Δ ln τ| among τ ∈ [0.05, end] (the settled value of diag Q)."""
    k = flattest_index(tau, q, end)
    return float(0.5 * (q[k] + q[k + 1])) if k >= 0 else float("nan")


def norm_table(table, delta) -> pd.DataFrame:
    """Per (method, p, p*, N, seed) of quad_norms rows: the theory values (q_bar, tau_norm_theory) and the
    measured τ_norm (first τ with every Q_kk within δ·q̄ of q̄; NaN: never, i.e. ≥ τ_end), τ_esc (ε below the midpoint of
    plateau and floor; NaN: not by the end), q_settled (mid diag Q at its flattest point before τ_esc, or
    before the end of a run that did not escape), |ρ| at τ_norm (`rho_at_norm`), at the method's derived,
    N-free τ_norm(g) (`tau_read`, `rho_at_read`; NaN in tables without that theory row) and at τ = 0 (`rho0`),
    and the plateau's first half, from τ_norm to halfway to τ_esc (to τ_end without an escape): the fall of ε
    over it in units of ε_pl − floor (`plateau_drop`) and |ρ| at its end (`rho_at_half`), NaN when the norms
    never settled before the escape."""
    ok = table[(table["status"] == "ok") & table["method"].isin(("ode", "sgd"))]  # not bocchi.init's runs
    series = ok[ok["tau"].notna()] if "tau" in ok else ok.iloc[:0]
    theory = ok[ok["tau"].isna()] if "tau" in ok else ok
    th = theory.pivot_table(index=["method", "p", "p_star"], columns="metric", values="value")
    th_g = theory[theory["metric"] == "q_bar"].set_index(["method", "p", "p_star"])["g"]
    out = []
    for (method, p, p_star, N, seed), d in series.groupby(["method", "p", "p_star", "N", "seed"]):
        w = d.pivot_table(index="tau", columns="metric", values="value").sort_index()
        tau = w.index.to_numpy(float)
        q_bar = float(th.loc[(method, p, p_star), "q_bar"])
        eps_pl, floor = (float(th.loc[("ode", p, p_star), k]) for k in ("eps_pl", "eps_floor"))
        dev = np.maximum(np.abs(w["q_max"] / q_bar - 1), np.abs(w["q_min"] / q_bar - 1)).to_numpy()
        tau_norm = _first_below(tau, dev, delta)
        tau_esc = float(model.escape_time(tau, w[["eps"]].to_numpy(), 0.5 * (eps_pl + floor))[0])
        q_mid = 0.5 * (w["q_max"] + w["q_min"]).to_numpy()
        rho = w["rho_norm"].to_numpy()
        tau_read = float(th.loc[(method, p, p_star)].get("tau_norm", np.nan))
        # the plateau (bocchi.plateau): from the norms' settling to halfway to the escape (or to the end of a
        # run that did not escape); NaN when the norms never settled before it
        tau_half = tau_norm + 0.5 * ((tau_esc if np.isfinite(tau_esc) else tau[-1]) - tau_norm)
        eps = w["eps"].to_numpy()
        settled_first = np.isfinite(tau_norm) and tau_half > tau_norm
        drop = (np.interp(tau_norm, tau, eps) - np.interp(tau_half, tau, eps)) / (eps_pl - floor)
        out.append(
            {
                "method": method,
                "p": int(p),
                "p_star": int(p_star),
                "N": int(N),
                "seed": seed,
                "g": float(th_g.loc[(method, p, p_star)]),
                "q_bar": q_bar,
                "tau_norm_theory": float(th.loc[("ode", p, p_star), "tau_norm"]),
                "tau_norm": tau_norm,
                "tau_esc": tau_esc,
                "tau_end": float(tau[-1]),
                "q_settled": _flattest(tau, q_mid, tau_esc if np.isfinite(tau_esc) else tau[-1]),
                "rho_at_norm": _log_interp(tau, rho, tau_norm),
                "tau_read": tau_read,
                "rho_at_read": _log_interp(tau, rho, tau_read),
                "rho0": float(rho[0]),
                "plateau_drop": float(drop) if settled_first else float("nan"),
                "rho_at_half": _log_interp(tau, rho, tau_half) if settled_first else float("nan"),
            }
        )
    return pd.DataFrame(out)


# ------------------------------------------------------------- quad_escape: escape vs ρ0, exit prefactor


def escape_theory(p: int, T, a: float, a_star: float, sigma0: float = 1.0) -> dict:
    """Derived escape constants for T = t·I, in τ = a·η·α units, gradient flow (the `ode` rows).

    Derivation (ODE of ode.py linearised on the plateau, idealised init Q0 = σ0² I):
    1. Norm learning. While ρ is small, Q = q(τ) I with dq/dτ = −4q·u and u = a(p + 2)q − a* tr T, so q
       relaxes to q̄ = a* tr T/(a(p + 2)) (model.plateau) at rate 4a* tr T.  Meanwhile
       dρ/dτ = −2(c + 2aq − 2a*t)ρ = (−2u + 4a*t)ρ, and −2∫u dτ = ½ ln(q̄/q0): every entry of ρ is
       multiplied by the same κ = √(q̄/σ0²) on top of the plateau growth.
    2. Plateau. At ρ = 0, Q = q̄ I: c + 2a q̄ = 0, so dρ/dτ = 4a*t ρ: all p·p* directions of ρ grow at
       the rate r = 4a*t (4/p* for the mean readout a* = 1/p*), and ρ(τ) ≈ κ e^{rτ} ρ0.
    3. Exit. ε_pl − ε = 2 a a* ||ρ||_F² + O(ρ⁴) (model.risk at Q = q̄ I), so the gap grows as
       A e^{2rτ} with A = 2 a a* κ² ||ρ0||_F²: the exit rate 2r = 8a*t is free of p, while the prefactor
       A depends on p through a κ² = a q̄/σ0² (and through ||ρ0||², whose mean is σ0² p p*/N).
    4. Escape. The escape (ε < ε_pl/2) is reached once the largest singular direction of κ e^{rτ} ρ0 is
       O(1): τ_esc = −(1/r) ln σ_max(ρ0) + C, where C depends on p, p* and σ_2/σ_1 (nonlinear exit), not
       on N.  Hence d τ_esc/d ln σ_max = −1/(4a*t), and with σ_max ∝ N^-1/2: d τ_esc/d ln N = 1/(8a*t)
       (p*/8 for the mean readout).
    """
    t = float(np.asarray(T)[0, 0])
    q_bar, eps_pl = model.plateau(p, np.asarray(T), a, a_star)
    rate = 4 * a_star * t
    return {
        "rho_rate": rate,
        "exit_rate": 2 * rate,
        "sigma_slope": -1 / rate,
        "lnN_slope": 1 / (2 * rate),
        "prefactor_per_rho0": 2 * a * a_star * q_bar / sigma0**2,
        "eps_pl": eps_pl,
    }


def _scales(rows) -> tuple[float, float]:
    """(a, a*) of rows of one (p, p*) and readout (the `readout` column; mean if absent)."""
    readout = str(rows["readout"].iloc[0]) if "readout" in rows else "mean"
    return model.readout_scales(int(rows["p"].iloc[0]), int(rows["p_star"].iloc[0]), readout)


def _paired(rows, x_metric, y_metric="tau_esc") -> pd.DataFrame:
    """Per (p, N, seed), in that order: columns x, y from the rows of one method (the ODE's per-seed
    metrics). Rows already paired (columns x, y of the same metrics, e.g. a seed bootstrap's relabelled
    resample of them) are only put in that order: a bootstrap then pivots once, not once per resample,
    with the same numbers (fit.seed_bootstrap draws the same seeds; test_analysis checks the equality)."""
    if {"x", "y"} <= set(rows.columns):
        return rows.sort_values(["p", "N", "seed"], kind="stable", ignore_index=True)
    d = rows[rows["metric"].isin([x_metric, y_metric])]
    wide = d.pivot_table(index=["p", "N", "seed"], columns="metric", values="value")
    wide = wide.reindex(columns=[x_metric, y_metric]).dropna()  # a metric no seed reached: no pairs
    return wide.rename(columns={x_metric: "x", y_metric: "y"}).reset_index()


def sigma_slope(rows) -> float:
    """Least-squares slope of tau_esc on ln σ_max(ρ0), seeds and N pooled, averaged over p (rows of one
    p*: metrics tau_esc and ln_sigma_max of the `ode` method)."""
    pair = _paired(rows, "ln_sigma_max")
    slopes = [np.polyfit(g["x"], g["y"], 1)[0] for _, g in pair.groupby("p") if g["x"].nunique() >= 3]
    return float(np.mean(slopes)) if slopes else float("nan")


def sigma_explained(rows, slope: float) -> float:
    """Share of the variance of tau_esc over seeds and p (about each N's mean) that ln σ_max(ρ0) explains
    with the given (derived) slope: 1 − Σ residual²/Σ (tau_esc − mean)², residual = tau_esc − slope·ln σ_max
    about its own mean at each N."""
    pair = _paired(rows, "ln_sigma_max")
    if pair.empty or pair["p"].nunique() < 2:
        return float("nan")
    resid = pair["y"] - slope * pair["x"]
    resid = resid - resid.groupby(pair["N"]).transform("mean")
    total = pair["y"] - pair["y"].groupby(pair["N"]).transform("mean")
    return float(1 - (resid**2).sum() / (total**2).sum())


def p_share_beyond_sigma(rows, slope: float) -> float:
    """Share of the same variance as `sigma_explained` that p explains beyond ln σ_max(ρ0): the between-p
    sum of squares of the residual tau_esc − slope·ln σ_max (about each N's mean) over the total; p taken
    as a factor (one mean per (N, p)), so it is what p could explain at most once σ_max is accounted for."""
    pair = _paired(rows, "ln_sigma_max")
    if pair.empty or pair["p"].nunique() < 2:
        return float("nan")
    resid = pair["y"] - slope * pair["x"]
    resid = resid - resid.groupby(pair["N"]).transform("mean")
    between = resid.groupby([pair["N"], pair["p"]]).transform("mean")
    total = pair["y"] - pair["y"].groupby(pair["N"]).transform("mean")
    return float((between**2).sum() / (total**2).sum())


def residual_p_shift(rows, slope: float) -> dict:
    """{p: mean of tau_esc − slope·ln σ_max(ρ0) minus that over all p, averaged over N}: what p adds at a
    fixed largest overlap."""
    pair = _paired(rows, "ln_sigma_max")
    resid = pair["y"] - slope * pair["x"]
    resid = resid - resid.groupby(pair["N"]).transform("mean")
    return {int(p): float(v) for p, v in resid.groupby(pair["p"]).mean().items()}


# issue 38 §4: the summaries of ρ0 that σ_max is set against (the `ode_spectrum` rows' metrics); the
# "trace" of a non-square ρ0 is read as its nuclear norm, the sum of its singular values
RHO0_SUMMARIES = {
    "ln_sigma_max": "σ_max",
    "ln_fro": "‖ρ0‖_F",
    "ln_sigma_min": "σ_min",
    "ln_nuclear": "‖ρ0‖_* (trace)",
}


def spectrum_wide(rows) -> pd.DataFrame:
    """Per (p, seed) of the `ode_spectrum` rows of one p*: columns tau_esc and the RHO0_SUMMARIES, seeds
    that escaped only. Rows already wide (a bootstrap's resample of them) are returned as they are."""
    if "tau_esc" in rows.columns:
        return rows
    d = rows[rows["metric"].isin(["tau_esc", *RHO0_SUMMARIES])]
    wide = d.pivot_table(index=["p", "seed"], columns="metric", values="value")
    return wide.reindex(columns=["tau_esc", *RHO0_SUMMARIES]).dropna().reset_index()


def summary_r2(rows) -> dict:
    """{summary: R² of τ_esc on it}: one-variable least squares with one intercept per p (τ_esc and the
    summary taken about their means at each p), seeds pooled over p — the share of τ_esc's seed-to-seed
    variance that each summary of ρ0 explains alone."""
    wide = spectrum_wide(rows)
    if len(wide) < 3:
        return {k: float("nan") for k in RHO0_SUMMARIES}
    columns = ["tau_esc", *RHO0_SUMMARIES]
    centred = wide[columns] - wide.groupby("p")[columns].transform("mean")
    y = centred["tau_esc"].to_numpy()
    out = {}
    for k in RHO0_SUMMARIES:
        x = centred[k].to_numpy()
        out[k] = float(np.dot(x, y) ** 2 / (np.dot(x, x) * np.dot(y, y)))
    return out


def sigma_max_advantage(rows) -> float:
    """R² of τ_esc on ln σ_max(ρ0) minus the largest R² of the other summaries (summary_r2): > 0 when σ_max
    explains the escape better than each of them."""
    r2 = summary_r2(rows)
    return float(r2["ln_sigma_max"] - max(v for k, v in r2.items() if k != "ln_sigma_max"))


def exit_rates(rows) -> pd.Series:
    """Seed-mean exit rate of ε_pl − ε per p (rows of one p*, one N: metric exit_rate)."""
    return rows[rows["metric"] == "exit_rate"].groupby("p")["value"].mean()


def exit_rate_spread(rows) -> float:
    r = exit_rates(rows)
    return float(np.ptp(r) / r.mean()) if len(r) >= 2 else float("nan")


def prefactor_per_rho0(rows) -> pd.Series:
    """Seed median of the exit prefactor A over ||ρ0||_F² per p (rows of one p*, one N)."""
    pair = _paired(rows, "rho0_F2", "exit_prefactor")
    return (pair["y"] / pair["x"]).groupby(pair["p"]).median()


def prefactor_ratio(rows, p_hi: int, p_lo: int) -> float:
    """prefactor_per_rho0 at p_hi over that at p_lo."""
    a = prefactor_per_rho0(rows)
    return float(a.get(p_hi, np.nan) / a.get(p_lo, np.nan))


def window_times(rows, level: float, theory: dict) -> pd.DataFrame:
    """Per (p, seed) of one p* and N: `measured`, the time the exit fit ε_pl − ε ≈ A e^{rate·τ} reaches
    level·ε_pl(p), and `predicted`, the same time from the derived rate and prefactor with the seed's own
    ||ρ0||² (escape_theory: A = prefactor_per_rho0·||ρ0||²).  `theory`: {p: escape_theory(p, …)}."""
    refs = ["ln_rho0_F2_ref", "ln_rho0_F2_ref_se"]
    wide = rows[rows["metric"].isin(["exit_rate", "exit_prefactor", "rho0_F2", *refs])].pivot_table(
        index=["p", "seed"], columns="metric", values="value"
    )
    wide = wide.reindex(columns=["exit_rate", "exit_prefactor", "rho0_F2", *refs])
    wide = wide.rename(columns={"ln_rho0_F2_ref": "x_ref", "ln_rho0_F2_ref_se": "x_ref_se"})
    wide = wide.dropna(subset=["exit_rate", "exit_prefactor", "rho0_F2"]).reset_index()
    th = pd.DataFrame([{"p": p, **v} for p, v in theory.items()])
    wide = wide.merge(th[["p", "eps_pl", "exit_rate", "prefactor_per_rho0"]], on="p", suffixes=("", "_th"))
    target = np.log(level * wide["eps_pl"])
    wide["measured"] = (target - np.log(wide["exit_prefactor"])) / wide["exit_rate"]
    wide["predicted"] = (target - np.log(wide["prefactor_per_rho0"] * wide["rho0_F2"])) / wide["exit_rate_th"]
    wide["x"] = np.log(wide["rho0_F2"])
    return wide[["p", "seed", "measured", "predicted", "x", "x_ref", "x_ref_se"]]


def window_shift(times: pd.DataFrame, p_lo: int, p_hi: int, column: str = "measured") -> float:
    """Seed-mean window time at p_lo minus that at p_hi (window_times rows): the acceleration in the exit
    window, where the prefactor alone sets it."""
    mean = times.groupby("p")[column].mean()
    return float(mean.get(p_lo, np.nan) - mean.get(p_hi, np.nan))


def adjusted_window_shift(times: pd.DataFrame, p_lo: int, p_hi: int) -> float:
    """window_shift of the `measured` times with a control variate (issue 38 §3): each p's seed mean of τ_w
    minus its least-squares slope on x = ln ||ρ0||_F² times (mean x − x_ref), where x_ref is E ln ||ρ0||_F²
    of the init as drawn (a large Monte Carlo of the same init code, the rows' ln_rho0_F2_ref). The estimate
    of each p's mean stays that of the init's law (x_ref moves with any change of the init, e.g. ρ0 per
    width), while the seed spread that ln ||ρ0||² sets (τ_w is linear in it at the onset) drops out: its u
    falls by √(1 − R²). NaN without x_ref or with < 3 seeds at a p."""
    return _adjusted_mean(times, p_lo)[0] - _adjusted_mean(times, p_hi)[0]


def adjusted_shift_reference_u(times: pd.DataFrame, p_lo: int, p_hi: int) -> float:
    """The part of adjusted_window_shift's uncertainty that the seed bootstrap does not see: the Monte Carlo
    error of x_ref (its SE x_ref_se) times each p's slope, the two p in quadrature."""
    return float(np.hypot(*(_adjusted_mean(times, p)[1] for p in (p_lo, p_hi))))


def _adjusted_mean(times, p) -> tuple[float, float]:
    """(the control-variate mean of τ_w at p, slope × SE of x_ref): adjusted_window_shift's parts."""
    d = times[times["p"] == p]
    if len(d) < 3 or not np.isfinite(d["x_ref"]).all() or d["x"].nunique() < 2:
        return float("nan"), float("nan")
    slope = np.polyfit(d["x"], d["measured"], 1)[0]
    mean = d["measured"].mean() - slope * (d["x"].mean() - d["x_ref"].iloc[0])
    return float(mean), float(abs(slope) * d["x_ref_se"].iloc[0])


def rate_ratio_across_p_star(rows, lo: int, hi: int) -> float:
    """The seed-mean exit rate at p* = lo over that at p* = hi, minus 1, averaged over the widths p that both
    p* have (rows: the ODE's exit_rate rows of one N per p*): > 0 when the time scale 1/rate grows with p*."""
    r = rows[rows["metric"] == "exit_rate"].groupby(["p_star", "p"])["value"].mean()
    if lo not in r.index.get_level_values(0) or hi not in r.index.get_level_values(0):
        return float("nan")
    widths = sorted(set(r[lo].index) & set(r[hi].index))
    return float(np.mean([r[lo][p] / r[hi][p] for p in widths]) - 1) if widths else float("nan")
