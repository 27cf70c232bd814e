"""The dry run's cost model (mfx.catalog.cost) and `mfx calibrate`, which measures it from a finished run."""

from __future__ import annotations

import json

from test_cli import run

from mfx import catalog, cli


def test_a_scale_without_its_own_measurement_falls_back_to_the_quick_value(monkeypatch):
    monkeypatch.setitem(catalog.MEASURED, "toy", {"quick": 2.0, "paper": 0.5})
    assert catalog.cost("toy", "paper") == 0.5
    monkeypatch.setitem(catalog.MEASURED, "toy", {"quick": 2.0})
    assert catalog.cost("toy", "paper") == 2.0
    assert catalog.cost("nothing", "quick") is None


def test_calibrate_writes_the_recorded_seconds_per_unit_of_each_experiment_and_scale(
    tmp_path, monkeypatch, capsys
):
    assert run(tmp_path) == 0
    costs = tmp_path / "costs.json"
    costs.write_text(json.dumps({"measured": "before", "seconds_per_unit": {"other": {"quick": 1.0}}}))
    monkeypatch.setattr(catalog, "COSTS", costs)
    monkeypatch.setattr(catalog, "MEASURED", {"other": {"quick": 1.0}})
    monkeypatch.setattr(catalog, "MEASURED_BY", "before")
    monkeypatch.setitem(catalog.SIZE_KEYS, "toy", ("model.a", "model.reps"))
    assert cli.main(["calibrate", str(tmp_path)]) == 0
    written = json.loads(costs.read_text())
    assert written["seconds_per_unit"]["other"] == {"quick": 1.0}  # what this run did not measure stays
    assert written["seconds_per_unit"]["toy"]["quick"] > 0 and "calibrate" in written["measured"]
    # a run that measured only some experiments keeps the header of the run behind the others
    assert written["measured"].startswith("before; toy: `mfx calibrate` over ")
    assert cli.main(["calibrate", str(tmp_path / "toy" / "nothing")]) == 2
    assert "toy quick:" in capsys.readouterr().out


def test_the_shipped_costs_cover_every_experiment_at_quick():
    assert set(catalog.SIZE_KEYS) <= {n for n, s in catalog.MEASURED.items() if "quick" in s}
