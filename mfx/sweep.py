"""A sweep: compose and validate every job's config before anything runs, then run the jobs.

`plan(overrides)` mirrors Hydra's basic sweeper to validate the whole grid up front (a user's
mistake ends with one line and nothing written); `task(cfg)` is the Hydra task function of one
job.  Launchers (joblib, submitit) pickle `task` by reference, so a job process imports this
module and the experiments only — never matplotlib.
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import hydra
import torch
from hydra import compose, initialize_config_module
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mfx import experiment as registry
from mfx import locks, results, runtime
from mfx.experiment import SCALES, ConfigError, check

bar = None  # progress over the jobs of a sweep run in this process (basic launcher); set by mfx.cli


@dataclass
class Plan:
    """A validated sweep: its jobs, grid axes, configuration hash and folder."""

    experiment: str
    scale: str
    jobs: list[DictConfig]
    axes: list[str]
    sweep_hash: str
    variant: str  # "" for the experiment's own configuration, else "-<sweep_hash>"
    overrides: list[str]  # the non-grid overrides that make the variant

    @property
    def folder(self) -> Path:
        return Path(self.jobs[0].out) / self.experiment / f"{self.scale}{self.variant}"

    def hydra_overrides(self) -> list[str]:
        """What `mfx run` adds for Hydra: the sweep's identity, folder and job-folder names."""
        non_grid = sorted({o.split("=", 1)[0].lstrip("+~") for o in self.overrides} - set(self.axes))
        exclude = [*EXCLUDE_FROM_JOB_DIR, *non_grid]
        return [
            f"sweep_hash='{self.sweep_hash}'",  # quoted: an all-digit hash must stay a string
            f"variant={self.variant!r}" if self.variant else "variant=''",
            f"hydra.job.config.override_dirname.exclude_keys=[{','.join(exclude)}]",
        ]


# Job folders are named by the grid axes only; everything else is the sweep folder's identity.
EXCLUDE_FROM_JOB_DIR = (
    "experiment",
    "scale",
    "resume",
    "out",
    "cache_dir",
    "hydra/launcher",
    "runtime.threads",
    "runtime.device",
    "sweep_hash",
    "variant",
    "seed",
)


