"""resnet_limit end to end at scale=quick: its claims pass, decided with their uncertainty; the
RK4 reference is cached and shared; figures draw."""

from sweep_checks import quick_sweep_test

from mfx import plotting
from mfx.resnet import plots

CLAIMS = [
    "depth exponent of the pool's Euler network vs",
    "depth exponent of the pool's Euler network at every trained GD step k",
    "depth exponent of the pool's Euler network at k = 0",
    "width exponent of one network",
    "width exponent at the largest L at every trained GD step k",
    "width exponent of one network at the largest L at k = 0",
    "coupling distance to their limit copies falls",
    "chaos at rate 1/√(LM)",
    "chaos, depth part",
    "the networks learn",
]


def test_quick_scale_claims_pass(quick_table):
    table = quick_table("resnet_limit")
    claims = quick_table.claims("resnet_limit")
    assert [any(s in c.statement for c in claims) for s in CLAIMS] == [True] * len(CLAIMS)
    failed = [
        f"{c.statement}: {c.measured} ± {c.u} vs {c.expected} ({c.detail})" for c in claims if not c.passed
    ]
    assert not failed
    assert all(c.how == "seed bootstrap SD" and c.u > 0 and c.seeds >= 3 for c in claims)
    assert (table["status"] == "ok").all()
    figures = plots.limit(table)
    assert figures and all(fig.axes for fig in figures.values())
    assert all(not plotting.layout_problems(fig) for fig in figures.values())


test_quick_sweep_reads = quick_sweep_test("resnet_limit")
