"""What an experiment is, the registry of them, and the claims they evaluate.

An experiment is one figure of a paper: `run(cfg) -> rows` computes one job of its sweep (a grid
point with all its seeds), `plot(table) -> {name: Figure}` draws the collected table and
`claims(table) -> [Claim]` evaluates the paper's quantitative statements on it.  Families register
their experiments when `mfx.<family>.experiments` is imported; `load_all()` imports every family.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

FAMILIES = ("resnet", "quadratic", "transformer")
SCALES = ("quick", "paper")


class ConfigError(ValueError):
    """A user's mistake in the configuration; its message is the one line shown to them."""


def check(
    cfg: DictConfig,
    key: str,
    kind: type = int,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    choices: tuple | list | None = None,
) -> Any:
    """Validate `cfg[key]` (dotted key) and return it; raise ConfigError naming key and allowed range.

    `kind` is int, float, str or bool; ints are accepted where floats are asked for.
    `low`/`high` are inclusive bounds (`open_low=True` makes `low` exclusive, e.g. alpha > 0).
    """
    value = OmegaConf.select(cfg, key, throw_on_missing=False)
    ok_types = {int: (int,), float: (int, float), str: (str,), bool: (bool,)}[kind]
    allowed = _describe(kind, low, high, open_low, choices)
    if value is None or isinstance(value, bool) != (kind is bool) or not isinstance(value, ok_types):
        raise ConfigError(f"{key} must be {allowed} (got {value!r})")
    if choices is not None and value not in choices:
        raise ConfigError(f"{key} must be {allowed} (got {value!r})")
    if kind in (int, float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{key} must be {allowed} (got {value!r})")
        if low is not None and (value <= low if open_low else value < low):
            raise ConfigError(f"{key} must be {allowed} (got {value!r})")
        if high is not None and value > high:
            raise ConfigError(f"{key} must be {allowed} (got {value!r})")
    return value


def _describe(kind, low, high, open_low, choices) -> str:
    if choices is not None:
        return "one of " + ", ".join(map(str, choices))
    name = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}[kind]
    parts = []
    if low is not None:
        parts.append(f"{'>' if open_low else '≥'} {low}")
    if high is not None:
        parts.append(f"≤ {high}")
    return name + (" " + " and ".join(parts) if parts else "")


@dataclass
class Claim:
    """One quantitative statement of a paper, evaluated on a collected table."""

    experiment: str
    statement: str  # e.g. "slope of error vs M at L=8"
    measured: float
    expected: str  # e.g. "-0.5 ± 0.1"
    passed: bool
    detail: str = ""  # how it was measured: fit SE, R², number of points, scale …

    @classmethod
    def within(cls, experiment, statement, measured, target, tol, detail="", relative=False):
        """|measured − target| ≤ tol (or ≤ tol·|target| when relative)."""
        bound = tol * abs(target) if relative else tol
        expected = f"{target:g} ± {tol:g}{' (rel.)' if relative else ''}"
        passed = bool(math.isfinite(measured) and abs(measured - target) <= bound)
        return cls(experiment, statement, float(measured), expected, passed, detail)

    @classmethod
    def at_most(cls, experiment, statement, measured, bound, detail=""):
        passed = bool(math.isfinite(measured) and measured <= bound)
        return cls(experiment, statement, float(measured), f"≤ {bound:g}", passed, detail)

    @classmethod
    def at_least(cls, experiment, statement, measured, bound, detail=""):
        passed = bool(math.isfinite(measured) and measured >= bound)
        return cls(experiment, statement, float(measured), f"≥ {bound:g}", passed, detail)


@dataclass(frozen=True)
class Experiment:
    """A registered figure: see the module docstring.  `validate(cfg)` raises ConfigError."""

    name: str
    family: str
    description: str
    figure: str
    run: Callable[[DictConfig], Any]
    plot: Callable[[pd.DataFrame], dict]
    claims: Callable[[pd.DataFrame], list[Claim]]
    validate: Callable[[DictConfig], None] = field(default=lambda cfg: None)


_REGISTRY: dict[str, Experiment] = {}


def register(experiment: Experiment) -> Experiment:
    _REGISTRY[experiment.name] = experiment
    return experiment


def load_all() -> dict[str, Experiment]:
    """Import every family so that its experiments register themselves."""
    for family in FAMILIES:
        importlib.import_module(f"mfx.{family}.experiments")
    return dict(sorted(_REGISTRY.items()))


def get(name: str | None) -> Experiment:
    experiments = load_all()
    if name not in experiments:
        raise ConfigError(f"experiment must be one of {', '.join(experiments)} (got {name!r})")
    return experiments[name]
