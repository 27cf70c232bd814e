"""Helpers shared by the quadratic family's figure modules: set-up from cfg, data draws, the ODE call,
long rows, and the shared validation.

Rows carry `method` (sgd | ode | ode_g | ode_anisotropic), `seed`, `tau` (= a·eta·alpha), `alpha`,
`p`, `p_star`, `N`, `eta`, `g`, `metric`, `value`. Claims evaluate the collected table; quick-scale
tolerances (wider, still able to fail) and paper tolerances are kept in TOL dicts keyed by scale.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from mfx.experiment import ConfigError, check
from mfx.fit import wilson, wilson_u
from mfx.quadratic import chain, model, ode, sgd

# What the claims test (`source` of each claim): the paper's statements as the summary in
# /work/shared/seeds/003_* gives them (German, quoted, with its section), and the place of the derivations.
SUMMARY = "Bocchi et al. 2604.03068, summary 003"
PAPER = {
    "ode_limit": f"{SUMMARY} §2 Methodik: 'Im hochdimensionalen Limit (N → ∞) konvergieren die stochastischen "
    "SGD-Updates gegen deterministische gewöhnliche Differentialgleichungen (ODEs)' — tested as SGD vs the "
    "ODE at the same g on one τ = aηα axis",
    "moderate": f"{SUMMARY} §3A: 'Überparametrisierung (p > p*) beschleunigt die Flucht aus diesem Plateau "
    "nur moderat' — its direction (p = 8 escapes earlier than p = p*) tested one-sided; 'moderat' has no size "
    "in the summary (the size is derived: the window-shift claim)",
    "time_scale": f"{SUMMARY} §3A: 'Sie ändert nicht die charakteristische Zeitskala (die durch die Komplexität "
    "des Teachers p* bestimmt ist)' — 'bestimmt durch p*' read as: at a fixed width p the exit rate (the inverse "
    "time scale) differs between consecutive p* by more than a margin, the simpler teacher's faster (the size "
    "p*_hi/p*_lo is derived: the exit-rate claim)",
    "sigma_max": f"{SUMMARY} §3A: 'Der Fluchtzeitpunkt wird maßgeblich durch den zufällig größten "
    "Anfangsüberlappungswert bestimmt, nicht durch die Anzahl der Neuronen p' — 'maßgeblich … nicht durch p' "
    "read as: ln σ_max(ρ0), with the derived slope, explains more of τ_esc's variance over seeds and p than p "
    "explains beyond it (no threshold of ours)",
    "sigma_alternatives": f"{SUMMARY} §3A: 'Der Fluchtzeitpunkt wird maßgeblich durch den zufällig größten "
    "Anfangsüberlappungswert bestimmt' — 'the largest' read against the other sizes of the initial overlap: "
    "on ρ0 with a controlled spectrum, ln σ_max(ρ0) explains more of τ_esc's seed-to-seed variance than "
    "ln ‖ρ0‖_F, ln σ_min(ρ0) or ln ‖ρ0‖_* (the trace of a non-square ρ0) does (no threshold of ours)",
    "plateau": f"{SUMMARY} §3A: 'Plateau-Phase: Die Normen sind stabilisiert, aber die Überlappungen ρ sind "
    "noch sehr klein. Das Risiko sinkt kaum'",
    "zero_loss": f"{SUMMARY} §3B–C: for p ≥ p* the zero-loss solutions form a manifold and 'die SGD-Dynamik "
    "konvergiert … zu der Lösung auf der Mannigfaltigkeit' — read as ε_g → 0 by a fixed time",
}
DERIVED = (
    "derivation: mfx/quadratic/analysis.py escape_theory (ODE linearised on the plateau); conventions "
    "chosen here: τ = aηα, T = I, the readout's a, a* (mean: a = 1/p, a* = 1/p*)"
)
FIRST_CROSSING = (
    "the ODE limit (summary §2) read through first-crossing times: finite-N SGD escapes early by an N-free "
    "shift (science §3.4; derived in ode.early_escape_shift and added to SGD's times in quad_curves, held by "
    "the tolerance in quad_escape); their seed spread (the χ² of ln‖ρ0‖²) lets an SGD time axis off by η × 1.1 "
    "pass at paper scale (docs/power.md), so the descent-time (quad_curves) and exit-rate (quad_escape) claims "
    "carry the time axis"
)
XCHECK = "mfx/quadratic/chain.py (exact law of SGD's overlaps) vs mfx/quadratic/sgd.py (N-dim. SGD)"
DERIVED_CURVES = (
    "derivation: science/quadratic.md §4.1 (plateau q̄, ε_pl), §4.3 (p < p* floor, τ^-2 tail), via "
    "model.plateau / model.eps_underparameterized; conventions chosen here: T = I, gradient flow, the "
    "readout's a, a* (mean: a = 1/p, a* = 1/p*)"
)

SGD_DTYPES = {"float32": torch.float32, "float64": torch.float64}
SGD_METHODS = ("overlap", "full")  # the exact overlap Markov chain (step cost free of N) | the N-dim. SGD


def _setup(m):
    """(a, a*, eta, g, T): readout scales, learning rate and its tau-unit version, target teacher Gram."""
    a, a_star = model.readout_scales(m.p, m.p_star, m.readout)
    eta = float(m.eta) if m.eta is not None else float(m.g) / a
    return a, a_star, eta, a * eta, model.teacher_T(m.p_star, m.teacher_anisotropy)


BASE_MEMORY = 400 * 2**20  # a job process with torch, scipy and pandas loaded

SEED_STRIDE = 100_000  # replicate ids of top-level seed k are k·SEED_STRIDE + 0, 1, …: disjoint across k


def _seeds(cfg, n):
    """The n replicate ids of this sweep: every random stream (teacher, student, ρ0, SGD inputs) is keyed
    by one of them (mfx.runtime), so the top-level `seed` shifts them all and rows name their replicate."""
    return [cfg.seed * SEED_STRIDE + i for i in range(n)]


def _weights(m, N, seeds, student=None):
    dtype = SGD_DTYPES[m.sgd_dtype]
    W_star = model.teacher_weights(N, m.p_star, seeds, m.teacher, m.teacher_anisotropy, dtype)
    W0 = model.student_weights(N, m.p, seeds, student or m.init, m.sigma0, dtype, W_star, m.rho0_scale)
    return W0, W_star


def _idealised(m, N, seeds):
    """The ODE's N → ∞ initial condition (model.idealised_init) at this model's σ0 and rho0_scale."""
    return model.idealised_init(m.p, m.p_star, N, seeds, m.sigma0, m.rho0_scale)


def _sgd(m, N, seeds, a, a_star, eta, steps, stop=None, student=None, method=None):
    """One-pass SGD from a fresh initialisation, by `method` (default `model.sgd_method`): the overlap
    chain (chain.py: exactly the law of SGD's overlaps at this N, at a cost free of N) or the full
    N-dimensional simulation (sgd.py). `stop(rho, Q, T)` is checked at logged steps, with each seed's
    teacher Gram T. Returns (out, rho0, Q0, T) with `out` as sgd.simulate's and the initial overlaps."""
    method = method or m.sgd_method
    p = m.p
    if method == "overlap":
        M0 = chain.initial_overlaps(
            seeds,
            p,
            m.p_star,
            N,
            teacher=m.teacher,
            init=student or m.init,
            sigma0=m.sigma0,
            anisotropy=m.teacher_anisotropy,
            rho0_scale=m.rho0_scale,
        ).numpy()
        rho0, Q0, T = M0[:, :p, p:], M0[:, :p, :p], M0[:, p:, p:]
        halt = None if stop is None else (lambda rho, Q: stop(rho, Q, T))
        out = chain.simulate(M0, p, N, seeds, a, a_star, eta, steps, Delta=m.Delta, stop=halt)
        return out, rho0, Q0, T
    W0, W_star = _weights(m, N, seeds, student)
    rho0, Q0 = model.overlaps(W0, W_star)
    T = model.overlaps(W_star, W_star)[1]
    halt = None if stop is None else (lambda rho, Q: stop(rho, Q, T))
    out = sgd.simulate(W0, W_star, seeds, a, a_star, eta, steps, Delta=m.Delta, stop=halt)
    return out, rho0, Q0, T


def _sgd_memory(m, N, seeds, method=None) -> float:
    """Peak bytes of `_sgd`: the full SGD holds W, W* [S, p + p*, N] and an input chunk [S, B, N]; the
    chain only its per-seed draws [S, CHUNK, k]."""
    k = m.p + m.p_star
    if (method or m.sgd_method) == "overlap":
        return seeds * chain.CHUNK * (k + 2) * 8.0
    item = SGD_DTYPES[m.sgd_dtype].itemsize
    return seeds * N * (3 * k + sgd.chunk_steps(N)) * item + 2 * seeds * k * N * 8.0


def _ode(m, rho0, Q0, T, a, a_star, tau, g):
    return ode.solve(
        rho0,
        Q0,
        T,
        a,
        a_star,
        tau,
        g=g,
        Delta=m.Delta,
        method=m.ode_method,
        rtol=m.ode_rtol,
        atol=m.ode_atol,
        dt=m.ode_dt,
    )


def _long(method, tau, rate, seeds, metrics: dict, **coords) -> pd.DataFrame:
    """Long rows from arrays [K, S] (one per metric) over times tau [K] and seeds [S]; alpha = tau/rate."""
    tau = np.asarray(tau, dtype=float)
    K, S = len(tau), len(seeds)
    frames = []
    for name, values in metrics.items():
        frames.append(
            pd.DataFrame(
                {
                    "method": method,
                    "seed": np.tile(np.asarray(seeds), K),
                    "tau": np.repeat(tau, S),
                    "alpha": np.repeat(tau / rate, S),
                    "metric": name,
                    "value": np.asarray(values, dtype=float).reshape(K * S),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    for key, value in coords.items():
        df[key] = value
    return df


def _check_model(cfg, N_values=None):
    m = cfg.model
    check(cfg, "model.family", str, choices=("quadratic",))
    p = check(cfg, "model.p", int, low=1)
    p_star = check(cfg, "model.p_star", int, low=1)
    N = check(cfg, "model.N", int, low=1)
    for n in [N, *(N_values or [])]:
        if p_star > n or p > n:
            raise ConfigError(f"model.p_star and model.p must be ≤ N (got p*={p_star}, p={p}, N={n})")
    check(cfg, "model.readout", str, choices=model.READOUTS)
    if m.eta is None:
        check(cfg, "model.g", float, low=0, open_low=True)
    else:
        check(cfg, "model.eta", float, low=0, open_low=True)
    check(cfg, "model.Delta", float, low=0)
    check(cfg, "model.teacher", str, choices=model.TEACHERS)
    check(cfg, "model.teacher_anisotropy", float, low=0, high=0.99)
    check(cfg, "model.init", str, choices=model.STUDENTS)
    check(cfg, "model.sigma0", float, low=0, open_low=True)
    check(cfg, "model.rho0_scale", float, low=0)
    check(cfg, "model.ode_init", str, choices=("idealised", "matched"))
    check(cfg, "model.ode_method", str, choices=ode.METHODS)
    check(cfg, "model.ode_rtol", float, low=0, open_low=True)
    check(cfg, "model.ode_atol", float, low=0, open_low=True)
    check(cfg, "model.ode_dt", float, low=0, open_low=True)
    check(cfg, "model.ode_seeds", int, low=1)
    check(cfg, "model.sgd_seeds", int, low=1)
    check(cfg, "model.sgd_dtype", str, choices=tuple(SGD_DTYPES))
    check(cfg, "model.tau_max", float, low=0, high=1e4, open_low=True)  # 25× the papers' longest
    check(cfg, "seed", int, low=0)
    check(cfg, "model.sgd_method", str, choices=SGD_METHODS)
    if cfg.runtime.device == "cuda":
        raise ConfigError(
            "runtime.device must be cpu or auto for the quadratic family (its SGD, chain and ODE run on the CPU)"
        )


def _scale(table) -> str:
    return str(table["scale"].iloc[0]) if "scale" in table and len(table) else "quick"


Z95 = 1.959963984540054  # two-sided 95 % normal quantile of the Wilson interval


def agreement(agree) -> dict:
    """`u` and `how` of an exact reading taken on every seed (an integer count, a share of Hessian
    directions): `agree` [seeds] is True where the seed reads the derived value.  The seeds are random draws,
    so the reading's uncertainty is that of the share of draws that would read another value: the Wilson
    interval of k agreeing among n, its half-width over z as u (z/(2(n + z²)) when all agree: 0.2 at n = 1,
    0.08 at 8).  u < ¼ at every n, so a count claim bounded at ½ (an integer: ≤ ½ ⇔ = 0) still fails on one
    seed that misses by 1, as with u = 0."""
    agree = np.asarray(agree, dtype=bool)
    n, k = agree.size, int(agree.sum())
    if n == 0:
        return {"u": float("nan"), "how": "no seed"}
    u, low = wilson_u(k, n, Z95), wilson(k, n, Z95)[0]
    return {"u": float(u), "how": f"{k}/{n} seeds agree (Wilson 95 %: share ≥ {low:.2f})"}
