"""What an experiment is, the registry of them, and the claims they evaluate.

An experiment is one figure of a paper: `run(cfg) -> rows` computes one job of its sweep (a grid
point with all its seeds) and `claims(table) -> [Claim]` evaluates the paper's quantitative
statements on the collected table.  Each figure's module `mfx/<family>/experiments/<figure>.py`
registers it when imported; `load_all()` imports every family's `experiments` package.  Its plot
function lives in `mfx/<family>/plots.py` and registers itself with `mfx.plotting.draws`, so a job
process (which imports only the experiments) never imports matplotlib.
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
PAPERS = {
    "resnet": "Chizat, *The Hidden Width of Deep ResNets: Tight Error Bounds and Phase Diagram* (arXiv 2509.10167)",
    "quadratic": "Bocchi, Regimbeau, Lucibello, Saglietti, Cammarota, *Escape dynamics and implicit bias of "
    "one-pass SGD in overparameterized quadratic networks* (arXiv 2604.03068)",
    "transformer": "Barboni, de Hoop, Furuya, Peyré, *Training Infinitely Deep and Wide Transformers* "
    "(arXiv 2605.17660)",
    "toy": "test-only",
}
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


VERDICTS = ("pass", "fail", "inconclusive")
RULE = (
    "pass: the measured value lies in the allowed range and 2·u ≤ the claim's resolution (the "
    "tolerance of a two-sided claim, the margin to the bound of a one-sided one); fail: it lies "
    "outside by more than 2·u; inconclusive: otherwise, or when it is not finite, u is unknown, or "
    "it rests on fewer points than the claim needs.  u is the value's standard uncertainty "
    "(fit SE or seed-bootstrap SD; 0 for an exact check)."
)


def decide(measured: float, low: float, high: float, u: float, resolution: float | None = None) -> str:
    """The one verdict rule of mfx (RULE) for a value `measured` ± `u` and allowed range [low, high].

    `resolution` is the tolerance of a two-sided claim; for a one-sided claim (an infinite end) it
    is the margin between the measured value and the bound.
    """
    if not (math.isfinite(measured) and math.isfinite(u)) or u < 0:
        return "inconclusive"
    outside = max(low - measured, measured - high, 0.0)
    if outside > 2 * u or (outside > 0 and u == 0):
        return "fail"
    if outside > 0:
        return "inconclusive"
    if resolution is None:
        resolution = min(measured - low, high - measured)
    return "pass" if 2 * u <= resolution else "inconclusive"


@dataclass
class Claim:
    """One quantitative statement of a paper, evaluated on a collected table.

    `u` is the standard uncertainty of `measured` and `how` says what it is ("fit SE", "seed
    bootstrap SD", "exact"); `points` and `seeds` are what the value rests on.  `identity` marks a
    check that no realistic mistake in the physics can flip (a closed form, a property of the
    integrator): the report labels it so that a reader knows it does not test the physics.
    """

    experiment: str
    statement: str
    measured: float
    expected: str  # e.g. "-0.5 ± 0.1", "≤ 1e-09"
    verdict: str
    u: float
    how: str
    points: int
    seeds: int
    detail: str = ""
    identity: bool = False
    low: float = -math.inf
    high: float = math.inf

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @classmethod
    def _make(
        cls,
        experiment,
        statement,
        measured,
        expected,
        low,
        high,
        resolution,
        detail="",
        *,
        u=0.0,
        how="exact",
        points=1,
        seeds=1,
        identity=False,
        min_points=1,
    ):
        measured = float(measured)
        u = 0.0 if how == "exact" else float(u)
        verdict = decide(measured, low, high, u, resolution)
        if points < min_points:
            verdict = "inconclusive"
            detail = f"{detail}; needs ≥ {min_points} points".lstrip("; ")
        return cls(
            experiment,
            statement,
            measured,
            expected,
            verdict,
            u,
            how,
            int(points),
            int(seeds),
            detail,
            identity,
            low,
            high,
        )

    @classmethod
    def within(cls, experiment, statement, measured, target, tol, detail="", relative=False, **kw):
        """|measured − target| ≤ tol (or ≤ tol·|target| when relative).  `kw`: u, how, points, seeds,
        identity, min_points (see the class docstring)."""
        bound = tol * abs(target) if relative else tol
        expected = f"{target:g} ± {tol:g}{' (rel.)' if relative else ''}"
        return cls._make(
            experiment, statement, measured, expected, target - bound, target + bound, bound, detail, **kw
        )

    @classmethod
    def at_most(cls, experiment, statement, measured, bound, detail="", **kw):
        return cls._make(
            experiment, statement, measured, f"≤ {bound:g}", -math.inf, bound, None, detail, **kw
        )

    @classmethod
    def at_least(cls, experiment, statement, measured, bound, detail="", **kw):
        return cls._make(experiment, statement, measured, f"≥ {bound:g}", bound, math.inf, None, detail, **kw)

    def pass_probability(self) -> float:
        """P(a rerun with fresh seeds passes), from a normal law N(measured, u²) of the value.

        u is held fixed, so this is the probability that the value lands in the range where the
        rule passes; for an exact check it is 0 or 1.
        """
        if not (math.isfinite(self.measured) and math.isfinite(self.u)):
            return float("nan")
        if self.u == 0:
            return float(self.passed)
        lo, hi = self.low, self.high
        if math.isfinite(lo) and math.isfinite(hi):
            if 2 * self.u > (hi - lo) / 2:
                return 0.0
        else:  # one-sided: the value must lie 2u inside the bound
            lo, hi = (lo + 2 * self.u, hi) if math.isfinite(lo) else (lo, hi - 2 * self.u)
        cdf = lambda x: 0.5 * (1 + math.erf((x - self.measured) / (self.u * math.sqrt(2))))
        return max(0.0, cdf(hi) - cdf(lo))


@dataclass(frozen=True)
class Experiment:
    """A registered figure: see the module docstring.  `validate(cfg)` raises ConfigError."""

    name: str
    family: str
    description: str
    figure: str
    run: Callable[[DictConfig], Any]
    claims: Callable[[pd.DataFrame], list[Claim]]
    validate: Callable[[DictConfig], None] = field(default=lambda cfg: None)
    # Peak bytes of one job from its config (refused before anything runs if it exceeds the
    # machine's available memory), and the keys that drive it (named in the refusal).
    memory: Callable[[DictConfig], float] | None = None
    memory_keys: str = ""


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
