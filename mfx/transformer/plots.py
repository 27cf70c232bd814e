"""Figures of the transformer family: collected rows → matplotlib figures (no physics computed here).

Each plot function registers itself with `plotting.draws`; the summaries it shares with the claims
come from `analysis`."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.ticker import NullFormatter

from mfx import fit, plotting
from mfx.transformer.analysis import (
    BLOCKS,
    E1_DEPTH_L_MIN,
    GRAMS,
    adjoint_depth_fit,
    adjoint_first_draw,
    adjoint_width_rms,
    block_table,
    depth_errors,
    depth_fit,
    discrete_curves,
    error_law,
    gf_order,
    gf_sampling,
    gf_window,
    kernel_grid,
    kernel_grid_fit,
    law_predict,
    lh_grid,
    lh_sd_fit,
    merge_curves,
    rms_by,
    rms_over_seeds,
    width_fit,
    wp_grid,
)
from mfx.transformer.families import CLOSED_FORM_ONLY, DISTS


def _exp(table: pd.DataFrame, name: str) -> pd.DataFrame:
    return table[table["experiment"] == name]


def _fit_line(ax, f, x_data, color) -> None:
    """A fitted power law, dashed, over the range of `x_data`, its exponent in the legend (none if NaN)."""
    if np.isfinite(f["slope"]):
        x = np.geomspace(np.min(x_data), np.max(x_data), 20)
        ax.loglog(
            x, f["prefactor"] * x ** f["slope"], "--", color=color, lw=1, label=f"fit: ${f['slope']:.2f}$"
        )


def _define(ax, text: str) -> None:
    """A symbol's definition as a legend entry without a marker (the figure defines what it shows)."""
    ax.plot([], [], " ", label=text)


