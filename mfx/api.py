"""The Python API: results and claims as pandas DataFrames, from any folder `mfx run` wrote.

    import mfx
    table = mfx.load("outputs/resnet_depth/quick")           # one row per measurement
    claims = mfx.load_claims("outputs")                      # every claim of every report under it

`sweeps(path)` finds the sweeps under a path (an output root, an experiment's folder or one sweep):
each sweep is collected alone, so a variant never mixes into the table of the experiment's own
configuration — `mfx report` and `mfx.load` both rest on it.  Nothing here writes a file.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

from mfx import lazy
from mfx.experiment import ConfigError

# `import mfx` loads this module: what loads pandas, torch or matplotlib loads on first use (mfx.lazy)
pd = lazy.module("pandas")
results = lazy.module("mfx.results")
report = lazy.module("mfx.report")  # claims of a table without a report


@dataclass
class Sweep:
    """One sweep folder's complete jobs: its table, provenance (table.json's content) and folder."""

    folder: Path
    table: object  # a pandas DataFrame
    info: dict

    @property
    def overrides(self) -> list[str]:
        return [o for s in self.info.get("sweeps", []) for o in (s.get("overrides") or [])]

    @property
    def partial(self) -> list[str]:
        """ "partial: 1 of 3 jobs of toy/quick complete (2 pending)" for each sweep of it not complete."""
        return results.partial_lines(self.info)


class PartialGrid(UserWarning):
    """What `load` and `load_claims` warn when a sweep read has pending, running or failed jobs."""


def _warn_partial(found: list[Sweep]) -> list[str]:
    lines = [line for s in found for line in s.partial]
    for line in lines:
        warnings.warn(f"{line}: the table holds those jobs only", PartialGrid, stacklevel=3)
    return lines


def sweeps(path, mixed: bool = False, warn=None) -> list[Sweep]:
    """The sweeps under `path`, each collected alone, in folder order.

    `path` may be a table.csv (one "sweep", read as it is), a sweep folder, an experiment's folder or
    an output root.  `mixed=True` collects all of `path` as one table (several configurations of one
    experiment knowingly mixed, as `mfx collect --mixed`).  `warn(text)` hears of a table older than
    the jobs beside it.
    """
    path = Path(path)
    if path.is_file():
        table, info, home = results.load_table(path, warn=warn or (lambda text: None))
        return [Sweep(home, table, info)]
    if not path.is_dir():
        raise ConfigError(f"{path}: no such table or directory")
    if mixed:
        table, info = results.collect([path], mixed=True)
        return [Sweep(path, table, info)]
    found = []
    for s in results.sweeps_under(path):
        if s["complete"]:
            table, info = results.collect([s["folder"]])
            found.append(Sweep(s["folder"], table, info))
    if not found:
        if (path / results.TABLE).is_file():  # a collected table without its jobs
            return sweeps(path / results.TABLE, warn=warn)
        raise ConfigError(f"{path}: no complete job and no table.csv under it (run `mfx run` first)")
    return found


def load(path, mixed: bool = False):
    """Every measurement under `path` as one DataFrame (long format: experiment, scale, the grid
    coordinates, seed, metric, value, status, config_hash), with a `sweep` column naming the sweep
    folder each row comes from.  Columns are described by `mfx metrics`.  A sweep with pending,
    running or failed jobs warns `PartialGrid` ("partial: 1 of 3 jobs …"), and `table.attrs["partial"]`
    lists those lines."""
    found = sweeps(path, mixed)
    partial = _warn_partial(found)
    frames = [s.table.assign(sweep=str(s.folder)) for s in found]
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    table.attrs["partial"] = partial  # [] when every sweep's grid is complete
    return table


def load_claims(path):
    """Every claim under `path` as one DataFrame (the columns of claims.csv: experiment, claim,
    measured, u, expected, low, high, verdict, kind, source, …) with a `report` column naming the
    folder of its report.  A claims.csv is read as it is; a sweep without one is evaluated now."""
    path = Path(path)
    if path.is_file() and path.name == "claims.csv":
        return results.read_csv(path).assign(report=str(path.parent))
    frames = []
    found = sweeps(path)
    _warn_partial(found)
    for s in found:
        file = s.folder / "claims.csv"
        if file.is_file():
            frames.append(results.read_csv(file).assign(report=str(s.folder)))
        else:
            claims = [
                c for exp, _, rows in report.by_experiment(s.table) for c in report.claims_of(exp, rows)
            ]
            frames.append(report.claims_frame(claims).assign(report=str(s.folder)))
    return pd.concat(frames, ignore_index=True)
