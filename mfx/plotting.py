"""One plotting style for every figure, `save_figure` → PDF + PNG with reproducible bytes, and the
registry of plot functions (`@draws("resnet_depth")` in `mfx/<family>/plots.py`).

Plot functions register here rather than on the Experiment so that job processes, which import
only the experiments, never import matplotlib (most of a worker's start-up time).
"""

from __future__ import annotations

import importlib
import io
import re
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import itertools

import matplotlib.collections as mcoll
import matplotlib.container as mcontainer
import matplotlib.pyplot as plt
import matplotlib.text as mtext
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from matplotlib.transforms import ScaledTranslation

from mfx import results
from mfx.experiment import FAMILIES

# Applied to matplotlib's global rcParams when this module is imported (only processes that draw
# import it), so every artist of every figure — legends and annotations included — uses it.
STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "legend.frameon": False,
    "legend.borderaxespad": 0.3,
    "legend.handlelength": 1.6,
    "mathtext.fontset": "dejavusans",
    "pdf.fonttype": 42,  # TrueType in PDFs: editable text, accepted by journals
    "ps.fonttype": 42,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.markersize": 4,
    "image.cmap": "viridis",
    "svg.hashsalt": "mfx",
}
matplotlib.rcParams.update(STYLE)
MIN_FONT_PT = 7
# Fixed metadata: no creation date or version strings, so the same table gives the same bytes.
PDF_METADATA = {"Creator": "mfx", "Producer": "mfx", "CreationDate": None}
PNG_METADATA = {"Software": "mfx"}


def figure(ncols: int = 1, nrows: int = 1, width: float = 3.4, height: float = 2.8, **kwargs):
    """(fig, axes) in the mfx style; `axes` is a flat list."""
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, layout="constrained", **kwargs
    )
    return fig, list(axes.flat)


