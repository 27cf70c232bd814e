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
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
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
    # a sweep of a key that is not a grid axis is one plan per value: its override line → this value
    replace: dict[str, str] = field(default_factory=dict)
    launcher: str = ""  # the Hydra launcher's class (…SlurmLauncher, …BasicLauncher)

    @property
    def folder(self) -> Path:
        return Path(self.jobs[0].out) / self.experiment / f"{self.scale}{self.variant}"

    def held_jobs(self) -> list[Path]:
        """The incomplete jobs of this sweep whose lock a live owner holds (another run)."""
        if not self.folder.is_dir():
            return []
        jobs = {*results.find_jobs([self.folder]), *(p.parent for p in self.folder.glob(f"*/{locks.LOCK}"))}
        return [j for j in sorted(jobs) if results.job_state(j)[0] != "complete" and locks.held(j)]

    def hydra_overrides(self) -> list[str]:
        """What `mfx run` adds for Hydra: the sweep's identity, folder and job-folder names."""
        non_grid = sorted({o.split("=", 1)[0].lstrip("+~") for o in self.overrides} - set(self.axes))
        exclude = [*EXCLUDE_FROM_JOB_DIR, *non_grid]
        return [
            f"sweep_hash='{self.sweep_hash}'",  # quoted: an all-digit hash must stay a string
            f"variant={self.variant!r}" if self.variant else "variant=''",
            f"hydra.job.config.override_dirname.exclude_keys=[{','.join(exclude)}]",
        ]

    def hydra_args(self, args: list[str], launch_dir: Path) -> list[str]:
        """The arguments of this plan's Hydra multirun.  Hydra's own files (multirun.yaml, .hydra/,
        job logs, submitit's pickles: `${hydra.sweep.dir}/.submitit`) go to the private `launch_dir`;
        each job writes its data under `out` itself (`task`)."""
        return [
            *self.hydra_overrides(),
            *[self.replace.get(a, a) for a in args],
            f"hydra.sweep.dir='{launch_dir}'",
            # one flat folder, made before sbatch: with submitit's default `.submitit/%j` an array
            # task can start before its folder exists, and SLURM fails it (it cannot open its log)
            *(
                [f"hydra.launcher.submitit_folder='{launch_dir}/.submitit'"]
                if "submitit" in self.launcher
                else []
            ),
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


def plans(overrides: list[str]) -> list[Plan]:
    """Validate a sweep; a sweep of a key that is not a grid axis is one sweep per value.

    `seed=0,1`, `scale=quick,paper`, `runtime.dtype=float32,float64` or `out=a,b` give each value its
    own sweep (own configuration hash and folder), run in turn, so that no job folder ever holds
    rows of another configuration.  A value given twice, or values that make the same sweep folder
    (`runtime.threads=1,2`: threads do not change the numbers), are refused with one line.
    """
    parser = OverridesParser.create()
    parsed = _parse(parser, overrides)
    _refuse_hydra_keys(parsed)
    _refuse_control_characters(parsed)
    _experiment_name(parsed)
    plain = [o.input_line for o in parsed if not o.is_sweep_override()]
    _refuse_new_keys(parsed, plain)
    cfg = _compose(plain)
    grid = set((cfg.hydra.sweeper.params or {}).keys())
    split = [o for o in parsed if o.is_sweep_override() and o.get_key_element() not in grid]
    choices = []
    for o in split:
        _discrete(o)
        _refuse_repeats(o)
        prefix = o.input_line.split("=", 1)[0]
        choices.append([(o.input_line, f"{prefix}={v}") for v in o.sweep_string_iterator()])
    out = []
    for combo in itertools.product(*choices):
        replace = dict(combo)
        p = plan([replace.get(line, line) for line in overrides])
        p.replace = replace
        out.append(p)
    folders: dict[Path, Plan] = {}
    for p in out:
        other = folders.setdefault(Path(os.path.abspath(p.folder)), p)
        if other is not p:
            lines = ", ".join(o.input_line for o in split)
            raise ConfigError(
                f"{lines}: two values make the same sweep {p.folder} (a key that does not change the "
                "numbers, or one value spelled twice); give one value"
            )
    return out


# Hydra keys a user may set: the launcher and its resources (partition, time, memory), the search
# path.  Every other `hydra.*` key (sweep.dir, sweep.subdir, run.dir, output_subdir, job_logging,
# sweeper.params, job.chdir, …) is derived by mfx from `out` and the grid: overriding it would
# write outside `out`, or several jobs into one folder.
HYDRA_ALLOWED = ("hydra/launcher", "hydra.searchpath")


def _refuse_hydra_keys(parsed) -> None:
    for o in parsed:
        key = o.key_or_group
        if not (key == "hydra" or key.startswith(("hydra.", "hydra/"))):
            continue
        launcher = key.startswith("hydra.launcher.") and key != "hydra.launcher.submitit_folder"
        if key not in HYDRA_ALLOWED and not launcher:
            raise ConfigError(
                f"{key} is set by mfx: every file of a sweep goes under out= (write out=DIR to move it; "
                "hydra/launcher and hydra.launcher.* are yours)"
            )


def _refuse_control_characters(parsed) -> None:
    for o in parsed:
        if results.CONTROL.search(o.input_line) or "\n" in o.input_line:
            raise ConfigError(f"override {results.printable(o.input_line)!r} holds a control character")


def _parse(parser, overrides: list[str]):
    try:
        return parser.parse_overrides(overrides)
    except HydraException as e:
        for line in overrides:  # Hydra's grammar takes non-ASCII characters only in quotes
            key, _, value = line.partition("=")
            if not value.isascii() and not value.startswith(("'", '"')):
                raise ConfigError(
                    f"{key}: a value with non-ASCII characters must be quoted: {key}='{value}'"
                ) from None
        raise ConfigError(f"malformed override: {str(e).splitlines()[0]}") from None


def _discrete(o) -> None:
    if not o.is_discrete_sweep() or o.value_type.name == "GLOB_CHOICE_SWEEP":
        raise ConfigError(
            f"{o.get_key_element()}: only comma-separated sweeps (a,b,c) are supported (got {o.input_line!r})"
        )


def _refuse_repeats(o) -> None:
    """`model.p=2,2` or `gamma=0.5,0.50`: a value given twice would be one job computed twice."""
    values, texts = list(o.sweep_iterator()), list(o.sweep_string_iterator())
    for j, v in enumerate(values):
        for i in range(j):
            if (
                values[i] == v
                and type(values[i]) is type(v)
                or (isinstance(v, (int, float)) and isinstance(values[i], (int, float)) and values[i] == v)
            ):
                raise ConfigError(
                    f"{o.get_key_element()}: the value {texts[j]} repeats {texts[i]} ({o.input_line}); "
                    "give each value once"
                )


def _experiment_name(parsed) -> str:
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
    scale = keys.get("scale")
    if scale is not None:
        given = list(scale.sweep_string_iterator()) if scale.is_sweep_override() else [scale.value()]
        for v in given:
            if v not in SCALES:
                raise ConfigError(f"scale must be one of {', '.join(SCALES)} (got {v!r})")
    return name


def plan(overrides: list[str]) -> Plan:
    """Compose and validate the config of every job of the sweep; raise ConfigError on a mistake.

    Mirrors Hydra's basic sweeper: the experiment's `hydra.sweeper.params` give the axes, and a
    command-line override of the same key (a sweep `k=a,b` or a single value) replaces that axis.
    The sweep's identity is its configuration without the axes: when it differs from the
    experiment's own (e.g. `model.K=20`), the sweep goes to the folder `<scale>-<hash>`.
    """
    parser = OverridesParser.create()
    parsed = _parse(parser, overrides)
    _refuse_hydra_keys(parsed)
    _refuse_control_characters(parsed)
    name = _experiment_name(parsed)
    experiments = registry.load_all()
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
            _discrete(o)
            _refuse_repeats(o)
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
    _refuse_twins(jobs, axes)
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
    launcher = str(OmegaConf.select(cfg, "hydra.launcher._target_", default="") or "")
    return Plan(name, base.scale, jobs, list(axes), sweep_hash, variant, user, launcher=launcher)


def _refuse_twins(jobs: list[DictConfig], axes: dict[str, list]) -> None:
    """Grid values become folder names, and two jobs of one configuration would be computed twice."""
    for key, values in axes.items():
        for v in values:
            if isinstance(v, str) and ("/" in v or v in (".", "..")):
                raise ConfigError(f"{key}: a grid value names a job folder and may not hold '/' (got {v!r})")
    seen: dict[str, DictConfig] = {}
    for job in jobs:
        other = seen.setdefault(results.config_hash(job), job)
        if other is not job:
            point = ", ".join(f"{k}={OmegaConf.select(job, k)}" for k in axes)
            raise ConfigError(f"two grid points make the same job ({point}); give each value once")


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
    if not cfg.out.strip() or cfg.out != cfg.out.strip() or results.CONTROL.search(cfg.out):
        raise ConfigError(f"out must name a folder (got {results.printable(cfg.out)!r})")
    if Path(os.path.abspath(cfg.out)) == Path(os.path.abspath(cfg.out)).parent:
        raise ConfigError(f"out must not be the filesystem's root (got {cfg.out!r}): give a folder of yours")
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
    name = HydraConfig.get().job.override_dirname or "job"
    job_dir = Path(cfg.out) / cfg.name / f"{cfg.scale}{cfg.variant}" / name
    start = time.perf_counter()
    outcome = "failed"
    try:
        if "/" in name or name in (".", ".."):  # refused by plan; a job never writes elsewhere
            raise ValueError(f"job folder name {name!r} is not a folder name")
        outcome = _job(cfg, job_dir, start)
    except Exception as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: job {results.printable(job_dir)} failed: {one_line(e)}", file=sys.stderr)
    finally:
        report_job(job_dir, outcome, time.perf_counter() - start)


def _job(cfg: DictConfig, job_dir: Path, start: float) -> str:
    """Run and save one job; return its outcome (done [with the counts of rows not ok], skipped,
    running elsewhere)."""
    results.make_folder(job_dir, Path(cfg.out))
    deadline = time.monotonic() + locks.WAIT_SECONDS
    while True:
        with locks.job_lock(job_dir) as mine:
            if mine:
                return _compute(cfg, job_dir, start)
        # another live run computes it (two identical runs at once): wait a while for its result
        if time.monotonic() > deadline:
            return "running elsewhere"
        time.sleep(0.2)
        state, done = results.job_state(job_dir)
        if state == "complete" and done.get("job_hash") == results.job_hash(cfg) and not locks.held(job_dir):
            return "skipped"


def _compute(cfg: DictConfig, job_dir: Path, start: float) -> str:
    """The job under its lock: skipped if complete, else computed and written."""
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
    results.write_job(job_dir, rows, cfg, str(rt.device), time.perf_counter() - start, extra, Path(cfg.out))
    other = rows.loc[rows["status"] != "ok", "status"].value_counts()  # diverged, no_escape, …
    return "done" + "".join(f", {n} rows {status}" for status, n in other.items())


def slurm_outcome(launch: Path) -> str:
    """After submitit gave up on a job (cancelled, or killed at its time limit): wait until SLURM has
    ended every job of the sweep (their folders are named by job id), and say how many ran out of time."""
    names = [p.name for p in (launch / ".submitit").glob("*")]
    jobs = sorted({m[1] for m in map(re.compile(r"^(\d+)_").match, names) if m})
    if not jobs or not shutil.which("squeue"):
        return ""
    for _ in range(600):  # at most ten minutes for the array's other tasks to end
        if locks.slurm_running(",".join(jobs)) is not True:
            break
        time.sleep(1)
    try:
        r = subprocess.run(
            ["sacct", "-n", "-X", "-P", "-j", ",".join(jobs), "-o", "State"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    timeout = sum(line.startswith("TIMEOUT") for line in r.stdout.split())
    return f" ({timeout} hit the time limit: raise hydra.launcher.timeout_min)" if timeout else ""


def one_line(e: BaseException) -> str:
    """An exception as one line: its type and the first line of its message (and file, if any)."""
    if isinstance(e, OSError) and e.strerror:
        where = f": {e.filename}" if e.filename else ""
        return results.printable(f"{type(e).__name__}: {e.strerror}{where}")
    text = str(e).strip().splitlines()
    return results.printable(f"{type(e).__name__}: {text[0]}" if text else type(e).__name__)


def report_job(job_dir: Path, outcome: str, seconds: float) -> None:
    """Progress of a sweep: the bar on a terminal, else one line per job (logs, make, SLURM)."""
    if bar is not None and not bar.disable:
        bar.update()
        return
    print(
        f"{results.printable(job_dir.parent.name)}/{results.printable(job_dir.name)}: {outcome} ({seconds:.1f} s)",
        flush=True,
    )


def hydra_main() -> None:
    hydra.main(config_path="pkg://mfx.conf", config_name="config", version_base="1.3")(task)()
