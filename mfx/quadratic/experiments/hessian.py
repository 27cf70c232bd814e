"""F5 (quad_hessian): Hessian spectra at the plateau and at the solution vs the closed forms."""

from __future__ import annotations

import numpy as np

from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.quadratic import hessian, model
from mfx.quadratic.analysis import counts
from mfx.quadratic.experiments.common import BASE_MEMORY, _check_model, _ode, _scale, _seeds, _setup


def run_hessian(cfg):
    """Spectra (value, multiplicity) at the plateau and at the solution the ODE selects, with the
    closed forms of science §6, and the smallest eigenvalue along one ODE trajectory."""
    m = cfg.model
    a, a_star, *_ = _setup(m)
    T = np.eye(m.p_star)
    s = model.solution_scale(a, a_star)
    q_bar, _ = model.plateau(m.p, T, a, a_star)
    coords = {"p": m.p, "p_star": m.p_star, "N": m.N}
    rho0, Q0 = model.idealised_init(m.p, m.p_star, m.N, _seeds(cfg, 1), m.sigma0)
    tau = np.concatenate([[0.0], np.geomspace(1e-2, m.tau_max, m.n_times)])
    rho, Q = _ode(m, rho0, Q0, T, a, a_star, tau, 0.0)
    states = {"plateau": (np.zeros((m.p, m.p_star)), q_bar * np.eye(m.p), hessian.plateau_spectrum)}
    if m.p >= m.p_star:
        U = model.polar(rho[-1, 0])
        states["solution"] = (s * U, s**2 * U @ U.T, hessian.solution_spectrum)
    rows = []
    for state, (r, q, closed_form) in states.items():
        values, mult = hessian.spectrum(r, q, T, a, a_star, m.N)
        for source, spec in (
            ("autograd", hessian.grouped(values, mult, m.group_tol)),
            ("theory", closed_form(m.p, m.p_star, a, a_star, m.N)),
        ):
            for v, k in spec:
                if k > 0:
                    rows.append(
                        dict(
                            state=state, source=source, metric="eigenvalue", value=v, multiplicity=k, **coords
                        )
                    )
    for k in range(len(tau)):
        values, _ = hessian.spectrum(rho[k, 0], Q[k, 0], T, a, a_star, m.N)
        at = dict(state="trajectory", tau=tau[k], **coords)
        rows.append(dict(at, source="autograd", metric="lambda_min", value=values.min()))
        risk = float(model.risk(rho[k, 0], Q[k, 0], T, a, a_star))
        rows.append(dict(at, source="ode", metric="eps", value=risk))
    return rows


def validate_hessian(cfg):
    _check_model(cfg)
    if cfg.model.N < cfg.model.p + cfg.model.p_star:
        raise ConfigError(f"model.N must be ≥ p + p* for the Hessian (got N={cfg.model.N})")
    check(cfg, "model.n_times", int, low=2)
    check(cfg, "model.group_tol", float, low=0, open_low=True)


def claims_hessian(table):
    """Counts and values of the weight-space Hessian (autograd on the span block + the bulk) against the
    closed forms of science §6, at the plateau (ρ = 0, Q = q̄ I) and at the solution the ODE selects.

    Exact checks (u = 0, one state each): they test the risk, the plateau q̄ and the solution scale s
    that the numerics use, since the closed forms are written independently of them."""
    t = table[(table["experiment"] == "quad_hessian") & (table["metric"] == "eigenvalue")]
    scale = _scale(t)
    out = []

    def claim(kind, statement, measured, bound, detail):
        return getattr(Claim, kind)(
            "quad_hessian", statement, measured, bound, detail, u=0.0, how="exact", points=1, seeds=1
        )

    for (p, p_star, state), d in sorted(t.groupby(["p", "p_star", "state"])):
        got, want = d[d["source"] == "autograd"], d[d["source"] == "theory"]
        c_got = counts(got["value"], got["multiplicity"])
        c_want = counts(want["value"], want["multiplicity"])
        N = int(d["N"].iloc[0])
        out.append(
            claim(
                "at_most",
                f"|counts − closed form| at the {state}, p={p}, p*={p_star}",
                float(np.abs(np.subtract(c_got, c_want)).sum()),
                0,
                f"(neg, zero, pos) = {c_got} vs {c_want} at N={N} ({scale})",
            )
        )
        e_got = np.repeat(got["value"].values, got["multiplicity"].astype(int).values)
        e_want = np.repeat(want["value"].values, want["multiplicity"].astype(int).values)
        dev = (
            float(np.abs(np.sort(e_got) - np.sort(e_want)).max())
            if e_got.size == e_want.size
            else float("inf")
        )
        out.append(
            claim(
                "at_most",
                f"max |eigenvalue − closed form| at the {state}, p={p}, p*={p_star}",
                dev,
                1e-8,
                f"{e_got.size} eigenvalues ({scale})",
            )
        )
        if state == "plateau":
            out.append(
                claim(
                    "at_least",
                    f"negative eigenvalues at the plateau, p={p}, p*={p_star}",
                    c_got[0],
                    p * p_star,
                    f"need ≥ p·p* ({scale})",
                )
            )
        else:
            out.append(
                claim(
                    "at_most",
                    f"negative eigenvalues at the solution, p={p}, p*={p_star}",
                    c_got[0],
                    0,
                    f"marginal minimum ({scale})",
                )
            )
    return out


def memory_hessian(cfg) -> float:
    """Peak bytes: the autograd Hessian of the span block, (p·(p + p*))² float64, a few copies; N-free."""
    m = cfg.model
    block = (m.p * (m.p + m.p_star)) ** 2 * 8
    return BASE_MEMORY + 6 * block


register(
    Experiment(
        name="quad_hessian",
        family="quadratic",
        description="Hessian spectra at the plateau and at the solution vs closed form",
        figure="F5",
        run=run_hessian,
        claims=claims_hessian,
        validate=validate_hessian,
        memory=memory_hessian,
        memory_keys="model.p, model.p_star",
    )
)
