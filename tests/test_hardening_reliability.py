"""Issue 26: the second fault matrix — sweeps of any key, output paths that stay under `out`, a
shared folder turned against its user, locks and caches that cannot lie, damaged or forged
artefacts, and a hostile environment.

Every refusal is one line on stderr, exit 2, no traceback and nothing written; every fault leaves
the data as an undisturbed run makes it.  MATRIX counts the cases by class (reported in the issue).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import TEST_CONF, snapshot

from mfx import cli, locks, results, runtime, sweep
from mfx.cache import cached

SEARCH = f"hydra.searchpath=[file://{TEST_CONF}]"
TOY = [SEARCH, "experiment=toy"]
ROOT = Path(__file__).parent.parent


def one_line(err: str) -> None:
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) <= 2, err
    assert "\x1b" not in err and "\x07" not in err, err


def toy(out, *overrides) -> int:
    return cli.main(["run", *TOY, f"out={out}", *overrides])


def rows_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("rows.csv"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A complete toy sweep, copied by each test that damages it."""
    out = tmp_path_factory.mktemp("built")
    assert toy(out) == 0
    return out


@pytest.fixture
def scene(tmp_path, monkeypatch):
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("MFX_LAUNCH_DIR", str(tmp_path / "launch"))
    return tmp_path


def refused(capsys, root: Path, argv: list[str], says: str = "", code: int = 2) -> str:
    before = snapshot(root)
    got = cli.main(argv)
    out, err = capsys.readouterr()
    assert got == code, (argv, out, err)
    one_line(err)
    assert says in err, (says, err)
    assert snapshot(root) == before, "something was written"
    return err


# ----------------------------------------------------------------- 1. any key can be swept


SPLIT = [
    # (override, how many sweeps, whether the first value is the experiment's own folder)
    ("seed=0,1", 2),
    ("seed=0,1,2", 3),
    ("runtime.dtype=float32,float64", 2),
    ("scale=quick,paper", 2),
    ("model.b=1.0,2.0", 2),
    ("model.noise=0.01,0.02", 2),
    ("model.reps=2,3", 2),
    ("out={a},{b}", 2),
    ("seed=0,1 runtime.dtype=float32,float64", 4),
]


@pytest.mark.parametrize("overrides, n", SPLIT, ids=[s[0] for s in SPLIT])
def test_a_sweep_of_a_non_grid_key_is_one_sweep_folder_per_value(tmp_path, overrides, n):
    lines = overrides.format(a=tmp_path / "a", b=tmp_path / "b").split()
    plans = sweep.plans([*TOY, f"out={tmp_path}", *lines] if "out=" not in overrides else [*TOY, *lines])
    assert len(plans) == n
    assert len({p.folder for p in plans}) == n  # never two values in one folder
    for p in plans:
        assert p.axes == ["model.a"]  # the value is the sweep's identity, not a grid axis
        for line in lines:
            assert "," not in p.replace.get(line, ",")  # each plan gets one value


REPEATS = [
    ("model.a=2,2", "repeats"),
    ("model.a=1,2,1", "repeats"),
    ("model.b=0.5,0.50", "repeats"),
    ("model.b=1,1.0", "repeats"),
    ("seed=1,1", "repeats"),
    ("scale=quick,quick", "repeats"),
    ("runtime.threads=1,2", "same sweep"),
    ("resume=true,false", "same sweep"),
    ("cache_dir=a,b", "same sweep"),
    ("out={out},{out}", "repeats"),
    ("runtime.dtype=float64,float64", "repeats"),
    ("model.a=1,2 model.a=2,2", "repeats"),
]


@pytest.mark.parametrize("overrides, says", REPEATS, ids=[r[0] for r in REPEATS])
def test_repeated_or_respelled_values_are_refused_with_one_line(scene, capsys, overrides, says):
    lines = overrides.format(out=scene / "out").split()
    refused(capsys, scene, ["run", *TOY, f"out={scene / 'out'}", *lines], says)


def test_scale_quick_paper_is_two_sweeps_and_a_bad_scale_no_repr(scene, capsys):
    plans = sweep.plans([*TOY, f"out={scene}", "scale=quick,paper"])
    assert [p.scale for p in plans] == ["quick", "paper"]
    err = refused(capsys, scene, ["run", *TOY, f"out={scene}", "scale=quick,huge"], "scale")
    assert "Sweep" not in err and "<" not in err and "'huge'" in err


