"""A sweep: compose and validate every job's config before anything runs.

`plan(overrides)` mirrors Hydra's basic sweeper to validate the whole grid up front (a user's
mistake ends with one line and nothing written); `mfx.task.task(cfg)` is the Hydra task function of
one job.  This module loads no torch: `plan(overrides, checked=False)` composes the jobs without the
experiments' code, which is all a finished sweep's resume check needs (its jobs' hashes).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.resources
import itertools
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

import mfx
from mfx import catalog, locks, results
from mfx import experiment as registry
from mfx.experiment import SCALES, ConfigError, check


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
    job_hashes: list[str] = field(
        default_factory=list
    )  # each job's `results.job_hash` (resume compares them)
    # a sweep of a key that is not a grid axis is one plan per value: its override line → this value
    replace: dict[str, str] = field(default_factory=dict)
    launcher: str = ""  # the Hydra launcher's class (…SlurmLauncher, …BasicLauncher)
    memory: float | None = None  # bytes its largest job needs (None: no estimate, or not checked)
    memory_keys: str = ""  # the keys that drive it (named when it does not fit)

    @property
    def out(self) -> Path:
        return Path(catalog.select(self.jobs[0], "out"))

    @property
    def folder(self) -> Path:
        return self.out / self.experiment / f"{self.scale}{self.variant}"

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


def plans(overrides: list[str], checked: bool = True) -> list[Plan]:
    """Validate a sweep; a sweep of a key that is not a grid axis is one sweep per value.

    `seed=0,1`, `scale=quick,paper`, `runtime.dtype=float32,float64` or `out=a,b` give each value its
    own sweep (own configuration hash and folder), run in turn, so that no job folder ever holds
    rows of another configuration.  A value given twice, or values that make the same sweep folder
    (`runtime.threads=1,2`: threads do not change the numbers), are refused with one line.
    `checked`: as `plan`'s.
    """
    parser = OverridesParser.create()
    parsed = _parse(parser, overrides)
    _refuse_hydra_keys(parsed)
    _refuse_control_characters(parsed)
    _experiment_name(parsed, checked)
    plain = [o.input_line for o in parsed if not o.is_sweep_override()]
    _refuse_new_keys(parsed, plain)
    cfg = _compose(plain)
    grid = set((cfg.hydra.sweeper.params or {}).keys())
    split = [o for o in parsed if o.is_sweep_override() and o.get_key_element() not in grid]
    choices = []
    for o in split:
        _discrete(o)
    # the size of every sweep together, counted before any is composed (10⁵ jobs take minutes)
    sizes = {}
    for key, values in (cfg.hydra.sweeper.params or {}).items():
        with contextlib.suppress(OmegaConfBaseException, HydraException):  # plan names a bad grid
            sizes[key] = len(_values(parser, f"{key}={values}"))
    for o in parsed:
        if o.get_key_element() in grid or o in split:
            if o.is_sweep_override():
                _discrete(o)
            sizes[o.get_key_element()] = _sweep_size(o) if o.is_sweep_override() else 1
    _refuse_size(math.prod(sizes.values()), ", ".join(sizes))
    for o in split:
        _refuse_repeats(o)
        prefix = o.input_line.split("=", 1)[0]
        choices.append([(o.input_line, f"{prefix}={v}") for v in o.sweep_string_iterator()])
    out = []
    for combo in itertools.product(*choices):
        replace = dict(combo)
        p = plan([replace.get(line, line) for line in overrides], checked)
        p.replace = replace
        out.append(p)
        _refuse_size(sum(len(q.jobs) for q in out), "the sweeps")
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


KEPT_LOOKS = 32  # the newest looks kept (≈ 130 kB for experiment=all): each code change makes new ones


def looked(overrides: list[str], make: Callable[[], list[Plan]]) -> list[Plan]:
    """The plans `make()` gives for a command line, for a look that runs nothing (`mfx run --dry-run`):
    plans that passed every check for the same command line, configs, code and machine are read back
    from the last look (jobs as resolved dicts: composing and validating experiment=all takes seconds
    and loads torch), and only what depends on this moment is checked again: `out`, CUDA and the memory
    each sweep needs.  A look is kept only when every experiment in it is mfx's own (an experiment
    registered in-process, a test's, is not in the key), and never with an extra config search path."""
    path = _looks() / f"{_look_key(overrides)}.json"
    try:
        saved = json.loads(path.read_text())
        out = [Plan(**d) for d in saved]
    except (OSError, ValueError, TypeError):
        out = make()
        own = all(registry.get(p.experiment).run.__module__.startswith("mfx.") for p in out)
        if own and not any(o.startswith("hydra.searchpath") for o in overrides):
            _keep(path, out)
        return out
    for p in out:
        if any(catalog.select(j, "runtime.device") == "cuda" for j in p.jobs) and not _cuda_available():
            raise ConfigError("runtime.device must be cpu or auto: torch sees no CUDA device on this machine")
        for job in p.jobs:
            _check_out(Path(catalog.select(job, "out")))
        _check_memory(p.memory, p.memory_keys)
        _probe_out(p.out)
    return out


