import math

import pytest
import torch

from mfx import runtime
from mfx.transformer import families, model

DT = torch.float64


def _setup(L=3, H=4, d=2, S=2, n=6, N=3, seed=0):
    g = runtime.generator(seed, "test")
    X = torch.randn(N, n, d, generator=g, dtype=DT)
    q0 = torch.tensor([1.0, 0.5, -0.3][:d], dtype=DT)
    Q, K, V = model.init_params(L, H, d, list(range(S)))
    return Q, K, V, X, q0


def test_attention_is_V_grad_lambda():
    """One head: Σ_j softmax_j(β⟨Qx, K x_j⟩) x_j mapped by V equals V ∇Λ_μ(A x), A = β KᵀQ."""
    Q, K, V, X, q0 = _setup(L=1, H=1)
    beta = 0.7
    A = beta * K[0, 0, 0].T @ Q[0, 0, 0]
    Y = X[0]
    z = (A @ q0).requires_grad_(True)
    lam = torch.logsumexp(Y @ z, 0) - math.log(Y.shape[0])  # discrete Λ_μ
    (grad,) = torch.autograd.grad(lam, z)
    att = model._attend(A[None, None], V[:1, 0], q0[None, None, None].expand(1, 1, 1, 2), Y[None, None])
    assert torch.allclose(att[0, 0, 0], V[0, 0, 0] @ grad, atol=1e-12, rtol=0)


@pytest.mark.parametrize("readout", ["query", "mean"])
def test_batched_forward_equals_loop(readout):
    Q, K, V, X, q0 = _setup()
    fast = model.forward(Q, K, V, X, q0, beta=0.8, readout=readout)
    slow = model.forward_loop(Q, K, V, X, q0, beta=0.8, readout=readout)
    assert torch.allclose(fast, slow, atol=1e-13, rtol=0)


def test_mean_pooling_is_blind_on_symmetric_clouds():
    """Odd equivariance: a symmetrised cloud {x_j} ∪ {−x_j} has mean-pooled output 0 for any parameters."""
    Q, K, V, X, q0 = _setup(L=4, H=3)
    Xs = torch.cat([X, -X], dim=1)
    out = model.forward(Q, K, V, Xs, q0, readout="mean")
    assert out.abs().max() < 1e-13
    # the query readout of the same clouds is not blind
    assert model.forward(Q, K, V, Xs, q0, readout="query").abs().max() > 1e-2


def test_zero_v_is_identity():
    Q, K, V, X, q0 = _setup()
    V = torch.zeros_like(V)
    out = model.forward(Q, K, V, X, q0)
    assert torch.equal(out, q0.expand_as(out))


def test_batched_seeds_equal_single_runs():
    Q, K, V, X, q0 = _setup(S=3)
    y = torch.randn(3, 2, generator=runtime.generator(1, "y"), dtype=DT)
    both = model.train(Q, K, V, X, q0, y, eta=0.1, steps=5)
    for s in range(3):
        one = model.train(Q[s : s + 1], K[s : s + 1], V[s : s + 1], X, q0, y, eta=0.1, steps=5)
        assert torch.allclose(both["loss"][:, s], one["loss"][:, 0], atol=1e-14, rtol=0)
        for a, b in zip(both["params"], one["params"]):
            assert torch.allclose(a[s], b[0], atol=1e-13, rtol=0)
    # init of seed s does not depend on the batch it is drawn in
    Q1, _, _ = model.init_params(3, 4, 2, [2])
    assert torch.equal(Q1[0], Q[2])


def test_gd_matches_loop_gradient_and_lr_scaling():
    """One step of `train` = θ − η·L·H·∇R with ∇R from the plain loop model."""
    L, H = 2, 3
    Q, K, V, X, q0 = _setup(L=L, H=H, S=1)
    y = torch.zeros(3, 2, dtype=DT)
    params = [p.clone().requires_grad_(True) for p in (Q, K, V)]
    R = model.loss(model.forward_loop(*params, X, q0), y).sum()
    grads = torch.autograd.grad(R, params)
    out = model.train(Q, K, V, X, q0, y, eta=0.01, steps=1)
    for p, g, new in zip((Q, K, V), grads, out["params"]):
        assert torch.allclose(new, p - 0.01 * L * H * g, atol=1e-14, rtol=0)


