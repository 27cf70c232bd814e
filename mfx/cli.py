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
import difflib
import math
import os
import shutil
import signal
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

import mfx
from mfx import experiment as registry
from mfx import locks, report, results, runtime, sweep
from mfx.experiment import SCALES, VERDICTS, ConfigError

EPILOG_RUN = """\
usage: mfx run experiment=NAME [scale=quick|paper] [KEY=VALUE ...] [hydra flags]

Run one figure's sweep (a Hydra multirun; one job per grid point, seeds batched inside each job).
Each job writes rows.csv under OUT/NAME/SCALE/<overrides>/; rerunning skips finished jobs.

examples:
  mfx run experiment=resnet_phase scale=quick
  mfx run experiment=resnet_depth model.M=1,4 out=/scratch/mfx      # replace one axis of the grid
  mfx run experiment=quad_curves hydra/launcher=joblib               # local processes
  mfx run experiment=resnet_width scale=paper hydra/launcher=submitit_slurm \\
      hydra.launcher.partition=gpu hydra.launcher.timeout_min=60
  mfx run experiment=resnet_depth --cfg job                          # print the first job's config
  mfx run experiment=resnet_depth --dry-run                          # list the jobs, run nothing
hydra flags: --cfg job|hydra|all, --info, --hydra-help, -m (implied: every experiment is a sweep)
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
    sub = p.add_subparsers(dest="command", metavar="{run,list,status,collect,plot,report,compare,audit}")
    sub.add_parser("run", help="run an experiment's sweep (Hydra overrides follow)", add_help=False)
    raw = argparse.RawDescriptionHelpFormatter
    ls = sub.add_parser(
        "list",
        help="list the registered experiments",
        description="Every registered experiment: name, paper (arXiv id), figure, jobs at scale quick / paper.",
        epilog="example:\n  mfx list",
        formatter_class=raw,
    )
    ls.add_argument("--names", action="store_true", help="print only the names, one per line")
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
    for name, what in (("plot", "draw every figure (PDF + PNG)"), ("report", "write report.md with claims")):
        s = sub.add_parser(
            name,
            help=what + " of a collected table",
            description=what[0].upper()
            + what[1:]
            + " of the experiments in a collected table"
            + (
                ": figures, fitted rates and a pass/fail verdict for every claim of the papers."
                if name == "report"
                else ", with fitted rates drawn and labelled."
            ),
            epilog=f"example:\n  mfx {name} outputs/resnet_phase/quick --out figs"
            + (
                "\n  mfx report outputs/resnet_phase/quick --strict   # exit 1 if a claim fails"
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
    return p


def main(argv: list[str] | None = None) -> int:
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
    except Exception as e:  # one line, never a traceback (MFX_DEBUG=1 shows it)
        if os.environ.get("MFX_DEBUG"):
            raise
        hint = "" if isinstance(e, OSError) else " (MFX_DEBUG=1 shows the traceback)"
        print(f"mfx: error: {sweep.one_line(e)}{hint}", file=sys.stderr)
        return 1


# ---------------------------------------------------------------------------------------- run


def _run(args: list[str]) -> int:
    if any(a in ("-h", "--help") for a in args):
        print(EPILOG_RUN)
        return 0
    if any(a.split("=")[0] in REFUSED_FLAGS for a in args):
        raise ConfigError(
            "--experimental-rerun is refused: it unpickles a file (rerun the same command instead)"
        )
    printing = any(a.split("=")[0] in PRINT_FLAGS for a in args)
    dry = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    overrides = _overrides(args)
    _refuse_words(overrides)
    names = _experiments(overrides)
    if printing and not names:
        return _hydra(args)
    # Every sweep is validated before any runs: a mistake in the second writes nothing for the first.
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
        for p in plans:
            print(
                f"{p.folder}: {len(p.jobs)} jobs, grid axes {', '.join(p.axes) or '(none)'}"
                + (f", variant of {p.experiment} ({' '.join(p.overrides)})" if p.variant else "")
            )
            for job in p.jobs:
                print("  " + ", ".join(f"{k}={OmegaConf.select(job, k)}" for k in p.axes))
        return 0
    previous = signal.signal(signal.SIGTERM, _interrupt)
    run_id, saved = uuid.uuid4().hex, os.environ.get(results.RUN_ID)
    os.environ[results.RUN_ID] = run_id  # jobs sign their done.json: the tally counts this run's own
    failed = 0
    try:
        for p in plans:
            failed += _run_plan(p, _args(args, p), run_id)
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
    return 1 if failed else 0


def _args(args: list[str], p) -> list[str]:
    return [_one(a, p.experiment) for a in args]


def _run_plan(p, args: list[str], run_id: str) -> int:
    """Run one sweep; print its tally (and, if a job could not run, the way out); return the number
    of jobs not complete."""
    out = Path(p.jobs[0].out)
    results.make_folder(p.folder, out)
    results.remove_stale_temporaries(p.folder)
    results.write_json(
        {
            "experiment": p.experiment,
            "scale": p.scale,
            "sweep_hash": p.sweep_hash,
            "axes": p.axes,
            "overrides": p.overrides,
            "jobs": len(p.jobs),
        },
        p.folder / "sweep.json",
        out,
    )
    launch = runtime.launch_folder()
    sweep.bar = runtime.progress(total=len(p.jobs), desc=f"{p.experiment} jobs", unit="job", leave=True)
    cancelled = None
    try:
        _hydra(p.hydra_args(args, launch))
    except Exception as e:  # submitit: a job SLURM cancelled or killed at its time limit
        if type(e).__name__ != "UncompletedJobError":
            raise
        cancelled = sweep.slurm_outcome(launch)
    finally:
        sweep.bar.close()
        sweep.bar = None
    ran, skipped, missing, elsewhere = _tally(p, run_id)
    others = f"{elsewhere} running in another process, " if elsewhere else ""
    logs = launch / ".submitit"
    if cancelled is not None:
        then = f"SLURM cancelled {missing + elsewhere} of {len(p.jobs)} jobs; {ran + skipped} done{cancelled}"
    elif elsewhere:
        holders = "; ".join(sorted({locks.describe(j) for j in p.held_jobs()}))
        then = f"{elsewhere} being computed by another run ({holders[:160]}): wait for it"
    elif missing:
        then = f"{missing} failed" + (f" (launcher logs: {logs})" if logs.is_dir() else "")
    else:
        then = ""
    tally = f"{p.experiment}/{p.scale}{p.variant}: {len(p.jobs)} jobs ({ran} run, {skipped} skipped, "
    tally += f"{others}{missing} failed) → {p.folder}"
    if cancelled is not None:  # the one line that ends a sweep SLURM cancelled
        print(tally)
        print(f"mfx: {then}; rerun the same command to resume", file=sys.stderr)
    else:
        print(
            f"{tally}; "
            + (f"{then}; rerun the same command to resume" if then else f"next: mfx report {p.folder}")
        )
    if not (missing or elsewhere) or not logs.is_dir():
        shutil.rmtree(launch, ignore_errors=True)
    return missing + elsewhere


REFUSED_FLAGS = {"--experimental-rerun"}


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _hydra(argv: list[str]) -> int:
    # Hydra re-raises instead of printing its own multi-line report: mfx.cli.main makes it one line.
    saved, full_error = sys.argv, os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"
    sys.argv = ["mfx", *argv]
    try:
        sweep.hydra_main()
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
    if value == "all":  # the papers' experiments (not a test-only one registered in-process)
        return [n for n, e in registry.load_all().items() if e.family in registry.FAMILIES]
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


def _fit(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _list(args) -> int:
    experiments = registry.load_all()
    if args.names:
        print("\n".join(experiments))
        return 0
    rows = []
    for e in experiments.values():
        jobs = "/".join(str(n or "?") for n in sweep.grid_sizes(e.name).values())
        rows.append((e.name, PAPER_SHORT.get(e.family, e.family), e.figure, jobs))
    head = ("experiment", "paper (arXiv)", "figure", "jobs quick/paper")
    w0, w1, w3 = (max(len(r[i]) for r in [*rows, head]) for i in (0, 1, 3))
    w2 = WIDTH - w0 - w1 - w3 - 6
    for r in [head, *rows]:
        print(f"{r[0]:{w0}}  {r[1]:{w1}}  {_fit(r[2], w2):{w2}}  {r[3]:>{w3}}".rstrip())
    return 0


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
            jobs += f", {s['incomplete']} incomplete"
        rows.append((str(s["folder"].relative_to(out)), jobs, _verdicts(s["folder"])))
    w0 = min(max(len(r[0]) for r in rows), 48)
    w1 = max(len(r[1]) for r in rows)
    print(f"{len(sweeps)} sweeps under {out}")
    for r in rows:
        print(f"{_fit(r[0], w0):{w0}}  {r[1]:{w1}}  {r[2]}".rstrip())
    return 0


def _verdicts(folder: Path) -> str:
    """The verdict counts of a sweep's latest report (claims.csv), or what to run to get them."""
    claims = folder / "claims.csv"
    try:
        frame = pd.read_csv(claims)
        counts = frame["verdict"].value_counts()
    except (OSError, ValueError, KeyError, pd.errors.ParserError):
        return "no report yet"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(claims.stat().st_mtime))
    text = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
    stale = any(
        (j / results.DONE).stat().st_mtime > claims.stat().st_mtime
        for j in results.find_jobs([folder])
        if (j / results.DONE).exists()
    )
    return f"{text} ({when}{', older than its jobs' if stale else ''})"


