import re
from pathlib import Path

import pytest

from mfx import experiment as registry
from mfx import plotting, report
from mfx.experiment import Claim


def _figure():
    fig, (ax,) = plotting.figure()
    ax.loglog([1, 2, 4], [1, 0.7, 0.5], "o-", label="err")
    ax.legend()
    return fig


def test_save_figure_writes_pdf_and_png_with_reproducible_bytes(tmp_path):
    a = plotting.save_figure(_figure(), tmp_path / "a" / "fig")
    b = plotting.save_figure(_figure(), tmp_path / "b" / "fig")
    assert [p.suffix for p in a] == [".pdf", ".png"]
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]


def test_every_experiment_has_its_quick_sweep_test():
    """Each experiment's glossary and captioned-figure checks (tests/sweep_checks.py) sit in the file of its
    end-to-end test, one call each."""
    files = Path(__file__).parent.glob("*/experiments/test_*.py")
    called = re.findall(r'quick_sweep_test\("(\w+)"\)', "".join(f.read_text() for f in files))
    experiments = [name for name, exp in registry.load_all().items() if exp.family in registry.FAMILIES]
    assert sorted(called) == sorted(experiments)


def test_layout_problems_catch_what_they_claim_to():
    fig, (ax,) = plotting.figure()
    ax.plot(range(10), range(10), "o-", label="data")
    ax.legend(loc="center")  # on the line
    ax.set_xticks(range(10), [f"label {i}" for i in range(10)])  # colliding
    ax.set_ylabel("a label far too long to fit in a figure this narrow, so it is cut " * 3)
    ax.text(0.5, 0.5, "tiny", fontsize=5, transform=ax.transAxes)
    found = " | ".join(plotting.layout_problems(fig))
    assert "covers line 'data'" in found and "overlap" in found
    assert "cut by the figure edge" in found and "'tiny' is 5.0 pt" in found
    low, (ax,) = plotting.figure(height=1.5)
    ax.plot(range(10), range(10), label="data")
    ax.set_xlabel("a label under the axes")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1))  # a fraction of a short axes: on the label
    assert "covers text 'a label under the axes'" in " | ".join(plotting.layout_problems(low))
    ax.get_legend().remove()
    plotting.legend_below(ax)
    assert plotting.layout_problems(low) == []
    clean, (ax,) = plotting.figure()
    ax.plot(range(10), range(10), "o-", label="data")
    plotting.legend_outside(ax)
    assert plotting.layout_problems(clean) == []


def test_a_sign_written_as_a_hyphen_is_a_layout_problem_but_mathtext_and_exponents_are_not():
    fig = _figure()
    ax = fig.axes[0]
    ax.plot([0, 1], [0, 1], label="fit: slope -0.46")
    ax.plot([0, 1], [1, 0], label="fit: slope $-0.46$, tol 1e-3, p-2, −0.5")
    plotting.legend_outside(ax)
    found = [p for p in plotting.layout_problems(fig) if "hyphen" in p]
    assert found == ["text 'fit: slope -0.46' writes a minus sign as a hyphen (use − or $…$)"]


def test_a_caption_cut_with_an_ellipsis_is_a_layout_problem():
    fig = _figure()
    plotting.caption(fig, ["claims (quick scale): ✓ 1 pass", "✓ [paper] a claim cut sho…"])
    assert "the caption is cut with an ellipsis (wrap it)" in plotting.layout_problems(fig)
    whole = _figure()
    long = Claim.at_most(
        "toy", "a statement far longer than the figure is wide " * 4, 1, 2, kind="paper", source="s"
    )
    lines = report.caption_lines([long], [long], "quick", plotting.caption_chars(whole))
    plotting.caption(whole, lines)
    assert len(lines) > 3 and plotting.layout_problems(whole) == []  # wrapped: whole, inside the figure


def test_a_code_name_without_words_never_reaches_a_legend():
    words = {"gmm2": "two-Gaussian mixture"}
    assert plotting.label(words, "gmm2") == "two-Gaussian mixture"
    with pytest.raises(KeyError, match="'iid'"):
        plotting.label(words, "iid")
