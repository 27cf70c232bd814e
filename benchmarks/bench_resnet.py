"""ResNet family: mfx's batched GD step against the plain numpy loop a researcher writes.

Baselines, both run on the same 8 reps (one after another) in this process:
  * `numpy_gd_step`: numpy, float64, one rep at a time, a loop over layers, the backward pass
    written by hand from the formulas of `mfx.resnet.model` (tests/resnet/test_model.py checks
    that it gives mfx's step to 1e-12);
  * `_per_rep_autograd_step`: the same loop in torch with autograd.
mfx runs in float64 and in float32 against the float64 numpy baseline.  The two sides of a ratio
are timed alternately, round after round, and the medians are compared, so a load that comes and
goes on the machine hits both; the clock is this process's CPU time (single-threaded code: the
wall time of an idle machine), so that the time spent descheduled on a shared machine, which
lands on a 10 ms call or misses it by chance, counts against neither side.  Each turn takes two
steps in a row and times the second (`IN_A_ROW`), as training runs K steps back to back on the same
arrays: a step timed right after the other side ran starts with its 12 MiB (L = 256, float64) out of
the caches, which costs the compiled step ≈ 25 % and the Python-bound numpy loop ≈ 0; that cold
ratio is printed beside the target row.  Cost linear in depth:
t(L = 1024) / t(L = 256) ≤ 4.5, and the memory of a step (numpy buffers, measured by tracemalloc)
likewise.

Against its limit (issue 40 §3): the step's achieved GFLOP/s against the machine's GFLOP/s on GEMMs of
the step's own shapes (`gemm_flops`, `_gemm_bound`); target ≥ 50 %, i.e. the step ≤ 2× its GEMMs.
"""

from __future__ import annotations

import tracemalloc

import numba
import numpy as np
import torch

from mfx import bench
from mfx.resnet import draws, model

SEEDS = list(range(8))


def _problem(L, M=16, D=16, N=10, dtype=torch.float64):
    X, Y, W_E, W_U = draws.data(SEEDS, N, 5, 5, D, dtype=dtype)
    U, V = draws.units(SEEDS, L, M, D, dtype=dtype)
    return W_E, W_U, U, V, X, Y


def numpy_gd_step(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0):
    """One GD step of every rep, in place on U, V (numpy arrays, shapes of `model.gd_step`), tanh.

    Per rep: forward h_l = h_{l-1} + c tanh(h_{l-1} u_lᵀ/D) v_l keeping h_{l-1} and tanh(P_l), then
    backward with G = ∂Loss/∂h_l:  ∂v_l = c σᵀ G,  ∂P = c (G v_lᵀ) ⊙ (1 − σ²),  ∂u_l = ∂Pᵀ h_{l-1}/D,
    G ← G + ∂P u_l/D;  U −= lr ∂U, V −= lr ∂V at lr = eta·L·M·D/alpha².
    """
    S, L, M, D = U.shape
    c = alpha / (L * M)
    lr = eta * L * M * D / alpha**2
    for s in range(S):
        u, v = U[s], V[s]
        N, d_out = Y[s].shape
        h = X[s] @ W_E[s].T
        hs, sig = [], []
        for l in range(L):
            a = np.tanh(h @ u[l].T / D)
            hs.append(h)
            sig.append(a)
            h = h + c * (a @ v[l])
        f = h @ W_U[s] / D
        G = (f - Y[s]) @ W_U[s].T / (D * N * d_out)
        gu, gv = np.empty_like(u), np.empty_like(v)
        for l in range(L - 1, -1, -1):
            a = sig[l]
            gv[l] = c * (a.T @ G)
            dP = c * (G @ v[l].T) * (1 - a * a)
            gu[l] = dP.T @ hs[l] / D
            G = G + dP @ u[l] / D
        u -= lr * gu
        v -= lr * gv


def _per_rep_autograd_step(W_E, W_U, U, V, X, Y):
    """The same loop in torch with autograd (loop over reps, index U[l] in the layer loop)."""
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


interleaved = bench.interleaved
IN_A_ROW = 2  # steps per turn, the last one timed (module docstring)


