"""The metric glossary (`mfx metrics`): every column and metric an experiment's quick rows hold has its
one line in the family's table (mfx/<family>/metrics.py)."""

import pytest

from mfx import catalog, cli


@pytest.mark.parametrize("name", list(catalog.entries()))
def test_every_column_and_metric_of_the_quick_rows_is_in_the_glossary(quick_table, name):
    table = quick_table(name)  # the session's quick sweep, shared with the claims and figure tests
    columns, metrics = catalog.glossary(name)
    assert [c for c in table.columns if catalog.meaning(columns, c) is None] == []
    assert [m for m in sorted(table["metric"].unique()) if catalog.meaning(metrics, m) is None] == []
    assert all(text and "\n" not in text for text in {**columns, **metrics}.values())  # one line each


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
    assert max(len(line) for line in out.splitlines()) <= cli.WIDTH
    assert cli.main(["metrics", "resnet_deph"]) == 2
    assert "did you mean 'resnet_depth'" in capsys.readouterr().err
