"""One full-batch GD step of the mean-field transformer: batched einsum/bmm over seeds and heads vs a
per-seed, per-head Python loop with autograd (issue 5: L = 8, H = 16, n = 32, d = 2, 8 distributions,
4 seeds, one thread; target ≥ 3×)."""

from __future__ import annotations

import torch

from mfx import bench, runtime
from mfx.transformer import families, model

L, H, n, d, N, S, ETA = 8, 16, 32, 2, 8, 4, 0.05


def _step(forward, params, X, q0, y):
    def step():
        ps = [p.detach().requires_grad_(True) for p in params]
        R = model.loss(forward(*ps, X, q0), y).sum()
        grads = torch.autograd.grad(R, ps)
        with torch.no_grad():
            return [p - ETA * L * H * g for p, g in zip(ps, grads)]

    return step


def run() -> list[bench.Result]:
    torch.set_num_threads(1)
    c = families.clouds("cube", [0.5 + 0.25 * i for i in range(N)], n, d, runtime.generator(0, "bench"))
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    y = torch.randn(N, d, generator=runtime.generator(1, "bench"), dtype=torch.float64)
    params = model.init_params(L, H, d, list(range(S)))
    fast = _step(model.forward, params, c.X, q0, y)
    slow = _step(model.forward_loop, params, c.X, q0, y)
    for a, b in zip(fast(), slow()):  # same step, or the ratio means nothing
        assert torch.allclose(a, b, atol=1e-12)
    return [
        bench.compare(
            f"transformer GD step L={L} H={H} n={n} d={d} N={N} S={S}",
            fast,
            slow,
            repeat=3,
            target=3.0,
            note="batched vs per-seed/per-head loop, 1 thread",
        )
    ]


if __name__ == "__main__":
    print(bench.table(run()))
