"""The tidy table: per-job files, the rule that makes a job complete, and collection.

A job folder holds `rows.csv` (long format, one row per measurement), `provenance.json` (resolved
config, versions, commit, device, time) and, written last, `done.json`: the job's identity hashes
and the row count and SHA-256 of its rows.  A job is complete exactly when `done.json` is there
and matches `rows.csv`, so a kill or a full disk at any moment leaves either a complete job or one
that resume reruns and collect skips.

Columns of `rows.csv`: `experiment`, `scale`, the coordinates an experiment returns (the varying
config values such as L, M, D, alpha, p, p_star, N, eta, H, family, seed, and step/time), then
`metric`, `value`, `status`.  Rows hold only what the computation determines, so the same job gives
the same bytes.  `collect` adds `config_hash` (the job's configuration) to every row of the table
and writes `table.json` beside it: each sweep's configuration hash, overrides, commits, versions,
devices and dates (the report's provenance header).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from omegaconf import DictConfig, OmegaConf

import mfx
from mfx import experiment as registry
from mfx import locks
from mfx.experiment import SCALES, ConfigError

ROWS = "rows.csv"
TABLE = "table.csv"
PROVENANCE = "provenance.json"
DONE = "done.json"
TABLE_INFO = "table.json"
FIRST = ["experiment", "scale"]
LAST = ["metric", "value", "status"]
FLOAT_FORMAT = "%.12g"
# Keys that do not change a job's numbers: where files go, resuming, threads (rows are byte-identical
# for any thread count), and the hash mfx itself derives.
VOLATILE = ("out", "cache_dir", "resume", "sweep_hash", "variant", "runtime.threads")


# ------------------------------------------------------------------------------------ writing


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "", platform.node())[:32] or "host"


TEMPORARY = re.compile(r"^\..+\.(?P<host>[A-Za-z0-9]*)-(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


def write_bytes(path: Path, data: bytes) -> Path:
    """Write atomically (temporary name, then rename) with the user's umask; never leave a temporary.

    A reader, a resumed sweep or a concurrent writer sees the old file or the new one, never half.
    The temporary's name holds the writer's host and pid, so that one left by a killed process is
    recognised and removed (`remove_stale_temporaries`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{_host()}-{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not e.filename:  # name the file the user will look for
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        raise
    return path


def remove_stale_temporaries(folder: Path) -> int:
    """Remove the temporaries in `folder` left by killed writers of this host; return how many."""
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        m = TEMPORARY.match(name)
        if m and m["host"] == _host() and not locks.alive(int(m["pid"])):
            with contextlib.suppress(OSError):
                os.unlink(Path(folder) / name)
                removed += 1
    return removed


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n").encode()


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    return write_bytes(path, csv_bytes(df))


def write_json(obj, path: Path) -> Path:
    return write_bytes(path, (json.dumps(obj, indent=2, default=str) + "\n").encode())


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


# --------------------------------------------------------------------------------- identities


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


def identity(cfg: DictConfig, drop=()) -> dict:
    """The resolved config without the keys that do not change the numbers (VOLATILE, `hydra`, `drop`)."""
    container = OmegaConf.to_container(
        OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]), resolve=True
    )
    for key in (*VOLATILE, *drop):
        *parents, leaf = key.split(".")
        node = container
        for p in parents:
            node = node.get(p, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(leaf, None)
    return container


def config_hash(cfg: DictConfig, drop=()) -> str:
    """Hash of a job's configuration (or, with `drop` = the grid axes, of its sweep's)."""
    return _hash(identity(cfg, drop))


@functools.cache
def code_hash() -> str:
    """Hash of mfx's own source and configs: new code never reuses rows of old code."""
    root = Path(mfx.__file__).parent
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".yaml") and p.is_file())
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


