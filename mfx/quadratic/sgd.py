"""One-pass SGD for all seeds at once, with the analytic gradient.

Per step (one fresh x ~ N(0, I_N) per seed):
    λ = W x/√N [S, p],  ν = W* x/√N [S, p*],  err = a Σλ² − a* Σν² − √Δ ξ
    W ← W − (2 a η err/√N) λ xᵀ                      (gradient of ½ err²)
W is [S, p, N] (float32 allowed: the update is O(pN) per step and the logged overlaps are formed in
float64). Inputs are drawn in chunks of `chunk_steps(N)` steps from one generator per seed and stream
(mfx.runtime), so seed s follows the same trajectory alone or in any batch. A chunk is drawn in pieces
of PIECE steps, in place into one reused buffer V = [W; W*; x_1..x_PIECE] [S, p + p* + PIECE, N]: the
numbers are exactly those of one torch.randn per chunk (pieces of 16·N numbers), the piece stays in
cache while it is used, and the state W lives in the same buffer so that one batched matmul per block
gives every field the block needs.

Steps are processed in blocks of at most BLOCK steps (see `_block`): the fields of the block's inputs
follow from their Gram matrix, so W is read and written once per block instead of once per step.
Against the version that drew whole chunks with torch.stack (and computed the teacher fields per chunk
and W x per block separately), the inputs are bitwise the same and the results agree to rounding (same
arithmetic, other summation order: 1e-14 in float64, ~1e-6 in float32 over thousands of steps).

Device: everything (generators, inputs, W, the logged overlaps) lives on W0's device; only `stop`
sees host copies (at logged steps), and the result is copied to numpy once at the end. On CUDA the
draws differ from the CPU's (another generator), so a seed's trajectory is reproducible per device.

Logging: overlaps (ρ, Q) at the given steps (a geometric grid), in float64 numpy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from mfx import runtime


def chunk_steps(N: int) -> int:
    """Steps drawn per chunk (fewer at the end of a run): ~1M numbers per seed, independent of S, so the
    draws of a seed do not depend on the batch."""
    return int(min(1024, max(16, 2**20 // N)))


def _draw_into(out: torch.Tensor, generators) -> torch.Tensor:
    """Fill out[s] (contiguous) from generators[s], in place: the numbers torch.randn(out[s].shape,
    generator=generators[s]) would give, without stacking a copy."""
    for row, g in zip(out, generators):
        torch.randn(row.shape, generator=g, dtype=out.dtype, device=out.device, out=row)
    return out


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
    stop: Callable[[np.ndarray, np.ndarray], bool | np.ndarray] | None = None,
) -> dict:
    """Run SGD from W0 [S, p, N] with teacher W* [S, p*, N] and log (ρ, Q) at `log_steps`.

    eta: a number or a tensor [S] (one learning rate per seed). `log_steps` are increasing step counts
    (0 allowed); the run ends at the last one, or earlier at a logged step where
    `stop(rho [S,p,p*], Q [S,p,p])` returns True (or a mask [S] that is all True: unlike the chain, the
    batched full SGD steps every seed to the end). Returns {"steps" [K], "rho" [K,S,p,p*], "Q" [K,S,p,p]}
    over the K logged steps; a diverged seed shows NaN/inf in its overlaps.
    """
    dtype, device = W0.dtype, W0.device
    S, p, N = W0.shape
    k0 = p + W_star.shape[1]
    eta = torch.as_tensor(eta, dtype=dtype, device=device).expand(S)
    # λ below is kept as √N λ and the labels as y·N/a, so the error is err·N/a with one subtraction;
    # coef folds the remaining factors: W ← W − 2aη err λ xᵀ/√N = W + coef (Σ(√Nλ)² − yN/a) (√Nλ) xᵀ.
    coef = (-2 * a**2 / N**2 * eta).reshape(S, 1, 1)
    x_gens = [runtime.generator(s, "quadratic", "sgd", "x", device=device) for s in seeds]
    xi_gens = [runtime.generator(s, "quadratic", "sgd", "xi", device=device) for s in seeds]
    log_steps = [int(k) for k in log_steps]
    B = min(chunk_steps(N), log_steps[-1])
    P = min(PIECE, B) if N >= 16 else B
    # One buffer V = [W; W*; X] [S, p + p* + P, N]: the state W, the teacher, and the current piece of
    # inputs (drawn in place), so that one matmul per block gives every field and Gram entry it needs.
    V = torch.empty((S, k0 + P, N), dtype=dtype, device=device)
    V[:, :p], V[:, p:k0] = W0, W_star.to(dtype=dtype, device=device)
    W = V[:, :p]
    xi_buf = torch.empty((S, B), dtype=dtype, device=device)
    steps, rhos, Qs = [], [], []
    nxt, t, i, m, chunk_left, pos = 0, 0, 0, 0, 0, 0
    bar = runtime.progress(total=log_steps[-1], desc="SGD steps", unit="step", unit_scale=True)
    while True:
        while nxt < len(log_steps) and log_steps[nxt] == t:
            rho, Q = _overlaps(W, V[:, p:k0])
            steps.append(t), rhos.append(rho), Qs.append(Q)
            nxt += 1
            if nxt == len(log_steps) or (
                stop is not None and np.all(stop(rho.cpu().numpy(), Q.cpu().numpy()))
            ):
                bar.close()
                return {
                    "steps": np.array(steps),
                    "rho": torch.stack(rhos).cpu().numpy(),
                    "Q": torch.stack(Qs).cpu().numpy(),
                }
        if i == m:  # the piece is used up: draw the next one
            if chunk_left == 0:
                chunk_left, pos = min(B, log_steps[-1] - t), 0
                if Delta > 0:
                    noise = Delta**0.5 * _draw_into(xi_buf[:, :chunk_left], xi_gens)
            m = min(P, chunk_left)
            _draw_into(V[:, k0 : k0 + m], x_gens)
            y_noise = noise[:, pos : pos + m] * (N / a) if Delta > 0 else None
            chunk_left, pos, i = chunk_left - m, pos + m, 0
        n = min(BLOCK, log_steps[nxt] - t, m - i)
        _block(
            V[:, : k0 + m], p, k0, k0 + i, n, a_star / a, y_noise[:, i : i + n] if Delta > 0 else None, coef
        )
        bar.update(n)
        t += n
        i += n


def _overlaps(W, W_star) -> tuple[torch.Tensor, torch.Tensor]:
    """(ρ, Q) in float64 on W's device (model.overlaps without leaving the device)."""
    W, W_star = W.double(), W_star.double()
    N = W.shape[-1]
    return torch.bmm(W, W_star.transpose(1, 2)) / N, torch.bmm(W, W.transpose(1, 2)) / N


