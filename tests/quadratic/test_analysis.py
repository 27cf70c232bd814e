import numpy as np
import pandas as pd
from scipy import special

from mfx import fit
from mfx.quadratic import analysis


def _drift_table(rng, n_seeds, g=(0.005, 0.01, 0.02, 0.04)):
    """Final SGD drifts c_s·√g·|Z| (a per-seed prefactor times one random angle), as run_implicit_bias logs
    them: one row per (g, seed) at the last time, plus an earlier row that must be ignored."""
    c = rng.lognormal(0.0, 0.5, n_seeds)
    rows = [
        {
            "method": "sgd",
            "metric": "drift",
            "status": "ok",
            "p": 2,
            "p_star": 2,
            "g": gg,
            "seed": s,
            "tau": tau,
            "value": value,
        }
        for gg in g
        for s in range(n_seeds)
        for tau, value in ((0.5, 9.0), (3.0, c[s] * np.sqrt(gg) * abs(rng.normal())))
    ]
    return pd.DataFrame(rows)


def test_drift_exponent_and_its_seed_bootstrap_sd_match_fresh_replicates():
    rng = np.random.default_rng(1)
    n_seeds = 48
    table = _drift_table(rng, n_seeds)
    slope = analysis.sgd_drift_fits(table)[(2, 2)]["slope"]
    boot = analysis.sgd_drift_bootstrap_sd(table)[(2, 2)]
    replicates = [analysis.sgd_drift_fits(_drift_table(rng, n_seeds))[(2, 2)]["slope"] for _ in range(200)]
    assert abs(slope - 0.5) < 4 * np.std(replicates)
    assert abs(np.mean(replicates) - 0.5) < 0.03
    # the seed noise the 4-point fit SE does not see (here the SE is 0.68 of the replicate SD)
    assert 0.8 < boot / np.std(replicates) < 1.4


# ------------------------------------------------------------------ quad_escape: escape vs ρ0, prefactor


def test_escape_theory_mean_and_sum_readouts():
    """Mean readout: ρ grows at 4/p*, the gap at 8/p*, tau_esc ∝ (p*/8) ln N and −(p*/4) ln σ_max; the
    prefactor per ||ρ0||² is 2 a a* q̄ = 2/(p*(p + 2)).  Sum readout (a = a* = 1): rates free of p*."""
    th = analysis.escape_theory(3, np.eye(2), 1 / 3, 1 / 2)
    assert th["rho_rate"] == 2.0 and th["exit_rate"] == 4.0
    assert th["lnN_slope"] == 2 / 8 and th["sigma_slope"] == -2 / 4
    np.testing.assert_allclose(th["prefactor_per_rho0"], 2 / (2 * 5))
    th = analysis.escape_theory(3, np.eye(2), 1.0, 1.0)
    assert th["lnN_slope"] == 1 / 8 and th["sigma_slope"] == -1 / 4


def test_window_times_from_an_exact_exponential_gap():
    """A gap A e^{rate·τ} with the derived rate and A = prefactor_per_rho0·||ρ0||² reaches level·ε_pl at
    ln(level·ε_pl/A)/rate: measured and predicted window times agree, and the shift between two widths
    is their difference of seed means."""
    theory = {p: analysis.escape_theory(p, np.eye(2), 1 / p, 1 / 2) for p in (2, 8)}
    rows = []
    for p, th in theory.items():
        for seed, rho0_F2 in enumerate((1e-4, 3e-4)):
            A = th["prefactor_per_rho0"] * rho0_F2 * (1.1 if p == 8 else 1.0)
            for metric, value in (
                ("exit_rate", th["exit_rate"]),
                ("exit_prefactor", A),
                ("rho0_F2", rho0_F2),
            ):
                rows.append({"p": p, "seed": seed, "metric": metric, "value": value})
    times = analysis.window_times(pd.DataFrame(rows), 1e-2, theory)
    p2 = times[times["p"] == 2]
    np.testing.assert_allclose(p2["measured"], p2["predicted"])
    want = np.log(1e-2 * theory[2]["eps_pl"] / (theory[2]["prefactor_per_rho0"] * 1e-4)) / 4.0
    np.testing.assert_allclose(p2["measured"].iloc[0], want)
    # a prefactor 10 % larger at p = 8 than derived: that window comes ln(1.1)/rate earlier than predicted
    gap = analysis.window_shift(times, 2, 8) - analysis.window_shift(times, 2, 8, "predicted")
    np.testing.assert_allclose(gap, np.log(1.1) / 4.0)


def _escape_rows(rng, slope, p_shift, n_seeds=40, Ns=(1000, 100000)):
    """ODE-like per-seed rows: tau_esc = slope·ln σ_max + p_shift·p + small noise."""
    rows = []
    for p in (2, 8):
        for N in Ns:
            for s in range(n_seeds):
                x = np.log(rng.rayleigh(1.0) / np.sqrt(N))
                y = slope * x + p_shift * p + 0.01 * rng.normal()
                for metric, v in (("ln_sigma_max", x), ("tau_esc", y)):
                    rows.append({"p": p, "p_star": 1, "N": N, "seed": s, "metric": metric, "value": v})
    return pd.DataFrame(rows)


