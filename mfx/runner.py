"""`mfx run` and `mfx audit`: the sweeps of a command line, from plans to the tally of their jobs.

`run` validates every sweep before any job starts (`mfx.sweep.plans`: a user's mistake ends with one
line on stderr, exit code 2 and nothing written), then hands each sweep to `@hydra.main` with a
rewritten sys.argv, so every Hydra feature (sweeps, `-m`, `--cfg job`, `--info`, `hydra/launcher=…`)
works unchanged.  Around the jobs: where a run of several sweeps stands and how long it has left
(each job's estimate: its own recorded time, its experiment's recorded seconds per unit of size, or
the cost model), `--dry-run` (those estimates, nothing run), each sweep's tally (run, skipped,
failed) and one combined report after several sweeps.  `audit` runs the experiments once per seed and
counts each claim's verdicts.
"""

from __future__ import annotations

import difflib
import os
import shutil
import statistics
import sys
import uuid
from pathlib import Path
from typing import NamedTuple

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mfx import api, catalog, launch, lazy, locks
from mfx import experiment as registry
from mfx.commands import out_folder, plural, variant_of, warn
from mfx.experiment import ConfigError

# What loads torch, pandas or Hydra loads when a run first uses it (mfx.lazy): `mfx run --help` is fast.
report = lazy.module("mfx.report")
results = lazy.module("mfx.results")
runtime = lazy.module("mfx.runtime")
sweep = lazy.module("mfx.sweep")
task = lazy.module("mfx.task")

EPILOG_RUN = """\
usage: mfx run experiment=NAME [scale=quick|paper] [KEY=VALUE ...] [hydra flags]

Run one figure's sweep (a Hydra multirun; one job per grid point, seeds batched inside each job).
Each job writes rows.csv under OUT/NAME/SCALE/<overrides>/; rerunning skips finished jobs.

examples:
  mfx run experiment=resnet_phase scale=quick
  mfx run experiment=resnet_depth model.L=2,4,8 out=/scratch/mfx    # replace one axis of the grid
  mfx run experiment=quad_curves hydra/launcher=joblib               # local processes
  mfx run experiment=resnet_width scale=paper hydra/launcher=submitit_slurm \\
      hydra.launcher.partition=gpu hydra.launcher.timeout_min=60
  mfx run experiment=resnet_depth --cfg job                          # print the first job's config
  mfx run experiment=resnet_depth --dry-run                          # list the jobs, run nothing
hydra flags: --cfg job|hydra|all, --info, --hydra-help, -m (implied: every experiment is a sweep),
  --config-dir DIR (-cd: your configs, e.g. DIR/experiment/NAME.yaml, beside mfx's own)
"""

# Hydra flags that only print something: no job runs, so no validation is needed.
PRINT_FLAGS = {"--cfg", "-c", "--info", "-i", "--hydra-help", "--help", "-h", "--shell-completion", "-sc"}

FLAGS_WITH_VALUE = {
    "--cfg",
    "-c",
    "--package",
    "-p",
    "--config-path",
    "-cp",
    "--config-name",
    "-cn",
    "--config-dir",
    "-cd",
    "--experimental-rerun",
}
INFO_TOPICS = {"all", "config", "defaults", "defaults-tree", "plugins", "searchpath"}


