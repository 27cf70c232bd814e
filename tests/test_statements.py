"""The statements registry and its status rule (mfx.statements): every rule on hand-made claims, the
registries of the three families, and `mfx statements` on reports written to disk."""

from __future__ import annotations

import csv
import math
import subprocess
import sys

import pytest

from mfx import cli, statements
from mfx.experiment import FAMILIES
from mfx.statements import Statement

S = Statement("x.thm", "resnet", "a quote", "summary §1", parts={"depth": "1/L", "width": "1/√(LM)"})
ONE = Statement("x.one", "resnet", "another", "abstract")


def claim(sid, kind="paper", verdict="pass", detects=0.1, target=0.25, experiment="e"):
    return {
        "experiment": experiment,
        "statement_id": sid,
        "kind": kind,
        "verdict": verdict,
        "detects": detects,
        "detects_target": target,
    }


def status(claims, s=S):
    (record,) = statements.evaluate(claims, {s.id: s})
    return record["status"], {p: st for p, (st, _) in record["parts"].items()}


def test_a_statement_is_reproduced_when_every_part_has_resolved_passing_paper_claims():
    assert status([claim("x.thm/depth"), claim("x.thm/width")]) == (
        "reproduced",
        {"depth": "reproduced", "width": "reproduced"},
    )
    assert status([claim("x.one")], ONE)[0] == "reproduced"


@pytest.mark.parametrize(
    "width, expected",
    [
        (claim("x.thm/width", kind="derived"), "in part"),  # no paper claim
        (claim("x.thm/width", kind="identity"), "in part"),
        (claim("x.thm/width", verdict="inconclusive"), "in part"),
        (claim("x.thm/width", detects=0.3), "in part"),  # coarser than the target
        (claim("x.thm/width", detects=math.nan), "in part"),  # power not measured
        (claim("x.thm/width", detects=""), "in part"),  # as read from a claims.csv
        (claim("x.thm/width", verdict="fail"), "not reproduced"),
    ],
)
def test_a_part_is_in_part_or_not_reproduced_by_its_weakest_paper_claim(width, expected):
    assert status([claim("x.thm/depth"), width]) == (expected, {"depth": "reproduced", "width": expected})


def test_a_failing_paper_claim_outweighs_a_passing_one_and_a_failing_derived_one_leaves_the_part_in_part():
    assert (
        status([claim("x.thm/depth"), claim("x.thm/depth", verdict="fail")])[1]["depth"] == "not reproduced"
    )
    # a failing precondition of the part (e.g. "the networks trained", derived) is no failure of the paper's
    # statement, but its paper claims were read on runs that do not show it: training off must not reproduce it
    both = [claim("x.thm/depth"), claim("x.thm/depth", kind="derived", verdict="fail"), claim("x.thm/width")]
    assert status(both) == ("in part", {"depth": "in part", "width": "reproduced"})
    inconclusive = [claim("x.thm/depth"), claim("x.thm/depth", kind="derived", verdict="inconclusive")]
    assert status(inconclusive + [claim("x.thm/width")])[0] == "reproduced"


def test_a_part_without_a_claim_leaves_the_statement_in_part_and_none_leaves_it_not_tested():
    assert status([claim("x.thm/depth")]) == ("in part", {"depth": "reproduced", "width": "not tested"})
    assert status([claim("other/depth")])[0] == "not tested"
    (record,) = statements.evaluate([claim("x.thm/depth")], {S.id: S})
    assert record["missing"] == ["width"]


def test_the_headline_counts_statements_and_names_failures_only_when_there_are():
    records = statements.evaluate(
        [claim("x.thm/depth"), claim("x.one", verdict="fail")], {S.id: S, ONE.id: ONE}
    )
    assert (
        statements.headline(records)
        == "0 of 2 statements reproduced, 1 in part, 1 not reproduced, 0 not tested"
    )
    records = statements.evaluate([claim("x.one")], {S.id: S, ONE.id: ONE})
    assert statements.headline(records) == "1 of 2 statements reproduced, 0 in part, 1 not tested"


def test_the_table_says_what_is_missing_or_why_a_part_is_in_part():
    records = statements.evaluate(
        [claim("x.thm/depth", kind="derived"), claim("x.thm/depth", kind="identity")], {S.id: S}
    )
    ((sid, st, claims, notes),) = statements.rows(records)
    assert (sid, st, claims) == ("x.thm", "in part", "1/1 derived, 1/1 identity pass")
    assert notes == "width: no claim; depth: no paper claim (derived, identity only)"


def test_power_reads_a_ranges_entry_at_its_scale_and_an_unmeasured_scale_is_nan():
    entry = {
        "statement": "x.thm/depth",
        "mistake": "η × (1 + s)",
        "detects": {"quick": 0.2},
        "post_hoc": "0–9",
    }
    quick = statements.power(entry, "quick")
    assert quick == {
        "statement_id": "x.thm/depth",
        "mistake": "η × (1 + s)",
        "detects": 0.2,
        "detects_target": 0.25,
        "post_hoc": "0–9",
    }
    paper = statements.power(entry, "paper")
    assert math.isnan(paper["detects"]) and paper["detects_target"] == 0.1
    assert statements.power({"target": {"paper": 0.05}}, "paper")["detects_target"] == 0.05


