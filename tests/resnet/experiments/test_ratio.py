"""resnet_ratio end to end at scale=quick: its claims pass, decided with their uncertainty; figures draw."""

import pytest
from sweep_checks import quick_sweep_test

from mfx import plotting
from mfx.resnet import plots

pytestmark = (
    pytest.mark.slow
)  # its quick sweep is ≈ 20 CPU-s (12 jobs, 8 reps): more than the default suite may add

CLAIMS = [
    "exponent in M of the h_L error",
    "slope in D/M of the one curve",
    "trained companion",
    "the networks learn",
]


def test_quick_scale_claims_pass(quick_table):
    table = quick_table("resnet_ratio")
    claims = quick_table.claims("resnet_ratio")
    assert [sum(s in c.statement for c in claims) for s in CLAIMS] == [1] * len(CLAIMS)
    failed = [
        f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})" for c in claims if not c.passed
    ]
    assert not failed
    assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
    assert (table["status"] == "ok").all()
    figures = plots.ratio(table)
    assert figures and all(fig.axes for fig in figures.values())
    assert all(not plotting.layout_problems(fig) for fig in figures.values())


test_quick_sweep_reads = quick_sweep_test("resnet_ratio")
