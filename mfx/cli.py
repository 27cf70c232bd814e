"""`mfx run | list | collect | plot | report` — argument handling only.

`mfx run` validates the whole sweep before any job starts (a user's mistake ends with one line on
stderr, exit code 2 and nothing written), then rewrites sys.argv and hands it to `@hydra.main`, so
every Hydra feature (sweeps, `-m`, `--cfg job`, `--info`, `hydra/launcher=…`) works unchanged.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
import time
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mfx import experiment as registry
from mfx.experiment import SCALES, ConfigError, check

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

_sweep_bar = None  # progress over the jobs of a sweep run in this process (basic launcher)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mfx",
        description="Reproduce the figures and claims of three papers on infinitely deep and wide networks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  mfx run experiment=resnet_phase scale=quick && mfx collect outputs/resnet_phase/quick"
        " && mfx report outputs/resnet_phase/quick",
    )
    sub = p.add_subparsers(dest="command", metavar="{run,list,collect,plot,report}")
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
            s.add_argument("--strict", action="store_true", help="exit 1 if any claim fails")
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
        return {"list": _list, "collect": _collect, "plot": _plot, "report": _report}[args.command](args)
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
    printing = any(a.split("=")[0] in PRINT_FLAGS for a in args)
    overrides = _overrides(args)
    # Printing flags (--cfg, --info …) run no job: validate only what they name.
    jobs = plan(overrides) if not printing or any(o.startswith("experiment=") for o in overrides) else []
    n_jobs = 0 if printing else len(jobs)
    global _sweep_bar
    from mfx.runtime import progress

    _sweep_bar = progress(total=n_jobs, desc="jobs", unit="job") if n_jobs else None
    if os.environ.get("MFX_DEBUG"):
        os.environ["HYDRA_FULL_ERROR"] = "1"
    saved = sys.argv
    sys.argv = ["mfx", *args]
    try:
        _hydra_main()
    finally:
        sys.argv = saved
        if _sweep_bar is not None:
            _sweep_bar.close()
    return 0


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


def plan(overrides: list[str]) -> list[DictConfig]:
    """Compose and validate the config of every job of the sweep; raise ConfigError on a mistake.

    Mirrors Hydra's basic sweeper: the experiment's `hydra.sweeper.params` give the axes, and a
    command-line override of the same key (a sweep `k=a,b` or a single value) replaces that axis.
    """
    from hydra import compose, initialize_config_module
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    try:
        parsed = parser.parse_overrides(overrides)
    except HydraException as e:
        raise ConfigError(f"malformed override: {str(e).splitlines()[0]}") from None
    keys = {o.get_key_element(): o for o in parsed}
    experiments = registry.load_all()
    name = keys["experiment"].value() if "experiment" in keys else None
    if name not in experiments:
        raise ConfigError(f"experiment must be one of {', '.join(experiments)} (got {name!r})")
    if "scale" in keys and keys["scale"].value() not in SCALES:
        raise ConfigError(f"scale must be one of {', '.join(SCALES)} (got {keys['scale'].value()!r})")
    plain = [o.input_line for o in parsed if not o.is_sweep_override()]
    try:
        with initialize_config_module("mfx.conf", version_base="1.3"):
            cfg = compose("config", overrides=plain, return_hydra_config=True)
    except HydraException as e:
        raise ConfigError(_composition_message(str(e), plain)) from None
    axes: dict[str, list] = {}
    try:
        for key, values in (cfg.hydra.sweeper.params or {}).items():
            axes[key] = _values(parser, f"{key}={values}")
    except OmegaConfBaseException as e:
        raise ConfigError(f"bad sweep grid in experiment {name}: {str(e).splitlines()[0]}") from None
    for o in parsed:
        key = o.get_key_element()
        if o.is_sweep_override():
            if not o.is_discrete_sweep():
                raise ConfigError(f"{key}: only comma-separated sweeps (a,b,c) are supported")
            axes[key] = list(o.sweep_iterator())
        elif key in axes:
            axes[key] = [o.value()]
    base = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    for key in axes:
        if OmegaConf.select(base, key, default="<missing>") == "<missing>":
            raise ConfigError(f"unknown config key {key!r}" + _siblings(base, key))
    exp = experiments[name]
    jobs = []
    for values in itertools.product(*axes.values()):
        job = base.copy()
        for key, value in zip(axes, values):
            OmegaConf.update(job, key, value, force_add=False)
        validate(job, exp)
        jobs.append(job)
    return jobs


def _values(parser, line: str) -> list:
    (o,) = parser.parse_overrides([line])
    return list(o.sweep_iterator()) if o.is_sweep_override() else [o.value()]


def _siblings(cfg: DictConfig, key: str) -> str:
    parent = key.rsplit(".", 1)[0] if "." in key else ""
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if isinstance(node, DictConfig):
        return f"; {parent or 'the config'} has: {', '.join(map(str, node.keys()))}"
    return ""


def _composition_message(text: str, plain: list[str]) -> str:
    """One line for a failed composition; for an unknown key, list the keys of its parent."""
    from hydra import compose, initialize_config_module

    m = re.search(r"Could not override '([^']+)'", text)
    if not m:
        return text.strip().splitlines()[0]
    key = m.group(1)
    rest = [o for o in plain if o.split("=", 1)[0].lstrip("+~") != key]
    from hydra.errors import HydraException

    try:
        with initialize_config_module("mfx.conf", version_base="1.3"):
            return f"unknown config key {key!r}" + _siblings(compose("config", overrides=rest), key)
    except HydraException:  # another override is bad too: name this one without the siblings
        return f"unknown config key {key!r}"


def validate(cfg: DictConfig, exp) -> None:
    """Checks shared by every job, then the experiment's own."""
    check(cfg, "runtime.threads", int, low=1)
    check(cfg, "runtime.device", str, choices=("cpu", "cuda", "auto"))
    check(cfg, "runtime.dtype", str, choices=("float32", "float64"))
    check(cfg, "resume", bool)
    check(cfg, "out", str)
    try:
        exp.validate(cfg)
    except (OmegaConfBaseException, TypeError, ValueError) as e:
        if isinstance(e, ConfigError):
            raise
        # an interpolation or type problem in a user's value
        raise ConfigError(f"invalid config for {exp.name}: {str(e).splitlines()[0]}") from None