@plotting.draws("transformer_limit")
def plot_limit(table: pd.DataFrame) -> dict:
    t = _exp(table, "transformer_limit")
    t = t[t["status"] == "ok"]
    fig, (ax_d, ax_w, ax_t, ax_l) = plotting.figure(2, 2, width=3.6, height=2.8)
    # (a) depth error of the full-pool networks vs x = 1/L − 1/L_ref, trained and at t = 0
    dep, dep0 = depth_errors(t), depth_errors(t, "err_depth_t0")
    fitted = dep["L"] >= E1_DEPTH_L_MIN
    ax_d.loglog(dep["x"][fitted], dep["value"][fitted], "o", color="C0", label="trained, $t = T$")
    if (~fitted).any():
        ax_d.loglog(
            dep["x"][~fitted],
            dep["value"][~fitted],
            "s",
            color="grey",
            label=f"$L < {E1_DEPTH_L_MIN}$: not fitted",
        )
    ax_d.loglog(dep0["x"], dep0["value"], "o", mfc="none", color="C0", label="$t = 0$")
    fd = depth_fit(t)
    x = np.geomspace(dep["x"].min(), dep["x"].max(), 20) if len(dep) else np.array([])
    if np.isfinite(fd["slope"]) and len(x):
        ax_d.loglog(
            x, fd["prefactor"] * x ** fd["slope"], "k--", lw=1, label=f"fit: slope ${fd['slope']:.2f}$"
        )
        ax_d.loglog(x, fd["prefactor"] * x, ":", color="grey", label="derived: slope 1")
    ax_d.xaxis.set_minor_formatter(NullFormatter())
    L_ref = int(t["L_ref"].max()) if len(t) else 0
    _define(ax_d, "$f_{L,P}$: the pool's $P$ heads\nin each of $L$ layers")
    _define(ax_d, f"$f_{{ref}}$: the same at $L_{{ref}} = {L_ref}$\n$i$: input cloud")
    ax_d.set(xlabel="$1/L - 1/L_{ref}$", ylabel="$|f_{L,P} - f_{ref}|$ (RMS over $i$)", title="depth error")
    plotting.legend_outside(ax_d)
    # (b) width error vs H, one curve per L: RMS over seeds ± seed-bootstrap band, t = 0 dashed
    mc = t[t["metric"] == "err_mc"]
    Ls = sorted(mc["L"].unique())
    for L, col in zip(Ls, plotting.colors(len(Ls))):
        g = mc[mc["L"] == L]
        stats = g.groupby("H")["value"].agg(rms=lambda v: float(np.sqrt(np.mean(v**2))), sd="std", k="count")
        se = stats["sd"] / np.sqrt(stats["k"])
        ax_w.errorbar(stats.index, stats["rms"], yerr=se, fmt="o-", color=col, lw=1, ms=3, label=f"$L = {L}$")
        r0 = rms_over_seeds(t[t["L"] == L], "err_mc_t0")
        ax_w.plot(r0["H"], r0["value"], "--", color=col, lw=0.8)
    fw, L_max = width_fit(t)
    if np.isfinite(fw["slope"]):
        h = np.geomspace(mc["H"].min(), mc["H"].max(), 20)
        ax_w.plot(
            h,
            fw["prefactor"] * h ** fw["slope"],
            "k--",
            lw=1,
            label=f"fit ($L = {L_max}$): ${fw['slope']:.2f}$",  # mathtext: a true minus sign
        )
        ax_w.plot(h, fw["prefactor"] * h**-0.5, ":", color="grey", label="derived: $-1/2$")
    ax_w.plot([], [], "--", color="grey", lw=0.8, label="$t = 0$")
    _define(ax_w, "$f_{L,H}$: $H$ heads per layer\ndrawn from the pool")
    ax_w.set(
        xscale="log", yscale="log", xlabel="heads $H$", ylabel="$|f_{L,H} - f_{L,P}|$", title="width error"
    )
    plotting.legend_outside(ax_w)
    # (c) total error vs L·H against the fitted law, with the t = 0 error beside it
    tot, tot0 = rms_over_seeds(t, "err"), rms_over_seeds(t, "err_t0")
    law = error_law(t)
    Hs = sorted(tot["H"].unique())
    for H, col in zip(Hs, plotting.colors(len(Hs))):
        g, g0 = tot[tot["H"] == H], tot0[tot0["H"] == H]
        ax_t.loglog(g["LH"], g["value"], "o", color=col, ms=3, label=f"$H = {H}$")
        ax_t.loglog(g0["LH"], g0["value"], "o", mfc="none", color=col, ms=3)
        g_law = g[g["L"] >= E1_DEPTH_L_MIN]  # the law's domain (at L = 2 its O(1/L) terms need not hold)
        if np.isfinite(law["A"]) and len(g_law):
            pred = np.sqrt(np.clip(law_predict(law, g_law["L"], g_law["H"], g_law["L_ref"]), 0, None))
            ax_t.loglog(g_law["LH"], pred, "-", color=col, lw=0.8)
    ax_t.plot([], [], "o", mfc="none", color="grey", ms=3, label="$t = 0$")
    ax_t.plot(
        [], [], "-", color="grey", lw=0.8, label=f"law ($L \\geq {E1_DEPTH_L_MIN}$), $R^2 = {law.r2:.2f}$"
    )
    ax_t.set(xlabel=r"$L \cdot H$", ylabel="$|f_{L,H} - f_{ref}|$ (RMS over seeds)", title="total error")
    plotting.legend_outside(ax_t)
    # (d) loss curves of the reference and of a few finite networks (mean over seeds)
    curves = t[t["metric"] == "loss"]
    ref = t[t["metric"] == "loss_ref"].groupby("time")["value"].mean()
    ax_l.plot(ref.index, ref.values, "k-", lw=2, label="reference")
    pairs = sorted({(int(a), int(b)) for a, b in curves[["L", "H"]].drop_duplicates().values})
    show = (
        [pairs[i] for i in np.unique(np.linspace(0, len(pairs) - 1, min(4, len(pairs))).astype(int))]
        if pairs
        else []
    )
    for (L, H), col in zip(show, plotting.colors(len(show))):
        c = curves[(curves["L"] == L) & (curves["H"] == H)].groupby("time")["value"].mean()
        ax_l.plot(c.index, c.values, color=col, lw=1, label=f"$L={L}, H={H}$")
    _define(ax_l, "$t = k\\eta$: $k$ GD steps of size $\\eta$\n($T$: the last)")
    ax_l.set(yscale="log", xlabel=r"flow time $t = k\eta$", ylabel="loss $R$", title="loss curves")
    plotting.legend_outside(ax_l)
    return {"error": fig}


