"""Figures of the transformer family: collected rows → matplotlib figures (no physics computed here).

Each plot function registers itself with `plotting.draws`; the summaries it shares with the claims
come from `analysis`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx import fit, plotting
from mfx.transformer.analysis import E1_FLOOR_FACTOR, limit_summary, merge_curves
from mfx.transformer.families import DISTS


def _exp(table: pd.DataFrame, name: str) -> pd.DataFrame:
    return table[table["experiment"] == name]


@plotting.draws("transformer_limit")
def plot_limit(table: pd.DataFrame) -> dict:
    t = _exp(table, "transformer_limit")
    err, floor = limit_summary(t)
    fig, (ax, ax2) = plotting.figure(2, 1)
    Hs = sorted(err["H"].unique())
    for H, col in zip(Hs, plotting.colors(len(Hs))):
        e = err[err["H"] == H]
        ax.scatter(e["LH"], e["value"], color=col, label=f"H = {H}", zorder=3)
        for _, r in e.iterrows():
            ax.annotate(
                f"{int(r['L'])}", (r["LH"], r["value"]), fontsize=5, xytext=(2, 2), textcoords="offset points"
            )
    above = err[err["value"] > E1_FLOOR_FACTOR * floor]
    f = fit.power_law(above["LH"], above["value"])
    x = np.geomspace(err["LH"].min(), err["LH"].max(), 50)
    if np.isfinite(f["slope"]):
        ax.plot(x, f["prefactor"] * x ** f["slope"], "k--", lw=1, label=f"fit: slope {f['slope']:.2f}")
    ax.axhline(floor, color="grey", ls=":", label="ref-to-ref floor")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="L·H",
        ylabel="max_t RMS_i |ŷ − ŷ_ref|",
        title="error to the reference (labels: L)",
    )
    ax.legend(loc="lower left")
    curves = t[t["metric"] == "loss"]
    ref = t[t["metric"] == "loss_ref"].groupby("time")["value"].mean()
    ax2.plot(ref.index, ref.values, "k-", lw=2, label="reference")
    pairs = sorted({(int(a), int(b)) for a, b in curves[["L", "H"]].drop_duplicates().values})
    show = (
        [pairs[i] for i in np.unique(np.linspace(0, len(pairs) - 1, min(5, len(pairs))).astype(int))]
        if pairs
        else []
    )
    for (L, H), col in zip(show, plotting.colors(len(show))):
        c = curves[(curves["L"] == L) & (curves["H"] == H)].groupby("time")["value"].mean()
        ax2.plot(c.index, c.values, color=col, label=f"L={L}, H={H}")
    ax2.set(yscale="log", xlabel="flow time t = kη", ylabel="loss R (mean over seeds)", title="loss curves")
    ax2.legend()
    return {"error": fig}


@plotting.draws("transformer_convergence")
def plot_convergence(table: pd.DataFrame) -> dict:
    t = _exp(table, "transformer_convergence")
    fig, axes = plotting.figure(2, 2)
    ax_loss, ax_lam, ax_rate, ax_qk = axes
    full_cases = [
        c
        for c in sorted(t["case"].unique())
        if t.loc[t["case"] == c, "role"].iloc[0] in ("injective", "scatter", "duplicates")
    ]
    eps_max = t["eps"].max()
    for case, col in zip(full_cases, plotting.colors(len(full_cases))):
        c = t[(t["case"] == case) & (t["eps"] == eps_max)]
        loss = c[c["metric"] == "loss"]
        for s, g in loss.groupby("seed"):
            ax_loss.plot(g["time"], g["value"], color=col, lw=1, label=case if s == 0 else None)
        lam = c[c["metric"] == "lam_min_full"]
        for s, g in lam.groupby("seed"):
            ax_lam.plot(
                g["time"], g["value"].clip(lower=1e-18), "o-", color=col, lw=1, label=case if s == 0 else None
            )
    ax_loss.set(yscale="log", xlabel="flow time t", ylabel="loss R", title=f"loss (eps = {eps_max:g})")
    ax_loss.legend()
    ax_lam.set(yscale="log", xlabel="flow time t", ylabel="λ_min(K_t) (full NTK)", title="NTK along training")
    ax_lam.legend()
    inj = t[t["role"].isin(["injective", "scatter"])]
    rate = inj[inj["metric"] == "late_rate"].set_index(["case", "eps", "seed"])["value"]
    cases = sorted(inj["case"].unique())
    for key, marker, label in (("bound_rate_T", "o", "λ_min at T"), ("bound_rate_0", "x", "λ_min at 0")):
        b = inj[inj["metric"] == key].set_index(["case", "eps", "seed"])["value"]
        for case, col in zip(cases, plotting.colors(len(cases))):
            sel = b.index.get_level_values("case") == case
            ax_rate.scatter(
                b[sel], rate.reindex(b.index[sel]), marker=marker, color=col, label=f"{case} ({label})"
            )
    lim = (
        np.array([max(1e-3, np.nanmin(rate.values) / 2), np.nanmax(rate.values) * 2])
        if len(rate)
        else np.array([1e-2, 1])
    )
    ax_rate.plot(lim, lim, "k--", lw=1, label="equality")
    ax_rate.set(
        xscale="log",
        yscale="log",
        xlabel="−(2/η) log(1 − η λ_min(K)/N)  (≈ 2λ_min/N)",
        ylabel="fitted late decay rate of R",
        title="late rate vs NTK bound",
    )
    ax_rate.legend(fontsize=5)
    qk = t[t["role"].isin(["qk_translates", "qk_contrast"]) & (t["metric"] == "loss")]
    qcases = sorted(qk["case"].unique())
    for case, col in zip(qcases, plotting.colors(len(qcases))):
        for (s, e), g in qk[(qk["case"] == case)].groupby(["seed", "eps"]):
            ax_qk.plot(
                g["time"],
                g["value"] / g["value"].iloc[0],
                color=col,
                lw=1,
                label=case if (s == 0 and e == eps_max) else None,
            )
    ax_qk.set(yscale="log", xlabel="flow time t", ylabel="R(t) / R(0)", title="QK-only training, L = 1")
    ax_qk.legend()
    return {"loss": fig}


def _log10(v):
    return np.log10(np.clip(np.asarray(v, dtype=float), 1e-20, None))


@plotting.draws("transformer_ntk")
def plot_ntk(table: pd.DataFrame) -> dict:
    t = _exp(table, "transformer_ntk")
    dists = [d for d in DISTS if d in set(t["dist"])]
    fig, (ax_cf, ax_ntk, ax_merge, ax_n) = plotting.figure(2, 2, width=4.2, height=3.2)
    cf = t[(t["metric"] == "cf_ratio") & (t["spacing"] == t["spacing"].max()) & (t["sigma_z"] == 1.0)]
    cols = sorted({(int(a), int(b)) for a, b in cf[["d", "N"]].drop_duplicates().values})
    grid = np.full((len(dists), len(cols)), np.nan)
    for i, dist in enumerate(dists):
        for j, (d, N) in enumerate(cols):
            v = cf[(cf["dist"] == dist) & (cf["d"] == d) & (cf["N"] == N)]["value"]
            if len(v):
                grid[i, j] = _log10(v.min())
    im = ax_cf.imshow(grid, aspect="auto", vmin=-18, vmax=0, cmap="viridis")
    ax_cf.set_yticks(range(len(dists)), dists)
    ax_cf.set_xticks(range(len(cols)), [f"d{d} N{N}" for d, N in cols], rotation=90, fontsize=6)
    ax_cf.set_title("closed form: log10 λ_min/λ_max (σ_z = 1)")
    ax_cf.grid(False)
    fig.colorbar(im, ax=ax_cf, shrink=0.8)
    e = t[(t["metric"] == "ntk_ratio") & (t["L"] == 1)]
    e = e[e["n"] == e["n"].max()]
    blocks = ["full", "V", "QK"]
    width = 0.27
    for k, (b, col) in enumerate(zip(blocks, plotting.colors(3))):
        v = [
            _log10(e[(e["dist"] == dist) & (e["block"] == b)]["value"].clip(lower=1e-20).mean())
            if len(e[(e["dist"] == dist) & (e["block"] == b)])
            else np.nan
            for dist in dists
        ]
        ax_ntk.bar(
            np.arange(len(dists)) + (k - 1) * width, np.asarray(v) + 20, width, bottom=-20, color=col, label=b
        )
    ax_ntk.set_xticks(range(len(dists)), dists, rotation=60, fontsize=6)
    ax_ntk.set(
        ylabel="log10 λ_min/λ_max",
        title=f"empirical NTK at init, L = 1, n = {int(e['n'].max()) if len(e) else 0}",
    )
    ax_ntk.legend()
    curves = merge_curves(t)
    for (key, (s, lam)), col in zip(curves.items(), plotting.colors(len(curves))):
        ax_merge.plot(s, lam, "o-", color=col, label=f"{key[0]} d={key[1]}")
    ax_merge.set(
        xscale="log",
        yscale="log",
        xlabel="spacing of the member parameters",
        ylabel="λ_min (closed-form Gram, N = 2)",
        title="members merge",
    )
    ax_merge.legend(fontsize=5)
    nn = t[(t["metric"] == "ntk_lam_min") & (t["L"] == 1) & (t["block"] == "full")]
    for dist, col in zip(dists, plotting.colors(len(dists))):
        g = nn[nn["dist"] == dist].groupby("n")["value"].mean()
        if len(g):
            ax_n.plot(
                g.index,
                g.values.clip(1e-20),
                "o-" if dist == "iid" else ".-",
                color=col,
                lw=2 if dist == "iid" else 1,
                label=dist,
            )
    ax_n.set(
        xscale="log",
        yscale="log",
        xlabel="tokens per cloud n",
        ylabel="λ_min(K) full block, L = 1",
        title="finite-n artefact: iid resamples",
    )
    ax_n.legend(fontsize=5)
    return {"injectivity": fig}
