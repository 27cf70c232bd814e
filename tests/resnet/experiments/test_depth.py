"""resnet_depth end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw; bad input exits 2 with one line naming the key."""

import pytest
from sweep_checks import quick_sweep_test, resnet_claims_test

from mfx.resnet import plots

CLAIMS = [
    "slope of the output error vs L at M = 1 (step K)",
    "slope of the output error vs L at M = 1 at every trained GD step k",
    "slope of the output error vs L at M = 1 at k = 0",
    "trained companion",
    "a/L + b/√(LM)",
    "the networks learn",
]


test_quick_scale_claims_pass = resnet_claims_test("resnet_depth", CLAIMS, plots.depth)


@pytest.mark.parametrize(
    "override, key",
    [
        ("model.L=0", "model.L"),
        ("model.D=0", "model.D"),
        ("model.K=0", "model.K"),
        ("model.N=0", "model.N"),
        ("model.alpha=0", "model.alpha"),
        ("model.L=256", "model.L_ref"),
        ("model.M=1,256", "model.M_ref"),
        ("model.M=[1,0]", "model.M"),
        ("model.sigma=softmax", "model.sigma"),
    ],
)
def test_bad_input_exits_2_naming_key(override, key, mfx_main, capsys, tmp_path):
    code = mfx_main("run", "experiment=resnet_depth", "scale=quick", override, f"out={tmp_path / 'o'}")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and key in err[0]
    assert not (tmp_path / "o").exists()


test_quick_sweep_reads = quick_sweep_test("resnet_depth")
