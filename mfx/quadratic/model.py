"""Teacher/student weights, overlaps, the closed-form risk, the plateau and the solution manifold.

Shapes: seeds lead. W [S, p, N], W_star [S, p*, N]; rho [..., p, p*], Q [..., p, p], T [p*, p*].
Overlap functions are numpy float64 and broadcast over leading axes (seeds, times).

Risk (science §2), with c = a tr Q − a* tr T:
    eps_g = c²/2 + a² tr Q² − 2 a a* tr ρᵀρ + a*² tr T²
Plateau (§4.1): ρ = 0, Q = q̄ I with q̄ = a* tr T / (a (p + 2)), eps_pl = (a* tr T)²/(p+2) + a*² tr T².
Solutions (§5.1, T = I): W = s U W*, s = √(a*/a), UᵀU = I_{p*}; closest to init U0 = polar(ρ0).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy import special

from mfx import runtime

READOUTS = ("mean", "sum")
TEACHERS = ("orthonormal", "gaussian")
STUDENTS = ("gaussian", "orthogonal")  # the paper's init is orthogonal students (summary 003 §2)


def readout_scales(p: int, p_star: int, readout: str) -> tuple[float, float]:
    """(a, a*): 1/p, 1/p* for the committee mean, 1, 1 for the plain sum."""
    return (1.0 / p, 1.0 / p_star) if readout == "mean" else (1.0, 1.0)


def teacher_T(p_star: int, anisotropy: float = 0.0) -> np.ndarray:
    """Target teacher Gram T = diag(1 + anisotropy·linspace(1, −1, p*)); identity by default.

    anisotropy = 0.5 at p* = 2 gives T = diag(1.5, 0.5), the control that breaks the conservation law.
    """
    return np.diag(1.0 + anisotropy * np.linspace(1.0, -1.0, p_star)) if p_star > 1 else np.eye(1)


def _orthonormal_rows(G: torch.Tensor) -> torch.Tensor:
    """Rows of G [S, k, N] orthonormalised (QR), scaled to norm √N."""
    q, r = torch.linalg.qr(G.transpose(1, 2))
    q = q * torch.sign(torch.diagonal(r, dim1=1, dim2=2)).unsqueeze(1)  # unique, continuous in G
    return q.transpose(1, 2) * G.shape[-1] ** 0.5


def teacher_weights(N, p_star, seeds, kind="orthonormal", anisotropy=0.0, dtype=torch.float64):
    """W* [S, p*, N]: orthonormal rows of norm √N (T = I exactly) or i.i.d. N(0,1) rows (T ≈ I),
    rows then scaled by √diag(teacher_T) for the anisotropic control."""
    G = runtime.randn((p_star, N), seeds, "quadratic", "teacher", dtype=torch.float64)
    W = _orthonormal_rows(G) if kind == "orthonormal" else G
    scale = torch.from_numpy(np.sqrt(np.diag(teacher_T(p_star, anisotropy))))
    return (W * scale[None, :, None]).to(dtype)


def student_weights(
    N, p, seeds, kind="gaussian", sigma0=1.0, dtype=torch.float64, W_star=None, rho0_scale=1.0
):
    """W0 [S, p, N]: i.i.d. N(0, σ0²) entries (Q0 ≈ σ0² I) or orthogonal rows of norm σ0√N (Q0 = σ0² I;
    their overlap with a teacher drawn independently is random, of order N^-1/2).

    rho0_scale r sizes that overlap: the part of the Gaussian draw in the span of W*'s rows is multiplied
    by r before the rows are orthonormalised, so ρ0 ≈ r·(its r = 1 value) (exactly r for the Gaussian
    kind) and Q0 = σ0² I stays exact for the orthogonal kind; r = 0 makes the students orthogonal to the
    teacher (ρ0 = 0), the ODE's fixed point. r = 1 draws the same numbers as before (W_star unused)."""
    G = runtime.randn((p, N), seeds, "quadratic", "student", dtype=torch.float64)
    if rho0_scale != 1.0:
        G = G - (1.0 - rho0_scale) * _onto_rows(G, W_star.double())
    W = _orthonormal_rows(G) if kind == "orthogonal" else G
    return (sigma0 * W).to(dtype)


