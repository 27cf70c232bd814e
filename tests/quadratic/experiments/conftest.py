"""Shared by the quadratic figure tests: draw a collected table and evaluate its claims."""

from __future__ import annotations

import pytest

from mfx import plotting


def _claims(quick_table, name, failing=()):
    figures = plotting.plot_function(name)(quick_table(name))
    assert figures and all(fig.axes for fig in figures.values())
    claims = quick_table.claims(name)
    known = lambda c: c.statement.startswith(tuple(failing))
    failed = [
        f"{c.statement}: {c.measured:.4g} vs {c.expected} ({c.detail})"
        for c in claims
        if not c.passed and not known(c)
    ]
    assert claims and not failed, failed
    for prefix in failing:  # a paper statement the runs contradict: its claims fail, none is left unread
        verdicts = [c.verdict for c in claims if c.statement.startswith(prefix)]
        assert verdicts and set(verdicts) == {"fail"}, (prefix, verdicts)
    return claims


@pytest.fixture
def claims_of(quick_table):
    """`claims_of(name, failing=())`: the figures of `name`'s quick sweep draw (each with axes) and every claim
    passes but those whose statement starts with one of `failing` (a paper statement the runs contradict),
    which all fail; returns the claims."""
    return lambda name, failing=(): _claims(quick_table, name, failing)
