"""Figures of the quadratic family from collected tables (no physics here; fits via mfx.fit, shared
summaries via mfx.quadratic.analysis).  Each plot function registers itself with `plotting.draws`."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullFormatter

from mfx import fit, plotting
from mfx.experiment import number
from mfx.plotting import colors, figure
from mfx.quadratic import analysis
from mfx.quadratic.ranges import rng


def _ok(table, experiment, **where):
    sel = (table["experiment"] == experiment) & (table["status"] == "ok")
    for key, value in where.items():
        sel &= table[key] == value
    return table[sel]


def _median(d, by="tau"):
    return d.groupby(by)["value"].median()


def _band(ax, d, color, log=True, label=None):
    """Seed median of `value` vs tau with the 10–90 % seed band (rows of one method)."""
    q = d[d["tau"] > 0].groupby("tau")["value"].quantile([0.1, 0.5, 0.9]).unstack()
    if q.empty:
        return
    ax.fill_between(q.index, q[0.1], q[0.9], color=color, alpha=0.25, lw=0)
    ax.plot(q.index, q[0.5], "o", color=color, mfc="none", ms=2.5, label=label)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")


@plotting.draws(
    "quad_curves",
    captions={
        "eps": ("plateau", "tail", "ε_g at τ", "limit ε", "same τ axis"),
        "cross_check": ("full SGD",),
        "order_parameters": (),
    },
)
def curves(table):
    """F1: eps_g vs tau — ODE lines (at the SGD g; dashed: the matched-init ODE), SGD seed medians with
    10–90 % seed bands, the tau^-2 tail fit against the slope −2 derived here (science §4.3) — and the order
    parameters."""
    t = _ok(table, "quad_curves")
    ps = sorted(t["p"].unique())
    cs = dict(zip(ps, colors(len(ps))))
    fig, (ax,) = figure(1, 1, width=6.0, height=3.8)
    for p in ps:
        for p_star in sorted(t[t["p"] == p]["p_star"].unique()):
            d = t[(t["p"] == p) & (t["p_star"] == p_star) & (t["metric"] == "eps")]
            ode = _median(d[d["method"] == "ode"])
            ode = ode[ode.index > 0]
            ax.loglog(ode.index, ode.values, color=cs[p], label=f"ODE $p$={p}, $p^*$={p_star}")
            matched = _median(d[d["method"] == "ode_matched"])
            ax.loglog(
                matched.index[matched.index > 0], matched.values[matched.index > 0], "--", color=cs[p], lw=0.8
            )
            _band(ax, d[d["method"] == "sgd"], cs[p])
            eps_pl, floor = analysis.theory_levels(int(p), int(p_star))
            first = p == ps[0]
            ax.hlines(
                eps_pl,
                ode.index.min(),
                1.0,
                color="0.3",
                ls=(0, (2, 2)),
                lw=0.8,
                label=r"theory plateau $\frac{1}{p+2} + \frac{1}{p^*}$" if first else None,
            )
            if floor > 0:
                ax.hlines(
                    floor,
                    20.0,
                    ode.index.max(),
                    color="C3",
                    ls=(0, (2, 2)),
                    lw=0.8,
                    label=r"theory floor ($p < p^*$)",
                )
            if p > p_star:
                tail = ode[ode.index >= ode.index.max() / 10]
                f = fit.power_law(tail.index.values, tail.values)
                ax.loglog(
                    tail.index,
                    f["prefactor"] * tail.index.values ** f["slope"],
                    "k:",
                    lw=0.8,
                    label=f"fit $p$={p}: $\\tau^{{{f['slope']:.2f}}}$ (derived $\\tau^{{-2}}$)",
                )
    ax.set_ylim(1e-8, 2.0)  # the claims read eps_g down to 1e-3; p = p* runs on to float64 round-off
    ax.set_xlabel(r"$\tau = a\eta\alpha$")
    ax.set_ylabel(r"$\varepsilon_g$")
    # what the styles mean goes in the legend (the theory lines are labelled above)
    ax.plot([], [], "-", color="grey", label=r"lines: ODE at the SGD's $g = a\eta$")
    ax.plot([], [], "--", color="grey", lw=0.8, label="dashed: ODE from each SGD run's start")
    ax.plot([], [], "o", color="grey", mfc="none", ms=2.5, label="markers + band: SGD (seed median, 10–90 %)")
    plotting.legend_outside(ax)
    figs = {"eps": fig}

    x = t[t["method"].isin(["xcheck_full", "xcheck_overlap"]) & (t["metric"] == "eps")]
    if not x.empty:
        fig, (ax,) = figure(1, 1, width=4.6, height=3.2)
        for p in sorted(x["p"].unique()):
            for method, style in (("xcheck_full", "-"), ("xcheck_overlap", "--")):
                q = x[(x["p"] == p) & (x["method"] == method) & (x["tau"] > 0)].groupby("tau")["value"]
                med = q.median()
                ax.loglog(
                    med.index,
                    med.values,
                    style,
                    color=cs.get(p, "k"),
                    label=f"$p$={p} {'full SGD' if method == 'xcheck_full' else 'overlap chain'}",
                )
        ax.set_xlabel(r"$\tau$")
        ax.set_ylabel(r"$\varepsilon_g$ (seed median)")
        ax.set_title(f"cross-check at $N$={int(x['N'].iloc[0])}: full SGD vs overlap chain")
        plotting.legend_outside(ax)
        figs["cross_check"] = fig

    fig, axes = figure(3, 1, width=3.2)
    for p in ps:
        d = t[(t["p"] == p) & (t["method"] == "ode")]
        ds = t[(t["p"] == p) & (t["method"] == "sgd")]
        for ax, metric in zip(axes[:2], ("trQ", "rho_F")):
            m = _median(d[d["metric"] == metric])
            ax.semilogx(m.index[m.index > 0], m.values[m.index > 0], color=cs[p], label=f"$p$={p}")
            _band(ax, ds[ds["metric"] == metric], cs[p], log=False)
            ax.set_xscale("log")
        for k in range(1, p + 1):
            m = _median(d[d["metric"] == f"Q_eig_{k}"])
            axes[2].semilogx(
                m.index[m.index > 0],
                m.values[m.index > 0],
                color=cs[p],
                lw=0.8,
                label=f"$p$={p}" if k == 1 else None,
            )
    for ax, label in zip(axes, (r"tr $Q$", r"$\|\rho\|_F$", r"eigenvalues of $Q$ (ODE)")):
        ax.set_xlabel(r"$\tau = a\eta\alpha$")
        ax.set_ylabel(label)
    p_star = int(t["p_star"].iloc[0])
    axes[2].plot([], [], "-", color="grey", label=rf"lines: ODE at the SGD's $g$, $p^*$={p_star}")
    axes[2].plot(
        [], [], "o", color="grey", mfc="none", ms=2.5, label="markers + band: SGD\n(seed median, 10–90 %)"
    )
    plotting.legend_outside(axes[2])
    figs["order_parameters"] = fig
    return figs


@plotting.draws(
    "quad_escape",
    captions={
        "tau_vs_lnN": ("slope of τ_esc", "same τ axis", "full SGD"),
        "tau_vs_p": ("spread of the slope", "τ_esc(p=p*)", "σ_max"),
        "prefactor": ("exit",),
    },
)
def escape(table):
    """F2/F3: tau_esc vs ln N per p* (seed means ± SE, fitted slopes and the slope p*/8 derived here
    with a* = 1/p*), tau_esc vs p
    at fixed N, and eps_pl − eps in the escape window."""
    t = _ok(table, "quad_escape")
    esc = t[t["metric"] == "tau_esc"]
    p_stars = sorted(esc["p_star"].unique())
    fig, axes = figure(len(p_stars), 1, width=3.6)
    for ax, p_star in zip(axes, p_stars):
        d = esc[esc["p_star"] == p_star]
        ps = sorted(d["p"].unique())
        for p, c in zip(ps, colors(len(ps))):
            for method, style in (("ode", "-"), ("ode_g", "--"), ("sgd", "s"), ("xcheck_full", "^")):
                g = d[(d["p"] == p) & (d["method"] == method)].groupby("N")["value"]
                m, se = g.mean(), g.std() / np.sqrt(g.count())
                if m.empty:
                    continue
                x = np.log(m.index.values.astype(float))
                f = fit.linear(x, m.values)
                label = {
                    "ode": f"ODE $p$={p}: slope ${f['slope']:.3f}$",
                    "ode_g": r"ODE at the SGD's $g = a\eta$ (dashed)" if p == ps[0] else None,
                    "sgd": f"SGD $p$={p}: slope ${f['slope']:.3f}$",
                    "xcheck_full": f"full SGD $p$={p}",
                }[method]
                if method in ("sgd", "xcheck_full"):
                    ax.errorbar(
                        x, m.values, yerr=se.values, fmt=style, color=c, ms=3, mfc="none", label=label
                    )
                else:
                    ax.plot(x, m.values, style, color=c, lw=1, label=label)
        ax.set_title(f"$p^*$ = {p_star}: derived slope $p^*/8$ = {p_star / 8:.3f} ($a^*=1/p^*$)")
        ax.set_xlabel(r"$\ln N$")
        ax.set_ylabel(r"$\tau_{esc}$ (seed mean $\pm$ SE)")
        plotting.legend_below(ax, ncol=1)
    figs = {"tau_vs_lnN": fig}

    fig, (ax,) = figure(1, 1)
    ode = esc[esc["method"] == "ode"]
    for p_star, c in zip(p_stars, colors(len(p_stars))):
        d = ode[ode["p_star"] == p_star]
        N_top = d["N"].max()
        q = d[d["N"] == N_top].groupby("p")["value"].quantile([0.1, 0.5, 0.9]).unstack()
        ax.fill_between(q.index, q[0.1], q[0.9], color=c, alpha=0.25, lw=0)  # the seeds' spread
        ax.plot(q.index, q[0.5], "-o", color=c, label=f"$p^*$ = {p_star}, $N$ = {number(N_top)}")
    ax.set_ylim(0, None)  # from 0: a truncated axis made the weak p-dependence look strong
    ax.set_xlabel(r"$p$")
    ax.set_ylabel(r"$\tau_{esc}$ (ODE, seed median, band 10–90 %)")
    plotting.legend_outside(ax)
    figs["tau_vs_p"] = fig

    traj = t[(t["metric"] == "eps") & (t["method"] == "ode")]
    fig, axes = figure(len(p_stars), 1, width=3.4)
    for ax, p_star in zip(axes, p_stars):
        d = traj[traj["p_star"] == p_star]
        if d.empty:
            continue
        N_top = d["N"].max()
        d = d[d["N"] == N_top]
        ps = sorted(d["p"].unique())
        for p, c in zip(ps, colors(len(ps))):
            x = d[d["p"] == p]
            m = _median(x)
            gap = x["eps_pl"].iloc[0] - m
            rate = analysis.exit_rates(t[(t["p_star"] == p_star) & (t["p"] == p) & (t["N"] == N_top)])
            label = f"$p$={p}: rate {rate.iloc[0]:.2f}" if len(rate) else f"$p$={p}"
            ax.semilogy(m.index, gap.values, color=c, label=label)
        tau = np.linspace(0, d["tau"].max(), 50)
        ax.semilogy(
            tau, 1e-4 * np.exp(8 / p_star * tau), "k:", lw=0.8, label=r"derived $\propto e^{8\tau/p^*}$"
        )
        ax.set_ylim(1e-6, 1)
        ax.set_xlim(0, 2.5 * p_star)  # the escape window: tau_esc ≈ (p*/8) ln N ≲ 1.8 p* for N ≤ 1e6
        ax.set_title(f"$p^*$ = {p_star}, $N$ = {number(N_top)} (ODE)")
        ax.set_xlabel(r"$\tau$")
        ax.set_ylabel(r"$\varepsilon_{pl} - \varepsilon_g$")
        plotting.legend_below(ax, ncol=3)
    figs["prefactor"] = fig
    return figs


def _grid(n: int):
    """(fig, axes) of n panels, at most three to a row (six side by side made a 2700-pixel strip);
    panels beyond n hidden."""
    ncols = min(n, 3)
    fig, axes = figure(ncols, -(-n // ncols), width=3.0)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


@plotting.draws(
    "quad_implicit_bias",
    captions={
        "drift": ("drift",),
        "distances": ("closest solution", "polar"),
        "scatter": ("closest", "full SGD"),
    },
)
def implicit_bias(table):
    """F4: drift of S (ODE, anisotropic control, SGD at several g), the SGD drift vs g (seed medians with
    their 25–75 % seed band, fitted exponent against the paper's 1/2), distances to the manifold, and
    the final ρ against s·polar(ρ0)."""
    t = _ok(table, "quad_implicit_bias")
    drift = t[t["metric"] == "drift"]
    pairs = sorted({(int(p), int(ps)) for p, ps in zip(t["p"], t["p_star"])})
    cs = dict(zip(pairs, colors(len(pairs))))
    # taller with more (p, p*) pairs: the legends below grow by a row per pair, the axes keep their height
    fig, axes = figure(2, 1, width=3.6, height=2.4 + 0.15 * len(pairs))
    for pair in pairs:
        d = drift[(drift["p"] == pair[0]) & (drift["p_star"] == pair[1])]
        for method, style in (("ode", "-"), ("ode_anisotropic", "--")):
            m = _median(d[d["method"] == method])
            m = m[m.index > 0]
            if not m.empty:
                name = "ODE" if method == "ode" else "ODE, anisotropic $T$"
                axes[0].loglog(
                    m.index,
                    np.maximum(m.values, 1e-17),
                    style,
                    color=cs[pair],
                    label=f"{name} $(p,p^*)$={pair}",
                )
        sg = d[d["method"] == "sgd"]
        for g in sorted(sg["g"].unique()):
            m = _median(sg[sg["g"] == g])
            axes[0].loglog(m.index[m.index > 0], m.values[m.index > 0], ":", color=cs[pair], lw=0.8)
        final = sg[sg["tau"] == sg.groupby(["g", "seed"])["tau"].transform("max")]
        q = final.groupby("g")["value"].quantile([0.25, 0.5, 0.75]).unstack()
        if len(q) >= 2:
            f = fit.power_law(q.index.values, q[0.5].values)
            axes[1].errorbar(
                q.index, q[0.5], yerr=[q[0.5] - q[0.25], q[0.75] - q[0.5]], fmt="o", color=cs[pair], ms=3
            )
            axes[1].loglog(
                q.index,
                f["prefactor"] * q.index.values ** f["slope"],
                "-",
                color=cs[pair],
                label=f"$(p,p^*)$={pair}: fit $g^{{{f['slope']:.2f}}}$",
            )
            axes[1].loglog(
                q.index,
                q[0.5].iloc[0] * (q.index.values / q.index[0]) ** 0.5,
                "k:",
                lw=0.8,
                label=r"derived $\propto \sqrt{\eta}$" if pair == pairs[0] else None,
            )
    axes[0].set_xlabel(r"$\tau$")
    axes[0].set_ylabel(r"$\|S(t) - S(0)\|_F$")
    axes[0].plot([], [], ":", color="grey", lw=1, label=r"SGD at several $g = a\eta$ (seed median)")
    plotting.legend_below(axes[0], ncol=1 if len(pairs) < 3 else 2)
    gs = sorted(drift.loc[drift["method"] == "sgd", "g"].unique())
    axes[1].set_xticks(gs, [f"{g:g}" for g in gs])
    axes[1].xaxis.set_minor_formatter(NullFormatter())
    axes[1].set_xlabel(r"$g = a\eta$")
    axes[1].set_ylabel(r"final SGD drift of $S$")
    axes[1].set_title("seed median, bars 25–75 %")
    plotting.legend_below(axes[1], ncol=1 if len(pairs) < 3 else 2)
    figs = {"drift": fig}

    fig, axes = _grid(len(pairs))
    for ax, pair in zip(axes, pairs):
        d = t[(t["p"] == pair[0]) & (t["p_star"] == pair[1]) & (t["method"] == "ode")]
        # the predicted closest solution and the nearest one coincide: a wide line under a dashed one
        for metric, c, style, lw, label in (
            ("d_closest", "C1", "-", 3.0, r"to $s\,\mathrm{polar}(\rho_0)\,W^*$ (predicted)"),
            ("d_nearest", "k", "--", 1.0, "to the nearest solution"),
            ("d_random", "0.6", "-", 1.0, "to a random solution"),
        ):
            m = _median(d[d["metric"] == metric])
            ax.loglog(
                m.index[m.index > 0],
                np.maximum(m.values[m.index > 0], 1e-16),
                style,
                color=c,
                lw=lw,
                label=label,
            )
        ax.set_title(f"$(p, p^*)$ = {pair}, ODE")
        ax.set_xlabel(r"$\tau$")
        ax.set_ylabel(r"$\|W - s U W^*\|^2/N$")
        plotting.legend_below(ax, ncol=1)
    figs["distances"] = fig

    fig, axes = _grid(len(pairs))
    for ax, pair in zip(axes, pairs):
        d = t[(t["p"] == pair[0]) & (t["p_star"] == pair[1])]
        for method, marker, color in (("sgd", "x", "C1"), ("ode", "o", "C0")):  # the ODE's few points on top
            x = d[(d["method"] == method) & (d["metric"] == "rho_predicted")]
            y = d[(d["method"] == method) & (d["metric"] == "rho_final")]
            label = "ODE"
            if method == "sgd" and not x.empty:
                g_min = x["g"].min()
                x, y = x[x["g"] == g_min], y[y["g"] == g_min]
                label = f"SGD, $g = a\\eta$ = {g_min:g}"
            ax.plot(x["value"].values, y["value"].values, marker, color=color, ms=3, mfc="none", label=label)
        lim = np.abs(d[d["metric"] == "rho_predicted"]["value"]).max()
        ax.plot([-lim, lim], [-lim, lim], "k:", lw=0.8)
        ax.set_title(f"$(p, p^*)$ = {pair}")
        ax.set_xlabel(r"$s\,\mathrm{polar}(\rho_0)$ entries")
        ax.set_ylabel(r"final $\rho$ entries")
        plotting.legend_below(ax)
    figs["scatter"] = fig
    return figs


@plotting.draws(
    "quad_hessian",
    captions={
        "spectra": ("eigenvalue −",),
        "counts": ("counts", "negative eigenvalues"),
        "lambda_min": (),
        "zero_modes": ("reaches",),
    },
)
def hessian(table):
    """F5: stem plots (eigenvalue, multiplicity), counts vs p, smallest eigenvalue along the ODE."""
    t = table[table["experiment"] == "quad_hessian"]
    eig = t[(t["metric"] == "eigenvalue") & (t["source"] == "autograd")]
    pairs = sorted({(int(p), int(ps)) for p, ps in zip(eig["p"], eig["p_star"])})
    # one row per (p, p*): stems of many spectra in one panel hide each other.  Filled: autograd, coloured
    # by sign, area growing with the multiplicity; open circles: the closed form the claims compare with
    fig, axes = figure(2, 1, width=3.4, height=1.6 + 0.16 * len(pairs))
    signs = (("negative", "C3"), ("zero", "0.55"), ("positive", "C0"))
    for ax, state in zip(axes, ("plateau", "solution")):
        for k, pair in enumerate(pairs):
            here = t[
                (t["p"] == pair[0])
                & (t["p_star"] == pair[1])
                & (t["state"] == state)
                & (t["metric"] == "eigenvalue")
            ]
            d, th = here[here["source"] == "autograd"], here[here["source"] == "theory"]
            size = lambda m: 8 + 14 * np.log10(m.to_numpy(float))
            ax.scatter(
                th["value"],
                np.full(len(th), k),
                s=2.2 * size(th["multiplicity"]),
                facecolors="none",
                edgecolors="k",
                lw=0.6,
                label="closed form" if k == 0 else None,
            )
            v = d["value"].to_numpy(float)
            sign = np.where(v < -1e-9, 0, np.where(v > 1e-9, 2, 1))
            for j, (name, c) in enumerate(signs):
                ax.scatter(
                    v[sign == j],
                    np.full((sign == j).sum(), k),
                    s=size(d["multiplicity"][sign == j]),
                    color=c,
                    label=f"{name} (autograd)" if k == 0 else None,
                )
        ax.set_yticks(range(len(pairs)), [f"{p}, {ps}" for p, ps in pairs])
        ax.set_ylim(len(pairs) - 0.5, -0.5)
        ax.grid(False, axis="y")
        ax.set_xlabel(r"eigenvalue ($V = W/\sqrt{N}$)")
        ax.set_ylabel(r"$p,\ p^*$")
        ax.set_title(f"{state} (marker area grows with multiplicity)")
    plotting.legend_below(axes[0], ncol=2)
    figs = {"spectra": fig}

    # counts vs p, one line per p* (marker) and sign (colour); open circles: the closed form's counts
    theory = t[(t["metric"] == "eigenvalue") & (t["source"] == "theory")]
    p_stars = sorted({ps for _, ps in pairs})
    fig, axes = figure(2, 1, width=3.4, height=3.4)
    for ax, state in zip(axes, ("plateau", "solution")):
        for p_star, marker in zip(p_stars, "os^dv"):
            rows = []
            for pair in [pr for pr in pairs if pr[1] == p_star]:
                at = [
                    d[(d["p"] == pair[0]) & (d["p_star"] == p_star) & (d["state"] == state)]
                    for d in (eig, theory)
                ]
                if at[0].empty:
                    continue
                got, want = (analysis.counts(d["value"].values, d["multiplicity"].values) for d in at)
                rows.append((pair[0], got, want))  # (negative, zero, positive), as the claims count
            for j, (label, c) in enumerate(zip(("negative", "zero", "positive"), ("C3", "0.55", "C0"))):
                ps_ = [r[0] for r in rows]
                ax.plot(
                    ps_,
                    [r[1][j] for r in rows],
                    "-" + marker,
                    color=c,
                    ms=3,
                    lw=0.8,
                    label=f"{label}, $p^*$={p_star}",
                )
                ax.plot(
                    ps_,
                    [r[2][j] for r in rows],
                    "o",
                    mfc="none",
                    mec="k",
                    ms=6,
                    mew=0.6,
                    label="closed form" if (p_star, j) == (p_stars[0], 0) else None,
                )
        ax.set_xlabel(r"$p$")
        ax.set_ylabel("count")
        ax.set_title(state)
    plotting.legend_below(axes[0], ncol=3)
    figs["counts"] = fig

    traj = t[(t["state"] == "trajectory")]
    fig, axes = figure(2, 1, width=3.8, height=4.6)
    for pair, c in zip(pairs, colors(len(pairs))):
        d = traj[(traj["p"] == pair[0]) & (traj["p_star"] == pair[1])]
        for ax, metric in zip(axes, ("lambda_min", "eps")):
            x = d[(d["metric"] == metric) & (d["tau"] > 0)]
            ax.semilogx(x["tau"], x["value"], color=c, label=f"$(p,p^*)$={pair}")
    axes[0].axhline(0, color="k", lw=0.5)
    axes[0].set_ylabel(r"$\lambda_{min}$ of the Hessian")
    axes[1].set_ylabel(r"$\varepsilon_g$")
    axes[1].set_yscale("log")
    axes[1].set_ylim(1e-12, None)  # below, float64 round-off of a converged run
    for ax in axes:
        ax.set_xlabel(r"$\tau$ (gradient-flow ODE)")
    plotting.legend_below(axes[0], ncol=3)
    figs["lambda_min"] = fig
    if "state" in t and (t["state"] == "reached").any():
        figs["zero_modes"] = _zero_modes(t[(t["state"] == "reached") & (t["status"] == "ok")])
    return figs


GAP_SHIFT = {"ode": -0.12, "sgd": 0.12}  # x offsets of the two methods in the zero-mode gap panel


def _zero_modes(t):
    """quad_hessian: the zero-mode split at the minima the ODE and SGD reach (rows state = reached)."""
    fig, axes = figure(3, 1, width=2.6, height=2.6)
    methods = (("ode", "gradient-flow ODE", "o", "C0"), ("sgd", "one-pass SGD (overlap chain)", "s", "C1"))
    p_stars = sorted(t["p_star"].unique())
    for p_star, ls in zip(p_stars, ("-", "--", ":")):
        x = t[t["p_star"] == p_star]
        ps = np.array(sorted(x["p"].unique()))
        theory = (ps * p_star - p_star * (p_star + 1) / 2, ps - p_star)
        axes[0].plot(ps, theory[0], ls, color="k", lw=0.7, label=rf"closed form, $p^*$={p_star}")
        axes[1].plot(ps, theory[1], ls, color="k", lw=0.7)
        for method, label, marker, c in methods:
            d = x[x["source"] == method]
            if d.empty:
                continue
            w = d.pivot_table(index=["p", "seed", "N"], columns="metric", values="value").reset_index()
            w = w.groupby("p").agg({"n_tangent": "mean", "n_extra": "mean", "N": "first"}).reset_index()
            first = p_star == p_stars[0]
            axes[0].plot(w["p"], w["n_tangent"], marker, color=c, mfc="none", label=label if first else None)
            axes[1].plot(w["p"], w["n_extra"] / (w["N"] - p_star), marker, color=c, mfc="none")
            for col, m2, name in (
                ("zero_max", "v", "largest |λ| counted zero"),
                ("positive_min", "^", "smallest positive λ"),
            ):
                v = d[d["metric"] == col]
                axes[2].semilogy(
                    v["p"] + GAP_SHIFT[method],  # side by side: the ODE's markers sit under SGD's otherwise
                    v["value"].abs(),
                    m2,
                    color=c,
                    mfc="none" if method == "ode" else c,
                    ms=4,
                    label=f"{name}, {method.upper()}" if first else None,
                )
    band = rng("hessian_zero_band")
    axes[0].set_ylabel("zero modes")
    axes[1].set_ylabel(r"zero modes / $(N-p^*)$")
    axes[2].set_ylabel(r"$|\lambda|$ / $4aa^*$")
    low, high = axes[2].get_ylim()
    axes[2].set_ylim(low, high)  # the band fills the panel below its edge, without new margins
    axes[2].axhspan(
        low,
        band,
        color="0.9",
        zorder=0,
        label=f"zero band: |λ| ≤ {band:g}·4aa*\n(4aa*: the smallest non-zero λ\nat a solution)",
    )
    for ax in axes:
        ax.set_xlabel(r"student width $p$")
    axes[0].set_title(r"along rotations: $pp^* - p^*(p^*+1)/2$", fontsize=8)
    axes[1].set_title(r"other (overparameterisation): $p - p^*$", fontsize=8)
    axes[2].set_title("gap around zero", fontsize=8)
    plotting.legend_below(axes[0], ncol=1)
    plotting.legend_below(axes[2], ncol=1)
    return fig


@plotting.draws("quad_norms")
def norms(table):
    """quad_norms: |diag Q/q̄ − 1| and √N|ρ| vs τ (seed medians), with τ_norm and τ_esc marked; τ_norm and
    τ_esc vs N."""
    t = _ok(table, "quad_norms")
    series = t[t["tau"].notna() & (t["tau"] > 0)]
    per_seed = analysis.norm_table(t, rng("norms_delta"))
    figs = {}
    for (p, p_star), d in series.groupby(["p", "p_star"]):
        s = per_seed[(per_seed["p"] == p) & (per_seed["p_star"] == p_star)]
        Ns = sorted(d["N"].unique())
        fig, axes = figure(3, 1, width=2.7, height=2.6)
        for N, c in zip(Ns, colors(len(Ns))):
            for method, ls in (("ode", "-"), ("sgd", "--")):
                x = d[(d["N"] == N) & (d["method"] == method)]
                if x.empty:
                    continue
                q_bar = float(s[s["method"] == method]["q_bar"].iloc[0])
                w = x.pivot_table(index=["tau", "seed"], columns="metric", values="value").reset_index()
                w["dev"] = np.maximum(np.abs(w["q_max"] / q_bar - 1), np.abs(w["q_min"] / q_bar - 1))
                w["rho_scaled"] = w["rho_norm"] * np.sqrt(N)
                med = w.groupby("tau")[["dev", "rho_scaled"]].median()
                label = f"{method.upper()}, $N$ = {number(N)}"
                axes[0].loglog(med.index, med["dev"], ls, color=c, lw=1, label=label)
                axes[1].semilogx(med.index, med["rho_scaled"], ls, color=c, lw=1)
        axes[0].axhline(rng("norms_delta"), color="k", lw=0.6, label=r"tolerance $\delta$")
        axes[0].set_ylabel(r"$\max_k |Q_{kk}/\bar q - 1|$")
        axes[1].set_yscale("log")
        axes[1].set_ylabel(r"$\sqrt{N}\,\|\rho\|_F$")
        sgd = s[s["method"] == "sgd"]
        for ax in axes[:2]:
            ax.set_xlabel(r"$\tau$")
            for col, ls in (("tau_norm", ":"), ("tau_esc", "-.")):
                v = sgd[col].median()
                if np.isfinite(v):
                    name = {"tau_norm": r"SGD $\tau_{norm}$", "tau_esc": r"SGD $\tau_{esc}$"}[col]
                    ax.axvline(v, color="0.3", ls=ls, lw=0.8, label=name if ax is axes[0] else None)
        axes[0].set_title("norms", fontsize=7)
        axes[1].set_title("overlaps, in units of their initial order", fontsize=7)
        for method, marker in (("ode", "o"), ("sgd", "s")):
            m = s[s["method"] == method].groupby("N")[["tau_norm", "tau_esc"]].median()
            axes[2].semilogx(
                m.index,
                m["tau_norm"],
                marker,
                color="C0",
                mfc="none" if method == "ode" else "C0",
                label=rf"$\tau_{{norm}}$, {method.upper()}",
            )
            axes[2].semilogx(
                m.index,
                m["tau_esc"],
                marker,
                color="C3",
                mfc="none" if method == "ode" else "C3",
                label=rf"$\tau_{{esc}}$, {method.upper()}",
            )
        axes[2].axhline(
            float(s["tau_norm_theory"].iloc[0]), color="C0", lw=0.7, label=r"derived $\tau_{norm}$ (g = 0)"
        )
        sgd_read = s.loc[s["method"] == "sgd", "tau_read"].dropna()
        if len(sgd_read):
            axes[2].axhline(
                float(sgd_read.iloc[0]),
                color="C0",
                lw=0.7,
                ls="--",
                label=r"derived $\tau_{norm}(g)$: SGD's $|\rho|$ read here",
            )
        axes[2].set_xlabel(r"input dimension $N$")
        axes[2].set_ylabel(r"$\tau$")
        axes[2].set_title(rf"$p$ = {p}, $p^*$ = {p_star}", fontsize=8)
        plotting.legend_below(axes[0], ncol=1)
        plotting.legend_below(axes[2], ncol=2)
        figs[f"norms_p{p}_pstar{p_star}"] = fig
    return figs
