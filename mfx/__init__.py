"""mfx: one command line to reproduce the figures and quantitative claims of three papers on the
large-depth / large-width limits of training — deep ResNets (`mfx.resnet`), one-pass SGD in
quadratic networks (`mfx.quadratic`) and mean-field transformers (`mfx.transformer`)."""

__version__ = "0.1.0"
