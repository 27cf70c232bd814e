import numpy as np
import pandas as pd
import pytest

from mfx.transformer import analysis


def _limit_table(a=0.6, b=0.5, c=0.0, L_ref=32, Ls=(4, 8, 16), Hs=(1, 4, 16, 64), seeds=8):
    """Synthetic E1 rows that follow the law exactly: depth a·x, width √((b² + c·x)/(LH)) in every seed."""
    E = "transformer_limit"
    rows = []
    for L in Ls:
        x = 1 / L - 1 / L_ref
        for H in Hs:
            rows.append(
                {
                    "experiment": E,
                    "status": "ok",
                    "L": L,
                    "H": H,
                    "L_ref": L_ref,
                    "metric": "err_depth",
                    "value": a * x,
                }
            )
            for s in range(seeds):
                mc = np.sqrt((b**2 + c * x) / (L * H))
                rows.append(
                    {
                        "experiment": E,
                        "status": "ok",
                        "L": L,
                        "H": H,
                        "L_ref": L_ref,
                        "seed": s,
                        "metric": "err_mc",
                        "value": mc,
                    }
                )
                tot = np.sqrt((a * x) ** 2 + mc**2)
                rows.append(
                    {
                        "experiment": E,
                        "status": "ok",
                        "L": L,
                        "H": H,
                        "L_ref": L_ref,
                        "seed": s,
                        "metric": "err",
                        "value": tot,
                    }
                )
    rows.append(
        {
            "experiment": E,
            "status": "failed",
            "L": 4,
            "H": 1,
            "L_ref": L_ref,
            "seed": 0,
            "metric": "err",
            "value": 100.0,
        }
    )
    return pd.DataFrame(rows)


def test_error_law_recovers_the_coefficients_of_an_exact_law():
    for c in (0.0, -0.5, 1.0):
        law = analysis.error_law(_limit_table(c=c))
        assert np.allclose([law["A"], law["B"], law["C"]], [0.36, 0.25, c], atol=1e-9), law
        # n: the 12 sampled cells (the H = ∞ column is fitted, not counted)
        assert law.r2 > 0.999999 and law.n == 12
        assert max(law.se.values()) < 1e-9


def test_law_predict_follows_a_width_coefficient_that_moves_with_depth():
    """b²(L) = B + C·x, C < 0: the fitted law and its prediction follow it exactly."""
    law = analysis.error_law(_limit_table(c=-0.9))
    assert abs(law["C"] + 0.9) < 1e-9
    t = _limit_table(c=-0.9)
    x = 1 / t["L"] - 1 / t["L_ref"]
    assert np.allclose(
        analysis.law_predict(law, t["L"], t["H"], t["L_ref"]),
        0.36 * x**2 + (0.25 - 0.9 * x) / (t["L"] * t["H"]),
    )


def test_the_law_at_infinite_width_is_the_depth_term():
    law = analysis.error_law(_limit_table())
    x = 1 / 8 - 1 / 32
    assert np.isclose(analysis.law_predict(law, 8, np.inf, 32), 0.36 * x**2)


def test_depth_and_width_fits_and_shares_follow_the_law():
    t = _limit_table()
    d = analysis.depth_errors(t)
    assert d["L"].tolist() == [4, 8, 16] and np.allclose(
        d["x"], [1 / 4 - 1 / 32, 1 / 8 - 1 / 32, 1 / 16 - 1 / 32]
    )
    assert abs(analysis.depth_fit(t)["slope"] - 1) < 1e-9
    f, L = analysis.width_fit(t)
    assert L == 16 and abs(f["slope"] + 0.5) < 1e-9
    sh = analysis.shares(t)
    x = 1 / 4 - 1 / 32
    assert sh["depth_at"] == (4, 64) and np.isclose(
        sh["depth"], (0.6 * x) ** 2 / ((0.6 * x) ** 2 + 0.25 / 256)
    )
    assert sh["width_at"] == (16, 1)


def test_limit_fits_on_a_partial_grid_are_nan_not_errors():
    t = _limit_table(Ls=(4,), Hs=(1,))
    assert np.isnan(analysis.error_law(t)["A"]) and analysis.depth_fit(t).n == 1


