"""The realistic physics mistakes of the transformer family's can-fail checks (issues 10 §5, 27), one
place for the tests (`test_claims_can_fail.py`) and the command-line runner
(`scripts/mutations.py`).  Each takes a `pytest.MonkeyPatch` and patches the numerics (the
model's scalings, a layer, the token clouds, a closed-form Λ, the Gram's projection, the tangent kernel)
or the reference.
"""

from __future__ import annotations

import torch

from mfx import runtime
from mfx.transformer import adjoint, families, model, ntk
from mfx.transformer.experiments import limit
from tests.power_entry import Entry


def rate_without_H(mp):
    """GD learning rate η·L, the head factor H of the mean-field rate η·L·H forgotten: the flow of
    an H-head network runs H times too slowly (and differently for every H)."""
    mp.setattr(model, "learning_rate", lambda eta, L, H: eta * L)


def iid_reference(mp):
    """The reference drawn as the old finite 'limit': L_ref × P fresh i.i.d. heads, not the pool at
    every layer — the finite networks are then no longer samples of the reference's law."""
    pool_net = limit._pool_net

    def wrong(cfg, L, pool, c, q0, y, rt):
        if L != cfg.model.L_ref:
            return pool_net(cfg, L, pool, c, q0, y, rt)
        m = cfg.model
        Q, K, V = model.init_params(L, m.P, m.d, [cfg.seed], stream=("iid-ref",))
        out = model.train(Q, K, V, c.X, q0, y, eta=m.eta, steps=m.steps)
        # the same i.i.d. reference for the pool and each further pool
        B = 1 + m.pools
        return {"yhat": out["yhat"].expand(-1, B, -1, -1), "loss": out["loss"].expand(-1, B)}

    mp.setattr(limit, "_pool_net", wrong)


def query_among_its_keys(mp):
    """The query token attends to the context AND to itself (it is appended to the keys): attention
    is no longer translation-covariant, so translates stop being a null direction of K_QK."""

    def wrong(A, V, X, q, scale, update_context):
        keys = torch.cat([X, q.unsqueeze(2)], dim=2)
        q_new = q + scale * model._attend(A, V, q.unsqueeze(2), keys).squeeze(2)
        if update_context:
            X = X + scale * model._attend(A, V, X, X)
        return X, q_new

    mp.setattr(model, "_layer", wrong)


def query_among_its_keys_weighted(mp, w: float):
    """`query_among_its_keys` with a size: the query appended to the keys at weight w (its softmax logit
    shifted by log w; w = 1 is the binary mistake, w → 0 the right attention), so the keys' law is the
    cloud's tilted by a point mass of relative weight w at the query."""

    def attend(A, V, Z, X, q):
        S, N, m, d = Z.shape
        H = A.shape[1]
        keys = torch.cat([X, q.unsqueeze(2)], dim=2)
        AZ = torch.einsum("shab,snmb->snahm", A, Z).reshape(S, N, d, H * m)
        logits = keys @ AZ
        logits[:, :, -1] += torch.log(torch.as_tensor(w, dtype=logits.dtype))
        P = torch.softmax(logits, dim=-2)
        M = (P.transpose(-1, -2) @ keys).reshape(S, N, H, m, d)
        return torch.einsum("shab,snhmb->snma", V, M)

    def wrong(A, V, X, q, scale, update_context):
        q_new = q + scale * attend(A, V, q.unsqueeze(2), X, q).squeeze(2)
        if update_context:
            X = X + scale * model._attend(A, V, X, X)
        return X, q_new

    mp.setattr(model, "_layer", wrong)


def head_mean_twice(mp):
    """The mean over the H heads taken twice: Σ_h V_h ∇Λ(A_h z) written as a mean over h inside the layer,
    on top of the residual scale 1/(L·H). The update is H times too small and every tangent kernel H² times
    (K_QK too: QK-only training hardly moves the loss).  (Tried first: the attention weights computed under
    no_grad, so that Q and K get no gradient at all — K_QK = 0 then crashes the run's step schedule,
    η ∝ 1/λ_max(K_QK), before any claim is evaluated.)"""
    attend = model._attend
    mp.setattr(model, "_attend", lambda A, V, Z, X: attend(A, V, Z, X) / A.shape[1])


