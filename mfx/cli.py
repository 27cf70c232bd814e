"""`mfx run | list | status | collect | plot | report | compare | audit` — argument handling only.

`mfx run` validates the whole sweep before any job starts (`mfx.sweep.plan`: a user's mistake ends
with one line on stderr, exit code 2 and nothing written), then rewrites sys.argv and hands it to
`@hydra.main`, so every Hydra feature (sweeps, `-m`, `--cfg job`, `--info`, `hydra/launcher=…`)
works unchanged.  Whatever escapes a command ends as one line on stderr and a non-zero exit code
(2 for a user's mistake, 130 for Ctrl-C, 1 otherwise); `MFX_DEBUG=1` shows the traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import difflib
import io
import json
import math
import os
import shutil
import signal
import statistics
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import NamedTuple

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

import mfx
from mfx import api, catalog, docs, lazy, locks, statements
from mfx import experiment as registry
from mfx.experiment import SCALES, VERDICTS, ConfigError

# What loads torch, pandas, matplotlib or Hydra loads when a command first uses it (mfx.lazy):
# --help, --version and list stay fast.
pd = lazy.module("pandas")
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


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (the usage is one `--help` away)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


PAPER_SHORT = {
    "resnet": "Chizat 2509.10167",
    "quadratic": "Bocchi+ 2604.03068",
    "transformer": "Barboni+ 2605.17660",
}


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="mfx",
        description="Reproduce the figures and claims of three papers on infinitely deep and wide networks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  mfx run experiment=resnet_phase scale=quick && mfx collect outputs/resnet_phase/quick"
        " && mfx report outputs/resnet_phase/quick",
    )
    p.add_argument("--version", action="version", version=f"mfx {mfx.__version__}")
    sub = p.add_subparsers(
        dest="command",
        metavar="{run,list,statements,metrics,status,collect,plot,report,compare,audit,docs,calibrate}",
    )
    sub.add_parser("run", help="run an experiment's sweep (Hydra overrides follow)", add_help=False)
    raw = argparse.RawDescriptionHelpFormatter
    ls = sub.add_parser(
        "list",
        help="list the registered experiments",
        description="Every registered experiment: name, paper (arXiv id), figure, jobs at scale quick / paper, "
        "and the claims of its newest report by kind (paper / derived / cross-check / identity).",
        epilog="example:\n  mfx list",
        formatter_class=raw,
    )
    ls.add_argument("--names", action="store_true", help="print only the names, one per line")
    ls.add_argument("--long", action="store_true", help="each figure's full description (default: its label)")
    ls.add_argument(
        "--out", default="outputs", help="where to look for reports (claims by kind; default: outputs)"
    )
    sm = sub.add_parser(
        "statements",
        help="the papers' statements: reproduced / in part / not tested, with their claims",
        description="Every statement of the papers that mfx tests (mfx/<family>/statements.py): its "
        "status from the claims of each experiment's latest report under OUT at one scale, its claims by "
        "kind and verdict, and what is missing (parts without a claim, paper claims without the "
        "resolution their statement asks for).",
        epilog="example:\n  mfx statements\n  mfx statements resnet --long --scale paper",
        formatter_class=raw,
    )
    sm.add_argument("family", nargs="?", choices=registry.FAMILIES, help="one family (default: all)")
    sm.add_argument("--out", default="outputs", help="where the reports are (default: outputs)")
    sm.add_argument("--scale", default="quick", choices=SCALES)
    sm.add_argument("--long", action="store_true", help="each statement's quote, place and parts")
    dc = sub.add_parser(
        "docs",
        help="write docs/statements.md and docs/claims.md from the registries and a claims.csv",
        description="Write the generated docs: statements.md (every statement: quote, place, status, "
        "parts and their claims) and claims.md (every claim: kind, statement, range, verdict, mistake, "
        "resolution), from the statements registries and one claims.csv, kept beside them as "
        "claims-quick.csv.",
        epilog="example:\n  mfx run experiment=all scale=quick && mfx docs --claims outputs/report-quick/claims.csv",
        formatter_class=raw,
    )
    dc.add_argument(
        "--claims", default="docs/claims-quick.csv", help="a claims.csv (default: docs/claims-quick.csv)"
    )
    dc.add_argument("--out", default="docs", help="the docs folder (default: docs)")
    dc.add_argument("--readme", default="README.md", help="whose figure table and headline to rewrite")
    cb = sub.add_parser(
        "calibrate",
        help="measure the dry run's cost model (seconds per unit of job size) from a finished run",
        description="Seconds per unit of job size of every experiment and scale with complete jobs under "
        "OUT (their recorded times), written into mfx's costs.json: what `mfx run --dry-run` estimates "
        "a job by where no earlier run under its own out recorded it.",
        epilog="example:\n  mfx run experiment=all scale=quick && mfx calibrate outputs",
        formatter_class=raw,
    )
    cb.add_argument("out", metavar="OUT", help="an output folder of finished sweeps")
    mt = sub.add_parser(
        "metrics",
        help="what each column and metric of an experiment's rows means",
        description="The glossary of the rows (rows.csv, table.csv): every column and every value of the "
        "metric column, one line each, per family and experiment.",
        epilog="example:\n  mfx metrics resnet_depth\n  mfx metrics            # every experiment",
        formatter_class=raw,
    )
    mt.add_argument("experiment", nargs="?", help="one experiment (default: all)")
    st = sub.add_parser(
        "status",
        help="list the sweeps under an output folder: jobs complete / incomplete, latest verdicts",
        description="Every sweep found under OUT: its jobs (complete / incomplete) and the verdicts of its "
        "latest report (claims.csv).",
        epilog="example:\n  mfx status            # the sweeps under ./outputs\n  mfx status /scratch/mfx",
        formatter_class=raw,
    )
    st.add_argument(
        "out", nargs="?", default="outputs", metavar="OUT", help="output folder (default: outputs)"
    )
    cm = sub.add_parser(
        "compare",
        help="claims of two sweeps side by side (measured ± u, verdicts)",
        description="The claims of two sweeps side by side: measured ± u and verdict in each (from each "
        "sweep's claims.csv when it is up to date, else evaluated on its jobs).",
        epilog="example:\n  mfx compare outputs/resnet_depth/quick outputs/resnet_depth/quick-1a2b3c4d",
        formatter_class=raw,
    )
    cm.add_argument("a", metavar="DIR_A", help="a sweep folder, table.csv or claims.csv")
    cm.add_argument("b", metavar="DIR_B", help="a sweep folder, table.csv or claims.csv")
    cm.add_argument(
        "--mixed",
        action="store_true",
        help="a folder holding jobs of several configurations of one experiment is one table (as collect --mixed)",
    )
    c = sub.add_parser(
        "collect",
        help="concatenate every job's rows.csv into table.csv",
        description="Concatenate every rows.csv under the given directories into one table.csv.",
        epilog="example:\n  mfx collect outputs/resnet_depth/quick   # writes outputs/resnet_depth/quick/table.csv",
        formatter_class=raw,
    )
    c.add_argument("dirs", nargs="+", metavar="DIR")
    c.add_argument("-o", "--out", help="output file (default: DIR/table.csv of the first DIR)")
    c.add_argument(
        "--mixed",
        action="store_true",
        help="allow jobs of one experiment made by different configurations (the report says so)",
    )
    for name, what in (
        ("plot", "draw every figure (PDF + PNG)"),
        ("report", "write report.md, report.html and claims.csv"),
    ):
        s = sub.add_parser(
            name,
            help=what + " of a collected table",
            description=what[0].upper()
            + what[1:]
            + " of the experiments under a folder (an output root, an experiment's folder or one sweep:"
            " each sweep collected alone, each variant its own section) or in a collected table"
            + (
                ": figures, fitted rates and a pass/fail verdict for every claim of the papers."
                if name == "report"
                else ", with fitted rates drawn and labelled."
            ),
            epilog=f"example:\n  mfx {name} outputs/resnet_phase/quick --out figs"
            + (
                "\n  mfx report outputs/resnet_phase/quick --strict   # exit 1 if a claim fails"
                "\n  mfx report outputs                                # everything: outputs/report.html"
                if name == "report"
                else ""
            ),
            formatter_class=raw,
        )
        s.add_argument(
            "table", metavar="TABLE_OR_DIR", help="a table.csv, or a directory (collected if needed)"
        )
        s.add_argument("--out", help="output directory (default: the table's directory)")
        if name == "report":
            s.add_argument(
                "--strict", action="store_true", help="exit 1 if any claim fails or is inconclusive"
            )
        s.add_argument(
            "--mixed",
            action="store_true",
            help="one table of all the jobs under DIR, even of different configurations of one "
            "experiment (default: each sweep alone, each variant its own)",
        )
    a = sub.add_parser(
        "audit",
        help="run every experiment for several seeds and count each claim's verdicts",
        description="Run experiments at one scale for each seed, evaluate every claim per seed, and print "
        "the pass / fail / inconclusive counts of each claim (also written to OUT/audit.csv).",
        epilog="example:\n  mfx audit --seeds 10 --out outputs/audit   # what `make audit` runs (seeds 1000..1009)",
        formatter_class=raw,
    )
    a.add_argument("--seeds", type=int, default=10, help="how many seeds (default 10)")
    a.add_argument(
        "--first-seed",
        type=int,
        default=1000,
        help="the first seed (default 1000: fresh seeds, on which no tolerance was tuned)",
    )
    a.add_argument("--scale", default="quick", choices=SCALES)
    a.add_argument("--experiments", default="all", help="comma-separated names, or all (default)")
    a.add_argument("--out", default="outputs/audit", help="root of the audit's sweeps")
    a.add_argument(
        "--md", help="also write the table as Markdown here, headed by its command, commit, date and machine"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line, with standard streams that can neither crash it nor hide its exit status: a
    closed or missing stdout/stderr (`mfx run >&-`) is the null device, and a reader that stops reading
    (`mfx run … | head -1`) silences the rest of the output, not the work nor its exit status."""
    for fd in (0, 1, 2):  # a closed descriptor would be reused by the next file opened, then written to
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Quiet.wrap(sys.stdout), _Quiet.wrap(sys.stderr)
    try:
        code = _main(argv)
        sys.stdout.flush()  # what is still buffered, while a closed pipe is still quietly handled
        sys.stderr.flush()
        return code
    finally:
        sys.stdout, sys.stderr = saved


