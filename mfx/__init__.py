"""mfx: one command line to reproduce the figures and quantitative claims of three papers on the
large-depth / large-width limits of training — deep ResNets (`mfx.resnet`), one-pass SGD in
quadratic networks (`mfx.quadratic`) and mean-field transformers (`mfx.transformer`).

`mfx.load(path)` reads the results of a sweep as a pandas DataFrame, `mfx.load_claims(path)` its
claims (see `mfx.api`).  torch, pandas and matplotlib load on first use (`mfx.lazy`).
"""

from mfx.api import load, load_claims

__version__ = "0.1.0"

__all__ = ["__version__", "load", "load_claims"]