@plotting.draws("transformer_convergence")
def plot_convergence(table: pd.DataFrame) -> dict:
    t = _exp(table, "transformer_convergence")
    fig, (ax_loss, ax_lam, ax_ctl, ax_qk) = plotting.figure(2, 2, width=3.6, height=2.8)
    eps = t["eps"].max() if len(t) else 0.0
    summary = t[t["step"].isna()].pivot_table(index=["case", "eps", "seed"], columns="metric", values="value")
    # (a) injective cases: R(t)/R(0) and each run's own bound exp(−λ_min(K_0) t/N) (dashed)
    inj = sorted(t.loc[t["role"].isin(["injective", "bound", "kernel0"]), "case"].unique())
    off = False
    for case, col in zip(inj, plotting.colors(len(inj))):
        c = t[(t["case"] == case) & (t["eps"] == eps) & (t["metric"] == "loss")]
        for s, g in c.groupby("seed"):
            off |= _plot_clipped(
                ax_loss,
                g["time"],
                g["value"] / g["value"].iloc[0],
                LOSS_RANGE,
                color=col,
                lw=0.8,
                label=_case_name(case) if s == 0 else None,
            )
            key = (case, eps, s)
            if key in summary.index and "lam0" in summary.columns:
                N, tt = g["N"].iloc[0], np.linspace(0, g["time"].max(), 50)
                bound = np.exp(-summary.loc[key, "lam0"] * tt / N)
                ax_loss.plot(tt, bound, "--", color=col, lw=0.6)
    ax_loss.plot([], [], "k--", lw=0.6, label=r"each run's bound $e^{-\lambda_{min}(K_0) t/N}$")
    _off_scale_entry(ax_loss, off)
    ax_loss.set(
        yscale="log",
        ylim=LOSS_RANGE,
        xlabel="flow time $t$",
        ylabel="$R(t)/R(0)$",
        title=r"$\lambda_{min}(K_0) > 0$",
    )
    plotting.legend_below(ax_loss, ncol=1)
    # (b) λ_min(K_t)/λ_min(K_0) of the trained block along training
    for case, col in zip(inj, plotting.colors(len(inj))):
        c = t[(t["case"] == case) & (t["eps"] == eps) & t["metric"].str.startswith("lam_min_")]
        block = {"qkv": "full", "qk": "QK", "v": "V"}[c["train"].iloc[0]] if len(c) else "full"
        c = c[c["metric"] == f"lam_min_{block}"]
        for s, g in c.groupby("seed"):
            ax_lam.plot(
                g["time"],
                g["value"] / g["value"].iloc[0],
                "o-",
                ms=2,
                color=col,
                lw=0.8,
                label=_case_name(case) if s == 0 else None,
            )
    ax_lam.axhline(0.5, color="grey", ls=":", lw=1, label="1/2 (the bound's margin)")
    ax_lam.set(
        yscale="log",
        xlabel="flow time $t$",
        ylabel=r"$\lambda_{min}(K_t)/\lambda_{min}(K_0)$",
        title="NTK along training",
    )
    plotting.legend_below(ax_lam, ncol=2)
    # (c) controls: identical inputs (λ_0 = 0), each run over its own irreducible loss R_irr (the best
    # constant output, R_T/R_irr recorded as final_over_irreducible), so all should level at 1;
    # large initial loss over R(0)
    runs = ["case", "eps", "seed"]
    ratio = t[t["metric"] == "final_over_irreducible"].set_index(runs)["value"]
    off = False
    for role, col in (("duplicates", "C0"), ("large", "C3")):
        c = t[(t["role"] == role) & (t["metric"] == "loss")]
        for k, (run, g) in enumerate(c.groupby(runs)):
            g = g.sort_values("step")
            if role == "duplicates":
                norm = g["value"].iloc[-1] / ratio.get(run, np.nan)
                label = r"copies of one cloud: $R(t)/R_{irr}$"
            else:
                norm, label = g["value"].iloc[0], r"targets ×30 (large loss): $R(t)/R(0)$"
            off |= _plot_clipped(
                ax_ctl,
                g["time"],
                g["value"] / norm,
                CONTROL_RANGE,
                color=col,
                lw=0.8,
                label=label if k == 0 else None,
            )
    ax_ctl.axhline(1.0, color="C0", ls=":", lw=1, label="irreducible loss")
    _off_scale_entry(ax_ctl, off)
    ax_ctl.set(
        yscale="log", ylim=CONTROL_RANGE, xlabel="flow time $t$", ylabel="loss (normalised)", title="controls"
    )
    plotting.legend_below(ax_ctl, ncol=1)
    # (d) QK-only training at L = 1: translates (null space of K_QK) against a non-translate pair
    qk = t[t["role"].isin(["qk_translates", "qk_contrast"]) & (t["metric"] == "loss")]
    for case, col in zip(sorted(qk["case"].unique()), plotting.colors(2)):
        for s, g in qk[(qk["case"] == case) & (qk["eps"] == eps)].groupby("seed"):
            ax_qk.plot(
                g["time"],
                g["value"] / g["value"].iloc[0],
                color=col,
                lw=0.8,
                label=_case_name(case) if s == 0 else None,
            )
    ax_qk.set(yscale="log", xlabel="flow time $t$", ylabel="$R(t)/R(0)$", title="QK-only training, $L = 1$")
    plotting.legend_below(ax_qk, ncol=2)
    grid, kgrid = _lh_grid_figure(t), _kernel_grid_figure(t)
    return {
        "loss": fig,
        **({"lh_grid": grid} if grid is not None else {}),
        **({"kernel_grid": kgrid} if kgrid is not None else {}),
    }


