import errno
import os

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from mfx import results
from mfx.experiment import ConfigError


def test_to_frame_orders_columns_and_marks_non_finite_as_diverged():
    rows = [
        {"L": 2, "seed": 0, "metric": "err", "value": 0.5},
        {"L": 2, "seed": 1, "metric": "err", "value": np.nan},
        {"L": 2, "seed": 2, "metric": "err", "value": np.inf, "status": "no_escape"},
    ]
    df = results.to_frame(rows, "exp", "quick")
    assert list(df.columns) == ["experiment", "scale", "L", "seed", "metric", "value", "status"]
    assert list(df["status"]) == ["ok", "diverged", "no_escape"]


def test_to_frame_requires_metric_and_value():
    with pytest.raises(ValueError):
        results.to_frame([{"L": 1}], "exp", "quick")


def _job(root, L, cfg=None, sweep_hash="s0"):
    cfg = cfg or OmegaConf.create({"name": "toy", "sweep_hash": sweep_hash, "model": {"L": L}})
    df = results.to_frame([{"L": L, "metric": "err", "value": 1 / L}], "toy", "quick")
    results.write_job(root / f"L={L}", df, cfg, "cpu", 0.1, {})
    return root / f"L={L}"


def test_jobs_are_written_with_their_marker_last_and_collected(tmp_path):
    for L in (1, 2):
        _job(tmp_path, L)
    assert not list(tmp_path.rglob("*.tmp"))
    assert {p.name for p in (tmp_path / "L=1").iterdir()} == {"rows.csv", "provenance.json", "done.json"}
    table, info = results.collect([tmp_path])
    assert list(table["L"]) == [1, 2] and list(table.columns)[-4:] == [
        "metric",
        "value",
        "status",
        "config_hash",
    ]
    assert [s["sweep_hash"] for s in info["sweeps"]] == ["s0"] and not info["mixed"]
    loaded, _, home = results.load_table(tmp_path)
    pd.testing.assert_frame_equal(loaded, table)
    assert home == tmp_path


def test_files_get_the_users_umask(tmp_path):
    job = _job(tmp_path, 1)
    assert {oct(p.stat().st_mode & 0o777) for p in job.iterdir()} == {oct(0o666 & ~_umask())}


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_job_without_its_marker_is_incomplete_and_skipped(tmp_path):
    _job(tmp_path, 1)
    (_job(tmp_path, 2) / results.DONE).unlink()  # killed between rows.csv and done.json
    assert results.job_state(tmp_path / "L=2")[0] == "incomplete"
    table, info = results.collect([tmp_path])
    assert list(table["L"]) == [1] and info["incomplete_jobs"] == 1


@pytest.mark.parametrize("cut", ["mid_line", "line_boundary", "extra_line"])
def test_a_damaged_rows_file_is_refused_naming_it(tmp_path, cut):
    job = _job(tmp_path, 1)
    rows = job / results.ROWS
    data = rows.read_bytes()
    rows.write_bytes(
        {
            "mid_line": data[:-3],
            "line_boundary": data[: data.index(b"\n") + 1],
            "extra_line": data + data.splitlines(keepends=True)[-1],
        }[cut]
    )
    with pytest.raises(ConfigError, match=str(rows)):
        results.collect([tmp_path])


def test_two_configurations_of_one_experiment_are_not_mixed(tmp_path):
    _job(tmp_path / "quick", 1, sweep_hash="aaa")
    _job(tmp_path / "quick-bbb", 1, sweep_hash="bbb")
    with pytest.raises(ConfigError, match="2 configurations"):
        results.collect([tmp_path])
    table, info = results.collect([tmp_path], mixed=True)
    assert len(table) == 2 and info["mixed"]


def test_a_directory_is_recollected_and_a_stale_table_file_warned_about(tmp_path):
    _job(tmp_path, 1)
    assert len(results.load_table(tmp_path)[0]) == 1  # writes table.csv
    _job(tmp_path, 2)
    assert len(results.load_table(tmp_path)[0]) == 2  # the directory is collected afresh
    table_file = tmp_path / results.TABLE
    os.utime(table_file, (1, 1))
    warnings = []
    results.load_table(table_file, warn=warnings.append)
    assert len(warnings) == 1 and "older than 2 job(s)" in warnings[0]


def test_resume_identity_changes_with_config_but_not_with_threads_or_out():
    cfg = OmegaConf.create({"model": {"L": 2}, "runtime": {"threads": 1}, "out": "a", "seed": 0})
    same = OmegaConf.create({"model": {"L": 2}, "runtime": {"threads": 2}, "out": "b", "seed": 0})
    other = OmegaConf.create({"model": {"L": 2}, "runtime": {"threads": 1}, "out": "a", "seed": 1})
    assert results.job_hash(cfg) == results.job_hash(same) != results.job_hash(other)
    assert results.config_hash(cfg, drop=["model.L"]) == results.config_hash(
        OmegaConf.merge(cfg, {"model": {"L": 4}}), drop=["model.L"]
    )


def test_a_failed_write_leaves_no_temporary(tmp_path, monkeypatch):
    def full_disk(fd, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(results.os, "replace", full_disk)
    with pytest.raises(OSError):
        results.write_csv(pd.DataFrame({"a": [1]}), tmp_path / "x.csv")
    assert list(tmp_path.iterdir()) == []


def test_load_table_of_missing_path_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError):
        results.load_table(tmp_path / "nope.csv")


def test_experiment_rows_restore_the_types_of_a_table_of_several_experiments():
    a = results.to_frame([{"p": 3, "metric": "eps", "value": 0.5}], "quad", "quick")
    b = results.to_frame([{"L": 8, "tag": "x", "metric": "err", "value": 0.1}], "resnet", "quick")
    mixed = pd.concat([a, b], ignore_index=True)
    assert mixed["p"].dtype == float  # NaN for the resnet row
    rows = results.experiment_rows(mixed, "quad", "quick")
    assert list(rows.columns) == list(a.columns) and rows["p"].dtype == "int64"
