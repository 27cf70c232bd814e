"""The papers' statements: what mfx reproduces, above the claims that test them (issue 36).

A statement is a sentence of a paper (quoted from the summaries in shared/seeds/ or an abstract,
with its place) split into the parts that can be tested here.  Each family lists its statements in
`mfx/<family>/statements.py` (`STATEMENTS`); every claim names the statement part it serves with
`statement_id="<statement id>/<part>"` (or the bare id for a one-part statement).

Status of a part, from the claims that serve it (one rule, `part_status`):
- **reproduced**: it has a paper claim, every paper claim of it passes, and each of them resolves
  its registered mistake at the target size (`Claim.detects` ≤ `Claim.detects_target`), and no
  other claim of it fails (a failing precondition, e.g. "the networks trained", means the paper
  claims were read on runs that do not show what the part says: training off must not reproduce it);
- **not reproduced**: a paper claim of it fails;
- **in part**: it has claims, but only derived / identity / cross-check ones, or a paper claim that
  is inconclusive or whose resolution is unmeasured or coarser than the target;
- **not tested**: no claim serves it (or none was evaluated).
A statement takes the worst status of its parts, in the order not reproduced < in part < reproduced,
and is *not tested* only when no part has a claim.

Claims arrive as dicts with the keys of a claims.csv row (`report.claims_frame`), so a claims.csv
read with `csv` and a list of fresh claims go through the same code, and `mfx list` / `mfx
statements` load no pandas.
"""

from __future__ import annotations

import csv
import importlib
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from mfx.experiment import FAMILIES, KINDS

STATUSES = ("reproduced", "in part", "not reproduced", "not tested")
# The resolution a paper claim must reach for its statement to count as reproduced: the smallest size
# of its registered mistake that it fails (relative, or in the units the claim's `mistake` names, e.g.
# an exponent shift).  Issue 36: ≤ 25 % at quick, ≤ 10 % at paper.
TARGET = {"quick": 0.25, "paper": 0.10}
RULE = (
    "A statement is reproduced when each of its parts has a paper claim and every paper claim of it "
    "passes and detects its registered mistake at the target size (≤ 25 % at quick, ≤ 10 % at paper, "
    "or as the claim states), and none of its other claims fails; not reproduced when a paper claim of it fails; in part when a part rests "
    "only on derived, identity or cross-check claims, on an inconclusive paper claim, or on one whose "
    "resolution is unmeasured or coarser than the target, or has no claim; not tested when no part "
    "has a claim."
)


@dataclass(frozen=True)
class Statement:
    """`id` ("chizat.thm1"), the `quote` and its `place`, the testable `parts` (part key → what the
    part asserts; a one-part statement has the single key ""), and `untestable`: what of the sentence
    mfx does not test and why (empty when everything is)."""

    id: str
    family: str
    quote: str
    place: str
    parts: dict[str, str] = field(default_factory=lambda: {"": ""})
    untestable: str = ""

    def part_ids(self) -> list[str]:
        return [self.id if not p else f"{self.id}/{p}" for p in self.parts]


def registry(families=FAMILIES) -> dict[str, Statement]:
    """Every statement of `families`, in the papers' order (family, then as listed)."""
    out: dict[str, Statement] = {}
    for family in families:
        for s in importlib.import_module(f"mfx.{family}.statements").STATEMENTS:
            if s.id in out:
                raise ValueError(f"statement id {s.id!r} is listed twice")
            out[s.id] = s
    return out


def power(entry: dict, scale: str) -> dict:
    """The claim keywords of a ranges entry's power record: `statement` (the part id), `mistake` (the
    realistic mistake its can-fail test injects, with the unit of its size), `detects` ({scale: the
    smallest size of that mistake that the claim fails, as measured; absent = not measured}), `target`
    ({scale: resolution asked for}, default TARGET) and `post_hoc` (the seeds seen when the range
    or set-up was changed after an audit; empty if it was fixed before data)."""
    detects = entry.get("detects", {}).get(scale, math.nan)
    return {
        "statement_id": entry.get("statement", ""),
        "mistake": entry.get("mistake", ""),
        "detects": math.nan if detects is None else float(detects),
        "detects_target": float(entry.get("target", TARGET).get(scale, math.nan)),
        "post_hoc": entry.get("post_hoc", ""),
    }


