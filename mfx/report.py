"""Collected table → figures (PDF + PNG), `report.md` with every claim's verdict, and `claims.csv`.

The report opens with its provenance (mfx and torch versions, commits, devices, dtypes, job dates,
the configuration hash of each sweep) and the verdict rule; each experiment's section gives its
figures and claims with their uncertainty, points and seeds.  File names are built only from
registered experiment names and known scales, never from other table values.
"""

from __future__ import annotations

import base64
import html
import math
import multiprocessing
import os
import platform
import re
import shutil
import signal
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mfx import experiment as registry
from mfx import launch, results, statements
from mfx.experiment import FAMILIES, KINDS, PAPERS, RULE, SCALES, VERDICTS, Claim, ConfigError
from mfx.plotting import HYPHEN_MINUS, caption, caption_chars, caption_filter, plot_function, save_figure

VARIANT = re.compile(r"-[0-9a-f]{8}")  # a sweep folder's suffix for a variant: <scale>-<hash>
ARXIV = re.compile(r"arXiv (\d{4}\.\d{4,5})")

# What a claim or plot function raises on a table that lacks part of its grid.
PARTIAL = (KeyError, IndexError, ValueError, ZeroDivisionError, np.linalg.LinAlgError)


def by_experiment(table: pd.DataFrame):
    """(experiment, scale, rows) for each experiment and scale in the table: claims never mix scales."""
    experiments = registry.load_all()
    pairs = sorted(set(zip(table["experiment"].astype(str), table["scale"].astype(str))))
    for name, scale in pairs:
        if name not in experiments:
            raise ConfigError(f"table: experiment must be one of {', '.join(experiments)} (got {name!r})")
        if scale not in SCALES:
            raise ConfigError(f"table: scale must be one of {', '.join(SCALES)} (got {scale!r})")
        # A table of one experiment and scale (a sweep collected alone) is typed as its own sweep
        # already: only the columns it leaves empty go.  Re-reading it through CSV, as a table of
        # several needs (results.experiment_rows), gave the same frame on every quick and paper sweep
        # and cost more than the claims of the largest one (quad_implicit_bias, 2.2 M rows: 32 s).
        if len(pairs) == 1:
            yield experiments[name], scale, table.dropna(axis=1, how="all").reset_index(drop=True)
        else:
            yield experiments[name], scale, results.experiment_rows(table, name, scale)


def figures_of(
    exp, scale: str, rows: pd.DataFrame, out: Path, claims: list[Claim], variant: str = ""
) -> tuple[list[Path], str]:
    """Save the figures of one experiment (of a variant: `variant` = "-<hash>" in the file names),
    each with its claims' verdicts written under it; (paths, "") or (paths drawn, why the rest
    could not be)."""
    if variant and not VARIANT.fullmatch(variant):
        raise ValueError(f"variant must be -<8 hex digits> (got {variant!r})")
    try:
        figs = captioned_figures(exp, scale, rows, claims)
    except PARTIAL as e:
        return [], f"figures not drawn: {type(e).__name__}: {e} (a partial grid?)"
    paths = []
    for key, fig in figs.items():
        paths += save_figure(fig, Path(out) / f"{exp.name}_{scale}{variant}_{key}")
    return paths, ""


def captioned_figures(exp, scale: str, rows: pd.DataFrame, claims: list[Claim]) -> dict:
    """{key: Figure} of one experiment, each with the verdicts of the claims it shows written under it."""
    figs = plot_function(exp.name)(rows)
    for key, fig in figs.items():
        keep = caption_filter(exp.name, key)
        shown = [c for c in claims if keep is None or any(k in c.statement for k in keep)]
        caption(fig, caption_lines(claims, shown, scale, caption_chars(fig)))
    return figs


def draw(table: pd.DataFrame, out: Path, variant: str = "") -> list[Path]:
    """Save every figure of every experiment in `table` as out/<experiment>_<scale><variant>_<key>.{pdf,png}."""
    paths = []
    for exp, scale, rows in by_experiment(table):
        paths += figures_of(exp, scale, rows, out, claims_of(exp, rows), variant)[0]
    return paths


