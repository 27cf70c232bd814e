"""Shared by the quadratic figure tests: draw a collected table and evaluate its claims."""

from __future__ import annotations

import pytest

from mfx import plotting


def _claims(quick_table, name):
    figures = plotting.plot_function(name)(quick_table(name))
    assert figures and all(fig.axes for fig in figures.values())
    claims = quick_table.claims(name)
    failed = [f"{c.statement}: {c.measured:.4g} vs {c.expected} ({c.detail})" for c in claims if not c.passed]
    assert claims and not failed, failed
    return claims


@pytest.fixture
def claims_of(quick_table):
    """`claims_of(name)`: the figures of `name`'s quick sweep draw (each with axes) and every claim
    passes; returns the claims."""
    return lambda name: _claims(quick_table, name)
