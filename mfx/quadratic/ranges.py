"""The quadratic family's claim ranges, tolerances and windows, fixed before data: one table, a reason each.

Each entry is {"value": …, "why": …}; a value keyed by scale is {"quick": …, "paper": …}.  Claims read
`RANGES[name]["value"]` (through `rng(name, scale)`), so the number a claim tests against is the one
written here, beside its reason.  Never widen an entry to make a claim pass: a failing claim is
information.
"""

from __future__ import annotations

RANGES: dict[str, dict] = {
    # ------------------------------------------------------------------ quad_hessian, quad_implicit_bias,
    # ------------------------------------------------------------------ quad_norms (helper quad-hessian)
    "hessian_exact_tol": {
        "value": 1e-8,
        "why": "constructed states (ρ = 0, Q = q̄ I; V = s U V*) are exact: autograd eigenvalues vs the "
        "closed forms differ by float64 round-off of a (p·d)² Hessian (≈ 1e-12), 1e-8 leaves room",
    },
    "hessian_zero_band": {
        "value": 0.05,
        "why": "an eigenvalue is 'zero' when |λ| ≤ 0.05·4aa* (4aa*: the smallest non-zero eigenvalue on "
        "the manifold, science §6.2), and a rotation generator K·V counts when ||KV||² ≥ 0.05·||Q||₂. "
        "Derivation (hessian.py zero_mode_split): a state training reaches lies at Q_⊥ eigenvalue "
        "β ~ 1/τ from the manifold (p > p*, science §4.3), so its marginal modes sit at O(a/τ): "
        "measured 0.0038·p* of 4aa* at τ = 100 for every p ≤ 8, p* ≤ 3, ODE and SGD alike (paper "
        "scale, seed 0; the formula (p − p* + 2)p*/(16τ) first written here had the wrong p "
        "dependence), and the generators that vanish on the manifold have ||KV||²/||Q|| ≈ β/s² "
        "(≤ 0.004); non-zero eigenvalues stay ≥ 4aa*(1 − O(β)) and non-vanishing generators at ≥ ½ "
        "(unit K): 0.05 sits ≥ 4× from both",
    },
    "hessian_tangent_cos": {
        "value": 0.99,
        "why": "a rotation generator lies in the zero eigenspace when its principal cosine with it is "
        "≥ 0.99: at a critical point H·KV = 0 exactly, off it H·KV = O(|∇ε|) (cosine 1 − O(α_c²))",
    },
    "ib_ode_drift": {
        "value": 1e-9,
        "why": "the ODE conserves polar(ρ) exactly (science §5.3); DOP853 at rtol 1e-10 keeps it to "
        "≈ 1e-12 over τ ≤ 200",
    },
    "ib_ode_final": {
        "value": 1e-6,
        "why": "final polar factor after τ = 200 of integration: round-off accumulated through the "
        "exponential growth of ρ from N^-1/2 (measured ≤ 1e-12; 1e-6 is far from any real drift ≈ 0.1)",
    },
    "ib_exponent_tol": {
        "value": {"quick": 0.25, "paper": 0.15},
        "why": "seed-bootstrap SD of the exponent: ≈ 0.09–0.11 with 96 seeds (quick uses 128, over "
        "g ∈ [0.01, 0.09]), 0.041–0.051 with 256 seeds at p = 2 and 0.02 at p ≥ 3 (paper: 400): the "
        "tolerance is ≈ 2.5 SD at quick, 3 SD at paper scale",
    },
    "ib_selection": {
        "value": 0.4,
        "why": "||ρ_final − s·polar(ρ0)||_F/(s√p*): a random point of the manifold gives ≈ √2 ≈ 1.4 "
        "(two independent Stiefel points), the SGD drift at the smallest g adds ≈ √(g/8a*) ≈ 0.1–0.2 "
        "(science §5.5); 0.4 separates 'the closest solution' from 'some solution' by > 3×",
    },
    "ib_xcheck_tol": {
        "value": {"quick": 0.15, "paper": 0.10},
        "why": "ratio of summed first-crossing times of two independent SGD samples (32 / 64 seeds): "
        "seed SD ≈ 0.05 / 0.035, tolerance ≈ 3 SD",
    },
    "ib_anisotropic_drift": {
        "value": 0.1,
        "why": "with T = diag(1.5, 0.5) the conservation law does not hold (science §5.3 needs T ∝ I): "
        "the polar factor moves by O(1) (science §5.4: 0.64 at (3, 2)); 0.1 is 1e8 above the conserved "
        "ODE's drift and well below the expected O(1)",
    },
    "norms_delta": {
        "value": 0.05,
        "why": "diag Q has 'reached' its fixed point q̄ when every Q_kk is within 5 % of it. Derivation "
        "(norms.py docstring): q − q̄ decays as e^{−κτ} (κ = 4a* tr T) while the ρρᵀ terms push it as "
        "|ρ0|² e^{8a*τ}, so q gets no closer than ≈ |ρ0|^{2κ/(κ+8a*)} (∝ N^-1/2 at p* = 2): measured "
        "1.3 % at N = 1e4, p = 3, p* = 2 (first run, seeds 0–3; 2 % was then never reached at N = 1e3 — "
        "this entry was 0.02 before that run); 5 % is ≥ 3× that floor at N ≥ 1e4 and far from q̄'s O(1) "
        "motion (q0/q̄ − 1 = 0.25–2)",
    },
    "norms_fixed_point_tol": {
        "value": 0.01,
        "why": "relative deviation of the settled diag Q (at its flattest point) from q̄(g) at the largest "
        "N (1e5): the floor above, ≈ 0.4 % at p* = 2 (1.3 %·√(1e4/1e5)), smaller at p* = 3; SGD's "
        "fluctuations √(g/(4N)) ≈ 0.05 %",
    },
    "norms_time_tol": {
        "value": 0.05,
        "why": "relative: the ODE's τ_norm against the derived (1/κ) ln(|1 − q̄/q0|(1 + δ)/δ); the "
        "derivation neglects ρ (O(1/N)) and reads the grid to its spacing (40 points per decade: "
        "≈ 3 % in τ after interpolation ≤ 1 %)",
    },
    "norms_before_escape": {
        "value": 0.5,
        "why": "'well before τ_esc': the seed-median τ_norm/τ_esc at the largest N is at most ½ "
        "(derived: τ_norm is N-free, τ_esc ≈ (p*/8) ln N + C, so the ratio falls as 1/ln N; by the "
        "formulas 0.53/2.9 = 0.18 at p = 3, p* = 2, N = 1e5, δ = 0.05). A seed whose norms never settle "
        "before its escape counts as ratio ∞ (a counterexample, not an exclusion)",
    },
    "norms_rho_slope_tol": {
        "value": {"quick": 0.15, "paper": 0.1},
        "why": "slope of ln |ρ(τ_norm)|_F vs ln N (−½ if ρ stays at its initial order N^-1/2): the "
        "seed-median at 2–3 values of N over one decade; seed SD of the slope ≈ 0.05 expected (16–32 "
        "seeds, |ρ0| of one seed scatters by ≈ 1/√(2pp*) ≈ 30 %)",
    },
}


def rng(name: str, scale: str = "quick"):
    """The value of RANGES[name] (at `scale` when it is keyed by scale)."""
    value = RANGES[name]["value"]
    return value[scale] if isinstance(value, dict) else value