class _Quiet:
    """A standard stream that never raises for its reader's sake: once the reader is gone (a closed
    pipe), the rest goes to the null device and the command goes on."""

    def __init__(self, stream):
        self._stream, self.gone = stream, False

    @classmethod
    def wrap(cls, stream):
        if isinstance(stream, cls):
            return stream
        return cls(stream if stream is not None else open(os.devnull, "w", encoding="utf-8"))

    def write(self, text):
        if not self.gone:
            try:
                return self._stream.write(text)
            except (BrokenPipeError, ValueError):  # ValueError: the stream was closed
                self._leave()
        return len(text)

    def flush(self):
        if not self.gone:
            try:
                self._stream.flush()
            except (BrokenPipeError, ValueError):
                self._leave()

    def _leave(self):
        self.gone = True
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):  # capsys has no fileno
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())  # what the stream still buffers goes nowhere, quietly
            os.close(null)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # mfx/__init__ exits at once during imports
    for stream in (sys.stdout, sys.stderr):  # an ASCII terminal (PYTHONIOENCODING=ascii) shows → as \u2192
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    try:
        if argv and argv[0] == "run":
            return _run(argv[1:])
        args = _parser().parse_args(argv)
        if args.command is None:
            _parser().print_help()
            return 0
        commands = {
            "list": _list,
            "statements": _statements,
            "docs": _docs,
            "calibrate": _calibrate,
            "metrics": _metrics,
            "status": _status,
            "collect": _collect,
            "plot": _plot,
            "report": _report,
            "compare": _compare,
            "audit": _audit,
        }
        return commands[args.command](args)
    except ConfigError as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: error: {results.printable(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if os.environ.get("MFX_DEBUG"):
            raise
        print("mfx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mfx … | head` stopped reading: nothing to say, and nothing more to write
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # one line, never a traceback (MFX_DEBUG=1 shows it)
        if os.environ.get("MFX_DEBUG"):
            raise
        hint = "" if isinstance(e, OSError) else " (MFX_DEBUG=1 shows the traceback)"
        print(f"mfx: error: {sweep.one_line(e)}{hint}", file=sys.stderr)
        return 1


# ---------------------------------------------------------------------------------------- run


def _run(args: list[str], combined: bool = True) -> int:
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
    names = _experiments(overrides)
    if printing and not names:
        return _hydra(args)
    if not names:
        raise ConfigError(
            "run: name an experiment: mfx run experiment=NAME (`mfx list` names them, `mfx run --help`)"
        )
    # Every sweep is validated before any runs: a mistake in the second writes nothing for the first.
    # A finished sweep is recognised first, without the experiments' code: resuming it loads no torch.
    plans = None if printing or dry else _finished(names, overrides)
    if plans is None:
        plans = [q for name in names for q in sweep.plans([_one(o, name) for o in overrides])]
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
    if dry:
        return _dry_run(plans)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    run_id, saved = uuid.uuid4().hex, os.environ.get(results.RUN_ID)
    os.environ[results.RUN_ID] = run_id  # jobs sign their done.json: the tally counts this run's own
    failed = 0
    estimates = [_pending_time(_job_states(p)) for p in plans] if len(plans) > 1 else []
    try:
        for i, p in enumerate(plans):
            todo = _job_states(p)
            progress = _progress(plans, i, todo, estimates) if len(plans) > 1 else ""
            failed += _run_plan(p, _args(args, p), run_id, todo, progress)
    except KeyboardInterrupt:
        total = sum(len(p.jobs) for p in plans)
        complete = sum(_tally(p, run_id)[0] + _tally(p, run_id)[1] for p in plans)
        print(
            f"interrupted: {complete} of {total} jobs done; rerun the same command to resume", file=sys.stderr
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if saved is None:
            os.environ.pop(results.RUN_ID, None)
        else:
            os.environ[results.RUN_ID] = saved
    if len(plans) > 1 and combined:
        _combined_report(plans)
    return 1 if failed else 0


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
    launch, cancelled = None, None
    if not (p.jobs[0].resume and all(t.done for t in todo)):  # a finished sweep launches nothing
        launch = runtime.launch_folder()
        known = [t.seconds for t in todo if t.seconds is not None]
        fill = statistics.median(known) if known else 1.0  # a job without an estimate weighs as a typical one
        task.costs = {h: fill if t.seconds is None else t.seconds for h, t in zip(p.job_hashes, todo)}
        # weighted by cost (jobs take 0.1 s to minutes): the bar's total is the jobs' estimated seconds
        task.bar = runtime.progress(
            total=sum(task.costs.values()),
            desc=f"{p.experiment} ({_plural(len(p.jobs), 'job')})",
            unit="s",
            leave=True,
            bar_format=BAR,
        )
        try:
            _hydra(p.hydra_args(args, launch))
        except Exception as e:  # submitit: a job SLURM cancelled or killed at its time limit
            if type(e).__name__ != "UncompletedJobError":
                raise
            cancelled = task.slurm_outcome(launch)
        finally:
            task.bar.close()
            task.bar, task.costs = None, {}
    ran, skipped, missing, elsewhere = _tally(p, run_id)
    others = f"{elsewhere} running in another process, " if elsewhere else ""
    logs = launch / ".submitit" if launch else None
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
        f"{p.experiment}/{p.scale}{p.variant}: {_plural(len(p.jobs), 'job')} ({ran} run, {skipped} skipped, "
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
    if launch and (not (missing or elsewhere) or not logs.is_dir()):
        shutil.rmtree(launch, ignore_errors=True)
    return missing + elsewhere


def _progress(plans, i: int, todo, later: list[tuple[float, int]]) -> str:
    """ "[3/12] resnet_phase/quick: 20 jobs, 5 pending ≈ 1 min; the whole run ≈ 9 min left"."""
    p = plans[i]
    here = _pending_time(todo)
    left, unknown = here[0] + sum(t for t, _ in later[i + 1 :]), here[1] + sum(n for _, n in later[i + 1 :])
    pending = sum(not t.done for t in todo)
    return (
        f"[{i + 1}/{len(plans)}] {p.experiment}/{p.scale}{p.variant}: {_plural(len(p.jobs), 'job')}, {pending} pending"
        + (f" ≈ {_duration(here[0])}" if pending and not here[1] else "")
        + f"; the whole run ≈ {_duration(left)} left"
        + (f" + {_plural(unknown, 'job')} without an estimate" if unknown else "")
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
    parts = [report.Part(s.table, s.info, _variant(s.folder)) for s in found]
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


def _dry_run(plans) -> int:
    """Each job of each sweep, done (resume skips it) or pending, with its estimated time and where
    the estimate comes from; totals."""
    pending_total, unknown, count, modelled = 0.0, 0, 0, 0
    for p in plans:
        states = _job_states(p)
        pending = [t for t in states if not t.done]
        seconds = sum(t.seconds for t in pending if t.seconds is not None)
        missing = sum(t.seconds is None for t in pending)
        pending_total, unknown, count = pending_total + seconds, unknown + missing, count + len(pending)
        modelled += sum(t.source == "model" for t in pending)
        print(
            f"{p.folder}: {_plural(len(p.jobs), 'job')} ({len(p.jobs) - len(pending)} done, {len(pending)} pending"
            + (f", ≈ {_duration(seconds)}" if pending and not missing else "")
            + (f", {missing} without an estimate" if missing else "")
            + f"), grid axes {', '.join(p.axes) or '(none)'}"
            + (f", variant of {p.experiment} ({' '.join(p.overrides)})" if p.variant else "")
        )
        for job, t in zip(p.jobs, states):
            point = ", ".join(f"{k}={OmegaConf.select(job, k)}" for k in p.axes) or "the only job"
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
        f"total: {_plural(count, 'job')} pending"
        + (f", ≈ {_duration(pending_total)}" + (f" for {known}" if unknown else "") if known else "")
        + (f"; {unknown} without an estimate (no earlier run of theirs at this scale)" if unknown else "")
        + (
            f"; {modelled} of them from the cost model (measured at quick on 2 cores: a rough guide, "
            "replaced by the jobs' own times once they ran)"
            if modelled
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
    for j in results.find_jobs(sorted((Path(p.jobs[0].out) / p.experiment).glob(f"{p.scale}*"))):
        prov = results.read_json(j / results.PROVENANCE) or {}
        if isinstance(prov.get("seconds"), (int, float)) and isinstance(prov.get("config"), dict):
            key = tuple(str(catalog.select(prov["config"], k)) for k in p.axes)
            recorded.setdefault(key, []).append(float(prov["seconds"]))
            provenances.append(prov)
    per_unit = catalog.seconds_per_unit(p.experiment, provenances)
    model = catalog.cost(p.experiment, p.scale)
    states = []
    for job, done in zip(p.jobs, _done(p)):
        here = recorded.get(tuple(str(OmegaConf.select(job, k)) for k in p.axes))
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


def _interrupt(signum, frame):
    raise KeyboardInterrupt


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


# ------------------------------------------------------------------------------- list, collect


WIDTH = 100  # `mfx list`, `mfx status` and `mfx compare` fit in 100 columns
FIGURE_LABEL = 28  # `mfx list`'s figure column: one line beside the other columns


def _fit(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _list(args) -> int:
    entries = catalog.entries()
    if args.names:
        print("\n".join(entries))
        return 0
    rows = []
    for e in entries.values():
        jobs = "/".join(str(n or "?") for n in catalog.grid_sizes(e.name).values())
        figure = e.figure if args.long else catalog.figure_label(e.figure, FIGURE_LABEL)
        rows.append(
            (e.name, PAPER_SHORT.get(e.family, e.family), figure, jobs, _kinds(Path(args.out), e.name))
        )
    records, _ = _statement_records(Path(args.out), "quick")
    head = f"{statements.headline(records)} at quick (latest reports under {args.out}/; `mfx statements`)"
    print(textwrap.fill(head, WIDTH, break_on_hyphens=False))  # never inside a path
    head = ("experiment", "paper (arXiv)", "figure", "jobs q/p", "claims p/d/x/i")
    w0, w1, w3, w4 = (max(len(r[i]) for r in [*rows, head]) for i in (0, 1, 3, 4))
    w2 = WIDTH - w0 - w1 - w3 - w4 - 8
    for r in [head, *rows]:
        figure = textwrap.wrap(r[2], w2) or [""]  # the last column, wrapped, never cut
        print(f"{r[0]:{w0}}  {r[1]:{w1}}  {r[3]:>{w3}}  {r[4]:>{w4}}  {figure[0]}".rstrip())
        for more in figure[1:]:
            print(f"{'':{WIDTH - w2}}{more}")
    reported = sum(r[4] != "—" for r in rows)
    note = (
        "jobs q/p: jobs at scale quick / paper; claims p/d/x/i: paper statements / derived / cross-checks "
        f"/ identities of the newest report under {args.out}/ ({_plural(reported, 'experiment')} reported, "
        "— none yet)"
    )
    note += "" if args.long else "; figure: its label (mfx list --long: in full)"
    print("\n".join(textwrap.wrap(note, WIDTH)))
    return 0


def _statement_records(out: Path, scale: str, families=registry.FAMILIES) -> tuple[list[dict], list[str]]:
    """The statements of `families` with their status from the latest report of each experiment."""
    names = [e.name for e in catalog.entries().values() if e.family in families]
    claims, missing = statements.newest_claims(out, names, scale)
    return statements.evaluate(claims, statements.registry(families)), missing


def _statements(args) -> int:
    families = (args.family,) if args.family else registry.FAMILIES
    records, missing = _statement_records(Path(args.out), args.scale, families)
    head = f"{statements.headline(records)} ({args.scale}, latest reports under {args.out}/)"
    print(textwrap.fill(head, WIDTH, break_on_hyphens=False))  # never inside a path
    print("\n".join(statements.lines(records, args.long, WIDTH)))
    if missing:
        note = f"not yet run at {args.scale} (their parts count as not tested): {', '.join(missing)}"
        print(textwrap.fill(note, WIDTH))
    return 0


def _calibrate(args) -> int:
    out = Path(args.out)
    if not out.is_dir():
        raise ConfigError(f"calibrate: {out} is not a folder (give the out= of finished sweeps)")
    by_sweep: dict[tuple[str, str], list[dict]] = {}
    for job in results.find_jobs([out]):
        prov = (
            results.read_json(job / results.PROVENANCE) if results.job_state(job)[0] == "complete" else None
        )
        config = (prov or {}).get("config")
        if (
            isinstance(config, dict)
            and config.get("name") in catalog.SIZE_KEYS
            and config.get("scale") in SCALES
        ):
            by_sweep.setdefault((config["name"], config["scale"]), []).append(prov)
    measured = {k: catalog.seconds_per_unit(k[0], v) for k, v in by_sweep.items()}
    if not any(measured.values()):
        raise ConfigError(f"calibrate: no complete job with a recorded time under {out}")
    table = {name: dict(scales) for name, scales in catalog.MEASURED.items()}
    for (name, scale), value in sorted(measured.items()):
        if value:
            table.setdefault(name, {})[scale] = float(f"{value:.3g}")
            print(f"{name} {scale}: {value:.3g} s per unit ({len(by_sweep[name, scale])} jobs)")
    commit, dirty = results.git_state()
    source = f"`mfx calibrate` over {out}, commit {commit[:12]}{' (dirty)' if dirty else ''}, {os.cpu_count()} cores"
    text = json.dumps({"measured": source, "seconds_per_unit": table}, indent=1, sort_keys=True) + "\n"
    results.write_bytes(catalog.COSTS, text.encode())
    print(f"wrote {catalog.COSTS}")
    return 0


def _docs(args) -> int:
    source, out = Path(args.claims), Path(args.out)
    if not source.is_file():
        raise ConfigError(f"docs: --claims {source} is not a file (a claims.csv of `mfx report`)")
    kept = out / "claims-quick.csv"
    if not kept.exists() or not os.path.samefile(source, kept):
        out.mkdir(parents=True, exist_ok=True)
        results.write_bytes(kept, source.read_bytes())
    texts = docs.render(kept, f"mfx docs --claims {kept}")
    written = [results.write_bytes(out / name, text.encode()) for name, text in texts.items()]
    readme = Path(args.readme)
    if readme.is_file():
        new = docs.readme(readme.read_text(encoding="utf-8"), docs.read_claims(kept))
        written.append(results.write_bytes(readme, new.encode()))
    print(f"wrote {', '.join(str(p) for p in written)} (claims: {kept})")
    return 0


def _metrics(args) -> int:
    """The glossary: per family its columns, per experiment its metrics (one line each, wrapped)."""
    entries = catalog.entries()
    names = [args.experiment] if args.experiment else list(entries)
    if args.experiment not in (None, *entries):
        close = difflib.get_close_matches(args.experiment, list(entries), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else " (`mfx list --names` names them)"
        raise ConfigError(f"metrics: no experiment {args.experiment!r}{hint}")
    shown = set()
    for name in names:
        columns, metrics = catalog.glossary(name)
        family = entries[name].family
        if family not in shown:
            shown.add(family)
            print(f"columns of the {family} rows ({PAPER_SHORT.get(family, family)}):")
            _glossary_lines(columns)
        print(f"metrics of {name} (the values of the metric column):")
        _glossary_lines(metrics)
    return 0


def _glossary_lines(words: dict[str, str]) -> None:
    width = max(map(len, words), default=0) + 4
    for code, text in words.items():
        lines = textwrap.wrap(text, WIDTH - width) or [""]
        print(f"  {code:{width - 2}}{lines[0]}")
        for more in lines[1:]:
            print(f"{'':{width}}{more}")


def _kinds(out: Path, name: str) -> str:
    """Claim counts by kind (paper/derived/cross-check/identity) in the newest claims.csv of an
    experiment under `out`; "—" when it has none (read with csv: `mfx list` loads no pandas)."""
    # regular files only: a FIFO named claims.csv would block the read
    reports = sorted(
        (p for p in out.glob(f"{name}/*/claims.csv") if p.is_file()), key=lambda p: p.stat().st_mtime
    )
    if not reports:
        return "—"
    with reports[-1].open(newline="") as f:
        kinds = [row.get("kind", "") for row in csv.DictReader(f) if row.get("experiment") == name]
    return "/".join(str(kinds.count(k)) for k in registry.KINDS)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _status(args) -> int:
    out = Path(args.out)
    if not out.is_dir():
        raise ConfigError(f"status: {out} is not a folder (give the out= of your sweeps)")
    sweeps = results.sweeps_under(out)
    if not sweeps:
        print(f"no sweeps under {out} (run `mfx run experiment=NAME out={out}`)")
        return 0
    rows = []
    for s in sweeps:
        jobs = f"{s['complete']}/{s['jobs'] if s['jobs'] is not None else '?'} complete"
        if s["incomplete"]:
            g = s["grid"]
            kinds = (("running", "running"), ("stopped", "failed or stopped"), ("pending", "pending"))
            why = [f"{g[k]} {w}" for k, w in kinds if g[k]]
            jobs += f", {s['incomplete']} incomplete" + (f" ({', '.join(why)})" if why else "")
        rows.append(
            (str(s["folder"].relative_to(out)), jobs, _verdicts(s["folder"]), _overrides_of(s["folder"]))
        )
    w0 = min(max(len(r[0]) for r in rows), 48)
    w1 = max(len(r[1]) for r in rows)
    partial = sum(bool(s["incomplete"]) for s in sweeps)  # the first line says when a grid is partial
    print(f"{_plural(len(sweeps), 'sweep')} under {out}" + (f" ({partial} partial)" if partial else ""))
    for r in rows:
        print(f"{_fit(r[0], w0):{w0}}  {r[1]:{w1}}  {r[2]}".rstrip())
        if r[3]:  # a variant: what makes it one, under its hash
            print(f"{'':4}variant of {r[0].split('/')[0]}: {r[3]}")
    folders = {s["folder"] for s in sweeps}
    combined = sorted(p for p in out.rglob("report.html") if p.parent not in folders)
    for p in combined:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.stat().st_mtime))
        print(f"report of several sweeps: {p} ({when})")
    return 0


def _overrides_of(folder: Path) -> str:
    """The overrides that make a sweep folder a variant ("" for an experiment's own configuration)."""
    if not _variant(folder):
        return ""
    info = results.read_json(folder / results.SWEEP) or {}
    return " ".join(info.get("overrides") or []) or "(overrides unknown: no sweep.json)"


def _verdicts(folder: Path) -> str:
    """The verdict counts of a sweep's latest report (claims.csv), or what to run to get them."""
    claims = folder / "claims.csv"
    try:
        counts = _read_claims(claims)["verdict"].value_counts()
    except (OSError, ConfigError, results.Damaged):
        return "no report yet" if not os.path.lexists(claims) else "no readable report (claims.csv)"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(claims.stat().st_mtime))
    text = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
    stale = any(
        (j / results.DONE).stat().st_mtime > claims.stat().st_mtime
        for j in results.find_jobs([folder])
        if (j / results.DONE).exists()
    )
    return f"{text} ({when}{', older than its jobs' if stale else ''})"


def _collect(args) -> int:
    out = Path(args.out) if args.out else Path(args.dirs[0]) / results.TABLE
    _table_path(out)
    table, info = results.collect(args.dirs, mixed=args.mixed)
    results.write_csv(table, out)
    results.write_json(info, out.with_suffix(".json"))
    jobs = len(results.find_jobs(args.dirs)) - info["incomplete_jobs"]
    skipped = f" ({info['incomplete_jobs']} incomplete jobs skipped)" if info["incomplete_jobs"] else ""
    for line in results.partial_lines(info):  # first: a table of part of a grid says so
        print(line)
    print(f"collected {_plural(len(table), 'row')} from {_plural(jobs, 'job')}{skipped} → {out}")
    return 0


def _table_path(out: Path) -> None:
    """`collect -o`: a CSV file name whose table and provenance (NAME.json beside it) replace no file
    mfx keeps for itself (a job's rows, a sweep's record or report) and land in no job folder."""
    if out.is_dir():
        raise ConfigError(f"--out must be a file name (got the folder {out})")
    owned = results.owned_by_mfx(out.parent)
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {str(out)!r}: {owned})")
    if out.suffix.lower() != ".csv":
        raise ConfigError(
            f"--out must name a .csv file (got {str(out)!r}): the table is CSV, its provenance goes beside it "
            "as NAME.json"
        )
    for path in (out, out.with_suffix(".json")):
        if path.name in results.ARTEFACTS:
            raise ConfigError(
                f"--out must not replace {path.name}, a file mfx writes for itself (got {str(out)!r})"
            )


# --------------------------------------------------------------------------------- plot, report


def _plot(args) -> int:
    _out_folder(args.out)
    path = Path(args.table)
    out = Path(args.out) if args.out else (path if path.is_dir() else path.parent) / "figures"
    paths = []
    found = api.sweeps(path, mixed=args.mixed, warn=_warn)
    if args.out:
        _not_another_sweep(out, found)
    for s in found:  # each sweep alone; a variant's hash in its names
        paths += report.draw(s.table, out, "" if args.mixed else _variant(s.folder))
    print(f"{_plural(len(paths), 'file')} → {out}")
    return 0


def _out_folder(out: str | None) -> None:
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise ConfigError(f"--out must be a folder (got the file {out})")
    owned = results.owned_by_mfx(Path(out)) if out is not None else ""
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {out!r}: {owned})")


def _not_another_sweep(out: Path, found) -> None:
    """A report or figures go beside their own sweeps, never into another sweep's folder (its report
    and claims would then be this one's) nor into a job folder."""
    owned = results.owned_by_mfx(out)
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {str(out)!r}: {owned})")
    mine = {Path(os.path.abspath(s.folder)) for s in found}
    if (out / results.SWEEP).exists() and Path(os.path.abspath(out)) not in mine:
        raise ConfigError(
            f"--out must not be another sweep's folder (got {str(out)!r}: its report would be replaced by this one)"
        )


def _report(args) -> int:
    _out_folder(args.out)
    path = Path(args.table)
    found = api.sweeps(path, mixed=args.mixed, warn=_warn)
    # each sweep's table beside its jobs, as `mfx collect` writes; with --out nothing is written in the sweep
    for s in found if path.is_dir() and args.out is None else []:
        results.write_csv(s.table, s.folder / results.TABLE)
        results.write_json(s.info, s.folder / results.TABLE_INFO)
    parts = [report.Part(s.table, s.info, "" if args.mixed else _variant(s.folder)) for s in found]
    out = Path(args.out) if args.out else (path if path.is_dir() else path.parent)
    _not_another_sweep(out, found)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a stopped report removes its unfinished files
    try:
        written, claims = report.write_parts(parts, out)
    finally:
        signal.signal(signal.SIGTERM, previous)
    partial = [line for p in parts for line in results.partial_lines(p.info)]
    for line in partial:  # first: verdicts on part of a grid say so
        print(line + (" (--strict: not a pass)" if args.strict else ""))
    print(
        f"{report.summary_by_kind(claims)} → {written} and {written.with_suffix('.html').name}"
        + (f" ({_plural(len(parts), 'sweep')})" if len(parts) > 1 else "")
    )
    for c in claims:
        if not c.passed:
            print(
                f"  {c.verdict.upper()} [{c.kind}] {c.experiment}: {c.statement}: measured "
                f"{c.measured:.4g} ± {c.u:.2g}, expected {c.expected}: {report.reason(c)}"
            )
    return 1 if (args.strict and (partial or not all(c.passed for c in claims))) else 0


def _variant(folder: Path) -> str:
    """A sweep folder's variant suffix ("-<hash>" of `<scale>-<hash>`), "" for any other folder."""
    scale, _, tail = folder.name.partition("-")
    return f"-{tail}" if scale in SCALES and report.VARIANT.fullmatch(f"-{tail}") else ""


def _compare(args) -> int:
    a, b = _claims_of(Path(args.a), args.mixed), _claims_of(Path(args.b), args.mixed)
    key = ["experiment", "claim"]
    both = a[key].drop_duplicates().merge(b[key].drop_duplicates(), how="outer", on=key, sort=False)
    index_a, index_b = a.drop_duplicates(key).set_index(key), b.drop_duplicates(key).set_index(key)
    rows, differ = [], 0
    for exp, claim in both.itertuples(index=False):
        ca, cb = (_claim_text(i, (exp, claim)) for i in (index_a, index_b))
        va, vb = (
            str(i.loc[(exp, claim), "verdict"]) if (exp, claim) in i.index else "" for i in (index_a, index_b)
        )
        differ += va != vb
        # a claims.csv is data: its control characters (terminal escapes) are shown, never sent
        shown = [results.printable(x) for x in (f"{exp}: {claim}", ca, cb)]
        rows.append((*shown, "≠" if va != vb else ""))
    w = 24
    wc = max(shutil.get_terminal_size((WIDTH, 24)).columns, WIDTH) - 2 * w - 8  # COLUMNS or the terminal's
    for name, path in (("A", args.a), ("B", args.b)):
        variant = _overrides_of(Path(path)) if Path(path).is_dir() else ""
        print(f"{name} = {path}" + (f" (variant: {variant})" if variant else ""))
    print(f"{'claim':{wc}}  {'A: measured ± u, verdict':{w}}  {'B: measured ± u, verdict':{w}}")
    for r in rows:
        claim = textwrap.wrap(r[0], wc) or [""]  # wrapped, never cut
        print(f"{claim[0]:{wc}}  {_fit(r[1], w):{w}}  {_fit(r[2], w):{w}}  {r[3]}".rstrip())
        for more in claim[1:]:
            print(f"  {more}")
    print(f"{_plural(len(rows), 'claim')}: {len(rows) - differ} same verdict, {differ} differ")
    return 0


def _claim_text(index: pd.DataFrame, key) -> str:
    if key not in index.index:
        return "—"
    c = index.loc[key]
    measured, u = float(c["measured"]), float(c["u"])
    value = f"{measured:.3g}" if c.get("how") == "exact" or math.isnan(u) else f"{measured:.3g} ± {u:.2g}"
    return f"{value} {c['verdict']}"


def _claims_of(path: Path, mixed: bool = False) -> pd.DataFrame:
    """The claims of a sweep: its claims.csv if up to date, else evaluated on its jobs or table."""
    if path.is_file() and path.name == "claims.csv":
        return _read_claims(path)
    if path.is_dir() and (path / "claims.csv").is_file():
        newest = max(
            (
                (j / results.DONE).stat().st_mtime
                for j in results.find_jobs([path])
                if (j / results.DONE).exists()
            ),
            default=0.0,
        )
        if (path / "claims.csv").stat().st_mtime >= newest:
            return _read_claims(path / "claims.csv")
    if path.is_dir() and results.find_jobs([path]):
        table, _ = results.collect([path], mixed=mixed)  # not written: compare only reads
    else:
        table = results.load_table(path, warn=_warn)[0]
    claims = [c for exp, _, rows in report.by_experiment(table) for c in report.claims_of(exp, rows)]
    return report.claims_frame(claims)


MAX_CLAIMS_BYTES = 64 * 2**20  # mfx writes a few hundred claims (< 1 MB): larger is not its file


def _read_claims(path: Path) -> pd.DataFrame:
    """A claims.csv, read only if it is a small regular file (never a FIFO, device or link: no hang)."""
    try:
        frame = pd.read_csv(io.BytesIO(results.read_regular(path, MAX_CLAIMS_BYTES)))
    except results.Damaged as e:
        raise ConfigError(f"{e}: not a readable claims file") from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise ConfigError(f"{path}: not a readable claims file ({str(e).splitlines()[0]})") from None
    missing = [c for c in ("experiment", "claim", "measured", "u", "verdict") if c not in frame]
    if missing:
        raise ConfigError(f"{path}: not an mfx claims file (missing column {', '.join(missing)})")
    for c in ("measured", "u"):
        if not pd.api.types.is_numeric_dtype(frame[c]):
            raise ConfigError(f"{path}: not an mfx claims file (column {c!r} holds what is not a number)")
    return frame


def _warn(text: str) -> None:
    print(f"mfx: {text}", file=sys.stderr)


def _audit(args) -> int:
    if args.seeds < 1:
        raise ConfigError(f"--seeds must be ≥ 1 (got {args.seeds})")
    _out_folder(args.out)
    names = _experiments([f"experiment={args.experiments}"])
    print(_audit_cost(args, names), flush=True)
    per_seed = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        code = _run(
            [f"experiment={','.join(names)}", f"scale={args.scale}", f"seed={seed}", f"out={args.out}"],
            combined=False,
        )
        if code == 130:
            return code
        for name in names:
            folder = next(
                p for p in sorted((Path(args.out) / name).glob(f"{args.scale}*")) if _seed_of(p) == seed
            )
            table, _, _ = results.load_table(folder, warn=_warn)
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
        f"audit: {_plural(len(names), 'experiment')} × {_plural(args.seeds, 'seed')} = {_plural(jobs, 'job')}"
        + (f", ≈ {_duration(seconds * args.seeds)}" if seconds else "")
        + (
            f"{' +' if seconds else ','} {_plural(unknown * args.seeds, 'job')} without an estimate "
            f"(no earlier run under {args.out})"
            if unknown
            else ""
        )
    )


def _seed_of(folder: Path) -> int | None:
    info = results.read_json(folder / "sweep.json") or {}
    return next((int(o.split("=", 1)[1]) for o in info.get("overrides", []) if o.startswith("seed=")), 0)
