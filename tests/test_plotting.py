from mfx import plotting


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
