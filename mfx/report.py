"""Collected table → figures (PDF + PNG) and one Markdown report with every claim's verdict."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mfx import experiment as registry
from mfx import results
from mfx.experiment import Claim
from mfx.plotting import save_figure


def _by_experiment(table: pd.DataFrame):
    """(experiment, scale, rows) for each experiment and scale in the table: claims never mix scales."""
    experiments = registry.load_all()
    for name, scale in sorted(set(zip(table["experiment"], table["scale"]))):
        if name not in experiments:
            raise registry.ConfigError(f"table has rows of unknown experiment {name!r}")
        yield experiments[name], scale, results.experiment_rows(table, name, scale)


def draw(table: pd.DataFrame, out: Path) -> list[Path]:
    """Save every figure of every experiment in `table` as out/<experiment>_<key>.{pdf,png}."""
    paths = []
    for exp, scale, rows in _by_experiment(table):
        for key, fig in exp.plot(rows).items():
            paths += save_figure(fig, Path(out) / f"{exp.name}_{scale}_{key}")
    return paths


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write(table: pd.DataFrame, out: Path) -> tuple[Path, list[Claim]]:
    """Draw the figures into out/figures and write out/report.md; return its path and the claims."""
    out = Path(out)
    figures = out / "figures"
    claims: list[Claim] = []
    lines = ["# mfx report", ""]
    sections = []
    for exp, scale, rows in _by_experiment(table):
        figs = exp.plot(rows)
        pngs = [save_figure(fig, figures / f"{exp.name}_{scale}_{key}")[1] for key, fig in figs.items()]
        these = exp.claims(rows)
        claims += these
        not_ok = rows["status"].value_counts().drop("ok", errors="ignore")
        status = "".join(f", {n} {s}" for s, n in not_ok.items())
        sec = [f"## {exp.name} ({scale}) — {exp.figure}", "", exp.description, ""]
        sec.append(f"Family `{exp.family}`, scale `{scale}`, {len(rows)} rows{status}.")
        sec.append("")
        sec += [f"![{p.stem}]({p.relative_to(out).as_posix()})" for p in pngs]
        sec += [
            "",
            "| claim | measured | expected | verdict | how it was measured |",
            "|---|---|---|---|---|",
        ]
        sec += [
            f"| {_cell(c.statement)} | {c.measured:.4g} | {_cell(c.expected)} | "
            f"{'pass' if c.passed else '**FAIL**'} | {_cell(c.detail)} |"
            for c in these
        ]
        sections += sec + [""]
    passed = sum(c.passed for c in claims)
    lines += [f"**{passed} of {len(claims)} claims pass.**", ""]
    lines += ["Every claim, its measured value (fitted rate, level or count) and its verdict:", ""]
    lines += ["| experiment | claim | measured | expected | verdict |", "|---|---|---|---|---|"]
    lines += [
        f"| {c.experiment} | {_cell(c.statement)} | {c.measured:.4g} | {_cell(c.expected)} | "
        f"{'pass' if c.passed else '**FAIL**'} |"
        for c in claims
    ]
    lines += [""] + sections
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path, claims
