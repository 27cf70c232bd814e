"""Attention-only residual transformer with L layers × H heads in the mean-field scaling, batched over seeds.

Shapes: parameters Q, K, V [S, L, H, d, d] (S seeds); token clouds X [N, n, d] (shared by the seeds)
or [S, N, n, d]; query token q0 [d]; outputs ŷ [S, N, d].

Layer l (science §1.3), every context token x and the query q of every input i:

    x ← x + (1/(L·H)) Σ_h V_h Σ_j softmax_j(β⟨Q_h x, K_h x_j⟩) x_j  =  x + (1/(L·H)) Σ_h V_h ∇Λ_μ(A_h x),

with A_h = β K_hᵀ Q_h and μ the current context cloud (the query attends to the context; the context
never attends to the query, as in the mean-field limit).  Readout `query`: ŷ_i = final query;
`mean`: ŷ_i = mean of the final context, which is 0 for every parameter on symmetric clouds (odd
equivariance, science §1.5).  Loss R = (1/(2N)) Σ_i |ŷ_i − y_i|² per seed.

Training is full-batch GD with learning rate η·L·H (the particle discretisation of the conditional
Wasserstein gradient flow, science §2.2), so step k is flow time t = k·η whatever L and H.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch.utils.checkpoint import checkpoint as _checkpoint

from mfx import runtime

READOUTS = ("query", "mean")
TRAIN = ("qkv", "qk", "v")
V_INIT = ("gauss", "zero")


def residual_scale(L: int, H: int) -> float:
    """1/(L·H): Euler step 1/L in depth times the mean over the H heads (science §1.3)."""
    return 1.0 / (L * H)


def learning_rate(eta: float, L: int, H: int) -> float:
    """η·L·H: GD on the L·H particles in flow time t = k·η (science §2.2)."""
    return eta * L * H


def init_params(
    L: int,
    H: int,
    d: int,
    seeds: Sequence[int],
    *,
    s_qk: float = 1.0,
    s_v: float = 1.0,
    v_init: str = "gauss",
    stream: Sequence = (),
    dtype=torch.float64,
    device="cpu",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(Q, K, V) [S, L, H, d, d], i.i.d. entries N(0, s²/d), the same law at every layer (science §1.4).

    `v_init="zero"` makes the network exactly the identity at initialisation.
    """
    shape = (L, H, d, d)
    kw = {"dtype": dtype, "device": device}
    Q = runtime.randn(shape, seeds, "transformer", *stream, "Q", **kw) * (s_qk / math.sqrt(d))
    K = runtime.randn(shape, seeds, "transformer", *stream, "K", **kw) * (s_qk / math.sqrt(d))
    if v_init == "zero":
        V = torch.zeros((len(seeds), *shape), **kw)
    else:
        V = runtime.randn(shape, seeds, "transformer", *stream, "V", **kw) * (s_v / math.sqrt(d))
    return Q, K, V