def test_seed_0_1_keeps_seed_0_in_the_default_folder(scene, capsys):
    out = scene / "out"
    assert toy(out) == 0
    default = rows_bytes(out / "toy" / "quick")
    assert toy(out, "seed=0,1") == 0
    folders = sorted(p.name for p in (out / "toy").iterdir())
    assert len(folders) == 2 and "quick" in folders
    assert rows_bytes(out / "toy" / "quick") == default  # seed 1 did not overwrite seed 0
    other = out / "toy" / next(f for f in folders if f != "quick")
    table, _ = results.collect([other])
    prov = json.loads(next(other.rglob("provenance.json")).read_text())
    assert prov["config"]["seed"] == 1 and len(table) == 8
    assert "(0 run, 4 skipped" in capsys.readouterr().out  # seed 0 was already complete


def test_a_value_with_a_slash_never_names_a_job_folder(scene, capsys):
    refused(capsys, scene, ["run", *TOY, f"out={scene / 'out'}", "model.a=1,2", "name=../x"], "name")


# ------------------------------------------------------------ 2. nothing written outside out

HYDRA_KEYS = [
    "hydra.sweep.dir=/tmp/mfx-elsewhere",
    "hydra.sweep.subdir=../../x",
    "hydra.run.dir=/tmp/mfx-elsewhere",
    "hydra.output_subdir=../../x",
    "hydra.job_logging.handlers.file.filename=/tmp/mfx-x.log",
    "hydra.sweeper.params=null",
    "hydra.job.chdir=true",
    "hydra.mode=RUN",
    "hydra.launcher.submitit_folder=/tmp/mfx-pickles",
    "hydra/job_logging=disabled",
    "hydra/sweeper=basic",
    "hydra.runtime.output_dir=/tmp/x",
    "hydra.job.name=x",
    "+hydra.foo=1",
    "hydra.job.config.override_dirname.exclude_keys=[]",
]


@pytest.mark.parametrize("override", HYDRA_KEYS)
def test_hydras_output_keys_are_refused_pointing_at_out(scene, capsys, override):
    refused(capsys, scene, ["run", *TOY, f"out={scene / 'out'}", override], "out=")


ODD_OUT = ["out=", "out= ", "out=/", "out=//", "out=a\x1bb", "out=a\x07", "out='   '"]


@pytest.mark.parametrize("override", ODD_OUT, ids=[repr(o) for o in ODD_OUT])
def test_an_empty_or_odd_out_is_refused(scene, capsys, override):
    refused(capsys, scene, ["run", *TOY, override], "")


def test_a_run_writes_nothing_outside_out_and_no_code_in_it(scene, capsys):
    out = scene / "out"
    before = {p for p in scene.rglob("*") if out not in p.parents}
    assert toy(out) == 0
    after = {p for p in scene.rglob("*") if out not in p.parents and p != out}
    assert after - before <= {scene / "launch"}  # the private launch folder, emptied after the run
    assert not any((scene / "launch").iterdir())
    names = {p.name for p in out.rglob("*")}
    assert not names & {"multirun.yaml", ".hydra", ".submitit", "toy.log"}
    assert not [p for p in out.rglob("*.pkl")]


def test_the_launch_folder_is_private(scene):
    folder = runtime.launch_folder()
    assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == os.getuid()
    args = sweep.plans([*TOY, f"out={scene}"])[0].hydra_args([], folder)
    assert f"hydra.sweep.dir='{folder}'" in args


def test_a_non_ascii_out_works_quoted_and_unquoted_says_how(scene, capsys):
    out = scene / "ausgabe-ü-é"
    refused(capsys, scene, ["run", *TOY, f"out={out}"], f"out='{out}'")
    assert cli.main(["run", *TOY, f"out='{out}'"]) == 0
    assert len(results.find_jobs([out])) == 4


# ------------------------------------------------------------- 3. a shared folder is safe

PLANTS = [
    # (path planted as a link under the sweep, expected exit code of the run)
    ("toy/quick/model.a=2", 1),
    ("toy/quick", 1),
    ("toy", 1),
    ("toy/quick/sweep.json", 0),
    ("toy/quick/model.a=2/rows.csv", 0),
    ("toy/quick/model.a=2/done.json", 0),
    ("toy/quick/model.a=2/provenance.json", 0),
    ("toy/quick/model.a=2/.lock", 0),
]


