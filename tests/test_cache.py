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


def _artifact(tmp_path):
    key = {"L": 4}
    cached("ref", key, lambda: {"x": torch.arange(4.0)}, tmp_path)
    (path,) = tmp_path.glob("ref-*.pt")
    return key, path


class _Boom:
    """Unpickling this object would run `touch MARKER`."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_planted_pickle_never_executes_and_is_recomputed(tmp_path, capsys):
    key, path = _artifact(tmp_path)
    marker = tmp_path / "pwned"
    torch.save({"key": "x", "sha256": "y", "tensors": _Boom(marker)}, path)
    value = cached("ref", key, lambda: {"x": torch.ones(2)}, tmp_path)
    assert not marker.exists()
    assert torch.equal(value["x"], torch.ones(2))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0]


def test_an_altered_artifact_is_detected_and_recomputed(tmp_path, capsys):
    key, path = _artifact(tmp_path)
    obj = torch.load(path, weights_only=True)
    obj["tensors"]["x"][0] = 99.0  # altered tensor, original hash
    torch.save(obj, path)
    value = cached("ref", key, lambda: {"x": torch.zeros(4)}, tmp_path)
    assert torch.equal(value["x"], torch.zeros(4))
    assert "does not match" in capsys.readouterr().err
    # the recomputed artifact replaced the bad one and now loads silently
    again = cached("ref", key, lambda: {"x": torch.full((4,), 7.0)}, tmp_path)
    assert torch.equal(again["x"], torch.zeros(4))


def test_a_truncated_artifact_is_recomputed_with_one_warning(tmp_path, capsys):
    key, path = _artifact(tmp_path)
    path.write_bytes(path.read_bytes()[:40])
    value = cached("ref", key, lambda: {"x": torch.ones(4)}, tmp_path)
    assert torch.equal(value["x"], torch.ones(4))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unreadable" in err[0] and str(path) in err[0]


def test_an_artifact_of_another_key_is_not_trusted(tmp_path):
    key, path = _artifact(tmp_path)
    other = tmp_path / "other"
    cached("ref", {"L": 8}, lambda: {"x": torch.full((4,), 5.0)}, other)
    (foreign,) = other.glob("ref-*.pt")
    path.write_bytes(foreign.read_bytes())  # a valid artifact, renamed to this key's file name
    value = cached("ref", key, lambda: {"x": torch.ones(4)}, tmp_path)
    assert torch.equal(value["x"], torch.ones(4))
