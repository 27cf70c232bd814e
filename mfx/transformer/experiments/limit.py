"""E1 `transformer_limit` (science/transformer.md §4.2): distance of the L×H network's outputs ŷ(t) to
a large reference (the mean-field limit) along GD, vs L and H."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from omegaconf import DictConfig, OmegaConf

from mfx import cache, fit, runtime
from mfx.experiment import Claim, Experiment, check, register
from mfx.transformer.analysis import E1_FLOOR_FACTOR, limit_summary
from mfx.transformer.experiments.common import (
    _as_floats,
    _check_laplace_domain,
    _data,
    _geom_steps,
    _init,
    _train,
    _validate_model,
)

E1_TOL = {"quick": 0.25, "paper": 0.15}  # slope tolerance around −1/2


def _targets(m: DictConfig, rt, N: int) -> torch.Tensor:
    gen = runtime.generator(m.data_seed, "transformer", "targets")
    return torch.randn(N, m.d, generator=gen, dtype=rt.dtype).to(rt.device)


# everything that defines the reference networks (the artifact shared by the jobs of a sweep)
REF_KEYS = [
    "d",
    "n",
    "dist",
    "base",
    "params",
    "shift",
    "gmm_sigma",
    "q0",
    "readout",
    "beta",
    "s_qk",
    "s_v",
    "v_init",
    "train",
    "eta",
    "steps",
    "data_seed",
    "L_ref",
    "H_ref",
    "ref_reps",
]


def _reference(cfg: DictConfig, c, q0, y, rt) -> dict:
    """ŷ(t) and R(t) [T, ref_reps, …] of ref_reps independent L_ref × H_ref networks (cached)."""
    m = cfg.model
    container = OmegaConf.to_container(m, resolve=True)
    key = {"v": 1, "dtype": str(rt.dtype), **{k: container[k] for k in REF_KEYS}}

    def compute():
        seeds = [10_000 + r for r in range(m.ref_reps)]
        Q, K, V = _init(m, rt, seeds, L=m.L_ref, H=m.H_ref, stream=("ref",))
        out = _train(m, Q, K, V, c.X, q0, y, checkpoint=True)
        return {"yhat": out["yhat"].cpu(), "loss": out["loss"].cpu()}

    return cache.cached("transformer_limit_ref", key, compute, root=cfg.cache_dir)


def _rms_dist(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """max over t of the RMS over inputs i of |a_i(t) − b_i(t)|: [T, ..., N, d] → [...]."""
    return ((a - b) ** 2).sum(-1).mean(-1).sqrt().amax(0)


def run(cfg: DictConfig) -> list[dict]:
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    c, q0 = _data(m, rt)
    y = _targets(m, rt, c.X.shape[0])
    ref = _reference(cfg, c, q0, y, rt)
    Q, K, V = _init(m, rt, list(range(m.seeds)))
    _check_laplace_domain(c, Q, K, q0, m.beta)
    out = _train(m, Q, K, V, c.X, q0, y)
    yref_all = ref["yhat"].to(out["yhat"])  # [T, R, N, d]
    yref = yref_all.mean(1)
    err = _rms_dist(out["yhat"], yref[:, None])  # [S]
    loss_ref = ref["loss"].to(out["loss"]).mean(1)
    gap = (out["loss"] - loss_ref[:, None]).abs().amax(0)
    R = yref_all.shape[1]
    pairs = [(a, b) for a in range(R) for b in range(a + 1, R)]
    spread = float(np.mean([float(_rms_dist(yref_all[:, a], yref_all[:, b])) for a, b in pairs]))
    coords = {"L": m.L, "H": m.H, "LH": m.L * m.H, "dist": m.dist, "n": m.n, "N": c.X.shape[0], "eta": m.eta}
    rows = [dict(coords, metric="ref_spread", value=spread)]
    for s in range(m.seeds):
        rows.append(dict(coords, seed=s, metric="err", value=err[s]))
        rows.append(dict(coords, seed=s, metric="loss_gap", value=gap[s]))
    log_steps = _geom_steps(m.steps, 25)
    for k in log_steps:
        t = k * m.eta
        rows.append(dict(coords, step=k, time=t, metric="loss_ref", value=loss_ref[k]))
        for s in range(m.seeds):
            rows.append(dict(coords, seed=s, step=k, time=t, metric="loss", value=out["loss"][k, s]))
    return _as_floats(rows)


def validate(cfg: DictConfig) -> None:
    _validate_model(cfg)
    check(cfg, "model.L_ref", int, low=cfg.model.L)
    check(cfg, "model.H_ref", int, low=cfg.model.H)
    check(cfg, "model.ref_reps", int, low=2)


def claims(table: pd.DataFrame) -> list[Claim]:
    scale = str(table["scale"].iloc[0])
    err, floor = limit_summary(table)
    above = err[err["value"] > E1_FLOOR_FACTOR * floor]
    f = fit.power_law(above["LH"], above["value"])
    tol = E1_TOL[scale]
    out = [
        Claim.within(
            "transformer_limit",
            "slope of the error to the reference vs L·H (points above 2× the ref-to-ref floor)",
            f["slope"],
            -0.5,
            tol,
            detail=f"{f.describe('slope')}; floor (ref-to-ref spread) = {floor:.3g}; scale={scale}, tol ±{tol}",
        )
    ]
    e = err.set_index(["L", "H"])["value"]
    if (4, 16) in e.index and (16, 4) in e.index:
        r = float(e[(4, 16)] / e[(16, 4)])
        out.append(
            Claim.at_most(
                "transformer_limit",
                "depth and width trade: error ratio max(r, 1/r) of (L,H) = (4,16) vs (16,4)",
                max(r, 1 / r),
                2.0,
                detail=f"err(4,16) = {e[(4, 16)]:.3g}, err(16,4) = {e[(16, 4)]:.3g}, r = {r:.3g}; scale={scale}",
            )
        )
    else:
        out.append(
            Claim(
                "transformer_limit",
                "depth and width trade: (4,16) vs (16,4)",
                float("nan"),
                "≤ 2",
                False,
                "grid lacks (4,16) or (16,4)",
            )
        )
    return out


register(
    Experiment(
        name="transformer_limit",
        family="transformer",
        description="E1: error of the L×H transformer to a large reference vs L·H (mean-field limit)",
        figure="E1: error vs L·H (log-log) and loss curves over the reference's",
        run=run,
        claims=claims,
        validate=validate,
    )
)
