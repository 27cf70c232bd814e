import numpy as np
import pandas as pd
import pytest

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


def test_write_csv_is_atomic_and_collect_concatenates(tmp_path):
    for L in (1, 2):
        df = results.to_frame([{"L": L, "metric": "err", "value": 1 / L}], "exp", "quick")
        results.write_csv(df, tmp_path / f"L={L}" / results.ROWS)
    assert not list(tmp_path.rglob("*.tmp"))
    table = results.collect([tmp_path])
    assert list(table["L"]) == [1, 2] and list(table.columns)[-3:] == ["metric", "value", "status"]
    loaded, home = results.load_table(tmp_path)
    pd.testing.assert_frame_equal(loaded, table)
    assert home == tmp_path


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
