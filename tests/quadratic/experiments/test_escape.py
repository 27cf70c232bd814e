import numpy as np
import pytest
from sweep_checks import quick_sweep_test

from mfx import sweep
from mfx.experiment import ConfigError
from mfx.quadratic.experiments import escape


def test_quad_escape_quick(quick_table, claims_of):
    table = quick_table("quad_escape")
    # bocchi.escape_sigma_max/alternatives: at p* = 2 the escape follows the nuclear norm and ‖ρ0‖_F more closely
    # than σ_max (ranges 'escape.sigma_alternatives'); the other claims all pass
    claims = claims_of("quad_escape", failing=("ln σ_max(ρ0) explains τ_esc better",))
    statements = [c.statement for c in claims]
    assert sum(s.startswith("ln σ_max(ρ0) explains τ_esc better") for s in statements) == 1  # p* = 2 only
    assert sum("ODE slope of τ_esc vs ln N" in s for s in statements) == 2
    assert sum("SGD slope" in s for s in statements) == 2
    assert sum(s.startswith("SGD/ODE exit rate") for s in statements) == 2
    # escape vs the largest initial overlap and the F3 exit claims, one set per p*
    for prefix in ("ODE slope of τ_esc vs ln σ_max", "share of τ_esc's variance", "ODE exit rate of ε_pl"):
        assert sum(s.startswith(prefix) for s in statements) == 2, prefix
    assert sum(s.startswith("the time scale is set by p*") for s in statements) == 1  # p* = 1 against 2
    assert sum(s.startswith("ODE exit rate at one η") for s in statements) == 2  # one per p*
    kinds = {c.kind for c in claims}
    assert "" not in kinds and {"paper", "derived", "cross-check"} <= kinds
    # p = 1 < p* = 2 still escapes (its floor 1/3 is below eps_pl/2); every ODE escape time is finite
    ode = table[(table["metric"] == "tau_esc") & (table["method"] == "ode")]
    assert (ode["status"] == "ok").all()


def test_escape_beyond_the_escapable_learning_rate_is_recorded_not_hung():
    """(2, 2) at g = 0.4 > g_max ≈ 0.25 (science §4.1): no escape within the horizon → status no_escape."""
    (cfg,) = sweep.plan(
        [
            "experiment=quad_escape",
            "scale=quick",
            "model.p=2",
            "model.p_star=2",
            "model.g=0.4",
            "model.tau_max=3.0",
            "model.ode_N=[1000]",
            "model.sgd_N=[100]",
        ]
    ).jobs
    rows = escape.run_escape(cfg)
    esc = rows[rows["metric"] == "tau_esc"]
    # ode_eta runs at its own η (g = 0.05 here), ode and ode_spectrum are gradient flow
    at_g = esc[~esc["method"].isin(["ode", "ode_eta", "ode_spectrum"])]
    assert set(at_g["status"]) == {"no_escape"}
    assert np.isnan(at_g["value"]).all()


test_quick_sweep_reads = quick_sweep_test("quad_escape")


def test_the_sgd_N_cap_per_p_star_is_checked_before_anything_runs(tmp_path):
    for bad in ("5", "{3:0}", "{x:100}"):
        with pytest.raises(ConfigError, match="model.sgd_N_max must be a mapping"):
            sweep.plans(["experiment=quad_escape", f"model.sgd_N_max={bad}", f"out={tmp_path}"])
    assert sweep.plans(["experiment=quad_escape", "model.sgd_N_max={3:100000}", f"out={tmp_path}"])


def test_finite_g_exit_rate_is_8a_star_in_gradient_flow_and_falls_with_g():
    """At g = 0 the plateau rate is 8a* for every p (the g-fixed claims' identity); at one η across p it falls
    most where g = aη is largest (p = p*), by 16 % at p = p* = 1, η = 0.1 (q̄(0.1) = 1.33 q̄(0))."""
    for p_star in (1, 2, 3):
        for p in (p_star, 8):
            assert escape.finite_g_exit_rate(p, p_star, "mean", 0.0) == pytest.approx(8 / p_star)
    rates = [escape.finite_g_exit_rate(p, 1, "mean", 0.1 / p) for p in (1, 2, 8)]
    assert rates == sorted(rates) and rates[0] / 8 == pytest.approx(0.836, abs=1e-3)
