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
import errno
import functools
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import re
import secrets
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

import mfx
from mfx import experiment as registry
from mfx import locks
from mfx.experiment import SCALES, ConfigError
from mfx.text import CONTROL, printable

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


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "", platform.node())[:32] or "host"


TEMPORARY = re.compile(r"^\..+\.(?P<host>[A-Za-z0-9]*)-(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


def write_bytes(path: Path, data: bytes, root: Path | None = None) -> Path:
    """Write atomically (temporary name, then rename) with the user's umask; never leave a temporary.

    A reader, a resumed sweep or a concurrent writer sees the old file or the new one, never half.
    The temporary's name holds the writer's host and pid, so that one left by a killed process is
    recognised and removed (`remove_stale_temporaries`).  In a shared folder nothing is written
    through a link: the folders below `root` (default: the file's own folder) are opened without
    following symbolic links, and the rename replaces a planted link rather than writing through it.
    """
    path = Path(path)
    name = f".{path.name}.{_host()}-{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd_dir = open_folder(path.parent, path.parent if root is None else root)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=fd_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(name, path.name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=fd_dir)
            raise
    except OSError as e:
        if e.filename in (None, name):  # name the file the user will look for, not our temporary
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        raise
    finally:
        os.close(fd_dir)
    return path


def open_folder(folder: Path, root: Path) -> int:
    """A descriptor of `folder`, created if missing, reached from `root` without following a symbolic
    link below `root` (a planted link in a shared folder must not redirect mfx's writes)."""
    folder, root = Path(os.path.abspath(folder)), Path(os.path.abspath(root))
    parts = folder.relative_to(root).parts
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i, part in enumerate(parts):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o777, dir_fd=fd)
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                where = root.joinpath(*parts[: i + 1])
                if e.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(where):
                    raise OSError(
                        e.errno, "a symbolic link mfx did not create: not written through", str(where)
                    ) from None
                raise OSError(e.errno, e.strerror, str(where)) from None
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_folder(folder: Path, root: Path) -> Path:
    """Create `folder` below `root` without following a link (see `open_folder`)."""
    os.close(open_folder(folder, root))
    return Path(folder)


MAX_ROWS_BYTES = 256 * 2**20  # a paper-scale job writes < 10 MB: larger is not an mfx rows file
MAX_JSON_BYTES = 16 * 2**20