def _attend(A: torch.Tensor, V: torch.Tensor, Z: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """Σ_h V_h ∇Λ_μ(A_h z) for points Z [S, N, m, d] attending to clouds X [S, N, n, d] → [S, N, m, d].

    A, V [S, H, d, d].  The heads are folded into the batched matmuls (one bmm per product).
    """
    S, N, m, d = Z.shape
    H = A.shape[1]
    AZ = torch.einsum("shab,snmb->snahm", A, Z).reshape(S, N, d, H * m)
    # logits with the n keys on dim −2: softmax over a short last dim (n = 8) is ~6× slower on the CPU
    P = torch.softmax(X @ AZ, dim=-2)  # [S, N, n, H·m]: tilted weights of each (head, point)
    M = (P.transpose(-1, -2) @ X).reshape(S, N, H, m, d)  # ∇Λ_μ(A_h z): tilted means
    return torch.einsum("shab,snhmb->snma", V, M)


def _layer(A, V, X, q, scale: float, update_context: bool):
    if update_context:
        # the query and the context tokens attend to the same keys: one batched call for both
        dZ = _attend(A, V, torch.cat([q.unsqueeze(2), X], dim=2), X)
        return X + scale * dZ[:, :, 1:], q + scale * dZ[:, :, 0]
    return X, q + scale * _attend(A, V, q.unsqueeze(2), X).squeeze(2)


def forward(
    Q: torch.Tensor,
    K: torch.Tensor,
    V: torch.Tensor,
    X: torch.Tensor,
    q0: torch.Tensor,
    *,
    beta: float = 1.0,
    readout: str = "query",
    checkpoint: bool = False,
) -> torch.Tensor:
    """Outputs ŷ [S, N, d] of the L×H transformer (module docstring).

    `checkpoint=True` recomputes each layer in the backward pass: memory O(one layer) instead of
    O(L layers) of attention matrices, for the large reference networks.
    """
    S, L, H, d, _ = Q.shape
    N = X.shape[-3]
    X = X.expand(S, *X.shape[-3:])
    q = q0.to(X).expand(S, N, d)
    scale = residual_scale(L, H)
    A = beta * torch.einsum("slhka,slhkb->slhab", K, Q)
    # unbind once: indexing A[:, l] inside the loop would make the backward O(L²)
    for l, (A_l, V_l) in enumerate(zip(A.unbind(1), V.unbind(1))):
        # with query readout the context after the last layer is never read
        update = readout == "mean" or l < L - 1
        if readout == "mean":
            X = X + scale * _attend(A_l, V_l, X, X)
            continue
        if checkpoint and torch.is_grad_enabled():
            X, q = _checkpoint(_layer, A_l, V_l, X, q, scale, update, use_reentrant=False)
        else:
            X, q = _layer(A_l, V_l, X, q, scale, update)
    return X.mean(-2) if readout == "mean" else q


def width_limit_forward(Q, K, V, noise, X, q0, beta: float) -> torch.Tensor:
    """ŷ [S, N, d] of the width-limit network at depth L, with each head's gradient taken at its own (Q, K, V).

    The heads' values are V = V̄ + noise, and a layer's velocity is linear in V: as H → ∞ at fixed L the value
    noise (mean 0) averages out of every token's path, and the network is the one with values V̄ (σ_V = 0).  A
    head θ of it still has its own gradient, a function of θ and of the tokens and adjoints of that network.
    Here the tokens move with V − noise, and each head also adds its noise's velocity at value 0 with the tokens
    detached (`_attend(A, noise, ·)` − itself, detached): its Q, K gradient takes the head's whole V, while no
    head's noise moves a token.  The finite network's gradient minus this one is the Monte Carlo error of the
    L·H value draws alone: the depth error of each head (which varies with its V) and the normalisation by
    |G| at the noisy heads cancel, where 𝔼 e_H² − e_P² kept them as an H-independent term of either sign.
    Written after `forward` (query readout)."""
    S, L, H, d, _ = Q.shape
    X = X.expand(S, *X.shape[-3:])
    q = q0.to(X).expand(S, X.shape[-3], d)
    scale = residual_scale(L, H)
    A = beta * torch.einsum("slhka,slhkb->slhab", K, Q)
    for l in range(L):
        Z = torch.cat([q.unsqueeze(2), X], dim=2)
        probe = _attend(A[:, l], noise[:, l], Z.detach(), X.detach())
        dZ = _attend(A[:, l], V[:, l] - noise[:, l], Z, X) + probe - probe.detach()
        X, q = X + scale * dZ[:, :, 1:], q + scale * dZ[:, :, 0]
    return q


def loss(yhat: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """R = (1/(2N)) Σ_i |ŷ_i − y_i|², per seed: [S, N, d] → [S]."""
    return 0.5 * ((yhat - y) ** 2).sum((-1, -2)) / yhat.shape[-2]


def train(
    Q: torch.Tensor,
    K: torch.Tensor,
    V: torch.Tensor,
    X: torch.Tensor,
    q0: torch.Tensor,
    y: torch.Tensor,
    *,
    eta: float,
    steps: int,
    train: str = "qkv",
    beta: float = 1.0,
    readout: str = "query",
    record: Sequence[int] | None = None,
    checkpoint: bool = False,
    callback=None,
) -> dict:
    """Full-batch GD, lr = η·L·H, on all seeds at once (their losses are summed: seeds are independent).

    Returns {"step": [T] steps recorded, "yhat": [T, S, N, d], "loss": [T, S], "params": (Q, K, V)}.
    `record`: steps k (0 ≤ k ≤ steps) at which ŷ and R are stored (default: all).  `callback(k, Q, K, V)`
    is called at every recorded step (e.g. to evaluate the NTK along training).  Non-finite values are
    carried along (the caller marks them diverged), never raised.
    """
    L, H = Q.shape[1], Q.shape[2]
    lr = learning_rate(eta, L, H)
    record = set(range(steps + 1) if record is None else record)
    trained = {"qkv": (True, True, True), "qk": (True, True, False), "v": (False, False, True)}[train]
    params = [p.detach().clone().requires_grad_(t) for p, t in zip((Q, K, V), trained)]
    steps_out, yhats, losses = [], [], []
    for k in runtime.progress(range(steps + 1), desc="GD steps", unit="step"):
        last = k == steps
        with torch.set_grad_enabled(not last):
            yhat = forward(*params, X, q0, beta=beta, readout=readout, checkpoint=checkpoint)
            R = loss(yhat, y)
        if k in record:
            steps_out.append(k)
            yhats.append(yhat.detach())
            losses.append(R.detach())
            if callback is not None:
                callback(k, *(p.detach() for p in params))
        if last:
            break
        grads = torch.autograd.grad(R.sum(), [p for p, t in zip(params, trained) if t])
        with torch.no_grad():
            for p, g in zip([p for p, t in zip(params, trained) if t], grads):
                p -= lr * g
    return {
        "step": torch.tensor(steps_out),
        "yhat": torch.stack(yhats),
        "loss": torch.stack(losses),
        "params": tuple(p.detach() for p in params),
    }


def forward_loop(Q, K, V, X, q0, *, beta: float = 1.0, readout: str = "query") -> torch.Tensor:
    """The same network written plainly, one seed and one head at a time (inputs and tokens vectorised).

    Independent reference for the batched `forward` in tests, and the baseline of the benchmark.
    """
    S, L, H, d, _ = Q.shape
    outs = []
    for s in range(S):
        x = X[s] if X.dim() == 4 else X  # [N, n, d]
        q = q0.to(x).expand(x.shape[0], d)  # [N, d]
        for l in range(L):
            dq, dx = torch.zeros_like(q), torch.zeros_like(x)
            for h in range(H):
                Qh, Kh, Vh = Q[s, l, h], K[s, l, h], V[s, l, h]
                keys = x @ Kh.T  # [N, n, k]
                w_q = torch.softmax(beta * (keys @ (q @ Qh.T)[..., None])[..., 0], dim=-1)  # [N, n]
                dq = dq + (w_q[:, None, :] @ x)[:, 0] @ Vh.T
                w_x = torch.softmax(beta * (x @ Qh.T) @ keys.transpose(-1, -2), dim=-1)  # [N, n, n]
                dx = dx + w_x @ x @ Vh.T
            q, x = q + dq / (L * H), x + dx / (L * H)
        outs.append(x.mean(-2) if readout == "mean" else q)
    return torch.stack(outs)
