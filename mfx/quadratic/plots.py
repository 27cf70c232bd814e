"""Figures of the quadratic family from collected tables (no physics here; fits via mfx.fit, shared
summaries via mfx.quadratic.analysis).  Each plot function registers itself with `plotting.draws`."""

from __future__ import annotations

import numpy as np

from mfx import fit, plotting
from mfx.plotting import colors, figure
from mfx.quadratic import analysis


def _ok(table, experiment, **where):
    sel = (table["experiment"] == experiment) & (table["status"] == "ok")
    for key, value in where.items():
        sel &= table[key] == value
    return table[sel]


def _median(d, by="tau"):
    return d.groupby(by)["value"].median()


@plotting.draws("quad_curves")
def curves(table):
    """F1: eps_g vs tau (ODE lines, SGD markers) and the order parameters, one colour per p."""
    t = _ok(table, "quad_curves")
    ps = sorted(t["p"].unique())
    cs = dict(zip(ps, colors(len(ps))))
    fig, (ax,) = figure(1, 1, width=4.5, height=3.4)
    for p in ps:
        for p_star in sorted(t[t["p"] == p]["p_star"].unique()):
            d = t[(t["p"] == p) & (t["p_star"] == p_star) & (t["metric"] == "eps")]
            ode = _median(d[d["method"] == "ode"])
            ode = ode[ode.index > 0]
            ax.loglog(ode.index, ode.values, color=cs[p], label=f"ODE p={p}, p*={p_star}")
            sgd = _median(d[d["method"] == "sgd"])
            sgd = sgd[sgd.index > 0]
            ax.loglog(sgd.index, sgd.values, "o", color=cs[p], mfc="none", ms=3)
            if p > p_star:
                tail = ode[ode.index >= ode.index.max() / 10]
                f = fit.power_law(tail.index.values, tail.values)
                ax.loglog(
                    tail.index,
                    f["prefactor"] * tail.index.values ** f["slope"],
                    "k:",
                    lw=0.8,
                    label=f"fit p={p}: τ^{f['slope']:.2f}",
                )
    ax.set_ylim(bottom=1e-10)  # below this p = p* runs into float64 round-off of eps_g
    ax.set_xlabel("τ = aηα")
    ax.set_ylabel("ε_g")
    ax.set_title("lines: ODE, markers: SGD (seed medians)")
    ax.legend(ncol=2)
    figs = {"eps": fig}
    fig, axes = figure(3, 1, width=3.2)
    for p in ps:
        d = t[(t["p"] == p) & (t["method"] == "ode")]
        ds = t[(t["p"] == p) & (t["method"] == "sgd")]
        for ax, metric in zip(axes[:2], ("trQ", "rho_F")):
            m = _median(d[d["metric"] == metric])
            ax.semilogx(m.index[m.index > 0], m.values[m.index > 0], color=cs[p], label=f"p={p}")
            ms = _median(ds[ds["metric"] == metric])
            ax.semilogx(ms.index[ms.index > 0], ms.values[ms.index > 0], "o", color=cs[p], mfc="none", ms=3)
        for k in range(1, p + 1):
            m = _median(d[d["metric"] == f"Q_eig_{k}"])
            axes[2].semilogx(
                m.index[m.index > 0],
                m.values[m.index > 0],
                color=cs[p],
                lw=0.8,
                label=f"p={p}" if k == 1 else None,
            )
    for ax, label in zip(axes, ("tr Q", "||ρ||_F", "eigenvalues of Q (ODE)")):
        ax.set_xlabel("τ")
        ax.set_ylabel(label)
    axes[0].legend()
    figs["order_parameters"] = fig
    return figs


