import torch

from mfx import runtime
from mfx.transformer import families, model, ntk

DT = torch.float64


def _setup(L=2, H=3, S=2, n=5, N=3, d=2):
    g = runtime.generator(0, "ntk-test")
    X = torch.randn(N, n, d, generator=g, dtype=DT)
    q0 = torch.tensor([1.0, 0.5], dtype=DT)
    return (*model.init_params(L, H, d, list(range(S))), X, q0)


def test_ntk_equals_explicit_per_parameter_gradients():
    """K = L·H·J Jᵀ with J assembled output by output from autograd of the plain loop model."""
    Q, K, V, X, q0 = _setup()
    L, H = Q.shape[1], Q.shape[2]
    blocks = ntk.ntk_blocks(Q, K, V, X, q0)
    for s in range(Q.shape[0]):
        params = [p[s : s + 1].clone().requires_grad_(True) for p in (Q, K, V)]
        y = model.forward_loop(*params, X, q0).reshape(-1)
        rows = [
            torch.cat([g.reshape(-1) for g in torch.autograd.grad(y[a], params, retain_graph=True)])
            for a in range(y.numel())
        ]
        J = torch.stack(rows)
        P = Q[s].numel()
        JV, JQK = J[:, 2 * P :], J[:, : 2 * P]
        assert torch.allclose(blocks["V"][s], L * H * JV @ JV.T, atol=1e-12, rtol=0)
        assert torch.allclose(blocks["QK"][s], L * H * JQK @ JQK.T, atol=1e-12, rtol=0)
        assert torch.allclose(blocks["full"][s], L * H * J @ J.T, atol=1e-12, rtol=0)


def test_first_order_loss_decrease_matches_one_gd_step():
    """R(θ − ηLH∇R) − R(θ) = −(η/N²) rᵀ K r + O(η²)."""
    Q, K, V, X, q0 = _setup()
    N = X.shape[0]
    y = torch.randn(N, 2, generator=runtime.generator(3, "y"), dtype=DT)
    Kfull = ntk.ntk_blocks(Q, K, V, X, q0)["full"]
    r = (model.forward(Q, K, V, X, q0) - y).reshape(Q.shape[0], -1)
    predicted = -torch.einsum("sa,sab,sb->s", r, Kfull, r) / N**2
    for eta in (1e-4, 1e-5):
        out = model.train(Q, K, V, X, q0, y, eta=eta, steps=1)
        measured = (out["loss"][1] - out["loss"][0]) / eta
        assert torch.allclose(measured, predicted, rtol=50 * eta)


def test_translate_pair_is_invisible_to_qk_block_at_one_layer():
    c = families.clouds("translates", [1.0, 1.0], 32, 2, runtime.generator(0, "tr"))
    Q, K, V, _, q0 = _setup(L=1, H=16)
    sp = {b: ntk.spectrum(G)["ratio"] for b, G in ntk.ntk_blocks(Q, K, V, c.X, q0).items()}
    assert (sp["QK"].abs() < 1e-13).all()
    assert (sp["V"] > 1e-4).all() and (sp["full"] > 1e-4).all()


def test_affine_residual_and_gram():
    g = runtime.generator(0, "gram")
    z = torch.randn(500, 2, generator=g, dtype=DT)
    affine = 1.5 + z @ torch.tensor([0.3, -2.0], dtype=DT)
    F = torch.stack([affine, torch.cosh(z[:, 0]), torch.cosh(z[:, 0]) + affine], dim=1)
    R = ntk.affine_residual(F, z)
    assert R[:, 0].abs().max() < 1e-12
    assert torch.allclose(R[:, 1], R[:, 2], atol=1e-12)
    sp = ntk.spectrum(ntk.lse_gram(F, z))
    assert sp["ratio"].abs() < 1e-14  # column 0 is affine and columns 1, 2 agree modulo affine
    G = ntk.lse_gram(F[:, 1:2], z)
    assert torch.allclose(G, (R[:, 1:2].T @ R[:, 1:2]) / 500)


