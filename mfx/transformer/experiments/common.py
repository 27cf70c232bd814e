"""Helpers shared by the transformer family's figures (science/transformer.md §4.2): validation of
the model config, token-cloud draws, parameter initialisation, GD with the run's knobs, logging grids."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from mfx import cache, locks, runtime
from mfx.experiment import ConfigError, check
from mfx.transformer import families, model


def _validate_model(cfg: DictConfig) -> None:
    for key in ("L", "H", "d", "n", "steps", "seeds"):
        check(cfg, f"model.{key}", int, low=1)
    check(cfg, "model.dist", str, choices=families.DISTS)
    check(cfg, "model.base", str, choices=families.FAMILIES)
    check(cfg, "model.readout", str, choices=model.READOUTS)
    check(cfg, "model.train", str, choices=model.TRAIN)
    check(cfg, "model.v_init", str, choices=model.V_INIT)
    for key in ("eta", "beta", "gmm_sigma"):
        check(cfg, f"model.{key}", float, low=0, open_low=True)
    for key in ("s_qk", "s_v", "shift"):
        check(cfg, f"model.{key}", float, low=0)
    params = cfg.model.params
    if (
        not OmegaConf.is_list(params)
        or len(params) < 1
        or not all(isinstance(p, (int, float)) and not isinstance(p, bool) and p > 0 for p in params)
    ):
        raise ConfigError(f"model.params must be a non-empty list of numbers > 0 (got {params!r})")
    if cfg.model.v_init == "zero" and cfg.model.train == "qk":
        raise ConfigError(
            "model.train=qk with model.v_init=zero never moves: every QK gradient is multiplied by V = 0"
        )


def _data(m: DictConfig, rt: runtime.Runtime, seed: int = 0):
    """Token clouds (on rt's device/dtype) and the query token q0 [d] of the model config `m`.

    `seed` is the run's top-level `cfg.seed`: it draws the clouds (shared by the batched model seeds).
    """
    d = m.d
    gen = runtime.generator(seed, "transformer", "data")
    c = families.clouds(
        m.dist, list(m.params), m.n, d, gen, base=m.base, shift=m.shift, gmm_sigma=m.gmm_sigma, dtype=rt.dtype
    )
    q0 = torch.zeros(d, dtype=rt.dtype)
    q = list(m.q0)[:d]
    q0[: len(q)] = torch.tensor(q, dtype=rt.dtype)
    if m.readout == "mean" and c.symmetric:
        warnings.warn(
            f"model.readout=mean on symmetric token clouds (model.dist={m.dist}): the mean-pooled output "
            "is 0 for every parameter up to O(n^-1/2) sampling noise; use model.readout=query",
            stacklevel=2,
        )
    c.X = c.X.to(rt.device)
    return c, q0.to(rt.device)


def _check_laplace_domain(c: families.Clouds, Q, K, q0, beta: float) -> None:
    """Warn when first-layer query tilts z = A q0 leave the Laplace MGF domain ½ zᵀΣz < 1."""
    if not c.laplace_scales:
        return
    A = beta * torch.einsum("slhka,slhkb->slhab", K[:, :1], Q[:, :1])
    z = A @ q0
    q = 0.5 * max(c.laplace_scales) * (z**2).sum(-1)
    frac = float((q >= 1).double().mean())
    if frac > 0:
        warnings.warn(
            f"laplace: {100 * frac:.0f}% of the first-layer attention logits leave the MGF domain "
            f"(½ zᵀΣz ≥ 1 at z = A q0 for model.params max {max(c.laplace_scales):g}); the population Λ is "
            "infinite there and sample tilted means are noise: lower model.beta, model.s_qk or model.params",
            stacklevel=2,
        )


def _init(m: DictConfig, rt: runtime.Runtime, seeds, *, L=None, H=None, stream=(), seed: int = 0):
    """(Q, K, V) of the batched model seeds; the run's `seed` (cfg.seed) shifts every stream."""
    return model.init_params(
        m.L if L is None else L,
        m.H if H is None else H,
        m.d,
        seeds,
        s_qk=m.s_qk,
        s_v=m.s_v,
        v_init=m.v_init,
        stream=("run", seed, *stream),
        dtype=rt.dtype,
        device=rt.device,
    )


def _geom_steps(steps: int, count: int) -> list[int]:
    """About `count` steps 0 … steps on a geometric grid (plus 0 and the last)."""
    grid = np.unique(np.round(np.geomspace(1, steps, count)).astype(int)) if steps > 0 else []
    return sorted({0, *map(int, grid), steps})


def _as_floats(rows: list[dict]) -> list[dict]:
    for r in rows:
        r["value"] = float(r["value"])
    return rows


def _train(m, Q, K, V, X, q0, y, **kwargs) -> dict:
    """`model.train` with the run's GD knobs (eta, steps, trained block, beta, readout) from `m`."""
    return model.train(
        Q, K, V, X, q0, y, eta=m.eta, steps=m.steps, train=m.train, beta=m.beta, readout=m.readout, **kwargs
    )


def _shared(name: str, key: dict, compute, root) -> dict:
    """`cache.cached`, computed by one process of the sweep: the others wait for it and load it.

    Under parallel launchers (joblib, submitit) every job of a sweep asks for the same artifact at
    once; a lock file beside the cache (`mfx.locks`, stale when its owner died) lets the first
    compute it while the others poll, so the reference is computed once per sweep, not once per job.
    """
    folder = Path(root) / "locks" / f"{name}-{cache.key_hash(key)}"
    while True:
        with locks.job_lock(folder) as mine:
            if mine:
                return cache.cached(name, key, compute, root=root)
        time.sleep(0.2)
