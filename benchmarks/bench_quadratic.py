"""Speed of the quadratic family: the overlap chain, batched analytic SGD and the overlap-ODE integrator.

1. Overlap chain vs full SGD per step (N = 3·10⁴, p = 3, p* = 2, 8 seeds, 1 thread): the chain's cost
   does not depend on N. Both are timed over whole runs and compared per step; the note gives the
   chain's seed-steps/s.
2. Overlap chain vs drawing its random numbers alone (issue 40 §3: the chain's limit), p = p* = 2 and 3
   (quad_escape's chains; 3 is its costliest), N = 10⁵, 16 seeds, 1 thread: `chain.simulate` against
   `chain._Draws.refill` of the same count (k normals and one χ²_{N−k} per seed-step) from the same
   generators (compiled: numpy's PCG64 ziggurat normals and Marsaglia–Tsang χ², ≈ 3 ns a normal); CPU
   time, interleaved. Target: a step ≤ 2× its draws.
3. SGD throughput vs merely drawing its Gaussian inputs (N = 4096, p = 4, p* = 2, 16 seeds): the bound
   is torch.randn of the same shape and dtype, in place into one buffer, from the same generators;
   ratio = t(draw) / t(SGD) is the fraction of the RNG-only throughput that the simulation keeps.
4. SGD vs the common research loop: an nn.Module + autograd, one sample and one seed at a time
   (N = 1000, p = 4, 16 seeds, a fixed number of steps per seed).
5. ODE to tau = 400 at p = 16 (p* = 2, g = 0.05, idealised init): `ode.solve(method="reduced")` vs
   fixed-step Euler with dt = 1e-2 on the full (ρ, Q) system, both checked against a tight full-system
   DOP853 reference (rtol 1e-12). Euler is timed over 4000 of its 40000 steps and scaled by 10 (its cost
   per step is constant), so the benchmark takes seconds.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from mfx import bench, runtime
from mfx.quadratic import chain, model, ode, sgd


def _chain_vs_full() -> bench.Result:
    N, p, p_star, seeds = 30_000, 3, 2, list(range(8))
    a, a_star = model.readout_scales(p, p_star, "mean")
    eta = 0.1 / a
    W_star = model.teacher_weights(N, p_star, seeds, dtype=torch.float32)
    W0 = model.student_weights(N, p, seeds, dtype=torch.float32)
    M0 = chain.initial_overlaps(seeds, p, p_star, N)
    full_steps, chain_steps = 4 * sgd.chunk_steps(N), 20 * chain.CHUNK

    def full():
        sgd.simulate(W0, W_star, seeds, a, a_star, eta, [0, full_steps])

    def overlap():
        chain.simulate(M0, p, N, seeds, a, a_star, eta, [0, chain_steps])

    full_s = bench.median_time(full, repeat=3) / full_steps
    chain_s = bench.median_time(overlap, repeat=3) / chain_steps
    return bench.Result(
        "quadratic: overlap chain vs full SGD, per step",
        chain_s,
        full_s,
        target=50,
        note=f"N={N}, p={p}, p*={p_star}, 8 seeds; chain {len(seeds) / chain_s:.3g} seed-steps/s, "
        f"full SGD {len(seeds) / full_s:.3g} seed-steps/s",
    )


def _chain_vs_draws(p: int) -> bench.Result:
    N, p_star, seeds = 100_000, p, list(range(16))
    a, a_star = model.readout_scales(p, p_star, "mean")
    M0 = chain.initial_overlaps(seeds, p, p_star, N)
    chunks = 10
    steps = chunks * chain.CHUNK

    def overlap():
        chain.simulate(M0, p, N, seeds, a, a_star, 0.1 / a, [0, steps], threads=1)

    def draws():
        d = chain._Draws(seeds, p + p_star, N, 0.0)
        for _ in range(chunks):
            d.refill(range(len(seeds)))

    t = bench.interleaved({"chain": overlap, "draws": draws}, rounds=5)
    per = lambda key: t[key] / (steps * len(seeds)) * 1e9
    return bench.against_limit(
        f"quadratic: chain step vs drawing its randoms, p=p*={p}",
        t["chain"],
        t["draws"],
        at_most=2.0,
        note=f"N={N}, 16 seeds, 1 thread: chain {per('chain'):.0f} ns, draws {per('draws'):.0f} ns "
        "per seed-step",
    )


def _sgd_vs_draw() -> bench.Result:
    N, p, p_star, seeds = 4096, 4, 2, list(range(16))
    a, a_star = model.readout_scales(p, p_star, "mean")
    W_star = model.teacher_weights(N, p_star, seeds, dtype=torch.float32)
    W0 = model.student_weights(N, p, seeds, dtype=torch.float32)
    B = sgd.chunk_steps(N)
    steps = 2 * B
    buffer = torch.empty((len(seeds), B, N), dtype=torch.float32)

    def simulate():
        sgd.simulate(W0, W_star, seeds, a, a_star, 0.1 / a, [0, steps])

    def draw():
        gens = [runtime.generator(s, "quadratic", "sgd", "x") for s in seeds]
        for _ in range(2):
            for row, g in zip(buffer, gens):
                torch.randn((B, N), generator=g, dtype=torch.float32, out=row)

    return bench.compare(
        "quadratic: SGD throughput / Gaussian draw throughput",
        simulate,
        draw,
        repeat=5,
        target=0.6,
        note=f"N={N}, p={p}, p*={p_star}, 16 seeds, {steps} steps, float32",
    )


class _Student(torch.nn.Module):
    def __init__(self, W0):
        super().__init__()
        self.W = torch.nn.Parameter(W0.clone())

    def forward(self, x):
        return (self.W @ x / x.shape[0] ** 0.5).pow(2).mean()


def _sgd_vs_autograd() -> bench.Result:
    N, p, p_star, seeds, steps = 1000, 4, 2, list(range(16)), 200
    a, a_star = model.readout_scales(p, p_star, "mean")
    eta = 0.1 / a
    W_star = model.teacher_weights(N, p_star, seeds, dtype=torch.float32)
    W0 = model.student_weights(N, p, seeds, dtype=torch.float32)

    def batched():
        sgd.simulate(W0, W_star, seeds, a, a_star, eta, [0, steps])

    def loop():
        for i, s in enumerate(seeds):
            net = _Student(W0[i])
            opt = torch.optim.SGD(net.parameters(), lr=eta)
            g = runtime.generator(s, "quadratic", "bench")
            for _ in range(steps):
                x = torch.randn(N, generator=g)
                y = a_star * ((W_star[i] @ x) ** 2).sum() / N
                loss = 0.5 * (net(x) - y) ** 2
                opt.zero_grad()
                loss.backward()
                opt.step()

    return bench.compare(
        "quadratic: batched SGD vs per-sample nn.Module+autograd loop",
        batched,
        loop,
        repeat=3,
        target=20,
        note=f"N={N}, p={p}, 16 seeds × {steps} steps each",
    )


def _euler(rho, Q, T, a, a_star, g, dt, n_steps):
    for _ in range(n_steps):
        drho, dQ = ode.rhs(rho, Q, T, a, a_star, g)
        rho, Q = rho + dt * drho, Q + dt * dQ
    return rho, Q


def _ode_vs_euler() -> bench.Result:
    p, p_star, g, tau_max, dt = 16, 2, 0.05, 400.0, 1e-2
    a, a_star = model.readout_scales(p, p_star, "mean")
    T = np.eye(p_star)
    rho0, Q0 = model.idealised_init(p, p_star, 10**4, [0])
    tau = np.geomspace(0.1, tau_max, 30)
    rho, Q = ode.solve(rho0, Q0, T, a, a_star, tau, g=g, rtol=1e-12, atol=1e-16)
    reference = model.risk(rho, Q, T, a, a_star)[:, 0]

    def fast():
        return ode.solve(rho0, Q0, T, a, a_star, tau, g=g, method="reduced", rtol=1e-10, atol=1e-14)

    fast_s = bench.median_time(fast, repeat=3)
    rho, Q = fast()
    error = float(np.max(np.abs(model.risk(rho, Q, T, a, a_star)[:, 0] / reference - 1)))
    n_timed = 4000
    t0 = time.perf_counter()
    rho_e, Q_e = _euler(rho0, Q0, T, a, a_star, g, dt, n_timed)
    euler_s = (time.perf_counter() - t0) * (tau_max / dt) / n_timed
    rho_r, Q_r = ode.solve(rho0, Q0, T, a, a_star, np.array([n_timed * dt]), g=g, rtol=1e-12, atol=1e-16)
    euler_error = float(
        abs(model.risk(rho_e, Q_e, T, a, a_star)[0] / model.risk(rho_r[0], Q_r[0], T, a, a_star)[0] - 1)
    )
    result = bench.Result(
        "quadratic: ODE (reduced, LSODA) vs Euler dt=1e-2 to tau=400, p=16",
        fast_s,
        euler_s,
        target=10,
        note=f"max rel. error in eps_g vs reference: {error:.1e} (need ≤ 1e-6); "
        f"Euler's at tau=40: {euler_error:.1e}",
    )
    if error > 1e-6:
        result.target = float("inf")  # an inaccurate fast path cannot pass
    return result


def run() -> list[bench.Result]:
    torch.set_num_threads(1)
    return [
        _chain_vs_full(),
        _chain_vs_draws(2),
        _chain_vs_draws(3),
        _sgd_vs_draw(),
        _sgd_vs_autograd(),
        _ode_vs_euler(),
    ]


if __name__ == "__main__":
    print(bench.table(run()))
