"""The batched ResNet numerics against plain loops, autograd, the Julia formulas and a hand computation."""

import math

import pytest
import torch

from mfx.resnet import draws, model

SEEDS = [0, 1, 2]


def _setup(L=3, M=2, D=4, N=5, d_in=3, d_out=2, seeds=SEEDS):
    X, Y, W_E, W_U = draws.data(seeds, N, d_in, d_out, D)
    U, V = draws.units(seeds, L, M, D)
    return W_E, W_U, U, V, X, Y


def _plain_forward(W_E, W_U, U, V, X, alpha):
    """One rep (no batch dim), written unit by unit: the formulas of science §1.2."""
    L, M, D = U.shape
    h = X @ W_E.T
    for l in range(L):
        h_prev = h
        for j in range(M):
            h = h + alpha / (L * M) * torch.outer(torch.tanh(h_prev @ U[l, j] / D), V[l, j])
    return h @ W_U / D, h


def _julia_step(W_E, W_U, U, V, X, Y, eta):
    """One GD step in the author's Julia form (alpha = 1; science §2): B = W_U (f − Y)/(N d_out),
    Q = Vᵀ B / D, gradU = H (σ'(P) ⊙ Q)ᵀ, gradV = B σ(P)ᵀ, U −= η gradU; layout D × N, D × M."""
    L, D, M = U.shape
    N, d_out = Y.shape
    H = [W_E @ X.T]  # D × N
    for l in range(L):
        P = U[l].T @ H[-1] / D  # M × N
        H.append(H[-1] + V[l] @ torch.tanh(P) / (L * M))
    B = W_U @ (W_U.T @ H[-1] / D - Y.T) / (N * d_out)
    U_new, V_new = U.clone(), V.clone()
    for l in reversed(range(L)):
        P = U[l].T @ H[l] / D
        Q = V[l].T @ B / D
        S = (1 - torch.tanh(P) ** 2) * Q
        U_new[l] -= eta * (H[l] @ S.T)
        V_new[l] -= eta * (B @ torch.tanh(P).T)
        B = B + U[l] @ S / (L * M)
    return U_new, V_new


def test_forward_equals_unit_by_unit_loop():
    W_E, W_U, U, V, X, _ = _setup()
    f, h_L, _ = model.forward(W_E, W_U, U, V, X, alpha=1.7)
    for s in range(len(SEEDS)):
        f_s, h_s = _plain_forward(W_E[s], W_U[s], U[s], V[s], X[s], 1.7)
        torch.testing.assert_close(f[s], f_s, rtol=0, atol=1e-12)
        torch.testing.assert_close(h_L[s], h_s, rtol=0, atol=1e-12)


@pytest.mark.parametrize("alpha", [1.0, 3.0])
def test_gd_step_equals_per_rep_autograd_loop(alpha):
    """Batched hand-written step == per-rep autograd gradient × eta·L·M·D/alpha² (1e-10)."""
    W_E, W_U, U, V, X, Y = _setup()
    L, M, D = U.shape[1:]
    out = model.train(W_E, W_U, U, V, X, Y, alpha=alpha, eta=0.7, K=1)
    lr = 0.7 * L * M * D / alpha**2
    for s in range(len(SEEDS)):
        U_s, V_s = U[s].clone().requires_grad_(), V[s].clone().requires_grad_()
        f_s, _ = _plain_forward(W_E[s], W_U[s], U_s, V_s, X[s], alpha)
        (0.5 * ((f_s - Y[s]) ** 2).sum() / Y[s].numel()).backward()
        torch.testing.assert_close(out["U"][s], U[s] - lr * U_s.grad, rtol=0, atol=1e-10)
        torch.testing.assert_close(out["V"][s], V[s] - lr * V_s.grad, rtol=0, atol=1e-10)


def test_gd_step_equals_julia_manual_backprop():
    W_E, W_U, U, V, X, Y = _setup(L=4, M=3, D=5)
    out = model.train(W_E, W_U, U, V, X, Y, alpha=1.0, eta=0.5, K=1)
    for s in range(len(SEEDS)):
        # Julia stores u_{j,l} as columns of a D × M matrix: U_julia[l] = U[s, l].T
        U_j, V_j = _julia_step(W_E[s], W_U[s], U[s].transpose(1, 2), V[s].transpose(1, 2), X[s], Y[s], 0.5)
        torch.testing.assert_close(out["U"][s], U_j.transpose(1, 2), rtol=0, atol=1e-10)
        torch.testing.assert_close(out["V"][s], V_j.transpose(1, 2), rtol=0, atol=1e-10)


