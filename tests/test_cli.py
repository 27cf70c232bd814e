"""The command line: sweeps, collect → plot → report, bad input, resume, determinism."""

import dataclasses
import html
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from conftest import TEST_CONF

import mfx
from mfx import catalog, cli, commands, runner, sweep
from mfx import experiment as registry

TOY = [f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy"]
MFX = str(Path(sys.executable).with_name("mfx"))


def run(out, *overrides):
    return cli.main(["run", *TOY, f"out={out}", *overrides])


def job_rows(out):
    return sorted((out / "toy").rglob("rows.csv"))


def sweep_dir(out):
    """The one sweep folder under out/toy (quick, or quick-<hash> for a variant)."""
    (folder,) = (out / "toy").iterdir()
    return folder


def test_installed_entry_point_runs_outside_the_repo(tmp_path):
    listing = subprocess.run([MFX, "list"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    names = subprocess.run([MFX, "list", "--names"], cwd=tmp_path, capture_output=True, text=True, check=True)
    names = names.stdout.split()
    assert names and all(name in listing for name in names)
    job = subprocess.run(
        [MFX, "run", f"experiment={names[0]}", "--cfg", "job"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert job.returncode == 0, job.stderr
    assert f"name: {names[0]}" in job.stdout and "model:" in job.stdout
    assert not (tmp_path / "outputs").exists()  # printing a config writes nothing


def test_sweep_collect_plot_report(tmp_path):
    assert run(tmp_path) == 0
    assert len(job_rows(tmp_path)) == 4  # the quick grid a = 1, 2, 4, 8
    for rows in job_rows(tmp_path):
        assert (rows.parent / "provenance.json").exists()
    sweep = tmp_path / "toy" / "quick"
    assert cli.main(["collect", str(sweep)]) == 0
    table = pd.read_csv(sweep / "table.csv")
    assert list(table.columns) == [
        "experiment",
        "scale",
        "a",
        "seed",
        "metric",
        "value",
        "status",
        "config_hash",
    ]
    assert sorted(table["a"].unique()) == [1, 2, 4, 8] and (table["status"] == "ok").all()
    assert cli.main(["plot", str(sweep / "table.csv"), "--out", str(tmp_path / "figs")]) == 0
    assert {p.name for p in (tmp_path / "figs").iterdir()} == {"toy_quick_y_vs_a.pdf", "toy_quick_y_vs_a.png"}
    assert cli.main(["report", str(sweep), "--strict"]) == 0
    report = (sweep / "report.md").read_text()
    assert (
        "no statement of the papers in scope. Claims: 1 of 1 paper pass." in report
        and "figures/toy_quick_y_vs_a.png" in report
    )


def test_command_line_sweep_replaces_an_axis(tmp_path):
    assert run(tmp_path, "model.a=3,5") == 0
    assert [p.parent.name for p in job_rows(tmp_path)] == ["model.a=3", "model.a=5"]


def test_failing_claim_makes_strict_report_exit_1(tmp_path, capsys):
    assert run(tmp_path, "model.slope_shift=0.2") == 0
    sweep = str(sweep_dir(tmp_path))
    assert cli.main(["report", sweep]) == 0
    assert cli.main(["report", sweep, "--strict"]) == 1
    assert "FAIL [paper] toy: slope of y vs a" in capsys.readouterr().out


def test_diverging_job_is_data_not_a_crash(tmp_path):
    assert run(tmp_path, "model.nan_at=4") == 0
    table = pd.concat(pd.read_csv(p) for p in job_rows(tmp_path))
    assert set(table.loc[table["a"] == 4, "status"]) == {"diverged"}
    assert set(table.loc[table["a"] != 4, "status"]) == {"ok"}


@pytest.mark.parametrize(
    "overrides, key",
    [
        (["experiment=nope"], "experiment"),
        (["model.a=0"], "model.a"),
        (["model.b=-1"], "model.b"),
        (["model.a=abc"], "model.a"),
        (["model.a=1,0"], "model.a"),
        (["scale=huge"], "scale"),
        (["model.zz=3"], "model.zz"),
        (["model.zz=1,2"], "model.zz"),
        (["runtime.device=tpu"], "runtime.device"),
        (["model.a=[1"], "malformed"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, overrides, key):
    out = tmp_path / "out"
    assert run(out, *overrides) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err and "Traceback" not in err
    assert not out.exists()


def test_collect_of_empty_directory_is_an_error(tmp_path, capsys):
    assert cli.main(["collect", str(tmp_path)]) == 2
    assert "no complete job" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_interrupted_sweep_resumes_without_duplicates(tmp_path):
    assert run(tmp_path) == 0
    first = job_rows(tmp_path)
    kept = {p: p.stat().st_mtime_ns for p in first[:2]}
    for p in first[2:]:
        p.unlink()  # as if the sweep had been killed after two jobs
    assert run(tmp_path) == 0
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())  # finished jobs were skipped
    assert job_rows(tmp_path) == first
    from mfx import results

    table, _ = results.collect([tmp_path / "toy"])
    assert len(table) == 8 and not table.duplicated().any()


def test_same_sweep_twice_gives_identical_bytes(tmp_path):
    assert run(tmp_path / "one") == 0
    assert run(tmp_path / "two") == 0
    one, two = job_rows(tmp_path / "one"), job_rows(tmp_path / "two")
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["list", "--help"],
        ["collect", "--help"],
        ["plot", "--help"],
        ["report", "--help"],
    ],
)
def test_help_says_what_and_shows_an_example(argv, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as e:  # argparse exits after printing help
        code = e.code
    assert code == 0
    assert "example" in capsys.readouterr().out


def test_a_variant_never_changes_the_default_sweep(tmp_path):
    """`model.b=2` (not a grid axis) goes to its own folder; the default table, figures, claims stay."""
    assert run(tmp_path) == 0
    default = tmp_path / "toy" / "quick"
    assert cli.main(["report", str(default)]) == 0
    files = ("table.csv", "claims.csv", "report.md", "figures/toy_quick_y_vs_a.png")
    before = {f: (default / f).read_bytes() for f in files}
    assert run(tmp_path, "model.b=2", "model.a=1,2") == 0
    (variant,) = [p for p in (tmp_path / "toy").iterdir() if p != default]
    assert variant.name.startswith("quick-") and "model.b=2" in (variant / "sweep.json").read_text()
    assert cli.main(["report", str(default)]) == 0
    assert {f: (default / f).read_bytes() for f in files} == before
    assert cli.main(["report", str(variant)]) == 0
    claims = pd.read_csv(variant / "claims.csv")
    assert list(claims["verdict"]) == ["inconclusive"]  # a slope from 2 points is never a pass
    assert cli.main(["collect", str(tmp_path / "toy")]) == 2  # two configurations: refused


def test_resume_reruns_a_job_whose_configuration_changed(tmp_path, capsys):
    assert run(tmp_path) == 0
    job = min(job_rows(tmp_path)).parent
    done = json.loads((job / "done.json").read_text())
    done["job_hash"] = "something-else"  # as if made by other code
    (job / "done.json").write_text(json.dumps(done))
    assert run(tmp_path) == 0
    out = capsys.readouterr()
    assert f"rerunning {job}: its configuration or mfx's code changed" in out.err
    assert "(1 run, 3 skipped, 0 failed)" in out.out


def test_dry_run_lists_jobs_and_writes_nothing(tmp_path, capsys):
    assert run(tmp_path / "out", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "toy/quick: 4 jobs" in out and "model.a=8" in out
    assert not (tmp_path / "out").exists()


def test_dry_run_marks_done_jobs_and_estimates_from_recorded_durations(tmp_path, capsys):
    assert run(tmp_path) == 0
    capsys.readouterr()
    assert run(tmp_path, "model.a=1,8,16", "--dry-run") == 0
    lines = capsys.readouterr().out.splitlines()
    assert "toy/quick: 3 jobs (2 done, 1 pending, ≈ " in lines[0]
    assert lines[1].startswith("  model.a=1: done") and lines[2].startswith("  model.a=8: done")
    # a=16 never ran: the median of the recorded jobs of toy/quick
    assert lines[3].startswith("  model.a=16: pending, ≈ ") and lines[-1].startswith(
        "total: 1 job pending, ≈ "
    )
    assert run(tmp_path / "fresh", "--dry-run") == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "total: 4 jobs pending; 4 without an estimate (no earlier run of theirs at this scale)"


def test_run_without_arguments_says_what_to_write(capsys):
    assert cli.main(["run"]) == 2
    assert "mfx run experiment=NAME" in capsys.readouterr().err


def test_dry_run_into_a_closed_pipe_ends_quietly(tmp_path):
    """`mfx run … --dry-run | head`: the reader is gone before mfx writes (`true` reads nothing)."""
    command = f"{MFX} run experiment=resnet_phase out={tmp_path} --dry-run | true"
    out = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], check=False, capture_output=True, text=True
    )
    assert out.stderr == "" and out.returncode == 0


def test_a_finished_sweep_resumes_without_launching_a_job(tmp_path, capsys, monkeypatch):
    assert run(tmp_path) == 0
    capsys.readouterr()
    monkeypatch.setattr(runner, "_hydra", lambda argv: pytest.fail("a finished sweep launched Hydra"))
    assert run(tmp_path) == 0
    assert "4 jobs (0 run, 4 skipped, 0 failed)" in capsys.readouterr().out


def test_several_experiments_show_overall_progress_and_end_with_one_report(tmp_path, capsys):
    assert run(tmp_path, "experiment=toy,toy") == 0
    out = capsys.readouterr().out.splitlines()
    # no earlier run: no estimate for the first; the second sweep is the same one, done by then
    assert (
        out[0]
        == "[1/2] toy/quick: 4 jobs, 4 pending; the whole run ≈ < 1 s left + 8 jobs without an estimate"
        "; launch: serial"  # mfx picks each sweep's launch (mfx.launch): tiny work runs serially
    )
    assert (
        "[2/2] toy/quick: 4 jobs, 0 pending; the whole run ≈ < 1 s left; launch: serial" in out
    )  # estimates made at the start
    assert (
        out[-1]
        == f"all: no statement of the papers in scope. Claims: 1 of 1 paper pass. → {tmp_path}/report-quick/report.html"
    )


def test_one_job_is_one_job(tmp_path, capsys):
    assert run(tmp_path, "model.a=2") == 0
    assert "toy/quick: 1 job (1 run, 0 skipped, 0 failed)" in capsys.readouterr().out
    assert cli.main(["collect", str(tmp_path / "toy" / "quick")]) == 0
    assert "rows from 1 job →" in capsys.readouterr().out


def test_audit_states_its_cost_before_it_starts(tmp_path):
    args = cli._parser().parse_args(["audit", "--seeds", "10", "--out", str(tmp_path)])
    text = runner._audit_cost(args, ["resnet_phase"])
    # no earlier run under --out: the cost model's estimate (mfx/catalog.py)
    jobs = 10 * sweep.grid_sizes("resnet_phase")["quick"]
    assert text.startswith(f"audit: 1 experiment × 10 seeds = {jobs} jobs, ≈ ") and "without" not in text
    assert not any(tmp_path.iterdir())  # stating the cost runs nothing


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"mfx {mfx.__version__}"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["experiment=resnet_phse"], "did you mean 'resnet_phase'?"),
        (["experiment=resnet_phase", "modle.L=3"], "did you mean 'model.L'?"),
        (["experiment=resnet_phase", "model.LL=3"], "did you mean 'model.L'?"),
        (["resnet_phase"], "write experiment=resnet_phase"),
        (["experiment=resnet_phase", "+model.foo=1"], "unknown config key 'model.foo'"),
    ],
)
def test_mistakes_get_a_hint(tmp_path, capsys, argv, says):
    assert cli.main(["run", *argv, f"out={tmp_path / 'out'}"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_cfg_job_shows_the_first_jobs_resolved_config(tmp_path, capsys):
    assert run(tmp_path / "out", "model.a=3,5", "model.b=2", "--cfg", "job") == 0
    text = capsys.readouterr().out
    assert "${" not in text  # interpolations resolved
    assert "job 1 of 2 (model.a=3)" in text and "\n  a: 3\n" in text and "\n  b: 2\n" in text
    assert f"cache_dir: {tmp_path / 'out'}/cache" in text and "variant: -" in text
    assert not (tmp_path / "out").exists()


def test_list_fits_in_100_columns_with_job_counts_and_claim_kinds(tmp_path, capsys):
    assert cli.main(["list", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "statements reproduced" in lines[0]  # the statements first (issue 36)
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("experiment ")) :]
    assert lines[0].split()[:3] == ["experiment", "paper", "(arXiv)"]
    row = next(line for line in lines if line.startswith("resnet_phase "))
    quick = len(sweep.plan(["experiment=resnet_phase"]).jobs)
    assert f" {quick}/{sweep.grid_sizes('resnet_phase')['paper']} " in row and "2509.10167" in row
    assert row.split()[-3:] == ["—", "phase", "diagram"]  # no report under tmp_path yet
    listed = {line.split()[0] for line in lines[1:] if not line.startswith(" ")}
    assert listed >= set(registry.load_all()) - {"toy"}
    assert "(0 experiments reported" in " ".join(lines[-2:])
    # the newest report's claims by kind (paper / derived / cross-check / identity)
    kinds = ["paper"] * 2 + ["identity"]
    pd.DataFrame({"experiment": "resnet_phase", "kind": kinds}).to_csv(tmp_path / "claims.csv")
    (tmp_path / "resnet_phase" / "quick").mkdir(parents=True)
    (tmp_path / "claims.csv").rename(tmp_path / "resnet_phase" / "quick" / "claims.csv")
    assert cli.main(["list", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.startswith("resnet_phase "))
    assert " 2/0/0/1 " in row and "(1 experiment reported" in " ".join(lines[-2:])


def test_list_reads_the_registrations_and_grids_without_importing_them():
    """`mfx list` reads names, figures and grid sizes from the source and YAML: the same as the
    registry's and Hydra's (mfx.sweep.grid_sizes)."""
    experiments = {n: e for n, e in registry.load_all().items() if e.family in registry.FAMILIES}
    entries = catalog.entries()
    assert list(entries) == list(experiments)
    for name, e in experiments.items():
        assert (entries[name].family, entries[name].figure, entries[name].description) == (
            e.family,
            e.figure,
            e.description,
        )
        assert catalog.grid_sizes(name) == sweep.grid_sizes(name)


def test_status_and_compare_of_a_default_run_and_a_variant(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert run(tmp_path) == 0
    default = tmp_path / "toy" / "quick"
    assert cli.main(["report", str(default)]) == 0
    assert run(tmp_path, "model.slope_shift=0.2") == 0  # a variant whose claim fails
    (variant,) = [p for p in (tmp_path / "toy").iterdir() if p != default]
    (variant / "model.a=8" / "done.json").unlink()  # as if its last job had been killed
    capsys.readouterr()
    assert cli.main(["status", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"2 sweeps under {tmp_path} (1 partial)"  # the first line says a grid is partial
    mine = next(line for line in lines if line.startswith("toy/quick "))
    assert "4/4 complete" in mine and "1 pass, 0 fail, 0 inconclusive" in mine
    other = next(line for line in lines if line.startswith(f"toy/{variant.name} "))
    assert "3/4 complete, 1 incomplete" in other and "no report yet" in other
    assert lines[lines.index(other) + 1] == "    variant of toy: model.slope_shift=0.2"  # next to its hash
    assert cli.main(["compare", str(default), str(variant)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("toy: slope of y vs a"))
    assert " pass " in line and line.rstrip().endswith("fail      ≠")
    assert "±" in line and max(len(x) for x in out.splitlines()[2:]) <= 100
    assert out.splitlines()[-1] == "1 claim: 0 same verdict, 1 differ"
    assert out.splitlines()[1] == f"B = {variant} (variant: model.slope_shift=0.2)"
    assert not (variant / "table.csv").exists()  # compare only reads
    assert cli.main(["report", str(tmp_path)]) == 0  # a report over both: status lists it
    capsys.readouterr()
    assert cli.main(["status", str(tmp_path)]) == 0
    assert f"report of several sweeps: {tmp_path / 'report.html'} (" in capsys.readouterr().out


def test_compare_wraps_the_claim_column_to_the_terminal_width(tmp_path, capsys, monkeypatch):
    """A long claim is never cut: the column takes the terminal's width (COLUMNS) and wraps."""
    a = pd.DataFrame(
        {
            "experiment": ["x"],
            "claim": ["a claim statement that is much longer than any column " * 3],
            "measured": [1.0],
            "u": [0.1],
            "verdict": ["pass"],
        }
    )
    a.to_csv(tmp_path / "claims.csv", index=False)
    for columns in ("100", "200"):
        monkeypatch.setenv("COLUMNS", columns)
        assert cli.main(["compare", str(tmp_path / "claims.csv"), str(tmp_path / "claims.csv")]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert max(len(line) for line in lines) <= int(columns) and "…" not in "".join(lines[3:-1])
        claim = " ".join(" ".join(lines[3:-1]).replace("1 ± 0.1 pass", "").split())
        assert claim.count("much longer than any column") == 3


# ----------------------------------------------------------------- issue 25: resume, time, warnings


def test_a_finished_sweep_is_recognised_without_the_experiments_code(tmp_path, capsys, monkeypatch):
    """Resume of a finished sweep composes its jobs and compares their hashes: no experiment is
    loaded, nothing validated with its code (a job complete with the same hash passed it)."""
    assert run(tmp_path) == 0
    capsys.readouterr()
    monkeypatch.setattr(registry, "load_all", lambda: pytest.fail("the experiments were loaded"))
    monkeypatch.setattr(sweep, "validate", lambda *a: pytest.fail("the jobs were validated again"))
    assert run(tmp_path) == 0
    assert "toy/quick: 4 jobs (0 run, 4 skipped, 0 failed)" in capsys.readouterr().out
    monkeypatch.undo()
    assert run(tmp_path, "model.a=1,2,3") == 0  # one job left to run: the full validation, then the job
    assert "toy/quick: 3 jobs (1 run, " in capsys.readouterr().out


def test_resuming_a_finished_sweep_loads_no_torch(tmp_path):
    """In a fresh process (where the test-only toy is not even registered) the finished sweep is
    recognised from its files and the composed configuration alone."""
    assert run(tmp_path) == 0
    code = (
        "import sys; from mfx import cli, lazy\n"
        f"code = cli.main(['run', *{TOY!r}, 'out={tmp_path}'])\n"
        "print('LOADED', [m for m in ('torch', 'scipy', 'matplotlib') if lazy.loaded(m)], code)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "toy/quick: 4 jobs (0 run, 4 skipped, 0 failed)" in out and "LOADED [] 0" in out


def test_a_warning_of_a_job_is_recorded_and_reported_as_one_line(tmp_path, capsys, monkeypatch):
    toy_exp = registry.get("toy")

    def warns(cfg):
        for _ in range(3):
            warnings.warn("the toy's tilt leaves its domain", UserWarning, stacklevel=1)
        return toy_exp.run(cfg)

    monkeypatch.setitem(registry._REGISTRY, "toy", dataclasses.replace(toy_exp, run=warns))
    assert run(tmp_path) == 0
    err = capsys.readouterr().err
    line = "UserWarning: the toy's tilt leaves its domain (×3)"
    assert err.count(line) == 4 and "warnings.warn" not in err and ".py:" not in err  # no source line
    provenance = json.loads((tmp_path / "toy" / "quick" / "model.a=2" / "provenance.json").read_text())
    assert provenance["warnings"] == [line]
    assert cli.main(["report", str(tmp_path / "toy" / "quick")]) == 0
    report = (tmp_path / "toy" / "quick" / "report.md").read_text()
    assert report.count(line) == 1 and f"Warning from toy/quick (4 jobs, e.g. model.a=1): {line}" in report
    assert html.escape(line) in (tmp_path / "toy" / "quick" / "report.html").read_text()


def test_dry_run_falls_back_to_the_cost_model_and_prints_the_total(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(catalog.SIZE_KEYS, "toy", ("model.a", "model.reps"))  # toy: reps = 2
    monkeypatch.setitem(catalog.MEASURED, "toy", {"quick": 0.5})
    assert run(tmp_path, "--dry-run") == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  model.a=8: pending, ≈ 8 s (cost model)" in lines  # 0.5 s × 8 × 2
    assert lines[-1].startswith("total: 4 jobs pending, ≈ 15 s; 4 of them from the cost model")
    assert run(tmp_path) == 0
    capsys.readouterr()
    assert run(tmp_path, "model.a=1,16", "--dry-run") == 0  # a new grid point: scaled from the recorded
    assert "  model.a=16: pending, ≈ " in capsys.readouterr().out


def test_every_experiment_has_a_cost_model_at_both_scales():
    """A fresh checkout's --dry-run estimates every job: each experiment's size keys resolve."""
    for name in catalog.entries():
        assert catalog.cost(name, "quick"), name
        for scale in ("quick", "paper"):
            for p in sweep.plans([f"experiment={name}", f"scale={scale}"], checked=False):
                assert all(catalog.units(name, job) for job in p.jobs), (name, scale)


def test_the_progress_bar_weighs_each_job_by_its_estimated_cost(tmp_path, monkeypatch):
    monkeypatch.setitem(catalog.SIZE_KEYS, "toy", ("model.a",))
    monkeypatch.setitem(catalog.MEASURED, "toy", {"quick": 1.0})

    class Bar:
        disable = False

        def __init__(self, total, **kwargs):
            self.total, self.done = total, []
            bars.append(self)

        def update(self, n):
            self.done.append(n)

        def close(self):
            pass

    bars = []
    monkeypatch.setattr("mfx.runtime.progress", Bar)
    assert run(tmp_path) == 0
    (bar,) = bars
    assert bar.total == 1 + 2 + 4 + 8 and sorted(bar.done) == [1, 2, 4, 8]


# ----------------------------------------------------------------- issue 25: Hydra flags, FIFO, list


def test_config_dir_adds_a_folder_of_configs_as_hydra_does(tmp_path, capsys):
    mine = tmp_path / "site"
    (mine / "experiment").mkdir(parents=True)
    (mine / "experiment" / "toy.yaml").write_text((TEST_CONF / "experiment" / "toy.yaml").read_text())
    for flag in (["--config-dir", str(mine)], ["-cd", str(mine)], [f"--config-dir={mine}"]):
        out = tmp_path / flag[0].strip("-").split("=")[0]
        assert cli.main(["run", "experiment=toy", *flag, f"out={out}"]) == 0
        assert len(job_rows(out)) == 4
    capsys.readouterr()
    assert cli.main(["run", "experiment=toy", "-cd", str(tmp_path / "none"), f"out={tmp_path}"]) == 2
    assert "-cd must name a folder of configs" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--config-name", "-cn", "--config-path"])
def test_config_name_is_refused_with_the_way_to_the_same_effect(tmp_path, capsys, flag):
    assert cli.main(["run", *TOY, flag, "mine", f"out={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag} is refused" in err and "--config-dir DIR experiment=NAME" in err
    assert list(tmp_path.iterdir()) == []


def test_status_and_compare_do_not_hang_on_a_fifo_or_a_huge_claims_file(tmp_path):
    assert run(tmp_path) == 0
    sweep_folder = tmp_path / "toy" / "quick"
    os.mkfifo(sweep_folder / "claims.csv")  # nobody writes it: a plain read would wait forever
    status = subprocess.run(
        [MFX, "status", str(tmp_path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert status.returncode == 0 and "no readable report (claims.csv)" in status.stdout
    compare = subprocess.run(
        [MFX, "compare", str(sweep_folder / "claims.csv"), str(sweep_folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert compare.returncode == 2 and compare.stderr.count("\n") == 1
    (sweep_folder / "claims.csv").unlink()
    with open(sweep_folder / "claims.csv", "wb") as f:
        f.truncate(commands.MAX_CLAIMS_BYTES + 1)  # sparse: larger than any claims file mfx writes
    assert cli.main(["status", str(tmp_path)]) == 0
    assert cli.main(["compare", str(sweep_folder / "claims.csv"), str(sweep_folder)]) == 2


def test_list_shows_a_short_figure_label_and_the_description_with_long(tmp_path, capsys):
    assert cli.main(["list", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines[1:] if line.split()[0] in catalog.entries()]
    assert len(rows) == len(catalog.entries())  # one line each: no wrapped figure column
    assert next(r for r in rows if r.startswith("transformer_convergence ")).endswith("  E2")
    assert cli.main(["list", "--long", "--out", str(tmp_path)]) == 0
    assert catalog.entries()["transformer_convergence"].figure.split()[-1] in capsys.readouterr().out
