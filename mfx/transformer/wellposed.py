"""Well-posedness of the forward pass and of the gradient flow, numerically (issue 39 §1–2).

Forward.  A parameter measure ρ_s of H smooth head curves θ_h(s) (`adjoint.curves`, with a mean value
v̄·I added to every V so that the limit's velocity is O(1), not O(H^(−1/2))) defines the depth ODE
dZ/ds = F(s, Z) of the tokens and the query (`adjoint.velocity`).  The L-layer network with head h of
layer l at θ_h(l/L) (`model.forward`) is its explicit Euler scheme, a first-order method: its output
differs from the ODE's (integrated here by RK4 on M steps, a different code path) by C_H/L, where C_H
depends on the measure only through F and its derivatives, which converge as H → ∞ (law of large
numbers over the curves) — so the error is uniform in H.  Stability: for clouds X and X' = X + δξ
(every atom moved, RMS displacement δ per input, so W2(μ_i, μ'_i) ≤ δ, with equality for δ small against
the atoms' spacing) the outputs differ by ≤ Lip·δ; Lip of the Euler map is bounded by exp(∫ Lip F ds)
whatever L and H, so its measured ratio stays bounded over an (L, H) grid.  A residual scale missing
its 1/H (or any H^a too large) multiplies F by H^a and Lip grows with H; one missing its 1/L makes the
scheme integrate to depth L instead of 1.

Gradient flow.  GD with lr η·L·H is the explicit Euler scheme in flow time of dθ/dt = −L·H·∇_θR(θ) (the
particle form of the conditional-Wasserstein flow, science §2.2): at a fixed time T its output differs
from the flow's (RK4 in t on M steps) by O(η) — one curve, reached at first order as η → 0.  Two
independent samplings of the initial law (E V = 0) follow curves whose trained change ŷ(T) − ŷ(0) is a
smooth functional of the L·H i.i.d. heads' empirical measure: their difference is a mean-zero Monte Carlo
error ∝ (L·H)^(−1/2), so the curves tend to one limit curve as H grows.
"""

from __future__ import annotations

import torch

from mfx.transformer import adjoint, model


def curves(H: int, d: int, v_mean: float, generator: torch.Generator, dtype=torch.float64) -> dict:
    """H head curves θ_h(s) = θ⁰_h + sin(πs)·θ¹_h (`adjoint.curves`) with v_mean·I added to every V⁰."""
    c = adjoint.curves(H, d, generator, dtype=dtype)
    c["V"][0] = c["V"][0] + v_mean * torch.eye(d, dtype=dtype)
    return c


def rk4_flow(c: dict, Z0: torch.Tensor, beta: float, M: int) -> torch.Tensor:
    """Z(1) [N, 1 + n, d] of dZ/ds = F(s, Z) by RK4 on M steps (the reference of the depth ODE)."""
    h = 1.0 / M
    Z = Z0
    for m in range(M):
        Z = adjoint._rk4(lambda s, Z, _: adjoint.velocity(c, s, Z, beta), m * h, Z, h)
    return Z


def euler_outputs(c: dict, L: int, X: torch.Tensor, q0: torch.Tensor, beta: float) -> torch.Tensor:
    """ŷ [N, d] of the L-layer network whose layer l holds the H curves at s = l/L (its Euler scheme)."""
    H = c["Q"].shape[1]
    Q, K, V = adjoint.finite_heads(
        c, L, H, 0.0, [0], lambda s: torch.Generator().manual_seed(0), dtype=X.dtype
    )
    return model.forward(Q, K, V, X, q0, beta=beta)[0]


def perturbation(X: torch.Tensor, delta: float, generator: torch.Generator) -> torch.Tensor:
    """δξ [N, n, d] with RMS displacement exactly δ per input (so W2(μ_i, μ_i + δξ) ≤ δ)."""
    xi = torch.randn(X.shape, generator=generator, dtype=X.dtype)
    return delta * xi / xi.pow(2).sum(-1).mean(-1).sqrt()[:, None, None]


def flow_rk4(Q, K, V, X, q0, y, *, T: float, M: int, beta: float = 1.0, stiffness: int = 0):
    """ŷ(T) [S, N, d] of the gradient flow dθ/dt = −L·H·∇_θR(θ) by RK4 in t on M steps.  With `stiffness`
    = k > 0 also λ [S]: per seed, the largest |eigenvalue| of the flow's Jacobian L·H·∇²R over the nodes
    t = 0, kh, 2kh, … ≤ T (`top_curvature`), returned as (ŷ(T), λ)."""
    L, H = Q.shape[1], Q.shape[2]

    def f(_s, theta, _stage):
        params = [p.detach().requires_grad_(True) for p in theta.unbind(0)]
        R = model.loss(model.forward(*params, X, q0, beta=beta), y).sum()
        return -L * H * torch.stack(torch.autograd.grad(R, params))

    theta = torch.stack([Q, K, V])
    h = T / M
    lam, v = None, None
    for m in range(M + 1):
        if stiffness and m % stiffness == 0:
            now, v = top_curvature(theta, X, q0, y, beta, v)
            lam = now if lam is None else torch.maximum(lam, now)
        if m < M:
            theta = adjoint._rk4(f, m * h, theta, h)
    with torch.no_grad():
        out = model.forward(*theta.unbind(0), X, q0, beta=beta)
    return (out, lam) if stiffness else out


def step_grid(etas, lam: float, regime: float, points: int, halvings: int) -> list[float]:
    """`etas`, and below the smallest the halvings (at most `halvings`) needed for `points` of them to lie in the
    first-order window η·λ ≤ regime: a stiff flow (large λ) gets the small steps its window asks for."""
    out = sorted(etas, reverse=True)
    for _ in range(halvings):
        if sum(e * lam <= regime for e in out) >= points:
            break
        out.append(out[-1] / 2)
    return out


def top_curvature(theta, X, q0, y, beta: float, v=None, iters: int = 30):
    """Per seed, the largest |eigenvalue| of L·H·∇²R at θ = (Q, K, V) [3, S, L, H, d, d] by power iteration
    on Hessian-vector products (the seeds' losses are summed, so the Hessian is block diagonal: one
    iteration per block); `v` warm-starts it (the previous node's vector).  Returns (λ [S], v)."""
    L, H = theta.shape[2], theta.shape[3]
    t = theta.detach().requires_grad_(True)
    R = model.loss(model.forward(*t.unbind(0), X, q0, beta=beta), y).sum()
    (g,) = torch.autograd.grad(L * H * R, t, create_graph=True)
    dims = (0, 2, 3, 4, 5)
    if v is None:
        v = torch.ones_like(theta) + 0.1 * torch.linspace(-1, 1, theta.numel(), dtype=theta.dtype).view_as(
            theta
        )
    for _ in range(iters):
        v = v / v.pow(2).sum(dims, keepdim=True).sqrt()
        (hv,) = torch.autograd.grad(g, t, v, retain_graph=True)
        lam, v = (hv * v).sum(dims).abs(), hv
    return lam.detach(), v.detach()


def rms(x: torch.Tensor, dims) -> torch.Tensor:
    return x.pow(2).sum(-1).mean(dims).sqrt() if dims else x.pow(2).sum(-1).sqrt()