def _collect(args) -> int:
    table, info = results.collect(args.dirs, mixed=args.mixed)
    out = Path(args.out) if args.out else Path(args.dirs[0]) / results.TABLE
    if out.exists() and out.is_dir():
        raise ConfigError(f"--out must be a file name (got the folder {out})")
    results.write_csv(table, out)
    results.write_json(info, out.with_suffix(".json"))
    jobs = len(results.find_jobs(args.dirs)) - info["incomplete_jobs"]
    skipped = f" ({info['incomplete_jobs']} incomplete jobs skipped)" if info["incomplete_jobs"] else ""
    print(f"collected {len(table)} rows from {jobs} jobs{skipped} → {out}")
    return 0


# --------------------------------------------------------------------------------- plot, report


def _plot(args) -> int:
    _out_folder(args.out)
    table, _, home = results.load_table(args.table, warn=_warn, write=args.out is None)
    out = Path(args.out) if args.out else home / "figures"
    paths = report.draw(table, out)
    print(f"{len(paths)} files → {out}")
    return 0


def _out_folder(out: str | None) -> None:
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise ConfigError(f"--out must be a folder (got the file {out})")


def _report(args) -> int:
    _out_folder(args.out)
    table, info, home = results.load_table(args.table, warn=_warn, write=args.out is None)
    out = Path(args.out) if args.out else home
    path, claims = report.write(table, info, out)
    print(f"{report.summary_by_kind(claims)} → {path}")
    for c in claims:
        if not c.passed:
            print(
                f"  {c.verdict.upper()} [{report.kind_label(c)}] {c.experiment}: {c.statement}: measured "
                f"{c.measured:.4g} ± {c.u:.2g}, expected {c.expected}"
                + (f" ({c.detail})" if c.detail else "")
            )
    return 1 if (args.strict and not all(c.passed for c in claims)) else 0


