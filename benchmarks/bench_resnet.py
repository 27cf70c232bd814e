"""ResNet family: one batched GD step vs a per-rep autograd loop; linear cost in depth L."""

from __future__ import annotations

import torch

from mfx import bench
from mfx.resnet import draws, model

SEEDS = list(range(8))


def _problem(L, M=16, D=16, N=10):
    X, Y, W_E, W_U = draws.data(SEEDS, N, 5, 5, D)
    U, V = draws.units(SEEDS, L, M, D)
    return W_E, W_U, U, V, X, Y


def _per_rep_autograd_step(W_E, W_U, U, V, X, Y):
    """The usual research-code step: loop over reps, index U[l] in the layer loop, autograd."""
    for s in range(U.shape[0]):
        u, v = U[s].clone().requires_grad_(), V[s].clone().requires_grad_()
        L, M, D = u.shape
        h = X[s] @ W_E[s].T
        for l in range(L):
            h = h + torch.tanh(h @ u[l].T / D) @ v[l] / (L * M)
        f = h @ W_U[s] / D
        loss = 0.5 * ((f - Y[s]) ** 2).sum() / Y[s].numel()
        gu, gv = torch.autograd.grad(loss, (u, v))
        with torch.no_grad():
            U[s] -= L * M * D * gu
            V[s] -= L * M * D * gv


def run() -> list[bench.Result]:
    torch.set_num_threads(1)
    args = _problem(256)
    step = bench.compare(
        "resnet: GD step L=256 M=16 D=16 N=10, 8 reps (vs per-rep autograd)",
        lambda: model.gd_step(*args),
        lambda: _per_rep_autograd_step(*args),
        repeat=5,
        target=5.0,
    )
    long = _problem(1024)
    t_short = bench.median_time(lambda: model.gd_step(*args), repeat=5)
    t_long = bench.median_time(lambda: model.gd_step(*long), repeat=3)
    depth = bench.Result(
        "resnet: step time 4×t(L=256) / t(L=1024)",
        fast_s=t_long,
        baseline_s=4 * t_short,
        target=4 / 4.5,
        note=f"t(1024)/t(256) = {t_long / t_short:.2f} (linear in L: ≤ 4.5)",
    )
    return [step, depth]


if __name__ == "__main__":
    print(bench.table(run()))