@pytest.mark.parametrize("sigma", ["tanh", "relu", "sin"])
def test_backward_equals_autograd(sigma):
    W_E, W_U, U, V, X, Y = _setup(L=5, M=3, D=4)
    U_g, V_g = U.clone().requires_grad_(), V.clone().requires_grad_()
    f, _, _ = model.forward(W_E, W_U, U_g, V_g, X, 2.0, sigma)
    model.loss(f, Y).sum().backward()
    f, _, cache = model.forward(W_E, W_U, U, V, X, 2.0, sigma)
    gU, gV = model.backward(cache, U, V, model.output_grad(f, Y, W_U), 2.0)
    torch.testing.assert_close(gU, U_g.grad, rtol=0, atol=1e-12)
    torch.testing.assert_close(gV, V_g.grad, rtol=0, atol=1e-12)


def test_jvp_equals_autograd_jvp():
    W_E, W_U, U, V, X, _ = _setup(L=4, M=3, D=4)
    dU, dV = draws.units(SEEDS, 4, 3, 4, tag="direction")
    _, _, cache = model.forward(W_E, W_U, U, V, X, 1.5)
    ours = model.jvp(cache, W_U, U, V, dU, dV, 1.5)
    _, ref = torch.func.jvp(lambda u, v: model.forward(W_E, W_U, u, v, X, 1.5)[0], (U, V), (dU, dV))
    torch.testing.assert_close(ours, ref, rtol=0, atol=1e-10)


def test_tangent_model_is_linear_training():
    """One tangent step from θ_0 equals one network step to first order: f_lin(1) − f(1) = O(lr²),
    and the tangent outputs are exactly affine in the step direction (checked via eta scaling)."""
    W_E, W_U, U, V, X, Y = _setup()
    small = [model.train_tangent(W_E, W_U, U, V, X, Y, eta=e, K=1)["f"][:, 1] for e in (1e-4, 2e-4)]
    f0 = model.forward(W_E, W_U, U, V, X, 1.0)[0]
    torch.testing.assert_close(small[1] - f0, 2 * (small[0] - f0), rtol=1e-9, atol=1e-14)
    net = model.train(W_E, W_U, U, V, X, Y, eta=1e-4, K=1)["f"][:, 1]
    assert (net - small[0]).abs().max() < 1e-3 * (net - f0).abs().max()


def test_batched_reps_equal_single_reps():
    W_E, W_U, U, V, X, Y = _setup()
    batch = model.train(W_E, W_U, U, V, X, Y, K=3)
    for s, seed in enumerate(SEEDS):
        single = model.train(*_setup(seeds=[seed]), K=3)
        torch.testing.assert_close(batch["f"][s], single["f"][0], rtol=0, atol=1e-12)
        torch.testing.assert_close(batch["h_L"][s], single["h_L"][0], rtol=0, atol=1e-12)


def test_seed_draws_independent_of_batch():
    a = draws.units([3, 7], 2, 2, 3)
    b = draws.units([7], 2, 2, 3)
    torch.testing.assert_close(a[0][1], b[0][0], rtol=0, atol=0)
    assert not torch.equal(draws.units([7], 2, 2, 3, tag="ref")[0], b[0])


def test_coupled_embedding_is_prefix_of_largest():
    _, _, W_E8, W_U8 = draws.data([0], 4, 3, 2, D=8, D_max=32)
    _, _, W_E32, W_U32 = draws.data([0], 4, 3, 2, D=32, D_max=32)
    torch.testing.assert_close(W_E8, W_E32[:, :8], rtol=0, atol=0)
    torch.testing.assert_close(W_U8, W_U32[:, :8], rtol=0, atol=0)


