"""What every quadratic figure shares: the top-level seed, the memory estimate, the cuda refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from mfx import cli

SMALL = ["model.sgd_g=[0.09]", "model.sgd_seeds=2", "model.full_seeds=0", "model.ode_seeds=2"]


def _rows(out: Path) -> dict[str, bytes]:
    return {str(f.relative_to(out)).split("/", 2)[-1]: f.read_bytes() for f in sorted(out.rglob("rows.csv"))}


def test_top_level_seed_shifts_every_stream_and_repeats_bytes(tmp_path):
    runs = {}
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        out = tmp_path / name
        argv = ["run", "experiment=quad_implicit_bias", "scale=quick", f"seed={seed}", f"out={out}", *SMALL]
        assert cli.main(argv) == 0
        runs[name] = _rows(out)
    assert runs["a"] and runs["a"] == runs["b"]
    (rows_a,), (rows_c,) = runs["a"].values(), runs["c"].values()
    # another seed: other replicate ids, and every value that depends on a draw differs
    assert rows_a != rows_c and b"100000" in rows_c


@pytest.mark.parametrize(
    "experiment, overrides",
    [
        ("quad_escape", ["model.sgd_method=full", "model.sgd_N=[1000000000]"]),
        ("quad_curves", ["model.full_N=1000000000"]),
        ("quad_implicit_bias", ["model.sgd_method=full", "model.N=1000000000"]),
        (
            "quad_hessian",
            [
                "model.p=100000",
                "model.N=200000",
                "model.sgd_N=200000",
                "model.plateau_N=200000",
                "model.flat_N=200000",
            ],
        ),
    ],
)
def test_an_absurd_size_is_refused_before_anything_runs(experiment, overrides, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["run", f"experiment={experiment}", "scale=quick", f"out={out}", *overrides]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "GiB" in err[0]
    assert not out.exists() or not any(out.rglob("*"))


def test_cuda_is_refused_not_ignored(capsys, tmp_path):
    assert cli.main(["run", "experiment=quad_hessian", "runtime.device=cuda", f"out={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "runtime.device" in err[0]
