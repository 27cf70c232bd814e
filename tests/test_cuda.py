"""`runtime.device=cuda` runs every experiment (issue 40 §4).  Skipped where torch sees no CUDA device.

- each family's step on the GPU from the CPU's inputs gives the CPU's numbers (fast);
- (slow) one job of each experiment (its smallest grid point at quick scale: each axis at its smallest value),
  run in-process on the GPU: its rows come out, none of them NaN for a device mistake;
- (slow) each experiment's whole quick sweep, `mfx run … runtime.device=cuda`: exit 0, every job's
  provenance names the CUDA device, and the claims are computed from its table.
The numbers are not compared with the CPU's: CUDA generators draw other random numbers than the CPU's
for the same seed (`runtime.generator(..., device=cuda)`), so only the run itself is checked here;
`python -m benchmarks.gpu` times the heaviest jobs on both.
"""

from __future__ import annotations

import json

import pytest
import torch
from omegaconf import OmegaConf

from mfx import cli, results, runtime, sweep
from mfx import experiment as registry

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device (torch.cuda.is_available() is False)"
)

NAMES = [name for name in registry.load_all() if name != "toy"]


def _smallest(value):
    return (0, value) if isinstance(value, int | float) else (1, str(value))


def smallest_job(name: str, out, *overrides: str):
    """The quick job of `name` with every grid axis at its smallest value (the cheapest, as a rule)."""
    plan = sweep.plan([f"experiment={name}", "scale=quick", f"out={out}", *overrides])
    return min(plan.jobs, key=lambda job: [_smallest(OmegaConf.select(job, axis)) for axis in plan.axes])


def test_runtime_resolves_cuda_and_auto():
    assert runtime.setup(device="cuda").device.type == "cuda"
    assert runtime.setup(device="auto").device.type == "cuda"
    runtime.setup()


def test_the_resnet_step_on_cuda_is_the_cpu_step():
    """The torch path on the GPU against the CPU's (compiled, where numba is installed) path, same inputs."""
    from mfx.resnet import draws, model

    X, Y, W_E, W_U = draws.data([0, 1], 10, 5, 5, 16)
    U, V = draws.units([0, 1], 8, 16, 16)
    gpu = [t.to("cuda", copy=True) for t in (W_E, W_U, U, V, X, Y)]
    f = model.gd_step(W_E, W_U, U, V, X, Y)[0]
    f_gpu = model.gd_step(*gpu)[0]
    for a, b in ((f, f_gpu), (U, gpu[2]), (V, gpu[3])):
        torch.testing.assert_close(b.cpu(), a, rtol=1e-10, atol=1e-12)


def test_the_transformer_gradient_on_cuda_is_the_cpus():
    from mfx.transformer import families, model

    c = families.clouds("cube", [0.5, 1.0, 1.5, 2.0], 8, 2, runtime.generator(0, "test"))
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    params = model.init_params(4, 8, 2, [0, 1, 2])

    def grads(device):
        ps = [p.to(device).requires_grad_(True) for p in params]
        R = model.loss(model.forward(*ps, c.X.to(device), q0.to(device)), q0.to(device)).sum()
        return [g.cpu() for g in torch.autograd.grad(R, ps)]

    for a, b in zip(grads("cpu"), grads("cuda")):
        torch.testing.assert_close(b, a, rtol=1e-10, atol=1e-12)


def test_the_quadratic_sgd_runs_on_cuda():
    """Its inputs are drawn on the device (other numbers than the CPU's): the run itself is checked."""
    from mfx.quadratic import model, sgd

    a, a_star = model.readout_scales(2, 2, "mean")
    W_star = model.teacher_weights(256, 2, [0, 1]).cuda()
    W0 = model.student_weights(256, 2, [0, 1]).cuda()
    out = sgd.simulate(W0, W_star, [0, 1], a, a_star, 0.1 / a, [0, 100, 200])
    assert torch.isfinite(torch.as_tensor(out["rho"])).all() and len(out["steps"]) == 3


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_one_job_runs_on_cuda(name, tmp_path):
    cfg = smallest_job(name, tmp_path, "runtime.device=cuda", "runtime.threads=1")
    rt = runtime.setup(**cfg.runtime)
    assert rt.device.type == "cuda"
    table = results.to_frame(registry.get(name).run(cfg), name, "quick")
    assert len(table) > 0
    assert (table["status"] == "ok").any(), table["status"].value_counts().to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_quick_sweep_runs_on_cuda(name, tmp_path):
    out = tmp_path / "out"
    argv = [
        "run",
        f"experiment={name}",
        "scale=quick",
        "runtime.device=cuda",
        "runtime.threads=1",
        f"out={out}",
    ]
    assert cli.main(argv) == 0
    jobs = sorted((out / name / "quick").glob("*/provenance.json"))
    assert jobs and all(json.loads(p.read_text())["device"].startswith("cuda") for p in jobs)
    table = results.collect([out / name])[0]
    assert registry.get(name).claims(table)
