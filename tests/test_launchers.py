"""Scale-out: the joblib and submitit_local launchers give the same table as the basic launcher."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from mfx import cli, results

ROOT = Path(__file__).parent.parent
EXPERIMENT = "quad_hessian"  # a few fast jobs of a real experiment (the test-only toy lives in this process)


def _table(out, *overrides):
    assert cli.main(["run", f"experiment={EXPERIMENT}", f"out={out}", *overrides]) == 0
    table, _ = results.collect([out / EXPERIMENT])
    return table.sort_values(list(table.columns)).reset_index(drop=True)


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["joblib", "submitit_local"])
def test_launcher_gives_the_same_table_as_basic(tmp_path, launcher):
    basic = _table(tmp_path / "basic")
    other = _table(tmp_path / launcher, f"hydra/launcher={launcher}")
    assert len(basic) > 0
    pd.testing.assert_frame_equal(basic, other)


# ------------------------------------------------------------------------------ a real SLURM
# `make test-slurm` brings up a single-node SLURM with accounting (scripts/slurm-up.sh, as root)
# and runs these; without a SLURM they are skipped.


def _slurm_up() -> bool:
    if not shutil.which("sinfo"):
        return False
    r = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30, check=False)
    return r.returncode == 0 and any(s in r.stdout for s in ("idle", "mix", "alloc"))


slurm = pytest.mark.skipif(not _slurm_up(), reason="no SLURM here (make test-slurm brings one up)")
SLURM = ["hydra/launcher=submitit_slurm", "hydra.launcher.mem_gb=1", "hydra.launcher.cpus_per_task=1"]


def _mfx(out, *overrides, wait=True):
    p = subprocess.Popen(
        [sys.executable, "-m", "mfx", "run", f"experiment={EXPERIMENT}", f"out={out}", *overrides],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if not wait:
        return p
    out_text, err = p.communicate(timeout=900)
    return p.returncode, out_text, err


def _rows(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("rows.csv"))}


def _wait_done(folder: Path, n: int, timeout: float = 300) -> None:
    start = time.time()
    while len(list(folder.rglob("done.json"))) < n:
        assert time.time() - start < timeout, "no job finished"
        time.sleep(0.5)


def _my_jobs() -> list[str]:
    r = subprocess.run(["squeue", "-h", "-o", "%A"], capture_output=True, text=True, timeout=30, check=False)
    return sorted(set(r.stdout.split()))


@pytest.fixture(scope="module")
def basic_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("basic")
    code, _, err = _mfx(out)
    assert code == 0, err
    return _rows(out / EXPERIMENT / "quick")


@pytest.mark.slow
@slurm
def test_slurm_sweep_gives_byte_identical_rows(tmp_path, basic_rows):
    start = time.time()
    code, out, err = _mfx(tmp_path, *SLURM)
    assert code == 0, (out, err)
    assert _rows(tmp_path / EXPERIMENT / "quick") == basic_rows
    assert not list(tmp_path.rglob("*.pkl"))  # submitit's pickles never in the data folder
    print(f"slurm sweep: {time.time() - start:.0f} s")


@pytest.mark.slow
@slurm
def test_slurm_scancel_mid_sweep_is_one_line_and_resumes_to_the_same_bytes(tmp_path, basic_rows):
    start = time.time()
    folder = tmp_path / EXPERIMENT / "quick"
    p = _mfx(
        tmp_path, *SLURM, "hydra.launcher.array_parallelism=1", "hydra.launcher.setup=[sleep 3]", wait=False
    )
    _wait_done(folder, 1)
    subprocess.run(["scancel", *_my_jobs()], check=True, timeout=30)
    out, err = p.communicate(timeout=600)
    assert p.returncode == 1, (out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    done, n = len(list(folder.rglob("done.json"))), len(basic_rows)  # n: the sweep's jobs
    assert (
        err.strip()
        == f"mfx: SLURM cancelled {n - done} of {n} jobs; {done} done; rerun the same command to resume"
    )
    code, out, err = _mfx(tmp_path, *SLURM)
    assert code == 0, (out, err)
    assert f"({n - done} run, {done} skipped, 0 failed)" in out
    assert _rows(folder) == basic_rows
    print(f"slurm scancel + resume: {time.time() - start:.0f} s")


@pytest.mark.slow
@slurm
def test_slurm_a_job_killed_by_its_time_limit_resumes(tmp_path, basic_rows):
    start = time.time()
    folder = tmp_path / EXPERIMENT / "quick"
    code, out, err = _mfx(
        tmp_path, *SLURM, "hydra.launcher.timeout_min=1", "hydra.launcher.setup=[sleep 120]"
    )
    assert code == 1, (out, err)
    assert "hit the time limit" in err and "rerun the same command to resume" in err, err
    assert len(err.strip().splitlines()) == 1, err
    code, out, err = _mfx(tmp_path, *SLURM)
    assert code == 0, (out, err)
    assert _rows(folder) == basic_rows
    print(f"slurm time limit + resume: {time.time() - start:.0f} s")


@pytest.mark.slow
@slurm
def test_slurm_a_stale_lock_of_a_cancelled_job_does_not_block_the_rerun(tmp_path, basic_rows):
    folder = tmp_path / EXPERIMENT / "quick"
    r = subprocess.run(
        ["sbatch", "--parsable", "--wrap", "sleep 600", "-o", "/dev/null"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    job = r.stdout.strip().split(";")[0]
    subprocess.run(["scancel", job], check=True, timeout=30)
    lock = folder / "model.p=3,model.p_star=2" / ".lock"
    lock.parent.mkdir(parents=True)
    # another node's job, alive by its heartbeat: only SLURM can tell that it is gone
    lock.write_text(json.dumps({"host": "node7", "pid": 1, "slurm_job": job, "since": time.time()}))
    code, out, err = _mfx(tmp_path, *SLURM)
    assert code == 0, (out, err)
    assert f"({len(basic_rows)} run, 0 skipped, 0 failed)" in out
    assert _rows(folder) == basic_rows
