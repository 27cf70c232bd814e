"""`transformer_adjoint` (issue 24 §3): the finite L×H network's per-head gradient against the
conditional-Wasserstein gradient of the limit, computed by the forward flow of the token distributions
and the backward adjoint ODE in depth (`mfx.transformer.adjoint`, an implementation independent of the
network code).

Depth series: σ_V = 0 and H = P (the heads are the parameter measure itself), L = Ls: the error is the
Euler error of the forward and backward passes, O(1/L); Richardson's 2 g_{2L} − g_L removes that term,
and what is left of it is O(1/L²) if g_L → G: its error at the largest L over a quarter of that at
half the depth is 1, and 4 for an offset G' ≠ G (a term of the adjoint wrong) — so the test resolves a
mistake of the size of the extrapolation's own error, where a fixed bound would hide everything below
it.  The depth series runs on `draws` independent problem draws (curves, clouds, targets: its constant
varies 4× between them), and the claim's u is the spread over draws.  Width series: σ_V > 0 at L = L_w,
H = r·P: the L·H value draws add a Monte Carlo error, read against the same heads' gradient g_w in the
width-limit network at depth L_w (`model.width_limit_forward`: the value noise averages out of the tokens' paths),
RMS over seeds of |g − g_w|/|G| ∝ (L_w H)^(−1/2).  It was 𝔼 err² − err_depth(L_w)², whose H-independent
O(σ_V²·err_depth²) term of either sign (each head's depth error moves with its V, and |G| is read at the noisy
heads) flattened the exponent and turned the excess negative at large H (fresh 8970, 8971; ranges.py).
err_depth = (Σ_{l,h} |L·H ∂R/∂θ_{l,h} − G(s_l, θ_{l,h})|² / Σ |G|²)^{1/2} over all Q, K, V entries.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from omegaconf import DictConfig, OmegaConf

from mfx import fit, runtime, statements
from mfx.experiment import Claim, ConfigError, Experiment, check, register
from mfx.transformer import adjoint, model
from mfx.transformer.analysis import (
    adjoint_depth_exponents,
    adjoint_depth_fit,
    adjoint_first_draw,
    adjoint_remainder,
    adjoint_width_rms,
    adjoint_width_slope,
)
from mfx.transformer.experiments import wellposed
from mfx.transformer.ranges import RANGES

E = "transformer_adjoint"
PAPER_GRADIENT = (
    "Barboni et al. (summary, Methodik/Hauptbeiträge): 'explizite Formel für den bedingten "
    "Wasserstein-Gradienten des Trainingsrisikos … adjungierte Variablen, die rückwärtsgerichtete ODEs "
    "erfüllen'; that the finite network's per-head gradient tends to it is the mean-field consistency "
    "of that formula (no rate in the summary); the O(1/L²) remainder test is mfx's (ranges.py)"
)


def run(cfg: DictConfig) -> list[dict]:
    rt = runtime.setup(**cfg.runtime)
    m = cfg.model
    d, N = m.d, m.N
    q0 = torch.zeros(d, dtype=rt.dtype)
    q0[: min(d, len(m.q0))] = torch.tensor(list(m.q0)[:d], dtype=rt.dtype)

    def problem(k):
        """Draw k of the problem (curves, clouds, targets) and its limit's solution; draw 0 is the stream
        the width series uses, draws 1… repeat the depth series (its constant varies between draws)."""
        g = runtime.generator(cfg.seed, "transformer", "adjoint", *(("draw", k) if k else ()))
        c = adjoint.curves(m.P, d, g, dtype=rt.dtype)
        X = m.x_scale * torch.randn(N, m.n, d, generator=g, dtype=rt.dtype)
        y = q0 + m.target_scale * torch.randn(N, d, generator=g, dtype=rt.dtype)
        Z0 = torch.cat([q0.expand(N, 1, d), X], dim=1)
        return c, X, y, adjoint.solve(c, Z0, y, m.beta, m.M)

    first = problem(0)
    c, X, y, sol = first
    rows = [{"metric": "risk_limit", "value": float(sol["risk"])}]

    def head_gradients(L, H, sigma_v, seeds, width_limit=False):
        """(g, G, g_w): L·H·∂R/∂θ [S, L, H, 3, d, d] of the finite network, the limit's G(s_l, θ_{l,h}), and with
        `width_limit` the same heads' L·H·∂R/∂θ in the width-limit network at depth L (`model.width_limit_forward`;
        else None)."""
        gen = lambda s: runtime.generator(cfg.seed, "transformer", "adjoint-v", L, H, s)
        Q, K, V = adjoint.finite_heads(c, L, H, sigma_v, seeds, gen)

        def grad(forward):
            params = [p.clone().requires_grad_(True) for p in (Q, K, V)]
            R = model.loss(forward(*params), y).sum()  # seeds are independent
            return L * H * torch.stack(torch.autograd.grad(R, params), dim=3)

        g = grad(lambda *p: model.forward(*p, X, q0, beta=m.beta))
        g_w = None
        if width_limit:
            noise = V - adjoint.finite_heads(c, L, H, 0.0, seeds, gen)[2]
            g_w = grad(lambda *p: model.width_limit_forward(*p, noise, X, q0, m.beta))
        S = len(seeds)
        # the first variation is a sum over heads: the seeds' heads of one layer go in one batch
        G = torch.stack(
            [
                torch.stack(
                    list(
                        adjoint.gradient(
                            c, sol, l * m.M // L, *(p[:, l].reshape(S * H, d, d) for p in (Q, K, V)), m.beta
                        ).values()
                    ),
                    dim=1,
                ).reshape(S, H, 3, d, d)
                for l in range(L)
            ],
            dim=1,
        )
        return g, G, g_w

    def rel_sq(g, G):
        """Relative squared RMS error per seed over all heads and entries."""
        return ((g - G) ** 2).sum((1, 2, 3, 4, 5)) / (G**2).sum((1, 2, 3, 4, 5))

    # depth series (heads = the measure): errors, and Richardson's 2 g_{2L} − g_L at the layers of L (same
    # s = l/L = 2l/2L, same heads), which removes the O(1/L) Euler term: what is left is the distance
    # of the finite gradients' L → ∞ limit to G, plus O(1/L²)
    for k in range(m.draws):
        if k:
            c, X, y, sol = problem(k)
        depth = {L: head_gradients(L, m.P, 0.0, [0]) for L in m.Ls}
        for L, (g, G, _) in depth.items():
            rows.append(
                {"metric": "err_depth", "L": L, "H": m.P, "draw": k, "value": float(rel_sq(g, G)[0].sqrt())}
            )
            if 2 * L in depth:
                extrapolated = 2 * depth[2 * L][0][:, ::2] - g
                rows.append(
                    {
                        "metric": "err_richardson",
                        "L": L,
                        "H": m.P,
                        "draw": k,
                        "value": float(rel_sq(extrapolated, G)[0].sqrt()),
                    }
                )
    c, X, y, sol = first
    # width series: the Monte Carlo error of the per-head gradient, against the same heads' gradient in the
    # width-limit network at depth L_w (module docstring), relative to the limit's |G| at those heads
    seeds = list(range(m.seeds))
    for r in m.rs:
        H = r * m.P
        g, G, g_w = head_gradients(m.L_w, H, m.sigma_v, seeds, width_limit=True)
        e2 = ((g - g_w) ** 2).sum((1, 2, 3, 4, 5)) / (G**2).sum((1, 2, 3, 4, 5))
        for s, v in zip(seeds, e2):
            rows.append({"metric": "err_mc", "L": m.L_w, "H": H, "seed": s, "value": float(v.sqrt())})
    return rows + wellposed.rows(cfg, rt, X, q0)


def validate(cfg: DictConfig) -> None:
    for key in ("d", "N", "n", "P", "M", "L_w", "seeds", "draws"):
        check(cfg, f"model.{key}", int, low=1)
    for key in ("beta", "x_scale", "sigma_v"):
        check(cfg, f"model.{key}", float, low=0, open_low=True)
    check(cfg, "model.target_scale", float, low=0)
    m = cfg.model
    for key in ("Ls", "rs"):
        v = OmegaConf.select(cfg, f"model.{key}")
        if not OmegaConf.is_list(v) or len(v) < 2 or not all(isinstance(x, int) and x >= 1 for x in v):
            raise ConfigError(f"model.{key} must be a list of ≥ 2 integers ≥ 1 (got {v!r})")
    bad = [L for L in (*m.Ls, m.L_w) if m.M % L]
    if bad:
        raise ConfigError(
            f"model.M = {m.M} must be a multiple of every depth (model.Ls, model.L_w): not of {bad}"
        )
    for key in ("wp.M", "wp.seeds", "wp.directions", "gf.L", "gf.H", "gf.M", "gf.seeds", "gf.pairs"):
        check(cfg, f"model.{key}", int, low=1)
    check(cfg, "model.gf.window_points", int, low=3)  # the claim's least points
    check(cfg, "model.gf.halvings", int, low=0)
    for key in ("wp.delta", "gf.T", "gf.eta"):
        check(cfg, f"model.{key}", float, low=0, open_low=True)
    for key in ("wp.v_mean", "gf.target_scale"):
        check(cfg, f"model.{key}", float, low=0)
    for key in ("wp.Hs", "wp.Ls", "gf.etas", "gf.Hs"):
        v = OmegaConf.select(cfg, f"model.{key}")
        if not OmegaConf.is_list(v) or len(v) < 2 or not all(x > 0 for x in v):
            raise ConfigError(f"model.{key} must be a list of ≥ 2 numbers > 0 (got {v!r})")
    if m.L_w not in m.Ls:
        raise ConfigError(f"model.L_w = {m.L_w} must be one of model.Ls (its depth error is subtracted)")


def claims(table: pd.DataFrame) -> list[Claim]:
    t = table[(table["experiment"] == E) & (table["status"] == "ok")]
    scale = str(table["scale"].iloc[0])
    f = adjoint_depth_fit(t)
    ks = adjoint_depth_exponents(t).dropna()
    dep = adjoint_first_draw(t[t["metric"] == "err_depth"]).sort_values("L")
    w = t[t["metric"] == "err_mc"]
    seeds = int(w["seed"].nunique()) if len(w) else 0
    ex = adjoint_width_rms(t)
    (d0, dtol), (w0, wtol) = RANGES["adjoint_depth_slope"]["value"], RANGES["adjoint_width_slope"]["value"]
    u_w = fit.seed_sd(w, adjoint_width_slope, n_boot=200) if seeds > 1 else float("nan")
    rich = adjoint_first_draw(t[t["metric"] == "err_richardson"]).sort_values("L")
    every = t[t["metric"] == "err_richardson"]
    L_max = int(every["L"].max()) if len(every) else 0
    top = every[every["L"] == L_max]["value"]
    rem = adjoint_remainder(t)
    r = RANGES["adjoint_remainder"]
    return [
        Claim.within(
            E,
            "the finite network's per-head gradient tends to the limit's adjoint-ODE gradient: what is left "
            "after removing the O(1/L) Euler term is O(1/L²) — Richardson error e_R(L) of 2g_2L − g_L at the "
            "largest L over e_R(L/2)/4, mean over problem draws (an offset G' ≠ G reads 4)",
            float(rem.mean()) if len(rem) else float("nan"),
            r["value"],
            r["tol"],
            detail=f"{len(rem)} problem draws: ratios {np.round(rem.to_numpy(), 3).tolist()}; e_R at L = {L_max}: "
            f"{top.min():.2g}…{top.max():.2g} (relative RMS); draw 0 extrapolated "
            + ", ".join(f"L={int(r.L)}: {r.value:.3g}" for r in rich.itertuples())
            + "; raw errors "
            + ", ".join(f"L={int(r.L)}: {r.value:.3g}" for r in dep.itertuples()),
            u=float(rem.std(ddof=1) / np.sqrt(len(rem))) if len(rem) >= 2 else float("nan"),
            how="SD over problem draws / √draws",
            points=len(rem),
            seeds=len(rem),
            min_points=2,
            kind="paper",
            source=PAPER_GRADIENT,
            **statements.power(r, scale),
        ),
        Claim.within(
            E,
            "depth rate of the per-head gradient error (H = P, σ_V = 0): exponent k of L in "
            "err = a·L^k·(1 + c/L), mean over problem draws",
            float(ks.mean()) if len(ks) else float("nan"),
            d0,
            dtol,
            detail=f"{len(ks)} problem draws: k = {np.round(ks.to_numpy(), 3).tolist()}; a plain power law on "
            f"draw 0: {f.describe('slope')}",
            u=float(ks.std(ddof=1) / np.sqrt(len(ks))) if len(ks) >= 2 else float("nan"),
            how="SD over problem draws / √draws",
            points=len(ks),
            seeds=len(ks),
            min_points=2,
            kind="derived",
            statement_id="barboni.adjoint_gradient",
            source="derivation: mfx/transformer/adjoint.py docstring (Euler in depth, a first-order scheme, "
            "for the forward and backward passes: err = a/L + b/L² + …); range in mfx/transformer/ranges.py",
            post_hoc=RANGES["adjoint_depth_slope"]["post_hoc"],
        ),
        Claim.within(
            E,
            "width rate of the per-head gradient error (σ_V > 0, fixed L): exponent of H of the RMS over seeds "
            "of |g_H − g_w|/|G|, g_w the same heads' gradient in the width-limit network at depth L",
            adjoint_width_slope(t) if len(ex) >= 2 else float("nan"),
            w0,
            wtol,
            detail="RMS |g_H − g_w|/|G| by H: " + ", ".join(f"{int(h)}: {v:.3g}" for h, v in ex.items()),
            u=u_w,
            how="seed bootstrap SD",
            points=len(ex),
            seeds=seeds,
            min_points=3,
            kind="derived",
            statement_id="barboni.adjoint_gradient",
            post_hoc=RANGES["adjoint_width_slope"]["post_hoc"],
            source="derivation: mfx/transformer/adjoint.py docstring (L·H independent value draws: a "
            "mean-zero Monte Carlo error of variance ∝ 1/(LH)), read against the width-limit network "
            "(model.width_limit_forward); range in mfx/transformer/ranges.py",
        ),
    ] + wellposed.claims(t, scale)


register(
    Experiment(
        name=E,
        family="transformer",
        description="adjoint gradient of the limit (forward flow + backward adjoint ODE) vs the L×H "
        "network's per-head gradient",
        figure="per-head gradient error vs L (depth) and vs H (width), with fitted rates",
        run=run,
        claims=claims,
        validate=validate,
    )
)
