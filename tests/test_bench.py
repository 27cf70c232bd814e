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
