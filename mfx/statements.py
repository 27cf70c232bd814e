"""The papers' statements: what mfx reproduces, above the claims that test them (issue 36).

A statement is a sentence of a paper (quoted from the summaries in shared/seeds/ or an abstract,
with its place) split into the parts that can be tested here.  Each family lists its statements in
`mfx/<family>/statements.py` (`STATEMENTS`); every claim names the statement part it serves with
`statement_id="<statement id>/<part>"` (or the bare id for a one-part statement).

Status of a part, from the claims that serve it (one rule, `part_status`):
- **reproduced**: it has a paper claim, every paper claim of it passes, and each of them resolves
  its registered mistake at the target size (`Claim.detects` ≤ `Claim.detects_target`);
- **not reproduced**: a paper claim of it fails;
- **in part**: it has claims, but only derived / identity / cross-check ones, or a paper claim that
  is inconclusive or whose resolution is unmeasured or coarser than the target;
- **not tested**: no claim serves it (or none was evaluated).
A statement takes the worst status of its parts, in the order not reproduced < in part < reproduced,
and is *not tested* only when no part has a claim.

This module reads claims as a DataFrame with the columns of `report.claims_frame` (so a claims.csv
and a list of fresh claims go through the same code); it imports no family at import time.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mfx.experiment import FAMILIES

if TYPE_CHECKING:
    import pandas as pd

STATUSES = ("reproduced", "in part", "not reproduced", "not tested")
# The resolution a paper claim must reach for its statement to count as reproduced: the smallest size
# of its registered mistake that it fails (relative, or in the units the claim's `mistake` names, e.g.
# an exponent shift).  Issue 36: ≤ 25 % at quick, ≤ 10 % at paper.
TARGET = {"quick": 0.25, "paper": 0.10}


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


def resolved(detects: float, target: float) -> bool:
    return math.isfinite(detects) and math.isfinite(target) and detects <= target


def _paper_ok(row) -> bool:
    return row["verdict"] == "pass" and resolved(float(row["detects"]), float(row["detects_target"]))


def part_status(claims: pd.DataFrame) -> str:
    """The status of one part from the claims that serve it (module docstring)."""
    if claims.empty:
        return "not tested"
    paper = claims[claims["kind"] == "paper"]
    if (paper["verdict"] == "fail").any():
        return "not reproduced"
    if not paper.empty and all(_paper_ok(r) for _, r in paper.iterrows()):
        return "reproduced"
    return "in part"


def _worst(statuses: list[str]) -> str:
    tested = [s for s in statuses if s != "not tested"]
    if not tested:
        return "not tested"
    for s in ("not reproduced", "in part"):
        if s in statuses:
            return s
    return "reproduced"


def part_of(claim_statement_id: str) -> tuple[str, str]:
    sid, _, part = str(claim_statement_id).partition("/")
    return sid, part


def evaluate(claims: pd.DataFrame, statements: dict[str, Statement]) -> list[dict]:
    """One record per statement: id, status, parts {part: (status, claims of it)}, and `missing`
    (parts with no claim).  `claims` has the columns of report.claims_frame (statement_id, kind,
    verdict, detects, detects_target, …)."""
    ids = claims["statement_id"].fillna("").astype(str) if "statement_id" in claims else None
    out = []
    for s in statements.values():
        parts = {}
        for p in s.parts:
            pid = s.id if not p else f"{s.id}/{p}"
            these = claims[ids == pid] if ids is not None else claims.iloc[:0]
            parts[p] = (part_status(these), these)
        status = _worst([st for st, _ in parts.values()])
        out.append(
            {
                "id": s.id,
                "statement": s,
                "status": status,
                "parts": parts,
                "missing": [p for p, (st, _) in parts.items() if st == "not tested"],
            }
        )
    return out


def unknown_ids(claims: pd.DataFrame, statements: dict[str, Statement]) -> list[str]:
    """Statement ids named by claims that the registry does not list (a typo, or a part not declared)."""
    known = {pid for s in statements.values() for pid in s.part_ids()}
    named = set(claims["statement_id"].fillna("").astype(str)) - {""} if "statement_id" in claims else set()
    return sorted(named - known)


def headline(records: list[dict]) -> str:
    """"N of M statements reproduced, K in part, J not tested" (+ failures where there are)."""
    n = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    text = f"{n['reproduced']} of {len(records)} statements reproduced, {n['in part']} in part"
    if n["not reproduced"]:
        text += f", {n['not reproduced']} not reproduced"
    return text + f", {n['not tested']} not tested"


def touched(claims: pd.DataFrame, statements: dict[str, Statement]) -> dict[str, Statement]:
    """The statements that `claims` serve (a report of some sweeps counts only those)."""
    named = {part_of(x)[0] for x in claims.get("statement_id", [])}
    return {k: s for k, s in statements.items() if k in named}
