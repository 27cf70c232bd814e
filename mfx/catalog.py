"""What `mfx list` shows, read without importing the experiments (they load torch): each
experiment's name, family, figure and description from its registration in the source
(`register(Experiment(name=..., ...))` in `mfx/<family>/experiments/*.py`, read with `ast`), and its
jobs per scale from its YAML grid.  tests/test_cli.py checks both against the registry and Hydra's
own count (`mfx.sweep.grid_sizes`).
"""

from __future__ import annotations

import ast
import functools
import importlib.resources
import json
import re
from dataclasses import dataclass
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mfx.experiment import FAMILIES, SCALES
from mfx.quadratic import metrics as quadratic_metrics
from mfx.resnet import metrics as resnet_metrics
from mfx.transformer import metrics as transformer_metrics

ROOT = Path(__file__).parent
FIELDS = ("name", "family", "figure", "description")


@dataclass(frozen=True)
class Entry:
    name: str
    family: str
    figure: str
    description: str


@functools.cache  # the package's own source: read once per process
def entries() -> dict[str, Entry]:
    """Every experiment registered by the families' `experiments` packages, by name."""
    found = {}
    for family in FAMILIES:
        for path in sorted((ROOT / family / "experiments").glob("*.py")):
            tree = ast.parse(path.read_text())
            names = {  # module-level constants (`E = "transformer_limit"`)
                t.id: node.value.value
                for node in tree.body
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                for t in node.targets
                if isinstance(t, ast.Name)
            }
            # registrations are module-level statements: function bodies (most of the source) are skipped
            statements = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.ClassDef))]
            for node in (n for s in statements for n in ast.walk(s)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Experiment":
                    kw = {k.arg: _constant(k.value, names) for k in node.keywords}
                    if all(isinstance(kw.get(f), str) for f in FIELDS):
                        entry = Entry(*(kw[f] for f in FIELDS))
                        found[entry.name] = entry
    return dict(sorted(found.items()))


def figure_label(figure: str, width: int) -> str:
    """A figure's label: the name before its description ("E2: R(t)/R(0) …" → "E2"), else its first
    clause, at most `width` characters (cut at a word, marked "…")."""
    label = figure.split(":", 1)[0] if ":" in figure else figure.split(", ", 1)[0]
    if len(label) <= width:
        return label
    return label[: label.rfind(" ", 0, width - 1)] + " …"


def _constant(node, names: dict):
    if isinstance(node, ast.Constant):
        return node.value
    return names.get(node.id) if isinstance(node, ast.Name) else None


def _config_dir() -> Path:
    """The package `mfx.conf` (conf/ of the checkout in an editable install)."""
    return Path(str(importlib.resources.files("mfx.conf")))


def grid_sizes(name: str) -> dict[str, int | None]:
    """Jobs of the experiment's own sweep per scale: the product of its axes' comma-separated values
    (None where the grid does not resolve from the experiment's YAML alone)."""
    sizes: dict[str, int | None] = dict.fromkeys(SCALES)
    try:
        cfg = OmegaConf.load(_config_dir() / "experiment" / f"{name}.yaml")
    except (OSError, OmegaConfBaseException):
        return sizes
    for scale in SCALES:
        try:
            scaled = OmegaConf.merge(cfg, {"scale": scale})
            params = OmegaConf.select(scaled, "hydra.sweeper.params")  # none: a single job
            params = OmegaConf.to_container(params, resolve=True) if params is not None else {}
            size = 1
            for value in params.values():
                size *= len(_split(value)) if isinstance(value, str) else 1
            sizes[scale] = size
        except (OmegaConfBaseException, AttributeError):
            pass
    return sizes


def _split(value: str) -> list[str]:
    """The items of a sweep `a,b,c` (commas inside brackets or quotes do not split)."""
    items, depth, quote, current = [], 0, "", ""
    for ch in value:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        current += ch
    return [*items, current]


# The cost model behind `mfx run --dry-run`'s estimates (and the progress bars' weights) where no
# earlier run under `out` recorded a job's time: a job's size in units is the product of its size keys
# (a list value counts its sum: one run per entry), and costs.json gives seconds per unit per experiment
# and scale, measured by `mfx calibrate OUT` over the jobs of a finished run (its header says which run,
# commit and machine).  A rough guide: what a key does not name (quad_escape's SGD only at p = p*, a
# case's own sizes, the rate search's steps) it does not see; the jobs' own recorded times replace it.
SIZE_KEYS: dict[str, tuple[str, ...]] = {
    "quad_curves": ("model.N", "model.sgd_seeds"),
    "quad_escape": ("model.sgd_N", "model.sgd_seeds"),  # its SGD at p = p* dominates: an average job
    "quad_hessian": ("model.p", "model.p_star", "model.sgd_N"),
    "quad_implicit_bias": ("model.p", "model.N", "model.sgd_seeds"),
    "quad_norms": ("model.p", "model.norm_N", "model.sgd_seeds"),
    "resnet_departure": ("model.M", "model.ratio", "model.reps"),
    "resnet_depth": ("model.L", "model.M", "model.reps"),
    "resnet_dim": ("model.D", "model.L", "model.M", "model.reps"),
    "resnet_lazy": ("model.L", "model.M", "model.reps"),
    "resnet_limit": ("model.L", "model.M", "model.draws", "model.reps"),
    "resnet_phase": ("model.D", "model.L", "model.M", "model.reps"),
    "resnet_ratio": ("model.M", "model.ratio", "model.reps"),
    "resnet_width": ("model.L", "model.M", "model.reps"),
    "transformer_adjoint": ("model.Ls", "model.M", "model.seeds"),
    "transformer_convergence": ("model.L", "model.H", "model.n", "model.seeds", "model.steps"),
    "transformer_limit": ("model.L", "model.H", "model.seeds", "model.steps"),
    "transformer_ntk": ("model.Ns", "model.ns", "model.seeds"),
}
COSTS = ROOT / "costs.json"
_COSTS = json.loads(COSTS.read_text())
MEASURED: dict[str, dict[str, float]] = _COSTS["seconds_per_unit"]
MEASURED_BY: str = _COSTS["measured"]  # which run, commit and machine


def cost(name: str, scale: str) -> float | None:
    """Seconds per unit of a job of `name` at `scale`: measured at that scale, else the quick value."""
    measured = MEASURED.get(name, {})
    return measured.get(scale) or measured.get("quick")


def units(name: str, config) -> float | None:
    """A job's size in the units of `cost(name, …)` (its config: a DictConfig, or resolved as in
    provenance.json), or None."""
    keys = SIZE_KEYS.get(name, ())
    total = 1.0
    for key in keys:
        v = _size(config, key)
        v = sum(v) if isinstance(v, (list, tuple, ListConfig)) else v
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            return None
        total *= v
    return total if keys else None


def seconds_per_unit(name: str, provenances: list[dict]) -> float | None:
    """Seconds per unit of the recorded jobs (their provenance.json: `seconds`, `config`): their total
    time over their total units, so that the estimate of the recorded sweep itself is its real total."""
    seconds = size = 0.0
    for prov in provenances:
        n = units(name, prov.get("config"))
        if n and isinstance(prov.get("seconds"), (int, float)):
            seconds, size = seconds + prov["seconds"], size + n
    return seconds / size if size else None


def select(config, key: str):
    """A dotted key of a config: a DictConfig, or a resolved one read from JSON (None if absent)."""
    if isinstance(config, DictConfig):
        return OmegaConf.select(config, key)
    for part in key.split("."):
        config = config.get(part) if isinstance(config, dict) else None
    return config


def _size(config, key: str):
    """A size key of a job; a `model.*` key its case overrides (`cases.<model.case>.*`) is the case's."""
    case = select(config, "model.case")
    leaf = key.removeprefix("model.")
    own = select(config, f"cases.{case}.{leaf}") if isinstance(case, str) and leaf != key else None
    return select(config, key) if own is None else own


# The metric glossary (`mfx metrics`): columns every row has, then each family's table
# (mfx/<family>/metrics.py: its coordinate columns, and per experiment the values of `metric`).
COMMON_COLUMNS = {
    "experiment": "the experiment that made the row",
    "scale": "quick or paper",
    "seed": "seed of the row's random draws (a rep of a job's seed block)",
    "metric": "what `value` measures (the metrics below)",
    "value": "the measured number",
    "status": "ok, or why the value is not a measurement (diverged, no_escape, …)",
    "config_hash": "hash of the job's configuration (added by mfx collect)",
}
GLOSSARIES = {"resnet": resnet_metrics, "quadratic": quadratic_metrics, "transformer": transformer_metrics}


def glossary(name: str) -> tuple[dict[str, str], dict[str, str]]:
    """({column: meaning}, {metric: meaning}) of an experiment's rows; in a name `<k>` stands for a
    number, any other `<word>` for a name (`lam_min_<block>`: lam_min_QK, lam_min_full, …)."""
    module = GLOSSARIES[entries()[name].family]
    return {**COMMON_COLUMNS, **module.COLUMNS}, dict(module.METRICS.get(name, {}))


def meaning(words: dict[str, str], code: str) -> str | None:
    """The glossary line of `code` (a column or metric name), or None."""
    if code in words:
        return words[code]
    for name, text in words.items():
        # placeholders: <k> a number, any other <word> (an NTK block, …) a name
        pattern = re.sub(r"<(\w+)>", lambda m: r"\d+" if m[1] == "k" else r"[A-Za-z0-9]+", re.escape(name))
        if "<" in name and re.fullmatch(pattern, code):
            return text
    return None
