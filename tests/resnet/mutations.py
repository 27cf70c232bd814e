"""Sized versions of the ResNet family's realistic mistakes (issue 36 §2), one place for the can-fail
tests (`test_claims_can_fail.py`) and the power table (`scripts/power.py`).

Each `name(mp, s)` patches the numerics with a `pytest.MonkeyPatch`; s = 0 is the code as it is and
the largest s is the binary mistake the can-fail tests name (the expand bug, blocks reading h_0, a
reference with another embedding, an exponent of D slipped).  A binary mistake gets its size by
interpolating between right and wrong, keeping every marginal law where the mistake keeps it, so the
smallest size a claim fails says how much of the mistake it sees.
"""

from __future__ import annotations

import math

import torch

from mfx.resnet import draws, model, tangent
from mfx.resnet.experiments import limit, phase
from tests.power_entry import Entry


def units_correlated_across_layers(mp, s):
    """Every layer's units share a part of layer 0's draw: u_l = √(1−s)·u_l + √s·u_0 (and v alike),
    so each unit keeps its law N(0, D·I) while units of different layers have correlation s.  s = 1 is
    the `expand` bug (U[l] = U[0]): depth then no longer averages independent units.  Size: s, the
    correlation."""
    units = draws.units

    def wrong(seeds, L, M, D, *args, **kwargs):
        U, V = units(seeds, L, M, D, *args, **kwargs)
        mix = lambda W: math.sqrt(1 - s) * W + math.sqrt(s) * W[:, :1]
        return mix(U).contiguous(), mix(V).contiguous()

    mp.setattr(draws, "units", wrong)


