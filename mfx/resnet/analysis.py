"""Table → numbers for the ResNet experiments: the fits and summaries that both the claims
(`mfx.resnet.experiments`) and the figures (`mfx.resnet.plots`) evaluate, so a figure draws the
fit exactly as its claim measures it.

Per-rep errors are aggregated over reps as an RMS at the last step K (the author's convention).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx import fit

FIT_D_MIN_PER_D_OUT = 3  # fits in D use D ≥ 3·d_out (resnet_dim, resnet_phase): see experiments.dim.run_dim


def _last_step(table, name, metric):
    """Rows of experiment `name`, metric `metric`, status ok, at the last step K."""
    t = table[(table["experiment"] == name) & (table["metric"] == metric) & (table["status"] == "ok")]
    return t[t["step"] == t["step"].max()]


def rms_over_seeds(table, name, metric, by):
    """Error aggregated over reps as an RMS (the author's convention) at step K, indexed by `by`."""
    t = _last_step(table, name, metric)
    return t.groupby(by)["value"].apply(lambda v: float(np.sqrt(np.mean(v**2)))).reset_index()


# --------------------------------------------------------------------- depth / width (fixed D)


def two_term_fit(err):
    """err ≈ a/L + b/√(LM) (non-negative, log space) over the rows of `err` (columns L, M, value)."""
    L, M = err["L"].to_numpy(float), err["M"].to_numpy(float)
    return fit.nonneg_sum({"a": 1 / L, "b": 1 / np.sqrt(L * M)}, err["value"].to_numpy(float))


# ------------------------------------------------------------------------------------ D sweep


def _fit_range(err):
    return err[(err["D"] >= FIT_D_MIN_PER_D_OUT * err["d_out"]) & (err["D"] <= err["L"] * err["M"] / 4)]


def dim_fits(table, metric="err_h"):
    err = _fit_range(rms_over_seeds(table, "resnet_dim", metric, ["L", "M", "D", "d_out"]))
    L, M, D = (err[k].to_numpy(float) for k in ("L", "M", "D"))
    terms = {"a": 1 / L, "b": np.sqrt(D / (L * M))}
    return fit.power_law(D, err["value"]), fit.nonneg_sum(terms, err["value"].to_numpy(float)), err


# --------------------------------------------------------------------------------- lazy (alpha)


def lazy_fits(table):
    mean = {}
    for metric in ("local_update", "lin_dist", "tangent_dist"):
        t = _last_step(table, "resnet_lazy", metric)
        mean[metric] = t.groupby("alpha")["value"].mean().reset_index()
    return {k: fit.power_law(v["alpha"], v["value"]) for k, v in mean.items()}, mean


# ----------------------------------------------------------------------------------- phase


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
