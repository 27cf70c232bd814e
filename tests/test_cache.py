import torch

from mfx.cache import cached


def test_computes_once_then_loads(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"x": torch.arange(3.0)}

    first = cached("ref", {"L": 4, "seed": 0}, compute, tmp_path)
    second = cached("ref", {"seed": 0, "L": 4}, compute, tmp_path)
    assert len(calls) == 1
    assert torch.equal(first["x"], second["x"])
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_different_keys_different_artifacts(tmp_path):
    a = cached("ref", {"L": 4}, lambda: {"x": torch.zeros(1)}, tmp_path)
    b = cached("ref", {"L": 8}, lambda: {"x": torch.ones(1)}, tmp_path)
    assert not torch.equal(a["x"], b["x"])
    assert len(list(tmp_path.glob("ref-*.pt"))) == 2
