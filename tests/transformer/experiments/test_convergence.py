from mfx import plotting
from mfx.experiment import get

NAME = "transformer_convergence"
ISSUE_CLAIMS = [
    "loss decrease",
    "R² of the log-linear",
    "late decay rate",
    "identical inputs",
    "QK-only training on a translate pair",
    "contrast",
]


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


def test_convergence_unknown_case_lists_cases(mfx_main, capsys, tmp_path):
    assert mfx_main("run", "experiment=transformer_convergence", "model.case=foo", f"out={tmp_path}") == 2
    assert "injective" in capsys.readouterr().err