def plan(overrides: list[str]) -> Plan:
    """Compose and validate the config of every job of the sweep; raise ConfigError on a mistake.

    Mirrors Hydra's basic sweeper: the experiment's `hydra.sweeper.params` give the axes, and a
    command-line override of the same key (a sweep `k=a,b` or a single value) replaces that axis.
    The sweep's identity is its configuration without the axes: when it differs from the
    experiment's own (e.g. `model.K=20`), the sweep goes to the folder `<scale>-<hash>`.
    """
    parser = OverridesParser.create()
    try:
        parsed = parser.parse_overrides(overrides)
    except HydraException as e:
        raise ConfigError(f"malformed override: {str(e).splitlines()[0]}") from None
    keys = {o.get_key_element(): o for o in parsed}
    experiments = registry.load_all()
    if "experiment" in keys and keys["experiment"].is_sweep_override():
        raise ConfigError(
            "experiment: give one name, a,b or all (mfx runs each experiment's sweep in turn; "
            f"got {keys['experiment'].input_line!r})"
        )
    name = keys["experiment"].value() if "experiment" in keys else None
    if name not in experiments:
        raise ConfigError(
            f"experiment must be one of {', '.join(experiments)} (got {name!r})"
            + did_you_mean(name, experiments)
        )
    if "scale" in keys and keys["scale"].value() not in SCALES:
        raise ConfigError(f"scale must be one of {', '.join(SCALES)} (got {keys['scale'].value()!r})")
    plain = [o.input_line for o in parsed if not o.is_sweep_override()]
    _refuse_new_keys(parsed, plain)
    cfg = _compose(plain)
    axes: dict[str, list] = {}
    try:
        for key, values in (cfg.hydra.sweeper.params or {}).items():
            axes[key] = _values(parser, f"{key}={values}")
    except OmegaConfBaseException as e:
        raise ConfigError(f"bad sweep grid in experiment {name}: {str(e).splitlines()[0]}") from None
    for o in parsed:
        key = o.get_key_element()
        if o.is_sweep_override():
            if not o.is_discrete_sweep() or o.value_type.name == "GLOB_CHOICE_SWEEP":
                raise ConfigError(
                    f"{key}: only comma-separated sweeps (a,b,c) are supported (got {o.input_line!r})"
                )
            if key == "experiment":
                raise ConfigError("experiment: run one experiment per sweep (mfx runs a,b or all in turn)")
            axes[key] = list(o.sweep_iterator())
        elif key in axes:
            axes[key] = [o.value()]
    base = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    for key in axes:
        if OmegaConf.select(base, key, default="<missing>") == "<missing>":
            raise ConfigError(f"unknown config key {key!r}" + _siblings(base, key) + _close_key(base, key))
    exp = experiments[name]
    jobs = []
    for values in itertools.product(*axes.values()):
        job = base.copy()
        for key, value in zip(axes, values):
            OmegaConf.update(job, key, value, force_add=False)
        validate(job, exp)
        jobs.append(job)
    _check_resources(jobs, exp)
    for out in sorted({str(j.out) for j in jobs}):
        _probe_out(Path(out))
    # The experiment's own configuration: the same command without the non-grid overrides.
    kept = [
        o
        for o in plain
        if o.split("=", 1)[0].lstrip("+~") in ("experiment", "scale", *results.VOLATILE)
        or o.split("=", 1)[0] == "hydra/launcher"
        or o.startswith("hydra.")
    ]
    sweep_hash = results.config_hash(base, drop=axes)
    own = results.config_hash(_compose(kept), drop=axes)
    variant = "" if sweep_hash == own else f"-{sweep_hash[:8]}"
    user = [
        o.input_line
        for o in parsed
        if o.get_key_element() not in ("experiment", "scale", *results.VOLATILE)
        and not o.get_key_element().startswith("hydra")
    ]
    return Plan(name, base.scale, jobs, list(axes), sweep_hash, variant, user)


def grid_sizes(name: str) -> dict[str, int | None]:
    """The number of jobs of an experiment's own sweep at each scale (None if it cannot be composed)."""
    sizes: dict[str, int | None] = dict.fromkeys(SCALES)
    try:
        cfg = _compose([f"experiment={name}"])
    except ConfigError:
        return sizes
    parser = OverridesParser.create()
    for scale in SCALES:
        try:
            OmegaConf.update(cfg, "scale", scale)
            size = 1
            for key, values in (cfg.hydra.sweeper.params or {}).items():
                size *= len(_values(parser, f"{key}={values}"))
            sizes[scale] = size
        except (OmegaConfBaseException, HydraException):
            pass
    return sizes


def _compose(overrides: list[str]) -> DictConfig:
    try:
        with initialize_config_module("mfx.conf", version_base="1.3"):
            return compose("config", overrides=overrides, return_hydra_config=True)
    except HydraException as e:
        raise ConfigError(_composition_message(str(e), overrides)) from None


def _values(parser, line: str) -> list:
    (o,) = parser.parse_overrides([line])
    return list(o.sweep_iterator()) if o.is_sweep_override() else [o.value()]


