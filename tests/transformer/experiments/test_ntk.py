from mfx import plotting
from mfx.experiment import get

NAME = "transformer_ntk"
ISSUE_CLAIMS = [
    "positive families",
    "duplicates, translates, same-cov",
    "QK-block",
    "decreases monotonically",
    "λ_min → 0",
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