def _task(cfg: DictConfig) -> None:
    """One job: run the experiment at one grid point, write rows.csv and provenance atomically."""
    from hydra.core.hydra_config import HydraConfig

    from mfx import results, runtime

    job_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        if cfg.resume and (job_dir / results.ROWS).exists():
            return
        exp = registry.get(cfg.name)
        cfg = cfg.copy()
        OmegaConf.update(cfg, "cache_dir", str(Path(cfg.cache_dir).absolute()))
        rt = runtime.setup(**cfg.runtime)
        start = time.perf_counter()
        rows = results.to_frame(exp.run(cfg), exp.name, cfg.scale)
        results.write_csv(rows, job_dir / results.ROWS)
        results.write_provenance(job_dir, cfg, str(rt.device), time.perf_counter() - start)
    finally:
        if _sweep_bar is not None:
            _sweep_bar.update()


def _hydra_main() -> None:
    import hydra

    hydra.main(config_path="pkg://mfx.conf", config_name="config", version_base="1.3")(_task)()


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
    from mfx import results

    table = results.collect(args.dirs)
    out = Path(args.out) if args.out else Path(args.dirs[0]) / results.TABLE
    results.write_csv(table, out)
    jobs = len(results.find_rows(args.dirs))
    print(f"collected {len(table)} rows from {jobs} jobs → {out}")
    return 0


# --------------------------------------------------------------------------------- plot, report


def _plot(args) -> int:
    from mfx import report, results

    table, home = results.load_table(args.table)
    out = Path(args.out) if args.out else home / "figures"
    paths = report.draw(table, out)
    print(f"{len(paths)} files → {out}")
    return 0


def _report(args) -> int:
    from mfx import report, results

    table, home = results.load_table(args.table)
    out = Path(args.out) if args.out else home
    path, claims = report.write(table, out)
    failed = [c for c in claims if not c.passed]
    print(f"{len(claims) - len(failed)}/{len(claims)} claims pass → {path}")
    for c in failed:
        print(f"  FAIL {c.experiment}: {c.statement}: measured {c.measured:.4g}, expected {c.expected}")
    return 1 if (args.strict and failed) else 0
