"""F4 (quad_implicit_bias): the conserved polar factor S = rho(rho^T rho)^(-1/2) and the selection
of the closest solution."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.quadratic import model, sgd
from mfx.quadratic.analysis import sgd_drift_bootstrap_sd, sgd_drift_fits
from mfx.quadratic.experiments.common import _check_model, _long, _ode, _scale, _seeds, _setup, _weights


def _float_list(cfg, key) -> list[float]:
    values = cfg.model[key.split(".")[-1]]
    if not values or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values
    ):
        raise ConfigError(f"{key} must be a non-empty list of numbers > 0 (got {values})")
    return [float(v) for v in values]


def run_implicit_bias(cfg):
    """Conservation of S = polar(ρ) and selection of the closest solution: ODE (T = I, Q0 = σ0² I),
    ODE with an anisotropic teacher (control), SGD at several g (orthonormal student, Q0 = σ0² I)."""
    m = cfg.model
    a, a_star, eta, g, _ = _setup(m)
    T = np.eye(m.p_star)
    s = np.sqrt(a_star / a)
    _, eps_pl = model.plateau(m.p, T, a, a_star)
    coords = {"p": m.p, "p_star": m.p_star}
    seeds = _seeds(m, m.ode_seeds)
    rho0, Q0 = model.idealised_init(m.p, m.p_star, m.N, seeds, m.sigma0)
    tau = np.concatenate(
        [[0.0], np.geomspace(1e-2, m.tau_max, int(m.per_decade * np.log10(m.tau_max / 1e-2)) + 1)]
    )
    U_rand = model.stiefel(m.p, m.p_star, _seeds(m, max(m.ode_seeds, m.sgd_seeds)))
    rows = []

    def metrics(rho, Q, S0):
        return {
            "drift": np.linalg.norm(model.polar(rho) - S0, axis=(-2, -1)),
            "d_closest": model.solution_distance(rho, Q, S0, s, m.p_star),
            "d_nearest": model.nearest_solution_distance(rho, Q, s, m.p_star),
            "d_random": model.solution_distance(rho, Q, U_rand[: S0.shape[0]], s, m.p_star),
            "eps": model.risk(rho, Q, T, a, a_star),
        }

    S0 = model.polar(rho0)
    rho, Q = _ode(m, rho0, Q0, T, a, a_star, tau, g)
    rows.append(_long("ode", tau, g, seeds, metrics(rho, Q, S0), N=m.N, g=g, eta=eta, **coords))
    rows.append(_final_rho_rows("ode", seeds, rho[-1], s * S0, coords, g))
    if m.p_star >= 2:
        Ta = model.teacher_T(m.p_star, m.control_anisotropy)
        rho_a, _ = _ode(m, rho0, Q0, Ta, a, a_star, tau, g)
        drift = np.linalg.norm(model.polar(rho_a) - S0, axis=(-2, -1))
        rows.append(_long("ode_anisotropic", tau, g, seeds, {"drift": drift}, N=m.N, g=g, eta=eta, **coords))

    sgd_seeds = _seeds(m, m.sgd_seeds)
    for gg in m.sgd_g:
        eta_g = gg / a
        W0, W_star = _weights(m, m.N, sgd_seeds, student="orthonormal")
        T_s = model.overlaps(W_star, W_star)[1]

        def settled(rho, Q, T_s=T_s):
            e = model.risk(rho, Q, T_s, a, a_star)
            return bool(np.all((e < m.stop_frac * eps_pl) | ~np.isfinite(e)))

        steps = sgd.log_grid(m.N, m.sgd_tau_max / gg, per_decade=m.per_decade)
        out = sgd.simulate(W0, W_star, sgd_seeds, a, a_star, eta_g, steps, Delta=m.Delta, stop=settled)
        tau_s = out["steps"] / m.N * gg
        S0_s = model.polar(out["rho"][0])
        mets = metrics(out["rho"], out["Q"], S0_s)
        rows.append(_long("sgd", tau_s, gg, sgd_seeds, mets, N=m.N, g=gg, eta=eta_g, **coords))
        rows.append(_final_rho_rows("sgd", sgd_seeds, out["rho"][-1], s * S0_s, coords, gg))
    return pd.concat(rows, ignore_index=True)


def _final_rho_rows(method, seeds, rho_final, rho_pred, coords, g):
    S, p, p_star = rho_final.shape
    entry = np.tile(np.arange(p * p_star), S)
    seed = np.repeat(seeds, p * p_star)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "method": method,
                    "seed": seed,
                    "entry": entry,
                    "g": g,
                    "metric": name,
                    "value": values.reshape(-1),
                    **coords,
                }
            )
            for name, values in (("rho_final", rho_final), ("rho_predicted", rho_pred))
        ],
        ignore_index=True,
    )


def validate_implicit_bias(cfg):
    _check_model(cfg)
    _float_list(cfg, "model.sgd_g")
    check(cfg, "model.sgd_tau_max", float, low=0, open_low=True)
    check(cfg, "model.stop_frac", float, low=0, high=1, open_low=True)
    check(cfg, "model.control_anisotropy", float, low=0, high=0.99, open_low=True)
    check(cfg, "model.per_decade", int, low=2)


IB_TOL = {"exponent": {"quick": 0.25, "paper": 0.15}}


def claims_implicit_bias(table):
    t = table[table["experiment"] == "quad_implicit_bias"]
    scale = _scale(t)
    out = []
    ode_drift = t[(t["method"] == "ode") & (t["metric"] == "drift") & (t["tau"] <= 200)]
    out.append(
        Claim.at_most(
            "quad_implicit_bias",
            "ODE drift ||S(t) − S(0)||_F up to tau = 200",
            float(ode_drift["value"].max()),
            1e-9,
            f"max over {ode_drift['seed'].nunique()} seeds × {ode_drift.groupby(['p', 'p_star']).ngroups} "
            f"(p, p*) × {ode_drift['tau'].nunique()} times ({scale})",
        )
    )
    d = t[(t["method"] == "ode") & (t["metric"] == "drift")]
    final = d[d["tau"] == d.groupby(["p", "p_star"])["tau"].transform("max")]
    out.append(
        Claim.at_most(
            "quad_implicit_bias",
            "ODE final polar factor vs polar(rho0)",
            float(final["value"].max()),
            1e-6,
            f"||polar(rho(tau_end)) − polar(rho0)||_F, worst seed, tau_end = {final['tau'].max():g} ({scale})",
        )
    )
    means = sgd_drift_fits(t, "mean")
    boot_sd = sgd_drift_bootstrap_sd(t)
    for (p, p_star), f in sorted(sgd_drift_fits(t).items()):
        out.append(
            Claim.within(
                "quad_implicit_bias",
                f"SGD drift exponent vs eta, p={p}, p*={p_star}",
                f["slope"],
                0.5,
                IB_TOL["exponent"][scale],
                f"{f.describe('slope')} (seed-median final drift vs g; seed-bootstrap SD "
                f"{boot_sd[(p, p_star)]:.2g}; the seed-mean gives {means[(p, p_star)]['slope']:.3g}) ({scale})",
            )
        )
    d = t[(t["method"] == "ode_anisotropic") & (t["metric"] == "drift")]
    for (p, p_star), x in d.groupby(["p", "p_star"]):
        end = x[x["tau"] == x["tau"].max()]["value"]
        out.append(
            Claim.at_least(
                "quad_implicit_bias",
                f"anisotropic-teacher drift, p={p}, p*={p_star}",
                float(end.median()),
                0.1,
                f"median over {len(end)} seeds at tau = {x['tau'].max():g} ({scale})",
            )
        )
    return out


register(
    Experiment(
        name="quad_implicit_bias",
        family="quadratic",
        description="conserved polar factor S = rho(rho^T rho)^(-1/2) and selection of the closest solution",
        figure="F4",
        run=run_implicit_bias,
        claims=claims_implicit_bias,
        validate=validate_implicit_bias,
    )
)
