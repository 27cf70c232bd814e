"""Figures of the ResNet experiments, from collected tables (fits only; no physics here)."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullFormatter

from mfx import fit, plotting
from mfx.resnet import analysis  # the fits used by the claims, drawn as they are evaluated


def _error_panels(table, name, x, curve):
    fig, axes = plotting.figure(2, 1, height=3.0)
    for ax, metric, label in zip(
        axes, ("err_f", "err_h"), ("RMS output error", "RMS error of $h_L$ (per coord.)")
    ):
        err = analysis.rms_over_seeds(table, name, metric, ["L", "M"])
        both = analysis.two_term_fit(err)
        curves = sorted(err[curve].unique())
        for c, value in zip(plotting.colors(len(curves)), curves):
            e = err[err[curve] == value].sort_values(x)
            ax.loglog(e[x], e["value"], "*", color=c, label=f"{curve} = {value:g}")
            xs = np.geomspace(e[x].min(), e[x].max(), 50)
            L = xs if x == "L" else np.full_like(xs, value)
            M = xs if x == "M" else np.full_like(xs, value)
            ax.loglog(xs, fit.evaluate(both, {"a": 1 / L, "b": 1 / np.sqrt(L * M)}), "-", color=c, lw=0.8)
        ax.set_title(f"lines: {both['a']:.2g}/L + {both['b']:.2g}/√(LM), R²={both.r2:.2f}", fontsize=7)
        ticks = sorted(err[x].unique())
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(x)
        ax.set_ylabel(label + " at step K")
        ax.legend(loc="lower left", fontsize=6)
    return fig


@plotting.draws("resnet_depth")
def depth(table):
    return {"error_vs_L": _error_panels(table, "resnet_depth", "L", "M")}


@plotting.draws("resnet_width")
def width(table):
    return {"error_vs_M": _error_panels(table, "resnet_width", "M", "L")}


@plotting.draws("resnet_dim")
def dim(table):
    fig, axes = plotting.figure(2, 1)
    slope, both, fitted = analysis.dim_fits(table)
    err = analysis.rms_over_seeds(table, "resnet_dim", "err_h", ["L", "M", "D"]).sort_values("D")
    ax = axes[0]
    metrics = (
        ("err_h", "all coordinates"),
        ("err_h_perp", "⊥ span W_U"),
        ("err_h_span", "span W_U (read out)"),
    )
    for (metric, label), marker in zip(metrics, ("*", "v", "^")):
        e = analysis.rms_over_seeds(table, "resnet_dim", metric, ["D"]).sort_values("D")
        ax.loglog(e["D"], e["value"], marker, label=label)
    L, M = float(err["L"].iloc[0]), float(err["M"].iloc[0])
    D = np.geomspace(fitted["D"].min(), fitted["D"].max(), 50)
    ax.loglog(
        D,
        fit.evaluate(both, {"a": 1 / L, "b": np.sqrt(D / (L * M))}),
        "-",
        lw=0.8,
        label=f"{both['a']:.2g}/L + {both['b']:.2g}√(D/LM) (R²={both.r2:.2f}); slope {slope['slope']:.2f}",
    )
    ax.set_ylabel("RMS error of $h_L$ per coordinate, step K")
    e = analysis.rms_over_seeds(table, "resnet_dim", "err_f", ["D"]).sort_values("D")
    axes[1].loglog(e["D"], e["value"], "*", label="measured")
    axes[1].set_ylabel("RMS output error, step K")
    for ax in axes:
        ax.set_xlabel("D")
        ax.set_title(f"L = {L:g}, M = {M:g}")
        ax.legend()
    return {"error_vs_D": fig}


@plotting.draws("resnet_lazy")
def lazy(table):
    fits, mean = analysis.lazy_fits(table)
    fig, axes = plotting.figure(2, 1)
    panels = {
        "local_update": "local feature movement RMS $\\langle\\Delta u, h\\rangle/D$",
        "lin_dist": "RMS distance to the linearised model",
    }
    for ax, (metric, ylabel) in zip(axes, panels.items()):
        shown = ("lin_dist", "tangent_dist") if metric == "lin_dist" else (metric,)
        for name, color in zip(shown, ("C0", "C1")):
            m, f = mean[name], fits[name]
            label = {"lin_dist": "blockwise (tangent ODE)", "tangent_dist": "full tangent model"}.get(
                name, "measured"
            )
            ax.loglog(m["alpha"], m["value"], "*", color=color, label=label)
            ax.loglog(
                m["alpha"],
                f["prefactor"] * m["alpha"] ** f["slope"],
                "-",
                color=color,
                lw=0.8,
                label=f"fit α^{f['slope']:.2f}",
            )
        ax.set_xlabel("alpha")
        ax.set_ylabel(ylabel + " at step K")
        ax.legend()
    return {"lazy": fig}


@plotting.draws("resnet_phase")
def phase(table):
    exps, mean = analysis.phase_exponents(table)
    fig, (ax_heat, ax_exp) = plotting.figure(2, 1)
    grid = mean.pivot(index="gamma", columns="D", values="value")
    mesh = ax_heat.pcolormesh(
        np.arange(grid.shape[1] + 1), np.arange(grid.shape[0] + 1), np.log10(grid.to_numpy()), cmap="viridis"
    )
    ax_heat.set_xticks(np.arange(grid.shape[1]) + 0.5, [f"{d:g}" for d in grid.columns])
    ax_heat.set_yticks(np.arange(grid.shape[0]) + 0.5, [f"{g:g}" for g in grid.index])
    ax_heat.grid(False)
    ax_heat.set_xlabel("D")
    ax_heat.set_ylabel("gamma (residual scale $D^\\gamma/(LM)$)")
    fig.colorbar(mesh, ax=ax_heat, label="log10 median |local update|")
    gamma_star = fit.zero_crossing(exps["gamma"], exps["exponent"])
    ax_exp.errorbar(exps["gamma"], exps["exponent"], yerr=exps["se"], fmt="*-", lw=0.8, label="exponent in D")
    ax_exp.axhline(0, color="k", lw=0.5)
    ax_exp.axvline(gamma_star, color="C3", lw=0.8, label=f"γ* = {gamma_star:.2f}")
    # Regions named by the measured crossing: exponent > 0 below γ*, < 0 above (lazy).
    lo, hi = exps["gamma"].min(), exps["gamma"].max()
    ax_exp.axvspan(lo, gamma_star, color="C0", alpha=0.06, lw=0)
    ax_exp.axvspan(gamma_star, hi, color="C1", alpha=0.06, lw=0)
    for x, name in (
        ((lo + gamma_star) / 2, "subcritical\n(as σ_v = 0)"),
        (gamma_star, "MLU"),
        ((gamma_star + hi) / 2, "lazy"),
    ):
        ax_exp.annotate(
            name, (x, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom", fontsize=7
        )
    ax_exp.set_xlabel("gamma")
    ax_exp.set_ylabel("exponent of the local update in D")
    ax_exp.legend(loc="upper right")
    return {"phase": fig}
