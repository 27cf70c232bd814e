"""The quadratic family's claim ranges in one table: each entry's tolerance (per scale) and its reason —
the paper statement, the derivation, or the resolution the statistics allow.  Claims read their range
from here (`tol`), never from a literal in the experiment.

Honesty note on history: the tolerances marked "set after quick results" were chosen after looking at
seeds 0–9 (in-sample); the fresh-seed audit (`mfx audit`, seeds 1000+) is the test of them.
"""

from __future__ import annotations

# ------------------------------------------------------------------------- quad_escape and quad_curves
# key: {"tol": {"quick": …, "paper": …}, "reason": …}; relative tolerances say so in the reason.
RANGES = {
    "escape.ode_slope": {
        "tol": {"quick": 0.10, "paper": 0.10},
        "reason": "relative, around the derived slope 1/(8a*t) (p*/8 for the mean readout): the ODE fit "
        "resolves it to < 1e-3; 10 % admits the O(1/ln N) curvature of tau_esc(ln N) at N = 1e3",
    },
    "escape.slope_spread": {
        "tol": {"quick": 0.10, "paper": 0.10},
        "reason": "(max − min)/mean of the ln N slope over p: 'overparameterisation does not change the "
        "time scale' read as < 10 %; a p-dependent escape rate (dropped 2 in dρ/dτ) gives 0.23–0.29",
    },
    "escape.width_shift": {
        "tol": {"quick": (0.0, 1.0), "paper": (0.0, 1.0)},
        "reason": "tau_esc(p=p*) − tau_esc(p=8) in [0, 1] tau-units: 'accelerates the escape only "
        "moderately' read as a non-negative shift smaller than the escape time itself at N = 1e3 (≈ 1.7 p*/2)",
    },
    "escape.sgd_slope": {
        "tol": {"quick": 0.3, "paper": 0.3},
        "reason": "relative SGD/ODE ln N slope: SGD escape times scatter by ±0.5 tau per seed (noise on "
        "ρ ~ N^-1/2); measured SE 0.03–0.07 at 64 seeds; ± 0.3 still fails η/2 (ratio 1.7–1.8); set after "
        "quick results",
    },
    "escape.tau_axis": {
        "tol": {"quick": 0.15, "paper": 0.10},
        "reason": "SGD/ODE escape-time ratio on one tau axis: finite-N SGD escapes 2–4 % earlier than the "
        "ODE (science §3.4); one seed in 10 lay at 0.88 with 16 seeds; set after quick results",
    },
    "escape.xcheck": {
        "tol": {"quick": 0.20, "paper": 0.10},
        "reason": "full SGD / overlap chain: 32 + 32 independent seeds give u ≈ 0.08 at p* = 1 (quick)",
    },
    "escape.sigma_slope": {
        "tol": {"quick": 0.05, "paper": 0.05},
        "reason": "relative, around the derived slope −1/(4a*t) of tau_esc vs ln σ_max(ρ0) "
        "(analysis.escape_theory): exact for p* = 1 (tau_esc is a function of σ_max alone); for p* ≥ 2 "
        "the second singular value biases a pooled fit by ≤ 0.7 % (64-seed probe, seeds 0–63)",
    },
    "escape.sigma_explained": {
        "tol": {"quick": 0.5, "paper": 0.5},
        "reason": "lower bound on the share of the variance of tau_esc over seeds and p (each N) that "
        "ln σ_max(ρ0) explains with the derived slope: the paper's 'maßgeblich' (mainly) read as more "
        "than half (measured at quick, seeds 0–31: 0.94 ± 0.07 at p* = 1, 0.79 ± 0.05 at p* = 2; 8 seeds "
        "gave 0.61 ± 0.15, hence 32 ODE seeds at quick scale); a p-dependent escape rate (dropped 2 on "
        "(aQρ − a*ρT)) gives a negative share",
    },
    "escape.exit_rate": {
        "tol": {"quick": 0.05, "paper": 0.05},
        "reason": "relative, around the derived exit rate 8a*t of ε_pl − ε (analysis.escape_theory), fitted "
        "where ε_pl − ε ∈ EXIT_WINDOW·ε_pl at N ≥ EXIT_MIN_N (below, the norm-learning transient "
        "contaminates the window: +30 % at N = 1e4); the ODE reproduces it to 1 %",
    },
    "escape.exit_rate_spread": {
        "tol": {"quick": 0.05, "paper": 0.05},
        "reason": "(max − min)/mean over p of the exit rate: 'overparameterisation changes only the "
        "prefactor, not the time scale' read as < 5 %, the resolution of the window fit (1 %) with margin",
    },
    "escape.prefactor_ratio": {
        "tol": {"quick": 0.10, "paper": 0.10},
        "reason": "relative, the prefactor per unit ||ρ0||² at p = 8 over p = p* against the derived "
        "a q̄ ratio (p* + 2)/10 (mean readout): the window fit resolves the prefactor to ≈ 5 %",
    },
    "curves.plateau": {
        "tol": {"quick": 0.02, "paper": 0.01},
        "reason": "relative, gradient-flow ODE at the flattest point against the derived ε_pl: at gf_N = "
        "1e6 the flattest point sits < 0.5 % above the plateau",
    },
    "curves.floor": {
        "tol": {"quick": 0.01, "paper": 0.01},
        "reason": "relative, the p < p* limit a*²(p*−p)(p*+2)/(p+2): the ODE reaches it to 4 digits",
    },
    "curves.tail": {
        "tol": {"quick": 0.15, "paper": 0.15},
        "reason": "absolute, around the derived tail slope −2 (science §4.3): the fit over one decade of "
        "tau reads −2.04 (the 1/τ² law's next-order term)",
    },
    "curves.sgd_plateau": {
        "tol": {"quick": 0.10, "paper": 0.05},
        "reason": "relative SGD/ODE plateau level: SE ≈ 0.003 at 32 seeds, N = 1e3; set after quick results",
    },
    "curves.sgd_floor": {
        "tol": {"quick": 0.05, "paper": 0.05},
        "reason": "relative SGD/ODE p < p* limit: SE ≈ 0.003; O(1/N) finite-size shift",
    },
    "curves.tau_axis": {
        "tol": {"quick": 0.15, "paper": 0.10},
        "reason": "SGD/ODE crossing-time ratio on one tau axis: at N = 1000, p < p*, SGD escapes up to "
        "10 % earlier (finite N); set after quick results",
    },
    "curves.xcheck": {
        "tol": {"quick": 0.15, "paper": 0.10},
        "reason": "full SGD / overlap chain crossing times: SE ≈ 0.04 at 32 + 32 seeds, N = 500",
    },
    "curves.final_eps": {
        "tol": {"quick": 1e-3, "paper": 1e-3},
        "reason": "upper bound on ε_g at the fixed read time: below 1/600 of the plateau, and above the "
        "derived gradient-flow tail (p − p*)/(64τ²) ≤ 6.5e-4 at τ = 12 for p ≤ 8",
    },
}

# read times and windows (chosen from the derivation, before data)
CURVES_READ_TAU = 12.0  # SGD ε_g read here (= quad_curves' sgd_tau_max; no stop rule before it)
EXIT_WINDOW = (1e-3, 1e-2)  # ε_pl − ε between these multiples of ε_pl: linear in ρ², after the transient
EXIT_MIN_N = 100_000  # N from which the norm-learning transient (∝ e^-8τ) is out of the window


def tol(key: str, scale: str):
    """The tolerance of claim range `key` at `scale` (quick | paper)."""
    return RANGES[key]["tol"][scale]