# Steps drawn at a time (while N ≥ 16): pieces of 16·N numbers give exactly the numbers of one draw per
# chunk, and a piece stays in cache while its blocks use it.
PIECE = 16
BLOCK = 16  # steps per Gram block (≤ PIECE): Gram cost S·BLOCK·N per step, W read and written once


def _block(V, p, k0, j0, n, ratio, y_noise, coef) -> None:
    """n consecutive SGD steps with the inputs x_j = V[:, j0 + j] (j < n), updating W = V[:, :p] in place.

    V = [W; W*; X] [S, k, N] with W* = V[:, p:k0]. W_j = W_0 + Σ_{s<j} u_s x_sᵀ, so W_j x_j = W_0 x_j +
    Σ_{s<j} u_s (x_s·x_j): one batched matmul F = X_block Vᵀ gives W_0 x_j, the teacher fields W* x_j and
    the block's Gram matrix, and W is updated once at the end. Labels are kept as yN/a = (a*/a)|W* x|²
    (+ the label noise times N/a, `y_noise` [S, n]).
    """
    S = V.shape[0]
    X = V[:, j0 : j0 + n]
    F = torch.bmm(V, X.transpose(1, 2)).transpose(1, 2)  # [S, n, k]: x_j·(rows of V); faster than X Vᵀ
    L0 = F[:, :, :p].split(1, dim=1)  # n × [S, 1, p]: W_0 x_j (= √N λ at W_0)
    G = F[:, :, j0 : j0 + n].split(1, dim=1)  # n × [S, 1, n]: x_j·x_s
    y_scaled = (F[:, :, p:k0] ** 2).sum(-1).mul_(ratio)  # [S, n]
    if y_noise is not None:
        y_scaled += y_noise
    y_scaled = y_scaled.reshape(S, n, 1, 1).unbind(1)
    U = torch.zeros(S, n, p, dtype=V.dtype, device=V.device)
    U_rows = U.split(1, dim=1)
    for j in range(n):
        lam = torch.baddbmm(L0[j], G[j], U)  # [S, 1, p]: rows s ≥ j of U are still zero
        err = torch.bmm(lam, lam.transpose(1, 2)).sub_(y_scaled[j]).mul_(coef)  # [S, 1, 1]
        torch.mul(lam, err, out=U_rows[j])
    V[:, :p].baddbmm_(U.transpose(1, 2), X)


def log_grid(N: int, alpha_max: float, per_decade: int = 20, alpha_min: float = 0.01) -> np.ndarray:
    """Unique step counts: 0, then geometric in alpha from alpha_min to alpha_max (steps = alpha·N)."""
    n = max(2, int(np.ceil(per_decade * np.log10(alpha_max / alpha_min))) + 1)
    alphas = np.geomspace(alpha_min, alpha_max, n)
    return np.unique(np.concatenate([[0], np.round(alphas * N).astype(np.int64)]))
