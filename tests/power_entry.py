"""One power-table entry (scripts/power.py): an experiment, a sized realistic mistake `apply(mp, s)` and the
sizes to try.  Each family lists its entries in `tests/<family>/mutations.py` as `POWER`, so the three
families add entries without touching one file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    experiment: str
    mistake: str  # what is wrong, with its size s
    apply: object  # (monkeypatch, s) -> None
    sizes: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3)
    overrides: tuple[str, ...] = ()