def _keep(path: Path, plans: list[Plan]) -> None:
    saved = [
        {
            **{f.name: getattr(p, f.name) for f in fields(p)},
            "jobs": [OmegaConf.to_container(j, resolve=True) for j in p.jobs],
        }
        for p in plans
    ]
    with contextlib.suppress(OSError):  # a look that cannot be kept is only a slower next look
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(saved))
        os.replace(tmp, path)
        for old in sorted(path.parent.glob("*.json"), key=lambda f: f.stat().st_mtime)[:-KEPT_LOOKS]:
            old.unlink(missing_ok=True)


def _looks() -> Path:
    """A folder only this user writes, for the kept looks (plain JSON)."""
    return Path(mfx.private_folder(os.path.join(tempfile.gettempdir(), f"mfx-plans-{os.getuid()}")))


def _look_key(overrides: list[str]) -> str:
    """What a plan depends on: the command line, every config file, mfx's code, the libraries that
    compose it (and the launchers it may name), and the machine's own limits (cores: runtime.threads;
    the working folder: a relative out)."""
    h = hashlib.sha256()
    conf = importlib.resources.files("mfx.conf")
    for f in sorted(_files(conf), key=lambda f: f[0]):
        h.update(f[0].encode() + b"\0" + f[1].read_bytes() + b"\0")
    versions = []
    for library in ("hydra-core", "omegaconf", "hydra-joblib-launcher", "hydra-submitit-launcher"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{library}=={importlib.metadata.version(library)}")
    facts = [overrides, results.code_hash(), os.getcwd(), os.cpu_count(), sys.version, versions]
    h.update(json.dumps(facts).encode())
    return h.hexdigest()[:24]


def _files(folder, prefix: str = "") -> list:
    """(relative name, file) of every YAML file under a package's resource folder."""
    found = []
    for f in folder.iterdir():
        if f.is_dir():
            found += _files(f, f"{prefix}{f.name}/")
        elif f.name.endswith(".yaml"):
            found.append((prefix + f.name, f))
    return found


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
        if key == "hydra.launcher.n_jobs":  # joblib's processes: 0 fails only once folders are written
            cores = os.cpu_count() or 1
            values = list(o.sweep_iterator()) if o.is_sweep_override() else [o.value()]
            for v in values:
                if type(v) is not int or v == 0 or not -cores <= v <= 64 * cores:
                    raise ConfigError(
                        f"hydra.launcher.n_jobs must be an integer from 1 to {64 * cores} processes, or -1 … "
                        f"-{cores} (all cores, all but one, …) (got {v!r})"
                    )


# Resolvers an override may not hold.  `now` (the clock) and `oc.env` (the environment) are not functions
# of the configuration: each job resolves its overrides again, later than the plan did and perhaps on
# another node, so one sweep would hold several values and its rerun another folder (`resume` could
# never find its jobs); the shell already expands $VAR once.  `oc.deprecated` renames a key of a config
# file: in an override it only prints Python's two-line warning.
REFUSED_RESOLVERS = re.compile(r"\$\{\s*(now|oc\.env|oc\.deprecated)\s*:")
WHY_REFUSED = {
    "now": "${now:…} changes from one job to the next and a rerun could never resume",
    "oc.env": "${oc.env:…} is read again by each job (on each node) and a rerun could never resume; "
    "let the shell expand it ($VAR)",
    "oc.deprecated": "${oc.deprecated:…} renames a key of a config file, not a value",
}


def _refuse_control_characters(parsed) -> None:
    for o in parsed:
        if results.CONTROL.search(o.input_line) or "\n" in o.input_line:
            raise ConfigError(f"override {results.printable(o.input_line)!r} holds a control character")
        if m := REFUSED_RESOLVERS.search(o.input_line):
            raise ConfigError(
                f"{o.get_key_element()}: {WHY_REFUSED[m[1]]}: write the value itself "
                f"(got {results.printable(o.input_line)!r})"
            )


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
    seen: dict = {}  # a number by its value (2 and 2.0 are one value), anything else by type and value
    for j, v in enumerate(values):
        key = ("number", v) if isinstance(v, (int, float)) else (type(v).__name__, repr(v))
        i = seen.setdefault(key, j)
        if i != j:
            raise ConfigError(
                f"{o.get_key_element()}: the value {texts[j]} repeats {texts[i]} ({o.input_line}); "
                "give each value once"
            )


def _experiment_name(parsed, known: bool = True) -> str:
    """The experiment named; `known`: refuse a name no experiment registered (this loads them all)."""
    keys = {o.get_key_element(): o for o in parsed}
    if "experiment" in keys and keys["experiment"].is_sweep_override():
        raise ConfigError(
            "experiment: give one name, a,b or all (mfx runs each experiment's sweep in turn; "
            f"got {keys['experiment'].input_line!r})"
        )
    name = keys["experiment"].value() if "experiment" in keys else None
    experiments = registry.load_all() if known else {name: None}
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


def plan(overrides: list[str], checked: bool = True) -> Plan:
    """Compose and validate the config of every job of the sweep; raise ConfigError on a mistake.

    Mirrors Hydra's basic sweeper: the experiment's `hydra.sweeper.params` give the axes, and a
    command-line override of the same key (a sweep `k=a,b` or a single value) replaces that axis.
    The sweep's identity is its configuration without the axes: when it differs from the
    experiment's own (e.g. `model.K=20`), the sweep goes to the folder `<scale>-<hash>`.

    `checked=False` composes the jobs without the experiments' code (no torch): no experiment's own
    checks, no memory estimate, no probe of `out`.  Only for a look at what is done already (resume):
    a job complete with the same job hash (configuration and code) passed every check when it ran.
    """
    parser = OverridesParser.create()
    parsed = _parse(parser, overrides)
    _refuse_hydra_keys(parsed)
    _refuse_control_characters(parsed)
    name = _experiment_name(parsed, checked)
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
            _refuse_size(_sweep_size(o), key)
            axes[key] = list(o.sweep_iterator())
        elif key in axes:
            axes[key] = [o.value()]
    _refuse_size(math.prod(len(v) for v in axes.values()), ", ".join(axes))
    for o in parsed:
        if o.is_sweep_override():
            _refuse_repeats(o)
    base = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    for key in axes:
        if OmegaConf.select(base, key, default="<missing>") == "<missing>":
            raise ConfigError(f"unknown config key {key!r}" + _siblings(base, key) + _close_key(base, key))
    jobs = []
    for values in itertools.product(*axes.values()):
        job = base.copy()
        for key, value in zip(axes, values):
            OmegaConf.update(job, key, value, force_add=False)
        jobs.append(job)
    exp = registry.get(name) if checked else None
    hashes = [validate(job, exp) if checked else results.config_hash(job) for job in jobs]
    _refuse_twins(jobs, hashes, axes)
    memory = _memory(jobs, exp) if checked else None
    if checked:
        _check_memory(memory, exp.memory_keys)
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
    job_hashes = [results.job_hash(job, h) for job, h in zip(jobs, hashes)]
    return Plan(
        name,
        base.scale,
        jobs,
        list(axes),
        sweep_hash,
        variant,
        user,
        job_hashes,
        launcher=launcher,
        memory=memory,
        memory_keys=exp.memory_keys if checked else "",
    )


def _sweep_size(o) -> int:
    """How many values a sweep override gives, counted without listing a range (`range(0, 1e12)`)."""
    v = o.value()
    if type(v).__name__ == "RangeSweep":
        start, stop, step = v.start, v.stop, v.step if v.step else 1
        return (
            max(math.ceil((stop - start) / step), 0) if math.isfinite(stop - start) else results.MAX_JOBS + 1
        )
    return len(v.list) if hasattr(v, "list") else sum(1 for _ in o.sweep_iterator())


def _refuse_size(size: int, keys: str) -> None:
    """A grid larger than any of the papers' by far is a mistake: refused before its jobs are composed."""
    if size > results.MAX_JOBS:
        raise ConfigError(
            f"{keys or 'the grid'}: the sweep has {size} jobs, more than mfx runs at once ({results.MAX_JOBS}; "
            "the papers' largest grid has 45): give fewer values"
        )


def _refuse_twins(jobs: list[DictConfig], hashes: list[str], axes: dict[str, list]) -> None:
    """Grid values become folder names, and two jobs of one configuration would be computed twice."""
    for key, values in axes.items():
        for v in values:
            if isinstance(v, str) and ("/" in v or v in (".", "..")):
                raise ConfigError(f"{key}: a grid value names a job folder and may not hold '/' (got {v!r})")
    seen: dict[str, DictConfig] = {}
    for job, h in zip(jobs, hashes):
        other = seen.setdefault(h, job)
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
    """The composed config (a copy: the caller may change it).  A plan composes the same overrides
    up to three times (the grid's keys, the sweep, its own configuration): each composition is made once."""
    return _composed(tuple(overrides)).copy()


@functools.lru_cache(maxsize=64)
def _composed(overrides: tuple[str, ...]) -> DictConfig:
    try:
        with initialize_config_module("mfx.conf", version_base="1.3"):
            return compose("config", overrides=list(overrides), return_hydra_config=True)
    except HydraException as e:
        raise ConfigError(_composition_message(str(e), list(overrides))) from None


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


def validate(cfg: DictConfig, exp) -> str:
    """Checks shared by every job, then the experiment's own; returns the job's configuration hash
    (computing it resolves the whole config: the first check)."""
    try:
        config_hash = results.config_hash(cfg)
    except OmegaConfBaseException as e:
        raise ConfigError(f"cannot resolve the config: {str(e).splitlines()[0]}") from None
    if cfg.get("name") != exp.name:
        raise ConfigError(f"name must be {exp.name!r}, the experiment's own (got {cfg.get('name')!r})")
    high, stride = max_seed(exp)
    try:
        check(cfg, "seed", int, low=0, high=high)
    except ConfigError as e:
        why = (
            f" ({exp.name} writes replicate ids seed·{stride} + r, kept exactly below 10¹²)"
            if stride > 1
            else ""
        )
        raise ConfigError(f"{e}{why}") from None
    check(cfg, "runtime.threads", int, low=1, high=4 * (os.cpu_count() or 1))
    check(cfg, "runtime.device", str, choices=("cpu", "cuda", "auto"))
    if cfg.runtime.device == "cuda" and not _cuda_available():
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
    return config_hash


# A table keeps a number exactly up to 12 significant digits (results.FLOAT_FORMAT): every replicate id
# a job writes in its `seed` column must stay below this, or two replicates print as one.
EXACT_IDS = 10**12


def max_seed(exp) -> tuple[int, int]:
    """The largest top-level `seed` whose batch of replicate ids stays exact in the table.  A family
    that batches seeds as id = seed·stride + r (r < stride) names its stride SEED_STRIDE or SEED_BLOCK
    in `mfx/<family>/experiments/common.py`; without one, ids are the seed's own.  (seed, stride)."""
    try:
        common = importlib.import_module(f"mfx.{exp.family}.experiments.common")
    except ImportError:
        common = None
    stride = getattr(common, "SEED_STRIDE", None) or getattr(common, "SEED_BLOCK", None) or 1
    return min(2**31 - 1, EXACT_IDS // int(stride) - 1), int(stride)


MAX_AUDIT_SEEDS = 1000  # `make audit` runs 10; each seed is a whole sweep of every experiment


def check_audit_seeds(seeds: int, first: int, names: list[str]) -> None:
    """`mfx audit --seeds N --first-seed S` over the experiments `names`: refused (ConfigError, one line)
    unless 1 ≤ N ≤ MAX_AUDIT_SEEDS and every seed S … S+N−1 is one each experiment accepts."""
    if not 1 <= seeds <= MAX_AUDIT_SEEDS:
        raise ConfigError(
            f"--seeds must be from 1 to {MAX_AUDIT_SEEDS} (got {seeds}): each seed runs every experiment's sweep"
        )
    for name in names:
        high, _ = max_seed(registry.get(name))
        if first < 0 or first + seeds - 1 > high:
            raise ConfigError(
                f"--first-seed must be from 0 to {high - seeds + 1} with --seeds {seeds} "
                f"(got {first}; {name} takes seeds up to {high})"
            )


def _cuda_available() -> bool:
    # torch comes with the experiments' code (`registry.load_all`, as here): planning loads none of it
    return importlib.import_module("torch").cuda.is_available()


def _check_out(out: Path) -> None:
    """`out` must be a folder mfx can create and write (checked without writing anything)."""
    existing = next((p for p in (out, *out.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise ConfigError(f"out must be a folder (got {str(out)!r}, and {existing} is a file)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"out must be writable (got {str(out)!r}; {existing} is not writable)")
    owned = results.owned_by_mfx(existing)
    if owned:
        raise ConfigError(f"out must be outside every job folder (got {str(out)!r}: {owned})")


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


def _memory(jobs: list[DictConfig], exp) -> float | None:
    """The bytes the sweep's largest job needs (None: the experiment gives no estimate)."""
    if exp.memory is None:
        return None
    try:  # an absurd size (1e308) overflows the estimate itself: no job of that size could run
        return float(max(exp.memory(j) for j in jobs))
    except (OverflowError, ValueError, ZeroDivisionError):
        return math.inf


def _check_memory(need: float | None, keys: str) -> None:
    """Refuse a sweep whose largest job would not fit in memory, before anything runs."""
    if need is None:
        return
    have = available_memory()
    if not need <= have:
        size = f"≈ {need / 2**30:.3g} GiB" if math.isfinite(need) else "more memory than any machine has"
        raise ConfigError(
            f"model: the largest job needs {size}, this machine has {have / 2**30:.3g} GiB "
            f"available (reduce {keys or 'the model sizes'})"
        )


def one_line(e: BaseException) -> str:
    """An exception as one line: its type and the first line of its message (and file, if any)."""
    if isinstance(e, OSError) and e.strerror:
        where = f": {e.filename}" if e.filename else ""
        return results.printable(f"{type(e).__name__}: {e.strerror}{where}")
    text = str(e).strip().splitlines()
    return results.printable(f"{type(e).__name__}: {text[0]}" if text else type(e).__name__)