# a claim's grid coordinates in its statement ("…, p=1, p*=2, N=500"): claims that differ only in
# them are one line of a figure's caption
_COORDS = re.compile(
    r",?\s*(?<![(\w=])(?:p\*?|N|n|L|H|M|D)\s*(?:=|≥|>|<|≤)\s*[0-9][0-9.e+]*(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+|[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?(?:\s*[<>≥≤]\s*p\*=[0-9]+)?"
)
_MARK = {"pass": "✓", "fail": "✗", "inconclusive": "?"}


def caption_lines(claims: list[Claim], shown: list[Claim], scale: str, chars: int) -> list[str]:
    """A figure's caption: the verdict counts of all the experiment's claims, then each claim shown
    (claims that differ only in their grid coordinates grouped) wrapped to `chars` per line — never
    cut, the figure grows to hold them (a PNG taken into a talk keeps every verdict whole)."""
    counts = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
    head = f"claims ({scale} scale): " + " · ".join(f"{_MARK[v]} {counts[v]} {v}" for v in VERDICTS)
    if len(head) > chars:  # a narrow figure: the marks alone
        head = f"claims ({scale} scale): " + " · ".join(f"{_MARK[v]} {counts[v]}" for v in VERDICTS)
    groups: dict[str, list[Claim]] = {}
    for c in shown:
        groups.setdefault(_COORDS.sub("", c.statement).strip(" ,:"), []).append(c)
    lines = [head]
    for stem, cs in groups.items():
        worst = next(v for v in ("fail", "inconclusive", "pass") if any(c.verdict == v for c in cs))
        if len(cs) == 1:
            c = cs[0]
            tail = f": {c.measured:.3g}" + ("" if c.how == "exact" else f" ± {c.u:.1g}") + f" ({c.expected})"
            text = f"[{c.kind}] {c.statement}"
        else:
            tail = f" ({sum(c.passed for c in cs)}/{len(cs)} pass)"
            text = f"[{'/'.join(sorted({c.kind for c in cs}))}] {stem}"
        body = textwrap.wrap(
            f"{_MARK[worst]} {text}{tail}", chars, subsequent_indent="    ", break_on_hyphens=False
        )
        # a sign is typeset as a minus (−0.5), as in the figure's own labels
        lines += [HYPHEN_MINUS.sub("−", line).replace("$", r"\$") for line in body]
    return lines


def claims_of(exp, rows: pd.DataFrame) -> list[Claim]:
    """The experiment's claims; one inconclusive claim when the table cannot support them."""
    try:
        return exp.claims(rows)
    except PARTIAL as e:
        return [
            Claim.at_least(
                exp.name,
                "claims of this experiment (the table lacks what they need)",
                float("nan"),
                0,
                f"{type(e).__name__}: {e}",
                # stands for the experiment's own claims, most of them paper statements: unreproduced
                kind="paper",
                source=f"every claim of {exp.name} (see {exp.family}'s experiment module)",
            )
        ]


def _cell(text) -> str:
    """Markdown table cell: escape what Markdown or HTML would interpret."""
    text = str(text).replace("\n", " ")
    for ch in "\\`*_[]|":
        text = text.replace(ch, "\\" + ch)
    return html.escape(text, quote=False)


def _value(c: Claim) -> str:
    if c.how == "exact":
        return f"{c.measured:.4g} (exact)"
    return f"{c.measured:.4g} ± {c.u:.2g} ({c.how})"


