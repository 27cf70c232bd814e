"""Table → numbers of the transformer family, shared by the claims (`experiments`) and the figures
(`plots`): the E1 error decomposition and its fits, the E3 merge curves.

E1 (transformer_limit) error law.  The finite network's heads are i.i.d. draws from a pool of P heads
(the reference's initial law ρ⁰_P, the same at every depth), so its distance to the reference — the
same pool at every one of L_ref layers, the continuous-depth limit up to O(1/L_ref) — splits, through
the full-pool network of the same depth L, into two independent parts:

    f_{L,H} − f_ref = (f_{L,P} − f_ref)  +  (f_{L,H} − f_{L,P})
                       depth: Euler error     width: Monte Carlo error of L·H i.i.d. heads,
                       a·(1/L − 1/L_ref)      mean zero, RMS b/√(L·H)

and, the second being mean-zero given the first, E|f_{L,H} − f_ref|² = a²x² + b²/(LH) with
x = 1/L − 1/L_ref.  That quadrature law is what `error_law` fits (weighted least squares, unconstrained
so that a wrong law can give a negative coefficient).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx import fit

E1_DEPTH_L_MIN = 4  # the depth error is in its 1/L regime from L = 4 on (Euler with ≥ 4 steps)


def _limit(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    t = table[(table["experiment"] == "transformer_limit") & (table["status"] == "ok")]
    return t[t["metric"] == metric]


def depth_errors(table: pd.DataFrame, metric: str = "err_depth") -> pd.DataFrame:
    """|f_{L,P} − f_ref| per depth L (deterministic: one value per L), with x = 1/L − 1/L_ref."""
    t = _limit(table, metric)
    d = t.groupby("L", as_index=False).agg(value=("value", "mean"), L_ref=("L_ref", "first"))
    d["x"] = 1.0 / d["L"] - 1.0 / d["L_ref"]
    return d.sort_values("L")


def depth_fit(table: pd.DataFrame) -> fit.Fit:
    """Power law of the depth error in x = 1/L − 1/L_ref over L ≥ E1_DEPTH_L_MIN (exponent 1 expected)."""
    d = depth_errors(table)
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


def width_fit(table: pd.DataFrame) -> tuple[fit.Fit, int]:
    """Power law in H of the width (Monte Carlo) error at the largest L of the grid; (fit, that L)."""
    r = rms_over_seeds(table, "err_mc")
    if r.empty:
        return fit.power_law([], []), 0
    L = int(r["L"].max())
    r = r[r["L"] == L]
    return fit.power_law(r["H"], r["value"]), L


def error_law(table: pd.DataFrame, metric: str = "err") -> fit.Fit:
    """E err² = A·x² + B/(L·H) fitted to the RMS over seeds (A = a², B = b²; module docstring), L ≥ 4.

    Weighted least squares on relative residuals (each point counts by its own size), unconstrained;
    R² is that of log err (the fitted law against the points on the log-log figure).
    """
    r = rms_over_seeds(table, metric)
    r = r[np.isfinite(r["value"]) & (r["value"] > 0) & (r["L"] >= E1_DEPTH_L_MIN)]
    nan = float("nan")
    if len(r) < 3:
        return fit.Fit({"A": nan, "B": nan}, {"A": nan, "B": nan}, nan, len(r))
    e2 = r["value"].to_numpy() ** 2
    T = np.stack([r["x"].to_numpy() ** 2, 1.0 / r["LH"].to_numpy()], axis=1) / e2[:, None]
    coef, *_ = np.linalg.lstsq(T, np.ones_like(e2), rcond=None)
    res = T @ coef - 1.0
    cov = float(res @ res) / (len(e2) - 2) * np.linalg.pinv(T.T @ T)
    se = np.sqrt(np.abs(np.diag(cov)))
    pred = (T @ coef) * e2
    log_y = np.log(e2) / 2
    log_p = np.log(np.maximum(pred, 1e-300)) / 2
    ss_tot = float(np.sum((log_y - log_y.mean()) ** 2))
    r2 = 1.0 - float(np.sum((log_y - log_p) ** 2)) / ss_tot if ss_tot > 0 else nan
    return fit.Fit(
        {"A": float(coef[0]), "B": float(coef[1])}, {"A": float(se[0]), "B": float(se[1])}, r2, len(e2)
    )


def shares(table: pd.DataFrame) -> dict:
    """Shares of E err² carried by each part where it should dominate (module docstring):
    {"depth": err_depth²/E err² at (smallest L, largest H), "width": E err_mc²/E err² at (largest L,
    smallest H)}, NaN when the grid lacks the points."""
    tot = rms_over_seeds(table, "err").set_index(["L", "H"])["value"]
    mc = rms_over_seeds(table, "err_mc").set_index(["L", "H"])["value"]
    dep = depth_errors(table).set_index("L")["value"]
    nan = float("nan")
    if tot.empty or dep.empty:
        return {"depth": nan, "width": nan}
    Ls, Hs = tot.index.get_level_values("L"), tot.index.get_level_values("H")
    lo, hi = (int(Ls.min()), int(Hs.max())), (int(Ls.max()), int(Hs.min()))
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
