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


def span_block(rho, Q, T, a, a_star, N) -> tuple[np.ndarray, np.ndarray]:
    """(H [p·d, p·d], C [p, d]): the Hessian on perturbations of the student rows inside the span, in the
    coordinates of `span_coordinates` (row-major flattening of a p × d perturbation), float64."""
    C, C_star = span_coordinates(np.asarray(rho, float), np.asarray(Q, float), np.asarray(T, float))
    p, d = C.shape
    if N < d:
        raise ValueError(f"N = {N} is smaller than the span dimension {d}")
    C_t = torch.tensor(C, dtype=torch.float64)
    C_star_t = torch.tensor(C_star, dtype=torch.float64)
    H = torch.autograd.functional.hessian(
        lambda c: risk_in_span(c.reshape(p, d), C_star_t, a, a_star), C_t.reshape(-1)
    )
    return H.numpy(), C


def bulk_values(Q, T, a, a_star) -> np.ndarray:
    """The p bulk eigenvalues 2a(c + 2a λ_i(Q)), each of multiplicity N − d."""
    c = a * np.trace(Q) - a_star * np.trace(T)
    return 2 * a * (c + 2 * a * np.linalg.eigvalsh(Q))


def spectrum(rho, Q, T, a, a_star, N) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues, multiplicities) of the full p·N × p·N Hessian: span block (multiplicity 1 each)
    then the p bulk values with multiplicity N − d. Float64."""
    H, C = span_block(rho, Q, T, a, a_star, N)
    p, d = C.shape
    block = np.linalg.eigvalsh(H)
    values = np.concatenate([block, bulk_values(Q, T, a, a_star)])
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


# ------------------------------------------------------------------- zero modes at minima training reaches


def tangent_dimension(p: int, p_star: int) -> int:
    """Dimension of the rotation orbit {O V : O ∈ O(p)} through a zero-loss state (p ≥ p*): see
    `zero_mode_split`."""
    return p * p_star - p_star * (p_star + 1) // 2


def overparameterisation_count(p: int, p_star: int, N: int) -> int:
    """Zero modes of the Hessian at a zero-loss state that are not rotations: (p − p*)(N − p*)."""
    return (p - p_star) * (N - p_star)


def rotation_generators(C: np.ndarray) -> np.ndarray:
    """[p·d, p(p−1)/2]: the directions K·C of the rotations O = e^{tK}, K = (e_i e_jᵀ − e_j e_iᵀ)/√2
    (an orthonormal basis of so(p)), flattened like `span_block`'s coordinates."""
    p = C.shape[0]
    columns = []
    for i in range(p):
        for j in range(i + 1, p):
            K = np.zeros((p, p))
            K[i, j], K[j, i] = 1 / np.sqrt(2), -1 / np.sqrt(2)
            columns.append((K @ C).ravel())
    return np.array(columns).T.reshape(C.size, len(columns))


def zero_mode_split(rho, Q, T, a, a_star, N, band: float, cos_min: float) -> dict:
    """Sign counts of the Hessian at a state (ρ, Q, T) near the zero-loss manifold, with its zero
    eigenspace split into the span of the rotation generators and its complement.

    An eigenvalue is zero when |λ| ≤ band·4aa* (4aa*: the smallest non-zero eigenvalue on the manifold,
    science §6.2), negative / positive below / above that band.  Returns the counts n_negative, n_zero,
    n_positive (with multiplicities, over all p·N directions), n_tangent (rotation generators in the zero
    eigenspace), n_extra = n_zero − n_tangent, and lambda_min, zero_max (largest |λ| counted zero) and
    positive_min, all in units of 4aa*.

    Derivation of the counts at a zero-loss state V = s U V* (UᵀU = I_{p*}, T = I, p ≥ p*):
    - With A = a VᵀV − a* V*ᵀV* = 0 and c = 0 the quadratic form is H[E, E] = 4a² tr(VᵀE)² + 2a²|S_E|²,
      S_E = VᵀE + EᵀV, so E is a zero mode iff VᵀE is antisymmetric.  Write E = U F + U_⊥ Y (U_⊥: the
      p − p* columns orthogonal to U).  VᵀE = s V*ᵀF, and V*ᵀF + FᵀV* = 0 forces F = B V* with B ∈ so(p*)
      (the part of F's rows outside span V* would give a symmetric off-diagonal block), while Y ((p − p*)
      × N) is free.  Zero modes: p*(p*−1)/2 + (p − p*)N.
    - The rotations act as E = K V = s(U K₁₁ + U_⊥ K₂₁)V* (K ∈ so(p) in the basis (U, U_⊥)); K₂₂ acts
      on nothing (V has no U_⊥ part).  The orbit's tangent space is {U B V*} ⊕ {U_⊥ Y : rows of Y in
      span V*}: dimension p*(p*−1)/2 + (p − p*)p* = p·p* − p*(p* + 1)/2 = `tangent_dimension` (that of
      the Stiefel manifold, the manifold of solutions).  Every generator is a zero mode: differentiating
      ε(e^{tK}V) = ε(V) in t and then in V gives H·KV = K·∇ε = 0 at a critical point.
    - The complement: U_⊥ Y with rows of Y orthogonal to V*, (p − p*)(N − p*) = `overparameterisation_count`
      directions, 0 at p = p*.  They are flat to fourth order: moving a surplus student row out of the
      teacher space changes ε only through its norm squared (science §4.3, §6.2).
    At a state that training reaches, V is at distance ≈ √α_c from the manifold (α_c: the surplus
    eigenvalue of Q − ρρᵀ); the generators acting on that small surplus part (K₂₂) have ||KV||² ≈ α_c and
    vanish on the manifold: only generators with ||KV||² ≥ band·||Q||₂ span the tangent space (the
    generator matrix is split by its singular values, which are ½·s² or s² for the others).  A generator
    direction lies in the zero eigenspace when its principal cosine with it is ≥ cos_min.  Rotations move V
    inside span{rows of V}, so they live in the span block; the bulk contributes (N − d) zero modes per
    zero bulk value.
    """
    H, C = span_block(rho, Q, T, a, a_star, N)
    p, d = C.shape
    unit = 4 * a * a_star
    w, vec = np.linalg.eigh(H)
    bulk = bulk_values(Q, T, a, a_star)
    values = np.concatenate([w, bulk]) / unit
    mult = np.concatenate([np.ones(w.size, dtype=np.int64), np.full(p, N - d, dtype=np.int64)])
    zero = np.abs(values) <= band
    counts = {
        "n_negative": int(mult[values < -band].sum()),
        "n_zero": int(mult[zero].sum()),
        "n_positive": int(mult[values > band].sum()),
    }
    n_tangent = 0
    if p > 1 and zero[: w.size].any():
        u, sv, _ = np.linalg.svd(rotation_generators(C), full_matrices=False)
        R = u[:, sv**2 >= band * np.linalg.eigvalsh(np.asarray(Q, float)).max()]
        if R.shape[1]:
            cosines = np.linalg.svd(vec[:, zero[: w.size]].T @ R, compute_uv=False)
            n_tangent = int((cosines >= cos_min).sum())
    return dict(
        counts,
        n_tangent=n_tangent,
        n_extra=counts["n_zero"] - n_tangent,
        lambda_min=float(values.min()),
        zero_max=float(np.abs(values[zero]).max()) if zero.any() else 0.0,
        positive_min=float(values[values > band].min()) if (values > band).any() else float("nan"),
    )