@pytest.mark.parametrize("planted, code", PLANTS, ids=[p[0] for p in PLANTS])
def test_a_planted_link_is_never_written_through(scene, capsys, planted, code):
    out, victim = scene / "out", scene / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep me\n")
    link = out / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    target = victim if not Path(planted).suffix or planted.endswith("model.a=2") else victim / "precious"
    if planted in ("toy", "toy/quick", "toy/quick/model.a=2"):
        target = victim
    link.symlink_to(target)
    before = snapshot(victim)
    got = toy(out)
    _, err = capsys.readouterr()
    assert snapshot(victim) == before  # nothing written through the link
    if code:
        assert got == 1 and "symbolic link" in err
    else:
        assert got == 0 and not link.is_symlink()  # the rename replaced the link itself


@pytest.mark.parametrize("name", ["table.csv", "table.json", "report.md", "report.html"])
def test_report_and_collect_replace_a_planted_link_without_writing_through(copy, tmp_path, capsys, name):
    sweep_dir = copy / "toy" / "quick"
    (tmp_path / "precious").write_text("keep me\n")
    (sweep_dir / name).symlink_to(tmp_path / "precious")
    assert cli.main(["report", str(sweep_dir)]) == 0
    assert (tmp_path / "precious").read_text() == "keep me\n"


def test_a_planted_figures_link_is_not_written_through(copy, tmp_path, capsys):
    sweep_dir = copy / "toy" / "quick"
    (tmp_path / "elsewhere").mkdir()
    (sweep_dir / "figures").mkdir()
    (sweep_dir / "figures" / "y_vs_a.png").symlink_to(tmp_path / "elsewhere" / "x.png")
    assert cli.main(["plot", str(sweep_dir)]) == 0
    assert not any((tmp_path / "elsewhere").iterdir())


@pytest.mark.parametrize("command", ["plot", "report"])
def test_plot_and_report_with_out_write_only_under_out(copy, tmp_path, capsys, command):
    sweep_dir = copy / "toy" / "quick"
    before = snapshot(copy)
    assert cli.main([command, str(sweep_dir), "--out", str(tmp_path / "elsewhere")]) == 0
    assert snapshot(copy) == before
    assert any((tmp_path / "elsewhere").rglob("*"))


@pytest.mark.parametrize("backup", ["toy/quick.bak", "toy/quick/model.a=2.bak", "toy/old/quick"])
def test_a_backup_copy_is_refused_never_merged(copy, capsys, backup):
    src = copy / "toy" / "quick" / ("model.a=2" if "model.a" in backup else "")
    shutil.copytree(src, copy / backup)
    err = refused(capsys, copy, ["collect", str(copy / "toy")], "same job")
    assert "copy" in err


# ------------------------------------------------------------ 4. locks and caches tell the truth


def _lock(job: Path, **owner) -> None:
    job.mkdir(parents=True, exist_ok=True)
    (job / locks.LOCK).write_text(json.dumps(owner))


def _fake_squeue(tmp_path, monkeypatch, states: str, code: int = 0, err: str = "") -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "squeue"
    script.write_text(f"#!/bin/sh\necho '{err}' >&2\nprintf '{states}'\nexit {code}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")


STALE = [
    ("dead-pid-this-host", {"host": os.uname().nodename, "pid": 2**22 + 12345}, None, 0),
    ("slurm-job-gone", {"host": "node7", "pid": 1, "slurm_job": "4242"}, ("", 1, "Invalid job id"), 0),
    ("slurm-job-ended", {"host": "node7", "pid": 1, "slurm_job": "4242"}, ("", 0, ""), 0),
    ("no-heartbeat-other-host", {"host": "node7", "pid": 1}, None, locks.STALE_SECONDS + 60),
    ("pid-reused-no-heartbeat", {"host": os.uname().nodename, "pid": 1}, None, locks.STALE_SECONDS + 60),
    ("garbage", None, None, 0),
]


@pytest.mark.parametrize("what, owner, squeue, age", STALE, ids=[s[0] for s in STALE])
def test_a_lock_whose_owner_is_gone_is_taken_over(
    copy, tmp_path, capsys, monkeypatch, what, owner, squeue, age
):
    job = copy / "toy" / "quick" / "model.a=2"
    (job / results.DONE).unlink()
    if owner is None:
        (job / locks.LOCK).write_bytes(b"\x00garbage")
    else:
        _lock(job, **owner)
    if age:
        then = time.time() - age
        os.utime(job / locks.LOCK, (then, then))
    if squeue is not None:
        _fake_squeue(tmp_path, monkeypatch, *squeue)
    assert toy(copy) == 0
    assert "(1 run, 3 skipped, 0 failed)" in capsys.readouterr().out
    assert not (job / locks.LOCK).exists()


