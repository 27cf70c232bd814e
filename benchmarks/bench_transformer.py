"""The mean-field transformer's full-batch GD step (forward, loss, autograd backward, update).

1. Batched einsum/bmm over seeds and heads vs a per-seed, per-head Python loop with autograd (issue 5:
   L = 8, H = 16, n = 32, d = 2, 8 distributions, 4 seeds, one thread; target ≥ 3×).
2. Against its limit (issue 40 §3), at E1's costliest cell (transformer_limit: L = 16, H = 64, 16 seeds,
   N = 4 cube clouds of n = 8 tokens, d = 2, float64): the same step written with torch's fused attention
   (`scaled_dot_product_attention`: its CPU flash kernel, forward and backward), every other op as in
   `model.forward` (the two give the same outputs, checked), and SDPA's forward/backward alone on
   queries, keys and values of those shapes; the bound is the faster.  Target: mfx's step ≤ 1.5× it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from mfx import bench, runtime
from mfx.transformer import families, model

L, H, n, d, N, S, ETA = 8, 16, 32, 2, 8, 4, 0.05
E1 = {
    "L": 16,
    "H": 64,
    "n": 8,
    "S": 16,
    "radii": [0.5, 1.0, 1.5, 2.0],
}  # conf/experiment/transformer_limit.yaml


def _step(forward, params, X, q0, y):
    def step():
        ps = [p.detach().requires_grad_(True) for p in params]
        R = model.loss(forward(*ps, X, q0), y).sum()
        grads = torch.autograd.grad(R, ps)
        with torch.no_grad():
            Lp, Hp = ps[0].shape[1:3]
            return [p - ETA * Lp * Hp * g for p, g in zip(ps, grads)]

    return step


def forward_sdpa(Q, K, V, X, q0, *, beta: float = 1.0):
    """`model.forward` (query readout) with each layer's attention as one fused call.

    The logits of head h are ⟨A_h z, x_j⟩ (A_h = β K_hᵀ Q_h), so SDPA's queries are A_h z, its keys and
    values the context tokens x_j (shared by the heads), its scale 1; V_h acts on its output."""
    S_, L_, H_, d_, _ = Q.shape
    N_, n_ = X.shape[-3:-1]
    X = X.expand(S_, N_, n_, d_)
    q = q0.to(X).expand(S_, N_, d_)
    scale = model.residual_scale(L_, H_)
    A = beta * torch.einsum("slhka,slhkb->slhab", K, Q)
    for l, (A_l, V_l) in enumerate(zip(A.unbind(1), V.unbind(1))):
        Z = torch.cat([q.unsqueeze(2), X], 2) if l < L_ - 1 else q.unsqueeze(2)  # the query, then the context
        m = Z.shape[2]
        AZ = torch.einsum("shab,snmb->snhma", A_l, Z).reshape(S_ * N_, H_, m, d_)
        keys = X.unsqueeze(2).expand(S_, N_, H_, n_, d_).reshape(S_ * N_, H_, n_, d_)
        M = F.scaled_dot_product_attention(AZ, keys, keys, scale=1.0).reshape(S_, N_, H_, m, d_)
        dZ = torch.einsum("shab,snhmb->snma", V_l, M)
        q = q + scale * dZ[:, :, 0]
        if l < L_ - 1:
            X = X + scale * dZ[:, :, 1:]
    return q


def _vs_loop() -> bench.Result:
    c = families.clouds("cube", [0.5 + 0.25 * i for i in range(N)], n, d, runtime.generator(0, "bench"))
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    y = torch.randn(N, d, generator=runtime.generator(1, "bench"), dtype=torch.float64)
    params = model.init_params(L, H, d, list(range(S)))
    fast = _step(model.forward, params, c.X, q0, y)
    slow = _step(model.forward_loop, params, c.X, q0, y)
    for a, b in zip(fast(), slow()):  # same step, or the ratio means nothing
        assert torch.allclose(a, b, atol=1e-12)
    return bench.compare(
        f"transformer GD step L={L} H={H} n={n} d={d} N={N} S={S}",
        fast,
        slow,
        repeat=3,
        target=3.0,
        note="batched vs per-seed/per-head loop, 1 thread",
    )


def e1_problem():
    """E1's costliest cell: params (Q, K, V) [16, 16, 64, 2, 2], clouds X [4, 8, 2], q0, targets y [4, 2]."""
    c = families.clouds("cube", E1["radii"], E1["n"], 2, runtime.generator(0, "bench"))
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    y = q0 + torch.randn(len(E1["radii"]), 2, generator=runtime.generator(1, "bench"), dtype=torch.float64)
    return model.init_params(E1["L"], E1["H"], 2, list(range(E1["S"]))), c.X, q0, y


def _attention_core(params, X):
    """Only the fused attention of the step: forward and backward of one SDPA call per layer, on queries,
    keys and values of the shapes `forward_sdpa` feeds it (all layers, the last with the query alone)."""
    S_, L_, H_, d_, _ = params[0].shape
    N_, n_ = X.shape[-3:-1]
    gen = runtime.generator(2, "bench")
    draw = lambda m: torch.randn(S_ * N_, H_, m, d_, generator=gen, dtype=torch.float64)
    qs = [draw(n_ + 1 if l < L_ - 1 else 1) for l in range(L_)]
    ks = [draw(n_) for _ in range(L_)]

    def core():
        q = [t.detach().requires_grad_(True) for t in qs]
        k = [t.detach().requires_grad_(True) for t in ks]
        out = sum(F.scaled_dot_product_attention(a, b, b, scale=1.0).sum() for a, b in zip(q, k))
        return torch.autograd.grad(out, q + k)

    return core


def _vs_fused() -> bench.Result:
    params, X, q0, y = e1_problem()
    ours, fused = _step(model.forward, params, X, q0, y), _step(forward_sdpa, params, X, q0, y)
    for a, b in zip(ours(), fused()):  # the same step, or the ratio means nothing
        assert torch.allclose(a, b, rtol=1e-9, atol=1e-12)
    t = bench.interleaved({"mfx": ours, "step": fused, "core": _attention_core(params, X)}, rounds=7)
    # the bound is the faster of the two fused variants: the whole step with SDPA in place of
    # `_attend`, and SDPA's forward/backward alone (everything else of mfx's step counts against it)
    return bench.against_limit(
        f"transformer: E1 GD step L={E1['L']} H={E1['H']} n={E1['n']} S={E1['S']} vs fused SDPA",
        t["mfx"],
        min(t["step"], t["core"]),
        at_most=1.5,
        note=f"N=4, d=2, float64, 1 thread; SDPA step {t['step']:.3g} s, SDPA fwd/bwd alone {t['core']:.3g} s",
    )


def run() -> list[bench.Result]:
    torch.set_num_threads(1)
    return [_vs_loop(), _vs_fused()]


if __name__ == "__main__":
    print(bench.table(run()))
