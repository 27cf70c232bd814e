"""The Python API: mfx.load and mfx.load_claims (documented in the README)."""

import pandas as pd
from conftest import TEST_CONF

import mfx
from mfx import cli

TOY = [f"hydra.searchpath=[file://{TEST_CONF}]", "experiment=toy"]


def test_load_reads_every_sweep_under_a_folder_and_names_it(tmp_path):
    assert cli.main(["run", *TOY, f"out={tmp_path}"]) == 0
    sweep = tmp_path / "toy" / "quick"
    table = mfx.load(sweep)
    assert isinstance(table, pd.DataFrame) and len(table) == 4 * 2  # 4 jobs × 2 seeds (toy: reps 2)
    assert {"experiment", "a", "seed", "metric", "value", "status", "sweep"} <= set(table.columns)
    assert not (sweep / "table.csv").exists()  # load writes nothing
    assert cli.main(["run", *TOY, f"out={tmp_path}", "model.b=2"]) == 0
    both = mfx.load(tmp_path)
    assert len(both) == 2 * len(table) and both["sweep"].nunique() == 2
    claims = mfx.load_claims(tmp_path)  # no report yet: evaluated now
    assert list(claims["verdict"]) == ["pass", "pass"] and claims["report"].nunique() == 2
    assert cli.main(["report", str(sweep)]) == 0
    read = mfx.load_claims(sweep / "claims.csv")
    assert read["low"].dtype == float and read["high"].dtype == float  # numeric range beside the text