class Damaged(ValueError):
    """A file of a job or table that is not what mfx wrote (its message names the file)."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of `path` if it is a regular file (not a link, FIFO or device) of at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Damaged(f"{path} is a symbolic link (mfx reads no link it did not write)") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Damaged(f"{path} is not a regular file")
        if st.st_size > limit:
            raise Damaged(f"{path} is larger than {limit // 2**20} MiB (not an mfx file)")
        return f.read(limit + 1)


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
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():  # a report's folder (temporary_folder)
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
                removed += 1
    return removed


def temporary_folder(folder: Path, stem: str) -> Path:
    """A new folder in `folder` for files written as one unit (`swap_in`), named as write_bytes names
    its temporaries: one left by a killed process is removed by `remove_stale_temporaries`."""
    path = Path(folder) / f".{stem}.{_host()}-{os.getpid()}.{secrets.token_hex(4)}.tmp"
    path.mkdir()
    return path


def swap_in(work: Path, out: Path, names: list[Path]) -> None:
    """Move the files `names` (paths relative to `work`) into `out` as one unit: the signals that stop a
    process (SIGINT, SIGTERM, SIGHUP) wait until every file is in place, and an error on the way puts
    back the files replaced so far.  A file is replaced by a rename, never written through a link."""
    backup = Path(work) / ".replaced"
    moved: list[Path] = []
    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    saved = signal.pthread_sigmask(signal.SIG_BLOCK, stops) if hasattr(signal, "pthread_sigmask") else None
    try:
        for name in names:
            dst = Path(out) / name
            make_folder(dst.parent, out)  # figures/: created, never reached through a planted link
            if os.path.lexists(dst):
                (backup / name).parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(OSError):  # no hard links here: that file cannot be put back
                    os.link(dst, backup / name, follow_symlinks=False)
            os.replace(Path(work) / name, dst)
            moved.append(name)
    except BaseException:
        for name in reversed(moved):
            with contextlib.suppress(OSError):
                if os.path.lexists(backup / name):
                    os.replace(backup / name, Path(out) / name)
                else:
                    os.unlink(Path(out) / name)
        raise
    finally:
        if saved is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, saved)


# besides Ctrl-C, the signals that stop a command: SLURM's preemption and time limit, a closed terminal
STOPS = (signal.SIGTERM, signal.SIGHUP)


def _stop(signum, frame):
    raise KeyboardInterrupt


@contextlib.contextmanager
def stopping():
    """Within: SIGTERM and SIGHUP stop the command as Ctrl-C does (KeyboardInterrupt: the job stays
    complete or absent, temporaries go, one line, exit 130, a rerun resumes) instead of killing it where
    it stands; the previous handlers are restored after."""
    previous = {s: signal.signal(s, _stop) for s in STOPS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a cell a spreadsheet would evaluate


def _formula(cell: str) -> bool:
    """A text cell a spreadsheet would evaluate (a signed number such as -1.5e3 is a number)."""
    if not cell.startswith(FORMULA):
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


def _is_text(column: pd.Series) -> bool:
    return column.dtype == object or pd.api.types.is_string_dtype(column)


def csv_bytes(df: pd.DataFrame) -> bytes:
    """CSV of a table; a text cell that a spreadsheet would run as a formula gets a leading "'"."""
    text = [c for c in df.columns if _is_text(df[c])]
    if text:
        df = df.copy()
        for c in text:
            df[c] = df[c].map(lambda v: "'" + v if isinstance(v, str) and v.startswith(FORMULA) else v)
    return df.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n").encode()


def write_csv(df: pd.DataFrame, path: Path, root: Path | None = None) -> Path:
    return write_bytes(path, csv_bytes(df), root)


def write_json(obj, path: Path, root: Path | None = None) -> Path:
    return write_bytes(path, (json.dumps(obj, indent=2, default=str) + "\n").encode(), root)


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
    # a job's config has no `hydra` node (mfx.sweep.plan drops it): no copy without it to make first
    plain = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]) if "hydra" in cfg else cfg
    container = OmegaConf.to_container(plain, resolve=True)
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


def job_hash(cfg: DictConfig, config: str | None = None) -> str:
    """What resume compares: the job's configuration (`config`: its config_hash, if known) and mfx's code."""
    return f"{config or config_hash(cfg)}-{code_hash()}"


# ------------------------------------------------------------------------------------ one job


RUN_ID = "MFX_RUN_ID"  # set by `mfx run` for its jobs (inherited by launchers): whose job is whose


def write_job(
    job_dir: Path,
    rows: pd.DataFrame,
    cfg: DictConfig,
    device: str,
    seconds: float,
    extra: dict,
    root: Path | None = None,
):
    """Write rows.csv, provenance.json and, last, done.json (the job's completion marker), without
    following a link below `root` (the sweep's `out`)."""
    job_dir = Path(job_dir)
    root = job_dir if root is None else root
    data = csv_bytes(rows)
    commit, dirty = git_state()
    write_bytes(job_dir / ROWS, data, root)
    provenance = {
        "mfx": mfx.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "code_hash": code_hash(),
        "config_hash": config_hash(cfg),
        "sweep_hash": cfg.get("sweep_hash"),
        "torch": importlib.metadata.version("torch"),  # results load no torch: resume checks without it
        "python": platform.python_version(),
        "device": device,
        "dtype": OmegaConf.select(cfg, "runtime.dtype"),
        "host": platform.node(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(seconds, 3),
        **extra,
        "config": OmegaConf.to_container(cfg, resolve=True),
    }
    write_json(provenance, job_dir / PROVENANCE, root)
    done = {
        "job_hash": job_hash(cfg),
        "config_hash": config_hash(cfg),
        "sweep_hash": cfg.get("sweep_hash"),
        "experiment": cfg.get("name"),
        "scale": cfg.get("scale"),
        "rows": len(rows),
        "rows_sha256": hashlib.sha256(data).hexdigest(),
        "run": os.environ.get(RUN_ID),
    }
    write_json(done, job_dir / DONE, root)


def read_json(path: Path):
    """A JSON object from a regular file of bounded size and depth, else None."""
    try:
        obj = json.loads(read_regular(Path(path), MAX_JSON_BYTES))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


MAX_ROWS = 10**7  # more rows than any job writes: a larger count is not mfx's


def _sound_done(done: dict) -> bool:
    rows, sha = done.get("rows"), done.get("rows_sha256")
    return (
        type(rows) is int
        and 0 <= rows <= MAX_ROWS
        and isinstance(sha, str)
        and re.fullmatch(r"[0-9a-f]{64}", sha) is not None
    )


def job_state(job_dir: Path) -> tuple[str, dict | None]:
    """("complete" | "incomplete" | "damaged", done.json): complete iff the marker matches rows.csv;
    a marker that is not a small regular JSON file with a plausible count is damaged."""
    job_dir = Path(job_dir)
    if not os.path.lexists(job_dir / DONE):
        return "incomplete", None
    done = read_json(job_dir / DONE)
    if done is None or not _sound_done(done):
        return "damaged", done
    try:
        data = read_regular(job_dir / ROWS, MAX_ROWS_BYTES)
    except (OSError, Damaged):
        return "damaged", done
    try:
        provenance = stat.S_ISREG(os.lstat(job_dir / PROVENANCE).st_mode)
    except OSError:
        provenance = False
    if hashlib.sha256(data).hexdigest() != done["rows_sha256"] or not provenance:
        return "damaged", done
    return "complete", done


def why_damaged(job_dir: Path) -> str:
    """Which file of a damaged job is wrong, and how (for the one-line refusal)."""
    done = job_dir / DONE
    try:
        obj = json.loads(read_regular(done, MAX_JSON_BYTES))
    except Damaged as e:
        return str(e)
    except RecursionError:
        return f"{done} is nested too deeply (not an mfx file)"
    except (OSError, ValueError, UnicodeDecodeError) as e:
        return f"{done} is not readable JSON ({type(e).__name__})"
    if not isinstance(obj, dict) or not _sound_done(obj):
        return f"{done} does not hold a row count (0 to {MAX_ROWS}) and a SHA-256"
    try:
        read_regular(job_dir / ROWS, MAX_ROWS_BYTES)
    except Damaged as e:
        return str(e)
    except OSError as e:
        return f"{job_dir / ROWS}: {e.strerror}"
    return f"{job_dir / ROWS} does not match {DONE}"


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


def walk(root: Path):
    """os.walk of `root` that follows no link and reports an unreadable folder (never skips it)."""

    def unreadable(e: OSError):
        raise ConfigError(
            f"cannot read the folder {printable(e.filename)} ({e.strerror}): fix its permissions"
        )

    yield from os.walk(root, onerror=unreadable, followlinks=False)


def find_jobs(dirs) -> list[Path]:
    """Every job folder under `dirs`: a folder holding rows.csv or done.json."""
    found = set()
    for d in dirs:
        for folder, _, files in walk(Path(d)):
            if ROWS in files or DONE in files:
                found.add(Path(folder))
    return sorted(found)


SWEEP_FOLDER = re.compile(r"^(?P<scale>[a-z]+)(-[0-9a-f]{8})?$")


def _check_rows(path: Path, done: dict) -> pd.DataFrame:
    """The rows of a complete job, refused (naming the file) unless they are what mfx writes: the
    declared columns and count, registered experiment and scale matching the job's folder and
    marker, numeric values, finite where status is ok, no duplicated row, no control character."""
    data = read_regular(path, MAX_ROWS_BYTES)
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
    bad = _bad_rows(df, path.parent, done)
    if bad:
        raise ConfigError(f"collect: {path} {bad}; rerun its sweep (or remove the job folder)")
    return df


def _bad_rows(df: pd.DataFrame, job: Path, done: dict) -> str:
    """What is wrong with the rows of `job` (empty if nothing)."""
    if df.empty:
        return ""
    names = set(df["experiment"].astype(str)) | set(df["scale"].astype(str))
    # each distinct cell once, in the order of first appearance (so the first formula named is the same):
    # a text column repeats a handful of values over up to 2 M rows
    texts = [v for c in df.columns if _is_text(df[c]) for v in df[c].dropna().astype(str).unique()]
    if any(CONTROL.search(v) or "\n" in v for v in [*texts, *map(str, df.columns)]):
        return "holds control characters"
    formula = next((v for v in [*texts, *map(str, df.columns)] if _formula(v)), None)
    if formula is not None:  # mfx writes such a cell as '=… (csv_bytes): this one was written by hand
        return f"holds a spreadsheet formula cell ({printable(formula)[:40]!r})"
    if len(set(df["experiment"])) != 1 or len(set(df["scale"])) != 1:
        return f"mixes experiments or scales ({', '.join(sorted(names))})"
    name, scale = str(df["experiment"].iloc[0]), str(df["scale"].iloc[0])
    if name not in registry.load_all() or scale not in SCALES:
        return f"holds rows of an unknown experiment or scale ({name}/{scale})"
    folder = SWEEP_FOLDER.match(job.parent.name)
    expected = [(done.get("experiment"), done.get("scale"))]
    if folder and job.parent.parent.name in registry.load_all():
        expected.append((job.parent.parent.name, folder["scale"]))
    for exp, sc in expected:
        if exp is not None and sc is not None and (exp, sc) != (name, scale):
            return f"holds rows of {name}/{scale} in a job of {exp}/{sc}"
    if not pd.api.types.is_numeric_dtype(df["value"]):
        return "has a non-numeric value"
    ok = df["status"].astype(str) == "ok"
    if (~np.isfinite(df["value"].to_numpy(dtype=float)) & ok).any():
        return "has a non-finite value with status ok"
    if df.duplicated().any():
        return f"repeats a row ({int(df.duplicated().sum())} duplicates)"
    return ""


def collect(dirs, mixed: bool = False) -> tuple[pd.DataFrame, dict]:
    """Concatenate the complete jobs under `dirs` (a half-finished sweep collects what finished).

    Returns the table (with `config_hash`) and its provenance (what `table.json` holds).  Refuses a
    damaged job, and jobs of one experiment and scale made by different configurations unless
    `mixed` — a variant must never change another sweep's verdict.
    """
    for d in dirs:
        if not Path(d).is_dir():
            raise ConfigError(f"collect: {d} is not a directory")
    frames, jobs, skipped, seen = [], [], 0, {}
    complete: dict[Path, set[str]] = {}  # per sweep folder, its complete jobs' configuration hashes
    for job in find_jobs(dirs):
        state, done = job_state(job)
        if state == "incomplete":
            skipped += 1
            continue
        if state == "damaged":
            raise ConfigError(f"collect: {why_damaged(job)}: the job is damaged; rerun its sweep")
        df = _check_rows(job / ROWS, done)
        twin = seen.setdefault((done.get("sweep_hash"), done.get("config_hash")), job)
        if twin != job:  # a backup copy (`cp -a quick quick.bak`) or a renamed job folder
            raise ConfigError(
                f"collect: {job} and {twin} hold the same job (a copy?); collect one sweep folder, "
                "or move the copy out of the folders collected"
            )
        df["config_hash"] = done.get("config_hash")
        complete.setdefault(job.parent, set()).add(str(done.get("config_hash")))
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
    for s in info["sweeps"]:  # where each sweep's grid stands: a reader says when it is partial
        grids = [grid_state(Path(d), complete.get(Path(d), set())) for d in s["dirs"]]
        s["grid"] = {k: sum(g[k] for g in grids) for k in grids[0]} if grids else {}
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
                    "warnings": {},
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
            for line in job.get("warnings") or []:  # each warning once, with the jobs that emitted it
                g["warnings"].setdefault(str(line), []).append(Path(job["dir"]).name)
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
        return valid_table(read_csv(io.BytesIO(read_regular(path, MAX_ROWS_BYTES * 4))), path)
    except ConfigError:
        raise
    except Damaged as e:
        raise ConfigError(str(e)) from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise ConfigError(f"{path}: not a readable CSV table ({str(e).splitlines()[0]})") from None


def load_table(path: str | Path, warn=print, write: bool = True) -> tuple[pd.DataFrame, dict, Path]:
    """A collected table, its provenance and the directory it belongs to (where figures go).

    A directory with jobs is collected afresh (so a report never shows a stale table) and, if
    `write` (no `--out` elsewhere was given), its table.csv rewritten; a directory without jobs, or a
    table.csv file, is read as it is, with a warning if jobs beside it are newer.
    """
    path = Path(path)
    if path.is_dir() and find_jobs([path]):
        table, info = collect([path])
        if write:
            write_csv(table, path / TABLE)
            write_json(info, path / TABLE_INFO)
        return table, info, path
    file = path / TABLE if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{path}: no such table or directory")
    table = _read_table(file)
    info = _sound_info(read_json(file.with_suffix(".json")) or {}, file.with_suffix(".json"))
    newer = [
        j
        for j in find_jobs([file.parent])
        if (j / DONE).exists() and (j / DONE).stat().st_mtime > file.stat().st_mtime
    ]
    if newer:
        warn(f"warning: {file} is older than {len(newer)} job(s) beside it; run `mfx collect` again")
    return table, info, file.parent


SWEEP = "sweep.json"
# what a report reads of each sweep in a table's provenance (table.json)
INFO_KEYS = ("experiment", "scale", "sweep_hash", "first_job", "last_job")


def _sound_info(info: dict, path: Path) -> dict:
    """A table's provenance as `collect` writes it, else a ConfigError naming the file and what is missing."""
    sweeps = info.get("sweeps", [])
    if not isinstance(sweeps, list) or not all(isinstance(s, dict) for s in sweeps):
        raise ConfigError(f"{path}: not an mfx table provenance ('sweeps' is not a list of sweeps)")
    for s in sweeps:
        missing = [k for k in INFO_KEYS if k not in s]
        if missing:
            raise ConfigError(f"{path}: not an mfx table provenance (a sweep without {', '.join(missing)})")
    return info


def sweeps_under(root) -> list[dict]:
    """The sweeps under `root` (folders with sweep.json, or holding job folders): folder, jobs
    planned (None if unknown), complete and incomplete job counts."""
    root = Path(root)
    folders = {Path(f) for f, _, files in walk(root) if SWEEP in files}
    for job in find_jobs([root]):
        if not any(f == job or f in job.parents for f in folders):
            folders.add(job.parent)
    out = []
    for folder in sorted(folders):
        grid = grid_state(folder)
        planned = grid["planned"] if os.path.lexists(folder / SWEEP) else None
        incomplete = grid["planned"] - grid["complete"]
        out.append(
            {
                "folder": folder,
                "jobs": planned,
                "complete": grid["complete"],
                "incomplete": incomplete,
                "grid": grid,
            }
        )
    return out


# ------------------------------------------------------------------------- a sweep's own grid

MAX_JOBS = 1000  # jobs of one `mfx run` (the papers' largest grid has 45): more is a mistake, refused
# Files mfx writes beside the jobs (a sweep folder's report, the record of its grid) and in them.
ARTEFACTS = (ROWS, DONE, PROVENANCE, SWEEP, "claims.csv", "report.md", "report.html")


def job_configs(record: dict) -> list[str]:
    """The configuration hashes of the jobs a sweep's record (sweep.json) lists; [] if it lists none."""
    hashes = record.get("job_configs")
    if not isinstance(hashes, list) or len(hashes) > MAX_JOBS * 64:
        return []
    return [h for h in hashes if isinstance(h, str) and re.fullmatch(r"[0-9a-f]{12}", h)]


def record_sweep(folder: Path, record: dict, root: Path) -> dict:
    """Write a sweep's record of its grid (sweep.json): the jobs planned into `folder` by every run of
    this configuration, so a run of a sub-grid (`model.p=2` on a finished sweep) adds none and
    removes none; `record["job_configs"]` are this run's jobs."""
    old = read_json(Path(folder) / SWEEP) or {}
    same = old.get("sweep_hash") == record.get("sweep_hash")
    hashes = list(dict.fromkeys([*(job_configs(old) if same else []), *record["job_configs"]]))
    axes = list(dict.fromkeys([*(old.get("axes") or [] if same else []), *record.get("axes", [])]))
    merged = {**record, "axes": axes, "jobs": len(hashes), "job_configs": hashes}
    write_json(merged, Path(folder) / SWEEP, root)
    return merged


def grid_state(folder: Path, complete: set[str] | None = None) -> dict:
    """Where a sweep's grid stands: jobs planned (sweep.json, with every complete or started job),
    complete, running (a live lock), stopped (a started job folder, failed or killed) and pending
    (not started).  `complete`: the configuration hashes of its complete jobs, if known."""
    folder = Path(folder)
    jobs = find_jobs([folder]) if folder.is_dir() else []
    if complete is None:
        complete = set()
        for j in jobs:
            state, done = job_state(j)
            if state == "complete":
                complete.add(str(done.get("config_hash")))
    record = read_json(folder / SWEEP) or {}
    listed = set(job_configs(record))
    count = record.get("jobs")
    count = count if type(count) is int and 0 <= count <= MAX_JOBS else 0  # an absurd count is no count
    started = [
        p
        for p in (sorted(folder.iterdir()) if folder.is_dir() else [])
        if p.is_dir() and not p.is_symlink() and ("=" in p.name or p.name == "job" or p in jobs)
    ]
    unfinished = [p for p in started if job_state(p)[0] != "complete"]
    running = sum(locks.held(p) for p in unfinished)
    planned = max(len(listed | complete), count, len(complete) + len(unfinished))
    missing = planned - len(complete)
    stopped = min(len(unfinished) - running, missing - running)
    return {
        "planned": planned,
        "complete": len(complete),
        "running": min(running, missing),
        "stopped": max(stopped, 0),
        "pending": max(missing - running - max(stopped, 0), 0),
    }


def partial_text(grid: dict, name: str = "") -> str:
    """ "partial: 1 of 3 jobs of toy/quick complete (1 running, 1 pending)", or "" for a whole grid."""
    if not grid or grid.get("complete", 0) >= grid.get("planned", 0):
        return ""
    why = [
        f"{grid[k]} {w}"
        for k, w in (("running", "running"), ("stopped", "failed or stopped"), ("pending", "pending"))
        if grid.get(k)
    ]
    return (
        f"partial: {grid['complete']} of {grid['planned']} jobs{f' of {name}' if name else ''} complete"
        + (f" ({', '.join(why)})" if why else "")
    )


def partial_lines(info: dict) -> list[str]:
    """The partial-grid lines of a table's provenance (table.json): one per sweep not complete."""
    lines = []
    for s in info.get("sweeps") or []:
        text = partial_text(s.get("grid") or {}, f"{s.get('experiment')}/{s.get('scale')}")
        if text:
            lines.append(text)
    return lines


def owned_by_mfx(path: Path) -> str:
    """Why `path` may not be written by a command's output (a job folder, or inside one, or a file
    mfx keeps for itself), or "" if it may."""
    path = Path(os.path.abspath(path))
    for p in (path, *path.parents):
        if (  # a job: its rows or marker, or the lock of one computed for the first time in a sweep
            p.is_dir()
            and not p.is_symlink()
            and (
                any(os.path.lexists(p / f) for f in (ROWS, DONE))
                or (os.path.lexists(p / locks.LOCK) and os.path.lexists(p.parent / SWEEP))
            )
        ):
            return f"{p} is a job folder of mfx" if p == path else f"{path} is inside the job folder {p}"
    return ""
