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


def _plain_split(V, V_star, a, a_star, tol=1e-8):
    """(zero modes, rotation generators in the zero eigenspace) from the full p·N Hessian and the p·N-vectors
    K·V (K ∈ so(p)), by plain linear algebra: no span block, no bulk formula."""
    p, N = V.shape
    Vt, Vs = torch.tensor(V), torch.tensor(V_star)
    H = torch.autograd.functional.hessian(
        lambda v: hessian.risk_in_span(v.reshape(p, N), Vs, a, a_star), Vt.reshape(-1)
    ).numpy()
    w, vec = np.linalg.eigh(H)
    Z = vec[:, np.abs(w) <= tol]
    gens = []
    for i in range(p):
        for j in range(i + 1, p):
            K = np.zeros((p, p))
            K[i, j], K[j, i] = 1, -1
            gens.append((K @ V).ravel())
    G = np.array(gens).T if gens else np.zeros((p * N, 0))
    rank = np.linalg.matrix_rank(G, tol=1e-8) if gens else 0
    in_zero = np.linalg.matrix_rank(Z.T @ G, tol=1e-8) if gens and Z.size else 0
    return Z.shape[1], rank, in_zero


@pytest.mark.parametrize("p, p_star, N", [(2, 2, 6), (3, 2, 7), (4, 2, 7), (4, 1, 6), (3, 3, 7), (5, 2, 8)])
def test_zero_mode_counts_at_a_solution_match_a_plain_computation(p, p_star, N):
    """At V = s U V*: all rotation generators are zero modes, they span tangent_dimension directions, the
    rest of the zero eigenspace has overparameterisation_count; zero_mode_split agrees."""
    rng = np.random.default_rng(p + 7 * p_star)
    a, a_star = model.readout_scales(p, p_star, "mean")
    V_star = np.linalg.qr(rng.normal(size=(N, p_star)))[0].T
    V = np.sqrt(a_star / a) * model.polar(rng.normal(size=(p, p_star))) @ V_star
    n_zero, n_generated, n_in_zero = _plain_split(V, V_star, a, a_star)
    assert n_generated == n_in_zero == hessian.tangent_dimension(p, p_star)
    assert n_zero - n_in_zero == hessian.overparameterisation_count(p, p_star, N)
    split = hessian.zero_mode_split(V @ V_star.T, V @ V.T, V_star @ V_star.T, a, a_star, N, 0.05, 0.99)
    assert (split["n_tangent"], split["n_extra"], split["n_negative"]) == (
        hessian.tangent_dimension(p, p_star),
        hessian.overparameterisation_count(p, p_star, N),
        0,
    )
    assert split["n_zero"] + split["n_positive"] == p * N


def test_zero_mode_split_off_the_manifold_counts_no_vanishing_generator():
    """Near the manifold (a surplus student row with a small part α outside the teacher space, as training
    leaves it), the generator rotating that small part is not counted as tangent; the counts stay those of
    the manifold, and the full-space plain computation sees the same band structure."""
    p, p_star, N = 4, 2, 9
    rng = np.random.default_rng(3)
    a, a_star = model.readout_scales(p, p_star, "mean")
    basis = np.linalg.qr(rng.normal(size=(N, N)))[0].T
    V_star = basis[:p_star]
    U = model.polar(rng.normal(size=(p, p_star)))
    U_perp = np.linalg.svd(U, full_matrices=True)[0][:, p_star:]
    V = np.sqrt(a_star / a) * U @ V_star + 0.03 * U_perp @ basis[p_star : p_star + 2]
    split = hessian.zero_mode_split(V @ V_star.T, V @ V.T, V_star @ V_star.T, a, a_star, N, 0.05, 0.99)
    assert split["n_tangent"] == hessian.tangent_dimension(p, p_star)
    assert split["n_extra"] == hessian.overparameterisation_count(p, p_star, N)
    Vt, Vs = torch.tensor(V), torch.tensor(V_star)
    H = torch.autograd.functional.hessian(
        lambda v: hessian.risk_in_span(v.reshape(p, N), Vs, a, a_star), Vt.reshape(-1)
    ).numpy()
    w = np.linalg.eigvalsh(H) / (4 * a * a_star)
    assert (np.abs(w) <= 0.05).sum() == split["n_zero"] and (w < -0.05).sum() == split["n_negative"]