LIVE = [
    ("live-pid-this-host", {"host": os.uname().nodename, "pid": os.getppid()}, None),
    ("slurm-job-running", {"host": "node7", "pid": 1, "slurm_job": "4242"}, ("RUNNING\\n", 0, "")),
    ("other-host-fresh", {"host": "node7", "pid": 1}, None),
]


@pytest.mark.parametrize("what, owner, squeue", LIVE, ids=[s[0] for s in LIVE])
def test_a_job_locked_by_a_live_owner_is_counted_and_the_run_fails_with_the_way_out(
    copy, tmp_path, capsys, monkeypatch, what, owner, squeue
):
    job = copy / "toy" / "quick" / "model.a=2"
    (job / results.DONE).unlink()
    _lock(job, **owner)
    if squeue is not None:
        _fake_squeue(tmp_path, monkeypatch, *squeue)
    monkeypatch.setattr(locks, "WAIT_SECONDS", 0.5)  # the owner never finishes: do not wait a minute
    assert toy(copy) == 1
    out, err = capsys.readouterr()
    assert "1 running in another process, 0 failed" in out, out
    assert "wait for it; rerun the same command to resume" in out and f"host {owner['host']}" in out
    one_line(err)


def test_a_lock_names_host_pid_and_slurm_job(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_ARRAY_JOB_ID", "77")
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "3")
    with locks.job_lock(tmp_path) as mine:
        assert mine
        who = json.loads((tmp_path / locks.LOCK).read_text())
        assert who["host"] and who["pid"] == os.getpid() and who["slurm_job"] == "77_3"
        assert "SLURM job 77_3" in locks.describe(tmp_path)
    assert not (tmp_path / locks.LOCK).exists()


def test_the_lock_heartbeat_keeps_it_fresh(tmp_path, monkeypatch):
    monkeypatch.setattr(locks, "HEARTBEAT", 0.05)
    with locks.job_lock(tmp_path):
        os.utime(tmp_path / locks.LOCK, (0, 0))
        time.sleep(0.3)
        assert time.time() - (tmp_path / locks.LOCK).stat().st_mtime < 5


def test_a_cache_made_by_other_code_is_not_reused(tmp_path, monkeypatch):
    import torch

    calls = []

    def compute():
        calls.append(1)
        return {"w": torch.ones(2) * len(calls)}

    assert cached("ref", {"n": 2}, compute, tmp_path)["w"][0] == 1
    assert cached("ref", {"n": 2}, compute, tmp_path)["w"][0] == 1 and len(calls) == 1
    monkeypatch.setattr(results, "code_hash", lambda: "othercode")
    assert cached("ref", {"n": 2}, compute, tmp_path)["w"][0] == 2 and len(calls) == 2


def test_the_tally_counts_this_runs_own_jobs_exactly(copy, capsys):
    for job in ("model.a=2", "model.a=4"):
        (copy / "toy" / "quick" / job / results.DONE).unlink()
    assert toy(copy) == 0
    assert "(2 run, 2 skipped, 0 failed)" in capsys.readouterr().out
    assert toy(copy) == 0
    assert "(0 run, 4 skipped, 0 failed)" in capsys.readouterr().out


# ---------------------------------------------------------------- 5. damaged or forged artefacts


def _forge(job: Path, text: str) -> None:
    """Replace a job's rows and make its done.json agree (a forger who knows the format)."""
    data = text.encode()
    (job / results.ROWS).write_bytes(data)
    done = json.loads((job / results.DONE).read_text())
    done.update(rows=len(pd.read_csv(job / results.ROWS)), rows_sha256=hashlib.sha256(data).hexdigest())
    (job / results.DONE).write_text(json.dumps(done))


