"""The commands that read what runs left: `mfx list | statements | metrics | status | collect | plot |
report | compare | docs | calibrate` (`COMMANDS`, each taking its parsed arguments), and the helpers
they share with `mfx.runner` (counts in words, a sweep's variant, the checks of an --out folder).

`list`, `statements` and `metrics` read the registries and claims files with the standard library:
they load no pandas, torch or matplotlib (mfx.lazy binds those for the commands that do).
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import os
import shutil
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

from mfx import api, catalog, docs, lazy, statements
from mfx import experiment as registry
from mfx.experiment import SCALES, VERDICTS, ConfigError

# What loads pandas or matplotlib loads when a command first uses it (mfx.lazy).
pd = lazy.module("pandas")
report = lazy.module("mfx.report")
results = lazy.module("mfx.results")

PAPER_SHORT = {
    "resnet": "Chizat 2509.10167",
    "quadratic": "Bocchi+ 2604.03068",
    "transformer": "Barboni+ 2605.17660",
}


WIDTH = 100  # `mfx list`, `mfx status` and `mfx compare` fit in 100 columns
FIGURE_LABEL = 28  # `mfx list`'s figure column: one line beside the other columns


# ------------------------------------------------------------------ shared with mfx.runner


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def variant_of(folder: Path) -> str:
    """A sweep folder's variant suffix ("-<hash>" of `<scale>-<hash>`), "" for any other folder."""
    scale, _, tail = folder.name.partition("-")
    return f"-{tail}" if scale in SCALES and report.VARIANT.fullmatch(f"-{tail}") else ""


def out_folder(out: str | None) -> None:
    """--out of plot, report and audit: a folder (or none yet), outside every job folder."""
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise ConfigError(f"--out must be a folder (got the file {out})")
    owned = results.owned_by_mfx(Path(out)) if out is not None else ""
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {out!r}: {owned})")


def warn(text: str) -> None:
    print(f"mfx: {text}", file=sys.stderr)


# ------------------------------------------------------------------------------ the commands