LOSS_RANGE, CONTROL_RANGE = (1e-30, 10.0), (1e-4, 1e4)  # E2's loss axes; runs beyond are clipped and marked


def _plot_clipped(ax, x, y, limits, **kw) -> bool:
    """y drawn on axes limited to `limits` (the axes clip it), with a triangle on the edge where it leaves
    them (▲ above, or NaN: diverged; ▼ below); True when it left."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    lo, hi = limits
    ax.plot(x, y, **kw)
    out = ~((y >= lo) & (y <= hi))
    leave = np.flatnonzero(out & ~np.concatenate([[False], out[:-1]]))  # first point of each excursion
    for k in leave:
        below = y[k] < lo
        ax.plot(x[k], lo if below else hi, "v" if below else "^", color=kw.get("color"), ms=5, clip_on=False)
    return len(leave) > 0


def _off_scale_entry(ax, off: bool) -> None:
    if off:
        ax.plot([], [], "^", color="grey", ms=5, label="off scale: clipped (▲▼ where it leaves)")


def _lh_grid_figure(t: pd.DataFrame):
    """E2's (L, H) grid: λ_min(K_0)/N and the late rate (mean ± SD over seeds) against L·H, and their
    seed SDs with the fitted exponents beside the derived −1/2; None without grid rows."""
    series = (("lam0", r"$\lambda_{min}(K_0)$", "C0"), ("late_rate", "late rate of $R$", "C3"))
    if lh_grid(t, "lam0").empty:
        return None
    fig, (ax_m, ax_s) = plotting.figure(2, 1, width=3.6, height=2.8)
    for metric, label, col in series:
        g = lh_grid(t, metric)
        ax_m.errorbar(g["LH"], g["mean"], yerr=g["sd"], fmt="o-", color=col, ms=3, lw=1, label=label)
        ax_s.loglog(g["LH"], g["sd"], "o", color=col, ms=3, label=f"{label}: SD")
        _fit_line(ax_s, lh_sd_fit(t, metric), g["LH"], col)
    x = np.geomspace(*ax_s.get_xlim(), 20)
    ref = lh_grid(t, "lam0")
    ax_s.loglog(
        x, ref["sd"].iloc[0] * (x / ref["LH"].iloc[0]) ** -0.5, ":", color="grey", label="derived: $-1/2$"
    )
    ax_m.set(xscale="log", xlabel=r"$L \cdot H$", ylabel="mean ± SD over seeds", title="as $L, H$ grow")
    ax_s.set(xlabel=r"$L \cdot H$", ylabel="SD over seeds", title="fluctuations")
    plotting.legend_below(ax_m, ncol=1)
    plotting.legend_below(ax_s, ncol=2)
    return fig


FLOOR = -14  # log10 floor of the figures: values ≤ EXACT_NULL are exact nulls, drawn as markers there
EXACT_NULL = 1e-13


def _distinct(n: int) -> list:
    """n colours that tell lines apart (a qualitative map, not a ramp): one per distribution."""
    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _name(dist: str) -> str:
    return DIST_NAMES.get(dist, dist)


def _log10(v):
    return np.log10(np.clip(np.asarray(v, dtype=float), 10.0**FLOOR, None))


@plotting.draws(
    "transformer_ntk",
    captions={
        "injectivity": ("closed-form", "empirical NTK", "λ_min"),
        "blocks": ("block table",),
        "discrete": ("discrete family",),
    },
)
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
    im = ax_cf.imshow(grid, aspect="auto", vmin=FLOOR, vmax=0, cmap="viridis")
    ax_cf.set_yticks(range(len(dists)), [_name(d) for d in dists])
    ax_cf.set_xticks(range(len(cols)), [f"$d$={d}, $N$={N}" for d, N in cols], rotation=90)
    ax_cf.set_title(r"closed form: $\log_{10} \lambda_{min}/\lambda_{max}$ ($\sigma_z = 1$; ≤ −14: exact 0)")
    ax_cf.grid(False)
    # the colour bar in an inset beside the map: `colorbar(ax=…)` steals from the whole column, and the
    # column is as wide as the merge panel's legend below, which left the bar far from its map
    fig.colorbar(im, cax=ax_cf.inset_axes([1.03, 0.0, 0.05, 1.0]))
    # empirical NTK blocks at L = 1 and the largest n; exact nulls as markers at the floor
    e = t[(t["metric"] == "ntk_ratio") & (t["L"] == 1)]
    e = e[e["n"] == e["n"].max()]
    width = 0.27
    null_label = "exact 0"
    for i, dist in enumerate(dists):
        if dist in CLOSED_FORM_ONLY:  # no empirical NTK rows: say so where its bars would stand
            ax_ntk.text(i, FLOOR + 0.5, "closed form only", rotation=90, ha="center", va="bottom", fontsize=7)
    for k, (b, col) in enumerate(zip(["full", "V", "QK"], _distinct(3))):
        for i, dist in enumerate(dists):
            v = e[(e["dist"] == dist) & (e["block"] == b)]["value"]
            if v.empty:
                continue
            x = i + (k - 1) * width
            if v.max() <= EXACT_NULL:
                ax_ntk.plot(x, FLOOR, "v", color=col, ms=5, label=null_label)
                null_label = None
            else:
                ax_ntk.bar(
                    x,
                    _log10(v.min()) - FLOOR,
                    width,
                    bottom=FLOOR,
                    color=col,
                    label=(BLOCK_NAMES[b] + (" (full kernel)" if b == "full" else " block"))
                    if i == 0
                    else None,
                )
    ax_ntk.set_xticks(range(len(dists)), [_name(d) for d in dists], rotation=90)
    ax_ntk.set(
        ylim=(FLOOR - 1, 0),
        ylabel=r"$\log_{10} \lambda_{min}/\lambda_{max}$ (min over seeds)",
        title=f"empirical NTK at init, $L = 1$, $n = {int(e['n'].max()) if len(e) else 0}$",
    )
    plotting.legend_outside(ax_ntk)
    curves = merge_curves(t)
    for (key, (sp, lam)), col in zip(curves.items(), _distinct(len(curves))):
        ax_merge.plot(sp, lam, "o-", color=col, label=f"{_name(key[0])}, $d={key[1]}$")
    ax_merge.set(
        xscale="log",
        yscale="log",
        xlabel="spacing of the member parameters",
        ylabel=r"$\lambda_{min}$ (closed-form Gram, $N = 2$)",
        title="members merge",
    )
    # below, not to the right: a legend outside would widen the left column
    plotting.legend_below(ax_merge, ncol=2)
    # λ_min/λ_max of the QK block (the paper's condition) vs n: families against the iid control,
    # band = min…max over seeds; exact nulls at the floor
    nn = t[(t["metric"] == "ntk_ratio") & (t["L"] == 1) & (t["block"] == "QK")]
    for dist, col in zip(dists, _distinct(len(dists))):
        g = nn[nn["dist"] == dist].groupby("n")["value"]
        if not len(nn[nn["dist"] == dist]):
            continue
        lo, mid, hi = g.min(), g.median(), g.max()
        if hi.max() <= EXACT_NULL:
            ax_n.plot(
                mid.index, np.full(len(mid), 10.0**FLOOR), "v", color=col, label=f"{_name(dist)}: exact 0"
            )
            continue
        iid = dist == "iid"
        ax_n.plot(
            mid.index,
            mid.clip(lower=10.0**FLOOR),
            "o-" if iid else ".-",
            color=col,
            lw=2 if iid else 1,
            label=_name(dist),
        )
        ax_n.fill_between(mid.index, lo.clip(lower=10.0**FLOOR), hi, color=col, alpha=0.15, lw=0)
    for dist in (d for d in dists if d in CLOSED_FORM_ONLY):
        label = textwrap.fill(f"{_name(dist)}: closed form only ({CLOSED_FORM_ONLY[dist]})", 28)
        ax_n.plot([], [], " ", label=label)
    ax_n.set(
        xscale="log",
        yscale="log",
        xlabel="tokens per cloud $n$",
        ylabel=r"QK block $\lambda_{min}/\lambda_{max}$, $L = 1$",
        title="families vs i.i.d. samples of one law",
    )
    plotting.legend_outside(ax_n)
    return {"injectivity": fig, "blocks": _plot_blocks(t), "discrete": _plot_discrete(t)}


# E3 block table and discrete family (issue 24 §1–§2)
DIST_NAMES = {
    "discrete": "discrete clouds",
    "cube": "uniform cubes",
    "laplace": "symmetric Laplace",
    "gmm2": "two-Gaussian mixtures",
    "gauss": "isotropic Gaussians",
    "duplicates": "copies of one cloud",
    "translates": "translates of one cloud",
    "same_cov": "Gaussians, one covariance",
    "iid": "i.i.d. samples of one law",
    "convolution": r"$\mu_1, \mu_2, \mu_1 * \mu_2$",
}
BLOCK_NAMES = {
    "V": "$K_V$",
    "full": "$K$",
    "Q": "$K_Q$",
    "K": "$K_K$",
    "QK": "$K_{QK}$",
    "gram_constants": "Gram mod constants",
    "gram_affine": "Gram mod affine",
}


def _plot_blocks(t: pd.DataFrame):
    """Heat maps of log10 λ_min/λ_max (min over seeds), one per depth L of the block table: rows
    (distribution, N), columns the NTK blocks and the two Grams; exact nulls (≤ EXACT_NULL) drawn as "0"."""
    rows = t[t["metric"] == "block_ratio"]
    depths = sorted(int(L) for L in rows["L"].unique()) if len(rows) else [1]
    tabs = [block_table(t, L) for L in depths]
    height = 0.3 * max(max(len(tab) for tab in tabs), 4) + 1.6
    fig, axes = plotting.figure(len(depths), 1, width=6.4 if len(depths) == 1 else 4.0, height=height)
    if tabs[0].empty:
        axes[0].set_title("block table: no rows")
        return fig
    for k, (ax, L, tab) in enumerate(zip(axes, depths, tabs)):
        cols = [c for c in (*BLOCKS, *GRAMS) if c in tab.columns]
        vals = tab[cols].to_numpy(dtype=float)
        null = vals <= EXACT_NULL
        shown = np.where(null, np.nan, np.log10(np.clip(vals, EXACT_NULL, None)))
        im = ax.imshow(shown, aspect="auto", cmap="viridis", vmin=-13, vmax=0)
        for i, j in zip(*np.nonzero(null)):
            ax.text(j, i, "0", ha="center", va="center", fontsize=8)
        ax.set_xticks(range(len(cols)), [BLOCK_NAMES[c] for c in cols], rotation=90)
        labels = [f"{DIST_NAMES.get(d, d)}, $N = {n}$" for d, n in tab.index]
        ax.set_yticks(range(len(tab)), labels if k == 0 else [""] * len(tab))
        ax.axvline(len(BLOCKS) - 0.5, color="white", lw=3)
        ax.grid(False)
        ax.set_title(rf"$\log_{{10}} \lambda_{{min}}/\lambda_{{max}}$ at $L = {L}$ (0: exact null)")
    fig.colorbar(im, ax=axes, shrink=0.8)
    return fig


def _plot_discrete(t: pd.DataFrame):
    """λ_min of the Gram modulo affine of N i.i.d. samples of N(0, I) vs the atoms n (median and
    min…max over draws, one curve per tilt scale σ_z), with the convolution set's exact nulls."""
    fig, (ax,) = plotting.figure(1, 1, width=4.6, height=3.2)
    curves = discrete_curves(t)
    for (sigma, c), col in zip(curves.items(), plotting.colors(len(curves) + 1)):
        ax.plot(c.index, c["median"], "o-", color=col, label=rf"i.i.d. samples, $\sigma_z = {sigma:g}$")
        ax.fill_between(c.index, c["min"], c["max"], color=col, alpha=0.2, lw=0)
    conv = t[t["metric"] == "disc_conv_ratio"]
    if len(conv):
        ax.plot(
            conv["n"],
            np.full(len(conv), 1e-12),
            "v",
            color="tab:red",
            label=r"$\mu_1, \mu_2, \mu_1 * \mu_2$: exact null ($\lambda_{min}/\lambda_{max} \leq 10^{-13}$)",
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="atoms per measure $n$",
        ylabel=r"$\lambda_{min}$ of the Gram modulo affine",
        title="discrete measures (band: min…max over draws)",
    )
    plotting.legend_below(ax, ncol=1)
    return fig