def reason(c: Claim) -> str:
    """Why a claim is not a pass, in words: the verdict rule's case, then the claim's own notes
    (points it needs, coefficients at a bound, rows left out)."""
    m, u, lo, hi = c.measured, c.u, c.low, c.high
    if not (math.isfinite(m) and math.isfinite(u)):
        why = "the measured value or its uncertainty is not a number"
    elif lo <= m <= hi:
        # the rule's resolution: a two-sided claim's tolerance, a one-sided one's margin to its bound
        res = (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else min(m - lo, hi - m)
        why = "inside the range" + (
            f", but 2u = {2 * u:.2g} exceeds the resolution {res:.2g}" if 2 * u > res else ""
        )
    else:
        off = lo - m if m < lo else m - hi
        why = f"outside the range by {off:.2g}" + (
            f", more than 2u = {2 * u:.2g}" if c.verdict == "fail" else f", less than 2u = {2 * u:.2g}"
        )
    return "; ".join(x for x in (why, c.detail) if x)


def _probability(c: Claim) -> str:
    p = c.pass_probability()
    return "—" if c.how == "exact" or not math.isfinite(p) else f"{p:.2f}"


def provenance(info: dict) -> tuple[list[str], list[str]]:
    """(warnings, facts) of the report's header, as plain text: what produced the numbers."""
    sweeps = info.get("sweeps") or []
    if not sweeps:
        return [], ["Provenance unknown: the table has no table.json beside it."]
    values = {
        k: sorted({str(v) for s in sweeps for v in s.get(k, [])})
        for k in ("mfx", "torch", "devices", "dtypes", "commits")
    }
    dirty = any(s.get("dirty") for s in sweeps)
    facts = [
        (
            f"mfx {', '.join(values['mfx'])}; torch {', '.join(values['torch'])}; "
            f"device {', '.join(values['devices'])}; dtype {', '.join(values['dtypes'])}"
        ),
        f"git commit {', '.join(c[:12] for c in values['commits'])}"
        + (" (the working tree had uncommitted changes)" if dirty else ""),
        f"jobs finished between {min(s['first_job'] for s in sweeps)} and {max(s['last_job'] for s in sweeps)}",
    ]
    facts += [
        f"sweep {s['experiment']}/{s['scale']}: configuration {s['sweep_hash']}"
        + (f", overrides: {' '.join(s['overrides'])}" if s.get("overrides") else "")
        for s in sweeps
    ]
    warnings = [str(w) for w in info.get("warnings") or []]  # first: a partial grid (partial_warnings)
    warnings += [
        f"Warning: the jobs of {s['experiment']}/{s['scale']} come from {len(s['commits'])} commits."
        for s in sweeps
        if len(s.get("commits", [])) > 1
    ]
    warnings += [  # what the jobs warned while computing (mfx.task), one line each, without source lines
        f"Warning from {s['experiment']}/{s['scale']} ({_jobs(jobs)}): {line}"
        for s in sweeps
        for line, jobs in sorted((s.get("warnings") or {}).items())
    ]
    if info.get("mixed"):
        warnings.append(
            "Warning: this table knowingly mixes sweeps of different configurations (mfx collect --mixed); "
            "claims evaluated on it mix them too."
        )
    return warnings, facts


def _jobs(names: list[str]) -> str:
    """ "job model.a=2" or "3 jobs, e.g. model.a=2"."""
    names = sorted(names)
    return f"job {names[0]}" if len(names) == 1 else f"{len(names)} jobs, e.g. {names[0]}"


@dataclass
class Section:
    """One experiment and scale of a report."""

    title: str
    paper: str
    description: str
    summary: str
    pngs: list[Path]
    problem: str
    claims: list[Claim]
    family: str = ""  # the paper's family: sections follow the papers' order (FAMILIES)
    variant: str = ""  # "" or "-<hash>": a variant of the experiment's configuration

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")

    @property
    def order(self) -> tuple:
        family = FAMILIES.index(self.family) if self.family in FAMILIES else len(FAMILIES)
        return family, self.paper, self.title.split(" ")[0], self.variant, self.title


COLUMNS = (
    "claim",
    "kind: source",
    "measured ± u",
    "expected",
    "verdict",
    "points, seeds",
    "P(pass)",
    "how it was measured",
)
VERDICT_COLUMN = COLUMNS.index("verdict")


def _row(c: Claim) -> list[str]:
    return [
        c.statement,
        f"{c.kind}{f' [{c.statement_id}]' if c.statement_id else ''}: {c.source}" if c.source else c.kind,
        _value(c),
        c.expected,
        c.verdict,
        f"{c.points}, {c.seeds}",
        _probability(c),
        c.detail,
    ]


def statement_records(claims: list[Claim]) -> list[dict]:
    """The papers' statements these claims speak for (statements.in_scope), each with its status."""
    rows = claims_frame(claims).to_dict("records")
    families = {name: exp.family for name, exp in registry.load_all().items()}
    return statements.evaluate(rows, statements.in_scope(rows, families))


def summary_by_kind(claims: list[Claim]) -> str:
    """Statements first (reproduced / in part / not tested), then every kind's claims by verdict."""

    def count(cs):
        fails, incs = sum(c.verdict == "fail" for c in cs), sum(c.verdict == "inconclusive" for c in cs)
        rest = ", ".join(f"{n} {w}" for n, w in ((fails, "fail"), (incs, "inconclusive")) if n)
        return f"{sum(c.passed for c in cs)} of {len(cs)}" + (f" ({rest})" if rest else "")

    records = statement_records(claims)
    head = statements.headline(records) if records else "no statement of the papers in scope"
    parts = [
        f"{count([c for c in claims if c.kind == k])} {k}" for k in KINDS if any(c.kind == k for c in claims)
    ]
    return f"{head}. Claims: {', '.join(parts) or 'none'} pass."


STATEMENT_COLUMNS = ("statement", "status", "claims", "missing or unresolved")


def _tally(cs: list[Claim]) -> str:
    """A summary-table cell: "3/4 pass, 1 fail" ("" where the section has no claim of that kind)."""
    if not cs:
        return ""
    rest = [f"{n} {v}" for v in ("fail", "inconclusive") if (n := sum(c.verdict == v for c in cs))]
    return f"{sum(c.passed for c in cs)}/{len(cs)} pass" + (f", {', '.join(rest)}" if rest else "")


def summary_rows(sections: list[Section]) -> tuple[list[str], list[list[str]]]:
    """(kinds, rows): one row per section — its title, then its verdict counts per claim kind."""
    claims = [c for sec in sections for c in sec.claims]
    kinds = [k for k in KINDS if any(c.kind == k for c in claims)]
    rows = [[sec.title, *(_tally([c for c in sec.claims if c.kind == k]) for k in kinds)] for sec in sections]
    return kinds, rows


def _arxiv_md(text: str) -> str:
    return ARXIV.sub(r"[arXiv \1](https://arxiv.org/abs/\1)", text)


def _arxiv_html(text: str) -> str:
    """Escaped text with its arXiv ids as links."""
    return ARXIV.sub(r'<a href="https://arxiv.org/abs/\1">arXiv \1</a>', html.escape(text))


RULE_NOTE = (
    "P(pass) is the probability that a rerun with fresh seeds passes, from a normal law of the measured "
    "value with its uncertainty."
)


def markdown(sections: list[Section], info: dict, claims: list[Claim], out: Path) -> str:
    """Verdicts first (summary, summary table, contents), then each section, provenance last."""
    warnings, facts = provenance(info)
    lines = ["# mfx report", ""]
    lines += [f"**{_cell(w)}**" for w in warnings] + ([""] if warnings else [])
    lines += [f"**{summary_by_kind(claims)}**", ""]
    table = statements.rows(statement_records(claims))
    if table:
        lines += ["| " + " | ".join(STATEMENT_COLUMNS) + " |", "|" + "---|" * len(STATEMENT_COLUMNS)]
        lines += ["| " + " | ".join(_cell(x) for x in r) + " |" for r in table] + [""]
    kinds, rows = summary_rows(sections)
    if len(sections) > 1:
        lines += ["| section | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
        lines += [
            f"| [{_cell(r[0])}](#{sec.anchor}) | " + " | ".join(r[1:]) + " |"
            for r, sec in zip(rows, sections)
        ]
        lines.append("")
    lines += [f"Verdict rule — {_cell(RULE)} {_cell(RULE_NOTE)}", ""]
    for sec in sections:
        lines += [
            f'<a id="{sec.anchor}"></a>',
            "",
            f"## {_cell(sec.title)}",
            "",
            _arxiv_md(sec.paper),
            "",
            _cell(sec.description),
            "",
            _cell(sec.summary),
            "",
        ]
        lines += [f"![{p.stem}]({p.relative_to(out).as_posix()})" for p in sec.pngs]
        lines += [_cell(sec.problem)] if sec.problem else []
        lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        for c in sec.claims:
            cells = [_cell(x) for x in _row(c)]
            cells[VERDICT_COLUMN] = {"pass": "pass", "fail": "**FAIL**", "inconclusive": "*inconclusive*"}[
                c.verdict
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Provenance", ""] + [f"- {_cell(f)}" for f in facts] + [""]
    return "\n".join(lines)


STYLE_CSS = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    ".wide{overflow-x:auto;max-width:100%}nav ol{columns:2}details{margin:2em 0}"
    "table{border-collapse:collapse;font-size:90%;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;"
    "vertical-align:top}th{background:#f3f3f3}img{max-width:100%;height:auto;display:block;margin:0.5em 0}"
    ".pass{color:#17692c}.fail{color:#b00020;font-weight:bold}.inconclusive{color:#8a6d00;font-style:italic}"
    ".warn{color:#b00020;font-weight:bold}"
)


def html_page(sections: list[Section], info: dict, claims: list[Claim]) -> str:
    """A self-contained page: summary and summary table, contents in the papers' order, each section
    (figures embedded as PNG data, scaled to the page), provenance folded at the end."""
    esc = html.escape
    warnings, facts = provenance(info)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>mfx report</title>',
        f"<style>{STYLE_CSS}</style></head><body>",
        "<h1>mfx report</h1>",
    ]
    parts += [f'<p class="warn">{esc(w)}</p>' for w in warnings]
    parts.append(f"<p><b>{esc(summary_by_kind(claims))}</b></p>")
    table = statements.rows(statement_records(claims))
    if table:
        parts.append('<div class="wide"><table id="statements"><tr>')
        parts.append("".join(f"<th>{esc(k)}</th>" for k in STATEMENT_COLUMNS) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in table]
        parts.append("</table></div>")
    kinds, rows = summary_rows(sections)
    parts.append('<div class="wide"><table id="summary"><tr><th>section</th>')
    parts.append("".join(f"<th>{esc(k)}</th>" for k in kinds) + "</tr>")
    for r, sec in zip(rows, sections):
        cells = "".join(f"<td>{esc(x)}</td>" for x in r[1:])
        parts.append(f'<tr><td><a href="#{sec.anchor}">{esc(r[0])}</a></td>{cells}</tr>')
    parts.append("</table></div>")
    parts.append("<nav><h2>Contents</h2><ol>")
    parts += [f'<li><a href="#{sec.anchor}">{esc(sec.title)}</a></li>' for sec in sections]
    parts.append('<li><a href="#provenance">Provenance</a></li></ol></nav>')
    parts.append(f"<p>Verdict rule — {esc(RULE)} {esc(RULE_NOTE)}</p>")
    for sec in sections:
        parts += [
            f'<section id="{sec.anchor}"><h2>{esc(sec.title)}</h2>',
            f"<p>{_arxiv_html(sec.paper.replace('*', ''))}</p>",
            f"<p>{esc(sec.description)}</p>",
            f"<p>{esc(sec.summary)}</p>",
        ]
        for p in sec.pngs:
            data = base64.b64encode(p.read_bytes()).decode()
            parts.append(f'<img alt="{esc(p.stem)}" src="data:image/png;base64,{data}">')
        parts += [f"<p>{esc(sec.problem)}</p>"] if sec.problem else []
        parts.append(
            '<div class="wide"><table><tr>' + "".join(f"<th>{esc(c)}</th>" for c in COLUMNS) + "</tr>"
        )
        for c in sec.claims:
            cells = [f"<td>{esc(x)}</td>" for x in _row(c)]
            cells[VERDICT_COLUMN] = f'<td class="{c.verdict}">{esc(c.verdict)}</td>'
            parts.append("<tr>" + "".join(cells) + "</tr>")
        parts.append("</table></div></section>")
    parts.append('<details id="provenance"><summary>Provenance</summary><ul>')
    parts += [f"<li>{esc(f)}</li>" for f in facts]
    parts.append("</ul></details>")
    parts.append("</body></html>")
    return "\n".join(parts)


@dataclass
class Part:
    """One sweep of a report: its collected table, its provenance (table.json) and its variant
    ("" for the experiment's own configuration, else "-<hash>" as in its folder's name)."""

    table: pd.DataFrame
    info: dict
    variant: str = ""


def write(table: pd.DataFrame, info: dict, out: Path) -> tuple[Path, list[Claim]]:
    """Draw the figures into out/figures; write out/report.md, out/report.html and out/claims.csv."""
    return write_parts([Part(table, info)], out)


def write_parts(parts: list[Part], out: Path) -> tuple[Path, list[Claim]]:
    """One report of several sweeps (an output root, an experiment's folder with its variants):
    a section per experiment and sweep, in the papers' order; a variant's section names its
    overrides, and its figures carry its hash in their file names."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results.remove_stale_temporaries(out)  # of reports killed before: theirs, never a live writer's
    work = results.temporary_folder(out, "report")  # the whole report, swapped in at the end
    try:
        return _write_parts(parts, out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def partial_warnings(info: dict) -> list[str]:
    """The report header's line for each sweep whose grid is not complete (pending, running, failed jobs)."""
    return [f"Warning: {line}; the verdicts rest on those jobs only." for line in results.partial_lines(info)]


# A report of this many rows or more evaluates its sections in parallel (one process per core, `_sections`):
# below, the pool's start-up is not paid back (a quick sweep's section takes 1–40 s, a test table's 0.1 s).
POOL_ROWS = 20_000
_JOBS: list[tuple] = []  # the sections a pool of forked processes evaluates (`_sections`), inherited


def _section(exp, scale: str, rows: pd.DataFrame, figures: Path, variant: str):
    """(claims, figure paths, why figures are missing) of one experiment and scale of one sweep."""
    these = claims_of(exp, rows)
    return (these, *figures_of(exp, scale, rows, figures, these, variant))


def _section_at(i: int):
    return _section(*_JOBS[i])


def _worker_start() -> None:
    """A pool process: the parent stops it (Pool.terminate on Ctrl-C, SIGTERM or an error), and it
    never enters an OpenMP region whose threads stayed behind in the parent (a forked libgomp hangs)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for s in results.STOPS:
        signal.signal(s, signal.SIG_DFL)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _sections(jobs: list[tuple]) -> list[tuple]:
    """`_section` of each job, in order: in a pool of forked processes (they inherit the tables, nothing
    is pickled but the claims) where there are several cores and rows enough, the largest tables first.
    Each section's claims and figure files do not depend on where it ran."""
    global _JOBS
    n = min(launch.cores(), len(jobs))
    if n < 2 or sum(len(job[2]) for job in jobs) < POOL_ROWS:
        return [_section(*job) for job in jobs]
    _JOBS = jobs
    try:
        with multiprocessing.get_context("fork").Pool(n, initializer=_worker_start) as pool:
            order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][2]))
            pending = {i: pool.apply_async(_section_at, (i,)) for i in order}
            return [pending[i].get() for i in range(len(jobs))]
    finally:
        _JOBS = []


