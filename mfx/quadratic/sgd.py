"""One-pass SGD for all seeds at once, with the analytic gradient.

Per step (one fresh x ~ N(0, I_N) per seed):
    λ = W x/√N [S, p],  ν = W* x/√N [S, p*],  err = a Σλ² − a* Σν² − √Δ ξ
    W ← W − (2 a η err/√N) λ xᵀ                      (gradient of ½ err²)
W is [S, p, N] (float32 allowed: the update is O(pN) per step and the logged overlaps are formed in
float64). Inputs are drawn in chunks of `chunk_steps(N)` steps from one generator per seed and stream
(mfx.runtime), so seed s follows the same trajectory alone or in any batch. The teacher fields of a
whole chunk are one batched matmul, since W* is fixed.

Steps are processed in blocks of BLOCK steps (see `_block`): the fields of the block's inputs follow
from their Gram matrix, so W is read and written once per block instead of once per step.

Logging: overlaps (ρ, Q) at the given steps (a geometric grid), in float64 numpy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from mfx import runtime
from mfx.quadratic import model


def chunk_steps(N: int) -> int:
    """Steps drawn per chunk (fewer at the end of a run): ~1M numbers per seed, independent of S, so the
    draws of a seed do not depend on the batch."""
    return int(min(1024, max(16, 2**20 // N)))


def _draw(generators, shape, dtype) -> torch.Tensor:
    return torch.stack([torch.randn(shape, generator=g, dtype=dtype) for g in generators])


@torch.no_grad()
def simulate(
    W0: torch.Tensor,
    W_star: torch.Tensor,
    seeds,
    a: float,
    a_star: float,
    eta,
    log_steps,
    Delta: float = 0.0,
    stop: Callable[[np.ndarray, np.ndarray], bool] | None = None,
) -> dict:
    """Run SGD from W0 [S, p, N] with teacher W* [S, p*, N] and log (ρ, Q) at `log_steps`.

    eta: a number or a tensor [S] (one learning rate per seed). `log_steps` are increasing step counts
    (0 allowed); the run ends at the last one, or earlier at a logged step where
    `stop(rho [S,p,p*], Q [S,p,p])` returns True. Returns {"steps" [K], "rho" [K,S,p,p*], "Q" [K,S,p,p]}
    over the K logged steps; a diverged seed shows NaN/inf in its overlaps.
    """
    W = W0.clone()
    dtype = W.dtype
    S, _, N = W.shape
    W_star = W_star.to(dtype)
    eta = torch.as_tensor(eta, dtype=dtype).expand(S)
    # λ below is kept as √N λ and the labels as y·N/a, so the error is err·N/a with one subtraction;
    # coef folds the remaining factors: W ← W − 2aη err λ xᵀ/√N = W + coef (Σ(√Nλ)² − yN/a) (√Nλ) xᵀ.
    coef = (-2 * a**2 / N**2 * eta).reshape(S, 1, 1)
    x_gens = [runtime.generator(s, "quadratic", "sgd", "x") for s in seeds]
    xi_gens = [runtime.generator(s, "quadratic", "sgd", "xi") for s in seeds]
    log_steps = [int(k) for k in log_steps]
    B = chunk_steps(N)
    steps, rhos, Qs = [], [], []
    nxt, t, i, X = 0, 0, 0, None
    bar = runtime.progress(total=log_steps[-1], desc="SGD steps", unit="step", unit_scale=True)
    while True:
        while nxt < len(log_steps) and log_steps[nxt] == t:
            rho, Q = model.overlaps(W, W_star)
            steps.append(t), rhos.append(rho), Qs.append(Q)
            nxt += 1
            if nxt == len(log_steps) or (stop is not None and stop(rho, Q)):
                bar.close()
                return {"steps": np.array(steps), "rho": np.stack(rhos), "Q": np.stack(Qs)}
        if X is None or i == X.shape[1]:
            n_draw = min(B, log_steps[-1] - t)
            X = _draw(x_gens, (n_draw, N), dtype)  # [S, n_draw, N]
            y = a_star * (torch.bmm(X, W_star.transpose(1, 2)) ** 2).sum(-1) / N  # teacher outputs
            if Delta > 0:
                y = y + Delta**0.5 * _draw(xi_gens, (n_draw,), dtype)
            y_scaled = (y * (N / a)).reshape(S, n_draw, 1, 1)
            i = 0
        n = min(BLOCK, log_steps[nxt] - t, X.shape[1] - i)
        _block(W, X[:, i : i + n], y_scaled[:, i : i + n].unbind(1), coef)
        bar.update(n)
        t += n
        i += n


BLOCK = 16  # steps per Gram block: Gram cost S·BLOCK·N per step vs. 2·S·p·N memory-bound direct updates


def _block(W, X, y_scaled, coef) -> None:
    """n = X.shape[1] consecutive SGD steps on W [S, p, N] with inputs X [S, n, N], touching W twice.

    W_j = W_0 + Σ_{s<j} u_s x_sᵀ, so W_j x_j = W_0 x_j + Σ_{s<j} u_s (x_s·x_j): the fields come from the
    block's Gram matrix and its projections on W_0 (batched matmuls), and W is updated once at the end.
    """
    S, n, _ = X.shape
    L0 = torch.bmm(X, W.transpose(1, 2)).split(1, dim=1)  # n × [S, 1, p]: W_0 x_j (= √N λ at W_0)
    G = torch.bmm(X, X.transpose(1, 2)).split(1, dim=1)  # n × [S, 1, n]: x_j·x_s
    U = torch.zeros(S, n, W.shape[1], dtype=W.dtype)
    U_rows = U.split(1, dim=1)
    for j in range(n):
        lam = torch.baddbmm(L0[j], G[j], U)  # [S, 1, p]: rows s ≥ j of U are still zero
        err = torch.bmm(lam, lam.transpose(1, 2)).sub_(y_scaled[j]).mul_(coef)  # [S, 1, 1]
        torch.mul(lam, err, out=U_rows[j])
    W.baddbmm_(U.transpose(1, 2), X)


def log_grid(N: int, alpha_max: float, per_decade: int = 20, alpha_min: float = 0.01) -> np.ndarray:
    """Unique step counts: 0, then geometric in alpha from alpha_min to alpha_max (steps = alpha·N)."""
    n = max(2, int(np.ceil(per_decade * np.log10(alpha_max / alpha_min))) + 1)
    alphas = np.geomspace(alpha_min, alpha_max, n)
    return np.unique(np.concatenate([[0], np.round(alphas * N).astype(np.int64)]))