def run(args: list[str], combined: bool = True) -> int:
    """`mfx run`; `combined`: after several sweeps, write one report of them all."""
    if any(a in ("-h", "--help") for a in args):
        print(EPILOG_RUN)
        return 0
    if any(a.split("=")[0] in REFUSED_FLAGS for a in args):
        raise ConfigError(
            "--experimental-rerun is refused: it unpickles a file (rerun the same command instead)"
        )
    args = _flags_first(_config_flags(args))
    printing = any(a.split("=")[0] in PRINT_FLAGS for a in args)
    dry = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    overrides = _overrides(args)
    _refuse_words(overrides)
    if dry and not printing and any(o.startswith("experiment=") for o in overrides):
        # read back from the last look at the same command where there is one (naming the experiments
        # of experiment=all reads their source: only where the look is new)
        plans = sweep.looked(overrides, lambda: _plans(_experiments(overrides), overrides))
        return _dry_run(plans, len(plans) > 1 and not launch.user_chose(overrides))
    names = _experiments(overrides)
    if printing and not names:
        return _hydra(args)
    if not names:
        raise ConfigError(
            "run: name an experiment: mfx run experiment=NAME (`mfx list` names them, `mfx run --help`)"
        )
    # A finished sweep is recognised first, without the experiments' code: resuming it loads no torch.
    plans = None if printing else _finished(names, overrides)
    if plans is None:
        plans = _plans(names, overrides)
    if (
        printing
        and _flag_value(args, ("--cfg", "-c")) == "job"
        and not _flag_value(args, ("--package", "-p"))
    ):
        for p in plans:
            print(_job_config(p))
        return 0
    if printing:
        return max(_hydra(p.hydra_overrides() + [p.replace.get(a, a) for a in _args(args, p)]) for p in plans)
    auto = len(plans) > 1 and not launch.user_chose(overrides)  # mfx picks each sweep's launch
    run_id, saved = uuid.uuid4().hex, os.environ.get(results.RUN_ID)
    os.environ[results.RUN_ID] = run_id  # jobs sign their done.json: the tally counts this run's own
    failed = 0
    estimates = [_pending_time(_job_states(p)) for p in plans] if len(plans) > 1 else []
    try:
        with results.stopping():  # SIGTERM (SLURM preemption) and SIGHUP stop the sweep as Ctrl-C does
            for i, p in enumerate(plans):
                todo = _job_states(p)
                progress = _progress(plans, i, todo, estimates) if len(plans) > 1 else ""
                words, chosen = launch.choose(_work(todo), launch.cores()) if auto else ("", [])
                progress += f"; launch: {words}" if words else ""
                failed += _run_plan(p, _args(args, p) + chosen, run_id, todo, progress)
    except KeyboardInterrupt:
        total = sum(len(p.jobs) for p in plans)
        complete = sum(_tally(p, run_id)[0] + _tally(p, run_id)[1] for p in plans)
        print(
            f"interrupted: {complete} of {total} jobs done; rerun the same command to resume", file=sys.stderr
        )
        return 130
    finally:
        if saved is None:
            os.environ.pop(results.RUN_ID, None)
        else:
            os.environ[results.RUN_ID] = saved
    if len(plans) > 1 and combined:
        _combined_report(plans)
    return 1 if failed else 0


def _plans(names: list[str], overrides: list[str]) -> list:
    """Every sweep of the command line, validated before any runs: a mistake in the second writes
    nothing for the first."""
    return [q for name in names for q in sweep.plans([_one(o, name) for o in overrides])]


def _finished(names: list[str], overrides: list[str]) -> list | None:
    """The plans of sweeps that have nothing left to run (resume on, every job complete by the same
    configuration and code), composed without the experiments' code; None otherwise — the full
    validation then runs (and names any mistake).  A job complete with the same job hash passed every
    check of that code when it ran."""
    try:
        plans = [q for name in names for q in sweep.plans([_one(o, name) for o in overrides], checked=False)]
    except (ConfigError, OmegaConfBaseException):  # the full validation says what is wrong, in one line
        return None
    finished = all(p.jobs[0].resume and all(_done(p)) for p in plans)
    return plans if finished else None


