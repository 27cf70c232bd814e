"""The 2LP ResNet of science/resnet.md §1.2, its hand-written backward pass and full-batch GD.

Shapes (S = reps/seeds, batched; every rep is an independent network with its own data):
    X    [S, N, d_in]    inputs            Y    [S, N, d_out]  targets
    W_E  [S, D, d_in]    fixed embedding   W_U  [S, D, d_out]  fixed readout
    U, V [S, L, M, D]    unit parameters u_{j,l}, v_{j,l} (init N(0, D·I): entry std √D)

Forward, with c = alpha/(L M):
    h_0 = W_E x,   P_l = <u_{j,l}, h_{l-1}>/D  [S, N, M],   h_l = h_{l-1} + c Σ_j v_{j,l} σ(P_{j,l}),
    f = W_Uᵀ h_L / D,   Loss = (1/(2 N d_out)) Σ_n ‖f(x_n) − y_n‖²  (per rep; reps are independent).
GD on U and V only (W_E, W_U fixed) with the mean-field rate eta·L·M·D/alpha² (science §2), so that
the per-unit step is O(eta) whatever L, M, D and alpha.

The layer dimension is unbound once and the layer loop works on views (no O(L²) indexing
backward); the backward pass is written by hand (as the author's Julia code does) and checked
against autograd and a plain per-rep loop in tests/resnet/test_model.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

SIGMAS = {
    # name: (σ(P), σ'(P) given P and A = σ(P))
    "tanh": (torch.tanh, lambda P, A: 1 - A * A),
    "relu": (torch.relu, lambda P, A: (P > 0).to(P.dtype)),
    "sin": (torch.sin, lambda P, A: torch.cos(P)),
}


@dataclass
class Cache:
    """What the backward pass needs from the forward pass: per layer l = 1..L, h_{l-1}, P_l, σ(P_l)."""

    h: list[torch.Tensor]  # L × [S, N, D]
    P: list[torch.Tensor]  # L × [S, N, M]
    A: list[torch.Tensor]  # L × [S, N, M]
    h_L: torch.Tensor  # [S, N, D]
    sigma: str


def forward(W_E, W_U, U, V, X, alpha, sigma="tanh"):
    """Outputs f [S, N, d_out], final features h_L [S, N, D] and the Cache for `backward`/`jvp`."""
    _, L, M, D = U.shape
    act = SIGMAS[sigma][0]
    c = alpha / (L * M)
    h = torch.bmm(X, W_E.transpose(1, 2))
    hs, Ps, As = [], [], []
    for U_l, V_l in zip(U.unbind(1), V.unbind(1)):
        P = torch.bmm(h, U_l.transpose(1, 2)) / D
        A = act(P)
        hs.append(h)
        Ps.append(P)
        As.append(A)
        h = torch.baddbmm(h, A, V_l, alpha=c)
    f = torch.bmm(h, W_U) / D
    return f, h, Cache(hs, Ps, As, h, sigma)


def loss(f, Y):
    """Per-rep loss (1/(2 N d_out)) Σ ‖f − y‖², shape [S]."""
    N, d_out = Y.shape[-2:]
    return 0.5 * ((f - Y) ** 2).sum(dim=(-2, -1)) / (N * d_out)


def output_grad(f, Y, W_U):
    """∂Loss/∂h_L = (f − Y) W_Uᵀ / (D N d_out), shape [S, N, D]."""
    D = W_U.shape[1]
    N, d_out = Y.shape[-2:]
    return torch.bmm(f - Y, W_U.transpose(1, 2)) / (D * N * d_out)


def backward(cache: Cache, U, V, G_L, alpha):
    """Gradients (∂/∂U, ∂/∂V) [S, L, M, D] of the scalar Σ_s <G_L[s], h_L[s]> (G_L = ∂Loss/∂h_L)."""
    _, L, M, D = U.shape
    dsig = SIGMAS[cache.sigma][1]
    c = alpha / (L * M)
    Us, Vs = U.unbind(1), V.unbind(1)
    gU, gV = [None] * L, [None] * L
    G = G_L
    for l in range(L - 1, -1, -1):
        A = cache.A[l]
        gV[l] = torch.bmm(A.transpose(1, 2), G) * c
        dP = torch.bmm(G, Vs[l].transpose(1, 2)) * dsig(cache.P[l], A) * c  # ∂/∂P_l, [S, N, M]
        gU[l] = torch.bmm(dP.transpose(1, 2), cache.h[l]) / D
        G = torch.baddbmm(G, dP, Us[l], alpha=1 / D)
    return torch.stack(gU, 1), torch.stack(gV, 1)


def jvp(cache: Cache, W_U, U, V, dU, dV, alpha):
    """Directional derivative of f at (U, V) along (dU, dV): [S, N, d_out] (forward-mode, by hand)."""
    _, L, M, D = U.shape
    dsig = SIGMAS[cache.sigma][1]
    c = alpha / (L * M)
    dh = torch.zeros_like(cache.h[0])
    for l, (U_l, V_l, dU_l, dV_l) in enumerate(zip(U.unbind(1), V.unbind(1), dU.unbind(1), dV.unbind(1))):
        dP = (torch.bmm(dh, U_l.transpose(1, 2)) + torch.bmm(cache.h[l], dU_l.transpose(1, 2))) / D
        dA = dsig(cache.P[l], cache.A[l]) * dP
        dh = dh + c * (torch.bmm(dA, V_l) + torch.bmm(cache.A[l], dV_l))
    return torch.bmm(dh, W_U) / D


def learning_rate(L, M, D, alpha, eta):
    """Raw GD rate on U and V: eta·L·M·D/alpha² (science §2)."""
    return eta * L * M * D / alpha**2


def gd_step(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, sigma="tanh"):
    """One full-batch GD step on (U, V) in place at rate eta·L·M·D/alpha²; returns f, h_L before it."""
    _, L, M, D = U.shape
    f, h_L, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    gU, gV = backward(cache, U, V, output_grad(f, Y, W_U), alpha)
    lr = learning_rate(L, M, D, alpha, eta)
    U.sub_(gU, alpha=lr)
    V.sub_(gV, alpha=lr)
    return f, h_L


def train(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K full-batch GD steps on (U, V) from the given initialisation (inputs are not modified).

    Returns a dict with
        f     [S, K+1, N, d_out]  outputs at steps k = 0..K (k = 0: initialisation)
        h_L   [S, K+1, N, D]      final-layer features at every step
        loss  [S, K+1]
        U, V  [S, L, M, D]        the parameters after K steps
    A diverging run is not an error: its values become inf/NaN and are returned as such.
    """
    U, V = U.clone(), V.clone()
    fs, hs = [], []
    for _ in range(K):
        f, h_L = gd_step(W_E, W_U, U, V, X, Y, alpha, eta, sigma)
        fs.append(f)
        hs.append(h_L)
    f, h_L, _ = forward(W_E, W_U, U, V, X, alpha, sigma)
    fs.append(f)
    hs.append(h_L)
    f = torch.stack(fs, 1)
    return {"f": f, "h_L": torch.stack(hs, 1), "loss": loss(f, Y[:, None]), "U": U, "V": V}


