"""Deep ResNets with two-layer-perceptron blocks vs. their neural mean ODE limit.

Chizat, *The Hidden Width of Deep ResNets: Tight Error Bounds and Phase Diagram* (arXiv 2509.10167);
the model and its scalings are in shared/science/resnet.md §1.2–§3.

Symbols (the paper's):
    L      depth (number of residual blocks), l = 1..L
    M      hidden width of a block (units j = 1..M per block)
    D      embedding dimension; d_in, d_out input/output dimensions; N training points
    alpha  residual multiplier: h_l = h_{l-1} + (alpha/(L M)) Σ_j v_{j,l} σ(<u_{j,l}, h_{l-1}>/D)
    eta    normalised learning rate; the raw GD rate on U and V is eta·L·M·D/alpha²
    K      number of full-batch GD steps; k = 0..K
    gamma  exponent of the residual scale D^gamma/(L M) in the phase diagram (alpha = D^(gamma-1/2))
    W_E, W_U  fixed random embedding/readout: h_0 = W_E x, f = W_Uᵀ h_L / D
"""
