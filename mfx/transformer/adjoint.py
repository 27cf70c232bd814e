"""The conditional-Wasserstein gradient of the risk of the infinitely deep and wide transformer, by its
adjoint (Barboni et al., summary: "explizite Formel, die adjungierte Variablen beinhaltet, die durch
rückwärtsgerichtete ODEs gesteuert werden"), written independently of the finite network (`model`).

Parameter measure.  At depth s ∈ [0, 1] the heads' law ρ_s puts weight 1/P on each of P smooth
curves (Q_k(s), K_k(s)), k = 1…P, and draws the value V = V̄_k(s) + σ_V ξ, ξ ~ N(0, I/d), independent
of the rest.  The curves are θ_k(s) = θ_k⁰ + sin(πs)·θ_k¹ (every entry N(0, 1/d)).  Because a head's
velocity is linear in V, the mean-field velocity is exactly the finite sum

    v_s[μ](y) = E_{θ~ρ_s} V ∇Λ_μ(A y) = (1/P) Σ_k V̄_k(s) ∇Λ_μ(A_k(s) y),   A = β KᵀQ,
    ∇Λ_μ(z) = Σ_j softmax_j(⟨z, x_j⟩) x_j   (μ = (1/n) Σ_j δ_{x_j}).

Forward.  The state Z = (q_i, x_i1, …, x_in)_i (query and context tokens of each input i, i.e. the flow
map on the atoms of μ_i) solves dZ/ds = F(s, Z): every token moves with v_s[μ_i(s)], the query too.
Risk R = (1/(2N)) Σ_i |q_i(1) − y_i|².

Backward.  The adjoint a(s) = ∂R/∂Z(s) solves −da/ds = (∂_Z F)ᵀ a, a(1) = ((q_i(1) − y_i)/N, 0).  ∂_Z F
holds the transport term (D_x v)ᵀ p and the interaction (Lions-derivative) term of the neural PDE: a
context token moves every token through the attention weights, so its adjoint collects theirs.

Gradient.  The first variation of R in ρ_s at a head θ is δR/δρ(s, θ) = ⟨a(s), f_θ(Z(s))⟩, f_θ the
velocity of that single head, and the conditional-Wasserstein gradient is G(s, θ) = ∇_θ δR/δρ(s, θ).

Finite network.  L layers × H heads; layer l (Euler step 1/L at s_l = l/L) has H = r·P heads, head h on
curve k = h mod P with V = V̄_k(s_l) + σ_V ξ_{l,h}.  Its per-head gradient L·H·∂R/∂θ_{l,h} (autograd of
`model.forward`) tends to G(s_l, θ_{l,h}): at σ_V = 0 the heads are the measure itself and only the
Euler error of the forward and backward passes remains, O(1/L) (a first-order scheme); at σ_V > 0 the
L·H independent value draws add a mean-zero Monte Carlo error of variance ∝ 1/(LH) (as in E1's width
error), so 𝔼 err² = e_depth(L)² + c + b²/(LH), where c = O(σ_V²·e_depth²), of either sign, does not fall with H
(each head's depth error moves with its own V, and |G| is read at the noisy heads): the experiment reads the
Monte Carlo part against the width-limit network instead (`model.width_limit_forward`).

The reference integrates forward with RK4 on 2·M steps and backward with RK4 on M steps (the forward
half-steps give the states at the RK4 stage points): error O(M⁻⁴).
"""

from __future__ import annotations

import math

import torch


def curves(P: int, d: int, generator: torch.Generator, dtype=torch.float64) -> dict[str, torch.Tensor]:
    """Coefficients θ⁰, θ¹ [P, d, d] of the P head curves θ_k(s) = θ⁰_k + sin(πs) θ¹_k, θ ∈ {Q, K, V}."""
    draw = lambda: torch.randn(2, P, d, d, generator=generator, dtype=dtype) / math.sqrt(d)
    return {name: draw() for name in ("Q", "K", "V")}


def at(c: dict[str, torch.Tensor], s) -> dict[str, torch.Tensor]:
    """(Q_k, K_k, V̄_k)(s) [P, d, d] of the curves at depth s."""
    w = math.sin(math.pi * s)
    return {name: v[0] + w * v[1] for name, v in c.items()}


def head_velocity(Q, K, V, Z: torch.Tensor, beta: float) -> torch.Tensor:
    """f_θ(Z) for heads θ = (Q, K, V) [P, d, d]: [P, N, 1 + n, d], every token of Z [N, 1 + n, d]
    (query first) attending to the context Z[:, 1:] of its input."""
    A = beta * K.transpose(-1, -2) @ Q  # [P, d, d]
    X = Z[:, 1:]
    logits = torch.einsum("pab,nmb,nja->pnmj", A, Z, X)  # ⟨A y, x_j⟩
    tilted = torch.einsum("pnmj,nja->pnma", torch.softmax(logits, dim=-1), X)  # ∇Λ_μ(A y)
    return torch.einsum("pab,pnmb->pnma", V, tilted)