def whitened_clouds(mp):
    """Every token cloud rescaled to unit variance before attention (a per-input normalisation):
    members that differ by scale (cube radii, Laplace covariances) become two samples of one law."""
    clouds = families.clouds

    def wrong(*args, **kwargs):
        c = clouds(*args, **kwargs)
        c.X = c.X / c.X.std(dim=(1, 2), keepdim=True)
        return c

    mp.setattr(families, "clouds", wrong)


def gmm_without_separation(mp):
    """Λ of the two-Gaussian mixture written with the unit mean e_1 for every member (the separation
    p dropped from m = p·e_1): all gmm2 members share one Λ."""
    log_mgf = families.log_mgf

    def wrong(family, p, z, **kwargs):
        return log_mgf(family, 1.0 if family == "gmm2" else p, z, **kwargs)

    mp.setattr(families, "log_mgf", wrong)


def gmm_separation_shrunk(mp, a: float):
    """`gmm_without_separation` with a size: the 2-GMM separation p written as p^(1−a) in its Λ (a = 1 is the
    binary mistake, every member at p = 1): the members' separations pulled together."""
    log_mgf = families.log_mgf

    def wrong(family, p, z, **kwargs):
        return log_mgf(family, p ** (1 - a) if family == "gmm2" else p, z, **kwargs)

    mp.setattr(families, "log_mgf", wrong)


def modulo_constants(mp):
    """The Gram taken modulo constants only (column means removed, not the affine part): the V-block
    condition in place of the paper's QK condition, so translates look independent."""
    mp.setattr(ntk, "affine_residual", lambda F, z: F - F.mean(0, keepdim=True))


def no_training(mp, factor=1e-9):
    """GD learning rate η·L·H × 1e-9: the networks barely move, and E1 measures the discretisation and
    sampling errors of untrained networks."""
    lr = model.learning_rate
    mp.setattr(model, "learning_rate", lambda eta, L, H: factor * lr(eta, L, H))


def kernel_scaled(mp, factor):
    """The tangent kernel off by a constant factor (a wrong prefactor of K = L·H·J Jᵀ, e.g. the L·H of
    the flow-time convention dropped or doubled): every λ it reports, and the GD step taken from λ_max."""
    blocks = ntk.ntk_blocks
    mp.setattr(ntk, "ntk_blocks", lambda *a, **k: {b: factor * G for b, G in blocks(*a, **k).items()})


def values_centred_on_the_cloud(mp):
    """The values taken relative to the context's mean (a mean subtraction before attention, as in a
    LayerNorm without its scale): the V features ∇Λ_i − mean_i no longer see a translation, so the V
    block of a translate pair is null while the Λ_i stay independent modulo constants."""
    attend = model._attend
    mp.setattr(model, "_attend", lambda A, V, Z, X: attend(A, V, Z, X - X.mean(-2, keepdim=True)))


def one_stream_per_member(mp):
    """Every member's atoms drawn from a generator re-seeded with one seed (the stream not advanced
    between members): the i.i.d. samples are copies of one another."""
    sample = families.sample
    mp.setattr(
        families,
        "sample",
        lambda family, p, n, d, generator, **kw: sample(
            family, p, n, d, torch.Generator().manual_seed(0), **kw
        ),
    )


def one_stream_per_member_in_a_share(mp, s: float):
    """`one_stream_per_member` on a share s of the discrete family's draws (s = 1: every draw): a draw's N samples
    are copies of one (its stream keyed without the member index, e.g. for the draws where a seed table wraps
    round), so its Gram is exactly singular.  Which draws: a uniform read off a copy of the draw's own generator,
    so a cloud and its Grams at every σ_z agree and the draws hit are a Bernoulli(s) share."""
    clouds = families.clouds

    def wrong(dist, params, n, d, generator, **kw):
        if dist == "iid" and kw.get("base") == "discrete":
            probe = torch.Generator().set_state(generator.get_state())
            if float(torch.rand(1, generator=probe, dtype=torch.float64)) < s:
                dist = "duplicates"
        return clouds(dist, params, n, d, generator, **kw)

    mp.setattr(families, "clouds", wrong)