def test_the_diagonal_pairs_the_largest_L_with_the_largest_H_over_the_limits_move():
    """The joint path through the grid: the k-th largest L with the k-th largest H, each cell's RMS error
    over seeds divided by the limit's move (travel_ref, one row per job)."""
    t = _limit_table(Ls=(2, 4, 8, 16))
    move = {"experiment": "transformer_limit", "status": "ok", "L": 16, "H": 64, "L_ref": 32}
    t = pd.concat([t, pd.DataFrame([dict(move, metric="travel_ref", value=0.5)])], ignore_index=True)
    d = analysis.diagonal(t)
    assert list(zip(d["L"], d["H"])) == [(2, 1), (4, 4), (8, 16), (16, 64)]
    x, mc = 1 / 16 - 1 / 32, np.sqrt(0.5**2 / (16 * 64))
    assert d["rel"].iloc[-1] == pytest.approx(np.hypot(0.6 * x, mc) / 0.5)
    assert analysis.travel(t) == 0.5
    assert np.isnan(analysis.diagonal(t[t["metric"] != "travel_ref"])["rel"]).all()


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


def test_lh_grid_keeps_the_largest_eps_and_fits_the_seed_sd():
    rows = []
    for L, H in ((2, 4), (4, 8), (8, 16)):
        for s, z in enumerate((-1.0, 1.0)):
            for eps, scale in ((0.1, 10.0), (0.3, 1.0)):
                rows.append(
                    {
                        "experiment": "transformer_convergence",
                        "role": "grid",
                        "metric": "lam0",
                        "status": "ok",
                        "L": L,
                        "H": H,
                        "eps": eps,
                        "seed": s,
                        "value": 2.0 + scale * z * (L * H) ** -0.5,
                    }
                )
    g = analysis.lh_grid(pd.DataFrame(rows), "lam0")
    assert g["LH"].tolist() == [8, 32, 128] and np.allclose(g["mean"], 2.0) and (g["seeds"] == 2).all()
    assert np.allclose(g["sd"], np.sqrt(2) * g["LH"] ** -0.5)  # eps = 0.3 only (the ×10 rows left out)
    assert np.isclose(analysis.lh_sd_fit(pd.DataFrame(rows), "lam0")["slope"], -0.5)


def test_depth_exponents_read_the_first_order_through_the_next_euler_term_on_every_pool():
    """|f_{L,P} − f_ref| = x·|a + a₂·z| (z = 1/L + 1/L_ref) on the reference's pool (err_depth) and on each
    further pool (err_depth_pool): the order is 1 on every pool, whatever a₂ bends, where the plain power law
    reads the bend (0.87 on pool 1 here); a half-order error (k = ½, any bend) reads ½."""
    t = _limit_table(Ls=(4, 8, 16, 32), L_ref=64)  # err_depth = 0.6·x: order 1, no bend
    rows = []
    for b, (a, a2, k) in enumerate(((0.6, -0.8, 1.0), (0.6, 0.9, 1.0), (0.3, 0.0, 0.5)), start=1):
        for L in (4, 8, 16, 32):
            x, z = 1 / L - 1 / 64, 1 / L + 1 / 64
            rows.append(
                {"experiment": "transformer_limit", "status": "ok", "L": L, "H": 1, "L_ref": 64, "pool": b}
                | {
                    "metric": "err_depth_pool",
                    "value": x**k * abs(a + a2 * z) if k == 1 else a * x**k * (1 + 0.4 * z),
                }
            )
    table = pd.concat([t, pd.DataFrame(rows)], ignore_index=True)
    ks = analysis.depth_exponents(table)
    np.testing.assert_allclose(ks, [1.0, 1.0, 1.0, 0.5], atol=0.01)
    plain = analysis.depth_fit(table[table["pool"] == 1], "err_depth_pool")["slope"]
    assert plain < 0.9  # the bend a plain power law reads
    assert len(analysis.depth_exponents(t)) == 1  # the reference's pool alone


