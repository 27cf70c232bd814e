"""One plotting style for every figure, `save_figure` → PDF + PNG with reproducible bytes, and the
registry of plot functions (`@draws("resnet_depth")` in `mfx/<family>/plots.py`).

Plot functions register here rather than on the Experiment so that job processes, which import
only the experiments, never import matplotlib (most of a worker's start-up time).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from mfx.experiment import FAMILIES

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.markersize": 4,
    "image.cmap": "viridis",
    "svg.hashsalt": "mfx",
}
# Fixed metadata: no creation date or version strings, so the same table gives the same bytes.
PDF_METADATA = {"Creator": "mfx", "Producer": "mfx", "CreationDate": None}
PNG_METADATA = {"Software": "mfx"}


def figure(ncols: int = 1, nrows: int = 1, width: float = 3.4, height: float = 2.8, **kwargs):
    """(fig, axes) in the mfx style; `axes` is a flat list."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            nrows,
            ncols,
            figsize=(width * ncols, height * nrows),
            squeeze=False,
            layout="constrained",
            **kwargs,
        )
    return fig, list(axes.flat)


def colors(n: int) -> list:
    cmap = plt.get_cmap("viridis")
    return [cmap(0.9 * i / max(n - 1, 1)) for i in range(n)]


def save_figure(fig, stem: str | Path) -> list[Path]:
    """Write `stem.pdf` and `stem.png`; close the figure; return both paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".pdf"), stem.with_suffix(".png")]
    with plt.rc_context(STYLE):
        fig.savefig(paths[0], metadata=PDF_METADATA)
        fig.savefig(paths[1], metadata=PNG_METADATA)
    plt.close(fig)
    return paths


_PLOTS: dict[str, Callable[[pd.DataFrame], dict]] = {}


def draws(name: str):
    """Decorator: register `fn(table) -> {key: Figure}` as the plot function of experiment `name`."""

    def register(fn):
        _PLOTS[name] = fn
        return fn

    return register


def plot_function(name: str) -> Callable[[pd.DataFrame], dict]:
    """The plot function of experiment `name` (imports every family's plots module once)."""
    for family in FAMILIES:
        importlib.import_module(f"mfx.{family}.plots")
    return _PLOTS[name]