@plotting.draws(
    "transformer_adjoint",
    captions={
        "gradient": ("per-head gradient",),
        "wellposed": ("well posed", "stable in the input", "two independent samplings", "sampled curves"),
    },
)
def plot_adjoint(table: pd.DataFrame) -> dict:
    """Relative error of the per-head gradient against the limit's adjoint gradient: vs L with the heads
    equal to the parameter measure, and its Monte Carlo part vs H at fixed L (with the fitted rates)."""
    t = _exp(table, "transformer_adjoint")
    t = t[t["status"] == "ok"]
    fig, (ax_l, ax_h) = plotting.figure(2, 1, width=3.6, height=3.5)
    dep = adjoint_first_draw(t[t["metric"] == "err_depth"]).sort_values("L")
    f = adjoint_depth_fit(t)
    c_data, c_fit, c_rich = plotting.colors(3)
    ax_l.plot(dep["L"], dep["value"], "o", color=c_data, label="measured")
    rich = t[t["metric"] == "err_richardson"]
    if len(rich):
        ax_l.plot(rich["L"], rich["value"], "x", color=c_rich, label="$2g_{2L} - g_L$ (every problem draw)")
    if len(dep):
        ax_l.plot(
            dep["L"],
            f["prefactor"] * dep["L"] ** f["slope"],
            "-",
            color=c_fit,
            label=f"fit: slope ${f['slope']:.2f}$",
        )
    ax_l.set(
        xscale="log",
        yscale="log",
        xlabel="layers $L$ ($H = P$, $\\sigma_V = 0$)",
        ylabel="relative RMS error of $LH\\,\\partial R/\\partial\\theta$",
        title="depth: Euler error",
    )
    plotting.grid_ticks(ax_l, sorted(dep["L"].unique()))
    _define(ax_l, "$P$: heads of the parameter measure\n$\\sigma_V$: spread of the value draws")
    plotting.legend_below(ax_l, ncol=1)
    ex = adjoint_width_rms(t)
    ax_h.plot(ex.index, ex.to_numpy(), "o", color=c_data, label="measured (RMS over seeds)")
    if len(ex) >= 2:
        g = fit.power_law(ex.index.to_numpy(float), ex.to_numpy())
        ax_h.plot(
            ex.index,
            g["prefactor"] * ex.index.to_numpy(float) ** g["slope"],
            "-",
            color=c_fit,
            label=f"fit: slope ${g['slope']:.2f}$",
        )
    L_w = int(t[t["metric"] == "err_mc"]["L"].iloc[0]) if (t["metric"] == "err_mc").any() else 0
    ax_h.set(
        xscale="log",
        yscale="log",
        xlabel=f"heads $H$ ($L = {L_w}$, random values)",
        ylabel="$|g_H - g_w| / |G|$",
        title="width: Monte Carlo error",
    )
    plotting.grid_ticks(ax_h, sorted(ex.index.unique()))
    _define(ax_h, "$g_w$: the same heads in the width-limit network")
    plotting.legend_below(ax_h, ncol=1)
    out = {"gradient": fig}
    wp = _wellposed_figure(t)
    if wp is not None:
        out["wellposed"] = wp
    return out


