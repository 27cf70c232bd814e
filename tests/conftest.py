"""Shared fixtures: a test-only `toy` experiment and an in-process `mfx run` into tmp_path."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from mfx import cli, fit, plotting, results, runtime
from mfx import experiment as registry
from mfx.experiment import Claim, Experiment, check, register

TEST_CONF = Path(__file__).parent / "conf"


@pytest.fixture(autouse=True)
def _close_figures():
    """Close what a test drew: plot functions return open figures, and a suite that keeps them all
    holds hundreds (matplotlib's more-than-20-figures warning)."""
    yield
    plt.close("all")


def _toy_run(cfg):
    m = cfg.model
    noise = runtime.randn((), list(range(m.reps)), "toy", m.a).numpy()
    value = m.b * m.a ** (-0.5 + m.slope_shift) * (1 + m.noise * noise)
    if m.a == m.nan_at:
        value = value * np.nan
    return [{"a": m.a, "seed": s, "metric": "y", "value": v} for s, v in enumerate(value)]


def _toy_fit(table):
    ok = table[table["status"] == "ok"]
    return fit.power_law(ok["a"], ok["value"])


@plotting.draws("toy")
def _toy_plot(table):
    fig, (ax,) = plotting.figure()
    ax.loglog(table["a"], table["value"], "o")
    ax.set_title(_toy_fit(table).describe("slope"))
    return {"y_vs_a": fig}


def _toy_claims(table):
    f = _toy_fit(table)
    seeds = table["seed"].nunique()
    return [
        Claim.within(
            "toy",
            "slope of y vs a",
            f["slope"],
            -0.5,
            0.05,
            f.describe("slope"),
            u=f.se["slope"],
            how="fit SE",
            points=table["a"].nunique(),
            seeds=seeds,
            min_points=3,
            kind="paper",
            source="toy statement: y ∝ a^(−1/2)",
        )
    ]


def _toy_validate(cfg):
    check(cfg, "model.a", int, low=1)
    check(cfg, "model.b", float, low=0, open_low=True)


register(
    Experiment(
        name="toy",
        family="toy",
        description="test-only power law",
        figure="none",
        run=_toy_run,
        claims=_toy_claims,
        validate=_toy_validate,
    )
)


@pytest.fixture
def mfx_main(tmp_path, monkeypatch):
    """Run the CLI in-process with cwd = tmp_path; returns (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def call(*argv, capsys=None):
        return cli.main(list(argv))

    return call


@pytest.fixture
def run_experiment(tmp_path):
    """Run `mfx run experiment=NAME …` in-process into tmp_path; return the collected table."""

    def run(name: str, *overrides: str):
        out = tmp_path / "out"
        argv = ["run", f"experiment={name}", f"out={out}", *overrides]
        if name == "toy":
            argv.append(f"hydra.searchpath=[file://{TEST_CONF}]")
        assert cli.main(argv) == 0
        return results.collect([out / name])[0]

    return run


@pytest.fixture(scope="session")
def quick_table(tmp_path_factory):
    """`quick_table(name)`: the experiment's default quick sweep, run once per test run and shared by
    its claims test and the figure test (each gets its own copy of the collected table);
    `quick_table.claims(name)`: that sweep's claims, computed once for both tests.  Under
    pytest-xdist the workers share one output folder and take turns per experiment (a file lock), so
    a sweep runs once: the second worker finds its jobs complete."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above every worker's own
    out = root / "quick"
    out.mkdir(exist_ok=True)
    tables = {}

    def get(name: str):
        if name not in tables:
            with open(out / f".{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                assert cli.main(["run", f"experiment={name}", f"out={out}"]) == 0
            tables[name] = results.collect([out / name / "quick"])[0]
        return tables[name].copy()

    claims = {}

    def claims_of(name: str):
        if name not in claims:
            claims[name] = registry.get(name).claims(get(name))
        return claims[name]

    get.claims = claims_of
    get.root = out  # where the sweeps are: out / name / "quick"
    return get


torch.set_num_threads(1)


@pytest.fixture
def copy(built, tmp_path, capsys):
    """A copy of the module's `built` output folder (a finished toy sweep), for a test that changes it."""
    out = tmp_path / "out"
    shutil.copytree(built, out, symlinks=True)
    capsys.readouterr()
    return out


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for a folder or a link): the reliability matrices'
    "nothing written" check."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(root.rglob("*"))
    }
