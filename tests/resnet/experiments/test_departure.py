"""resnet_departure end to end at scale=quick: its claims pass, decided with their uncertainty; the figure draws."""

import pytest
from sweep_checks import quick_sweep_test

from mfx import plotting
from mfx.resnet import plots

pytestmark = (
    pytest.mark.slow
)  # its quick sweep is ≈ 12 CPU-s (10 jobs, 16 reps): more than the default suite may add

CLAIMS = ["inside D = O(M)", "beyond D = O(M)", "the networks learn"]


def test_quick_scale_claims_pass(quick_table):
    table = quick_table("resnet_departure")
    claims = quick_table.claims("resnet_departure")
    assert [sum(s in c.statement for c in claims) for s in CLAIMS] == [1] * len(CLAIMS)
    failed = [
        f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})" for c in claims if not c.passed
    ]
    assert not failed
    assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
    assert (table["status"] == "ok").all()
    figures = plots.departure(table)
    assert figures and all(fig.axes for fig in figures.values())
    assert all(not plotting.layout_problems(fig) for fig in figures.values())


test_quick_sweep_reads = quick_sweep_test("resnet_departure")