def test_sigma_slope_and_explained_share():
    rng = np.random.default_rng(0)
    rows = _escape_rows(rng, -0.25, 0.0)
    np.testing.assert_allclose(analysis.sigma_slope(rows), -0.25, rtol=0.02)
    assert analysis.sigma_explained(rows, -0.25) > 0.95
    assert analysis.p_share_beyond_sigma(rows, -0.25) < 0.01
    # a direct p-dependence of 0.1 tau per unit of p (0.6 between p = 2 and 8) outweighs the seed spread
    shifted = _escape_rows(rng, -0.25, 0.1)
    assert analysis.sigma_explained(shifted, -0.25) < 0.5
    assert analysis.p_share_beyond_sigma(shifted, -0.25) > analysis.sigma_explained(shifted, -0.25)
    shifts = analysis.residual_p_shift(_escape_rows(rng, -0.25, 0.1), -0.25)
    np.testing.assert_allclose(shifts[8] - shifts[2], 0.6, atol=0.02)


def test_bootstrap_of_the_paired_frame_equals_that_of_the_rows():
    """The σ_max claims bootstrap the frame pivoted once (escape._sigma_claims): the same resampled seeds
    and the same numbers, bit for bit, as resampling the long rows and pivoting each resample."""
    rows = _escape_rows(np.random.default_rng(2), -0.25, 0.05, n_seeds=12)
    rows = rows.sample(frac=1.0, random_state=0)  # the long rows' order must not matter either
    pair = analysis._paired(rows, "ln_sigma_max")
    for statistic in (
        analysis.sigma_slope,
        lambda x: analysis.sigma_explained(x, -0.25) - analysis.p_share_beyond_sigma(x, -0.25),
    ):
        np.testing.assert_array_equal(
            fit.seed_bootstrap(pair, statistic, n_boot=20), fit.seed_bootstrap(rows, statistic, n_boot=20)
        )


def test_sigma_summaries_without_escapes_are_nan_not_errors():
    """A sweep where no seed escaped has no tau_esc rows: the summaries are NaN (inconclusive claims)."""
    rows = _escape_rows(np.random.default_rng(1), -0.25, 0.0)
    rows = rows[rows["metric"] != "tau_esc"]
    assert np.isnan(analysis.sigma_slope(rows)) and np.isnan(analysis.sigma_explained(rows, -0.25))
    assert np.isnan(analysis.p_share_beyond_sigma(rows, -0.25))
    assert analysis.residual_p_shift(rows, -0.25) == {}


# ------------------------------------------------------------------ quad_curves: crossing and descent times


def test_transit_ratio_reads_only_the_descent_and_matches_a_plain_sum():
    """An SGD curve that escapes 1 earlier but descends at the ODE's pace has crossing ratio < 1 and
    descent ratio 1; one whose whole τ axis is 1/1.1 of the ODE's has both 1/1.1."""
    levels = [0.25, 0.05, 0.005]
    rows = []
    for seed in range(3):
        ode = [10.0 + seed, 12.0 + seed, 15.0 + seed]
        for method, times in (("ode_matched", ode), ("sgd", [ode[0] - 1, ode[1] - 1, ode[2] - 1])):
            rows += [
                {"method": method, "seed": seed, "level": lv, "value": t} for lv, t in zip(levels, times)
            ]
    times = pd.DataFrame(rows)
    assert analysis.crossing_ratio(times) < 0.95
    assert analysis.transit_ratio(times, 0.05, 0.005) == 1.0
    fast = times.copy()
    fast.loc[fast["method"] == "sgd", "value"] = (
        times.loc[times["method"] == "ode_matched", "value"].to_numpy() / 1.1
    )
    np.testing.assert_allclose(analysis.transit_ratio(fast, 0.05, 0.005), 1 / 1.1)
    np.testing.assert_allclose(analysis.crossing_ratio(fast), 1 / 1.1)
    # a plain loop over seeds
    w = fast.set_index(["method", "seed", "level"])["value"]
    num = sum(w["sgd", s, 0.005] - w["sgd", s, 0.05] for s in range(3))
    den = sum(w["ode_matched", s, 0.005] - w["ode_matched", s, 0.05] for s in range(3))
    np.testing.assert_allclose(analysis.transit_ratio(fast, 0.05, 0.005), num / den)
    # a level that no seed reached gives NaN
    assert np.isnan(analysis.transit_ratio(times, 0.05, 0.001))


