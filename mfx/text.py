"""Text that is safe to print: control characters (terminal escapes, BEL) shown as \\xNN.

A light module (re only): the command line cleans everything it prints with it, without loading
pandas (`mfx.results` re-exports both names for the readers of rows and tables)."""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # every control character but tab and newline


def printable(text: str) -> str:
    """`text` with control characters (terminal escapes, BEL) shown as \\xNN: safe for a terminal."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))
