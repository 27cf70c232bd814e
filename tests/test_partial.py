"""Issue 43: never present partial or overwritten results as complete.

1. a reader (report, collect, status, mfx.load) of a sweep with pending, running or failed jobs says
   so first, and `report --strict` fails on a partial grid;
2. the exit status survives a closed reader, and closed standard streams never crash;
3. no output lands on, or in, what mfx owns (job folders, their files, a sweep's record or report);
   a sub-grid run keeps the sweep's record of its grid;
4. a report replaces the old one as one unit, and stale temporaries go;
5. accepted values are safe downstream: batched seeds, the size of a grid.

The children of the process tests import conftest (the test-only toy experiment), then run the CLI.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import TEST_CONF

import mfx
from mfx import api, cli, results

TOY = [f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy"]
TESTS = Path(__file__).parent
ROOT = TESTS.parent

CHILD = textwrap.dedent(
    f"""
    import dataclasses, os, signal, sys, time
    sys.path.insert(0, {str(TESTS)!r})
    import conftest
    from mfx import cli
    from mfx import experiment as registry

    toy = registry.get("toy")
    slow, fail_at = float(os.environ.get("TOY_SLOW", "0")), int(os.environ.get("TOY_FAIL_AT", "0"))

    def run(cfg):
        time.sleep(slow)
        if cfg.model.a == fail_at:
            raise RuntimeError("a job that fails")
        return toy.run(cfg)

    registry.register(dataclasses.replace(toy, run=run))
    term_at = os.environ.get("TERM_AT")  # SIGTERM when a file of this name is renamed into place
    if term_at:
        real = os.replace

        def replace(src, dst, **kw):
            if str(dst).endswith(term_at):
                os.kill(os.getpid(), signal.SIGTERM)
            real(src, dst, **kw)

        os.replace = replace
    sys.exit(cli.main(sys.argv[1:]))
    """
)


def run(out, *overrides):
    return cli.main(["run", *TOY, f"out={out}", *overrides])


def child(tmp_path: Path, *args: str, stdout=subprocess.PIPE, **env) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **{k: str(v) for k, v in env.items()}},
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(capsys, argv, *words) -> str:
    """`argv` ends with exit 2 and one line on stderr holding `words`."""
    capsys.readouterr()
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("mfx: error: "), err
    for w in words:
        assert w in err, err
    return err


# ----------------------------------------------------------------------------- 1. partial grids


@pytest.fixture
def partial(tmp_path):
    """A toy sweep of 4 jobs of which 2 are complete: one never started, one stopped (its marker gone)."""
    assert run(tmp_path) == 0
    sweep = tmp_path / "toy" / "quick"
    shutil.rmtree(sweep / "model.a=8")
    (sweep / "model.a=4" / results.DONE).unlink()
    return sweep


def test_a_report_of_a_partial_grid_says_so_first_and_strict_fails(partial, capsys):
    capsys.readouterr()
    assert cli.main(["report", str(partial)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "partial: 2 of 4 jobs of toy/quick complete (1 failed or stopped, 1 pending)"
    for name in ("report.md", "report.html"):
        head = (partial / name).read_text().split("Verdict rule")[0]  # the header, before any verdict table
        assert "partial: 2 of 4 jobs of toy/quick complete" in head, name
    assert cli.main(["report", str(partial), "--strict"]) == 1
    assert "(--strict: not a pass)" in capsys.readouterr().out.splitlines()[0]


def test_collect_status_and_load_of_a_partial_grid_say_so(partial, capsys):
    capsys.readouterr()
    assert cli.main(["collect", str(partial)]) == 0
    assert capsys.readouterr().out.startswith("partial: 2 of 4 jobs of toy/quick complete")
    info = json.loads((partial / results.TABLE_INFO).read_text())
    assert results.partial_lines(info)  # table.json keeps it: a report of the table file says it too
    assert cli.main(["status", str(partial.parents[1])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"1 sweep under {partial.parents[1]} (1 partial)"
    assert "2/4 complete, 2 incomplete (1 failed or stopped, 1 pending)" in lines[1]
    with pytest.warns(api.PartialGrid, match="partial: 2 of 4 jobs of toy/quick complete"):
        table = mfx.load(partial)
    assert table.attrs["partial"] and sorted(table["a"].unique()) == [1, 2]
    with pytest.warns(api.PartialGrid):
        mfx.load_claims(partial)


def test_a_running_job_is_named_running(partial, capsys):
    lock = partial / "model.a=4" / ".lock"  # held by a live process of this host: this one
    lock.write_text(json.dumps({"host": platform.node(), "pid": os.getpid(), "since": time.time()}))
    capsys.readouterr()
    assert cli.main(["report", str(partial), "--out", str(partial.parent / "r")]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("complete (1 running, 1 pending)")


def test_a_complete_grid_reads_without_a_word_of_partial(tmp_path, capsys, recwarn):
    assert run(tmp_path) == 0
    sweep = tmp_path / "toy" / "quick"
    capsys.readouterr()
    assert cli.main(["report", str(sweep), "--strict"]) == 0
    assert cli.main(["collect", str(sweep)]) == 0
    assert cli.main(["status", str(tmp_path)]) == 0
    assert "partial" not in capsys.readouterr().out + (sweep / "report.md").read_text()
    assert mfx.load(sweep).attrs["partial"] == [] and not recwarn.list


def test_a_sub_grid_run_keeps_the_sweeps_record_of_its_grid(tmp_path, capsys):
    assert run(tmp_path) == 0
    record = tmp_path / "toy" / "quick" / results.SWEEP
    assert run(tmp_path, "model.a=2") == 0  # part of the finished grid: nothing to add
    assert json.loads(record.read_text())["jobs"] == 4
    capsys.readouterr()
    assert cli.main(["status", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "4/4 complete" in out and "partial" not in out
    assert run(tmp_path, "model.a=16") == 0  # a new point joins the grid
    assert json.loads(record.read_text())["jobs"] == 5


# ------------------------------------------------------------------- 2. exit status through pipes


def test_a_failed_job_exits_1_after_the_reader_stopped_reading(tmp_path):
    """`mfx run … | head -1`: the rest of the sweep still runs, and its exit status says a job failed."""
    p = child(tmp_path, "run", *TOY, f"out={tmp_path}", TOY_SLOW=0.3, TOY_FAIL_AT=4)
    assert p.stdout.readline()  # the first job's line; then the reader leaves
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 1, err
    assert "Traceback" not in err and "a job that fails" in err
    states = {j.name: results.job_state(j)[0] for j in results.find_jobs([tmp_path / "toy"])}
    assert states == {"model.a=1": "complete", "model.a=2": "complete", "model.a=8": "complete"}


@pytest.mark.parametrize("buffered", [False, True])
def test_a_strict_report_that_does_not_pass_exits_1_into_a_closed_pipe(tmp_path, buffered):
    """`mfx report --strict | true` under pipefail: the gate must still fail (unbuffered, as in CI
    containers, the first line already meets the closed pipe; buffered, the last flush does)."""
    assert run(tmp_path, "model.slope_shift=0.2") == 0  # its claim fails
    (sweep,) = (tmp_path / "toy").iterdir()
    env = {} if buffered else {"PYTHONUNBUFFERED": "1"}
    p = child(tmp_path, "report", str(sweep), "--strict", **env)
    p.stdout.close()  # the reader is gone before mfx writes
    err = p.stderr.read()
    assert p.wait(timeout=120) == 1, err
    assert err == ""
    assert "FAIL" not in err and (sweep / "claims.csv").is_file()


@pytest.mark.parametrize("closed, code", [(">&-", 0), ("2>&-", 0), (">&- 2>&-", 1)])
def test_closed_standard_streams_never_crash(tmp_path, closed, code):
    """`mfx run >&-` (a daemon without stdout): the sweep runs and exits as it would otherwise."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    argv = " ".join(f"'{a}'" for a in ["run", *TOY, f"out={tmp_path}"])
    fail = "TOY_FAIL_AT=4 " if code else ""
    r = subprocess.run(
        ["bash", "-c", f"{fail}exec {sys.executable} {script} {argv} {closed}"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == code, r.stderr
    assert "Traceback" not in r.stderr and "AttributeError" not in r.stderr
    complete = [j for j in results.find_jobs([tmp_path / "toy"]) if results.job_state(j)[0] == "complete"]
    assert len(complete) == 4 - code
    assert not [p for p in tmp_path.iterdir() if p.name not in ("toy", "child.py")]  # nothing stray


# ---------------------------------------------------------------- 3. outputs never on mfx's own


@pytest.fixture
def done(tmp_path):
    assert run(tmp_path) == 0
    return tmp_path / "toy" / "quick"


@pytest.mark.parametrize(
    "target, says",
    [
        ("model.a=2/rows.csv", "rows.csv"),  # a finished job's rows
        ("model.a=2/table.csv", "job folder"),
        ("model.a=2", "folder"),
        ("rows.csv", "rows.csv"),  # would make the sweep folder look like a job
        ("sweep.csv", "sweep.json"),  # its provenance would replace the sweep's record
        ("done.csv", "done.json"),
        ("claims.csv", "claims.csv"),
        ("t.json", ".csv"),  # the provenance would be written over the table
        ("t", ".csv"),
    ],
)
def test_collect_never_writes_over_what_mfx_owns(done, capsys, target, says):
    before = snapshot(done.parent)
    refused(capsys, ["collect", str(done), "-o", str(done / target)], "--out", says)
    assert snapshot(done.parent) == before


@pytest.mark.parametrize("command", ["report", "plot"])
def test_report_and_plot_never_write_into_a_job_folder_or_another_sweep(done, tmp_path, capsys, command):
    before = snapshot(done.parent)
    refused(capsys, [command, str(done), "--out", str(done / "model.a=2")], "--out", "job folder")
    assert run(tmp_path, "model.slope_shift=0.2") == 0  # a variant: another sweep beside it
    (other,) = [p for p in done.parent.iterdir() if p != done]
    before = snapshot(done)
    refused(capsys, [command, str(other), "--out", str(done)], "--out", "another sweep")
    assert snapshot(done) == before


def test_run_and_audit_never_write_into_a_job_folder(done, capsys):
    before = snapshot(done)
    refused(capsys, ["run", *TOY, f"out='{done / 'model.a=2'}'"], "out", "job folder")
    refused(
        capsys, ["audit", "--experiments", "toy", "--out", str(done / "model.a=2")], "--out", "job folder"
    )
    assert snapshot(done) == before


# ------------------------------------------------------------------ 4. a report is one unit


def _generation(folder: Path) -> tuple:
    """Which report each file is of: the row count its section states (md, html), the points of its claim."""
    md, page = (folder / "report.md").read_text(), (folder / "report.html").read_text()
    claims = pd.read_csv(folder / "claims.csv")
    return (
        next(w for w in ("8 rows", "10 rows") if w in md),
        next(w for w in ("8 rows", "10 rows") if w in page),
        {4: "8 rows", 5: "10 rows"}[int(claims["points"].iloc[0])],
    )


def test_a_report_stopped_while_it_replaces_the_old_leaves_one_report_whole(done, tmp_path, capsys):
    assert cli.main(["report", str(done)]) == 0
    assert _generation(done) == ("8 rows", "8 rows", "8 rows")
    assert run(tmp_path, "model.a=1,2,4,8,16") == 0  # the grid grows: a new report is due
    p = child(tmp_path, "report", str(done), TERM_AT="report.html")  # SIGTERM amid the renames
    _, err = p.communicate(timeout=300)
    assert p.returncode in (130, -15), err
    assert len(set(_generation(done))) == 1, _generation(done)  # all old, or all new
    assert not [q for q in done.iterdir() if q.name.endswith(".tmp")]


def test_a_report_removes_the_temporaries_of_killed_reports(done, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = [
        done / f".report.html.{results._host()}-{dead.pid}.0a1b2c3d.tmp",
        done / f".report.{results._host()}-{dead.pid}.0a1b2c3d.tmp",
    ]
    stale[0].write_bytes(b"x" * 1000)
    (stale[1] / "figures").mkdir(parents=True)
    assert cli.main(["report", str(done)]) == 0
    assert not any(os.path.lexists(s) for s in stale)
    assert not [q for q in done.iterdir() if q.name.endswith(".tmp")]


# ------------------------------------------------------------- 5. values safe downstream


def test_a_seed_whose_batch_of_replicate_ids_would_not_stay_exact_is_refused(tmp_path, capsys):
    argv = ["run", "experiment=quad_hessian", f"out={tmp_path / 'o'}", "--dry-run"]
    err = refused(capsys, [*argv, "seed=2147483647"], "seed must be an integer ≥ 0 and ≤ 9999999", "100000")
    assert "quad_hessian" in err and not (tmp_path / "o").exists()
    assert cli.main([*argv, "seed=9999999"]) == 0  # the largest seed whose ids stay below 10¹²
    assert cli.main(["run", *TOY, f"out={tmp_path / 't'}", "seed=2147483647", "--dry-run"]) == 0


@pytest.mark.parametrize(
    "grid", ["model.a=range(1,100001)", "seed=range(0,100000)", "model.a=range(1,400) seed=range(0,400)"]
)
def test_a_grid_above_the_bound_is_refused_within_a_second(tmp_path, capsys, grid):
    start = time.perf_counter()
    err = refused(capsys, ["run", *TOY, f"out={tmp_path / 'o'}", *grid.split()], "jobs", "1000")
    assert time.perf_counter() - start < 1.0
    assert any(f"has {n} jobs" in err for n in (100000, 400000, 159600)), err
    assert not (tmp_path / "o").exists()
