"""resnet_phase (phase diagram): local updates vs D for the residual scale D^gamma/(LM)."""

from __future__ import annotations

from mfx import fit, runtime
from mfx.experiment import Claim, Experiment, check, register
from mfx.resnet import draws, model
from mfx.resnet.analysis import phase_exponents
from mfx.resnet.experiments.common import _inputs, _scale, _seeds, _validate_model


def run_phase(cfg):
    """One (D, gamma): residual scale D^gamma/(L M), i.e. alpha = D^(gamma − 1/2) (v std D^gamma).

    Metric per rep: local_update = median over (l, j, n) of |<u_K − u_0, h_{l-1}>/D| after K steps.
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    alpha = float(m.D) ** (m.gamma - 0.5)
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(_seeds(m), m.L, m.M, m.D, dtype=rt.dtype, device=rt.device)
    out = model.train(W_E, W_U, U, V, X, Y, alpha, m.eta, m.K, m.sigma)
    local = model.local_updates(W_E, W_U, U, out["U"], out["V"], X, alpha, m.sigma)
    med = local.abs().flatten(1).median(dim=1).values
    coords = {"L": m.L, "M": m.M, "D": m.D, "d_out": m.d_out, "gamma": m.gamma, "alpha": alpha, "step": m.K}
    return [
        {**coords, "seed": s, "metric": "local_update", "value": v} for s, v in enumerate(med.cpu().tolist())
    ]


PHASE_TOL = {"quick": 0.1, "paper": 0.1}


def claims_phase(table):
    """γ* where the exponent of the local feature update in D crosses zero: MLU at D^(1/2)/(LM)."""
    scale = _scale(table)
    exps, _ = phase_exponents(table)
    gamma_star = fit.zero_crossing(exps["gamma"], exps["exponent"])
    detail = f"{scale}: exponents " + ", ".join(
        f"γ={g:g}: {e:+.3f}" for g, e in zip(exps["gamma"], exps["exponent"])
    )
    return [
        Claim.within(
            "resnet_phase",
            "critical gamma* (exponent of the local update in D crosses 0)",
            gamma_star,
            0.5,
            PHASE_TOL[scale],
            detail,
        )
    ]


def validate_phase(cfg):
    _validate_model(cfg, reference_needed=False)
    check(cfg, "model.gamma", float, low=-1.0, high=2.0)


register(
    Experiment(
        name="resnet_phase",
        family="resnet",
        description="phase diagram of the residual scale D^gamma/(LM): local updates vs D",
        figure="phase diagram",
        run=run_phase,
        claims=claims_phase,
        validate=validate_phase,
    )
)
