"""The quadratic family's SGD mistakes, one place for the can-fail tests (`test_claims_can_fail.py`) and
the command-line runner (`scripts/mutations.py`, which measures their power at any scale and seed).
Each mutation takes a `pytest.MonkeyPatch`."""

from __future__ import annotations

import numpy as np

from mfx.quadratic import chain, hessian, model, ode, sgd
from mfx.quadratic.experiments import implicit_bias
from tests.power_entry import Entry


def sgd_with(monkeypatch, *, eta_factor=1.0, a_star=None, a_star_factor=1.0, which=("overlap", "full")):
    """Wrap the SGD of `which` methods (overlap chain, full SGD): learning rate × eta_factor, labels with
    readout `a_star` instead of the model's, times a_star_factor (ε_g is still read with the model's a*)."""
    for module in [chain] * ("overlap" in which) + [sgd] * ("full" in which):
        original = module.simulate

        def wrapped(*args, _original=original, _i=6 if module is chain else 5, **kwargs):
            args = list(args)
            i = _i  # position of eta
            args[i] = args[i] * eta_factor
            if a_star is not None:
                args[i - 1] = a_star
            args[i - 1] = args[i - 1] * a_star_factor
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "simulate", wrapped)


# the SGD time axis off by a factor f: SGD steps at f·η while its τ axis assumes η (issue 21 §5: the goal
# is that every time-axis claim detects f = 1.1 at paper scale)
def _eta_times(f: float):
    return lambda mp: sgd_with(mp, eta_factor=f)


MUTATIONS = {f"sgd_eta_x{f:g}": _eta_times(f) for f in (1.05, 1.1, 1.2, 1.3)}


def ode_with(monkeypatch, *, a_star_factor=1.0):
    """The ODE integrated with the teacher readout a*·a_star_factor in its drift (its ε_g still read with the
    model's a*): the ODE then converges to the minimum of another risk."""
    original = ode.solve

    def wrapped(rho0, Q0, T, a, a_star, *args, **kwargs):
        return original(rho0, Q0, T, a, a_star * a_star_factor, *args, **kwargs)

    monkeypatch.setattr(ode, "solve", wrapped)


def ode_off(monkeypatch, factor=1e-9):
    """The ODE integrated over τ × factor (training off): the state stays at its initial condition."""
    original = ode.solve

    def wrapped(rho0, Q0, T, a, a_star, tau, **kwargs):
        return original(rho0, Q0, T, a, a_star, np.asarray(tau) * factor, **kwargs)

    monkeypatch.setattr(ode, "solve", wrapped)


def trained_with_teacher(monkeypatch, a_star_factor):
    """Both trainings (SGD's labels and the ODE's drift) with the teacher readout a*·a_star_factor, ε_g and
    the Hessian read with the model's a*: training converges to the minimum of another risk."""
    sgd_with(monkeypatch, a_star_factor=a_star_factor)
    ode_with(monkeypatch, a_star_factor=a_star_factor)


def hessian_with(monkeypatch, *, a_star_factor=1.0):
    """The Hessian taken with the teacher readout a*·a_star_factor (span block and bulk), at the states the
    correct training reaches, its eigenvalues still in units of the model's 4aa*: the teacher term a*V*ᵀV*,
    the source of the plateau's negative curvature, scaled."""
    risk, bulk = hessian.risk_in_span, hessian.bulk_values
    monkeypatch.setattr(
        hessian, "risk_in_span", lambda C, C_star, a, a_star: risk(C, C_star, a, a_star * a_star_factor)
    )
    monkeypatch.setattr(hessian, "bulk_values", lambda Q, T, a, a_star: bulk(Q, T, a, a_star * a_star_factor))


