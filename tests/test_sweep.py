"""mfx.sweep.looked: `mfx run --dry-run` reads back its last look at the same command, and checks again
only what depends on the moment (out, memory)."""

import subprocess
import sys

import pytest
from conftest import TEST_CONF

from mfx import cli, results, sweep

TOY = [f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy"]

PHASE = ["run", "experiment=resnet_phase,quad_hessian"]


@pytest.fixture
def looks(tmp_path, monkeypatch):
    folder = tmp_path / "looks"
    folder.mkdir()
    monkeypatch.setattr(sweep, "_looks", lambda: folder)
    return folder


def test_a_second_dry_run_reads_back_the_first_and_prints_the_same(looks, tmp_path, capsys, monkeypatch):
    argv = [*PHASE, f"out={tmp_path / 'out'}", "--dry-run"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out
    assert (
        "resnet_phase/quick: " in first
        and "quad_hessian/quick: " in first
        and len(list(looks.glob("*.json"))) == 1
    )
    monkeypatch.setattr(sweep, "plans", lambda *a, **k: pytest.fail("the sweeps were planned again"))
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == first
    assert not (tmp_path / "out").exists()


def test_a_read_back_look_checks_out_and_memory_again(looks, tmp_path, capsys, monkeypatch):
    argv = [*PHASE, f"out={tmp_path / 'out' / 'x'}", "--dry-run"]
    assert cli.main(argv) == 0
    (tmp_path / "out").write_text("now a file")
    assert cli.main(argv) == 2
    assert "out must be a folder" in capsys.readouterr().err
    (tmp_path / "out").unlink()
    monkeypatch.setattr(sweep, "available_memory", lambda: 1)
    assert cli.main(argv) == 2
    assert "GiB available" in capsys.readouterr().err


def test_a_look_is_new_when_the_command_or_the_code_changes(looks, monkeypatch):
    key = sweep._look_key(["experiment=resnet_phase"])
    assert key == sweep._look_key(["experiment=resnet_phase"])
    assert key != sweep._look_key(["experiment=resnet_phase", "model.L=8"])
    monkeypatch.setattr(results, "code_hash", lambda: "other code")
    assert key != sweep._look_key(["experiment=resnet_phase"])


def test_an_experiment_registered_in_process_is_never_read_back(looks, tmp_path):
    assert cli.main(["run", *TOY, f"out={tmp_path}", "--dry-run"]) == 0
    assert not list(looks.glob("*.json"))


def test_a_mistake_is_never_kept(looks, tmp_path, capsys):
    assert cli.main(["run", "experiment=resnet_phase", "model.L=0", f"out={tmp_path}", "--dry-run"]) == 2
    assert "model.L" in capsys.readouterr().err and not list(looks.glob("*.json"))


def test_a_read_back_look_loads_no_torch(tmp_path):
    """The first look composes and validates with the experiments' code (torch); the next reads it back."""
    code = (
        "import sys; from mfx import cli\n"
        f"assert cli.main(['run', 'experiment=resnet_phase', 'out={tmp_path}', '--dry-run']) == 0\n"
        "print('torch' in sys.modules, file=sys.stderr)"
    )
    loaded = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stderr.split()[-1]
        for _ in range(2)
    ]
    assert loaded == ["True", "False"]