def test_sgd_ode_ratio_pairs_runs_by_N_and_seed():
    """Σ sgd / Σ ode_matched over the (N, seed) pairs both methods have: an unpaired run is left out."""
    rows = pd.DataFrame(
        {
            "method": ["sgd", "ode_matched", "sgd", "ode_matched", "sgd", "ode_matched"],
            "N": [10, 10, 10, 10, 100, 100],
            "seed": [0, 0, 1, 1, 0, 1],
            "value": [2.0, 1.0, 4.0, 3.0, 7.0, 5.0],
        }
    )
    assert analysis.sgd_ode_ratio(rows) == (2.0 + 4.0) / (1.0 + 3.0)
    per_N = analysis.sgd_ode_ratio_per_N(rows)
    assert per_N[10] == 1.5 and np.isnan(per_N[100])
    assert np.isnan(analysis.sgd_ode_ratio(rows[rows["method"] == "sgd"]))


def _spectrum_rows(rng, summary, n_seeds=200):
    """ode_spectrum-like rows of two widths: two singular values log-uniform over a decade, tau_esc set by
    `summary` (a function of them) at the derived slope −1/(4a*) = −0.5 (p* = 2), plus small noise."""
    rows = []
    for p in (2, 8):
        for seed in range(n_seeds):
            s = np.sort(10 ** rng.uniform(-0.5, 0.5, 2))[::-1] * 1e-3
            values = {
                "ln_sigma_max": np.log(s[0]),
                "ln_fro": 0.5 * np.log(np.sum(s * s)),
                "ln_sigma_min": np.log(s[1]),
                "ln_nuclear": np.log(s.sum()),
            }
            values["tau_esc"] = -0.5 * np.log(summary(s)) + 0.1 * p + 0.01 * rng.normal()
            rows += [{"p": p, "seed": seed, "metric": k, "value": v} for k, v in values.items()]
    return pd.DataFrame(rows)


def test_sigma_max_advantage_sees_which_summary_sets_the_escape():
    """The alternatives statistic (bocchi.escape_sigma_max/alternatives) is > 0 when σ_max sets τ_esc and < 0
    when the Frobenius norm or the nuclear norm does, on the same spectra; one intercept per p (the 0.1·p
    offset costs nothing), and each R² is that of the summary alone."""
    rng = np.random.default_rng(0)
    by_max = _spectrum_rows(rng, lambda s: s[0])
    r2 = analysis.summary_r2(by_max)
    assert r2["ln_sigma_max"] > 0.99 and 0.9 < r2["ln_fro"] < 0.99 and r2["ln_sigma_min"] < 0.5
    assert analysis.sigma_max_advantage(by_max) > 0.01
    assert analysis.sigma_max_advantage(_spectrum_rows(rng, lambda s: np.sqrt(np.sum(s * s)))) < -0.01
    assert analysis.sigma_max_advantage(_spectrum_rows(rng, lambda s: s.sum())) < -0.01
    # a bootstrap's resample, already wide, gives the same numbers as the long rows
    wide = analysis.spectrum_wide(by_max)
    assert analysis.sigma_max_advantage(wide) == analysis.sigma_max_advantage(by_max)


def test_adjusted_window_shift_removes_the_seed_spread_and_follows_the_reference():
    """The control variate of the acceleration claim: τ_w = c_p − x/8 + noise (x = ln ||ρ0||², χ²-spread)
    gives back c_lo − c_hi − (x_ref(lo) − x_ref(hi))/8 with the noise's spread only, not x's; moving the
    reference (an init drawn smaller at one width) moves the estimate by slope × the move."""
    rng = np.random.default_rng(1)
    rows = []
    for p, c, ref in ((1, 1.0, -13.0), (8, 0.9, -11.0)):
        x = ref + np.log(rng.chisquare(p, 64)) - (special.digamma(p / 2) + np.log(2))  # E x = ref
        measured = c - x / 8 + 1e-3 * rng.normal(size=64)
        rows += [
            {"p": p, "seed": k, "measured": m, "x": xi, "x_ref": ref, "x_ref_se": 0.01}
            for k, (m, xi) in enumerate(zip(measured, x))
        ]
    times = pd.DataFrame(rows)
    want = (1.0 + 13.0 / 8) - (0.9 + 11.0 / 8)
    np.testing.assert_allclose(analysis.adjusted_window_shift(times, 1, 8), want, atol=2e-3)
    assert fit.seed_sd(times, lambda t: analysis.adjusted_window_shift(t, 1, 8)) < 2e-3
    assert (
        fit.seed_sd(times, lambda t: analysis.window_shift(t, 1, 8)) > 0.02
    )  # the plain difference of means
    np.testing.assert_allclose(
        analysis.adjusted_shift_reference_u(times, 1, 8), np.hypot(0.01, 0.01) / 8, rtol=0.02
    )
    moved = times.assign(x_ref=np.where(times["p"] == 8, -11.0 - np.log(8), times["x_ref"]))
    np.testing.assert_allclose(
        analysis.adjusted_window_shift(moved, 1, 8) - analysis.adjusted_window_shift(times, 1, 8),
        -np.log(8) / 8,
        rtol=0.02,
    )
