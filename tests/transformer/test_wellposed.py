import torch

from mfx import runtime
from mfx.transformer import model, wellposed


def _problem():
    g = runtime.generator(0, "wellposed-test")
    X = torch.randn(2, 5, 2, generator=g, dtype=torch.float64)
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    return g, X, q0


def test_the_euler_network_tends_to_the_rk4_depth_flow_at_first_order():
    g, X, q0 = _problem()
    c = wellposed.curves(3, 2, 1.0, g)
    Z0 = torch.cat([q0.expand(2, 1, 2), X], dim=1)
    ref = wellposed.rk4_flow(c, Z0, 1.0, 64)[:, 0]
    e = [float((wellposed.euler_outputs(c, L, X, q0, 1.0) - ref).norm()) for L in (16, 32)]
    assert 1.7 < e[0] / e[1] < 2.3  # halving the step halves the error


def test_the_perturbation_moves_every_cloud_by_delta_in_rms():
    g, X, _ = _problem()
    dx = wellposed.perturbation(X, 0.01, g)
    assert torch.allclose(dx.pow(2).sum(-1).mean(-1).sqrt(), torch.full((2,), 0.01, dtype=torch.float64))


def test_gd_tends_to_the_rk4_gradient_flow_at_first_order():
    _, X, q0 = _problem()
    Q, K, V = model.init_params(2, 3, 2, [0])
    y = q0 + 0.5 * torch.randn(2, 2, generator=runtime.generator(1, "y"), dtype=torch.float64)
    ref = wellposed.flow_rk4(Q, K, V, X, q0, y, T=1.0, M=20)
    e = []
    for eta in (0.1, 0.05):
        out = model.train(Q, K, V, X, q0, y, eta=eta, steps=round(1.0 / eta), record=[round(1.0 / eta)])
        e.append(float((out["yhat"][-1] - ref).norm()))
    assert 1.7 < e[0] / e[1] < 2.3


def test_top_curvature_is_the_largest_hessian_eigenvalue_of_each_seed():
    _, X, q0 = _problem()
    Q, K, V = model.init_params(1, 2, 2, [0, 1])
    y = q0 + torch.randn(2, 2, generator=runtime.generator(2, "y"), dtype=torch.float64)
    theta = torch.stack([Q, K, V])
    lam, _ = wellposed.top_curvature(theta, X, q0, y, 1.0, iters=300)
    for s in range(2):
        R = lambda t: 2 * model.loss(model.forward(*t.unbind(0), X, q0), y).sum()  # L·H = 2
        h = torch.autograd.functional.hessian(R, theta[:, s : s + 1]).reshape(theta[:, s].numel(), -1)
        assert abs(float(lam[s]) - float(torch.linalg.eigvalsh(h).abs().max())) < 1e-6 * float(lam[s])


def test_the_step_grid_reaches_into_the_first_order_window_of_a_stiff_flow():
    etas = [0.2, 0.1, 0.05, 0.025]
    assert wellposed.step_grid(etas, 2.5, 1.0, 4, 4) == etas  # a mild flow: every η already in the window
    stiff = wellposed.step_grid(etas, 42.0, 1.0, 4, 4)
    assert stiff[4:] == [0.0125, 0.00625, 0.003125, 0.0015625]
    assert len(wellposed.step_grid(etas, 1e3, 1.0, 4, 4)) == 8  # at most `halvings` added
