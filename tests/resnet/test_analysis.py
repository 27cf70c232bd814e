"""The table → numbers code shared by the ResNet claims and figures, on synthetic tables with known
answers; and the import rule that keeps job processes free of matplotlib."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mfx.resnet import analysis


def _table(name, metric, points, steps=(0, 3), seeds=(0, 1)):
    """Rows of `name`/`metric` for every dict of coordinates in `points`: value(step K, seed s) is
    point["value"] · (1 + point.get("spread", 0) · (−1)^s); earlier steps hold 100 × that."""
    rows = []
    for p in points:
        coords = {k: v for k, v in p.items() if k not in ("value", "spread")}
        for s in seeds:
            v = p["value"] * (1 + p.get("spread", 0.0) * (-1) ** s)
            for k in steps:
                rows.append(
                    {
                        **coords,
                        "experiment": name,
                        "metric": metric,
                        "status": "ok",
                        "scale": "quick",
                        "seed": s,
                        "step": k,
                        "value": v if k == max(steps) else 100 * v,
                    }
                )
    return pd.DataFrame(rows)


def test_rms_over_seeds_is_the_rms_at_the_last_step_of_ok_rows_of_one_experiment():
    table = _table("resnet_depth", "err_f", [{"L": 2, "M": 1, "value": 1.0, "spread": 0.5}])
    other = _table("resnet_width", "err_f", [{"L": 2, "M": 1, "value": 7.0}])
    failed = table.assign(status="diverged", value=1e9)
    other_metric = table.assign(metric="err_h", value=5.0)
    err = analysis.rms_over_seeds(
        pd.concat([table, other, failed, other_metric]), "resnet_depth", "err_f", ["L", "M"]
    )
    assert list(err.columns) == ["L", "M", "value"]
    assert err["value"].tolist() == pytest.approx([np.sqrt((1.5**2 + 0.5**2) / 2)])


def test_two_term_fit_recovers_a_over_L_plus_b_over_sqrt_LM():
    L, M = np.meshgrid([2.0, 4, 8, 16, 32], [1.0, 4, 16])
    err = pd.DataFrame({"L": L.ravel(), "M": M.ravel()})
    err["value"] = 0.3 / err["L"] + 0.7 / np.sqrt(err["L"] * err["M"])
    both = analysis.two_term_fit(err)
    assert (both["a"], both["b"]) == pytest.approx((0.3, 0.7), rel=1e-4)
    assert both.r2 == pytest.approx(1.0, abs=1e-6)


def test_dim_fits_use_only_3_d_out_le_D_le_4_M():
    """√D inside the fit range; points outside it (D < 3·d_out, D > 4·M) would spoil the slope."""
    Ds = [2, 4, 8, 16, 32, 64, 128]
    points = [
        {"L": 32, "M": 16, "D": D, "d_out": 2, "value": np.sqrt(D / 512) if 6 <= D <= 64 else 1.0} for D in Ds
    ]
    slope, both, err = analysis.dim_fits(_table("resnet_dim", "err_h", points))
    assert sorted(err["D"]) == [8, 16, 32, 64]
    assert slope["slope"] == pytest.approx(0.5, abs=1e-9)
    assert both["b"] == pytest.approx(1.0, rel=1e-4)


def test_dim_beyond_fits_D_ge_4_M():
    points = [
        {"L": 16, "M": 16, "D": D, "d_out": 2, "value": D ** (0.5 if D < 64 else 1.5)}
        for D in (16, 32, 64, 128, 256)
    ]
    slope, span = analysis.dim_beyond(_table("resnet_dim", "err_h_span", points), "err_h_span")
    assert span == (64, 256) and slope["slope"] == pytest.approx(1.5, abs=1e-9)


def test_ratio_fit_reads_p_in_M_and_q_in_D_over_M_inside_8_d_out_le_D_le_4_M():
    """err = M^p·(D/M)^q on the window; cells below 8·d_out or above 4·M (value 1) are not read."""
    points = [
        {
            "L": 16,
            "M": M,
            "D": int(c * M),
            "d_out": 2,
            "value": M**-0.2 * c**0.7 if 16 <= c * M <= 4 * M else 1.0,
        }
        for M in (16, 32, 64)
        for c in (0.5, 1, 2, 4, 8)
    ]
    p, q, n = analysis.ratio_fit(_table("resnet_ratio", "err_h", points))
    assert (p, q) == pytest.approx((-0.2, 0.7), abs=1e-9)
    assert n == 11  # (16, 0.5) below 8·d_out, every c = 8 above 4·M


def test_departure_reads_the_output_error_at_K_over_k_0_inside_D_le_4_M_and_beyond_D_ge_16_M():
    """ρ per cell is the geometric mean over reps of each rep's err_f(K)/err_f(0) (one rep a cell here); the
    means are geometric over the cells of each side."""
    cells = [
        (4, 4, 1.0, 0.5),
        (4, 16, 1.0, 0.2),
        (8, 32, 1.0, 0.8),
        (4, 32, 1.0, 7.0),
        (4, 64, 1.0, 2.0),
        (8, 128, 2.0, 16.0),
    ]
    start = _table(
        "resnet_departure", "err_f", [{"M": m, "D": d, "value": v} for m, d, v, _ in cells], steps=(0,)
    )
    end = _table(
        "resnet_departure", "err_f", [{"M": m, "D": d, "value": v * r} for m, d, v, r in cells], steps=(3,)
    )
    table = pd.concat([start, end], ignore_index=True)
    r = analysis.departure_ratios(table).set_index(["M", "D"])["value"]
    assert r[(8, 128)] == pytest.approx(16.0) and r[(4, 32)] == pytest.approx(7.0)
    assert analysis.departure_mean(table, beyond=False) == (pytest.approx((0.5 * 0.2 * 0.8) ** (1 / 3)), 3)
    assert analysis.departure_mean(table, beyond=True) == (pytest.approx(np.sqrt(2.0 * 16.0)), 2)


def test_lazy_fits_are_power_laws_of_the_rep_mean_in_alpha():
    alphas = [1.0, 2, 4, 8]
    table = pd.concat(
        [
            _table("resnet_lazy", metric, [{"alpha": a, "value": a**slope, "spread": 0.2} for a in alphas])
            for metric, slope in (("local_update", -1.0), ("lin_dist", -0.5), ("tangent_dist", 0.0))
        ]
    )
    fits, mean = analysis.lazy_fits(table)
    assert {k: f["slope"] for k, f in fits.items()} == pytest.approx(
        {"local_update": -1.0, "lin_dist": -0.5, "tangent_dist": 0.0}, abs=1e-9
    )
    assert mean["local_update"]["value"].tolist() == pytest.approx([1 / a for a in alphas])


def test_lazy_depth_slope_reads_the_paired_distance_at_the_largest_alpha_over_L_le_L_ref_over_4():
    """A distance a/L plus the reference's own error a/L_ref in quadrature: the sizes up to L_ref/4 give
    the 1/L slope within the quadrature's 3 %; L_ref/2 (left out) would flatten it; the i.i.d. rows and
    smaller alphas (here a 1/alpha term) are not read."""
    L_ref = 256
    points = [
        {
            "L": L,
            "M": L,
            "L_ref": L_ref,
            "alpha": a,
            "init": init,
            "value": np.hypot(1 / L, 1 / L_ref) + 1 / a,
        }
        for L in (8, 16, 32, 64, 128)
        for a in (4.0, 1e9)
        for init in ("paired", "iid")
    ]
    table = _table("resnet_lazy", "lim_dist", points)
    table.loc[table["init"] == "iid", "value"] *= 10
    slope, alpha, n = analysis.lazy_depth_slope(table)
    assert (alpha, n) == (1e9, 4)
    assert slope["slope"] == pytest.approx(-0.985, abs=0.01)


def test_lazy_fall_fit_reads_the_distance_to_the_own_tangent_model_over_alpha_ge_alpha_max_over_4():
    """lin_dist 0.05·alpha^−2 from alpha = 16 on, flatter (∝ 1/alpha) below: the fit reads −2 on alpha =
    16, 32, 64 only; the distances to the limit (here flat) are not read."""
    alphas = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    lin = [{"alpha": a, "value": 0.05 * a**-2.0 if a >= 16 else 0.05 / (16 * a)} for a in alphas]
    lim = [{"L": 16, "M": 16, "alpha": a, "init": "paired", "value": 0.1} for a in alphas]
    table = pd.concat([_table("resnet_lazy", "lin_dist", lin), _table("resnet_lazy", "lim_dist", lim)])
    slope, alpha_min = analysis.lazy_fall_fit(table)
    assert (alpha_min, slope.n) == (16.0, 3)
    assert slope["slope"] == pytest.approx(-2.0, abs=1e-9)


def test_phase_exponents_fit_D_ge_3_d_out_for_each_gamma():
    points = [
        {"gamma": g, "D": D, "d_out": 5, "value": D ** (0.5 - g) if D >= 15 else 1e3}
        for g in (0.0, 0.5, 1.0)
        for D in (4, 16, 32, 64)
    ]
    exps, mean = analysis.phase_exponents(_table("resnet_phase", "local_update", points, steps=(10,)))
    assert exps["gamma"].tolist() == [0.0, 0.5, 1.0]
    assert exps["exponent"].tolist() == pytest.approx([0.5, 0.0, -0.5], abs=1e-9)
    assert exps["n"].tolist() == [3, 3, 3]
    assert len(mean) == 12


def test_experiments_and_analysis_import_without_matplotlib():
    """Job processes import only the experiments: no matplotlib, no plots (no import circle)."""
    code = (
        "import sys, mfx.resnet.analysis, mfx.resnet.experiments; "
        "assert 'matplotlib' not in sys.modules and 'mfx.resnet.plots' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _phase_table(update_exponent, movement_exponent=lambda g: 0.0):
    """resnet_phase rows whose metrics follow exact powers of D: local update D^(update_exponent(γ)),
    largest stable rate D^(1 − 2γ), movement D^(movement_exponent(γ)), diversity D^min(0, γ − 1/2)."""
    laws = {
        "local_update": update_exponent,
        "lr_max": lambda g: 1 - 2 * g,
        "movement": movement_exponent,
        "diversity": lambda g: min(0.0, g - 0.5),
    }
    parts = [
        _table(
            "resnet_phase",
            metric,
            [
                {"gamma": g, "D": D, "d_out": 5, "value": D ** law(g)}
                for g in (0, 0.25, 0.5, 0.75, 1)
                for D in (16, 32, 64)
            ],
            steps=(10,),
        )
        for metric, law in laws.items()
    ]
    return pd.concat(parts, ignore_index=True)


def test_phase_summary_and_critical_gamma_read_the_exponents_in_D():
    table = _phase_table(lambda g: 0.5 - g)
    summary = analysis.phase_summary(table)
    assert summary["gamma"].tolist() == [0, 0.25, 0.5, 0.75, 1]
    assert summary["lr_max"].tolist() == pytest.approx([1, 0.5, 0, -0.5, -1], abs=1e-9)
    assert summary["diversity"].tolist() == pytest.approx([-0.5, -0.25, 0, 0, 0], abs=1e-9)
    assert analysis.phase_gamma_star(table) == pytest.approx(0.5)
    # a crossing outside the grid is extrapolated from the nearest end, not lost
    assert analysis.phase_gamma_star(_phase_table(lambda g: 1.5 - g)) == pytest.approx(1.5)
    # γ* reads the local update over the same run's movement: a common factor D^0.2 of both cancels
    shifted = _phase_table(lambda g: 0.7 - g, movement_exponent=lambda g: 0.2)
    assert analysis.phase_gamma_star(shifted) == pytest.approx(0.5)
    assert analysis.phase_summary(shifted)["local_share"].tolist() == pytest.approx(
        [0.5, 0.25, 0, -0.25, -0.5]
    )


def test_loss_drop_is_the_median_ratio_of_last_to_first_step():
    points = [{"L": L, "M": 1, "D": 10, "alpha": 1.0, "value": v} for L, v in ((2, 0.3), (4, 0.5), (8, 0.9))]
    ratio, n = analysis.loss_drop(_table("resnet_depth", "loss", points), "resnet_depth")
    assert (ratio, n) == (pytest.approx(0.01), 3)  # _table: earlier steps hold 100 × the last


def test_a_configuration_whose_loss_does_not_fall_by_1_percent_is_untrained():
    rows = [
        {
            "experiment": "resnet_depth",
            "metric": "loss",
            "status": "ok",
            "L": L,
            "M": 1,
            "D": 10,
            "alpha": 1.0,
        }
        | {"seed": seed, "step": step, "value": first if step == 0 else last}
        for L, first, last in ((2, 1.0, 0.4), (4, 1.0, 0.995), (8, 1.0, 1.0))
        for seed in (0, 1)
        for step in (0, 5)
    ]
    assert analysis.untrained(pd.DataFrame(rows), "resnet_depth") == (2, 3)


def test_depth_fit_keeps_the_width_window_and_resolves_a():
    points = [
        {"L": L, "M": M, "L_ref": 64, "M_ref": 64, "value": 0.1 / L + 0.5 / np.sqrt(L * M)}
        for L in (2, 4, 8, 16)
        for M in (1, 4, 16, 64)
    ]
    err = analysis.depth_err(_table("resnet_depth", "err_f", points))
    assert (err["L"] * err["M"] <= 64 * 64 / 16).all() and len(err) == 14
    both = analysis.two_term_fit(err)
    assert both.at_bound == () and both["a"] == pytest.approx(0.1, rel=1e-6)
    assert analysis.term_share(err, both) == pytest.approx((0.1 / 2) / (0.1 / 2 + 0.5 / np.sqrt(2 * 64)))
