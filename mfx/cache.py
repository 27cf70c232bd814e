"""Artifacts shared by the jobs of a sweep (e.g. the large reference network), keyed by a config hash.

Jobs may run in different processes or on different machines that share only a filesystem: the
artifact is loaded if present, else computed and written atomically (temporary name, then rename).
Two jobs computing it at once is harmless: both write the same bytes and the last rename wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import torch


def key_hash(key: Mapping) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cached(name: str, key: Mapping, compute: Callable[[], dict], root: str | Path) -> dict:
    """Return `compute()` (a dict of tensors/numbers), cached under `root/name-<hash(key)>.pt`.

    `key` must hold every value that defines the artifact (sizes, seeds, dtype, version…).
    """
    root = Path(root)
    path = root / f"{name}-{key_hash(key)}.pt"
    if path.exists():
        return torch.load(path, weights_only=False)
    value = compute()
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=root, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    torch.save(value, tmp)
    os.replace(tmp, path)
    return value
