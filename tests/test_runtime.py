import torch

from mfx import runtime


def test_seed_gives_same_numbers_alone_or_in_a_batch():
    batch = runtime.randn((3, 4), [0, 1, 2], "weights", 8)
    alone = runtime.randn((3, 4), [1], "weights", 8)
    assert torch.equal(batch[1], alone[0])


def test_streams_and_seeds_are_independent():
    a = runtime.randn((100,), [0], "data")
    b = runtime.randn((100,), [0], "weights")
    c = runtime.randn((100,), [1], "data")
    assert not torch.equal(a, b) and not torch.equal(a, c)
    assert abs(torch.corrcoef(torch.stack([a[0], b[0]]))[0, 1]) < 0.4


def test_setup_sets_threads_device_and_dtype():
    rt = runtime.setup(threads=1, device="auto", dtype="float32")
    assert torch.get_num_threads() == 1
    assert rt.dtype == torch.float32
    assert rt.device.type == ("cuda" if torch.cuda.is_available() else "cpu")
