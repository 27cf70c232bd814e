"""The tangent-limit reference: the paired blockwise model is exactly independent of alpha (the
derivation in mfx.resnet.tangent), the i.i.d. one is not, and unpaired units are refused."""

import pytest
import torch

from mfx.resnet import draws, model, tangent

SEEDS = [0, 1]


def _setup(paired, L=3, M=4, D=6):
    X, Y, W_E, W_U = draws.data(SEEDS, 5, 3, 2, D)
    U, V = draws.units(SEEDS, L, M, D, "t", paired)
    return W_E, W_U, U, V, X, Y


def test_paired_blockwise_model_does_not_depend_on_alpha():
    W_E, W_U, U, V, X, Y = _setup(True)
    f = [model.train_blockwise_linear(W_E, W_U, U, V, X, Y, a, 0.5, 4)["f"] for a in (1.0, 7.0)]
    assert torch.allclose(f[0], f[1], rtol=1e-9, atol=1e-12)
    assert torch.equal(tangent.limit(W_E, W_U, U, V, X, Y, 0.5, 4)["f"], f[0])
    assert (f[0][:, -1] - f[0][:, 0]).abs().max() > 1e-3  # it trains


def test_iid_blockwise_model_carries_the_alpha_residual():
    W_E, W_U, U, V, X, Y = _setup(False)
    f = [model.train_blockwise_linear(W_E, W_U, U, V, X, Y, a, 0.5, 4)["f"] for a in (1.0, 7.0)]
    assert (f[0] - f[1]).abs().max() > 1e-2


def test_limit_refuses_unpaired_units():
    assert tangent.is_paired(*_setup(True)[2:4]) and not tangent.is_paired(*_setup(False)[2:4])
    with pytest.raises(ValueError, match="paired"):
        tangent.limit(*_setup(False))