HEAD = "experiment,scale,a,seed,metric,value,status\n"
FORGED = {
    "non-numeric": HEAD + "toy,quick,2,0,y,abc,ok\ntoy,quick,2,1,y,0.7,ok\n",
    "nan-with-ok": HEAD + "toy,quick,2,0,y,nan,ok\ntoy,quick,2,1,y,0.7,ok\n",
    "inf-with-ok": HEAD + "toy,quick,2,0,y,inf,ok\ntoy,quick,2,1,y,0.7,ok\n",
    "foreign-experiment": HEAD.replace("a,", "L,") + "resnet_phase,quick,2,0,y,0.7,ok\n",
    "unknown-experiment": HEAD + "evil,quick,2,0,y,0.7,ok\n",
    "other-scale": HEAD + "toy,paper,2,0,y,0.7,ok\n",
    "mixed-experiments": HEAD + "toy,quick,2,0,y,0.7,ok\nquad_hessian,quick,2,1,y,0.7,ok\n",
    "duplicated": HEAD + "toy,quick,2,0,y,0.7,ok\ntoy,quick,2,0,y,0.7,ok\n",
    "ansi-escape": HEAD.replace("seed", "family,seed") + "toy,quick,2,\x1b[31mred,0,y,0.7,ok\n",
    "bel": HEAD.replace("seed", "family,seed") + "toy,quick,2,x\x07,0,y,0.7,ok\n",
    "escape-in-column": HEAD.replace("seed", "\x1b[2Jx") + "toy,quick,2,0,y,0.7,ok\n",
}


@pytest.mark.parametrize("command", ["collect", "report"])
@pytest.mark.parametrize("kind", sorted(FORGED))
def test_forged_rows_are_refused_naming_the_file(copy, capsys, command, kind):
    job = copy / "toy" / "quick" / "model.a=2"
    _forge(job, FORGED[kind])
    refused(capsys, copy, [command, str(copy / "toy" / "quick")], str(job / results.ROWS))


def _deep(n: int) -> str:
    return "[" * n + "]" * n


DONE_DAMAGE = {
    "deep-json": lambda p: p.write_text('{"a": ' + _deep(100000) + "}"),
    "absurd-count": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "rows": 10**12})),
    "negative-count": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "rows": -1})),
    "text-count": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "rows": "2"})),
    "bad-sha": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "rows_sha256": "x"})),
    "a-list": lambda p: p.write_text("[1, 2]"),
    "not-json": lambda p: p.write_text("{nope"),
    "a-fifo": lambda p: (p.unlink(), os.mkfifo(p)),
    "a-folder": lambda p: (p.unlink(), p.mkdir()),
    "huge": lambda p: (p.unlink(), p.write_bytes(b" "), os.truncate(p, results.MAX_JSON_BYTES + 1)),
    "link-outside": lambda p: (p.unlink(), p.symlink_to("/etc/hostname")),
}


@pytest.mark.parametrize("kind", sorted(DONE_DAMAGE))
def test_a_damaged_marker_is_refused_naming_the_file_and_rerun_by_resume(copy, capsys, kind):
    job = copy / "toy" / "quick" / "model.a=2"
    DONE_DAMAGE[kind](job / results.DONE)
    refused(capsys, copy, ["collect", str(copy / "toy" / "quick")], str(job / results.DONE))
    if kind != "a-folder":
        assert toy(copy) == 0  # resume recomputes it
        assert "(1 run, 3 skipped, 0 failed)" in capsys.readouterr().out


ROWS_DAMAGE = {
    "oversize": lambda p: os.truncate(p, results.MAX_ROWS_BYTES + 1),
    "200-mb": lambda p: os.truncate(p, 200 * 10**6),
    "a-fifo": lambda p: (p.unlink(), os.mkfifo(p)),
    "dev-zero": lambda p: (p.unlink(), p.symlink_to("/dev/zero")),
    "link-outside": lambda p: (p.unlink(), p.symlink_to("/etc/hostname")),
    "a-folder": lambda p: (p.unlink(), p.mkdir()),
}


@pytest.mark.parametrize("command", ["collect", "status"])
@pytest.mark.parametrize("kind", sorted(ROWS_DAMAGE))
def test_a_rows_file_that_is_not_a_regular_small_file_is_refused_without_hanging(copy, capsys, command, kind):
    job = copy / "toy" / "quick" / "model.a=2"
    ROWS_DAMAGE[kind](job / results.ROWS)
    if command == "collect":
        refused(capsys, copy, ["collect", str(copy / "toy" / "quick")], str(job / results.ROWS))
    else:
        assert cli.main(["status", str(copy)]) == 0  # reads, never blocks on the FIFO
        assert "3/4 complete, 1 incomplete" in capsys.readouterr().out


