from sweep_checks import quick_sweep_test

from mfx import plotting

NAME = "transformer_adjoint"
CLAIMS = [
    "the finite network's per-head gradient tends to the limit's",
    "depth rate of the per-head gradient error",
    "width rate of the per-head gradient error",
]


def test_experiment_runs_end_to_end_and_its_claims_pass(quick_table):
    table = quick_table(NAME)
    assert (table["status"] == "ok").all()
    claims = quick_table.claims(NAME)
    assert [c.statement[: len(w)] for c, w in zip(claims, CLAIMS)] == CLAIMS
    assert all(c.passed for c in claims), claims
    figures = plotting.plot_function(NAME)(table)
    assert all(plotting.layout_problems(f) == [] for f in figures.values())


def test_depths_must_divide_the_reference_grid(mfx_main, capsys, tmp_path):
    assert mfx_main("run", f"experiment={NAME}", "model.M=30", f"out={tmp_path / 'o'}") == 2
    assert "multiple of every depth" in capsys.readouterr().err


test_quick_sweep_reads = quick_sweep_test("transformer_adjoint")
