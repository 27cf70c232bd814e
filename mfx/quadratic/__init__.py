"""One-pass SGD in overparameterized quadratic networks (Bocchi et al., arXiv 2604.03068).

Symbols (science/quadratic.md):
- N input dimension, x ~ N(0, I_N); p student units, p_star (p*) teacher units.
- Student ŷ = a Σ_k λ_k², λ = W x/√N, W ∈ R^{p×N}; teacher y = a* Σ_m ν_m² (+ √Δ ξ), ν = W* x/√N.
- Readout `mean`: a = 1/p, a* = 1/p*; `sum`: a = a* = 1.
- Overlaps Q = W Wᵀ/N (p×p), rho = W W*ᵀ/N (p×p*), T = W* W*ᵀ/N (p*×p*, = I for the orthonormal teacher).
- eta the SGD learning rate; g = a·eta; time alpha = steps/N and tau = g·alpha.
- Population risk eps_g(rho, Q) (closed form, model.risk); plateau level eps_pl = (a* trT)²/(p+2) + a*² tr T².
- Conserved polar factor S = rho (rhoᵀ rho)^(-1/2) (T ∝ I, Q0 ∝ I); solutions W = s U W*, s = √(a*/a).

Modules: `model` (teacher/student, overlaps, risk, plateau, solutions), `sgd` (batched one-pass SGD),
`ode` (overlap ODEs with the O(eta²) term), `hessian` (span block + closed-form bulk); `experiments/`
(one module per figure: run, validate, claims, registration), `analysis` (table → fits and summaries,
shared by claims and plots), `plots` (the figures).
"""
