"""resnet_lazy end to end at scale=quick: its claims (the issue's) pass, figures draw, odd M with
paired units exits 2 naming model.M, NaN runs become status=diverged rows."""

from mfx import experiment as registry
from mfx import plotting

CLAIMS = ["local feature movement vs alpha", "tangent model vs alpha"]


def test_quick_scale_claims_pass(run_experiment):
    table = run_experiment("resnet_lazy", "scale=quick")
    claims = registry.get("resnet_lazy").claims(table)
    assert [any(s in c.statement for c in claims) for s in CLAIMS] == [True] * len(CLAIMS)
    failed = [f"{c.statement}: {c.measured} vs {c.expected} ({c.detail})" for c in claims if not c.passed]
    assert not failed
    assert (table["status"] == "ok").all()
    figures = plotting.plot_function("resnet_lazy")(table)
    assert figures and all(fig.axes for fig in figures.values())


def test_paired_init_needs_even_M(mfx_main, capsys, tmp_path):
    assert mfx_main("run", "experiment=resnet_lazy", "model.M=3", f"out={tmp_path / 'o'}") == 2
    assert "model.M" in capsys.readouterr().err


def test_diverging_run_gives_diverged_rows(run_experiment):
    table = run_experiment("resnet_lazy", "scale=quick", "model.alpha=1,2", "model.eta=1e200", "model.K=2")
    assert (table["status"] == "diverged").any()
    assert set(table["alpha"]) == {1, 2}