def test_width_exponents_fit_one_k_per_pool_common_to_the_further_pools_depths():
    """Pool b's width error c_s·g(L)·H^(k_b) (seed factor c_s, a constant of its own at each L) gives back
    k_b, one per pool over the depths where the further pools have networks (4 and 8 here; the reference's
    err_mc at L = 16 is not read then); without further pools, the reference's at its largest L alone."""
    t = _limit_table(c=-0.9)  # b²(L) moves with L: each L its own constant
    rows = []
    for b, k in ((1, -0.45), (2, -0.55)):
        for L in (4, 8):
            for H in (1, 4, 16, 64):
                for s in range(6):
                    value = (1 + 0.1 * s) * (1 + L / 4) * H**k
                    rows.append(
                        {"experiment": "transformer_limit", "status": "ok", "L": L, "H": H, "L_ref": 32}
                        | {"pool": b, "seed": s, "metric": "err_mc_pool", "value": value}
                    )
    ks, Ls = analysis.width_exponents(pd.concat([t, pd.DataFrame(rows)], ignore_index=True))
    np.testing.assert_allclose(ks, [-0.5, -0.45, -0.55], atol=1e-12)
    assert Ls == [4, 8]
    ks, Ls = analysis.width_exponents(t)
    np.testing.assert_allclose(ks, [-0.5], atol=1e-12)
    assert Ls == [16]


def test_the_adjoint_depth_exponent_carries_the_next_euler_term():
    """err = a/L + b/L²: a plain power law reads the bend (fresh seed 5302's draw 0: −0.69), the fit with
    (1 + c/L) reads the first order exactly; a half-order error reads −½, whatever its bend."""
    from mfx import fit

    L = np.array([4.0, 8.0, 16.0, 32.0])
    errs = {0: 4.6 / L - 8.4 / L**2, 1: 1.9 / L - 2.4 / L**2, 2: L**-0.5 * (1 + 0.7 / L)}
    t = pd.DataFrame(
        [
            {"metric": "err_depth", "draw": k, "L": l, "value": v}
            for k, e in errs.items()
            for l, v in zip(L, e)
        ]
    )
    ks = analysis.adjoint_depth_exponents(t)
    np.testing.assert_allclose(ks.to_numpy(), [-1.0, -1.0, -0.5], atol=1e-6)
    assert fit.power_law(L, errs[0])["slope"] > -0.75  # the plain fit's bend


def _changes(shift: float, pairs: int = 400, rng=None) -> pd.DataFrame:
    """gf_change rows of two H whose runs scatter around means `shift` apart (the larger H's scatter halved)."""
    rng = rng or np.random.default_rng(0)
    rows = []
    for H, sd, mean in ((64, 1.0, shift), (256, 0.5, 0.0)):
        v = mean + sd * rng.standard_normal((pairs, 2, 6))
        rows += [
            {"metric": "gf_change", "H": H, "seed": k, "sampling": j, "component": c, "value": v[k, j, c]}
            for k in range(pairs)
            for j in range(2)
            for c in range(6)
        ]
    return pd.DataFrame(rows)


def test_the_curve_gap_is_one_on_one_curve_and_grows_with_a_gap_between_the_means():
    # one law: r² ≈ χ²_6/6; means 0.2 apart against an error √(1.25/400) ≈ 0.056: r ≈ 3.7
    assert 0.3 < analysis.gf_curve_gap(_changes(0.0)) < 1.8
    assert analysis.gf_curve_gap(_changes(0.2)) > 3


def test_gf_order_reads_only_the_steps_in_the_first_order_regime():
    # errors a·η with the largest η far past it (×4 per doubling): λ = 8 keeps η ≤ 1/8, and the slope is 1
    etas = [0.025, 0.05, 0.1, 0.2]
    err = [0.01 * e for e in etas[:3]] + [0.008]
    rows = [
        {"metric": "gf_err", "eta": e, "seed": s, "value": v} for e, v in zip(etas, err) for s in range(2)
    ]
    stiff = [{"metric": "gf_stiff", "seed": s, "value": 8.0} for s in range(2)]
    assert analysis.gf_order(pd.DataFrame(rows + stiff))["slope"] == pytest.approx(1.0)
    assert analysis.gf_order(pd.DataFrame(rows + stiff)).n == 3
    assert analysis.gf_order(pd.DataFrame(rows))["slope"] > 1.3  # every η read: the bend shows