def test_formula_cells_are_neutralised_in_csv_output(tmp_path):
    # a rows file holding one is refused (tests/test_hardening_44.py); what mfx writes is neutralised
    table = pd.DataFrame({"family": ["=cmd|' /C calc'!A0", "-1.5", "ok"], "value": [1.0, -2.0, 3.0]})
    results.write_csv(table, tmp_path / results.TABLE)
    text = (tmp_path / results.TABLE).read_text()
    assert text.splitlines()[1:] == ["'=cmd|' /C calc'!A0,1", "'-1.5,-2", "ok,3"]


def test_an_unreadable_folder_is_reported(copy, capsys, monkeypatch):
    real = os.scandir
    bad = str(copy / "toy" / "quick" / "model.a=2")

    def scandir(path="."):
        if str(path) == bad:
            raise PermissionError(13, "Permission denied", bad)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    refused(capsys, copy, ["collect", str(copy / "toy" / "quick")], "cannot read the folder")


def test_control_characters_in_a_folder_name_never_reach_the_terminal(copy, capsys):
    bad = copy / "toy" / "quick" / "model.a=2"
    bad.rename(copy / "toy" / "quick" / "x\x1b[2J\x07")
    (copy / "toy" / "quick" / "x\x1b[2J\x07" / results.ROWS).write_text("garbage\n")
    err = refused(capsys, copy, ["collect", str(copy / "toy" / "quick")])
    assert "\\x1b" in err


# ------------------------------------------------------------------------- 6. the environment


def _mfx(*args, env=None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mfx", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        **kw,
    )


@pytest.mark.parametrize(
    "backend",
    [
        "module://matplotlib_inline.backend_inline",
        "nonsense",
        pytest.param("TkAgg", marks=pytest.mark.slow),
        pytest.param("module://nope", marks=pytest.mark.slow),
    ],
)
def test_an_inline_or_unknown_matplotlib_backend_is_overridden(copy, backend):
    r = _mfx("plot", str(copy / "toy" / "quick"), env={"MPLBACKEND": backend})
    # the toy experiment is registered by conftest only: `plot` refuses its table with one line
    assert "Traceback" not in r.stderr and "backend" not in r.stderr, r.stderr
    assert _mfx("--version", env={"MPLBACKEND": backend}).returncode == 0


def test_ascii_stdout_works(copy):
    # the toy experiment is registered by conftest: the child imports it, then runs the CLI
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); import conftest; from mfx import cli; "
    code += f"sys.exit(cli.main(['collect', {str(copy / 'toy' / 'quick')!r}]))"
    r = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "ascii"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "\\u2192" in r.stdout  # collect's → written as an escape, not a crash


def test_a_read_only_package_puts_numbas_cache_in_a_private_folder(tmp_path):
    code = (
        "import os; os.access = lambda p, m: False; import mfx; import sys; "
        "d = os.environ['NUMBA_CACHE_DIR']; st = os.stat(d); print(d, oct(st.st_mode & 0o777))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        env={**{k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0 and r.stdout.split()[1] == "0o700", r.stderr


# The child signals once Python itself has started (Ctrl-C inside the interpreter's own start-up,
# before any of mfx is read, is Python's); then mfx imports torch, hydra, pandas, matplotlib…
START = "import sys; sys.stderr.write('ready\\n'); sys.stderr.flush(); sys.argv[0] = 'mfx'; "
START += "import runpy; runpy.run_module('mfx', run_name='__main__')"


@pytest.mark.parametrize(
    "delay",
    [0.1, 0.3, pytest.param(0.6, marks=pytest.mark.slow), 1.0, pytest.param(2.0, marks=pytest.mark.slow)],
)
def test_ctrl_c_during_start_up_is_one_line_and_exit_130(delay):
    p = subprocess.Popen(
        [sys.executable, "-c", START, "list"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stderr.readline() == "ready\n"
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode in (130, 0), err
    if p.returncode == 130:
        assert err.strip() == "mfx: interrupted", err


MATRIX = {
    "sweeps of any key": len(SPLIT) + len(REPEATS) + 3,
    "outputs stay under out": len(HYDRA_KEYS) + len(ODD_OUT) + 3,
    "shared folder": len(PLANTS) + 4 + 1 + 2 + 3,
    "locks and caches": len(STALE) + len(LIVE) + 4,
    "damaged artefacts": 2 * len(FORGED) + len(DONE_DAMAGE) + 2 * len(ROWS_DAMAGE) + 3,
    "environment": 4 + 1 + 1 + 5,
}


def test_the_matrix_has_at_least_120_cases():
    assert sum(MATRIX.values()) >= 120, MATRIX