def preact_toward_input(mp, s):
    """Every block reads h_{l−1} − s·(h_{l−1} − h_0) instead of h_{l−1} (P_l = <u, that>/D): a share s of
    the state replaced by the embedding, e.g. a residual branch wired to a stale copy.  s = 1 is
    `preact_from_input` (a plain average of L·M units: no ODE, no 1/L term).  Size: s."""

    def wrong(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
        _, L, M, D = U.shape
        act = model.SIGMAS[sigma][0]
        U, V = U.clone().requires_grad_(), V.clone().requires_grad_()
        lr = model.learning_rate(L, M, D, alpha, eta)
        fs, hs = [], []
        for k in range(K + 1):
            h0 = torch.bmm(X, W_E.transpose(1, 2))
            h = h0
            for U_l, V_l in zip(U.unbind(1), V.unbind(1)):
                P = torch.bmm(h - s * (h - h0), U_l.transpose(1, 2)) / D
                h = h + alpha / (L * M) * torch.bmm(act(P), V_l)
            f = torch.bmm(h, W_U) / D
            fs.append(f.detach())
            hs.append(h.detach())
            if k < K:
                gU, gV = torch.autograd.grad(model.loss(f, Y).sum(), (U, V))
                with torch.no_grad():
                    U -= lr * gU
                    V -= lr * gV
        f = torch.stack(fs, 1)
        return {
            "f": f,
            "h_L": torch.stack(hs, 1),
            "loss": model.loss(f, Y[:, None]),
            "U": U.detach(),
            "V": V.detach(),
        }

    mp.setattr(model, "train", wrong)


def limit_reference_embedding_off(mp, s):
    """The tangent-limit reference drawn with an embedding partly not the rep's:
    W_E' = √(1−s)·W_E + √s·W_E rolled (another draw of the same law); s = 1 is `uncoupled_limit_reference`
    (the limit of another network).  Size: s, the share of the embedding's variance that is foreign."""
    limit = tangent.limit

    def wrong(W_E, W_U, U, V, X, Y, *args, **kwargs):
        W = math.sqrt(1 - s) * W_E + math.sqrt(s) * W_E.roll(1, dims=1)
        return limit(W, W_U, U, V, X, Y, *args, **kwargs)

    mp.setattr(tangent, "limit", wrong)


def residual_scale_exponent_off(mp, delta):
    """Residual scale D^(γ+δ)/(LM) instead of D^γ/(LM) (α = D^(γ−½+δ)): an exponent slip in the residual
    multiplier.  δ = −½ is `alpha_over_D` (v's variance for its std), δ = +½ `alpha_forgets_v_std`.
    Size: δ (an exponent shift; signed: the lazy claim is attacked by δ < 0, the others by δ > 0)."""
    mp.setattr(phase, "residual_alpha", lambda D, gamma: float(D) ** (gamma - 0.5 + delta))


def unit_std_exponent_off(mp, delta):
    """Units drawn N(0, D^(1−2δ)·I) instead of N(0, D·I): the std-√D convention applied with its exponent
    off by δ; δ = ½ is the std-1 habit (`unit_std_one`).  Size: δ (an exponent shift)."""
    units = draws.units

    def wrong(seeds, L, M, D, *args, **kwargs):
        U, V = units(seeds, L, M, D, *args, **kwargs)
        return U * D**-delta, V * D**-delta

    mp.setattr(draws, "units", wrong)


def units_share_a_draw(mp, c):
    """In each layer a share c of the units copies one pool draw (an index broadcast over part of the
    layer, e.g. a generator reused): each unit's marginal law is still μ, but the units are no longer
    independent, so a layer's empirical measure fluctuates like c instead of 1/√M (resnet_limit; fewer
    than 2 units, round(c·M) < 2, leave the layer as it is).  Size: c."""
    draws_of = limit.pool_draws

    def wrong(cfg, rt, U0, V0):
        _, _, idx = draws_of(cfg, rt, U0, V0)
        S, R, L, M = idx.shape
        n = round(c * M)
        if n >= 2:
            idx = idx.clone()
            idx[..., :n] = idx[..., :1]
        U = torch.stack([U0[s][idx[s]] for s in range(S)]).reshape(S * R, L, M, -1)
        V = torch.stack([V0[s][idx[s]] for s in range(S)]).reshape(S * R, L, M, -1)
        return U.contiguous(), V.contiguous(), idx

    mp.setattr(limit, "pool_draws", wrong)


def linearisation_toward_full(mp, s):
    """The lazy model's linearisation taken a share s of the way from the blockwise one (each block
    linear in its own parameters, the tangent mean ODE's form) to the full one f(θ0) + J(θ0)(θ − θ0)
    (the NTK habit); s = 1 is `full_linearisation_as_limit`.  Size: s."""
    blockwise = model.train_blockwise_linear

    def wrong(*args, **kwargs):
        block, full = blockwise(*args, **kwargs), model.train_tangent(*args, **kwargs)
        return {**block, "f": block["f"] + s * (full["f"] - block["f"])}

    mp.setattr(model, "train_blockwise_linear", wrong)


def rate_exponent_slip(mp, axis, delta):
    """The mean-field rate η·L·M·D with the exponent of `axis` (L, M or D) off by δ (an exponent slip,
    e.g. η·L·M·D·M^δ): networks of different sizes (and their reference) train at different effective
    rates, so what training moved no longer converges to the reference's displacement.  Size: δ (an
    exponent shift)."""
    rate = model.learning_rate
    mp.setattr(
        model,
        "learning_rate",
        lambda L, M, D, alpha, eta: rate(L, M, D, alpha, eta) * {"L": L, "M": M, "D": D}[axis] ** delta,
    )


def pairs_partly_redrawn(mp, s):
    """The doubling trick with the copies' output weights a share s redrawn, unit j + M/2 =
    (u_j, −√(1−s)·v_j + √s·v'_j), in the networks compared with the limit (not its paired reference):
    each pair's block no longer vanishes, nor does its second-order remainder cancel (s = 1: i.i.d.
    output weights of the copies).  Size: s, the redrawn share of the copies' variance."""
    units = draws.units

    def wrong(seeds, L, M, D, tag="grid", paired=False, **kwargs):
        U, V = units(seeds, L, M, D, tag, paired, **kwargs)
        if paired and tag != "ref":
            h = M // 2
            fresh = units(seeds, L, M, D, f"{tag}-copy", False, **kwargs)[1][:, :, :h]
            V = torch.cat([V[:, :, :h], -math.sqrt(1 - s) * V[:, :, :h] + math.sqrt(s) * fresh], dim=2)
        return U, V

    mp.setattr(draws, "units", wrong)


def sized(mutation, s):
    """`mutation` at size s as a one-argument mistake(mp) for the can-fail tests, named for its id."""

    def mistake(mp):
        mutation(mp, s)

    mistake.__name__ = f"{mutation.__name__}_{s:g}"
    return mistake


def _resnet_alpha(mp, s):
    train = model.train

    def wrong(W_E, W_U, U, V, X, Y, alpha=1.0, *args, **kwargs):
        return train(W_E, W_U, U, V, X, Y, alpha * (1 + s), *args, **kwargs)

    mp.setattr(model, "train", wrong)


# The power table's entries (scripts/power.py): name → sized mistake over its sizes.
POWER = {
    "resnet_limit_alpha": Entry(
        "resnet_limit", "the networks' residual scale α × (1 + s) against the limit's", _resnet_alpha
    ),
    "resnet_depth_layers_correlated": Entry(
        "resnet_depth",
        "units of different layers correlated s: u_l = √(1−s)·u_l + √s·u_0 (s = 1: the expand bug U[l] = U[0])",
        units_correlated_across_layers,
        (0.02, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 1.0),
    ),
    "resnet_width_preact": Entry(
        "resnet_width",
        "every block reads h_{l−1} − s·(h_{l−1} − h_0) (s = 1: every block reads h_0, no 1/L term)",
        preact_toward_input,
        (0.1, 0.2, 0.3, 0.5, 0.8, 1.0),
    ),
    "resnet_dim_unit_std": Entry(
        "resnet_dim",
        "units drawn N(0, D^(1−2s)·I) instead of N(0, D·I) (s = ½: the std-1 habit; s an exponent shift)",
        unit_std_exponent_off,
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
    "resnet_ratio_unit_std": Entry(
        "resnet_ratio",
        "units drawn N(0, D^(1−2s)·I) instead of N(0, D·I) (s = ½: the std-1 habit; s an exponent shift)",
        unit_std_exponent_off,
        (0.05, 0.1, 0.2, 0.3),
    ),
    "resnet_lazy_reference": Entry(
        "resnet_lazy",
        "the tangent-limit reference's embedding a share s foreign: √(1−s)·W_E + √s·(another draw) (s = 1: another network's limit)",
        limit_reference_embedding_off,
        (0.01, 0.02, 0.05, 0.1, 0.2, 0.3),
    ),
    "resnet_lazy_pairs": Entry(
        "resnet_lazy",
        "the copies' output weights a share s redrawn: unit j + M/2 = (u_j, −√(1−s)·v_j + √s·v'_j) (s = 1: i.i.d. copies)",
        pairs_partly_redrawn,
        (0.01, 0.05, 0.2, 1.0),
    ),
    "resnet_lazy_linearisation": Entry(
        "resnet_lazy",
        "the linearisation a share s of the way from the blockwise one to the full f(θ0) + J(θ0)(θ − θ0) (s = 1: the NTK habit)",
        linearisation_toward_full,
        (0.01, 0.02, 0.05, 0.1),
    ),
    "resnet_phase_scale_down": Entry(
        "resnet_phase",
        "residual scale D^(γ−s)/(LM) (α = D^(γ−½−s); s = ½: v's variance taken for its std; s an exponent shift)",
        lambda mp, s: residual_scale_exponent_off(mp, -s),
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
    "resnet_limit_units_share": Entry(
        "resnet_limit",
        "a share s of each layer's units copies one pool draw (units dependent, marginal law kept)",
        units_share_a_draw,
        (0.1, 0.2, 0.25, 0.3, 0.35, 0.5),
    ),
    "resnet_width_rate_M": Entry(
        "resnet_width",
        "the mean-field rate η·L·M·D off by M^s (an exponent slip in M; s an exponent shift)",
        lambda mp, s: rate_exponent_slip(mp, "M", s),
        (0.01, 0.02, 0.05, 0.1, 0.2),
    ),
    "resnet_limit_rate_M": Entry(
        "resnet_limit",
        "the mean-field rate η·L·M·D off by M^s (an exponent slip in M; s an exponent shift)",
        lambda mp, s: rate_exponent_slip(mp, "M", s),
        (0.01, 0.02, 0.05, 0.1, 0.2),
    ),
    "resnet_depth_rate_L": Entry(
        "resnet_depth",
        "the mean-field rate η·L·M·D off by L^s (an exponent slip in L; s an exponent shift)",
        lambda mp, s: rate_exponent_slip(mp, "L", s),
        (0.01, 0.02, 0.05, 0.1, 0.2),
    ),
    "resnet_departure_rate_D": Entry(
        "resnet_departure",
        "the mean-field rate η·L·M·D off by D^(−s) (training slower the larger D; s an exponent shift)",
        lambda mp, s: rate_exponent_slip(mp, "D", -s),
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
    "resnet_departure_rate_M": Entry(
        "resnet_departure",
        "the mean-field rate η·L·M·D off by M^s (network and reference train at different rates; s an exponent shift)",
        lambda mp, s: rate_exponent_slip(mp, "M", s),
        (0.05, 0.1, 0.2, 0.3),
    ),
    "resnet_phase_scale_up": Entry(
        "resnet_phase",
        "residual scale D^(γ+s)/(LM) (α = D^(γ−½+s); s = ½: v's std √D forgotten; s an exponent shift)",
        lambda mp, s: residual_scale_exponent_off(mp, s),
        (0.05, 0.1, 0.2, 0.3, 0.5),
    ),
}
