import pytest
from sweep_checks import quick_sweep_test

from mfx import cli
from mfx.quadratic import ranges


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
