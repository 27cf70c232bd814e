"""What the ResNet figures share: data and unit draws, the cached reference, error rows, validation.

Every job is one grid point with all reps batched.  Errors are measured against a large reference
network (L_ref × M_ref, science §3) that shares W_E, W_U and the data of each rep; it is computed
once per (seeds, config) through `mfx.cache.cached` and shared by all jobs of a sweep.

Per-rep error metrics at every step k = 0..K (aggregated over reps as an RMS by the claims/plots,
as in the author's code, see `mfx.resnet.analysis`):
    err_f   RMS over (n, output coordinate) of f − f_ref
    err_h   per-coordinate RMS over (n, embedding coordinate) of h_L − h_L,ref (science §4.1)

`run_errors` and `validate_errors` are the run and validation of both resnet_depth and resnet_width
(and the validation of resnet_dim).
"""

from __future__ import annotations

import torch

from mfx import cache, runtime
from mfx.experiment import ConfigError, check
from mfx.resnet import draws, model

REF_VERSION = 1  # bump when the numerics of the reference change (invalidates cached references)


# ------------------------------------------------------------------------------------ helpers


def _seeds(m) -> list[int]:
    return list(range(m.reps))


def _inputs(cfg, rt, D):
    m = cfg.model
    return draws.data(_seeds(m), m.N, m.d_in, m.d_out, D, m.D_max, dtype=rt.dtype, device=rt.device)


def _train(cfg, rt, L, M, D, alpha, tag="grid"):
    m = cfg.model
    X, Y, W_E, W_U = _inputs(cfg, rt, D)
    U, V = draws.units(_seeds(m), L, M, D, tag, m.init == "paired", dtype=rt.dtype, device=rt.device)
    return model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)


def reference(cfg, rt, D, alpha):
    """Outputs and h_L of the L_ref × M_ref reference at every step: {"f", "h_L"} on rt.device.

    Cached by everything that defines it; computed one rep at a time (reps are independent and
    the reference's U, V are the largest tensors of a sweep).
    """
    m = cfg.model
    seeds = _seeds(m)
    key = {
        "L": m.L_ref,
        "M": m.M_ref,
        "D": D,
        "D_max": m.D_max,
        "N": m.N,
        "d_in": m.d_in,
        "d_out": m.d_out,
        "alpha": float(alpha),
        "eta": float(m.eta),
        "K": m.K,
        "sigma": m.sigma,
        "init": m.init,
        "seeds": seeds,
        "dtype": str(rt.dtype),
        "version": REF_VERSION,
    }

    def compute():
        parts = []
        for s in seeds:
            X, Y, W_E, W_U = draws.data(
                [s], m.N, m.d_in, m.d_out, D, m.D_max, dtype=rt.dtype, device=rt.device
            )
            U, V = draws.units(
                [s], m.L_ref, m.M_ref, D, "ref", m.init == "paired", dtype=rt.dtype, device=rt.device
            )
            out = model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)
            parts.append({k: out[k].cpu() for k in ("f", "h_L")})
        return {k: torch.cat([p[k] for p in parts]) for k in ("f", "h_L")}

    ref = cache.cached("resnet_ref", key, compute, root=cfg.cache_dir)
    return {k: v.to(device=rt.device, dtype=rt.dtype) for k, v in ref.items()}


def _error_rows(out, ref, coords):
    err = {
        "err_f": ((out["f"] - ref["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),  # [S, K+1]
        "err_h": ((out["h_L"] - ref["h_L"]) ** 2).mean(dim=(-2, -1)).sqrt(),
    }
    rows = []
    for metric, e in err.items():
        for s, per_step in enumerate(e.cpu().tolist()):
            rows += [
                {**coords, "seed": s, "step": k, "metric": metric, "value": v} for k, v in enumerate(per_step)
            ]
    return rows


def _scale(table) -> str:
    scales = table["scale"].unique()
    return str(scales[0]) if len(scales) == 1 else "paper"


def _validate_model(cfg, reference_needed=True):
    for key in ("L", "M", "D", "K", "N", "d_in", "d_out", "reps", "D_max"):
        check(cfg, f"model.{key}", int, low=1)
    check(cfg, "model.alpha", float, low=0, open_low=True)
    check(cfg, "model.eta", float, low=0, open_low=True)
    check(cfg, "model.sigma", str, choices=tuple(model.SIGMAS))
    check(cfg, "model.init", str, choices=("iid", "paired"))
    m = cfg.model
    if m.init == "paired" and m.M % 2:
        raise ConfigError(f"model.M must be even with model.init=paired (got {m.M})")
    if m.D > m.D_max:
        raise ConfigError(f"model.D_max must be ≥ model.D = {m.D} (got {m.D_max})")
    if reference_needed:
        check(cfg, "model.L_ref", int, low=m.L)
        check(cfg, "model.M_ref", int, low=m.M)


# --------------------------------------------------------------------- depth / width (fixed D)


def run_errors(cfg):
    """One (L, M) at fixed D: err_f, err_h vs the shared reference at every step."""
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    ref = reference(cfg, rt, m.D, m.alpha)
    out = _train(cfg, rt, m.L, m.M, m.D, m.alpha)
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha, "L_ref": m.L_ref, "M_ref": m.M_ref}
    return _error_rows(out, ref, coords)


# ------------------------------------------------------------------------------- validation


def validate_errors(cfg):
    _validate_model(cfg)
