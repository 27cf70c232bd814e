"""What `mfx list` shows, read without importing the experiments (they load torch): each
experiment's name, family, figure and description from its registration in the source
(`register(Experiment(name=..., ...))` in `mfx/<family>/experiments/*.py`, read with `ast`), and its
jobs per scale from its YAML grid.  tests/test_cli.py checks both against the registry and Hydra's
own count (`mfx.sweep.grid_sizes`).
"""

from __future__ import annotations

import ast
import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mfx.experiment import FAMILIES, SCALES

ROOT = Path(__file__).parent
FIELDS = ("name", "family", "figure", "description")


@dataclass(frozen=True)
class Entry:
    name: str
    family: str
    figure: str
    description: str


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
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Experiment":
                    kw = {k.arg: _constant(k.value, names) for k in node.keywords}
                    if all(isinstance(kw.get(f), str) for f in FIELDS):
                        entry = Entry(*(kw[f] for f in FIELDS))
                        found[entry.name] = entry
    return dict(sorted(found.items()))


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