def _wellposed_figure(t: pd.DataFrame):
    """Well-posedness (mfx/transformer/wellposed.py): the Euler network's error against the RK4 depth flow
    and its stability ratio C, vs L per H; GD's distance to the RK4 gradient flow vs η; two samplings'
    difference vs H.  None without those rows."""
    if not (t["metric"] == "wp_err").any():
        return None
    fig, axes = plotting.figure(2, 2, width=3.4, height=2.9)
    Hs = sorted(t.loc[t["metric"] == "wp_err", "H"].unique())
    colors = plotting.colors(len(Hs))
    for ax, metric, ylabel, title in (
        (axes[0], "wp_err", "relative error vs RK4 in depth", "forward: Euler in depth → the ODE"),
        (axes[1], "wp_lip", "stability ratio $C$ (RMS over seeds)", "forward: stable in the clouds"),
    ):
        g = wp_grid(t, metric)
        for H, c in zip(Hs, colors):
            r = g[g["H"] == H].sort_values("L")
            ax.plot(r["L"], r["rms"], "o-", color=c, label=f"$H = {int(H)}$")
        ax.set(xscale="log", yscale="log", xlabel="layers $L$", ylabel=ylabel, title=title)
        plotting.grid_ticks(ax, sorted(g["L"].unique()))
        plotting.legend_below(ax, ncol=len(Hs))
    c_data, c_fit = plotting.colors(2)
    for ax, metric, fitter, x, xlabel, title in (
        (axes[2], "gf_err", gf_order, "eta", "GD step $\\eta$", "gradient flow: GD → the flow (RK4 in $t$)"),
        (axes[3], "gf_pair", gf_sampling, "H", "heads $H$", "two samplings → one curve"),
    ):
        g = rms_by(t, metric, x)
        f = fitter(t)
        ax.plot(g.index, g.to_numpy(), "o", color=c_data, label="RMS over seeds")
        xs = g.index.to_numpy(float)
        if metric == "gf_err":  # the fit's window: the η of the first-order regime only
            xs = xs[gf_window(t, xs)]
        ax.plot(
            xs, f["prefactor"] * xs ** f["slope"], "-", color=c_fit, label=f"fit: slope ${f['slope']:.2f}$"
        )
        ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel="relative distance", title=title)
        plotting.grid_ticks(ax, sorted(g.index.unique()))
        plotting.legend_below(ax, ncol=2)
    return fig


