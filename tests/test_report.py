"""report.md, report.html and claims.csv from a collected table (mfx.report)."""

import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pandas as pd
import pytest
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
    assert lines[0] == "claims (quick scale): ✓ 3 pass · ✗ 1 fail · ? 0 inconclusive"
    assert (
        lines[1] == "✗ [paper] ODE plateau level (1/2 pass)"
    )  # the worst verdict of the group marks the line
    # a long claim wraps, indented, never cut: every word of it is in the caption
    assert lines[2].startswith("✓ [derived] drift up to tau = 200") and lines[-1].endswith(
        ": 1e-09 (≤ 1e-06)"
    )
    assert all(line.startswith("    ") for line in lines[3:]) and len(lines) > 3
    assert all(len(line) <= 80 for line in lines) and "…" not in "".join(lines)
    assert " ".join(" ".join(lines[2:]).split()).count("and a long explanation") == 6
    big = [
        Claim.within("x", f"{what}, p={p}, N = {N}", 1, 1, 0.1, kind="paper", source="F")
        for what, N in (("crossing times", "10⁶"), ("mean τ", "3 × 10⁵"))
        for p in (1, 2)
    ]
    assert report.caption_lines(big, big, "quick", chars=80)[1:] == [
        "✓ [paper] crossing times (2/2 pass)",
        "✓ [paper] mean τ (2/2 pass)",
    ]  # "N = 10⁶" and "N = 3 × 10⁵" are grid coordinates too
    narrow = report.caption_lines(claims, [], "paper", chars=40)
    assert narrow == ["claims (paper scale): ✓ 3 · ✗ 1 · ? 0"]


def test_a_caption_typesets_a_sign_before_a_number_as_a_minus_but_keeps_exponents_and_hyphens():
    c = Claim.within(
        "x", "width exponent k of H-dependent error", -0.496, -0.5, 0.15, kind="derived", source="d"
    )
    (line,) = report.caption_lines([c], [c], "quick", chars=200)[1:]
    assert "k of H-dependent error: −0.496 (−0.5 ± 0.15)" in line, line
    d = Claim.at_most("x", "null ratio", 1e-16, 1e-13, kind="identity", source="i")
    assert report.caption_lines([d], [d], "quick", chars=200)[1].endswith(": 1e-16 (≤ 1e-13)")


def test_report_over_a_root_has_a_section_per_sweep_and_names_a_variants_overrides(
    tmp_path, capsys, monkeypatch
):
    sweep = _toy_report(tmp_path)
    argv = ["run", f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy", f"out={tmp_path}"]
    assert cli.main([*argv, "model.slope_shift=0.2"]) == 0  # a variant whose claim fails
    (variant,) = [p for p in (tmp_path / "toy").iterdir() if p != sweep]
    capsys.readouterr()
    for root in (tmp_path, tmp_path / "toy"):  # an output root, an experiment's folder
        assert cli.main(["report", str(root)]) == 0
        out = capsys.readouterr().out
        assert f"→ {root / 'report.md'} and report.html (2 sweeps)" in out
        assert "FAIL [paper] toy: slope of y vs a" in out and "outside the range by" in out
        md = (root / "report.md").read_text()
        assert (
            "## toy (quick)\n" in md
            and f"## toy (quick), variant {variant.name[6:]}: model.slope\\_shift=0.2" in md
        )
        claims = pd.read_csv(root / "claims.csv")
        assert list(claims["verdict"]) == ["pass", "fail"] and list(claims["variant"].fillna("")) == [
            "",
            variant.name[6:],
        ]
        figures = {p.name for p in (root / "figures").glob("*.png")}
        assert figures == {"toy_quick_y_vs_a.png", f"toy_{variant.name}_y_vs_a.png"}
    # evaluated in a pool of forked processes (as a large report is on several cores): the same bytes
    monkeypatch.setattr(report.launch, "cores", lambda: 2)
    monkeypatch.setattr(report, "POOL_ROWS", 0)
    section, pids = report._section, tmp_path / "pids"

    def noted(*job):  # which process evaluates each section
        with pids.open("a") as f:
            f.write(f"{os.getpid()}\n")
        return section(*job)

    monkeypatch.setattr(report, "_section", noted)
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "pooled")]) == 0
    assert len(pids.read_text().split()) == 2 and str(os.getpid()) not in pids.read_text().split()
    written = lambda d: {
        p.relative_to(d): p.read_bytes()
        for p in [d / "report.md", d / "report.html", d / "claims.csv", *sorted((d / "figures").iterdir())]
    }
    assert len(written(tmp_path)) == 7 and written(tmp_path / "pooled") == written(tmp_path)
    monkeypatch.undo()
    # --mixed: one table of both configurations, as asked (the report says so); every command whose
    # message suggests it accepts it
    assert cli.main(["report", str(tmp_path / "toy"), "--mixed"]) == 0
    assert "knowingly mixes" in (tmp_path / "toy" / "report.md").read_text()
    assert cli.main(["compare", str(tmp_path / "toy"), str(sweep), "--mixed"]) == 0
    assert cli.main(["plot", str(tmp_path / "toy"), "--out", str(tmp_path / "figs")]) == 0  # each sweep alone
    assert {p.name for p in (tmp_path / "figs").glob("*.png")} == figures
    assert cli.main(["collect", str(tmp_path / "toy"), "--mixed"]) == 0


