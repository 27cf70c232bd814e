"""Mean-field transformers: Barboni, de Hoop, Furuya, Peyré, *Training Infinitely Deep and Wide
Transformers* (arXiv 2605.17660).

Symbols (science/transformer.md):
- μ_i: token distribution of input i (an empirical cloud of n tokens in R^d), i = 1…N;
- Λ_μ(z) = log ∫ e^{⟨z,y⟩} dμ(y): log-moment-generating (log-sum-exp) function of μ;
- θ_{l,h} = (Q, K, V) ∈ (R^{d×d})³: head h of layer l, l < L, h < H, i.i.d. from one law at every layer;
- A = β KᵀQ: one head attends with Att_θ[μ](x) = V ∇Λ_μ(A x);
- residual scale 1/(L·H), full-batch gradient descent with learning rate η·L·H, flow time t = k·η;
- q0: query token whose final position is the output ŷ_i (query readout; mean pooling is 0 on
  symmetric inputs);
- K = L·H·J Jᵀ: empirical neural tangent kernel of the outputs, in blocks full = V + QK.

Modules: `families` (token distributions, samplers, closed-form Λ_μ), `model` (forward pass, loss,
GD), `ntk` (empirical NTK blocks, closed-form Gram of Λ_μ modulo affine functions), `experiments`
(one module per figure: `limit` E1 transformer_limit, `convergence` E2 transformer_convergence, `ntk`
E3 transformer_ntk; `common` their shared helpers), `analysis` (table → numbers shared by the claims
and the plots), `plots` (figures, registered with `mfx.plotting.draws`).
"""
