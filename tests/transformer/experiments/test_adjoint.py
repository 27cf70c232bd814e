from sweep_checks import quick_sweep_test

from mfx import plotting

NAME = "transformer_adjoint"
CLAIMS = [
    "the finite network's per-head gradient tends to the limit's",
    "depth rate of the per-head gradient error",
    "width rate of the per-head gradient error",
]


def test_experiment_runs_end_to_end_and_its_claims_pass(quick_table):
    table = quick_table(NAME)
    assert (table["status"] == "ok").all()
    claims = quick_table.claims(NAME)
    assert [c.statement[: len(w)] for c, w in zip(claims, CLAIMS)] == CLAIMS
    assert all(c.passed for c in claims), claims
    figures = plotting.plot_function(NAME)(table)
    assert all(plotting.layout_problems(f) == [] for f in figures.values())


def test_depths_must_divide_the_reference_grid(mfx_main, capsys, tmp_path):
    assert mfx_main("run", f"experiment={NAME}", "model.M=30", f"out={tmp_path / 'o'}") == 2
    assert "multiple of every depth" in capsys.readouterr().err


test_quick_sweep_reads = quick_sweep_test("transformer_adjoint")


def _grads(forward, Q, K, V):
    import torch

    params = [p.clone().requires_grad_(True) for p in (Q, K, V)]
    R = forward(*params).pow(2).sum()
    return torch.stack(torch.autograd.grad(R, params))


def test_the_width_limit_network_moves_no_token_with_the_value_noise():
    """`width_limit_forward`: without noise it is the network; with noise, a head's gradient does not change
    when another head's noise does (no head's noise moves a token), and is linear in its own (its Q, K gradient
    takes its whole V) — while the finite network's gradient changes with every head's noise."""
    import torch

    from mfx.transformer import model
    from mfx.transformer.experiments.adjoint import width_limit_forward

    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(1, 3, 4, 2, 2, generator=g, dtype=torch.float64) for _ in range(3))
    X, q0 = (
        torch.randn(2, 5, 2, generator=g, dtype=torch.float64),
        torch.tensor([1.0, 0.5], dtype=torch.float64),
    )
    noise = 0.5 * torch.randn(V.shape, generator=g, dtype=torch.float64)
    net = lambda *p: model.forward(*p, X, q0)
    wl = lambda nz: lambda *p: width_limit_forward(*p, nz, X, q0, 1.0)
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