def adjoint_without_interaction(mp):
    """The adjoint of a ResNet (neural ODE) in place of the neural PDE's: only the query's sensitivity is
    carried back, the context tokens' adjoints (the interaction / Lions-derivative term) dropped."""
    vjp = adjoint.state_vjp

    def wrong(c, s, Z, a, beta):
        out = vjp(c, s, Z, a, beta)
        return torch.cat([out[:, :1], torch.zeros_like(out[:, 1:])], dim=1)

    mp.setattr(adjoint, "state_vjp", wrong)


def adjoint_interaction_scaled(mp, factor: float):
    """The adjoint's interaction (Lions-derivative) term scaled by `factor`: the context tokens' adjoints
    carried back with a wrong weight (1 − ε of the neural PDE's; 0 is `adjoint_without_interaction`)."""
    vjp = adjoint.state_vjp

    def wrong(c, s, Z, a, beta):
        out = vjp(c, s, Z, a, beta)
        return torch.cat([out[:, :1], factor * out[:, 1:]], dim=1)

    mp.setattr(adjoint, "state_vjp", wrong)


def residual_scale_without_H(mp):
    """The residual scale 1/L, the mean over the H heads forgotten: the finite network sums its heads."""
    mp.setattr(model, "residual_scale", lambda L, H: 1.0 / L)


def residual_scale_scaled(mp, factor: float):
    """The residual scale factor/(L·H) (an Euler step of the wrong length, e.g. 1/(L − 1)): the network
    integrates its depth ODE to depth `factor`, an offset that does not vanish as L grows."""
    mp.setattr(model, "residual_scale", lambda L, H: factor / (L * H))


def residual_scale_H_power(mp, a: float):
    """The residual scale 1/(L·H^(1−a)): the head mean partly a sum, the velocity H^a too large."""
    mp.setattr(model, "residual_scale", lambda L, H: 1.0 / (L * H ** (1 - a)))


def residual_scale_L_power(mp, a: float):
    """The residual scale 1/(L^(1−a)·H): the depth step partly missing, the scheme runs to depth L^a."""
    mp.setattr(model, "residual_scale", lambda L, H: 1.0 / (L ** (1 - a) * H))


def learning_rate_eta_power(mp, a: float, eta0: float = 0.05):
    """GD learning rate η·L·H·(η/η_0)^a: a step-size-dependent rate, so GD at η runs to flow time
    T·(η/η_0)^a and the curves of different η are not one curve."""
    mp.setattr(model, "learning_rate", lambda eta, L, H: eta * L * H * (eta / eta0) ** a)


def learning_rate_H_power(mp, a: float):
    """GD learning rate η·L·H^(1−a): the head factor partly forgotten, each H's flow H^a too slow."""
    mp.setattr(model, "learning_rate", lambda eta, L, H: eta * L * H ** (1 - a))


def learning_rate_L_power(mp, a: float):
    """GD learning rate η·L^(1−a)·H: the depth factor partly forgotten, each L's flow L^a too slow — the
    network at depth L and the reference at L_ref then run to different flow times, (L_ref/L)^a apart."""
    mp.setattr(model, "learning_rate", lambda eta, L, H: eta * L ** (1 - a) * H)


def step_decaying(mp, s: float):
    """The GD step decaying linearly over the run to (1 − s)·η·L·H at its last step (a learning-rate schedule
    left on): GD no longer runs the flow at a constant speed, so the late rate of R falls along the run.
    model.train computes its lr once and multiplies it into every update (`p -= lr * g`): the lr becomes a number
    that reads the current step k of the "GD steps" loop (and its length K) from the loop's progress bar."""
    progress, lr = runtime.progress, model.learning_rate
    at = {"k": 0, "K": 1}

    def counting(iterable=None, **kw):
        if kw.get("desc") != "GD steps":
            return progress(iterable, **kw)
        at["K"] = max(len(iterable) - 1, 1)

        def steps():
            for k in progress(iterable, **kw):
                at["k"] = k
                yield k

        return steps()

    class Decaying(float):
        def __mul__(self, g):
            return float(self) * (1 - s * at["k"] / at["K"]) * g

        __rmul__ = __mul__

    mp.setattr(runtime, "progress", counting)
    mp.setattr(model, "learning_rate", lambda eta, L, H: Decaying(lr(eta, L, H)))


