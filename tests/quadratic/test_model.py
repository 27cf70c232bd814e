import numpy as np
import pytest
import torch

from mfx.quadratic import model, ode


def test_risk_matches_monte_carlo():
    rng = np.random.default_rng(0)
    p, p_star = 3, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    G = rng.normal(size=(p + p_star, p + p_star))
    Sigma = G @ G.T / (p + p_star)
    Q, rho, T = Sigma[:p, :p], Sigma[:p, p:], Sigma[p:, p:]
    z = rng.multivariate_normal(np.zeros(p + p_star), Sigma, size=2_000_000)
    err = a * (z[:, :p] ** 2).sum(1) - a_star * (z[:, p:] ** 2).sum(1)
    mc = 0.5 * err**2
    assert abs(model.risk(rho, Q, T, a, a_star) - mc.mean()) < 5 * mc.std() / np.sqrt(len(mc))


def test_plateau_is_the_minimum_of_the_risk_at_rho_zero_and_values():
    p, p_star = 4, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    q_bar, eps_pl = model.plateau(p, T, a, a_star)
    assert q_bar == pytest.approx(p / (p + 2)) and eps_pl == pytest.approx(1 / (p + 2) + 1 / p_star)
    rho = np.zeros((p, p_star))
    assert model.risk(rho, q_bar * np.eye(p), T, a, a_star) == pytest.approx(eps_pl)
    for q in (0.9 * q_bar, 1.1 * q_bar):
        assert model.risk(rho, q * np.eye(p), T, a, a_star) > eps_pl
    s = np.sqrt(a_star / a)
    U = model.stiefel(p, p_star, [3])[0]
    assert model.risk(s * U, s**2 * U @ U.T, T, a, a_star) == pytest.approx(0, abs=1e-14)


def test_weights_have_the_stated_overlaps_and_are_seed_stable():
    N, p, p_star = 500, 3, 2
    Ws = model.teacher_weights(N, p_star, [0, 1])
    W0 = model.student_weights(N, p, [0, 1], kind="orthogonal", sigma0=0.5)
    rho, Q = model.overlaps(W0, Ws)
    np.testing.assert_allclose(
        model.overlaps(Ws, Ws)[1], np.broadcast_to(np.eye(p_star), (2, 2, 2)), atol=1e-12
    )
    np.testing.assert_allclose(Q, np.broadcast_to(0.25 * np.eye(p), (2, p, p)), atol=1e-12)
    assert np.abs(rho).max() < 5 * 0.5 / np.sqrt(N)
    alone = model.teacher_weights(N, p_star, [1])
    torch.testing.assert_close(alone[0], Ws[1])
    Ta = model.overlaps(*(model.teacher_weights(N, 2, [0], anisotropy=0.5),) * 2)[1][0]
    np.testing.assert_allclose(Ta, np.diag([1.5, 0.5]), atol=1e-12)


def test_polar_and_distances():
    rng = np.random.default_rng(1)
    rho = rng.normal(size=(5, 3, 2))
    U = model.polar(rho)
    np.testing.assert_allclose(U.transpose(0, 2, 1) @ U, np.broadcast_to(np.eye(2), (5, 2, 2)), atol=1e-12)
    H = U.transpose(0, 2, 1) @ rho  # symmetric positive: rho = U H
    np.testing.assert_allclose(H, H.transpose(0, 2, 1), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(H) > 0)
    Q = rho @ rho.transpose(0, 2, 1) + np.eye(3)
    d_min = model.nearest_solution_distance(rho, Q, 1.3, 2)
    d_closest = model.solution_distance(rho, Q, U, 1.3, 2)
    np.testing.assert_allclose(d_min, d_closest, atol=1e-12)
    d_rand = model.solution_distance(rho, Q, model.stiefel(3, 2, range(5)), 1.3, 2)
    assert np.all(d_rand >= d_min - 1e-12)


def test_escape_time_interpolates_and_reports_never():
    tau = np.array([0.0, 1.0, 2.0, 3.0])
    eps = np.array([[1.0, 1.0], [0.8, 1.0], [0.2, 1.0], [0.1, 0.9]])
    t = model.escape_time(tau, eps, 0.4)
    assert 1.0 < t[0] < 2.0 and np.isnan(t[1])
    assert t[0] == pytest.approx(1 + np.log(0.4 / 0.8) / np.log(0.2 / 0.8))


def test_risk_and_rhs_accept_one_teacher_gram_per_seed():
    rng = np.random.default_rng(3)
    p, p_star = 3, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    rho = rng.normal(size=(4, p, p_star)) * 0.3
    Q = np.eye(p) + 0.1 * np.stack([G @ G.T for G in rng.normal(size=(4, p, p))])
    T = np.stack([np.diag([1.0 + 0.1 * s, 0.9]) for s in range(4)])
    batched = model.risk(rho, Q, T, a, a_star)
    single = [model.risk(rho[s], Q[s], T[s], a, a_star) for s in range(4)]
    np.testing.assert_allclose(batched, single, rtol=1e-14)
    drho, dQ = ode.rhs(rho, Q, T, a, a_star, g=0.1)
    for s in range(4):
        drho_s, dQ_s = ode.rhs(rho[s : s + 1], Q[s : s + 1], T[s], a, a_star, g=0.1)
        np.testing.assert_allclose(drho[s], drho_s[0], rtol=1e-13)
        np.testing.assert_allclose(dQ[s], dQ_s[0], rtol=1e-13)


def test_exit_fit_recovers_rate_and_prefactor_in_its_window():
    """ε_pl − ε = A e^{rτ} − (a transient ∝ e^{-8τ}) fitted only between `low` and the first crossing of
    `high` (the later saturation is left out)."""
    tau = np.linspace(0, 3, 301)
    A, r = np.array([1e-6, 3e-6]), np.array([8.0, 4.0])
    gap = A * np.exp(np.outer(tau, r)) - 1e-4 * np.exp(-8 * tau)[:, None]
    gap = np.minimum(gap, 0.5)  # saturation after the window
    rate, pref = model.exit_fit(tau, gap, 1e-3, 1e-2)
    np.testing.assert_allclose(rate, r, rtol=1e-3)
    np.testing.assert_allclose(pref, A, rtol=1e-2)
    assert np.isnan(model.exit_fit(tau, np.full((301, 1), 1e-5), 1e-3, 1e-2)[0]).all()