def did_you_mean(word, candidates) -> str:
    """ "; did you mean 'x'?" for the closest candidate, or ""."""
    close = difflib.get_close_matches(str(word), [str(c) for c in candidates], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def config_keys(cfg: DictConfig, prefix: str = "") -> list[str]:
    """Every dotted key of a config (nodes and leaves), without `hydra`."""
    keys = []
    for k in cfg:
        if k == "hydra":
            continue
        path = f"{prefix}{k}"
        keys.append(path)
        node = cfg._get_node(k)
        if isinstance(node, DictConfig):
            keys += config_keys(node, path + ".")
    return keys


def _close_key(cfg: DictConfig, key: str) -> str:
    """A close key: among the siblings when the parent exists (`model.LL` → `model.L`), else among all."""
    parent, _, leaf = key.rpartition(".")
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if parent and isinstance(node, DictConfig):
        close = difflib.get_close_matches(leaf, [str(k) for k in node], n=1, cutoff=0.6)
        return f"; did you mean {parent + '.' + close[0]!r}?" if close else ""
    return did_you_mean(key, config_keys(cfg))


def _refuse_new_keys(parsed, plain: list[str]) -> None:
    """`+key=v` / `++key=v` may not add a key the config does not have (a typo would go unnoticed)."""
    adds = [o for o in parsed if (o.is_add() or o.is_force_add()) and "/" not in o.key_or_group]
    if not adds:
        return
    lines = {o.input_line for o in adds}
    base = _compose([o for o in plain if o not in lines])
    for o in adds:
        key = o.key_or_group
        if OmegaConf.select(base, key, default="<missing>") == "<missing>":
            raise ConfigError(
                f"unknown config key {key!r} (mfx does not add keys: {o.input_line})"
                + _siblings(base, key)
                + _close_key(base, key)
            )


def _siblings(cfg: DictConfig, key: str) -> str:
    parent = key.rsplit(".", 1)[0] if "." in key else ""
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if isinstance(node, DictConfig):
        return f"; {parent or 'the config'} has: {', '.join(map(str, node.keys()))}"
    return ""


def _composition_message(text: str, plain: list[str]) -> str:
    """One line for a failed composition; for an unknown key, list the keys of its parent."""
    m = re.search(r"Could not override '([^']+)'", text)
    if not m:
        return text.strip().splitlines()[0]
    key = m.group(1)
    rest = [o for o in plain if o.split("=", 1)[0].lstrip("+~") != key]
    try:
        with initialize_config_module("mfx.conf", version_base="1.3"):
            cfg = compose("config", overrides=rest)
        return f"unknown config key {key!r}" + _siblings(cfg, key) + _close_key(cfg, key)
    except HydraException:  # another override is bad too: name this one without the siblings
        return f"unknown config key {key!r}"


def validate(cfg: DictConfig, exp) -> None:
    """Checks shared by every job, then the experiment's own."""
    try:
        OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as e:
        raise ConfigError(f"cannot resolve the config: {str(e).splitlines()[0]}") from None
    if cfg.get("name") != exp.name:
        raise ConfigError(f"name must be {exp.name!r}, the experiment's own (got {cfg.get('name')!r})")
    check(cfg, "seed", int, low=0, high=2**31 - 1)
    check(cfg, "runtime.threads", int, low=1, high=4 * (os.cpu_count() or 1))
    check(cfg, "runtime.device", str, choices=("cpu", "cuda", "auto"))
    if cfg.runtime.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("runtime.device must be cpu or auto: torch sees no CUDA device on this machine")
    check(cfg, "runtime.dtype", str, choices=("float32", "float64"))
    check(cfg, "resume", bool)
    check(cfg, "out", str)
    _check_out(Path(cfg.out))
    try:
        exp.validate(cfg)
    except (OmegaConfBaseException, TypeError, ValueError) as e:
        if isinstance(e, ConfigError):
            raise
        # an interpolation or type problem in a user's value
        raise ConfigError(f"invalid config for {exp.name}: {str(e).splitlines()[0]}") from None


def _check_out(out: Path) -> None:
    """`out` must be a folder mfx can create and write (checked without writing anything)."""
    existing = next((p for p in (out, *out.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise ConfigError(f"out must be a folder (got {str(out)!r}, and {existing} is a file)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"out must be writable (got {str(out)!r}; {existing} is not writable)")


def _probe_out(out: Path) -> None:
    """Create and remove a folder in the nearest existing parent of `out` (root passes os.access
    everywhere, read-only and virtual filesystems only fail a real write); nothing is left behind."""
    existing = next((p for p in (out, *out.absolute().parents) if p.exists()), None)
    if existing is None:
        return
    try:
        tempfile.TemporaryDirectory(dir=existing, prefix=".mfx-probe-").cleanup()
    except OSError as e:
        raise ConfigError(
            f"out must be a writable folder (got {str(out)!r}; cannot create a folder in {existing}: {e.strerror})"
        ) from None


def available_memory() -> int:
    """Bytes of memory available to a new process (MemAvailable), or total memory elsewhere."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _check_resources(jobs: list[DictConfig], exp) -> None:
    """Refuse a sweep whose largest job would not fit in memory, before anything runs."""
    if exp.memory is None:
        return
    need = max(exp.memory(j) for j in jobs)
    have = available_memory()
    if need > have:
        raise ConfigError(
            f"model: the largest job needs ≈ {need / 2**30:.3g} GiB, this machine has {have / 2**30:.3g} GiB "
            f"available (reduce {exp.memory_keys or 'the model sizes'})"
        )


def task(cfg: DictConfig) -> None:
    """One job: run the experiment at one grid point and write the job's files (results.write_job).

    A per-job lock keeps two sweeps on one folder from computing the same job; the completion
    marker is removed before a job is computed, so a kill at any moment leaves it to be rerun.
    Whatever fails inside a job (a numerical failure the experiment did not turn into `diverged`
    rows, a full disk, a bug) is one line on stderr: the job stays incomplete, resume reruns it,
    and the sweep goes on (`mfx run` then exits 1).  Ctrl-C and SIGTERM stop the sweep.
    """
    job_dir = Path(HydraConfig.get().runtime.output_dir)
    start = time.perf_counter()
    outcome = "failed"
    try:
        outcome = _job(cfg, job_dir, start)
    except Exception as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: job {job_dir} failed: {one_line(e)}", file=sys.stderr)
    finally:
        report_job(job_dir, outcome, time.perf_counter() - start)


def _job(cfg: DictConfig, job_dir: Path, start: float) -> str:
    """Run and save one job; return its outcome (done [with the counts of rows not ok], skipped,
    running elsewhere)."""
    with locks.job_lock(job_dir) as mine:
        if not mine:
            return "running elsewhere"
        state, done = results.job_state(job_dir)
        if cfg.resume and state == "complete" and done.get("job_hash") == results.job_hash(cfg):
            return "skipped"
        if state != "incomplete":
            why = "its configuration or mfx's code changed" if state == "complete" else "it is damaged"
            print(f"mfx: rerunning {job_dir}: {why}", file=sys.stderr)
        results.mark_incomplete(job_dir)
        exp = registry.get(cfg.name)
        cfg = cfg.copy()
        OmegaConf.update(cfg, "cache_dir", str(Path(cfg.cache_dir).absolute()))
        rt = runtime.setup(**cfg.runtime)
        rows = results.to_frame(exp.run(cfg), exp.name, cfg.scale)
        hydra_cfg = HydraConfig.get()
        grid = {kv.split("=", 1)[0] for kv in hydra_cfg.job.override_dirname.split(",")}
        internal = {"experiment", "sweep_hash", "variant", *results.VOLATILE, *grid}
        variant = [o for o in hydra_cfg.overrides.task if o.split("=", 1)[0].lstrip("+~") not in internal]
        extra = {"overrides": variant, "job": hydra_cfg.job.override_dirname}
        # done.json is written last: a failure before it leaves the job incomplete
        results.write_job(job_dir, rows, cfg, str(rt.device), time.perf_counter() - start, extra)
        other = rows.loc[rows["status"] != "ok", "status"].value_counts()  # diverged, no_escape, …
        return "done" + "".join(f", {n} rows {status}" for status, n in other.items())


def one_line(e: BaseException) -> str:
    """An exception as one line: its type and the first line of its message (and file, if any)."""
    if isinstance(e, OSError) and e.strerror:
        where = f": {e.filename}" if e.filename else ""
        return f"{type(e).__name__}: {e.strerror}{where}"
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def report_job(job_dir: Path, outcome: str, seconds: float) -> None:
    """Progress of a sweep: the bar on a terminal, else one line per job (logs, make, SLURM)."""
    if bar is not None and not bar.disable:
        bar.update()
        return
    print(f"{job_dir.parent.name}/{job_dir.name}: {outcome} ({seconds:.1f} s)", flush=True)


def hydra_main() -> None:
    hydra.main(config_path="pkg://mfx.conf", config_name="config", version_base="1.3")(task)()