def train_tangent(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K GD steps (same rate as `train`) on the tangent model f_lin(θ) = f(θ_0) + J(θ_0)(θ − θ_0).

    This is the network linearised around its initialisation (the "neural tangent" dynamics of
    the lazy regime).  Returns {"f": [S, K+1, N, d_out]}, its outputs at steps 0..K.
    """
    _, L, M, D = U.shape
    lr = learning_rate(L, M, D, alpha, eta)
    f0, _, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    dU, dV = torch.zeros_like(U), torch.zeros_like(V)
    fs = [f0]
    for _ in range(K):
        gU, gV = backward(cache, U, V, output_grad(fs[-1], Y, W_U), alpha)
        dU.sub_(gU, alpha=lr)
        dV.sub_(gV, alpha=lr)
        fs.append(f0 + jvp(cache, W_U, U, V, dU, dV, alpha))
    return {"f": torch.stack(fs, 1)}


def local_updates(W_E, W_U, U0, U, V, X, alpha=1.0, sigma="tanh"):
    """Local feature updates <u_{j,l} − u⁰_{j,l}, h_{l-1}>/D at parameters (U, V): [S, L, N, M].

    The change of each unit's pre-activation caused by its own update (science §4.1), evaluated
    on the current features h_{l-1} of the network (U, V).
    """
    D = U.shape[-1]
    _, _, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    dU = (U - U0).unbind(1)
    return torch.stack([torch.bmm(h, dU_l.transpose(1, 2)) / D for h, dU_l in zip(cache.h, dU)], 1)


def forward_blockwise_linear(W_E, W_U, U0, V0, dU, dV, X, alpha, sigma="tanh"):
    """Outputs [S, N, d_out] of the network whose blocks are linearised in their own parameters.

    Block l is replaced by its first-order expansion around (U0, V0) at the *current* input h:
        h_l = h + c [σ(P0) (V0 + dV_l) + (σ'(P0) ⊙ <dU_l, h>/D) V0],   P0 = <U0_l, h>/D,
    so the model is linear in (dU, dV) layer by layer but h still flows nonlinearly through depth:
    the "neural tangent ODE" that the lazy (alpha → ∞) regime converges to (science §1.1).  With
    L = 1 it is exactly the tangent model f(θ0) + J(θ0)(θ − θ0).  Differentiable by autograd.
    """
    _, L, M, D = U0.shape
    act, dact = SIGMAS[sigma]
    c = alpha / (L * M)
    h = torch.bmm(X, W_E.transpose(1, 2))
    for U_l, V_l, dU_l, dV_l in zip(U0.unbind(1), V0.unbind(1), dU.unbind(1), dV.unbind(1)):
        P0 = torch.bmm(h, U_l.transpose(1, 2)) / D
        A0 = act(P0)
        Q = torch.bmm(h, dU_l.transpose(1, 2)) / D
        h = h + c * (torch.bmm(A0, V_l + dV_l) + torch.bmm(dact(P0, A0) * Q, V_l))
    return torch.bmm(h, W_U) / D


def train_blockwise_linear(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K GD steps (rate of `train`) on the blockwise-linearised network; {"f": [S, K+1, N, d_out]}."""
    _, L, M, D = U.shape
    lr = learning_rate(L, M, D, alpha, eta)
    dU = torch.zeros_like(U, requires_grad=True)
    dV = torch.zeros_like(V, requires_grad=True)
    fs = []
    for k in range(K + 1):
        f = forward_blockwise_linear(W_E, W_U, U, V, dU, dV, X, alpha, sigma)
        fs.append(f.detach())
        if k == K:
            break
        gU, gV = torch.autograd.grad(loss(f, Y).sum(), (dU, dV))
        with torch.no_grad():
            dU.sub_(gU, alpha=lr)
            dV.sub_(gV, alpha=lr)
    return {"f": torch.stack(fs, 1)}
