"""resnet_lazy (lazy ODE regime): alpha sweep of the feature movement and the distance to the
tangent model."""

from __future__ import annotations

from mfx import runtime
from mfx.experiment import Claim, Experiment, register
from mfx.resnet import draws, model
from mfx.resnet.analysis import lazy_fits
from mfx.resnet.experiments.common import _inputs, _scale, _seeds, _validate_model


def run_lazy(cfg):
    """One alpha: the network and its linearisations trained from the same init (no reference).

    The α sweep uses paired units (model.init = paired: unit j + M/2 = (u_j, −v_j)), so that the
    network is exactly h_L = h_0 at init.  With i.i.d. units the random initial residual of size
    alpha·√(D/(LM)) (the α/√(LM) term of the lazy rate, science §1.1) dominates long before
    alpha = 64: at L = M = 32, D = 16 the run leaves the lazy regime from alpha ≈ 16 and diverges
    at 64, whereas alpha ≪ √(LM) would need L·M ≫ 64² units per rep.

    Metrics per rep:
      local_update   RMS over (l, j, n) of <u_K − u_0, h_{l-1}>/D at step K: the feature movement
                     caused by the units' own updates.  (The total pre-activation change also holds
                     the O(1) change of h that any O(1) output change needs, in every regime.)
      rel_dU         ‖U_K − U_0‖ / ‖U_0‖ at step K
      lin_dist       RMS of f − f_lin at every step, f_lin: the blockwise-linearised network (each
                     block linear in its own parameters, h propagated exactly; the neural tangent
                     ODE of the lazy regime) trained by GD at the same rate — the claim's distance
      tangent_dist   the same for the fully linearised network f(θ0) + J(θ0)(θ − θ0).  Finding: in a
                     deep ResNet this one does not vanish as alpha → ∞ (it levels off at ≈ 0.08 at
                     L = M = 16): the O(1) change of h needed to move the output is propagated
                     nonlinearly through depth, so the lazy limit is linear in the parameters only
                     block by block.
      dist_f, loss   RMS of f − f_0 and the loss at every step
    """
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    X, Y, W_E, W_U = _inputs(cfg, rt, m.D)
    U, V = draws.units(_seeds(m), m.L, m.M, m.D, "grid", m.init == "paired", dtype=rt.dtype, device=rt.device)
    out = model.train(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    block = model.train_blockwise_linear(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    lin = model.train_tangent(W_E, W_U, U, V, X, Y, m.alpha, m.eta, m.K, m.sigma)
    local = model.local_updates(W_E, W_U, U, out["U"], out["V"], X, m.alpha, m.sigma)
    per_step = {
        "lin_dist": ((out["f"] - block["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "tangent_dist": ((out["f"] - lin["f"]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "dist_f": ((out["f"] - out["f"][:, :1]) ** 2).mean(dim=(-2, -1)).sqrt(),
        "loss": out["loss"],
    }
    final = {
        "local_update": local.pow(2).flatten(1).mean(1).sqrt(),
        "rel_dU": (out["U"] - U).flatten(1).norm(dim=1) / U.flatten(1).norm(dim=1),
    }
    coords = {"L": m.L, "M": m.M, "D": m.D, "alpha": m.alpha}
    rows = []
    for metric, e in per_step.items():
        for s, values in enumerate(e.cpu().tolist()):
            rows += [
                {**coords, "seed": s, "step": k, "metric": metric, "value": v} for k, v in enumerate(values)
            ]
    for metric, e in final.items():
        rows += [
            {**coords, "seed": s, "step": m.K, "metric": metric, "value": v} for s, v in enumerate(e.tolist())
        ]
    return rows


LAZY_TOL = {"quick": 0.2, "paper": 0.2}


def claims_lazy(table):
    """Feature movement ∝ 1/alpha (lazy regime: parameters move O(1/alpha) while the output moves
    O(1)); the network stays within O(1/alpha) of its tangent model, so that distance decays."""
    scale = _scale(table)
    fits, _ = lazy_fits(table)
    loc, tan = fits["local_update"], fits["lin_dist"]
    return [
        Claim.within(
            "resnet_lazy",
            "slope of the local feature movement vs alpha",
            loc["slope"],
            -1.0,
            LAZY_TOL[scale],
            f"{scale}: {loc.describe('slope')}",
        ),
        Claim.at_most(
            "resnet_lazy",
            "slope of the distance to the (blockwise) tangent model vs alpha (decays)",
            tan["slope"],
            0.0,
            f"{scale}: {tan.describe('slope')}; full linearisation: {fits['tangent_dist'].describe('slope')}",
        ),
    ]


def validate_lazy(cfg):
    _validate_model(cfg, reference_needed=False)


register(
    Experiment(
        name="resnet_lazy",
        family="resnet",
        description="alpha sweep: feature movement and distance to the tangent model",
        figure="lazy ODE regime",
        run=run_lazy,
        claims=claims_lazy,
        validate=validate_lazy,
    )
)
