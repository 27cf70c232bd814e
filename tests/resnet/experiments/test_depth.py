"""resnet_depth end to end at scale=quick: its claims (the issue's) pass, figures draw, wrong physics
fails the claim, bad input exits 2 with one line naming the key."""

import pytest

from mfx import experiment as registry
from mfx import plotting

CLAIMS = ["slope of the output error vs L at M = 1", "a/L + b/√(LM)"]


def test_quick_scale_claims_pass(run_experiment):
    table = run_experiment("resnet_depth", "scale=quick")
    claims = registry.get("resnet_depth").claims(table)
    assert [any(s in c.statement for c in claims) for s in CLAIMS] == [True] * len(CLAIMS)
    failed = [f"{c.statement}: {c.measured} vs {c.expected} ({c.detail})" for c in claims if not c.passed]
    assert not failed
    assert (table["status"] == "ok").all()
    figures = plotting.plot_function("resnet_depth")(table)
    assert figures and all(fig.axes for fig in figures.values())


def test_claims_can_fail(run_experiment):
    """Wrong physics must fail the claim: the depth slope at M = 1 with a doubled error at large L."""
    table = run_experiment("resnet_depth", "scale=quick", "model.L=2,32", "model.M=1,16")
    bad = table.copy()
    bad.loc[bad["L"] == 32, "value"] *= 4  # slope −0.5 → ≈ 0
    assert not registry.get("resnet_depth").claims(bad)[0].passed


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
        ("model.sigma=softmax", "model.sigma"),
    ],
)
def test_bad_input_exits_2_naming_key(override, key, mfx_main, capsys, tmp_path):
    code = mfx_main("run", "experiment=resnet_depth", "scale=quick", override, f"out={tmp_path / 'o'}")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and key in err[0]
    assert not (tmp_path / "o").exists()