def step_bytes(args) -> int:
    """Peak numpy bytes allocated by one `model.gd_step` (its buffers; torch temporaries are
    O(S·N·D) whatever L)."""
    model._WORK.key = model._WORK.arrays = None
    tracemalloc.start()
    model.gd_step(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def gemm_flops(S, L, N, M, D) -> int:
    """FLOPs of the GEMMs of one GD step, counted from the shapes: per rep and layer the forward pass
    has P = h (U_l/D)ᵀ ([N, D]·[D, M]) and σ(P) V_l ([N, M]·[M, D]); the backward pass σ(P)ᵀ G and ∂Pᵀ h
    ([M, N]·[N, D]), G V_lᵀ ([N, D]·[D, M]) and ∂P U_l ([N, M]·[M, D]): six products of 2·N·M·D
    multiply-adds each.  Not counted: the elementwise work (σ, σ', the residual and update adds,
    O(N·(M + D)) a layer) and the embedding/readout products outside the layer loop (2·N·D·(d_in + 2·d_out)
    per rep, 0.1 % at L = 256)."""
    return 12 * S * L * N * M * D


@numba.njit(cache=True, nogil=True)
def _blas_loop(a, b, out):  # one BLAS gemm per matrix, as the compiled step calls them
    for i in range(a.shape[0]):
        np.dot(a[i], b[i], out[i])


def _gemm_bound(S, L, N, M, D, dtype):
    """Two ways to run the step's GEMMs, S·L of each of its three shapes (each shape occurs twice a step,
    so a step's GEMMs take twice one call): torch.bmm over the S·L batch (one dispatch for all) and a
    compiled loop of BLAS gemm calls (what `model`'s compiled path does, without the step around it).
    A 512³ GEMM is timed beside them for the core's large-matrix peak (context, not the bound)."""
    g = torch.Generator().manual_seed(0)
    shapes = [((N, D), (D, M)), ((N, M), (M, D)), ((M, N), (N, D))]
    ops = [
        (torch.randn(S * L, *x, generator=g, dtype=dtype), torch.randn(S * L, *y, generator=g, dtype=dtype))
        for x, y in shapes
    ]
    outs = [torch.empty(S * L, x[0], y[1], dtype=dtype) for x, y in shapes]

    def bmm():
        for (a, b), o in zip(ops, outs):
            torch.bmm(a, b, out=o)

    npy = [(a.numpy(), b.numpy(), o.numpy()) for (a, b), o in zip(ops, outs)]

    def blas():
        for a, b, o in npy:
            _blas_loop(a, b, o)

    x, y = (torch.randn(512, 512, generator=g, dtype=dtype) for _ in range(2))
    return {"bmm": bmm, "blas": blas, "512³": lambda: x @ y}


def _vs_gemm(problems) -> list[bench.Result]:
    """The step's GFLOP/s against the faster way of running its own GEMMs, both timed in one loop."""
    results = []
    for short, args in problems.items():
        S, L, M, D = args[2].shape
        N = args[4].shape[1]
        flops = gemm_flops(S, L, N, M, D)
        bound = _gemm_bound(S, L, N, M, D, args[2].dtype)
        t = interleaved({"step": lambda a=args: model.gd_step(*a), **bound}, rounds=15, in_a_row=IN_A_ROW)
        gemm_s = 2 * min(t["bmm"], t["blas"])
        gf = {k: flops / (2 * t[k] if k in ("bmm", "blas") else t[k]) / 1e9 for k in t}
        gf["512³"] = 2 * 512**3 / t["512³"] / 1e9
        results.append(
            bench.against_limit(
                f"resnet: GD step L={L} GFLOP/s vs its GEMMs, {short}",
                t["step"],
                gemm_s,
                at_most=2.0,
                note=f"{flops / 1e6:.1f} MFLOP a step: step {gf['step']:.2f} GFLOP/s = "
                f"{100 * gemm_s / t['step']:.0f} % of the GEMMs' (bmm {gf['bmm']:.2f}, BLAS loop "
                f"{gf['blas']:.2f} GFLOP/s; one 512³ GEMM {gf['512³']:.1f}), target ≥ 50 %",
            )
        )
    return results


def run() -> list[bench.Result]:
    torch.set_num_threads(1)
    f64, f32 = _problem(256), _problem(256, dtype=torch.float32)
    npy = [t.numpy().copy() for t in f64]
    steps = {
        "f64": lambda: model.gd_step(*f64),
        "f32": lambda: model.gd_step(*f32),
        "numpy": lambda: numpy_gd_step(*npy),
    }
    t = interleaved(steps, rounds=15, in_a_row=IN_A_ROW)
    cold = interleaved(steps, rounds=15)
    t["autograd"] = interleaved({"autograd": lambda: _per_rep_autograd_step(*f64)}, rounds=3)["autograd"]
    name = "resnet: GD step L=256 M=D=16 N=10, 8 reps"

    def cold_note(k):
        return f"cold (one step a turn, caches evicted by the other side): {cold['numpy'] / cold[k]:.2f}×"

    results = [
        bench.Result(f"{name}, float64 (vs numpy loop)", t["f64"], t["numpy"], 5.0, cold_note("f64")),
        bench.Result(f"{name}, float32 (vs numpy loop)", t["f32"], t["numpy"], 5.0, cold_note("f32")),
        bench.Result(f"{name}, float64 (vs autograd loop)", t["f64"], t["autograd"], 5.0),
    ]
    results += _vs_gemm({"f64": f64, "f32": f32})
    for dtype, short in ((torch.float64, "f64"), (torch.float32, "f32")):
        args = {L: _problem(L, dtype=dtype) for L in (256, 1024)}
        # one step a turn: both depths start from memory (in a row, L = 256's 12 MiB would stay
        # cached while L = 1024's 47 MiB cannot, which measures the cache, not the step's cost in L)
        td = interleaved({L: (lambda a=a: model.gd_step(*a)) for L, a in args.items()}, rounds=5)
        results.append(
            bench.Result(
                f"resnet: step time 4×t(L=256)/t(L=1024), {short}",
                fast_s=td[1024],
                baseline_s=4 * td[256],
                target=4 / 4.5,
                note=f"t(1024)/t(256) = {td[1024] / td[256]:.2f} (linear in L: ≤ 4.5)",
            )
        )
    if not model.FAST:  # the torch path's tensors are invisible to tracemalloc
        return results
    m = {L: step_bytes(_problem(L)) for L in (256, 1024)}
    results.append(
        bench.Result(
            "resnet: step memory 4×m(L=256)/m(L=1024), f64",
            fast_s=m[1024],
            baseline_s=4 * m[256],
            target=4 / 4.5,
            note=f"m(1024)/m(256) = {m[1024] / m[256]:.2f} ({m[256] / 2**20:.1f} MiB at L=256)",
        )
    )
    return results


if __name__ == "__main__":
    print(bench.table(run()))
