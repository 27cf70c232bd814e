"""The metric glossary (`mfx metrics`): every column and metric an experiment's quick rows hold has its
one line in the family's table (mfx/<family>/metrics.py); the check of each quick sweep is
in tests/sweep_checks.py."""

from mfx import catalog, cli, commands


def test_a_numbered_metric_matches_its_pattern_and_nothing_else():
    words = {"Q_eig_<k>": "k-th largest eigenvalue of Q"}
    assert catalog.meaning(words, "Q_eig_12") == "k-th largest eigenvalue of Q"
    assert catalog.meaning(words, "Q_eig_") is None and catalog.meaning(words, "Q_eig_1x") is None


def test_mfx_metrics_prints_each_experiments_glossary(capsys):
    assert cli.main(["metrics"]) == 0
    out = capsys.readouterr().out
    for name in catalog.entries():
        metrics = catalog.glossary(name)[1]
        assert f"metrics of {name} " in out and all(f"  {m} " in out for m in metrics)
    assert max(len(line) for line in out.splitlines()) <= commands.WIDTH
    assert cli.main(["metrics", "resnet_deph"]) == 2
    assert "did you mean 'resnet_depth'" in capsys.readouterr().err
