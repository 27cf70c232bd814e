"""resnet_width end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw."""

from sweep_checks import quick_sweep_test, resnet_claims_test

from mfx.resnet import plots

CLAIMS = [
    "slope of the output error vs M at the largest L (L·M",
    "slope of the output error vs M at the largest L at every trained GD step k",
    "slope of the output error vs M at the largest L at k = 0",
    "trained companion",
    "1/L floor",
    "the networks learn",
]


test_quick_scale_claims_pass = resnet_claims_test("resnet_width", CLAIMS, plots.width)


test_quick_sweep_reads = quick_sweep_test("resnet_width")