@plotting.draws("quad_escape")
def escape(table):
    """F2/F3: tau_esc vs ln N per p* (fits labelled), tau_esc vs p at fixed N, and eps_pl − eps in the window."""
    t = _ok(table, "quad_escape")
    esc = t[t["metric"] == "tau_esc"]
    p_stars = sorted(esc["p_star"].unique())
    fig, axes = figure(len(p_stars), 1, width=3.2)
    for ax, p_star in zip(axes, p_stars):
        d = esc[esc["p_star"] == p_star]
        ps = sorted(d["p"].unique())
        for p, c in zip(ps, colors(len(ps))):
            for method, style in (("ode", "-o"), ("ode_g", "--"), ("sgd", "s")):
                m = d[(d["p"] == p) & (d["method"] == method)].groupby("N")["value"].median()
                if m.empty:
                    continue
                x = np.log(m.index.values.astype(float))
                f = fit.linear(x, m.values)
                label = f"{method} p={p}: slope {f['slope']:.3f}" if method != "ode_g" else None
                ax.plot(x, m.values, style, color=c, ms=3, mfc="none" if method == "sgd" else c, label=label)
        ax.set_title(f"p* = {p_star} (theory slope {p_star / 8:.3f})")
        ax.set_xlabel("ln N")
        ax.set_ylabel("τ_esc")
        ax.legend(fontsize=5)
    figs = {"tau_vs_lnN": fig}

    fig, (ax,) = figure(1, 1)
    ode = esc[esc["method"] == "ode"]
    for p_star, c in zip(p_stars, colors(len(p_stars))):
        d = ode[ode["p_star"] == p_star]
        N_top = d["N"].max()
        m = d[d["N"] == N_top].groupby("p")["value"].median()
        ax.plot(m.index, m.values, "-o", color=c, label=f"p*={p_star}, N={N_top:.0e}")
    ax.set_xlabel("p")
    ax.set_ylabel("τ_esc (ODE)")
    ax.legend()
    figs["tau_vs_p"] = fig

    traj = t[(t["metric"] == "eps") & (t["method"] == "ode")]
    fig, axes = figure(len(p_stars), 1, width=3.2)
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
            ax.semilogy(m.index, gap.values, color=c, label=f"p={p}")
        tau = np.linspace(0, d["tau"].max(), 50)
        ax.semilogy(tau, 1e-4 * np.exp(8 / p_star * tau), "k:", lw=0.8, label="∝ exp(8τ/p*)")
        ax.set_ylim(1e-6, 1)
        ax.set_xlim(0, 2.5 * p_star)  # the escape window: tau_esc ≈ (p*/8) ln N ≲ 1.8 p* for N ≤ 1e6
        ax.set_title(f"ε_pl − ε_g, p*={p_star}, N={N_top:.0e} (ODE)")
        ax.set_xlabel("τ")
        ax.legend(fontsize=6)
    figs["prefactor"] = fig
    return figs


@plotting.draws("quad_implicit_bias")
def implicit_bias(table):
    """F4: drift of S, drift vs eta (fit), distances to the manifold, final ρ vs s·polar(ρ0)."""
    t = _ok(table, "quad_implicit_bias")
    drift = t[t["metric"] == "drift"]
    pairs = sorted({(int(p), int(ps)) for p, ps in zip(t["p"], t["p_star"])})
    cs = dict(zip(pairs, colors(len(pairs))))
    fig, axes = figure(2, 1, width=3.6)
    for pair in pairs:
        d = drift[(drift["p"] == pair[0]) & (drift["p_star"] == pair[1])]
        for method, style in (("ode", "-"), ("ode_anisotropic", "--")):
            m = _median(d[d["method"] == method])
            m = m[m.index > 0]
            if not m.empty:
                axes[0].loglog(
                    m.index,
                    np.maximum(m.values, 1e-17),
                    style,
                    color=cs[pair],
                    label=f"{method} (p,p*)={pair}",
                )
        sg = d[d["method"] == "sgd"]
        for g in sorted(sg["g"].unique()):
            m = _median(sg[sg["g"] == g])
            axes[0].loglog(m.index[m.index > 0], m.values[m.index > 0], ":", color=cs[pair], lw=0.8)
        final = sg[sg["tau"] == sg.groupby(["g", "seed"])["tau"].transform("max")]
        mean = final.groupby("g")["value"].median()
        if len(mean) >= 2:
            f = fit.power_law(mean.index.values, mean.values)
            axes[1].loglog(mean.index, mean.values, "o", color=cs[pair])
            axes[1].loglog(
                mean.index,
                f["prefactor"] * mean.index.values ** f["slope"],
                "-",
                color=cs[pair],
                label=f"(p,p*)={pair}: g^{f['slope']:.2f}",
            )
    axes[0].set_xlabel("τ")
    axes[0].set_ylabel("||S(t) − S(0)||_F")
    axes[0].legend(fontsize=5)
    axes[0].set_title("dotted: SGD at several g")
    axes[1].set_xlabel("g = aη")
    axes[1].set_ylabel("SGD final drift (seed median)")
    axes[1].legend()
    figs = {"drift": fig}

    fig, axes = figure(len(pairs), 1, width=3.0)
    for ax, pair in zip(axes, pairs):
        d = t[(t["p"] == pair[0]) & (t["p_star"] == pair[1]) & (t["method"] == "ode")]
        for metric, c in zip(("d_closest", "d_nearest", "d_random"), colors(3)):
            m = _median(d[d["metric"] == metric])
            ax.loglog(m.index[m.index > 0], np.maximum(m.values[m.index > 0], 1e-16), color=c, label=metric)
        ax.set_title(f"(p, p*) = {pair}, ODE")
        ax.set_xlabel("τ")
        ax.set_ylabel("||W − s U W*||²/N")
        ax.legend()
    figs["distances"] = fig

    fig, axes = figure(len(pairs), 1, width=3.0)
    for ax, pair in zip(axes, pairs):
        d = t[(t["p"] == pair[0]) & (t["p_star"] == pair[1])]
        for method, marker in (("ode", "o"), ("sgd", "x")):
            x = d[(d["method"] == method) & (d["metric"] == "rho_predicted")]
            y = d[(d["method"] == method) & (d["metric"] == "rho_final")]
            if method == "sgd" and not x.empty:
                g_min = x["g"].min()
                x, y = x[x["g"] == g_min], y[y["g"] == g_min]
                method = f"sgd g={g_min:g}"
            ax.plot(x["value"].values, y["value"].values, marker, ms=3, mfc="none", label=method)
        lim = np.abs(d[d["metric"] == "rho_predicted"]["value"]).max()
        ax.plot([-lim, lim], [-lim, lim], "k:", lw=0.8)
        ax.set_title(f"(p, p*) = {pair}")
        ax.set_xlabel("s·polar(ρ0) entries")
        ax.set_ylabel("final ρ entries")
        ax.legend()
    figs["scatter"] = fig
    return figs


