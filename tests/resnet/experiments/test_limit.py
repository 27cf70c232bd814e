"""resnet_limit end to end at scale=quick: its claims pass, decided with their uncertainty; the
RK4 reference is cached and shared; figures draw."""

from sweep_checks import quick_sweep_test, resnet_claims_test

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


test_quick_scale_claims_pass = resnet_claims_test("resnet_limit", CLAIMS, plots.limit)


test_quick_sweep_reads = quick_sweep_test("resnet_limit")
