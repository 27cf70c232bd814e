"""Scale-out: the joblib and submitit_local launchers give the same table as the basic launcher."""

import pandas as pd
import pytest

from mfx import cli, results

EXPERIMENT = "quad_hessian"  # a few fast jobs of a real experiment (the test-only toy lives in this process)


def _table(out, *overrides):
    assert cli.main(["run", f"experiment={EXPERIMENT}", f"out={out}", *overrides]) == 0
    table = results.collect([out / EXPERIMENT])
    return table.sort_values(list(table.columns)).reset_index(drop=True)


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["joblib", "submitit_local"])
def test_launcher_gives_the_same_table_as_basic(tmp_path, launcher):
    basic = _table(tmp_path / "basic")
    other = _table(tmp_path / launcher, f"hydra/launcher={launcher}")
    assert len(basic) > 0
    pd.testing.assert_frame_equal(basic, other)
