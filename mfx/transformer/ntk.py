"""Neural tangent kernels of the L×H transformer and the closed-form Gram of the Λ_μ (science §2.3, §3).

Empirical NTK of one seed: K = L·H · J Jᵀ with J = ∂ŷ/∂θ [N·d, P] (torch.func.jacrev), split by
parameter blocks: K_V from the value matrices, K_QK from the query and key matrices, K = K_V + K_QK.
The L·H factor makes K the kernel of the flow in time t = k·η (dŷ/dt = −K (ŷ − y)/N), finite as L, H → ∞.

Which block carries the paper's condition (issue 13 §3).  At one layer the query's output is

    ŷ_i = q0 + (1/H) Σ_h V_h ∇Λ_i(z_h),   z_h = A_h q0,  A_h = β K_hᵀ Q_h,

with Λ_i the log-sum-exp of cloud i (its empirical log-MGF).  Differentiating head by head:

- V block: ∂ŷ_i/∂V_h = (1/H) I ⊗ ∇Λ_i(z_h)ᵀ, so
      K_V[(i,a),(j,b)] = δ_ab (1/H) Σ_h ⟨∇Λ_i(z_h), ∇Λ_j(z_h)⟩,
  the Gram of the gradients ∇Λ_i over the heads' tilts.  A null vector c ⊗ e_a needs
  Σ_i c_i ∇Λ_i ≡ 0, i.e. Σ_i c_i Λ_i constant: K_V is injective iff the Λ_i are independent
  modulo CONSTANTS.  Translates (Λ_2 = Λ_1 + ⟨b, z⟩) are not: their difference has gradient b ≠ 0.
- QK block: dz_h = β(δK_hᵀ Q_h q0 + K_hᵀ δQ_h q0) and ∂ŷ_i/∂z_h = (1/H) V_h ∇²Λ_i(z_h), so
      K_QK[i, j] = (1/H) Σ_h V_h ∇²Λ_i(z_h) G_h ∇²Λ_j(z_h) V_hᵀ,
      G_h = β² (|Q_h q0|² I + |q0|² K_hᵀ K_h)   (positive definite),
  the Gram of the Hessians ∇²Λ_i.  A vector (c_i w)_i with Σ_i c_i ∇²Λ_i ≡ 0, i.e. Σ_i c_i Λ_i
  AFFINE, is null: K_QK is injective only if the Λ_i are independent modulo AFFINE functions —
  the paper's condition (its "log-sum-exp functions modulo affine functions" are these Λ_i).

So in mfx's model (values V·y, no output matrix, query readout) the paper's condition names the
attention (query–key) block; the value block only needs independence modulo constants, a weaker
requirement that the full kernel K = K_V + K_QK inherits.  The Q and K blocks apart have the QK block's
nulls (dz_h sweeps all of R^d through δQ alone, as K_h is invertible, and through δK alone, as
Q_h q0 ≠ 0), and K's nulls are K_V's: c ⊗ w null for K_V means Σ c_i Λ_i ≡ 0, hence also ∇² of it.

The V-part condition of the convergence theorem ("NTK positive at initialisation, V part"), in this
model: λ_min(K_V) > 0 ⇔ the Λ_i are linearly independent modulo constants on the heads' tilts
{A_h q0} — implied by the injectivity theorem's modulo-affine condition (every family of the theorem
satisfies it), and strictly weaker: a translate pair has K_V > 0 and K_QK null.  Three translates
(Λ_1 − 2Λ_2 + Λ_3 = 0), copies, and the convolution set (Λ_3 = Λ_1 + Λ_2) violate both.  The block
table of `transformer_ntk` checks every one of these equivalences both ways.  `tests/transformer/test_ntk.py` checks
both formulas against the autograd kernels and the null vector of translates.  At depth L > 1 the
tokens move before later layers attend, and these statements hold at first order in the movement.

Closed-form Gram (the paper's condition, population level, §3.4): F[m, i] = Λ_{μ_i}(z_m) at z_m ~ ν;
regress every column on the affine functions [1, z], keep the residual R [M, N]; G = RᵀR / M.  λ_min(G)
= 0 iff some Σ c_i Λ_i is affine on the support of ν, i.e. the NTK injectivity condition fails.

The closed-form Λ_μ against the network (issue 39 §4): the Gram's positivity holds for almost any smooth
Λ, so a wrong formula (a missing term, a wrong parameter) would pass it.  `head_blocks(..., lam=Λ_μ)` builds
the one-layer NTK from the closed forms' own ∇Λ_μ and ∇²Λ_μ (autograd); the network's NTK on n tokens
drawn from μ (`ntk_blocks`, its Jacobian) tends to it at the Monte Carlo rate n^(−1/2) only if Λ_μ is the
log-MGF of the law the clouds are drawn from.
"""

from __future__ import annotations

import math

import torch
from torch.func import jacrev

from mfx.transformer.model import forward


