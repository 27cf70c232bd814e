import numpy as np
import pandas as pd
import pytest

from mfx import fit


def test_power_law_recovers_slope_and_prefactor():
    rng = np.random.default_rng(0)
    x = np.logspace(0, 3, 20)
    y = 3.0 * x**-0.5 * np.exp(0.01 * rng.standard_normal(20))
    f = fit.power_law(x, y)
    assert f["slope"] == pytest.approx(-0.5, rel=0.02)
    assert f["prefactor"] == pytest.approx(3.0, rel=0.02)
    assert f.r2 > 0.99 and f.n == 20 and 0 < f.se["slope"] < 0.01


def test_power_law_drops_non_finite_and_non_positive():
    f = fit.power_law([1, 2, 4, 8, 16], [1, 0.5, np.nan, -1, 1 / 16])
    assert f.n == 3
    assert f["slope"] == pytest.approx(-1.0)


def test_joint_power_law_recovers_both_exponents_of_an_exact_grid():
    x1, x2 = (a.ravel() for a in np.meshgrid([16.0, 32.0, 64.0], [0.5, 1.0, 2.0, 4.0]))
    a1, a2 = fit.joint_power_law(x1, x2, 0.3 * x1**0.02 * x2**0.5)
    assert a1 == pytest.approx(0.02, abs=1e-12) and a2 == pytest.approx(0.5, abs=1e-12)


def test_nonneg_sum_recovers_two_term_coefficients():
    rng = np.random.default_rng(1)
    L, M = np.meshgrid(2.0 ** np.arange(1, 8), 2.0 ** np.arange(0, 7))
    L, M = L.ravel(), M.ravel()
    terms = {"a": 1 / L, "b": 1 / np.sqrt(L * M)}
    y = (0.3 * terms["a"] + 0.8 * terms["b"]) * np.exp(0.005 * rng.standard_normal(L.size))
    f = fit.nonneg_sum(terms, y)
    assert f["a"] == pytest.approx(0.3, rel=0.02)
    assert f["b"] == pytest.approx(0.8, rel=0.02)
    assert f.r2 > 0.99 and f.at_bound == ()
    np.testing.assert_allclose(fit.evaluate(f, terms), y, rtol=0.03)


def test_nonneg_sum_clips_a_negative_coefficient_to_zero():
    x = np.arange(1.0, 20)
    f = fit.nonneg_sum({"a": 1 / x, "b": np.ones_like(x)}, 2 / x)
    assert f["a"] == pytest.approx(2.0, rel=1e-6)
    assert f["b"] == pytest.approx(0.0, abs=1e-8)
    assert f.at_bound == ("b",) and np.isnan(f.se["b"]) and "b ≈ 0 (at bound" in f.describe("b")
    assert f.se["a"] >= 0 and "at bound" not in f.describe("a")


def test_linear_and_zero_crossing():
    x = np.linspace(0, 1, 11)
    f = fit.linear(x, 2 * x - 1)
    assert f["slope"] == pytest.approx(2) and f["intercept"] == pytest.approx(-1)
    assert fit.zero_crossing(x, 2 * x - 1) == pytest.approx(0.5)
    assert fit.zero_crossing(x[::-1], (2 * x - 1)[::-1]) == pytest.approx(0.5)
    assert np.isnan(fit.zero_crossing(x, x + 1))


def test_seed_bootstrap_sd_of_a_mean_matches_its_standard_error():
    rng = np.random.default_rng(1)
    n = 64
    table = pd.DataFrame({"seed": np.arange(n), "value": rng.normal(size=n)})
    sd = fit.bootstrap_sd(fit.seed_bootstrap(table, lambda t: t["value"].mean(), n_boot=2000))
    assert abs(sd - table["value"].std() / np.sqrt(n)) < 0.1 * sd


def test_seed_bootstrap_keeps_each_seed_whole():
    table = pd.DataFrame({"seed": [0, 0, 1, 1], "value": [1.0, 1.0, 5.0, 5.0]})
    # every resampled seed still has its two equal rows: the within-seed spread stays 0
    spreads = fit.seed_bootstrap(table, lambda t: t.groupby("seed")["value"].std().max(), n_boot=50)
    assert np.all(spreads == 0)


def test_seed_sd_is_nan_with_fewer_than_two_seeds():
    one = pd.DataFrame({"seed": [0, 0], "value": [1.0, 2.0]})
    assert np.isnan(fit.seed_sd(one, lambda t: t["value"].mean()))
    assert np.isnan(fit.seed_sd(one.iloc[:0], lambda t: t["value"].mean()))


def test_wilson_interval_matches_its_closed_form_and_is_not_a_point_at_the_ends():
    # the Wilson bounds solve |k/n − s| = z·√(s(1 − s)/n) for s: check that they do
    for k, n, z in [(0, 50, 1.0), (50, 50, 2.0), (7, 30, 1.959963984540054)]:
        low, high = fit.wilson(k, n, z)
        for s in (low, high):
            if 0 < s < 1:
                assert abs(k / n - s) == pytest.approx(z * np.sqrt(s * (1 - s) / n))
    assert fit.wilson(0, 50) == pytest.approx((0.0, 1 / 51))
    assert fit.wilson(0, 50, z=2)[1] == pytest.approx(4 / 54)
    low, high = fit.wilson(25, 100)  # away from the ends: close to the normal interval
    assert low < 0.25 < high and high - low == pytest.approx(2 * np.sqrt(0.25 * 0.75 / 100), rel=0.05)
    # u per SE read from the 95 % interval: all n agreeing gives z/(2(n + z²))
    z = 1.959963984540054
    assert fit.wilson_u(8, 8, z) == pytest.approx(z / (2 * (8 + z * z)))
    assert np.isnan(fit.wilson_u(0, 0))
