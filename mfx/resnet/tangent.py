"""The tangent mean ODE: the L, M → ∞ limit of the lazy (alpha → ∞) ResNet (Chizat, Theorem 2).

Chizat's lazy error law bounds the distance of the trained ResNet to this limit by
O(1/alpha + 1/L + alpha/√(LM)).  Its reference here is the blockwise-linearised network of
`model.forward_blockwise_linear` (each block linear in its own parameters, h flowing through
depth) at a large L_ref × M_ref with *paired* units, trained by GD at the mean-field rate.

Why paired units, and what they do to the alpha/√(LM) term.  With paired units
(u_{j+M/2}, v_{j+M/2}) = (u_j, −v_j) the block value Σ_j v_j σ(<u_j, h>/D) vanishes for *every*
h, not only at h_0.  The blockwise model's block then reads
    c [σ(P0(h)) dV + (σ'(P0(h)) ⊙ <dU, h>/D) V0],   c = alpha/(L M),
and with the rate eta·L·M·D/alpha², by induction on the step k, c·dU and c·dV do not depend on
alpha: if they do not at step k, neither does the forward pass nor ∂Loss/∂h; the gradients in
dU, dV are c times alpha-free quantities, the update is (eta L M D/alpha²)·c·(…) ∝ 1/alpha, and
c times it is alpha-free.  So the paired blockwise model is *exactly* independent of alpha
(`limit` runs it at alpha = 1), and its distance to the tangent mean ODE is O(1/L + 1/√(LM)).
With i.i.d. units the term c σ(P0(h)) V0 stays: a sum of L·M independent, zero-mean terms of size
alpha√D/(LM) each, i.e. a random initial residual of RMS alpha·√(D/(LM)) per coordinate of h_L
that training carries along — the alpha/√(LM) term.  Hence the paired initialisation *removes*
the alpha/√(LM) term: a paired network's distance to the limit falls like (a power of) 1/alpha
down to the alpha-free floor O(1/L + 1/√(LM)) and stays there, whereas an i.i.d. network's
distance rises again like alpha/√(LM), with its minimum at alpha* ∝ (LM)^{1/4} when the falling
term is 1/alpha (resnet_lazy measures both inits).
"""

from __future__ import annotations

import torch

from mfx.resnet import model


def is_paired(U, V) -> bool:
    """Whether unit j + M/2 equals (u_j, −v_j) for every j (tensors [S, L, M, D], M even)."""
    M = U.shape[2]
    if M % 2:
        return False
    h = M // 2
    return bool(torch.equal(U[:, :, :h], U[:, :, h:]) and torch.equal(V[:, :, :h], -V[:, :, h:]))


def limit(W_E, W_U, U, V, X, Y, eta=1.0, K=15, sigma="tanh"):
    """Outputs {"f": [S, K+1, N, d_out]} of the tangent-mean-ODE reference: the paired blockwise
    model trained K steps at rate eta·L·M·D (alpha = 1; it does not depend on alpha, see above)."""
    if not is_paired(U, V):
        raise ValueError("the tangent-limit reference needs paired units (draws.units(..., paired=True))")
    return model.train_blockwise_linear(W_E, W_U, U, V, X, Y, 1.0, eta, K, sigma)
