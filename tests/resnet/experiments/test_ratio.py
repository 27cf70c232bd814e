"""resnet_ratio end to end at scale=quick: its claims pass, decided with their uncertainty; figures draw."""

import pytest
from sweep_checks import quick_sweep_test, resnet_claims_test

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


test_quick_scale_claims_pass = resnet_claims_test("resnet_ratio", CLAIMS, plots.ratio, once=True)


test_quick_sweep_reads = quick_sweep_test("resnet_ratio")
