"""resnet_dim end to end at scale=quick: its claims (the issue's) pass, decided with their
uncertainty; figures draw."""

import pytest
from sweep_checks import quick_sweep_test, resnet_claims_test

from mfx.resnet import plots

pytestmark = (
    pytest.mark.slow
)  # its quick sweep is ≈ 12 CPU-s (9 jobs, 16 reps; 3 CPU-s at 4 reps): more than the default suite may add

CLAIMS = [
    "slope of the h_L error vs D",
    "trained companion",
    "b·√(D/(LM))",
    "off the read-out span",
    "the networks learn",
]


test_quick_scale_claims_pass = resnet_claims_test("resnet_dim", CLAIMS, plots.dim)


test_quick_sweep_reads = quick_sweep_test("resnet_dim")