def legend_outside(ax, **kwargs):
    """A legend to the right of the axes, outside the data (constrained layout makes room)."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), **kwargs)


def legend_below(ax, ncol: int = 2, **kwargs):
    """A legend under the axes' x label (set it first), outside the data.  The offset is in points —
    the tick labels, then each line of the x label — so it clears them whatever the axes' height (a
    fraction of the axes put the legend over the label of short panels)."""
    label = ax.get_xlabel()
    lines = label.count("\n") + 1 if label else 0
    below = ScaledTranslation(0, -(20 + 14 * lines) / 72, ax.figure.dpi_scale_trans)
    return ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=ax.transAxes + below, ncol=ncol, **kwargs
    )


def caption(fig, lines: list[str]) -> None:
    """Claims and verdicts under the figure: a left-aligned 7-pt block that constrained layout makes
    room for (lines already wrapped to the figure's width by the caller, `caption_chars`)."""
    if lines:
        # the figure grows by the block's height, so the axes keep their size and their labels fit
        fig.set_figheight(fig.get_figheight() + (1.3 * MIN_FONT_PT * len(lines) + 6) / 72)
        fig.supxlabel("\n".join(lines), fontsize=MIN_FONT_PT, ha="left", x=0.01, multialignment="left")


def caption_chars(fig) -> int:
    """How many characters of 7-pt text fit on one line across the figure (DejaVu Sans averages
    ≈ 0.56 em per character)."""
    return int(fig.get_figwidth() * 72 / (0.56 * MIN_FONT_PT)) - 2


_MATHTEXT = re.compile(r"(?<!\\)\$.*?(?<!\\)\$")  # $…$ segments: mathtext sets "-" as a minus itself
# a number's sign written as a hyphen: "-0.5", not "1e-3" or "p-2" (captions and the layout check)
HYPHEN_MINUS = re.compile(r"(?<![\w.])-(?=\.?\d)")


def layout_problems(fig) -> list[str]:
    """What makes a figure unreadable, from the renderer's bounding boxes (empty list: none).

    Checks: every text ≥ MIN_FONT_PT; no text cut by the figure's edge; no number's sign written as a
    hyphen; no caption cut short with an ellipsis (captions wrap); no two tick labels of one axis overlap;
    no legend covers a data point, a line or a bar of its axes, or any other text.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox.padded(1.0)
    problems = []
    # Tick labels: only those drawn (ticks inside the view limits); matplotlib keeps stale others.
    axes = [a for ax in fig.axes for a in (ax.xaxis, ax.yaxis)]
    found = fig.findobj(mtext.Text)  # first: it may create tick objects that `stale` must include
    ticks = [t for a in axes for t in [*a.majorTicks, *a.minorTicks]]
    stale = {id(label) for t in ticks for label in (t.label1, t.label2)}
    drawn = [
        [t for t in a.get_ticklabels(which="both") if t.get_text().strip() and _in_view(a, t)] for a in axes
    ]
    texts = [t for t in found if id(t) not in stale] + [t for labels in drawn for t in labels]
    for text in texts:
        box = text.get_window_extent(renderer)
        if not text.get_visible() or not text.get_text().strip() or box.width == 0 or box.height == 0:
            continue
        label = repr(text.get_text()[:40])
        if text.get_fontsize() < MIN_FONT_PT - 1e-9:
            problems.append(f"text {label} is {text.get_fontsize():.1f} pt (< {MIN_FONT_PT})")
        if not (edge.x0 <= box.x0 and box.x1 <= edge.x1 and edge.y0 <= box.y0 and box.y1 <= edge.y1):
            problems.append(f"text {label} is cut by the figure edge")
        if HYPHEN_MINUS.search(_MATHTEXT.sub("", text.get_text())):
            problems.append(f"text {label} writes a minus sign as a hyphen (use − or $…$)")
    if fig._supxlabel is not None and "…" in fig._supxlabel.get_text():
        problems.append("the caption is cut with an ellipsis (wrap it)")
    for labels in drawn:
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels]
        for i, (a, ba) in enumerate(boxes):
            for b, bb in boxes[i + 1 :]:
                common = ba.intersection(ba, bb)
                if common is not None and common.width > 0.5 and common.height > 0.5:
                    problems.append(f"tick labels {a!r} and {b!r} overlap")
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent(renderer)
            hit = _data_under(ax, box)
            if hit:
                problems.append(f"legend of axes {ax.get_title()[:30]!r} covers {hit}")
            own = {id(t) for t in legend.get_texts()} | {id(legend.get_title())}
            for text in texts:
                if id(text) in own or not text.get_visible() or not text.get_text().strip():
                    continue
                common = box.intersection(box, text.get_window_extent(renderer))
                if common is not None and common.width > 0.5 and common.height > 0.5:
                    problems.append(
                        f"legend of axes {ax.get_title()[:30]!r} covers text {text.get_text()[:30]!r}"
                    )
    return problems


def _in_view(axis, label) -> bool:
    """Whether a tick label is drawn: visible, and its tick inside the axis' view limits (compared in
    the axis' scale, so a log axis is judged in decades)."""
    scale = axis.get_transform()
    lo, hi = sorted(scale.transform(np.asarray(axis.get_view_interval(), dtype=float)))
    x = scale.transform(np.asarray([label.get_position()[0 if axis.axis_name == "x" else 1]], dtype=float))[0]
    span = (hi - lo) * 1e-9
    return label.get_visible() and np.isfinite(x) and lo - span <= x <= hi + span


def _data_under(ax, box) -> str:
    """The first data artist of `ax` with a point, segment or bar inside the display box `box` (and
    inside the axes: data beyond the view limits is clipped, not drawn)."""
    view = ax.bbox
    inside = lambda xy: (
        (max(box.x0, view.x0) <= xy[:, 0])
        & (xy[:, 0] <= min(box.x1, view.x1))
        & (max(box.y0, view.y0) <= xy[:, 1])
        & (xy[:, 1] <= min(box.y1, view.y1))
    )
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) == 0:
            continue
        if line.get_linestyle() not in ("None", "none", "", " ") and len(xy) > 1:
            t = np.linspace(0, 1, 50)[:, None]
            xy = np.concatenate([a + t * (b - a) for a, b in itertools.pairwise(xy)])
        if inside(xy).any():
            return f"line {line.get_label()!r}"
    for coll in ax.collections:
        offsets = coll.get_offsets()
        if coll.get_visible() and len(offsets) and isinstance(coll, mcoll.PathCollection):
            xy = coll.get_offset_transform().transform(np.asarray(offsets, dtype=float))
            if inside(xy[np.all(np.isfinite(xy), axis=1)]).any():
                return f"points {coll.get_label()!r}"
    bars = [patch for c in ax.containers if isinstance(c, mcontainer.BarContainer) for patch in c]
    for patch in bars:
        if patch.get_visible() and patch.get_window_extent(None).overlaps(box):
            return f"bar {patch.get_label()!r}"
    return ""


