"""Issue 42, the classes no matrix covered: the leftovers of the second matrix, signals other than
SIGINT, a full output filesystem, concurrent readers, hostile values on their way to report.html,
claims.csv and the console, OmegaConf resolvers in overrides, absurd sizes, and the environment.

Each counted case failed on main at 3074f29 (a raw library message or exit 1 for a user's mistake, a
run accepted that can never resume, a file written where it should not be, an escape sent to the
terminal).  The last section holds guards that already passed on main, not counted.  The children of the process tests call themselves
`mfx` (as the installed command does), import conftest (the test-only toy experiment), then run the
CLI; MATRIX counts the cases by class (reported in the issue).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import TEST_CONF, snapshot

from mfx import cli, locks, results, runner, sweep
from mfx.experiment import ConfigError

SLOW = pytest.mark.slow
SEARCH = f"hydra.searchpath=[file://{TEST_CONF}]"
TOY = [SEARCH, "experiment=toy"]
TESTS = Path(__file__).parent
ROOT = TESTS.parent

CHILD = textwrap.dedent(
    f"""
    import sys
    sys.argv[0] = "mfx"  # the installed command: mfx's start-up settings apply
    import dataclasses, os, resource, time
    if os.environ.get("FSIZE"):  # a full disk: no file may grow past FSIZE bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(os.environ["FSIZE"]),) * 2)
    sys.path.insert(0, {str(TESTS)!r})
    import conftest
    from mfx import cli
    from mfx import experiment as registry

    toy = registry.get("toy")
    slow = float(os.environ.get("TOY_SLOW", "0"))

    def run(cfg):
        time.sleep(slow)
        return toy.run(cfg)

    registry.register(dataclasses.replace(toy, run=run))
    sys.exit(cli.main(sys.argv[1:]))
    """
)


def one_line(err: str) -> None:
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert "\x1b" not in err and "\x07" not in err, err


def refused(capsys, root: Path, argv: list[str], *says: str, code: int = 2) -> str:
    """`argv` ends with `code`, one line on stderr holding `says`, and nothing written under root."""
    capsys.readouterr()
    before = snapshot(root)
    got = cli.main(argv)
    out, err = capsys.readouterr()
    assert got == code, (argv, out, err)
    one_line(err)
    for word in says:
        assert word in err, (word, err)
    assert snapshot(root) == before, "something was written"
    return err


def toy(out, *overrides) -> int:
    return cli.main(["run", *TOY, f"out={out}", *overrides])


def script(tmp_path: Path) -> Path:
    path = tmp_path / "child.py"
    path.write_text(CHILD)
    return path


def child(tmp_path: Path, *args: str, cwd=None, **env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(script(tmp_path)), *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **{k: str(v) for k, v in env.items()}},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


def mfx(tmp_path: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    p = child(tmp_path, *args, **kw)
    out, err = p.communicate(timeout=300)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def rows_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("rows.csv"))}


def check_sound(out: Path, reference: dict) -> None:
    """Every job complete, nothing half-written, the bytes of an undisturbed run."""
    sweep = out / "toy" / "quick"
    jobs = results.find_jobs([sweep])
    assert len(jobs) == 4 and all(results.job_state(j)[0] == "complete" for j in jobs)
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(locks.LOCK))
    assert rows_bytes(out) == reference


def wait_for(name: str, root: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not list(root.rglob(name)):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    assert toy(out) == 0
    return rows_bytes(out)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A complete toy sweep with its report, copied by each test that changes it."""
    out = tmp_path_factory.mktemp("built")
    assert toy(out) == 0
    assert cli.main(["report", str(out / "toy" / "quick")]) == 0
    return out


@pytest.fixture
def scene(tmp_path, monkeypatch):
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    return tmp_path


# ------------------------------------------------------------------ 1. left from the second matrix

QUADRATIC = ["quad_curves", "quad_escape", "quad_hessian", "quad_implicit_bias", "quad_norms"]


@pytest.mark.parametrize("name", QUADRATIC)
def test_an_absurd_quadratic_horizon_is_refused_naming_it(scene, capsys, name):
    argv = ["run", f"experiment={name}", f"out={scene / 'out'}", "model.tau_max=1e308", "--dry-run"]
    refused(capsys, scene, argv, "model.tau_max")


