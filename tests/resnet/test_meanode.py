"""The RK4 particle mean ODE (`mfx.resnet.meanode`) against the Euler scheme that the finite
network is (every layer holding all particles), after K GD steps: order 1 in 1/L for Euler, order 4
in 1/L_r for RK4 — two codes, one limit."""

import numpy as np
import pytest
import torch

from mfx import fit
from mfx.resnet import draws, meanode, model

S, M_P, D, K = 2, 8, 8, 5


@pytest.fixture(scope="module")
def setup():
    X, Y, W_E, W_U = draws.data([0, 1], 10, 5, 5, D)
    U0, V0 = draws.units([0, 1], 1, M_P, D)
    return W_E, W_U, U0[:, 0], V0[:, 0], X, Y


def _rk4(setup, L_r):
    W_E, W_U, U0, V0, X, Y = setup
    return meanode.train(W_E, W_U, U0, V0, X, Y, L_r, alpha=1.0, eta=1.0, K=K)["f"]


def _rms(a, b):
    return float(((a - b) ** 2).mean().sqrt())


def test_node_weights_sum_to_the_number_of_steps():
    w = meanode.node_weights(4)
    assert w.tolist() == pytest.approx([1 / 6, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 2 / 3, 1 / 6])
    assert float(w.sum()) == pytest.approx(4)


def test_euler_network_converges_to_the_rk4_reference_like_one_over_L(setup):
    W_E, W_U, U0, V0, X, Y = setup
    ref = _rk4(setup, 16)
    Ls = [8, 16, 32, 64]
    err = []
    for L in Ls:
        U, V = meanode.tied_units(U0, V0, L)
        out = model.train(W_E, W_U, U, V, X, Y, 1.0, 1.0, K)
        err.append(_rms(out["f"], ref))
    slope = fit.power_law(np.array(Ls, float), np.array(err))["slope"]
    assert slope == pytest.approx(-1.0, abs=0.1)
    assert err[-1] < 0.05 * float(ref.abs().mean())  # and it is small: the same limit, trained
    assert _rms(ref[:, -1], ref[:, 0]) > 10 * err[-1]  # training moved the outputs far more


def test_rk4_converges_to_itself_at_fourth_order(setup):
    finest = _rk4(setup, 32)
    Ls = [2, 4, 8]
    err = [_rms(_rk4(setup, L_r), finest) for L_r in Ls]
    slope = fit.power_law(np.array(Ls, float), np.array(err))["slope"]
    assert slope == pytest.approx(-4.0, abs=0.5)


def test_a_rate_without_the_node_weights_is_caught(setup, monkeypatch):
    """The mean-field rate must divide by each node's RK4 weight: with w_k = 1 the midpoints move
    2/3 as fast as they should and the Euler network no longer converges to the reference."""
    monkeypatch.setattr(
        meanode,
        "node_weights",
        lambda L_r, dtype=torch.float64, device="cpu": torch.ones(2 * L_r + 1, dtype=dtype),
    )
    W_E, W_U, U0, V0, X, Y = setup
    ref = _rk4(setup, 16)
    err = []
    for L in (16, 64):
        U, V = meanode.tied_units(U0, V0, L)
        err.append(_rms(model.train(W_E, W_U, U, V, X, Y, 1.0, 1.0, K)["f"], ref))
    assert err[1] > 0.5 * err[0]  # no 1/L convergence left
