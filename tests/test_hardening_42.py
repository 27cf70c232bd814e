"""Issue 42, left from the second matrix: flags Hydra's parser cannot take, a launcher with no
processes, and damaged or hostile files read by compare, report and status.  Each case failed on
main at 065bb06 (a raw usage or traceback, folders written, escapes sent to the terminal)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import TEST_CONF
from test_partial import refused

from mfx import cli, results

TOY = [f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy"]


@pytest.fixture
def done(tmp_path):
    assert cli.main(["run", *TOY, f"out={tmp_path}"]) == 0
    sweep = tmp_path / "toy" / "quick"
    assert cli.main(["report", str(sweep)]) == 0
    return sweep


def test_multirun_flag_given_first_runs_the_sweep(tmp_path):
    assert cli.main(["run", "-m", *TOY, f"out={tmp_path}"]) == 0
    assert len(results.find_jobs([tmp_path / "toy"])) == 4


@pytest.mark.parametrize("flag, says", [("--bogus", "--bogus"), ("--dry-rum", "--dry-run"), ("-x", "-x")])
def test_an_unknown_flag_is_one_line_and_writes_nothing(tmp_path, capsys, flag, says):
    refused(capsys, ["run", *TOY, flag, f"out={tmp_path / 'o'}"], "unknown flag", says)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("n", ["0", "-100000", "'a'", "1.5"])
def test_a_joblib_launcher_without_processes_is_refused_before_anything_is_written(tmp_path, capsys, n):
    argv = ["run", *TOY, "hydra/launcher=joblib", f"hydra.launcher.n_jobs={n}", f"out={tmp_path / 'o'}"]
    refused(capsys, argv, "hydra.launcher.n_jobs must be an integer")
    assert not (tmp_path / "o").exists()


def test_a_claims_file_with_a_measured_value_that_is_not_a_number_is_named(done, tmp_path, capsys):
    forged = tmp_path / "forged" / "claims.csv"
    forged.parent.mkdir()
    pd.read_csv(done / "claims.csv").assign(measured="abc").to_csv(forged, index=False)
    refused(capsys, ["compare", str(forged), str(done / "claims.csv")], str(forged), "'measured'")


def test_compare_shows_the_control_characters_of_a_claims_file_never_sends_them(done, tmp_path, capsys):
    forged = tmp_path / "forged" / "claims.csv"
    forged.parent.mkdir()
    pd.read_csv(done / "claims.csv").assign(claim="x\x1b[2J\x07y").to_csv(forged, index=False)
    capsys.readouterr()
    assert cli.main(["compare", str(forged), str(done / "claims.csv")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "x\\x1b[2J\\x07y" in out


@pytest.mark.parametrize(
    "info", [{"sweeps": [{"experiment": "toy"}]}, {"sweeps": "all of them"}, {"sweeps": [1, 2]}]
)
def test_a_table_json_without_its_fields_is_named(done, tmp_path, capsys, info):
    table = tmp_path / "t" / "table.csv"
    table.parent.mkdir()
    table.write_bytes((done / "table.csv").read_bytes())
    (tmp_path / "t" / "table.json").write_text(json.dumps(info))
    refused(capsys, ["report", str(table)], str(tmp_path / "t" / "table.json"), "not an mfx table provenance")


@pytest.mark.parametrize("count", [10**9, -3, "4", 2**70])
def test_status_trusts_no_absurd_job_count(done, capsys, count):
    record = json.loads((done / results.SWEEP).read_text())
    record.pop("job_configs", None)  # as an older mfx wrote it, then edited
    (done / results.SWEEP).write_text(json.dumps({**record, "jobs": count}))
    capsys.readouterr()
    assert cli.main(["status", str(done.parents[1])]) == 0
    out = capsys.readouterr().out
    assert "4/4 complete" in out and "partial" not in out, out


MATRIX = {
    "flags Hydra cannot parse": 1 + 3,
    "launcher resources": 4,
    "hostile or damaged files": 1 + 1 + 3 + 4,
}