def test_an_absurd_number_of_hessian_times_is_refused_naming_it(scene, capsys):
    argv = ["run", "experiment=quad_hessian", f"out={scene / 'out'}", "model.n_times=10000000", "--dry-run"]
    refused(capsys, scene, argv, "model.n_times")


HEAD = "experiment,scale,a,family,seed,metric,value,status\n"
FORMULAS = ["=cmd|' /C calc'!A0", "+SUM(1+1)*cmd", "@SUM(A1)", "-2+3+cmd|'/C calc'!A0"]


def _forge(job: Path, text: str) -> None:
    import hashlib

    data = text.encode()
    (job / results.ROWS).write_bytes(data)
    done = json.loads((job / results.DONE).read_text())
    done.update(rows=len(pd.read_csv(job / results.ROWS)), rows_sha256=hashlib.sha256(data).hexdigest())
    (job / results.DONE).write_text(json.dumps(done))


@pytest.mark.parametrize("command", ["collect", "report"])
@pytest.mark.parametrize("cell", FORMULAS)
def test_a_formula_cell_in_a_rows_file_is_refused_naming_the_file(copy, capsys, command, cell):
    job = copy / "toy" / "quick" / "model.a=2"
    _forge(job, HEAD + f'toy,quick,2,"{cell}",0,y,0.7,ok\n')
    refused(capsys, copy, [command, str(copy / "toy" / "quick")], str(job / results.ROWS), "formula")


def test_a_memory_estimate_that_overflows_is_one_line_naming_the_keys(scene, capsys, monkeypatch):
    import dataclasses

    from mfx import experiment as registry

    hungry = dataclasses.replace(
        registry.get("toy"), memory=lambda cfg: int(cfg.model.b**2 * 2.0**30), memory_keys="model.b"
    )
    monkeypatch.setitem(registry._REGISTRY, "toy", hungry)
    argv = ["run", *TOY, f"out={scene / 'out'}", "model.b=1e300", "--dry-run"]
    refused(capsys, scene, argv, "model.b", "more memory than any machine has")


# A machine whose only usable temporary folder is the working directory: the child replaces Python's
# list of candidates (TMPDIR, then /tmp, /var/tmp…, then the working directory) by TMPDIR and the
# working directory, as on a machine where /tmp is read-only; mfx's package reads as read-only.
NO_TMP = textwrap.dedent(
    """
    import os, runpy, sys, tempfile
    tempfile._candidate_tempdir_list = lambda: [os.environ["TMPDIR"], os.getcwd()]
    package, real = os.path.realpath(os.environ["MFX_PACKAGE"]), os.access
    os.access = lambda p, mode, **kw: False if os.path.realpath(p) == package else real(p, mode, **kw)
    sys.argv[0] = "mfx"
    runpy.run_module("mfx", run_name="__main__")
    """
)


