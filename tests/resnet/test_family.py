"""What every ResNet experiment shares: the top-level seed, the memory estimate that refuses an
absurd size before anything runs, and claims that stay calm (inconclusive) on a partial grid."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from mfx import cli
from mfx import experiment as registry
from mfx.resnet.experiments.common import SEED_BLOCK

SMALL = ["model.L=4", "model.M=4", "model.reps=2", "model.K=3"]
PHASE = ["experiment=resnet_phase", "model.D=16", "model.gamma=0.5", *SMALL]


def _rows(out):
    (path,) = sorted(out.rglob("rows.csv"))
    return path.read_bytes()


def test_same_seed_same_bytes_other_seed_independent_draws(tmp_path):
    runs = {}
    for tag, seed in (("a", 0), ("b", 0), ("c", 3)):
        assert cli.main(["run", *PHASE, f"seed={seed}", f"out={tmp_path / tag}"]) == 0
        runs[tag] = _rows(tmp_path / tag)
    assert runs["a"] == runs["b"]
    assert runs["a"] != runs["c"]
    text = runs["c"].decode()
    assert f",{3 * SEED_BLOCK}," in text and f",{3 * SEED_BLOCK + 1}," in text  # the seed column


@pytest.mark.parametrize(
    "name, override",
    [
        ("resnet_depth", "model.L_ref=1000000000"),
        ("resnet_width", "model.M_ref=1000000000"),
        ("resnet_dim", "model.L_ref=1000000000"),
        ("resnet_ratio", "model.L_ref=1000000000"),
        ("resnet_departure", "model.L_ref=1000000000"),
        ("resnet_lazy", "model.L=1000000000"),
        ("resnet_phase", "model.L=1000000000"),
        ("resnet_limit", "model.L=1000000000"),
    ],
)
def test_absurd_size_is_refused_before_anything_runs(name, override, tmp_path, capsys):
    out = tmp_path / "o"
    assert cli.main(["run", f"experiment={name}", override, f"out={out}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "GiB" in err[0] and "model.L" in err[0]
    assert not out.exists()


def test_memory_estimates_grow_with_the_sizes():
    """Linear in L (and in L_ref where a reference is trained)."""
    from_yaml = {
        "L": 8,
        "M": 4,
        "D": 10,
        "D_max": 10,
        "N": 10,
        "K": 15,
        "reps": 5,
        "L_ref": 64,
        "M_ref": 64,
        "limit_sizes": [8],
    }
    for name in ("resnet_depth", "resnet_lazy", "resnet_phase"):
        exp = registry.get(name)
        small = exp.memory(_cfg(from_yaml))
        big = exp.memory(_cfg({**from_yaml, "L": 80, "L_ref": 640}))
        assert 0 < small < big


def _cfg(model):
    return OmegaConf.create({"seed": 0, "model": model})


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("resnet_depth", ["model.L=2,4", "model.M=[1]", "model.L_ref=8", "model.M_ref=8"]),
        ("resnet_width", ["model.L=2", "model.M=[1,4]", "model.L_ref=16", "model.M_ref=8"]),
        ("resnet_dim", ["model.D=4,8", "model.L=4", "model.M=4", "model.L_ref=8", "model.M_ref=8"]),
        pytest.param(  # as resnet_dim's (its twin in code): slow, not to add its seconds to the default suite
            "resnet_ratio",
            ["model.ratio=1,2", "model.L=4", "model.M=4", "model.L_ref=8", "model.M_ref=8"],
            marks=pytest.mark.slow,
        ),
        (
            "resnet_lazy",
            [
                "model.alpha=1,2",
                "model.L=4",
                "model.M=4",
                "model.limit_sizes=[4]",
                "model.L_ref=8",
                "model.M_ref=8",
            ],
        ),
        ("resnet_phase", ["model.D=4,8", "model.gamma=0.5", "model.L=4", "model.M=4"]),
    ],
)
def test_partial_grid_gives_inconclusive_claims_and_a_report(name, overrides, run_experiment, tmp_path):
    table = run_experiment(name, "model.reps=2", "model.K=3", *overrides)
    claims = registry.get(name).claims(table)
    assert claims and all(c.verdict == "inconclusive" for c in claims)
    sweep = next((tmp_path / "out" / name).glob("quick*"))
    assert cli.main(["report", str(sweep)]) == 0
