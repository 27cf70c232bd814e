"""The figures of the quadratic family, one module each (they register themselves when imported):

- `curves` (quad_curves, F1): eps_g(tau) of SGD vs the overlap ODE, and the order parameters.
- `escape` (quad_escape, F2-F3): plateau escape time vs ln N, p and p*.
- `implicit_bias` (quad_implicit_bias, F4): conserved polar factor and selection of the closest solution.
- `norms` (quad_norms, F1b): norm learning — diag Q's fixed point, reached while ρ ~ N^-1/2.
- `hessian` (quad_hessian, F5): Hessian spectra at the plateau and at the solution vs closed form.

`common` holds the helpers they share; the table → numbers code they share with the plots is in
`mfx.quadratic.analysis`.
"""

from mfx.quadratic.experiments import curves, escape, hessian, implicit_bias, norms  # noqa: F401  (importing registers them)
