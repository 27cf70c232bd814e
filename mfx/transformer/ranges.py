"""Ranges, tolerances and windows of the transformer family's claims, fixed before the data (issue 21 §4).

Each entry is {"value": the number a claim reads, "why": its reason — the paper's statement, the
derivation, or the resolution the statistics allow}.  Claims read their bounds from here only.
"""

from __future__ import annotations

RANGES: dict[str, dict] = {
    # ---------------------------------------------------------------- transformer_ntk (E3), adjoint
    "ntk_positive": {
        "value": 1e-10,
        "why": "λ_min/λ_max of a Gram or NTK block above which it is positive definite: float64 Grams of "
        "exactly dependent functions read ≤ 1e-13 (rounding of O(1) entries), so 1e-10 leaves 3 decades",
    },
    "ntk_null": {
        "value": 1e-13,
        "why": "λ_min/λ_max at or below which a float64 Gram or NTK block is an exact null (a few 1e-16 "
        "of rounding times the condition of the projection; measured nulls 1e-17…1e-15)",
    },
    "ntk_cf_N_max": {
        "value": 4,
        "why": "the closed-form positivity claim covers N ≤ 4 members: λ_min of N members of a smooth "
        "one-parameter family falls geometrically with N (they approach an (N−1)-dimensional polynomial "
        "span), below the 1e-10 resolution from N ≈ 6 on",
    },
    "ntk_separation_min": {
        "value": 0.5,
        "why": "log10 margin of the families over two i.i.d. samples of one law (QK block, L = 1, largest "
        "n): a factor 3, six seed-bootstrap SDs (SD ≈ 0.05–0.1) above 0",
    },
    "ntk_merge_drop": {
        "value": 1e-3,
        "why": "λ_min ∝ spacing² as two members merge (Taylor in the member parameter): three decades of "
        "spacing (1 → 1e-3) give ~6 decades; 1e-3 asks for half of that",
    },
    "ntk_block_mismatch": {
        "value": 0,
        "why": "the block ⇔ Gram equivalence is exact at L = 1 (ntk.py derivation): no case may disagree",
    },
    "discrete_positive_share": {
        "value": 1.0,
        "why": "the paper: distinguishability holds almost surely for i.i.d. samples of an absolutely "
        "continuous law, so every draw (100 %) must give a positive-definite Gram",
    },
    "adjoint_depth_slope": {
        "value": (-1.0, 0.15),
        "why": "Euler in depth is a first-order scheme: the per-head gradient error of the deterministic "
        "(quadrature-width) network falls as 1/L; ±0.15 absorbs the O(1/L²) bend over L = 4…64",
    },
    "adjoint_width_slope": {
        "value": (-0.5, 0.15),
        "why": "Monte Carlo over the L·H i.i.d. heads: the excess error over the depth error falls as "
        "(LH)^(-1/2) at fixed L; ±0.15 is ~3 seed-bootstrap SDs at quick scale",
    },
    "adjoint_rel_error_max": {
        "value": 0.05,
        "why": "the L → ∞ extrapolation 2g_2L − g_L of the per-head gradient must be within 5 % (RMS, "
        "relative) of the limit's: what is left is O(1/L²) (≲ 1 % at L = 16–32); 5 % catches an O(1) "
        "mistake (a term of the adjoint missing).  Set for the raw error at L = 32 first; its constant "
        "varies 4× between problem draws (0.015–0.065, fresh seeds), so the claim reads the extrapolation",
    },
    # ---------------------------------------------------------------- end transformer_ntk (E3), adjoint
}
