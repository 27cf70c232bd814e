"""The verdict rule and the claims' constructors (mfx.experiment)."""

import math

import pytest

from mfx.experiment import Claim, decide, number

KIND = {"kind": "derived", "source": "test"}


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
    assert Claim.at_most("e", "s", measured, 0.0, u=u, how="fit SE", points=5, **KIND).verdict == verdict


def test_too_few_points_is_never_a_pass():
    two = Claim.within("e", "slope", -0.5, -0.5, 0.1, u=0.0, how="fit SE", points=2, min_points=3, **KIND)
    assert two.verdict == "inconclusive" and "needs ≥ 3 points" in two.detail


def test_exact_claims_have_no_uncertainty():
    c = Claim.at_most("e", "drift", 1e-12, 1e-9, how="exact", **KIND)
    assert c.passed and c.u == 0 and c.pass_probability() == 1.0


def test_pass_probability_of_a_value_on_target_with_small_u():
    c = Claim.within("e", "slope", -0.5, -0.5, 0.1, u=0.025, how="fit SE", points=5, **KIND)
    assert c.passed and 0.99 < c.pass_probability() <= 1
    edge = Claim.within("e", "slope", -0.4, -0.5, 0.1, u=0.025, how="fit SE", points=5, **KIND)
    assert math.isclose(edge.pass_probability(), 0.5, abs_tol=1e-9)


def test_a_claim_names_its_kind_and_source():
    with pytest.raises(ValueError, match="kind must be one of paper, derived, cross-check, identity"):
        Claim.within("x", "s", 1.0, 1.0, 0.1, kind="theorem", source="Thm 1")
    with pytest.raises(ValueError, match="names its source"):
        Claim.within("x", "s", 1.0, 1.0, 0.1, kind="paper", source="")
    c = Claim.within("x", "s", 1.0, 1.0, 0.1, kind="paper", source="Chizat Thm 1")
    assert (c.kind, c.source, c.verdict) == ("paper", "Chizat Thm 1", "pass")


def test_a_claim_resting_on_a_coefficient_at_its_bound_is_inconclusive():
    c = Claim.at_least("x", "R²", 0.99, 0.9, kind="paper", source="s", at_bound=("a",))
    assert c.verdict == "inconclusive" and "a at the bound" in c.detail


def test_a_claim_that_left_out_many_rows_is_inconclusive_unless_that_is_its_prediction():
    kw = {"kind": "derived", "source": "d", "u": 0.01, "how": "fit SE"}
    few = Claim.within("x", "s", 1.0, 1.0, 0.1, excluded=2, excluded_why="diverged", of=20, **kw)
    many = Claim.within("x", "s", 1.0, 1.0, 0.1, excluded=6, excluded_why="not escaped", of=20, **kw)
    meant = Claim.within(
        "x", "s", 1.0, 1.0, 0.1, excluded=6, excluded_why="diverged", of=20, exclusion_expected=True, **kw
    )
    assert few.verdict == "pass" and "left out 2 of 20 (diverged)" in few.detail
    assert many.verdict == "inconclusive" and meant.verdict == "pass"


def test_a_claim_about_training_fails_when_its_runs_do_not_train():
    kw = {"kind": "paper", "source": "s", "u": 0.01, "how": "fit SE"}
    few = Claim.within("x", "s", 1.0, 1.0, 0.1, untrained=(4, 20), **kw)
    inert = Claim.within("x", "s", float("nan"), 1.0, 0.1, excluded=20, of=20, untrained=(5, 20), **kw)
    assert few.verdict == "pass"
    assert inert.verdict == "fail" and "5 of 20 runs do not train" in inert.detail


def test_numbers_are_written_as_a_reader_writes_them():
    assert [number(x) for x in (1e6, 3e4, 1e-3, 64, 0.25, 0, 2.5e-5)] == [
        "10⁶",
        "3 × 10⁴",
        "10⁻³",
        "64",
        "0.25",
        "0",
        "2.5 × 10⁻⁵",
    ]