def _config_flags(args: list[str]) -> list[str]:
    """Hydra's `--config-dir DIR` (`-cd`) adds DIR to the config search path: mfx reads it as
    `hydra.searchpath=[file://DIR]`, which every sweep and job then composes with.  `--config-name` and
    `--config-path` would replace mfx's own primary config: refused, with the way to the same effect."""
    out, i = [], 0
    while i < len(args):
        flag, eq, value = args[i].partition("=")
        if flag in ("--config-name", "-cn", "--config-path", "-cp"):
            raise ConfigError(
                f"{flag} is refused: mfx composes its own primary config; put your settings in "
                "DIR/experiment/NAME.yaml and run with --config-dir DIR experiment=NAME, or give them as KEY=VALUE"
            )
        if flag not in ("--config-dir", "-cd"):
            out.append(args[i])
            i += 1
            continue
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        i += 1
        if not value or not Path(value).is_dir():
            raise ConfigError(f"{flag} must name a folder of configs (got {value!r})")
        if any(
            a.startswith(("hydra.searchpath=", "+hydra.searchpath=", "++hydra.searchpath="))
            for a in args + out
        ):
            raise ConfigError(
                f"{flag}: give one --config-dir or hydra.searchpath (each sets the config search path)"
            )
        out.append(f"hydra.searchpath=[file://{Path(value).absolute()}]")
    return out


# Hydra's own flags mfx passes on (beside PRINT_FLAGS and FLAGS_WITH_VALUE); -m is implied and dropped.
HYDRA_FLAGS = {"--resolve", "--run", "-r", "--version"}
MULTIRUN = {"-m", "--multirun"}
KNOWN_FLAGS = PRINT_FLAGS | set(FLAGS_WITH_VALUE) | HYDRA_FLAGS | {"--dry-run"}


def _flags_first(args: list[str]) -> list[str]:
    """The flags (with their values) before the overrides, as Hydra's parser needs them (`-m` given
    first would leave every override after it unparsed); an unknown flag is refused with one line."""
    flags, overrides, i = [], [], 0
    while i < len(args):
        a = args[i]
        flag = a.split("=", 1)[0]
        if not a.startswith("-"):
            overrides.append(a)
        elif flag in MULTIRUN:
            pass  # every experiment is a sweep already (mode MULTIRUN)
        elif flag in KNOWN_FLAGS:
            flags.append(a)
            nxt = args[i + 1] if i + 1 < len(args) else ""
            if "=" not in a and (a in FLAGS_WITH_VALUE or (a in ("--info", "-i") and nxt in INFO_TOPICS)):
                flags.append(nxt)
                i += 1
        else:
            close = difflib.get_close_matches(flag, sorted(KNOWN_FLAGS), n=1)
            hint = f"; did you mean {close[0]}?" if close else " (mfx run --help lists them)"
            raise ConfigError(f"run: unknown flag {results.printable(flag)!r}{hint}")
        i += 1
    return flags + overrides


def _args(args: list[str], p) -> list[str]:
    return [_one(a, p.experiment) for a in args]