def _write_parts(parts: list[Part], out: Path, work: Path) -> tuple[Path, list[Claim]]:
    found = [(part, exp, scale, rows) for part in parts for exp, scale, rows in by_experiment(part.table)]
    done = _sections([(exp, scale, rows, work / "figures", part.variant) for part, exp, scale, rows in found])
    sections = []
    for (part, exp, scale, rows), (these, pngs, problem) in zip(found, done):
        not_ok = rows["status"].value_counts().drop("ok", errors="ignore")
        status = "".join(f", {n} {s}" for s, n in not_ok.items())
        seeds = rows["seed"].nunique() if "seed" in rows else 1
        overrides = [
            o
            for s in part.info.get("sweeps", [])
            if (s.get("experiment"), s.get("scale")) == (exp.name, scale)
            for o in (s.get("overrides") or [])
        ]
        title = f"{exp.name} ({scale})"
        if part.variant:
            title += f", variant {part.variant[1:]}: {' '.join(overrides) or 'overrides unknown'}"
        sections.append(
            Section(
                title,
                f"{PAPERS[exp.family]} — {exp.figure}.",
                exp.description,
                f"{len(rows)} rows, {seeds} seeds{status}.",
                [p for p in pngs if p.suffix == ".png"],
                problem,
                these,
                exp.family,
                part.variant,
            )
        )
    sections.sort(key=lambda sec: sec.order)
    claims = [c for sec in sections for c in sec.claims]
    info = {
        "mixed": any(p.info.get("mixed") for p in parts),
        "sweeps": [s for p in parts for s in p.info.get("sweeps", [])],
    }
    info["warnings"] = partial_warnings(info)
    results.write_bytes(work / "report.md", markdown(sections, info, claims, work).encode())
    results.write_bytes(work / "report.html", html_page(sections, info, claims).encode())
    variants = [sec.variant[1:] for sec in sections for _ in sec.claims]  # the hash ("-…" reads as a formula)
    results.write_csv(claims_frame(claims).assign(variant=variants), work / "claims.csv")
    # report.md, report.html, claims.csv and the figures replace the old ones together or not at all
    results.swap_in(work, out, [p.relative_to(work) for p in sorted(work.rglob("*")) if p.is_file()])
    return out / "report.md", claims


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "experiment": c.experiment,
                "claim": c.statement,
                "measured": c.measured,
                "u": c.u,
                "how": c.how,
                "expected": c.expected,
                "verdict": c.verdict,
                "kind": c.kind,
                "source": c.source,
                "low": c.low,
                "high": c.high,
                "points": c.points,
                "seeds": c.seeds,
                "p_pass": c.pass_probability(),
                "excluded": c.excluded,
                "of": c.of,
                "excluded_why": c.excluded_why,
                "detail": c.detail,
                "statement_id": c.statement_id,
                "mistake": c.mistake,
                "detects": c.detects,
                "detects_target": c.detects_target,
                "post_hoc": c.post_hoc,
            }
            for c in claims
        ]
    )