def weight_decay(mp, s: float):
    """A weight decay left on in GD: p ← p − lr·(g + s·p/(L·H)), i.e. the flow dθ/dt = −L·H·∇R − s·θ of R plus
    the mean-field ridge (s/2)·∫|θ|² dρ, s per unit flow time.  GD then converges to the minimiser of the
    regularised objective, where R > 0 (the ridge's pull balances the fit), not to a global minimum of R.
    model.train computes its lr once and multiplies it into every update (`p -= lr * g`, the trained
    parameters in the order Q, K, V): the lr becomes a number that adds s·p/(L·H) to each g, p read from the
    step's forward pass (the only one with parameters that require grad: ntk.py has its own `forward`)."""
    forward, lr = model.forward, model.learning_rate
    live = {"params": [], "next": 0}

    def seeing(Q, K, V, *a, **kw):
        if torch.is_grad_enabled() and any(p.requires_grad for p in (Q, K, V)):
            live["params"], live["next"] = [p for p in (Q, K, V) if p.requires_grad], 0
        return forward(Q, K, V, *a, **kw)

    class Decaying(float):
        def __new__(cls, value, L, H):
            out = super().__new__(cls, value)
            out.ridge = s / (L * H)
            return out

        def __mul__(self, g):
            if not isinstance(g, torch.Tensor):
                return float(self) * g
            p = live["params"][live["next"]]
            live["next"] += 1
            return float(self) * (g + self.ridge * p)

        __rmul__ = __mul__

    mp.setattr(model, "forward", seeing)
    mp.setattr(model, "learning_rate", lambda eta, L, H: Decaying(lr(eta, L, H), L, H))


def heads_shared_across_layers(mp):
    """One draw of H heads used at every layer (the L layers' parameters drawn once and repeated): the
    network's kernel is an average over H heads, not L·H, so it converges to K_∞ only as H^(−1/2)."""
    init = model.init_params

    def wrong(L, H, d, seeds, **kw):
        return tuple(p.expand(-1, L, -1, -1, -1).contiguous() for p in init(1, H, d, seeds, **kw))

    mp.setattr(model, "init_params", wrong)


def kernel_without_LH(mp):
    """The tangent kernel as J Jᵀ, the L·H factor of K = L·H·J Jᵀ (flow time t = k·η) dropped: it scales as
    1/(L·H) and tends to 0, not to the limit's kernel."""
    blocks = ntk.ntk_blocks

    def wrong(Q, K, V, *a, **k):
        return {b: G / (Q.shape[1] * Q.shape[2]) for b, G in blocks(Q, K, V, *a, **k).items()}

    mp.setattr(ntk, "ntk_blocks", wrong)


