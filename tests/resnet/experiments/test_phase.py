"""resnet_phase end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw."""

import pytest
from sweep_checks import quick_sweep_test

from mfx import plotting
from mfx.resnet import plots

# The quick sweep trains 48 reps per (D, γ) (≈ 43 CPU-s of jobs, conf/experiment/resnet_phase.yaml): `make test-all`
# runs it, so that the default suite does not grow; test_family.py runs a small phase configuration.
pytestmark = pytest.mark.slow

CLAIMS = ["critical γ*", "MLU needs movement", "lazy side", "subcritical side"]


def test_quick_scale_claims_pass(quick_table):
    table = quick_table("resnet_phase")
    claims = quick_table.claims("resnet_phase")
    assert [any(s in c.statement for c in claims) for s in CLAIMS] == [True] * len(CLAIMS)
    failed = [
        f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})" for c in claims if not c.passed
    ]
    assert not failed
    assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
    assert (table["status"] == "ok").all()
    stable = table[table["metric"] == "stable"]
    assert set(stable["value"]) == {0.0, 1.0}  # the rate search's unstable runs are rows (data)
    figures = plots.phase(table)
    assert figures and all(fig.axes for fig in figures.values())
    assert all(not plotting.layout_problems(fig) for fig in figures.values())


test_quick_sweep_reads = quick_sweep_test("resnet_phase")
