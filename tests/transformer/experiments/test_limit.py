import math

import numpy as np
import pytest
import torch
from sweep_checks import quick_sweep_test

from mfx import cli, plotting, results, runtime, sweep
from mfx.experiment import get
from mfx.transformer.experiments import limit

NAME = "transformer_limit"
ISSUE_CLAIMS = [
    "the trained L×H network converges to the limit as L, H → ∞ jointly",
    "depth error",
    "width error",
    "the measured networks are trained",
    "training makes the depth error",
    "the law's width term B/(LH)",
    "the error law A x² + (B + C x)/(LH)",
]
KINDS = ["paper"] + ["derived"] * 4 + ["identity", "derived"]


def test_experiment_runs_end_to_end_and_its_claims_pass(quick_table):
    table = quick_table(NAME)
    assert (table["status"] == "ok").all()
    claims = quick_table.claims(NAME)
    assert len(claims) == len(ISSUE_CLAIMS)
    for claim, words in zip(claims, ISSUE_CLAIMS):
        assert claim.statement.startswith(words)
        assert claim.passed, claim
    assert [c.kind for c in claims] == KINDS and all(c.source for c in claims)
    figures = plotting.plot_function(NAME)(table)
    assert all(plotting.layout_problems(f) == [] for f in figures.values())


def test_partial_grid_gives_inconclusive_claims_not_a_crash(run_experiment):
    small = ("model.P=16", "model.L_ref=16", "model.seeds=4", "model.steps=40")  # the grid is what matters
    table = run_experiment(NAME, "scale=quick", "model.L=4,8", "model.H=1,4", *small)
    verdicts = {c.statement.split(":")[0]: c.verdict for c in get(NAME).claims(table)}
    depth = "depth error |f_{L,P} − f_ref| = A·xᵏ·(1 + c·(1/L + 1/L_ref)), x = 1/L − 1/L_ref, L ≥ 4"
    assert verdicts[depth] == "inconclusive"
    assert (
        verdicts["width error |f_{L,H} − f_{L,P}| ∝ Hᵏ at fixed L (L = 4, 8, each L its own constant)"]
        == "inconclusive"
    )


def test_width_exponent_u_carries_the_pools_spread_from_networks_drawn_from_further_pools(tmp_path):
    """The sampled networks of further pool b are those of its heads pool_b[idx] trained on
    their own (the batch changes nothing of the pool's own seeds), measured against pool b's full
    network; the width claim reads them, and has no u (no verdict) without them at its L."""
    small = ("model.P=16", "model.L_ref=8", "model.seeds=3", "model.steps=20", "model.L=4", "model.H=1,4,16")

    def run(out, *overrides):
        assert cli.main(["run", f"experiment={NAME}", f"out={tmp_path / out}", *overrides]) == 0
        return results.collect([tmp_path / out / NAME])[0]

    plain = run("plain", "model.pool_width=0", *small)  # (quick has further pools at L = 4)
    boot = run("boot", "model.pool_width=2", *small)
    key = ["H", "seed", "metric"]
    own = lambda t: t[t["metric"].isin(["err", "err_mc"])].sort_values(key)["value"].to_numpy()
    np.testing.assert_allclose(own(boot), own(plain), rtol=1e-12)
    # pool 2 at H = 4, by hand: its heads pool_2[idx], trained alone, against pool 2's full network
    cfg = sweep._compose([f"experiment={NAME}", "model.pool_width=2", *small[:-1], "model.H=4"])
    m, rt = cfg.model, runtime.setup(**cfg.runtime)
    c, q0 = limit._data(m, rt, cfg.seed)
    y = limit._targets(m, rt, q0, c.X.shape[0], cfg.seed)
    pools = limit._pools(m, rt, cfg.seed)
    gen = lambda s: runtime.generator(cfg.seed, "transformer", "heads", m.L, m.H, s)
    idx = torch.stack([torch.randint(m.P, (m.L, m.H), generator=gen(s)) for s in range(m.seeds)])
    out = limit._train(m, *(p[2][idx] for p in pools), c.X, q0, y)
    full = limit._train(m, *(p[2][None, None].expand(1, m.L, -1, -1, -1) for p in pools), c.X, q0, y)
    by_hand = limit._rms(out["yhat"][-1], full["yhat"][-1, 0]).numpy()
    t = boot[(boot["metric"] == "err_mc_pool") & (boot["pool"] == 2) & (boot["H"] == 4)].sort_values("seed")
    np.testing.assert_allclose(t["value"].to_numpy(), by_hand, rtol=1e-10)
    width = lambda t: next(c for c in get(NAME).claims(t) if c.statement.startswith("width error"))
    assert math.isnan(width(plain).u) and "no networks of further pools" in width(plain).detail
    claim = width(boot)  # the reference's pool and the 2 further ones, each its k at L = 4
    assert math.isfinite(claim.u) and "k over 3 pools" in claim.detail
    # model.pool_seeds: the further pools' networks of the first seeds only, the same draws and values
    fewer = run("fewer", "model.pool_width=2", "model.pool_seeds=2", *small)
    np.testing.assert_allclose(own(fewer), own(plain), rtol=1e-12)
    pools = lambda t: t[t["metric"] == "err_mc_pool"].sort_values(["pool", "H", "seed"])
    first = pools(boot)[pools(boot)["seed"] < 2]
    np.testing.assert_allclose(pools(fewer)["value"].to_numpy(), first["value"].to_numpy(), rtol=1e-12)


def test_the_seed_key_shifts_every_stream_and_repeats_bytes(tmp_path):
    def rows(seed, out):
        argv = [
            "run",
            f"experiment={NAME}",
            "model.L=4",
            "model.H=1",
            # a small sweep: what is tested is the seed's streams, not the physics
            "model.P=16",
            "model.L_ref=8",
            "model.seeds=2",
            "model.steps=20",
            f"seed={seed}",
            f"out={tmp_path / out}",
        ]
        assert cli.main(argv) == 0
        (job,) = (tmp_path / out).glob(f"{NAME}/quick*/*/rows.csv")
        return job.read_bytes(), results.collect([job.parent.parent])[0]

    a, ta = rows(3, "a")
    b, _ = rows(3, "b")
    _, tc = rows(4, "c")
    assert a == b  # same seed → byte-identical rows
    depth = lambda t: float(t.loc[t["metric"] == "err_depth", "value"].iloc[0])
    assert depth(ta) != depth(tc)  # another seed: other clouds, targets and pool


@pytest.mark.parametrize("override", ["model.L=100000000", "model.P=1000000000"])
def test_absurd_sizes_are_refused_before_anything_runs(mfx_main, capsys, tmp_path, override):
    assert (
        mfx_main("run", f"experiment={NAME}", override, "model.L_ref=100000000", f"out={tmp_path / 'o'}") == 2
    )
    err = capsys.readouterr().err
    assert "GiB" in err and "model.L" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "override,words",
    [
        ("model.dist=cubes", "discrete, cube, laplace, gmm2, gauss, duplicates, translates, same_cov, iid"),
        ("model.base=nope", "discrete, cube, laplace, gmm2, gauss"),
        ("model.L=0", "model.L"),
        ("model.n=0", "model.n"),
        ("model.train=q", "qkv, qk, v"),
        ("model.params=[]", "model.params"),
        ("model.P=0", "model.P"),
    ],
)
def test_bad_input_exits_2_naming_the_key(mfx_main, capsys, tmp_path, override, words):
    assert mfx_main("run", "experiment=transformer_limit", override, f"out={tmp_path / 'o'}") == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


test_quick_sweep_reads = quick_sweep_test("transformer_limit")