def _compare(args) -> int:
    a, b = _claims_of(Path(args.a)), _claims_of(Path(args.b))
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
        rows.append((f"{exp}: {claim}", ca, cb, "≠" if va != vb else ""))
    w = 24
    wc = WIDTH - 2 * w - 8
    print(f"A = {args.a}\nB = {args.b}")
    print(f"{'claim':{wc}}  {'A: measured ± u, verdict':{w}}  {'B: measured ± u, verdict':{w}}")
    for r in rows:
        print(f"{_fit(r[0], wc):{wc}}  {_fit(r[1], w):{w}}  {_fit(r[2], w):{w}}  {r[3]}".rstrip())
    print(f"{len(rows)} claims: {len(rows) - differ} same verdict, {differ} differ")
    return 0


def _claim_text(index: pd.DataFrame, key) -> str:
    if key not in index.index:
        return "—"
    c = index.loc[key]
    measured, u = float(c["measured"]), float(c["u"])
    value = f"{measured:.3g}" if c.get("how") == "exact" or math.isnan(u) else f"{measured:.3g} ± {u:.2g}"
    return f"{value} {c['verdict']}"


def _claims_of(path: Path) -> pd.DataFrame:
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
        table, _ = results.collect([path])  # not written: compare only reads
    else:
        table = results.load_table(path, warn=_warn)[0]
    claims = [c for exp, _, rows in report.by_experiment(table) for c in report.claims_of(exp, rows)]
    return report.claims_frame(claims)


def _read_claims(path: Path) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise ConfigError(f"{path}: not a readable claims file ({str(e).splitlines()[0]})") from None
    missing = [c for c in ("experiment", "claim", "measured", "u", "verdict") if c not in frame]
    if missing:
        raise ConfigError(f"{path}: not an mfx claims file (missing column {', '.join(missing)})")
    return frame


def _warn(text: str) -> None:
    print(f"mfx: {text}", file=sys.stderr)


def _audit(args) -> int:
    if args.seeds < 1:
        raise ConfigError(f"--seeds must be ≥ 1 (got {args.seeds})")
    names = _experiments([f"experiment={args.experiments}"])
    per_seed = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        code = _run(
            [f"experiment={','.join(names)}", f"scale={args.scale}", f"seed={seed}", f"out={args.out}"]
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
    print(report.audit_markdown(counts, args.scale))
    return 0


def _seed_of(folder: Path) -> int | None:
    info = results.read_json(folder / "sweep.json") or {}
    return next((int(o.split("=", 1)[1]) for o in info.get("overrides", []) if o.startswith("seed=")), 0)