def _run_plan(p, args: list[str], run_id: str, todo, progress: str) -> int:
    """Run one sweep; print its tally (and, if a job could not run, the way out); return the number
    of jobs not complete.  `todo` is `_job_states(p)`; `progress` where a run of several sweeps stands."""
    out = Path(p.jobs[0].out)
    results.make_folder(p.folder, out)
    results.remove_stale_temporaries(p.folder)
    # the record of the sweep's grid: a run of part of it (`model.p=2`) adds its jobs, never removes any
    results.record_sweep(
        p.folder,
        {
            "experiment": p.experiment,
            "scale": p.scale,
            "sweep_hash": p.sweep_hash,
            "axes": p.axes,
            "overrides": [o for o in p.overrides if o.split("=", 1)[0].lstrip("+~") not in p.axes],
            "job_configs": [h.split("-", 1)[0] for h in p.job_hashes],
        },
        out,
    )
    if progress:
        print(progress, flush=True)
    launch_dir, cancelled = None, None
    if not (p.jobs[0].resume and all(t.done for t in todo)):  # a finished sweep launches nothing
        launch_dir = runtime.launch_folder()
        task.costs = dict(zip(p.job_hashes, _work(todo, pending=False)))
        # weighted by cost (jobs take 0.1 s to minutes): the bar's total is the jobs' estimated seconds
        task.bar = runtime.progress(
            total=sum(task.costs.values()),
            desc=f"{p.experiment} ({plural(len(p.jobs), 'job')})",
            unit="s",
            leave=True,
            bar_format=BAR,
        )
        try:
            _hydra(p.hydra_args(args, launch_dir))
        except Exception as e:  # submitit: a job SLURM cancelled or killed at its time limit
            if type(e).__name__ != "UncompletedJobError":
                raise
            cancelled = task.slurm_outcome(launch_dir)
        finally:
            task.bar.close()
            task.bar, task.costs = None, {}
    ran, skipped, missing, elsewhere = _tally(p, run_id)
    others = f"{elsewhere} running in another process, " if elsewhere else ""
    logs = launch_dir / ".submitit" if launch_dir else None
    if cancelled is not None:
        then = f"SLURM cancelled {missing + elsewhere} of {len(p.jobs)} jobs; {ran + skipped} done{cancelled}"
    elif elsewhere:
        holders = "; ".join(sorted({locks.describe(j) for j in p.held_jobs()}))
        then = f"{elsewhere} being computed by another run ({holders[:160]}): wait for it"
    elif missing:
        then = f"{missing} failed" + (f" (launcher logs: {logs})" if logs and logs.is_dir() else "")
    else:
        then = ""
    tally = (
        f"{p.experiment}/{p.scale}{p.variant}: {plural(len(p.jobs), 'job')} ({ran} run, {skipped} skipped, "
    )
    tally += f"{others}{missing} failed) → {p.folder}"
    if cancelled is not None:  # the one line that ends a sweep SLURM cancelled
        print(tally)
        print(f"mfx: {then}; rerun the same command to resume", file=sys.stderr)
    else:
        print(
            f"{tally}; "
            + (f"{then}; rerun the same command to resume" if then else f"next: mfx report {p.folder}")
        )
    if launch_dir and (not (missing or elsewhere) or not logs.is_dir()):
        shutil.rmtree(launch_dir, ignore_errors=True)
    return missing + elsewhere


def _progress(plans, i: int, todo, later: list[tuple[float, int]]) -> str:
    """ "[3/12] resnet_phase/quick: 20 jobs, 5 pending ≈ 1 min; the whole run ≈ 9 min left"."""
    p = plans[i]
    here = _pending_time(todo)
    left, unknown = here[0] + sum(t for t, _ in later[i + 1 :]), here[1] + sum(n for _, n in later[i + 1 :])
    pending = sum(not t.done for t in todo)
    return (
        f"[{i + 1}/{len(plans)}] {p.experiment}/{p.scale}{p.variant}: {plural(len(p.jobs), 'job')}, {pending} pending"
        + (f" ≈ {_duration(here[0])}" if pending and not here[1] else "")
        + f"; the whole run ≈ {_duration(left)} left"
        + (f" + {plural(unknown, 'job')} without an estimate" if unknown else "")
    )


def _pending_time(todo) -> tuple[float, int]:
    """(estimated seconds of the pending jobs that have an estimate, pending jobs without one)."""
    pending = [t.seconds for t in todo if not t.done]
    return sum(sec for sec in pending if sec is not None), sum(sec is None for sec in pending)


def _combined_report(plans) -> None:
    """After several sweeps (experiment=all, a swept key): one report of them in their `out` folder."""
    folders = list(dict.fromkeys(p.folder for p in plans if results.find_jobs([p.folder])))
    if not folders:
        return
    out = Path(os.path.commonpath([str(Path(p.jobs[0].out).absolute()) for p in plans]))
    found = [s for f in folders for s in api.sweeps(f)]
    parts = [report.Part(s.table, s.info, variant_of(s.folder)) for s in found]
    written, claims = report.write_parts(parts, out / f"report-{plans[0].scale}")
    print(f"all: {report.summary_by_kind(claims)} → {written.with_suffix('.html')}")


REFUSED_FLAGS = {"--experimental-rerun"}
# A sweep's bar counts estimated seconds of work done (a job adds its estimate when it ends).
BAR = "{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s of work [{elapsed}<{remaining}]"


SOURCES = {
    "recorded": "",
    "scaled": " (scaled from this experiment's recorded jobs)",
    "model": " (cost model)",
    "median": " (median of this experiment's recorded jobs)",
}