def grid_ticks(ax, ticks) -> None:
    """Labelled ticks at the grid values, each ≥ max(2.5, (max/min)^(1/6)) times the last one kept
    (at most seven, spread in log: on a narrow panel 64 and 128 collide, as D = 64, 96, 128 do)."""
    if len(ticks) == 0:  # nothing drawn (a partial grid): matplotlib's own ticks
        return
    ratio = max(2.5, (max(ticks) / min(ticks)) ** (1 / 6))
    kept = [ticks[0]]
    for t in ticks[1:]:
        if t >= kept[-1] * ratio * 0.99:
            kept.append(t)
    ticks = kept
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())


def colors(n: int) -> list:
    cmap = plt.get_cmap("viridis")
    return [cmap(0.9 * i / max(n - 1, 1)) for i in range(n)]


def save_figure(fig, stem: str | Path) -> list[Path]:
    """Write `stem.pdf` and `stem.png` (each to a temporary name, then renamed: never through a
    planted link); close the figure; return both paths."""
    stem = Path(stem)
    paths = [stem.with_suffix(".pdf"), stem.with_suffix(".png")]
    for path, metadata in zip(paths, (PDF_METADATA, PNG_METADATA)):
        buf = io.BytesIO()
        fig.savefig(buf, format=path.suffix[1:], metadata=metadata)
        results.write_bytes(path, buf.getvalue())
    plt.close(fig)
    return paths


_PLOTS: dict[str, Callable[[pd.DataFrame], dict]] = {}
_CAPTIONS: dict[str, dict[str, tuple[str, ...]]] = {}


def draws(name: str, captions: dict[str, tuple[str, ...]] | None = None):
    """Decorator: register `fn(table) -> {key: Figure}` as the plot function of experiment `name`.

    `captions` says which claims each figure shows: figure key → substrings of claim statements
    (a claim goes under every figure whose substrings it contains; with no entry for a key, the
    figure lists all of the experiment's claims; an empty tuple gives only the verdict counts).
    """

    def register(fn):
        _PLOTS[name] = fn
        _CAPTIONS[name] = captions or {}
        return fn

    return register


def caption_filter(name: str, key: str) -> tuple[str, ...] | None:
    """The statement substrings of figure `key` of experiment `name` (None: all claims)."""
    plot_function(name)
    return _CAPTIONS[name].get(key)


def plot_function(name: str) -> Callable[[pd.DataFrame], dict]:
    """The plot function of experiment `name` (imports every family's plots module once)."""
    for family in FAMILIES:
        importlib.import_module(f"mfx.{family}.plots")
    return _PLOTS[name]


def label(words: dict[str, str], code: str) -> str:
    """The words for a code name in a family's label table (`gmm2` → "two-Gaussian mixture").

    A family keeps one table {code: words} for its cases, distributions and metrics; a code the
    table lacks raises KeyError, so a new case cannot reach a legend as code.
    """
    if code not in words:
        raise KeyError(f"no words for {code!r} in the label table (add it: legends never show code names)")
    return words[code]