def test_hand_computation_L1_M1():
    """L = M = 1, D = 2, one data point, d_in = d_out = 1: every quantity by hand."""
    D = 2
    W_E = torch.tensor([[[1.0], [2.0]]], dtype=torch.float64)  # [1, D, 1]
    W_U = torch.tensor([[[0.5], [-1.0]]], dtype=torch.float64)
    X = torch.tensor([[[0.3]]], dtype=torch.float64)
    Y = torch.tensor([[[0.1]]], dtype=torch.float64)
    U = torch.tensor([[[[1.0, -2.0]]]], dtype=torch.float64)  # [1, 1, 1, D]
    V = torch.tensor([[[[3.0, 1.0]]]], dtype=torch.float64)
    alpha, eta = 2.0, 0.25
    h0 = [0.3, 0.6]
    p = (1.0 * 0.3 - 2.0 * 0.6) / D  # = -0.45
    a = math.tanh(p)
    h1 = [h0[0] + alpha * 3.0 * a, h0[1] + alpha * 1.0 * a]
    f = (0.5 * h1[0] - 1.0 * h1[1]) / D
    out = model.train(W_E, W_U, U, V, X, Y, alpha=alpha, eta=eta, K=1)
    assert out["f"][0, 0, 0, 0].item() == pytest.approx(f, abs=1e-14)
    assert out["h_L"][0, 0, 0].tolist() == pytest.approx(h1, abs=1e-14)
    # dLoss/dh1 = (f − y) W_U / D; dLoss/dv = alpha a dLoss/dh1; lr = eta L M D / alpha²
    g_h = [(f - 0.1) * 0.5 / D, (f - 0.1) * (-1.0) / D]
    lr = eta * D / alpha**2
    v_new = [3.0 - lr * alpha * a * g_h[0], 1.0 - lr * alpha * a * g_h[1]]
    dp = alpha * (3.0 * g_h[0] + 1.0 * g_h[1]) * (1 - a * a)
    u_new = [1.0 - lr * dp * h0[0] / D, -2.0 - lr * dp * h0[1] / D]
    assert out["V"][0, 0, 0].tolist() == pytest.approx(v_new, abs=1e-14)
    assert out["U"][0, 0, 0].tolist() == pytest.approx(u_new, abs=1e-14)


def test_local_updates_vanish_at_init_and_match_definition():
    W_E, W_U, U, V, X, Y = _setup()
    out = model.train(W_E, W_U, U, V, X, Y, K=2)
    assert model.local_updates(W_E, W_U, U, U, V, X).abs().max() == 0
    loc = model.local_updates(W_E, W_U, U, out["U"], out["V"], X)
    _, _, cache = model.forward(W_E, W_U, out["U"], out["V"], X, 1.0)
    l, s, n, j = 1, 2, 3, 1
    expected = (out["U"][s, l, j] - U[s, l, j]) @ cache.h[l][s, n] / U.shape[-1]
    assert loc[s, l, n, j].item() == pytest.approx(expected.item(), abs=1e-13)


def test_divergence_gives_nan_not_error():
    W_E, W_U, U, V, X, Y = _setup()
    out = model.train(W_E, W_U, U, V, X * float("nan"), Y, K=2)
    assert torch.isnan(out["f"]).all()


def test_blockwise_linear_model_with_one_block_is_the_tangent_model():
    """With L = 1 the input h_0 does not depend on the parameters: blockwise = full linearisation."""
    W_E, W_U, U, V, X, Y = _setup(L=1, M=4)
    dU, dV = draws.units(SEEDS, 1, 4, 4, tag="direction")
    _, _, cache = model.forward(W_E, W_U, U, V, X, 1.3)
    f0 = model.forward(W_E, W_U, U, V, X, 1.3)[0]
    block = model.forward_blockwise_linear(W_E, W_U, U, V, dU, dV, X, 1.3)
    torch.testing.assert_close(block, f0 + model.jvp(cache, W_U, U, V, dU, dV, 1.3), rtol=0, atol=1e-12)
    lin = model.train_tangent(W_E, W_U, U, V, X, Y, 1.3, 0.5, K=3)["f"]
    torch.testing.assert_close(
        model.train_blockwise_linear(W_E, W_U, U, V, X, Y, 1.3, 0.5, K=3)["f"], lin, rtol=0, atol=1e-10
    )


def test_blockwise_linear_model_agrees_to_first_order():
    W_E, W_U, U, V, X, _ = _setup(L=4, M=3)
    dU, dV = draws.units(SEEDS, 4, 3, 4, tag="direction")
    f0 = model.forward(W_E, W_U, U, V, X, 1.0)[0]
    _, _, cache = model.forward(W_E, W_U, U, V, X, 1.0)
    eps = 1e-6
    block = model.forward_blockwise_linear(W_E, W_U, U, V, eps * dU, eps * dV, X, 1.0)
    torch.testing.assert_close(
        (block - f0) / eps, model.jvp(cache, W_U, U, V, dU, dV, 1.0), rtol=1e-4, atol=1e-8
    )


def test_paired_units_give_identity_network_at_init():
    W_E, W_U, _, _, X, _ = _setup()
    U, V = draws.units(SEEDS, 3, 4, 4, paired=True)
    _, h_L, cache = model.forward(W_E, W_U, U, V, X, 5.0)
    torch.testing.assert_close(h_L, cache.h[0], rtol=0, atol=1e-13)
    torch.testing.assert_close(U[:, :, :2], U[:, :, 2:], rtol=0, atol=0)