def _work(todo, pending: bool = True) -> list[float]:
    """The estimated seconds of each (pending) job; a job without an estimate weighs as a typical one."""
    known = [t.seconds for t in todo if t.seconds is not None]
    fill = statistics.median(known) if known else 1.0
    return [fill if t.seconds is None else t.seconds for t in todo if not (pending and t.done)]


def _wall(seconds: list[float], chosen: list[str]) -> float:
    """A sweep's wall time under its launch: processes finish no sooner than the largest job or the work
    shared out; threads and serial runs are counted at the work itself (threads gain less than the
    cores on these small tensors: an upper bound)."""
    n = next((int(o.split("=")[1]) for o in chosen if o.startswith("hydra.launcher.n_jobs=")), 1)
    return max(max(seconds, default=0.0), sum(seconds) / n)


def _dry_run(plans, auto: bool = False) -> int:
    """Each job of each sweep, done (resume skips it) or pending, with its estimated time and where
    the estimate comes from, and (`auto`) the launch mfx picks for it; totals."""
    pending_total, unknown, count, modelled, wall = 0.0, 0, 0, 0, 0.0
    for p in plans:
        states = _job_states(p)
        words, chosen = launch.choose(_work(states), launch.cores()) if auto else ("", [])
        wall += _wall(_work(states), chosen)
        pending = [t for t in states if not t.done]
        seconds = sum(t.seconds for t in pending if t.seconds is not None)
        missing = sum(t.seconds is None for t in pending)
        pending_total, unknown, count = pending_total + seconds, unknown + missing, count + len(pending)
        modelled += sum(t.source == "model" for t in pending)
        print(
            f"{p.folder}: {plural(len(p.jobs), 'job')} ({len(p.jobs) - len(pending)} done, {len(pending)} pending"
            + (f", ≈ {_duration(seconds)}" if pending and not missing else "")
            + (f", {missing} without an estimate" if missing else "")
            + f"), grid axes {', '.join(p.axes) or '(none)'}"
            + (f", variant of {p.experiment} ({' '.join(p.overrides)})" if p.variant else "")
            + (f"; launch: {words}" if words and pending else "")
        )
        for job, t in zip(p.jobs, states):
            point = ", ".join(f"{k}={catalog.select(job, k)}" for k in p.axes) or "the only job"
            when = (
                "done"
                if t.done
                else (
                    f"pending, ≈ {_duration(t.seconds)}{SOURCES[t.source]}"
                    if t.seconds is not None
                    else "pending, ?"
                )
            )
            print(f"  {point}: {when}")
    known = count - unknown
    print(
        f"total: {plural(count, 'job')} pending"
        + (f", ≈ {_duration(pending_total)}" + (f" for {known}" if unknown else "") if known else "")
        + (f"; {unknown} without an estimate (no earlier run of theirs at this scale)" if unknown else "")
        + (
            f"; {modelled} of them from the cost model ({catalog.MEASURED_BY}: a rough guide, replaced "
            "by the jobs' own times once they ran)"
            if modelled
            else ""
        )
        + (
            f"; ≈ {_duration(wall)} of wall with these launches on {launch.cores()} cores"
            if auto and count
            else ""
        )
    )
    sys.stdout.flush()  # here, where a closed pipe (`| head`) ends quietly (mfx.cli.main)
    return 0


class JobState(NamedTuple):
    done: bool  # complete, by the same configuration and code: resume skips it
    seconds: float | None  # estimated time, None without an estimate
    source: str  # where the estimate comes from: "recorded", "scaled", "model", "median" or ""


def _done(p) -> list[bool]:
    """Per planned job: whether it is complete by the same configuration and code (resume skips it)."""
    done_hashes = {
        (d or {}).get("job_hash")
        for j in (results.find_jobs([p.folder]) if p.folder.is_dir() else [])
        for state, d in [results.job_state(j)]
        if state == "complete"
    }
    return [h in done_hashes for h in p.job_hashes]