def test_closed_form_gram_separates_families_from_controls():
    g = runtime.generator(0, "fam")
    z = torch.randn(2000, 2, generator=g, dtype=DT)
    cubes = families.clouds("cube", [1.0, 1.5, 2.0], 8, 2, g)
    same = families.clouds("same_cov", [1.0, 1.0, 1.0], 8, 2, g)
    assert ntk.spectrum(ntk.lse_gram(cubes.log_mgf(z), z))["ratio"] > 1e-8
    assert ntk.spectrum(ntk.lse_gram(same.log_mgf(z), z))["ratio"].abs() < 1e-14


def _tilted(X, z):
    """∇Λ [N, d] and ∇²Λ [N, d, d] of the empirical log-MGFs of clouds X [N, n, d] at z [d]."""
    p = torch.softmax(X @ z, dim=-1)  # [N, n]
    mean = torch.einsum("in,ina->ia", p, X)
    second = torch.einsum("in,ina,inb->iab", p, X, X)
    return mean, second - mean[:, :, None] * mean[:, None, :]


def test_one_layer_blocks_are_the_grams_of_the_lse_gradients_and_hessians():
    """ntk.py docstring: K_V = δ_ab (1/H) Σ_h ⟨∇Λ_i, ∇Λ_j⟩(z_h); K_QK = (1/H) Σ_h V ∇²Λ_i G ∇²Λ_j Vᵀ."""
    beta, H, d = 0.7, 5, 2
    c = families.clouds("cube", [1.0, 1.5, 2.0], 16, d, runtime.generator(0, "blocks"))
    Q, K, V = model.init_params(1, H, d, [0])
    q0 = torch.tensor([1.0, 0.5], dtype=DT)
    blocks = ntk.ntk_blocks(Q, K, V, c.X, q0, beta=beta)
    N = c.X.shape[0]
    KV = torch.zeros(N, d, N, d, dtype=DT)
    KQK = torch.zeros(N, d, N, d, dtype=DT)
    for h in range(H):
        Qh, Kh, Vh = Q[0, 0, h], K[0, 0, h], V[0, 0, h]
        z = beta * Kh.T @ Qh @ q0
        grad, hess = _tilted(c.X, z)
        KV += torch.einsum("ia,ja,bc->ibjc", grad, grad, torch.eye(d, dtype=DT)) / H
        G = beta**2 * ((Qh @ q0).square().sum() * torch.eye(d, dtype=DT) + q0.square().sum() * Kh.T @ Kh)
        KQK += torch.einsum("xa,iab,bc,jcd,yd->ixjy", Vh, hess, G, hess, Vh) / H
    assert torch.allclose(blocks["V"][0], KV.reshape(N * d, N * d), atol=1e-12, rtol=0)
    assert torch.allclose(blocks["QK"][0], KQK.reshape(N * d, N * d), atol=1e-12, rtol=0)


def test_translates_null_vector_is_in_qk_but_not_v_block():
    """Λ_2 = Λ_1 + ⟨b, z⟩: (w, −w) is null for K_QK (modulo affine) but not for K_V (modulo constants)."""
    c = families.clouds("translates", [1.0, 1.0], 64, 2, runtime.generator(1, "tr"), shift=0.8)
    Q, K, V = model.init_params(1, 16, 2, [0])
    q0 = torch.tensor([1.0, 0.5], dtype=DT)
    blocks = ntk.ntk_blocks(Q, K, V, c.X, q0)
    for w in torch.eye(2, dtype=DT):
        v = torch.cat([w, -w])
        assert v @ blocks["QK"][0] @ v < 1e-14 * blocks["QK"][0].diagonal().sum()
        assert v @ blocks["V"][0] @ v > 1e-3 * blocks["V"][0].diagonal().sum()