@pytest.mark.parametrize(
    "cwd, args",
    [
        ("writable", ["run", "experiment=quad_curves", "out="]),
        pytest.param("writable", ["run", "experiment=quad_curves", "out=x", "--dry-run"], marks=SLOW),
        pytest.param("writable", ["list"], marks=SLOW),
        ("read-only", ["run", "experiment=quad_curves", "out={tmp}/out", "--dry-run"]),
        pytest.param("read-only", ["report", "{tmp}"], marks=SLOW),
    ],
)
def test_no_temporary_folder_but_the_working_directory_is_one_line_naming_tmpdir(tmp_path, cwd, args):
    here = tmp_path / "cwd" if cwd == "writable" else Path("/proc")  # /proc: read-only, even for root
    (tmp_path / "cwd").mkdir()
    (tmp_path / "no-tmp.py").write_text(NO_TMP)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    r = subprocess.run(
        [sys.executable, str(tmp_path / "no-tmp.py"), *[a.format(tmp=tmp_path) for a in args]],
        env={**env, "PYTHONPATH": str(ROOT), "TMPDIR": "/proc/sys", "MFX_PACKAGE": str(ROOT / "mfx")},
        cwd=here,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 2, r.stderr
    one_line(r.stderr)
    assert "TMPDIR" in r.stderr and "/proc/sys" in r.stderr
    assert not list((tmp_path / "cwd").iterdir()) and not (tmp_path / "out").exists()


def test_a_working_directory_that_is_the_temporary_folder_is_no_fault(tmp_path):
    """Guard of the fix above (not counted): `cd $TMPDIR; mfx …` is a temporary folder of its own."""
    r = subprocess.run(
        [sys.executable, "-m", "mfx", "--version"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0 and r.stdout.startswith("mfx ") and not r.stderr, r.stderr
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------------------ 2. other signals


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_stopping_turns_sigterm_and_sighup_into_an_interrupt_and_restores(sig):
    before = signal.getsignal(sig)
    with pytest.raises(KeyboardInterrupt), results.stopping():
        os.kill(os.getpid(), sig)
        time.sleep(5)  # the signal arrives at once; never this long
    assert signal.getsignal(sig) == before


@pytest.mark.parametrize("sig", [pytest.param(signal.SIGHUP, marks=[SLOW])])
def test_sighup_mid_sweep_is_one_line_exit_130_and_resumes(tmp_path, reference, sig):
    out = tmp_path / "out"
    proc = child(tmp_path, "run", *TOY, f"out={out}", TOY_SLOW=1.0)
    wait_for("done.json", out, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    one_line(err)
    assert err.startswith("interrupted: ") and "rerun the same command to resume" in err
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(locks.LOCK))
    for job in results.find_jobs([out]):
        assert results.job_state(job)[0] in ("complete", "incomplete")
    assert mfx(tmp_path, "run", *TOY, f"out={out}").returncode == 0
    check_sound(out, reference)


# --------------------------------------------------------------------------------- 3. absurd sizes

AUDIT = [
    (["--seeds", "100000"], "--seeds must be from 1 to 1000"),
    (["--seeds", str(2**70)], "--seeds must be from 1 to 1000"),
    (["--first-seed", str(2**70), "--seeds", "1"], "--first-seed must be from 0"),
    (["--first-seed", str(2**31 - 2), "--seeds", "5"], "--first-seed must be from 0"),
]


@pytest.mark.parametrize("args, says", AUDIT, ids=["seeds-1e5", "seeds-2^70", "first-2^70", "past-the-last"])
def test_an_absurd_audit_is_refused_by_its_check(args, says):
    seeds = int(args[args.index("--seeds") + 1])
    first = int(args[args.index("--first-seed") + 1]) if "--first-seed" in args else 1000
    with pytest.raises(ConfigError, match=says.replace("-", r"\-")):
        sweep.check_audit_seeds(seeds, first, ["quad_hessian"])


@pytest.mark.parametrize("args, says", AUDIT, ids=["seeds-1e5", "seeds-2^70", "first-2^70", "past-the-last"])
def test_an_absurd_audit_is_one_line_before_anything_runs(scene, capsys, monkeypatch, args, says):
    def started(*a, **kw):  # before the fix the audit ran: stop it at its first sweep
        raise AssertionError("the audit started")

    monkeypatch.setattr(runner, "run", started)
    argv = ["audit", *args, "--experiments", "quad_hessian", "--out", str(scene / "audit")]
    refused(capsys, scene, argv, says)
    assert not capsys.readouterr().out  # not even the cost of the audit: refused before it


# -------------------------------------------------------------- 4. resolvers inside overrides

CLOCK = [
    "model.b='${oc.decode:${now:%S.%f}}'",
    "seed='${oc.decode:${now:%S}}'",
    "model.noise='${oc.decode:0.0${now:%f}}'",
    "out='{out}/${now:%H%M%S%f}'",
]


@pytest.mark.parametrize("override", CLOCK)
def test_an_override_read_from_the_clock_is_refused(scene, capsys, override):
    """Each job resolves its overrides again: one sweep would hold several values, and its rerun would
    go to another folder (resume never finds it).  Before: accepted, a new folder per run."""
    line = override.replace("{out}", str(scene / "out"))
    argv = ["run", *TOY, *([] if line.startswith("out=") else [f"out={scene / 'out'}"]), line]
    refused(capsys, scene, argv, line.split("=", 1)[0], "${now:")


# resolvers that read the environment or rename a key: before, `oc.env` was read again by each job (a
# node with another value wrote a sweep that never resumes) and `oc.deprecated` printed Python's raw
# two-line UserWarning; now one line each, exit 2, nothing written
NOT_A_VALUE = [
    ("model.b='${oc.decode:${oc.env:MFX_TEST_B}}'", "${oc.env:"),
    ("out='{out}/${oc.env:MFX_TEST_B}'", "${oc.env:"),
    ("model.b='${oc.deprecated:model.a}'", "${oc.deprecated:"),
]


@pytest.mark.parametrize("override, says", NOT_A_VALUE)
def test_an_override_read_from_the_environment_or_a_renamed_key_is_refused(
    scene, capsys, monkeypatch, override, says
):
    monkeypatch.setenv("MFX_TEST_B", "2")
    line = override.replace("{out}", str(scene / "out"))
    argv = ["run", *TOY, *([] if line.startswith("out=") else [f"out={scene / 'out'}"]), line]
    refused(capsys, scene, argv, line.split("=", 1)[0], says)


def test_a_deterministic_resolver_is_still_taken_and_resumes(scene, capsys):
    """Guard (passed before): oc.decode of a literal is a value; the rerun skips every job."""
    out = scene / "out"
    assert toy(out, "model.b='${oc.decode:\"2.0\"}'") == 0
    assert toy(out, "model.b='${oc.decode:\"2.0\"}'") == 0
    assert "(0 run, 4 skipped, 0 failed)" in capsys.readouterr().out


# ------------------------------------------------- 5. hostile names on their way to the console

EVIL = "<img src=x onerror=alert(1)>=cmd|'calc'!A0\x1b[2J\x07"
CONSOLE = [
    ["status", "{root}"],
    ["collect", "{sweep}"],
    ["report", "{sweep}"],
    ["report", "{root}"],
    ["plot", "{sweep}"],
    ["compare", "{sweep}", "{clean}"],
]


@pytest.mark.parametrize("argv", CONSOLE, ids=[" ".join(a) for a in CONSOLE])
def test_a_folder_name_with_terminal_escapes_is_never_printed_raw(copy, tmp_path, capsys, argv):
    root = tmp_path / EVIL
    shutil.copytree(copy, root)
    where = {"root": root, "sweep": root / "toy" / "quick", "clean": copy / "toy" / "quick"}
    code = cli.main([a.format(**where) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err, out
    assert "\\x1b[2J\\x07" in out  # shown, escaped
    html = (root / "toy" / "quick" / "report.html").read_text()
    assert "<img src=x" not in html


# ---------------------------------------------------------- guards: passed on main, not counted


@pytest.mark.slow
@pytest.mark.parametrize(
    "flags, env",
    [
        (["-W", "error"], {}),
        ([], {"LANG": "C", "LC_ALL": "C", "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "20"}),
        ([], {"TZ": "Pacific/Kiritimati", "PYTHONHASHSEED": "12345", "OMP_NUM_THREADS": "64"}),
    ],
    ids=["W-error", "LANG-C-TERM-dumb", "TZ-hashseed-OMP"],
)
def test_the_environment_changes_no_byte_of_the_results(tmp_path, reference, flags, env):
    out = tmp_path / "out"
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    for args in (["run", *TOY, f"out={out}"], ["report", str(out / "toy" / "quick")]):
        r = subprocess.run(
            [sys.executable, *flags, str(script(tmp_path)), *args],
            env=full,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert r.returncode == 0 and not r.stderr.strip(), r.stderr
        assert "\x1b" not in r.stdout
    assert rows_bytes(out) == reference


@pytest.mark.slow
def test_readers_during_a_sweep_say_partial_and_the_last_report_is_whole(tmp_path, capsys):
    out = tmp_path / "out"
    sweep_dir = out / "toy" / "quick"
    proc = child(tmp_path, "run", *TOY, f"out={out}", TOY_SLOW=1.0)
    wait_for("done.json", out, proc)
    readers = 0
    while proc.poll() is None:
        for argv in (["collect", str(sweep_dir)], ["status", str(out)], ["report", str(sweep_dir)]):
            assert cli.main(argv) == 0
            readers += 1
    assert proc.returncode == 0 and readers
    capsys.readouterr()
    assert cli.main(["report", str(sweep_dir)]) == 0
    assert "partial" not in capsys.readouterr().out
    assert not list(out.rglob("*.tmp")) and len(pd.read_csv(sweep_dir / results.TABLE)) == 8


# A full disk (RLIMIT_FSIZE in the child): Python ignores SIGXFSZ, the write fails with EFBIG, one line.
@pytest.mark.slow
@pytest.mark.parametrize("size", [1, 300])
def test_a_file_size_limit_during_a_sweep_is_one_line_and_resumes(tmp_path, reference, size):
    out = tmp_path / "out"
    r = mfx(tmp_path, "run", *TOY, f"out={out}", FSIZE=size)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "File too large" in r.stderr, r.stderr
    assert not list(out.rglob("*.tmp")) and not list(out.rglob(locks.LOCK))
    for job in results.find_jobs([out]):
        assert results.job_state(job)[0] == "incomplete"  # nothing half-written shown as complete
    assert mfx(tmp_path, "run", *TOY, f"out={out}").returncode == 0
    check_sound(out, reference)


@pytest.mark.slow
@pytest.mark.parametrize("command, file", [("collect", "table.csv"), ("report", "report.md")])
def test_a_file_size_limit_writing_a_table_or_report_is_one_line(copy, tmp_path, command, file):
    sweep_dir = copy / "toy" / "quick"
    (sweep_dir / file).unlink()
    before = snapshot(copy)
    r = mfx(tmp_path, command, str(sweep_dir), FSIZE=200)
    assert r.returncode == 1, (r.returncode, r.stderr)
    one_line(r.stderr)
    assert "File too large" in r.stderr and str(sweep_dir) in r.stderr
    assert not (sweep_dir / file).exists() and not list(copy.rglob("*.tmp"))
    assert {k: v for k, v in snapshot(copy).items() if k in before} == before


@pytest.mark.parametrize("mask, mode", [(0o077, 0o600), (0o002, 0o664)])
def test_files_follow_the_umask(tmp_path, capsys, mask, mode):
    old = os.umask(mask)
    try:
        assert toy(tmp_path) == 0 and cli.main(["report", str(tmp_path / "toy" / "quick")]) == 0
    finally:
        os.umask(old)
    modes = {p.stat().st_mode & 0o777 for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == {mode}, [oct(m) for m in modes]


# -------------------------------------------------------------- 8. a read-only output filesystem

READ_ONLY = [
    ["report", "{sweep}"],
    ["collect", "{sweep}"],
    ["plot", "{sweep}"],
    ["run", *TOY, "out={root}", "seed=1"],
]


@pytest.fixture
def read_only(tmp_path):
    """A finished toy sweep on a tmpfs remounted read-only (as root where mounts are allowed)."""
    root = tmp_path / "ro"
    root.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(root)], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip("mounting a read-only filesystem needs root and mount rights")
    try:
        assert toy(root) == 0
        subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
        yield root
    finally:
        subprocess.run(["umount", str(root)], check=False)


@pytest.mark.parametrize("argv", READ_ONLY, ids=lambda a: a[0] + "-" + a[-1].split("=")[0])
def test_a_read_only_output_filesystem_is_one_line_naming_the_real_file(read_only, capsys, argv):
    """Before: `OSError: Read-only file system: .table.csv.vm-1234.ab12cd34.tmp`, the name of a temporary
    the user never sees; now the message names the file or folder mfx meant to write, on one line."""
    sweep_folder = read_only / "toy" / "quick"
    argv = [a.replace("{sweep}", str(sweep_folder)).replace("{root}", str(read_only)) for a in argv]
    capsys.readouterr()
    before = snapshot(read_only)
    assert cli.main(argv) != 0
    err = capsys.readouterr().err
    one_line(err)
    assert str(read_only) in err and ".tmp" not in err, err
    assert snapshot(read_only) == before


MATRIX = {
    # class: (cases that failed on main, of them needing the command line's call of the check written here)
    "leftovers: absurd quadratic horizon and times, an estimate that overflows": (len(QUADRATIC) + 2, 0),
    "leftovers: no temporary folder but the working directory": (5, 0),
    "leftovers: formula cells in a rows file": (2 * len(FORMULAS), 0),
    "signals other than SIGINT (SIGTERM, SIGHUP)": (2 + 1, 1),
    "absurd sizes (audit)": (2 * len(AUDIT), len(AUDIT)),
    "resolvers inside overrides (the clock)": (len(CLOCK), 0),
    "resolvers inside overrides (the environment, a renamed key)": (len(NOT_A_VALUE), 0),
    "hostile names on their way to the console": (len(CONSOLE), len(CONSOLE)),
    # report and collect named a temporary before; plot and run named their path already (guards)
    "a read-only output filesystem (root only)": (2, 0),
}


def test_the_matrix_counts_its_cases():
    assert sum(n for n, _ in MATRIX.values()) == 46 and sum(x for _, x in MATRIX.values()) == 11, MATRIX
