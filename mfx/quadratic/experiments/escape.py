"""F2-F3 (quad_escape): plateau escape time vs ln N, p and p*: ODE and SGD."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.quadratic import model, sgd
from mfx.quadratic.analysis import _median_offset, _ok, escape_slopes
from mfx.quadratic.experiments.common import _check_model, _long, _ode, _scale, _seeds, _setup, _weights


def _int_list(cfg, key, low=1) -> list[int]:
    values = cfg.model[key.split(".")[-1]]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values):
        raise ConfigError(f"{key} must be a non-empty list of integers ≥ {low} (got {values})")
    return list(values)


def run_escape(cfg):
    """Escape times (first tau with eps_g < eps_pl/2) vs N: ODE (gradient flow `ode`, and at the SGD
    learning rate `ode_g`) from the idealised init, and SGD (where enabled)."""
    m = cfg.model
    a, a_star, eta, g, T = _setup(m)
    _, eps_pl = model.plateau(m.p, T, a, a_star)
    threshold = 0.5 * eps_pl
    coords = {"p": m.p, "p_star": m.p_star, "eta": eta, "g": g, "eps_pl": eps_pl}
    run_sgd = m.p == m.p_star or not m.sgd_diagonal
    N_all = sorted(set(m.ode_N) | (set(m.sgd_N) if run_sgd else set()))
    seeds = _seeds(m, m.ode_seeds)
    inits = [model.idealised_init(m.p, m.p_star, N, seeds, m.sigma0) for N in N_all]
    rho0 = np.concatenate([r for r, _ in inits])
    Q0 = np.concatenate([q for _, q in inits])
    tau = np.arange(0.0, m.tau_max + 1e-9, m.tau_step)
    rows = []
    t_esc_g = {}
    for method, gg in (("ode", 0.0), ("ode_g", g)):
        rho, Q = _ode(m, rho0, Q0, T, a, a_star, tau, gg)
        eps = model.risk(rho, Q, T, a, a_star)
        t_esc = model.escape_time(tau, eps, threshold).reshape(len(N_all), len(seeds))
        for i, N in enumerate(N_all):
            if method == "ode" and N not in m.ode_N:
                continue
            if method == "ode_g":
                t_esc_g[N] = t_esc[i]
            rows.append(_escape_rows(method, N, seeds, t_esc[i], coords))
            if method == "ode":
                keep = slice(0, len(tau), m.keep_every)
                cols = slice(i * len(seeds), i * len(seeds) + m.keep_seeds)
                rows.append(
                    _long(
                        method, tau[keep], g, seeds[: m.keep_seeds], {"eps": eps[keep, cols]}, N=N, **coords
                    )
                )
    if run_sgd:
        sgd_seeds = _seeds(m, m.sgd_seeds)
        for N in m.sgd_N:
            ode_esc = t_esc_g[N][np.isfinite(t_esc_g[N])]
            horizon = (
                min(m.tau_max, m.sgd_horizon_factor * ode_esc.max() + 1.0) if ode_esc.size else m.tau_max
            )
            W0, W_star = _weights(m, N, sgd_seeds)
            T_s = model.overlaps(W_star, W_star)[1]

            def escaped(rho, Q, T_s=T_s):
                e = model.risk(rho, Q, T_s, a, a_star)
                return bool(np.all((e < threshold) | ~np.isfinite(e)))

            lin = np.arange(0.0, horizon + 1e-9, m.tau_step_sgd)
            steps = np.unique(
                np.concatenate([sgd.log_grid(N, horizon / g, 10), np.round(lin / g * N).astype(np.int64)])
            )
            out = sgd.simulate(W0, W_star, sgd_seeds, a, a_star, eta, steps, Delta=m.Delta, stop=escaped)
            tau_s = out["steps"] / N * g
            eps = model.risk(out["rho"], out["Q"], T_s, a, a_star)
            rows.append(_escape_rows("sgd", N, sgd_seeds, model.escape_time(tau_s, eps, threshold), coords))
            # the ODE from each SGD run's own W0 (matched init): the seed-to-seed spread of tau_esc, set by
            # rho0 (±0.5 tau at p* = 2), cancels in SGD − ODE, so a few SGD seeds measure the offset and trend
            rho_m, Q_m = _ode(m, *model.overlaps(W0, W_star), T_s, a, a_star, tau, g)
            eps_m = model.risk(rho_m, Q_m, T_s, a, a_star)
            rows.append(
                _escape_rows("ode_matched", N, sgd_seeds, model.escape_time(tau, eps_m, threshold), coords)
            )
            keep = slice(0, len(tau_s), max(1, len(tau_s) // 80))
            rows.append(_long("sgd", tau_s[keep], g, sgd_seeds, {"eps": eps[keep]}, N=N, **coords))
    return pd.concat(rows, ignore_index=True)


def _escape_rows(method, N, seeds, t_esc, coords):
    df = pd.DataFrame(
        {"method": method, "seed": seeds, "N": N, "metric": "tau_esc", "value": t_esc, **coords}
    )
    df["status"] = np.where(np.isfinite(t_esc), "ok", "no_escape")
    return df


def validate_escape(cfg):
    ode_N = _int_list(cfg, "model.ode_N")
    sgd_N = _int_list(cfg, "model.sgd_N")
    _check_model(cfg, ode_N + sgd_N)
    check(cfg, "model.tau_step", float, low=0, open_low=True)
    check(cfg, "model.tau_step_sgd", float, low=0, open_low=True)
    check(cfg, "model.sgd_diagonal", bool)
    check(cfg, "model.sgd_horizon_factor", float, low=1)
    check(cfg, "model.keep_every", int, low=1)
    check(cfg, "model.keep_seeds", int, low=1)


ESCAPE_TOL = {
    "slope": {"quick": 0.10, "paper": 0.10},
    "spread": {"quick": 0.10, "paper": 0.10},
    "sgd_slope": {"quick": 0.5, "paper": 0.3},
}


def claims_escape(table):
    t = table[table["experiment"] == "quad_escape"]
    scale = _scale(t)
    out = []
    slopes = escape_slopes(t, "ode")
    med = _ok(t, metric="tau_esc", method="ode").groupby(["p_star", "p", "N"])["value"].median()
    for p_star in sorted({ps for ps, _ in slopes}):
        per_p = {p: f for (ps, p), f in slopes.items() if ps == p_star and p >= p_star}
        if not per_p:
            continue
        values = np.array([f["slope"] for f in per_p.values()])
        detail = ", ".join(f"p={p}: {f.describe('slope')}" for p, f in sorted(per_p.items()))
        out.append(
            Claim.within(
                "quad_escape",
                f"ODE slope of tau_esc vs ln N, p*={p_star} (mean over p ≥ p*)",
                values.mean(),
                p_star / 8,
                ESCAPE_TOL["slope"][scale],
                f"{detail} ({scale})",
                relative=True,
            )
        )
        out.append(
            Claim.at_most(
                "quad_escape",
                f"spread of the slope over p, p*={p_star}",
                float(np.ptp(values) / values.mean()),
                ESCAPE_TOL["spread"][scale],
                f"(max − min)/mean over p ∈ {sorted(per_p)} ({scale})",
            )
        )
        N_top = max(n for (ps, p, n) in med.index if ps == p_star)
        if (p_star, p_star, N_top) in med.index and (p_star, 8, N_top) in med.index:
            shift = med[(p_star, p_star, N_top)] - med[(p_star, 8, N_top)]
            out.append(
                Claim.within(
                    "quad_escape",
                    f"tau_esc(p=p*) − tau_esc(p=8), p*={p_star}, N={N_top}",
                    shift,
                    0.5,
                    0.5,
                    "a modest acceleration: 0 ≤ shift ≤ 1 tau-unit" + f" ({scale})",
                )
            )
    sgd_slopes = escape_slopes(t, "sgd")
    matched = escape_slopes(t, "ode_matched")
    ode_g = escape_slopes(t, "ode_g")
    esc = _ok(t, metric="tau_esc")
    for key, f in sorted(sgd_slopes.items()):
        ref = ode_g[key]["slope"]
        pair = esc[(esc["p_star"] == key[0]) & (esc["p"] == key[1])]
        diff = (
            pair[pair["method"] == "sgd"].set_index(["N", "seed"])["value"]
            - pair[pair["method"] == "ode_matched"].set_index(["N", "seed"])["value"]
        ).dropna()
        out.append(
            Claim.within(
                "quad_escape",
                f"SGD slope of tau_esc vs ln N, p*={key[0]}, p={key[1]}",
                f["slope"],
                ref,
                ESCAPE_TOL["sgd_slope"][scale],
                f"{f.describe('slope')}; idealised-init ODE at the same g: {ref:.3g} (matched-init ODE: "
                f"{matched[key]['slope'] if key in matched else float('nan'):.3g}); offset SGD − matched ODE = {diff.mean():+.3f} ± {diff.std():.3f} "
                f"tau (mean ± sd over {len(diff)} runs, N ∈ {sorted(diff.index.get_level_values(0).unique())}); "
                f"offset of medians vs the idealised ODE = {_median_offset(esc, key):+.3f} ({scale})",
                relative=True,
            )
        )
    return out


register(
    Experiment(
        name="quad_escape",
        family="quadratic",
        description="plateau escape time vs ln N, p and p*: ODE and SGD",
        figure="F2-F3",
        run=run_escape,
        claims=claims_escape,
        validate=validate_escape,
    )
)
