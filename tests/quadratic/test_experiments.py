import numpy as np
import pandas as pd
import pytest

from mfx import cli
from mfx.experiment import get
from mfx.quadratic import experiments


def _claims(name, table):
    figures = get(name).plot(table)
    assert figures and all(fig.axes for fig in figures.values())
    claims = get(name).claims(table)
    failed = [f"{c.statement}: {c.measured:.4g} vs {c.expected} ({c.detail})" for c in claims if not c.passed]
    assert claims and not failed, failed
    return claims


def test_quad_hessian_quick(run_experiment):
    table = run_experiment("quad_hessian", "scale=quick")
    claims = _claims("quad_hessian", table)
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    assert len(claims) == 3 * 2 * 3  # 3 values of p × 2 states × 3 claims


def test_quad_escape_quick(run_experiment):
    table = run_experiment("quad_escape", "scale=quick")
    claims = _claims("quad_escape", table)
    statements = [c.statement for c in claims]
    assert sum("ODE slope" in s for s in statements) == 2 and sum("SGD slope" in s for s in statements) == 2
    # p = 1 < p* = 2 still escapes (its floor 1/3 is below eps_pl/2); every ODE escape time is finite
    ode = table[(table["metric"] == "tau_esc") & (table["method"] == "ode")]
    assert (ode["status"] == "ok").all()


def test_quad_curves_quick(run_experiment):
    table = run_experiment("quad_curves", "scale=quick")
    claims = _claims("quad_curves", table)
    assert sum("tail slope" in c.statement for c in claims) == 2  # p = 3, 8 > p* = 2
    assert any("limit eps_g" in c.statement for c in claims)


def test_quad_implicit_bias_quick(run_experiment):
    table = run_experiment("quad_implicit_bias", "scale=quick")
    claims = _claims("quad_implicit_bias", table)
    assert {c.statement.split(",")[0] for c in claims} >= {
        "ODE drift ||S(t) − S(0)||_F up to tau = 200",
        "ODE final polar factor vs polar(rho0)",
        "SGD drift exponent vs eta",
        "anisotropic-teacher drift",
    }


def test_escape_beyond_the_escapable_learning_rate_is_recorded_not_hung():
    """(2, 2) at g = 0.4 > g_max ≈ 0.25 (science §4.1): no escape within the horizon → status no_escape."""
    (cfg,) = cli.plan(
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
    )
    rows = experiments.run_escape(cfg)
    esc = rows[rows["metric"] == "tau_esc"]
    assert set(esc[esc["method"] != "ode"]["status"]) == {"no_escape"}
    assert np.isnan(esc[esc["method"] != "ode"]["value"]).all()


@pytest.mark.parametrize(
    "override, key",
    [
        ("model.N=1", "model.p_star"),
        ("model.Delta=-0.1", "model.Delta"),
        ("model.eta=0", "model.eta"),
        ("model.p=0", "model.p"),
        ("model.readout=max", "model.readout"),
    ],
)
def test_bad_input_exits_2_with_one_line(override, key, capsys):
    assert cli.main(["run", "experiment=quad_curves", "scale=quick", override]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and key in err[0]


def _drift_table(rng, n_seeds, g=(0.005, 0.01, 0.02, 0.04)):
    """Final SGD drifts c_s·√g·|Z| (a per-seed prefactor times one random angle), as run_implicit_bias logs
    them: one row per (g, seed) at the last time, plus an earlier row that must be ignored."""
    c = rng.lognormal(0.0, 0.5, n_seeds)
    rows = [
        {
            "method": "sgd",
            "metric": "drift",
            "status": "ok",
            "p": 2,
            "p_star": 2,
            "g": gg,
            "seed": s,
            "tau": tau,
            "value": value,
        }
        for gg in g
        for s in range(n_seeds)
        for tau, value in ((0.5, 9.0), (3.0, c[s] * np.sqrt(gg) * abs(rng.normal())))
    ]
    return pd.DataFrame(rows)


def test_drift_exponent_and_its_seed_bootstrap_sd_match_fresh_replicates():
    rng = np.random.default_rng(1)
    n_seeds = 48
    table = _drift_table(rng, n_seeds)
    slope = experiments.sgd_drift_fits(table)[(2, 2)]["slope"]
    boot = experiments.sgd_drift_bootstrap_sd(table)[(2, 2)]
    replicates = [experiments.sgd_drift_fits(_drift_table(rng, n_seeds))[(2, 2)]["slope"] for _ in range(200)]
    assert abs(slope - 0.5) < 4 * np.std(replicates)
    assert abs(np.mean(replicates) - 0.5) < 0.03
    # the seed noise the 4-point fit SE does not see (here the SE is 0.68 of the replicate SD)
    assert 0.8 < boot / np.std(replicates) < 1.4
