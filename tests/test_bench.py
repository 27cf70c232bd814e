from mfx import bench


def test_ratio_is_baseline_over_fast_and_checked_against_the_target():
    fast = bench.Result("fast enough", fast_s=0.5, baseline_s=2.0, target=3)
    slow = bench.Result("too slow", fast_s=1.0, baseline_s=2.0, target=3)
    assert fast.ratio == 4 and fast.passed and not slow.passed
    text = bench.table([fast, slow])
    assert "fast enough" in text and "SLOW" in text


def test_compare_times_both_paths():
    calls = {"fast": 0, "baseline": 0}
    r = bench.compare(
        "count",
        lambda: calls.__setitem__("fast", calls["fast"] + 1),
        lambda: calls.__setitem__("baseline", calls["baseline"] + 1),
        repeat=3,
        warmup=1,
    )
    assert calls == {"fast": 4, "baseline": 4} and r.fast_s > 0 and r.baseline_s > 0


def test_a_hot_loop_meets_its_limit_when_its_time_is_at_most_the_factor_times_the_bound():
    ok = bench.against_limit("chain", loop_s=1.9, bound_s=1.0, at_most=2.0)
    over = bench.against_limit("step", loop_s=2.1, bound_s=1.0, at_most=2.0)
    assert ok.passed and not over.passed and ok.limit == 2.0
    text = bench.table([ok, over, bench.Result("speed-up", 1.0, 5.0, 3)])
    block = text.split("hot loops against their limits")[1]
    assert "speed-up" not in block  # only the limit rows are listed there
    assert "1.90× (≤ 2×)  meets its target" in block and "2.10× (≤ 2×)  MISSES its target" in block


def test_interleaved_times_every_function_each_round():
    calls = []
    t = bench.interleaved(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, rounds=3, warmup=1
    )
    assert calls == ["a", "b"] + ["a", "b"] * 3 and set(t) == {"a", "b"}


def test_interleaved_in_a_row_times_the_last_call_of_each_turn():
    calls, clock = [], iter(range(100))
    t = bench.interleaved(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
        rounds=2,
        warmup=0,
        clock=lambda: next(clock),
        in_a_row=3,
    )
    assert calls == ["a"] * 3 + ["b"] * 3 + ["a"] * 3 + ["b"] * 3
    assert t == {"a": 1, "b": 1}  # one clock tick around the one timed call of each turn


def test_the_resnet_flop_count_is_what_the_torch_step_multiplies(monkeypatch):
    """gemm_flops (the numerator of the step's GFLOP/s) against torch's own count of the torch path's
    products: the same, up to the embedding/readout products it leaves out."""
    from torch.utils.flop_counter import FlopCounterMode

    from benchmarks import bench_resnet
    from mfx.resnet import model

    monkeypatch.setattr(model, "FAST", False)
    args = bench_resnet._problem(4)
    S, L, M, D = args[2].shape
    N, d_in, d_out = args[4].shape[1], args[4].shape[2], args[5].shape[2]
    with FlopCounterMode(display=False) as counter:
        model.gd_step(*args)
    outside = 2 * S * N * D * (d_in + 2 * d_out)
    assert counter.get_total_flops() == bench_resnet.gemm_flops(S, L, N, M, D) + outside


def test_the_fused_attention_step_is_the_transformer_step():
    """The SDPA bound computes mfx's network (else its time bounds nothing)."""
    import torch

    from benchmarks import bench_transformer
    from mfx import runtime
    from mfx.transformer import families, model

    c = families.clouds("cube", [0.5, 1.0, 1.5], 5, 2, runtime.generator(0, "test"))
    params = model.init_params(3, 4, 2, [0, 1])
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    torch.testing.assert_close(
        bench_transformer.forward_sdpa(*params, c.X, q0),
        model.forward(*params, c.X, q0),
        rtol=1e-12,
        atol=1e-14,
    )


def test_the_chain_bound_draws_what_the_chain_draws():
    """The draws the chain is timed against are the chain's own: same generators, same count."""
    import numpy as np

    from mfx.quadratic import chain

    seeds, k, N = [0, 1], 4, 100
    d = chain._Draws(seeds, k, N, 0.0)
    d.refill(range(len(seeds)))
    assert d.g.shape == (2, chain.CHUNK, k) and d.chi2.shape == (2, chain.CHUNK)
    np.testing.assert_array_equal(d.g[1], chain._rng(1, "g").standard_normal((chain.CHUNK, k)))


def test_the_gpu_script_skips_cleanly_without_cuda(capsys):
    import pytest
    import torch

    from benchmarks import gpu

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the script times its jobs instead")
    assert gpu.main([]) == 0 and "no CUDA device" in capsys.readouterr().out


def test_the_gpu_script_times_one_job_of_a_sweep():
    from benchmarks import gpu

    assert sorted(gpu.JOBS) == ["quad_escape", "resnet_dim", "transformer_limit"]
    assert gpu.time_job("resnet_dim", "quick", "cpu", ["model.D=4"]) > 0