def moved_along_the_manifold(rho, x):
    """The solutions rho [S, p, p*] (s·U, U orthonormal columns) moved along the manifold by a relative
    distance x = ‖moved − rho‖_F/(s√p*): U's first column turned by an angle θ towards a direction ⊥ U
    (p > p*), or U turned by θ in the plane of its first two columns (p = p* ≥ 2)."""
    out = np.array(rho, dtype=float)
    S, p, p_star = out.shape
    for k in range(S):
        s = np.linalg.norm(out[k]) / np.sqrt(p_star)
        U = out[k] / s
        if p > p_star:
            v = np.linalg.qr(np.hstack([U, np.eye(p)]))[0][:, p_star]
            theta = 2 * np.arcsin(x * np.sqrt(p_star) / 2)
            U[:, 0] = np.cos(theta) * U[:, 0] + np.sin(theta) * v
        elif p_star >= 2:
            theta = 2 * np.arcsin(x * np.sqrt(p_star) / (2 * np.sqrt(2)))
            R = np.eye(p_star)
            R[:2, :2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
            U = U @ R
        out[k] = s * U
    return out


def reference_moved(monkeypatch, x):
    """quad_implicit_bias's reference for SGD's end point, s·polar(ρ0), replaced by another solution at a
    relative distance x (moved_along_the_manifold)."""
    original = implicit_bias._final_rho_rows

    def wrapped(method, seeds, rho_final, rho_pred, coords, g):
        if method == "sgd":
            rho_pred = moved_along_the_manifold(rho_pred, x)
        return original(method, seeds, rho_final, rho_pred, coords, g)

    monkeypatch.setattr(implicit_bias, "_final_rho_rows", wrapped)


def overlap_per_width(monkeypatch, s):
    """The initial teacher overlap normalised by the student width: ρ0 drawn at rho0_scale·p^(-s/2), so a
    fraction s of the ||ρ0||² ∝ p growth is removed (s = 1: ρ0 = σ0 G/√(pN)), in the ODE's idealised init and
    the chain's."""
    init_chain, init_ode = chain.initial_overlaps, model.idealised_init

    def chain_init(seeds, p, *args, rho0_scale=1.0, **kwargs):
        return init_chain(seeds, p, *args, rho0_scale=rho0_scale * p ** (-s / 2), **kwargs)

    def ode_init(p, p_star, N, seeds, sigma0=1.0, rho0_scale=1.0):
        return init_ode(p, p_star, N, seeds, sigma0, rho0_scale * p ** (-s / 2))

    monkeypatch.setattr(chain, "initial_overlaps", chain_init)
    monkeypatch.setattr(model, "idealised_init", ode_init)


def p_dependent_rate(monkeypatch, s):
    """dρ/dτ = −2[cρ + (2 − s)(aQρ − a*ρT)]: a fraction s/2 of the 2 on the overlap term dropped (s = 1: the
    whole 2), so the plateau's escape rate depends on p."""
    original = ode.rhs

    def rhs(rho, Q, T, a, a_star, g=0.0, Delta=0.0):
        d_rho, dQ = original(rho, Q, T, a, a_star, g, Delta)
        return d_rho + 2 * s * (a * Q @ rho - a_star * rho @ T), dQ

    monkeypatch.setattr(ode, "rhs", rhs)


def overlap_isotropic(monkeypatch, s):
    """dQ/dτ sees the overlap through its size only (a scalar closure of the overlap Gram): its ρ replaced by
    one with the same singular vectors and singular values √((1 − s)h_k² + s·mean h²), i.e. ρρᵀ → (1 − s)ρρᵀ
    + s·(||ρ||_F²/p*)·P_ρ; dρ/dτ as it is. At s = 1 the norms of all overlap directions grow with ||ρ||_F²
    alone, so ||ρ0||_F, not σ_max(ρ0), sets the escape."""
    original = ode.rhs

    def rhs(rho, Q, T, a, a_star, g=0.0, Delta=0.0):
        u, h, vt = np.linalg.svd(rho, full_matrices=False)
        h2 = (1 - s) * h**2 + s * np.mean(h**2, axis=-1, keepdims=True)
        rho_s = (u * np.sqrt(h2)[..., None, :]) @ vt
        return original(rho, Q, T, a, a_star, g, Delta)[0], original(rho_s, Q, T, a, a_star, g, Delta)[1]

    monkeypatch.setattr(ode, "rhs", rhs)


def teacher_readout_summed(monkeypatch, s):
    """The mean teacher readout a* = 1/p* replaced by p*^(s − 1) everywhere (the dynamics, the risk, the derived
    values): s = 1 is the sum teacher (a* = 1), whose escape rate 8a* no longer depends on p*."""
    original = model.readout_scales

    def scales(p, p_star, readout):
        a, a_star = original(p, p_star, readout)
        return (a, p_star ** (s - 1.0)) if readout == "mean" else (a, a_star)

    monkeypatch.setattr(model, "readout_scales", scales)


def overlap_exponent(monkeypatch, s):
    """The chain's initial teacher overlap drawn at rho0_scale·(N/1e4)^s: ρ0 ∝ N^(s − 1/2) instead of N^-1/2
    (an overlap normalised by N^(1/2 − s)), the same at N = 1e4."""
    init_chain = chain.initial_overlaps

    def chain_init(seeds, p, p_star, N, *args, rho0_scale=1.0, **kwargs):
        return init_chain(seeds, p, p_star, N, *args, rho0_scale=rho0_scale * (N / 1e4) ** s, **kwargs)

    monkeypatch.setattr(chain, "initial_overlaps", chain_init)


# quad_escape's ODE claims only: SGD at a small N with few seeds, no cross-check (its SGD rows mean nothing)
ODE_ONLY = ("model.sgd_N=[100]", "model.sgd_seeds=4", "model.full_N=0")
# quad_escape's SGD claims: the sweep as it is but the full-SGD cross-check (its own seeds and claim: the SGD
# and ODE rows are the same with or without it; the quick rows of the SGD entries were measured with it)
NO_CROSS_CHECK = ("model.full_N=0",)

# The power table's entries (scripts/power.py): name → sized mistake over its sizes.
POWER = {
    "quad_curves_eta": Entry(
        "quad_curves", "SGD at (1 + s)·η, its τ axis assuming η", lambda mp, s: sgd_with(mp, eta_factor=1 + s)
    ),
    # the SGD/ODE exit rate's registered mistake (escape.exit_tau_axis); the target 0.1 and one size above
    "quad_escape_eta": Entry(
        "quad_escape",
        "SGD at (1 + s)·η, its τ axis assuming η",
        lambda mp, s: sgd_with(mp, eta_factor=1 + s),
        sizes=(0.1, 0.2),
        overrides=NO_CROSS_CHECK,
    ),
    # the SGD ln N slope's registered mistake (escape.sgd_slope): too small a step, e.g. the dropped 2 of d(λ²)/dλ;
    # the ± 0.3 tolerance passes 0.1 (quick: 1.024, 1.006), so the sizes start above the target
    "quad_escape_eta_down": Entry(
        "quad_escape",
        "SGD at (1 − s)·η, its τ axis assuming η",
        lambda mp, s: sgd_with(mp, eta_factor=1 - s),
        sizes=(0.25, 0.5),
        overrides=NO_CROSS_CHECK,
    ),
    # a level mistake (the plateau and the p < p* limit are minima of the risk over the norms, so a wrong
    # label scale moves them by O(s²)), and one that keeps SGD and the ODE off the zero-loss manifold
    "quad_curves_sgd_labels": Entry(
        "quad_curves",
        "SGD's labels with the teacher readout a*·(1 + s), ε_g read with a*",
        lambda mp, s: sgd_with(mp, a_star_factor=1 + s),
        sizes=(0.02, 0.05, 0.1, 0.2, 0.3),
    ),
    "quad_curves_ode_labels": Entry(
        "quad_curves",
        "the ODE's drift with the teacher readout a*·(1 + s), ε_g read with a*",
        lambda mp, s: ode_with(mp, a_star_factor=1 + s),
        sizes=(0.02, 0.05, 0.1),
    ),
    # bocchi.init's 'learns' (SGD and ODE both): the run reaches the minimum of another risk, not the floor
    "quad_norms_labels": Entry(
        "quad_norms",
        "the teacher readout a*·(1 + s) in SGD's labels and the ODE's drift, ε_g read with a*",
        lambda mp, s: trained_with_teacher(mp, 1 + s),
        sizes=(0.05, 0.1, 0.2),
    ),
    # bocchi.norms/overlaps: |ρ| during norm learning follows ρ0's N-exponent
    "quad_norms_overlap_exponent": Entry(
        "quad_norms",
        "SGD's initial overlap ρ0 ∝ N^(s − 1/2) (drawn at rho0_scale·(N/1e4)^s)",
        overlap_exponent,
        sizes=(0.05, 0.1, 0.2, 0.3),
    ),
    # the same at p = 2, 3 only and s = 0.3: paper seed 0 left (2, 3) and (3, 2) inconclusive at 0.2 (the others
    # fail from 0.2); p = 8, the costly cells, already failed there
    "quad_norms_overlap_exponent_p23": Entry(
        "quad_norms",
        "SGD's initial overlap ρ0 ∝ N^(s − 1/2) (drawn at rho0_scale·(N/1e4)^s)",
        overlap_exponent,
        sizes=(0.3,),
        overrides=("model.p=2,3",),
    ),
    # quad_hessian: the reached minima's zero modes move off zero when training fits another teacher scale:
    # over-shoot (1 + s) lifts the rotations and the surplus modes, under-shoot (1 − s) pushes them below
    # zero (c < 0), the one a marginal-minimum count can see; the saddle's source, the Hessian's teacher term
    "quad_hessian_teacher_over": Entry(
        "quad_hessian",
        "training (SGD's labels, the ODE's drift) with the teacher readout a*·(1 + s), the Hessian with a*",
        lambda mp, s: trained_with_teacher(mp, 1 + s),
        sizes=(0.02, 0.05, 0.1, 0.2),
    ),
    "quad_hessian_teacher_under": Entry(
        "quad_hessian",
        "training (SGD's labels, the ODE's drift) with the teacher readout a*·(1 − s), the Hessian with a*",
        lambda mp, s: trained_with_teacher(mp, 1 - s),
        sizes=(0.02, 0.05, 0.1, 0.2, 0.3),
    ),
    # bocchi.manifold/isolated: the strict minimum at p = p* = 1 (gap 4aa*) closes only at s ≈ 0.63
    "quad_hessian_teacher_under_isolated": Entry(
        "quad_hessian",
        "training (SGD's labels, the ODE's drift) with the teacher readout a*·(1 − s), the Hessian with a*",
        lambda mp, s: trained_with_teacher(mp, 1 - s),
        sizes=(0.25, 0.6, 0.65, 0.7),
        overrides=("model.p=1", "model.p_star=1"),
    ),
    "quad_implicit_bias_reference": Entry(
        "quad_implicit_bias",
        "SGD's reference solution another one than s·polar(ρ0), at a relative distance s along the manifold",
        reference_moved,
        sizes=(0.05, 0.1, 0.2, 0.25, 0.3),
    ),
    "quad_hessian_hessian_teacher": Entry(
        "quad_hessian",
        "the Hessian taken with the teacher readout a*·(1 − s) at the states training reaches",
        lambda mp, s: hessian_with(mp, a_star_factor=1 - s),
        sizes=(0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5),
    ),
    # bocchi.escape_moderate/faster (the ODE's claims: ODE_ONLY)
    "quad_escape_overlap_width": Entry(
        "quad_escape",
        "ρ0 at rho0_scale·p^(-s/2): a fraction s of the ||ρ0||² ∝ p growth removed (ODE claims only)",
        overlap_per_width,
        sizes=(0.25, 0.5, 1.0),
        overrides=ODE_ONLY,
    ),
    # bocchi.escape_sigma_max/alternatives (the ODE's claims: ODE_ONLY)
    "quad_escape_overlap_isotropic": Entry(
        "quad_escape",
        "dQ/dτ with ρρᵀ → (1 − s)ρρᵀ + s·(‖ρ‖_F²/p*)·P_ρ: the overlap's size, not σ_max, sets the escape (ODE claims only)",
        overlap_isotropic,
        sizes=(0.1, 0.25, 0.5, 1.0),
        overrides=ODE_ONLY,
    ),
    # bocchi.time_scale/set_by_p_star (the ODE's claims: ODE_ONLY)
    "quad_escape_teacher_sum": Entry(
        "quad_escape",
        "the teacher readout a* = p*^(s − 1) instead of 1/p* (s = 1: a sum teacher; ODE claims only)",
        teacher_readout_summed,
        sizes=(0.25, 0.5, 0.75, 1.0),
        overrides=ODE_ONLY,
    ),
    # bocchi.escape_sigma_max/contrast, bocchi.time_scale/rate (the ODE's claims: ODE_ONLY); 0.05 and 0.1 for
    # the fixed-η exit rate (escape.exit_rate_eta), the rate claim that is not an identity
    "quad_escape_rate_p": Entry(
        "quad_escape",
        "dρ/dτ with (2 − s) on (aQρ − a*ρT): an escape rate that depends on p (ODE claims only)",
        p_dependent_rate,
        sizes=(0.05, 0.1, 0.25, 0.5, 1.0),
        overrides=ODE_ONLY,
    ),
}
