"""resnet_dim end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw."""

from sweep_checks import quick_sweep_test

from mfx import plotting
from mfx.resnet import plots

CLAIMS = [
    "slope of the h_L error vs D",
    "trained companion",
    "b·√(D/(LM))",
    "off the read-out span",
    "the networks learn",
]


def test_quick_scale_claims_pass(quick_table):
    table = quick_table("resnet_dim")
    claims = quick_table.claims("resnet_dim")
    assert [any(s in c.statement for c in claims) for s in CLAIMS] == [True] * len(CLAIMS)
    failed = [
        f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})" for c in claims if not c.passed
    ]
    assert not failed
    assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
    assert (table["status"] == "ok").all()
    figures = plots.dim(table)
    assert figures and all(fig.axes for fig in figures.values())
    assert all(not plotting.layout_problems(fig) for fig in figures.values())


test_quick_sweep_reads = quick_sweep_test("resnet_dim")