def test_the_scope_of_a_report_is_each_whole_family_and_the_statements_its_claims_name():
    families = {"a1": "resnet", "a2": "resnet", "b1": "quadratic"}
    registry = statements.registry()
    one = statements.in_scope([claim("chizat.thm1/depth", experiment="a1")], families)
    assert list(one) == ["chizat.thm1"]
    both = statements.in_scope([claim("", experiment="a1"), claim("", experiment="a2")], families)
    assert list(both) == [k for k, s in registry.items() if s.family == "resnet"]


def test_every_family_lists_its_statements_with_unique_ids_quotes_and_places():
    registry = statements.registry()
    for family in FAMILIES:
        mine = [s for s in registry.values() if s.family == family]
        assert mine, family
        for s in mine:
            assert s.quote.strip() and s.place.strip() and s.parts, s.id
            assert all(p == "" or (p.isidentifier() and what.strip()) for p, what in s.parts.items()), s.id
            assert len(s.parts) == 1 or "" not in s.parts, s.id  # "" names a one-part statement only


def _report(folder, rows):
    folder.mkdir(parents=True)
    with (folder / "claims.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_mfx_statements_reads_each_experiments_own_report_and_never_a_variants(tmp_path, capsys):
    registry = statements.registry(("resnet",))
    first = next(iter(registry.values()))
    _report(
        tmp_path / "resnet_depth" / "quick",
        [claim(pid, experiment="resnet_depth") for pid in first.part_ids()],
    )
    _report(
        tmp_path / "resnet_depth" / "quick-1a2b3c4d",
        [claim(pid, verdict="fail", experiment="resnet_depth") for pid in first.part_ids()],
    )
    assert cli.main(["statements", "resnet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    head, rest = out.split("REPRODUCED", 1)
    assert " ".join(head.split()) == (
        f"1 of {len(registry)} statements reproduced, 0 in part, {len(registry) - 1} not tested "
        f"(quick, latest reports under {tmp_path}/)"
    )
    assert rest.startswith(f"      {first.id}: {len(first.parts)}/{len(first.parts)} paper pass")
    assert "not yet run at quick" in " ".join(rest.split())


def test_mfx_statements_and_list_load_no_pandas():
    code = (
        "import sys; from mfx import cli, lazy\n"
        "cli.main(['statements', '--long']); cli.main(['list'])\n"
        "print('LOADED', [m for m in ('torch', 'pandas', 'matplotlib') if lazy.loaded(m)], file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stderr and "statements reproduced" in out.stdout


def test_a_part_in_part_for_its_resolution_says_how_many_are_unmeasured_and_what_the_others_detect():
    claims = [claim("x.thm/depth", detects=""), claim("x.thm/depth", detects=0.2, target=0.05)]
    assert statements.why_in_part(claims) == (
        "1 of 2 paper claims' resolution not measured; detects its mistake from 0.2 (target ≤ 0.05)"
    )
    # inf: a size grid was measured and no size failed it; a failing derived claim is named
    claims = [claim("x.thm/depth", detects="inf"), claim("x.thm/depth", kind="derived", verdict="fail")]
    assert statements.why_in_part(claims) == (
        "a derived claim of it fails; detects its mistake at no size tried (target ≤ 0.25)"
    )
    assert statements.part_status(claims) == "in part"


def _claims_file(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = ["experiment", "claim", "kind", "verdict", "statement_id", "variant"]
    path.write_text("\n".join([",".join(fields), *(",".join(r) for r in rows)]) + "\n", encoding="utf-8")


def test_the_newest_claims_are_each_sweeps_own_report_or_else_the_combined_report_of_experiment_all(tmp_path):
    """After `mfx run experiment=all` only report-<scale>/claims.csv exists: its rows count (a variant's
    never), and a sweep's own report, where there is one, wins."""
    _claims_file(
        tmp_path / "report-quick" / "claims.csv",
        [
            ("resnet_depth", "a", "paper", "pass", "chizat.thm1/depth", ""),
            ("resnet_width", "b", "paper", "pass", "chizat.thm1/width", "-1a2b"),
            ("quad_norms", "c", "paper", "pass", "bocchi.norms/first", ""),
        ],
    )
    _claims_file(
        tmp_path / "quad_norms" / "quick" / "claims.csv",
        [("quad_norms", "d", "paper", "fail", "bocchi.norms/first", "")],
    )
    claims, missing = statements.newest_claims(
        tmp_path, ["resnet_depth", "resnet_width", "quad_norms"], "quick"
    )
    assert [c["claim"] for c in claims] == ["a", "d"] and missing == ["resnet_width"]
