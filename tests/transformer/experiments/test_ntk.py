import pytest
from sweep_checks import quick_sweep_test, warnings_under

from mfx import plotting
from mfx.experiment import get

NAME = "transformer_ntk"
ISSUE_CLAIMS = [
    "closed-form Gram modulo affine",
    "closed-form Gram: max",
    "empirical NTK, translates",
    "finding: the full NTK (Q, K and V) on translates",
    "empirical NTK, QK block",
    "the network's own NTK (L = 1, its Jacobian) on cube and 2-GMM members",
    "λ_min decreases monotonically",
    "near-degenerate members: λ_min ∝ spacing²",
    "λ_min → 0",
    "block table, L = 1: the Q, K and QK blocks",
    "block table, L = 1: the V block",
    "discrete family: share of draws",
    "discrete family: the constructed non-distinguishable set",
]


def test_experiment_runs_end_to_end_and_its_claims_pass(quick_table):
    table = quick_table(NAME)
    assert (table["status"] == "ok").all()
    claims = quick_table.claims(NAME)
    assert len(claims) == len(ISSUE_CLAIMS)
    for claim, words in zip(claims, ISSUE_CLAIMS):
        assert claim.statement.startswith(words)
        assert claim.passed, claim
    figures = plotting.plot_function(NAME)(table)
    assert all(plotting.layout_problems(f) == [] for f in figures.values())


def test_partial_grid_gives_inconclusive_claims_not_a_crash(run_experiment):
    table = run_experiment(NAME, "scale=quick", "model.dist=cube", "model.ns=[64]")
    verdicts = [c.verdict for c in get(NAME).claims(table)]
    # the cube Grams alone decide the positive closed-form claim; the controls' claims have no rows, and
    # the block table has no exact nulls to test the "⇐" direction on
    assert verdicts[:5] == ["pass"] + ["inconclusive"] * 4
    assert verdicts[9:] == ["inconclusive"] * 4


@pytest.mark.parametrize("override", ["model.ns=[1073741824]", "model.H=1000000000"])
def test_absurd_sizes_are_refused_before_anything_runs(mfx_main, capsys, tmp_path, override):
    assert mfx_main("run", f"experiment={NAME}", override, f"out={tmp_path / 'o'}") == 2
    assert "GiB" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_paper_laplace_jobs_warn_nothing(run_experiment, tmp_path):
    """The paper grid's Laplace jobs (d = 1, 2, 3: at d = 1 the tilts' tails are heaviest), which warned
    at every d before; the other paper jobs run the quick code path at other d and sizes."""
    table = run_experiment(NAME, "scale=paper", "model.dist=laplace")
    assert sorted(table["d"].unique()) == [1, 2, 3]
    assert not (table["metric"] == "ntk_ratio").any()  # closed form only
    assert warnings_under(tmp_path / "out" / NAME) == []


test_quick_sweep_reads = quick_sweep_test("transformer_ntk")
