"""Experiments of the transformer family, one module per figure (science/transformer.md §4.2):

- `limit` — E1 `transformer_limit`: distance of the L×H network's outputs ŷ(t) to a large reference
  (the mean-field limit) along GD, vs L and H.
- `convergence` — E2 `transformer_convergence`: linear convergence of the loss from a small initial
  loss when the NTK is injective; the plateau of the controls; QK-only training on translates.
- `ntk` — E3 `transformer_ntk`: λ_min/λ_max of the closed-form Gram of the Λ_μ (modulo affine
  functions) and of the empirical NTK blocks across families, dimensions and sizes, with the controls;
  λ_min as the family parameters merge; the block table (which block ⇔ which Gram condition) and the
  discrete family over draws and n.
- `adjoint` — `transformer_adjoint`: the L×H network's per-head gradient against the limit's
  conditional-Wasserstein gradient (forward flow + backward adjoint ODE), its depth and width rates.

`common` holds the helpers they share; the table → numbers code shared with the plots is in
`mfx.transformer.analysis`.
"""

from mfx.transformer.experiments import adjoint, convergence, limit, ntk  # noqa: F401  (importing registers them)
