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
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

if TYPE_CHECKING:  # an annotation only: `mfx --help` and `mfx list` load no pandas (mfx.lazy)
    import pandas as pd

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


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(x: float) -> str:
    """`x` as a reader writes it in a claim, a label or a legend: 1000000 → "10⁶", 30000 → "3 × 10⁴",
    0.001 → "10⁻³", 64 → "64", 0.25 → "0.25" (never "1e+06")."""
    x = float(x)
    if x == 0 or not math.isfinite(x) or 1e-2 <= abs(x) < 1e4:
        return f"{x:g}"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = round(x / 10**exponent, 2)
    power = f"10{str(exponent).translate(_SUPERSCRIPT)}"
    return power if mantissa == 1 else f"{mantissa:g} × {power}"


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


# What kind of evidence a claim is (DESIGN.md): a statement of a paper (quoted with its place), a
# prediction derived here (with its derivation's place), two implementations of one thing, or a check
# true by construction.  Reports count them in this order, paper statements first.
KINDS = ("paper", "derived", "cross-check", "identity")
# A claim resting on more excluded rows than this share (diverged, not escaped, outside the window) is
# inconclusive, unless the exclusion is itself what the claim predicts.
MAX_EXCLUDED = 0.2


@dataclass
class Claim:
    """One quantitative statement, evaluated on a collected table.

    `u` is the standard uncertainty of `measured` and `how` says what it is ("fit SE", "seed
    bootstrap SD", "exact"); `points` and `seeds` are what the value rests on.  `kind` is one of
    KINDS and `source` says where the statement comes from: for a `paper` claim the paper's statement
    and its place ("Chizat Thm 1: O(1/L + 1/√(LM))"), for a `derived` one where its derivation lives
    (module or note), for the others what is compared or why it holds.  `excluded` counts the rows
    (runs, seeds) the value leaves out, `excluded_why` says why, `of` is how many there were.
    `untrained` = (runs that do not train, runs): a claim about trained dynamics fails when more than
    MAX_EXCLUDED of its runs do not train (issue 36: training off must fail it).
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
    kind: str = ""
    source: str = ""
    low: float = -math.inf
    high: float = math.inf
    excluded: int = 0
    excluded_why: str = ""
    of: int = 0
    # The statement part it serves (mfx.statements: "<id>/<part>"), the realistic mistake its can-fail
    # test injects, the smallest size of that mistake it fails (NaN: not measured) against the target
    # its statement asks for, and the audit seeds seen before its range was set (empty: before data).
    statement_id: str = ""
    mistake: str = ""
    detects: float = math.nan
    detects_target: float = math.nan
    post_hoc: str = ""

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def identity(self) -> bool:
        return self.kind == "identity"

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
        kind,
        source,
        u=0.0,
        how="exact",
        points=1,
        seeds=1,
        min_points=1,
        at_bound=(),
        excluded=0,
        excluded_why="",
        of=0,
        exclusion_expected=False,
        untrained=(0, 0),
        statement_id="",
        mistake="",
        detects=math.nan,
        detects_target=math.nan,
        post_hoc="",
    ):
        """`at_bound`: names of fitted coefficients the value rests on that sit at a bound of their
        range (`Fit.at_bound`): such a value is not a measurement, and the claim is inconclusive."""
        if kind not in KINDS:
            raise ValueError(f"claim {statement!r}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
        if not str(source).strip() or "TODO" in source:
            raise ValueError(f"claim {statement!r}: a {kind} claim names its source")
        measured = float(measured)
        u = 0.0 if how == "exact" else float(u)
        verdict = decide(measured, low, high, u, resolution)
        notes = [detail] if detail else []
        if points < min_points:
            verdict = "inconclusive"
            notes.append(f"needs ≥ {min_points} points")
        if at_bound:
            verdict = "inconclusive"
            notes.append(f"rests on {', '.join(at_bound)} at the bound of its range (≈ 0, not measured)")
        if post_hoc:
            notes.append(f"range set after seeing seeds {post_hoc} (post hoc)")
        if excluded:
            share = excluded / of if of else 1.0
            notes.append(f"left out {excluded} of {of or '?'} ({excluded_why})")
            if share > MAX_EXCLUDED and not exclusion_expected:
                verdict = "inconclusive"
                notes.append(f"more than {MAX_EXCLUDED:.0%} left out")
        inert, runs = untrained
        if inert > MAX_EXCLUDED * runs:
            # a claim about trained dynamics read on runs that do not train is contradicted, not unmeasured
            verdict = "fail"
            notes.append(f"{inert} of {runs} runs do not train")
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
            "; ".join(notes),
            kind,
            source,
            low,
            high,
            int(excluded),
            excluded_why,
            int(of),
            statement_id=str(statement_id),
            mistake=str(mistake),
            detects=float(detects),
            detects_target=float(detects_target),
            post_hoc=str(post_hoc),
        )

    @classmethod
    def within(cls, experiment, statement, measured, target, tol, detail="", relative=False, **kw):
        """|measured − target| ≤ tol (or ≤ tol·|target| when relative).  `kw`: kind and source
        (required), u, how, points, seeds, min_points, at_bound, excluded, excluded_why, of,
        exclusion_expected, and the statement keywords statement_id, mistake, detects,
        detects_target, post_hoc (`mfx.statements.power(entry, scale)` gives them from a ranges entry)."""
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