def resolved(detects, target) -> bool:
    detects, target = number(detects), number(target)
    return math.isfinite(detects) and math.isfinite(target) and detects <= target


def number(x) -> float:
    """A claims.csv cell as a float (NaN when empty or not a number)."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def part_status(claims: list[dict]) -> str:
    """The status of one part from the claims that serve it (module docstring)."""
    if not claims:
        return "not tested"
    paper = [c for c in claims if c.get("kind") == "paper"]
    if any(c.get("verdict") == "fail" for c in paper):
        return "not reproduced"
    if (
        paper
        and all(
            c.get("verdict") == "pass" and resolved(c.get("detects"), c.get("detects_target")) for c in paper
        )
        and not any(c.get("verdict") == "fail" for c in claims)
    ):
        return "reproduced"
    return "in part"


def _worst(statuses: list[str]) -> str:
    """A statement's status from its parts': a part with no claim leaves it in part, not tested only
    when no part has one."""
    if all(s == "not tested" for s in statuses):
        return "not tested"
    if "not reproduced" in statuses:
        return "not reproduced"
    return "reproduced" if all(s == "reproduced" for s in statuses) else "in part"


def part_of(claim_statement_id: str) -> tuple[str, str]:
    sid, _, part = str(claim_statement_id).partition("/")
    return sid, part


def evaluate(claims: list[dict], statements: dict[str, Statement]) -> list[dict]:
    """One record per statement: id, statement, status, parts {part: (status, its claims)} and
    `missing` (parts with no claim).  A claim is a dict with the keys of a claims.csv row
    (report.claims_frame): kind, verdict, statement_id, detects, detects_target, …"""
    out = []
    for s in statements.values():
        parts = {}
        for p, pid in zip(s.parts, s.part_ids()):
            these = [c for c in claims if c.get("statement_id") == pid]
            parts[p] = (part_status(these), these)
        out.append(
            {
                "id": s.id,
                "statement": s,
                "status": _worst([st for st, _ in parts.values()]),
                "parts": parts,
                "missing": [p for p, (st, _) in parts.items() if st == "not tested"],
            }
        )
    return out


def unknown_ids(claims: list[dict], statements: dict[str, Statement]) -> list[str]:
    """Statement ids named by claims that the registry does not list (a typo, or a part not declared)."""
    known = {pid for s in statements.values() for pid in s.part_ids()}
    return sorted({c.get("statement_id") or "" for c in claims} - {""} - known)


def headline(records: list[dict]) -> str:
    """ "N of M statements reproduced, K in part, J not tested" (+ failures where there are)."""
    n = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    text = f"{n['reproduced']} of {len(records)} statements reproduced, {n['in part']} in part"
    if n["not reproduced"]:
        text += f", {n['not reproduced']} not reproduced"
    return text + f", {n['not tested']} not tested"


def in_scope(claims: list[dict], experiments: dict[str, str]) -> dict[str, Statement]:
    """The statements a set of claims speaks for: every statement of a family all of whose
    experiments (`experiments`: name → family) have claims here, and any other statement a claim
    names.  A report of one sweep so counts only what that sweep serves."""
    present = {c.get("experiment") for c in claims}
    whole = {
        f
        for f in FAMILIES
        if (names := [n for n, fam in experiments.items() if fam == f]) and present.issuperset(names)
    }
    named = {part_of(c.get("statement_id") or "")[0] for c in claims}
    return {k: s for k, s in registry(FAMILIES).items() if s.family in whole or k in named}


def tally(claims: list[dict]) -> str:
    """ "2/3 paper, 1/1 derived pass" for some claims."""
    out = []
    for kind in KINDS:
        these = [c for c in claims if c.get("kind") == kind]
        if these:
            out.append(f"{sum(c['verdict'] == 'pass' for c in these)}/{len(these)} {kind}")
    return ", ".join(out) + " pass" if out else "no claim"


def why_in_part(claims: list[dict]) -> str:
    paper = [c for c in claims if c.get("kind") == "paper"]
    if not paper:
        return "no paper claim (" + ", ".join(sorted({str(c.get("kind")) for c in claims})) + " only)"
    if any(c.get("verdict") != "pass" for c in paper):
        return "a paper claim is inconclusive"
    coarse = [c for c in paper if not resolved(c.get("detects"), c.get("detects_target"))]
    unmeasured = [c for c in coarse if math.isnan(number(c.get("detects")))]
    # detects = inf: measured over a size grid that never failed it (coarser than every size tried)
    sizes = sorted(
        {
            ("at no size tried" if math.isinf(d) else f"from {d:g}")
            + f" (target ≤ {number(c.get('detects_target')):g})"
            for c in coarse
            if not math.isnan(d := number(c.get("detects")))
        }
    )
    notes = [f"{len(unmeasured)} of {len(paper)} paper claims' resolution not measured"] if unmeasured else []
    failing = sorted({str(c.get("kind")) for c in claims if c.get("verdict") == "fail"})
    notes += [f"a {' and a '.join(failing)} claim of it fails"] if failing else []
    return "; ".join(notes + ([f"detects its mistake {', '.join(sizes)}"] if sizes else []))


def rows(records: list[dict]) -> list[list[str]]:
    """The statements table: id, status, claims by kind, what is missing or unresolved."""
    out = []
    for r in records:
        notes = [f"{p or 'the statement'}: no claim" for p in r["missing"]]
        notes += [
            f"{p or 'the statement'}: {why_in_part(c)}"
            for p, (st, c) in r["parts"].items()
            if st == "in part"
        ]
        out.append(
            [r["id"], r["status"], tally([c for _, cs in r["parts"].values() for c in cs]), "; ".join(notes)]
        )
    return out


def newest_claims(out, experiments: list[str], scale: str) -> tuple[list[dict], list[str]]:
    """The claims of each experiment's own sweep, `out/<name>/<scale>/claims.csv` (its latest report;
    variants, in `<scale>-<hash>` folders, never count) or else the combined report of `mfx run
    experiment=all`, `out/report-<scale>/claims.csv`, and the experiments that have none yet.
    Read with csv (no pandas): a FIFO or a folder named claims.csv is skipped, never opened."""
    claims, missing = [], []
    combined = _rows(Path(out) / f"report-{scale}" / "claims.csv")  # `mfx run experiment=all`'s report
    for name in experiments:
        own = _rows(Path(out) / name / scale / "claims.csv")
        these = [row for row in own or combined if row.get("experiment") == name and not row.get("variant")]
        claims += these
        missing += [] if these else [name]
    return claims, missing


def _rows(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.DictReader(f))


def lines(records: list[dict], long: bool = False, width: int = 100) -> list[str]:
    """The table `mfx statements` prints: one entry per statement (status, claims, what is missing),
    with its quote, place and parts under it when `long`; wrapped at `width`."""
    out = []
    wrap = lambda text, indent: textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=" " * 16)
    for r, (sid, status, claims, notes) in zip(records, rows(records)):
        out += wrap(f"{sid}: {claims}" + (f" — {notes}" if notes else ""), f"{status.upper():15} ")
        if long:
            s = r["statement"]
            out += wrap(f"“{s.quote}” ({s.place})", " " * 16)
            for p, what in s.parts.items():
                out += wrap(f"part {p}: {what}", " " * 16) if p else []
            out += wrap(f"not testable here: {s.untestable}", " " * 16) if s.untestable else []
    return out
