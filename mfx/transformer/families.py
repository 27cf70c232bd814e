"""Token-distribution families μ_i, their samplers and closed-form log-MGFs Λ_μ(z) = log E_μ e^{⟨z,y⟩}.

One member of a family is fixed by one scalar parameter p (science §3.3):

| family     | member μ(p)                                  | Λ_μ(z)                              |
|------------|----------------------------------------------|-------------------------------------|
| `discrete` | n atoms p·ξ_j, ξ_j ~ N(0, I) (own per member) | log (1/n) Σ_j e^{⟨z, y_j⟩}           |
| `cube`     | uniform on [−p, p]^d                          | Σ_k log(sinh(p z_k)/(p z_k))        |
| `laplace`  | symmetric Laplace SL(Σ), Σ = p·I             | −log(1 − ½ zᵀΣz), ½ zᵀΣz < 1        |
| `gmm2`     | ½N(m, σ²I) + ½N(−m, σ²I), m = p·e_1           | ½σ²|z|² + log cosh⟨m, z⟩            |
| `gauss`    | N(0, p·I)                                    | ½ p |z|²                            |

Isotropic Gaussians N(0, p·I) all have Λ ∝ |z|², so N ≥ 2 of them are dependent modulo affine: `gauss`
is listed for completeness and behaves as a negative case (science §3.3; mixtures are what count).

Controls (negative cases of the paper's condition "Σ c_i Λ_i affine ⇒ c = 0"), all built from
member params[0] of the base family: `duplicates` (one sample repeated N times), `translates`
(one sample shifted by i·shift·e_1), `same_cov` (N(i·shift·e_1, params[0]·I), own samples) and
`iid` (N independent samples of one distribution: injective only through finite-n noise).
`convolution` is a discrete set that is NOT distinguishable although no member is a translate or a copy
of another: members 1 and 2 are a atoms of N(0, params[0]²I) each (n = a² tokens, every atom repeated a
times), member 3 is their convolution μ_1 * μ_2 (the a² sums y + y'), so Λ_3 = Λ_1 + Λ_2 exactly and
c = (1, 1, −1) is a null vector; further members are independent draws like 1 and 2.  With N = 2 the
second member is μ_1 * μ_1 (Λ_2 = 2 Λ_1).

A set of N = len(params) members is `Clouds`: tokens X [N, n, d] and the population Λ of each member.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

FAMILIES = ("discrete", "cube", "laplace", "gmm2", "gauss")
CONTROLS = ("duplicates", "translates", "same_cov", "iid", "convolution")
DISTS = FAMILIES + CONTROLS
SYMMETRIC = ("cube", "laplace", "gmm2", "gauss")  # μ = (−id)_# μ: mean pooling sees nothing
# families E3 studies in closed form only, and why (mfx/transformer/experiments/ntk.py docstring): the
# heads' tilts are products of Gaussians, so some leave the Laplace MGF domain on every seed, and there
# the sample tilted mean follows the extreme token: the empirical NTK has no n → ∞ limit
CLOSED_FORM_ONLY = {"laplace": "heavy tails: tilts outside the MGF domain have no n → ∞ limit"}


def check_dist(dist: str, base: str = "cube") -> None:
    if dist not in DISTS:
        raise ValueError(f"unknown token distribution {dist!r}: valid are {', '.join(DISTS)}")
    if dist in CONTROLS and base not in FAMILIES:
        raise ValueError(f"unknown base family {base!r}: valid are {', '.join(FAMILIES)}")


def _log_sinhc(u: torch.Tensor) -> torch.Tensor:
    """log(sinh(u)/u), stable for small and large |u|."""
    a = u.abs()
    small = a < 1e-3
    a_safe = torch.where(small, torch.ones_like(a), a)
    large = a_safe + torch.log1p(-torch.exp(-2 * a_safe)) - math.log(2.0) - torch.log(a_safe)
    return torch.where(small, a**2 / 6 - a**4 / 180, large)


def _log_cosh(u: torch.Tensor) -> torch.Tensor:
    a = u.abs()
    return a + torch.log1p(torch.exp(-2 * a)) - math.log(2.0)


def log_mgf(
    family: str, p: float, z: torch.Tensor, *, atoms: torch.Tensor | None = None, gmm_sigma: float = 1.0
) -> torch.Tensor:
    """Population Λ_μ(z) for member μ(p) of `family`; z [..., d] → [...].

    `discrete` needs its `atoms` [n, d]. `laplace` raises ValueError outside the MGF domain.
    """
    if family == "discrete":
        return torch.logsumexp(z @ atoms.T, dim=-1) - math.log(atoms.shape[0])
    if family == "cube":
        return _log_sinhc(p * z).sum(-1)
    if family == "laplace":
        q = 0.5 * p * (z**2).sum(-1)
        if bool((q >= 1).any()):
            raise ValueError(
                f"laplace scale p={p}: z leaves the MGF domain ½ zᵀΣz < 1 (max ½ zᵀΣz = {float(q.max()):.3g})"
            )
        return -torch.log1p(-q)
    if family == "gmm2":
        return 0.5 * gmm_sigma**2 * (z**2).sum(-1) + _log_cosh(p * z[..., 0])
    if family == "gauss":
        return 0.5 * p * (z**2).sum(-1)
    raise ValueError(f"unknown family {family!r}: valid are {', '.join(FAMILIES)}")


def sample(
    family: str,
    p: float,
    n: int,
    d: int,
    generator: torch.Generator,
    *,
    gmm_sigma: float = 1.0,
    dtype=torch.float64,
) -> torch.Tensor:
    """n i.i.d. tokens [n, d] of member μ(p)."""
    kw = {"generator": generator, "dtype": dtype}
    if family in ("discrete", "gauss"):
        scale = p if family == "discrete" else math.sqrt(p)
        return scale * torch.randn(n, d, **kw)
    if family == "cube":
        return p * (2 * torch.rand(n, d, **kw) - 1)
    if family == "laplace":
        W = -torch.log(torch.rand(n, 1, **kw))  # Exp(1)
        return torch.sqrt(W * p) * torch.randn(n, d, **kw)
    if family == "gmm2":
        sign = 2.0 * (torch.rand(n, 1, **kw) < 0.5) - 1.0
        m = torch.zeros(d, dtype=dtype)
        m[0] = p
        return sign * m + gmm_sigma * torch.randn(n, d, **kw)
    raise ValueError(f"unknown family {family!r}: valid are {', '.join(FAMILIES)}")


@dataclass
class Clouds:
    """N token clouds X [N, n, d] and each member's population log-MGF Λ_i: z [..., d] → [...]."""

    X: torch.Tensor
    lam: list[Callable[[torch.Tensor], torch.Tensor]]
    symmetric: bool  # every member symmetric about 0 (mean pooling is then blind)
    laplace_scales: tuple[float, ...] = ()  # p of every Laplace member (MGF domain checks)

    def log_mgf(self, z: torch.Tensor) -> torch.Tensor:
        """F [..., N] with F[..., i] = Λ_i(z)."""
        return torch.stack([f(z) for f in self.lam], dim=-1)