def _both_paths(monkeypatch, fn):
    """fn() on the compiled path and on the torch path (model.FAST off)."""
    fast = fn()
    monkeypatch.setattr(model, "FAST", False)
    slow = fn()
    monkeypatch.setattr(model, "FAST", True)
    return fast, slow


needs_numba = pytest.mark.skipif(not model.FAST, reason="numba not installed: torch path only")


@needs_numba
@pytest.mark.parametrize("sigma", ["tanh", "relu", "sin"])
@pytest.mark.parametrize("D", [4, 6])  # 1/D folded into the weights is exact only for D = 2^k
def test_compiled_train_equals_torch_path(monkeypatch, sigma, D):
    W_E, W_U, U, V, X, Y = _setup(L=7, M=3, D=D)
    fast, slow = _both_paths(
        monkeypatch, lambda: model.train(W_E, W_U, U, V, X, Y, 1.7, 0.6, K=4, sigma=sigma)
    )
    for key in ("f", "h_L", "loss", "U", "V"):
        torch.testing.assert_close(fast[key], slow[key], rtol=1e-12, atol=1e-13)


@needs_numba
def test_compiled_forward_cache_equals_torch_path(monkeypatch):
    W_E, W_U, U, V, X, Y = _setup(L=5, M=3, D=4)
    (f, h_L, c), (f0, h0, c0) = _both_paths(monkeypatch, lambda: model.forward(W_E, W_U, U, V, X, 1.3, "sin"))
    torch.testing.assert_close(f, f0, rtol=0, atol=1e-13)
    torch.testing.assert_close(h_L, h0, rtol=0, atol=1e-13)
    for name in ("h", "P", "A"):
        torch.testing.assert_close(
            torch.stack(getattr(c, name)), torch.stack(getattr(c0, name)), rtol=0, atol=1e-13
        )
    lin = _both_paths(
        monkeypatch, lambda: model.train_tangent(W_E, W_U, U, V, X, Y, 1.3, 0.5, K=3, sigma="sin")
    )
    torch.testing.assert_close(lin[0]["f"], lin[1]["f"], rtol=0, atol=1e-13)
    loc = _both_paths(monkeypatch, lambda: model.local_updates(W_E, W_U, U, U + 0.1 * V, V, X, 1.3))
    torch.testing.assert_close(loc[0], loc[1], rtol=0, atol=1e-13)


@needs_numba
def test_compiled_step_float32_and_fallbacks(monkeypatch):
    W_E, W_U, U, V, X, Y = (t.float() for t in _setup(L=6, M=4, D=8))
    fast, slow = _both_paths(monkeypatch, lambda: model.train(W_E, W_U, U, V, X, Y, 1.0, 0.5, K=3))
    assert fast["f"].dtype == torch.float32
    torch.testing.assert_close(fast["f"], slow["f"], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(fast["U"], slow["U"], rtol=1e-4, atol=1e-4)
    # non-contiguous U, V (updated in place) and autograd inputs take the torch path
    W_E, W_U, U, V, X, Y = _setup(L=3, M=2, D=4)
    U_nc, V_nc = (
        U.transpose(2, 3).contiguous().transpose(2, 3),
        V.transpose(2, 3).contiguous().transpose(2, 3),
    )
    U_c, V_c = U.clone(), V.clone()
    model.gd_step(W_E, W_U, U_nc, V_nc, X, Y)
    model.gd_step(W_E, W_U, U_c, V_c, X, Y)
    torch.testing.assert_close(U_nc, U_c, rtol=0, atol=1e-13)
    U_g = U.clone().requires_grad_()
    f, _, _ = model.forward(W_E, W_U, U_g, V, X, 1.0)
    assert f.requires_grad


def test_numpy_baseline_of_the_benchmark_equals_gd_step():
    """The benchmark's numpy baseline (per rep, per layer, hand-written backward) is mfx's step."""
    from benchmarks.bench_resnet import numpy_gd_step

    W_E, W_U, U, V, X, Y = _setup(L=9, M=4, D=8, N=6, d_in=5, d_out=5)
    U_np, V_np = U.numpy().copy(), V.numpy().copy()
    numpy_gd_step(W_E.numpy(), W_U.numpy(), U_np, V_np, X.numpy(), Y.numpy(), alpha=1.4, eta=0.8)
    model.gd_step(W_E, W_U, U, V, X, Y, alpha=1.4, eta=0.8)
    torch.testing.assert_close(torch.from_numpy(U_np), U, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(torch.from_numpy(V_np), V, rtol=1e-12, atol=1e-12)
