"""scripts/power.py: the rule that reads the smallest failing size, and entries that name real experiments."""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import power

from mfx import experiment as registry


def test_the_smallest_failing_size_is_the_one_from_which_every_larger_size_fails():
    assert power.smallest_failing({0: "pass", 0.05: "pass", 0.1: "fail", 0.2: "fail"}) == 0.1
    assert power.smallest_failing({0: "pass", 0.05: "fail", 0.1: "inconclusive", 0.2: "fail"}) == 0.2
    assert math.isnan(power.smallest_failing({0: "pass", 0.1: "pass", 0.2: "inconclusive"}))
    assert math.isnan(power.smallest_failing({0: "fail"}))  # the code as it is never counts


def test_every_entry_names_a_registered_experiment_and_sizes_above_zero():
    names = registry.load_all()
    for entry in power.ENTRIES.values():
        assert entry.experiment in names and all(s > 0 for s in entry.sizes), entry


def test_power_md_is_what_the_script_writes_from_power_csv():
    """docs/power.md is generated from docs/power.csv (the merged runs): a row edited by hand in either, or
    a change of the table's layout without rerunning the merge, fails here."""
    import pandas as pd

    docs = Path(__file__).resolve().parents[1] / "docs"
    table = pd.read_csv(docs / "power.csv", dtype={"commit": str})
    assert (docs / "power.md").read_text(encoding="utf-8") == power.markdown(table), "docs/power.md is stale"


def test_every_detects_the_kept_claims_report_is_backed_by_a_measured_power_row():
    """A claim's `detects` (typed into its ranges entry) is the smallest size of its mistake the claim was
    measured to fail: the power table must hold, for that claim at that scale, an entry that fails from that
    size or below (an entry's `detects` may be the largest over the claims it serves; inf: rows measured, none
    failing). A number typed without
    its row, or a row rerun after the code changed so that the claim no longer fails there, fails here."""
    import pandas as pd

    docs = Path(__file__).resolve().parents[1] / "docs"
    table = pd.read_csv(docs / "power.csv", dtype={"commit": str})
    fails_from: dict[tuple, list[float]] = {}
    for (experiment, claim, scale), rows in table.groupby(["experiment", "claim", "scale"]):
        for _, entry in rows.groupby("entry"):
            size = power.smallest_failing(dict(zip(entry.s, entry.verdict)))
            fails_from.setdefault((experiment, claim, scale), []).append(size)
    unbacked = []
    for scale in ("quick", "paper"):
        claims = pd.read_csv(docs / f"claims-{scale}.csv")
        for c in claims[(claims.kind == "paper") & claims.detects.notna()].itertuples():
            rows = fails_from.get((c.experiment, c.claim, scale), [])
            # inf: measured, and no size of the grid failed it
            measured = rows if math.isinf(c.detects) else [s for s in rows if s <= c.detects]
            if not measured:
                unbacked.append(f"{scale} {c.experiment}: {c.claim} (detects {c.detects:g})")
    assert unbacked == [], "detects without a power row that fails there:\n" + "\n".join(unbacked)
