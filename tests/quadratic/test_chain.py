import numpy as np
import pytest
import torch
from scipy import stats

from mfx import runtime
from mfx.quadratic import chain, model, sgd


def _reference_fields(W0, W_star, seed, a, a_star, eta, n_steps, Delta):
    """Plain float64 SGD on sgd.simulate's inputs for one seed; yields (z, |x|², √Δ ξ) of every step."""
    N = W0.shape[-1]
    assert n_steps <= sgd.chunk_steps(N)  # one chunk of exactly n_steps draws
    X = torch.randn((n_steps, N), generator=runtime.generator(seed, "quadratic", "sgd", "x"), dtype=W0.dtype)
    xi = torch.randn((n_steps,), generator=runtime.generator(seed, "quadratic", "sgd", "xi"), dtype=W0.dtype)
    W, V_star = W0.clone(), W_star
    for t in range(n_steps):
        x = X[t]
        z = torch.cat([W @ x, V_star @ x]) / N**0.5
        lam = z[: W.shape[0]]
        noise = Delta**0.5 * xi[t] if Delta > 0 else 0.0
        yield z.numpy(), float(x @ x), float(noise)
        err = a * (lam**2).sum() - a_star * (z[W.shape[0] :] ** 2).sum() - noise
        W = W - 2 * a * eta * err * torch.outer(lam, x) / N**0.5