@functools.cache
def git_state() -> tuple[str, bool | None]:
    """(commit, dirty) of the checkout mfx runs from; ("unknown", None) outside a git checkout."""
    where = Path(mfx.__file__).parent

    def git(*args):
        return subprocess.run(
            ["git", *args], check=False, cwd=where, capture_output=True, text=True, timeout=10
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        if not commit:
            return "unknown", None
        return commit, bool(git("status", "--porcelain", "--untracked-files=no", "--", "."))
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


def job_hash(cfg: DictConfig) -> str:
    """What resume compares: the job's configuration and mfx's code."""
    return f"{config_hash(cfg)}-{code_hash()}"


# ------------------------------------------------------------------------------------ one job


def write_job(job_dir: Path, rows: pd.DataFrame, cfg: DictConfig, device: str, seconds: float, extra: dict):
    """Write rows.csv, provenance.json and, last, done.json (the job's completion marker)."""
    job_dir = Path(job_dir)
    data = csv_bytes(rows)
    commit, dirty = git_state()
    write_bytes(job_dir / ROWS, data)
    provenance = {
        "mfx": mfx.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "code_hash": code_hash(),
        "config_hash": config_hash(cfg),
        "sweep_hash": cfg.get("sweep_hash"),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": device,
        "dtype": OmegaConf.select(cfg, "runtime.dtype"),
        "host": platform.node(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(seconds, 3),
        **extra,
        "config": OmegaConf.to_container(cfg, resolve=True),
    }
    write_json(provenance, job_dir / PROVENANCE)
    done = {
        "job_hash": job_hash(cfg),
        "config_hash": config_hash(cfg),
        "sweep_hash": cfg.get("sweep_hash"),
        "rows": len(rows),
        "rows_sha256": hashlib.sha256(data).hexdigest(),
    }
    write_json(done, job_dir / DONE)


def read_json(path: Path):
    try:
        obj = json.loads(Path(path).read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def job_state(job_dir: Path) -> tuple[str, dict | None]:
    """("complete" | "incomplete" | "damaged", done.json): complete iff the marker matches rows.csv."""
    job_dir = Path(job_dir)
    done = read_json(job_dir / DONE)
    if done is None:
        return "incomplete", None
    try:
        data = (job_dir / ROWS).read_bytes()
    except OSError:
        return "damaged", done
    if hashlib.sha256(data).hexdigest() != done.get("rows_sha256") or not (job_dir / PROVENANCE).is_file():
        return "damaged", done
    return "complete", done


def mark_incomplete(job_dir: Path) -> None:
    """Remove the completion marker (and temporaries of killed writers) before a job is (re)computed."""
    with contextlib.suppress(FileNotFoundError):
        (Path(job_dir) / DONE).unlink()
    remove_stale_temporaries(job_dir)


# --------------------------------------------------------------------------------- collecting


def read_csv(path) -> pd.DataFrame:
    return pd.read_csv(path, low_memory=False)


def experiment_rows(table: pd.DataFrame, name: str, scale: str) -> pd.DataFrame:
    """The rows of one experiment and scale, typed as if its own sweep had been collected alone.

    In a table of several experiments, a column another experiment does not use is NaN for it,
    which turns its integers into floats; dropping those columns and re-reading restores them.
    """
    rows = table[(table["experiment"] == name) & (table["scale"] == scale)].dropna(axis=1, how="all")
    return read_csv(io.StringIO(rows.to_csv(index=False, float_format=FLOAT_FORMAT)))


def find_jobs(dirs) -> list[Path]:
    """Every job folder under `dirs`: a folder holding rows.csv or done.json."""
    found = {p.parent for d in dirs for pattern in (ROWS, DONE) for p in Path(d).rglob(pattern)}
    return sorted(found)


def _check_rows(path: Path, done: dict) -> pd.DataFrame:
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        raise ConfigError(f"collect: {path} is damaged (its last line is cut)")
    try:
        df = pd.read_csv(io.BytesIO(data), low_memory=False)
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError(f"collect: {path} is not a valid rows file ({str(e).splitlines()[0]})") from None
    cols = list(df.columns)
    if cols[:2] != FIRST or cols[-3:] != LAST:
        raise ConfigError(f"collect: {path} has columns {cols[:2]}…{cols[-3:]}, expected {FIRST}…{LAST}")
    if len(df) != done.get("rows"):
        raise ConfigError(f"collect: {path} has {len(df)} rows, {done.get('rows')} were written")
    return df


def collect(dirs, mixed: bool = False) -> tuple[pd.DataFrame, dict]:
    """Concatenate the complete jobs under `dirs` (a half-finished sweep collects what finished).

    Returns the table (with `config_hash`) and its provenance (what `table.json` holds).  Refuses a
    damaged job, and jobs of one experiment and scale made by different configurations unless
    `mixed` — a variant must never change another sweep's verdict.
    """
    for d in dirs:
        if not Path(d).is_dir():
            raise ConfigError(f"collect: {d} is not a directory")
    frames, jobs, skipped = [], [], 0
    for job in find_jobs(dirs):
        state, done = job_state(job)
        if state == "incomplete":
            skipped += 1
            continue
        if state == "damaged":
            raise ConfigError(f"collect: {job / ROWS} is damaged (it does not match {DONE}); rerun its sweep")
        df = _check_rows(job / ROWS, done)
        df["config_hash"] = done.get("config_hash")
        frames.append(df)
        prov = read_json(job / PROVENANCE) or {}
        jobs.append(
            {
                "dir": str(job),
                **{k: v for k, v in prov.items() if k != "config"},
                **done,
                "experiments": sorted(set(zip(df["experiment"], df["scale"]))),
            }
        )
    if not frames:
        where = ", ".join(map(str, dirs))
        raise ConfigError(f"collect: no complete job under {where} (run `mfx run` first)")
    info = sweeps_of(jobs, mixed)
    info["incomplete_jobs"] = skipped
    table = pd.concat(frames, ignore_index=True)
    middle = [c for c in table.columns if c not in FIRST + LAST + ["config_hash"]]
    return table[FIRST + middle + LAST + ["config_hash"]], info


def sweeps_of(jobs: list[dict], mixed: bool) -> dict:
    """Group jobs by (experiment, scale, sweep hash); refuse two configurations of one experiment."""
    groups: dict[tuple, dict] = {}
    for job in jobs:
        for name, scale in job["experiments"]:
            key = (name, scale, job.get("sweep_hash"))
            g = groups.setdefault(
                key,
                {
                    "experiment": name,
                    "scale": scale,
                    "sweep_hash": key[2],
                    "dirs": set(),
                    "commits": set(),
                    "dirty": False,
                    "mfx": set(),
                    "torch": set(),
                    "devices": set(),
                    "dtypes": set(),
                    "dates": set(),
                    "overrides": job.get("overrides"),
                },
            )
            g["dirs"].add(str(Path(job["dir"]).parent))
            g["commits"].add(job.get("git_commit", "unknown"))
            g["dirty"] |= bool(job.get("git_dirty"))
            for k, src in (
                ("mfx", "mfx"),
                ("torch", "torch"),
                ("devices", "device"),
                ("dtypes", "dtype"),
                ("dates", "finished"),
            ):
                g[k].add(str(job.get(src)))
    by_exp: dict[tuple, list] = {}
    for (name, scale, h), g in groups.items():
        by_exp.setdefault((name, scale), []).append(g)
    is_mixed = False
    for (name, scale), gs in by_exp.items():
        if len(gs) > 1:
            if not mixed:
                folders = "; ".join(f"{', '.join(sorted(g['dirs']))} ({g['sweep_hash']})" for g in gs)
                raise ConfigError(
                    f"collect: {name}/{scale} has jobs of {len(gs)} configurations: {folders}; "
                    "collect each sweep folder alone, or pass --mixed"
                )
            is_mixed = True
    sweeps = []
    for g in groups.values():
        dates = sorted(g.pop("dates"))
        sweeps.append(
            {
                **{k: sorted(v) if isinstance(v, set) else v for k, v in g.items()},
                "first_job": dates[0],
                "last_job": dates[-1],
            }
        )
    return {"mixed": is_mixed, "sweeps": sorted(sweeps, key=lambda s: (s["experiment"], s["scale"]))}


def valid_table(table: pd.DataFrame, path) -> pd.DataFrame:
    """Check that a table read from `path` is an mfx table; ConfigError naming what is wrong."""
    missing = [c for c in FIRST + LAST if c not in table.columns]
    if missing:
        raise ConfigError(f"{path}: not an mfx table (missing column {', '.join(missing)})")
    if table.empty:
        raise ConfigError(f"{path}: the table has no rows")
    bad = sorted(set(table["scale"].astype(str)) - set(SCALES))
    if bad:
        raise ConfigError(f"{path}: scale must be one of {', '.join(SCALES)} (got {bad[0]!r})")
    # experiment names become file names: only registered ones (never a path from the data)
    names = registry.load_all()
    bad = sorted(set(table["experiment"].astype(str)) - set(names))
    if bad:
        raise ConfigError(f"{path}: experiment must be one of {', '.join(names)} (got {bad[0]!r})")
    if not pd.api.types.is_numeric_dtype(table["value"]):
        raise ConfigError(f"{path}: column 'value' is not numeric")
    if not np.isfinite(table["value"].to_numpy(dtype=float)).any():
        raise ConfigError(f"{path}: column 'value' has no finite number (every job diverged?)")
    return table


def _read_table(path: Path) -> pd.DataFrame:
    try:
        return valid_table(read_csv(path), path)
    except ConfigError:
        raise
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise ConfigError(f"{path}: not a readable CSV table ({str(e).splitlines()[0]})") from None


def load_table(path: str | Path, warn=print) -> tuple[pd.DataFrame, dict, Path]:
    """A collected table, its provenance and the directory it belongs to (where figures go).

    A directory with jobs is collected afresh (so a report never shows a stale table) and its
    table.csv rewritten; a directory without jobs, or a table.csv file, is read as it is, with a
    warning if jobs beside it are newer.
    """
    path = Path(path)
    if path.is_dir() and find_jobs([path]):
        table, info = collect([path])
        write_csv(table, path / TABLE)
        write_json(info, path / TABLE_INFO)
        return table, info, path
    file = path / TABLE if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{path}: no such table or directory")
    table = _read_table(file)
    info = read_json(file.with_suffix(".json")) or {}
    newer = [
        j
        for j in find_jobs([file.parent])
        if (j / DONE).exists() and (j / DONE).stat().st_mtime > file.stat().st_mtime
    ]
    if newer:
        warn(f"warning: {file} is older than {len(newer)} job(s) beside it; run `mfx collect` again")
    return table, info, file.parent


SWEEP = "sweep.json"


def sweeps_under(root) -> list[dict]:
    """The sweeps under `root` (folders with sweep.json, or holding job folders): folder, jobs
    planned (None if unknown), complete and incomplete job counts."""
    root = Path(root)
    folders = {p.parent for p in root.rglob(SWEEP)}
    for job in find_jobs([root]):
        if not any(f == job or f in job.parents for f in folders):
            folders.add(job.parent)
    out = []
    for folder in sorted(folders):
        info = read_json(folder / SWEEP) or {}
        states = [job_state(j)[0] for j in find_jobs([folder])]
        complete = states.count("complete")
        planned = info.get("jobs") if isinstance(info.get("jobs"), int) else None
        incomplete = len(states) - complete
        if planned is not None:
            incomplete = max(planned - complete, incomplete)
        out.append({"folder": folder, "jobs": planned, "complete": complete, "incomplete": incomplete})
    return out
