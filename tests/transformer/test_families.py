import math

import pytest
import torch

from mfx import runtime
from mfx.transformer import families

DT = torch.float64


@pytest.mark.parametrize(
    "family,p", [("cube", 0.8), ("laplace", 0.5), ("gmm2", 1.5), ("gauss", 0.7), ("discrete", 1.0)]
)
@pytest.mark.parametrize("d", [1, 2])
def test_closed_form_matches_monte_carlo(family, p, d):
    """Λ_μ(z) = log E e^{⟨z,y⟩} within 5 standard errors of a Monte-Carlo estimate."""
    g = runtime.generator(0, "mc", family, d)
    n = 400_000
    Y = families.sample(family, p, n, d, g)
    z = 0.4 * torch.randn(6, d, generator=g, dtype=DT)
    e = torch.exp(Y @ z.T)  # [n, 6]
    mc = torch.log(e.mean(0))
    se = e.std(0) / math.sqrt(n) / e.mean(0)  # delta method: sd of log mean
    atoms = Y if family == "discrete" else None
    exact = families.log_mgf(family, p, z, atoms=atoms)
    assert ((mc - exact).abs() <= 5 * se + 1e-12).all(), (mc - exact, se)


def test_log_sinhc_is_stable():
    u = torch.tensor([0.0, 1e-8, 1e-3, 0.5, 30.0, 800.0], dtype=DT)
    v = families._log_sinhc(u)
    assert torch.isfinite(v).all()
    ref = torch.log(torch.sinh(u[2:4]) / u[2:4])
    assert torch.allclose(v[2:4], ref, rtol=1e-12)
    assert abs(float(v[-1]) - (800 - math.log(2) - math.log(800))) < 1e-10


def test_laplace_outside_domain_names_parameter():
    with pytest.raises(ValueError, match="laplace scale p=2"):
        families.log_mgf("laplace", 2.0, torch.tensor([[1.0, 0.0]], dtype=DT))


def test_unknown_names_list_the_valid_ones():
    g = runtime.generator(0, "x")
    with pytest.raises(ValueError, match="discrete, cube, laplace, gmm2, gauss, duplicates"):
        families.clouds("cubes", [1.0], 4, 2, g)
    with pytest.raises(ValueError, match="valid are discrete, cube"):
        families.clouds("translates", [1.0], 4, 2, g, base="nope")


def test_controls():
    g = runtime.generator(0, "c")
    z = torch.randn(50, 2, generator=g, dtype=DT)
    dup = families.clouds("duplicates", [1.0, 2.0, 3.0], 8, 2, g)
    assert torch.equal(dup.X[0], dup.X[2]) and dup.symmetric
    tr = families.clouds("translates", [1.0, 1.0], 8, 2, g, shift=0.5)
    assert torch.allclose(tr.X[1] - tr.X[0], torch.tensor([0.5, 0.0], dtype=DT).expand(8, 2))
    F = tr.log_mgf(z)
    assert torch.allclose(F[:, 1] - F[:, 0], 0.5 * z[:, 0], atol=1e-14)  # Λ differs by ⟨b, z⟩
    iid = families.clouds("iid", [1.0, 1.0], 8, 2, g)
    assert not torch.equal(iid.X[0], iid.X[1])
    sc = families.clouds("same_cov", [1.0, 1.0], 4000, 2, g, shift=2.0)
    assert abs(float(sc.X[1].mean(0)[0] - sc.X[0].mean(0)[0]) - 2.0) < 0.15
    assert not sc.symmetric


@pytest.mark.parametrize("N", [2, 3, 4])
def test_convolution_control_is_a_null_set_of_distinct_members(N):
    """Λ_3 = Λ_1 + Λ_2 (N = 2: Λ_2 = 2 Λ_1), with no member a copy or a translate of another."""
    c = families.clouds("convolution", [1.0] * N, 16, 2, runtime.generator(0, "conv", N))
    z = torch.randn(50, 2, generator=runtime.generator(1, "z"), dtype=DT)
    F = c.log_mgf(z)
    combo = F[:, 0] + F[:, 1] - F[:, 2] if N > 2 else 2 * F[:, 0] - F[:, 1]
    assert combo.abs().max() < 1e-12
    centred = c.X - c.X.mean(1, keepdim=True)
    for i in range(N):
        for j in range(i):
            assert not torch.allclose(centred[i].sort(0).values, centred[j].sort(0).values)


def test_convolution_control_needs_a_square_token_number():
    with pytest.raises(ValueError, match="square"):
        families.clouds("convolution", [1.0, 1.0, 1.0], 10, 2, runtime.generator(0, "conv"))