# name → mistake (with its arguments fixed), for the command-line runner
MUTATIONS = {
    "heads_shared_across_layers": heads_shared_across_layers,
    "kernel_without_LH": kernel_without_LH,
    "kernel_x1.1": lambda mp: kernel_scaled(mp, 1.1),
    "rate_without_H": rate_without_H,
    "iid_reference": iid_reference,
    "query_among_its_keys": query_among_its_keys,
    "head_mean_twice": head_mean_twice,
    "whitened_clouds": whitened_clouds,
    "gmm_without_separation": gmm_without_separation,
    "modulo_constants": modulo_constants,
    "no_training": no_training,
    "kernel_x1.3": lambda mp: kernel_scaled(mp, 1.3),
    "kernel_div1.3": lambda mp: kernel_scaled(mp, 1 / 1.3),
    "values_centred_on_the_cloud": values_centred_on_the_cloud,
    "one_stream_per_member": one_stream_per_member,
    "adjoint_without_interaction": adjoint_without_interaction,
    **{
        f"adjoint_interaction_x{f}": (lambda mp, f=f: adjoint_interaction_scaled(mp, f))
        for f in (0.99, 0.98, 0.95, 0.9, 0.75)
    },
    "residual_scale_without_H": residual_scale_without_H,
    **{
        f"residual_scale_x{f}": (lambda mp, f=f: residual_scale_scaled(mp, f))
        for f in (1.01, 1.02, 1.05, 1.1)
    },
    **{
        f"residual_scale_H_power{a}": (lambda mp, a=a: residual_scale_H_power(mp, a))
        for a in (0.05, 0.1, 0.25)
    },
    **{
        f"residual_scale_L_power{a}": (lambda mp, a=a: residual_scale_L_power(mp, a))
        for a in (0.05, 0.1, 0.25)
    },
    **{
        f"learning_rate_eta_power{a}": (lambda mp, a=a: learning_rate_eta_power(mp, a))
        for a in (0.05, 0.1, 0.25)
    },
    **{
        f"learning_rate_H_power{a}": (lambda mp, a=a: learning_rate_H_power(mp, a))
        for a in (0.05, 0.1, 0.25, 0.5, 1.0)
    },
    **{
        f"learning_rate_L_power{a}": (lambda mp, a=a: learning_rate_L_power(mp, a))
        for a in (0.05, 0.1, 0.25, 0.5)
    },
}


# The adjoint's own series shrunk (one draw, 2 seeds, H = P, 4P), at both scales
ADJOINT_SHRUNK = ("model.draws=1", "model.seeds=2", "grids.quick.rs=[1,4]", "grids.paper.rs=[1,4]")
# and the paper gradient-flow series (4 pairs, 3 steps η) where only the forward pass's rows are read
WP_ONLY = (*ADJOINT_SHRUNK, "grids.paper.gf.pairs=4", "grids.paper.gf.etas=[0.2,0.1,0.05]")
# and the forward pass's grid (2 × 2, 2 seeds) where only the gradient-flow series' rows are read
GF_ONLY = (
    *ADJOINT_SHRUNK,
    *(f"grids.{sc}.wp.{k}" for sc in ("quick", "paper") for k in ("Hs=[16,64]", "Ls=[8,16]", "seeds=2")),
)