def _job_states(p) -> list[JobState]:
    """Per planned job: done or not, and its estimated seconds — "recorded": the median time earlier
    runs of that grid point of the experiment at this scale (default or variant) recorded; "scaled":
    the seconds per unit of size of its other recorded jobs (`catalog.seconds_per_unit`), times this
    job's units; "model": the catalog's measured seconds per unit (`catalog.cost`) times its units;
    "median": without a size model, the median time of the experiment's recorded jobs."""
    recorded: dict[tuple, list[float]] = {}
    provenances = []
    for j in results.find_jobs(sorted((p.out / p.experiment).glob(f"{p.scale}*"))):
        prov = results.read_json(j / results.PROVENANCE) or {}
        if isinstance(prov.get("seconds"), (int, float)) and isinstance(prov.get("config"), dict):
            key = tuple(str(catalog.select(prov["config"], k)) for k in p.axes)
            recorded.setdefault(key, []).append(float(prov["seconds"]))
            provenances.append(prov)
    per_unit = catalog.seconds_per_unit(p.experiment, provenances)
    model = catalog.cost(p.experiment, p.scale)
    states = []
    for job, done in zip(p.jobs, _done(p)):
        here = recorded.get(tuple(str(catalog.select(job, k)) for k in p.axes))
        units = catalog.units(p.experiment, job)
        if here:
            states.append(JobState(done, statistics.median(here), "recorded"))
        elif per_unit and units:
            states.append(JobState(done, per_unit * units, "scaled"))
        elif model and units:
            states.append(JobState(done, model * units, "model"))
        elif recorded:  # no size model: a typical recorded job of the experiment
            states.append(
                JobState(done, statistics.median(x for xs in recorded.values() for x in xs), "median")
            )
        else:
            states.append(JobState(done, None, ""))
    return states


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "< 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def _hydra(argv: list[str]) -> int:
    # Hydra re-raises instead of printing its own multi-line report: mfx.cli.main makes it one line.
    saved, full_error = sys.argv, os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"
    sys.argv = ["mfx", *_flags_first(argv)]  # Hydra's parser takes no override after a flag's overrides
    try:
        task.hydra_main()
    finally:
        sys.argv = saved
        if full_error is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        else:
            os.environ["HYDRA_FULL_ERROR"] = full_error
    return 0


def _flag_value(args: list[str], names: tuple[str, ...]) -> str | None:
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
        if "=" in a and a.split("=", 1)[0] in names:
            return a.split("=", 1)[1]
    return None


def _job_config(p) -> str:
    """The resolved config of the sweep's first job, as its job process will see it."""
    job = p.jobs[0].copy()
    OmegaConf.update(job, "sweep_hash", p.sweep_hash)
    OmegaConf.update(job, "variant", p.variant)
    point = ", ".join(f"{k}={OmegaConf.select(job, k)}" for k in p.axes) or "the only job"
    header = f"# {p.experiment}: job 1 of {len(p.jobs)} ({point}) of the sweep {p.folder}"
    return header + "\n" + OmegaConf.to_yaml(job, resolve=True)


def _refuse_words(overrides: list[str]) -> None:
    """A bare word is not an override: `mfx run resnet_phase` → write experiment=resnet_phase."""
    for word in overrides:
        if "=" in word or word.startswith("~"):
            continue
        names = registry.load_all()
        if word in names or word == "all":
            raise ConfigError(f"mfx run takes KEY=VALUE overrides: write experiment={word}")
        close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
        hint = f" (experiment={close[0]}?)" if close else ""
        raise ConfigError(f"{word!r} is not an override: write KEY=VALUE, e.g. experiment=NAME{hint}")


def _experiments(overrides: list[str]) -> list[str]:
    """The experiments named by `experiment=` (one, `a,b`, or `all`); [] when none is named."""
    value = next((o.split("=", 1)[1] for o in reversed(overrides) if o.startswith("experiment=")), None)
    if value is None:
        return []
    if value == "all":  # the papers' experiments (not a test-only one registered in-process), read
        return list(catalog.entries())  # from their source: naming them loads none of their code
    return [v.strip() for v in value.split(",")]


