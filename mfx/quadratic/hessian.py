"""Hessian of the population risk in weight space, without N×N matrices (science §6).

Weights are the O(1)-scaled V = W/√N ∈ R^{p×N} (for raw W divide eigenvalues by N), and
    eps_g(V) = ½ tr(A)² + tr(A²),   A = a VᵀV − a* V*ᵀV*.
The risk depends on V only through its rows' span with V*'s rows. In an orthonormal basis of
span{rows of V, V*} (dimension d ≤ p + p*, from the Gram matrix [[Q, ρ], [ρᵀ, T]]) the p·d "span block"
is the Hessian of the same formula in d dimensions (autograd). Perturbations orthogonal to the span
decouple: their Hessian is 2a(c·I + 2a Q) on each of the N − d orthogonal directions, so the "bulk"
eigenvalues are 2a(c + 2a λ_i(Q)), i = 1..p, each with multiplicity N − d.
"""

from __future__ import annotations

import numpy as np
import torch

RANK_TOL = 1e-12  # relative eigenvalue cut of the Gram matrix that defines the span dimension d


def risk_in_span(C: torch.Tensor, C_star: torch.Tensor, a: float, a_star: float) -> torch.Tensor:
    """eps_g for student rows C [p, d] and teacher rows C* [p*, d] (coordinates in any orthonormal basis)."""
    A = a * C.T @ C - a_star * C_star.T @ C_star
    return 0.5 * torch.trace(A) ** 2 + (A * A).sum()


def span_coordinates(rho, Q, T) -> tuple[np.ndarray, np.ndarray]:
    """(C [p, d], C* [p*, d]) with [C; C*][C; C*]ᵀ = [[Q, ρ], [ρᵀ, T]], d = numerical rank."""
    p = Q.shape[0]
    G = np.block([[Q, rho], [rho.T, T]])
    lam, U = np.linalg.eigh(G)
    keep = lam > RANK_TOL * lam.max()
    X = U[:, keep] * np.sqrt(lam[keep])
    return X[:p], X[p:]


def spectrum(rho, Q, T, a, a_star, N) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues, multiplicities) of the full p·N × p·N Hessian: span block (multiplicity 1 each)
    then the p bulk values with multiplicity N − d. Float64."""
    C, C_star = span_coordinates(np.asarray(rho, float), np.asarray(Q, float), np.asarray(T, float))
    p, d = C.shape
    if N < d:
        raise ValueError(f"N = {N} is smaller than the span dimension {d}")
    C_t = torch.tensor(C, dtype=torch.float64)
    C_star_t = torch.tensor(C_star, dtype=torch.float64)
    H = torch.autograd.functional.hessian(
        lambda c: risk_in_span(c.reshape(p, d), C_star_t, a, a_star), C_t.reshape(-1)
    )
    block = np.linalg.eigvalsh(H.numpy())
    c = a * np.trace(Q) - a_star * np.trace(T)
    bulk = 2 * a * (c + 2 * a * np.linalg.eigvalsh(Q))
    values = np.concatenate([block, bulk])
    mult = np.concatenate([np.ones(block.size, dtype=np.int64), np.full(p, N - d, dtype=np.int64)])
    return values, mult


def grouped(values, mult, tol=1e-8) -> list[tuple[float, int]]:
    """Merge eigenvalues closer than tol: sorted [(value, multiplicity)], zero-multiplicity entries dropped."""
    order = np.argsort(values)
    out: list[list] = []
    for v, m in zip(np.asarray(values)[order], np.asarray(mult)[order]):
        if m == 0:
            continue
        if out and abs(v - out[-1][0]) <= tol:
            out[-1][1] += int(m)
        else:
            out.append([float(v), int(m)])
    return [(v, m) for v, m in out]


def plateau_spectrum(p, p_star, a, a_star, N) -> list[tuple[float, int]]:
    """Closed form at ρ = 0, Q = q̄ I, T = I (science §6.1), as [(eigenvalue, multiplicity)]."""
    q_bar = a_star * p_star / (a * (p + 2))
    return [
        (-4 * a * a_star, p * p_star),
        (0.0, p * (p - 1) // 2 + p * (N - p - p_star)),
        (8 * a**2 * q_bar, p * (p + 1) // 2 - 1),
        (4 * a**2 * q_bar * (p + 2), 1),
    ]


def solution_spectrum(p, p_star, a, a_star, N) -> list[tuple[float, int]]:
    """Closed form on the solution manifold V = s U V*, T = I (science §6.2), as [(eigenvalue, multiplicity)]."""
    return [
        (0.0, p_star * (p_star - 1) // 2 + (p - p_star) * p_star + (p - p_star) * (N - p_star)),
        (4 * a * a_star, p_star * (N - p_star)),
        (8 * a * a_star, p_star * (p_star + 1) // 2 - 1),
        (4 * a * a_star * (p_star + 2), 1),
    ]
