"""resnet_departure end to end at scale=quick: its claims pass, decided with their uncertainty; the figure draws."""

import pytest
from sweep_checks import quick_sweep_test, resnet_claims_test

from mfx.resnet import plots

pytestmark = (
    pytest.mark.slow
)  # its quick sweep is ≈ 11 CPU-s (6 jobs, 32 reps): more than the default suite may add

CLAIMS = ["inside D = O(M)", "beyond D = O(M)", "the networks learn"]


test_quick_scale_claims_pass = resnet_claims_test("resnet_departure", CLAIMS, plots.departure, once=True)


test_quick_sweep_reads = quick_sweep_test("resnet_departure")
