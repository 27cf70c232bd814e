import numpy as np
import pytest

from mfx.quadratic import model, ode


@pytest.mark.parametrize("g, Delta", [(0.0, 0.0), (0.3, 0.0), (0.3, 0.5)])
def test_rhs_equals_monte_carlo_drift(g, Delta):
    """dρ/dτ = −2 E[err λνᵀ], dQ/dτ = −4 E[err λλᵀ] + 4 g E[err² λλᵀ], err = ŷ − y − √Δ ξ."""
    rng = np.random.default_rng(2)
    p, p_star, n = 3, 2, 2_000_000
    a, a_star = model.readout_scales(p, p_star, "mean")
    G = rng.normal(size=(p + p_star, p + p_star))
    Sigma = G @ G.T / (p + p_star)
    Q, rho, T = Sigma[:p, :p], Sigma[:p, p:], Sigma[p:, p:]
    z = rng.multivariate_normal(np.zeros(p + p_star), Sigma, size=n)
    lam, nu = z[:, :p], z[:, p:]
    err = a * (lam**2).sum(1) - a_star * (nu**2).sum(1) - np.sqrt(Delta) * rng.normal(size=n)
    samples_rho = -2 * err[:, None, None] * lam[:, :, None] * nu[:, None, :]
    samples_Q = (-4 * err + 4 * g * err**2)[:, None, None] * lam[:, :, None] * lam[:, None, :]
    drho, dQ = ode.rhs(rho[None], Q[None], T, a, a_star, g, Delta)
    for exact, samples in ((drho[0], samples_rho), (dQ[0], samples_Q)):
        se = samples.std(0) / np.sqrt(n)
        assert np.all(np.abs(exact - samples.mean(0)) < 5 * se + 1e-12)


def test_rk4_agrees_with_dop853_and_gradient_flow_reaches_zero():
    p, p_star = 3, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0, Q0 = model.idealised_init(p, p_star, 1000, [0, 1])
    tau = np.linspace(0, 20, 11)
    r1, q1 = ode.solve(rho0, Q0, T, a, a_star, tau, g=0.05)
    r2, q2 = ode.solve(rho0, Q0, T, a, a_star, tau, g=0.05, method="RK4", dt=1e-2)
    np.testing.assert_allclose(r1, r2, atol=1e-8)
    np.testing.assert_allclose(q1, q2, atol=1e-8)
    eps = model.risk(r1, q1, T, a, a_star)
    assert eps[0, 0] > 0.6 and eps[-1].max() < 1e-3


def test_polar_factor_is_conserved_and_selects_the_closest_solution():
    p, p_star = 3, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0, Q0 = model.idealised_init(p, p_star, 1000, [0, 1, 2])
    tau = np.geomspace(1e-2, 200, 50)
    rho, _ = ode.solve(rho0, Q0, T, a, a_star, tau, g=0.1)
    drift = np.linalg.norm(model.polar(rho) - model.polar(rho0), axis=(-2, -1))
    assert drift.max() < 1e-9
    s = np.sqrt(a_star / a)
    np.testing.assert_allclose(rho[-1], s * model.polar(rho0), atol=1e-3)
    # an anisotropic teacher breaks the conservation law
    Ta = model.teacher_T(2, 0.5)
    rho_a, _ = ode.solve(rho0, Q0, Ta, a, a_star, tau, g=0.0)
    assert np.linalg.norm(model.polar(rho_a[-1]) - model.polar(rho0), axis=(-2, -1)).min() > 0.1


def test_underparameterized_limit_and_plateau():
    p, p_star = 1, 2
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0, Q0 = model.idealised_init(p, p_star, 10**4, [0])
    rho, Q = ode.solve(rho0, Q0, T, a, a_star, np.array([0.5, 100.0]))
    eps = model.risk(rho, Q, T, a, a_star)[:, 0]
    assert eps[1] == pytest.approx(model.eps_underparameterized(p, p_star, a_star), rel=1e-6)
    assert eps[0] == pytest.approx(model.plateau(p, T, a, a_star)[1], rel=1e-2)


@pytest.mark.parametrize(
    "p, p_star, g, Delta", [(3, 2, 0.1, 0.0), (5, 2, 0.05, 0.2), (2, 2, 0.0, 0.0), (4, 1, 0.1, 0.0)]
)
def test_reduced_ode_equals_the_full_system(p, p_star, g, Delta):
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0, Q0 = model.idealised_init(p, p_star, 500, [0, 1], sigma0=0.8)
    tau = np.geomspace(1e-2, 50, 15)
    r1, q1 = ode.solve(rho0, Q0, T, a, a_star, tau, g=g, Delta=Delta, rtol=1e-12, atol=1e-15)
    r2, q2 = ode.solve(
        rho0, Q0, T, a, a_star, tau, g=g, Delta=Delta, method="reduced", rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(r2, r1, atol=1e-9)
    np.testing.assert_allclose(q2, q1, atol=1e-9)
    with pytest.raises(ValueError):
        ode.solve(rho0, Q0 + 0.01 * np.eye(p)[::-1], T, a, a_star, tau, method="reduced")


@pytest.mark.parametrize("p, p_star, t, Delta", [(3, 2, 1.0, 0.0), (1, 2, 1.3, 0.5)])
def test_early_escape_shift_from_the_plateau_is_its_closed_form(p, p_star, t, Delta):
    """Started at the plateau's norms (σ0² = q̄(g)), Q stays put and ρ grows at one rate k, so SGD's noise adds
    V = 4gM/(2k) to the overlap's variance and the shift is ln(1 + V/q̄)/(2k): M = E[(ŷ − y)²λ_k²ν_m²] at
    ρ = 0 by Monte Carlo, against the closed-form moment inside `early_escape_shift`. At g = 0 there is no
    noise and no shift."""
    a, a_star, g = *model.readout_scales(p, p_star, "mean"), 0.1
    q = ode.early_escape_shift(p, p_star, a, a_star, g, t, Delta=Delta)["q"]
    out = ode.early_escape_shift(p, p_star, a, a_star, g, t, sigma0=np.sqrt(q), Delta=Delta)
    rng = np.random.default_rng(3)
    n = 200_000
    lam, nu = np.sqrt(q) * rng.normal(size=(n, p)), np.sqrt(t) * rng.normal(size=(n, p_star))
    err = a * (lam**2).sum(1) - a_star * (nu**2).sum(1) - np.sqrt(Delta) * rng.normal(size=n)
    M = err**2 * lam[:, 0] ** 2 * nu[:, 0] ** 2
    V = 4 * g * M.mean() / (2 * out["rate"]) / q
    assert out["V"] == pytest.approx(V, abs=5 * 4 * g * M.std() / np.sqrt(n) / (2 * out["rate"]) / q)
    assert out["shift"] == pytest.approx(np.log1p(out["V"]) / (2 * out["rate"]), rel=1e-12)
    assert ode.early_escape_shift(p, p_star, a, a_star, 0.0, t, Delta=Delta)["shift"] == 0.0
