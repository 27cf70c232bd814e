"""Shared by the quadratic figure tests: draw a collected table and evaluate its claims."""

from __future__ import annotations

import pytest

from mfx import plotting
from mfx.experiment import get


def _claims(name, table):
    figures = plotting.plot_function(name)(table)
    assert figures and all(fig.axes for fig in figures.values())
    claims = get(name).claims(table)
    failed = [f"{c.statement}: {c.measured:.4g} vs {c.expected} ({c.detail})" for c in claims if not c.passed]
    assert claims and not failed, failed
    return claims


@pytest.fixture
def claims_of():
    """`claims_of(name, table)`: the figures draw (each with axes) and every claim passes; returns the claims."""
    return _claims