def velocity(c, s: float, Z: torch.Tensor, beta: float) -> torch.Tensor:
    """F(s, Z) = v_s[μ](every token) [N, 1 + n, d]: the mean over the P curves at their mean value V̄."""
    p = at(c, s)
    return head_velocity(p["Q"], p["K"], p["V"], Z, beta).mean(0)


def state_vjp(c, s: float, Z: torch.Tensor, a: torch.Tensor, beta: float) -> torch.Tensor:
    """(∂_Z F(s, Z))ᵀ a: the right-hand side of the adjoint ODE (both the transport and the
    interaction terms, since F sees every token of Z)."""
    _, vjp = torch.func.vjp(lambda Z: velocity(c, s, Z, beta), Z)
    return vjp(a)[0]


def _rk4(f, s: float, y: torch.Tensor, h: float) -> torch.Tensor:
    """One RK4 step of dy/ds = f(s, y, stage) (stage 0, 1, 2: at s, s + h/2, s + h)."""
    k1 = f(s, y, 0)
    k2 = f(s + h / 2, y + h / 2 * k1, 1)
    k3 = f(s + h / 2, y + h / 2 * k2, 1)
    k4 = f(s + h, y + h * k3, 2)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def solve(c, Z0: torch.Tensor, y: torch.Tensor, beta: float, M: int) -> dict[str, torch.Tensor]:
    """Forward states Z(s) and adjoints a(s) on the grid s = m/M, m = 0…M: {"s" [M+1], "Z", "a"
    [M+1, N, 1 + n, d], "yhat" [N, d], "risk"}."""
    h = 1.0 / (2 * M)
    Zs = [Z0]
    for m in range(2 * M):
        Zs.append(_rk4(lambda s, Z, _: velocity(c, s, Z, beta), m * h, Zs[-1], h))
    Zs = torch.stack(Zs)  # on the half grid s = m/(2M)
    N = Z0.shape[0]
    a = torch.zeros_like(Z0)
    a[:, 0] = (Zs[-1][:, 0] - y) / N
    adj = [a]
    H = 2 * h
    for m in range(M, 0, -1):
        # backward in s: da/ds = −(∂F)ᵀ a, stepped from s = m/M to (m−1)/M; stage states from the half grid
        stages = (Zs[2 * m], Zs[2 * m - 1], Zs[2 * m - 2])
        f = lambda s, a, i, stages=stages: -state_vjp(c, s, stages[i], a, beta)
        adj.append(_rk4(f, m * H, adj[-1], -H))
    return {
        "s": torch.arange(M + 1, dtype=Z0.dtype) / M,
        "Z": Zs[::2],
        "a": torch.stack(adj[::-1]),
        "yhat": Zs[-1][:, 0],
        "risk": 0.5 * ((Zs[-1][:, 0] - y) ** 2).sum() / N,
    }


def gradient(c, sol: dict, m: int, Q, K, V, beta: float) -> dict[str, torch.Tensor]:
    """G(s_m, θ) = ∇_θ ⟨a(s_m), f_θ(Z(s_m))⟩ for heads θ = (Q, K, V) [H, d, d] at grid point m."""

    def first_variation(Q, K, V):
        return (head_velocity(Q, K, V, sol["Z"][m], beta) * sol["a"][m]).sum()

    g = torch.func.grad(first_variation, argnums=(0, 1, 2))(Q, K, V)
    return dict(zip("QKV", g))


def finite_heads(c, L: int, H: int, sigma_v: float, seeds, generator_of, dtype=torch.float64):
    """(Q, K, V) [S, L, H, d, d] of the finite network: layer l at s_l = l/L, head h on curve h mod P,
    V = V̄ + σ_V ξ (ξ ~ N(0, I/d) from `generator_of(seed)`)."""
    P, d = c["Q"].shape[1], c["Q"].shape[-1]
    k = torch.arange(H) % P
    layers = [at(c, l / L) for l in range(L)]
    Q, K, V = (torch.stack([p[name][k] for p in layers]) for name in "QKV")
    noise = torch.stack(
        [torch.randn(L, H, d, d, generator=generator_of(s), dtype=dtype) for s in seeds]
    ) / math.sqrt(d)
    S = len(seeds)
    return Q.expand(S, -1, -1, -1, -1), K.expand(S, -1, -1, -1, -1), V + sigma_v * noise