@pytest.mark.parametrize("train", ["qk", "v"])
def test_train_blocks_freeze_the_others(train):
    Q, K, V, X, q0 = _setup()
    out = model.train(Q, K, V, X, q0, torch.zeros(3, 2, dtype=DT), eta=0.1, steps=2, train=train)
    frozen = {"qk": [2], "v": [0, 1]}[train]
    for i, (a, b) in enumerate(zip((Q, K, V), out["params"])):
        assert torch.equal(a, b) == (i in frozen)


def test_checkpoint_gives_same_gradients():
    Q, K, V, X, q0 = _setup()
    y = torch.zeros(3, 2, dtype=DT)
    a = model.train(Q, K, V, X, q0, y, eta=0.1, steps=2)
    b = model.train(Q, K, V, X, q0, y, eta=0.1, steps=2, checkpoint=True)
    for p, r in zip(a["params"], b["params"]):
        assert torch.allclose(p, r, atol=1e-14, rtol=0)


def test_nan_is_carried_not_raised():
    Q, K, V, X, q0 = _setup()
    V = V.clone()
    V[1] = float("nan")
    out = model.train(Q, K, V, X, q0, torch.zeros(3, 2, dtype=DT), eta=0.1, steps=2)
    assert torch.isnan(out["loss"][:, 1]).all() and torch.isfinite(out["loss"][:, 0]).all()


def test_translate_pair_differences_are_qk_invariant_at_one_layer():
    """L = 1: ŷ_1 − ŷ_2 of a translate pair does not depend on Q, K (the QK NTK null direction)."""
    c = families.clouds("translates", [1.0, 1.0], 16, 2, runtime.generator(0, "t"), shift=0.7)
    Q, K, V, _, q0 = _setup(L=1, H=5)
    y1 = model.forward(Q, K, V, c.X, q0)
    Q2, K2, _ = model.init_params(1, 5, 2, [7, 8])
    y2 = model.forward(Q2, K2, V, c.X, q0)
    assert torch.allclose(y1[:, 0] - y1[:, 1], y2[:, 0] - y2[:, 1], atol=1e-13, rtol=0)


def _grads(forward, Q, K, V):
    params = [p.clone().requires_grad_(True) for p in (Q, K, V)]
    R = forward(*params).pow(2).sum()
    return torch.stack(torch.autograd.grad(R, params))


def test_the_width_limit_network_moves_no_token_with_the_value_noise():
    """`width_limit_forward`: without noise it is the network; with noise, a head's gradient does not change
    when another head's noise does (no head's noise moves a token), and is linear in its own (its Q, K gradient
    takes its whole V) — while the finite network's gradient changes with every head's noise."""
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(1, 3, 4, 2, 2, generator=g, dtype=DT) for _ in range(3))
    X, q0 = torch.randn(2, 5, 2, generator=g, dtype=DT), torch.tensor([1.0, 0.5], dtype=DT)
    noise = 0.5 * torch.randn(V.shape, generator=g, dtype=DT)
    net = lambda *p: model.forward(*p, X, q0)
    wl = lambda nz: lambda *p: model.width_limit_forward(*p, nz, X, q0, 1.0)
    assert torch.allclose(_grads(wl(0 * noise), Q, K, V), _grads(net, Q, K, V), rtol=1e-12, atol=1e-14)
    other = noise.clone()
    other[0, 0, 1] *= 3  # another head's noise (layer 0, head 1)
    a, b = _grads(wl(noise), Q, K, V + noise), _grads(wl(other), Q, K, V + other)
    keep = torch.ones(3, 4, dtype=torch.bool)
    keep[0, 1] = False
    assert torch.allclose(a[:, 0][:, keep], b[:, 0][:, keep], rtol=1e-12, atol=1e-14)
    n_a, n_b = _grads(net, Q, K, V + noise), _grads(net, Q, K, V + other)
    assert not torch.allclose(n_a[:, 0][:, keep], n_b[:, 0][:, keep], rtol=1e-6)
    g0, g1, g2 = (_grads(wl(s * noise), Q, K, V + s * noise) for s in (0, 1, 2))
    assert torch.allclose(g2 - g0, 2 * (g1 - g0), rtol=1e-10, atol=1e-12)
