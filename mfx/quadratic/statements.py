"""The statements of the quadratic paper that mfx tests (mfx.statements): id, quote, place, parts."""

from __future__ import annotations

from mfx.statements import Statement

STATEMENTS: list[Statement] = []
