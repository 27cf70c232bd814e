"""The mean ODE of the 2LP ResNet integrated in depth by RK4 over a particle measure: a limit
reference that is not the finite network's code at a larger size (issue 22 §2).

The unit distribution μ_s at depth s ∈ [0, 1] is represented by M_p particles θ_j(s) = (u_j(s),
v_j(s)), stored at the 2·L_r + 1 nodes s_k = k/(2 L_r) of L_r RK4 steps (the midpoints carry the
two middle stages).  At initialisation every node holds the same particles (the i.i.d. init has an
s-independent unit law), so the vector field is smooth in s and RK4 is fourth order in 1/L_r:

    dh/ds = F(h, μ_s) = alpha · (1/M_p) Σ_j v_j(s) σ(<u_j(s), h>/D),      f = W_Uᵀ h(1) / D.

Training is the mean-field GD of the finite network's rate: a unit of an L × M network moves by
−eta·L·M·D/alpha² · ∂Loss/∂θ = −(eta·D/alpha²) · g(θ, s), where ∂Loss/∂θ = g/(L·M) (each unit has
weight 1/(LM)).  A node particle has weight w_k·ds/M_p in the RK4 sum (w_k: 1/6 at the ends, 1/3 at
interior step nodes, 2/3 at midpoints; ds = 1/L_r), so the same velocity is
−(eta·D/alpha²)·M_p/(w_k·ds) · ∂Loss/∂θ_j(s_k).  Gradients are those of the discrete RK4 map
(autograd), whose node gradients approximate g to the order of the scheme.

An L-layer network whose every layer holds the same M_p particles is the Euler scheme of the same
ODE (step 1/L): tests/resnet/test_meanode.py checks that it converges to this reference like 1/L,
after K GD steps, and this reference to itself like 1/L_r⁴.
"""

from __future__ import annotations

import torch

from mfx.resnet import model


def node_weights(L_r: int, dtype=torch.float64, device="cpu") -> torch.Tensor:
    """RK4 quadrature weight w_k of each of the 2·L_r + 1 nodes (Σ_k w_k = L_r)."""
    w = torch.zeros(2 * L_r + 1, dtype=dtype, device=device)
    w[0::2] = 1 / 3
    w[0] = w[-1] = 1 / 6
    w[1::2] = 2 / 3
    return w


def forward(W_E, W_U, U, V, X, alpha, sigma="tanh"):
    """Outputs f [S, N, d_out] and h(1) [S, N, D] of the RK4 scheme; U, V [S, 2·L_r + 1, M_p, D]."""
    nodes, M_p, D = U.shape[1:]
    L_r = (nodes - 1) // 2
    act = model.SIGMAS[sigma][0]
    ds = 1.0 / L_r
    Us, Vs = U.unbind(1), V.unbind(1)

    def F(h, k):
        return (alpha / M_p) * torch.bmm(act(torch.bmm(h, Us[k].transpose(1, 2)) / D), Vs[k])

    h = torch.bmm(X, W_E.transpose(1, 2))
    for step in range(L_r):
        k = 2 * step
        k1 = F(h, k)
        k2 = F(h + 0.5 * ds * k1, k + 1)
        k3 = F(h + 0.5 * ds * k2, k + 1)
        k4 = F(h + ds * k3, k + 2)
        h = h + (ds / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
    return torch.bmm(h, W_U) / D, h


def train(W_E, W_U, U0, V0, X, Y, L_r, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K mean-field GD steps of the particle mean ODE from particles U0, V0 [S, M_p, D] (the same at
    every node).  Returns {"f": [S, K+1, N, d_out], "h_L": [S, K+1, N, D], "loss": [S, K+1],
    "U", "V": [S, 2·L_r + 1, M_p, D] the particles of every node after K steps}."""
    nodes = 2 * L_r + 1
    M_p, D = U0.shape[1:]
    U = U0[:, None].expand(-1, nodes, -1, -1).clone().requires_grad_(True)
    V = V0[:, None].expand(-1, nodes, -1, -1).clone().requires_grad_(True)
    w = node_weights(L_r, U0.dtype, U0.device)
    rate = (eta * D / alpha**2) * M_p * L_r / w  # per node: (eta·D/alpha²)·M_p/(w_k·ds)
    rate = rate[None, :, None, None]
    fs, hs = [], []
    for k in range(K + 1):
        f, h = forward(W_E, W_U, U, V, X, alpha, sigma)
        fs.append(f.detach())
        hs.append(h.detach())
        if k == K:
            break
        gU, gV = torch.autograd.grad(model.loss(f, Y).sum(), (U, V))
        with torch.no_grad():
            U.sub_(rate * gU)
            V.sub_(rate * gV)
    f = torch.stack(fs, 1)
    return {
        "f": f,
        "h_L": torch.stack(hs, 1),
        "loss": model.loss(f, Y[:, None]),
        "U": U.detach(),
        "V": V.detach(),
    }


def tied_units(U0, V0, L):
    """The Euler network of the particle ODE: every one of L layers holds all M_p particles,
    [S, L, M_p, D] each (contiguous, for `model.train`)."""
    return tuple(P[:, None].expand(-1, L, -1, -1).contiguous() for P in (U0, V0))


def at_layers(P, L):
    """Node particles P [S, 2·L_r + 1, M_p, D] read at the inputs s = l/L (l = 0..L−1) of the L layers
    of an Euler network, linearly interpolated between nodes: [S, L, M_p, D].  Layer l + 1 of the
    network applies its units to h_l = h(s = l/L), so its units' limit copies are the particles there."""
    nodes = P.shape[1]
    x = torch.arange(L, dtype=P.dtype, device=P.device) * (nodes - 1) / L
    lo = x.floor().long()
    w = (x - lo)[None, :, None, None]
    return (1 - w) * P[:, lo] + w * P[:, (lo + 1).clamp(max=nodes - 1)]