def _fit(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _list(args) -> int:
    entries = catalog.entries()
    if args.names:
        print("\n".join(entries))
        return 0
    rows = []
    for e in entries.values():
        jobs = "/".join(str(n or "?") for n in catalog.grid_sizes(e.name).values())
        figure = e.figure if args.long else catalog.figure_label(e.figure, FIGURE_LABEL)
        rows.append(
            (e.name, PAPER_SHORT.get(e.family, e.family), figure, jobs, _kinds(Path(args.out), e.name))
        )
    records, _ = _statement_records(Path(args.out), "quick")
    head = f"{statements.headline(records)} at quick (latest reports under {args.out}/; `mfx statements`)"
    print(textwrap.fill(head, WIDTH, break_on_hyphens=False))  # never inside a path
    head = ("experiment", "paper (arXiv)", "figure", "jobs q/p", "claims p/d/x/i")
    w0, w1, w3, w4 = (max(len(r[i]) for r in [*rows, head]) for i in (0, 1, 3, 4))
    w2 = WIDTH - w0 - w1 - w3 - w4 - 8
    for r in [head, *rows]:
        figure = textwrap.wrap(r[2], w2) or [""]  # the last column, wrapped, never cut
        print(f"{r[0]:{w0}}  {r[1]:{w1}}  {r[3]:>{w3}}  {r[4]:>{w4}}  {figure[0]}".rstrip())
        for more in figure[1:]:
            print(f"{'':{WIDTH - w2}}{more}")
    reported = sum(r[4] != "—" for r in rows)
    note = (
        "jobs q/p: jobs at scale quick / paper; claims p/d/x/i: paper statements / derived / cross-checks "
        f"/ identities of the newest report under {args.out}/ ({plural(reported, 'experiment')} reported, "
        "— none yet)"
    )
    note += "" if args.long else "; figure: its label (mfx list --long: in full)"
    print("\n".join(textwrap.wrap(note, WIDTH)))
    return 0


def _statement_records(out: Path, scale: str, families=registry.FAMILIES) -> tuple[list[dict], list[str]]:
    """The statements of `families` with their status from the latest report of each experiment."""
    names = [e.name for e in catalog.entries().values() if e.family in families]
    claims, missing = statements.newest_claims(out, names, scale)
    return statements.evaluate(claims, statements.registry(families)), missing


def _statements(args) -> int:
    families = (args.family,) if args.family else registry.FAMILIES
    records, missing = _statement_records(Path(args.out), args.scale, families)
    head = f"{statements.headline(records)} ({args.scale}, latest reports under {args.out}/)"
    print(textwrap.fill(head, WIDTH, break_on_hyphens=False))  # never inside a path
    print("\n".join(statements.lines(records, args.long, WIDTH)))
    if missing:
        note = f"not yet run at {args.scale} (their parts count as not tested): {', '.join(missing)}"
        print(textwrap.fill(note, WIDTH))
    return 0


def _calibrate(args) -> int:
    out = Path(args.out)
    if not out.is_dir():
        raise ConfigError(f"calibrate: {out} is not a folder (give the out= of finished sweeps)")
    by_sweep: dict[tuple[str, str], list[dict]] = {}
    for job in results.find_jobs([out]):
        prov = (
            results.read_json(job / results.PROVENANCE) if results.job_state(job)[0] == "complete" else None
        )
        config = (prov or {}).get("config")
        if (
            isinstance(config, dict)
            and config.get("name") in catalog.SIZE_KEYS
            and config.get("scale") in SCALES
        ):
            by_sweep.setdefault((config["name"], config["scale"]), []).append(prov)
    measured = {k: catalog.seconds_per_unit(k[0], v) for k, v in by_sweep.items()}
    if not any(measured.values()):
        raise ConfigError(f"calibrate: no complete job with a recorded time under {out}")
    table = {name: dict(scales) for name, scales in catalog.MEASURED.items()}
    for (name, scale), value in sorted(measured.items()):
        if value:
            table.setdefault(name, {})[scale] = float(f"{value:.3g}")
            print(f"{name} {scale}: {value:.3g} s per unit ({len(by_sweep[name, scale])} jobs)")
    commit, dirty = results.git_state()
    source = f"`mfx calibrate` over {out}, commit {commit[:12]}{' (dirty)' if dirty else ''}, {os.cpu_count()} cores"
    done = {name for (name, _), value in measured.items() if value}
    if done < set(catalog.SIZE_KEYS):  # a partial run: the other entries keep the run that measured them
        source = f"{catalog.MEASURED_BY}; {', '.join(sorted(done))}: {source}"
    text = json.dumps({"measured": source, "seconds_per_unit": table}, indent=1, sort_keys=True) + "\n"
    results.write_bytes(catalog.COSTS, text.encode())
    print(f"wrote {catalog.COSTS}")
    if args.performance:
        path = Path(args.performance)
        kept = path.read_text(encoding="utf-8") if path.is_file() else ""
        record = timing_record(by_sweep, f"mfx calibrate {out} --performance {args.performance}", kept)
        print(f"wrote {results.write_bytes(Path(args.performance), record.encode())}")
    return 0


def timing_record(by_sweep: dict[tuple[str, str], list[dict]], command: str, kept: str = "") -> str:
    """docs/performance.md: per scale and experiment, the jobs' wall and CPU seconds (their provenance:
    `seconds`, `cpu_seconds`) and the sweep's span from its first job's start to its last job's end —
    the whole set's CPU minutes and wall beside them.  A scale this run has no job of keeps its section
    from `kept` (the record before: `make paper` and `make docs` each measure one scale); each section
    names the run it is from."""
    earlier = {part.split("\n", 1)[0]: "## scale " + part for part in kept.split("\n## scale ")[1:]}
    lines = [
        "# Performance: what each sweep of a run cost",
        "",
        report.generated_by(command),
        "",
        (
            "CPU: the jobs' process CPU time (every thread); job wall: their own wall times added up; span: "
            "from the sweep's first job's start to its last job's end (several jobs at once make it shorter "
            "than the job wall). Measured on the machine in the header, under whatever else ran there."
        ),
    ]
    for scale in SCALES:
        sweeps = sorted((name, provs) for (name, s), provs in by_sweep.items() if s == scale)
        if not sweeps:
            lines += ["", earlier[scale].rstrip("\n")] if scale in earlier else []
            continue
        lines += [
            "",
            f"## scale {scale}",
            "",
            report.generated_by(command),
            "",
            "| experiment | jobs | CPU (s) | job wall (s) | span (s) | threads |",
        ]
        lines += ["|---|---|---|---|---|---|"]
        span_all, cpu_all = 0.0, 0.0
        for name, provs in sweeps:
            wall = sum(float(v.get("seconds") or 0) for v in provs)
            cpu = sum(float(v.get("cpu_seconds") or math.nan) for v in provs)
            end = [datetime.strptime(v["finished"], "%Y-%m-%dT%H:%M:%S%z").timestamp() for v in provs]
            start = [e - float(v.get("seconds") or 0) for e, v in zip(end, provs)]
            threads = sorted(
                {str((v.get("config") or {}).get("runtime", {}).get("threads", "?")) for v in provs}
            )
            span = max(end) - min(start)
            lines.append(
                f"| {name} | {len(provs)} | {cpu:.0f} | {wall:.0f} | {span:.0f} | {', '.join(threads)} |"
            )
            span_all, cpu_all = span_all + span, cpu_all + cpu
        # the sweeps of `mfx run experiment=all` run one after another: the run's wall is their spans' sum
        lines.append(
            f"| **all** | {sum(len(p) for _, p in sweeps)} | **{cpu_all / 60:.1f} min** | | "
            f"**{span_all / 60:.1f} min** | |"
        )
    return "\n".join(lines) + "\n"


def _docs(args) -> int:
    out = Path(args.out)
    kept = _keep(Path(args.claims), out / "claims-quick.csv", "--claims")
    paper = out / "claims-paper.csv"
    if args.paper_claims:
        paper = _keep(Path(args.paper_claims), paper, "--paper-claims")
    paper = paper if paper.is_file() else None
    command = f"mfx docs --claims {kept}" + (f" --paper-claims {paper}" if paper else "")
    texts = docs.render(kept, command, paper)
    written = [results.write_bytes(out / name, text.encode()) for name, text in texts.items()]
    readme = Path(args.readme)
    if readme.is_file():
        performance = out / "performance.md"
        timing = performance.read_text(encoding="utf-8") if performance.is_file() else ""
        paper_claims = docs.read_claims(paper) if paper else None
        new = docs.readme(readme.read_text(encoding="utf-8"), docs.read_claims(kept), timing, paper_claims)
        written.append(results.write_bytes(readme, new.encode()))
    print(f"wrote {', '.join(str(p) for p in written)} (claims: {kept}" + (f", {paper})" if paper else ")"))
    return 0


def _keep(source: Path, kept: Path, flag: str) -> Path:
    """`kept`, holding a copy of `source` (a claims.csv) unless it is that file."""
    if not source.is_file():
        raise ConfigError(f"docs: {flag} {source} is not a file (a claims.csv of `mfx report`)")
    if not kept.exists() or not os.path.samefile(source, kept):
        kept.parent.mkdir(parents=True, exist_ok=True)
        results.write_bytes(kept, source.read_bytes())
    return kept


def _metrics(args) -> int:
    """The glossary: per family its columns, per experiment its metrics (one line each, wrapped)."""
    entries = catalog.entries()
    names = [args.experiment] if args.experiment else list(entries)
    if args.experiment not in (None, *entries):
        close = difflib.get_close_matches(args.experiment, list(entries), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else " (`mfx list --names` names them)"
        raise ConfigError(f"metrics: no experiment {args.experiment!r}{hint}")
    shown = set()
    for name in names:
        columns, metrics = catalog.glossary(name)
        family = entries[name].family
        if family not in shown:
            shown.add(family)
            print(f"columns of the {family} rows ({PAPER_SHORT.get(family, family)}):")
            _glossary_lines(columns)
        print(f"metrics of {name} (the values of the metric column):")
        _glossary_lines(metrics)
    return 0


def _glossary_lines(words: dict[str, str]) -> None:
    width = max(map(len, words), default=0) + 4
    for code, text in words.items():
        lines = textwrap.wrap(text, WIDTH - width) or [""]
        print(f"  {code:{width - 2}}{lines[0]}")
        for more in lines[1:]:
            print(f"{'':{width}}{more}")


def _kinds(out: Path, name: str) -> str:
    """Claim counts by kind (paper/derived/cross-check/identity) in the newest claims.csv of an
    experiment under `out`; "—" when it has none (read with csv: `mfx list` loads no pandas)."""
    # regular files only: a FIFO named claims.csv would block the read
    reports = sorted(
        (p for p in out.glob(f"{name}/*/claims.csv") if p.is_file()), key=lambda p: p.stat().st_mtime
    )
    if not reports:
        return "—"
    with reports[-1].open(newline="") as f:
        kinds = [row.get("kind", "") for row in csv.DictReader(f) if row.get("experiment") == name]
    return "/".join(str(kinds.count(k)) for k in registry.KINDS)


def _status(args) -> int:
    out = Path(args.out)
    if not out.is_dir():
        raise ConfigError(f"status: {out} is not a folder (give the out= of your sweeps)")
    sweeps = results.sweeps_under(out)
    if not sweeps:
        print(f"no sweeps under {out} (run `mfx run experiment=NAME out={out}`)")
        return 0
    rows = []
    for s in sweeps:
        jobs = f"{s['complete']}/{s['jobs'] if s['jobs'] is not None else '?'} complete"
        if s["incomplete"]:
            g = s["grid"]
            kinds = (("running", "running"), ("stopped", "failed or stopped"), ("pending", "pending"))
            why = [f"{g[k]} {w}" for k, w in kinds if g[k]]
            jobs += f", {s['incomplete']} incomplete" + (f" ({', '.join(why)})" if why else "")
        rows.append(
            (str(s["folder"].relative_to(out)), jobs, _verdicts(s["folder"]), _overrides_of(s["folder"]))
        )
    w0 = min(max(len(r[0]) for r in rows), 48)
    w1 = max(len(r[1]) for r in rows)
    partial = sum(bool(s["incomplete"]) for s in sweeps)  # the first line says when a grid is partial
    print(f"{plural(len(sweeps), 'sweep')} under {out}" + (f" ({partial} partial)" if partial else ""))
    for r in rows:
        print(f"{_fit(r[0], w0):{w0}}  {r[1]:{w1}}  {r[2]}".rstrip())
        if r[3]:  # a variant: what makes it one, under its hash
            print(f"{'':4}variant of {r[0].split('/')[0]}: {r[3]}")
    folders = {s["folder"] for s in sweeps}
    combined = sorted(p for p in out.rglob("report.html") if p.parent not in folders)
    for p in combined:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.stat().st_mtime))
        print(f"report of several sweeps: {p} ({when})")
    return 0


