"""Table → numbers of the transformer family, shared by the claims (`experiments`) and the figures
(`plots`): the E1 error summary and its reference floor, the E3 merge curves."""

from __future__ import annotations

import pandas as pd

E1_FLOOR_FACTOR = 2.0  # points with error < 2 × reference spread are dominated by the reference


def limit_summary(table: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """Mean error over seeds per (L, H) and the reference floor (mean reference-to-reference spread)."""
    t = table[(table["experiment"] == "transformer_limit") & (table["status"] == "ok")]
    err = t[t["metric"] == "err"].groupby(["L", "H"], as_index=False)["value"].mean()
    err["LH"] = err["L"] * err["H"]
    floor = float(t.loc[t["metric"] == "ref_spread", "value"].mean())
    return err, floor


def merge_curves(table: pd.DataFrame) -> dict:
    """{(dist, d): (spacing, λ_min) sorted by decreasing spacing} of the merging families."""
    t = table[(table["experiment"] == "transformer_ntk") & (table["metric"] == "merge_lam_min")]
    return {
        k: (
            g.sort_values("spacing", ascending=False)["spacing"].to_numpy(),
            g.sort_values("spacing", ascending=False)["value"].to_numpy(),
        )
        for k, g in t.groupby(["dist", "d"])
    }
