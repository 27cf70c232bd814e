"""Artifacts shared by the jobs of a sweep (e.g. the large reference network), keyed by a config hash.

Jobs may run in different processes or on different machines that share only a filesystem: the
artifact is loaded if present, else computed and written atomically (temporary name, then rename).
Two jobs computing it at once is harmless: both write the same bytes and the last rename wins.

Artifacts are data, never code: a file holds plain tensors, the key that defined them and a
SHA-256 of their bytes, and is read with `torch.load(weights_only=True)`, which unpickles no
object.  A file that does not load, holds another key or fails its hash is recomputed with one
warning line naming it — never trusted, never fatal.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import torch

from mfx import results

MAX_BYTES = 2**34  # larger than any artifact mfx makes: a bigger file is not one


def key_hash(key: Mapping) -> str:
    return hashlib.sha256(_key_text(key).encode()).hexdigest()[:16]


def _key_text(key: Mapping) -> str:
    return json.dumps(key, sort_keys=True, default=str)


def content_hash(tensors: Mapping[str, torch.Tensor]) -> str:
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        h.update(f"{name}:{t.dtype}:{tuple(t.shape)}\0".encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


def _load(path: Path, key_text: str) -> dict | None:
    """The tensors of `path` if it is a sound artifact of `key_text`; else None with a warning."""
    try:
        obj = torch.load(
            io.BytesIO(results.read_regular(path, MAX_BYTES)), weights_only=True, map_location="cpu"
        )
        tensors = obj["tensors"]
        ok = (
            obj["key"] == key_text
            and all(isinstance(t, torch.Tensor) for t in tensors.values())
            and obj["sha256"] == content_hash(tensors)
        )
    except Exception as e:  # noqa: BLE001 — whatever is wrong with the file, it is recomputed
        print(
            f"mfx: warning: cache file {path} is unreadable ({type(e).__name__}); recomputing it",
            file=sys.stderr,
        )
        return None
    if not ok:
        print(
            f"mfx: warning: cache file {path} does not match its key or hash; recomputing it", file=sys.stderr
        )
        return None
    return dict(tensors)


def cached(name: str, key: Mapping, compute: Callable[[], dict], root: str | Path) -> dict:
    """Return `compute()` (a dict of tensors), cached under `root/name-<hash(key)>.pt`.

    `key` must hold every value that defines the artifact (sizes, seeds, dtype…); the hash of
    mfx's code is added to it, so that an artifact made by other code is never reused.
    """
    key = {**key, "code": results.code_hash()}
    path = Path(root) / f"{name}-{key_hash(key)}.pt"
    text = _key_text(key)
    if os.path.lexists(path):
        value = _load(path, text)
        if value is not None:
            return value
    value = compute()
    tensors = {k: v.detach().cpu() for k, v in value.items()}
    buf = io.BytesIO()
    torch.save({"key": text, "sha256": content_hash(tensors), "tensors": tensors}, buf)
    results.make_folder(path.parent, path.parent)
    results.remove_stale_temporaries(path.parent)
    results.write_bytes(path, buf.getvalue())
    return value
