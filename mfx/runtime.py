"""Threads, device, dtype, per-seed random streams and progress bars.

Seeds are a batch dimension: `randn(shape, seeds, stream)` stacks one draw per seed, each from its
own generator keyed by (seed, stream), so seed s gives the same numbers alone or in any batch, and
two streams (say the data and the weights of one seed) never share numbers.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm.auto import tqdm

DTYPES = {"float32": torch.float32, "float64": torch.float64}
DEVICES = ("cpu", "cuda", "auto")


@dataclass(frozen=True)
class Runtime:
    device: torch.device
    dtype: torch.dtype


def setup(threads: int = 1, device: str = "cpu", dtype: str = "float64") -> Runtime:
    """Apply the process-wide settings of `cfg.runtime` and return the device and dtype to use.

    One thread per process is the default: the matrices are small, and parallelism comes from
    running jobs in separate processes (Hydra launchers). The quadratic overlap chain reads the same
    count (torch.get_num_threads) for its seed-group threads.
    """
    torch.set_num_threads(threads)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("runtime.device=cuda but torch sees no CUDA device")
    return Runtime(torch.device(device), DTYPES[dtype])


def stream_seed(seed: int, *stream: object) -> int:
    """A 63-bit seed for the random stream `stream` of seed `seed` (stable across runs/machines)."""
    text = "/".join(map(str, (seed, *stream)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def generator(seed: int, *stream: object, device: torch.device | str = "cpu") -> torch.Generator:
    g = torch.Generator(device=device)
    g.manual_seed(stream_seed(seed, *stream))
    return g


def randn(
    shape: Sequence[int],
    seeds: Sequence[int],
    *stream: object,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
) -> torch.Tensor:
    """Standard normal tensor of shape [len(seeds), *shape]; row s depends only on (seeds[s], stream)."""
    return torch.stack(
        [
            torch.randn(
                tuple(shape), generator=generator(s, *stream, device=device), dtype=dtype, device=device
            )
            for s in seeds
        ]
    )


def progress(iterable: Iterable | None = None, **kwargs) -> tqdm:
    """A tqdm bar that stays quiet when stdout is not a terminal (logs, CI, launchers)."""
    kwargs.setdefault("leave", False)
    return tqdm(iterable, disable=not _terminal(sys.stdout), dynamic_ncols=True, **kwargs)


def _terminal(stream) -> bool:
    """Whether `stream` is a terminal; False for a closed or missing one (`mfx run >&-`: None)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def launch_folder() -> Path:
    """A fresh private folder (mode 0700, this user's) for the files Hydra and the launchers write
    for themselves: multirun.yaml, .hydra/, job logs and submitit's pickles, which hold code.  They
    never go to the shared output folder, whose writers could swap a pickle for their own.

    $MFX_LAUNCH_DIR, else ~/.cache/mfx/launch (on a cluster, home is seen by every node; SLURM jobs
    read their pickle from there), else the temporary folder (a read-only home).
    """
    base = os.environ.get("MFX_LAUNCH_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mfx", "launch"
    )
    try:
        os.makedirs(base, 0o700, exist_ok=True)
        return Path(tempfile.mkdtemp(dir=base, prefix="run-"))
    except OSError:
        return Path(tempfile.mkdtemp(prefix="mfx-launch-"))
