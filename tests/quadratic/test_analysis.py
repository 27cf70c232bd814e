import numpy as np
import pandas as pd

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
