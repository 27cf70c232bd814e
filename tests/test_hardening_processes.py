"""Issue 11 with real processes: `kill -9` at several points then resume, SIGINT, two sweeps at once.

The children run `mfx run` on the test-only toy experiment (registered by importing conftest);
environment variables make a child's jobs slow, log every computation, or SIGKILL the child at its
nth rename of a written file (before or after it).  After every fault the rerun must find each job
complete, no temporary, no lock, no duplicate row, and the bytes of an undisturbed run.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import TEST_CONF

from mfx import cli, locks, results

TESTS = Path(__file__).parent
CHILD = textwrap.dedent(
    f"""
    import dataclasses, os, signal, sys, time
    sys.path.insert(0, {str(TESTS)!r})
    import conftest
    from mfx import cli
    from mfx import experiment as registry

    toy = registry.get("toy")
    slow = float(os.environ.get("TOY_SLOW", "0"))
    log = os.environ.get("TOY_LOG")

    def run(cfg):
        if log:
            with open(log, "a") as f:
                f.write(f"{{cfg.model.a}} {{os.getpid()}}\\n")
        time.sleep(slow)
        return toy.run(cfg)

    registry.register(dataclasses.replace(toy, run=run))
    kill_at, when = int(os.environ.get("TOY_KILL_AT", "0")), os.environ.get("TOY_KILL_WHEN", "before")
    if kill_at:
        real, count = os.replace, [0]

        def replace(src, dst, **kw):
            count[0] += 1
            if count[0] == kill_at and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            real(src, dst, **kw)
            if count[0] == kill_at and when == "after":
                os.kill(os.getpid(), signal.SIGKILL)

        os.replace = replace
    sys.exit(cli.main(sys.argv[1:]))
    """
)


def argv(out: Path) -> list[str]:
    return ["run", f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy", f"out={out}"]


def child(tmp_path: Path, out: Path, **env) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen(
        [sys.executable, str(script), *argv(out)],
        env={**os.environ, **{k: str(v) for k, v in env.items()}},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def rows_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("rows.csv"))}


def check_sound(out: Path, reference: dict) -> None:
    """Every job complete, nothing half-written, nothing duplicated, the undisturbed bytes."""
    sweep = out / "toy" / "quick"
    jobs = results.find_jobs([sweep])
    assert len(jobs) == 4 and all(results.job_state(j)[0] == "complete" for j in jobs)
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(locks.LOCK))
    assert results.read_json(sweep / "sweep.json")["jobs"] == 4
    table, _ = results.collect([sweep])
    assert len(table) == 8 and not table.duplicated().any()
    assert rows_bytes(out) == reference


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    assert cli.main(argv(out)) == 0
    return rows_bytes(out)


def wait_for(path_glob, root: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not list(root.rglob(path_glob)):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


# Renames of a toy sweep: 1 sweep.json; job i: rows.csv (3i−1), provenance.json (3i), done.json (3i+1).
KILLS = [
    pytest.param(3, "before", id="between-rows-and-provenance"),
    pytest.param(1, "before", id="writing-sweep-json", marks=pytest.mark.slow),
    pytest.param(2, "before", id="rows-written-not-renamed", marks=pytest.mark.slow),
    pytest.param(4, "before", id="between-provenance-and-done", marks=pytest.mark.slow),
    pytest.param(4, "after", id="done-written-lock-held", marks=pytest.mark.slow),
    pytest.param(7, "after", id="second-job-done", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("nth, when", KILLS)
def test_kill_9_at_any_point_then_resume_loses_nothing(tmp_path, reference, nth, when):
    out = tmp_path / "out"
    killed = child(tmp_path, out, TOY_KILL_AT=nth, TOY_KILL_WHEN=when)
    killed.communicate(timeout=300)
    assert killed.returncode == -signal.SIGKILL
    resumed = child(tmp_path, out)
    _stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) <= 2
    check_sound(out, reference)


@pytest.mark.slow
def test_kill_9_from_outside_mid_job_then_resume(tmp_path, reference):
    out = tmp_path / "out"
    proc = child(tmp_path, out, TOY_SLOW=0.5)
    wait_for("done.json", out, proc)
    time.sleep(0.2)  # inside the next job
    proc.kill()
    proc.communicate(timeout=60)
    resumed = child(tmp_path, out)
    assert resumed.communicate(timeout=300) and resumed.returncode == 0
    check_sound(out, reference)


@pytest.mark.slow  # the default suite sends SIGTERM to itself mid-sweep (tests/test_hardening.py)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_real_sweep_with_one_line_and_exit_130(tmp_path, reference, sig):
    out = tmp_path / "out"
    proc = child(tmp_path, out, TOY_SLOW=1.0)
    wait_for("done.json", out, proc)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, (stdout, stderr)
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert stderr.startswith("interrupted: ") and "of 4 jobs done; rerun the same command to resume" in stderr
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(locks.LOCK))
    resumed = child(tmp_path, out)
    resumed.communicate(timeout=300)
    assert resumed.returncode == 0
    check_sound(out, reference)


@pytest.mark.slow
def test_two_sweeps_on_one_folder_compute_each_job_once(tmp_path, reference):
    out, log = tmp_path / "out", tmp_path / "computed.log"
    procs = [child(tmp_path, out, TOY_SLOW=0.6, TOY_LOG=log) for _ in range(2)]
    ran = 0
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, (stdout, stderr)  # a job the other run computes is waited for
        assert "Traceback" not in stderr
        tally = re.search(r"\((\d+) run, (\d+) skipped, 0 failed\)", stdout)
        assert tally and int(tally[1]) + int(tally[2]) == 4, stdout
        ran += int(tally[1])
    computed = [line.split()[0] for line in log.read_text().splitlines()]
    assert sorted(computed) == ["1", "2", "4", "8"]  # each job once, by one of the two
    assert ran == 4  # the tallies are exact: each job counted as run by the run that computed it
    check_sound(out, reference)