# The power table's entries (scripts/power.py): name → sized mistake over its sizes.
POWER = {
    "transformer_kernel": Entry(
        "transformer_convergence", "tangent kernel × (1 + s)", lambda mp, s: kernel_scaled(mp, 1 + s)
    ),
    "transformer_adjoint_interaction": Entry(
        "transformer_adjoint",
        "adjoint's interaction term × (1 − s)",
        lambda mp, s: adjoint_interaction_scaled(mp, 1 - s),
    ),
    "transformer_residual_scale": Entry(
        "transformer_adjoint",
        "residual scale (1 + s)/(L·H): an Euler step of the wrong length",
        lambda mp, s: residual_scale_scaled(mp, 1 + s),
        (0.01, 0.02, 0.05, 0.1),
    ),
    # the joint-limit claim on the 3 × 3 grid L = 16, 8, 4 (paper 32, 16, 8), H = 64, 16, 4 (its diagonal ends
    # at the full grid's (16, 64), paper (32, 64), with the same seeds), without the further pools (they feed
    # the exponents' u only)
    "transformer_limit_residual_L": Entry(
        "transformer_limit",
        "residual scale 1/(L^(1−s)·H) (the depth step partly missing): the network at L and the reference at "
        "L_ref integrate to depths (L_ref/L)^s apart",
        lambda mp, s: residual_scale_L_power(mp, s),
        (0.05, 0.1, 0.25),
        (
            'grids.quick.L="16,8,4"',
            'grids.quick.H="64,16,4"',
            "grids.quick.pools=0",
            'grids.paper.L="32,16,8"',
            'grids.paper.H="64,16,4"',
            "grids.paper.pools=0",
            "model.pool_width=0",
        ),
    ),
    # the well-posedness rows of transformer_adjoint with the adjoint's own series shrunk (they depend only
    # on draw 0's clouds: tests/transformer/test_claims_can_fail.py FAST), and at paper the gradient-flow
    # series too (other claims' rows: the forward pass's depend on neither)
    "transformer_wp_head_power": Entry(
        "transformer_adjoint",
        "residual scale 1/(L·H^(1−s)) (the head mean partly a sum): the velocity H^s too large",
        lambda mp, s: residual_scale_H_power(mp, s),
        (0.1, 0.25, 0.5),
        WP_ONLY,
    ),
    "transformer_wp_depth_power": Entry(
        "transformer_adjoint",
        "residual scale 1/(L^(1−s)·H) (the depth step partly missing): the scheme integrates to depth L^s",
        lambda mp, s: residual_scale_L_power(mp, s),
        (0.05, 0.1, 0.25),
        WP_ONLY,
    ),
    "transformer_gf_lr_H": Entry(
        "transformer_adjoint",
        "GD learning rate η·L·H^(1−s) (the head factor partly forgotten): each H's flow H^s too slow",
        lambda mp, s: learning_rate_H_power(mp, s),
        (0.05, 0.1, 0.25, 0.5, 1.0),
        GF_ONLY,
    ),
    # the step-refinement rows of the gradient-flow series: the two samplings' pairs shrunk too
    "transformer_gf_eta_power": Entry(
        "transformer_adjoint",
        "GD learning rate η·L·H·(η/η_0)^s (a step-size-dependent rate): GD at η runs to flow time T·(η/η_0)^s",
        lambda mp, s: learning_rate_eta_power(mp, s),
        (0.05, 0.1),
        (*GF_ONLY, "grids.quick.gf.pairs=2", "grids.paper.gf.pairs=2"),
    ),
    "transformer_global_min_lr_H": Entry(
        "transformer_convergence",
        "GD learning rate η·L·H^(1−s) (the head factor partly forgotten): the flow H^s too slow",
        lambda mp, s: learning_rate_H_power(mp, s),
        (0.1, 0.15, 0.25, 0.5, 1.0),
        ("model.case=injective",),
    ),
    # the global-minimum claim's mistake: GD converging to a minimiser of another objective (was the learning
    # rate η·L·H^(1−s), transformer_global_min_lr_H: a slower flow still reaches the global minimum)
    "transformer_global_min_weight_decay": Entry(
        "transformer_convergence",
        "a weight decay s per unit flow time left on in GD (the ridge (s/2)·∫|θ|² dρ added to R)",
        lambda mp, s: weight_decay(mp, s),
        (0.001, 0.01, 0.1),
        ("model.case=injective",),
    ),
    "transformer_step_decay": Entry(
        "transformer_convergence",
        "the GD step decaying linearly over the run to (1 − s)·η·L·H (a learning-rate schedule left on)",
        lambda mp, s: step_decaying(mp, s),
        (0.05, 0.1, 0.25),
        ("model.case=injective",),
    ),
    # the block table on the test's sub-grid (tests/transformer/test_claims_can_fail.py)
    "transformer_block_query_key": Entry(
        "transformer_ntk",
        "the query among its own keys at weight s (s = 1: the binary mistake); dist translates, cube, n = 64",
        lambda mp, s: query_among_its_keys_weighted(mp, s),
        (0.001, 0.01, 0.1, 0.25),
        ("model.dist=translates,cube", "model.ns=[64]"),
    ),
    # the discrete family's rows only (its job: d = 2 at quick, 1, 2, 3 at paper), the NTK section at one n
    "transformer_discrete_shared_stream": Entry(
        "transformer_ntk",
        "a share s of the discrete draws with one random stream for every member (their samples copies of one)",
        lambda mp, s: one_stream_per_member_in_a_share(mp, s),
        (0.05, 0.1, 0.25),
        ("model.dist=discrete", "model.ns=[64]"),
    ),
    "transformer_gmm_separation": Entry(
        "transformer_ntk",
        "the 2-GMM separation p written as p^(1−s) in its Λ (s = 1: dropped); dist gmm2",
        lambda mp, s: gmm_separation_shrunk(mp, s),
        (0.02, 0.05, 0.1, 0.25, 0.5, 0.9, 0.99),
        ("model.dist=gmm2",),
    ),
}
