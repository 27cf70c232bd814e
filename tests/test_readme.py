"""The README's set-up and Usage block work as written (a fresh clone; the fast variant runs each
command in-process: `mfx run` lines with --dry-run, the others through the real argument parser)."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mfx import cli

ROOT = Path(__file__).parents[1]


def _block(text: str, after: str) -> list[str]:
    """The commands of the first ```bash block after the heading `after` (comments dropped)."""
    body = text[text.index(after) :]
    block = body[body.index("```bash\n") + 8 :]
    block = block[: block.index("```")]
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_says_how_to_reach_mfx_right_after_the_setup():
    """After `make demo` / `make test` (which install into the Makefile's VENV), the next block
    activates that venv, so the Usage commands find `mfx`."""
    text = (ROOT / "README.md").read_text()
    venv = re.search(r"^VENV \?= (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE).group(1)
    setup = text.index("make demo")
    activate = text.index(f". {venv}/bin/activate", setup)
    assert activate < text.index("## Usage")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of this checkout's committed tree."""
    where = tmp_path_factory.mktemp("clone") / "mfx"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(where)], check=True)
    return where


def test_every_usage_command_runs_from_a_fresh_clone(clone, monkeypatch, capsys):
    commands = _block((clone / "README.md").read_text(), "## Usage")
    assert commands and all(c.startswith("mfx ") for c in commands)
    monkeypatch.chdir(clone)
    for command in commands:
        argv = shlex.split(command)[1:]
        if argv[0] == "run":  # runs nothing: validates every job, says done/pending and the time
            assert cli.main([*argv, "--dry-run"]) == 0, command
            assert "pending" in capsys.readouterr().out
        elif argv[0] in ("list", "--version"):
            try:
                assert cli.main(argv) == 0, command
            except SystemExit as e:
                assert e.code == 0, command
            assert capsys.readouterr().out
        else:  # needs the outputs of a run: its arguments parse as written
            cli._parser().parse_args(argv)
    assert {p.name for p in (clone / "outputs").glob("*")} <= {".gitkeep"}  # nothing ran, nothing written


@pytest.mark.slow
def test_the_installed_mfx_answers_in_a_fresh_clone(clone):
    """The setup's own `mfx` (the venv's console script) in the clone: list and a dry run."""
    mfx = str(Path(sys.executable).with_name("mfx"))
    out = subprocess.run([mfx, "list"], cwd=clone, capture_output=True, text=True, check=True).stdout
    assert "resnet_phase" in out
    dry = [mfx, "run", "experiment=resnet_phase", "--dry-run"]
    assert "20 jobs" in subprocess.run(dry, cwd=clone, capture_output=True, text=True, check=True).stdout
