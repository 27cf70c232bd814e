import pytest

from mfx import plotting
from mfx.experiment import get

NAME = "transformer_limit"
ISSUE_CLAIMS = ["slope of the error", "depth and width trade"]


def test_experiment_runs_end_to_end_and_its_claims_pass(run_experiment):
    table = run_experiment(NAME, "scale=quick")
    assert (table["status"] == "ok").all()
    claims = get(NAME).claims(table)
    assert len(claims) == len(ISSUE_CLAIMS)
    for claim, words in zip(claims, ISSUE_CLAIMS):
        assert words in claim.statement
        assert claim.passed, claim
    figures = plotting.plot_function(NAME)(table)
    assert figures


@pytest.mark.parametrize(
    "override,words",
    [
        ("model.dist=cubes", "discrete, cube, laplace, gmm2, gauss, duplicates, translates, same_cov, iid"),
        ("model.base=nope", "discrete, cube, laplace, gmm2, gauss"),
        ("model.L=0", "model.L"),
        ("model.n=0", "model.n"),
        ("model.train=q", "qkv, qk, v"),
        ("model.params=[]", "model.params"),
    ],
)
def test_bad_input_exits_2_naming_the_key(mfx_main, capsys, tmp_path, override, words):
    assert mfx_main("run", "experiment=transformer_limit", override, f"out={tmp_path / 'o'}") == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