def clouds(
    dist: str,
    params: Sequence[float],
    n: int,
    d: int,
    generator: torch.Generator,
    *,
    base: str = "cube",
    shift: float = 1.0,
    gmm_sigma: float = 1.0,
    dtype=torch.float64,
) -> Clouds:
    """The N = len(params) token clouds of `dist` (a family or a control, see the module docstring)."""
    check_dist(dist, base)
    N = len(params)
    if dist == "convolution":
        return _convolution(params[0], N, n, d, generator, dtype)
    if dist in FAMILIES:
        family, ps = dist, list(params)
    elif dist == "same_cov":
        family, ps = "gauss", [params[0]] * N
    else:
        family, ps = base, [params[0]] * N
    X, lam = [], []
    for i, p in enumerate(ps):
        if dist in ("duplicates", "translates") and i > 0:
            x = X[0]
        else:
            x = sample(family, p, n, d, generator, gmm_sigma=gmm_sigma, dtype=dtype)
        # Λ of a translate μ + c is Λ_μ(z) + ⟨c, z⟩: exactly the affine part the condition removes.
        c = torch.zeros(d, dtype=dtype)
        if dist in ("translates", "same_cov"):
            c[0] = i * shift
        X.append(x)
        atoms = x if family == "discrete" else None
        lam.append(
            lambda z, p=p, atoms=atoms, c=c: (
                log_mgf(family, p, z, atoms=atoms, gmm_sigma=gmm_sigma) + z @ c.to(z)
            )
        )
    X = torch.stack(X)
    if dist in ("translates", "same_cov"):
        X = X + torch.arange(N, dtype=dtype)[:, None, None] * shift * torch.eye(d, dtype=dtype)[0]
    symmetric = family in SYMMETRIC and dist not in ("translates", "same_cov")
    return Clouds(X, lam, symmetric, tuple(ps) if family == "laplace" else ())


def _convolution(p: float, N: int, n: int, d: int, generator: torch.Generator, dtype) -> Clouds:
    """The `convolution` control (module docstring): Λ_3 = Λ_1 + Λ_2 (N = 2: Λ_2 = 2 Λ_1)."""
    a = math.isqrt(n)
    if a * a != n:
        raise ValueError(f"the convolution control needs a square number of tokens n = a² (got n = {n})")
    atoms = [sample("discrete", p, a, d, generator, dtype=dtype) for _ in range(max(N, 3) - 1)]
    first, second = atoms[0], atoms[1] if N > 2 else atoms[0]
    # every member as n = a² tokens: the sums y_j + y'_k over all pairs, and each factor repeated a times
    conv = (first[:, None, :] + second[None, :, :]).reshape(n, d)
    members = [first.repeat_interleave(a, 0)]
    members += [second.repeat(a, 1), conv] if N > 2 else [conv]
    members += [y.repeat_interleave(a, 0) for y in atoms[2 : N - 1]]
    X = torch.stack(members[:N])
    lam = [lambda z, x=x: log_mgf("discrete", p, z, atoms=x) for x in X]
    return Clouds(X, lam, False)