@plotting.draws("quad_hessian")
def hessian(table):
    """F5: stem plots (eigenvalue, multiplicity), counts vs p, smallest eigenvalue along the ODE."""
    t = table[table["experiment"] == "quad_hessian"]
    eig = t[(t["metric"] == "eigenvalue") & (t["source"] == "autograd")]
    pairs = sorted({(int(p), int(ps)) for p, ps in zip(eig["p"], eig["p_star"])})
    fig, axes = figure(2, 1, width=3.6)
    for ax, state in zip(axes, ("plateau", "solution")):
        for k, (pair, c) in enumerate(zip(pairs, colors(len(pairs)))):
            d = eig[(eig["p"] == pair[0]) & (eig["p_star"] == pair[1]) & (eig["state"] == state)]
            if d.empty:
                continue
            x = d["value"].values + 0.01 * k
            ax.vlines(x, 0.8, d["multiplicity"].values, color=c, lw=1)
            ax.plot(x, d["multiplicity"].values, "o", color=c, ms=3, label=f"(p,p*)={pair}")
        ax.set_yscale("log")
        ax.set_xlabel("eigenvalue (V = W/√N)")
        ax.set_ylabel("multiplicity")
        ax.set_title(state)
        ax.legend(fontsize=6)
    figs = {"spectra": fig}

    fig, axes = figure(2, 1, width=3.2)
    for ax, state in zip(axes, ("plateau", "solution")):
        rows = []
        for pair in pairs:
            d = eig[(eig["p"] == pair[0]) & (eig["p_star"] == pair[1]) & (eig["state"] == state)]
            if d.empty:
                continue
            v, m = d["value"].values, d["multiplicity"].values
            rows.append((pair, *analysis.counts(v, m)))  # (negative, zero, positive), as the claims count
        for j, (label, c) in enumerate(zip(("negative", "zero", "positive"), colors(3))):
            ax.plot([r[0][0] for r in rows], [r[1 + j] for r in rows], "-o", color=c, label=label)
        ax.set_xlabel("p")
        ax.set_ylabel("count")
        ax.set_title(f"{state} (p* = {', '.join(sorted({str(r[0][1]) for r in rows}))})")
        ax.legend()
    figs["counts"] = fig

    traj = t[(t["state"] == "trajectory")]
    fig, axes = figure(2, 1, width=3.2)
    for pair, c in zip(pairs, colors(len(pairs))):
        d = traj[(traj["p"] == pair[0]) & (traj["p_star"] == pair[1])]
        for ax, metric in zip(axes, ("lambda_min", "eps")):
            x = d[(d["metric"] == metric) & (d["tau"] > 0)]
            ax.semilogx(x["tau"], x["value"], color=c, label=f"(p,p*)={pair}")
    axes[0].axhline(0, color="k", lw=0.5)
    axes[0].set_ylabel("λ_min of the Hessian")
    axes[1].set_ylabel("ε_g")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("τ (gradient flow ODE)")
    axes[0].legend(fontsize=6)
    figs["lambda_min"] = fig
    return figs