def _overrides_of(folder: Path) -> str:
    """The overrides that make a sweep folder a variant ("" for an experiment's own configuration)."""
    if not variant_of(folder):
        return ""
    info = results.read_json(folder / results.SWEEP) or {}
    return " ".join(info.get("overrides") or []) or "(overrides unknown: no sweep.json)"


def _verdicts(folder: Path) -> str:
    """The verdict counts of a sweep's latest report (claims.csv), or what to run to get them."""
    claims = folder / "claims.csv"
    try:
        counts = _read_claims(claims)["verdict"].value_counts()
    except (OSError, ConfigError, results.Damaged):
        return "no report yet" if not os.path.lexists(claims) else "no readable report (claims.csv)"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(claims.stat().st_mtime))
    text = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
    stale = any(
        (j / results.DONE).stat().st_mtime > claims.stat().st_mtime
        for j in results.find_jobs([folder])
        if (j / results.DONE).exists()
    )
    return f"{text} ({when}{', older than its jobs' if stale else ''})"


def _collect(args) -> int:
    out = Path(args.out) if args.out else Path(args.dirs[0]) / results.TABLE
    _table_path(out)
    table, info = results.collect(args.dirs, mixed=args.mixed)
    results.write_csv(table, out)
    results.write_json(info, out.with_suffix(".json"))
    jobs = len(results.find_jobs(args.dirs)) - info["incomplete_jobs"]
    skipped = f" ({info['incomplete_jobs']} incomplete jobs skipped)" if info["incomplete_jobs"] else ""
    for line in results.partial_lines(info):  # first: a table of part of a grid says so
        print(line)
    print(f"collected {plural(len(table), 'row')} from {plural(jobs, 'job')}{skipped} → {out}")
    return 0


