"""The verdict rule and the claims' constructors (mfx.experiment)."""

import math

import pytest

from mfx.experiment import Claim, decide


@pytest.mark.parametrize(
    "measured, u, verdict",
    [
        (-0.5, 0.02, "pass"),  # on target, well resolved
        (-0.42, 0.04, "pass"),  # inside, 2u = tol
        (-0.42, 0.06, "inconclusive"),  # inside but 2u > tol: could be anywhere in the band
        (-0.35, 0.02, "fail"),  # outside by 0.05 > 2u
        (-0.35, 0.03, "inconclusive"),  # outside by 0.05 < 2u = 0.06
        (-0.61, 0.0, "fail"),  # an exact value outside
        (float("nan"), 0.01, "inconclusive"),
        (-0.5, float("nan"), "inconclusive"),
    ],
)
def test_two_sided_rule(measured, u, verdict):
    assert decide(measured, -0.6, -0.4, u, resolution=0.1) == verdict


@pytest.mark.parametrize(
    "measured, u, verdict",
    [(-0.3, 0.1, "pass"), (-0.1, 0.1, "inconclusive"), (0.1, 0.1, "inconclusive"), (0.3, 0.1, "fail")],
)
def test_one_sided_rule_needs_two_u_of_margin(measured, u, verdict):
    assert Claim.at_most("e", "s", measured, 0.0, u=u, how="fit SE", points=5).verdict == verdict


def test_too_few_points_is_never_a_pass():
    two = Claim.within("e", "slope", -0.5, -0.5, 0.1, u=0.0, how="fit SE", points=2, min_points=3)
    assert two.verdict == "inconclusive" and "needs ≥ 3 points" in two.detail


def test_exact_claims_have_no_uncertainty():
    c = Claim.at_most("e", "drift", 1e-12, 1e-9, how="exact")
    assert c.passed and c.u == 0 and c.pass_probability() == 1.0


def test_pass_probability_of_a_value_on_target_with_small_u():
    c = Claim.within("e", "slope", -0.5, -0.5, 0.1, u=0.025, how="fit SE", points=5)
    assert c.passed and 0.99 < c.pass_probability() <= 1
    edge = Claim.within("e", "slope", -0.4, -0.5, 0.1, u=0.025, how="fit SE", points=5)
    assert math.isclose(edge.pass_probability(), 0.5, abs_tol=1e-9)
