"""`mfx run | list | collect | plot | report` — argument handling only.

`mfx run` validates the whole sweep before any job starts (`mfx.sweep.plan`: a user's mistake ends
with one line on stderr, exit code 2 and nothing written), then rewrites sys.argv and hands it to
`@hydra.main`, so every Hydra feature (sweeps, `-m`, `--cfg job`, `--info`, `hydra/launcher=…`)
works unchanged.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

from mfx import experiment as registry
from mfx import report, results, runtime, sweep
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
  mfx run experiment=resnet_depth --cfg job                          # print a job's config
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mfx",
        description="Reproduce the figures and claims of three papers on infinitely deep and wide networks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  mfx run experiment=resnet_phase scale=quick && mfx collect outputs/resnet_phase/quick"
        " && mfx report outputs/resnet_phase/quick",
    )
    sub = p.add_subparsers(dest="command", metavar="{run,list,collect,plot,report,audit}")
    sub.add_parser("run", help="run an experiment's sweep (Hydra overrides follow)", add_help=False)
    raw = argparse.RawDescriptionHelpFormatter
    ls = sub.add_parser(
        "list",
        help="list the registered experiments",
        description="Every registered experiment: name, family, paper figure, description.",
        epilog="example:\n  mfx list",
        formatter_class=raw,
    )
    ls.add_argument("--names", action="store_true", help="print only the names, one per line")
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
        epilog="example:\n  mfx audit --seeds 10 --out outputs/audit   # what `make audit` runs",
        formatter_class=raw,
    )
    a.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    a.add_argument("--scale", default="quick", choices=SCALES)
    a.add_argument("--experiments", default="all", help="comma-separated names, or all (default)")
    a.add_argument("--out", default="outputs/audit", help="root of the audit's sweeps")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "run":
            return _run(argv[1:])
        args = _parser().parse_args(argv)
        if args.command is None:
            _parser().print_help()
            return 0
        commands = {"list": _list, "collect": _collect, "plot": _plot, "report": _report, "audit": _audit}
        return commands[args.command](args)
    except ConfigError as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: error: {e}", file=sys.stderr)
        return 2


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
    names = _experiments(overrides)
    if printing and not names:
        return _hydra(args)
    # Every sweep is validated before any runs: a mistake in the second writes nothing for the first.
    plans = [sweep.plan([_one(o, name) for o in overrides]) for name in names]
    if printing:
        return max(_hydra(p.hydra_overrides() + [_one(a, p.experiment) for a in args]) for p in plans)
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
    done = failed = 0
    try:
        for p in plans:
            start = time.time()
            results.write_json(
                {
                    "experiment": p.experiment,
                    "scale": p.scale,
                    "sweep_hash": p.sweep_hash,
                    "axes": p.axes,
                    "overrides": p.overrides,
                },
                p.folder / "sweep.json",
            )
            sweep.bar = runtime.progress(
                total=len(p.jobs), desc=f"{p.experiment} jobs", unit="job", leave=True
            )
            try:
                _hydra(p.hydra_overrides() + [_one(a, p.experiment) for a in args])
            finally:
                sweep.bar.close()
                sweep.bar = None
            ran, skipped, missing = _tally(p, start)
            done, failed = done + ran + skipped, failed + missing
            print(
                f"{p.experiment}/{p.scale}{p.variant}: {len(p.jobs)} jobs ({ran} run, {skipped} skipped, "
                f"{missing} failed) → {p.folder}; next: mfx report {p.folder}"
            )
    except KeyboardInterrupt:
        total = sum(len(p.jobs) for p in plans)
        complete = sum(_tally(p, time.time())[1] for p in plans)
        print(
            f"interrupted: {complete} of {total} jobs done; rerun the same command to resume", file=sys.stderr
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 1 if failed else 0


REFUSED_FLAGS = {"--experimental-rerun"}


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _hydra(argv: list[str]) -> int:
    if os.environ.get("MFX_DEBUG"):
        os.environ["HYDRA_FULL_ERROR"] = "1"
    saved = sys.argv
    sys.argv = ["mfx", *argv]
    try:
        sweep.hydra_main()
    finally:
        sys.argv = saved
    return 0


def _experiments(overrides: list[str]) -> list[str]:
    """The experiments named by `experiment=` (one, `a,b`, or `all`); [] when none is named."""
    value = next((o.split("=", 1)[1] for o in reversed(overrides) if o.startswith("experiment=")), None)
    if value is None:
        return []
    if value == "all":
        return list(registry.load_all())
    return [v.strip() for v in value.split(",")]


def _one(override: str, name: str) -> str:
    return f"experiment={name}" if override.startswith("experiment=") else override


def _tally(p, since: float) -> tuple[int, int, int]:
    """(run, skipped, missing) jobs of a plan: complete since `since`, complete before, not complete."""
    ran = skipped = 0
    for job in results.find_jobs([p.folder]):
        state, done = results.job_state(job)
        if state == "complete" and done.get("sweep_hash") == p.sweep_hash:
            if (job / results.DONE).stat().st_mtime >= since:
                ran += 1
            else:
                skipped += 1
    return ran, skipped, max(len(p.jobs) - ran - skipped, 0)


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


def _list(args) -> int:
    experiments = registry.load_all()
    if args.names:
        print("\n".join(experiments))
        return 0
    rows = [(e.name, e.family, e.figure, e.description) for e in experiments.values()]
    widths = [max(len(r[i]) for r in rows + [("experiment", "family", "figure", "")]) for i in range(3)]
    print(f"{'experiment':{widths[0]}}  {'family':{widths[1]}}  {'figure':{widths[2]}}  description")
    for r in rows:
        print(f"{r[0]:{widths[0]}}  {r[1]:{widths[1]}}  {r[2]:{widths[2]}}  {r[3]}")
    return 0


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
    table, _, home = results.load_table(args.table, warn=_warn)
    out = Path(args.out) if args.out else home / "figures"
    paths = report.draw(table, out)
    print(f"{len(paths)} files → {out}")
    return 0


def _report(args) -> int:
    table, info, home = results.load_table(args.table, warn=_warn)
    out = Path(args.out) if args.out else home
    path, claims = report.write(table, info, out)
    counts = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
    print(
        f"{counts['pass']} pass, {counts['fail']} fail, {counts['inconclusive']} inconclusive "
        f"of {len(claims)} claims → {path}"
    )
    for c in claims:
        if not c.passed:
            print(
                f"  {c.verdict.upper()} {c.experiment}: {c.statement}: measured {c.measured:.4g} ± {c.u:.2g}, "
                f"expected {c.expected}"
            )
    return 1 if (args.strict and not all(c.passed for c in claims)) else 0


def _warn(text: str) -> None:
    print(f"mfx: {text}", file=sys.stderr)


def _audit(args) -> int:
    if args.seeds < 1:
        raise ConfigError(f"--seeds must be ≥ 1 (got {args.seeds})")
    names = _experiments([f"experiment={args.experiments}"])
    per_seed = []
    for seed in range(args.seeds):
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