def jacobian(Q, K, V, X, q0, *, beta: float = 1.0, readout: str = "query") -> dict[str, torch.Tensor]:
    """J of every seed: Q, K, V [S, L, H, d, d] → {"Q","K","V": [S, N·d, L·H·d·d]}.

    One reverse pass for all seeds: seed s's outputs depend on its own parameters only, so the Jacobian
    of the outputs summed over seeds, taken with respect to seed s's parameters, is seed s's Jacobian."""

    def f(Q, K, V):
        return forward(Q, K, V, X, q0, beta=beta, readout=readout).sum(0).reshape(-1)

    J = jacrev(f, argnums=(0, 1, 2))(Q, K, V)  # [N·d, S, L, H, d, d] each
    return {name: j.transpose(0, 1).reshape(Q.shape[0], j.shape[0], -1) for name, j in zip("QKV", J)}


SEED_BATCH = 2**21  # attention weights per group of seeds in `ntk_blocks` (~16 MB each, ×(1 + N·d) tensors)


def ntk_blocks(
    Q, K, V, X, q0, *, beta: float = 1.0, readout: str = "query", split_qk: bool = False
) -> dict[str, torch.Tensor]:
    """{"full", "V", "QK"}: [S, N·d, N·d] empirical NTK blocks of every seed (parameters [S, L, H, d, d]);
    `split_qk=True` adds the query and key blocks "Q" and "K" (K_QK = K_Q + K_K)."""
    S, L, H = Q.shape[:3]
    N, n = X.shape[-3:-1]
    # seeds in groups whose attention weights ([N, H·n, n] per layer and seed) stay ≲ SEED_BATCH values
    per_seed = L * H * N * n * (n if L > 1 or readout == "mean" else 1)
    step = max(1, SEED_BATCH // per_seed)
    parts = []
    for a in range(0, S, step):
        Xa = X[a : a + step] if X.dim() == 4 else X
        J = jacobian(Q[a : a + step], K[a : a + step], V[a : a + step], Xa, q0, beta=beta, readout=readout)
        parts.append(tuple(L * H * J[b] @ J[b].transpose(-1, -2) for b in "VQK"))
    KV, KQ, KK = (torch.cat(p) for p in zip(*parts))
    out = {"full": KV + KQ + KK, "V": KV, "QK": KQ + KK}
    return out | ({"Q": KQ, "K": KK} if split_qk else {})


def spectrum(G: torch.Tensor) -> dict[str, torch.Tensor]:
    """λ_min, λ_max and their ratio of symmetric matrices G [..., n, n] (ratio can be ≲ 0 at rounding level).

    A matrix with non-finite or overflowing entries (the kernel of a run that is blowing up) gets NaN
    instead of stopping the job: LAPACK's eigh fails on it, and a diverging run is data."""
    G = 0.5 * (G + G.transpose(-1, -2))
    ok = torch.isfinite(G).all(-1).all(-1) & (G.abs().amax((-1, -2)) < 1e150)
    ev = torch.full(G.shape[:-1], float("nan"), dtype=G.dtype, device=G.device)
    ev[ok] = torch.linalg.eigvalsh(G[ok])
    lo, hi = ev[..., 0], ev[..., -1]
    return {"lam_min": lo, "lam_max": hi, "ratio": lo / hi}


def affine_residual(F: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """Residual of each column of F [M, N] after least squares on [1, z] (z [M, d])."""
    B = torch.cat([torch.ones_like(z[:, :1]), z], dim=1)
    # orthonormal basis of the affine functions: projection is stable even when F is nearly affine
    Qb, _ = torch.linalg.qr(B)
    return F - Qb @ (Qb.T @ F)


def lse_gram(F: torch.Tensor, z: torch.Tensor, modulo: str = "affine") -> torch.Tensor:
    """Closed-form Gram G = RᵀR / M of the Λ values F [M, N] modulo affine functions of z [M, d]
    (`modulo="constants"`: modulo constants only, the V block's condition)."""
    R = affine_residual(F, z) if modulo == "affine" else F - F.mean(0, keepdim=True)
    return R.T @ R / F.shape[0]


def sample_z(
    M: int,
    d: int,
    sigma_z: float,
    generator: torch.Generator,
    *,
    z_max: float | None = None,
    dtype=torch.float64,
):
    """M points z ~ N(0, σ_z² I), kept inside the ball |z| < z_max when given (Laplace MGF domain)."""
    z = sigma_z * torch.randn(M, d, generator=generator, dtype=dtype)
    if z_max is not None:
        norm = z.norm(dim=1, keepdim=True)
        # radial truncation: points outside are pulled back in along their direction, keeping M fixed
        z = torch.where(
            norm < z_max, z, z / norm * z_max * torch.rand(M, 1, generator=generator, dtype=dtype)
        )
    return z


def tilted_moments(X: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """∇Λ_i(z), ∇²Λ_i(z) of the clouds X [N, n, d]' own log-sum-exp at the tilts z [M, d]: their tilted
    means [M, N, d] and covariances [M, N, d, d] (what the network's attention computes)."""
    N, n, d = X.shape
    w = torch.softmax(torch.einsum("ma,ija->mij", z, X), dim=-1)  # tilted weights [M, N, n]
    # first and second moments in one contraction over the tokens (a three-operand einsum is ~10× slower)
    m = torch.einsum(
        "mij,ijc->mic", w, torch.cat([X, (X[..., :, None] * X[..., None, :]).reshape(N, n, d * d)], -1)
    )
    mean = m[..., :d]
    return mean, m[..., d:].reshape(*mean.shape, d) - mean[..., :, None] * mean[..., None, :]


def population_moments(lam, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """∇Λ_μ(z), ∇²Λ_μ(z) of the members' closed-form population log-MGFs `lam` (`families.Clouds.lam`) at
    the tilts z [M, d], by autograd of the formulas: [M, N, d] and [M, N, d, d] — the n → ∞ limit of
    `tilted_moments` when each formula is the Λ of the law its cloud is drawn from."""
    means, covs = [], []
    for f in lam:
        x = z.detach().clone().requires_grad_(True)
        (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
        rows = [torch.autograd.grad(g[:, a].sum(), x, retain_graph=True)[0] for a in range(z.shape[1])]
        means.append(g.detach())
        covs.append(torch.stack(rows, dim=1))
    return torch.stack(means, dim=1), torch.stack(covs, dim=1)


def head_blocks(Q, K, V, X, q0, *, beta: float = 1.0, lam=None) -> dict[str, torch.Tensor]:
    """{"V", "QK"}: [M, N·d, N·d] the tangent kernel of one head θ = (Q, K, V) [M, d, d] at the unmoved
    inputs X [N, n, d], in closed form (module docstring, H = 1):

        k_θ[(i,a),(j,b)] = δ_ab ⟨∇Λ_i(z), ∇Λ_j(z)⟩ + (V ∇²Λ_i(z) G ∇²Λ_j(z) Vᵀ)_ab,   z = β KᵀQ q0,

    with ∇Λ_i, ∇²Λ_i the tilted mean and covariance of cloud i and G = β²(|Q q0|² I + |q0|² KᵀK): the V
    block is the first term, the QK block the second.  The kernel of a one-layer network of H heads is
    their mean (no token moves before the query reads them).  With `lam` (the members' closed-form
    Λ_μ) the moments are the population ones (`population_moments`) and X is not read: the kernel of
    the clouds' laws, n → ∞."""
    d = Q.shape[-1]
    Qq = Q @ q0  # [M, d]
    z = beta * torch.einsum("mka,mk->ma", K, Qq)
    mean, cov = tilted_moments(X, z) if lam is None else population_moments(lam, z)
    M, N = mean.shape[:2]
    eye = torch.eye(d, dtype=z.dtype, device=z.device)
    kv = torch.einsum("mia,mja->mij", mean, mean)[:, :, None, :, None] * eye[:, None, :]  # [M, N, d, N, d]
    G = beta**2 * ((Qq**2).sum(-1)[:, None, None] * eye + (q0 @ q0) * K.transpose(-1, -2) @ K)
    B = V[:, None] @ cov  # V ∇²Λ_i [M, N, d, d]
    kqk = torch.einsum("miac,mcd,mjbd->miajb", B, G, B)
    return {"V": kv.reshape(M, N * d, N * d), "QK": kqk.reshape(M, N * d, N * d)}


def head_kernels(Q, K, V, X, q0, *, beta: float = 1.0) -> torch.Tensor:
    """k_θ [M, N·d, N·d]: the full tangent kernel of single heads, V + QK blocks of `head_blocks`."""
    b = head_blocks(Q, K, V, X, q0, beta=beta)
    return b["V"] + b["QK"]


def limit_kernel(
    X, q0, heads: int, generator: torch.Generator, *, beta=1.0, s_qk=1.0, s_v=1.0, chunk: int = 2**14
) -> torch.Tensor:
    """K_∞ = 𝔼_θ[k_θ] [N·d, N·d]: the NTK of the L, H → ∞ limit at initialisation, by Monte Carlo over
    `heads` draws of the initial law (entries of Q, K ~ N(0, s_qk²/d), V ~ N(0, s_v²/d)).

    At initialisation 𝔼V = 0 and V is independent of (Q, K), so the limit's velocity field vanishes for
    every token distribution: no token moves, and neither does the query through the context.  Each
    head's output gradient is then that of one head at the unmoved inputs, and K = (1/(LH)) Σ g gᵀ
    (K = L·H·J Jᵀ with g = L·H·∂ŷ/∂θ) tends to the expectation of `head_kernels`.  An independent
    reference for the finite networks' K_0 (autograd through the L layers, `ntk_blocks`)."""
    N, _n, d = X.shape
    total = torch.zeros(N * d, N * d, dtype=X.dtype, device=X.device)
    for start in range(0, heads, chunk):
        m = min(chunk, heads - start)
        Q, K, V = (
            torch.randn(m, d, d, generator=generator, dtype=X.dtype).to(X.device) * (s / math.sqrt(d))
            for s in (s_qk, s_qk, s_v)
        )
        total += head_kernels(Q, K, V, X, q0, beta=beta).sum(0)
    return total / heads
