import numpy as np
import pandas as pd

from mfx.transformer import analysis


def test_limit_summary_averages_seeds_per_grid_point_and_ignores_failed_jobs():
    E = "transformer_limit"
    table = pd.DataFrame(
        {
            "experiment": [E, E, E, E, E, E, "other"],
            "status": ["ok", "ok", "ok", "failed", "ok", "ok", "ok"],
            "L": [2, 2, 4, 4, 2, 4, 2],
            "H": [4, 4, 4, 4, 4, 4, 4],
            "metric": ["err", "err", "err", "err", "ref_spread", "ref_spread", "err"],
            "value": [1.0, 3.0, 0.5, 100.0, 0.1, 0.3, 50.0],
        }
    )
    err, floor = analysis.limit_summary(table)
    assert err[["L", "H", "LH", "value"]].values.tolist() == [[2, 4, 8, 2.0], [4, 4, 16, 0.5]]
    assert floor == 0.2


def test_merge_curves_sorts_each_curve_by_decreasing_spacing():
    E = "transformer_ntk"
    table = pd.DataFrame(
        {
            "experiment": [E] * 5,
            "metric": ["merge_lam_min"] * 4 + ["cf_ratio"],
            "dist": ["cube", "cube", "cube", "gmm2", "cube"],
            "d": [2, 2, 2, 3, 2],
            "spacing": [0.01, 1.0, 0.1, 0.5, 0.3],
            "value": [1e-8, 1e-2, 1e-5, 1e-3, 1.0],
        }
    )
    curves = analysis.merge_curves(table)
    assert set(curves) == {("cube", 2), ("gmm2", 3)}
    s, lam = curves[("cube", 2)]
    np.testing.assert_array_equal(s, [1.0, 0.1, 0.01])
    np.testing.assert_array_equal(lam, [1e-2, 1e-5, 1e-8])
