"""The checks every experiment's quick sweep gets, made a test in the file of that experiment's end-to-end
test (`test_quick_sweep_reads = quick_sweep_test(NAME)`): pytest-xdist's loadfile sends one file to one
worker, so the worker that runs a sweep is the one that reads it, and no worker waits on another's."""

import matplotlib.pyplot as plt

from mfx import catalog, plotting, report, results, statements
from mfx.experiment import get


def warnings_under(folder) -> list[str]:
    """The warning lines the jobs under `folder` recorded (mfx.task: one line each, in provenance)."""
    return [line for s in results.collect([folder])[1]["sweeps"] for line in s["warnings"]]


def quick_sweep_test(name: str):
    """A test of the quick sweep of `name`: every column and metric of its rows has its one line in the
    family's glossary (mfx/<family>/metrics.py), its jobs warn nothing (a warning from a default
    configuration is a defect, issue 25), every paper claim names a statement part of the registry
    (mfx.statements, issue 36), and its figures, as `mfx report` saves them with their claims
    written under them, read (fonts ≥ 7 pt, nothing cut, no colliding ticks, no legend on data)."""

    def test(quick_table):
        table = quick_table(name)
        assert warnings_under(quick_table.root / name / "quick") == []
        columns, metrics = catalog.glossary(name)
        assert [c for c in table.columns if catalog.meaning(columns, c) is None] == []
        assert [m for m in sorted(table["metric"].unique()) if catalog.meaning(metrics, m) is None] == []
        assert all(text and "\n" not in text for text in {**columns, **metrics}.values())  # one line each
        exp = get(name)
        claims = quick_table.claims(name)
        known = {pid for s in statements.registry().values() for pid in s.part_ids()}
        assert [c.statement for c in claims if c.kind == "paper" and not c.statement_id] == []
        assert [c.statement_id for c in claims if c.statement_id and c.statement_id not in known] == []
        figs = report.captioned_figures(exp, "quick", table, quick_table.claims(name))
        assert figs
        problems = {}
        for key, fig in figs.items():
            assert fig._supxlabel is not None and "claims (quick scale)" in fig._supxlabel.get_text()
            problems[key] = plotting.layout_problems(fig)
            plt.close(fig)
        assert {k: v for k, v in problems.items() if v} == {}

    test.__doc__ = f"{name}'s quick rows are in the glossary and its captioned figures read."
    return test


def resnet_claims_test(name: str, parts: list[str], figures, once: bool = False):
    """A test that the quick sweep of the resnet experiment `name` has a claim for each of `parts` (a
    substring of its statement; exactly one each if `once`), that every claim passes with a seed-bootstrap
    u from ≥ 3 seeds, that every job ran, and that `figures(table)` (its plots function) draws and reads."""

    def test(quick_table):
        table = quick_table(name)
        claims = quick_table.claims(name)
        found = [sum(p in c.statement for c in claims) for p in parts]
        assert found == [1] * len(parts) if once else all(found), dict(zip(parts, found))
        failed = [
            f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})"
            for c in claims
            if not c.passed
        ]
        assert not failed
        assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
        assert (table["status"] == "ok").all()
        drawn = figures(table)
        assert drawn and all(fig.axes for fig in drawn.values())
        assert all(not plotting.layout_problems(fig) for fig in drawn.values())

    test.__doc__ = f"{name}'s quick claims pass, decided with their uncertainty; its figures draw."
    return test
