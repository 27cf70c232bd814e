"""The tidy table: per-job `rows.csv` (long format), provenance beside it, and collection.

Columns: `experiment`, `scale`, the coordinates an experiment returns (the varying config values
such as L, M, D, alpha, p, p_star, N, eta, H, family, seed, and step/time), then `metric`, `value`,
`status`.  Rows hold only what the computation determines, so the same job gives the same bytes;
provenance (config, versions, commit, device, time) lives in `provenance.json` beside them.
"""

from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from omegaconf import DictConfig, OmegaConf

import mfx
from mfx.experiment import ConfigError

ROWS = "rows.csv"
TABLE = "table.csv"
FIRST = ["experiment", "scale"]
LAST = ["metric", "value", "status"]
FLOAT_FORMAT = "%.12g"


def to_frame(rows, experiment: str, scale: str) -> pd.DataFrame:
    """Rows (list of dicts or DataFrame) → ordered table; non-finite values get status=diverged."""
    df = pd.DataFrame(rows).copy()
    if "metric" not in df or "value" not in df:
        raise ValueError(f"{experiment}: rows need 'metric' and 'value' columns")
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df.insert(0, "experiment", experiment)
    df.insert(1, "scale", scale)
    if "status" not in df:
        df["status"] = "ok"
    df["status"] = df["status"].fillna("ok")
    df.loc[~np.isfinite(df["value"]) & (df["status"] == "ok"), "status"] = "diverged"
    middle = [c for c in df.columns if c not in FIRST + LAST]
    return df[FIRST + middle + LAST]


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write atomically: a reader (or a resumed sweep) never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", newline="") as f:
        df.to_csv(f, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    os.replace(tmp, path)
    return path


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            check=False,
            cwd=Path(mfx.__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_provenance(job_dir: Path, cfg: DictConfig, device: str, seconds: float) -> None:
    info = {
        "mfx": mfx.__version__,
        "git_commit": _git_commit(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": device,
        "host": platform.node(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(seconds, 3),
        "config": OmegaConf.to_container(cfg, resolve=True),
    }
    (Path(job_dir) / "provenance.json").write_text(json.dumps(info, indent=2, default=str) + "\n")


def read_csv(path) -> pd.DataFrame:
    return pd.read_csv(path, low_memory=False)


def experiment_rows(table: pd.DataFrame, name: str, scale: str) -> pd.DataFrame:
    """The rows of one experiment and scale, typed as if its own sweep had been collected alone.

    In a table of several experiments, a column another experiment does not use is NaN for it,
    which turns its integers into floats; dropping those columns and re-reading restores them.
    """
    rows = table[(table["experiment"] == name) & (table["scale"] == scale)].dropna(axis=1, how="all")
    return read_csv(io.StringIO(rows.to_csv(index=False, float_format=FLOAT_FORMAT)))


def find_rows(dirs) -> list[Path]:
    return sorted({p for d in dirs for p in Path(d).rglob(ROWS)})


def collect(dirs) -> pd.DataFrame:
    """Concatenate every job's rows.csv under `dirs` (a half-finished sweep collects what finished)."""
    for d in dirs:
        if not Path(d).is_dir():
            raise ConfigError(f"collect: {d} is not a directory")
    paths = find_rows(dirs)
    if not paths:
        raise ConfigError(f"collect: no {ROWS} under {', '.join(map(str, dirs))} (run `mfx run` first)")
    table = pd.concat([read_csv(p) for p in paths], ignore_index=True)
    middle = [c for c in table.columns if c not in FIRST + LAST]
    return table[FIRST + middle + LAST]


def load_table(path: str | Path) -> tuple[pd.DataFrame, Path]:
    """A collected table from a table.csv, or from a directory (its table.csv, else collected now).

    Returns the table and the directory it belongs to (where figures and reports go by default).
    """
    path = Path(path)
    if path.is_file():
        return read_csv(path), path.parent
    if (path / TABLE).is_file():
        return read_csv(path / TABLE), path
    if path.is_dir():
        return collect([path]), path
    raise ConfigError(f"{path}: no such table or directory")