def _table_path(out: Path) -> None:
    """`collect -o`: a CSV file name whose table and provenance (NAME.json beside it) replace no file
    mfx keeps for itself (a job's rows, a sweep's record or report) and land in no job folder."""
    if out.is_dir():
        raise ConfigError(f"--out must be a file name (got the folder {out})")
    owned = results.owned_by_mfx(out.parent)
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {str(out)!r}: {owned})")
    if out.suffix.lower() != ".csv":
        raise ConfigError(
            f"--out must name a .csv file (got {str(out)!r}): the table is CSV, its provenance goes beside it "
            "as NAME.json"
        )
    for path in (out, out.with_suffix(".json")):
        if path.name in results.ARTEFACTS:
            raise ConfigError(
                f"--out must not replace {path.name}, a file mfx writes for itself (got {str(out)!r})"
            )


# --------------------------------------------------------------------------------- plot, report


def _plot(args) -> int:
    out_folder(args.out)
    path = Path(args.table)
    out = Path(args.out) if args.out else (path if path.is_dir() else path.parent) / "figures"
    paths = []
    found = api.sweeps(path, mixed=args.mixed, warn=warn)
    if args.out:
        _not_another_sweep(out, found)
    for s in found:  # each sweep alone; a variant's hash in its names
        paths += report.draw(s.table, out, "" if args.mixed else variant_of(s.folder))
    print(f"{plural(len(paths), 'file')} → {out}")
    return 0


