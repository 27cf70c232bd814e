import pytest
from sweep_checks import quick_sweep_test

from mfx import cli
from mfx.experiment import KINDS


def test_quad_implicit_bias_quick(quick_table, claims_of):
    claims = claims_of("quad_implicit_bias")
    assert {c.statement.split(",")[0] for c in claims} >= {
        "ODE drift ||S(t) − S(0)||_F up to τ = 200",
        "ODE final polar factor vs polar(ρ0)",
        "SGD drift exponent vs eta",
        "anisotropic-teacher drift",
    }


@pytest.mark.parametrize(
    "override, key",
    [
        (
            "model.control_anisotropy=1.5",
            "model.control_anisotropy",
        ),  # these two checks once sat after a return
        ("model.per_decade=1", "model.per_decade"),
        ("model.readout=sum", "model.readout"),  # the claims' levels and g grid are set for the mean readout
        ("model.init=gaussian", "model.init"),  # the conservation law needs Q0 = σ0² I exactly
    ],
)
def test_bad_input_is_refused_in_one_line(tmp_path, capsys, override, key):
    out = tmp_path / "out"
    assert cli.main(["run", "experiment=quad_implicit_bias", f"out={out}", override]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err and "Traceback" not in err
    assert not out.exists()


def test_every_claim_has_a_kind_and_a_source(quick_table):
    claims = quick_table.claims("quad_implicit_bias")
    assert all(c.kind in KINDS and c.source and "TODO" not in c.source for c in claims)
    assert {c.kind for c in claims} == {"paper", "derived", "cross-check", "identity"}


test_quick_sweep_reads = quick_sweep_test("quad_implicit_bias")
