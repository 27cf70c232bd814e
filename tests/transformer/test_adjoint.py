import torch

from mfx import runtime
from mfx.transformer import adjoint

DT = torch.float64


def _problem(M=16):
    g = runtime.generator(0, "adjoint-test")
    c = adjoint.curves(3, 2, g)
    X = torch.randn(2, 5, 2, generator=g, dtype=DT)
    q0 = torch.tensor([1.0, 0.5], dtype=DT)
    y = q0 + 0.5 * torch.randn(2, 2, generator=g, dtype=DT)
    return c, torch.cat([q0.expand(2, 1, 2), X], dim=1), y


def test_adjoint_at_depth_zero_is_the_gradient_of_the_risk_in_the_initial_state():
    """a(0) = ∂R/∂Z(0): against central finite differences of the forward solution's risk."""
    c, Z0, y = _problem()
    sol = adjoint.solve(c, Z0, y, 1.0, 16)
    v = torch.randn(Z0.shape, generator=runtime.generator(1, "dir"), dtype=DT)
    eps = 1e-5
    fd = (
        adjoint.solve(c, Z0 + eps * v, y, 1.0, 16)["risk"]
        - adjoint.solve(c, Z0 - eps * v, y, 1.0, 16)["risk"]
    ) / (2 * eps)
    assert torch.allclose((sol["a"][0] * v).sum(), fd, rtol=1e-6, atol=1e-10)


def test_first_variation_gradient_is_the_derivative_along_a_head_perturbation():
    """Adding a head of mass ε at depths [s, s + δ] changes R by ε·δ·⟨a, f_θ⟩ + o(εδ): the gradient G is
    ∇_θ of that first variation, so its V part is ⟨a, ∇Λ⟩-linear: G_V(θ)·V = ⟨a, f_θ⟩ (f linear in V)."""
    c, Z0, y = _problem()
    sol = adjoint.solve(c, Z0, y, 1.0, 16)
    g = runtime.generator(2, "head")
    Q, K, V = (torch.randn(4, 2, 2, generator=g, dtype=DT) for _ in range(3))
    G = adjoint.gradient(c, sol, 5, Q, K, V, 1.0)
    first_variation = (adjoint.head_velocity(Q, K, V, sol["Z"][5], 1.0) * sol["a"][5]).sum((1, 2, 3))
    assert torch.allclose((G["V"] * V).sum((1, 2)), first_variation, rtol=1e-12, atol=1e-14)


def test_first_variation_integrated_in_depth_is_the_derivative_of_the_limit_risk():
    """Moving curve k's mean value by ε·W at every depth changes the limit risk by
    ε·∫₀¹ (1/P)⟨a(s), f_{(Q_k(s), K_k(s), W)}(Z(s))⟩ ds + O(ε²): the adjoint and the first variation
    against central finite differences of the forward solver (trapezoid in s: O(1/M²))."""
    c, Z0, y = _problem()
    M, P, k, eps = 64, c["Q"].shape[1], 1, 1e-5
    sol = adjoint.solve(c, Z0, y, 1.0, M)
    W = torch.randn(2, 2, generator=runtime.generator(3, "W"), dtype=DT)
    terms = []
    for m, s in enumerate(sol["s"].tolist()):
        p = adjoint.at(c, s)
        f = adjoint.head_velocity(p["Q"][k : k + 1], p["K"][k : k + 1], W[None], sol["Z"][m], 1.0)[0]
        terms.append((f * sol["a"][m]).sum() / P)
    predicted = torch.trapezoid(torch.stack(terms), sol["s"])
    risks = []
    for sign in (1, -1):
        moved = {name: v.clone() for name, v in c.items()}
        moved["V"][0, k] += sign * eps * W
        risks.append(adjoint.solve(moved, Z0, y, 1.0, M)["risk"])
    fd = (risks[0] - risks[1]) / (2 * eps)
    assert torch.allclose(predicted, fd, rtol=1e-3), (predicted, fd)
