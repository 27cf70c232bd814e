"""Heavy modules load on first use: `mfx --help`, `--version` and `list` answer without loading
torch, pandas, matplotlib or Hydra (seconds of start-up); the commands that compute load them.

`module(name)` returns a stand-in bound at module level like an import; reading one of its
attributes imports the module (once; later reads are the module's own).  Only the front doors —
the command line (`mfx.cli`, `mfx.runner`, `mfx.commands`) and `mfx.api` (which `import mfx` loads)
— bind modules this way, and only heavy ones (tests/test_imports.py checks both); every other
module imports at its top as usual.  The stand-in is not put in `sys.modules`, so nothing that
scans it (inspect, pickling) loads it by accident.
"""

from __future__ import annotations

import importlib
import sys
import types


class _Module:
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __setattr__(self, attr: str, value) -> None:
        # a module-level setting (`task.bar = …`) goes to the module itself, where its code reads it
        if attr == "_name":
            object.__setattr__(self, attr, value)
        else:
            setattr(importlib.import_module(self._name), attr, value)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def module(name: str) -> types.ModuleType:
    """`name`, imported on first attribute access (the module itself if it is already imported)."""
    return sys.modules.get(name) or _Module(name)


def loaded(name: str) -> bool:
    """Whether the module `name` has been imported."""
    return name in sys.modules