@pytest.mark.parametrize(("readout", "Delta"), [("mean", 0.0), ("mean", 0.3), ("sum", 0.1)])
def test_chain_fed_the_inputs_of_a_full_run_gives_its_overlaps(readout, Delta):
    N, p, p_star, seeds, n_steps = 64, 3, 2, [4, 7], 300
    a, a_star = model.readout_scales(p, p_star, readout)
    eta = 0.15 / a if readout == "mean" else 0.05
    W_star = model.teacher_weights(N, p_star, seeds)
    W0 = model.student_weights(N, p, seeds)
    log = [0, 100, n_steps]
    out = sgd.simulate(W0, W_star, seeds, a, a_star, eta, log, Delta=Delta)
    M0 = chain.overlaps_of(W0, W_star).numpy()
    for i, s in enumerate(seeds):
        M = M0[i].copy()
        for t, (z, x2, noise) in enumerate(
            _reference_fields(W0[i], W_star[i], s, a, a_star, eta, n_steps, Delta)
        ):
            if t in log:
                k = log.index(t)
                np.testing.assert_allclose(M[:p, :p], out["Q"][k, i], rtol=0, atol=1e-12)
                np.testing.assert_allclose(M[:p, p:], out["rho"][k, i], rtol=0, atol=1e-12)
            chain.step(M, z, x2, p, a, a_star, eta, N, noise)
        np.testing.assert_allclose(M[:p, :p], out["Q"][-1, i], rtol=0, atol=1e-12)
        np.testing.assert_allclose(M[:p, p:], out["rho"][-1, i], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(M[p:, p:], M0[i, p:, p:])
    assert np.abs(out["Q"][-1] - out["Q"][0]).max() > 0.1  # the run moved


def _weights_singular(N, p, p_star, kind):
    """[W; W*] (k × N) with M full rank, exactly singular, or nearly singular (student rows in the teacher span)."""
    g = np.random.default_rng(11)
    W_star = g.standard_normal((p_star, N))
    W = g.standard_normal((p, N))
    if kind != "full":
        W[0] = 0.7 * W_star[0] - 0.2 * W_star[1]
        W[1] = 1.3 * W_star[1]
    if kind == "near":
        W[:2] += 1e-7 * g.standard_normal((2, N))
    return np.concatenate([W, W_star])


@pytest.mark.parametrize("kind", ["full", "singular", "near"])
def test_sampled_fields_have_the_law_of_an_N_dimensional_input(kind):
    """(z, |x|²) from the chain's sampler vs z = V x/√N, |x|² from direct draws of x ~ N(0, I_N)."""
    N, p, p_star, n = 40, 3, 2, 20000
    k = p + p_star
    V = _weights_singular(N, p, p_star, kind)
    M = V @ V.T / N
    assert np.linalg.matrix_rank(M, tol=1e-10) == (k if kind == "full" else 3)
    g = np.random.default_rng(1)
    z, x2 = chain.fields(M, p, g.standard_normal((n, k)), g.chisquare(N - k, n))
    X = np.random.default_rng(2).standard_normal((n, N))
    z_ref, x2_ref = X @ V.T / N**0.5, (X**2).sum(1)
    # moments: E zzᵀ = M, E|x|² = N, Var|x|² = 2N, E[|x|² zzᵀ] = (N + 2) M
    se = np.sqrt((M.diagonal()[:, None] * M.diagonal()[None, :] + M**2) / n)
    assert np.all(np.abs(z.T @ z / n - M) < 5 * se)
    assert abs(x2.mean() - N) < 5 * np.sqrt(2 * N / n)
    assert abs(x2.var() / (2 * N) - 1) < 5 * np.sqrt(2 / n) * 2
    assert np.allclose(
        (x2[:, None, None] * z[:, :, None] * z[:, None, :]).mean(0), (N + 2) * M, atol=0.15 * N
    )
    # two-sample KS on |x|², a field, the error of a mean-readout student and joint statistics
    a, a_star = 1 / p, 1 / p_star
    err = a * (z[:, :p] ** 2).sum(1) - a_star * (z[:, p:] ** 2).sum(1)
    err_ref = a * (z_ref[:, :p] ** 2).sum(1) - a_star * (z_ref[:, p:] ** 2).sum(1)
    pairs = {
        "x2": (x2, x2_ref),
        "z0": (z[:, 0], z_ref[:, 0]),
        "err": (err, err_ref),
        "err*x2": (err * x2, err_ref * x2_ref),
        "x2-|z|^2": (x2 - (z**2).sum(1) * N, x2_ref - (z_ref**2).sum(1) * N),
    }
    pvalues = {key: stats.ks_2samp(u, v).pvalue for key, (u, v) in pairs.items()}
    pvalues["x2 vs chi2_N"] = stats.kstest(x2, stats.chi2(N).cdf).pvalue
    pvalues["z0 vs normal"] = stats.kstest(z[:, 0] / M[0, 0] ** 0.5, "norm").pvalue
    assert min(pvalues.values()) > 1e-4, pvalues  # 7 tests: family-wise false alarm < 0.1 %


def test_factor_is_a_square_root_of_singular_and_nearly_singular_M():
    for kind in ("full", "singular", "near"):
        V = _weights_singular(40, 3, 2, kind)
        M = V @ V.T / 40
        A = chain.factor(M, 3)
        np.testing.assert_allclose(A @ A.T, M, rtol=0, atol=1e-13)
        B, C = A[:3, 3:], A[:3, :3]
        np.testing.assert_allclose(A[3:], np.c_[np.zeros((2, 3)), np.linalg.cholesky(M[3:, 3:])], atol=1e-15)
        if kind == "full":  # plain Cholesky of the Schur complement Q − BBᵀ
            np.testing.assert_allclose(C, np.linalg.cholesky(M[:3, :3] - B @ B.T), atol=1e-13)
        if kind == "singular":  # the pivoted one stops at the dependent student row: a zero column
            assert np.any(np.all(C == 0, axis=0))


@pytest.mark.parametrize("teacher", model.TEACHERS)
@pytest.mark.parametrize("init", ["gaussian", "orthogonal"])
@pytest.mark.parametrize("r", [1.0, 0.3])
def test_initial_overlaps_have_the_law_of_the_weights(teacher, init, r):
    """M0 entries vs the overlaps of model's weight draws over 400 seeds (two-sample KS, 7 entries), N = 12,
    at the independent draw's overlap (r = 1) and a smaller one (rho0_scale r = 0.3)."""
    N, p, p_star, seeds = 12, 2, 2, list(range(400))
    M0 = chain.initial_overlaps(
        seeds, p, p_star, N, teacher=teacher, init=init, sigma0=0.7, anisotropy=0.4, rho0_scale=r
    )
    Ws = model.teacher_weights(N, p_star, seeds, kind=teacher, anisotropy=0.4)
    W0 = model.student_weights(N, p, seeds, kind=init, sigma0=0.7, W_star=Ws, rho0_scale=r)
    M_ref = chain.overlaps_of(W0, Ws)
    assert M0.dtype == torch.float64 and M0.shape == (400, 4, 4)
    torch.testing.assert_close(M0, M0.transpose(1, 2))
    pvalues = {}
    for i, j in [(0, 0), (0, 1), (0, 2), (1, 3), (2, 2), (2, 3), (3, 3)]:
        pvalues[(i, j)] = stats.ks_2samp(M0[:, i, j].numpy(), M_ref[:, i, j].numpy()).pvalue
        if np.ptp(M_ref[:, i, j].numpy()) < 1e-12:  # deterministic entries (orthonormal rows) agree exactly
            np.testing.assert_allclose(M0[:, i, j], M_ref[:, i, j], atol=1e-12)
            pvalues[(i, j)] = 1.0
    assert min(pvalues.values()) > 1e-4, pvalues


@pytest.mark.parametrize("init", ["gaussian", "orthogonal"])
def test_zero_rho0_scale_puts_the_students_orthogonal_to_the_teacher(init):
    """r = 0: ρ0 = 0 to round-off in the chain and in the weights; orthogonal students keep Q0 = σ0² I."""
    seeds = list(range(5))
    M0 = chain.initial_overlaps(seeds, 3, 2, 50, init=init, sigma0=0.7, rho0_scale=0.0).numpy()
    Ws = model.teacher_weights(50, 2, seeds)
    rho0, Q0 = model.overlaps(model.student_weights(50, 3, seeds, init, 0.7, W_star=Ws, rho0_scale=0.0), Ws)
    for rho, Q in ((M0[:, :3, 3:], M0[:, :3, :3]), (rho0, Q0)):
        np.testing.assert_allclose(rho, 0.0, atol=1e-14)
        if init == "orthogonal":
            np.testing.assert_allclose(Q, np.broadcast_to(0.49 * np.eye(3), Q.shape), atol=1e-14)


def test_idealised_init_is_the_odes():
    M0 = chain.initial_overlaps([3, 5], 3, 2, 1000, init="idealised", sigma0=0.9).numpy()
    rho0, Q0 = model.idealised_init(3, 2, 1000, [3, 5], 0.9)
    np.testing.assert_array_equal(M0[:, :3, 3:], rho0)
    np.testing.assert_array_equal(M0[:, :3, :3], Q0)
    np.testing.assert_array_equal(M0[:, 3:, 3:], np.broadcast_to(np.eye(2), (2, 2, 2)))


def test_overlaps_of_matches_model_overlaps():
    W_star, W0 = model.teacher_weights(50, 2, [0, 1]), model.student_weights(50, 3, [0, 1])
    M = chain.overlaps_of(W0, W_star).numpy()
    rho, Q = model.overlaps(W0, W_star)
    np.testing.assert_allclose(M[:, :3, 3:], rho, rtol=1e-14)
    np.testing.assert_allclose(M[:, :3, :3], Q, rtol=1e-14)


def _run(seeds, eta, steps, **kwargs):
    p, p_star, N = 3, 2, 300
    a, a_star = model.readout_scales(p, p_star, "mean")
    M0 = chain.initial_overlaps(seeds, p, p_star, N)
    return chain.simulate(M0, p, N, seeds, a, a_star, eta, steps, **kwargs)


def test_seed_is_identical_alone_or_in_a_batch_and_per_seed_eta():
    steps = sgd.log_grid(300, 30.0, per_decade=5)
    batch = _run([1, 2, 3], torch.tensor([0.3, 0.6, 0.3], dtype=torch.float64), steps, Delta=0.2)
    alone = _run([2], 0.6, steps, Delta=0.2)
    np.testing.assert_array_equal(batch["Q"][:, 1], alone["Q"][:, 0])
    np.testing.assert_array_equal(batch["rho"][:, 1], alone["rho"][:, 0])
    assert list(batch["steps"]) == list(steps)
    assert batch["rho"].shape == (len(steps), 3, 3, 2) and batch["Q"].shape == (len(steps), 3, 3, 3)
    # the logging grid does not change the trajectory
    coarse = _run([2], 0.6, [0, int(steps[-1])], Delta=0.2)
    np.testing.assert_array_equal(coarse["Q"][-1, 0], alone["Q"][-1, 0])


def test_batched_lanes_equal_a_plain_loop_of_the_scalar_step():
    """`simulate` (LANES seeds at a time, padded, with label noise) against factor + fields + step on one
    seed at a time, with the same draws: the same arithmetic, so equal to round-off."""
    p, p_star, N, Delta, steps = 3, 2, 50, 0.1, 700
    k, seeds = p + p_star, list(range(chain.LANES + 3))  # one full group of lanes and a padded one
    a, a_star = model.readout_scales(p, p_star, "mean")
    M0 = chain.initial_overlaps(seeds, p, p_star, N).numpy()
    out = chain.simulate(M0, p, N, seeds, a, a_star, 0.5, [0, steps], Delta=Delta)
    for i, s in enumerate(seeds):
        draws, M = chain._Draws([s], k, N, Delta), M0[i].copy()
        for t in range(steps):
            if t % chain.CHUNK == 0:
                draws.refill(range(1))
            j = t % chain.CHUNK
            z, x2 = chain.fields(M, p, draws.g[0, j][None], draws.chi2[0, j][None])
            chain.step(M, z[0], x2[0], p, a, a_star, 0.5, N, draws.noise[0, j])
        np.testing.assert_allclose(out["Q"][-1, i], M[:p, :p], rtol=0, atol=1e-13)
        np.testing.assert_allclose(out["rho"][-1, i], M[:p, p:], rtol=0, atol=1e-13)
    assert np.abs(out["Q"][-1] - out["Q"][0]).max() > 0.1  # the runs moved


def test_threads_do_not_change_the_numbers():
    steps = sgd.log_grid(300, 10.0, per_decade=5)
    seeds = list(range(2 * chain.LANES + 1))
    one, two = (_run(seeds, 0.3, steps, Delta=0.1, threads=n) for n in (1, 2))
    np.testing.assert_array_equal(one["Q"], two["Q"])
    np.testing.assert_array_equal(one["rho"], two["rho"])


def test_a_stop_mask_finishes_seeds_one_by_one():
    """Seeds the mask marks stop stepping (NaN afterwards); the others run on exactly as without a stop."""
    steps = sgd.log_grid(300, 20.0, per_decade=10)
    free = _run([0, 1, 2], 0.3, steps)
    calls = []

    def stop(rho, Q):
        calls.append(len(calls))
        return np.array([len(calls) >= 5, False, len(calls) >= 8])

    out = _run([0, 1, 2], 0.3, steps, stop=stop)
    np.testing.assert_array_equal(out["Q"][:, 1], free["Q"][:, 1])
    np.testing.assert_array_equal(out["Q"][:5, 0], free["Q"][:5, 0])
    assert np.isnan(out["Q"][5:, 0]).all() and np.isnan(out["Q"][8:, 2]).all()
    np.testing.assert_array_equal(out["Q"][:8, 2], free["Q"][:8, 2])
    everyone = _run([0, 1], 0.3, steps, stop=lambda rho, Q: np.array([True, True]))
    assert list(everyone["steps"]) == [0]


def test_stop_rule_and_divergence_gives_nan_not_an_error():
    steps = sgd.log_grid(300, 50.0, per_decade=5)
    out = _run([0, 1], torch.tensor([0.3, 200.0], dtype=torch.float64), steps)
    assert np.all(np.isfinite(out["Q"][-1, 0])) and np.all(np.isnan(out["Q"][-1, 1]))
    out = _run([0], 0.3, steps, stop=lambda rho, Q: True)
    assert list(out["steps"]) == [0]


def test_chain_from_rank_deficient_M_stays_a_gram_matrix():
    """A student row equal to a teacher row (rank p + p* − 1): the chain runs and M stays PSD."""
    p, p_star, N, seeds = 2, 2, 100, [0, 1]
    W_star = model.teacher_weights(N, p_star, seeds)
    W0 = model.student_weights(N, p, seeds)
    W0[:, 0] = W_star[:, 0]
    M0 = chain.overlaps_of(W0, W_star)
    assert torch.linalg.matrix_rank(M0[0], atol=1e-10) == 3
    a, a_star = model.readout_scales(p, p_star, "mean")
    out = chain.simulate(M0, p, N, seeds, a, a_star, 0.2, [0, 1, 2000])
    for k in range(3):
        M = np.block(
            [[out["Q"][k], out["rho"][k]], [out["rho"][k].transpose(0, 2, 1), M0[:, p:, p:].numpy()]]
        )
        assert np.linalg.eigvalsh(M).min() > -1e-12
    assert np.linalg.matrix_rank(M[0], tol=1e-10) == 4  # the step adds the new input's direction


def _escape_and_curves(N, readout="mean", Delta=0.0, seeds=200, p=3, p_star=2, g=0.1, tau_max=4.0):
    """Chain and full SGD (float32, as the experiments run it) from the same init law: {method: (escape
    times (first tau with eps < eps_pl/2) [S], eps on a common tau grid [K, S])}."""
    a, a_star = model.readout_scales(p, p_star, readout)
    _, eps_pl = model.plateau(p, np.eye(p_star), a, a_star)
    steps = np.unique(np.round(np.linspace(0, tau_max / g, 41) * N).astype(np.int64))
    tau = steps / N * g
    ids = list(range(seeds))
    M0 = chain.initial_overlaps(ids, p, p_star, N)
    runs = {"chain": (chain.simulate(M0, p, N, ids, a, a_star, g / a, steps, Delta), M0[:, p:, p:].numpy())}
    W0 = model.student_weights(N, p, ids, dtype=torch.float32)
    W_star = model.teacher_weights(N, p_star, ids, dtype=torch.float32)
    full = sgd.simulate(W0, W_star, ids, a, a_star, g / a, steps, Delta)
    runs["full"] = (full, model.overlaps(W_star, W_star)[1])
    out = {}
    for name, (run, T) in runs.items():
        eps = model.risk(run["rho"], run["Q"], T, a, a_star)
        out[name] = (model.escape_time(tau, eps, 0.5 * eps_pl), eps)
    return out


def _compare(u, v):
    """(two-sample KS p-value, difference of means in units of its SE)."""
    se = np.sqrt(u.var(ddof=1) / len(u) + v.var(ddof=1) / len(v))
    return stats.ks_2samp(u, v).pvalue, (u.mean() - v.mean()) / se


@pytest.mark.slow
@pytest.mark.parametrize(
    ("N", "readout", "Delta"), [(500, "mean", 0.0), (1000, "mean", 0.0), (500, "sum", 0.05)]
)
def test_chain_and_full_sgd_agree_in_law(N, readout, Delta):
    """Escape times and eps(tau) of 200 chain seeds vs 200 full-SGD seeds: two-sample KS and means."""
    out = _escape_and_curves(N, readout, Delta)
    (t_chain, eps_chain), (t_full, eps_full) = out["chain"], out["full"]
    assert np.isfinite(t_chain).all() and np.isfinite(t_full).all()
    p_esc, z_esc = _compare(t_chain, t_full)
    # the curve as one number per seed (its mean over the grid), and pointwise means
    p_curve, z_curve = _compare(eps_chain.mean(0), eps_full.mean(0))
    se = np.sqrt(eps_chain.var(1, ddof=1) / eps_chain.shape[1] + eps_full.var(1, ddof=1) / eps_full.shape[1])
    z_points = (eps_chain.mean(1) - eps_full.mean(1))[1:] / se[1:]
    print(
        f"N={N} {readout} Δ={Delta}: tau_esc chain {t_chain.mean():.4f} full {t_full.mean():.4f}: KS p={p_esc:.3f}, "
        f"Δmean={z_esc:+.2f} SE; mean eps over tau: KS p={p_curve:.3f}, Δmean={z_curve:+.2f} SE; "
        f"pointwise max |Δ|/SE={np.abs(z_points).max():.2f} over {len(z_points)} times"
    )
    assert p_esc > 0.01 and abs(z_esc) < 2
    assert p_curve > 0.01 and abs(z_curve) < 2
    assert np.abs(z_points).max() < 3.5  # 40 correlated times: a looser pointwise bound