def audit_frame(per_seed: list[tuple[int, Claim]]) -> pd.DataFrame:
    """Verdict counts of each claim over seeds: one row per (experiment, claim)."""
    rows = pd.DataFrame(
        [
            {
                "experiment": c.experiment,
                "claim": c.statement,
                "kind": c.kind,
                "statement_id": c.statement_id,
                "post_hoc": c.post_hoc,
                "seed": s,
                "verdict": c.verdict,
            }
            for s, c in per_seed
        ]
    )
    counts = rows.pivot_table(
        index=["experiment", "kind", "claim", "statement_id", "post_hoc"],
        columns="verdict",
        values="seed",
        aggfunc="count",
        fill_value=0,
        sort=False,
    )
    counts = counts.reindex(columns=list(VERDICTS), fill_value=0).reset_index()
    counts["seeds"] = counts[list(VERDICTS)].sum(axis=1)
    return counts


def generated_by(command: str) -> str:
    """The header line of a generated doc: what wrote it, on which code, when and where."""
    commit, dirty = results.git_state()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}"
    return (
        f"*Generated by `{command}` — do not edit. Commit {commit[:12]}{' (dirty)' if dirty else ''}, "
        f"{when}, {machine}.*"
    )


def audit_markdown(counts: pd.DataFrame, scale: str) -> str:
    """One row per claim: its statement, its verdict counts, and the seeds its range or set-up was
    changed after (post hoc: these fresh seeds are the audit it owes)."""
    lines = [
        f"| experiment | kind | statement | claim ({scale}) | pass | fail | inconclusive | post hoc (seeds seen) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.experiment} | {r.kind} | {r.statement_id or '—'} | {_cell(r.claim)} | {r['pass']}/{r.seeds} | "
        f"{r.fail} | {r.inconclusive} | {_cell(r.post_hoc) or '—'} |"
        for _, r in counts.iterrows()
    ]
    return "\n".join(lines)
