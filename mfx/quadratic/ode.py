"""Overlap ODEs for (ρ, Q) in tau = a·eta·alpha units (science §3.2), float64, batched over seeds.

    dρ/dτ = −2 [ c ρ + 2 (a Q ρ − a* ρ T) ]
    dQ/dτ = −4 [ c Q + 2 (a Q² − a* ρρᵀ) ] + 4 g Φ
    Φ = Q (2 eps_g + Δ) + 4 c (a Q² − a* ρρᵀ) + 8 [ a² Q³ − a a* (ρρᵀ Q + Q ρρᵀ) + a*² ρ T ρᵀ ]

with c = a tr Q − a* tr T, g = a·eta (g = 0 is gradient flow) and Δ the label-noise variance.
Shapes: rho [B, p, p*], Q [B, p, p], T [p*, p*] or one per seed [B, p*, p*]. `solve` integrates all B seeds as one flattened
state, with scipy's adaptive DOP853 (default) or fixed-step RK4, and returns the state at `tau`.

`method="reduced"` integrates the exact reduction implied by the conservation law (science §5.3): for
T = t·I and Q0 = β0 I + U diag(m0) Uᵀ, where ρ0 = U diag(h0) Vᵀ is the thin SVD (p ≥ p*; the idealised
init has m0 = 0), the solution stays ρ = U diag(h) Vᵀ, Q = β I + U diag(m) Uᵀ with U, V fixed, so only
(β, h, m) — 2p* + 1 numbers per seed instead of p(p + p*) — are integrated, with LSODA: the converged
state is stiff (rates ∝ p/p* for the mean readout), which limits explicit solvers to steps ≲ p*/p, with
    dh/dτ = −2 [c + 2a(β + m) − 2a* t] h
    dβ/dτ = −4 [cβ + 2aβ²] + 4g [β(2ε + Δ) + 4caβ² + 8a²β³]
    dm/dτ = −4 [cm + 2a(2βm + m²) − 2a* h²]
            + 4g [m(2ε + Δ) + 4c(a(2βm + m²) − a* h²) + 8(a²(3β²m + 3βm² + m³) − 2aa*(β + m)h² + a*² t h²)]
(elementwise in the p* directions; c = a(pβ + Σm) − a* p* t). It is exact, not an approximation, but
it builds the conservation law in: the implicit-bias experiment, which tests that law, uses the full system.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from mfx.quadratic import model

METHODS = ("DOP853", "LSODA", "RK4", "reduced")
REDUCED_SOLVER = "LSODA"


def rhs(rho, Q, T, a, a_star, g=0.0, Delta=0.0):
    """(dρ/dτ, dQ/dτ) at the batched state rho [B, p, p*], Q [B, p, p]."""
    c = (a * np.trace(Q, axis1=-2, axis2=-1) - a_star * np.trace(T, axis1=-2, axis2=-1))[:, None, None]
    rr = rho @ rho.transpose(0, 2, 1)
    QQ = Q @ Q
    drho = -2 * (c * rho + 2 * (a * Q @ rho - a_star * rho @ T))
    inner = a * QQ - a_star * rr
    dQ = -4 * (c * Q + 2 * inner)
    if g:
        two_eps = 2 * model.risk(rho, Q, T, a, a_star)[:, None, None] + Delta
        Phi = Q * two_eps + 4 * c * inner
        Phi = Phi + 8 * (
            a**2 * QQ @ Q - a * a_star * (rr @ Q + Q @ rr) + a_star**2 * rho @ T @ rho.transpose(0, 2, 1)
        )
        dQ = dQ + 4 * g * Phi
    return drho, dQ


def solve(rho0, Q0, T, a, a_star, tau, g=0.0, Delta=0.0, method="DOP853", rtol=1e-10, atol=1e-14, dt=1e-2):
    """Integrate from (rho0 [B,p,p*], Q0 [B,p,p]) at tau=0; return (rho [K,B,p,p*], Q [K,B,p,p]) at `tau` [K].

    A state that overflows gives NaN rows from there on (the framework marks them diverged).
    """
    rho0, Q0, T = np.asarray(rho0, float), np.asarray(Q0, float), np.asarray(T, float)
    B, p, p_star = rho0.shape
    n_rho = B * p * p_star
    tau = np.asarray(tau, dtype=float)

    if method == "reduced":
        return _solve_reduced(rho0, Q0, T, a, a_star, tau, g, Delta, rtol, atol)

    def f(_, y):
        drho, dQ = rhs(y[:n_rho].reshape(B, p, p_star), y[n_rho:].reshape(B, p, p), T, a, a_star, g, Delta)
        return np.concatenate([drho.ravel(), dQ.ravel()])

    y0 = np.concatenate([rho0.ravel(), Q0.ravel()])
    with np.errstate(all="ignore"):
        if method == "RK4":
            Y = _rk4(f, y0, tau, dt)
        else:
            sol = solve_ivp(f, (0.0, tau[-1]), y0, method=method, t_eval=tau, rtol=rtol, atol=atol)
            Y = np.full((len(tau), y0.size), np.nan)
            Y[: sol.y.shape[1]] = sol.y.T
    rho = Y[:, :n_rho].reshape(-1, B, p, p_star)
    Q = Y[:, n_rho:].reshape(-1, B, p, p)
    return rho, 0.5 * (Q + Q.transpose(0, 1, 3, 2))


def _rk4(f, y0, tau, dt):
    """Classical RK4 with steps ≤ dt that land exactly on every output time."""
    Y = np.empty((len(tau), y0.size))
    y, t = y0.copy(), 0.0
    for k, t_next in enumerate(tau):
        n = int(np.ceil((t_next - t) / dt - 1e-12))
        h = (t_next - t) / n if n > 0 else 0.0
        for _ in range(n):
            k1 = f(t, y)
            k2 = f(t, y + 0.5 * h * k1)
            k3 = f(t, y + 0.5 * h * k2)
            k4 = f(t, y + h * k3)
            y = y + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        t = t_next
        Y[k] = y
    return Y


def _solve_reduced(rho0, Q0, T, a, a_star, tau, g, Delta, rtol, atol):
    B, p, p_star = rho0.shape
    t = float(T[0, 0])
    if p < p_star or not np.allclose(T, t * np.eye(p_star), rtol=0, atol=1e-14):
        raise ValueError("the reduced ODE needs p ≥ p* and T = t·I")
    U, h0, Vt = np.linalg.svd(rho0, full_matrices=False)  # [B,p,p*], [B,p*], [B,p*,p*]
    m_full = U.transpose(0, 2, 1) @ Q0 @ U
    m_diag = np.diagonal(m_full, axis1=1, axis2=2)
    beta0 = (np.trace(Q0, axis1=1, axis2=2) - m_diag.sum(1)) / (p - p_star) if p > p_star else np.zeros(B)
    m0 = m_diag - beta0[:, None]
    Q_rebuilt = beta0[:, None, None] * np.eye(p) + (U * m0[:, None, :]) @ U.transpose(0, 2, 1)
    if not np.allclose(Q_rebuilt, Q0, rtol=0, atol=1e-12 * max(1.0, np.abs(Q0).max())):
        raise ValueError("the reduced ODE needs Q0 = β0 I + U diag(m0) Uᵀ (e.g. the idealised init)")

    def f(_, y):
        beta, h, m = y[:B], y[B : B + B * p_star].reshape(B, p_star), y[B + B * p_star :].reshape(B, p_star)
        b = beta[:, None]
        c = a * (p * beta + m.sum(1)) - a_star * p_star * t
        two_eps = (
            c**2
            + 2 * a**2 * (p * beta**2 + (2 * b * m + m**2).sum(1))
            - 4 * a * a_star * (h**2).sum(1)
            + 2 * a_star**2 * t**2 * p_star
            + Delta
        )
        cc, e2 = c[:, None], two_eps[:, None]
        dh = -2 * (cc + 2 * a * (b + m) - 2 * a_star * t) * h
        dbeta = -4 * (c * beta + 2 * a * beta**2) + 4 * g * (
            beta * two_eps + 4 * c * a * beta**2 + 8 * a**2 * beta**3
        )
        h2 = h * h
        dm = -4 * (cc * m + 2 * a * (2 * b * m + m**2) - 2 * a_star * h2) + 4 * g * (
            m * e2
            + 4 * cc * (a * (2 * b * m + m**2) - a_star * h2)
            + 8
            * (
                a**2 * (3 * b**2 * m + 3 * b * m**2 + m**3)
                - 2 * a * a_star * (b + m) * h2
                + a_star**2 * t * h2
            )
        )
        return np.concatenate([dbeta, dh.ravel(), dm.ravel()])

    y0 = np.concatenate([beta0, h0.ravel(), m0.ravel()])
    with np.errstate(all="ignore"):
        sol = solve_ivp(f, (0.0, tau[-1]), y0, method=REDUCED_SOLVER, t_eval=tau, rtol=rtol, atol=atol)
    Y = np.full((len(tau), y0.size), np.nan)
    Y[: sol.y.shape[1]] = sol.y.T
    beta = Y[:, :B]
    h = Y[:, B : B + B * p_star].reshape(-1, B, p_star)
    m = Y[:, B + B * p_star :].reshape(-1, B, p_star)
    rho = (U[None] * h[:, :, None, :]) @ Vt[None]
    Q = beta[:, :, None, None] * np.eye(p) + (U[None] * m[:, :, None, :]) @ U.transpose(0, 2, 1)[None]
    return rho, Q


def early_escape_shift(p, p_star, a, a_star, g, t=1.0, sigma0=1.0, rho0_scale=1.0, Delta=0.0, tau_end=10.0):
    """How much earlier (in τ) one-pass SGD at finite N escapes than this ODE from the same initial overlaps:
    the seed mean of τ(ODE) − τ(SGD) at any ε level past the escape, free of N (science §3.4), for T = t·I and
    the init Q0 = σ0² I, ρ0 of i.i.d. entries of variance r²σ0²/N (r = rho0_scale).

    Derivation (the linearised plateau as an SDE, issue 38 §6). While ρ is small, Q = q(τ) I follows this
    ODE at ρ = 0 and every entry of ρ grows at the same rate ρ' = k(τ) ρ (`rhs` is linear in ρ at fixed Q).
    One SGD step moves ρ_km by −(2aη/N)(ŷ − y)λ_k ν_m: mean the ODE's drift, and at ρ = 0 (λ ⟂ ν) a noise
    of variance (4a²η²/N²)·M per step, uncorrelated between entries (odd in λ_k, ν_m), with
        M(q) = E[(ŷ − y)² λ_k² ν_m²] = a²q³t(p+2)(p+4) − 2aa*q²t²(p+2)(p*+2) + a*²qt³(p*+2)(p*+4) + Δqt
    (Gaussian moments E[z₁²(Σ_{j≤p} z_j²)^n] = 1, p + 2, (p + 2)(p + 4)). There are N/(aη) steps per unit τ,
    so ρ gets a diffusion 4gM/N per unit τ (g = aη). With Φ(τ) = exp ∫k, SGD's ρ is Φ(τ)(ρ0 + ξ(τ)) and the
    ODE's Φ(τ)ρ0, where ξ is Gaussian, independent of ρ0, of variance V/N per entry, V = ∫₀^∞ Φ⁻² 4gM dτ
    (finite: Φ grows on the plateau). So SGD leaves the plateau as the ODE from an overlap whose entries
    have variance (r²σ0² + V)/N instead of r²σ0²/N, i.i.d. Gaussian in both cases: any crossing time is
    −ln f(ρ)/(2k̄) + C with f homogeneous of degree 2 (‖ρ‖², σ_max(ρ)², …) and k̄ the plateau rate, and
    E ln f of a Gaussian matrix moves by exactly ln(1 + V/(r²σ0²)) when its variance is scaled by that
    factor. The mean shift is ln(1 + V/(r²σ0²))/(2k̄), whatever the level, N and the statistic f.
    Neglected: Q's own noise, the noise's O(ρ) mean, and O(N^-1/2) corrections to Φ.
    Returns {"shift": τ, "V": V/(r²σ0²) (the noise's share of the effective overlap), "rate": k̄, "q": q̄(g)}.
    """
    T = t * np.eye(p_star)
    eye = np.eye(p)[None]

    def moment(q):
        return (
            a**2 * q**3 * t * (p + 2) * (p + 4)
            - 2 * a * a_star * q**2 * t**2 * (p + 2) * (p_star + 2)
            + a_star**2 * q * t**3 * (p_star + 2) * (p_star + 4)
            + Delta * q * t
        )

    def rates(q):
        k = rhs(np.ones((1, p, p_star)), q * eye, T, a, a_star, g, Delta)[0][0, 0, 0]  # ρ' = k ρ, exactly
        dq = rhs(np.zeros((1, p, p_star)), q * eye, T, a, a_star, g, Delta)[1][0, 0, 0]
        return k, dq

    def f(_, y):
        q, log_phi, _ = y
        k, dq = rates(q)
        return [dq, k, np.exp(-2 * log_phi) * 4 * g * moment(q)]

    sol = solve_ivp(f, (0.0, tau_end), [sigma0**2, 0.0, 0.0], method="LSODA", rtol=1e-9, atol=1e-12)
    q, log_phi, V = sol.y[:, -1]
    k = rates(q)[0]
    V += np.exp(-2 * log_phi) * 4 * g * moment(q) / (2 * k)  # the plateau's tail beyond tau_end
    V /= (rho0_scale * sigma0) ** 2
    return {"shift": float(np.log1p(V) / (2 * k)), "V": float(V), "rate": float(k), "q": float(q)}