def _one(override: str, name: str) -> str:
    return f"experiment={name}" if override.startswith("experiment=") else override


def _tally(p, run_id: str) -> tuple[int, int, int, int]:
    """(run, skipped, missing, elsewhere) jobs of a plan: completed by this run (its id in done.json),
    complete already (or by another run), not complete, and being computed by another live run."""
    ran = skipped = 0
    for job in results.find_jobs([p.folder]) if p.folder.is_dir() else []:
        state, done = results.job_state(job)
        if state == "complete" and str(done.get("sweep_hash")) == p.sweep_hash:
            if done.get("run") == run_id:
                ran += 1
            else:
                skipped += 1
    elsewhere = len(p.held_jobs())
    return ran, skipped, max(len(p.jobs) - ran - skipped - elsewhere, 0), elsewhere


def _overrides(args: list[str]) -> list[str]:
    """The KEY=VALUE arguments, without Hydra's flags and their values (`--cfg job`, `--info all`)."""
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
        elif a.startswith("-"):
            nxt = args[i + 1] if i + 1 < len(args) else ""
            skip = "=" not in a and (a in FLAGS_WITH_VALUE or (a in ("--info", "-i") and nxt in INFO_TOPICS))
        else:
            out.append(a)
    return out


# -------------------------------------------------------------------------------------- audit


def audit(args) -> int:
    names = _experiments([f"experiment={args.experiments}"])
    sweep.check_audit_seeds(args.seeds, args.first_seed, names)  # before anything is printed or written
    out_folder(args.out)
    print(_audit_cost(args, names), flush=True)
    per_seed = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        code = run(
            [f"experiment={','.join(names)}", f"scale={args.scale}", f"seed={seed}", f"out={args.out}"],
            combined=False,
        )
        if code == 130:
            return code
        for name in names:
            folder = next(
                p for p in sorted((Path(args.out) / name).glob(f"{args.scale}*")) if _seed_of(p) == seed
            )
            table, _, _ = results.load_table(folder, warn=warn)
            per_seed += [
                (seed, c)
                for _, _, rows in report.by_experiment(table)
                for c in report.claims_of(registry.get(name), rows)
            ]
    counts = report.audit_frame(per_seed)
    results.write_csv(counts, Path(args.out) / "audit.csv")
    table = report.audit_markdown(counts, args.scale)
    print(table)
    if args.md:
        command = f"mfx audit --seeds {args.seeds} --first-seed {args.first_seed} --scale {args.scale}"
        command += f" --experiments {args.experiments}" if args.experiments != "all" else ""
        text = f"# Audit on fresh seeds\n\n{report.generated_by(command)}\n\n{table}\n"
        results.write_bytes(Path(args.md), text.encode())
    return 0


def _audit_cost(args, names: list[str]) -> str:
    """What the audit will cost, said before it starts: its jobs, and their time where earlier runs of
    the same experiments and scale under --out recorded it (every seed costs about the same)."""
    plans = [
        sweep.plan([f"experiment={n}", f"scale={args.scale}", f"seed={args.first_seed}", f"out={args.out}"])
        for n in names
    ]
    seconds, unknown = (sum(x) for x in zip(*(_pending_time(_job_states(p)) for p in plans)))
    jobs = sum(len(p.jobs) for p in plans) * args.seeds
    return (
        f"audit: {plural(len(names), 'experiment')} × {plural(args.seeds, 'seed')} = {plural(jobs, 'job')}"
        + (f", ≈ {_duration(seconds * args.seeds)}" if seconds else "")
        + (
            f"{' +' if seconds else ','} {plural(unknown * args.seeds, 'job')} without an estimate "
            f"(no earlier run under {args.out})"
            if unknown
            else ""
        )
    )


def _seed_of(folder: Path) -> int | None:
    info = results.read_json(folder / "sweep.json") or {}
    return next((int(o.split("=", 1)[1]) for o in info.get("overrides", []) if o.startswith("seed=")), 0)
