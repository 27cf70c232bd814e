"""resnet_lazy end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw, odd M with
paired units exits 2 naming model.M, NaN runs become status=diverged rows."""

import pytest
from sweep_checks import quick_sweep_test, resnet_claims_test

from mfx.resnet import plots

CLAIMS = [
    "local feature movement vs α",
    "tangent model vs α",
    "falls at least like 1/α: exponent p",
    "falls like α^−2 as α → ∞ (the pair cancels the second-order remainder",
    "rises like α/√(LM): exponent q",
    "grows like (LM)^(1/4)",
    "paired init: the distance to the limit does not grow",
    "the networks learn",
]


test_quick_scale_claims_pass = resnet_claims_test("resnet_lazy", CLAIMS, plots.lazy)


def test_paired_init_needs_even_M(mfx_main, capsys, tmp_path):
    assert mfx_main("run", "experiment=resnet_lazy", "model.M=3", f"out={tmp_path / 'o'}") == 2
    assert "model.M" in capsys.readouterr().err


@pytest.mark.parametrize(
    "override, key",
    [
        ("model.limit_sizes=[8,5]", "model.limit_sizes"),
        ("model.limit_sizes=[512]", "model.L_ref"),
        ("model.M_ref=127", "model.M_ref"),
        ("model.iid_draws=0", "model.iid_draws"),
    ],
)
def test_bad_limit_config_exits_2_naming_key(override, key, mfx_main, capsys, tmp_path):
    assert mfx_main("run", "experiment=resnet_lazy", override, f"out={tmp_path / 'o'}") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and key in err[0]
    assert not (tmp_path / "o").exists()


def test_diverging_run_gives_diverged_rows(run_experiment):
    table = run_experiment(
        "resnet_lazy",
        "scale=quick",
        "model.alpha=1,2",
        "model.eta=1e200",
        "model.K=2",
        "model.limit_sizes=[8]",
        "model.L_ref=8",
        "model.M_ref=8",
    )
    assert (table["status"] == "diverged").any()
    assert set(table["alpha"]) == {1, 2}


test_quick_sweep_reads = quick_sweep_test("resnet_lazy")