def _not_another_sweep(out: Path, found) -> None:
    """A report or figures go beside their own sweeps, never into another sweep's folder (its report
    and claims would then be this one's) nor into a job folder."""
    owned = results.owned_by_mfx(out)
    if owned:
        raise ConfigError(f"--out must be outside every job folder (got {str(out)!r}: {owned})")
    mine = {Path(os.path.abspath(s.folder)) for s in found}
    if (out / results.SWEEP).exists() and Path(os.path.abspath(out)) not in mine:
        raise ConfigError(
            f"--out must not be another sweep's folder (got {str(out)!r}: its report would be replaced by this one)"
        )


def _report(args) -> int:
    out_folder(args.out)
    path = Path(args.table)
    found = api.sweeps(path, mixed=args.mixed, warn=warn)
    # each sweep's table beside its jobs, as `mfx collect` writes; with --out nothing is written in the sweep
    for s in found if path.is_dir() and args.out is None else []:
        results.write_csv(s.table, s.folder / results.TABLE)
        results.write_json(s.info, s.folder / results.TABLE_INFO)
    parts = [report.Part(s.table, s.info, "" if args.mixed else variant_of(s.folder)) for s in found]
    out = Path(args.out) if args.out else (path if path.is_dir() else path.parent)
    _not_another_sweep(out, found)
    with results.stopping():  # a report stopped by SIGTERM or SIGHUP removes its unfinished files
        written, claims = report.write_parts(parts, out)
    partial = [line for p in parts for line in results.partial_lines(p.info)]
    for line in partial:  # first: verdicts on part of a grid say so
        print(line + (" (--strict: not a pass)" if args.strict else ""))
    print(
        f"{report.summary_by_kind(claims)} → {written} and {written.with_suffix('.html').name}"
        + (f" ({plural(len(parts), 'sweep')})" if len(parts) > 1 else "")
    )
    for c in claims:
        if not c.passed:
            print(
                f"  {c.verdict.upper()} [{c.kind}] {c.experiment}: {c.statement}: measured "
                f"{c.measured:.4g} ± {c.u:.2g}, expected {c.expected}: {report.reason(c)}"
            )
    return 1 if (args.strict and (partial or not all(c.passed for c in claims))) else 0