def test_html_report_opens_with_a_summary_table_and_contents_and_folds_provenance(tmp_path):
    sweep = _toy_report(tmp_path)
    page = (sweep / "report.html").read_text()
    summary, contents = page.index('id="summary"'), page.index("<h2>Contents</h2>")
    first_section, provenance = page.index("<section"), page.index('<details id="provenance">')
    assert summary < contents < first_section < provenance
    assert "<th>paper</th>" in page and "<td>1/1 pass</td>" in page
    assert 'content="width=device-width' in page and "max-width:100%;height:auto" in page


def test_reason_says_why_a_claim_is_not_a_pass():
    wide = Claim.within("x", "s", 0.47, 0.5, 0.15, u=0.1, how="fit SE", kind="paper", source="p")
    assert wide.verdict == "inconclusive"
    assert report.reason(wide) == "inside the range, but 2u = 0.2 exceeds the resolution 0.15"
    few = Claim.within(
        "x", "s", 0.5, 0.5, 0.15, u=0.01, how="fit SE", points=2, min_points=3, kind="paper", source="p"
    )
    assert report.reason(few) == "inside the range; needs ≥ 3 points"
    off = Claim.at_most("x", "s", 2.0, 1.0, u=0.1, how="fit SE", kind="derived", source="d")
    assert report.reason(off) == "outside the range by 1, more than 2u = 0.2"


BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
# What the page reports of itself once loaded in the browser, at a phone's width
CHECK = """<script>
window.addEventListener("load", () => {
  const images = [...document.images];
  const result = {
    images: images.length,
    loaded: images.filter((i) => i.complete && i.naturalWidth > 0).length,
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
    widest: Math.max(0, ...images.map((i) => i.getBoundingClientRect().right)),
    summary: document.querySelectorAll("#summary tr").length,
    contents: document.querySelectorAll("nav li").length,
    folded: !document.querySelector("details#provenance").open,
  };
  const out = document.createElement("pre");
  out.id = "check";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script></body>"""


@pytest.mark.skipif(BROWSER is None, reason="no headless browser (apt-get install chromium)")
def test_html_report_renders_in_a_browser_with_every_image_and_nothing_wider_than_a_phone(tmp_path):
    sweep = _toy_report(tmp_path)
    page = (sweep / "report.html").read_text().replace("</body>", CHECK)
    (tmp_path / "checked.html").write_text(page)
    argv = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=400,800"]
    argv += ["--virtual-time-budget=5000", "--dump-dom", (tmp_path / "checked.html").as_uri()]
    dom = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True).stdout
    found = re.search(r'<pre id="check">(.*?)</pre>', dom)
    assert found, dom[-500:]
    r = json.loads(html.unescape(found.group(1)))
    assert r["images"] == r["loaded"] == 1  # the figure is there, decoded
    assert r["page"] <= r["window"] and r["widest"] <= r["window"]  # scaled to the page, no sideways scroll
    assert r["summary"] == 2 and r["contents"] == 2 and r["folded"]  # header + 1 row; 1 section + provenance
