"""Table → numbers for the quadratic family: the fits and summaries that the claims evaluate (and the
figures draw), on collected tables.  No numerics are run here and nothing is drawn (no matplotlib)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx import fit


def _ok(table, **where) -> pd.DataFrame:
    sel = table["status"] == "ok"
    for key, value in where.items():
        sel &= table[key] == value
    return table[sel]


# -------------------------------------------------------------------------------------- quad_curves


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


def _median_curve(df):
    return df.groupby("tau")["value"].median()


# -------------------------------------------------------------------------------------- quad_escape


def escape_slopes(table, method="ode"):
    """{(p*, p): Fit of median tau_esc vs ln N} for one method."""
    d = _ok(table, metric="tau_esc", method=method)
    med = d.groupby(["p_star", "p", "N"])["value"].median().reset_index()
    return {
        (int(ps), int(p)): fit.linear(np.log(g["N"].values.astype(float)), g["value"].values)
        for (ps, p), g in med.groupby(["p_star", "p"])
        if g["N"].nunique() >= 2
    }


def _median_offset(esc, key) -> float:
    """Mean over N of median tau_esc(SGD) − median tau_esc(idealised ODE at the same g)."""
    pair = esc[(esc["p_star"] == key[0]) & (esc["p"] == key[1])]
    med = pair.groupby(["method", "N"])["value"].median()
    common = sorted(set(med["sgd"].index) & set(med["ode_g"].index))
    return float(np.mean([med["sgd"][n] - med["ode_g"][n] for n in common]))


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


def sgd_drift_bootstrap_sd(table, n_boot=1000) -> dict:
    """{(p, p*): SD of the seed-median exponent over seed resamples}: the seed noise of the claim, which
    the fit's standard error (4 points on one curve) does not see. At p = 2 the drift is one random
    angle per seed, so this SD is several times that of p ≥ 3 at the same number of seeds."""
    rng = np.random.default_rng(0)
    out = {}
    for (p, ps), x in _final_drift(table).groupby(["p", "p_star"]):
        D = x.pivot(index="seed", columns="g", values="value").dropna()  # [seed, g]
        log_g = np.log(D.columns.to_numpy(float))
        D = D.to_numpy()
        resampled = np.median(D[rng.integers(0, len(D), (n_boot, len(D)))], axis=1)  # [n_boot, g]
        slopes = np.polyfit(log_g, np.log(resampled).T, 1)[0]
        out[(int(p), int(ps))] = float(np.std(slopes))
    return out


# ------------------------------------------------------------------------------------- quad_hessian


def counts(values, mult, zero_tol=1e-9) -> tuple[int, int, int]:
    values, mult = np.asarray(values), np.asarray(mult)
    return (
        int(mult[values < -zero_tol].sum()),
        int(mult[np.abs(values) <= zero_tol].sum()),
        int(mult[values > zero_tol].sum()),
    )
