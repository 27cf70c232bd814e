import numpy as np
import pandas as pd
import pytest
from sweep_checks import quick_sweep_test

from mfx import cli
from mfx.quadratic import ranges
from mfx.quadratic.analysis import _at
from mfx.quadratic.experiments.curves import sgd_plateau


def test_quad_curves_quick(quick_table, claims_of):
    table = quick_table("quad_curves")
    claims = claims_of("quad_curves")
    assert sum("tail slope" in c.statement for c in claims) == 2  # p = 3, 8 > p* = 2
    assert any("limit ε_g" in c.statement for c in claims)
    assert all(c.kind and c.source for c in claims)
    # ε_g is read at the fixed τ of ranges.py, which the SGD runs reach (no stop rule before it)
    sgd = table[(table["method"] == "sgd") & (table["p"] >= table["p_star"])]
    assert (sgd.groupby("p")["tau"].max() >= ranges.CURVES_READ_TAU - 1e-9).all()


@pytest.mark.parametrize(
    "override, key",
    [
        ("model.N=1", "model.p_star"),
        ("model.Delta=-0.1", "model.Delta"),
        ("model.eta=0", "model.eta"),
        ("model.p=0", "model.p"),
        ("model.readout=max", "model.readout"),
        ("model.init=uniform", "model.init"),
        ("model.ode_init=exact", "model.ode_init"),
    ],
)
def test_bad_input_exits_2_with_one_line(override, key, capsys):
    assert cli.main(["run", "experiment=quad_curves", "scale=quick", override]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and key in err[0]


test_quick_sweep_reads = quick_sweep_test("quad_curves")


def _curves(method, tau0s, tau):
    """Synthetic ε(τ) rows: ODE seeds flattest at their τ0 (a parabola in ln τ around 0.75, escape at τ = 5);
    SGD seeds falling along the plateau (early escape), so SGD/ODE depends on when it is read."""
    rows = []
    for seed, tau0 in enumerate(tau0s):
        if method == "ode":
            eps = 0.75 + 0.01 * np.log(tau / tau0) ** 2
        else:
            eps = 0.75 * (1 - 0.02 * tau) * (1 + 0.001 * seed)
        eps = np.where(tau < 5, eps, 0.01)
        rows += [{"seed": seed, "tau": t, "value": e} for t, e in zip(tau, eps)]
    return pd.DataFrame(rows)


def test_sgd_plateau_reads_sgd_at_the_ode_flattest_time_with_both_seed_parts_in_u():
    tau = np.geomspace(0.05, 10, 60)
    sgd = _curves("sgd", [None] * 16, tau)
    same = _curves("ode", [0.6] * 8, tau)
    ratio, tau_pl, level, u_sgd, u_ode = sgd_plateau(sgd, same, 0.75, 0.0)
    assert tau_pl == pytest.approx(0.6, rel=0.1) and level == pytest.approx(0.75, rel=1e-3)
    expected = np.median([_at(tau, g["value"], tau_pl) for _, g in sgd.groupby("seed")]) / level
    assert ratio == pytest.approx(expected) and u_sgd > 0
    assert u_ode < 1e-12  # one reading time whatever ODE seeds are drawn
    spread = _curves("ode", [0.3, 0.45, 0.6, 0.9, 1.3, 2.0, 0.4, 1.1], tau)
    assert (
        sgd_plateau(sgd, spread, 0.75, 0.0)[4] > 0
    )  # the ODE seeds move the reading time, so u has their part
