"""Figures of the ResNet experiments, from collected tables (fits only; no physics here).

Each figure draws what its claims measure, with the fit of `mfx.resnet.analysis` exactly as the
claim evaluates it: the fitted slope and the paper's slope, both labelled; error bars are the
standard errors of the RMS (or mean) over reps; legends sit outside the data.
"""

from __future__ import annotations

import numpy as np

from mfx import fit, plotting
from mfx.resnet import analysis  # the fits used by the claims, drawn as they are evaluated


def _paper_line(ax, x, y0, x0, slope, label, color="k"):
    """A dotted line of the paper's slope through (x0, y0), over the range of x."""
    xs = np.geomspace(min(x), max(x), 20)
    ax.loglog(xs, y0 * (xs / x0) ** slope, ":", color=color, lw=1.0, label=label)


def _error_panels(table, name, x, curve, slope_fit, slope_at, window=None):
    """Error vs `x`, one curve per `curve` (its own power-law slope in the legend), with the two-term
    fit; the claim's slope fit (at `curve` = slope_at) and the paper's −1/2 on the output panel.
    `window(err) -> mask`: the points the claims fit (filled); the others are drawn open."""
    fig, axes = plotting.figure(1, 2, width=4.6, height=2.8)
    for ax, metric, label in zip(
        axes, ("err_f", "err_h"), ("RMS output error", "RMS error of $h_L$ (per coord.)")
    ):
        err = analysis.rms_se_over_seeds(table, name, metric, ["L", "M", "L_ref", "M_ref"])
        err["fitted"] = True if window is None else window(err)
        both = analysis.two_term_fit(err[err["fitted"]])
        curves = sorted(err[curve].unique())
        for c, value in zip(plotting.colors(len(curves)), curves):
            e = err[err[curve] == value].sort_values(x)
            inside = e[e["fitted"]]
            own = fit.power_law(inside[x], inside["value"])["slope"] if len(inside) >= 2 else float("nan")
            ax.errorbar(
                inside[x],
                inside["value"],
                yerr=inside["se"],
                fmt="*",
                color=c,
                label=f"${curve}$ = {value:g}" + (f" (slope ${own:.2f}$)" if np.isfinite(own) else ""),
            )
            out = e[~e["fitted"]]
            if len(out):
                ax.errorbar(out[x], out["value"], yerr=out["se"], fmt="o", mfc="none", color=c, ms=3)
            xs = np.geomspace(e[x].min(), e[x].max(), 50)
            L = xs if x == "L" else np.full_like(xs, value)
            M = xs if x == "M" else np.full_like(xs, value)
            ax.plot(xs, fit.evaluate(both, {"a": 1 / L, "b": 1 / np.sqrt(L * M)}), "-", color=c, lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.plot(
            [],
            [],
            "-",
            color="0.4",
            lw=0.8,
            label=(
                f"fit $a/L + {both['b']:.2g}/\\sqrt{{LM}}$, $a \\approx 0$ (at bound)"
                if "a" in both.at_bound
                else f"fit ${both['a']:.2g}/L + {both['b']:.2g}/\\sqrt{{LM}}$"
            )
            + f" ($R^2$ = {both.r2:.2f})",
        )
        if not err["fitted"].all():
            ax.plot(
                [], [], "o", mfc="none", color="0.4", ms=3, label=r"$LM > L_{ref}M_{ref}/16$ (not fitted)"
            )
        if metric == "err_f" and slope_at is not None:
            e = err[(err[curve] == slope_at) & err["fitted"]].sort_values(x)
            if len(e) >= 2:
                xs = e[x].to_numpy(float)
                ax.plot(
                    xs,
                    slope_fit["prefactor"] * xs ** slope_fit["slope"],
                    "--",
                    color="C3",
                    lw=1.0,
                    label=f"fit at ${curve}$ = {slope_at:g}: slope ${slope_fit['slope']:.2f}$",
                )
                _paper_line(ax, xs, e["value"].iloc[0] * 1.6, xs[0], -0.5, "paper: slope $-1/2$")
        plotting.grid_ticks(ax, sorted(err[x].unique()))
        ax.set_xlabel(f"${x}$")
        ax.set_ylabel(label + " at step $K$")
        plotting.legend_outside(ax)
    return fig


@plotting.draws("resnet_depth")
def depth(table):
    slope = analysis.depth_slope(table)
    return {"error_vs_L": _error_panels(table, "resnet_depth", "L", "M", slope, 1, analysis.width_window)}


@plotting.draws("resnet_width")
def width(table):
    slope, L_max, _ = analysis.width_slope(table)
    return {"error_vs_M": _error_panels(table, "resnet_width", "M", "L", slope, L_max, analysis.width_window)}


@plotting.draws("resnet_dim")
def dim(table):
    fig, axes = plotting.figure(1, 2, width=4.6, height=2.8)
    slope, both, fitted = analysis.dim_fits(table)
    err = analysis.rms_over_seeds(table, "resnet_dim", "err_h", ["L", "M", "D"]).sort_values("D")
    ax = axes[0]
    metrics = (
        ("err_h", "all coordinates"),
        ("err_h_perp", "$\\perp$ span $W_U$"),
        ("err_h_span", "span $W_U$ (read out)"),
    )
    for (metric, label), marker in zip(metrics, ("*", "v", "^")):
        e = analysis.rms_se_over_seeds(table, "resnet_dim", metric, ["D"]).sort_values("D")
        ax.errorbar(e["D"], e["value"], yerr=e["se"], fmt=marker, label=label)
    L, M = float(err["L"].iloc[0]), float(err["M"].iloc[0])
    D = np.geomspace(fitted["D"].min(), fitted["D"].max(), 50)
    ax.plot(
        D,
        fit.evaluate(both, {"a": 1 / L, "b": np.sqrt(D / (L * M))}),
        "-",
        lw=0.8,
        label=(
            f"$a/L + {both['b']:.2g}\\sqrt{{D/LM}}$, $a \\approx 0$ (at bound)"
            if "a" in both.at_bound
            else f"${both['a']:.2g}/L + {both['b']:.2g}\\sqrt{{D/LM}}$"
        )
        + f" ($R^2$ = {both.r2:.2f})",
    )
    ax.plot(
        D,
        slope["prefactor"] * D ** slope["slope"],
        "--",
        color="C3",
        lw=1.0,
        label=f"fit: slope ${slope['slope']:.2f}$",
    )
    _paper_line(ax, D, slope["prefactor"] * D[0] ** slope["slope"] * 1.6, D[0], 0.5, "paper: slope $+1/2$")
    ax.set_ylabel("RMS error of $h_L$ per coordinate, step $K$")
    for a in axes:
        a.axvline(
            analysis.DIM_D_MAX_PER_M * M,
            color="0.5",
            lw=0.8,
            ls=":",
            label=f"$D$ = {analysis.DIM_D_MAX_PER_M}$M$: end of the fit (Thm 3: $D = O(M)$)",
        )
    e = analysis.rms_se_over_seeds(table, "resnet_dim", "err_f", ["D"]).sort_values("D")
    axes[1].errorbar(e["D"], e["value"], yerr=e["se"], fmt="*", label="measured")
    axes[1].set_ylabel("RMS output error, step $K$")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        plotting.grid_ticks(ax, sorted(err["D"].unique()))
        ax.set_xlabel("$D$")
        ax.set_title(
            f"$L$ = {L:g}, $M$ = {M:g}; fit over {fitted['D'].min():g} ≤ $D$ ≤ {fitted['D'].max():g}"
        )
        plotting.legend_outside(ax)
    return {"error_vs_D": fig}


@plotting.draws("resnet_ratio")
def ratio(table):
    """h_L and output errors vs D/M, one curve per M (the cells outside the fit window open): Thm 3's
    collapse on one curve of slope 1/2 (h_L), and the output error beside it."""
    fig, axes = plotting.figure(1, 2, width=4.6, height=2.8)
    panels = (("err_h", "RMS error of $h_L$ (per coord.)", 0.5), ("err_f", "RMS output error", None))
    for ax, (metric, ylabel, paper) in zip(axes, panels):
        p, q, _ = analysis.ratio_fit(table, metric)
        err = analysis.rms_se_over_seeds(table, "resnet_ratio", metric, ["L", "M", "D", "d_out"])
        err = err.assign(c=err["D"] / err["M"], fitted=analysis.ratio_window(err))
        widths = sorted(err["M"].unique())
        for color, M in zip(plotting.colors(len(widths)), widths):
            e = err[err["M"] == M].sort_values("c")
            for fitted, face in ((True, color), (False, "none")):
                part = e[e["fitted"] == fitted]
                ax.errorbar(
                    part["c"],
                    part["value"],
                    yerr=part["se"],
                    fmt="o",
                    color=color,
                    mfc=face,
                    label=f"$M$ = {M:g}" if fitted else None,
                )
        if paper is not None and len(err):
            c = err["c"].to_numpy(float)
            _paper_line(
                ax, c, float(err["value"].median()), float(np.median(c)), paper, "paper: slope $+1/2$"
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("$D/M$")
        ax.set_ylabel(ylabel)
        ax.set_title(f"joint fit: $M^{{{p:+.2f}}}\\,(D/M)^{{{q:+.2f}}}$")
        plotting.grid_ticks(ax, sorted(err["c"].unique()))
        plotting.legend_outside(ax)
    return {"error_vs_ratio": fig}


@plotting.draws("resnet_departure")
def departure(table):
    """Output error after K GD steps over the initial one vs D/M, one curve per M: below 1 inside
    D = O(M) (D ≤ 4·M), above 1 beyond (D ≥ 16·M), the two means the claims read in the title."""
    fig, (ax,) = plotting.figure(1, 1, width=4.6, height=2.8)
    r = analysis.departure_ratios(table)
    widths = sorted(r["M"].unique())
    for color, M in zip(plotting.colors(len(widths)), widths):
        e = r[r["M"] == M].sort_values("c")
        ax.plot(e["c"], e["value"], "o-", color=color, label=f"$M$ = {M:g}")
    ax.axhline(1.0, color="k", ls=":", lw=1.0, label="no change ($K$ = 0)")
    for c in (analysis.DIM_D_MAX_PER_M, analysis.DEPARTURE_D_MIN_PER_M):
        ax.axvline(c, color="0.6", ls="--", lw=0.8)
    inside, beyond = (analysis.departure_mean(table, b)[0] for b in (False, True))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$D/M$")
    ax.set_ylabel("output error: step $K$ / step 0")
    ax.set_title(
        f"$D \\leq {analysis.DIM_D_MAX_PER_M}M$: {inside:.2f}; $D \\geq {analysis.DEPARTURE_D_MIN_PER_M}M$: {beyond:.2f}"
    )
    if len(r):
        plotting.grid_ticks(ax, sorted(r["c"].unique()))
    plotting.legend_outside(ax)
    return {"departure": fig}


@plotting.draws("resnet_lazy")
def lazy(table):
    fits, mean = analysis.lazy_fits(table)
    fig, axes = plotting.figure(2, 2, width=4.2, height=2.8)
    panels = {
        "local_update": ("RMS local update $\\langle\\Delta u, h\\rangle/D$", -1.0),
        "lin_dist": ("RMS dist. to linearised model", -1.0),
    }
    for ax, (metric, (ylabel, paper)) in zip(axes, panels.items()):
        shown = ("lin_dist", "tangent_dist") if metric == "lin_dist" else (metric,)
        for name, color in zip(shown, ("C0", "C1")):
            m, f = mean[name], fits[name]
            label = {"lin_dist": "blockwise (tangent ODE)", "tangent_dist": "full tangent model"}.get(
                name, "measured"
            )
            ax.errorbar(m["alpha"], m["value"], yerr=m["se"], fmt="*", color=color, label=label)
            ax.plot(
                m["alpha"],
                f["prefactor"] * m["alpha"] ** f["slope"],
                "-",
                color=color,
                lw=0.8,
                label=f"fit: $\\alpha^{{{f['slope']:.2f}}}$",
            )
        m = mean[metric]
        # the local movement ∝ 1/α is built into the rate η·L·M·D/α² (an identity); the distance's
        # α^−1 is Thm 2's bound, which the measured slope beats (the bound is not tight here)
        bound = "built in: $\\alpha^{-1}$" if metric == "local_update" else "Thm 2 bound: $\\alpha^{-1}$"
        _paper_line(ax, m["alpha"], m["value"].iloc[0] * 1.6, m["alpha"].iloc[0], paper, bound)
        ax.set_xscale("log")
        ax.set_yscale("log")
        plotting.grid_ticks(ax, sorted(m["alpha"].unique()))
        ax.set_xlabel("$\\alpha$")
        ax.set_ylabel(ylabel + " at step $K$")
        plotting.legend_outside(ax)
    _limit_panels(table, axes[2], axes[3])
    return {"lazy": fig}


def _limit_panels(table, ax, ax_star):
    """Distance to the tangent mean ODE limit vs alpha (i.i.d.: filled, with the fitted law;
    paired: open) for each size, and the fitted optimum alpha* vs L·M against (LM)^{1/4}."""
    law = analysis.lazy_limit_fit(table)
    iid, paired = analysis.lazy_limit(table, "iid"), analysis.lazy_limit(table, "paired")
    sizes = sorted(iid["LM"].unique())
    for c, LM in zip(plotting.colors(len(sizes)), sizes):
        e, p = iid[iid["LM"] == LM], paired[paired["LM"] == LM]
        ax.loglog(e["alpha"], e["value"], "o", color=c, label=f"$LM$ = {LM:g}")
        ax.loglog(p["alpha"], p["value"], "o", mfc="none", color=c)
        k = list(law["alpha_star"]["LM"]).index(LM) if LM in list(law["alpha_star"]["LM"]) else None
        if k is not None and "A" in law:
            a = np.geomspace(e["alpha"].min(), e["alpha"].max(), 50)
            ax.loglog(a, law["A"][k] * a ** law["p"] + law["B"][k] * a ** law["q"], "-", color=c, lw=0.8)
    ax.plot([], [], "o", mfc="none", color="0.4", label="paired init")
    ax.plot(
        [],
        [],
        "-",
        color="0.4",
        lw=0.8,
        label=f"fit $A\\alpha^{{{law['p']:.2f}}} + B\\alpha^{{{law['q']:.2f}}}$\n"
        "(paper: $O(1/\\alpha + 1/L + \\alpha/\\sqrt{LM})$)",
    )
    ax.set_xlabel("$\\alpha$  (window $1/2 \\leq \\alpha \\leq \\sqrt{LM}/2$)")
    ax.set_ylabel("RMS distance to the tangent limit")
    plotting.legend_outside(ax)
    star = law["alpha_star"]
    ax_star.loglog(star["LM"], star["alpha_star"], "*", color="C0", label="fitted $\\alpha^*$")
    if len(star) >= 2 and np.isfinite(law["r"]):
        LM = star["LM"].to_numpy(float)
        f = fit.power_law(LM, star["alpha_star"])
        ax_star.loglog(
            LM,
            f["prefactor"] * LM ** f["slope"],
            "-",
            color="C0",
            lw=0.8,
            label=f"fit: $(LM)^{{{f['slope']:.2f}}}$",
        )
        _paper_line(ax_star, LM, star["alpha_star"].iloc[0] * 1.3, LM[0], 0.25, "derived: $(LM)^{1/4}$")
    ax_star.set_xlabel("$L \\cdot M$")
    ax_star.set_ylabel("optimal $\\alpha^*$")
    plotting.legend_outside(ax_star)


@plotting.draws("resnet_phase")
def phase(table):
    """The phase diagram in (gamma, rate exponent): the measured stability edge, the line of O(1)
    local updates, the critical line gamma*; the exponents it rests on; the rate search itself."""
    summary = analysis.phase_summary(table)
    gamma_star = analysis.phase_gamma_star(table)
    fig, (ax_map, ax_exp, ax_search) = plotting.figure(3, 1, width=3.9, height=3.0)
    summary = summary.dropna().astype(float)
    if len(summary) >= 2:
        _phase_map(ax_map, summary, gamma_star)
        _phase_exponents(ax_exp, summary)
    else:
        for ax in (ax_map, ax_exp):
            ax.set_title("fewer than two gammas with ≥ 3 values of $D$ in the fit range", fontsize=8)
    runs = table[(table["experiment"] == "resnet_phase") & (table["metric"] == "stable")]
    gammas = sorted(runs["gamma"].unique())
    for i, (color, gamma) in enumerate(zip(plotting.colors(len(gammas)), gammas)):
        r = runs[runs["gamma"] == gamma]
        ok, bad = r[r["value"] > 0], r[r["value"] == 0]
        shift = 1.08 ** (i - (len(gammas) - 1) / 2)  # side by side at each D
        ax_search.loglog(ok["D"] * shift, ok["rate"], ".", color=color, ms=3, label=f"$\\gamma = {gamma:g}$")
        ax_search.loglog(bad["D"] * shift, bad["rate"], "x", color=color, ms=3)
    if len(runs):
        plotting.grid_ticks(ax_search, sorted(runs["D"].unique()))
    ax_search.plot([], [], ".", color="grey", ms=3, label="stable run")  # the markers, in the legend
    ax_search.plot([], [], "x", color="grey", ms=3, label="unstable run")
    ax_search.set_xlabel("$D$")
    ax_search.set_ylabel("rate $\\eta$ = raw rate$/(LMD)$")
    plotting.legend_outside(ax_search)
    return {"phase": fig}


@plotting.draws("resnet_limit")
def limit(table):
    """The pool's Euler network's error (the 1/L term alone) vs L, one curve per GD step k; one
    network's error vs M, one curve per L; both against the RK4 mean ODE, with the claims' fits."""
    fig, (ax_bias, ax_one) = plotting.figure(2, 1, width=4.2, height=2.8)
    steps = analysis.k_steps(table)
    for c, k in zip(plotting.colors(len(steps)), steps):
        at_k = table[table["step"] == k].assign(step=0)
        e = analysis.limit_euler(at_k).sort_values("L")
        ax_bias.loglog(e["L"], e["value"], "*-", color=c, lw=0.6, label=f"step $k$ = {k}")
    depth, M_p, _ = analysis.limit_depth_slope(table)
    euler = analysis.limit_euler(table)
    if len(euler) >= 2:
        Ls = euler["L"].to_numpy(float)
        ax_bias.loglog(
            Ls,
            depth["prefactor"] * Ls ** depth["slope"],
            "-",
            color="C3",
            lw=1.0,
            label=f"fit at $k = K$: $L^{{{depth['slope']:.2f}}}$",
        )
        _paper_line(ax_bias, Ls, euler["value"].iloc[0] * 1.5, Ls[0], -1.0, "paper: $1/L$ (tight)")
        plotting.grid_ticks(ax_bias, sorted(euler["L"].unique()))
    ax_bias.set_xlabel("$L$")
    ax_bias.set_ylabel(f"error of the Euler network\n($M = M_p$ = {M_p:g}: every layer the pool)")
    plotting.legend_outside(ax_bias)

    err = analysis.rms_se_over_seeds(table, "resnet_limit", "err_one", ["L", "M"])
    width, L_max, _ = analysis.limit_width_slope(table)
    Ls = sorted(err["L"].unique())
    for c, L in zip(plotting.colors(len(Ls)), Ls):
        e = err[err["L"] == L].sort_values("M")
        ax_one.errorbar(e["M"], e["value"], yerr=e["se"], fmt="*-", color=c, lw=0.6, label=f"$L$ = {L:g}")
    e = err[err["L"] == L_max]
    if len(e) >= 2:
        Ms = e["M"].to_numpy(float)
        ax_one.plot(
            Ms,
            width["prefactor"] * Ms ** width["slope"],
            "-",
            color="C3",
            lw=1.0,
            label=f"fit at $L$ = {L_max:g}: $M^{{{width['slope']:.2f}}}$",
        )
        _paper_line(ax_one, Ms, e["value"].iloc[0] * 1.5, Ms[0], -0.5, "paper: $1/\\sqrt{LM}$ (tight)")
    ax_one.set_xscale("log")
    ax_one.set_yscale("log")
    if len(err):
        plotting.grid_ticks(ax_one, sorted(err["M"].unique()))
    ax_one.set_xlabel("$M$")
    ax_one.set_ylabel("RMS error of one network")
    plotting.legend_outside(ax_one)
    return {"limit": fig, "chaos": chaos(table)}


def chaos(table):
    """Propagation of chaos (resnet_limit): the trained units' coupling distance to their limit copies
    vs M, one curve per L, with the claim's fit at the largest L and the derived 1/√(LM); the pool's
    Euler network's (its depth part alone) vs L with the derived 1/L."""
    fig, (ax_m, ax_l) = plotting.figure(2, 1, width=4.2, height=2.8)
    err = analysis.rms_se_over_seeds(table, "resnet_limit", "chaos", ["L", "M"])
    slope, L_max, _ = analysis.limit_chaos_slope(table)
    Ls = sorted(err["L"].unique())
    for c, L in zip(plotting.colors(len(Ls)), Ls):
        e = err[err["L"] == L].sort_values("M")
        ax_m.errorbar(e["M"], e["value"], yerr=e["se"], fmt="*-", color=c, lw=0.6, label=f"$L$ = {L:g}")
    e = err[err["L"] == L_max]
    if len(e) >= 2:
        Ms = e["M"].to_numpy(float)
        ax_m.plot(
            Ms,
            slope["prefactor"] * Ms ** slope["slope"],
            "-",
            color="C3",
            lw=1.0,
            label=f"fit at $L$ = {L_max:g}: $M^{{{slope['slope']:.2f}}}$",
        )
        _paper_line(ax_m, Ms, e["value"].iloc[0] * 1.5, Ms[0], -0.5, "derived: $1/\\sqrt{LM}$")
    ax_m.set_xscale("log")
    ax_m.set_yscale("log")
    if len(err):
        plotting.grid_ticks(ax_m, sorted(err["M"].unique()))
    ax_m.set_xlabel("$M$")
    ax_m.set_ylabel("units' distance to their\nlimit copies (relative)")
    plotting.legend_outside(ax_m)

    euler = analysis.rms_se_over_seeds(table, "resnet_limit", "chaos_euler", ["L", "M"]).sort_values("L")
    fit_e, _ = analysis.limit_chaos_euler_slope(table)
    ax_l.set_xscale("log")
    ax_l.set_yscale("log")
    if len(euler):
        ax_l.errorbar(
            euler["L"], euler["value"], yerr=euler["se"], fmt="*", color="C0", label="Euler network"
        )
    if len(euler) >= 2:
        Ls = euler["L"].to_numpy(float)
        ax_l.plot(
            Ls,
            fit_e["prefactor"] * Ls ** fit_e["slope"],
            "-",
            color="C3",
            lw=1.0,
            label=f"fit: $L^{{{fit_e['slope']:.2f}}}$",
        )
        _paper_line(ax_l, Ls, euler["value"].iloc[0] * 1.5, Ls[0], -1.0, "derived: $1/L$")
        plotting.grid_ticks(ax_l, sorted(euler["L"].unique()))
    ax_l.set_xlabel("$L$")
    ax_l.set_ylabel("the same, Euler network\n(every layer the pool)")
    plotting.legend_outside(ax_l)
    return fig


def _phase_map(ax_map, summary, gamma_star):
    """The (gamma, rate exponent) plane: measured stability edge, O(1)-local-update line, regions."""
    g, beta = summary["gamma"], summary["lr_max"]
    lo, hi = float(g.min()), float(g.max())
    top = float(max(beta.max(), (beta - summary["local_update"]).max())) + 0.5
    bottom = float(beta.min()) - 0.5
    ax_map.fill_between(g, beta, top, color="C3", alpha=0.12, lw=0, label="unstable (measured edge)")
    ax_map.errorbar(g, beta, yerr=summary["lr_max_se"], fmt="o-", color="C3", lw=0.8, ms=3)
    xs = np.linspace(lo, hi, 200)
    edge_xs = np.interp(xs, g, beta)
    left, right = xs <= gamma_star, xs >= gamma_star
    ax_map.fill_between(xs[left], bottom, edge_xs[left], color="C0", alpha=0.1, lw=0, label="subcritical")
    ax_map.fill_between(xs[right], bottom, edge_xs[right], color="C1", alpha=0.1, lw=0, label="lazy")
    ax_map.plot(g, beta - summary["local_update"], "--", color="C2", lw=0.9, label="local update $O(1)$")
    ax_map.axvline(gamma_star, color="k", lw=1.0, label=f"critical line $\\gamma^*$ = {gamma_star:.2f}")
    edge = float(np.interp(gamma_star, g, beta))
    ax_map.plot([gamma_star], [edge], "*", color="k", ms=10, label="maximal local updates (MLU)")
    ax_map.set_xlim(lo, hi)
    ax_map.set_ylim(bottom, top)
    ax_map.set_xlabel("$\\gamma$ (residual scale $D^\\gamma/(LM)$)")
    ax_map.set_ylabel("rate exponent $\\beta$ ($\\eta \\propto D^\\beta$)")
    plotting.legend_below(ax_map, ncol=2)


def _phase_exponents(ax_exp, summary):
    """The exponents in D at the largest stable rate vs gamma, with the derived 1/2 − gamma."""
    g = summary["gamma"]
    xs = np.linspace(float(g.min()), float(g.max()), 200)
    labels = {
        "lr_max": "largest stable rate",
        "local_update": "local update",
        "movement": "feature movement",
        "diversity": "diversity",
        "local_share": "local update / movement ($\\gamma^*$)",
    }
    for (metric, label), color in zip(labels.items(), ("C3", "C2", "C0", "C4", "C1")):
        ax_exp.errorbar(
            g, summary[metric], yerr=summary[f"{metric}_se"], fmt="*-", color=color, lw=0.8, label=label
        )
    ax_exp.plot(xs, 0.5 - xs, ":", color="C2", lw=1.0, label="derived: $1/2 - \\gamma$")
    ax_exp.axhline(0, color="k", lw=0.5)
    ax_exp.axvline(0.5, color="k", ls=":", lw=1.0, label="paper: $\\gamma^* = 1/2$")
    ax_exp.set_xlabel("$\\gamma$")
    ax_exp.set_ylabel("exponent in $D$ at the edge")
    plotting.legend_below(ax_exp, ncol=2)