def test_split_blocks_add_up_and_gram_modulo_constants_keeps_linear_functions():
    Q, K, V, X, q0 = _setup(L=1, H=4)
    b = ntk.ntk_blocks(Q, K, V, X, q0, split_qk=True)
    assert torch.allclose(b["Q"] + b["K"], b["QK"], atol=1e-13, rtol=0)
    assert set(ntk.ntk_blocks(Q, K, V, X, q0)) == {"full", "V", "QK"}
    z = torch.randn(300, 2, generator=runtime.generator(2, "z"), dtype=DT)
    F = torch.stack([z[:, 0], z[:, 0] + 3.0], dim=1)  # equal modulo constants, not zero modulo them
    assert ntk.spectrum(ntk.lse_gram(F, z, "constants"))["ratio"].abs() < 1e-14
    assert ntk.spectrum(ntk.lse_gram(F[:, :1], z, "constants"))["lam_min"] > 0.5
    assert ntk.lse_gram(F, z, "affine").abs().max() < 1e-14


def test_head_kernels_average_to_the_one_layer_ntk():
    """Cross-check: the closed-form kernel of single heads, averaged over the H heads of a one-layer
    network, equals that network's autograd NTK (K = L·H·J Jᵀ at L = 1)."""
    Q, K, V, X, q0 = _setup(L=1, H=7, S=1)
    k = ntk.head_kernels(Q[0, 0], K[0, 0], V[0, 0], X, q0, beta=0.7).mean(0)
    assert torch.allclose(k, ntk.ntk_blocks(Q, K, V, X, q0, beta=0.7)["full"][0], atol=1e-12, rtol=0)


def test_limit_kernel_is_the_head_average_of_the_initial_law():
    """K_∞ by Monte Carlo (2¹⁸ heads): one-layer networks of H heads approach it as H^(−1/2)."""
    _, _, _, X, q0 = _setup(N=2, n=6)
    Kinf = ntk.limit_kernel(X, q0, 2**18, runtime.generator(0, "kinf"))
    devs = []
    for H in (16, 256):
        Q, K, V = model.init_params(1, H, 2, list(range(32)), stream=("kinf-test",))
        K0 = ntk.ntk_blocks(Q, K, V, X, q0)["full"]
        devs.append(float(((K0 - Kinf) ** 2).sum((-1, -2)).mean().sqrt() / Kinf.norm()))
    # 16× more heads: the RMS deviation falls 4× (±30 %: 32 seeds of a heavy-tailed mean)
    assert 4 / 1.3 < devs[0] / devs[1] < 4 * 1.3, devs


def test_population_moments_are_the_closed_forms_derivatives_and_the_large_cloud_limit():
    """∇Λ, ∇²Λ of a Gaussian member N(0, p I) are p z and p I exactly; those of a cube member are the n → ∞
    limit of its cloud's tilted moments; and the V and QK blocks add up to the full head kernel."""
    g = runtime.generator(0, "moments")
    z = 0.5 * torch.randn(5, 2, generator=g, dtype=DT)
    gauss = families.clouds("gauss", [1.5], 4, 2, g)
    mean, cov = ntk.population_moments(gauss.lam, z)
    assert torch.allclose(mean[:, 0], 1.5 * z, atol=1e-14)
    assert torch.allclose(cov[:, 0], 1.5 * torch.eye(2, dtype=DT).expand(5, 2, 2), atol=1e-14)
    cube = families.clouds("cube", [1.0, 2.0], 2**16, 2, g)
    for a, b in zip(ntk.population_moments(cube.lam, z), ntk.tilted_moments(cube.X, z)):
        assert (a - b).abs().max() < 0.03  # Monte Carlo over 2¹⁶ tokens (entries O(1))
    Q, K, V, X, q0 = _setup(L=1, H=5, S=1)
    blocks = ntk.head_blocks(Q[0, 0], K[0, 0], V[0, 0], X, q0, beta=0.7)
    assert torch.allclose(
        blocks["V"] + blocks["QK"], ntk.head_kernels(Q[0, 0], K[0, 0], V[0, 0], X, q0, beta=0.7)
    )