# Legend names of E2's cases (the `cases` of conf/experiment/transformer_convergence.yaml): the input
# clouds in words, with what the case changes (trained block, tokens n, depth, target noise ε).
CASE_NAMES = {
    "injective": "two-Gaussian mixtures",
    "injective_v": "mixtures, only V trained",
    "injective_cloud": "mixtures, $n = 1024$, $L = 1$",
    "injective_small": "mixtures, targets 50× closer",
    "injective_discrete": "discrete clouds",
    "translates_qk": "translates of one cloud",
    "distinct_qk": "cubes of two radii",
}


def _case_name(case: str) -> str:
    return plotting.label(CASE_NAMES, case)


def _kernel_grid_figure(t: pd.DataFrame):
    """E2's grids against the limit: the RMS over seeds of the NTK's deviation at initialisation from the
    limit's K_∞, and of the trained late rate's from the GD rate of λ_min(K_∞), against L·H, with the fitted
    exponents beside the derived −1/2; None without kernel-grid rows."""
    series = (
        ("grid_kernel_dev", r"$\|K_0 - K_\infty\|_F \,/\, \|K_\infty\|_F$", "C0", "kernel_grid"),
        ("grid_lam_dev", r"$\lambda_{min}(K_0) - \lambda_{min}(K_\infty)$", "C3", "kernel_grid"),
        ("grid_rate_dev", r"late rate / GD rate of $\lambda_{min}(K_\infty)$ $-$ 1", "C2", "grid"),
    )
    if kernel_grid(t, "grid_kernel_dev").empty:
        return None
    fig, (ax,) = plotting.figure(1, 1, width=3.6, height=2.8)
    for metric, label, col, role in series:
        g = kernel_grid(t, metric, role)
        if len(g) < 2:
            continue
        ax.loglog(g["LH"], g["rms"], "o", color=col, ms=4, label=f"RMS of {label}")
        _fit_line(ax, kernel_grid_fit(t, metric, role), g["LH"], col)
    ref = kernel_grid(t, "grid_kernel_dev")
    x = np.geomspace(ref["LH"].min(), ref["LH"].max(), 20)
    ax.loglog(
        x, ref["rms"].iloc[0] * (x / ref["LH"].iloc[0]) ** -0.5, ":", color="grey", label="derived: $-1/2$"
    )
    _define(ax, r"$K_\infty = \mathbb{E}_\theta[k_\theta]$: one head of the initial law, unmoved inputs")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set(xlabel=r"$L \cdot H$", ylabel="RMS over seeds", title="NTK and late rate against the limit's")
    plotting.legend_below(ax, ncol=1)
    return fig