def _onto_rows(G: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Projection of the rows of G [S, k, N] onto the span of the rows of V [S, r, N]."""
    coef = torch.linalg.solve(V @ V.transpose(1, 2), V @ G.transpose(1, 2))  # [S, r, k]
    return coef.transpose(1, 2) @ V


def overlaps(W: torch.Tensor, W_star: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """(rho [S, p, p*], Q [S, p, p]) as float64 numpy, from W [S, p, N] and W* [S, p*, N]."""
    N = W.shape[-1]
    W, W_star = W.double(), W_star.double()
    rho = torch.bmm(W, W_star.transpose(1, 2)) / N
    Q = torch.bmm(W, W.transpose(1, 2)) / N
    return rho.numpy(), Q.numpy()


def idealised_init(p, p_star, N, seeds, sigma0=1.0, rho0_scale=1.0):
    """N → ∞ initial condition (science §7b): Q0 = σ0² I, ρ0 = r σ0 G/√N with G i.i.d. N(0,1) [S, p, p*]
    and r = rho0_scale (the orthogonal students' overlap at r = 1)."""
    G = runtime.randn((p, p_star), seeds, "quadratic", "rho0", dtype=torch.float64).numpy()
    Q0 = np.broadcast_to(sigma0**2 * np.eye(p), (len(seeds), p, p)).copy()
    return rho0_scale * sigma0 * G / np.sqrt(N), Q0


def spectrum_init(p, p_star, N, seeds, sigma0=1.0, rho0_scale=1.0, decades=1.0):
    """The idealised init with a controlled spectrum (issue 38 §4): Q0 = σ0² I, ρ0 = c·U diag(s) Vᵀ with U
    [p, p*] and V [p*, p*] Haar (polar factors of Gaussian draws) and singular values s_k = 10^(decades·(u_k − ½)),
    u_k i.i.d. uniform (log-uniform over `decades`, independent across k), so that σ_max, σ_min, ||ρ0||_F and the
    nuclear norm decorrelate; c = r σ0 √(p/(N E s²)) gives E||ρ0||_F² = r²σ0² p p*/N, the idealised init's size
    (E s² = (10^d − 10^-d)/(2 d ln 10)). Needs p ≥ p*."""
    U = stiefel(p, p_star, seeds, "spectrum_U")
    V = stiefel(p_star, p_star, seeds, "spectrum_V")
    z = runtime.randn((p_star,), seeds, "quadratic", "spectrum_s", dtype=torch.float64).numpy()
    s = 10.0 ** (decades * (special.ndtr(z) - 0.5))  # Φ(z) is uniform on (0, 1)
    mean_s2 = (10.0**decades - 10.0**-decades) / (2 * decades * np.log(10.0)) if decades else 1.0
    rho0 = rho0_scale * sigma0 * np.sqrt(p / (N * mean_s2)) * (U * s[:, None, :]) @ V.transpose(0, 2, 1)
    return rho0, np.broadcast_to(sigma0**2 * np.eye(p), (len(seeds), p, p)).copy()


def _tr(A: np.ndarray) -> np.ndarray:
    return np.trace(A, axis1=-2, axis2=-1)


def risk(rho, Q, T, a, a_star) -> np.ndarray:
    """Population risk eps_g = ½ E[(ŷ − y)²] without label noise; broadcasts over leading axes (T may be
    one [p*, p*] matrix or one per seed)."""
    c = a * _tr(Q) - a_star * _tr(T)
    return (
        0.5 * c**2
        + a**2 * np.sum(Q * Q, axis=(-2, -1))
        - 2 * a * a_star * np.sum(rho * rho, axis=(-2, -1))
        + a_star**2 * np.sum(T * T, axis=(-2, -1))
    )


def plateau(p, T, a, a_star) -> tuple[float, float]:
    """(q̄, eps_pl) of the ρ = 0 plateau in the small-η limit."""
    trT = float(np.trace(T))
    q_bar = a_star * trT / (a * (p + 2))
    eps_pl = (a_star * trT) ** 2 / (p + 2) + a_star**2 * float(np.sum(T * T))
    return q_bar, eps_pl


def eps_underparameterized(p, p_star, a_star) -> float:
    """Limit risk for p < p* with T = I: a*² (p* − p)(p* + 2)/(p + 2); zero for p ≥ p*."""
    return a_star**2 * (p_star - p) * (p_star + 2) / (p + 2) if p < p_star else 0.0


def solution_scale(a, a_star) -> float:
    """s = √(a*/a): the zero-loss set is W = s U W* (T = I), i.e. ρ = s U, Q = s² U Uᵀ."""
    return float(np.sqrt(a_star / a))


def polar(rho: np.ndarray) -> np.ndarray:
    """Polar factor ρ(ρᵀρ)^(-1/2) (p ≥ p*) or (ρρᵀ)^(-1/2)ρ (p < p*) = U_svd V_svdᵀ; [..., p, p*]."""
    u, _, vt = np.linalg.svd(rho, full_matrices=False)
    return u @ vt


def stiefel(p, p_star, seeds, stream="stiefel") -> np.ndarray:
    """Uniform random U [S, p, p*] with UᵀU = I (p ≥ p*): baseline points of the solution manifold."""
    G = runtime.randn((p, p_star), seeds, "quadratic", stream, dtype=torch.float64).numpy()
    return polar(G)


def solution_distance(rho, Q, U, s, p_star) -> np.ndarray:
    """||W − s U W*||_F²/N = tr Q − 2 s tr(Uᵀρ) + s² p* for T = I; U broadcasts against rho."""
    return _tr(Q) - 2 * s * np.sum(U * rho, axis=(-2, -1)) + s**2 * p_star


def nearest_solution_distance(rho, Q, s, p_star) -> np.ndarray:
    """min over the manifold: tr Q − 2 s ||ρ||_* + s² p* (nuclear norm; T = I)."""
    nuclear = np.linalg.svd(rho, compute_uv=False).sum(-1)
    return _tr(Q) - 2 * s * nuclear + s**2 * p_star


def escape_time(tau: np.ndarray, eps: np.ndarray, threshold: float) -> np.ndarray:
    """First tau where eps < threshold, per column of eps [K, S] (log-linear interpolation); NaN if never."""
    tau = np.asarray(tau, dtype=float)
    out = np.full(eps.shape[1], np.nan)
    for s in range(eps.shape[1]):
        below = np.flatnonzero(eps[:, s] < threshold)
        if below.size == 0:
            continue
        k = below[0]
        if k == 0:
            out[s] = tau[0]
            continue
        e0, e1 = np.log(eps[k - 1, s]), np.log(eps[k, s])
        out[s] = tau[k - 1] + (np.log(threshold) - e0) / (e1 - e0) * (tau[k] - tau[k - 1])
    return out


def exit_fit(tau: np.ndarray, gap: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """(rate, prefactor) per column of gap [K, S] = ε_pl − ε(τ): least squares of ln gap = ln A + rate·τ
    over the outputs before the gap first exceeds `high` and where it exceeds `low`; NaN with < 3 points."""
    tau = np.asarray(tau, dtype=float)
    rate, pref = np.full(gap.shape[1], np.nan), np.full(gap.shape[1], np.nan)
    for s in range(gap.shape[1]):
        g = gap[:, s]
        above = np.flatnonzero(g > high)
        end = above[0] if above.size else len(g)
        k = np.flatnonzero(g[:end] > low)
        if k.size >= 3:
            rate[s], ln_a = np.polyfit(tau[k], np.log(g[k]), 1)
            pref[s] = np.exp(ln_a)
    return rate, pref
