"""report.md, report.html and claims.csv from a collected table (mfx.report)."""

from html.parser import HTMLParser

import pandas as pd
from conftest import TEST_CONF

from mfx import cli, report
from mfx.experiment import Claim


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.open = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        elif tag not in ("meta",):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open.pop() == tag, f"</{tag}> closes {self.open[-1:]}"


def _toy_report(tmp_path):
    argv = ["run", f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy", f"out={tmp_path}"]
    assert cli.main(argv) == 0
    sweep = tmp_path / "toy" / "quick"
    assert cli.main(["report", str(sweep)]) == 0
    return sweep


def test_html_report_is_self_contained_and_embeds_every_figure(tmp_path):
    sweep = _toy_report(tmp_path)
    page = _Page()
    page.feed((sweep / "report.html").read_text())
    page.close()
    assert page.open == []  # every element closed
    pngs = sorted((sweep / "figures").glob("*.png"))
    assert len(page.images) == len(pngs) == 1
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    text = (sweep / "report.html").read_text()
    assert "configuration" in text and "Verdict rule" in text and "slope of y vs a" in text


def test_claims_csv_holds_every_claim_with_its_uncertainty(tmp_path):
    claims = pd.read_csv(_toy_report(tmp_path) / "claims.csv")
    assert list(claims.columns[:7]) == ["experiment", "claim", "measured", "u", "how", "expected", "verdict"]
    assert list(claims["verdict"]) == ["pass"] and claims["u"].iloc[0] > 0


def test_markdown_and_html_escape_table_text():
    evil = "<script>alert(1)</script> | **bold** [x](y)"
    c = Claim.at_most("toy", evil, 1.0, 2.0, detail=evil, kind="identity", source=evil)
    sec = report.Section("toy (quick)", "paper", evil, "1 rows", [], "", [c])
    md = report.markdown([sec], {}, [c], out=None)
    page = report.html_page([sec], {}, [c])
    assert "<script>" not in md and "<script>" not in page
    assert "\\|" in md and "\\*\\*bold\\*\\*" in md
    assert "identity: &lt;script&gt;" in md and "identity: &lt;script&gt;" in page


def test_provenance_warns_of_mixed_tables_and_several_commits():
    sweep = {
        "experiment": "toy",
        "scale": "quick",
        "sweep_hash": "abc",
        "commits": ["c1", "c2"],
        "mfx": ["0.1"],
        "torch": ["2"],
        "devices": ["cpu"],
        "dtypes": ["float64"],
        "first_job": "t0",
        "last_job": "t1",
    }
    warnings, facts = report.provenance({"mixed": True, "sweeps": [sweep]})
    assert len(warnings) == 2 and "2 commits" in warnings[0] and "mixes" in warnings[1]
    assert any("configuration abc" in f for f in facts)


def test_a_figure_caption_counts_every_verdict_and_groups_claims_by_grid_coordinate():
    claims = [
        Claim.within("x", "ODE plateau level, p=1, p*=2", 0.5, 0.5, 0.01, kind="paper", source="F1"),
        Claim.within("x", "ODE plateau level, p=2, p*=2", 0.9, 0.5, 0.01, kind="paper", source="F1"),  # fails
        Claim.at_most(
            "x",
            "drift up to tau = 200 " + "and a long explanation " * 6,
            1e-9,
            1e-6,
            kind="derived",
            source="d",
        ),
        Claim.at_least("x", "another claim, not shown on this figure", 1.0, 0.5, kind="identity", source="i"),
    ]
    lines = report.caption_lines(claims, claims[:3], "quick", chars=80)
    assert lines[0] == "claims (quick): ✓ 3 pass · ✗ 1 fail · ? 0 inconclusive"
    assert (
        lines[1] == "✗ [paper] ODE plateau level (1/2 pass)"
    )  # the worst verdict of the group marks the line
    assert lines[2].startswith("✓ [derived] drift up to tau = 200") and lines[2].endswith(
        "…: 1e-09 (≤ 1e-06)"
    )
    assert all(len(line) <= 80 for line in lines) and len(lines) == 3
    narrow = report.caption_lines(claims, [], "paper", chars=40)
    assert narrow == ["claims (paper): ✓ 3 · ✗ 1 · ? 0"]
