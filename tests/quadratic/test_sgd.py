import numpy as np
import pytest
import torch

from mfx import runtime
from mfx.quadratic import model, ode, sgd


def _autograd_loop(W0, W_star, seed, a, a_star, eta, n_steps, Delta):
    """Plain per-seed SGD with autograd on the same inputs as sgd.simulate draws."""
    N = W0.shape[-1]
    assert n_steps <= sgd.chunk_steps(N)  # one chunk of exactly n_steps draws
    X = torch.randn((n_steps, N), generator=runtime.generator(seed, "quadratic", "sgd", "x"), dtype=W0.dtype)
    xi = torch.randn((n_steps,), generator=runtime.generator(seed, "quadratic", "sgd", "xi"), dtype=W0.dtype)
    W = W0.clone().requires_grad_(True)
    for t in range(n_steps):
        x = X[t]
        y = a_star * ((W_star @ x / N**0.5) ** 2).sum() + Delta**0.5 * xi[t]
        loss = 0.5 * (a * ((W @ x / N**0.5) ** 2).sum() - y) ** 2
        (grad,) = torch.autograd.grad(loss, W)
        with torch.no_grad():
            W -= eta * grad
    return W.detach()


@pytest.mark.parametrize("Delta", [0.0, 0.3])
def test_batched_sgd_equals_per_seed_autograd_loop(Delta):
    N, p, p_star, seeds, n_steps = 64, 3, 2, [4, 7, 9], 40
    a, a_star = model.readout_scales(p, p_star, "mean")
    Ws = model.teacher_weights(N, p_star, seeds)
    W0 = model.student_weights(N, p, seeds)
    out = sgd.simulate(W0, Ws, seeds, a, a_star, 0.5, [0, n_steps], Delta=Delta)
    for i, s in enumerate(seeds):
        W = _autograd_loop(W0[i], Ws[i], s, a, a_star, 0.5, n_steps, Delta)
        rho, Q = model.overlaps(W[None], Ws[i : i + 1])
        np.testing.assert_allclose(out["rho"][-1, i], rho[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(out["Q"][-1, i], Q[0], rtol=1e-10, atol=1e-12)
    assert not np.allclose(out["Q"][0], out["Q"][-1])


def _simulate(N, p, p_star, seeds, eta, steps, **kwargs):
    """SGD from the default student and teacher draws of `seeds`, mean readout."""
    a, a_star = model.readout_scales(p, p_star, "mean")
    W0, Ws = model.student_weights(N, p, seeds), model.teacher_weights(N, p_star, seeds)
    return sgd.simulate(W0, Ws, seeds, a, a_star, eta, steps, **kwargs)


def test_seed_is_identical_alone_or_in_a_batch_and_per_seed_eta():
    N, p, p_star = 200, 2, 1
    steps = sgd.log_grid(N, 2.0, per_decade=5)
    batch = _simulate(N, p, p_star, [1, 2], torch.tensor([0.2, 0.4], dtype=torch.float64), steps)
    alone = _simulate(N, p, p_star, [2], 0.4, steps)
    # same draws; only the summation order of the batched matmul may differ
    np.testing.assert_allclose(batch["Q"][:, 1], alone["Q"][:, 0], rtol=1e-10)
    assert not np.allclose(batch["Q"][-1, 0], batch["Q"][-1, 1])


def test_stop_rule_and_divergence_gives_nan_not_an_error():
    steps = sgd.log_grid(100, 50.0, per_decade=5)
    out = _simulate(100, 2, 1, [0], 50.0, steps)
    assert not np.all(np.isfinite(out["Q"][-1]))
    out = _simulate(100, 2, 1, [0], 0.1, steps, stop=lambda rho, Q: True)
    assert list(out["steps"]) == [0]


def test_sgd_follows_matched_ode_on_the_plateau():
    """N = 2000, (p, p*) = (3, 2), g = 0.05: the plateau level of SGD and of the matched ODE agree to 5%."""
    N, p, p_star, seeds, g = 2000, 3, 2, [0, 1], 0.05
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    Ws = model.teacher_weights(N, p_star, seeds, dtype=torch.float32)
    W0 = model.student_weights(N, p, seeds, dtype=torch.float32)
    steps = sgd.log_grid(N, 0.6 / g, per_decade=10)
    out = sgd.simulate(W0, Ws, seeds, a, a_star, g / a, steps)
    tau = out["steps"] / N * g
    eps_sgd = model.risk(out["rho"], out["Q"], T, a, a_star)
    rho0, Q0 = model.overlaps(W0, Ws)
    rho, Q = ode.solve(rho0, Q0, T, a, a_star, tau, g=g)
    eps_ode = model.risk(rho, Q, T, a, a_star)
    window = (tau > 0.3) & (tau <= 0.6)
    assert window.sum() >= 2
    np.testing.assert_allclose(eps_sgd[window], eps_ode[window], rtol=0.05)
    assert eps_ode[window].mean() == pytest.approx(model.plateau(p, T, a, a_star)[1], rel=0.05)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_inputs_drawn_in_place_and_in_pieces_are_one_draw_per_chunk_bitwise(dtype):
    """sgd draws each chunk of `chunk_steps` steps in pieces of PIECE steps into a reused buffer: the
    numbers are exactly those of one torch.randn per chunk and seed (the former torch.stack draw)."""
    for N, n_chunk in [(20, 50), (64, 37), (1000, 1024), (3000, 349)]:
        seeds = [3, 8]
        gens = [runtime.generator(s, "quadratic", "sgd", "x") for s in seeds]
        ref = torch.stack([torch.randn((n_chunk, N), generator=g, dtype=dtype) for g in gens])
        gens = [runtime.generator(s, "quadratic", "sgd", "x") for s in seeds]
        buf = torch.empty((2, sgd.PIECE, N), dtype=dtype)
        pieces = []
        for i in range(0, n_chunk, sgd.PIECE):
            m = min(sgd.PIECE, n_chunk - i)
            pieces.append(sgd._draw_into(buf[:, :m], gens).clone())
        assert torch.equal(torch.cat(pieces, dim=1), ref)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_sgd_runs_on_the_device_of_its_weights():
    N, p, p_star, seeds = 500, 3, 2, [0, 1]
    a, a_star = model.readout_scales(p, p_star, "mean")
    W0 = model.student_weights(N, p, seeds, dtype=torch.float32).cuda()
    Ws = model.teacher_weights(N, p_star, seeds, dtype=torch.float32).cuda()
    steps = sgd.log_grid(N, 5.0, per_decade=5)
    out = sgd.simulate(W0, Ws, seeds, a, a_star, 0.3, steps, Delta=0.1, stop=lambda rho, Q: False)
    alone = sgd.simulate(W0[1:], Ws[1:], seeds[1:], a, a_star, 0.3, steps, Delta=0.1)
    assert isinstance(out["Q"], np.ndarray) and np.isfinite(out["Q"]).all()
    np.testing.assert_allclose(out["Q"][:, 1], alone["Q"][:, 0], rtol=1e-4)
    assert out["Q"][-1].trace(axis1=-2, axis2=-1).mean() < out["Q"][0].trace(axis1=-2, axis2=-1).mean()
