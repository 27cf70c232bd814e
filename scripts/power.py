"""The power table (issue 36 §3): each sized mistake over a grid of sizes, every claim's verdict at each
size, and the smallest size it fails — written to docs/power.md and docs/power.csv, never typed.

    PYTHONPATH=. python scripts/power.py                       # every entry, quick, seed 0 (make power)
    PYTHONPATH=. python scripts/power.py quad_eta --scale paper --seeds 0

Each entry names an experiment, a mistake with a size s (the mistakes are those of the can-fail tests:
tests/<family>/mutations.py and tests/resnet/test_claims_can_fail.py) and the sizes to try; size 0 is the
code as it is, run once per experiment.  Each run goes in-process into its own folder (a fresh artifact
cache, so no reference made by the correct code is reused), as scripts/mutations.py does.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mfx import cli, results
from mfx import experiment as registry
from mfx.resnet import model as resnet_model
from tests.quadratic.mutations import sgd_with
from tests.resnet import mutations as resnet_mutations
from tests.transformer.mutations import (
    adjoint_interaction_scaled,
    gmm_separation_shrunk,
    kernel_scaled,
    learning_rate_H_power,
    learning_rate_L_power,
    query_among_its_keys_weighted,
    residual_scale_H_power,
    residual_scale_scaled,
)


@dataclass(frozen=True)
class Entry:
    experiment: str
    mistake: str  # what is wrong, with its size s
    apply: object  # (monkeypatch, s) -> None
    sizes: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3)
    overrides: tuple[str, ...] = ()


def _resnet_alpha(mp, s):
    train = resnet_model.train

    def wrong(W_E, W_U, U, V, X, Y, alpha=1.0, *args, **kwargs):
        return train(W_E, W_U, U, V, X, Y, alpha * (1 + s), *args, **kwargs)

    mp.setattr(resnet_model, "train", wrong)


ENTRIES = {
    "quad_curves_eta": Entry(
        "quad_curves", "SGD at (1 + s)·η, its τ axis assuming η", lambda mp, s: sgd_with(mp, eta_factor=1 + s)
    ),
    "quad_escape_eta": Entry(
        "quad_escape", "SGD at (1 + s)·η, its τ axis assuming η", lambda mp, s: sgd_with(mp, eta_factor=1 + s)
    ),
    "transformer_kernel": Entry(
        "transformer_convergence", "tangent kernel × (1 + s)", lambda mp, s: kernel_scaled(mp, 1 + s)
    ),
    "transformer_adjoint_interaction": Entry(
        "transformer_adjoint",
        "adjoint's interaction term × (1 − s)",
        lambda mp, s: adjoint_interaction_scaled(mp, 1 - s),
    ),
    "transformer_residual_scale": Entry(
        "transformer_adjoint",
        "residual scale (1 + s)/(L·H): an Euler step of the wrong length",
        lambda mp, s: residual_scale_scaled(mp, 1 + s),
        (0.01, 0.02, 0.05, 0.1),
    ),
    "transformer_limit_lr_L": Entry(
        "transformer_limit",
        "GD learning rate η·L^(1−s)·H (the depth factor partly forgotten): the network and the reference run "
        "to flow times (L_ref/L)^s apart",
        lambda mp, s: learning_rate_L_power(mp, s),
        (0.1, 0.25, 0.5),
    ),
    # the well-posedness rows of transformer_adjoint with the adjoint's own series shrunk (they depend only
    # on draw 0's clouds: tests/transformer/test_claims_can_fail.py FAST)
    "transformer_wp_head_power": Entry(
        "transformer_adjoint",
        "residual scale 1/(L·H^(1−s)) (the head mean partly a sum): the velocity H^s too large",
        lambda mp, s: residual_scale_H_power(mp, s),
        (0.1, 0.25, 0.5),
        ("model.draws=1", "model.seeds=2", "grids.quick.rs=[1,4]"),
    ),
    "transformer_gf_lr_H": Entry(
        "transformer_adjoint",
        "GD learning rate η·L·H^(1−s) (the head factor partly forgotten): each H's flow H^s too slow",
        lambda mp, s: learning_rate_H_power(mp, s),
        (0.25, 0.5, 1.0),
        ("model.draws=1", "model.seeds=2", "grids.quick.rs=[1,4]"),
    ),
    "transformer_global_min_lr_H": Entry(
        "transformer_convergence",
        "GD learning rate η·L·H^(1−s) (the head factor partly forgotten): the flow H^s too slow",
        lambda mp, s: learning_rate_H_power(mp, s),
        (0.25, 0.5, 0.75, 1.0),
        ("model.case=injective",),
    ),
    # the block table on the test's sub-grid (tests/transformer/test_claims_can_fail.py)
    "transformer_block_query_key": Entry(
        "transformer_ntk",
        "the query among its own keys at weight s (s = 1: the binary mistake); dist translates, cube, n = 64",
        lambda mp, s: query_among_its_keys_weighted(mp, s),
        (0.001, 0.01, 0.1, 0.25),
        ("model.dist=translates,cube", "model.ns=[64]"),
    ),
    "transformer_gmm_separation": Entry(
        "transformer_ntk",
        "the 2-GMM separation p written as p^(1−s) in its Λ (s = 1: dropped); dist gmm2",
        lambda mp, s: gmm_separation_shrunk(mp, s),
        (0.25, 0.5, 0.9, 0.99),
        ("model.dist=gmm2",),
    ),
    "resnet_limit_alpha": Entry(
        "resnet_limit", "the networks' residual scale α × (1 + s) against the limit's", _resnet_alpha
    ),
    "resnet_depth_layers_correlated": Entry(
        "resnet_depth",
        "units of different layers correlated s: u_l = √(1−s)·u_l + √s·u_0 (s = 1: the expand bug U[l] = U[0])",
        resnet_mutations.units_correlated_across_layers,
        (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0),
    ),
    "resnet_width_preact": Entry(
        "resnet_width",
        "every block reads h_{l−1} − s·(h_{l−1} − h_0) (s = 1: every block reads h_0, no 1/L term)",
        resnet_mutations.preact_toward_input,
        (0.1, 0.2, 0.3, 0.5, 0.8, 1.0),
    ),
    "resnet_dim_unit_std": Entry(
        "resnet_dim",
        "units drawn N(0, D^(1−2s)·I) instead of N(0, D·I) (s = ½: the std-1 habit; s an exponent shift)",
        resnet_mutations.unit_std_exponent_off,
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
    "resnet_lazy_reference": Entry(
        "resnet_lazy",
        "the tangent-limit reference's embedding a share s foreign: √(1−s)·W_E + √s·(another draw) (s = 1: another network's limit)",
        resnet_mutations.limit_reference_embedding_off,
        (0.01, 0.02, 0.05, 0.1, 0.2, 0.3),
    ),
    "resnet_phase_scale_down": Entry(
        "resnet_phase",
        "residual scale D^(γ−s)/(LM) (α = D^(γ−½−s); s = ½: v's variance taken for its std; s an exponent shift)",
        lambda mp, s: resnet_mutations.residual_scale_exponent_off(mp, -s),
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
    "resnet_limit_units_share": Entry(
        "resnet_limit",
        "a share s of each layer's units copies one pool draw (units dependent, marginal law kept)",
        resnet_mutations.units_share_a_draw,
        (0.1, 0.2, 0.25, 0.3, 0.35, 0.5),
    ),
    "resnet_phase_scale_up": Entry(
        "resnet_phase",
        "residual scale D^(γ+s)/(LM) (α = D^(γ−½+s); s = ½: v's std √D forgotten; s an exponent shift)",
        lambda mp, s: resnet_mutations.residual_scale_exponent_off(mp, s),
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
}


def claims_at(entry: Entry, s: float, scale: str, seed: int, out: Path) -> list:
    folder = out / entry.experiment / f"{scale}-seed{seed}-s{s:g}"
    with pytest.MonkeyPatch.context() as mp:
        if s:
            entry.apply(mp, s)
        argv = ["run", f"experiment={entry.experiment}", f"scale={scale}", f"seed={seed}", f"out={folder}"]
        if cli.main(argv + list(entry.overrides)) != 0:
            raise SystemExit(f"{entry.experiment} at s = {s:g}: mfx run failed")
        table = results.collect([folder / entry.experiment])[0]
        return registry.get(entry.experiment).claims(table)


def smallest_failing(verdicts: dict[float, str]) -> float:
    """The smallest size whose verdict is fail and from which on every larger size fails too."""
    failing = [s for s in sorted(verdicts) if s and all(verdicts[t] == "fail" for t in verdicts if t >= s)]
    return failing[0] if failing else math.nan


def merged(new: pd.DataFrame, path: Path, command: str) -> pd.DataFrame:
    """The power table after this run: the rows of `new`, which replace those of the same entry and
    scale in the table at `path` (so entries run one at a time, by different people, add up), each row
    carrying the command, commit and date that measured it."""
    commit, dirty = results.git_state()
    new = new.assign(
        command=command, commit=commit[:12] + ("-dirty" if dirty else ""), date=time.strftime("%Y-%m-%d")
    )
    if not path.is_file():
        return new
    old = pd.read_csv(path, dtype={"commit": str})
    if "scale" not in old:  # a table written before rows carried their scale: quick, seed 0
        old = old.assign(scale="quick", seed=0, command="python scripts/power.py", commit="", date="")
    keep = ~old.set_index(["entry", "scale"]).index.isin(new.set_index(["entry", "scale"]).index)
    return pd.concat([old[keep], new], ignore_index=True)


def markdown(table: pd.DataFrame) -> str:
    """docs/power.md: one section per scale, a row per (entry, claim): its verdict at each size tried and
    the smallest failing size."""
    lines = [
        "# Power: the smallest size of a realistic mistake that fails each claim",
        "",
        (
            "*Generated by `python scripts/power.py ENTRY … [--scale S]` (`make power`) — do not edit; each "
            "entry's rows are its latest run, with the command, commit and date in docs/power.csv.*"
        ),
        "",
        's = 0 is the code as it is; "fails from" is the smallest s from which every larger s tried fails (— none).',
    ]
    for scale, t in table.groupby("scale", sort=False):
        sizes = sorted(t["s"].unique())
        head = ["experiment", "claim", "kind", "mistake", *(f"s = {s:g}" for s in sizes), "fails from"]
        lines += ["", f"## scale {scale}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for (_, claim), g in t.groupby(["entry", "claim"], sort=False):
            verdicts = dict(zip(g["s"], g["verdict"]))
            first = smallest_failing(verdicts)
            cells = [g["experiment"].iloc[0], claim, g["kind"].iloc[0], g["mistake"].iloc[0]]
            cells += [verdicts.get(s, "") for s in sizes] + ["—" if math.isnan(first) else f"{first:g}"]
            lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("entries", nargs="*", help=f"some of {', '.join(ENTRIES)} (default: all)")
    p.add_argument("--scale", default="quick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="outputs/power")
    p.add_argument("--docs", default="docs", help="where power.md and power.csv go")
    p.add_argument("--sizes", help="comma-separated sizes instead of each entry's own")
    a = p.parse_args(argv)
    names = a.entries or list(ENTRIES)
    if unknown := [n for n in names if n not in ENTRIES]:
        p.error(f"no entry {', '.join(unknown)} (entries: {', '.join(ENTRIES)})")
    rows, baseline = [], {}
    for name in names:
        entry = ENTRIES[name]
        sizes = [float(x) for x in a.sizes.split(",")] if a.sizes else entry.sizes
        for s in (0.0, *sizes):
            start = time.perf_counter()
            if s == 0 and entry.experiment not in baseline:  # the code as it is: once per experiment
                baseline[entry.experiment] = claims_at(entry, 0.0, a.scale, a.seed, Path(a.out))
            # a mistake's runs go in a folder per entry: two entries of one experiment at one size have
            # the same config, so in one folder the second would skip its jobs and reuse the first's
            claims = (
                baseline[entry.experiment]
                if s == 0
                else claims_at(entry, s, a.scale, a.seed, Path(a.out) / name)
            )
            print(f"{name} s={s:g}: {time.perf_counter() - start:.0f} s", flush=True)
            rows += [
                {
                    "entry": name,
                    "scale": a.scale,
                    "seed": a.seed,
                    "experiment": c.experiment,
                    "claim": c.statement,
                    "kind": c.kind,
                    "statement_id": c.statement_id,
                    "mistake": entry.mistake,
                    "s": s,
                    "verdict": c.verdict,
                    "measured": c.measured,
                    "u": c.u,
                }
                for c in claims
            ]
    out = Path(a.docs)
    table = merged(pd.DataFrame(rows), out / "power.csv", f"python scripts/power.py {' '.join(argv)}".strip())
    results.write_csv(table, out / "power.csv")
    results.write_bytes(out / "power.md", markdown(table).encode())
    print(f"wrote {out / 'power.md'} and {out / 'power.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
