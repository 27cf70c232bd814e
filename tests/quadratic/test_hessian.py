import numpy as np
import pytest
import torch

from mfx.quadratic import hessian, model


def _full_hessian(V, V_star, a, a_star):
    p, N = V.shape
    Vt = torch.tensor(V)
    Vs = torch.tensor(V_star)
    H = torch.autograd.functional.hessian(
        lambda v: hessian.risk_in_span(v.reshape(p, N), Vs, a, a_star), Vt.reshape(-1)
    )
    return np.linalg.eigvalsh(H.numpy())


@pytest.mark.parametrize("p, p_star, N", [(3, 2, 8), (2, 2, 7), (4, 1, 9), (1, 3, 6)])
def test_span_block_plus_bulk_equals_full_hessian(p, p_star, N):
    rng = np.random.default_rng(p * 10 + p_star)
    a, a_star = model.readout_scales(p, p_star, "mean")
    V = rng.normal(size=(p, N)) / np.sqrt(N) * 1.5
    V_star = rng.normal(size=(p_star, N)) / np.sqrt(N)
    Q, rho, T = V @ V.T, V @ V_star.T, V_star @ V_star.T
    values, mult = hessian.spectrum(rho, Q, T, a, a_star, N)
    assert mult.sum() == p * N
    np.testing.assert_allclose(
        np.sort(np.repeat(values, mult)), _full_hessian(V, V_star, a, a_star), atol=1e-10
    )


def test_solution_state_with_degenerate_span():
    p, p_star, N = 3, 2, 7
    a, a_star = model.readout_scales(p, p_star, "mean")
    rng = np.random.default_rng(5)
    V_star = np.linalg.qr(rng.normal(size=(N, p_star)))[0].T
    U = model.polar(rng.normal(size=(p, p_star)))
    V = np.sqrt(a_star / a) * U @ V_star
    values, mult = hessian.spectrum(V @ V_star.T, V @ V.T, V_star @ V_star.T, a, a_star, N)
    np.testing.assert_allclose(
        np.sort(np.repeat(values, mult)), _full_hessian(V, V_star, a, a_star), atol=1e-10
    )
    got = hessian.grouped(values, mult)
    want = hessian.solution_spectrum(p, p_star, a, a_star, N)
    assert [m for _, m in got] == [m for _, m in want]
    np.testing.assert_allclose([v for v, _ in got], [v for v, _ in want], atol=1e-10)


@pytest.mark.parametrize("p, p_star", [(3, 2), (1, 1), (5, 2), (4, 1)])
def test_plateau_spectrum_closed_form(p, p_star):
    N = p + p_star + 3
    a, a_star = model.readout_scales(p, p_star, "mean")
    q_bar, _ = model.plateau(p, np.eye(p_star), a, a_star)
    values, mult = hessian.spectrum(np.zeros((p, p_star)), q_bar * np.eye(p), np.eye(p_star), a, a_star, N)
    got = hessian.grouped(values, mult)
    want = [(v, m) for v, m in hessian.plateau_spectrum(p, p_star, a, a_star, N) if m > 0]
    assert [m for _, m in got] == [m for _, m in want]
    np.testing.assert_allclose([v for v, _ in got], [v for v, _ in want], atol=1e-10)
