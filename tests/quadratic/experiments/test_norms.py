import numpy as np
import pytest
from sweep_checks import quick_sweep_test

from mfx.experiment import KINDS
from mfx.quadratic import model, ode
from mfx.quadratic.experiments import norms


def test_quad_norms_quick(quick_table, claims_of):
    claims = claims_of("quad_norms")
    assert len(claims) == 12  # 5 of norm learning, 1 of the plateau, 6 of the initialisation (bocchi.init)
    assert all(c.kind in KINDS and c.source for c in claims)
    assert sum(c.kind == "paper" and "Bocchi" in c.source for c in claims) == 5
    init = {c.statement_id for c in claims if c.statement_id.startswith("bocchi.init/")}
    assert init == {"bocchi.init/setup", "bocchi.init/learns", "bocchi.init/zero_init"}


@pytest.mark.parametrize(
    "p, p_star, readout, g",
    [(3, 2, "mean", 0.0), (3, 2, "mean", 0.1), (8, 3, "mean", 0.05), (2, 2, "sum", 0.02)],
)
def test_fixed_point_is_where_the_ode_settles_at_rho_zero(p, p_star, readout, g):
    """Plain computation: integrate the full ODE from ρ = 0, Q0 = I (ρ stays 0) to τ = 20."""
    a, a_star = model.readout_scales(p, p_star, readout)
    T = np.eye(p_star)
    _, Q = ode.solve(np.zeros((1, p, p_star)), np.eye(p)[None], T, a, a_star, np.array([0.0, 20.0]), g=g)
    np.testing.assert_allclose(Q[-1, 0], norms.fixed_point(p, T, a, a_star, g) * np.eye(p), atol=1e-9)
    if g == 0:
        assert norms.fixed_point(p, T, a, a_star, g) == pytest.approx(model.plateau(p, T, a, a_star)[0])


def test_fixed_point_matches_the_science_table():
    """science §4.1 (its own ODE runs): (p, p*) = (3, 2) at η = 0.1 and 0.5 (g = η/3): q̄ = 0.629, 0.775."""
    T = np.eye(2)
    assert norms.fixed_point(3, T, 1 / 3, 1 / 2, 0.1 / 3) == pytest.approx(0.629, abs=5e-4)
    assert norms.fixed_point(3, T, 1 / 3, 1 / 2, 0.5 / 3) == pytest.approx(0.775, abs=5e-4)


@pytest.mark.parametrize("q0", [1.0, 0.2])  # above and below q̄ = 0.6
def test_norm_time_is_when_the_ode_comes_within_delta(q0):
    p, p_star, delta = 3, 2, 0.05
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    tau = np.linspace(0, 3, 30001)
    _, Q = ode.solve(np.zeros((1, p, p_star)), q0 * np.eye(p)[None], T, a, a_star, tau)
    q_bar = norms.fixed_point(p, T, a, a_star, 0.0)
    first = tau[np.argmax(np.abs(Q[:, 0, 0, 0] / q_bar - 1) <= delta)]
    assert norms.norm_time(p, T, a, a_star, q0, delta) == pytest.approx(first, abs=2e-4)


@pytest.mark.parametrize("p, p_star, g", [(3, 2, 0.1), (8, 2, 0.1), (2, 3, 0.05)])
def test_norm_time_at_finite_g_is_when_the_ode_at_g_comes_within_delta(p, p_star, g):
    """SGD's N-free read time τ_norm(g) (quadrature) against the ODE at g from ρ = 0, Q0 = I; at (8, 2) q0 = 1
    starts only ≈ 2δ from q̄(0.1) = 0.90."""
    delta = 0.05
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    tau = np.linspace(0, 2, 20001)
    _, Q = ode.solve(np.zeros((1, p, p_star)), np.eye(p)[None], T, a, a_star, tau, g=g)
    q_bar = norms.fixed_point(p, T, a, a_star, g)
    first = tau[np.argmax(np.abs(Q[:, 0, 0, 0] / q_bar - 1) <= delta)]
    assert norms.norm_time(p, T, a, a_star, 1.0, delta, g) == pytest.approx(first, abs=2e-4)


def test_norm_time_quadrature_agrees_with_the_closed_form_as_g_goes_to_zero():
    T = np.eye(2)
    closed = norms.norm_time(3, T, 1 / 3, 1 / 2, 1.0, 0.05)
    assert norms.norm_time(3, T, 1 / 3, 1 / 2, 1.0, 0.05, 1e-9) == pytest.approx(closed, rel=1e-6)


def test_sgd_rows_end_at_each_seeds_escape(quick_table):
    """Each SGD seed stops at its escape (ε below the midpoint of plateau and floor): its last row is the
    first below that level, or the horizon's for a seed that has not escaped; no NaN rows are left behind."""
    t = quick_table("quad_norms")
    t = t[t["experiment"] == "quad_norms"]
    theory = t[t["tau"].isna() & (t["method"] == "ode")].set_index("metric")["value"]
    level = 0.5 * (theory["eps_pl"] + theory["eps_floor"])
    eps = t[(t["method"] == "sgd") & (t["metric"] == "eps")]
    assert (eps["status"] == "ok").all()
    horizon = eps["tau"].max()
    stopped = 0
    for _, d in eps.groupby(["N", "seed"]):
        d = d.sort_values("tau")
        assert (d["value"].iloc[:-1] >= level).all()
        assert d["value"].iloc[-1] < level or d["tau"].iloc[-1] == horizon
        stopped += d["tau"].iloc[-1] < horizon
    assert stopped >= eps["seed"].nunique()  # at N = 1e4 every seed escapes well before the horizon


def test_the_sum_readout_is_handled_with_its_derived_values(run_experiment):
    """Under model.readout=sum (a = a* = 1) q̄, κ and τ_norm are rederived from (a, a*): the derived claims
    pass (q̄ = 0.4 at p = 3, p* = 2, against 0.6 for the mean readout)."""
    table = run_experiment(
        "quad_norms", "scale=quick", "model.readout=sum", "model.norm_N=[10000,100000]", "model.sgd_seeds=8"
    )
    claims = norms.claims_norms(table)
    derived = [c for c in claims if c.kind == "derived"]  # 3 of the norms, 1 of the init's overlap
    assert len(derived) == 4 and all(c.verdict == "pass" for c in derived), [
        (c.statement, c.verdict) for c in derived
    ]


test_quick_sweep_reads = quick_sweep_test("quad_norms")


@pytest.mark.parametrize("p, p_star, g", [(2, 3, 0.1), (1, 2, 0.05), (2, 3, 0.0), (3, 2, 0.1)])
def test_eps_floor_is_where_the_ode_at_g_ends(p, p_star, g):
    """bocchi.init's 'learnt' level: the full ODE at g from a generic small overlap, run to τ = 60, ends at
    norms.eps_floor (the gradient-flow floor at g = 0, raised by g > 0 for p < p*; 0 for p ≥ p*, approached
    as (p − p*)/(64τ²) = 4e-6 at τ = 60)."""
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0 = 0.1 * np.random.default_rng(0).standard_normal((1, p, p_star))
    rho, Q = ode.solve(rho0, np.eye(p)[None], T, a, a_star, np.array([0.0, 60.0]), g=g)
    eps = model.risk(rho[-1], Q[-1], T, a, a_star)[0]
    assert eps == pytest.approx(norms.eps_floor(p, p_star, a, a_star, g), abs=1e-5)
    if g == 0:
        assert norms.eps_floor(p, p_star, a, a_star, g) == pytest.approx(
            model.eps_underparameterized(p, p_star, a_star)
        )