def _compare(args) -> int:
    a, b = _claims_of(Path(args.a), args.mixed), _claims_of(Path(args.b), args.mixed)
    key = ["experiment", "claim"]
    both = a[key].drop_duplicates().merge(b[key].drop_duplicates(), how="outer", on=key, sort=False)
    index_a, index_b = a.drop_duplicates(key).set_index(key), b.drop_duplicates(key).set_index(key)
    rows, differ = [], 0
    for exp, claim in both.itertuples(index=False):
        ca, cb = (_claim_text(i, (exp, claim)) for i in (index_a, index_b))
        va, vb = (
            str(i.loc[(exp, claim), "verdict"]) if (exp, claim) in i.index else "" for i in (index_a, index_b)
        )
        differ += va != vb
        # a claims.csv is data: its control characters (terminal escapes) are shown, never sent
        shown = [results.printable(x) for x in (f"{exp}: {claim}", ca, cb)]
        rows.append((*shown, "≠" if va != vb else ""))
    w = 24
    wc = max(shutil.get_terminal_size((WIDTH, 24)).columns, WIDTH) - 2 * w - 8  # COLUMNS or the terminal's
    for name, path in (("A", args.a), ("B", args.b)):
        overrides = _overrides_of(Path(path)) if Path(path).is_dir() else ""
        print(f"{name} = {path}" + (f" (variant: {overrides})" if overrides else ""))
    print(f"{'claim':{wc}}  {'A: measured ± u, verdict':{w}}  {'B: measured ± u, verdict':{w}}")
    for r in rows:
        claim = textwrap.wrap(r[0], wc) or [""]  # wrapped, never cut
        print(f"{claim[0]:{wc}}  {_fit(r[1], w):{w}}  {_fit(r[2], w):{w}}  {r[3]}".rstrip())
        for more in claim[1:]:
            print(f"  {more}")
    print(f"{plural(len(rows), 'claim')}: {len(rows) - differ} same verdict, {differ} differ")
    return 0


def _claim_text(index: pd.DataFrame, key) -> str:
    if key not in index.index:
        return "—"
    c = index.loc[key]
    measured, u = float(c["measured"]), float(c["u"])
    value = f"{measured:.3g}" if c.get("how") == "exact" or math.isnan(u) else f"{measured:.3g} ± {u:.2g}"
    return f"{value} {c['verdict']}"


def _claims_of(path: Path, mixed: bool = False) -> pd.DataFrame:
    """The claims of a sweep: its claims.csv if up to date, else evaluated on its jobs or table."""
    if path.is_file() and path.name == "claims.csv":
        return _read_claims(path)
    if path.is_dir() and (path / "claims.csv").is_file():
        newest = max(
            (
                (j / results.DONE).stat().st_mtime
                for j in results.find_jobs([path])
                if (j / results.DONE).exists()
            ),
            default=0.0,
        )
        if (path / "claims.csv").stat().st_mtime >= newest:
            return _read_claims(path / "claims.csv")
    if path.is_dir() and results.find_jobs([path]):
        table, _ = results.collect([path], mixed=mixed)  # not written: compare only reads
    else:
        table = results.load_table(path, warn=warn)[0]
    claims = [c for exp, _, rows in report.by_experiment(table) for c in report.claims_of(exp, rows)]
    return report.claims_frame(claims)


MAX_CLAIMS_BYTES = 64 * 2**20  # mfx writes a few hundred claims (< 1 MB): larger is not its file


def _read_claims(path: Path) -> pd.DataFrame:
    """A claims.csv, read only if it is a small regular file (never a FIFO, device or link: no hang)."""
    try:
        frame = pd.read_csv(io.BytesIO(results.read_regular(path, MAX_CLAIMS_BYTES)))
    except results.Damaged as e:
        raise ConfigError(f"{e}: not a readable claims file") from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise ConfigError(f"{path}: not a readable claims file ({str(e).splitlines()[0]})") from None
    missing = [c for c in ("experiment", "claim", "measured", "u", "verdict") if c not in frame]
    if missing:
        raise ConfigError(f"{path}: not an mfx claims file (missing column {', '.join(missing)})")
    for c in ("measured", "u"):
        if not pd.api.types.is_numeric_dtype(frame[c]):
            raise ConfigError(f"{path}: not an mfx claims file (column {c!r} holds what is not a number)")
    return frame


COMMANDS = {
    "list": _list,
    "statements": _statements,
    "docs": _docs,
    "calibrate": _calibrate,
    "metrics": _metrics,
    "status": _status,
    "collect": _collect,
    "plot": _plot,
    "report": _report,
    "compare": _compare,
}
